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

from dataclasses import dataclass

from .labels import registry
from .lexical import CJK, WORD, simplified, singular
from .models import Label
from .text import normalize

FIRST_PERSON = frozenset({"i", "me", "my", "mine", "myself"})
# 我 is the asker unless it begins 我们 / 我們 (we).
_CHINESE_WE = ("我们", "我們")

MAX_NAME_WORDS = 4

# Attributes of a person recorded under their own label and no other way: a phone
# number is a `phone` card, never a note beside it. A question naming one of these
# for people who have no such card has nothing recorded that answers it
# (retrieval.py abstains). Where one lives, works or what one is called are also
# said in other cards (a city, a move, a pet's name), so their labels never
# decide. Measured on bench/retrieval_set: 17 of the 18 questions it abstains on
# are unanswerable (bench/README "retrieval_quality.py").
ABSENCE_TELLS = frozenset({"phone", "email", "birthday", "car", "partner", "manager", "school", "advisor"})


def _spoken(query: str) -> str:
    """The query's words, space-separated and space-bounded: " what s ana s phone number "."""
    return f" {' '.join(WORD.findall(normalize(query)))} "


def labels_named(query: str) -> list[Label]:
    """Every label the query names by its key or a synonym, longest name first
    ("phone number" before "number"), each once: every run of the query's words
    (and of its Chinese) as long as a name is, looked up — not every name searched for."""
    names = _names()
    words = _spoken(query).split()
    found: dict[str, Label] = {}
    for n in range(names.longest_words, 0, -1):
        for i in range(len(words) - n + 1):
            run = " ".join(words[i:i + n])
            # "weddings", "parties": a plural names the label its singular does.
            for said in (run, " ".join([*words[i:i + n - 1], singular(words[i + n - 1])])):
                if (label := names.english.get(said)) is not None:
                    found.setdefault(said, label)
    for run in CJK.findall(simplified(normalize(query))):
        for n in range(min(names.longest_chinese, len(run)), 0, -1):
            for i in range(len(run) - n + 1):
                if (label := names.chinese.get(run[i:i + n])) is not None:
                    found.setdefault(run[i:i + n], label)
    ordered: dict[int, Label] = {}
    for _, label in sorted(found.items(), key=lambda item: (-len(item[0]), item[0])):
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
    words = WORD.findall(normalize(query))
    runs = {" ".join(words[i:j])
            for i in range(len(words)) for j in range(i + 1, min(len(words), i + MAX_NAME_WORDS) + 1)}
    for chinese in CJK.findall(normalize(query)):
        runs |= {chinese[i:j] for i in range(len(chinese)) for j in range(i + 2, min(len(chinese), i + 4) + 1)}
    return sorted(runs)
