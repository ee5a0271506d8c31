"""The MCP server over streamable HTTP at /mcp/, with the SDK's own client,
in both protocol eras."""

from __future__ import annotations

import urllib.error
import urllib.request

import orjson
import pytest

from cards.models import Card
from tests.mcp.conftest import MODES, run_client, structured

TOOLS = {"remember", "remember_many", "recall", "context", "profile", "ask", "count", "forget", "ingest",
         "next_probe", "confirm", "reject", "correct", "list_scopes"}


@pytest.mark.parametrize("mode", MODES)
def test_an_agent_lists_the_tools_remembers_recalls_and_asks(mcp_world, mode):
    async def work(client):
        listed = await client.list_tools()
        prompts = await client.list_prompts()
        contract = await client.get_prompt("memory_contract", {})
        remembered = await client.call_tool("remember", {
            "scope": "Silva family", "kind": "state", "subject": "me", "label": "address", "value": "Porto",
            "text": "Lives in Porto", "session": "chat-7"})
        recalled = await client.call_tool("recall", {"scope": "silva family", "query": "where does dana live"})
        asked = await client.call_tool("ask", {"scope": mcp_world["family"].pk, "question": "Where do I live?"})
        return listed, prompts, contract, remembered, recalled, asked, client.instructions, client.protocol_version

    listed, prompts, contract, remembered, recalled, asked, instructions, version = run_client(
        mcp_world["url"], mcp_world["writer"], mode, work)
    # The SDK's legacy mode opens with its newest handshake version; a 2025-06-18 client: below.
    assert version == ("2025-11-25" if mode == "legacy" else "2026-07-28")
    assert {tool.name for tool in listed.tools} == TOOLS
    for tool in listed.tools:  # written for a model: when to call it, and an example
        assert len(tool.description) > 80, tool.name
        assert "scope" not in tool.input_schema["properties"] or "name" in str(tool.input_schema["properties"])
    assert "Never store" in instructions and "one question per reply" in instructions
    assert [p.name for p in prompts.prompts] == ["memory_contract"]
    assert "Never store" in contract.messages[0].content.text

    assert not remembered.is_error
    card_id = structured(remembered)["card"]["id"]
    card = Card.objects.get(pk=card_id)
    assert (card.scope_id, card.value, card.source_session) == (mcp_world["family"].pk, "Porto", "chat-7")
    assert card.source_actor_id == mcp_world["dana"].pk
    assert [r["card"]["id"] for r in structured(recalled)["results"]][:1] == [card_id]
    answer = structured(asked)
    assert answer["tier"] == "recorded" and answer["values"] == ["Porto"]


def test_a_refusal_is_a_tool_error_carrying_the_api_code(mcp_world):
    async def work(client):
        unknown = await client.call_tool("remember", {"scope": "personal", "kind": "state", "subject": "me",
                                                      "label": "adress", "value": "Porto"})
        missing = await client.call_tool("recall", {"scope": "No such scope", "query": "anything"})
        return unknown, missing

    unknown, missing = run_client(mcp_world["url"], mcp_world["writer"], "2026-07-28", work)
    assert unknown.is_error and unknown.structured_content["code"] == "unknown_label"
    assert "address" in str(unknown.structured_content["suggestions"])
    assert unknown.content[0].text.startswith("unknown_label: ")
    assert missing.is_error and missing.structured_content["code"] == "not_found"
    assert not Card.objects.filter(value="Porto").exists()


def test_a_client_without_a_token_is_told_where_to_get_one(mcp_world):
    request = urllib.request.Request(mcp_world["url"], method="POST", data=b"{}",
                                     headers={"Content-Type": "application/json",
                                              "Accept": "application/json, text/event-stream"})
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(request, timeout=30)
    assert refused.value.code == 401
    challenge = refused.value.headers["WWW-Authenticate"]
    metadata_url = mcp_world["base"] + "/.well-known/oauth-protected-resource"
    assert challenge == f'Bearer resource_metadata="{metadata_url}"'
    assert orjson.loads(refused.value.read())["code"] == "not_authenticated"
    with urllib.request.urlopen(metadata_url, timeout=30) as answer:
        metadata = orjson.loads(answer.read())
    assert metadata["resource"] == mcp_world["url"]
    assert metadata["bearer_methods_supported"] == ["header"]
    assert "Authorization: Bearer" in metadata["description"]


def test_a_revoked_or_wrong_token_gets_401_too(mcp_world):
    request = urllib.request.Request(mcp_world["url"], method="POST", data=b"{}",
                                     headers={"Authorization": "Bearer memsite_00000000_nope"})
    with pytest.raises(urllib.error.HTTPError) as refused:
        urllib.request.urlopen(request, timeout=30)
    assert refused.value.code == 401
    assert 'error="invalid_token"' in refused.value.headers["WWW-Authenticate"]


def _rpc(url: str, token: str, message: dict, version: str | None) -> tuple[int, dict]:
    headers = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream",
               "Authorization": f"Bearer {token}"}
    if version:
        headers["MCP-Protocol-Version"] = version
    request = urllib.request.Request(url, method="POST", data=orjson.dumps(message), headers=headers)
    with urllib.request.urlopen(request, timeout=60) as answer:
        return answer.status, orjson.loads(answer.read())


def test_a_client_speaking_2025_06_18_opens_with_initialize_and_calls_tools(mcp_world):
    """Byte for byte what a 2025-06-18 client sends: initialize, then requests
    carrying the negotiated version in the MCP-Protocol-Version header."""
    url, token = mcp_world["url"], mcp_world["writer"]
    status, opened = _rpc(url, token, {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {
        "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "old-agent", "version": "1"}}},
        None)
    assert status == 200 and opened["result"]["protocolVersion"] == "2025-06-18"
    assert "Never store" in opened["result"]["instructions"]
    _, listed = _rpc(url, token, {"jsonrpc": "2.0", "id": 2, "method": "tools/list"}, "2025-06-18")
    assert {tool["name"] for tool in listed["result"]["tools"]} == TOOLS
    _, called = _rpc(url, token, {"jsonrpc": "2.0", "id": 3, "method": "tools/call", "params": {
        "name": "remember", "arguments": {"scope": "personal", "kind": "event", "subject": "me", "label": "trip",
                                          "text": "Trip to Porto", "when": "2026-05-02", "session": "s-1"}}},
        "2025-06-18")
    assert called["result"].get("isError") is not True, called
    card = Card.objects.get(pk=called["result"]["structuredContent"]["card"]["id"])
    assert (card.scope_id, card.source_session) == (mcp_world["dana"].personal_scope.pk, "s-1")


def test_only_post_is_served_there_is_no_stream_to_open(mcp_world):
    for method in ("GET", "DELETE"):
        request = urllib.request.Request(mcp_world["url"], method=method,
                                         headers={"Authorization": f"Bearer {mcp_world['writer']}",
                                                  "Accept": "text/event-stream"})
        with pytest.raises(urllib.error.HTTPError) as refused:
            urllib.request.urlopen(request, timeout=30)
        assert (refused.value.code, refused.value.headers["Allow"]) == (405, "POST")
