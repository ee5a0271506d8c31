"""Two embedders through the product's recall, question by question: the difference (the second model −
the first) with a paired bootstrap 95 % interval, per group of retrieval_quality.py's questions and per
domain of gatemem.py's checkpoints, from their --json outputs, one run per model.

    .venv/bin/python bench/embedder_compare.py --set minilm.json e5.json --gatemem minilm.json e5.json [--json]

The bootstrap resamples the paired items (questions, checkpoints) with replacement, 10,000 times with a
fixed seed, and takes the 2.5th and 97.5th percentiles of the mean difference. Both runs must hold the same
items: a pair is only a pair on the same question."""

from __future__ import annotations

import argparse
import json
import sys

import numpy as np

RESAMPLES = 10_000
SEED = 46
SET_SCORES = ("recall@5", "recall@10", "mrr")
SET_GROUPS = ("en", "zh", "mixed", "en→zh", "zh→en", "all")
GATEMEM_SCORES = ("hit@5", "hit@10", "all@5", "all@10", "share@5", "share@10")
GATEMEM_DOMAINS = ("office", "education", "medical", "all")


def paired_bootstrap(first: list[float], second: list[float], *, resamples: int = RESAMPLES,
                     seed: int = SEED) -> dict:
    """The means, their difference (second − first) and its percentile 95 % interval over `resamples`
    resamples of the pairs."""
    diff = np.asarray(second, dtype=float) - np.asarray(first, dtype=float)
    n = len(diff)
    rng = np.random.default_rng(seed)
    means = np.concatenate([diff[rng.integers(0, n, size=(size, n))].mean(axis=1)
                            for size in _chunks(resamples, 1_000)])
    low, high = np.percentile(means, [2.5, 97.5])
    return {"n": n, "first": round(float(np.mean(first)), 4), "second": round(float(np.mean(second)), 4),
            "diff": round(float(diff.mean()), 4), "ci95": [round(float(low), 4), round(float(high), 4)]}


def _chunks(total: int, size: int) -> list[int]:
    # Resampled in blocks: 10,000 × 1,200 indices at once would hold ~100 MB.
    return [size] * (total // size) + ([total % size] if total % size else [])


def compared(first: list[dict], second: list[dict], *, group_of, groups, scores) -> dict:
    """Per group and score, the paired bootstrap of the items both runs hold (by id)."""
    by_id = {row["id"]: row for row in second}
    if set(by_id) != {row["id"] for row in first}:
        raise SystemExit("the two runs do not hold the same items")
    out: dict = {}
    for group in groups:
        pairs = [(row, by_id[row["id"]]) for row in first if group in ("all", group_of(row))]
        if pairs:
            out[group] = {score: paired_bootstrap([a[score] for a, _ in pairs], [b[score] for _, b in pairs])
                          for score in scores}
    return out


def table(title: str, names: tuple[str, str], results: dict, scores: tuple[str, ...]) -> str:
    lines = [f"#### {title}", "",
             f"| group | n | score | {names[0]} | {names[1]} | {names[1]} − {names[0]} | 95 % CI |",
             "|---|---|---|---|---|---|---|"]
    for group, by_score in results.items():
        for score in scores:
            r = by_score[score]
            lines.append(f"| {group} | {r['n']} | {score} | {r['first']:.3f} | {r['second']:.3f} | "
                         f"{r['diff']:+.3f} | [{r['ci95'][0]:+.3f}, {r['ci95'][1]:+.3f}] |")
    return "\n".join(lines)


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--set", nargs=2, metavar=("FIRST", "SECOND"), help="retrieval_quality.py --json outputs")
    p.add_argument("--gatemem", nargs=2, metavar=("FIRST", "SECOND"), help="gatemem.py --json outputs")
    p.add_argument("--json", action="store_true")
    args = p.parse_args(argv)
    report: dict = {"resamples": RESAMPLES, "seed": SEED}
    sections = []
    for option, key, group_of, groups, scores in (
            ("set", "per_question", lambda r: r["group"], SET_GROUPS, SET_SCORES),
            ("gatemem", "checkpoints", lambda r: r["domain"], GATEMEM_DOMAINS, GATEMEM_SCORES)):
        paths = getattr(args, option)
        if not paths:
            continue
        runs = [json.loads(open(path).read()) for path in paths]
        names = (runs[0]["space"], runs[1]["space"])
        results = compared(runs[0][key], runs[1][key], group_of=group_of, groups=groups, scores=scores)
        report[option] = {"spaces": names, "results": results}
        sections.append(table(f"{option}: {names[1]} − {names[0]}", names, results, scores))
    print(json.dumps(report, indent=2, ensure_ascii=False) if args.json else "\n\n".join(sections))
    return 0


if __name__ == "__main__":
    sys.exit(main())
