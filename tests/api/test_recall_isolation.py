"""Property: recall and count see exactly what the DESIGN §3 oracle of
test_isolation_property says a read in each scope, or naming none, may see (what other members share
with a family or team the read sees included) — never a card from a
scope the caller cannot view (a minor's, to anyone but their guardians) — and
recall so through both routes of the service."""

from __future__ import annotations

import pytest
from django.db import connection, transaction
from hypothesis import given, settings
from hypothesis import strategies as st

from cards.recall.routes import recall
from cards.recall.snapshots import enabled as memory_enabled
from cards.services.embedding import cards_embed_now
from tests.api.test_isolation_property import PROPERTY_SETTINGS, Oracle, _Rollback, explicit_worlds, world_of

pytestmark = pytest.mark.django_db


def _named(scope_id: int | None) -> dict:
    return {} if scope_id is None else {"scope": scope_id}


def recalled(principal, scope_id: int | None) -> tuple[int, set[int]]:
    response = principal.client.post("/api/v1/recall/", {**_named(scope_id), "query": "skill", "k": 100},
                                     format="json")
    if response.status_code != 200:
        return response.status_code, set()
    return 200, {row["card"]["id"] for row in response.json()["results"]}


def counted(principal, scope_id: int | None) -> tuple[int, set[int]]:
    response = principal.client.post("/api/v1/count/", {**_named(scope_id), "label": "skill"}, format="json")
    if response.status_code != 200:
        return response.status_code, set()
    return 200, set(response.json()["cards"])


def recall_equals_the_oracle(data) -> None:
    try:
        with transaction.atomic():
            oracle = Oracle()
            principals, cards, scope_ids = world_of(data, oracle)
            cards_embed_now(card_ids=list(cards))
            with connection.cursor() as cursor:
                memory_kept = memory_enabled(cursor)
            for principal in principals:
                views = oracle.views(principal)
                # Naming no scope reads every scope the principal views (API "Reads without a scope").
                everywhere = oracle.cards_read(principal, views)
                assert recalled(principal, None) == (200, everywhere), (principal.name, views)
                assert counted(principal, None) == (200, everywhere), (principal.name, views)
                for scope_id in scope_ids:
                    if scope_id not in views:
                        assert recalled(principal, scope_id) == (404, set()), (principal.name, scope_id)
                        assert counted(principal, scope_id) == (404, set()), (principal.name, scope_id)
                        continue
                    seen = oracle.read_in(principal, scope_id)
                    expected = oracle.cards_read(principal, seen)
                    assert recalled(principal, scope_id) == (200, expected), (principal.name, scope_id, seen)
                    assert counted(principal, scope_id) == (200, expected), (principal.name, scope_id, seen)
            # The vector-index route is held to the same scopes as the exact one, and so is the exact route
            # scored from memory (which the requests above took).
            for scope_id in scope_ids:
                allowed = {card for card, scope in cards.items() if scope == scope_id}
                for route in ("exact", "index", "memory"):
                    found = recall(scope_ids=[scope_id], query="skill", k=100, route=route)
                    got = {r.card_id for r in found.results}
                    assert got <= allowed if route == "index" else got == allowed, (route, scope_id)
                    assert found.memory == (route == "memory" and memory_kept), (route, scope_id)
            raise _Rollback
    except _Rollback:
        pass


# `make test`: the scripted worlds of test_isolation_property and 10 generated ones;
# `pytest -m long`: 50 generated ones.
SHORT_EXAMPLES = 10
LONG_EXAMPLES = 50


@explicit_worlds
@settings(max_examples=SHORT_EXAMPLES, **PROPERTY_SETTINGS)
@given(data=st.data())
def test_recall_visibility_equals_the_design_oracle(db, data):
    recall_equals_the_oracle(data)


@pytest.mark.long
@explicit_worlds
@settings(max_examples=LONG_EXAMPLES, **PROPERTY_SETTINGS)
@given(data=st.data())
def test_recall_visibility_equals_the_design_oracle_long(db, data):
    recall_equals_the_oracle(data)
