"""The write path: card_remember. Cardinality comes from the label registry,
never from the caller; every branch runs under a per-(scope, subject, label)
transaction lock, and the partial unique indexes back it up."""

from __future__ import annotations

import copy
import datetime as dt

from django.db import connection, transaction
from django.utils import timezone
from django.utils.translation import gettext

from scopes.models import Scope, User

from ..drafts import CardDraft, occurrence_from
from ..errors import CardGone
from ..models import Card, CardKind, Cardinality, Tag
from .embedding import embed_outcomes_after_commit
from .perspectives import perspectives_set
from .sql import card_insert, card_update, cards_sql, cards_where
from .tags import (beside_filter, disputes_own, is_guess, on_timeline, same_statement, stands_beside, tags_settle,
                   timeline_filter)
from .write_plan import STATED_AT_KEEP, Outcome, Write, WriteOutcome, duplicate_window, timeline_lock, write_prepare

@transaction.atomic
def card_remember(*, scope: Scope, actor: User, draft: CardDraft) -> WriteOutcome:
    write = write_prepare(scope=scope, actor=actor, draft=draft)
    draft = write.draft  # as taken in: NFC, bidi controls stripped
    timeline_lock(scope_id=write.scope.pk, subject_id=write.subject.pk, label=write.label)
    if draft.kind == CardKind.EVENT:
        result = _remember_event(write)
    elif is_guess(write):
        result = _remember_guess(write)
    elif on_timeline(write):
        result = _remember_single(write)
    else:
        result = _remember_accumulating(write)
    if draft.perspectives:
        perspectives_set(card=result.card, actor=actor, phrasings=draft.perspectives, consent=draft.consent,
                         new_card=result.outcome in (Outcome.INSERTED, Outcome.SUPERSEDED))
    tags_settle([result])
    embed_outcomes_after_commit([result])
    return result


def _reinforce(card: Card, write: Write, *, seen: dt.datetime | None = None) -> WriteOutcome:
    """Same value again: no new row; verified_at moves to when it was last stated true."""
    card_stated_again(card, seen or min(write.reference, write.now))
    return WriteOutcome(Outcome.REINFORCED, card)


def card_stated_again(card: Card, seen: dt.datetime) -> None:
    """Record that the card's value was stated true at `seen` (one UPDATE, or
    none). A statement about a later date is kept at that date (a split of the
    timeline resumes there), but nobody verified anything later than now."""
    verified = min(seen, timezone.now())
    if card.kind == CardKind.STATE and card.cardinality == Cardinality.SINGLE:
        if seen not in card.stated_at:
            card.stated_at = sorted([*card.stated_at, seen])[-STATED_AT_KEEP:]
            card.verified_at = max(card.verified_at, verified)
            card_update(card, verified_at=card.verified_at, stated_at=card.stated_at)
    elif seen > card.verified_at:
        card.verified_at = seen
        card_update(card, verified_at=seen)


# --- single-value states: Supersede-Fork --------------------------------------------
#
# A statement says "value v was true at t" (t = effective_at, else the reference
# time) and nothing about later: "we moved to Osaka in March", said in June,
# does not confirm Osaka in June. The timeline is a gapless chain of cards, each
# true over [effective_at, superseded_at); stated_at keeps when its value was
# stated true. Statements may arrive in any order: a late one is placed where it
# belongs, and if the card it lands in was stated true again after t, that card
# is split so the later statement still holds.

def _remember_single(write: Write) -> WriteOutcome:
    effective = write.effective
    covering, successor, beside = _neighbours(write, effective)
    result = _place(write, effective, covering, successor)
    result.settle = beside
    return result


