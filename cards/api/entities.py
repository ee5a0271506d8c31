"""Entity endpoints: create, add an alias, resolve a name (exact or alias only)."""

from __future__ import annotations

from django.db import transaction
from django.db.models import Prefetch
from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.response import Response

from core.api.errors import error_responses
from scopes.api.entry import View
from scopes.selectors import read_scope_ids

from ..models import Alias, Entity
from ..selectors.entity_reads import entity_get
from ..services import alias_add, entity_create
from ..selectors.entities import alias_target, entity_bind
from .serializers import AliasIn, EntityIn, EntityOut, ResolveIn, ResolveOut


class EntityCreate(View):
    @extend_schema(request=EntityIn, responses={201: EntityOut, **error_responses(400, 401, 403, 404)},
                   summary="Create an entity in a scope")
    def post(self, request):
        data = EntityIn(data=request.data)
        data.is_valid(raise_exception=True)
        principal = self.principal
        with transaction.atomic():
            scope = self.scope_named(data.validated_data["scope"], action="write")
            entity = entity_create(scope=scope, name=data.validated_data["name"], kind=data.validated_data["kind"])
        return Response(EntityOut(entity).data, status=status.HTTP_201_CREATED)


class EntityDetail(View):
    @extend_schema(responses={200: EntityOut, **error_responses(401, 404)}, summary="One entity")
    def get(self, request, entity_id: int):
        return Response(EntityOut(entity_get(principal=self.principal, entity_id=entity_id)).data)


class EntityAliases(View):
    @extend_schema(request=AliasIn, responses={201: EntityOut, **error_responses(400, 401, 403, 404)},
                   summary="Register another name for an entity")
    def post(self, request, entity_id: int):
        data = AliasIn(data=request.data)
        data.is_valid(raise_exception=True)
        principal = self.principal
        with transaction.atomic():
            if data.validated_data["scope"] is None:
                entity = entity_get(principal=principal, entity_id=entity_id, action="write")
                alias_add(entity=entity, name=data.validated_data["name"])
            else:
                entity, scope = alias_target(principal=principal, entity_id=entity_id,
                                             scope_id=data.validated_data["scope"])
                alias_add(entity=entity, name=data.validated_data["name"], scope=scope)
        entity = entity_get(principal=principal, entity_id=entity.pk)
        return Response(EntityOut(entity).data, status=status.HTTP_201_CREATED)


class EntityResolve(View):
    @extend_schema(request=ResolveIn, responses={200: ResolveOut, **error_responses(400, 401, 404)},
                   summary="Bind a name to an entity: exact name or registered alias only; "
                           "look-alikes come back as candidates, never bound")
    def post(self, request):
        data = ResolveIn(data=request.data)
        data.is_valid(raise_exception=True)
        principal = self.principal
        visible = read_scope_ids(principal=principal, scope_id=data.validated_data["scope"])
        binding = entity_bind(name=data.validated_data["name"], scope_ids=visible, speaker=principal.user)
        # Only the names registered where the caller reads (an alias elsewhere is not theirs to see).
        aliases = Prefetch("aliases", queryset=Alias.objects.in_scopes(visible))
        shown = {e.pk: e for e in Entity.objects.in_scopes(visible).filter(
            pk__in=[e.pk for e in binding.entities] + [pk for pk, _ in binding.did_you_mean])
            .prefetch_related(aliases)}
        bound = None
        if binding.status == "bound":
            # The entity the name means: the one its merges lead to.
            bound = next((shown[e.pk] for e in binding.entities if e.merged_into_id is None), None)
        candidates = ([{"entity": shown[e.pk], "score": 1.0} for e in binding.entities]
                      if binding.status == "ambiguous" else
                      [{"entity": shown[pk], "score": score} for pk, score in binding.did_you_mean if pk in shown])
        return Response(ResolveOut({"entity": bound, "ambiguous": binding.status == "ambiguous",
                                    "candidates": candidates}).data)
