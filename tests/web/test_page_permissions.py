"""The permission matrix for pages (as tests/api/test_permission_matrix.py for
the API): signed out → the sign-in page; no grant → 404; a viewer on a change →
403 and nothing changes; granted → 2xx/3xx. Adding a dashboard url without a
line here fails `test_every_page_is_in_the_matrix`."""

from __future__ import annotations

from dataclasses import dataclass

import pytest
from django.urls import get_resolver

from django.utils import timezone

from cards.drafts import CardDraft
from cards.models import Alias, Card, CardPerspective, CardRevision, Entity, PossibleDuplicate, Rule
from cards.services import card_remember
from review.models import Candidate, UpkeepProposal
from scopes.archive import scope_archive
from scopes.invites import invitation_create, invite_create
from scopes.principals import Principal
from scopes.services import membership_set, scope_create
from scopes.models import AgentToken, Invitation, Invite, MemberRelation, Membership, Scope, Share
from scopes.tokens import token_create

pytestmark = pytest.mark.django_db

VIEW, WRITE, REVIEW, MANAGE = "view", "write", "review", "manage"
# Not a role: the person a card is about. Only alice settles what bob said about her;
# bob (who may see it and write) gets 403 like a role too small.
ABOUT_HER = "about her"


@dataclass(frozen=True)
class Page:
    name: str
    method: str
    url: str  # formatted with the household's ids
    needs: str = VIEW
    data: dict | None = None


# The rule form as a browser posts it: "if someone has a thing, their car is it".
RULE_FORM = {"name": "a car someone has", "action": "save", "premise-TOTAL_FORMS": "1", "premise-INITIAL_FORMS": "0",
             "premise-0-subject": "someone", "premise-0-label": "has", "premise-0-object": "?thing",
             "conclusion-subject": "someone", "conclusion-label": "car", "conclusion-object": "?thing"}

