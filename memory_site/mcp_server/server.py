"""The MCP server: the tools, the memory contract as instructions and as a
prompt. One instance per process, shared by the HTTP view and stdio."""

from __future__ import annotations

from functools import cache

from mcp.server.lowlevel import Server
from mcp.server.mcpserver import MCPServer

from . import descriptions, tools


@cache
def mcp_server() -> MCPServer:
    server = MCPServer("memory-site", version="1", instructions=descriptions.CONTRACT,
                       # The SDK configures the root logger at this level: the site's own logging stays as set.
                       log_level="WARNING")
    tools.register(server)

    @server.prompt(name="memory_contract",
                   description="How to use this memory: what to remember, what never to store, when to look "
                               "things up, and how to check in with the person.")
    def memory_contract() -> str:
        return descriptions.CONTRACT

    return server


def lowlevel_server() -> Server:
    """The protocol server under MCPServer, which a session manager serves. The
    SDK keeps it private (it builds the manager only inside its own Starlette
    app, runnable once); the view needs a manager per request. mcp is pinned."""
    return mcp_server()._lowlevel_server
