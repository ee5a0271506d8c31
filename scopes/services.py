"""Writes on scopes and memberships. Guardian grants follow the role and are
never edited by hand."""

from __future__ import annotations

from django.contrib.auth.models import Permission
from django.contrib.contenttypes.models import ContentType
from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from .errors import InvalidLadder, LastOwner, NotAMember
from .guardians import minor_check, minor_role_check
from .relations import relation_set, relations_forget_member
from .sharing import shares_forget_member
from .members import owner_change_check, shared_scope_check
from .models import (KIND_NAMES, ROLE_PERMISSIONS, AgentToken, Invitation, InvitationStatus, Membership, Role, Scope,
                     ScopeKind, ScopeUserObjectPermission, User)
from .signals import member_joined, user_set_up


def _permission_ids(codenames: tuple[str, ...]) -> list[int]:
    content_type = ContentType.objects.get_for_model(Scope)
    return list(Permission.objects.filter(content_type=content_type, codename__in=codenames)
                .values_list("id", flat=True))


@transaction.atomic
def user_setup(*, user: User) -> Scope:
    """Everything a user starts with, created on first call: their personal
    scope, then what each app above gives a new user (signals.user_set_up). Idempotent."""
    scope = personal_scope_ensure(user=user)
    user_set_up.send(sender=User, user=user, scope=scope)
    return scope


@transaction.atomic
def personal_scope_ensure(*, user: User) -> Scope:
    """The user's personal scope, created on first call."""
    scope, created = Scope.objects.get_or_create(
        owner=user, kind=ScopeKind.PERSONAL, defaults={"name": f"{user.shown_name} — personal"})
    if created:
        membership_set(scope=scope, user=user, role=Role.OWNER)
    return scope


def global_scope_get() -> Scope:
    """The one `global` scope (common sense). Migration 0007 creates it on every
    install; getting it here still creates it if someone deleted it, so no caller
    meets a missing scope."""
    scope, _created = Scope.objects.get_or_create(kind=ScopeKind.GLOBAL, defaults={"name": "Common sense"})
    return scope


@transaction.atomic
def scope_create(*, name: str, kind: str, creator: User, parent: Scope | None = None) -> Scope:
    if kind in (ScopeKind.PERSONAL, ScopeKind.GLOBAL):
        raise InvalidLadder(_("A %(kind)s scope cannot be created by hand.") % {"kind": KIND_NAMES.get(kind, kind)})
    minor_check(creator, "scopes")
    scope = Scope(name=name, kind=kind, parent=parent)
    try:
        scope.full_clean()
    except ValidationError as error:
        raise InvalidLadder("; ".join(m for ms in error.message_dict.values() for m in ms)) from error
    scope.save()
    membership_set(scope=scope, user=creator, role=Role.OWNER)
    return scope


@transaction.atomic
def membership_set(*, scope: Scope, user: User, role: str, relation: str | None = None,
                   relation_of: User | None = None) -> Membership:
    """Add a member or change their role, keeping guardian grants in step; with
    `relation` (and `relation_of`, whom it is relative to), what they are to that member."""
    membership = Membership.objects.select_for_update().filter(scope=scope, user=user).first()
    if membership and membership.role == Role.OWNER and role != Role.OWNER:
        _refuse_if_last_owner(scope=scope)
    joined = membership is None
    if joined:
        membership = Membership(scope=scope, user=user, role=role)
    else:
        minor_role_check(membership, role)
        membership.role = role
    membership.full_clean(exclude=["user", "scope"])
    membership.save()
    if joined and scope.kind not in (ScopeKind.PERSONAL, ScopeKind.GLOBAL):
        member_joined.send(sender=Membership, scope=scope, user=user)
    ScopeUserObjectPermission.objects.filter(content_object=scope, user=user).delete()
    ScopeUserObjectPermission.objects.bulk_create(
        ScopeUserObjectPermission(content_object=scope, user=user, permission_id=pid)
        for pid in _permission_ids(ROLE_PERMISSIONS[role]))
    if not joined:
        _invitations_withdraw_beyond(scope=scope, user=user, role=role)
    if relation and relation_of is None:
        raise ValueError("a relation is relative to another member: give relation_of")
    if relation and relation_of.pk != user.pk:
        relation_set(scope=scope, member=user, of=relation_of, relation=relation)
    return membership


@transaction.atomic
def membership_remove(*, scope: Scope, user: User) -> None:
    membership = Membership.objects.select_for_update().filter(scope=scope, user=user).first()
    if membership is None:
        return
    if membership.role == Role.OWNER:
        _refuse_if_last_owner(scope=scope)
    membership.delete()
    relations_forget_member(scope=scope, user=user)
    shares_forget_member(scope=scope, user_id=user.pk)
    ScopeUserObjectPermission.objects.filter(content_object=scope, user=user).delete()
    _invitations_withdraw_beyond(scope=scope, user=user, role=None)
    # A token named for the scope forgets it: joining again later must not revive an old agent's reach.
    AgentToken.scopes.through.objects.filter(agenttoken__user=user, scope=scope).delete()


@transaction.atomic
def member_change(*, principal, scope: Scope, membership: Membership, role: str,
                  relation: str | None = None) -> Membership:
    """What a manager's "this member is now `role`" (and, with `relation`, what
    they are to the manager) does, from the API and the dashboard alike, after
    checking the principal may manage `scope`: never asked by a minor, and owners
    are made or unmade only by an owner."""
    minor_check(principal.user, "members")
    changed = role != membership.role
    owner_change_check(principal, scope, role if changed else None, membership.role if changed else None)
    return membership_set(scope=scope, user=membership.user, role=role, relation=relation,
                          relation_of=principal.user)


def member_remove_check(*, principal, scope: Scope, membership: Membership) -> None:
    """Whether the principal (who may manage `scope`) may remove this member: a
    minor removes nobody, and only an owner removes an owner."""
    minor_check(principal.user, "members")
    owner_change_check(principal, scope, membership.role)


@transaction.atomic
def member_remove(*, principal, scope: Scope, membership: Membership) -> None:
    member_remove_check(principal=principal, scope=scope, membership=membership)
    membership_remove(scope=scope, user=membership.user)


@transaction.atomic
def membership_leave(*, scope: Scope, user: User) -> None:
    """`user` leaves `scope` of their own accord: every member may, but the last
    owner (membership_remove refuses that), a minor from a family (their
    guardians decide), and only from a shared scope."""
    shared_scope_check(scope)
    if scope.kind == ScopeKind.FAMILY:
        minor_check(user, "leaving")
    if not Membership.objects.filter(scope=scope, user=user).exists():
        raise NotAMember(_("You are not a member of this scope."))
    membership_remove(scope=scope, user=user)


def _invitations_withdraw_beyond(*, scope: Scope, user: User, role: str | None) -> None:
    """An open invitation stands on its inviter's right to make it: a member who
    can no longer manage the scope (or is no longer an owner, for an owner's
    invitation) takes back what they asked."""
    opened = Invitation.objects.filter(scope=scope, invited_by=user, status=InvitationStatus.INVITED)
    if role is not None and "manage_scope" in ROLE_PERMISSIONS[role]:
        if role == Role.OWNER:
            return
        opened = opened.filter(role=Role.OWNER)
    opened.update(status=InvitationStatus.WITHDRAWN, decided_at=timezone.now())


def _refuse_if_last_owner(*, scope: Scope) -> None:
    owners = Membership.objects.select_for_update().filter(scope=scope, role=Role.OWNER)
    if len(owners) <= 1:
        raise LastOwner(_("A scope must keep at least one owner; make someone else owner first."))
