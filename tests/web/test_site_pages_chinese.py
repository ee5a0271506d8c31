"""The site's own pages (sign-in, home, the header, 404) in Traditional Chinese
when the browser asks for it, unchanged in English; and the header's language
switch end to end: remembered on the device, saved on a signed-in person, never
reaching the agent API, forgotten when a person goes back to the browser's."""

import re

import pytest
from django.conf import settings
from django.utils import translation
from django.views.defaults import server_error

from scopes.models import User
from scopes.invites import invitation_create
from scopes.services import scope_create
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db

CHINESE = {"HTTP_ACCEPT_LANGUAGE": "zh-Hant"}
ENGLISH = {"HTTP_ACCEPT_LANGUAGE": "en"}
COOKIE = settings.LANGUAGE_COOKIE_NAME


def _badge_label(page: str) -> str | None:
    found = re.search(r'<a class="waiting-count"[^>]*aria-label="([^"]+)"', page)
    return found[1] if found else None


@pytest.fixture
def invited(alice):
    """alice has one thing waiting: bob's invitation to his book club."""
    bob = UserFactory(username="bob")
    club = scope_create(name="Book club", kind="team", creator=bob)
    return invitation_create(scope=club, username="alice", role="member", invited_by=bob)


def test_the_sign_in_page_speaks_chinese_and_offers_english_in_english(client):
    page = client.get("/accounts/login/", **CHINESE).content.decode()
    assert '<html lang="zh-hant">' in page
    assert "<h1>登入</h1>" in page and "<title>登入 · memory-site</title>" in page
    assert "第一次來嗎？" in page and "跳到主要內容" in page
    assert "使用者名稱" in page  # Django's own form, through its zh_Hant catalogue
    assert 'lang="en">English</button>' in page and "繁體中文</button>" not in page
    assert "Sign in" not in page


@pytest.mark.parametrize("browser", ["zh-CN", "zh-Hans", "zh-SG,zh;q=0.9,en;q=0.5"])
def test_a_simplified_chinese_browser_is_served_simplified_chinese(client, browser):
    page = client.get("/accounts/login/", HTTP_ACCEPT_LANGUAGE=browser).content.decode()
    assert '<html lang="zh-hans">' in page
    assert "<h1>登录</h1>" in page and "跳到主要内容" in page  # the catalogue converted: 登入 → 登录
    assert 'lang="zh-hant">繁體中文</button>' in page and 'lang="en">English</button>' in page


def test_the_sign_in_page_in_english_is_unchanged(client):
    page = client.get("/accounts/login/", **ENGLISH).content.decode()
    assert '<html lang="en">' in page and "<h1>Sign in</h1>" in page and "Skip to content" in page
    assert "New here? Ask someone in your household or team for an invite link." in page
    assert 'lang="zh-hant">繁體中文</button>' in page and ">English</button>" not in page


def test_the_home_page_speaks_chinese_to_a_signed_in_person(alice, pages, invited):
    page = pages(alice).get("/", **CHINESE).content.decode()
    assert '<html lang="zh-hant">' in page and "<h1>你的記憶</h1>" in page
    assert f'aria-label="{alice.personal_scope.name} 的健康狀況"' in page
    assert "0 張卡片" in page and "0 項待重新確認" in page and "記憶健康狀況：最近 12 週" in page
    assert f'<a href="#invitation-{invited.pk}">Bob 邀請你加入 Book club</a>：請在下方接受或婉拒' in page
    assert 'aria-label="接受加入 Book club 的邀請"' in page and ">登出（" in page
    assert "Your memory" not in page and "Waiting for you" not in page


def test_the_headers_waiting_count_is_named_in_chinese(alice, pages, invited):
    chinese = pages(alice).get("/tokens/", **CHINESE).content.decode()
    assert _badge_label(chinese) == "有 1 件事等你處理"
    assert _badge_label(pages(alice).get("/tokens/", **ENGLISH).content.decode()) == "1 thing waits for you"


def test_the_home_page_in_english_is_unchanged(alice, pages, invited):
    page = pages(alice).get("/", **ENGLISH).content.decode()
    assert '<html lang="en">' in page and "<h1>Your memory</h1>" in page
    assert f'aria-label="Health of {alice.personal_scope.name}"' in page and "0 cards" in page
    assert f'<a href="#invitation-{invited.pk}">Bob invites you to Book club</a>: accept or decline it below' in page
    assert "Memory health, last 12 weeks" in page and _badge_label(page) == "1 thing waits for you"


