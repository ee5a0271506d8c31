"""What a member shares, on the pages a household uses: the Ask page answers from it (with no
scope chosen, and in the family), the family's page lists it as the member's, and the card's page
shows it with nothing to change or forget — never what was not shared."""

from __future__ import annotations

import pytest

from tests.api.test_shared_reads import silvas

pytestmark = pytest.mark.django_db


@pytest.fixture
def world():
    return silvas()


def test_the_ask_page_answers_from_a_share(world, pages):
    client = pages(world["dana"])
    page = client.get("/ask/", {"form": "question", "question": "Where does Sam work?"}).content.decode()
    assert "Acme Shipping" in page and "Recorded" in page
    page = client.get("/ask/", {"form": "question", "scope": world["family"].pk,
                                "question": "Where does Sam live?"}).content.decode()
    assert "9 Hill Street" not in page and "no record" in page.lower()


def test_the_family_page_lists_a_share_and_its_card_page_offers_no_change(world, pages):
    client = pages(world["dana"])
    page = client.get(f"/scopes/{world['family'].pk}/").content.decode()
    assert "Acme Shipping" in page and "9 Hill Street" not in page
    card = client.get(f"/cards/{world['employer'].pk}/")
    assert card.status_code == 200
    shown = card.content.decode()
    assert "Acme Shipping" in shown and "Forget this card" not in shown and 'name="text"' not in shown
    assert client.get(f"/cards/{world['address'].pk}/").status_code == 404
    assert pages(world["leo"]).get(f"/cards/{world['employer'].pk}/").status_code == 404
