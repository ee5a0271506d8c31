"""Card endpoints: thin — validate, call a selector or a service, shape."""

from __future__ import annotations

from collections.abc import Callable

from django.db import transaction
from django.http import Http404
from django.utils import timezone
from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.response import Response

from core.api.common import Page, page_of
from core.api.errors import ForbiddenAt, NotFoundAt, error_responses
from core.errors import DomainError, NotAllowed
from scopes.api.entry import View

from ..drafts import draft_from_request, spoken_at
from ..errors import InvalidCard
from ..selectors.card_list import cards_list
from ..selectors.cards import card_forgettable_get, card_get, card_history
from ..services import (Outcome, card_describe, card_forget, card_hold, card_remember, card_remember_batch,
                        card_verify, event_correct, perspectives_set)
from ..services.asked import card_asked
from ..services.write_told import writes_told
from ..signals import cards_proposed
from ..selectors.shape import card_out, card_shown, cards_shown, iso
from .serializers import (AskedOut, BulkIn, BulkOut, BulkProposedOut, CardCorrectIn, CardListQuery, CardOut,
                          CardPatchIn, CorrectedOut, ProposedOut, RememberIn, RememberOut)

SCREENED = (
    "Every card passes one screen before anything is stored (the same on every write path: single, bulk, the "
    "dashboard, the admin, import, ingest, review approval, hypothesis confirmation). What is never stored is "
    "refused with 400 `excluded` and its `rule`: `transient_feeling` (\"I'm so tired today\", 今天好累), "
    "`one_off_frustration` (\"ugh, the bus was late again\"), `speculative_motive` (\"maybe he's only nice "
    "because he wants something\"), `raw_conversation_log` (a pasted transcript with speaker turns) or `secret` "
    "(a password, PIN, door or alarm code, card number or one-time code with its value: \"the wifi password is "
    "hunter2\", 門禁密碼1234#; the word alone, \"I forgot my password\", passes); consent does not change that. A sensitive attribute — a label the registry marks sensitive, or words about "
    "health, religion, sexuality, ethnicity, politics, union membership, a criminal record or immigration "
    "status in the value, text, quote, object or perspectives, in English or Chinese (Traditional or "
    "Simplified) — needs `consent: true`, else 400 `needs_consent` with its `category` (`health`, `religion`, "
    "`sexuality`, `ethnicity`, `politics`, `trade_union`, `criminal_record`, `immigration_status`, or the "
    "sensitive label's own key). Both name the `field` that was refused.")



def _remember(view, data: dict):
    principal = view.principal
    scope = view.scope_named(data["scope"], action="write")
    draft = draft_from_request(data, principal=principal)
    return card_remember(scope=scope, actor=principal.user, draft=draft)


def _outcomes(principal, results) -> list[dict]:
    """What each committed write did, with its card as the caller sees it, read
    after commit. A card a concurrent forget removed since is reported as
    forgotten (its id, no card) — the write stands and is not to be retried —
    never re-read into a 500."""
    # By the written cards' scopes: on a cluster only their shards are asked.
    shown = cards_shown([r.card.pk for r in results], user=principal.user,
                        scope_ids=sorted({r.card.scope_id for r in results}))
    told = writes_told(results, user=principal.user)
    return [{"outcome": r.outcome, "card": shown.get(r.card.pk), "card_id": r.card.pk, "superseded": r.superseded,
             "forgotten": r.card.pk not in shown, **said} for r, said in zip(results, told)]


# Where a propose-only token's cards go instead of the store: the review queue,
# which receives cards.signals.cards_proposed (the store never imports the queue).
# It takes the principal and [(scope, draft)], and answers one
# {"outcome": "proposed", "candidate": {…}} per card, all or nothing.
Proposer = Callable[..., list[dict]]

PROPOSED_DESCRIPTION = (
    "A propose-only token (`access: \"propose\"`) stores nothing here: each card waits in its person's review "
    "queue as a candidate, and the answer is 202 `{\"outcome\": \"proposed\", \"candidate\": {…}}` "
    "(bulk: one per card, all or nothing). The person approves it (`POST /api/v1/review/{id}/approve/`), "
    "which writes it through the same rules as any card.")


