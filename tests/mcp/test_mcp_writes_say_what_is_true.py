"""Through MCP, as an agent calls it: "I live in Oslo", then "I moved to Bergen last month" — Bergen is
current and the answer says so, naming Oslo as closed; a value placed in the past says so with what to do
(tests/cards/test_later_statement_wins.py holds the rule on every path)."""

from __future__ import annotations

from tests.mcp.conftest import run_client, structured


def test_a_later_move_with_its_start_wins_and_the_answer_says_what_is_true(mcp_world):
    def remember(value, reference_time, **more):
        return {"scope": "personal", "kind": "state", "subject": "me", "label": "address", "value": value,
                "reference_time": reference_time, **more}

    async def work(client):
        return [await client.call_tool("remember", remember("Oslo", "2026-06-01T10:00:00+02:00")),
                await client.call_tool("remember", remember("Bergen", "2026-06-20T10:00:00+02:00",
                                                            when="last month")),
                await client.call_tool("ask", {"question": "Where do I live?"}),
                await client.call_tool("remember", remember("Tromsø", "2026-06-25T10:00:00+02:00",
                                                            when="2026-06-22")),
                await client.call_tool("remember", remember("Lisbon", "2026-06-26T10:00:00+02:00",
                                                            when="2026-04-01"))]

    oslo, bergen, asked, tromso, lisbon = (structured(r) for r in run_client(
        mcp_world["url"], mcp_world["personal_only"], "auto", work))
    assert oslo["current"] is True and oslo["subject_resolved"]["kind"] == "person"
    assert (bergen["outcome"], bergen["current"], bergen["now"]["value"]) == ("superseded", True, "Bergen")
    assert [c["value"] for c in bergen["closed"]] == ["Oslo"]
    assert asked["values"] == ["Bergen"]
    assert tromso["current"] is True and [c["value"] for c in tromso["closed"]] == ["Bergen"]
    # April is before Bergen's stated start: Lisbon goes into the past, and the agent is told so.
    assert lisbon["current"] is False and lisbon["now"]["value"] == "Tromsø"
    assert "recorded as past" in lisbon["note"] and "without `when`" in lisbon["note"]
