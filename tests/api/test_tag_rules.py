"""The tag rules (DESIGN §4 rule 7), each written as the reproduction of what
went wrong (issue points 1, 2, 3, 5 and 10): a guess never replaces a stated
fact, a statement promotes the guess it states, a planned value is not current
before its day, opposite preferences exclude each other, and what a person
says about themselves wins."""

import datetime as dt

import pytest
from django.utils import timezone

from cards.models import Card, CardRevision
from review.services.hypotheses import hypotheses_decay
from scopes.relations import relation_set
from scopes.services import membership_set
from tests.factories import UserFactory, family_scope

pytestmark = pytest.mark.django_db


def post(agent, scope, label, value, *, subject="me", status=(200, 201), **extra):
    response = agent.post("/api/v1/cards/", {"scope": scope.pk, "kind": "state", "subject": subject,
                                             "label": label, "value": value, **extra}, format="json")
    assert response.status_code in status, response.json()
    return response.json()


def bulk(agent, scope, *cards):
    response = agent.post("/api/v1/cards/bulk/", {"cards": [
        {"scope": scope.pk, "kind": "state", "subject": "me", **card} for card in cards]}, format="json")
    assert response.status_code in (200, 201), response.json()
    return response.json()["results"]


def answer(agent, scope, label, subject="me", **extra):
    response = agent.post("/api/v1/answer/", {"scope": scope.pk, "subject": subject, "label": label, **extra},
                          format="json")
    assert response.status_code == 200, response.json()
    return response.json()


def current(agent, scope, label):
    response = agent.get("/api/v1/cards/", {"scope": scope.pk, "label": label, "current": "true"})
    assert response.status_code == 200
    return sorted(card["value"] for card in response.json()["results"] if card["tag"] != "hypothesis")


# --- 1. A guess never replaces a stated fact -------------------------------------------

@pytest.mark.parametrize("path", ["single", "bulk"])
def test_a_guess_stands_beside_a_stated_fact(alice, scope, bearer, path):
    agent = bearer(alice, write=True)
    kyoto = post(agent, scope, "city", "Kyoto")["card"]
    if path == "single":
        guessed = post(agent, scope, "city", "Osaka", tag="hypothesis", confidence=0.6)
    else:
        guessed = bulk(agent, scope, {"label": "city", "value": "Osaka", "tag": "hypothesis", "confidence": 0.6})[0]
    assert guessed["outcome"] == "inserted" and guessed["superseded"] == []
    assert Card.objects.get(pk=kyoto["id"]).superseded_at is None
    found = answer(agent, scope, "city")
    assert (found["tier"], found["values"]) == ("recorded", ["Kyoto"])
    assert [(g["value"], "contradicts the record" in g["why"]) for g in found["candidates"]] == [("Osaka", True)]
    assert current(agent, scope, "city") == ["Kyoto"]


def test_rejecting_or_decaying_the_guess_leaves_the_fact(alice, scope, bearer):
    agent = bearer(alice, write=True)
    post(agent, scope, "city", "Kyoto")
    first = post(agent, scope, "city", "Osaka", tag="hypothesis", confidence=0.3)["card"]
    assert agent.post(f"/api/v1/cards/{first['id']}/reject/", {"reason": "no"}, format="json").status_code == 204
    assert answer(agent, scope, "city")["values"] == ["Kyoto"]
    post(agent, scope, "city", "Nagoya", tag="hypothesis", confidence=0.3)
    hypotheses_decay(timezone.now() + dt.timedelta(days=61))
    found = answer(agent, scope, "city")
    assert (found["tier"], found["values"], found["candidates"]) == ("recorded", ["Kyoto"], [])


def test_a_guess_the_record_already_states_is_a_duplicate_of_it(alice, scope, bearer):
    agent = bearer(alice, write=True)
    fact = post(agent, scope, "likes", "jazz", tag="preference")["card"]
    again = post(agent, scope, "likes", "jazz", tag="hypothesis", confidence=0.9)
    assert (again["outcome"], again["card"]["id"], again["card"]["tag"]) == ("duplicate", fact["id"], "preference")


# --- 2. A stated fact promotes the guess it states ---------------------------------------

