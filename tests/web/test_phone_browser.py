"""The dashboard on a phone (390×844) in a real browser: every page a person can reach — the page
permission matrix's list (tests/web/test_page_permissions.py), with data on each — fits the width
(nothing scrolls sideways), lists stack as cards, the filter folds away, and the timeline's text
reads at ≥ 11 px on the card page and the person page. Screenshots: test-artifacts/screenshots/phone-*.png."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from scopes.invites import invite_create
from scopes.tokens import token_create
from tests.web.test_browser import PASSWORD, browser_type_launch_args, shot, sign_in  # noqa: F401 (fixture)
from tests.web.test_page_permissions import NOT_IN_MATRIX, OWN_PAGES, PAGES, ids  # noqa: F401 (fixture)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True, serialized_rollback=True)]

PHONE = {"width": 390, "height": 844}
SMALLEST_TEXT_PX = 11
# The pages outside the matrix that a signed-in person opens, by url name; the rest are not pages of their own.
OTHER_PAGES = {"home": "/", "review": "/review/", "entities": "/entities/", "password_change": "/accounts/password/",
               "password_change_done": "/accounts/password/done/", "settings": "/accounts/settings/",
               "account-erase": "/accounts/erase/", "person-me": "/people/me/",
               "invite": "/invite/{invite_link}/", "ask": "/ask/"}
NOT_A_PAGE = {"login": "signed in, it sends you home", "logout": "a POST",
              "label-choices": "a fragment of the review form", "scope-create": "a POST (its form is on home)",
              "language": "a POST (the switch in every page's header)",
              "card-share": "a POST (its form is on the card page of one's own personal card)"}

# The rendered size of the timeline's smallest text: its font size in the picture's units × the picture's scale.
SMALLEST_TIMELINE_TEXT = """() => Math.min(...[...document.querySelectorAll('.timeline svg text')]
    .filter(t => t.getBBox().width > 0)
    .map(t => parseFloat(getComputedStyle(t).fontSize) * t.getScreenCTM().a))"""
# The timeline's texts that the picture cuts off at its edge, or that overlap another: unreadable however large.
TIMELINE_TEXT_UNREAD = """() => { const svg = document.querySelector('.timeline svg').getBoundingClientRect();
    const boxes = [...document.querySelectorAll('.timeline svg text')].filter(t => t.getBBox().width > 0)
        .map(t => [t.textContent, t.getBoundingClientRect()]);
    const cut = boxes.filter(([, b]) => b.left < svg.left - .5 || b.right > svg.right + .5).map(([text]) => text);
    const overlapping = boxes.filter(([, a], i) => boxes.some(([, b], j) => i !== j && a.left < b.right
        && b.left < a.right && a.top < b.bottom - 1 && b.top < a.bottom - 1)).map(([text]) => text);
    return {cut, overlapping}; }"""
# A box that scrolls sideways inside the page (a table in an overflow wrapper) is sideways scrolling all the
# same; a code snippet's textarea scrolls its long lines by design (the connect page).
BOXES_SCROLLING_SIDEWAYS = """() => [...document.querySelectorAll('body *:not(textarea)')]
    .filter(e => ['auto', 'scroll'].includes(getComputedStyle(e).overflowX) && e.scrollWidth > e.clientWidth + 1)
    .map(e => e.tagName.toLowerCase() + '.' + String(e.className).split(' ').join('.'))"""
# The elements wider than the page, to name in a failure: the deepest ones that stick out.
WIDER_THAN_THE_PAGE = """() => [...document.querySelectorAll('body *')]
    .filter(e => e.getBoundingClientRect().right > document.documentElement.clientWidth + 1)
    .filter(e => ![...e.children].some(c => c.getBoundingClientRect().right > document.documentElement.clientWidth + 1))
    .slice(0, 3).map(e => e.tagName.toLowerCase() + (e.className && e.className.baseVal === undefined
        ? '.' + String(e.className).split(' ').join('.') : ''))"""


def every_page_url(ids: dict) -> list[str]:
    """Each page reachable by a GET, once; the matrix's POSTs answer with a redirect to one of these."""
    urls = [p.url for p in (*PAGES, *OWN_PAGES) if p.method == "GET"] + list(OTHER_PAGES.values())
    return list(dict.fromkeys(url.format(**ids) for url in urls))


