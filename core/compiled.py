"""ORM queries built and compiled once per shape, then run with each call's values.

Building a QuerySet with permission subqueries and compiling it costs ~0.8-1 ms
of Python here — as much as running it — and recall pays that twice on every
call (its scope ids, its cards). A `Compiled` builds the query once with
sentinel numbers standing in for the values that change, keeps the SQL and its
parameters, and on each call swaps the sentinels for that call's values. The
ORM stays the one definition of the query; tests hold the rows equal to the
ORM's own.

Only plain values may vary (ids, lists of ids, strings named in `text`): a
value that changes the query's shape (a None, a flag) belongs in the cache key
instead. The query is compiled with two sets of sentinels, and cached only if
the SQL is the same and the parameters differ exactly where the sentinels sit.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Hashable
from typing import Any

import psycopg
from django.core.exceptions import EmptyResultSet, FullResultSet
from django.db import connection
from django.db.backends.utils import CursorDebugWrapper, CursorWrapper
from django.db.models import QuerySet

# Far outside any id or constant a query could carry. Two sets: the query is
# compiled with each, and only where the parameters differ do values vary.
_SENTINEL_BASES = (-7_311_000_000_000, -7_322_000_000_000)


class Compiled:
    def __init__(self, build: Callable[..., QuerySet], *names: str, text: tuple[str, ...] = ()) -> None:
        """`build(**sentinels)` returns the query; `names` are its varying
        values, those in `text` strings (the rest numbers or lists)."""
        self._build = build
        self._names = names
        self._sentinels = [
            {name: f"{chr(0xE000 + j)}compiled:{name}" if name in text else base - i for i, name in enumerate(names)}
            for j, base in enumerate(_SENTINEL_BASES)]
        self._by_key: dict[Hashable, tuple] = {}
        self._lock = threading.Lock()

    def _compiled(self, key: Hashable, shape: dict[str, Any]) -> tuple:
        found = self._by_key.get(key)
        if found is None:
            first, second = (self._build(**shape, **sentinels).query for sentinels in self._sentinels)
            compiler = first.get_compiler(connection=connection)
            try:
                sql, params = compiler.as_sql()
                other_sql, other_params = second.get_compiler(connection=connection).as_sql()
            except (EmptyResultSet, FullResultSet):
                # Django decided a condition from the value itself (e.g. one out of
                # the column's range): the SQL would not hold for other values.
                raise ValueError(f"{self._build.__qualname__}: the SQL changes with the values in shape {shape}")
            by_value = {value: name for name, value in self._sentinels[0].items()}
            # A value that changed the SQL, or that Django dropped or rewrote (a
            # sentinel out of a column's range can make a condition vanish), would
            # make the cached SQL wrong for other values: refuse to cache it.
            varying = [(position, by_value.get(value)) for position, (value, other) in
                       enumerate(zip(params, other_params)) if value != other]
            if (sql != other_sql or len(params) != len(other_params)
                    or any(name is None or self._sentinels[1][name] != other_params[position]
                           for position, name in varying)):
                raise ValueError(f"{self._build.__qualname__}: the SQL changes with the values in shape {shape}")
            used = frozenset(name for _, name in varying)
            # As ValuesIterable names a row's columns, and the fields' own
            # converters, as results_iter applies them.
            names = list(first.selected) if first.selected else [
                *first.extra_select, *first.values_select, *first.annotation_select]
            converters = compiler.get_converters([column[0] for column in compiler.select[:compiler.col_count]])
            found = (sql, list(params), varying, names, used, list(converters.items()))
            with self._lock:
                self._by_key[key] = found
        return found

    def sql(self, values: dict[str, Any], **shape: Any) -> tuple[str, list]:
        """The compiled SQL and its parameters for `values`, for a statement that
        embeds the query (e.g. `INSERT … SELECT … WHERE id IN (<this>)`)."""
        sql, params, _, _ = self._bound(values, shape)
        return sql, params

    def _bound(self, values: dict[str, Any], shape: dict[str, Any]) -> tuple[str, list, list, list]:
        """SQL, this call's parameters, the row's names and the converters."""
        sql, params, varying, names, used, converters = self._compiled(tuple(sorted(shape.items())), shape)
        if used != values.keys():
            # A value the SQL never saw would be silently ignored: refuse instead.
            raise ValueError(f"{self._build.__qualname__} takes {sorted(used)} in this shape, got {sorted(values)}")
        params = list(params)
        for position, name in varying:
            params[position] = values[name]
        return sql, params, names, converters

    def rows(self, values: dict[str, Any], **shape: Any) -> list[dict[str, Any]]:
        """The query's rows as dicts (the names `.values()` would give), for
        `values`; `shape` (hashable keyword arguments) picks the compiled form."""
        sql, params, names, converters = self._bound(values, shape)
        # Planning these joins took longer than running them (cards by id:
        # 1.4 ms planning, 0.3 ms execution).
        with prepared_cursor() as cursor:
            cursor.execute(sql, params)
            rows = cursor.fetchall()
        if converters:
            rows = [_converted(row, converters) for row in rows]
        return [dict(zip(names, row)) for row in rows]


def prepared_cursor() -> CursorWrapper:
    """A cursor whose statements are server-side prepared, once per pooled
    connection and statement text. Django's own cursors bind client-side and
    never prepare; Django's wrapper still logs, counts and times these."""
    connection.validate_thread_sharing()
    connection.ensure_connection()
    wrapper = _PreparedDebugWrapper if connection.queries_logged else CursorWrapper
    return wrapper(_PreparingCursor(connection.connection), connection)


class _PreparedDebugWrapper(CursorDebugWrapper):
    def execute(self, sql, params=None):
        # Logs the statement as written: a prepared statement has no composed
        # text for Django to read back (it would log None).
        with self.debug_sql(sql, params):
            return CursorWrapper.execute(self, sql, params)


class _PreparingCursor(psycopg.Cursor):
    def execute(self, query, params=None, *, prepare=None, binary=None):
        return super().execute(query, params, prepare=True, binary=binary)


def _converted(row: tuple, converters: list) -> list:
    # SQLCompiler.apply_converters, with this thread's connection.
    row = list(row)
    for position, (functions, expression) in converters:
        for function in functions:
            row[position] = function(row[position], expression, connection)
    return row
