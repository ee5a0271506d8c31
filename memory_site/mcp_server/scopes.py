"""Scopes named as a person names them: an id, "personal", "family" or "team", or the scope's name.

A model knows "the Lee family", not 12. Names are matched among the scopes the
token itself lists (GET /api/v1/scopes/), so a name can never reach a scope the
token could not read by id.
"""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

from core.scope_words import SCOPE_WORDS

from .rest import Answer, Caller, call

_MAX_PAGES = 20  # 50 scopes a page: a thousand scopes is past any household or team


class ScopeNotNamed(Exception):
    def __init__(self, answer: Answer) -> None:
        super().__init__(answer.body.get("detail"))
        self.answer = answer


def scopes_listed(caller: Caller) -> Answer:
    """Every scope the token may read, all pages in one list."""
    listed: list[dict] = []
    query: dict = {"limit": 500}
    for _ in range(_MAX_PAGES):
        answer = call(caller, "GET", "scopes/", query=query)
        if not answer.ok:
            return answer
        listed.extend(answer.body["results"])
        if not answer.body.get("next"):
            break
        query = {key: values[0] for key, values in parse_qs(urlsplit(answer.body["next"]).query).items()}
    return Answer(200, {"results": listed})


def scope_id(caller: Caller, scope: int | str) -> int | str:
    """The id for `scope`, or one of the words the API names a scope by ("personal", "family",
    "team": the API says which scope the caller's one of that kind is); raises ScopeNotNamed
    (not_found or ambiguous_scope) otherwise."""
    if isinstance(scope, int) or (isinstance(scope, str) and scope.strip().isascii() and scope.strip().isdigit()):
        return int(scope)
    if scope.strip().casefold() in SCOPE_WORDS:
        return scope.strip().casefold()
    listed = scopes_listed(caller)
    if not listed.ok:
        raise ScopeNotNamed(listed)
    wanted = scope.strip().casefold()
    found = [s for s in listed.body["results"] if s["name"].casefold() == wanted]
    if len(found) == 1:
        return found[0]["id"]
    if not found:
        names = ", ".join(f"{s['name']} ({s['id']})" for s in listed.body["results"])
        raise ScopeNotNamed(Answer(404, {"code": "not_found",
                                         "detail": f"No scope named {scope!r} is readable with this token. "
                                                   f"Readable: {names}."}))
    raise ScopeNotNamed(Answer(400, {"code": "ambiguous_scope",
                                     "detail": f"{len(found)} scopes are named {scope!r}: give the id.",
                                     "candidates": [{"id": s["id"], "name": s["name"], "kind": s["kind"]}
                                                    for s in found]}))
