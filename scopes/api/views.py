"""Scopes, members and agent tokens."""

from __future__ import annotations

from django.db import transaction
from django.http import Http404
from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.exceptions import PermissionDenied
from rest_framework.permissions import BasePermission
from rest_framework.response import Response
from rest_framework.views import APIView

from core.api.common import Page
from core.api.errors import error_responses
from core.errors import InvalidInput

from ..members import owner_change_check
from ..models import AgentToken, Membership, Scope
from ..principals import principal_of
from ..selectors import scope_get, scope_list
from ..services import member_add_or_change, membership_remove, membership_set, scope_create
from ..tokens import token_create, token_revoke
from .serializers import (MemberIn, MemberOut, MemberPatchIn, ScopeIn, ScopeOut, TokenCreatedOut, TokenIn,
                          TokenOut)


def _scope_out(principal, scope_id: int) -> dict:
    return ScopeOut(scope_list(principal=principal).get(pk=scope_id)).data


class ScopeListCreate(APIView):
    @extend_schema(responses={200: ScopeOut(many=True), **error_responses(401)}, summary="Scopes you can see")
    def get(self, request):
        principal = principal_of(request)
        paginator = Page()
        page = paginator.paginate_queryset(scope_list(principal=principal), request, view=self)
        return paginator.get_paginated_response(ScopeOut(page, many=True).data)

    @extend_schema(request=ScopeIn, responses={201: ScopeOut, **error_responses(400, 401, 403, 404)},
                   summary="Create a scope (you become its owner); a parent needs your manage right")
    def post(self, request):
        data = ScopeIn(data=request.data)
        data.is_valid(raise_exception=True)
        principal = principal_of(request)
        if principal.token is not None and not principal.token.can_write:
            raise PermissionDenied("A read-only token cannot create scopes.")
        with transaction.atomic():
            parent = None
            if data.validated_data["parent"] is not None:
                parent = scope_get(principal=principal, scope_id=data.validated_data["parent"], action="manage")
            scope = scope_create(name=data.validated_data["name"], kind=data.validated_data["kind"],
                                 creator=principal.user, parent=parent)
            if principal.token is not None and not principal.token.all_scopes:
                principal.token.scopes.add(scope)  # the agent that made it may use it
        return Response(_scope_out(principal, scope.pk), status=status.HTTP_201_CREATED)


class ScopeDetail(APIView):
    @extend_schema(responses={200: ScopeOut, **error_responses(401, 404)}, summary="One scope")
    def get(self, request, scope_id: int):
        principal = principal_of(request)
        scope = scope_get(principal=principal, scope_id=scope_id)
        return Response(_scope_out(principal, scope.pk))


class ScopeMembers(APIView):
    @extend_schema(responses={200: MemberOut(many=True), **error_responses(401, 404)}, summary="Members of a scope")
    def get(self, request, scope_id: int):
        principal = principal_of(request)
        scope = scope_get(principal=principal, scope_id=scope_id)
        members = (Membership.objects.visible_to(principal, "view").filter(scope=scope).select_related("user")
                   .order_by("id"))
        return Response({"results": MemberOut(members, many=True, context={"viewer": request.user}).data, "next": None})

    @extend_schema(request=MemberIn, responses={201: MemberOut, 200: MemberOut, **error_responses(400, 401, 403, 404)},
                   summary="Add a member, or change an existing member's role (admins); roles keep permissions in step")
    def post(self, request, scope_id: int):
        data = MemberIn(data=request.data)
        data.is_valid(raise_exception=True)
        principal = principal_of(request)
        with transaction.atomic():
            scope = scope_get(principal=principal, scope_id=scope_id, action="manage")
            membership, added = member_add_or_change(
                principal=principal, scope=scope, username=data.validated_data["username"],
                role=data.validated_data["role"], relation=data.validated_data["relation"])
        return Response(MemberOut(membership, context={"viewer": request.user}).data,
                        status=status.HTTP_201_CREATED if added else status.HTTP_200_OK)


