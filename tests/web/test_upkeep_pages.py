"""The weekly upkeep on the dashboard: its proposals in the scope's review queue, each
saying why with dates people read, decided there (the decision recorded); the scope's
page says when it was last tidied, relatively, and how much it proposed."""

from __future__ import annotations

import datetime as dt
import re

import pytest
from django.utils import timezone

from cards.models import Card
from review.models import Decision, UpkeepProposal, UpkeepRun, UpkeepStatus
from review.services.upkeep import upkeep_run
from tests.review.upkeep_month import NOW, month_of_notes

pytestmark = pytest.mark.django_db

ISO = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}")


def test_the_queue_page_lists_the_proposals_and_a_reviewer_decides_them(alice, pages):
    month = month_of_notes(alice)
    upkeep_run(month.garden, now=NOW)
    client = pages(alice)
    page = client.get(f"/scopes/{month.garden.pk}/review/").content.decode()
    assert "Tidying proposed by the weekly upkeep (7)" in page
    assert "seen in 3 sessions: Nov 2, 2026; Nov 9, 2026; Nov 16, 2026" in page
    assert not ISO.search(page)
    proposal = UpkeepProposal.objects.get(kind="promote", card=month.cards["pruning"])
    answer = client.post(f"/review/upkeep/{proposal.pk}/approve/", {"reason": "she keeps at it"})
    assert answer.status_code == 302 and answer.url == f"/scopes/{month.garden.pk}/review/"
    assert Card.objects.get(pk=month.cards["pruning"].pk).long_term_by == alice
    assert Decision.objects.filter(item="upkeep", item_id=proposal.pk, reviewer=alice, action="approve").exists()
    page = client.get(f"/scopes/{month.garden.pk}/review/").content.decode()
    assert "Tidying proposed by the weekly upkeep (6)" in page
    assert client.post(f"/review/upkeep/{proposal.pk}/sideways/").status_code == 404
    # Decided already: said where the reviewer decides, nothing applied twice.
    again = client.post(f"/review/upkeep/{proposal.pk}/reject/", follow=True)
    assert "already decided" in again.content.decode()
    assert UpkeepProposal.objects.get(pk=proposal.pk).status == UpkeepStatus.APPROVED


def test_the_scope_page_says_when_it_was_last_tidied(alice, pages):
    month = month_of_notes(alice)
    client = pages(alice)
    assert "Last tidied" not in client.get(f"/scopes/{month.garden.pk}/").content.decode()
    upkeep_run(month.garden, now=NOW)
    UpkeepRun.objects.filter(scope=month.garden).update(at=timezone.now() - dt.timedelta(days=2))
    page = client.get(f"/scopes/{month.garden.pk}/").content.decode()
    assert "Last tidied 2 days ago: 7 proposals" in page
    assert "(2 to make long-term, 2 to demote, 3 to merge)" in page


def test_the_card_page_says_whether_it_is_long_term(alice, pages):
    month = month_of_notes(alice)
    client = pages(alice)
    page = client.get(f"/cards/{month.cards['roses'].pk}/").content.decode()
    assert re.search(r"<dt>Long-term</dt><dd>yes, since [A-Z][a-z]{2} \d{1,2}, 2026, approved by Alice</dd>", page)
    assert "<dt>Long-term</dt><dd>no</dd>" in client.get(f"/cards/{month.cards['composting'].pk}/").content.decode()


def test_an_idle_project_to_archive_is_proposed_on_its_queue_page_and_an_owner_archives_it(alice, pages):
    from scopes.models import Scope
    from scopes.services import scope_create
    from tests.factories import family_scope

    garden = scope_create(name="Garden", kind="project", creator=alice, parent=family_scope(owner=alice))
    Scope.objects.filter(pk=garden.pk).update(last_read_at=timezone.now() - dt.timedelta(days=120))
    upkeep_run(garden)
    client = pages(alice)
    page = client.get(f"/scopes/{garden.pk}/review/").content.decode()
    assert "Archive this project" in page and "nobody has read or written here since" in page
    assert not ISO.search(page)
    proposal = UpkeepProposal.objects.get(scope=garden, kind="archive")
    assert client.post(f"/review/upkeep/{proposal.pk}/approve/").status_code == 302
    assert Scope.objects.get(pk=garden.pk).archived_at is not None
    assert "Archived on" in client.get(f"/scopes/{garden.pk}/").content.decode()


def test_a_reviewer_who_is_not_an_owner_is_told_only_an_owner_archives(alice, pages):
    from scopes.models import Scope
    from scopes.services import membership_set, scope_create
    from tests.factories import UserFactory, family_scope

    bob = UserFactory(username="bob")
    garden = scope_create(name="Garden", kind="project", creator=alice, parent=family_scope(owner=alice))
    membership_set(scope=garden, user=bob, role="admin")
    Scope.objects.filter(pk=garden.pk).update(last_read_at=timezone.now() - dt.timedelta(days=120))
    upkeep_run(garden)
    proposal = UpkeepProposal.objects.get(scope=garden, kind="archive")
    answer = pages(bob).post(f"/review/upkeep/{proposal.pk}/approve/", follow=True)
    assert answer.status_code == 200 and "Only an owner of the project archives" in answer.content.decode()
    assert Scope.objects.get(pk=garden.pk).archived_at is None
    assert UpkeepProposal.objects.get(pk=proposal.pk).status == UpkeepStatus.OPEN
