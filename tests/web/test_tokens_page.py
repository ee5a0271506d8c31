"""The tokens page: create (the secret shown once, with a copy button), list, revoke."""

import re

import pytest

from scopes.models import AgentToken
from scopes.tokens import token_authenticate, token_create

pytestmark = pytest.mark.django_db


def test_create_shows_the_secret_once_and_it_authenticates(household, pages, alice):
    family = household["family"]
    page = pages(alice).post("/tokens/new/", {"name": "kitchen", "scopes": [family.pk], "access": "read+write",
                                              "days": "30"})
    assert page.status_code == 200
    secret = re.search(rb'id="token-secret" type="text" readonly value="([^"]+)"', page.content).group(1).decode()
    token = token_authenticate(secret)
    assert (token.name, token.can_write, list(token.scopes.all())) == ("kitchen", True, [family])
    assert b'data-copy="token-secret"' in page.content and b"js/copy.js" in page.content
    listing = pages(alice).get("/tokens/").content
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


def test_revoke_stops_the_token_and_another_persons_token_is_404(household, pages, alice):
    token, raw = token_create(user=alice, name="old", scopes=[household["family"]])
    assert pages(household["bob"]).post(f"/tokens/{token.pk}/revoke/").status_code == 404
    assert pages(alice).post(f"/tokens/{token.pk}/revoke/").status_code == 302
    token.refresh_from_db()
    assert token.revoked_at is not None
    assert b"revoked" in pages(alice).get("/tokens/").content
