"""Admin for derivation rules and possible duplicate entities (cards' models,
decided by review). A rule is written as a draft and approved by someone else;
approval and retirement go through the review queue so the reviewer and time
are always recorded."""

from __future__ import annotations

from django import forms
from django.contrib import admin, messages
from django.http import HttpRequest
from django.urls import reverse
from django.utils.html import format_html

from cards.models import PossibleDuplicate, Rule, RuleStatus
from cards.rule_shape import rule_check
from core.errors import DomainError
from scopes.visibility import ScopedAdmin

from .services.queue import rule_decide


class RuleForm(forms.ModelForm):
    class Meta:
        model = Rule
        fields = ("name", "description", "premises", "conclusion")
        help_texts = {"premises": 'e.g. [["?x", "is_a", "?k"], ["?k", "used_for", "?v"]]',
                      "conclusion": 'e.g. ["?x", "used_for", "?v"]'}

    def clean(self):
        data = super().clean()
        if "premises" in data and "conclusion" in data:
            problems = rule_check(data["premises"], data["conclusion"])
            if problems:
                raise forms.ValidationError(problems)
        return data


@admin.register(Rule)
class RuleAdmin(ScopedAdmin, admin.ModelAdmin):
    form = RuleForm
    list_display = ("name", "status", "author", "reviewer", "approved_at")
    list_filter = ("status",)
    search_fields = ("name", "description")
    actions = ["approve", "retire"]

    def get_fieldsets(self, request: HttpRequest, obj: Rule | None = None):
        # This JSON form is for staff; people write rules on the dashboard's form (labels picked, a preview).
        scope = getattr(request.user, "personal_scope", None)
        where = reverse("rule-create", args=[scope.pk]) if scope is not None else reverse("review")
        return [(None, {"fields": self.form.Meta.fields, "description": format_html(
            'Patterns as JSON, for staff. <a href="{}">Write a rule on the dashboard</a> instead: labels picked '
            "from the registry, and a preview of what it would derive before it is approved.", where)})]

    def get_readonly_fields(self, request: HttpRequest, obj: Rule | None = None) -> tuple[str, ...]:
        # An approved or retired rule is history: change it by retiring it and writing a new one.
        if obj is not None and obj.status != RuleStatus.DRAFT:
            return ("name", "description", "premises", "conclusion")
        return ()

    def save_model(self, request, obj: Rule, form, change) -> None:
        if not change:
            obj.author, obj.status = request.user, RuleStatus.DRAFT
        super().save_model(request, obj, form, change)

    def has_delete_permission(self, request: HttpRequest, obj=None) -> bool:
        return False  # retire instead: answers given with a rule stay explainable

    @admin.action(description="Approve selected draft rules (used by answers at once)")
    def approve(self, request, queryset) -> None:
        self._decide(request, queryset, True, "approved")

    @admin.action(description="Retire selected rules (no longer derive)")
    def retire(self, request, queryset) -> None:
        self._decide(request, queryset, False, "retired")

    def _decide(self, request, queryset, approve: bool, verb: str) -> None:
        # Through the queue: recorded in the review log like every decision.
        done = 0
        for rule in queryset:
            try:
                rule_decide(rule=rule, reviewer=request.user, approve=approve, reason="decided in the admin")
                done += 1
            except DomainError as refused:
                self.message_user(request, f"{rule.name}: {refused.detail}", messages.ERROR)
        if done:
            self.message_user(request, f"{done} rule(s) {verb}.", messages.SUCCESS)


@admin.register(PossibleDuplicate)
class PossibleDuplicateAdmin(ScopedAdmin, admin.ModelAdmin):
    """Read-only here: merging (through an alias) or keeping apart is the review queue's decision."""

    list_display = ("entity", "similar_to", "score", "status", "created_at")
    list_filter = ("status",)
    list_select_related = ("entity", "similar_to")

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj=None) -> bool:
        return False