def test_every_reachable_page_is_visited():
    """A page added to the matrix or beside it is visited here too, or said not to be a page."""
    visited = {p.name for p in (*PAGES, *OWN_PAGES) if p.method == "GET"} | set(OTHER_PAGES)
    assert NOT_IN_MATRIX <= visited | set(NOT_A_PAGE)


@pytest.fixture
def owner(household, alice, ids):
    alice.set_password(PASSWORD)
    alice.save()
    token, _ = token_create(user=alice, name="kitchen assistant", scopes=[household["family"]])
    _, link = invite_create(scope=household["family"], role="member", created_by=household["bob"])
    return dict(ids, token=token.pk, invite_link=link)


def test_no_page_scrolls_sideways_on_a_phone(live_server, page, owner):
    base = live_server.url
    page.set_viewport_size(PHONE)
    sign_in(page, base, "alice")
    offenders = {}
    for url in every_page_url(owner):
        answer = page.goto(f"{base}{url}")
        assert answer.status == 200, url
        width = page.evaluate("document.documentElement.scrollWidth")
        boxes = page.evaluate(BOXES_SCROLLING_SIDEWAYS)
        if width > PHONE["width"] + 1 or boxes:
            offenders[url] = (width, page.evaluate(WIDER_THAN_THE_PAGE) + boxes)
    assert offenders == {}, "pages that scroll sideways at 390 px: " + "; ".join(
        f"{url} {width}px ({', '.join(wide)})" for url, (width, wide) in offenders.items())


def test_the_main_journeys_read_on_a_phone(live_server, page, owner):
    base = live_server.url
    page.set_viewport_size(PHONE)
    sign_in(page, base, "alice")

    page.goto(f"{base}/scopes/{owner['family']}/")
    # The filter folds behind "Filter"; the card rows stack, each cell named by its column.
    expect(page.locator("form.filters")).to_be_hidden()
    expect(page.locator(".card-table thead")).to_have_css("position", "absolute")
    expect(page.locator(".card-table tbody tr").first).to_have_css("display", "block")
    shot(page, "phone-scope-cards")
    page.locator("details.filter-box summary").click()
    expect(page.locator("form.filters")).to_be_visible()
    shot(page, "phone-scope-filter-open")

    for url, name in ((f"/cards/{owner['card']}/", "phone-card-timeline"), (f"/people/{owner['person']}/",
                                                                             "phone-person-timeline")):
        page.goto(f"{base}{url}")
        expect(page.locator(".timeline svg rect.tl-bar").first).to_be_visible()
        smallest = page.evaluate(SMALLEST_TIMELINE_TEXT)
        assert smallest >= SMALLEST_TEXT_PX, f"{url}: the timeline's text renders at {smallest:.1f}px"
        assert page.evaluate(TIMELINE_TEXT_UNREAD) == {"cut": [], "overlapping": []}, url
        # The picture fits the page: no box of its own to scroll sideways either.
        figure = page.locator("figure.timeline")
        assert figure.evaluate("f => f.scrollWidth <= f.clientWidth + 1"), f"{url}: the timeline scrolls sideways"
        shot(page, name)

    # On a wide screen the picture keeps its 12 px text and every day on its axis: still none cut or overlapping.
    page.set_viewport_size({"width": 1280, "height": 800})
    page.goto(f"{base}/cards/{owner['card']}/")
    expect(page.locator(".timeline svg text.tl-tick").last).to_be_visible()
    assert page.evaluate(TIMELINE_TEXT_UNREAD) == {"cut": [], "overlapping": []}, "the timeline on a wide screen"
    page.set_viewport_size(PHONE)

    page.goto(f"{base}/scopes/{owner['family']}/review/")
    expect(page.get_by_text("we moved to Kyoto")).to_be_visible()
    shot(page, "phone-review-queue")

    page.goto(f"{base}/tokens/")
    expect(page.get_by_role("row", name="kitchen assistant")).to_be_visible()
    shot(page, "phone-tokens")
    page.goto(f"{base}/tokens/{owner['token']}/connect/")
    expect(page.get_by_role("heading", name="Connect an agent: kitchen assistant")).to_be_visible()
    shot(page, "phone-connect")
