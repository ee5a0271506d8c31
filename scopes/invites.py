"""Joining a scope by consent (DESIGN §3), the two ways in:

- an invitation by name (`Invitation`): a manager asks for a username; the
  person accepts or declines from their home page or the API, and only on
  accepting becomes a member (grants, relation, the join steps). A name no one
  has answers the same and stores a row that can never be accepted;
- an invite link (`Invite`): `/invite/<secret>/` lets whoever holds it join
  with a role. Like agent tokens, only the secret's SHA-256 is stored and it is
  shown once; opening the link and choosing to join is the consent.

Both join through `_join`, so a relation given when inviting is applied the same way."""

from __future__ import annotations

import datetime as dt
import secrets

from django.db import transaction
from django.http import Http404
from django.utils import timezone
from django.utils.translation import gettext as _

from core.errors import DomainError, InvalidInput

from .errors import InvitationGone
from .guardians import minor_check
from .members import owner_change_check, shared_scope_check
from .models import Invitation, InvitationStatus, Invite, Membership, Role, Scope, User
from .relations import relation_words_checked
from .services import membership_set
from .tokens import secret_digest

INVITE_DAYS = 7
# An invite never makes an owner: ownership is handed over by an owner, in person.
INVITE_ROLES = [Role.ADMIN, Role.MEMBER, Role.REVIEWER, Role.VIEWER]


class InviteRefused(DomainError):
    code = "invite_invalid"
    status = 404


def _join(*, scope: Scope, user: User, role: str, relation: str, inviter: User) -> Membership:
    """`user` becomes a member: grants, the join steps (look-alikes proposed for
    merging) and, when the inviter still belongs, what `user` is to them."""
    if not relation or not Membership.objects.filter(scope=scope, user_id=inviter.pk).exists():
        return membership_set(scope=scope, user=user, role=role)
    return membership_set(scope=scope, user=user, role=role, relation=relation, relation_of=inviter)


@transaction.atomic
def invite_create(*, scope: Scope, role: str, created_by: User, relation: str = "",
                  days: int = INVITE_DAYS) -> tuple[Invite, str]:
    """The invite and its secret, which is shown once and never again. The caller
    has checked that `created_by` may manage the scope; a minor makes none."""
    minor_check(created_by, "invite links")
    if role not in INVITE_ROLES:
        raise InvalidInput(_("An invite gives one of admin, member, reviewer or viewer."),
                           fields={"role": [_("must be one of %(roles)s") % {"roles": ", ".join(INVITE_ROLES)}]})
    # In the inviter's words, whatever they are: checked now (length), bound to a meaning on joining.
    relation = relation_words_checked(relation, required=False)
    raw = secrets.token_urlsafe(32)
    invite = Invite.objects.create(scope=scope, role=role, relation=relation, token_hash=secret_digest(raw),
                                   created_by=created_by, expires_at=timezone.now() + dt.timedelta(days=days))
    return invite, raw


def invite_open(raw: str) -> Invite:
    """The unused, unexpired invite behind a link; the same refusal for every other case."""
    invite = (Invite.objects.select_related("scope", "created_by")
              .filter(token_hash=secret_digest(raw), used_at__isnull=True, expires_at__gt=timezone.now()).first())
    if invite is None:
        raise InviteRefused(_("This invite link is not valid: it was used, it expired, or it never existed."))
    return invite


@transaction.atomic
def invite_accept(*, raw: str, user: User) -> Membership:
    """Joins `user` to the invite's scope with its role and spends the invite.
    Someone already in the scope keeps their role (an invite never demotes)."""
    # Locked and checked again: two people opening one link at once get one membership.
    invite = Invite.objects.select_for_update().filter(pk=invite_open(raw).pk, used_at__isnull=True).first()
    if invite is None:
        raise InviteRefused(_("This invite link was just used by someone else."))
    if Membership.objects.filter(scope_id=invite.scope_id, user=user).exists():
        raise InvalidInput(_("You are already a member of this scope."), fields={"invite": [_("already a member")]})
    membership = _join(scope=invite.scope, user=user, role=invite.role, relation=invite.relation,
                       inviter=invite.created_by)
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


# --- invitations by name ----------------------------------------------------------------

