"""Entity endpoints: create, add an alias, resolve a name (exact or alias only)."""

from __future__ import annotations

from django.db import transaction
from django.db.models import Q
from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.response import Response
from rest_framework.views import APIView

from core.api.errors import error_responses
from scopes.principals import principal_of
from scopes.selectors import read_scope_ids, scope_get

from ..models import Entity
from ..selectors.entity_reads import entity_get
from ..services import alias_add, entity_create
from ..services.entities import entity_look_alikes
from ..text import normalize
from .serializers import AliasIn, EntityIn, EntityOut, ResolveIn, ResolveOut


class EntityCreate(APIView):
    @extend_schema(request=EntityIn, responses={201: EntityOut, **error_responses(400, 401, 403, 404)},
                   summary="Create an entity in a scope")
    def post(self, request):
        data = EntityIn(data=request.data)
        data.is_valid(raise_exception=True)
        principal = principal_of(request)
        with transaction.atomic():
            scope = scope_get(principal=principal, scope_id=data.validated_data["scope"], action="write")
            entity = entity_create(scope=scope, name=data.validated_data["name"], kind=data.validated_data["kind"])
        return Response(EntityOut(entity).data, status=status.HTTP_201_CREATED)


class EntityDetail(APIView):
    @extend_schema(responses={200: EntityOut, **error_responses(401, 404)}, summary="One entity")
    def get(self, request, entity_id: int):
        return Response(EntityOut(entity_get(principal=principal_of(request), entity_id=entity_id)).data)


class EntityAliases(APIView):
    @extend_schema(request=AliasIn, responses={201: EntityOut, **error_responses(400, 401, 403, 404)},
                   summary="Register another name for an entity")
    def post(self, request, entity_id: int):
        data = AliasIn(data=request.data)
        data.is_valid(raise_exception=True)
        principal = principal_of(request)
        with transaction.atomic():
            entity = entity_get(principal=principal, entity_id=entity_id, action="write")
            alias_add(entity=entity, name=data.validated_data["name"])
        return Response(EntityOut(entity_get(principal=principal, entity_id=entity_id)).data,
                        status=status.HTTP_201_CREATED)


class EntityResolve(APIView):
    @extend_schema(request=ResolveIn, responses={200: ResolveOut, **error_responses(400, 401, 404)},
                   summary="Bind a name to an entity: exact name or registered alias only; "
                           "look-alikes come back as candidates, never bound")
    def post(self, request):
        data = ResolveIn(data=request.data)
        data.is_valid(raise_exception=True)
        principal = principal_of(request)
        visible = read_scope_ids(principal=principal, scope_id=data.validated_data["scope"])
        name = data.validated_data["name"]
        norm = normalize(name)
        exact = list(Entity.objects.filter(Q(name_norm=norm) | Q(aliases__name_norm=norm, aliases__scope_id__in=visible),
                                           scope_id__in=visible).distinct().prefetch_related("aliases")
                     .order_by("id"))
        bound = exact[0] if len(exact) == 1 else None
        candidates = [{"entity": e, "score": 1.0} for e in exact] if len(exact) > 1 else []
        if not exact:
            candidates = _look_alikes(norm, visible)
        return Response(ResolveOut({"entity": bound, "ambiguous": len(exact) > 1, "candidates": candidates}).data)


def _look_alikes(norm: str, visible) -> list[dict]:
    """Trigram neighbours over names and aliases in the visible scopes: offered, never bound."""
    rows = entity_look_alikes(norm, visible)
    entities = {e.pk: e for e in Entity.objects.filter(pk__in=[r[0] for r in rows]).prefetch_related("aliases")}
    return [{"entity": entities[pk], "score": score} for pk, score in rows]
