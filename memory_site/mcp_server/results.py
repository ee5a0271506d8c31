"""How a REST answer reaches the model: the JSON as structured content and as
text, or, for a refusal, a tool error carrying the API's `code` (and its
`fields`, `suggestions`, `candidates`… as the REST body has them)."""

from __future__ import annotations

from typing import Any

import orjson
from mcp.types import CallToolResult, TextContent

from .rest import Answer


def tool_result(body: Any) -> CallToolResult:
    structured = body if isinstance(body, dict) else {"result": body}
    text = orjson.dumps(structured, option=orjson.OPT_NON_STR_KEYS).decode()
    return CallToolResult(content=[TextContent(type="text", text=text)], structured_content=structured)


def tool_refusal(answer: Answer) -> CallToolResult:
    body = dict(answer.body) if isinstance(answer.body, dict) else {}
    body.setdefault("code", "error")
    body.setdefault("detail", "")
    body["status"] = answer.status
    # The text a model reads first: the code, then what to do about it.
    text = f"{body['code']}: {body['detail']}"
    if extra := {k: v for k, v in body.items() if k not in ("code", "detail", "status")}:
        text += "\n" + orjson.dumps(extra, option=orjson.OPT_NON_STR_KEYS).decode()
    return CallToolResult(content=[TextContent(type="text", text=text)], structured_content=body, is_error=True)


def tool_answer(answer: Answer, *, empty: dict | None = None) -> CallToolResult:
    """A REST answer as a tool result; `empty` stands for a body-less success (204)."""
    if not answer.ok:
        return tool_refusal(answer)
    return tool_result(answer.body if answer.body is not None else (empty or {}))
