"""The schema stays distributable by scope, held on one PostgreSQL (DESIGN §1, docs/distributed.md): every
table of the database has one place — distributed by scope_id, replicated (reference) or kept on the
coordinator (local) — the one docs/distributed.md gives it; and every distributed table carries scope_id in
its primary key, in every unique key and in every foreign key to another distributed table, which is what
Citus needs to take it. The planted tests show each check naming what it is there to catch."""

from __future__ import annotations

import fnmatch
import re
from pathlib import Path

import pytest
from django.apps import apps
from django.db import connection

from memory_site.distribution import DISTRIBUTED, LOCAL, blockers, reference_tables

pytestmark = pytest.mark.django_db

DOC = Path(__file__).resolve().parents[2] / "docs" / "distributed.md"
PLACES = ("distributed", "reference", "local")


def database_tables() -> set[str]:
    """Every table of the site's database (what migrations made, models or not)."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT c.relname FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace"
                       " WHERE n.nspname = current_schema() AND c.relkind IN ('r', 'p')")
        return {row[0] for row in cursor.fetchall()}


def places_in_code() -> dict[str, set[str]]:
    return {"distributed": set(DISTRIBUTED), "reference": set(reference_tables()), "local": set(LOCAL)}


def places_in_doc(tables: set[str]) -> dict[str, set[str]]:
    """docs/distributed.md's "Where each table goes": each row's place and its names in backquotes, a name
    ending in * standing for every table it begins; "(the rest)" after one stands for the tables it begins
    that no other row names."""
    rows = []
    for line in DOC.read_text().splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) == 3 and cells[0] in PLACES:
            rows.append((cells[0], cells[1]))
    assert rows, "docs/distributed.md has no table of places"
    named = {place: set() for place in PLACES}
    rest = []
    for place, cell in rows:
        for pattern, the_rest in re.findall(r"`([a-z0-9_*]+)`( \(the rest\))?", cell):
            if the_rest:
                rest.append((place, pattern))
            else:
                named[place] |= set(fnmatch.filter(tables, pattern))
    for place, pattern in rest:
        named[place] |= set(fnmatch.filter(tables, pattern)) - set().union(*named.values())
    return named


def test_every_table_of_the_database_has_exactly_one_place():
    tables = database_tables()
    code = places_in_code()
    model_tables = {m._meta.db_table for m in apps.get_models(include_auto_created=True)}
    assert model_tables <= tables
    placed = [table for place in PLACES for table in code[place]]
    assert sorted(placed) == sorted(set(placed)), "a table in two places"
    assert tables - set(placed) == set(), "tables of the database with no place (memory_site/distribution.py)"
    assert set(placed) - tables == set(), "places for tables the database does not have"


def test_docs_distributed_md_places_every_table_where_the_code_does():
    tables = database_tables()
    doc, code = places_in_doc(tables), places_in_code()
    for place in PLACES:
        assert doc[place] == code[place], (place, "only in the page:", doc[place] - code[place],
                                           "only in the code:", code[place] - doc[place])


def test_every_table_holding_a_scope_is_distributed_or_named_in_the_page():
    """A model with a scope_id column is distributed unless docs/distributed.md names it (not by a *) in the
    place it has: a new scoped model does not land among the reference tables unnoticed."""
    scoped = {m._meta.db_table for m in apps.get_models(include_auto_created=True)
              if any(f.column == "scope_id" for f in m._meta.concrete_fields)}
    by_name = {name for line in DOC.read_text().splitlines() if line.startswith(("| reference |", "| local |"))
               for name in re.findall(r"`([a-z0-9_]+)`", line)}
    assert scoped - set(DISTRIBUTED) - by_name == set()


def test_each_distributed_table_is_keyed_by_id_and_scope():
    with connection.cursor() as cursor:
        cursor.execute("""SELECT c.conrelid::regclass::text,
                                 array(SELECT a.attname::text FROM unnest(c.conkey) k(n)
                                        JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k.n)
                            FROM pg_constraint c WHERE c.contype = 'p' AND c.conrelid::regclass::text = ANY(%s)""",
                       [list(DISTRIBUTED)])
        keys = {table: set(columns) for table, columns in cursor.fetchall()}
    assert keys == {table: {"id", "scope_id"} for table in DISTRIBUTED}


def test_no_key_of_a_distributed_table_lacks_its_scope():
    with connection.cursor() as cursor:
        assert blockers(cursor) == []


# --- plants: each check fails on what it is there to catch (rolled back with the test) -----------------

def test_a_planted_unique_key_without_scope_is_named():
    with connection.cursor() as cursor:
        cursor.execute("CREATE UNIQUE INDEX zz_plant_revision_once ON cards_cardrevision (card_id, at)")
        assert blockers(cursor) == ["cards_cardrevision: unique index zz_plant_revision_once (card_id, at) "
                                    "lacks scope_id"]


def test_a_planted_primary_key_without_scope_is_named():
    with connection.cursor() as cursor:
        cursor.execute("ALTER TABLE cards_cardasked DROP CONSTRAINT cards_cardasked_pkey CASCADE")
        cursor.execute("ALTER TABLE cards_cardasked ADD CONSTRAINT cards_cardasked_pkey PRIMARY KEY (id)")
        assert "cards_cardasked: primary key cards_cardasked_pkey (id) lacks scope_id" in blockers(cursor)


def test_a_planted_foreign_key_by_id_alone_between_distributed_tables_is_named():
    with connection.cursor() as cursor:
        cursor.execute("CREATE UNIQUE INDEX zz_plant_card_id ON cards_card (id)")
        cursor.execute("ALTER TABLE cards_cardrevision ADD CONSTRAINT zz_plant_card FOREIGN KEY (card_id)"
                       " REFERENCES cards_card (id)")
        found = blockers(cursor)
    assert "cards_card: unique index zz_plant_card_id (id) lacks scope_id" in found
    assert "cards_cardrevision: foreign key zz_plant_card (card_id) → cards_card does not go through scope_id" in found


def test_a_planted_key_from_a_replicated_table_into_a_distributed_one_is_named():
    with connection.cursor() as cursor:
        cursor.execute("ALTER TABLE scopes_membership ADD COLUMN zz_card_id bigint")
        cursor.execute("ALTER TABLE scopes_membership ADD CONSTRAINT zz_plant_pinned FOREIGN KEY (zz_card_id,"
                       " scope_id) REFERENCES cards_card (id, scope_id)")
        assert blockers(cursor) == ["scopes_membership: foreign key zz_plant_pinned → cards_card: only a "
                                    "distributed table may reference a distributed one"]


def test_a_planted_table_with_no_place_is_found():
    with connection.cursor() as cursor:
        cursor.execute("CREATE TABLE zz_plant_notes (id int PRIMARY KEY, scope_id int)")
    with pytest.raises(AssertionError, match="with no place"):
        test_every_table_of_the_database_has_exactly_one_place()


def test_a_table_the_page_puts_elsewhere_is_found(monkeypatch):
    monkeypatch.setattr("tests.memory_site.test_catalogue_distributable.DISTRIBUTED",
                        tuple(t for t in DISTRIBUTED if t != "review_signal"))
    with pytest.raises(AssertionError, match="review_signal"):
        test_docs_distributed_md_places_every_table_where_the_code_does()
