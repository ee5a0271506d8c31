"""Reads of the review app, always through the principal: what you may not
view is a 404, what you may view but not review is a 403."""

from __future__ import annotations

from django.db.models import Q
from django.http import Http404

from cards.errors import InvalidCard
from cards.models import Card, DuplicateStatus, Entity, PossibleDuplicate, Rule, RuleStatus, Tag
from cards.retrieval import contradictions_in
from scopes.models import Scope, ScopeKind
from scopes.principals import scope_ids_for
from scopes.relations import members_of
from scopes.selectors import read_scope_ids
from scopes.visibility import row_get

from .models import Candidate, IngestJob
from .services.candidates import OPEN
from .services.hypotheses import hypotheses_current


def candidate_get(*, principal, candidate_id: int, action: str = "review") -> Candidate:
    return row_get(Candidate.objects.select_related("author", "scope"), principal=principal, pk=candidate_id,
                   action=action)


def job_get(*, principal, job_id: int) -> IngestJob:
    return row_get(IngestJob.objects.all(), principal=principal, pk=job_id)


def duplicate_get(*, principal, duplicate_id: int) -> PossibleDuplicate:
    """A possible duplicate the principal reviews — and whose other side they may
    see: proposals are made against the scopes above, which a reviewer of a
    project may not be allowed to read."""
    proposal = row_get(PossibleDuplicate.objects.select_related("entity", "similar_to"), principal=principal,
                       pk=duplicate_id, action="review")
    visible = read_scope_ids(principal=principal, scope_id=proposal.entity.scope_id)
    member = proposal.similar_to.user_id is not None and members_of(visible).filter(
        user_id=proposal.similar_to.user_id).exists()
    if proposal.similar_to.scope_id not in visible and not member:
        raise Http404
    return proposal


def rule_get(*, principal, rule_id: int) -> Rule:
    """Rules hold for everyone: they are decided by the reviewers of the global scope."""
    return row_get(Rule.objects.all(), principal=principal, pk=rule_id, action="review")


def hypothesis_get(*, principal, card_id: int, action: str = "write") -> Card:
    return row_get(Card.objects.select_related("label"), principal=principal, pk=card_id, action=action)


def review_queue(*, principal, scope: Scope) -> dict:
    """Everything waiting for a reviewer of `scope` (review permission checked by the caller)."""
    scope_ids = read_scope_ids(principal=principal, scope_id=scope.pk)
    return {
        "candidates": list(Candidate.objects.visible_to(principal, "review").filter(scope=scope, status__in=OPEN)
                           .order_by("-long_term", "id")[:500]),
        "rules": (list(Rule.objects.visible_to(principal, "review").filter(status=RuleStatus.DRAFT)
                       .select_related("author"))
                  if scope.kind == ScopeKind.GLOBAL else []),
        # The other side is seen from here: in a visible scope, or a member's own entity.
        "duplicates": list(PossibleDuplicate.objects.visible_to(principal, "review")
                           .filter(status=DuplicateStatus.OPEN, entity__scope=scope)
                           .filter(Q(similar_to__in=Entity.objects.in_scopes(scope_ids))
                                   | Q(similar_to__user_id__in=members_of(scope_ids)))
                           .select_related("entity", "similar_to").order_by("-score", "id")[:200]),
        "contradictions": [c for c in contradictions_in(scope_ids=scope_ids, limit=100)],
        "hypotheses": list(hypotheses_current().in_scopes([scope.pk])
                           .order_by("-impact", "-confidence", "id")[:200]),
    }


def contradiction_sides(*, principal, scope: Scope, card_id: int) -> tuple[Card, list[Card], set[int]]:
    """For picking the current value of a contradiction the reviewer of `scope`
    sees: the chosen card, the other sides, and which of their scopes the
    principal may write in (the service refuses unless all)."""
    visible = read_scope_ids(principal=principal, scope_id=scope.pk)
    chosen = (Card.objects.in_scopes(visible).select_related("label", "object").filter(pk=card_id)
              .exclude(tag=Tag.HYPOTHESIS).first())
    group = next((c for c in contradictions_in(scope_ids=visible)
                  if chosen is not None and chosen.pk in c.card_ids), None)
    if group is None:
        raise InvalidCard("That card is not a side of a current contradiction here.",
                          fields={"card": ["not a side of a current contradiction here"]})
    others = list(Card.objects.in_scopes(visible).select_related("label", "subject", "scope")
                  .filter(pk__in=[pk for pk in group.card_ids if pk != chosen.pk]))
    writable = set(scope_ids_for(principal, "write").filter(id__in=[o.scope_id for o in others])
                   .values_list("id", flat=True))
    return chosen, others, writable
