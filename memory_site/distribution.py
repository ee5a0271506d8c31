"""Which tables a Citus cluster distributes by scope, which it replicates, and what still stops it
(docs/distributed.md says why each table is where it is). `manage.py distribute` runs it.

Everything here reads the catalogue, so the same checks answer on plain PostgreSQL (where nothing is
distributed and only `blockers` means anything) and on a coordinator."""

from __future__ import annotations

import logging
from dataclasses import dataclass, field

from django.apps import apps
from django.db import DatabaseError, transaction

from cards.recall.snapshots import LOG_TRIGGERS
from core.citus import citus_present, table_kinds

log = logging.getLogger(__name__)

DISTRIBUTION_COLUMN = "scope_id"

# Rows that live in a scope, colocated by scope_id: a read of a household's scopes reaches only their shards.
# Entities and their aliases are not among them: they are replicated (docs/distributed.md, "The person
# entity"), so a card's subject in another scope — a member's own entity, a team's "Kettle" — is a local
# join on every node, and the keys into them are keys to a reference table, which Citus keeps.
DISTRIBUTED = (
    "cards_card", "cards_cardrevision", "cards_cardperspective", "cards_cardasked", "cards_possibleduplicate",
    "review_ingestjob", "review_candidate", "review_decision", "review_probe", "review_signal",
    "review_upkeeprun", "review_upkeepproposal",
)

# Never joined with a distributed table, read by the coordinator alone: they stay on it. The audit log is
# written rarely and read by the admin; its events keep no content and may outlive their scope (scope_id
# null), which a distributed row could not. Tied to the reference tables by foreign keys, Citus makes it a
# Citus-local table by itself.
# Two tables no model holds stay with them: Django's record of migrations, and one server's log of changed
# scopes for recall's snapshots (cards migration 0029), which nothing writes on Citus.
LOCAL = ("django_session", "axes_accessattempt", "axes_accessattemptexpiration", "axes_accessfailurelog",
         "axes_accesslog", "cards_auditevent", "django_migrations", "cards_scopechange")


def reference_tables() -> list[str]:
    """Every other table of the installed models (users, the ladder and its grants, labels, rules, tokens,
    OAuth, content types): small, read on every request, replicated to every node."""
    tables = {model._meta.db_table for model in apps.get_models(include_auto_created=True)}
    return sorted(tables - set(DISTRIBUTED) - set(LOCAL))


# --- what the cluster holds now --------------------------------------------------------------------

def citus_coordinator(cursor) -> bool:
    """True on a Citus coordinator (the node whose group is 0); a worker or plain PostgreSQL is not one."""
    if not citus_present(cursor):
        return False
    cursor.execute("SELECT groupid = 0 FROM pg_dist_local_group")
    row = cursor.fetchone()
    return bool(row and row[0])


@dataclass
class Plan:
    reference: list[str] = field(default_factory=list)     # still to replicate
    distributed: list[str] = field(default_factory=list)   # still to distribute, parents first
    already: list[str] = field(default_factory=list)       # "<table>: <kind>" already as wanted
    wrong: list[str] = field(default_factory=list)         # distributed the other way: never changed here


def plan(kinds: dict[str, str], reference: list[str], distributed: list[str]) -> Plan:
    """What is left to do, from what the cluster holds: running it twice does nothing the second time."""
    result = Plan()
    for table, wanted, todo in [*((t, "reference", result.reference) for t in reference),
                                *((t, "distributed", result.distributed) for t in distributed)]:
        kind = kinds.get(table)
        if kind == wanted:
            result.already.append(f"{table}: {kind}")
        elif kind in (None, "citus-local"):
            todo.append(table)
        else:
            result.wrong.append(f"{table}: {kind}, wanted {wanted}")
    return result


def parents_first(tables: list[str], edges: list[tuple[str, str]]) -> list[str]:
    """`tables` ordered so that a table comes after those it references (a self-reference is no edge):
    Citus distributes a referencing table only once what it references is distributed."""
    pending, ordered = list(tables), []
    while pending:
        ready = [t for t in pending if not any(src == t and dst in pending and dst != t for src, dst in edges)]
        if not ready:   # a cycle between tables: the rest in the order given; Citus names the problem
            ready = pending[:1]
        for table in ready:
            pending.remove(table)
            ordered.append(table)
    return ordered


