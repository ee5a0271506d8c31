"""Extraction quality (issue 21): an extractor against the labelled corpus in
tests/review/corpus/ (its README says the format). Run through bench/extract.py:

    .venv/bin/python bench/extract.py --quality [--extractor patterns|llm] [--json] [--examples 20]

Each corpus message goes through the extractor on its own, as ingest hands it a
session: a user `Message` with the message's own time and offset, and an
`ExtractContext` with every registered label and the speaker's zone. A proposal's
time is placed by ingest's own rule (review.services.ingest._place_in_time).

Matching, one to one, in corpus order: a proposal is right when an expected
candidate of the message not yet matched has
- the same label key (a proposal's synonym resolved through the registry),
- the same subject, and the same value — for a label that takes an entity, the
  proposal's object (its value when no object is given) — compared by
  `value_key` (case, punctuation, whitespace, leading determiners),
- and, when the expected candidate has a `when`, the same day in the anchoring
  zone (the message's offset, as ingest anchors it).
Precision = right / proposed, recall = right / expected; "rejected" counts the
proposals that are a candidate the corpus says must not be proposed.

Bad values (state and event values and objects; a knowledge card keeps a whole
sentence, so only a cut at a title and an empty one count there), each proposal
counted once, in this order:
- pronoun: the whole value is one pronoun (EN_PRONOUNS, ZH_PRONOUNS);
- function word: the whole value is one function word (EN_FUNCTION, ZH_FUNCTION);
- fragment: it starts or ends with a conjunction or preposition, starts with a
  subject pronoun and goes on (a clause: "it looks so cozy", 他說…), ends with a
  title cut from its name ("my dentist is Dr"), or has no content word.
"""

from __future__ import annotations

import collections
import datetime as dt
import re
import zoneinfo
from dataclasses import dataclass, field

from cards.labels import label_lookup, registry
from review.extract import extractor_for
from review.extract.base import ExtractContext, ExtractionFailed, Message, Proposal
from review.models import Candidate
from review.services.ingest import _place_in_time
from tests.review.corpus import DETERMINERS, HELD_OUT, CorpusMessage, Expected, corpus_load, value_key

# Families of labels, from the registry: an event is an event (purchases included),
# knowledge is a note, a sensitive attribute is health & beliefs; states by this table.
STATE_FAMILIES = {
    "places": ("address", "city", "country", "time_zone"),
    "work & study": ("employer", "works_at", "job_title", "manager", "school", "advisor", "skill", "stage",
                     "member_of"),
    "people": ("partner", "child", "parent", "sibling", "friend", "name", "relationship_status", "birthday",
               "dentist", "doctor"),
    "contact": ("phone", "email"),
    "likes & habits": ("likes", "dislikes", "interest", "hobby", "topic", "diet", "language", "browser"),
    "things": ("car", "pet", "breed", "has", "needs", "used_for", "made_of", "is_a"),
}
_FAMILY_OF_STATE = {key: family for family, keys in STATE_FAMILIES.items() for key in keys}

EN_PRONOUNS = frozenset(
    "i me my mine myself you your yours yourself he him his himself she her hers herself it its itself we us our "
    "ours ourselves they them their theirs themselves this that these those something anything everything nothing "
    "someone anyone everyone somebody anybody everybody one".split())
EN_SUBJECTS = frozenset("i you he she it we they".split())
EN_CONJUNCTIONS = frozenset("and or but because cause cos coz so yet nor if when while although though since unless "
                            "whereas than that which who whom whose where whether".split())
EN_PREPOSITIONS = frozenset("to of in on at for with from by about as into onto over under after before during "
                            "without within between through across around like near off up down upon until till "
                            "via per against among toward towards".split())
EN_FUNCTION = EN_CONJUNCTIONS | EN_PREPOSITIONS | DETERMINERS | frozenset(
    "is am are was were be been being do does did have has had will would can could shall should may might must "
    "not no very too just really also there here then now".split())
