"""The life of a hypothesis (DESIGN §4 rule 7): confidence high/medium/low,
demoted when not reinforced (14 / 30 / 60 days), discarded after 5 sessions
unvalidated, probed one at a time, never twice and never about a sensitive
attribute, and promoted only when a person confirms it (or states its value).
A fact that contradicts it discards it at once; those rules of the write path
live in cards/services/tags.py."""

from __future__ import annotations

import datetime as dt

from django.db import connection, transaction
from django.db.models import Max
from django.db.models.expressions import RawSQL
from django.utils import timezone
from django.utils.translation import gettext as _

from cards.confidence import level_of
from cards.errors import NotAHypothesis
from cards.labels import NEVER_ASKED_LABELS_SQL
from cards.models import Card, CardAsked, CardKind, CardRevision, Tag
from cards.profile import STYLE_LABELS
from cards.services import hypothesis_confidence_lower, hypothesis_discard, hypothesis_state
from core.scope_locks import locked_scope_by_scope
from scopes.models import User

from ..models import Decision, Probe

NEXT = {"high": "medium", "medium": "low", "low": None}
DAYS_AT_LEVEL = {"high": 14, "medium": 30, "low": 60}
SESSIONS_UNVALIDATED = 5
PROBE_OUTSTANDING = dt.timedelta(days=1)  # an unanswered probe blocks the next one this long
# A confirmed guess about one of these is stated as a preference: what the person
# likes, and how they want to be talked to (the profile's style, cards/profile.py).
PREFERENCE_LABELS = {"likes", "dislikes", "interest", "hobby", *STYLE_LABELS}


def hypotheses_current():
    # Events are never hypotheses (the write path refuses them); states and knowledge may be.
    return Card.objects.filter(tag=Tag.HYPOTHESIS, superseded_at__isnull=True).exclude(kind=CardKind.EVENT)


def _levels_since(cards: list[Card]) -> dict[int, dt.datetime]:
    """When each card reached its level: its last reinforcement or demotion, one query for all."""
    demoted = dict(CardRevision.objects.filter(card__in=cards, field="confidence").values("card_id")
                   .annotate(at=Max("at")).values_list("card_id", "at"))
    return {c.pk: max(c.verified_at, demoted[c.pk]) if c.pk in demoted else c.verified_at for c in cards}


# A session is one a person spent with their agent: every card written with
# `source.session` (REST single and bulk, approvals of ingested candidates, and
# any later client of the same services) and every ingest job. Only the sessions
# of the person the guess is about count (the member it names; for anyone else,
# the person whose agent guessed it), in the scope where it lives, after it was
# made or last reinforced; the session it was guessed in is not one that left it
# unvalidated. Each session id counts once, however many cards or jobs carry it.
# The card side reads the partial index card_sessions (scope, actor, recorded_at).
SESSIONS_SINCE = """
SELECT h.id, count(DISTINCT s.session)
  FROM cards_card h
  JOIN cards_entity e ON e.id = h.subject_id
 CROSS JOIN LATERAL (
       SELECT c.source_session AS session FROM cards_card c
        WHERE c.scope_id = h.scope_id AND c.source_actor_id = COALESCE(e.user_id, h.source_actor_id)
          AND c.source_session <> '' AND c.recorded_at > GREATEST(h.recorded_at, h.verified_at)
       UNION ALL
       SELECT j.session FROM review_ingestjob j
        WHERE j.scope_id = h.scope_id AND j.created_by_id = COALESCE(e.user_id, h.source_actor_id)
          AND j.created_at > GREATEST(h.recorded_at, h.verified_at)
       ) s
 WHERE h.id = ANY(%s) AND s.session <> h.source_session
 GROUP BY h.id"""


def _sessions_since(cards: list[Card]) -> dict[int, int]:
    """Sessions each hypothesis went through without being validated, one statement for all."""
    with connection.cursor() as cursor:
        cursor.execute(SESSIONS_SINCE, [[c.pk for c in cards]])
        return dict(cursor.fetchall())


def _hypotheses_lock() -> list[Card]:
    """Every current hypothesis of the scopes not archived (a read-only project's guesses are left as they
    are until it is restored), locked until commit. One locking statement per scope, scopes in order: on a
    cluster a locking read must reach one shard (Citus refuses FOR UPDATE across shards)."""
    return locked_scope_by_scope(hypotheses_current().filter(scope__archived_at__isnull=True), of=("self",))


@transaction.atomic
def hypotheses_decay(now: dt.datetime | None = None) -> dict:
    now = now or timezone.now()
    counts = {"demoted": 0, "discarded": 0}
    cards = _hypotheses_lock()
    since, sessions = _levels_since(cards), _sessions_since(cards)
    for card in cards:
        level = level_of(card.confidence)
        if sessions.get(card.pk, 0) >= SESSIONS_UNVALIDATED:
            hypothesis_discard(card=card, reason=f"{SESSIONS_UNVALIDATED} sessions without validation")
            counts["discarded"] += 1
        elif now - since[card.pk] >= dt.timedelta(days=DAYS_AT_LEVEL[level]):
            lower = NEXT[level]
            if lower is None:
                hypothesis_discard(card=card, reason=f"low for {DAYS_AT_LEVEL['low']} days without reinforcement")
                counts["discarded"] += 1
            else:
                hypothesis_confidence_lower(card=card, level=lower, at=now,
                                            reason=f"not reinforced for {DAYS_AT_LEVEL[level]} days")
                counts["demoted"] += 1
    return counts


