"""Input serializers validate; output serializers shape (STYLE 5)."""

from __future__ import annotations

from rest_framework import serializers

from cards.confidence import CONFIDENCE_SCHEMA, confidence_value
from cards.drafts import MAX_REF, MAX_TEXT, MAX_VALUE
from cards.models import CardKind, Tag
from core.api.common import IdField, ParsedField, ScopeRefField, StrictSerializer, WallClockDateTimeField

from ..services.ingest import MAX_MESSAGES, ROLES


class MessageIn(StrictSerializer):
    id = serializers.CharField(max_length=MAX_REF, required=False, allow_null=True, default=None)
    role = serializers.ChoiceField(choices=ROLES)
    text = serializers.CharField(max_length=MAX_TEXT, trim_whitespace=False)
    # Kept as sent: a time without its offset is refused, since it anchors "yesterday".
    at = WallClockDateTimeField(help_text="The message's timestamp, with its offset. Times in the words are "
                                          "resolved against it; an event whose words give no usable time (a "
                                          "statement about the present, a date the model could not give) is dated "
                                          'at it, with time_source "message".')

    def validate_at(self, value):
        if value.tzinfo is None:
            raise serializers.ValidationError("give the offset (e.g. +08:00 or Z): it anchors 'yesterday'")
        return value  # its years were checked by the field (core/instants.py)


class IngestIn(StrictSerializer):
    scope = ScopeRefField()
    session = serializers.CharField(max_length=MAX_REF)
    messages = MessageIn(many=True, min_length=1, max_length=MAX_MESSAGES, allow_empty=False)


class JobOut(serializers.Serializer):
    job = serializers.IntegerField(source="pk")
    scope = serializers.IntegerField(source="scope_id")
    session = serializers.CharField()
    status = serializers.CharField()
    extractor = serializers.CharField()
    message_count = serializers.IntegerField()
    attempts = serializers.IntegerField()
    error = serializers.CharField()
    result = serializers.DictField()
    created_at = serializers.DateTimeField()
    finished_at = serializers.DateTimeField(allow_null=True)


class EditsIn(StrictSerializer):
    kind = serializers.ChoiceField(choices=CardKind.choices, required=False)
    label = serializers.CharField(max_length=64, required=False)
    subject = serializers.CharField(max_length=MAX_REF, required=False)
    value = serializers.CharField(max_length=MAX_VALUE, required=False, allow_blank=True)
    object = serializers.CharField(max_length=MAX_REF, required=False, allow_null=True, allow_blank=True)
    text = serializers.CharField(max_length=MAX_TEXT, required=False, allow_blank=True)
    tag = serializers.ChoiceField(choices=Tag.choices, required=False)
    confidence = ParsedField(parse=confidence_value, schema=CONFIDENCE_SCHEMA, required=False, allow_null=True,
                             help_text='"high", "medium", "low" or a number between 0 and 1.')
    impact = serializers.IntegerField(min_value=1, max_value=3, required=False)


class ApproveIn(StrictSerializer):
    edits = EditsIn(required=False, default=dict)
    consent = serializers.BooleanField(required=False, default=False,
                                       help_text="The person explicitly consented: needed when the candidate, "
                                                 "as approved, is a sensitive attribute (`needs_consent`).")
    reason = serializers.CharField(max_length=300, required=False, allow_blank=True, default="")


class ReasonIn(StrictSerializer):
    reason = serializers.CharField(max_length=300, required=False, allow_blank=True, default="")


class RejectIn(StrictSerializer):
    reason = serializers.CharField(max_length=300)


class PickIn(StrictSerializer):
    scope = IdField()
    card = IdField(help_text="The card whose value is current.")
    reason = serializers.CharField(max_length=300, required=False, allow_blank=True, default="")


class SaidAboutYouPickIn(StrictSerializer):
    card = IdField(help_text="Your own card (keep yours), or a statement about you that disputes it (take theirs).")
    reason = serializers.CharField(max_length=300, required=False, allow_blank=True, default="")


class ConfirmIn(StrictSerializer):
    quote = serializers.CharField(max_length=MAX_TEXT, required=False, allow_blank=True, default="",
                                  help_text="The person's confirming words: the card's new source.")
    tag = serializers.ChoiceField(choices=[Tag.FACT, Tag.PREFERENCE], required=False, allow_null=True, default=None)
    consent = serializers.BooleanField(required=False, default=False,
                                       help_text="The person explicitly consents to storing a sensitive attribute "
                                                 "(needed when the statement mentions one: `needs_consent`).")
    session = serializers.CharField(max_length=MAX_REF, required=False, allow_blank=True, default="",
                                    help_text="The conversation the person confirmed it in: the stated card's source.")


class ReviewCandidateOut(serializers.Serializer):
    id = serializers.IntegerField()
    scope = serializers.IntegerField(source="scope_id")
    status = serializers.CharField()
    kind = serializers.CharField()
    label = serializers.CharField()
    subject = serializers.CharField()
    value = serializers.CharField()
    object = serializers.CharField()
    text = serializers.CharField()
    tag = serializers.CharField()
    when = serializers.CharField()
    effective_at = serializers.DateTimeField(allow_null=True)
    occurred_at = serializers.DateTimeField(allow_null=True)
    occurred_end = serializers.DateTimeField(allow_null=True)
    precision = serializers.CharField()
    time_source = serializers.CharField()
    confidence = serializers.FloatField(allow_null=True)
    impact = serializers.IntegerField()
    explicit = serializers.BooleanField()
    long_term = serializers.CharField(help_text="Why it is proposed for long-term memory, if it is.")
    quote = serializers.CharField()
    session = serializers.CharField()
    message = serializers.CharField()
    message_at = serializers.DateTimeField()
    extractor = serializers.CharField(help_text='What proposed it: an extractor, or "agent" for a propose-only '
                                                "token's own card.")
    proposed_by = serializers.SerializerMethodField(help_text="The agent token it came from, if one: a propose-only "
                                                    "token's proposal, or a conversation a token ingested.")
    rule = serializers.CharField()
    problem = serializers.CharField()
    card = serializers.IntegerField(source="card_id", allow_null=True)
    decided_by = serializers.CharField(source="decided_by.username", allow_null=True, default=None)
    decided_at = serializers.DateTimeField(allow_null=True)
    reason = serializers.CharField()

    def get_proposed_by(self, candidate) -> dict | None:
        token = candidate.proposed_by if candidate.proposed_by_id else None
        return {"id": token.pk, "name": token.name, "prefix": token.prefix} if token else None
