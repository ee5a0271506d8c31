"""The visibility primitive, model by model: `visible_to(principal, action)` keeps
the rows of the scopes the principal may act in — narrowed by an agent token's
scopes and access — and `in_scopes(ids)` those of a read's scope ids.

The models come from the app registry: a new model that lives in a scope fails
here until it has a maker below, and then it is held to the same rules."""

from __future__ import annotations

import pytest
from django.db import connection
from django.http import Http404
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from cards.drafts import CardDraft
from cards.models import (Alias, AuditEvent, Card, CardAsked, CardPerspective, CardRevision, Entity,
                          PossibleDuplicate, Rule, RuleStatus)
from cards.services import alias_add, card_remember, entity_create
from core.errors import NotAllowed
from review.models import Candidate, Decision, IngestJob, Probe, Signal, UpkeepProposal, UpkeepRun
from scopes.invites import invitation_create, invite_create
from scopes.models import Invitation, Invite, MemberRelation, Membership, Scope, ScopeKind, Share
from scopes.relations import relation_set
from scopes.principals import Principal
from scopes.services import global_scope_get, membership_set
from scopes.tokens import token_create
from scopes.restriction import ScopedQuerySet
from scopes.selectors import scope_get
from scopes.visibility import row_get
from tests.factories import UserFactory, family_scope
from tests.scope_routing import distributed_tables, unrouted

pytestmark = pytest.mark.django_db


def _card(scope, owner, n=0) -> Card:
    return card_remember(scope=scope, actor=owner, draft=CardDraft(
        kind="state", label="hobby", subject="me", value=f"hobby {scope.pk}-{n}")).card


def _entity(scope, n=0) -> Entity:
    return entity_create(scope=scope, name=f"Thing {scope.pk}-{n}")


# One row of each scoped model in `scope`, written by its owner.
MAKERS = {
    Card: lambda scope, owner: _card(scope, owner),
    Entity: lambda scope, owner: _entity(scope),
    Alias: lambda scope, owner: alias_add(entity=_entity(scope), name=f"Alias {scope.pk}"),
    CardRevision: lambda scope, owner: CardRevision.objects.create(card=_card(scope, owner), actor=owner,
                                                                   at=timezone.now(), field="text", after="x"),
    CardPerspective: lambda scope, owner: CardPerspective.objects.create(card=_card(scope, owner), user=owner,
                                                                         text="my way"),
    CardAsked: lambda scope, owner: CardAsked.objects.create(card=_card(scope, owner), user=owner,
                                                             asked_at=timezone.now(),
                                                             card_verified_at=timezone.now()),
    PossibleDuplicate: lambda scope, owner: PossibleDuplicate.objects.create(
        entity=_entity(scope, 1), similar_to=_entity(scope, 2), score=0.9),
    AuditEvent: lambda scope, owner: AuditEvent.objects.create(actor=owner, action="looked", scope=scope,
                                                               object_type="card"),
    Candidate: lambda scope, owner: Candidate.objects.create(
        scope=scope, author=owner, kind="state", label="skill", subject="me", value="knit", quote="I knit",
        message_at=timezone.now(), extractor="patterns"),
    IngestJob: lambda scope, owner: IngestJob.objects.create(scope=scope, session="s-1", created_by=owner,
                                                             extractor="patterns"),
    Decision: lambda scope, owner: Decision.objects.create(scope=scope, reviewer=owner, item="candidate", item_id=1,
                                                           action="approve"),
    Probe: lambda scope, owner: Probe.objects.create(card=_card(scope, owner), user=owner),
    Membership: lambda scope, owner: Membership.objects.get(scope=scope, user=owner),
    Invite: lambda scope, owner: invite_create(scope=scope, role="member", created_by=owner)[0],
    # Visible to the scope's members (its managers act on it); the invitee's own read is by invitee (selectors).
    Invitation: lambda scope, owner: invitation_create(scope=scope, username=f"guest{scope.pk}", role="member",
                                                       invited_by=owner),
    MemberRelation: lambda scope, owner: _relation(scope, owner),
    # A row of the scope it is shared with: its members see what is shared with them.
    Share: lambda scope, owner: Share.objects.create(scope=scope, owner=owner, label_key="address"),
    Signal: lambda scope, owner: Signal.objects.create(scope=scope, author=owner, kind="blocker", subject="build",
                                                       key="build", day=timezone.now().date()),
    UpkeepProposal: lambda scope, owner: UpkeepProposal.objects.create(scope=scope, kind="promote",
                                                                       card=_card(scope, owner), why="impact"),
    UpkeepRun: lambda scope, owner: UpkeepRun.objects.create(scope=scope, at=timezone.now()),
    # The scope itself: restricted by the same primitive, by its own id.
    Scope: lambda scope, owner: scope,
}


