"""POST /api/v1/recall/ and GET /api/v1/context/ with the real embedding model:
decay, ranking, semantic recall, aging facts, contradictions, the token budget."""

import datetime as dt
import math
import re

import pytest
from django.utils import timezone

from cards.context import count_tokens
from cards.drafts import CardDraft
from cards.models import Card
from cards.recall import score
from cards.recall.routes import recall
from cards.services import card_remember
from cards.services.embedding import cards_embed_now
from cards.time.when import when_resolve
from scopes.services import membership_set
from tests.factories import UserFactory, family_scope

pytestmark = pytest.mark.django_db

NOW = timezone.now()


def days_ago(days: float) -> dt.datetime:
    return NOW - dt.timedelta(days=days)


def remember(scope, actor, when=None, **fields):
    fields.setdefault("kind", "state")
    fields.setdefault("subject", "me")
    fields.setdefault("reference_time", NOW)
    if when:
        interval = when_resolve(when, reference=fields["reference_time"], tz=dt.timezone.utc)
        fields.update(occurred_at=interval.start, occurred_end=interval.end, precision=interval.precision,
                      time_source=interval.source)
    return card_remember(scope=scope, actor=actor, draft=CardDraft(**fields)).card


def embed_all():
    cards_embed_now(card_ids=Card.objects.values_list("pk", flat=True))


def ask(agent, scope, query, **extra):
    response = agent.post("/api/v1/recall/", {"scope": scope.pk, "query": query, **extra}, format="json")
    assert response.status_code == 200, response.json()
    return response.json()


@pytest.mark.parametrize("decay_lambda, days, expected", [
    (0.02, 30, 0.55), (0.02, 90, 0.17), (0.005, 30, 0.86), (0.005, 90, 0.64), (0.0, 3650, 1.0),
    (0.02, -5, 1.0),  # a planned event in the future does not decay
])
def test_decay_numbers(decay_lambda, days, expected):
    """The decay every route computes (cards/recall/score.py; tests/cards/test_recall_score.py holds the
    routes to it), from a Δt counted between two instants."""
    at = dt.datetime(2026, 6, 1, tzinfo=dt.timezone.utc)
    assert round(score.decay(decay_lambda, score.days_since(at - dt.timedelta(days=days), at)), 2) == expected


def test_old_single_value_card_ranks_below_a_fresh_one_of_equal_similarity(alice, bearer):
    scope = alice.personal_scope
    old = remember(scope, alice, subject="Anna", label="city", value="Oslo", reference_time=days_ago(90))
    fresh = remember(scope, alice, subject="Ben", label="city", value="Oslo", reference_time=days_ago(1))
    embed_all()
    body = ask(bearer(alice), scope, "who lives in Oslo?")
    ranked = {r["card"]["id"]: r for r in body["results"]}
    assert [r["card"]["id"] for r in body["results"]][:2] == [fresh.pk, old.pk]
    # Equal similarity (the subject is not part of a card's vector), different decay.
    assert math.isclose(ranked[old.pk]["similarity"], ranked[fresh.pk]["similarity"], abs_tol=1e-6)
    assert round(ranked[old.pk]["decay"], 2) == 0.17 and round(ranked[old.pk]["days"]) == 90
    shown = ranked[old.pk]
    assert math.isclose(shown["relevance"], 0.4 * shown["similarity"] + 0.6 * shown["lexical"])
    assert math.isclose(shown["score"], shown["relevance"] * shown["decay"]) and shown["lexical"] > 0  # "oslo"
    assert ranked[fresh.pk]["decay"] > 0.97 and body["route"] == "exact"


def test_verifying_restarts_the_decay(alice, bearer):
    scope = alice.personal_scope
    card = remember(scope, alice, label="city", value="Oslo", reference_time=days_ago(90))
    embed_all()
    agent = bearer(alice, write=True)
    assert round(ask(agent, scope, "where do I live")["results"][0]["decay"], 2) == 0.17
    assert agent.post(f"/api/v1/cards/{card.pk}/verify/").status_code == 200
    assert ask(agent, scope, "where do I live")["results"][0]["decay"] > 0.99


UNRELATED = [
    ("hobby", "{} watercolour painting"), ("likes", "{} chocolate cake"), ("pet", "a cat named {}"),
    ("city", "{}ville"), ("interest", "medieval history of {}"), ("diet", "vegetarian on {}days"),
    ("likes", "hiking trail number {}"), ("hobby", "knitting scarves, pattern {}"), ("pet", "goldfish no. {}"),
    ("interest", "jazz records from 19{}"),
]


