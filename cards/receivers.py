"""What the card store does when the ladder below tells it something (scopes.signals) and how it reads the
refusal of a rule it keeps in the database (core.signals); connected in CardsConfig.ready."""

from __future__ import annotations

from django.db import IntegrityError

from core.errors import DomainError
from scopes.models import Scope, User

from .services.corrections import event_update_refused
from .services.entities import member_look_alikes_propose, person_entity_ensure


def event_update_refused_read(sender, *, error: IntegrityError, **kwargs) -> DomainError | None:
    """The write-once trigger on events is the card domain's rule: its refusal, read as ours."""
    return event_update_refused(error)


def person_entity_give(sender, *, user: User, scope: Scope, **kwargs) -> None:
    """Every new user gets their own person entity, in their personal scope."""
    person_entity_ensure(user=user, scope=scope)


def member_look_alikes_on_join(sender, *, scope: Scope, user: User, **kwargs) -> None:
    """Someone joining a scope may already be there under a name someone wrote."""
    member_look_alikes_propose(scope=scope, user=user)
