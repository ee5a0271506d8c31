"""Where a propose-only token's write goes (DESIGN §4.6: a model proposes, a
person decides). Each card it asks to remember waits as a candidate in its
person's review queue — never a card, never an entity — until a person
approves it through candidate_approve, which writes it through card_remember
with every rule of the store. Checked first as a write would be (the draft's
own rules, a registered label of the right kind), so an agent learns at once
what can never be approved."""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone

from cards.drafts import CardDraft, aware, draft_text_in
from cards.services.write_plan import draft_label
from cards.time.when import zone_from_label
from core.errors import DomainError
from scopes.models import AgentToken, Scope, User
from scopes.zones import person_zone

from ..models import Candidate, CandidateStatus

PROPOSED = "agent"  # the candidate's `extractor`: an agent's own card, not an extraction


def _candidate(*, scope: Scope, author: User, token: AgentToken, draft: CardDraft) -> Candidate:
    draft = draft_text_in(draft)
    label = draft_label(draft)
    tz = zone_from_label(draft.time_zone) if draft.time_zone else person_zone(author)
    return Candidate(
        scope=scope, author=author, proposed_by=token, extractor=PROPOSED, kind=draft.kind, label=label.key,
        subject=draft.subject if isinstance(draft.subject, str) else draft.subject.name, value=draft.value,
        object=(draft.object if isinstance(draft.object, str) else draft.object.name) if draft.object else "",
        text=draft.text, tag=draft.tag, confidence=draft.confidence, impact=draft.impact,
        effective_at=aware(draft.effective_at, tz) if draft.effective_at else None,
        occurred_at=draft.occurred_at, occurred_end=draft.occurred_end, precision=draft.precision,
        time_source=draft.time_source, quote=draft.source_quote, session=draft.source_session,
        message=draft.source_message,
        message_at=aware(draft.reference_time, tz) if draft.reference_time else timezone.now(),
        anchor_zone=draft.time_zone or "", perspectives=draft.perspectives or {},
        # A sensitive attribute is approved only with the person's consent, whatever the agent said.
        status=CandidateStatus.NEEDS_CONSENT if label.sensitive else CandidateStatus.PENDING)


@transaction.atomic
def candidates_propose(*, author: User, token: AgentToken, items: list[tuple[Scope, CardDraft]],
                       indexed: bool = True) -> list[Candidate]:
    """One candidate per (scope, draft), all or nothing; a refusal names its
    item's `index` when `indexed` (a bulk call)."""
    candidates = []
    for index, (scope, draft) in enumerate(items):
        try:
            candidates.append(_candidate(scope=scope, author=author, token=token, draft=draft))
        except DomainError as error:
            if indexed:
                error.extra.setdefault("index", index)
            raise
    return Candidate.objects.bulk_create(candidates)