def test_semantic_recall_finds_the_chip_engineer_among_200_unrelated_cards(alice, bearer):
    scope = alice.personal_scope
    for index in range(200):
        label, template = UNRELATED[index % len(UNRELATED)]
        remember(scope, alice, subject=f"Person {index}", label=label, value=template.format(index),
                 reference_time=days_ago(index % 30))
    target = remember(scope, alice, subject="Kai", label="job_title", value="semiconductor engineer",
                      text="my friend Kai designs processors at a foundry", reference_time=days_ago(10))
    embed_all()
    body = ask(bearer(alice), scope, "which friend works on chips?", k=3)
    assert target.pk in [r["card"]["id"] for r in body["results"]]
    assert len(body["results"]) == 3


def test_exact_and_index_routes_agree_and_stay_inside_the_given_scopes(alice):
    scope, other = alice.personal_scope, family_scope(owner=alice)
    for index in range(40):
        remember(scope if index % 2 else other, alice, subject=f"P{index}", label="hobby", value=f"chess opening {index}")
    embed_all()
    exact = recall(scope_ids=[scope.pk], query="chess", k=10, route="exact")
    index = recall(scope_ids=[scope.pk], query="chess", k=10, route="index")
    in_scope = set(Card.objects.filter(scope=scope).values_list("pk", flat=True))
    assert exact.route == "exact" and index.route == "index"
    assert {r.card_id for r in exact.results} <= in_scope and {r.card_id for r in index.results} <= in_scope
    assert [r.card_id for r in index.results] == [r.card_id for r in exact.results]


def test_above_the_exact_limit_the_index_route_serves_the_same_answer(alice, monkeypatch, settings):
    from cards.recall import routes

    settings.RECALL_MEMORY_MB = 0   # SQL's routing, which the in-memory exact route would otherwise take over

    family = family_scope(owner=alice)
    taipei = remember(alice.personal_scope, alice, label="city", value="Taipei", reference_time=days_ago(181))
    kyoto = remember(family, alice, label="city", value="Kyoto", reference_time=days_ago(3))
    for index in range(20):
        remember(family, alice, subject=f"P{index}", label="hobby", value=f"chess opening {index}")
    embed_all()
    scopes = [alice.personal_scope.pk, family.pk]
    monkeypatch.setattr(routes, "EXACT_LIMIT", 22)  # exactly the candidates: still exact
    exact = recall(scope_ids=scopes, query="where do I live", k=5)
    monkeypatch.setattr(routes, "EXACT_LIMIT", 21)
    broad = recall(scope_ids=scopes, query="where do I live", k=5)
    forced = recall(scope_ids=scopes, query="where do I live", k=5, route="exact")
    assert (exact.route, broad.route, forced.route) == ("exact", "index", "exact")  # forced stays exact
    assert [r.card_id for r in forced.results] == [r.card_id for r in exact.results]
    # At the moment Kyoto was stated its Δt is 0 and its decay 1: floats still, as the index route gives.
    then = recall(scope_ids=scopes, query="where do I live", k=5, as_of=kyoto.effective_at)
    assert kyoto.pk in [r.card_id for r in then.results]
    assert all(type(value) is float for r in then.results for value in (r.similarity, r.decay, r.days))
    assert [r.card_id for r in broad.results] == [r.card_id for r in exact.results]
    assert [r.score for r in broad.results] == pytest.approx([r.score for r in exact.results])
    assert [a.card_id for a in exact.aging] == [a.card_id for a in broad.aging] == [taipei.pk]
    assert exact.contradictions == broad.contradictions
    assert sorted(exact.contradictions[0].card_ids) == sorted([taipei.pk, kyoto.pk])