TITLES = frozenset("dr mr mrs ms st prof jr sr mt".split())
ZH_PRONOUNS = frozenset(
    "我 你 妳 您 他 她 它 牠 我們 我们 你們 你们 他們 他们 她們 她们 它們 它们 咱們 咱们 自己 大家 這 这 那 這個 这个 "
    "那個 那个 這些 这些 那些 這裡 这里 那裡 那里 佢 佢哋 我哋 你哋 呢個 嗰個 呢度".split())
ZH_SUBJECTS = frozenset("我 你 妳 您 他 她 它 我們 我们 你們 你们 他們 他们 她們 她们 佢 我哋 你哋 佢哋".split())
# Words a value may not start with (conjunctions, prepositions) or end with (those, and 的).
ZH_OPENERS = ("和", "跟", "與", "与", "或", "但", "可是", "不過", "不过", "而且", "因為", "因为", "所以", "如果", "要是",
              "雖然", "虽然", "然後", "然后", "在", "從", "从", "對", "对", "為了", "为了", "於", "于", "讓", "让", "喺")
ZH_CLOSERS = ("的", "和", "跟", "與", "与", "或", "但", "在", "從", "从", "對", "对", "把", "被", "給", "给", "因為",
              "因为", "所以", "嘅")
ZH_FUNCTION = frozenset(ZH_OPENERS + ZH_CLOSERS) | frozenset(
    "了 著 着 過 过 嗎 吗 呢 吧 啊 呀 啦 喔 哦 嘛 得 地 咗 是 有 很 也 都 還 还 再 又 才 不 沒 没 別 别 會 会 要 想 能 就 而 "
    "把 被 到 用 同 比 給 给".split())
_ZH_EMPTY = sorted(ZH_PRONOUNS | ZH_FUNCTION, key=len, reverse=True)
_HAN = re.compile(r"[\u3400-\u9fff]")
_EN_WORD = re.compile(r"[a-z0-9]+(?:['’][a-z]+)?")


def family_of(key: str) -> str:
    label = label_lookup(key)
    if label is None:
        return "unregistered label"
    if label.kind == "event":
        return "events & purchases"
    if label.kind == "knowledge":
        return "notes"
    if label.sensitive:
        return "health & beliefs"
    return _FAMILY_OF_STATE.get(label.key, "other")


def bad_value(value: str, *, knowledge: bool = False) -> str | None:
    """'pronoun', 'function word', 'fragment', or None for a value that can stand alone."""
    said = value.strip()
    if not said:
        return None
    if _HAN.search(said):
        return _bad_chinese(re.sub(r"[\s\W_]+$|^[\s\W_]+", "", said), knowledge)
    words = _EN_WORD.findall(said.casefold().replace("’", "'").replace("'cause", "cause"))
    if not words:
        return None
    if knowledge:
        return "fragment" if words[-1] in TITLES else None
    if len(words) == 1 and words[0] in EN_PRONOUNS:
        return "pronoun"
    if len(words) == 1 and words[0] in EN_FUNCTION:
        return "function word"
    edges = EN_CONJUNCTIONS | EN_PREPOSITIONS
    if (words[0] in edges or words[-1] in edges or words[-1] in TITLES
            or (words[0] in EN_SUBJECTS and len(words) > 1)
            or all(w in EN_FUNCTION or w in EN_PRONOUNS for w in words)):
        return "fragment"
    return None


def _bad_chinese(said: str, knowledge: bool) -> str | None:
    if knowledge:
        return None
    if said in ZH_PRONOUNS:
        return "pronoun"
    if said in ZH_FUNCTION:
        return "function word"
    rest = said
    for word in _ZH_EMPTY:
        rest = rest.replace(word, "")
    if (said.startswith(ZH_OPENERS) or said.endswith(ZH_CLOSERS) or not rest.strip()
            or any(said.startswith(s) and len(said) > len(s) and not said.startswith(s + "的") for s in ZH_SUBJECTS)):
        return "fragment"
    return None


