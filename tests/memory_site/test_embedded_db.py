"""The embedded PostgreSQL starts from nothing, with no server installed or
configured: DATABASE_URL unset, an empty data folder, no PG* variables; and it
survives what an interrupted start leaves behind. Each test starts its own
server in a folder of its own (MEMORY_SITE_DATA_DIR), never the test run's."""

import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from memory_site.embedded_db import embedded_stop

ROOT = Path(__file__).resolve().parents[2]

PROBE = """
import json, psycopg
from memory_site.embedded_db import embedded_database_settings
from pathlib import Path
import sys
db = embedded_database_settings(Path(sys.argv[1]))
with psycopg.connect(dbname=db["NAME"], user=db["USER"], host=db["HOST"], port=db["PORT"]) as conn:
    row = conn.execute("SELECT current_setting('server_version_num')::int, current_setting('data_directory'),"
                       " (SELECT array_agg(name ORDER BY name) FROM pg_available_extensions"
                       "   WHERE name IN ('vector', 'pg_trgm', 'btree_gist')), current_setting('work_mem'),"
                       " current_setting('random_page_cost')").fetchone()
print(json.dumps({"version": row[0], "data_directory": row[1], "extensions": row[2], "work_mem": row[3],
                  "random_page_cost": row[4]}))
"""


def clean_env(data_dir: Path) -> dict:
    env = {k: v for k, v in os.environ.items() if k != "DATABASE_URL" and not k.startswith("PG")}
    env["MEMORY_SITE_DATA_DIR"] = str(data_dir)
    return env


def run(args, env, timeout=300):
    return subprocess.run([sys.executable, *args], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=timeout)


def test_embedded_postgres_starts_from_an_empty_folder_even_when_two_processes_race(tmp_path):
    import json

    data_dir = tmp_path / "data"
    env = clean_env(data_dir)
    try:
        with ThreadPoolExecutor(2) as pool:
            results = list(pool.map(lambda _: run(["-c", PROBE, str(data_dir)], env), range(2)))
        for result in results:
            assert result.returncode == 0, result.stderr
        probes = [json.loads(r.stdout.strip().splitlines()[-1]) for r in results]
        for probe in probes:
            assert probe["version"] >= 180000
            assert Path(probe["data_directory"]).resolve() == (data_dir / "postgres").resolve()
            assert probe["extensions"] == ["btree_gist", "pg_trgm", "vector"]
            # Tuned for the machine (embedded_db.server_settings); shared_buffers waits for a restart.
            assert (probe["work_mem"], probe["random_page_cost"]) == ("32MB", "1.1")
        restarted = run(["-c", "from pathlib import Path; import sys; from memory_site.embedded_db import "
                               "embedded_restart, server_settings, _total_memory; embedded_restart(Path(sys.argv[1]));"
                               "print(server_settings(_total_memory())['shared_buffers'])", str(data_dir)], env)
        assert restarted.returncode == 0, restarted.stderr
        shown = run(["manage.py", "shell", "-v", "0", "-c", "from django.db import connection; c = connection.cursor();"
                     " c.execute(\"SELECT setting::bigint * 8 / 1024 FROM pg_settings WHERE name = 'shared_buffers'\");"
                     " print(c.fetchone()[0])"], env)
        assert shown.stdout.strip().splitlines()[-1] + "MB" == restarted.stdout.strip().splitlines()[-1]
        migrate = run(["manage.py", "migrate", "--noinput"], env)
        assert migrate.returncode == 0, migrate.stderr
        check = run(["manage.py", "shell", "-v", "0", "-c",
                     "from cards.models import Label; from django.db import connection;"
                     "c = connection.cursor(); c.execute(\"SELECT extname FROM pg_extension ORDER BY 1\");"
                     "print(Label.objects.count(), [r[0] for r in c.fetchall()])"], env)
        assert check.returncode == 0, check.stderr
        count, extensions = check.stdout.strip().splitlines()[-1].split(" ", 1)
        assert int(count) >= 30
        for name in ("vector", "pg_trgm", "btree_gist"):
            assert name in extensions
    finally:
        embedded_stop(data_dir)


def _dead_pids(count: int) -> list[int]:
    """Process ids that no process can hold: above the kernel's largest, so a
    busy machine reusing a pid during the test cannot make one alive again."""
    top = int(Path("/proc/sys/kernel/pid_max").read_text())
    return list(range(top + 1, top + 1 + count))


def test_a_damaged_or_swollen_pid_list_neither_stops_manage_py_nor_grows(tmp_path):
    """An interrupted start once left the server library's `.handle_pids.json`
    empty, and every later command failed with a JSONDecodeError; the list also
    kept one dead pid per process ever started."""
    import json

    data_dir = tmp_path / "data"
    env = clean_env(data_dir)
    pids = data_dir / "postgres" / ".handle_pids.json"
    try:
        first = run(["-c", PROBE, str(data_dir)], env)
        assert first.returncode == 0, first.stderr
        for damage in ("", "[12, 3", "\x00\x01 not json", '{"pids": [1]}', json.dumps(_dead_pids(1000))):
            pids.write_text(damage)
            check = run(["manage.py", "check"], env)
            assert check.returncode == 0, (damage[:40], check.stderr[-2000:])
            # Every process that held the server here has ended, and took itself off the list.
            assert json.loads(pids.read_text()) == [], damage[:40]
    finally:
        embedded_stop(data_dir)


@pytest.mark.django_db
def test_tests_run_on_real_postgresql_with_pgvector():
    from django.db import connection

    assert connection.vendor == "postgresql"
    with connection.cursor() as cursor:
        cursor.execute("SELECT extversion FROM pg_extension WHERE extname = 'vector'")
        assert cursor.fetchone() is not None


def test_the_servers_memory_follows_the_machine():
    from memory_site.embedded_db import server_settings

    gib = 2**30
    assert server_settings(24 * gib)["shared_buffers"] == "4096MB"       # a quarter, at most 4 GB
    assert server_settings(8 * gib)["shared_buffers"] == "2048MB"
    assert server_settings(256 * 2**20)["shared_buffers"] == "128MB"      # never below the default
    assert server_settings(24 * gib)["effective_cache_size"] == "12288MB"
