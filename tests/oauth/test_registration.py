"""Dynamic client registration (RFC 7591): anyone registers, only what OAuth
2.1 and this server allow, and a registration alone grants nothing."""

from __future__ import annotations

import json

import pytest
from oauth2_provider.models import Application

from scopes.connections import connection_grant
from scopes.models import AgentToken

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
    ({"grant_types": [{}]}, "grant_types"),
    ({"redirect_uris": ["https://[x/cb"]}, "not a URI"),
    ({"redirect_uris": ["https://a.example:99999/cb"]}, "not a URI"),
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


def _managed(client, body: dict, method: str, client_id: str, token: str, **changes):
    return getattr(client, method)(f"/oauth/register/{client_id}/", data=json.dumps({**body, **changes}),
                                   content_type="application/json", HTTP_AUTHORIZATION=f"Bearer {token}")


def test_a_connector_updates_itself_within_the_same_narrowing(client):
    body = register(client).json()
    client_id, token = body["client_id"], body["registration_access_token"]
    for changes in ({"redirect_uris": ["http://evil.example/cb"]}, {"grant_types": ["client_credentials"]},
                    {"client_name": "x\u0001"}):
        refused = _managed(client, GOOD, "put", client_id, token, **changes)
        assert refused.status_code == 400 and refused.json()["error"] == "invalid_client_metadata"
    assert Application.objects.get(client_id=client_id).redirect_uris == GOOD["redirect_uris"][0]
    renamed = _managed(client, GOOD, "put", client_id, token, client_name="Household Assistant 2")
    assert renamed.status_code == 200 and renamed.json()["client_name"] == "Household Assistant 2"


def test_a_connector_deleting_itself_revokes_every_connection_and_keeps_the_peoples_rows(client, alice):
    body = register(client).json()
    application = Application.objects.get(client_id=body["client_id"])
    connection = connection_grant(user=alice, application=application, scopes=[alice.personal_scope],
                                  access="propose")
    deleted = _managed(client, {}, "delete", body["client_id"], body["registration_access_token"])
    assert deleted.status_code == 204
    connection.refresh_from_db()
    assert connection.revoked_at is not None and AgentToken.objects.filter(pk=connection.pk).exists()
    application.refresh_from_db()
    assert application.redirect_uris == ""  # nothing can be authorized for it again
    again = _managed(client, {}, "delete", body["client_id"], body["registration_access_token"])
    assert again.status_code == 401