def _place(write: Write, effective: dt.datetime, covering: Card | None, successor: Card | None) -> WriteOutcome:
    if covering is not None and same_statement(write, covering):
        return _reinforce(covering, write, seen=effective)
    if disputes_own(write, covering):
        return _remember_dispute(write, covering)
    if covering is not None:
        return _fork(write, covering, effective)
    # Earlier than anything we hold (or nothing yet): true from t until the first card we know.
    card = write.new_card(effective_at=effective, verified_at=min(effective, write.now), stated_at=[effective],
                          superseded_at=successor.effective_at if successor else None,
                          superseded_by=successor)
    card_insert(card)
    return WriteOutcome(Outcome.INSERTED, card)


def _neighbours(write: Write, effective: dt.datetime) -> tuple[Card | None, Card | None, bool]:
    """In one query: the card true at `effective` (if any), the first card after
    it, and whether a guess or a dispute stands beside the timeline."""
    same, key = timeline_filter(write)
    beside, beside_key = beside_filter(write)
    found = cards_sql(
        f"(SELECT {{columns}} FROM cards_card c WHERE {same} AND c.effective_at <= %s"
        "  ORDER BY c.effective_at DESC, c.id DESC LIMIT 1)"
        f" UNION ALL (SELECT {{columns}} FROM cards_card c WHERE {same} AND c.effective_at > %s"
        "  ORDER BY c.effective_at, c.id LIMIT 1)"
        f" UNION ALL (SELECT {{columns}} FROM cards_card c WHERE {beside} LIMIT 1)",
        [*key, effective, *key, effective, *beside_key])
    covering = successor = None
    standing = False
    for card in found:
        if stands_beside(card):
            standing = True
        elif card.effective_at > effective:
            successor = card
        elif card.superseded_at is None or card.superseded_at > effective:
            covering = card
    return covering, successor, standing


def _fork(write: Write, covering: Card, effective: dt.datetime) -> WriteOutcome:
    """Close `covering` at `effective` and start the new value there; if
    `covering`'s value was stated true again after `effective`, it resumes at
    the first such statement. The new ids are drawn from the sequence first, so
    the closing UPDATE sets superseded_by with superseded_at: the closed card
    never stands without it and the unique index never sees two current cards
    (foreign keys are checked at commit). Drawn apart, not inside the UPDATE: Citus
    refuses a volatile function in an UPDATE of a distributed table, and the
    scope in the WHERE sends the UPDATE to the one shard holding the card."""
    earlier = [s for s in covering.stated_at if s < effective]
    later = [s for s in covering.stated_at if s > effective]
    with connection.cursor() as cursor:
        cursor.execute("SELECT nextval(pg_get_serial_sequence('cards_card', 'id')),"
                       " CASE WHEN %s THEN nextval(pg_get_serial_sequence('cards_card', 'id')) END", [bool(later)])
        new_id, rest_id = cursor.fetchone()
        cursor.execute(
            "UPDATE cards_card SET superseded_at = %s, stated_at = %s, verified_at = %s, superseded_by_id = %s"
            " WHERE id = %s AND scope_id = %s",
            [effective, earlier, max(earlier, default=covering.effective_at), new_id, covering.pk,
             covering.scope_id])
        if cursor.rowcount != 1:
            # A forget committed since `covering` was read (it takes no timeline lock): the value is
            # gone, and the part of its timeline after `effective` must not be written back from the copy.
            raise CardGone(gettext("That card was forgotten meanwhile."))
    card = write.new_card(
        id=new_id, effective_at=effective, verified_at=min(effective, write.now), stated_at=[effective],
        superseded_at=later[0] if later else covering.superseded_at,
        superseded_by_id=rest_id if later else covering.superseded_by_id)
    card_insert(card)
    if later:
        rest = copy.copy(covering)
        rest.pk = rest.id = rest_id
        rest.effective_at, rest.stated_at, rest.verified_at = later[0], later, later[-1]
        rest.recorded_at = write.now
        card_insert(rest)
    return WriteOutcome(Outcome.SUPERSEDED, card, [covering.pk])


