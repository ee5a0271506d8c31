"""Hard rules 1 and 2: cardinality from the registry and Supersede-Fork."""

import datetime as dt

import pytest
from django.db import IntegrityError, transaction

from cards.drafts import CardDraft
from cards.errors import CardGone, LabelKindMismatch, UnknownLabel
from cards.models import Card
from cards.selectors.cards import card_as_of, card_history
from cards.services import card_remember

pytestmark = pytest.mark.django_db


def address(value, at, **extra):
    return CardDraft(kind="state", label="address", subject="me", value=value, reference_time=at, **extra)


def test_first_address_is_inserted_as_current(alice, scope, t0):
    result = card_remember(scope=scope, actor=alice, draft=address("Taipei", t0))
    assert result.outcome == "inserted"
    assert result.card.superseded_at is None
    assert result.card.effective_at == t0
    assert result.card.cardinality == "single"
    assert result.card.subject == alice.entity


def test_second_address_supersedes_first(alice, scope, t0):
    first = card_remember(scope=scope, actor=alice, draft=address("Taipei", t0)).card
    later = t0 + dt.timedelta(days=30)
    result = card_remember(scope=scope, actor=alice, draft=address("Kyoto", later))
    first.refresh_from_db()
    assert result.outcome == "superseded"
    assert result.superseded == [first.pk]
    assert first.superseded_at == later
    assert first.superseded_by_id == result.card.pk
    current = Card.objects.filter(scope=scope, label__key="address", superseded_at__isnull=True)
    assert [c.value for c in current] == ["Kyoto"]


def test_same_value_again_reinforces_without_a_new_row(alice, scope, t0):
    first = card_remember(scope=scope, actor=alice, draft=address("Kyoto", t0)).card
    result = card_remember(scope=scope, actor=alice, draft=address("  kyoto. ", t0 + dt.timedelta(days=3)))
    assert result.outcome == "reinforced"
    assert result.card.pk == first.pk
    first.refresh_from_db()
    assert first.verified_at == t0 + dt.timedelta(days=3)
    assert Card.objects.filter(scope=scope).count() == 1


def test_synonym_resolves_to_registered_label(alice, scope, t0):
    card_remember(scope=scope, actor=alice, draft=address("Taipei", t0))
    result = card_remember(scope=scope, actor=alice, draft=CardDraft(
        kind="state", label="Home Address", subject="me", value="Kyoto", reference_time=t0 + dt.timedelta(days=1)))
    assert result.outcome == "superseded"
    assert result.card.label.key == "address"


def test_unknown_label_is_refused_with_close_suggestions(alice, scope, t0):
    with pytest.raises(UnknownLabel) as refused:
        card_remember(scope=scope, actor=alice, draft=CardDraft(
            kind="state", label="adress", subject="me", value="Kyoto", reference_time=t0))
    assert refused.value.code == "unknown_label"
    assert "address" in refused.value.extra["suggestions"]
    assert len(refused.value.extra["suggestions"]) <= 5
    assert Card.objects.count() == 0


def test_state_card_with_event_label_is_refused(alice, scope, t0):
    with pytest.raises(LabelKindMismatch):
        card_remember(scope=scope, actor=alice, draft=CardDraft(
            kind="state", label="wedding", subject="me", value="x", reference_time=t0))


def test_late_fact_is_placed_in_the_timeline(alice, scope, t0):
    """Taipei (Jan) → Kyoto (May) recorded first; then we learn of Osaka from March."""
    jan, mar, may = (t0.replace(month=m) for m in (1, 3, 5))
    taipei = card_remember(scope=scope, actor=alice, draft=address("Taipei", jan, effective_at=jan)).card
    kyoto = card_remember(scope=scope, actor=alice, draft=address("Kyoto", may, effective_at=may)).card
    result = card_remember(scope=scope, actor=alice, draft=address("Osaka", may, effective_at=mar))
    osaka = result.card
    taipei.refresh_from_db()
    kyoto.refresh_from_db()
    assert result.outcome == "superseded" and result.superseded == [taipei.pk]
    assert (taipei.superseded_at, taipei.superseded_by_id) == (mar, osaka.pk)
    assert (osaka.superseded_at, osaka.superseded_by_id) == (may, kyoto.pk)
    assert kyoto.superseded_at is None
    assert [c.value for c in card_history(card=kyoto)] == ["Taipei", "Osaka", "Kyoto"]
    april = t0.replace(month=4)
    assert [c.value for c in card_as_of(scope=scope, subject=alice.entity, label=kyoto.label, at=april)] == ["Osaka"]


def test_late_fact_before_everything_is_closed_by_its_successor(alice, scope, t0):
    may = t0.replace(month=5)
    kyoto = card_remember(scope=scope, actor=alice, draft=address("Kyoto", may, effective_at=may)).card
    result = card_remember(scope=scope, actor=alice, draft=address("Taipei", may, effective_at=t0.replace(month=1)))
    assert result.outcome == "inserted"
    assert result.card.superseded_by_id == kyoto.pk
    assert result.card.superseded_at == may


