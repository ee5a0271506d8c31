"""POST /api/v1/ingest/ (Celery eager here): messages become review candidates
with their quotes, the policy drops what is never stored (naming the rule), the
raw messages are gone once processed, sensitive ones wait for consent, and only
a user's explicit "remember that" may be auto-accepted where a scope opts in."""

import datetime as dt
import zoneinfo

import pytest

from cards.models import Card
from review.models import Candidate, CandidateStatus, IngestJob
from review.services.ingest import ingest_process

pytestmark = pytest.mark.django_db

AT = "2026-05-08T16:44:10+08:00"  # a Friday; the `ingest` fixture's messages are sent at it


def test_a_conversation_becomes_candidates_with_quotes_and_nothing_raw_is_kept(alice, bearer, ingest):
    agent = bearer(alice, write=True)
    job = ingest(agent, alice.personal_scope, "I'm so tired today. I live in Kyoto.",
                 "We went to Ana's wedding last Saturday.", "I'm allergic to peanuts.")
    assert job["status"] == "done" and job["message_count"] == 3 and job["extractor"] == "patterns"
    stored = IngestJob.objects.get(pk=job["job"])
    assert stored.messages == []  # raw conversation is never memory
    assert {"message": "m0", "rule": "transient_feeling"} in job["result"]["dropped"]
    candidates = {c.label: c for c in Candidate.objects.filter(job=stored)}
    city = candidates["city"]
    assert (city.value, city.message, city.session, city.status) == ("Kyoto", "m0", "s1", CandidateStatus.PENDING)
    assert city.quote.startswith("I live in Kyoto") and "tired" not in city.quote
    wedding = candidates["wedding"]
    assert (wedding.time_source, wedding.precision, wedding.value) == ("resolved", "day", "Ana's wedding")
    assert candidates["allergy"].status == CandidateStatus.NEEDS_CONSENT
    assert not Card.objects.filter(scope=alice.personal_scope, label__key__in=["city", "wedding", "allergy"]).exists()
    assert agent.get(f"/api/v1/ingest/{job['job']}/").json()["status"] == "done"


def test_last_saturday_is_placed_against_the_message_time_in_the_users_zone(alice, bearer, ingest):
    ingest(bearer(alice, write=True), alice.personal_scope, "We went to Ana's wedding last Saturday.")
    wedding = Candidate.objects.get(label="wedding")
    local = wedding.occurred_at.astimezone(zoneinfo.ZoneInfo("Asia/Taipei"))
    assert local.isoformat() == "2026-05-02T00:00:00+08:00"  # the Saturday before Friday 8 May, in Taipei


def test_assistant_messages_are_never_mined(alice, bearer, ingest):
    job = ingest(bearer(alice, write=True), alice.personal_scope, "I live in Kyoto.", role="assistant")
    assert job["result"]["candidates"] == 0


def test_explicit_remember_that_is_auto_accepted_only_where_the_scope_opts_in(alice, bearer, ingest):
    agent = bearer(alice, write=True)
    ingest(agent, alice.personal_scope, "Remember that I live in Kyoto.")
    assert Candidate.objects.get(label="city").status == CandidateStatus.PENDING
    assert not Card.objects.filter(label__key="city").exists()
    alice.personal_scope.auto_accept_explicit = True
    alice.personal_scope.save()
    ingest(agent, alice.personal_scope, "Remember that I work at Acme.", "I like green tea.", session="s2")
    accepted = Candidate.objects.get(label="employer")
    assert accepted.status == CandidateStatus.AUTO_ACCEPTED and accepted.card.value == "Acme"
    assert accepted.card.source_quote == accepted.quote
    assert Candidate.objects.get(label="likes").status == CandidateStatus.PENDING  # not explicit: reviewed


def test_repeated_in_two_sessions_is_proposed_for_long_term_memory(alice, bearer, ingest):
    agent = bearer(alice, write=True)
    ingest(agent, alice.personal_scope, "I speak Japanese.", session="s1")
    assert Candidate.objects.get(label="language").long_term == ""
    ingest(agent, alice.personal_scope, "I speak Japanese.", session="s2")
    assert Candidate.objects.filter(label="language").latest("id").long_term == "repeated in 2+ sessions"
    ingest(agent, alice.personal_scope, "I love hiking.", session="s3")
    assert Candidate.objects.get(label="likes").long_term == "explicit preference or boundary"


def test_processing_twice_creates_nothing_twice(alice, bearer, ingest):
    job = ingest(bearer(alice, write=True), alice.personal_scope, "I live in Kyoto.")
    before = Candidate.objects.count()
    assert ingest_process(job_id=job["job"], scope_id=alice.personal_scope.pk).status == "done"
    assert Candidate.objects.count() == before


@pytest.mark.parametrize("body, field", [
    ({"session": "s", "messages": []}, "messages"),
    ({"session": "s", "messages": [{"role": "user", "text": "hi", "at": "2026-05-08T16:44:10"}]}, "messages"),
    ({"session": "s", "messages": [{"role": "robot", "text": "hi", "at": AT}]}, "messages"),
    ({"session": "s", "messages": [{"role": "user", "text": "\x00", "at": AT}]}, "messages"),
    ({"session": "s", "messages": [{"role": "user", "text": "hi", "at": AT, "mood": "x"}]}, "messages"),
    ({"messages": [{"role": "user", "text": "hi", "at": AT}]}, "session"),
])
def test_bad_ingest_requests_are_refused_whole(alice, bearer, body, field):
    response = bearer(alice, write=True).post("/api/v1/ingest/", {"scope": alice.personal_scope.pk, **body},
                                              format="json")
    assert response.status_code == 400 and field in response.json()["fields"], response.json()
    assert not IngestJob.objects.exists()


