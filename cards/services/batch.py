"""Set-based remember for bulk writes: the same rules as card_remember, decided
in memory over one read of every affected timeline, then written with a few
statements per batch instead of a few per card.

A timeline that needs the careful path — a single-value fact older than what we
hold, or one landing inside a reaffirmed value; a guess, an opposite-labelled
value, or a statement about another member (the tag rules, services/tags.py) —
is handed to card_remember, card by card, under the same lock."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field

from django.db import connection, transaction
from django.utils.translation import gettext

from core.errors import DomainError
from scopes.models import Scope, User

from ..drafts import CardDraft, occurrence_from
from ..errors import CardGone
from ..models import Card, CardKind, Cardinality
from .embedding import embed_outcomes_after_commit
from .perspectives import perspectives_set
from .remember import card_remember
from .sql import cards_insert_many, scopes_of
from .tags import about_someone_else, is_guess, lock_label, tags_settle
from .write_plan import (ONE_MICROSECOND, STATED_AT_KEEP, Outcome, Write, WriteOutcome, duplicate_window,
                         timeline_lock_key, write_prepare)

Key = tuple[int, int, int, str]  # scope, subject, label, kind
COLUMNS = [f.column for f in Card._meta.concrete_fields if f.name != "embedding"]


def _key(write: Write) -> Key:
    return write.scope.pk, write.subject.pk, write.label.pk, write.draft.kind


@dataclass
class _Timeline:
    latest: Card | None = None                       # single: the card with the latest start
    by_value: dict[str, Card] = field(default_factory=dict)   # multi/knowledge: current cards
    events: list[Card] = field(default_factory=list)          # events with a value in this batch


class _Plan:
    """What the batch will write, decided in memory."""

    def __init__(self, existing_ids: set[int]) -> None:
        self.existing_ids = existing_ids
        self.new: list[Card] = []
        self.closed: dict[int, Card] = {}       # existing cards closed by a new one
        self.reinforced: dict[int, Card] = {}   # existing cards stated true again

    def insert(self, write: Write, **fields) -> Card:
        card = write.new_card(**fields)
        self.new.append(card)
        return card

    def stated_again(self, card: Card, seen: dt.datetime, *, single: bool, now: dt.datetime) -> None:
        """As card_stated_again: kept at the stated date, verified no later than now."""
        if single and seen not in card.stated_at:
            card.stated_at = sorted([*card.stated_at, seen])[-STATED_AT_KEEP:]
        card.verified_at = max(card.verified_at, min(seen, now))
        if card.pk in self.existing_ids:
            self.reinforced[card.pk] = card


@transaction.atomic
def card_remember_batch(*, actor: User, items: list[tuple[Scope, CardDraft]]) -> list[WriteOutcome]:
    """All or nothing; outcomes in the order of `items`. A refusal names its index."""
    entities: dict = {}
    writes: list[Write] = []
    for index, (scope, draft) in enumerate(items):
        try:
            writes.append(write_prepare(scope=scope, actor=actor, draft=draft, entities=entities))
        except DomainError as error:
            error.extra.setdefault("index", index)
            raise
    _lock(writes)
    timelines = _load(writes)
    careful = _careful_keys(writes, timelines)
    plan = _Plan({card.pk for t in timelines.values() for card in _cards_of(t)})
    decided: list[tuple[str, Card, list[Card]] | None] = []
    for write in writes:
        key = _key(write)
        decided.append(None if key in careful else _decide(write, timelines.setdefault(key, _Timeline()), plan))
    _flush(plan)
    results: list[WriteOutcome] = []
    placed_here: list[WriteOutcome] = []  # card_remember settles and embeds its own
    for index, (write, choice) in enumerate(zip(writes, decided)):
        try:
            if choice is None:
                results.append(card_remember(scope=write.scope, actor=actor, draft=write.draft))
                continue
            outcome, card, closed = choice
            if write.draft.perspectives:
                perspectives_set(card=card, actor=actor, phrasings=write.draft.perspectives,
                                 consent=write.draft.consent,
                                 new_card=outcome in (Outcome.INSERTED, Outcome.SUPERSEDED))
            results.append(WriteOutcome(outcome, card, [c.pk for c in closed]))
            placed_here.append(results[-1])
        except DomainError as error:
            error.extra.setdefault("index", index)
            raise
    tags_settle(placed_here)
    embed_outcomes_after_commit(placed_here)
    return results


def _cards_of(timeline: _Timeline) -> list[Card]:
    return [c for c in (timeline.latest, *timeline.by_value.values(), *timeline.events) if c is not None]


def _lock(writes: list[Write]) -> None:
    # Sorted, so two batches touching the same timelines cannot deadlock.
    keys = sorted({timeline_lock_key(w.scope.pk, w.subject.pk, lock_label(w.label)) for w in writes})
    with connection.cursor() as cursor:
        cursor.execute("SELECT count(pg_advisory_xact_lock(k)) FROM unnest(%s::bigint[]) AS k", [keys])


def _load(writes: list[Write]) -> dict[Key, _Timeline]:
    """Every card the batch's decisions depend on, in one round trip."""
    single = {(w.scope.pk, w.subject.pk, w.label.pk) for w in writes if w.is_single}
    multi = {(w.scope.pk, w.subject.pk, w.label.pk) for w in writes
             if not w.is_single and w.draft.kind != CardKind.EVENT}
    # What an opposite-labelled value would supersede: the open cards of the opposite label.
    multi |= {(w.scope.pk, w.subject.pk, w.label.opposite_id) for w in writes
              if w.draft.kind == CardKind.STATE and w.label.opposite_id is not None}
    events = {(w.scope.pk, w.subject.pk, w.label.pk, w.value_norm) for w in writes if w.draft.kind == CardKind.EVENT}
    cols = ", ".join(f"c.{column}" for column in COLUMNS)
    join3 = "JOIN unnest(%s::bigint[], %s::bigint[], %s::bigint[]) AS k(s, su, l)" \
            " ON c.scope_id = k.s AND c.subject_id = k.su AND c.label_id = k.l"
    # Each part also names its scopes as constants, as _flush's UPDATEs do: a cluster prunes by those. A part
    # with nothing to look up is left out (an empty list prunes nothing there: every shard was asked).
    parts = [
        (single, 3, f"(SELECT DISTINCT ON (c.scope_id, c.subject_id, c.label_id) {cols} FROM cards_card c {join3}"
         "  WHERE c.kind = 'state' AND c.cardinality = 'single' AND c.tag <> 'hypothesis' AND c.disputes_id IS NULL"
         "  AND c.scope_id = ANY(%s::bigint[])"
         "  ORDER BY c.scope_id, c.subject_id, c.label_id, c.effective_at DESC, c.id DESC)"),
        (multi, 3, f"(SELECT {cols} FROM cards_card c {join3}"
         "  WHERE c.kind <> 'event' AND c.cardinality = 'multi' AND c.superseded_at IS NULL AND c.tag <> 'hypothesis'"
         "  AND c.scope_id = ANY(%s::bigint[]))"),
        (events, 4, f"(SELECT {cols} FROM cards_card c"
         "  JOIN unnest(%s::bigint[], %s::bigint[], %s::bigint[], %s::text[]) AS k(s, su, l, v)"
         "   ON c.scope_id = k.s AND c.subject_id = k.su AND c.label_id = k.l AND c.value_norm = k.v"
         "  WHERE c.kind = 'event' AND c.scope_id = ANY(%s::bigint[]))"),
    ]
    parts = [(keys, width, part) for keys, width, part in parts if keys]
    if not parts:
        return {}
    sql = " UNION ALL ".join(part for _, _, part in parts)
    params = [x for keys, width, _ in parts for x in (*_columns(keys, width), sorted({key[0] for key in keys}))]
    timelines: dict[Key, _Timeline] = {}
    for card in Card.objects.raw(sql, params):
        timeline = timelines.setdefault((card.scope_id, card.subject_id, card.label_id, card.kind), _Timeline())
        if card.kind == CardKind.EVENT:
            timeline.events.append(card)
        elif card.cardinality == Cardinality.SINGLE:
            timeline.latest = card
        else:
            timeline.by_value[card.value_norm] = card
    return timelines


