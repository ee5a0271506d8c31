"""Input serializers only validate; output serializers only shape (STYLE 5)."""

from __future__ import annotations

from rest_framework import serializers

from core.api.common import (READ_SCOPE_HELP, IdField, InstantField, ParsedField, ScopeRefField, StrictSerializer,
                             WallClockDateTimeField)

from ..confidence import CONFIDENCE_SCHEMA, LEVELS, confidence_value, level_of
from ..drafts import MAX_REF, MAX_TEXT, MAX_VALUE
from ..models import Card, CardKind, EntityKind, Precision, Tag
from ..valid_time import is_planned


# What cards.text holds, said where agents read the schema.
NAME_RULE = (" Taken NFC-normalised; invisible or direction-control characters (zero-width spaces, joiners "
             "outside the scripts they shape, bidi controls, …) are refused with `invalid_text`.")
LOOK_ALIKE_RULE = (" A new name that looks like an entity's the write can see (the same Unicode TR39 skeleton: "
                   "\"Pаris\" with a Cyrillic а and \"Paris\") is refused with `confusable_name` and that entity "
                   "in `candidates`; it binds only once registered as an alias of it.")
FREE_TEXT_RULE = (" Taken NFC-normalised; emoji sequences, Arabic, Hebrew and Persian (ZWNJ) are kept as written, "
                  "bidi embedding, override and isolate controls (U+202A–U+202E, U+2066–U+2069) are dropped.")


class PerspectivesField(serializers.DictField):
    """{username: phrasing}. DictField checks only the values; a key reaches the
    database as a username, so it must be sane text too (a NUL byte was a 500)."""

    child = serializers.CharField(max_length=2_000)

    def to_internal_value(self, data):
        phrasings = super().to_internal_value(data)
        bad = [key for key in phrasings if not key or len(key) > 150 or "\x00" in key]
        if bad:
            raise serializers.ValidationError(["keys are usernames: non-empty, at most 150 characters, no NUL"])
        return phrasings


class SourceIn(StrictSerializer):
    session = serializers.CharField(max_length=MAX_REF, required=False, allow_blank=True, default="",
                                    help_text="The conversation it was said in. Sessions are counted for the "
                                              "hypothesis lifecycle: a guess about a person not validated in 5 of "
                                              "their sessions in its scope is discarded.")
    message = serializers.CharField(max_length=MAX_REF, required=False, allow_blank=True, default="")
    quote = serializers.CharField(max_length=MAX_TEXT, required=False, allow_blank=True, default="",
                                  trim_whitespace=False)


class RememberIn(StrictSerializer):
    scope = ScopeRefField()
    kind = serializers.ChoiceField(choices=CardKind.choices)
    subject = serializers.CharField(max_length=MAX_REF, help_text='"me", or the name of an entity in the scope.'
                                    + NAME_RULE + LOOK_ALIKE_RULE)
    label = serializers.CharField(max_length=64, help_text="A registered label key or synonym." + NAME_RULE)
    value = serializers.CharField(max_length=MAX_VALUE, required=False, allow_blank=True, default="",
                                  help_text="The value." + FREE_TEXT_RULE)
    object = serializers.CharField(max_length=MAX_REF, required=False, allow_null=True, default=None,
                                   help_text="Another entity's name, for relations." + NAME_RULE + LOOK_ALIKE_RULE)
    text = serializers.CharField(max_length=MAX_TEXT, required=False, allow_blank=True, default="",
                                 help_text="The human-readable description." + FREE_TEXT_RULE)
    tag = serializers.ChoiceField(choices=Tag.choices, required=False, default=Tag.FACT)
    when = serializers.CharField(max_length=200, required=False, allow_null=True, default=None,
                                 help_text="When it happened (events) or became true (states).")
    # Kept as sent (WallClockDateTimeField): the offset is the speaker's day, and a naive time has none.
    reference_time = WallClockDateTimeField(
        required=False, allow_null=True, default=None,
        help_text="The message's timestamp; default now. Its offset anchors `when` (\"yesterday\" is the day "
                  "before in that offset); without one, `tz` or your own zone does.")
    effective_at = WallClockDateTimeField(required=False, allow_null=True, default=None,
                                          help_text="States: when it became true; a naive time is read in the "
                                                    "anchoring zone.")
    tz = serializers.CharField(max_length=64, required=False, allow_null=True, default=None,
                               help_text="IANA zone for a reference time without an offset; default yours.")
    source = SourceIn(required=False, allow_null=True, default=None)
    perspectives = PerspectivesField(required=False, default=dict, help_text=(
        "Per-member phrasings keyed by username, for members of the card's shared scope. Each member reads only "
        "their own. Others' phrasings are set only when this write creates the card."))
    confidence = ParsedField(parse=confidence_value, schema=CONFIDENCE_SCHEMA, required=False, allow_null=True,
                             default=None, help_text="Hypotheses: " + ", ".join(
                                 f'"{word}" (stored as {number:g})' for word, number in LEVELS.items())
                             + ", or a number between 0 and 1.")
    impact = serializers.IntegerField(min_value=1, max_value=3, required=False, default=2)
    consent = serializers.BooleanField(required=False, default=False, help_text=(
        "The person's explicit consent to store a sensitive attribute: a label the registry marks sensitive, or "
        "health, religion, sexuality, ethnicity, politics, union membership, a criminal record or immigration "
        "status mentioned in the value, text, quote, object or perspectives (English or Chinese). Without it "
        "such a card is refused with 400 `needs_consent` naming the `category`. Consent never lets through "
        "what is never stored (`excluded`)."))

    def validate(self, data):
        if not (data["value"].strip() or data["object"] or data["text"].strip()):
            raise serializers.ValidationError({"value": ["give a value, an object or a text"]})
        if data["when"] and data["effective_at"]:
            raise serializers.ValidationError({"when": ["give when or effective_at, not both"]})
        return data


