"""axe-core on every page a person can reach, at desktop and phone width: no
serious or critical violation. The pages are the permission matrix's own
(tests/web/test_page_permissions.py), opened by the family's owner with its
data there (a candidate, a guess, a duplicate, an upkeep proposal, a token …).
axe comes bundled in `axe-playwright-python` and is injected into each page
from the installed file: nothing is downloaded while the tests run."""

from __future__ import annotations

import pytest
from axe_playwright_python.sync_playwright import Axe
from playwright.sync_api import expect

from scopes.tokens import token_create
from tests.web.test_browser import PASSWORD, browser_type_launch_args, shot  # noqa: F401  (a fixture)
from tests.web.test_page_permissions import (  # noqa: F401  (ids: a fixture)
    ACCOUNT_PAGES, OWN_PAGES, PAGES, SIGNED_IN_PAGES, ids,
)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True, serialized_rollback=True)]

# What is swapped into a page by htmx, not a page of its own: it is checked inside the page that holds it.
FRAGMENTS = {"candidate-when"}
BLOCKING = {"serious", "critical"}
WIDTHS = {"desktop": 1280, "phone": 390}


def _urls(ids: dict) -> list[tuple[str, str]]:
    pages = [p for p in PAGES + OWN_PAGES + SIGNED_IN_PAGES + ACCOUNT_PAGES
             if p.method == "GET" and p.name not in FRAGMENTS]
    return [(f"{p.name} {p.url.split('?')[0]}", p.url.format(**ids)) for p in pages]


def _blocking(axe: Axe, page, where: str) -> list[str]:
    found = []
    # What a person may unfold (filters, the chart's table, "more" forms) is checked unfolded too.
    page.evaluate("document.querySelectorAll('details').forEach(d => { d.open = true; })")
    results = axe.run(page).response
    assert results["passes"], f"axe checked nothing on {where}"  # it ran, and on a real page
    for violation in results["violations"]:
        for node in violation["nodes"]:
            impact = node.get("impact") or violation["impact"]
            if impact in BLOCKING:
                found.append(f"{violation['id']} ({impact}) on {where}: {' '.join(map(str, node['target']))}")
    return found


@pytest.mark.parametrize("screen", WIDTHS)
def test_no_serious_or_critical_violation_on_any_page(live_server, page, household, alice, ids, screen):
    width = WIDTHS[screen]
    alice.set_password(PASSWORD)
    alice.save()
    token, _ = token_create(user=alice, name="kitchen assistant", scopes=[household["family"]])
    ids = dict(ids, token=token.pk)
    page.set_viewport_size({"width": width, "height": 900})
    axe = Axe()
    base = live_server.url
    page.goto(f"{base}/accounts/login/")
    found = _blocking(axe, page, "sign-in")
    page.get_by_label("Username").fill("alice")
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Sign in").click()
    expect(page.get_by_role("heading", name="Your memory")).to_be_visible()
    urls = _urls(ids)
    for where, url in urls:
        answer = page.goto(f"{base}{url}")
        assert answer.status == 200, f"{where}: {answer.status}"
        found += _blocking(axe, page, where)
    shot(page, f"axe-last-page-{screen}")
    assert len(urls) >= 18, urls  # the matrix's pages, not an empty list
    assert not found, f"{len(found)} serious or critical accessibility violations:\n" + "\n".join(found)
