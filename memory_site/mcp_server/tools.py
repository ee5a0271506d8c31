"""The MCP tools: each is one REST route, called as the token (rest.py).

Scopes may be named by id, by name or as "personal", "family" or "team" (scopes.py); reads may name
none; `session`, the
conversation's id, goes where the REST body records it (a card's
`source.session`, an ingest's `session`, a confirmation's source).
"""

from __future__ import annotations

import contextvars
from collections.abc import Callable
from typing import Annotated, Any, Literal

from asgiref.sync import sync_to_async
from mcp.server.mcpserver import Context, MCPServer
from mcp.types import CallToolResult, ToolAnnotations
from pydantic import Field

from . import descriptions as say
from .rest import Answer, Caller, call
from .results import tool_answer, tool_refusal
from .scopes import ScopeNotNamed, scope_id, scopes_listed

# stdio has no HTTP request: `manage.py mcp --token …` sets the caller here.
STDIO_CALLER: contextvars.ContextVar[Caller | None] = contextvars.ContextVar("mcp_stdio_caller", default=None)
CALLER_KEY = "memory_site.caller"  # where the /mcp/ view puts the authenticated caller in the ASGI scope

ScopeRef = Annotated[int | str, Field(description='The scope: its id (12), its name ("Lee family"), or "personal", '
                                                 '"family" or "team" for your one scope of that kind.')]
ReadScope = Annotated[int | str | None, Field(description='Where to read: a scope as `scope` names one elsewhere; '
                                                         'default every scope you read.')]
Session = Annotated[str | None, Field(description="This conversation's id. Writes record it as their source; "
                                                  "guesses about a person fade unless reinforced across sessions.")]
When = Annotated[str | None, Field(description='Time words or a date: "yesterday", "last weekend", 上週, '
                                               '"2026-05-08". Resolved in the person\'s time zone.')]
Instant = Annotated[str | None, Field(description="An ISO instant with its offset, e.g. 2026-05-08T16:44:10+08:00.")]
Zone = Annotated[str | None, Field(description='IANA time zone for time words, e.g. "Europe/Lisbon"; '
                                               "default the person's own.")]

READS = ToolAnnotations(read_only_hint=True, open_world_hint=False)
WRITES = ToolAnnotations(read_only_hint=False, destructive_hint=False, open_world_hint=False)
ERASES = ToolAnnotations(read_only_hint=False, destructive_hint=True, open_world_hint=False)


def caller_of(ctx: Context) -> Caller:
    request = ctx.request_context.request
    caller = request.scope.get(CALLER_KEY) if request is not None else STDIO_CALLER.get()
    if caller is None:  # only a misconfigured transport gets here: the view refuses a request without a token
        raise RuntimeError("no agent token for this MCP call")
    return caller


async def _run(ctx: Context, work: Callable[[Caller], Answer], *, empty: dict | None = None) -> CallToolResult:
    caller = caller_of(ctx)

    def in_django() -> CallToolResult:
        try:
            return tool_answer(work(caller), empty=empty)
        except ScopeNotNamed as unnamed:
            return tool_refusal(unnamed.answer)
    # The ORM is synchronous: the thread the request (or the stdio server) keeps for it.
    return await sync_to_async(in_django)()


def _body(**fields: Any) -> dict:
    return {name: value for name, value in fields.items() if value is not None}


async def _scoped(ctx: Context, method: str, route: str, scope: ScopeRef | None, *, empty: dict | None = None,
                  **fields: Any) -> CallToolResult:
    """The route called with `scope` (named or an id) and `fields`: as the JSON body,
    or for a GET as the query. A missing scope is left to the route to refuse."""
    def work(caller: Caller) -> Answer:
        sent = _body(scope=scope_id(caller, scope) if scope is not None else None, **fields)
        return call(caller, method, route, **({"query": sent} if method == "GET" else {"body": sent}))
    return await _run(ctx, work, empty=empty)


def _with_session(card: dict, session: str | None) -> dict:
    if session and not (card.get("source") or {}).get("session"):
        card = {**card, "source": {**(card.get("source") or {}), "session": session}}
    return card


def _card(caller: Caller, card: dict, session: str | None) -> dict:
    card = _with_session(card, session)
    if isinstance(card.get("scope"), str):
        card = {**card, "scope": scope_id(caller, card["scope"])}
    return card