class BulkIn(StrictSerializer):
    cards = serializers.ListField(child=serializers.DictField(), min_length=1, max_length=1_000)


class CardPatchIn(StrictSerializer):
    text = serializers.CharField(max_length=MAX_TEXT, required=False)
    perspectives = PerspectivesField(required=False, help_text=(
        "Your own phrasing, keyed by your username; another member's is refused (403 `not_your_perspective`)."))
    reason = serializers.CharField(max_length=300, required=False, allow_blank=True, default="")
    consent = serializers.BooleanField(required=False, default=False, help_text=(
        "The person explicitly consents to storing a sensitive attribute the new words mention "
        "(without it: 400 `needs_consent`, with `category`)."))

    def validate(self, data):
        if "text" not in data and "perspectives" not in data:
            raise serializers.ValidationError({"text": ["give text and/or perspectives"]})
        return data


class CardCorrectIn(StrictSerializer):
    when = serializers.CharField(max_length=200, required=False, help_text=(
        'When the event really happened, as `remember` takes `when`: "Sunday", "last weekend", 上週日, '
        '"2026-05-03". Read against `reference_time` in the speaker\'s zone.'))
    reference_time = WallClockDateTimeField(
        required=False, allow_null=True, default=None,
        help_text="When the person said it; default now. Its offset anchors `when`; without one, `tz` or your "
                  "own zone does.")
    tz = serializers.CharField(max_length=64, required=False, allow_null=True, default=None,
                               help_text="IANA zone for `when` and a reference time without an offset; default "
                                         "yours.")
    object = serializers.CharField(max_length=MAX_REF, help_text=(
        "Where it really was, or who or what it really involved: a name bound as `remember` binds `object`."
        + NAME_RULE + LOOK_ALIKE_RULE), required=False)
    text = serializers.CharField(max_length=MAX_TEXT, required=False,
                                 help_text="The corrected description." + FREE_TEXT_RULE)
    reason = serializers.CharField(max_length=300, required=False, allow_blank=True, default="",
                                   help_text='What the person said: "it was Sunday, not Saturday".')
    consent = serializers.BooleanField(required=False, default=False, help_text=(
        "The person explicitly consents to storing a sensitive attribute the new words mention "
        "(without it: 400 `needs_consent`, with `category`)."))

    def validate(self, data):
        if not any(name in data for name in ("when", "object", "text")):
            raise serializers.ValidationError({"when": ["give when, object and/or text"]})
        return data


class CardListQuery(StrictSerializer):
    scope = ScopeRefField(required=False, help_text=READ_SCOPE_HELP)
    subject = serializers.CharField(max_length=MAX_REF, required=False)
    label = serializers.CharField(max_length=64, required=False)
    kind = serializers.ChoiceField(choices=CardKind.choices, required=False)
    tag = serializers.ChoiceField(choices=Tag.choices, required=False)
    current = serializers.BooleanField(required=False, default=True)
    as_of = InstantField(required=False)
    when = serializers.CharField(max_length=200, required=False,
                                 help_text='Events that happened then: "yesterday", "last week", 上週, an ISO date…')
    tz = serializers.CharField(max_length=64, required=False, help_text="Zone for `when`; default yours.")
    cursor = serializers.CharField(required=False)
    limit = serializers.IntegerField(min_value=1, max_value=500, required=False)


