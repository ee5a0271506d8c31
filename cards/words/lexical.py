"""The words of a text for lexical matching (recall's lexical score beside the
vector's, issue 17): what a small English embedding model knows badly — names,
rare nouns, Chinese — is matched here word for word.

NFKC and case folding, Traditional Chinese read as Simplified (OpenCC), so 哪裡
meets 哪里; Chinese segmented by jieba's search mode (a long word also yields
its parts: 管弦乐团, 管弦, 乐团); other scripts split at what is not a letter or a
digit; a plain English plural folded to its singular; function words, which
match everything, left out. Nothing is downloaded: jieba's dictionary ships in
its wheel."""

from __future__ import annotations

import logging
import re
import unicodedata
from functools import lru_cache

import jieba
import opencc

from ..text import HAN

jieba.setLogLevel(logging.WARNING)
_T2S = opencc.OpenCC("t2s")
_S2T = opencc.OpenCC("s2tw")
CJK = re.compile(f"[{HAN}]+")  # a run of Han characters, as jieba cuts it
WORD = re.compile(r"[^\W_]+")

# Words a question is made of whatever it asks: they would match every card.
STOP = frozenset("""
a an the and or but of to in on at for from by with about as into over after before is are was were be been
being am do does did done doing have has had having i me my mine we us our ours you your yours he him his she
her hers it its they them their theirs this that these those what which who whom whose when where why how
there here not no yes can could will would shall should may might must also just so than then too very any
some all each every other again ever still now get got tell know remember said say says let lets
的 了 是 我 你 他 她 它 们 我们 你们 他们 在 吗 呢 吧 啊 呀 么 什么 哪 哪里 哪儿 谁 怎么 怎样 几 多少 有 没有
和 跟 与 也 都 就 这 那 这个 那个 个 要 会 过 到 去 说 还 又 把 被 给 让 对 从 为 为什么 啥 咩 嘅 係 邊 邊度 乜 冇
""".split())


def singular(word: str) -> str:
    if len(word) > 3 and word.endswith("ies"):
        return word[:-3] + "y"
    if len(word) > 3 and word.endswith("s") and not word.endswith(("ss", "us", "is")):
        return word[:-1]
    return word


def simplified(text: str) -> str:
    """Traditional Chinese read as Simplified (哪裡 → 哪里); other scripts unchanged."""
    return _T2S.convert(text)


def in_script(text: str, language: str) -> str:
    """Chinese template text in the question's script (templates are written in Simplified)."""
    return _S2T.convert(text) if language == "zh-Hant" else text


@lru_cache(maxsize=4096)
def lexemes(text: str) -> tuple[str, ...]:
    """The text's words in order, repeats kept (a count is a term frequency)."""
    folded = simplified(unicodedata.normalize("NFKC", text).casefold())
    found: list[str] = []
    for run in WORD.findall(folded):
        for part in CJK.split(run):
            if len(part) > 1 and part not in STOP:  # "dana's" leaves an "s" behind
                found.append(singular(part))
        for chinese in CJK.findall(run):
            found += (word for word in jieba.cut_for_search(chinese) if word.strip() and word not in STOP)
    return tuple(found)


def query_terms(text: str) -> tuple[str, ...]:
    """A query's distinct words, in order."""
    return tuple(dict.fromkeys(lexemes(text)))


def card_lexemes(*, label_key: str, value: str, object_name: str | None, text: str) -> list[str]:
    """A card's words, each once: what its vector stands for (embedding_text), word for word."""
    return list(dict.fromkeys(lexemes(" ".join((label_key.replace("_", " "), value, object_name or "", text)))))
