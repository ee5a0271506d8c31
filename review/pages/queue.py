"""Dashboard pages for reviewers: each scope's queue (candidates, rules,
possible duplicates, contradictions, hypotheses) and the decisions on them;
and every person's own part: what others said about them, and what their own agents proposed. The API's
selectors restrict (404 / 403), the review services decide."""

from __future__ import annotations

import datetime as dt
import re

from django.contrib import messages
from django.db import transaction
from django.db.models import prefetch_related_objects
from django.http import Http404
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _, gettext_lazy, ngettext, pgettext_lazy

from cards.drafts import PRECISION_SPAN
from cards.pages.forms import ConfirmForm
from cards.words.label_names import label_name
from cards.models import CardKind, Precision, TimeSource
from cards.selectors.entities import ME
from cards.selectors.shape import cards_out
from cards.text import normalize
from cards.time.when import zone_label
from core.dates import date_shown
from core.errors import DomainError, NotAllowed, database_rules_refuse
from core.pages import error_fields, refusal_message
from scopes.models import Scope
from scopes.pages.entry import page
from scopes.services import global_scope_get

from .forms import EDITED, ApproveForm, BulkForm, PickForm, ReasonForm, RejectForm, label_choices
from ..models import Candidate
from ..selectors import (candidate_get, contradiction_sides, dispute_sides, duplicate_get, hypothesis_get,
                         own_proposals, review_queue, reviews_waiting, rule_get, said_about_you, upkeep_get,
                         upkeep_shown, ward_proposals)
from ..services.candidates import (OPEN, candidate_approve, candidate_reject, candidate_when_resolve,
                                   candidate_zone)
from ..services.hypotheses import hypothesis_confirm, hypothesis_reject
from ..services.queue import contradiction_pick, duplicate_decide, rule_decide
from ..services.upkeep import upkeep_decide

# Who found a proposal (Candidate.extractor), as the queue names it: listed so the catalogue holds them.
EXTRACTOR_WORDS = (pgettext_lazy("who found a proposal", "patterns"), pgettext_lazy("who found a proposal", "llm"),
                   pgettext_lazy("who found a proposal", "signals"))



@page
def review_page(request, *, principal):
    """The person's own part (what was said about them, what their agents proposed), and the scopes they review."""
    return render(request, "review/index.html", _own_context(request, principal))


def _own_context(request, principal, *, bound: dict | None = None) -> dict:
    proposals = own_proposals(principal=principal).select_related("author", "scope", "proposed_by").order_by("id")
    scopes = list(Scope.objects.visible_to(principal, "review").order_by("kind", "name"))
    waiting = reviews_waiting(principal=principal)  # how much waits in each queue, as the home page counts it
    for scope in scopes:
        scope.waiting = waiting.get(scope.pk, 0)
    proposals = _candidate_items(list(proposals[:500]), bound or {}, viewer=request.user)
    wards = list(ward_proposals(principal=principal).select_related("author", "scope", "proposed_by")
                 .order_by("id")[:500])
    return {"scopes": scopes,
            "said_about_you": said_about_you(principal=principal),
            "proposals": proposals,
            "wards_proposals": wards}


# Why ingest proposed a candidate for long-term memory: it stores one of these English phrases
# (review.services.ingest._mark_long_term, also read by the API); the page shows it in its own language.
LONG_TERM_SHOWN = {"repeated in 2+ sessions": gettext_lazy("repeated in 2+ sessions"),
                   "repeated: already a preference on a card": gettext_lazy("repeated: already a preference on a card"),
                   "explicit preference or boundary": gettext_lazy("explicit preference or boundary"),
                   "impact 3": gettext_lazy("impact 3")}


