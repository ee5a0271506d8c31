"""What the review queue keeps of a card's words, and forgets with it — the
queue's forget participant (review.receivers, on cards.signals.forgetting; the store calls
it from cards.services.forget without importing this app) — and the retention
of rejected and stale candidates.

A candidate holds the words it proposed (value, text, quote) whatever made it
(an extractor, a propose-only token, anything later): it goes with the card it
became, with everything said about a subject or on a timeline being forgotten,
and with its author's account. A decision's free text (a reviewer's reason, a
hypothesis confirmation's quote) is cleared when what it decided is forgotten;
the decision itself stays — who decided what kind of thing, and when — as the
audit log keeps it."""

from __future__ import annotations

import datetime as dt
from functools import reduce
from operator import or_

from django.conf import settings
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from cards.selectors.entities import entity_bind
from cards.models import Entity
from cards.services.forget import About, Forgetting, admin_log_forget
from cards.text import normalize
from core.scope_locks import locked_scope_by_scope
from scopes.models import User

from ..models import Candidate, CandidateStatus, Decision, IngestJob, Signal, UpkeepProposal
from .candidates import OPEN
from .signals import RULE_BLOCKER

# The candidate's words; kind, label, status, who and when stay.
CANDIDATE_TEXT = ("subject", "value", "object", "text", "when", "key", "quote", "problem", "reason")


def _bound_ids(binding) -> set[int]:
    """Every entity a name may mean (an ambiguous name may mean the one being forgotten)."""
    return {*binding.entity_ids, *(e.pk for e in binding.entities), *(e.pk for e in binding.roots)}


def _about_candidates(about: About) -> set[int]:
    """Candidates of the scope whose subject, as their author said it, names
    the subject being forgotten (or is the very name asked), on the label when
    a timeline is forgotten. Each distinct (name, author) is bound once."""
    rows = Candidate.objects.filter(scope_id=about.scope_id)
    if about.label is not None:
        rows = rows.filter(label=about.label)
    pairs = set(rows.values_list("subject", "author_id"))
    authors = User.objects.in_bulk({author for _, author in pairs})
    targets = set(about.entity_ids)
    meant = [(subject, author) for subject, author in pairs
             if (about.name_norm and normalize(subject) == about.name_norm)
             or (targets and targets & _bound_ids(entity_bind(name=subject, scope_ids=[about.scope_id],
                                                              speaker=authors[author], suggest=False)))]
    if not meant:
        return set()
    return set(rows.filter(reduce(or_, (Q(subject=s, author_id=a) for s, a in meant)))
               .values_list("pk", flat=True))


def review_forget(*, forgetting: Forgetting) -> dict[str, int]:
    """The queue's copies of what is being forgotten (see the module's docstring). Each statement names the
    scopes its rows lie in (a cluster sends it to their shards alone), but an account's erasure, which reads
    across the person's scopes once."""
    card_ids, user = list(forgetting.card_ids), forgetting.user
    # A candidate that became a card is in the card's scope.
    wanted = Q(card_id__in=card_ids, scope_id__in=forgetting.card_scope_ids) | Q(scope_id__in=forgetting.scope_ids)
    if user is not None:
        wanted |= Q(author_id=user.pk)
    candidates = dict(Candidate.objects.filter(wanted).values_list("pk", "scope_id"))
    if forgetting.about is not None:
        candidates.update(dict.fromkeys(_about_candidates(forgetting.about), forgetting.about.scope_id))
    candidate_ids, candidate_scopes = set(candidates), set(candidates.values())
    # A decision about a candidate is in its scope; one about a card, where the card was seen from: its scope, a
    # scope below (an upkeep proposal's `other`), the queue of a scope reading it (a contradiction's pick).
    about_cards = (Q(item__in=("hypothesis", "contradiction"), item_id__in=card_ids) | Q(detail__card__in=card_ids)
                   | Q(item="upkeep", detail__other__in=card_ids))
    # One restriction by scope around both (a superset for each: ids pick the rows), as a cluster routes by.
    decided = (Q(scope_id__in=candidate_scopes | set(forgetting.reaching_scope_ids))
               & (Q(item="candidate", item_id__in=candidate_ids) | about_cards))
    if user is not None:
        decided |= Q(reviewer_id=user.pk)
    reasons = Decision.objects.filter(decided).exclude(reason="").update(reason="")
    if user is not None:
        reasons += (Candidate.objects.filter(decided_by_id=user.pk).exclude(pk__in=candidate_ids)
                    .exclude(reason="").update(reason=""))
        reasons += UpkeepProposal.objects.filter(decided_by_id=user.pk).exclude(reason="").update(reason="")
    admin_log_forget(Candidate, candidate_ids)
    signals = _signals_behind(candidates, forgetting.about)
    counts = {"candidates": Candidate.objects.filter(pk__in=candidate_ids, scope_id__in=candidate_scopes)
              .delete()[1].get("review.Candidate", 0), "reasons": reasons}
    if user is not None or forgetting.scope_ids:
        jobs = Q(scope_id__in=forgetting.scope_ids)
        if user is not None:
            jobs |= Q(created_by_id=user.pk)
        counts["jobs"] = IngestJob.objects.filter(jobs).delete()[1].get("review.IngestJob", 0)
        # A blocker's signal holds a name someone said: it goes with its person and its scope.
        signals |= Q(scope_id__in=forgetting.scope_ids) | (Q(author_id=user.pk) if user is not None else Q(pk__in=[]))
    forgotten = Signal.objects.filter(signals).delete()[1].get("review.Signal", 0)
    if forgotten or user is not None or forgetting.scope_ids:
        counts["signals"] = forgotten
    return counts


