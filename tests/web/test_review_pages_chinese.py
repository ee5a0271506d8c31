"""The review pages in Traditional Chinese when the browser asks for it: the
index, a scope's queue with a candidate, the label picker and the rule form.
A label reads as the page's language names it, while every box and data-value
keeps its key; the same pages in English are unchanged."""

from __future__ import annotations

import datetime as dt
import zoneinfo

import pytest

from review.models import Candidate

pytestmark = pytest.mark.django_db

CHINESE = {"HTTP_ACCEPT_LANGUAGE": "zh-Hant"}
SAID_AT = dt.datetime(2026, 5, 8, 9, 30, tzinfo=zoneinfo.ZoneInfo("Asia/Taipei"))


def proposed(scope, author, **fields) -> Candidate:
    defaults = {"kind": "state", "label": "city", "subject": "me", "value": "Kyoto", "quote": "we moved to Kyoto",
                "message_at": SAID_AT, "anchor_zone": "Asia/Taipei", "extractor": "patterns", "rule": "moved_to",
                "session": "s1", "message": "m1"}
    return Candidate.objects.create(scope=scope, author=author, **{**defaults, **fields})


def test_the_review_index_speaks_chinese(household, pages, alice):
    page = pages(alice).get("/review/", **CHINESE).content.decode()
    assert '<html lang="zh-hant"' in page
    for words in ("<h1>審核</h1>", "關於你的說法", "你審核的範圍", "沒有關於你的說法等你決定。"):
        assert words in page
    assert "Scopes you review" not in page


def test_a_queue_with_a_candidate_speaks_chinese_and_names_its_label_in_chinese(household, pages, alice):
    family = household["family"]
    item = proposed(family, alice)
    page = pages(alice).get(f"/scopes/{family.pk}/review/", **CHINESE).content.decode()
    assert '<html lang="zh-hant"' in page
    assert f"審核 {family.name}" in page and "提議的卡片（1）" in page and "一次決定多項" in page
    assert "Alice · 城市: Kyoto" in page  # the label as Chinese names it, in the heading
    assert ">核准</button>" in page and ">駁回</button>" in page
    assert "理由（駁回時必填）" in page and "核准前修改文字" in page
    # The box the reviewer edits keeps the key: approving reads it as a label.
    assert f'id="c{item.pk}_label"' in page and 'value="city"' in page
    assert "Proposed cards" not in page


def test_the_label_picker_shows_chinese_names_and_puts_the_key_in_the_box(household, pages, alice):
    item = proposed(household["family"], alice)
    box = f"c{item.pk}_label"
    text = pages(alice).get("/review/labels/", {"kind": "state", "for": box, "label": "lives"},
                            **CHINESE).content.decode()
    assert (f'<button type="button" class="link" data-label-pick="{box}" data-value="address" '
            'aria-label="使用標籤 地址">地址</button>') in text
    assert "請選一個：" in text


def test_the_rule_form_speaks_chinese(household, pages, alice):
    family = household["family"]
    page = pages(alice).get(f"/scopes/{family.pk}/rules/new/", **CHINESE).content.decode()
    assert '<html lang="zh-hant"' in page
    for words in ("<h1>撰寫規則</h1>", ">預覽</button>", ">存為草稿</button>", "如果…", "新增條件", "誰或什麼"):
        assert words in page
    assert 'aria-label="條件 1"' in page and 'aria-label="結論"' in page


def test_in_english_the_pages_are_unchanged_but_a_label_reads_as_words(household, pages, alice):
    family = household["family"]
    item = proposed(family, alice, label="decision_style", value="careful")
    client = pages(alice)
    page = client.get(f"/scopes/{family.pk}/review/").content.decode()
    assert '<html lang="en"' in page
    assert "Proposed cards (1)" in page and "Decide several at once" in page
    assert "Alice · decision style: careful" in page
    assert f'id="c{item.pk}_label"' in page and 'value="decision_style"' in page
    assert "<h1>Write a rule</h1>" in client.get(f"/scopes/{family.pk}/rules/new/").content.decode()
    assert "Scopes you review" in client.get("/review/").content.decode()
