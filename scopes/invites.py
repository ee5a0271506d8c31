"""Invite links: `/invite/<secret>/` lets one person join a scope with a role.
Like agent tokens, only the secret's SHA-256 is stored and it is shown once."""

from __future__ import annotations

import datetime as dt
import hashlib
import secrets

from django.db import transaction
from django.utils import timezone

from core.errors import DomainError, InvalidInput

from .models import Invite, Membership, Role, Scope, User
from .relations import relation_key
from .services import membership_set

INVITE_DAYS = 7
# An invite never makes an owner: ownership is handed over by an owner, in person.
INVITE_ROLES = [Role.ADMIN, Role.MEMBER, Role.REVIEWER, Role.VIEWER]


class InviteRefused(DomainError):
    code = "invite_invalid"
    status = 404


def _digest(raw: str) -> str:
    return hashlib.sha256(raw.encode()).hexdigest()


@transaction.atomic
def invite_create(*, scope: Scope, role: str, created_by: User, relation: str = "",
                  days: int = INVITE_DAYS) -> tuple[Invite, str]:
    """The invite and its secret, which is shown once and never again. The caller
    has checked that `created_by` may manage the scope."""
    if role not in INVITE_ROLES:
        raise InvalidInput("An invite gives one of admin, member, reviewer or viewer.",
                           fields={"role": [f"must be one of {', '.join(INVITE_ROLES)}"]})
    if relation and relation_key(relation) is None:
        raise InvalidInput(f"{relation!r} is not a relation this memory knows.", fields={"relation": ["unknown relation"]})
    raw = secrets.token_urlsafe(32)
    invite = Invite.objects.create(scope=scope, role=role, relation=relation[:100], token_hash=_digest(raw),
                                   created_by=created_by, expires_at=timezone.now() + dt.timedelta(days=days))
    return invite, raw


def invite_open(raw: str) -> Invite:
    """The unused, unexpired invite behind a link; the same refusal for every other case."""
    invite = (Invite.objects.select_related("scope", "created_by")
              .filter(token_hash=_digest(raw), used_at__isnull=True, expires_at__gt=timezone.now()).first())
    if invite is None:
        raise InviteRefused("This invite link is not valid: it was used, it expired, or it never existed.")
    return invite


@transaction.atomic
def invite_accept(*, raw: str, user: User) -> Membership:
    """Joins `user` to the invite's scope with its role and spends the invite.
    Someone already in the scope keeps their role (an invite never demotes)."""
    # Locked and checked again: two people opening one link at once get one membership.
    invite = Invite.objects.select_for_update().filter(pk=invite_open(raw).pk, used_at__isnull=True).first()
    if invite is None:
        raise InviteRefused("This invite link was just used by someone else.")
    if Membership.objects.filter(scope_id=invite.scope_id, user=user).exists():
        raise InvalidInput("You are already a member of this scope.", fields={"invite": ["already a member"]})
    # The invite's relation is what the invitee is to the person who invited them.
    inviter = invite.created_by if Membership.objects.filter(scope_id=invite.scope_id,
                                                             user_id=invite.created_by_id).exists() else None
    membership = membership_set(scope=invite.scope, user=user, role=invite.role, relation=invite.relation or None,
                                relation_of=inviter)
    invite.used_by, invite.used_at = user, timezone.now()
    invite.save(update_fields=["used_by", "used_at"])
    return membership


def invite_revoke(*, invite: Invite) -> Invite:
    """An open invite stops working at once; the row stays as a record that it was made.
    The caller has checked that the person may manage the invite's scope."""
    now = timezone.now()
    Invite.objects.filter(pk=invite.pk, used_at__isnull=True, expires_at__gt=now).update(expires_at=now)
    invite.refresh_from_db(fields=["expires_at"])
    return invite


def invites_open(*, scope: Scope):
    return (Invite.objects.filter(scope=scope, used_at__isnull=True, expires_at__gt=timezone.now())
            .select_related("created_by").order_by("-created_at"))
