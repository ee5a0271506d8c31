"""Card endpoints: thin — validate, call a selector or a service, shape."""

from __future__ import annotations

from django.db import transaction
from django.http import Http404
from django.utils import timezone
from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.exceptions import PermissionDenied
from rest_framework.response import Response
from rest_framework.views import APIView

from core.api.common import Page
from core.api.errors import ForbiddenAt, NotFoundAt, error_responses
from core.errors import DomainError
from scopes.models import Scope
from scopes.principals import principal_of
from scopes.selectors import read_scope_ids, scope_get

from ..drafts import draft_from_request, when_interval
from ..errors import InvalidCard
from ..models import Card
from ..selectors.cards import card_get, card_history, cards_filtered, cards_in_interval
from ..services import (Outcome, card_describe, card_remember_batch, card_forget, card_remember, card_verify,
                        perspectives_set)
from ..services.asked import card_asked
from ..selectors.entities import entity_bind
from ..selectors.shape import card_out, card_rows, cards_out, iso
from .serializers import (AskedOut, BulkIn, BulkOut, CardListQuery, CardOut, CardPatchIn, RememberIn, RememberOut)

def _shown(principal, card_ids) -> list[dict]:
    """Re-read written cards as the caller sees them (perspective included)."""
    return cards_out(card_ids, user=principal.user)


def _remember(principal, data: dict):
    scope = scope_get(principal=principal, scope_id=data["scope"], action="write")
    draft = draft_from_request(data, principal=principal)
    return card_remember(scope=scope, actor=principal.user, draft=draft)


def _outcome_body(result, card: dict) -> dict:
    return {"outcome": result.outcome, "card": card, "superseded": result.superseded}


class CardListCreate(APIView):
    @extend_schema(parameters=[CardListQuery], responses={200: CardOut(many=True), **error_responses(400, 401, 404)},
                   summary="List cards: current by default, or valid at `as_of`, or with history (current=false)")
    def get(self, request):
        query = CardListQuery(data=request.query_params.dict())
        query.is_valid(raise_exception=True)
        params = query.validated_data
        principal = principal_of(request)
        if "scope" in params:
            visible_ids = read_scope_ids(principal=principal, scope_id=params["scope"])
        else:
            # The caller's visible scopes as a list of ids (see read_scope_ids).
            visible_ids = list(Scope.objects.visible_to(principal, "view").values_list("id", flat=True))
        cards = Card.objects.in_scopes(visible_ids)
        if "subject" in params:
            # Bound as /answer/ binds it: among the scopes read, merges followed;
            # an ambiguous name is refused with its candidates, an unknown one lists nothing.
            binding = entity_bind(name=params["subject"], scope_ids=visible_ids, speaker=principal.user)
            binding.one(params["subject"])
            cards = cards.filter(subject_id__in=binding.entity_ids)
        cards = cards_filtered(cards, kind=params.get("kind"), tag=params.get("tag"), label=params.get("label"),
                               as_of=params.get("as_of"), current=params["current"])
        if "when" in params:
            cards = cards_in_interval(cards, when_interval(params["when"], tz_name=params.get("tz"),
                                                          user=principal.user))
        paginator = Page()
        page = paginator.paginate_queryset(card_rows(cards, user=principal.user), request, view=self)
        now = timezone.now()
        return paginator.get_paginated_response([card_out(row, now) for row in page])

    @extend_schema(request=RememberIn, responses={201: RememberOut, 200: RememberOut,
                                                  **error_responses(400, 401, 403, 404, 409)},
                   summary="Remember one card; the label registry decides supersede or accumulate")
    def post(self, request):
        data = RememberIn(data=request.data)
        data.is_valid(raise_exception=True)
        principal = principal_of(request)
        with transaction.atomic():
            result = _remember(principal, data.validated_data)
        card = _shown(principal, [result.card.pk])[0]
        created = result.outcome in (Outcome.INSERTED, Outcome.SUPERSEDED)
        return Response(_outcome_body(result, card), status=status.HTTP_201_CREATED if created else status.HTTP_200_OK)


