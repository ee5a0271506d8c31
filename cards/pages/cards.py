"""Dashboard pages for cards: a scope's cards (filters, add), one card with its
timeline, and verify / correct / forget. Thin: the API's selectors restrict
(404 for what you may not see, 403 for what you may not change), the services write."""

from __future__ import annotations

import datetime as dt

from django.contrib import messages
from django.contrib.auth import logout
from django.core.paginator import Paginator
from django.db import transaction
from django.db.models import Prefetch
from django.http import Http404
from django.shortcuts import redirect, render
from django.utils import timezone
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop
from django.views.decorators.http import require_POST

from core.errors import DomainError
from core.pages import error_fields, page, refusal_message
from scopes.pages.forms import InviteForm
from scopes.models import Scope, ScopeKind
from scopes.principals import principal_of_page
from scopes.archive import scope_archive_offer
from scopes.selectors import read_scope_ids, scope_get, scope_leave_state
from scopes.zones import person_zone

from .ask import ask_answer, ask_count, ask_question, ask_recall
from .forms import (AccountEraseForm, AliasForm, AnswerForm, CardAddForm, CardFilterForm, ConfirmForm, CountForm,
                    DescribeForm, PerspectiveForm, QuestionForm, RecallForm)
from .decay_picture import decay_points
from ..drafts import draft_from_request
from ..recall.score import half_life_days
from ..models import (Alias, Card, CardKind, CardPerspective, CardRevision, DuplicateStatus, Entity, Label,
                      PossibleDuplicate, Tag)
from ..provenance import approvals_of
from ..selectors.card_list import cards_list
from ..selectors.cards import FORGET_ACTION, card_forgettable_get, card_get, card_history, perspectives_own
from ..selectors.entity_reads import entity_get
from ..services import (alias_add, card_describe, card_forget, card_remember, card_verify, perspectives_set,
                        subject_forget)
from ..services.account import account_erase_confirmed
from ..selectors.shape import card_out, card_rows
from ..selectors.writers import writers_of
from .timeline import timeline_of

PER_PAGE = 25
ENTITY_LIMIT = 300

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


def _may(principal, scope_id: int, action: str) -> bool:
    return Scope.objects.visible_to(principal, action).filter(pk=scope_id).exists()


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


def _scope_context(request, scope, *, add_form=None) -> dict:
    principal = principal_of_page(request)
    ladder = read_scope_ids(principal=principal, scope_id=scope.pk)
    # Whoever wrote what the page can list, with or without the ladder: the choice stays valid either way.
    people, agents = writers_of(Card.objects.in_scopes(ladder))
    filters = CardFilterForm(request.GET or {"view": "current"}, people=people, agents=agents)
    rows = Card.objects.none().values()
    if filters.is_valid():
        ids = ladder if filters.cleaned_data["ladder"] else [scope.pk]
        rows = _filtered(principal, filters, scope_ids=ids)
    paginator = Paginator(rows.order_by("-effective_at", "-id"), PER_PAGE)
    shown = paginator.get_page(request.GET.get("page"))
    query = request.GET.copy()
    query.pop("page", None)
    may_write = _may(principal, scope.pk, "write")
    cards = [card_out(row) for row in shown]
    approvals = approvals_of((card["id"] for card in cards), scope_ids=sorted({card["scope"] for card in cards}))
    for card in cards:
        card["approval"] = approvals.get(card["id"])
    return {"scope": scope, "filters": filters, "filters_open": filters.is_set(), "page": shown, "cards": cards,
            "query": query.urlencode(), "may_write": may_write, "may_manage": _may(principal, scope.pk, "manage"),
            "add_form": add_form or (CardAddForm() if may_write else None), "invite_form": InviteForm(),
            "leave": scope_leave_state(principal=principal, scope=scope),
            "archive": scope_archive_offer(principal=principal, scope=scope)}


