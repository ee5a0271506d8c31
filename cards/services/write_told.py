"""What a write tells its caller is true now (API "Remember"): whether the card written is the
subject's current value for its label, which value is, what the write closed, whom the subject was
understood as and whether it was new, the words the label was understood from — and, when the card
written is not current (placed in the past, or planned), a sentence saying so and what to do, in
words an agent can relay to its person (dates in the person's day, never an instant)."""

from __future__ import annotations

import datetime as dt

from django.db.models import prefetch_related_objects
from django.utils import timezone

from core.dates import date_shown
from scopes.models import User
from scopes.zones import person_zone

from ..models import Card, CardKind, Cardinality, Tag
from ..text import normalize
from ..valid_time import is_valid_at, valid_sql
from .sql import cards_sql
from .tags import stands_beside
from .write_plan import Outcome, WriteOutcome

Key = tuple  # scope, subject, the timeline's labels (a label and its opposite), its value (None: a single value)


def writes_told(results: list[WriteOutcome], *, user: User) -> list[dict]:
    """One dict per write, in order: current, now, closed, subject_resolved, new_entity, label_from, note."""
    now = timezone.now()
    # A card read from the database knows its subject, label and object by id only: each is read once for all.
    prefetch_related_objects([c for r in results for c in (r.card, *r.closed)], "subject", "label", "object")
    holding = _holding(results, now)
    zone = person_zone(user)
    told = []
    for result in results:
        card = result.card
        # A guess or a dispute stands beside the record (DESIGN §4 rule 7): what holds is the record's value.
        current = is_valid_at(card, now) and not stands_beside(card)
        holds = card if current else holding.get(_key(card))
        if card.kind == CardKind.EVENT:
            holds = None
        told.append({
            "current": current,
            "now": None if holds is None else {"id": holds.pk, "value": _value(holds)},
            "closed": [{"id": c.pk, "value": _value(c), "since": c.effective_at} for c in result.closed],
            "subject_resolved": {"id": card.subject.pk, "name": card.subject.name, "kind": card.subject.kind},
            "new_entity": result.new_entity,
            "label_from": _label_from(result.label_words, card.label.key),
            "note": None if current or result.outcome == Outcome.DUPLICATE else _note(card, holds, now, zone),
        })
    return told


def _key(card: Card) -> Key:
    """The timeline `card` is on: a single value's label; a multi value's own value, under either of a
    pair of opposite labels (likes/dislikes: services/tags.timeline_filter)."""
    labels = tuple(sorted(filter(None, (card.label_id, card.label.opposite_id))))
    value = None if card.cardinality == Cardinality.SINGLE else card.value_norm
    return card.scope_id, card.subject_id, labels, value


def _holding(results: list[WriteOutcome], now: dt.datetime) -> dict[Key, Card]:
    """The current card of each written timeline its write did not leave current (one statement)."""
    keys = sorted({_key(r.card) for r in results if r.card.kind == CardKind.STATE
                   and not (is_valid_at(r.card, now) and not stands_beside(r.card))}, key=repr)
    if not keys:
        return {}
    scopes = [k[0] for k in keys]
    found = cards_sql(
        "SELECT {columns} FROM cards_card c JOIN unnest(%(scopes)s::bigint[], %(subjects)s::bigint[],"
        " %(labels)s::bigint[], %(opposites)s::bigint[], %(values)s::text[]) AS k(s, su, l, o, v)"
        " ON c.scope_id = k.s AND c.subject_id = k.su AND c.label_id IN (k.l, k.o)"
        " AND (k.v IS NULL OR c.value_norm = k.v)"
        f" WHERE c.scope_id = ANY(%(scopes)s) AND {valid_sql('c')} AND c.kind = 'state'"
        f" AND c.tag <> '{Tag.HYPOTHESIS}' AND c.disputes_id IS NULL ORDER BY c.id",
        {"scopes": scopes, "subjects": [k[1] for k in keys], "labels": [k[2][0] for k in keys],
         "opposites": [k[2][-1] for k in keys], "values": [k[3] for k in keys], "at": now})
    prefetch_related_objects(found, "object", "label")
    return {_key(c): c for c in found}


def _value(card: Card) -> str:
    return card.value or (card.object.name if card.object_id else "") or card.text


def _label_from(words: str, key: str) -> str | None:
    """The caller's words for the label, when they were not its key."""
    return words if words and normalize(words).replace(" ", "_") != key else None


def _note(card: Card, holds: Card | None, now: dt.datetime, zone) -> str:
    value, start = _value(card), date_shown(card.effective_at, zone=zone, language="en")
    if stands_beside(card):
        current = f"“{_value(holds)}” is what is recorded" if holds is not None else "nothing is recorded for it"
        return f"“{value}” is kept beside the record, not as it: {current}."
    if card.effective_at > now:
        then = f"; until then “{_value(holds)}” is current" if holds is not None else ""
        return f"“{value}” is planned: it holds from {start}{then}."
    if card.superseded_at is not None and card.superseded_at <= card.effective_at:
        ended = "it was overruled by a later statement"
    else:
        ended = f"it held from {start} until {date_shown(card.superseded_at, zone=zone, language='en')}"
    current = f"“{_value(holds)}” is current" if holds is not None else "nothing is current for it now"
    return (f"“{value}” is recorded as past: {ended}; {current}. If “{value}” is true now, remember it again "
            "without `when` (it then holds from now).")
