"""GET /api/v1/export/: everything a read in one scope sees, as JSON or as a
remember-me markdown zip. A read: agents with read tokens may export."""

from __future__ import annotations

from django.http import HttpResponse
from django.utils import timezone
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers
from rest_framework.negotiation import DefaultContentNegotiation
from rest_framework.response import Response

from core.api.common import IdField, StrictSerializer
from core.api.errors import error_responses
from scopes.api.entry import View

from ..selectors.export import export_document
from ..transfer.export_markdown import export_zip

FORMATS = ["json", "markdown"]


class ExportQuery(StrictSerializer):
    scope = IdField(help_text="Export what a read in this scope sees: it, its ancestors, your personal scope "
                              "and global.")
    format = serializers.ChoiceField(choices=FORMATS, required=False, default="json",
                                     help_text="json: the versioned document; markdown: a zip with MEMORY.md, "
                                               "memory/YYYY-MM-DD.md daily notes and export.json.")


class FormatIsOurs(DefaultContentNegotiation):
    """`format` here names the export format, not a DRF renderer: answers
    (including errors) are always JSON; the zip bypasses renderers."""

    def select_renderer(self, request, renderers, format_suffix=None):
        return renderers[0], renderers[0].media_type


class Export(View):
    content_negotiation_class = FormatIsOurs

    @extend_schema(parameters=[ExportQuery],
                   responses={(200, "application/json"): OpenApiResponse(OpenApiTypes.OBJECT, description=(
                       '{"format": "memory-site-export", "version": 1, "exported_at", "scopes", "entities", '
                       '"cards"}; with format=markdown, an application/zip of MEMORY.md and memory/*.md')),
                       # Documented as served: the markdown export is a zip, not JSON.
                       (200, "application/zip"): OpenApiResponse(OpenApiTypes.BINARY, description=(
                           "With format=markdown: a zip of MEMORY.md and memory/*.md.")),
                       **error_responses(400, 401, 404)},
                   summary="Export a scope's memory with history and sources (JSON or a markdown zip)")
    def get(self, request):
        query = ExportQuery(data=request.query_params.dict())
        query.is_valid(raise_exception=True)
        params = query.validated_data
        principal = self.principal
        document = export_document(principal=principal, scope_id=params["scope"])
        if params["format"] == "json":
            return Response(document)
        day = timezone.localdate(timezone.now()).isoformat()
        response = HttpResponse(export_zip(document, principal.user.time_zone), content_type="application/zip")
        response["Content-Disposition"] = f'attachment; filename="memory-scope-{params["scope"]}-{day}.zip"'
        return response
