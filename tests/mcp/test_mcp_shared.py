"""An agent reads through MCP what a member shares with the family, as the API reads it
(tests/api/test_shared_reads.py): Sam's shared employer, never his address; gone once unshared."""

from __future__ import annotations

from scopes.models import Share, User
from tests.api.test_shared_reads import state
from tests.mcp.conftest import run_client, structured


def test_an_agent_asks_about_what_a_member_shares(mcp_world):
    sam = User.objects.get(username="sam")
    state(sam.personal_scope, sam, "employer", "Acme Shipping")
    state(sam.personal_scope, sam, "address", "9 Hill Street")
    share = Share.objects.create(scope=mcp_world["family"], owner=sam, label_key="employer")

    async def work(client):
        return [await client.call_tool("ask", {"question": "Where does Sam work?"}),
                await client.call_tool("ask", {"question": "Where does Sam live?", "scope": "family"}),
                await client.call_tool("recall", {"query": "where does Sam work"})]

    works, lives, recalled = run_client(mcp_world["url"], mcp_world["reader"], "auto", work)
    assert structured(works)["values"] == ["Acme Shipping"]
    assert structured(lives)["tier"] == "no_evidence"
    assert "Acme Shipping" in [r["card"]["value"] for r in structured(recalled)["results"]]
    share.delete()
    (after,) = run_client(mcp_world["url"], mcp_world["reader"], "auto",
                          lambda client: _gather(client.call_tool("ask", {"question": "Where does Sam work?"})))
    assert structured(after)["tier"] == "no_evidence"


async def _gather(*calls):
    return [await call for call in calls]