def test_a_model_that_keeps_answering_nonsense_fails_the_job_visibly(alice, bearer, ingest, settings):
    import threading
    from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

    class Nonsense(BaseHTTPRequestHandler):
        def do_POST(self):  # noqa: N802
            self.rfile.read(int(self.headers["Content-Length"]))
            body = b'{"choices": [{"message": {"role": "assistant", "content": "not json at all"}}]}'
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Nonsense)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    settings.EXTRACTOR, settings.LLM_URL, settings.LLM_MODEL = "llm", f"http://127.0.0.1:{server.server_port}", "m"
    try:
        job = ingest(bearer(alice, write=True), alice.personal_scope, "I live in Kyoto.")
    finally:
        server.shutdown()
    assert job["status"] == "failed" and job["error"] and job["extractor"] == "llm"
    assert IngestJob.objects.get(pk=job["job"]).messages == [] and not Candidate.objects.exists()


def test_lost_jobs_are_delivered_again_and_old_ones_fail_with_their_messages_wiped(alice, bearer, ingest):
    from django.utils import timezone
    from review.services.ingest import ingest_sweep

    raw = [{"id": "m0", "role": "user", "text": "I live in Kyoto.", "at": AT}]
    lost = IngestJob.objects.create(scope=alice.personal_scope, session="s1", created_by=alice, extractor="patterns",
                                    messages=raw, message_count=1)
    old = IngestJob.objects.create(scope=alice.personal_scope, session="s2", created_by=alice, extractor="patterns",
                                   messages=raw, message_count=1)
    crashing = IngestJob.objects.create(scope=alice.personal_scope, session="s3", created_by=alice,
                                        extractor="patterns", messages=raw, message_count=1, attempts=5,
                                        status="running")
    IngestJob.objects.filter(pk=lost.pk).update(created_at=timezone.now() - dt.timedelta(hours=1))
    IngestJob.objects.filter(pk=old.pk).update(created_at=timezone.now() - dt.timedelta(days=2))
    IngestJob.objects.filter(pk=crashing.pk).update(created_at=timezone.now() - dt.timedelta(hours=1))
    assert ingest_sweep() == {"requeued": 1, "failed": 2}
    jobs = {job.pk: job for job in IngestJob.objects.all()}
    assert jobs[lost.pk].status == "done" and Candidate.objects.filter(job=lost).exists()  # eager: ran again
    for pk in (old.pk, crashing.pk):
        assert jobs[pk].status == "failed" and jobs[pk].messages == []


def test_the_task_names_the_jobs_scope_and_a_message_queued_without_it_still_runs(alice, monkeypatch,
                                                                                   django_capture_on_commit_callbacks):
    """The job is a row of its scope, locked by (id, scope_id): the task's message carries both. A message
    queued before it did (only job_id) finds the scope from the job and completes the same way."""
    from review.services.ingest import ingest_create
    from review.tasks import ingest_extract

    sent = []
    monkeypatch.setattr(ingest_extract, "delay", lambda **kwargs: sent.append(kwargs))
    raw = [{"id": "m0", "role": "user", "text": "I live in Kyoto.", "at": dt.datetime.fromisoformat(AT)}]
    with django_capture_on_commit_callbacks(execute=True):
        job = ingest_create(scope=alice.personal_scope, actor=alice, session="s1", messages=raw)
    assert sent == [{"job_id": job.pk, "scope_id": alice.personal_scope.pk}]
    assert ingest_extract.apply(kwargs={"job_id": job.pk}).get() == "done"  # the old message's one argument
    assert Candidate.objects.filter(job=job, label="city").exists()


def test_a_move_said_later_with_its_start_overrules_a_city_only_said_on_the_ingest_path(alice, bearer, ingest,
                                                                                       as_user):
    """DESIGN §4 rule 2 through ingest and approval: "I live in Lisbon" (said 8 May), then "We moved to
    Kyoto last month" (said 20 May): approved, Kyoto is the city now, Lisbon history."""
    agent = bearer(alice, write=True)
    person = as_user(alice)
    ingest(agent, alice.personal_scope, "I live in Lisbon.", at="2026-05-08T10:00:00+08:00")
    approve(person, Candidate.objects.get(label="city", value="Lisbon"))
    ingest(agent, alice.personal_scope, "We moved to Kyoto last month.", session="s2", at="2026-05-20T10:00:00+08:00")
    kyoto = Candidate.objects.get(label="city", value="Kyoto")
    assert kyoto.effective_at is not None          # the move's own start, from "last month"
    approve(person, kyoto)
    current = Card.objects.filter(scope=alice.personal_scope, label__key="city", superseded_at__isnull=True)
    assert [c.value for c in current] == ["Kyoto"]


def approve(client, candidate):
    response = client.post(f"/api/v1/review/{candidate.pk}/approve/", {}, format="json")
    assert response.status_code == 200, response.content