class ScopeMember(APIView):
    def _membership(self, scope: Scope, username: str) -> Membership:
        if "\x00" in username:  # no username has one, and PostgreSQL refuses to compare it
            raise Http404
        membership = (Membership.objects.in_scopes([scope.pk]).filter(user__username=username).select_related("user")
                      .first())
        if membership is None:
            raise Http404
        return membership

    @extend_schema(request=MemberPatchIn, responses={200: MemberOut, **error_responses(400, 401, 403, 404, 409)},
                   summary="Change a member's role or relation (admins)")
    def patch(self, request, scope_id: int, username: str):
        data = MemberPatchIn(data=request.data)
        data.is_valid(raise_exception=True)
        principal = principal_of(request)
        with transaction.atomic():
            scope = scope_get(principal=principal, scope_id=scope_id, action="manage")
            membership = self._membership(scope, username)
            role = data.validated_data.get("role", membership.role)
            owner_change_check(principal, scope, role if role != membership.role else None,
                                membership.role if role != membership.role else None)
            membership = membership_set(scope=scope, user=membership.user, role=role,
                                        relation=data.validated_data.get("relation"), relation_of=principal.user)
        return Response(MemberOut(membership, context={"viewer": request.user}).data)

    @extend_schema(responses={204: None, **error_responses(401, 403, 404, 409)},
                   summary="Remove a member (admins), or leave a scope yourself")
    def delete(self, request, scope_id: int, username: str):
        principal = principal_of(request)
        with transaction.atomic():
            leaving = username == principal.user.username and principal.token is None
            scope = scope_get(principal=principal, scope_id=scope_id, action="view" if leaving else "manage")
            membership = self._membership(scope, username)
            owner_change_check(principal, scope, membership.role)
            membership_remove(scope=scope, user=membership.user)
        return Response(status=status.HTTP_204_NO_CONTENT)


class SignedInPerson(BasePermission):
    """Tokens are managed by people, never by another token."""

    message = "Agent tokens are managed from a signed-in session, not with a token."

    def has_permission(self, request, view) -> bool:
        return bool(request.user and request.user.is_authenticated and not isinstance(request.auth, AgentToken))


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


class TokenListCreate(APIView):
    permission_classes = [SignedInPerson]

    @extend_schema(responses={200: TokenOut(many=True), **error_responses(401, 403)}, summary="Your agent tokens")
    def get(self, request):
        tokens = AgentToken.objects.filter(user=request.user).prefetch_related("scopes").order_by("-id")
        paginator = Page()
        page = paginator.paginate_queryset(tokens, request, view=self)
        return paginator.get_paginated_response(TokenOut(page, many=True).data)

    @extend_schema(request=TokenIn, responses={201: TokenCreatedOut, **error_responses(400, 401, 403)},
                   summary="Create an agent token; the secret is in this response only")
    def post(self, request):
        data = TokenIn(data=request.data)
        data.is_valid(raise_exception=True)
        principal = principal_of(request)
        scopes, all_scopes = _token_scopes(principal, data.validated_data["scopes"])
        with transaction.atomic():
            token, raw = token_create(user=request.user, name=data.validated_data["name"],
                                      can_write=data.validated_data["access"] == "read+write", scopes=scopes,
                                      all_scopes=all_scopes, days=data.validated_data["days"])
        body = dict(TokenOut(token).data, token=raw)
        return Response(body, status=status.HTTP_201_CREATED)


class TokenDetail(APIView):
    permission_classes = [SignedInPerson]

    @extend_schema(responses={204: None, **error_responses(401, 403, 404)}, summary="Revoke a token, at once")
    def delete(self, request, token_id: int):
        token = AgentToken.objects.filter(user=request.user, pk=token_id).first()
        if token is None:
            raise Http404
        token_revoke(token=token)
        return Response(status=status.HTTP_204_NO_CONTENT)
