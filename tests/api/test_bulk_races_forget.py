"""Bulk writes racing forgets, over real HTTP (issue: "81 of 86 bulk calls answered
500 after committing … so the client retries and writes twice; the same race
turns some DELETE 404s into 403").

Two agents write batches while two others forget every card they can list, all
at once against a live server (a thread and a database connection per request).
A write that committed answers 201 with what it wrote — a card forgotten since
is reported as `forgotten`, never re-read into a 500 — so a client that retries
on 5xx never has a reason to, and no value is written twice; forgetting a card
that another forget removed first is a 404, never a 403 or a 500. Bounded: 40
batches of 6 cards, forgetters stop when the writers do, everything within
seconds."""

from __future__ import annotations

import json
import threading
import time
import urllib.error
import urllib.request
from collections import Counter

import pytest

from cards.models import Card
from scopes.services import membership_set, scope_create
from scopes.tokens import token_create
from tests.builtin_rows import builtin_rows_restore
from tests.factories import UserFactory

WRITERS, BATCHES = 2, 20
FORGETTERS = 2
DEADLINE_SECONDS = 60  # a bound, never reached when all is well (the run takes a few seconds)
RETRIES = 2


def call(base: str, token: str, method: str, path: str, body: dict | None = None) -> tuple[int, object]:
    request = urllib.request.Request(
        base + path, method=method, data=None if body is None else json.dumps(body).encode(),
        headers={"Authorization": f"Bearer {token}", "Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            raw = response.read()
            return response.status, json.loads(raw) if raw else None
    except urllib.error.HTTPError as error:
        raw = error.read()
        try:
            return error.code, json.loads(raw) if raw else None
        except ValueError:
            return error.code, raw[:300]


def batch(scope_id: int, writer: int, number: int) -> list[dict]:
    """Fresh values (inserted), a shared one (reinforced, or inserted again once
    forgotten), an address (supersedes the last one) and a dated event."""
    card = {"scope": scope_id, "kind": "state", "subject": "me"}
    return [
        *({**card, "label": "skill", "value": f"skill {writer}-{number}-{i}"} for i in range(3)),
        {**card, "label": "skill", "value": "Go"},
        {**card, "label": "address", "value": f"street {writer}-{number}"},
        {**card, "kind": "event", "label": "trip", "value": f"trip {writer}-{number}",
         "when": "2026-05-08", "perspectives": {"bob": f"the trip {writer}-{number}"}},
    ]


@pytest.mark.django_db(transaction=True, serialized_rollback=True)
def test_bulk_writes_racing_forgets_never_answer_5xx_and_never_write_twice(live_server, settings):
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": {"agent": "100000/min"}}
    builtin_rows_restore()
    alice = UserFactory(username="alice", time_zone="Europe/Lisbon")
    family = scope_create(name="Home", kind="family", creator=alice)
    membership_set(scope=family, user=UserFactory(username="bob"), role="member")
    tokens = [token_create(user=alice, name=f"agent {n}", can_write=True, scopes=None, all_scopes=True, days=1)[1]
              for n in range(WRITERS + FORGETTERS)]
    base = live_server.url + "/api/v1"
    statuses: list[tuple[str, int]] = []
    answers: list[dict] = []
    deletes: list[tuple[int, int]] = []
    lock = threading.Lock()
    writing = threading.Event()
    writing.set()
    started = time.monotonic()
    failures: list[BaseException] = []

    def write(writer: int) -> None:
        try:
            for number in range(BATCHES):
                for _ in range(1 + RETRIES):  # a client retries what answered 5xx
                    status, body = call(base, tokens[writer], "POST", "/cards/bulk/",
                                        {"cards": batch(family.pk, writer, number)})
                    with lock:
                        statuses.append(("bulk", status))
                    if status < 500:
                        break
                if status == 201:
                    with lock:
                        answers.extend(body["results"])
        except BaseException as error:  # surfaced below: a thread's failure fails the test
            failures.append(error)

    def forget(forgetter: int) -> None:
        token = tokens[WRITERS + forgetter]
        try:
            while writing.is_set() and time.monotonic() - started < DEADLINE_SECONDS:
                status, page = call(base, token, "GET", f"/cards/?scope={family.pk}&current=false&limit=100")
                with lock:
                    statuses.append(("list", status))
                for card in page["results"] if status == 200 else []:
                    status, _ = call(base, token, "DELETE", f"/cards/{card['id']}/")
                    with lock:
                        statuses.append(("delete", status))
                        deletes.append((card["id"], status))
        except BaseException as error:
            failures.append(error)

    writers = [threading.Thread(target=write, args=(n,)) for n in range(WRITERS)]
    forgetters = [threading.Thread(target=forget, args=(n,)) for n in range(FORGETTERS)]
    for thread in forgetters + writers:
        thread.start()
    for thread in writers:
        thread.join(timeout=DEADLINE_SECONDS)
    writing.clear()
    for thread in forgetters:
        thread.join(timeout=DEADLINE_SECONDS)
    assert not failures, failures

    assert [entry for entry in statuses if entry[1] >= 500] == []
    assert Counter(kind for kind, status in statuses if kind == "bulk") == {"bulk": WRITERS * BATCHES}
    assert {status for kind, status in statuses if kind == "bulk"} == {201}
    assert {status for kind, status in statuses if kind == "delete"} <= {204, 404}
    assert all(count == 1 for count in Counter(pk for pk, status in deletes if status == 204).values())
    for result in answers:  # what was written: the card, or that it was forgotten since
        if result["forgotten"]:
            assert result["card"] is None and result["card_id"]
        else:
            assert result["card"]["id"] == result["card_id"]
    fresh = [r for r in answers if r["outcome"] == "inserted" and not r["forgotten"]
             and r["card"]["value"].startswith(("skill ", "trip "))]
    assert len({r["card"]["value"] for r in fresh}) == len(fresh)
    stored = Counter(Card.objects.filter(scope=family).exclude(value="Go").values_list("value", flat=True))
    assert [value for value, count in stored.items() if count > 1] == []
