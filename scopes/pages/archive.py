"""Dashboard pages that archive a project (asking first, as removing a member
does) and restore it. Thin: the rule of who may is `archive_check`'s."""

from __future__ import annotations

from django.contrib import messages
from django.db import transaction
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _

from core.errors import DomainError

from ..archive import archive_check, scope_archive, scope_restore
from .entry import page


@page(scope="scope_id", action="manage", methods=("GET", "POST"))
def scope_archive_page(request, scope, *, principal):
    with transaction.atomic():
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


@page(scope="scope_id", action="manage", methods=("POST",))
def scope_restore_page(request, scope, *, principal):
    with transaction.atomic():
        try:
            scope_restore(principal=principal, scope=scope)
        except DomainError as refused:
            messages.error(request, refused.detail)
            return redirect("scope", scope_id=scope.pk)
    messages.success(request, _("%(scope)s is restored: it is written to and recalled as before.")
                     % {"scope": scope.name})
    return redirect("scope", scope_id=scope.pk)
