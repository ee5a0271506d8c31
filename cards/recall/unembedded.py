"""Recall of cards that have no vector yet (DESIGN §6: no card is out of reach).

A card's vector is computed after its write commits (services/embedding.py).
A process killed in between, an embedder outage or EMBED_ON_WRITE off leaves
it NULL until the sweep (tasks.cards_embed_sweep, every few minutes) fills it.
Meanwhile recall scores the freshest UNEMBEDDED_LIMIT such candidates exactly:
each is embedded inside the request by the same model whose vectors the sweep
will store (embed_cards_in_request), so its similarity, decay and score are the
numbers it will have once stored — a true place in the ranking, not a lexical
stand-in on another scale. Such results say `vector: "computed"`, and the
answer's `unembedded` says how many were scored and whether more were left out
of that: those are scored by their words until the sweep has run
(score.by_words_sql). While `manage.py reembed` runs, no card is embedded in a request
(cards/embeddings/reembedding.py): every card without a vector is scored by its words.

What it costs (bench/README "unembedded.py"): with none, one probe of the
partial index card_unembedded (inside the exact route's one statement; its own
small statement on the index route); with a few, one more statement and one
batch through the query model, and nothing on the next recall of the same
cards (their vectors are kept per process, by text, until the sweep stores them).
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass

from ..embeddings import embed_cards_in_request, embedding_text
from .score import DAYS_SQL, decay_sql

# What one request embeds at most: 32 cold cost ~340 ms on a busy 2-core machine,
# 5 ~15 ms (bench/README "unembedded.py"); past that the sweep, not the request,
# should do the work.
UNEMBEDDED_LIMIT = 16
_CACHE_SIZE = 1_024


def vector_of(text: str):
    """A vector written as pgvector text (query.query_vector) as a numpy array: float32, as pgvector
    stores both sides, widened to float64, in which its <=> computes cosine."""
    import numpy as np  # with the embedding model's own dependencies, never at import

    return np.array(text[1:-1].split(","), dtype=np.float32).astype(np.float64)


def unembedded_sql(valid: str) -> str:
    """The ids of the freshest candidates without a vector, at most
    UNEMBEDDED_LIMIT + 1 (so the caller knows when some were left out). Kept
    this small on purpose: when there are none, this is all recall pays."""
    return (f"SELECT c.id FROM cards_card c WHERE {valid} AND c.embedding IS NULL"
            f" ORDER BY c.verified_at DESC, c.id DESC LIMIT {UNEMBEDDED_LIMIT + 1}")


def computed_sql(waiting: str) -> str:
    """Of `waiting` (an int8[] expression: unembedded_sql's ids, in its order), those the request embeds:
    the first UNEMBEDDED_LIMIT, none while a reembed runs (%(embed_in_request)s false)."""
    return f"(CASE WHEN %(embed_in_request)s THEN ({waiting})[1:{UNEMBEDDED_LIMIT}] END)"


def unembedded_rows_sql() -> str:
    """For the ids unembedded_sql found (%(unembedded)s, among %(read_scopes)s): what
    their embedding text and decay are made of — id, label key, value, object's
    name, text, Δt, e^(−λ·Δt) (score.py) — freshest first."""
    return (f"SELECT c.id, l.key, c.value, o.name, c.text, {DAYS_SQL}, {decay_sql('l.decay_lambda', DAYS_SQL)}"
            " FROM cards_card c JOIN cards_label l ON l.id = c.label_id"
            " LEFT JOIN cards_entity o ON o.id = c.object_id"
            " WHERE c.scope_id = ANY(%(read_scopes)s) AND c.id = ANY(%(unembedded)s)"
            " ORDER BY c.verified_at DESC, c.id DESC")


@dataclass
class Unembedded:
    """Scored candidates without a stored vector: (id, similarity, decay, days) each,
    and whether more were waiting than were scored."""

    scored: list[tuple[int, float, float, float]]
    left_out: bool

    def summary(self) -> dict:
        return {"scored": len(self.scored), "left_out": self.left_out}


def unembedded_score(cursor, ids: list[int], params: dict) -> Unembedded:
    """Score the candidates unembedded_sql found against the query (params["q"],
    pgvector text) by cosine, as recall scores a stored vector; none while a reembed runs."""
    if not params["embed_in_request"]:
        return Unembedded(scored=[], left_out=bool(ids))
    left_out = len(ids) > UNEMBEDDED_LIMIT
    if not ids:
        return Unembedded(scored=[], left_out=False)
    cursor.execute(unembedded_rows_sql(), {**params, "unembedded": list(ids[:UNEMBEDDED_LIMIT])})
    rows = cursor.fetchall()
    import numpy as np  # with the embedding model's own dependencies, never at import

    query = vector_of(params["q"])
    vectors = np.array(_vectors([embedding_text(label_key=key, value=value, object_name=obj, text=text)
                                 for _, key, value, obj, text, _, _ in rows], params["space"]),
                       dtype=np.float32).astype(np.float64)
    norms = np.linalg.norm(vectors, axis=1) * np.linalg.norm(query)
    similarity = (vectors @ query) / np.where(norms > 0, norms, 1.0)
    scored = [(row[0], float(sim), float(row[6]), float(row[5])) for row, sim in zip(rows, similarity)]
    return Unembedded(scored=scored, left_out=left_out)


# Vectors computed here, by space and embedding text: an agent recalls every turn, and the
# same waiting cards would otherwise be embedded again each time until the sweep.
_cache: OrderedDict[tuple[str, str], list[float]] = OrderedDict()
_lock = threading.Lock()


def _vectors(texts: list[str], space: str) -> list[list[float]]:
    with _lock:
        known = {text: _cache[(space, text)] for text in texts if (space, text) in _cache}
        for text in known:
            _cache.move_to_end((space, text))
    missing = list(dict.fromkeys(text for text in texts if text not in known))
    if missing:
        fresh = dict(zip(missing, embed_cards_in_request(missing)))
        known.update(fresh)
        with _lock:
            _cache.update(((space, text), vector) for text, vector in fresh.items())
            while len(_cache) > _CACHE_SIZE:
                _cache.popitem(last=False)
    return [known[text] for text in texts]


def vectors_forget() -> None:
    """Forget the vectors computed here: the next read embeds its unembedded candidates again (what a
    cold process pays; bench/unembedded.py times it)."""
    with _lock:
        _cache.clear()
