"""Signals at ingest (review/extract/signals.py reads them): a recurring blocker and a priority shift
become review candidates — never cards (DESIGN §4.6).

A blocker's first report is kept only as a Signal (kind, short name, the speaker's day; no quote, no
candidate). When the same blocker is reported again within SIGNAL_DAYS of an earlier day, a candidate
says it recurred, with the days: a knowledge `note` tagged `hypothesis`, because "this keeps getting in
the way" is our inference from the days, not something the person stated — a guess that decays and is
probed once like every hypothesis (§4.7); a `goal` would put an intention in their mouth. Its quote is
empty: the sentences were frustrations, and only the blocker's name is kept.

A priority shift is a knowledge `note` tagged `goal`, quoting its sentence; when it says what was
dropped, the text names the old plan as replaced (so the project can be proposed for archiving).

A signal expires SIGNAL_DAYS after the last day it was said: every ingest clears its scope's expired
ones first (so an expired one never counts), and the nightly beat `signals-expire` clears the rest."""

from __future__ import annotations

import datetime as dt

from django.db import connection
from django.utils import timezone

from cards.text import chinese_in
from cards.confidence import LEVELS
from cards.models import CardKind, Tag
from cards.screen import content_finding
from cards.time.when import anchor_zone, zone_label

from ..extract.base import Message
from ..extract.sentences import quote_whole
from ..extract.signals import Blocker, PriorityShift, blockers_in, priority_shifts_in
from ..models import Candidate, CandidateStatus, IngestJob, Signal, SignalKind
from .candidates import OPEN, candidate_place

SIGNAL_DAYS = 30
RULE_BLOCKER = "signal_recurring_blocker"
RULE_PRIORITY = "signal_priority_shift"


def signals_expire(*, now: dt.datetime | None = None, scope_id: int | None = None) -> dict:
    """Delete every signal whose name was last said more than SIGNAL_DAYS ago (one scope, or all).
    Days are the speakers' and today is the server's: one day more, so a chain that a speaker west of
    the server could still see recur is never deleted early (an older one never counts anyway)."""
    cutoff = (now or timezone.now()).date() - dt.timedelta(days=SIGNAL_DAYS + 1)
    table = Signal._meta.db_table
    where, params = ("WHERE scope_id = %s", [scope_id]) if scope_id is not None else ("", [])
    with connection.cursor() as cursor:
        cursor.execute(
            f"DELETE FROM {table} s USING (SELECT scope_id, author_id, kind, key FROM {table} {where} "
            "GROUP BY scope_id, author_id, kind, key HAVING max(day) < %s) old "
            "WHERE s.scope_id = old.scope_id AND s.author_id = old.author_id AND s.kind = old.kind "
            "AND s.key = old.key", [*params, cutoff])
        return {"expired": cursor.rowcount}


def signal_candidates(job: IngestJob, messages: list[Message], tz: dt.tzinfo) -> list[Candidate]:
    """The candidates this job's signals propose (unsaved; the caller screens and stores them with the
    extractor's), after recording its blockers. Called inside the ingest transaction."""
    signals_expire(scope_id=job.scope_id)
    return [*_recurring_blockers(job, blockers_in(messages), tz),
            *(_priority_candidate(job, shift, tz) for shift in priority_shifts_in(messages))]


def _recurring_blockers(job: IngestJob, blockers: list[Blocker], tz: dt.tzinfo) -> list[Candidate]:
    said: dict[str, tuple[Blocker, set[dt.date]]] = {}
    for blocker in blockers:
        # Only the name is kept; a name that is itself sensitive or never stored is not kept at all.
        if content_finding({"value": blocker.subject}) is None:
            said.setdefault(blocker.key, (blocker, set()))[1].add(blocker.day(anchor_zone(blocker.message.at, tz)))
    Signal.objects.bulk_create(
        [Signal(scope=job.scope, author=job.created_by, kind=SignalKind.BLOCKER, subject=blocker.subject,
                key=key, day=day) for key, (blocker, days) in said.items() for day in days],
        ignore_conflicts=True)
    proposed = []
    for key, (blocker, days) in said.items():
        chain = sorted(set(Signal.objects.filter(scope=job.scope, author=job.created_by, kind=SignalKind.BLOCKER,
                                                 key=key).values_list("day", flat=True)))
        run = _recurrence(chain, max(days))
        if len(run) < 2:
            continue  # the first report, or the earlier one had expired: only the signal is kept
        candidate = _blocker_candidate(job, blocker, run, tz)
        if not Candidate.objects.filter(scope=job.scope, author=job.created_by, rule=RULE_BLOCKER,
                                        value=candidate.value, status__in=OPEN).exists():
            proposed.append(candidate)
    return proposed


def _recurrence(chain: list[dt.date], latest: dt.date) -> list[dt.date]:
    """The days of the run that ends on `latest`: each within SIGNAL_DAYS of the next (oldest first)."""
    run = [latest]
    for day in reversed([d for d in chain if d < latest]):
        if (run[0] - day).days > SIGNAL_DAYS:
            break
        run.insert(0, day)
    return run


def _day_said(day: dt.date, chinese: bool) -> str:
    return f"{day.month}月{day.day}日" if chinese else f"{day.day} {day:%b}"


def _blocker_candidate(job: IngestJob, blocker: Blocker, days: list[dt.date], tz: dt.tzinfo) -> Candidate:
    chinese = blocker.chinese
    said = ("、" if chinese else ", ").join(_day_said(d, chinese) for d in days)
    if chinese:
        value = f"反覆出現的阻礙：{blocker.subject}"
        text = f"{blocker.subject}一再出問題（{said}）——推測，尚未確認"
    else:
        value = f"Recurring blocker: {blocker.subject}"
        text = f"{blocker.subject} keeps getting in the way (reported on {said}) — a guess, not yet confirmed"
    return _candidate(job, blocker.message, value=value, text=text, tag=Tag.HYPOTHESIS, rule=RULE_BLOCKER,
                      quote="", confidence=LEVELS["medium"], tz=tz)


def _priority_candidate(job: IngestJob, shift: PriorityShift, tz: dt.tzinfo) -> Candidate:
    chinese = chinese_in(shift.sentence)
    if chinese:
        value = f"現在優先：{shift.now}" if shift.now else f"不再進行：{shift.replaced}"
        text = value + (f"（取代了{shift.replaced}，原計畫已放棄）" if shift.now and shift.replaced else "")
    else:
        value = f"Priority now: {shift.now}" if shift.now else f"No longer pursued: {shift.replaced}"
        text = value + (f" — replaces {shift.replaced}, which was dropped" if shift.now and shift.replaced else "")
    return _candidate(job, shift.message, value=value, text=text, tag=Tag.GOAL, rule=RULE_PRIORITY,
                      quote=quote_whole(shift.message.text, shift.sentence), confidence=None, tz=tz)


def _candidate(job: IngestJob, message: Message, *, value: str, text: str, tag: str, rule: str, quote: str,
               confidence: float | None, tz: dt.tzinfo) -> Candidate:
    candidate = Candidate(
        scope=job.scope, job=job, author=job.created_by, kind=CardKind.KNOWLEDGE, label="note", subject="me",
        value=value, text=text, tag=tag, confidence=confidence, quote=quote, session=job.session,
        message=message.id, message_at=message.at, anchor_zone=zone_label(anchor_zone(message.at, tz)),
        extractor="signals", rule=rule, proposed_by_id=job.token_id, status=CandidateStatus.PENDING)
    candidate_place(candidate, start=None)
    return candidate
