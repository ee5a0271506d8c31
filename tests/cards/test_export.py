"""Export (JSON and the remember-me markdown zip) and import_memory, round-trip."""

from __future__ import annotations

import datetime as dt
import io
import json
import zipfile
import zoneinfo

import pytest
from django.core.management import CommandError, call_command

from cards.drafts import CardDraft
from cards.models import Card
from cards.services import alias_add, card_describe, card_remember, card_retract, entity_create, knowledge_rename
from scopes.services import membership_set
from tests.factories import UserFactory, family_scope

pytestmark = pytest.mark.django_db

TAIPEI = zoneinfo.ZoneInfo("Asia/Taipei")


def at(*parts) -> dt.datetime:
    return dt.datetime(*parts, tzinfo=TAIPEI)


def state(label, value, effective, **extra) -> CardDraft:
    return CardDraft(kind="state", label=label, subject=extra.pop("subject", "me"), value=value,
                     effective_at=effective, reference_time=extra.pop("reference_time", effective), **extra)


@pytest.fixture
def household(alice):
    """A family with a supersede chain (one fact learned late, one restated),
    multi values (one retracted), tags, a hypothesis, dated and undated events
    with sources, perspectives and corrections, knowledge renamed, an alias."""
    bob = UserFactory(username="bob", time_zone="Europe/Lisbon")
    home = family_scope(owner=alice)
    membership_set(scope=home, user=bob, role="member")

    def remember(draft, scope=home, actor=alice):
        return card_remember(scope=scope, actor=actor, draft=draft).card

    remember(state("address", "Taipei", at(2024, 1, 1)))
    remember(state("address", "Osaka", at(2026, 1, 10)))
    remember(state("address", "Kyoto", at(2025, 3, 1), source_quote="we moved to Kyoto in March"))  # late
    remember(state("address", "Kyoto", at(2025, 6, 1)))  # stated again
    remember(state("skill", "Go", at(2024, 2, 1)))
    tennis = remember(state("hobby", "tennis", at(2024, 3, 1)))
    card_retract(card=tennis, actor=alice, at=at(2025, 5, 1))
    remember(state("likes", "green tea", at(2024, 4, 1), tag="preference"))
    remember(state("dislikes", "calls after 9pm", at(2024, 4, 2), tag="boundary", impact=3))
    remember(state("skill", "Japanese N2", at(2025, 1, 1), tag="goal"))
    remember(state("likes", "jazz", at(2026, 2, 1), tag="hypothesis", confidence=0.6))
    acme = entity_create(scope=home, name="Acme", kind="organization")
    alias_add(entity=acme, name="Acme Corp")
    remember(state("works_at", "", at(2025, 4, 1), object=acme))
    trip = remember(CardDraft(kind="event", label="trip", subject="me", value="Kyoto", text="Trip to Kyoto",
                              occurred_at=at(2026, 5, 1), precision="day", reference_time=at(2026, 5, 3),
                              source_session="s-1", source_message="m-2", source_quote="we went to Kyoto",
                              perspectives={"alice": "our Kyoto trip", "bob": "trip with my wife"}))
    card_describe(card=trip, actor=alice, text="Family trip to Kyoto", reason="more precise")
    # 01:30 in Taipei is still the 7th in UTC: the daily note is named by the local date.
    remember(CardDraft(kind="event", label="meal", subject="me", value="ramen with Bob",
                       occurred_at=at(2026, 5, 8, 1, 30), precision="datetime", reference_time=at(2026, 5, 8, 9)))
    remember(CardDraft(kind="event", label="wedding", subject=bob.entity, value="Bob's sister's wedding",
                       reference_time=at(2026, 4, 1), source_quote="my sister got married"), actor=bob)
    howto = remember(CardDraft(kind="knowledge", label="howto", subject="me", value="reset the router",
                               text="Hold the button for 10 seconds", reference_time=at(2025, 8, 1)))
    knowledge_rename(card=howto, actor=alice, value="reset the wifi router")
    remember(state("city", "Taipei", at(2023, 1, 1)), scope=alice.personal_scope)
    secret = remember(state("job_title", "spy", at(2024, 1, 1)), scope=bob.personal_scope, actor=bob)
    return {"home": home, "bob": bob, "secret": secret, "trip": trip}


def export(client, scope_id, fmt="json"):
    return client.get(f"/api/v1/export/?scope={scope_id}&format={fmt}")


