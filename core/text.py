"""What counts as text in a request: the one check every JSON body passes
(core/api/common.StrictJSONParser), keys and values at any depth.

JSON may spell what is not Unicode text: a lone surrogate escape ("\\ud800")
decodes into a Python string that no UTF-8 database, log line or response can
hold, so it broke whatever touched it first (a perspective's username lookup,
an error body echoing it) with a 500. It is refused once, here, before any view
reads the body; nothing else needs to know it exists. (NUL bytes stay with the
fields that name them: DRF's text fields and the drafts refuse them as a
validation_error.)"""

from __future__ import annotations

import re

from .errors import DomainError

# Only a \uD800-\uDFFF escape can decode into a surrogate (raw surrogate bytes
# are not UTF-8, so the decoder refuses them first): bodies without one are not walked.
SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F]")
MAX_NAMED = 20


class InvalidText(DomainError):
    """Text that may not enter: not Unicode text (here), or invisible and bidi
    control characters in a name, an alias or a label (cards/text.py). Carries
    `fields`: {field or path in the body: [problem]}."""

    code = "invalid_text"


def text_problem(value: str) -> str | None:
    """Why `value` is not text that can be stored and sent back, or None."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as error:
        return f"contains a lone surrogate (U+{ord(value[error.start]):04X}), which is not a character"
    return None


def _walk(data, path: str, found: dict[str, list[str]]) -> None:
    if len(found) >= MAX_NAMED:
        return
    if isinstance(data, str):
        if problem := text_problem(data):
            found[path or "body"] = [problem]
    elif isinstance(data, dict):
        for key, value in data.items():
            if isinstance(key, str) and (problem := text_problem(key)):
                # The key itself cannot be echoed: name where it sits and say it is a key.
                found[f"{path}.<key>" if path else "<key>"] = [problem]
                continue
            _walk(value, f"{path}.{key}" if path else str(key), found)
    elif isinstance(data, list):
        for index, item in enumerate(data):
            _walk(item, f"{path}.{index}" if path else str(index), found)


def body_text_check(data, raw: bytes) -> None:
    """text_tree_check for a body as received (`raw`) and parsed (`data`): a body
    without a surrogate escape is not walked."""
    if SURROGATE_ESCAPE.search(raw):
        text_tree_check(data)


def text_tree_check(data) -> None:
    """Raises InvalidText naming every place (up to 20) in parsed JSON `data`
    that holds something that is not text."""
    found: dict[str, list[str]] = {}
    _walk(data, "", found)
    if found:
        raise InvalidText("The body holds text that is not Unicode (a lone surrogate escape such as \\ud800); "
                          "send each character whole (a pair of escapes, or the character itself).",
                          fields=found)
