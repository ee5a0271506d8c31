"""The demo seed (idempotent, written through the services), the review queue it leaves to try, and the
admin pages it is meant for."""

import io
import re

import pytest
from django.core.management import call_command
from django.urls import reverse
from guardian.shortcuts import get_perms

from cards.models import AuditEvent, Card, CardPerspective, CardRevision
from cards.selectors.cards import card_history
from scopes.models import Membership, Scope, ScopeKind, User
from scopes.relations import relations_of

pytestmark = pytest.mark.django_db

DEMO_USERS = {"dana", "sam", "kai"}


def seed() -> str:
    out = io.StringIO()
    call_command("seed_demo", stdout=out)
    return out.getvalue()


@pytest.fixture
def household():
    seed()
    return {user.username: user for user in User.objects.filter(username__in=DEMO_USERS)}


@pytest.fixture
def admin_client(client, household):
    client.force_login(household["dana"])
    return client


def family() -> Scope:
    return Scope.objects.get(kind=ScopeKind.FAMILY, memberships__user__username="dana")


def test_seed_creates_three_users_with_personal_scopes(household):
    assert set(household) == DEMO_USERS
    for user in household.values():
        assert user.time_zone == "Europe/Lisbon"
        assert user.personal_scope.kind == ScopeKind.PERSONAL
        assert user.check_password("memory-demo")
    assert household["dana"].is_superuser and household["dana"].is_staff
    assert not household["kai"].is_staff


def test_family_scope_has_three_memberships_with_relations(household):
    memberships = {m.user.username: m for m in Membership.objects.filter(scope=family()).select_related("user")}
    assert set(memberships) == DEMO_USERS
    relations = {(r.member.username, r.of.username): r.relation for r in relations_of(scope=family())}
    assert relations == {("dana", "kai"): "mother", ("dana", "sam"): "wife", ("sam", "kai"): "father",
                         ("sam", "dana"): "husband", ("kai", "dana"): "son", ("kai", "sam"): "son"}
    assert memberships["dana"].role == "owner"
    assert memberships["kai"].minor and not memberships["sam"].minor  # a child: Dana is his guardian
    # Roles went through membership_set, so guardian grants match them.
    assert "write_scope" not in get_perms(household["kai"], family())
    assert "view_scope" in get_perms(household["kai"], family())


def test_seed_writes_a_few_dozen_cards_of_every_kind(household):
    cards = Card.objects.filter(source_actor__username__in=DEMO_USERS)
    assert cards.count() >= 30
    assert {"state", "event", "knowledge"} <= set(cards.values_list("kind", flat=True))
    assert cards.filter(kind="event", occurred_at__isnull=True).count() == 1
    assert cards.filter(kind="event", occurred_at__isnull=False).count() >= 5
    assert cards.filter(label__key="skill", subject=household["dana"].entity).count() >= 2


def test_address_chain_reads_in_order(household):
    dana = household["dana"]
    current = Card.objects.get(subject=dana.entity, label__key="address", superseded_at__isnull=True)
    history = card_history(card=current)
    assert len(history) == 3
    assert [c.effective_at for c in history] == sorted(c.effective_at for c in history)
    for older, newer in zip(history, history[1:]):
        assert older.superseded_by_id == newer.pk
        assert older.superseded_at == newer.effective_at
    assert history[-1].pk == current.pk
    assert history[-1].value.endswith("Lisbon")


@pytest.mark.parametrize("username", ["dana", "sam"])
def test_exactly_one_current_address_per_adult(household, username):
    entity = household[username].entity
    assert Card.objects.filter(subject=entity, label__key="address", superseded_at__isnull=True).count() == 1
    assert Card.objects.filter(subject=entity, label__key="address").count() == 3


def test_perspectives_and_corrected_description(household):
    party = Card.objects.get(scope=family(), label__key="party")
    phrasings = dict(CardPerspective.objects.filter(card=party).values_list("user__username", "text"))
    assert phrasings == {"sam": "wife's birthday — prepare a gift", "kai": "mom's birthday — prepare a cake"}
    revision = CardRevision.objects.get(card__scope=family(), card__label__key="trip")
    assert "four days" in revision.before and "five days" in revision.after
    assert revision.card.text == revision.after


