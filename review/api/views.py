"""Ingest, the review queue, and probes of hypotheses: thin views over services."""

from __future__ import annotations

from django.db import transaction
from drf_spectacular.utils import extend_schema
from rest_framework import status
from rest_framework.response import Response

from cards.selectors.shape import card_shown, cards_out
from core.api.common import IdField, ScopeRefField, StrictSerializer
from core.api.errors import error_responses
from scopes.api.entry import View
from scopes.selectors import read_scope_ids, scope_ref_id

from ..selectors import (candidate_get, contradiction_sides, dispute_sides, duplicate_get, hypothesis_get, job_get,
                         own_proposals, review_queue, rule_get, said_about_you, upkeep_get, upkeep_shown,
                         ward_proposals)
from ..services.candidates import candidate_approve, candidate_reject
from ..services.hypotheses import hypothesis_confirm, hypothesis_reject, probe_next
from ..services.ingest import ingest_create
from ..services.queue import contradiction_pick, duplicate_decide, rule_decide
from ..services.upkeep import upkeep_decide
from .serializers import (ApproveIn, ReviewCandidateOut, ConfirmIn, IngestIn, JobOut, PickIn, ReasonIn, RejectIn,
                          SaidAboutYouPickIn)


class ScopeQuery(StrictSerializer):
    scope = ScopeRefField()


class QueueQuery(StrictSerializer):
    scope = IdField(required=False, allow_null=True, default=None,
                    help_text="The scope whose queue a reviewer reads; without it, your own part of the queue.")


QUEUE_DESCRIPTION = """With `scope`: what waits for a reviewer of that scope (review role; 403 otherwise).

Without `scope`: your own part of the queue, whatever your role —
`{"said_about_you": [{"scope", "scope_name", "yours": card, "theirs": [card…]}]}`: statements
by others about you, in every scope you view, that disagree with your own card and stand
beside it (`disputes`: its id) until you settle them with
`POST /api/v1/review/said-about-you/pick/`. Your word stands meanwhile.
`"proposals": [candidate…]`: what your own propose-only agents proposed, in every
scope where you may write, waiting for you to approve or reject it
(`POST /api/v1/review/{id}/approve/`, `/reject/`) whatever your role there:
approving writes it as you, as you could write it yourself.
`"wards_proposals": [candidate…]`: for a guardian, what the agents of the minors you look after
proposed and still waits (to see; deciding it stays with whoever reviews its scope).

With `scope`, `"upkeep"` lists what the weekly upkeep job proposes and waits for a reviewer:
`[{"id", "kind": "promote|demote|merge|archive", "why":
"sessions|impact|contradicted|stale|same_name|merged|alias|idle|replaced",
"reason": "seen in 3 sessions: Nov 2, 2026; …", "evidence_at": [ISO…], "card": card|null, "other": card|null,
"created_at"}]` — decided with `POST /api/v1/review/upkeep/{id}/approve/`, `/reject/`. `archive` is the
project scope itself (`card` null; for `replaced`, `other` is the card that said it was dropped); only an
owner's approval archives it.

Reviewing is for a signed-in person: an agent token gets 403 either way."""


def _valid(serializer_class, data):
    serializer = serializer_class(data=data)
    serializer.is_valid(raise_exception=True)
    return serializer.validated_data


class Ingest(View):
    @extend_schema(request=IngestIn, responses={202: JobOut, **error_responses(400, 401, 403, 404)},
                   summary="Queue one session's messages for extraction; candidates wait in the review queue")
    def post(self, request):
        data = _valid(IngestIn, request.data)
        principal = self.principal
        with transaction.atomic():
            # A propose-only token may ingest (it only makes candidates), and nothing of its job is auto-accepted.
            scope = self.scope_named(data["scope"], action=principal.write_action)
            job = ingest_create(scope=scope, actor=principal.user, session=data["session"],
                                messages=data["messages"], auto_accept=not principal.proposes,
                                token=principal.token)
        job = job_get(principal=principal, job_id=job.pk)  # eager Celery has already run it
        return Response(JobOut(job).data, status=status.HTTP_202_ACCEPTED)


class IngestJobDetail(View):
    @extend_schema(responses={200: JobOut, **error_responses(401, 404)}, summary="An ingest job's state")
    def get(self, request, job_id: int):
        return Response(JobOut(job_get(principal=self.principal, job_id=job_id)).data)