# --- what stops Citus -------------------------------------------------------------------------------

_KEYS_SQL = """
SELECT c.conrelid::regclass::text, c.conname, c.contype,
       array(SELECT a.attname::text FROM unnest(c.conkey) WITH ORDINALITY k(n, i)
             JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k.n ORDER BY k.i)
  FROM pg_constraint c
 WHERE c.contype IN ('p', 'u', 'x') AND c.conrelid::regclass::text = ANY(%s)
UNION ALL
SELECT i.indrelid::regclass::text, i.indexrelid::regclass::text, 'i',
       array(SELECT a.attname::text FROM unnest(i.indkey::int2[]) WITH ORDINALITY k(n, o)
             JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = k.n ORDER BY k.o)
  FROM pg_index i
 WHERE i.indisunique AND i.indrelid::regclass::text = ANY(%s)
   -- an index behind a key of its own table is listed above; a foreign key into it names it too (conindid)
   AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conindid = i.indexrelid AND c.conrelid = i.indrelid
                                                   AND c.contype IN ('p', 'u', 'x'))
"""

_FOREIGN_KEYS_SQL = """
SELECT c.conrelid::regclass::text, c.conname, c.confrelid::regclass::text, c.confdeltype,
       array(SELECT a.attname::text FROM unnest(c.conkey) WITH ORDINALITY k(n, i)
             JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = k.n ORDER BY k.i),
       array(SELECT a.attname::text FROM unnest(c.confkey) WITH ORDINALITY k(n, i)
             JOIN pg_attribute a ON a.attrelid = c.confrelid AND a.attnum = k.n ORDER BY k.i),
       pg_get_constraintdef(c.oid)
  FROM pg_constraint c
 WHERE c.contype = 'f' AND (c.conrelid::regclass::text = ANY(%s) OR c.confrelid::regclass::text = ANY(%s))
"""

_KEY_WORDS = {"p": "primary key", "u": "unique constraint", "x": "exclusion constraint", "i": "unique index"}


@dataclass(frozen=True)
class ForeignKey:
    table: str
    name: str
    target: str
    on_delete: str        # pg_constraint.confdeltype: a no action, r restrict, c cascade, n set null, d default
    columns: tuple[str, ...]
    target_columns: tuple[str, ...]
    definition: str


def foreign_keys(cursor, tables: list[str]) -> list[ForeignKey]:
    """Every foreign key from or to `tables`."""
    cursor.execute(_FOREIGN_KEYS_SQL, [tables, tables])
    return [ForeignKey(t, n, target, d, tuple(cols), tuple(tcols), definition)
            for t, n, target, d, cols, tcols, definition in cursor.fetchall()]


def colocated(key: ForeignKey) -> bool:
    """A key Citus enforces inside one shard: scope_id on both sides, at the same place."""
    column = DISTRIBUTION_COLUMN
    return (column in key.columns and column in key.target_columns
            and key.columns.index(column) == key.target_columns.index(column))


def blockers(cursor, distributed: tuple[str, ...] | list[str] = DISTRIBUTED) -> list[str]:
    """What Citus would refuse in distributing `distributed` by scope_id, one line each, in the words of the
    catalogue. Empty: the tables can be distributed as they stand."""
    distributed = list(distributed)
    found = []
    cursor.execute("""SELECT c.relname, a.attnotnull FROM pg_class c
                        LEFT JOIN pg_attribute a ON a.attrelid = c.oid AND a.attname = %s AND NOT a.attisdropped
                       WHERE c.relname = ANY(%s) AND c.relkind = 'r' ORDER BY c.relname""",
                   [DISTRIBUTION_COLUMN, distributed])
    for table, not_null in cursor.fetchall():
        if not_null is None:
            found.append(f"{table}: no {DISTRIBUTION_COLUMN} column")
        elif not not_null:
            found.append(f"{table}: {DISTRIBUTION_COLUMN} may be null")
    cursor.execute(_KEYS_SQL, [distributed, distributed])
    for table, name, kind, columns in sorted(cursor.fetchall()):
        if DISTRIBUTION_COLUMN not in columns:
            found.append(f"{table}: {_KEY_WORDS[kind]} {name} ({', '.join(columns)}) lacks {DISTRIBUTION_COLUMN}")
    for key in sorted(foreign_keys(cursor, distributed), key=lambda k: (k.table, k.name)):
        source_in, target_in = key.table in distributed, key.target in distributed
        if source_in and target_in:
            if not colocated(key):
                found.append(f"{key.table}: foreign key {key.name} ({', '.join(key.columns)}) → {key.target} "
                             f"does not go through {DISTRIBUTION_COLUMN}")
            elif key.on_delete in ("n", "d"):
                found.append(f"{key.table}: foreign key {key.name} sets a column on delete, which Citus refuses "
                             f"when {DISTRIBUTION_COLUMN} is in the key")
        elif target_in:
            found.append(f"{key.table}: foreign key {key.name} → {key.target}: only a distributed table may "
                         f"reference a distributed one")
    return found


