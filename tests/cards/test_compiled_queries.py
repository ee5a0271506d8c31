"""Queries compiled once and re-run with new values (core.compiled) must
give exactly what the ORM gives for the same values, and never outlive a change
of permissions: only the SQL is kept, never a result."""

import pytest
from django.utils import timezone
from django.db.models import Q
from django.db.models.expressions import RawSQL

from cards.selectors.shape import _CARDS_BY_ID, card_rows
from cards.drafts import CardDraft
from cards.models import Card, CardPerspective
from cards.services import card_remember
from core.compiled import Compiled
from scopes.models import LADDER_UP_SQL, MAX_LADDER_DEPTH, Scope, ScopeKind
from scopes.principals import Principal
from scopes.selectors import read_scope_ids
from scopes.services import membership_remove, membership_set, scope_create
from scopes.tokens import token_create
from tests.factories import UserFactory, family_scope

pytestmark = pytest.mark.django_db


def test_card_rows_equal_the_orms_for_each_reader():
    alice, bob = UserFactory(username="alice"), UserFactory(username="bob")
    family = family_scope(owner=alice)
    membership_set(scope=family, user=bob, role="member")
    cards = [card_remember(scope=family, actor=alice, draft=CardDraft(**fields)).card for fields in (
        {"kind": "state", "label": "city", "subject": "me", "value": "Kyoto", "text": "Moved in spring"},
        {"kind": "state", "label": "partner", "subject": "me", "object": "Ren"},
        {"kind": "event", "label": "trip", "subject": "Ben", "value": "Rome", "occurred_at": timezone.now()},
    )]
    CardPerspective.objects.create(card=cards[0], user=bob, text="Alice lives in Kyoto")
    ids = sorted(card.pk for card in cards)
    for reader in (alice, bob):
        expected = sorted(card_rows(Card.objects.filter(pk__in=ids), user=reader), key=lambda row: row["id"])
        got = sorted(_CARDS_BY_ID.rows({"ids": ids, "user_id": reader.pk}, scoped=False), key=lambda row: row["id"])
        assert got == expected and len(got) == 3
        # Within a read's scopes (recall's shaping): the same rows from them, none from elsewhere.
        within = _CARDS_BY_ID.rows({"ids": ids, "user_id": reader.pk, "scopes": [family.pk]}, scoped=True)
        assert sorted(within, key=lambda row: row["id"]) == expected
        assert _CARDS_BY_ID.rows({"ids": ids, "user_id": reader.pk, "scopes": [reader.personal_scope.pk]},
                                 scoped=True) == []
    mine = _CARDS_BY_ID.rows({"ids": ids[:1], "user_id": bob.pk}, scoped=False)
    assert mine[0]["perspective_text"] == "Alice lives in Kyoto"


def _orm_read_scope_ids(principal, scope_id):
    ladder = RawSQL(LADDER_UP_SQL, [scope_id, MAX_LADDER_DEPTH])
    return sorted(Scope.objects.visible_to(principal, "view")
                  .filter(Q(pk__in=ladder) | Q(owner_id=principal.user.pk, kind=ScopeKind.PERSONAL)
                          | Q(kind=ScopeKind.GLOBAL)).values_list("id", flat=True))


def test_read_scope_ids_equal_the_orms_and_follow_a_lost_grant_at_once():
    alice, bob = UserFactory(username="alice"), UserFactory(username="bob")
    team = scope_create(name="Team", kind=ScopeKind.TEAM, creator=alice)
    project = scope_create(name="Project", kind=ScopeKind.PROJECT, creator=alice, parent=team)
    membership_set(scope=team, user=bob, role="member")
    membership_set(scope=project, user=bob, role="member")
    narrowed, _ = token_create(user=bob, name="narrow", scopes=[project])
    broad, _ = token_create(user=bob, name="broad", all_scopes=True, can_write=True)
    principals = [Principal(user=bob), Principal(user=bob, token=narrowed), Principal(user=bob, token=broad),
                  Principal(user=alice)]
    for principal in principals:
        expected = _orm_read_scope_ids(principal, project.pk)
        assert sorted(read_scope_ids(principal=principal, scope_id=project.pk)) == expected
    assert team.pk not in read_scope_ids(principal=principals[1], scope_id=project.pk)  # the token's own narrowing
    assert team.pk in read_scope_ids(principal=principals[2], scope_id=project.pk)
    membership_remove(scope=team, user=bob)
    for principal in principals[:3]:
        assert team.pk not in read_scope_ids(principal=principal, scope_id=project.pk)
        assert sorted(read_scope_ids(principal=principal, scope_id=project.pk)) == _orm_read_scope_ids(
            principal, project.pk)


