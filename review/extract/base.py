"""The extraction interface: messages of one session in, proposed cards out.

An extractor only *proposes*: every `Proposal` becomes a review-queue
candidate (DESIGN §4 rule 6). Extractors are chosen by settings.EXTRACTOR
(`patterns`, the default, or `llm`) through `extractor_for()`.

Contract for every extractor:
- deterministic for `patterns`; no database writes; no network except the
  `llm` extractor's own endpoint;
- every proposal keeps the exact `quote` (a substring of the message text)
  and the `message_id` it came from;
- time: either `when` (an expression such as "last Saturday", resolved later
  against the message's `at`, in the day its offset says, by cards.time.when.when_resolve) or
  `occurred_at_hint` (an absolute ISO datetime from a model); never both. A
  model's hint that cannot be read sets `hint_unusable` instead: the message's
  timestamp is then the time, marked as coming from the message (DESIGN §5);
- labels are registered label keys or synonyms (cards.labels.label_resolve
  decides; an unknown label makes the candidate wait with that problem shown);
- `explicit` is True only for a user's own "remember that …" / 記住… statement.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import Protocol


@dataclass(frozen=True)
class Message:
    id: str  # the caller's message id, or "<session>:<index>" when none was given
    role: str  # "user" | "assistant" | "system"
    text: str
    at: dt.datetime  # aware: the message's timestamp (the reference time for `when`)


@dataclass
class Proposal:
    kind: str  # state | event | knowledge
    label: str
    subject: str  # "me", or a name
    quote: str
    message_id: str
    rule: str  # which pattern (or "llm") produced it
    value: str = ""
    object: str | None = None
    text: str = ""
    tag: str = "fact"  # fact | preference | goal | boundary | hypothesis
    when: str | None = None
    occurred_at_hint: dt.datetime | None = None
    hint_unusable: bool = False  # a hint was given but could not be read (not "no time said")
    confidence: float | None = None
    impact: int = 2
    explicit: bool = False


@dataclass(frozen=True)
class Dropped:
    """Content the ingest policy refused to keep, with the rule that refused it.
    The text itself is not kept: raw conversation is never memory."""

    message_id: str
    rule: str  # e.g. "transient_feeling", "one_off_frustration", "speculative_motive", "secret"


@dataclass
class Extraction:
    proposals: list[Proposal] = field(default_factory=list)
    dropped: list[Dropped] = field(default_factory=list)


@dataclass(frozen=True)
class ExtractContext:
    """What an extractor may know about where the messages go."""

    known_labels: list[str]  # registered label keys
    known_entities: list[str]  # entity names visible in the scope
    time_zone: str  # the user's IANA zone


class Extractor(Protocol):
    name: str

    def extract(self, messages: list[Message], context: ExtractContext) -> Extraction: ...


class ExtractionFailed(RuntimeError):
    """The extractor could not produce a valid result (after its retry): the job fails visibly."""
