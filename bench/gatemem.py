"""Recall on conversations nobody here wrote: GateMem's utility checkpoints (office, education, medical; its
README, in the datasets folder, says what they hold and how they fit), through the product's recall.

    .venv/bin/python bench/gatemem.py [--json] [--keep] [--domains office,education,medical]
    .venv/bin/python bench/gatemem.py --estimate      # the turns to embed, without a database

Each episode is a team scope of its own, its principals members. Every turn up to the episode's last utility
checkpoint is a card written once, in order, by its speaker: a `note` (knowledge; it never decays) whose text
is the turn, the turn's time its reference time, its id the source message. Every card is then embedded in
one pass with the configured model (EMBEDDING_BACKEND, each model with its own values). Each checkpoint's
query is asked by its asker as POST /api/v1/recall/ asks it (recall_harness.ask), as of the time of its
`as_of_turn_id`: a turn is valid from its own time, so the answer sees the turns up to that one and none
after (checked: `later_turns` counts any returned card said after it).

Turn times: the file's timestamps (local, no offset) read as UTC; they rise strictly within an episode. 22
episodes have none: their turns are a minute apart from 2026-01-05 09:00. Any turn not later than the one
before it would be placed a minute after it, so that `as_of` always draws the line at a turn.

Scores per checkpoint, for k 5 and 10, an include string matching a card as a regular expression, case
ignored (some are patterns: "acetaminophen 650 (?:mg q6h PRN|…)"):
* hit@k — a card among the first k holds every include string (the dataset README's score);
* all@k — the first k cards together hold every include string;
* share@k — the share of the include strings the first k cards hold.
Beside them, what any scoring could reach: `reachable` — the share of the include strings that some stored
turn up to the checkpoint holds at all (an answer's words are often not the turns' words), and `reachable_one` —
whether one turn holds them all (the ceiling of hit@k).

Never the household domain: the project does not use it."""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import re
import sys
import time
from collections import defaultdict
from pathlib import Path

from recall_harness import ROOT, ask, bench_database, embed_every_card, log, time_asked

DOMAINS = ("office", "education", "medical")
SCORES = ("hit@5", "hit@10", "all@5", "all@10", "share@5", "share@10")
UNSTAMPED_START = dt.datetime(2026, 1, 5, 9, 0, tzinfo=dt.timezone.utc)
STEP = dt.timedelta(minutes=1)


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--dataset", default=str(ROOT.parent / "shared" / "datasets" / "gatemem"))
    p.add_argument("--domains", default=",".join(DOMAINS))
    p.add_argument("--database", default="memory_site_bench_gatemem")
    p.add_argument("--estimate", action="store_true", help="count the turns to embed and stop")
    p.add_argument("--keep", action="store_true")
    p.add_argument("--json", action="store_true")
    args = p.parse_args(argv)
    args.domains = [d for d in args.domains.split(",") if d]
    unknown = set(args.domains) - set(DOMAINS)
    if unknown:
        p.error(f"--domains: only {', '.join(DOMAINS)} (not {', '.join(sorted(unknown))})")
    return args


# --- the data ----------------------------------------------------------------------------------

class Episode:
    """One episode, cut at its last utility checkpoint, with its checkpoints in as_of order."""

    def __init__(self, data: dict, checkpoints: list[dict]):
        self.id, self.domain = data["episode_id"], data["domain"]
        self.principals = {p["principal_id"]: p for p in data["entities"]["principals"]}
        position = {turn["turn_id"]: index for index, turn in enumerate(data["turns"])}
        self.checkpoints = sorted(checkpoints, key=lambda c: position[c["as_of_turn_id"]])
        self.position = position
        self.turns = data["turns"][:max(position[c["as_of_turn_id"]] for c in checkpoints) + 1]
        self.times = turn_times(self.turns)
        self.users: dict[str, object] = {}
        self.scope = None
        self.card_turn: dict[int, int] = {}  # card pk -> index of the first turn that wrote it
        self.stored: list[int] = []  # the turns stored (the write screen may refuse one)
        self.refused: list[tuple[str, str]] = []


def turn_times(turns: list[dict]) -> list[dt.datetime]:
    """Each turn's instant, strictly rising (the module's docstring says how)."""
    times: list[dt.datetime] = []
    for turn in turns:
        stamp = turn.get("timestamp")
        at = dt.datetime.fromisoformat(stamp).replace(tzinfo=dt.timezone.utc) if stamp else None
        if times and (at is None or at <= times[-1]):
            at = times[-1] + STEP
        times.append(at or UNSTAMPED_START)
    return times


