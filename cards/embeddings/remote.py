"""An OpenAI-compatible embedding server: POST {EMBEDDING_URL}/v1/embeddings.
Standard library only, so the backend adds no dependency."""

from __future__ import annotations

import http.client
import json
import math
import urllib.error
import urllib.request

from . import EMBEDDING_DIMENSIONS, EmbeddingError, EmbeddingUnavailable, embedding_setting
from .spaces import http_model

# 429 and 5xx are the server's passing trouble; anything else won't fix itself on retry.
TRANSIENT_STATUS = {408, 425, 429, 500, 502, 503, 504}


def embeddings_url() -> str:
    base = str(embedding_setting("EMBEDDING_URL", "")).strip().rstrip("/")
    if not base:
        raise EmbeddingError("EMBEDDING_BACKEND=http needs EMBEDDING_URL (e.g. http://127.0.0.1:8080).")
    # Accept both "http://host:8080" and "http://host:8080/v1", as OpenAI clients do.
    return f"{base}/embeddings" if base.endswith("/v1") else f"{base}/v1/embeddings"


def embed_http(texts: list[str]) -> list[list[float]]:
    url = embeddings_url()
    model = http_model()
    headers = {"Content-Type": "application/json", "Accept": "application/json"}
    api_key = str(embedding_setting("EMBEDDING_API_KEY", ""))
    if api_key:
        headers["Authorization"] = f"Bearer {api_key}"
    request = urllib.request.Request(url, data=json.dumps({"model": model, "input": texts}).encode(),
                                     headers=headers, method="POST")
    timeout = float(embedding_setting("EMBEDDING_TIMEOUT", "30"))
    where = f"embedding server {url} (model {model!r})"
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            body = response.read()
    except urllib.error.HTTPError as error:
        detail = error.read()[:300].decode(errors="replace")
        kind = EmbeddingUnavailable if error.code in TRANSIENT_STATUS else EmbeddingError
        raise kind(f"{where} answered HTTP {error.code}: {detail}") from error
    except (urllib.error.URLError, http.client.HTTPException, TimeoutError, ConnectionError) as error:
        raise EmbeddingUnavailable(f"{where} could not be reached: {getattr(error, 'reason', error)}") from error
    return _vectors_from(body, count=len(texts), where=where)


def _vectors_from(body: bytes, *, count: int, where: str) -> list[list[float]]:
    try:
        data = json.loads(body)["data"]
        # The protocol allows any order; "index" says which input each vector belongs to.
        rows = sorted(data, key=lambda row: row["index"])
        vectors = [[float(x) for x in row["embedding"]] for row in rows]
    except (ValueError, KeyError, TypeError) as error:
        raise EmbeddingError(f"{where} answered something that is not an embeddings response: "
                             f"{body[:200]!r}") from error
    if len(vectors) != count or [row["index"] for row in rows] != list(range(count)):
        raise EmbeddingError(f"{where} returned {len(vectors)} vectors for {count} texts.")
    bad = next((len(v) for v in vectors if len(v) != EMBEDDING_DIMENSIONS), None)
    if bad is not None:
        raise EmbeddingError(f"{where} returned {bad}-dimensional vectors; cards store {EMBEDDING_DIMENSIONS} "
                             "(all-MiniLM-L6-v2). Serve a 384-dimensional model or change EMBEDDING_MODEL.")
    # Cosine search assumes unit vectors; servers differ on whether they normalise.
    return [_unit(v, where) for v in vectors]


def _unit(vector: list[float], where: str) -> list[float]:
    norm = math.sqrt(sum(x * x for x in vector))
    if not math.isfinite(norm) or norm == 0:
        raise EmbeddingError(f"{where} returned a zero or non-finite vector.")
    return [x / norm for x in vector]
