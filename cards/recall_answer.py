"""What recall answers, as the service returns it (cards/retrieval.py): the scored cards, the facts that
have aged and the contradictions among what the caller can see; and how relevance is weighed."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field

# Relevance = ALPHA × similarity + (1 − ALPHA) × lexical; the k most relevant
# are returned, in the order of score = relevance × decay. Below FLOOR a card is
# not returned, and with none above it recall says there is no evidence. Both
# measured on the evaluation set (bench/README "retrieval_quality.py"): ALPHA
# 0.4 ranks best; no floor separated the questions nothing answers (precision
# ≤ 0.25 at any floor), so FLOOR keeps every candidate until one does.
ALPHA = 0.4
# Added to the relevance of a card about an entity the query names exactly (by
# its name, an alias, or a member's name): "what does Kai play?" is about Kai.
# Measured at 0, 0.05, 0.1 and 0.2: recall@10 0.900, 0.901, 0.900, 0.904.
NAMED_BOOST = 0.2


@dataclass
class Scored:
    card_id: int
    similarity: float
    decay: float
    days: float
    # The idf-weighted share of the query's words the card holds (cards/lexical.py).
    lexical: float = 0.0
    # The card is about (or relates to) an entity the query names.
    named: bool = False
    # The card has no stored vector yet: its similarity was computed in this request (unembedded.py).
    computed: bool = False

    @property
    def relevance(self) -> float:
        return ALPHA * self.similarity + (1 - ALPHA) * self.lexical + (NAMED_BOOST if self.named else 0.0)

    @property
    def score(self) -> float:
        return self.relevance * self.decay


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
    # Candidates without a stored vector: how many were scored on the fly, and whether more were left out.
    unembedded: dict = field(default_factory=lambda: {"scored": 0, "left_out": False})

    # The query asks for a person's attribute nothing records (see _UNANSWERED): nothing is returned.
    unanswered: bool = False
    # Scored from the scopes' snapshots in this process (recall_memory.py), not read from SQL.
    memory: bool = False

    @property
    def no_evidence(self) -> bool:
        """Nothing here is relevant enough to the query (FLOOR) to be returned, or nothing recorded answers it."""
        return not self.results
