"""The dashboard's pages, through the session client: what they show and what their forms do."""

import pytest

from cards.models import AuditEvent, Card, CardRevision

pytestmark = pytest.mark.django_db


def test_site_root_is_the_sign_in_page_for_strangers_and_home_for_people(client, alice, pages):
    assert client.get("/").status_code == 302
    assert client.get("/").url.startswith("/accounts/login/")
    page = pages(alice).get("/")
    assert page.status_code == 200
    assert b"Your memory" in page.content and alice.personal_scope.name.encode() in page.content


def test_scope_page_lists_current_cards_in_the_viewers_perspective(household, pages, alice):
    page = pages(alice).get(f"/scopes/{household['family'].pk}/")
    assert page.status_code == 200
    assert b"Kyoto" in page.content and b"Taipei" not in page.content
    history = pages(alice).get(f"/scopes/{household['family'].pk}/", {"view": "history"})
    assert b"Taipei" in history.content


def test_scope_filters_by_text_label_and_as_of(household, pages, alice):
    url = f"/scopes/{household['family'].pk}/"
    found = pages(alice).get(url, {"q": "tai", "view": "history"}).content
    assert b"Taipei" in found and b">Kyoto<" not in found
    as_of = pages(alice).get(url, {"view": "as_of", "as_of": "2026-06-01"}).content
    assert b"Taipei" in as_of and b">Kyoto<" not in as_of
    unknown = pages(alice).get(url, {"label": "home adress"})
    assert b"not a registered label" in unknown.content


def test_htmx_filter_swaps_only_the_list(household, pages, alice):
    page = pages(alice).get(f"/scopes/{household['family'].pk}/", {"view": "history"},
                            headers={"HX-Request": "true", "HX-Target": "card-list"})
    assert page.content.lstrip().startswith(b'<div id="card-list"') and b"<html" not in page.content


def test_adding_a_second_address_supersedes_the_first(household, pages):
    family = household["family"]
    client = pages(household["bob"])
    answer = client.post(f"/scopes/{family.pk}/cards/new/",
                         {"kind": "state", "subject": "me", "label": "address", "value": "Lisbon", "tag": "fact"})
    assert answer.status_code == 302
    answer = client.post(f"/scopes/{family.pk}/cards/new/",
                         {"kind": "state", "subject": "me", "label": "home address", "value": "Porto", "tag": "fact"})
    card = Card.objects.get(pk=answer.url.strip("/").split("/")[-1])
    assert card.value == "Porto" and card.superseded_at is None
    assert Card.objects.get(scope=family, value="Lisbon").superseded_by_id == card.pk
    page = client.get(answer.url)
    assert b"<svg" in page.content and b"tl-current" in page.content and b"Lisbon" in page.content


@pytest.mark.parametrize("fields, field, message", [
    ({"label": "adress", "value": "Kyoto"}, "label", b"Close registered labels: address"),
    ({"label": "skill", "value": "Rust", "kind": "event"}, "label", b"is a state label"),
    ({"label": "address", "value": "Kyoto", "when": "the day after never"}, "when", b"class=\"error\""),
])
def test_refusals_are_shown_next_to_their_field(household, pages, alice, fields, field, message):
    data = {"kind": "state", "subject": "me", "tag": "fact", **fields}
    page = pages(alice).post(f"/scopes/{household['family'].pk}/cards/new/", data)
    assert page.status_code == 400
    assert f'id="add_{field}_error"'.encode() in page.content
    assert message in page.content


def test_sensitive_label_needs_consent_shown_at_the_consent_box(household, pages, alice):
    from cards.models import Label

    label = Label.objects.filter(sensitive=True, kind="state").first()
    page = pages(alice).post(f"/scopes/{household['family'].pk}/cards/new/",
                             {"kind": "state", "subject": "me", "tag": "fact", "label": label.key, "value": "x"})
    assert page.status_code == 400 and b'id="add_consent_error"' in page.content
    assert not Card.objects.filter(label=label).exists()


def test_verify_correct_and_forget_go_through_the_services(household, pages, alice):
    card, client = household["card"], pages(alice)
    assert client.post(f"/cards/{card.pk}/verify/").status_code == 302
    client.post(f"/cards/{card.pk}/describe/", {"text": "Moved to Kyoto for work", "reason": "typo"})
    assert CardRevision.objects.filter(card=card, after="Moved to Kyoto for work").exists()
    confirm = client.get(f"/cards/{card.pk}/forget/")
    assert confirm.status_code == 200 and b"Forget it" in confirm.content
    assert Card.objects.filter(pk=card.pk).exists()
    assert client.post(f"/cards/{card.pk}/forget/").status_code == 302
    assert not Card.objects.filter(pk=card.pk).exists()
    assert AuditEvent.objects.filter(action="card.forgotten", object_id=card.pk).exists()


def test_verifying_a_superseded_card_says_why_not(household, pages, alice):
    client = pages(alice)
    answer = client.post(f"/cards/{household['old'].pk}/verify/", follow=True)
    assert b"Only a current card can be confirmed" in answer.content


def test_event_page_shows_its_corrections_and_their_reasons(alice, scope, pages, t0):
    from cards.drafts import CardDraft
    from cards.services import card_describe, card_remember

    event = card_remember(scope=scope, actor=alice, draft=CardDraft(
        kind="event", label="wedding", subject="me", text="Lee's wedding", reference_time=t0)).card
    card_describe(card=event, actor=alice, text="Lee and Kim's wedding", reason="names")
    page = pages(alice).get(f"/cards/{event.pk}/")
    assert b"Corrections" in page.content and b"Lee and Kim" in page.content and b"(names)" in page.content
    assert b"<svg" not in page.content


def test_create_a_scope_from_home(alice, pages):
    client = pages(alice)
    answer = client.post("/scopes/new/", {"name": "The Lees", "kind": "family"})
    assert answer.status_code == 302
    assert b"The Lees" in client.get("/").content


def test_the_homes_to_re_check_links_to_the_facts_behind_it(alice, scope, pages, t0):
    import datetime as dt

    from cards.drafts import CardDraft
    from cards.services import card_remember

    old = t0 - dt.timedelta(days=400)
    stale = card_remember(scope=scope, actor=alice, draft=CardDraft(
        kind="state", label="employer", subject="me", value="Harbor", reference_time=old)).card
    fresh = card_remember(scope=scope, actor=alice, draft=CardDraft(
        kind="state", label="skill", subject="me", value="Rust")).card
    client = pages(alice)
    home = client.get("/").content.decode()
    assert f'href="/scopes/{scope.pk}/?view=aging">1 to re-check</a>' in home
    listed = client.get(f"/scopes/{scope.pk}/?view=aging").content.decode()
    assert f"/cards/{stale.pk}/" in listed and f"/cards/{fresh.pk}/" not in listed


def test_a_first_sign_in_and_an_empty_scope_say_where_to_start(alice, pages):
    from tests.factories import family_scope

    client = pages(alice)
    home = client.get("/").content.decode()
    assert "Getting started" in home and 'href="/tokens/"' in home and "Create a family or a team" in home
    family = family_scope(owner=alice, name="The Lins")
    assert "Getting started" not in client.get("/").content.decode()
    empty = client.get(f"/scopes/{family.pk}/").content.decode()
    assert "Nothing is remembered here yet." in empty and f'href="/scopes/{family.pk}/members/"' in empty
    assert "No cards match these filters." in client.get(f"/scopes/{family.pk}/?kind=event").content.decode()
