"""Recall's Δt counts from the latest time a state was made true, stated or
checked, as known at the asked time: statements after it do not count, whether
the card holds none, one or several (each read its own way in SQL)."""

from __future__ import annotations

import datetime as dt

import pytest

from cards.drafts import CardDraft
from cards.models import Card
from cards.recall.routes import ROUTES, recall
from cards.services import card_remember

DAY = dt.timedelta(days=1)


@pytest.fixture
def card(alice, t0):
    return card_remember(scope=alice.personal_scope, actor=alice, draft=CardDraft(
        kind="state", label="city", subject="me", value="Taichung", reference_time=t0 - 100 * DAY)).card


@pytest.mark.parametrize("route", ROUTES)
@pytest.mark.parametrize(("stated", "expected"), [
    ([], 100),                  # none: from when it became true
    ([-40], 40),                # one, before the asked time
    ([+5], 100),                # one, after it: not known then
    ([-70, -30, +5], 30),       # several, the latest known then
    ([+5, -20, -60], 20),       # in any order
])
def test_days_count_from_the_latest_statement_known_then(alice, t0, card, route, stated, expected):
    Card.objects.filter(pk=card.pk).update(stated_at=[t0 + d * DAY for d in stated],
                                           verified_at=t0 - 100 * DAY)
    found = recall(scope_ids=[alice.personal_scope.pk], query="where do I live", as_of=t0, route=route)
    assert [r.card_id for r in found.results] == [card.pk]
    assert found.results[0].days == pytest.approx(expected)
