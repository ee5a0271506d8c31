"""Typed results. Each keeps the answer's JSON as `raw`, so a field the API adds
later is readable before this package names it."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Card:
    id: int
    scope: int
    kind: str
    tag: str
    subject: Any
    label: str
    value: str | None
    text: str
    raw: dict = field(repr=False)

    @classmethod
    def of(cls, raw: dict) -> Card:
        return cls(id=raw["id"], scope=raw["scope"], kind=raw["kind"], tag=raw.get("tag", "fact"),
                   subject=raw.get("subject"), label=raw.get("label", ""), value=raw.get("value"),
                   text=raw.get("text") or "", raw=raw)


@dataclass(frozen=True)
class Remembered:
    outcome: str  # inserted | superseded | reinforced | duplicate | proposed
    card: Card | None  # None when proposed: it waits in the person's review queue
    superseded: list[int]
    raw: dict = field(repr=False)

    @classmethod
    def of(cls, raw: dict) -> Remembered:
        return cls(outcome=raw["outcome"], card=Card.of(raw["card"]) if raw.get("card") else None,
                   superseded=raw.get("superseded") or [], raw=raw)


@dataclass(frozen=True)
class Scored:
    card: Card
    similarity: float
    lexical: float
    decay: float
    score: float

    @classmethod
    def of(cls, raw: dict) -> Scored:
        return cls(card=Card.of(raw["card"]), similarity=raw["similarity"], lexical=raw.get("lexical", 0.0),
                   decay=raw["decay"], score=raw["score"])


@dataclass(frozen=True)
class Recalled:
    results: list[Scored]
    no_evidence: bool
    aging_facts: list[Card]
    contradictions: list[dict]
    raw: dict = field(repr=False)

    @classmethod
    def of(cls, raw: dict) -> Recalled:
        return cls(results=[Scored.of(r) for r in raw["results"]], no_evidence=raw.get("no_evidence", False),
                   aging_facts=[Card.of(c) for c in raw.get("aging_facts") or []],
                   contradictions=raw.get("contradictions") or [], raw=raw)


@dataclass(frozen=True)
class Context:
    prompt: str
    cards: list[int]
    tokens: int
    raw: dict = field(repr=False)

    @classmethod
    def of(cls, raw: dict) -> Context:
        return cls(prompt=raw["prompt"], cards=raw.get("cards") or [], tokens=raw.get("tokens", 0), raw=raw)


@dataclass(frozen=True)
class ProfileItem:
    group: str  # style | constraint | boundary
    label: str
    value: str
    tier: str  # recorded (stated) | guessed (a hypothesis: never state it as fact)
    tag: str
    confidence: str | None  # high | medium | low, for a guess
    guidance: str  # the line the context block carries
    card: Card

    @classmethod
    def of(cls, raw: dict) -> ProfileItem:
        return cls(group=raw["group"], label=raw["label"], value=raw["value"], tier=raw["tier"], tag=raw["tag"],
                   confidence=raw.get("confidence"), guidance=raw.get("guidance", ""), card=Card.of(raw["card"]))


@dataclass(frozen=True)
class Profile:
    items: list[ProfileItem]
    raw: dict = field(repr=False)

    @classmethod
    def of(cls, raw: dict) -> Profile:
        return cls(items=[ProfileItem.of(item) for item in raw.get("items") or []], raw=raw)


@dataclass(frozen=True)
class Answer:
    answer: str
    tier: str  # recorded | derived | guessed | no_evidence
    values: list[str]
    evidence: list[Card]
    understood: dict
    raw: dict = field(repr=False)

    @classmethod
    def of(cls, raw: dict) -> Answer:
        return cls(answer=raw.get("answer", ""), tier=raw["tier"], values=raw.get("values") or [],
                   evidence=[Card.of(c) for c in raw.get("evidence") or []], understood=raw.get("understood") or {},
                   raw=raw)


@dataclass(frozen=True)
class Count:
    count: int
    undated: int
    at_least: int
    exact: bool
    cards: list[int]
    raw: dict = field(repr=False)

    @classmethod
    def of(cls, raw: dict) -> Count:
        return cls(count=raw["count"], undated=raw.get("undated", 0), at_least=raw.get("at_least", raw["count"]),
                   exact=raw.get("exact", True), cards=raw.get("cards") or [], raw=raw)


@dataclass(frozen=True)
class Scope:
    id: int
    name: str
    kind: str
    parent: int | None
    role: str | None
    raw: dict = field(repr=False)

    @classmethod
    def of(cls, raw: dict) -> Scope:
        return cls(id=raw["id"], name=raw["name"], kind=raw["kind"], parent=raw.get("parent"),
                   role=raw.get("role"), raw=raw)


@dataclass(frozen=True)
class Job:
    job: int
    status: str
    raw: dict = field(repr=False)

    @classmethod
    def of(cls, raw: dict) -> Job:
        return cls(job=raw["job"], status=raw.get("status", ""), raw=raw)