@transaction.atomic
def member_invite_or_change(*, principal, scope: Scope, username: str, role: str,
                            relation: str | None = None) -> Membership | Invitation:
    """What a manager's "add `username` as `role`" does. A member already: their
    role (and relation to the asker) change at once, as before — they consented
    when they joined. Anyone else: an invitation, whether or not the name
    exists, so the answer says nothing about who has an account. The API and
    the dashboard both call this, after checking the principal may manage `scope`.
    A minor does neither."""
    minor_check(principal.user, "members")
    shared_scope_check(scope)
    said = relation_words_checked(relation, required=False)
    existing = Membership.objects.filter(scope=scope, user__username=username).select_related("user").first()
    owner_change_check(principal, scope, role, existing and existing.role)
    if existing is not None:
        return membership_set(scope=scope, user=existing.user, role=role, relation=said or None,
                              relation_of=principal.user)
    return invitation_create(scope=scope, username=username, role=role, relation=said, invited_by=principal.user)


@transaction.atomic
def invitation_create(*, scope: Scope, username: str, role: str, invited_by: User, relation: str = "") -> Invitation:
    """The open invitation of `username` to `scope`, made or (asked again) updated:
    one per name and scope. The caller has checked the asker's rights."""
    # Two managers inviting one name at once: the second waits and updates the first's row.
    # FOR NO KEY UPDATE: card writes in the scope (which take a key-share lock on it) go on.
    list(Scope.objects.select_for_update(no_key=True).filter(pk=scope.pk).values_list("pk"))
    invitee = User.objects.filter(username=username).first()
    invitation = Invitation.objects.filter(scope=scope, username=username, status=InvitationStatus.INVITED).first()
    if invitation is None:
        invitation = Invitation(scope=scope, username=username)
    invitation.invitee, invitation.role, invitation.relation = invitee, role, relation
    invitation.invited_by = invited_by
    invitation.save()
    return invitation


def _open_for_update(invitation: Invitation, *, invitee: User | None = None) -> Invitation:
    """The invitation locked, if still open (and still `invitee`'s): answered or withdrawn meanwhile is refused."""
    rows = Invitation.objects.select_for_update().filter(pk=invitation.pk, status=InvitationStatus.INVITED)
    if invitee is not None:
        rows = rows.filter(invitee=invitee)
    locked = rows.select_related("scope", "invited_by").first()
    if locked is None:
        raise InvitationGone(_("This invitation was already answered or withdrawn."))
    return locked


def _decided(invitation: Invitation, status: str) -> Invitation:
    invitation.status, invitation.decided_at = status, timezone.now()
    invitation.save(update_fields=["status", "decided_at"])
    return invitation


@transaction.atomic
def invitation_accept(*, invitation: Invitation, user: User) -> Membership:
    """`user` accepts their invitation: only now do they become a member, with
    its role and relation. Someone who joined meanwhile (by a link) keeps their
    role: accepting never demotes."""
    invitation = _open_for_update(invitation, invitee=user)
    membership = Membership.objects.filter(scope_id=invitation.scope_id, user=user).first()
    if membership is None:
        membership = _join(scope=invitation.scope, user=user, role=invitation.role, relation=invitation.relation,
                           inviter=invitation.invited_by)
    _decided(invitation, InvitationStatus.ACCEPTED)
    return membership


@transaction.atomic
def invitation_decline(*, invitation: Invitation, user: User) -> Invitation:
    """`user` says no: nothing of the scope ever reached them, and nothing does now."""
    return _decided(_open_for_update(invitation, invitee=user), InvitationStatus.DECLINED)


@transaction.atomic
def invitation_withdraw(*, invitation: Invitation) -> Invitation:
    """A manager takes an open invitation back. The caller has checked they may manage its scope."""
    return _decided(_open_for_update(invitation), InvitationStatus.WITHDRAWN)


def invitations_open(*, scope: Scope):
    """A scope's open invitations, for its managers: by the name asked for, never
    by the account behind it (which would tell which names exist)."""
    return (Invitation.objects.in_scopes([scope.pk]).filter(status=InvitationStatus.INVITED)
            .select_related("invited_by").order_by("-created_at"))


def invitation_open_get(*, scope: Scope, invitation_id: int) -> Invitation:
    """One of the scope's open invitations, for its managers (checked by the
    caller); answered, withdrawn or another scope's is the same 404."""
    invitation = invitations_open(scope=scope).filter(pk=invitation_id).first()
    if invitation is None:
        raise Http404
    return invitation
