"""Every statement a hot path sends names its scopes as constants (DESIGN §1, issue 43): a household's
read, a write (single, batch, supersede), a forget and a review decision are done as a client does them,
through the API, and each statement they send that touches a table distributed by scope is read by
tests/scope_routing.py — restricted on scope_id by constants, and joined with any other distributed
table on scope_id. On Citus that is what sends it to its scopes' shards alone; here it is held on one
PostgreSQL, with the statements' own values, as the cluster would receive them.

Recall runs from SQL, as on a cluster (whose shards keep no snapshot log: cards.recall.snapshots.enabled), by both
of its routes: the exact one every household takes, and the index one of large reads."""

import datetime as dt

import pytest
from django.utils import timezone

from cards.recall import routes
from cards.drafts import CardDraft
from cards.models import Card
from cards.services import card_remember
from review.models import Candidate
from scopes.services import membership_set
from tests.factories import UserFactory, family_scope
from tests.scope_routing import distributed_tables, unrouted
from tests.sql_scope import recorded

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _recall_from_sql(settings):
    settings.RECALL_MEMORY_MB = 0


def remember(scope, actor, **fields):
    return card_remember(scope=scope, actor=actor, draft=CardDraft(**{"kind": "state", "subject": "me", **fields}))


@pytest.fixture
def household(db):
    """A family of two members, each with a personal scope and a few cards: a fact unconfirmed long enough
    to be asked again (the questions asked are joined in), a contradiction between the family's and a
    personal scope, a guess to probe, a preference and a boundary (the context block carries them)."""
    dana, sam = UserFactory(username="dana", display_name="Dana"), UserFactory(username="sam", display_name="Sam")
    family = family_scope(owner=dana)
    membership_set(scope=family, user=sam, role="member")
    remember(family, dana, label="city", value="Porto", reference_time=timezone.now() - dt.timedelta(days=200))
    remember(family, sam, label="employer", value="Harbor")
    remember(family, dana, label="hobby", value="chess")
    remember(family, dana, label="likes", value="jazz", tag="hypothesis", confidence=0.6)
    remember(dana.personal_scope, dana, label="city", value="Braga")
    remember(dana.personal_scope, dana, label="tone", value="direct", tag="preference")
    remember(dana.personal_scope, dana, kind="knowledge", label="note", text="Never call before 9", tag="boundary")
    remember(sam.personal_scope, sam, label="city", value="Lyon")
    return {"dana": dana, "sam": sam, "family": family}


def _excerpt(sql: str) -> str:
    # Its head names the tables, its tail holds the WHERE: a long statement is shown by both.
    sql = " ".join(sql.split())
    return sql if len(sql) <= 900 else f"{sql[:450]} … {sql[-450:]}"


def assert_routed(statements, *, touching: set[str]) -> None:
    """Every statement touching a distributed table names its scopes, and among them they reach the tables
    in `touching`."""
    problems, touched = [], set()
    for statement in statements:
        for sql in statement.composed():
            touched |= distributed_tables(sql)
            problems += [f"{why}\n    {statement.where}: {_excerpt(sql)}" for why in unrouted(sql)]
    assert touching <= touched, f"the operation never reached {sorted(touching - touched)}: nothing was checked"
    assert not problems, "\n".join(problems)


# (method, path, body beside the scope, what the answer must show: the read found cards, so their
# statements ran — shaping included)
READS = {
    "recall": ("post", "/api/v1/recall/", {"query": "where does Dana live", "k": 10},
               lambda body: body["results"] and body["contradictions"] and body["aging_facts"]),
    "context": ("get", "/api/v1/context/", {"query": "where do I live"},
                lambda body: "Never call before 9" in body["prompt"] and "Porto" in body["prompt"]),
    "ask": ("post", "/api/v1/ask/", {"question": "Which city does Dana live in?"},
            lambda body: body["values"] == ["Porto", "Braga"] and body["evidence"]),
    "answer": ("post", "/api/v1/answer/", {"subject": "Dana", "label": "city"},
               lambda body: body["values"] == ["Porto", "Braga"] and body["evidence"]),
    "count": ("post", "/api/v1/count/", {"label": "city"}, lambda body: body["count"] == 2),
    "list": ("get", "/api/v1/cards/", {}, lambda body: len(body["results"]) == 7),
}


def read(client, name: str, scope) -> dict:
    method, path, body, shows = READS[name]
    response = getattr(client, method)(path, {"scope": scope.pk, **body},
                                       **({"format": "json"} if method == "post" else {}))
    assert response.status_code == 200, response.content
    assert shows(response.json()), response.json()
    return response.json()


@pytest.mark.parametrize("name", READS)
def test_a_household_read_names_its_scopes(household, as_user, name):
    client = as_user(household["dana"])
    with recorded() as statements:
        read(client, name, household["family"])
    assert_routed(statements, touching={"cards_card"})


@pytest.mark.parametrize("name", ["recall", "context"])
def test_a_large_read_names_its_scopes_on_the_index_route(household, as_user, monkeypatch, name):
    monkeypatch.setattr(routes, "EXACT_LIMIT", 0)  # as if the scopes held more candidates than it
    client = as_user(household["dana"])
    with recorded() as statements:
        body = read(client, name, household["family"])
    assert body.get("route", "index") == "index"  # recall says which route it took; the context block does not
    assert_routed(statements, touching={"cards_card"})