@pytest.mark.parametrize("debug", [True, False])
def test_the_not_found_page_speaks_the_pages_language(alice, pages, settings, debug):
    settings.DEBUG = debug
    client = pages(alice)
    chinese = client.get("/no/such/page/", **CHINESE)
    assert chinese.status_code == 404
    assert "<h1>找不到</h1>" in chinese.content.decode() and "這裡什麼都沒有" in chinese.content.decode()
    english = client.get("/no/such/page/", **ENGLISH)
    assert english.status_code == 404 and b"<h1>Not found</h1>" in english.content


def test_the_not_allowed_page_speaks_the_pages_language(pages, household):
    # victor only views the family: describing its card is refused with the 403 page.
    client = pages(household["victor"])
    url = f"/cards/{household['card'].pk}/describe/"
    chinese = client.post(url, {"text": "Changed"}, **CHINESE)
    assert chinese.status_code == 403 and "<h1>不允許</h1>" in chinese.content.decode()
    english = client.post(url, {"text": "Changed"}, **ENGLISH)
    assert english.status_code == 403 and b"<h1>Not allowed</h1>" in english.content


def test_the_server_error_page_speaks_the_pages_language(rf):
    # Rendered without the request's context, as Django does when a page breaks.
    with translation.override("zh-hant"):
        chinese = server_error(rf.get("/")).content.decode()
    assert '<html lang="zh-hant">' in chinese and "我們這邊出了問題" in chinese and "請稍後再試" in chinese
    with translation.override("en"):
        english = server_error(rf.get("/")).content.decode()
    assert '<html lang="en">' in english and "<h1>Something broke on our side</h1>" in english


def test_the_switch_remembers_the_language_on_the_device(client):
    answer = client.post("/language/", {"language": "zh-hant", "next": "/accounts/login/"})
    assert answer.status_code == 302 and answer.url == "/accounts/login/"
    assert answer.cookies[COOKIE].value == "zh-hant"
    # The cookie outweighs the browser's own language.
    page = client.get(answer.url, **ENGLISH).content.decode()
    assert '<html lang="zh-hant">' in page and "<h1>登入</h1>" in page


def test_a_signed_in_persons_switch_follows_them_to_another_device(alice, pages):
    answer = pages(alice).post("/language/", {"language": "zh-hant", "next": "/"})
    assert answer.status_code == 302 and answer.url == "/"
    assert User.objects.get(pk=alice.pk).language == "zh-hant"
    elsewhere = pages(alice)  # a new client: no cookie, a browser that asks for English
    assert COOKIE not in elsewhere.cookies
    assert "<h1>你的記憶</h1>" in elsewhere.get("/", **ENGLISH).content.decode()


def test_a_language_the_site_does_not_speak_is_refused_and_nothing_is_saved(alice, pages):
    client = pages(alice)
    answer = client.post("/language/", {"language": "klingon", "next": "/"})
    assert answer.status_code == 400
    assert COOKIE not in answer.cookies and User.objects.get(pk=alice.pk).language == ""


def test_the_agent_api_answers_in_english_whatever_the_browser_asks(client):
    answer = client.get("/api/v1/scopes/", **CHINESE)
    assert answer.status_code == 401 and answer["Content-Language"] == "en"
    body = answer.json()
    assert body["code"] == "not_authenticated"
    assert body["detail"].isascii() and "credentials" in body["detail"]


def test_going_back_to_the_browsers_language_forgets_the_remembered_one(alice, pages):
    client = pages(alice)
    client.post("/language/", {"language": "zh-hant", "next": "/"})
    assert client.cookies[COOKIE].value == "zh-hant"
    answer = client.post("/accounts/settings/", {"time_zone": alice.time_zone, "language": ""})
    assert answer.status_code == 302
    assert answer.cookies[COOKIE].value == "" and answer.cookies[COOKIE]["max-age"] == 0
    assert User.objects.get(pk=alice.pk).language == ""
    assert "<h1>Your memory</h1>" in client.get("/", **ENGLISH).content.decode()
