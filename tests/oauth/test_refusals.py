"""What a connector is refused, each with the standard error: another scope,
a wrong PKCE verifier, a reused code, a redirect URI it never registered, an
expired token, a token shown to the REST API, a resource that is not ours."""

from __future__ import annotations

import datetime as dt

import httpx
from django.utils import timezone
from oauth2_provider.models import AccessToken

from scopes.models import AgentToken
from tests.mcp.conftest import run_client, structured
from tests.oauth.connector import Connector, pkce_pair, signed_in


def test_a_token_for_one_scope_cannot_reach_another(site):
    connector, dana = Connector(site["base"]), signed_in(site["base"], "dana")
    granted = connector.connect(dana, scopes=[site["dana"].personal_scope.pk], access="read+write")

    async def work(client):
        family = await client.call_tool("recall", {"scope": site["family"].pk, "query": "anything"})
        foreign = await client.call_tool("recall", {"scope": site["elsewhere"].pk, "query": "anything"})
        written = await client.call_tool("remember", {"scope": site["family"].pk, "kind": "state", "subject": "me",
                                                      "label": "address", "value": "Porto"})
        listed = await client.call_tool("list_scopes", {})
        return family, foreign, written, listed

    family, foreign, written, listed = run_client(connector.resource, granted["access_token"], "auto", work)
    for refused in (family, foreign, written):
        assert refused.is_error and refused.structured_content["code"] == "not_found"
    listed = {s["id"] for s in structured(listed)["results"] if s["kind"] != "global"}
    assert listed == {site["dana"].personal_scope.pk}


def test_a_read_grant_reads_and_never_writes(site):
    connector, dana = Connector(site["base"]), signed_in(site["base"], "dana")
    granted = connector.connect(dana, access="read")
    assert granted["scope"] == "read"

    async def work(client):
        return await client.call_tool("remember", {"scope": "personal", "kind": "state", "subject": "me",
                                                   "label": "address", "value": "Porto"})

    written = run_client(connector.resource, granted["access_token"], "auto", work)
    assert written.is_error and written.structured_content["code"] in ("permission_denied", "not_found")


def test_a_wrong_verifier_and_a_reused_code_are_invalid_grant(site):
    connector, dana = Connector(site["base"]), signed_in(site["base"], "dana")
    assert connector.register().status_code == 201
    code = connector.code_from(connector.consent(dana, connector.authorize_url()))
    wrong = connector.token(code, verifier=pkce_pair()[0])
    assert wrong.status_code == 400 and wrong.json()["error"] == "invalid_grant"

    code = connector.code_from(connector.consent(dana, connector.authorize_url()))
    assert connector.token(code).status_code == 200
    reused = connector.token(code)
    assert reused.status_code == 400 and reused.json()["error"] == "invalid_grant"


def test_plain_pkce_or_none_is_refused(site):
    connector, dana = Connector(site["base"]), signed_in(site["base"], "dana")
    assert connector.register().status_code == 201
    plain = dana.get(connector.authorize_url(code_challenge_method="plain"))
    assert plain.status_code == 302 and "error=invalid_request" in plain.headers["Location"]
    url = connector.authorize_url()
    without = dana.get(url.replace("code_challenge=", "no_challenge="))
    assert without.status_code == 302 and "error=invalid_request" in without.headers["Location"]


def test_a_redirect_uri_that_was_not_registered_is_never_followed(site):
    connector, dana = Connector(site["base"]), signed_in(site["base"], "dana")
    assert connector.register().status_code == 201
    connector.redirect_uri = "https://attacker.example/callback"
    page = dana.get(connector.authorize_url())
    assert page.status_code == 400 and "Location" not in page.headers
    assert "invalid_request" in page.text and "attacker.example" not in page.headers.get("Location", "")
    assert not AgentToken.objects.filter(application__client_id=connector.client_id).exists()


def test_a_code_redeemed_with_another_redirect_uri_is_refused(site):
    connector, dana = Connector(site["base"]), signed_in(site["base"], "dana")
    assert connector.register(redirect_uris=["http://127.0.0.1:9/callback", "http://127.0.0.1:9/other"]
                              ).status_code == 201
    code = connector.code_from(connector.consent(dana, connector.authorize_url()))
    refused = connector.token(code, redirect_uri="http://127.0.0.1:9/other")
    assert refused.status_code == 400 and refused.json()["error"] in ("invalid_grant", "invalid_request")


def test_an_expired_access_token_gets_401_invalid_token_and_refresh_still_works(site):
    connector, dana = Connector(site["base"]), signed_in(site["base"], "dana")
    granted = connector.connect(dana)
    AccessToken.objects.filter(application__client_id=connector.client_id).update(
        expires=timezone.now() - dt.timedelta(seconds=1))
    refused = httpx.post(connector.resource, json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
                         headers={"Authorization": f"Bearer {granted['access_token']}"}, timeout=60)
    assert refused.status_code == 401 and refused.json()["code"] == "token_expired"
    assert 'error="invalid_token"' in refused.headers["WWW-Authenticate"]
    assert connector.refresh(granted["refresh_token"]).status_code == 200


def test_the_rest_api_refuses_an_oauth_token_bound_to_the_mcp_server(site):
    connector, dana = Connector(site["base"]), signed_in(site["base"], "dana")
    granted = connector.connect(dana)
    refused = httpx.get(site["base"] + "/api/v1/scopes/", timeout=60,
                        headers={"Authorization": f"Bearer {granted['access_token']}"})
    assert refused.status_code == 401 and refused.json()["code"] == "invalid_token"
    assert "MCP server" in refused.json()["detail"]


def test_a_resource_that_is_not_this_mcp_server_is_invalid_target(site):
    connector, dana = Connector(site["base"]), signed_in(site["base"], "dana")
    assert connector.register().status_code == 201
    answer = dana.get(connector.authorize_url(resource="https://elsewhere.example/mcp/"))
    assert answer.status_code == 302 and "error=invalid_target" in answer.headers["Location"]
    assert f"state={connector.state}" in answer.headers["Location"]


def test_without_a_resource_the_token_is_bound_to_the_mcp_server(site):
    connector, dana = Connector(site["base"]), signed_in(site["base"], "dana")
    assert connector.register().status_code == 201
    code = connector.code_from(connector.consent(dana, connector.authorize_url(resource=None)))
    assert connector.token(code).status_code == 200
    issued = AccessToken.objects.get(application__client_id=connector.client_id, user=site["dana"])
    assert issued.resource == [connector.resource]


def test_a_registration_token_never_acts_for_anyone(site):
    connector = Connector(site["base"])
    registered = connector.register().json()
    refused = httpx.post(connector.resource, json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
                         headers={"Authorization": f"Bearer {registered['registration_access_token']}"}, timeout=60)
    assert refused.status_code == 401
