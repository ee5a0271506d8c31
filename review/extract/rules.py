"""What a pattern rule is, and the small helpers the English and Chinese rules share."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable

from cards.text import chinese_in

from .when import when_in


@dataclass(frozen=True)
class Draft:
    """One proposal without its provenance; the extractor adds quote, message and rule."""

    kind: str
    label: str
    value: str = ""
    object: str | None = None
    tag: str = "fact"
    when: str | None = None
    text: str = ""
    subject: str = "me"


Build = Callable[[re.Match[str]], list[Draft]]


@dataclass(frozen=True)
class Rule:
    name: str
    regex: re.Pattern[str]
    build: Build


def rule(name: str, pattern: str, build: Build, flags: int = re.IGNORECASE) -> Rule:
    return Rule(name, re.compile(pattern, flags), build)


# Capitalised words, one or two: "Mei", "Sam Lee". Case matters even in case-blind rules.
NAME = r"(?-i:[A-Z][\w-]*(?:\s+[A-Z][\w-]*)?)"
CAPITALISED = r"(?-i:[A-Z0-9])"

_TRAILING = ".,!?;:…。，！？；：、\"'“”‘’()（） \t"
_FILLER_EN = re.compile(r"\s+(?:now|these\s+days|at\s+the\s+moment|currently|nowadays|too|as\s+well|a\s+lot|"
                        r"so\s+much|very\s+much|fluently|a\s+little|well)$", re.IGNORECASE)
_PARTICLES_ZH = re.compile(r"[了啦喔哦呢吧呀啊耶]+$")
# Where a single value stops: "Kyoto with my family", "Acme, a startup", "Toyota as a mechanic",
# "loud neighbours more than anything", "camping trips with my fam, 'cause …".
_STOPS = (r"because|['’]?cause|cos|coz|since|with|where|which|who|whom|whose|that|so|as|if|when|while|though|although|"
          r"unless|until|till|before|after|more\s+than|even|just|than|instead|not|from\s+now|for\s+now|"
          r"by\s+the\s+way|in\s+case|anyway|again|already|finally|still|now|here|there|too|every|each|"
          r"this\s+time|on\s+(?:rainy|sunny|weekends?|weekdays?)|in\s+ages")
_CUT = re.compile(rf"\s*(?:[,;:!?(]|\s[-–—]\s|\s(?:and|but|or|{_STOPS})(?=\s|$))", re.IGNORECASE)
# A list item stops at the same words, but not at "and"/"or": those join the items.
_CUT_ITEM = re.compile(rf"\s*(?:[;:!?(]|\s[-–—]\s|\s(?:but|{_STOPS})(?=\s|$))", re.IGNORECASE)
# "the self-acceptance and love theme": a determiner before a coordination takes all of it.
_DETERMINED = re.compile(r"^(?:the|my|our|his|her|their|this|that|these|those)\s", re.IGNORECASE)


def clean(value: str, when: str | None = None) -> str:
    """The value as said, without the time expression, fillers or trailing punctuation."""
    if when:
        value = value.replace(when, " ")
    value = re.sub(r"\s+", " ", value).strip(_TRAILING)
    previous = None
    while previous != value:
        previous = value
        value = _FILLER_EN.sub("", value)
        value = _PARTICLES_ZH.sub("", value).strip(_TRAILING)
    return value


def said_as(text: str) -> str:
    """A knowledge card's sentence as said: spaces collapsed, end punctuation off, every word kept (…下面了)."""
    return re.sub(r"\s+", " ", text).strip(_TRAILING)


def said_whole(label: str):
    """A rule's build for a knowledge card that is the whole sentence as said (a how-to, a principle)."""
    def build(m: re.Match[str]) -> list[Draft]:
        said = said_as(m.string)
        return [Draft(kind="knowledge", label=label, value=said, text=said)]
    return build


def single(value: str, when: str | None = None) -> str:
    """A single value: cut at the first comma or connective."""
    return clean(_CUT.split(clean(value, when), maxsplit=1)[0])


