"""What recall answers, as the service returns it (cards/recall/routes.py): the scored cards, the facts that
have aged and the contradictions among what the caller can see. How each number is weighed: score.py."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field

from . import score


@dataclass
class Scored:
    card_id: int
    similarity: float
    decay: float
    days: float
    # The idf-weighted share of the query's words the card holds (lexical.py).
    lexical: float = 0.0
    # The card is about (or relates to) an entity the query names.
    named: bool = False
    # The card has no stored vector yet: its similarity was computed in this request (unembedded.py).
    computed: bool = False
    # The card has no vector of the read's space (one of another model, not yet moved by a reembed; or none,
    # and the request embeds no more): scored by its words, its similarity the space's `unrelated`.
    by_words: bool = False

    @property
    def relevance(self) -> float:
        return score.relevance(self.similarity, self.lexical, self.named)

    @property
    def score(self) -> float:
        return score.final(self.relevance, self.decay)


@dataclass
class Aging:
    card_id: int
    days: float
    # When the caller said they asked about it as it stands; `askable`: it may be
    # put to them now (never asked, and not a sensitive attribute).
    asked_at: dt.datetime | None = None
    askable: bool = True


@dataclass
class Contradiction:
    subject_id: int
    label_id: int
    card_ids: list[int]
    # Its question is recorded on its newest card: a new value on either side is
    # a newer card, and brings the question back.
    question_card_id: int = 0
    asked_at: dt.datetime | None = None
    askable: bool = True


@dataclass
class Recall:
    at: dt.datetime
    route: str
    results: list[Scored] = field(default_factory=list)
    aging: list[Aging] = field(default_factory=list)
    contradictions: list[Contradiction] = field(default_factory=list)
    # How many of each may be asked in all, beyond the ones listed too.
    aging_askable: int = 0
    contradictions_askable: int = 0
    # Candidates without a stored vector: how many were scored on the fly, and whether more were left out of
    # that (those are scored by their words).
    unembedded: dict = field(default_factory=lambda: {"scored": 0, "left_out": False})

    # The query asks for a person's attribute nothing records (query.UNANSWERED_SQL): nothing is returned.
    unanswered: bool = False
    # Scored from the scopes' snapshots in this process (snapshots.py, memory.py), not read from SQL.
    memory: bool = False

    @property
    def no_evidence(self) -> bool:
        """Nothing here is relevant enough to the query (the space's floor) to be returned, or nothing
        recorded answers it."""
        return not self.results
