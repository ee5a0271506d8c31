"""The four inputs that were a 500, written as their reproductions (issue: "Server
errors"): a lone surrogate anywhere in a JSON body, an instant at the end of
time, and zone names that are files of the system's zone folder but no place.
Each is now a 4xx with a stable code, and nothing is written."""

import json

import pytest
from django.test import Client

from cards.models import Card, CardPerspective
from scopes.services import membership_set, scope_create
from tests.api.test_bad_input import row_counts
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db

LONE = "\ud800"
END_OF_TIME = "9999-12-31T23:59:59Z"
NOT_PLACES = ["posixrules", "localtime", "right/UTC", "posix/Europe/Zurich", "Factory"]


@pytest.fixture
def family(alice):
    family = scope_create(name="Home", kind="family", creator=alice)
    membership_set(scope=family, user=UserFactory(username="bob"), role="member")
    return family


@pytest.fixture
def agent(alice, bearer):
    return bearer(alice, write=True, all_scopes=True)


def post_raw(client, path: str, body: dict):
    # json.dumps writes a lone surrogate as the escape "\ud800", exactly as a client sends it.
    return client.post(path, json.dumps(body), content_type="application/json")


def refused(response, status: int, code: str) -> dict:
    assert response.status_code == status, (response.status_code, response.content[:400])
    body = response.json()
    assert body["code"] == code and body["detail"], body
    return body


def remember(scope, **fields) -> dict:
    return {"scope": scope.pk, "kind": "state", "subject": "me", "label": "skill", "value": "Go", **fields}


# --- a lone surrogate -----------------------------------------------------------------------

def test_a_lone_surrogate_as_a_perspectives_key_is_invalid_text(family, agent):
    before = row_counts()
    body = refused(post_raw(agent, "/api/v1/cards/", remember(family, perspectives={LONE: "a gift"})),
                   400, "invalid_text")
    assert body["fields"] == {"perspectives.<key>": [body["fields"]["perspectives.<key>"][0]]}
    assert "U+D800" in body["fields"]["perspectives.<key>"][0]
    assert row_counts() == before


@pytest.mark.parametrize("where", ["value", "text", "subject", "source.quote", "perspectives.bob", "label",
                                   "<key>", "source.<key>"])
def test_a_lone_surrogate_anywhere_in_a_card_is_refused_and_named(family, agent, where):
    card = remember(family, source={"quote": "ok"}, perspectives={"bob": "ok"})
    head, _, tail = where.partition(".")
    if where == "<key>":
        card[f"x{LONE}"] = "y"
    elif tail == "<key>":
        card[head][f"q{LONE}"] = "y"
    elif tail:
        card[head][tail] = f"a{LONE}b"
    else:
        card[head] = f"a{LONE}b"
    before = row_counts()
    body = refused(post_raw(agent, "/api/v1/cards/", card), 400, "invalid_text")
    assert where in body["fields"], body
    body = refused(post_raw(agent, "/api/v1/cards/bulk/", {"cards": [remember(family, value="Rust"), card]}),
                   400, "invalid_text")
    assert f"cards.1.{where}" in body["fields"], body
    assert row_counts() == before


def test_a_surrogate_pair_is_a_character_and_is_kept(family, agent):
    response = post_raw(agent, "/api/v1/cards/", remember(family, value="Go \U0001F600",
                                                          perspectives={"bob": "\U0001F381"}))
    assert response.status_code == 201, response.content
    card = Card.objects.get(pk=response.json()["card"]["id"])
    assert card.value == "Go \U0001F600"
    assert CardPerspective.objects.get(card=card).text == "\U0001F381"


@pytest.mark.parametrize("path, body", [
    ("/api/v1/recall/", {"scope": 0, "query": LONE}),
    ("/api/v1/count/", {"scope": 0, "label": "trip", "tz": LONE}),
    ("/api/v1/time/resolve/", {"expression": LONE}),
    ("/api/v1/entities/", {"scope": 0, "name": f"Kett{LONE}le"}),
    ("/api/v1/answer/", {"scope": 0, "subject": "me", "label": LONE}),
    ("/api/v1/ingest/", {"scope": 0, "session": "s", "messages": [{"role": "user", "text": LONE,
                                                                   "at": "2026-05-08T10:00:00+08:00"}]}),
])
def test_every_json_body_is_checked_before_its_view(alice, agent, path, body):
    body = {key: alice.personal_scope.pk if value == 0 else value for key, value in body.items()}
    before = row_counts()
    refused(post_raw(agent, path, body), 400, "invalid_text")
    assert row_counts() == before


def test_a_signed_in_person_gets_the_same_refusal(alice, as_user):
    client = as_user(alice)
    refused(client.patch("/api/v1/me/", json.dumps({"time_zone": LONE}), content_type="application/json"),
            400, "invalid_text")


# --- instants at the ends of time --------------------------------------------------------------

def test_recall_as_of_the_end_of_time_is_a_validation_error(alice, agent):
    body = refused(agent.post("/api/v1/recall/", {"scope": alice.personal_scope.pk, "query": "where do I live",
                                                   "as_of": END_OF_TIME}, format="json"), 400, "validation_error")
    assert "as_of" in body["fields"]


@pytest.mark.parametrize("moment", [END_OF_TIME, "9999-06-01T00:00:00Z", "0001-01-01T00:00:00Z",
                                    "0002-01-01T00:00:00+05:00", "9998-12-31T23:00:00-05:00"])
