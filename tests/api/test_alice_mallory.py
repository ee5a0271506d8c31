"""Visibility security (STYLE "Tests"): mallory tries every door to alice's
memory, to a sibling project, to a family she left; tokens stay inside their
grant. DESIGN §3: a read in S sees S, S's ancestors, the caller's personal
scope and global — each only if the caller may view it; never siblings or
children. A scope or card you may not see is a 404, like one that does not exist."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from cards.drafts import CardDraft
from cards.models import Card
from cards.services import card_remember, entity_create
from scopes.models import AgentToken
from scopes.services import global_scope_get, membership_set, scope_create
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db

MISSING = 9_000_000_000  # an id nothing has


def remember(scope, actor, value: str) -> Card:
    draft = CardDraft(kind="state", label="skill", subject="me", value=value)
    return card_remember(scope=scope, actor=actor, draft=draft).card


def session(user) -> APIClient:
    client = APIClient()
    client.force_login(user)
    return client


def ids(response) -> set[int]:
    assert response.status_code == 200, response.content
    return {row["id"] for row in response.json()["results"]}


def assert_hidden(response, *, like=None) -> None:
    assert response.status_code == 404, response.content
    assert response.json()["code"] == "not_found"
    if like is not None:  # no oracle: "you may not see it" reads exactly like "it does not exist"
        assert response.json() == like.json()


@pytest.fixture
def mallory(db):
    return UserFactory(username="mallory")


@pytest.fixture
def bob(db):
    return UserFactory(username="bob")


def test_mallory_never_sees_alice_personal_memory(alice, mallory, bearer):
    personal = alice.personal_scope
    card = remember(personal, alice, "Go")
    diary = entity_create(scope=personal, name="Secret Diary")
    for client in (session(mallory), bearer(mallory, all_scopes=True, write=True)):
        assert card.pk not in ids(client.get("/api/v1/cards/"))
        assert_hidden(client.get(f"/api/v1/cards/{card.pk}/"), like=client.get(f"/api/v1/cards/{MISSING}/"))
        assert_hidden(client.get(f"/api/v1/cards/{card.pk}/history/"))
        assert_hidden(client.get("/api/v1/cards/", {"scope": personal.pk}),
                      like=client.get("/api/v1/cards/", {"scope": MISSING}))
        assert_hidden(client.get(f"/api/v1/scopes/{personal.pk}/"), like=client.get(f"/api/v1/scopes/{MISSING}/"))
        assert_hidden(client.get(f"/api/v1/scopes/{personal.pk}/members/"))
        assert personal.pk not in ids(client.get("/api/v1/scopes/"))
        assert_hidden(client.get(f"/api/v1/entities/{diary.pk}/"))
        assert_hidden(client.post("/api/v1/entities/resolve/", {"scope": personal.pk, "name": "Secret Diary"},
                                  format="json"))
        # Resolving from her own scope neither binds nor offers alice's entity, even as a look-alike.
        resolved = client.post("/api/v1/entities/resolve/",
                               {"scope": mallory.personal_scope.pk, "name": "Secret Diary"}, format="json")
        assert resolved.status_code == 200
        assert resolved.json()["entity"] is None and resolved.json()["candidates"] == []
        # Writing into alice's scope is the same 404, not a 403 that would confirm it exists.
        write = client.post("/api/v1/cards/", {"scope": personal.pk, "kind": "state", "subject": "me",
                                               "label": "skill", "value": "x"}, format="json")
        assert_hidden(write)
    assert Card.objects.filter(scope=personal).count() == 1


@pytest.fixture
def two_projects(alice, mallory):
    """Team "Platform" with projects Search and Billing; mallory is a member of all three."""
    team = scope_create(name="Platform", kind="team", creator=alice)
    search = scope_create(name="Search", kind="project", creator=alice, parent=team)
    billing = scope_create(name="Billing", kind="project", creator=alice, parent=team)
    for scope in (team, search, billing):
        membership_set(scope=scope, user=mallory, role="member")
    cards = {name: remember(scope, alice, f"{name} skill")
             for name, scope in (("team", team), ("search", search), ("billing", billing))}
    cards["mine"] = remember(mallory.personal_scope, mallory, "Chess")
    return {"team": team, "search": search, "billing": billing}, cards


def test_read_in_a_project_sees_its_team_and_never_its_sibling(mallory, bearer, two_projects):
    scopes, cards = two_projects
    entity_create(scope=scopes["billing"], name="Ledger Service")
    for client in (session(mallory), bearer(mallory, all_scopes=True)):
        from_search = ids(client.get("/api/v1/cards/", {"scope": scopes["search"].pk}))
        assert from_search == {cards["search"].pk, cards["team"].pk, cards["mine"].pk}
        from_billing = ids(client.get("/api/v1/cards/", {"scope": scopes["billing"].pk}))
        assert from_billing == {cards["billing"].pk, cards["team"].pk, cards["mine"].pk}
        # Never children either: the team's read does not reach down into its projects.
        from_team = ids(client.get("/api/v1/cards/", {"scope": scopes["team"].pk}))
        assert from_team == {cards["team"].pk, cards["mine"].pk}
        resolved = client.post("/api/v1/entities/resolve/", {"scope": scopes["search"].pk, "name": "Ledger Service"},
                               format="json").json()
        assert resolved["entity"] is None and resolved["candidates"] == []
        # Without a scope, the list is simply everything she may view.
        assert ids(client.get("/api/v1/cards/")) == {card.pk for card in cards.values()}


def test_a_family_she_left_disappears_at_once_even_through_her_old_tokens(alice, mallory, bearer):
    family = scope_create(name="Home", kind="family", creator=alice)
    membership_set(scope=family, user=mallory, role="member")
    card = remember(family, alice, "Cooking")
    fridge = entity_create(scope=family, name="Fridge")
    clients = [session(mallory), bearer(mallory, scopes=[family], write=True), bearer(mallory, all_scopes=True)]
    for client in clients:
        assert client.get(f"/api/v1/cards/{card.pk}/").status_code == 200

    removed = session(alice).delete(f"/api/v1/scopes/{family.pk}/members/mallory/")
    assert removed.status_code == 204

    for client in clients:
        assert card.pk not in ids(client.get("/api/v1/cards/"))
        assert family.pk not in ids(client.get("/api/v1/scopes/"))
        assert_hidden(client.get(f"/api/v1/cards/{card.pk}/"), like=client.get(f"/api/v1/cards/{MISSING}/"))
        assert_hidden(client.get(f"/api/v1/cards/{card.pk}/history/"))
        assert_hidden(client.get("/api/v1/cards/", {"scope": family.pk}))
        assert_hidden(client.get(f"/api/v1/scopes/{family.pk}/"))
        assert_hidden(client.get(f"/api/v1/scopes/{family.pk}/members/"))
        assert_hidden(client.get(f"/api/v1/entities/{fridge.pk}/"))
        assert_hidden(client.post("/api/v1/entities/resolve/", {"scope": family.pk, "name": "Fridge"}, format="json"))
        assert_hidden(client.patch(f"/api/v1/cards/{card.pk}/", {"text": "mine now"}, format="json"))
        assert_hidden(client.post("/api/v1/cards/", {"scope": family.pk, "kind": "state", "subject": "me",
                                                     "label": "skill", "value": "x"}, format="json"))
    assert Card.objects.get(pk=card.pk).text == "" and Card.objects.filter(scope=family).count() == 1


def test_token_scoped_to_one_project_never_reads_another_project_of_the_same_user(alice, bearer, two_projects):
    scopes, cards = two_projects
    ledger = entity_create(scope=scopes["billing"], name="Ledger Service")
    agent = bearer(alice, scopes=[scopes["search"]])
    assert agent.get(f"/api/v1/cards/{cards['search'].pk}/").status_code == 200
    assert_hidden(agent.get(f"/api/v1/cards/{cards['billing'].pk}/"))
    assert_hidden(agent.get(f"/api/v1/cards/{cards['billing'].pk}/history/"))
    assert_hidden(agent.get("/api/v1/cards/", {"scope": scopes["billing"].pk}))
    assert_hidden(agent.get(f"/api/v1/scopes/{scopes['billing'].pk}/"))
    assert_hidden(agent.get(f"/api/v1/entities/{ledger.pk}/"))
    assert cards["billing"].pk not in ids(agent.get("/api/v1/cards/"))
    assert scopes["billing"].pk not in ids(agent.get("/api/v1/scopes/"))
    assert cards["billing"].pk not in ids(agent.get("/api/v1/cards/", {"scope": scopes["search"].pk}))


def test_read_only_token_cannot_write_anything(alice, bearer):
    card = remember(alice.personal_scope, alice, "Go")
    entity = entity_create(scope=alice.personal_scope, name="Bike")
    agent = bearer(alice, all_scopes=True, write=False)
    scope = alice.personal_scope.pk
    body = {"scope": scope, "kind": "state", "subject": "me", "label": "skill", "value": "Rust"}
    writes = [agent.post("/api/v1/cards/", body, format="json"),
              agent.post("/api/v1/cards/bulk/", {"cards": [body]}, format="json"),
              agent.patch(f"/api/v1/cards/{card.pk}/", {"text": "changed"}, format="json"),
              agent.post(f"/api/v1/cards/{card.pk}/verify/"),
              agent.delete(f"/api/v1/cards/{card.pk}/"),
              agent.post("/api/v1/entities/", {"scope": scope, "name": "Car"}, format="json"),
              agent.post(f"/api/v1/entities/{entity.pk}/aliases/", {"name": "Bicycle"}, format="json"),
              agent.post("/api/v1/scopes/", {"name": "Side project", "kind": "project"}, format="json")]
    for response in writes:
        assert response.status_code == 403, response.content
        assert response.json()["code"] == "permission_denied"
    fresh = Card.objects.get(pk=card.pk)
    assert Card.objects.count() == 1 and fresh.text == "" and fresh.verified_at == card.verified_at
    assert agent.get(f"/api/v1/cards/{card.pk}/").status_code == 200  # reading still works


def test_revoking_a_token_makes_the_next_request_401_token_revoked(alice, bearer):
    agent = bearer(alice, all_scopes=True, write=True)
    assert agent.get("/api/v1/cards/").status_code == 200
    token = AgentToken.objects.get(user=alice)
    assert session(alice).delete(f"/api/v1/tokens/{token.pk}/").status_code == 204
    for response in (agent.get("/api/v1/cards/"),
                     agent.post("/api/v1/cards/", {"scope": alice.personal_scope.pk, "kind": "state",
                                                   "subject": "me", "label": "skill", "value": "x"}, format="json")):
        assert response.status_code == 401, response.content
        assert response.json()["code"] == "token_revoked"
    assert Card.objects.count() == 0


def test_mallory_cannot_revoke_or_list_alice_tokens(alice, mallory, bearer):
    agent = bearer(alice, all_scopes=True)
    token = AgentToken.objects.get(user=alice)
    thief = session(mallory)
    assert token.pk not in ids(thief.get("/api/v1/tokens/"))
    assert_hidden(thief.delete(f"/api/v1/tokens/{token.pk}/"))
    assert agent.get("/api/v1/cards/").status_code == 200


def test_global_is_readable_by_every_person_and_writable_by_nobody(alice, mallory, bearer):
    common = remember(global_scope_get(), alice, "Water boils at 100 C")
    body = {"scope": common.scope_id, "kind": "state", "subject": "me", "label": "skill", "value": "x"}
    for client in (session(alice), session(mallory), bearer(mallory, all_scopes=True, write=True)):
        assert client.get(f"/api/v1/cards/{common.pk}/").status_code == 200
        assert common.pk in ids(client.get("/api/v1/cards/", {"scope": common.scope_id}))
        refused = client.post("/api/v1/cards/", body, format="json")
        assert refused.status_code == 403 and refused.json()["code"] == "permission_denied"
    assert Card.objects.count() == 1


def test_token_scoped_to_one_project_still_reads_global_common_sense(alice, bearer, two_projects):
    """Global is readable by every authenticated principal (DESIGN §3: "read-only for
    all"); a token's scope list narrows the user's own scopes, not common sense."""
    scopes, cards = two_projects
    common = remember(global_scope_get(), alice, "Water boils at 100 C")
    agent = bearer(alice, scopes=[scopes["search"]])
    assert agent.get(f"/api/v1/cards/{common.pk}/").status_code == 200
    assert common.pk in ids(agent.get("/api/v1/cards/", {"scope": scopes["search"].pk}))
