"""Provenance on the card pages (issue 20): who approved a card that came
through the review queue, and a scope's cards filtered by who wrote them — a
person, or one of their agents (a token, by its name and person)."""

import pytest
from django.utils import timezone

from cards.drafts import CardDraft
from cards.models import Card
from cards.services import card_remember
from core.dates import date_shown
from review.models import Candidate
from scopes.services import membership_set
from scopes.tokens import token_create
from scopes.zones import person_zone
from tests.factories import UserFactory, family_scope

pytestmark = pytest.mark.django_db


def _proposed(scope, author, **fields):
    defaults = {"kind": "state", "label": "city", "subject": "me", "value": "Kyoto", "quote": "we moved to Kyoto",
                "message_at": timezone.now(), "extractor": "patterns", "rule": "moved_to", "session": "s1",
                "message": "m1"}
    return Candidate.objects.create(scope=scope, author=author, **{**defaults, **fields})


@pytest.fixture
def lins(household, alice):
    """The family, a reviewer (rita, display name "Rita R."), and two agents that wrote there."""
    family = household["family"]
    rita = UserFactory(username="rita", display_name="Rita R.")
    membership_set(scope=family, user=rita, role="reviewer")
    kitchen, secret = token_create(user=alice, name="kitchen-bot", can_write=True, scopes=[family])
    garden, _ = token_create(user=household["bob"], name="garden-bot", can_write=True, scopes=[family])
    by_kitchen = card_remember(scope=family, actor=alice, draft=CardDraft(
        kind="state", label="skill", subject="me", value="Knitting", source_token=kitchen)).card
    by_garden = card_remember(scope=family, actor=household["bob"], draft=CardDraft(
        kind="state", label="skill", subject="me", value="Pruning", source_token=garden)).card
    by_bob = card_remember(scope=family, actor=household["bob"], draft=CardDraft(
        kind="state", label="employer", subject="me", value="Harbor Ltd")).card
    return {**household, "rita": rita, "kitchen": kitchen, "secret": secret, "garden": garden,
            "by_kitchen": by_kitchen, "by_garden": by_garden, "by_bob": by_bob}


def test_a_card_approved_in_the_queue_says_who_approved_it_and_when(lins, pages, alice):
    family, rita = lins["family"], lins["rita"]
    candidate = _proposed(family, alice)
    answer = pages(rita).post(f"/review/candidates/{candidate.pk}/approve/",
                              {"subject": "me", "label": "city", "value": "Kyoto"})
    assert answer.status_code == 302
    candidate.refresh_from_db()
    page = pages(alice).get(f"/cards/{candidate.card_id}/").content.decode()
    day = date_shown(candidate.decided_at, zone=person_zone(alice), language=alice.language, precision="day")
    assert f"approved by Rita R. on {day}." in page
    # The list says it briefly; a card written directly says nothing of an approval.
    listed = pages(alice).get(f"/scopes/{family.pk}/").content.decode()
    assert "approved by Rita R." in listed
    direct = pages(alice).get(f"/cards/{lins['by_bob'].pk}/").content.decode()
    assert "approved by" not in direct
    # Her person page says it as the card page does.
    about = pages(alice).get("/people/me/", follow=True).content.decode()
    assert f"approved by Rita R. on {day}." in about


def test_a_rejected_candidate_approves_nothing(lins, pages, alice):
    from review.services.candidates import candidate_reject

    candidate = _proposed(lins["family"], alice)
    candidate_reject(candidate=candidate, reviewer=lins["rita"], reason="not so")
    candidate.card = lins["by_bob"]  # even pointing at a card, a rejection is not an approval
    candidate.save(update_fields=["card"])
    assert "approved by" not in pages(alice).get(f"/cards/{lins['by_bob'].pk}/").content.decode()


