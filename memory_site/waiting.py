"""What waits for one person (issue 20, "what waits for a person is seen"): the
home page's "Waiting for you" lists it, the header counts it. One selector,
read once per request (`waiting_for_request`), in a fixed number of queries
whatever the number of scopes or items:

- reviews: open candidates in the queues the person reviews (the review
  index's own count, review.selectors.reviews_waiting), and what their own
  propose-only agents proposed elsewhere (review.selectors.own_proposals);
- invitations they have not answered (scopes.selectors.invitations_waiting);
- contradictions about them: what someone else said about them that disputes
  their own word — theirs alone to settle (review.selectors.said_about_you_found);
- questions their agents could not ask: an agent asks a check-in question only
  while talking to the person (the context block's one question, acknowledged
  with POST /cards/{id}/asked/, or a probe). What no agent has put to them waits
  here: guesses about them never probed nor asked, and facts about them due for
  their re-check (cards.recall.aging.aging_now) whose question no agent has put to
  them as the card stands now (a CardAsked for its verified_at). Only in scopes
  where the person may decide it — confirm or reject the guess, confirm the fact
  — which is what the card page offers them.

A page feature: it reads for a signed-in person, never for an agent token
(review.selectors refuses a token)."""

from __future__ import annotations

from dataclasses import dataclass, field

from django.db import connection
from django.db.models import Exists, OuterRef
from django.utils import timezone
from django.utils.functional import SimpleLazyObject

from cards.models import CardAsked
from cards.recall.aging import aging_now
from cards.valid_time import valid_sql
from review.models import Probe
from review.selectors import SaidAboutYou, own_proposals, reviews_waiting, said_about_you_found
from review.services.hypotheses import hypotheses_current
from scopes.models import Invitation, Scope
from scopes.principals import Principal, principal_of_page, scope_ids_for
from scopes.selectors import invitations_waiting

# Enough to list on the home page; the header's count counts what is listed.
ITEMS_SHOWN = 50


@dataclass(frozen=True)
class ScopeReviews:
    scope_id: int
    scope_name: str
    count: int


@dataclass(frozen=True)
class CardWaiting:
    """A card about the person waiting for their word: what to show, and where."""

    card_id: int
    label: str
    value: str
    scope_name: str


@dataclass
class Waiting:
    reviews: list[ScopeReviews] = field(default_factory=list)
    proposals: int = 0
    invitations: list[Invitation] = field(default_factory=list)
    said_about_you: list[SaidAboutYou] = field(default_factory=list)
    guesses: list[CardWaiting] = field(default_factory=list)
    aging: list[CardWaiting] = field(default_factory=list)

    @property
    def total(self) -> int:
        """How many things wait: each candidate, invitation, dispute and question counts one."""
        return (sum(r.count for r in self.reviews) + self.proposals + len(self.invitations)
                + len(self.said_about_you) + len(self.guesses) + len(self.aging))


def waiting_for(*, principal: Principal) -> Waiting:
    """Everything waiting for the principal's person, from scopes they belong to only."""
    scopes = {pk: (name, writes) for pk, name, writes in Scope.objects.visible_to(principal, "view")
              .allowed_in(scope_ids_for(principal, "write")).values_list("id", "name", "allowed")}
    writable = [pk for pk, (_, writes) in scopes.items() if writes]
    counts = reviews_waiting(principal=principal)
    reviews = sorted((ScopeReviews(pk, scopes[pk][0], n) for pk, n in counts.items() if pk in scopes),
                     key=lambda r: r.scope_name.lower())
    # Their agents' proposals in a queue they review are counted there already.
    proposals = own_proposals(principal=principal).exclude(scope_id__in=list(counts)).count()
    return Waiting(reviews=reviews, proposals=proposals, invitations=invitations_waiting(principal=principal),
                   said_about_you=said_about_you_found(principal=principal)[:ITEMS_SHOWN],
                   guesses=_guesses(principal, writable, scopes), aging=_aging(principal, writable, scopes))


def _guesses(principal: Principal, writable: list[int], scopes: dict) -> list[CardWaiting]:
    """Current guesses about the person that no agent has put to them (nor a probe offered)."""
    me = principal.user.pk
    rows = (hypotheses_current().in_scopes(writable).filter(subject__user_id=me)
            # Looked up with the card's scope: on a cluster, on the card's own shard.
            .exclude(Exists(Probe.objects.filter(card_id=OuterRef("pk"), scope_id=OuterRef("scope_id"), user_id=me)))
            .exclude(Exists(CardAsked.objects.filter(card_id=OuterRef("pk"), scope_id=OuterRef("scope_id"),
                                                     user_id=me)))
            .order_by("-impact", "-confidence", "id")
            .values_list("id", "label__key", "value", "object__name", "scope_id")[:ITEMS_SHOWN])
    return [CardWaiting(pk, label, value or obj or "", scopes[scope_id][0]) for pk, label, value, obj, scope_id in rows]


_AGING_ABOUT = (
    "SELECT c.id, l.key, c.value, c.scope_id FROM cards_card c"
    " JOIN cards_label l ON l.id = c.label_id JOIN cards_entity s ON s.id = c.subject_id"
    " WHERE c.scope_id = ANY(%(scopes)s) AND s.user_id = %(me)s AND {valid} AND {aging}"
    " AND NOT EXISTS (SELECT 1 FROM cards_cardasked a WHERE a.card_id = c.id AND a.scope_id = c.scope_id"
    " AND a.user_id = %(me)s"
    " AND a.card_verified_at = c.verified_at)"
    " ORDER BY c.verified_at, c.id LIMIT %(limit)s")


def _aging(principal: Principal, writable: list[int], scopes: dict) -> list[CardWaiting]:
    """Facts about the person due for their re-check (the home page's "to re-check"
    rule) whose question no agent has put to them as the card stands: the oldest first."""
    if not writable:
        return []
    with connection.cursor() as cursor:
        cursor.execute(_AGING_ABOUT.format(valid=valid_sql("c"), aging=aging_now()),
                       {"scopes": writable, "me": principal.user.pk, "at": timezone.now(), "limit": ITEMS_SHOWN})
        return [CardWaiting(pk, label, value, scopes[scope_id][0]) for pk, label, value, scope_id in cursor.fetchall()]


def waiting_for_request(request) -> Waiting | None:
    """`waiting_for` the signed-in person, read once per request (the header and
    the home page share it); None for anyone else, and for an agent token's request."""
    if not request.user.is_authenticated or getattr(request, "auth", None) is not None:
        return None
    if not hasattr(request, "_waiting_for"):
        request._waiting_for = waiting_for(principal=principal_of_page(request))
    return request._waiting_for


def waiting_context(request) -> dict:
    """Template context processor: `waiting`, read only when a template uses it
    (nothing waits, as far as a page without a person can tell)."""
    return {"waiting": SimpleLazyObject(lambda: waiting_for_request(request) or Waiting())}
