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
    """Close `card` at `at` into `by`, keeping the statements made before `at`; `at` None opens it again
    (a value stated again over what it had been closed into, when a later statement overrules that)."""
    card: Card
    at: dt.datetime | None
    by: Card | None
    stated_at: list[dt.datetime]
    verified_at: dt.datetime
    said_at: list[dt.datetime] | None = None  # None: as they were


@dataclass(frozen=True)
class Restate:
    """`card`'s value was stated true again: its verified_at, stated_at and said_at become these."""
    card: Card
    verified_at: dt.datetime
    stated_at: list[dt.datetime]
    said_at: list[dt.datetime]


@dataclass(frozen=True)
class Decision:
    outcome: str
    card: Card                       # the card the write ends in: the first of `inserts`, or one read
    inserts: tuple[Card, ...] = ()   # new cards, ids not drawn; superseded_by may name another of them
    closes: tuple[Close, ...] = ()   # in the order they are written: a card reopened comes after those closed
    restate: Restate | None = None   # None when a restatement changes nothing
    settle: bool = True
    lane: str = "line"               # where the inserts join the timeline: line, current, events, disputes

    @property
    def superseded(self) -> list[Card]:
        # The card written may be closed too (said again, up to a statement that stands): it is not one it closed.
        return [close.card for close in self.closes if close.at is not None and close.card is not self.card]


def write_decide(write: Write, timeline: Timeline) -> Decision:
    if write.draft.kind == CardKind.EVENT:
        return _event(write, timeline)
    if is_guess(write):
        return _guess(write, timeline)
    if on_timeline(write):
        return _placed(write, timeline)
    return _accumulated(write, timeline)


def restatement(card: Card, seen: dt.datetime, *, now: dt.datetime, only_said: bool = True,
                also: dt.datetime | None = None) -> Restate | None:
    """The card's value was stated true at `seen` (`only_said`: with no start of its own, as "still
    true" is; `also`: a start stated at `seen`, and the value said to hold at `also`, when it was said). A
    single value keeps the dates (a split of the timeline resumes there); verified_at is the last
    confirmation, and nobody confirmed anything later than now."""
    stated, said = card.stated_at, card.said_at
    times = [(seen, only_said)] + ([(also, True)] if also is not None and also > seen else [])
    if card.kind == CardKind.STATE and card.cardinality == Cardinality.SINGLE:
        for at, only in times:
            if at not in stated:
                stated = sorted([*stated, at])[-STATED_AT_KEEP:]
                if only:
                    said = sorted({*said, at})
            if not only and at in said:
                said = [s for s in said if s != at]   # its start stated now: it stands
                stated = list(stated)                  # a change to write (restatement is not None)
        said = [s for s in said if s in stated]
    verified = max(card.verified_at, min(max(at for at, _ in times), now))
    if verified == card.verified_at and stated is card.stated_at:
        return None
    return Restate(card, verified, list(stated), list(said))


def decision_apply(decision: Decision, timeline: Timeline) -> None:
    """Make the decision true of the cards in memory, and let its new cards
    join the timeline the next write of the key is decided against."""
    for close in decision.closes:
        close.card.superseded_at, close.card.superseded_by = close.at, close.by
        close.card.stated_at, close.card.verified_at = close.stated_at, close.verified_at
        if close.said_at is not None:
            close.card.said_at = close.said_at
    if decision.restate is not None:
        decision.restate.card.verified_at = decision.restate.verified_at
        decision.restate.card.stated_at = decision.restate.stated_at
        decision.restate.card.said_at = decision.restate.said_at
    getattr(timeline, decision.lane).extend(decision.inserts)


def _reinforced(card: Card, write: Write, seen: dt.datetime, *, settle: bool = True) -> Decision:
    return Decision(Outcome.REINFORCED, card, restate=restatement(
        card, seen, now=write.now, only_said=not write.start_stated, also=_said_then(write)), settle=settle)


def _said_then(write: Write) -> dt.datetime | None:
    """For a statement whose start was given: when it was said, the value held then too ("I moved to
    Kyoto last month", said in June: Kyoto in June) — a time with no start of its own, so a later
    statement of an earlier start overrules it as it would "I live in Kyoto" said that day."""
    return _said(write) if write.start_stated else None


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
    line = [card for card in line if _held(card)]
    position = {id(card): index for index, card in enumerate(line)}

    def order(card: Card) -> tuple:
        return card.effective_at, card.pk is None, card.pk or position[id(card)]
    before = max((c for c in line if c.effective_at <= at), key=order, default=None)
    after = min((c for c in line if c.effective_at > at), key=order, default=None)
    covers = before is not None and (before.superseded_at is None or before.superseded_at > at)
    return (before if covers else None), after


def _placed(write: Write, timeline: Timeline) -> Decision:
    effective, settle = write.effective, timeline.beside
    covering, _ = neighbours(timeline.line, effective)
    if disputes_own(write, covering):
        return _disputed(write, covering, timeline)
    run = _run(write, timeline.line, covering)
    then = _said_then(write)
    if then is not None and run.end is not None and then >= run.end:
        then = None  # the value no longer holds when it was said: a statement that stands ended it first
    if covering is not None and same_statement(write, covering):
        if not run.overruled:
            return Decision(Outcome.REINFORCED, covering, settle=settle, restate=restatement(
                covering, effective, now=write.now, only_said=not write.start_stated, also=then))
        # Said again from the start it has, over values the statement overrules: it holds again, past them.
        return _ended(write, covering, run, closes=[], settle=settle, then=then, again=True)
    stated = [effective, then] if then is not None and then > effective else [effective]
    # A start given is a statement that stands; a value only said held then, its start unsaid.
    card = write.new_card(effective_at=effective, verified_at=min(stated[-1], write.now), stated_at=stated,
                          said_at=stated[1:] if write.start_stated else [effective])
    closes = []
    if covering is not None:
        # Closing confirms nothing: neither part is verified later than `covering` was.
        earlier = [s for s in covering.stated_at if s < effective]
        closes.append(Close(covering, effective, card, earlier,
                            min(max(earlier, default=covering.effective_at), covering.verified_at)))
    return _ended(write, card, run, closes=closes, settle=settle, then=then, again=False)


