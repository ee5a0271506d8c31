"""Point 9: agents send hypothesis confidence as the seed names it ("high",
"medium", "low"); every write path takes the words, stores the numbers the
hypothesis lifecycle uses, and refuses any other word with a field error."""

import datetime as dt
import json

import pytest
from django.utils import timezone

from cards.confidence import LEVELS
from cards.transfer.importer import ImportFileError, memory_import
from cards.transfer.import_markdown import document_from_markdown
from cards.models import Card
from review.extract.base import Message
from review.extract.llm_schema import validate
from review.models import Candidate
from review.services.hypotheses import hypotheses_decay
from scopes.services import membership_set
from tests.factories import UserFactory, family_scope

pytestmark = pytest.mark.django_db

# Today's numbers: what the nightly job has always stored for each level.
STORED = {"high": 0.9, "medium": 0.6, "low": 0.3}


def guess(scope, **fields):
    return {"scope": scope.pk, "kind": "state", "subject": "me", "label": "likes", "value": "jazz",
            "tag": "hypothesis", **fields}


def test_the_words_are_the_lifecycles_numbers():
    assert LEVELS == STORED


@pytest.mark.parametrize("word", ["high", "medium", "low"])
def test_rest_single_takes_a_word_and_stores_its_number(alice, bearer, word):
    agent = bearer(alice, write=True)
    made = agent.post("/api/v1/cards/", guess(alice.personal_scope, confidence=word), format="json")
    assert made.status_code == 201, made.json()
    card = made.json()["card"]
    assert (card["confidence"], card["confidence_level"]) == (STORED[word], word)
    assert Card.objects.get(pk=card["id"]).confidence == STORED[word]


def test_a_number_is_still_taken_as_it_is(alice, bearer):
    made = bearer(alice, write=True).post("/api/v1/cards/", guess(alice.personal_scope, confidence=0.42),
                                          format="json").json()["card"]
    assert (made["confidence"], made["confidence_level"]) == (0.42, "low")
    fact = bearer(alice, write=True).post("/api/v1/cards/", guess(alice.personal_scope, tag="fact", value="tea"),
                                          format="json").json()["card"]
    assert (fact["confidence"], fact["confidence_level"]) == (None, None)


def test_bulk_takes_words_and_numbers_side_by_side(alice, bearer):
    scope = alice.personal_scope
    body = {"cards": [guess(scope, confidence="High"), guess(scope, value="tea", confidence=0.5),
                      guess(scope, value="rain", confidence=" low ")]}
    made = bearer(alice, write=True).post("/api/v1/cards/bulk/", body, format="json")
    assert made.status_code == 201, made.json()
    assert [r["card"]["confidence"] for r in made.json()["results"]] == [0.9, 0.5, 0.3]


@pytest.mark.parametrize("bad", ["very high", "sure", "", "nan", "1.5", True, 2, -0.1, ["high"], {"level": "high"}])
def test_any_other_confidence_is_a_field_error_and_nothing_is_stored(alice, bearer, bad):
    agent = bearer(alice, write=True)
    refused = agent.post("/api/v1/cards/", guess(alice.personal_scope, confidence=bad), format="json")
    assert refused.status_code == 400 and refused.json()["code"] == "validation_error"
    assert '"high", "medium", "low"' in refused.json()["fields"]["confidence"][0]
    scope = alice.personal_scope
    bulk = agent.post("/api/v1/cards/bulk/", {"cards": [guess(scope, value="tea", confidence="high"),
                                                        guess(scope, confidence=bad)]}, format="json")
    assert bulk.status_code == 400 and bulk.json()["code"] == "validation_error"
    assert "confidence" in bulk.json()["fields"]["cards"]["1"]
    assert not Card.objects.filter(scope=scope, tag="hypothesis").exists()  # not even the good first card


def test_a_reviewer_edits_a_candidates_confidence_with_a_word(alice, as_user):
    family = family_scope(owner=alice)
    rita = UserFactory(username="rita")
    membership_set(scope=family, user=rita, role="reviewer")
    proposed = Candidate.objects.create(scope=family, author=alice, kind="state", label="likes", subject="me",
                                        value="jazz", tag="hypothesis", confidence=0.9, quote="jazz, maybe",
                                        message_at=timezone.now(), extractor="llm", session="s1", message="m1")
    client = as_user(rita)
    bad = client.post(f"/api/v1/review/{proposed.pk}/approve/", {"edits": {"confidence": "meh"}}, format="json")
    assert bad.status_code == 400 and "confidence" in bad.json()["fields"]["edits"]
    approved = client.post(f"/api/v1/review/{proposed.pk}/approve/", {"edits": {"confidence": "low"}},
                           format="json")
    assert approved.status_code == 200, approved.json()
    assert Card.objects.get(pk=approved.json()["card"]).confidence == STORED["low"]


def test_a_language_model_may_answer_with_a_word():
    at = dt.datetime(2026, 5, 8, 16, 44, tzinfo=dt.timezone.utc)
    messages = [Message("m", "user", "I think I like jazz", at)]
    item = {"message_id": "m", "quote": "I think I like jazz", "kind": "state", "label": "likes", "subject": "me",
            "value": "jazz", "tag": "hypothesis", "occurred_at_hint": None}
    extraction, errors = validate(json.dumps({"items": [dict(item, confidence="medium")]}), messages, dt.timezone.utc)
    assert errors == [] and extraction.proposals[0].confidence == STORED["medium"]
    _, errors = validate(json.dumps({"items": [dict(item, confidence="certain")]}), messages, dt.timezone.utc)
    assert errors and "items[0].confidence" in errors[0] and '"low"' in errors[0]


def test_imports_read_the_words_as_the_api_does(alice):
    profile = ("# Memory (dates in Asia/Taipei)\n\n## Hypotheses\n"
               "- me · likes: jazz (since 2026-05-01, confidence high)\n"
               "- me · likes: tea (since 2026-05-01, confidence 0.5)\n")
    document = document_from_markdown({"MEMORY.md": profile}, time_zone="Asia/Taipei", now=timezone.now())
    memory_import(actor=alice, scope=alice.personal_scope, document=document)
    stored = dict(Card.objects.filter(scope=alice.personal_scope, tag="hypothesis").values_list("value", "confidence"))
    assert stored == {"jazz": STORED["high"], "tea": 0.5}
    document["cards"][0]["confidence"] = "absolutely"
    with pytest.raises(ImportFileError, match="confidence must be"):
        memory_import(actor=alice, scope=alice.personal_scope, document=document)


def test_a_word_steps_down_like_any_hypothesis(alice, bearer):
    made = bearer(alice, write=True).post("/api/v1/cards/", guess(
        alice.personal_scope, confidence="high", reference_time=(timezone.now() - dt.timedelta(days=15)).isoformat()),
        format="json").json()["card"]
    assert hypotheses_decay()["demoted"] == 1
    assert Card.objects.get(pk=made["id"]).confidence == STORED["medium"]


def test_the_schema_names_the_words(api):
    schema = api.get("/api/v1/schema/", {"format": "json"}).json()
    for name in ("RememberInRequest", "EditsInRequest"):
        confidence = schema["components"]["schemas"][name]["properties"]["confidence"]
        assert {"type": "string", "enum": ["high", "medium", "low"]} in confidence["oneOf"], (name, confidence)
    assert "confidence_level" in schema["components"]["schemas"]["CardOut"]["properties"]
