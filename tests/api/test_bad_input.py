"""Bad input gets its 4xx with a stable `code` — never a 500, never a partial
write (API.md "Errors"). Every case compares the row counts of every project
table before and after the request."""

import base64
import json

import pytest
from django.apps import apps
from django.conf import settings as django_settings
from hypothesis import HealthCheck, example, given
from hypothesis import settings as hypothesis_settings
from hypothesis import strategies as st

from cards.api.serializers import RememberIn
from cards.models import Card
from scopes.services import scope_create
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db
HUGE = 2**70
MAX_ID = 2**63 - 1
MEGABYTE = "x" * (1024 * 1024)
BAD_IDS = [-1, 0, HUGE, 2**63]


def row_counts() -> dict[str, int]:
    return {model._meta.label: model.objects.count()
            for app in ("scopes", "cards", "review") for model in apps.get_app_config(app).get_models()}


def refused(response, status: int, code: str) -> dict:
    assert response.status_code == status, (response.status_code, response.content[:500])
    body = response.json()
    assert body["code"] == code and body["detail"], body
    return body


class World:
    """alice with a write token for all her scopes, a family scope she owns (bob may be added),
    one card, one entity; and carol, whose personal scope alice cannot see."""

    def __init__(self, alice, bearer, as_user):
        self.bob = UserFactory(username="bob")
        self.family = scope_create(name="Home", kind="family", creator=alice)
        self.scope = alice.personal_scope.pk
        self.agent = bearer(alice, write=True, all_scopes=True)
        self.card = self.agent.post("/api/v1/cards/", self.remember(), format="json").json()["card"]["id"]
        self.entity = self.agent.post("/api/v1/entities/", {"scope": self.scope, "name": "Kettle"},
                                      format="json").json()["id"]
        self.person = as_user(alice)
        self.outsider_scope = UserFactory(username="carol").personal_scope.pk

    def remember(self, **fields) -> dict:
        return {"scope": self.scope, "kind": "state", "subject": "me", "label": "skill", "value": "Go", **fields}

    def endpoints(self) -> dict[str, tuple]:
        """name → (client, method, path, a valid body)."""
        return {
            "remember": (self.agent, "post", "/api/v1/cards/", self.remember(value="Rust")),
            "bulk": (self.agent, "post", "/api/v1/cards/bulk/", {"cards": [self.remember(value="Zig")]}),
            "patch": (self.agent, "patch", f"/api/v1/cards/{self.card}/", {"text": "Writes Go daily"}),
            "scope": (self.agent, "post", "/api/v1/scopes/", {"name": "Side project", "kind": "project"}),
            "member": (self.person, "post", f"/api/v1/scopes/{self.family.pk}/members/",
                       {"username": "bob", "role": "member"}),
            "entity": (self.agent, "post", "/api/v1/entities/", {"scope": self.scope, "name": "Teapot"}),
            "alias": (self.agent, "post", f"/api/v1/entities/{self.entity}/aliases/", {"name": "Boiler"}),
            "resolve": (self.agent, "post", "/api/v1/entities/resolve/", {"scope": self.scope, "name": "Kettle"}),
            "token": (self.person, "post", "/api/v1/tokens/", {"name": "helper", "scopes": ["personal"]}),
        }


@pytest.fixture
def world(alice, bearer, as_user):
    return World(alice, bearer, as_user)


ENDPOINTS = ["remember", "bulk", "patch", "scope", "member", "entity", "alias", "resolve", "token"]


def send(world, name, body=None, *, raw=None, content_type="application/json"):
    client, method, path, valid = world.endpoints()[name]
    data = raw if raw is not None else json.dumps(valid if body is None else body)
    return getattr(client, method)(path, data, content_type=content_type)


@pytest.mark.parametrize("name", ENDPOINTS)
def test_the_valid_bodies_are_accepted(world, name):
    # The baseline the other cases break: each body on its own is fine.
    response = send(world, name)
    assert response.status_code in (200, 201), response.content[:500]


NOT_AN_OBJECT = [
    ('{"scope": 1,', "malformed_json"),
    ("{'single': 'quotes'}", "malformed_json"),
    ('{"a": NaN}', "malformed_json"),
    ("[" * 100_000, "malformed_json"),  # nested past the decoder's recursion limit
    ("[1, 2]", "validation_error"),
    ('"just a string"', "validation_error"),
    ("42", "validation_error"),
    ("null", "validation_error"),
]


