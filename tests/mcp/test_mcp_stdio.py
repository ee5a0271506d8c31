"""`python manage.py mcp --token …`: the same tools over stdio, as a desktop agent starts it."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import anyio
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from cards.models import Card
from tests.database_url import database_url
from tests.mcp.conftest import MODES, structured
from tests.mcp.test_mcp_http import TOOLS

ROOT = Path(__file__).resolve().parents[2]


def _stdio(token: str) -> StdioServerParameters:
    # The server process reads the test database, as a desktop agent's would read the site's.
    env = {**os.environ, "DATABASE_URL": database_url(), "EMBED_ON_WRITE": "false"}
    return StdioServerParameters(command=sys.executable, args=[str(ROOT / "manage.py"), "mcp", "--token", token],
                                 env=env, cwd=str(ROOT))


@pytest.mark.parametrize("mode", MODES)
def test_a_desktop_agent_lists_remembers_recalls_and_asks_over_stdio(mcp_world, mode):
    async def main():
        async with Client(_stdio(mcp_world["writer"]), mode=mode) as client:
            listed = await client.list_tools()
            remembered = await client.call_tool("remember", {
                "scope": "personal", "kind": "state", "subject": "me", "label": "employer", "value": "Atlas Labs",
                "session": "desk-1"})
            recalled = await client.call_tool("recall", {"scope": "personal", "query": "where does dana work"})
            asked = await client.call_tool("ask", {"scope": "personal", "question": "Where do I work?"})
            refused = await client.call_tool("recall", {"scope": "Mallory's", "query": "anything"})
            return listed, remembered, recalled, asked, refused, client.instructions

    listed, remembered, recalled, asked, refused, instructions = anyio.run(main)
    assert {tool.name for tool in listed.tools} == TOOLS
    assert "Never store" in instructions
    card = Card.objects.get(pk=structured(remembered)["card"]["id"])
    assert (card.scope_id, card.value, card.source_session) == (mcp_world["dana"].personal_scope.pk, "Atlas Labs",
                                                                "desk-1")
    assert structured(recalled)["results"][0]["card"]["id"] == card.pk
    assert structured(asked)["values"] == ["Atlas Labs"]
    assert refused.is_error and refused.structured_content["code"] == "not_found"


@pytest.mark.django_db
def test_the_command_refuses_a_bad_token_before_serving():
    # No live server and no committed rows: the command refuses before it serves, so the
    # test needs only the test database, and skips the flush a committed-data test pays.
    parameters = _stdio("memsite_00000000_nope")
    run = subprocess.run([parameters.command, *parameters.args], env=parameters.env, cwd=parameters.cwd,
                         capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL)
    assert run.returncode != 0
    assert "invalid_token" in run.stderr and run.stdout == ""
