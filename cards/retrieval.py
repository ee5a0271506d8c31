"""Recall (DESIGN §6, issue 17): the cards most relevant to a query — relevance
fuses the vector's similarity with the lexical share of the query's words a
card holds, in one statement — ordered by `relevance × e^(−λ·Δt)`, with the
facts that have aged and the contradictions
among what the caller can see, each saying whether its question may be put to
the caller now (see `_asked`). Reads only; no model call beyond the query's
embedding.

Routing (PERFORMANCE "routing rule"): when the visible scopes hold fewer than
EXACT_LIMIT candidates — almost every household — every candidate is scored
exactly behind the B-tree on scope, which is complete. Above that, the HNSW
index is walked with iterative scans (so the scope filter cannot starve the
top-k), over-fetching k × OVERFETCH by similarity, joined with as many of the
lexically most relevant (their share taken over every candidate holding a
query word, as the exact route does) and of the cards about an entity the query
names, and the union is ranked by relevance. That route is approximate where
the HNSW walk misses a similar card (bench/README "recall.py", broad read), so
the exact route is kept as long as it costs about what the index route does.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
import math
from functools import lru_cache

import orjson
from django.db import connection, transaction
from django.utils import timezone

from .embeddings import embed_query
from .labels import NEVER_ASKED_LABELS_SQL
from .lexical import lexemes, query_terms
from .recall_answer import ALPHA, NAMED_BOOST, Aging, Contradiction, Recall, Scored
from .recall_memory import build_sql as memory_build_sql
from .recall_memory import enabled as memory_enabled
from .recall_scoring import from_memory
from .models import Card, Cardinality, CardKind, Tag
from .understand import ABSENCE_TELLS, labels_named, name_runs, speaks_of_self
from .unembedded import unembedded_score, unembedded_sql
from .valid_time import valid_sql
from .when import Interval

AGING_DAYS = 180
# The crossover at 1M cards on the 2-core machine: exact 65 ms for 20k
# candidates (3.2 µs each) against 60-80 ms for the index route.
EXACT_LIMIT = 20_000
OVERFETCH = 20
EF_SEARCH = 100
# k × OVERFETCH from each arm (similar, lexically relevant, about a named entity):
# bench/README "recall.py" has what each kept of the exact top 10 at 1M cards.
# MAX_SCAN_TUPLES bounds the worst case of an iterative scan over a tiny filter
# (PERFORMANCE: 42 ms at 100k rows unbounded) while still finding 200 matches
# in a filter holding 0.3 % of the rows; the exact route serves small filters anyway.
MAX_SCAN_TUPLES = 80_000
AGING_LIMIT = 5
CONTRADICTION_LIMIT = 5
ROUTES = ("exact", "index")
# Below FLOOR a card is not returned (recall_answer.py says why it is 0).
FLOOR = 0.0


def decay(decay_lambda: float, days: float) -> float:
    """e^(−λ·Δt); a time in the future (a planned event) does not decay."""
    return math.exp(-decay_lambda * max(days, 0.0))


@lru_cache(maxsize=512)
def query_vector(query: str) -> str:
    """The query's embedding as pgvector text; repeated queries (an agent asks
    for its context every turn) are embedded once per process."""
    vector = embed_query(query)
    return "[" + ",".join(f"{x:.9g}" for x in vector) + "]"


# Δt counts from when the card was last made true or verified, as known at
# %(at)s: for states the start, the latest statement and the latest check; for
# events when they happened (or were recorded, if undated).
# The latest statement is read without a subquery when there are none or one (most cards): the
# subquery ran for every state (1,289 of a household's 3,358 candidates at 1M cards).
_LATEST_STATED = """CASE cardinality(c.stated_at) WHEN 0 THEN NULL
    WHEN 1 THEN CASE WHEN c.stated_at[1] <= %(at)s THEN c.stated_at[1] END
    ELSE (SELECT max(t) FROM unnest(c.stated_at) AS t WHERE t <= %(at)s) END"""
_ANCHOR = f"""CASE WHEN c.kind = '{CardKind.EVENT}' THEN COALESCE(c.occurred_at, c.recorded_at)
    ELSE GREATEST(c.effective_at, CASE WHEN c.verified_at <= %(at)s THEN c.verified_at END, {_LATEST_STATED}) END"""
# date_part, not EXTRACT: float8 arithmetic instead of numeric (1 ms per 3,000 candidates).
_DAYS = f"GREATEST(0, date_part('epoch', %(at)s - ({_ANCHOR})) / 86400.0)"
_SIMILARITY = "(1 - (c.embedding <=> %(q)s::vector))::float8"
_SCORED = f"""SELECT c.id, {_SIMILARITY} AS similarity, exp(-l.decay_lambda * {_DAYS}) AS decay, {_DAYS} AS days
    FROM {{source}} JOIN cards_label l ON l.id = c.label_id"""
# The lexical score, computed in the statement that scores similarity: `lex` is
# the cards holding any of the query's words (`matched`, through the GIN index
# on lexemes), each word's idf is taken over {n} cards, and a card's score is
# the idf-weighted share of the query's words it holds — BM25 with every word
# counted once and no length norm: cards are a sentence long. In float8: numeric
# arithmetic on every candidate's relevance cost more than the scoring around it.
_LEXICAL = """lex AS MATERIALIZED ({matched}),
idf AS MATERIALIZED (
    SELECT t.term, ln(1 + (GREATEST({n}, count(l.id)) - count(l.id) + 0.5) / (count(l.id) + 0.5))::float8 AS idf
    FROM unnest(%(terms)s::text[]) AS t(term) LEFT JOIN lex l ON t.term = ANY(l.lexemes) GROUP BY t.term),
