"""Recall (DESIGN §6): the cards most relevant to a query, scored
`similarity × e^(−λ·Δt)`, with the facts that have aged and the contradictions
among what the caller can see. Reads only; no model call beyond the query's
embedding.

Routing (PERFORMANCE "routing rule"): when the visible scopes hold fewer than
EXACT_LIMIT candidates — almost every household — every candidate is scored
exactly behind the B-tree on scope, which is complete. Above that, the HNSW
index is walked with iterative scans (so the scope filter cannot starve the
top-k), over-fetching k × OVERFETCH by similarity, joined with as many of the
most recently confirmed candidates (by the B-tree on verified_at), and the
union is re-ranked by score.
"""

from __future__ import annotations

import datetime as dt
import math
from dataclasses import dataclass, field
from functools import lru_cache

from django.db import connection, transaction
from django.utils import timezone

from .embeddings import embed_query
from .models import Cardinality, CardKind, Tag
from .when import Interval

AGING_DAYS = 180
EXACT_LIMIT = 10_000
OVERFETCH = 10
EF_SEARCH = 100
# Bounds the worst case of an iterative scan over a tiny filter (PERFORMANCE:
# 42 ms at 100k rows unbounded); the exact route serves small filters anyway.
MAX_SCAN_TUPLES = 40_000
AGING_LIMIT = 5
CONTRADICTION_LIMIT = 5
ROUTES = ("exact", "index")


def decay(decay_lambda: float, days: float) -> float:
    """e^(−λ·Δt); a time in the future (a planned event) does not decay."""
    return math.exp(-decay_lambda * max(days, 0.0))


@lru_cache(maxsize=512)
def query_vector(query: str) -> str:
    """The query's embedding as pgvector text; repeated queries (an agent asks
    for its context every turn) are embedded once per process."""
    vector = embed_query(query)
    return "[" + ",".join(f"{x:.9g}" for x in vector) + "]"


@dataclass
class Scored:
    card_id: int
    similarity: float
    decay: float
    score: float
    days: float


@dataclass
class Aging:
    card_id: int
    days: float


@dataclass
class Contradiction:
    subject_id: int
    label_id: int
    card_ids: list[int]


@dataclass
class Recall:
    at: dt.datetime
    route: str
    results: list[Scored] = field(default_factory=list)
    aging: list[Aging] = field(default_factory=list)
    contradictions: list[Contradiction] = field(default_factory=list)


# Δt counts from when the card was last made true or verified, as known at
# %(at)s: for states the start, the latest statement and the latest check; for
# events when they happened (or were recorded, if undated).
_ANCHOR = f"""CASE WHEN c.kind = '{CardKind.EVENT}' THEN COALESCE(c.occurred_at, c.recorded_at)
    ELSE GREATEST(c.effective_at, CASE WHEN c.verified_at <= %(at)s THEN c.verified_at END,
                  (SELECT max(t) FROM unnest(c.stated_at) AS t WHERE t <= %(at)s)) END"""
_DAYS = f"GREATEST(0, EXTRACT(EPOCH FROM (%(at)s - ({_ANCHOR}))) / 86400.0)::float8"
_SIMILARITY = "(1 - (c.embedding <=> %(q)s::vector))::float8"
_SCORED = f"""SELECT c.id, {_SIMILARITY} AS similarity, exp(-l.decay_lambda * {_DAYS}) AS decay, {_DAYS} AS days
    FROM {{source}} JOIN cards_label l ON l.id = c.label_id"""


def _valid(params: dict, *, as_of: dt.datetime | None, when: Interval | None) -> str:
    """Cards in the visible scopes that hold at the asked time (and overlap `when`)."""
    sql = "c.scope_id = ANY(%(scopes)s)"
    if as_of is None:
        sql += " AND c.superseded_at IS NULL"
    else:
        sql += " AND c.effective_at <= %(at)s AND (c.superseded_at IS NULL OR c.superseded_at > %(at)s)"
    if when is not None:
        params["when_start"] = when.start
        params["when_end"] = when.end or when.start + dt.timedelta(microseconds=1)
        sql += (" AND c.occurred_at IS NOT NULL AND c.occurred_at < %(when_end)s"
                " AND COALESCE(c.occurred_end, c.occurred_at + interval '1 microsecond') > %(when_start)s")
    return sql


