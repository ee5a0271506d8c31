"""Entities, the label registry, cards and what hangs off them."""

from __future__ import annotations

from django.conf import settings
from django.contrib.postgres.fields import ArrayField
from django.contrib.postgres.indexes import GinIndex
from django.db import models
from django.db.models import Q
from django.utils import timezone
from pgvector.django import HnswIndex, VectorField

from core.scope_rows import ScopeRow
from scopes.restriction import ScopedQuerySet, scope_id_values

from .text import name_skeleton, name_validator, normalize
from .valid_time import is_valid_at

EMBEDDING_DIMENSIONS = 384
# Card.embedding_space: the name of the model that made the vector (cards/embeddings/spaces.py).
EMBEDDING_SPACE_LENGTH = 64
# A card's vector and its space: written together by the embedding service alone (set, or cleared, as one),
# never read or copied by the write path.
VECTOR_FIELDS = ("embedding", "embedding_space")


class InScope(ScopedQuerySet):
    """Rows with their own `scope`: those hanging off a card or an entity too
    (InParentScope keeps their parent's scope beside them), so a read filters
    the row's own scope_id and never joins the parent for it."""

    scope_path = "scope"


class EntityQuerySet(InScope):
    def scope_condition(self, scope_ids, *, include: str = "all") -> Q:
        """Entities of `scope_ids` ("own"), and the members of the shared ones
        among them ("members"): a member's own entity lives in their personal
        scope but is who they are in every scope they belong to (DESIGN §3
        "People are entities"). "all" is both; one part alone lets a hot lookup
        use its index (an OR of the two cannot)."""
        from scopes.relations import members_of

        own, members = super().scope_condition(scope_ids), Q(user_id__in=members_of(scope_ids))
        return {"own": own, "members": members, "all": own | members}[include]

    def in_scopes(self, scope_ids, *, named_by_cards: bool = False, include: str = "all") -> EntityQuerySet:
        """Entities in `scope_ids` (`include`: see scope_condition); with
        `named_by_cards`, also those the cards of those scopes name from elsewhere."""
        scope_ids = scope_id_values(scope_ids)
        if not named_by_cards:
            return self.filter(self.scope_condition(scope_ids, include=include))
        cards = Card.objects.in_scopes(scope_ids)
        return self.filter(self.scope_condition(scope_ids) | Q(pk__in=cards.values("subject_id"))
                           | Q(pk__in=cards.filter(object__isnull=False).values("object_id")))


class CardQuerySet(InScope):
    def in_scopes(self, scope_ids) -> CardQuerySet:
        """Cards in `scope_ids`, and those a `cards.reads.Read` among them meets through a member's share:
        their personal scope's cards about themselves with a label they share (read, never written)."""
        from .reads import shared_of

        condition = self.scope_condition(scope_id_values(scope_ids))
        shares: dict[tuple[int, int], list[int]] = {}
        for scope_id, subject_id, label_id in shared_of(scope_ids):
            shares.setdefault((scope_id, subject_id), []).append(label_id)
        for (scope_id, subject_id), label_ids in shares.items():
            condition |= Q(scope_id=scope_id, subject_id=subject_id, label_id__in=label_ids)
        return self.filter(condition)


class InGlobalScope(ScopedQuerySet):
    """Rows that hold for everyone (derivation rules): they live in the global
    scope, so who may view, or review, them is who may view, or review, global."""

    def scope_condition(self, scope_ids) -> Q:
        from scopes.models import Scope, ScopeKind

        return Q(models.Exists(Scope.objects.filter(kind=ScopeKind.GLOBAL, id__in=scope_ids)))


class EntityKind(models.TextChoices):
    PERSON = "person"
    PLACE = "place"
    ORGANIZATION = "organization"
    THING = "thing"
    KIND = "kind", "kind (a category things belong to)"
    EVENT = "event"
    CONCEPT = "concept"


