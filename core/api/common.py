"""Pagination, strict parsing and the strict base serializer and fields shared by the API."""

from __future__ import annotations

from collections.abc import Callable

from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers
from rest_framework.exceptions import NotFound, ParseError
from rest_framework.pagination import CursorPagination
from rest_framework.parsers import JSONParser

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
    """JSON, where a body nested too deeply to decode is malformed input, not a 500."""

    def parse(self, stream, media_type=None, parser_context=None):
        try:
            return super().parse(stream, media_type, parser_context)
        except RecursionError:
            raise ParseError("JSON parse error - the body is nested too deeply.") from None


class StrictSerializer(serializers.Serializer):
    """Refuses fields it does not know: a typo must not silently drop data."""

    def to_internal_value(self, data):
        if isinstance(data, dict):
            unknown = sorted(set(data) - set(self.fields))
            if unknown:
                raise serializers.ValidationError({name: ["unknown field"] for name in unknown})
        return super().to_internal_value(data)


class WallClockDateTimeField(serializers.DateTimeField):
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


def IdField(**kwargs) -> serializers.IntegerField:  # noqa: N802 - reads like a field class
    return serializers.IntegerField(min_value=1, max_value=MAX_ID, **kwargs)


class ErrorSerializer(serializers.Serializer):
    code = serializers.CharField(help_text="Stable snake_case code, e.g. unknown_label, validation_error.")
    detail = serializers.CharField(help_text="What went wrong and what to do.")
    fields = serializers.DictField(required=False, help_text="Per-field problems (validation_error).")
    suggestions = serializers.ListField(child=serializers.CharField(), required=False,
                                        help_text="Close registered labels (unknown_label).")
    rule = serializers.CharField(required=False, help_text="The rule that refused (excluded, needs_consent).")
