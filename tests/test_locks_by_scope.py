"""A row of a table a cluster distributes by scope is locked by (id, scope_id), never by its id alone, and
its locking statement joins no other distributed table (issue 26, docs/distributed.md): Citus runs a
`SELECT … FOR UPDATE` only when it reaches one shard. Checked here on the statements themselves, so it
holds on one PostgreSQL too: each service that locks such a row is run and its locking statements read."""

import datetime as dt
import re

import pytest
from django.utils import timezone

from cards.drafts import CardDraft
from cards.models import Card, Entity, PossibleDuplicate
from cards.services import card_describe, card_forget, card_remember, knowledge_merge, knowledge_rename
from cards.services.asked import card_asked
from cards.services.perspectives import perspectives_set
from memory_site.distribution import DISTRIBUTED
from review.models import Candidate, CandidateStatus, UpkeepKind, UpkeepProposal
from review.services.candidates import candidate_reject
from review.services.forget import candidates_retain
from review.services.hypotheses import hypotheses_decay, hypothesis_reject
from review.services.ingest import ingest_create, ingest_process
from review.services.queue import duplicate_decide
from review.services.upkeep import upkeep_decide
from tests.sql_scope import recorded

pytestmark = pytest.mark.django_db

LOCKING = re.compile(r"\bFOR (UPDATE|NO KEY UPDATE|SHARE|KEY SHARE)\b")
TABLES = re.compile(r'(?:FROM|JOIN)\s+"(\w+)"')


def routed_locks(statements) -> set[str]:
    """The functions that took a lock on a distributed row; fails on one that is not by its scope."""
    takers = set()
    for statement in statements:
        if not LOCKING.search(statement.sql):
            continue
        distributed = set(TABLES.findall(statement.sql)) & set(DISTRIBUTED)
        if not distributed:
            continue  # a replicated table (a user, a scope, a rule): any node answers
        assert len(distributed) == 1, f"a lock joins distributed tables {sorted(distributed)}: {statement}"
        (table,) = distributed
        assert f'"{table}"."scope_id" = %s' in statement.sql, f"a lock not by the row's scope: {statement}"
        takers.add(statement.origin[1] if statement.origin else "?")
    return takers


def knowledge(scope, actor, value):
    return card_remember(scope=scope, actor=actor, draft=CardDraft(
        kind="knowledge", label="howto", subject="Router", value=value, text=f"{value}, then wait")).card


def test_corrections_and_forget_lock_cards_by_their_scope(alice, scope, t0):
    city = card_remember(scope=scope, actor=alice, draft=CardDraft(
        kind="state", label="partner", subject="me", object="Ren", reference_time=t0)).card
    target, other = knowledge(scope, alice, "Reset the router"), knowledge(scope, alice, "Restart the router")
    with recorded() as statements:
        card_describe(card=city, actor=alice, text="Met at university")
        knowledge_rename(card=target, actor=alice, value="Factory-reset the router")
        knowledge_merge(target=target, others=[other], actor=alice)
        card_forget(card=city, actor=alice)
    assert {"card_hold", "knowledge_rename", "knowledge_merge", "_cards_lock"} <= routed_locks(statements)
    assert not Card.objects.filter(pk=city.pk).exists()


def test_hypotheses_are_locked_scope_by_scope(alice):
    def guess(value):
        return card_remember(scope=alice.personal_scope, actor=alice, draft=CardDraft(
            kind="state", subject="me", label="likes", value=value, tag="hypothesis", confidence=0.9,
            reference_time=timezone.now())).card
    jazz, _ = guess("jazz"), guess("tea")
    with recorded() as statements:
        hypotheses_decay(now=timezone.now() + dt.timedelta(days=15))
        hypothesis_reject(card=jazz, user=alice, reason="no")
    assert {"_hypotheses_lock", "_hypothesis"} <= routed_locks(statements)


def test_the_review_queue_locks_its_rows_by_their_scope(alice, scope):
    said = [{"id": f"m{n}", "role": "user", "text": text, "at": timezone.now()}
            for n, text in enumerate(["I live in Kyoto.", "I speak Japanese."])]
    card = knowledge(scope, alice, "Reset the router")
    ana, anna = Entity.objects.create(scope=scope, name="Ana"), Entity.objects.create(scope=scope, name="Anna")
    duplicate = PossibleDuplicate.objects.create(entity=anna, similar_to=ana, score=0.9)
    proposal = UpkeepProposal.objects.create(scope=scope, kind=UpkeepKind.PROMOTE, card=card, why="sessions")
    with recorded() as statements:
        job = ingest_create(scope=scope, actor=alice, session="s1", messages=said)
        job = ingest_process(job_id=job.pk, scope_id=scope.pk)
        first, second = Candidate.objects.filter(job=job).order_by("pk")[:2]
        candidate_reject(candidate=first, reviewer=alice, reason="not so")
        Candidate.objects.filter(pk=second.pk).update(status=CandidateStatus.EXPIRED)
        candidates_retain()
        duplicate_decide(proposal=duplicate, reviewer=alice, merge=False)
        upkeep_decide(proposal=proposal, reviewer=alice, approve=False, reason="not yet")
    assert {"_job_locked", "_locked_open", "candidates_retain", "duplicate_decide",
            "upkeep_decide"} <= routed_locks(statements)


def test_a_perspective_and_a_question_asked_are_found_by_the_cards_scope(alice, scope):
    """update_or_create locks the row it looks for; get_or_create reads it: both by the card's scope."""
    card = knowledge(scope, alice, "Reset the router")
    with recorded() as statements:
        perspectives_set(card=card, actor=alice, phrasings={"alice": "my router trick"})
        card_asked(card=card, user=alice)
    assert "perspectives_set" in routed_locks(statements)
    reads = [s.sql for s in statements if '"cards_cardasked"' in s.sql and s.sql.lstrip().startswith("SELECT")]
    assert reads and all('"cards_cardasked"."scope_id" = %s' in sql for sql in reads), reads


def test_a_duplicate_decision_locks_both_entities_by_their_scope(alice, scope):
    """Two merges sharing an entity take turns: each decision locks the proposal and both its entities (each
    by its own scope, one statement each), so neither leaves a chain of merges that binding cannot follow."""
    ana, anna = Entity.objects.create(scope=scope, name="Ana"), Entity.objects.create(scope=scope, name="Anna")
    duplicate = PossibleDuplicate.objects.create(entity=anna, similar_to=ana, score=0.9)
    with recorded() as statements:
        duplicate_decide(proposal=duplicate, reviewer=alice, merge=True)
    routed_locks(statements)
    locked = [s.sql for s in statements if LOCKING.search(s.sql) and '"cards_entity"' in s.sql]
    assert len(locked) == 2, locked
    anna.refresh_from_db()
    assert anna.merged_into_id == ana.pk
