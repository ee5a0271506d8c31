"""Reads that route (issue 26 §4), on a Citus cluster only (`make test-distributed`; deselected from
`make test`, which runs on one PostgreSQL): a household read reaches only the shards that hold the
scopes it sees. Every statement recall sends, shaping included, is EXPLAINed; no task count may
exceed the number of shards holding those scopes."""

from __future__ import annotations

import re

import pytest
from django.db import connection

from cards.drafts import CardDraft
from cards.selectors.recall import recall_body
from cards.services import card_remember, card_remember_batch
from scopes.principals import Principal
from scopes.selectors import read_scope_ids
from scopes.services import membership_set
from tests.factories import UserFactory, family_scope

# Committed as the site commits, not inside one test transaction: after writing reference rows locally
# (a new user, a scope) a transaction on the coordinator may not fan a read out to its own node again.
pytestmark = [pytest.mark.cluster, pytest.mark.django_db(transaction=True, serialized_rollback=True)]


@pytest.fixture(autouse=True)
def _on_a_coordinator(transactional_db):
    # `-m cluster` on one PostgreSQL has no shards to count: said plainly instead of an empty plan's assertion.
    from memory_site.distribution import citus_coordinator

    with connection.cursor() as cursor:
        assert citus_coordinator(cursor), "tests/test_routing.py needs a Citus coordinator: make test-distributed"


def _shards(scope_ids: list[int]) -> int:
    with connection.cursor() as cursor:
        cursor.execute("SELECT count(DISTINCT get_shard_id_for_distribution_column('cards_card', s))"
                       " FROM unnest(%s::int[]) AS s", [scope_ids])
        return cursor.fetchone()[0]


def _task_counts(principal: Principal, scope_id: int) -> list[list[int]]:
    sent = []

    def keep(execute, sql, params, many, context):
        sent.append((sql, params))
        return execute(sql, params, many, context)

    with connection.execute_wrapper(keep):
        recall_body(principal, scope_id=scope_id, query="where does Dana live", k=10, when=None, tz=None,
                    as_of=None)
    counts = []
    with connection.cursor() as cursor:
        for sql, params in sent:
            if sql.lstrip().upper().startswith(("SELECT", "WITH")):
                cursor.execute("EXPLAIN " + sql, params)
                plan = "\n".join(row[0] for row in cursor.fetchall())
                counts.append([int(n) for n in re.findall(r"Task Count: (\d+)", plan)])
    return counts


@pytest.fixture
def household(transactional_db):
    dana, sam = UserFactory(username="dana", display_name="Dana"), UserFactory(username="sam")
    family = family_scope(owner=dana)
    membership_set(scope=family, user=sam, role="member")
    for scope, actor, label, value in ((family, dana, "city", "Porto"), (dana.personal_scope, dana, "hobby", "chess"),
                                       (family, sam, "employer", "Harbor"), (sam.personal_scope, sam, "city", "Lyon")):
        card_remember(scope=scope, actor=actor, draft=CardDraft(kind="state", subject="me", label=label, value=value))
    return {"dana": dana, "family": family}


def test_a_household_read_reaches_only_the_shards_of_its_scopes(household):
    principal = Principal(household["dana"])
    scopes = read_scope_ids(principal=principal, scope_id=household["family"].pk)
    counts = _task_counts(principal, household["family"].pk)
    reached = [n for statement in counts for n in statement]
    assert reached and max(reached) == _shards(scopes), counts


def test_a_read_of_one_scope_reaches_one_shard(household):
    dana = household["dana"]
    counts = _task_counts(Principal(dana), dana.personal_scope.pk)
    scopes = read_scope_ids(principal=Principal(dana), scope_id=dana.personal_scope.pk)
    assert max(n for statement in counts for n in statement) == _shards(scopes), counts


def test_a_batch_updates_only_the_shards_of_its_cards(household):
    """The batch's read and UPDATEs join a list of rows, which Citus does not prune by: they name their scopes
    as constants too (32 tasks without that, measured). Closing a value and reinforcing one, each an UPDATE
    of one scope; the read of both scopes' timelines reaches their shards only."""
    dana, family = household["dana"], household["family"]
    items = [(family, CardDraft(kind="state", subject="me", label="city", value="Braga")),
             (dana.personal_scope, CardDraft(kind="state", subject="me", label="hobby", value="chess"))]
    sent = []

    def keep(execute, sql, params, many, context):
        sent.append((sql, params))
        return execute(sql, params, many, context)

    with connection.execute_wrapper(keep):
        outcomes = card_remember_batch(actor=dana, items=items)
    assert sorted(o.outcome for o in outcomes) == ["reinforced", "superseded"]
    updates = [(sql, params) for sql, params in sent if sql.lstrip().upper().startswith("UPDATE CARDS_CARD")
               or "SELECT DISTINCT ON (c.scope_id, c.subject_id, c.label_id)" in sql]    # and the batch's read
    # Reading the timelines, closing and reinforcing, and embedding the new card when the site embeds on
    # write. The read spans both scopes: its parts each reach one shard at most, as each is about one scope.
    assert len(updates) >= 3, [sql for sql, _ in sent]
    with connection.cursor() as cursor:
        for sql, params in updates:
            cursor.execute("EXPLAIN " + sql, params)
            plan = "\n".join(row[0] for row in cursor.fetchall())
            counts = [int(n) for n in re.findall(r"Task Count: (\d+)", plan)]
            allowed = 1 if sql.lstrip().upper().startswith("UPDATE") else _shards([family.pk, dana.personal_scope.pk])
            assert counts and max(counts) <= allowed, (sql, plan)
