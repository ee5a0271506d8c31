"""Why the upkeep job proposes something, in words people read: its rule, the names
the binding rule matched, and the dates of its evidence in the reader's zone and
language (core/dates.py) — never an ISO instant. Stored proposals hold only the rule
and the dates; the words are made when shown."""

from __future__ import annotations

from django.conf import settings
from django.utils.translation import gettext as _, ngettext

from core.dates import date_shown
from cards.recall.aging import AGING_DAYS
from scopes.zones import person_zone

from ..models import UpkeepProposal


def _days(instants, *, viewer) -> list[str]:
    zone, language = person_zone(viewer), getattr(viewer, "language", None)
    return [date_shown(at, zone=zone, language=language) for at in instants]


def upkeep_why(proposal: UpkeepProposal, *, viewer, names: dict[int, str]) -> str:
    """`names`: the subject's name of the proposal's cards, by card id (for merges)."""
    days = _days(proposal.evidence_at, viewer=viewer)
    card_name, other_name = names.get(proposal.card_id, ""), names.get(proposal.other_id, "")
    first = {"day": days[0]} if days else {}
    if proposal.why == "sessions":
        return ngettext("seen in %(n)d session: %(days)s", "seen in %(n)d sessions: %(days)s", len(days)) % {
            "n": len(days), "days": "; ".join(days)}
    if proposal.why == "impact":
        return _("impact 3 (recorded %(day)s)") % first if days else _("impact 3")
    if proposal.why == "contradicted":
        return _("a later card says otherwise (stated %(day)s)") % first if days else _("a later card says otherwise")
    if proposal.why == "stale":
        return (_("not confirmed since %(day)s (%(n)d+ days)") % {**first, "n": AGING_DAYS} if days
                else _("not confirmed in a long time"))
    if proposal.why == "idle":
        return (_("nobody has read or written here since %(day)s (%(n)d+ days)")
                % {**first, "n": settings.UPKEEP_ARCHIVE_IDLE_DAYS}
                if days else _("nobody has read or written here in a long time"))
    if proposal.why == "replaced":
        return (_("someone said it was dropped for something else (stated %(day)s)") % first if days
                else _("someone said it was dropped for something else"))
    names_said = {"card": card_name, "other": other_name, "days": _(" and ").join(days)}
    # One sentence per case, the dates in it or not: word order differs between languages.
    if proposal.why == "same_name":
        return (_("the same knowledge about “%(card)s”, by the same name (stated %(days)s)") if days
                else _("the same knowledge about “%(card)s”, by the same name")) % names_said
    if proposal.why == "merged":
        return (_("the same knowledge about “%(card)s” and “%(other)s”: one name was merged into the other "
                  "(stated %(days)s)") if days
                else _("the same knowledge about “%(card)s” and “%(other)s”: one name was merged into the other")
                ) % names_said
    if proposal.why == "alias":
        return (_("the same knowledge about “%(card)s” and “%(other)s”: one is a registered alias of the other "
                  "(stated %(days)s)") if days
                else _("the same knowledge about “%(card)s” and “%(other)s”: one is a registered alias of the other")
                ) % names_said
    return proposal.why
