"""Projects that end (DESIGN §10, scopes/archive.py): an owner archives a project
and restores it; while archived it is read-only (every write path answers 403
`scope_archived` and writes nothing; forgetting still works), a read climbs past
it unless it is the scope named, and the default card list leaves it out."""

from __future__ import annotations

import datetime as dt
import io
import zipfile

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from cards.drafts import CardDraft
from cards.models import Card, CardRevision, Entity
from cards.selectors.idle import scopes_idle
from cards.services import card_remember
from core.errors import NotAllowed
from review.models import Candidate
from scopes.archive import scope_archive, scope_restore
from scopes.idle import reads_noted
from scopes.models import Scope
from scopes.principals import Principal
from scopes.selectors import read_scope_ids
from scopes.services import membership_set, scope_create
from tests.factories import UserFactory, family_scope

pytestmark = pytest.mark.django_db


@pytest.fixture
def garden(alice):
    """alice's family and its project "Garden" with a card; bob is the project's admin,
    victor its viewer, wanda a member who writes."""
    family = family_scope(owner=alice, name="The Lins")
    project = scope_create(name="Garden", kind="project", creator=alice, parent=family)
    people = {name: UserFactory(username=name) for name in ("bob", "victor", "wanda", "mallory")}
    for name, role in (("bob", "admin"), ("victor", "viewer"), ("wanda", "member")):
        membership_set(scope=project, user=people[name], role=role)
    card = card_remember(scope=project, actor=alice, draft=CardDraft(
        kind="state", label="skill", subject="me", value="pruning roses", text="alice prunes roses")).card
    return {"family": family, "project": project, "card": card, **people}


def _archived(scope) -> bool:
    return Scope.objects.get(pk=scope.pk).archived_at is not None


def _archive(alice, scope):
    return scope_archive(principal=Principal(user=alice), scope=scope)


def _state() -> tuple:
    return (list(Card.objects.order_by("pk").values_list("pk", "text", "verified_at", "superseded_at")),
            CardRevision.objects.count(), Entity.objects.count(),
            list(Candidate.objects.order_by("pk").values_list("pk", "status")))


# --- who may archive and restore -------------------------------------------------------------

def test_the_owner_archives_and_restores_a_project_through_the_api(as_user, alice, garden):
    api = as_user(alice)
    project = garden["project"]
    assert api.get(f"/api/v1/scopes/{project.pk}/").json()["archived_at"] is None
    answer = api.post(f"/api/v1/scopes/{project.pk}/archive/")
    assert answer.status_code == 200, answer.json()
    assert answer.json()["archived_at"] is not None and _archived(project)
    again = api.post(f"/api/v1/scopes/{project.pk}/archive/")  # a second click changes nothing
    assert again.json()["archived_at"] == answer.json()["archived_at"]
    restored = api.post(f"/api/v1/scopes/{project.pk}/restore/")
    assert restored.status_code == 200 and restored.json()["archived_at"] is None and not _archived(project)


def test_only_an_owner_signed_in_archives_or_restores_never_an_agent_token(as_user, bearer, alice, garden):
    project = garden["project"]
    url = f"/api/v1/scopes/{project.pk}/archive/"
    assert APIClient().post(url).status_code == 401
    assert as_user(garden["mallory"]).post(url).status_code == 404  # a stranger: as if it did not exist
    for name in ("victor", "wanda", "bob"):  # a viewer, a member, and an admin (who manages, but does not own)
        answer = as_user(garden[name]).post(url)
        assert answer.status_code == 403 and answer.json()["code"] == "permission_denied", name
    for token in (bearer(alice, write=True, all_scopes=True), bearer(alice, write=True, scopes=[project])):
        answer = token.post(url)
        assert answer.status_code == 403 and answer.json()["code"] == "permission_denied"
    assert not _archived(project)
    _archive(alice, project)
    restore = f"/api/v1/scopes/{project.pk}/restore/"
    for client in (as_user(garden["bob"]), bearer(alice, write=True, all_scopes=True)):
        assert client.post(restore).status_code == 403
    assert as_user(garden["mallory"]).post(restore).status_code == 404
    assert _archived(project)


def test_the_service_refuses_an_agent_token_too(alice, garden):
    from scopes.tokens import token_create

    token, _ = token_create(user=alice, name="agent", can_write=True, all_scopes=True)
    with pytest.raises(NotAllowed):
        scope_archive(principal=Principal(user=alice, token=token), scope=garden["project"])
    assert not _archived(garden["project"])


