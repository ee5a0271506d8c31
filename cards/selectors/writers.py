"""Who wrote the cards a scope page can show: the people who wrote them
themselves and the agents (tokens, by their name and their person) that wrote
them — the scope page's "Written by" filter. Only names: a token's prefix and
secret stay on its own person's tokens page."""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import Q, QuerySet

from ..models import Card

PERSON, AGENT = "person", "agent"


@dataclass(frozen=True)
class Writer:
    key: str  # "person-<user id>" or "agent-<token id>": the filter's value
    name: str  # what the choice reads


def _shown(display_name: str, username: str) -> str:
    return display_name or username  # as User.shown_name


def writers_of(cards: QuerySet[Card]) -> tuple[list[Writer], list[Writer]]:
    """(people, agents) who wrote `cards` (already restricted to what the viewer
    may see), each sorted by name, in one query. A card an agent wrote is its
    agent's, whoever its person is; a person's are those written without one."""
    rows = (cards.filter(Q(source_token__isnull=False) | Q(source_actor__isnull=False))
            .values_list("source_token_id", "source_token__name", "source_token__user__display_name",
                         "source_token__user__username", "source_actor_id", "source_actor__display_name",
                         "source_actor__username")
            .order_by().distinct())
    people: dict[str, Writer] = {}
    agents: dict[str, Writer] = {}
    for token_id, token, owner_display, owner, actor_id, actor_display, actor in rows:
        if token_id is not None:
            key = f"{AGENT}-{token_id}"
            agents[key] = Writer(key, f"“{token}”, agent of {_shown(owner_display, owner)}")
        else:
            key = f"{PERSON}-{actor_id}"
            people[key] = Writer(key, _shown(actor_display, actor))
    return (sorted(people.values(), key=lambda w: w.name.lower()),
            sorted(agents.values(), key=lambda w: w.name.lower()))


def written_by(cards: QuerySet[Card], key: str) -> QuerySet[Card]:
    """`cards` written by the writer `key` names (a key `writers_of` gave)."""
    kind, _, pk = key.partition("-")
    if kind == AGENT:
        return cards.filter(source_token_id=int(pk))
    return cards.filter(source_actor_id=int(pk), source_token__isnull=True)
