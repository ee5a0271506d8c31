"""The dashboard knows when a project ended (scopes/pages/archive.py): the scope
page says "Archived on <day>" with Restore for its owner, offers Archive (asking
first) on an active project to its owner, and the home page folds archived
projects apart. Who may is tested in tests/web/test_page_permissions.py."""

from __future__ import annotations

import datetime as dt
import re

import pytest

from scopes.models import Scope
from scopes.services import membership_set, scope_create

pytestmark = pytest.mark.django_db

ISO = re.compile(rb"\d{4}-\d{2}-\d{2}")


@pytest.fixture
def project(alice, household):
    garden = scope_create(name="Garden", kind="project", creator=alice, parent=household["family"])
    membership_set(scope=garden, user=household["victor"], role="viewer")
    return garden


def _archived_on(scope_id: int, day: dt.date) -> None:
    # 23:30 UTC on 2 March is 3 March in alice's zone (Asia/Taipei): the page says her day.
    Scope.objects.filter(pk=scope_id).update(archived_at=dt.datetime.combine(day, dt.time(23, 30),
                                                                             tzinfo=dt.timezone.utc))


def test_the_owner_archives_an_active_project_after_a_confirmation(pages, alice, project):
    client = pages(alice)
    page = client.get(f"/scopes/{project.pk}/")
    assert f'href="/scopes/{project.pk}/archive/"'.encode() in page.content and b"Archived on" not in page.content
    confirm = client.get(f"/scopes/{project.pk}/archive/")
    assert confirm.status_code == 200 and b"Archive Garden?" in confirm.content
    assert Scope.objects.get(pk=project.pk).archived_at is None  # asking changed nothing
    done = client.post(f"/scopes/{project.pk}/archive/")
    assert done.status_code == 302 and Scope.objects.get(pk=project.pk).archived_at is not None


def test_an_archived_project_says_so_in_the_viewers_day_with_restore_for_its_owner(pages, alice, household,
                                                                                 project):
    _archived_on(project.pk, dt.date(2026, 3, 2))
    page = pages(alice).get(f"/scopes/{project.pk}/")
    text = page.content.decode()
    assert "Archived on" in text and "Archived on Mar 3, 2026" in text and not ISO.search(page.content)
    assert f'action="/scopes/{project.pk}/restore/"' in text
    assert 'action="/scopes/%d/cards/new/"' % project.pk not in text  # read-only: no card form
    viewer = pages(household["victor"]).get(f"/scopes/{project.pk}/").content.decode()
    assert "Archived on" in viewer and "/restore/" not in viewer and "/archive/" not in viewer
    assert pages(alice).post(f"/scopes/{project.pk}/restore/").status_code == 302
    assert Scope.objects.get(pk=project.pk).archived_at is None


def test_a_write_page_in_an_archived_project_is_a_403_with_its_words(pages, alice, project):
    _archived_on(project.pk, dt.date(2026, 3, 2))
    answer = pages(alice).post(f"/scopes/{project.pk}/cards/new/", {"kind": "state", "subject": "me",
                                                                   "label": "skill", "value": "Rust", "tag": "fact"})
    assert answer.status_code == 403 and b"archived" in answer.content


def test_only_a_project_offers_archiving(pages, alice, household):
    page = pages(alice).get(f"/scopes/{household['family'].pk}/").content.decode()
    assert "/archive/" not in page
    refused = pages(alice).post(f"/scopes/{household['family'].pk}/archive/")
    assert refused.status_code == 302 and Scope.objects.get(pk=household["family"].pk).archived_at is None


def test_home_folds_archived_projects_apart(pages, alice, project):
    active = scope_create(name="Kitchen", kind="project", creator=alice)
    _archived_on(project.pk, dt.date(2026, 3, 2))
    text = pages(alice).get("/").content.decode()
    ladder, _, folded = text.partition('<details class="archived-scopes">')
    assert "Kitchen" in ladder and f'href="/scopes/{active.pk}/"' in ladder
    assert f'href="/scopes/{project.pk}/"' not in ladder
    folded = folded.split("</details>")[0]
    assert "1 archived project" in folded and f'href="/scopes/{project.pk}/"' in folded
    assert "archived on Mar 3, 2026" in folded


def test_a_card_of_an_archived_project_offers_forgetting_and_nothing_else(pages, alice, project):
    from cards.drafts import CardDraft
    from cards.models import Card
    from cards.services import card_remember

    card = card_remember(scope=project, actor=alice, draft=CardDraft(kind="state", label="skill", subject="me",
                                                                      value="pruning", text="prunes")).card
    _archived_on(project.pk, dt.date(2026, 3, 2))
    client = pages(alice)
    text = client.get(f"/cards/{card.pk}/").content.decode()
    assert f'href="/cards/{card.pk}/forget/"' in text
    assert f'action="/cards/{card.pk}/describe/"' not in text and f'action="/cards/{card.pk}/verify/"' not in text
    assert client.post(f"/cards/{card.pk}/forget/").status_code in (200, 302)
    assert not Card.objects.filter(pk=card.pk).exists()