def test_the_family_asks_about_each_other_from_what_each_chose_to_share(household):
    """Issue 47: as Dana, "Where does Sam work?" had no record; Sam shares his job title, address and
    skills with the family, Dana her birthday and allergy — and nothing else is read."""
    from cards.answers.ask import ask_read
    from scopes.principals import Principal

    dana, sam = Principal(household["dana"]), Principal(household["sam"])
    assert ask_read(principal=dana, scope_id=None, question="What is Sam's job?")["values"] == ["Head nurse"]
    assert ask_read(principal=dana, scope_id=family().pk, question="Sam 住在哪裡？")["tier"] == "recorded"
    assert ask_read(principal=dana, scope_id=None, question="What car does Sam drive?")["tier"] == "no_evidence"
    assert ask_read(principal=sam, scope_id=None, question="What is Dana allergic to?")["values"] == ["Penicillin"]
    assert ask_read(principal=sam, scope_id=None, question="Where does Dana work?")["tier"] == "no_evidence"


def test_running_the_seed_twice_changes_nothing(household):
    from cards.models import Rule
    from review.models import Candidate
    from scopes.models import AgentToken

    def counts():
        return (Card.objects.count(), User.objects.count(), Candidate.objects.count(), AgentToken.objects.count(),
                Rule.objects.count(), Membership.objects.count())

    before = counts()
    output = seed()
    assert "already exists" in output
    assert counts() == before
    assert Scope.objects.filter(kind=ScopeKind.FAMILY).count() == 1


# --- the review queue, to try at once (issue 20) --------------------------------------------------

def test_the_family_queue_waits_with_proposals_a_guess_and_a_contradiction(household):
    from review.selectors import review_queue
    from scopes.principals import Principal

    queue = review_queue(principal=Principal(household["dana"]), scope=family())
    candidates = queue["candidates"]
    assert len(candidates) >= 5
    # Some from an agent's propose-only token, some read from a conversation; one held for consent.
    agents = {c.proposed_by.name for c in candidates if c.proposed_by_id}
    assert agents == {"Kitchen tablet", "Sam's phone"}
    assert all(c.proposed_by.proposes for c in candidates if c.proposed_by_id)
    read = [c for c in candidates if c.extractor == "patterns"]
    assert {c.author.username for c in read} == {"sam"} and all(c.quote and c.session for c in read)
    assert any(c.status == "needs_consent" for c in candidates)
    # A `when` to fix: read against its message, in Lisbon's day.
    madrid = next(c for c in read if c.value == "Madrid")
    assert (madrid.when, madrid.anchor_zone, madrid.precision) == ("last weekend", "Europe/Lisbon", "day")
    assert madrid.occurred_at is not None and madrid.occurred_at < madrid.message_at
    assert [card.value for card in queue["hypotheses"]] == ["Marine biology"]
    sides = {tuple(sorted(Card.objects.get(pk=pk).value for pk in c.card_ids)) for c in queue["contradictions"]}
    assert ("Data analyst", "Senior data analyst") in sides


def test_a_draft_rule_waits_for_dana_who_reviews_common_sense(household):
    from cards.models import RuleStatus
    from review.selectors import review_queue
    from review.services.queue import rule_decide
    from scopes.principals import Principal
    from scopes.services import global_scope_get

    common = Scope.objects.visible_to(Principal(household["dana"]), "review").get(pk=global_scope_get().pk)
    rules = review_queue(principal=Principal(household["dana"]), scope=common)["rules"]
    assert [(r.name, r.status, r.author.username) for r in rules] == [
        ("Children live where a parent lives", RuleStatus.DRAFT, "sam")]
    rule_decide(rule=rules[0], reviewer=household["dana"], approve=True, reason="")  # not its author: she may
    rules[0].refresh_from_db()
    assert rules[0].status == RuleStatus.APPROVED


