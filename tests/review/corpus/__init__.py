"""The labelled extraction corpus (README.md here says the format): loading it is
its one home, read by tests/review/test_extract_corpus.py and bench/extract_quality.py."""

from __future__ import annotations

import json
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
LANGUAGES = ("en", "zh-Hant", "zh-Hans")
HELD_OUT = HERE / "heldout"
# Leading words a value may carry or not ("the blue kayak", "my grandmother", "all the yellow leaves").
DETERMINERS = frozenset({"a", "an", "the", "my", "our", "all", "these", "those", "this", "that", "some"})
FIELDS = {"id", "lang", "speaker", "zone", "at", "text", "expect", "reject", "note"}


@dataclass(frozen=True)
class Expected:
    """One candidate a careful reviewer would propose (or, in `reject`, one that must not be)."""

    label: str
    subject: str
    kind: str = ""  # always given in `expect`; absent in `reject`
    value: str = ""
    object: str = ""
    when: str = ""  # an absolute day, YYYY-MM-DD, in the speaker's offset at the message time
    tag: str = ""


@dataclass(frozen=True)
class CorpusMessage:
    id: str
    lang: str
    speaker: str
    zone: str  # the speaker's IANA zone setting (the message's own offset still anchors its days)
    at: str  # ISO 8601 with an offset
    text: str
    expect: tuple[Expected, ...] = field(default=())
    reject: tuple[Expected, ...] = field(default=())
    file: str = ""
    line: int = 0


def value_key(text: str) -> str:
    """What two values are compared by: NFKC, case folded, punctuation and symbols as spaces,
    whitespace collapsed, leading determiners dropped. "The self-acceptance" == "self acceptance"."""
    folded = unicodedata.normalize("NFKC", text).casefold()
    spaced = "".join(" " if unicodedata.category(ch)[0] in "PS" else ch for ch in folded)
    words = spaced.split()
    while words and words[0] in DETERMINERS:
        words = words[1:]
    return " ".join(words)


def _candidate(raw: dict, where: str) -> Expected:
    unknown = set(raw) - {"kind", "label", "subject", "value", "object", "when", "tag"}
    if unknown:
        raise ValueError(f"{where}: unknown keys {sorted(unknown)}")
    return Expected(**raw)


def corpus_load(directory: Path = HERE) -> list[CorpusMessage]:
    """Every message of every *.jsonl file, in file then line order. A malformed line is a ValueError
    naming its file and line."""
    messages = []
    for path in sorted(directory.glob("*.jsonl")):
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if not line.strip():
                continue
            where = f"{path.name}:{number}"
            raw = json.loads(line)
            if unknown := set(raw) - FIELDS:
                raise ValueError(f"{where}: unknown keys {sorted(unknown)}")
            raw.pop("note", None)
            expect = tuple(_candidate(c, f"{where} expect") for c in raw.pop("expect", []))
            reject = tuple(_candidate(c, f"{where} reject") for c in raw.pop("reject", []))
            messages.append(CorpusMessage(**raw, expect=expect, reject=reject, file=path.name, line=number))
    return messages
