"""The dashboard's two languages in a real browser. A first visit takes its language from the browser's
Accept-Language, which Playwright sets from a context's locale: a Taiwanese browser (zh-TW) is served
Traditional Chinese (zh-hant). The locators that work in both languages are ids, urls, form field names and
the data a test wrote, never a page's own words."""

from __future__ import annotations

import re

import pytest
from django.conf import settings
from django.test import Client
from playwright.sync_api import expect

from tests.web.test_browser import PASSWORD

# The page's language → the browser's locale that asks for it.
LOCALES = {"en": "en-US", "zh-hant": "zh-TW"}
WIDTHS = {"desktop": 1280, "phone": 390}
# CJK ideographs (the unified block and its extension A, and the compatibility block): a heading in Chinese.
CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")


@pytest.fixture
def page_in(browser):
    """A fresh browser page in a language and at a width: page_in("zh-hant", 390). Each has its own context
    (cookies, session), closed when the test ends."""
    contexts = []

    def opened(language: str, width: int):
        context = browser.new_context(locale=LOCALES[language], viewport={"width": width, "height": 900})
        contexts.append(context)
        return context.new_page()

    yield opened
    for context in contexts:
        context.close()


def sign_in_by_fields(page, base: str, username: str, password: str = PASSWORD) -> None:
    """The sign-in form filled by its fields' names, in whatever language the page speaks."""
    page.goto(f"{base}/accounts/login/")
    form = page.locator("main form[action='/accounts/login/']")
    form.locator("input[name=username]").fill(username)
    form.locator("input[name=password]").fill(password)
    form.locator("button[type=submit]").click()
    page.wait_for_url(f"{base}/")


def sign_in_by_session(page, base: str, user) -> None:
    """A person already signed in (a session cookie, no form): for a test about what they see, not signing in."""
    client = Client()
    client.force_login(user)
    cookie = client.cookies[settings.SESSION_COOKIE_NAME]
    page.context.add_cookies([{"name": cookie.key, "value": cookie.value, "url": base}])


def speaks(page, language: str) -> None:
    """The page says which language it is in: screen readers pick their voice from it."""
    expect(page.locator("html")).to_have_attribute("lang", language)


def reads_in(page, language: str) -> None:
    """The page says its language and, in Chinese, its heading is Chinese too: a page that says zh-hant and
    shows English is a page nobody translated."""
    speaks(page, language)
    if language == "zh-hant":
        expect(page.locator("main h1")).to_have_text(CJK)
