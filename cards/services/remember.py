"""The write path: card_remember. Cardinality comes from the label registry,
never from the caller; every branch runs under a per-(scope, subject, label)
transaction lock, and the partial unique indexes back it up. What a write does
is decided in services/write_decision.py; this module reads the one timeline
the decision needs and executes it."""

from __future__ import annotations

import datetime as dt

from django.db import connection, transaction
from django.utils import timezone
from django.utils.translation import gettext

from scopes.models import Scope, User

from ..drafts import CardDraft
from ..errors import CardGone
from ..models import Card, CardKind, Tag
from .embedding import embed_outcomes_after_commit
from .perspectives import perspectives_set
from .sql import card_insert, card_update, cards_sql, cards_where
from .tags import about_someone_else, beside_filter, is_guess, on_timeline, stands_beside, tags_settle, timeline_filter
from .write_decision import Decision, Restate, Timeline, decision_apply, event_window, restatement, write_decide
from .write_plan import Outcome, Write, WriteOutcome, timeline_lock, write_prepare


@transaction.atomic
def card_remember(*, scope: Scope, actor: User, draft: CardDraft) -> WriteOutcome:
    write = write_prepare(scope=scope, actor=actor, draft=draft)
    draft = write.draft  # as taken in: NFC, bidi controls stripped
    timeline_lock(scope_id=write.scope.pk, subject_id=write.subject.pk, label=write.label)
    timeline = _timeline_read(write)
    decision = write_decide(write, timeline)
    decision_apply(decision, timeline)
    result = _execute(decision)
    result.label_words, result.new_entity = draft.label, write.new_subject
    if draft.perspectives:
        perspectives_set(card=result.card, actor=actor, phrasings=draft.perspectives, consent=draft.consent,
                         new_card=result.outcome in (Outcome.INSERTED, Outcome.SUPERSEDED))
    tags_settle([result])
    embed_outcomes_after_commit([result])
    return result


def card_stated_again(card: Card, seen: dt.datetime) -> None:
    """Record that the card's value was stated true at `seen` (one UPDATE, or none)."""
    restate = restatement(card, seen, now=timezone.now())
    if restate is not None:
        _restate(restate)


def _restate(restate: Restate) -> None:
    card = restate.card
    card.verified_at, card.stated_at, card.said_at = restate.verified_at, restate.stated_at, restate.said_at
    card_update(card, verified_at=restate.verified_at, stated_at=restate.stated_at, said_at=restate.said_at)


# --- reading the timeline a decision needs ------------------------------------------------

def _timeline_read(write: Write) -> Timeline:
    if write.draft.kind == CardKind.EVENT:
        return Timeline(events=_events_read(write))
    same = ("c.scope_id = %s AND c.subject_id = %s AND c.label_id = %s AND c.kind = %s AND c.value_norm = %s"
            " AND c.superseded_at IS NULL AND c.disputes_id IS NULL")
    params = [write.scope.pk, write.subject.pk, write.label.pk, write.draft.kind, write.value_norm]
    if is_guess(write):
        return Timeline(current=cards_where(same, params, order=f"c.tag = '{Tag.HYPOTHESIS}', c.id", limit=1))
    if on_timeline(write):
        return _line_read(write)
    # The current card of this value, if any — and the guess of it, which the statement promotes.
    found = cards_where(same, params, order=f"c.tag = '{Tag.HYPOTHESIS}', c.id", limit=2)
    return Timeline(current=found, beside=any(c.tag == Tag.HYPOTHESIS for c in found))


# The values said between a stated start and its statement that one write reads: a person's timeline
# changes a few times a year, so past this many the rest stay as they are.
OVERRULED_READ = 100


