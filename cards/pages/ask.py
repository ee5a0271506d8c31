"""The ask page: a question in plain words and the expert forms (recall,
answer, count), each run as the API runs it, with a refusal turned into an
error next to the field it is about."""

from __future__ import annotations

import datetime as dt

from django.shortcuts import render
from django.utils.translation import gettext as _
from django.utils.translation import pgettext

from core.errors import DomainError
from core.pages import error_fields
from scopes.models import Scope
from scopes.pages.entry import page
from scopes.zones import person_zone

from ..answers.answer_read import answer_read
from ..answers.ask import ask_read
from ..answers.count_read import count_read
from ..selectors.recall import recall_body
from ..selectors.shape import cards_out
from .forms import AnswerForm, CountForm, QuestionForm, RecallForm


def _day_start(day: dt.date | None, user, *, days: int = 0) -> dt.datetime | None:
    """The start of a chosen day (plus `days`), in the person's zone."""
    if day is None:
        return None
    return dt.datetime.combine(day + dt.timedelta(days=days), dt.time(),
                               tzinfo=person_zone(user))


def _refused(form, error: DomainError) -> None:
    for field, problems in error_fields(error).items():
        form.add_error(field if field in form.fields else None, problems)


def ask_question(request, form, principal) -> dict | None:
    data = form.cleaned_data
    try:
        return ask_read(principal=principal, scope_id=data["scope"], question=data["question"])
    except DomainError as error:
        _refused(form, error)
        return None


def ask_recall(request, form, principal) -> dict | None:
    data = form.cleaned_data
    try:
        body, _meta = recall_body(principal, scope_id=data["scope"], query=data["query"], k=data["k"],
                                  when=data["when"] or None, tz=None, as_of=None)
    except DomainError as error:
        _refused(form, error)
        return None
    return body


def ask_answer(request, form, principal) -> dict | None:
    data = form.cleaned_data
    try:
        # "As of" a day means as it stood at the end of that day.
        found = answer_read(principal=principal, scope_id=data["scope"], subject=data["subject"],
                            label=data["label"], as_of=_day_start(data["as_of"], request.user, days=1))
    except DomainError as error:
        _refused(form, error)
        return None
    # The page's sentences take the names as one list, separated as the page's language separates them.
    found["entity_names"] = _listed(_("%(name)s (%(kind)s)") % {"name": e["name"], "kind": _(e["kind"])}
                                    for e in found["subject"].get("entities") or ())
    # An ambiguous name is answered about each entity it may mean, each named as the list above names it.
    for part in found["by_subject"]:
        shown = part["entities"][:1]
        part["shown"] = _listed(_("%(name)s (%(kind)s)") % {"name": e["name"], "kind": _(e["kind"])} for e in shown)
    found["did_you_mean_names"] = _listed(d["entity"]["name"] for d in found["subject"].get("did_you_mean") or ())
    # A person reads a planned value's day in their own zone, never as an ISO instant.
    zone = person_zone(request.user)
    for planned in found["planned"]:
        planned["starts_local"] = _day(planned["starts"], zone)
    return found


def _listed(names) -> str:
    return pgettext("between the names of a list", ", ").join(names)


def _day(instant: str | dt.datetime | None, zone) -> dt.date | None:
    """The day an instant falls on in `zone`. A date, not a datetime: the template's
    date filter would turn an aware datetime back into the site's UTC."""
    if instant is None:
        return None
    if isinstance(instant, str):
        instant = dt.datetime.fromisoformat(instant)
    return instant.astimezone(zone).date()


def ask_count(request, form, principal) -> dict | None:
    data = form.cleaned_data
    try:
        found, label, start, end = count_read(
            principal=principal, scope_id=data["scope"], label=data["label"], subject=data["subject"] or None,
            when=data["when"] or None, start=_day_start(data["start"], request.user),
            end=_day_start(data["end"], request.user, days=1))
    except DomainError as error:
        if error.code == "ambiguous_subject":
            form.add_error("subject", error.detail)
        else:
            _refused(form, error)
        return None
    zone = person_zone(request.user)
    listed = cards_out([*found.undated_ids, *found.straddling_ids, *found.planned_ids], user=request.user)
    shown = {row["id"]: row for row in listed}
    for row in listed:
        row["day"] = _day(row["occurred_at"] if row["kind"] == "event" else row["effective_at"], zone)
    # The range in the person's days: its first, and its last (the end is exclusive).
    return {"found": found, "label": label.key, "first_day": _day(start, zone),
            "last_day": _day(end - dt.timedelta(microseconds=1), zone) if end else None,
            "undated": [shown[pk] for pk in found.undated_ids],
            "straddling": [shown[pk] for pk in found.straddling_ids],
            "planned": [shown[pk] for pk in found.planned_ids]}


ASK_FORMS = {"question": QuestionForm, "recall": RecallForm, "answer": AnswerForm, "count": CountForm}


@page
def ask_page(request, *, principal):
    """A question in plain words (the API's ask), and behind it the expert forms —
    recall, answer and count — in all the person's memory or in one scope, as an agent
    would ask them. Read-only,
    so the forms are GETs: a question is a link that can be shared or reloaded."""
    scopes = list(Scope.objects.visible_to(principal, "view").order_by("name"))
    asked = request.GET.get("form") if request.GET.get("form") in ASK_FORMS else None
    forms = {name: form_class(request.GET if name == asked else None, scopes=scopes)
             for name, form_class in ASK_FORMS.items()}
    result = None
    if asked and forms[asked].is_valid():
        form = forms[asked]
        if asked == "question":
            result = ask_question(request, form, principal)
        elif asked == "recall":
            result = ask_recall(request, form, principal)
        elif asked == "answer":
            result = ask_answer(request, form, principal)
        else:
            result = ask_count(request, form, principal)
    status = 400 if asked and forms[asked].errors else 200
    return render(request, "cards/ask.html", {"forms": forms, "asked": asked, "result": result}, status=status)