class Entity(models.Model):
    """Something cards are about. A user's own entity ("me") has `user` set and
    lives in their personal scope, but is the subject of their cards everywhere."""

    scope = models.ForeignKey("scopes.Scope", on_delete=models.CASCADE, related_name="entities")
    name = models.CharField(max_length=200, validators=[name_validator])
    name_norm = models.CharField(max_length=200, editable=False)
    # TR39 skeleton of name_norm (cards.text.name_skeleton): a new name that looks
    # like this one is found by one indexed equality, and binds only by alias.
    name_skeleton = models.TextField(editable=False, default="", db_default="")
    kind = models.CharField(max_length=16, choices=EntityKind.choices, default=EntityKind.THING)
    user = models.OneToOneField(settings.AUTH_USER_MODEL, null=True, blank=True,
                                on_delete=models.CASCADE, related_name="entity")
    # A reviewer found this to be another entity under a second name: names bind
    # to that one, and cards stay as written (an event's "to whom" never changes).
    merged_into = models.ForeignKey("self", null=True, blank=True, on_delete=models.PROTECT, related_name="merged")
    created_at = models.DateTimeField(auto_now_add=True)

    objects = EntityQuerySet.as_manager()

    class Meta:
        verbose_name_plural = "entities"
        constraints = [
            models.UniqueConstraint(fields=["scope", "name_norm"], name="entity_name_unique_in_scope"),
        ]
        indexes = [models.Index(fields=["scope", "name_skeleton"], name="entity_skeleton_in_scope")]

    def __str__(self) -> str:
        return self.name

    def save(self, *args, **kwargs):
        # Derived columns, kept with the row so lookups and the unique index agree.
        self.name_norm = normalize(self.name)
        self.name_skeleton = name_skeleton(self.name)
        super().save(*args, **kwargs)


class Alias(models.Model):
    """Another name for an entity, registered by someone; binding uses only exact names and aliases."""

    entity = models.ForeignKey(Entity, on_delete=models.CASCADE, related_name="aliases")
    scope = models.ForeignKey("scopes.Scope", on_delete=models.CASCADE, related_name="aliases")
    name = models.CharField(max_length=200, validators=[name_validator])
    name_norm = models.CharField(max_length=200, editable=False)
    name_skeleton = models.TextField(editable=False, default="", db_default="")
    created_at = models.DateTimeField(auto_now_add=True)

    objects = InScope.as_manager()

    class Meta:
        verbose_name_plural = "aliases"
        constraints = [
            models.UniqueConstraint(fields=["scope", "name_norm"], name="alias_unique_in_scope"),
        ]
        indexes = [models.Index(fields=["scope", "name_skeleton"], name="alias_skeleton_in_scope")]

    def __str__(self) -> str:
        return f"{self.name} → {self.entity}"

    def save(self, *args, **kwargs):
        self.name_norm = normalize(self.name)
        self.name_skeleton = name_skeleton(self.name)
        super().save(*args, **kwargs)


class CardKind(models.TextChoices):
    STATE = "state"
    EVENT = "event"
    KNOWLEDGE = "knowledge"


class Cardinality(models.TextChoices):
    SINGLE = "single"
    MULTI = "multi"


class Label(models.Model):
    """A registered attribute. Its cardinality, not the caller, decides whether a
    new value supersedes the old one or stands beside it."""

    key = models.SlugField(max_length=64, unique=True)
    kind = models.CharField(max_length=16, choices=CardKind.choices)
    cardinality = models.CharField(max_length=8, choices=Cardinality.choices)
    decay_lambda = models.FloatField(help_text="Per-day decay rate λ in e^(−λ·Δt).")
    synonyms = ArrayField(models.CharField(max_length=64, validators=[name_validator]), default=list, blank=True)
    description = models.CharField(max_length=300)
    takes_object = models.BooleanField(default=False, help_text="Relates the subject to another entity.")
    sensitive = models.BooleanField(default=False, help_text="Needs explicit consent to store.")
    # Likes/dislikes, prefers/avoids: for one value, the two exclude each other
    # like the values of a single-value timeline (DESIGN §4 rule 7).
    opposite = models.OneToOneField("self", null=True, blank=True, on_delete=models.SET_NULL, related_name="+",
                                    help_text="The label that excludes this one for the same value.")
    # A birthday or an ethnicity does not go stale: asking "is this still
    # accurate?" about it only wears the person's patience (DESIGN §6 "Aging").
    ages = models.BooleanField(default=True, help_text="Its value can change, so a single-value state of it that "
                                                       "stays unconfirmed long enough is re-checked with the person.")

    class Meta:
        ordering = ["key"]
        constraints = [
            models.CheckConstraint(name="label_lambda_not_negative", condition=Q(decay_lambda__gte=0)),
            # Events and knowledge accumulate; only states can be single-valued.
            models.CheckConstraint(name="label_single_only_for_states",
                                   condition=Q(kind="state") | Q(cardinality="multi")),
        ]

    def __str__(self) -> str:
        return self.key


