"""Corrections after a card is written: describe, verify, retract, knowledge
merge/rename. Forgetting is services/forget.py."""

from __future__ import annotations

from django.db import IntegrityError, transaction
from django.utils import timezone
from django.utils.translation import gettext

from scopes.models import User

from ..errors import CardGone, ImmutableEvent, InvalidCard, NotCurrent
from ..words.lexical import card_lexemes
from ..models import Card, CardKind, CardRevision, Cardinality, Entity
from ..screen import content_screen
from ..text import text_in
from .embedding import embed_after_commit
from .remember import card_stated_again
from .write_plan import timeline_lock, value_key

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
                              "change; only its description can be corrected.")
    return None


__all__ = ["card_hold", "card_describe", "card_verify", "card_retract", "knowledge_rename", "knowledge_merge",
           "event_update_refused"]
