"""The dashboard's page of a scope's cards: the list with its filters (the
ladder, a writer, the to-re-check and contradiction views, as of a day, the
history), and adding a card there. Thin: the API's selectors restrict (404 for
what you may not see, 403 for what you may not change), the services write."""

from __future__ import annotations

import datetime as dt

from django.contrib import messages
from django.core.paginator import Paginator
from django.db import transaction
from django.shortcuts import redirect, render
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop

from core.errors import DomainError
from core.pages import error_fields
from scopes.archive import scope_archive_offer
from scopes.guardians import guardians_note, is_minor
from scopes.pages.entry import page
from scopes.pages.forms import InviteForm
from scopes.selectors import read_scope_ids, scope_leave_state
from scopes.zones import person_zone

from ..drafts import draft_from_request
from ..models import Card
from ..provenance import approvals_of
from ..selectors.card_list import cards_list
from ..selectors.read_scopes import read_of
from ..selectors.shape import card_out
from ..selectors.writers import writers_of
from ..services import card_remember
from .forms import CardAddForm, CardFilterForm
from .rights import may

PER_PAGE = 25

# Stored words the templates show through {% translate value %}: listed here so that the catalogue holds them
# (scope kinds and roles are scopes.models' KIND_NAMES and ROLE_NAMES).
SHOWN_WORDS = (
    # card kinds, tags, cardinalities, and how sure a guess is
    gettext_noop("state"), gettext_noop("event"), gettext_noop("knowledge"),
    gettext_noop("fact"), gettext_noop("preference"), gettext_noop("goal"), gettext_noop("boundary"),
    gettext_noop("hypothesis"), gettext_noop("single"), gettext_noop("multi"),
    gettext_noop("high"), gettext_noop("medium"), gettext_noop("low"),
    # entity kinds
    gettext_noop("person"), gettext_noop("place"), gettext_noop("organization"), gettext_noop("thing"),
    gettext_noop("kind"), gettext_noop("concept"),
    # how precisely a day is known
    gettext_noop("datetime"), gettext_noop("day"), gettext_noop("week"), gettext_noop("month"), gettext_noop("year"),
    # what a write did
    gettext_noop("inserted"), gettext_noop("superseded"), gettext_noop("reinforced"), gettext_noop("duplicate"),
)


def _filtered(principal, form: CardFilterForm, *, scope_ids: list[int]):
    """The card list (the API's read, cards.selectors.card_list) with the page's form as its filters; an
    unknown label is the form's error."""
    data = form.cleaned_data
    as_of = None
    if data.get("view") == "as_of":
        zone = person_zone(principal.user)
        # As the chosen day ended, in the viewer's zone.
        as_of = (dt.datetime.combine(data["as_of"] + dt.timedelta(days=1), dt.time(), tzinfo=zone)
                 - dt.timedelta(microseconds=1))
    try:
        # `by`: one of the writers the form offered (the viewer may see their cards); "aging" and
        # "contradictions": the home page's "to re-check" and its contradictions, card by card.
        return cards_list(principal, scope_ids=scope_ids, by=data.get("by"), aging=data.get("view") == "aging",
                          contradictions=data.get("view") == "contradictions", kind=data.get("kind"),
                          tag=data.get("tag"), label=data.get("label"), as_of=as_of,
                          current=data.get("view") != "history", text=data.get("q"))
    except DomainError as error:
        form.add_error("label", error_fields(error)["label"])
        return Card.objects.none().values()


def _scope_context(request, principal, scope, *, add_form=None) -> dict:
    ladder = read_scope_ids(principal=principal, scope_id=scope.pk)
    # Whoever wrote what the page can list, with or without the ladder: the choice stays valid either way.
    people, agents = writers_of(Card.objects.in_scopes(ladder))
    filters = CardFilterForm(request.GET or {"view": "current"}, people=people, agents=agents)
    rows = Card.objects.none().values()
    if filters.is_valid():
        # With what members share with this scope (shown as theirs: the card's subject and scope say whose).
        ids = read_of(ladder if filters.cleaned_data["ladder"] else [scope.pk], principal=principal)
        rows = _filtered(principal, filters, scope_ids=ids)
    paginator = Paginator(rows.order_by("-effective_at", "-id"), PER_PAGE)
    shown = paginator.get_page(request.GET.get("page"))
    query = request.GET.copy()
    query.pop("page", None)
    may_write = may(principal, scope.pk, "write")
    cards = [card_out(row) for row in shown]
    approvals = approvals_of((card["id"] for card in cards), scope_ids=sorted({card["scope"] for card in cards}))
    for card in cards:
        card["approval"] = approvals.get(card["id"])
    return {"scope": scope, "filters": filters, "filters_open": filters.is_set(), "page": shown, "cards": cards,
            "query": query.urlencode(), "may_write": may_write, "may_manage": may(principal, scope.pk, "manage"),
            "add_form": add_form or (CardAddForm() if may_write else None), "invite_form": InviteForm(),
            "leave": scope_leave_state(principal=principal, scope=scope),
            # A minor's page offers no invite and no leaving a family, and says who reads their memory.
            "minor": is_minor(principal.user),
            "archive": scope_archive_offer(principal=principal, scope=scope),
            "guardians": guardians_note(principal=principal, scope=scope)}


@page(scope="scope_id")
def scope_page(request, scope, *, principal):
    context = _scope_context(request, principal, scope)
    if request.htmx and request.htmx.target == "card-list":
        # htmx swaps only a 2xx: the list carries the form's errors in its place.
        return render(request, "cards/_card_list.html", context)
    return render(request, "cards/scope.html", context, status=400 if context["filters"].errors else 200)


@page(scope="scope_id", action="write", methods=("POST",))
def card_add(request, scope, *, principal):
    form = CardAddForm(request.POST)
    with transaction.atomic():
        if form.is_valid():
            try:
                with transaction.atomic():
                    draft = draft_from_request(form.draft_data(), principal=principal)
                    result = card_remember(scope=scope, actor=request.user, draft=draft)
            except DomainError as error:
                for field, problems in error_fields(error).items():
                    form.add_error(field if field in form.fields else None, problems)
            else:
                messages.success(request, _("Remembered (%(outcome)s).") % {"outcome": _(result.outcome)})
                return redirect("card", card_id=result.card.pk)
    return render(request, "cards/scope.html", _scope_context(request, principal, scope, add_form=form),
                  status=400)
