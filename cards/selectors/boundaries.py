"""A person's boundaries: what they asked every agent never to do ("please don't call me
before 9", "keep my address private", 不要跟別人提…). A boundary is a current card tagged
`boundary` about the person, of any kind (extraction files one as a `note`). The context block
carries them before memories and never cuts them; MEMORY.md lists them under Boundaries."""

from __future__ import annotations

from django.utils import timezone

from ..models import Card, Tag
from ..valid_time import valid_q
from .shape import cards_out


# A bound on what a block always carries: far more than a person states, never a whole table.
MOST = 100


def boundaries_of(*, user, me_id: int | None, scope_ids: list[int]) -> list[dict]:
    """The current boundaries about `me_id` in these scopes (already the reader's visible ones),
    oldest first so a block reads the same from call to call; shaped for `user`."""
    if me_id is None:
        return []
    ids = (Card.objects.in_scopes(scope_ids).filter(tag=Tag.BOUNDARY, subject_id=me_id)
           .filter(valid_q(timezone.now())).order_by("effective_at", "id").values_list("id", flat=True)[:MOST])
    return cards_out(list(ids), user=user)
