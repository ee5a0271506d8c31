"""The dashboard's page of one card, with its timeline, and what a person does
there: set their own phrasing, confirm it is still true, correct its
description, forget it (or its timeline, or its subject). Thin: the API's
selectors restrict (404 for what you may not see, 403 for what you may not
change), the services write."""

from __future__ import annotations

from django.contrib import messages
from django.db import transaction
from django.http import Http404
from django.shortcuts import redirect, render
from django.utils import timezone
from django.utils.translation import gettext as _

from core.errors import DomainError
from core.pages import refusal_message
from scopes.models import ScopeKind
from scopes.pages.entry import page
from scopes.zones import person_zone

from ..models import Card, CardKind, CardPerspective, CardRevision, Tag
from ..provenance import approvals_of
from ..selectors.cards import FORGET_ACTION, card_forgettable_get, card_get, card_history, perspectives_own
from ..selectors.shape import card_out, card_rows
from ..selectors.sharing import card_sharing
from ..services import card_describe, card_forget, card_verify, perspectives_set, subject_forget
from ..services.corrections import revision_shown
from .forms import ConfirmForm, DescribeForm, PerspectiveForm
from .rights import may
from .timeline import timeline_of


@page
def card_page(request, card_id: int, *, principal):
    card = card_get(principal=principal, card_id=card_id)
    history = card_history(card=card)
    in_scope = [card.scope_id]  # the scope card_get has just let the person see
    shown = {row["id"]: card_out(row) for row in card_rows(
        Card.objects.in_scopes(in_scope).filter(pk__in=[c.pk for c in history]), user=request.user)}
    may_write = may(principal, card.scope_id, "write")
    context = {
        "card": shown[card.pk], "model": card, "history": [shown[c.pk] for c in history],
        "timeline": (timeline_of(history, now=timezone.now(), shown={pk: row["value"] for pk, row in shown.items()},
                                 zone=person_zone(request.user))
                     if card.kind != CardKind.EVENT else None),
        "revisions": _revisions_shown(CardRevision.objects.in_scopes(in_scope).filter(card=card)
                                      .select_related("actor"), viewer=request.user),
        "approval": approvals_of([card.pk], scope_ids=in_scope).get(card.pk),
        "may_write": may_write,
        "may_forget": may_write or may(principal, card.scope_id, FORGET_ACTION),
        "describe_form": DescribeForm(initial={"text": card.text}),
        "confirm_form": ConfirmForm(auto_id="h_%s") if card.tag == Tag.HYPOTHESIS else None,
        # Your own phrasing only (DESIGN §3): the card's `text` above already reads in it.
        "perspective_form": (PerspectiveForm(initial={"text": _own_phrasing(card, request.user)})
                             if may_write and _shared(card) else None),
        "sharing": card_sharing(principal=principal, card=card),
    }
    return render(request, "cards/card.html", context)


def _revisions_shown(revisions, *, viewer) -> list[CardRevision]:
    """Each revision with `shown_before` and `shown_after`, as a person reads them (revision_shown)."""
    shown, zone = list(revisions), person_zone(viewer)
    for revision in shown:
        revision.shown_before = revision_shown(revision.field, revision.before, viewer_zone=zone)
        revision.shown_after = revision_shown(revision.field, revision.after, viewer_zone=zone)
    return shown


def _shared(card: Card) -> bool:
    """Only a shared scope has members whose phrasings differ."""
    return card.scope.kind not in (ScopeKind.PERSONAL, ScopeKind.GLOBAL)


def _own_phrasing(card: Card, user) -> str:
    own = perspectives_own(CardPerspective.objects.in_scopes([card.scope_id]).filter(card=card), user=user)
    return own.values_list("text", flat=True).first() or ""


@page(methods=("POST",))
def card_perspective_page(request, card_id: int, *, principal):
    """Sets the signed-in member's own phrasing; the form has no field naming
    anyone else, and the service refuses another member's phrasing anyway."""
    with transaction.atomic():
        card = card_get(principal=principal, card_id=card_id, action="write")
        form = PerspectiveForm(request.POST)
        if not _shared(card):
            messages.error(request, _("A %(kind)s scope has no other members to phrase it.")
                           % {"kind": _(card.scope.kind)})
        elif not form.is_valid():
            messages.error(request, _("Give your phrasing: a text of at most 2000 characters."))
        else:
            try:
                with transaction.atomic():
                    perspectives_set(card=card, actor=request.user,
                                     phrasings={request.user.username: form.cleaned_data["text"]},
                                     consent=form.cleaned_data["consent"])
            except DomainError as error:
                messages.error(request, refusal_message(error))
            else:
                messages.success(request, _("Phrasing saved: you read the card this way; nobody else sees it."))
    return redirect("card", card_id=card.pk)


@page(methods=("POST",))
def card_verify_page(request, card_id: int, *, principal):
    with transaction.atomic():
        card = card_get(principal=principal, card_id=card_id, action="write")
        try:
            card_verify(card=card, actor=request.user)
        except DomainError as error:
            messages.error(request, error.detail)
        else:
            messages.success(request, _("Confirmed: still true."))
    return redirect("card", card_id=card.pk)


@page(methods=("POST",))
def card_describe_page(request, card_id: int, *, principal):
    form = DescribeForm(request.POST)
    with transaction.atomic():
        card = card_get(principal=principal, card_id=card_id, action="write")
        if form.is_valid():
            try:
                card_describe(card=card, actor=request.user, text=form.cleaned_data["text"],
                              reason=form.cleaned_data["reason"], consent=form.cleaned_data["consent"])
            except DomainError as error:
                messages.error(request, refusal_message(error))
            else:
                messages.success(request, _("Description corrected; the old one is kept as a revision."))
        else:
            messages.error(request, _("A description cannot be empty."))
    return redirect("card", card_id=card.pk)


FORGET_WHAT = {"card", "timeline", "subject"}


@page
def card_forget_page(request, card_id: int, what: str = "card", *, principal):
    """Forget this card, its whole timeline (the label's history for its
    subject) or everything about its subject in its scope: GET asks for
    confirmation, POST forgets at once and completely and says the receipt in words."""
    if what not in FORGET_WHAT:
        raise Http404
    if request.method != "POST":
        card = card_forgettable_get(principal=principal, card_id=card_id)
        row = card_out(card_rows(Card.objects.in_scopes([card.scope_id]).filter(pk=card.pk), user=request.user).get())
        return render(request, "cards/forget.html", {"card": row, "what": what, "scope": card.scope})
    with transaction.atomic():
        card = card_forgettable_get(principal=principal, card_id=card_id)
        scope_id = card.scope_id
        if what == "card":
            receipt = card_forget(card=card, actor=request.user)
        else:
            receipt = subject_forget(principal=principal, scope=card.scope, subject=card.subject,
                                     label=card.label if what == "timeline" else None)
    messages.success(request, _("Forgotten: %(receipt)s. Only the fact that something was forgotten is kept.")
                     % {"receipt": receipt.words()})
    return redirect("scope", scope_id=scope_id)
