"""Reads of the review app, always through the principal: what you may not
view is a 404, what you may view but not review is a 403. Beside each scope's
queue, a person has a part of their own: what others said about them that
disagrees with their own word (`said_about_you`)."""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import Count, Exists, OuterRef, Prefetch, Q
from django.http import Http404

from cards.errors import InvalidCard
from cards.models import Card, DuplicateStatus, Entity, PossibleDuplicate, Rule, RuleStatus, Tag
from cards.provenance import Approval
from cards.recall.contradictions import contradictions_in
from cards.selectors.shape import cards_out
from core.errors import NotAllowed
from scopes.archive import archived_refusal
from scopes.guardians import ward_ids
from scopes.models import Scope, ScopeKind
from scopes.principals import TOKEN_ACTIONS, Principal, scope_ids_for
from scopes.selectors import read_scope_ids
from scopes.visibility import row_get

from .models import Candidate, CandidateStatus, IngestJob, UpkeepProposal, UpkeepRun, UpkeepStatus
from .services.candidates import OPEN
from .services.hypotheses import hypotheses_current
from .upkeep.why import upkeep_why


def candidate_get(*, principal, candidate_id: int) -> Candidate:
    """A candidate the principal may decide (404 if they may not see it, 403 if
    they may see but not decide it): a reviewer of its scope decides it, and so
    does its person what their own agent proposed (`own_proposals`)."""
    candidate = row_get(Candidate.objects.select_related("author", "scope", "proposed_by"), principal=principal,
                        pk=candidate_id, action="view")
    # Each read in the candidate's own scope, as constants: on a cluster it reaches that scope's shard only.
    here = [candidate.scope_id]
    reviewed = Candidate.objects.in_scopes(here).visible_to(principal, "review").values("pk")
    proposed = own_proposals(principal=principal, only_open=False).in_scopes(here).values("pk")
    if not (Candidate.objects.in_scopes(here)
            .filter(Q(pk__in=reviewed) | Q(pk__in=proposed), pk=candidate.pk).exists()):
        this = Candidate.objects.in_scopes(here).filter(pk=candidate.pk)
        for action in ("review", "write"):  # its reviewer, or its person: an archived project decides nothing
            archived_refusal(this, principal=principal, action=action)
        raise NotAllowed("Only a reviewer of this scope, or the person whose agent proposed it, decides it.")
    return candidate


def own_proposals(*, principal: Principal, only_open: bool = True):
    """What the person's own propose-only agents proposed, wherever the person may
    write: theirs to decide whatever their role, since approving writes it as
    them (API.md: "its person's review queue"). Never an agent's: 403 for a token."""
    _a_person_reviews(principal)
    rows = Candidate.objects.visible_to(principal, "write").filter(
        author_id=principal.user.pk, proposed_by__user_id=principal.user.pk, proposed_by__proposes=True)
    return rows.filter(status__in=OPEN) if only_open else rows


def ward_proposals(*, principal: Principal):
    """What the agents of the minors the person guards proposed, still open (DESIGN §3: guardians see a
    minor's memory): shown to the guardian, who views them and decides none of them unless they
    review the scope it waits in anyway. A person's read, never an agent's."""
    _a_person_reviews(principal)
    return Candidate.objects.visible_to(principal, "view").filter(
        status__in=OPEN, proposed_by__proposes=True, proposed_by__user_id__in=ward_ids(principal.user))


def job_get(*, principal, job_id: int) -> IngestJob:
    return row_get(IngestJob.objects.all(), principal=principal, pk=job_id)


def duplicate_get(*, principal, duplicate_id: int) -> PossibleDuplicate:
    """A possible duplicate the principal reviews — and whose other side they may
    see (in a visible scope, or a member's own entity): proposals are made
    against the scopes above, which a reviewer of a project may not be allowed
    to read. Its entity comes by a query on its id, the other side is only
    checked: neither is joined, the other side may live in another scope."""
    entities = Prefetch("entity", queryset=Entity.objects.visible_to(principal, "view"))
    proposal = row_get(PossibleDuplicate.objects.prefetch_related(entities), principal=principal,
                       pk=duplicate_id, action="review")
    visible = read_scope_ids(principal=principal, scope_id=proposal.scope_id)
    if not Entity.objects.in_scopes(visible).filter(pk=proposal.similar_to_id).exists():
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
                           .select_related("proposed_by").order_by("-long_term", "id")[:500]),
        "rules": (list(Rule.objects.visible_to(principal, "review").filter(status=RuleStatus.DRAFT)
                       .select_related("author"))
                  if scope.kind == ScopeKind.GLOBAL else []),
        "duplicates": duplicates_open(principal=principal, scope=scope, scope_ids=scope_ids),
        "contradictions": [c for c in contradictions_in(scope_ids=scope_ids, limit=100)],
        "hypotheses": list(hypotheses_current().in_scopes([scope.pk])
                           .order_by("-impact", "-confidence", "id")[:200]),
        "upkeep": list(UpkeepProposal.objects.visible_to(principal, "review")
                       .filter(scope=scope, status=UpkeepStatus.OPEN).order_by("kind", "id")[:200]),
    }