class SourceOut(serializers.Serializer):
    actor = serializers.CharField(allow_null=True)
    agent = serializers.CharField(allow_null=True, required=False,
                                  help_text="The name of the agent token that wrote it; null when a person did.")
    session = serializers.CharField()
    message = serializers.CharField()
    quote = serializers.CharField()


class CardOut(serializers.Serializer):
    """A card as agents see it: `text` in the caller's own phrasing where one exists."""

    id = serializers.IntegerField()
    scope = serializers.IntegerField(source="scope_id")
    kind = serializers.ChoiceField(choices=CardKind.choices)
    tag = serializers.ChoiceField(choices=Tag.choices)
    subject = serializers.CharField(source="subject.name")
    subject_id = serializers.IntegerField()
    label = serializers.CharField(source="label.key")
    cardinality = serializers.CharField()
    value = serializers.CharField()
    object = serializers.SerializerMethodField()
    object_id = serializers.IntegerField(allow_null=True)
    text = serializers.SerializerMethodField()
    base_text = serializers.CharField(source="text")
    effective_at = serializers.DateTimeField()
    superseded_at = serializers.DateTimeField(allow_null=True)
    superseded_by = serializers.IntegerField(source="superseded_by_id", allow_null=True)
    recorded_at = serializers.DateTimeField()
    verified_at = serializers.DateTimeField()
    occurred_at = serializers.DateTimeField(allow_null=True)
    occurred_end = serializers.DateTimeField(allow_null=True)
    precision = serializers.ChoiceField(choices=Precision.choices, allow_blank=True)
    time_source = serializers.CharField(
        help_text="Where an event's time came from: stated (a date in the words), resolved (an expression such as "
                  '"last Friday", or a model\'s absolute date), message (the message\'s timestamp: a statement '
                  "about the present, or no usable time in the words), server, or none (undated).")
    zone = serializers.SerializerMethodField(
        help_text='Whose day the times were anchored in: an IANA name ("Europe/Lisbon") '
                  'or the reference time\'s offset ("+08:00"); null for older cards. '
                  "The times themselves are UTC instants.")
    source = serializers.SerializerMethodField()
    confidence = serializers.FloatField(allow_null=True)
    confidence_level = serializers.SerializerMethodField(
        help_text='The stored confidence as a word: "high", "medium", "low"; null without a confidence.')
    impact = serializers.IntegerField()
    planned = serializers.SerializerMethodField(
        help_text="Not yet true: a value from a future date (the value it replaces is current until then), "
                  "or an event still to come.")
    disputes = serializers.IntegerField(
        source="disputes_id", allow_null=True,
        help_text="Someone else's statement about a member that disagrees with the member's own card (this id): "
                  "it stands beside it, outside the timeline, until the member settles it.")

    def get_planned(self, card: Card) -> bool:
        return is_planned(card)

    def get_object(self, card: Card) -> str | None:
        return card.object.name if card.object_id else None

    def get_confidence_level(self, card: Card) -> str | None:
        return None if card.confidence is None else level_of(card.confidence)

    def get_zone(self, card: Card) -> str | None:
        return card.anchor_zone or None

    def get_text(self, card: Card) -> str:
        return getattr(card, "perspective_text", None) or card.text

    def get_source(self, card: Card) -> dict:
        return {"actor": card.source_actor.username if card.source_actor_id else None,
                "agent": card.source_token.name if card.source_token_id else None,
                "session": card.source_session, "message": card.source_message, "quote": card.source_quote}

    get_source.output_field = SourceOut()  # for the schema


class NowOut(serializers.Serializer):
    id = serializers.IntegerField()
    value = serializers.CharField()


class ClosedOut(serializers.Serializer):
    id = serializers.IntegerField()
    value = serializers.CharField()
    since = serializers.DateTimeField(help_text="When the closed value had held from.")