@pytest.mark.parametrize("path", ["single", "bulk"])
@pytest.mark.parametrize("tag", ["fact", "preference"])
def test_stating_a_guessed_value_promotes_the_guess(alice, scope, bearer, path, tag):
    agent = bearer(alice, write=True)
    guess = post(agent, scope, "likes", "jazz", tag="hypothesis", confidence=0.6)["card"]
    source = {"session": "s-9", "message": "m-1", "quote": "I love jazz"}
    if path == "single":
        stated = post(agent, scope, "likes", "jazz", tag=tag, source=source)
    else:
        stated = bulk(agent, scope, {"label": "likes", "value": "jazz", "tag": tag, "source": source})[0]
    assert stated["outcome"] == "inserted" and stated["card"]["tag"] == tag
    assert stated["card"]["source"]["quote"] == "I love jazz"
    closed = Card.objects.get(pk=guess["id"])
    assert closed.superseded_by_id == stated["card"]["id"]
    assert CardRevision.objects.filter(card=closed, field="hypothesis", after=f"promoted to {tag}").exists()
    found = answer(agent, scope, "likes")
    assert (found["tier"], found["values"], found["candidates"]) == ("recorded", ["jazz"], [])


def test_a_single_value_guess_stated_takes_its_place_on_the_timeline(alice, scope, bearer):
    agent = bearer(alice, write=True)
    kyoto = post(agent, scope, "city", "Kyoto")["card"]
    guess = post(agent, scope, "city", "Osaka", tag="hypothesis")["card"]
    stated = post(agent, scope, "city", "Osaka")
    assert stated["outcome"] == "superseded" and stated["superseded"] == [kyoto["id"]]
    assert Card.objects.get(pk=guess["id"]).superseded_by_id == stated["card"]["id"]
    assert answer(agent, scope, "city")["values"] == ["Osaka"]


def test_confirming_a_single_value_guess_supersedes_the_old_value(alice, scope, bearer):
    agent = bearer(alice, write=True)
    kyoto = post(agent, scope, "city", "Kyoto")["card"]
    guess = post(agent, scope, "city", "Osaka", tag="hypothesis")["card"]
    response = agent.post(f"/api/v1/cards/{guess['id']}/confirm/", {"quote": "yes, we moved"}, format="json")
    assert response.status_code == 200 and response.json()["tag"] == "fact"
    assert Card.objects.get(pk=kyoto["id"]).superseded_by_id == response.json()["id"]
    assert answer(agent, scope, "city")["values"] == ["Osaka"]


def test_a_fact_with_another_value_discards_a_guess_made_before_it(alice, scope, bearer):
    agent = bearer(alice, write=True)
    guess = post(agent, scope, "city", "Osaka", tag="hypothesis")["card"]
    fact = post(agent, scope, "city", "Kyoto")["card"]
    assert Card.objects.get(pk=guess["id"]).superseded_by_id == fact["id"]
    assert answer(agent, scope, "city")["candidates"] == []


# --- 3. Planned values are not current before their day ----------------------------------

def test_a_value_from_next_month_is_planned_and_the_old_one_holds_until_then(alice, scope, bearer):
    agent = bearer(alice, write=True)
    kyoto = post(agent, scope, "city", "Kyoto")["card"]
    osaka = post(agent, scope, "city", "Osaka", when="next month")["card"]
    assert osaka["planned"] is True and kyoto["id"] != osaka["id"]
    assert current(agent, scope, "city") == ["Kyoto"]
    found = answer(agent, scope, "city")
    assert (found["tier"], found["values"]) == ("recorded", ["Kyoto"])
    assert [(p["value"], p["starts"]) for p in found["planned"]] == [("Osaka", osaka["effective_at"])]
    later = (dt.datetime.fromisoformat(osaka["effective_at"]) + dt.timedelta(days=1)).isoformat()
    assert answer(agent, scope, "city", as_of=later)["values"] == ["Osaka"]
    assert agent.get("/api/v1/cards/", {"scope": scope.pk, "label": "city", "as_of": later}).json()["results"][0][
        "value"] == "Osaka"


def test_an_event_still_to_come_is_planned(alice, scope, bearer):
    agent = bearer(alice, write=True)
    response = agent.post("/api/v1/cards/", {"scope": scope.pk, "kind": "event", "subject": "me", "label": "trip",
                                             "value": "Lisbon", "when": "next month"}, format="json")
    assert response.status_code == 201 and response.json()["card"]["planned"] is True
    past = agent.post("/api/v1/cards/", {"scope": scope.pk, "kind": "event", "subject": "me", "label": "trip",
                                         "value": "Porto", "when": "last month"}, format="json")
    assert past.json()["card"]["planned"] is False


