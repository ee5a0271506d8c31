"""What the viewer may see about one person (or any entity), across the scopes
they view: the person page's read (issue 20, "About Dana").

Every card about the entity — the entity itself and what a reviewer merged into
it — read through the cards' `visible_to`, so a member of the family sees
alice's family cards and never her personal ones. A member's own entity lives in
their personal scope and is the subject of their cards everywhere: those cards
come from every scope the viewer may read, like any others."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field

from django.db.models import F, Q, QuerySet
from django.http import Http404
from django.utils.translation import gettext as _

from core.dates import as_instant
from scopes.models import Scope
from scopes.principals import Principal

from ..words.label_names import label_name
from ..models import Card, CardKind, Entity, Tag
from ..provenance import approvals_of
from ..reads import Read
from ..recall.aging import aging_card_ids
from ..valid_time import held_q
from .cards import cards_filtered
from .entity_reads import entity_get
from .read_scopes import scope_ids_read
from .shape import card_out, card_rows

# A life's moves and jobs: the single-value states whose history is where someone
# lived, worked and studied. The life timeline draws their whole history, with the events.
LIFE_LABELS = ("address", "city", "country", "employer", "works_at", "job_title", "school")
# A household's person has tens of cards; past these, the page shows the newest.
GROUP_LIMIT = 200
LIFE_LIMIT = 40


@dataclass
class LifeItem:
    """One bar of the life timeline, in the shape cards/pages/timeline.py draws: a state
    over its valid time, an event over its occurrence (an instant: a mark)."""

    pk: int
    effective_at: dt.datetime
    superseded_at: dt.datetime | None
    value: str
    text: str
    card: dict


@dataclass
class PersonRead:
    entity: Entity
    now: list[dict] = field(default_factory=list)  # states holding now (never guesses)
    happened: list[dict] = field(default_factory=list)  # events, the latest first
    known: list[dict] = field(default_factory=list)  # knowledge holding now (never guesses)
    guesses: list[dict] = field(default_factory=list)  # hypotheses about them, holding now
    recheck: list[dict] = field(default_factory=list)  # their facts due for a re-check
    life: list[LifeItem] = field(default_factory=list)  # moves, jobs and events, oldest first


def person_get(*, principal: Principal, entity_id: int) -> Entity:
    """The entity if `principal` may see it (else 404, as for one that does not
    exist): seen from their scopes, or a member of a shared scope of theirs."""
    return entity_get(principal=principal, entity_id=entity_id)


def person_root(*, principal: Principal, entity: Entity) -> Entity | None:
    """What `entity` was merged into, when the principal may see it (its page is
    that one's); None when it was not merged or its root is not to be seen."""
    if entity.merged_into_id is None:
        return None
    return Entity.objects.visible_to(principal, "view").filter(pk=entity.merged_into_id).first()


def own_entity(*, principal: Principal) -> Entity:
    """The signed-in person's own entity ("About you"): 404 if there is none."""
    entity = Entity.objects.visible_to(principal, "view").filter(user_id=principal.user.pk).first()
    if entity is None:
        raise Http404
    return entity


def person_cards(*, principal: Principal, entity: Entity) -> QuerySet[Card]:
    """Every card about `entity` (and what was merged into it) the principal may view, whole histories
    included, and what a member shares with a family or team the principal reads (DESIGN §3)."""
    seen = Card.objects.visible_to(principal, "view")
    shared = [triple for triple in scope_ids_read(principal=principal, scope_id=None).shared
              if triple[1] == entity.pk]
    if shared:
        seen = seen | Card.objects.in_scopes(Read([], shared))
    return seen.filter(Q(subject_id=entity.pk) | Q(subject__merged_into_id=entity.pk))


def person_read(*, principal: Principal, entity: Entity, now: dt.datetime) -> PersonRead:
    """What the person page shows of `entity` (already checked visible), each card
    shaped as the API gives it (card_out) with `scope_name`, and `recheck` set
    on the facts due for their re-check (cards.recall.aging's one definition)."""
    user = principal.user
    about = person_cards(principal=principal, entity=entity)
    holding = [card_out(row, now) for row in card_rows(
        cards_filtered(about.exclude(kind=CardKind.EVENT), as_of=now).order_by("label__key", "-effective_at", "-id"),
        user=user)[:GROUP_LIMIT * 2]]
    events = [card_out(row, now) for row in card_rows(
        about.filter(kind=CardKind.EVENT)
        .order_by(F("occurred_at").desc(nulls_last=True), "-effective_at", "-id"), user=user)[:GROUP_LIMIT]]
    # The history of moves and jobs, superseded values included; a guess or another's
    # disputing word stands outside a timeline (DESIGN §4 rule 7), so outside this one too, and so does
    # a value a later statement overruled (held by no instant).
    moves_and_jobs = [card_out(row, now) for row in card_rows(
        about.filter(held_q(), kind=CardKind.STATE, label__key__in=LIFE_LABELS, disputes__isnull=True)
        .exclude(tag=Tag.HYPOTHESIS).order_by("-effective_at", "-id"), user=user)[:LIFE_LIMIT]]

    scope_ids = sorted({c["scope"] for c in holding + events + moves_and_jobs})
    names = dict(Scope.objects.visible_to(principal, "view").filter(pk__in=scope_ids).values_list("id", "name"))
    shown = holding + events + moves_and_jobs
    due = set(aging_card_ids(scope_ids, among=[card["id"] for card in shown])) if scope_ids else set()
    # Who approved each, as the card page says it (cards.provenance: the queue's hook).
    approvals = approvals_of((card["id"] for card in shown), scope_ids=scope_ids)
    for card in shown:
        # A shared card's scope is its owner's personal one, which the viewer does not see by name.
        card["scope_name"] = names.get(card["scope"]) or _("shared by %(name)s") % {"name": entity.name}
        card["recheck"] = card["id"] in due
        card["approval"] = approvals.get(card["id"])

    read = PersonRead(entity=entity)
    for card in holding:
        if card["tag"] == Tag.HYPOTHESIS:
            read.guesses.append(card)
        elif card["kind"] == CardKind.STATE:
            read.now.append(card)
        else:
            read.known.append(card)
    read.happened = events
    read.recheck = [card for card in read.now if card["recheck"]]
    read.life = life_items(moves_and_jobs, events[:LIFE_LIMIT])
    return read


def _bar_words(card: dict) -> str:
    return f"{label_name(card['label'])}: {card['value'] or card['object'] or card['text']}"


def life_items(states: list[dict], events: list[dict]) -> list[LifeItem]:
    """The life timeline's bars, oldest first: each move or job over the time it
    held, each event at when it happened (undated: when it was recorded as such)."""
    items = [LifeItem(pk=c["id"], effective_at=as_instant(c["effective_at"]),
                      superseded_at=as_instant(c["superseded_at"]),
                      value=_bar_words(c), text=c["text"], card=c)
             for c in states]
    for c in events:
        start = as_instant(c["occurred_at"] or c["effective_at"])
        items.append(LifeItem(pk=c["id"], effective_at=start, superseded_at=as_instant(c["occurred_end"]) or start,
                              value=_bar_words(c), text=c["text"], card=c))
    return sorted(items, key=lambda item: (item.effective_at, item.pk))
