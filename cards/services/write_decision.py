"""The write decision (DESIGN §4 rules 1, 2 and 7), made once for every write
path: given one key's timeline as read and a `Write`, what the write does —
reinforce a card, insert one, supersede (fork) one, or find it a duplicate; a
dispute beside a member's own card; a guess beside the record. A value whose
date lies ahead is placed at that date like any other: it is planned until
then (cards/valid_time.py), and nobody confirmed it later than now.

Pure: nothing here reads or writes the database. card_remember reads one
timeline and executes one decision; card_remember_batch reads every timeline
once, decides each write in order against the timeline it keeps in memory
(`decision_apply`), then writes them all."""

from __future__ import annotations

import copy
import datetime as dt
from dataclasses import dataclass, field

from ..models import Card, CardKind, Cardinality, Tag
from .tags import disputes_own, is_guess, on_timeline, same_statement
from .write_plan import ONE_MICROSECOND, STATED_AT_KEEP, Outcome, Write, duplicate_window


@dataclass
class Timeline:
    """What a decision reads of one key. Each path fills the part its write needs."""

    line: list[Card] = field(default_factory=list)      # the on-timeline cards around the write's instant
    current: list[Card] = field(default_factory=list)   # current cards of the write's value (guesses too)
    events: list[Card] = field(default_factory=list)    # events of the write's value that may be the same
    disputes: list[Card] = field(default_factory=list)  # current disputes of the write's value
    beside: bool = True  # a guess or dispute may stand beside: the tag rules that follow have work


@dataclass(frozen=True)
class Close:
    """Close `card` at `at` into `by`, keeping the statements made before `at`."""
    card: Card
    at: dt.datetime
    by: Card
    stated_at: list[dt.datetime]
    verified_at: dt.datetime


@dataclass(frozen=True)
class Restate:
    """`card`'s value was stated true again: its verified_at and stated_at become these."""
    card: Card
    verified_at: dt.datetime
    stated_at: list[dt.datetime]


@dataclass(frozen=True)
class Decision:
    outcome: str
    card: Card                       # the card the write ends in: the first of `inserts`, or one read
    inserts: tuple[Card, ...] = ()   # new cards, ids not drawn; superseded_by may name another of them
    close: Close | None = None
    restate: Restate | None = None   # None when a restatement changes nothing
    settle: bool = True
    lane: str = "line"               # where the inserts join the timeline: line, current, events, disputes

    @property
    def superseded(self) -> list[Card]:
        return [] if self.close is None else [self.close.card]


def write_decide(write: Write, timeline: Timeline) -> Decision:
    if write.draft.kind == CardKind.EVENT:
        return _event(write, timeline)
    if is_guess(write):
        return _guess(write, timeline)
    if on_timeline(write):
        return _placed(write, timeline)
    return _accumulated(write, timeline)


def restatement(card: Card, seen: dt.datetime, *, now: dt.datetime) -> Restate | None:
    """The card's value was stated true at `seen`. A single value keeps the date
    (a split of the timeline resumes there); verified_at is the last
    confirmation, and nobody confirmed anything later than now."""
    stated = card.stated_at
    if card.kind == CardKind.STATE and card.cardinality == Cardinality.SINGLE and seen not in stated:
        stated = sorted([*stated, seen])[-STATED_AT_KEEP:]
    verified = max(card.verified_at, min(seen, now))
    if verified == card.verified_at and stated is card.stated_at:
        return None
    return Restate(card, verified, list(stated))


def decision_apply(decision: Decision, timeline: Timeline) -> None:
    """Make the decision true of the cards in memory, and let its new cards
    join the timeline the next write of the key is decided against."""
    if decision.close is not None:
        close = decision.close
        close.card.superseded_at, close.card.superseded_by = close.at, close.by
        close.card.stated_at, close.card.verified_at = close.stated_at, close.verified_at
    if decision.restate is not None:
        decision.restate.card.verified_at = decision.restate.verified_at
        decision.restate.card.stated_at = decision.restate.stated_at
    getattr(timeline, decision.lane).extend(decision.inserts)


def _reinforced(card: Card, write: Write, seen: dt.datetime, *, settle: bool = True) -> Decision:
    return Decision(Outcome.REINFORCED, card, restate=restatement(card, seen, now=write.now), settle=settle)


def _inserted(card: Card, *, lane: str, settle: bool = True) -> Decision:
    return Decision(Outcome.INSERTED, card, inserts=(card,), lane=lane, settle=settle)


def _said(write: Write) -> dt.datetime:
    """When a restatement confirms a value that has no timeline of its own: its reference, never after now."""
    return min(write.reference, write.now)


# --- single values and opposite labels: Supersede-Fork -------------------------------------
#
# A statement says "value v was true at t" (t = effective_at, else the reference
# time) and nothing about later: "we moved to Osaka in March", said in June,
# does not confirm Osaka in June. The timeline is a gapless chain of cards, each
# true over [effective_at, superseded_at); stated_at keeps when its value was
# stated true. Statements may arrive in any order: a late one is placed where it
# belongs, and if the card it lands in was stated true again after t, that card
# is split so the later statement still holds.

