"""Reads of one entity, through the principal: "does not exist" and "you may not
see it" are the same 404."""

from __future__ import annotations

from django.http import Http404
from rest_framework.exceptions import PermissionDenied

from scopes.models import Scope
from scopes.principals import Principal, scope_ids_for

from ..models import Entity


def entity_get(*, principal: Principal, entity_id: int, action: str = "view") -> Entity:
    entity = (Entity.objects.filter(pk=entity_id, scope_id__in=scope_ids_for(principal, "view"))
              .prefetch_related("aliases").first())
    if entity is None:
        raise Http404
    if action != "view" and not Scope.objects.visible_to(principal, action).filter(pk=entity.scope_id).exists():
        raise PermissionDenied(f"You may not {action} in this entity's scope.")
    return entity
