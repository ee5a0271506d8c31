"""The similarity values of an embedding space, read off the team's evaluation set (bench/retrieval_set/):
what cards/embeddings/spaces.py SPACE_VALUES holds for each model, beside retrieval_quality.py (which
chooses α, the named boost and the floor through recall itself).

    .venv/bin/python bench/space_values.py [--backends local,e5] [--json]

No database: each conversation's cards are embedded as recall stores them (cards.embeddings.embedding_text,
as passages) and its questions as recall embeds them (as queries), by each backend in turn. For each:

* cosine of a question and the cards of its conversation that do not answer it (`unrelated`: the median is
  the similarity a card compared by no vector counts), and of the cards that do;
* cosine of two subjects' mean card vectors (subjects of one conversation known by at least two cards, `is_a`
  left out, as cards/answers/answer.py takes them): where the first space's guess threshold falls among its
  pairs, and the value at that same place among each other space's pairs — the threshold that lets the same
  share of neighbours count as alike.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections import defaultdict
from itertools import combinations
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "memory_site.settings")
SET = ROOT / "bench" / "retrieval_set"


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--backends", default="local,e5", help="the first is the reference for the guess threshold")
    p.add_argument("--json", action="store_true")
    return p.parse_args(argv)


def conversations() -> list[dict]:
    return [json.loads(path.read_text()) for path in sorted(SET.glob("*.json"))]


def card_texts(convo: dict) -> dict[str, tuple[str, str]]:
    """{card id: (its subject, its embedding text)}, as recall embeds a card (the subject left out); "me" is
    the session's speaker."""
    from cards.embeddings import embedding_text

    return {card["id"]: (session["speaker"] if card["subject"] == "me" else card["subject"],
                         embedding_text(label_key=card["label"], value=card.get("value", ""),
                                        object_name=card.get("object"), text=card.get("text", "")))
            for session in convo["sessions"] for card in session["cards"] if card["label"] != "is_a"}


def percentiles(values) -> dict:
    values = np.asarray(values, dtype=np.float64)
    return {"n": int(values.size), **{f"p{q}": round(float(np.percentile(values, q)), 4) for q in (5, 25, 50, 75, 95)}}


def measure(backend: str) -> dict:
    from django.conf import settings

    from cards.embeddings import current_space, embed_in_request, embed_texts

    settings.EMBEDDING_BACKEND = backend
    settings.EMBEDDING_QUERY_MODEL = "onnx"
    unrelated, answering, profiles = [], [], []
    by_language: dict[str, list[float]] = defaultdict(list)
    for convo in conversations():
        cards = card_texts(convo)
        ids = list(cards)
        vectors = np.asarray(embed_texts([cards[i][1] for i in ids]), dtype=np.float64)
        questions = convo["questions"]
        asked = np.asarray(embed_in_request([q["text"] for q in questions]), dtype=np.float64)
        similarity = asked @ vectors.T
        for q, row in zip(questions, similarity):
            answers = set(q["answers"])
            for card_id, value in zip(ids, row):
                (answering if card_id in answers else unrelated).append(value)
                if card_id not in answers:
                    by_language[convo["language"]].append(value)
        subjects = defaultdict(list)
        for position, card_id in enumerate(ids):
            subjects[cards[card_id][0]].append(vectors[position])
        means = [np.mean(v, axis=0) for v in subjects.values() if len(v) >= 2]
        for a, b in combinations(means, 2):
            profiles.append(float(a @ b / (np.linalg.norm(a) * np.linalg.norm(b))))
    return {"space": current_space(), "unrelated": percentiles(unrelated), "answering": percentiles(answering),
            "unrelated_by_language": {k: percentiles(v) for k, v in by_language.items()},
            "profiles": percentiles(profiles), "_profiles": sorted(profiles)}


def main() -> int:
    args = parse_args()
    import django

    django.setup()
    from cards.embeddings import space_values

    report = {"command": " ".join([".venv/bin/python", "bench/space_values.py", *sys.argv[1:]]), "spaces": []}
    measured = [measure(backend) for backend in args.backends.split(",")]
    reference = measured[0]
    threshold = space_values(reference["space"]).guess_threshold
    share = float(np.mean(np.asarray(reference["_profiles"]) >= threshold))
    for found in measured:
        profiles = np.asarray(found.pop("_profiles"))
        # The value that as large a share of subject pairs reaches as reach the reference's threshold.
        same = float(np.quantile(profiles, 1 - share)) if profiles.size else None
        found["guess_threshold_same_share"] = None if same is None else round(same, 4)
        found["guess_share_at_reference"] = round(share, 4)
        found["chosen"] = vars(space_values(found["space"]))
        report["spaces"].append(found)
    if args.json:
        print(json.dumps(report, indent=2, ensure_ascii=False))
    else:
        for found in report["spaces"]:
            print(f"{found['space']}: unrelated {found['unrelated']}, answering {found['answering']}")
            for language, row in found["unrelated_by_language"].items():
                print(f"    unrelated, {language}: {row}")
            print(f"    subject profiles {found['profiles']}; the reference's threshold holds "
                  f"{found['guess_share_at_reference']:.1%} of pairs, here at {found['guess_threshold_same_share']}")
            print(f"    chosen: {found['chosen']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
