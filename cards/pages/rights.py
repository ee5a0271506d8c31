"""What a person may do in a scope, for the buttons a card page offers."""

from __future__ import annotations

from scopes.models import Scope


def may(principal, scope_id: int, action: str) -> bool:
    return Scope.objects.visible_to(principal, action).filter(pk=scope_id).exists()
