"""What a member shares, on the pages a household uses: the Ask page answers from it (with no
scope chosen, and in the family), the family's page lists it as the member's, and the card's page
shows it with nothing to change or forget — never what was not shared."""

from __future__ import annotations

import pytest
from django.urls import reverse

from cards.models import Entity
from cards.recall.contradictions import contradiction_card_ids
from cards.selectors.read_scopes import scope_ids_read
from memory_site.health import scopes_health
from scopes.principals import Principal
from tests.api.test_shared_reads import silvas, state

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


def test_sams_page_lists_what_he_shares_as_his_and_nothing_else(world, pages):
    """Dana opens Sam's person page: his shared employer is there, said to be shared by him; his
    address is not. Unshared, it is gone from the page at once."""
    sam = Entity.objects.get(user=world["sam"])
    url = reverse("person", args=[sam.pk])
    page = pages(world["dana"]).get(url).content.decode()
    assert "Acme Shipping" in page and "shared by Sam" in page and "9 Hill Street" not in page
    world["share"].delete()
    assert "Acme Shipping" not in pages(world["dana"]).get(url).content.decode()
    assert "Acme Shipping" in pages(world["sam"]).get(url).content.decode()


def test_a_card_disagreeing_with_a_share_is_a_contradiction_the_family_page_lists_and_counts(world, pages):
    """Dana's family card says Sam works at Beta; Sam shares Acme. The family's contradiction view
    lists both sides and the home page's count of the family says 1; unshared, neither."""
    dana = world["dana"]
    theirs = state(world["family"], dana, "employer", "Beta Foods", subject="Sam")
    family = world["family"]

    def counted() -> int:
        return scopes_health(principal=Principal(dana), scopes=[family])[family.pk].contradictions

    listed = pages(dana).get(f"/scopes/{family.pk}/", {"view": "contradictions"}).content.decode()
    assert "Acme Shipping" in listed and "Beta Foods" in listed and counted() == 1
    assert set(contradiction_card_ids(scope_ids_read(principal=Principal(dana), scope_id=family.pk))) == {
        theirs.pk, world["employer"].pk}
    world["share"].delete()
    listed = pages(dana).get(f"/scopes/{family.pk}/", {"view": "contradictions"}).content.decode()
    assert "Acme Shipping" not in listed and counted() == 0
