"""The permission matrix (STYLE "Tests"): every /api/v1/ endpoint, one line each
in ENDPOINTS, against every kind of principal. Adding an endpoint to urls.py
without a line here fails `test_every_api_route_and_method_is_in_the_matrix`.

The world: alice owns the team "Platform" with olga (a card, an entity "Acme",
bob as member, victor as viewer); olga's book club has invited alice (an
invitation is its invitee's own: the invitations endpoints are alice's as the
tokens endpoints are); carol has no place anywhere (someone to invite);
mallory is a stranger to all of it. Expected answers (API.md "Auth"):
anonymous → 401 `not_authenticated`; no grant → 404 on an object (absent from a
list); read-only principal on a write → 403 `permission_denied` and nothing
changes; granted → 2xx. Two designed exceptions, each tested by name: agent
tokens never manage scopes or members (MANAGE rows, even with write access),
and the tokens endpoints (and changing one's own settings, /me/, and one's own
part of the review queue) are for signed-in people only (403 to any token). A
propose-only token reads, proposes where a write would be (202, a candidate),
and is refused every other write.

At the end, `test_every_role_against_every_action`: every role (owner, admin,
member, reviewer, viewer, a minor, a non-member, and a read, a read+write and a
propose token) against every action (read, write, review, manage members,
manage tokens, create a scope, open the admin), as one table."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import pytest
from django.urls import URLResolver, get_resolver, resolve
from django.utils import timezone
from rest_framework.test import APIClient

from cards.drafts import CardDraft
from cards.models import Alias, Card, CardRevision, Entity, PossibleDuplicate
from cards.services import card_remember, entity_create
from review.models import Candidate, IngestJob, UpkeepProposal
from scopes.invites import invitation_create
from scopes.models import AgentToken, Invitation, MemberRelation, Membership, Scope, Share, User
from scopes.services import membership_set, scope_create
from scopes.tokens import token_create
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db

READ, WRITE, MANAGE = "read", "write", "manage"  # MANAGE: a write that is for people only, never tokens
# Rules hold for everyone, so they are decided by the reviewers of the global scope,
# not of a team: tested by name in tests/review/test_queue.py.
NOT_IN_MATRIX = {"schema", "docs", "redoc", "rule-approve", "rule-retire",
                 # One's own account, erased by its signed-in person only: every principal's answer
                 # (401, 403 to any token, a wrong password) is tested by name in tests/cards/test_erase.py.
                 "account",
                 # Only a project is archived, and the world's scope is a team: every principal's answer
                 # (401, 404, 403 to a token, an admin and a viewer, 400 for a team) is tested by name in
                 # tests/scopes/test_archive.py.
                 "scope-archive", "scope-restore"}


@dataclass(frozen=True)
class Endpoint:
    method: str
    url: str  # under /api/v1/, formatted with World.ids
    body: Callable[["World"], dict] | None = None
    access: str = READ
    listed: str | None = None  # list endpoints: which world object must be absent / present
    hidden: int | None = 404  # the answer to a principal with no grant on the object; None: there is no object
    session_only: bool = False  # the tokens endpoints: signed-in people only, never a token
    proposes: bool = False  # a propose-only token's write here becomes a candidate (202), never a card

    def __str__(self) -> str:
        return f"{self.method} {self.url}"


def card_body(world: "World") -> dict:
    return {"scope": world.ids["scope"], "kind": "state", "subject": "me", "label": "skill", "value": "Rust"}


ENDPOINTS = [
    Endpoint("GET", "scopes/", listed="scope"),
    Endpoint("POST", "scopes/", lambda w: {"name": "Search", "kind": "project", "parent": w.ids["scope"]}, MANAGE),
    Endpoint("GET", "scopes/{scope}/"),
    Endpoint("GET", "scopes/{scope}/members/"),
    Endpoint("POST", "scopes/{scope}/members/", lambda w: {"username": "carol", "role": "member"}, MANAGE),
    Endpoint("PATCH", "scopes/{scope}/members/{member}/", lambda w: {"role": "reviewer"}, MANAGE),
    Endpoint("DELETE", "scopes/{scope}/members/{member}/", access=MANAGE),
    # Leaving and answering invitations change one's own memberships: people only, never a token.
    Endpoint("POST", "scopes/{scope}/leave/", access=MANAGE, session_only=True),
    Endpoint("GET", "invitations/", listed="invitation", session_only=True),
    Endpoint("POST", "invitations/{invitation}/accept/", access=MANAGE, session_only=True),
    Endpoint("POST", "invitations/{invitation}/decline/", access=MANAGE, session_only=True),
    # A scope's open invitations are its managers' to see and take back: people only.
    Endpoint("GET", "scopes/{scope}/invitations/", access=MANAGE, session_only=True),
    Endpoint("POST", "scopes/{scope}/invitations/{asked}/withdraw/", access=MANAGE, session_only=True),
    Endpoint("GET", "scopes/{scope}/relations/", session_only=True),
    Endpoint("PUT", "scopes/{scope}/relations/", lambda w: {"member": "bob", "of": "alice", "relation": "colleague"},
             MANAGE, session_only=True),
    Endpoint("DELETE", "scopes/{scope}/relations/", lambda w: {"member": "victor", "of": "alice"}, MANAGE,
             session_only=True),
    Endpoint("GET", "cards/", listed="card"),
    Endpoint("GET", "cards/?scope={scope}"),  # a read in a scope: the scope is the object
    Endpoint("POST", "cards/", card_body, WRITE, proposes=True),
    Endpoint("POST", "cards/bulk/", lambda w: {"cards": [card_body(w)]}, WRITE, proposes=True),
    Endpoint("GET", "cards/{card}/"),
    Endpoint("PATCH", "cards/{card}/", lambda w: {"text": "Writes Go every day"}, WRITE),
    Endpoint("DELETE", "cards/{card}/", access=WRITE),
    Endpoint("GET", "cards/{card}/history/"),
    Endpoint("POST", "cards/{card}/verify/", access=WRITE),
    # An event said wrongly is corrected in place (its old date kept as a revision): the PATCH rule.
    Endpoint("POST", "cards/{event}/correct/", lambda w: {"when": "2026-05-03", "object": "Porto"}, WRITE),
    # Forgetting a timeline or a subject: the single card's rule (write in its scope), asked of every card.
    Endpoint("POST", "forget/", lambda w: {"scope": w.ids["scope"], "subject": "me", "label": "skill"}, WRITE),
    # Asking writes nothing to the memory: whoever may read the card may say it was asked about.
    Endpoint("POST", "cards/{card}/asked/"),
    Endpoint("POST", "entities/", lambda w: {"scope": w.ids["scope"], "name": "Globex"}, WRITE),
    Endpoint("POST", "entities/resolve/", lambda w: {"scope": w.ids["scope"], "name": "Acme"}),  # a read
    Endpoint("GET", "entities/{entity}/"),
    Endpoint("POST", "entities/{entity}/aliases/", lambda w: {"name": "Acme Corp"}, WRITE),
    Endpoint("POST", "answer/", lambda w: {"scope": w.ids["scope"], "subject": "me", "label": "skill"}),  # a read
    Endpoint("POST", "ask/", lambda w: {"scope": w.ids["scope"], "question": "What are my skills?"}),  # a read
    Endpoint("POST", "count/", lambda w: {"scope": w.ids["scope"], "label": "skill"}),  # a read
    Endpoint("POST", "cards/{hypothesis}/confirm/", lambda w: {"quote": "yes, jazz"}, WRITE),
    Endpoint("POST", "cards/{hypothesis}/reject/", lambda w: {"reason": "no"}, WRITE),
    Endpoint("GET", "probes/next/?scope={scope}"),
    Endpoint("POST", "ingest/", lambda w: {"scope": w.ids["scope"], "session": "s9", "messages": [
        {"role": "user", "text": "I like green tea.", "at": "2026-05-08T16:44:10+08:00"}]}, WRITE, proposes=True),
    Endpoint("GET", "ingest/{job}/"),
    # Reviewing is for people with the review role: read-only principals and every token get 403.
    Endpoint("GET", "review/?scope={scope}", access=MANAGE),
    Endpoint("POST", "review/{candidate}/approve/", lambda w: {}, MANAGE),
    Endpoint("POST", "review/{candidate}/reject/", lambda w: {"reason": "not said"}, MANAGE),
    Endpoint("POST", "review/duplicates/{duplicate}/merge/", lambda w: {}, MANAGE),
    Endpoint("POST", "review/duplicates/{duplicate}/keep/", lambda w: {}, MANAGE),
    Endpoint("POST", "review/upkeep/{upkeep}/approve/", lambda w: {}, MANAGE),
    Endpoint("POST", "review/upkeep/{upkeep}/reject/", lambda w: {}, MANAGE),
    Endpoint("POST", "review/contradictions/pick/", lambda w: {"scope": w.ids["scope"], "card": w.ids["disputed"]},
             MANAGE),
    # One's own part of the queue: what others said about you, whatever your role. A person's, never a token's;
    # anyone but the person it is about is refused by name in tests/review/test_said_about_you.py.
    Endpoint("GET", "review/", hidden=None, session_only=True),
    Endpoint("POST", "review/said-about-you/pick/", lambda w: {"card": w.ids["theirs"]}, WRITE, session_only=True),
    Endpoint("POST", "recall/", lambda w: {"scope": w.ids["scope"], "query": "programming skills"}),  # a read
    Endpoint("GET", "context/?scope={scope}&query=programming+skills"),
    Endpoint("GET", "profile/?scope={scope}"),  # how to talk to the caller's own person: a read
    Endpoint("POST", "time/resolve/", lambda w: {"expression": "yesterday"}, hidden=None),  # a pure function
    Endpoint("GET", "export/?scope={scope}"),
    # One's own settings: there is no one else's to hide. Tokens read them; only the person changes them.
    Endpoint("GET", "me/", hidden=None),
    Endpoint("PATCH", "me/", lambda w: {"time_zone": "Europe/Lisbon"}, WRITE, hidden=None, session_only=True),
    # What one shares with one's families and teams: a person's choice, never a token's; a scope one does not
    # belong to is as absent as any other.
    Endpoint("GET", "me/sharing/", hidden=None, session_only=True),
    Endpoint("PUT", "me/sharing/", lambda w: {"scope": w.ids["scope"], "labels": ["skill"]}, WRITE,
             session_only=True),
    Endpoint("GET", "tokens/", listed="token", session_only=True),
    # A guardian's view of the tokens of the minors they look after: everyone has one (often empty).
    Endpoint("GET", "tokens/minors/", hidden=None, session_only=True),
    # The scope is in the body; a scope you cannot see is refused like a missing one ("no scope N of yours").
    Endpoint("POST", "tokens/", lambda w: {"name": "agent", "scopes": [str(w.ids["scope"])]}, WRITE, hidden=400,
             session_only=True),
    Endpoint("DELETE", "tokens/{token}/", access=WRITE, session_only=True),
]


@dataclass
class World:
    ids: dict
    clients: dict[str, APIClient]

    def send(self, who: str, endpoint: Endpoint):
        client = self.clients[who]
        url = "/api/v1/" + endpoint.url.format(**self.ids)
        call = getattr(client, endpoint.method.lower())
        if endpoint.body is None:
            return call(url)
        return call(url, endpoint.body(self), format="json")


def _session(user) -> APIClient:
    client = APIClient()
    client.force_login(user)
    return client


def _bearer(user, **grant) -> APIClient:
    _, raw = token_create(user=user, name="agent", **grant)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {raw}")
    return client


@pytest.fixture
def world(alice) -> World:
    bob, victor, mallory, olga = (UserFactory(username=name) for name in ("bob", "victor", "mallory", "olga"))
    UserFactory(username="carol")
    team = scope_create(name="Platform", kind="team", creator=alice)
    membership_set(scope=team, user=olga, role="owner")  # so that alice may leave it
    club = scope_create(name="Book club", kind="family", creator=olga)
    invitation = invitation_create(scope=club, username="alice", role="member", invited_by=olga)
    asked = invitation_create(scope=team, username="nobody by that name", role="viewer", invited_by=alice)
    membership_set(scope=team, user=bob, role="member")
    membership_set(scope=team, user=victor, role="viewer", relation="report", relation_of=alice)
    card = card_remember(scope=team, actor=alice,
                         draft=CardDraft(kind="state", label="skill", subject="me", value="Go")).card
    entity = entity_create(scope=team, name="Acme")
    event = card_remember(scope=team, actor=alice, draft=CardDraft(
        kind="event", label="trip", subject="me", value="Lisbon offsite")).card
    token, _ = token_create(user=alice, name="laptop agent", scopes=[team])
    hypothesis = card_remember(scope=team, actor=alice, draft=CardDraft(
        kind="state", label="likes", subject="me", value="jazz", tag="hypothesis", confidence=0.6)).card
    card_remember(scope=alice.personal_scope, actor=alice,
                  draft=CardDraft(kind="state", label="city", subject="me", value="Taipei"))
    disputed = card_remember(scope=team, actor=alice,
                             draft=CardDraft(kind="state", label="city", subject="me", value="Kyoto")).card
    # Bob says otherwise about alice: it stands beside her own word, hers to settle.
    theirs = card_remember(scope=team, actor=bob,
                           draft=CardDraft(kind="state", label="city", subject=alice.entity, value="Osaka")).card
    candidate = Candidate.objects.create(scope=team, author=alice, kind="state", label="skill", subject="me",
                                         value="Rust", quote="I write Rust", message_at=timezone.now(),
                                         extractor="patterns")
    job = IngestJob.objects.create(scope=team, session="s1", created_by=alice, extractor="patterns", status="done")
    entity_create(scope=team, name="Acme Inc")  # looks like "Acme": a possible duplicate for review
    duplicate = PossibleDuplicate.objects.get(entity__name="Acme Inc")
    upkeep = UpkeepProposal.objects.create(scope=team, kind="promote", card=card, why="impact",
                                           evidence_at=[timezone.now()])
    clients = {
        "anonymous": APIClient(),
        "stranger_session": _session(mallory),
        "stranger_token": _bearer(mallory, can_write=True, all_scopes=True),
        "viewer_session": _session(victor),
        "viewer_write_token": _bearer(victor, can_write=True, scopes=[team]),  # never more than the user has
        "read_token": _bearer(alice, can_write=False, scopes=[team]),
        "owner_session": _session(alice),
        "owner_write_token": _bearer(alice, can_write=True, scopes=[team]),
        "owner_propose_token": _bearer(alice, proposes=True, scopes=[team]),
    }
    ids = {"scope": team.pk, "card": card.pk, "entity": entity.pk, "member": "bob", "token": token.pk,
           "hypothesis": hypothesis.pk, "disputed": disputed.pk, "theirs": theirs.pk, "candidate": candidate.pk,
           "job": job.pk, "duplicate": duplicate.pk, "invitation": invitation.pk, "asked": asked.pk,
           "upkeep": upkeep.pk, "event": event.pk}
    return World(ids=ids, clients=clients)


def snapshot(world: World) -> tuple:
    """Everything a write in the matrix could change; a refused request leaves it equal."""
    card = Card.objects.filter(pk=world.ids["card"]).values("text", "verified_at").first()
    return (Scope.objects.count(), Card.objects.count(), Entity.objects.count(), Alias.objects.count(),
            CardRevision.objects.count(), card, IngestJob.objects.count(),
            sorted(Card.objects.values_list("pk", "tag", "superseded_at")),
            sorted(Candidate.objects.values_list("pk", "status")),
            sorted(PossibleDuplicate.objects.values_list("pk", "status")),
            sorted(UpkeepProposal.objects.values_list("pk", "status")),
            sorted(Card.objects.values_list("pk", "long_term_at")),
            sorted(Membership.objects.filter(scope_id=world.ids["scope"]).values_list("user__username", "role")),
            sorted(AgentToken.objects.values_list("pk", "revoked_at")),
            sorted(MemberRelation.objects.values_list("member__username", "of__username", "relation")),
            sorted(Invitation.objects.values_list("pk", "username", "role", "status")),
            sorted(Membership.objects.filter(user__username="alice").values_list("scope_id", "role")),
            User.objects.filter(username="alice").values_list("time_zone", "language").get(),
            sorted(Share.objects.values_list("owner__username", "scope_id", "label_key")))


def listed_ids(response) -> set[int]:
    return {row["id"] for row in response.json()["results"]}


def cases(endpoints, principals):
    return [pytest.param(e, who, id=f"{e}-{who}") for e in endpoints for who in principals]


NOT_SESSION_ONLY = [e for e in ENDPOINTS if not e.session_only]
SESSION_ONLY = [e for e in ENDPOINTS if e.session_only]
TOKENS = ["stranger_token", "viewer_write_token", "read_token", "owner_write_token", "owner_propose_token"]


# --- the table is complete ----------------------------------------------------------------

def _api_routes() -> dict[str, set[str]]:
    """{route name: HTTP methods its view implements} for every route under api/v1/."""
    api = next(p for p in get_resolver().url_patterns
               if isinstance(p, URLResolver) and str(p.pattern) == "api/v1/")
    routes = {}
    for pattern in api.url_patterns:
        view = pattern.callback.view_class
        routes[pattern.name] = {m.upper() for m in view.http_method_names
                                if m not in ("options", "head") and hasattr(view, m)}
    return routes


def test_every_api_route_and_method_is_in_the_matrix():
    ids = {"scope": 1, "card": 1, "entity": 1, "member": "bob", "token": 1, "hypothesis": 1, "disputed": 1,
           "theirs": 1, "candidate": 1, "job": 1, "duplicate": 1, "invitation": 1, "asked": 1, "upkeep": 1,
           "event": 1}
    covered: dict[str, set[str]] = {}
    for endpoint in ENDPOINTS:
        path = "/api/v1/" + endpoint.url.format(**ids).split("?")[0]
        covered.setdefault(resolve(path).url_name, set()).add(endpoint.method)
    expected = {name: methods for name, methods in _api_routes().items() if name not in NOT_IN_MATRIX}
    assert covered == expected


# --- anonymous ----------------------------------------------------------------------------

@pytest.mark.parametrize("endpoint", ENDPOINTS, ids=str)
def test_anonymous_gets_401_not_authenticated(world, endpoint):
    before = snapshot(world)
    response = world.send("anonymous", endpoint)
    assert response.status_code == 401, response.content
    assert response.json()["code"] == "not_authenticated"
    assert snapshot(world) == before


# --- no grant on the object ----------------------------------------------------------------

@pytest.mark.parametrize("endpoint, who", cases(NOT_SESSION_ONLY, ["stranger_session", "stranger_token"])
                         + cases(SESSION_ONLY, ["stranger_session"]))
def test_principal_without_grant_gets_404_or_an_absent_object(world, endpoint, who):
    before = snapshot(world)
    response = world.send(who, endpoint)
    if endpoint.listed:
        assert response.status_code == 200, response.content
        assert world.ids[endpoint.listed] not in listed_ids(response)
    elif endpoint.hidden is None:  # nothing to hide: any signed-in principal may call it
        assert response.status_code == 200, response.content
    else:
        assert response.status_code == endpoint.hidden, response.content
        assert response.json()["code"] == {404: "not_found", 400: "validation_error"}[endpoint.hidden]
    assert snapshot(world) == before


# --- read-only principals ----------------------------------------------------------------

@pytest.mark.parametrize("endpoint, who", cases(NOT_SESSION_ONLY, ["viewer_session", "read_token",
                                                                    "viewer_write_token"]))
def test_read_only_principal_reads_but_never_writes(world, endpoint, who):
    before = snapshot(world)
    response = world.send(who, endpoint)
    if endpoint.access == READ:
        assert 200 <= response.status_code < 300, response.content
        if endpoint.listed:
            assert world.ids[endpoint.listed] in listed_ids(response)
    else:
        assert response.status_code == 403, response.content
        assert response.json()["code"] == "permission_denied"
        assert snapshot(world) == before


# --- granted principals ----------------------------------------------------------------------

@pytest.mark.parametrize("endpoint, who", cases(NOT_SESSION_ONLY, ["owner_session"])
                         + cases([e for e in NOT_SESSION_ONLY if e.access != MANAGE], ["owner_write_token"])
                         + cases(SESSION_ONLY, ["owner_session"]))
def test_granted_principal_gets_2xx(world, endpoint, who):
    before = snapshot(world)
    response = world.send(who, endpoint)
    assert 200 <= response.status_code < 300, response.content
    if endpoint.listed:
        assert world.ids[endpoint.listed] in listed_ids(response)
    if endpoint.access != READ and endpoint.method != "GET":
        assert snapshot(world) != before  # the write happened


@pytest.mark.parametrize("endpoint", [e for e in ENDPOINTS if e.access == MANAGE], ids=str)
def test_agent_tokens_never_manage_scopes_even_with_write_access(world, endpoint):
    before = snapshot(world)
    response = world.send("owner_write_token", endpoint)
    assert response.status_code == 403, response.content
    assert response.json()["code"] == "permission_denied"
    assert snapshot(world) == before


@pytest.mark.parametrize("endpoint", NOT_SESSION_ONLY, ids=str)
def test_a_propose_token_reads_proposes_and_changes_nothing_else(world, endpoint):
    before = snapshot(world)
    response = world.send("owner_propose_token", endpoint)
    if endpoint.access == READ:
        assert 200 <= response.status_code < 300, response.content
    elif endpoint.proposes:
        assert response.status_code == 202, response.content
        after = snapshot(world)
        assert after[1:6] == before[1:6] and after[7] == before[7]  # no card, entity, alias, revision, change
        # A candidate waits for a person (ingest: its job, whose extraction runs once the request commits).
        assert len(after[8]) > len(before[8]) or after[6] > before[6]
    else:
        assert response.status_code == 403, response.content
        assert response.json()["code"] == "permission_denied"
        assert snapshot(world) == before


@pytest.mark.parametrize("endpoint, who", cases(SESSION_ONLY, TOKENS))
def test_tokens_endpoints_are_session_only_and_refuse_every_token(world, endpoint, who):
    before = snapshot(world)
    response = world.send(who, endpoint)
    assert response.status_code == 403, response.content
    assert response.json()["code"] == "permission_denied"
    assert snapshot(world) == before


# --- every read of scoped rows is restricted (tests/sql_scope.py) ------------------------------

@pytest.mark.parametrize("endpoint, who", cases(NOT_SESSION_ONLY, ["owner_session", "viewer_session", "read_token",
                                                                    "stranger_session"]))
def test_every_query_of_a_request_reads_scoped_rows_through_a_scope_filter(world, endpoint, who):
    from tests.sql_scope import recorded, unscoped_reads

    with recorded() as statements:
        world.send(who, endpoint)
    stray = unscoped_reads(statements)
    assert not stray, "\n".join(map(str, stray))


# --- every role × every action (issue 16) ------------------------------------------------------
#
# One family (tests/roles.py): a person in each role, a minor (a member the owner
# marked so), a stranger, and the owner's three kinds of token. One request stands
# for each action; the table says what each principal gets. Propose-only tokens
# write by proposing (202: a candidate, no card); minors make no tokens or scopes;
# the admin is for staff and reviewers of shared scopes (302: sent to sign in).

from tests.roles import ACTIONS, RUN_ORDER, household_of_roles  # noqa: E402

ROLE_REQUESTS = {
    "read": ("GET", "cards/?scope={scope}", None),
    "write": ("POST", "cards/", lambda ids: {"scope": ids["scope"], "kind": "state", "subject": "me",
                                            "label": "skill", "value": "Rust"}),
    "review": ("GET", "review/?scope={scope}", None),
    "manage members": ("PATCH", "scopes/{scope}/members/victor/", lambda ids: {"relation": "cousin"}),
    "manage tokens": ("POST", "tokens/", lambda ids: {"name": "agent", "scopes": ["personal"]}),
    "create scope": ("POST", "scopes/", lambda ids: {"name": "New", "kind": "project"}),
    "admin": ("GET", "/admin/", None),
}
#                       read write review members tokens scope admin
ROLE_TABLE = {
    "owner":            (200, 201, 200, 200, 201, 201, 200),
    "admin":            (200, 201, 200, 200, 201, 201, 200),
    "member":           (200, 201, 403, 403, 201, 201, 302),
    "reviewer":         (200, 403, 200, 403, 201, 201, 200),
    "viewer":           (200, 403, 403, 403, 201, 201, 302),
    "minor":            (200, 201, 403, 403, 403, 403, 302),
    "non-member":       (404, 404, 404, 404, 201, 201, 302),
    "read token":       (200, 403, 403, 403, 403, 403, 302),
    "read+write token": (200, 201, 403, 403, 403, 201, 302),
    "propose token":    (200, 202, 403, 403, 403, 403, 302),
}
TOKEN_GRANTS = {"read token": {"scopes": "home"}, "read+write token": {"can_write": True, "all_scopes": True},
                "propose token": {"proposes": True, "scopes": "home"}}


def _role_client(people: dict, who: str) -> APIClient:
    if who in TOKEN_GRANTS:
        grant = dict(TOKEN_GRANTS[who])
        if grant.get("scopes") == "home":
            grant["scopes"] = [people["scope"]]
        return _bearer(people["owner"], **grant)
    return _session(people[who])


def _role_state() -> tuple:
    return (Card.objects.count(), Candidate.objects.count(), Scope.objects.count(), AgentToken.objects.count(),
            sorted(MemberRelation.objects.values_list("member__username", "of__username", "relation")))


@pytest.mark.parametrize("who", ROLE_TABLE)
def test_every_role_against_every_action(alice, who):
    """One household per principal, every action in turn (in RUN_ORDER: none changes what a later one meets);
    the row it gets is compared whole, so a failure shows every wrong cell at once."""
    people = household_of_roles(alice)
    client = _role_client(people, who)
    ids = {"scope": people["scope"].pk}
    observed, unchanged = {}, {}
    for action in RUN_ORDER:
        method, url, body = ROLE_REQUESTS[action]
        url = url.format(**ids)
        url = url if url.startswith("/") else "/api/v1/" + url
        before = _role_state()
        call = getattr(client, method.lower())
        response = call(url) if body is None else call(url, body(ids), format="json")
        observed[action] = response.status_code
        if response.status_code == 403 and who == "minor" and action in ("manage tokens", "create scope"):
            observed[action] = (403, response.json()["code"])
        if response.status_code >= 300 or method == "GET":
            unchanged[action] = _role_state() == before  # refused (or a read): nothing changed
        elif response.status_code == 202:
            unchanged[action] = _role_state()[:2] == (before[0], before[1] + 1)  # a candidate, no card
    expected = dict(zip(ACTIONS, ROLE_TABLE[who]))
    if who == "minor":
        expected.update({"manage tokens": (403, "minor_not_allowed"), "create scope": (403, "minor_not_allowed")})
    assert observed == expected
    assert all(unchanged.values()), unchanged
