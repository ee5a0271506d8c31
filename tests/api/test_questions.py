"""Check-in questions (DESIGN §6 aging and contradictions, §4 rule 7 probes; the
seed: "never ask the same confirmation twice", "do not stack multiple probes in
one response"): only what can change and may be asked is put to a person; a
question counts as asked when the agent says so (POST /api/v1/cards/{id}/asked/),
and then not again while the card stands; the context carries one question at
a time and says how many more wait."""

import datetime as dt

import pytest
from django.utils import timezone

from cards.drafts import CardDraft
from cards.models import Card, CardAsked
from cards.services import card_forget, card_remember
from scopes.services import membership_set
from tests.factories import UserFactory, family_scope

pytestmark = pytest.mark.django_db

NOW = timezone.now()


def days_ago(days: float) -> dt.datetime:
    return NOW - dt.timedelta(days=days)


def remember(scope, actor, **fields) -> Card:
    fields.setdefault("kind", "state")
    fields.setdefault("subject", "me")
    fields.setdefault("reference_time", NOW)
    return card_remember(scope=scope, actor=actor, draft=CardDraft(**fields)).card


def context(agent, scope, query="what do you remember about me?") -> dict:
    response = agent.get("/api/v1/context/", {"scope": scope.pk, "query": query})
    assert response.status_code == 200, response.json()
    return response.json()


def recall(agent, scope, query="what do you remember about me?") -> dict:
    response = agent.post("/api/v1/recall/", {"scope": scope.pk, "query": query}, format="json")
    assert response.status_code == 200, response.json()
    return response.json()


def asked(agent, card_id: int):
    return agent.post(f"/api/v1/cards/{card_id}/asked/")


def question_lines(prompt: str) -> list[str]:
    return [line for line in prompt.splitlines() if line.startswith("Ask")]


# --- 6: only what can change, and may be asked, is asked; once ------------------------

def test_a_birthday_and_a_sexual_orientation_unconfirmed_200_days_are_never_asked_about(alice, bearer):
    scope = alice.personal_scope
    remember(scope, alice, label="birthday", value="1990-04-02", reference_time=days_ago(200))
    remember(scope, alice, label="sexual_orientation", value="bisexual", consent=True, reference_time=days_ago(200))
    agent = bearer(alice)
    assert recall(agent, scope)["aging_facts"] == []
    body = context(agent, scope)
    assert body["question"] is None and "<question>" not in body["prompt"] and not question_lines(body["prompt"])
    assert "still accurate" not in body["prompt"]

    city = remember(scope, alice, label="city", value="Taipei", reference_time=days_ago(200))
    body = context(agent, scope)
    assert body["question"] == {"kind": "aging", "card": city.pk,
                                "text": "I remember your city is Taipei — is this still accurate?"}
    assert question_lines(body["prompt"]) == ["Ask once, in this reply: “I remember your city is Taipei — "
                                              "is this still accurate?”"]


def test_a_sensitive_attribute_that_can_change_is_listed_as_aging_but_never_put_as_a_question(alice, bearer):
    scope = alice.personal_scope
    weight = remember(scope, alice, label="weight", value="70 kg", consent=True, reference_time=days_ago(200))
    agent = bearer(alice)
    aging = recall(agent, scope)["aging_facts"]
    assert [(c["id"], c["question"]) for c in aging] == [(weight.pk, None)]  # data to hedge with, not a question
    assert recall(agent, scope)["questions_waiting"] == {"contradictions": 0, "aging_facts": 0}
    body = context(agent, scope)
    assert body["question"] is None and body["questions_waiting"] == 0 and not question_lines(body["prompt"])


def test_a_guess_about_a_sensitive_attribute_is_never_probed(alice, bearer):
    scope = alice.personal_scope
    remember(scope, alice, label="religion", value="Buddhist", tag="hypothesis", confidence=0.9, consent=True)
    agent = bearer(alice)
    assert agent.get("/api/v1/probes/next/", {"scope": scope.pk}).status_code == 204
    body = context(agent, scope)
    assert body["question"] is None and body["questions_waiting"] == 0


