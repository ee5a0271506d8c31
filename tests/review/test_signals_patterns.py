"""The signal readers on labelled examples (review/extract/signals.py): recurring blockers and priority
shifts in English, Traditional and Simplified Chinese, and the near misses that must not trigger —
a one-off annoyance that is not a breakage, hypotheticals, questions, people rather than things."""

import datetime as dt

import pytest

from review.extract.base import Message
from review.extract.signals import blocker_key, blockers_in, priority_shifts_in

AT = dt.datetime(2026, 5, 8, 16, 44, tzinfo=dt.timezone(dt.timedelta(hours=8)))

BLOCKERS = [  # (what the person said, the blocker's short name, or None: not a blocker report)
    ("The build broke again.", "build"),
    ("Ugh, CI is red again.", "CI"),
    ("The nightly build failed again on main.", "nightly build"),
    ("Our deploy is down again today", "deploy"),
    ("I'm so tired, the deploy is down again", "deploy"),
    ("The server went down again", "server"),
    ("The tests keep failing", "tests"),
    ("建置又壞了", "建置"),
    ("唉，建置又壞了！", "建置"),
    ("CI又掛了！", "CI"),
    ("构建又坏了", "构建"),
    ("测试又失败了", "测试"),
    ("伺服器又當機了", "伺服器"),
    ("Forklift 3 is broken again, I've tagged it, don't use it until the tech comes", "Forklift 3"),
    # near misses
    ("the bus was late", None),
    ("The bus was late again", None),
    ("If the build breaks again, call me.", None),
    ("Did the build break again?", None),
    ("CI is red again?", None),
    ("Is CI red again", None),
    ("We broke up.", None),
    ("It broke again.", None),
    ("I failed again", None),
    ("Maybe he broke the build again because he wants attention.", None),
    ("The build is green again", None),
    ("建置又壞了嗎？", None),
    ("如果CI又掛了就打給我", None),
    ("他又失敗了", None),
    ("公車又遲到了", None),
    ("我今天好累", None),
    ("I love the pohutukawa trees this time of year, the whole street goes red", None),
    ("我很爱做烘焙，家里烤箱都快被我用坏了", None),
    ("烤箱快壞了", None),
]

SHIFTS = [  # (what the person said, (what is first now, what it replaced), or None)
    ("We dropped the garden plan, we're doing the patio instead.", ("the patio", "the garden plan")),
    ("We've scrapped the blog and we're focusing on the newsletter instead", ("the newsletter", "the blog")),
    ("Instead of the garden, we're doing the patio.", ("the patio", "the garden")),
    ("The priority now is the patio.", ("the patio", "")),
    ("Our top priority is the launch.", ("the launch", "")),
    ("The launch is now our top priority", ("The launch", "")),
    ("Let's focus on the patio first.", ("the patio", "")),
    ("We're prioritising the mobile app", ("the mobile app", "")),
    ("我們先做陽台", ("陽台", "")),
    ("我们先做阳台吧", ("阳台", "")),
    ("不做花園了，改成做陽台", ("陽台", "花園")),
    ("花園不做了，改做陽台。", ("陽台", "花園")),
    ("现在的重点是阳台", ("阳台", "")),
    ("放弃花园，改成做阳台", ("阳台", "花园")),
    # near misses
    ("What's the priority now?", None),
    ("If the priority is the patio, we need wood.", None),
    ("The priority is low.", None),
    ("We're doing the patio", None),
    ("I might drop the garden plan and do the patio instead", None),
    ("the bus was late", None),
    ("要不要先做陽台？", None),
    ("如果先做陽台就要買木頭", None),
    ("我先做個三明治", None),
    ("先做完功課", None),
    ("我們打算先做陽台", None),
]


def _said(text: str, role: str = "user") -> list[Message]:
    return [Message(id="m0", role=role, text=text, at=AT)]


@pytest.mark.parametrize(("text", "expected"), BLOCKERS)
def test_blocker_labelled(text, expected):
    found = [b.subject for b in blockers_in(_said(text))]
    assert found == ([expected] if expected else [])


@pytest.mark.parametrize(("text", "expected"), SHIFTS)
def test_priority_shift_labelled(text, expected):
    found = [(s.now, s.replaced) for s in priority_shifts_in(_said(text))]
    assert found == ([expected] if expected else [])


def test_the_same_blocker_in_either_script_or_case_is_one_name():
    assert blocker_key("建置") == blocker_key("建置") == blocker_key(" 建置 ")
    assert blocker_key("构建") == blocker_key("構建")
    assert blocker_key("CI") == blocker_key("ci") and blocker_key("Nightly  Build") == "nightly build"


def test_what_the_assistant_says_is_never_a_signal():
    assert blockers_in(_said("The build broke again.", role="assistant")) == []
    assert priority_shifts_in(_said("The priority now is the patio.", role="assistant")) == []


def test_a_priority_shift_keeps_only_a_sentence_the_policy_keeps_whole():
    # The shift's sentence is its quote: a sentence with a never-stored clause is not one.
    assert priority_shifts_in(_said("Ugh, we dropped the garden plan, we're doing the patio instead.")) == []


def test_the_labelled_set_holds_both_languages_and_both_scripts():
    chinese = [text for text, _ in BLOCKERS + SHIFTS if any("\u3400" <= c <= "\u9fff" for c in text)]
    assert len(chinese) >= 10 and any("壞" in t for t in chinese) and any("坏" in t for t in chinese)
    assert sum(expected is None for _, expected in BLOCKERS) >= 10
    assert sum(expected is None for _, expected in SHIFTS) >= 8