@page
def scope_page(request, scope_id: int):
    scope = scope_get(principal=principal_of_page(request), scope_id=scope_id)
    context = _scope_context(request, scope)
    if request.htmx and request.htmx.target == "card-list":
        # htmx swaps only a 2xx: the list carries the form's errors in its place.
        return render(request, "cards/_card_list.html", context)
    return render(request, "cards/scope.html", context, status=400 if context["filters"].errors else 200)


@page
@require_POST
def card_add(request, scope_id: int):
    principal = principal_of_page(request)
    form = CardAddForm(request.POST)
    with transaction.atomic():
        scope = scope_get(principal=principal, scope_id=scope_id, action="write")
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
    return render(request, "cards/scope.html", _scope_context(request, scope, add_form=form), status=400)


@page
def card_page(request, card_id: int):
    principal = principal_of_page(request)
    card = card_get(principal=principal, card_id=card_id)
    history = card_history(card=card)
    in_scope = [card.scope_id]  # the scope card_get has just let the person see
    shown = {row["id"]: card_out(row) for row in card_rows(
        Card.objects.in_scopes(in_scope).filter(pk__in=[c.pk for c in history]), user=request.user)}
    may_write = _may(principal, card.scope_id, "write")
    context = {
        "card": shown[card.pk], "model": card, "history": [shown[c.pk] for c in history],
        "timeline": (timeline_of(history, now=timezone.now(), shown={pk: row["value"] for pk, row in shown.items()},
                                 zone=person_zone(request.user))
                     if card.kind != CardKind.EVENT else None),
        "revisions": CardRevision.objects.in_scopes(in_scope).filter(card=card).select_related("actor"),
        "approval": approvals_of([card.pk], scope_ids=in_scope).get(card.pk),
        "may_write": may_write,
        "may_forget": may_write or _may(principal, card.scope_id, FORGET_ACTION),
        "describe_form": DescribeForm(initial={"text": card.text}),
        "confirm_form": ConfirmForm(auto_id="h_%s") if card.tag == Tag.HYPOTHESIS else None,
        # Your own phrasing only (DESIGN §3): the card's `text` above already reads in it.
        "perspective_form": (PerspectiveForm(initial={"text": _own_phrasing(card, request.user)})
                             if may_write and _shared(card) else None),
    }
    return render(request, "cards/card.html", context)


def _shared(card: Card) -> bool:
    """Only a shared scope has members whose phrasings differ."""
    return card.scope.kind not in (ScopeKind.PERSONAL, ScopeKind.GLOBAL)


def _own_phrasing(card: Card, user) -> str:
    own = perspectives_own(CardPerspective.objects.in_scopes([card.scope_id]).filter(card=card), user=user)
    return own.values_list("text", flat=True).first() or ""


@page
@require_POST
def card_perspective_page(request, card_id: int):
    """Sets the signed-in member's own phrasing; the form has no field naming
    anyone else, and the service refuses another member's phrasing anyway."""
    with transaction.atomic():
        card = card_get(principal=principal_of_page(request), card_id=card_id, action="write")
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


@page
@require_POST
def card_verify_page(request, card_id: int):
    with transaction.atomic():
        card = card_get(principal=principal_of_page(request), card_id=card_id, action="write")
        try:
            card_verify(card=card, actor=request.user)
        except DomainError as error:
            messages.error(request, error.detail)
        else:
            messages.success(request, _("Confirmed: still true."))
    return redirect("card", card_id=card.pk)


@page
@require_POST
def card_describe_page(request, card_id: int):
    form = DescribeForm(request.POST)
    with transaction.atomic():
        card = card_get(principal=principal_of_page(request), card_id=card_id, action="write")
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
def card_forget_page(request, card_id: int, what: str = "card"):
    """Forget this card, its whole timeline (the label's history for its
    subject) or everything about its subject in its scope: GET asks for
    confirmation, POST forgets at once and completely and says the receipt in words."""
    if what not in FORGET_WHAT:
        raise Http404
    principal = principal_of_page(request)
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


