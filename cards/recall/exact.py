"""The exact route (PERFORMANCE "routing rule"): every candidate of the visible scopes scored behind the
B-tree on scope, in one statement — complete, and ~1–3 ms for a household. The candidates are read once (one
pass over their heap pages instead of three) and scored, checked for age and grouped for contradictions
from that one set. The count comes first as a one-time filter: when the scopes hold more than
%(exact_limit)s candidates nothing is scored and the caller takes the index route (index.py)."""

from __future__ import annotations

import datetime as dt

import orjson

from .aging import AGING_DAYS, AGING_LIMIT, aging_condition
from .assemble import answer_of
from .contradictions import QUESTION_CARD_SQL, values_differ
from .lexical import LEXICAL_SQL
from .query import NAMED_SQL
from .questions import asked_join, sensitive_sql, single_sql
from .score import DAYS_SQL, SIMILARITY_SQL, by_words_sql, decay_sql, final_sql, scored_relevance_sql
from .unembedded import computed_sql, unembedded_sql

# The ids the request embeds (unembedded.computed_sql) among those `waiting`.
COMPUTED = computed_sql("(SELECT ids FROM waiting)")

EXACT_SQL = f"""
WITH n AS MATERIALIZED (SELECT count(*) AS n FROM (SELECT 1 FROM cards_card c WHERE {{counted}} LIMIT %(limit)s) AS t),
-- Candidates without a vector yet, freshest first: a probe of the partial index. The request embeds the first
-- few (unembedded.py) unless a reembed runs; the rest are scored by their words.
waiting AS MATERIALIZED (SELECT array_agg(id) AS ids FROM ({{unembedded}}) AS u),
cand AS MATERIALIZED (
    -- Δt once per card: the decay is taken from it outside (a LATERAL computing
    -- both once cost more than computing Δt twice). No vector of the space: similarity NULL.
    SELECT c.id, c.scope_id, c.kind, c.cardinality, c.tag, c.subject_id, c.label_id, c.value_norm, c.object_id,
           c.effective_at,
           c.verified_at, {SIMILARITY_SQL} AS similarity, {DAYS_SQL} AS days, l.decay_lambda,
           {by_words_sql(COMPUTED)} AS by_words,
           -- Only the few holding a query word carry their words on: the rest would be copied for nothing.
           CASE WHEN c.lexemes && %(terms)s::text[] THEN c.lexemes END AS lexemes
    FROM cards_card c JOIN cards_label l ON l.id = c.label_id
    WHERE {{valid}} AND (SELECT n FROM n) <= %(exact_limit)s),
-- The words are matched among the candidates in hand: the GIN index would find every card in
-- the database holding a word (17k of 100k for a common one: 2.3 ms) to keep the few hundred here.
{LEXICAL_SQL.format(matched="SELECT id, lexemes FROM cand WHERE lexemes IS NOT NULL", n="(SELECT n FROM n)")
         .replace("{", "{{").replace("}", "}}")},
{NAMED_SQL},
-- The few aged candidates, each looked up once in the caller's asked questions.
aged AS MATERIALIZED (
    SELECT x.id, x.days, x.similarity, asked_at, NOT sensitive AND asked_at IS NULL AS askable
    FROM (SELECT x.*, asked.asked_at, {sensitive_sql("x.label_id")} AS sensitive
          FROM cand x {asked_join("x.id", "x.scope_id", "x.verified_at")}
          WHERE {aging_condition("x.")} AND x.days >= {AGING_DAYS}) AS x)
SELECT (SELECT n FROM n),
  (SELECT json_agg(json_build_array(id, COALESCE(similarity, %(unrelated)s), lexical, decay, days, named, by_words)
                   ORDER BY {final_sql("relevance", "decay")} DESC, id DESC)
   FROM (SELECT r.*, {decay_sql("r.decay_lambda", "r.days")} AS decay
         FROM (SELECT q.*, {scored_relevance_sql("q.similarity", "q.by_words", "q.lexical", "q.named")} AS relevance
               -- OFFSET 0 keeps `named` computed once a row (a pulled-up subquery would repeat it per use).
               FROM (SELECT cand.id, cand.similarity, cand.by_words, COALESCE(x.lexical, 0) AS lexical, cand.days,
                            cand.decay_lambda, cand.subject_id = ANY(na.ids) OR cand.object_id = ANY(na.ids) AS named
                     FROM cand LEFT JOIN lexical x ON x.id = cand.id,
                          (SELECT COALESCE(array_agg(id), '{{{{}}}}') AS ids FROM named) AS na
                     WHERE cand.similarity IS NOT NULL OR cand.by_words OFFSET 0) AS q) AS r
         WHERE r.relevance >= %(floor)s ORDER BY r.relevance DESC, r.id DESC LIMIT %(k)s) AS top)::text,
  -- Those that may be asked first, so a full list never hides one behind facts already asked about.
  (SELECT json_agg(json_build_array(id, days, asked_at, askable)
                   ORDER BY askable DESC, similarity DESC NULLS LAST, days DESC, id)
   FROM (SELECT * FROM aged ORDER BY askable DESC, similarity DESC NULLS LAST, days DESC, id
         LIMIT {AGING_LIMIT}) AS listed)::text,
  (SELECT count(*) FROM aged WHERE askable),
  (SELECT json_agg(json_build_array(subject_id, label_id, ids, question_card,
                                    asked_at, NOT {sensitive_sql("q.label_id")} AND asked_at IS NULL))
   FROM (SELECT s.*, asked.asked_at
         FROM (SELECT subject_id, label_id, array_agg(id ORDER BY effective_at DESC, id DESC) AS ids,
                      {QUESTION_CARD_SQL.format(a="")} FROM cand
               WHERE {single_sql()} GROUP BY subject_id, label_id HAVING {values_differ()}) AS s
              {asked_join("s.question_card", "s.question_scope", "s.question_verified")}) AS q)::text,
  (SELECT ids FROM waiting),
  {{unanswered}}
"""


def exact(cursor, valid: str, counted: str, unanswered: str, params: dict) -> dict | None:
    """The exact route's answer (assemble.answer_of), or None when the scopes hold more candidates than
    %(exact_limit)s."""
    cursor.execute(EXACT_SQL.format(valid=valid, counted=counted, unembedded=unembedded_sql(valid),
                                    unanswered=unanswered), params)
    count, top, aged, aging_askable, sides, unembedded, unanswered = cursor.fetchone()
    if count > params["exact_limit"]:
        return None
    # JSON writes a whole float without its point (decay 1, days 0): answer_of's float() keeps
    # the types the index route and the API schema give.
    aged = [(pk, days, _instant(asked), askable) for pk, days, asked, askable in orjson.loads(aged or "[]")]
    sides = [(subject, label, ids, key, _instant(asked), askable)
             for subject, label, ids, key, asked, askable in orjson.loads(sides or "[]")]
    return answer_of(cursor, params, top=orjson.loads(top or "[]"), aged=aged, aging_askable=aging_askable,
                     sides=sides, unembedded=unembedded or [], unanswered=unanswered)


def _instant(text: str | None) -> dt.datetime | None:
    return dt.datetime.fromisoformat(text) if text else None
