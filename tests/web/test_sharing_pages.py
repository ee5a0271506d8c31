"""Sharing by the person's choice on the dashboard: the settings page's "Sharing" section
(English and Chinese), a card's "Share with <family>", and the one question after joining
a family, nothing ticked that the person did not choose."""

import pytest

from cards.drafts import CardDraft
from cards.services import card_remember
from scopes.invites import invitation_create
from scopes.models import Share
from scopes.principals import Principal
from scopes.services import scope_create
from scopes.sharing import sharing_of, sharing_set

pytestmark = pytest.mark.django_db

CHINESE = {"HTTP_ACCEPT_LANGUAGE": "zh-Hant"}
ENGLISH = {"HTTP_ACCEPT_LANGUAGE": "en"}


def _own_card(user, t0, label="employer", value="Acme"):
    return card_remember(scope=user.personal_scope, actor=user, draft=CardDraft(
        kind="state", label=label, subject="me", value=value, reference_time=t0)).card


def _shared(user, scope) -> list[str]:
    return next(row["labels"] for row in sharing_of(principal=Principal(user)) if row["scope"] == scope.pk)


def test_the_settings_section_offers_own_labels_and_ticks_only_what_is_shared(household, pages, t0):
    bob, family = household["bob"], household["family"]
    _own_card(bob, t0)
    _own_card(bob, t0, label="address", value="Tainan")
    sharing_set(principal=Principal(bob), scope=family, labels=["birthday"])
    page = pages(bob).get("/accounts/settings/", **ENGLISH).content.decode()
    assert 'id="sharing"' in page and "What The Lins (family) may read" in page
    assert f'action="/accounts/sharing/{family.pk}/"' in page
    for key in ("employer", "address", "birthday"):
        assert f'id="share-{family.pk}-{key}"' in page
    assert f'value="birthday" id="share-{family.pk}-birthday" checked' in page
    assert f'value="employer" id="share-{family.pk}-employer">' in page  # not ticked until chosen
    assert f'value="address" id="share-{family.pk}-address">' in page


def test_saving_the_section_replaces_the_set_and_says_so(household, pages, t0):
    bob, family = household["bob"], household["family"]
    _own_card(bob, t0)
    client = pages(bob)
    answer = client.post(f"/accounts/sharing/{family.pk}/", {"labels": ["employer"], "next": "/accounts/settings/"},
                         **ENGLISH)
    assert answer.status_code == 302 and answer.url == "/accounts/settings/"
    assert _shared(bob, family) == ["employer"]
    assert "The Lins now reads your employer." in client.get(answer.url, **ENGLISH).content.decode()
    client.post(f"/accounts/sharing/{family.pk}/", {}, **ENGLISH)
    assert _shared(bob, family) == []
    assert "Nothing of yours is shared with The Lins." in client.get("/accounts/settings/", **ENGLISH).content.decode()


def test_an_unknown_label_is_said_and_nothing_changes(household, pages):
    bob, family = household["bob"], household["family"]
    client = pages(bob)
    client.post(f"/accounts/sharing/{family.pk}/", {"labels": ["adress"]}, **ENGLISH)
    assert _shared(bob, family) == []
    assert "is not a registered label" in client.get("/accounts/settings/", **ENGLISH).content.decode()


def test_a_scope_one_is_not_in_is_404_and_a_personal_one_is_refused(household, pages, alice):
    mallory, family = household["mallory"], household["family"]
    assert pages(mallory).post(f"/accounts/sharing/{family.pk}/", {"labels": ["employer"]}).status_code == 404
    client = pages(alice)
    client.post(f"/accounts/sharing/{alice.personal_scope.pk}/", {"labels": ["employer"]}, **ENGLISH)
    assert not Share.objects.in_scopes([alice.personal_scope.pk]).exists()
    assert "you belong to; this scope is" in client.get("/accounts/settings/", **ENGLISH).content.decode()


def test_someone_in_no_family_is_told_there_is_no_one_to_share_with(household, pages):
    page = pages(household["mallory"]).get("/accounts/settings/", **ENGLISH).content.decode()
    assert "You belong to no family or team yet" in page


def test_the_section_speaks_chinese(household, pages, t0):
    bob, family = household["bob"], household["family"]
    _own_card(bob, t0, label="address", value="Tainan")
    page = pages(bob).get("/accounts/settings/", **CHINESE).content.decode()
    assert '<html lang="zh-hant"' in page
    assert "分享" in page and "The Lins" in page and "Sharing" not in page
    assert "What The Lins" not in page and "may read" not in page


