"""`manage.py reembed` at scale (issue 46): its rate, what a million cards would take, that a stopped run goes on
where it stopped, and that recall answers over HTTP while it runs. On a database bench/recall.py kept, seeded by
another model than the one EMBEDDING_BACKEND names now:

    .venv/bin/python bench/recall.py --cards 1000000 --seed-only --cluster --database memory_site_bench_1m_minilm
    EMBEDDING_BACKEND=e5 .venv/bin/python bench/reembed.py --database memory_site_bench_1m_minilm --seconds 600

1. Before: the cards by space; gunicorn on the database with the environment's backend (a site restarted with the
   new setting), and one client reading the household of bench/recall.py's caller, a fresh query each time, one
   request every --read-interval seconds, for --baseline-seconds: the reads with no reembed running.
2. The run: `manage.py reembed` in its own process for --seconds, the same reads meanwhile; then SIGINT, as
   Ctrl-C stops it. Its progress lines (every --every seconds) give the rate; what a million cards take follows.
3. The resume: the cards by space again, and `manage.py reembed` once more for --resume-seconds: it must start
   from the cards the first run left (its first line counts them), and move on from there.

Every answer is checked: each result says how it was compared (`vector` "stored": by its vector, of the current
model; "none": by its words), and right after the read the cards' spaces are read from the database: a "stored"
card must be of the current space (a move is one way), a "none" one of another — or moved since the read, counted
apart. The database is left as the runs leave it, partly moved.
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "memory_site.settings")

MILLION = 1_000_000
# "reembed to e5-small-q4: 1,234 of 990,000 cards (0.1 %), 14.2 cards/s, about 19 h 20 min left"
PROGRESS = re.compile(r"reembed to (?P<space>\S+): (?P<done>[\d,]+) of (?P<total>[\d,]+) cards")
WAITING = re.compile(r"reembed to (?P<space>\S+): (?P<waiting>[\d,]+) cards not of it")


def parse_args():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--database", required=True, help="a database bench/recall.py kept (--keep or --seed-only)")
    p.add_argument("--seconds", type=float, default=600.0, help="how long the first reembed runs")
    p.add_argument("--resume-seconds", type=float, default=60.0, help="how long the second one runs (0: none)")
    p.add_argument("--baseline-seconds", type=float, default=60.0, help="reads before any reembed runs")
    p.add_argument("--read-interval", type=float, default=0.5, help="seconds between the starts of two reads")
    p.add_argument("--every", type=float, default=10.0, help="seconds between the reembed's progress lines")
    p.add_argument("--batch", type=int, default=None, help="the reembed's --batch (its default if unset)")
    p.add_argument("--workers", type=int, default=2)
    p.add_argument("--k", type=int, default=10)
    p.add_argument("--out", help="also write the JSON report to this file")
    return p.parse_args()


ARGS = parse_args()

import django  # noqa: E402
from http_load import SERVER_ENV, Client, database_url, load_average, log_tail, server_start, server_stop  # noqa: E402
from recall_report import stats  # noqa: E402

# As bench/recall.py: production settings on plain http at 127.0.0.1; the server and the reembed inherit them.
for _key, _value in SERVER_ENV.items():
    os.environ.setdefault(_key, _value)


def log(*parts) -> None:
    print(*parts, file=sys.stderr, flush=True)


def spaces(cursor) -> dict[str, int]:
    cursor.execute("SELECT COALESCE(embedding_space, 'none'), count(*) FROM cards_card GROUP BY 1 ORDER BY 1")
    return dict(cursor.fetchall())


class Reader(threading.Thread):
    """One client reading the caller's household every `interval` seconds until stopped; every answer's
    results checked against the cards' spaces in the database."""

    def __init__(self, port: int, world, queries, space: str, connect) -> None:
        super().__init__(daemon=True, name="reader")
        self.port, self.world, self.queries, self.space, self.connect = port, world, queries, space, connect
        self.stopping = threading.Event()
        self.latencies: list[float] = []
        self.at: list[float] = []            # when each read started, seconds since the reader's start
        self.errors: list[str] = []
        self.vectors = {"stored": 0, "none": 0, "computed": 0}
        self.wrong: list[str] = []            # an answer that disagrees with the database
        self.moved_since = 0                  # "none" at the read, of the current space right after
        self.answered = self.no_evidence = self.empty = 0

    def run(self) -> None:
        client = Client(self.port, self.world.token_raw, timeout=120)
        self.began = time.perf_counter()
        with self.connect() as db:
            while not self.stopping.is_set():
                started = time.perf_counter()
                self.read_once(client, db)
                self.stopping.wait(max(0.0, ARGS.read_interval - (time.perf_counter() - started)))
        client.close()

    def read_once(self, client, db) -> None:
        body = json.dumps({"scope": self.world.request_scope_id, "query": self.queries.next(), "k": ARGS.k}).encode()
        t0 = time.perf_counter()
        try:
            status, data = client.call("POST", "/api/v1/recall/", body)
        except OSError as error:
            self.errors.append(repr(error))
            return
        ms = (time.perf_counter() - t0) * 1000
        if status != 200:
            self.errors.append(f"HTTP {status}: {data[:200]!r}")
            return
        self.latencies.append(ms)
        self.at.append(round(t0 - self.began, 1))
        answer = json.loads(data)
        results = answer["results"]
        self.answered += bool(results)
        self.no_evidence += answer["no_evidence"]
        self.empty += not results and not answer["no_evidence"]
        if not results:
            return
        held = dict(db.execute("SELECT id, COALESCE(embedding_space, 'none') FROM cards_card WHERE id = ANY(%s)",
                               [[r["card"]["id"] for r in results]]).fetchall())
        for r in results:
            how, now = r["vector"], held.get(r["card"]["id"])
            self.vectors[how] = self.vectors.get(how, 0) + 1
            if how == "stored" and now != self.space:
                self.wrong.append(f"card {r['card']['id']} compared by a vector, of {now}")
            elif how == "none" and now == self.space:
                self.moved_since += 1

    def report(self) -> dict:
        reads = len(self.latencies)
        return {"reads": reads, "latency_ms": stats(self.latencies), "errors": len(self.errors),
                "error_examples": self.errors[:3], "with_results": self.answered, "no_evidence": self.no_evidence,
                "empty_without_no_evidence": self.empty, "results_by_vector": self.vectors,
                "results_disagreeing_with_database": len(self.wrong), "disagreeing_examples": self.wrong[:3],
                "results_by_words_moved_right_after": self.moved_since,
                "reads_at_s_and_ms": [[t, round(ms, 2)] for t, ms in zip(self.at, self.latencies)]}


