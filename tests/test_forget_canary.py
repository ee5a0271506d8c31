"""Forgotten means gone (DESIGN §4 rule 9), proved at rest: a canary goes in
through every path that stores text, a forget operation runs, and a dump of the
whole database (`pg_dump --data-only`, another connection) holds it zero times.

Each path writes its own canaries (`zqxcanary<word>`), so a leak names its path,
and the dump taken before forgetting must hold every one of them — else the test
could not fail. Each operation gets the paths it is responsible for: forgetting
cards one by one takes everything that became a card (a rejected candidate never
did: retention and the wider operations take it); a timeline takes one label
(a knowledge merge is on another); a subject takes everything about it in the
scope; erasing the account takes everything of its person's, their personal
scope too. The test commits (transaction=True) so the dump sees the rows."""

from __future__ import annotations

import re

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from cards.drafts import CardDraft
from cards.transfer.import_markdown import document_from_markdown
from cards.transfer.importer import memory_import
from cards.models import Card
from cards.services import card_remember, knowledge_merge
from review.models import Candidate
from scopes.services import membership_set
from tests.db_dump import pg_dump
from tests.factories import UserFactory, family_scope

pytestmark = pytest.mark.django_db(transaction=True, serialized_rollback=True)

CANARY = "zqxcanary"
AT = "2026-05-08T16:44:10+08:00"
PASSWORD = "a long phrase only alice knows"
# Each path, and the canaries it leaves.
PATHS = {
    "remember": {"remember", "perspective"},
    "bulk": {"bulk"},
    "describe": {"described", "corrected", "reason"},
    "correct": {"eventcorrected", "eventreason"},
    "ingest_edit_approve": {"ingested", "edited", "approval"},
    "ingest_reject": {"rejected", "rejectreason"},
    "confirm": {"guess", "quote"},
    "merge": {"merged"},
    "import": {"imported"},
    "personal": {"personal"},
}
OPERATIONS = {
    "cards": set(PATHS) - {"ingest_reject", "personal"},
    "timeline": set(PATHS) - {"merge", "correct", "personal"},  # an event is on another label's timeline
    "subject": set(PATHS) - {"personal"},
    "account": set(PATHS),
}


def canaries(dump: str) -> set[str]:
    return set(re.findall(rf"{CANARY}([a-z]+)", dump.lower()))