def neighbours(line: list[Card], at: dt.datetime) -> tuple[Card | None, Card | None]:
    """The card true at `at` (if any) and the first card starting after it. Cards
    not yet written sort after those read, in the order they were decided."""
    position = {id(card): index for index, card in enumerate(line)}

    def order(card: Card) -> tuple:
        return card.effective_at, card.pk is None, card.pk or position[id(card)]
    before = max((c for c in line if c.effective_at <= at), key=order, default=None)
    after = min((c for c in line if c.effective_at > at), key=order, default=None)
    covers = before is not None and (before.superseded_at is None or before.superseded_at > at)
    return (before if covers else None), after


def _placed(write: Write, timeline: Timeline) -> Decision:
    effective, settle = write.effective, timeline.beside
    covering, successor = neighbours(timeline.line, effective)
    if covering is not None and same_statement(write, covering):
        return _reinforced(covering, write, effective, settle=settle)
    if disputes_own(write, covering):
        return _disputed(write, covering, timeline)
    if covering is not None:
        return _forked(write, covering, effective, settle=settle)
    # Earlier than anything we hold (or nothing yet): true from t until the first card we know.
    card = write.new_card(effective_at=effective, verified_at=min(effective, write.now), stated_at=[effective],
                          superseded_at=successor.effective_at if successor else None, superseded_by=successor)
    return _inserted(card, lane="line", settle=settle)


def _forked(write: Write, covering: Card, effective: dt.datetime, *, settle: bool) -> Decision:
    """Close `covering` at `effective` and start the new value there; if
    `covering`'s value was stated true again after `effective`, it resumes at
    the first such statement. Closing confirms nothing: neither part is
    verified later than `covering` was."""
    earlier = [s for s in covering.stated_at if s < effective]
    later = [s for s in covering.stated_at if s > effective]
    card = write.new_card(effective_at=effective, verified_at=min(effective, write.now), stated_at=[effective],
                          superseded_at=later[0] if later else covering.superseded_at)
    inserts = [card]
    if later:
        rest = copy.copy(covering)
        rest.pk = rest.id = None
        rest.effective_at, rest.stated_at = later[0], later
        rest.verified_at = min(later[-1], covering.verified_at)
        rest.recorded_at = write.now
        card.superseded_by = rest
        inserts.append(rest)
    elif Card.superseded_by.is_cached(covering):  # a card decided earlier in the same batch
        card.superseded_by = covering.superseded_by
    else:
        card.superseded_by_id = covering.superseded_by_id
    close = Close(covering, effective, card, earlier,
                  min(max(earlier, default=covering.effective_at), covering.verified_at))
    return Decision(Outcome.SUPERSEDED, card, inserts=tuple(inserts), close=close, settle=settle)


def _disputed(write: Write, own: Card, timeline: Timeline) -> Decision:
    """Beside the member's own card, outside the timeline (DESIGN §4 rule 7); the
    same disagreement said again reinforces the dispute already standing."""
    standing = next((c for c in timeline.disputes if c.disputes_id == own.pk and c.superseded_at is None
                     and c.label_id == write.label.pk and c.value_norm == write.value_norm), None)
    if standing is not None:
        return _reinforced(standing, write, _said(write), settle=timeline.beside)
    return _inserted(write.new_card(effective_at=write.effective, disputes=own), lane="disputes",
                     settle=timeline.beside)


# --- guesses: beside the record ----------------------------------------------------------

def _guess(write: Write, timeline: Timeline) -> Decision:
    """A hypothesis never closes, replaces or reinforces what was stated: one the
    record already says is a duplicate of the record; another stands beside it
    (the same guess again reinforces the guess)."""
    stated = [c for c in timeline.current if c.tag != Tag.HYPOTHESIS]
    guessed = [c for c in timeline.current if c.tag == Tag.HYPOTHESIS]
    if stated:
        return Decision(Outcome.DUPLICATE, stated[0])
    if guessed:
        return _reinforced(guessed[0], write, _said(write))
    return _inserted(write.new_card(effective_at=write.effective), lane="current")


# --- multi-value states and knowledge: accumulate -------------------------------------

def _accumulated(write: Write, timeline: Timeline) -> Decision:
    """The current card of this value is stated again; a guess of it stays for
    the tag rules to promote."""
    existing = next((c for c in timeline.current if c.tag != Tag.HYPOTHESIS), None)
    if existing is not None:
        return _reinforced(existing, write, _said(write), settle=timeline.beside)
    return _inserted(write.new_card(effective_at=write.effective), lane="current", settle=timeline.beside)


# --- events: write-once ----------------------------------------------------------------

def event_window(write: Write) -> tuple[dt.datetime, dt.datetime] | None:
    """The instants an event of the write's value would be the same event in; None when undated."""
    when = write.occurrence
    return None if when.start is None else duplicate_window(when, write.tz)


def same_event(card: Card, window: tuple[dt.datetime, dt.datetime] | None) -> bool:
    if window is None or card.occurred_at is None:
        return window is None and card.occurred_at is None
    return card.occurred_at < window[1] and (card.occurred_end or card.occurred_at + ONE_MICROSECOND) > window[0]


def _event(write: Write, timeline: Timeline) -> Decision:
    window = event_window(write)
    for card in timeline.events:
        if card.value_norm == write.value_norm and same_event(card, window):
            return Decision(Outcome.DUPLICATE, card)
    when = write.occurrence
    card = write.new_card(effective_at=when.start or write.reference, occurred_at=when.start,
                          occurred_end=when.end, precision=when.precision, time_source=when.source)
    return _inserted(card, lane="events")
