"""What the upkeep job would propose for a scope, read without writing anything:
promotions of stable patterns, demotions of contradicted or stale long-term cards,
merges of duplicate knowledge by exact name or alias only. Each rule reuses the
store's own: current is cards.valid_time, stale is recall's aging (cards.recall.aging), a
contradiction is recall's contradictions (cards.recall.contradictions), a name binds by exact name, alias or
merge (the binding rule, cards/selectors/entities.py)."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field

from django.conf import settings
from django.db import connection

from cards.models import Alias, Card, CardKind, Tag
from cards.recall.aging import aging_now
from cards.recall.contradictions import contradictions_in
from cards.selectors.idle import scopes_idle
from cards.valid_time import valid_q, valid_sql
from scopes.models import Scope, ScopeKind

from ..extract.signals import plan_name, priority_in
from ..models import CandidateStatus, Candidate, UpkeepKind, UpkeepProposal, UpkeepStatus

# A pattern is stable once seen in this many sessions (the remember-me promotion rule), or with impact 3.
SESSIONS_FOR_LONG_TERM = 2
HIGH_IMPACT = 3


@dataclass(frozen=True)
class Found:
    """One proposal as the job finds it: which cards, by which rule, and the dates of its evidence."""

    kind: str
    card_id: int | None  # None: archiving the scope itself
    why: str
    evidence_at: list[dt.datetime] = field(default_factory=list)
    other_id: int | None = None

    @property
    def key(self) -> tuple:
        return (self.kind, self.card_id, self.other_id)


def upkeep_found(scope: Scope, *, now: dt.datetime) -> list[Found]:
    if scope.archived_at is not None:  # read-only until restored: nothing there is tidied
        return []
    return [*promotions_found(scope, now=now), *demotions_found(scope, now=now), *merges_found(scope, now=now),
            *archiving_found(scope, now=now)]


def _current(scope: Scope, now: dt.datetime):
    """The scope's cards current at `now` that may be long-term, as a query: what
    cards.services.long_term.long_term_problem refuses (an event, a guess, a dispute,
    a superseded value) is left out."""
    return (Card.objects.in_scopes([scope.pk]).filter(valid_q(now), disputes__isnull=True)
            .exclude(kind=CardKind.EVENT).exclude(tag=Tag.HYPOTHESIS))


def promotions_found(scope: Scope, *, now: dt.datetime) -> list[Found]:
    """Current cards, neither long-term nor demoted, seen in 2+ sessions or of impact 3.
    A session is the card's own and each session whose candidate a person approved (or the
    scope auto-accepted) into it, dated when it was first said there."""
    cards = list(_current(scope, now).filter(long_term_at__isnull=True, demoted_at__isnull=True)
                 .values("id", "impact", "source_session", "recorded_at"))
    seen: dict[int, dict[str, dt.datetime]] = {c["id"]: {} for c in cards}
    for row in (Candidate.objects.in_scopes([scope.pk])
                .filter(card_id__in=list(seen), status__in=(CandidateStatus.APPROVED, CandidateStatus.AUTO_ACCEPTED),
                        message_at__lte=now).exclude(session="").values("card_id", "session", "message_at")):
        sessions = seen[row["card_id"]]
        sessions[row["session"]] = min(sessions.get(row["session"], row["message_at"]), row["message_at"])
    found = []
    for card in cards:
        sessions = seen[card["id"]]
        if card["source_session"] and card["source_session"] not in sessions and card["recorded_at"] <= now:
            sessions[card["source_session"]] = card["recorded_at"]
        if len(sessions) >= SESSIONS_FOR_LONG_TERM:
            found.append(Found(UpkeepKind.PROMOTE, card["id"], "sessions", sorted(sessions.values())))
        elif card["impact"] >= HIGH_IMPACT:
            found.append(Found(UpkeepKind.PROMOTE, card["id"], "impact", [card["recorded_at"]]))
    return found


def demotions_found(scope: Scope, *, now: dt.datetime) -> list[Found]:
    """Long-term cards a later current card contradicts (same subject, single-value label, another
    value, in this scope or one above it), then long-term cards gone stale (recall's aging rule)."""
    long_term = {c["id"]: c for c in Card.objects.in_scopes([scope.pk]).filter(valid_q(now), long_term_at__isnull=False)
                 .values("id", "verified_at")}
    if not long_term:
        return []
    found: dict[int, Found] = {}
    ladder = [scope.pk, *scope.ancestor_ids()]
    groups = [g for g in contradictions_in(scope_ids=ladder) if long_term.keys() & set(g.card_ids)]
    sides = {c["id"]: c for c in Card.objects.in_scopes(ladder)
             .filter(pk__in={pk for g in groups for pk in g.card_ids}).values("id", "verified_at", "value_norm")}
    for group in groups:
        for card_id in long_term.keys() & set(group.card_ids):
            mine = sides[card_id]
            later = [sides[pk] for pk in group.card_ids if pk in sides and sides[pk]["value_norm"] != mine["value_norm"]
                     and sides[pk]["verified_at"] > mine["verified_at"]]
            if later:
                newest = max(later, key=lambda side: (side["verified_at"], side["id"]))
                found[card_id] = Found(UpkeepKind.DEMOTE, card_id, "contradicted", [newest["verified_at"]],
                                       other_id=newest["id"])
    for card_id in _stale(scope, now, sorted(long_term.keys() - found.keys())):
        found[card_id] = Found(UpkeepKind.DEMOTE, card_id, "stale", [long_term[card_id]["verified_at"]])
    return sorted(found.values(), key=lambda f: f.card_id)


def _stale(scope: Scope, now: dt.datetime, card_ids: list[int]) -> list[int]:
    if not card_ids:
        return []
    sql = (f"SELECT c.id FROM cards_card c WHERE c.scope_id = %(scope)s AND c.id = ANY(%(ids)s)"
           f" AND {valid_sql('c')} AND {aging_now()} ORDER BY c.id")
    with connection.cursor() as cursor:
        cursor.execute(sql, {"scope": scope.pk, "ids": card_ids, "at": now})
        return [row[0] for row in cursor.fetchall()]


def merges_found(scope: Scope, *, now: dt.datetime) -> list[Found]:
    """Current knowledge cards of one label and the same words (normalised) whose subjects
    are one thing by the binding rule: the same name, a name merged into the other, or a
    registered alias of the other. Names that are only alike never count. The older card
    stays; the newer is folded into it."""
    rows = list(Card.objects.in_scopes([scope.pk]).filter(valid_q(now), kind=CardKind.KNOWLEDGE)
                .exclude(tag=Tag.HYPOTHESIS).order_by("effective_at", "id")
                .values("id", "label_id", "value_norm", "effective_at", "subject_id", "subject__name_norm",
                        "subject__merged_into_id"))
    groups: dict[tuple, list[dict]] = {}
    for row in rows:
        groups.setdefault((row["label_id"], row["value_norm"]), []).append(row)
    pairs = [(a, b) for group in groups.values() if len(group) > 1
             for i, a in enumerate(group) for b in group[i + 1:] if a["subject_id"] != b["subject_id"]]
    aliases = _aliases({row["subject_id"] for pair in pairs for row in pair},
                       {row["subject__name_norm"] for pair in pairs for row in pair})
    found, folded = [], set()
    for kept, other in pairs:
        why = _same_thing(kept, other, aliases)
        if why is None or kept["id"] in folded or other["id"] in folded:
            continue
        folded.add(other["id"])
        found.append(Found(UpkeepKind.MERGE, kept["id"], why, [kept["effective_at"], other["effective_at"]],
                           other_id=other["id"]))
    return found


def _aliases(entity_ids: set[int], names: set[str]) -> set[tuple[int, str]]:
    """(entity, name) for every registered alias of these entities that is one of these names."""
    if not entity_ids:
        return set()
    return set(Alias.objects.filter(entity_id__in=entity_ids, name_norm__in=names)
               .values_list("entity_id", "name_norm"))


def _same_thing(a: dict, b: dict, aliases: set[tuple[int, str]]) -> str | None:
    if a["subject__name_norm"] == b["subject__name_norm"]:
        return "same_name"
    root_a, root_b = a["subject__merged_into_id"] or a["subject_id"], b["subject__merged_into_id"] or b["subject_id"]
    if root_a == root_b:
        return "merged"
    if (a["subject_id"], b["subject__name_norm"]) in aliases or (b["subject_id"], a["subject__name_norm"]) in aliases:
        return "alias"
    return None


def archiving_found(scope: Scope, *, now: dt.datetime) -> list[Found]:
    """An active project to archive: nobody has read or written there for
    settings.UPKEEP_ARCHIVE_IDLE_DAYS (cards/selectors/idle.py says what counts), or a
    person's stated change of priorities dropped it by name ("we dropped the garden plan,
    we're doing the patio instead", review/extract/signals.py reads it) in it or a scope above
    it. A person who declined archiving it is not asked again within that many days."""
    if scope.kind != ScopeKind.PROJECT or scope.archived_at is not None:
        return []
    idle_for = dt.timedelta(days=settings.UPKEEP_ARCHIVE_IDLE_DAYS)
    declined = UpkeepProposal.objects.in_scopes([scope.pk]).filter(
        kind=UpkeepKind.ARCHIVE, status=UpkeepStatus.REJECTED, decided_at__gt=now - idle_for)
    if declined.exists():
        return []
    replaced = _replaced_by(scope, now)
    if replaced is not None:
        return [Found(UpkeepKind.ARCHIVE, None, "replaced", [replaced["recorded_at"]], other_id=replaced["id"])]
    for idle in scopes_idle(since=now - idle_for, scope_ids=[scope.pk]):
        last = max(at for at in (idle.last_read_at, idle.last_written_at) if at is not None)
        return [Found(UpkeepKind.ARCHIVE, None, "idle", [last])]
    return []


def _replaced_by(scope: Scope, now: dt.datetime) -> dict | None:
    """The newest current goal that says this project was dropped for something else."""
    ladder = [scope.pk, *scope.ancestor_ids()]
    goals = (Card.objects.in_scopes(ladder).filter(valid_q(now), tag=Tag.GOAL, kind=CardKind.KNOWLEDGE)
             .exclude(source_quote="").order_by("-recorded_at", "-id").values("id", "source_quote", "recorded_at"))
    name = plan_name(scope.name)
    for goal in goals[:200]:
        shift = priority_in(goal["source_quote"])
        if shift is not None and shift[1] and plan_name(shift[1]) == name:
            return goal
    return None
