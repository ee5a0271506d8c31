"""The write decision's rules where the two write paths used to differ
(cards/services/write_decision.py): each held on both paths, card_remember and
card_remember_batch."""

import datetime as dt

import pytest
from django.utils import timezone

from cards.drafts import CardDraft
from cards.models import Card
from cards.services import card_remember, card_remember_many

pytestmark = pytest.mark.django_db


def remember(path: str, scope, actor, draft: CardDraft):
    if path == "one":
        return card_remember(scope=scope, actor=actor, draft=draft)
    return card_remember_many(scope=scope, actor=actor, drafts=[draft])[0]


def likes(value: str, *, said: dt.datetime, effective: dt.datetime) -> CardDraft:
    return CardDraft(kind="state", label="likes", subject="me", value=value, tag="preference",
                     reference_time=said, effective_at=effective)


PATHS = pytest.mark.parametrize("path", ["one", "batch"])


@PATHS
def test_a_value_stated_again_for_a_date_ahead_is_verified_no_later_than_now(alice, scope, path):
    """verified_at is the last confirmation, and nobody confirmed anything later than now."""
    now = timezone.now()
    first = remember(path, scope, alice, likes("basil", said=now - dt.timedelta(days=9),
                                               effective=now - dt.timedelta(days=10))).card
    again = remember(path, scope, alice, likes("basil", said=now, effective=now + dt.timedelta(days=30)))
    assert again.outcome == "reinforced" and again.card.pk == first.pk
    stored = Card.objects.get(pk=first.pk)
    assert now - dt.timedelta(days=10) < stored.verified_at <= timezone.now()


@PATHS
def test_a_late_earlier_dated_preference_is_placed_before_the_one_held(alice, scope, path):
    """An opposite-labelled value is a timeline of its own: an earlier start said later is placed before
    what we hold, not taken for a restatement of it."""
    now = timezone.now()
    held = card_remember(scope=scope, actor=alice, draft=likes("basil", said=now - dt.timedelta(days=5),
                                                               effective=now - dt.timedelta(days=10))).card
    late = remember(path, scope, alice, likes("basil", said=now, effective=now - dt.timedelta(days=40)))
    assert late.outcome == "inserted" and late.card.pk != held.pk
    stored = Card.objects.get(pk=late.card.pk)
    assert (stored.effective_at, stored.superseded_at, stored.superseded_by_id) == (
        now - dt.timedelta(days=40), now - dt.timedelta(days=10), held.pk)


@PATHS
def test_closing_a_planned_value_confirms_nothing(alice, scope, path):
    """A value planned for a date ahead, then replaced by a later plan: the closed one keeps the
    confirmation it had (when it was said), never the future date it was planned for."""
    now = timezone.now()
    planned = card_remember(scope=scope, actor=alice, draft=CardDraft(
        kind="state", label="address", subject="me", value="Kyoto", reference_time=now,
        effective_at=now + dt.timedelta(days=10))).card
    assert planned.verified_at <= timezone.now()
    later = remember(path, scope, alice, CardDraft(kind="state", label="address", subject="me", value="Osaka",
                                                   reference_time=now, effective_at=now + dt.timedelta(days=20)))
    assert later.outcome == "superseded" and later.superseded == [planned.pk]
    closed = Card.objects.get(pk=planned.pk)
    assert closed.superseded_at == now + dt.timedelta(days=20)
    assert closed.verified_at == planned.verified_at and list(closed.stated_at) == [now + dt.timedelta(days=10)]


@PATHS
def test_a_planned_value_said_again_is_confirmed_again(alice, scope, path):
    """The same date ahead said twice: the second saying is a confirmation too, so verified_at moves to
    when it was said (never past now), though the statement's date is already kept."""
    now = timezone.now()
    planned = CardDraft(kind="state", label="address", subject="me", value="Kyoto", reference_time=now,
                        effective_at=now + dt.timedelta(days=10))
    first = card_remember(scope=scope, actor=alice, draft=planned).card
    again = remember(path, scope, alice, planned)
    assert again.outcome == "reinforced" and again.card.pk == first.pk
    stored = Card.objects.get(pk=first.pk)
    assert first.verified_at < stored.verified_at <= timezone.now()
    assert list(stored.stated_at) == [now + dt.timedelta(days=10)]
