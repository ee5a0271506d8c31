"""The path from a conversation to reviewed cards: ingest jobs, the candidates
they propose, probes of hypotheses, and the log of every review decision."""

from __future__ import annotations

from django.conf import settings
from django.contrib.postgres.fields import ArrayField
from django.db import models
from django.db.models import Q
from django.utils.translation import gettext_noop

from cards.models import InParentScope, InScope
from core.scope_rows import ScopeRow


class JobStatus(models.TextChoices):
    QUEUED = "queued"
    RUNNING = "running"
    DONE = "done"
    FAILED = "failed"


class IngestJob(ScopeRow):
    """One session's messages, kept only until extraction has read them."""

    scope = models.ForeignKey("scopes.Scope", on_delete=models.CASCADE, related_name="+")
    session = models.CharField(max_length=200)
    created_by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    status = models.CharField(max_length=16, choices=JobStatus.choices, default=JobStatus.QUEUED)
    extractor = models.CharField(max_length=32)
    # Raw messages: emptied in the same transaction that stores the candidates.
    messages = models.JSONField(default=list, blank=True)
    message_count = models.PositiveIntegerField(default=0)
    attempts = models.PositiveIntegerField(default=0)
    # False for a propose-only token's session: nothing it sends is stored
    # unreviewed, even in a scope that auto-accepts explicit statements.
    auto_accept = models.BooleanField(default=True)
    # The agent token that sent the conversation (none: a person, or a job from before tokens were kept):
    # its candidates, and the cards approved from them, name that agent.
    token = models.ForeignKey("scopes.AgentToken", null=True, blank=True, on_delete=models.SET_NULL,
                              related_name="+")
    error = models.TextField(blank=True)
    result = models.JSONField(default=dict, blank=True)  # counts, and what the policy dropped (rule names only)
    created_at = models.DateTimeField(auto_now_add=True)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)

    objects = InScope.as_manager()

    class Meta:
        ordering = ["-id"]
        constraints = [
            models.CheckConstraint(name="finished_job_keeps_no_messages",
                                   condition=Q(status__in=["queued", "running"]) | Q(messages=[])),
        ]


# How a proposal or a possible duplicate was decided, as a refusal to decide it again names it
# (`gettext(status)` in review.services): listed so that the catalogue holds the words.
DECIDED_WORDS = (gettext_noop("approved"), gettext_noop("rejected"), gettext_noop("auto_accepted"),
                 gettext_noop("expired"), gettext_noop("merged"), gettext_noop("kept_apart"))


class CandidateStatus(models.TextChoices):
    PENDING = "pending"
    NEEDS_CONSENT = "needs_consent"
    APPROVED = "approved"
    AUTO_ACCEPTED = "auto_accepted"
    REJECTED = "rejected"
    # Nobody decided within the retention period: it left the queue, and its words went.
    EXPIRED = "expired"


