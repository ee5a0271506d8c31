"""The weekly upkeep (DESIGN §10) on a month of daily notes (tests/review/upkeep_month.py):
it proposes exactly what a careful person would, into the review queue; nothing changes a
card until a person approves; a demotion leaves MEMORY.md and is annotated stale in its
daily note; agent tokens never decide; a dry run writes nothing; the command and the task run."""

from __future__ import annotations

import io

import pytest
from django.conf import settings
from django.core.management import call_command

from cards.transfer.export_markdown import daily_notes, memory_md
from cards.models import Alias, Card, CardRevision, Entity
from cards.selectors.export import export_document
from cards.services import card_forget, card_verify
from core.errors import DomainError
from review.models import Decision, UpkeepProposal, UpkeepRun, UpkeepStatus
from review.selectors import upkeep_shown
from review.services.upkeep import upkeep_decide, upkeep_run
from review.tasks import upkeep_scope, upkeep_weekly
from scopes.principals import Principal
from scopes.tokens import token_create
from scopes.zones import person_zone

from .upkeep_month import NOW, month_of_notes

pytestmark = pytest.mark.django_db


@pytest.fixture
def month(alice):
    return month_of_notes(alice)


def _proposed(scope) -> set[tuple]:
    return set(UpkeepProposal.objects.filter(scope=scope, status=UpkeepStatus.OPEN)
               .values_list("kind", "card_id", "why", "other_id"))


def _expected(c) -> set[tuple]:
    """What a careful person would tidy in the garden on 30 Nov (see upkeep_month's docstring)."""
    return {
        ("promote", c["pruning"].pk, "sessions", None),
        ("promote", c["planting"].pk, "impact", None),
        ("demote", c["taipei"].pk, "contradicted", c["kyoto"].pk),
        ("demote", c["acme"].pk, "stale", None),
        ("merge", c["greenhouse"].pk, "same_name", c["greenhouse_again"].pk),
        ("merge", c["postgresql"].pk, "merged", c["postgres"].pk),
        ("merge", c["kubernetes"].pk, "alias", c["k8s"].pk),
    }


def _store_state():
    """Every row a fact lives in, as it stands."""
    return (list(Card.objects.order_by("pk").values()), list(CardRevision.objects.order_by("pk").values()),
            list(Entity.objects.order_by("pk").values()), list(Alias.objects.order_by("pk").values()))


def test_a_month_of_notes_gets_exactly_the_proposals_a_careful_person_would_make(month, alice):
    c = month.cards
    # The month as it was approved: what a person approved as proposed for long-term is long-term.
    assert {name for name, card in c.items() if card.long_term_at} == {"taipei", "roses", "acme"}
    assert c["roses"].long_term_by == alice and c["tulips"].long_term_at is None  # never a guess

    summary = upkeep_run(month.garden, now=NOW)

    assert _proposed(month.garden) == _expected(c)
    run = UpkeepRun.objects.get(scope=month.garden)
    assert (run.promotions, run.demotions, run.merges, run.already_waiting, run.proposals) == (2, 2, 3, 0, 7)
    assert not summary.dry_run and len(summary.proposed) == 7
    # Each says why, with dates as the reviewer reads them (her zone, her language).
    shown = {(u["kind"], u["card"]["id"]): u["reason"] for u in upkeep_shown(
        list(UpkeepProposal.objects.filter(scope=month.garden)), user=alice)}
    assert shown[("promote", c["pruning"].pk)] == "seen in 3 sessions: Nov 2, 2026; Nov 9, 2026; Nov 16, 2026"
    assert shown[("promote", c["planting"].pk)].startswith("impact 3 (recorded ")
    assert shown[("demote", c["taipei"].pk)] == "a later card says otherwise (stated Nov 20, 2026)"
    assert shown[("demote", c["acme"].pk)] == "not confirmed since Mar 2, 2026 (180+ days)"
    assert shown[("merge", c["greenhouse"].pk)] == \
        "the same knowledge about “Greenhouse”, by the same name (stated Nov 6, 2026 and Nov 18, 2026)"
    assert "“PostgreSQL” and “Postgres”: one name was merged" in shown[("merge", c["postgresql"].pk)]
    assert "“Kubernetes” and “K8s”: one is a registered alias" in shown[("merge", c["kubernetes"].pk)]


