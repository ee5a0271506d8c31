"""The one way into every API view: `View` resolves who asks (`self.principal`)
and, where the URL names a scope, that scope with the action the method asks
there (`self.scope`) before the handler runs — the same 404 (not visible) and
403 (not allowed) as every read. A scope named in the body or query is resolved
by `scope_named` once the handler has validated its input, so a malformed
request stays a 400 whatever it names. The request's reads are noted for the
upkeep job when it is answered (scopes/idle.py), once per scope.

It lives here, in the ladder's API package, because it is made of the ladder
(principals, scopes) and of DRF: core may not import the ladder, and nothing
but an API package imports DRF. Every app's API package subclasses it (the
import contracts let them, pyproject.toml)."""

from __future__ import annotations

from rest_framework.views import APIView

from ..idle import reads_noted
from ..models import Scope
from ..principals import Principal, principal_of
from ..selectors import scope_get, scope_ref_id


class View(APIView):
    # No docstring: drf-spectacular would take it for the description of every operation that has none.

    # The action each method asks of the scope the URL names (its `scope_id`): {"GET": "view", "POST": "manage"}.
    # A method not listed resolves no scope before its handler.
    scope_actions: dict[str, str] = {}

    principal: Principal
    scope: Scope | None = None

    def dispatch(self, request, *args, **kwargs):
        with reads_noted():
            return super().dispatch(request, *args, **kwargs)

    def initial(self, request, *args, **kwargs):
        super().initial(request, *args, **kwargs)  # authentication, permissions, throttles first
        self.principal = principal_of(request)
        action = self.scope_action(request, **kwargs)
        if action is not None:
            self.scope = scope_get(principal=self.principal, scope_id=kwargs["scope_id"], action=action)

    def scope_action(self, request, **kwargs) -> str | None:
        """What this request asks of the scope its URL names (None: it names none, or resolves it later)."""
        # HEAD is answered by the GET handler (Django's View.setup), so it asks what GET asks.
        return self.scope_actions.get("GET" if request.method == "HEAD" else request.method)

    def scope_named(self, scope_id: int | str, action: str = "view") -> Scope:
        """A scope the validated body or query names (by id, or as "personal", "family" or "team":
        scopes.selectors.scope_ref_id), with `action` (404 / 403 as above)."""
        return scope_get(principal=self.principal, scope_id=scope_ref_id(principal=self.principal, ref=scope_id),
                         action=action)
