"""Issue 48, "Secrets stay out", as an agent meets it over MCP: `remember` and
`remember_many` refuse a password, PIN or card number as a tool error carrying
`excluded` and rule `secret`, with words the agent can say to the person, and
store a near miss ("I forgot my password") as any other card."""

from __future__ import annotations

from cards.models import Card
from tests.mcp.conftest import run_client, structured


def test_remember_refuses_a_secret_and_keeps_a_near_miss(mcp_world):
    note = {"scope": "personal", "kind": "knowledge", "subject": "me", "label": "note"}

    async def work(client):
        refused = await client.call_tool("remember", {**note, "value": "The wifi password is hunter2"})
        chinese = await client.call_tool("remember", {**note, "value": "門禁密碼 4455#"})
        many = await client.call_tool("remember_many", {"cards": [
            {**note, "value": "Moved to Oslo"}, {**note, "value": "Card number 4111 1111 1111 1111"}]})
        kept = await client.call_tool("remember", {**note, "value": "I forgot my password"})
        return refused, chinese, many, kept

    refused, chinese, many, kept = run_client(mcp_world["url"], mcp_world["writer"], "2026-07-28", work)
    for refusal in (refused, chinese, many):
        assert refusal.is_error
        assert (refusal.structured_content["code"], refusal.structured_content["rule"]) == ("excluded", "secret")
        assert refusal.content[0].text.startswith("excluded: ")
        assert ("Never stored: a secret (a password, PIN, door or alarm code, card number or one-time code) — keep "
                "it in a password manager, not in memory (in `value`).") in refusal.content[0].text
    assert many.structured_content["index"] == 1
    said = " ".join(r.content[0].text for r in (refused, chinese, many))
    assert not any(secret in said for secret in ("hunter2", "4455", "4111"))
    assert not kept.is_error and structured(kept)["card"]["value"] == "I forgot my password"
    assert list(Card.objects.values_list("value", flat=True)) == ["I forgot my password"]
