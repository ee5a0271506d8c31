"""Users, scopes and memberships in the admin. Memberships are changed through
membership_set/membership_remove so guardian grants always follow the role;
someone added who is not yet a member is invited (scopes/invites.py), by consent;
the grant tables themselves are deliberately not registered."""

from __future__ import annotations

from django import forms
from django.contrib import admin, messages
from django.db.models import Count
from django.contrib.auth.admin import UserAdmin
from django.http import HttpRequest

from core.errors import DomainError

from .invites import invitation_create
from .members import shared_scope_check
from .models import Membership, Role, Scope, Share, User
from .services import membership_remove, membership_set, user_setup
from .visibility import ReadOnlyAdmin, ScopedAdmin


@admin.register(User)
class MemoryUserAdmin(UserAdmin):
    fieldsets = (
        *UserAdmin.fieldsets[:1],
        ("Memory", {"fields": ("display_name", "time_zone")}),
        *UserAdmin.fieldsets[1:],
    )
    add_fieldsets = (
        (None, {"classes": ("wide",),
                "fields": ("username", "display_name", "time_zone", "usable_password", "password1", "password2")}),
    )
    list_display = ("username", "display_name", "email", "time_zone", "is_staff", "is_active")
    search_fields = ("username", "display_name", "email")

    def save_model(self, request: HttpRequest, obj: User, form, change: bool) -> None:
        super().save_model(request, obj, form, change)
        if not change:
            # The creation form saves the row directly, bypassing the manager that
            # gives every user a personal scope and a "me" entity.
            user_setup(user=obj)

    def has_delete_permission(self, request: HttpRequest, obj=None) -> bool:
        # Same reason as scopes: a user whose personal scope holds cards is
        # deleted only after those cards are forgotten.
        if obj is None:
            return super().has_delete_permission(request)
        scope = getattr(obj, "personal_scope", None)
        holds_cards = scope is not None and scope.cards.in_scopes([scope.pk]).exists()
        return super().has_delete_permission(request, obj) and not holds_cards

    def get_actions(self, request: HttpRequest):
        # Bulk delete checks no object, so it would get around the rule above.
        actions = super().get_actions(request)
        actions.pop("delete_selected", None)
        return actions


class MembershipFormSet(forms.BaseInlineFormSet):
    def clean(self) -> None:
        super().clean()
        kept = [form for form in self.forms
                if (form.has_changed() or form.instance.pk) and not self._should_delete_form(form)
                and form.cleaned_data.get("user")]
        users = [form.cleaned_data["user"].pk for form in kept]
        if len(users) != len(set(users)):
            raise forms.ValidationError("A user can hold only one membership per scope.")
        # Someone new is invited (ScopeAdmin.save_formset): not an owner, nor a member, before accepting.
        members = set(Membership.objects.in_scopes([self.instance.pk]).values_list("user_id", flat=True)
                      if self.instance.pk else ())
        if any(pk not in members for pk in users):
            try:
                shared_scope_check(self.instance)
            except DomainError as refused:
                raise forms.ValidationError(refused.detail) from None
        if self.instance.pk and not any(form.cleaned_data.get("role") == Role.OWNER
                                        and form.cleaned_data["user"].pk in members for form in kept):
            raise forms.ValidationError("A scope must keep at least one owner (someone invited is not one "
                                        "until they accept).")
        if any(form.instance.minor and form.cleaned_data.get("role") == Role.OWNER for form in kept):
            # scopes/guardians.py: an owner is a guardian; the services refuse it too.
            raise forms.ValidationError("A minor cannot be an owner; unmark them as a minor first.")


class MembershipInline(ScopedAdmin, admin.TabularInline):
    model = Membership
    formset = MembershipFormSet
    fields = ("user", "role")
    raw_id_fields = ("user",)
    extra = 0


