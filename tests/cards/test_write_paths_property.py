"""The two write paths decide alike (cards/services/write_decision.py): the same
generated writes — single values, multi values, an opposite pair, events, a
guess now and then, the same value again, late-arriving earlier-dated values,
planned ones, reference times out of order — given to card_remember one at a
time for one person and to card_remember_batch, in chunks, for another, end in
the same outcomes and the same cards.

`make test` runs a few dozen sequences; `pytest -m long` runs many more."""

from __future__ import annotations

import datetime as dt
import itertools

import pytest
from django.utils import timezone
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cards.drafts import CardDraft
from cards.models import Card
from cards.services import card_remember, card_remember_batch
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db
_people = itertools.count()
# Whole hours from a start 300 days back: most of it past, some of it ahead of now (planned values).
START = timezone.now().replace(minute=0, second=0, microsecond=0) - dt.timedelta(days=300)
HOURS = st.integers(min_value=0, max_value=400 * 24)


def _at(hours: int) -> dt.datetime:
    return START + dt.timedelta(hours=hours)


@st.composite
def drafts(draw) -> CardDraft:
    kind = draw(st.sampled_from(["single", "single", "multi", "pair", "event", "guess"]))
    said = draw(HOURS)
    # A value dated on its own, often before it is said (a late-arriving fact), sometimes ahead (planned).
    effective = draw(st.one_of(st.none(), HOURS))
    when = {"reference_time": _at(said), "effective_at": None if effective is None else _at(effective)}
    if kind == "single":
        return CardDraft(kind="state", label="address", subject="me",
                         value=draw(st.sampled_from(["Kyoto", "Osaka", "Lisbon"])), **when)
    if kind == "multi":
        return CardDraft(kind="state", label="skill", subject="me", value=draw(st.sampled_from(["Go", "Rust"])),
                         **when)
    if kind == "pair":
        return CardDraft(kind="state", label=draw(st.sampled_from(["likes", "dislikes"])), subject="me",
                         value=draw(st.sampled_from(["coriander", "basil"])), tag="preference", **when)
    if kind == "guess":
        return CardDraft(kind="state", label=draw(st.sampled_from(["address", "skill"])), subject="me",
                         value=draw(st.sampled_from(["Kyoto", "Go"])), tag="hypothesis", confidence=0.6, **when)
    day = _at(draw(HOURS))
    return CardDraft(kind="event", label="meal", subject="me", value=draw(st.sampled_from(["ramen", "soba"])),
                     occurred_at=draw(st.sampled_from([None, day, day + dt.timedelta(hours=5)])),
                     precision=draw(st.sampled_from(["day", "datetime"])), reference_time=_at(said))


def snapshot(scope, since: dt.datetime) -> list[tuple]:
    """Every card of the scope as the rules leave it. An instant since the test began is a write's own
    now (a planned value confirmed when it was said, a guess closed by a fact, a start stated ahead of
    the clock said to hold now): the two runs' nows differ."""
    until = timezone.now()

    def instant(at):
        return "now" if at is not None and since <= at <= until else at
    cards = list(Card.objects.filter(scope=scope).select_related("label"))
    values = {c.pk: (c.label.key, c.value) for c in cards}
    return sorted(((c.kind, c.tag, c.label.key, c.value, c.effective_at, instant(c.superseded_at), c.occurred_at,
                   c.occurred_end, instant(c.verified_at), tuple(instant(s) for s in c.stated_at),
                   values.get(c.superseded_by_id), c.disputes_id is not None)
                  for c in cards), key=str)


def _both_paths_agree(writes: list[CardDraft], cuts: list[int]) -> None:
    since = timezone.now()
    one, many = (UserFactory(username=f"paths{next(_people)}") for _ in range(2))
    by_one = [card_remember(scope=one.personal_scope, actor=one, draft=d).outcome for d in writes]
    by_batch = []
    bounds = sorted({0, len(writes), *(c for c in cuts if c < len(writes))})
    for start, end in zip(bounds, bounds[1:]):
        by_batch += [o.outcome for o in card_remember_batch(actor=many, items=[(many.personal_scope, d)
                                                                              for d in writes[start:end]])]
    assert by_batch == by_one
    assert snapshot(many.personal_scope, since) == snapshot(one.personal_scope, since)


PROPERTY = dict(deadline=None, database=None, derandomize=True,
                suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow,
                                       HealthCheck.data_too_large])
WRITES = st.lists(drafts(), min_size=1, max_size=14)
CUTS = st.lists(st.integers(min_value=1, max_value=13), max_size=3)


@settings(max_examples=30, **PROPERTY)
@given(writes=WRITES, cuts=CUTS)
def test_the_batch_decides_as_card_remember_does(writes, cuts):
    _both_paths_agree(writes, cuts)


@pytest.mark.long
@settings(max_examples=600, **PROPERTY)
@given(writes=st.lists(drafts(), min_size=1, max_size=30), cuts=st.lists(st.integers(1, 29), max_size=5))
def test_the_batch_decides_as_card_remember_does_long(writes, cuts):
    _both_paths_agree(writes, cuts)
