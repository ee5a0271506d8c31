"""The MCP SDK's own OAuth client (what connectors are built on) connects with
nothing but the server's URL: it finds the authorization server through the
401, registers, sends the person to consent, and calls tools with the token."""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

import anyio
import httpx2
from mcp import Client
from mcp.client.auth import OAuthClientProvider
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.auth import AuthorizationCodeResult, OAuthClientMetadata

from scopes.models import AgentToken
from tests.mcp.conftest import structured
from tests.oauth.connector import form_inputs, signed_in


class MemoryStorage:
    def __init__(self) -> None:
        self.tokens, self.client_info = None, None

    async def get_tokens(self):
        return self.tokens

    async def set_tokens(self, tokens) -> None:
        self.tokens = tokens

    async def get_client_info(self):
        return self.client_info

    async def set_client_info(self, client_info) -> None:
        self.client_info = client_info


def test_the_sdks_oauth_client_connects_with_only_the_servers_url(site):
    base, dana = site["base"], signed_in(site["base"], "dana")
    redirected: dict[str, str] = {}

    async def consent(authorization_url: str) -> None:
        """The person, in their browser: the consent page, their choice, Allow."""
        page = dana.get(authorization_url)
        assert page.status_code == 200, page.text[:500]
        inputs = form_inputs(page.text)
        answer = dana.post("/oauth/authorize/", data={
            **inputs.hidden, "csrfmiddlewaretoken": dana.cookies["csrftoken"], "allow": "on",
            "scopes": [str(site["dana"].personal_scope.pk), str(site["family"].pk)], "access": "read+write"})
        assert answer.status_code == 302, answer.text[:500]
        redirected["location"] = answer.headers["Location"]

    async def callback() -> AuthorizationCodeResult:
        query = parse_qs(urlsplit(redirected["location"]).query)
        return AuthorizationCodeResult(code=query["code"][0], state=query["state"][0], iss=query["iss"][0])

    storage = MemoryStorage()
    provider = OAuthClientProvider(
        server_url=base + "/mcp/", storage=storage, redirect_handler=consent, callback_handler=callback,
        client_metadata=OAuthClientMetadata(client_name="SDK Assistant", redirect_uris=["http://127.0.0.1:9/cb"],
                                            grant_types=["authorization_code", "refresh_token"],
                                            response_types=["code"], token_endpoint_auth_method="none"))

    async def main():
        async with httpx2.AsyncClient(auth=provider, timeout=60) as http:
            async with Client(streamable_http_client(base + "/mcp/", http_client=http), mode="auto") as client:
                remembered = await client.call_tool("remember", {
                    "scope": "Silva family", "kind": "state", "subject": "me", "label": "address", "value": "Porto"})
                recalled = await client.call_tool("recall", {"scope": "Silva family", "query": "where do I live"})
                return remembered, recalled

    remembered, recalled = anyio.run(main)
    assert not remembered.is_error, remembered
    card_id = structured(remembered)["card"]["id"]
    assert [r["card"]["id"] for r in structured(recalled)["results"]][:1] == [card_id]
    connection = AgentToken.objects.get(user=site["dana"], application__name="SDK Assistant")
    assert connection.access == "read+write"
    assert storage.tokens.refresh_token and storage.client_info.client_id