def _proposer(view) -> Proposer:
    if not cards_proposed.has_listeners(type(view)):
        raise NotAllowed("This token only proposes, and this endpoint takes no proposals.")

    def propose(**named) -> list[dict]:
        (_receiver, answer), *_others = cards_proposed.send(sender=type(view), **named)
        return answer
    return propose


class CardListCreate(View):
    @extend_schema(operation_id="cards_list", parameters=[CardListQuery],
                   responses={200: page_of(CardOut), **error_responses(400, 401, 404)},
                   summary="List cards: current by default, or valid at `as_of`, or with history (current=false)")
    def get(self, request):
        query = CardListQuery(data=request.query_params.dict())
        query.is_valid(raise_exception=True)
        params = query.validated_data
        principal = self.principal
        # The dashboard's scope page lists through the same read (cards.selectors.card_list).
        rows = cards_list(principal, scope_id=params.get("scope"), subject=params.get("subject"),
                          kind=params.get("kind"), tag=params.get("tag"), label=params.get("label"),
                          as_of=params.get("as_of"), current=params["current"], when=params.get("when"),
                          tz=params.get("tz"))
        paginator = Page()
        page = paginator.paginate_queryset(rows, request, view=self)
        now = timezone.now()
        return paginator.get_paginated_response([card_out(row, now) for row in page])

    @extend_schema(request=RememberIn, responses={201: RememberOut, 200: RememberOut, 202: ProposedOut,
                                                  **error_responses(400, 401, 403, 404, 409)},
                   summary="Remember one card; the label registry decides supersede or accumulate",
                   description=SCREENED + " " + PROPOSED_DESCRIPTION + " "
                               "Answers with the card as stored. If someone forgot it in the moment between this "
                               "write committing and the answer being read, the answer says `forgotten: true` (with "
                               "`card` null and `card_id`): the write happened, so do not send it again.")
    def post(self, request):
        data = RememberIn(data=request.data)
        data.is_valid(raise_exception=True)
        principal = self.principal
        if principal.proposes:
            propose = _proposer(self)
            with transaction.atomic():
                scope = self.scope_named(data.validated_data["scope"], action="propose")
                draft = draft_from_request(data.validated_data, principal=principal)
                proposed = propose(principal=principal, items=[(scope, draft)], bulk=False)
            return Response(proposed[0], status=status.HTTP_202_ACCEPTED)
        with transaction.atomic():
            result = _remember(self, data.validated_data)
        created = result.outcome in (Outcome.INSERTED, Outcome.SUPERSEDED)
        return Response(_outcomes(principal, [result])[0],
                        status=status.HTTP_201_CREATED if created else status.HTTP_200_OK)


