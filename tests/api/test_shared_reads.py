"""Reading what members share (DESIGN §3 "Sharing by the person's choice"): Sam shares his
employer with the family, so Dana reads it wherever she reads the family — ask, answer, recall
(from memory and from SQL), count, context, the card list, the card itself — shown as his, and
never his address; she writes and forgets none of it; unsharing or leaving ends it at once."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from cards.drafts import CardDraft
from cards.models import Card
from cards.reads import Read
from cards.recall.routes import recall
from cards.selectors.read_scopes import scope_ids_read
from cards.services import card_remember
from cards.services.embedding import cards_embed_now
from scopes.models import Membership, Share
from scopes.principals import Principal
from scopes.services import membership_set
from scopes.tokens import token_create
from tests.site_server import site_server
from tests.factories import UserFactory, family_scope

pytestmark = pytest.mark.django_db


def state(scope, actor, label, value, subject="me"):
    card = card_remember(scope=scope, actor=actor, draft=CardDraft(kind="state", label=label, subject=subject,
                                                                   value=value)).card
    cards_embed_now(card_ids=[card.pk])
    return card


def silvas():
    """dana owns the family, sam is a member; sam's employer and address in his personal scope, his
    employer shared with the family; leo (outside it) reads none of it."""
    dana, sam, leo = (UserFactory(username=name) for name in ("dana", "sam", "leo"))
    family = family_scope(owner=dana, name="Silva family")
    membership_set(scope=family, user=sam, role="member")
    employer = state(sam.personal_scope, sam, "employer", "Acme Shipping")
    address = state(sam.personal_scope, sam, "address", "9 Hill Street")
    share = Share.objects.create(scope=family, owner=sam, label_key="employer")
    return {"dana": dana, "sam": sam, "leo": leo, "family": family, "employer": employer, "address": address,
            "share": share}


@pytest.fixture
def world():
    return silvas()


def post(client, path, body, status=200):
    response = client.post(f"/api/v1/{path}/", body, format="json")
    assert response.status_code == status, response.content
    return response.json()


def recalled(client, **body) -> set[int]:
    return {r["card"]["id"] for r in post(client, "recall", {"query": "where does Sam work and live", "k": 50,
                                                             **body})["results"]}


def test_a_member_reads_what_another_shares_with_the_family_and_nothing_else(world, bearer):
    dana = bearer(world["dana"])
    employer, address = world["employer"].pk, world["address"].pk
    for named in ({}, {"scope": world["family"].pk}, {"scope": "family"}):
        asked = post(dana, "ask", {"question": "Where does Sam work?", **named})
        assert asked["tier"] == "recorded" and asked["values"] == ["Acme Shipping"], named
        assert post(dana, "ask", {"question": "Where does Sam live?", **named})["tier"] == "no_evidence"
        found = recalled(dana, **named)
        assert employer in found and address not in found, named
        answered = post(dana, "answer", {"subject": "Sam", "label": "employer", **named})
        assert answered["values"] == ["Acme Shipping"] and answered["evidence"][0]["id"] == employer
        assert post(dana, "answer", {"subject": "Sam", "label": "address", **named})["tier"] == "no_evidence"
        assert post(dana, "count", {"label": "employer", "subject": "Sam", **named})["count"] == 1
    # Read in her personal scope alone, the family is not read, nor what is shared with it.
    assert employer not in recalled(dana, scope=world["dana"].personal_scope.pk)
    listed = dana.get("/api/v1/cards/", {"scope": world["family"].pk}).json()["results"]
    assert [card["id"] for card in listed] == [employer]
    context = dana.get("/api/v1/context/", {"query": "where does Sam work"}).json()
    assert "Acme Shipping" in context["prompt"] and "9 Hill Street" not in context["prompt"]
    shown = dana.get(f"/api/v1/cards/{employer}/")
    assert shown.status_code == 200 and shown.json()["subject"] == "Sam"
    assert dana.get(f"/api/v1/cards/{address}/").status_code == 404
    # Someone outside the family reads none of it.
    leo = bearer(world["leo"])
    assert leo.get(f"/api/v1/cards/{employer}/").status_code == 404
    assert employer not in recalled(leo)


def test_a_shared_card_is_read_never_written_nor_forgotten(world, bearer):
    dana = bearer(world["dana"], write=True)
    employer = world["employer"].pk
    assert dana.patch(f"/api/v1/cards/{employer}/", {"text": "Works at Beta"}, format="json").status_code == 404
    assert dana.post(f"/api/v1/cards/{employer}/verify/").status_code == 404
    assert dana.delete(f"/api/v1/cards/{employer}/").status_code == 404
    receipt = post(dana, "forget", {"scope": world["family"].pk, "subject": "Sam", "label": "employer"})
    assert receipt["receipt"]["cards"] == 0
    assert Card.objects.filter(pk=employer).exists()


def test_unsharing_and_leaving_end_it_at_once(world, bearer):
    dana = bearer(world["dana"])
    employer = world["employer"].pk
    assert employer in recalled(dana)                       # the snapshots of Sam's scope are now kept
    world["share"].delete()
    assert employer not in recalled(dana)
    assert post(dana, "ask", {"question": "Where does Sam work?"})["tier"] == "no_evidence"
    assert dana.get(f"/api/v1/cards/{employer}/").status_code == 404
    Share.objects.create(scope=world["family"], owner=world["sam"], label_key="employer")
    assert employer in recalled(dana)
    Membership.objects.filter(scope=world["family"], user=world["sam"]).delete()
    assert employer not in recalled(dana)


def test_a_token_narrowed_away_from_the_family_reads_no_share(world, bearer):
    diary = bearer(world["dana"], scopes=[world["dana"].personal_scope])
    assert world["employer"].pk not in recalled(diary)
    assert post(diary, "ask", {"question": "Where does Sam work?"})["tier"] == "no_evidence"


def test_the_owner_reads_their_own_cards_once(world, bearer):
    sam = bearer(world["sam"])
    found = recalled(sam)
    assert {world["employer"].pk, world["address"].pk} <= found
    read = scope_ids_read(principal=Principal(world["sam"]), scope_id=None)
    assert read.shared == ()


@pytest.mark.parametrize("route", ["exact", "memory", "index"])
def test_every_route_of_recall_covers_the_share_and_only_it(world, route):
    read = scope_ids_read(principal=Principal(world["dana"]), scope_id=None)
    assert read.shared and isinstance(read, Read)
    got = {r.card_id for r in recall(scope_ids=read, query="where does Sam work and live", k=50,
                                     route=route).results}
    assert world["employer"].pk in got and world["address"].pk not in got


@pytest.mark.django_db(transaction=True, serialized_rollback=True)
def test_another_server_stops_serving_a_share_the_moment_it_is_unshared(tmp_path):
    """A second server process (gunicorn, as production runs), its snapshots of Sam's scope warm,
    serves the share to Dana's agent over HTTP; Sam unshares through this process's API, and that
    server's next answer no longer has it: nothing of a share is cached in a process."""
    world = silvas()
    _, raw = token_create(user=world["dana"], name="agent", can_write=False, scopes=None, all_scopes=True, days=1)
    with site_server(tmp_path) as call:
        def read() -> tuple[list, set]:
            asked = call("/api/v1/ask/", {"question": "Where does Sam work?"}, raw)
            recalled = call("/api/v1/recall/", {"query": "where does Sam work", "k": 50}, raw)
            return asked["values"], {r["card"]["id"] for r in recalled["results"]}

        values, ids = read()
        assert values == ["Acme Shipping"] and world["employer"].pk in ids
        assert read()[0] == ["Acme Shipping"]                # warm: from the snapshots it keeps
        sam = APIClient()
        sam.force_login(world["sam"])
        response = sam.put("/api/v1/me/sharing/", {"scope": world["family"].pk, "labels": []}, format="json")
        assert response.status_code == 200, response.content
        values, ids = read()
        assert values == [] and world["employer"].pk not in ids


