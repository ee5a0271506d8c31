"""Every tool acts as the token: a token limited to one scope reaches no other
through any tool, by id or by name; a read-only token writes through none."""

from __future__ import annotations

import pytest

from cards.drafts import CardDraft
from cards.models import Card
from cards.services import card_remember
from review.models import IngestJob
from tests.mcp.conftest import run_client

MESSAGES = [{"role": "user", "text": "We moved to Porto last week", "at": "2026-05-08T16:44:10+01:00"}]


def _scoped_calls(scope) -> list[tuple[str, dict]]:
    return [
        ("remember", {"scope": scope, "kind": "state", "subject": "me", "label": "address", "value": "Faro"}),
        ("remember_many", {"cards": [{"scope": scope, "kind": "state", "subject": "me", "label": "address",
                                      "value": "Faro"}]}),
        ("recall", {"scope": scope, "query": "where does dana live"}),
        ("context", {"scope": scope, "query": "moving house"}),
        ("profile", {"scope": scope}),
        ("ask", {"scope": scope, "question": "Where do I live?"}),
        ("count", {"scope": scope, "label": "trip"}),
        ("forget", {"scope": scope, "subject": "me", "label": "address"}),
        ("ingest", {"scope": scope, "session": "s-9", "messages": MESSAGES}),
        ("next_probe", {"scope": scope}),
    ]


def _card_calls(card_id: int) -> list[tuple[str, dict]]:
    return [("confirm", {"card": card_id, "quote": "yes"}), ("reject", {"card": card_id, "reason": "no"}),
            ("correct", {"card": card_id, "when": "yesterday"}), ("forget", {"card": card_id})]


@pytest.fixture
def guess_in_family(mcp_world, t0):
    """A hypothesis about dana in the family, and the family's address card."""
    family, dana = mcp_world["family"], mcp_world["dana"]
    card_remember(scope=family, actor=dana, draft=CardDraft(
        kind="state", label="address", subject="me", value="Lisbon", reference_time=t0))
    return card_remember(scope=family, actor=dana, draft=CardDraft(
        kind="state", label="diet", subject="me", value="vegetarian", tag="hypothesis", confidence=0.8,
        reference_time=t0)).card


def _call_all(url: str, token: str, calls: list[tuple[str, dict]]) -> list:
    async def work(client):
        return [(name, await client.call_tool(name, arguments)) for name, arguments in calls]
    return run_client(url, token, "auto", work)


def test_a_token_for_one_scope_reaches_no_other_through_any_tool(mcp_world, guess_in_family):
    family, elsewhere = mcp_world["family"], mcp_world["elsewhere"]
    before = (Card.objects.count(), IngestJob.objects.count())
    calls = [*_scoped_calls(family.pk), *_scoped_calls("Silva family"), *_scoped_calls(elsewhere.pk),
             *_scoped_calls("Mallory's"), *_card_calls(guess_in_family.pk)]
    results = _call_all(mcp_world["url"], mcp_world["personal_only"], calls)
    for (name, arguments), (_, result) in zip(calls, results):
        assert result.is_error, (name, arguments, result)
        assert result.structured_content["code"] == "not_found", (name, arguments, result.structured_content)
    assert (Card.objects.count(), IngestJob.objects.count()) == before
    assert Card.objects.get(pk=guess_in_family.pk).tag == "hypothesis"

    async def listed(client):
        return await client.call_tool("list_scopes", {})
    shown = run_client(mcp_world["url"], mcp_world["personal_only"], "legacy", listed)
    assert [s["kind"] for s in shown.structured_content["results"] if s["kind"] != "global"] == ["personal"]


def test_a_read_only_token_writes_through_no_tool(mcp_world, guess_in_family):
    family = mcp_world["family"]
    before = (Card.objects.count(), IngestJob.objects.count())
    writes = [call for call in _scoped_calls(family.pk) if call[0] in ("remember", "remember_many", "forget", "ingest")]
    writes += _card_calls(guess_in_family.pk)
    results = _call_all(mcp_world["url"], mcp_world["reader"], writes)
    for (name, arguments), (_, result) in zip(writes, results):
        assert result.is_error, (name, arguments, result)
        assert result.structured_content["status"] == 403, (name, result.structured_content)
    assert (Card.objects.count(), IngestJob.objects.count()) == before
    assert Card.objects.get(pk=guess_in_family.pk).tag == "hypothesis"

    reads = [call for call in _scoped_calls(family.pk) if call[0] in ("recall", "context", "profile", "ask", "count",
                                                                      "next_probe")]
    for (name, _), (_, result) in zip(reads, _call_all(mcp_world["url"], mcp_world["reader"], reads)):
        assert not result.is_error, (name, result.structured_content)