# --- 5. Opposite preferences exclude each other ------------------------------------------

@pytest.mark.parametrize("pair", [("likes", "dislikes"), ("prefers", "avoids")])
def test_opposite_preferences_for_one_value_supersede_each_other(alice, scope, bearer, pair):
    agent = bearer(alice, write=True)
    first = post(agent, scope, pair[0], "coriander", tag="preference")["card"]
    second = post(agent, scope, pair[1], "coriander", tag="preference")
    assert second["outcome"] == "superseded" and second["superseded"] == [first["id"]]
    assert current(agent, scope, pair[0]) == [] and current(agent, scope, pair[1]) == ["coriander"]
    # Another value of the same label is untouched: only one value's pair is a timeline.
    post(agent, scope, pair[0], "basil", tag="preference")
    assert current(agent, scope, pair[0]) == ["basil"] and current(agent, scope, pair[1]) == ["coriander"]
    back = post(agent, scope, pair[0], "coriander", tag="preference")
    assert back["outcome"] == "superseded" and back["superseded"] == [second["card"]["id"]]


def test_an_opposite_learned_late_goes_into_the_history(alice, scope, bearer):
    agent = bearer(alice, write=True)
    likes = post(agent, scope, "likes", "coriander", effective_at="2026-03-01T00:00:00Z")["card"]
    late = post(agent, scope, "dislikes", "coriander", effective_at="2025-01-01T00:00:00Z")
    assert late["outcome"] == "inserted"
    assert late["card"]["superseded_by"] == likes["id"]
    assert current(agent, scope, "likes") == ["coriander"] and current(agent, scope, "dislikes") == []


def test_opposites_in_one_batch_end_as_one_timeline(alice, scope, bearer):
    agent = bearer(alice, write=True)
    results = bulk(agent, scope, {"label": "likes", "value": "coriander"}, {"label": "dislikes", "value": "coriander"})
    assert [r["outcome"] for r in results] == ["inserted", "superseded"]
    assert current(agent, scope, "likes") == [] and current(agent, scope, "dislikes") == ["coriander"]


# --- 10. What a person says about themselves wins -----------------------------------------

@pytest.fixture
def household(db):
    dana = UserFactory(username="dana", display_name="Dana")
    sam = UserFactory(username="sam", display_name="Sam")
    family = family_scope(owner=dana)
    membership_set(scope=family, user=sam, role="member")
    relation_set(scope=family, member=dana, of=sam, relation="wife")
    return {"dana": dana, "sam": sam, "family": family}


@pytest.mark.parametrize("path", ["single", "bulk"])
def test_someone_elses_word_stands_beside_a_members_own(household, bearer, path):
    dana, sam, family = household["dana"], household["sam"], household["family"]
    danas = bearer(dana, write=True)
    own = post(danas, family, "employer", "Harbor")["card"]
    sams = bearer(sam, write=True)
    if path == "single":
        other = post(sams, family, "employer", "Atlas", subject="Dana")
    else:
        response = sams.post("/api/v1/cards/bulk/", {"cards": [{"scope": family.pk, "kind": "state", "subject": "Dana",
                                                                "label": "employer", "value": "Atlas"}]},
                             format="json")
        other = response.json()["results"][0]
    assert other["card"]["subject_id"] == dana.entity.pk and other["card"]["disputes"] == own["id"]
    assert other["superseded"] == [] and Card.objects.get(pk=own["id"]).superseded_at is None
    for agent in (danas, sams):
        found = answer(agent, family, "employer", subject="Dana")
        assert (found["tier"], found["values"], found["conflicting"]) == ("recorded", ["Harbor"], True)
        assert [card["value"] for card in found["disputes"]] == ["Atlas"]
    # It reaches Dana's agent as a contradiction to ask her about.
    context = danas.get("/api/v1/context/", {"scope": family.pk, "query": "where does Dana work"}).json()["prompt"]
    assert "Atlas" in context and "Harbor" in context and "contradiction" in context


