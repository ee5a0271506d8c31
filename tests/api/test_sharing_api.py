"""GET/PUT /api/v1/me/sharing/ (API.md "Sharing within a household"): a signed-in person
chooses which labels of their own personal cards each family or team of theirs reads.
Tokens are refused; labels are the registry's (a synonym is stored as its key, an unknown
one is unknown_label with suggestions); bad scopes are 400 or 404; junk never a 500."""

import pytest

from scopes.models import Role, Share
from scopes.services import global_scope_get, membership_set, scope_create
from tests.factories import UserFactory, family_scope

pytestmark = pytest.mark.django_db
URL = "/api/v1/me/sharing/"


@pytest.fixture
def bob(db):
    return UserFactory(username="bob")


@pytest.fixture
def family(alice, bob):
    family = family_scope(owner=alice)
    membership_set(scope=family, user=bob, role=Role.MEMBER)
    return family


def _put(client, scope, labels):
    return client.put(URL, {"scope": scope, "labels": labels}, format="json")


def test_a_person_shares_reads_back_and_clears(as_user, bob, family):
    client = as_user(bob)
    assert client.get(URL).json() == {"results": [{"scope": family.pk, "labels": []}]}
    put = _put(client, family.pk, ["employer", "address"])
    assert put.status_code == 200, put.json()
    assert put.json() == {"scope": family.pk, "labels": ["address", "employer"]}
    assert client.get(URL).json() == {"results": [{"scope": family.pk, "labels": ["address", "employer"]}]}
    cleared = _put(client, family.pk, [])
    assert cleared.json() == {"scope": family.pk, "labels": []}
    assert not Share.objects.in_scopes([family.pk]).exists()


def test_the_scope_may_be_named_by_its_word(as_user, bob, family):
    put = _put(as_user(bob), "family", ["address"])
    assert put.status_code == 200 and put.json() == {"scope": family.pk, "labels": ["address"]}


def test_synonyms_are_stored_as_their_keys(as_user, bob, family):
    put = _put(as_user(bob), family.pk, ["home address", "Current Company", "address"])
    assert put.json()["labels"] == ["address", "employer"]
    assert sorted(Share.objects.in_scopes([family.pk]).values_list("label_key", flat=True)) == ["address", "employer"]


def test_an_unknown_label_is_refused_with_suggestions_and_changes_nothing(as_user, bob, family):
    client = as_user(bob)
    _put(client, family.pk, ["address"])
    refused = _put(client, family.pk, ["employer", "adress"])
    assert refused.status_code == 400
    body = refused.json()
    assert body["code"] == "unknown_label" and "address" in body["suggestions"]
    assert client.get(URL).json()["results"][0]["labels"] == ["address"]


@pytest.mark.parametrize("method", ["get", "put"])
def test_agent_tokens_are_refused(bearer, bob, family, method):
    client = bearer(bob, write=True, all_scopes=True)
    response = getattr(client, method)(URL, {"scope": family.pk, "labels": ["address"]}, format="json")
    assert response.status_code == 403 and response.json()["code"] == "permission_denied"
    assert not Share.objects.in_scopes([family.pk]).exists()


def test_a_scope_that_is_no_family_or_team_is_400(as_user, alice):
    client = as_user(alice)
    project = scope_create(name="Garden", kind="project", creator=alice)
    for scope in (alice.personal_scope.pk, project.pk, global_scope_get().pk, "personal"):
        refused = _put(client, scope, ["address"])
        assert refused.status_code == 400 and refused.json()["code"] == "not_family_or_team", (scope, refused.json())


def test_a_scope_one_is_not_a_member_of_is_404(as_user, family):
    carol = UserFactory(username="carol")
    client = as_user(carol)
    for scope in (family.pk, 2**62, "family"):
        refused = _put(client, scope, ["address"])
        assert refused.status_code == 404 and refused.json()["code"] == "not_found", (scope, refused.json())
    assert client.get(URL).json() == {"results": []}


def test_leaving_clears_what_was_shared(as_user, bob, family):
    client = as_user(bob)
    _put(client, family.pk, ["address"])
    assert client.post(f"/api/v1/scopes/{family.pk}/leave/").status_code == 204
    assert client.get(URL).json() == {"results": []}
    assert not Share.objects.in_scopes([family.pk]).exists()


def test_signed_out_is_401(api):
    assert api.get(URL).status_code == 401


@pytest.mark.parametrize("body", [
    {}, {"scope": 1}, {"labels": []}, {"scope": None, "labels": []}, {"scope": "kitchen", "labels": []},
    {"scope": True, "labels": []}, {"scope": -1, "labels": []}, {"scope": 2**70, "labels": []},
    {"scope": "family", "labels": "address"}, {"scope": "family", "labels": [None]},
    {"scope": "family", "labels": [{"key": "address"}]}, {"scope": "family", "labels": ["x" * 65]},
    {"scope": "family", "labels": ["address"] * 201}, {"scope": "family", "labels": [], "extra": 1},
    {"scope": "family", "labels": ["a\u0000b"]}, [], "address",
])
def test_junk_is_a_400_never_a_500(as_user, bob, family, body):
    response = as_user(bob).put(URL, body, format="json")
    assert response.status_code == 400, response.content
    assert not Share.objects.in_scopes([family.pk]).exists()


def test_junk_labels_that_pass_the_shape_are_unknown_labels(as_user, bob, family):
    for junk in ["", " ", "🙂", "%", "'; DROP TABLE x; --", "1"]:
        response = _put(as_user(bob), family.pk, [junk])
        assert response.status_code == 400 and response.json()["code"] in ("unknown_label", "validation_error"), junk


def test_the_schema_documents_both_methods(as_user, alice):
    schema = as_user(alice).get("/api/v1/schema/?format=json").json()
    operations = schema["paths"]["/api/v1/me/sharing/"]
    assert {"get", "put"} <= set(operations)
    assert "403" in operations["put"]["responses"] and "404" in operations["put"]["responses"]
