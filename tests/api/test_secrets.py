"""Token secrets are nowhere at rest: not in any table (checked with a real
pg_dump of the test database) and not in any log line, including the SQL the
requests ran and the warnings failed authentication writes.

The test commits (transaction=True) so that pg_dump, a separate connection,
sees the rows; serialized_rollback restores the migrated data (labels)
afterwards for the tests that follow."""

import io
import logging
import re

import pytest
from django.core.management import call_command
from django.db import connection
from django.test.utils import CaptureQueriesContext
from rest_framework.test import APIClient

from scopes.models import AgentToken
from tests.db_dump import pg_dump
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db(transaction=True, serialized_rollback=True)
TOKEN = re.compile(r"memsite_[0-9a-f]{8}_[A-Za-z0-9_-]{43,}")


def speak(raw: str) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {raw}")
    return client


@pytest.fixture
def all_logs(caplog):
    """Every logger at DEBUG, SQL included (a debug cursor logs each query with its parameters)."""
    caplog.set_level(logging.DEBUG)
    for name in list(logging.root.manager.loggerDict):
        caplog.set_level(logging.DEBUG, logger=name)
    return caplog


def test_token_secrets_are_in_no_table_and_no_log(all_logs):
    alice = UserFactory(username="alice")
    person = APIClient()
    person.force_login(alice)
    with CaptureQueriesContext(connection) as queries:
        made = person.post("/api/v1/tokens/", {"name": "via api", "scopes": ["all"], "access": "read+write"},
                           format="json")
        assert made.status_code == 201
        from_api = made.json()["token"]
        printed = io.StringIO()
        call_command("create_token", "--user", "alice", "--scope", "personal", "--write", stdout=printed)
        from_command = TOKEN.search(printed.getvalue()).group(0)
        raws = [from_api, from_command]
        wrong = []
        for raw in raws:
            agent = speak(raw)
            assert agent.post("/api/v1/cards/", {"scope": alice.personal_scope.pk, "kind": "state",
                                                 "subject": "me", "label": "skill", "value": "Go"},
                              format="json").status_code in (200, 201)
            assert agent.get("/api/v1/cards/").status_code == 200
            forged = raw[:17] + "x" * 43  # the right id with a wrong secret
            assert speak(forged).get("/api/v1/cards/").status_code == 401
            wrong.append(forged)
        revoked = AgentToken.objects.get(name="via api")
        assert person.delete(f"/api/v1/tokens/{revoked.pk}/").status_code == 204
        assert speak(from_api).get("/api/v1/cards/").json()["code"] == "token_revoked"

    secrets = {raw: raw[17:] for raw in raws + wrong}
    dump, method = pg_dump()
    logs = "\n".join(f"{record.name} {record.getMessage()} {record.args!r}" for record in all_logs.records)
    sql = "\n".join(f"{q['sql']}" for q in queries.captured_queries)

    # The dump, the logs and the SQL are real: the ids and digests are there, the secrets are not.
    assert all(raw[8:16] in dump for raw in raws), method
    assert all(token.secret_hash in dump for token in AgentToken.objects.all()), method
    assert "Unauthorized: /api/v1/cards/" in logs and "scopes_agenttoken" in logs
    for raw, secret in secrets.items():
        for where, text in ((f"the database ({method})", dump), ("the logs", logs), ("the SQL", sql)):
            assert raw not in text, f"a raw token is in {where}"
            assert secret not in text, f"a token secret is in {where}"
