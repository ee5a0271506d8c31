"""Pagination, strict parsing and the strict base serializer and fields shared by the API."""

from __future__ import annotations

import io
from collections.abc import Callable

from drf_spectacular.extensions import OpenApiSerializerExtension
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers
from rest_framework.exceptions import NotFound, ParseError
from rest_framework.pagination import CursorPagination
from rest_framework.parsers import JSONParser

from ..instants import instant_problem
from ..scope_words import SCOPE_WORDS
from ..text import body_text_check

MAX_ID = 2**63 - 1


class Page(CursorPagination):
    """`{"results": [...], "next": url|null, "previous": url|null}`; no COUNT query."""

    ordering = "-id"
    page_size = 50
    page_size_query_param = "limit"
    max_page_size = 500

    def decode_cursor(self, request):
        # DRF answers a garbled cursor with 404, which reads as "no such
        # endpoint", and passes a forged position straight to the id filter
        # (a 500). Both are bad input: name the parameter.
        invalid = serializers.ValidationError(
            {self.cursor_query_param: ["invalid cursor; use the `next` link of a previous page"]})
        try:
            cursor = super().decode_cursor(request)
        except NotFound:
            raise invalid from None
        position = cursor.position if cursor is not None else None
        if position is not None and not (position.isascii() and position.isdigit() and 0 < int(position) <= MAX_ID):
            raise invalid
        return cursor


class StrictJSONParser(JSONParser):
    """JSON, where a body nested too deeply to decode is malformed input, not a
    500, and a string that is not text (a lone surrogate) is refused as
    `invalid_text` before any view reads it (core/text.py)."""

    def parse(self, stream, media_type=None, parser_context=None):
        raw = stream.read()
        try:
            data = super().parse(io.BytesIO(raw), media_type, parser_context)
        except RecursionError:
            raise ParseError("JSON parse error - the body is nested too deeply.") from None
        body_text_check(data, raw)
        return _json_objects(data)


class JsonObject(dict):
    """An object of a JSON body, as StrictJSONParser gives it: its values have
    JSON's types, which StrictSerializer holds to what the schema says (a query
    string's values are all text, and are read as DRF reads them)."""


def _json_objects(value):
    if isinstance(value, dict):
        return JsonObject((key, _json_objects(item)) for key, item in value.items())
    if isinstance(value, list):
        return [_json_objects(item) for item in value]
    return value


def _json_type_problem(field: serializers.Field, value, *, typed: bool) -> str | None:
    """What is wrong with `value`, from a JSON body, for `field`: the type the schema names, not one DRF
    would quietly convert ("name": 0 bound the entity named "0"; "consent": 0 or "true" read as a boolean)."""
    number = isinstance(value, (int, float)) and not isinstance(value, bool)
    if isinstance(field, serializers.CharField) and number:
        return "must be text, not a number"
    if not typed:
        return None
    if isinstance(field, serializers.BooleanField) and value is not None and not isinstance(value, bool):
        return "must be true or false"
    if isinstance(field, serializers.IntegerField) and value is not None and not number:
        return "must be a number"
    if isinstance(field, ScopeRefField) and isinstance(value, str) and value.strip().casefold() not in SCOPE_WORDS:
        return 'must be a number, or "personal", "family" or "team"'
    return None


class StrictSerializer(serializers.Serializer):
    """Refuses fields it does not know: a typo must not silently drop data; and,
    in a JSON body, a value of another type than the schema says (_json_type_problem)."""

    def to_internal_value(self, data):
        if isinstance(data, dict):
            problems = {name: ["unknown field"] for name in sorted(set(data) - set(self.fields))}
            # A query string's values are all text: only a JSON body's types are held to the schema's
            # (a number for a text field is refused wherever it comes from).
            typed = isinstance(data, JsonObject)
            problems |= {name: [problem] for name, field in self.fields.items() if name in data
                         and (problem := _json_type_problem(field, data[name], typed=typed)) is not None}
            if problems:
                raise serializers.ValidationError(problems)
        return super().to_internal_value(data)


class InstantField(serializers.DateTimeField):
    """A datetime the memory can compute with: years 2 to 9998, as sent and in UTC
    (core/instants.py); `as_of` 9999-12-31T23:59:59Z was a 500 once decayed to."""

    def to_internal_value(self, value):
        moment = super().to_internal_value(value)
        if problem := instant_problem(moment):
            raise serializers.ValidationError(problem)
        return moment


class StrictSerializerSchema(OpenApiSerializerExtension):
    """Documents what StrictSerializer does: a body with a field it does not
    know is refused, so its schema says `additionalProperties: false`."""

    target_class = StrictSerializer
    match_subclasses = True

    def map_serializer(self, auto_schema, direction):
        schema = auto_schema._map_serializer(self.target, direction, bypass_extensions=True)
        return {**schema, "additionalProperties": False}


