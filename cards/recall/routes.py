"""Recall (DESIGN §6, issue 17): the cards most relevant to a query — relevance
fuses the vector's similarity with the lexical share of the query's words a
card holds, in one statement — ordered by `relevance × e^(−λ·Δt)` (score.py),
with the facts that have aged and the contradictions among what the caller can
see, each saying whether its question may be put to the caller now
(questions.py). Reads only; no model call beyond the query's embedding.

Routing (PERFORMANCE "routing rule"): when the visible scopes hold fewer than
EXACT_LIMIT candidates — almost every household — every candidate is scored
exactly (exact.py; from the scopes' snapshots in this process when it can,
memory.py); above that, the HNSW index is walked (index.py). The index route is
approximate where the HNSW walk misses a similar card (bench/README "recall.py",
broad read), so the exact route is kept as long as it costs about what the
index route does.
"""

from __future__ import annotations

import datetime as dt

from django.db import connection
from django.utils import timezone

from ..embeddings.reembedding import reembed_running
from ..reads import read_params
from ..embeddings.spaces import current_space, space_values
from ..words.understand import ABSENCE_TELLS, labels_named, name_runs, speaks_of_self
from ..time.when import Interval
from . import score
from .answer import Recall
from .assemble import answer_of
from .candidates import candidates_sql
from .exact import exact
from .index import OVERFETCH, index
from .memory import from_memory
from .query import NAMED_SQL, UNANSWERED_SQL, query_vector, recall_terms
from .snapshots import enabled as memory_enabled

# The crossover at 1M cards on the 2-core machine: exact 65 ms for 20k
# candidates (3.2 µs each) against 60-80 ms for the index route.
EXACT_LIMIT = 20_000
ROUTES = ("exact", "index")


def recall(*, scope_ids: list[int], query: str, k: int = 10, as_of: dt.datetime | None = None,
           when: Interval | None = None, route: str | None = None, subject_ids: list[int] | None = None,
           asker_id: int | None = None, when_events_only: bool = True) -> Recall:
    """Scored cards among `scope_ids` (already restricted to what the caller may
    read), best first; `route` forces "exact" or "index" read from SQL (the bench compares them), or
    "memory": the exact route scored from the scopes' snapshots (snapshots.py) wherever the default
    would, which is for every read of now with no time range, subject or unanswerable attribute, on one
    PostgreSQL, while the snapshots fit in RECALL_MEMORY_MB.
    `asker_id` is the person questions would be put to (None: nobody was asked anything).
    `when` keeps the events in its range, and with `when_events_only` false states and knowledge too."""
    at = as_of or timezone.now()
    # One space for the whole read: the query's vector, the cards it is compared with, the weights and the
    # floor (below it a card is not returned; with none above it, there is no evidence).
    space = current_space()
    params = {**read_params(scope_ids), "at": at, "q": query_vector(query, space), "k": k, "asker": asker_id,
              "terms": list(recall_terms(query)), "names": name_runs(query), **score.params(space),
              "floor": space_values(space).floor,
              # While a reembed runs no card is embedded in a request: those without a vector are scored by
              # their words (cards/embeddings/reembedding.py).
              "embed_in_request": not reembed_running(),
              "tells": [label.pk for label in labels_named(query) if label.key in ABSENCE_TELLS],
              "speaks_of_self": speaks_of_self(query),
              "fetch": k * OVERFETCH, "limit": EXACT_LIMIT + 1,
              "exact_limit": EXACT_LIMIT if route in (None, "memory") else EXACT_LIMIT + 1}
    valid = candidates_sql(params, as_of=as_of, when=when, subject_ids=subject_ids,
                           when_events_only=when_events_only)
    counted = candidates_sql(params, as_of=as_of, when=when, subject_ids=subject_ids, routing=True,
                             when_events_only=when_events_only)
    # Most questions name no such attribute: then the statement is planned without the test.
    unanswered = UNANSWERED_SQL.format(held=candidates_sql(params, as_of=as_of, when=None)) \
        if params["tells"] else "false"
    if route in (None, "memory") and as_of is None and when is None and subject_ids is None:
        with connection.cursor() as cursor:
            found = _from_memory(cursor, params, unanswered)
        if found is not None:
            return Recall(at=at, route="exact", memory=True, **found)
    if route != "index":
        # One statement: no transaction of its own. Not prepared: a generic plan
        # (PostgreSQL's choice after five runs) would serve a household and an
        # enterprise-wide read alike; planning it per call costs ~0.3 ms.
        with connection.cursor() as cursor:
            found = exact(cursor, valid, counted, unanswered, params)
        if found is not None:
            return Recall(at=at, route="exact", **found)
    return Recall(at=at, route="index", **index(valid, unanswered, params))


def _from_memory(cursor, params: dict, unanswered: str) -> dict | None:
    """The exact route's answer scored from the scopes' snapshots in this process (snapshots.py), or
    None when they cannot serve it (off, Citus, too large: SQL then answers). `unanswered`: UNANSWERED_SQL
    for this read, asked of SQL only when the query names such an attribute."""
    if not memory_enabled(cursor):
        return None
    found = from_memory(cursor, params)
    if found is None:
        return None
    if params["tells"]:
        cursor.execute(f"WITH {NAMED_SQL} SELECT {unanswered}", params)
        unanswered = cursor.fetchone()[0]
    return answer_of(cursor, params, top=found["top"], aged=found["aged"], sides=found["sides"],
                     unembedded=found["unembedded"], aging_askable=found["aging_askable"],
                     unanswered=bool(params["tells"]) and unanswered)
