"""Recall scored from snapshots in memory (cards/recall/snapshots.py, memory.py) answers what the exact
route answers in SQL, on generated worlds, and never from a snapshot the database has moved past: a write,
a forgetting, a label's change, a planned value's day or a confirmation falling due."""

from __future__ import annotations

import datetime as dt
import random

import pytest
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext
from django.utils import timezone
from hypothesis import HealthCheck, given, settings as hypothesis_settings
from hypothesis import strategies as st

from cards.recall import snapshots
from cards.drafts import CardDraft
from cards.models import Card, CardAsked, CardKind, Entity, Label, Precision, Tag, TimeSource
from scopes.models import Scope
from cards.recall.routes import recall
from cards.services import card_remember, cards_forget
from cards.services.embedding import cards_embed_now
from tests.factories import card_vector, family_scope

DAY = dt.timedelta(days=1)
WORDS = ["tea", "chess", "kyoto", "garden", "piano", "river", "taipei", "soup"]
QUERIES = ["where does Mei live", "tea and chess", "the garden by the river", "piano lessons in kyoto", "soup"]
# Single-value and aging; single and never aging; single, aging and sensitive; multi-value; an event; knowledge.
LABELS = ("city", "birthday", "weight", "hobby", "meal", "note")


def _same(sql, memory) -> None:
    assert memory.memory and not sql.memory
    assert [r.card_id for r in memory.results] == [r.card_id for r in sql.results]
    # Each read counts Δt to its own now, and the second starts when the first has ended: later by what it
    # took (the cards without a vector embedded, a busy machine), more than the 1e-6 days (86 ms) the numbers
    # are compared within.
    later = (memory.at - sql.at).total_seconds() / DAY.total_seconds()
    for a, b in zip(sql.results, memory.results):
        assert (b.similarity, b.lexical) == pytest.approx((a.similarity, a.lexical), abs=1e-6)
        assert a.days - 1e-6 <= b.days <= a.days + later + 1e-6
        assert b.decay == pytest.approx(a.decay, abs=1e-6 + later)     # λ is well under 1 a day
        assert bool(a.named) == b.named and a.computed == b.computed
    assert [(a.card_id, a.asked_at, a.askable) for a in memory.aging] == \
        [(a.card_id, a.asked_at, a.askable) for a in sql.aging]
    assert [a.days for a in memory.aging] == pytest.approx([a.days for a in sql.aging])
    assert (memory.aging_askable, memory.contradictions_askable) == (sql.aging_askable, sql.contradictions_askable)
    assert memory.contradictions == sql.contradictions
    assert (memory.unembedded, memory.unanswered, memory.route) == (sql.unembedded, sql.unanswered, "exact")


def _world(alice, seed: int, size: int) -> list[int]:
    """Cards in three scopes, made as rows (every kind, tag and time a write could leave, and some no write
    path makes together), with vectors drawn from the seed, words from WORDS, some confirmed or stated in the
    future, some planned, some ended, some without a vector and some asked about."""
    rng = random.Random(seed)
    now = timezone.now()
    scopes = [alice.personal_scope, family_scope(owner=alice, name=f"Family {seed}"),
              family_scope(owner=alice, name=f"Team {seed}")]
    people = [alice.entity] + [Entity.objects.create(scope=scopes[i % 3], name=name, kind="person")
                               for i, name in enumerate(("Mei", "Kai", "Rin"))]
    labels = {label.key: label for label in Label.objects.filter(key__in=LABELS)}
    cards = []
    for _ in range(size):
        label = labels[rng.choice(LABELS)]
        effective = now - rng.choice([400, 200, 100, 30, 1, 0.001, -2]) * DAY
        ended = label.kind != CardKind.EVENT and rng.random() < 0.2
        dated = label.kind == CardKind.EVENT and rng.random() < 0.8
        cards.append(Card(
            scope=rng.choice(scopes), kind=label.kind, cardinality=label.cardinality, label=label,
            tag=rng.choice([Tag.FACT, Tag.FACT, Tag.FACT, Tag.HYPOTHESIS]), subject=rng.choice(people),
            object=rng.choice([None, None, None, *people]), value=rng.choice(["a", "b", "c"]), text="",
            effective_at=effective, recorded_at=effective,
            superseded_at=(now - rng.choice([300, 5, -3]) * DAY) if ended else None,
            verified_at=now - rng.choice([500, 190, 50, 0, -1]) * DAY,
            stated_at=sorted(now - d * DAY for d in rng.sample([250, 181, 20, 2, -4], rng.randint(0, 3))),
            occurred_at=effective if dated else None, precision=Precision.DAY if dated else "",
            time_source=TimeSource.STATED if dated else TimeSource.NONE,
            lexemes=rng.sample(WORDS, rng.randint(0, 3)),
            **card_vector(None if rng.random() < 0.1 else [rng.gauss(0, 1) for _ in range(384)])))
    held = set()
    for i, card in enumerate(cards):
        # One current value per scope, subject and label, and a value once (the database holds it): the
        # others ended, or an event's value made its own.
        key = (card.scope.pk, card.subject.pk, card.label.pk,
               None if card.cardinality == "single" and card.tag != Tag.HYPOTHESIS else card.value)
        if card.superseded_at is None and key in held:
            if card.kind == CardKind.EVENT:
                card.value = f"{card.value}{i}"
            else:
                card.superseded_at = now - 5 * DAY
        held.add(key)
        card.value_norm = card.value
    made = Card.objects.bulk_create(cards)
    for card in rng.sample(made, min(5, len(made))):
        CardAsked.objects.create(scope=card.scope, card=card, user=alice, asked_at=now - DAY,
                                 card_verified_at=card.verified_at if rng.random() < 0.7 else now - 9 * DAY)
    return [scope.pk for scope in scopes]


