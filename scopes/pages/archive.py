"""Dashboard pages that archive a project (asking first, as removing a member
does) and restore it. Thin: the rule of who may is `archive_check`'s."""

from __future__ import annotations

from django.contrib import messages
from django.db import transaction
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.views.decorators.http import require_http_methods, require_POST

from core.errors import DomainError
from core.pages import page

from ..archive import archive_check, scope_archive, scope_restore
from ..principals import principal_of_page
from ..selectors import scope_get


@page
@require_http_methods(["GET", "POST"])
def scope_archive_page(request, scope_id: int):
    principal = principal_of_page(request)
    with transaction.atomic():
        scope = scope_get(principal=principal, scope_id=scope_id, action="manage")
        try:
            archive_check(principal=principal, scope=scope)
            if request.method == "GET":  # asks first: every agent stops writing there at once
                return render(request, "scopes/archive.html", {"scope": scope})
            scope_archive(principal=principal, scope=scope)
        except DomainError as refused:
            messages.error(request, refused.detail)
            return redirect("scope", scope_id=scope.pk)
    messages.success(request, _("%(scope)s is archived: read-only, and left out of default recall and context.")
                     % {"scope": scope.name})
    return redirect("scope", scope_id=scope.pk)


@page
@require_POST
def scope_restore_page(request, scope_id: int):
    principal = principal_of_page(request)
    with transaction.atomic():
        scope = scope_get(principal=principal, scope_id=scope_id, action="manage")
        try:
            scope_restore(principal=principal, scope=scope)
        except DomainError as refused:
            messages.error(request, refused.detail)
            return redirect("scope", scope_id=scope.pk)
    messages.success(request, _("%(scope)s is restored: it is written to and recalled as before.")
                     % {"scope": scope.name})
    return redirect("scope", scope_id=scope.pk)
