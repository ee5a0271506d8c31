"""What text may enter (cards/text.py): values and free text keep what real
text needs — emoji joined by ZWJ, Arabic, Hebrew, Persian with its ZWNJ — but
lose bidi embedding, override and isolate controls; all text is NFC; names
refuse what is invisible, except a joiner that visibly shapes its script. And
look-alikes stored before the rule are proposed for merge, never merged."""

import importlib

import pytest
from django.apps import apps
from django.db import connection

from cards.drafts import CardDraft
from cards.errors import InvalidText
from cards.models import Card, CardPerspective, Entity, PossibleDuplicate
from cards.services import card_describe, card_remember, entity_create
from cards.services.remember import perspectives_set
from cards.text import name_in, name_skeleton
from scopes.services import membership_set
from tests.factories import UserFactory, family_scope

pytestmark = pytest.mark.django_db

FAMILY_EMOJI = "\U0001F468\u200d\U0001F469\u200d\U0001F467"  # 👨‍👩‍👧, three people joined by ZWJ
ARABIC = "مرحبا بالعالم"
HEBREW = "שלום עולם"
PERSIAN = "می\u200cخواهم"  # "I want": the ZWNJ keeps می apart from خواهم
BIDI_CONTROLS = "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"


def remember(scope, actor, **fields):
    return card_remember(scope=scope, actor=actor, draft=CardDraft(**{"kind": "state", "subject": "me", **fields}))


@pytest.mark.parametrize("value", [FAMILY_EMOJI, ARABIC, HEBREW, PERSIAN, f"{HEBREW} (Tel Aviv) {ARABIC}"])
def test_values_keep_emoji_sequences_and_right_to_left_scripts_as_written(alice, scope, value):
    card = remember(scope, alice, label="interest", value=value, text=f"Likes {value}").card
    card.refresh_from_db()
    assert (card.value, card.text) == (value, f"Likes {value}")


def test_bidi_overrides_and_isolates_are_stripped_from_values_and_free_text(alice, scope):
    spoofed = "\u202eevil.exe\u202c " + "".join(f"{c}x" for c in BIDI_CONTROLS)
    card = remember(scope, alice, label="interest", value=spoofed, text=f"said \u2067{HEBREW}\u2069",
                    source_quote="\u202dquoted\u202c").card
    card.refresh_from_db()
    assert card.value == "evil.exe " + "x" * len(BIDI_CONTROLS)
    assert (card.text, card.source_quote) == (f"said {HEBREW}", "quoted")
    described = card_describe(card=card, actor=alice, text=f"\u202b{ARABIC}\u202c", reason="")
    assert described.text == ARABIC


def test_perspectives_lose_bidi_controls_too(alice):
    family = family_scope(owner=alice, name="Home")
    bob = UserFactory(username="bob")
    membership_set(scope=family, user=bob, role="member")
    card = remember(family, alice, label="interest", value="Tea").card
    perspectives_set(card=card, actor=bob, phrasings={"bob": f"\u202e{FAMILY_EMOJI} tea"})
    assert CardPerspective.objects.get(card=card, user=bob).text == f"{FAMILY_EMOJI} tea"


def test_text_is_nfc_so_a_decomposed_value_is_the_composed_one(alice, scope):
    first = remember(scope, alice, label="interest", value="Caf\u00e9")
    again = remember(scope, alice, label="interest", value="Cafe\u0301")
    assert again.outcome == "reinforced" and again.card.pk == first.card.pk
    text = remember(scope, alice, label="interest", value="Tea", text="Cafe\u0301 au lait").card
    text.refresh_from_db()
    assert text.text == "Caf\u00e9 au lait"


def test_a_name_keeps_a_joiner_only_where_it_shapes_its_script(alice, scope):
    assert name_in(PERSIAN) == PERSIAN  # ZWNJ between joining Persian letters: visible
    assert name_in("क्\u200dष") == "क्\u200dष"  # ZWJ after a virama: visible
    for hidden in ("Paris\u200c", "Pa\u200cris", "\u200dParis", "Par\ufe0fis", "Pa\u2028ris", "Pa\u00adris"):
        with pytest.raises(InvalidText):
            name_in(hidden)


def test_a_persian_name_with_its_zwnj_is_an_entity(alice, scope):
    entity = entity_create(scope=scope, name=PERSIAN)
    assert Entity.objects.get(pk=entity.pk).name == PERSIAN


def test_skeletons_meet_for_look_alikes_and_part_for_different_names():
    assert name_skeleton("P\u0430ris") == name_skeleton("Paris") == name_skeleton("PARIS")
    assert name_skeleton("Pa\u200bris") == name_skeleton("Paris")  # stored before the rule: still met
    assert name_skeleton("Paris") != name_skeleton("Parks")
    assert name_skeleton("巴黎") != name_skeleton("Paris")


def test_the_migration_fills_skeletons_and_proposes_stored_look_alikes_for_merge(alice, scope):
    paris = Entity.objects.create(scope=scope, name="Paris")
    # Written before look-alikes were refused: rows as they were, without skeletons.
    with connection.cursor() as cursor:
        cursor.execute("INSERT INTO cards_entity (scope_id, name, name_norm, kind, created_at) VALUES"
                       " (%s, %s, %s, 'place', now()), (%s, %s, %s, 'place', now()) RETURNING id",
                       [scope.pk, "P\u0430ris", "p\u0430ris", scope.pk, "Pa\u200bris", "pa\u200bris"])
        look_alikes = [row[0] for row in cursor.fetchall()]
        cursor.execute("UPDATE cards_entity SET name_skeleton = '' WHERE id = %s", [paris.pk])
    migration = importlib.import_module("cards.migrations.0019_name_skeletons")
    migration.fill_skeletons(apps, None)
    migration.propose_look_alikes(apps, type("Editor", (), {"connection": connection})())
    assert {e.name_skeleton for e in Entity.objects.filter(pk__in=[paris.pk, *look_alikes])} == {
        name_skeleton("Paris")}
    proposed = set(PossibleDuplicate.objects.values_list("entity_id", "similar_to_id", "score"))
    assert {(look_alikes[0], paris.pk, 1.0), (look_alikes[1], paris.pk, 1.0)} <= proposed
    assert not Entity.objects.filter(merged_into__isnull=False).exists()
    assert Card.objects.count() == 0
