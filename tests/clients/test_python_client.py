"""The Python client (clients/python) against a live server, as an agent uses it."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import anyio
import httpx
import pytest
from django.core.cache import cache

from cards.drafts import CardDraft
from cards.models import Card
from cards.services import card_remember
from memory_site_client import AsyncMemoryClient, Forbidden, Invalid, MemoryClient, NotFound, RateLimited
from scopes.tokens import token_create
from tests.builtin_rows import builtin_rows_restore
from tests.factories import UserFactory, family_scope

README = Path(__file__).resolve().parents[2] / "clients" / "python" / "README.md"


@pytest.fixture
def world(live_server, transactional_db):
    builtin_rows_restore()
    dana = UserFactory(username="dana", time_zone="Europe/Lisbon")
    family = family_scope(owner=dana, name="Silva family")
    _, writer = token_create(user=dana, name="client", can_write=True, scopes=None, all_scopes=True, days=30)
    _, reader = token_create(user=dana, name="reader", can_write=False, scopes=[family], all_scopes=False, days=30)
    return {"url": live_server.url, "dana": dana, "family": family, "writer": writer, "reader": reader}


def test_remember_recall_ask_count_and_forget(world):
    with MemoryClient(world["url"], world["writer"]) as client:
        names = {scope.name: scope.id for scope in client.scopes()}
        assert names["Silva family"] == world["family"].pk
        saved = client.remember("Silva family", "state", "me", "address", value="Porto", text="Lives in Porto",
                                session="py-1")
        assert saved.outcome == "inserted" and saved.card.value == "Porto"
        trips = client.remember_many([{"scope": "personal", "kind": "event", "subject": "me", "label": "trip",
                                       "text": f"Trip {n}", "when": f"2026-0{n}-10"} for n in (3, 4)],
                                     session="py-1")
        assert [r.outcome for r in trips] == ["inserted", "inserted"]
        found = client.recall(world["family"].pk, "where does dana live")
        assert found.results[0].card.id == saved.card.id and not found.no_evidence
        assert found.results[0].score > 0
        assert client.ask("Silva family", "Where do I live?").values == ["Porto"]
        # No scope reads every scope the token reads; "family" is the caller's one family (the API says which),
        # whose read sees the personal scope too (DESIGN §3).
        assert client.ask(None, "Where do I live?").values == ["Porto"]
        assert client.count("family", "trip").count == 2
        assert client.count("personal", "trip", when="2026").count == 2
        assert "Porto" in client.context("Silva family", "moving house").prompt
        receipt = client.forget("personal", "me", label="trip")
        assert receipt["cards"] == 2
    card = Card.objects.get(pk=saved.card.id)
    assert card.source_session == "py-1"
    assert not Card.objects.filter(label__key="trip").exists()


def test_refusals_raise_with_the_api_code_and_fields(world):
    with MemoryClient(world["url"], world["writer"]) as client:
        with pytest.raises(Invalid) as unknown:
            client.remember("personal", "state", "me", "adress", value="Porto")
        assert unknown.value.code == "unknown_label" and "address" in str(unknown.value.suggestions)
        with pytest.raises(Invalid) as invalid:
            client.recall("personal", "x" * 3000)
        assert invalid.value.code == "validation_error" and "query" in invalid.value.fields
        with pytest.raises(NotFound):
            client.recall("No such scope", "anything")
    with MemoryClient(world["url"], world["reader"]) as reader, pytest.raises(Forbidden) as refused:
        reader.remember("Silva family", "state", "me", "address", value="Faro")
    assert refused.value.status == 403


def test_a_429_is_retried_after_retry_after(world, settings):
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK,
                               "DEFAULT_THROTTLE_RATES": {"agent": "1/second"}}
    cache.clear()
    statuses: list[int] = []
    http = httpx.Client(timeout=30, event_hooks={"response": [lambda response: statuses.append(response.status_code)]})
    try:
        with MemoryClient(world["url"], world["writer"], http=http) as client:
            client.recall("personal", "anything")
            client.recall("personal", "anything else")  # within the same second: 429, then retried
        assert statuses[:2] == [200, 429] and statuses[-1] == 200
        personal = world["dana"].personal_scope.pk
        with MemoryClient(world["url"], world["writer"], retries=0) as impatient:
            with pytest.raises(RateLimited) as limited:  # two calls within one second: one is refused
                impatient.recall(personal, "one")
                impatient.recall(personal, "two")
        assert limited.value.code == "throttled" and limited.value.retry_after >= 1
    finally:
        cache.clear()


def test_the_async_client_does_the_same(world, t0):
    card_remember(scope=world["family"], actor=world["dana"], draft=CardDraft(
        kind="state", label="employer", subject="me", value="Atlas Labs", reference_time=t0))

    async def main():
        async with AsyncMemoryClient(world["url"], world["writer"]) as client:
            answer = await client.ask("Silva family", "Where do I work?")
            found = await client.recall("Silva family", "dana's job")
            probe = await client.next_probe("Silva family")
            return answer, found, probe
    answer, found, probe = anyio.run(main)
    assert answer.tier == "recorded" and answer.values == ["Atlas Labs"]
    assert found.results[0].card.value == "Atlas Labs"
    assert probe is None


def test_the_readme_quickstart_works_as_written(world):
    code = re.search(r"```python\n(.*?)```", README.read_text(), re.S).group(1)
    assert len(code.splitlines()) <= 30
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                         env={**os.environ, "MEMORY_SITE_URL": world["url"], "MEMORY_SITE_TOKEN": world["writer"]})
    assert run.returncode == 0, run.stderr
    lines = run.stdout.splitlines()
    assert any(line.endswith("Silva family family") for line in lines)
    assert any(line.startswith("inserted ") for line in lines)
    assert any("Lives in Kyoto" in line for line in lines)
    assert any("Kyoto" in line and line.endswith("recorded") for line in lines)
    assert lines[-1].startswith("unknown_label ") and "address" in lines[-1]


def test_the_profile_keeps_what_was_stated_apart_from_what_is_guessed(world):
    family, dana = world["family"], world["dana"]
    for tag, label, value, confidence in (("preference", "brevity", "short answers", None),
                                          ("hypothesis", "decision_style", "quick decisions", 0.6)):
        card_remember(scope=family, actor=dana, draft=CardDraft(kind="state", label=label, subject="me", value=value,
                                                                tag=tag, confidence=confidence))
    with MemoryClient(world["url"], world["reader"]) as client:
        profile = client.profile("Silva family")
    by_label = {item.label: item for item in profile.items}
    assert (by_label["brevity"].tier, by_label["brevity"].value) == ("recorded", "short answers")
    assert (by_label["decision_style"].tier, by_label["decision_style"].confidence) == ("guessed", "medium")
    assert "a guess" in by_label["decision_style"].guidance and "a guess" not in by_label["brevity"].guidance
    assert profile.items[0].card.id == Card.objects.get(label__key="brevity").pk