def plant(paths: set[str], person: APIClient, alice, family) -> list[int]:
    """Run each path; the ids of the cards that hold its words (what one forgets card by card)."""
    cards: list[int] = []

    def remember(scope=family, **fields) -> int:
        body = {"scope": scope.pk, "kind": "state", "subject": "me", "label": "likes", **fields}
        made = person.post("/api/v1/cards/", body, format="json")
        assert made.status_code == 201, made.json()
        return made.json()["card"]["id"]

    if "remember" in paths:
        cards.append(remember(value=f"{CANARY}remember", perspectives={"bob": f"{CANARY}perspective"}))
    if "bulk" in paths:
        made = person.post("/api/v1/cards/bulk/", {"cards": [{"scope": family.pk, "kind": "state", "subject": "me",
                                                               "label": "likes", "value": f"{CANARY}bulk"}]},
                           format="json")
        assert made.status_code == 201, made.json()
        cards.append(made.json()["results"][0]["card"]["id"])
    if "describe" in paths:
        card = remember(value="green tea", text=f"{CANARY}described")
        patched = person.patch(f"/api/v1/cards/{card}/", {"text": f"{CANARY}corrected", "reason": f"{CANARY}reason"},
                               format="json")
        assert patched.status_code == 200, patched.json()
        cards.append(card)
    if "correct" in paths:  # an event's date and description said wrongly, corrected in place
        event = person.post("/api/v1/cards/", {"scope": family.pk, "kind": "event", "subject": "me",
                                               "label": "wedding", "value": "Kim's wedding", "when": "2026-05-02",
                                               "text": "Went to Kim's wedding"}, format="json").json()["card"]["id"]
        corrected = person.post(f"/api/v1/cards/{event}/correct/", {
            "when": "2026-05-03", "text": f"{CANARY}eventcorrected", "reason": f"{CANARY}eventreason"}, format="json")
        assert corrected.status_code == 200 and corrected.json()["corrected"] == ["when", "text"], corrected.json()
        cards.append(event)
    said = [f"I like {CANARY}{word}." for path, word in (("ingest_edit_approve", "ingested"),
                                                         ("ingest_reject", "rejected")) if path in paths]
    if said:
        ingested = person.post("/api/v1/ingest/", {"scope": family.pk, "session": "s1", "messages": [
            {"role": "user", "text": text, "at": AT} for text in said]}, format="json")
        assert ingested.status_code == 202, ingested.json()
    if "ingest_edit_approve" in paths:
        candidate = Candidate.objects.get(quote__icontains=f"{CANARY}ingested")
        approved = person.post(f"/api/v1/review/{candidate.pk}/approve/", {
            "edits": {"value": f"{CANARY}edited"}, "reason": f"{CANARY}approval"}, format="json")
        assert approved.status_code == 200, approved.json()
        cards.append(approved.json()["card"])
    if "ingest_reject" in paths:
        candidate = Candidate.objects.get(quote__icontains=f"{CANARY}rejected")
        rejected = person.post(f"/api/v1/review/{candidate.pk}/reject/", {"reason": f"{CANARY}rejectreason"},
                               format="json")
        assert rejected.status_code == 200, rejected.json()
    if "confirm" in paths:
        guess = remember(value=f"{CANARY}guess", tag="hypothesis", confidence="medium")
        confirmed = person.post(f"/api/v1/cards/{guess}/confirm/", {"quote": f"yes, {CANARY}quote"}, format="json")
        assert confirmed.status_code == 200, confirmed.json()
        cards.append(confirmed.json()["id"])  # the stated card; the guess was promoted into it
    if "merge" in paths:
        def note(value: str, text: str) -> Card:
            return card_remember(scope=family, actor=alice, draft=CardDraft(
                kind="knowledge", label="howto", subject="me", value=value, text=text)).card
        survivor, merged = note("Reset the router", "Hold the button"), note(f"{CANARY}merged", "Unplug it")
        knowledge_merge(target=survivor, others=[merged], actor=alice)
        cards.append(merged.pk)  # the survivor stays; its history must lose the merged words
    if "import" in paths:
        profile = f"# Memory\n\n## Preferences\n- me · likes: {CANARY}imported (since 2026-05-01)\n"
        memory_import(actor=alice, scope=family, document=document_from_markdown(
            {"MEMORY.md": profile}, time_zone="Asia/Taipei", now=timezone.now()))
        cards.append(Card.objects.get(value=f"{CANARY}imported").pk)
    if "personal" in paths:
        cards.append(remember(scope=alice.personal_scope, value=f"{CANARY}personal"))
    return cards


@pytest.mark.parametrize("operation", sorted(OPERATIONS))
def test_a_canary_written_through_every_path_is_nowhere_in_the_database_after_forgetting(operation):
    alice, bob = UserFactory(username="alice"), UserFactory(username="bob")
    alice.set_password(PASSWORD)  # with the tests' fast hasher
    alice.save(update_fields=["password"])
    family = family_scope(owner=alice)
    membership_set(scope=family, user=bob, role="owner")  # alice is not the household's last owner
    person = APIClient()
    person.force_login(alice)
    paths = OPERATIONS[operation]
    cards = plant(paths, person, alice, family)

    before, how = pg_dump(data_only=True)
    expected = set().union(*(PATHS[path] for path in paths))
    assert canaries(before) == expected, f"a path stored nothing to forget ({how})"

    if operation == "cards":
        for card in cards:
            assert person.delete(f"/api/v1/cards/{card}/").status_code == 204
    elif operation in ("timeline", "subject"):
        body = {"scope": family.pk, "subject": "me", **({"label": "likes"} if operation == "timeline" else {})}
        forgot = person.post("/api/v1/forget/", body, format="json")
        assert forgot.status_code == 200, forgot.json()
    else:
        erased = person.delete("/api/v1/account/", {"password": PASSWORD}, format="json")
        assert erased.status_code == 200, erased.json()

    after, how = pg_dump(data_only=True)
    assert canaries(after) == set(), f"left behind after forgetting ({how})"
    if operation == "cards":  # one card at a time: the merge's survivor stays, only the merged words went
        assert Card.objects.filter(scope=family, value="Reset the router").exists()
