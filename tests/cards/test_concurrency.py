"""Concurrent writers of one single-value label: one current card, an unbroken chain; of look-alike
names: one entity."""

import datetime as dt
import random
import threading

import pytest
from django.db import connection, transaction

from cards.drafts import CardDraft
from cards.errors import ConfusableName
from cards.models import Card, Entity
from cards.services import card_remember
from cards.services.entities import entity_for_write
from tests.factories import UserFactory

THREADS = 8
ROUNDS = 50


@pytest.mark.django_db(transaction=True, serialized_rollback=True)
def test_eight_concurrent_addresses_leave_one_current_card_and_an_unbroken_chain():
    alice = UserFactory(username="alice")
    scope = alice.personal_scope
    base = dt.datetime(2026, 1, 1, tzinfo=dt.timezone.utc)
    rng = random.Random(7)
    errors: list[BaseException] = []

    def write(value: str, at: dt.datetime, barrier: threading.Barrier) -> None:
        try:
            barrier.wait(timeout=30)
            card_remember(scope=scope, actor=alice, draft=CardDraft(
                kind="state", label="address", subject="me", value=value, reference_time=at))
        except BaseException as error:  # surfaced below: a thread's failure must fail the test
            errors.append(error)
        finally:
            connection.close()

    expected_order: list[str] = []
    for round_no in range(ROUNDS):
        # Shuffled reference times: some writers arrive "late" and take the timeline path.
        offsets = rng.sample(range(THREADS), THREADS)
        barrier = threading.Barrier(THREADS)
        jobs = [(f"street {round_no}-{i}", base + dt.timedelta(minutes=round_no * 10 + offsets[i]))
                for i in range(THREADS)]
        threads = [threading.Thread(target=write, args=(value, at, barrier)) for value, at in jobs]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=60)
        assert not errors, errors
        current = Card.objects.filter(scope=scope, label__key="address", superseded_at__isnull=True)
        assert current.count() == 1, f"round {round_no}: {list(current.values_list('value', flat=True))}"
        expected_order += [value for value, at in sorted(jobs, key=lambda job: job[1])]

    chain = list(Card.objects.filter(scope=scope, label__key="address").order_by("effective_at"))
    assert [card.value for card in chain] == expected_order
    for older, newer in zip(chain, chain[1:]):
        assert older.superseded_by_id == newer.pk
        assert older.superseded_at == newer.effective_at
    assert chain[-1].superseded_at is None


@pytest.mark.django_db(transaction=True, serialized_rollback=True)
def test_two_writers_of_look_alike_names_at_once_leave_one_entity_and_a_did_you_mean():
    """"Paris" and "Pаris" (a Cyrillic а) written at the same moment: the second
    waits for the first's transaction, then sees its name and is refused."""
    alice = UserFactory(username="alice")
    scope = alice.personal_scope
    first_added, release = threading.Event(), threading.Event()
    outcome: dict[str, object] = {}

    def write(key: str, name: str, hold: bool) -> None:
        try:
            with transaction.atomic():
                outcome[key] = entity_for_write(scope=scope, actor=alice, ref=name)
                if hold:
                    first_added.set()
                    release.wait(timeout=60)
        except BaseException as error:  # surfaced below
            outcome[key] = error
        finally:
            connection.close()

    first = threading.Thread(target=write, args=("first", "Paris", True))
    first.start()
    assert first_added.wait(timeout=60)
    second = threading.Thread(target=write, args=("second", "P\u0430ris", False))
    second.start()
    second.join(timeout=1)
    assert second.is_alive()  # it takes its turn after the first writer's transaction
    release.set()
    first.join(timeout=60)
    second.join(timeout=60)
    assert isinstance(outcome["first"], Entity), outcome
    assert isinstance(outcome["second"], ConfusableName), outcome
    assert outcome["second"].extra["candidates"][0]["name"] == "Paris"
    assert list(Entity.objects.filter(scope=scope, name_skeleton=outcome["first"].name_skeleton)
                .values_list("name", flat=True)) == ["Paris"]