PAGES = [
    Page("scope", "GET", "/scopes/{family}/"),
    Page("card", "GET", "/cards/{card}/"),
    Page("card-add", "POST", "/scopes/{family}/cards/new/", WRITE,
         {"kind": "state", "subject": "me", "label": "skill", "value": "Rust", "tag": "fact"}),
    Page("card-verify-page", "POST", "/cards/{card}/verify/", WRITE),
    Page("card-describe", "POST", "/cards/{card}/describe/", WRITE, {"text": "Changed"}),
    Page("card-perspective", "POST", "/cards/{card}/perspective/", WRITE, {"text": "Mum's"}),
    Page("card-forget", "GET", "/cards/{card}/forget/", WRITE),
    Page("card-forget", "POST", "/cards/{card}/forget/", WRITE),
    Page("card-forget-more", "GET", "/cards/{card}/forget/timeline/", WRITE),
    Page("card-forget-more", "POST", "/cards/{card}/forget/timeline/", WRITE),
    Page("card-forget-more", "POST", "/cards/{card}/forget/subject/", WRITE),
    Page("invite-create", "POST", "/scopes/{family}/invites/", MANAGE, {"role": "member"}),
    Page("invite-revoke", "POST", "/scopes/{family}/invites/{invite}/revoke/", MANAGE),
    Page("review-scope", "GET", "/scopes/{family}/review/", REVIEW),
    Page("candidate-approve", "POST", "/review/candidates/{candidate}/approve/", REVIEW,
         {"subject": "me", "label": "city", "value": "Kyoto"}),
    Page("candidate-reject", "POST", "/review/candidates/{candidate}/reject/", REVIEW, {"reason": "wrong"}),
    # What a candidate's `when` would resolve to (a fragment; nothing is written).
    Page("candidate-when", "GET", "/review/candidates/{candidate}/when/?when=yesterday", REVIEW),
    Page("review-bulk", "POST", "/scopes/{family}/review/bulk/", REVIEW,
         {"candidates": "{candidate}", "decision": "reject", "reason": "wrong"}),
    Page("duplicate-decide", "POST", "/review/duplicates/{duplicate}/apart/", REVIEW),
    Page("upkeep-decide", "POST", "/review/upkeep/{upkeep}/reject/", REVIEW),
    Page("contradiction-pick", "POST", "/scopes/{family}/review/pick/", REVIEW, {"card": "{card}"}),
    Page("said-about-you-pick-page", "POST", "/review/said-about-you/pick/", ABOUT_HER, {"card": "{theirs}"}),
    Page("hypothesis-confirm", "POST", "/cards/{guess}/confirm/", WRITE),
    Page("hypothesis-reject", "POST", "/cards/{guess}/reject/", WRITE),
    Page("alias-add", "POST", "/entities/{entity}/aliases/", WRITE, {"name": "Mimi"}),
    Page("members", "GET", "/scopes/{family}/members/", MANAGE),
    # A name no one has: invited all the same (the page must not tell which names exist).
    Page("member-add", "POST", "/scopes/{family}/members/add/", MANAGE, {"username": "carol", "role": "viewer"}),
    Page("member-change", "POST", "/scopes/{family}/members/{victor}/", MANAGE,
         {"role": "reviewer", "relation": "cousin"}),
    Page("member-remove", "POST", "/scopes/{family}/members/{victor}/remove/", MANAGE),
    Page("invitation-withdraw", "POST", "/scopes/{family}/invitations/{invitation}/withdraw/", MANAGE),
    Page("scope-leave-page", "POST", "/scopes/{family}/leave/"),  # any member (the viewer here) may leave
    Page("member-minor", "POST", "/scopes/{family}/members/{victor}/minor/", MANAGE, {"minor": "on"}),
    # Archiving asks first (GET), as removing a member does; the family's project "Garden" (bob its admin:
    # managing is not enough, only an owner archives) and "Attic", archived already.
    Page("scope-archive-page", "GET", "/scopes/{project}/archive/", MANAGE),
    Page("scope-archive-page", "POST", "/scopes/{project}/archive/", MANAGE),
    Page("scope-restore-page", "POST", "/scopes/{ended}/restore/", MANAGE),
    Page("ask", "GET", "/ask/?form=answer&scope={family}&subject=me&label=address"),
    # Writing a rule from a scope: whoever may write (or review) in it; the rule is a global draft.
    Page("rule-create", "GET", "/scopes/{family}/rules/new/", WRITE),
    Page("rule-create", "POST", "/scopes/{family}/rules/new/", WRITE, RULE_FORM),
    # A member of the family: a viewer of it sees her page (her family cards), a stranger gets 404.
    Page("person", "GET", "/people/{person}/"),
    # Sharing with a family one belongs to, whatever one's role there; the question asked on joining.
    Page("sharing-save", "POST", "/accounts/sharing/{family}/", data={"labels": ["employer"]}),
    Page("sharing-joined", "GET", "/scopes/{family}/joined/"),
]
# A person's own things (agent tokens): anyone else gets 404, as for a scope they do not see.
OWN_PAGES = [
    Page("tokens", "GET", "/tokens/"),
    Page("token-create", "POST", "/tokens/new/", data={"name": "n", "scopes": ["{family}"], "access": "read",
                                                       "days": "9"}),
    Page("token-connect", "GET", "/tokens/{token}/connect/"),
    Page("token-revoke", "POST", "/tokens/{token}/revoke/"),
]
# An invitation is its invitee's own (mallory's here): anyone else gets 404, even the scope's owner.
INVITEE_PAGES = [
    Page("invitation-accept-page", "POST", "/invitations/{invitation}/accept/"),
    Page("invitation-decline-page", "POST", "/invitations/{invitation}/decline/"),
]
# Pages with no scope or card of their own: every signed-in person has them.
NOT_IN_MATRIX = {"review", "entities", "home", "login", "logout", "password_change", "password_change_done", "invite",
                 "scope-create", "settings",
                 # The label picker's choices: the registry is everyone's (tests/web/test_review_flow.py).
                 "label-choices",
                 # "About you": one's own page (tests/web/test_person_page.py).
                 "person-me",
                 # One's own account: erased by its person only (tests/web/test_forget_pages.py).
                 "account-erase",
                 # The language switch: anyone's, signed in or not (tests/web/test_site_pages_chinese.py).
                 "language",
                 # Sharing a card's label: only from one's own personal card about oneself, 404 from any other
                 # (tests/web/test_sharing_pages.py).
                 "card-share"}
WHO = {VIEW: "victor", WRITE: "bob", REVIEW: "alice", MANAGE: "alice", ABOUT_HER: "alice"}


