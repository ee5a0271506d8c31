"""A member's name binds to their person entity in every scope a fellow member writes in, their
personal scope included (DESIGN §3 "People are entities", issue 48): Dana's "Sam" in her own diary is
Sam, never a second "Sam". A stranger's name binds nobody. A name several entities answer to is refused
on a write (two members) and answered over each of them, named, on a read — never `no_evidence` because
the first of them has nothing."""

import pytest

from cards.drafts import CardDraft
from cards.models import Card, Entity
from cards.services import card_remember
from cards.services.entities import entity_for_write_resolved
from scopes.services import membership_set
from tests.api.test_members_are_entities import silva_household
from tests.factories import UserFactory, family_scope

pytestmark = pytest.mark.django_db


@pytest.fixture
def household(db):
    world = silva_household()
    # Zed shares no scope with any of them: a stranger, whose username is never theirs to bind.
    zed = UserFactory(username="zed", display_name="Zed")
    family_scope(owner=zed, name="Zed's")
    return {**world, "zed": zed}


def write(agent, scope, subject, label="allergy", value="peanuts", status=(200, 201)):
    response = agent.post("/api/v1/cards/", {"scope": scope.pk, "kind": "state", "subject": subject, "label": label,
                                             "value": value, "consent": True}, format="json")
    assert response.status_code in status, response.json()
    return response


def card_of(response) -> Card:
    return Card.objects.get(pk=response.json()["card"]["id"])


def ask(agent, question, scope=None):
    body = {"question": question, **({"scope": scope.pk} if scope is not None else {})}
    response = agent.post("/api/v1/ask/", body, format="json")
    assert response.status_code == 200, response.json()
    return response.json()


def test_sam_in_danas_personal_scope_is_sams_own_entity(household, bearer):
    dana, sam = household["dana"], household["sam"]
    personal = dana.personal_scope
    before = Entity.objects.count()
    card = card_of(write(bearer(dana, write=True), personal, "Sam"))
    assert (card.scope_id, card.subject_id) == (personal.pk, sam.entity.pk)
    # By username and by any case, the same person; and no entity was made for any of it.
    assert card_of(write(bearer(dana, write=True), personal, "sam", label="employer",
                         value="Harbor")).subject_id == sam.entity.pk
    assert Entity.objects.count() == before
    assert not Entity.objects.filter(scope=personal, name_norm="sam").exists()


def test_a_relation_word_and_a_members_alias_bind_from_a_personal_scope(household, bearer, as_user):
    dana, sam, kai, family = household["dana"], household["sam"], household["kai"], household["family"]
    card = card_of(write(bearer(kai, write=True), kai.personal_scope, "Mom", label="job_title", value="nurse"))
    assert card.subject_id == dana.entity.pk
    added = as_user(sam).post(f"/api/v1/entities/{sam.entity.pk}/aliases/", {"name": "Sammy", "scope": family.pk},
                              format="json")
    assert added.status_code == 201, added.json()
    card = card_of(write(bearer(dana, write=True), dana.personal_scope, "Sammy", label="skill", value="cooking"))
    assert card.subject_id == sam.entity.pk


def test_a_strangers_username_binds_nobody(household, bearer):
    dana, zed = household["dana"], household["zed"]
    card = card_of(write(bearer(dana, write=True), dana.personal_scope, "zed", label="skill", value="chess"))
    assert card.subject_id != zed.entity.pk
    assert (card.subject.scope_id, card.subject.user_id) == (dana.personal_scope.pk, None)
    resolved = bearer(dana).post("/api/v1/entities/resolve/", {"scope": dana.personal_scope.pk, "name": "Zed"},
                                 format="json").json()
    assert zed.entity.pk not in {c["entity"]["id"] for c in resolved["candidates"]}
    assert (resolved["entity"] or {}).get("id") != zed.entity.pk


@pytest.mark.parametrize("scope", ["personal", None])
def test_dana_asking_what_sam_is_allergic_to_is_answered(household, bearer, scope):
    dana, sam = household["dana"], household["sam"]
    write(bearer(dana, write=True), dana.personal_scope, "Sam")
    asked_in = dana.personal_scope if scope else None
    answered = ask(bearer(dana), "What is Sam allergic to?", asked_in)
    assert (answered["tier"], answered["values"]) == ("recorded", ["peanuts"]), answered
    assert answered["understood"]["subject_entities"] == [sam.entity.pk]
    by_rest = bearer(dana).post("/api/v1/answer/", {"subject": "Sam", "label": "allergy",
                                                    **({"scope": asked_in.pk} if asked_in else {})},
                                format="json").json()
    assert (by_rest["tier"], by_rest["values"], by_rest["by_subject"]) == ("recorded", ["peanuts"], [])


@pytest.fixture
def old_sam(household):
    """A thing "Sam" in Dana's personal scope, as the binder made it before a member bound there, with a
    card of its own (where "it" works)."""
    dana = household["dana"]
    thing = Entity.objects.create(scope=dana.personal_scope, name="Sam", kind="thing")
    card_remember(scope=dana.personal_scope, actor=dana,
                  draft=CardDraft(kind="state", subject=thing, label="employer", value="Harbor"))
    return thing


def test_a_write_means_the_member_over_a_thing_of_their_name(household, bearer, old_sam):
    dana, sam = household["dana"], household["sam"]
    card = card_of(write(bearer(dana, write=True), dana.personal_scope, "Sam"))
    assert card.subject_id == sam.entity.pk