def test_what_a_member_says_of_themselves_wins_over_another_members_card_about_them(world, bearer):
    """DESIGN §4 rule 7 across a share: Dana's family card says Sam works at Beta; Sam's own shared card
    says Acme. Answers give Sam's word, Dana's stands beside it (`disputes`), and recall shows the two as
    a contradiction for Sam to settle."""
    theirs = state(world["family"], world["dana"], "employer", "Beta Foods", subject="Sam")
    for person in ("dana", "sam"):
        agent = bearer(world[person])
        answered = post(agent, "answer", {"subject": "Sam", "label": "employer"})
        assert answered["values"] == ["Acme Shipping"], person
        assert [card["id"] for card in answered["disputes"]] == [theirs.pk], person
        assert post(agent, "ask", {"question": "Where does Sam work?"})["values"] == ["Acme Shipping"], person
    sides = [{card["id"] for card in found["cards"]} for found in
             post(bearer(world["sam"]), "recall", {"query": "where does Sam work"})["contradictions"]]
    assert {world["employer"].pk, theirs.pk} in sides
    # Unshared, Dana reads only her own card again; Sam still reads both, his own first.
    world["share"].delete()
    assert post(bearer(world["dana"]), "answer", {"subject": "Sam", "label": "employer"})["values"] == ["Beta Foods"]
    assert post(bearer(world["sam"]), "answer", {"subject": "Sam", "label": "employer"})["values"] == ["Acme Shipping"]


def test_a_guess_from_a_look_alike_reads_what_the_look_alike_shares(world, bearer):
    """Likeness guesses read the shares as every read does: Mia, in the family, is alike Sam by what
    he shares (hobby, interest), so his shared job title is offered as a model guess for hers; what he
    does not share is never a neighbour's evidence."""
    sam, family, dana = world["sam"], world["family"], world["dana"]
    world["share"].delete()                                 # alike by these two alone
    for label, value in (("hobby", "playing the saxophone in a jazz band"), ("interest", "bebop records")):
        state(family, dana, label, value, subject="Mia")
        state(sam.personal_scope, sam, label, value)
        Share.objects.create(scope=family, owner=sam, label_key=label)
    state(sam.personal_scope, sam, "job_title", "music teacher")
    agent = bearer(dana)

    def guesses() -> list[str]:
        body = post(agent, "answer", {"subject": "Mia", "label": "job_title"})
        return [c["value"] for c in body.get("candidates", []) if c["why"].startswith("model guess")]
    assert guesses() == []                                  # his job title is not shared
    Share.objects.create(scope=family, owner=sam, label_key="job_title")
    assert guesses() == ["music teacher"]