@pytest.mark.parametrize("name", ENDPOINTS)
def test_a_body_that_is_not_a_json_object(world, name):
    for raw, code in NOT_AN_OBJECT:
        before = row_counts()
        refused(send(world, name, raw=raw), 400, code)
        assert row_counts() == before, raw[:20]


@pytest.mark.parametrize("name", ENDPOINTS)
def test_a_body_that_is_not_json_is_415(world, name):
    for content_type in ("text/plain", "application/x-www-form-urlencoded", "multipart/form-data; boundary=xyz",
                         "application/xml"):
        before = row_counts()
        refused(send(world, name, content_type=content_type), 415, "unsupported_media_type")
        assert row_counts() == before, content_type


@pytest.mark.parametrize("name", ENDPOINTS)
def test_a_body_over_the_size_limit_is_413(world, name):
    before = row_counts()
    _, _, _, valid = world.endpoints()[name]
    padded = json.dumps(dict(valid, pad="x" * django_settings.DATA_UPLOAD_MAX_MEMORY_SIZE))
    refused(send(world, name, raw=padded), 413, "payload_too_large")
    assert row_counts() == before


def _mutations(valid: dict):
    """(field, replacement) pairs of the wrong type, with a NUL byte, or a megabyte long."""
    for field, value in valid.items():
        if isinstance(value, str):
            yield from [(field, ["a", "list"]), (field, {"an": "object"}), (field, "a\x00b"), (field, MEGABYTE)]
        elif isinstance(value, int):
            yield from [(field, "twelve"), (field, [value]), (field, {"id": value}), (field, True), (field, 1.5)]
        elif isinstance(value, list):
            yield from [(field, "not a list"), (field, {"not": "a list"}), (field, [])]


@pytest.mark.parametrize("name", ENDPOINTS)
def test_wrong_types_nul_bytes_and_huge_strings_are_validation_errors(world, name):
    _, _, _, valid = world.endpoints()[name]
    for field, replacement in _mutations(valid):
        before = row_counts()
        body = refused(send(world, name, dict(valid, **{field: replacement})), 400, "validation_error")
        assert field in body["fields"], (field, body)
        assert row_counts() == before, field


@pytest.mark.parametrize("name", ENDPOINTS)
def test_unknown_fields_are_named_not_dropped(world, name):
    _, _, _, valid = world.endpoints()[name]
    before = row_counts()
    body = refused(send(world, name, dict(valid, colour="blue")), 400, "validation_error")
    assert body["fields"]["colour"] == ["unknown field"]
    assert row_counts() == before


def test_remember_rejects_the_classic_type_mistakes(world):
    for body in (world.remember(scope="my scope"), world.remember(value=["Go", "Rust"]),
                 world.remember(label={"key": "skill"}), world.remember(kind="gossip"),
                 world.remember(source="chat"), world.remember(perspectives=["bob"]),
                 world.remember(perspectives={"bo\x00b": "x"}), world.remember(subject="a\x00"),
                 world.remember(source={"quote": "a\x00b"}), world.remember(confidence=2),
                 world.remember(impact=9), world.remember(tz="Mars/Olympus_Mons"), world.remember(text=MEGABYTE)):
        before = row_counts()
        refused(world.agent.post("/api/v1/cards/", body, format="json"), 400, "validation_error")
        assert row_counts() == before, body.keys()


@pytest.mark.parametrize("field, value", [("consent", 0), ("consent", 1), ("consent", "true"), ("consent", "yes"),
                                          ("scope", "12"), ("impact", "2"), ("impact", True), ("value", 7)])
def test_a_json_value_of_another_type_than_the_schema_says_is_refused_not_converted(world, field, value):
    """DRF would read 0 or "true" as a boolean and "12" as a number; a JSON body says what it means."""
    for client, method, path, body in ((world.agent, "post", "/api/v1/cards/", world.remember(**{field: value})),
                                       (world.agent, "post", "/api/v1/cards/bulk/",
                                        {"cards": [world.remember(**{field: value})]})):
        before = row_counts()
        problems = refused(getattr(client, method)(path, body, format="json"), 400, "validation_error")["fields"]
        assert field in str(problems), problems
        assert row_counts() == before
    if field == "consent":
        answer = world.agent.patch(f"/api/v1/cards/{world.card}/", {"text": "Writes Go", field: value}, format="json")
        assert refused(answer, 400, "validation_error")["fields"] == {field: ["must be true or false"]}


