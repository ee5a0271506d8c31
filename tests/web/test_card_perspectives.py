"""Phrasings per member on the card page: members of a shared scope only, by someone who may write."""

import pytest

from cards.drafts import CardDraft
from cards.models import CardPerspective
from cards.services import card_remember

pytestmark = pytest.mark.django_db


def test_a_writer_sets_a_members_phrasing_and_that_member_reads_it(household, pages, alice):
    card = household["card"]
    page = pages(alice).get(f"/cards/{card.pk}/").content.decode()
    assert 'id="persp_username"' in page and "victor" in page
    answer = pages(household["bob"]).post(f"/cards/{card.pk}/perspective/", {"username": "victor",
                                                                            "text": "Alice lives in Kyoto"})
    assert answer.status_code == 302
    assert CardPerspective.objects.get(card=card, user=household["victor"]).text == "Alice lives in Kyoto"
    assert "Alice lives in Kyoto" in pages(alice).get(f"/cards/{card.pk}/").content.decode()


def test_a_stranger_is_not_a_choice_and_a_viewer_has_no_form(household, pages, alice):
    card = household["card"]
    refused = pages(alice).post(f"/cards/{card.pk}/perspective/", {"username": "mallory", "text": "x"}, follow=True)
    assert b"Pick a member of this scope" in refused.content
    assert not CardPerspective.objects.exists()
    assert b'id="persp_username"' not in pages(household["victor"]).get(f"/cards/{card.pk}/").content


def test_a_personal_card_has_no_perspectives_form(alice, pages):
    card = card_remember(scope=alice.personal_scope, actor=alice, draft=CardDraft(
        kind="state", label="hobby", subject="me", value="chess")).card
    assert b'id="persp_username"' not in pages(alice).get(f"/cards/{card.pk}/").content
    refused = pages(alice).post(f"/cards/{card.pk}/perspective/", {"username": "alice", "text": "x"}, follow=True)
    assert b"no other members" in refused.content and not CardPerspective.objects.exists()
