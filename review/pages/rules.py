"""Writing a derivation rule from a scope (issue 20: rules as a form, not JSON):
pick labels from the registry, preview what the rule would derive on what you
see of the scope, save it as a draft. A draft derives nothing: a reviewer of
common sense (the global scope) approves it through the review queue
(review.services.queue.rule_decide), never its author — and rules hold in every
scope once approved.

Who may write one: a person who may write or review in the scope (owner,
admin, member, reviewer). A viewer may not (403), nor anyone who cannot see the
scope (404); pages never act for an agent token, and tokens never approve."""

from __future__ import annotations

from django.contrib import messages
from django.db import IntegrityError, transaction
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _

from cards.answers.rule_preview import rule_preview
from cards.services.rules import rule_propose
from core.errors import DomainError
from core.pages import error_fields
from scopes.models import Scope
from scopes.pages.entry import page
from scopes.principals import Principal, scope_ids_for
from scopes.selectors import read_scope_ids
from scopes.visibility import first_allowed

from .rule_forms import SUGGESTED_TERMS, TERM_HELP, RuleWrite, rule_reading

FORM = "review/rule_form.html"
PREVIEW = "review/_rule_preview.html"


def rule_scope_get(*, principal: Principal, scope_id: int) -> Scope:
    """The scope a rule is written from, for a person who may write or review in it:
    404 if they may not see it, 403 if they may only look (one query)."""
    scopes = Scope.objects.visible_to(principal, "view").filter(pk=scope_id).allowed_in(
        scope_ids_for(principal, "write") | scope_ids_for(principal, "review"))
    return first_allowed(scopes, action="write rules")


def _context(scope: Scope, write: RuleWrite, **more) -> dict:
    return {"scope": scope, "write": write, "terms": SUGGESTED_TERMS, "term_help": TERM_HELP, **more}


@page(scope="scope_id", resolve=rule_scope_get, methods=("GET", "POST"))
def rule_create_page(request, scope, *, principal):
    """GET: the empty form. POST `action`: "add" (one more condition row),
    "preview" (what it would derive here; an htmx request gets the preview alone),
    "save" (a draft, authored by the person; then back to the scope's review
    page, or the scope's page for a member who does not review it). A rule that cannot run is a 400 with
    rule_check's words, and nothing is written."""
    if request.method == "GET":
        return render(request, FORM, _context(scope, RuleWrite()))
    action = request.POST.get("action", "save")
    if action == "add":
        return render(request, FORM, _context(scope, RuleWrite.with_row_added(request.POST)))
    write = RuleWrite(request.POST)
    fragment = action == "preview" and request.htmx
    if not write.is_valid():
        if fragment:  # htmx swaps only a 2xx answer: the problems are the preview's content
            return render(request, PREVIEW, {"problems": write.messages(), "scope": scope})
        return render(request, FORM, _context(scope, write), status=400)
    if action == "preview":
        rule = write.unsaved_rule()
        shown = {"preview": rule_preview(rule=rule, scope_ids=read_scope_ids(principal=principal, scope_id=scope.pk),
                                         user=request.user),
                 "reading": rule_reading(rule.premises, rule.conclusion)}
        if fragment:
            return render(request, PREVIEW, {"scope": scope, **shown})
        return render(request, FORM, _context(scope, write, **shown))
    try:
        with transaction.atomic():
            rule = rule_propose(name=write.name.cleaned_data["name"], premises=write.premise_patterns(),
                                conclusion=write.conclusion.pattern(), author=request.user,
                                description=write.name.cleaned_data["description"])
    except IntegrityError:
        write.name.add_error("name", _("A rule with this name exists already: pick another name."))
        return render(request, FORM, _context(scope, write), status=400)
    except DomainError as error:
        for problems in error_fields(error).values():
            write.problems += problems
        return render(request, FORM, _context(scope, write), status=400)
    messages.success(request, _("Rule “%(name)s” saved as a draft. It derives nothing until a reviewer of "
                                "common sense approves it; then it holds in every scope.") % {"name": rule.name})
    # Back where the form is linked from: the scope's review page, for those who review it.
    reviews = scope_ids_for(principal, "review").filter(id=scope.pk).exists()
    return redirect("review-scope" if reviews else "scope", scope_id=scope.pk)
