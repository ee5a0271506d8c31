"""What a read costs in CPU, by process, for bench/recall_cost.py: this process and the database server when it
runs on this machine (its postmaster with every backend and background process it has)."""

from __future__ import annotations

import os
import time
from pathlib import Path

TICK_MS = 1000 / os.sysconf("SC_CLK_TCK")
LOCAL_HOSTS = {"127.0.0.1", "localhost", "::1", ""}


def _postmaster(host: str, port: int, data_directory: str) -> int | None:
    """The pid of the server at host:port when it runs on this machine: its data folder's postmaster.pid
    names the pid (line 1) and the port (line 4), which must be this server's (another server may use the
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


def server_pid() -> int | None:
    """The database server's postmaster when it runs on this machine; None otherwise, or when this user may
    not read where its data lives."""
    from django.db import DatabaseError, connection
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT current_setting('port')::int, current_setting('data_directory')")
            port, folder = cursor.fetchone()
    except DatabaseError:
        return None
    return _postmaster(connection.settings_dict.get("HOST") or "", port, folder)


class CpuMeter:
    """CPU milliseconds spent by this process and by the server between two readings. The server's background
    work (autovacuum, checkpoints) counts too."""

    def __init__(self):
        self.nodes = {"server": server_pid()}

    def read(self) -> dict[str, float | None]:
        ticks = _ticks_by_server({pid for pid in self.nodes.values() if pid})
        out = {name: ticks[pid] * TICK_MS if pid else None for name, pid in self.nodes.items()}
        out["bench process"] = time.process_time() * 1000     # after the scan: a reading is not charged to itself
        return out

    def since(self, before: dict) -> dict[str, float | None]:
        after = self.read()
        return {k: (None if before[k] is None else round(after[k] - before[k], 1)) for k in after}
