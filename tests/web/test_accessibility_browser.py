"""axe-core on every page a person can reach, at desktop and phone width and in both languages (English,
and Traditional Chinese asked for by a Taiwanese browser): no serious or critical violation, and the page
says its language (`<html lang>`). The pages are the permission matrix's own
(tests/web/test_page_permissions.py), opened by the family's owner with its data there (a candidate, a guess,
a duplicate, an upkeep proposal, a token …), and those beside it: the invite link's sign-up, the
confirmations asked before a removal, and the error pages a person meets.
axe comes bundled in `axe-playwright-python` and is injected into each page
from the installed file: nothing is downloaded while the tests run."""

from __future__ import annotations

import pytest
from axe_playwright_python.sync_playwright import Axe

from scopes.invites import invite_create
from scopes.tokens import token_create
from tests.web.browser_languages import (  # noqa: F401  (page_in: a fixture)
    LOCALES, WIDTHS, page_in, sign_in_by_fields, sign_in_by_session, speaks,
)
from tests.web.test_browser import PASSWORD, browser_type_launch_args, shot  # noqa: F401  (a fixture)
from tests.web.test_page_permissions import (  # noqa: F401  (ids: a fixture)
    ACCOUNT_PAGES, OWN_PAGES, PAGES, SIGNED_IN_PAGES, ids,
)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True, serialized_rollback=True)]

# What is swapped into a page by htmx, not a page of its own: it is checked inside the page that holds it.
FRAGMENTS = {"candidate-when"}
BLOCKING = {"serious", "critical"}
# The confirmations asked before something goes that the matrix already lists (so they are checked there).
CONFIRMATIONS_IN_THE_MATRIX = ("/cards/{card}/forget/", "/scopes/{project}/archive/", "/accounts/erase/")


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


def _visit(axe: Axe, page, base: str, where: str, url: str, *, status: int, language: str) -> list[str]:
    answer = page.goto(f"{base}{url}")
    assert answer.status == status, f"{where}: {answer.status}"
    speaks(page, language)
    return _blocking(axe, page, where)


def _none_found(found: list[str]) -> None:
    assert not found, f"{len(found)} serious or critical accessibility violations:\n" + "\n".join(found)


@pytest.fixture
def owner(household, alice, ids):
    """The household's owner (alice) signs in with a password; an agent token of hers to revoke or connect."""
    alice.set_password(PASSWORD)
    alice.save()
    token, _ = token_create(user=alice, name="kitchen assistant", scopes=[household["family"]])
    return dict(ids, token=token.pk)


@pytest.mark.parametrize("language", LOCALES)
@pytest.mark.parametrize("screen", WIDTHS)
def test_no_serious_or_critical_violation_on_any_page(live_server, page_in, household, alice, owner, screen,
                                                      language):
    _, link = invite_create(scope=household["family"], role="member", created_by=alice)
    axe = Axe()
    base = live_server.url
    page = page_in(language, WIDTHS[screen])
    found = _visit(axe, page, base, "sign-in", "/accounts/login/", status=200, language=language)
    # Someone new, holding an invite link: signs up there.
    found += _visit(axe, page, base, "invite sign-up", f"/invite/{link}/", status=200, language=language)
    sign_in_by_fields(page, base, "alice")
    urls = _urls(owner)
    assert len(urls) >= 18, urls  # the matrix's pages, not an empty list
    assert {url.format(**owner) for url in CONFIRMATIONS_IN_THE_MATRIX} <= {url for _, url in urls}
    for where, url in urls:
        found += _visit(axe, page, base, where, url, status=200, language=language)
    shot(page, f"axe-last-page-{language}-{screen}")
    # Beside the matrix: the other confirmations, and a card that is not there.
    for where, url, status in (
            ("member-remove confirmation", "/scopes/{family}/members/{victor}/remove/", 200),
            ("token-revoke confirmation", "/tokens/{token}/revoke/", 200),
            ("a missing card (404)", "/cards/999999/", 404)):
        found += _visit(axe, page, base, where, url.format(**owner), status=status, language=language)
    # A viewer opening the family's review queue: theirs to see, not to decide (403).
    viewer = page_in(language, WIDTHS[screen])
    sign_in_by_session(viewer, base, household["victor"])
    found += _visit(axe, viewer, base, "review as a viewer (403)", f"/scopes/{owner['family']}/review/",
                    status=403, language=language)
    _none_found(found)
