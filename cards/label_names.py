"""A label as a page names it, in the page's language: "phone" / 電話.

The registry's Chinese synonyms are what people say, so they name most labels
(ask_words.label_words, the words an answer uses). A few labels have no Chinese
word people would say alone — 是 for is_a would bind every question — so their
page names live here instead of among the synonyms. A label an admin registers
reads as its key in either language until it has a Chinese synonym."""

from __future__ import annotations

from django.utils import translation

from .ask_words import label_words
from .labels import label_lookup
from .lexical import simplified
from .text import CJK

_CHINESE_SHOWN = {
    "allergy": "過敏", "avoids": "避開", "browser": "瀏覽器", "ethnicity": "族裔", "health_condition": "健康狀況",
    "is_a": "是一種", "made_of": "材質", "political_view": "政治立場", "prefers": "偏好", "religion": "宗教信仰",
    "sexual_orientation": "性傾向", "weight": "體重",
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
    if any(CJK.search(name) for name in label.synonyms):
        return label_words(label, script)
    shown = _CHINESE_SHOWN.get(label.key)
    if shown is None:
        return words
    return simplified(shown) if script == "zh-Hans" else shown
