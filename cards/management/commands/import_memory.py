"""manage.py import_memory PATH --user USERNAME --scope SCOPE_ID [--dry-run] [--consent]

Reads a JSON export or a markdown zip (its export.json when present, else
MEMORY.md and memory/*.md, best effort) and writes it into a scope the user
may write, through the card services. Every card passes the write screen:
never-stored content refuses the import; sensitive content needs --consent."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path

from django.core.management.base import BaseCommand, CommandError
from django.http import Http404
from django.utils import timezone

from cards.transfer.import_markdown import document_from_markdown
from cards.transfer.importer import ImportFileError, memory_import
from core.errors import DomainError, NotAllowed
from core.text import InvalidText, body_text_check
from scopes.models import User
from scopes.principals import Principal
from scopes.selectors import scope_get

MAX_BYTES = 200 * 1024 * 1024


def _json(data: bytes, name: str):
    try:
        document = json.loads(data.decode("utf-8"))
        body_text_check(document, data)  # the API's one check of what JSON text may carry
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise CommandError(f"{name} is not valid JSON: {error}.") from None
    except InvalidText as error:
        raise CommandError(f"{name}: {error.detail} At {', '.join(error.extra['fields'])}.") from None
    return document


def read_document(path: Path, *, time_zone: str) -> dict:
    if not path.is_file():
        raise CommandError(f"{path} is not a file.")
    if path.stat().st_size > MAX_BYTES:
        raise CommandError(f"{path} is larger than {MAX_BYTES // 1024 // 1024} MB.")
    if not zipfile.is_zipfile(path):
        return _json(path.read_bytes(), str(path))
    try:
        with zipfile.ZipFile(path) as archive:
            names = set(archive.namelist())
            if "export.json" in names:
                return _json(archive.read("export.json"), "export.json")
            files = {name: archive.read(name).decode("utf-8") for name in names
                     if name == "MEMORY.md" or (name.startswith("memory/") and name.endswith(".md"))}
    except (zipfile.BadZipFile, UnicodeDecodeError) as error:
        raise CommandError(f"{path} could not be read as a zip of markdown notes: {error}.") from None
    try:
        return document_from_markdown(files, time_zone=time_zone, now=timezone.now())
    except ImportFileError as error:
        raise CommandError(str(error)) from None


class Command(BaseCommand):
    help = "Import a memory export (JSON, or a markdown zip) into a scope the user may write."

    def add_arguments(self, parser):
        parser.add_argument("path", type=Path)
        parser.add_argument("--user", required=True, help="Username the cards are written as.")
        parser.add_argument("--scope", required=True, type=int, help="Id of the scope to write into.")
        parser.add_argument("--dry-run", action="store_true", help="Check and count, then write nothing.")
        parser.add_argument("--consent", action="store_true",
                            help="The person explicitly consents to storing the sensitive content in this file.")

    def handle(self, *args, path: Path, user: str, scope: int, dry_run: bool, consent: bool = False, **options):
        actor = User.objects.filter(username=user).first()
        if actor is None:
            raise CommandError(f"No user {user!r}.")
        try:
            target = scope_get(principal=Principal(user=actor), scope_id=scope, action="write")
        except Http404:
            raise CommandError(f"{user} has no scope {scope}.") from None
        except NotAllowed:
            raise CommandError(f"{user} may not write in scope {scope}.") from None
        document = read_document(path, time_zone=actor.time_zone or "UTC")
        try:
            counts = memory_import(actor=actor, scope=target, document=document, dry_run=dry_run, consent=consent)
        except (ImportFileError, DomainError) as error:
            raise CommandError(f"Nothing was imported: {error}") from None
        summary = ", ".join(f"{name} {count}" for name, count in sorted(counts.items())) or "nothing to import"
        self.stdout.write(("Dry run, nothing written: " if dry_run else "Imported: ") + summary)
