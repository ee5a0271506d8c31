"""Each API call once, for the sync and the async client alike.

An operation is a generator: it yields the HTTP calls it needs (a scope named by
name costs one listing first) and returns the typed result. `MemoryClient`
drives it with blocking I/O, `AsyncMemoryClient` with `await`.
"""

from __future__ import annotations

from collections.abc import Generator
from dataclasses import dataclass
from typing import Any

from .types import Answer, Card, Context, Count, Job, Profile, Recalled, Remembered, Scope

ScopeRef = int | str  # an id, a scope's name, or "personal", "family" or "team" (the API says which is yours)

# The words the API itself names a scope by: sent as they are.
_SCOPE_WORDS = ("personal", "family", "team")


@dataclass(frozen=True)
class Call:
    method: str
    path: str  # under /api/v1/
    json: dict | None = None
    params: dict | None = None


Op = Generator[Call, Any, Any]


def _clean(**fields: Any) -> dict:
    return {name: value for name, value in fields.items() if value is not None}


def _all_scopes() -> Op:
    listed: list[dict] = []
    params: dict = {"limit": 500}
    while True:
        page = yield Call("GET", "scopes/", params=params)
        listed.extend(page["results"])
        if not page.get("next"):
            return listed
        params = {"cursor": page["next"].split("cursor=", 1)[1].split("&", 1)[0], "limit": 500}


def _scope_id(scope: ScopeRef | None, known: dict[str, int]) -> Op:
    """The scope as the API takes it: an id, one of its words, or None (a read of every scope)."""
    if scope is None:
        return None
    if isinstance(scope, int) or (str(scope).strip().isascii() and str(scope).strip().isdigit()):
        return int(scope)
    wanted = str(scope).strip().casefold()
    if wanted in _SCOPE_WORDS:
        return wanted
    if wanted not in known:
        for listed in (yield from _all_scopes()):
            known.setdefault(listed["name"].casefold(), listed["id"])
    if wanted not in known:
        from .errors import NotFound
        raise NotFound(404, {"code": "not_found", "detail": f"No scope named {scope!r} is readable with this token."})
    return known[wanted]


def scopes(known: dict[str, int]) -> Op:
    """The scopes this token may read."""
    return [Scope.of(raw) for raw in (yield from _all_scopes())]


def remember(known: dict[str, int], scope: ScopeRef, kind: str, subject: str, label: str, *,
             value: str | None = None, text: str | None = None, object: str | None = None,
             when: str | None = None, reference_time: str | None = None, effective_at: str | None = None,
             tag: str | None = None, confidence: str | float | None = None, impact: int | None = None,
             consent: bool | None = None, session: str | None = None, message: str | None = None,
             quote: str | None = None, perspectives: dict[str, str] | None = None) -> Op:
    """Store one card. `when` takes words ("last Friday", 昨天) or an ISO date."""
    body = _clean(scope=(yield from _scope_id(scope, known)), kind=kind, subject=subject, label=label, value=value,
                  text=text, object=object, when=when, reference_time=reference_time, effective_at=effective_at,
                  tag=tag, confidence=confidence, impact=impact, consent=consent, perspectives=perspectives,
                  source=_clean(session=session, message=message, quote=quote) or None)
    return Remembered.of((yield Call("POST", "cards/", json=body)))


def remember_many(known: dict[str, int], cards: list[dict], *, session: str | None = None) -> Op:
    """Store several cards, all or nothing; each shaped as the API's remember body."""
    shaped = []
    for card in cards:
        card = dict(card)
        card["scope"] = yield from _scope_id(card["scope"], known)
        if session and not (card.get("source") or {}).get("session"):
            card["source"] = {**(card.get("source") or {}), "session": session}
        shaped.append(card)
    answer = yield Call("POST", "cards/bulk/", json={"cards": shaped})
    return [Remembered.of(result) for result in answer["results"]]


