"""A label as a page names it, in the page's language: "phone" / 電話.

The registry's Chinese synonyms are what people say, so they name most labels
(ask_words.label_words, the words an answer uses). Some labels have no Chinese
word people would say alone — 是 for is_a would bind every question — and for
some the first synonym is a word people ask with rather than a name (郵箱地址,
演唱會 for an outing): their page names live here and win over the synonyms. A label an admin registers
reads as its key in either language until it has a Chinese synonym."""

from __future__ import annotations

from django.utils import translation

from .ask_words import in_script, label_words
from .labels import label_lookup
from .lexical import simplified
from .text import CJK

_CHINESE_SHOWN = {
    "allergy": "過敏", "avoids": "避開", "browser": "瀏覽器", "ethnicity": "族裔", "health_condition": "健康狀況",
    "is_a": "是一種", "made_of": "材質", "political_view": "政治立場", "prefers": "偏好", "religion": "宗教信仰",
    "sexual_orientation": "性傾向", "weight": "體重",
    "email": "電子郵件", "reference": "連結", "outing": "外出", "has": "擁有", "member_of": "所屬",
    "used_for": "用途", "meal": "用餐", "works_at": "工作地點", "manager": "主管",
}


def label_name(key: str, language: str | None = None) -> str:
    words = key.replace("_", " ")
    language = (language or translation.get_language() or "").lower()
    if not language.startswith("zh"):
        return words
    label = label_lookup(key)
    if label is None:
        return words
    script = "zh-Hans" if language == "zh-hans" else "zh-Hant"
    if (shown := _CHINESE_SHOWN.get(label.key)) is not None:
        return simplified(shown) if script == "zh-Hans" else shown
    if any(CJK.search(name) for name in label.synonyms):
        return label_words(label, script)
    return words


def label_meaning(label) -> str:
    """What a label holds, for a picker: the registry's description, written in English, on an English
    page; on a Chinese one its other Chinese names in the page's script (the synonyms people say)."""
    language = (translation.get_language() or "").lower()
    if not language.startswith("zh"):
        return label.description
    names = [name for name in label.synonyms if CJK.search(name)]
    shown = [simplified(name) if language == "zh-hans" else in_script(simplified(name), "zh-Hant") for name in names]
    return "、".join(name for name in dict.fromkeys(shown) if name != label_name(label.key))
