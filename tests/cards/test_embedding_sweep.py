"""No vector is lost: a card committed without its vector (the process died
between commit and embedding, the embedder was down, EMBED_ON_WRITE off) is
found by recall at once — scored in the request by the model the sweep will
store with — and gets its vector from the beat sweep within minutes."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from celery.schedules import crontab
from django.conf import settings as django_settings
from django.db import connection
from django.utils import timezone

from cards.recall import unembedded
from cards.drafts import CardDraft
from cards.models import Card
from cards.recall.routes import recall
from cards.services import card_remember
from cards.services.embedding import cards_embed_missing, cards_embed_now
from cards.tasks import cards_embed_sweep
from memory_site.celery import app
from scopes.tokens import token_create
from tests.factories import UserFactory
from tests.database_url import database_url

ROOT = Path(__file__).resolve().parents[2]


def remember(scope, actor, label, value, **fields):
    return card_remember(scope=scope, actor=actor, draft=CardDraft(kind="state", subject="me", label=label,
                                                                   value=value, reference_time=timezone.now(),
                                                                   **fields)).card


def unembedded_ids():
    return set(Card.objects.filter(embedding__isnull=True).values_list("pk", flat=True))


def test_the_beat_schedule_runs_the_sweep_every_few_minutes():
    entry = next(e for e in django_settings.CELERY_BEAT_SCHEDULE.values()
                 if e["task"] == "cards.tasks.cards_embed_sweep")
    assert isinstance(entry["schedule"], crontab) and entry["schedule"].minute == set(range(0, 60, 5))
    assert entry["task"] in app.tasks  # the name beat sends is a registered task


@pytest.mark.django_db
def test_recall_finds_a_card_without_a_vector_with_the_score_it_will_have_once_stored(alice):
    scope = alice.personal_scope
    for value in ("chess", "pottery", "sailing"):
        remember(scope, alice, "skill", value)
    cards_embed_now(card_ids=Card.objects.values_list("pk", flat=True))
    kyoto = remember(scope, alice, "city", "Kyoto")  # EMBED_ON_WRITE is off in tests: no vector
    assert unembedded_ids() == {kyoto.pk}

    before = recall(scope_ids=[scope.pk], query="where do I live?", k=2)
    assert before.results[0].card_id == kyoto.pk and before.results[0].computed
    assert before.unembedded == {"scored": 1, "left_out": False}

    assert cards_embed_sweep.apply().get() == {"missing": 1, "embedded": 1}
    after = recall(scope_ids=[scope.pk], query="where do I live?", k=2)
    assert after.results[0].card_id == kyoto.pk and not after.results[0].computed
    assert after.unembedded == {"scored": 0, "left_out": False}
    # The same numbers before and after: computed in the request by the model the sweep stores with.
    assert before.results[0].similarity == pytest.approx(after.results[0].similarity, abs=1e-5)
    assert [r.card_id for r in before.results] == [r.card_id for r in after.results]


@pytest.mark.django_db
def test_the_index_route_finds_unembedded_cards_too_and_says_what_it_left_out(alice, monkeypatch, settings):
    from cards.recall import routes

    settings.RECALL_MEMORY_MB = 0   # SQL's routing, which the in-memory exact route would otherwise take over

    scope = alice.personal_scope
    for value in ("chess", "pottery", "sailing", "tango"):
        remember(scope, alice, "skill", value)
    cards_embed_now(card_ids=Card.objects.values_list("pk", flat=True))
    waiting = [remember(scope, alice, "language", value) for value in ("Japanese", "Catalan", "Korean")]
    monkeypatch.setattr(routes, "EXACT_LIMIT", 3)
    monkeypatch.setattr(unembedded, "UNEMBEDDED_LIMIT", 2)
    found = recall(scope_ids=[scope.pk], query="which languages do I speak?", k=7)
    assert found.route == "index"
    assert found.unembedded == {"scored": 2, "left_out": True}
    # The freshest two were scored; the third waits for the sweep.
    computed = {r.card_id for r in found.results if r.computed}
    assert computed == {waiting[1].pk, waiting[2].pk}
    monkeypatch.setattr(routes, "EXACT_LIMIT", 20_000)
    assert recall(scope_ids=[scope.pk], query="which languages do I speak?", k=3).unembedded["left_out"]


@pytest.mark.django_db
def test_recall_in_the_api_marks_computed_scores(alice, bearer):
    scope = alice.personal_scope
    remember(scope, alice, "city", "Kyoto")
    body = bearer(alice).post("/api/v1/recall/", {"scope": scope.pk, "query": "where do I live?"},
                              format="json").json()
    assert [(r["card"]["value"], r["vector"]) for r in body["results"]] == [("Kyoto", "computed")]
    assert body["unembedded"] == {"scored": 1, "left_out": False}


@pytest.mark.django_db
def test_the_sweep_is_bounded_newest_first_and_idempotent(alice):
    scope = alice.personal_scope
    cards = [remember(scope, alice, "skill", value) for value in ("chess", "pottery", "sailing", "tango", "go")]
    assert cards_embed_missing(limit=2, batch_size=1) == {"missing": 2, "embedded": 2}
    assert unembedded_ids() == {c.pk for c in cards[:3]}
    assert cards_embed_missing() == {"missing": 3, "embedded": 3}
    assert cards_embed_missing() == {"missing": 0, "embedded": 0}


# --- a real server killed after commit, before the vector is stored -----------------

class _HangingEmbedder(BaseHTTPRequestHandler):
    """An embedding server that takes the request and never answers: the card is
    committed and its vector is being computed when the test kills the server."""

    called = threading.Event()

    def do_POST(self):  # noqa: N802 - the http.server API
        self.rfile.read(int(self.headers["Content-Length"]))
        type(self).called.set()
        time.sleep(60)

    def log_message(self, *args):
        pass


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _wait_for_port(port: int, server: subprocess.Popen, log: Path) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        assert server.poll() is None, log.read_text()[-3000:]
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.5).close()
            return
        except OSError:
            time.sleep(0.2)
    raise AssertionError("the server did not start: " + log.read_text()[-3000:])


@pytest.mark.django_db(transaction=True, serialized_rollback=True)
def test_a_server_killed_after_commit_and_before_embedding_loses_no_card_to_recall(tmp_path, bearer):
    dana = UserFactory(username="dana")
    _, token = token_create(user=dana, name="agent", can_write=True, scopes=None, all_scopes=True, days=1)
    _HangingEmbedder.called = threading.Event()
    embedder = ThreadingHTTPServer(("127.0.0.1", 0), _HangingEmbedder)
    threading.Thread(target=embedder.serve_forever, daemon=True).start()
    port, log = _free_port(), tmp_path / "server.log"
    env = {key: value for key, value in os.environ.items() if key != "CELERY_BROKER_URL"}  # eager, in-process
    env.update(DATABASE_URL=database_url(), EMBED_ON_WRITE="true", EMBEDDING_BACKEND="http",
               EMBEDDING_URL=f"http://127.0.0.1:{embedder.server_port}", EMBEDDING_MODEL="any",
               DATABASE_POOL="false")
    server = subprocess.Popen([sys.executable, "manage.py", "runserver", "--noreload", "--skip-checks",
                               f"127.0.0.1:{port}"], cwd=ROOT, env=env, stdout=log.open("ab"),
                              stderr=subprocess.STDOUT, start_new_session=True)
    try:
        _wait_for_port(port, server, log)
        request = urllib.request.Request(
            f"http://127.0.0.1:{port}/api/v1/cards/", method="POST",
            headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"},
            data=json.dumps({"scope": dana.personal_scope.pk, "kind": "state", "subject": "me",
                             "label": "city", "value": "Kyoto"}).encode())
        posted = threading.Thread(target=lambda: _quietly(request), daemon=True)
        posted.start()
        assert _HangingEmbedder.called.wait(60), log.read_text()[-3000:]  # committed, now embedding
        os.killpg(server.pid, signal.SIGKILL)  # no cleanup, no answer, no retry
        server.wait(10)
        posted.join(10)
    finally:
        if server.poll() is None:
            os.killpg(server.pid, signal.SIGKILL)
            server.wait(10)
        embedder.shutdown()
    kyoto = Card.objects.get(scope=dana.personal_scope, value="Kyoto")
    assert unembedded_ids() == {kyoto.pk}  # committed, and no vector: nothing will come for it

    agent = bearer(dana)
    ask = {"scope": dana.personal_scope.pk, "query": "where does she live?", "k": 3}
    before = agent.post("/api/v1/recall/", ask, format="json").json()
    assert [(r["card"]["id"], r["vector"]) for r in before["results"]] == [(kyoto.pk, "computed")]

    assert cards_embed_sweep.apply().get() == {"missing": 1, "embedded": 1}
    assert not unembedded_ids()
    after = agent.post("/api/v1/recall/", ask, format="json").json()
    assert [(r["card"]["id"], r["vector"]) for r in after["results"]] == [(kyoto.pk, "stored")]
    assert after["unembedded"] == {"scored": 0, "left_out": False}


def _quietly(request) -> None:
    try:
        urllib.request.urlopen(request, timeout=90).read()
    except (urllib.error.URLError, ConnectionError, OSError):
        pass  # the server was killed before it answered
