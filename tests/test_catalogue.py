"""The Traditional Chinese catalogue is whole: every string the code marks for
translation is in it with a translation (none missing, none fuzzy); the
Simplified one is its conversion, never edited apart; and the committed .mo
files the site reads are compiled from the committed .po files."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from memory_site.management.commands.catalogue_simplified import simplified_catalogue

ROOT = Path(__file__).resolve().parents[1]
CATALOGUE = ROOT / "locale" / "zh_Hant" / "LC_MESSAGES"
SIMPLIFIED = ROOT / "locale" / "zh_Hans" / "LC_MESSAGES"
SOURCES = ["cards", "core", "memory_site", "review", "scopes", "templates", "locale", "manage.py"]


def _statistics(po: Path) -> str:
    done = subprocess.run(["msgfmt", "--check", "--statistics", "-o", "/dev/null", str(po)],
                          capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stderr
    return done.stderr.strip()


def test_every_marked_string_has_its_translation(tmp_path):
    # makemessages on a copy of the sources, so the check never writes to the tree it checks.
    for name in SOURCES:
        source = ROOT / name
        copy = shutil.copytree if source.is_dir() else shutil.copy2
        copy(source, tmp_path / name, **({"ignore": shutil.ignore_patterns("__pycache__")} if source.is_dir() else {}))
    # makemessages never opens a connection; without a DATABASE_URL the copy's settings would start (and
    # leave running) an embedded PostgreSQL of their own in tmp_path.
    unused = {**os.environ, "DATABASE_URL": "postgres://unused@127.0.0.1:1/unused", "DATABASE_POOL": "false"}
    gathered = subprocess.run(
        [sys.executable, "manage.py", "makemessages", "-l", "zh_Hant", "--no-location", "--no-obsolete"],
        cwd=tmp_path, capture_output=True, text=True, check=False, env=unused)
    assert gathered.returncode == 0, gathered.stderr
    statistics = _statistics(tmp_path / "locale" / "zh_Hant" / "LC_MESSAGES" / "django.po")
    assert "untranslated" not in statistics and "fuzzy" not in statistics, (
        f"{statistics}: run `make messages` and translate what it added")


@pytest.mark.parametrize("catalogue", [CATALOGUE, SIMPLIFIED], ids=["zh_Hant", "zh_Hans"])
def test_the_compiled_catalogue_is_the_committed_one(tmp_path, catalogue):
    compiled = tmp_path / "django.mo"
    subprocess.run(["msgfmt", "-o", str(compiled), str(catalogue / "django.po")], check=True)
    assert compiled.read_bytes() == (catalogue / "django.mo").read_bytes(), "run `make messages`"


def test_the_simplified_catalogue_is_the_traditional_one_converted():
    traditional = (CATALOGUE / "django.po").read_text(encoding="utf-8")
    assert (SIMPLIFIED / "django.po").read_text(encoding="utf-8") == simplified_catalogue(traditional), (
        "run `make messages`")
    assert "设置" in simplified_catalogue('msgid "Settings"\nmsgstr "設定"\n')  # Taiwan's words become the mainland's
