"""The MCP server as an agent meets it: the SDK's own client, over real HTTP
against a live server (and over stdio in test_mcp_stdio.py).

Both protocol eras: "legacy" opens with an `initialize` handshake, "auto"
discovers the server (`server/discover`) and speaks the stateless 2026-07-28
protocol (no handshake; every request carries its version)."""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from typing import Any

import anyio
import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from scopes.services import membership_set
from scopes.tokens import token_create
from tests.builtin_rows import builtin_rows_restore
from tests.factories import UserFactory, family_scope

MODES = ["legacy", "auto"]


def run_client(url: str, token: str | None, mode: str, work: Callable[[Client], Awaitable[Any]]) -> Any:
    async def main() -> Any:
        headers = {"Authorization": f"Bearer {token}"} if token else {}
        async with httpx2.AsyncClient(headers=headers, timeout=60) as http:
            async with Client(streamable_http_client(url, http_client=http), mode=mode) as client:
                return await work(client)
    return anyio.run(main)


def structured(result) -> dict:
    """A tool result's JSON, read as a model reads it (the text) and checked
    against the structured content."""
    as_text = json.loads(result.content[0].text) if not result.is_error else None
    if as_text is not None:
        assert as_text == result.structured_content
    return result.structured_content


@pytest.fixture
def mcp_world(live_server, transactional_db):
    """dana owns the Silva family (sam a member); a read+write token for the
    family and her personal scope, a read-only one, and one for her personal
    scope only. mallory has a team of her own the tokens must never reach."""
    builtin_rows_restore()
    dana = UserFactory(username="dana", time_zone="Europe/Lisbon")
    sam = UserFactory(username="sam", time_zone="Europe/Lisbon")
    mallory = UserFactory(username="mallory")
    family = family_scope(owner=dana, name="Silva family")
    membership_set(scope=family, user=sam, role="member")
    elsewhere = family_scope(owner=mallory, name="Mallory's")
    _, writer = token_create(user=dana, name="desktop agent", can_write=True,
                             scopes=[family, dana.personal_scope], all_scopes=False, days=30)
    _, reader = token_create(user=dana, name="read-only agent", can_write=False,
                             scopes=[family, dana.personal_scope], all_scopes=False, days=30)
    _, personal_only = token_create(user=dana, name="diary agent", can_write=True,
                                    scopes=[dana.personal_scope], all_scopes=False, days=30)
    return {"url": live_server.url + "/mcp/", "base": live_server.url, "dana": dana, "family": family,
            "elsewhere": elsewhere, "writer": writer, "reader": reader, "personal_only": personal_only}
