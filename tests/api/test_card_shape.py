"""The hot paths shape cards from `.values()` rows; `CardOut` documents the same
shape in the schema. The two must never drift apart."""

import datetime as dt

import orjson
import pytest
from rest_framework.renderers import JSONRenderer

from cards.api.serializers import CardOut
from cards.selectors.shape import card_out, card_rows
from cards.drafts import CardDraft
from cards.models import Card
from cards.selectors.cards import with_perspective
from cards.services import card_remember
from scopes.services import membership_set
from tests.factories import UserFactory, family_scope

pytestmark = pytest.mark.django_db

AT = dt.datetime(2026, 5, 8, 8, 44, 10, 123456, tzinfo=dt.timezone.utc)


def test_values_shape_equals_the_documented_serializer():
    dana, sam = UserFactory(username="dana"), UserFactory(username="sam")
    family = family_scope(owner=dana)
    membership_set(scope=family, user=sam, role="member")
    drafts = [
        CardDraft(kind="state", label="address", subject="me", value="Taipei", reference_time=AT),
        CardDraft(kind="state", label="address", subject="me", value="Kyoto", reference_time=AT + dt.timedelta(days=3),
                  source_session="s1", source_message="m1", source_quote="we moved", confidence=0.5, impact=3),
        CardDraft(kind="event", label="wedding", subject="me", value="Ana's wedding", text="we went",
                  occurred_at=AT - dt.timedelta(days=2), occurred_end=AT - dt.timedelta(days=1), precision="day",
                  time_source="resolved", reference_time=AT, perspectives={"sam": "my sister-in-law's wedding"}),
        CardDraft(kind="event", label="wedding", subject="Ana", value="her own", reference_time=AT),
        CardDraft(kind="state", label="works_at", subject="Ana", object="Acme", reference_time=AT),
    ]
    for draft in drafts:
        card_remember(scope=family, actor=dana, draft=draft)
    for viewer in (dana, sam):
        by_id = {row["id"]: card_out(row) for row in card_rows(Card.objects.filter(scope=family), user=viewer)}
        models = with_perspective(Card.objects.filter(scope=family), user=viewer)
        assert len(by_id) == len(drafts)
        for card in models:
            documented = orjson.loads(JSONRenderer().render(CardOut(card).data))
            assert orjson.loads(orjson.dumps(by_id[card.pk])) == documented
    # The perspective and the superseded card really are in there (the loop above compared them).
    shaped = [card_out(row) for row in card_rows(Card.objects.filter(scope=family), user=sam)]
    assert any(c["text"] == "my sister-in-law's wedding" and c["base_text"] == "we went" for c in shaped)
    assert any(c["superseded_at"] and c["superseded_by"] for c in shaped)
    assert any(c["object"] == "Acme" for c in shaped)