# --- doing it --------------------------------------------------------------------------------------

class DistributeRefused(Exception):
    """The schema is not ready for the cluster: nothing was changed. Its lines say what stops it."""

    def __init__(self, lines: list[str]):
        super().__init__("\n".join(lines))
        self.lines = lines


# Every session then carries its SET LOCALs (the forgetting flag the write-once trigger reads, recall's HNSW
# settings) to the workers running its statements; Citus's default keeps them on the coordinator.
SESSION_SETTINGS = {"citus.propagate_set_commands": "local"}


def sessions_renew(connection) -> None:
    """For a process that goes on after `distribute`: only sessions opened after it carry SESSION_SETTINGS,
    and its own session keeps the plain SETs it ran. The connection and any pool it came from are closed,
    so the next statement opens a fresh session."""
    connection.close()
    if hasattr(connection, "close_pool"):
        connection.close_pool()


def database_settings(cursor) -> dict[str, str]:
    cursor.execute("""SELECT unnest(setconfig) FROM pg_db_role_setting
                       WHERE setrole = 0 AND setdatabase = (SELECT oid FROM pg_database
                                                             WHERE datname = current_database())""")
    return dict(row[0].split("=", 1) for row in cursor.fetchall())


def identity_sequences_past_rows(cursor, tables: list[str]) -> list[str]:
    """Citus rebuilds a Citus-local table it makes a reference table, and its identity sequence starts over
    at 1: the next row would take the id of the first (seen: `duplicate key … scopes_scope_pkey … Key (id)=(1)`).
    Each sequence of `tables` is moved past the table's rows; one already past is left."""
    moved = []
    cursor.execute("""SELECT c.relname, a.attname, pg_get_serial_sequence(c.relname, a.attname)
                        FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid
                       WHERE c.relname = ANY(%s) AND a.attidentity <> '' ORDER BY c.relname""", [tables])
    for table, column, sequence in cursor.fetchall():
        cursor.execute(f'SELECT max("{column}") FROM {table}')
        highest = cursor.fetchone()[0]
        cursor.execute("SELECT pg_sequence_last_value(%s::regclass)", [sequence])
        last = cursor.fetchone()[0]
        if highest is not None and (last is None or last < highest):
            cursor.execute("SELECT setval(%s, %s)", [sequence, highest])
            moved.append(f"sequence of {table}.{column} moved past {highest}")
    return moved


class KeysNotPutBack(Exception):
    """Keys set aside while distributing that could not be added again: each line is the statement to run."""


def keys_put_back(cursor, keys: list[ForeignKey]) -> None:
    """Each key on its own (a savepoint each: one failing leaves the others to try); those that fail are
    raised together with their statements, the error that stopped the run (if any) kept as the cause."""
    failed = []
    for key in keys:
        statement = f'ALTER TABLE {key.table} ADD CONSTRAINT "{key.name}" {key.definition}'
        try:
            with transaction.atomic():
                cursor.execute(statement)
        except DatabaseError as error:
            failed.append(f"{statement};  -- {error}".strip())
    if failed:
        raise KeysNotPutBack("\n".join(failed))


