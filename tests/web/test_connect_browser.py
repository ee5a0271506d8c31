"""Connect an agent, in a real browser: create a token, copy the Python snippet,
run it, and see the card it wrote; test the token from the page."""

from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest
from playwright.sync_api import expect

from cards.models import Card
from tests.factories import UserFactory, family_scope
from tests.web.test_browser import PASSWORD, browser_type_launch_args, shot, sign_in  # noqa: F401  (a fixture)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True, serialized_rollback=True)]


@pytest.fixture
def dana(db):
    person = UserFactory(username="dana", time_zone="Europe/Lisbon")
    person.set_password(PASSWORD)
    person.save()
    family_scope(owner=person, name="The Parks")
    return person


def test_create_a_token_copy_the_python_snippet_run_it_and_see_the_card(live_server, page, dana):
    base = live_server.url
    page.context.grant_permissions(["clipboard-read", "clipboard-write"], origin=base)
    sign_in(page, base, "dana")
    page.goto(f"{base}/tokens/")
    page.get_by_label("Name").fill("laptop assistant")
    page.get_by_label("The Parks").check()
    page.get_by_label(str(dana.personal_scope)).check()
    page.get_by_label("Access").select_option("read+write")
    page.get_by_role("button", name="Create token").click()
    page.get_by_role("heading", name="Connect an agent: laptop assistant").wait_for()
    expect(page.get_by_label("Token", exact=True)).to_have_value(re.compile(r"^memsite_"))
    page.get_by_role("button", name="Test this token").click()
    expect(page.locator("#token-test-result")).to_have_text(re.compile(r"^It works: this token reads \d+ scopes: .*The Parks"))
    shot(page, "token-connect")

    page.get_by_role("button", name="Copy the Python snippet").click()
    expect(page.get_by_role("button", name="Copy the Python snippet")).to_have_text("Copied")
    snippet = page.evaluate("navigator.clipboard.readText()")
    assert "memsite_" in snippet and "MemoryClient(" in snippet
    run = subprocess.run([sys.executable, "-c", snippet], capture_output=True, text=True, timeout=120,
                         env=dict(os.environ))
    assert run.returncode == 0, run.stderr
    assert run.stdout.splitlines()[0] == "inserted"

    card = Card.objects.get(text="Enjoys hiking, remembered from Python")
    page.goto(f"{base}/scopes/{card.scope_id}/")
    expect(page.get_by_text("Enjoys hiking, remembered from Python").first).to_be_visible()
    shot(page, "token-connect-card-written")