class Tag(models.TextChoices):
    FACT = "fact"
    PREFERENCE = "preference"
    GOAL = "goal"
    BOUNDARY = "boundary"
    HYPOTHESIS = "hypothesis"


class Precision(models.TextChoices):
    DATETIME = "datetime"
    DAY = "day"
    WEEK = "week"
    MONTH = "month"
    YEAR = "year"


class TimeSource(models.TextChoices):
    STATED = "stated"
    RESOLVED = "resolved"
    MESSAGE = "message"
    SERVER = "server"
    NONE = "none"


# Fields an event may never change once written (also enforced by a trigger).
EVENT_IMMUTABLE_FIELDS = ("scope", "kind", "subject", "label", "value", "object",
                          "occurred_at", "occurred_end", "precision")


class Card(ScopeRow):
    """One atomic memory: a state, an event or a piece of knowledge."""

    scope = models.ForeignKey("scopes.Scope", on_delete=models.CASCADE, related_name="cards")
    kind = models.CharField(max_length=16, choices=CardKind.choices)
    tag = models.CharField(max_length=16, choices=Tag.choices, default=Tag.FACT)
    subject = models.ForeignKey(Entity, on_delete=models.PROTECT, related_name="cards")
    label = models.ForeignKey(Label, on_delete=models.PROTECT, related_name="cards")
    # Copied from the label at write time so the partial unique index can see it.
    cardinality = models.CharField(max_length=8, choices=Cardinality.choices)
    value = models.TextField(blank=True)
    value_norm = models.TextField(blank=True, editable=False)
    object = models.ForeignKey(Entity, null=True, blank=True, on_delete=models.PROTECT,
                               related_name="object_of")
    text = models.TextField(blank=True, help_text="The human-readable description.")

    effective_at = models.DateTimeField(help_text="Valid time: when this became true.")
    superseded_at = models.DateTimeField(null=True, blank=True, help_text="Valid time: when it stopped being true.")
    # This and `disputes` are enforced as (x_id, scope_id) → (id, scope_id) (core/scope_keys.py): a timeline is
    # in one scope, and Citus keeps it on one shard.
    superseded_by = models.ForeignKey("self", null=True, blank=True, on_delete=models.SET_NULL,
                                      related_name="supersedes", db_constraint=False)
    # Another person's statement about a member that disagrees with the member's
    # own: it stands beside their card, outside the timeline, until they settle it.
    disputes = models.ForeignKey("self", null=True, blank=True, on_delete=models.SET_NULL,
                                 related_name="disputed_by", db_constraint=False)
    recorded_at = models.DateTimeField(help_text="Record time: when we learned it.")
    verified_at = models.DateTimeField(help_text="Last time someone confirmed it.")
    # Valid times at which this value was stated true (the latest STATED_AT_KEEP):
    # a fact learned late that lands inside this card splits it at the first
    # statement after it, so no reaffirmation is lost.
    stated_at = ArrayField(models.DateTimeField(), default=list, blank=True)
    # Of those, the statements that gave no start of their own ("I live in Lisbon": it held when said). A
    # later statement whose stated start is earlier overrules them (DESIGN §4 rule 2); a stated start stands.
    # Kept as a superset: only the times still in stated_at count.
    said_at = ArrayField(models.DateTimeField(), default=list, blank=True)

    occurred_at = models.DateTimeField(null=True, blank=True)
    occurred_end = models.DateTimeField(null=True, blank=True)
    precision = models.CharField(max_length=8, choices=Precision.choices, blank=True)
    time_source = models.CharField(max_length=8, choices=TimeSource.choices, default=TimeSource.NONE)
    # The zone the write was anchored in (cards.time.when.anchor_zone): an IANA name,
    # or the speaker's fixed offset (±HH:MM). Times are stored as instants; this
    # says whose midnights "yesterday" meant. Blank for cards written before it was kept.
    # db_default: rows written by hand (a COPY, a raw INSERT) get the empty zone too.
    anchor_zone = models.CharField(max_length=64, blank=True, default="", db_default="")

    source_actor = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True,
                                     on_delete=models.SET_NULL, related_name="+")
    # The agent (token) that wrote it, if an agent did: provenance a person can read ("by kitchen assistant").
    source_token = models.ForeignKey("scopes.AgentToken", null=True, blank=True, on_delete=models.SET_NULL,
                                     related_name="+")
    source_session = models.CharField(max_length=200, blank=True)
    source_message = models.CharField(max_length=200, blank=True)
    source_quote = models.TextField(blank=True)

    confidence = models.FloatField(null=True, blank=True)
    impact = models.PositiveSmallIntegerField(default=2)
    # Long-term is a state a person gives a card (cards/services/long_term.py): set when they approve its
    # promotion, cleared when they approve its demotion; each change is kept as a revision (field "long_term").
    long_term_at = models.DateTimeField(null=True, blank=True)
    long_term_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                                     related_name="+")
    # A demoted card leaves MEMORY.md and is shown in its daily note, annotated stale (why: stale | contradicted).
    demoted_at = models.DateTimeField(null=True, blank=True)
    demoted_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                                   related_name="+")
    demoted_why = models.CharField(max_length=16, blank=True, default="", db_default="")
    embedding = VectorField(dimensions=EMBEDDING_DIMENSIONS, null=True, blank=True)
    # Which model made `embedding` ("minilm-l6-v2", "e5-small-q4", "http:<model>"): recall compares only
    # vectors of the current space. NULL exactly when `embedding` is.
    embedding_space = models.CharField(max_length=EMBEDDING_SPACE_LENGTH, null=True, blank=True, editable=False)
    # Its words for recall's lexical score (cards/words/lexical.py card_lexemes), each once:
    # set with the text it comes from, on every write and correction.
    lexemes = ArrayField(models.TextField(), default=list, blank=True, editable=False)

    objects = CardQuerySet.as_manager()

    class Meta:
        indexes = [
            models.Index(fields=["scope", "subject", "label", "effective_at"], name="card_timeline"),
            models.Index(fields=["scope", "label", "occurred_at"], name="card_occurred"),
            # Once recall's index route's freshest arm (gone: relevance chooses the top k now). Kept
            # until its cost on writes and its use by other reads is measured (bench/README, issue 25).
            models.Index(fields=["-verified_at"], condition=Q(superseded_at__isnull=True), name="card_current_recent"),
            models.Index(fields=["scope", "kind"], condition=Q(superseded_at__isnull=True),
                         name="card_current_by_scope"),
            # "Current" is valid now: beside the open cards, those closed by a value
            # planned for a later date (few) are found by this range.
            models.Index(fields=["scope", "superseded_at"], condition=Q(superseded_at__isnull=False),
                         name="card_closing"),
            # The guesses and disputes standing beside a timeline now: few, and asked after every fact
            # written (tags_settle) and by the batch's one read. Through the timeline index, that question
            # walked every card of the timeline, history included, to find none.
            models.Index(fields=["scope", "subject", "label"],
                         condition=Q(superseded_at__isnull=True) & (Q(tag="hypothesis") | Q(disputes__isnull=False)),
                         name="card_standing_beside"),
            # The sessions a person wrote in, in a scope, since a time (the hypothesis lifecycle counts them).
            models.Index(fields=["scope", "source_actor", "recorded_at"], include=["source_session"],
                         condition=~Q(source_session=""), name="card_sessions"),
            # Cards still waiting for their vector (a crash between commit and
            # embedding, an embedder outage): the sweep finds them, and recall
            # scores them exactly meanwhile (cards/recall/unembedded.py). Empty almost
            # always, so looking costs an index probe.
            models.Index(fields=["scope", "verified_at"], condition=Q(embedding__isnull=True),
                         name="card_unembedded"),
            # For broad visibility only; a household's few hundred cards are scored
            # exactly behind the B-tree (PERFORMANCE.md routing rule).
            HnswIndex(fields=["embedding"], name="card_embedding_hnsw", m=16, ef_construction=64,
                      opclasses=["vector_cosine_ops"]),
            # The cards holding any of a query's words (array overlap), for the lexical score.
            GinIndex(fields=["lexemes"], name="card_lexemes"),
        ]
        constraints = [
            # Hard rule 2: at most one open card per single-value timeline (scope,
            # subject, label). Guesses and disputes stand beside it, outside it.
            models.UniqueConstraint(
                fields=["scope", "subject", "label"],
                condition=Q(kind="state", cardinality="single", superseded_at__isnull=True, disputes__isnull=True)
                & ~Q(tag="hypothesis"),
                name="one_current_single_value"),
            # A multi-value label never holds the same current value twice. Disputes
            # stand beside it (likes/dislikes share a timeline): the member's own
            # "dislikes" must be writable beside another's, which it then settles.
            models.UniqueConstraint(
                fields=["scope", "subject", "label", "value_norm"],
                condition=Q(kind="state", cardinality="multi", superseded_at__isnull=True, disputes__isnull=True)
                & ~Q(tag="hypothesis"),
                name="one_current_per_multi_value"),
            # ... nor the same guess twice.
            models.UniqueConstraint(
                fields=["scope", "subject", "label", "value_norm"],
                condition=Q(kind="state", tag="hypothesis", superseded_at__isnull=True),
                name="one_current_guess_per_value"),
            models.CheckConstraint(name="card_impact_range", condition=Q(impact__gte=1, impact__lte=3)),
            # A vector always says which model made it, and a space names a vector (VECTOR_FIELDS).
            models.CheckConstraint(name="card_vector_with_its_space",
                                   condition=Q(embedding__isnull=True, embedding_space__isnull=True)
                                   | Q(embedding__isnull=False, embedding_space__isnull=False)),
            # Long-term or demoted, never both at once.
            models.CheckConstraint(name="card_long_term_or_demoted",
                                   condition=Q(long_term_at__isnull=True) | Q(demoted_at__isnull=True)),
            models.CheckConstraint(name="card_confidence_range",
                                   condition=Q(confidence__isnull=True) | Q(confidence__gte=0, confidence__lte=1)),
            models.CheckConstraint(name="card_supersede_pair",
                                   condition=Q(superseded_by__isnull=True) | Q(superseded_at__isnull=False)),
            models.CheckConstraint(name="card_events_never_superseded",
                                   condition=~Q(kind="event") | Q(superseded_at__isnull=True)),
            models.CheckConstraint(name="card_only_events_occur",
                                   condition=Q(kind="event") | Q(occurred_at__isnull=True)),
            models.CheckConstraint(
                name="card_dated_has_precision",
                condition=((Q(occurred_at__isnull=True, precision="")
                            & (~Q(kind="event") | Q(time_source="none")))
                           | (Q(occurred_at__isnull=False) & ~Q(precision="") & ~Q(time_source="none")))),
            models.CheckConstraint(name="card_interval_ordered",
                                   condition=Q(occurred_end__isnull=True) | Q(occurred_end__gt=models.F("occurred_at"))),
            models.CheckConstraint(name="card_has_content",
                                   condition=~Q(value="") | Q(object__isnull=False) | ~Q(text="")),
        ]

    def __str__(self) -> str:
        return f"#{self.pk} {self.label_id}={self.value or self.object_id}"

    @property
    def is_current(self) -> bool:
        return is_valid_at(self, timezone.now())