def test_a_query_whose_sql_changes_with_its_values_is_never_cached():
    # A slice becomes a LIMIT written into the SQL; an empty list makes Django
    # drop the query altogether: in neither case does one text serve every value.
    limited = Compiled(lambda *, user_id: Scope.objects.filter(owner_id=user_id).values("id")[
        : 1 if user_id > -7_315_000_000_000 else 2], "user_id")
    emptied = Compiled(lambda *, user_id: Scope.objects.filter(
        pk__in=[] if user_id < -7_315_000_000_000 else [user_id]).values("id"), "user_id")
    for compiled in (limited, emptied):
        with pytest.raises(ValueError, match="the SQL changes with the values"):
            compiled.rows({"user_id": 1})


def test_two_narrowed_tokens_share_one_compiled_query_and_keep_their_own_scopes():
    bob = UserFactory(username="bob")
    team = scope_create(name="Team", kind=ScopeKind.TEAM, creator=bob)
    project = scope_create(name="Project", kind=ScopeKind.PROJECT, creator=bob, parent=team)
    only_project, _ = token_create(user=bob, name="project", scopes=[project])
    with_team, _ = token_create(user=bob, name="team too", scopes=[project, team])
    for _ in range(3):  # alternately, through the same cached SQL
        assert team.pk not in read_scope_ids(principal=Principal(user=bob, token=only_project), scope_id=project.pk)
        assert team.pk in read_scope_ids(principal=Principal(user=bob, token=with_team), scope_id=project.pk)


def test_a_value_the_compiled_sql_never_sees_is_refused():
    compiled = Compiled(lambda *, user_id, scope_id, extra=None: Scope.objects.filter(
        owner_id=user_id, pk=scope_id).values("id"), "user_id", "scope_id", "extra")
    assert compiled.rows({"user_id": 1, "scope_id": 2}) == []
    with pytest.raises(ValueError, match="takes"):
        compiled.rows({"user_id": 1, "scope_id": 2, "extra": 3})
    with pytest.raises(ValueError, match="takes"):
        compiled.rows({"user_id": 1})


def test_the_token_brings_its_user_and_entity_in_one_logged_statement(django_assert_num_queries):
    from cards.selectors.entities import entity_of_user
    from scopes.tokens import token_authenticate

    alice = UserFactory(username="alice")
    _, raw = token_create(user=alice, name="agent", all_scopes=True)
    token_authenticate(raw)  # the first use stamps last_used_at; the next ones read only
    with django_assert_num_queries(1) as captured:  # prepared statements are counted and logged like any other
        token = token_authenticate(raw)
        assert entity_of_user(token.user).pk == entity_of_user(alice).pk
    assert '"scopes_agenttoken"' in captured.captured_queries[0]["sql"]
    # Only the user's companions from the apps above (their entity): the personal
    # scope is the ladder's own row, which no request reads from the token's user.
    assert '"scopes_scope"' not in captured.captured_queries[0]["sql"]
    assert token.user.pk == alice.pk and token.user.username == "alice" and token.user.is_active
    assert token.user.entity.user_id == alice.pk


def test_compiled_queries_run_unprepared_when_prepared_statements_are_off():
    # DATABASE_PREPARED_STATEMENTS=false (a pooler that cannot keep them) sets
    # psycopg's prepare_threshold to None: the same queries run, nothing is prepared.
    from django.db import connection

    alice = UserFactory(username="alice")
    connection.ensure_connection()
    raw = connection.connection
    kept = raw.prepare_threshold
    raw.prepare_threshold = None
    try:
        ids = read_scope_ids(principal=Principal(user=alice), scope_id=alice.personal_scope.pk)
        with connection.cursor() as cursor:
            cursor.execute("SELECT count(*) FROM pg_prepared_statements WHERE statement LIKE '%%scopes_scope%%'")
            prepared = cursor.fetchone()[0]
    finally:
        raw.prepare_threshold = kept
    assert alice.personal_scope.pk in ids and prepared == 0


@pytest.mark.parametrize("value, threshold", [("false", "None"), ("true", str(2**31 - 1))])
def test_database_prepared_statements_setting(value, threshold):
    import os
    import subprocess
    import sys
    from pathlib import Path

    code = ("from django.conf import settings; "
            "print(settings.DATABASES['default']['OPTIONS']['prepare_threshold'])")
    env = {**os.environ, "DJANGO_SETTINGS_MODULE": "memory_site.settings", "DATABASE_PREPARED_STATEMENTS": value}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True,
                         cwd=Path(__file__).resolve().parents[2])
    assert out.stdout.strip().splitlines()[-1] == threshold


