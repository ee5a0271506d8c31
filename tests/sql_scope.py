"""The runtime half of tests/test_read_visibility.py: the SQL a request runs, with
the project code that ran it, so a query made by a template (a related manager
walked in `{% for %}`) or by a helper outside the walked modules is caught too.

Every SELECT that reads a table of a scoped model (found from the app registry)
must carry a scope filter, unless the project code that ran it is a service (a
write acting on rows a selector has already returned: the static walk exempts
them for the same reason) or one of the reads the static walk allows by name."""

from __future__ import annotations

import contextlib
import re
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from fnmatch import fnmatch
from pathlib import Path
from typing import Any

from django.db import connection

ROOT = Path(__file__).resolve().parent.parent
SCOPE_FILTER = re.compile(r'scope_id"?\s*(IN\s*\(|=\s*ANY\s*\(|=\s*%s|=\s*\d)', re.IGNORECASE)
# Writes: they take the rows a selector returned (and lock or re-read them by id).
WRITERS = ("*/services/*", "*/services.py", "*/tasks.py", "*/management/*", "scopes/invites.py")
# Where a statement is run for someone else's code: the caller is what counts.
PASS_THROUGH = ("core/compiled.py", "core/scope_locks.py")
# Reads that stand outside the primitive at run time, beyond the static walk's ALLOWED.
RUNTIME_ALLOWED = {
    ("scopes/tokens.py", "token_with_user"): "authenticating a token brings its own user and their own entity",
    ("cards/selectors/shape.py", "cards_shown"):
        "runs _cards_by_id_query (allowed in the static walk) through Compiled",
    ("scopes/models.py", "ladder_reaching_ids"):
        "a forget's look at the ladder (a personal scope's owner's memberships among it): scope ids where a row "
        "linked across scopes may lie, named by the forget's statements, never shown to anyone",
}
# Statement shapes restricted another way, whoever runs them.
SHAPES_ALLOWED = {
    re.compile(r'FROM "cards_entity" WHERE "cards_entity"\."user_id" = %s LIMIT 21$'):
        "a person's own entity ('me'), through their user (a one-to-one the walk does not follow)",
}


@dataclass
class Statement:
    sql: str
    origin: tuple[str, str, int] | None  # (path, function, line) of the project code that ran it
    params: Any = None                   # as handed to the cursor: a row of values, or rows (`many`)
    many: bool = False

    @property
    def where(self) -> str:
        return f"{self.origin[0]}:{self.origin[2]} in {self.origin[1]}" if self.origin else "outside the project"

    def __str__(self) -> str:
        return f"{self.where}: {self.sql[:400]}"

    def composed(self) -> list[str]:
        """The statement with its values written in, one per row of an executemany: what a planner that
        routes by constants (Citus) sees. Composed as psycopg composes client-side."""
        if self.params is None:
            return [self.sql]
        return [connection.ops.compose_sql(self.sql, row) for row in (self.params if self.many else [self.params])]


@dataclass
class Recorder:
    statements: list[Statement] = field(default_factory=list)

    def __call__(self, execute, sql, params, many, context):
        # The statement as Django builds it, parameters left as placeholders: the scope
        # filter is in the text (`"scope_id" IN (%s, %s)`, `= ANY(%s)`), never only in a value.
        # The values are kept beside it (a copy: a caller may reuse its dict for the next statement).
        if many:
            params = list(params)  # an iterator is read once: by the cursor, after this copy
        kept = [_copy(row) for row in params] if many else _copy(params)
        self.statements.append(Statement(sql=sql, origin=_origin(), params=kept, many=many))
        return execute(sql, params, many, context)


def _copy(params):
    if isinstance(params, Mapping):
        return dict(params)
    return list(params) if isinstance(params, (list, tuple)) else params


def _origin() -> tuple[str, str, int] | None:
    frame = sys._getframe(1)
    while frame is not None:
        path = Path(frame.f_code.co_filename)
        if path.is_relative_to(ROOT):
            relative = str(path.relative_to(ROOT))
            if not relative.startswith(("tests/", ".venv/")) and relative not in PASS_THROUGH:
                qualname = frame.f_code.co_qualname.replace(".<locals>", "")
                return relative, qualname, frame.f_lineno
        frame = frame.f_back
    return None


@contextlib.contextmanager
def recorded():
    recorder = Recorder()
    with connection.execute_wrapper(recorder):
        yield recorder.statements


def scoped_tables() -> set[str]:
    """The tables of the models stored in a scope (the Scope's own, restricted by its id, is none of them)."""
    from tests.test_read_visibility import scoped_models

    return {m._meta.db_table for m in scoped_models()}


def _allowed(origin: tuple[str, str, int] | None) -> bool:
    from tests.test_read_visibility import ALLOWED

    if origin is None:
        return False
    path, function, _ = origin
    if any(fnmatch(path, pattern) for pattern in WRITERS) or (path, function) in RUNTIME_ALLOWED:
        return True
    return any((p, f) == (path, function) for p, f, _ in ALLOWED)


def unscoped_reads(statements: list[Statement]) -> list[Statement]:
    """The SELECTs among `statements` that read scoped rows with no scope filter."""
    tables = re.compile(r'\b(?:FROM|JOIN)\s+"?(' + "|".join(sorted(scoped_tables())) + r')"?(?=[\s)]|$)',
                        re.IGNORECASE)
    return [s for s in statements
            if s.sql.lstrip().upper().startswith(("SELECT", "WITH", "("))
            and tables.search(s.sql) and not SCOPE_FILTER.search(s.sql) and not _allowed(s.origin)
            and not any(shape.search(s.sql) for shape in SHAPES_ALLOWED)]
