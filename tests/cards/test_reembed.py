"""`manage.py reembed` (issue 46) moves the database to the current embedding space: in batches, newest
first, with its progress; resumable after an interruption, a crash or a kill; one at a time. A database half
moved answers as the property test's oracle says (tests/cards/test_recall_score.py: cards of the old space
scored by their words), and while a reembed runs — in its own process — no card is embedded in a request."""

from __future__ import annotations

import os
import random
import re
import signal
import subprocess
import sys
import time
from io import StringIO
from pathlib import Path

import psycopg
import pytest
from django.core.management import CommandError, call_command
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext
from hypothesis import HealthCheck, given, settings as hypothesis_settings
from hypothesis import strategies as st

from cards.drafts import CardDraft
from cards.embeddings.reembedding import REEMBED_LOCK, reembed_forget, reembed_hold, reembed_release, reembed_running
from cards.embeddings.spaces import E5, MINILM
from cards.models import Card
from cards.recall import unembedded
from cards.recall.routes import recall
from cards.services import card_remember
from cards.services import embedding as embedding_service
from cards.services.embedding import cards_embed_now
from cards.services.reembed import cards_reembed
from tests.cards.test_recall_score import _Rollback, _world, held_to_the_oracle
from tests.database_url import database_url

ROOT = Path(__file__).resolve().parents[2]


pytestmark = pytest.mark.usefixtures("nothing_kept_by_space")


def remember(scope, actor, value):
    return card_remember(scope=scope, actor=actor, draft=CardDraft(kind="state", label="skill", subject="me",
                                                                   value=value)).card


def spaces_of(cards) -> list[str | None]:
    return [Card.objects.get(pk=c.pk).embedding_space for c in cards]


@pytest.fixture
def lock_elsewhere():
    """The reembed lock taken by another session, as a reembed in its own process holds it."""
    other = psycopg.connect(database_url(), autocommit=True)
    other.execute("SELECT pg_advisory_lock(%s, %s)", list(REEMBED_LOCK))
    reembed_forget()
    yield other
    other.close()
    reembed_forget()


# --- the command ---------------------------------------------------------------------------------------------

@pytest.mark.django_db
def test_reembed_moves_newest_first_with_its_progress_and_goes_on_after_an_interruption(alice, scope, settings,
                                                                                        monkeypatch):
    cards = [remember(scope, alice, value) for value in ("sailing", "pottery", "chess", "tango", "go", "judo")]
    cards_embed_now(card_ids=[c.pk for c in cards[:5]])     # the last has no vector yet
    assert spaces_of(cards) == [MINILM] * 5 + [None]
    settings.EMBEDDING_BACKEND = "e5"
    out = StringIO()
    call_command("reembed", "--batch", "2", "--limit", "3", "--every", "0", stdout=out)
    lines = out.getvalue().splitlines()
    assert lines[0] == "reembed to e5-small-q4: 6 cards not of it, moving 3 of them."
    assert re.fullmatch(r"reembed to e5-small-q4: 2 of 3 cards \(66\.7 %\), [\d.]+ cards/s, about .+ left", lines[1])
    assert re.fullmatch(r"reembed to e5-small-q4: 3 of 3 cards \(100\.0 %\), [\d.]+ cards/s, .+ in all", lines[-2])
    assert lines[-1] == "Moved 3 of 3 cards to e5-small-q4; 3 not of it remain."
    assert spaces_of(cards) == [MINILM, MINILM, MINILM, E5, E5, E5]     # newest first, the one without a vector too

    # Interrupted after one batch (Ctrl-C; a crash is the same to the database): what was stored stays.
    real, calls = embedding_service.cards_embed_now, []

    def interrupted(**kwargs):
        calls.append(kwargs)
        if len(calls) == 2:
            raise KeyboardInterrupt
        return real(**kwargs)
    monkeypatch.setattr(embedding_service, "cards_embed_now", interrupted)
    with pytest.raises(CommandError, match="Stopped after 1 of 3 cards; run reembed again to go on"):
        call_command("reembed", "--batch", "1", "--every", "0", stdout=StringIO())
    assert spaces_of(cards) == [MINILM, MINILM, E5, E5, E5, E5]
    reembed_forget()
    assert not reembed_running()                                # the lock went with the run
    monkeypatch.setattr(embedding_service, "cards_embed_now", real)
    out = StringIO()
    call_command("reembed", "--every", "0", stdout=out)
    assert out.getvalue().splitlines()[-1] == "Moved 2 of 2 cards to e5-small-q4; 0 not of it remain."
    assert spaces_of(cards) == [E5] * 6
    assert "0 cards not of it." in _run("reembed")                     # nothing left: nothing done


def _run(*args) -> str:
    out = StringIO()
    call_command(*args, stdout=out)
    return out.getvalue()


@pytest.mark.django_db
def test_one_reembed_at_a_time(alice, scope, settings, lock_elsewhere):
    remember(scope, alice, "sailing")
    settings.EMBEDDING_BACKEND = "e5"
    assert reembed_running()
    with pytest.raises(CommandError, match="Another reembed is running"):
        call_command("reembed", stdout=StringIO())
    assert Card.objects.get(scope=scope).embedding_space is None      # nothing was done


# --- while a reembed runs --------------------------------------------------------------------------------------

