"""A label as a page names it, in the page's language: "phone" / 電話.

The registry's Chinese synonyms are what people say, so they name most labels
(label_words, the words an answer uses). Some labels have no Chinese
word people would say alone — 是 for is_a would bind every question — and for
some the first synonym is a word people ask with rather than a name (郵箱地址,
演唱會 for an outing): their page names live here and win over the synonyms. A label an admin registers
reads as its key in either language until it has a Chinese synonym."""

from __future__ import annotations

from django.utils import translation

from ..labels import label_lookup
from ..text import CJK
from .lexical import in_script, simplified

_CHINESE_SHOWN = {
    "allergy": "過敏", "avoids": "避開", "browser": "瀏覽器", "ethnicity": "族裔", "health_condition": "健康狀況",
    "is_a": "是一種", "made_of": "材質", "political_view": "政治立場", "prefers": "偏好", "religion": "宗教信仰",
    "sexual_orientation": "性傾向", "weight": "體重",
    "email": "電子郵件", "reference": "連結", "outing": "外出", "has": "擁有", "member_of": "所屬",
    "used_for": "用途", "meal": "用餐", "works_at": "工作地點", "manager": "主管",
}


def _script(language: str | None) -> str | None:
    """The Chinese script a page in `language` (else the active one) reads, or None for a page in English."""
    language = (language or translation.get_language() or "").lower()
    if not language.startswith("zh"):
        return None
    return "zh-Hans" if language == "zh-hans" else "zh-Hant"


def label_name(key: str, language: str | None = None) -> str:
    words = key.replace("_", " ")
    script = _script(language)
    if script is None:
        return words
    label = label_lookup(key)
    if label is None:
        return words
    if (shown := _CHINESE_SHOWN.get(label.key)) is not None:
        return simplified(shown) if script == "zh-Hans" else shown
    if any(CJK.search(name) for name in label.synonyms):
        return label_words(label, script)
    return words


def label_other_names(label) -> str | None:
    """A label's other Chinese names (the synonyms people say) in the script of a Chinese page, for a
    picker that describes each label; None on an English page, which has the registry's description."""
    script = _script(None)
    if script is None:
        return None
    shown = label_name(label.key)
    names = (in_script(simplified(name), script) for name in label.synonyms if CJK.search(name))
    return "、".join(name for name in dict.fromkeys(names) if name != shown)


def label_words(label, language: str, *, plural: bool = False) -> str:
    """A label as a person says it: "phone", "weddings", 电话 / 電話 (its first Chinese name)."""
    if language != "en":
        chinese = next((name for name in label.synonyms if CJK.search(name)), label.key.replace("_", " "))
        return in_script(simplified(chinese), language)
    words = label.key.replace("_", " ")
    if not plural:
        return words
    return words[:-1] + "ies" if words.endswith("y") and words[-2:-1] not in "aeiou" else words + "s"
