"""Extraction settings: settings.py first, then the environment (like EMBEDDING_*),
so a worker can be pointed at another endpoint without a code change."""

from __future__ import annotations

import os

from django.conf import settings


def extract_setting(name: str, default: str = "") -> str:
    value = getattr(settings, name, None)
    return os.environ.get(name, default) if value is None else str(value)