def test_each_agents_proposals_wait_in_its_persons_own_part_too(household):
    from review.selectors import own_proposals
    from scopes.principals import Principal

    sams = own_proposals(principal=Principal(household["sam"]))
    assert [(c.label, c.value, c.proposed_by.name) for c in sams] == [("hobby", "Sourdough baking", "Sam's phone")]
    assert {c.value for c in own_proposals(principal=Principal(household["dana"]))} == {"Dentist check-up",
                                                                                        "Sunfish"}


def test_the_seeded_queue_opens_and_its_proposals_can_be_decided_on_the_page(admin_client):
    from review.models import Candidate, CandidateStatus

    page = admin_client.get(reverse("review-scope", args=[family().pk])).content.decode()
    assert "proposed by the agent “Kitchen tablet”" in page and "I went to Madrid last weekend" in page
    sunfish = Candidate.objects.get(scope=family(), value="Sunfish")
    answer = admin_client.post(reverse("review-bulk", args=[family().pk]),
                               {"candidates": [sunfish.pk], "decision": "approve"})
    assert answer.status_code == 302
    sunfish.refresh_from_db()
    assert sunfish.status == CandidateStatus.APPROVED and sunfish.card.subject.name == "Kai"


def test_the_seed_says_what_waits_for_review():
    output = seed()
    assert re.search(r"\d+ proposals waiting for review \(3 from 2 agents\), with a guess, a contradiction "
                     r"and a draft rule\.", output), output


@pytest.mark.parametrize("model", ["cards_card", "scopes_scope", "cards_entity", "cards_label",
                                   "scopes_user", "scopes_membership", "cards_alias", "cards_auditevent"])
def test_admin_changelists_load_for_the_superuser(admin_client, model):
    response = admin_client.get(reverse(f"admin:{model}_changelist"))
    assert response.status_code == 200
    assert admin_client.get(reverse(f"admin:{model}_changelist"), {"q": "dana"}).status_code == 200


def test_admin_change_pages_load(admin_client):
    event = Card.objects.filter(kind="event", perspectives__isnull=False).first()
    for url in (reverse("admin:cards_card_change", args=[event.pk]),
                reverse("admin:scopes_scope_change", args=[family().pk]),
                reverse("admin:cards_entity_change", args=[event.subject_id]),
                reverse("admin:cards_label_change", args=[event.label_id])):
        assert admin_client.get(url).status_code == 200


def form_data(response) -> dict:
    """What the change form would post back unchanged, read from the rendered form."""
    data = {}
    forms = [response.context["adminform"].form]
    for inline in response.context["inline_admin_formsets"]:
        forms += [inline.formset.management_form, *inline.formset.forms]
    for form in forms:
        for field in form:
            value = field.value()
            if value is not None and value is not False:
                data[field.html_name] = value
    return data


def test_admin_cannot_change_an_events_immutable_fields(admin_client):
    event = Card.objects.get(scope=family(), label__key="wedding")
    url = reverse("admin:cards_card_change", args=[event.pk])
    data = form_data(admin_client.get(url))
    assert not {"value", "occurred_at", "subject", "scope", "kind", "precision"} & set(data)
    data.update(value="Someone else's wedding", occurred_at="2001-01-01 00:00:00", kind="state",
                text="Dana and Sam got married by the sea, with Kai's grandparents there.")
    response = admin_client.post(url, data)
    assert response.status_code == 302, response.context and response.context["adminform"].form.errors
    after = Card.objects.get(pk=event.pk)
    assert (after.value, after.occurred_at, after.kind) == (event.value, event.occurred_at, "event")
    # The description changed through card_describe, so the old one is kept.
    assert after.text.startswith("Dana and Sam got married by the sea, with")
    assert CardRevision.objects.filter(card=event, before=event.text).exists()