# --- running and matching ---------------------------------------------------------------

@dataclass
class Scored:
    message: CorpusMessage
    proposals: list[Proposal] = field(default_factory=list)
    days: list[dt.date | None] = field(default_factory=list)
    right: list[bool] = field(default_factory=list)  # per proposal
    found: list[bool] = field(default_factory=list)  # per expected candidate
    rejected: list[bool] = field(default_factory=list)  # per proposal
    failed: str = ""


def _label_key(name: str) -> str:
    label = label_lookup(name)
    return label.key if label else name


def _target(label_key: str, value: str, object_: str | None) -> str:
    label = label_lookup(label_key)
    return value_key((object_ or value) if label is not None and label.takes_object else value)


def _expected_target(c: Expected) -> str:
    return value_key(c.object or c.value)


def proposal_day(p: Proposal, message: Message, zone: str) -> dt.date | None:
    """The day ingest would give the candidate, in the anchoring zone (the message's offset)."""
    candidate = Candidate(kind=p.kind)
    _place_in_time(candidate, p, message, zoneinfo.ZoneInfo(zone))
    moment = candidate.occurred_at if p.kind == "event" else candidate.effective_at
    return moment.astimezone(message.at.tzinfo).date() if moment else None


def score(corpus_message: CorpusMessage, proposals: list[Proposal], message: Message) -> Scored:
    scored = Scored(corpus_message, proposals)
    scored.days = [proposal_day(p, message, corpus_message.zone) for p in proposals]
    keys = [(_label_key(p.label), value_key(p.subject), _target(_label_key(p.label), p.value, p.object))
            for p in proposals]
    scored.right = [False] * len(proposals)
    for c in corpus_message.expect:
        want = (c.label, value_key(c.subject), _expected_target(c))
        hit = next((i for i, key in enumerate(keys) if not scored.right[i] and key == want
                    and (not c.when or scored.days[i] == dt.date.fromisoformat(c.when))), None)
        if hit is not None:
            scored.right[hit] = True
        scored.found.append(hit is not None)
    scored.rejected = [
        not scored.right[i] and any(r.label == key[0] and value_key(r.subject) == key[1]
                                    and (not (r.value or r.object) or _expected_target(r) == key[2])
                                    for r in corpus_message.reject)
        for i, key in enumerate(keys)]
    return scored


def run(extractor_name: str | None = None, *, corpus: str = "main", limit: int | None = None
        ) -> tuple[str, list[Scored]]:
    """Every message of the corpus ("main", or "held-out": written apart from the rules and never
    fitted to) through the extractor; with `limit`, the first `limit` of each file only."""
    extractor = extractor_for(extractor_name)
    keys = sorted({label.key for label in registry().values()})
    results = []
    messages = corpus_load(HELD_OUT) if corpus == "held-out" else corpus_load()
    if limit is not None:
        by_file: dict[str, list[CorpusMessage]] = collections.defaultdict(list)
        for m in messages:
            by_file[m.file].append(m)
        messages = [m for file in by_file.values() for m in file[:limit]]
    for m in messages:
        message = Message(id=m.id, role="user", text=m.text, at=dt.datetime.fromisoformat(m.at))
        context = ExtractContext(known_labels=keys, known_entities=[], time_zone=m.zone)
        try:
            proposals = extractor.extract([message], context).proposals
        except ExtractionFailed as error:
            failed = Scored(m, found=[False] * len(m.expect), failed=str(error)[:300])
            results.append(failed)
            continue
        results.append(score(m, [p for p in proposals if p.message_id == m.id], message))
    return extractor.name, results


# --- the report ---------------------------------------------------------------------------

def _ratio(a: int, b: int) -> float | None:
    return round(a / b, 3) if b else None