def test_only_a_project_is_archived(as_user, alice, garden):
    team = scope_create(name="Platform", kind="team", creator=alice)
    api = as_user(alice)
    for scope in (alice.personal_scope, garden["family"], team):
        for action in ("archive", "restore"):
            answer = api.post(f"/api/v1/scopes/{scope.pk}/{action}/")
            assert answer.status_code == 400 and answer.json()["code"] == "not_a_project", (scope.kind, action)
        assert not _archived(scope)


def test_the_list_filters_archived_projects(as_user, alice, garden):
    other = scope_create(name="Attic", kind="project", creator=alice)
    _archive(alice, garden["project"])
    api = as_user(alice)

    def ids(query=""):
        answer = api.get(f"/api/v1/scopes/{query}")
        assert answer.status_code == 200, answer.json()
        return {row["id"]: row["archived_at"] for row in answer.json()["results"]}

    assert list(ids("?archived=true")) == [garden["project"].pk]
    active = ids("?archived=false")
    assert garden["project"].pk not in active and other.pk in active and alice.personal_scope.pk in active
    every = ids()
    assert every[garden["project"].pk] is not None and every[other.pk] is None
    assert api.get("/api/v1/scopes/?archived=maybe").json()["code"] == "validation_error"


# --- read-only while archived ------------------------------------------------------------------

def test_every_write_is_refused_while_archived_and_nothing_is_written(as_user, bearer, alice, garden):
    project, card = garden["project"], garden["card"]
    waiting = Candidate.objects.create(scope=project, author=alice, kind="state", label="city", subject="me",
                                       value="Kyoto", quote="we moved to Kyoto", message_at=timezone.now(),
                                       extractor="patterns")
    _archive(alice, project)
    before = _state()
    remember = {"scope": project.pk, "kind": "state", "subject": "me", "label": "skill", "value": "grafting",
                "text": "grafts apples"}
    person, agent = as_user(alice), bearer(alice, write=True, scopes=[project])
    writes = [
        lambda c: c.post("/api/v1/cards/", remember, format="json"),
        lambda c: c.post("/api/v1/cards/bulk/", {"cards": [remember]}, format="json"),
        lambda c: c.patch(f"/api/v1/cards/{card.pk}/", {"text": "prunes every rose"}, format="json"),
        lambda c: c.post(f"/api/v1/cards/{card.pk}/verify/"),
        lambda c: c.post("/api/v1/entities/", {"scope": project.pk, "name": "Greenhouse"}, format="json"),
        lambda c: c.post("/api/v1/ingest/", {"scope": project.pk, "session": "s-1", "messages": [
            {"role": "user", "text": "Remember that I grow tomatoes.", "at": "2026-05-08T16:44:10+08:00"}]},
            format="json"),
    ]
    for client in (person, agent, as_user(garden["wanda"])):
        for n, write in enumerate(writes):
            answer = write(client)
            assert answer.status_code == 403 and answer.json()["code"] == "scope_archived", (n, answer.json())
    # Approving (and rejecting) a proposal waits for the restore too.
    for decide in ("approve", "reject"):
        answer = person.post(f"/api/v1/review/{waiting.pk}/{decide}/", {"reason": "no"} if decide == "reject"
                             else {}, format="json")
        assert answer.status_code == 403 and answer.json()["code"] == "scope_archived", answer.json()
    assert _state() == before


def test_a_proposal_from_a_propose_only_token_is_refused_too(alice, garden):
    from scopes.tokens import token_create

    project = garden["project"]
    _archive(alice, project)
    _, raw = token_create(user=alice, name="kitchen", proposes=True, scopes=[project])
    agent = APIClient()
    agent.credentials(HTTP_AUTHORIZATION=f"Bearer {raw}")
    before = _state()
    answer = agent.post("/api/v1/cards/", {"scope": project.pk, "kind": "state", "subject": "me", "label": "skill",
                                           "value": "grafting", "text": "grafts"}, format="json")
    assert answer.status_code == 403 and answer.json()["code"] == "scope_archived"
    assert _state() == before


def test_someone_who_could_never_write_there_still_hears_permission_denied(as_user, alice, garden):
    _archive(alice, garden["project"])
    answer = as_user(garden["victor"]).patch(f"/api/v1/cards/{garden['card'].pk}/", {"text": "x"}, format="json")
    assert answer.status_code == 403 and answer.json()["code"] == "permission_denied"


