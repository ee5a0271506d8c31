"""Reads of cards. Each restricts through the cards' `visible_to` / `in_scopes`
(scopes.visibility); those taking a scope take one the caller already holds."""

from __future__ import annotations

import datetime as dt

from django.db.models import Q, QuerySet
from django.utils import timezone

from scopes.models import Scope

from ..models import Card, Entity, Label
from ..reads import Read
from ..valid_time import valid_q


def cards_valid_at(*, scope: Scope, at: dt.datetime) -> QuerySet[Card]:
    """Cards true at `at` in valid time: started by then and not yet superseded."""
    return Card.objects.in_scopes([scope.pk]).filter(valid_q(at))


def card_as_of(*, scope: Scope, subject: Entity, label: Label, at: dt.datetime) -> list[Card]:
    """The card(s) valid at `at` for (scope, subject, label): one for a single-value label."""
    return list(cards_valid_at(scope=scope, at=at).filter(subject=subject, label=label)
                .order_by("effective_at", "id"))


def card_history(*, card: Card) -> list[Card]:
    """The timeline the card belongs to, oldest first: for a single-value state
    the whole supersede chain of its (scope, subject, label)."""
    return list(Card.objects.in_scopes([card.scope_id])
                .filter(subject_id=card.subject_id, label_id=card.label_id, kind=card.kind)
                .order_by("effective_at", "id"))


# --- principal-aware reads for the API ---------------------------------------------

def card_get(*, principal, card_id: int, action: str = "view") -> Card:
    """The card if `principal` may view it (else 404) and `action` it (else 403): scopes.visibility.row_get.
    To view, a card another member shares with a scope the principal reads is theirs to see too (never to
    act on: any other action answers as for a card they cannot see)."""
    from django.http import Http404

    from scopes.visibility import row_get

    from .read_scopes import scope_ids_read

    related = ("label", "subject", "object", "scope")
    try:
        return row_get(Card.objects.select_related(*related), principal=principal, pk=card_id, action=action)
    except Http404:
        if action != "view":
            raise
        shared = scope_ids_read(principal=principal, scope_id=None).shared
        found = (Card.objects.in_scopes(Read((), shared)).select_related(*related).filter(pk=card_id).first()
                 if shared else None)
        if found is None:
            raise
        return found


# Who may forget a card: whoever may write in its scope (DESIGN §4 rule 9). A
# single card, a timeline and everything about a subject ask it of every card,
# for a person and for their agent's token alike — and in an archived project
# too (the "forget" action is writing's grant without the archive's hold).
FORGET_ACTION = "forget"


def card_forgettable_get(*, principal, card_id: int) -> Card:
    """The card if `principal` may see it (else 404) and forget it (else 403)."""
    return card_get(principal=principal, card_id=card_id, action=FORGET_ACTION)


def cards_forgettable(*, principal) -> QuerySet[Card]:
    """Every card `principal` may forget."""
    return Card.objects.visible_to(principal, FORGET_ACTION)


def perspectives_own(perspectives: QuerySet, *, user) -> QuerySet:
    """Of these phrasings, the ones a person may read: their own, never another
    member's (DESIGN §3) — whatever their role, in the API, on every page and in
    the admin alike. `perspectives`: CardPerspective rows already restricted to
    cards the person may see."""
    return perspectives.filter(perspectives_own_q(user=user))


def perspectives_own_q(*, user, path: str = "") -> Q:
    """perspectives_own's condition, for a phrasing reached through `path` (e.g. from its card)."""
    return Q(**{f"{path}user_id": user.pk})


def with_perspective(cards: QuerySet[Card], *, user) -> QuerySet[Card]:
    """Adds `perspective_text`: the caller's own phrasing, if they have one."""
    from django.db.models import F, FilteredRelation

    # The caller's own phrasing of a card the outer query already restricted (one at most: one per member
    # and card), joined by the card and its scope: on a cluster, read on the card's own shard. A subquery
    # per row, even by scope, makes Citus ask every shard.
    mine = FilteredRelation("perspectives", condition=perspectives_own_q(user=user, path="perspectives__")
                            & Q(perspectives__scope_id=F("scope_id")))
    return cards.annotate(mine=mine).annotate(perspective_text=F("mine__text"))


def cards_in_interval(cards: QuerySet[Card], interval) -> QuerySet[Card]:
    """Events whose occurrence overlaps [start, end); an instant counts as itself."""
    from django.db.models import F
    from django.db.models.functions import Coalesce

    end = interval.end or interval.start + dt.timedelta(microseconds=1)
    return (cards.filter(occurred_at__isnull=False, occurred_at__lt=end)
            .alias(ends=Coalesce(F("occurred_end"), F("occurred_at") + dt.timedelta(microseconds=1)))
            .filter(ends__gt=interval.start))


def cards_filtered(cards: QuerySet[Card], *, kind: str | None = None, tag: str | None = None,
                   label: str | None = None, as_of: dt.datetime | None = None,
                   current: bool = True) -> QuerySet[Card]:
    """The card-list filters the API and the dashboard share. `label` is a key or
    synonym (unknown_label raised); with `as_of`, the cards valid at that instant,
    else the current ones — valid now, so a planned value is not yet current —
    unless `current` is False (the whole history)."""
    from ..labels import label_resolve

    if kind:
        cards = cards.filter(kind=kind)
    if tag:
        cards = cards.filter(tag=tag)
    if label:
        cards = cards.filter(label=label_resolve(label))
    if as_of is not None or current:
        return cards.filter(valid_q(as_of or timezone.now()))
    return cards
