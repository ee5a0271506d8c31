"""POST /api/v1/answer/ and POST /api/v1/count/: answers that name their tier
and evidence, computed with no model call."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.response import Response

from core.api.common import READ_SCOPE_HELP, InstantField, ScopeRefField, StrictSerializer
from core.api.errors import error_responses
from scopes.api.entry import View

from ..drafts import MAX_REF
from ..answers.answer_read import answer_read
from ..answers.count_read import count_read
from ..selectors.shape import iso
from .serializers import CardOut


class AnswerIn(StrictSerializer):
    scope = ScopeRefField(required=False, allow_null=True, default=None, help_text=READ_SCOPE_HELP)
    subject = serializers.CharField(max_length=MAX_REF, help_text='"me", or a name or alias.')
    label = serializers.CharField(max_length=64)
    as_of = InstantField(required=False, allow_null=True, default=None)


class CountIn(StrictSerializer):
    scope = ScopeRefField(required=False, allow_null=True, default=None, help_text=READ_SCOPE_HELP)
    label = serializers.CharField(max_length=64)
    subject = serializers.CharField(max_length=MAX_REF, required=False, allow_null=True, default=None)
    when = serializers.CharField(max_length=200, required=False, allow_null=True, default=None,
                                 help_text='"this year", "last month", 上週…')
    # Checked where it is used (count_read), as every zone is: scopes.zones.zone_named.
    tz = serializers.CharField(max_length=64, required=False, allow_null=True, default=None,
                               help_text="IANA zone for `when` and for counting by day; default yours.")
    start = InstantField(required=False, allow_null=True, default=None, help_text="Sent as `from`.")
    to = InstantField(required=False, allow_null=True, default=None, help_text="Exclusive.")

    def get_fields(self):
        fields = super().get_fields()
        fields["from"] = fields.pop("start")  # `from` is a Python keyword, not a field name
        return fields

    def validate(self, data):
        if data["when"] and (data["from"] or data["to"]):
            raise serializers.ValidationError({"when": ["give when, or from/to, not both"]})
        if data["from"] and data["to"] and data["from"] >= data["to"]:
            raise serializers.ValidationError({"to": ["must be after from"]})
        return data


class EntityBrief(serializers.Serializer):
    id = serializers.IntegerField()
    scope = serializers.IntegerField()
    name = serializers.CharField()
    kind = serializers.CharField()


class SubjectOut(serializers.Serializer):
    asked = serializers.CharField()
    binding = serializers.ChoiceField(choices=["bound", "ambiguous", "unknown"])
    entities = EntityBrief(many=True)
    did_you_mean = serializers.ListField(child=serializers.DictField(),
                                         help_text="Look-alike names: offered, never bound.")


class ChainOut(serializers.Serializer):
    rule = serializers.DictField(help_text="id, name, description")
    conclusion = serializers.CharField()
    value = serializers.CharField()
    premises = serializers.ListField(child=serializers.DictField(),
                                     help_text="A recorded card, or a derivation (with its own rule), recursively.")


class GuessOut(serializers.Serializer):
    value = serializers.CharField()
    score = serializers.FloatField()
    why = serializers.CharField()
    card = serializers.IntegerField()


class PlannedOut(serializers.Serializer):
    value = serializers.CharField()
    starts = serializers.DateTimeField(help_text="When it becomes true.")
    card = CardOut()


# How an answer knows (DESIGN §7): /answer/ and /ask/ name it alike.
TIERS = ["recorded", "derived", "guessed", "no_evidence"]


class SubjectAnswerOut(serializers.Serializer):
    entities = EntityBrief(many=True, help_text="The entity this part is about (with any merged into it).")
    tier = serializers.ChoiceField(choices=TIERS)
    values = serializers.ListField(child=serializers.CharField())
    evidence = serializers.ListField(child=serializers.IntegerField(), help_text="Its cards, among `evidence`.")


class AnswerOut(serializers.Serializer):
    tier = serializers.ChoiceField(choices=TIERS)
    subject = SubjectOut()
    label = serializers.CharField()
    values = serializers.ListField(child=serializers.CharField())
    evidence = CardOut(many=True)
    chain = ChainOut(many=True)
    candidates = GuessOut(many=True, help_text="Guesses, labelled: beside a recorded or derived value only the "
                                               "hypotheses, each saying whether it contradicts the record.")
    contradictions = ChainOut(many=True, help_text="Derived values that disagree with the recorded single value.")
    conflicting = serializers.BooleanField(help_text="A single-value label with more than one recorded value in "
                                                     "the visible scopes, or a dispute of a member's own value: "
                                                     "ask which holds.")
    planned = PlannedOut(many=True, help_text="Values from a future date: not yet true; `values` hold until then.")
    disputes = CardOut(many=True, help_text="Others' statements about a member that disagree with the member's "
                                            "own card: they stand beside it until the member settles them.")
    by_subject = SubjectAnswerOut(many=True, help_text="When the subject's name is ambiguous (`subject.binding`): "
                                                       "the answer about each entity it may mean — a member and "
                                                       "a thing called like them, two members — the fields above "
                                                       "being theirs together, never `no_evidence` for lack of "
                                                       "one's. Empty otherwise.")


class CountOut(serializers.Serializer):
    count = serializers.IntegerField(help_text="What happened (events) or held (values) in the range; never "
                                               "what is planned.")
    undated = serializers.IntegerField()
    at_least = serializers.IntegerField(help_text="With undated or coarsely dated events apart: at least this "
                                                  "many happened.")
    exact = serializers.BooleanField()
    planned = serializers.IntegerField(help_text="In the range but still to come (an event that has not "
                                                 "happened, a value from a later date): not counted.")
    counted = serializers.ChoiceField(choices=["events", "values"])
    cards = serializers.ListField(child=serializers.IntegerField())
    undated_cards = serializers.ListField(child=serializers.IntegerField())
    planned_cards = serializers.ListField(child=serializers.IntegerField(), help_text="The planned ones' cards.")
    straddling_cards = serializers.ListField(child=serializers.IntegerField(),
                                             help_text="Dated too coarsely to tell whether they fall in the range.")
    current = serializers.ListField(child=serializers.IntegerField(), help_text="States: the values current now.")
    start = serializers.DateTimeField(allow_null=True)
    end = serializers.DateTimeField(allow_null=True)


class AnswerView(View):
    @extend_schema(request=AnswerIn, responses={200: AnswerOut, **error_responses(400, 401, 404)},
                   summary="Answer (subject, label): recorded, derived with its chain, guessed, or no evidence")
    def post(self, request):
        data = AnswerIn(data=request.data)
        data.is_valid(raise_exception=True)
        params = data.validated_data
        return Response(answer_read(principal=self.principal, scope_id=params["scope"],
                                    subject=params["subject"], label=params["label"], as_of=params["as_of"]))


class CountView(View):
    @extend_schema(request=CountIn, responses={200: CountOut, **error_responses(400, 401, 404)},
                   summary="Count events in a range (undated and planned ones apart), or distinct values a "
                           "state held",
                   description="A range may reach into the future: what is still to come is `planned` (with "
                               "`planned_cards`), never part of `count` or `at_least`.")
    def post(self, request):
        data = CountIn(data=request.data)
        data.is_valid(raise_exception=True)
        params = data.validated_data
        found, _, start, end = count_read(principal=self.principal, scope_id=params["scope"],
                                          label=params["label"], subject=params["subject"], start=params["from"],
                                          end=params["to"], when=params["when"], tz=params["tz"])
        return Response({"count": found.count, "undated": len(found.undated_ids), "at_least": found.count,
                         "exact": found.exact, "planned": len(found.planned_ids), "counted": found.counted,
                         "cards": found.card_ids, "undated_cards": found.undated_ids,
                         "planned_cards": found.planned_ids, "straddling_cards": found.straddling_ids,
                         "current": found.current_ids,
                         "start": iso(start), "end": iso(end)})
