"""What a question is about, read without a model (issues 17 and 18): the
labels it names by a key or a registered synonym, in English or Chinese;
whether it speaks of the asker ("I", "my", 我); and the runs of words that
could be a name. Recall uses them to know when nothing recorded fits (a
question about a subject's label with no such card), `ask` to understand it.

English is matched word for word ("phone number" in "what's Ana's phone
number?", never "phone" inside "phones"); Chinese by substring after reading
Traditional as Simplified (電話 and 电话 both name `phone`), since Chinese has no
spaces to match words at."""

from __future__ import annotations

import re

from dataclasses import dataclass

from ..labels import registry
from .lexical import CJK, WORD, simplified, singular
from ..models import Label
from ..text import normalize

FIRST_PERSON = frozenset({"i", "me", "my", "mine", "myself"})
# 我 is the asker unless it begins 我们 / 我們 (we).
_CHINESE_WE = ("我们", "我們")

MAX_NAME_WORDS = 4
# Where Latin letters meet Chinese inside one word ("dana買了"): a name ends there.
_SCRIPTS = re.compile(r"(?<=[a-z0-9])(?=[\u3400-\u9fff])|(?<=[\u3400-\u9fff])(?=[a-z0-9])")
_TOKENS = re.compile(r"[^\s,;:!?？！，。、「」“”\"()（）]+")

# Attributes of a person recorded under their own label and no other way: a phone
# number is a `phone` card, never a note beside it. A question naming one of these
# for people who have no such card has nothing recorded that answers it
# (recall abstains: cards/recall/query.py). Where one lives, works or what one is called are also
# said in other cards (a city, a move, a pet's name), so their labels never
# decide. Measured on bench/retrieval_set: 17 of the 18 questions it abstains on
# are unanswerable (bench/README "retrieval_quality.py").
ABSENCE_TELLS = frozenset({"phone", "email", "birthday", "car", "partner", "manager", "school", "advisor"})


def _spoken(query: str) -> str:
    """The query's words, space-separated and space-bounded: " what s ana s phone number "."""
    return f" {' '.join(WORD.findall(normalize(query)))} "


# Synonyms that are words of almost any question ("what is Kai into?" is rare, "move
# into the flat" is not): they name their label in writes, never in a question.
_NOT_IN_QUESTIONS = frozenset({"into"})


def labels_named(query: str) -> list[Label]:
    """Every label the query names by its key or a synonym, longest name first
    ("phone number" before "number"), each once; a name inside a longer one found
    (地址 in 邮箱地址) names nothing apart. Every run of the query's words (and of its
    Chinese) as long as a name is, looked up — not every name searched for."""
    names = _names()
    words = _spoken(query).split()
    found: list[tuple[int, str, Label]] = []  # (length, name, label)
    taken: set[tuple[int, int]] = set()  # (run, position) already inside a longer name
    for n in range(names.longest_words, 0, -1):
        for i in range(len(words) - n + 1):
            if any((0, k) in taken for k in range(i, i + n)):
                continue
            run = " ".join(words[i:i + n])
            # "weddings", "parties": a plural names the label its singular does.
            for said in (run, " ".join([*words[i:i + n - 1], singular(words[i + n - 1])])):
                if said not in _NOT_IN_QUESTIONS and (label := names.english.get(said)) is not None:
                    found.append((len(said), said, label))
                    taken.update((0, k) for k in range(i, i + n))
                    break
    for r, run in enumerate(CJK.findall(simplified(normalize(query))), start=1):
        for n in range(min(names.longest_chinese, len(run)), 0, -1):
            for i in range(len(run) - n + 1):
                if any((r, k) in taken for k in range(i, i + n)):
                    continue
                if (label := names.chinese.get(run[i:i + n])) is not None:
                    found.append((n, run[i:i + n], label))
                    taken.update((r, k) for k in range(i, i + n))
    ordered: dict[int, Label] = {}
    for _, _, label in sorted(found, key=lambda item: (-item[0], item[1])):
        ordered.setdefault(label.pk, label)
    return list(ordered.values())


@dataclass(frozen=True)
class _Names:
    english: dict[str, Label]
    chinese: dict[str, Label]
    longest_words: int
    longest_chinese: int


_built: tuple[dict, _Names] | None = None


def _names() -> _Names:
    """The registry's names as lookups, rebuilt when the registry is (a new table)."""
    global _built
    table = registry()
    if _built is None or _built[0] is not table:
        english, chinese = {}, {}
        for name, label in table.items():
            if CJK.search(name):
                chinese.setdefault(simplified(name), label)
            else:
                english.setdefault(name.replace("_", " "), label)
        _built = (table, _Names(english, chinese, max((len(n.split()) for n in english), default=1),
                                max((len(n) for n in chinese), default=1)))
    return _built[1]


def speaks_of_self(query: str) -> bool:
    """The question is about the asker: "my", "I", "me" (as words), or 我 not as 我们."""
    if FIRST_PERSON.intersection(_spoken(query).split()):
        return True
    text = normalize(query)
    return any(text.startswith("我", i) and not text.startswith(_CHINESE_WE, i) for i in range(len(text)))


def name_runs(query: str) -> list[str]:
    """What in the query could be a name, as names are stored (cards.text.normalize):
    every run of up to MAX_NAME_WORDS words, and in Chinese every run of 2 to 4
    characters ("林子安", "小安"). One indexed equality each, in the scoring statement."""
    runs = set()
    # Words as the word pattern splits them ("mei", "hua"), and as spaces do with a
    # name's own marks kept ("mei-hua", "o'neill"; a possessive "'s" dropped).
    for words in ([part for word in WORD.findall(normalize(query)) for part in _SCRIPTS.split(word) if part],
                  [w.rstrip(".").removesuffix("'s").removesuffix("’s") for w in _TOKENS.findall(normalize(query))]):
        runs |= {" ".join(words[i:j])
                 for i in range(len(words)) for j in range(i + 1, min(len(words), i + MAX_NAME_WORDS) + 1)}
    for chinese in CJK.findall(normalize(query)):
        runs |= {chinese[i:j] for i in range(len(chinese)) for j in range(i + 2, min(len(chinese), i + 4) + 1)}
    return sorted(runs)
