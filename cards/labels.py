"""The label registry: resolving a key or synonym to its Label, and suggesting
close labels when nothing matches. The registry is small and read on every
write, so it is cached per process: dropped at once when this process changes a
label, and reloaded after REGISTRY_TTL seconds so other processes (web and
worker) see a newly registered label soon. A label's key, kind and cardinality
never change once cards use it, so a stale entry is never a wrong rule."""

from __future__ import annotations

import time

from django.db import connection
from django.utils.translation import gettext as _

from .errors import UnknownLabel
from .models import Label
from .text import normalize

REGISTRY_TTL = 30.0
# Sensitive attributes (health, religion, sexuality…) are stored only with
# consent and never put to a person as a question: not as an aging fact, not as
# a contradiction, not as a probe. The labels that holds for, as SQL, so recall's
# statements and the probes' querysets read the one definition.
NEVER_ASKED_LABELS_SQL = "SELECT id FROM cards_label WHERE sensitive"
_by_name: dict[str, Label] | None = None
_loaded_at = 0.0


def _name_key(name: str) -> str:
    # "Home Address", "home_address" and "home-address" all name the same thing.
    return normalize(name).replace("_", " ").replace("-", " ")


def registry() -> dict[str, Label]:
    global _by_name, _loaded_at
    if _by_name is None or time.monotonic() - _loaded_at > REGISTRY_TTL:
        table: dict[str, Label] = {}
        for label in Label.objects.all():
            table[_name_key(label.key)] = label
            for synonym in label.synonyms:
                table.setdefault(_name_key(synonym), label)
        _by_name, _loaded_at = table, time.monotonic()
    return _by_name


def registry_clear() -> None:
    global _by_name
    _by_name = None


def label_suggestions(name: str, limit: int = 5) -> list[str]:
    """Up to `limit` registered labels whose key or a synonym is close by trigram similarity."""
    with connection.cursor() as cursor:
        cursor.execute(
            """
            SELECT l.key, max(similarity(n, %s)) AS score
              FROM cards_label l, unnest(array_append(l.synonyms, replace(l.key, '_', ' '))) AS n
             GROUP BY l.key
            HAVING max(similarity(n, %s)) > 0.15
             ORDER BY score DESC, l.key
             LIMIT %s
            """,
            [_name_key(name), _name_key(name), limit],
        )
        return [row[0] for row in cursor.fetchall()]


def label_lookup(name: str) -> Label | None:
    """The registered label a key or synonym names, or None (no suggestions, no SQL once cached)."""
    return registry().get(_name_key(name))


def label_resolve(name: str) -> Label:
    label = label_lookup(name)
    if label is None:
        suggestions = label_suggestions(name)
        if suggestions:
            said = _("%(name)r is not a registered label. Close registered labels: %(close)s. Use one of them, "
                     "or ask an admin to register it.") % {"name": name, "close": ", ".join(suggestions)}
        else:
            said = _("%(name)r is not a registered label. Use a registered one, or ask an admin to register it.") \
                % {"name": name}
        raise UnknownLabel(said, label=name, suggestions=suggestions)
    return label
