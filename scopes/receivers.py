"""What the ladder's services do when its models say something (scopes.signals); connected in ScopesConfig.ready."""

from __future__ import annotations

from .models import User
from .services import user_setup


def user_setup_on_create(sender, *, user: User, **kwargs) -> None:
    """Every user gets their personal scope (and what the apps above give, user_set_up) as they are created."""
    user_setup(user=user)