def test_a_query_string_still_reads_numbers_and_booleans_from_text(world):
    answer = world.agent.get("/api/v1/cards/", {"scope": str(world.scope), "current": "true", "limit": "5"})
    assert answer.status_code == 200 and [row["id"] for row in answer.json()["results"]] == [world.card]


@pytest.mark.parametrize("kind, label", [("state", "address"), ("event", "trip")])
def test_a_when_that_is_not_an_iso_date_in_range_is_unresolvable(world, kind, label):
    for when in ("blorgday", "2026-13-45", "31/12/2026", "tomorrow-ish", "0001-01-01", "9999-12-31",
                 "9999-12-31T12:00:00", "0001-01-01T00:00:00+05:00"):
        before = row_counts()
        body = refused(world.agent.post("/api/v1/cards/", world.remember(kind=kind, label=label, when=when),
                                        format="json"), 400, "unresolvable_time")
        assert body["expression"] == when
        assert row_counts() == before, when


@pytest.mark.parametrize("name, field", [("remember", "scope"), ("entity", "scope"), ("resolve", "scope"),
                                         ("scope", "parent")])
def test_out_of_range_ids_in_bodies_are_validation_errors_and_unknown_ones_404(world, name, field):
    _, _, _, valid = world.endpoints()[name]
    for bad in BAD_IDS:
        before = row_counts()
        body = refused(send(world, name, dict(valid, **{field: bad})), 400, "validation_error")
        assert field in body["fields"]
        assert row_counts() == before
    for unknown in (MAX_ID, 987_654_321, world.outsider_scope):  # someone else's scope reads as missing
        before = row_counts()
        refused(send(world, name, dict(valid, **{field: unknown})), 404, "not_found")
        assert row_counts() == before


ID_ROUTES = [("get", "/api/v1/cards/{}/", None), ("patch", "/api/v1/cards/{}/", {"text": "x"}),
             ("delete", "/api/v1/cards/{}/", None), ("get", "/api/v1/cards/{}/history/", None),
             ("post", "/api/v1/cards/{}/verify/", None), ("post", "/api/v1/cards/{}/asked/", None),
             ("get", "/api/v1/scopes/{}/", None),
             ("post", "/api/v1/scopes/{}/members/", {"username": "bob", "role": "member"}),
             ("get", "/api/v1/entities/{}/", None), ("post", "/api/v1/entities/{}/aliases/", {"name": "y"}),
             ("delete", "/api/v1/tokens/{}/", None)]


@pytest.mark.parametrize("method, route, body", ID_ROUTES)
def test_bad_and_unknown_ids_in_urls_are_json_404s(world, method, route, body):
    client = world.person if "tokens" in route or "members" in route else world.agent
    for bad in [*BAD_IDS, "abc", MAX_ID, 987_654_321]:
        before = row_counts()
        refused(getattr(client, method)(route.format(bad), body, format="json"), 404, "not_found")
        assert row_counts() == before


def test_a_card_in_a_scope_the_caller_cannot_see_is_unknown(world, bearer):
    hidden = bearer(world.bob, write=True).post("/api/v1/cards/", dict(world.remember(),
                                                scope=world.bob.personal_scope.pk), format="json").json()["card"]
    before = row_counts()
    for method, route, body in ID_ROUTES[:6]:
        refused(getattr(world.agent, method)(route.format(hidden["id"]), body, format="json"), 404, "not_found")
    assert row_counts() == before and Card.objects.filter(pk=hidden["id"]).exists()


def test_a_member_path_with_a_nul_byte_is_404(world):
    before = row_counts()
    for method in ("patch", "delete"):
        response = getattr(world.person, method)(f"/api/v1/scopes/{world.family.pk}/members/bo%00b/",
                                                 {"role": "viewer"}, format="json")
        refused(response, 404, "not_found")
    assert row_counts() == before


@pytest.mark.parametrize("path", ["/api/v1/nonsense/", "/api/v1/cards/bulk/extra/", "/api/v2/cards/",
                                  "/api/v1/cards/1/unknown-action/"])
