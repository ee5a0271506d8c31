"""The admin site: staff as usual, and reviewers of shared scopes, who see only
the review models, only for the shared scopes they review. Who may come in is
decided once, by scopes/admin_scoped.py `admin_allowed`; which rows they see,
by its `ReviewerScoped`."""

from __future__ import annotations

from django.contrib import admin
from django.contrib.admin.apps import AdminConfig
from django.http import HttpRequest


class MemoryAdminSite(admin.AdminSite):
    site_header = "memory-site admin"

    def has_permission(self, request: HttpRequest) -> bool:
        # Imported here: this module is loaded as an app config, before any model.
        from scopes.admin_scoped import admin_allowed

        return admin_allowed(request.user)


class MemoryAdminConfig(AdminConfig):
    default_site = "memory_site.admin_site.MemoryAdminSite"
