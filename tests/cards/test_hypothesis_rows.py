"""The card store's writes of a guess's row (cards/services/hypotheses.py) touch a current guess only: a
fact is never closed, demoted or "confirmed" through them, whoever calls (DESIGN §4 rule 7)."""

import pytest
from django.utils import timezone

from cards.drafts import CardDraft
from cards.errors import NotAHypothesis
from cards.models import Card
from cards.services import card_remember, hypothesis_confidence_lower, hypothesis_discard, hypothesis_state

pytestmark = pytest.mark.django_db


def remember(alice, **fields) -> Card:
    return card_remember(scope=alice.personal_scope, actor=alice, draft=CardDraft(
        **{"kind": "state", "subject": "me", "label": "city", "value": "Porto", **fields})).card


def test_a_fact_is_never_discarded_demoted_or_confirmed_as_a_guess(alice):
    fact = remember(alice)
    for write in (lambda: hypothesis_discard(card=fact, reason="stale"),
                  lambda: hypothesis_confidence_lower(card=fact, level="low", reason="stale", at=timezone.now()),
                  lambda: hypothesis_state(card=fact, actor=alice, tag="fact")):
        with pytest.raises(NotAHypothesis):
            write()
    fact.refresh_from_db()
    assert fact.superseded_at is None and fact.revisions.count() == 0


def test_a_guess_already_discarded_is_not_discarded_again(alice):
    guess = remember(alice, value="Lisbon", tag="hypothesis", confidence=0.6)
    hypothesis_discard(card=guess, reason="contradicted")
    with pytest.raises(NotAHypothesis):
        hypothesis_discard(card=guess, reason="again")
    assert guess.revisions.count() == 1
