"""The card store's writes of a guess's row (DESIGN §4 rule 7): discarding it,
lowering its confidence, and stating its value when the person confirms it.
When and why is the review queue's (review/services/hypotheses.py: decay,
sessions unvalidated, probes); the rows are written here, with a revision each."""

from __future__ import annotations

import datetime as dt

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from scopes.models import User

from ..confidence import LEVELS, level_of
from ..drafts import CardDraft
from ..errors import NotAHypothesis
from ..models import Card, CardRevision, Tag
from .remember import card_remember
from .sql import card_update


# A guess's row is written only while it is one: a fact, or a guess already closed, is never touched here.
_CURRENT_GUESS = f"tag = '{Tag.HYPOTHESIS}' AND superseded_at IS NULL"


def _not_a_guess() -> NotAHypothesis:
    return NotAHypothesis(_("Only a current hypothesis can be confirmed or rejected."))


def _guess_update(card: Card, **changes) -> None:
    if card_update(card, condition=_CURRENT_GUESS, **changes) != 1:
        raise _not_a_guess()


@transaction.atomic
def hypothesis_discard(*, card: Card, reason: str, actor: User | None = None) -> None:
    """Closed, not deleted: the timeline keeps that it was guessed and why it went."""
    now = timezone.now()
    _guess_update(card, superseded_at=now)
    CardRevision.objects.create(card=card, actor=actor, at=now, field="hypothesis", before=level_of(card.confidence),
                                after="discarded", reason=reason[:300])


@transaction.atomic
def hypothesis_confidence_lower(*, card: Card, level: str, reason: str, at: dt.datetime) -> None:
    """One level down (high, medium, low), with a revision saying why."""
    before = level_of(card.confidence)
    _guess_update(card, confidence=LEVELS[level])
    card.confidence = LEVELS[level]
    CardRevision.objects.create(card=card, at=at, field="confidence", before=before, after=level, reason=reason)


@transaction.atomic
def hypothesis_state(*, card: Card, actor: User, tag: str, quote: str = "", consent: bool = False,
                     session: str = "") -> Card:
    """The person confirms a guess: they state its value, written as `tag`
    through the write path — onto its timeline, with the confirming words as
    its source — which promotes the guess into it (services/tags.py); the guess
    keeps a revision saying who confirmed it and how."""
    if card.tag != Tag.HYPOTHESIS or card.superseded_at is not None:
        raise _not_a_guess()
    now = timezone.now()
    level = level_of(card.confidence)
    stated = card_remember(scope=card.scope, actor=actor, draft=CardDraft(
        kind=card.kind, label=card.label.key, subject=card.subject, value=card.value, object=card.object,
        text=card.text, tag=tag, reference_time=now, source_quote=quote.strip() or card.source_quote,
        source_session=session, impact=card.impact, consent=consent)).card
    CardRevision.objects.create(card=card, actor=actor, at=now, field="hypothesis", before=level,
                                after=f"confirmed as {tag}", reason=quote.strip()[:300])
    return stated
