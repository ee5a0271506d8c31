"""Extraction: a session's messages in, review-queue candidates out (see base.py).
`extractor_for()` picks the extractor named by settings.EXTRACTOR (or the
EXTRACTOR environment variable): `patterns` (the default) or `llm`."""

from __future__ import annotations

from django.core.exceptions import ImproperlyConfigured

from .base import Dropped, ExtractContext, Extraction, ExtractionFailed, Extractor, Message, Proposal
from .config import extract_setting

__all__ = ["Dropped", "ExtractContext", "Extraction", "ExtractionFailed", "Extractor", "Message", "Proposal",
           "EXTRACTORS", "extractor_for"]

EXTRACTORS = ("patterns", "llm")


def extractor_for(name: str | None = None) -> Extractor:
    chosen = str(name or extract_setting("EXTRACTOR", "") or "patterns").strip().lower()
    if chosen == "patterns":
        from .patterns import PatternExtractor

        return PatternExtractor()
    if chosen == "llm":
        from .llm import LLMExtractor

        return LLMExtractor()
    raise ImproperlyConfigured(
        f"EXTRACTOR={chosen!r} is not an extractor; use one of {', '.join(EXTRACTORS)}.")
