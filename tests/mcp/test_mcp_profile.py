"""The `profile` tool answers exactly what GET /api/v1/profile/ answers the same token."""

from __future__ import annotations

import datetime as dt

from rest_framework.test import APIClient

from cards.drafts import CardDraft
from cards.services import card_remember
from tests.mcp.conftest import run_client, structured

SAID = dt.datetime(2026, 11, 3, 9, 0, tzinfo=dt.timezone.utc)


def test_the_profile_tool_returns_what_rest_returns_stated_and_guessed_apart(mcp_world):
    family, dana = mcp_world["family"], mcp_world["dana"]
    for label, value, tag, confidence in [("brevity", "short answers", "preference", None),
                                          ("decision_style", "quick decisions when tired", "hypothesis", 0.6)]:
        card_remember(scope=family, actor=dana, draft=CardDraft(
            kind="state", label=label, subject="me", value=value, tag=tag, confidence=confidence,
            reference_time=SAID))

    async def work(client):
        return (await client.call_tool("profile", {"scope": "Silva family"}),
                await client.call_tool("profile", {"scope": mcp_world["elsewhere"].pk}))
    shown, elsewhere = run_client(mcp_world["url"], mcp_world["writer"], "auto", work)

    rest = APIClient()
    rest.credentials(HTTP_AUTHORIZATION=f"Bearer {mcp_world['writer']}")
    response = rest.get("/api/v1/profile/", {"scope": family.pk})
    assert response.status_code == 200
    assert structured(shown) == response.json()
    assert [(i["label"], i["tier"], "a guess" in i["guidance"]) for i in response.json()["items"]] == [
        ("brevity", "recorded", False), ("decision_style", "guessed", True)]
    assert elsewhere.is_error and elsewhere.structured_content["code"] == "not_found"
