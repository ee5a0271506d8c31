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

from functools import lru_cache

from .labels import registry
from .lexical import CJK, WORD, simplified
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
    ("phone number" before "number"), each once."""
    spoken, chinese = _spoken(query), simplified(normalize(query))
    found: dict[int, Label] = {}
    for name, label in _names_longest_first():
        if CJK.search(name):
            if name in chinese:
                found.setdefault(label.pk, label)
        elif f" {name} " in spoken:
            found.setdefault(label.pk, label)
    return list(found.values())


def _names_longest_first() -> list[tuple[str, Label]]:
    table = registry()
    return _ordered(tuple(table.items()))


@lru_cache(maxsize=4)
def _ordered(items: tuple[tuple[str, Label], ...]) -> list[tuple[str, Label]]:
    # The registry's table is rebuilt when it expires: a new tuple, a new cache entry.
    return sorted(((simplified(name) if CJK.search(name) else name.replace("_", " "), label)
                   for name, label in items), key=lambda item: -len(item[0]))


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
