"""Admin rows a reviewer may see: those of the scopes they review (guardian
decides, through the principals). Staff and superusers are Django's as usual."""

from __future__ import annotations

from .principals import Principal, scope_ids_for
from .visibility import ScopedAdmin


def reviewable_scope_ids(user) -> list[int]:
    if not (user and user.is_active and user.is_authenticated):
        return []
    return list(scope_ids_for(Principal(user), "review").values_list("id", flat=True))


class ReviewerScoped(ScopedAdmin):
    """A scoped admin open to reviewers: superusers see everything; a reviewer
    sees, through the model's `visible_to`, the rows of the scopes they review."""

    scope_action = "review"

    def _scopes(self, request) -> list[int]:
        if not hasattr(request, "_reviewable_scopes"):
            request._reviewable_scopes = reviewable_scope_ids(request.user)
        return request._reviewable_scopes

    def _reviewer(self, request) -> bool:
        return not request.user.is_superuser and bool(self._scopes(request))

    def has_module_permission(self, request) -> bool:
        return super().has_module_permission(request) or self._reviewer(request)

    def has_view_permission(self, request, obj=None) -> bool:
        return super().has_view_permission(request, obj) or self._reviewer(request)

    def has_change_permission(self, request, obj=None) -> bool:
        return super().has_change_permission(request, obj) or self._reviewer(request)
