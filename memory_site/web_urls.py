"""The dashboard's pages, served at the site root beside /admin/ and /api/v1/."""

from django.contrib.auth import views as auth_views
from django.urls import path

from cards.pages import account as account_pages
from cards.pages import ask as ask_pages
from cards.pages import card as card_pages
from cards.pages import cards as scope_card_pages
from cards.pages import entities as entity_pages
from cards.pages import person as person_pages
from cards.pages import sharing as sharing_pages
from memory_site import connect, home
from memory_site.api import urls as _api_urls  # noqa: F401  (registers the "id" path converter)
from review.pages import queue as queue_pages
from review.pages import rules as rule_pages
from scopes import languages
from scopes.pages import archive as archive_pages
from scopes.pages import scopes as scope_pages

urlpatterns = [
    path("", home.home, name="home"),
    path("accounts/login/", auth_views.LoginView.as_view(redirect_authenticated_user=True), name="login"),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("accounts/password/", auth_views.PasswordChangeView.as_view(), name="password_change"),
    path("accounts/password/done/", auth_views.PasswordChangeDoneView.as_view(), name="password_change_done"),
    path("accounts/settings/", scope_pages.settings_page, name="settings"),
    path("accounts/sharing/<id:scope_id>/", sharing_pages.sharing_save_page, name="sharing-save"),
    path("scopes/<id:scope_id>/joined/", sharing_pages.sharing_joined_page, name="sharing-joined"),
    path("language/", languages.language_page, name="language"),
    path("accounts/erase/", account_pages.account_erase_page, name="account-erase"),
    path("invite/<str:token>/", scope_pages.invite_page, name="invite"),
    path("scopes/new/", home.scope_create_page, name="scope-create"),
    path("tokens/", scope_pages.tokens_page, name="tokens"),
    path("tokens/new/", scope_pages.token_create_page, name="token-create"),
    path("tokens/<id:token_id>/revoke/", scope_pages.token_revoke_page, name="token-revoke"),
    path("tokens/<id:token_id>/connect/", connect.token_connect_page, name="token-connect"),
    path("scopes/<id:scope_id>/", scope_card_pages.scope_page, name="scope"),
    path("scopes/<id:scope_id>/cards/new/", scope_card_pages.card_add, name="card-add"),
    path("scopes/<id:scope_id>/invites/", scope_pages.invite_create_page, name="invite-create"),
    path("scopes/<id:scope_id>/invites/<id:invite_id>/revoke/", scope_pages.invite_revoke_page, name="invite-revoke"),
    path("scopes/<id:scope_id>/members/", scope_pages.members_page, name="members"),
    path("scopes/<id:scope_id>/members/add/", scope_pages.member_add_page, name="member-add"),
    path("scopes/<id:scope_id>/members/<id:user_id>/", scope_pages.member_change_page, name="member-change"),
    path("scopes/<id:scope_id>/members/<id:user_id>/remove/", scope_pages.member_remove_page,
         name="member-remove"),
    path("scopes/<id:scope_id>/invitations/<id:invitation_id>/withdraw/", scope_pages.invitation_withdraw_page,
         name="invitation-withdraw"),
    path("scopes/<id:scope_id>/leave/", scope_pages.scope_leave_page, name="scope-leave-page"),
    path("scopes/<id:scope_id>/archive/", archive_pages.scope_archive_page, name="scope-archive-page"),
    path("scopes/<id:scope_id>/restore/", archive_pages.scope_restore_page, name="scope-restore-page"),
    path("invitations/<id:invitation_id>/accept/", scope_pages.invitation_answer_page, {"accept": True},
         name="invitation-accept-page"),
    path("invitations/<id:invitation_id>/decline/", scope_pages.invitation_answer_page, {"accept": False},
         name="invitation-decline-page"),
    path("scopes/<id:scope_id>/members/<id:user_id>/minor/", scope_pages.member_minor_page, name="member-minor"),
    path("cards/<id:card_id>/", card_pages.card_page, name="card"),
    path("cards/<id:card_id>/share/<id:scope_id>/", sharing_pages.card_share_page, name="card-share"),
    path("cards/<id:card_id>/verify/", card_pages.card_verify_page, name="card-verify-page"),
    path("cards/<id:card_id>/describe/", card_pages.card_describe_page, name="card-describe"),
    path("cards/<id:card_id>/perspective/", card_pages.card_perspective_page, name="card-perspective"),
    path("cards/<id:card_id>/forget/", card_pages.card_forget_page, name="card-forget"),
    path("cards/<id:card_id>/forget/<str:what>/", card_pages.card_forget_page, name="card-forget-more"),
    path("cards/<id:card_id>/confirm/", queue_pages.hypothesis_confirm_page, name="hypothesis-confirm"),
    path("cards/<id:card_id>/reject/", queue_pages.hypothesis_reject_page, name="hypothesis-reject"),
    path("review/", queue_pages.review_page, name="review"),
    path("review/said-about-you/pick/", queue_pages.said_about_you_pick_page,
         name="said-about-you-pick-page"),
    path("entities/", entity_pages.entities_page, name="entities"),
    path("ask/", ask_pages.ask_page, name="ask"),
    path("entities/<id:entity_id>/aliases/", entity_pages.alias_add_page, name="alias-add"),
    path("people/me/", person_pages.person_me_page, name="person-me"),
    path("people/<id:entity_id>/", person_pages.person_page, name="person"),
    path("scopes/<id:scope_id>/review/", queue_pages.review_scope_page, name="review-scope"),
    path("scopes/<id:scope_id>/review/pick/", queue_pages.contradiction_pick_page, name="contradiction-pick"),
    path("scopes/<id:scope_id>/rules/new/", rule_pages.rule_create_page, name="rule-create"),
    path("review/candidates/<id:candidate_id>/approve/", queue_pages.candidate_approve_page,
         name="candidate-approve"),
    path("review/candidates/<id:candidate_id>/reject/", queue_pages.candidate_reject_page, name="candidate-reject"),
    path("review/candidates/<id:candidate_id>/when/", queue_pages.candidate_when_page, name="candidate-when"),
    path("review/labels/", queue_pages.label_choices_page, name="label-choices"),
    path("scopes/<id:scope_id>/review/bulk/", queue_pages.review_bulk_page, name="review-bulk"),
    path("review/rules/<id:rule_id>/<str:decision>/", queue_pages.rule_decide_page, name="rule-decide"),
    path("review/upkeep/<id:proposal_id>/<str:decision>/", queue_pages.upkeep_decide_page, name="upkeep-decide"),
    path("review/duplicates/<id:duplicate_id>/<str:decision>/", queue_pages.duplicate_decide_page,
         name="duplicate-decide"),
]