def test_forgetting_still_works_while_archived(as_user, bearer, alice, garden):
    """A privacy right: the archive holds every other change, never this one."""
    project = garden["project"]
    other = card_remember(scope=project, actor=alice, draft=CardDraft(
        kind="state", label="hobby", subject="me", value="birding", text="alice watches birds")).card
    _archive(alice, project)
    assert as_user(alice).delete(f"/api/v1/cards/{garden['card'].pk}/").status_code in (200, 204)
    agent = bearer(alice, write=True, scopes=[project])
    answer = agent.post("/api/v1/forget/", {"scope": project.pk, "subject": "me", "label": "hobby"}, format="json")
    assert answer.status_code in (200, 204), answer.json()
    assert not Card.objects.filter(pk__in=[garden["card"].pk, other.pk]).exists()


def test_writing_works_again_after_restore(as_user, alice, garden):
    project = garden["project"]
    _archive(alice, project)
    scope_restore(principal=Principal(user=alice), scope=project)
    answer = as_user(alice).post("/api/v1/cards/", {"scope": project.pk, "kind": "state", "subject": "me",
                                                    "label": "skill", "value": "grafting", "text": "grafts"},
                                 format="json")
    assert answer.status_code == 201, answer.json()


# --- reads: left out by default, answering when named ---------------------------------------------

def test_named_as_scope_an_archived_project_still_answers(as_user, bearer, alice, garden):
    project = garden["project"]
    _archive(alice, project)
    for client in (as_user(alice), bearer(alice, scopes=[project])):
        answer = client.post("/api/v1/answer/", {"scope": project.pk, "subject": "me", "label": "skill"},
                             format="json")
        assert answer.status_code == 200, answer.json()
        assert "pruning roses" in str(answer.json())
        listed = client.get(f"/api/v1/cards/?scope={project.pk}").json()["results"]
        assert [row["id"] for row in listed] == [garden["card"].pk]
    assert project.pk in read_scope_ids(principal=Principal(user=alice), scope_id=project.pk)


def test_the_default_card_list_leaves_an_archived_project_out_until_restored(as_user, alice, garden):
    api = as_user(alice)

    def listed():
        return {row["id"] for row in api.get("/api/v1/cards/").json()["results"]}

    assert garden["card"].pk in listed()
    _archive(alice, garden["project"])
    assert garden["card"].pk not in listed()
    scope_restore(principal=Principal(user=alice), scope=garden["project"])
    assert garden["card"].pk in listed()


@pytest.fixture
def below(alice, garden):
    """A scope whose ladder climbs through the project. The ladder allows no such
    scope today (a project is never above another), so it is made past `clean()`:
    the rule is the read ladder's, whatever ladders become."""
    return Scope.objects.create(name="Seedlings", kind="project", parent=garden["project"])


def test_a_read_climbs_past_an_archived_scope_unless_it_is_the_one_named(alice, garden, below):
    membership_set(scope=below, user=alice, role="owner")
    me, project = Principal(user=alice), garden["project"]
    assert project.pk in read_scope_ids(principal=me, scope_id=below.pk)
    _archive(alice, project)
    assert project.pk not in read_scope_ids(principal=me, scope_id=below.pk)
    assert project.pk in read_scope_ids(principal=me, scope_id=project.pk)
    from scopes.selectors import read_scope_sets

    sets = read_scope_sets(principal=me, scope_ids=[below.pk, project.pk])
    assert project.pk not in sets[below.pk] and project.pk in sets[project.pk]
    scope_restore(principal=me, scope=project)
    assert project.pk in read_scope_ids(principal=me, scope_id=below.pk)


def test_an_archived_project_leaves_default_recall_and_context_and_comes_back_on_restore(
        as_user, alice, garden, below, settings):
    from cards.services.embedding import cards_embed_now

    membership_set(scope=below, user=alice, role="owner")
    cards_embed_now(card_ids=[garden["card"].pk])
    api, card = as_user(alice), garden["card"]

    def seen() -> tuple[bool, bool]:
        recalled = api.post("/api/v1/recall/", {"scope": below.pk, "query": "roses"}, format="json")
        context = api.get("/api/v1/context/", {"scope": below.pk, "query": "roses"})
        assert recalled.status_code == 200 and context.status_code == 200, (recalled.json(), context.json())
        return (card.pk in [r["card"]["id"] for r in recalled.json()["results"]], card.pk in context.json()["cards"])

    assert seen() == (True, True)
    _archive(alice, garden["project"])
    assert seen() == (False, False)
    named = api.get("/api/v1/context/", {"scope": garden["project"].pk, "query": "roses"})
    assert card.pk in named.json()["cards"]
    scope_restore(principal=Principal(user=alice), scope=garden["project"])
    assert seen() == (True, True)


