"""Connect an agent: what an agent needs after a token is made — the base URL,
the token's scopes with their ids, ready-to-paste snippets (curl, the Python
client, MCP over HTTP and over stdio) and the API docs.

The token itself is shown only on the first view after it was created: the
creating POST keeps it in the session for that one GET (then drops it), so a
reload never creates another token and never shows this one again.
"""

from __future__ import annotations

import json
import shlex
import sys

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.utils.translation import gettext_lazy as _

from memory_site.mcp_server import http as mcp_http
from scopes.pages.entry import page
from scopes.selectors import scope_list
from scopes.tokens import TOKEN_PREFIX, TOKEN_SHOWN_ONCE, token_get

PLACEHOLDER = "<your token>"


def _secret_once(request: HttpRequest, token_id: int) -> str | None:
    kept = request.session.get(TOKEN_SHOWN_ONCE)
    if not kept or kept.get("token") != token_id:
        return None
    del request.session[TOKEN_SHOWN_ONCE]
    return kept["secret"]


_SNIPPETS = [
    # The titles curl and Python are names, the same in every language.
    ("curl", "curl", _("Recall from a shell.")),
    ("python", "Python", _("With the Python client (pip install ./clients/python from the site's source).")),
    ("mcp_http", _("MCP over HTTP"), _("For an MCP client that connects to a URL (an mcpServers entry).")),
    ("mcp_stdio", _("MCP over stdio"), _("For a desktop agent on the machine that runs the site: it starts the "
                                         "server itself.")),
]


def snippets(*, base: str, token: str, scope_id: int, writes: bool) -> dict[str, str]:
    api = base + "api/v1/"
    mcp_url = base + reverse("mcp").lstrip("/")
    curl = (f"curl -s {api}recall/ \\\n  -H {shlex.quote('Authorization: Bearer ' + token)} \\\n"
            f"  -H 'Content-Type: application/json' \\\n"
            f"  -d '{json.dumps({'scope': scope_id, 'query': 'what do you know about me?'})}'")
    python = "\n".join([
        "from memory_site_client import MemoryClient",
        "",
        f"client = MemoryClient({base!r}, {token!r})",
        *([f'saved = client.remember({scope_id}, "state", "me", "hobby", value="hiking",',
           '                        text="Enjoys hiking, remembered from Python")',
           "print(saved.outcome)"] if writes else []),
        f'for hit in client.recall({scope_id}, "hobbies").results[:3]:',
        "    print(round(hit.score, 3), hit.card.text)",
    ])
    mcp_http = json.dumps({"mcpServers": {"memory-site": {
        "type": "http", "url": mcp_url, "headers": {"Authorization": f"Bearer {token}"}}}}, indent=2)
    mcp_stdio = json.dumps({"mcpServers": {"memory-site": {
        "command": sys.executable, "args": [str(settings.BASE_DIR / "manage.py"), "mcp"],
        "env": {"MEMORY_SITE_TOKEN": token}}}}, indent=2, ensure_ascii=False)
    return {"curl": curl, "python": python, "mcp_http": mcp_http, "mcp_stdio": mcp_stdio}


@page
def token_connect_page(request: HttpRequest, token_id: int, *, principal) -> HttpResponse:
    token = token_get(person=request.user, token_id=token_id)
    secret = _secret_once(request, token.pk)
    if token.all_scopes:
        scopes = list(scope_list(principal=principal))
    else:
        scopes = list(token.scopes.order_by("id"))
    first = next((s for s in scopes if s.kind == "personal"), scopes[0] if scopes else None)
    base = request.build_absolute_uri("/")
    texts = snippets(base=base, token=secret or PLACEHOLDER, scope_id=first.pk if first else 0,
                     writes=token.can_write or token.proposes)
    return render(request, "scopes/connect.html", {
        "token": token, "secret": secret, "scopes": scopes, "base": base,
        "token_shape": f"{TOKEN_PREFIX}_…",  # the empty field's hint: how a token starts, the same in every language
        "mcp_url": mcp_http.mcp_url(request),
        "docs_url": request.build_absolute_uri(reverse("docs")),
        "snippets": [{"key": key, "title": title, "help": help, "text": texts[key],
                      "rows": texts[key].count("\n") + 2} for key, title, help in _SNIPPETS],
    })
