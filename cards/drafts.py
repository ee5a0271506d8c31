"""What a caller asks to remember, built from a validated request (its time
expressions resolved) and checked before anything touches the database."""

from __future__ import annotations

import dataclasses
import datetime as dt
import math
import unicodedata
from dataclasses import dataclass, field
from typing import Any

from dateutil.relativedelta import relativedelta
from django.utils import timezone

from core.errors import DomainError
from core.instants import instant_problem
from scopes.principals import Principal

from .errors import InvalidCard
from .models import CardKind, Entity, Precision, Tag, TimeSource
from .text import names_in, text_in
from .time.when import anchor_zone, speaker_zone, when_resolve, zone_from_label, zone_label

MAX_VALUE = 2_000
MAX_TEXT = 10_000
MAX_REF = 200

# How long an event given at each precision lasts, from its start.
PRECISION_SPAN = {
    Precision.DAY: relativedelta(days=1),
    Precision.WEEK: relativedelta(weeks=1),
    Precision.MONTH: relativedelta(months=1),
    Precision.YEAR: relativedelta(years=1),
}


@dataclass
class CardDraft:
    """One card to remember. `subject` is "me", an Entity, or a name bound in the scope."""

    kind: str
    label: str
    subject: Entity | str
    value: str = ""
    object: Entity | str | None = None
    text: str = ""
    tag: str = Tag.FACT
    effective_at: dt.datetime | None = None
    reference_time: dt.datetime | None = None
    # The zone the draft's times are read in, as zone_label writes it (an IANA
    # name or a fixed ±HH:MM offset); None: the author's. A caller holding a
    # speaker's reference time sets it with anchor_zone.
    time_zone: str | None = None
    occurred_at: dt.datetime | None = None
    occurred_end: dt.datetime | None = None
    precision: str = ""
    time_source: str = ""
    source_session: str = ""
    source_token: Any = None  # the AgentToken that writes it, if an agent does
    source_message: str = ""
    source_quote: str = ""
    confidence: float | None = None
    impact: int = 2
    consent: bool = False
    perspectives: dict[str, str] = field(default_factory=dict)


def _check_text(errors: dict, name: str, value, limit: int) -> None:
    if not isinstance(value, str):
        errors.setdefault(name, []).append("must be text")
    elif "\x00" in value:
        errors.setdefault(name, []).append("must not contain NUL characters")
    elif len(value) > limit:
        errors.setdefault(name, []).append(f"must be at most {limit} characters")


def _check_time(errors: dict, name: str, value) -> None:
    if value is not None and not isinstance(value, dt.datetime):
        errors.setdefault(name, []).append("must be a datetime")
    elif value is not None and (problem := instant_problem(value)):
        errors.setdefault(name, []).append(problem)


def draft_text_in(draft: CardDraft) -> CardDraft:
    """The draft with its text as it is stored (cards.text): the names it gives
    (subject and object by name, the label) NFC, or refused with `invalid_text`
    naming each field that holds an invisible or direction-control character;
    value, text and quote NFC without bidi embedding, override or isolate
    controls; source references NFC. Perspectives: `perspectives_set`."""
    given = {name: getattr(draft, name) for name in ("subject", "object", "label")}
    names = names_in(**{name: value for name, value in given.items() if isinstance(value, str)})
    free = {name: text_in(getattr(draft, name)) for name in ("value", "text", "source_quote")
            if isinstance(getattr(draft, name), str)}
    references = {name: unicodedata.normalize("NFC", getattr(draft, name))
                  for name in ("source_session", "source_message") if isinstance(getattr(draft, name), str)}
    return dataclasses.replace(draft, **names, **free, **references)