def reads_for(seconds: float, reader_args) -> dict:
    """Reads alone for `seconds`."""
    before = load_average()
    reader = Reader(*reader_args)
    reader.start()
    time.sleep(seconds)
    reader.stopping.set()
    reader.join(timeout=180)
    return {**reader.report(), "load_average_before": before, "load_average_after": load_average()}


def reembed_run(seconds: float, db_url: str, log_path: Path, reader_args=None) -> dict:
    """`manage.py reembed` in its own process for `seconds` (and reads meanwhile, given `reader_args`), then
    stopped by SIGINT; its lines, each with the second it was read at."""
    command = [sys.executable, "-u", str(ROOT / "manage.py"), "reembed", "--every", str(ARGS.every)]
    if ARGS.batch:
        command += ["--batch", str(ARGS.batch)]
    before = load_average()
    started = time.monotonic()
    process = subprocess.Popen(command, cwd=ROOT, env={**os.environ, "DATABASE_URL": db_url}, text=True,
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    lines: list[tuple[float, str]] = []

    def collect() -> None:
        with open(log_path, "a") as kept:
            for line in process.stdout:
                lines.append((round(time.monotonic() - started, 1), line.rstrip()))
                kept.write(f"{lines[-1][0]:8.1f}  {lines[-1][1]}\n")
                kept.flush()
    collecting = threading.Thread(target=collect, daemon=True)
    collecting.start()
    reader = Reader(*reader_args) if reader_args else None
    if reader:
        reader.start()
    deadline = started + seconds
    while time.monotonic() < deadline and process.poll() is None:
        time.sleep(1.0)
    finished_alone = process.poll() is not None
    if finished_alone and process.returncode != 0:
        collecting.join(timeout=30)
        if reader:
            reader.stopping.set()
            reader.join(timeout=180)
        # Refused (another reembed holds the lock) or failed: no rate to report.
        raise SystemExit(f"manage.py reembed ended with {process.returncode}: {[l for _, l in lines][-3:]}")
    if not finished_alone:
        process.send_signal(signal.SIGINT)       # as Ctrl-C: it stops after the batch in hand and says how far
    try:
        process.wait(timeout=300)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
    stopped = time.monotonic()
    if reader:
        reader.stopping.set()
        reader.join(timeout=180)
    collecting.join(timeout=30)
    out = {"command": " ".join(["manage.py", *command[3:]]), "seconds": round(stopped - started, 1),
           "finished_by_itself": finished_alone, "exit_code": process.returncode, "lines": [l for _, l in lines],
           "load_average_before": before, "load_average_after": load_average(), **rate(lines)}
    if reader:
        out["reads"] = reader.report()
    return out


def rate(lines: list[tuple[float, str]]) -> dict:
    """From the progress lines: cards moved, the rate over the whole run and between its first and last
    progress lines (the model's load and the first count left out)."""
    waiting = next((int(m["waiting"].replace(",", "")) for _, l in lines if (m := WAITING.search(l))), None)
    points = [(t, int(m["done"].replace(",", ""))) for t, l in lines if (m := PROGRESS.search(l))]
    out: dict = {"waiting_at_start": waiting, "progress_lines": len(points)}
    if points:
        out["moved_by_progress"] = points[-1][1]
    if len(points) >= 3:
        (t0, n0), (t1, n1) = points[0], points[-1]
        out["steady_cards_per_s"] = round((n1 - n0) / (t1 - t0), 2)
        out["steady_between_s"] = [t0, t1]
    return out


def main() -> int:
    # A shell's background job starts with SIGINT ignored, and a child inherits an ignored signal across exec:
    # the reembed would not stop on it. A handler here is reset to the default in the child, which Python
    # then turns into KeyboardInterrupt, as Ctrl-C.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    django.setup()
    from django.db import connection, connections
    connections["default"].settings_dict["NAME"] = ARGS.database
    import psycopg
    from cards.embeddings import current_space
    from recall_seed import Queries, world_load
    from scopes.tokens import token_create

    db = dict(connections["default"].settings_dict)
    db_url = database_url(db, ARGS.database)

    def connect() -> psycopg.Connection:
        return psycopg.connect(dbname=ARGS.database, user=db.get("USER") or None, password=db.get("PASSWORD") or None,
                               host=db.get("HOST") or None, port=db.get("PORT") or None, autocommit=True)

    space = current_space()
    report: dict = {"started_at": dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
                    "command": " ".join([".venv/bin/python", "bench/reembed.py", *sys.argv[1:]]),
                    "database": ARGS.database, "space": space, "config": vars(ARGS),
                    "load_average_start": load_average()}
    with connection.cursor() as cursor:
        report["spaces_before"] = spaces(cursor)
    if set(report["spaces_before"]) <= {space, "none"}:
        raise SystemExit(f"every card of {ARGS.database} is already of {space}: seed it with another "
                         f"EMBEDDING_BACKEND, or set the one to move to")
    world = world_load()
    _, world.token_raw = token_create(user=world.caller, name="reembed bench", all_scopes=True)
    queries = Queries(13)
    log_dir = Path(tempfile.mkdtemp(prefix="bench-reembed-"))
    report["log_dir"] = str(log_dir)
    server = server_start("gunicorn", ARGS.workers, str(log_dir), {"DATABASE_URL": db_url})
    try:
        reader_args = (server.port, world, queries, space, connect)
        # Each worker loads the model on its first query: not part of the baseline.
        warm = Client(server.port, world.token_raw, timeout=300)
        for _ in range(4 * ARGS.workers):
            body = json.dumps({"scope": world.request_scope_id, "query": queries.next(), "k": ARGS.k}).encode()
            status, data = warm.call("POST", "/api/v1/recall/", body)
            if status != 200:
                raise RuntimeError(f"recall answered {status}: {data[:200]!r} {log_tail(server.log_path)}")
        warm.close()
        log(f"reads alone, {ARGS.baseline_seconds:.0f} s …")
        report["reads_alone"] = reads_for(ARGS.baseline_seconds, reader_args)
        log(f"  {report['reads_alone']['latency_ms']}")
        log(f"reembed with reads, {ARGS.seconds:.0f} s …")
        report["run"] = reembed_run(ARGS.seconds, db_url, log_dir / "reembed.log", reader_args)
        log(f"  {report['run']['lines'][-3:]}")
        with connection.cursor() as cursor:
            report["spaces_after_run"] = spaces(cursor)
        if ARGS.resume_seconds > 0:
            log(f"reembed again, {ARGS.resume_seconds:.0f} s …")
            report["resume"] = reembed_run(ARGS.resume_seconds, db_url, log_dir / "reembed.log")
            log(f"  {report['resume']['lines'][-3:]}")
            with connection.cursor() as cursor:
                report["spaces_after_resume"] = spaces(cursor)
    finally:
        server_stop(server)
    report["summary"] = summary(report, space)
    report["load_average_end"] = load_average()
    text = json.dumps(report, indent=2, default=str)
    if ARGS.out:
        Path(ARGS.out).write_text(text)
    print(text)
    return 0


def summary(report: dict, space: str) -> dict:
    """The figures the issue asks for: the rate, a million cards at it, the resume, and the reads."""
    run = report["run"]
    moved_run = report["spaces_after_run"].get(space, 0) - report["spaces_before"].get(space, 0)
    per_s = run.get("steady_cards_per_s") or moved_run / run["seconds"]
    out = {"moved_in_run": moved_run, "run_seconds": run["seconds"],
           "cards_per_s_whole_run": round(moved_run / run["seconds"], 2), "cards_per_s_steady": per_s,
           "a_million_cards_hours": round(MILLION / per_s / 3600, 1),
           "this_database_left_hours": round(sum(n for s, n in report["spaces_after_run"].items() if s != space)
                                            / per_s / 3600, 1),
           "reads_alone_ms": report["reads_alone"]["latency_ms"], "reads_during_ms": run["reads"]["latency_ms"]}
    resume = report.get("resume")
    if resume:
        left = sum(n for s, n in report["spaces_after_run"].items() if s != space)
        out["resume"] = {"not_of_space_after_run": left, "second_run_counted_at_start": resume["waiting_at_start"],
                         "goes_on_where_it_stopped": resume["waiting_at_start"] == left,
                         "moved_in_second_run": report["spaces_after_resume"].get(space, 0)
                         - report["spaces_after_run"].get(space, 0)}
    return out


if __name__ == "__main__":
    sys.exit(main())
