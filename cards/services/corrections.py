"""Corrections after a card is written: describe, an event's date or place
said wrongly, verify, retract, knowledge merge/rename. Forgetting is
services/forget.py."""

from __future__ import annotations

import datetime as dt
import json
from dataclasses import dataclass

from django.db import IntegrityError, connection, transaction
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext

from core.dates import date_shown
from scopes.models import User
from scopes.zones import person_zone

from ..drafts import Occurrence, occurrence_of
from ..errors import CardGone, ImmutableEvent, InvalidCard, NotAnEvent, NotCurrent, SameEventExists
from ..words.lexical import card_lexemes
from ..models import Card, CardKind, CardRevision, Cardinality, Entity, EntityKind
from ..screen import content_screen
from ..selectors.shape import iso
from ..text import name_in, text_in
from ..time.when import when_resolve, zone_from_label, zone_label
from .embedding import embed_after_commit
from .remember import card_stated_again
from .write_decision import same_event
from .write_plan import duplicate_window, entity_named, timeline_lock, value_key, value_key_rebound

MAX_TEXT = 10_000


def _clean_text(text, field: str) -> str:
    if not isinstance(text, str) or "\x00" in text or len(text) > MAX_TEXT or not text.strip():
        raise InvalidCard(gettext("%(field)s must be a non-empty text of at most %(most)s characters.")
                          % {"field": field, "most": MAX_TEXT},
                          fields={field: ["invalid"]})
    return text_in(text).strip()


def _lexemes(card: Card) -> list[str]:
    """The card's words after a correction of its value or text. Its object's name is read on its own, not
    joined by the entity's id alone (on a cluster, a join Citus refuses across scopes' shards)."""
    object_name = (None if card.object_id is None else
                   Entity.objects.filter(pk=card.object_id).values_list("name", flat=True).first())
    return card_lexemes(label_key=card.label.key, value=card.value, object_name=object_name, text=card.text)


@transaction.atomic
def card_describe(*, card: Card, actor: User, text: str, reason: str = "", consent: bool = False) -> Card:
    """Correct a card's description; the old one is kept as a revision. For an
    event this is the only change allowed — that it happened stays as written.
    The new words pass the same screen as a new card (`consent` for sensitive ones)."""
    text = _clean_text(text, "text")
    content_screen(fields={"text": text, "reason": reason}, consent=consent)
    card = card_hold(card=card, for_update=True)
    if text == card.text:
        return card
    CardRevision.objects.create(card=card, actor=actor, at=timezone.now(), field="text",
                                before=card.text, after=text, reason=reason[:300])
    card.text = text
    Card.objects.filter(pk=card.pk, scope_id=card.scope_id).update(text=text, lexemes=_lexemes(card))
    embed_after_commit([(card.pk, card.scope_id)])
    return card


# What an event correction may correct, in the order an answer names them.
CORRECTABLE = ("when", "object", "text")


@dataclass
class Corrected:
    card: Card
    corrected: list[str]  # what changed, of CORRECTABLE; empty when the correction said what the card says


@transaction.atomic
def event_correct(*, card: Card, actor: User, when: str | None = None, reference: dt.datetime | None = None,
                  tz: dt.tzinfo | None = None, object: str | None = None, text: str | None = None,
                  reason: str = "", consent: bool = False) -> Corrected:
    """An event's date, place or description said wrongly ("Ana's wedding was
    Sunday, not Saturday"): the same event, corrected, each old value kept as a
    revision — never a second event (DESIGN §4 rule 3: that it happened, to whom
    and what kind of event stay as written). `when` is resolved as remember
    resolves it, against `reference` (default now) in `tz` (the speaker's zone,
    cards.drafts.spoken_at); `object` is bound as remember binds one; `text` is
    card_describe's. A state is refused (`not_an_event`): its new value is
    remembered, and supersedes it. The write-once trigger lets the time and the
    object change only for this card, only in this transaction."""
    card = card_hold(card=card, for_update=True)
    if card.kind != CardKind.EVENT:
        raise NotAnEvent(gettext("Only an event's date, place or description is corrected here. For a state, "
                                 "remember the new value: it supersedes the old one, which stays as history."))
    name = None if object is None else name_in(object, field="object").strip()
    if name == "":
        raise InvalidCard(gettext("object must name a place, a person or a thing."),
                          fields={"object": [gettext("must not be empty")]})
    # Every word the correction brings passes the screen before anything changes (text: card_describe's).
    content_screen(fields={"object": name or "", "reason": reason}, consent=consent)
    corrected = set()
    if text is not None:
        before = card.text
        card = card_describe(card=card, actor=actor, text=text, reason=reason, consent=consent)
        if card.text != before:
            corrected.add("text")
    # Whose days the event's time is read in: the card's, until the speaker gives it a new time in theirs.
    zone = zone_from_label(card.anchor_zone) if card.anchor_zone else person_zone(actor)
    occurrence = Occurrence(card.occurred_at, card.occurred_end, card.precision, card.time_source)
    changes: dict = {}
    revisions: list[tuple[str, str, str]] = []
    if when is not None:
        spoken = tz or person_zone(actor)
        interval = when_resolve(when, reference=reference or timezone.now(), tz=spoken)
        new = occurrence_of(interval.start, interval.end, interval.precision, interval.source, spoken)
        if (new.start, new.end, new.precision) != (card.occurred_at, card.occurred_end, card.precision):
            revisions.append(("when", when_revision(occurrence, card.anchor_zone),
                              when_revision(new, zone_label(spoken))))
            changes.update(occurred_at=new.start, occurred_end=new.end, precision=new.precision,
                           time_source=new.source, effective_at=new.start, anchor_zone=zone_label(spoken))
            occurrence, zone = new, spoken
    if name is not None:
        obj = entity_named(scope=card.scope, actor=actor, ref=name, kind=EntityKind.THING, field="object")
        if obj.pk != card.object_id:
            was = (None if card.object_id is None else
                   Entity.objects.filter(pk=card.object_id).values_list("name", flat=True).first())
            revisions.append(("object", was or "", obj.name))
            changes.update(object_id=obj.pk, value_norm=value_key_rebound(card.value_norm, was=card.object_id,
                                                                          now=obj.pk))
    if changes:
        _event_rewrite(card, changes, occurrence=occurrence, zone=zone)
        now = timezone.now()
        CardRevision.objects.bulk_create([
            CardRevision(card=card, scope_id=card.scope_id, actor=actor, at=now, field=field, before=before,
                         after=after, reason=reason[:300]) for field, before, after in revisions])
        corrected.update(field for field, _, _ in revisions)
        if "object_id" in changes:
            embed_after_commit([(card.pk, card.scope_id)])
    return Corrected(card, [field for field in CORRECTABLE if field in corrected])


