"""The set-based batch path gives exactly what card-by-card remembering gives."""

import datetime as dt
import random

import pytest

from cards.drafts import CardDraft
from cards.models import Card
from cards.services import card_remember, card_remember_batch
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db
BASE = dt.datetime(2026, 1, 1, 9, tzinfo=dt.timezone.utc)


def random_drafts(rng: random.Random, count: int) -> list[CardDraft]:
    drafts = []
    for i in range(count):
        at = BASE + dt.timedelta(hours=i * 7 + rng.randint(0, 5))
        roll = rng.random()
        if roll < 0.15:  # some late facts: they take the careful path
            at -= dt.timedelta(days=rng.randint(1, 40))
        if roll < 0.45:
            drafts.append(CardDraft(kind="state", label=rng.choice(["address", "employer", "browser"]),
                                    subject=rng.choice(["me", "Robin"]), value=f"v{rng.randint(0, 3)}",
                                    reference_time=at))
        elif roll < 0.7:
            drafts.append(CardDraft(kind="state", label=rng.choice(["skill", "language"]), subject="me",
                                    value=f"s{rng.randint(0, 6)}", reference_time=at))
        elif roll < 0.9:
            day = BASE + dt.timedelta(days=rng.randint(0, 20))
            drafts.append(CardDraft(kind="event", label="meal", subject="me", value=f"m{rng.randint(0, 3)}",
                                    occurred_at=day + dt.timedelta(hours=rng.randint(0, 30)),
                                    precision=rng.choice(["day", "datetime"]), reference_time=at))
        else:
            drafts.append(CardDraft(kind="knowledge", label="note", subject="House", value=f"n{rng.randint(0, 4)}",
                                    reference_time=at))
    return drafts


def snapshot(scope) -> list[tuple]:
    cards = list(Card.objects.filter(scope=scope).select_related("label", "subject"))
    # The successor is looked up among the scope's own cards: a join by id alone would need every shard.
    values = {c.pk: c.value for c in cards}
    return sorted((c.kind, c.subject.name if c.subject.user_id is None else "me", c.label.key, c.value,
                   c.effective_at, c.superseded_at, c.occurred_at, c.occurred_end, c.verified_at,
                   tuple(c.stated_at), values[c.superseded_by_id] if c.superseded_by_id else None)
                  for c in cards)


@pytest.mark.parametrize("seed", range(6))
def test_batch_equals_one_by_one(seed):
    rng = random.Random(seed)
    history, batch = random_drafts(rng, 40), random_drafts(rng, 120)
    one, two = UserFactory(username=f"one{seed}"), UserFactory(username=f"two{seed}")
    expected_outcomes = []
    for user in (one, two):
        for draft in history:
            card_remember(scope=user.personal_scope, actor=user, draft=draft)
    for draft in batch:
        expected_outcomes.append(card_remember(scope=one.personal_scope, actor=one, draft=draft).outcome)
    outcomes = card_remember_batch(actor=two, items=[(two.personal_scope, d) for d in batch])
    assert [o.outcome for o in outcomes] == expected_outcomes
    assert snapshot(two.personal_scope) == snapshot(one.personal_scope)
    for outcome in outcomes:
        assert outcome.card.pk is not None


def test_batch_refusal_names_its_index_and_writes_nothing(alice, scope):
    good = CardDraft(kind="state", label="city", subject="me", value="Kyoto", reference_time=BASE)
    bad = CardDraft(kind="state", label="nonsense", subject="me", value="x", reference_time=BASE)
    with pytest.raises(Exception) as refused:
        card_remember_batch(actor=alice, items=[(scope, good), (scope, bad)])
    assert refused.value.extra["index"] == 1
    assert Card.objects.count() == 0



@pytest.mark.parametrize("value", ["Kyoto", "Taipei"], ids=["closes", "reinforces"])
def test_a_value_forgotten_while_the_batch_writes_over_it_refuses_the_batch(alice, scope, monkeypatch, value):
    """A forget that commits between the batch's read of the timelines and its UPDATEs (forgets take no
    timeline lock): the batch is refused whole, as the single path's _fork refuses, instead of writing a
    successor that says it closed a value which is gone ("Kyoto"), or reporting a card that is gone as
    reinforced ("Taipei" again)."""
    import cards.services.batch as batch
    from cards.errors import CardGone
    from cards.services import card_remember_many

    first = card_remember(scope=scope, actor=alice, draft=CardDraft(
        kind="state", label="address", subject="me", value="Taipei", reference_time=BASE)).card
    read = batch._load

    def forgotten_meanwhile(writes):
        found = read(writes)
        Card.objects.filter(pk=first.pk).delete()  # stands in for the other transaction's forget
        return found
    monkeypatch.setattr(batch, "_load", forgotten_meanwhile)
    later = CardDraft(kind="state", label="address", subject="me", value=value,
                      reference_time=BASE + dt.timedelta(days=30))
    with pytest.raises(CardGone):
        card_remember_many(scope=scope, actor=alice, drafts=[later])
    assert list(Card.objects.filter(scope=scope).values_list("pk", flat=True)) == [first.pk]  # rolled back whole
