"""The admin site: staff as usual, and also reviewers — people holding the
review role in some scope — who see only the review models, only for the
scopes they review (scopes/admin_scoped.py decides which rows)."""

from __future__ import annotations

from django.contrib import admin
from django.contrib.admin.apps import AdminConfig
from django.http import HttpRequest



class MemoryAdminSite(admin.AdminSite):
    site_header = "memory-site admin"

    def has_permission(self, request: HttpRequest) -> bool:
        # Imported here: this module is loaded as an app config, before any model.
        from scopes.admin_scoped import reviewable_scope_ids

        user = request.user
        return user.is_active and (user.is_staff or bool(reviewable_scope_ids(user)))


class MemoryAdminConfig(AdminConfig):
    default_site = "memory_site.admin_site.MemoryAdminSite"