@page
def account_erase_page(request):
    """GET explains what goes and asks for the password; POST erases the account
    and everything of theirs, ends the session and shows the receipt in words."""
    form = AccountEraseForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            receipt = account_erase_confirmed(user=request.user, password=form.cleaned_data["password"])
        except DomainError as error:
            for field, problems in error_fields(error).items():
                form.add_error(field if field in form.fields else None, problems)
        else:
            logout(request)
            return render(request, "cards/erased.html", {"receipt": receipt.words()})
    return render(request, "cards/erase_account.html", {"form": form},
                  status=400 if request.method == "POST" else 200)


@page
def entities_page(request):
    """Entities in the scopes the person may view (common sense aside), their
    aliases and merges, the open merge proposals, and how fast each label fades."""
    principal = principal_of_page(request)
    aliases = Prefetch("aliases", queryset=Alias.objects.visible_to(principal, "view"))
    entities = list(Entity.objects.visible_to(principal, "view").exclude(scope__kind=ScopeKind.GLOBAL)
                    .select_related("scope", "merged_into").prefetch_related(aliases)
                    .order_by("scope__name", "name")[:ENTITY_LIMIT])
    writable = set(Scope.objects.visible_to(principal, "write").values_list("id", flat=True))
    # Each side by a query of its own on ids, never joined: the other side may live in another scope (on a
    # cluster, another shard).
    seen = Entity.objects.visible_to(principal, "view")
    proposals = (PossibleDuplicate.objects.visible_to(principal, "view").exclude(scope__kind=ScopeKind.GLOBAL)
                 .filter(status=DuplicateStatus.OPEN, similar_to__in=seen.values("id"))
                 .select_related("scope").prefetch_related(Prefetch("entity", queryset=seen),
                                                           Prefetch("similar_to", queryset=seen))
                 .order_by("-score")[:100])
    labels = [{"label": label, "points": decay_points(label.decay_lambda),
               "half_life": half_life_days(label.decay_lambda)} for label in Label.objects.order_by("key")]
    return render(request, "cards/entities.html", {
        "entities": [{"e": e, "may_write": e.scope_id in writable} for e in entities],
        "proposals": proposals, "labels": labels, "limit": ENTITY_LIMIT})


@page
@require_POST
def alias_add_page(request, entity_id: int):
    form = AliasForm(request.POST)
    with transaction.atomic():
        entity = entity_get(principal=principal_of_page(request), entity_id=entity_id, action="write")
        if not form.is_valid():
            messages.error(request, _("An alias needs a name."))
            return redirect("entities")
        try:
            with transaction.atomic():
                alias_add(entity=entity, name=form.cleaned_data["name"])
        except DomainError as error:
            messages.error(request, _("%(name)s: %(refusal)s") % {"name": entity.name, "refusal": error.detail})
        else:
            messages.success(request, _("%(name)s is also called %(alias)s.") % {"name": entity.name,
                                                                                 "alias": form.cleaned_data["name"]})
    return redirect("entities")


ASK_FORMS = {"question": QuestionForm, "recall": RecallForm, "answer": AnswerForm, "count": CountForm}


@page
def ask_page(request):
    """A question in plain words (the API's ask), and behind it the expert forms —
    recall, answer and count — in one scope, as an agent would ask them. Read-only,
    so the forms are GETs: a question is a link that can be shared or reloaded."""
    principal = principal_of_page(request)
    scopes = list(Scope.objects.visible_to(principal, "view").order_by("name"))
    asked = request.GET.get("form") if request.GET.get("form") in ASK_FORMS else None
    forms = {name: form_class(request.GET if name == asked else None, scopes=scopes,
                              initial={"scope": scopes[0].pk} if scopes else None)
             for name, form_class in ASK_FORMS.items()}
    result = None
    if asked and forms[asked].is_valid():
        form = forms[asked]
        if asked == "question":
            result = ask_question(request, form, principal)
        elif asked == "recall":
            result = ask_recall(request, form)
        elif asked == "answer":
            result = ask_answer(request, form, principal)
        else:
            result = ask_count(request, form, principal)
    status = 400 if asked and forms[asked].errors else 200
    return render(request, "cards/ask.html", {"forms": forms, "asked": asked, "result": result}, status=status)