def draft_validate(draft: CardDraft) -> None:
    """Single-draft rules; raises InvalidCard listing every problem at once."""
    errors: dict[str, list[str]] = {}
    if draft.kind not in CardKind.values:
        errors.setdefault("kind", []).append(f"must be one of {', '.join(CardKind.values)}")
    if draft.tag not in Tag.values:
        errors.setdefault("tag", []).append(f"must be one of {', '.join(Tag.values)}")
    for name, limit in (("value", MAX_VALUE), ("text", MAX_TEXT), ("source_quote", MAX_TEXT),
                        ("source_session", MAX_REF), ("source_message", MAX_REF), ("label", 64)):
        _check_text(errors, name, getattr(draft, name), limit)
    if isinstance(draft.subject, str):
        _check_text(errors, "subject", draft.subject, MAX_REF)
        if not draft.subject.strip():
            errors.setdefault("subject", []).append("must not be empty")
    if isinstance(draft.object, str):
        _check_text(errors, "object", draft.object, MAX_REF)
    for name in ("effective_at", "reference_time", "occurred_at", "occurred_end"):
        _check_time(errors, name, getattr(draft, name))
    has_value = isinstance(draft.value, str) and draft.value.strip()
    if draft.kind == CardKind.STATE and not has_value and draft.object in (None, ""):
        errors.setdefault("value", []).append("a state card needs a value or an object")
    if not has_value and draft.object in (None, "") and not (isinstance(draft.text, str) and draft.text.strip()):
        errors.setdefault("value", []).append("give a value, an object or a text")
    if isinstance(draft.impact, bool) or not isinstance(draft.impact, int) or not 1 <= draft.impact <= 3:
        errors.setdefault("impact", []).append("must be 1, 2 or 3")
    if draft.confidence is not None and (
            isinstance(draft.confidence, bool) or not isinstance(draft.confidence, (int, float))
            or not math.isfinite(draft.confidence) or not 0 <= draft.confidence <= 1):
        errors.setdefault("confidence", []).append("must be between 0 and 1")
    if draft.kind == CardKind.EVENT and draft.tag == Tag.HYPOTHESIS:
        errors.setdefault("tag", []).append("an event is recorded as it happened; a guess about one is a state "
                                            "or knowledge hypothesis")
    if draft.kind != CardKind.EVENT and (draft.occurred_at or draft.occurred_end or draft.precision):
        errors.setdefault("occurred_at", []).append("only events have an occurrence time; states take effective_at")
    if draft.precision and draft.precision not in Precision.values:
        errors.setdefault("precision", []).append(f"must be one of {', '.join(Precision.values)}")
    if draft.time_source and draft.time_source not in TimeSource.values:
        errors.setdefault("time_source", []).append(f"must be one of {', '.join(TimeSource.values)}")
    if draft.occurred_end is not None and draft.occurred_at is None:
        errors.setdefault("occurred_end", []).append("needs occurred_at")
    if draft.time_zone is not None:
        try:
            zone_from_label(draft.time_zone)
        except DomainError:
            errors.setdefault("time_zone", []).append("must be an IANA time zone name or an offset such as +08:00")
    if errors:
        raise InvalidCard("The card has invalid fields; see `fields`.", fields=errors)


@dataclass(frozen=True)
class Occurrence:
    """An event's resolved time: [start, end) at a precision, or undated (start None)."""

    start: dt.datetime | None
    end: dt.datetime | None
    precision: str
    source: str


def occurrence_from(draft: CardDraft, tz: dt.tzinfo) -> Occurrence:
    return occurrence_of(draft.occurred_at, draft.occurred_end, draft.precision, draft.time_source, tz)


def occurrence_of(occurred_at: dt.datetime | None, occurred_end: dt.datetime | None, precision: str, source: str,
                  tz: dt.tzinfo) -> Occurrence:
    """An event's time as stored: a new event's, and a corrected one's (services/event_correction.py)."""
    if occurred_at is None:
        return Occurrence(None, None, "", TimeSource.NONE)
    start = _aware(occurred_at, tz)
    precision = precision or Precision.DATETIME
    end = _aware(occurred_end, tz) if occurred_end else None
    if end is None and precision in PRECISION_SPAN:
        # Spans are counted in local calendar units, then stored in UTC.
        end = (start.astimezone(tz) + PRECISION_SPAN[precision]).astimezone(dt.timezone.utc)
    if end is not None and end <= start:
        raise InvalidCard("occurred_end must be after occurred_at.", fields={"occurred_end": ["must be after occurred_at"]})
    return Occurrence(start, end, precision, source or TimeSource.STATED)


def _aware(value: dt.datetime, tz: dt.tzinfo) -> dt.datetime:
    return value if timezone.is_aware(value) else value.replace(tzinfo=tz)


def reference_time_of(draft: CardDraft, tz: dt.tzinfo) -> dt.datetime:
    return _aware(draft.reference_time, tz) if draft.reference_time else timezone.now()


def aware(value: dt.datetime, tz: dt.tzinfo) -> dt.datetime:
    return _aware(value, tz)


def spoken_at(reference_time: dt.datetime | None, tz_name: str | None, *, user) -> tuple[dt.tzinfo, dt.datetime]:
    """The speaker's zone and the instant a request's `when` is read against: the
    reference as sent — its offset, if it has one, is the speaker's day; a naive one
    is a wall time in `tz` (else the person's zone) — or now."""
    tz = anchor_zone(reference_time, speaker_zone(user, tz_name))
    return tz, (_aware(reference_time, tz) if reference_time else timezone.now())


def draft_from_request(data: dict, *, principal: Principal) -> CardDraft:
    tz, reference = spoken_at(data["reference_time"], data["tz"], user=principal.user)
    source = data["source"] or {"session": "", "message": "", "quote": ""}
    draft = CardDraft(
        kind=data["kind"], label=data["label"], subject=data["subject"], value=data["value"],
        object=data["object"], text=data["text"], tag=data["tag"], reference_time=reference, time_zone=zone_label(tz),
        effective_at=data["effective_at"], source_session=source["session"], source_message=source["message"],
        source_quote=source["quote"], confidence=data["confidence"], impact=data["impact"],
        consent=data["consent"], perspectives=data["perspectives"],
        source_token=principal.token)
    if data["when"]:
        interval = when_resolve(data["when"], reference=reference, tz=tz)
        if data["kind"] == CardKind.EVENT:
            draft.occurred_at, draft.occurred_end = interval.start, interval.end
            draft.precision, draft.time_source = interval.precision, interval.source
        else:
            draft.effective_at = interval.start
    return draft
