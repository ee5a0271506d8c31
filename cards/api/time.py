"""POST /api/v1/time/resolve/: one time expression → an absolute interval, the same
resolution remember uses, so an agent can check what "last weekend" will mean."""

from __future__ import annotations

import zoneinfo

from django.utils import timezone
from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from core.api.common import StrictSerializer, WallClockDateTimeField
from core.api.errors import error_responses

from ..models import Precision, TimeSource
from ..when import DATE_ORDERS, DEFAULT_DATE_ORDER, user_zone, when_resolve


class TimeResolveIn(StrictSerializer):
    expression = serializers.CharField(max_length=200, help_text='e.g. "yesterday", "last weekend", 上週, "8 May 2023".')
    reference_time = WallClockDateTimeField(required=False, allow_null=True, default=None,
                                            help_text="What the expression is relative to; default now.")
    tz = serializers.CharField(max_length=64, required=False, allow_null=True, default=None,
                               help_text="IANA time zone; default the caller's own.")
    date_order = serializers.ChoiceField(choices=DATE_ORDERS, required=False, default=DEFAULT_DATE_ORDER,
                                         help_text="How 5/8/2023 reads: mdy (May 8) or dmy (5 August).")

    def validate_tz(self, value):
        if value is None:
            return None
        try:
            return zoneinfo.ZoneInfo(value)
        except (zoneinfo.ZoneInfoNotFoundError, ValueError, OSError):  # OSError: a folder name, e.g. "America"
            raise serializers.ValidationError("must be an IANA time zone name") from None


class TimeResolveOut(serializers.Serializer):
    start = serializers.DateTimeField()
    end = serializers.DateTimeField(allow_null=True, help_text="Exclusive; null for a stated instant.")
    precision = serializers.ChoiceField(choices=Precision.choices)
    source = serializers.ChoiceField(choices=[TimeSource.STATED, TimeSource.RESOLVED],
                                     help_text="stated: an absolute date; resolved: relative to reference_time.")
    tz = serializers.CharField()


class TimeResolve(APIView):
    @extend_schema(request=TimeResolveIn, responses={200: TimeResolveOut, **error_responses(400, 401)},
                   summary="Resolve a time expression to an absolute interval [start, end)")
    def post(self, request):
        data = TimeResolveIn(data=request.data)
        data.is_valid(raise_exception=True)
        tz = data.validated_data["tz"] or user_zone(request.user)
        interval = when_resolve(data.validated_data["expression"],
                                reference=data.validated_data["reference_time"] or timezone.now(), tz=tz,
                                date_order=data.validated_data["date_order"])
        # Rendered in the zone it was resolved in, so "today" reads as local midnights.
        with timezone.override(tz):
            body = TimeResolveOut({"start": interval.start, "end": interval.end, "precision": interval.precision,
                                   "source": interval.source, "tz": str(tz)}).data
        return Response(body)
