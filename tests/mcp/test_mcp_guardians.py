"""A guardian's agent reads the minor's memory through MCP as the API reads it
(DESIGN §3): recall and ask in the child's personal scope; a fellow member's
agent reads none of it, and the guardian's agent writes nothing there."""

from __future__ import annotations

from cards.drafts import CardDraft
from cards.models import Card
from cards.services import card_remember
from cards.services.embedding import cards_embed_now
from scopes.guardians import member_minor_set
from scopes.models import Membership
from scopes.principals import Principal
from scopes.services import membership_set
from scopes.tokens import token_create
from tests.factories import UserFactory
from tests.mcp.conftest import run_client, structured


def test_a_guardians_agent_reads_the_childs_memory_and_a_fellow_members_does_not(mcp_world):
    dana, family = mcp_world["dana"], mcp_world["family"]
    kai, leo = UserFactory(username="kai"), UserFactory(username="leo")
    membership_set(scope=family, user=kai, role="member")
    membership_set(scope=family, user=leo, role="member")
    member_minor_set(principal=Principal(dana), scope=family, minor=True,
                     membership=Membership.objects.in_scopes([family.pk]).get(user=kai))
    card = card_remember(scope=kai.personal_scope, actor=kai, draft=CardDraft(
        kind="state", label="skill", subject="me", value="Chess club")).card
    cards_embed_now(card_ids=[card.pk])
    _, guardian = token_create(user=dana, name="family agent", can_write=True, all_scopes=True, days=30)
    _, fellow = token_create(user=leo, name="leo's agent", can_write=True, all_scopes=True, days=30)
    child = kai.personal_scope.pk

    async def work(client):
        return [await client.call_tool("recall", {"scope": child, "query": "chess"}),
                await client.call_tool("ask", {"scope": child, "question": "What does Kai play?"}),
                await client.call_tool("remember", {"scope": child, "kind": "state", "subject": "me",
                                                    "label": "skill", "value": "Go"})]

    recalled, asked, written = run_client(mcp_world["url"], guardian, "auto", work)
    assert card.pk in {r["card"]["id"] for r in structured(recalled)["results"]}
    assert not asked.is_error
    assert written.is_error and written.structured_content["code"] == "permission_denied"
    for result in run_client(mcp_world["url"], fellow, "auto", work):
        assert result.is_error and result.structured_content["code"] == "not_found", result.structured_content
    assert list(Card.objects.filter(scope=kai.personal_scope).values_list("value", flat=True)) == ["Chess club"]
