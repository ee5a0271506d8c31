"""Recall scores words beside meaning (issue 17): the lexical share of the
query's words a card holds is fused with vector similarity in the statement
that scores it, on both routes; Chinese is segmented and read across
Traditional and Simplified; a label named by a synonym is looked for; a time
expression inside the question restricts events as `when` does; a correction
changes the words a card is found by."""

import datetime as dt

import pytest
from django.utils import timezone

from cards.models import Card
from cards.recall.query import recall_terms
from cards.recall.routes import recall
from cards.embeddings.spaces import MINILM, space_values
from cards.words.understand import name_runs
from cards.services import card_describe
from tests.api.test_recall import ask, embed_all, remember

pytestmark = pytest.mark.django_db
# The weights of the space these tests embed in (the local model's).
ALPHA, NAMED_BOOST = space_values(MINILM).alpha, space_values(MINILM).named_boost


def ranked_ids(body) -> list[int]:
    return [r["card"]["id"] for r in body["results"]]


def test_a_chinese_question_finds_a_traditional_chinese_card_by_its_words(alice, bearer):
    scope = alice.personal_scope
    home = remember(scope, alice, label="address", value="台北市大安區永康街12號", text="我們住在台北市大安區永康街")
    for value, text in (("羽毛球", "週末打羽毛球"), ("日文", "在學日文"), ("咖啡", "喜歡喝手沖咖啡")):
        remember(scope, alice, label="hobby", value=value, text=text)
    embed_all()
    body = ask(bearer(alice), scope, "我们住在永康街哪一号？")  # Simplified, asking about a Traditional card
    assert ranked_ids(body)[0] == home.pk
    top = body["results"][0]
    assert top["lexical"] > 0.5 and top["relevance"] > body["results"][1]["relevance"]


def test_a_rare_name_in_the_question_lifts_the_card_that_holds_it(alice, bearer):
    scope = alice.personal_scope
    contact = remember(scope, alice, label="note", kind="knowledge", value="Freight contact",
                       text="Our contact at Northwind Freight is Priya Raman")
    for text in ("Our accountant is at Baker & Co", "The plumber is Tom from Fixit", "The vet is Dr Silva",
                 "The landlord's agent is Marta", "Our contact at the bank is Jorge"):
        remember(scope, alice, label="note", kind="knowledge", value=text.split()[1], text=text)
    embed_all()
    body = ask(bearer(alice), scope, "who do we talk to at Northwind?")
    assert ranked_ids(body)[0] == contact.pk and body["results"][0]["lexical"] > 0


def test_a_label_named_by_a_synonym_is_looked_for():
    assert "employer" in recall_terms("Which company does Maria work for?")
    assert "job" in recall_terms("What is her occupation?")  # job_title's words


def test_the_time_words_of_a_question_restrict_events_like_when(alice, bearer):
    scope = alice.personal_scope
    now = timezone.localtime(timezone.now(), dt.timezone.utc)
    weekend = remember(scope, alice, kind="event", label="trip", value="Sintra", text="Day trip to Sintra",
                       when="last weekend", reference_time=now)
    older = remember(scope, alice, kind="event", label="trip", value="Evora", text="Day trip to Evora",
                     when="2 months ago", reference_time=now)
    remember(scope, alice, label="city", value="Lisbon")
    embed_all()
    alice.time_zone = "UTC"
    alice.save(update_fields=["time_zone"])
    asked = ask(bearer(alice), scope, "Where did we go last weekend?")
    assert ranked_ids(asked) == [weekend.pk]
    assert older.pk in ranked_ids(ask(bearer(alice), scope, "Where did we go?"))
    # An explicit `when` still decides, whatever the question says.
    assert ranked_ids(ask(bearer(alice), scope, "Where did we go last weekend?", when="2 months ago")) == [older.pk]


