"""`ask` answers the question set (household_questions.py: where / who / what, changed
facts, when, how many, time words, through a relation, through a rule, guessed,
no evidence; English and Chinese) over the seeded household with the right
tier, form and value for every question, as each asker's agent asks it. Seeded
once: every question is read-only."""

import json
import re

import pytest
from django.test import Client

from cards.text import normalize
from scopes.tokens import token_create

from . import household_cards, household_questions
from .household import seed

pytestmark = pytest.mark.django_db

AS_OF = household_cards.AS_OF


def _client(user) -> Client:
    _, raw = token_create(user=user, name="agent", can_write=False, scopes=None, all_scopes=True, days=90)
    return Client(HTTP_AUTHORIZATION=f"Bearer {raw}")


def _ask(client, scope, question) -> tuple[dict, bytes]:
    response = client.post("/api/v1/ask/", {"scope": scope.pk, "question": question, "as_of": AS_OF},
                           content_type="application/json")
    assert response.status_code == 200, (question, response.content)
    return json.loads(response.content), response.content


def _problems(q: dict, body: dict, cards: dict) -> list[str]:
    expect, found = q["expect"], []
    if body["tier"] != q["tier"]:
        found.append(f"tier {body['tier']} (expected {q['tier']})")
    if body["understood"]["form"] != q["form"]:
        found.append(f"form {body['understood']['form']} (expected {q['form']})")
    if "values" in expect and q["tier"] != "no_evidence":
        got = sorted({normalize(v) for v in body["values"]})
        if got != sorted({normalize(v) for v in expect["values"]}):
            found.append(f"values {body['values']} (expected {expect['values']})")
    if "yes" in expect and body.get("yes") is not expect["yes"]:
        found.append(f"yes {body.get('yes')} (expected {expect['yes']})")
    if "count" in expect and body.get("count") != expect["count"]:
        found.append(f"count {body.get('count')} (expected {expect['count']})")
    if "date" in expect and body["values"][:1] != [expect["date"]]:
        found.append(f"date {body['values'][:1]} (expected {expect['date']})")
    if "cards" in expect and not {cards[c] for c in expect["cards"]} <= set(body["cards"]):
        found.append(f"cards {body['cards']} (expected {[cards[c] for c in expect['cards']]} among them)")
    if q["tier"] == "no_evidence" and body["evidence"]:
        found.append("evidence given for no evidence")
    return found


def test_every_question_of_the_set_gets_its_tier_form_and_value():
    world = seed()
    clients = {name: _client(user) for name, user in world["people"].items()}
    failures = []
    for q in household_questions.QUESTIONS:
        body, _ = _ask(clients[q["asker"]], world["scope"], q["q"])
        problems = _problems(q, body, world["cards"])
        if problems:
            failures.append(f"{q['asker']}: {q['q']} → {body['answer']!r}: {'; '.join(problems)}")
    assert not failures, f"{len(failures)} of {len(household_questions.QUESTIONS)} questions:\n" + "\n".join(failures)


def test_the_same_question_gives_the_same_bytes_and_a_sentence_in_its_language():
    world = seed()
    clients = {name: _client(user) for name, user in world["people"].items()}
    for q in household_questions.QUESTIONS[::10]:
        first, raw = _ask(clients[q["asker"]], world["scope"], q["q"])
        _, again = _ask(clients[q["asker"]], world["scope"], q["q"])
        assert raw == again, q["q"]
        assert first["understood"]["language"] == q["lang"], q["q"]
        # A sentence for a person: never an ISO instant.
        assert not re.search(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}", first["answer"]), (q["q"], first["answer"])