def test_a_member_and_a_thing_of_one_name_are_each_answered_named(household, bearer, old_sam):
    dana, sam = household["dana"], household["sam"]
    write(bearer(dana, write=True), dana.personal_scope, "Sam")
    agent = bearer(dana)
    # Sam (the member) has the allergy, the thing the employer: either is found, whichever comes first.
    for question, label, value in [("What is Sam allergic to?", "allergy", "peanuts"),
                                   ("Where does Sam work?", "employer", "Harbor")]:
        answered = ask(agent, question, dana.personal_scope)
        assert (answered["tier"], answered["values"]) == ("recorded", [value]), answered
        assert set(answered["understood"]["subject_entities"]) == {sam.entity.pk, old_sam.pk}
        assert "Sam (member)" in answered["answer"] and "Sam (thing)" in answered["answer"], answered["answer"]
        parts = {part["entities"][0]["id"]: part for part in answered["by_subject"]}
        known = sam.entity.pk if label == "allergy" else old_sam.pk
        other = old_sam.pk if known == sam.entity.pk else sam.entity.pk
        assert (parts[known]["tier"], parts[known]["values"]) == ("recorded", [value])
        assert (parts[other]["tier"], parts[other]["values"]) == ("no_evidence", [])
        by_rest = agent.post("/api/v1/answer/", {"scope": dana.personal_scope.pk, "subject": "Sam", "label": label},
                             format="json").json()
        assert by_rest["subject"]["binding"] == "ambiguous"
        assert (by_rest["tier"], by_rest["values"]) == ("recorded", [value]), by_rest
        assert {p["entities"][0]["id"]: p["tier"] for p in by_rest["by_subject"]} == {known: "recorded",
                                                                                      other: "no_evidence"}
    chinese = ask(agent, "Sam在哪裡工作？", dana.personal_scope)
    assert chinese["values"] == ["Harbor"] and "Sam（成員）" in chinese["answer"], chinese["answer"]


@pytest.fixture
def two_alexes(household):
    alexes = [UserFactory(username=username, display_name="Alex") for username in ("alex1", "alex2")]
    for alex in alexes:
        membership_set(scope=household["family"], user=alex, role="member")
    return alexes


def test_two_members_of_one_name_are_refused_on_a_write_from_a_personal_scope(household, bearer, two_alexes):
    dana = household["dana"]
    before = Entity.objects.count()
    refused = write(bearer(dana, write=True), dana.personal_scope, "Alex", label="skill", value="golf",
                    status=(400,)).json()
    assert refused["code"] == "ambiguous_entity"
    assert {c["id"] for c in refused["candidates"]} == {alex.entity.pk for alex in two_alexes}
    assert not Card.objects.filter(value="golf").exists() and Entity.objects.count() == before


def test_two_members_of_one_name_are_each_answered(household, bearer, two_alexes):
    dana, family = household["dana"], household["family"]
    alex1, alex2 = two_alexes
    card_remember(scope=family, actor=alex2, draft=CardDraft(kind="state", subject="me", label="employer",
                                                             value="Dockside"))
    answered = ask(bearer(dana), "Where does Alex work?")
    assert (answered["tier"], answered["values"]) == ("recorded", ["Dockside"]), answered
    assert "Alex (member, alex1)" in answered["answer"] and "Alex (member, alex2)" in answered["answer"]
    by_rest = bearer(dana).post("/api/v1/answer/", {"subject": "Alex", "label": "employer"}, format="json").json()
    assert by_rest["tier"] == "recorded" and by_rest["values"] == ["Dockside"]
    assert {p["entities"][0]["id"]: p["values"] for p in by_rest["by_subject"]} == {alex1.entity.pk: [],
                                                                                    alex2.entity.pk: ["Dockside"]}


def test_entity_for_write_resolved_says_whether_it_made_the_entity(household):
    dana, sam = household["dana"], household["sam"]
    personal = dana.personal_scope
    assert entity_for_write_resolved(scope=personal, actor=dana, ref="Sam") == (sam.entity, False)
    assert entity_for_write_resolved(scope=personal, actor=dana, ref="me") == (dana.entity, False)
    made, created = entity_for_write_resolved(scope=personal, actor=dana, ref="Bolacha")
    assert created and made.scope_id == personal.pk and made.name == "Bolacha"
    assert entity_for_write_resolved(scope=personal, actor=dana, ref="bolacha") == (made, False)
    memo = {}
    first = entity_for_write_resolved(scope=personal, actor=dana, ref="Tesla", memo=memo)
    assert first[1] and entity_for_write_resolved(scope=personal, actor=dana, ref="Tesla", memo=memo) == (first[0],
                                                                                                         False)


def test_the_ask_page_answers_each_entity_a_name_means(household, bearer, as_user, old_sam):
    dana = household["dana"]
    write(bearer(dana, write=True), dana.personal_scope, "Sam")
    page = as_user(dana).get("/ask/", {"scope": dana.personal_scope.pk, "subject": "Sam", "label": "employer",
                                       "form": "answer"}).content.decode()
    assert "Each is answered" in page and "Ask about one" not in page
    listed = page[page.index('class="by-subject"'):]
    listed = listed[:listed.index("</ul>")]
    assert "Sam (thing) · " in listed and "<strong>Harbor</strong>" in listed
    assert "Sam (person) · " in listed and "nothing recorded or derived" in listed


def test_a_thing_of_a_members_name_in_a_personal_scope_merges_into_the_member(household, bearer, old_sam):
    from cards.services.entities import entity_merge

    dana, sam = household["dana"], household["sam"]
    # The member is seen from Dana's personal scope: the old thing may be merged into him there.
    entity_merge(duplicate=old_sam, into=sam.entity)
    answered = bearer(dana).post("/api/v1/answer/", {"scope": dana.personal_scope.pk, "subject": "Sam",
                                                     "label": "employer"}, format="json").json()
    assert answered["subject"]["binding"] == "bound" and answered["by_subject"] == []
    assert (answered["tier"], answered["values"]) == ("recorded", ["Harbor"])