lexical AS MATERIALIZED (
    SELECT l.id, (SELECT sum(i.idf) FROM idf i WHERE i.term = ANY(l.lexemes)) / (SELECT sum(i.idf) FROM idf i)
           AS lexical
    FROM lex l)"""
_RELEVANCE = "(%(alpha)s * {sim} + (1 - %(alpha)s) * {lex} + CASE WHEN {named} THEN %(boost)s ELSE 0 END)"
# The entities the query names exactly (`names`: its word runs, understand.name_runs),
# among the read's scopes and their members' own, merges followed.
# Three arms, each on its own index (an OR of the first two read every entity: 1 ms at 100k cards).
_NAMED = """named AS MATERIALIZED (
    SELECT COALESCE(e.merged_into_id, e.id) AS id FROM cards_entity e
     WHERE e.name_norm = ANY(%(names)s::text[]) AND e.scope_id = ANY(%(scopes)s)
    UNION SELECT COALESCE(e.merged_into_id, e.id) FROM cards_entity e
     WHERE e.name_norm = ANY(%(names)s::text[])
       AND e.user_id IN (SELECT m.user_id FROM scopes_membership m WHERE m.scope_id = ANY(%(scopes)s))
    UNION SELECT COALESCE(e.merged_into_id, e.id) FROM cards_alias a JOIN cards_entity e ON e.id = a.entity_id
     WHERE a.name_norm = ANY(%(names)s::text[]) AND a.scope_id = ANY(%(scopes)s))"""


# A question for an attribute of named people (ABSENCE_TELLS: `tells`) — by name, or
# the asker's own ("my phone number") — when no such card about them holds now
# (`held`: valid at the asked time, whatever `when` or subject narrows the read to):
# nothing recorded answers it. Undecided when it also names something not a person
# ("the manager at Datadog"): an entity can hold such an attribute in a note.
_UNANSWERED = """(WITH people AS (
        SELECT n.id FROM named n JOIN cards_entity e ON e.id = n.id
         WHERE e.user_id IS NOT NULL OR e.kind = 'person'
        UNION SELECT e.id FROM cards_entity e WHERE %(speaks_of_self)s AND e.user_id = %(asker)s)
    SELECT cardinality(%(tells)s::int[]) > 0 AND EXISTS (SELECT 1 FROM people)
       AND NOT EXISTS (SELECT 1 FROM named WHERE id NOT IN (SELECT id FROM people))
       AND NOT EXISTS (SELECT 1 FROM cards_card c WHERE {held} AND c.label_id = ANY(%(tells)s::int[])
                       AND (c.subject_id IN (SELECT id FROM people) OR c.object_id IN (SELECT id FROM people))))"""


def _is_named(alias: str) -> str:
    return f"({alias}.subject_id IN (SELECT id FROM named) OR {alias}.object_id IN (SELECT id FROM named))"


def _valid(params: dict, *, as_of: dt.datetime | None, when: Interval | None,
           subject_ids: list[int] | None = None, routing: bool = False, when_events_only: bool = True) -> str:
    """Cards in the visible scopes that hold at the asked time (and overlap `when`, and are about `subject_ids`).
    `routing`: only to count candidates for the choice of route, where open cards are close enough.
    `when_events_only`: `when` keeps only the events in its range; otherwise states and knowledge stay too."""
    sql = "c.scope_id = ANY(%(scopes)s)"
    if subject_ids is not None:
        params["subjects"] = list(subject_ids)
        sql += " AND c.subject_id = ANY(%(subjects)s)"
    # Current means valid now (valid_time.py): a planned value is left out, and the
    # value it replaces is in until its day. `at` is now when no as_of was asked.
    params.setdefault("at", as_of or timezone.now())
    if routing and as_of is None:
        # The open cards differ from the valid ones by the few planned or closing
        # later, and are counted from the partial index alone (an index-only scan;
        # valid now reads every row: 1.4 against 44 ms over 80 scopes at 100k).
        sql += " AND c.superseded_at IS NULL"
    elif when is not None and when.end is not None and when.end > params["at"]:
        # A range reaching past the asked time asks what is planned in it too: an event
        # known then is in, though it has not happened yet. Known: recorded, or confirmed
        # as of a time before (a card imported with the time it was said).
        sql += (f" AND CASE WHEN c.kind = '{CardKind.EVENT}' THEN LEAST(c.recorded_at, c.verified_at) <= %(at)s"
                " AND (c.superseded_at IS NULL OR c.superseded_at > %(at)s)"
                f" ELSE {valid_sql('c')} END")
    else:
        sql += " AND " + valid_sql("c")
    if when is not None:
        params["when_start"] = when.start
        params["when_end"] = when.end or when.start + dt.timedelta(microseconds=1)
        in_range = ("c.occurred_at IS NOT NULL AND c.occurred_at < %(when_end)s"
                    " AND COALESCE(c.occurred_end, c.occurred_at + interval '1 microsecond') > %(when_start)s")
        sql += f" AND {in_range}" if when_events_only else f" AND (c.kind <> '{CardKind.EVENT}' OR ({in_range}))"
    return sql


def recall(*, scope_ids: list[int], query: str, k: int = 10, as_of: dt.datetime | None = None,
           when: Interval | None = None, route: str | None = None, subject_ids: list[int] | None = None,
           asker_id: int | None = None, when_events_only: bool = True) -> Recall:
    """Scored cards among `scope_ids` (already restricted to what the caller may
    read), best first; `route` forces "exact" or "index" read from SQL (the bench compares them), or
    "memory": the exact route scored from the scopes' snapshots (recall_memory.py) wherever the default
    would, which is for every read of now with no time range, subject or unanswerable attribute, on one
    PostgreSQL, while the snapshots fit in RECALL_MEMORY_MB.
    `asker_id` is the person questions would be put to (None: nobody was asked anything).
    `when` keeps the events in its range, and with `when_events_only` false states and knowledge too."""
    at = as_of or timezone.now()
    params = {"scopes": list(scope_ids), "at": at, "q": query_vector(query), "k": k, "asker": asker_id,
              "terms": list(recall_terms(query)), "names": name_runs(query), "alpha": ALPHA, "floor": FLOOR,
              "tells": [label.pk for label in labels_named(query) if label.key in ABSENCE_TELLS],
              "speaks_of_self": speaks_of_self(query),
              "boost": NAMED_BOOST,
              "fetch": k * OVERFETCH, "limit": EXACT_LIMIT + 1,
              "exact_limit": EXACT_LIMIT if route in (None, "memory") else EXACT_LIMIT + 1}
    valid = _valid(params, as_of=as_of, when=when, subject_ids=subject_ids, when_events_only=when_events_only)
    counted = _valid(params, as_of=as_of, when=when, subject_ids=subject_ids, routing=True,
                     when_events_only=when_events_only)
    # Most questions name no such attribute: then the statement is planned without the test.
    unanswered = _UNANSWERED.format(held=_valid(params, as_of=as_of, when=None)) if params["tells"] else "false"
    if route in (None, "memory") and as_of is None and when is None and subject_ids is None:
        with connection.cursor() as cursor:
            found = _from_memory(cursor, params, unanswered)
        if found is not None:
            return Recall(at=at, route="exact", memory=True, **found)
    if route != "index":
        # One statement: no transaction of its own. Not prepared: a generic plan
        # (PostgreSQL's choice after five runs) would serve a household and an
        # enterprise-wide read alike; planning it per call costs ~0.3 ms.
        with connection.cursor() as cursor:
            found = _exact(cursor, valid, counted, unanswered, params)
        if found is not None:
            return Recall(at=at, route="exact", **found)
    with transaction.atomic(), connection.cursor() as cursor:
        # SET LOCAL before the statement: settings never leak to the pooled
        # connection's next user, and no prepared plan predates them.
        cursor.execute(f"SET LOCAL hnsw.iterative_scan = relaxed_order; SET LOCAL hnsw.ef_search = {EF_SEARCH};"
                       f" SET LOCAL hnsw.max_scan_tuples = {MAX_SCAN_TUPLES}")
        # The k most relevant (relevance chooses, decay only orders them) come from three
        # arms, each read by its own index and scored exactly: the most similar (HNSW), the
        # most lexically relevant (GIN), and those about an entity the query names
        # (B-tree on scope, subject). The lexical share is taken over every candidate
        # holding a query word, as the exact route takes it, so the arms rank alike.
        arms = (f"(SELECT c.id FROM cards_card c WHERE {valid} AND c.embedding IS NOT NULL"
                " ORDER BY c.embedding <=> %(q)s::vector LIMIT %(fetch)s)"
                " UNION (SELECT x.id FROM lexical x ORDER BY x.lexical DESC, x.id DESC LIMIT %(fetch)s)"
                f" UNION (SELECT c.id FROM cards_card c WHERE {valid} AND c.embedding IS NOT NULL"
                " AND c.subject_id IN (SELECT id FROM named)"
                " ORDER BY c.embedding <=> %(q)s::vector LIMIT %(fetch)s)")
        lexical = _LEXICAL.format(
            matched=f"SELECT c.id, c.lexemes FROM cards_card c WHERE {valid} AND c.embedding IS NOT NULL"
                    " AND c.lexemes && %(terms)s::text[]", n="%(limit)s")
        relevance = _RELEVANCE.format(sim="s.similarity", lex="COALESCE(x.lexical, 0)", named=_is_named("o"))
        # The arms' cards are read again by id and by the read's scopes, which hold every one of them: on a
        # cluster a read of cards by id alone is sent to every shard.
        nearest = "nearest JOIN cards_card c ON c.id = nearest.id AND c.scope_id = ANY(%(scopes)s)"
        cursor.execute(
            f"WITH {lexical}, {_NAMED}, nearest AS MATERIALIZED ({arms})"
            f" SELECT s.id, s.similarity, COALESCE(x.lexical, 0), s.decay, s.days, {_is_named('o')}"
            f" FROM ({_SCORED.format(source=nearest)}) AS s"
            " JOIN cards_card o ON o.id = s.id AND o.scope_id = ANY(%(scopes)s)"
            f" LEFT JOIN lexical x ON x.id = s.id WHERE {relevance} >= %(floor)s"
            f" ORDER BY {relevance} DESC, s.id DESC LIMIT %(k)s", params)
        results = _in_score_order([Scored(card_id=row[0], similarity=row[1], lexical=float(row[2]), decay=row[3],
                                          days=row[4], named=row[5]) for row in cursor.fetchall()])
        cursor.execute(unembedded_sql(valid), params)
        results, unembedded = _with_unembedded(cursor, results, [row[0] for row in cursor.fetchall()], params)
        cursor.execute(f"WITH {_NAMED} SELECT {unanswered}", params)
        if unanswered := cursor.fetchone()[0]:
            results = []
        aging, aging_askable = _aging(cursor, valid, params)
        contradictions = _contradictions(cursor, valid, params, first={r.card_id for r in results})
    return Recall(at=at, route="index", results=results, aging=aging, aging_askable=aging_askable,
                  unembedded=unembedded, unanswered=unanswered, **_for_the_caller(contradictions))


def recall_terms(query: str) -> tuple[str, ...]:
    """The query's words (cards/lexical.py), and the key of every label the query
    names by a synonym ("which company…" also looks for "employer"): a card's
    words hold its label's key, never the synonyms, which may change."""
    named = [label.key for label in labels_named(query)]
    return tuple(dict.fromkeys([*query_terms(query), *(w for key in named for w in lexemes(key.replace("_", " ")))]))


