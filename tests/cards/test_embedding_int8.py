"""The recall query embedder: the same MiniLM as an int8 ONNX file. Its vectors
must stand in for the fp32 model's (card vectors stay fp32), so it is checked
against the real fp32 model, text by text and ranking by ranking."""

import math

import numpy as np
import pytest

from cards.embeddings import EmbeddingError, embed_query, embed_texts
from cards.embeddings.int8 import MAX_TOKENS, embed_int8
from cards.embeddings.local import embedding_model

TEXTS = [
    "Where does my sister live now?",
    "which friend works on chips?",
    "city: Kyoto. My sister lives in Kyoto since spring",
    "job title: semiconductor engineer. Ben designs chips at a fab",
    "allergy: peanuts. Carries an epinephrine pen",
    "我妹妹現在住在哪裡？",
    "trip: Kyoto temples",
    "x",
    "a long text " * 400,  # beyond 256 tokens: both cut it at the same place
]

CARDS = [
    "city: Kyoto. My sister lives in Kyoto since spring",
    "job title: semiconductor engineer. Ben designs chips at a fab",
    "allergy: peanuts. Carries an epinephrine pen",
    "likes: sailing. Goes out on the lake every summer",
    "partner: Ren. Met at university",
    "birthday: 8 May",
    "employer: Acme Robotics",
    "dislikes: cilantro",
    "trip: Kyoto temples",
    "pet: a cat called Miso",
    "howto: Factory-reset the router. Hold the button for 10 seconds",
    "school: the kids go to Maple Elementary",
]

QUERIES = ["where does my sister live?", "which friend works on chips?", "what is she allergic to?",
           "what does Anna like doing in summer?", "who is my partner?", "when is the birthday?",
           "where does he work?", "what food to avoid?", "how do I reset the router?", "do we have pets?"]


def test_int8_vectors_are_384_dim_unit_vectors_close_to_the_fp32_models():
    fast = embed_int8(TEXTS)
    exact = embed_texts(TEXTS)
    for text, a, b in zip(TEXTS, fast, exact):
        assert len(a) == 384
        assert math.isclose(float(np.linalg.norm(a)), 1.0, abs_tol=1e-5)
        assert float(np.dot(a, b)) >= 0.998, text[:40]


def test_a_batch_gives_each_text_the_vector_it_gets_alone():
    # Padding to the batch's longest must not leak into the mean.
    together = embed_int8(["x", "a much longer sentence about where my sister lives these days"])
    alone = embed_int8(["x"])[0]
    assert float(np.dot(together[0], alone)) > 0.99999


def test_int8_queries_rank_fp32_cards_as_fp32_queries_do():
    cards = np.asarray(embed_texts(CARDS))
    fast = np.asarray(embed_int8(QUERIES)) @ cards.T
    exact = np.asarray(embed_texts(QUERIES)) @ cards.T
    for query, f, e in zip(QUERIES, fast, exact):
        assert list(np.argsort(-f)[:3]) == list(np.argsort(-e)[:3]), query
        assert float(np.max(np.abs(f - e))) < 0.02, query


def test_truncation_matches_the_card_model():
    assert MAX_TOKENS == embedding_model().max_seq_length


def test_query_model_setting(settings):
    settings.EMBEDDING_BACKEND = "local"
    settings.EMBEDDING_QUERY_MODEL = "fp32"
    assert embed_query("where do I live?") == embed_texts(["where do I live?"])[0]
    settings.EMBEDDING_QUERY_MODEL = "int8"
    assert embed_query("where do I live?") == pytest.approx(embed_int8(["where do I live?"])[0])
    settings.EMBEDDING_QUERY_MODEL = "fp16"
    with pytest.raises(EmbeddingError, match="EMBEDDING_QUERY_MODEL"):
        embed_query("where do I live?")
