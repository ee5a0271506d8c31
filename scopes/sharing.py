"""Sharing by the person's choice (DESIGN §3): which labels of their own personal
cards a member lets a family or team they belong to read. The writes and the
person's own view of them; which cards a reader then sees is the reads' to say.

Label keys are text here: the ladder sits below the cards app, so the caller (the
API, the pages) checks each key against the label registry before it comes here."""

from __future__ import annotations

from django.db import transaction
from django.utils.translation import gettext as _

from core.errors import NotAllowed

from .errors import NotAMember, NotFamilyOrTeam
from .models import Membership, Scope, ScopeKind, Share
from .principals import Principal

# The scopes one shares with: a household and a team are people who know each other.
SHARED_WITH = (ScopeKind.FAMILY, ScopeKind.TEAM)


def sharing_person_check(principal: Principal) -> None:
    """Sharing is a person's act, like managing members: an agent token never changes it."""
    if principal.is_agent:
        raise NotAllowed(_("Sharing is chosen by a signed-in person, not an agent token."))


def sharing_scopes(*, principal: Principal) -> list[Scope]:
    """The families and teams the person belongs to now, by id: where they may share."""
    return list(Scope.objects.visible_to(principal, "view")
                .filter(kind__in=SHARED_WITH, memberships__user_id=principal.user.pk).order_by("id"))


def sharing_of(*, principal: Principal) -> list[dict]:
    """{"scope": id, "labels": [key…]} for every family and team the person belongs to now, by scope id,
    those with nothing shared too (labels: []): the answer lists where they may share."""
    sharing_person_check(principal)
    scopes = sharing_scopes(principal=principal)
    shared: dict[int, list[str]] = {scope.pk: [] for scope in scopes}
    rows = (Share.objects.in_scopes(list(shared)).filter(owner_id=principal.user.pk)
            .order_by("label_key").values_list("scope_id", "label_key"))
    for scope_id, key in rows:
        shared[scope_id].append(key)
    return [{"scope": scope_id, "labels": keys} for scope_id, keys in shared.items()]


@transaction.atomic
def sharing_set(*, principal: Principal, scope: Scope, labels: list[str]) -> list[str]:
    """The person's shared labels with `scope` (already checked visible) become `labels`
    (registry keys, checked by the caller); the keys kept, sorted. An empty list shares nothing.
    A scope that is no family or team is 400 `not_family_or_team`; one they are not a member of
    now is as absent as a scope they cannot see (404)."""
    sharing_person_check(principal)
    if scope.kind not in SHARED_WITH:
        raise NotFamilyOrTeam(_("You share with a family or a team you belong to; this scope is %(kind)s.")
                              % {"kind": scope.kind_name}, fields={"scope": [_("not a family or team")]})
    user_id = principal.user.pk
    # Locked as membership_remove locks it: a share never outlives a leaving that commits beside it.
    if not list(Membership.objects.in_scopes([scope.pk]).select_for_update().filter(user_id=user_id)
                .values_list("pk", flat=True)):
        raise NotAMember(_("You are not a member of this scope."))
    keys = sorted(set(labels))
    mine = Share.objects.in_scopes([scope.pk]).filter(owner_id=user_id)
    mine.exclude(label_key__in=keys).delete()
    kept = set(mine.values_list("label_key", flat=True))
    Share.objects.bulk_create([Share(scope=scope, owner_id=user_id, label_key=key) for key in keys if key not in kept],
                              ignore_conflicts=True)
    return keys


def shares_forget_member(*, scope: Scope, user_id: int) -> None:
    """Leaving (or being removed from) a scope ends the leaver's shares there: joining again starts with none."""
    Share.objects.in_scopes([scope.pk]).filter(owner_id=user_id).delete()