@pytest.mark.django_db
def test_while_a_reembed_runs_no_card_is_embedded_in_a_request(alice, scope, settings, bearer, monkeypatch):
    settings.RECALL_MEMORY_MB = 0
    kept = [remember(scope, alice, value) for value in ("chess", "pottery")]
    cards_embed_now(card_ids=[c.pk for c in kept])
    waiting = remember(scope, alice, "sailing")                 # no vector yet
    question = "do I go sailing?"
    found = recall(scope_ids=[scope.pk], query=question, k=5)
    assert [r.card_id for r in found.results if r.computed] == [waiting.pk]
    other = psycopg.connect(database_url(), autocommit=True)
    try:
        other.execute("SELECT pg_advisory_lock(%s, %s)", list(REEMBED_LOCK))
        monkeypatch.setattr(unembedded, "embed_cards_in_request",
                            lambda texts: pytest.fail("a card was embedded in a request while a reembed runs"))
        unembedded.vectors_forget()
        reembed_forget()
        with CaptureQueriesContext(connection) as queries:
            for route in ("exact", "index", "exact"):
                found = recall(scope_ids=[scope.pk], query=question, k=5, route=route)
                assert found.unembedded == {"scored": 0, "left_out": True}
                assert [(r.card_id, r.by_words, r.computed) for r in found.results if r.card_id == waiting.pk] == \
                    [(waiting.pk, True, False)]                 # found by its word, "sailing"
        # The lock is read once for the three reads: at most every CHECK_SECONDS in a process.
        assert sum("pg_locks" in q["sql"] for q in queries.captured_queries) == 1
        body = bearer(alice).post("/api/v1/recall/", {"scope": scope.pk, "query": question}, format="json").json()
        assert {r["card"]["id"]: r["vector"] for r in body["results"]}[waiting.pk] == "none"
    finally:
        other.execute("SELECT pg_advisory_unlock(%s, %s)", list(REEMBED_LOCK))     # at once, unlike a close
        other.close()
    monkeypatch.undo()
    reembed_forget()
    found = recall(scope_ids=[scope.pk], query=question, k=5)
    assert found.unembedded == {"scored": 1, "left_out": False}     # the reembed ended: embedded again


# --- a database half moved, by the oracle ----------------------------------------------------------------------

@hypothesis_settings(max_examples=4, deadline=None, derandomize=True,
                     suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), size=st.integers(6, 24), share=st.floats(0.25, 0.75))
@pytest.mark.django_db
def test_a_database_half_moved_answers_as_the_oracle_says(alice, settings, seed, size, share):
    rng = random.Random(seed)
    with pytest.raises(_Rollback), transaction.atomic():
        settings.EMBEDDING_BACKEND = "local"
        scope_ids, people = _world(alice, rng, 0.01, size)
        settings.EMBEDDING_BACKEND = "e5"
        cards_reembed(limit=max(1, int(size * share)), batch_size=3)
        cards = {c.pk: c for c in Card.objects.filter(scope_id__in=scope_ids).select_related("label", "object")}
        assert {E5, MINILM} <= {c.embedding_space for c in cards.values()}
        held_to_the_oracle(scope_ids, cards, people)
        assert reembed_hold()                                   # as a reembed holds it
        try:
            reembed_forget()
            held_to_the_oracle(scope_ids, cards, people, embed_in_request=False)
        finally:
            reembed_release()
            reembed_forget()
        raise _Rollback


@pytest.mark.django_db(transaction=True, serialized_rollback=True)
def test_a_reembed_in_its_own_process_killed_midway_leaves_a_database_that_answers_and_goes_on(alice, settings):
    """The real thing: `manage.py reembed` in a process of its own, stopped after its first batch; the web
    (this process) answers as the oracle says meanwhile, embedding nothing in a request and refused a second
    reembed; the process is then killed, and a new run moves the rest."""
    settings.EMBEDDING_BACKEND = "local"
    scope_ids, people = _world(alice, random.Random(46), 0.01, 30)
    settings.EMBEDDING_BACKEND = "e5"
    env = {key: value for key, value in os.environ.items() if key != "CELERY_BROKER_URL"}
    env.update(DATABASE_URL=database_url(), DATABASE_POOL="false", EMBEDDING_BACKEND="e5", EMBEDDING_THREADS="1",
               PYTHONUNBUFFERED="1")
    run = subprocess.Popen([sys.executable, "manage.py", "reembed", "--batch", "4", "--every", "0"], cwd=ROOT,
                           env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                           start_new_session=True)
    try:
        lines = []
        while not any(" of 30 cards " in line for line in lines):
            line = run.stdout.readline()
            assert line, "".join(lines)
            lines.append(line)
        os.killpg(run.pid, signal.SIGSTOP)      # between two batches, or inside one: either is a real stop
        time.sleep(1)                           # a statement already sent finishes meanwhile
        reembed_forget()
        assert reembed_running()
        with pytest.raises(CommandError, match="Another reembed is running"):
            call_command("reembed", stdout=StringIO())
        cards = {c.pk: c for c in Card.objects.filter(scope_id__in=scope_ids).select_related("label", "object")}
        moved = sum(c.embedding_space == E5 for c in cards.values())
        assert 4 <= moved < 30
        held_to_the_oracle(scope_ids, cards, people, embed_in_request=False)
    finally:
        os.killpg(run.pid, signal.SIGKILL)
        run.wait(10)
    deadline = time.monotonic() + 10
    while True:                                 # the database lets go of the lock with the killed session
        reembed_forget()
        if not reembed_running():
            break
        assert time.monotonic() < deadline
        time.sleep(0.1)
    assert Card.objects.filter(scope_id__in=scope_ids, embedding_space=E5).count() >= moved
    assert _run("reembed", "--every", "0").splitlines()[-1].endswith("; 0 not of it remain.")
    cards = {c.pk: c for c in Card.objects.filter(scope_id__in=scope_ids).select_related("label", "object")}
    assert {c.embedding_space for c in cards.values()} == {E5}
    held_to_the_oracle(scope_ids, cards, people)