def test_written_by_offers_the_people_and_agents_of_the_scope_and_never_a_secret(lins, pages, alice):
    page = pages(alice).get(f"/scopes/{lins['family'].pk}/").content.decode()
    assert '<label for="id_by">Written by</label>' in page
    assert f'value="agent-{lins["kitchen"].pk}">“kitchen-bot”, agent of Alice</option>' in page
    assert f'value="agent-{lins["garden"].pk}">“garden-bot”, agent of Bob</option>' in page
    assert f'value="person-{lins["bob"].pk}">Bob</option>' in page
    assert lins["secret"] not in page and lins["kitchen"].prefix not in page


def test_filtering_by_an_agent_or_a_person_lists_only_what_they_wrote(lins, pages, alice):
    url = f"/scopes/{lins['family'].pk}/"
    client = pages(alice)
    by_agent = client.get(url, {"by": f"agent-{lins['kitchen'].pk}"})
    assert by_agent.status_code == 200
    listed = by_agent.content.decode()
    assert "Knitting" in listed and "Pruning" not in listed and "Harbor Ltd" not in listed and ">Kyoto<" not in listed
    # bob himself: his own card, not the one his agent wrote.
    by_bob = client.get(url, {"by": f"person-{lins['bob'].pk}"}).content.decode()
    assert "Harbor Ltd" in by_bob and "Pruning" not in by_bob and "Knitting" not in by_bob
    # The filter is set: the phone's disclosure opens on it.
    assert '<details class="filter-box" open>' in listed


def test_an_unknown_writer_is_a_400_with_the_form_error(lins, pages, alice, household):
    url = f"/scopes/{lins['family'].pk}/"
    outsider = UserFactory(username="oscar")
    elsewhere = family_scope(owner=outsider, name="Elsewhere")
    theirs, _ = token_create(user=outsider, name="oscar-bot", can_write=True, scopes=[elsewhere])
    card_remember(scope=elsewhere, actor=outsider, draft=CardDraft(
        kind="state", label="skill", subject="me", value="Sailing", source_token=theirs))
    for bogus in (f"agent-{theirs.pk}", f"person-{outsider.pk}", "agent-x", "nobody"):
        page = pages(alice).get(url, {"by": bogus})
        assert page.status_code == 400, bogus
        assert b'id="id_by_error"' in page.content and b"Sailing" not in page.content
        assert b'<details class="filter-box" open>' in page.content
    assert b"oscar-bot" not in pages(alice).get(url).content


def test_an_unfiltered_scope_page_keeps_the_filter_folded(lins, pages, alice):
    page = pages(alice).get(f"/scopes/{lins['family'].pk}/")
    assert page.status_code == 200
    assert b'<details class="filter-box">' in page.content


def test_writers_are_those_of_the_scopes_the_viewer_sees(lins, pages, alice):
    """bob's personal scope is not the family's: his own private cards' agent is not offered to alice."""
    private, _ = token_create(user=lins["bob"], name="diary-bot", can_write=True, scopes=[lins["bob"].personal_scope])
    card_remember(scope=lins["bob"].personal_scope, actor=lins["bob"], draft=CardDraft(
        kind="state", label="skill", subject="me", value="Secret hobby", source_token=private))
    page = pages(alice).get(f"/scopes/{lins['family'].pk}/", {"ladder": "on"}).content.decode()
    assert "diary-bot" not in page and "Secret hobby" not in page
    assert "diary-bot" in pages(lins["bob"]).get(f"/scopes/{lins['family'].pk}/").content.decode()
    assert Card.objects.filter(source_token=private).count() == 1


def test_an_unknown_writer_through_htmx_says_so_in_the_swapped_list(lins, pages, alice):
    page = pages(alice).get(f"/scopes/{lins['family'].pk}/", {"by": "agent-0"},
                            headers={"HX-Request": "true", "HX-Target": "card-list"})
    assert page.status_code == 200  # htmx swaps only a 2xx; the plain page is the 400
    assert page.content.lstrip().startswith(b'<div id="card-list"')
    assert b'<p class="error" role="alert">Written by: Select a valid choice.' in page.content
    assert b"Knitting" not in page.content
