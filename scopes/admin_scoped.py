"""Who may use the admin, and which rows a reviewer sees there. The admin is
for staff and for reviewers of shared scopes (family, team, …, and the global
scope's rules): people review their own personal scope's candidates in the
dashboard, so owning a personal scope — which makes everyone a reviewer of
it — opens nothing here. Staff and superusers are Django's as usual."""

from __future__ import annotations

from .models import Scope, ScopeKind
from .principals import Principal
from .visibility import ScopedAdmin


def admin_scope_ids(user) -> list[int]:
    """The shared scopes `user` reviews: what a person who is not staff sees in the admin."""
    if not (user and user.is_active and user.is_authenticated):
        return []
    return list(Scope.objects.visible_to(Principal(user), "review").exclude(kind=ScopeKind.PERSONAL)
                .values_list("id", flat=True))


def admin_allowed(user) -> bool:
    """The one answer to "may this person use the admin": active staff, or a reviewer of a shared scope."""
    if not (user and user.is_active and user.is_authenticated):
        return False
    return user.is_staff or bool(admin_scope_ids(user))


class ReviewerScoped(ScopedAdmin):
    """A scoped admin open to reviewers: superusers see everything; anyone else
    sees, through the model's `visible_to`, the rows of the shared scopes they
    review (their personal scope's are the dashboard's)."""

    scope_action = "review"

    def _scopes(self, request) -> list[int]:
        if not hasattr(request, "_reviewable_scopes"):
            request._reviewable_scopes = admin_scope_ids(request.user)
        return request._reviewable_scopes

    def _reviewer(self, request) -> bool:
        return not request.user.is_superuser and bool(self._scopes(request))

    def get_queryset(self, request):
        rows = super().get_queryset(request)
        if request.user.is_superuser:
            return rows
        return rows.in_scopes(self._scopes(request))

    def has_module_permission(self, request) -> bool:
        return super().has_module_permission(request) or self._reviewer(request)

    def has_view_permission(self, request, obj=None) -> bool:
        return super().has_view_permission(request, obj) or self._reviewer(request)

    def has_change_permission(self, request, obj=None) -> bool:
        return super().has_change_permission(request, obj) or self._reviewer(request)
