"""Projects that end, through the weekly upkeep (DESIGN §10): a project nobody has read or
written for UPKEEP_ARCHIVE_IDLE_DAYS, or one a person said was dropped for something else, is
proposed for archiving — into the review queue, never archived by the job. Only an owner's
approval archives it; a declined proposal is not made again for as long; an archived project is
not tidied."""

from __future__ import annotations

import datetime as dt

import pytest
from django.utils import timezone

from cards.drafts import CardDraft
from cards.models import Card
from cards.services import card_remember
from core.errors import NotAllowed
from review.models import UpkeepProposal, UpkeepStatus
from review.selectors import upkeep_shown
from review.services.upkeep import upkeep_decide, upkeep_run, upkeep_scopes_run
from scopes.models import Scope
from scopes.services import membership_set, scope_create
from tests.factories import UserFactory, family_scope

pytestmark = pytest.mark.django_db

NOW = timezone.now()


def days_ago(days: int) -> dt.datetime:
    return NOW - dt.timedelta(days=days)


@pytest.fixture
def home(alice):
    """alice owns a family with three projects: the garden (last read and written 100 days ago),
    the attic (read last week) and the patio (new); bob is an admin of all, not an owner."""
    bob = UserFactory(username="bob")
    family = family_scope(owner=alice)
    projects = {name: scope_create(name=name, kind="project", creator=alice, parent=family)
                for name in ("Garden", "Attic", "Patio")}
    for scope in (family, *projects.values()):
        membership_set(scope=scope, user=bob, role="admin")
    card_remember(scope=projects["Garden"], actor=alice, draft=CardDraft(
        kind="state", label="stage", subject="me", value="planting", reference_time=days_ago(100)))
    Card.objects.filter(scope=projects["Garden"]).update(recorded_at=days_ago(100), verified_at=days_ago(100))
    Scope.objects.filter(pk=projects["Garden"].pk).update(last_read_at=days_ago(100))
    Scope.objects.filter(pk__in=[projects["Attic"].pk, family.pk]).update(last_read_at=days_ago(7))
    Scope.objects.filter(pk=family.pk).update(last_read_at=days_ago(400))  # a family never ends this way
    return {"family": family, "bob": bob, **projects}


def _archive_proposals(scope) -> list[tuple]:
    return list(UpkeepProposal.objects.filter(scope=scope, kind="archive").values_list("why", "status", "other_id"))


def test_an_idle_project_is_proposed_for_archiving_and_nothing_else_is(alice, home):
    for scope in (home["Garden"], home["Attic"], home["Patio"], home["family"]):
        upkeep_run(scope, now=NOW)
    assert _archive_proposals(home["Garden"]) == [("idle", "open", None)]
    assert _archive_proposals(home["Attic"]) == _archive_proposals(home["Patio"]) == []
    assert _archive_proposals(home["family"]) == []
    assert Scope.objects.get(pk=home["Garden"].pk).archived_at is None  # the job only proposes
    (shown,) = upkeep_shown(list(UpkeepProposal.objects.filter(kind="archive")), user=alice)
    assert shown["card"] is None and shown["reason"].startswith("nobody has read or written here since ")
    assert "T" not in shown["reason"].split("since ")[1]  # a day as people read it, not an ISO instant
    upkeep_run(home["Garden"], now=NOW)  # a second run does not propose it twice
    assert len(_archive_proposals(home["Garden"])) == 1


def test_a_project_said_to_be_dropped_for_another_is_proposed_with_what_said_so(alice, home):
    said = card_remember(scope=home["family"], actor=alice, draft=CardDraft(
        kind="knowledge", label="note", subject="me", tag="goal", value="Priority now: the patio",
        text="Priority now: the patio — replaces the garden plan, which was dropped",
        source_quote="We dropped the garden plan, we're doing the patio instead.")).card
    Scope.objects.filter(pk=home["Garden"].pk).update(last_read_at=timezone.now())  # not idle: said, not quiet
    for scope in (home["Garden"], home["Patio"], home["Attic"]):
        upkeep_run(scope, now=timezone.now())
    assert _archive_proposals(home["Garden"]) == [("replaced", "open", said.pk)]
    assert _archive_proposals(home["Patio"]) == _archive_proposals(home["Attic"]) == []


