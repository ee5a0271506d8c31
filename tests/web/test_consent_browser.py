"""A hosted assistant connects, in a real browser: the person follows the
assistant's link, signs in, reads the consent page, chooses a scope and the
access, allows, and lands back at the assistant with a code that buys a token;
the connection then shows on the tokens page. In English and Chinese, at
desktop and phone widths, with axe on the consent page."""

from __future__ import annotations

import re
from urllib.parse import parse_qs, urlsplit

import httpx
import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import expect

from scopes.models import AgentToken
from tests.oauth.connector import Connector
from tests.web.browser_languages import CJK, LOCALES, WIDTHS, page_in, speaks  # noqa: F401  (page_in: a fixture)
from tests.web.test_accessibility_browser import _blocking, _none_found
from tests.web.test_browser import PASSWORD, browser_type_launch_args, shot  # noqa: F401  (a fixture)
from tests.web.test_connect_browser import dana  # noqa: F401  (a fixture: dana owns The Parks)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True, serialized_rollback=True)]


@pytest.mark.parametrize("language", LOCALES)
@pytest.mark.parametrize("screen", WIDTHS)
def test_a_person_connects_a_hosted_assistant_on_the_consent_page(live_server, page_in, dana, screen, language):
    base = live_server.url
    connector = Connector(base, redirect_uri="http://127.0.0.1:9/callback")
    assert connector.register(client_name="Household Assistant").status_code == 201
    page = page_in(language, WIDTHS[screen])
    # The assistant's own page stands in for the redirect target: what it receives is all the test needs.
    page.route("http://127.0.0.1:9/**", lambda route: route.fulfill(status=200, body="connected"))

    page.goto(base + connector.authorize_url())
    page.locator("main form[action^='/accounts/login/'] input[name=username]").fill("dana")
    page.locator("main form[action^='/accounts/login/'] input[name=password]").fill(PASSWORD)
    page.locator("main form[action^='/accounts/login/'] button[type=submit]").click()
    expect(page).to_have_url(re.compile(r"/oauth/authorize/\?"))
    speaks(page, language)
    heading = page.locator("h1")
    expect(heading).to_contain_text("Household Assistant")
    if language != "en":
        expect(heading).to_have_text(CJK)
    expect(page.locator("input[name=scopes]:checked")).to_have_count(1)  # personal only, to begin with
    _none_found(_blocking(Axe(), page, f"consent page ({language}, {screen})"))
    shot(page, f"consent-{language}-{screen}")

    page.get_by_label("The Parks").check()
    page.locator("input[name=access][value='read+write']").check()
    page.locator("button[name=allow]").click()
    expect(page).to_have_url(re.compile(r"^http://127\.0\.0\.1:9/callback\?"))
    query = parse_qs(urlsplit(page.url).query)
    assert query["state"] == [connector.state]
    granted = connector.token(query["code"][0])
    assert granted.status_code == 200, granted.text
    listed = httpx.post(connector.resource, json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"}, timeout=60,
                        headers={"Authorization": f"Bearer {granted.json()['access_token']}",
                                 "MCP-Protocol-Version": "2025-06-18", "Accept": "application/json"})
    assert listed.status_code == 200 and listed.json()["result"]["tools"]

    connection = AgentToken.objects.get(user=dana, application__client_id=connector.client_id)
    assert connection.access == "read+write" and {s.name for s in connection.scopes.all()} >= {"The Parks"}
    page.goto(f"{base}/tokens/")
    row = page.locator("#connections-heading ~ .table-wrap tbody tr").first
    expect(row).to_contain_text("Household Assistant")
    expect(row).to_contain_text("The Parks")
    shot(page, f"connections-{language}-{screen}")