def comparable(document: dict) -> list[tuple]:
    """The cards as a person would check them: ids, actors and record times aside."""
    names = {e["id"]: ("me" if e["me"] else e["name"]) for e in document["entities"]}
    shared = {s["id"] for s in document["scopes"] if s["kind"] == "global"}
    rows = []
    for c in document["cards"]:
        if c["scope"] in shared:
            continue
        rows.append((names[c["subject"]], c["label"], c["kind"], c["effective_at"], c["value"],
                     names.get(c["object"]), c["tag"], c["text"], c["perspective"], c["superseded_at"],
                     c["superseded_by"] is not None, c["verified_at"], c["stated_at"], c["occurred_at"],
                     c["occurred_end"], c["precision"], c["time_source"], c["confidence"], c["impact"],
                     {k: v for k, v in c["source"].items() if k != "actor"},
                     [(r["field"], r["before"], r["after"], r["reason"]) for r in c["revisions"]]))
    return sorted(rows, key=lambda r: (r[0], r[1], r[2], r[3], r[4]))


def zip_files(content: bytes) -> dict[str, str]:
    with zipfile.ZipFile(io.BytesIO(content)) as archive:
        return {name: archive.read(name).decode() for name in archive.namelist()}


# --- JSON ----------------------------------------------------------------------------

def test_json_export_holds_history_sources_and_entities(as_user, alice, household):
    response = export(as_user(alice), household["home"].pk)
    assert response.status_code == 200, response.content
    document = response.json()
    assert (document["format"], document["version"]) == ("memory-site-export", 1)
    assert [c["id"] for c in document["cards"]] == sorted(c["id"] for c in document["cards"])
    addresses = [c for c in document["cards"] if c["label"] == "address"]
    assert [c["value"] for c in sorted(addresses, key=lambda c: c["effective_at"])] == ["Taipei", "Kyoto", "Osaka"]
    kyoto = next(c for c in addresses if c["value"] == "Kyoto")
    assert len(kyoto["stated_at"]) == 2 and kyoto["superseded_by"] is not None
    assert kyoto["source"]["quote"] == "we moved to Kyoto in March" and kyoto["source"]["actor"] == "alice"
    trip = next(c for c in document["cards"] if c["label"] == "trip")
    assert trip["perspective"] == "our Kyoto trip" and trip["text"] == "Family trip to Kyoto"
    assert trip["precision"] == "day" and trip["source"]["session"] == "s-1"
    assert [(r["field"], r["before"], r["after"]) for r in trip["revisions"]] == [
        ("text", "Trip to Kyoto", "Family trip to Kyoto")]
    acme = next(e for e in document["entities"] if e["name"] == "Acme")
    assert [a["name"] for a in acme["aliases"]] == ["Acme Corp"] and acme["kind"] == "organization"
    assert any(e["name"] == "Bob" and not e["me"] for e in document["entities"])
    assert "embedding" not in trip


def test_export_never_shows_a_scope_the_caller_cannot_see(as_user, alice, household):
    document = export(as_user(alice), household["home"].pk).json()
    assert household["secret"].pk not in {c["id"] for c in document["cards"]}
    assert "spy" not in json.dumps(document)
    stranger = UserFactory(username="mallory")
    response = export(as_user(stranger), household["home"].pk)
    assert response.status_code == 404 and response.json()["code"] == "not_found"


def test_read_token_exports_only_the_scopes_it_was_given(bearer, alice, household):
    client = bearer(alice, scopes=[household["home"]])
    response = export(client, household["home"].pk)
    assert response.status_code == 200, response.content
    values = {c["value"] for c in response.json()["cards"]}
    assert "Osaka" in values and "spy" not in values
    assert not any(c["label"] == "city" for c in response.json()["cards"])  # the personal scope was not granted


def test_bad_format_is_a_validation_error(as_user, alice, household):
    response = export(as_user(alice), household["home"].pk, fmt="pdf")
    assert response.status_code == 400
    assert response.json()["code"] == "validation_error" and "format" in response.json()["fields"]


# --- markdown ------------------------------------------------------------------------

