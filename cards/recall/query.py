"""What recall reads of the query (issues 17 and 18): its vector, its words (and the keys of the labels it
names), the entities it names exactly, and whether it asks for an attribute of people that nothing
recorded answers. The words themselves: cards/words/lexical.py; the labels and names a question holds:
cards/words/understand.py (ask reads them too)."""

from __future__ import annotations

from functools import lru_cache

from ..embeddings import current_space, embed_query
from ..words.lexical import lexemes, query_terms
from ..words.understand import labels_named


def query_vector(query: str, space: str | None = None) -> str:
    """The query's embedding in `space` (the current one by default) as pgvector text; repeated queries (an
    agent asks for its context every turn) are embedded once per process and space: a change of model in a
    live process never hands out a vector of the other."""
    return _query_vector(query, space or current_space())


@lru_cache(maxsize=512)
def _query_vector(query: str, space: str) -> str:
    vector = embed_query(query)
    return "[" + ",".join(f"{x:.9g}" for x in vector) + "]"


def query_vectors_clear() -> None:
    """Empty this process's cache of query vectors (the benches time a cold query)."""
    _query_vector.cache_clear()


def recall_terms(query: str) -> tuple[str, ...]:
    """The query's words (cards/words/lexical.py), and the key of every label the query
    names by a synonym ("which company…" also looks for "employer"): a card's
    words hold its label's key, never the synonyms, which may change."""
    named = [label.key for label in labels_named(query)]
    return tuple(dict.fromkeys([*query_terms(query), *(w for key in named for w in lexemes(key.replace("_", " ")))]))


# The entities the query names exactly (`names`: its word runs, understand.name_runs),
# among the read's scopes and their members' own, merges followed.
# Three arms, each on its own index (an OR of the first two read every entity: 1 ms at 100k cards).
NAMED_SQL = """named AS MATERIALIZED (
    SELECT COALESCE(e.merged_into_id, e.id) AS id FROM cards_entity e
     WHERE e.name_norm = ANY(%(names)s::text[]) AND e.scope_id = ANY(%(scopes)s)
    UNION SELECT COALESCE(e.merged_into_id, e.id) FROM cards_entity e
     WHERE e.name_norm = ANY(%(names)s::text[])
       AND e.user_id IN (SELECT m.user_id FROM scopes_membership m WHERE m.scope_id = ANY(%(scopes)s))
    UNION SELECT COALESCE(e.merged_into_id, e.id) FROM cards_alias a JOIN cards_entity e ON e.id = a.entity_id
     WHERE a.name_norm = ANY(%(names)s::text[]) AND a.scope_id = ANY(%(scopes)s))"""


def is_named(alias: str) -> str:
    """The card `alias` is about (or relates to) an entity of NAMED_SQL."""
    return f"({alias}.subject_id IN (SELECT id FROM named) OR {alias}.object_id IN (SELECT id FROM named))"


# A question for an attribute of named people (understand.ABSENCE_TELLS: `tells`) — by name, or
# the asker's own ("my phone number") — when no such card about them holds now
# (`held`: valid at the asked time, whatever `when` or subject narrows the read to):
# nothing recorded answers it. Undecided when it also names something not a person
# ("the manager at Datadog"): an entity can hold such an attribute in a note.
UNANSWERED_SQL = """(WITH people AS (
        SELECT n.id FROM named n JOIN cards_entity e ON e.id = n.id
         WHERE e.user_id IS NOT NULL OR e.kind = 'person'
        UNION SELECT e.id FROM cards_entity e WHERE %(speaks_of_self)s AND e.user_id = %(asker)s)
    SELECT cardinality(%(tells)s::int[]) > 0 AND EXISTS (SELECT 1 FROM people)
       AND NOT EXISTS (SELECT 1 FROM named WHERE id NOT IN (SELECT id FROM people))
       AND NOT EXISTS (SELECT 1 FROM cards_card c WHERE {held} AND c.label_id = ANY(%(tells)s::int[])
                       AND (c.subject_id IN (SELECT id FROM people) OR c.object_id IN (SELECT id FROM people))))"""
