"""Reads that name no scope, or name one by a word (API.md "Reads without a scope"):
without `scope`, recall, context, ask, answer and count read every scope the caller
reads, each card under its own scope's rule; "personal", "family" and "team" name
the caller's one scope of that kind (MCP: tests/mcp/test_mcp_reads_without_scope.py)."""

from __future__ import annotations

import pytest

from cards.drafts import CardDraft
from cards.services import card_remember
from cards.services.embedding import cards_embed_now
from scopes.models import ScopeKind
from scopes.services import membership_set, scope_create
from tests.factories import UserFactory, family_scope

pytestmark = pytest.mark.django_db


def state(scope, actor, label, value, subject="me"):
    card = card_remember(scope=scope, actor=actor, draft=CardDraft(kind="state", label=label, subject=subject,
                                                                   value=value)).card
    cards_embed_now(card_ids=[card.pk])
    return card


def event(scope, actor, label, value):
    return card_remember(scope=scope, actor=actor, draft=CardDraft(kind="event", label=label, subject="me",
                                                                   value=value)).card


@pytest.fixture
def lees(alice):
    """alice in the Lee family with bob; her address in her personal scope, the family's wedding in
    the family; bob's own address in his personal scope, which alice never reads."""
    bob = UserFactory(username="bob")
    family = family_scope(owner=alice, name="Lee family")
    membership_set(scope=family, user=bob, role="member")
    return {"family": family, "bob": bob,
            "address": state(alice.personal_scope, alice, "address", "12 Harbour Road"),
            "employer": state(family, alice, "employer", "Acme Shipping"),
            "bobs": state(bob.personal_scope, bob, "address", "9 Hill Street"),
            "wedding": event(family, alice, "wedding", "Ana's wedding"),
            "gym": event(alice.personal_scope, alice, "outing", "Beach day")}


def post(client, path, body, status=200):
    response = client.post(f"/api/v1/{path}/", body, format="json")
    assert response.status_code == status, response.json()
    return response.json()


def counted(client, body) -> int:
    """The events counted, undated ones included (the events here carry no day)."""
    found = post(client, "count", body)
    return found["count"] + found["undated"]


def test_recall_ask_answer_count_and_context_read_everything_the_caller_reads(alice, lees, bearer):
    agent = bearer(alice)
    found = {r["card"]["id"] for r in post(agent, "recall", {"query": "where do I live and work"})["results"]}
    assert {lees["address"].pk, lees["employer"].pk} <= found and lees["bobs"].pk not in found
    # Named, the personal scope alone does not see the family's card: the scope decides.
    named = {r["card"]["id"] for r in post(agent, "recall", {"scope": alice.personal_scope.pk,
                                                           "query": "where do I work"})["results"]}
    assert lees["employer"].pk not in named
    asked = post(agent, "ask", {"question": "Where do I work?"})
    assert asked["tier"] == "recorded" and asked["values"] == ["Acme Shipping"]
    answered = post(agent, "answer", {"subject": "me", "label": "address"})
    assert answered["tier"] == "recorded" and answered["values"] == ["12 Harbour Road"]
    assert counted(agent, {"label": "wedding"}) == 1
    assert counted(agent, {"label": "wedding", "scope": "personal"}) == 0
    context = agent.get("/api/v1/context/", {"query": "where do I live"})
    assert context.status_code == 200, context.json()
    assert lees["address"].pk in context.json()["cards"] and "9 Hill Street" not in context.json()["prompt"]


def test_a_word_names_the_callers_one_scope_of_its_kind(alice, lees, bearer):
    agent = bearer(alice)
    assert counted(agent, {"label": "wedding", "scope": "family"}) == 1
    assert counted(agent, {"label": "wedding", "scope": "FAMILY "}) == 1
    assert post(agent, "ask", {"scope": "personal", "question": "Where do I live?"})["values"] == ["12 Harbour Road"]
    assert agent.get("/api/v1/profile/", {"scope": "personal"}).status_code == 200
    # A write names its scope the same way.
    written = post(agent, "cards", {"scope": "family", "kind": "state", "subject": "me", "label": "phone",
                                    "value": "555-0100"}, status=403)  # a read-only token: the scope was found
    assert written["code"] == "permission_denied"
    writer = bearer(alice, write=True)
    made = post(writer, "cards", {"scope": "family", "kind": "state", "subject": "me", "label": "phone",
                                  "value": "555-0100"}, status=201)
    assert made["card"]["scope"] == lees["family"].pk


def test_a_word_naming_no_scope_or_several_is_refused_with_its_code(alice, lees, bearer):
    agent = bearer(alice)
    none = post(agent, "recall", {"scope": "team", "query": "anything"}, status=404)
    assert none["code"] == "not_found"
    first = scope_create(name="Platform", kind=ScopeKind.TEAM, creator=alice)
    assert counted(agent, {"scope": "team", "label": "wedding"}) == 0
    second = scope_create(name="Growth", kind=ScopeKind.TEAM, creator=alice)
    several = post(agent, "ask", {"scope": "team", "question": "Where do I work?"}, status=400)
    assert several["code"] == "ambiguous_scope"
    assert [c["id"] for c in several["candidates"]] == [first.pk, second.pk]
    for bad in ("household", "", True, 0, -3, "12a", "١٢", [1], {"id": 1}):
        refused = post(agent, "recall", {"scope": bad, "query": "anything"}, status=400)
        assert refused["code"] == "validation_error" and "scope" in refused["fields"], bad
    # alice's teams are hers: bob, in none, names none by the word.
    assert post(bearer(lees["bob"]), "count", {"scope": "team", "label": "wedding"}, status=404)["code"] == "not_found"


def test_a_token_narrowed_to_some_scopes_reads_only_those_without_a_scope(alice, lees, bearer):
    diary = bearer(alice, scopes=[alice.personal_scope])
    assert counted(diary, {"label": "wedding"}) == 0
    assert counted(diary, {"label": "outing"}) == 1
    assert post(diary, "count", {"label": "wedding", "scope": "family"}, status=404)["code"] == "not_found"
    found = {r["card"]["id"] for r in post(diary, "recall", {"query": "where do I work"})["results"]}
    assert lees["employer"].pk not in found

