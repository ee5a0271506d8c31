"""Why the upkeep job proposes something, in words people read: its rule, the names
the binding rule matched, and the dates of its evidence in the reader's zone and
language (core/dates.py) — never an ISO instant. Stored proposals hold only the rule
and the dates; the words are made when shown."""

from __future__ import annotations

from django.conf import settings

from core.dates import date_shown
from cards.retrieval import AGING_DAYS
from scopes.zones import person_zone

from ..models import UpkeepProposal


def _days(instants, *, viewer) -> list[str]:
    zone, language = person_zone(viewer), getattr(viewer, "language", None)
    return [date_shown(at, zone=zone, language=language) for at in instants]


def upkeep_why(proposal: UpkeepProposal, *, viewer, names: dict[int, str]) -> str:
    """`names`: the subject's name of the proposal's cards, by card id (for merges)."""
    days = _days(proposal.evidence_at, viewer=viewer)
    card_name, other_name = names.get(proposal.card_id, ""), names.get(proposal.other_id, "")
    if proposal.why == "sessions":
        return f"seen in {len(days)} sessions: " + "; ".join(days)
    if proposal.why == "impact":
        return f"impact 3 (recorded {days[0]})" if days else "impact 3"
    if proposal.why == "contradicted":
        return f"a later card says otherwise (stated {days[0]})" if days else "a later card says otherwise"
    if proposal.why == "stale":
        return f"not confirmed since {days[0]} ({AGING_DAYS}+ days)" if days else "not confirmed in a long time"
    if proposal.why == "idle":
        return (f"nobody has read or written here since {days[0]} ({settings.UPKEEP_ARCHIVE_IDLE_DAYS}+ days)"
                if days else "nobody has read or written here in a long time")
    if proposal.why == "replaced":
        return f"someone said it was dropped for something else (stated {days[0]})" if days else \
            "someone said it was dropped for something else"
    seen = f" (stated {' and '.join(days)})" if days else ""
    both = f"the same knowledge about “{card_name}” and “{other_name}”"
    if proposal.why == "same_name":
        return f"the same knowledge about “{card_name}”, by the same name{seen}"
    if proposal.why == "merged":
        return f"{both}: one name was merged into the other{seen}"
    if proposal.why == "alias":
        return f"{both}: one is a registered alias of the other{seen}"
    return proposal.why
