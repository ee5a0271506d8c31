"""Each scope's health for the dashboard home, in a fixed number of queries
whatever the number of scopes: current cards, aging facts to re-check,
contradictions, open reviews, hypotheses awaiting confirmation."""

from __future__ import annotations

from dataclasses import dataclass
from urllib.parse import urlencode

from django.db import connection
from django.db.models import Count
from django.urls import reverse
from django.utils import timezone

from cards.models import Tag
from cards.recall.aging import aging_now
from cards.reads import Read, reads_joined
from cards.recall.contradictions import contradictions_in, contradictions_seen
from cards.selectors.read_scopes import reads_of
from cards.valid_time import valid_sql
from review.models import Candidate
from review.services.candidates import OPEN
from review.services.hypotheses import hypotheses_current
from scopes.principals import Principal, scope_ids_for
from scopes.selectors import read_scope_sets


@dataclass
class Health:
    """One scope's numbers, and for each the page listing exactly the items it counts
    (None: no such page for this viewer). A number and its link are kept here, together."""

    scope_id: int = 0
    cards: int = 0
    aging: int = 0
    contradictions: int = 0
    reviews: int = 0
    hypotheses: int = 0
    may_review: bool = False

    @property
    def cards_url(self) -> str:
        """The scope's current cards: its page's default view (that scope alone, valid now)."""
        return reverse("scope", args=[self.scope_id])

    @property
    def aging_url(self) -> str:
        """The scope's view of its facts due for a re-check (cards.recall.aging.aging_card_ids)."""
        return f"{reverse('scope', args=[self.scope_id])}?view=aging"

    @property
    def contradictions_url(self) -> str:
        """The contradictions a read in the scope meets, as counted: in the review queue, where a
        reviewer settles them; for anyone else the scope's view of their sides, ladder and all
        (the sides are in different scopes)."""
        if self.may_review:
            return f"{reverse('review-scope', args=[self.scope_id])}#contra-heading"
        return f"{reverse('scope', args=[self.scope_id])}?{urlencode({'view': 'contradictions', 'ladder': 'on'})}"

    @property
    def reviews_url(self) -> str | None:
        """The open proposals of the scope's review queue, which only its reviewers see."""
        return f"{reverse('review-scope', args=[self.scope_id])}#cand-heading" if self.may_review else None

    @property
    def hypotheses_url(self) -> str:
        """The guesses to confirm: in the review queue, where a reviewer confirms them; for
        anyone else the scope's current cards tagged as guesses (the same cards)."""
        if self.may_review:
            return f"{reverse('review-scope', args=[self.scope_id])}#hyp-heading"
        return f"{reverse('scope', args=[self.scope_id])}?{urlencode({'view': 'current', 'tag': Tag.HYPOTHESIS})}"


def _card_counts(scope_ids: list[int]) -> dict[int, tuple[int, int]]:
    """(current cards, aging facts) per scope; aging as the agent's context counts it."""
    sql = (f"SELECT c.scope_id, count(*), count(*) FILTER (WHERE {aging_now()})"
           f" FROM cards_card c WHERE c.scope_id = ANY(%(scopes)s) AND {valid_sql('c')} GROUP BY c.scope_id")
    with connection.cursor() as cursor:
        cursor.execute(sql, {"scopes": scope_ids, "at": timezone.now()})
        return {row[0]: (row[1], row[2]) for row in cursor.fetchall()}


def _contradiction_counts(reads: dict[int, Read]) -> dict[int, int]:
    """Contradictions a read in each scope meets, the shares it reads included: found once over
    every scope, then kept per scope where the sides it sees still differ."""
    every = reads_joined(reads.values())
    found = contradictions_in(scope_ids=every)
    if not found:
        return {}
    return {scope_id: len(seen) for scope_id, seen in contradictions_seen(found, reads=reads).items()}


def scopes_health(*, principal: Principal, scopes: list) -> dict[int, Health]:
    """Health of each of `scopes` (already restricted to what `principal` may view)."""
    ids = [s.id for s in scopes]
    health = {scope_id: Health(scope_id=scope_id) for scope_id in ids}
    for scope_id, (cards, aging) in _card_counts(ids).items():
        health[scope_id].cards, health[scope_id].aging = cards, aging
    for scope_id, count in _contradiction_counts(
            reads_of(read_scope_sets(principal=principal, scope_ids=ids), principal=principal)).items():
        health[scope_id].contradictions = count
    for row in hypotheses_current().in_scopes(ids).values("scope_id").annotate(n=Count("id")):
        health[row["scope_id"]].hypotheses = row["n"]
    reviewable = set(scope_ids_for(principal, "review").filter(id__in=ids).values_list("id", flat=True))
    for scope_id in reviewable:
        health[scope_id].may_review = True
    for row in (Candidate.objects.in_scopes(reviewable).filter(status__in=OPEN)
                .values("scope_id").annotate(n=Count("id"))):
        health[row["scope_id"]].reviews = row["n"]
    return health
