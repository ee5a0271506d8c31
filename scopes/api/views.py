"""Scopes, members and agent tokens."""

from __future__ import annotations

from django.db import transaction
from django.http import Http404
from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.response import Response

from core.api.common import Page, page_of
from core.api.errors import error_responses
from core.errors import InvalidInput

from ..archive import scope_archive, scope_restore
from ..guardians import member_minor_set
from ..invites import (invitation_accept, invitation_decline, invitation_open_get, invitation_withdraw,
                       invitations_open, member_invite_or_change)
from ..models import AgentToken, Invitation, Membership, Scope
from ..principals import scope_create_check
from ..selectors import invitation_waiting, invitations_waiting, scope_list
from ..services import member_change, member_remove, membership_leave, scope_create
from ..tokens import token_access_flags, token_create, token_get, token_revoke, tokens_of_wards
from .auth import SignedInPerson
from .entry import View
from .serializers import (InvitationCreatedOut, InvitationOut, InvitationPageOut, MemberIn, MemberOut, MemberPatchIn,
                          ScopeIn, ScopeListQuery, ScopeOut, TokenCreatedOut, TokenIn, TokenOut, WardTokenOut)


def _scope_out(principal, scope_id: int) -> dict:
    return ScopeOut(scope_list(principal=principal).get(pk=scope_id)).data


class ScopeListCreate(View):
    @extend_schema(operation_id="scopes_list", parameters=[ScopeListQuery],
                   responses={200: page_of(ScopeOut), **error_responses(400, 401)},
                   summary="Scopes you can see (`archived=true`: the archived projects)")
    def get(self, request):
        query = ScopeListQuery(data=request.query_params.dict())
        query.is_valid(raise_exception=True)
        principal = self.principal
        paginator = Page()
        page = paginator.paginate_queryset(scope_list(principal=principal, archived=query.validated_data["archived"]),
                                           request, view=self)
        return paginator.get_paginated_response(ScopeOut(page, many=True).data)

    @extend_schema(request=ScopeIn, responses={201: ScopeOut, **error_responses(400, 401, 403, 404)},
                   summary="Create a scope (you become its owner); a parent needs your manage right",
                   description="A person, or a read+write token over all of the person's scopes. A token limited "
                               "to some scopes gets 403 `permission_denied`: a new scope would be one it could "
                               "not see before.")
    def post(self, request):
        data = ScopeIn(data=request.data)
        data.is_valid(raise_exception=True)
        principal = self.principal
        scope_create_check(principal)
        with transaction.atomic():
            parent = None
            if data.validated_data["parent"] is not None:
                parent = self.scope_named(data.validated_data["parent"], action="manage")
            scope = scope_create(name=data.validated_data["name"], kind=data.validated_data["kind"],
                                 creator=principal.user, parent=parent)
        return Response(_scope_out(principal, scope.pk), status=status.HTTP_201_CREATED)


class ScopeDetail(View):
    scope_actions = {"GET": "view"}

    @extend_schema(responses={200: ScopeOut, **error_responses(401, 404)}, summary="One scope")
    def get(self, request, scope_id: int):
        return Response(_scope_out(self.principal, self.scope.pk))


ARCHIVE_RULES = ("Project scopes only (others: 400 `not_a_project`); an owner of the project, signed in (an admin "
                 "or an agent token: 403 `permission_denied`). ")


class ScopeArchive(View):
    """POST archives a project; ScopeRestore, the same way, restores it."""

    scope_actions = {"POST": "manage"}

    @extend_schema(request=None, responses={200: ScopeOut, **error_responses(400, 401, 403, 404)},
                   summary="Archive a project: read-only, left out of default reads (owners, signed in)",
                   description=ARCHIVE_RULES + "While archived, every write, proposal and review there answers "
                               "403 `scope_archived` and writes nothing; forgetting still works. Recall, context, "
                               "ask, answer and count read it only when it is the `scope` named. Archiving an "
                               "archived project changes nothing.")
    def post(self, request, scope_id: int):
        return self._act(request, scope_id, scope_archive)

    def _act(self, request, scope_id: int, service):
        with transaction.atomic():
            service(principal=self.principal, scope=self.scope)
        return Response(_scope_out(self.principal, self.scope.pk))


