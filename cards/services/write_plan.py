"""What card_remember and the batch share: a draft checked and resolved into a
`Write` (label, entities, clocks), the outcome it ends in, and the rules both
paths apply the same way — what "the same value" means, the lock of a
timeline, an event's duplicate window."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from functools import cached_property

from django.db import connection
from django.utils import timezone
from django.utils.translation import gettext

from scopes.models import Scope, User
from scopes.zones import person_zone

from ..drafts import CardDraft, Occurrence, aware, draft_text_in, draft_validate, occurrence_from, reference_time_of
from ..errors import ConfusableName, InvalidCard, LabelKindMismatch
from ..labels import label_resolve
from ..words.lexical import card_lexemes
from ..models import Card, CardKind, Cardinality, Entity, EntityKind, Label, Precision
from ..screen import content_screen
from ..text import normalize
from ..time.when import zone_from_label, zone_label
from .entities import entity_for_write_resolved
from .tags import lock_label

ONE_MICROSECOND = dt.timedelta(microseconds=1)
STATED_AT_KEEP = 100


class Outcome:
    INSERTED = "inserted"
    SUPERSEDED = "superseded"
    REINFORCED = "reinforced"
    DUPLICATE = "duplicate"


@dataclass
class WriteOutcome:
    outcome: str
    card: Card
    superseded: list[int] = field(default_factory=list)
    # False when the write path saw no guess or dispute beside the timeline: the
    # tag rules that follow a write (services/tags.py) have nothing to close.
    settle: bool = True
    closed: list[Card] = field(default_factory=list)   # the cards of `superseded`, as the write left them
    label_words: str = ""                              # the label as the caller said it
    new_entity: bool = False                           # the write made its subject's entity


@dataclass
class Write:
    """A validated draft with everything resolved, ready to place."""

    scope: Scope
    actor: User
    draft: CardDraft
    label: Label
    subject: Entity
    object: Entity | None
    value_norm: str
    reference: dt.datetime
    now: dt.datetime
    tz: dt.tzinfo  # the write's anchoring zone: the speaker's day
    new_subject: bool = False  # the subject's entity was made by this write (a name not used here before)

    @property
    def is_single(self) -> bool:
        """A single-value state: one value at a time, on a gapless timeline."""
        return self.draft.kind == CardKind.STATE and self.label.cardinality == Cardinality.SINGLE

    @property
    def effective(self) -> dt.datetime:
        """When the statement says its value became true: the stated effective time, else the reference time."""
        return aware(self.draft.effective_at, self.tz) if self.draft.effective_at else self.reference

    @property
    def start_stated(self) -> bool:
        """Whether the statement gave its value's start ("since May", an effective time), rather than
        only saying it holds when said."""
        return self.draft.effective_at is not None

    @cached_property
    def occurrence(self) -> Occurrence:
        """When an event's draft says it happened, anchored in the speaker's day: read once a write."""
        return occurrence_from(self.draft, self.tz)

    def new_card(self, **fields) -> Card:
        d = self.draft
        fields.setdefault("verified_at", min(self.reference, self.now))
        return Card(
            scope=self.scope, kind=d.kind, tag=d.tag, subject=self.subject, label=self.label,
            cardinality=self.label.cardinality, value=d.value.strip(), value_norm=self.value_norm,
            object=self.object, text=d.text.strip(), recorded_at=self.now,
            source_actor=self.actor, source_token=d.source_token, source_session=d.source_session,
            source_message=d.source_message,
            source_quote=d.source_quote, confidence=d.confidence, impact=d.impact, anchor_zone=zone_label(self.tz),
            lexemes=card_lexemes(label_key=self.label.key, value=d.value, text=d.text,
                                 object_name=self.object.name if self.object else None),
            **fields)


def value_key(value: str, text: str, object_id: int | None) -> str:
    """What "the same value" means: the normalised value (or text), plus the object if any."""
    base = normalize(value) if value.strip() else normalize(text)
    return _with_object(base, object_id)


def value_key_rebound(key: str, *, was: int | None, now: int | None) -> str:
    """The same value's key with another object (an event's place corrected): its words part as written."""
    base = key.removesuffix(f" @{was}") if was else key
    return _with_object(base, now)


def _with_object(base: str, object_id: int | None) -> str:
    return f"{base} @{object_id}" if object_id else base


def draft_fields(draft: CardDraft) -> dict[str, str]:
    """Every text a draft would store, by the name the API gives it: what the screen reads."""
    fields = {"value": draft.value, "text": draft.text, "source.quote": draft.source_quote}
    if isinstance(draft.object, str):
        fields["object"] = draft.object
    fields.update((f"perspectives.{user}", phrasing) for user, phrasing in draft.perspectives.items()
                  if isinstance(phrasing, str))
    return fields


def draft_label(draft: CardDraft) -> Label:
    """The draft's own rules, its label from the registry and the screen
    (never-stored content, consent): what a write — or a proposal, which stores
    nothing yet — is checked against first. `draft`: as taken in (draft_text_in)."""
    draft_validate(draft)
    label = label_resolve(draft.label)
    if label.kind != draft.kind:
        raise LabelKindMismatch(
            gettext("%(label)s is a %(label_kind)s label; a %(kind)s card needs a %(kind)s label.")
            % {"label": repr(label.key), "label_kind": gettext(label.kind), "kind": gettext(draft.kind)},
            label=label.key, label_kind=label.kind)
    content_screen(fields=draft_fields(draft), consent=draft.consent, label=label)
    if label.takes_object and draft.object in (None, "") and not draft.value.strip():
        raise InvalidCard(gettext("%(label)s relates two entities; give an object.") % {"label": repr(label.key)},
                          fields={"object": [gettext("required")]})
    return label


def write_prepare(*, scope: Scope, actor: User, draft: CardDraft, entities: dict | None = None) -> Write:
    """The draft's text taken in (cards.text: NFC, bidi controls stripped),
    checked (draft_label), its entities bound (`entities` memoises them across a
    batch). Every card write passes here: remember, bulk, import, review approval
    and hypothesis confirmation. The Write carries the draft as taken in."""
    draft = draft_text_in(draft)
    label = draft_label(draft)
    tz = zone_from_label(draft.time_zone) if draft.time_zone else person_zone(actor)
    subject, new_subject = entity_named_resolved(scope=scope, actor=actor, ref=draft.subject, field="subject",
                                                 memo=entities)
    obj = None
    if draft.object not in (None, ""):
        # What something "is a" is a kind: derivation matches kinds by name across scopes.
        kind = EntityKind.KIND if label.key == "is_a" else EntityKind.THING
        obj = entity_named(scope=scope, actor=actor, ref=draft.object, kind=kind, field="object", memo=entities)
    return Write(scope=scope, actor=actor, draft=draft, label=label, subject=subject, object=obj,
                 value_norm=value_key(draft.value, draft.text, obj.pk if obj else None),
                 reference=reference_time_of(draft, tz), now=timezone.now(), tz=tz, new_subject=new_subject)


def entity_named(*, field: str, **given) -> Entity:
    """entity_for_write, a refusal naming the draft's field (a form shows it there)."""
    return entity_named_resolved(field=field, **given)[0]


