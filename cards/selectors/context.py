"""The agent's context block (DESIGN §6) for a query: recall in the caller's
own words, cut to a token budget, most important first, with at most one
question for the person. GET /api/v1/context/ returns `context_read`; any other
client (a dashboard page, an MCP tool) calls it too."""

from __future__ import annotations

from django.utils import timezone

from scopes.models import User
from scopes.principals import Principal

from ..context import Question, context_block, context_lines, question_next
from ..signals import probe_asked
from ..time.when import speaker_zone
from .boundaries import boundaries_of
from .profile import profile_items
from .read_scopes import scope_ids_read
from .recall import probe_question, recall_body
from .shape import cards_out

def context_read(*, principal: Principal, scope_id: int | str | None, query: str, budget: int, k: int = 20,
                 when: str | None = None, tz: str | None = None) -> dict:
    """{"prompt", "cards", "tokens", "question", "questions_waiting"}: the block,
    the cards it holds, its size in the model's tokens, the one question it
    carries (null when none, or when the budget left it out) and how many more
    wait. The pending probe is the review queue's to say (cards.signals.probe_asked;
    the store never imports the queue); with no answer, no probe is offered."""
    scope_ids = scope_ids_read(principal=principal, scope_id=scope_id)
    body, me_id = recall_body(principal, scope_id=scope_id, query=query, k=k, when=when, tz=tz, as_of=None,
                              scope_ids=scope_ids)
    answers = [answer for _receiver, answer in probe_asked.send(sender=Principal, user=principal.user,
                                                                scope_ids=scope_ids)]
    probe_id, probes_waiting = answers[0] if answers else (None, 0)
    total = sum(body["questions_waiting"].values()) + probes_waiting
    question = question_next(contradictions=body["contradictions"], aging=body["aging_facts"],
                             probe=lambda: _probe(probe_id, principal.user, scope_ids))
    # <current_time> in the zone the agent asked about (tz), else the person's.
    now = timezone.localtime(timezone.now(), speaker_zone(principal.user, tz))
    # How to talk to the person, dated in their own zone; boundaries are not among
    # these lines (the block holds them apart).
    profile = [item for item in profile_items(principal=principal, scope_ids=scope_ids,
                                              zone=speaker_zone(principal.user, None))
               if item["group"] != "boundary"]
    lines = context_lines(results=body["results"], aging=body["aging_facts"], contradictions=body["contradictions"],
                          me_id=me_id, question=question, more=max(total - 1, 0), profile=profile,
                          boundaries=boundaries_of(user=principal.user, me_id=me_id, scope_ids=scope_ids))
    prompt, card_ids, tokens, taken = context_block(now=now, lines=lines, budget=budget)
    carried = question is not None and any(line.section == "question" for line in taken)
    return {"prompt": prompt, "cards": card_ids, "tokens": tokens,
            "question": {"kind": question.kind, "card": question.card_id, "text": question.text} if carried else None,
            "questions_waiting": max(total - 1, 0) if carried else total}


def _probe(card_id: int | None, user: User, scope_ids: list[int]) -> Question | None:
    if card_id is None:
        return None
    # The probe is a hypothesis of the read's scopes (probes(scope_ids=…)): read there.
    return Question("probe", card_id, probe_question(cards_out([card_id], user=user, scope_ids=scope_ids)[0]))