async def remember(
    ctx: Context, scope: ScopeRef, kind: Literal["state", "event", "knowledge"],
    subject: Annotated[str, Field(description='Who or what it is about: "me" (the person), a name, or a '
                                             'relation word ("Mom", "my wife").')],
    label: Annotated[str, Field(description='A registered label or synonym: "address", "employer", "allergy", '
                                           '"trip", "birthday"… An unknown one is refused with suggestions.')],
    value: Annotated[str | None, Field(description='The value: "Kyoto", "peanuts".')] = None,
    text: Annotated[str | None, Field(description="The fact in one plain sentence.")] = None,
    object: Annotated[str | None, Field(description="For relations: who or what the subject relates to.")] = None,
    when: When = None,
    reference_time: Annotated[str | None, Field(description="When the person said it (ISO, with offset): "
                                                            "anchors 'yesterday'. Default now.")] = None,
    tag: Annotated[Literal["fact", "preference", "goal", "boundary", "hypothesis"] | None,
                   Field(description='Default "fact"; "hypothesis" for a guess you were not told.')] = None,
    confidence: Annotated[str | float | None, Field(description='For a hypothesis: "high", "medium", "low" '
                                                                 "or 0..1.")] = None,
    consent: Annotated[bool, Field(description="True only after the person said yes to storing a sensitive "
                                               "fact (health, religion, sexuality…).")] = False,
    quote: Annotated[str | None, Field(description="The person's own words it came from.")] = None,
    session: Session = None,
) -> CallToolResult:
    def work(caller: Caller) -> Answer:
        card = _card(caller, _body(scope=scope, kind=kind, subject=subject, label=label, value=value, text=text,
                                   object=object, when=when, reference_time=reference_time, tag=tag,
                                   confidence=confidence, consent=consent or None,
                                   source=_body(quote=quote) or None), session)
        return call(caller, "POST", "cards/", body=card)
    return await _run(ctx, work)


async def remember_many(
    ctx: Context,
    cards: Annotated[list[dict[str, Any]], Field(description="Cards shaped as `remember` takes them (scope, kind, "
                                                             "subject, label, value/text…), 1 to 1000.")],
    session: Session = None,
) -> CallToolResult:
    def work(caller: Caller) -> Answer:
        return call(caller, "POST", "cards/bulk/", body={"cards": [_card(caller, c, session) for c in cards]})
    return await _run(ctx, work)


async def recall(
    ctx: Context, query: Annotated[str, Field(description="What you want to know, in words.")],
    scope: ReadScope = None, k: Annotated[int, Field(ge=1, le=100, description="How many cards at most.")] = 10,
    when: When = None, as_of: Instant = None, tz: Zone = None,
    subject: Annotated[str | None, Field(description='Only cards about this person or thing ("me", a name).')] = None,
    session: Session = None,
) -> CallToolResult:
    return await _scoped(ctx, "POST", "recall/", scope, query=query, k=k, when=when, as_of=as_of, tz=tz,
                         subject=subject)


async def context(
    ctx: Context, query: Annotated[str, Field(description="The person's message or topic.")],
    scope: ReadScope = None, budget: Annotated[int, Field(ge=50, le=32_000, description="Most tokens the block may take.")] = 1500,
    when: When = None, tz: Zone = None, session: Session = None,
) -> CallToolResult:
    return await _scoped(ctx, "GET", "context/", scope, query=query, budget=budget, when=when, tz=tz)


async def profile(ctx: Context, scope: ScopeRef, session: Session = None) -> CallToolResult:
    return await _scoped(ctx, "GET", "profile/", scope)


async def ask(
    ctx: Context,
    question: Annotated[str, Field(description='A question in plain words: "Where does Kai live?", '
                                              '"How many times did I go to the gym last month?", 我住在哪裡?')],
    scope: ReadScope = None, as_of: Instant = None, tz: Zone = None, session: Session = None,
) -> CallToolResult:
    return await _scoped(ctx, "POST", "ask/", scope, question=question, as_of=as_of, tz=tz)


async def count(
    ctx: Context,
    label: Annotated[str, Field(description='The kind of event: "gym", "trip", "dentist"…')],
    scope: ReadScope = None, subject: Annotated[str | None, Field(description='Whose ("me", a name); default everyone\'s.')] = None,
    when: When = None, tz: Zone = None, session: Session = None,
) -> CallToolResult:
    return await _scoped(ctx, "POST", "count/", scope, label=label, subject=subject, when=when, tz=tz)