def items(value: str, when: str | None = None) -> list[str]:
    """A list said in one breath: "English and Japanese", "peanuts, shellfish and eggs", 中文和日文 → one value
    each. A comma part that is not a plain item ends the list ("yellow leaves, it looks so cozy")."""
    said = clean(value, when)
    if chinese_in(said):
        parts = re.split(r"\s*(?:[,、，和跟及與与]|\s+and\s+|\s+or\s+)\s*", said)
        return [part for part in (clean(p) for p in parts) if part]
    found: list[str] = []
    for n, part in enumerate(re.split(r"\s*,\s*", said)):
        part = re.sub(r"^(?:and|or)\s+", "", part, flags=re.IGNORECASE) if n else part
        head = clean(_CUT_ITEM.split(part, maxsplit=1)[0])
        bare = re.findall(r"[a-z0-9]+", head.casefold().replace("’", "'"))
        if n and (head != clean(part) or not standalone(head) or len(bare) > 4 or "'" in head or "’" in head
                  or any(w in _PRONOUNS or w in _VERBISH for w in bare) or (len(bare) == 1 and bare[0].endswith("ly"))):
            break  # "…, the grilled corn is unreal", "…, he's funny", "…, seriously": a clause or an aside
        words = [head] if _DETERMINED.match(head) else re.split(r"\s+(?:and|or)\s+", head, flags=re.IGNORECASE)
        good = [clean(w) for w in words if clean(w)]
        if not good or not all(standalone(w) for w in good):
            break
        found += good
        if head != clean(part):
            break
    return found


def clause_when(m: re.Match[str]) -> str | None:
    """The time said in the match ("…, we visited Senso-ji this morning": this morning; 昨晚我們在…吃了串串，
    …今天…: 昨晚), else the first in its clause."""
    return when_in(m.group(0)) or when_in(m.string)


# --- what a value may not be (issue 21): a pronoun, a function word or a clause fragment ---------------

_PRONOUNS = frozenset(
    "i me my mine myself you your yours yourself he him his himself she her hers herself it its itself we us our "
    "ours ourselves they them their theirs themselves this that these those something anything everything nothing "
    "someone anyone everyone somebody anybody everybody one".split())
_SUBJECTS = frozenset("i you he she it we they".split())
_EDGES = frozenset(
    "and or but because cause cos coz so yet nor if when while although though since unless whereas than that which "
    "who whom whose where whether to of in on at for with from by about as into onto over under after before during "
    "without within between through across around like near off up down upon until till via per against among "
    "toward towards".split())
_FUNCTION = _EDGES | frozenset(
    "a an the all some is am are was were be been being do does did have has had will would can could shall should "
    "may might must not no very too just really also there here then now".split())
_VERBISH = frozenset("is am are was were be been do does did have has had will would can could should may might must "
                     "looks seems feels goes gets makes".split())
_TITLES = frozenset("dr mr mrs ms st prof jr sr mt".split())
_WORD = re.compile(r"[a-z0-9]+(?:['’][a-z]+)?")
_ZH_PRONOUNS = frozenset("我 你 妳 您 他 她 它 我們 我们 你們 你们 他們 他们 她們 她们 大家 自己 這 这 那 這個 这个 那個 那个 佢".split())
_ZH_SUBJECT = re.compile(r"^(?:我|你|妳|您|他|她|它|佢)(?!的|們的|们的)")
_ZH_EDGE_START = re.compile(r"^(?:的|和|跟|與|与|或|但|可是|不過|不过|而且|因為|因为|所以|如果|要是|然後|然后|在|從|从|對|对|為了|为了|讓|让|喺)")
_ZH_EDGE_END = re.compile(r"(?:的|和|跟|與|与|或|但|在|從|从|對|对|把|被|給|给|因為|因为|所以|嘅)$")


def standalone(value: str) -> bool:
    """Whether a state or event value can stand alone: not a pronoun, a function word, a clause
    ("it looks so cozy", 他說…) or a fragment cut at a conjunction, a preposition or a title ("Dr")."""
    said = value.strip()
    if not said:
        return False
    if chinese_in(said):
        bare = re.sub(r"^[\s\W_]+|[\s\W_]+$", "", said)
        return bool(bare) and bare not in _ZH_PRONOUNS and not (
            _ZH_SUBJECT.match(bare) and len(bare) > 1) and not _ZH_EDGE_START.match(bare) and not _ZH_EDGE_END.search(
            bare)
    words = _WORD.findall(said.casefold().replace("’", "'").replace("'cause", "cause"))
    if not words:
        return True  # a number or a symbol as written ("+886 912 345 678")
    return not (words[0] in _EDGES or words[-1] in _EDGES or words[-1] in _TITLES
                or (words[0] in _SUBJECTS) or all(w in _FUNCTION or w in _PRONOUNS for w in words))
