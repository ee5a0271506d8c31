"""The ingest path on a real Celery worker and the real Redis broker: a worker
in this process (celery.contrib.testing), and a worker process killed in the
middle of a task — the job still completes, exactly once, after a restart."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from celery.contrib.testing.worker import start_worker
from django.db import connection, transaction
from django.utils import timezone
from kombu import pools as kombu_pools

from memory_site.celery import app
from review.models import Candidate, IngestJob
from review.services.ingest import ingest_create
from review.tasks import ingest_extract
from tests.database_url import database_url

pytestmark = pytest.mark.django_db(transaction=True, serialized_rollback=True)

BROKER = os.environ.get("TEST_CELERY_BROKER_URL", "redis://127.0.0.1:6379/14")
ROOT = Path(__file__).resolve().parents[2]


def wait_for(predicate, seconds: float, what, log: Path | None = None):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.1)
    raise AssertionError(f"timed out waiting for {what}" + (f"; worker log:\n{log.read_text()[-4000:]}" if log else ""))


@pytest.fixture
def broker_app():
    """The project's Celery app, pointed at Redis on a queue of this test's own."""
    queue = f"test-{uuid.uuid4().hex[:8]}"
    saved = {key: app.conf.get(key) for key in ("broker_url", "task_always_eager", "task_default_queue")}
    app.conf.update(broker_url=BROKER, task_always_eager=False, task_default_queue=queue)
    _reset_pool()
    yield app, queue
    app.conf.update(saved)
    _reset_pool()


def _reset_pool() -> None:
    # Producers are pooled per broker URL: drop them so the next send uses the current one.
    if app._pool is not None:
        app._pool.force_close_all()
        app._pool = None
    app.amqp._producer_pool = None
    kombu_pools.reset()  # kombu keeps producer pools per broker URL, process-wide


def job_messages(texts):
    at = timezone.now()
    return [{"id": f"m{i}", "role": "user", "text": text, "at": at} for i, text in enumerate(texts)]


def test_a_real_worker_turns_an_ingest_into_candidates(alice, broker_app):
    celery_app, queue = broker_app
    with start_worker(celery_app, pool="solo", queues=[queue], perform_ping_check=False, shutdown_timeout=30):
        with transaction.atomic():  # queued on commit, through Redis
            job = ingest_create(scope=alice.personal_scope, actor=alice, session="s1",
                                messages=job_messages(["I live in Kyoto.", "I speak Japanese."]))
        wait_for(lambda: IngestJob.objects.get(pk=job.pk).status == "done", 60, "the worker to finish the job")
    assert sorted(Candidate.objects.filter(job=job).values_list("label", flat=True)) == ["city", "language"]
    assert IngestJob.objects.get(pk=job.pk).messages == []


class SlowOnceModel(BaseHTTPRequestHandler):
    """A chat-completions server whose first answer never comes (the worker is
    killed while waiting for it); later requests get a valid answer at once."""

    requests: list[str] = []
    first_seen = threading.Event()
    release = threading.Event()

    def do_POST(self):  # noqa: N802 - the http.server API
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        type(self).requests.append(body["model"])
        if len(type(self).requests) == 1:
            type(self).first_seen.set()
            type(self).release.wait(60)
            return
        items = [{"message_id": "m0", "quote": "I live in Kyoto", "kind": "state", "label": "city", "subject": "me",
                  "value": "Kyoto", "object": None, "tag": "fact", "occurred_at_hint": None, "confidence": None,
                  "text": "Lives in Kyoto."}]
        answer = {"choices": [{"message": {"role": "assistant",
                                           "content": json.dumps({"items": items, "dropped": []})}}]}
        data = json.dumps(answer).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args):
        pass


def _worker(queue: str, port: int, log: Path) -> subprocess.Popen:
    env = {**os.environ, "DATABASE_URL": database_url(), "CELERY_BROKER_URL": BROKER, "CELERY_QUEUE": queue,
           # Short, so the killed worker's unacknowledged task comes back within the test.
           "CELERY_VISIBILITY_TIMEOUT": "3", "CELERY_RESTORE_INTERVAL": "1", "CELERY_RESTORE_THROTTLE": "1",
           # The killed worker may die holding the sweep's lock: let it lapse quickly.
           "CELERY_RESTORE_LOCK_SECONDS": "2",
           "EXTRACTOR": "llm", "LLM_URL": f"http://127.0.0.1:{port}",
           "LLM_MODEL": "fake-model", "LLM_TIMEOUT": "120", "EMBED_ON_WRITE": "false"}
    return subprocess.Popen(
        [sys.executable, "-m", "celery", "-A", "memory_site", "worker", "--pool=solo", "-Q", queue,
         "--without-mingle", "--without-gossip", "--loglevel=INFO"],
        cwd=ROOT, env=env, stdout=log.open("ab"), stderr=subprocess.STDOUT, start_new_session=True)


def _kill(worker: subprocess.Popen) -> None:
    if worker.poll() is None:
        os.killpg(worker.pid, signal.SIGKILL)
        worker.wait(10)


def test_a_worker_killed_mid_task_leaves_the_job_to_complete_exactly_once(alice, broker_app, tmp_path, settings):
    celery_app, queue = broker_app
    SlowOnceModel.requests, SlowOnceModel.first_seen, SlowOnceModel.release = [], threading.Event(), threading.Event()
    server = ThreadingHTTPServer(("127.0.0.1", 0), SlowOnceModel)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    # The job records its extractor; the worker processes get the same settings from their environment.
    settings.EXTRACTOR, settings.LLM_URL, settings.LLM_MODEL = "llm", f"http://127.0.0.1:{server.server_port}", "fake"
    log = tmp_path / "worker.log"
    first = second = None
    try:
        first = _worker(queue, server.server_port, log)
        with transaction.atomic():
            job = ingest_create(scope=alice.personal_scope, actor=alice, session="s1",
                                messages=job_messages(["I live in Kyoto."]))
        assert SlowOnceModel.first_seen.wait(90), log.read_text()[-3000:]  # the task is running
        _kill(first)  # SIGKILL: no acknowledgement, no cleanup
        assert IngestJob.objects.get(pk=job.pk).status == "running"
        assert not Candidate.objects.filter(job=job).exists()
        second = _worker(queue, server.server_port, log)
        wait_for(lambda: IngestJob.objects.get(pk=job.pk).status == "done", 120, "the restarted worker", log)
        time.sleep(4)  # past the visibility timeout again: a second delivery would show now
    finally:
        SlowOnceModel.release.set()
        for worker in (first, second):
            if worker is not None:
                _kill(worker)
        server.shutdown()
    job.refresh_from_db()
    assert job.status == "done" and job.messages == [] and job.attempts == 2
    assert list(Candidate.objects.filter(job=job).values_list("label", "value")) == [("city", "Kyoto")]
    assert len(SlowOnceModel.requests) == 2, log.read_text()[-3000:]
