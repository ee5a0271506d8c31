"""POST /api/v1/recall/ and GET /api/v1/context/: what an agent puts in its prompt."""

from __future__ import annotations

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.response import Response

from core.api.common import READ_SCOPE_HELP, InstantField, ScopeRefField, StrictSerializer
from core.api.errors import error_responses
from scopes.api.entry import View

from ..drafts import MAX_REF
from ..recall.routes import ROUTES
from ..selectors.context import context_read
from ..selectors.recall import recall_body
from .serializers import CardOut


class RecallIn(StrictSerializer):
    scope = ScopeRefField(required=False, allow_null=True, default=None, help_text=READ_SCOPE_HELP)
    query = serializers.CharField(max_length=2_000)
    k = serializers.IntegerField(min_value=1, max_value=100, required=False, default=10)
    when = serializers.CharField(max_length=200, required=False, allow_null=True, default=None,
                                 help_text='Only events that happened then: "last week", 昨天, "May 2026"…')
    tz = serializers.CharField(max_length=64, required=False, allow_null=True, default=None,
                               help_text="Zone for `when`; default yours.")
    as_of = InstantField(required=False, allow_null=True, default=None,
                                      help_text="Cards valid then, decayed as of then; default now.")
    subject = serializers.CharField(max_length=MAX_REF, required=False, allow_null=True, default=None,
                                    help_text='Only cards about this entity: "me", a name or an alias, bound as '
                                              "/answer/ binds it (an ambiguous name is refused).")


class ContextQuery(StrictSerializer):
    scope = ScopeRefField(required=False, allow_null=True, default=None, help_text=READ_SCOPE_HELP)
    query = serializers.CharField(max_length=2_000)
    budget = serializers.IntegerField(min_value=50, max_value=32_000, required=False, default=1_500,
                                      help_text="Most tokens the prompt may take (the embedding model's tokenizer).")
    k = serializers.IntegerField(min_value=1, max_value=100, required=False, default=20)
    when = serializers.CharField(max_length=200, required=False)
    tz = serializers.CharField(max_length=64, required=False)


class ScoredOut(serializers.Serializer):
    card = CardOut()
    similarity = serializers.FloatField(help_text="Cosine similarity of the card's vector to the query's (with "
                                                  "`vector` none: what the model gives unrelated text).")
    lexical = serializers.FloatField(help_text=(
        "The idf-weighted share of the query's words the card holds, in [0, 1]: names, rare nouns and Chinese "
        "words, segmented and with Traditional read as Simplified, are matched word for word."))
    relevance = serializers.FloatField(help_text="α × similarity + (1 − α) × lexical, + a boost when the card is "
                                                 "about an entity the query names (its name, an alias, a member's "
                                                 "name); below the floor a card is not returned. α, the boost and "
                                                 "the floor are the embedding model's (all-MiniLM-L6-v2: 0.4, 0.2 "
                                                 "and 0).")
    decay = serializers.FloatField(help_text="e^(−λ·Δt), λ from the label.")
    score = serializers.FloatField(help_text="relevance × decay. The k most relevant cards are chosen, then "
                                             "ordered by score: decay orders them, and never keeps a relevant "
                                             "card out for being old.")
    days = serializers.FloatField(help_text="Δt: days since the card was last made true or verified.")
    tier = serializers.ChoiceField(choices=["recorded", "hypothesis"],
                                   help_text="hypothesis: inferred, unconfirmed — never state it as fact.")
    vector = serializers.ChoiceField(choices=["stored", "computed", "none"], help_text=(
        "computed: the card has no stored vector yet (it is filled within minutes); its similarity was computed "
        "in this request by the same model, so the numbers are those it will have once stored. none: the card "
        "has no vector of the current embedding model (one of another model, not yet moved by a reembed; or "
        "none, and the request embeds no more): it is found by its words, or the entity the query names, and "
        "its similarity is what the model gives unrelated text."))


class UnembeddedOut(serializers.Serializer):
    scored = serializers.IntegerField(help_text="Candidates without a stored vector scored in this request.")
    left_out = serializers.BooleanField(help_text="More were waiting than are embedded in a request (16; none "
                                                  "while a reembed runs): those are scored by their words until "
                                                  "the embedding sweep (every few minutes) has run.")


_NOT_ASKED = ("null when it is not to be asked: asked already (`asked_at`), or a sensitive attribute, which is "
              "never put to a person as a question")