class ScopeRestore(ScopeArchive):
    @extend_schema(request=None, responses={200: ScopeOut, **error_responses(400, 401, 403, 404)},
                   summary="Restore an archived project as it was (owners, signed in)",
                   description=ARCHIVE_RULES + "Restoring an active project changes nothing.")
    def post(self, request, scope_id: int):
        return self._act(request, scope_id, scope_restore)


class ScopeMembers(View):
    scope_actions = {"GET": "view"}  # POST validates its body first

    @extend_schema(responses={200: page_of(MemberOut), **error_responses(401, 404)}, summary="Members of a scope")
    def get(self, request, scope_id: int):
        members = (Membership.objects.visible_to(self.principal, "view").filter(scope=self.scope).select_related("user")
                   .order_by("id"))
        return Response({"results": MemberOut(members, many=True, context={"viewer": request.user}).data, "next": None})

    @extend_schema(request=MemberIn,
                   responses={201: InvitationCreatedOut, 200: MemberOut, **error_responses(400, 401, 403, 404)},
                   summary="Invite someone by username, or change an existing member's role (admins, signed in)",
                   description="Membership is by consent. For someone not yet a member: 201 with an invitation "
                               "(`status: invited`) they accept or decline at `/api/v1/invitations/`; until then "
                               "nothing of the scope reaches them or their tokens. The answer is the same whether "
                               "or not anyone has the name. For an existing member: 200 with the changed "
                               "membership. Agent tokens get 403: people manage members.")
    def post(self, request, scope_id: int):
        data = MemberIn(data=request.data)
        data.is_valid(raise_exception=True)
        principal = self.principal
        with transaction.atomic():
            scope = self.scope_named(scope_id, action="manage")
            result = member_invite_or_change(
                principal=principal, scope=scope, username=data.validated_data["username"],
                role=data.validated_data["role"], relation=data.validated_data["relation"])
        if isinstance(result, Invitation):
            return Response({"invitation": InvitationOut(result).data}, status=status.HTTP_201_CREATED)
        return Response(MemberOut(result, context={"viewer": request.user}).data)


class ScopeMember(View):
    def scope_action(self, request, **kwargs) -> str | None:
        # PATCH validates its body first; DELETE is leaving (view) when a person names themselves, else manage.
        if request.method != "DELETE":
            return None
        leaving = kwargs["username"] == self.principal.user.username and self.principal.token is None
        return "view" if leaving else "manage"

    def _membership(self, scope: Scope, username: str) -> Membership:
        if "\x00" in username:  # no username has one, and PostgreSQL refuses to compare it
            raise Http404
        membership = (Membership.objects.in_scopes([scope.pk]).filter(user__username=username).select_related("user")
                      .first())
        if membership is None:
            raise Http404
        return membership

    @extend_schema(request=MemberPatchIn, responses={200: MemberOut, **error_responses(400, 401, 403, 404, 409)},
                   summary="Change a member's role or relation (admins), or mark a family member as a minor "
                           "(owners)")
    def patch(self, request, scope_id: int, username: str):
        data = MemberPatchIn(data=request.data)
        data.is_valid(raise_exception=True)
        principal = self.principal
        wanted = data.validated_data
        with transaction.atomic():
            scope = self.scope_named(scope_id, action="manage")
            membership = self._membership(scope, username)
            # Unmark before a role change and mark after it: a minor is never an owner, even for a moment.
            if wanted.get("minor") is False:
                membership = member_minor_set(principal=principal, scope=scope, membership=membership, minor=False)
            if "role" in wanted or "relation" in wanted:
                membership = member_change(principal=principal, scope=scope, membership=membership,
                                           role=wanted.get("role", membership.role), relation=wanted.get("relation"))
            if wanted.get("minor") is True:
                membership = member_minor_set(principal=principal, scope=scope, membership=membership, minor=True)
        membership = self._membership(scope, username)
        return Response(MemberOut(membership, context={"viewer": request.user}).data)

    @extend_schema(responses={204: None, **error_responses(401, 403, 404, 409)},
                   summary="Remove a member (admins), or leave a scope yourself")
    def delete(self, request, scope_id: int, username: str):
        principal, scope = self.principal, self.scope
        with transaction.atomic():
            leaving = username == principal.user.username and principal.token is None
            membership = self._membership(scope, username)
            if leaving:
                membership_leave(scope=scope, user=membership.user)
            else:
                member_remove(principal=principal, scope=scope, membership=membership)
        return Response(status=status.HTTP_204_NO_CONTENT)


