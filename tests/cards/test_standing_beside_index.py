"""The reads of what stands beside a timeline (tags_settle after every fact, the batch's
one read, card_remember's beside check) state the predicate of the partial index
card_standing_beside, so PostgreSQL can prove the index usable whatever its statistics.
The rule is written once in SQL (tags.standing_beside_sql) and once as the model's index:
this holds the two to one meaning, as PostgreSQL normalises them."""

import pytest
from django.db import connection, transaction

from cards.services.tags import standing_beside_sql

pytestmark = pytest.mark.django_db


def _predicate(cursor, index: str) -> str:
    cursor.execute("SELECT pg_get_expr(i.indpred, i.indrelid) FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid"
                   " WHERE c.relname = %s", [index])
    return cursor.fetchone()[0]


def test_the_sql_and_the_index_say_the_same():
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("CREATE INDEX written_beside ON cards_card (scope_id, subject_id, label_id)"
                       f" WHERE {standing_beside_sql('cards_card')}")
        written = _predicate(cursor, "written_beside")
        transaction.set_rollback(True)
    with connection.cursor() as cursor:
        declared = _predicate(cursor, "card_standing_beside")
    assert declared and written == declared
