"""Relations between members, read from one side: PUT/GET/DELETE
/api/v1/scopes/{id}/relations/. People manage them, never an agent token: a
member may state relations they are a side of; a scope's admins, any."""

from __future__ import annotations

from django.db import transaction
from drf_spectacular.utils import extend_schema
from rest_framework.exceptions import PermissionDenied
from rest_framework.response import Response
from rest_framework.views import APIView

from core.api.common import page_of
from core.api.errors import error_responses

from ..members import member_named
from ..principals import principal_of, scope_ids_for
from ..relations import relation_remove, relation_set, relations_of
from ..selectors import scope_get
from .serializers import RelationIn, RelationOut
from .views import SignedInPerson


def _pair(request, scope_id: int, data: dict):
    principal = principal_of(request)
    scope = scope_get(principal=principal, scope_id=scope_id)
    member, of = member_named(scope, data["member"], field="member"), member_named(scope, data["of"], field="of")
    if principal.user.pk not in (member.pk, of.pk) and not scope_ids_for(principal, "manage").filter(
            pk=scope.pk).exists():
        raise PermissionDenied("You may state relations you are part of; a scope's admins may state any.")
    return scope, member, of


class ScopeRelations(APIView):
    permission_classes = [SignedInPerson]

    @extend_schema(responses={200: page_of(RelationOut), **error_responses(401, 403, 404)},
                   summary="Relations between members, read from one side")
    def get(self, request, scope_id: int):
        scope = scope_get(principal=principal_of(request), scope_id=scope_id)
        return Response({"results": RelationOut(relations_of(scope=scope), many=True).data, "next": None})

    @extend_schema(request=RelationIn, responses={200: RelationOut, **error_responses(400, 401, 403, 404)},
                   summary='Say what one member is to another ("dana" is "kai"\'s "mother")')
    def put(self, request, scope_id: int):
        data = RelationIn(data=request.data)
        data.is_valid(raise_exception=True)
        with transaction.atomic():
            scope, member, of = _pair(request, scope_id, data.validated_data)
            row = relation_set(scope=scope, member=member, of=of, relation=data.validated_data.get("relation", ""))
        return Response(RelationOut(row).data)

    @extend_schema(request=RelationIn, responses={204: None, **error_responses(400, 401, 403, 404)},
                   summary="Remove a relation")
    def delete(self, request, scope_id: int):
        data = RelationIn(data=request.data)
        data.is_valid(raise_exception=True)
        with transaction.atomic():
            scope, member, of = _pair(request, scope_id, data.validated_data)
            relation_remove(scope=scope, member=member, of=of)
        return Response(status=204)
