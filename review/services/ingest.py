"""From a conversation to review-queue candidates. The messages are kept only
until extraction has read them; the candidates keep their quotes."""

from __future__ import annotations

import datetime as dt

from celery import current_app
from django.db import transaction
from django.utils import timezone

from cards.drafts import MAX_REF, MAX_TEXT
from cards.errors import InvalidCard
from cards.labels import label_resolve, registry
from cards.models import Card, Entity, Precision, Tag, TimeSource
from cards.services import card_remember
from cards.text import name_visible, normalize, text_in
from cards.valid_time import valid_q
from cards.time.when import UnresolvableTime, anchor_zone, person_zone, when_resolve, zone_label
from core.errors import DomainError
from scopes.models import AgentToken, Scope, User

from ..extract import extractor_for
from ..extract.sentences import quote_whole
from ..extract.base import Dropped, ExtractContext, Extraction, ExtractionFailed, Message, Proposal
from ..models import Candidate, CandidateStatus, IngestJob, JobStatus
from .candidates import candidate_draft, candidate_place, candidate_screen
from .signals import signal_candidates


def _ingest_extract():
    """The task that extracts a job, by its registered name: the task module calls this one, so this one never
    imports it (ReviewConfig.ready imports it, so every process has it registered and an eager run finds it)."""
    return current_app.tasks["review.tasks.ingest_extract"]

MAX_MESSAGES = 500
ROLES = ("user", "assistant", "system")
MAX_ATTEMPTS = 5
STALE_AFTER = dt.timedelta(minutes=30)  # a job not finished by then lost its task (broker down, worker gone)
KEEP_AT_MOST = dt.timedelta(hours=24)  # raw messages are never kept longer than this, whatever happens


def ingest_create(*, scope: Scope, actor: User, session: str, messages: list[dict],
                  auto_accept: bool = True, token: AgentToken | None = None) -> IngestJob:
    """Store one session's messages and queue their extraction after commit.
    Without `auto_accept` (a propose-only token's), every candidate waits for a
    person even where the scope auto-accepts explicit statements."""
    problems = _check_messages(messages)
    if not session.strip() or len(session) > MAX_REF or "\x00" in session:
        problems["session"] = [f"must be non-empty text of at most {MAX_REF} characters"]
    if problems:
        raise InvalidCard("The ingest request has invalid fields; nothing was stored.", fields=problems)
    # Free text as it is stored (cards.text): NFC, no bidi overrides.
    stored = [{"id": m.get("id") or f"{session}:{index}", "role": m["role"], "text": text_in(m["text"]),
               "at": m["at"].isoformat()} for index, m in enumerate(messages)]
    job = IngestJob.objects.create(scope=scope, session=session, created_by=actor, messages=stored,
                                   message_count=len(stored), extractor=extractor_for().name,
                                   auto_accept=auto_accept, token=token)
    # robust: the job is committed either way; a broker that is down leaves it
    # queued, and ingest_sweep delivers it again (or fails it and wipes it).
    transaction.on_commit(lambda: _ingest_extract().delay(job_id=job.pk, scope_id=job.scope_id), robust=True)
    return job


def _check_messages(messages) -> dict:
    if not isinstance(messages, list) or not 1 <= len(messages) <= MAX_MESSAGES:
        return {"messages": [f"give 1 to {MAX_MESSAGES} messages"]}
    problems = {}
    for index, message in enumerate(messages):
        wrong = []
        if message.get("role") not in ROLES:
            wrong.append(f"role must be one of {', '.join(ROLES)}")
        text = message.get("text")
        if not isinstance(text, str) or not text.strip() or len(text) > MAX_TEXT or "\x00" in text:
            wrong.append(f"text must be non-empty text of at most {MAX_TEXT} characters")
        if not isinstance(message.get("at"), dt.datetime) or message["at"].tzinfo is None:
            wrong.append("at must be a datetime with its offset")
        ident = message.get("id")
        if ident is not None and (not isinstance(ident, str) or len(ident) > MAX_REF or "\x00" in ident):
            wrong.append(f"id must be text of at most {MAX_REF} characters")
        if wrong:
            problems[str(index)] = wrong
    return {"messages": problems} if problems else {}


