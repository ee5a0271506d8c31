"""Dashboard pages for reviewers: each scope's queue (candidates, rules,
possible duplicates, contradictions, hypotheses) and the decisions on them;
and every person's own part: what others said about them, and what their own agents proposed. The API's
selectors restrict (404 / 403), the review services decide."""

from __future__ import annotations

from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.db import transaction
from django.db.models import Count
from django.http import Http404
from django.shortcuts import redirect, render
from django.views.decorators.http import require_POST

from cards.forms import ConfirmForm
from cards.selectors.shape import cards_out
from core.errors import DomainError
from core.pages import error_fields, page, refusal_message
from scopes.models import Scope
from scopes.principals import principal_of_page
from scopes.selectors import scope_get
from scopes.services import global_scope_get

from .forms import ApproveForm, PickForm, ReasonForm, RejectForm
from .models import Candidate, CandidateStatus
from .selectors import (candidate_get, contradiction_sides, dispute_sides, duplicate_get, hypothesis_get,
                        own_proposals, review_queue, rule_get, said_about_you)
from .services.candidates import OPEN, candidate_approve, candidate_reject
from .services.hypotheses import hypothesis_confirm, hypothesis_reject
from .services.queue import contradiction_pick, duplicate_decide, rule_decide


@page
def review_page(request):
    """The person's own part (what was said about them, what their agents proposed), and the scopes they review."""
    return render(request, "review/index.html", _own_context(request))


def _own_context(request, *, bound: dict | None = None) -> dict:
    principal = principal_of_page(request)
    proposals = own_proposals(principal=principal).select_related("author", "scope", "proposed_by").order_by("id")
    scopes = list(Scope.objects.visible_to(principal, "review").order_by("kind", "name"))
    # How much waits in each queue, in one query.
    waiting = dict(Candidate.objects.in_scopes([s.pk for s in scopes]).filter(status=CandidateStatus.PENDING)
                   .values("scope_id").annotate(n=Count("id")).values_list("scope_id", "n"))
    for scope in scopes:
        scope.waiting = waiting.get(scope.pk, 0)
    return {"scopes": scopes,
            "said_about_you": said_about_you(principal=principal),
            "proposals": _candidate_items(proposals[:500], bound or {})}


def _candidate_items(candidates, bound: dict) -> list[dict]:
    return [{"c": c, "approve": bound.get(("approve", c.pk)) or ApproveForm(candidate=c),
             "reject": bound.get(("reject", c.pk)) or RejectForm(auto_id=f"r{c.pk}_%s")} for c in candidates]


def _reviews(request, candidate) -> bool:
    """Whether the person reviews the candidate's scope (else it is their own agent's proposal,
    decided from their own part of the review page)."""
    return Scope.objects.visible_to(principal_of_page(request), "review").filter(pk=candidate.scope_id).exists()


def _after_decision(request, candidate):
    if _reviews(request, candidate):
        return redirect("review-scope", scope_id=candidate.scope_id)
    return redirect("review")


def _decision_refused(request, candidate, bound: dict):
    # Decided meanwhile (by someone else, or twice): say so where the person decides.
    if not Candidate.objects.in_scopes([candidate.scope_id]).filter(pk=candidate.pk, status__in=OPEN).exists():
        for problem in next(iter(bound.values())).non_field_errors():
            messages.error(request, problem)
        return _after_decision(request, candidate)
    if _reviews(request, candidate):
        return render(request, "review/queue.html", _queue_context(request, candidate.scope, bound=bound), status=400)
    return render(request, "review/index.html", _own_context(request, bound=bound), status=400)


@page
@require_POST
def said_about_you_pick_page(request):
    """Keep your own card, or take a statement about you: only the person it is about may (403 for anyone else)."""
    principal = principal_of_page(request)
    form = PickForm(request.POST)
    if not form.is_valid():
        messages.error(request, "Pick one of the values.")
        return redirect("review")
    try:
        with transaction.atomic():
            chosen, others, writable = dispute_sides(principal=principal, card_id=form.cleaned_data["card"])
            contradiction_pick(chosen=chosen, others=others, reviewer=request.user, writable=writable,
                               scope=chosen.scope, reason=form.cleaned_data["reason"])
    except DomainError as error:
        if error.status == 403:
            raise PermissionDenied(error.detail) from None
        messages.error(request, error.detail)
        return redirect("review")
    messages.success(request, f"{chosen.value or chosen.object} is now what is remembered of your {chosen.label.key}.")
    return redirect("review")


def _queue_context(request, scope, *, bound: dict | None = None) -> dict:
    principal = principal_of_page(request)
    queue = review_queue(principal=principal, scope=scope)
    bound = bound or {}
    contradiction_ids = [pk for c in queue["contradictions"] for pk in c.card_ids]
    hypothesis_ids = [card.pk for card in queue["hypotheses"]]
    shown = dict(zip(contradiction_ids + hypothesis_ids,
                     cards_out(contradiction_ids + hypothesis_ids, user=request.user)))
    return {
        "scope": scope,
        "candidates": _candidate_items(queue["candidates"], bound),
        "rules": queue["rules"], "duplicates": queue["duplicates"],
        "contradictions": [{"cards": [shown[pk] for pk in c.card_ids], "error": bound.get(("pick", c.card_ids[0]))}
                           for c in queue["contradictions"]],
        "hypotheses": [{"card": shown[pk], "form": ConfirmForm(auto_id=f"h{pk}_%s")} for pk in hypothesis_ids],
    }


