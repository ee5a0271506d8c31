"""What others said about a person that disagrees with her own word reaches her
own review queue (DESIGN §4 rule 7: "a contradiction for that member to
settle"), whatever her role in the scope where it was said: a plain member has
no scope queue, yet it is hers alone to settle — keep hers, or take theirs.
Before, only the reviewers of the shared scope saw it listed."""

import pytest
from rest_framework.test import APIClient

from cards.drafts import CardDraft
from cards.models import Card
from cards.services import card_remember
from review.models import Decision
from scopes.services import membership_set, scope_create
from tests.factories import UserFactory, family_scope

pytestmark = pytest.mark.django_db


@pytest.fixture
def people(db):
    """The family is Olga's; Dana and Sam are plain members (role `member`), and
    both are in Olga's team too."""
    olga, dana, sam = (UserFactory(username=name, display_name=name.title()) for name in ("olga", "dana", "sam"))
    family = family_scope(owner=olga)
    team = scope_create(name="Platform", kind="team", creator=olga)
    for scope in (family, team):
        membership_set(scope=scope, user=dana, role="member")
        membership_set(scope=scope, user=sam, role="member")
    return {"olga": olga, "dana": dana, "sam": sam, "family": family, "team": team}


def state(scope, actor, label, value, subject="me"):
    return card_remember(scope=scope, actor=actor,
                         draft=CardDraft(kind="state", subject=subject, label=label, value=value)).card


def signed_in(user) -> APIClient:
    client = APIClient()
    client.force_login(user)
    return client


def queue(user) -> list[dict]:
    response = signed_in(user).get("/api/v1/review/")
    assert response.status_code == 200, response.json()
    return response.json()["said_about_you"]


def pick(user, card_id: int):
    return signed_in(user).post("/api/v1/review/said-about-you/pick/", {"card": card_id}, format="json")


def test_a_plain_member_finds_what_was_said_about_her_in_every_scope_she_views(people):
    dana, sam, family, team = people["dana"], people["sam"], people["family"], people["team"]
    own = state(family, dana, "employer", "Harbor")
    said = state(family, sam, "employer", "Atlas", subject=dana.entity)
    own_city = state(team, dana, "city", "Lisbon")
    said_city = state(team, sam, "city", "Porto", subject=dana.entity)
    assert said.disputes_id == own.pk and said_city.disputes_id == own_city.pk
    # She reviews no scope: the shared scope's queue is not hers to read.
    assert signed_in(dana).get("/api/v1/review/", {"scope": family.pk}).status_code == 403
    found = queue(dana)
    assert [(item["scope_name"], item["yours"]["value"], [t["value"] for t in item["theirs"]]) for item in found] \
        == [("Platform", "Lisbon", ["Porto"]), ("Family", "Harbor", ["Atlas"])]
    assert found[1]["yours"]["id"] == own.pk and found[1]["theirs"][0]["source"]["actor"] == "sam"
    assert found[1]["theirs"][0]["disputes"] == own.pk
    # Nothing is said about Sam; and what he said about Dana is not his to settle.
    assert queue(sam) == []


def test_she_keeps_her_own_word_and_the_statement_is_settled(people):
    dana, sam, family = people["dana"], people["sam"], people["family"]
    own = state(family, dana, "employer", "Harbor")
    said = state(family, sam, "employer", "Atlas", subject=dana.entity)
    response = pick(dana, own.pk)
    assert response.status_code == 200, response.json()
    assert response.json()["current"] == own.pk
    own.refresh_from_db(), said.refresh_from_db()
    assert own.superseded_at is None and own.value == "Harbor"
    assert said.superseded_at is not None and said.revisions.get(field="dispute").after == "settled"
    assert queue(dana) == []
    assert Decision.objects.get(item="contradiction").reviewer == dana


def test_she_takes_theirs_and_it_becomes_her_own_statement(people):
    dana, sam, family = people["dana"], people["sam"], people["family"]
    own = state(family, dana, "employer", "Harbor")
    said = state(family, sam, "employer", "Atlas", subject=dana.entity)
    response = pick(dana, said.pk)
    assert response.status_code == 200, response.json()
    now = Card.objects.get(scope=family, label__key="employer", superseded_at__isnull=True)
    assert (now.value, now.source_actor, now.disputes_id) == ("Atlas", dana, None)
    own.refresh_from_db()
    assert own.superseded_by_id == now.pk  # her old word is history, not gone
    assert queue(dana) == []


