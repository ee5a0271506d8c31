"""One way into every view (scopes/api/entry.py, scopes/pages/entry.py).

Who asks, and the scope a URL names with the action asked there, are resolved
once, before the handler, by the API's base view and the pages' decorator; the
request's reads are noted there too (scopes/idle.py). This file walks every
module of an `api/` or `pages/` package, and the site's pages, and fails on a
view that opens itself: a call of `principal_of`, `principal_of_page` or
`scope_get`, a DRF `APIView` subclassed around the base view, or the bare
`core.pages.page` used in place of the decorator. A second test holds every API
route to the base view at run time.

Allowed, each for its reason (ALLOWED): the two entries themselves, and a scope
that is no URL's but a validated form's (the new scope's parent)."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from django.urls import URLPattern, URLResolver

from scopes.api.entry import View

ROOT = Path(__file__).resolve().parent.parent

VIEW_MODULES = ("*/api/*.py", "*/pages/*.py", "memory_site/home.py", "memory_site/connect.py")
ENTRIES = {"scopes/api/entry.py", "scopes/pages/entry.py"}
OPENINGS = {"principal_of", "principal_of_page", "scope_get"}
# A page names its methods once, through `page(methods=...)`, not by stacking Django's.
METHOD_DECORATORS = {"require_POST", "require_GET", "require_safe", "require_http_methods"}

# (module, function, call): why it may resolve a scope itself.
ALLOWED = {
    ("memory_site/home.py", "scope_create_page", "scope_get"):
        "the new scope's parent, named by the form once it is valid (manage there); the URL names no scope",
}


def view_modules() -> list[Path]:
    found = {path for pattern in VIEW_MODULES for path in ROOT.glob(pattern)}
    return sorted(path for path in found if path.relative_to(ROOT).as_posix() not in ENTRIES
                  and not path.relative_to(ROOT).parts[0] in {"tests", "bench"})


def openings(source: str, module: str) -> list[str]:
    """Where `source` opens a view by hand, as `module:line function: what`."""
    tree = ast.parse(source)
    found = []

    def visit(node, function: str):
        for child in ast.iter_child_nodes(node):
            name = child.name if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)) else function
            if isinstance(child, ast.Call):
                called = child.func.id if isinstance(child.func, ast.Name) else (
                    child.func.attr if isinstance(child.func, ast.Attribute) else None)
                if called in OPENINGS and (module, function, called) not in ALLOWED:
                    found.append(f"{module}:{child.lineno} {function}: calls {called}")
            if isinstance(child, ast.ClassDef) and any(
                    (isinstance(base, ast.Name) and base.id == "APIView")
                    or (isinstance(base, ast.Attribute) and base.attr == "APIView") for base in child.bases):
                found.append(f"{module}:{child.lineno} {child.name}: subclasses APIView, not the base view")
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                for decorator in child.decorator_list:
                    named = decorator.func if isinstance(decorator, ast.Call) else decorator
                    named = named.id if isinstance(named, ast.Name) else getattr(named, "attr", None)
                    if named in METHOD_DECORATORS:
                        found.append(f"{module}:{child.lineno} {child.name}: @{named}, not @page(methods=...)")
            if isinstance(child, ast.ImportFrom) and child.module == "core.pages" and any(
                    alias.name == "page" for alias in child.names):
                found.append(f"{module}:{child.lineno}: imports core.pages.page, not the pages' decorator")
            visit(child, name)

    visit(tree, "<module>")
    return found


def test_no_view_opens_itself():
    modules = view_modules()
    assert len(modules) > 20, "the walk found too few view modules: has the layout moved?"
    problems = [p for path in modules for p in openings(path.read_text(), path.relative_to(ROOT).as_posix())]
    assert not problems, "Resolve the principal and the scope through the one way in:\n" + "\n".join(problems)


def test_every_allowed_opening_still_exists():
    """A listed exception that no longer happens is taken off the list."""
    for module, function, called in ALLOWED:
        tree = ast.parse((ROOT / module).read_text())
        bodies = [n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name == function]
        assert any(isinstance(c, ast.Call) and getattr(c.func, "id", None) == called
                   for body in bodies for c in ast.walk(body)), (module, function, called)


@pytest.mark.parametrize("planted", [
    "def page(request):\n    principal = principal_of_page(request)\n",
    "class V(APIView):\n    def get(self, request):\n        return principal_of(request)\n",
    "def view(request, scope_id):\n    return selectors.scope_get(principal=p, scope_id=scope_id)\n",
    "from core.pages import error_fields, page\n",
    "@page\n@require_POST\ndef view(request):\n    pass\n",
    "@page\n@http.require_http_methods(['GET', 'POST'])\ndef view(request):\n    pass\n",
])
def test_the_walk_finds_a_planted_opening(planted):
    assert openings(planted, "cards/pages/planted.py")


def _routes(patterns):
    for pattern in patterns:
        if isinstance(pattern, URLResolver):
            yield from _routes(pattern.url_patterns)
        elif isinstance(pattern, URLPattern):
            yield pattern


def test_every_api_route_comes_in_through_the_base_view():
    from memory_site.api import urls

    views = {getattr(route.callback, "cls", None) for route in _routes(urls.urlpatterns)}
    ours = {view for view in views if view is not None and view.__module__.split(".")[0] in
            {"core", "scopes", "cards", "review", "memory_site"}}
    assert len(ours) > 30
    assert [view.__qualname__ for view in ours if not issubclass(view, View)] == []


def test_every_page_that_names_a_scope_resolves_it_through_the_entry():
    """A dashboard URL that names a scope hands it to `page(scope=...)`, which
    resolves it with the page's action (404 / 403) before the view runs; every
    other page of ours still comes in through `page`."""
    from memory_site import web_urls

    ours = [route for route in _routes(web_urls.urlpatterns)
            if route.callback.__module__.split(".")[0] in {"core", "scopes", "cards", "review", "memory_site"}]
    assert len(ours) > 30
    named = [route for route in ours if "scope_id" in route.pattern.converters]
    assert len(named) > 15
    assert [str(route.pattern) for route in named if getattr(route.callback, "page_scope", None) != "scope_id"] == []
    # Pages for people not yet signed in: the language switch, and an invite link (sign up, or join).
    outside = {"language_page", "invite_page"}
    assert [str(route.pattern) for route in ours if not hasattr(route.callback, "page_scope")
            and route.callback.__name__ not in outside] == []
