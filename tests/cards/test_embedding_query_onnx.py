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
    from cards.embeddings import query_onnx

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(query_onnx, "embed_query_onnx", lambda texts: pytest.fail("torch was asked for"))
        assert embed_query("where do I live?") == embed_texts(["where do I live?"])[0]
    settings.EMBEDDING_QUERY_MODEL = "onnx"
    assert embed_query("where do I live?") == pytest.approx(embed_query_onnx(["where do I live?"])[0])
    settings.EMBEDDING_QUERY_MODEL = "fp16"
    with pytest.raises(EmbeddingError, match="EMBEDDING_QUERY_MODEL"):
        embed_query("where do I live?")


def test_the_onnx_file_is_built_once_offline_and_fused(settings, tmp_path, monkeypatch):
    import socket
    import threading
    from collections import Counter

    import onnx

    from cards.embeddings import onnx_export

    settings.DATA_DIR = tmp_path
    builds = []
    real_build = onnx_export._build
    monkeypatch.setattr(onnx_export, "_build", lambda path: (builds.append(path), real_build(path)))

    def no_network(*args, **kwargs):
        raise AssertionError("the build tried to reach the network")

    monkeypatch.setattr(socket.socket, "connect", no_network)
    paths = []
    threads = [threading.Thread(target=lambda: paths.append(onnx_export.query_model_path(wait=True)))
               for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(builds) == 1 and len(set(paths)) == 1 and paths[0].parent == tmp_path / "models"
    ops = Counter(node.op_type for node in onnx.load(str(paths[0])).graph.node)
    assert ops["Attention"] == 6 and sum(ops.values()) < 100  # fused: one Attention per layer
    assert not list((tmp_path / "models").glob("*.partial")) and not list((tmp_path / "models").glob("*.raw.onnx"))


def test_while_another_process_builds_it_queries_use_torch_without_waiting(settings, tmp_path, monkeypatch):
    import fcntl

    import cards.embeddings as embeddings
    from cards.embeddings import onnx_export, query_onnx

    settings.DATA_DIR = tmp_path
    settings.EMBEDDING_BACKEND, settings.EMBEDDING_QUERY_MODEL = "local", "onnx"
    monkeypatch.setattr(query_onnx, "_session", None)
    monkeypatch.setattr(embeddings, "_onnx_retry_at", 0.0)
    monkeypatch.setattr(onnx_export, "_build", lambda path: pytest.fail("built while another process held the lock"))
    lock = onnx_export.query_model_file().with_suffix(".lock")
    lock.parent.mkdir(parents=True)
    with open(lock, "w") as builder:  # another process, building
        fcntl.flock(builder, fcntl.LOCK_EX)
        with pytest.raises(onnx_export.Building):
            onnx_export.query_model_path()
        assert embed_query("where do I live?") == embed_texts(["where do I live?"])[0]
    assert embeddings._onnx_retry_at == 0.0  # not a failure: the next query tries the file again


def test_a_failing_onnx_file_falls_back_to_torch_and_is_retried_later(settings, monkeypatch, caplog):
    import cards.embeddings as embeddings
    from cards.embeddings import query_onnx

    calls = []

    def broken(texts):
        calls.append(texts)
        raise OSError("no space left on device")

    settings.EMBEDDING_BACKEND, settings.EMBEDDING_QUERY_MODEL = "local", "onnx"
    monkeypatch.setattr(query_onnx, "embed_query_onnx", broken)
    monkeypatch.setattr(embeddings, "_onnx_retry_at", 0.0)
    assert embed_query("where do I live?") == embed_texts(["where do I live?"])[0]
    assert "ONNX query model is unavailable" in caplog.text
    embed_query("and where does Ben live?")
    assert len(calls) == 1  # not tried again on the next query …
    monkeypatch.setattr(embeddings, "_onnx_retry_at", 0.0)  # … but once the delay has passed
    embed_query("where does Anna live?")
    assert len(calls) == 2


def test_prepare_query_model_command_leaves_the_file_in_place():
    from io import StringIO

    from django.core.management import call_command

    out = StringIO()
    call_command("prepare_query_model", stdout=out)
    assert out.getvalue().startswith("query model: ") and query_model_path().exists()
    assert str(query_model_path()) in out.getvalue()