def test_the_binders_compiled_query_equals_the_orms_for_names_and_relation_words():
    from cards.selectors.entities import _BOUND, _bound_query
    from cards.services import alias_add, entity_create
    from cards.services.entities import entity_merge
    from scopes.relations import relation_set

    dana, sam = UserFactory(username="dana", display_name="Dana"), UserFactory(username="sam")
    family = family_scope(owner=dana)
    membership_set(scope=family, user=sam, role="member")
    relation_set(scope=family, member=dana, of=sam, relation="wife")
    miso = entity_create(scope=family, name="Miso")
    alias_add(entity=miso, name="Kitty", scope=family)
    entity_merge(duplicate=entity_create(scope=family, name="Mimi"), into=miso)
    scopes = [family.pk, sam.personal_scope.pk]
    cases = [("miso", "Miso", None, None), ("kitty", "Kitty", None, None), ("mimi", "Mimi", None, None),
             ("dana", "Dana", None, None), ("my wife", "my wife", sam.pk, ["spouse", "wife"])]
    for norm, name, speaker, keys in cases:
        related = keys is not None
        values = {"scopes": scopes, "norm": norm, "name": name}
        if related:
            values.update(speaker=speaker, keys=keys)
        expected = sorted(_bound_query(related=related, **{"speaker": None, "keys": None, **values}),
                          key=lambda row: row["id"])
        got = sorted(_BOUND.rows(values, related=related), key=lambda row: row["id"])
        assert got == expected and got, name


def test_the_look_alike_sets_compiled_once_equal_the_orms():
    # The entities a new name is compared with (its scope's ladder, global, the
    # members' own: in_scopes of ladder_seen_ids) and those a read's "did you
    # mean" searches (in_scopes): compiled once, they must keep giving what the
    # ORM gives for each scope.
    from cards.models import Entity
    from cards.selectors.entities import _IN_SCOPES
    from cards.services import entity_create
    from scopes.models import ladder_seen_ids
    from scopes.services import global_scope_get

    dana, sam, eve = UserFactory(username="dana"), UserFactory(username="sam"), UserFactory(username="eve")
    team = scope_create(name="Team", kind=ScopeKind.TEAM, creator=dana)
    project = scope_create(name="Project", kind=ScopeKind.PROJECT, creator=dana, parent=team)
    family = family_scope(owner=sam)
    membership_set(scope=project, user=sam, role="member")
    for scope, name in ((team, "Anna"), (project, "Annabel"), (family, "Ann"), (eve.personal_scope, "Anne")):
        entity_create(scope=scope, name=name)
    for scope in (project, team, family, eve.personal_scope):
        ladder = ladder_seen_ids(scope.pk)
        assert ladder == sorted([scope.pk, *scope.ancestor_ids(), global_scope_get().pk])
        expected = sorted(Entity.objects.in_scopes(ladder).values_list("id", flat=True))
        assert sorted(row["id"] for row in _IN_SCOPES.rows({"scopes": ladder})) == expected and expected
    for scope_ids in ([project.pk], [project.pk, team.pk, sam.personal_scope.pk], [family.pk]):
        expected = sorted(Entity.objects.in_scopes(scope_ids).values_list("id", flat=True))
        assert sorted(row["id"] for row in _IN_SCOPES.rows({"scopes": scope_ids})) == expected and expected
    assert len(_IN_SCOPES._by_key) == 1


def test_new_names_share_one_compiled_look_alike_query_and_are_still_proposed(monkeypatch):
    # Every new name on the write path proposes its look-alikes: the query of what
    # it is compared with is built once per process (the two sentinel compiles),
    # not once per entity, and a member's own entity is still among them.
    from cards.models import PossibleDuplicate
    from cards.selectors.entities import _IN_SCOPES
    from cards.services import entity_create

    builds = []
    build = _IN_SCOPES._build
    monkeypatch.setattr(_IN_SCOPES, "_build", lambda **shape: builds.append(shape) or build(**shape))
    monkeypatch.setattr(_IN_SCOPES, "_by_key", {})
    dana, sam = UserFactory(username="dana", display_name="Dana"), UserFactory(username="sam")
    family = family_scope(owner=sam)
    membership_set(scope=family, user=dana, role="member")
    names = {name: entity_create(scope=family, name=name) for name in ("Anna", "Annie", "Danna", "Kettle")}
    assert len(builds) == 2
    proposed = set(PossibleDuplicate.objects.values_list("entity_id", "similar_to_id"))
    assert (names["Annie"].pk, names["Anna"].pk) in proposed
    assert (names["Danna"].pk, dana.entity.pk) in proposed
    assert not {pair for pair in proposed if names["Kettle"].pk in pair}