def _candidate_items(candidates: list[Candidate], bound: dict, *, viewer) -> list[dict]:
    """Each candidate with its one form: its words (prefilled, or as sent when a
    decision was refused), its `when` and the date it resolves to, and the one
    reason box its approval and its rejection share."""
    prefetch_related_objects(candidates, "author")  # whose words: one query, not one per candidate
    items = []
    for c in candidates:
        approve, reject = bound.get(("approve", c.pk)), bound.get(("reject", c.pk))
        sent = reject.data if reject is not None else {}
        form = approve or ApproveForm(candidate=c, initial={name: sent.get(name, getattr(c, name))
                                                            for name in EDITED})
        reason = reject or RejectForm(auto_id=f"r{c.pk}_%s",
                                      initial={"reason": approve.data.get("reason", "") if approve else ""})
        problems = [*form.non_field_errors(), *(reject.non_field_errors() if reject is not None else [])]
        # A refused form shows the date its own `when` reads as (its error, if it cannot be read, is at the field).
        when = ({} if "when" in form.errors else _when_read(c, form.data.get("when", c.when), viewer=viewer)) \
            if form.is_bound else _when_stored(c, viewer=viewer)
        items.append({"c": c, "form": form, "reason": reason["reason"], "problems": problems, "when": when,
                      "about": _about(c), "named": _named(c),
                      "long_term": LONG_TERM_SHOWN.get(c.long_term, c.long_term)})
    return items


# --- the date a candidate's `when` resolves to, as people read dates (core/dates.py) ---------------

def _time_words(start: dt.datetime, end: dt.datetime | None, precision: str, *, tz, language) -> str:
    """"May 7, 2026", "Mar 2026", "week of May 4, 2026"; a span longer than its precision's unit
    (this weekend) from its first to its last day."""
    precision = precision or Precision.DATETIME
    first = date_shown(start, zone=tz, language=language, precision=precision)
    if end is None:
        return first
    if precision == Precision.DATETIME:
        return f"{first} – {date_shown(end, zone=tz, language=language, precision=precision)}"
    unit = PRECISION_SPAN.get(precision)
    if unit is not None and end > start.astimezone(tz) + unit:
        last = date_shown(end - dt.timedelta(microseconds=1), zone=tz, language=language, precision=precision)
        return f"{first} – {last}"
    return first


def _read_against(c: Candidate, tz, language) -> str:
    said = date_shown(c.message_at, zone=tz, language=language, precision=Precision.DATETIME)
    return _("read in %(zone)s, against the message of %(said)s") % {"zone": zone_label(tz), "said": said}


def _no_time(c: Candidate, tz, language) -> str:
    if c.kind == CardKind.EVENT:
        return _("No time given: the event is remembered undated.")
    said = date_shown(c.message_at, zone=tz, language=language, precision=Precision.DAY)
    return _("No time given: true from the message's time, %(said)s.") % {"said": said}


def _when_stored(c: Candidate, *, viewer) -> dict:
    """The time the candidate holds now (what approving as is writes)."""
    tz, language = candidate_zone(c), getattr(viewer, "language", None)
    if c.kind == CardKind.EVENT:
        start, end, precision = c.occurred_at, c.occurred_end, c.precision
    else:
        start, end, precision = c.effective_at, None, Precision.DAY
    if start is None:
        return {"none": _no_time(c, tz, language)}
    if c.when and c.time_source == TimeSource.MESSAGE:  # ingest could not read the words: the message's time
        how = _("“%(when)s” could not be read, so it is dated at the message, in %(zone)s") % {
            "when": c.when, "zone": zone_label(tz)}
    else:
        how = _read_against(c, tz, language)
    return {"shown": _time_words(start, end, precision, tz=tz, language=language), "how": how}