def test_taking_an_opposite_preference_states_that_preference(people):
    """likes/dislikes of one value are one timeline: taking "dislikes coriander"
    must state the dislike, not repeat her "likes"."""
    dana, sam, family = people["dana"], people["sam"], people["family"]
    own = state(family, dana, "likes", "coriander")
    said = state(family, sam, "dislikes", "coriander", subject=dana.entity)
    assert said.disputes_id == own.pk
    assert pick(dana, said.pk).status_code == 200
    standing = Card.objects.filter(scope=family, value_norm="coriander", superseded_at__isnull=True)
    assert [(c.label.key, c.source_actor) for c in standing] == [("dislikes", dana)]


def test_no_one_else_may_settle_it_not_even_the_scopes_owner(people):
    dana, sam, olga, family = people["dana"], people["sam"], people["olga"], people["family"]
    own = state(family, dana, "employer", "Harbor")
    said = state(family, sam, "employer", "Atlas", subject=dana.entity)
    before = sorted(Card.objects.values_list("pk", "superseded_at"))
    for who in (sam, olga):
        for card in (own, said):
            refused = pick(who, card.pk)
            assert refused.status_code == 403 and refused.json()["code"] == "member_settles", refused.json()
    assert sorted(Card.objects.values_list("pk", "superseded_at")) == before
    # A stranger does not even see it.
    assert pick(UserFactory(username="mallory"), said.pk).status_code == 404
    assert queue(dana)[0]["theirs"][0]["id"] == said.pk


def test_a_card_that_is_no_side_of_a_dispute_is_refused(people):
    dana, family = people["dana"], people["family"]
    plain = state(family, dana, "employer", "Harbor")
    refused = pick(dana, plain.pk)
    assert refused.status_code == 400 and refused.json()["fields"]["card"]


def test_an_agent_token_never_reads_nor_settles_it(people, bearer):
    dana, sam, family = people["dana"], people["sam"], people["family"]
    state(family, dana, "employer", "Harbor")
    said = state(family, sam, "employer", "Atlas", subject=dana.entity)
    agent = bearer(dana, write=True, all_scopes=True)
    listed = agent.get("/api/v1/review/")
    assert listed.status_code == 403 and listed.json()["code"] == "permission_denied"
    settled = agent.post("/api/v1/review/said-about-you/pick/", {"card": said.pk}, format="json")
    assert settled.status_code == 403 and settled.json()["code"] == "permission_denied"
    assert Card.objects.get(pk=said.pk).superseded_at is None


def test_the_review_page_shows_it_and_she_settles_it_there(people, client):
    dana, sam, family = people["dana"], people["sam"], people["family"]
    state(family, dana, "employer", "Harbor")
    said = state(family, sam, "employer", "Atlas", subject=dana.entity)
    client.force_login(dana)
    page = client.get("/review/").content.decode()
    assert "Said about you" in page and "sam says <strong>Atlas</strong>" in page
    assert "Keep mine: Harbor" in page and "Take theirs: Atlas" in page
    client.force_login(sam)
    assert "Take theirs" not in client.get("/review/").content.decode()
    assert client.post("/review/said-about-you/pick/", {"card": said.pk}).status_code == 403
    client.force_login(dana)
    answer = client.post("/review/said-about-you/pick/", {"card": said.pk})
    assert answer.status_code == 302 and answer.url == "/review/"
    assert Card.objects.get(scope=family, label__key="employer", superseded_at__isnull=True).value == "Atlas"
    assert "Nothing said about you waits for you." in client.get("/review/").content.decode()


def test_what_was_said_in_an_archived_project_waits_until_it_is_restored(people):
    from scopes.archive import scope_archive, scope_restore
    from scopes.principals import Principal

    dana, sam, olga = people["dana"], people["sam"], people["olga"]
    garden = scope_create(name="Garden", kind="project", creator=olga, parent=people["family"])
    membership_set(scope=garden, user=dana, role="member")
    membership_set(scope=garden, user=sam, role="member")
    state(garden, dana, "employer", "Harbor")
    state(garden, sam, "employer", "Atlas", subject=dana.entity)
    assert len(queue(dana)) == 1
    scope_archive(principal=Principal(user=olga), scope=garden)
    assert queue(dana) == []  # read-only there: nothing to settle, so nothing asks her to
    scope_restore(principal=Principal(user=olga), scope=garden)
    assert len(queue(dana)) == 1
