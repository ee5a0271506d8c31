"""Long-term is a state of a card that a person gives it (DESIGN §10): a promotion
a person approved makes it long-term; a demotion a person approved takes it back
to the daily notes, annotated stale. The card itself keeps its value and its
history; every change of the state is kept as a revision (field "long_term").
Only the review queue calls these, on a person's approval."""

from __future__ import annotations

import datetime as dt

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext, pgettext_lazy

from scopes.models import User

from ..errors import InvalidCard, NotCurrent
from ..models import Card, CardKind, CardRevision, Tag
from .corrections import card_hold

LONG_TERM = "long-term"
# Why a card stops being long-term, with the words the card page says it in.
DEMOTED_WHY = {"stale": pgettext_lazy("why a card stopped being long-term", "stale"),
               "contradicted": pgettext_lazy("why a card stopped being long-term", "contradicted")}


def long_term_problem(card: Card) -> str | None:
    """Why a card cannot be long-term, if it cannot: events belong to the daily
    notes, a guess is never promoted without its person's confirmation (§4.7), a
    statement disputing someone's own word waits for them to settle it, and only a
    current value is kept. (The upkeep job's query finds candidates by the same
    terms: review/upkeep/find.py `_current`.)"""
    if card.kind == CardKind.EVENT:
        return gettext("An event stays in its daily note; only states and knowledge are long-term.")
    if card.tag == Tag.HYPOTHESIS:
        return gettext("A guess is never promoted without its person's confirmation.")
    if card.disputes_id is not None:
        return gettext("This disputes what its person said of themselves: it waits for them to settle it.")
    if card.superseded_at is not None:
        return gettext("Only a current card is long-term; this one was superseded.")
    return None


@transaction.atomic
def card_promote(*, card: Card, actor: User, reason: str, at: dt.datetime | None = None) -> Card:
    """Make a current card long-term, approved by `actor`. A card already long-term is left as it is."""
    card = card_hold(card=card, for_update=True)
    if card.superseded_at is not None:  # said apart: the caller learns what replaced it
        raise NotCurrent(gettext("Only a current card is promoted; this one was superseded."),
                         superseded_by=card.superseded_by_id)
    if (problem := long_term_problem(card)) is not None:
        raise InvalidCard(problem, fields={"card": [gettext("cannot be long-term")]})
    if card.long_term_at is not None:
        return card
    at = at or timezone.now()
    before = f"demoted ({card.demoted_why})" if card.demoted_at else ""
    CardRevision.objects.create(card=card, actor=actor, at=at, field="long_term", before=before, after=LONG_TERM,
                                reason=reason[:300])
    return _set(card, long_term_at=at, long_term_by=actor, demoted_at=None, demoted_by=None, demoted_why="")


@transaction.atomic
def card_demote(*, card: Card, actor: User, why: str, reason: str, at: dt.datetime | None = None) -> Card:
    """Take a long-term card back to the daily notes, annotated stale (`why`: stale or
    contradicted). The card stays as it is otherwise: its value, its timeline, its history."""
    if why not in DEMOTED_WHY:
        raise InvalidCard(f"A demotion says why: {' or '.join(DEMOTED_WHY)}.", fields={"why": ["unknown"]})
    card = card_hold(card=card, for_update=True)
    if card.long_term_at is None:
        raise InvalidCard(gettext("This card is not long-term, so it cannot be demoted."),
                          fields={"card": [gettext("not long-term")]})
    at = at or timezone.now()
    CardRevision.objects.create(card=card, actor=actor, at=at, field="long_term", before=LONG_TERM,
                                after=f"demoted ({why})", reason=reason[:300])
    return _set(card, long_term_at=None, long_term_by=None, demoted_at=at, demoted_by=actor, demoted_why=why)


def _set(card: Card, **state) -> Card:
    Card.objects.filter(pk=card.pk, scope_id=card.scope_id).update(**state)
    for name, value in state.items():
        setattr(card, name, value)
    return card
