"""Each scope's health for the dashboard home, in a fixed number of queries
whatever the number of scopes: current cards, aging facts to re-check,
contradictions, open reviews, hypotheses awaiting confirmation."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from django.db import connection
from django.db.models import Count
from django.utils import timezone

from scopes.models import ScopeKind
from scopes.principals import Principal, scope_ids_for

from .models import Card, Cardinality, CardKind, Tag
from .retrieval import _DAYS, AGING_DAYS, contradictions_in


@dataclass
class Health:
    cards: int = 0
    aging: int = 0
    contradictions: int = 0
    reviews: int = 0
    hypotheses: int = 0
    may_review: bool = False


def read_sets(scopes: list) -> dict[int, set[int]]:
    """What a read in each scope sees (DESIGN §3; `read_scope_ids` for one scope),
    worked out from rows already loaded: the scope, its visible ancestors, the
    caller's personal scope and `global`. Each row needs id, parent_id, kind."""
    by_id = {s.id: s for s in scopes}
    shared = {s.id for s in scopes if s.kind in (ScopeKind.PERSONAL, ScopeKind.GLOBAL)}
    sets = {}
    for scope in scopes:
        seen, node = {scope.id}, scope
        while node.parent_id in by_id and node.parent_id not in seen:
            node = by_id[node.parent_id]
            seen.add(node.id)
        sets[scope.id] = seen | shared
    return sets


def _card_counts(scope_ids: list[int]) -> dict[int, tuple[int, int]]:
    """(current cards, aging facts) per scope; aging as the agent's context counts it."""
    sql = (f"SELECT c.scope_id, count(*), count(*) FILTER (WHERE c.kind = '{CardKind.STATE}'"
           f" AND c.cardinality = '{Cardinality.SINGLE}' AND c.tag <> '{Tag.HYPOTHESIS}' AND {_DAYS} >= {AGING_DAYS})"
           " FROM cards_card c WHERE c.scope_id = ANY(%(scopes)s) AND c.superseded_at IS NULL GROUP BY c.scope_id")
    with connection.cursor() as cursor:
        cursor.execute(sql, {"scopes": scope_ids, "at": timezone.now()})
        return {row[0]: (row[1], row[2]) for row in cursor.fetchall()}


def _contradiction_counts(sets: dict[int, set[int]]) -> dict[int, int]:
    """Contradictions a read in each scope meets (what its review queue lists):
    found once over every scope, then kept per scope where the sides it sees still differ."""
    every = sorted(set().union(*sets.values())) if sets else []
    found = contradictions_in(scope_ids=every)
    if not found:
        return {}
    sides = {row["id"]: row for row in Card.objects.in_scopes(every)
             .filter(pk__in={i for c in found for i in c.card_ids}).values("id", "scope_id", "value_norm", "object_id")}
    counts: dict[int, int] = defaultdict(int)
    for scope_id, visible in sets.items():
        for contradiction in found:
            values = {(sides[i]["value_norm"], sides[i]["object_id"]) for i in contradiction.card_ids
                      if i in sides and sides[i]["scope_id"] in visible}
            counts[scope_id] += len(values) > 1
    return counts


def scopes_health(*, principal: Principal, scopes: list) -> dict[int, Health]:
    """Health of each of `scopes` (already restricted to what `principal` may view)."""
    from review.models import Candidate
    from review.services.candidates import OPEN
    from review.services.hypotheses import hypotheses_current

    ids = [s.id for s in scopes]
    health = {scope_id: Health() for scope_id in ids}
    for scope_id, (cards, aging) in _card_counts(ids).items():
        health[scope_id].cards, health[scope_id].aging = cards, aging
    for scope_id, count in _contradiction_counts(read_sets(scopes)).items():
        health[scope_id].contradictions = count
    for row in hypotheses_current().in_scopes(ids).values("scope_id").annotate(n=Count("id")):
        health[row["scope_id"]].hypotheses = row["n"]
    reviewable = set(scope_ids_for(principal, "review").filter(id__in=ids).values_list("id", flat=True))
    for scope_id in reviewable:
        health[scope_id].may_review = True
    for row in (Candidate.objects.in_scopes(reviewable).filter(status__in=OPEN)
                .values("scope_id").annotate(n=Count("id"))):
        health[row["scope_id"]].reviews = row["n"]
    return health
