"""GET/PUT /api/v1/me/sharing/ (API.md "Sharing within a household"): which labels of
the person's own personal cards the members of each family or team of theirs may read.
A person's act, like managing members: agent tokens get 403 on both (scopes.api.auth.SignedInPerson)."""

from __future__ import annotations

from django.db import transaction
from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.response import Response

from core.api.common import ScopeRefField, StrictSerializer
from core.api.errors import error_responses
from scopes.api.auth import SignedInPerson
from scopes.api.entry import View
from scopes.sharing import sharing_of

from ..services.sharing import sharing_choose

# More than the registry holds: a longer list is a mistake, refused before any label is looked up.
MAX_LABELS = 200

DESCRIPTION = """Sharing by the person's choice: members of a family or team you belong to read (never write)
your cards in your personal scope that are about you and carry a label you share with them there. Nothing is
shared until you choose it. GET lists every family and team you belong to now, with the labels you share there
(`[]`: nothing). PUT replaces the set for one scope: `labels` are registered label keys or synonyms (a synonym is
stored as its key; an unknown one is 400 `unknown_label` with `suggestions`); `[]` shares nothing. A scope named
that is no family or team is 400 `not_family_or_team`; one you are not a member of, 404. Leaving a scope (or being
removed) ends your shares there. Signed-in people only: agent tokens get 403 on both methods."""


class SharingOut(serializers.Serializer):
    scope = serializers.IntegerField(help_text="A family or team you belong to.")
    labels = serializers.ListField(child=serializers.CharField(), help_text="The label keys you share there, sorted.")


class SharingListOut(serializers.Serializer):
    results = SharingOut(many=True)


class SharingIn(StrictSerializer):
    scope = ScopeRefField(help_text='The family or team: its id, or "family" or "team" for your one scope of that '
                                    "kind.")
    labels = serializers.ListField(child=serializers.CharField(max_length=64), max_length=MAX_LABELS,
                                   allow_empty=True, help_text="Label keys or synonyms; [] shares nothing.")


class MySharing(View):
    permission_classes = [SignedInPerson]

    @extend_schema(operation_id="me_sharing_list", responses={200: SharingListOut, **error_responses(401, 403)},
                   summary="What you share with each family and team of yours (signed in)", description=DESCRIPTION)
    def get(self, request):
        return Response({"results": sharing_of(principal=self.principal)})

    @extend_schema(operation_id="me_sharing_set", request=SharingIn,
                   responses={200: SharingOut, **error_responses(400, 401, 403, 404)},
                   summary="Choose which labels you share with one family or team (signed in)",
                   description=DESCRIPTION)
    def put(self, request):
        data = SharingIn(data=request.data)
        data.is_valid(raise_exception=True)
        with transaction.atomic():
            scope = self.scope_named(data.validated_data["scope"])
            kept = sharing_choose(principal=self.principal, scope=scope, labels=data.validated_data["labels"])
        return Response({"scope": scope.pk, "labels": kept})
