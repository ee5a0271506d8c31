"""Many scopes' read sets at once are each scope's read_scope_ids (one rule, one query)."""

import pytest

from scopes.principals import Principal
from scopes.selectors import read_scope_ids, read_scope_sets
from scopes.services import global_scope_get, membership_set, scope_create
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def ladder(alice):
    enterprise = scope_create(name="Acme", kind="enterprise", creator=alice)
    team = scope_create(name="Search", kind="team", creator=alice, parent=enterprise)
    project = scope_create(name="Ranking", kind="project", creator=alice, parent=team)
    sibling = scope_create(name="Ads", kind="team", creator=alice, parent=enterprise)
    return {"enterprise": enterprise, "team": team, "project": project, "sibling": sibling,
            "global": global_scope_get(), "personal": alice.personal_scope}


def test_each_scope_sees_what_read_scope_ids_says(alice, ladder):
    principal = Principal(alice)
    ids = [scope.pk for scope in ladder.values()]
    sets = read_scope_sets(principal=principal, scope_ids=ids)
    assert sets == {pk: set(read_scope_ids(principal=principal, scope_id=pk)) for pk in ids}
    assert ladder["sibling"].pk not in sets[ladder["project"].pk]


def test_an_ancestor_the_reader_may_not_view_is_left_out(ladder):
    bob = UserFactory(username="bob")
    membership_set(scope=ladder["project"], user=bob, role="member")
    sets = read_scope_sets(principal=Principal(bob), scope_ids=[ladder["project"].pk, ladder["team"].pk])
    assert sets == {ladder["project"].pk: {ladder["project"].pk, ladder["global"].pk, bob.personal_scope.pk}}


def test_a_token_narrowed_to_one_scope_sees_only_through_it(alice, ladder):
    from scopes.tokens import token_create

    token, _ = token_create(user=alice, name="t", scopes=[ladder["team"]])
    principal = Principal(alice, token)
    ids = [ladder["team"].pk, ladder["project"].pk]
    expected = {ladder["team"].pk: set(read_scope_ids(principal=principal, scope_id=ladder["team"].pk))}
    assert read_scope_sets(principal=principal, scope_ids=ids) == expected


def test_no_scopes_no_query(alice, django_assert_num_queries):
    with django_assert_num_queries(0):
        assert read_scope_sets(principal=Principal(alice), scope_ids=[]) == {}
