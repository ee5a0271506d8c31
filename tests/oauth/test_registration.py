"""Dynamic client registration (RFC 7591): anyone registers, only what OAuth
2.1 and this server allow, and a registration alone grants nothing."""

from __future__ import annotations

import json

import pytest
from oauth2_provider.models import Application

pytestmark = pytest.mark.django_db
GOOD = {"client_name": "Household Assistant", "redirect_uris": ["https://assistant.example/callback"],
        "grant_types": ["authorization_code", "refresh_token"], "response_types": ["code"],
        "token_endpoint_auth_method": "none"}


def register(client, **changes):
    body = {**GOOD, **changes}
    return client.post("/oauth/register/", data=json.dumps(body), content_type="application/json")


def test_a_connector_registers_itself_without_signing_in(client):
    answer = register(client)
    assert answer.status_code == 201
    body = answer.json()
    assert body["client_name"] == "Household Assistant" and body["redirect_uris"] == GOOD["redirect_uris"]
    assert body["token_endpoint_auth_method"] == "none" and "client_secret" not in body
    application = Application.objects.get(client_id=body["client_id"])
    assert (application.client_type, application.authorization_grant_type) == ("public", "authorization-code")


def test_a_confidential_client_gets_a_secret_once(client):
    body = register(client, token_endpoint_auth_method="client_secret_post").json()
    assert body["client_secret"] and not Application.objects.filter(client_secret=body["client_secret"]).exists()


def test_loopback_http_is_allowed_for_desktop_clients(client):
    for uri in ("http://127.0.0.1:33418/callback", "http://localhost:8080/cb", "http://[::1]:9/cb"):
        assert register(client, redirect_uris=[uri]).status_code == 201, uri


@pytest.mark.parametrize("changes, says", [
    ({"redirect_uris": ["http://assistant.example/callback"]}, "https"),
    ({"redirect_uris": ["https://assistant.example/cb#frag"]}, "fragment"),
    ({"redirect_uris": ["javascript:alert(1)"]}, "https"),
    ({"redirect_uris": []}, "redirect_uris"),
    ({"redirect_uris": "https://assistant.example/cb"}, "redirect_uris"),
    ({"grant_types": ["client_credentials"]}, "grant_types"),
    ({"grant_types": ["password", "refresh_token"]}, "grant_types"),
    ({"grant_types": ["implicit"]}, "grant_types"),
    ({"response_types": ["token"]}, "response_types"),
    ({"client_name": "x" * 256}, "client_name"),
    ({"client_name": "evil\nname"}, "client_name"),
    ({"token_endpoint_auth_method": "private_key_jwt"}, "token_endpoint_auth_method"),
])
def test_what_oauth_2_1_forbids_is_refused_with_invalid_client_metadata(client, changes, says):
    answer = register(client, **changes)
    assert answer.status_code == 400
    assert answer.json()["error"] == "invalid_client_metadata" and says in answer.json()["error_description"]
    assert not Application.objects.exists()


@pytest.mark.parametrize("body", [b"not json", b"[1, 2]", b"null"])
def test_a_body_that_is_not_a_json_object_is_a_400(client, body):
    answer = client.post("/oauth/register/", data=body, content_type="application/json")
    assert answer.status_code == 400 and answer.json()["error"] == "invalid_client_metadata"