def _with_unembedded(cursor, results: list[Scored], ids: list[int], params: dict) -> tuple[list[Scored], dict]:
    """The top k of the scored cards and of the candidates still without a vector
    (`ids`), scored alike (unembedded.py), in recall's order; and what was done about the latter."""
    found = unembedded_score(cursor, ids, params, _DAYS)
    if not found.scored:
        return results, found.summary()
    # Their words are stored with them: only the vector is missing. Their lexical
    # share is not known here (it is taken over the candidates), so they are
    # scored on similarity alone until the sweep has given them a vector.
    scored = [Scored(card_id=pk, similarity=sim, decay=dec, days=days, computed=True)
              for pk, sim, dec, days in found.scored]
    results = sorted(results + [r for r in scored if r.relevance >= params["floor"]],
                     key=lambda r: (r.relevance, r.card_id), reverse=True)[:params["k"]]
    return _in_score_order(results), found.summary()


def _in_score_order(results: list[Scored]) -> list[Scored]:
    """The k most relevant are chosen first, then shown by score (relevance ×
    decay): decay orders what is relevant, and never keeps a relevant card out
    for being old (bench/README "retrieval_quality.py": recall@10 0.90 chosen
    so, 0.72 when decay chooses too)."""
    return sorted(results, key=lambda r: (r.score, r.card_id), reverse=True)