def _state():
    return (Card.objects.count(), CardRevision.objects.count(),
            list(Invite.objects.order_by("pk").values_list("pk", "expires_at")),
            list(Card.objects.order_by("pk").values_list("verified_at", flat=True)),
            list(Membership.objects.order_by("pk").values_list("user_id", "role", "minor")),
            list(MemberRelation.objects.order_by("pk").values_list("member_id", "of_id", "relation")),
            list(Card.objects.order_by("pk").values_list("tag", "superseded_at")),
            list(Candidate.objects.order_by("pk").values_list("status", flat=True)),
            list(PossibleDuplicate.objects.order_by("pk").values_list("status", flat=True)),
            list(Alias.objects.order_by("pk").values_list("name", flat=True)),
            list(CardPerspective.objects.order_by("pk").values_list("user_id", "text")),
            list(Invitation.objects.order_by("pk").values_list("username", "role", "status")),
            list(Rule.objects.order_by("pk").values_list("name", "status")),
            list(UpkeepProposal.objects.order_by("pk").values_list("status", flat=True)),
            list(Scope.objects.order_by("pk").values_list("archived_at", flat=True)),
            list(Share.objects.order_by("pk").values_list("owner_id", "scope_id", "label_key")))


@pytest.fixture
def ids(household, alice):
    family = household["family"]
    invite, _ = invite_create(scope=family, role="member", created_by=alice)
    invitation = invitation_create(scope=family, username="mallory", role="viewer", invited_by=alice)
    proposed = Candidate.objects.create(scope=family, author=alice, kind="state", label="city", subject="me",
                                        value="Kyoto", quote="we moved to Kyoto", message_at=timezone.now(),
                                        extractor="patterns")
    guess = card_remember(scope=family, actor=alice, draft=CardDraft(
        kind="state", label="likes", subject="me", value="hiking", tag="hypothesis", confidence=0.6)).card
    duplicate = PossibleDuplicate.objects.create(entity=Entity.objects.create(scope=family, name="Mia"),
                                                 similar_to=Entity.objects.create(scope=family, name="Mía"), score=.9)
    # Alice's own scope disagrees with the family about her address: a contradiction to pick from.
    card_remember(scope=alice.personal_scope, actor=alice, draft=CardDraft(
        kind="state", label="address", subject="me", value="Osaka"))
    # Bob says otherwise about her employer in the family: it stands beside her own word, hers to settle.
    card_remember(scope=family, actor=alice, draft=CardDraft(kind="state", label="employer", subject="me",
                                                             value="Harbor"))
    theirs = card_remember(scope=family, actor=household["bob"], draft=CardDraft(
        kind="state", label="employer", subject=alice.entity, value="Atlas")).card
    # The weekly upkeep proposes making the household's card long-term.
    upkeep = UpkeepProposal.objects.create(scope=family, kind="promote", card=household["card"], why="impact",
                                           evidence_at=[timezone.now()])
    project, ended = (scope_create(name=name, kind="project", creator=alice, parent=family)
                      for name in ("Garden", "Attic"))
    for scope in (project, ended):
        membership_set(scope=scope, user=household["bob"], role="admin")
        membership_set(scope=scope, user=household["victor"], role="viewer")
    scope_archive(principal=Principal(user=alice), scope=ended)
    return {"family": family.pk, "project": project.pk, "ended": ended.pk, "card": household["card"].pk,
            "invite": invite.pk, "upkeep": upkeep.pk,
            "victor": household["victor"].pk, "candidate": proposed.pk, "guess": guess.pk,
            "duplicate": duplicate.pk, "entity": duplicate.entity_id, "theirs": theirs.pk,
            "invitation": invitation.pk, "person": alice.entity.pk}


def _call(client, page: Page, ids: dict):
    url = page.url.format(**ids)
    data = {k: v.format(**ids) if isinstance(v, str) else v for k, v in (page.data or {}).items()}
    return client.get(url) if page.method == "GET" else client.post(url, data)


def test_every_page_is_in_the_matrix():
    from memory_site import web_urls

    names = {p.name for p in web_urls.urlpatterns}
    assert names == ({p.name for p in PAGES} | {p.name for p in OWN_PAGES} | {p.name for p in INVITEE_PAGES}
                     | {"rule-decide"} | NOT_IN_MATRIX)


def test_rules_are_decided_by_reviewers_of_the_global_scope_only(client, pages, household):
    """Rules hold for everyone: the global scope's reviewers decide them (everyone views it, so 403, not 404)."""
    from cards.models import Rule, RuleStatus
    from scopes.services import global_scope_get, membership_set

    common = global_scope_get()
    rule = Rule.objects.create(name="club diet", premises=[["?x", "member_of", "?g"], ["?g", "diet", "?d"]],
                               conclusion=["?x", "diet", "?d"], status=RuleStatus.DRAFT)
    url = f"/review/rules/{rule.pk}/approve/"
    assert client.post(url).url.startswith("/accounts/login/")
    assert pages(household["mallory"]).post("/review/rules/999999/approve/").status_code == 404
    assert pages(household["mallory"]).post(url).status_code == 403
    rule.refresh_from_db()
    assert rule.status == RuleStatus.DRAFT
    membership_set(scope=common, user=household["bob"], role="reviewer")
    assert pages(household["bob"]).post(url).status_code == 302
    rule.refresh_from_db()
    assert rule.status != RuleStatus.DRAFT


