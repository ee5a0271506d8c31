"""`manage.py cards_cluster`: the table rewritten in scope order, every card and
index kept (the HNSW graph answers as before)."""

from __future__ import annotations

import pytest
from django.core.management import CommandError, call_command
from django.db import connection

from cards.drafts import CardDraft
from cards.models import Card
from cards.recall.routes import recall
from cards.services import card_remember
from core.citus import is_distributed
from tests.builtin_rows import builtin_rows_restore
from tests.factories import family_scope

pytestmark = pytest.mark.django_db(transaction=True)


def _pages_by_scope(scope_ids: list[int]) -> list[int]:
    """The scopes of these scopes' cards, in the order they lie in the table."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT scope_id FROM cards_card WHERE scope_id = ANY(%s) ORDER BY ctid", [scope_ids])
        return [row[0] for row in cursor.fetchall()]


def test_the_cards_of_a_scope_end_up_together(alice, t0):
    builtin_rows_restore()  # a transactional test: the labels may have gone with an earlier one's flush
    home = family_scope(owner=alice, name="Home")
    for i in range(6):  # written interleaved, as tenants write
        for scope in (alice.personal_scope, home):
            card_remember(scope=scope, actor=alice, draft=CardDraft(
                kind="state", label="skill", subject="me", value=f"skill {scope.pk}-{i}", reference_time=t0))
    ours = [alice.personal_scope.pk, home.pk]
    before = _pages_by_scope(ours)
    assert sum(a != b for a, b in zip(before, before[1:])) > 2
    found_before = [r.card_id for r in recall(scope_ids=[home.pk], query="skill", route="index").results]

    call_command("cards_cluster", maintenance_work_mem="64MB", stdout=open("/dev/null", "w"))

    after = _pages_by_scope(ours)
    assert sum(a != b for a, b in zip(after, after[1:])) == 1 and sorted(after) == sorted(before)
    assert Card.objects.filter(scope_id__in=ours).count() == 12
    assert [r.card_id for r in recall(scope_ids=[home.pk], query="skill", route="index").results] == found_before
    # Vacuumed, not only analysed: the rewrite emptied the visibility map, which index-only scans need.
    with connection.cursor() as cursor:
        cursor.execute("SELECT relpages, relallvisible FROM pg_class WHERE relname = 'cards_card'")
        pages, visible = cursor.fetchone()
    assert pages > 0 and visible == pages


def test_a_size_that_is_not_one_is_refused():
    with pytest.raises(CommandError):
        call_command("cards_cluster", maintenance_work_mem="1GB; DROP TABLE cards_card")


def test_on_a_citus_coordinator_it_refuses_before_it_rewrites_anything():
    """On one PostgreSQL too: a temporary table named as Citus's catalogue (found before any other) says the
    cards are distributed, and the command refuses with a message, not a CLUSTER of an empty shell."""
    with connection.cursor() as cursor:
        cursor.execute("CREATE TEMP TABLE pg_dist_partition (logicalrelid regclass, partmethod \"char\","
                       " repmodel \"char\")")
        try:
            cursor.execute("INSERT INTO pg_dist_partition VALUES ('cards_card', 'h', 's'), ('cards_label', 'n', 't')")
            assert is_distributed(cursor, "cards_card") and not is_distributed(cursor, "cards_label")
            with pytest.raises(CommandError, match="distributed over a Citus cluster"):
                call_command("cards_cluster", maintenance_work_mem="64MB")
        finally:
            cursor.execute("DROP TABLE IF EXISTS pg_temp.pg_dist_partition")
