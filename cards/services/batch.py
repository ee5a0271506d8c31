"""Set-based remember for bulk writes: the same rules as card_remember, decided
in memory over one read of every affected timeline, then written with a few
statements per batch instead of a few per card.

What each write does is decided in services/write_decision.py, the same
function card_remember asks. A timeline that needs more of its history than the
batch reads — a value older than what we hold, or one landing inside a
reaffirmed value — and a guess or a statement about another member (the tag
rules, services/tags.py) are handed to card_remember, card by card, under the
same lock."""

from __future__ import annotations

import datetime as dt
from collections import Counter

from django.db import connection, transaction
from django.utils.translation import gettext

from core.errors import DomainError
from scopes.models import Scope, User

from ..drafts import CardDraft
from ..errors import CardGone
from ..models import VECTOR_FIELDS, Card, CardKind
from ..valid_time import held_sql
from .embedding import embed_outcomes_after_commit
from .perspectives import perspectives_set
from .remember import card_remember, successor_link
from .sql import cards_insert_many, scopes_of
from .tags import about_someone_else, is_guess, lock_label, on_timeline, standing_beside_sql, tags_settle
from .write_decision import Decision, Timeline, decision_apply, write_decide
from .write_plan import Outcome, Write, WriteOutcome, timeline_lock_key, write_prepare

Key = tuple  # ("line" | "pair" | "value" | "event", scope, subject, label, …): one timeline in memory
Lock = tuple[int, int, int]  # scope, subject, lock label: what card_remember serialises, and the careful unit
COLUMNS = [f.column for f in Card._meta.concrete_fields if f.name not in VECTOR_FIELDS]


def _key(write: Write) -> Key:
    scope, subject, label = write.scope.pk, write.subject.pk, write.label.pk
    if write.draft.kind == CardKind.EVENT:
        return "event", scope, subject, label, write.value_norm
    if on_timeline(write):
        # Opposite labels (likes/dislikes) are one timeline per value.
        return ("line", scope, subject, label) if write.is_single else (
            "pair", scope, subject, lock_label(write.label), write.value_norm)
    return "value", scope, subject, label, write.value_norm


def _lock_of(write: Write) -> Lock:
    return write.scope.pk, write.subject.pk, lock_label(write.label)


class _Plan:
    """What the batch will write, decided in memory."""

    def __init__(self, existing_ids: set[int]) -> None:
        self.existing_ids = existing_ids
        self.new: list[Card] = []
        self.changed: dict[int, Card] = {}  # existing cards closed or stated true again

    def take(self, decision: Decision) -> None:
        self.new.extend(decision.inserts)
        # A card read and stated true again is written even when nothing of it moves: the UPDATE is what
        # finds that it was forgotten meanwhile.
        touched = [decision.card] if decision.outcome == Outcome.REINFORCED else []
        for card in (*touched, *(close.card for close in decision.closes)):
            if card.pk in self.existing_ids:
                self.changed[card.pk] = card


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
    careful = _careful_locks(writes, timelines)
    plan = _Plan({card.pk for t in timelines.values() for card in (*t.line, *t.current, *t.events)})
    decided: list[Decision | None] = []
    for write in writes:
        if _lock_of(write) in careful:
            decided.append(None)
            continue
        timeline = timelines.setdefault(_key(write), Timeline())
        decision = write_decide(write, timeline)
        decision_apply(decision, timeline)
        plan.take(decision)
        decided.append(decision)
    _flush(plan)
    results: list[WriteOutcome] = []
    placed_here: list[WriteOutcome] = []  # card_remember settles and embeds its own
    for index, (write, decision) in enumerate(zip(writes, decided)):
        try:
            if decision is None:
                results.append(card_remember(scope=write.scope, actor=actor, draft=write.draft))
                # Its subject was bound (made, if new) by the batch's own write_prepare, before card_remember's.
                results[-1].new_entity = write.new_subject
                continue
            if write.draft.perspectives:
                perspectives_set(card=decision.card, actor=actor, phrasings=write.draft.perspectives,
                                 consent=write.draft.consent,
                                 new_card=decision.outcome in (Outcome.INSERTED, Outcome.SUPERSEDED))
            results.append(WriteOutcome(decision.outcome, decision.card, [c.pk for c in decision.superseded],
                                        closed=decision.superseded, label_words=write.draft.label,
                                        new_entity=write.new_subject))
            placed_here.append(results[-1])
        except DomainError as error:
            error.extra.setdefault("index", index)
            raise
    tags_settle(placed_here)
    embed_outcomes_after_commit(placed_here)
    return results


def _lock(writes: list[Write]) -> None:
    # Sorted, so two batches touching the same timelines cannot deadlock.
    keys = sorted({timeline_lock_key(*_lock_of(w)) for w in writes})
    with connection.cursor() as cursor:
        cursor.execute("SELECT count(pg_advisory_xact_lock(k)) FROM unnest(%s::bigint[]) AS k", [keys])