def test_markdown_zip_has_profile_daily_notes_by_local_date_and_undated(as_user, alice, household):
    response = export(as_user(alice), household["home"].pk, fmt="markdown")
    assert response.status_code == 200
    assert response["Content-Type"] == "application/zip"
    assert response["Content-Disposition"].startswith('attachment; filename="memory-scope-')
    files = zip_files(response.content)
    assert {"MEMORY.md", "export.json", "memory/2026-05-01.md", "memory/2026-05-08.md", "memory/undated.md"} \
        <= set(files)
    assert "memory/2026-05-07.md" not in files
    profile = files["MEMORY.md"]
    for heading in ("## Facts", "## Preferences", "## Goals", "## Boundaries", "## Knowledge",
                    "## Hypotheses (unconfirmed)"):
        assert heading in profile
    facts = profile.split("## Facts")[1].split("## Preferences")[0]
    osaka = next(c for c in Card.objects.filter(value="Osaka"))
    assert f"- me · address: Osaka (since 2026-01-10) <!-- card:{osaka.pk} -->" in facts
    assert "Kyoto" not in facts and "tennis" not in facts  # the current profile only
    assert "works_at: [[Acme]]" in facts
    assert "green tea" in profile.split("## Preferences")[1].split("## Goals")[0]
    hypotheses = profile.split("## Hypotheses (unconfirmed)")[1]
    assert "likes: jazz (since 2026-02-01, confidence 0.6)" in hypotheses
    assert "jazz" not in profile.split("## Hypotheses")[0]
    trip_note = files["memory/2026-05-01.md"]
    assert "- day · me · trip: Kyoto — our Kyoto trip" in trip_note and "  > we went to Kyoto" in trip_note
    assert "- 01:30 · me · meal: ramen with Bob" in files["memory/2026-05-08.md"]
    assert "Bob · wedding: Bob's sister's wedding" in files["memory/undated.md"]
    assert json.loads(files["export.json"])["format"] == "memory-site-export"


# --- import, round trip -----------------------------------------------------------------

@pytest.fixture
def carol(db):
    return UserFactory(username="carol", time_zone="UTC")


def _import(path, user, scope_id, **options):
    out = io.StringIO()
    call_command("import_memory", str(path), user=user.username, scope=scope_id, stdout=out, **options)
    return out.getvalue()


def test_json_round_trip_keeps_values_history_times_tags_and_sources(as_user, alice, household, carol, tmp_path):
    original = export(as_user(alice), household["home"].pk).json()
    path = tmp_path / "export.json"
    path.write_text(json.dumps(original))
    _import(path, carol, carol.personal_scope.pk)
    again = export(as_user(carol), carol.personal_scope.pk).json()
    assert comparable(again) == comparable(original)
    assert [a["name"] for e in again["entities"] if e["name"] == "Acme" for a in e["aliases"]] == ["Acme Corp"]


def test_importing_the_same_file_twice_only_reinforces(as_user, alice, household, carol, tmp_path):
    path = tmp_path / "export.json"
    path.write_text(json.dumps(export(as_user(alice), household["home"].pk).json()))
    _import(path, carol, carol.personal_scope.pk)
    before = comparable(export(as_user(carol), carol.personal_scope.pk).json())
    _import(path, carol, carol.personal_scope.pk)
    assert comparable(export(as_user(carol), carol.personal_scope.pk).json()) == before


def test_markdown_zip_round_trip_uses_export_json(as_user, alice, household, carol, tmp_path):
    original = export(as_user(alice), household["home"].pk)
    path = tmp_path / "memory.zip"
    path.write_bytes(export(as_user(alice), household["home"].pk, fmt="markdown").content)
    _import(path, carol, carol.personal_scope.pk)
    assert comparable(export(as_user(carol), carol.personal_scope.pk).json()) == comparable(original.json())


def test_markdown_alone_brings_back_current_values_and_event_dates(as_user, alice, household, carol, tmp_path):
    files = zip_files(export(as_user(alice), household["home"].pk, fmt="markdown").content)
    path = tmp_path / "notes.zip"
    with zipfile.ZipFile(path, "w") as archive:
        for name, text in files.items():
            if name != "export.json":
                archive.writestr(name, text)
    _import(path, carol, carol.personal_scope.pk)
    mine = Card.objects.filter(scope=carol.personal_scope)
    current = {(c.label.key, c.value or c.object.name, c.tag) for c in mine.filter(superseded_at__isnull=True)}
    assert {("address", "Osaka", "fact"), ("skill", "Go", "fact"), ("likes", "green tea", "preference"),
            ("dislikes", "calls after 9pm", "boundary"), ("skill", "Japanese N2", "goal"),
            ("likes", "jazz", "hypothesis"), ("works_at", "Acme", "fact"), ("city", "Taipei", "fact"),
            ("howto", "reset the wifi router", "fact")} <= current
    osaka = mine.get(label__key="address")
    assert osaka.effective_at == at(2026, 1, 10) and osaka.subject == carol.entity
    assert mine.get(label__key="likes", value="jazz").confidence == 0.6
    trip, meal = mine.get(label__key="trip"), mine.get(label__key="meal")
    assert (trip.occurred_at, trip.precision, trip.source_quote) == (at(2026, 5, 1), "day", "we went to Kyoto")
    assert (meal.occurred_at, meal.precision) == (at(2026, 5, 8, 1, 30), "datetime")
    wedding = mine.get(label__key="wedding")
    assert wedding.occurred_at is None and wedding.time_source == "none" and wedding.subject.name == "Bob"