class InParentScope(ScopeRow):
    """A row that hangs off a card (or an entity) and keeps its scope beside it: Citus distributes the row by
    scope_id, onto the shard of what it hangs off (docs/distributed.md). Derived on save, like an entity's
    normalized name; a bulk insert or a raw one sets it itself."""

    parent_field = "card"
    scope = models.ForeignKey("scopes.Scope", on_delete=models.CASCADE, related_name="+")

    class Meta:
        abstract = True
    # The key to the card (`card`, db_constraint=False) is enforced as (card_id, scope_id) → the card's
    # (id, scope_id) (core/scope_keys.py).

    def save(self, *args, **kwargs):
        if self.scope_id is None:
            self.scope_id = getattr(self, self.parent_field).scope_id
        super().save(*args, **kwargs)


class CardRevision(InParentScope):
    """One correction of a card's description (or a knowledge rename/merge), kept forever with the card."""

    card = models.ForeignKey(Card, on_delete=models.CASCADE, related_name="revisions", db_constraint=False)
    actor = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                              related_name="+")
    at = models.DateTimeField()
    field = models.CharField(max_length=32)
    before = models.TextField(blank=True)
    after = models.TextField(blank=True)
    reason = models.CharField(max_length=300, blank=True)

    objects = InScope.as_manager()

    class Meta:
        ordering = ["at", "id"]

    def __str__(self) -> str:
        # What the admin's lists and history show: which card, what changed. An event's corrected time keeps
        # instants (services/corrections.py when_revision), which a person reads as days in its fields instead.
        if self.field == "when":
            return f"card {self.card_id}, when corrected"
        return f"card {self.card_id}, {self.field}: “{self.before[:40]}” → “{self.after[:40]}”"


