"""POST /api/v1/answer/ and POST /api/v1/count/: answers that name their tier
and evidence, computed with no model call."""

from __future__ import annotations

import datetime as dt
import zoneinfo

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from memory_site.api.common import IdField, StrictSerializer
from memory_site.api.errors import error_responses
from scopes.errors import DomainError
from scopes.principals import principal_of
from scopes.selectors import read_scope_ids

from ..answer import Binding, answer, subject_bind
from ..count import count_cards
from ..derive import Proof
from ..labels import label_resolve
from ..models import Entity
from ..services import entity_of_user
from .drafts import when_interval
from ..drafts import MAX_REF
from .serializers import CardOut
from .shape import cards_out, iso
from .time import user_zone


class AmbiguousSubject(DomainError):
    code = "ambiguous_subject"


class AnswerIn(StrictSerializer):
    scope = IdField(help_text="Read in this scope: it, its ancestors, your personal scope and global.")
    subject = serializers.CharField(max_length=MAX_REF, help_text='"me", or a name or alias.')
    label = serializers.CharField(max_length=64)
    as_of = serializers.DateTimeField(required=False, allow_null=True, default=None)


class CountIn(StrictSerializer):
    scope = IdField()
    label = serializers.CharField(max_length=64)
    subject = serializers.CharField(max_length=MAX_REF, required=False, allow_null=True, default=None)
    when = serializers.CharField(max_length=200, required=False, allow_null=True, default=None,
                                 help_text='"this year", "last month", 上週…')
    tz = serializers.CharField(max_length=64, required=False, allow_null=True, default=None)
    start = serializers.DateTimeField(required=False, allow_null=True, default=None, help_text="Sent as `from`.")
    to = serializers.DateTimeField(required=False, allow_null=True, default=None, help_text="Exclusive.")

    def get_fields(self):
        fields = super().get_fields()
        fields["from"] = fields.pop("start")  # `from` is a Python keyword, not a field name
        return fields

    def validate_tz(self, value):
        if value is not None:
            try:
                zoneinfo.ZoneInfo(value)
            except (zoneinfo.ZoneInfoNotFoundError, ValueError, OSError):
                raise serializers.ValidationError("must be an IANA time zone name") from None
        return value

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


class AnswerOut(serializers.Serializer):
    tier = serializers.ChoiceField(choices=["recorded", "derived", "guessed", "no_evidence"])
    subject = SubjectOut()
    label = serializers.CharField()
    values = serializers.ListField(child=serializers.CharField())
    evidence = CardOut(many=True)
    chain = ChainOut(many=True)
    candidates = GuessOut(many=True)
    contradictions = ChainOut(many=True, help_text="Derived values that disagree with the recorded single value.")
    conflicting = serializers.BooleanField(help_text="A single-value label with more than one recorded value in "
                                                     "the visible scopes: ask which holds.")


class CountOut(serializers.Serializer):
    count = serializers.IntegerField()
    undated = serializers.IntegerField()
    at_least = serializers.IntegerField()
    exact = serializers.BooleanField()
    counted = serializers.ChoiceField(choices=["events", "values"])
    cards = serializers.ListField(child=serializers.IntegerField())
    undated_cards = serializers.ListField(child=serializers.IntegerField())
    straddling_cards = serializers.ListField(child=serializers.IntegerField(),
                                             help_text="Dated too coarsely to tell whether they fall in the range.")
    current = serializers.ListField(child=serializers.IntegerField(), help_text="States: the values current now.")
    start = serializers.DateTimeField(allow_null=True)
    end = serializers.DateTimeField(allow_null=True)


def _brief(entity: Entity) -> dict:
    return {"id": entity.pk, "scope": entity.scope_id, "name": entity.name, "kind": entity.kind}


def _subject(asked: str, binding: Binding) -> dict:
    alike = {e.pk: e for e in Entity.objects.filter(pk__in=[pk for pk, _ in binding.did_you_mean])}
    return {"asked": asked, "binding": binding.status, "entities": [_brief(e) for e in binding.entities],
            "did_you_mean": [{"entity": _brief(alike[pk]), "score": score} for pk, score in binding.did_you_mean]}