@pytest.mark.parametrize("method", ["get", "post"])
def test_unrouted_api_urls_are_json_404s(world, path, method):
    before = row_counts()
    refused(getattr(world.agent, method)(path, {}, format="json"), 404, "not_found")
    assert row_counts() == before


def _forged_cursor(position: str) -> str:
    return base64.b64encode(f"o=0&r=0&p={position}".encode()).decode()


BAD_QUERIES = [
    ({"scope": -1}, "scope"), ({"scope": 0}, "scope"), ({"scope": HUGE}, "scope"), ({"scope": "home"}, "scope"),
    ({"colour": "blue"}, "colour"), ({"scope": 1, "sort": "id"}, "sort"),
    ({"limit": 0}, "limit"), ({"limit": 10_000}, "limit"), ({"limit": -5}, "limit"), ({"limit": "all"}, "limit"),
    ({"cursor": "garbage"}, "cursor"), ({"cursor": "bm90IGEgY3Vyc29y\u00e9"}, "cursor"),
    ({"cursor": _forged_cursor("abc")}, "cursor"), ({"cursor": _forged_cursor(str(HUGE))}, "cursor"),
    ({"cursor": _forged_cursor("-3")}, "cursor"), ({"cursor": "a\x00b"}, "cursor"),
    ({"kind": "gossip"}, "kind"), ({"tag": "rumour"}, "tag"), ({"current": "maybe"}, "current"),
    ({"as_of": "last week"}, "as_of"), ({"as_of": "0001-01-01T00:00+05:00"}, "as_of"),
    ({"subject": "a\x00b"}, "subject"), ({"label": MEGABYTE[:1000]}, "label"),
]


def test_bad_list_queries_are_validation_errors(world):
    for query, field in BAD_QUERIES:
        body = refused(world.agent.get("/api/v1/cards/", query), 400, "validation_error")
        assert field in body["fields"], (query, body)


def test_list_lookups_of_unknown_things(world):
    refused(world.agent.get("/api/v1/cards/", {"scope": 987_654_321}), 404, "not_found")
    refused(world.agent.get("/api/v1/cards/", {"scope": world.outsider_scope}), 404, "not_found")
    assert refused(world.agent.get("/api/v1/cards/", {"label": "skil"}), 400, "unknown_label")["suggestions"]
    assert world.agent.get("/api/v1/cards/", {"subject": "nobody at all"}).json()["results"] == []


def test_a_real_cursor_and_limits_at_the_edges_still_work(world):
    for value in ("Rust", "Zig", "Odin"):
        assert world.agent.post("/api/v1/cards/", world.remember(value=value), format="json").status_code == 201
    first = world.agent.get("/api/v1/cards/", {"limit": 1})
    assert first.status_code == 200 and len(first.json()["results"]) == 1
    second = world.agent.get(first.json()["next"])
    assert second.status_code == 200 and second.json()["results"][0]["id"] < first.json()["results"][0]["id"]
    assert world.agent.get("/api/v1/cards/", {"limit": 500}).status_code == 200


def test_bulk_with_one_invalid_card_stores_nothing_and_names_it(world):
    good = [world.remember(value=v) for v in ("Rust", "Zig", "Odin")]
    before = row_counts()
    body = refused(world.agent.post("/api/v1/cards/bulk/", {"cards": [*good[:2], world.remember(value=["x"]),
                                                                      good[2]]}, format="json"),
                   400, "validation_error")
    assert list(body["fields"]["cards"]) == ["2"] and "value" in body["fields"]["cards"]["2"]
    for card, code in ((world.remember(label="nonsense_label"), "unknown_label"),
                       (world.remember(when="blorgday"), "unresolvable_time"),
                       (world.remember(label="address", kind="event"), "label_kind_mismatch")):
        body = refused(world.agent.post("/api/v1/cards/bulk/", {"cards": [*good[:2], card, good[2]]},
                                        format="json"), 400, code)
        assert body["index"] == 2, body
    for cards in ([5, *good], [*good, "card"], [*good, None]):
        body = refused(world.agent.post("/api/v1/cards/bulk/", {"cards": cards}, format="json"), 400,
                       "validation_error")
        assert "cards" in body["fields"]
    assert row_counts() == before


