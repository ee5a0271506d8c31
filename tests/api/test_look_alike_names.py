"""Names are what they look like (issue 16): "Pаris" (Cyrillic а), "Pa\u200bris",
"Paris\u200d" and "\u202eParis" each became a separate entity, and eight
"Paris" addresses were current at once. Now each of the four is refused or
binds to the one Paris — never a new entity — on every way in."""

import json

import pytest
from django.core.management import CommandError, call_command

from cards.models import Alias, Card, Entity, Label

pytestmark = pytest.mark.django_db

CYRILLIC = "P\u0430ris"  # а is U+0430
INVISIBLE = {"zero-width space": "Pa\u200bris", "zero-width joiner": "Paris\u200d", "right-to-left override":
             "\u202eParis"}


@pytest.fixture
def agent(alice, bearer):
    return bearer(alice, write=True, all_scopes=True)


@pytest.fixture
def paris(alice, scope, agent):
    answer = agent.post("/api/v1/cards/", {"scope": scope.pk, "kind": "state", "subject": "Paris",
                                          "label": "address", "value": "France"}, format="json")
    assert answer.status_code == 201, answer.content
    return Entity.objects.get(scope=scope, name="Paris")


def address_of(scope, name: str) -> dict:
    return {"scope": scope.pk, "kind": "state", "subject": name, "label": "address", "value": "Somewhere"}


def refused(answer, code: str) -> dict:
    assert answer.status_code == 400, answer.content
    body = answer.json()
    assert body["code"] == code and body["detail"], body
    return body


@pytest.mark.parametrize("what", sorted(INVISIBLE))
def test_invisible_and_bidi_characters_in_a_subject_are_refused_and_make_no_entity(scope, agent, paris, what):
    entities = Entity.objects.count()
    body = refused(agent.post("/api/v1/cards/", address_of(scope, INVISIBLE[what]), format="json"), "invalid_text")
    assert list(body["fields"]) == ["subject"]
    assert Entity.objects.count() == entities
    assert Card.objects.filter(subject__name__contains="aris", label__key="address").count() == 1


def test_a_cyrillic_look_alike_is_refused_with_the_existing_name_as_did_you_mean(scope, agent, paris):
    entities = Entity.objects.count()
    body = refused(agent.post("/api/v1/cards/", address_of(scope, CYRILLIC), format="json"), "confusable_name")
    assert [c["name"] for c in body["candidates"]] == ["Paris"]
    assert body["candidates"][0]["id"] == paris.pk
    assert Entity.objects.count() == entities
    # The one current address of the one Paris.
    assert Card.objects.filter(label__key="address", superseded_at__isnull=True,
                               subject__name_norm="paris").count() == 1


def test_bulk_refuses_the_look_alikes_naming_the_card_and_stores_nothing(scope, agent, paris):
    cards, entities = Card.objects.count(), Entity.objects.count()
    for bad, code in ((INVISIBLE["zero-width space"], "invalid_text"), (CYRILLIC, "confusable_name")):
        body = refused(agent.post("/api/v1/cards/bulk/", {"cards": [address_of(scope, "Lyon"), address_of(scope, bad)]},
                                  format="json"), code)
        assert body["index"] == 1
    assert (Card.objects.count(), Entity.objects.count()) == (cards, entities)


def test_an_object_and_a_label_with_invisible_characters_are_refused_naming_each_field(scope, agent, paris):
    body = refused(agent.post("/api/v1/cards/", {
        "scope": scope.pk, "kind": "state", "subject": "me", "label": "addr\u200bess", "object": "Pa\u2066ris"},
        format="json"), "invalid_text")
    assert set(body["fields"]) == {"label", "object"}


def test_an_alias_in_the_look_alike_form_binds_to_the_entity(alice, scope, agent, paris):
    answer = agent.post(f"/api/v1/entities/{paris.pk}/aliases/", {"name": CYRILLIC}, format="json")
    assert answer.status_code == 201, answer.content
    written = agent.post("/api/v1/cards/", {"scope": scope.pk, "kind": "state", "subject": CYRILLIC,
                                           "label": "skill", "value": "Cheese"}, format="json")
    assert written.status_code == 201, written.content
    assert written.json()["card"]["subject_id"] == paris.pk
    resolved = agent.post("/api/v1/entities/resolve/", {"scope": scope.pk, "name": CYRILLIC}, format="json").json()
    assert resolved["entity"]["id"] == paris.pk


def test_an_alias_that_looks_like_another_entitys_name_is_refused(scope, agent, paris):
    lyon = agent.post("/api/v1/entities/", {"scope": scope.pk, "name": "Lyon"}, format="json").json()
    body = refused(agent.post(f"/api/v1/entities/{lyon['id']}/aliases/", {"name": CYRILLIC}, format="json"),
                   "confusable_name")
    assert [c["id"] for c in body["candidates"]] == [paris.pk]
    assert not Alias.objects.filter(name=CYRILLIC).exists()


