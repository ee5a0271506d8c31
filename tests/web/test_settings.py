"""The settings page: a person's time zone (an IANA name, never an offset) and
language; and the proposal of the browser's zone, shown on every page until a
zone is chosen (the browser half is in test_zone_browser.py)."""

import pytest

from scopes.models import User
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


def test_the_settings_page_saves_a_zone_and_a_language(alice, pages):
    client = pages(alice)
    page = client.get("/accounts/settings/")
    assert page.status_code == 200 and b'value="Asia/Taipei" selected' in page.content
    answer = client.post("/accounts/settings/", {"time_zone": "Europe/Lisbon", "language": "zh-hant"})
    assert answer.status_code == 302 and answer.url == "/accounts/settings/"
    alice.refresh_from_db()
    assert (alice.time_zone, alice.language, alice.time_zone_chosen) == ("Europe/Lisbon", "zh-hant", True)
    assert b"Europe/Lisbon" in client.get(answer.url).content


@pytest.mark.parametrize("zone", ["+08:00", "Mars/Olympus", ""])
def test_a_bad_zone_is_shown_at_its_field_and_nothing_changes(alice, pages, zone):
    before = alice.language
    page = pages(alice).post("/accounts/settings/", {"time_zone": zone, "language": "zh-hant"})
    assert page.status_code == 400 and b'id="id_time_zone_error"' in page.content
    assert User.objects.get(pk=alice.pk).language == before != "zh-hant"


def test_a_person_who_never_chose_a_zone_is_offered_the_browsers_on_every_page(pages):
    newcomer = UserFactory(username="newcomer")
    page = pages(newcomer).get("/").content
    assert b'id="zone-proposal"' in page and b"js/zone.js" in page
    assert b'data-current="UTC"' in page and b" hidden>" in page  # hidden until the script fills in the zone


def test_keeping_the_default_counts_as_a_choice_and_the_proposal_goes(pages):
    newcomer = UserFactory(username="newcomer")
    client = pages(newcomer)
    answer = client.post("/accounts/settings/", {"time_zone": "UTC", "next": "/tokens/"})
    assert answer.status_code == 302 and answer.url == "/tokens/"
    assert User.objects.get(pk=newcomer.pk).time_zone_chosen
    assert b'id="zone-proposal"' not in client.get("/").content


def test_the_proposal_never_sends_anyone_off_the_site(pages):
    client = pages(UserFactory(username="newcomer"))
    answer = client.post("/accounts/settings/", {"time_zone": "Europe/Lisbon", "next": "https://elsewhere.example/"})
    assert answer.status_code == 302 and answer.url == "/accounts/settings/"


def test_someone_with_a_zone_set_for_them_is_not_asked(alice, pages):
    # Their zone is not the default: someone set it (an admin, an import); nothing to propose.
    assert b'id="zone-proposal"' not in pages(alice).get("/").content


def test_the_settings_page_is_for_a_signed_in_person_only(client):
    for method in ("get", "post"):
        answer = getattr(client, method)("/accounts/settings/")
        assert answer.status_code == 302 and answer.url.startswith("/accounts/login/")