class ReviewQueue(View):
    @extend_schema(parameters=[QueueQuery], responses={200: dict, **error_responses(400, 401, 403, 404)},
                   summary="What waits for a reviewer of the scope: candidates, rules, duplicates, "
                           "contradictions, hypotheses; without a scope, your own part: what was said "
                           "about you, and what your own agents proposed",
                   description=QUEUE_DESCRIPTION)
    def get(self, request):
        params = _valid(QueueQuery, request.query_params.dict())
        principal = self.principal
        if params["scope"] is None:
            return Response({"said_about_you": said_about_you(principal=principal),
                             "proposals": ReviewCandidateOut(own_proposals(principal=principal)
                                                             .select_related("proposed_by", "scope")
                                                             .order_by("id")[:500], many=True).data,
                             "wards_proposals": ReviewCandidateOut(ward_proposals(principal=principal)
                                                                   .select_related("proposed_by", "scope")
                                                                   .order_by("id")[:500], many=True).data})
        scope = self.scope_named(params["scope"], action="review")
        queue = review_queue(principal=principal, scope=scope)
        contradiction_ids = [pk for c in queue["contradictions"] for pk in c.card_ids]
        hypothesis_ids = [card.pk for card in queue["hypotheses"]]
        shown = dict(zip(contradiction_ids + hypothesis_ids,
                         cards_out(contradiction_ids + hypothesis_ids, user=principal.user)))
        return Response({
            "candidates": ReviewCandidateOut(queue["candidates"], many=True).data,
            "rules": [{"id": r.pk, "name": r.name, "description": r.description, "premises": r.premises,
                       "conclusion": r.conclusion, "author": r.author.username if r.author else None}
                      for r in queue["rules"]],
            "duplicates": [{"id": d.pk, "entity": {"id": d.entity_id, "name": d.entity.name},
                            "similar_to": {"id": d.similar_to_id, "name": d.similar_to.name}, "score": d.score}
                           for d in queue["duplicates"]],
            "contradictions": [{"subject_id": c.subject_id, "cards": [shown[pk] for pk in c.card_ids]}
                               for c in queue["contradictions"]],
            "hypotheses": [shown[pk] for pk in hypothesis_ids],
            "upkeep": upkeep_shown(queue["upkeep"], user=principal.user),
        })


class CandidateApprove(View):
    @extend_schema(request=ApproveIn, responses={200: ReviewCandidateOut, **error_responses(400, 401, 403, 404, 409)},
                   summary="Approve a candidate as is, or edited; it becomes a card with its quote as source")
    def post(self, request, candidate_id: int):
        data = _valid(ApproveIn, request.data)
        principal = self.principal
        candidate = candidate_get(principal=principal, candidate_id=candidate_id)
        candidate_approve(candidate=candidate, reviewer=principal.user, edits=data["edits"], consent=data["consent"],
                          reason=data["reason"])
        candidate = candidate_get(principal=principal, candidate_id=candidate.pk)
        return Response(ReviewCandidateOut(candidate).data)


class CandidateReject(View):
    @extend_schema(request=RejectIn, responses={200: ReviewCandidateOut, **error_responses(400, 401, 403, 404, 409)},
                   summary="Reject a candidate, saying why")
    def post(self, request, candidate_id: int):
        data = _valid(RejectIn, request.data)
        principal = self.principal
        candidate = candidate_get(principal=principal, candidate_id=candidate_id)
        return Response(ReviewCandidateOut(candidate_reject(candidate=candidate, reviewer=principal.user,
                                                      reason=data["reason"])).data)


class RuleDecide(View):
    approve = True

    @extend_schema(request=ReasonIn, responses={200: dict, **error_responses(400, 401, 403, 404, 409)},
                   summary="Approve (answers use it at once) or retire a rule; reviewers of the global scope")
    def post(self, request, rule_id: int):
        data = _valid(ReasonIn, request.data)
        principal = self.principal
        rule = rule_decide(rule=rule_get(principal=principal, rule_id=rule_id), reviewer=principal.user,
                           approve=self.approve, reason=data["reason"])
        return Response({"id": rule.pk, "name": rule.name, "status": rule.status})


class DuplicateDecide(View):
    merge = True

    @extend_schema(request=ReasonIn, responses={200: dict, **error_responses(400, 401, 403, 404, 409)},
                   summary="Merge a possible duplicate into the entity it looks like (through an alias), "
                           "or keep them apart")
    def post(self, request, duplicate_id: int):
        data = _valid(ReasonIn, request.data)
        principal = self.principal
        proposal = duplicate_decide(proposal=duplicate_get(principal=principal, duplicate_id=duplicate_id),
                                    reviewer=principal.user, merge=self.merge, reason=data["reason"])
        return Response({"id": proposal.pk, "status": proposal.status})


