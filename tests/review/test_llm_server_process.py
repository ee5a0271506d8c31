"""The `llm` extractor end to end against a model server running as a process of its own
(tests/review/chat_process.py, speaking the OpenAI-compatible protocol over real HTTP): a
conversation ingested over the API becomes candidates through it, placed in the speaker's day
and quoting whole sentences; the request carries the model, the key, a JSON answer format and the
speaker's clock; a server that refuses the key fails the job and writes nothing."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from review.models import Candidate, IngestJob

pytestmark = pytest.mark.django_db

SERVER = Path(__file__).with_name("chat_process.py")
ANSWERS = {
    "moved to Kyoto": [{"quote": "we finally moved to Kyoto", "kind": "state", "label": "city", "subject": "me",
                        "value": "Kyoto", "object": None, "tag": "fact", "text": "", "confidence": 0.9,
                        "occurred_at_hint": "2026-05-01T00:00:00+08:00"}],
    "婚禮": [{"quote": "我們上週六去了美美的婚禮", "kind": "event", "label": "wedding", "subject": "me",
             "value": "美美的婚禮", "object": None, "tag": "fact", "text": "", "confidence": None,
             "occurred_at_hint": "2026-05-02T00:00:00+08:00"}],
}


@pytest.fixture
def model_server(tmp_path, settings):
    answers, log = tmp_path / "answers.json", tmp_path / "requests.jsonl"
    answers.write_text(json.dumps(ANSWERS, ensure_ascii=False), encoding="utf-8")
    process = subprocess.Popen([sys.executable, str(SERVER), "--answers", str(answers), "--log", str(log),
                                "--api-key", "sk-local"], stdout=subprocess.PIPE, text=True)
    try:
        url = process.stdout.readline().strip()
        assert url.startswith("http://127.0.0.1:"), url
        settings.EXTRACTOR, settings.LLM_URL, settings.LLM_MODEL = "llm", url, "local-model"
        settings.LLM_API_KEY, settings.LLM_TIMEOUT = "sk-local", 10
        yield lambda: [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines()]
    finally:
        process.terminate()
        process.wait(timeout=10)


def test_a_conversation_becomes_candidates_through_a_model_server_process(alice, bearer, ingest, model_server):
    job = ingest(bearer(alice, write=True), alice.personal_scope,
                 "Big news: we finally moved to Kyoto last Friday. Boxes everywhere.", "我們上週六去了美美的婚禮。好熱鬧！")
    assert job["status"] == "done" and job["extractor"] == "llm", job
    made = {c.label: c for c in Candidate.objects.filter(job_id=job["job"])}
    assert set(made) == {"city", "wedding"}
    assert made["city"].quote == "Big news: we finally moved to Kyoto last Friday."  # the whole sentence
    assert made["wedding"].quote == "我們上週六去了美美的婚禮。"
    assert made["wedding"].occurred_at.isoformat() == "2026-05-01T16:00:00+00:00"  # 2 May in Taipei
    assert made["city"].extractor == "llm" and made["city"].status == "pending"
    (request,) = model_server()
    assert request["path"] == "/v1/chat/completions"
    assert request["headers"]["Authorization"] == "Bearer sk-local"
    assert request["body"]["model"] == "local-model" and request["body"]["response_format"] == {"type": "json_object"}
    system = request["body"]["messages"][0]["content"]
    assert "+08:00" in system  # the speaker's clock, from the messages' own offset


def test_a_server_that_refuses_the_key_fails_the_job_and_writes_nothing(alice, bearer, ingest, model_server,
                                                                        settings):
    settings.LLM_API_KEY = "sk-wrong"
    job = ingest(bearer(alice, write=True), alice.personal_scope, "We finally moved to Kyoto last Friday.")
    assert job["status"] == "failed", job
    assert not Candidate.objects.exists()
    assert IngestJob.objects.get(pk=job["job"]).messages == []  # nothing of the conversation is kept
    assert len(model_server()) == 1  # a refused key is not retried
