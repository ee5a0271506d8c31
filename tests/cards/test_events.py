"""Hard rule 3: events are write-once; descriptions are corrected with revisions."""

import datetime as dt

import pytest
from django.db import IntegrityError, connection, transaction

from cards.drafts import CardDraft
from cards.errors import ImmutableEvent
from cards.models import Card
from cards.services import card_describe, card_remember, event_update_refused

pytestmark = pytest.mark.django_db


def wedding(at, *, occurred_at=None, precision="", value="Lee's wedding"):
    return CardDraft(kind="event", label="wedding", subject="me", value=value, text="We went to the wedding",
                     reference_time=at, occurred_at=occurred_at, precision=precision)


def test_dated_event_stores_its_interval(alice, scope, t0):
    day = dt.datetime(2026, 5, 2, tzinfo=t0.tzinfo)
    card = card_remember(scope=scope, actor=alice, draft=wedding(t0, occurred_at=day, precision="day")).card
    assert (card.occurred_at, card.occurred_end) == (day, day + dt.timedelta(days=1))
    assert (card.precision, card.time_source) == ("day", "stated")


def test_event_without_time_is_undated_never_stamped_today(alice, scope, t0):
    card = card_remember(scope=scope, actor=alice, draft=wedding(t0)).card
    assert card.occurred_at is None and card.precision == "" and card.time_source == "none"


def test_same_event_same_day_is_a_duplicate(alice, scope, t0):
    day = dt.datetime(2026, 5, 2, tzinfo=t0.tzinfo)
    first = card_remember(scope=scope, actor=alice, draft=wedding(t0, occurred_at=day, precision="day")).card
    at_three = day.replace(hour=15)
    result = card_remember(scope=scope, actor=alice, draft=wedding(t0, occurred_at=at_three, precision="datetime"))
    assert result.outcome == "duplicate" and result.card.pk == first.pk
    next_day = card_remember(scope=scope, actor=alice, draft=wedding(
        t0, occurred_at=day + dt.timedelta(days=1), precision="day"))
    assert next_day.outcome == "inserted"


def test_two_undated_reports_of_one_event_are_one(alice, scope, t0):
    first = card_remember(scope=scope, actor=alice, draft=wedding(t0)).card
    assert card_remember(scope=scope, actor=alice, draft=wedding(t0)).card.pk == first.pk
    other = card_remember(scope=scope, actor=alice, draft=wedding(t0, value="Kim's wedding"))
    assert other.outcome == "inserted"


@pytest.mark.parametrize("column, value", [
    ("occurred_at", "now()"),
    ("value", "'another wedding'"),
    ("label_id", "(SELECT id FROM cards_label WHERE key = 'trip')"),
    ("kind", "'state'"),
    ("precision", "'year'"),
])
def test_trigger_refuses_raw_sql_update_of_event_identity(alice, scope, t0, column, value):
    card = card_remember(scope=scope, actor=alice, draft=wedding(
        t0, occurred_at=t0 - dt.timedelta(days=3), precision="day")).card
    with pytest.raises(IntegrityError) as refused, transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(f"UPDATE cards_card SET {column} = {value} WHERE id = %s", [card.pk])
    assert "immutable_event" in str(refused.value)
    assert isinstance(event_update_refused(refused.value), ImmutableEvent)
    card.refresh_from_db()
    assert card.value == "Lee's wedding" and card.occurred_at == t0 - dt.timedelta(days=3)


def test_trigger_refuses_turning_a_state_into_an_event(alice, scope, t0):
    card = card_remember(scope=scope, actor=alice, draft=CardDraft(
        kind="state", label="hobby", subject="me", value="chess", reference_time=t0)).card
    with pytest.raises(IntegrityError), transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("UPDATE cards_card SET kind = 'event' WHERE id = %s", [card.pk])


def test_trigger_refuses_delete_outside_forget(alice, scope, t0):
    card = card_remember(scope=scope, actor=alice, draft=wedding(t0)).card
    with pytest.raises(IntegrityError), transaction.atomic():
        Card.objects.filter(pk=card.pk).delete()
    assert Card.objects.filter(pk=card.pk).exists()


def test_description_correction_is_kept_as_a_revision(alice, scope, t0):
    card = card_remember(scope=scope, actor=alice, draft=wedding(t0)).card
    card_describe(card=card, actor=alice, text="We went to Lee and Jo's wedding in Porto", reason="typo")
    card.refresh_from_db()
    assert card.text == "We went to Lee and Jo's wedding in Porto"
    revision = card.revisions.get()
    assert (revision.before, revision.after, revision.actor, revision.reason) == (
        "We went to the wedding", "We went to Lee and Jo's wedding in Porto", alice, "typo")


@pytest.mark.parametrize("column, value", [
    ("value", "'another wedding'"),
    ("label_id", "(SELECT id FROM cards_label WHERE key = 'trip')"),
    ("kind", "'state'"),
    ("subject_id", "subject_id + 1000"),  # the trigger runs before any key is checked
    ("scope_id", "scope_id + 1000"),
])
def test_a_correction_of_one_card_still_may_not_change_what_happened(alice, scope, t0, column, value):
    """The correcting setting (services/corrections.py event_correct) opens the event's time and object, for
    the one card it names: what happened, to whom and what kind of event stay refused."""
    card = card_remember(scope=scope, actor=alice, draft=wedding(
        t0, occurred_at=t0 - dt.timedelta(days=3), precision="day")).card
    with pytest.raises(IntegrityError, match="immutable_event"), transaction.atomic(), \
            connection.cursor() as cursor:
        cursor.execute(f"SET LOCAL memory_site.correcting = '{card.pk}'")
        cursor.execute(f"UPDATE cards_card SET {column} = {value} WHERE id = %s", [card.pk])
    with transaction.atomic(), connection.cursor() as cursor:  # while its time may change, in that transaction
        cursor.execute(f"SET LOCAL memory_site.correcting = '{card.pk}'")
        cursor.execute("UPDATE cards_card SET occurred_at = occurred_at - interval '1 day' WHERE id = %s",
                       [card.pk])
        transaction.set_rollback(True)
    card.refresh_from_db()
    assert card.value == "Lee's wedding" and card.occurred_at == t0 - dt.timedelta(days=3)