class CardBulk(APIView):
    @extend_schema(request=BulkIn, responses={201: BulkOut, **error_responses(400, 401, 403, 404, 409)},
                   summary="Remember up to 1,000 cards, all or nothing")
    def post(self, request):
        envelope = BulkIn(data=request.data)
        envelope.is_valid(raise_exception=True)
        # One serializer for every item: a new one per card deep-copies its
        # eighteen fields each time, which was most of a bulk call's time.
        each = RememberIn(many=True, data=envelope.validated_data["cards"])
        if not each.is_valid():
            problems = {str(index): errors for index, errors in each.errors.items()}
            raise InvalidCard("Some cards are invalid; nothing was stored. See `fields.cards`.",
                              fields={"cards": problems})
        items = each.validated_data
        principal = principal_of(request)
        with transaction.atomic():
            scopes: dict[int, object] = {}
            pairs = []
            for index, data in enumerate(items):
                try:
                    if data["scope"] not in scopes:
                        scopes[data["scope"]] = scope_get(principal=principal, scope_id=data["scope"], action="write")
                    pairs.append((scopes[data["scope"]], draft_from_request(data, principal=principal)))
                except DomainError as error:
                    error.extra.setdefault("index", index)
                    raise
                except Http404:
                    raise NotFoundAt(f"Card {index}: no such scope, or not yours. Nothing was stored.",
                                     index=index) from None
                except PermissionDenied:
                    raise ForbiddenAt(f"Card {index}: you may not write in scope {data['scope']}. "
                                      "Nothing was stored.", index=index) from None
            try:
                results = card_remember_batch(actor=principal.user, items=pairs)
            except DomainError as error:
                error.detail = f"Card {error.extra.get('index')}: {error.detail} Nothing was stored."
                raise
        shown = _shown(principal, [r.card.pk for r in results])
        return Response({"results": [_outcome_body(r, card) for r, card in zip(results, shown)]},
                        status=status.HTTP_201_CREATED)


class CardDetail(APIView):
    @extend_schema(responses={200: CardOut, **error_responses(401, 404)}, summary="One card")
    def get(self, request, card_id: int):
        principal = principal_of(request)
        card = card_get(principal=principal, card_id=card_id)
        return Response(_shown(principal, [card.pk])[0])

    @extend_schema(request=CardPatchIn, responses={200: CardOut, **error_responses(400, 401, 403, 404)},
                   summary="Correct the description (kept as a revision) and/or set perspectives")
    def patch(self, request, card_id: int):
        data = CardPatchIn(data=request.data)
        data.is_valid(raise_exception=True)
        principal = principal_of(request)
        with transaction.atomic():
            card = card_get(principal=principal, card_id=card_id, action="write")
            if "text" in data.validated_data:
                card_describe(card=card, actor=principal.user, text=data.validated_data["text"],
                              reason=data.validated_data["reason"])
            if "perspectives" in data.validated_data:
                perspectives_set(card=card, phrasings=data.validated_data["perspectives"])
        return Response(_shown(principal, [card.pk])[0])

    @extend_schema(responses={204: None, **error_responses(401, 403, 404)},
                   summary="Forget now, completely (the audit log keeps only that it happened)")
    def delete(self, request, card_id: int):
        principal = principal_of(request)
        with transaction.atomic():
            card = card_get(principal=principal, card_id=card_id, action="write")
            card_forget(card=card, actor=principal.user)
        return Response(status=status.HTTP_204_NO_CONTENT)


class CardHistory(APIView):
    @extend_schema(responses={200: CardOut(many=True), **error_responses(401, 404)},
                   summary="The card's timeline (supersede chain), oldest first")
    def get(self, request, card_id: int):
        principal = principal_of(request)
        card = card_get(principal=principal, card_id=card_id)
        chain = [c.pk for c in card_history(card=card)]
        return Response({"results": _shown(principal, chain), "next": None})


class CardVerify(APIView):
    @extend_schema(request=None, responses={200: CardOut, **error_responses(401, 403, 404, 409)},
                   summary='"Still true": moves verified_at to now')
    def post(self, request, card_id: int):
        principal = principal_of(request)
        with transaction.atomic():
            card = card_get(principal=principal, card_id=card_id, action="write")
            card_verify(card=card, actor=principal.user)
        return Response(_shown(principal, [card.pk])[0])


class CardQuestionAsked(APIView):
    @extend_schema(
        request=None, responses={200: AskedOut, **error_responses(401, 404)},
        summary="The agent put this card's check-in question to its person: it is not asked again",
        description=(
            "Call it once the person has actually been asked the question the context block or recall gave "
            "for this card: an aging fact's “is this still accurate?”, a contradiction's “which is current?” "
            "(recorded on the contradiction's `question_card`), or a hypothesis to confirm. Only then does "
            "the question count as asked — never for having been shown in a context block that may have been "
            "cut or ignored. From then on the context does not carry it for this person again while the card "
            "stands as it was; a confirmation (`verify`) or a new value brings it back once the card ages "
            "again. A hypothesis is never probed twice. Asking writes nothing to the memory, so any token "
            "that can read the card may call it. Idempotent: the first time is kept."))
    def post(self, request, card_id: int):
        principal = principal_of(request)
        card = card_get(principal=principal, card_id=card_id)
        record = card_asked(card=card, user=principal.user)
        return Response({"card": card.pk, "asked_at": iso(record.asked_at)})