def duplicates_open(*, principal: Principal, scope: Scope, scope_ids: list[int]) -> list[PossibleDuplicate]:
    """The open possible duplicates of `scope` whose other side is seen from
    there (`scope_ids`: in a visible scope, or a member's own entity), best
    first. Each side is read by a query of its own on ids, never joined: the
    other side may live in another scope (on a cluster, another shard)."""
    seen = Entity.objects.in_scopes(scope_ids)
    return list(PossibleDuplicate.objects.visible_to(principal, "review")
                .filter(scope=scope, status=DuplicateStatus.OPEN, similar_to__in=seen.values("id"))
                .prefetch_related(Prefetch("entity", queryset=Entity.objects.in_scopes([scope.pk], include="own")),
                                  Prefetch("similar_to", queryset=seen))
                .order_by("-score", "id")[:200])


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
    return chosen, others, _writable(principal, others)


def _writable(principal: Principal, cards: list[Card]) -> set[int]:
    """Which of the cards' scopes the principal may write in (the pick refuses unless all)."""
    return set(scope_ids_for(principal, "write").filter(id__in=[c.scope_id for c in cards])
               .values_list("id", flat=True))


# --- what others said about you ---------------------------------------------------------------

SAID_ABOUT_YOU_LIMIT = 200


@dataclass
class SaidAboutYou:
    """One of the person's own cards and the standing statements of others that dispute it."""

    yours: int
    theirs: list[int]
    scope_name: str


def _a_person_reviews(principal: Principal) -> None:
    """Reviewing stays with people (TOKEN_ACTIONS): an agent token never settles, nor lists, what
    is said about its person, even with write access."""
    if principal.token is not None and "review" not in TOKEN_ACTIONS[principal.token.access]:
        raise NotAllowed("Reviewing is for a signed-in person, never an agent token.")


def said_about_you(*, principal: Principal) -> list[dict]:
    """The person's own part of the queue, as the API and the review page show it:
    `{"scope", "scope_name", "yours": card, "theirs": [card…]}`, cards in their own phrasing."""
    found = said_about_you_found(principal=principal)
    ids = [pk for item in found for pk in (item.yours, *item.theirs)]
    shown = dict(zip(ids, cards_out(ids, user=principal.user)))
    return [{"scope": shown[item.yours]["scope"], "scope_name": item.scope_name, "yours": shown[item.yours],
             "theirs": [shown[pk] for pk in item.theirs]} for item in found]


def said_about_you_found(*, principal: Principal) -> list[SaidAboutYou]:
    """What others said about the person that disagrees with their own statements
    (DESIGN §4 rule 7: it stands beside theirs with `disputes`), read from every
    scope they view, whatever their role there: a plain member has no scope
    queue, and it is theirs alone to settle. The newest first, grouped by the
    card disputed."""
    _a_person_reviews(principal)
    # The disputed card is looked up with its scope (a dispute stands in its card's scope): on a cluster,
    # on the same shard; a join by id alone is refused there.
    theirs = Card.objects.filter(pk=OuterRef("disputes_id"), scope_id=OuterRef("scope_id"),
                                 source_actor_id=principal.user.pk)
    disputes = (Card.objects.visible_to(principal, "view")
                .filter(Exists(theirs), disputes__isnull=False, superseded_at__isnull=True,
                        subject__user_id=principal.user.pk)
                # An archived project is read-only: nothing there can be settled until it is restored.
                .filter(scope__archived_at__isnull=True)
                .select_related("scope").only("id", "disputes_id", "scope__name")
                .order_by("-id")[:SAID_ABOUT_YOU_LIMIT])
    grouped: dict[int, SaidAboutYou] = {}
    for card in disputes:
        grouped.setdefault(card.disputes_id, SaidAboutYou(card.disputes_id, [], card.scope.name)).theirs.append(card.pk)
    return list(grouped.values())


