"""The recall query embedder: the card model exported to ONNX and fused, run by
ONNX Runtime. Its vectors must be the card model's, so it is checked against the
real sentence-transformers model, text by text and ranking by ranking."""

import math

import numpy as np
import pytest

from cards.embeddings import EmbeddingError, embed_query, embed_texts
from cards.embeddings.onnx_export import query_model_path
from cards.embeddings.query_onnx import MAX_TOKENS, embed_query_onnx
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


def test_onnx_vectors_are_the_card_models_vectors():
    fast = embed_query_onnx(TEXTS)
    exact = embed_texts(TEXTS)
    for text, a, b in zip(TEXTS, fast, exact):
        assert len(a) == 384
        assert math.isclose(float(np.linalg.norm(a)), 1.0, abs_tol=1e-5)
        assert float(np.dot(a, b)) >= 0.99999, text[:40]


def test_a_batch_gives_each_text_the_vector_it_gets_alone():
    # Padding to the batch's longest must not leak into the mean.
    together = embed_query_onnx(["x", "a much longer sentence about where my sister lives these days"])
    alone = embed_query_onnx(["x"])[0]
    assert float(np.dot(together[0], alone)) > 0.99999


def test_onnx_queries_rank_cards_as_the_card_model_does():
    cards = np.asarray(embed_texts(CARDS))
    fast = np.asarray(embed_query_onnx(QUERIES)) @ cards.T
    exact = np.asarray(embed_texts(QUERIES)) @ cards.T
    for query, f, e in zip(QUERIES, fast, exact):
        assert list(np.argsort(-f)[:3]) == list(np.argsort(-e)[:3]), query
        assert float(np.max(np.abs(f - e))) < 1e-4, query


def test_truncation_matches_the_card_model():
    assert MAX_TOKENS == embedding_model().max_seq_length


def test_query_model_setting(settings):
    settings.EMBEDDING_BACKEND = "local"
    settings.EMBEDDING_QUERY_MODEL = "torch"
    assert embed_query("where do I live?") == embed_texts(["where do I live?"])[0]
    settings.EMBEDDING_QUERY_MODEL = "onnx"
    assert embed_query("where do I live?") == pytest.approx(embed_query_onnx(["where do I live?"])[0])
    settings.EMBEDDING_QUERY_MODEL = "fp16"
    with pytest.raises(EmbeddingError, match="EMBEDDING_QUERY_MODEL"):
        embed_query("where do I live?")


def test_the_onnx_file_is_built_once_from_the_offline_package_and_fused():
    import onnxruntime

    path = query_model_path()
    assert path.exists() and path.parent.name == "models"
    assert query_model_path() == path  # a second call finds it
    session = onnxruntime.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    assert [i.name for i in session.get_inputs()] == ["input_ids", "attention_mask", "token_type_ids"]


def test_without_the_onnx_file_queries_fall_back_to_the_card_model(settings, monkeypatch, caplog):
    import cards.embeddings as embeddings
    from cards.embeddings import query_onnx

    def broken(texts):
        raise OSError("no space left on device")

    settings.EMBEDDING_BACKEND, settings.EMBEDDING_QUERY_MODEL = "local", "onnx"
    monkeypatch.setattr(query_onnx, "embed_query_onnx", broken)
    monkeypatch.setattr(embeddings, "_onnx_failed", False)
    assert embed_query("where do I live?") == embed_texts(["where do I live?"])[0]
    assert "ONNX query model is unavailable" in caplog.text
    assert embeddings._onnx_failed  # not retried on every query
