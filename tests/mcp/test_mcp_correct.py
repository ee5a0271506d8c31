"""`correct` over MCP: an event said wrongly is corrected, never remembered twice,
exactly as the token would over REST (POST /cards/{id}/correct/)."""

from __future__ import annotations

import datetime as dt

from cards.models import Card, CardRevision
from tests.mcp.conftest import run_client, structured

SAID = "2026-05-08T16:44:10+01:00"  # a Friday, in Lisbon (dana's zone)
LISBON_SUMMER = dt.timezone(dt.timedelta(hours=1))


def test_an_agent_corrects_the_day_of_an_event_instead_of_remembering_a_second(mcp_world):
    async def work(client):
        remembered = await client.call_tool("remember", {
            "scope": "Silva family", "kind": "event", "subject": "Ana", "label": "wedding",
            "value": "Ana's wedding", "when": "2026-05-02", "reference_time": SAID, "session": "chat-9"})
        card = structured(remembered)["card"]["id"]
        corrected = await client.call_tool("correct", {
            "card": card, "when": "Sunday", "reference_time": SAID, "reason": "it was Sunday, not Saturday",
            "object": "Porto", "session": "chat-9"})
        again = await client.call_tool("correct", {"card": card, "when": "2026-05-03"})
        counted = await client.call_tool("count", {"scope": "Silva family", "label": "wedding"})
        state = await client.call_tool("remember", {"scope": "personal", "kind": "state", "subject": "me",
                                                    "label": "address", "value": "Porto"})
        refused = await client.call_tool("correct", {"card": structured(state)["card"]["id"], "text": "Faro"})
        return card, corrected, again, counted, refused

    card, corrected, again, counted, refused = run_client(mcp_world["url"], mcp_world["writer"], "auto", work)
    assert not corrected.is_error, corrected.structured_content
    body = structured(corrected)
    assert body["id"] == card and body["corrected"] == ["when", "object"] and body["object"] == "Porto"
    stored = Card.objects.get(pk=card)
    assert stored.occurred_at == dt.datetime(2026, 5, 3, tzinfo=LISBON_SUMMER) and stored.precision == "day"
    assert structured(again)["corrected"] == []
    assert structured(counted)["count"] == 1
    assert sorted(CardRevision.objects.filter(card_id=card).values_list("field", flat=True)) == ["object", "when"]
    assert refused.is_error and refused.structured_content["code"] == "not_an_event"


def test_a_read_only_token_corrects_nothing(mcp_world):
    async def write(client):
        remembered = await client.call_tool("remember", {
            "scope": "Silva family", "kind": "event", "subject": "Ana", "label": "wedding",
            "value": "Ana's wedding", "when": "2026-05-02", "reference_time": SAID})
        return structured(remembered)["card"]["id"]
    card = run_client(mcp_world["url"], mcp_world["writer"], "auto", write)

    async def correct(client):
        return await client.call_tool("correct", {"card": card, "when": "2026-05-03"})
    refused = run_client(mcp_world["url"], mcp_world["reader"], "legacy", correct)
    assert refused.is_error and refused.structured_content["status"] == 403
    assert Card.objects.get(pk=card).occurred_at == dt.datetime(2026, 5, 2, tzinfo=LISBON_SUMMER)
    assert not CardRevision.objects.filter(card_id=card).exists()