class ContradictionPick(View):
    @extend_schema(request=PickIn, responses={200: dict, **error_responses(400, 401, 403, 404)},
                   summary="Pick the current value of a contradiction: it supersedes the other sides")
    def post(self, request):
        data = _valid(PickIn, request.data)
        principal = self.principal
        scope = self.scope_named(data["scope"], action="review")
        chosen, others, writable = contradiction_sides(principal=principal, scope=scope, card_id=data["card"])
        written = contradiction_pick(chosen=chosen, others=others, reviewer=principal.user, writable=writable,
                                     scope=scope, reason=data["reason"])
        return Response({"current": chosen.pk, "written": [c.pk for c in written]})


class SaidAboutYouPick(View):
    @extend_schema(request=SaidAboutYouPickIn, responses={200: dict, **error_responses(400, 401, 403, 404)},
                   summary="Settle what was said about you: keep your own card, or take theirs",
                   description="`card` is your own card (keep yours) or a statement about you that disputes it "
                               "(take theirs). Either way it is stated in your name on that timeline, which "
                               "settles every dispute standing beside it; the other side stays in the history. "
                               "Only the person it is about settles it: anyone else gets 403 `member_settles`, "
                               "an agent token 403 `permission_denied`. Answers `{current, written}`: the card "
                               "picked, and the statements written.")
    def post(self, request):
        data = _valid(SaidAboutYouPickIn, request.data)
        principal = self.principal
        chosen, others, writable = dispute_sides(principal=principal, card_id=data["card"])
        written = contradiction_pick(chosen=chosen, others=others, reviewer=principal.user, writable=writable,
                                     scope=chosen.scope, reason=data["reason"])
        return Response({"current": chosen.pk, "written": [c.pk for c in written]})


class ProbeNext(View):
    @extend_schema(parameters=[ScopeQuery],
                   responses={200: dict, 204: None, **error_responses(400, 401, 404)},
                   summary="One hypothesis to confirm with the person, never one already asked; 204 if none")
    def get(self, request):
        params = _valid(ScopeQuery, request.query_params.dict())
        principal = self.principal
        scope_ids = read_scope_ids(principal=principal, scope_id=scope_ref_id(principal=principal, ref=params["scope"]))
        card = probe_next(user=principal.user, scope_ids=scope_ids)
        if card is None:
            return Response(status=status.HTTP_204_NO_CONTENT)
        return Response(card_shown(card.pk, user=principal.user))


class HypothesisConfirm(View):
    @extend_schema(request=ConfirmIn, responses={200: dict, **error_responses(400, 401, 403, 404, 409)},
                   summary="The person confirmed a hypothesis: it is stated as a fact or preference (the answer is that card; the guess is closed into it)")
    def post(self, request, card_id: int):
        data = _valid(ConfirmIn, request.data)
        principal = self.principal
        card = hypothesis_get(principal=principal, card_id=card_id)
        stated = hypothesis_confirm(card=card, user=principal.user, quote=data["quote"], as_tag=data["tag"],
                                    consent=data["consent"], session=data["session"])
        return Response(card_shown(stated.pk, user=principal.user))


class HypothesisReject(View):
    @extend_schema(request=ReasonIn, responses={204: None, **error_responses(400, 401, 403, 404, 409)},
                   summary="The person said a hypothesis is wrong: it is discarded (the reason kept)")
    def post(self, request, card_id: int):
        data = _valid(ReasonIn, request.data)
        principal = self.principal
        hypothesis_reject(card=hypothesis_get(principal=principal, card_id=card_id), user=principal.user,
                          reason=data["reason"])
        return Response(status=status.HTTP_204_NO_CONTENT)


class UpkeepDecide(View):
    approve = True

    @extend_schema(request=ReasonIn, responses={200: dict, **error_responses(400, 401, 403, 404, 409)},
                   summary="Approve (it is applied: a card made long-term, demoted, or knowledge merged) or reject "
                           "a proposal of the weekly upkeep job; reviewers of its scope, never an agent token",
                   description="Answers `{\"id\", \"kind\", \"status\", \"card\", \"other\"}`. 409 "
                               "`already_decided` when it was decided before; 409 `upkeep_outdated` when its card "
                               "changed since it was proposed (no longer current, or confirmed since it was "
                               "proposed as stale).")
    def post(self, request, proposal_id: int):
        data = _valid(ReasonIn, request.data)
        principal = self.principal
        proposal = upkeep_decide(proposal=upkeep_get(principal=principal, proposal_id=proposal_id),
                                 reviewer=principal.user, approve=self.approve, reason=data["reason"])
        return Response({"id": proposal.pk, "kind": proposal.kind, "status": proposal.status,
                         "card": proposal.card_id, "other": proposal.other_id})