def test_an_aging_question_counts_as_asked_only_when_the_agent_says_so_and_then_not_again(alice, bearer):
    sam = UserFactory(username="sam")
    family = family_scope(owner=alice)
    membership_set(scope=family, user=sam, role="member")
    city = remember(family, alice, label="city", value="Taipei", reference_time=days_ago(200))
    agent = bearer(alice)
    # Shown is not asked: a context block may have been cut or ignored.
    assert context(agent, family)["question"]["card"] == city.pk
    assert context(agent, family)["question"]["card"] == city.pk

    first = asked(agent, city.pk)
    assert first.status_code == 200 and first.json()["card"] == city.pk and first.json()["asked_at"]
    again = asked(bearer(alice), city.pk)  # another token of hers: the same person, the same answer
    assert again.status_code == 200 and again.json() == first.json()
    assert CardAsked.objects.count() == 1

    body = context(agent, family)
    assert body["question"] is None and not question_lines(body["prompt"])
    assert "Taipei (unconfirmed for 200 days" in body["prompt"]  # still known to be old
    listed = recall(agent, family)["aging_facts"]
    assert [(c["id"], c["question"], c["asked_at"]) for c in listed] == [(city.pk, None, first.json()["asked_at"])]
    # Per person: sam was never asked.
    theirs = context(bearer(sam), family)["question"]
    assert theirs["text"] == "I remember Alice's city is Taipei — is this still accurate?"


def test_a_confirmation_or_a_new_value_brings_the_question_back_once_the_card_ages_again(alice, bearer):
    scope = alice.personal_scope
    agent = bearer(alice, write=True)
    taipei = remember(scope, alice, label="city", value="Taipei", reference_time=days_ago(400))
    asked(agent, taipei.pk)
    assert context(agent, scope)["question"] is None
    # Stated again 200 days ago: confirmed then, and aged again since: a new question.
    remember(scope, alice, label="city", value="Taipei", reference_time=days_ago(200))
    assert context(agent, scope)["question"]["card"] == taipei.pk
    asked(agent, taipei.pk)
    assert context(agent, scope)["question"] is None
    # A new value, itself aged: a new card, a new question.
    kyoto = remember(scope, alice, label="city", value="Kyoto", reference_time=days_ago(190))
    assert context(agent, scope)["question"]["card"] == kyoto.pk
    # Confirmed now: nothing to ask until it ages again.
    assert agent.post(f"/api/v1/cards/{kyoto.pk}/verify/").status_code == 200
    assert context(agent, scope)["question"] is None and recall(agent, scope)["aging_facts"] == []


def test_asked_is_404_for_a_card_the_caller_cannot_see_and_forgetting_the_card_forgets_it(alice, bearer):
    mallory = UserFactory(username="mallory")
    city = remember(alice.personal_scope, alice, label="city", value="Taipei", reference_time=days_ago(200))
    refused = asked(bearer(mallory), city.pk)
    assert refused.status_code == 404 and refused.json()["code"] == "not_found"
    assert asked(bearer(alice), 2**62).status_code == 404
    assert not CardAsked.objects.exists()
    assert asked(bearer(alice), city.pk).status_code == 200  # a read-only token may say it asked
    card_forget(card=city, actor=alice)
    assert not CardAsked.objects.exists()


# --- 11: one question per reply ----------------------------------------------------

def test_the_context_carries_one_question_the_contradiction_first_and_says_how_many_more_wait(alice, bearer):
    family = family_scope(owner=alice)
    personal = alice.personal_scope
    for label, mine, ours in (("city", "Taipei", "Kyoto"), ("employer", "Acme", "Globex")):
        remember(personal, alice, label=label, value=mine)
        remember(family, alice, label=label, value=ours)
    for label, value in (("phone", "+886 2 1234"), ("email", "alice@example.org"), ("job_title", "Engineer")):
        remember(personal, alice, label=label, value=value, reference_time=days_ago(200))
    guess = remember(family, alice, label="likes", value="matcha", text="Likes matcha", tag="hypothesis",
                     confidence=0.6)
    agent = bearer(alice)

    body = context(agent, family)
    assert body["question"]["kind"] == "contradiction"
    assert len(question_lines(body["prompt"])) == 1 and body["prompt"].count("<question>") == 1
    assert "5 more questions wait" in body["prompt"] and body["questions_waiting"] == 5
    assert "Ask:" not in body["prompt"] and "still accurate" not in body["prompt"]

    # Asked one by one: the other contradiction, the three aging facts, then the guess; never one twice.
    seen, kinds = [], []
    while body["question"] is not None:
        question = body["question"]
        assert (question["kind"], question["card"]) not in seen
        seen.append((question["kind"], question["card"]))
        kinds.append(question["kind"])
        assert body["questions_waiting"] == 5 - len(seen) + 1
        assert asked(agent, question["card"]).status_code == 200
        body = context(agent, family)
        assert len(question_lines(body["prompt"])) <= 1
    assert kinds == ["contradiction"] * 2 + ["aging"] * 3 + ["probe"]
    assert seen[-1] == ("probe", guess.pk)
    assert body["questions_waiting"] == 0 and "<question>" not in body["prompt"]
    # The probe the context carried was asked: the check-in never offers it again.
    assert agent.get("/api/v1/probes/next/", {"scope": family.pk}).status_code == 204