def entity_named_resolved(*, field: str, **given) -> tuple[Entity, bool]:
    """entity_named, and whether the write created the entity (the answer's `new_entity`)."""
    try:
        return entity_for_write_resolved(**given)
    except ConfusableName as refused:
        refused.extra.setdefault("fields", {field: [refused.detail]})
        raise


def timeline_lock_key(scope_id: int, subject_id: int, label_id: int) -> int:
    return ((scope_id * 1_000_003 + subject_id) * 1_000_003 + label_id) % (2**63)


def timeline_lock(*, scope_id: int, subject_id: int, label: Label) -> None:
    """Serialise writers of one (scope, subject, label) — and forgetting a card
    of it — until commit; opposite labels share one lock (tags.lock_label)."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_advisory_xact_lock(%s)", [timeline_lock_key(scope_id, subject_id, lock_label(label))])


def duplicate_window(when: Occurrence, tz: dt.tzinfo) -> tuple[dt.datetime, dt.datetime]:
    """Two reports of one event on the same day are one event: an instant is widened to its local day."""
    if when.precision == Precision.DATETIME or when.end is None:
        local = when.start.astimezone(tz)
        day = local.replace(hour=0, minute=0, second=0, microsecond=0)
        next_day = (day + dt.timedelta(days=1)).replace(tzinfo=None)
        return day, aware(next_day, tz)
    return when.start, when.end
