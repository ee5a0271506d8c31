from django.urls import path, register_converter
from drf_spectacular.views import SpectacularAPIView, SpectacularRedocView, SpectacularSwaggerView

from cards.api import answer as answer_views
from cards.api import ask as ask_views
from cards.api import entities as entity_views
from cards.api import export as export_views
from cards.api import forget as forget_views
from cards.api import profile as profile_views
from cards.api import recall as recall_views
from cards.api import sharing as sharing_views
from cards.api import time as time_views
from cards.api import views as card_views
from review.api import views as review_views
from scopes.api import people as people_views
from scopes.api import relations as relation_views
from scopes.api import views as scope_views


class IdConverter:
    """Positive ids that fit a bigint; anything else is simply not a route (404)."""

    regex = "[1-9][0-9]{0,18}"

    def to_python(self, value: str) -> int:
        number = int(value)
        if number >= 2**63:
            raise ValueError
        return number

    def to_url(self, value) -> str:
        return str(value)


register_converter(IdConverter, "id")

urlpatterns = [
    path("scopes/", scope_views.ScopeListCreate.as_view(), name="scope-list"),
    path("scopes/<id:scope_id>/", scope_views.ScopeDetail.as_view(), name="scope-detail"),
    path("scopes/<id:scope_id>/members/", scope_views.ScopeMembers.as_view(), name="scope-members"),
    path("scopes/<id:scope_id>/relations/", relation_views.ScopeRelations.as_view(), name="scope-relations"),
    path("scopes/<id:scope_id>/members/<str:username>/", scope_views.ScopeMember.as_view(), name="scope-member"),
    path("scopes/<id:scope_id>/leave/", scope_views.ScopeLeave.as_view(), name="scope-leave"),
    path("scopes/<id:scope_id>/archive/", scope_views.ScopeArchive.as_view(), name="scope-archive"),
    path("scopes/<id:scope_id>/restore/", scope_views.ScopeRestore.as_view(), name="scope-restore"),
    path("scopes/<id:scope_id>/invitations/", scope_views.ScopeInvitations.as_view(), name="scope-invitations"),
    path("scopes/<id:scope_id>/invitations/<id:invitation_id>/withdraw/", scope_views.ScopeInvitationWithdraw.as_view(),
         name="scope-invitation-withdraw"),
    path("invitations/", scope_views.InvitationList.as_view(), name="invitation-list"),
    path("invitations/<id:invitation_id>/accept/", scope_views.InvitationAnswer.as_view(accept=True),
         name="invitation-accept"),
    path("invitations/<id:invitation_id>/decline/", scope_views.InvitationAnswer.as_view(accept=False),
         name="invitation-decline"),
    # A propose-only token's cards wait in the review queue (cards.signals.cards_proposed, received by review).
    path("cards/", card_views.CardListCreate.as_view(), name="card-list"),
    path("cards/bulk/", card_views.CardBulk.as_view(), name="card-bulk"),
    path("cards/<id:card_id>/", card_views.CardDetail.as_view(), name="card-detail"),
    path("cards/<id:card_id>/history/", card_views.CardHistory.as_view(), name="card-history"),
    path("cards/<id:card_id>/verify/", card_views.CardVerify.as_view(), name="card-verify"),
    path("cards/<id:card_id>/correct/", card_views.CardCorrect.as_view(), name="card-correct"),
    path("cards/<id:card_id>/asked/", card_views.CardQuestionAsked.as_view(), name="card-asked"),
    path("cards/<id:card_id>/confirm/", review_views.HypothesisConfirm.as_view(), name="hypothesis-confirm"),
    path("cards/<id:card_id>/reject/", review_views.HypothesisReject.as_view(), name="hypothesis-reject"),
    path("ingest/", review_views.Ingest.as_view(), name="ingest"),
    path("ingest/<id:job_id>/", review_views.IngestJobDetail.as_view(), name="ingest-job"),
    path("review/", review_views.ReviewQueue.as_view(), name="review-queue"),
    path("review/<id:candidate_id>/approve/", review_views.CandidateApprove.as_view(), name="candidate-approve"),
    path("review/<id:candidate_id>/reject/", review_views.CandidateReject.as_view(), name="candidate-reject"),
    path("review/rules/<id:rule_id>/approve/", review_views.RuleDecide.as_view(approve=True), name="rule-approve"),
    path("review/rules/<id:rule_id>/retire/", review_views.RuleDecide.as_view(approve=False), name="rule-retire"),
    path("review/duplicates/<id:duplicate_id>/merge/", review_views.DuplicateDecide.as_view(merge=True),
         name="duplicate-merge"),
    path("review/duplicates/<id:duplicate_id>/keep/", review_views.DuplicateDecide.as_view(merge=False),
         name="duplicate-keep"),
    path("review/upkeep/<id:proposal_id>/approve/", review_views.UpkeepDecide.as_view(approve=True),
         name="upkeep-approve"),
    path("review/upkeep/<id:proposal_id>/reject/", review_views.UpkeepDecide.as_view(approve=False),
         name="upkeep-reject"),
    path("review/contradictions/pick/", review_views.ContradictionPick.as_view(), name="contradiction-pick"),
    path("review/said-about-you/pick/", review_views.SaidAboutYouPick.as_view(), name="said-about-you-pick"),
    path("probes/next/", review_views.ProbeNext.as_view(), name="probe-next"),
    path("entities/", entity_views.EntityCreate.as_view(), name="entity-create"),
    path("entities/resolve/", entity_views.EntityResolve.as_view(), name="entity-resolve"),
    path("entities/<id:entity_id>/", entity_views.EntityDetail.as_view(), name="entity-detail"),
    path("entities/<id:entity_id>/aliases/", entity_views.EntityAliases.as_view(), name="entity-aliases"),
    path("answer/", answer_views.AnswerView.as_view(), name="answer"),
    path("ask/", ask_views.AskView.as_view(), name="ask"),
    path("count/", answer_views.CountView.as_view(), name="count"),
    path("recall/", recall_views.Recall.as_view(), name="recall"),
    # The context block offers the review queue's pending probe: the store never imports the queue.
    path("context/", recall_views.Context.as_view(), name="context"),
    path("profile/", profile_views.Profile.as_view(), name="profile"),
    path("time/resolve/", time_views.TimeResolve.as_view(), name="time-resolve"),
    path("export/", export_views.Export.as_view(), name="export"),
    path("forget/", forget_views.Forget.as_view(), name="forget"),
    path("account/", forget_views.Account.as_view(), name="account"),
    path("me/", people_views.Me.as_view(), name="me"),
    path("me/sharing/", sharing_views.MySharing.as_view(), name="me-sharing"),
    path("tokens/", scope_views.TokenListCreate.as_view(), name="token-list"),
    path("tokens/minors/", scope_views.WardTokenList.as_view(), name="token-minors"),
    path("tokens/<id:token_id>/", scope_views.TokenDetail.as_view(), name="token-detail"),
    path("schema/", SpectacularAPIView.as_view(), name="schema"),
    path("docs/", SpectacularSwaggerView.as_view(url_name="schema"), name="docs"),
    path("redoc/", SpectacularRedocView.as_view(url_name="schema"), name="redoc"),
]
