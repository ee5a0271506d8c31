"""Agent tokens (API.md "Auth"): format, storage, expiry, revocation, the
once-a-minute last_used_at, management rules, the create_token command and
throttling."""

import datetime as dt
import hashlib
import io
import re

import pytest
from django.core.cache import cache
from django.core.management import CommandError, call_command
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone
from rest_framework.test import APIClient

from core.errors import InvalidInput
from scopes.models import AgentToken
from scopes.services import global_scope_get, membership_remove, membership_set, scope_create
from scopes.tokens import token_create
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db
TOKEN_SHAPE = re.compile(r"^memsite_(?P<id>[0-9a-f]{8})_(?P<secret>[A-Za-z0-9_-]{43,})$")


@pytest.fixture(autouse=True)
def _empty_throttle_cache():
    # Throttles count in Django's cache, which outlives a test's transaction.
    cache.clear()
    yield
    cache.clear()


def client_for(raw: str) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {raw}")
    return client


def refused(response, status: int, code: str) -> dict:
    assert response.status_code == status, (response.status_code, response.content[:300])
    assert response.json()["code"] == code, response.json()
    return response.json()


# --- format and storage ---------------------------------------------------------------------

def test_token_format_is_prefix_hex_id_and_a_long_random_secret(alice):
    raws = [token_create(user=alice, name=f"t{n}", all_scopes=True)[1] for n in range(20)]
    for raw in raws:
        match = TOKEN_SHAPE.match(raw)
        assert match, raw
        assert len(match["secret"]) >= 43  # 32 random bytes, url-safe base64
    assert len({TOKEN_SHAPE.match(raw)["secret"] for raw in raws}) == len(raws)
    assert len({TOKEN_SHAPE.match(raw)["id"] for raw in raws}) == len(raws)


def test_only_a_sha256_of_the_token_is_stored(alice):
    token, raw = token_create(user=alice, name="agent", scopes=[alice.personal_scope])
    secret = TOKEN_SHAPE.match(raw)["secret"]
    row = AgentToken.objects.filter(pk=token.pk).values().get()
    assert row["secret_hash"] == hashlib.sha256(raw.encode()).hexdigest()
    assert row["prefix"] == TOKEN_SHAPE.match(raw)["id"]
    for column, value in row.items():
        assert raw not in str(value) and secret not in str(value), column
    for link in AgentToken.scopes.through.objects.filter(agenttoken_id=token.pk).values():
        assert all(secret not in str(value) for value in link.values())


def test_the_token_is_shown_once_and_never_listed(alice, as_user):
    person = as_user(alice)
    created = person.post("/api/v1/tokens/", {"name": "helper", "scopes": ["personal"]}, format="json")
    assert created.status_code == 201
    raw = created.json()["token"]
    assert TOKEN_SHAPE.match(raw) and created.json()["prefix"] == TOKEN_SHAPE.match(raw)["id"]
    listed = person.get("/api/v1/tokens/")
    assert listed.status_code == 200 and [t["name"] for t in listed.json()["results"]] == ["helper"]
    assert "token" not in listed.json()["results"][0]
    assert TOKEN_SHAPE.match(raw)["secret"].encode() not in listed.content
    assert client_for(raw).get("/api/v1/scopes/").status_code == 200


# --- expiry ---------------------------------------------------------------------------------

def test_expiry_is_required_and_defaults_to_90_days(alice, as_user):
    assert AgentToken._meta.get_field("expires_at").null is False
    token, _ = token_create(user=alice, name="default", all_scopes=True)
    assert abs(token.expires_at - (timezone.now() + dt.timedelta(days=90))) < dt.timedelta(minutes=1)
    for days in (0, -1, None, 367, 10**9, True, "30"):
        with pytest.raises(InvalidInput):
            token_create(user=alice, name="bad", all_scopes=True, days=days)
    person = as_user(alice)
    made = person.post("/api/v1/tokens/", {"name": "api", "scopes": ["all"]}, format="json").json()
    expires = dt.datetime.fromisoformat(made["expires_at"].replace("Z", "+00:00"))
    assert abs(expires - (timezone.now() + dt.timedelta(days=90))) < dt.timedelta(minutes=1)
    for days in (0, None, 367, "forever"):
        body = refused(person.post("/api/v1/tokens/", {"name": "api", "scopes": ["all"], "days": days},
                                   format="json"), 400, "validation_error")
        assert "days" in body["fields"]
    assert AgentToken.objects.count() == 2