def ingest_job_scope(job_id: int) -> int:
    """The scope of a job known by its id alone (a task queued before tasks carried the scope): one read
    that a cluster sends to every shard, once, before the job is locked by (id, scope_id)."""
    return IngestJob.objects.values_list("scope_id", flat=True).get(pk=job_id)


def _job_locked(job_id: int, scope_id: int, *related: str) -> IngestJob:
    """The job locked until commit, found by (id, scope_id): one shard on a cluster, where Citus refuses a
    locking read that is not. Only the job's row is locked (`of`): its scope and its author (replicated
    tables) are read with it, and locking them would hold every write in the scope (their keys take a share
    lock on the scope's row) for as long as extraction runs."""
    return (IngestJob.objects.select_for_update(of=("self",)).select_related(*related)
            .get(pk=job_id, scope_id=scope_id))


def ingest_process(*, job_id: int, scope_id: int) -> IngestJob:
    """Run extraction once for a job. Idempotent: a finished job is left as it
    is, and the candidates, the job's result and the deletion of its messages
    commit together — a worker killed half-way leaves nothing half-written and
    the redelivered task starts again."""
    with transaction.atomic():
        job = _job_locked(job_id, scope_id)
        if job.status in (JobStatus.DONE, JobStatus.FAILED):
            return job
        if Scope.objects.filter(pk=job.scope_id, archived_at__isnull=False).exists():
            # Archived after it was queued: a read-only project takes no new proposals, and the messages go.
            job.status, job.error, job.finished_at, job.messages = (
                JobStatus.FAILED, "the project was archived before its conversation was read", timezone.now(), [])
            job.save(update_fields=["status", "error", "finished_at", "messages"])
            return job
        if job.attempts >= MAX_ATTEMPTS:
            # A job that keeps killing its worker is delivered again and again: give up, and let its messages go.
            job.status, job.error, job.finished_at, job.messages = (
                JobStatus.FAILED, f"gave up after {job.attempts} attempts", timezone.now(), [])
            job.save(update_fields=["status", "error", "finished_at", "messages"])
            return job
        job.status, job.attempts, job.started_at = JobStatus.RUNNING, job.attempts + 1, timezone.now()
        job.save(update_fields=["status", "attempts", "started_at"])
    with transaction.atomic():
        job = _job_locked(job_id, scope_id, "scope", "created_by")
        if job.status in (JobStatus.DONE, JobStatus.FAILED):
            return job  # another delivery finished it meanwhile
        messages = [Message(id=m["id"], role=m["role"], text=m["text"], at=dt.datetime.fromisoformat(m["at"]))
                    for m in job.messages]
        extraction = extractor_for(job.extractor).extract(messages, _context(job))
        counts = _store(job, extraction, {m.id: m for m in messages})
        job.status, job.finished_at, job.messages = JobStatus.DONE, timezone.now(), []
        job.result = {**counts, "dropped": [{"message": d.message_id, "rule": d.rule} for d in extraction.dropped]}
        job.save(update_fields=["status", "finished_at", "messages", "result"])
    return job


def ingest_fail(*, job_id: int, scope_id: int, error: ExtractionFailed | Exception) -> IngestJob:
    """Extraction failed for good: visible on the job, and the raw messages go."""
    with transaction.atomic():
        job = _job_locked(job_id, scope_id)
        if job.status != JobStatus.DONE:
            job.status, job.error, job.finished_at, job.messages = (JobStatus.FAILED, str(error)[:2000],
                                                                    timezone.now(), [])
            job.save(update_fields=["status", "error", "finished_at", "messages"])
    return job