def episodes(dataset: Path, domains: list[str]) -> list[Episode]:
    found = []
    for domain in domains:
        utility: dict[str, list[dict]] = defaultdict(list)
        with open(dataset / f"{domain}-checkpoints.jsonl") as lines:
            for line in lines:
                checkpoint = json.loads(line)
                if checkpoint["query_type"] == "utility":
                    utility[checkpoint["episode_id"]].append(checkpoint)
        with open(dataset / f"{domain}-episodes.jsonl") as lines:
            for line in lines:
                data = json.loads(line)
                if utility.get(data["episode_id"]):
                    found.append(Episode(data, utility[data["episode_id"]]))
    return found


# --- loading -----------------------------------------------------------------------------------

def load(episode: Episode, number: int) -> None:
    from cards.drafts import CardDraft
    from cards.services import card_remember
    from core.errors import DomainError
    from scopes.models import User
    from scopes.services import membership_set, scope_create

    speakers = {t["speaker"]["principal_id"] for t in episode.turns}
    askers = {c["asker"]["principal_id"] for c in episode.checkpoints}
    for pid in [*episode.principals, *sorted((speakers | askers) - set(episode.principals))]:
        name = episode.principals.get(pid, {}).get("display_name") or pid
        episode.users[pid] = User.objects.create_user(username=f"e{number}-{pid}"[:150], display_name=name[:150],
                                                      time_zone="UTC")
    first, *others = episode.users.values()
    episode.scope = scope_create(name=episode.id[:200], kind="team", creator=first)
    for user in others:
        membership_set(scope=episode.scope, user=user, role="member")
    for index, (turn, at) in enumerate(zip(episode.turns, episode.times)):
        draft = CardDraft(kind="knowledge", label="note", subject="me", text=turn["text"], reference_time=at,
                          source_session=episode.id[:200], source_message=turn["turn_id"], consent=True)
        try:
            card = card_remember(scope=episode.scope, actor=episode.users[turn["speaker"]["principal_id"]],
                                 draft=draft).card
        except DomainError as refused:
            episode.refused.append((turn["turn_id"], f"{refused.code}: {refused.detail}"))
            continue
        episode.card_turn.setdefault(card.pk, index)  # the same words said again reinforce the first card
        episode.stored.append(index)


# --- scoring -----------------------------------------------------------------------------------

def patterns(checkpoint: dict) -> list[re.Pattern]:
    return [re.compile(s, re.IGNORECASE) for s in checkpoint["judge_spec"]["include"]]


def checkpoint_scores(texts: list[str], wanted: list[re.Pattern]) -> dict[str, float]:
    """hit@k, all@k and share@k of the returned cards' texts, best first."""
    out: dict[str, float] = {}
    for k in (5, 10):
        held = [{i for i, p in enumerate(wanted) if p.search(text)} for text in texts[:k]]
        together = set().union(*held)
        out[f"hit@{k}"] = float(any(len(h) == len(wanted) for h in held))
        out[f"all@{k}"] = float(len(together) == len(wanted))
        out[f"share@{k}"] = len(together) / len(wanted)
    return out


def reachable(texts: list[str], wanted: list[re.Pattern]) -> dict[str, float]:
    held = [{i for i, p in enumerate(wanted) if p.search(text)} for text in texts]
    return {"reachable": len(set().union(*held)) / len(wanted),
            "reachable_one": float(any(len(h) == len(wanted) for h in held))}


