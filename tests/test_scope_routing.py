"""The checker of tests/scope_routing.py on statements written here: what it must let through (scopes as
constants, joins on scope_id, a row inserted with its scope) and the planted violations it must name (a
join by id alone, a distributed table read with no scope, scopes taken from a subquery). Without these,
tests/test_statements_name_their_scopes.py could pass for a checker that sees nothing."""

import pytest

from tests.scope_routing import distributed_tables, unrouted

ROUTED = {
    "one scope": "SELECT id FROM cards_card WHERE scope_id = 5 AND id = 7",
    "scopes as an array literal": "SELECT c.id FROM cards_card c WHERE c.scope_id = ANY('{1,2}'::int[])",
    "scopes as an ARRAY": "SELECT c.id FROM cards_card c WHERE c.scope_id = ANY(ARRAY[1, 2]::integer[])",
    "scopes as a list": 'SELECT "cards_card"."id" FROM "cards_card" WHERE "cards_card"."scope_id" IN (1, 2)',
    "a colocated join": "SELECT r.id FROM cards_card c JOIN cards_cardrevision r"
                        " ON r.card_id = c.id AND r.scope_id = c.scope_id WHERE c.scope_id IN (1, 2)",
    "a colocated join in the WHERE": "SELECT r.id FROM cards_card c, cards_cardrevision r"
                                     " WHERE r.card_id = c.id AND c.scope_id = r.scope_id AND r.scope_id = 4",
    "a join with a replicated table": "SELECT c.id FROM cards_card c JOIN cards_label l ON l.id = c.label_id"
                                      " JOIN cards_entity e ON e.id = c.subject_id WHERE c.scope_id = 3",
    "the outer join's optional side restricted in its ON":
        "SELECT x.id, a.asked_at FROM cards_label x LEFT JOIN cards_cardasked a"
        " ON a.card_id = x.id AND a.scope_id = ANY('{1,2}'::int[])",
    "a correlated subquery on the scope": "SELECT c.id FROM cards_card c WHERE c.scope_id = 5 AND EXISTS"
                                          " (SELECT 1 FROM cards_cardasked a WHERE a.card_id = c.id"
                                          " AND a.scope_id = c.scope_id)",
    "a CTE": "WITH mine AS MATERIALIZED (SELECT id, scope_id FROM cards_card WHERE scope_id = ANY('{1}'))"
             " SELECT m.id FROM mine m JOIN cards_label l ON l.id = m.id",
    "a row inserted": "INSERT INTO cards_card (scope_id, value) VALUES (5, 'Porto') RETURNING id",
    "an update of one scope": "UPDATE cards_card SET tag = 'fact' WHERE cards_card.id IN (1, 2)"
                              " AND cards_card.scope_id = 5",
    "a delete of two scopes": "DELETE FROM review_candidate WHERE scope_id IN (1, 2) AND id = ANY('{3,4}')",
    "replicated tables only": "SELECT id FROM scopes_scope WHERE id IN (SELECT scope_id FROM scopes_membership)",
}

UNROUTED = {
    "a join by id alone": (
        "SELECT r.id FROM cards_card c JOIN cards_cardrevision r ON r.card_id = c.id"
        " WHERE c.scope_id = 5 AND r.scope_id = 5",
        ["cards_card AS c is joined with cards_cardrevision AS r without equal scope_id"]),
    "a child read by its card's id alone": (
        "SELECT r.id FROM cards_card c JOIN cards_cardrevision r ON r.card_id = c.id WHERE c.scope_id = 5",
        ["cards_cardrevision AS r: its scope_id is not restricted by constants",
         "cards_card AS c is joined with cards_cardrevision AS r without equal scope_id"]),
    "no scope": ("SELECT id FROM cards_card WHERE id = 7",
                 ["cards_card: its scope_id is not restricted by constants"]),
    "scopes from a subquery": (
        "SELECT id FROM cards_card WHERE scope_id IN (SELECT scope_id FROM scopes_membership WHERE user_id = 3)",
        ["cards_card: its scope_id is not restricted by constants"]),
    "a scope or another row": ("SELECT id FROM cards_card WHERE scope_id = 1 OR id = 3",
                               ["cards_card: its scope_id is not restricted by constants"]),
    "a placeholder, not a value": ("SELECT id FROM cards_card WHERE scope_id = $1",
                                   ["cards_card: its scope_id is not restricted by constants"]),
    "the outer join's kept side restricted in its ON": (
        "SELECT c.id FROM cards_card c LEFT JOIN cards_cardasked a"
        " ON a.card_id = c.id AND a.scope_id = c.scope_id AND c.scope_id = 5",
        ["cards_card AS c: its scope_id is not restricted by constants",
         "cards_cardasked AS a: its scope_id is not restricted by constants"]),
    "a subquery's scope, not the outer query's": (
        "SELECT id FROM cards_card WHERE id IN (SELECT card_id FROM cards_cardrevision WHERE scope_id = 5)",
        ["cards_card: its scope_id is not restricted by constants"]),
    "a correlated subquery by id alone": (
        "SELECT c.id FROM cards_card c WHERE c.scope_id = 5 AND EXISTS"
        " (SELECT 1 FROM cards_cardrevision r WHERE r.card_id = c.id AND r.scope_id = 5)",
        ["cards_cardrevision AS r is joined with cards_card AS c without equal scope_id"]),
    "a derived table joined by id": (
        "SELECT o.id FROM (SELECT c.id FROM cards_card c WHERE c.scope_id = ANY('{1,2}')) AS s"
        " JOIN cards_card o ON o.id = s.id",
        ["cards_card AS o: its scope_id is not restricted by constants"]),
    "an update by id alone": ("UPDATE cards_card SET tag = 'fact' WHERE id = 3",
                              ["cards_card: its scope_id is not restricted by constants"]),
    "an insert of what an unrouted read found": (
        "INSERT INTO review_decision (scope_id, item_id) SELECT scope_id, id FROM review_candidate WHERE id = 9",
        ["review_candidate: its scope_id is not restricted by constants"]),
}


@pytest.mark.parametrize("sql", ROUTED.values(), ids=ROUTED.keys())
def test_a_statement_naming_its_scopes_passes(sql):
    assert unrouted(sql) == []


@pytest.mark.parametrize("sql, why", UNROUTED.values(), ids=UNROUTED.keys())
def test_a_statement_not_naming_its_scopes_is_named_with_the_reason(sql, why):
    assert unrouted(sql) == why


def test_the_distributed_tables_a_statement_touches_are_found_at_every_level():
    sql = ("WITH x AS (SELECT card_id FROM cards_cardasked WHERE scope_id = 1)"
           " SELECT 1 FROM scopes_scope WHERE EXISTS (SELECT 1 FROM review_signal WHERE scope_id = 2)")
    assert distributed_tables(sql) == {"cards_cardasked", "review_signal"}
