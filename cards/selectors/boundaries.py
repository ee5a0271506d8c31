"""A person's boundaries: what they asked every agent never to do ("please don't call me
before 9", "keep my address private", 不要跟別人提…). A boundary is a current card tagged
`boundary` about the person, of any kind but an event (extraction files one as a `note`).
The context block carries them before memories and never cuts them; the profile lists them;
MEMORY.md lists them under Boundaries."""

from __future__ import annotations

from django.db.models import Q, QuerySet
from django.utils import timezone

from ..models import Card, CardKind, Tag
from ..valid_time import valid_q
from .shape import cards_out

BOUNDARY = Q(tag=Tag.BOUNDARY) & ~Q(kind=CardKind.EVENT)
# A bound on what a block always carries: far more than a person states, never a whole table.
MOST = 100


def person_own(cards: QuerySet[Card], me_id: int) -> QuerySet[Card]:
    """Of `cards`, those about the person (or a name merged into them), said by the person themselves
    (or their agents), or guesses — labelled as guesses wherever shown — that no one's statement
    disputes. Another member's word about how to talk to someone, or what they must never be
    asked, is not theirs to set: what a person says about themselves wins (DESIGN §4 rule 7)."""
    about = cards.filter(Q(subject_id=me_id) | Q(subject__merged_into_id=me_id)).filter(disputes__isnull=True)
    return about.filter(Q(source_actor__entity__id=me_id) | Q(tag=Tag.HYPOTHESIS))


def boundaries_of(*, user, me_id: int | None, scope_ids: list[int]) -> list[dict]:
    """The current boundaries about `me_id` in these scopes (already the reader's visible ones),
    oldest first so a block reads the same from call to call; shaped for `user`."""
    if me_id is None:
        return []
    cards = person_own(Card.objects.in_scopes(scope_ids).filter(valid_q(timezone.now())), me_id)
    ids = cards.filter(BOUNDARY).order_by("effective_at", "id").values_list("id", flat=True)[:MOST]
    return cards_out(list(ids), user=user, scope_ids=scope_ids)