def test_admin_cannot_add_cards_and_deleting_an_event_forgets_it(admin_client):
    assert admin_client.get(reverse("admin:cards_card_add")).status_code == 403
    event = Card.objects.filter(kind="event").first()
    response = admin_client.post(reverse("admin:cards_card_delete", args=[event.pk]), {"post": "yes"})
    assert response.status_code == 302
    assert not Card.objects.filter(pk=event.pk).exists()
    assert AuditEvent.objects.filter(action="card.forgotten", object_id=event.pk).exists()


def test_admin_created_user_gets_personal_scope(admin_client):
    response = admin_client.post(reverse("admin:scopes_user_add"), {
        "username": "robin", "display_name": "Robin", "time_zone": "Europe/Lisbon",
        "usable_password": "true", "password1": "a long demo passphrase", "password2": "a long demo passphrase"})
    assert response.status_code == 302, response.context and response.context["adminform"].form.errors
    robin = User.objects.get(username="robin")
    assert robin.personal_scope.kind == ScopeKind.PERSONAL
    assert robin.entity.name == "Robin"


def test_admin_membership_edit_keeps_grants_in_step(admin_client, household):
    url = reverse("admin:scopes_scope_change", args=[family().pk])
    data = form_data(admin_client.get(url))
    prefix = "memberships"
    index = next(i for i in range(3) if str(data[f"{prefix}-{i}-user"]) == str(household["kai"].pk))
    data[f"{prefix}-{index}-role"] = "member"
    response = admin_client.post(url, data)
    assert response.status_code == 302, response.context and response.context["inline_admin_formsets"]
    assert "write_scope" in get_perms(household["kai"], family())


def test_the_admin_will_not_make_a_minor_an_owner(admin_client, household):
    url = reverse("admin:scopes_scope_change", args=[family().pk])
    data = form_data(admin_client.get(url))
    index = next(i for i in range(3) if str(data[f"memberships-{i}-user"]) == str(household["kai"].pk))
    data[f"memberships-{index}-role"] = "owner"
    response = admin_client.post(url, data)
    assert response.status_code == 200 and b"A minor cannot be an owner" in response.content
    assert Membership.objects.get(scope=family(), user=household["kai"]).role == "viewer"


def test_adding_someone_in_the_admin_invites_them_and_they_join_on_accepting(admin_client, household):
    from scopes.models import Invitation

    robin = User.objects.create_user(username="robin", password="a long demo passphrase")
    url = reverse("admin:scopes_scope_change", args=[family().pk])
    data = form_data(admin_client.get(url))
    total = int(data["memberships-TOTAL_FORMS"])
    data.update({"memberships-TOTAL_FORMS": str(total + 1), f"memberships-{total}-user": str(robin.pk),
                 f"memberships-{total}-role": "member", f"memberships-{total}-scope": str(family().pk)})
    response = admin_client.post(url, data, follow=True)
    assert response.status_code == 200 and "is invited as member: they join when they accept" in response.content.decode()
    assert not Membership.objects.filter(scope=family(), user=robin).exists()  # nothing reaches them yet
    invitation = Invitation.objects.get(scope=family(), invitee=robin)
    assert (invitation.status, invitation.role, invitation.invited_by) == ("invited", "member", household["dana"])
    robin_session = type(admin_client)()
    robin_session.force_login(robin)
    assert robin_session.post(f"/api/v1/invitations/{invitation.pk}/accept/").status_code == 200
    assert Membership.objects.get(scope=family(), user=robin).role == "member"


def test_the_admin_adds_no_one_to_a_personal_scope(admin_client, household):
    robin = User.objects.create_user(username="robin", password="a long demo passphrase")
    scope = household["dana"].personal_scope
    url = reverse("admin:scopes_scope_change", args=[scope.pk])
    data = form_data(admin_client.get(url))
    total = int(data["memberships-TOTAL_FORMS"])
    data.update({"memberships-TOTAL_FORMS": str(total + 1), f"memberships-{total}-user": str(robin.pk),
                 f"memberships-{total}-role": "viewer", f"memberships-{total}-scope": str(scope.pk)})
    response = admin_client.post(url, data)
    assert response.status_code == 200 and b"A personal scope has no other members." in response.content
    assert not Membership.objects.filter(scope=scope, user=robin).exists()
