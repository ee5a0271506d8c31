"""What hangs off a forgotten card (or name) goes by its scopes (cards/services/forget_rows.py), never left to
Django's collector, which would look it up by id alone: every relation Django knows has its place, and a row
linked across scopes (an upkeep proposal's `other`, a decision about a card seen from a scope below or from a
member's queue, a possible duplicate of a name seen from below) is found where it lies."""

import pytest

from cards.drafts import CardDraft
from cards.models import Card, Entity, PossibleDuplicate
from cards.services import card_forget, card_remember, subject_forget
from cards.services import forget_rows
from review.models import Decision, UpkeepProposal
from scopes.models import ladder_reaching_ids
from scopes.principals import Principal
from scopes.services import membership_set, scope_create
from tests.factories import UserFactory, family_scope

pytestmark = pytest.mark.django_db


def remember(scope, actor, **fields) -> Card:
    return card_remember(scope=scope, actor=actor, draft=CardDraft(
        **{"kind": "state", "subject": "me", "label": "city", "value": "Porto", **fields})).card


def test_every_relation_to_a_card_and_a_name_has_its_place():
    """A relation added later is not silently left to the collector: it must say where its rows lie."""
    assert set(forget_rows.relations_to(Card)) == set(forget_rows.HANGING)
    assert set(forget_rows.relations_to(Entity)) == set(forget_rows.ENTITY_HANGING)


def test_a_relation_without_a_place_stops_the_forget(alice, monkeypatch):
    card = remember(alice.personal_scope, alice)
    monkeypatch.delitem(forget_rows.HANGING, ("review.Probe", "card"))
    with pytest.raises(RuntimeError, match="review.Probe"):
        card_forget(card=card, actor=alice)
    assert Card.objects.filter(pk=card.pk).exists()


@pytest.fixture
def ladder(alice):
    """A family with a project below it, and a member besides alice."""
    family = family_scope(owner=alice)
    project = scope_create(name="Garden", kind="project", creator=alice, parent=family)
    sam = UserFactory(username="sam")
    membership_set(scope=family, user=sam, role="member")
    return {"family": family, "project": project, "sam": sam}


def test_the_scopes_reaching_a_scope(alice, ladder):
    family, project, sam = ladder["family"], ladder["project"], ladder["sam"]
    assert set(ladder_reaching_ids([project.pk])) == {project.pk}
    assert {family.pk, project.pk} <= set(ladder_reaching_ids([family.pk]))
    # A read from the family takes its reader's personal scope along: the family reaches sam's.
    assert {family.pk, project.pk, sam.personal_scope.pk} <= set(ladder_reaching_ids([sam.personal_scope.pk]))
    assert alice.personal_scope.pk not in ladder_reaching_ids([sam.personal_scope.pk])


def test_an_upkeep_proposal_below_goes_with_the_card_it_names_above(alice, ladder):
    family, project = ladder["family"], ladder["project"]
    above, below = remember(family, alice), remember(project, alice, value="Braga")
    proposal = UpkeepProposal.objects.create(scope=project, kind="demote", card=below, other=above,
                                             why="contradicted")
    Decision.objects.create(scope=project, reviewer=alice, item="upkeep", item_id=proposal.pk, action="reject",
                            reason="Porto is old", detail={"card": below.pk, "other": above.pk})
    card_forget(card=above, actor=alice)
    assert not UpkeepProposal.objects.filter(pk=proposal.pk).exists()
    assert Card.objects.filter(pk=below.pk).exists()
    assert list(Decision.objects.values_list("reason", flat=True)) == [""]


def test_a_contradiction_picked_in_a_family_queue_loses_its_reason_with_a_personal_card(alice, ladder):
    family, sam = ladder["family"], ladder["sam"]
    mine = remember(sam.personal_scope, sam, value="Lyon")
    Decision.objects.create(scope=family, reviewer=sam, item="contradiction", item_id=mine.pk, action="pick",
                            reason="I moved to Lyon", detail={"superseded": []})
    card_forget(card=mine, actor=sam)
    assert list(Decision.objects.values_list("reason", flat=True)) == [""]


def test_an_erased_account_takes_the_reasons_its_households_gave_about_its_cards(alice, ladder):
    """Where a decision about a personal card may lie is read before the person leaves their households:
    afterwards their personal scope reaches none of them."""
    from cards.services.account import account_erase

    family, sam = ladder["family"], ladder["sam"]
    theirs = remember(sam.personal_scope, sam, value="Lyon")
    Decision.objects.create(scope=family, reviewer=alice, item="contradiction", item_id=theirs.pk, action="pick",
                            reason="Sam said Lyon at dinner", detail={"superseded": []})
    account_erase(user=sam)
    assert list(Decision.objects.values_list("reason", flat=True)) == [""]


def test_a_name_forgotten_takes_its_possible_duplicates_below(alice, ladder):
    family, project = ladder["family"], ladder["project"]
    remember(family, alice, kind="knowledge", subject="Kettle", label="note", value="", text="The kettle is red")
    kettle = Entity.objects.get(scope=family, name="Kettle")
    kettles = Entity.objects.create(scope=project, name="Kettles")
    own = PossibleDuplicate.objects.create(entity=kettle, similar_to=Entity.objects.create(scope=family, name="Ket"),
                                           score=0.9)
    below = PossibleDuplicate.objects.create(entity=kettles, similar_to=kettle, score=0.9)
    receipt = subject_forget(principal=Principal(alice), scope=family, subject="Kettle")
    assert receipt["entities"] == 1 and not Entity.objects.filter(pk=kettle.pk).exists()
    assert not PossibleDuplicate.objects.filter(pk__in=[own.pk, below.pk]).exists()
    assert Entity.objects.filter(pk=kettles.pk).exists()