class AgingOut(CardOut):
    unverified_days = serializers.FloatField()
    question = serializers.CharField(allow_null=True, help_text=(
        f"What to ask the person; {_NOT_ASKED}, or a side of a listed contradiction, whose question covers it. "
        "Once asked, POST /api/v1/cards/{id}/asked/ with this card."))
    asked_at = serializers.DateTimeField(allow_null=True, help_text="When you said you asked, if you did, about the "
                                                                    "card as it stands.")


class ContradictionOut(serializers.Serializer):
    subject = serializers.CharField()
    subject_id = serializers.IntegerField()
    label = serializers.CharField()
    cards = CardOut(many=True)
    question_card = serializers.IntegerField(help_text="The card its question is recorded on (the newest side): "
                                                       "POST /api/v1/cards/{id}/asked/ with it once asked.")
    question = serializers.CharField(allow_null=True, help_text=f"What to ask the person; {_NOT_ASKED}.")
    asked_at = serializers.DateTimeField(allow_null=True)


class QuestionsWaitingOut(serializers.Serializer):
    contradictions = serializers.IntegerField()
    aging_facts = serializers.IntegerField()


class RecallOut(serializers.Serializer):
    results = ScoredOut(many=True)
    no_evidence = serializers.BooleanField(help_text="Nothing recorded answers the query, and `results` is empty: "
                                                     "nothing was found, or it asks for a person's attribute only "
                                                     "ever recorded under its label (phone, email, birthday, car, "
                                                     "partner, manager, school, advisor) and none holds for them. "
                                                     "Say you do not know, rather than guess.")
    aging_facts = AgingOut(many=True)
    contradictions = ContradictionOut(many=True)
    questions_waiting = QuestionsWaitingOut(help_text="How many of each may be put to your person now, beyond the "
                                                      "ones listed too. Ask one per reply.")
    at = serializers.DateTimeField(help_text="The time scores were decayed to (as_of, or now).")
    route = serializers.ChoiceField(choices=ROUTES, help_text="exact scan, or the vector index for broad reads.")
    unembedded = UnembeddedOut(help_text="Cards written moments ago, or while the embedder was down, have no "
                                         "vector yet; recall still scores the freshest of them (`vector`: computed).")


class QuestionOut(serializers.Serializer):
    kind = serializers.ChoiceField(choices=["contradiction", "aging", "probe"])
    card = serializers.IntegerField(help_text="POST /api/v1/cards/{card}/asked/ once you asked it.")
    text = serializers.CharField()


class ContextOut(serializers.Serializer):
    prompt = serializers.CharField()
    cards = serializers.ListField(child=serializers.IntegerField())
    tokens = serializers.IntegerField()
    question = QuestionOut(allow_null=True, help_text="The one question the prompt carries, if any.")
    questions_waiting = serializers.IntegerField(help_text="Questions left for later replies.")


class Recall(View):
    @extend_schema(request=RecallIn, responses={200: RecallOut, **error_responses(400, 401, 404, 503)},
                   summary="The cards most relevant to a query — meaning and words together — ordered by "
                           "relevance × decay, with aging facts and contradictions",
                   description="A time expression inside the query (\"what did we do last weekend?\", 上個月) "
                               "is resolved in your zone as `when` is (unless `when` is given) and restricts the "
                               "results to events then; the rest of the query is scored.")
    def post(self, request):
        data = RecallIn(data=request.data)
        data.is_valid(raise_exception=True)
        params = data.validated_data
        body, _ = recall_body(self.principal, scope_id=params["scope"], query=params["query"], k=params["k"],
                              when=params["when"], tz=params["tz"], as_of=params["as_of"],
                              subject=params["subject"])
        return Response(body)


class Context(View):
    @extend_schema(parameters=[ContextQuery], responses={200: ContextOut, **error_responses(400, 401, 404, 503)},
                   summary="The prompt-ready memory block for a query, within a token budget",
                   description=(
                       "The block carries at most one question for the person: the first contradiction, else "
                       "the first aging fact, else a hypothesis to probe — never a sensitive attribute, never "
                       "one already asked — and says how many more wait. It counts as asked only when you say "
                       "so with POST /api/v1/cards/{id}/asked/ (the `question.card`), never for having been shown. "
                       "The person's boundaries (cards tagged `boundary` about them) come first, in `<boundaries>`, "
                       "and are never cut by the budget: honour every one."))
    def get(self, request):
        query = ContextQuery(data=request.query_params.dict())
        query.is_valid(raise_exception=True)
        params = query.validated_data
        return Response(context_read(principal=self.principal, scope_id=params["scope"],
                                     query=params["query"], budget=params["budget"], k=params["k"],
                                     when=params.get("when"), tz=params.get("tz")))


