"""Apps tell each other things one way (README, "How apps tell each other"): the app that speaks declares a
Django signal in its signals.py, the app that listens connects a receiver in its AppConfig.ready. Each signal
reaches the receivers wired for it, the answers a sender reads are read, and no app keeps a registry of its own."""

from __future__ import annotations

import ast
import datetime as dt
import importlib
from pathlib import Path

import pytest
from django.db import IntegrityError
from django.dispatch import Signal

from cards.drafts import CardDraft
from cards.provenance import Approval, approvals_of
from cards.services import card_forget, card_remember
from cards.services.forget import Forgetting
from cards.signals import approvals_asked, cards_proposed, forgetting, probe_asked
from core.errors import DomainError, integrity_refusal
from core.signals import database_rule_refused
from scopes.models import Membership, User
from scopes.principals import Principal
from scopes.signals import member_joined, user_created, user_set_up
from tests.factories import family_scope

ROOT = Path(__file__).resolve().parents[1]
APPS = ("core", "scopes", "cards", "review", "memory_site")

# Each signal and, in connection order, the receivers the apps above connect to it.
WIRING = {
    database_rule_refused: ["cards.receivers.event_update_refused_read"],
    user_created: ["scopes.receivers.user_setup_on_create"],
    user_set_up: ["cards.receivers.person_entity_give"],
    member_joined: ["cards.receivers.member_look_alikes_on_join"],
    forgetting: ["review.receivers.review_forget_copies"],
    approvals_asked: ["review.receivers.card_approvals_answer"],
    cards_proposed: ["review.receivers.proposals_answer_on_propose"],
    probe_asked: ["review.receivers.probe_pending_answer"],
}


def _product_modules():
    for app in APPS:
        for path in sorted((ROOT / app).rglob("*.py")):
            if "migrations" not in path.parts:
                yield path


def _declared_signals() -> list[Signal]:
    """Every Signal the product declares, from the signals.py modules."""
    found = []
    for path in _product_modules():
        if path.name == "signals.py" and path.parent.name in APPS:
            module = importlib.import_module(f"{path.parent.name}.signals")
            found += [value for value in vars(module).values() if isinstance(value, Signal)]
    return found


def _sent_to(signal: Signal, sender, **named) -> list[str]:
    return [f"{receiver.__module__}.{receiver.__qualname__}" for receiver, _ in signal.send(sender=sender, **named)]


@pytest.mark.django_db
def test_every_signal_reaches_the_receivers_its_listeners_connect(alice):
    family = family_scope(owner=alice)
    assert set(_declared_signals()) == set(WIRING)
    assert _sent_to(database_rule_refused, IntegrityError, error=IntegrityError("x")) == WIRING[database_rule_refused]
    assert _sent_to(user_created, User, user=alice) == WIRING[user_created]
    assert _sent_to(user_set_up, User, user=alice, scope=alice.personal_scope) == WIRING[user_set_up]
    assert _sent_to(member_joined, Membership, scope=family, user=alice) == WIRING[member_joined]
    assert _sent_to(forgetting, None, forgetting=Forgetting(actor=alice)) == WIRING[forgetting]
    assert _sent_to(approvals_asked, Approval, card_ids=[], scope_ids=[]) == WIRING[approvals_asked]
    assert _sent_to(probe_asked, Principal, user=alice, scope_ids=[]) == WIRING[probe_asked]
    assert _sent_to(cards_proposed, None, principal=Principal(alice), items=[], bulk=True) == WIRING[cards_proposed]


def _probe_counts(sender, **kwargs):
    return {"probes": 2}


def test_each_participants_counts_join_the_forget_receipt(alice, scope):
    card = card_remember(scope=scope, actor=alice, draft=CardDraft(kind="state", subject="me", label="likes", value="tea")).card
    forgetting.connect(_probe_counts, dispatch_uid="tests.probe")
    try:
        receipt = card_forget(card=card, actor=alice)
    finally:
        forgetting.disconnect(dispatch_uid="tests.probe")
    assert (receipt["cards"], receipt["probes"]) == (1, 2)


def _probe_approvals(sender, *, card_ids, **kwargs):
    return {card_ids[0]: Approval(by="probe", at=dt.datetime(2030, 1, 1, tzinfo=dt.timezone.utc))}


def test_the_latest_approval_any_receiver_answers_is_the_cards(alice, scope):
    approvals_asked.connect(_probe_approvals, dispatch_uid="tests.probe")
    try:
        assert approvals_of([7, 7], scope_ids=[scope.pk])[7].by == "probe"
    finally:
        approvals_asked.disconnect(dispatch_uid="tests.probe")


def _probe_refusal(sender, *, error, **kwargs):
    return DomainError("probe") if "probe" in str(error) else None


def test_a_database_rules_refusal_is_the_first_receiver_answer_that_is_not_none():
    database_rule_refused.connect(_probe_refusal, dispatch_uid="tests.probe")
    try:
        assert integrity_refusal(IntegrityError("probe")).detail == "probe"
        assert integrity_refusal(IntegrityError("other")) is None
    finally:
        database_rule_refused.disconnect(dispatch_uid="tests.probe")


def test_no_app_keeps_a_registry_of_its_own():
    """A signal is declared in an app's signals.py only, and no module offers a `*_register` function: a
    second idiom is a second place a reader must discover."""
    found = []
    for path in _product_modules():
        tree = ast.parse(path.read_text())
        for node in ast.walk(tree):
            if isinstance(node, ast.FunctionDef) and node.name.endswith("_register"):
                found.append(f"{path.relative_to(ROOT)}: def {node.name}")
            if (isinstance(node, ast.ImportFrom) and node.module == "django.dispatch"
                    and any(alias.name == "Signal" for alias in node.names)
                    and not (path.name == "signals.py" and path.parent.name in APPS)):
                found.append(f"{path.relative_to(ROOT)}: a Signal declared at line {node.lineno}")
    assert found == []
