"""Recall knows when nothing recorded answers (issue 17): a question for a
person's attribute that is only ever recorded under its label (a phone number,
a birthday, a partner), about people it names or the asker's own, when no such
card holds, says `no_evidence` and returns nothing, on both routes. Attributes
said in other ways too (where one lives) and questions naming things, not
people, are left to the scores. What a question names is read without a model
(cards/words/understand.py), in English and Chinese."""

import pytest

from cards.recall.routes import recall
from cards.words.understand import labels_named, speaks_of_self
from scopes.services import membership_set
from tests.api.test_recall import ask, embed_all, remember
from tests.factories import UserFactory, family_scope

pytestmark = pytest.mark.django_db


@pytest.fixture
def household(db):
    dana = UserFactory(username="dana", display_name="Dana")
    sam = UserFactory(username="sam", display_name="Sam")
    family = family_scope(owner=dana)
    membership_set(scope=family, user=sam, role="member")
    for value, text in (("cello", "Sam plays the cello"), ("climbing", "Sam climbs on Sundays")):
        remember(family, dana, subject="Sam", label="hobby", value=value, text=text)
    remember(family, dana, subject="Sam", label="city", value="Porto", text="Sam lives in Porto")
    remember(family, dana, subject="me", label="phone", value="+351 912 000 111", text="Dana's mobile")
    remember(family, dana, subject="Datadog", label="note", kind="knowledge", value="account manager",
             text="Chloe is the account manager at Datadog")
    embed_all()
    return {"dana": dana, "sam": sam, "family": family}


@pytest.mark.parametrize("question, keys", [
    ("What's Ana's phone number?", {"phone"}),
    ("When is Kai's birthday?", {"birthday"}),
    ("Where does Sam live now?", {"address"}),
    ("Which company does Maria work for?", {"employer"}),
    ("安娜的電話幾號？", {"phone"}),          # Traditional, read as Simplified
    ("小安的生日是哪一天？", {"birthday"}),
    ("我住在哪里？", {"address"}),
    ("Tell me a joke", set()),
])
def test_the_labels_a_question_names(question, keys):
    assert {label.key for label in labels_named(question)} == keys


@pytest.mark.parametrize("question, mine", [
    ("What's my phone number?", True), ("Where do I live?", True), ("我的生日是哪天？", True),
    ("What's Sam's phone number?", False), ("我們家住在哪裡？", False), ("我们的WiFi密码是多少？", False),
])
def test_whether_a_question_speaks_of_the_asker(question, mine):
    assert speaks_of_self(question) is mine


@pytest.mark.parametrize("route", ["exact", "index"])
def test_a_persons_attribute_nothing_records_is_no_evidence(household, route):
    family, dana = household["family"], household["dana"]
    # Sam has cards (hobbies, a city) and the scope holds a phone number (Dana's): none answers.
    found = recall(scope_ids=[family.pk], query="What's Sam's phone number?", route=route, asker_id=dana.pk)
    assert found.unanswered and found.no_evidence and found.results == []
    mine = recall(scope_ids=[family.pk], query="What's my phone number?", route=route, asker_id=dana.pk)
    assert not mine.no_evidence and mine.results
    # Once it is recorded, it is found.
    card = remember(family, dana, subject="Sam", label="phone", value="+351 913 222 333")
    embed_all()
    found = recall(scope_ids=[family.pk], query="What's Sam's phone number?", route=route, asker_id=dana.pk)
    assert not found.unanswered and card.pk in [r.card_id for r in found.results]


def test_the_api_says_no_evidence_and_returns_nothing(household, bearer):
    family, sam = household["family"], household["sam"]
    body = ask(bearer(sam), family, "What is my phone number?")  # Sam asks: Dana's number is not his
    assert body["no_evidence"] is True and body["results"] == []
    body = ask(bearer(sam), family, "When is Dana's birthday?")
    assert body["no_evidence"] is True and body["results"] == []


@pytest.mark.parametrize("question", [
    "Where does Sam live now?",              # where one lives is also said as a city, a move
    "Who is the account manager at Datadog?",  # names a thing, not a person: a note may hold it
    "What does Sam do on Sundays?",           # names no attribute at all
])
def test_what_is_said_in_other_ways_is_left_to_the_scores(household, question):
    found = recall(scope_ids=[household["family"].pk], query=question, asker_id=household["dana"].pk)
    assert not found.unanswered and found.results
