"""Recall's query embedder: the card model as a fused ONNX file
(onnx_export.py), run by ONNX Runtime.

A query is embedded on every recall, one short text at a time, inside the
request; sentence-transformers takes ~9 ms for that here, this ~2.5-4 ms
(bench/README "recall.py"). Same weights (fp32), same tokenizer (the model
package's own tokenizer.json), same truncation (256 tokens,
sentence-transformers' max_seq_length for this model), same pooling (mean over
real tokens) and unit length: its vectors equal the card model's
(tests/cards/test_embedding_query_onnx.py)."""

from __future__ import annotations

import os
import threading
from typing import Any

MAX_TOKENS = 256

_session: Any = None
_tokenizer: Any = None
_lock = threading.Lock()


def _load() -> tuple[Any, Any]:
    global _session, _tokenizer
    if _session is None:
        with _lock:
            if _session is None:
                import onnxruntime

                from . import model_tokenizer
                from .onnx_export import query_model_path

                tokenizer = model_tokenizer()
                tokenizer.enable_truncation(MAX_TOKENS)
                tokenizer.enable_padding(pad_id=0, pad_token="[PAD]")  # to the batch's longest, never to 256
                options = onnxruntime.SessionOptions()
                # Two threads that sleep when idle: through HTTP at 100k cards, one
                # client, p95 12.7 ms against 14.1 with one thread; with two clients
                # one thread does better (p95 14.3 against 19.3, +17 % requests/s),
                # hence EMBEDDING_QUERY_THREADS=1 for busy servers. Spinning threads
                # (waiting for work by burning a core) were slowest beside PostgreSQL,
                # the client and the other worker (bench/README "recall.py").
                threads = int(os.environ.get("EMBEDDING_QUERY_THREADS", str(min(2, os.cpu_count() or 1))))
                options.intra_op_num_threads = threads
                options.inter_op_num_threads = 1
                spin = os.environ.get("EMBEDDING_QUERY_SPIN", "0")
                options.add_session_config_entry("session.intra_op.allow_spinning", spin)
                # Spinning, if asked for, ends with each run: no core burns between requests.
                options.add_session_config_entry("session.force_spinning_stop", spin)
                _tokenizer = tokenizer
                _session = onnxruntime.InferenceSession(str(query_model_path()), options,
                                                        providers=["CPUExecutionProvider"])
    return _session, _tokenizer


def embed_query_onnx(texts: list[str]) -> list[list[float]]:
    import numpy as np

    session, tokenizer = _load()
    encoded = tokenizer.encode_batch(texts)
    ids = np.array([e.ids for e in encoded], dtype=np.int64)
    mask = np.array([e.attention_mask for e in encoded], dtype=np.int64)
    hidden = session.run(None, {"input_ids": ids, "attention_mask": mask, "token_type_ids": np.zeros_like(ids)})[0]
    weights = mask[..., None].astype(hidden.dtype)
    pooled = (hidden * weights).sum(axis=1) / np.maximum(weights.sum(axis=1), 1e-9)
    pooled /= np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12)
    return pooled.tolist()