def _signals_behind(candidates: dict[int, int], about: About | None) -> Q:
    """The signals a forgotten thing was made from, so it cannot come back with its days: a recurring
    blocker's candidate (id → scope; or the card it became) takes its author's blocker signals in its scope;
    forgetting everything about a person in a scope takes theirs there. Restricted to those scopes as a
    whole too: an OR of scopes is no constant a cluster routes by."""
    made = set(Candidate.objects.filter(pk__in=list(candidates), scope_id__in=set(candidates.values()),
                                        rule=RULE_BLOCKER).values_list("scope_id", "author_id"))
    behind = reduce(or_, (Q(scope_id=scope, author_id=author) for scope, author in made), Q(pk__in=[]))
    scopes = {scope for scope, _ in made}
    if about is not None and about.label is None:
        people = Entity.objects.filter(pk__in=about.entity_ids, user__isnull=False).values_list("user_id", flat=True)
        behind |= Q(scope_id=about.scope_id, author_id__in=list(people))
        scopes.add(about.scope_id)
    return Q(scope_id__in=scopes) & behind


def candidates_retain(*, now: dt.datetime | None = None) -> dict[str, int]:
    """Rejected candidates, and open ones nobody decided on, lose their words
    once CANDIDATE_RETENTION_DAYS have passed (beat: nightly); an open one
    leaves the queue as `expired`. Kind, label, status, who and when stay."""
    now = now or timezone.now()
    cutoff = now - dt.timedelta(days=settings.CANDIDATE_RETENTION_DAYS)
    # A proposal's phrasings for members are its words too.
    worded = reduce(or_, (~Q(**{name: ""}) for name in CANDIDATE_TEXT)) | ~Q(perspectives={})
    due = (Q(status=CandidateStatus.REJECTED, decided_at__lt=cutoff)
           | Q(status__in=OPEN, created_at__lt=cutoff) | Q(status=CandidateStatus.EXPIRED))
    with transaction.atomic():
        # skip_locked: a reviewer deciding one right now keeps it; the next night takes it. Scope by scope:
        # on a cluster a locking read must reach one shard (Citus refuses FOR UPDATE across shards).
        ids = locked_scope_by_scope(Candidate.objects.filter(due & worded).values_list("pk", flat=True),
                                    skip_locked=True)
        expired = (Candidate.objects.filter(pk__in=ids, status__in=OPEN)
                   .update(status=CandidateStatus.EXPIRED, decided_at=now))
        Candidate.objects.filter(pk__in=ids).update(**{name: "" for name in CANDIDATE_TEXT}, perspectives={})
        reasons = Decision.objects.filter(item="candidate", item_id__in=ids).exclude(reason="").update(reason="")
        admin_log_forget(Candidate, ids)
    return {"cleared": len(ids), "expired": expired, "reasons": reasons}