def _columns(rows: set[tuple], width: int) -> list[list]:
    return [[row[i] for row in rows] for i in range(width)]


def _careful_keys(writes: list[Write], timelines: dict[Key, _Timeline]) -> set[Key]:
    """Single-value timelines whose statements do not all come, in order, after
    everything we hold (its start, end and every time it was stated true)."""
    stated = {(w.scope.pk, w.subject.pk, w.label.pk, w.value_norm) for w in writes}
    careful: set[Key] = {_key(w) for w in writes if is_guess(w) or about_someone_else(w)
                         or _opposed(w, stated, timelines)}
    last_seen: dict[Key, dt.datetime] = {}
    for write in writes:
        if not write.is_single:
            continue
        key, effective = _key(write), write.effective
        if key not in last_seen:
            latest = timelines.get(key, _Timeline()).latest
            floor = None if latest is None else max(
                [latest.effective_at, *filter(None, [latest.superseded_at]), *latest.stated_at])
            if floor is not None and effective <= floor:
                careful.add(key)
            last_seen[key] = effective if floor is None else max(effective, floor)
        else:
            if effective < last_seen[key]:
                careful.add(key)
            last_seen[key] = max(effective, last_seen[key])
    return careful


def _opposed(write: Write, stated: set[tuple], timelines: dict[Key, _Timeline]) -> bool:
    """An opposite-labelled value (likes/dislikes) that its opposite holds, or
    that the batch also states: its timeline is placed card by card."""
    opposite = write.label.opposite_id
    if write.draft.kind != CardKind.STATE or opposite is None:
        return False
    held = timelines.get((write.scope.pk, write.subject.pk, opposite, write.draft.kind))
    return ((write.scope.pk, write.subject.pk, opposite, write.value_norm) in stated
            or (held is not None and write.value_norm in held.by_value))


