"""GET /api/v1/profile/: how to talk to the caller's person. A read: agent tokens may call it."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.response import Response

from core.api.common import ScopeRefField, StrictSerializer
from core.api.errors import error_responses
from scopes.api.entry import View

from ..confidence import WORDS
from ..profile import CONSTRAINT_LABELS, GROUPS, STYLE_LABELS, TIERS
from ..selectors.profile import profile_read
from .serializers import CardOut


class ProfileQuery(StrictSerializer):
    scope = ScopeRefField(help_text="Read in this scope: it, its ancestors, your personal scope and global — by its id, "
                                    'or "personal", "family" or "team" for your one scope of that kind.')


class ProfileItemOut(serializers.Serializer):
    group = serializers.ChoiceField(choices=GROUPS, help_text=(
        f"style: {', '.join(STYLE_LABELS)}; constraint: what to keep to when suggesting anything "
        f"({', '.join(CONSTRAINT_LABELS)}); boundary: every card the person tagged `boundary` — always honour it."))
    label = serializers.CharField(help_text="The card's label: tone, brevity, workflow_style, decision_style, "
                                            "diet, allergy, avoids, or a boundary's own label.")
    value = serializers.CharField(help_text="The card's value (its object's name, or its text when it has neither).")
    tier = serializers.ChoiceField(choices=TIERS, help_text=(
        "recorded: the person said it (or a reviewer approved it); guessed: a hypothesis — say it only as a "
        "guess, and never as what the person told you."))
    tag = serializers.CharField(help_text="The card's tag: preference, fact, boundary, goal or hypothesis.")
    confidence = serializers.ChoiceField(choices=WORDS, allow_null=True,
                                         help_text="How sure a guess is; null for what was stated.")
    guidance = serializers.CharField(help_text=(
        'The item as one line of guidance, as the context block puts it: "Prefers short answers (brevity; '
        'stated Nov 3, 2026)", or for a guess "May prefer quick decisions when tired (decision style) — a '
        'guess, medium confidence; never state it as fact". The day is in your person\'s time zone.'))
    card = CardOut(help_text="The card it comes from, in your person's own phrasing.")


class ProfileOut(serializers.Serializer):
    items = ProfileItemOut(many=True, help_text="Style first, then constraints, then boundaries; within a label "
                                                "what was stated before what is guessed, surer guesses first.")


class Profile(View):
    @extend_schema(parameters=[ProfileQuery], responses={200: ProfileOut, **error_responses(400, 401, 404)},
                   summary="How to talk to your person: their style, constraints and boundaries, stated apart "
                           "from guessed",
                   description=(
                       "About the caller's own person (the token's person; `me`), from the current cards a read "
                       "in `scope` sees. A style (tone, brevity, workflow style, decision style) is either stated "
                       "(tier recorded, tag preference) or inferred (tier guessed, tag hypothesis, with a "
                       "confidence); both may stand at once, and a guess never overrides what was stated. The "
                       "context block (GET /api/v1/context/) carries the style and constraints as its `profile` "
                       "section."))
    def get(self, request):
        query = ProfileQuery(data=request.query_params.dict())
        query.is_valid(raise_exception=True)
        return Response(profile_read(principal=self.principal, scope_id=query.validated_data["scope"]))