def test_running_upkeep_writes_no_fact_and_never_duplicates_what_waits(month):
    before = _store_state()
    upkeep_run(month.garden, now=NOW)
    again = upkeep_run(month.garden, now=NOW)
    assert _store_state() == before
    assert UpkeepProposal.objects.filter(scope=month.garden).count() == 7
    assert (again.proposed, again.already_waiting) == ([], 7)
    assert list(UpkeepRun.objects.filter(scope=month.garden).values_list("promotions", "already_waiting")) == \
        [(0, 7), (2, 0)]


def test_a_dry_run_writes_nothing_and_says_what_it_would_propose(month):
    before = _store_state()
    summary = upkeep_run(month.garden, now=NOW, dry_run=True)
    assert {(f.kind, f.card_id, f.why, f.other_id) for f in summary.proposed} == _expected(month.cards)
    assert _store_state() == before
    assert not UpkeepProposal.objects.exists() and not UpkeepRun.objects.exists()


def _open(scope, kind, card) -> UpkeepProposal:
    return UpkeepProposal.objects.get(scope=scope, kind=kind, card=card, status=UpkeepStatus.OPEN)


def test_an_approved_demotion_leaves_memory_md_and_is_annotated_stale_in_its_daily_note(month, alice, as_user):
    c = month.cards
    upkeep_run(month.garden, now=NOW)
    document = export_document(principal=Principal(alice), scope_id=month.garden.pk)
    assert f"<!-- card:{c['taipei'].pk} -->" in memory_md(document, person_zone(alice))

    proposal = _open(month.garden, "demote", c["taipei"])
    answer = as_user(alice).post(f"/api/v1/review/upkeep/{proposal.pk}/approve/", {"reason": "we moved"},
                                 format="json")
    assert answer.status_code == 200 and answer.json()["status"] == "approved"

    card = Card.objects.get(pk=c["taipei"].pk)
    assert (card.value, card.superseded_at, card.long_term_at) == ("Taipei", None, None)
    assert (card.demoted_why, card.demoted_by) == ("contradicted", alice)
    # Its history is kept: long-term, then demoted, each with who and why.
    assert list(CardRevision.objects.filter(card=card).order_by("at", "id").values_list("field", "before", "after")) \
        == [("long_term", "", "long-term"), ("long_term", "long-term", "demoted (contradicted)")]
    document = export_document(principal=Principal(alice), scope_id=month.garden.pk)
    tz = person_zone(alice)
    assert f"<!-- card:{card.pk} -->" not in memory_md(document, tz)
    note = daily_notes(document, tz)["memory/2026-11-03.md"]
    demoted_on = card.demoted_at.astimezone(tz).date().isoformat()
    assert f"- stale · me · city: Taipei (demoted {demoted_on}: contradicted) <!-- card:{card.pk} -->" in note
    decision = Decision.objects.get(item="upkeep", item_id=proposal.pk)
    assert (decision.reviewer, decision.action, decision.reason, decision.scope_id) == (
        alice, "approve", "we moved", month.garden.pk)
    again = as_user(alice).post(f"/api/v1/review/upkeep/{proposal.pk}/approve/", {}, format="json")
    assert again.status_code == 409 and again.json()["code"] == "already_decided"


def test_approving_applies_through_the_store_and_a_rejection_stands_until_something_new_is_said(month, alice):
    c = month.cards
    upkeep_run(month.garden, now=NOW)
    upkeep_decide(proposal=_open(month.garden, "promote", c["pruning"]), reviewer=alice, approve=True)
    upkeep_decide(proposal=_open(month.garden, "merge", c["postgresql"]), reviewer=alice, approve=True)
    upkeep_decide(proposal=_open(month.garden, "demote", c["acme"]), reviewer=alice, approve=False,
                  reason="still there")
    pruning, postgres = Card.objects.get(pk=c["pruning"].pk), Card.objects.get(pk=c["postgres"].pk)
    assert pruning.long_term_by == alice and pruning.long_term_at is not None
    assert postgres.superseded_by_id == c["postgresql"].pk
    assert Card.objects.get(pk=c["acme"].pk).long_term_at is not None  # rejected: nothing changed
    assert list(Decision.objects.filter(item="upkeep").order_by("id").values_list("action", flat=True)) == \
        ["approve", "approve", "reject"]
    later = upkeep_run(month.garden)  # now: after the merge was applied
    assert later.proposed == []  # the rejection stands; the applied ones are done