# --- refusals ---------------------------------------------------------------------------

def test_bad_files_and_scopes_are_clear_command_errors(alice, household, carol, tmp_path):
    garbage = tmp_path / "garbage.json"
    garbage.write_text("{not json")
    with pytest.raises(CommandError, match="not valid JSON"):
        _import(garbage, carol, carol.personal_scope.pk)
    other = tmp_path / "other.json"
    other.write_text(json.dumps({"format": "something-else"}))
    with pytest.raises(CommandError, match="Not a memory export"):
        _import(other, carol, carol.personal_scope.pk)
    newer = tmp_path / "newer.json"
    newer.write_text(json.dumps({"format": "memory-site-export", "version": 99}))
    with pytest.raises(CommandError, match="version 99"):
        _import(newer, carol, carol.personal_scope.pk)
    empty = tmp_path / "empty.zip"
    with zipfile.ZipFile(empty, "w") as archive:
        archive.writestr("README.txt", "hello")
    with pytest.raises(CommandError, match="neither export.json"):
        _import(empty, carol, carol.personal_scope.pk)
    with pytest.raises(CommandError, match="has no scope"):
        _import(garbage, carol, household["home"].pk)


def test_unknown_label_refuses_the_whole_import(carol, tmp_path):
    document = {"format": "memory-site-export", "version": 1, "scopes": [], "entities": [
        {"id": 1, "scope": 1, "name": "me", "kind": "person", "me": True, "aliases": [], "merged_into": None}],
        "cards": [{"id": 1, "scope": 1, "kind": "state", "tag": "fact", "subject": 1, "label": "skill",
                   "cardinality": "multi", "value": "Go", "effective_at": "2025-01-01T00:00:00Z"},
                  {"id": 2, "scope": 1, "kind": "state", "tag": "fact", "subject": 1, "label": "favourite_kaiju",
                   "cardinality": "single", "value": "Mothra", "effective_at": "2025-01-02T00:00:00Z"}]}
    path = tmp_path / "export.json"
    path.write_text(json.dumps(document))
    with pytest.raises(CommandError, match="favourite_kaiju"):
        _import(path, carol, carol.personal_scope.pk)
    assert not Card.objects.filter(scope=carol.personal_scope).exists()


def test_dry_run_writes_nothing_and_read_only_members_may_not_import(alice, household, carol, tmp_path):
    document = {"format": "memory-site-export", "version": 1, "scopes": [], "entities": [
        {"id": 1, "scope": 1, "name": "me", "kind": "person", "me": True, "aliases": [], "merged_into": None}],
        "cards": [{"id": 1, "scope": 1, "kind": "state", "tag": "fact", "subject": 1, "label": "skill",
                   "cardinality": "multi", "value": "Go", "effective_at": "2025-01-01T00:00:00Z"}]}
    path = tmp_path / "export.json"
    path.write_text(json.dumps(document))
    assert "Dry run" in _import(path, carol, carol.personal_scope.pk, dry_run=True)
    assert not Card.objects.filter(scope=carol.personal_scope).exists()
    membership_set(scope=household["home"], user=carol, role="viewer")
    with pytest.raises(CommandError, match="may not write"):
        _import(path, carol, household["home"].pk)


def test_export_takes_a_fixed_number_of_queries(as_user, alice, household, django_assert_max_num_queries):
    # Session and user, the visible scopes, then one query each for scopes, cards,
    # revisions, the caller's entity, entities and aliases — however many cards.
    client = as_user(alice)
    with django_assert_max_num_queries(9):
        assert export(client, household["home"].pk).status_code == 200