class Candidate(ScopeRow):
    """A card an extractor proposed, waiting for a person: never a fact until approved."""

    scope = models.ForeignKey("scopes.Scope", on_delete=models.CASCADE, related_name="+")
    # The database's key is (job_id, scope_id) → the job's (id, scope_id) (core/scope_keys.py): a job's candidates
    # are in its scope, and Citus keeps them on its shard.
    job = models.ForeignKey(IngestJob, null=True, blank=True, on_delete=models.SET_NULL, related_name="candidates",
                            db_constraint=False)
    author = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+",
                               help_text="Whose conversation it came from (the card's actor on approval).")
    kind = models.CharField(max_length=16)
    label = models.CharField(max_length=64)
    subject = models.CharField(max_length=200)
    value = models.TextField(blank=True)
    object = models.CharField(max_length=200, blank=True)
    text = models.TextField(blank=True)
    tag = models.CharField(max_length=16, default="fact")
    when = models.CharField(max_length=200, blank=True)
    effective_at = models.DateTimeField(null=True, blank=True, help_text="States: when it became true.")
    occurred_at = models.DateTimeField(null=True, blank=True)
    occurred_end = models.DateTimeField(null=True, blank=True)
    precision = models.CharField(max_length=8, blank=True)
    time_source = models.CharField(max_length=8, blank=True)
    confidence = models.FloatField(null=True, blank=True)
    impact = models.PositiveSmallIntegerField(default=2)
    explicit = models.BooleanField(default=False)
    # Proposed for long-term memory: repeated in 2+ sessions, an explicit preference or boundary, or impact 3.
    long_term = models.CharField(max_length=64, blank=True, help_text="Why it is proposed for long-term memory.")
    # normalize(subject)|label|normalize(value): finds the same observation in other sessions with one index lookup.
    key = models.CharField(max_length=600, blank=True, db_index=True)
    # Where it came from: the quote is kept, the conversation is not.
    quote = models.TextField()
    session = models.CharField(max_length=200, blank=True)
    message = models.CharField(max_length=200, blank=True)
    message_at = models.DateTimeField()
    # The zone the message's `at` anchored its relative dates in (its offset, or the
    # author's zone when they agree); the instant above no longer carries it.
    anchor_zone = models.CharField(max_length=64, blank=True, default="")
    extractor = models.CharField(max_length=32)
    rule = models.CharField(max_length=64, blank=True)
    # The agent token it came from: a propose-only token's own card (extractor "agent"),
    # or a conversation a token ingested. The approved card keeps it (its source.agent);
    # a propose-only token's phrasings are set on the card when a person approves it.
    proposed_by = models.ForeignKey("scopes.AgentToken", null=True, blank=True, on_delete=models.SET_NULL,
                                    related_name="+")
    perspectives = models.JSONField(default=dict, blank=True)
    problem = models.CharField(max_length=300, blank=True, help_text="Why it cannot be approved as is.")
    status = models.CharField(max_length=16, choices=CandidateStatus.choices, default=CandidateStatus.PENDING)
    # Enforced as (card_id, scope_id) → the card's (id, scope_id) (core/scope_keys.py): approved in its scope.
    card = models.ForeignKey("cards.Card", null=True, blank=True, on_delete=models.SET_NULL, related_name="+",
                             db_constraint=False)
    decided_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                                   related_name="+")
    decided_at = models.DateTimeField(null=True, blank=True)
    reason = models.CharField(max_length=300, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    objects = InScope.as_manager()

    class Meta:
        ordering = ["id"]
        indexes = [models.Index(fields=["scope", "status"], name="candidate_queue")]


class Decision(ScopeRow):
    """Every review decision: who, when, what and why (DESIGN §8)."""

    # A rule's decision is in the global scope, where rules live.
    scope = models.ForeignKey("scopes.Scope", on_delete=models.CASCADE, related_name="+")
    reviewer = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                                 related_name="+")
    at = models.DateTimeField(auto_now_add=True)
    item = models.CharField(max_length=32)  # candidate | rule | duplicate | contradiction | hypothesis
    item_id = models.BigIntegerField()
    action = models.CharField(max_length=32)  # approve | edit_approve | reject | merge | keep_apart | pick | …
    reason = models.CharField(max_length=300, blank=True)
    detail = models.JSONField(default=dict, blank=True)

    objects = InScope.as_manager()

    class Meta:
        ordering = ["-at", "-id"]
        indexes = [models.Index(fields=["scope", "at"], name="decision_by_scope")]


class Probe(InParentScope):
    """A hypothesis offered to a person for confirmation: never asked twice."""

    card = models.ForeignKey("cards.Card", on_delete=models.CASCADE, related_name="+", db_constraint=False)
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    asked_at = models.DateTimeField(auto_now_add=True)
    answer = models.CharField(max_length=16, blank=True)  # "", confirmed, rejected
    answered_at = models.DateTimeField(null=True, blank=True)

    objects = InScope.as_manager()

    class Meta:
        constraints = [models.UniqueConstraint(fields=["scope", "card", "user"], name="one_probe_per_card_and_person")]


class SignalKind(models.TextChoices):
    BLOCKER = "blocker"