def _when_read(c: Candidate, when: str, *, viewer) -> dict:
    """What approving with `when` would write, or why it cannot."""
    if len(when) > ApproveForm.base_fields["when"].max_length:
        return {"problem": _("Say it in at most %(n)d characters.") % {"n": ApproveForm.base_fields["when"].max_length}}
    if when == c.when:
        return _when_stored(c, viewer=viewer)
    tz, language = candidate_zone(c), getattr(viewer, "language", None)
    try:
        interval = candidate_when_resolve(c, when)
    except DomainError as refused:  # words it cannot read (UnresolvableTime), or a zone it no longer knows
        return {"problem": refused.detail}
    if interval is None:
        return {"none": _no_time(c, tz, language)}
    # A state takes effect at the interval's start; an event occurs over all of it.
    end = interval.end if c.kind == CardKind.EVENT else None
    return {"shown": _time_words(interval.start, end, interval.precision, tz=tz, language=language),
            "how": _read_against(c, tz, language)}


LABEL_BOX = re.compile(r"c[0-9]{1,19}_label")


@page(methods=("GET",))
def label_choices_page(request):
    """The label picker's choices for the words typed into a candidate's label box
    (a fragment htmx swaps in under it): the registry is everyone's, so any signed-in person."""
    kind, target = request.GET.get("kind"), request.GET.get("for", "")
    words = request.GET.get("label", "")[:64]
    return render(request, "review/_label_choices.html", {
        "choices": label_choices(words, kind=kind if kind in CardKind.values else None), "words": words,
        "target": target if LABEL_BOX.fullmatch(target) else ""})


@page(methods=("GET",))
def candidate_when_page(request, candidate_id: int, *, principal):
    """The date a `when` typed into a candidate's form resolves to: a fragment the
    form swaps in as the reviewer types (htmx). Nothing is written; approving reads
    the words again on the server, so the page works without it."""
    candidate = candidate_get(principal=principal, candidate_id=candidate_id)
    answer = _when_read(candidate, request.GET.get("when", ""), viewer=request.user)
    return render(request, "review/_when_resolved.html", {"w": answer})


def _reviews(principal, candidate) -> bool:
    """Whether the person reviews the candidate's scope (else it is their own agent's proposal,
    decided from their own part of the review page)."""
    return Scope.objects.visible_to(principal, "review").filter(pk=candidate.scope_id).exists()


def _after_decision(request, principal, candidate):
    if _reviews(principal, candidate):
        return redirect("review-scope", scope_id=candidate.scope_id)
    return redirect("review")


def _decision_refused(request, principal, candidate, bound: dict):
    # Decided meanwhile (by someone else, or twice): say so where the person decides.
    if not Candidate.objects.in_scopes([candidate.scope_id]).filter(pk=candidate.pk, status__in=OPEN).exists():
        for problem in next(iter(bound.values())).non_field_errors():
            messages.error(request, problem)
        return _after_decision(request, principal, candidate)
    if _reviews(principal, candidate):
        return render(request, "review/queue.html", _queue_context(request, principal, candidate.scope, bound=bound),
                      status=400)
    return render(request, "review/index.html", _own_context(request, principal, bound=bound), status=400)


@page(methods=("POST",))
def said_about_you_pick_page(request, *, principal):
    """Keep your own card, or take a statement about you: only the person it is about may (403 for anyone else)."""
    form = PickForm(request.POST)
    if not form.is_valid():
        messages.error(request, _("Pick one of the values."))
        return redirect("review")
    try:
        with transaction.atomic():
            chosen, others, writable = dispute_sides(principal=principal, card_id=form.cleaned_data["card"])
            contradiction_pick(chosen=chosen, others=others, reviewer=request.user, writable=writable,
                               scope=chosen.scope, reason=form.cleaned_data["reason"])
    except DomainError as error:
        if error.status == 403:  # not the person it is about: the page's 403 (core.pages.page)
            raise
        messages.error(request, error.detail)
        return redirect("review")
    messages.success(request, _("%(value)s is now what is remembered of your %(label)s.") % {
        "value": chosen.value or chosen.object, "label": label_name(chosen.label.key)})
    return redirect("review")