def test_an_expired_token_is_refused(alice, bearer):
    agent = bearer(alice, days=1)
    assert agent.get("/api/v1/scopes/").status_code == 200
    AgentToken.objects.update(expires_at=timezone.now() - dt.timedelta(seconds=1))
    body = refused(agent.get("/api/v1/scopes/"), 401, "token_expired")
    assert body["detail"]


# --- revocation and malformed tokens --------------------------------------------------------

def test_revoking_through_the_api_takes_effect_on_the_next_request(alice, as_user):
    person = as_user(alice)
    made = person.post("/api/v1/tokens/", {"name": "helper", "scopes": ["all"], "access": "read+write"},
                       format="json").json()
    agent = client_for(made["token"])
    assert agent.get("/api/v1/cards/").status_code == 200
    assert person.delete(f"/api/v1/tokens/{made['id']}/").status_code == 204
    refused(agent.get("/api/v1/cards/"), 401, "token_revoked")
    listed = person.get("/api/v1/tokens/").json()["results"]
    assert listed[0]["revoked_at"] is not None
    assert person.delete(f"/api/v1/tokens/{made['id']}/").status_code == 204  # idempotent


def test_another_users_token_cannot_be_revoked(alice, as_user):
    bob_token, raw = token_create(user=UserFactory(username="bob"), name="bob's", all_scopes=True)
    refused(as_user(alice).delete(f"/api/v1/tokens/{bob_token.pk}/"), 404, "not_found")
    assert client_for(raw).get("/api/v1/scopes/").status_code == 200


def test_malformed_and_wrong_tokens_are_invalid(alice):
    _, raw = token_create(user=alice, name="agent", all_scopes=True)
    prefix = TOKEN_SHAPE.match(raw)["id"]
    for header in ("Bearer garbage", "Bearer memsite_zz_secret", "Bearer memsite_1234567_x",
                   f"Bearer memsite_{prefix}_wrong-secret", f"Bearer {raw}x", f"Bearer {raw[:-1]}",
                   f"Bearer {raw} extra", "Bearer", f"Bearer othersite_{prefix}_{raw[17:]}",
                   "Bearer memsite_" + "a" * 300, "Bearer memsité_0000000_x", f"Bearer memsite_00000000_{raw[17:]}"):
        client = APIClient()
        client.credentials(HTTP_AUTHORIZATION=header)
        response = client.get("/api/v1/scopes/")
        refused(response, 401, "invalid_token")
        assert response["WWW-Authenticate"].startswith("Bearer")
    refused(APIClient().get("/api/v1/scopes/"), 401, "not_authenticated")


def test_an_inactive_users_token_is_refused(alice, bearer):
    agent = bearer(alice)
    alice.is_active = False
    alice.save(update_fields=["is_active"])
    refused(agent.get("/api/v1/scopes/"), 401, "invalid_token")


# --- last_used_at ---------------------------------------------------------------------------

def _token_updates(captured) -> list[str]:
    return [q["sql"] for q in captured.captured_queries
            if q["sql"].startswith("UPDATE") and "scopes_agenttoken" in q["sql"]]


def test_last_used_at_is_written_at_most_once_a_minute(alice, bearer):
    agent = bearer(alice)
    with CaptureQueriesContext(connection) as captured:
        for _ in range(6):
            assert agent.get("/api/v1/scopes/").status_code == 200
    assert len(_token_updates(captured)) == 1
    first_use = AgentToken.objects.get().last_used_at
    assert first_use is not None
    AgentToken.objects.update(last_used_at=first_use - dt.timedelta(seconds=59))
    with CaptureQueriesContext(connection) as captured:
        agent.get("/api/v1/scopes/")
    assert _token_updates(captured) == []
    AgentToken.objects.update(last_used_at=first_use - dt.timedelta(minutes=2))
    with CaptureQueriesContext(connection) as captured:
        for _ in range(4):
            agent.get("/api/v1/scopes/")
    assert len(_token_updates(captured)) == 1
    assert AgentToken.objects.get().last_used_at > first_use - dt.timedelta(seconds=1)


def test_a_refused_token_is_not_marked_used(alice, bearer):
    agent = bearer(alice)
    AgentToken.objects.update(revoked_at=timezone.now())
    agent.get("/api/v1/scopes/")
    assert AgentToken.objects.get().last_used_at is None