def _call_own(client, page: Page, ids: dict):
    url = page.url.format(**ids)
    data = {k: [v.format(**ids) for v in vs] if isinstance(vs, list) else vs for k, vs in (page.data or {}).items()}
    return client.get(url) if page.method == "GET" else client.post(url, data)


def _token_state():
    return list(AgentToken.objects.order_by("pk").values_list("pk", "revoked_at"))


@pytest.mark.parametrize("page", OWN_PAGES, ids=lambda p: f"{p.method} {p.name}")
def test_own_pages_sign_in_then_only_the_owner(client, pages, household, alice, ids, page):
    token, _ = token_create(user=alice, name="agent", scopes=[household["family"]])
    ids = dict(ids, token=token.pk)
    answer = _call_own(client, page, ids)
    assert answer.status_code == 302 and answer.url.startswith("/accounts/login/")
    before = _token_state()
    if "{token}" in page.url:  # the person who may see the scope, but not the token
        assert _call_own(pages(household["bob"]), page, ids).status_code == 404
        assert _token_state() == before
    answer = _call_own(pages(alice), page, ids)
    assert answer.status_code in (200, 302), answer.content[:300]
    if page.method == "POST":
        assert _token_state() != before


@pytest.mark.parametrize("page", INVITEE_PAGES, ids=lambda p: f"{p.method} {p.name}")
def test_invitee_pages_sign_in_then_only_the_invitee(client, pages, household, alice, ids, page):
    answer = _call(client, page, ids)
    assert answer.status_code == 302 and answer.url.startswith("/accounts/login/")
    before = _state()
    for someone_else in (alice, household["bob"]):  # the inviter too: it is not theirs to answer
        assert _call(pages(someone_else), page, ids).status_code == 404
    assert _state() == before
    answer = _call(pages(household["mallory"]), page, ids)
    assert answer.status_code == 302, answer.content[:300]
    assert _state() != before


@pytest.mark.parametrize("page", PAGES, ids=lambda p: f"{p.method} {p.name}")
def test_signed_out_people_are_sent_to_sign_in(client, ids, page):
    answer = _call(client, page, ids)
    assert answer.status_code == 302 and answer.url.startswith("/accounts/login/")


@pytest.mark.parametrize("page", PAGES, ids=lambda p: f"{p.method} {p.name}")
def test_a_stranger_gets_404_and_changes_nothing(pages, household, ids, page):
    before = _state()
    answer = _call(pages(household["mallory"]), page, ids)
    assert answer.status_code == 404
    assert b"not yours to see" in answer.content  # the HTML page, not the API's JSON
    assert _state() == before


@pytest.mark.parametrize("page", [p for p in PAGES if p.needs != VIEW], ids=lambda p: f"{p.method} {p.name}")
def test_too_small_a_role_gets_403_and_changes_nothing(pages, household, ids, page):
    weaker = household["victor"] if page.needs == WRITE else household["bob"]
    before = _state()
    answer = _call(pages(weaker), page, ids)
    assert answer.status_code == 403
    assert _state() == before


@pytest.mark.parametrize("page", PAGES, ids=lambda p: f"{p.method} {p.name}")
def test_the_granted_role_is_served(pages, household, alice, ids, page):
    person = alice if WHO[page.needs] == "alice" else household[WHO[page.needs]]
    before = _state()
    answer = _call(pages(person), page, ids)
    assert answer.status_code in (200, 302), answer.content[:300]
    if page.method == "POST":
        assert _state() != before, "the granted change did not happen"


def test_a_missing_scope_or_card_is_the_same_404(pages, household):
    client = pages(household["mallory"])
    assert client.get("/scopes/999999/").status_code == 404
    assert client.get("/cards/999999/").status_code == 404


def test_home_lists_only_scopes_the_person_may_view(pages, household, alice):
    page = pages(household["mallory"]).get("/")
    assert b"Your memory" in page.content and household["family"].name.encode() not in page.content
    assert alice.personal_scope.name.encode() not in page.content