# --- how far a statement's value runs: Supersede-Fork, and a later statement wins -----------
#
# A statement's value holds from its start until the first statement after it that stands: the start of
# the next value, or the value it split stated true again. Every statement stands against one whose
# start was not stated. Against a statement whose start was stated ("I moved to Kyoto last month"), one
# that only said its value held when said ("I live in Lisbon", "still Lisbon") and was said before it
# does not: the person is telling us what changed (DESIGN §4 rule 2). Its card is overruled — closed
# at its own start, held by no instant, kept in the history. A statement whose start was itself stated,
# or one said after, stands: the later-learned, earlier-dated value stays in the past.

@dataclass(frozen=True)
class Run:
    """Where the write's value ends: at `end`, a statement of `ends_in` (`end` None: it is current; `ends_in`
    None with an `end`: where the timeline had a gap, a value forgotten after `gap`, whose successor
    link it takes); the values after its start it overrules on the way, in order."""
    overruled: tuple[Card, ...] = ()
    ends_in: Card | None = None
    end: dt.datetime | None = None
    gap: Card | None = None


def _held(card: Card) -> bool:
    """Held at some instant: not a value overruled at its start (valid_time.held_sql, in memory)."""
    return card.superseded_at is None or card.superseded_at > card.effective_at


def only_said(card: Card, at: dt.datetime) -> bool:
    """Whether the card's statement at `at` gave no start of its own (it held when said)."""
    return at in card.said_at


def _run(write: Write, line: list[Card], covering: Card | None) -> Run:
    effective = write.effective
    said = _said(write)
    successors = sorted((c for c in line if c.effective_at > effective and _held(c)),
                        key=lambda c: (c.effective_at, c.pk is None, c.pk or 0))
    overruled: list[Card] = []
    cards = ([covering] if covering is not None else []) + successors
    for index, card in enumerate(cards):
        statements = sorted({s for s in (*card.stated_at, card.effective_at) if s > effective})
        for at in statements:
            if not write.start_stated or at > said or not only_said(card, at):
                return Run(tuple(overruled), card, at)
        if card is not covering:
            overruled.append(card)
        following = cards[index + 1] if index + 1 < len(cards) else None
        if card.superseded_at is not None and (following is None or following.effective_at > card.superseded_at):
            return Run(tuple(overruled), None, card.superseded_at, gap=card)  # a forgotten value left it closed
    return Run(tuple(overruled))


def _ended(write: Write, card: Card, run: Run, *, closes: list[Close], settle: bool,
           then: dt.datetime | None, again: bool) -> Decision:
    """`card` (new, or one said again) holds from its start until `run.end`: where the value it ends in
    begins, or where that value resumes at the statement that stands (a new card of it from then, with
    its statements from then). The cards overruled are closed into it at their own start."""
    inserts = [] if again else [card]
    ends_in, end = run.ends_in, run.end
    by, resumed = ends_in, None
    if ends_in is not None and end != ends_in.effective_at:
        resumed = _resumed(ends_in, end, now=write.now)
        inserts.append(resumed)
        by = resumed
    closing = list(closes)
    for other in run.overruled:
        closing.append(Close(other, other.effective_at, card, other.stated_at, other.verified_at))
    if resumed is not None and not any(close.card is ends_in for close in closes):
        # A value after the start (not the one split at it), overruled there, resuming at a later statement.
        earlier = [s for s in ends_in.stated_at if s < end]
        closing.append(Close(ends_in, ends_in.effective_at, card, earlier,
                             min(max(earlier, default=ends_in.effective_at), ends_in.verified_at)))
    if not again:
        card.superseded_at = end
        if run.gap is not None and Card.superseded_by.is_cached(run.gap):  # decided earlier in the same batch
            card.superseded_by = run.gap.superseded_by
        elif run.gap is not None:
            card.superseded_by_id = run.gap.superseded_by_id
        elif by is not None and by.pk is None:
            card.superseded_by = by        # decided here: its id is drawn before the write
        elif by is not None:
            card.superseded_by_id = by.pk
    else:  # said again: it holds again until the end, after the values it overrules are closed
        by = by if run.gap is None else run.gap.superseded_by
        restate = restatement(card, write.effective, now=write.now, only_said=False, also=then)
        if restate is None:
            closing.append(Close(card, end, by, card.stated_at, card.verified_at))
        else:
            closing.append(Close(card, end, by, restate.stated_at, restate.verified_at, said_at=restate.said_at))
    outcome = Outcome.SUPERSEDED if any(c.at is not None for c in closing) else Outcome.INSERTED
    return Decision(outcome, card, inserts=tuple(inserts), closes=tuple(closing), settle=settle)


def _resumed(card: Card, at: dt.datetime, *, now: dt.datetime) -> Card:
    """`card`'s value again from `at`, with its statements from then, to where it ended (a new card)."""
    rest = copy.copy(card)
    rest.pk = rest.id = None
    rest.effective_at, rest.stated_at = at, [s for s in card.stated_at if s >= at]
    rest.verified_at = min(max(rest.stated_at, default=at), card.verified_at)
    rest.recorded_at = now
    return rest


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