# The exact route in one statement: the candidates are read once (one pass over
# their heap pages instead of three) and scored, checked for age and grouped
# for contradictions from that one set. The count comes first as a one-time
# filter: when the scopes hold more than %(exact_limit)s candidates nothing is
# scored and the caller takes the index route.
def _single(alias: str = "") -> str:
    """What aging facts and contradictions are made of: single-value states,
    never hypotheses (a guess is not a side and is not re-checked)."""
    return (f"{alias}kind = '{CardKind.STATE}' AND {alias}cardinality = '{Cardinality.SINGLE}'"
            f" AND {alias}tag <> '{Tag.HYPOTHESIS}'")


def aging_condition(alias: str = "") -> str:
    """What goes stale and is re-checked with the person once AGING_DAYS pass
    unconfirmed: a single-value state of a label whose value can change (a
    birthday does not). The dashboard's health counts read it too."""
    return f"{_single(alias)} AND {alias}label_id IN (SELECT id FROM cards_label WHERE ages)"


def aging_now() -> str:
    """An aging fact due for its re-check: unconfirmed for AGING_DAYS as of %(at)s
    (over cards_card `c`). The home page counts these and lists them (aging_card_ids)."""
    return f"{aging_condition('c.')} AND {_DAYS} >= {AGING_DAYS}"