def recall(known: dict[str, int], scope: ScopeRef | None, query: str, *, k: int | None = None,
           when: str | None = None, as_of: str | None = None, tz: str | None = None,
           subject: str | None = None) -> Op:
    """The cards most relevant to `query`, best first; `no_evidence` when nothing fits."""
    body = _clean(scope=(yield from _scope_id(scope, known)), query=query, k=k, when=when, as_of=as_of, tz=tz,
                  subject=subject)
    return Recalled.of((yield Call("POST", "recall/", json=body)))


def context(known: dict[str, int], scope: ScopeRef | None, query: str, *, budget: int | None = None,
            when: str | None = None, tz: str | None = None) -> Op:
    """A memory block for a prompt, within `budget` tokens."""
    params = _clean(scope=(yield from _scope_id(scope, known)), query=query, budget=budget, when=when, tz=tz)
    return Context.of((yield Call("GET", "context/", params=params)))


def profile(known: dict[str, int], scope: ScopeRef) -> Op:
    """How to talk to the person: their stated style, constraints and boundaries, and guesses labelled so."""
    scope_id = yield from _scope_id(scope, known)
    return Profile.of((yield Call("GET", "profile/", params={"scope": scope_id})))


def ask(known: dict[str, int], scope: ScopeRef | None, question: str, *, as_of: str | None = None,
        tz: str | None = None) -> Op:
    """A plain question answered from memory, saying how it knows (`tier`)."""
    body = _clean(scope=(yield from _scope_id(scope, known)), question=question, as_of=as_of, tz=tz)
    return Answer.of((yield Call("POST", "ask/", json=body)))


def count(known: dict[str, int], scope: ScopeRef | None, label: str, *, subject: str | None = None,
          when: str | None = None, tz: str | None = None) -> Op:
    """How many events of `label` (for `subject`, within `when`)."""
    body = _clean(scope=(yield from _scope_id(scope, known)), label=label, subject=subject, when=when, tz=tz)
    return Count.of((yield Call("POST", "count/", json=body)))


def forget(known: dict[str, int], scope: ScopeRef | None = None, subject: str | None = None, *,
           label: str | None = None, card: int | None = None) -> Op:
    """Erase at once: one `card`, or a subject's `label` timeline, or all about a subject in a scope."""
    if card is not None:
        yield Call("DELETE", f"cards/{int(card)}/")
        return {"cards": 1}
    # Without a card, the API's own validation names what is missing (scope, subject).
    scope_id = (yield from _scope_id(scope, known)) if scope is not None else None
    body = _clean(scope=scope_id, subject=subject, label=label)
    return (yield Call("POST", "forget/", json=body))["receipt"]


def ingest(known: dict[str, int], scope: ScopeRef, session: str, messages: list[dict]) -> Op:
    """A conversation for extraction; its candidates wait for the person's review."""
    body = {"scope": (yield from _scope_id(scope, known)), "session": session, "messages": messages}
    return Job.of((yield Call("POST", "ingest/", json=body)))


def next_probe(known: dict[str, int], scope: ScopeRef) -> Op:
    """One guess to check with the person, or None."""
    scope_id = yield from _scope_id(scope, known)
    answer = yield Call("GET", "probes/next/", params={"scope": scope_id})
    return Card.of(answer) if answer else None


def confirm(known: dict[str, int], card: int, *, quote: str | None = None, tag: str | None = None,
            consent: bool | None = None, session: str | None = None) -> Op:
    """The person said the guess is true: the stated card."""
    body = _clean(quote=quote, tag=tag, consent=consent, session=session)
    return Card.of((yield Call("POST", f"cards/{int(card)}/confirm/", json=body)))


def reject(known: dict[str, int], card: int, *, reason: str | None = None) -> Op:
    """The person said the guess is wrong."""
    yield Call("POST", f"cards/{int(card)}/reject/", json=_clean(reason=reason))
    return None


OPERATIONS = (scopes, remember, remember_many, recall, context, profile, ask, count, forget, ingest, next_probe,
              confirm, reject)