def dispute_sides(*, principal: Principal, card_id: int) -> tuple[Card, list[Card], set[int]]:
    """For settling what was said about a person, with the pick a reviewer uses
    (review.services.queue.contradiction_pick, which lets only that person
    settle it): the chosen card — their own, to keep it, or a standing statement
    disputing it, to take that one — the other side, and which of their scopes
    the principal may write in."""
    _a_person_reviews(principal)
    chosen = row_get(Card.objects.select_related("label", "object", "subject", "scope"), principal=principal,
                     pk=card_id)
    own_id = chosen.disputes_id or chosen.pk
    # The sides live in the chosen card's scope: a dispute stands beside the card it disputes.
    sides = (Card.objects.in_scopes([chosen.scope_id]).select_related("label", "subject", "scope")
             .filter(Q(pk=own_id) | Q(disputes_id=own_id, superseded_at__isnull=True)).exclude(pk=chosen.pk)
             .order_by("-id"))
    others = list(sides)
    standing = chosen.superseded_at is None if chosen.disputes_id else any(o.disputes_id for o in others)
    if not standing or not others:
        raise InvalidCard("That card is not a side of a statement about a person standing beside their own.",
                          fields={"card": ["not a side of a standing dispute"]})
    return chosen, others, _writable(principal, others)


# --- what waits in the queues, and who approved a card -----------------------------------------

def reviews_waiting(*, principal: Principal) -> dict[int, int]:
    """How many candidates wait, open (pending, or held for consent: what each
    queue lists), in every scope the principal reviews: {scope id: count}, one
    query. The review index and the home page's "waiting for you" both count with it."""
    return dict(Candidate.objects.visible_to(principal, "review").filter(status__in=OPEN)
                .values("scope_id").annotate(n=Count("id")).values_list("scope_id", "n"))


def card_approvals(*, card_ids: list[int], scope_ids: list[int]) -> dict[int, Approval]:
    """Who approved each of these cards of `scope_ids` (already checked visible) in the queue,
    and when — the latest approval when several candidates came to one card; the
    store's card pages read it through cards.provenance (review.receivers answers its signal)."""
    rows = (Candidate.objects.in_scopes(scope_ids).filter(card_id__in=card_ids, status=CandidateStatus.APPROVED,
                                                          decided_by__isnull=False, decided_at__isnull=False)
            .order_by("card_id", "-decided_at", "-id").distinct("card_id")
            .select_related("decided_by").only("card_id", "decided_at", "decided_by__username",
                                                "decided_by__display_name"))
    return {row.card_id: Approval(by=row.decided_by.shown_name, at=row.decided_at) for row in rows}


# --- the weekly upkeep's proposals, and its runs -----------------------------------------------

def upkeep_get(*, principal: Principal, proposal_id: int) -> UpkeepProposal:
    """A proposal of the upkeep job the principal reviews (404 unseen, 403 seen but not reviewed;
    an agent token never decides one)."""
    proposal = row_get(UpkeepProposal.objects.select_related("scope"), principal=principal, pk=proposal_id,
                       action="review")
    _a_person_reviews(principal)
    return proposal


def upkeep_shown(proposals: list[UpkeepProposal], *, user) -> list[dict]:
    """Proposals as the queue shows them: the cards in the reader's phrasing, and why in words. A card
    the reader may not see (the evidence in a scope above, a card forgotten meanwhile) is not shown."""
    wanted = {pk for p in proposals for pk in (p.card_id, p.other_id) if pk is not None}
    ids = list(Card.objects.visible_to(Principal(user=user), "view").filter(pk__in=wanted)
               .values_list("pk", flat=True))
    shown = dict(zip(ids, cards_out(ids, user=user)))
    names = {pk: card["subject"] for pk, card in shown.items()}
    return [{"id": p.pk, "kind": p.kind, "why": p.why, "reason": upkeep_why(p, viewer=user, names=names),
             "evidence_at": list(p.evidence_at), "card": shown.get(p.card_id), "other": shown.get(p.other_id),
             "created_at": p.created_at}
            for p in proposals if p.card_id is None or p.card_id in shown]


def upkeep_last_run(*, principal: Principal, scope: Scope) -> UpkeepRun | None:
    """The latest run over a scope the principal views: counts only, so anyone who sees the scope may."""
    return UpkeepRun.objects.visible_to(principal, "view").filter(scope=scope).first()