@admin.register(Scope)
class ScopeAdmin(admin.ModelAdmin):
    """Scopes are created through scope_create (which makes the creator owner);
    here they are renamed, moved on the ladder and given members."""

    list_display = ("id", "name", "kind", "parent", "owner", "member_count", "created_at")
    list_filter = ("kind",)
    list_select_related = ("parent", "owner")
    search_fields = ("name", "owner__username", "memberships__user__username")
    raw_id_fields = ("parent",)
    readonly_fields = ("kind", "owner", "created_at")
    fields = ("name", "kind", "parent", "owner", "created_at")
    inlines = (MembershipInline,)

    def get_queryset(self, request: HttpRequest):
        # One COUNT per page, not one query per listed scope.
        return super().get_queryset(request).annotate(members=Count("memberships"))

    @admin.display(description="members", ordering="members")
    def member_count(self, scope: Scope) -> int:
        return scope.members

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Scope | None = None) -> bool:
        # A personal scope belongs to its user; removing it would break "exactly one per user".
        # A scope holding cards goes only by forgetting them first: a cascade would
        # run into the write-once trigger on its events (an error page, not a deletion).
        return obj is None or (obj.owner_id is None and not obj.cards.in_scopes([obj.pk]).exists())

    def get_actions(self, request: HttpRequest):
        actions = super().get_actions(request)
        actions.pop("delete_selected", None)
        return actions

    def save_formset(self, request: HttpRequest, form, formset, change: bool) -> None:
        if formset.model is not Membership:
            return super().save_formset(request, form, formset, change)
        scope = form.instance
        staying, leaving = [], []
        for member_form in formset.forms:
            if formset._should_delete_form(member_form):
                if member_form.instance.pk:
                    leaving.append(member_form.instance)
            elif member_form.has_changed():
                staying.append(member_form)
        # New owners first and departures last, so a scope never passes through
        # a moment without an owner (membership_set/remove refuse that).
        staying.sort(key=lambda f: f.cleaned_data["role"] != Role.OWNER)
        staying_users = {f.cleaned_data["user"].pk for f in staying}
        formset.new_objects, formset.changed_objects, formset.deleted_objects = [], [], []
        members = set(Membership.objects.in_scopes([scope.pk]).values_list("user_id", flat=True))
        for member_form in staying:
            data, previous = member_form.cleaned_data, member_form.initial.get("user")
            if previous is not None and previous != data["user"].pk:
                leaving.append(Membership(scope=scope, user_id=previous))
            if data["user"].pk not in members:
                # Membership is by consent, here too: someone new is invited, and joins on accepting.
                invitation_create(scope=scope, username=data["user"].username, role=data["role"],
                                  invited_by=request.user)
                messages.info(request, f"{data['user'].shown_name} is invited as {data['role']}: they join "
                                       "when they accept, from their home page.")
                continue
            membership = membership_set(scope=scope, user=data["user"], role=data["role"])
            formset.changed_objects.append((membership, member_form.changed_data))
        for membership in (m for m in leaving if m.user_id not in staying_users):
            membership_remove(scope=scope, user=User.objects.get(pk=membership.user_id))
            formset.deleted_objects.append(membership)


@admin.register(Membership)
class MembershipAdmin(ScopedAdmin, ReadOnlyAdmin, admin.ModelAdmin):
    """Read-only overview; memberships are edited on their scope's page."""

    list_display = ("user", "scope", "role", "minor", "created_at")
    list_filter = ("role", "scope__kind")
    list_select_related = ("user", "scope")
    search_fields = ("user__username", "user__display_name", "scope__name")


@admin.register(Share)
class ShareAdmin(ScopedAdmin, ReadOnlyAdmin, admin.ModelAdmin):
    """Read-only: what a member shares is theirs alone to change (scopes/sharing.py)."""

    list_display = ("owner", "scope", "label_key", "created_at")
    list_select_related = ("owner", "scope")
    search_fields = ("owner__username", "scope__name", "label_key")
