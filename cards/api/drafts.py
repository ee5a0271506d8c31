"""From a validated remember request to a CardDraft: time resolution happens here."""

from __future__ import annotations

import zoneinfo

from django.utils import timezone

from scopes.principals import Principal

from ..drafts import CardDraft
from ..errors import InvalidCard
from ..models import CardKind
from ..when import Interval, when_resolve


def _zone(tz_name: str) -> zoneinfo.ZoneInfo:
    try:
        return zoneinfo.ZoneInfo(tz_name)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        raise InvalidCard("Unknown time zone.", fields={"tz": ["must be an IANA time zone name"]}) from None


def when_interval(expression: str, *, tz_name: str | None, user) -> Interval:
    """A query's `when`, resolved now in the caller's zone (DESIGN §5: both ends share one clock)."""
    return when_resolve(expression, reference=timezone.now(), tz=_zone(tz_name or user.time_zone or "UTC"))


def draft_from_request(data: dict, *, principal: Principal) -> CardDraft:
    tz_name = data["tz"] or principal.user.time_zone or "UTC"
    tz = _zone(tz_name)
    reference = data["reference_time"] or timezone.now()
    source = data["source"] or {"session": "", "message": "", "quote": ""}
    draft = CardDraft(
        kind=data["kind"], label=data["label"], subject=data["subject"], value=data["value"],
        object=data["object"], text=data["text"], tag=data["tag"], reference_time=reference, time_zone=tz_name,
        effective_at=data["effective_at"], source_session=source["session"], source_message=source["message"],
        source_quote=source["quote"], confidence=data["confidence"], impact=data["impact"],
        consent=data["consent"], perspectives=data["perspectives"])
    if data["when"]:
        interval = when_resolve(data["when"], reference=reference, tz=tz)
        if data["kind"] == CardKind.EVENT:
            draft.occurred_at, draft.occurred_end = interval.start, interval.end
            draft.precision, draft.time_source = interval.precision, interval.source
        else:
            draft.effective_at = interval.start
    return draft
