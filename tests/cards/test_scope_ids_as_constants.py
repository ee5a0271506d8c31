"""Statements on the scoped tables take their scope ids as constants (issue 26 §4):
the ladder is read first, from the scopes alone, and another scope's row by a
query of its own. On a cluster those tables are distributed by scope_id; a
recursive CTE or a join across two scopes inside one statement is refused there.
What these statements decide must not change with their shape."""

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from cards.drafts import CardDraft
from cards.errors import ConfusableName
from cards.models import Card, CardRevision, Entity, PossibleDuplicate
from cards.services import card_remember, entity_create
from review.selectors import review_queue
from scopes.models import ScopeKind, ladder_seen_ids
from scopes.principals import Principal
from scopes.services import global_scope_get, membership_set, scope_create
from tests.factories import UserFactory, family_scope

pytestmark = pytest.mark.django_db

SCOPED_TABLES = ("cards_entity", "cards_alias", "cards_possibleduplicate")


def remember(scope, actor, subject):
    return card_remember(scope=scope, actor=actor,
                         draft=CardDraft(kind="state", label="address", subject=subject, value="Somewhere")).card


@pytest.fixture
def ladder(alice):
    team = scope_create(name="Team", kind=ScopeKind.TEAM, creator=alice)
    project = scope_create(name="Trip", kind=ScopeKind.PROJECT, creator=alice, parent=team)
    sibling = scope_create(name="Fair", kind=ScopeKind.PROJECT, creator=alice, parent=team)
    return {"team": team, "project": project, "sibling": sibling, "global": global_scope_get()}


def test_the_ladder_a_name_is_seen_with_is_its_scope_those_above_and_global(ladder):
    project, team = ladder["project"], ladder["team"]
    assert ladder_seen_ids(project.pk) == sorted([project.pk, team.pk, ladder["global"].pk])
    assert ladder_seen_ids(team.pk) == sorted([team.pk, ladder["global"].pk])
    assert ladder["sibling"].pk not in ladder_seen_ids(project.pk)


def test_a_name_written_in_a_child_scope_is_refused_as_a_look_alike_of_what_its_ladder_sees(alice, ladder):
    entity_create(scope=ladder["team"], name="Paris")
    entity_create(scope=ladder["global"], name="Berlin")
    entity_create(scope=ladder["sibling"], name="Rome")
    for look_alike in ("P\u0430ris", "B\u0435rlin"):  # a Cyrillic а, е
        with pytest.raises(ConfusableName):
            remember(ladder["project"], alice, look_alike)
    assert not Entity.objects.filter(scope=ladder["project"]).exists()
    # A sibling's name is not seen from here: its look-alike is a name of its own.
    with CaptureQueriesContext(connection) as captured:
        card = remember(ladder["project"], alice, "R\u043eme")  # a Cyrillic о
    assert card.subject.scope_id == ladder["project"].pk
    recursive = [q["sql"] for q in captured.captured_queries if "RECURSIVE" in q["sql"].upper()]
    assert recursive, "the ladder is read on the way"
    assert not [sql for sql in recursive if any(table in sql for table in SCOPED_TABLES)]


def test_a_new_name_in_a_child_scope_is_proposed_with_the_close_names_of_its_ladder(alice, ladder):
    anna = entity_create(scope=ladder["team"], name="Anna")
    entity_create(scope=ladder["sibling"], name="Annie")
    ana = remember(ladder["project"], alice, "Ana").subject
    assert set(PossibleDuplicate.objects.filter(entity=ana).values_list("similar_to_id", flat=True)) == {anna.pk}


def test_a_member_joining_is_proposed_the_look_alikes_the_joined_statement_found(alice):
    # What the statement joining the scope's entities with the member's own proposed (the same set on one
    # PostgreSQL; Citus refuses that join): the close names of this scope, never a merged one nor another
    # scope's.
    family, other = family_scope(owner=alice), family_scope(owner=alice, name="Other")
    robin = UserFactory(username="robin", display_name="Robin")
    written = {name: Entity.objects.create(scope=family, name=name) for name in ("Robin", "Robyn", "Robbin", "Kettle")}
    merged = Entity.objects.create(scope=family, name="Robin Jr", merged_into=written["Robin"])
    Entity.objects.create(scope=other, name="Robin")  # another scope's: not this membership's business
    expected = {(written[name].pk, robin.entity.pk) for name in ("Robin", "Robyn", "Robbin")}
    with CaptureQueriesContext(connection) as captured:
        membership_set(scope=family, user=robin, role="member")
    proposed = set(PossibleDuplicate.objects.filter(scope=family).values_list("entity_id", "similar_to_id"))
    assert proposed == expected
    assert not {pair for pair in proposed if {written["Kettle"].pk, merged.pk} & set(pair)}
    insert = next(q["sql"] for q in captured.captured_queries if "INSERT INTO cards_possibleduplicate" in q["sql"])
    assert insert.count("cards_entity") == 1, "one scope's entities, the member's own as constants"


def test_the_review_queue_reads_the_other_side_of_a_duplicate_by_its_id(alice):
    family = family_scope(owner=alice)
    Entity.objects.create(scope=family, name="Dana")
    dana = UserFactory(username="dana", display_name="Dana")
    membership_set(scope=family, user=dana, role="member")  # proposed: the family's Dana may be her
    remember(family, alice, "Anna")
    remember(family, alice, "Ana")  # proposed: Ana may be Anna
    with CaptureQueriesContext(connection) as captured:
        duplicates = review_queue(principal=Principal(alice), scope=family)["duplicates"]
    pairs = {(d.entity.name, d.similar_to.name, d.similar_to.scope_id) for d in duplicates}
    assert pairs == {("Dana", "Dana", dana.personal_scope.pk), ("Ana", "Anna", family.pk)}
    joined = [q["sql"] for q in captured.captured_queries
              if "cards_possibleduplicate" in q["sql"] and 'JOIN "cards_entity"' in q["sql"]]
    assert not joined
    with CaptureQueriesContext(connection) as after:
        [(d.entity.name, d.similar_to.name) for d in duplicates]
    assert not after.captured_queries


def test_rows_hanging_off_a_card_are_seen_through_their_own_scope_as_through_the_cards(alice):
    bob = UserFactory(username="bob")
    family, hidden = family_scope(owner=alice), family_scope(owner=bob, name="Bob's")
    for scope, actor in ((family, alice), (hidden, bob), (alice.personal_scope, alice)):
        card = remember(scope, actor, "Kim")
        CardRevision.objects.create(card=card, at=timezone.now(), field="text", before="", after="x")
    principal = Principal(alice)
    # Through the cards, by their ids (a join of revisions with cards not on the scope is refused on Citus).
    through_cards = CardRevision.objects.filter(card_id__in=list(
        Card.objects.visible_to(principal, "view").values_list("pk", flat=True)))
    visible = CardRevision.objects.visible_to(principal, "view")
    assert set(visible.values_list("pk", flat=True)) == set(through_cards.values_list("pk", flat=True))
    assert visible.count() == 2
    assert '"cards_card"' not in str(visible.query)
