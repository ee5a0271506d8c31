"""How well the write screen tells a secret from a near miss (DESIGN §4 rule 8).

    .venv/bin/python bench/secret_screen.py [--split tune|heldout1|…|heldout6|all] [--json]

Reads bench/secret_screen/phrasings.jsonl — one phrasing a line, {"text",
"secret", "lang", "split"}: half secrets (a password, PIN, door or alarm code,
card number or one-time code with its value), half near misses (the kind's word
without a value, or a number that is no secret), in English, Traditional and
Simplified Chinese and a mix. The rules were written against `tune`; each
`heldoutN` half was written afterwards, in other phrasings, run once, and only
then tuned on (bench/README.md gives each half's first-run figures). Each text
goes through the screen as a card's value (cards.screen content_finding) and
counts as refused when the rule it names is `secret`. Prints precision and
recall per split and per language, and every text classified wrongly; exits 1
when the whole is below 0.95 on either. No database is needed.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections import defaultdict
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "memory_site.settings")
import django  # noqa: E402

django.setup()

from cards.screen import content_finding  # noqa: E402
from cards.screen.secrets import SECRET  # noqa: E402

PHRASINGS = Path(__file__).resolve().parent / "secret_screen" / "phrasings.jsonl"


def figures(rows: list[dict]) -> dict:
    tp = sum(1 for r in rows if r["secret"] and r["refused"])
    fp = sum(1 for r in rows if not r["secret"] and r["refused"])
    fn = sum(1 for r in rows if r["secret"] and not r["refused"])
    return {"n": len(rows), "secrets": sum(1 for r in rows if r["secret"]),
            "precision": round(tp / (tp + fp), 3) if tp + fp else 1.0,
            "recall": round(tp / (tp + fn), 3) if tp + fn else 1.0,
            "false_positives": fp, "false_negatives": fn}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--split", choices=["tune", *(f"heldout{n}" for n in range(1, 7)), "all"], default="all")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()

    rows = [json.loads(line) for line in PHRASINGS.read_text(encoding="utf-8").splitlines() if line.strip()]
    if args.split != "all":
        rows = [r for r in rows if r["split"] == args.split]
    for row in rows:
        found = content_finding({"value": row["text"]})
        row["refused"] = found is not None and found.rule == SECRET

    report = {"whole": figures(rows)}
    for key in ("split", "lang"):
        groups = defaultdict(list)
        for row in rows:
            groups[row[key]].append(row)
        report.update({f"{key}={name}": figures(group) for name, group in sorted(groups.items())})
    wrong = [{"text": r["text"], "secret": r["secret"], "split": r["split"]}
             for r in rows if r["secret"] != r["refused"]]

    if args.json:
        print(json.dumps({"figures": report, "wrong": wrong}, ensure_ascii=False, indent=2))
    else:
        print(f"{'set':<16}{'n':>5}{'secrets':>9}{'precision':>11}{'recall':>8}{'FP':>5}{'FN':>5}")
        for name, f in report.items():
            print(f"{name:<16}{f['n']:>5}{f['secrets']:>9}{f['precision']:>11.3f}{f['recall']:>8.3f}"
                  f"{f['false_positives']:>5}{f['false_negatives']:>5}")
        for w in wrong:
            print(f"{'missed' if w['secret'] else 'refused'} ({w['split']}): {w['text']}")
    whole = report["whole"]
    return 0 if whole["precision"] >= 0.95 and whole["recall"] >= 0.95 else 1


if __name__ == "__main__":
    sys.exit(main())
