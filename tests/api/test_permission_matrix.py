"""The permission matrix (STYLE "Tests"): every /api/v1/ endpoint, one line each
in ENDPOINTS, against every kind of principal. Adding an endpoint to urls.py
without a line here fails `test_every_api_route_and_method_is_in_the_matrix`.

The world: alice owns the team "Platform" (a card, an entity "Acme", bob as
member, victor as viewer); carol has no place anywhere (someone to add);
mallory is a stranger to all of it. Expected answers (API.md "Auth"):
anonymous → 401 `not_authenticated`; no grant → 404 on an object (absent from a
list); read-only principal on a write → 403 `permission_denied` and nothing
changes; granted → 2xx. Two designed exceptions, each tested by name: agent
tokens never manage scopes or members (MANAGE rows, even with write access),
and the tokens endpoints (and changing one's own settings, /me/) are for
signed-in people only (403 to any token)."""

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
from review.models import Candidate, IngestJob
from scopes.models import AgentToken, MemberRelation, Membership, Scope, User
from scopes.services import membership_set, scope_create
from scopes.tokens import token_create
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db

READ, WRITE, MANAGE = "read", "write", "manage"  # MANAGE: a write that is for people only, never tokens
# Rules hold for everyone, so they are decided by the reviewers of the global scope,
# not of a team: tested by name in tests/review/test_queue.py.
NOT_IN_MATRIX = {"schema", "docs", "redoc", "rule-approve", "rule-retire"}


@dataclass(frozen=True)
class Endpoint:
    method: str
    url: str  # under /api/v1/, formatted with World.ids
    body: Callable[["World"], dict] | None = None
    access: str = READ
    listed: str | None = None  # list endpoints: which world object must be absent / present
    hidden: int | None = 404  # the answer to a principal with no grant on the object; None: there is no object
    session_only: bool = False  # the tokens endpoints: signed-in people only, never a token

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
    Endpoint("GET", "scopes/{scope}/relations/", session_only=True),
    Endpoint("PUT", "scopes/{scope}/relations/", lambda w: {"member": "bob", "of": "alice", "relation": "colleague"},
             MANAGE, session_only=True),
    Endpoint("DELETE", "scopes/{scope}/relations/", lambda w: {"member": "victor", "of": "alice"}, MANAGE,
             session_only=True),
    Endpoint("GET", "cards/", listed="card"),
    Endpoint("GET", "cards/?scope={scope}"),  # a read in a scope: the scope is the object
    Endpoint("POST", "cards/", card_body, WRITE),
    Endpoint("POST", "cards/bulk/", lambda w: {"cards": [card_body(w)]}, WRITE),
    Endpoint("GET", "cards/{card}/"),
    Endpoint("PATCH", "cards/{card}/", lambda w: {"text": "Writes Go every day"}, WRITE),
    Endpoint("DELETE", "cards/{card}/", access=WRITE),
    Endpoint("GET", "cards/{card}/history/"),
    Endpoint("POST", "cards/{card}/verify/", access=WRITE),
    # Asking writes nothing to the memory: whoever may read the card may say it was asked about.
    Endpoint("POST", "cards/{card}/asked/"),
    Endpoint("POST", "entities/", lambda w: {"scope": w.ids["scope"], "name": "Globex"}, WRITE),
    Endpoint("POST", "entities/resolve/", lambda w: {"scope": w.ids["scope"], "name": "Acme"}),  # a read
    Endpoint("GET", "entities/{entity}/"),
    Endpoint("POST", "entities/{entity}/aliases/", lambda w: {"name": "Acme Corp"}, WRITE),
    Endpoint("POST", "answer/", lambda w: {"scope": w.ids["scope"], "subject": "me", "label": "skill"}),  # a read
    Endpoint("POST", "count/", lambda w: {"scope": w.ids["scope"], "label": "skill"}),  # a read
    Endpoint("POST", "cards/{hypothesis}/confirm/", lambda w: {"quote": "yes, jazz"}, WRITE),
    Endpoint("POST", "cards/{hypothesis}/reject/", lambda w: {"reason": "no"}, WRITE),
    Endpoint("GET", "probes/next/?scope={scope}"),
    Endpoint("POST", "ingest/", lambda w: {"scope": w.ids["scope"], "session": "s9", "messages": [
        {"role": "user", "text": "I like green tea.", "at": "2026-05-08T16:44:10+08:00"}]}, WRITE),
    Endpoint("GET", "ingest/{job}/"),
    # Reviewing is for people with the review role: read-only principals and every token get 403.
    Endpoint("GET", "review/?scope={scope}", access=MANAGE),
    Endpoint("POST", "review/{candidate}/approve/", lambda w: {}, MANAGE),
    Endpoint("POST", "review/{candidate}/reject/", lambda w: {"reason": "not said"}, MANAGE),
    Endpoint("POST", "review/duplicates/{duplicate}/merge/", lambda w: {}, MANAGE),
    Endpoint("POST", "review/duplicates/{duplicate}/keep/", lambda w: {}, MANAGE),
    Endpoint("POST", "review/contradictions/pick/", lambda w: {"scope": w.ids["scope"], "card": w.ids["disputed"]},
             MANAGE),
    Endpoint("POST", "recall/", lambda w: {"scope": w.ids["scope"], "query": "programming skills"}),  # a read
    Endpoint("GET", "context/?scope={scope}&query=programming+skills"),
    Endpoint("POST", "time/resolve/", lambda w: {"expression": "yesterday"}, hidden=None),  # a pure function
    Endpoint("GET", "export/?scope={scope}"),
    # One's own settings: there is no one else's to hide. Tokens read them; only the person changes them.
    Endpoint("GET", "me/", hidden=None),
    Endpoint("PATCH", "me/", lambda w: {"time_zone": "Europe/Lisbon"}, WRITE, hidden=None, session_only=True),
    Endpoint("GET", "tokens/", listed="token", session_only=True),
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
    bob, victor, mallory = (UserFactory(username=name) for name in ("bob", "victor", "mallory"))
    UserFactory(username="carol")
    team = scope_create(name="Platform", kind="team", creator=alice)
    membership_set(scope=team, user=bob, role="member")
    membership_set(scope=team, user=victor, role="viewer", relation="report", relation_of=alice)
    card = card_remember(scope=team, actor=alice,
                         draft=CardDraft(kind="state", label="skill", subject="me", value="Go")).card
    entity = entity_create(scope=team, name="Acme")
    token, _ = token_create(user=alice, name="laptop agent", scopes=[team])
    hypothesis = card_remember(scope=team, actor=alice, draft=CardDraft(
        kind="state", label="likes", subject="me", value="jazz", tag="hypothesis", confidence=0.6)).card
    card_remember(scope=alice.personal_scope, actor=alice,
                  draft=CardDraft(kind="state", label="city", subject="me", value="Taipei"))
    disputed = card_remember(scope=team, actor=alice,
                             draft=CardDraft(kind="state", label="city", subject="me", value="Kyoto")).card
    candidate = Candidate.objects.create(scope=team, author=alice, kind="state", label="skill", subject="me",
                                         value="Rust", quote="I write Rust", message_at=timezone.now(),
                                         extractor="patterns")
    job = IngestJob.objects.create(scope=team, session="s1", created_by=alice, extractor="patterns", status="done")
    entity_create(scope=team, name="Acme Inc")  # looks like "Acme": a possible duplicate for review
    duplicate = PossibleDuplicate.objects.get(entity__name="Acme Inc")
    clients = {
        "anonymous": APIClient(),
        "stranger_session": _session(mallory),
        "stranger_token": _bearer(mallory, can_write=True, all_scopes=True),
        "viewer_session": _session(victor),
        "viewer_write_token": _bearer(victor, can_write=True, scopes=[team]),  # never more than the user has
        "read_token": _bearer(alice, can_write=False, scopes=[team]),
        "owner_session": _session(alice),
        "owner_write_token": _bearer(alice, can_write=True, scopes=[team]),
    }
    ids = {"scope": team.pk, "card": card.pk, "entity": entity.pk, "member": "bob", "token": token.pk,
           "hypothesis": hypothesis.pk, "disputed": disputed.pk, "candidate": candidate.pk, "job": job.pk,
           "duplicate": duplicate.pk}
    return World(ids=ids, clients=clients)