class CardPerspective(InParentScope):
    """How one member of a shared scope phrases a card ("wife's birthday — prepare a gift")."""

    card = models.ForeignKey(Card, on_delete=models.CASCADE, related_name="perspectives", db_constraint=False)
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    text = models.TextField()

    objects = InScope.as_manager()

    class Meta:
        constraints = [models.UniqueConstraint(fields=["scope", "card", "user"], name="one_perspective_per_member")]


class CardAsked(InParentScope):
    """The person's agent said it put this card's check-in question to them (is
    it still accurate? which of two values holds?): it is not asked again while
    the card stands as it was then. `card_verified_at` is that version — a
    confirmation moves the card's verified_at and a new value is a new card, so
    either brings the question back once the card ages again. A contradiction's
    question is recorded on its newest card (cards/recall/contradictions.py decides which)."""

    card = models.ForeignKey(Card, on_delete=models.CASCADE, related_name="questions_asked", db_constraint=False)
    user = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="+")
    asked_at = models.DateTimeField()
    card_verified_at = models.DateTimeField()

    objects = InScope.as_manager()

    class Meta:
        constraints = [models.UniqueConstraint(fields=["scope", "card", "user"],
                                               name="one_question_record_per_person")]


class AuditEvent(models.Model):
    """That something happened, by whom and when — never the forgotten content itself."""

    at = models.DateTimeField(auto_now_add=True)
    actor = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                              related_name="+")
    action = models.CharField(max_length=64)
    scope = models.ForeignKey("scopes.Scope", null=True, blank=True, on_delete=models.SET_NULL, related_name="+")
    object_type = models.CharField(max_length=32)
    object_id = models.BigIntegerField(null=True)
    detail = models.JSONField(default=dict, blank=True)

    objects = InScope.as_manager()

    class Meta:
        ordering = ["-at"]
        indexes = [models.Index(fields=["scope", "at"], name="audit_by_scope")]