def _queue_context(request, principal, scope, *, bound: dict | None = None, bulk: BulkForm | None = None) -> dict:
    queue = review_queue(principal=principal, scope=scope)
    bound = bound or {}
    candidates = _candidate_items(queue["candidates"], bound, viewer=request.user)
    contradiction_ids = [pk for c in queue["contradictions"] for pk in c.card_ids]
    hypothesis_ids = [card.pk for card in queue["hypotheses"]]
    shown = dict(zip(contradiction_ids + hypothesis_ids,
                     cards_out(contradiction_ids + hypothesis_ids, user=request.user)))
    return {
        "scope": scope,
        "candidates": candidates,
        # Ticked for a bulk decision: kept ticked when it is refused as a whole.
        "bulk": bulk or BulkForm(),
        "ticked": {int(v) for v in bulk.data.getlist("candidates") if v.isdigit()} if bulk is not None else set(),
        "rules": queue["rules"], "duplicates": queue["duplicates"],
        "contradictions": [{"cards": [shown[pk] for pk in c.card_ids], "error": bound.get(("pick", c.card_ids[0]))}
                           for c in queue["contradictions"]],
        "hypotheses": [{"card": shown[pk], "form": ConfirmForm(auto_id=f"h{pk}_%s")} for pk in hypothesis_ids],
        "upkeep": upkeep_shown(queue["upkeep"], user=request.user),
    }


@page(scope="scope_id", action="review")
def review_scope_page(request, scope, *, principal):
    return render(request, "review/queue.html", _queue_context(request, principal, scope))


@page(scope="scope_id", action="review", methods=("POST",))
def review_bulk_page(request, scope, *, principal):
    """Several candidates of one scope at once: approved as proposed, or rejected
    with one reason. Reviewers of the scope only (404 / 403 as for one). Each is
    decided by its service on its own, all or nothing, so one that cannot be (it
    needs consent, it has a problem, it was decided meanwhile) stays as it was and
    is named; ticked ids that are not this queue's refuse the whole request."""
    form, chosen = BulkForm(request.POST), []
    if form.is_valid():
        ids = form.cleaned_data["candidates"]
        # Said later, decided later: of two values of one single-value label, the later stays current.
        chosen = list(Candidate.objects.visible_to(principal, "review").filter(scope=scope, pk__in=ids)
                      .select_related("author", "scope", "proposed_by").order_by("message_at", "id"))
        if len(chosen) < len(ids):
            missing = len(ids) - len(chosen)
            form.add_error("candidates", ngettext(
                "%(missing)d of the %(n)d ticked proposals is not in this queue; nothing was decided. Tick them again.",
                "%(missing)d of the %(n)d ticked proposals are not in this queue; nothing was decided. "
                "Tick them again.", missing) % {"missing": missing, "n": len(ids)})
    if form.errors:
        return render(request, "review/queue.html", _queue_context(request, principal, scope, bulk=form), status=400)
    approve, reason = form.cleaned_data["decision"] == "approve", form.cleaned_data["reason"]
    decided, refused = [], []
    for candidate in chosen:
        try:
            with database_rules_refuse(), transaction.atomic():
                if approve:
                    candidate_approve(candidate=candidate, reviewer=request.user, reason=reason)
                else:
                    candidate_reject(candidate=candidate, reviewer=request.user, reason=reason)
        except DomainError as error:
            refused.append(f"{_named(candidate)} ({_why_not(error)})")
        else:
            decided.append(candidate)
    if decided:
        n = len(decided)
        messages.success(request, (ngettext("Approved %(n)d proposal: it is remembered.",
                                            "Approved %(n)d proposals: they are remembered.", n) if approve
                                   else ngettext("Rejected %(n)d proposal: it will not be remembered.",
                                                 "Rejected %(n)d proposals: they will not be remembered.", n))
                         % {"n": n})
    if refused:
        n, named = len(refused), "; ".join(refused)
        messages.error(request, (ngettext("Could not approve %(n)d proposal: %(named)s.",
                                          "Could not approve %(n)d proposals: %(named)s.", n) if approve
                                 else ngettext("Could not reject %(n)d proposal: %(named)s.",
                                               "Could not reject %(n)d proposals: %(named)s.", n))
                       % {"n": n, "named": named})
    return redirect("review-scope", scope_id=scope.pk)