def _event_rewrite(card: Card, changes: dict, *, occurrence: Occurrence, zone: dt.tzinfo) -> None:
    """The corrected time and object written to the card, past the write-once trigger for this card only —
    unless the event would then be another one already recorded (the same value on that day)."""
    value_norm = changes.get("value_norm", card.value_norm)
    other = _same_event(card, value_norm=value_norm, occurrence=occurrence, zone=zone)
    if other is not None:
        raise SameEventExists(gettext("That event is already recorded for that time (card %(card)s): forget one "
                                      "of the two rather than keep the same event twice.") % {"card": other},
                              card=other)
    for attribute, value in changes.items():
        setattr(card, attribute, value)
    if "object_id" in changes:
        changes["lexemes"] = _lexemes(card)
    with connection.cursor() as cursor:
        # The trigger reads it: the event's time and object may change for this card, in this transaction.
        cursor.execute(f"SET LOCAL memory_site.correcting = '{int(card.pk)}'")
    Card.objects.filter(pk=card.pk, scope_id=card.scope_id).update(**changes)
    with connection.cursor() as cursor:
        # Inside a caller's longer transaction, the permission ends with this card.
        cursor.execute("SET LOCAL memory_site.correcting = ''")


def _same_event(card: Card, *, value_norm: str, occurrence: Occurrence, zone: dt.tzinfo) -> int | None:
    """Another event of this one's value that a new report of it would be a duplicate of (remember's
    duplicate window, write_decision.same_event), if any."""
    window = None if occurrence.start is None else duplicate_window(occurrence, zone)
    rows = (Card.objects.filter(scope_id=card.scope_id, subject_id=card.subject_id, label_id=card.label_id,
                                kind=CardKind.EVENT, value_norm=value_norm).exclude(pk=card.pk))
    if window is None:
        rows = rows.filter(occurred_at__isnull=True)
    else:
        rows = rows.filter(Q(occurred_end__gt=window[0]) | Q(occurred_end__isnull=True, occurred_at__gte=window[0]),
                           occurred_at__lt=window[1])
    for other in rows.only("pk", "occurred_at", "occurred_end").order_by("pk")[:1]:
        if same_event(other, window):
            return other.pk
    return None


def when_revision(occurrence: Occurrence, zone: str) -> str:
    """An event's time as its `when` revision keeps it: JSON with the card's own field names (an export
    reads it as is), "" when undated. revision_shown reads it back for a person."""
    if occurrence.start is None:
        return ""
    return json.dumps({"occurred_at": iso(occurrence.start), "occurred_end": iso(occurrence.end),
                       "precision": occurrence.precision, "zone": zone or None})


def revision_shown(field: str, kept: str, *, viewer_zone: dt.tzinfo) -> str:
    """A revision's before or after as a person reads it (the card page, the admin): its words, or for an
    event's corrected time the day it names — in the event's own zone (else the viewer's), in the active
    language — never the ISO instants it keeps."""
    if field != "when":
        return kept
    if not kept:
        return gettext("undated")
    when = json.loads(kept)
    zone = zone_from_label(when["zone"]) if when.get("zone") else viewer_zone
    return date_shown(dt.datetime.fromisoformat(when["occurred_at"]), zone=zone, precision=when["precision"])