def test_a_parent_scope_needs_the_manage_right(pages, household):
    team = Scope.objects.create(name="Team", kind="team")
    answer = pages(household["bob"]).post("/scopes/new/", {"name": "P", "kind": "project", "parent": team.pk})
    assert answer.status_code == 400 and not Scope.objects.filter(name="P").exists()


SIGNED_IN_PAGES = [Page("home", "GET", "/"), Page("entities", "GET", "/entities/"), Page("review", "GET", "/review/"),
                   Page("person-me", "GET", "/people/me/")]
# One's own account pages (in NOT_IN_MATRIX: nothing of a scope on them); the accessibility check
# (tests/web/test_accessibility_browser.py) visits them with every page above.
ACCOUNT_PAGES = [Page("settings", "GET", "/accounts/settings/"), Page("password_change", "GET", "/accounts/password/"),
                 Page("password_change_done", "GET", "/accounts/password/done/"),
                 Page("account-erase", "GET", "/accounts/erase/")]


@pytest.mark.parametrize("page", PAGES + SIGNED_IN_PAGES, ids=lambda p: f"{p.method} {p.name}")
def test_every_query_of_a_page_reads_scoped_rows_through_a_scope_filter(pages, household, alice, ids, page):
    """The page's view, its helpers and its templates alike (tests/sql_scope.py)."""
    from tests.sql_scope import recorded, unscoped_reads

    person = alice if WHO[page.needs] == "alice" else household[WHO[page.needs]]
    for who in (person, household["victor"], household["mallory"]):
        with recorded() as statements:
            _call(pages(who), page, ids)
        stray = unscoped_reads(statements)
        assert not stray, "\n".join(map(str, stray))


# --- every role × every action, on the pages (issue 16) ----------------------------------------
#
# The household of tests/roles.py, each person signed in; one page request per
# action (tests/api/test_permission_matrix.py reads the same table for the API,
# with tokens). 302 after a change is the page's "done"; for the admin, 302 is
# "sign in": it is for staff and reviewers of shared scopes.

from tests.roles import ACTIONS, PEOPLE, RUN_ORDER, household_of_roles  # noqa: E402

PAGE_REQUESTS = {
    "read": ("GET", "/scopes/{scope}/", None),
    "write": ("POST", "/scopes/{scope}/cards/new/", {"kind": "state", "subject": "me", "label": "skill",
                                                     "value": "Rust", "tag": "fact"}),
    "review": ("GET", "/scopes/{scope}/review/", None),
    "manage members": ("GET", "/scopes/{scope}/members/", None),
    "manage tokens": ("POST", "/tokens/new/", {"name": "agent", "scopes": ["{personal}"], "access": "read",
                                               "days": "9"}),
    "create scope": ("POST", "/scopes/new/", {"name": "New", "kind": "project"}),
    "admin": ("GET", "/admin/", None),
}
#                 read write review members tokens scope admin
PAGE_ROLE_TABLE = {
    "owner":      (200, 302, 200, 200, 302, 302, 200),
    "admin":      (200, 302, 200, 200, 302, 302, 200),
    "member":     (200, 302, 403, 403, 302, 302, 302),
    "reviewer":   (200, 403, 200, 403, 302, 302, 200),
    "viewer":     (200, 403, 403, 403, 302, 302, 302),
    "minor":      (200, 302, 403, 403, 403, 403, 302),
    "non-member": (404, 404, 404, 404, 302, 302, 302),
}


def _page_role_state() -> tuple:
    return (Card.objects.count(), Scope.objects.count(), AgentToken.objects.count())


@pytest.mark.parametrize("who", PEOPLE)
def test_every_person_against_every_action_on_the_pages(pages, alice, who):
    """One household per person, every action in turn; the row is compared whole."""
    people = household_of_roles(alice)
    person = people[who]
    client = pages(person)
    ids = {"scope": people["scope"].pk, "personal": person.personal_scope.pk}
    observed, changed = {}, {}
    for action in RUN_ORDER:
        method, url, data = PAGE_REQUESTS[action]
        url = url.format(**ids)
        data = {k: [x.format(**ids) for x in v] if isinstance(v, list) else v for k, v in (data or {}).items()}
        before = _page_role_state()
        answer = client.get(url) if method == "GET" else client.post(url, data)
        observed[action] = answer.status_code
        if method == "POST":
            changed[action] = _page_role_state() != before
    expected = dict(zip(ACTIONS, PAGE_ROLE_TABLE[who]))
    assert observed == expected
    # A granted change happened; a refused one (403, 404) left everything as it was.
    assert changed == {action: expected[action] in (200, 302) for action in changed}