def ingest_sweep(now: dt.datetime | None = None) -> dict:
    """Jobs whose task was lost are delivered again; after KEEP_AT_MOST (or
    MAX_ATTEMPTS) they fail and their messages go (beat: every 15 minutes)."""
    now = now or timezone.now()
    stale = IngestJob.objects.filter(status__in=(JobStatus.QUEUED, JobStatus.RUNNING),
                                     created_at__lt=now - STALE_AFTER)
    counts = {"requeued": 0, "failed": 0}
    for job in stale.only("id", "scope_id", "created_at", "attempts"):
        if job.created_at < now - KEEP_AT_MOST or job.attempts >= MAX_ATTEMPTS:
            ingest_fail(job_id=job.pk, scope_id=job.scope_id,
                        error=RuntimeError("not extracted in time; the messages were deleted"))
            counts["failed"] += 1
        else:
            _ingest_extract().delay(job_id=job.pk, scope_id=job.scope_id)
            counts["requeued"] += 1
    return counts


def _context(job: IngestJob) -> ExtractContext:
    names = list(Entity.objects.filter(scope=job.scope, user__isnull=True).order_by("name")
                 .values_list("name", flat=True)[:200])
    keys = sorted({label.key for label in registry().values()})
    return ExtractContext(known_labels=keys, known_entities=names, time_zone=person_zone(job.created_by).key)


def _store(job: IngestJob, extraction: Extraction, messages: dict[str, Message]) -> dict:
    tz = person_zone(job.created_by)
    candidates = []
    for proposal in (p for p in extraction.proposals if p.message_id in messages):
        candidate, sensitive_label = _candidate(job, proposal, messages[proposal.message_id], tz)
        # The write screen: never stored is dropped, as the policy drops a clause; a
        # sensitive candidate, by its label or its words, waits for the person's consent.
        if excluded_by := candidate_screen(candidate, label_sensitive=sensitive_label):
            extraction.dropped.append(Dropped(proposal.message_id, excluded_by))
        else:
            candidates.append(candidate)
    # Signals (a recurring blocker, a priority shift) are read from the same messages by fixed patterns,
    # whichever extractor ran, and pass the same screen.
    for candidate in signal_candidates(job, list(messages.values()), tz):
        if excluded_by := candidate_screen(candidate):
            extraction.dropped.append(Dropped(candidate.message, excluded_by))
        else:
            candidates.append(candidate)
    _mark_long_term(job.scope, job.created_by, candidates)
    Candidate.objects.bulk_create(candidates)
    auto = 0
    if job.scope.auto_accept_explicit and job.auto_accept:
        for candidate in candidates:
            auto += _auto_accept(candidate)
    statuses = [c.status for c in candidates]
    return {"candidates": len(candidates), "needs_consent": statuses.count(CandidateStatus.NEEDS_CONSENT),
            "auto_accepted": auto, "dropped_count": len(extraction.dropped)}


def _candidate(job: IngestJob, p: Proposal, message: Message, tz) -> tuple[Candidate, bool]:
    """The proposal as a candidate, and whether its label is a sensitive one."""
    candidate = Candidate(
        # Names read out of free text lose what a name may not hold (cards.text), so they bind as they read.
        scope=job.scope, job=job, author=job.created_by, kind=p.kind, label=name_visible(p.label),
        subject=name_visible(p.subject), value=p.value, object=name_visible(p.object or ""), text=p.text, tag=p.tag,
        when=p.when or "", confidence=p.confidence, impact=p.impact, explicit=p.explicit,
        quote=quote_whole(message.text, p.quote), session=job.session, message=message.id,
        message_at=message.at, anchor_zone=zone_label(anchor_zone(message.at, tz)), extractor=job.extractor,
        rule=p.rule, proposed_by_id=job.token_id)
    try:
        label = label_resolve(p.label)
        candidate.label = label.key
    except DomainError as refused:
        candidate.problem = refused.detail[:300]
        return candidate, False
    _place_in_time(candidate, p, message, tz)
    return candidate, label.sensitive