class WallClockDateTimeField(InstantField):
    """Keeps a naive datetime naive: it is a wall time in the request's `tz`, which
    the resolver applies; DRF would otherwise read it in the server's zone (UTC)."""

    def enforce_timezone(self, value):
        return value


class ParsedField(serializers.Field):
    """A value read by a domain function (`parse` raises ValueError saying what is
    wrong), so the API accepts exactly what every other entry point accepts.
    `schema` is its OpenAPI shape, set on the instance: each parsed field has its own."""

    def __init__(self, *, parse: Callable[[object], object], schema: dict, **kwargs):
        self.parse = parse
        super().__init__(**kwargs)
        extend_schema_field(schema)(self)

    def to_internal_value(self, data):
        try:
            return self.parse(data)
        except ValueError as error:
            raise serializers.ValidationError(str(error)) from None

    def to_representation(self, value):
        return value


_PAGES: dict[type, serializers.Serializer] = {}


def page_of(item: type[serializers.Serializer]) -> serializers.Serializer:
    """The documented shape of a list answer, `{"results": [item…], "next":
    url|null}` (API.md: every list is paginated so), for views that page by
    hand; one schema component per item, named after it (CardOut → CardPage)."""
    if item not in _PAGES:
        from drf_spectacular.utils import inline_serializer

        _PAGES[item] = inline_serializer(name=item.__name__.removesuffix("Out") + "Page", fields={
            "results": item(many=True),
            "next": serializers.URLField(allow_null=True, help_text="The next page; null on the last one."),
            "previous": serializers.URLField(allow_null=True, required=False,
                                             help_text="The page before, where the list is paged by a cursor."),
        })
    return _PAGES[item]


def IdField(**kwargs) -> serializers.IntegerField:  # noqa: N802 - reads like a field class
    return serializers.IntegerField(min_value=1, max_value=MAX_ID, **kwargs)


class ErrorSerializer(serializers.Serializer):
    code = serializers.CharField(help_text="Stable snake_case code, e.g. unknown_label, validation_error.")
    detail = serializers.CharField(help_text="What went wrong and what to do.")
    fields = serializers.DictField(required=False, help_text="Per-field problems (validation_error).")
    suggestions = serializers.ListField(child=serializers.CharField(), required=False,
                                        help_text="Close registered labels (unknown_label).")
    rule = serializers.CharField(required=False, help_text=(
        "The rule that refused: for `excluded`, transient_feeling, one_off_frustration, speculative_motive, "
        "raw_conversation_log or secret; for `needs_consent`, sensitive_attribute."))
    category = serializers.CharField(required=False, help_text=(
        "needs_consent: what the sensitive attribute is about (health, religion, sexuality, ethnicity, politics, "
        "trade_union, criminal_record, immigration_status, or a sensitive label's key)."))
    field = serializers.CharField(required=False, help_text=(
        "excluded, needs_consent: the field the screen refused (value, text, source.quote, object, "
        "perspectives.<username>, or label)."))
    index = serializers.IntegerField(required=False, help_text="In a batch: the card that refused the whole batch.")


SCOPE_REF_HELP = 'The scope: its id, or "personal", "family" or "team" for your one scope of that kind.'
READ_SCOPE_HELP = ('Read in this scope: it, its ancestors, your personal scope and global — by its id, or "personal", '
                   '"family" or "team" for your one scope of that kind. Without it, every scope you read (each card '
                   "under its own scope's rule; an archived project only when named).")


@extend_schema_field({"oneOf": [{"type": "integer", "minimum": 1, "maximum": MAX_ID},
                                {"type": "string", "enum": list(SCOPE_WORDS)}]})
class ScopeRefField(serializers.Field):
    """A scope named by its id (12, or "12" in a query string) or by one of SCOPE_WORDS:
    an int, or the word in lower case."""

    default_error_messages = {"invalid": 'Give a scope id, or "personal", "family" or "team".'}

    def __init__(self, **kwargs) -> None:
        kwargs.setdefault("help_text", SCOPE_REF_HELP)
        super().__init__(**kwargs)

    def to_internal_value(self, data):
        if isinstance(data, str):
            word = data.strip().casefold()
            if word in SCOPE_WORDS:
                return word
            if not (word.isascii() and word.isdigit() and len(word) <= 20):
                self.fail("invalid")
            data = int(word)
        if isinstance(data, bool) or not isinstance(data, int) or not 1 <= data <= MAX_ID:
            self.fail("invalid")
        return data

    def to_representation(self, value):
        return value
