"""The whole connection as a hosted assistant makes it, against a live server:
discover → register → authorize with PKCE → a person consents → token → MCP
`tools/list` and `recall` → refresh → revoke → 401."""

from __future__ import annotations

import httpx

from cards.models import Card
from scopes.models import AgentToken
from tests.mcp.conftest import run_client, structured
from tests.oauth.connector import Connector, signed_in


def _mcp_status(base: str, access_token: str) -> httpx.Response:
    return httpx.post(base + "/mcp/", json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"}, timeout=60,
                      headers={"Authorization": f"Bearer {access_token}", "Accept": "application/json",
                               "MCP-Protocol-Version": "2025-06-18"})


def test_a_connector_discovers_registers_is_granted_uses_refreshes_and_is_revoked(site):
    base = site["base"]
    # Discovery, as a connector does it: the MCP server's 401 names its metadata, which names the server.
    challenge = httpx.post(base + "/mcp/", json={}, timeout=60)
    assert challenge.status_code == 401
    resource_metadata = challenge.headers["WWW-Authenticate"].split('resource_metadata="')[1].split('"')[0]
    resource = httpx.get(resource_metadata, timeout=60).json()
    assert resource["resource"] == base + "/mcp/" and resource["authorization_servers"] == [base]
    server = httpx.get(base + "/.well-known/oauth-authorization-server", timeout=60).json()
    assert server["issuer"] == base and server["code_challenge_methods_supported"] == ["S256"]
    assert server["registration_endpoint"] == base + "/oauth/register/"
    assert set(server["grant_types_supported"]) == {"authorization_code", "refresh_token"}
    assert server["response_types_supported"] == ["code"]

    connector = Connector(base)
    registered = connector.register()
    assert registered.status_code == 201 and "client_secret" not in registered.json()

    dana = signed_in(base, "dana")
    granted = connector.connect(dana, access="read+write")
    assert granted["token_type"] == "Bearer" and granted["scope"] == "read write"
    assert 0 < granted["expires_in"] <= 3600
    connection = AgentToken.objects.get(user=site["dana"], application__client_id=connector.client_id)
    assert connection.access == "read+write" and not connection.all_scopes
    assert [s.pk for s in connection.scopes.all()] == [site["dana"].personal_scope.pk]  # personal by default

    async def work(client):
        listed = await client.list_tools()
        remembered = await client.call_tool("remember", {"scope": "personal", "kind": "state", "subject": "me",
                                                         "label": "address", "value": "Porto"})
        recalled = await client.call_tool("recall", {"scope": "personal", "query": "where does dana live"})
        return listed, remembered, recalled

    listed, remembered, recalled = run_client(connector.resource, granted["access_token"], "auto", work)
    assert {"recall", "remember", "ask"} <= {tool.name for tool in listed.tools}
    card = Card.objects.get(pk=structured(remembered)["card"]["id"])
    assert (card.value, card.source_actor_id) == ("Porto", site["dana"].pk)
    assert [r["card"]["id"] for r in structured(recalled)["results"]][:1] == [card.pk]
    connection.refresh_from_db()
    assert connection.last_used_at is not None  # the dashboard shows its last use

    # Refresh rotates: the new pair works, the old refresh token never again.
    refreshed = connector.refresh(granted["refresh_token"])
    assert refreshed.status_code == 200, refreshed.text
    fresh = refreshed.json()
    assert fresh["refresh_token"] != granted["refresh_token"] and fresh["scope"] == "read write"
    assert _mcp_status(base, fresh["access_token"]).status_code == 200
    replayed = connector.refresh(granted["refresh_token"])
    assert replayed.status_code == 400 and replayed.json()["error"] == "invalid_grant"

    # Revocation (RFC 7009): the access token stops at once.
    assert connector.revoke(fresh["access_token"]).status_code == 200
    refused = _mcp_status(base, fresh["access_token"])
    assert refused.status_code == 401
    assert 'error="invalid_token"' in refused.headers["WWW-Authenticate"]
    assert "resource_metadata=" in refused.headers["WWW-Authenticate"]