def test_when_and_as_of_filter_recall(alice, bearer):
    scope = alice.personal_scope
    trip = remember(scope, alice, kind="event", label="trip", value="ski trip to the Alps", when="yesterday")
    remember(scope, alice, kind="event", label="trip", value="beach trip to Bali", reference_time=days_ago(60),
             when="today")
    taipei = remember(scope, alice, label="city", value="Taipei", reference_time=days_ago(400))
    remember(scope, alice, label="city", value="Kyoto", reference_time=days_ago(100))
    embed_all()
    agent = bearer(alice)
    assert [r["card"]["id"] for r in ask(agent, scope, "trip", when="yesterday")["results"]] == [trip.pk]
    past = ask(agent, scope, "which city", as_of=days_ago(200).isoformat())
    assert taipei.pk in [r["card"]["id"] for r in past["results"]]
    assert "Kyoto" not in [r["card"]["value"] for r in past["results"]]
    assert round(past["results"][0]["days"]) == 200  # decayed as of then
    now = ask(agent, scope, "which city")
    assert "Taipei" not in [r["card"]["value"] for r in now["results"]]


def test_aging_facts_appear_exactly_when_a_single_value_fact_is_180_days_unconfirmed(alice, bearer):
    scope = alice.personal_scope
    remember(scope, alice, label="employer", value="Acme", reference_time=days_ago(179))
    remember(scope, alice, label="skill", value="Rust", reference_time=days_ago(400))  # multi-value: not aging
    remember(scope, alice, kind="event", label="trip", value="Rome", reference_time=days_ago(400))
    embed_all()
    agent = bearer(alice, write=True)
    assert ask(agent, scope, "where do I work")["aging_facts"] == []
    city = remember(scope, alice, label="city", value="Taipei", reference_time=days_ago(181))
    embed_all()
    aging = ask(agent, scope, "where do I live")["aging_facts"]
    assert [c["id"] for c in aging] == [city.pk]
    assert aging[0]["question"] == "I remember your city is Taipei — is this still accurate?"
    assert round(aging[0]["unverified_days"]) == 181
    agent.post(f"/api/v1/cards/{city.pk}/verify/")
    assert ask(agent, scope, "where do I live")["aging_facts"] == []


def test_contradictions_appear_exactly_when_visible_scopes_disagree(alice, bearer):
    sam = UserFactory(username="sam")
    family = family_scope(owner=alice)
    membership_set(scope=family, user=sam, role="member")
    mine = remember(alice.personal_scope, alice, label="city", value="Taipei")
    same = remember(family, alice, label="city", value="taipei")  # the same value, other words: no contradiction
    remember(family, alice, label="skill", value="Go")
    remember(alice.personal_scope, alice, label="skill", value="Rust")  # multi-value: never a contradiction
    embed_all()
    assert ask(bearer(alice), family, "city")["contradictions"] == []
    other = remember(family, alice, label="city", value="Kyoto", reference_time=NOW + dt.timedelta(seconds=1))
    embed_all()
    found = ask(bearer(alice), family, "city")["contradictions"]
    assert len(found) == 1 and found[0]["label"] == "city"
    assert sorted(c["id"] for c in found[0]["cards"]) == sorted([mine.pk, other.pk])
    assert same.pk not in [c["id"] for c in found[0]["cards"]]
    # Sam cannot see alice's personal scope: for him there is nothing to contradict.
    assert ask(bearer(sam), family, "city")["contradictions"] == []


def test_hypotheses_come_back_only_marked(alice, bearer):
    scope = alice.personal_scope
    remember(scope, alice, label="likes", value="spicy food", tag="hypothesis", confidence=0.4)
    remember(scope, alice, label="likes", value="sushi")
    embed_all()
    results = ask(bearer(alice), scope, "food I like")["results"]
    tiers = {r["card"]["value"]: r["tier"] for r in results}
    assert tiers == {"spicy food": "hypothesis", "sushi": "recorded"}


def test_recall_answers_in_the_callers_perspective(alice, bearer):
    sam = UserFactory(username="sam")
    family = family_scope(owner=alice)
    membership_set(scope=family, user=sam, role="member")
    remember(family, alice, kind="event", label="wedding", value="Ana's wedding", text="my sister's wedding",
             perspectives={"sam": "my sister-in-law's wedding"}, when="yesterday")
    embed_all()
    for user, text in ((alice, "my sister's wedding"), (sam, "my sister-in-law's wedding")):
        card = ask(bearer(user), family, "wedding")["results"][0]["card"]
        assert card["text"] == text and card["base_text"] == "my sister's wedding"