@hypothesis_settings(max_examples=12, deadline=None, derandomize=True,
                     suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(seed=st.integers(0, 10_000), size=st.integers(0, 120), k=st.sampled_from([1, 3, 10]))
def test_memory_answers_what_sql_answers(alice, seed, size, k):
    with pytest.raises(_Rollback), transaction.atomic():
        scopes = _world(alice, seed, size)
        for query in QUERIES:
            sql = recall(scope_ids=scopes, query=query, k=k, route="exact", asker_id=alice.pk)
            _same(sql, recall(scope_ids=scopes, query=query, k=k, asker_id=alice.pk))
        # Fewer scopes than the world's: the read takes its own.
        sql = recall(scope_ids=scopes[1:], query=QUERIES[0], k=k, route="exact", asker_id=alice.pk)
        _same(sql, recall(scope_ids=scopes[1:], query=QUERIES[0], k=k, asker_id=alice.pk))
        raise _Rollback


class _Rollback(Exception):
    pass


# Writes committed, as a request commits them: the snapshots are kept between reads only then (a transaction
# that wrote reads its own rows, and builds its snapshots for itself alone).
COMMITTED = pytest.mark.django_db(transaction=True, serialized_rollback=True)


def remember(scope, actor, value: str, label: str = "city", subject: str = "me", **fields) -> Card:
    return card_remember(scope=scope, actor=actor, draft=CardDraft(kind="state", label=label, subject=subject,
                                                                   value=value, **fields)).card


def found(scope, query: str = "where do I live"):
    return recall(scope_ids=[scope.pk], query=query, k=5)


def embedded() -> None:
    """Every card given its vector (writes here do not embed): scored from the snapshot, not on the fly."""
    cards_embed_now(card_ids=list(Card.objects.filter(embedding__isnull=True).values_list("pk", flat=True)))


@COMMITTED
def test_a_write_is_found_by_the_next_read(alice):
    scope = alice.personal_scope
    kyoto = remember(scope, alice, "Kyoto")
    embedded()
    first = found(scope)
    assert first.memory and [r.card_id for r in first.results] == [kyoto.pk]
    taipei = remember(scope, alice, "Taipei")   # supersedes Kyoto
    embedded()
    second = found(scope)
    assert second.memory and [r.card_id for r in second.results] == [taipei.pk]
    # A write by statement, not by service, all the same: the database logs it.
    with connection.cursor() as cursor:
        cursor.execute("UPDATE cards_card SET lexemes = '{lisbon}' WHERE id = %s", [taipei.pk])
    lisbon = found(scope, "lisbon")
    assert lisbon.memory and lisbon.results[0].lexical == pytest.approx(1.0)


@COMMITTED
def test_a_forgotten_card_is_never_recalled_again(alice):
    scope = alice.personal_scope
    kyoto = remember(scope, alice, "Kyoto")
    pottery = remember(scope, alice, "pottery", label="hobby")
    embedded()
    assert {r.card_id for r in found(scope, "Kyoto pottery").results} == {kyoto.pk, pottery.pk}
    cards_forget(cards={kyoto.pk: scope.pk}, actor=alice, scope_ids=[scope.pk])
    again = found(scope, "Kyoto pottery")
    assert again.memory and [r.card_id for r in again.results] == [pottery.pk]


@COMMITTED
def test_forgetting_drops_every_snapshot_the_process_keeps(alice):
    """DESIGN §4.9: a forgotten card's words and vector leave the caches at once. The next read of any
    scope, not only of the forgotten card's, finds none of it kept."""
    family = family_scope(owner=alice, name="Family")
    kyoto = remember(alice.personal_scope, alice, "Kyoto")
    remember(family, alice, "pottery", label="hobby")
    embedded()
    assert found(alice.personal_scope).memory and found(family, "pottery").memory
    assert any(kyoto.pk in s.ids for s in snapshots.MEMORY._kept.values())
    cards_forget(cards={kyoto.pk: alice.personal_scope.pk}, actor=alice, scope_ids=[alice.personal_scope.pk])
    assert found(family, "pottery").memory
    assert not any(kyoto.pk in s.ids for s in snapshots.MEMORY._kept.values())


@COMMITTED
def test_a_labels_change_reaches_every_snapshot(alice):
    scope = alice.personal_scope
    remember(scope, alice, "Kyoto", reference_time=timezone.now() - 50 * DAY)
    embedded()
    first = found(scope)
    assert first.memory and snapshots.MEMORY.nbytes
    before = first.results[0].decay
    Label.objects.filter(key="city").update(decay_lambda=0.1)
    after = found(scope)
    assert after.memory and after.results[0].decay == pytest.approx(before ** 5, rel=1e-3)


@COMMITTED
def test_a_planned_value_comes_in_on_its_day_and_a_confirmation_when_due(alice, monkeypatch):
    scope = alice.personal_scope
    now = timezone.now()
    kyoto = remember(scope, alice, "Kyoto", reference_time=now - 30 * DAY)
    Card.objects.filter(pk=kyoto.pk).update(verified_at=now + 2 * DAY)
    osaka = Card.objects.get(pk=remember(scope, alice, "Osaka", label="hobby").pk)
    Card.objects.filter(pk=osaka.pk).update(effective_at=now + DAY)
    embedded()
    today = found(scope, "Kyoto Osaka")
    assert today.memory and [r.card_id for r in today.results] == [kyoto.pk]
    assert today.results[0].days == pytest.approx(30, abs=0.01)
    monkeypatch.setattr(timezone, "now", lambda: now + 3 * DAY)
    later = found(scope, "Kyoto Osaka")
    sql = recall(scope_ids=[scope.pk], query="Kyoto Osaka", k=5, route="exact")
    assert later.memory and {r.card_id for r in later.results} == {kyoto.pk, osaka.pk}
    _same(sql, later)
    assert next(r for r in later.results if r.card_id == kyoto.pk).days == pytest.approx(1, abs=0.01)


@COMMITTED
def test_questions_asked_are_read_every_time(alice):
    scope = alice.personal_scope
    old = remember(scope, alice, "Kyoto", reference_time=timezone.now() - 400 * DAY)
    embedded()
    assert [(a.card_id, a.askable) for a in found(scope).aging] == [(old.pk, True)]
    CardAsked.objects.create(scope=scope, card=old, user=alice, asked_at=timezone.now(),
                             card_verified_at=old.verified_at)
    asked = recall(scope_ids=[scope.pk], query="where do I live", asker_id=alice.pk)
    assert asked.memory and [(a.card_id, a.askable) for a in asked.aging] == [(old.pk, False)]


def test_off_too_large_unlogged_and_unembedded(alice, settings, monkeypatch):
    scope = alice.personal_scope
    remember(scope, alice, "Kyoto")
    assert found(scope).memory and found(scope).unembedded == {"scored": 1, "left_out": False}
    cards_embed_now(card_ids=list(Card.objects.values_list("pk", flat=True)))
    assert found(scope).memory and found(scope).unembedded == {"scored": 0, "left_out": False}
    assert not recall(scope_ids=[scope.pk], query="where do I live", as_of=timezone.now()).memory
    settings.RECALL_MEMORY_MB = 1
    monkeypatch.setattr(snapshots, "BYTES_PER_CARD", 2 * 1024 * 1024)   # a card above the whole limit
    assert not found(scope).memory
    with CaptureQueriesContext(connection) as statements:
        assert not found(scope).memory     # known too large: not counted again
    assert not [q for q in statements.captured_queries if "count(*) FROM (SELECT 1 FROM cards_card" in q["sql"]]
    monkeypatch.undo()
    settings.RECALL_MEMORY_MB = 0
    assert not found(scope).memory


@COMMITTED
def test_memory_answers_what_sql_answers_from_kept_and_rebuilt_snapshots(alice):
    """Committed, so the snapshots are kept: the first read builds them, the second uses them all, the third
    uses two and rebuilds the one a write changed."""
    scopes = _world(alice, 7, 90)
    snapshots.MEMORY.clear()
    mei = Entity.objects.get(name="Mei")
    for step in range(3):
        if step == 2:
            remember(Scope.objects.get(pk=scopes[1]), alice, "tea garden", label="hobby", subject="Mei")
            embedded()
        for query in QUERIES[:3]:
            sql = recall(scope_ids=scopes, query=query, k=5, route="exact", asker_id=alice.pk)
            _same(sql, recall(scope_ids=scopes, query=query, k=5, asker_id=alice.pk))
    assert mei.pk and len(snapshots.MEMORY._kept) >= 3


@COMMITTED
def test_a_log_disabled_then_enabled_again_trusts_nothing_from_before(alice):
    scope = alice.personal_scope
    kyoto = remember(scope, alice, "Kyoto")
    embedded()
    assert found(scope).memory
    with connection.cursor() as cursor:
        cursor.execute("ALTER TABLE cards_card DISABLE TRIGGER cards_scope_changed_update")
        try:
            cursor.execute("UPDATE cards_card SET lexemes = '{lisbon}' WHERE id = %s", [kyoto.pk])   # not logged
            assert not found(scope).memory
        finally:
            cursor.execute("ALTER TABLE cards_card ENABLE TRIGGER cards_scope_changed_update")
    again = found(scope, "lisbon")
    assert again.memory and again.results[0].lexical == pytest.approx(1.0)


def test_while_the_log_is_not_kept_no_snapshot_is_trusted(alice):
    scope = alice.personal_scope
    with connection.cursor() as cursor:     # before any card is written: nothing pending on the table
        cursor.execute("ALTER TABLE cards_card DISABLE TRIGGER cards_scope_changed_update")
    remember(scope, alice, "Kyoto")
    assert not found(scope).memory
    assert recall(scope_ids=[scope.pk], query="where do I live", route="exact").results


@COMMITTED
def test_a_kept_snapshot_costs_one_statement_and_a_writing_transaction_keeps_none(alice):
    scope = alice.personal_scope
    kyoto = remember(scope, alice, "Kyoto")
    snapshots.MEMORY.clear()
    assert found(scope).memory and snapshots.MEMORY.nbytes
    with CaptureQueriesContext(connection) as statements:
        again = found(scope)
    assert again.memory and [r.card_id for r in again.results] == [kyoto.pk]
    assert len(statements) == 2     # the log, names and questions; the unembedded card's own scoring
    kept = snapshots.MEMORY.nbytes
    with pytest.raises(_Rollback), transaction.atomic():
        osaka = remember(scope, alice, "Osaka")
        inside = found(scope)
        assert inside.memory and [r.card_id for r in inside.results] == [osaka.pk]
        raise _Rollback
    assert snapshots.MEMORY.nbytes == kept      # what the rolled-back transaction saw was never kept
    after = found(scope)
    assert after.memory and [r.card_id for r in after.results] == [kyoto.pk]


def _log(scope_id: int) -> tuple:
    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*), sum(weight) FROM cards_scopechange WHERE scope_id = %s", [scope_id])
        return cursor.fetchone()


@COMMITTED
def test_every_write_is_logged_and_folding_keeps_the_sum(alice):
    scope = alice.personal_scope
    start = _log(scope.pk)[0]
    for value in ("Kyoto", "Osaka", "Nara"):
        remember(scope, alice, value)
    rows, total = _log(scope.pk)
    assert rows > start and total == rows
    assert found(scope).memory
    assert snapshots.scope_log_fold(above=1) >= rows
    assert _log(scope.pk) == (1, total)
    # The newest id moved: the snapshot is rebuilt once, and answers as before.
    again = found(scope)
    assert again.memory and again.results[0].card_id == Card.objects.get(value="Nara").pk
    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM cards_scopechange WHERE scope_id = 0")
        labels = cursor.fetchone()[0]
        Label.objects.filter(key="city").update(description="Where someone lives")
        cursor.execute("SELECT count(*) FROM cards_scopechange WHERE scope_id = 0")
        assert cursor.fetchone()[0] == labels + 1
