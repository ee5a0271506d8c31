"""A generated two-year life: statements arrive in and out of order, and memory
must still say the right thing at every month end.

The life is a step function per label. The agent hears (a) each change, most
on the day, some weeks late ("we moved to Osaka in March", said in June), and
(b) truthful reaffirmations of the value of the day. Statements are written in
the order they were heard."""

import datetime as dt
import random
from dataclasses import dataclass

import pytest
from dateutil.relativedelta import relativedelta

from cards.drafts import CardDraft
from cards.models import Card, Label
from cards.selectors.cards import card_as_of
from cards.services import card_remember, card_retract

pytestmark = pytest.mark.django_db

SINGLE = ["address", "city", "employer", "job_title", "phone", "email", "browser", "diet", "car", "school"]
MULTI = ["skill", "interest", "language", "hobby", "pet"]
START = dt.datetime(2024, 12, 1, 9, 0, tzinfo=dt.timezone.utc)
DAYS = 730


@dataclass(order=True)
class Heard:
    heard_at: dt.datetime
    happened_at: dt.datetime
    label: str
    value: str
    retract: bool = False


def life(seed: int):
    rng = random.Random(seed)
    truth: dict[str, list[tuple[dt.datetime, str]]] = {}
    heard: list[Heard] = []
    for label in SINGLE:
        pool = [f"{label}-{i}" for i in range(5)]  # small pool: values come back (A → B → A)
        changes, value = [], None
        for day in sorted(rng.sample(range(DAYS), rng.randint(17, 24))):
            at = START + dt.timedelta(days=day, minutes=rng.randint(0, 600))
            value = rng.choice([v for v in pool if v != value])
            changes.append((at, value))
        truth[label] = changes
        for at, value in changes:
            late = dt.timedelta(days=rng.randint(5, 80)) if rng.random() < 0.25 else dt.timedelta(0)
            heard.append(Heard(at + late, at, label, value))
        for _ in range(rng.randint(3, 8)):  # reaffirmations of the value of the day
            at = START + dt.timedelta(days=rng.randint(0, DAYS - 1), hours=20)
            known = [v for t, v in changes if t <= at]
            if known:
                heard.append(Heard(at, at, label, known[-1]))
    multi_truth: dict[str, list[tuple[dt.datetime, str, bool]]] = {}
    for label in MULTI:
        held: set[str] = set()
        steps = []
        for day in sorted(rng.sample(range(DAYS), rng.randint(6, 10))):
            at = START + dt.timedelta(days=day, hours=12)
            candidate = f"{label}-{rng.randint(0, 5)}"
            retract = candidate in held and rng.random() < 0.5
            held.symmetric_difference_update({candidate} if retract or candidate not in held else set())
            steps.append((at, candidate, retract))
            heard.append(Heard(at, at, label, candidate, retract))
        multi_truth[label] = steps
    return truth, multi_truth, sorted(heard)


def value_at(changes, at):
    known = [value for when, value in changes if when <= at]
    return known[-1] if known else None


def held_at(steps, at):
    held: set[str] = set()
    for when, value, retract in steps:
        if when <= at:
            (held.discard if retract else held.add)(value)
    return held


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_two_years_of_statements_give_the_right_value_at_every_month_end(alice, seed):
    scope = alice.personal_scope
    truth, multi_truth, heard = life(seed)
    single_updates = sum(len(changes) for changes in truth.values())
    assert single_updates + sum(len(s) for s in multi_truth.values()) >= 200
    for item in heard:
        if item.retract:
            card = Card.objects.get(scope=scope, label__key=item.label, value=item.value, superseded_at__isnull=True)
            card_retract(card=card, actor=alice, at=item.happened_at)
            continue
        card_remember(scope=scope, actor=alice, draft=CardDraft(
            kind="state", label=item.label, subject="me", value=item.value,
            effective_at=item.happened_at, reference_time=item.heard_at))
        current = Card.objects.filter(scope=scope, label__key=item.label, superseded_at__isnull=True)
        if item.label in SINGLE:
            assert current.count() == 1, f"two current {item.label} cards after {item}"

    labels = {label.key: label for label in Label.objects.filter(key__in=SINGLE + MULTI)}
    month_end = START + relativedelta(day=31, hour=23, minute=59)
    checked = 0
    while month_end < START + dt.timedelta(days=DAYS):
        for label in SINGLE:
            cards = card_as_of(scope=scope, subject=alice.entity, label=labels[label], at=month_end)
            expected = value_at(truth[label], month_end)
            assert [c.value for c in cards] == ([expected] if expected else []), (label, month_end)
        for label in MULTI:
            cards = card_as_of(scope=scope, subject=alice.entity, label=labels[label], at=month_end)
            assert {c.value for c in cards} == held_at(multi_truth[label], month_end), (label, month_end)
            assert len(cards) == len({c.value for c in cards})
        checked += 1
        month_end = month_end + relativedelta(months=1, day=31)
    assert checked == 24
    for label in SINGLE:
        chain = list(Card.objects.filter(scope=scope, label__key=label).order_by("effective_at", "id"))
        for older, newer in zip(chain, chain[1:]):
            assert older.superseded_at == newer.effective_at and older.superseded_by_id == newer.pk