def aging_card_ids(scope_ids: list[int], *, among: list[int] | None = None) -> list[int]:
    """The facts to re-check now in these scopes: what the home page's health counts count;
    with `among`, only which of those cards are (a page that shows a few asks only of them)."""
    sql = f"SELECT c.id FROM cards_card c WHERE c.scope_id = ANY(%(scopes)s) AND {valid_sql('c')} AND {aging_now()}"
    if among is not None:
        sql += " AND c.id = ANY(%(among)s)"
    with connection.cursor() as cursor:
        cursor.execute(sql, {"scopes": list(scope_ids), "at": timezone.now(), "among": list(among or ())})
        return [row[0] for row in cursor.fetchall()]


def _sensitive(label_id: str) -> str:
    """Of a label never put to a person as a question (see NEVER_ASKED_LABELS_SQL)."""
    return f"{label_id} IN ({NEVER_ASKED_LABELS_SQL})"


def _asked(card: str, scope: str, verified_at: str) -> str:
    """A join of when the caller (%(asker)s) said they had put this card's question
    to its person (`asked.asked_at`), as the card stood then: a confirmation since
    (a new verified_at) makes it a new question. NULL when not asked. A question
    counts as asked only on that word (POST /cards/{id}/asked/), never for having
    been shown. A join by the card's scope, not a subquery per row: on a cluster
    it is read on the card's own shard (a correlated subquery over a CTE is refused).
    IS NOT DISTINCT FROM: with no asker, `= NULL` would fold the whole condition to
    false, and Citus refuses a join left without its scope. The read's scopes again:
    joined with a CTE's rows, Citus reads the questions first, and then only from
    the shards of those scopes (every card here is in one of them)."""
    return (f" LEFT JOIN cards_cardasked asked ON asked.card_id = {card} AND asked.scope_id = {scope}"
            " AND asked.scope_id = ANY(%(scopes)s)"
            f" AND asked.user_id IS NOT DISTINCT FROM %(asker)s AND asked.card_verified_at = {verified_at}")


# One contradiction's question card, and its version: the newest recorded side.
_QUESTION_CARD = ("max({a}id) AS question_card,"
                  " (array_agg({a}verified_at ORDER BY {a}id DESC))[1] AS question_verified,"
                  " (array_agg({a}scope_id ORDER BY {a}id DESC))[1] AS question_scope")


