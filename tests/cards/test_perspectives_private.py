"""Perspectives are private (DESIGN §3): a member reads and sets only their own
phrasing of a card — in the API, on the card page, in the export and in the
admin alike. The reproduction: Sam phrases Dana's birthday "wife's birthday —
prepare a gift"; Dana must not read it anywhere, nor overwrite it."""

import io
import json
import zipfile

import pytest
from django.test import Client
from django.urls import reverse

from cards.drafts import CardDraft
from cards.models import CardPerspective
from cards.services import card_remember
from scopes.services import membership_set
from tests.factories import UserFactory, family_scope

pytestmark = pytest.mark.django_db

GIFT = "wife's birthday — prepare a gift"
CAKE = "mom's birthday — prepare a cake"


@pytest.fixture
def birthday():
    dana = UserFactory(username="dana", is_staff=True, is_superuser=True)  # as in the demo household
    sam, kai = UserFactory(username="sam"), UserFactory(username="kai")
    home = family_scope(owner=dana, name="Home")
    membership_set(scope=home, user=sam, role="member")
    membership_set(scope=home, user=kai, role="member")
    card = card_remember(scope=home, actor=sam, draft=CardDraft(
        kind="event", label="party", subject="dana", value="Dana's birthday", text="Dana's birthday Sunday",
        perspectives={"sam": GIFT, "kai": CAKE})).card
    return {"dana": dana, "sam": sam, "kai": kai, "home": home, "card": card}


def signed_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def phrasings(card) -> dict:
    return dict(CardPerspective.objects.filter(card=card).values_list("user__username", "text"))


def test_the_card_page_shows_each_member_only_their_own_phrasing(birthday):
    url = f"/cards/{birthday['card'].pk}/"
    dana = signed_in(birthday["dana"]).get(url).content.decode()
    assert "prepare a gift" not in dana and "prepare a cake" not in dana
    assert "Dana&#x27;s birthday Sunday" in dana
    sam = signed_in(birthday["sam"]).get(url).content.decode()
    assert "prepare a gift" in sam and "prepare a cake" not in sam


def test_the_scope_page_search_does_not_find_a_card_by_another_members_phrasing(birthday):
    page = signed_in(birthday["dana"]).get(f"/scopes/{birthday['home'].pk}/", {"view": "current", "q": "gift"})
    assert page.status_code == 200 and "Dana&#x27;s birthday" not in page.content.decode()
    found = signed_in(birthday["sam"]).get(f"/scopes/{birthday['home'].pk}/", {"view": "current", "q": "gift"})
    assert "prepare a gift" in found.content.decode()


def test_dana_cannot_overwrite_sams_phrasing_from_the_card_page(birthday):
    card = birthday["card"]
    answer = signed_in(birthday["dana"]).post(f"/cards/{card.pk}/perspective/",
                                              {"username": "sam", "text": "nothing special"})
    assert answer.status_code == 302
    # The form sets the signed-in member's own phrasing; there is no field naming anyone else.
    assert phrasings(card) == {"sam": GIFT, "kai": CAKE, "dana": "nothing special"}
    page = signed_in(birthday["dana"]).get(f"/cards/{card.pk}/").content.decode()
    assert 'name="username"' not in page and "nothing special" in page


def test_dana_cannot_overwrite_sams_phrasing_through_the_api(birthday, bearer):
    card = birthday["card"]
    agent = bearer(birthday["dana"], write=True)
    refused = agent.patch(f"/api/v1/cards/{card.pk}/", {"perspectives": {"sam": "nothing special"}}, format="json")
    assert refused.status_code == 403 and refused.json()["code"] == "not_your_perspective"
    mixed = agent.patch(f"/api/v1/cards/{card.pk}/", {"perspectives": {"dana": "mine", "kai": "x"}}, format="json")
    assert mixed.status_code == 403
    assert phrasings(card) == {"sam": GIFT, "kai": CAKE}  # nothing of either call was written
    own = agent.patch(f"/api/v1/cards/{card.pk}/", {"perspectives": {"dana": "my birthday"}}, format="json")
    assert own.status_code == 200 and own.json()["text"] == "my birthday"
    assert bearer(birthday["sam"]).get(f"/api/v1/cards/{card.pk}/").json()["text"] == GIFT


def test_only_the_writer_of_a_new_card_sets_others_phrasings_and_a_retry_is_not_refused(birthday, bearer):
    home, sam = birthday["home"], bearer(birthday["sam"], write=True)
    body = {"scope": home.pk, "kind": "event", "subject": "dana", "label": "party", "value": "Dana's party",
            "reference_time": "2026-05-08T10:00:00+00:00", "perspectives": {"kai": "keep it secret"}}
    first = sam.post("/api/v1/cards/", body, format="json")
    assert first.status_code == 201 and first.json()["outcome"] == "inserted"
    again = sam.post("/api/v1/cards/", body, format="json")
    assert again.status_code == 200 and again.json()["outcome"] == "duplicate"
    changed = sam.post("/api/v1/cards/", {**body, "perspectives": {"kai": "tell everyone"}}, format="json")
    assert changed.status_code == 403 and changed.json()["code"] == "not_your_perspective"
    assert phrasings(first.json()["card"]["id"]) == {"kai": "keep it secret"}


def test_the_export_of_dana_holds_only_her_own_phrasing(birthday, bearer):
    card, home = birthday["card"], birthday["home"]
    bearer(birthday["dana"], write=True).patch(f"/api/v1/cards/{card.pk}/",
                                               {"perspectives": {"dana": "my own birthday"}}, format="json")
    agent = bearer(birthday["dana"])
    document = agent.get(f"/api/v1/export/?scope={home.pk}&format=json")
    assert document.status_code == 200
    raw = document.content.decode()
    assert "prepare a gift" not in raw and "prepare a cake" not in raw
    exported = next(c for c in json.loads(raw)["cards"] if c["id"] == card.pk)
    assert exported["perspective"] == "my own birthday" and exported["text"] == "Dana's birthday Sunday"
    archive = agent.get(f"/api/v1/export/?scope={home.pk}&format=markdown")
    with zipfile.ZipFile(io.BytesIO(archive.content)) as files:
        text = "".join(files.read(name).decode() for name in files.namelist())
    assert "my own birthday" in text and "prepare a gift" not in text and "prepare a cake" not in text


def test_the_admin_does_not_reveal_another_members_phrasing(birthday):
    card = birthday["card"]
    url = reverse("admin:cards_card_change", args=[card.pk])
    dana = signed_in(birthday["dana"])  # a superuser, and the family's owner
    page = dana.get(url)
    assert page.status_code == 200
    assert "prepare a gift" not in page.content.decode() and "prepare a cake" not in page.content.decode()
    # Her own phrasing, set in the admin, is saved as hers; the others' stay as they were.
    form = {"tag": card.tag, "text": card.text, "confidence": "", "impact": str(card.impact),
            "perspectives-TOTAL_FORMS": "1", "perspectives-INITIAL_FORMS": "0", "perspectives-MIN_NUM_FORMS": "0",
            "perspectives-MAX_NUM_FORMS": "1", "perspectives-0-text": "my birthday", "perspectives-0-id": "",
            "perspectives-0-card": str(card.pk), "revisions-TOTAL_FORMS": "0", "revisions-INITIAL_FORMS": "0"}
    saved = dana.post(url, form)
    assert saved.status_code == 302, saved.content.decode()[-3000:]
    assert phrasings(card) == {"sam": GIFT, "kai": CAKE, "dana": "my birthday"}
    again = dana.get(url).content.decode()
    assert "my birthday" in again and "prepare a gift" not in again
