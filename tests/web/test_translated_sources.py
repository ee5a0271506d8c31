"""Every word a page shows a person goes through the catalogue: a template's
text is inside {% translate %} or {% blocktranslate %}, its words in attributes
(aria-label, title, placeholder, alt) too, and a page's Python speaks through
gettext. What stays as written: the site's name, code a person copies, and
whatever the page fills in from data ({{ … }})."""

from __future__ import annotations

import html
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
TEMPLATES = sorted((ROOT / "templates").rglob("*.html"))

_DROPPED = [
    re.compile(r"\{#.*?#\}", re.S),
    re.compile(r"\{%\s*comment\s*%\}.*?\{%\s*endcomment\s*%\}", re.S),
    re.compile(r"\{%\s*blocktrans(?:late)?\b.*?\{%\s*endblocktrans(?:late)?\s*%\}", re.S),
    # Code a person copies, and scripts, are not prose.
    re.compile(r"<(pre|code|script|style)\b.*?</\1>", re.S),
    re.compile(r"\{\{.*?\}\}", re.S),
    re.compile(r"\{%.*?%\}", re.S),
]
_WORDY_ATTRIBUTES = re.compile(r"""\b(aria-label|title|placeholder|alt)\s*=\s*(["'])(.*?)\2""", re.S)
_TAG = re.compile(r"<[^>]*>", re.S)
_WORD = re.compile(r"[A-Za-z]{2,}")
KEPT = {"memory-site"}  # the site's name


def _without_template_code(text: str) -> str:
    for pattern in _DROPPED:
        text = pattern.sub(" ", text)
    return text


def untranslated(source: str) -> list[str]:
    """The words of `source` a person would read untranslated."""
    text = _without_template_code(source)
    found = [value for _name, _quote, value in _WORDY_ATTRIBUTES.findall(text) if _WORD.search(value)]
    for chunk in _TAG.split(text):
        chunk = html.unescape(chunk)
        for kept in KEPT:
            chunk = chunk.replace(kept, " ")
        if _WORD.search(chunk):
            found.append(" ".join(chunk.split()))
    return found


@pytest.mark.parametrize("template", TEMPLATES, ids=lambda path: str(path.relative_to(ROOT / "templates")))
def test_every_word_of_a_template_is_translated(template):
    assert untranslated(template.read_text()) == []


def test_the_check_finds_words_outside_the_catalogue():
    # The check itself: it must see text, attributes and tails, and let translated text and data pass.
    assert untranslated('<p>Hello {{ name }}</p><a aria-label="Go home" href="/">{% translate "Home" %}</a>') == [
        "Go home", "Hello"]
    assert untranslated('<p>{% blocktranslate %}Hi {{ n }}{% endblocktranslate %}</p>'
                        '<pre><code>import memory</code></pre>{# a note #}<b>memory-site</b>') == []


# Python that speaks to a person on a page: messages, form labels and help.
PAGE_PYTHON = sorted(p for pattern in ("*/pages/*.py", "memory_site/home.py", "memory_site/connect.py",
                                       "memory_site/waiting.py", "scopes/languages.py")
                     for p in ROOT.glob(pattern))
_UNMARKED = re.compile(
    r"""messages\.(?:success|error|info|warning)\(\s*request,\s*f?["']"""  # a message as a bare literal
    r"""|\b(?:label|help_text|empty_label)\s*=\s*f?["'](?=[^"']*[A-Za-z]{2})""")  # a form's words as one


@pytest.mark.parametrize("module", PAGE_PYTHON, ids=lambda path: str(path.relative_to(ROOT)))
def test_a_page_module_speaks_through_gettext(module):
    lines = module.read_text().splitlines()
    assert [f"{number}: {line.strip()}" for number, line in enumerate(lines, 1) if _UNMARKED.search(line)] == []
