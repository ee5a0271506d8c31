"""Discovery documents a connector reads before anything else (RFC 9728, RFC 8414)."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("path", ["/.well-known/oauth-protected-resource",
                                  "/.well-known/oauth-protected-resource/mcp",
                                  "/.well-known/oauth-protected-resource/mcp/"])
def test_the_mcp_servers_metadata_names_this_authorization_server_at_every_path(client, path):
    document = client.get(path, HTTP_ACCEPT_LANGUAGE="zh-TW").json()
    assert document["resource"] == "http://testserver/mcp/"
    assert document["authorization_servers"] == ["http://testserver"]
    assert document["scopes_supported"] == ["propose", "read", "write"]
    assert document["bearer_methods_supported"] == ["header"]
    assert "OAuth" in document["description"] and "agent token" in document["description"]


def test_the_authorization_servers_metadata_offers_only_what_oauth_2_1_allows(client):
    document = client.get("/.well-known/oauth-authorization-server").json()
    assert document["issuer"] == "http://testserver"
    assert document["authorization_endpoint"] == "http://testserver/oauth/authorize/"
    assert document["token_endpoint"] == "http://testserver/oauth/token/"
    assert document["revocation_endpoint"] == "http://testserver/oauth/revoke/"
    assert document["registration_endpoint"] == "http://testserver/oauth/register/"
    assert document["code_challenge_methods_supported"] == ["S256"]
    assert document["response_types_supported"] == ["code"]
    assert set(document["grant_types_supported"]) == {"authorization_code", "refresh_token"}
    assert document["authorization_response_iss_parameter_supported"] is True
    assert "none" in document["token_endpoint_auth_methods_supported"]
