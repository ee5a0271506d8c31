"""The admin is a window onto the card store, not a second write path: cards are
added only through card_remember, a changed description goes through
card_describe (so it is kept as a revision), and removal goes through
card_forget (so events can go and the audit log records it)."""

from __future__ import annotations

from django import forms
from django.contrib import admin
from django.db import transaction
from django.db.models import QuerySet
from django.http import HttpRequest

from scopes.admin_scoped import ReviewerScoped
from scopes.models import Membership
from scopes.visibility import ScopedAdmin

from .labels import registry_clear
from .models import Alias, AuditEvent, Card, CardPerspective, CardRevision, Entity, Label
from .services import card_describe, card_forget
from .text import normalize

# Everything that says what a card is, when it was true and where it came from.
CARD_READONLY_FIELDS = (
    "kind", "subject", "label", "cardinality", "value", "object", "occurred_at", "occurred_end", "precision",
    "time_source", "scope", "effective_at", "superseded_at", "superseded_by", "recorded_at", "verified_at",
    "stated_at", "source_actor", "source_session", "source_message", "source_quote",
)


class CurrentFilter(admin.SimpleListFilter):
    title = "validity"
    parameter_name = "current"

    def lookups(self, request, model_admin):
        return [("yes", "current"), ("no", "superseded or closed")]

    def queryset(self, request, queryset):
        if self.value() in ("yes", "no"):
            return queryset.filter(superseded_at__isnull=self.value() == "yes")
        return queryset


class CardForm(forms.ModelForm):
    class Meta:
        model = Card
        fields = ("tag", "text", "confidence", "impact")

    def clean_text(self) -> str:
        text = self.cleaned_data["text"]
        # card_describe keeps every description as a revision; it refuses an empty one.
        if "text" in self.changed_data and not text.strip():
            raise forms.ValidationError("A description can be corrected, not removed.")
        return text


class CardRevisionInline(ScopedAdmin, admin.TabularInline):
    model = CardRevision
    fields = readonly_fields = ("at", "actor", "field", "before", "after", "reason")
    extra = 0
    can_delete = False

    def has_add_permission(self, request, obj=None) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False


class PerspectiveForm(forms.ModelForm):
    class Meta:
        model = CardPerspective
        fields = ("user", "text")

    def clean_user(self):
        user = self.cleaned_data["user"]
        card = self.instance.card
        if not Membership.objects.in_scopes([card.scope_id]).filter(user=user).exists():
            raise forms.ValidationError("Perspectives are for members of the card's scope.")
        return user


class CardPerspectiveInline(ScopedAdmin, admin.TabularInline):
    model = CardPerspective
    form = PerspectiveForm
    raw_id_fields = ("user",)
    extra = 0


@admin.register(Card)
class CardAdmin(ReviewerScoped, admin.ModelAdmin):
    """Reviewers (guardian: the scopes they review) correct descriptions here; what
    happened, when and to whom stays read-only, and only superusers forget."""

    form = CardForm
    list_display = ("id", "kind", "label", "subject", "short_value", "scope", "is_current", "effective_at",
                    "occurred_at", "recorded_at")
    list_display_links = ("id", "short_value")
    list_filter = (CurrentFilter, "kind", "tag", "scope__kind", "label")
    list_select_related = ("label", "subject", "scope", "object")
    search_fields = ("value", "text", "subject__name", "scope__name")
    readonly_fields = CARD_READONLY_FIELDS
    fieldsets = (
        (None, {"fields": ("scope", "kind", "tag", "subject", "label", "cardinality", "value", "object", "text")}),
        ("Valid and record time", {"fields": ("effective_at", "superseded_at", "superseded_by", "recorded_at",
                                              "verified_at", "stated_at")}),
        ("Occurrence (events)", {"fields": ("occurred_at", "occurred_end", "precision", "time_source")}),
        ("Source", {"fields": ("source_actor", "source_session", "source_message", "source_quote")}),
        ("Scoring", {"fields": ("confidence", "impact")}),
    )
    inlines = (CardPerspectiveInline, CardRevisionInline)
    ordering = ("-recorded_at", "-id")

    @admin.display(description="value", ordering="value")
    def short_value(self, card: Card) -> str:
        shown = card.value or (str(card.object) if card.object_id else card.text)
        return shown if len(shown) <= 60 else f"{shown[:57]}…"

    @admin.display(description="current", boolean=True, ordering="superseded_at")
    def is_current(self, card: Card) -> bool:
        return card.is_current

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def get_readonly_fields(self, request: HttpRequest, obj: Card | None = None):
        # Descriptions are corrected here; turning a hypothesis into a fact is the
        # person's confirmation (review.services.hypotheses), never a form field.
        if request.user.is_superuser:
            return (*CARD_READONLY_FIELDS, "tag", "confidence")
        return (*CARD_READONLY_FIELDS, "tag", "confidence", "impact")

    def save_model(self, request: HttpRequest, obj: Card, form: forms.ModelForm, change: bool) -> None:
        # Only the editable columns are written, never a full-row save.
        plain = [name for name in form.changed_data if name != "text"]
        if plain:
            (Card.objects.in_scopes([obj.scope_id]).filter(pk=obj.pk)
             .update(**{name: getattr(obj, name) for name in plain}))
        if "text" in form.changed_data:
            card_describe(card=obj, actor=request.user, text=obj.text, reason="corrected in the admin")

    def delete_model(self, request: HttpRequest, obj: Card) -> None:
        card_forget(card=obj, actor=request.user)

    def delete_queryset(self, request: HttpRequest, queryset: QuerySet[Card]) -> None:
        for card in queryset:
            card_forget(card=card, actor=request.user)


