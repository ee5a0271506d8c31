"""The one way into every dashboard page: `page` signs the person in (core.pages
maps a refusal to the 403 page), checks the method, then hands the view who
asks (`principal`, when the view takes it) and, where the URL names a scope,
that scope with the action the page asks there (`scope`, in place of the URL's
`scope_id`) — the same 404 (not visible) and 403 (not allowed) as the API, in
the same order as the API's base view (scopes/api/entry.py): sign-in, method,
scope, then the page. The page's reads are noted for the upkeep job when it is
answered (scopes/idle.py), once per scope.

It lives in the ladder's pages because it is made of the ladder: core may not
import it, and every app's pages (and the site's) may import these."""

from __future__ import annotations

import functools
import inspect

from django.views.decorators.http import require_http_methods

from core import pages

from ..idle import reads_noted
from ..principals import principal_of_page
from ..selectors import scope_get


def page(view=None, *, scope: str | None = None, action: str = "view", resolve=None,
         methods: tuple[str, ...] | None = None):
    """`@page`, or `@page(scope="scope_id", action="manage", methods=("POST",))`. A page
    that asks a right no single action names hands its own reader as `resolve`
    (called as `scope_get` is: principal=, scope_id=; 404 / 403 the same way)."""
    if view is None:
        return functools.partial(page, scope=scope, action=action, resolve=resolve, methods=methods)
    scope_of = resolve or functools.partial(scope_get, action=action)
    takes_principal = "principal" in inspect.signature(view).parameters

    @functools.wraps(view)
    def entered(request, *args, **kwargs):
        principal = principal_of_page(request)
        if scope is not None:
            kwargs["scope"] = scope_of(principal=principal, scope_id=kwargs.pop(scope))
        if takes_principal:
            kwargs["principal"] = principal
        with reads_noted():
            return view(request, *args, **kwargs)

    # What the URL's scope is resolved as, read back by tests/test_one_way_in.py
    # (functools.wraps carries it through the wrappers below).
    entered.page_scope = scope
    return pages.page(require_http_methods(methods)(entered) if methods else entered)