class ScopeLeave(View):
    permission_classes = [SignedInPerson]
    scope_actions = {"POST": "view"}

    @extend_schema(request=None, responses={204: None, **error_responses(400, 401, 403, 404, 409)},
                   summary="Leave a scope (signed in; any member but the last owner)",
                   description="Your membership, grants and relations there end at once, and your tokens forget "
                               "the scope. The last owner gets 409 `last_owner` (make someone else owner first); "
                               "a personal or the global scope, 400. Agent tokens get 403.")
    def post(self, request, scope_id: int):
        with transaction.atomic():
            membership_leave(scope=self.scope, user=request.user)
        return Response(status=status.HTTP_204_NO_CONTENT)


class ScopeInvitations(View):
    permission_classes = [SignedInPerson]
    scope_actions = {"GET": "manage"}

    @extend_schema(responses={200: InvitationPageOut, **error_responses(401, 403, 404)},
                   summary="A scope's open invitations (its admins, signed in)",
                   description="Who was invited and has not answered yet, newest first, by the name that was "
                               "asked for (never the account behind it: that would tell which names exist). "
                               "One page: `next` is null. Agent tokens get 403: people manage members.")
    def get(self, request, scope_id: int):
        waiting = invitations_open(scope=self.scope)[:100]
        return Response({"results": InvitationOut(waiting, many=True).data, "next": None})


class ScopeInvitationWithdraw(View):
    permission_classes = [SignedInPerson]
    scope_actions = {"POST": "manage"}

    @extend_schema(request=None, responses={200: InvitationOut, **error_responses(401, 403, 404, 409)},
                   summary="Withdraw an open invitation (the scope's admins, signed in)",
                   description="The invitation can no longer be accepted (`status: withdrawn`). One already "
                               "answered or withdrawn, or another scope's, is 404; one answered in the same "
                               "instant, 409 `invitation_gone`.")
    def post(self, request, scope_id: int, invitation_id: int):
        with transaction.atomic():
            invitation = invitation_withdraw(invitation=invitation_open_get(scope=self.scope,
                                                                            invitation_id=invitation_id))
        return Response(InvitationOut(invitation).data)


class InvitationList(View):
    permission_classes = [SignedInPerson]

    @extend_schema(responses={200: InvitationPageOut, **error_responses(401, 403)},
                   summary="Your open invitations (signed in)",
                   description="Invitations waiting for your answer, newest first (the 100 newest, on one "
                               "page: `next` is null): the scope's name and kind, who invited you, the role and "
                               "relation offered. Nothing else of the scope is yours until you accept.")
    def get(self, request):
        waiting = invitations_waiting(principal=self.principal)
        return Response({"results": InvitationOut(waiting, many=True).data, "next": None})


