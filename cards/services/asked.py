"""The agent's word that it put a card's check-in question to its person
(POST /api/v1/cards/{id}/asked/). The seed's "never ask the same confirmation
twice" holds from then on: retrieval leaves the question out of the context
while the card stands as it did. Nothing of the memory changes — the card is
neither confirmed nor doubted by being asked about."""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone

from scopes.models import User

from ..models import Card, CardAsked


@transaction.atomic
def card_asked(*, card: Card, user: User) -> CardAsked:
    """Record that `user` was asked about `card` as it stands (its verified_at).
    Idempotent: asked again about the same version, the first time is kept; a
    version confirmed or restated since is a new question, recorded anew."""
    now = timezone.now()
    record, created = CardAsked.objects.get_or_create(  # with the card's scope: one shard on a cluster
        scope_id=card.scope_id, card=card, user=user, defaults={"asked_at": now, "card_verified_at": card.verified_at})
    if not created and record.card_verified_at != card.verified_at:
        record.asked_at, record.card_verified_at = now, card.verified_at
        record.save(update_fields=["asked_at", "card_verified_at"])
    return record


__all__ = ["card_asked"]
