"""GET/PATCH /api/v1/me/: the caller's own settings (API.md "People").

A token reads its person's settings (an agent needs the zone to know whose day
"yesterday" is), but only the person, signed in, changes them: the zone anchors
every date their agents write, and a leaked token must not be able to move it."""

from __future__ import annotations

from django.conf import settings
from drf_spectacular.utils import extend_schema, extend_schema_field
from rest_framework import serializers
from rest_framework.permissions import IsAuthenticated
from rest_framework.response import Response

from core.api.common import StrictSerializer
from core.api.errors import error_responses

from ..models import Language
from ..people import person_settings_set
from .entry import View
from .views import SignedInPerson

DESCRIPTION = """`time_zone` is an IANA zone name (`Europe/Lisbon`), never an offset: an offset is
wrong after the next summer-time change. It anchors relative dates ("yesterday", 昨天) for
statements whose reference time has no offset of its own, and the dashboard's days. A bad
zone or language is `validation_error` with `fields`. PATCH is for a signed-in person; an
agent token may read (GET) but gets 403 on PATCH."""


class MeOut(serializers.Serializer):
    username = serializers.CharField()
    display_name = serializers.CharField(source="shown_name")
    time_zone = serializers.CharField(help_text="IANA zone name, e.g. Europe/Lisbon.")
    language = serializers.SerializerMethodField(
        help_text="The dashboard's language for this person: their choice, else the site's default (en).")
    language_chosen = serializers.SerializerMethodField(
        help_text="False until the person picks a language: the dashboard then follows their browser's.")

    @extend_schema_field(serializers.ChoiceField(choices=Language.choices))
    def get_language(self, user) -> str:
        return user.language or settings.LANGUAGE_CODE

    def get_language_chosen(self, user) -> bool:
        return bool(user.language)


class MePatchIn(StrictSerializer):
    # Checked by person_settings_set, the one home of both rules (the dashboard uses it too).
    time_zone = serializers.CharField(max_length=64, required=False,
                                      help_text="IANA zone name, e.g. Europe/Lisbon; never an offset.")
    language = serializers.CharField(max_length=16, required=False, allow_blank=True,
                                     help_text=", ".join(Language.values)
                                     + "; an empty string follows the browser's language again")
    display_name = serializers.CharField(required=False, help_text="Read-only here.")

    def validate_display_name(self, value):
        # Other members see a person by the name of their person entity; renaming both is not done here.
        raise serializers.ValidationError("read-only: the display name is not changed through /me/")


class Me(View):
    def get_permissions(self):
        return [SignedInPerson()] if self.request.method == "PATCH" else [IsAuthenticated()]

    @extend_schema(responses={200: MeOut, **error_responses(401)}, summary="Your own settings",
                   description=DESCRIPTION)
    def get(self, request):
        return Response(MeOut(request.user).data)

    @extend_schema(request=MePatchIn, responses={200: MeOut, **error_responses(400, 401, 403)},
                   summary="Change your time zone or language (a signed-in person)", description=DESCRIPTION)
    def patch(self, request):
        data = MePatchIn(data=request.data)
        data.is_valid(raise_exception=True)
        user = person_settings_set(user=request.user, time_zone=data.validated_data.get("time_zone"),
                                   language=data.validated_data.get("language"))
        return Response(MeOut(user).data)