class RuleStatus(models.TextChoices):
    DRAFT = "draft"
    APPROVED = "approved"
    RETIRED = "retired"


class Rule(models.Model):
    """A derivation rule over (subject, label, value-or-object) patterns (DESIGN §7).

    `premises` is a list and `conclusion` one pattern, each `[subject, label,
    object]`; a term starting with "?" is a variable, anything else a constant
    (a label key in the middle, a name or value at the ends). Only approved
    rules derive; people write and approve them, a model may only propose."""

    name = models.CharField(max_length=100, unique=True)
    description = models.TextField(blank=True)
    premises = models.JSONField()
    conclusion = models.JSONField()
    status = models.CharField(max_length=16, choices=RuleStatus.choices, default=RuleStatus.DRAFT)
    author = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                               related_name="+")
    reviewer = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                                 related_name="+")
    approved_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    objects = InGlobalScope.as_manager()

    class Meta:
        ordering = ["name"]
        constraints = [
            models.CheckConstraint(name="rule_approval_recorded",
                                   condition=~Q(status="approved") | Q(approved_at__isnull=False)),
        ]

    def __str__(self) -> str:
        return self.name


class DuplicateStatus(models.TextChoices):
    OPEN = "open"
    MERGED = "merged"
    KEPT_APART = "kept_apart"


class PossibleDuplicate(InParentScope):
    """A new entity whose name looks like an existing one ("Ana" / "Anna"):
    never merged by itself — a reviewer merges through an alias or keeps them apart.
    It lives in the new entity's scope."""

    parent_field = "entity"

    entity = models.ForeignKey(Entity, on_delete=models.CASCADE, related_name="+")
    similar_to = models.ForeignKey(Entity, on_delete=models.CASCADE, related_name="+")
    score = models.FloatField()
    status = models.CharField(max_length=16, choices=DuplicateStatus.choices, default=DuplicateStatus.OPEN)
    created_at = models.DateTimeField(auto_now_add=True)
    decided_by = models.ForeignKey(settings.AUTH_USER_MODEL, null=True, blank=True, on_delete=models.SET_NULL,
                                   related_name="+")
    decided_at = models.DateTimeField(null=True, blank=True)
    reason = models.CharField(max_length=300, blank=True)

    objects = InScope.as_manager()

    class Meta:
        constraints = [models.UniqueConstraint(fields=["scope", "entity", "similar_to"], name="one_duplicate_proposal")]