def snapshot(world: World) -> tuple:
    """Everything a write in the matrix could change; a refused request leaves it equal."""
    card = Card.objects.filter(pk=world.ids["card"]).values("text", "verified_at").first()
    return (Scope.objects.count(), Card.objects.count(), Entity.objects.count(), Alias.objects.count(),
            CardRevision.objects.count(), card, IngestJob.objects.count(),
            sorted(Card.objects.values_list("pk", "tag", "superseded_at")),
            sorted(Candidate.objects.values_list("pk", "status")),
            sorted(PossibleDuplicate.objects.values_list("pk", "status")),
            sorted(Membership.objects.filter(scope_id=world.ids["scope"]).values_list("user__username", "role")),
            sorted(AgentToken.objects.values_list("pk", "revoked_at")),
            sorted(MemberRelation.objects.values_list("member__username", "of__username", "relation")),
            User.objects.filter(username="alice").values_list("time_zone", "language").get())


def listed_ids(response) -> set[int]:
    return {row["id"] for row in response.json()["results"]}


def cases(endpoints, principals):
    return [pytest.param(e, who, id=f"{e}-{who}") for e in endpoints for who in principals]


NOT_SESSION_ONLY = [e for e in ENDPOINTS if not e.session_only]
SESSION_ONLY = [e for e in ENDPOINTS if e.session_only]
TOKENS = ["stranger_token", "viewer_write_token", "read_token", "owner_write_token"]


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
           "candidate": 1, "job": 1, "duplicate": 1}
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