def test_late_fact_with_the_current_value_is_kept_as_its_own_statement(alice, scope, t0):
    """Kyoto was already true in March: April now reads Kyoto, and the May
    statement stays, so a later-learned April move can still be placed."""
    jan, mar, apr, may = (t0.replace(month=m) for m in (1, 3, 4, 5))
    taipei = card_remember(scope=scope, actor=alice, draft=address("Taipei", jan, effective_at=jan)).card
    kyoto = card_remember(scope=scope, actor=alice, draft=address("Kyoto", may, effective_at=may)).card
    result = card_remember(scope=scope, actor=alice, draft=address("Kyoto", may, effective_at=mar))
    assert result.outcome == "superseded" and result.superseded == [taipei.pk]
    assert (result.card.superseded_at, result.card.superseded_by_id) == (may, kyoto.pk)
    label = kyoto.label
    assert [c.value for c in card_as_of(scope=scope, subject=alice.entity, label=label, at=apr)] == ["Kyoto"]
    assert [c.value for c in card_history(card=kyoto)] == ["Taipei", "Kyoto", "Kyoto"]


def test_late_fact_inside_a_reaffirmed_value_splits_it(alice, scope, t0):
    """Taipei since January, said again in June; then a message from May, processed late, says Osaka
    from March: Osaka holds March–June and Taipei resumes from the June statement, said after it."""
    jan, mar, apr, may, jun, jul = (t0.replace(month=m) for m in (1, 3, 4, 5, 6, 7))
    taipei = card_remember(scope=scope, actor=alice, draft=address("Taipei", jan)).card
    assert card_remember(scope=scope, actor=alice, draft=address("Taipei", jun)).outcome == "reinforced"
    result = card_remember(scope=scope, actor=alice, draft=address("Osaka", may, effective_at=mar))
    assert result.outcome == "superseded" and result.superseded == [taipei.pk]
    history = card_history(card=taipei)
    assert [(c.value, c.effective_at, c.superseded_at) for c in history] == [
        ("Taipei", jan, mar), ("Osaka", mar, jun), ("Taipei", jun, None)]
    assert [c.superseded_by_id for c in history] == [history[1].pk, history[2].pk, None]
    label = taipei.label
    assert [c.value for c in card_as_of(scope=scope, subject=alice.entity, label=label, at=apr)] == ["Osaka"]
    assert [c.value for c in card_as_of(scope=scope, subject=alice.entity, label=label, at=jul)] == ["Taipei"]


def test_database_refuses_two_current_single_values(alice, scope, t0):
    card = card_remember(scope=scope, actor=alice, draft=address("Taipei", t0)).card
    card.pk = None
    card.value, card.value_norm = "Kyoto", "kyoto"
    with pytest.raises(IntegrityError), transaction.atomic():
        card.save(force_insert=True)


def test_object_valued_single_label_supersedes_on_other_entity(alice, scope, t0):
    first = card_remember(scope=scope, actor=alice, draft=CardDraft(
        kind="state", label="partner", subject="me", object="Sam", reference_time=t0))
    again = card_remember(scope=scope, actor=alice, draft=CardDraft(
        kind="state", label="spouse", subject="me", object="sam", reference_time=t0 + dt.timedelta(days=1)))
    other = card_remember(scope=scope, actor=alice, draft=CardDraft(
        kind="state", label="partner", subject="me", object="Robin", reference_time=t0 + dt.timedelta(days=2)))
    assert first.outcome == "inserted" and again.outcome == "reinforced"
    assert other.outcome == "superseded" and other.superseded == [first.card.pk]


def test_a_value_forgotten_while_its_successor_is_written_never_comes_back(alice, scope, t0, monkeypatch):
    """A forget that commits between reading the covering card and closing it: the
    write is refused, and the forgotten value is not copied back as the part of its
    timeline that resumes after the new one."""
    import cards.services.remember as remember

    first = card_remember(scope=scope, actor=alice, draft=address("Taipei", t0)).card
    card_remember(scope=scope, actor=alice, draft=address("Taipei", t0 + dt.timedelta(days=20)))
    read = remember._line_read

    def forgotten_meanwhile(write):
        found = read(write)
        Card.objects.filter(pk=first.pk).delete()
        return found
    monkeypatch.setattr(remember, "_line_read", forgotten_meanwhile)
    with pytest.raises(CardGone):
        card_remember(scope=scope, actor=alice, draft=address(
            "Kyoto", t0 + dt.timedelta(days=30), effective_at=t0 + dt.timedelta(days=10)))
    # The write rolled back whole (here with the delete standing in for the other transaction's forget):
    # no new value, and no copy of the forgotten one resuming after it.
    assert list(Card.objects.filter(scope=scope).values_list("pk", flat=True)) == [first.pk]