def _place_in_time(candidate: Candidate, p: Proposal, message: Message, tz) -> None:
    """A `when` is resolved against the message's timestamp, in the day its
    offset says (the speaker's, DESIGN §5); a model's absolute hint is used as
    given. When the words give no usable time — a `when` that cannot be
    resolved, a hint that cannot be read — or the hint is the message's own
    timestamp (a statement about the present), the time is the message's, with
    time_source `message` saying so. An event with no time at all stays undated."""
    start = end = None
    precision, source = "", ""
    from_message = (message.at, Precision.DATETIME, TimeSource.MESSAGE)
    if p.when:
        try:
            interval = when_resolve(p.when, reference=message.at, tz=anchor_zone(message.at, tz))
            start, end, precision, source = interval.start, interval.end, interval.precision, interval.source
        except UnresolvableTime:
            start, precision, source = from_message
    elif p.hint_unusable or p.occurred_at_hint == message.at:
        start, precision, source = from_message
    elif p.occurred_at_hint is not None:
        start, precision, source = p.occurred_at_hint, Precision.DATETIME, TimeSource.RESOLVED
    candidate_place(candidate, start=start, end=end, precision=precision, source=source)


def _key(candidate: Candidate) -> str:
    return f"{normalize(candidate.subject)}|{candidate.label}|{normalize(candidate.value)}"[:600]


def _mark_long_term(scope: Scope, author: User, candidates: list[Candidate]) -> None:
    """Proposed for long-term memory (remember-me's promotion rules): the same observation in another
    session, or a preference already on a current card (a repeated preference is a signal: said again,
    it is proposed as repeated before it is one more explicit preference); an explicit preference or
    boundary; impact 3."""
    for candidate in candidates:
        candidate.key = _key(candidate)
    if not candidates:
        return
    # "me" is whoever speaks: only the author's own earlier sessions repeat it (never another member's "I like tea").
    earlier = (Candidate.objects.filter(scope=scope, key__in={c.key for c in candidates})
               .exclude(session=candidates[0].session))
    seen = {key for key, subject, by in earlier.values_list("key", "subject", "author_id")
            if subject != "me" or by == author.pk}
    on_card = _preferences_on_cards(scope, author, [c for c in candidates if c.tag == Tag.PREFERENCE])
    for candidate in candidates:
        if candidate.key in seen:
            candidate.long_term = "repeated in 2+ sessions"
        elif candidate.key in on_card:
            candidate.long_term = "repeated: already a preference on a card"
        elif candidate.tag in (Tag.PREFERENCE, Tag.BOUNDARY):
            candidate.long_term = "explicit preference or boundary"
        elif candidate.impact >= 3:
            candidate.long_term = "impact 3"


def _preferences_on_cards(scope: Scope, author: User, preferences: list[Candidate]) -> set[str]:
    """The keys of these preference candidates that the author's current preference cards in the scope
    already hold (subject "me" only: another subject's name is bound by a reviewer, not here)."""
    mine = [c for c in preferences if c.subject == "me" and not c.problem]
    if not mine:
        return set()
    held = set(Card.objects.filter(valid_q(timezone.now()), scope=scope, subject__user=author, tag=Tag.PREFERENCE,
                                   label__key__in={c.label for c in mine},
                                   value_norm__in={normalize(c.value) for c in mine})
               .values_list("label__key", "value_norm"))
    return {c.key for c in mine if (c.label, normalize(c.value)) in held}


def _auto_accept(candidate: Candidate) -> int:
    """A member's own explicit "remember that …", in a scope that opted in: stored
    at once. Never anything a model extracted, never a sensitive attribute."""
    if (not candidate.explicit or candidate.extractor != "patterns" or candidate.problem
            or candidate.status != CandidateStatus.PENDING):
        return 0
    try:
        with transaction.atomic():
            result = card_remember(scope=candidate.scope, actor=candidate.author, draft=candidate_draft(candidate))
    except DomainError as refused:
        candidate.problem = refused.detail[:300]
        candidate.save(update_fields=["problem"])
        return 0
    candidate.status, candidate.card, candidate.decided_at = CandidateStatus.AUTO_ACCEPTED, result.card, timezone.now()
    candidate.reason = "explicit statement; scope auto-accepts"
    candidate.save(update_fields=["status", "card", "decided_at", "reason"])
    return 1
