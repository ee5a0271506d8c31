"""A 404 shows nothing of the site's insides, with DEBUG on too (`make run`)."""

import pytest

from cards.drafts import CardDraft
from cards.services import card_forget, card_remember

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("debug", [True, False])
def test_a_forgotten_cards_old_link_and_an_unknown_url_show_the_plain_page(pages, alice, settings, debug):
    settings.DEBUG = debug
    card = card_remember(scope=alice.personal_scope, actor=alice, draft=CardDraft(
        kind="state", label="address", subject="me", value="Kyoto")).card
    card_forget(card=card, actor=alice)
    client = pages(alice)
    for url in (f"/cards/{card.pk}/", "/no/such/page/", "/api/v1/no-such-endpoint/"):
        answer = client.get(url)
        assert answer.status_code == 404
        assert b"URLconf" not in answer.content and b"urlpatterns" not in answer.content
        assert b"admin/" not in answer.content and b"api/v1/" not in answer.content.replace(b"/api/v1/docs/", b"")
    assert b"Not found" in client.get("/no/such/page/").content
    assert client.get("/api/v1/no-such-endpoint/").json()["code"] == "not_found"