class _Shaper:
    """Cards and term names for a whole answer, each read once."""

    def __init__(self, proofs: list[Proof], card_ids: list[int], user) -> None:
        ids = list(dict.fromkeys([*card_ids, *(pk for p in proofs for pk in p.card_ids())]))
        self.cards = dict(zip(ids, cards_out(ids, user=user)))
        terms = {t for p in proofs for t in _terms(p)}
        entity_ids = [int(t[2:]) for t in terms if t.startswith("e:")]
        self.names = {f"e:{pk}": name for pk, name in Entity.objects.filter(pk__in=entity_ids).values_list("pk", "name")}

    def name(self, term: str) -> str:
        return self.names.get(term, term[2:])

    def chain(self, proof: Proof) -> dict:
        return {"rule": {"id": proof.rule.pk, "name": proof.rule.name, "description": proof.rule.description},
                "conclusion": f"{self.name(proof.subject)} {proof.label} {proof.shown}", "value": proof.shown,
                "premises": [self.cards[p.fact.card_id] if p.fact else self.chain(p) for p in proof.premises]}


def _terms(proof: Proof):
    yield proof.subject
    for premise in proof.premises:
        yield from _terms(premise)


def _question(request, serializer_class):
    """Validated input, the caller, the scopes the read sees and the label asked about."""
    data = serializer_class(data=request.data)
    data.is_valid(raise_exception=True)
    principal = principal_of(request)
    scope_ids = read_scope_ids(principal=principal, scope_id=data.validated_data["scope"])
    return data.validated_data, principal, scope_ids, label_resolve(data.validated_data["label"])


def _bind(params, principal, scope_ids) -> Binding:
    return subject_bind(name=params["subject"], me=entity_of_user(principal.user), scope_ids=scope_ids)


class AnswerView(APIView):
    @extend_schema(request=AnswerIn, responses={200: AnswerOut, **error_responses(400, 401, 404)},
                   summary="Answer (subject, label): recorded, derived with its chain, guessed, or no evidence")
    def post(self, request):
        params, principal, scope_ids, label = _question(request, AnswerIn)
        binding = _bind(params, principal, scope_ids)
        found = answer(binding=binding, label=label, scope_ids=scope_ids, as_of=params["as_of"])
        shaper = _Shaper([*found.derived, *found.contradictions], found.evidence, principal.user)
        return Response({
            "tier": found.tier, "subject": _subject(params["subject"], binding), "label": label.key,
            "values": found.values, "evidence": [shaper.cards[pk] for pk in found.evidence],
            "chain": [shaper.chain(p) for p in found.derived],
            "candidates": [{"value": g.value, "score": g.score, "why": g.why, "card": g.card_id}
                           for g in found.guesses],
            "contradictions": [shaper.chain(p) for p in found.contradictions],
            "conflicting": found.conflicting})


class CountView(APIView):
    @extend_schema(request=CountIn, responses={200: CountOut, **error_responses(400, 401, 404)},
                   summary="Count events in a range (undated ones apart), or distinct values a state held")
    def post(self, request):
        params, principal, scope_ids, label = _question(request, CountIn)
        subject_ids = None
        if params["subject"]:
            binding = _bind(params, principal, scope_ids)
            if binding.status == "ambiguous":
                raise AmbiguousSubject(f"{params['subject']!r} names more than one entity here; ask about one.",
                                       entities=[_brief(e) for e in binding.entities])
            subject_ids = binding.entity_ids
        start, end = params["from"], params["to"]
        if params["when"]:
            interval = when_interval(params["when"], tz_name=params["tz"], user=principal.user)
            # A stated instant (end None) is a range of one microsecond, not "from then on".
            start, end = interval.start, interval.end or interval.start + dt.timedelta(microseconds=1)
        tz = params["tz"] or str(user_zone(principal.user))
        found = count_cards(scope_ids=scope_ids, label=label, subject_ids=subject_ids, start=start, end=end, tz=tz)
        return Response({"count": found.count, "undated": len(found.undated_ids), "at_least": found.count,
                         "exact": found.exact, "counted": found.counted, "cards": found.card_ids,
                         "undated_cards": found.undated_ids, "straddling_cards": found.straddling_ids,
                         "current": found.current_ids,
                         "start": iso(start), "end": iso(end)})
