"""Sharing by the person's choice (DESIGN §3), on the dashboard: the settings page's
"Sharing" section (its choices come from cards/templatetags/sharing.py), the card page's
"Share with <family>", and the one question after joining a family or team. Thin: the
choices are cards.selectors.sharing's, the writes cards.services.sharing's (the registry's
check) and the ladder's (who may share where)."""

from __future__ import annotations

from django.contrib import messages
from django.db import transaction
from django.http import Http404
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.translation import gettext as _

from core.errors import DomainError
from core.pages import back_to, refusal_message
from scopes.pages.entry import page
from scopes.sharing import SHARED_WITH

from ..selectors.cards import card_get
from ..selectors.sharing import card_sharing, sharing_choices
from ..services.sharing import sharing_choose, sharing_label_set
from ..words.label_names import label_name


def _said(scope, keys: list[str]) -> str:
    if not keys:
        return _("Nothing of yours is shared with %(scope)s.") % {"scope": scope.name}
    return _("%(scope)s now reads your %(labels)s.") % {
        "scope": scope.name, "labels": ", ".join(label_name(key) for key in keys)}


@page(scope="scope_id", methods=("POST",))
def sharing_save_page(request, scope, *, principal):
    """One family's or team's ticked labels become what the person shares there (nothing ticked: nothing)."""
    try:
        with transaction.atomic():
            kept = sharing_choose(principal=principal, scope=scope, labels=request.POST.getlist("labels"))
    except DomainError as refused:
        messages.error(request, refusal_message(refused))
    else:
        messages.success(request, _said(scope, kept))
    return redirect(back_to(request, reverse("settings") + "#sharing"))


@page(scope="scope_id")
def sharing_joined_page(request, scope, *, principal):
    """Asked once, on joining a family or team: what of yours may its members read? Nothing is
    ticked; "Not now" shares nothing. With nothing to offer, the scope's page straight away."""
    offered = sharing_choices(principal=principal, only=scope) if scope.kind in SHARED_WITH else []
    if not offered or not offered[0].choices:
        return redirect("scope", scope_id=scope.pk)
    return render(request, "cards/sharing_joined.html", {"scope": scope, "sharing": offered[0]})


@page(scope="scope_id", methods=("POST",))
def card_share_page(request, card_id: int, scope, *, principal):
    """Shares (or, with `shared=0`, stops sharing) the card's label with the family or team `scope`: only
    from a current card of the person's own, in their personal scope and about themselves."""
    card = card_get(principal=principal, card_id=card_id)
    if not card_sharing(principal=principal, card=card):
        raise Http404
    shared = request.POST.get("shared") != "0"
    try:
        with transaction.atomic():
            sharing_label_set(principal=principal, scope=scope, label=card.label.key, shared=shared)
    except DomainError as refused:
        messages.error(request, refusal_message(refused))
    else:
        words = (_("%(scope)s now reads your %(labels)s.") if shared
                 else _("%(scope)s no longer reads your %(labels)s."))
        messages.success(request, words % {"scope": scope.name, "labels": label_name(card.label.key)})
    return redirect("card", card_id=card.pk)