class EntityForm(forms.ModelForm):
    class Meta:
        model = Entity
        fields = ("name", "kind")

    def clean_name(self) -> str:
        name = self.cleaned_data["name"]
        scope_id = self.instance.scope_id
        taken = (Entity.objects.in_scopes([scope_id]).filter(name_norm=normalize(name)).exclude(pk=self.instance.pk)
                 .exists() or Alias.objects.in_scopes([scope_id]).filter(name_norm=normalize(name)).exists())
        if not normalize(name) or taken:
            raise forms.ValidationError("Another entity or alias in this scope already has that name.")
        return name


class AliasInline(ScopedAdmin, admin.TabularInline):
    model = Alias
    fields = readonly_fields = ("name", "scope", "created_at")
    extra = 0

    def has_add_permission(self, request, obj=None) -> bool:
        return False


@admin.register(Entity)
class EntityAdmin(ScopedAdmin, admin.ModelAdmin):
    """Entities are created by writes; here they can be renamed or re-kinded."""

    form = EntityForm
    list_display = ("id", "name", "kind", "scope", "user", "created_at")
    list_filter = ("kind", "scope__kind")
    list_select_related = ("scope", "user")
    search_fields = ("name", "aliases__name", "user__username")
    readonly_fields = ("scope", "user", "created_at")
    inlines = (AliasInline,)

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Entity | None = None) -> bool:
        # A user's own entity ("me") lives and dies with the user.
        return obj is None or obj.user_id is None

    def get_actions(self, request: HttpRequest):
        # Bulk delete would not ask per row, so it could take a user's own entity.
        actions = super().get_actions(request)
        actions.pop("delete_selected", None)
        return actions


@admin.register(Alias)
class AliasAdmin(ScopedAdmin, admin.ModelAdmin):
    """Aliases are registered through alias_add, which checks for clashes; here they are read or removed."""

    list_display = ("name", "entity", "scope", "created_at")
    list_select_related = ("entity", "scope")
    search_fields = ("name", "entity__name")
    raw_id_fields = ("entity", "scope")

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj=None) -> bool:
        return False


@admin.register(Label)
class LabelAdmin(admin.ModelAdmin):
    list_display = ("key", "kind", "cardinality", "decay_lambda", "takes_object", "sensitive", "ages", "description")
    list_filter = ("kind", "cardinality", "sensitive", "ages", "takes_object")
    search_fields = ("key", "synonyms", "description")

    def get_readonly_fields(self, request: HttpRequest, obj: Label | None = None) -> tuple[str, ...]:
        # Cards copy the label's cardinality when written; changing it later would split old and new rules.
        return ("key", "kind", "cardinality") if obj is not None else ()

    def save_model(self, request, obj, form, change) -> None:
        super().save_model(request, obj, form, change)
        _registry_changed()

    def delete_model(self, request, obj) -> None:
        super().delete_model(request, obj)
        _registry_changed()

    def delete_queryset(self, request, queryset) -> None:
        super().delete_queryset(request, queryset)
        _registry_changed()


def _registry_changed() -> None:
    # The registry is cached per process: drop it now, and again once the change is visible to others.
    registry_clear()
    transaction.on_commit(registry_clear)


@admin.register(AuditEvent)
class AuditEventAdmin(ScopedAdmin, admin.ModelAdmin):
    """The audit log is read-only, for everyone."""

    list_display = ("at", "action", "actor", "scope", "object_type", "object_id")
    list_filter = ("action", "object_type")
    list_select_related = ("actor", "scope")
    date_hierarchy = "at"

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj=None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj=None) -> bool:
        return False
