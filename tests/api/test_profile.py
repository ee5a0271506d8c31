"""The profile (DESIGN §6 "Profile"): how to talk to a person — GET /api/v1/profile/
and the context block's `profile` section show what the person stated apart from
what an agent guessed; a guess always reads as a guess; a token for one scope
reads no other scope's profile; only the caller's own person's cards are in it."""

import datetime as dt

import pytest
from django.utils import timezone

from cards.context import context_block, context_lines, count_tokens, render
from cards.drafts import CardDraft
from cards.models import Card, Label
from cards.services import card_remember
from review.services.hypotheses import hypothesis_confirm
from scopes.services import membership_set
from tests.factories import UserFactory, family_scope

pytestmark = pytest.mark.django_db

# 20:00 UTC on 2 November is already 3 November in Taipei (alice's zone): the day she reads.
SAID = dt.datetime(2026, 11, 2, 20, 0, tzinfo=dt.timezone.utc)


def remember(scope, actor, **fields) -> Card:
    fields.setdefault("kind", "state")
    fields.setdefault("subject", "me")
    fields.setdefault("reference_time", SAID)
    return card_remember(scope=scope, actor=actor, draft=CardDraft(**fields)).card


def profile(client, scope) -> list[dict]:
    response = client.get("/api/v1/profile/", {"scope": scope.pk})
    assert response.status_code == 200, response.json()
    return response.json()["items"]


def context_section(client, scope, name="profile", **params) -> list[str]:
    response = client.get("/api/v1/context/", {"scope": scope.pk, "query": "how should I answer?", **params})
    assert response.status_code == 200, response.json()
    prompt = response.json()["prompt"]
    if f"<{name}>" not in prompt:
        return []
    return prompt.split(f"<{name}>\n", 1)[1].split(f"\n</{name}>", 1)[0].splitlines()


@pytest.fixture
def alices_profile(alice):
    """In alice's personal scope: a stated brevity and tone, a guess beside the tone,
    a guessed decision style, her diet and a boundary; things that are not profile."""
    scope = alice.personal_scope
    cards = {
        "brevity": remember(scope, alice, label="brevity", value="short answers", tag="preference"),
        "tone": remember(scope, alice, label="tone", value="direct", tag="preference"),
        "tone_guess": remember(scope, alice, label="tone", value="exploratory", tag="hypothesis", confidence=0.3),
        "decision_guess": remember(scope, alice, label="decision_style", value="quick decisions when tired",
                                   tag="hypothesis", confidence=0.6),
        "diet": remember(scope, alice, label="diet", value="vegetarian"),
        "boundary": remember(scope, alice, kind="knowledge", label="note", text="Never share my calendar",
                             tag="boundary"),
    }
    remember(scope, alice, label="likes", value="jazz", tag="preference")  # a preference, not how to talk
    return cards


def test_the_profile_shows_stated_and_guessed_styles_apart(alice, alices_profile, bearer):
    items = profile(bearer(alice, scopes=[alice.personal_scope]), alice.personal_scope)
    cards = alices_profile
    assert [(i["group"], i["label"], i["value"], i["tier"], i["tag"], i["confidence"], i["card"]["id"])
            for i in items] == [
        ("style", "tone", "direct", "recorded", "preference", None, cards["tone"].pk),
        ("style", "tone", "exploratory", "guessed", "hypothesis", "low", cards["tone_guess"].pk),
        ("style", "brevity", "short answers", "recorded", "preference", None, cards["brevity"].pk),
        ("style", "decision_style", "quick decisions when tired", "guessed", "hypothesis", "medium",
         cards["decision_guess"].pk),
        ("constraint", "diet", "vegetarian", "recorded", "fact", None, cards["diet"].pk),
        ("boundary", "note", "Never share my calendar", "recorded", "boundary", None, cards["boundary"].pk),
    ]
    guidance = {i["card"]["id"]: i["guidance"] for i in items}
    # Stated: what she said, and when, as she reads the day (Taipei), never the UTC day.
    assert guidance[cards["brevity"].pk] == "Prefers short answers (brevity; stated Nov 3, 2026)"
    assert guidance[cards["decision_guess"].pk] == (
        "May prefer quick decisions when tired (decision style) — a guess, medium confidence; never state it as fact")
    assert guidance[cards["diet"].pk] == "Diet: vegetarian — keep to it (stated Nov 3, 2026)"


def test_a_guess_is_always_labelled_a_guess_and_a_statement_never_is(alice, alices_profile, bearer):
    items = profile(bearer(alice, scopes=[alice.personal_scope]), alice.personal_scope)
    for item in items:
        is_guess = item["tier"] == "guessed"
        assert is_guess == (item["tag"] == "hypothesis") == ("a guess" in item["guidance"]), item
        assert is_guess == (item["confidence"] is not None) == ("stated" not in item["guidance"]), item


