"""The tokens page: create (then the connect page shows the secret once, with a
copy button and snippets), list, revoke after a confirmation."""

import re

import pytest

from scopes.models import AgentToken
from scopes.tokens import token_authenticate, token_create

pytestmark = pytest.mark.django_db


def test_create_redirects_to_the_connect_page_which_shows_the_secret_once(household, pages, alice):
    family = household["family"]
    client = pages(alice)
    created = client.post("/tokens/new/", {"name": "kitchen", "scopes": [family.pk], "access": "read+write",
                                           "days": "30"})
    token = AgentToken.objects.get(name="kitchen")
    assert (created.status_code, created["Location"]) == (302, f"/tokens/{token.pk}/connect/")
    page = client.get(created["Location"])
    secret = re.search(rb'id="token-secret" type="text" readonly value="([^"]+)"', page.content).group(1).decode()
    assert token_authenticate(secret).pk == token.pk
    assert (token.name, token.can_write, list(token.scopes.all())) == ("kitchen", True, [family])
    assert b'data-copy="token-secret"' in page.content and b"js/copy.js" in page.content
    again = client.get(created["Location"])  # a reload: the secret is gone, nothing new is made
    assert again.status_code == 200 and secret.encode() not in again.content
    assert b"&lt;your token&gt;" in again.content and AgentToken.objects.count() == 1
    listing = client.get("/tokens/").content
    assert b"kitchen" in listing and secret.encode() not in listing and b"never" in listing


def test_only_scopes_you_see_are_offered_and_accepted(household, pages, alice):
    family = household["family"]
    offered = pages(household["mallory"]).get("/tokens/").content
    assert family.name.encode() not in offered
    page = pages(household["mallory"]).post("/tokens/new/", {"name": "x", "scopes": [family.pk], "access": "read",
                                                             "days": "30"})
    assert page.status_code == 400 and b'id="id_scopes_error"' in page.content
    assert not AgentToken.objects.exists()


@pytest.mark.parametrize("days", ["0", "400"])
def test_a_token_always_expires_within_a_year(household, pages, alice, days):
    page = pages(alice).post("/tokens/new/", {"name": "x", "scopes": [household["family"].pk], "access": "read",
                                              "days": days})
    assert page.status_code == 400 and b'id="id_days_error"' in page.content


def test_revoke_asks_first_then_stops_the_token_and_another_persons_token_is_404(household, pages, alice):
    token, raw = token_create(user=alice, name="old", scopes=[household["family"]])
    assert pages(household["bob"]).post(f"/tokens/{token.pk}/revoke/").status_code == 404
    assert pages(household["bob"]).get(f"/tokens/{token.pk}/revoke/").status_code == 404
    asked = pages(alice).get(f"/tokens/{token.pk}/revoke/")
    assert asked.status_code == 200 and b"cannot be undone" in asked.content
    token.refresh_from_db()
    assert token.revoked_at is None
    assert pages(alice).post(f"/tokens/{token.pk}/revoke/").status_code == 302
    token.refresh_from_db()
    assert token.revoked_at is not None
    assert b"revoked" in pages(alice).get("/tokens/").content
