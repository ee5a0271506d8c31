"""The admin site: staff as usual, and also reviewers — people holding the
review role in some scope — who see only the review models, only for the
scopes they review (guardian decides, through scopes.principals)."""

from __future__ import annotations

from django.contrib import admin
from django.contrib.admin.apps import AdminConfig
from django.http import HttpRequest

from scopes.visibility import ScopedAdmin


def reviewable_scope_ids(user) -> list[int]:
    from scopes.principals import Principal, scope_ids_for

    if not (user and user.is_active and user.is_authenticated):
        return []
    return list(scope_ids_for(Principal(user), "review").values_list("id", flat=True))


class MemoryAdminSite(admin.AdminSite):
    site_header = "memory-site admin"

    def has_permission(self, request: HttpRequest) -> bool:
        user = request.user
        return user.is_active and (user.is_staff or bool(reviewable_scope_ids(user)))


class MemoryAdminConfig(AdminConfig):
    default_site = "memory_site.admin_site.MemoryAdminSite"


class ReviewerScoped(ScopedAdmin):
    """A scoped admin open to reviewers: they see the rows of the scopes they review."""

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
