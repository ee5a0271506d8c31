"""Reads of one entity, through the principal: "does not exist" and "you may not
see it" are the same 404; and a user's own person entity, which reads and writes
both take."""

from __future__ import annotations

from django.db.models import Prefetch

from scopes.models import User
from scopes.principals import Principal
from scopes.visibility import row_get

from ..models import Alias, Entity


def entity_get(*, principal: Principal, entity_id: int, action: str = "view") -> Entity:
    """The entity if `principal` may view it (else 404) and `action` in its scope (else 403),
    with the names registered where the principal may look."""
    aliases = Prefetch("aliases", queryset=Alias.objects.visible_to(principal, "view"))
    return row_get(Entity.objects.prefetch_related(aliases), principal=principal, pk=entity_id, action=action)


def entity_of_user(user: User) -> Entity:
    # The OneToOne accessor caches on the user object: one query per actor, not per card.
    return user.entity