def _slice(results: list[Scored], *, family: str | None = None) -> dict:
    expected = proposed = right = rejected = 0
    bad: collections.Counter = collections.Counter()
    for s in results:
        expected += sum(family is None or family_of(c.label) == family for c in s.message.expect)
        for p, ok, rej in zip(s.proposals, s.right, s.rejected):
            if family is not None and family_of(p.label) != family:
                continue
            proposed += 1
            right += ok
            rejected += rej
            knowledge = p.kind == "knowledge"
            kinds = [bad_value(v, knowledge=knowledge) for v in (p.value, p.object or "")]
            if flagged := next((k for k in kinds if k), None):
                bad[flagged] += 1
    # Matching is one to one and on the label, so `right` counts found expected candidates as well.
    return {"messages": len(results) if family is None else None, "expected": expected, "proposed": proposed,
            "right": right, "precision": _ratio(right, proposed), "recall": _ratio(right, expected),
            "rejected_proposed": rejected, "bad_values": dict(bad), "bad_value_count": sum(bad.values())}


def report(name: str, results: list[Scored], examples: int = 20) -> dict:
    langs = {"English": ("en",), "Chinese": ("zh-Hant", "zh-Hans"), "  Traditional": ("zh-Hant",),
             "  Simplified": ("zh-Hans",)}
    families = sorted({family_of(c.label) for s in results for c in s.message.expect}
                      | {family_of(p.label) for s in results for p in s.proposals})
    wrong = [{"id": s.message.id, "text": s.message.text, "label": p.label, "subject": p.subject, "value": p.value,
              "object": p.object, "day": d.isoformat() if d else None, "rejected": rej, "rule": p.rule}
             for s in results for p, ok, rej, d in zip(s.proposals, s.right, s.rejected, s.days) if not ok]
    missed = [{"id": s.message.id, "text": s.message.text, "label": c.label, "subject": c.subject,
               "value": c.value or c.object, "when": c.when or None}
              for s in results for c, f in zip(s.message.expect, s.found) if not f]
    return {
        "extractor": name, "corpus": "tests/review/corpus", "messages": len(results),
        "failed_messages": [{"id": s.message.id, "error": s.failed} for s in results if s.failed],
        "overall": _slice(results),
        "languages": {lang: _slice([s for s in results if s.message.lang in codes]) for lang, codes in langs.items()},
        "families": {f: _slice(results, family=f) for f in families},
        "wrong_examples": wrong[:examples], "missed_examples": missed[:examples],
        "wrong_total": len(wrong), "missed_total": len(missed),
    }


def _row(title: str, r: dict) -> str:
    bad = ", ".join(f"{k} {v}" for k, v in sorted(r["bad_values"].items())) or "0"
    cells = [title, r["messages"] if r["messages"] is not None else "", r["expected"], r["proposed"], r["right"],
             r["precision"] if r["precision"] is not None else "–", r["recall"] if r["recall"] is not None else "–",
             r["rejected_proposed"], bad]
    return "| " + " | ".join(str(c) for c in cells) + " |"


def table(rep: dict) -> str:
    lines = [f"Extraction quality against {rep['corpus']}: extractor `{rep['extractor']}`, {rep['messages']} messages"
             + (f", {len(rep['failed_messages'])} failed" if rep["failed_messages"] else ""), "",
             "| slice | messages | expected | proposed | right | precision | recall | rejected proposed | bad values |",
             "|---|---:|---:|---:|---:|---:|---:|---:|---|", _row("**overall**", rep["overall"])]
    lines += [_row(lang, r) for lang, r in rep["languages"].items()]
    lines += [_row(f"family: {f}", r) for f, r in rep["families"].items()]
    lines += ["", f"wrong proposals {rep['wrong_total']}, missed expected {rep['missed_total']}; first wrong:"]
    lines += [f"  {w['id']}: {w['label']} {w['subject']!r} {w['value'] or w['object']!r}"
              + (f" day {w['day']}" if w["day"] else "") + (" (rejected)" if w["rejected"] else "")
              for w in rep["wrong_examples"]]
    return "\n".join(lines)
