"""A function that translates with `_` never also assigns `_` (`row, _ = …`): Python then takes `_` for a
local everywhere in that function, and the translation raises UnboundLocalError — a 500 on that path."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
APPS = ("cards", "core", "memory_site", "review", "scopes")
_OWN_SCOPE = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef,
              ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)


def _assigns_underscore(function) -> bool:
    stack = list(ast.iter_child_nodes(function))
    while stack:
        node = stack.pop()
        if isinstance(node, _OWN_SCOPE):
            continue
        if isinstance(node, ast.Name) and node.id == "_" and isinstance(node.ctx, ast.Store):
            return True
        stack.extend(ast.iter_child_nodes(node))
    return False


def _calls_underscore(function) -> bool:
    return any(isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id == "_"
               for n in ast.walk(function))


def shadowing(source: str) -> list[str]:
    return [f"{node.name} (line {node.lineno})" for node in ast.walk(ast.parse(source))
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
            and _assigns_underscore(node) and _calls_underscore(node)]


def test_no_function_shadows_gettext():
    found = [f"{path.relative_to(ROOT)}: {where}" for app in APPS for path in sorted((ROOT / app).rglob("*.py"))
             if "migrations" not in path.parts for where in shadowing(path.read_text())]
    assert found == []


def test_the_check_finds_a_shadowing_function():
    assert shadowing("def f():\n    row, _ = g()\n    return _('x')\n") == ["f (line 1)"]
    assert shadowing("def f():\n    return [_ for _ in y], _('x')\n") == []