def test_a_probe_offered_by_probes_next_keeps_the_context_from_stacking_another(alice, bearer):
    scope = alice.personal_scope
    remember(scope, alice, label="likes", value="jazz", tag="hypothesis", confidence=0.9)
    remember(scope, alice, label="likes", value="tea", tag="hypothesis", confidence=0.4)
    agent = bearer(alice, write=True)
    assert context(agent, scope)["question"]["kind"] == "probe"
    offered = agent.get("/api/v1/probes/next/", {"scope": scope.pk}).json()
    body = context(agent, scope)
    assert body["question"] is None and body["questions_waiting"] == 1  # tea waits for the answer about jazz
    assert agent.post(f"/api/v1/cards/{offered['id']}/confirm/", {"quote": "yes"}, format="json").status_code == 200
    assert context(agent, scope)["question"]["text"] == "I might be wrong, but is this right: ‘likes: tea’?"


def test_both_recall_routes_list_what_may_be_asked_first_and_count_it_beyond_the_list(alice):
    from cards.recall.aging import AGING_LIMIT
    from cards.recall.routes import recall as retrieval_recall
    from cards.services.asked import card_asked
    from scopes.selectors import read_scope_ids
    from scopes.principals import Principal

    family = family_scope(owner=alice)
    labels = ("address", "country", "employer", "job_title", "phone", "email", "browser")
    aged = [remember(alice.personal_scope, alice, label=label, value=f"old {label}", reference_time=days_ago(300))
            for label in labels]
    for card in aged[:5]:  # more asked about than the list holds
        card_asked(card=card, user=alice)
    remember(alice.personal_scope, alice, label="weight", value="70 kg", consent=True, reference_time=days_ago(300))
    remember(alice.personal_scope, alice, label="city", value="Taipei")
    kyoto = remember(family, alice, label="city", value="Kyoto")
    remember(alice.personal_scope, alice, label="car", value="Civic")
    civic_rival = remember(family, alice, label="car", value="Golf")
    card_asked(card=civic_rival, user=alice)  # that contradiction was asked about; city's was not
    scope_ids = read_scope_ids(principal=Principal(alice), scope_id=family.pk)

    def seen(route):
        found = retrieval_recall(scope_ids=scope_ids, query="where do I live", route=route, asker_id=alice.pk)
        return ([(a.card_id, a.askable, a.asked_at is not None) for a in found.aging], found.aging_askable,
                [(c.question_card_id, c.askable, c.asked_at is not None) for c in found.contradictions],
                found.contradictions_askable)

    exact = seen("exact")
    assert exact == seen("index")
    aging, aging_askable, contradictions, contradictions_askable = exact
    assert len(aging) == AGING_LIMIT and aging_askable == 2
    assert {card_id for card_id, askable, _ in aging[:2]} == {aged[5].pk, aged[6].pk}
    assert all(askable for _, askable, _ in aging[:2]) and not any(askable for _, askable, _ in aging[2:])
    assert contradictions == [(kyoto.pk, True, False), (civic_rival.pk, False, True)] and contradictions_askable == 1


def test_the_home_pages_aging_counts_leave_out_what_cannot_go_stale(alice):
    from memory_site.health import scopes_health
    from memory_site.health_chart import weekly_health
    from scopes.principals import Principal

    scope = alice.personal_scope
    remember(scope, alice, label="birthday", value="1990-04-02", reference_time=days_ago(200))
    remember(scope, alice, label="city", value="Taipei", reference_time=days_ago(200))
    principal = Principal(user=alice)
    assert scopes_health(principal=principal, scopes=[scope])[scope.pk].aging == 1
    assert sum(week["aging"] for week in weekly_health(principal=principal, scope_ids=[scope.pk])) == 1