def test_the_context_carries_the_profile_after_the_contradiction_alert_stated_and_guessed_apart(
        alice, alices_profile, bearer):
    agent = bearer(alice, scopes=[alice.personal_scope])
    lines = context_section(agent, alice.personal_scope)
    assert lines == [
        "- Prefers direct (tone; stated Nov 3, 2026)",
        "- May prefer exploratory (tone) — a guess, low confidence; never state it as fact",
        "- Prefers short answers (brevity; stated Nov 3, 2026)",
        "- May prefer quick decisions when tired (decision style) — a guess, medium confidence; "
        "never state it as fact",
        "- Diet: vegetarian — keep to it (stated Nov 3, 2026)",
    ]  # boundaries are the block's own section, not the profile's
    response = agent.get("/api/v1/context/", {"scope": alice.personal_scope.pk, "query": "how should I answer?"})
    body = response.json()
    assert alices_profile["brevity"].pk in body["cards"] and alices_profile["decision_guess"].pk in body["cards"]
    # Said once, as guidance: not again among the memories or the guesses.
    told = body["prompt"].split("<question>")[0]  # the one question may be about the guess itself
    assert told.count("short answers") == 1 and told.count("quick decisions") == 1


def test_the_profile_section_follows_the_contradiction_alert_and_a_tight_budget_keeps_it_before_memories(
        alice, bearer):
    family = family_scope(owner=alice)
    remember(alice.personal_scope, alice, label="city", value="Taipei")
    remember(family, alice, label="city", value="Kyoto")  # two current values: a contradiction
    remember(alice.personal_scope, alice, label="brevity", value="short answers", tag="preference")
    agent = bearer(alice, scopes=[family, alice.personal_scope])
    prompt = agent.get("/api/v1/context/", {"scope": family.pk, "query": "where do I live?"}).json()["prompt"]
    assert prompt.index("</contradiction_alert>") < prompt.index("<profile>")

    # Lines are taken in priority order: with room for the profile but not for a memory, the profile stays.
    now = timezone.now()
    memory = {"card": {"id": 1, "tag": "fact", "kind": "state", "subject_id": 7, "subject": "you", "label": "city",
                       "value": "Kyoto", "object": None, "text": "", "effective_at": "2026-11-03T00:00:00Z",
                       "occurred_at": None}, "score": 0.9}
    item = {"guidance": "Prefers short answers (brevity; stated Nov 3, 2026)", "card": {"id": 2}}
    lines = context_lines(results=[memory], aging=[], contradictions=[], me_id=7, profile=[item])
    assert [line.section for line in lines] == ["profile", "memory"]
    room = count_tokens(render(now, lines[:1]))
    text, card_ids, tokens, taken = context_block(now=now, lines=lines, budget=room)
    assert (card_ids, [line.section for line in taken]) == ([2], ["profile"]) and tokens <= room
    assert "May prefer" not in text and "<profile>\n- Prefers short answers" in text


def test_a_guess_confirmed_by_the_person_becomes_a_stated_preference(alice, bearer):
    guess = remember(alice.personal_scope, alice, label="brevity", value="bullet points", tag="hypothesis",
                     confidence=0.9)
    hypothesis_confirm(card=guess, user=alice, quote="yes, bullets please")
    [item] = profile(bearer(alice, scopes=[alice.personal_scope]), alice.personal_scope)
    assert (item["value"], item["tier"], item["tag"]) == ("bullet points", "recorded", "preference")


def test_the_style_labels_are_single_valued_and_named_in_english_and_chinese():
    for key, english, chinese in [("tone", "tone of voice", "语气"), ("brevity", "answer length", "篇幅"),
                                  ("workflow_style", "way of working", "工作方式"),
                                  ("decision_style", "decision making", "决策方式")]:
        label = Label.objects.get(key=key)
        assert (label.kind, label.cardinality) == ("state", "single")
        assert english in label.synonyms and chinese in label.synonyms


def test_a_new_stated_style_supersedes_the_old_in_the_profile(alice, bearer):
    remember(alice.personal_scope, alice, label="brevity", value="short answers", tag="preference")
    remember(alice.personal_scope, alice, label="brevity", value="full detail", tag="preference",
             reference_time=SAID + dt.timedelta(days=1))
    items = profile(bearer(alice, scopes=[alice.personal_scope]), alice.personal_scope)
    assert [i["value"] for i in items] == ["full detail"]


def test_only_the_callers_own_person_and_only_what_the_scope_reads(alice, bearer):
    sam = UserFactory(username="sam")
    family = family_scope(owner=alice)
    membership_set(scope=family, user=sam, role="member")
    remember(family, sam, label="tone", value="playful", tag="preference")  # sam's own, not alice's
    remember(family, alice, label="tone", value="formal", tag="preference")
    project = family_scope(owner=alice, name="Other household")
    remember(project, alice, label="brevity", value="long answers", tag="preference")  # a sibling scope
    assert [(i["label"], i["value"]) for i in profile(bearer(alice), family)] == [("tone", "formal")]
    assert [(i["label"], i["value"]) for i in profile(bearer(sam), family)] == [("tone", "playful")]


def test_a_token_for_one_scope_cannot_read_another_scopes_profile(alice, bearer, api):
    mallory = UserFactory(username="mallory")
    family = family_scope(owner=alice)
    remember(family, alice, label="tone", value="direct", tag="preference")
    personal_only = bearer(alice, scopes=[alice.personal_scope])
    response = personal_only.get("/api/v1/profile/", {"scope": family.pk})
    assert (response.status_code, response.json()["code"]) == (404, "not_found")
    assert "direct" not in str(context_section(personal_only, alice.personal_scope))
    stranger = bearer(mallory)
    assert stranger.get("/api/v1/profile/", {"scope": family.pk}).status_code == 404
    assert api.get("/api/v1/profile/", {"scope": family.pk}).status_code == 401
    assert personal_only.get("/api/v1/profile/").status_code == 400
