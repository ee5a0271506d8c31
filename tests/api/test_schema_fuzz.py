"""Schemathesis against the schema the site serves (/api/v1/schema/), over real HTTP
to a live server: every operation, with valid and invalid inputs, must answer
with a status its documentation lists, in the shape it documents, and never a
5xx — with every built-in check on (`--checks all`: not_a_server_error,
status_code_conformance, content_type_conformance, response_headers_conformance,
response_schema_conformance, negative_data_rejection, positive_data_acceptance,
missing_required_header, unsupported_method, allow_header_conformance,
use_after_free, ensure_resource_availability, ignored_auth,
object_level_authorization).

Schemathesis runs as its own command (its pytest plugin does not run under this
pytest), configured by a file this test writes: agents' operations are called
with a real read+write token; what stays with people (tokens, members,
relations, the review queue, one's own settings) with a signed-in session and
its CSRF token, as the dashboard sends them. Bounded and repeatable: a few
examples per operation in each phase, one worker, a fixed seed and
deterministic generation, so CI sends the same requests every run."""

from __future__ import annotations

import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from django.middleware.csrf import _get_new_csrf_string
from django.test import Client

from cards.drafts import CardDraft
from cards.services import card_remember
from scopes.services import membership_set, scope_create
from scopes.tokens import token_create
from tests.builtin_rows import builtin_rows_restore
from tests.factories import UserFactory

EXAMPLES_PER_OPERATION = 3
SEED = 20261202
RUN_TIMEOUT_SECONDS = 600  # a bound; the run takes a few minutes at most
# Operations a token is refused by design (API.md "What agents may do"), and a
# person's own settings, invitations and account: called as a signed-in person.
PEOPLE_ONLY = (r"^/api/v1/(tokens/|review/|me/|account/|invitations/"
               r"|scopes/\{scope_id\}/(members|relations|invitations|leave)/)")


def call(url: str, headers: dict[str, str]) -> int:
    try:
        with urllib.request.urlopen(urllib.request.Request(url, headers=headers), timeout=30) as response:
            return response.status
    except urllib.error.HTTPError as error:
        return error.code


def household() -> dict[str, str]:
    """alice (a token for all her scopes, and a browser session), her family
    scope with bob in it, and a few cards to find; the headers each caller sends."""
    alice = UserFactory(username="alice", time_zone="Europe/Lisbon")
    family = scope_create(name="Home", kind="family", creator=alice)
    membership_set(scope=family, user=UserFactory(username="bob"), role="member")
    for label, value in (("address", "Kyoto"), ("skill", "Go")):
        card_remember(scope=family, actor=alice, draft=CardDraft(kind="state", label=label, subject="me", value=value))
    _, raw = token_create(user=alice, name="schema run", can_write=True, scopes=None, all_scopes=True, days=1)
    browser = Client()
    browser.force_login(alice)
    csrf = _get_new_csrf_string()
    return {"token": f"Bearer {raw}", "cookie": f"sessionid={browser.cookies['sessionid'].value}; csrftoken={csrf}",
            "csrf": csrf}


def config() -> str:
    return f"""
seed = {SEED}
suppress-health-check = ["all"]

[generation]
deterministic = true
max-examples = {EXAMPLES_PER_OPERATION}
database = "none"
# The credentials are ours (-H below); generated ones would only test the 401.
with-security-parameters = false

# A body the schema allows may still be refused by a rule no schema can state —
# a label the registry does not hold (unknown_label), words no time resolves
# (unresolvable_time), a name no zone has, an empty transcript's meaning — and
# each such 400 is documented on its operation. Every other answer to valid
# input must be a success, a documented refusal of the caller, or a 404.
[checks.positive_data_acceptance]
expected-statuses = ["2xx", "3xx", "400", "401", "403", "404", "409", "429"]
"""


@pytest.mark.django_db(transaction=True, serialized_rollback=True)
def test_every_operation_answers_as_documented(live_server, settings, tmp_path: Path):
    # Hundreds of requests a minute from one token: the throttle is not what is tested here.
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": {"agent": "1000000/min"}}
    builtin_rows_restore()
    headers = household()
    # Both callers are who they should be, or the run would test only the 401s and 403s.
    assert call(f"{live_server.url}/api/v1/cards/", {"Authorization": headers["token"]}) == 200
    assert call(f"{live_server.url}/api/v1/tokens/", {"Cookie": headers["cookie"]}) == 200
    (tmp_path / "schemathesis.toml").write_text(config())
    # Two runs, each with only its own credentials: given per operation in one run, the
    # token's header reached people's operations too (they answered only 403s).
    for who, select, sent in (("agents", "--exclude-path-regex", [f"Authorization: {headers['token']}"]),
                              ("people", "--include-path-regex", [f"Cookie: {headers['cookie']}",
                                                                 f"X-CSRFToken: {headers['csrf']}"])):
        run = subprocess.run(
            [str(Path(sys.executable).parent / "schemathesis"), "--no-color", "--config-file",
             str(tmp_path / "schemathesis.toml"), "run", f"{live_server.url}/api/v1/schema/", select, PEOPLE_ONLY,
             *(option for header in sent for option in ("-H", header)), "--checks", "all", "--workers", "1",
             "--report", "junit", "--report-dir", str(tmp_path / who)],
            capture_output=True, text=True, timeout=RUN_TIMEOUT_SECONDS, cwd=tmp_path)
        warnings = run.stdout.find("WARNINGS")
        print(who, run.stdout[max(0, warnings - 40):])  # shown with -rP: what ran, and its warnings
        assert run.returncode == 0, who + "\n" + run.stdout[-20_000:] + run.stderr[-5_000:]
