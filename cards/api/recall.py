"""POST /api/v1/recall/ and GET /api/v1/context/: what an agent puts in its prompt."""

from __future__ import annotations

from django.utils import timezone
from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from core.api.common import IdField, StrictSerializer
from core.api.errors import error_responses
from core.errors import DomainError
from scopes.principals import principal_of
from scopes.selectors import read_scope_ids

from ..context import context_block, context_lines
from ..embeddings import EmbeddingError
from ..models import Tag
from ..retrieval import ROUTES, recall
from ..services import entity_of_user
from .drafts import when_interval
from .serializers import CardOut
from .shape import cards_out, iso
from .time import user_zone


class EmbeddingDown(DomainError):
    code = "embedding_unavailable"
    status = 503


class RecallIn(StrictSerializer):
    scope = IdField(help_text="Read in this scope: it, its ancestors, your personal scope and global.")
    query = serializers.CharField(max_length=2_000)
    k = serializers.IntegerField(min_value=1, max_value=100, required=False, default=10)
    when = serializers.CharField(max_length=200, required=False, allow_null=True, default=None,
                                 help_text='Only events that happened then: "last week", 昨天, "May 2026"…')
    tz = serializers.CharField(max_length=64, required=False, allow_null=True, default=None,
                               help_text="Zone for `when`; default yours.")
    as_of = serializers.DateTimeField(required=False, allow_null=True, default=None,
                                      help_text="Cards valid then, decayed as of then; default now.")


class ContextQuery(StrictSerializer):
    scope = IdField()
    query = serializers.CharField(max_length=2_000)
    budget = serializers.IntegerField(min_value=50, max_value=32_000, required=False, default=1_500,
                                      help_text="Most tokens the prompt may take (the embedding model's tokenizer).")
    k = serializers.IntegerField(min_value=1, max_value=100, required=False, default=20)
    when = serializers.CharField(max_length=200, required=False)
    tz = serializers.CharField(max_length=64, required=False)


class ScoredOut(serializers.Serializer):
    card = CardOut()
    similarity = serializers.FloatField()
    decay = serializers.FloatField(help_text="e^(−λ·Δt), λ from the label.")
    score = serializers.FloatField(help_text="similarity × decay")
    days = serializers.FloatField(help_text="Δt: days since the card was last made true or verified.")
    tier = serializers.ChoiceField(choices=["recorded", "hypothesis"],
                                   help_text="hypothesis: inferred, unconfirmed — never state it as fact.")


class AgingOut(CardOut):
    unverified_days = serializers.FloatField()
    question = serializers.CharField(help_text="What to ask the person.")


class ContradictionOut(serializers.Serializer):
    subject = serializers.CharField()
    subject_id = serializers.IntegerField()
    label = serializers.CharField()
    cards = CardOut(many=True)


class RecallOut(serializers.Serializer):
    results = ScoredOut(many=True)
    aging_facts = AgingOut(many=True)
    contradictions = ContradictionOut(many=True)
    at = serializers.DateTimeField(help_text="The time scores were decayed to (as_of, or now).")
    route = serializers.ChoiceField(choices=ROUTES, help_text="exact scan, or the vector index for broad reads.")


class ContextOut(serializers.Serializer):
    prompt = serializers.CharField()
    cards = serializers.ListField(child=serializers.IntegerField())
    tokens = serializers.IntegerField()


def _question(card: dict, me_id: int) -> str:
    value = card["object"] or card["value"]
    label = card["label"].replace("_", " ")
    whose = "your" if card["subject_id"] == me_id else f"{card['subject']}'s"
    return f"I remember {whose} {label} is {value} — is this still accurate?"


def recall_body(request, *, scope_id: int, query: str, k: int, when: str | None, tz: str | None,
                as_of) -> tuple[dict, int]:
    """Recall as the caller sees it (scores, cards in their own words, aging and
    contradictions), and the id of the caller's own entity ("you")."""
    principal = principal_of(request)
    scope_ids = read_scope_ids(principal=principal, scope_id=scope_id)
    interval = when_interval(when, tz_name=tz, user=principal.user) if when else None
    try:
        found = recall(scope_ids=scope_ids, query=query, k=k, as_of=as_of, when=interval)
    except EmbeddingError as error:
        raise EmbeddingDown(f"The embedding model is not available right now ({error}); try again shortly.") from None
    ids = [r.card_id for r in found.results] + [a.card_id for a in found.aging]
    ids += [pk for c in found.contradictions for pk in c.card_ids]
    cards = dict(zip(ids, cards_out(ids, user=principal.user)))
    me_id = entity_of_user(principal.user).pk
    results = [{"card": cards[r.card_id], "similarity": r.similarity, "decay": r.decay, "score": r.score,
                "days": r.days, "tier": "hypothesis" if cards[r.card_id]["tag"] == Tag.HYPOTHESIS else "recorded"}
               for r in found.results]
    aging = [{**cards[a.card_id], "unverified_days": a.days, "question": _question(cards[a.card_id], me_id)}
             for a in found.aging]
    contradictions = [{"subject": cards[c.card_ids[0]]["subject"], "subject_id": c.subject_id,
                       "label": cards[c.card_ids[0]]["label"], "cards": [cards[pk] for pk in c.card_ids]}
                      for c in found.contradictions]
    return {"results": results, "aging_facts": aging, "contradictions": contradictions, "at": iso(found.at),
            "route": found.route}, me_id


class Recall(APIView):
    @extend_schema(request=RecallIn, responses={200: RecallOut, **error_responses(400, 401, 404, 503)},
                   summary="The cards most relevant to a query, scored similarity × decay, "
                           "with aging facts and contradictions")
    def post(self, request):
        data = RecallIn(data=request.data)
        data.is_valid(raise_exception=True)
        params = data.validated_data
        body, _ = recall_body(request, scope_id=params["scope"], query=params["query"], k=params["k"],
                              when=params["when"], tz=params["tz"], as_of=params["as_of"])
        return Response(body)


class Context(APIView):
    @extend_schema(parameters=[ContextQuery], responses={200: ContextOut, **error_responses(400, 401, 404, 503)},
                   summary="The prompt-ready memory block for a query, within a token budget")
    def get(self, request):
        query = ContextQuery(data=request.query_params.dict())
        query.is_valid(raise_exception=True)
        params = query.validated_data
        body, me_id = recall_body(request, scope_id=params["scope"], query=params["query"], k=params["k"],
                                  when=params.get("when"), tz=params.get("tz"), as_of=None)
        lines = context_lines(results=body["results"], aging=body["aging_facts"],
                              contradictions=body["contradictions"], me_id=me_id)
        prompt, card_ids, tokens = context_block(now=timezone.localtime(timezone.now(), user_zone(request.user)),
                                                 lines=lines, budget=params["budget"])
        return Response({"prompt": prompt, "cards": card_ids, "tokens": tokens})


