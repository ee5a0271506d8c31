"""The HTTP side of bench/api.py: a gunicorn (or runserver) it starts and stops,
and bounded keep-alive load from client threads, on 127.0.0.1 only."""

from __future__ import annotations

import http.client
import importlib.util
import json
import os
import signal
import socket
import statistics
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import quote

import django

ROOT = Path(__file__).resolve().parent.parent
HOST = "127.0.0.1"
OUTCOMES = ("inserted", "superseded", "reinforced", "duplicate")
# Production settings, except plain http on the loopback (no HTTPS redirect).
SERVER_ENV = {"DJANGO_DEBUG": "false", "DJANGO_SECRET_KEY": "bench", "DJANGO_ALLOWED_HOSTS": HOST,
              "API_RATE_LIMIT": "1000000/min", "DJANGO_SSL_REDIRECT": "false"}


def database_url(db: dict, name: str) -> str:
    """For the server processes: the server of `db` (Django's settings of a connection), database `name`
    (a socket directory goes percent-encoded)."""
    host = quote(db.get("HOST") or "localhost", safe="")
    auth = quote(db.get("USER") or "", safe="")
    if db.get("PASSWORD"):
        auth += ":" + quote(db["PASSWORD"], safe="")
    port = f":{db['PORT']}" if db.get("PORT") else ""
    return f"postgresql://{auth}@{host}{port}/{name}"


