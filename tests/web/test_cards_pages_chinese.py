"""The card pages in Traditional Chinese when the browser asks for it, and in
English, as before, when it does not: the card, its scope, the ask page, a
person's page and the forget confirmation. A label reads as the page's
language names it (cards/words/label_names.py)."""

import pytest

from cards.words.label_names import label_name
from cards.models import Entity

pytestmark = pytest.mark.django_db

CHINESE = {"HTTP_ACCEPT_LANGUAGE": "zh-Hant"}
ENGLISH = {"HTTP_ACCEPT_LANGUAGE": "en"}


def _page(client, url, **headers) -> str:
    response = client.get(url, **headers)
    assert response.status_code == 200
    return response.content.decode()


@pytest.fixture
def alice_pages(pages, alice, household):
    return pages(alice)


def test_the_card_page_speaks_chinese(alice_pages, household):
    url = f"/cards/{household['card'].pk}/"
    page = _page(alice_pages, url, **CHINESE)
    assert 'lang="zh-hant"' in page
    for words in ("屬實自", "上次確認", "時間軸", "忘記這張卡片…", "仍然屬實——確認", label_name("address", "zh-hant")):
        assert words in page, words
    english = _page(alice_pages, url, **ENGLISH)
    assert 'lang="en"' in english
    for words in ("True since", "Last confirmed", "Forget this card…", "Still true — confirm", "· address</h1>"):
        assert words in english, words
    assert "屬實自" not in english


def test_the_scope_page_lists_cards_in_chinese(alice_pages, household):
    url = f"/scopes/{household['family'].pk}/"
    page = _page(alice_pages, url, **CHINESE)
    assert 'lang="zh-hant"' in page
    for words in ("新增卡片", "篩選卡片", "The Lins 的卡片", "目前", label_name("address", "zh-hant")):
        assert words in page, words
    english = _page(alice_pages, url, **ENGLISH)
    for words in ("Add a card", "Filter the cards", "Cards in The Lins", "current"):
        assert words in english, words


def test_the_ask_page_speaks_chinese(alice_pages, household):
    page = _page(alice_pages, "/ask/", **CHINESE)
    assert 'lang="zh-hant"' in page
    for words in ("用平常的話向你的記憶提問", "詳細：進階表單（回想、回答、計數）", "你的問題"):
        assert words in page, words
    english = _page(alice_pages, "/ask/", **ENGLISH)
    assert "Details: the expert forms (recall, answer, count)" in english and "Your question" in english


def test_a_person_page_speaks_chinese(alice_pages, alice, household):
    me = Entity.objects.get(user=alice)
    page = _page(alice_pages, f"/people/{me.pk}/", **CHINESE)
    assert 'lang="zh-hant"' in page
    for words in (f"關於 {me.name}", "目前屬實的（", "你能看到的關於你自己的一切", label_name("address", "zh-hant")):
        assert words in page, words
    english = _page(alice_pages, f"/people/{me.pk}/", **ENGLISH)
    assert f"About {me.name}" in english and "What is true now (" in english


def test_the_forget_confirmation_speaks_chinese(alice_pages, household):
    url = f"/cards/{household['card'].pk}/forget/"
    page = _page(alice_pages, url, **CHINESE)
    assert 'lang="zh-hant"' in page
    for words in ("要忘記這張卡片嗎？", "此動作無法復原。", "忘記它"):
        assert words in page, words
    timeline = _page(alice_pages, f"{url}timeline/", **CHINESE)
    assert f"整條{label_name('address', 'zh-hant')}時間軸" in timeline
    english = _page(alice_pages, url, **ENGLISH)
    assert "Forget this card?" in english and "This cannot be undone." in english