def test_agent_tokens_never_decide_upkeep_proposals(month, alice, api):
    upkeep_run(month.garden, now=NOW)
    proposal = _open(month.garden, "promote", month.cards["pruning"])
    _, raw = token_create(user=alice, name="agent", can_write=True, scopes=[month.garden, month.family])
    api.credentials(HTTP_AUTHORIZATION=f"Bearer {raw}")
    before = _store_state()
    assert api.post(f"/api/v1/review/upkeep/{proposal.pk}/approve/", {}, format="json").status_code == 403
    assert api.post(f"/api/v1/review/upkeep/{proposal.pk}/reject/", {}, format="json").status_code == 403
    assert api.get("/api/v1/review/", {"scope": month.garden.pk}).status_code == 403
    assert _store_state() == before
    assert UpkeepProposal.objects.get(pk=proposal.pk).status == UpkeepStatus.OPEN


def test_the_queue_api_lists_the_proposals_for_a_reviewer(month, alice, as_user):
    upkeep_run(month.garden, now=NOW)
    queue = as_user(alice).get("/api/v1/review/", {"scope": month.garden.pk}).json()
    assert {(u["kind"], u["card"]["id"], u["why"]) for u in queue["upkeep"]} == \
        {(kind, card, why) for kind, card, why, _ in _expected(month.cards)}


def test_the_command_dry_run_prints_and_writes_nothing_and_the_run_and_task_propose(month):
    out = io.StringIO()
    call_command("upkeep", "--scope", str(month.garden.pk), "--dry-run", stdout=out)
    assert "would propose: promote card #" in out.getvalue() and "Dry run, nothing written" in out.getvalue()
    assert not UpkeepProposal.objects.exists() and not UpkeepRun.objects.exists()
    call_command("upkeep", "--scope", str(month.garden.pk), stdout=io.StringIO())
    waiting = UpkeepProposal.objects.filter(scope=month.garden).count()
    assert waiting > 0
    assert upkeep_scope.delay(scope_id=month.garden.pk).get()["already_waiting"] == waiting
    assert upkeep_weekly.delay().get() >= 2  # every scope: the family's runs too
    assert UpkeepRun.objects.filter(scope=month.family).exists()
    assert settings.CELERY_BEAT_SCHEDULE["upkeep-weekly"]["task"] == "review.tasks.upkeep_weekly"


def test_a_stale_card_confirmed_since_it_was_proposed_is_not_demoted(month, alice):
    upkeep_run(month.garden, now=NOW)
    proposal = _open(month.garden, "demote", month.cards["acme"])
    card_verify(card=month.cards["acme"], actor=alice)
    with pytest.raises(DomainError) as refused:
        upkeep_decide(proposal=proposal, reviewer=alice, approve=True)
    assert refused.value.code == "upkeep_outdated"
    assert Card.objects.get(pk=month.cards["acme"].pk).long_term_at is not None


def test_a_rejected_promotion_comes_back_only_when_the_card_is_stated_again(month, alice):
    upkeep_run(month.garden, now=NOW)
    upkeep_decide(proposal=_open(month.garden, "promote", month.cards["planting"]), reviewer=alice, approve=False)
    assert upkeep_run(month.garden, now=NOW).proposed == []
    card_verify(card=month.cards["planting"], actor=alice)
    assert [(f.kind, f.card_id) for f in upkeep_run(month.garden).proposed] == [("promote", month.cards["planting"].pk)]


def test_forgetting_a_card_takes_its_proposals_and_the_words_of_their_decisions(month, alice):
    upkeep_run(month.garden, now=NOW)
    merge = _open(month.garden, "merge", month.cards["kubernetes"])
    upkeep_decide(proposal=merge, reviewer=alice, approve=False, reason="the sensor services are elsewhere")
    card_forget(card=month.cards["k8s"], actor=alice)
    assert not UpkeepProposal.objects.filter(pk=merge.pk).exists()
    assert Decision.objects.get(item="upkeep", item_id=merge.pk).reason == ""
