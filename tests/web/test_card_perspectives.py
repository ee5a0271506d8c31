"""Phrasings on the card page: a member of a shared scope who may write sets
their own phrasing, and reads only their own (tests/cards/test_perspectives_private.py
holds the privacy side across the API, the export and the admin)."""

import pytest

from cards.drafts import CardDraft
from cards.models import CardPerspective
from cards.services import card_remember

pytestmark = pytest.mark.django_db


def test_a_member_sets_their_own_phrasing_and_only_they_read_it(household, pages, alice):
    card = household["card"]
    page = pages(household["bob"]).get(f"/cards/{card.pk}/").content.decode()
    assert 'id="persp_text"' in page and 'id="persp_username"' not in page
    answer = pages(household["bob"]).post(f"/cards/{card.pk}/perspective/", {"text": "Alice lives in Kyoto now"})
    assert answer.status_code == 302
    assert CardPerspective.objects.get(card=card, user=household["bob"]).text == "Alice lives in Kyoto now"
    assert "Alice lives in Kyoto now" in pages(household["bob"]).get(f"/cards/{card.pk}/").content.decode()
    assert "Alice lives in Kyoto now" not in pages(alice).get(f"/cards/{card.pk}/").content.decode()


def test_an_empty_phrasing_is_refused_and_a_viewer_has_no_form(household, pages, alice):
    card = household["card"]
    refused = pages(alice).post(f"/cards/{card.pk}/perspective/", {"text": ""}, follow=True)
    assert b"Give your phrasing" in refused.content
    assert not CardPerspective.objects.exists()
    assert b'id="persp_text"' not in pages(household["victor"]).get(f"/cards/{card.pk}/").content


def test_a_personal_card_has_no_perspectives_form(alice, pages):
    card = card_remember(scope=alice.personal_scope, actor=alice, draft=CardDraft(
        kind="state", label="hobby", subject="me", value="chess")).card
    assert b'id="persp_text"' not in pages(alice).get(f"/cards/{card.pk}/").content
    refused = pages(alice).post(f"/cards/{card.pk}/perspective/", {"text": "x"}, follow=True)
    assert b"no other members" in refused.content and not CardPerspective.objects.exists()