# --- scope of a token -----------------------------------------------------------------------

def test_losing_a_membership_narrows_the_token_at_once(alice, bearer):
    bob = UserFactory(username="bob")
    family = scope_create(name="Home", kind="family", creator=alice)
    membership_set(scope=family, user=bob, role="member")
    card = bearer(alice, write=True).post("/api/v1/cards/", {"scope": family.pk, "kind": "state", "subject": "me",
                                                             "label": "skill", "value": "Go"}, format="json")
    card_id = card.json()["card"]["id"]
    for agent in (bearer(bob, all_scopes=True), bearer(bob, scopes=[family], write=True)):
        assert agent.get(f"/api/v1/cards/{card_id}/").status_code == 200
        assert family.pk in [s["id"] for s in agent.get("/api/v1/scopes/").json()["results"]]
    agents = (bearer(bob, all_scopes=True), bearer(bob, scopes=[family], write=True))
    membership_remove(scope=family, user=bob)
    for agent in agents:
        refused(agent.get(f"/api/v1/cards/{card_id}/"), 404, "not_found")
        refused(agent.get("/api/v1/cards/", {"scope": family.pk}), 404, "not_found")
        assert card_id not in [c["id"] for c in agent.get("/api/v1/cards/").json()["results"]]
        assert family.pk not in [s["id"] for s in agent.get("/api/v1/scopes/").json()["results"]]


def test_a_read_only_token_cannot_write(alice, bearer):
    agent = bearer(alice, scopes=[alice.personal_scope])
    refused(agent.post("/api/v1/cards/", {"scope": alice.personal_scope.pk, "kind": "state", "subject": "me",
                                          "label": "skill", "value": "Go"}, format="json"), 403, "permission_denied")


def test_tokens_cannot_manage_tokens(alice, bearer):
    agent = bearer(alice, write=True)
    own = AgentToken.objects.get()
    refused(agent.get("/api/v1/tokens/"), 403, "permission_denied")
    refused(agent.post("/api/v1/tokens/", {"name": "child", "scopes": ["all"]}, format="json"),
            403, "permission_denied")
    refused(agent.delete(f"/api/v1/tokens/{own.pk}/"), 403, "permission_denied")
    assert AgentToken.objects.count() == 1 and AgentToken.objects.get().revoked_at is None


def test_a_session_creates_tokens_for_chosen_scopes_only(alice, as_user):
    family = scope_create(name="Home", kind="family", creator=alice)
    carol = UserFactory(username="carol")
    person = as_user(alice)
    made = person.post("/api/v1/tokens/", {"name": "home", "scopes": [str(family.pk)]}, format="json")
    assert made.status_code == 201 and made.json()["scopes"] == [family.pk] and made.json()["access"] == "read"
    agent = client_for(made.json()["token"])
    # Common sense is read-only for every token (DESIGN §3), whichever scopes it names.
    assert sorted(s["id"] for s in agent.get("/api/v1/scopes/").json()["results"]) == sorted(
        [family.pk, global_scope_get().pk])
    refused(agent.get("/api/v1/cards/", {"scope": alice.personal_scope.pk}), 404, "not_found")
    for scopes in ([str(carol.personal_scope.pk)], ["all", "personal"], ["١٢"], ["mine"]):
        refused(person.post("/api/v1/tokens/", {"name": "x", "scopes": scopes}, format="json"), 400,
                "validation_error")
    refused(APIClient().post("/api/v1/tokens/", {"name": "x", "scopes": ["all"]}, format="json"),
            401, "not_authenticated")
    assert AgentToken.objects.count() == 1


# --- the create_token command ---------------------------------------------------------------

def run_command(*args) -> str:
    out = io.StringIO()
    call_command("create_token", *args, stdout=out, stderr=io.StringIO())
    return out.getvalue()


