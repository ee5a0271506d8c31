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
from django.utils import timezone

from core.errors import DomainError
from core.pages import refusal_message
from scopes.admin_scoped import ReviewerScoped
from scopes.models import Membership
from scopes.visibility import ReadOnlyAdmin, ScopedAdmin

from .labels import registry_clear
from .models import Alias, AuditEvent, Card, CardPerspective, CardRevision, Entity, Label
from .screen import content_screen
from .selectors.cards import perspectives_own
from .services import card_describe, card_forget, perspectives_set
from .services.corrections import revision_shown
from .services.entities import look_alikes_refuse
from .services.perspectives import MAX_PHRASING
from .text import name_in, normalize

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


def screened(fields: dict[str, str], consent: bool) -> None:
    """The write screen as a form error carrying its code, before anything is saved."""
    try:
        content_screen(fields=fields, consent=consent)
    except DomainError as refused:
        raise forms.ValidationError(refusal_message(refused), code=refused.code) from None


class CardForm(forms.ModelForm):
    consent = forms.BooleanField(required=False, label="The person explicitly agreed to store this",
                                 help_text="Needed when the new description mentions a sensitive attribute.")

    class Meta:
        model = Card
        fields = ("tag", "text", "confidence", "impact")

    def clean(self):
        data = super().clean()
        text = data.get("text")
        if "text" in self.changed_data and text is not None:
            # card_describe keeps every description as a revision; it refuses an empty one.
            if not text.strip():
                self.add_error("text", "A description can be corrected, not removed.")
            else:
                try:
                    screened({"text": text}, data.get("consent", False))
                except forms.ValidationError as refused:
                    self.add_error("text", refused)
        return data


class CardRevisionInline(ScopedAdmin, admin.TabularInline):
    model = CardRevision
    fields = readonly_fields = ("at", "actor", "field", "before_shown", "after_shown", "reason")
    extra = 0
    can_delete = False

    # An event's corrected time reads as the day it names, never the instants the revision keeps.
    @admin.display(description="before")
    def before_shown(self, revision: CardRevision) -> str:
        return revision_shown(revision.field, revision.before, viewer_zone=timezone.get_current_timezone())

    @admin.display(description="after")
    def after_shown(self, revision: CardRevision) -> str:
        return revision_shown(revision.field, revision.after, viewer_zone=timezone.get_current_timezone())

    def has_add_permission(self, request, obj=None) -> bool:
        return False

    def has_change_permission(self, request, obj=None) -> bool:
        return False


class PerspectiveForm(forms.ModelForm):
    consent = forms.BooleanField(required=False, label="consent",
                                 help_text="The person explicitly agreed to store a sensitive phrasing.")

    class Meta:
        model = CardPerspective
        fields = ("text",)

    def clean_text(self) -> str:
        text = self.cleaned_data["text"]
        if not text.strip() or "\x00" in text or len(text) > MAX_PHRASING:
            raise forms.ValidationError(f"A phrasing is a non-empty text of at most {MAX_PHRASING} characters.")
        return text

    def clean(self):
        data = super().clean()
        if "text" in self.changed_data and data.get("text"):
            try:
                screened({"perspective": data["text"]}, data.get("consent", False))
            except forms.ValidationError as refused:
                self.add_error("text", refused)
        return data


class CardPerspectiveInline(ScopedAdmin, admin.TabularInline):
    """Your own phrasing of the card, and nobody else's (DESIGN §3: never another
    member's, on every page alike — superusers and the scope's admins included;
    not even how many others phrase it, which on a birthday card would tell of a
    surprise). Saved through perspectives_set by CardAdmin.save_formset."""

    model = CardPerspective
    form = PerspectiveForm
    extra = 0
    max_num = 1
    can_delete = False  # as in the API: a phrasing is replaced, and goes with the card
    verbose_name = verbose_name_plural = "your phrasing (only you read it)"

    def get_queryset(self, request: HttpRequest) -> QuerySet:
        return perspectives_own(super().get_queryset(request), user=request.user)

    def has_add_permission(self, request: HttpRequest, obj: Card | None = None) -> bool:
        # A phrasing is a member's own: someone outside the card's scope has none to add.
        return (obj is not None and super().has_add_permission(request, obj)
                and Membership.objects.in_scopes([obj.scope_id]).filter(user=request.user).exists())


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
        ("Consent", {"fields": ("consent",)}),
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
            card_describe(card=obj, actor=request.user, text=obj.text, reason="corrected in the admin",
                          consent=form.cleaned_data.get("consent", False))

    def save_formset(self, request: HttpRequest, form, formset, change: bool) -> None:
        if formset.model is not CardPerspective:
            super().save_formset(request, form, formset, change)
            return
        # The inline holds only the signed-in person's row; the service sets it as theirs.
        formset.new_objects, formset.changed_objects, formset.deleted_objects = [], [], []  # the change message
        for row in formset.forms:
            if row.has_changed():
                saved = perspectives_set(card=form.instance, actor=request.user,
                                         phrasings={request.user.username: row.cleaned_data["text"]},
                                         consent=row.cleaned_data.get("consent", False))
                if row.instance.pk is None:
                    formset.new_objects += saved
                else:
                    formset.changed_objects += [(perspective, ["text"]) for perspective in saved]

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
        scope_id = self.instance.scope_id
        try:
            # As every other way in: read as it looks, never a look-alike of another entity's name.
            name = name_in(self.cleaned_data["name"])
            look_alikes_refuse(scope_id=scope_id, name=name, allowed=self.instance.pk)
        except DomainError as refused:
            raise forms.ValidationError(refused.detail) from None
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
class AuditEventAdmin(ScopedAdmin, ReadOnlyAdmin, admin.ModelAdmin):
    """The audit log is read-only, for everyone."""

    list_display = ("at", "action", "actor", "scope", "object_type", "object_id")
    list_filter = ("action", "object_type")
    list_select_related = ("actor", "scope")
    date_hierarchy = "at"