def test_time_words_ahead_keep_the_plans_said_as_notes(alice, bearer):
    scope = alice.personal_scope
    now = timezone.localtime(timezone.now(), dt.timezone.utc)
    plan = remember(scope, alice, label="note", kind="knowledge", value="offsite in Porto",
                    text="The team offsite next month is in Porto")
    booked = remember(scope, alice, kind="event", label="trip", value="Porto", text="Offsite trip to Porto",
                      when="next month", reference_time=now)
    past = remember(scope, alice, kind="event", label="trip", value="Faro", text="Offsite trip to Faro",
                    when="2 months ago", reference_time=now)
    embed_all()
    alice.time_zone = "UTC"
    alice.save(update_fields=["time_zone"])
    body = ask(bearer(alice), scope, "Where is the offsite next month?")
    found = ranked_ids(body)
    # The month's events and what was said of it as a note; never an event outside it.
    assert {plan.pk, booked.pk} <= set(found) and past.pk not in found
    # Looking back keeps to what happened then.
    assert ranked_ids(ask(bearer(alice), scope, "Where was the offsite 2 months ago?")) == [past.pk]


def test_a_corrected_description_is_found_by_its_new_words(alice, bearer):
    scope = alice.personal_scope
    card = remember(scope, alice, label="note", kind="knowledge", value="Boiler", text="The boiler is in the attic")
    card_describe(card=card, actor=alice, text="The boiler is behind the Vaillant panel in the garage")
    assert "vaillant" in Card.objects.get(pk=card.pk).lexemes and "attic" not in Card.objects.get(pk=card.pk).lexemes


def test_both_routes_fuse_words_and_meaning_alike(alice):
    scope = alice.personal_scope
    for value, text in (("Kyoto", "Moved to Kyoto in spring"), ("Go", "Writes Go at work"),
                        ("Northwind", "Orders ship with Northwind Freight")):
        remember(scope, alice, label="note", kind="knowledge", value=value, text=text)
    embed_all()
    exact = recall(scope_ids=[scope.pk], query="shipping with Northwind", route="exact")
    index = recall(scope_ids=[scope.pk], query="shipping with Northwind", route="index")
    # The index route takes a word's idf over the most candidates the exact route
    # would score (it is taken when there are more): the values differ, the order not here.
    assert [r.card_id for r in exact.results] == [r.card_id for r in index.results]
    for found in (exact, index):
        for r in found.results:
            assert r.similarity == pytest.approx(next(e.similarity for e in exact.results if e.card_id == r.card_id))
            assert r.relevance == pytest.approx(ALPHA * r.similarity + (1 - ALPHA) * r.lexical
                                                + (NAMED_BOOST if r.named else 0))
            assert r.score == pytest.approx(r.relevance * r.decay)
        assert found.results[0].lexical > 0 and all(r.lexical == 0 for r in found.results[1:])


def test_a_card_about_an_entity_the_question_names_is_lifted(alice, bearer):
    scope = alice.personal_scope
    kai = remember(scope, alice, subject="Kai", label="hobby", value="cello", text="Plays the cello in a quartet")
    dana = remember(scope, alice, subject="Dana", label="hobby", value="cello", text="Plays the cello in a quartet")
    embed_all()
    for route in ("exact", "index"):
        found = {r.card_id: r for r in recall(scope_ids=[scope.pk], query="What does Kai play?", route=route).results}
        assert found[kai.pk].named and not found[dana.pk].named
        # The same words and meaning; only the name in the question tells them apart.
        assert found[kai.pk].relevance - found[dana.pk].relevance == pytest.approx(NAMED_BOOST, abs=1e-6)
    body = ask(bearer(alice), scope, "What does Kai play?")
    assert [r["card"]["id"] for r in body["results"]] == [kai.pk, dana.pk]
    assert name_runs("What does Kai play?") == sorted(
        {"what", "what does", "what does kai", "what does kai play", "does", "does kai", "does kai play", "kai",
         "kai play", "play"})
    assert {"林子安", "子安", "小安"} <= set(name_runs("林子安和小安"))
