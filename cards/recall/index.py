"""The index route (PERFORMANCE "routing rule"), for visible scopes holding more than the exact route's
limit: the HNSW index is walked with iterative scans (so the scope filter cannot starve the top-k),
over-fetching k × OVERFETCH by similarity, joined with as many of the lexically most relevant (their share
taken over every candidate holding a query word, as the exact route does) and of the cards about an entity
the query names, and the union is ranked by relevance. Approximate where the HNSW walk misses a similar
card (bench/README "recall.py", broad read)."""

from __future__ import annotations

from django.db import connection, transaction

from ..embeddings.spaces import IN_SPACE_SQL
from .aging import aged
from .answer import Scored
from .assemble import in_score_order, with_unembedded
from .contradictions import contradictions_found, for_the_caller
from .lexical import LEXICAL_SQL
from .query import NAMED_SQL, is_named
from .score import DAYS_SQL, SIMILARITY_SQL, by_words_sql, decay_sql, scored_relevance_sql
from .unembedded import computed_sql, unembedded_sql

OVERFETCH = 20
EF_SEARCH = 100
# k × OVERFETCH from each arm (similar, lexically relevant, about a named entity):
# bench/README "recall.py" has what each kept of the exact top 10 at 1M cards.
# MAX_SCAN_TUPLES bounds the worst case of an iterative scan over a tiny filter
# (PERFORMANCE: 42 ms at 100k rows unbounded) while still finding 200 matches
# in a filter holding 0.3 % of the rows; the exact route serves small filters anyway.
MAX_SCAN_TUPLES = 80_000
# The ids the request embeds among the candidates without a vector (%(waiting)s, read first).
COMPUTED = computed_sql("%(waiting)s::bigint[]")

_SCORED = f"""SELECT c.id, {SIMILARITY_SQL} AS similarity, {decay_sql("l.decay_lambda", DAYS_SQL)} AS decay,
    {DAYS_SQL} AS days, {by_words_sql(COMPUTED)} AS by_words FROM {{source}} JOIN cards_label l ON l.id = c.label_id"""
# The cards SQL scores: by a vector of the read's space, or by their words.
SCORED_IN_SQL = f"({IN_SPACE_SQL} OR {by_words_sql(COMPUTED)})"


def index(valid: str, unanswered: str, params: dict) -> dict:
    """The index route's answer: the fields of a Recall."""
    with transaction.atomic(), connection.cursor() as cursor:
        # SET LOCAL before the statement: settings never leak to the pooled
        # connection's next user, and no prepared plan predates them.
        cursor.execute(f"SET LOCAL hnsw.iterative_scan = relaxed_order; SET LOCAL hnsw.ef_search = {EF_SEARCH};"
                       f" SET LOCAL hnsw.max_scan_tuples = {MAX_SCAN_TUPLES}")
        # The candidates without a vector first: the request embeds the freshest few, the others are scored
        # by their words with the rest.
        cursor.execute(unembedded_sql(valid), params)
        params = {**params, "waiting": [row[0] for row in cursor.fetchall()]}
        # The k most relevant (relevance chooses, decay only orders them) come from three
        # arms, each read by its own index and scored exactly: the most similar (HNSW), the
        # most lexically relevant (GIN), and those about an entity the query names
        # (B-tree on scope, subject). The lexical share is taken over every candidate
        # holding a query word, as the exact route takes it, so the arms rank alike.
        arms = (f"(SELECT c.id FROM cards_card c WHERE {valid} AND {IN_SPACE_SQL}"
                " ORDER BY c.embedding <=> %(q)s::vector LIMIT %(fetch)s)"
                " UNION (SELECT x.id FROM lexical x ORDER BY x.lexical DESC, x.id DESC LIMIT %(fetch)s)"
                f" UNION (SELECT c.id FROM cards_card c WHERE {valid} AND {IN_SPACE_SQL}"
                " AND c.subject_id IN (SELECT id FROM named)"
                " ORDER BY c.embedding <=> %(q)s::vector LIMIT %(fetch)s)")
        lexical = LEXICAL_SQL.format(
            matched=f"SELECT c.id, c.lexemes FROM cards_card c WHERE {valid} AND {SCORED_IN_SQL}"
                    " AND c.lexemes && %(terms)s::text[]", n="%(limit)s")
        relevance = scored_relevance_sql("s.similarity", "s.by_words", "COALESCE(x.lexical, 0)", is_named("o"))
        # The arms' cards are read again by id and by the read's scopes, which hold every one of them: on a
        # cluster a read of cards by id alone is sent to every shard.
        nearest = "nearest JOIN cards_card c ON c.id = nearest.id AND c.scope_id = ANY(%(read_scopes)s)"
        cursor.execute(
            f"WITH {lexical}, {NAMED_SQL}, nearest AS MATERIALIZED ({arms})"
            f" SELECT s.id, COALESCE(s.similarity, %(unrelated)s), COALESCE(x.lexical, 0), s.decay, s.days,"
            f" {is_named('o')}, s.by_words FROM ({_SCORED.format(source=nearest)}) AS s"
            " JOIN cards_card o ON o.id = s.id AND o.scope_id = ANY(%(read_scopes)s)"
            f" LEFT JOIN lexical x ON x.id = s.id WHERE {relevance} >= %(floor)s"
            f" ORDER BY {relevance} DESC, s.id DESC LIMIT %(k)s", params)
        results = in_score_order([Scored(card_id=row[0], similarity=row[1], lexical=float(row[2]), decay=row[3],
                                         days=row[4], named=row[5], by_words=bool(row[6]))
                                  for row in cursor.fetchall()])
        results, unembedded = with_unembedded(cursor, results, params["waiting"], params)
        cursor.execute(f"WITH {NAMED_SQL} SELECT {unanswered}", params)
        if unanswered := cursor.fetchone()[0]:
            results = []
        aging, aging_askable = aged(cursor, valid, params)
        contradictions = contradictions_found(cursor, valid, params, first={r.card_id for r in results})
    return {"results": results, "aging": aging, "aging_askable": aging_askable, "unembedded": unembedded,
            "unanswered": unanswered, **for_the_caller(contradictions)}
