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
from core.citus import citus_present  # noqa: E402


def _node(db: dict) -> tuple[str, int]:
    return db.get("HOST") or "127.0.0.1", int(db.get("PORT") or 5432)


def _nodes(db: dict) -> tuple[tuple[str, int], list[tuple[str, int]], str]:
    user = db.get("USER") or citus_cluster.DB_USER
    workers = citus_cluster.cluster_workers(_node(db), db["NAME"], user)
    if not workers:
        raise SystemExit(f"{db['NAME']} on {_node(db)} lists no Citus worker: is it a coordinator?")
    return _node(db), workers, user


def database_create(db: dict, name: str) -> None:
    """`name` made afresh on the coordinator of `db` and on every worker its own database knows."""
    coordinator, workers, user = _nodes(db)
    citus_cluster.cluster_database(name, fresh=True, coordinator=coordinator, workers=workers, user=user)


def database_drop(db: dict, name: str) -> None:
    coordinator, workers, user = _nodes(db)
    citus_cluster.cluster_database_drop(name, coordinator, workers, user)


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
LOCAL_HOSTS = {"127.0.0.1", "localhost", "::1", ""}


def _postmaster(host: str, port: int, data_directory: str) -> int | None:
    """The pid of the server at host:port when it runs on this machine: its data folder's postmaster.pid
    names the pid (line 1) and the port (line 4), which must be this node's (another server may use the
    same folder name on another machine)."""
    if not data_directory or (host not in LOCAL_HOSTS and not host.startswith("/")):
        return None
    try:
        lines = Path(data_directory, "postmaster.pid").read_text().splitlines()
        return int(lines[0]) if int(lines[3]) == port else None
    except (OSError, ValueError, IndexError):
        return None


def _ticks_by_server(postmasters: set[int]) -> dict[int, int]:
    """One pass over /proc: the CPU ticks so far of each server, its postmaster with every child it has reaped
    (cutime, cstime) and the children alive now (backends, parallel workers, background processes)."""
    total = dict.fromkeys(postmasters, 0)
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            fields = Path(entry.path, "stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        pid, ppid = int(entry.name), int(fields[1])
        if pid in total:
            total[pid] += sum(int(x) for x in fields[11:15])     # utime stime cutime cstime
        elif ppid in total:
            total[ppid] += int(fields[11]) + int(fields[12])
    return total


def server_nodes() -> dict[str, int | None]:
    """Each server this database runs on, by name, with its postmaster's pid when it runs on this machine
    (None otherwise, or when this user may not read where the data lives): the coordinator and its workers
    on Citus, or the one server."""
    from django.db import DatabaseError, connection
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT current_setting('port')::int, current_setting('data_directory')")
            port, folder = cursor.fetchone()
            pid = _postmaster(connection.settings_dict.get("HOST") or "", port, folder)
            if not citus_present(cursor):
                return {"server": pid}
            cursor.execute(f"SELECT nodename, nodeport FROM pg_dist_node WHERE {citus_cluster.WORKERS}"
                           " ORDER BY nodeid")
            workers = cursor.fetchall()
            cursor.execute("SELECT nodename, nodeport, result FROM run_command_on_workers('SHOW data_directory')")
            folders = {(host, port): result for host, port, result in cursor.fetchall()}
    except DatabaseError:
        return {"server": None}
    return {"coordinator": pid, **{f"worker {host}:{port}": _postmaster(host, port, folders.get((host, port), ""))
                                   for host, port in workers}}


class CpuMeter:
    """CPU milliseconds spent by this process and by each server between two readings. Background work
    (autovacuum, checkpoints, Citus's maintenance daemon) counts too, on each of Citus's three servers."""

    def __init__(self):
        self.nodes = server_nodes()

    def read(self) -> dict[str, float | None]:
        import time
        ticks = _ticks_by_server({pid for pid in self.nodes.values() if pid})
        out = {name: ticks[pid] * TICK_MS if pid else None for name, pid in self.nodes.items()}
        out["bench process"] = time.process_time() * 1000     # after the scan: a reading is not charged to itself
        return out

    def since(self, before: dict) -> dict[str, float | None]:
        after = self.read()
        return {k: (None if before[k] is None else round(after[k] - before[k], 1)) for k in after}