def percentile(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    k = (len(ordered) - 1) * q / 100
    lo, hi = int(k), min(int(k) + 1, len(ordered) - 1)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (k - lo)


def load_average() -> list[float]:
    return [round(x, 2) for x in os.getloadavg()]


class Client:
    """One keep-alive connection; reconnects when the server closes it (sync workers do)."""

    def __init__(self, port: int, token: str, timeout: float = 300.0) -> None:
        self.port, self.timeout = port, timeout
        self.headers = {"Authorization": f"Bearer {token}", "Accept": "application/json",
                        "Content-Type": "application/json"}
        self.conn = http.client.HTTPConnection(HOST, port, timeout=timeout)

    def call(self, method: str, path: str, body: bytes | None = None,
             headers: dict | None = None) -> tuple[int, bytes]:
        for attempt in (1, 2):
            try:
                self.conn.request(method, path, body=body, headers={**self.headers, **(headers or {})})
                response = self.conn.getresponse()
                return response.status, response.read()
            except (ConnectionError, http.client.RemoteDisconnected, http.client.CannotSendRequest,
                    http.client.ResponseNotReady, BrokenPipeError):
                # A kept-alive connection the server had already closed: retry once on a new one.
                self.conn.close()
                self.conn = http.client.HTTPConnection(HOST, self.port, timeout=self.timeout)
                if attempt == 2:
                    raise
        raise AssertionError("unreachable")

    def close(self) -> None:
        self.conn.close()


@dataclass
class Sample:
    latencies_ms: list[float] = field(default_factory=list)
    errors: int = 0
    error_examples: list[str] = field(default_factory=list)
    outcomes: dict[str, int] = field(default_factory=lambda: dict.fromkeys(OUTCOMES, 0))
    items: int = 0          # cards per call summed (bulk), else requests


def run_load(name: str, port: int, token: str, clients: int, seconds: float, max_requests: int,
             make_request, check) -> dict:
    """`clients` threads call `make_request(thread_index, i) -> (method, path, body, items[, headers])` until
    `seconds` have passed or `max_requests` were sent in total; `check(status, body, sample)`
    validates each answer (and counts outcomes)."""
    samples = [Sample() for _ in range(clients)]
    budget = threading.Semaphore(max_requests)
    barrier = threading.Barrier(clients + 1)
    stop_at = [0.0]

    def worker(t: int) -> None:
        client = Client(port, token)
        sample = samples[t]
        try:
            barrier.wait(timeout=60)
            i = 0
            while time.perf_counter() < stop_at[0] and budget.acquire(blocking=False):
                method, path, body, items, *headers = make_request(t, i)
                i += 1
                t0 = time.perf_counter()
                try:
                    status, data = client.call(method, path, body, *headers)
                except (OSError, http.client.HTTPException) as error:
                    sample.errors += 1
                    if len(sample.error_examples) < 3:
                        sample.error_examples.append(repr(error))
                    if sample.errors > 20:
                        break
                    continue
                sample.latencies_ms.append((time.perf_counter() - t0) * 1000)
                try:
                    problem = check(status, data, sample)
                except (ValueError, KeyError, TypeError) as error:
                    problem = f"unexpected answer ({error!r}): {data[:200]!r}"
                if problem:
                    sample.errors += 1
                    if len(sample.error_examples) < 3:
                        sample.error_examples.append(problem)
                    if sample.errors > 20:
                        break
                else:
                    sample.items += items
        finally:
            client.close()

    threads = [threading.Thread(target=worker, args=(t,), daemon=True, name=f"{name}-{t}") for t in range(clients)]
    for thread in threads:
        thread.start()
    load_before = load_average()
    stop_at[0] = time.perf_counter() + seconds
    started = time.perf_counter()
    barrier.wait(timeout=60)
    for thread in threads:
        thread.join(timeout=seconds + 330)   # a request in flight may take its own timeout to end
    elapsed = time.perf_counter() - started
    load_after = load_average()
    latencies = [x for s in samples for x in s.latencies_ms]
    outcomes = {o: sum(s.outcomes[o] for s in samples) for o in OUTCOMES}
    ok_items = sum(s.items for s in samples)
    result = {
        "clients": clients, "requests": len(latencies), "seconds": round(elapsed, 2),
        "requests_per_second": round(len(latencies) / elapsed, 1),
        "latency_ms": {"p50": round(percentile(latencies, 50), 2), "p95": round(percentile(latencies, 95), 2),
                       "p99": round(percentile(latencies, 99), 2),
                       "max": round(max(latencies), 2) if latencies else None,
                       "mean": round(statistics.fmean(latencies), 2) if latencies else None},
        "errors": sum(s.errors for s in samples),
        "load_average_before": load_before, "load_average_after": load_after,
    }
    examples = [e for s in samples for e in s.error_examples][:3]
    if examples:
        result["error_examples"] = examples
    if any(outcomes.values()):
        result["outcomes"] = outcomes
    result["items_ok"] = ok_items
    return result


def expect(statuses: tuple[int, ...], *, parse: str | None = None, expect_items: int | None = None):
    def check(status: int, data: bytes, sample: Sample) -> str | None:
        if status not in statuses:
            return f"HTTP {status}: {data[:200]!r}"
        if parse == "one":
            sample.outcomes[json.loads(data)["outcome"]] += 1
        elif parse == "bulk":
            results = json.loads(data)["results"]
            if expect_items is not None and len(results) != expect_items:
                return f"bulk answered {len(results)} results for {expect_items} cards"
            for r in results:
                sample.outcomes[r["outcome"]] += 1
        elif parse == "page" and not json.loads(data)["results"]:
            return "empty first page"
        elif parse == "mcp":
            answer = json.loads(data)
            if "result" not in answer or answer["result"].get("isError"):
                return f"MCP error: {data[:200]!r}"
        return None
    return check


# --- the server ------------------------------------------------------------------------

def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((HOST, 0))
        return s.getsockname()[1]


@dataclass
class Server:
    process: subprocess.Popen
    port: int
    kind: str
    command: list[str]
    log_path: str
    version: str


def server_start(kind: str, workers: int, log_dir: str, extra_env: dict | None = None) -> Server:
    if kind == "gunicorn" and importlib.util.find_spec("gunicorn") is None:
        print("gunicorn is not installed; falling back to manage.py runserver --noreload", file=sys.stderr)
        kind = "runserver"
    env = {**os.environ, **SERVER_ENV, **(extra_env or {}), "DJANGO_SETTINGS_MODULE": "memory_site.settings"}
    last_error = ""
    for attempt in range(3):   # the free port may be taken between probing and binding
        port = free_port()
        if kind == "gunicorn":
            import gunicorn
            version = f"gunicorn {gunicorn.__version__}, {workers} sync workers"
            command = [sys.executable, "-m", "gunicorn", "memory_site.wsgi:application", "--bind", f"{HOST}:{port}",
                       "--workers", str(workers), "--chdir", str(ROOT), "--timeout", "300",
                       "--log-level", "warning"]
        else:
            version = f"django runserver --noreload (threaded), Django {django.get_version()}"
            command = [sys.executable, str(ROOT / "manage.py"), "runserver", "--noreload", f"{HOST}:{port}"]
        log_path = os.path.join(log_dir, f"server-{attempt}.log")
        log = open(log_path, "wb")
        process = subprocess.Popen(command, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT,
                                   stdin=subprocess.DEVNULL, start_new_session=True)
        log.close()
        server = Server(process, port, kind, command, log_path, version)
        try:
            server_wait_ready(server, timeout=120)
            return server
        except RuntimeError as error:
            last_error = str(error)
            server_stop(server)
    raise RuntimeError(f"the server did not start: {last_error}")


def server_wait_ready(server: Server, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if server.process.poll() is not None:
            raise RuntimeError(f"exited with {server.process.returncode}: {log_tail(server.log_path)}")
        try:
            conn = http.client.HTTPConnection(HOST, server.port, timeout=5)
            conn.request("GET", "/healthz")
            if conn.getresponse().status == 200:
                conn.close()
                return
            conn.close()
        except OSError:
            pass
        time.sleep(0.25)
    raise RuntimeError(f"not ready after {timeout:.0f} s: {log_tail(server.log_path)}")


def server_stop(server: Server) -> None:
    """SIGTERM to the master (graceful), then SIGKILL to the process group we created if needed."""
    process = server.process
    if process.poll() is None:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            pass
    try:
        # The group was made by start_new_session for this server only; leftover workers die with it.
        os.killpg(process.pid, signal.SIGKILL if process.poll() is None else signal.SIGTERM)
    except (ProcessLookupError, PermissionError):
        pass
    try:
        process.wait(timeout=10)
    except subprocess.TimeoutExpired:
        pass


def log_tail(path: str, n: int = 1500) -> str:
    try:
        return Path(path).read_text(errors="replace")[-n:]
    except OSError:
        return ""