def test_the_command_prints_a_working_token_once(alice):
    family = scope_create(name="Home", kind="family", creator=alice)
    output = run_command("--user", "alice", "--scope", str(family.pk), "--scope", "personal", "--write",
                         "--days", "30", "--name", "laptop agent")
    raws = [line for line in output.splitlines() if TOKEN_SHAPE.match(line)]
    assert len(raws) == 1 and output.count(raws[0]) == 1
    assert "not be shown again" in output
    token = AgentToken.objects.get()
    assert token.name == "laptop agent" and token.can_write and not token.all_scopes
    assert sorted(s.pk for s in token.scopes.all()) == sorted([family.pk, alice.personal_scope.pk])
    assert abs(token.expires_at - (timezone.now() + dt.timedelta(days=30))) < dt.timedelta(minutes=1)
    agent = client_for(raws[0])
    created = agent.post("/api/v1/cards/", {"scope": family.pk, "kind": "state", "subject": "me", "label": "skill",
                                            "value": "Go"}, format="json")
    assert created.status_code == 201
    assert sorted(s["id"] for s in agent.get("/api/v1/scopes/").json()["results"]) == sorted(
        [family.pk, alice.personal_scope.pk, global_scope_get().pk])


def test_the_command_all_means_every_scope_now_and_later_read_only_by_default(alice):
    raw = next(line for line in run_command("--user", "alice", "--scope", "all").splitlines()
               if TOKEN_SHAPE.match(line))
    token = AgentToken.objects.get()
    assert token.all_scopes and not token.can_write
    assert abs(token.expires_at - (timezone.now() + dt.timedelta(days=90))) < dt.timedelta(minutes=1)
    later = scope_create(name="Later", kind="family", creator=alice)
    assert later.pk in [s["id"] for s in client_for(raw).get("/api/v1/scopes/").json()["results"]]


@pytest.mark.parametrize("args, words", [
    (["--user", "nobody", "--scope", "all"], "No user named"),
    (["--user", "alice", "--scope", "987654321"], "no scope 987654321"),
    (["--user", "alice", "--scope", "-3"], "not a scope id"),
    (["--user", "alice", "--scope", str(2**70)], "not a scope id"),
    (["--user", "alice", "--scope", "all", "--scope", "personal"], "give it alone"),
    (["--user", "alice", "--scope", "kitchen"], "not a scope id"),
    (["--user", "alice", "--scope", "all", "--days", "0"], "days"),
    (["--user", "alice", "--scope", "all", "--days", "400"], "days"),
    (["--user", "alice", "--scope", "all", "--days", "soon"], "invalid int value"),
    (["--user", "alice", "--scope", "all", "--name", ""], "name"),
    (["--user", "alice", "--scope", "all", "--name", "n" * 101], "name"),
    (["--user", "alice"], "--scope"),
    (["--scope", "all"], "--user"),
])
def test_the_command_refuses_bad_input_with_a_clear_message(alice, args, words):
    with pytest.raises(CommandError) as refusal:
        run_command(*args)
    assert words in str(refusal.value)
    assert AgentToken.objects.count() == 0


def test_the_command_will_not_grant_another_users_scope_or_serve_an_inactive_user(alice):
    carol = UserFactory(username="carol")
    with pytest.raises(CommandError, match=f"no scope {carol.personal_scope.pk}"):
        run_command("--user", "alice", "--scope", str(carol.personal_scope.pk))
    carol.is_active = False
    carol.save(update_fields=["is_active"])
    with pytest.raises(CommandError, match="inactive"):
        run_command("--user", "carol", "--scope", "personal")
    assert AgentToken.objects.count() == 0


# --- throttling -----------------------------------------------------------------------------

@pytest.fixture
def rate(settings):
    def set_rate(value: str) -> None:
        settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK,
                                   "DEFAULT_THROTTLE_RATES": {"agent": value}}
    return set_rate


def test_past_the_rate_the_next_request_is_429_with_retry_after(alice, bearer, rate):
    rate("3/min")
    agent = bearer(alice)
    for _ in range(3):
        assert agent.get("/api/v1/scopes/").status_code == 200
    body = refused(agent.get("/api/v1/scopes/"), 429, "throttled")
    assert isinstance(body["retry_after"], int) and 1 <= body["retry_after"] <= 61
    assert body["detail"]


def test_each_token_and_each_person_has_its_own_budget(alice, bearer, as_user, rate):
    rate("2/min")
    first, second = bearer(alice), bearer(alice)
    for _ in range(2):
        assert first.get("/api/v1/scopes/").status_code == 200
    refused(first.get("/api/v1/scopes/"), 429, "throttled")
    assert second.get("/api/v1/scopes/").status_code == 200
    person = as_user(alice)
    for _ in range(2):
        assert person.get("/api/v1/scopes/").status_code == 200
    refused(person.get("/api/v1/scopes/"), 429, "throttled")