def test_every_instant_a_request_takes_is_within_the_years_the_memory_computes_with(alice, agent, moment):
    scope = alice.personal_scope.pk
    before = row_counts()
    for method, path, body, field in [
        ("post", "/api/v1/recall/", {"scope": scope, "query": "x", "as_of": moment}, "as_of"),
        ("post", "/api/v1/answer/", {"scope": scope, "subject": "me", "label": "address", "as_of": moment}, "as_of"),
        ("post", "/api/v1/count/", {"scope": scope, "label": "trip", "from": moment}, "from"),
        ("post", "/api/v1/count/", {"scope": scope, "label": "trip", "to": moment}, "to"),
        ("get", "/api/v1/cards/", {"as_of": moment}, "as_of"),
        ("post", "/api/v1/time/resolve/", {"expression": "yesterday", "reference_time": moment}, "reference_time"),
        ("post", "/api/v1/cards/", remember(alice.personal_scope, reference_time=moment), "reference_time"),
        ("post", "/api/v1/cards/", remember(alice.personal_scope, effective_at=moment), "effective_at"),
        ("post", "/api/v1/ingest/", {"scope": scope, "session": "s", "messages": [
            {"role": "user", "text": "I moved to Kyoto", "at": moment}]}, "messages"),
    ]:
        response = getattr(agent, method)(path, body, **({"format": "json"} if method == "post" else {}))
        body = refused(response, 400, "validation_error")
        assert field in body["fields"], (path, body)
    assert row_counts() == before


def test_the_last_usable_instant_still_answers(alice, agent):
    response = agent.post("/api/v1/recall/", {"scope": alice.personal_scope.pk, "query": "x",
                                              "as_of": "9998-12-31T12:00:00Z"}, format="json")
    assert response.status_code == 200, response.content[:300]


def test_a_dashboard_day_at_the_end_of_time_is_a_form_error(alice):
    page = Client()
    page.force_login(alice)
    scope = alice.personal_scope.pk
    response = page.get(f"/scopes/{scope}/", {"view": "as_of", "as_of": "9999-12-31"})
    assert response.status_code == 400 and "9998" in response.content.decode()  # the filter's own error
    for query in ({"form": "answer", "scope": scope, "subject": "me", "label": "address", "as_of": "9999-12-31"},
                  {"form": "count", "scope": scope, "label": "trip", "start": "9999-12-31"},
                  {"form": "count", "scope": scope, "label": "trip", "end": "9999-12-31"}):
        response = page.get("/ask/", query)
        assert response.status_code == 400 and "9998" in response.content.decode(), query


# --- zone names that are files, not places --------------------------------------------------------

@pytest.mark.parametrize("name", NOT_PLACES)
def test_count_refuses_a_zone_that_names_no_place(alice, agent, name):
    body = refused(agent.post("/api/v1/count/", {"scope": alice.personal_scope.pk, "label": "trip", "tz": name},
                              format="json"), 400, "validation_error")
    assert "tz" in body["fields"]


@pytest.mark.parametrize("name", NOT_PLACES)
def test_no_entry_point_takes_a_zone_that_names_no_place(alice, agent, as_user, name):
    scope = alice.personal_scope.pk
    before = row_counts()
    for method, path, body in [
        ("post", "/api/v1/count/", {"scope": scope, "label": "trip", "when": "this year", "tz": name}),
        ("post", "/api/v1/recall/", {"scope": scope, "query": "x", "when": "last week", "tz": name}),
        ("get", "/api/v1/cards/", {"when": "yesterday", "tz": name}),
        ("get", "/api/v1/context/", {"scope": scope, "query": "x", "when": "yesterday", "tz": name}),
        ("post", "/api/v1/time/resolve/", {"expression": "yesterday", "tz": name}),
        ("post", "/api/v1/cards/", remember(alice.personal_scope, tz=name)),
    ]:
        response = getattr(agent, method)(path, body, **({"format": "json"} if method == "post" else {}))
        assert response.status_code == 400, (path, response.status_code, response.content[:300])
        assert response.json()["code"] == "validation_error"
    person = as_user(alice)
    response = person.patch("/api/v1/me/", {"time_zone": name}, format="json")
    assert response.status_code == 400 and "time_zone" in response.json()["fields"]
    assert row_counts() == before


def test_every_zone_we_accept_is_one_postgresql_counts_in(alice, agent):
    from django.db import connection

    from scopes.zones import time_zone_names

    with connection.cursor() as cursor:
        cursor.execute("SELECT name FROM pg_timezone_names")
        known = {row[0] for row in cursor.fetchall()}
    assert sorted(time_zone_names() - known) == []


def test_json_from_a_file_or_a_language_model_gets_the_same_check(alice, tmp_path):
    import datetime as dt

    from django.core.management import CommandError, call_command

    from review.extract.llm_schema import validate

    export = tmp_path / "export.json"
    export.write_text(json.dumps({"cards": [{"value": f"a{LONE}"}]}))
    with pytest.raises(CommandError, match="not Unicode"):
        call_command("import_memory", str(export), user="alice", scope=alice.personal_scope.pk)
    extraction, problems = validate(json.dumps({"items": [{"value": LONE}], "dropped": []}), [], dt.timezone.utc)
    assert extraction.proposals == [] and problems == ["the answer holds text that is not Unicode at items.0.value"]