def _values_differ(alias: str = "") -> str:
    """A group of single-value cards holds more than one value (or related entity)."""
    return f"count(DISTINCT {alias}value_norm || '|' || COALESCE({alias}object_id::text, '')) > 1"


_EXACT = f"""
WITH n AS MATERIALIZED (SELECT count(*) AS n FROM (SELECT 1 FROM cards_card c WHERE {{counted}} LIMIT %(limit)s) AS t),
cand AS MATERIALIZED (
    -- Δt once per card: the decay is taken from it outside (a LATERAL computing
    -- both once cost more than computing Δt twice). No vector: similarity NULL.
    SELECT c.id, c.scope_id, c.kind, c.cardinality, c.tag, c.subject_id, c.label_id, c.value_norm, c.object_id,
           c.effective_at,
           c.verified_at, {_SIMILARITY} AS similarity, {_DAYS} AS days, l.decay_lambda,
           -- Only the few holding a query word carry their words on: the rest would be copied for nothing.
           CASE WHEN c.lexemes && %(terms)s::text[] THEN c.lexemes END AS lexemes
    FROM cards_card c JOIN cards_label l ON l.id = c.label_id
    WHERE {{valid}} AND (SELECT n FROM n) <= %(exact_limit)s),
-- The words are matched among the candidates in hand: the GIN index would find every card in
-- the database holding a word (17k of 100k for a common one: 2.3 ms) to keep the few hundred here.
{_LEXICAL.format(matched="SELECT id, lexemes FROM cand WHERE lexemes IS NOT NULL", n="(SELECT n FROM n)")
         .replace("{", "{{").replace("}", "}}")},
{_NAMED},
-- The few aged candidates, each looked up once in the caller's asked questions.
aged AS MATERIALIZED (
    SELECT x.id, x.days, x.similarity, asked_at, NOT sensitive AND asked_at IS NULL AS askable
    FROM (SELECT x.*, asked.asked_at, {_sensitive("x.label_id")} AS sensitive
          FROM cand x {_asked("x.id", "x.scope_id", "x.verified_at")}
          WHERE {aging_condition("x.")} AND x.days >= {AGING_DAYS}) AS x)
SELECT (SELECT n FROM n),
  (SELECT json_agg(json_build_array(id, similarity, lexical, decay, days, named)
                   ORDER BY relevance * decay DESC, id DESC)
   FROM (SELECT r.*, exp(-r.decay_lambda * r.days) AS decay
         FROM (SELECT q.*, {_RELEVANCE.format(sim="q.similarity", lex="q.lexical", named="q.named")} AS relevance
               -- OFFSET 0 keeps `named` computed once a row (a pulled-up subquery would repeat it per use).
               FROM (SELECT cand.id, cand.similarity, COALESCE(x.lexical, 0) AS lexical, cand.days,
                            cand.decay_lambda, cand.subject_id = ANY(na.ids) OR cand.object_id = ANY(na.ids) AS named
                     FROM cand LEFT JOIN lexical x ON x.id = cand.id,
                          (SELECT COALESCE(array_agg(id), '{{{{}}}}') AS ids FROM named) AS na
                     WHERE cand.similarity IS NOT NULL OFFSET 0) AS q) AS r
         WHERE r.relevance >= %(floor)s ORDER BY r.relevance DESC, r.id DESC LIMIT %(k)s) AS top)::text,
  -- Those that may be asked first, so a full list never hides one behind facts already asked about.
  (SELECT json_agg(json_build_array(id, days, asked_at, askable)
                   ORDER BY askable DESC, similarity DESC NULLS LAST, days DESC, id)
   FROM (SELECT * FROM aged ORDER BY askable DESC, similarity DESC NULLS LAST, days DESC, id
         LIMIT {AGING_LIMIT}) AS listed)::text,
  (SELECT count(*) FROM aged WHERE askable),
  (SELECT json_agg(json_build_array(subject_id, label_id, ids, question_card,
                                    asked_at, NOT {_sensitive("q.label_id")} AND asked_at IS NULL))
   FROM (SELECT s.*, asked.asked_at
         FROM (SELECT subject_id, label_id, array_agg(id ORDER BY effective_at DESC, id DESC) AS ids,
                      {_QUESTION_CARD.format(a="")} FROM cand
               WHERE {_single()} GROUP BY subject_id, label_id HAVING {_values_differ()}) AS s
              {_asked("s.question_card", "s.question_scope", "s.question_verified")}) AS q)::text,
  -- Candidates without a vector yet (cand gives them no similarity): a probe of the partial index.
  (SELECT array_agg(id) FROM ({{unembedded}}) AS u),
  {{unanswered}}
"""