def test_creating_entities_and_aliases_refuses_invisible_characters(scope, agent, paris):
    body = refused(agent.post("/api/v1/entities/", {"scope": scope.pk, "name": "Paris\u200d"}, format="json"),
                   "invalid_text")
    assert list(body["fields"]) == ["name"]
    refused(agent.post("/api/v1/entities/", {"scope": scope.pk, "name": CYRILLIC}, format="json"), "confusable_name")
    refused(agent.post(f"/api/v1/entities/{paris.pk}/aliases/", {"name": "Pa\u200bree"}, format="json"),
            "invalid_text")
    assert Entity.objects.filter(scope=scope).exclude(user__isnull=False).count() == 1


def test_resolving_a_look_alike_binds_nothing_and_offers_the_existing_name_first(scope, agent, paris):
    answer = agent.post("/api/v1/entities/resolve/", {"scope": scope.pk, "name": CYRILLIC}, format="json").json()
    assert answer["entity"] is None
    assert answer["candidates"][0]["entity"]["id"] == paris.pk and answer["candidates"][0]["score"] == 1.0
    listed = agent.get("/api/v1/cards/", {"scope": scope.pk, "subject": CYRILLIC}).json()
    assert listed["results"] == []


def test_the_same_name_again_in_a_scope_below_is_not_a_look_alike(alice, agent):
    from scopes.services import scope_create

    team = scope_create(name="Team", kind="team", creator=alice)
    project = scope_create(name="Trip", kind="project", creator=alice, parent=team)
    for where in (team, project):
        answer = agent.post("/api/v1/cards/", address_of(where, "Paris"), format="json")
        assert answer.status_code == 201, answer.content
    refused(agent.post("/api/v1/cards/", address_of(project, CYRILLIC), format="json"), "confusable_name")


def test_a_decomposed_name_is_the_composed_one(scope, agent):
    first = agent.post("/api/v1/cards/", address_of(scope, "Ren\u00e9e"), format="json").json()
    again = agent.post("/api/v1/cards/", {**address_of(scope, "Rene\u0301e"), "value": "Somewhere"},
                       format="json").json()
    assert again["outcome"] == "reinforced" and again["card"]["subject_id"] == first["card"]["subject_id"]
    assert Entity.objects.get(pk=first["card"]["subject_id"]).name == "Ren\u00e9e"


def test_the_dashboard_shows_the_refusal_next_to_the_subject_and_the_alias_form_refuses(alice, scope, paris, client):
    client.force_login(alice)
    page = client.post(f"/scopes/{scope.pk}/cards/new/", {"kind": "state", "subject": "Pa\u200bris",
                                                        "label": "address", "value": "x", "tag": "fact"})
    assert page.status_code == 400 and b'id="add_subject_error"' in page.content
    assert b"U+200B" in page.content
    page = client.post(f"/scopes/{scope.pk}/cards/new/", {"kind": "state", "subject": CYRILLIC,
                                                        "label": "address", "value": "x", "tag": "fact"})
    assert page.status_code == 400 and b'id="add_subject_error"' in page.content and b"looks like" in page.content
    page = client.post(f"/entities/{paris.pk}/aliases/", {"name": "\u202eParis"}, follow=True)
    assert b"invisible or direction-control characters: U+202E RIGHT-TO-LEFT OVERRIDE" in page.content
    assert not Alias.objects.exists()


def test_import_refuses_a_name_with_invisible_characters(alice, scope, tmp_path):
    document = {"format": "memory-site-export", "version": 1, "scopes": [], "entities": [
        {"id": 1, "scope": 1, "name": "me", "kind": "person", "me": True, "aliases": [], "merged_into": None},
        {"id": 2, "scope": 1, "name": "Pa\u200bris", "kind": "place", "aliases": [], "merged_into": None}],
        "cards": [{"id": 1, "scope": 1, "kind": "state", "tag": "fact", "subject": 2, "label": "address",
                   "cardinality": "single", "value": "France", "effective_at": "2025-01-01T00:00:00Z"}]}
    path = tmp_path / "export.json"
    path.write_text(json.dumps(document))
    with pytest.raises(CommandError, match="name holds invisible or direction-control characters: U[+]200B"):
        call_command("import_memory", str(path), user=alice.username, scope=scope.pk)
    assert not Entity.objects.filter(scope=scope, user__isnull=True).exists()


def test_a_label_synonym_with_a_zero_width_space_is_refused_by_the_admin_form(alice):
    from django.core.exceptions import ValidationError

    label = Label(key="favourite_city", kind="state", cardinality="single", decay_lambda=0.02,
                  description="A favourite city", synonyms=["favourite\u200bcity"])
    with pytest.raises(ValidationError) as refused_here:
        label.full_clean()
    assert "synonyms" in refused_here.value.message_dict
