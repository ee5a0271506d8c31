"""Reviewers' decisions on the items that are not candidates: proposed rules,
possible duplicate entities and contradictions. Each is logged with who, when
and why (review.Decision)."""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext as _

from cards.drafts import CardDraft
from cards.errors import InvalidCard
from cards.models import Card, DuplicateStatus, Entity, PossibleDuplicate, Rule
from cards.services import card_remember
from cards.services.entities import entity_merge
from cards.services.rules import rule_approve, rule_retire
from core.errors import DomainError
from scopes.models import Scope, User
from scopes.services import global_scope_get

from ..models import Decision


class AlreadyDecided(DomainError):
    code = "already_decided"
    status = 409


class MemberSettles(DomainError):
    """What a person says about themselves wins (DESIGN §4 rule 7): a
    contradiction about a member is theirs to settle — anyone else's pick would
    only stand beside their word as one more dispute."""

    code = "member_settles"
    status = 403


@transaction.atomic
def rule_decide(*, rule: Rule, reviewer: User, approve: bool, reason: str = "") -> Rule:
    rule = rule_approve(rule=rule, reviewer=reviewer) if approve else rule_retire(rule=rule, reviewer=reviewer)
    # In the global scope, where rules live: every decision has a scope, which Citus distributes it by.
    Decision.objects.create(scope=global_scope_get(), reviewer=reviewer, item="rule", item_id=rule.pk,
                            action="approve" if approve else "retire", reason=reason[:300])
    return rule


@transaction.atomic
def duplicate_decide(*, proposal: PossibleDuplicate, reviewer: User, merge: bool,
                     reason: str = "") -> PossibleDuplicate:
    """Merge (the new name binds to the existing entity from now on) or keep apart."""
    # The proposal's row alone, by (id, scope_id): a locking read reaches one shard on a cluster. Its two
    # entities are then locked one statement each, by (id, scope_id), in id order: the one it looks like may
    # live in another scope (another shard), and a join by their ids alone is one Citus refuses. Locked, so
    # two merges sharing an entity take turns and never leave a chain (E1 → E2 → E3) that binding, which
    # follows one hop, could not resolve; read under the lock, so `merged_into` is the committed one.
    proposal = PossibleDuplicate.objects.select_for_update().get(pk=proposal.pk, scope_id=proposal.scope_id)
    scopes = dict(Entity.objects.filter(pk__in=[proposal.entity_id, proposal.similar_to_id])
                  .values_list("pk", "scope_id"))
    entities = {pk: Entity.objects.select_for_update(of=("self",)).select_related("scope")
                .get(pk=pk, scope_id=scopes[pk]) for pk in sorted(scopes)}
    proposal.entity, proposal.similar_to = entities[proposal.entity_id], entities[proposal.similar_to_id]
    if proposal.status != DuplicateStatus.OPEN:
        raise AlreadyDecided(_("This possible duplicate was already decided (%(status)s).")
                             % {"status": _(proposal.status)})
    if merge:
        entity_merge(duplicate=proposal.entity, into=proposal.similar_to)
    proposal.status = DuplicateStatus.MERGED if merge else DuplicateStatus.KEPT_APART
    proposal.decided_by, proposal.decided_at, proposal.reason = reviewer, timezone.now(), reason[:300]
    proposal.save(update_fields=["status", "decided_by", "decided_at", "reason"])
    Decision.objects.create(scope_id=proposal.scope_id, reviewer=reviewer, item="duplicate",
                            item_id=proposal.pk, action="merge" if merge else "keep_apart", reason=reason[:300],
                            detail={"entity": proposal.entity_id, "similar_to": proposal.similar_to_id})
    return proposal


@transaction.atomic
def contradiction_pick(*, chosen: Card, others: list[Card], reviewer: User, writable: set[int],
                       scope: Scope, reason: str = "") -> list[Card]:
    """The chosen value is current: it is written into each other side's scope,
    where it supersedes the value that disagreed (its history stays). The same
    pick settles what was said about a member, from the scope's queue or from
    the member's own (review.selectors.dispute_sides): the member's statement,
    written on that timeline, settles every dispute standing beside it."""
    member = chosen.subject.user_id
    if member is not None and member != reviewer.pk:
        raise MemberSettles(_("This is about %(name)s: only they settle what is said about them.")
                            % {"name": chosen.subject.name})
    if any(o.scope_id not in writable for o in others):
        raise InvalidCard(_("You may not write in every scope of this contradiction."),
                          fields={"card": [_("pick from scopes you may write in")]})
    written = []
    # One statement per scope: the sides in one scope (a member's card and the
    # disputes beside it) share one timeline. The chosen card's label: opposite
    # labels (likes/dislikes) are one timeline too, and the pick states the chosen one.
    for other in {o.scope_id: o for o in others}.values():
        draft = CardDraft(kind=chosen.kind, label=chosen.label.key, subject=other.subject, value=chosen.value,
                          object=chosen.object, text=chosen.text, reference_time=timezone.now(),
                          source_quote=f"reviewer picked card #{chosen.pk}: {reason}"[:2000])
        written.append(card_remember(scope=other.scope, actor=reviewer, draft=draft).card)
    Decision.objects.create(scope=scope, reviewer=reviewer, item="contradiction", item_id=chosen.pk, action="pick",
                            reason=reason[:300], detail={"superseded": [o.pk for o in others]})
    return written