# A person is probed two ways: GET /probes/next/ offers a hypothesis (a Probe,
# asked when offered), and the context block carries one that counts as asked
# when the agent says so (POST /cards/{id}/asked/, a CardAsked). Either is
# "asked" for the rules below: never twice, one at a time.

def _unprobed(*, user: User, scope_ids: list[int]):
    """Current hypotheses in these scopes never put to this person, the next to
    probe first; never one about a sensitive attribute."""
    offered = Probe.objects.in_scopes(scope_ids).filter(user=user).values("card_id")
    acknowledged = CardAsked.objects.in_scopes(scope_ids).filter(user=user).values("card_id")
    return (hypotheses_current().in_scopes(scope_ids).exclude(pk__in=offered).exclude(pk__in=acknowledged)
            .exclude(label_id__in=RawSQL(NEVER_ASKED_LABELS_SQL, ())).order_by("-impact", "-confidence", "id"))


def _probe_outstanding(*, user: User, scope_ids: list[int], now: dt.datetime) -> bool:
    """A probe put to this person in the last PROBE_OUTSTANDING that is still a
    hypothesis (neither confirmed nor rejected): the next one waits for it."""
    open_hypotheses = hypotheses_current().in_scopes(scope_ids)
    since = now - PROBE_OUTSTANDING
    return (Probe.objects.in_scopes(scope_ids).filter(user=user, answer="", asked_at__gte=since,
                                                      card__in=open_hypotheses).exists()
            or CardAsked.objects.in_scopes(scope_ids).filter(user=user, asked_at__gte=since,
                                                             card__in=open_hypotheses).exists())


@transaction.atomic
def probe_next(*, user: User, scope_ids: list[int]) -> Card | None:
    """One hypothesis to confirm, never one this person was already asked; none
    while a probe asked in the last day is still unanswered (one at a time)."""
    if _probe_outstanding(user=user, scope_ids=scope_ids, now=timezone.now()):
        return None
    card = _unprobed(user=user, scope_ids=scope_ids).first()
    if card is not None:
        Probe.objects.create(card=card, user=user)
    return card


def probe_pending(*, user: User, scope_ids: list[int]) -> tuple[int | None, int]:
    """For the context block: the hypothesis probe_next would offer (None while
    one is outstanding), recorded as nothing — it is asked once the agent says
    so — and how many hypotheses wait to be probed, that one included."""
    waiting = list(_unprobed(user=user, scope_ids=scope_ids).values_list("pk", flat=True))
    if not waiting or _probe_outstanding(user=user, scope_ids=scope_ids, now=timezone.now()):
        return None, len(waiting)
    return waiting[0], len(waiting)


def _hypothesis(card: Card) -> Card:
    card = Card.objects.select_for_update().get(pk=card.pk, scope_id=card.scope_id)
    if card.tag != Tag.HYPOTHESIS or card.superseded_at is not None:
        raise NotAHypothesis(_("Only a current hypothesis can be confirmed or rejected."))
    return card


@transaction.atomic
def hypothesis_confirm(*, card: Card, user: User, quote: str = "", as_tag: str | None = None,
                       consent: bool = False, session: str = "") -> Card:
    """The person said it is true: they state it, so it is written as a fact (or
    a preference) through the write path — onto its timeline, with the
    confirming words as its source — and the guess is promoted into it. The
    statement passes the screen like any write: a sensitive one needs the
    person's `consent` now, whatever the guess was stored with."""
    card = _hypothesis(card)
    tag = as_tag or (Tag.PREFERENCE if card.label.key in PREFERENCE_LABELS else Tag.FACT)
    stated = hypothesis_state(card=card, actor=user, tag=tag, quote=quote, consent=consent, session=session)
    now = timezone.now()
    Probe.objects.filter(card=card, user=user).update(answer="confirmed", answered_at=now)
    Decision.objects.create(scope_id=card.scope_id, reviewer=user, item="hypothesis", item_id=card.pk,
                            action="confirm", reason=quote.strip()[:300], detail={"tag": tag, "card": stated.pk})
    return stated


@transaction.atomic
def hypothesis_reject(*, card: Card, user: User, reason: str = "") -> None:
    card = _hypothesis(card)
    hypothesis_discard(card=card, reason=reason.strip() or "rejected by the person", actor=user)
    Probe.objects.filter(card=card, user=user).update(answer="rejected", answered_at=timezone.now())
    Decision.objects.create(scope_id=card.scope_id, reviewer=user, item="hypothesis", item_id=card.pk,
                            action="reject", reason=reason.strip()[:300])
