"""The MCP server over stdio, for desktop agents.

    python manage.py mcp --token memsite_…        (or MEMORY_SITE_TOKEN in the environment)

Every tool acts as that token, exactly as over HTTP at /mcp/. The token in the
environment keeps it out of the process list; a desktop agent's configuration
can set either.
"""

from __future__ import annotations

import os

from django.core.management.base import BaseCommand, CommandError, CommandParser

from memory_site.mcp_server.rest import Caller
from memory_site.mcp_server.server import mcp_server
from memory_site.mcp_server.tools import STDIO_CALLER
from scopes.tokens import TokenRefused, token_authenticate


class Command(BaseCommand):
    help = "Serve the MCP tools over stdio as an agent token."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--token", default=os.environ.get("MEMORY_SITE_TOKEN", ""),
                            help="The agent token (default: $MEMORY_SITE_TOKEN).")
        parser.add_argument("--host", default="localhost",
                            help="The host name links in answers are built with (default: localhost).")

    def handle(self, *args, token: str, host: str, **options) -> None:
        token = token.strip()
        if not token:
            raise CommandError("Give --token (or set MEMORY_SITE_TOKEN): create one in the dashboard.")
        try:
            token_authenticate(token)
        except TokenRefused as refused:
            raise CommandError(f"{refused.code}: {refused.detail}") from None
        STDIO_CALLER.set(Caller(token=token, host=host))
        # stdout carries the protocol from here on: nothing else may print to it.
        mcp_server().run("stdio")