async def forget(
    ctx: Context, scope: ScopeRef | None = None,
    subject: Annotated[str | None, Field(description='Whose memory to erase: "me", a name.')] = None,
    label: Annotated[str | None, Field(description="Only this label's whole timeline.")] = None,
    card: Annotated[int | None, Field(description="Or one card, by id.")] = None,
    session: Session = None,
) -> CallToolResult:
    if card is not None:
        return await _run(ctx, lambda caller: call(caller, "DELETE", f"cards/{card}/"), empty={"forgotten": card})
    # Without a card, the route's own validation names what is missing (scope, subject).
    return await _scoped(ctx, "POST", "forget/", scope, subject=subject, label=label)


async def ingest(
    ctx: Context, scope: ScopeRef,
    messages: Annotated[list[dict[str, Any]], Field(description='The conversation: [{"role": "user"|"assistant", '
                                                                '"text": …, "at": ISO with offset}, …].')],
    session: Annotated[str, Field(description="This conversation's id.")],
) -> CallToolResult:
    return await _scoped(ctx, "POST", "ingest/", scope, session=session, messages=messages)


async def next_probe(ctx: Context, scope: ScopeRef, session: Session = None) -> CallToolResult:
    return await _scoped(ctx, "GET", "probes/next/", scope, empty={"probe": None})


async def confirm(
    ctx: Context, card: Annotated[int, Field(description="The hypothesis card's id (from next_probe).")],
    quote: Annotated[str | None, Field(description="The person's confirming words.")] = None,
    tag: Annotated[Literal["fact", "preference"] | None, Field(description="Default by the label.")] = None,
    consent: Annotated[bool, Field(description="The person consents to storing a sensitive fact.")] = False,
    session: Session = None,
) -> CallToolResult:
    def work(caller: Caller) -> Answer:
        return call(caller, "POST", f"cards/{card}/confirm/", body=_body(quote=quote, tag=tag, consent=consent,
                                                                         session=session))
    return await _run(ctx, work)


async def reject(
    ctx: Context, card: Annotated[int, Field(description="The hypothesis card's id (from next_probe).")],
    reason: Annotated[str | None, Field(description="What the person said.")] = None,
    session: Session = None,
) -> CallToolResult:
    def work(caller: Caller) -> Answer:
        return call(caller, "POST", f"cards/{card}/reject/", body=_body(reason=reason))
    return await _run(ctx, work, empty={"rejected": card})


async def correct(
    ctx: Context, card: Annotated[int, Field(description="The event card's id (from remember, recall or ask).")],
    when: Annotated[str | None, Field(description='When it really happened: "Sunday", "last Friday", 上週日, '
                                                  '"2026-05-03". Resolved in the person\'s time zone.')] = None,
    object: Annotated[str | None, Field(description="Where it really was, or who or what it really involved.")] = None,
    text: Annotated[str | None, Field(description="The corrected description, in one plain sentence.")] = None,
    reference_time: Annotated[str | None, Field(description="When the person said it (ISO, with offset): "
                                                            "anchors 'Sunday'. Default now.")] = None,
    reason: Annotated[str | None, Field(description="The person's words: \"it was Sunday, not Saturday\".")] = None,
    consent: Annotated[bool, Field(description="True only after the person said yes to storing a sensitive "
                                               "fact the new words mention.")] = False,
    session: Session = None,
) -> CallToolResult:
    def work(caller: Caller) -> Answer:
        return call(caller, "POST", f"cards/{card}/correct/", body=_body(
            when=when, object=object, text=text, reference_time=reference_time, reason=reason,
            consent=consent or None))
    return await _run(ctx, work)


async def list_scopes(ctx: Context, session: Session = None) -> CallToolResult:
    return await _run(ctx, scopes_listed)


TOOLS: list[tuple[Callable, ToolAnnotations]] = [
    (remember, WRITES), (remember_many, WRITES), (recall, READS), (context, READS), (profile, READS), (ask, READS),
    (count, READS), (forget, ERASES), (ingest, WRITES), (next_probe, READS), (confirm, WRITES),
    (reject, WRITES), (correct, WRITES), (list_scopes, READS),
]


def register(server: MCPServer) -> None:
    for function, annotations in TOOLS:
        server.add_tool(function, name=function.__name__, description=say.TOOLS[function.__name__],
                        annotations=annotations)
