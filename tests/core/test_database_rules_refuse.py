"""A rule the database holds, broken inside a page's decision, reaches the page as its domain
refusal (core.errors.database_rules_refuse) — the write-once trigger on events here — after the
decision's transaction rolled back; any other IntegrityError stays what it is."""

import datetime as dt

import pytest
from django.db import IntegrityError, transaction
from django.utils import timezone

from cards.drafts import CardDraft
from cards.errors import ImmutableEvent
from cards.models import Card
from cards.services import card_remember
from core.errors import database_rules_refuse

pytestmark = pytest.mark.django_db


def test_a_broken_database_rule_is_refused_in_words_and_nothing_is_written(alice):
    trip = card_remember(scope=alice.personal_scope, actor=alice, draft=CardDraft(
        kind="event", label="trip", subject="me", value="Kyoto", occurred_at=timezone.now(), precision="day")).card
    with pytest.raises(ImmutableEvent):
        with database_rules_refuse(), transaction.atomic():
            Card.objects.filter(pk=trip.pk).update(text="a new description")
            Card.objects.filter(pk=trip.pk).update(occurred_at=trip.occurred_at - dt.timedelta(days=3))
    trip.refresh_from_db()
    assert trip.text == "" and Card.objects.get(pk=trip.pk).occurred_at == trip.occurred_at


def test_an_integrity_error_no_rule_reads_is_left_as_it_is(alice):
    with pytest.raises(IntegrityError):
        with database_rules_refuse(), transaction.atomic():
            raise IntegrityError("not a rule anyone reads")