def test_only_an_owners_approval_archives_it(alice, home):
    card_remember(scope=home["Garden"], actor=alice, draft=CardDraft(
        kind="state", label="skill", subject="me", value="grafting", impact=3))  # would be made long-term
    Card.objects.filter(value="grafting").update(recorded_at=days_ago(100), verified_at=days_ago(100))
    upkeep_run(home["Garden"], now=timezone.now())
    assert UpkeepProposal.objects.filter(kind="promote").exists()
    proposal = UpkeepProposal.objects.get(kind="archive")
    with pytest.raises(NotAllowed):
        upkeep_decide(proposal=proposal, reviewer=home["bob"], approve=True)
    assert Scope.objects.get(pk=home["Garden"].pk).archived_at is None
    assert UpkeepProposal.objects.get(pk=proposal.pk).status == UpkeepStatus.OPEN
    upkeep_decide(proposal=proposal, reviewer=alice, approve=True)
    assert Scope.objects.get(pk=home["Garden"].pk).archived_at is not None
    # Archived, it is not tidied: the weekly run passes it by.
    cards, proposals = list(Card.objects.order_by("pk").values()), UpkeepProposal.objects.count()
    UpkeepProposal.objects.filter(kind="promote").delete()  # as if never proposed: it would be, were it active
    upkeep_scopes_run(now=timezone.now())
    upkeep_run(Scope.objects.get(pk=home["Garden"].pk), now=timezone.now())  # the command's way in
    assert UpkeepProposal.objects.count() == proposals - 1
    assert not UpkeepProposal.objects.filter(scope=home["Garden"], kind="promote").exists()
    assert list(Card.objects.order_by("pk").values()) == cards


def test_a_declined_archiving_is_not_proposed_again_for_as_long(alice, home, settings):
    upkeep_run(home["Garden"], now=NOW)
    upkeep_decide(proposal=UpkeepProposal.objects.get(kind="archive"), reviewer=alice, approve=False,
                  reason="we still plan it")
    upkeep_run(home["Garden"], now=NOW + dt.timedelta(days=7))
    assert _archive_proposals(home["Garden"]) == [("idle", "rejected", None)]
    later = NOW + dt.timedelta(days=settings.UPKEEP_ARCHIVE_IDLE_DAYS + 1)
    upkeep_run(home["Garden"], now=later)
    assert sorted(_archive_proposals(home["Garden"])) == [("idle", "open", None), ("idle", "rejected", None)]


def test_the_idle_time_is_a_setting(alice, home, settings):
    settings.UPKEEP_ARCHIVE_IDLE_DAYS = 120
    upkeep_run(home["Garden"], now=NOW)
    assert _archive_proposals(home["Garden"]) == []


def test_what_said_so_is_not_shown_to_a_reviewer_who_may_not_see_it(alice, home):
    """carol reviews only the garden: the family's card that dropped it is not hers to read."""
    carol = UserFactory(username="carol")
    membership_set(scope=home["Garden"], user=carol, role="admin")
    card_remember(scope=home["family"], actor=alice, draft=CardDraft(
        kind="knowledge", label="note", subject="me", tag="goal", value="Priority now: the patio",
        source_quote="We dropped the garden plan, we're doing the patio instead."))
    upkeep_run(home["Garden"], now=timezone.now())
    proposals = list(UpkeepProposal.objects.filter(kind="archive"))
    (for_carol,) = upkeep_shown(proposals, user=carol)
    (for_alice,) = upkeep_shown(proposals, user=alice)
    assert for_carol["other"] is None and for_alice["other"]["value"] == "Priority now: the patio"
    assert "patio" not in str(for_carol)
