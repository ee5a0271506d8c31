"""SQL for keys that include scope_id, for migrations (docs/distributed.md).

Citus distributes a table by scope_id only if its primary key and every unique key include scope_id, and a
foreign key between two distributed tables only if it goes through scope_id on both sides. The same keys
hold on plain PostgreSQL (one schema for both): Django keeps `id` as a model's primary key (ids stay unique,
from the table's identity), while the database's primary key is (id, scope_id), and a foreign key to such a
table is declared with `db_constraint=False` and enforced here as (x_id, scope_id) → (id, scope_id), which
also says the referenced row lives in the same scope. The name `<table>_pkey` is kept, so Django's schema
editor still finds the primary key it may alter."""

from __future__ import annotations

DEFERRED = "DEFERRABLE INITIALLY DEFERRED"   # as Django declares its own foreign keys


def scope_primary_key(table: str) -> tuple[list[str], list[str]]:
    """(forward, reverse) statements: the table's primary key becomes (id, scope_id). One subcommand per
    statement: Citus refuses an ADD CONSTRAINT beside others, and sends a table's DDL on to the workers
    one statement at a time, once the table is in its metadata."""
    return ([f"ALTER TABLE {table} DROP CONSTRAINT {table}_pkey",
             f"ALTER TABLE {table} ADD CONSTRAINT {table}_pkey PRIMARY KEY (id, scope_id)"],
            [f"ALTER TABLE {table} DROP CONSTRAINT {table}_pkey",
             f"ALTER TABLE {table} ADD CONSTRAINT {table}_pkey PRIMARY KEY (id)"])


def scope_foreign_key(table: str, column: str, target: str) -> tuple[list[str], list[str]]:
    """(forward, reverse) statements: `table.column` references `target` within the row's own scope. No ON DELETE
    action: the application does SET_NULL or CASCADE itself (a forgotten card's rows by their scope:
    cards/services/forget_rows.py), and Citus refuses a SET NULL on a key that
    holds the distribution column. A null `column` is not checked (MATCH SIMPLE)."""
    name = f"{table}_{column}_in_scope"
    return ([f"ALTER TABLE {table} ADD CONSTRAINT {name} FOREIGN KEY ({column}, scope_id) "
             f"REFERENCES {target} (id, scope_id) {DEFERRED}"],
            [f"ALTER TABLE {table} DROP CONSTRAINT IF EXISTS {name}"])