def _decide(write: Write, timeline: _Timeline, plan: _Plan) -> tuple[str, Card, list[Card]]:
    if write.draft.kind == CardKind.EVENT:
        return _decide_event(write, timeline, plan)
    if not write.is_single:
        current = timeline.by_value.get(write.value_norm)
        if current is not None:
            plan.stated_again(current, min(write.reference, write.now), single=False, now=write.now)
            return Outcome.REINFORCED, current, []
        card = plan.insert(write, effective_at=write.effective)
        timeline.by_value[write.value_norm] = card
        return Outcome.INSERTED, card, []
    effective = write.effective
    current = timeline.latest if timeline.latest is not None and timeline.latest.superseded_at is None else None
    if current is not None and current.value_norm == write.value_norm:
        plan.stated_again(current, effective, single=True, now=write.now)
        return Outcome.REINFORCED, current, []
    card = plan.insert(write, effective_at=effective, verified_at=min(effective, write.now), stated_at=[effective])
    timeline.latest = card
    if current is None:
        return Outcome.INSERTED, card, []
    current.superseded_at, current.superseded_by = effective, card
    if current.pk in plan.existing_ids:
        plan.closed[current.pk] = current
    return Outcome.SUPERSEDED, card, [current]


def _decide_event(write: Write, timeline: _Timeline, plan: _Plan) -> tuple[str, Card, list[Card]]:
    when = occurrence_from(write.draft, write.tz)
    window = None if when.start is None else duplicate_window(when, write.tz)
    for card in timeline.events:
        if card.value_norm != write.value_norm:
            continue
        if window is None and card.occurred_at is None:
            return Outcome.DUPLICATE, card, []
        if window is not None and card.occurred_at is not None:
            ends = card.occurred_end or card.occurred_at + ONE_MICROSECOND
            if card.occurred_at < window[1] and ends > window[0]:
                return Outcome.DUPLICATE, card, []
    card = plan.insert(write, effective_at=when.start or write.reference, occurred_at=when.start,
                       occurred_end=when.end, precision=when.precision, time_source=when.source)
    timeline.events.append(card)
    return Outcome.INSERTED, card, []


def _flush(plan: _Plan) -> None:
    """Ids first, then close, reinforce, insert: while an old card is current the
    unique index would refuse its successor, and foreign keys wait for commit.
    Each UPDATE finds its cards by (id, scope_id), and names their scopes as constants: a cluster prunes
    shards by those, not by a join with a list of rows."""
    with connection.cursor() as cursor:
        if plan.new:
            cursor.execute("SELECT nextval(pg_get_serial_sequence('cards_card', 'id'))"
                           " FROM generate_series(1, %s)", [len(plan.new)])
            for card, (new_id,) in zip(plan.new, cursor.fetchall()):
                card.pk = card.id = new_id
        if plan.closed:
            rows = list(plan.closed.values())
            cursor.execute(
                "UPDATE cards_card c SET superseded_at = v.at, superseded_by_id = v.by"
                " FROM unnest(%s::bigint[], %s::bigint[], %s::timestamptz[], %s::bigint[]) AS v(id, scope, at, by)"
                " WHERE c.id = v.id AND c.scope_id = v.scope AND c.scope_id = ANY(%s::bigint[])",
                [[c.pk for c in rows], [c.scope_id for c in rows], [c.superseded_at for c in rows],
                 [c.superseded_by.pk for c in rows], scopes_of(rows)])
            if cursor.rowcount != len(rows):
                # A forget committed since the timelines were read (it takes no timeline lock), as in the
                # single path's _fork: a value that is gone is not closed into a successor that says it was.
                raise CardGone(gettext("That card was forgotten meanwhile."))
        if plan.reinforced:
            rows = list(plan.reinforced.values())
            # One row of constants per card: an array of arrays would flatten in unnest, and casting a
            # text form per row is a STABLE call on a column, which Citus refuses in an UPDATE (and a slice
            # of one flat array crashes its planner).
            values = ", ".join(["(%s::bigint, %s::bigint, %s::timestamptz, %s::timestamptz[])"] * len(rows))
            cursor.execute(
                "UPDATE cards_card c SET verified_at = v.verified, stated_at = v.stated"
                f" FROM (VALUES {values}) AS v(id, scope, verified, stated) WHERE c.id = v.id AND c.scope_id = v.scope"
                " AND c.scope_id = ANY(%s::bigint[])",
                [*(x for c in rows for x in (c.pk, c.scope_id, c.verified_at, list(c.stated_at))), scopes_of(rows)])
            if cursor.rowcount != len(rows):
                # Likewise: a card forgotten meanwhile is not reported as reinforced.
                raise CardGone(gettext("That card was forgotten meanwhile."))
    for card in plan.new:
        if card.superseded_by is not None:
            card.superseded_by_id = card.superseded_by.pk
    if plan.new:
        cards_insert_many(plan.new)


def card_remember_many(*, scope: Scope, actor: User, drafts: list[CardDraft]) -> list[WriteOutcome]:
    """All or nothing, set-based, in one scope: card_remember_batch."""
    return card_remember_batch(actor=actor, items=[(scope, draft) for draft in drafts])