def test_a_card_of_ones_own_offers_share_and_stop(household, pages, t0):
    bob, family = household["bob"], household["family"]
    card = _own_card(bob, t0)
    client = pages(bob)
    page = client.get(f"/cards/{card.pk}/", **ENGLISH).content.decode()
    assert f'action="/cards/{card.pk}/share/{family.pk}/"' in page and "Share with The Lins" in page
    answer = client.post(f"/cards/{card.pk}/share/{family.pk}/")
    assert answer.status_code == 302 and _shared(bob, family) == ["employer"]
    page = client.get(f"/cards/{card.pk}/", **ENGLISH).content.decode()
    assert "The Lins reads your employer." in page and "Stop sharing with The Lins" in page
    client.post(f"/cards/{card.pk}/share/{family.pk}/", {"shared": "0"})
    assert _shared(bob, family) == []


def test_no_share_button_on_a_card_that_is_not_ones_own_about_oneself(household, pages, alice, t0):
    family = household["family"]
    family_card = household["card"]  # in the family, not a personal card
    client = pages(alice)
    assert "Share with" not in client.get(f"/cards/{family_card.pk}/", **ENGLISH).content.decode()
    assert client.post(f"/cards/{family_card.pk}/share/{family.pk}/").status_code == 404
    about_someone = card_remember(scope=alice.personal_scope, actor=alice, draft=CardDraft(
        kind="state", label="employer", subject="Kai", value="School", reference_time=t0)).card
    assert "Share with" not in client.get(f"/cards/{about_someone.pk}/", **ENGLISH).content.decode()
    assert client.post(f"/cards/{about_someone.pk}/share/{family.pk}/").status_code == 404
    bobs = _own_card(household["bob"], t0)
    assert client.post(f"/cards/{bobs.pk}/share/{family.pk}/").status_code == 404  # not hers to see
    assert not Share.objects.in_scopes([family.pk]).exists()


def test_sharing_a_card_with_a_scope_one_is_not_in_or_no_family_changes_nothing(household, pages, alice, t0):
    card = _own_card(household["bob"], t0)
    client = pages(household["bob"])
    assert client.post(f"/cards/{card.pk}/share/{alice.personal_scope.pk}/").status_code == 404
    assert client.post(f"/cards/{card.pk}/share/999999999/").status_code == 404
    project = scope_create(name="Garden", kind="project", creator=household["bob"])
    client.post(f"/cards/{card.pk}/share/{project.pk}/", **ENGLISH)
    assert not Share.objects.in_scopes([project.pk]).exists()
    assert "you belong to; this scope is" in client.get(f"/cards/{card.pk}/", **ENGLISH).content.decode()


def test_joining_asks_once_with_nothing_ticked(household, pages, alice, t0):
    mallory, family = household["mallory"], household["family"]
    _own_card(mallory, t0)
    _own_card(mallory, t0, label="address", value="Hualien")
    invitation = invitation_create(scope=family, username="mallory", role="member", invited_by=alice)
    client = pages(mallory)
    answer = client.post(f"/invitations/{invitation.pk}/accept/")
    assert answer.status_code == 302 and answer.url == f"/scopes/{family.pk}/joined/"
    page = client.get(answer.url, **ENGLISH).content.decode()
    assert "Share with The Lins?" in page and "You joined The Lins as member." in page
    assert " checked" not in page and f'value="employer" id="share-{family.pk}-employer">' in page
    assert f'href="/scopes/{family.pk}/">Not now' in page
    saved = client.post(f"/accounts/sharing/{family.pk}/", {"labels": ["address"], "next": f"/scopes/{family.pk}/"})
    assert saved.url == f"/scopes/{family.pk}/" and _shared(mallory, family) == ["address"]


def test_joining_with_nothing_to_share_goes_straight_to_the_scope(household, pages, alice):
    mallory, family = household["mallory"], household["family"]
    invitation = invitation_create(scope=family, username="mallory", role="member", invited_by=alice)
    answer = pages(mallory).post(f"/invitations/{invitation.pk}/accept/", follow=True)
    assert answer.redirect_chain[-1][0] == f"/scopes/{family.pk}/"
    assert b"You joined The Lins as member." in answer.content


def test_the_joined_page_of_a_scope_one_cannot_see_is_404(household, pages):
    assert pages(household["mallory"]).get(f"/scopes/{household['family'].pk}/joined/").status_code == 404