class InvitationAnswer(View):
    permission_classes = [SignedInPerson]
    accept = True

    @extend_schema(request=None, responses={200: InvitationOut, **error_responses(401, 403, 404, 409)},
                   summary="Accept (or decline) one of your invitations (signed in)",
                   description="Accepting makes you a member with the role offered (and the relation, towards "
                               "the person who invited you): the scope appears in your list and in your tokens "
                               "that cover all your scopes. Declining leaves you as you were. Someone else's "
                               "invitation is 404; one answered or withdrawn meanwhile, 409 `invitation_gone`.")
    def post(self, request, invitation_id: int):
        principal = self.principal
        with transaction.atomic():
            invitation = invitation_waiting(principal=principal, invitation_id=invitation_id)
            if self.accept:
                invitation_accept(invitation=invitation, user=request.user)
            else:
                invitation_decline(invitation=invitation, user=request.user)
            invitation.refresh_from_db(fields=["status"])
        return Response(InvitationOut(invitation).data)


def _token_scopes(principal, names: list[str]) -> tuple[list[Scope], bool]:
    if names == ["all"]:
        return [], True
    scopes, problems = [], []
    for name in names:
        if name == "personal":
            scopes.append(principal.user.personal_scope)
        elif name.isascii() and name.isdigit() and 0 < int(name) < 2**63:
            scope = Scope.objects.visible_to(principal, "view").filter(pk=int(name)).first()
            scopes.append(scope) if scope else problems.append(f"no scope {name} of yours")
        else:
            problems.append(f"{name!r} is not a scope id, 'personal' or 'all'")
    if problems:
        raise InvalidInput("Some scopes cannot be granted; see `fields`.", fields={"scopes": problems})
    return scopes, False


class TokenListCreate(View):
    permission_classes = [SignedInPerson]

    @extend_schema(responses={200: page_of(TokenOut), **error_responses(401, 403)}, summary="Your agent tokens")
    def get(self, request):
        tokens = AgentToken.objects.filter(user=request.user).prefetch_related("scopes").order_by("-id")
        paginator = Page()
        page = paginator.paginate_queryset(tokens, request, view=self)
        return paginator.get_paginated_response(TokenOut(page, many=True).data)

    @extend_schema(request=TokenIn, responses={201: TokenCreatedOut, **error_responses(400, 401, 403)},
                   summary="Create an agent token; the secret is in this response only",
                   description="A minor (marked so by an owner of their family) is refused with 403 "
                               "`minor_not_allowed`: their guardians look after their agents.")
    def post(self, request):
        data = TokenIn(data=request.data)
        data.is_valid(raise_exception=True)
        principal = self.principal
        scopes, all_scopes = _token_scopes(principal, data.validated_data["scopes"])
        with transaction.atomic():
            token, raw = token_create(user=request.user, name=data.validated_data["name"], scopes=scopes,
                                      all_scopes=all_scopes, days=data.validated_data["days"],
                                      **token_access_flags(data.validated_data["access"]))
        body = dict(TokenOut(token).data, token=raw)
        return Response(body, status=status.HTTP_201_CREATED)


class WardTokenList(View):
    permission_classes = [SignedInPerson]

    @extend_schema(responses={200: page_of(WardTokenOut), **error_responses(401, 403)},
                   summary="The agent tokens of the minors you look after",
                   description="The guardians of a minor are the owners of a family in which the minor is marked "
                               "as one; each sees the minor's tokens here and revokes them with "
                               "`DELETE /api/v1/tokens/{id}/`.")
    def get(self, request):
        paginator = Page()
        page = paginator.paginate_queryset(tokens_of_wards(guardian=request.user), request, view=self)
        return paginator.get_paginated_response(WardTokenOut(page, many=True).data)


class TokenDetail(View):
    permission_classes = [SignedInPerson]

    @extend_schema(responses={204: None, **error_responses(401, 403, 404)},
                   summary="Revoke a token, at once: your own, or one of a minor you look after")
    def delete(self, request, token_id: int):
        token_revoke(token=token_get(person=request.user, token_id=token_id))
        return Response(status=status.HTTP_204_NO_CONTENT)
