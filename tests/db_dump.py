"""The whole test database as text, from a separate connection: what is at rest.

A test that reads it must commit its rows (`django_db(transaction=True)`, with
`serialized_rollback=True` so the migrated rows come back for the tests after)."""

from __future__ import annotations

import subprocess
import warnings

from django.db import connection


def pg_dump(*, data_only: bool = False) -> tuple[str, str]:
    """The database as SQL text (pg_dump from the embedded server's wheel), and how it was taken."""
    from pgserver._commands import POSTGRES_BIN_PATH

    db = connection.settings_dict
    command = [str(POSTGRES_BIN_PATH / "pg_dump"), "--no-password", "--host", db["HOST"],
               "--username", db["USER"] or "postgres", "--dbname", db["NAME"]]
    if data_only:
        command.append("--data-only")
    if db.get("PORT"):
        command += ["--port", str(db["PORT"])]
    env = {"PGPASSWORD": db["PASSWORD"]} if db.get("PASSWORD") else {}
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=120, check=True,
                              env={"PATH": "/usr/bin:/bin", **env})
        return done.stdout, "pg_dump"
    except (OSError, subprocess.SubprocessError) as failure:
        warnings.warn(f"pg_dump could not be used ({failure}); dumping every table with row_to_json instead")
        return sql_dump(), "row_to_json"


def sql_dump() -> str:
    lines = []
    with connection.cursor() as cursor:
        for table in connection.introspection.table_names(cursor):
            cursor.execute(f"SELECT row_to_json(t)::text FROM {connection.ops.quote_name(table)} t")
            lines += [f"{table}: {row[0]}" for row in cursor.fetchall()]
    return "\n".join(lines)