def evaluate(found: list[Episode]) -> dict:
    from scopes.principals import Principal
    from scopes.selectors import read_scope_ids

    rows: list[dict] = []
    timings: list[float] = []
    for episode in found:
        for checkpoint in episode.checkpoints:
            asker = episode.users[checkpoint["asker"]["principal_id"]]
            line = episode.position[checkpoint["as_of_turn_id"]]
            at = episode.times[line]
            scope_ids = read_scope_ids(principal=Principal(user=asker), scope_id=episode.scope.pk)
            query = checkpoint["query_text"]
            started = time.perf_counter()
            answer = ask(query, asker=asker, scope_ids=scope_ids, at=at, k=10)
            timings.append(time.perf_counter() - started)
            turns = [episode.card_turn[r.card_id] for r in answer.results]
            wanted = patterns(checkpoint)
            rows.append({"id": checkpoint["checkpoint_id"], "domain": episode.domain,
                         **checkpoint_scores([episode.turns[i]["text"] for i in turns], wanted),
                         **reachable([episode.turns[i]["text"] for i in episode.stored if i <= line], wanted),
                         "includes": len(wanted), "returned": len(turns), "no_evidence": answer.no_evidence,
                         "timed": time_asked(query, asker=asker, at=at) is not None,
                         "later_turns": sum(1 for i in turns if i > line)})
    report: dict = {"by_domain": {}, "checkpoints": rows}
    for domain in [*DOMAINS, "all"]:
        chosen = [r for r in rows if domain in ("all", r["domain"])]
        if chosen:
            report["by_domain"][domain] = summary(chosen)
    timings.sort()
    report["ask_ms_p50"] = round(timings[len(timings) // 2] * 1000, 1) if timings else None
    return report


def summary(rows: list[dict]) -> dict:
    mean = lambda name: round(sum(r[name] for r in rows) / len(rows), 4)  # noqa: E731
    return {"checkpoints": len(rows), **{name: mean(name) for name in (*SCORES, "reachable", "reachable_one")},
            "timed": sum(r["timed"] for r in rows), "empty": sum(1 for r in rows if not r["returned"]),
            "later_turns": sum(r["later_turns"] for r in rows)}


# --- the run -----------------------------------------------------------------------------------

def estimate(found: list[Episode]) -> dict:
    by_domain: dict[str, dict] = {}
    for episode in found:
        row = by_domain.setdefault(episode.domain, {"episodes": 0, "checkpoints": 0, "turns": 0, "characters": 0})
        row["episodes"] += 1
        row["checkpoints"] += len(episode.checkpoints)
        row["turns"] += len(episode.turns)
        row["characters"] += sum(len(t["text"]) for t in episode.turns)
    return by_domain


def main() -> int:
    args = parse_args()
    found = episodes(Path(args.dataset), args.domains)
    if args.estimate:
        print(json.dumps(estimate(found), indent=2))
        return 0
    from http_load import load_average

    report = {"started_at": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
              "command": " ".join([".venv/bin/python", "bench/gatemem.py", *sys.argv[1:]]),
              "cpus": os.cpu_count(), "load_average_start": load_average(), "domains": args.domains,
              "turns": estimate(found)}
    wall = time.perf_counter()
    with bench_database(args.database, keep=args.keep):
        started = time.perf_counter()
        for number, episode in enumerate(found):
            load(episode, number)
        report["loaded"] = {"episodes": len(found), "cards": sum(len(e.card_turn) for e in found),
                            "turns": sum(len(e.turns) for e in found),
                            "refused": {e.id: e.refused for e in found if e.refused},
                            "seconds": round(time.perf_counter() - started, 1)}
        log(f"loaded {report['loaded']['cards']} cards from {report['loaded']['turns']} turns; embedding …")
        report["embedded"] = embed_every_card()
        report["space"] = report["embedded"]["space"]
        log(f"embedded: {report['embedded']}; asking …")
        started = time.perf_counter()
        report.update(evaluate(found))
        report["asked_seconds"] = round(time.perf_counter() - started, 1)
    report["seconds"] = round(time.perf_counter() - wall, 1)
    report["load_average_end"] = load_average()
    if args.json:
        print(json.dumps(report, indent=2, ensure_ascii=False))
    else:
        print_table(report)
    return 0


def print_table(report: dict) -> None:
    print(f"{report['command']}\nspace {report['space']}; loaded: "
          f"{ {k: v for k, v in report['loaded'].items() if k != 'refused'} }; embedded: {report['embedded']}\n")
    print(f"{'domain':10} {'n':>4} " + " ".join(f"{name:>8}" for name in (*SCORES, "reachable", "reach1")))
    for domain, row in report["by_domain"].items():
        print(f"{domain:10} {row['checkpoints']:4d} " + " ".join(
            f"{row[name]:8.3f}" for name in (*SCORES, "reachable", "reachable_one")))
    print(f"\nrecall p50 {report['ask_ms_p50']} ms per checkpoint; "
          f"turns refused: {sum(len(v) for v in report['loaded']['refused'].values())}")


if __name__ == "__main__":
    sys.exit(main())