def test_recall_refuses_bad_input_with_4xx(alice, bearer):
    agent = bearer(alice)
    scope = alice.personal_scope.pk
    for body, status, code in (({"scope": scope}, 400, "validation_error"),
                               ({"scope": scope, "query": ""}, 400, "validation_error"),
                               ({"scope": scope, "query": "x", "k": 0}, 400, "validation_error"),
                               ({"scope": scope, "query": "x", "k": "many"}, 400, "validation_error"),
                               ({"scope": scope, "query": "x", "when": "blorgday"}, 400, "unresolvable_time"),
                               ({"scope": scope, "query": "x", "colour": "red"}, 400, "validation_error"),
                               ({"scope": scope, "query": "x\x00"}, 400, "validation_error"),
                               ({"scope": 2**62, "query": "x"}, 404, "not_found")):
        response = agent.post("/api/v1/recall/", body, format="json")
        assert (response.status_code, response.json()["code"]) == (status, code), body
    bad = agent.get("/api/v1/context/", {"scope": scope, "query": "x", "budget": 10})
    assert bad.status_code == 400 and bad.json()["code"] == "validation_error"


def test_embedding_backend_down_is_a_503_not_a_500(alice, bearer, settings):
    settings.EMBEDDING_BACKEND = "http"
    settings.EMBEDDING_URL = "http://127.0.0.1:9"  # discard port: nothing listens
    response = bearer(alice).post("/api/v1/recall/", {"scope": alice.personal_scope.pk, "query": "a query never asked"},
                                  format="json")
    assert response.status_code == 503 and response.json()["code"] == "embedding_unavailable"


# --- the context block ------------------------------------------------------------------

def context(agent, scope, query, **params):
    response = agent.get("/api/v1/context/", {"scope": scope.pk, "query": query, **params})
    assert response.status_code == 200, response.json()
    return response.json()


def test_context_carries_the_time_and_every_section_that_has_something(alice, bearer):
    alice.time_zone = "Asia/Taipei"
    alice.save()
    sam = UserFactory(username="sam")
    family = family_scope(owner=alice)
    membership_set(scope=family, user=sam, role="member")
    remember(alice.personal_scope, alice, label="city", value="Taipei", reference_time=days_ago(200))
    remember(family, alice, label="city", value="Kyoto")
    remember(family, alice, kind="event", label="trip", value="Kyoto temples", when="yesterday")
    remember(family, alice, label="likes", value="matcha", tag="hypothesis")
    embed_all()
    body = context(bearer(alice), family, "where do I live and travel?")
    prompt = body["prompt"]
    stamp = re.search(r"<current_time>(.+?)</current_time>", prompt).group(1)
    assert stamp.endswith("+08:00") and abs(dt.datetime.fromisoformat(stamp) - timezone.now()) < dt.timedelta(minutes=1)
    for section in ("memory", "aging_facts", "contradiction_alert", "hypotheses"):
        assert f"<{section}>" in prompt and f"</{section}>" in prompt, section
    assert "States:" in prompt and "Events:" in prompt and "[recorded, since" in prompt
    assert "UNCONFIRMED" in prompt and "<question>" in prompt
    # One question per reply: the contradiction; the aging Taipei is one of its sides, the matcha guess waits.
    assert "which one is current?" in prompt and "is this still accurate?" not in prompt
    assert "1 more question waits" in prompt
    assert body["question"]["kind"] == "contradiction" and body["questions_waiting"] == 1
    assert body["tokens"] == count_tokens(prompt) <= 1500
    assert set(body["cards"]) <= set(Card.objects.values_list("pk", flat=True)) and len(body["cards"]) == 4


def test_context_leaves_out_empty_sections_and_respects_the_budget(alice, bearer):
    scope = alice.personal_scope
    for index in range(30):
        remember(scope, alice, subject=f"Friend {index}", label="hobby",
                 value=f"restoring vintage motorcycles and sailing boats, project number {index}")
    embed_all()
    agent = bearer(alice)
    roomy = context(agent, scope, "hobbies", k=30, budget=4000)
    assert "<aging_facts>" not in roomy["prompt"] and "<contradiction_alert>" not in roomy["prompt"]
    assert "<hypotheses>" not in roomy["prompt"] and len(roomy["cards"]) == 30
    for budget in (60, 150, 400):
        tight = context(agent, scope, "hobbies", k=30, budget=budget)
        assert tight["tokens"] == count_tokens(tight["prompt"]) <= budget
        assert "<current_time>" in tight["prompt"] and len(tight["cards"]) < 30
        assert budget == 60 or tight["cards"], "a budget that fits lines takes some"
        # Most important first: the cards kept are the best-scored ones.
        assert tight["cards"] == roomy["cards"][:len(tight["cards"])]