class Signal(ScopeRow):
    """A trace of something said that matters only if it comes back (a recurring blocker): its kind,
    its short name and the speaker's day — never the sentence, which the never-store policy may drop as
    a one-off frustration (DESIGN §4.8). Not a fact, never shown as memory: it expires SIGNAL_DAYS after
    the last day it was said (review/services/signals.py)."""

    scope = models.ForeignKey("scopes.Scope", on_delete=models.CASCADE, related_name="+")
    author = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    kind = models.CharField(max_length=16, choices=SignalKind.choices)
    subject = models.CharField(max_length=40, help_text="The short name as said: build, CI, 建置.")
    key = models.CharField(max_length=40, help_text="What 'the same' means: casefolded, Chinese in Traditional.")
    day = models.DateField(help_text="The speaker's day it was said.")
    created_at = models.DateTimeField(auto_now_add=True)

    objects = InScope.as_manager()

    class Meta:
        ordering = ["day", "id"]
        constraints = [models.UniqueConstraint(fields=["scope", "author", "kind", "key", "day"],
                                               name="signal_once_a_day")]


class UpkeepKind(models.TextChoices):
    PROMOTE = "promote"
    DEMOTE = "demote"
    MERGE = "merge"
    ARCHIVE = "archive"  # a project scope: no card, the scope itself


class UpkeepStatus(models.TextChoices):
    OPEN = "open"
    APPROVED = "approved"
    REJECTED = "rejected"


class UpkeepProposal(ScopeRow):
    """What the weekly upkeep job proposes for a scope (DESIGN §10): never applied until a
    person approves it. It holds no words of a card: why it is proposed is a rule
    (`why`) and the dates of its evidence, read as people read dates when shown."""

    scope = models.ForeignKey("scopes.Scope", on_delete=models.CASCADE, related_name="+")
    kind = models.CharField(max_length=8, choices=UpkeepKind.choices)
    # The card promoted or demoted; for a merge, the card the other is folded into; none to archive a project.
    # Enforced as (card_id, scope_id) → the card's (id, scope_id) (core/scope_keys.py).
    card = models.ForeignKey("cards.Card", null=True, blank=True, on_delete=models.CASCADE, related_name="+",
                             db_constraint=False)
    # A merge: the card folded in. A contradicted demotion: the later card that says otherwise. Archiving
    # a project said to be replaced: the card that said so. The last two may be in a scope above this one
    # (another shard on a cluster): no key in the database; forgetting the card deletes it in the scopes that
    # reach the card's (cards/services/forget_rows.py).
    other = models.ForeignKey("cards.Card", null=True, blank=True, on_delete=models.CASCADE, related_name="+",
                              db_constraint=False)
    # sessions | impact | stale | contradicted | same_name | merged | alias | idle | replaced (review/upkeep/why.py).
    why = models.CharField(max_length=16)
    evidence_at = ArrayField(models.DateTimeField(), default=list, blank=True)
    # Enforced as (run_id, scope_id) → the run's (id, scope_id) (core/scope_keys.py): a run is of one scope.
    run = models.ForeignKey("UpkeepRun", null=True, blank=True, on_delete=models.SET_NULL, related_name="+",
                            db_constraint=False)
    status = models.CharField(max_length=8, choices=UpkeepStatus.choices, default=UpkeepStatus.OPEN)
    decided_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                                   related_name="+")
    decided_at = models.DateTimeField(null=True, blank=True)
    reason = models.CharField(max_length=300, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    objects = InScope.as_manager()

    class Meta:
        ordering = ["id"]
        constraints = [
            # Re-running upkeep never duplicates what still waits.
            models.UniqueConstraint(fields=["scope", "kind", "card", "other"], condition=Q(status="open"),
                                    nulls_distinct=False, name="one_open_upkeep_proposal"),
        ]
        indexes = [models.Index(fields=["scope", "status"], name="upkeep_queue")]


class UpkeepRun(ScopeRow):
    """One run of the upkeep job over a scope: counts only, never what was proposed."""

    scope = models.ForeignKey("scopes.Scope", on_delete=models.CASCADE, related_name="+")
    at = models.DateTimeField()
    promotions = models.PositiveIntegerField(default=0)
    demotions = models.PositiveIntegerField(default=0)
    merges = models.PositiveIntegerField(default=0)
    archives = models.PositiveIntegerField(default=0)
    # Found again while an earlier proposal of it still waits: not proposed twice.
    already_waiting = models.PositiveIntegerField(default=0)

    objects = InScope.as_manager()

    class Meta:
        ordering = ["-at", "-id"]
        indexes = [models.Index(fields=["scope", "at"], name="upkeep_run_by_scope")]

    @property
    def proposals(self) -> int:
        return self.promotions + self.demotions + self.merges + self.archives
