"""Reviewers decide on candidates: approve (as is or edited), or reject with a
reason. Approval writes through card_remember, so every card rule applies."""

from __future__ import annotations

import datetime as dt

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from cards.drafts import CardDraft
from cards.errors import InvalidCard, NeedsConsent
from cards.models import Card, CardKind, TimeSource
from cards.screen import content_finding
from cards.services import card_remember
from cards.services.long_term import card_promote, long_term_problem
from cards.time.when import Interval, person_zone, when_resolve, zone_from_label
from core.errors import DomainError
from scopes.models import User

from ..models import Candidate, CandidateStatus, Decision

# `when` is the candidate's time expression: an edit of it is read again, as ingest read it (candidate_when_resolve).
EDITABLE = ("kind", "label", "subject", "value", "object", "text", "tag", "confidence", "impact", "when")
OPEN = (CandidateStatus.PENDING, CandidateStatus.NEEDS_CONSENT)


class NotOpen(DomainError):
    code = "already_decided"
    status = 409


def candidate_draft(candidate: Candidate, *, consent: bool = False) -> CardDraft:
    return CardDraft(
        kind=candidate.kind, label=candidate.label, subject=candidate.subject, value=candidate.value,
        object=candidate.object or None, text=candidate.text, tag=candidate.tag,
        effective_at=candidate.effective_at, reference_time=candidate.message_at,
        time_zone=candidate.anchor_zone or None, occurred_at=candidate.occurred_at,
        occurred_end=candidate.occurred_end, precision=candidate.precision, time_source=candidate.time_source,
        source_session=candidate.session, source_message=candidate.message, source_quote=candidate.quote,
        confidence=candidate.confidence, impact=candidate.impact, consent=consent,
        perspectives=dict(candidate.perspectives or {}),
        # A propose-only agent's proposal stays its agent's card once a person approves it.
        source_token=candidate.proposed_by if candidate.proposed_by_id else None)


def candidate_screen(candidate: Candidate, *, label_sensitive: bool = False) -> str | None:
    """The write screen at a candidate's creation (cards/screen): the never-store
    rule that excludes it, if any (the caller drops it); else a sensitive one —
    by its label or its words — waits for the person's consent."""
    found = content_finding({"value": candidate.value, "text": candidate.text, "source.quote": candidate.quote,
                             "object": candidate.object})
    if found is not None and found.rule:
        return found.rule
    if label_sensitive or found is not None:
        candidate.status = CandidateStatus.NEEDS_CONSENT
    return None


def candidate_zone(candidate: Candidate) -> dt.tzinfo:
    """The speaker's day the candidate's words are read in (DESIGN §5): the zone its
    message anchored in at ingest (or its agent's draft named), else its person's."""
    return zone_from_label(candidate.anchor_zone) if candidate.anchor_zone else person_zone(candidate.author)


def candidate_when_resolve(candidate: Candidate, when: str) -> Interval | None:
    """`when` read as the candidate's own words were: against its message's time, in
    the speaker's day. None when it gives no time; UnresolvableTime when it cannot be read."""
    if not when.strip():
        return None
    tz = candidate_zone(candidate)
    return when_resolve(when, reference=candidate.message_at.astimezone(tz), tz=tz)


def candidate_place(candidate: Candidate, *, start: dt.datetime | None, end: dt.datetime | None = None,
                    precision: str = "", source: str = "") -> None:
    """Where a candidate sits in time, at ingest and when a reviewer's `when` is read
    again: an event occurs over [start, end] (undated without a start); a state or
    knowledge takes effect at start (none: at the message's time, as the write path
    reads no effective_at). The other kind's fields are cleared: a candidate edited
    from an event to a state keeps no occurrence time, nor the reverse."""
    if candidate.kind == CardKind.EVENT:
        candidate.occurred_at, candidate.occurred_end = start, end
        candidate.precision, candidate.time_source = precision, source or TimeSource.NONE
        candidate.effective_at = None
    else:
        candidate.effective_at = start
        candidate.occurred_at = candidate.occurred_end = None
        candidate.precision = candidate.time_source = ""