def recall(*, scope_ids: list[int], query: str, k: int = 10, as_of: dt.datetime | None = None,
           when: Interval | None = None, route: str | None = None) -> Recall:
    """Scored cards among `scope_ids` (already restricted to what the caller may
    read), best first; `route` forces "exact" or "index" (the bench compares them)."""
    at = as_of or timezone.now()
    params = {"scopes": list(scope_ids), "at": at, "q": query_vector(query), "k": k,
              "fetch": k * OVERFETCH, "limit": EXACT_LIMIT + 1}
    valid = _valid(params, as_of=as_of, when=when)
    with transaction.atomic(), connection.cursor() as cursor:
        if route is None:
            cursor.execute(f"SELECT count(*) FROM (SELECT 1 FROM cards_card c WHERE {valid} LIMIT %(limit)s) AS t",
                           params)
            route = "exact" if cursor.fetchone()[0] <= EXACT_LIMIT else "index"
        if route == "exact":
            source = "cards_card c"
            where = f"WHERE {valid} AND c.embedding IS NOT NULL"
        else:
            # SET LOCAL before the statement: settings never leak to the pooled
            # connection's next user, and no prepared plan predates them.
            cursor.execute(f"SET LOCAL hnsw.iterative_scan = relaxed_order; SET LOCAL hnsw.ef_search = {EF_SEARCH};"
                           f" SET LOCAL hnsw.max_scan_tuples = {MAX_SCAN_TUPLES}")
            # Two kinds of candidate can win similarity × decay: the most similar,
            # and the freshest (decay can lift a moderately similar card above an
            # old, closer one). Both sets are fetched by index and scored exactly.
            source = (f"((SELECT c.id FROM cards_card c WHERE {valid} AND c.embedding IS NOT NULL"
                      " ORDER BY c.embedding <=> %(q)s::vector LIMIT %(fetch)s)"
                      f" UNION (SELECT c.id FROM cards_card c WHERE {valid} AND c.embedding IS NOT NULL"
                      " ORDER BY c.verified_at DESC LIMIT %(fetch)s)) AS nearest"
                      " JOIN cards_card c ON c.id = nearest.id")
            where = ""
        cursor.execute(f"SELECT * FROM ({_SCORED.format(source=source)} {where}) AS s"
                       " ORDER BY s.similarity * s.decay DESC, s.id DESC LIMIT %(k)s", params)
        results = [Scored(card_id=row[0], similarity=row[1], decay=row[2], score=row[1] * row[2], days=row[3])
                   for row in cursor.fetchall()]
        aging = _aging(cursor, valid, params)
        contradictions = _contradictions(cursor, valid, params,
                                         first={r.card_id for r in results})[:CONTRADICTION_LIMIT]
    return Recall(at=at, route=route, results=results, aging=aging, contradictions=contradictions)


def _aging(cursor, valid: str, params: dict) -> list[Aging]:
    """Single-value states unconfirmed for AGING_DAYS or more, those nearest the query first."""
    cursor.execute(
        f"SELECT c.id, {_DAYS} AS days FROM cards_card c"
        f" WHERE {valid} AND c.kind = '{CardKind.STATE}' AND c.cardinality = '{Cardinality.SINGLE}'"
        f" AND c.tag <> '{Tag.HYPOTHESIS}' AND {_DAYS} >= {AGING_DAYS}"
        " ORDER BY c.embedding <=> %(q)s::vector NULLS LAST, days DESC, c.id LIMIT " + str(AGING_LIMIT), params)
    return [Aging(card_id=row[0], days=row[1]) for row in cursor.fetchall()]


def contradictions_in(*, scope_ids: list[int], limit: int | None = None) -> list[Contradiction]:
    """Current contradictions among these scopes (the review queue lists them)."""
    params = {"scopes": list(scope_ids)}
    with connection.cursor() as cursor:
        found = _contradictions(cursor, _valid(params, as_of=None, when=None), params, first=set())
    return found if limit is None else found[:limit]


def _contradictions(cursor, valid: str, params: dict, *, first: set[int]) -> list[Contradiction]:
    """Current single-value facts (never hypotheses: a guess is not a side) about
    one subject and label whose values differ across the visible scopes (one scope holds one current value, so the
    sides come from different scopes); those touching a recalled card first."""
    cursor.execute(
        f"SELECT c.subject_id, c.label_id, array_agg(c.id ORDER BY c.effective_at DESC, c.id DESC)"
        f" FROM cards_card c WHERE {valid} AND c.kind = '{CardKind.STATE}'"
        f" AND c.cardinality = '{Cardinality.SINGLE}' AND c.tag <> '{Tag.HYPOTHESIS}'"
        " GROUP BY c.subject_id, c.label_id"
        " HAVING count(DISTINCT c.value_norm || '|' || COALESCE(c.object_id::text, '')) > 1", params)
    found = [Contradiction(subject_id=row[0], label_id=row[1], card_ids=list(row[2])) for row in cursor.fetchall()]
    found.sort(key=lambda c: (not first.intersection(c.card_ids), -max(c.card_ids)))
    return found
