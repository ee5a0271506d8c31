"""The review queue in the admin, for reviewers of each scope (guardian), with
bulk approve and reject; the decision log and ingest jobs, read-only."""

from __future__ import annotations

from django.contrib import admin, messages
from django.http import HttpRequest

from core.errors import DomainError
from core.pages import refusal_message
from scopes.admin_scoped import ReviewerScoped
from scopes.visibility import ReadOnlyAdmin

from .models import Candidate, Decision, IngestJob
from .services.candidates import OPEN, candidate_approve, candidate_reject


class OpenFilter(admin.SimpleListFilter):
    title = "queue"
    parameter_name = "open"

    def lookups(self, request, model_admin):
        return [("yes", "waiting"), ("no", "decided")]

    def queryset(self, request, queryset):
        if self.value() == "yes":
            return queryset.filter(status__in=OPEN)
        if self.value() == "no":
            return queryset.exclude(status__in=OPEN)
        return queryset


@admin.register(Candidate)
class CandidateAdmin(ReviewerScoped, admin.ModelAdmin):
    list_display = ("id", "status", "scope", "subject", "label", "value", "quote", "long_term", "problem",
                    "created_at")
    list_filter = (OpenFilter, "status", "extractor", "label")
    list_select_related = ("scope",)
    search_fields = ("quote", "value", "subject")
    readonly_fields = [f.name for f in Candidate._meta.fields]
    actions = ["approve", "reject"]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj=None) -> bool:
        return False  # a decision is recorded, never erased

    @admin.action(description="Approve selected candidates as they are")
    def approve(self, request, queryset) -> None:
        self._decide(request, queryset, lambda c: candidate_approve(candidate=c, reviewer=request.user,
                                                                    reason="approved in the admin"))

    @admin.action(description="Reject selected candidates")
    def reject(self, request, queryset) -> None:
        self._decide(request, queryset, lambda c: candidate_reject(candidate=c, reviewer=request.user,
                                                                   reason="rejected in the admin"))

    def _decide(self, request, queryset, decide) -> None:
        done = 0
        for candidate in queryset.filter(status__in=OPEN):
            try:
                decide(candidate)
                done += 1
            except DomainError as refused:  # e.g. a sensitive one without consent: approve it in the API
                self.message_user(request, f"#{candidate.pk}: {refusal_message(refused)}", messages.WARNING)
        self.message_user(request, f"{done} candidate(s) decided.", messages.SUCCESS)


@admin.register(Decision)
class DecisionAdmin(ReviewerScoped, ReadOnlyAdmin, admin.ModelAdmin):
    list_display = ("at", "reviewer", "item", "item_id", "action", "reason", "scope")
    list_filter = ("item", "action")


@admin.register(IngestJob)
class IngestJobAdmin(ReviewerScoped, ReadOnlyAdmin, admin.ModelAdmin):
    list_display = ("id", "scope", "session", "status", "extractor", "message_count", "attempts", "created_at")
    list_filter = ("status", "extractor")
    exclude = ("messages",)  # a conversation waiting for extraction is not for reading
    readonly_fields = ("scope", "session", "created_by", "status", "extractor", "message_count", "attempts",
                       "error", "result", "started_at", "finished_at")


from . import admin_rules  # noqa: E402,F401  (registers the rule and duplicate admins)
