"""Checks the evaluation set's files (README.md beside this) without a database:
shapes, registered labels of the right kind, ids, citations, and that a cited
single-value card is still the latest of its timeline when the question is asked.

    python bench/retrieval_set/validate.py [file.json …]
"""

from __future__ import annotations

import datetime as dt
import importlib.util
import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
LABELS_FILE = HERE.parent.parent / "cards" / "migrations" / "0005_builtin_labels.py"
LANGUAGES = {"en", "zh-Hant", "zh-Hans", "mixed"}


def family(language: str) -> str:
    return "zh" if language.startswith("zh") else language


def question_group(language: str, question: dict) -> str:
    """Where a question is counted: its conversation's language (en, zh, mixed), or, for a question
    asked in the other language than its conversation's (its own `language`), the pair asked across:
    "en→zh" (an English question about Chinese cards) or "zh→en"."""
    asked, held = family(question.get("language", language)), family(language)
    return held if asked == held else f"{asked}→{held}"


def _labels() -> dict[str, tuple[str, str, bool]]:
    spec = importlib.util.spec_from_file_location("builtin_labels", LABELS_FILE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return {row[0]: (row[1], row[2], row[7]) for row in module.LABELS}


def _instant(text: str, where: str, problems: list[str]) -> dt.datetime | None:
    try:
        moment = dt.datetime.fromisoformat(text)
    except (TypeError, ValueError):
        problems.append(f"{where}: not an ISO instant: {text!r}")
        return None
    if moment.tzinfo is None:
        problems.append(f"{where}: an instant needs its offset: {text!r}")
        return None
    return moment


def check(path: Path, labels: dict) -> tuple[list[str], dict]:
    problems: list[str] = []
    data = json.loads(path.read_text())
    if data.get("language") not in LANGUAGES:
        problems.append(f"language must be one of {sorted(LANGUAGES)}")
    if data.get("scope", {}).get("kind") not in ("family", "team"):
        problems.append("scope.kind must be family or team")
    people = {p["username"]: p for p in data.get("people", [])}
    names = {p["display_name"] for p in people.values()}
    cards: dict[str, dict] = {}
    timeline: dict[tuple, list[tuple[dt.datetime, str]]] = {}
    for session in data.get("sessions", []):
        where = f"session {session.get('id')}"
        at = _instant(session.get("at"), where, problems)
        if session.get("speaker") not in people:
            problems.append(f"{where}: speaker {session.get('speaker')!r} is not one of people")
        for card in session.get("cards", []):
            cid = card.get("id")
            if not cid or cid in cards:
                problems.append(f"{where}: missing or repeated card id {cid!r}")
                continue
            cards[cid] = {**card, "_at": at, "_speaker": session.get("speaker")}
            label = labels.get(card.get("label"))
            if label is None:
                problems.append(f"{cid}: unknown label {card.get('label')!r}")
                continue
            kind, cardinality, sensitive = label
            if card.get("kind") != kind:
                problems.append(f"{cid}: label {card['label']} is a {kind}, not a {card.get('kind')}")
            if sensitive:
                problems.append(f"{cid}: {card['label']} is a sensitive label; leave it out")
            if not (card.get("value") or card.get("text")):
                problems.append(f"{cid}: needs a value or a text")
            if kind == "event":
                try:
                    dt.date.fromisoformat(card.get("occurred", ""))
                except ValueError:
                    problems.append(f"{cid}: an event needs `occurred` as YYYY-MM-DD")
            subject = card.get("subject")
            if not subject:
                problems.append(f"{cid}: needs a subject")
            if cardinality == "single" and kind == "state" and at is not None:
                who = cards[cid]["_speaker"] if subject == "me" else subject
                if who in people:
                    who = people[who]["display_name"]
                timeline.setdefault((who, card["label"]), []).append((at, cid))
    latest_before: dict[str, list[tuple[dt.datetime, str]]] = {}
    for entries in timeline.values():
        for _, cid in entries:
            latest_before[cid] = sorted(entries)
    questions = data.get("questions", [])
    seen = set()
    for question in questions:
        qid = question.get("id")
        if not qid or qid in seen:
            problems.append(f"missing or repeated question id {qid!r}")
        seen.add(qid)
        at = _instant(question.get("at"), qid, problems)
        if question.get("asker") not in people:
            problems.append(f"{qid}: asker {question.get('asker')!r} is not one of people")
        if not question.get("text"):
            problems.append(f"{qid}: needs a text")
        asked = question.get("language")
        if asked is not None and (asked not in LANGUAGES - {"mixed"} or data.get("language") == "mixed"
                                  or family(asked) == family(data.get("language", ""))):
            problems.append(f"{qid}: a question's own language is en or zh-*, the other one than the conversation's")
        if "translates" in question:
            source = next((q for q in questions if q.get("id") == question["translates"]), None)
            if source is None or source is question or "translates" in source:
                problems.append(f"{qid}: translates {question['translates']!r}, not another original question here")
            elif (source.get("at"), sorted(source.get("answers", []))) != (question.get("at"),
                                                                          sorted(question.get("answers", []))):
                problems.append(f"{qid}: a translation is asked at its original's time with its answers")
        for cid in question.get("answers", []):
            card = cards.get(cid)
            if card is None:
                problems.append(f"{qid}: cites unknown card {cid!r}")
                continue
            if at is not None and card["_at"] is not None and card["_at"] > at:
                problems.append(f"{qid}: cites {cid}, said after the question")
            later = [c for when, c in latest_before.get(cid, []) if at is None or when <= at]
            if later and later[-1] != cid:
                problems.append(f"{qid}: cites {cid}, but {later[-1]} replaced it before the question")
    counts = {"cards": len(cards), "questions": len(questions),
              "unanswerable": sum(1 for q in questions if not q.get("answers")),
              "across languages": sum(1 for q in questions if "language" in q),
              "sessions": len(data.get("sessions", [])), "people": len(people), "names": len(names)}
    return problems, counts


def main(argv: list[str]) -> int:
    labels = _labels()
    paths = [Path(a) for a in argv] or sorted(HERE.glob("*.json"))
    total = {"cards": 0, "questions": 0, "unanswerable": 0, "across languages": 0}
    failed = False
    for path in paths:
        problems, counts = check(path, labels)
        for key in total:
            total[key] += counts[key]
        print(f"{path.name}: {counts}" + ("" if not problems else f" — {len(problems)} problems"))
        for problem in problems:
            print("   ", problem)
        failed = failed or bool(problems)
    print("total:", total)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
