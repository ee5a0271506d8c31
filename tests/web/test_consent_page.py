"""The consent page a person meets when a hosted assistant connects
(/oauth/authorize/), and the connections it makes, on the tokens page."""

from __future__ import annotations

from urllib.parse import parse_qs, urlencode, urlsplit

import pytest
from oauth2_provider.models import AccessToken, Application

from scopes.connections import bearer_authenticate, connection_grant
from scopes.models import AgentToken, Membership
from scopes.tokens import TokenRefused
from tests.oauth.connector import pkce_pair

pytestmark = pytest.mark.django_db
REDIRECT = "https://assistant.example/callback"


@pytest.fixture
def assistant():
    return Application.objects.create(name="Household Assistant", client_type="public", redirect_uris=REDIRECT,
                                      authorization_grant_type="authorization-code",
                                      registration_source="dcr")


def authorize(assistant, **extra) -> str:
    _verifier, challenge = pkce_pair()
    query = {"response_type": "code", "client_id": assistant.client_id, "redirect_uri": REDIRECT,
             "scope": "read", "state": "s-1", "code_challenge": challenge, "code_challenge_method": "S256",
             **extra}
    return "/oauth/authorize/?" + urlencode(query)


def hidden(page) -> dict:
    form = page.context["form"]
    return {name: form[name].value() or "" for name in form.fields if form.fields[name].widget.is_hidden}


def answer(client, page, **choice):
    return client.post("/oauth/authorize/", {**hidden(page), **choice})


def test_signed_out_people_sign_in_first_and_come_back(client, assistant):
    url = authorize(assistant)
    page = client.get(url)
    assert page.status_code == 302 and page["Location"].startswith("/accounts/login/?next=")
    assert parse_qs(urlsplit(page["Location"]).query)["next"] == [url]


def test_the_page_names_the_assistant_and_offers_only_ones_own_scopes_personal_first(
        household, pages, alice, assistant):
    page = pages(alice).get(authorize(assistant, scope="read write"))
    html = page.content.decode()
    assert page.status_code == 200 and "Connect Household Assistant?" in html and "assistant.example" in html
    form = page.context["form"]
    assert form["scopes"].value() == [alice.personal_scope.pk]  # personal only, unless the person adds more
    assert {value for value, _label in form.fields["scopes"].choices} == {alice.personal_scope.pk,
                                                                          household["family"].pk}
    assert form["access"].value() == "read+write"  # what the assistant asked for, offered first
    assert "mallory" not in html.lower()
    assert "form-action 'self' https://assistant.example" in page["Content-Security-Policy"]


def test_allowing_makes_one_connection_with_the_chosen_scopes_and_access(household, pages, alice, assistant):
    client = pages(alice)
    page = client.get(authorize(assistant))
    granted = answer(client, page, allow="on", scopes=[alice.personal_scope.pk, household["family"].pk],
                     access="propose")
    assert granted.status_code == 302 and granted["Location"].startswith(REDIRECT + "?")
    assert set(parse_qs(urlsplit(granted["Location"]).query)) >= {"code", "state", "iss"}
    connection = AgentToken.objects.get(application=assistant)
    assert (connection.user, connection.access, connection.name) == (alice, "propose", "Household Assistant")
    assert set(connection.scopes.all()) == {alice.personal_scope, household["family"]}

    # Consenting again changes that connection in place: still one.
    again = answer(client, client.get(authorize(assistant)), allow="on", scopes=[alice.personal_scope.pk],
                   access="read")
    assert again.status_code == 302
    connection.refresh_from_db()
    assert AgentToken.objects.filter(application=assistant).count() == 1
    assert connection.access == "read" and list(connection.scopes.all()) == [alice.personal_scope]


def test_denying_tells_the_assistant_access_denied_and_grants_nothing(household, pages, alice, assistant):
    client = pages(alice)
    denied = answer(client, client.get(authorize(assistant)), scopes=[alice.personal_scope.pk], access="read")
    assert denied.status_code == 302 and "error=access_denied" in denied["Location"]
    assert not AgentToken.objects.filter(application=assistant).exists()


def test_no_scope_or_anothers_scope_is_refused_on_the_page(household, pages, alice, assistant):
    client = pages(alice)
    page = client.get(authorize(assistant))
    for scopes in ([], [household["family"].pk + 1000]):
        refused = answer(client, page, allow="on", scopes=scopes, access="read")
        assert refused.status_code == 200 and b'id="id_scopes_error"' in refused.content
    mallory = pages(household["mallory"])
    stolen = answer(mallory, mallory.get(authorize(assistant)), allow="on", scopes=[household["family"].pk],
                    access="read")
    assert stolen.status_code == 200 and b'id="id_scopes_error"' in stolen.content
    assert not AgentToken.objects.filter(application=assistant).exists()


def test_a_minor_cannot_grant_and_is_told_who_can(household, pages, alice, assistant):
    bob = household["bob"]
    Membership.objects.filter(scope=household["family"], user=bob).update(minor=True)
    client = pages(bob)
    page = client.get(authorize(assistant))
    assert b'id="minor-no-connections"' in page.content and b'name="allow"' not in page.content
    refused = answer(client, page, allow="on", scopes=[bob.personal_scope.pk], access="read")
    assert refused.status_code == 200 and b"Minors cannot" in refused.content
    assert not AgentToken.objects.filter(application=assistant).exists()


def test_connections_are_listed_beside_tokens_and_revoking_one_stops_its_oauth_tokens(
        household, pages, alice, assistant):
    connection = connection_grant(user=alice, application=assistant, scopes=[alice.personal_scope], access="read")
    issued = AccessToken.objects.create(user=alice, application=assistant, token="raw-access-1", scope="read",
                                        resource=["http://testserver/mcp/"],
                                        expires="2099-01-01T00:00:00Z")
    assert bearer_authenticate("raw-access-1", resource="http://testserver/mcp/").pk == connection.pk
    client = pages(alice)
    listing = client.get("/tokens/").content.decode()
    assert 'id="connections-heading"' in listing and "Household Assistant" in listing
    assert "http://testserver/mcp/" in listing
    asked = client.get(f"/tokens/{connection.pk}/revoke/")
    assert b"loses access at once" in asked.content
    assert client.post(f"/tokens/{connection.pk}/revoke/").status_code == 302
    assert not AccessToken.objects.filter(pk=issued.pk).exists()
    with pytest.raises(TokenRefused):
        bearer_authenticate("raw-access-1", resource="http://testserver/mcp/")


def test_a_guardian_sees_and_revokes_a_wards_connection(household, pages, alice, assistant):
    bob = household["bob"]
    connection = connection_grant(user=bob, application=assistant, scopes=[bob.personal_scope], access="read")
    Membership.objects.filter(scope=household["family"], user=bob).update(minor=True)
    listing = pages(alice).get("/tokens/").content.decode()
    assert 'id="wards-heading"' in listing and "Household Assistant" in listing
    assert pages(alice).post(f"/tokens/{connection.pk}/revoke/").status_code == 302
    connection.refresh_from_db()
    assert connection.revoked_at is not None


def test_a_client_cannot_waive_the_consent_page(household, pages, alice, assistant):
    connection_grant(user=alice, application=assistant, scopes=[alice.personal_scope], access="read")
    AccessToken.objects.create(user=alice, application=assistant, token="held", scope="read",
                               expires="2099-01-01T00:00:00Z")
    page = pages(alice).get(authorize(assistant, approval_prompt="auto"))
    assert page.status_code == 200 and b'name="allow"' in page.content
