"""One binder: a merged name and an aliased name bind the same entity in the
card list's `subject` filter, /answer/, /count/, /entities/resolve/ and recall."""

import pytest

from cards.drafts import CardDraft
from cards.models import Entity
from cards.services import alias_add, card_remember, entity_create
from cards.services.embedding import cards_embed_now
from cards.services.entities import entity_merge
from scopes.services import membership_set
from tests.factories import UserFactory, family_scope

pytestmark = pytest.mark.django_db


@pytest.fixture
def world(alice):
    family = family_scope(owner=alice)
    bob = UserFactory(username="bob")
    membership_set(scope=family, user=bob, role="member")
    robert = entity_create(scope=family, name="Robert Smith", kind="person")
    bobby = entity_create(scope=family, name="Bobby", kind="person")
    chess = card_remember(scope=family, actor=alice, draft=CardDraft(
        kind="state", subject=bobby, label="skill", value="chess", text="Bobby plays chess")).card
    go = card_remember(scope=family, actor=alice, draft=CardDraft(
        kind="state", subject=robert, label="skill", value="go", text="Robert Smith plays go")).card
    # Someone unrelated the look-alike search could drift to: never bound.
    knitting = card_remember(scope=family, actor=alice, draft=CardDraft(
        kind="state", subject="Roberta", label="skill", value="knitting", text="Roberta knits")).card
    entity_merge(duplicate=bobby, into=robert)
    alias_add(entity=robert, name="Rob", scope=family)
    cards_embed_now(card_ids=[chess.pk, go.pk, knitting.pk])
    return {"family": family, "robert": robert, "cards": {chess.pk, go.pk}}


@pytest.mark.parametrize("name", ["Bobby", "Rob", "robert smith"])
def test_a_merged_and_an_aliased_name_bind_the_same_entity_everywhere(world, alice, bearer, name):
    agent, family, expected = bearer(alice), world["family"].pk, world["cards"]

    listed = agent.get("/api/v1/cards/", {"scope": family, "subject": name})
    assert listed.status_code == 200, listed.json()
    assert {c["id"] for c in listed.json()["results"]} == expected

    answered = agent.post("/api/v1/answer/", {"scope": family, "subject": name, "label": "skill"},
                          format="json").json()
    assert answered["tier"] == "recorded"
    assert set(answered["values"]) == {"chess", "go"}
    assert world["robert"].pk in {e["id"] for e in answered["subject"]["entities"]}

    counted = agent.post("/api/v1/count/", {"scope": family, "subject": name, "label": "skill"},
                         format="json").json()
    assert set(counted["cards"]) == expected

    resolved = agent.post("/api/v1/entities/resolve/", {"scope": family, "name": name}, format="json").json()
    assert resolved["entity"]["id"] == world["robert"].pk and not resolved["ambiguous"]

    recalled = agent.post("/api/v1/recall/", {"scope": family, "query": "what games do they play", "subject": name},
                          format="json")
    assert recalled.status_code == 200, recalled.json()
    assert {r["card"]["id"] for r in recalled.json()["results"]} == expected


def test_an_unknown_name_binds_nothing_anywhere(world, alice, bearer):
    agent, family = bearer(alice), world["family"].pk
    assert agent.get("/api/v1/cards/", {"scope": family, "subject": "Bob Smithers"}).json()["results"] == []
    assert agent.post("/api/v1/answer/", {"scope": family, "subject": "Bob Smithers", "label": "skill"},
                      format="json").json()["tier"] == "no_evidence"
    assert agent.post("/api/v1/entities/resolve/", {"scope": family, "name": "Bob Smithers"},
                      format="json").json()["entity"] is None
    recalled = agent.post("/api/v1/recall/", {"scope": family, "query": "games", "subject": "Bob Smithers"},
                          format="json").json()
    assert recalled["results"] == []


def test_an_ambiguous_name_is_refused_by_filters_and_reported_by_answers(world, alice, bearer):
    family = world["family"]
    other = entity_create(scope=alice.personal_scope, name="Rob", kind="person")
    agent = bearer(alice)
    listed = agent.get("/api/v1/cards/", {"scope": family.pk, "subject": "Rob"})
    assert listed.status_code == 400
    assert listed.json()["code"] == "ambiguous_entity"
    assert {c["id"] for c in listed.json()["candidates"]} >= {world["robert"].pk, other.pk}
    answered = agent.post("/api/v1/answer/", {"scope": family.pk, "subject": "Rob", "label": "skill"},
                          format="json").json()
    # Answered over both, each named: Robert's skills, and nothing of the other Rob's (issue 48) — never
    # `no_evidence` for the whole because one of them has none.
    assert answered["subject"]["binding"] == "ambiguous" and answered["tier"] == "recorded"
    assert set(answered["values"]) == {"chess", "go"}
    assert {part["entities"][0]["id"]: (part["tier"], set(part["values"])) for part in answered["by_subject"]} == {
        world["robert"].pk: ("recorded", {"chess", "go"}), other.pk: ("no_evidence", set())}
    resolved = agent.post("/api/v1/entities/resolve/", {"scope": family.pk, "name": "Rob"}, format="json").json()
    assert resolved["ambiguous"] and resolved["entity"] is None
    assert Entity.objects.filter(name="Rob").count() == 1  # nothing was created on the way
