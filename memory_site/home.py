"""The dashboard's home: the scope ladder with each scope's health (cards,
reviews, hypotheses — every app's), and creating a scope from it. Thin: forms
validate, selectors restrict (the API's), services write."""

from __future__ import annotations

from django.contrib import messages
from django.db import transaction
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _

from core.errors import DomainError
from core.pages import error_fields
from scopes.pages.entry import page
from scopes.pages.forms import ScopeCreateForm
from scopes.guardians import is_minor
from scopes.models import Scope
from scopes.selectors import invitations_waiting, scope_get, scope_list
from scopes.services import scope_create

from .health import scopes_health
from .health_chart import chart_of, weekly_health


def ladder_order(scopes: list) -> list[tuple[object, int]]:
    """Scopes with their depth, each parent directly above its children; a scope
    whose parent the viewer cannot see starts a ladder of its own."""
    ids = {s.id for s in scopes}
    children: dict[int | None, list] = {}
    for scope in scopes:
        children.setdefault(scope.parent_id if scope.parent_id in ids else None, []).append(scope)
    ordered: list[tuple[object, int]] = []

    def walk(parent_id, depth):
        for scope in sorted(children.get(parent_id, []), key=lambda s: (s.kind == "global", s.name.lower())):
            ordered.append((scope, depth))
            walk(scope.id, depth + 1)
    walk(None, 0)
    return ordered


def _home_context(request, principal, form=None) -> dict:
    # Archived projects are listed apart, folded, without health: nothing happens in them.
    every = list(scope_list(principal=principal))
    scopes = [s for s in every if s.archived_at is None]
    health = scopes_health(principal=principal, scopes=scopes)
    manageable = list(Scope.objects.visible_to(principal, "manage").order_by("name"))
    rows = [{"scope": s, "depth": d, "indent": range(d), "health": health[s.id]} for s, d in ladder_order(scopes)]
    # Common sense is everyone's: its churn would drown the person's own scopes.
    weeks = weekly_health(principal=principal, scope_ids=[s.id for s in scopes if s.kind != "global"])
    return {"rows": rows, "form": form or ScopeCreateForm(parents=manageable), "weeks": weeks,
            "chart": chart_of(weeks), "invitations": invitations_waiting(principal=principal),
            "minor": is_minor(request.user),
            # A first sign-in: nothing remembered and nothing shared yet; the page says where to start.
            "starting": not any(row["health"].cards for row in rows if row["scope"].kind != "global")
            and all(s.kind in ("personal", "global") for s in scopes),
            "personal": next((s for s in scopes if s.kind == "personal"), None),
            "archived": sorted((s for s in every if s.archived_at is not None), key=lambda s: s.archived_at,
                               reverse=True)}


@page
def home(request, *, principal):
    return render(request, "scopes/home.html", _home_context(request, principal))


@page(methods=("POST",))
def scope_create_page(request, *, principal):
    manageable = list(Scope.objects.visible_to(principal, "manage").order_by("name"))
    form = ScopeCreateForm(request.POST, parents=manageable)
    if form.is_valid():
        try:
            with transaction.atomic():
                parent = None
                if form.cleaned_data["parent"]:
                    parent = scope_get(principal=principal, scope_id=form.cleaned_data["parent"], action="manage")
                scope = scope_create(name=form.cleaned_data["name"], kind=form.cleaned_data["kind"],
                                     creator=request.user, parent=parent)
        except DomainError as error:
            for field, problems in error_fields(error).items():
                form.add_error(None if field not in form.fields else field, problems)
        else:
            messages.success(request, _("Created %(scope)s.") % {"scope": scope})
            return redirect("scope", scope_id=scope.pk)
    return render(request, "scopes/home.html", _home_context(request, principal, form), status=400)