def _exact(cursor, valid: str, counted: str, unanswered: str, params: dict) -> dict | None:
    cursor.execute(_EXACT.format(valid=valid, counted=counted, unembedded=unembedded_sql(valid),
                                 unanswered=unanswered), params)
    count, top, aged, aging_askable, sides, unembedded, unanswered = cursor.fetchone()
    if count > params["exact_limit"]:
        return None
    # JSON writes a whole float without its point (decay 1, days 0): _answer's float() keeps
    # the types the index route and the API schema give.
    aged = [(pk, days, _instant(asked), askable) for pk, days, asked, askable in orjson.loads(aged or "[]")]
    sides = [(subject, label, ids, key, _instant(asked), askable)
             for subject, label, ids, key, asked, askable in orjson.loads(sides or "[]")]
    return _answer(cursor, params, top=orjson.loads(top or "[]"), aged=aged, aging_askable=aging_askable,
                   sides=sides, unembedded=unembedded or [], unanswered=unanswered)


def _from_memory(cursor, params: dict, unanswered: str) -> dict | None:
    """The exact route's answer scored from the scopes' snapshots in this process (recall_memory.py), or
    None when they cannot serve it (off, Citus, too large: SQL then answers). `unanswered`: _UNANSWERED
    for this read, asked of SQL only when the query names such an attribute."""
    if not memory_enabled(cursor):
        return None
    found = from_memory(cursor, params, named_sql=_NAMED, build_sql=_memory_build_sql(), alpha=ALPHA,
                        boost=NAMED_BOOST, aging_days=AGING_DAYS, aging_limit=AGING_LIMIT)
    if found is None:
        return None
    if params["tells"]:
        cursor.execute(f"WITH {_NAMED} SELECT {unanswered}", params)
        unanswered = cursor.fetchone()[0]
    return _answer(cursor, params, top=found["top"], aged=found["aged"], sides=found["sides"],
                   unembedded=found["unembedded"], aging_askable=found["aging_askable"],
                   unanswered=bool(params["tells"]) and unanswered)


@lru_cache(maxsize=1)
def _memory_build_sql() -> str:
    return memory_build_sql(anchor=_ANCHOR, single=_single("c."), ages=aging_condition("c."))


def _answer(cursor, params: dict, *, top: list, aged: list, aging_askable: int, sides: list,
            unembedded: list[int], unanswered: bool = False) -> dict:
    """Recall's answer from what a route found: the top (id, similarity, lexical, decay, days, named) in
    score order, aged facts (id, days, asked_at, askable), contradictions' sides (subject, label, ids,
    question card, asked_at, askable) and the ids of the freshest candidates without a vector."""
    results = [Scored(card_id=pk, similarity=float(sim), lexical=float(lex), decay=float(dec), days=float(days),
                      named=named) for pk, sim, lex, dec, days, named in top]
    aging = [Aging(card_id=pk, days=float(days), asked_at=asked, askable=askable) for pk, days, asked, askable in aged]
    contradictions = [Contradiction(subject_id=subject, label_id=label, card_ids=ids, question_card_id=key,
                                    asked_at=asked, askable=askable)
                      for subject, label, ids, key, asked, askable in sides]
    results, unembedded = _with_unembedded(cursor, results, unembedded, params)
    if unanswered:
        results = []
    return {"results": results, "aging": aging, "aging_askable": aging_askable, "unembedded": unembedded,
            "unanswered": unanswered, **_for_the_caller(_touching_first(contradictions, {r.card_id for r in results}))}


def _instant(text: str | None) -> dt.datetime | None:
    return dt.datetime.fromisoformat(text) if text else None


def _aging(cursor, valid: str, params: dict) -> tuple[list[Aging], int]:
    """Facts unconfirmed for AGING_DAYS or more (see aging_condition), those that
    may be asked first, then those nearest the query; and how many may be asked."""
    cursor.execute(
        "SELECT id, days, asked_at, askable, count(*) FILTER (WHERE askable) OVER () FROM ("
        f" SELECT c.id, {_DAYS} AS days, asked.asked_at, NOT {_sensitive('c.label_id')} AND asked.asked_at IS NULL"
        " AS askable,"
        # Similarity as an expression, not the bare operator: with the index route's
        # iterative-scan settings the planner would otherwise walk the HNSW index
        # for this very selective filter until max_scan_tuples (260 ms at 1M cards).
        f" {_SIMILARITY} AS similarity FROM cards_card c {_asked('c.id', 'c.scope_id', 'c.verified_at')}"
        f" WHERE {valid} AND {aging_condition('c.')} AND {_DAYS} >= {AGING_DAYS}) AS aged"
        " ORDER BY askable DESC, similarity DESC NULLS LAST, days DESC, id LIMIT " + str(AGING_LIMIT), params)
    rows = cursor.fetchall()
    return [Aging(card_id=row[0], days=row[1], asked_at=row[2], askable=row[3]) for row in rows], \
        (rows[0][4] if rows else 0)