def _about(c: Candidate) -> str:
    """Whom the candidate is about, as the reviewer reads it: "me" is the person who said it."""
    return c.author.shown_name if normalize(c.subject) == ME else c.subject


def _named(c: Candidate) -> str:
    """The candidate as its heading names it: whom it is about · its label in the page's words: its value."""
    return f"{_about(c)} · {label_name(c.label)}" + (f": {c.value}" if c.value else "")


def _why_not(error: DomainError) -> str:
    if error.code == "needs_consent":
        return _("it needs the person's explicit consent: approve it on its own, with the consent box")
    if error.code == "already_decided":
        return _("already decided")
    return refusal_message(error)


@page(methods=("POST",))
def candidate_approve_page(request, candidate_id: int, *, principal):
    candidate = candidate_get(principal=principal, candidate_id=candidate_id)
    form = ApproveForm(request.POST, candidate=candidate)
    if form.is_valid():
        try:
            with database_rules_refuse(), transaction.atomic():
                card = candidate_approve(candidate=candidate, reviewer=request.user, edits=form.edits(),
                                         consent=form.cleaned_data.get("consent", False),
                                         reason=form.cleaned_data["reason"])
        except DomainError as error:
            for field, problems in error_fields(error).items():
                form.add_error(field if field in form.fields else None, problems)
        else:
            messages.success(request, _("Approved: %(label)s of %(subject)s is remembered.") % {
                "label": label_name(card.label.key), "subject": card.subject.name})
            return _after_decision(request, principal, candidate)
    return _decision_refused(request, principal, candidate, {("approve", candidate.pk): form})


@page(methods=("POST",))
def candidate_reject_page(request, candidate_id: int, *, principal):
    candidate = candidate_get(principal=principal, candidate_id=candidate_id)
    form = RejectForm(request.POST, auto_id=f"r{candidate.pk}_%s")
    if form.is_valid():
        try:
            with database_rules_refuse(), transaction.atomic():
                candidate_reject(candidate=candidate, reviewer=request.user, reason=form.cleaned_data["reason"])
        except DomainError as error:
            form.add_error(None, error.detail)
        else:
            messages.success(request, _("Rejected; it will not be remembered."))
            return _after_decision(request, principal, candidate)
    return _decision_refused(request, principal, candidate, {("reject", candidate.pk): form})


def _refused(request, error: DomainError | NotAllowed, scope_id: int):
    messages.error(request, error.detail)
    return redirect("review-scope", scope_id=scope_id)


@page(methods=("POST",))
def rule_decide_page(request, rule_id: int, decision: str, *, principal):
    if decision not in ("approve", "retire"):
        raise Http404
    rule = rule_get(principal=principal, rule_id=rule_id)
    form = ReasonForm(request.POST)
    form.is_valid()
    scope = global_scope_get()
    try:
        rule_decide(rule=rule, reviewer=request.user, approve=decision == "approve",
                    reason=form.cleaned_data.get("reason", ""))
    except DomainError as error:
        return _refused(request, error, scope.pk)
    messages.success(request, (_("Rule %(name)s: approved.") if decision == "approve" else _("Rule %(name)s: retired."))
                     % {"name": rule.name})
    return redirect("review-scope", scope_id=scope.pk)


@page(methods=("POST",))
def duplicate_decide_page(request, duplicate_id: int, decision: str, *, principal):
    if decision not in ("merge", "apart"):
        raise Http404
    proposal = duplicate_get(principal=principal, duplicate_id=duplicate_id)
    form = ReasonForm(request.POST)
    form.is_valid()
    try:
        duplicate_decide(proposal=proposal, reviewer=request.user, merge=decision == "merge",
                         reason=form.cleaned_data.get("reason", ""))
    except DomainError as error:
        return _refused(request, error, proposal.scope_id)
    messages.success(request, (_("%(name)s: merged.") if decision == "merge" else _("%(name)s: kept apart."))
                     % {"name": proposal.entity.name})
    return redirect("review-scope", scope_id=proposal.scope_id)