class CardBulk(View):
    @extend_schema(request=BulkIn, responses={201: BulkOut, 202: BulkProposedOut,
                                              **error_responses(400, 401, 403, 404, 409)},
                   summary="Remember up to 1,000 cards, all or nothing",
                   description=SCREENED + " In a batch, the first refused card refuses the whole batch: the body "
                               "names it with `index`, and nothing is stored. " + PROPOSED_DESCRIPTION + " "
                               "One result per card, in order. A result whose card someone forgot after the batch "
                               "committed says `forgotten: true` (with `card` null and `card_id`): the batch "
                               "happened, so do not send it again.")
    def post(self, request):
        envelope = BulkIn(data=request.data)
        envelope.is_valid(raise_exception=True)
        # One serializer for every item: a new one per card deep-copies its
        # eighteen fields each time, which was most of a bulk call's time.
        # The items as sent (a list of JSON objects, checked above): their JSON types are held to the schema's.
        each = RememberIn(many=True, data=request.data["cards"])
        if not each.is_valid():
            problems = {str(index): errors for index, errors in each.errors.items()}
            raise InvalidCard("Some cards are invalid; nothing was stored. See `fields.cards`.",
                              fields={"cards": problems})
        items = each.validated_data
        principal = self.principal
        propose = _proposer(self) if principal.proposes else None
        with transaction.atomic():
            scopes: dict[int, object] = {}
            pairs = []
            for index, data in enumerate(items):
                try:
                    if data["scope"] not in scopes:
                        scopes[data["scope"]] = self.scope_named(data["scope"],
                                                          action=principal.write_action)
                    pairs.append((scopes[data["scope"]], draft_from_request(data, principal=principal)))
                except DomainError as error:
                    error.extra.setdefault("index", index)
                    raise
                except Http404:
                    raise NotFoundAt(f"Card {index}: no such scope, or not yours. Nothing was stored.",
                                     index=index) from None
                except NotAllowed:
                    raise ForbiddenAt(f"Card {index}: you may not write in scope {data['scope']}. "
                                      "Nothing was stored.", index=index) from None
            try:
                if propose is not None:
                    proposed = propose(principal=principal, items=pairs, bulk=True)
                else:
                    results = card_remember_batch(actor=principal.user, items=pairs)
            except DomainError as error:
                error.detail = f"Card {error.extra.get('index')}: {error.detail} Nothing was stored."
                raise
        if propose is not None:
            return Response({"results": proposed}, status=status.HTTP_202_ACCEPTED)
        return Response({"results": _outcomes(principal, results)}, status=status.HTTP_201_CREATED)


def _card_to_correct(principal, card_id: int):
    """Who may correct a card (PATCH, correct): whoever may write in its scope — a person, or their agent's
    token with write access relaying them; else 404 (not theirs to see) or 403. Held (its timeline locked)
    until commit: a forget meanwhile is a 404, not a write to a deleted card."""
    return card_hold(card=card_get(principal=principal, card_id=card_id, action="write"))


class CardDetail(View):
    @extend_schema(responses={200: CardOut, **error_responses(401, 404)}, summary="One card")
    def get(self, request, card_id: int):
        principal = self.principal
        card = card_get(principal=principal, card_id=card_id)
        return Response(card_shown(card.pk, user=principal.user))

    @extend_schema(request=CardPatchIn, responses={200: CardOut, **error_responses(400, 401, 403, 404)},
                   summary="Correct the description (kept as a revision) and/or set your own phrasing",
                   description="`perspectives` sets your own phrasing of a card in a shared scope, keyed by your "
                               "username; another member's phrasing is theirs to set (403 `not_your_perspective`, "
                               "nothing changed) — only a new card's writer sets other members' phrasings, when "
                               "creating it. The new words pass the same screen as a new card: `excluded` (with "
                               "`rule`) for what is never stored, `needs_consent` (with `category`) for a sensitive "
                               "attribute sent without `consent: true`.")
    def patch(self, request, card_id: int):
        data = CardPatchIn(data=request.data)
        data.is_valid(raise_exception=True)
        principal = self.principal
        with transaction.atomic():
            card = _card_to_correct(principal, card_id)
            if "text" in data.validated_data:
                card_describe(card=card, actor=principal.user, text=data.validated_data["text"],
                              reason=data.validated_data["reason"], consent=data.validated_data["consent"])
            if "perspectives" in data.validated_data:
                perspectives_set(card=card, actor=principal.user, phrasings=data.validated_data["perspectives"],
                                 consent=data.validated_data["consent"])
            shown = card_shown(card.pk, user=principal.user)
        return Response(shown)

    @extend_schema(responses={204: None, **error_responses(401, 403, 404)},
                   summary="Forget now, completely (the audit log keeps only that it happened)",
                   description="The card goes with every copy of its words: its revisions, perspectives and "
                               "vector, the guesses promoted into it, what a knowledge merge copied from it into "
                               "another card's history, the review candidate it came from and the free text of "
                               "the decisions about it (a confirmation's quote, a reviewer's reason). A card it "
                               "had superseded stays closed. Whoever may write in the card's scope may forget "
                               "it. It waits for writes in progress on the card's timeline; a card already "
                               "forgotten (by an earlier call, or another one at the same moment) is 404. For a "
                               "whole timeline or everything about a subject, see `POST /forget/`.")
    def delete(self, request, card_id: int):
        principal = self.principal
        with transaction.atomic():
            card = card_forgettable_get(principal=principal, card_id=card_id)
            card_forget(card=card, actor=principal.user)
        return Response(status=status.HTTP_204_NO_CONTENT)


