"""Bad input is refused whole, with every problem named, before anything is written."""

import pytest

from cards.drafts import CardDraft
from cards.errors import InvalidCard
from cards.models import Card
from cards.services import card_remember, card_remember_many

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("changes, field", [
    ({"kind": "feeling"}, "kind"),
    ({"tag": "rumour"}, "tag"),
    ({"value": "a\x00b"}, "value"),
    ({"value": "x" * 1_000_000}, "value"),
    ({"value": "", "text": ""}, "value"),
    ({"impact": 7}, "impact"),
    ({"impact": True}, "impact"),
    ({"confidence": 1.5}, "confidence"),
    ({"confidence": float("nan")}, "confidence"),
    ({"subject": "  "}, "subject"),
    ({"time_zone": "Mars/Olympus"}, "time_zone"),
    ({"precision": "day"}, "occurred_at"),
    ({"effective_at": "yesterday"}, "effective_at"),
])
def test_invalid_draft_names_the_field(alice, scope, t0, changes, field):
    fields = {"kind": "state", "label": "city", "subject": "me", "value": "Kyoto", "reference_time": t0}
    fields.update(changes)
    with pytest.raises(InvalidCard) as refused:
        card_remember(scope=scope, actor=alice, draft=CardDraft(**fields))
    assert refused.value.code == "validation_error"
    assert field in refused.value.extra["fields"]
    assert Card.objects.count() == 0


def test_bulk_is_all_or_nothing(alice, scope, t0):
    good = CardDraft(kind="state", label="city", subject="me", value="Kyoto", reference_time=t0)
    bad = CardDraft(kind="state", label="no_such_label", subject="me", value="x", reference_time=t0)
    with pytest.raises(Exception) as refused:
        card_remember_many(scope=scope, actor=alice, drafts=[good, good, bad])
    assert refused.value.extra["index"] == 2
    assert Card.objects.count() == 0
