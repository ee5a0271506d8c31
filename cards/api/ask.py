"""POST /api/v1/ask/: one question in plain English or Chinese, understood and
answered with no model call (cards/answers/ask.py)."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.response import Response

from core.api.common import READ_SCOPE_HELP, InstantField, ScopeRefField, StrictSerializer
from core.api.errors import error_responses
from scopes.api.entry import View

from ..answers.ask import ask_read
from .answer import TIERS, ChainOut, SubjectAnswerOut
from .serializers import CardOut

MAX_QUESTION = 500


class AskIn(StrictSerializer):
    scope = ScopeRefField(required=False, allow_null=True, default=None, help_text=READ_SCOPE_HELP)
    question = serializers.CharField(max_length=MAX_QUESTION, help_text='"Where does Kai live?", 我上個月去了幾次健身房？')
    as_of = InstantField(required=False, allow_null=True, default=None,
                         help_text="Answer as the memory stood then; time words count from it. Default: now.")
    # Checked where it is used, as every zone is: scopes.zones.zone_named.
    tz = serializers.CharField(max_length=64, required=False, allow_null=True, default=None,
                               help_text="IANA zone the question's time words are read in; default yours.")


class WhenOut(serializers.Serializer):
    expression = serializers.CharField(help_text="The time words as found in the question.")
    start = serializers.DateTimeField()
    end = serializers.DateTimeField(allow_null=True, help_text="Exclusive.")


class UnderstoodOut(serializers.Serializer):
    subject = serializers.CharField(allow_null=True, help_text='As the question names it: "I", "Kai", "my advisor".')
    subject_entities = serializers.ListField(child=serializers.IntegerField(),
                                             help_text="The entities it bound (the one binder).")
    label = serializers.CharField(allow_null=True)
    when = WhenOut(allow_null=True)
    form = serializers.ChoiceField(choices=["answer", "count", "when", "recall"])
    language = serializers.ChoiceField(choices=["en", "zh-Hant", "zh-Hans"])


class AskSubjectOut(SubjectAnswerOut):
    name = serializers.CharField(help_text="How `answer` names it.")


class AskOut(serializers.Serializer):
    answer = serializers.CharField(help_text="One sentence in the question's language and script.")
    tier = serializers.ChoiceField(choices=TIERS)
    understood = UnderstoodOut()
    values = serializers.ListField(child=serializers.CharField(),
                                   help_text="The values answered (a count as its number, a day as YYYY-MM-DD).")
    evidence = CardOut(many=True, help_text="The cards the answer rests on; none for no_evidence.")
    chain = ChainOut(many=True, help_text="How a derived answer was reached: relation cards followed, rules "
                                          "applied, each premise a card.")
    cards = serializers.ListField(child=serializers.IntegerField())
    yes = serializers.BooleanField(required=False, help_text="A yes/no question (\"does my car need gas?\"): "
                                                         "whether the value asked about is among `values`.")
    count = serializers.IntegerField(required=False, help_text="form count: events dated in the range.")
    exact = serializers.BooleanField(required=False, help_text="form count: no undated event could also count.")
    undated = serializers.IntegerField(required=False)
    by_subject = AskSubjectOut(many=True, required=False,
                               help_text="A name several entities answer to (a member and a thing called like "
                                         "them, two members): the answer about each, each named in `answer` "
                                         "(\"Sam (member)\", \"Sam (thing)\"); `values` and `evidence` are "
                                         "theirs together, never no_evidence for lack of one's.")


class AskView(View):
    @extend_schema(
        request=AskIn, responses={200: AskOut, **error_responses(400, 401, 404, 503)},
        summary="Ask a question in plain words (English or Chinese): answered with its tier and evidence",
        description=(
            "Understood without a model: the subject (I/me/my, 我, names, aliases, members, relation words such as "
            "\"my wife\" or 媽媽, and relation cards: \"my advisor\" is the person on your advisor card), the label "
            "(the registry's keys and synonyms in both languages: \"where do I live\" → address, 電話 → phone), time "
            "words (\"last weekend\", 上個月: resolved against `as_of` or now in your zone), and the form: how many "
            "→ count; when → the event's day; where/what/who/which or yes/no → the answer for (subject, label), "
            "through at most two relation cards and the approved rules (derived, with every premise in `chain`); "
            "anything else → recall, restricted to what was understood, with recall's abstention. Nothing "
            "recorded → tier `no_evidence` and no evidence. The same question gives byte-identical JSON."))
    def post(self, request):
        data = AskIn(data=request.data)
        data.is_valid(raise_exception=True)
        params = data.validated_data
        return Response(ask_read(principal=self.principal, scope_id=params["scope"],
                                 question=params["question"], as_of=params["as_of"], tz=params["tz"]))
