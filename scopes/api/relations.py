"""Relations between members, read from one side: PUT/GET/DELETE
/api/v1/scopes/{id}/relations/. People manage them, never an agent token: a
member may state relations they are a side of; a scope's admins, any."""

from __future__ import annotations

from django.db import transaction
from drf_spectacular.utils import extend_schema
from rest_framework.exceptions import PermissionDenied
from rest_framework.response import Response

from core.api.common import page_of
from core.api.errors import error_responses

from ..members import member_named
from ..principals import scope_ids_for
from ..relations import relation_remove, relation_set, relations_of
from .entry import View
from .serializers import RelationIn, RelationOut
from .views import SignedInPerson


def _pair(view, scope_id: int, data: dict):
    principal = view.principal
    scope = view.scope_named(scope_id)
    member, of = member_named(scope, data["member"], field="member"), member_named(scope, data["of"], field="of")
    if principal.user.pk not in (member.pk, of.pk) and not scope_ids_for(principal, "manage").filter(
            pk=scope.pk).exists():
        raise PermissionDenied("You may state relations you are part of; a scope's admins may state any.")
    return scope, member, of


class ScopeRelations(View):
    permission_classes = [SignedInPerson]
    scope_actions = {"GET": "view"}  # PUT and DELETE validate their body first

    @extend_schema(responses={200: page_of(RelationOut), **error_responses(401, 403, 404)},
                   summary="Relations between members, read from one side")
    def get(self, request, scope_id: int):
        return Response({"results": RelationOut(relations_of(scope=self.scope), many=True).data, "next": None})

    @extend_schema(request=RelationIn, responses={200: RelationOut, **error_responses(400, 401, 403, 404)},
                   summary='Say what one member is to another ("dana" is "kai"\'s "mother")')
    def put(self, request, scope_id: int):
        data = RelationIn(data=request.data)
        data.is_valid(raise_exception=True)
        with transaction.atomic():
            scope, member, of = _pair(self, scope_id, data.validated_data)
            row = relation_set(scope=scope, member=member, of=of, relation=data.validated_data.get("relation", ""))
        return Response(RelationOut(row).data)

    @extend_schema(request=RelationIn, responses={204: None, **error_responses(400, 401, 403, 404)},
                   summary="Remove a relation")
    def delete(self, request, scope_id: int):
        data = RelationIn(data=request.data)
        data.is_valid(raise_exception=True)
        with transaction.atomic():
            scope, member, of = _pair(self, scope_id, data.validated_data)
            relation_remove(scope=scope, member=member, of=of)
        return Response(status=204)