class ResolvedSubjectOut(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    kind = serializers.CharField()


class RememberOut(serializers.Serializer):
    outcome = serializers.ChoiceField(choices=["inserted", "superseded", "reinforced", "duplicate"])
    card = CardOut(allow_null=True, help_text="The card as stored, in your phrasing; null only when `forgotten`.")
    card_id = serializers.IntegerField(help_text="The card's id (also when it was forgotten meanwhile).")
    superseded = serializers.ListField(child=serializers.IntegerField())
    forgotten = serializers.BooleanField(
        help_text="True when someone forgot the card after this write committed and before the answer was read: "
                  "the write happened (do not send it again) and the card is gone, as asked.")
    current = serializers.BooleanField(
        help_text="Whether the card written is the subject's current value for its label after the write. False "
                  "when it was placed in the past (another value's start was stated after it, or it was said "
                  "later) or is planned (it starts later): `note` says so, in words to relay.")
    now = NowOut(allow_null=True, help_text="The value that is current for the subject and label after the write "
                                            "(the written one or another); null for an event, or when none is.")
    closed = ClosedOut(many=True, help_text="The values this write closed: a value only said to hold "
                                            "(\"I live in Lisbon\") is closed by a later statement whose start is "
                                            "earlier (\"I moved to Kyoto last month\").")
    subject_resolved = ResolvedSubjectOut(help_text="Whom or what `subject` was understood as.")
    new_entity = serializers.BooleanField(help_text="True when this write created the subject's entity: a name "
                                                    "nobody had used here before (check it is not a misspelling).")
    label_from = serializers.CharField(allow_null=True, help_text="The words the label was understood from, when "
                                                                  "they were not the label's key.")
    note = serializers.CharField(allow_null=True, help_text="When the card written is not current: what holds "
                                                            "and what to do, in words an agent can relay.")


class BulkOut(serializers.Serializer):
    results = RememberOut(many=True)


class ProposedOut(serializers.Serializer):
    """A propose-only token's card: a candidate in its person's review queue, not a card."""

    outcome = serializers.ChoiceField(choices=["proposed"])
    candidate = serializers.DictField(help_text="The candidate as the review queue shows it (`GET /api/v1/review/`): "
                                                "`id`, `scope`, `status` (`pending`, or `needs_consent` for a "
                                                "sensitive attribute), the card's fields, `proposed_by`.")


class BulkProposedOut(serializers.Serializer):
    results = ProposedOut(many=True)


class CorrectedOut(CardOut):
    corrected = serializers.ListField(child=serializers.ChoiceField(choices=["when", "object", "text"]), help_text=(
        "What the correction changed, of `when`, `object` and `text`; empty when the card already said so."))


class AskedOut(serializers.Serializer):
    card = serializers.IntegerField()
    asked_at = serializers.DateTimeField(help_text="When the question was first recorded as asked about the card "
                                                   "as it stands; the same call again keeps it.")


class EntityIn(StrictSerializer):
    scope = IdField()
    name = serializers.CharField(max_length=MAX_REF, help_text="The entity's name." + NAME_RULE + LOOK_ALIKE_RULE)
    kind = serializers.ChoiceField(choices=EntityKind.choices, required=False, default=EntityKind.THING)


class AliasIn(StrictSerializer):
    name = serializers.CharField(
        max_length=MAX_REF, help_text="Another name for the entity." + NAME_RULE + " A spelling that looks like "
        "the entity's own name (\"Pаris\" for Paris) is how a look-alike is made to bind; one that looks like "
        "another entity's name is refused with `confusable_name`.")
    scope = IdField(required=False, allow_null=True, default=None,
                    help_text="Where the name counts (default: the entity's own scope). A member names "
                              "themselves in a shared scope; its admins may name any member there.")


class ResolveIn(StrictSerializer):
    scope = IdField()
    name = serializers.CharField(max_length=MAX_REF,
                                 help_text="The name to bind. One that only looks like an entity's name (the same "
                                           "TR39 skeleton) binds to nothing: that entity comes first in "
                                           "`candidates`, with score 1.0.")


class EntityOut(serializers.Serializer):
    id = serializers.IntegerField()
    scope = serializers.IntegerField(source="scope_id")
    name = serializers.CharField()
    kind = serializers.CharField()
    aliases = serializers.SerializerMethodField()
    is_person_of_user = serializers.SerializerMethodField()

    def get_aliases(self, entity) -> list[str]:
        return [alias.name for alias in entity.aliases.all()]

    def get_is_person_of_user(self, entity) -> bool:
        return entity.user_id is not None


class CandidateOut(serializers.Serializer):
    entity = EntityOut()
    score = serializers.FloatField()


class ResolveOut(serializers.Serializer):
    entity = EntityOut(allow_null=True)
    ambiguous = serializers.BooleanField()
    candidates = CandidateOut(many=True)