def test_the_member_settles_it_with_her_own_statement(household, bearer):
    dana, sam, family = household["dana"], household["sam"], household["family"]
    danas, sams = bearer(dana, write=True), bearer(sam, write=True)
    own = post(danas, family, "employer", "Harbor")["card"]
    other = post(sams, family, "employer", "Atlas", subject="my wife")["card"]
    again = post(sams, family, "employer", "Atlas", subject="Dana")
    assert again["outcome"] == "reinforced" and again["card"]["id"] == other["id"]
    stated = post(danas, family, "employer", "Atlas")
    assert stated["outcome"] == "superseded" and stated["superseded"] == [own["id"]]
    assert Card.objects.get(pk=other["id"]).superseded_by_id == stated["card"]["id"]
    found = answer(danas, family, "employer", subject="Dana")
    assert (found["values"], found["conflicting"], found["disputes"]) == (["Atlas"], False, [])


def test_for_anyone_else_the_later_statement_supersedes(household, bearer):
    dana, sam, family = household["dana"], household["sam"], household["family"]
    first = post(bearer(dana, write=True), family, "job_title", "builder", subject="the boat")["card"]
    second = post(bearer(sam, write=True), family, "job_title", "ferry", subject="the boat")
    assert second["outcome"] == "superseded" and second["superseded"] == [first["id"]]
    # A member's value someone else wrote (she said nothing herself) is superseded by the next statement too.
    sams = post(bearer(sam, write=True), family, "city", "Porto", subject="Dana")["card"]
    hers = post(bearer(dana, write=True), family, "city", "Lisbon")
    assert hers["outcome"] == "superseded" and hers["superseded"] == [sams["id"]]


def test_a_batch_of_unopposed_preferences_stays_set_based(alice, scope, bearer, django_assert_max_num_queries):
    """Opposite labels go card by card only where the opposite holds the value
    (or the batch states both); fifty new likes are a few statements, not fifty rounds."""
    agent = bearer(alice, write=True)
    post(agent, scope, "dislikes", "food 0")
    with django_assert_max_num_queries(30):
        results = bulk(agent, scope, *({"label": "likes", "value": f"food {n}"} for n in range(1, 51)))
    assert {r["outcome"] for r in results} == {"inserted"}
    opposed = bulk(agent, scope, {"label": "likes", "value": "food 0"}, {"label": "likes", "value": "food 99"})
    assert [r["outcome"] for r in opposed] == ["superseded", "inserted"]


def test_her_own_statement_of_a_disputed_opposite_settles_it(household, bearer):
    """Sam says Dana dislikes coriander; she said she likes it. When she says
    herself that she dislikes it, that is her word: it supersedes her "likes"
    and settles Sam's — it once collided with Sam's card on the multi-value index."""
    dana, sam, family = household["dana"], household["sam"], household["family"]
    danas = bearer(dana, write=True)
    own = post(danas, family, "likes", "coriander")["card"]
    said = post(bearer(sam, write=True), family, "dislikes", "coriander", subject="Dana")["card"]
    assert said["disputes"] == own["id"]
    stated = post(danas, family, "dislikes", "coriander")
    assert stated["outcome"] == "superseded" and stated["superseded"] == [own["id"]]
    assert Card.objects.get(pk=said["id"]).superseded_by_id == stated["card"]["id"]


def test_forgetting_her_own_word_leaves_what_others_said_as_the_record(household, bearer):
    # Was a 500: the dispute joined the timeline while her card still held it.
    dana, sam, family = household["dana"], household["sam"], household["family"]
    danas, sams = bearer(dana, write=True), bearer(sam, write=True)
    own = post(danas, family, "employer", "Harbor")["card"]
    older = post(sams, family, "employer", "Atlas", subject="Dana")["card"]
    newer = post(sams, family, "employer", "Beacon", subject="Dana")["card"]
    assert older["disputes"] == newer["disputes"] == own["id"]
    assert danas.delete(f"/api/v1/cards/{own['id']}/").status_code == 204
    found = answer(sams, family, "employer", subject="Dana")
    assert (found["tier"], found["values"], found["disputes"]) == ("recorded", ["Beacon"], [])
    assert Card.objects.get(pk=older["id"]).superseded_by_id == newer["id"]
    assert Card.objects.get(pk=newer["id"]).disputes_id is None
