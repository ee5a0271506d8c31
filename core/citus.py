"""Citus's catalogue of tables, read: whether it is there and how each table is spread. The few places that
act on one server's copy of a table (a CLUSTER rewrite, a size read from the table itself) ask before they
act; `manage.py distribute` plans from it (whether this node is the coordinator, it asks in
memory_site/distribution.py)."""

from __future__ import annotations


def citus_present(cursor) -> bool:
    """True when Citus's catalogue exists here (a coordinator or a worker); False on plain PostgreSQL."""
    cursor.execute("SELECT to_regclass('pg_dist_partition') IS NOT NULL")
    return cursor.fetchone()[0]


def table_kinds(cursor) -> dict[str, str]:
    """Each table Citus knows: "distributed", "reference" or "citus-local" (a local table Citus added to its
    metadata by itself, because a foreign key ties it to a reference table)."""
    cursor.execute("SELECT logicalrelid::regclass::text, partmethod, repmodel FROM pg_dist_partition")
    kinds = {}
    for table, method, replication in cursor.fetchall():
        kinds[table] = ("distributed" if method == "h" else "reference" if replication == "t" else "citus-local")
    return kinds


def is_distributed(cursor, table: str) -> bool:
    """True when `table` is a Citus distributed table (its rows live in shards on the workers). Compared as a
    regclass, so a table outside the search path is found too."""
    if not citus_present(cursor):
        return False
    cursor.execute("SELECT 1 FROM pg_dist_partition WHERE logicalrelid = %s::regclass AND partmethod = 'h'", [table])
    return cursor.fetchone() is not None