@transaction.atomic
def card_verify(*, card: Card, actor: User) -> Card:
    """"Still true": moves verified_at to now."""
    card = card_hold(card=card)
    if card.superseded_at is not None:
        raise NotCurrent(gettext("Only a current card can be confirmed; this one was superseded."),
                         superseded_by=card.superseded_by_id)
    card_stated_again(card, timezone.now())
    return card


@transaction.atomic
def card_retract(*, card: Card, actor: User, at=None) -> Card:
    """A multi-value state stops being true ("I no longer play tennis"): it is
    closed, not deleted."""
    if card.kind != CardKind.STATE or card.cardinality != Cardinality.MULTI:
        raise InvalidCard("Only multi-value states are retracted; single values are superseded by a new value.",
                          fields={"card": ["not a multi-value state"]})
    if card.superseded_at is not None:
        raise NotCurrent(gettext("This card is already closed."))
    at = at or timezone.now()
    Card.objects.filter(pk=card.pk, scope_id=card.scope_id).update(superseded_at=at)
    card.superseded_at = at
    return card


@transaction.atomic
def knowledge_rename(*, card: Card, actor: User, value: str, reason: str = "", consent: bool = False) -> Card:
    if card.kind != CardKind.KNOWLEDGE:
        raise InvalidCard("Only knowledge cards are renamed.", fields={"card": ["not a knowledge card"]})
    value = _clean_text(value, "value")
    content_screen(fields={"value": value, "reason": reason}, consent=consent)
    card = (Card.objects.select_for_update(of=("self",)).select_related("label")
            .get(pk=card.pk, scope_id=card.scope_id))
    CardRevision.objects.create(card=card, actor=actor, at=timezone.now(), field="value",
                                before=card.value, after=value, reason=reason[:300])
    card.value = value
    card.value_norm = value_key(value, card.text, card.object_id)
    Card.objects.filter(pk=card.pk, scope_id=card.scope_id).update(value=card.value, value_norm=card.value_norm,
                                                                   lexemes=_lexemes(card))
    embed_after_commit([(card.pk, card.scope_id)])
    return card


@transaction.atomic
def knowledge_merge(*, target: Card, others: list[Card], actor: User, text: str | None = None,
                    consent: bool = False) -> Card:
    """Fold knowledge cards into `target`: the others are closed and point to it,
    and the target's revisions say what was merged."""
    ids = [c.pk for c in others if c.pk != target.pk]
    # In the target's scope only: one shard on a cluster, and a card of another scope is not found, so refused.
    cards = list(Card.objects.select_for_update().filter(pk__in=[target.pk, *ids], scope_id=target.scope_id))
    found = {c.pk for c in cards}
    problems = [c.pk for c in cards if c.kind != CardKind.KNOWLEDGE or c.superseded_at is not None]
    problems += [pk for pk in [target.pk, *ids] if pk not in found]  # gone, or of another scope
    if problems:
        raise InvalidCard("Merge takes current knowledge cards of one scope.", fields={"cards": [str(problems)]})
    now = timezone.now()
    for other in (c for c in cards if c.pk != target.pk):
        Card.objects.filter(pk=other.pk, scope_id=other.scope_id).update(superseded_at=now, superseded_by=target)
        CardRevision.objects.create(card=target, actor=actor, at=now, field="merged",
                                    before=f"#{other.pk}", after=other.value or other.text)
    if text is not None:
        target = card_describe(card=target, actor=actor, text=text, reason="merge", consent=consent)
    return target


@transaction.atomic
def card_hold(*, card: Card, for_update: bool = False) -> Card:
    """The card as it stands now, its timeline locked until commit — or CardGone
    (404) if a forget committed since it was read. Forgetting takes the same lock
    (card_forget), so a change that holds the card never writes to, links to or
    re-reads a card deleted under it.

    Found by (id, scope_id), joined only with its label and scope (replicated tables): on a cluster that is
    one shard, which is what Citus asks of a locking read. Its subject and object (entities, distributed,
    and for a member possibly of another scope) are not joined: read on their own if a caller needs them."""
    timeline_lock(scope_id=card.scope_id, subject_id=card.subject_id, label=card.label)
    rows = Card.objects.select_related("label", "scope").filter(pk=card.pk, scope_id=card.scope_id)
    held = (rows.select_for_update(of=("self",)) if for_update else rows).first()
    if held is None:
        raise CardGone(gettext("That card was forgotten meanwhile."))
    return held


def event_update_refused(error: IntegrityError) -> ImmutableEvent | None:
    """The domain error for a write the write-once trigger refused, if it was that."""
    if getattr(error.__cause__, "sqlstate", None) == "23M01":
        return ImmutableEvent("That an event happened, when, to whom and what kind of event it was cannot "
                              "change; only a person's correction changes its description, or a date or place "
                              "said wrongly (POST /api/v1/cards/{id}/correct/).")
    return None


__all__ = ["CORRECTABLE", "Corrected", "card_hold", "card_describe", "event_correct", "when_revision",
           "revision_shown", "card_verify", "card_retract", "knowledge_rename", "knowledge_merge",
           "event_update_refused"]