def _load(writes: list[Write]) -> dict[Key, Timeline]:
    """Every card the batch's decisions depend on, in one round trip: the latest
    card of each timeline (single values, and each value of an opposite pair),
    the current card of each multi value, the events of each value."""
    single = {(w.scope.pk, w.subject.pk, w.label.pk) for w in writes if w.is_single}
    pairs = {(w.scope.pk, w.subject.pk, *_pair_labels(w), w.value_norm) for w in writes
             if on_timeline(w) and not w.is_single}
    # A multi value's decision reads that value's current card only.
    multi = {(w.scope.pk, w.subject.pk, w.label.pk, w.value_norm) for w in writes
             if w.draft.kind != CardKind.EVENT and not on_timeline(w)}
    events = {(w.scope.pk, w.subject.pk, w.label.pk, w.value_norm) for w in writes if w.draft.kind == CardKind.EVENT}
    # Whether a guess or dispute stands is asked only of a timeline the batch writes more than once: with one
    # write, the tag rules settled after the batch (tags_settle) meet it as they would after that one write.
    writes_per_lock = Counter(_lock_of(w) for w in writes)
    beside = {(w.scope.pk, w.subject.pk, label) for w in writes
              if w.draft.kind != CardKind.EVENT and writes_per_lock[_lock_of(w)] > 1
              for label in filter(None, (w.label.pk, w.label.opposite_id))}
    cols = ", ".join(f"c.{column}" for column in COLUMNS)
    join3 = "JOIN unnest(%s::bigint[], %s::bigint[], %s::bigint[]) AS k(s, su, l)" \
            " ON c.scope_id = k.s AND c.subject_id = k.su AND c.label_id = k.l"
    on_line = (f"c.kind = 'state' AND c.tag <> 'hypothesis' AND c.disputes_id IS NULL AND {held_sql('c')}"
               " AND c.scope_id = ANY(%s::bigint[])")
    # Each part also names its scopes as constants, as _flush's UPDATE does: a cluster prunes by those. A part
    # with nothing to look up is left out (an empty list prunes nothing there: every shard was asked).
    parts = [
        (single, 3, f"(SELECT DISTINCT ON (c.scope_id, c.subject_id, c.label_id) {cols}, 'line' AS lane"
         f"  FROM cards_card c {join3} WHERE c.cardinality = 'single' AND {on_line}"
         "  ORDER BY c.scope_id, c.subject_id, c.label_id, c.effective_at DESC, c.id DESC)"),
        (pairs, 5, f"(SELECT DISTINCT ON (k.s, k.su, k.l, k.v) {cols}, 'pair' AS lane FROM cards_card c"
         "  JOIN unnest(%s::bigint[], %s::bigint[], %s::bigint[], %s::bigint[], %s::text[]) AS k(s, su, l, o, v)"
         "   ON c.scope_id = k.s AND c.subject_id = k.su AND c.label_id IN (k.l, k.o) AND c.value_norm = k.v"
         f"  WHERE {on_line} ORDER BY k.s, k.su, k.l, k.v, c.effective_at DESC, c.id DESC)"),
        (multi, 4, f"(SELECT {cols}, 'value' AS lane FROM cards_card c"
         "  JOIN unnest(%s::bigint[], %s::bigint[], %s::bigint[], %s::text[]) AS k(s, su, l, v)"
         "   ON c.scope_id = k.s AND c.subject_id = k.su AND c.label_id = k.l AND c.value_norm = k.v"
         "  WHERE c.kind <> 'event' AND c.superseded_at IS NULL AND c.tag <> 'hypothesis'"
         "  AND c.disputes_id IS NULL AND c.scope_id = ANY(%s::bigint[]))"),
        # A guess or a dispute standing on a timeline: its timeline goes card by card (_careful_locks).
        (beside, 3, f"(SELECT DISTINCT ON (c.scope_id, c.subject_id, c.label_id) {cols}, 'beside' AS lane"
         f"  FROM cards_card c {join3} WHERE {standing_beside_sql('c')} AND c.scope_id = ANY(%s::bigint[]))"),
        (events, 4, f"(SELECT {cols}, 'event' AS lane FROM cards_card c"
         "  JOIN unnest(%s::bigint[], %s::bigint[], %s::bigint[], %s::text[]) AS k(s, su, l, v)"
         "   ON c.scope_id = k.s AND c.subject_id = k.su AND c.label_id = k.l AND c.value_norm = k.v"
         "  WHERE c.kind = 'event' AND c.scope_id = ANY(%s::bigint[]) ORDER BY c.id)"),
    ]
    parts = [(keys, width, part) for keys, width, part in parts if keys]
    if not parts:
        return {}
    sql = " UNION ALL ".join(part for _, _, part in parts)
    params = [x for keys, width, _ in parts for x in (*_columns(keys, width), sorted({key[0] for key in keys}))]
    lock_labels = {label: lock for _, _, lock, other, _ in pairs for label in (lock, other)}
    locks = {label: lock_label(w.label) for w in writes for label in (w.label.pk, w.label.opposite_id) if label}
    timelines: dict[Key, Timeline] = {}
    for card in Card.objects.raw(sql, params):
        where = (card.scope_id, card.subject_id)
        if card.lane == "line":
            timelines.setdefault(("line", *where, card.label_id), Timeline()).line.append(card)
        elif card.lane == "pair":
            key = ("pair", *where, lock_labels[card.label_id], card.value_norm)
            timelines.setdefault(key, Timeline()).line.append(card)
        elif card.lane == "beside":
            timelines.setdefault(("beside", *where, locks[card.label_id]), Timeline())
        elif card.lane == "value":
            timelines.setdefault(("value", *where, card.label_id, card.value_norm), Timeline()).current.append(card)
        else:
            timelines.setdefault(("event", *where, card.label_id, card.value_norm), Timeline()).events.append(card)
    return timelines


