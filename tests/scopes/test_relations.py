"""Relation words and the migration of one-word relations into pairs."""

import importlib

import pytest

from scopes.relations import relation_key, relation_keys_meant

migration = importlib.import_module("scopes.migrations.0005_member_relations")


@pytest.mark.parametrize("word, key", [
    ("Mom", "mother"), ("my mom", "mother"), ("媽媽", "mother"), ("我媽", "mother"), ("My Wife", "wife"),
    ("老婆", "wife"), ("我的老公", "husband"), ("dad", "father"), ("mother", "mother"), ("team lead", "manager"),
    ("Dana", None), ("my friend's mom", None), ("", None),
    # Compounds bind to their own meaning, never to the relation they start with.
    ("mother-in-law", "mother_in_law"), ("my Mom in law", "mother_in_law"), ("婆婆", "mother_in_law"),
    ("stepdad", "step_father"), ("step-daughter", "step_daughter"), ("half sister", "half_sister"),
    ("godmother", "god_mother"), ("乾爹", "god_father"), ("friend from school", "friend"),
    ("best friend", "friend"), ("colleague from my old job", "colleague"), ("ex-wife", None),
    ("running buddy", None),
])
def test_relation_words_name_their_relation(word, key):
    assert relation_key(word) == key


def test_a_general_word_means_the_narrower_relations_too():
    assert relation_keys_meant("my partner") == {"partner", "wife", "husband", "spouse"}
    assert relation_keys_meant("kid") == {"child", "son", "daughter"}
    assert relation_keys_meant("Mom") == {"mother"}
    assert relation_keys_meant("Sam") == set()
    assert relation_keys_meant("my parent-in-law") == {"parent_in_law", "mother_in_law", "father_in_law"}


def test_one_word_relations_become_pairs_read_from_one_side():
    pairs = set(migration._pairs({1: "mother", 2: "father", 3: "child", 4: "child"}))
    assert (1, 3, "mother") in pairs and (2, 3, "father") in pairs
    assert (3, 1, "child") in pairs and (3, 4, "sibling") in pairs
    assert (1, 2, "wife") in pairs and (2, 1, "husband") in pairs
    assert not any(member == of for member, of, _ in pairs)
    team = set(migration._pairs({1: "lead", 2: "", 3: "engineer"}))
    assert (1, 3, "manager") in team and (3, 1, "report") in team
