"""The agent's context block (DESIGN §6) for a query: recall in the caller's
own words, cut to a token budget, most important first. GET /api/v1/context/
returns `context_read`; any other client (a dashboard page, an MCP tool) calls it too."""

from __future__ import annotations

from django.utils import timezone

from scopes.principals import Principal

from ..context import context_block, context_lines
from ..when import speaker_zone
from .recall import recall_body


def context_read(*, principal: Principal, scope_id: int, query: str, budget: int, k: int = 20,
                 when: str | None = None, tz: str | None = None) -> dict:
    """{"prompt", "cards", "tokens"}: the block, the cards it holds, and its size in the model's tokens."""
    body, me_id = recall_body(principal, scope_id=scope_id, query=query, k=k, when=when, tz=tz, as_of=None)
    lines = context_lines(results=body["results"], aging=body["aging_facts"],
                          contradictions=body["contradictions"], me_id=me_id)
    # <current_time> in the zone the agent asked about (tz), else the person's.
    now = timezone.localtime(timezone.now(), speaker_zone(principal.user, tz))
    prompt, card_ids, tokens = context_block(now=now, lines=lines, budget=budget)
    return {"prompt": prompt, "cards": card_ids, "tokens": tokens}
