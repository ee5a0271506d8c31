"""The card list: one read for the API's `GET /cards/` and the dashboard's scope
page, so the two cannot drift apart. Each surface reads its own input (a query
serializer, a filter form) and pages and orders the rows its own way; which
cards a principal may list, and how each filter narrows them, is decided here.

Its own module, not cards.py: it shapes the rows (shape.card_rows), and the
shaping builds on cards.py."""

from __future__ import annotations

import datetime as dt

from django.db.models import Q, QuerySet

from .read_scopes import scope_ids_read
from ..models import Card
from ..recall.aging import aging_card_ids
from ..recall.contradictions import contradiction_card_ids
from ..time.when import when_interval
from .cards import cards_filtered, cards_in_interval
from .entities import entity_bind
from .shape import card_rows
from .writers import written_by


def cards_list(principal, *, scope_id: int | str | None = None, scope_ids: list[int] | None = None,
               subject: str | None = None, by: str | None = None, aging: bool = False,
               contradictions: bool = False, kind: str | None = None, tag: str | None = None,
               label: str | None = None, as_of: dt.datetime | None = None, current: bool = True,
               when: str | None = None, tz: str | None = None, text: str | None = None) -> QuerySet:
    """The cards `principal` may list, as `card_rows` (unordered: each surface orders its page).

    Where: `scope_ids` when the caller has already read them (the scope page lists
    their writers too); else what a read in `scope_id` sees (read_scope_ids: 404
    for a scope the principal may not view); else every scope the principal
    reads by default (an archived project only when named).

    Filters, each applied only when given: `subject` (the API: bound as /answer/
    binds it, among the scopes read, merges followed: an ambiguous name is
    refused with its candidates, an unknown one lists nothing); `by` (the page:
    a writer key of cards.selectors.writers); `aging` and `contradictions` (the
    page: the home page's cards to re-check, and those contradicting another);
    `kind`, `tag`, `label`, `as_of`, `current` (both: cards_filtered, an unknown
    label refused); `when` in `tz` (the API: events that happened then, in the
    caller's zone by default); `text` (the page: words in the value, the
    description or the caller's own phrasing)."""
    if scope_ids is None:
        scope_ids = scope_ids_read(principal=principal, scope_id=scope_id)
    cards = Card.objects.in_scopes(scope_ids)
    if subject is not None:
        binding = entity_bind(name=subject, scope_ids=scope_ids, speaker=principal.user)
        binding.one(subject)
        cards = cards.filter(subject_id__in=binding.entity_ids)
    if by:
        cards = written_by(cards, by)
    if aging:
        cards = cards.filter(pk__in=aging_card_ids(scope_ids))
    if contradictions:
        cards = cards.filter(pk__in=contradiction_card_ids(scope_ids))
    cards = cards_filtered(cards, kind=kind, tag=tag, label=label, as_of=as_of, current=current)
    if when is not None:
        cards = cards_in_interval(cards, when_interval(when, tz_name=tz, user=principal.user))
    rows = card_rows(cards, user=principal.user)
    if text:
        rows = rows.filter(Q(value__icontains=text) | Q(text__icontains=text) | Q(perspective_text__icontains=text))
    return rows