def _remember_dispute(write: Write, own: Card) -> WriteOutcome:
    """Beside the member's own card, outside the timeline (DESIGN §4 rule 7); the
    same disagreement said again reinforces the dispute already standing."""
    standing = _standing_dispute(write, own)
    if standing is not None:
        return _reinforce(standing, write)
    card = write.new_card(effective_at=write.effective, disputes=own)
    card_insert(card)
    return WriteOutcome(Outcome.INSERTED, card)


def _standing_dispute(write: Write, own: Card) -> Card | None:
    found = cards_where("c.disputes_id = %s AND c.superseded_at IS NULL AND c.label_id = %s AND c.value_norm = %s",
                        [own.pk, write.label.pk, write.value_norm], limit=1)
    return found[0] if found else None


# --- guesses: beside the record ----------------------------------------------------------

def _remember_guess(write: Write) -> WriteOutcome:
    """A hypothesis never closes, replaces or reinforces what was stated: one the
    record already says is a duplicate of the record; another stands beside it
    (the same guess again reinforces the guess)."""
    same = ("c.scope_id = %s AND c.subject_id = %s AND c.label_id = %s AND c.kind = %s AND c.value_norm = %s"
            " AND c.superseded_at IS NULL")
    params = [write.scope.pk, write.subject.pk, write.label.pk, write.draft.kind, write.value_norm]
    found = cards_where(same + " AND c.disputes_id IS NULL", params, order=f"c.tag = '{Tag.HYPOTHESIS}'", limit=1)
    if found and found[0].tag != Tag.HYPOTHESIS:
        return WriteOutcome(Outcome.DUPLICATE, found[0])
    if found:
        return _reinforce(found[0], write)
    card = write.new_card(effective_at=write.effective)
    card_insert(card)
    return WriteOutcome(Outcome.INSERTED, card)


# --- multi-value states and knowledge: accumulate -------------------------------------

def _remember_accumulating(write: Write) -> WriteOutcome:
    """The current card of this value, if any — and the guess of it, which the statement promotes."""
    found = cards_where(
        "c.scope_id = %s AND c.subject_id = %s AND c.label_id = %s AND c.kind = %s"
        " AND c.superseded_at IS NULL AND c.value_norm = %s AND c.disputes_id IS NULL",
        [write.scope.pk, write.subject.pk, write.label.pk, write.draft.kind, write.value_norm],
        order=f"c.tag = '{Tag.HYPOTHESIS}'", limit=2)
    existing = next((c for c in found if c.tag != Tag.HYPOTHESIS), None)
    if existing is not None:
        result = _reinforce(existing, write)
    else:
        card = write.new_card(effective_at=write.effective)
        card_insert(card)
        result = WriteOutcome(Outcome.INSERTED, card)
    result.settle = any(c.tag == Tag.HYPOTHESIS for c in found)
    return result


# --- events: write-once ----------------------------------------------------------------

def _remember_event(write: Write) -> WriteOutcome:
    when = occurrence_from(write.draft, write.tz)
    same = ("c.scope_id = %s AND c.subject_id = %s AND c.label_id = %s AND c.kind = 'event'"
            " AND c.value_norm = %s")
    params = [write.scope.pk, write.subject.pk, write.label.pk, write.value_norm]
    if when.start is None:
        found = cards_where(same + " AND c.occurred_at IS NULL", params, limit=1)
    else:
        start, end = duplicate_window(when, write.tz)
        found = cards_where(
            same + " AND c.occurred_at < %s"
            " AND coalesce(c.occurred_end, c.occurred_at + interval '1 microsecond') > %s",
            [*params, end, start], limit=1)
    existing = found[0] if found else None
    if existing is not None:
        return WriteOutcome(Outcome.DUPLICATE, existing)
    card = write.new_card(effective_at=when.start or write.reference, occurred_at=when.start,
                          occurred_end=when.end, precision=when.precision, time_source=when.source)
    card_insert(card)
    return WriteOutcome(Outcome.INSERTED, card)
