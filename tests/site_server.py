"""The site served by a second process, as production serves it (gunicorn on the test database), for
tests of what another process must hear at once: `with site_server(tmp) as call: call(path, body, token)`."""

from __future__ import annotations

import contextlib
import http.client
import json
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

from tests.database_url import database_url

ROOT = Path(__file__).resolve().parents[1]
HOST = "127.0.0.1"


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((HOST, 0))
        return s.getsockname()[1]


def _request(port: int, method: str, path: str, body: dict | None = None, token: str | None = None):
    conn = http.client.HTTPConnection(HOST, port, timeout=60)
    headers = {"Content-Type": "application/json", **({"Authorization": f"Bearer {token}"} if token else {})}
    try:
        conn.request(method, path, json.dumps(body) if body is not None else None, headers)
        response = conn.getresponse()
        return response.status, response.read()
    finally:
        conn.close()


@contextlib.contextmanager
def site_server(log_dir: Path) -> Iterator[Callable[[str, dict, str], dict]]:
    """One gunicorn worker on a free loopback port, reading the test database (a test using it must commit
    what the server reads: `transaction=True`). Celery stays eager there: nothing is queued elsewhere."""
    port = _free_port()
    env = {key: value for key, value in os.environ.items() if key != "CELERY_BROKER_URL"}
    env.update(DATABASE_URL=database_url(), DATABASE_POOL="false", DJANGO_DEBUG="false",
               DJANGO_SECRET_KEY="a second server", DJANGO_ALLOWED_HOSTS=HOST, DJANGO_SSL_REDIRECT="false",
               API_RATE_LIMIT="100000/min", DJANGO_SETTINGS_MODULE="memory_site.settings")
    log = log_dir / "server.log"
    with open(log, "wb") as out:
        server = subprocess.Popen([sys.executable, "-m", "gunicorn", "memory_site.wsgi:application",
                                   "--bind", f"{HOST}:{port}", "--workers", "1", "--timeout", "120"],
                                  cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        deadline = time.monotonic() + 120
        while True:
            assert server.poll() is None and time.monotonic() < deadline, log.read_text()[-3000:]
            with contextlib.suppress(OSError):
                if _request(port, "GET", "/healthz")[0] == 200:
                    break
            time.sleep(0.25)

        def call(path: str, body: dict, token: str) -> dict:
            status, content = _request(port, "POST", path, body, token)
            assert status == 200, (status, content[:2000])
            return json.loads(content)
        yield call
    finally:
        os.killpg(server.pid, signal.SIGTERM)
        try:
            server.wait(30)
        except subprocess.TimeoutExpired:
            os.killpg(server.pid, signal.SIGKILL)
            server.wait(10)
