"""The API's card list and the scope page's are one read (cards.selectors.card_list.cards_list):
for the same filters, the same cards, whichever surface asks."""

import datetime as dt
from pathlib import Path

import pytest

from cards.drafts import CardDraft
from cards.services import card_remember

pytestmark = pytest.mark.django_db

ROOT = Path(__file__).resolve().parent.parent.parent

# The page's form and the API's query, asking the same thing: the page reads with the scope's ladder when
# `ladder` is on, as the API reads a named scope; the page's day ends in the viewer's zone (alice's: Taipei).
SAME_FILTERS = [
    ({"view": "current"}, {}),
    ({"view": "history"}, {"current": "false"}),
    ({"view": "current", "label": "address"}, {"label": "address"}),
    ({"view": "history", "label": "home address"}, {"label": "home address", "current": "false"}),
    ({"view": "current", "kind": "event"}, {"kind": "event"}),
    ({"view": "history", "tag": "fact"}, {"tag": "fact", "current": "false"}),
    ({"view": "as_of", "as_of": "2026-06-01"}, {"as_of": "2026-06-01T23:59:59.999999+08:00"}),
]


@pytest.fixture
def listed(household, alice, t0):
    family = household["family"]
    card_remember(scope=alice.personal_scope, actor=alice, draft=CardDraft(
        kind="state", label="hobby", subject="me", value="knitting", reference_time=t0))
    card_remember(scope=family, actor=alice, draft=CardDraft(
        kind="event", label="wedding", subject="me", value="Lee's wedding", occurred_at=t0 - dt.timedelta(days=6),
        reference_time=t0))
    return household


@pytest.mark.parametrize("page_filters, api_filters", SAME_FILTERS)
def test_the_page_and_the_api_list_the_same_cards_for_the_same_filters(listed, alice, pages, as_user,
                                                                        page_filters, api_filters):
    family = listed["family"]
    page = pages(alice).get(f"/scopes/{family.pk}/", {**page_filters, "ladder": "on"})
    assert page.status_code == 200
    on_page = {card["id"] for card in page.context["cards"]}
    answer = as_user(alice).get("/api/v1/cards/", {**api_filters, "scope": family.pk})
    assert answer.status_code == 200
    assert on_page == {card["id"] for card in answer.json()["results"]}
    assert on_page, "each filter lists some of the cards above"


def test_both_card_lists_assemble_their_read_in_one_selector():
    for path in ("cards/api/views.py", "cards/pages/cards.py"):
        source = (ROOT / path).read_text()
        assert "cards_list(" in source, f"{path} lists cards through cards_list"
        for piece in ("cards_filtered(", "cards_in_interval(", "written_by(", "aging_card_ids("):
            assert piece not in source, f"{path} assembles the card list itself ({piece})"