def _line_read(write: Write) -> Timeline:
    """In one query: the card starting at or before the write's instant, the
    first card after it, whether a guess or a dispute stands beside the
    timeline — and, for a statement about someone else, the disputes of its value."""
    effective = write.effective
    same, key = timeline_filter(write)
    beside, beside_key = beside_filter(write)
    # A write whose start was stated may overrule the values said between that start and when it was said
    # (write_decision._overruled): those are read too, then the first card after them.
    said = max(effective, min(write.reference, write.now)) if write.start_stated else effective
    sql = (f"(SELECT {{columns}} FROM cards_card c WHERE {same} AND c.effective_at <= %s"
           "  ORDER BY c.effective_at DESC, c.id DESC LIMIT 1)"
           f" UNION ALL (SELECT {{columns}} FROM cards_card c WHERE {same} AND c.effective_at > %s"
           f"  AND c.effective_at <= %s ORDER BY c.effective_at, c.id LIMIT {OVERRULED_READ})"
           f" UNION ALL (SELECT {{columns}} FROM cards_card c WHERE {same} AND c.effective_at > %s"
           "  ORDER BY c.effective_at, c.id LIMIT 1)"
           f" UNION ALL (SELECT {{columns}} FROM cards_card c WHERE {beside} LIMIT 1)")
    params = [*key, effective, *key, effective, said, *key, said, *beside_key]
    if about_someone_else(write):
        sql += (" UNION ALL (SELECT {columns} FROM cards_card c WHERE c.scope_id = %s AND c.subject_id = %s"
                " AND c.label_id = %s AND c.value_norm = %s AND c.disputes_id IS NOT NULL"
                " AND c.superseded_at IS NULL ORDER BY c.id)")
        params += [write.scope.pk, write.subject.pk, write.label.pk, write.value_norm]
    timeline = Timeline(beside=False)
    for card in cards_sql(sql, params):
        if card.disputes_id is not None and card.label_id == write.label.pk and card.value_norm == write.value_norm:
            timeline.disputes.append(card)
        if stands_beside(card):
            timeline.beside = True
        else:
            timeline.line.append(card)
    return timeline


def _events_read(write: Write) -> list[Card]:
    """The events of the write's value that overlap its duplicate window (write_decision decides which is one)."""
    same = ("c.scope_id = %s AND c.subject_id = %s AND c.label_id = %s AND c.kind = 'event'"
            " AND c.value_norm = %s")
    params = [write.scope.pk, write.subject.pk, write.label.pk, write.value_norm]
    window = event_window(write)
    if window is None:
        return cards_where(same + " AND c.occurred_at IS NULL", params, order="c.id", limit=1)
    return cards_where(same + " AND c.occurred_at < %s"
                       " AND coalesce(c.occurred_end, c.occurred_at + interval '1 microsecond') > %s",
                       [*params, window[1], window[0]], order="c.id", limit=1)


# --- executing it ---------------------------------------------------------------------------

def _execute(decision: Decision) -> WriteOutcome:
    """Ids first when a card is closed, so the closing UPDATE sets superseded_by
    with superseded_at: the closed card never stands without it and the unique
    index never sees two current cards (foreign keys are checked at commit).
    Drawn apart, not inside the UPDATE: Citus refuses a volatile function in an
    UPDATE of a distributed table, and the scope in the WHERE sends the UPDATE
    to the one shard holding the card."""
    inserts = decision.inserts
    if decision.closes:
        with connection.cursor() as cursor:
            cursor.execute("SELECT nextval(pg_get_serial_sequence('cards_card', 'id')) FROM generate_series(1, %s)",
                           [len(inserts)])
            for card, (new_id,) in zip(inserts, cursor.fetchall()):
                card.pk = card.id = new_id
            for close in decision.closes:  # in order: a card reopened after those closed (one current value)
                cursor.execute(
                    "UPDATE cards_card SET superseded_at = %s, stated_at = %s, said_at = %s, verified_at = %s,"
                    " superseded_by_id = %s WHERE id = %s AND scope_id = %s",
                    [close.at, close.stated_at, list(close.card.said_at), close.verified_at,
                     close.by.pk if close.by is not None else None, close.card.pk, close.card.scope_id])
                if cursor.rowcount != 1:
                    # A forget committed since the card was read (it takes no timeline lock): the value is gone,
                    # and the part of its timeline after the close must not be written back from the copy.
                    raise CardGone(gettext("That card was forgotten meanwhile."))
    if decision.restate is not None:
        _restate(decision.restate)
    for card in inserts:
        successor_link(card)
        card_insert(card)
    return WriteOutcome(decision.outcome, decision.card, [c.pk for c in decision.superseded], decision.settle,
                        closed=decision.superseded)


def successor_link(card: Card) -> None:
    """A successor decided in memory has its id only once drawn: copy it onto the foreign key."""
    if Card.superseded_by.is_cached(card) and card.superseded_by is not None:
        card.superseded_by_id = card.superseded_by.pk