@page(scope="scope_id", action="review", methods=("POST",))
def contradiction_pick_page(request, scope, *, principal):
    form = PickForm(request.POST)
    if not form.is_valid():
        messages.error(request, _("Pick one of the values."))
        return redirect("review-scope", scope_id=scope.pk)
    try:
        with transaction.atomic():
            chosen, others, writable = contradiction_sides(principal=principal, scope=scope,
                                                           card_id=form.cleaned_data["card"])
            contradiction_pick(chosen=chosen, others=others, reviewer=request.user, writable=writable, scope=scope,
                               reason=form.cleaned_data["reason"])
    except DomainError as error:
        return _refused(request, error, scope.pk)
    messages.success(request, _("%(value)s is now the current value.") % {"value": chosen.value})
    return redirect("review-scope", scope_id=scope.pk)


def _back(request, card):
    """Back where the button was: the review queue or the card page."""
    if request.POST.get("back") == "review":
        return redirect("review-scope", scope_id=card.scope_id)
    return redirect("card", card_id=card.pk)


@page(methods=("POST",))
def hypothesis_confirm_page(request, card_id: int, *, principal):
    card = hypothesis_get(principal=principal, card_id=card_id)
    form = ConfirmForm(request.POST)
    form.is_valid()
    try:
        stated = hypothesis_confirm(card=card, user=request.user, quote=form.cleaned_data.get("quote", ""),
                                    as_tag=form.cleaned_data.get("tag") or None,
                                    consent=form.cleaned_data.get("consent", False))
    except DomainError as error:
        messages.error(request, refusal_message(error))
    else:
        messages.success(request, _("Confirmed: no longer a guess."))
        card = stated
    return _back(request, card)


@page(methods=("POST",))
def hypothesis_reject_page(request, card_id: int, *, principal):
    card = hypothesis_get(principal=principal, card_id=card_id)
    form = ReasonForm(request.POST)
    form.is_valid()
    try:
        hypothesis_reject(card=card, user=request.user, reason=form.cleaned_data.get("reason", ""))
    except DomainError as error:
        messages.error(request, error.detail)
        return _back(request, card)
    messages.success(request, _("Rejected: the guess is discarded."))
    if request.POST.get("back") == "review":
        return redirect("review-scope", scope_id=card.scope_id)
    return redirect("scope", scope_id=card.scope_id)


UPKEEP_DONE = {"promote": gettext_lazy("Approved: it is long-term now."),
               "demote": gettext_lazy("Approved: it left MEMORY.md and is annotated stale in its daily note."),
               "merge": gettext_lazy("Approved: the knowledge is merged."),
               "archive": gettext_lazy("Approved: the project is archived: read-only, out of recall and context, "
                                       "until restored.")}


@page(methods=("POST",))
def upkeep_decide_page(request, proposal_id: int, decision: str, *, principal):
    """Approve (applied through its service) or reject a proposal of the weekly upkeep job."""
    if decision not in ("approve", "reject"):
        raise Http404
    proposal = upkeep_get(principal=principal, proposal_id=proposal_id)
    form = ReasonForm(request.POST)
    form.is_valid()
    try:
        with transaction.atomic():
            upkeep_decide(proposal=proposal, reviewer=request.user, approve=decision == "approve",
                          reason=form.cleaned_data.get("reason", ""))
    except (DomainError, NotAllowed) as error:  # archiving: an owner's act (scopes.archive)
        return _refused(request, error, proposal.scope_id)
    messages.success(request, UPKEEP_DONE[proposal.kind] if decision == "approve" else _("Rejected: nothing changes."))
    if decision == "approve" and proposal.kind == "archive":  # its queue is closed while it is archived
        return redirect("scope", scope_id=proposal.scope_id)
    return redirect("review-scope", scope_id=proposal.scope_id)
