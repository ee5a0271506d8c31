"""Through MCP as over REST (tests/api/test_fellow_members_bind.py, issue 48): an agent writing about
"Sam" in Dana's personal scope writes about Sam himself, asks it back, and a name two entities answer to
is answered over both, named; a stranger's username binds nobody."""

from __future__ import annotations

from cards.models import Card, Entity
from scopes.models import User
from tests.factories import UserFactory
from tests.mcp.conftest import run_client, structured


def test_an_agent_writes_and_asks_about_a_fellow_member_from_a_personal_scope(mcp_world):
    sam = User.objects.get(username="sam")
    UserFactory(username="zed")  # shares nothing with Dana

    async def work(client):
        remembered = await client.call_tool("remember", {
            "scope": "personal", "kind": "state", "subject": "Sam", "label": "allergy", "value": "peanuts",
            "consent": True})
        stranger = await client.call_tool("remember", {
            "scope": "personal", "kind": "state", "subject": "zed", "label": "skill", "value": "chess"})
        asked = await client.call_tool("ask", {"question": "What is Sam allergic to?", "scope": "personal"})
        anywhere = await client.call_tool("ask", {"question": "What is Sam allergic to?"})
        return remembered, stranger, asked, anywhere

    remembered, stranger, asked, anywhere = run_client(mcp_world["url"], mcp_world["writer"], "auto", work)
    assert not remembered.is_error, remembered.content[0].text
    card = Card.objects.get(pk=structured(remembered)["card"]["id"])
    assert (card.scope_id, card.subject_id) == (mcp_world["dana"].personal_scope.pk, sam.entity.pk)
    assert not Entity.objects.filter(scope=mcp_world["dana"].personal_scope, name_norm="sam").exists()
    zed_card = Card.objects.get(pk=structured(stranger)["card"]["id"])
    assert zed_card.subject.user_id is None
    for answered in (structured(asked), structured(anywhere)):
        assert (answered["tier"], answered["values"]) == ("recorded", ["peanuts"]), answered
        assert answered["understood"]["subject_entities"] == [sam.entity.pk]


def test_an_agent_is_answered_over_a_member_and_a_thing_of_one_name(mcp_world):
    dana, sam = mcp_world["dana"], User.objects.get(username="sam")
    # A thing "Sam" written before the member bound there, with a card of its own.
    thing = Entity.objects.create(scope=dana.personal_scope, name="Sam", kind="thing")
    from cards.drafts import CardDraft
    from cards.services import card_remember
    card_remember(scope=dana.personal_scope, actor=dana,
                  draft=CardDraft(kind="state", subject=thing, label="employer", value="Harbor"))

    async def work(client):
        written = await client.call_tool("remember", {
            "scope": "personal", "kind": "state", "subject": "Sam", "label": "allergy", "value": "peanuts",
            "consent": True})
        return written, await client.call_tool("ask", {"question": "Where does Sam work?", "scope": "personal"})

    written, asked = run_client(mcp_world["url"], mcp_world["writer"], "auto", work)
    # The member is who a write means (the thing stays for review to merge).
    assert Card.objects.get(pk=structured(written)["card"]["id"]).subject_id == sam.entity.pk
    answered = structured(asked)
    assert (answered["tier"], answered["values"]) == ("recorded", ["Harbor"]), answered
    assert "Sam (member)" in answered["answer"] and "Sam (thing)" in answered["answer"]
    assert set(answered["understood"]["subject_entities"]) == {sam.entity.pk, thing.pk}
