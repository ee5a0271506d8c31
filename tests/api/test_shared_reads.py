"""Reading what members share (DESIGN §3 "Sharing by the person's choice"): Sam shares his
employer with the family, so Dana reads it wherever she reads the family — ask, answer, recall
(from memory and from SQL), count, context, the card list, the card itself — shown as his, and
never his address; she writes and forgets none of it; unsharing or leaving ends it at once."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

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
from tests.database_url import database_url
from tests.factories import UserFactory, family_scope

pytestmark = pytest.mark.django_db
ROOT = Path(__file__).resolve().parents[2]


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
def test_another_process_stops_reading_a_share_the_moment_it_is_unshared():
    """A second server process, its snapshots of Sam's scope warm, reads the share; unshared here,
    its next read no longer covers the card: nothing of a share is cached in a process."""
    world = silvas()
    script = (
        "import json, sys\n"
        "from cards.answers.ask import ask_read\n"
        "from cards.selectors.recall import recall_body\n"
        "from scopes.models import User\n"
        "from scopes.principals import Principal\n"
        f"dana = Principal(User.objects.get(pk={world['dana'].pk}))\n"
        "for line in sys.stdin:\n"
        "    asked = ask_read(principal=dana, scope_id=None, question='Where does Sam work?')\n"
        "    body, _ = recall_body(dana, scope_id=None, query='where does Sam work', k=50, when=None, tz=None,\n"
        "                          as_of=None)\n"
        "    print(json.dumps([asked['values'], [r['card']['id'] for r in body['results']]]), flush=True)\n")
    env = {key: value for key, value in os.environ.items() if key != "CELERY_BROKER_URL"}
    env.update(DATABASE_URL=database_url(), DATABASE_POOL="false", PYTHONUNBUFFERED="1")
    server = subprocess.Popen([sys.executable, "manage.py", "shell", "-c", script], cwd=ROOT, env=env,
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        def read() -> tuple[list, list]:
            server.stdin.write("read\n")
            server.stdin.flush()
            line = server.stdout.readline()
            while line and not line.startswith("["):  # the shell's own words first
                line = server.stdout.readline()
            assert line, server.stderr.read()
            return tuple(json.loads(line))

        values, ids = read()
        assert values == ["Acme Shipping"] and world["employer"].pk in ids
        assert read()[0] == ["Acme Shipping"]                # warm: from the snapshots it keeps
        world["share"].delete()
        values, ids = read()
        assert values == [] and world["employer"].pk not in ids
    finally:
        server.stdin.close()
        server.kill()
        server.wait(10)


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
