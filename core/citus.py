"""Whether a table is spread over a Citus cluster: the few places that act on one server's copy of a table
(a CLUSTER rewrite, a size read from the table itself) ask before they act."""

from __future__ import annotations


def is_distributed(cursor, table: str) -> bool:
    """True when `table` is a Citus distributed table (its rows live in shards on the workers). False on
    plain PostgreSQL, where Citus's catalogue does not exist."""
    cursor.execute("SELECT to_regclass('pg_dist_partition') IS NOT NULL")
    if not cursor.fetchone()[0]:
        return False
    cursor.execute("SELECT 1 FROM pg_dist_partition WHERE logicalrelid = %s::regclass AND partmethod = 'h'",
                   [table])
    return cursor.fetchone() is not None