def _relation(scope, owner) -> MemberRelation:
    friend = UserFactory()
    membership_set(scope=scope, user=friend, role="member")
    return relation_set(scope=scope, member=friend, of=owner, relation="friend")
# Rows that hold for everyone live in the global scope: tested on their own below.
GLOBAL_MODELS = {Rule}


def scoped_models():
    from django.apps import apps

    return [m for m in apps.get_models() if issubclass(m._default_manager._queryset_class, ScopedQuerySet)]


@pytest.fixture
def world(alice):
    """bob's three families: alice views `viewed`, writes in `written`, and is no member of `hidden`."""
    bob = UserFactory(username="bob")
    viewed, written, hidden = (family_scope(owner=bob, name=name) for name in ("Viewed", "Written", "Hidden"))
    membership_set(scope=viewed, user=alice, role="viewer")
    membership_set(scope=written, user=alice, role="member")
    return {"alice": alice, "bob": bob, "viewed": viewed, "written": written, "hidden": hidden}


def test_every_scoped_model_has_a_maker():
    missing = {m.__name__ for m in scoped_models()} - {m.__name__ for m in (*MAKERS, *GLOBAL_MODELS)}
    assert not missing, f"add a maker for {sorted(missing)}"


@pytest.mark.parametrize("model", sorted(MAKERS, key=lambda m: m.__name__), ids=lambda m: m.__name__)
def test_visible_to_keeps_the_rows_of_the_scopes_the_principal_may_act_in(world, model):
    rows = {name: MAKERS[model](world[name], world["bob"]).pk for name in ("viewed", "written", "hidden")}
    alice = Principal(world["alice"])

    def seen(principal, action="view", queryset=None) -> set[str]:
        found = set((queryset if queryset is not None else model.objects.visible_to(principal, action))
                    .filter(pk__in=rows.values()).values_list("pk", flat=True))
        return {name for name, pk in rows.items() if pk in found}

    assert seen(alice) == {"viewed", "written"}  # never a scope she is no member of
    assert seen(alice, "write") == {"written"}  # a viewer may not write
    assert seen(alice, "review") == set() and seen(alice, "manage") == set()
    assert seen(Principal(world["bob"]), "manage") == {"viewed", "written", "hidden"}

    token, _ = token_create(user=world["alice"], name="agent", scopes=[world["written"]])
    agent = Principal(world["alice"], token)
    assert seen(agent) == {"written"}  # the token's scopes narrow what its user sees
    assert seen(agent, "write") == set()  # and a read-only token writes nowhere
    writer, _ = token_create(user=world["alice"], name="writer", scopes=[world["viewed"], world["written"]],
                             can_write=True)
    assert seen(Principal(world["alice"], writer), "write") == {"written"}  # never more than the user has
    assert seen(Principal(world["alice"], writer), "review") == set()  # review stays with people

    assert seen(None, queryset=model.objects.in_scopes([world["viewed"].pk])) == {"viewed"}
    assert seen(None, queryset=model.objects.in_scopes([])) == set()


@pytest.mark.parametrize("model", sorted(MAKERS, key=lambda m: m.__name__), ids=lambda m: m.__name__)
def test_visible_to_is_one_query_whatever_the_rows(world, model):
    for name in ("viewed", "written", "hidden"):
        MAKERS[model](world[name], world["bob"])
    with CaptureQueriesContext(connection) as captured:
        list(model.objects.visible_to(Principal(world["alice"]), "view"))
    assert len(captured.captured_queries) == 1


