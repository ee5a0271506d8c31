"""bench/recall.py --coordinator URL: one run, two targets. The bench runs itself twice, one after the other
with the same arguments and seed (so the same world, cards and queries): first on the single server as
configured (the embedded one unless DATABASE_URL), then on the Citus coordinator; then prints each report
and the two side by side. Never at the same time: they would share the machine's cores."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

import recall_report

HERE = Path(__file__).resolve().parent


def _child_args(argv: list[str]) -> list[str]:
    """The arguments for a child: the parent's, without those the parent keeps for itself."""
    out, skip = [], False
    for arg in argv:
        if skip:
            skip = False
        elif arg in ("--out",):
            skip = True
        elif arg.startswith("--out=") or arg == "--json":
            continue
        else:
            out.append(arg)
    return out


def main(argv: list[str], args) -> int:
    reports, status = {}, 0
    with tempfile.TemporaryDirectory(prefix="bench-recall-compare-") as folder:
        for target in ("single", "coordinator"):
            out = Path(folder, f"{target}.json")
            command = [sys.executable, str(HERE / "recall.py"), *_child_args(argv), "--only", target, "--out", str(out)]
            print(f"== {target}: {' '.join(command[1:])}", file=sys.stderr, flush=True)
            code = _run(command)
            status = status or code
            reports[target] = json.loads(out.read_text()) if out.exists() else {"error": f"exit {code}"}
    command = " ".join([".venv/bin/python", "bench/recall.py", *argv])
    combined = {"command": command, "single": reports["single"], "coordinator": reports["coordinator"]}
    if args.out:
        Path(args.out).write_text(json.dumps(combined, indent=2, default=str))
    if args.json:
        print(json.dumps(combined, indent=2, default=str))
    else:
        parts = [recall_report.table(r) for r in reports.values() if "started_at" in r]
        print("\n\n".join([*parts, side_by_side(combined)]))
    return status


def _run(command: list[str]) -> int:
    """The child to its end, even when this run is interrupted: the child is sent the SIGINT or SIGTERM this
    one got, stops its server and drops its databases; then the interruption goes on (no next target)."""
    # A session of its own: a Ctrl-C at the terminal reaches this process only, which passes it on once.
    child = subprocess.Popen(command, stdout=subprocess.DEVNULL, start_new_session=True)
    stopped: list[int] = []

    def forward(signum, frame):
        stopped.append(signum)
        child.send_signal(signum)
    previous = {signum: signal.signal(signum, forward) for signum in (signal.SIGINT, signal.SIGTERM)}
    try:
        code = child.wait()
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)
    if stopped:
        raise KeyboardInterrupt(f"signal {stopped[0]}: the run stops after cleaning up")
    return code


def _get(report: dict, size: int, *path):
    node = next((s for s in report.get("sizes", []) if s["cards"] == size), None)
    for key in path:
        if node is None:
            return None
        if isinstance(key, int) and isinstance(node, list):
            node = next((r for r in node if r.get("clients") == key), None)
        else:
            node = node.get(key) if isinstance(node, dict) else None
    return node


ROWS = [
    ("seed: COPY rows/s", ("seed", "copy_rows_per_s")),
    # Not alike: one 3 GB build with a parallel worker, against 32 shard builds of 256 MB each (recall_seed).
    ("seed: HNSW build s (1 build / 32 shards)", ("seed", "hnsw_build_s")),
    ("household: service auto p50 ms", ("service", "routes", "auto", "total_ms", "p50")),
    ("household: service auto p95 ms", ("service", "routes", "auto", "total_ms", "p95")),
    ("household: in-process request p95 ms", ("in_process_request", "request_ms", "p95")),
    ("household: HTTP 1 client p50 ms", ("http", "recall", 1, "latency_ms", "p50")),
    ("household: HTTP 1 client p95 ms", ("http", "recall", 1, "latency_ms", "p95")),
    ("household: HTTP 2 clients p95 ms", ("http", "recall", 2, "latency_ms", "p95")),
    ("household: HTTP 2 clients req/s", ("http", "recall", 2, "requests_per_second")),
    ("broad: exact p95 ms (no embedding)", ("broad", "ms_without_embedding", "exact", "p95")),
    ("broad: index p95 ms (no embedding)", ("broad", "ms_without_embedding", "index", "p95")),
    ("broad: auto p95 ms (no embedding)", ("broad", "ms_without_embedding", "auto", "p95")),
    ("broad: recall@k index vs exact", ("broad", "recall_at_k")),
    ("writes: one per call, cards/s", ("writes", "single", "cards_per_s")),
    ("writes: batches, cards/s", ("writes", "batch", "cards_per_s")),
    ("writes: SQL ms per card, one per call", ("writes", "single", "sql_ms_per_card")),
]


def side_by_side(combined: dict) -> str:
    single, citus = combined["single"], combined["coordinator"]
    sizes = [s["cards"] for s in single.get("sizes", [])] or [s["cards"] for s in citus.get("sizes", [])]
    lines = ["== single server and Citus, side by side (three nodes on the same two cores: correctness and "
             "routing, not speed) =="]
    for size in sizes:
        lines.append(f"-- {size:,} cards --")
        lines.append(f"  {'':<42}{'single':>12}{'citus':>12}{'citus/single':>14}")
        for name, path in ROWS:
            a, b = _get(single, size, *path), _get(citus, size, *path)
            ratio = f"{b / a:.2f}" if isinstance(a, (int, float)) and isinstance(b, (int, float)) and a else ""
            lines.append(f"  {name:<42}{_show(a):>12}{_show(b):>12}{ratio:>14}")
        for read in ("household", "broad"):
            for label, report in (("single", single), ("citus", citus)):
                cost = _get(report, size, "cost", read)
                if cost:
                    lines.append(f"  {label}: {recall_report.cost_line(read, cost)}")
    return "\n".join(lines)


def _show(value) -> str:
    return "—" if value is None else str(value)