@page
def review_scope_page(request, scope_id: int):
    scope = scope_get(principal=principal_of_page(request), scope_id=scope_id, action="review")
    return render(request, "review/queue.html", _queue_context(request, scope))


@page
@require_POST
def candidate_approve_page(request, candidate_id: int):
    principal = principal_of_page(request)
    candidate = candidate_get(principal=principal, candidate_id=candidate_id)
    form = ApproveForm(request.POST, candidate=candidate)
    if form.is_valid():
        try:
            with transaction.atomic():
                card = candidate_approve(candidate=candidate, reviewer=request.user, edits=form.edits(),
                                         consent=form.cleaned_data.get("consent", False),
                                         reason=form.cleaned_data["reason"])
        except DomainError as error:
            for field, problems in error_fields(error).items():
                form.add_error(field if field in form.fields else None, problems)
        else:
            messages.success(request, f"Approved: {card.label.key} of {card.subject.name} is remembered.")
            return _after_decision(request, candidate)
    return _decision_refused(request, candidate, {("approve", candidate.pk): form})


@page
@require_POST
def candidate_reject_page(request, candidate_id: int):
    principal = principal_of_page(request)
    candidate = candidate_get(principal=principal, candidate_id=candidate_id)
    form = RejectForm(request.POST, auto_id=f"r{candidate.pk}_%s")
    if form.is_valid():
        try:
            candidate_reject(candidate=candidate, reviewer=request.user, reason=form.cleaned_data["reason"])
        except DomainError as error:
            form.add_error(None, error.detail)
        else:
            messages.success(request, "Rejected; it will not be remembered.")
            return _after_decision(request, candidate)
    return _decision_refused(request, candidate, {("reject", candidate.pk): form})


def _refused(request, error: DomainError, scope_id: int):
    messages.error(request, error.detail)
    return redirect("review-scope", scope_id=scope_id)


@page
@require_POST
def rule_decide_page(request, rule_id: int, decision: str):
    if decision not in ("approve", "retire"):
        raise Http404
    rule = rule_get(principal=principal_of_page(request), rule_id=rule_id)
    form = ReasonForm(request.POST)
    form.is_valid()
    scope = global_scope_get()
    try:
        rule_decide(rule=rule, reviewer=request.user, approve=decision == "approve",
                    reason=form.cleaned_data.get("reason", ""))
    except DomainError as error:
        return _refused(request, error, scope.pk)
    messages.success(request, f"Rule {rule.name}: {'approved' if decision == 'approve' else 'retired'}.")
    return redirect("review-scope", scope_id=scope.pk)


@page
@require_POST
def duplicate_decide_page(request, duplicate_id: int, decision: str):
    if decision not in ("merge", "apart"):
        raise Http404
    proposal = duplicate_get(principal=principal_of_page(request), duplicate_id=duplicate_id)
    form = ReasonForm(request.POST)
    form.is_valid()
    try:
        duplicate_decide(proposal=proposal, reviewer=request.user, merge=decision == "merge",
                         reason=form.cleaned_data.get("reason", ""))
    except DomainError as error:
        return _refused(request, error, proposal.entity.scope_id)
    messages.success(request, f"{proposal.entity.name}: {'merged' if decision == 'merge' else 'kept apart'}.")
    return redirect("review-scope", scope_id=proposal.entity.scope_id)


@page
@require_POST
def contradiction_pick_page(request, scope_id: int):
    principal = principal_of_page(request)
    scope = scope_get(principal=principal, scope_id=scope_id, action="review")
    form = PickForm(request.POST)
    if not form.is_valid():
        messages.error(request, "Pick one of the values.")
        return redirect("review-scope", scope_id=scope.pk)
    try:
        with transaction.atomic():
            chosen, others, writable = contradiction_sides(principal=principal, scope=scope,
                                                           card_id=form.cleaned_data["card"])
            contradiction_pick(chosen=chosen, others=others, reviewer=request.user, writable=writable, scope=scope,
                               reason=form.cleaned_data["reason"])
    except DomainError as error:
        return _refused(request, error, scope.pk)
    messages.success(request, f"{chosen.value} is now the current value.")
    return redirect("review-scope", scope_id=scope.pk)


def _back(request, card):
    """Back where the button was: the review queue or the card page."""
    if request.POST.get("back") == "review":
        return redirect("review-scope", scope_id=card.scope_id)
    return redirect("card", card_id=card.pk)


@page
@require_POST
def hypothesis_confirm_page(request, card_id: int):
    card = hypothesis_get(principal=principal_of_page(request), card_id=card_id)
    form = ConfirmForm(request.POST)
    form.is_valid()
    try:
        stated = hypothesis_confirm(card=card, user=request.user, quote=form.cleaned_data.get("quote", ""),
                                    as_tag=form.cleaned_data.get("tag") or None,
                                    consent=form.cleaned_data.get("consent", False))
    except DomainError as error:
        messages.error(request, refusal_message(error))
    else:
        messages.success(request, "Confirmed: no longer a guess.")
        card = stated
    return _back(request, card)


@page
@require_POST
def hypothesis_reject_page(request, card_id: int):
    card = hypothesis_get(principal=principal_of_page(request), card_id=card_id)
    form = ReasonForm(request.POST)
    form.is_valid()
    try:
        hypothesis_reject(card=card, user=request.user, reason=form.cleaned_data.get("reason", ""))
    except DomainError as error:
        messages.error(request, error.detail)
        return _back(request, card)
    messages.success(request, "Rejected: the guess is discarded.")
    if request.POST.get("back") == "review":
        return redirect("review-scope", scope_id=card.scope_id)
    return redirect("scope", scope_id=card.scope_id)