def _when_place(candidate: Candidate, interval: Interval | None) -> None:
    if interval is None:
        candidate_place(candidate, start=None)
    else:
        candidate_place(candidate, start=interval.start, end=interval.end, precision=interval.precision,
                        source=interval.source)


def _locked_open(candidate: Candidate) -> Candidate:
    # By (id, scope_id): one shard on a cluster, as a locking read must be. Only the candidate's row is
    # locked: its author and scope (replicated tables) are read with it, and locking the scope's row would
    # hold every other write in the scope until this decision commits.
    candidate = (Candidate.objects.select_for_update(of=("self",)).select_related("author", "scope")
                 .get(pk=candidate.pk, scope_id=candidate.scope_id))
    if candidate.status not in OPEN:
        raise NotOpen(_("Candidate %(id)s was already decided (%(status)s).")
                      % {"id": candidate.pk, "status": _(candidate.status)})
    return candidate


@transaction.atomic
def candidate_approve(*, candidate: Candidate, reviewer: User, edits: dict | None = None, consent: bool = False,
                      reason: str = "") -> Card:
    """Store the candidate as a card (the author's, with the quote as source),
    through the write path and so through its screen: never-stored content is
    refused, and a sensitive one — held for consent at ingest, or made sensitive
    by the edits — needs `consent`: the reviewer attests the person gave it. An
    edited `when` is read again against the message (UnresolvableTime if it cannot be)."""
    candidate = _locked_open(candidate)
    edits = {name: value for name, value in (edits or {}).items() if name in EDITABLE}
    kind = candidate.kind
    for name, value in edits.items():
        setattr(candidate, name, value if value is not None or name in ("confidence",) else "")
    if "when" in edits or candidate.kind != kind:  # its time, read again for what it now is
        _when_place(candidate, candidate_when_resolve(candidate, candidate.when))
    if candidate.status == CandidateStatus.NEEDS_CONSENT and not consent:
        raise NeedsConsent(_("This is a sensitive attribute: approve it only with the person's explicit consent "
                             "(consent: true)."), rule="sensitive_attribute",
                           fields={"consent": [_("required for a sensitive attribute")]})
    result = card_remember(scope=candidate.scope, actor=candidate.author,
                           draft=candidate_draft(candidate, consent=consent))
    promoted = _promote_approved(candidate, result.card, reviewer)
    candidate.status, candidate.card, candidate.problem = CandidateStatus.APPROVED, result.card, ""
    candidate.decided_by, candidate.decided_at, candidate.reason = reviewer, timezone.now(), reason[:300]
    candidate.save()
    Decision.objects.create(scope=candidate.scope, reviewer=reviewer, item="candidate", item_id=candidate.pk,
                            action="edit_approve" if edits else "approve", reason=reason[:300],
                            detail={"card": result.card.pk, "outcome": result.outcome, "edits": sorted(edits),
                                    "long_term": promoted})
    return result.card


def _promote_approved(candidate: Candidate, card: Card, reviewer: User) -> bool:
    """A candidate proposed for long-term memory (ingest's long_term reason) that a
    person approves is a person approving its promotion: its card becomes long-term.
    Not what cannot be long-term (cards.services.long_term.long_term_problem)."""
    if not candidate.long_term or long_term_problem(card) is not None:
        return False
    card_promote(card=card, actor=reviewer, reason=f"approved as proposed for long-term: {candidate.long_term}")
    return True


@transaction.atomic
def candidate_reject(*, candidate: Candidate, reviewer: User, reason: str) -> Candidate:
    if not reason.strip():
        raise InvalidCard(_("Say why it is rejected."), fields={"reason": [_("required")]})
    candidate = _locked_open(candidate)
    candidate.status, candidate.decided_by = CandidateStatus.REJECTED, reviewer
    candidate.decided_at, candidate.reason = timezone.now(), reason[:300]
    candidate.save(update_fields=["status", "decided_by", "decided_at", "reason"])
    Decision.objects.create(scope=candidate.scope, reviewer=reviewer, item="candidate", item_id=candidate.pk,
                            action="reject", reason=reason[:300])
    return candidate
