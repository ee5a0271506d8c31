"""Contradictions (DESIGN §6): two current single-value facts about one subject and label that hold
different values across the visible scopes, put to the caller as one question. The index route's read of
them and the review queue's, the health pages' and upkeep's (contradictions_in, contradictions_seen); the
exact route groups them in its one statement (exact.py), recall from memory in numpy (memory.py)."""

from __future__ import annotations

import dataclasses

from django.db import connection

from ..models import Card
from ..reads import read_params, reads_joined, shared_of
from .answer import Contradiction
from .candidates import candidates_sql
from .questions import asked_join, sensitive_sql, single_sql

CONTRADICTION_LIMIT = 5

# One contradiction's question card, and its version: the newest recorded side.
QUESTION_CARD_SQL = ("max({a}id) AS question_card,"
                     " (array_agg({a}verified_at ORDER BY {a}id DESC))[1] AS question_verified,"
                     " (array_agg({a}scope_id ORDER BY {a}id DESC))[1] AS question_scope")


def values_differ(alias: str = "") -> str:
    """A group of single-value cards holds more than one value (or related entity)."""
    return f"count(DISTINCT {alias}value_norm || '|' || COALESCE({alias}object_id::text, '')) > 1"


def contradictions_in(*, scope_ids: list[int], limit: int | None = None) -> list[Contradiction]:
    """Current contradictions among these scopes, and the shares a cards.reads.Read meets (the review
    queue lists them)."""
    params = {**read_params(scope_ids), "asker": None}
    with connection.cursor() as cursor:
        found = contradictions_found(cursor, candidates_sql(params, as_of=None, when=None), params, first=set())
    return found if limit is None else found[:limit]


def contradictions_seen(found: list[Contradiction], *, reads: dict[int, list[int]]) -> dict[int, list[Contradiction]]:
    """Of `found` (contradictions_in over every scope of `reads`, and their shares), those a read in each
    scope of `reads` ({scope: what its read sees, a cards.reads.Read}) meets: where the sides it can see
    still differ. Each keeps only the cards that read sees. The home page counts these."""
    every = reads_joined(reads.values())
    sides = {row["id"]: row for row in Card.objects.in_scopes(every)
             .filter(pk__in={i for c in found for i in c.card_ids})
             .values("id", "scope_id", "subject_id", "label_id", "value_norm", "object_id")}
    seen: dict[int, list[Contradiction]] = {}
    for scope_id, read in reads.items():
        whole, shared = set(read), set(shared_of(read))
        seen[scope_id] = []
        for contradiction in found:
            ids = [i for i in contradiction.card_ids if i in sides and (
                sides[i]["scope_id"] in whole
                or (sides[i]["scope_id"], sides[i]["subject_id"], sides[i]["label_id"]) in shared)]
            if len({(sides[i]["value_norm"], sides[i]["object_id"]) for i in ids}) > 1:
                seen[scope_id].append(dataclasses.replace(contradiction, card_ids=ids))
    return seen


def contradiction_card_ids(scope_ids: list[int]) -> list[int]:
    """The sides of the contradictions a read over `scope_ids` (a cards.reads.Read: its shares too) meets."""
    return [i for contradiction in contradictions_in(scope_ids=scope_ids) for i in contradiction.card_ids]


def contradictions_found(cursor, valid: str, params: dict, *, first: set[int]) -> list[Contradiction]:
    """Current single-value facts (never hypotheses: a guess is not a side) about
    one subject and label whose values differ across the visible scopes (one scope holds one current value, so the
    sides come from different scopes); those touching a recalled card first."""
    cursor.execute(
        "SELECT q.subject_id, q.label_id, q.ids, q.question_card, q.asked_at,"
        f" NOT {sensitive_sql('q.label_id')} AND q.asked_at IS NULL FROM ("
        " SELECT s.*, asked.asked_at FROM ("
        f" SELECT c.subject_id, c.label_id, array_agg(c.id ORDER BY c.effective_at DESC, c.id DESC) AS ids,"
        f" {QUESTION_CARD_SQL.format(a='c.')} FROM cards_card c WHERE {valid} AND {single_sql('c.')}"
        f" GROUP BY c.subject_id, c.label_id HAVING {values_differ('c.')}) AS s"
        f" {asked_join('s.question_card', 's.question_scope', 's.question_verified')}) AS q", params)
    found = [Contradiction(subject_id=row[0], label_id=row[1], card_ids=list(row[2]), question_card_id=row[3],
                           asked_at=row[4], askable=row[5]) for row in cursor.fetchall()]
    return touching_first(found, first)


def touching_first(found: list[Contradiction], first: set[int]) -> list[Contradiction]:
    """Those touching a recalled card first, then the newest."""
    return sorted(found, key=lambda c: (not first.intersection(c.card_ids), -max(c.card_ids)))


def for_the_caller(found: list[Contradiction]) -> dict:
    """The first CONTRADICTION_LIMIT, those the caller may be asked about first
    (a stable sort: touching a recalled card, then the newest, within each), and
    how many may be asked in all."""
    ordered = sorted(found, key=lambda c: not c.askable)
    return {"contradictions": ordered[:CONTRADICTION_LIMIT],
            "contradictions_askable": sum(c.askable for c in found)}