class CardHistory(View):
    @extend_schema(responses={200: page_of(CardOut), **error_responses(401, 404)},
                   summary="The card's timeline (supersede chain), oldest first")
    def get(self, request, card_id: int):
        principal = self.principal
        card = card_get(principal=principal, card_id=card_id)
        chain = [c.pk for c in card_history(card=card)]
        shown = cards_shown(chain, user=principal.user)  # less any card forgotten since the chain was read
        return Response({"results": [shown[pk] for pk in chain if pk in shown], "next": None})


class CardVerify(View):
    @extend_schema(request=None, responses={200: CardOut, **error_responses(401, 403, 404, 409)},
                   summary='"Still true": moves verified_at to now')
    def post(self, request, card_id: int):
        principal = self.principal
        with transaction.atomic():
            card = card_verify(card=card_get(principal=principal, card_id=card_id, action="write"),
                               actor=principal.user)
            shown = card_shown(card.pk, user=principal.user)
        return Response(shown)


class CardCorrect(View):
    @extend_schema(
        request=CardCorrectIn, responses={200: CorrectedOut, **error_responses(400, 401, 403, 404, 409)},
        summary="Correct an event's date, place or description said wrongly: the same event, never a second one",
        description=(
            "When the person says an event was told wrongly — \"Ana's wedding was Sunday, not Saturday\", "
            "\"it was in Porto, not Lisbon\" — correct it here instead of remembering it again (which would "
            "record a second event). The same card changes: `when` (resolved as `remember` resolves it, against "
            "`reference_time` in the speaker's zone) sets its occurrence, `object` its place or who or what it "
            "involved (bound as `remember` binds `object`), `text` its description. Each old value is kept as a "
            "revision (the card page shows it under Corrections; the export carries it, `when` as JSON with the "
            "card's own field names). That it happened, to whom and what kind of event it is never change: a "
            "write-once trigger refuses any other change. The answer is the card, as `GET /cards/{id}/` gives "
            "it, with `corrected`: what changed (empty, 200, when the card already said so). "
            "Only events: a state is refused with 400 `not_an_event` — remember its new value instead, which "
            "supersedes the old one. If the correction would make the card the same event as another already "
            "recorded (same value, the corrected day), 409 `same_event_exists` names that `card`: forget one of "
            "them instead. Whoever may write in the card's scope may correct it (as for `PATCH`): a read-only "
            "token gets 403, a card you cannot see 404. An unresolvable `when` is 400 `unresolvable_time`. The "
            "new words pass the same screen as a new card: `excluded` (with `rule`), `needs_consent` (with "
            "`category`) without `consent: true`."))
    def post(self, request, card_id: int):
        data = CardCorrectIn(data=request.data)
        data.is_valid(raise_exception=True)
        given = data.validated_data
        principal = self.principal
        tz, reference = spoken_at(given["reference_time"], given["tz"], user=principal.user)
        with transaction.atomic():
            card = _card_to_correct(principal, card_id)
            done = event_correct(card=card, actor=principal.user, when=given.get("when"), reference=reference,
                                 tz=tz, object=given.get("object"), text=given.get("text"), reason=given["reason"],
                                 consent=given["consent"])
            shown = card_shown(card.pk, user=principal.user)
        return Response({**shown, "corrected": done.corrected})


class CardQuestionAsked(View):
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
        principal = self.principal
        card = card_get(principal=principal, card_id=card_id)
        record = card_asked(card=card, user=principal.user)
        return Response({"card": card.pk, "asked_at": iso(record.asked_at)})