def test_bulk_names_the_card_whose_scope_is_unknown(world):
    good = world.remember(value="Rust")
    before = row_counts()
    body = refused(world.agent.post("/api/v1/cards/bulk/", {"cards": [good, dict(good, scope=987_654_321)]},
                                    format="json"), 404, "not_found")
    assert row_counts() == before
    assert body.get("index") == 1


# --- a small fuzz of the remember body -----------------------------------------------------

JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers(min_value=-HUGE, max_value=HUGE)
    | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=40)
    | st.sampled_from(["me", "state", "event", "2026-05-08", "2026-05-08T16:44:10+08:00", "9999-12-31", "UTC"]),
    lambda children: st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=12), children, max_size=4),
    max_leaves=8)
REMEMBER_FIELDS = sorted(RememberIn().fields)
OWN_SCOPE = "<the caller's personal scope>"


@st.composite
def remember_bodies(draw):
    """A valid body with some fields replaced by arbitrary JSON, some dropped, maybe one unknown added."""
    body = {"scope": OWN_SCOPE, "kind": "state", "subject": "me", "label": "skill", "value": "Go"}
    for name in draw(st.lists(st.sampled_from(REMEMBER_FIELDS), unique=True, max_size=4)):
        body[name] = draw(JSON_VALUES)
    for name in draw(st.lists(st.sampled_from(sorted(body)), unique=True, max_size=2)):
        body.pop(name)
    if draw(st.booleans()) and draw(st.booleans()):
        body[draw(st.text(min_size=1, max_size=12))] = draw(JSON_VALUES)
    return body


# Bodies every run sends, whatever the generated ones draw: a null value, no scope, a date
# at the end of time, numbers past any column, an unknown field with an empty name,
# objects and lists where text goes.
EXPLICIT_BODIES = [
    {"scope": OWN_SCOPE, "kind": "state", "subject": "me", "label": "skill", "value": None},
    {"kind": "state", "subject": "me", "label": "skill", "value": "Go"},
    {"scope": OWN_SCOPE, "kind": "event", "subject": "me", "label": "trip", "value": "Go", "when": "9999-12-31"},
    {"scope": OWN_SCOPE, "kind": "state", "subject": "me", "label": "skill", "value": "Go",
     "effective_at": "2026-05-08T16:44:10+08:00", "reference_time": HUGE, "confidence": 1e308, "impact": -HUGE},
    {"scope": OWN_SCOPE, "kind": "state", "subject": "me", "label": "skill", "value": "Go", "": None,
     "perspectives": {"": [None]}, "source": []},
    {"scope": OWN_SCOPE, "kind": "state", "subject": {"name": [1]}, "label": "skill", "value": "Go",
     "object": ["me"], "tag": False, "tz": "UTC"},
]
FUZZ_SETTINGS = dict(deadline=None, database=None,
                     suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
# `make test`: the bodies above and 40 generated ones; `pytest -m long`: 150 generated ones.
SHORT_EXAMPLES = 40
LONG_EXAMPLES = 150


def explicit_bodies(test):
    for body in EXPLICIT_BODIES:
        test = example(body=body)(test)
    return test


def answered_without_500_and_refusals_write_nothing(world, body) -> None:
    if body.get("scope") == OWN_SCOPE:
        body = dict(body, scope=world.scope)
    before = row_counts()
    response = world.agent.post("/api/v1/cards/", body, format="json")
    assert response.status_code < 500
    if response.status_code >= 400:
        payload = response.json()
        assert isinstance(payload.get("code"), str) and payload["code"] and payload.get("detail"), payload
        assert row_counts() == before


@explicit_bodies
@hypothesis_settings(max_examples=SHORT_EXAMPLES, **FUZZ_SETTINGS)
@given(body=remember_bodies())
def test_fuzzed_remember_bodies_never_500_and_refusals_write_nothing(world, body):
    answered_without_500_and_refusals_write_nothing(world, body)


@pytest.mark.long
@explicit_bodies
@hypothesis_settings(max_examples=LONG_EXAMPLES, **FUZZ_SETTINGS)
@given(body=remember_bodies())
def test_fuzzed_remember_bodies_never_500_and_refusals_write_nothing_long(world, body):
    answered_without_500_and_refusals_write_nothing(world, body)
