"""The recall bench on a Citus coordinator (bench/recall.py --coordinator): its database on every node,
where a read's shards lie, and what each node's processes spend in CPU.

The nodes must accept the coordinator URL's user from this machine without a password (as the local
cluster of scripts/citus_cluster.py does)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))
import citus_cluster  # noqa: E402  (scripts/ holds the one home of "a database on every node")


def _node(db: dict) -> tuple[str, int]:
    return db.get("HOST") or "127.0.0.1", int(db.get("PORT") or 5432)


def database_create(db: dict, name: str) -> None:
    """`name` made afresh on the coordinator of `db` and on every worker its own database knows."""
    user = db.get("USER") or citus_cluster.DB_USER
    workers = citus_cluster.cluster_workers(_node(db), db["NAME"], user)
    if not workers:
        raise SystemExit(f"{db['NAME']} on {_node(db)} lists no Citus worker: is it a coordinator?")
    citus_cluster.cluster_database(name, fresh=True, coordinator=_node(db), workers=workers, user=user)


def database_drop(db: dict, name: str) -> None:
    user = db.get("USER") or citus_cluster.DB_USER
    for host, port in [_node(db), *citus_cluster.cluster_workers(_node(db), db["NAME"], user)]:
        citus_cluster.sql(port, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)', "postgres", host, user)


def placement(scope_ids: list[int]) -> dict:
    """Which shards of cards_card hold these scopes, and on which nodes: the fan-out of a read of them."""
    from django.db import connection
    with connection.cursor() as cursor:
        cursor.execute("SELECT DISTINCT s.shardid, s.nodename || ':' || s.nodeport FROM unnest(%s::bigint[]) AS x(id)"
                       " JOIN citus_shards s ON s.shardid = get_shard_id_for_distribution_column('cards_card', x.id)"
                       " AND s.table_name = 'cards_card'::regclass", [scope_ids])
        rows = cursor.fetchall()
        cursor.execute("SELECT count(*) FROM citus_shards WHERE table_name = 'cards_card'::regclass")
        shards = cursor.fetchone()[0]
    nodes: dict[str, int] = {}
    for _, node in rows:
        nodes[node] = nodes.get(node, 0) + 1
    return {"scopes": len(scope_ids), "shards": len(rows), "of_shards": shards, "shards_by_node": nodes}


# --- CPU by node -----------------------------------------------------------------------------------

TICK_MS = 1000 / os.sysconf("SC_CLK_TCK")


def _postmaster(data_directory: str) -> int | None:
    try:
        return int(Path(data_directory, "postmaster.pid").read_text().split()[0])
    except (OSError, ValueError, IndexError):
        return None      # a node on another machine: its CPU is not measured


def _server_ticks(postmaster: int) -> int:
    """The CPU ticks of a PostgreSQL server so far: its postmaster with every child it has reaped
    (cutime, cstime) and the children alive now (backends, parallel workers, background processes)."""
    total = 0
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            fields = Path(entry.path, "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        pid, ppid = int(entry.name), int(fields[1])
        if pid == postmaster:
            total += sum(int(x) for x in fields[11:15])     # utime stime cutime cstime
        elif ppid == postmaster:
            total += int(fields[11]) + int(fields[12])
    return total


def server_nodes() -> dict[str, int | None]:
    """Each server this database runs on, by name, with its postmaster's pid when it runs on this machine:
    the coordinator and its workers on Citus, or the one server."""
    from django.db import connection
    with connection.cursor() as cursor:
        cursor.execute("SHOW data_directory")
        here = cursor.fetchone()[0]
        cursor.execute("SELECT to_regclass('pg_dist_node') IS NOT NULL")
        citus = cursor.fetchone()[0]
        nodes = {"server": _postmaster(here)}
        if citus:
            cursor.execute("SELECT nodename || ':' || nodeport FROM pg_dist_node WHERE groupid <> 0 ORDER BY nodeid")
            workers = [row[0] for row in cursor.fetchall()]
            cursor.execute("SELECT nodename || ':' || nodeport, result FROM run_command_on_workers("
                           "'SHOW data_directory') ORDER BY 1")
            found = {node: _postmaster(result) for node, result in cursor.fetchall()}
            nodes = {"coordinator": nodes["server"], **{f"worker {w}": found.get(w) for w in workers}}
    return nodes


class CpuMeter:
    """CPU milliseconds spent by this process and by each server between `start` and `stop`."""

    def __init__(self):
        self.nodes = server_nodes()

    def read(self) -> dict[str, float | None]:
        import time
        out = {"bench process": time.process_time() * 1000}
        for name, pid in self.nodes.items():
            out[name] = _server_ticks(pid) * TICK_MS if pid else None
        return out

    def since(self, before: dict) -> dict[str, float | None]:
        after = self.read()
        return {k: (None if before[k] is None else round(after[k] - before[k], 1)) for k in after}