def test_the_cards_of_every_scope_one_sees_are_listed_by_their_scopes(household, as_user):
    with recorded() as statements:
        response = as_user(household["dana"]).get("/api/v1/cards/", {"current": "false"})
    assert response.status_code == 200 and len(response.json()["results"]) == 7
    assert_routed(statements, touching={"cards_card"})


def draft(label, value, **fields):
    return {"kind": "state", "subject": "me", "label": label, "value": value, **fields}


def test_a_single_write_names_its_scope(household, as_user):
    with recorded() as statements:
        response = as_user(household["sam"]).post(
            "/api/v1/cards/", {"scope": household["family"].pk, **draft("hobby", "rowing")}, format="json")
    assert response.json()["outcome"] == "inserted"
    assert_routed(statements, touching={"cards_card"})


def test_a_second_value_supersedes_the_first_by_its_scope(household, as_user):
    with recorded() as statements:
        response = as_user(household["dana"]).post(
            "/api/v1/cards/", {"scope": household["family"].pk, **draft("city", "Lisbon")}, format="json")
    assert response.json()["outcome"] == "superseded"
    assert_routed(statements, touching={"cards_card"})


def test_a_batch_across_two_scopes_names_them(household, as_user):
    """Closing a value, reinforcing one and adding one, in two scopes: the batch reads both timelines and
    updates each scope's cards by their scope."""
    dana, family = household["dana"], household["family"]
    cards = [{"scope": family.pk, **draft("city", "Faro")},
             {"scope": dana.personal_scope.pk, **draft("tone", "direct", tag="preference")},
             {"scope": dana.personal_scope.pk, **draft("hobby", "go")}]
    with recorded() as statements:
        response = as_user(dana).post("/api/v1/cards/bulk/", {"cards": cards}, format="json")
    assert sorted(r["outcome"] for r in response.json()["results"]) == ["inserted", "reinforced", "superseded"]
    assert_routed(statements, touching={"cards_card"})


# Every table a forget reaches, whatever it finds there: what hangs off a card goes by its scope
# (cards/services/forget_rows.py), and the review queue's copies too.
FORGET_REACHES = {"cards_card", "cards_cardrevision", "cards_cardperspective", "cards_cardasked", "review_probe",
                  "review_upkeepproposal", "review_candidate", "review_decision"}


def test_forgetting_a_card_a_timeline_and_a_subject_names_their_scopes(household, as_user):
    """A card that came from an approved candidate (the candidate and the decision's reason go with it), a
    timeline, and a subject whole (its name goes when no card of a scope seeing it names it)."""
    dana, sam, family = household["dana"], household["sam"], household["family"]
    client = as_user(dana)
    proposed = Candidate.objects.create(scope=family, author=sam, kind="state", label="skill", subject="me",
                                        value="welding", quote="I know welding", message_at=timezone.now())
    approved = client.post(f"/api/v1/review/{proposed.pk}/approve/", {"reason": "he does"}, format="json")
    assert approved.status_code == 200, approved.content
    welding = Card.objects.get(scope=family, label__key="skill")
    remember(family, dana, kind="knowledge", subject="Kettle", label="note", text="The kettle is red")
    with recorded() as statements:
        assert client.delete(f"/api/v1/cards/{welding.pk}/").status_code == 204
        forgot = client.post("/api/v1/forget/", {"scope": family.pk, "subject": "me", "label": "city"}, format="json")
        kettle = client.post("/api/v1/forget/", {"scope": family.pk, "subject": "Kettle"}, format="json")
    assert (forgot.status_code, kettle.status_code) == (200, 200), (forgot.content, kettle.content)
    assert kettle.json()["receipt"]["entities"] == 1 and not Candidate.objects.filter(pk=proposed.pk).exists()
    assert not Card.objects.filter(pk=welding.pk).exists()
    assert not Card.objects.filter(scope=family, label__key="city", subject__user=dana).exists()
    assert_routed(statements, touching=FORGET_REACHES)


def test_a_review_decision_names_its_scope(household, as_user):
    """Approving writes the card through the write path; both decisions are logged. The candidate is found
    as every detail endpoint finds its row: by the principal's scopes, listed first."""
    dana, sam, family = household["dana"], household["sam"], household["family"]
    proposed = [Candidate.objects.create(scope=family, author=sam, kind="state", label="skill", subject="me",
                                         value=value, quote=f"I know {value}", message_at=timezone.now())
                for value in ("welding", "juggling")]
    client = as_user(dana)
    with recorded() as statements:
        approved = client.post(f"/api/v1/review/{proposed[0].pk}/approve/", {}, format="json")
        rejected = client.post(f"/api/v1/review/{proposed[1].pk}/reject/", {"reason": "not so"}, format="json")
    assert (approved.status_code, rejected.status_code) == (200, 200), (approved.content, rejected.content)
    assert_routed(statements, touching={"review_candidate", "review_decision", "cards_card"})

