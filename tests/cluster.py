"""Running the suites on a Citus cluster (`make citus`, then DATABASE_URL at its coordinator and
`pytest --cluster`). pytest-django's CREATE DATABASE reaches the coordinator only (Citus does not propagate
it, and its extension and node list are per database), so the test database is made beforehand on every
node (scripts/citus_cluster.py database NAME --fresh) and kept (keepdb) for Django to migrate into; then
`distribute` spreads it. `--cluster=local` leaves the tables on the coordinator when `distribute` refuses,
to see what Citus alone changes; the default fails the run instead."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def cluster_mode(config) -> str | None:
    return config.getoption("cluster")


def cluster_database_make(name: str) -> None:
    subprocess.run([sys.executable, str(ROOT / "scripts" / "citus_cluster.py"), "database", name, "--fresh"],
                   check=True, stdout=subprocess.DEVNULL)


def cluster_distribute(mode: str) -> None:
    from django.db import connection

    from memory_site.distribution import DistributeRefused, distribute, sessions_renew

    try:
        with connection.cursor() as cursor:
            lines = distribute(cursor)
    except DistributeRefused as refused:
        if mode != "local":
            pytest.exit("distribute refused the schema:\n  " + "\n  ".join(refused.lines), returncode=3)
        sys.stderr.write(f"distribute refused ({len(refused.lines)} keys): the tables stay on the coordinator\n")
        return
    if lines and lines[0].startswith("not a Citus coordinator"):
        pytest.exit("--cluster: DATABASE_URL is not a Citus coordinator", returncode=3)
    # As on the site, whose processes start after `distribute`: the tests run in sessions opened after it.
    sessions_renew(connection)
