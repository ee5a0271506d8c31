"""POST /api/v1/time/resolve/: one time expression → an absolute interval, the same
resolution remember uses, so an agent can check what "last weekend" will mean."""

from __future__ import annotations

import datetime as dt

from django.utils import timezone
from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.response import Response

from core.api.common import StrictSerializer, WallClockDateTimeField
from core.api.errors import error_responses
from scopes.api.entry import View

from ..models import Precision, TimeSource
from ..time.when import DATE_ORDERS, DEFAULT_DATE_ORDER, anchor_zone, speaker_zone, when_resolve, zone_label

DESCRIPTION = """The day is the speaker's (DESIGN §5). A `reference_time` with an explicit offset
anchors "today", "yesterday", 昨天 … in that offset: `2026-05-08T06:45:00+08:00` makes "yesterday"
7 May at +08:00, whoever asks. Without an offset (no reference_time, or a naive one, read as a wall
time), the expression is anchored in `tz`, else in your own time zone (GET /api/v1/me/). Where the
offset is the one that zone has at that instant, the zone itself anchors, so a day across a
summer-time change keeps its 23 or 25 hours.

`start` and `end` are instants in UTC; `zone` says whose midnights they are: an IANA name, or the
fixed offset (±HH:MM) of the reference time."""


class TimeResolveIn(StrictSerializer):
    expression = serializers.CharField(max_length=200, help_text='e.g. "yesterday", "last weekend", 上週, "8 May 2023".')
    reference_time = WallClockDateTimeField(
        required=False, allow_null=True, default=None,
        help_text="What the expression is relative to; default now. Its offset, if given, anchors the day.")
    tz = serializers.CharField(max_length=64, required=False, allow_null=True, default=None,
                               help_text="IANA time zone for a reference time without an offset; default yours.")
    date_order = serializers.ChoiceField(choices=DATE_ORDERS, required=False, default=DEFAULT_DATE_ORDER,
                                         help_text="How 5/8/2023 reads: mdy (May 8) or dmy (5 August).")


class TimeResolveOut(serializers.Serializer):
    start = serializers.DateTimeField(help_text="UTC.")
    end = serializers.DateTimeField(allow_null=True, help_text="UTC, exclusive; null for a stated instant.")
    precision = serializers.ChoiceField(choices=Precision.choices)
    source = serializers.ChoiceField(choices=[TimeSource.STATED, TimeSource.RESOLVED],
                                     help_text="stated: an absolute date; resolved: relative to reference_time.")
    zone = serializers.CharField(help_text='Where it was anchored: an IANA name ("Europe/Lisbon") or the '
                                           'reference time\'s offset ("+08:00").')
    tz = serializers.CharField(help_text="Deprecated: the same as `zone`.")


class TimeResolve(View):
    @extend_schema(request=TimeResolveIn, responses={200: TimeResolveOut, **error_responses(400, 401)},
                   summary="Resolve a time expression to an absolute interval [start, end)",
                   description=DESCRIPTION)
    def post(self, request):
        data = TimeResolveIn(data=request.data)
        data.is_valid(raise_exception=True)
        reference = data.validated_data["reference_time"]
        zone = anchor_zone(reference, speaker_zone(request.user, data.validated_data["tz"]))
        interval = when_resolve(data.validated_data["expression"], reference=reference or timezone.now(), tz=zone,
                                date_order=data.validated_data["date_order"])
        # Instants in UTC, as every other endpoint writes them; `zone` keeps whose day it was.
        with timezone.override(dt.timezone.utc):
            body = TimeResolveOut({"start": interval.start, "end": interval.end, "precision": interval.precision,
                                   "source": interval.source, "zone": zone_label(zone),
                                   "tz": zone_label(zone)}).data
        return Response(body)
