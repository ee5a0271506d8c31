"""The scopes pages in Traditional Chinese for a browser that asks for it: the
tokens, connect, members, settings and invite sign-up pages, their role and
access names, and the messages after revoking a token or saving settings. A
browser that asks for English gets the English pages as before."""

import pytest

from scopes.invites import invite_create
from scopes.tokens import token_create

pytestmark = pytest.mark.django_db

CHINESE = {"HTTP_ACCEPT_LANGUAGE": "zh-Hant"}
ENGLISH = {"HTTP_ACCEPT_LANGUAGE": "en"}


def _text(response) -> str:
    assert response.status_code == 200
    return response.content.decode()


def test_the_tokens_page_speaks_chinese(household, pages, alice):
    token_create(user=alice, name="kitchen", scopes=[household["family"]], can_write=True)
    page = _text(pages(alice).get("/tokens/", **CHINESE))
    assert '<html lang="zh-hant"' in page
    assert "代理權杖" in page and "建立權杖" in page and "從未" in page
    assert ">讀寫<" in page  # the token's access, named in Chinese
    assert "Agent tokens" not in page and "Create token" not in page


def test_the_connect_page_speaks_chinese_around_code_left_as_written(household, pages, alice):
    token, _secret = token_create(user=alice, name="kitchen", scopes=[household["family"]])
    page = _text(pages(alice).get(f"/tokens/{token.pk}/connect/", **CHINESE))
    assert '<html lang="zh-hant"' in page
    assert "連接代理：kitchen" in page and "測試這個權杖" in page and ">家庭<" in page
    # The words the copy and test scripts say come from the page, in its language.
    assert 'data-copied="已複製"' in page and 'data-empty="請先貼上權杖。"' in page
    assert "curl -s" in page and "&lt;your token&gt;" in page  # the snippets are code: as written


def test_the_members_page_names_roles_in_chinese(household, pages, alice):
    page = _text(pages(alice).get(f"/scopes/{household['family'].pk}/members/", **CHINESE))
    assert '<html lang="zh-hant"' in page
    assert "各角色可以做什麼" in page and "以名稱邀請某人" in page
    assert "<dt>擁有者</dt>" in page and "檢視者：僅能讀取" in page
    assert '<option value="member" selected>成員</option>' in page


def test_the_settings_page_speaks_chinese(pages, alice):
    page = _text(pages(alice).get("/accounts/settings/", **CHINESE))
    assert '<html lang="zh-hant"' in page
    assert "<h1>設定</h1>" in page and "時區" in page and "刪除你的帳號" in page


def test_the_invite_sign_up_page_speaks_chinese(household, client, alice):
    _invite, raw = invite_create(scope=household["family"], role="reviewer", created_by=alice)
    page = _text(client.get(f"/invite/{raw}/", **CHINESE))
    assert '<html lang="zh-hant"' in page
    assert "加入 The Lins" in page and "<strong>審核者</strong>" in page and "註冊並加入" in page
    assert "密碼" in page and "再次輸入密碼" in page


def test_english_pages_are_unchanged(household, client, pages, alice):
    _invite, raw = invite_create(scope=household["family"], role="reviewer", created_by=alice)
    invite = _text(client.get(f"/invite/{raw}/", **ENGLISH))
    assert '<html lang="en"' in invite and "invites you as <strong>reviewer</strong>." in invite
    members = _text(pages(alice).get(f"/scopes/{household['family'].pk}/members/", **ENGLISH))
    assert "<dt>owner</dt>" in members and "viewer: read only" in members and "What each role may do" in members
    assert '<option value="member" selected>member</option>' in members
    tokens = _text(pages(alice).get("/tokens/", **ENGLISH))
    assert "Agent tokens" in tokens and "No tokens yet." in tokens


def test_the_message_after_revoking_a_token_is_chinese(household, pages, alice):
    token, _secret = token_create(user=alice, name="kitchen", scopes=[household["family"]])
    page = _text(pages(alice).post(f"/tokens/{token.pk}/revoke/", follow=True, **CHINESE))
    assert "已撤銷 kitchen：它立即停止運作。" in page


def test_the_message_after_saving_settings_is_chinese(pages, alice):
    page = _text(pages(alice).post("/accounts/settings/", {"time_zone": "Asia/Taipei", "language": ""},
                                   follow=True, **CHINESE))
    assert "你的日期現在以 Asia/Taipei 時區解讀。" in page