def test_rules_hold_for_everyone_and_are_decided_by_the_reviewers_of_global(world):
    global_scope_get()
    rule = Rule.objects.create(name="tools", premises=[["?x", "is_a", "?k"]], conclusion=["?x", "used_for", "?k"],
                               status=RuleStatus.DRAFT)
    alice = Principal(world["alice"])
    token, _ = token_create(user=world["alice"], name="agent", scopes=[world["written"]])

    def sees(rules) -> bool:
        return rules.filter(pk=rule.pk).exists()

    assert sees(Rule.objects.visible_to(alice))
    assert sees(Rule.objects.visible_to(Principal(world["alice"], token)))  # global is read by all
    assert not Rule.objects.visible_to(alice, "review").exists()
    common = Scope.objects.get(kind=ScopeKind.GLOBAL)
    membership_set(scope=common, user=world["bob"], role="reviewer")
    assert sees(Rule.objects.visible_to(Principal(world["bob"]), "review"))
    assert sees(Rule.objects.in_scopes([common.pk]))
    assert not Rule.objects.in_scopes([world["viewed"].pk]).exists()


def test_row_get_is_404_for_the_unseen_and_403_for_the_seen_but_not_allowed(world):
    alice = Principal(world["alice"])
    viewed, hidden = _card(world["viewed"], world["bob"]), _card(world["hidden"], world["bob"])
    assert row_get(Card.objects.all(), principal=alice, pk=viewed.pk) == viewed
    with pytest.raises(Http404):
        row_get(Card.objects.all(), principal=alice, pk=hidden.pk)
    with pytest.raises(Http404):
        row_get(Card.objects.all(), principal=alice, pk=hidden.pk, action="write")  # not a 403: no hint it exists
    with pytest.raises(Http404):
        row_get(Card.objects.all(), principal=alice, pk=10**9)
    with pytest.raises(NotAllowed):
        row_get(Card.objects.all(), principal=alice, pk=viewed.pk, action="write")
    with CaptureQueriesContext(connection) as captured:
        row_get(Card.objects.all(), principal=Principal(world["bob"]), pk=viewed.pk, action="write")
    # The principal's scopes listed (one read of the permission tables: on a cluster, replicated), then the row
    # by them as constants, may see and may act answered together.
    assert len(captured.captured_queries) == 2
    listed, row = (query["sql"] for query in captured.captured_queries)
    assert not distributed_tables(listed) and distributed_tables(row) == {"cards_card"} and not unrouted(row)


def test_scope_get_is_the_one_row_read_of_a_scope_in_one_query(world):
    alice = Principal(world["alice"])
    assert scope_get(principal=alice, scope_id=world["viewed"].pk) == world["viewed"]
    for action in ("view", "write"):  # no 403 for the unseen: no hint it exists
        with pytest.raises(Http404):
            scope_get(principal=alice, scope_id=world["hidden"].pk, action=action)
    with pytest.raises(NotAllowed):
        scope_get(principal=alice, scope_id=world["viewed"].pk, action="write")
    with CaptureQueriesContext(connection) as captured:
        assert scope_get(principal=alice, scope_id=world["written"].pk, action="write") == world["written"]
    # The permission subqueries inside the scope's one read: no round trip to list them first.
    assert len(captured.captured_queries) == 1


def test_a_members_own_entity_comes_with_every_scope_they_belong_to(world):
    """Another member's own entity lives in their personal scope, and is who they
    are in every shared scope they belong to (DESIGN §3 "People are entities")."""
    card = _card(world["written"], world["bob"])
    bob_me, alice_me = world["bob"].entity, world["alice"].entity
    assert card.subject_id == bob_me.pk and bob_me.scope_id == world["bob"].personal_scope.pk
    assert bob_me.pk in set(Entity.objects.in_scopes([world["written"].pk]).values_list("pk", flat=True))
    assert alice_me.pk in set(Entity.objects.in_scopes([world["viewed"].pk]).values_list("pk", flat=True))
    # Not where they are no member.
    assert not Entity.objects.in_scopes([world["hidden"].pk]).filter(pk=alice_me.pk).exists()
    assert Entity.objects.in_scopes([world["hidden"].pk], named_by_cards=True).filter(pk=bob_me.pk).exists()


def test_an_entitys_names_from_scopes_the_caller_cannot_see_stay_hidden(world):
    from cards.api.entities import entity_get

    entity = _entity(world["viewed"])
    alias_add(entity=entity, name="Shown", scope=world["viewed"])
    alias_add(entity=entity, name="Secret", scope=world["hidden"])
    seen = entity_get(principal=Principal(world["alice"]), entity_id=entity.pk)
    assert [a.name for a in seen.aliases.all()] == ["Shown"]
    owner = entity_get(principal=Principal(world["bob"]), entity_id=entity.pk)
    assert sorted(a.name for a in owner.aliases.all()) == ["Secret", "Shown"]
