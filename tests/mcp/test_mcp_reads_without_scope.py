"""MCP reads that name no scope, or name one by a word (API.md "Reads without a scope"): the
tools take `scope` as optional and pass "personal", "family" and "team" to the API, which says
which scope each names."""

from __future__ import annotations

from tests.api.test_reads_without_scope import event, state
from tests.mcp.conftest import run_client, structured



def test_mcp_reads_name_no_scope_or_a_word(mcp_world):
    dana, family = mcp_world["dana"], mcp_world["family"]
    state(dana.personal_scope, dana, "address", "Rua Augusta 5, Lisbon")
    event(family, dana, "wedding", "Rita's wedding")

    async def work(client):
        return [await client.call_tool("ask", {"question": "Where do I live?"}),
                await client.call_tool("count", {"label": "wedding"}),
                await client.call_tool("count", {"label": "wedding", "scope": "personal"}),
                await client.call_tool("recall", {"query": "where do I live", "scope": "family"}),
                await client.call_tool("context", {"query": "where do I live"}),
                await client.call_tool("count", {"label": "wedding", "scope": "team"})]

    asked, counted, personal, in_family, context, no_team = run_client(mcp_world["url"], mcp_world["reader"],
                                                                       "auto", work)
    assert structured(asked)["values"] == ["Rua Augusta 5, Lisbon"]
    assert structured(counted)["undated"] == 1 and structured(personal)["undated"] == 0
    # The family's read sees dana's personal scope too (DESIGN §3): named or not, her address is there.
    assert any(r["card"]["value"] == "Rua Augusta 5, Lisbon" for r in structured(in_family)["results"])
    assert "Rua Augusta" in structured(context)["prompt"]
    assert no_team.is_error and structured(no_team)["code"] == "not_found"