def _pair_labels(write: Write) -> tuple[int, int]:
    """The pair's lock label (tags.lock_label) first, then the other."""
    lock = lock_label(write.label)
    return lock, write.label.opposite_id if lock == write.label.pk else write.label.pk


def _columns(rows: set[tuple], width: int) -> list[list]:
    return [[row[i] for row in rows] for i in range(width)]


def _careful_locks(writes: list[Write], timelines: dict[Key, Timeline]) -> set[Lock]:
    """What card_remember places, write by write, after the rest: a guess or a
    statement about another member (whose disputes only it reads), a timeline
    a guess or dispute stands beside, and a
    timeline whose statements do not all come, in order, after everything we
    hold of it (its start, end and every time it was stated true) — the latest
    card is all the batch reads of a timeline. Careful by lock: every write
    that one of these might meet goes the same way, in order."""
    careful: set[Lock] = {_lock_of(w) for w in writes if is_guess(w) or about_someone_else(w)}
    # The tag rules that follow a write (services/tags.py) run once for the whole batch, after it: a guess
    # or dispute standing on a timeline would be settled against the batch's end, not write by write.
    careful |= {key[1:] for key in timelines if key[0] == "beside"}
    last_seen: dict[Key, dt.datetime] = {}
    for write in writes:
        if not on_timeline(write):
            continue
        key, effective = _key(write), write.effective
        if key not in last_seen:
            line = timelines.get(key, Timeline()).line
            latest = line[0] if line else None
            floor = None if latest is None else max(
                [latest.effective_at, *filter(None, [latest.superseded_at]), *latest.stated_at])
            if floor is not None and effective <= floor:
                careful.add(_lock_of(write))
            last_seen[key] = effective if floor is None else max(effective, floor)
        else:
            if effective < last_seen[key]:
                careful.add(_lock_of(write))
            last_seen[key] = max(effective, last_seen[key])
    return careful


def _flush(plan: _Plan) -> None:
    """Ids first, then close and restate, then insert: while an old card is
    current the unique index would refuse its successor, and foreign keys wait
    for commit. The UPDATE finds its cards by (id, scope_id), and names their
    scopes as constants: a cluster prunes shards by those, not by a join with a
    list of rows."""
    with connection.cursor() as cursor:
        if plan.new:
            cursor.execute("SELECT nextval(pg_get_serial_sequence('cards_card', 'id'))"
                           " FROM generate_series(1, %s)", [len(plan.new)])
            for card, (new_id,) in zip(plan.new, cursor.fetchall()):
                card.pk = card.id = new_id
        for card in (*plan.new, *plan.changed.values()):
            successor_link(card)
        if plan.changed:
            rows = list(plan.changed.values())
            # One row of constants per card: an array of arrays would flatten in unnest, and casting a
            # text form per row is a STABLE call on a column, which Citus refuses in an UPDATE (and a slice
            # of one flat array crashes its planner).
            values = ", ".join(["(%s::bigint, %s::bigint, %s::timestamptz, %s::bigint, %s::timestamptz,"
                                " %s::timestamptz[], %s::timestamptz[])"] * len(rows))
            cursor.execute(
                "UPDATE cards_card c SET superseded_at = v.at, superseded_by_id = v.by, verified_at = v.verified,"
                " stated_at = v.stated, said_at = v.said"
                f" FROM (VALUES {values}) AS v(id, scope, at, by, verified, stated, said)"
                " WHERE c.id = v.id AND c.scope_id = v.scope AND c.scope_id = ANY(%s::bigint[])",
                [*(x for c in rows for x in (c.pk, c.scope_id, c.superseded_at, c.superseded_by_id, c.verified_at,
                                             list(c.stated_at), list(c.said_at))), scopes_of(rows)])
            if cursor.rowcount != len(rows):
                # A forget committed since the timelines were read (it takes no timeline lock), as in
                # card_remember: a value that is gone is neither closed into a successor that says it was,
                # nor reported as reinforced.
                raise CardGone(gettext("That card was forgotten meanwhile."))
    if plan.new:
        cards_insert_many(plan.new)


def card_remember_many(*, scope: Scope, actor: User, drafts: list[CardDraft]) -> list[WriteOutcome]:
    """All or nothing, set-based, in one scope: card_remember_batch."""
    return card_remember_batch(actor=actor, items=[(scope, draft) for draft in drafts])