def distribute(cursor) -> list[str]:
    """Replicate the reference tables and distribute the scoped ones, colocated by scope_id; returns what it
    did and found, one line each. Refuses (DistributeRefused) before changing anything when a table is
    distributed the other way or a key Citus needs is missing."""
    if not citus_coordinator(cursor):
        return ["not a Citus coordinator: nothing to do (one PostgreSQL holds every table as it is)"]
    reference, distributed = reference_tables(), list(DISTRIBUTED)
    todo = plan(table_kinds(cursor), reference, distributed)
    if todo.wrong:
        raise DistributeRefused([f"wrong kind: {line}" for line in todo.wrong])
    if todo.distributed:
        found = blockers(cursor, distributed)
        if found:
            raise DistributeRefused([f"blocked: {line}" for line in found])
    report = [f"already {line}" for line in todo.already]
    report += scope_log_dropped(cursor)
    # One connection per node: Citus refuses parallel DDL on a table tied to a reference table touched in the
    # same session. The write-once trigger on cards is row-level and reads only its row and a setting, which
    # is what Citus asks of a trigger it runs on the shards.
    cursor.execute("SET citus.multi_shard_modify_mode = 'sequential'")
    cursor.execute("SET citus.enable_unsafe_triggers = on")
    # Replicating a table turns every local table tied to it by a foreign key into a Citus-local table, which
    # can no longer be distributed (its identity column stops the rewrite): the keys from the tables still to
    # distribute to the others are set aside while it happens, and put back once they are distributed.
    keys = [key for key in foreign_keys(cursor, todo.distributed)
            if key.table in todo.distributed and key.target not in distributed]
    dropped: list[ForeignKey] = []
    try:
        for key in keys:
            # Logged before it goes: should this process die before putting it back, the log has it.
            log.warning("setting aside until the tables are distributed: ALTER TABLE %s ADD CONSTRAINT \"%s\" %s",
                        key.table, key.name, key.definition)
            cursor.execute(f'ALTER TABLE {key.table} DROP CONSTRAINT "{key.name}"')
            dropped.append(key)
        for table in todo.reference:
            cursor.execute("SELECT create_reference_table(%s)", [table])
            report.append(f"reference {table}")
        edges = [(k.table, k.target) for k in foreign_keys(cursor, todo.distributed) if k.target in distributed]
        kinds = table_kinds(cursor)
        anchor = next((t for t in distributed if kinds.get(t) == "distributed"), None)
        for table in parents_first(todo.distributed, edges):
            cursor.execute("SELECT create_distributed_table(%s, %s, colocate_with => %s)",
                           [table, DISTRIBUTION_COLUMN, anchor or "default"])
            anchor = anchor or table
            report.append(f"distributed {table} by {DISTRIBUTION_COLUMN}")
    finally:
        cursor.execute("RESET citus.multi_shard_modify_mode")
        cursor.execute("RESET citus.enable_unsafe_triggers")
        keys_put_back(cursor, dropped)
    # Every table, every run: a run that failed after replicating some tables left their sequences behind.
    report += identity_sequences_past_rows(cursor, [*reference, *distributed])
    present = database_settings(cursor)
    for name, value in SESSION_SETTINGS.items():
        if present.get(name) == value:
            report.append(f"already {name} = {value}")
            continue
        cursor.execute("SELECT current_database()")
        database = cursor.fetchone()[0]
        cursor.execute(f'ALTER DATABASE "{database}" SET {name} = %s', [value])
        report.append(f"set {name} = {value} for new sessions")
    return report


# The log of which scopes' cards changed (cards migration 0029) serves the snapshots recall keeps in memory on
# one PostgreSQL (cards/recall/snapshots.py). On Citus recall reads SQL, and the triggers would run on the shards
# and the reference table's copies, where the log is not.
def scope_log_dropped(cursor) -> list[str]:
    cursor.execute("SELECT count(*) FROM pg_trigger WHERE tgname = ANY(%s)", [[t for _, t in LOG_TRIGGERS]])
    if not cursor.fetchone()[0]:
        return []
    for table, trigger in LOG_TRIGGERS:
        cursor.execute(f"DROP TRIGGER IF EXISTS {trigger} ON {table}")
    return ["dropped the scope-change log's triggers: recall reads SQL on Citus, not snapshots"]
