"""The weekly upkeep job's writes (DESIGN §10): a run keeps its counts and puts what it
found in the review queue as proposals — never into the fact store — and a proposal
a person approves is applied through the store's own service (promote, demote,
knowledge merge). Nothing else here writes a card."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field

from django.db import transaction
from django.db.models import Exists, OuterRef
from django.utils import timezone
from django.utils.translation import gettext as _

from cards.models import Card
from cards.services import knowledge_merge
from cards.services.long_term import card_demote, card_promote
from core.errors import DomainError
from scopes.archive import scope_archive
from scopes.models import Scope, ScopeKind, User
from scopes.principals import Principal

from ..models import Decision, UpkeepKind, UpkeepProposal, UpkeepRun, UpkeepStatus
from ..upkeep.find import Found, upkeep_found
from .queue import AlreadyDecided


class UpkeepOutdated(DomainError):
    """What the proposal was about changed since it was proposed: the next run looks again."""

    code = "upkeep_outdated"
    status = 409


@dataclass
class UpkeepSummary:
    """What a run found: counts to keep, and (for a dry run's report) what it would propose."""

    scope_id: int
    at: dt.datetime
    dry_run: bool
    proposed: list[Found] = field(default_factory=list)
    already_waiting: int = 0

    def count(self, kind: str) -> int:
        return sum(1 for f in self.proposed if f.kind == kind)


def upkeep_run(scope: Scope, *, now: dt.datetime | None = None, dry_run: bool = False) -> UpkeepSummary:
    """Look over `scope` as of `now` and propose what a careful person would tidy. A proposal
    still waiting is not made twice, nor one a person rejected when nothing was said of its
    card since. A dry run writes nothing; a run keeps its counts (UpkeepRun), never content."""
    now = now or timezone.now()
    found = upkeep_found(scope, now=now)
    rows = UpkeepProposal.objects.in_scopes([scope.pk])
    waiting = set(rows.filter(status=UpkeepStatus.OPEN).values_list("kind", "card_id", "other_id"))
    # Rejected, and the card not stated again since: the person's word stands.
    # The card is read in the proposal's own scope (it lives there): on a cluster, on the same shard.
    unsaid = Card.objects.filter(pk=OuterRef("card_id"), scope_id=OuterRef("scope_id"),
                                 verified_at__lte=OuterRef("decided_at"))
    declined = set(rows.filter(Exists(unsaid), status=UpkeepStatus.REJECTED)
                   .values_list("kind", "card_id", "other_id"))
    summary = UpkeepSummary(scope_id=scope.pk, at=now, dry_run=dry_run,
                            proposed=[f for f in found if f.key not in waiting and f.key not in declined],
                            already_waiting=sum(1 for f in found if f.key in waiting))
    if dry_run:
        return summary
    with transaction.atomic():
        run = UpkeepRun.objects.create(scope=scope, at=now, promotions=summary.count(UpkeepKind.PROMOTE),
                                       demotions=summary.count(UpkeepKind.DEMOTE),
                                       merges=summary.count(UpkeepKind.MERGE),
                                       archives=summary.count(UpkeepKind.ARCHIVE),
                                       already_waiting=summary.already_waiting)
        # A run beside this one (a beat and a command at once) proposed the same: the unique index keeps one.
        UpkeepProposal.objects.bulk_create(
            [UpkeepProposal(scope=scope, kind=f.kind, card_id=f.card_id, other_id=f.other_id, why=f.why,
                            evidence_at=f.evidence_at, run=run) for f in summary.proposed],
            ignore_conflicts=True)
    return summary


def upkeep_scopes_run(*, now: dt.datetime | None = None) -> int:
    """The weekly beat: one run per scope, each in its own transaction (global is tended by its reviewers)."""
    count = 0
    # An archived project is not tidied (upkeep_found): not even looked at.
    for scope in Scope.objects.exclude(kind=ScopeKind.GLOBAL).filter(archived_at__isnull=True).order_by("id"):
        upkeep_run(scope, now=now)
        count += 1
    return count


@transaction.atomic
def upkeep_decide(*, proposal: UpkeepProposal, reviewer: User, approve: bool, reason: str = "") -> UpkeepProposal:
    """A reviewer's decision on a proposal, logged like every review decision (who, when, why).
    Approving applies it through the store's service; rejecting writes nothing but the decision."""
    locked = UpkeepProposal.objects.select_for_update().filter(pk=proposal.pk, scope_id=proposal.scope_id).first()
    if locked is None:  # its card was forgotten meanwhile, and the proposal with it
        raise UpkeepOutdated(_("What this proposal was about was forgotten meanwhile; nothing to decide."))
    proposal = locked
    if proposal.status != UpkeepStatus.OPEN:
        raise AlreadyDecided(_("This proposal was already decided (%(status)s).") % {"status": _(proposal.status)})
    if approve:
        _apply(proposal, reviewer, reason)
    proposal.status = UpkeepStatus.APPROVED if approve else UpkeepStatus.REJECTED
    proposal.decided_by, proposal.decided_at, proposal.reason = reviewer, timezone.now(), reason[:300]
    proposal.save(update_fields=["status", "decided_by", "decided_at", "reason"])
    Decision.objects.create(scope_id=proposal.scope_id, reviewer=reviewer, item="upkeep", item_id=proposal.pk,
                            action="approve" if approve else "reject", reason=reason[:300],
                            detail={"kind": proposal.kind, "why": proposal.why, "card": proposal.card_id,
                                    "other": proposal.other_id})
    return proposal


def _apply(proposal: UpkeepProposal, reviewer: User, reason: str) -> None:
    if proposal.kind == UpkeepKind.ARCHIVE:  # by an owner only, as archiving by hand (scopes.archive)
        scope_archive(principal=Principal(user=reviewer), scope=proposal.scope)
        return
    card = Card.objects.select_related("label").get(pk=proposal.card_id)
    if card.superseded_at is not None:
        raise UpkeepOutdated(_("This card is no longer current; the next upkeep run looks again."))
    said = f"upkeep ({proposal.why})" + (f": {reason}" if reason else "")
    if proposal.kind == UpkeepKind.PROMOTE:
        card_promote(card=card, actor=reviewer, reason=said)
    elif proposal.kind == UpkeepKind.DEMOTE:
        if proposal.why == "stale" and card.verified_at > proposal.created_at:
            raise UpkeepOutdated(_("This card was confirmed since it was proposed as stale; it stays long-term."))
        card_demote(card=card, actor=reviewer, why=proposal.why, reason=said)
    else:
        other = Card.objects.get(pk=proposal.other_id)
        knowledge_merge(target=card, others=[other], actor=reviewer)