def contradictions_in(*, scope_ids: list[int], limit: int | None = None) -> list[Contradiction]:
    """Current contradictions among these scopes (the review queue lists them)."""
    params = {"scopes": list(scope_ids), "asker": None}
    with connection.cursor() as cursor:
        found = _contradictions(cursor, _valid(params, as_of=None, when=None), params, first=set())
    return found if limit is None else found[:limit]


def contradictions_seen(found: list[Contradiction], *, reads: dict[int, set[int]]) -> dict[int, list[Contradiction]]:
    """Of `found` (contradictions_in over every scope of `reads`), those a read in each scope of
    `reads` ({scope: the scopes its read sees}) meets: where the sides it can see still differ. Each
    keeps only the cards that read sees. The home page counts these; the scope's view lists them."""
    every = sorted(set().union(*reads.values())) if reads else []
    sides = {row["id"]: row for row in Card.objects.in_scopes(every)
             .filter(pk__in={i for c in found for i in c.card_ids}).values("id", "scope_id", "value_norm", "object_id")}
    seen: dict[int, list[Contradiction]] = {}
    for scope_id, visible in reads.items():
        seen[scope_id] = []
        for contradiction in found:
            ids = [i for i in contradiction.card_ids if i in sides and sides[i]["scope_id"] in visible]
            if len({(sides[i]["value_norm"], sides[i]["object_id"]) for i in ids}) > 1:
                seen[scope_id].append(dataclasses.replace(contradiction, card_ids=ids))
    return seen


def contradiction_card_ids(scope_ids: list[int]) -> list[int]:
    """The sides, seen from these scopes, of the contradictions a read over them meets."""
    seen = contradictions_seen(contradictions_in(scope_ids=scope_ids), reads={0: set(scope_ids)})
    return [i for contradiction in seen[0] for i in contradiction.card_ids]


def _contradictions(cursor, valid: str, params: dict, *, first: set[int]) -> list[Contradiction]:
    """Current single-value facts (never hypotheses: a guess is not a side) about
    one subject and label whose values differ across the visible scopes (one scope holds one current value, so the
    sides come from different scopes); those touching a recalled card first."""
    cursor.execute(
        "SELECT q.subject_id, q.label_id, q.ids, q.question_card, q.asked_at,"
        f" NOT {_sensitive('q.label_id')} AND q.asked_at IS NULL FROM ("
        " SELECT s.*, asked.asked_at FROM ("
        f" SELECT c.subject_id, c.label_id, array_agg(c.id ORDER BY c.effective_at DESC, c.id DESC) AS ids,"
        f" {_QUESTION_CARD.format(a='c.')} FROM cards_card c WHERE {valid} AND {_single('c.')}"
        f" GROUP BY c.subject_id, c.label_id HAVING {_values_differ('c.')}) AS s"
        f" {_asked('s.question_card', 's.question_scope', 's.question_verified')}) AS q", params)
    found = [Contradiction(subject_id=row[0], label_id=row[1], card_ids=list(row[2]), question_card_id=row[3],
                           asked_at=row[4], askable=row[5]) for row in cursor.fetchall()]
    return _touching_first(found, first)


def _touching_first(found: list[Contradiction], first: set[int]) -> list[Contradiction]:
    """Those touching a recalled card first, then the newest."""
    return sorted(found, key=lambda c: (not first.intersection(c.card_ids), -max(c.card_ids)))


def _for_the_caller(found: list[Contradiction]) -> dict:
    """The first CONTRADICTION_LIMIT, those the caller may be asked about first
    (a stable sort: touching a recalled card, then the newest, within each), and
    how many may be asked in all."""
    ordered = sorted(found, key=lambda c: not c.askable)
    return {"contradictions": ordered[:CONTRADICTION_LIMIT],
            "contradictions_askable": sum(c.askable for c in found)}