def test_the_export_says_the_state(as_user, alice, garden):
    project = garden["project"]
    _archive(alice, project)
    document = as_user(alice).get(f"/api/v1/export/?scope={project.pk}").json()
    states = {s["id"]: s["archived_at"] for s in document["scopes"]}
    assert states[project.pk] is not None and states[garden["family"].pk] is None
    assert [c["id"] for c in document["cards"]] == [garden["card"].pk]
    # The markdown export's MEMORY.md says so too, as a day.
    zipped = as_user(alice).get(f"/api/v1/export/?scope={project.pk}&format=markdown")
    memory = zipfile.ZipFile(io.BytesIO(zipped.content)).read("MEMORY.md").decode()
    assert "The project was archived on 20" in memory.split("## Facts")[0]


# --- idle: when a scope was last read or written, for the upkeep job ------------------------------

def test_idle_projects_are_those_neither_read_nor_written_since(alice, garden):
    project, now = garden["project"], timezone.now()
    long_ago = now - dt.timedelta(days=120)
    quiet = scope_create(name="Shed", kind="project", creator=alice)
    Scope.objects.filter(pk__in=[project.pk, quiet.pk]).update(last_read_at=long_ago)
    Card.objects.filter(scope=project).update(recorded_at=long_ago, verified_at=long_ago)
    since = now - dt.timedelta(days=90)

    found = {s.scope_id: s for s in scopes_idle(since=since, scope_ids=[project.pk, quiet.pk])}
    assert set(found) == {project.pk, quiet.pk}
    assert found[quiet.pk].last_written_at is None and found[project.pk].last_written_at == long_ago

    with reads_noted():  # a request's read is noted when it is answered
        read_scope_ids(principal=Principal(user=alice), scope_id=quiet.pk)
    card_remember(scope=project, actor=alice, draft=CardDraft(kind="state", label="hobby", subject="me",
                                                              value="digging", text="digs"))  # and so is a write
    assert scopes_idle(since=since, scope_ids=[project.pk, quiet.pk]) == []
    _archive(alice, project)  # an archived project is not proposed again
    Scope.objects.filter(pk=project.pk).update(last_read_at=long_ago)
    Card.objects.filter(scope=project).update(recorded_at=long_ago, verified_at=long_ago)
    assert scopes_idle(since=since, scope_ids=[project.pk]) == []


def test_a_read_writes_its_stamp_at_most_once_a_day(alice, garden, django_assert_num_queries):
    project, me = garden["project"], Principal(user=alice)
    Scope.objects.filter(pk=project.pk).update(last_read_at=timezone.now() - dt.timedelta(days=2))
    with django_assert_num_queries(2), reads_noted():  # the read, and the stamp it found two days old
        read_scope_ids(principal=me, scope_id=project.pk)
    assert timezone.now() - Scope.objects.get(pk=project.pk).last_read_at < dt.timedelta(minutes=1)
    with django_assert_num_queries(1), reads_noted():  # read again the same day: the read alone
        read_scope_ids(principal=me, scope_id=project.pk)


def test_a_conversation_queued_before_archiving_is_not_read_after_it(bearer, alice, garden,
                                                                      django_capture_on_commit_callbacks):
    from review.models import IngestJob
    from review.services.ingest import ingest_process

    agent = bearer(alice, write=True, all_scopes=True)
    with django_capture_on_commit_callbacks(execute=False):  # queued, not yet read by a worker
        answer = agent.post("/api/v1/ingest/", {"scope": garden["project"].pk, "session": "s1", "messages": [
            {"role": "user", "text": "I live in Kyoto.", "at": timezone.now().isoformat()}]}, format="json")
    assert answer.status_code == 202, answer.json()
    _archive(alice, garden["project"])
    job = ingest_process(job_id=answer.json()["job"], scope_id=garden["project"].pk)
    assert job.status == "failed" and "archived" in job.error
    assert IngestJob.objects.get(pk=job.pk).messages == []
    assert not Candidate.objects.filter(scope=garden["project"]).exists()
