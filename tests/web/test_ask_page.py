"""The ask page: recall with its three numbers, answer with its tier, evidence and
chain, count with undated events apart; refusals next to their field."""

import datetime as dt
import io
import re

import pytest
from django.core.management import call_command
from django.utils import timezone

from cards.drafts import CardDraft
from cards.models import Card
from cards.services import card_remember
from cards.services.embedding import cards_embed_now
from scopes.models import User
from scopes.services import global_scope_get

pytestmark = pytest.mark.django_db


def ask(client, form, scope, **fields):
    return client.get("/ask/", {"form": form, "scope": scope.pk, **fields})


def state(scope, actor, subject, label, value="", obj=None, **extra):
    return card_remember(scope=scope, actor=actor, draft=CardDraft(
        kind="state", subject=subject, label=label, value=value, object=obj, **extra)).card


def test_the_page_offers_a_question_box_and_the_three_expert_forms_in_the_scopes_one_reads(household, pages, alice):
    page = pages(alice).get("/ask/").content.decode()
    assert page.count('name="form"') == 4 and "The Lins" in page and 'href="/ask/"' in page
    # The question box first; the expert forms behind a details switch, closed until one is used.
    assert page.index('value="question"') < page.index("<details>") < page.index('value="recall"')


def test_a_question_in_plain_words_shows_the_sentence_tier_understanding_and_cards(household, pages, alice):
    state(household["family"], alice, "me", "employer", "Acme", source_quote="I work at Acme")
    page = ask(pages(alice), "question", household["family"], question="Where do I work?").content.decode()
    assert "Your employer is Acme." in page and "Recorded: someone said so." in page
    assert "about <strong>I</strong> · employer" in page and "I work at Acme" in page
    page = ask(pages(alice), "question", household["family"], question="我在哪裡上班？").content.decode()
    assert "你的公司是Acme。" in page and 'lang="zh-Hant"' in page
    assert "The Lins" not in pages(household["mallory"]).get("/ask/").content.decode()


def test_a_recorded_answer_names_its_tier_value_and_evidence_with_source(household, pages, alice):
    state(household["family"], alice, "me", "employer", "Acme", source_quote="I work at Acme")
    page = ask(pages(alice), "answer", household["family"], subject="me", label="employer").content.decode()
    assert "Recorded" in page and "<strong>Acme</strong>" in page and "I work at Acme" in page


def test_a_derived_answer_shows_its_chain_as_a_tree_down_to_the_premise_cards(alice, pages):
    common = global_scope_get()
    state(common, alice, "kettle", "made_of", "steel", source_quote="kettles are steel")
    state(alice.personal_scope, alice, "Blue kettle", "is_a", obj="kettle")
    page = ask(pages(alice), "answer", alice.personal_scope, subject="blue kettle", label="made_of").content.decode()
    assert "Derived" in page and '<ul class="tree">' in page
    assert "inherit made_of" in page and "Blue kettle made_of steel" in page and "kettles are steel" in page


def test_no_evidence_is_said_plainly_and_an_unknown_name_offers_look_alikes(household, pages, alice):
    page = ask(pages(alice), "answer", household["family"], subject="me", label="employer").content.decode()
    assert "No evidence" in page and "nothing recorded, derived or guessed" in page
    state(household["family"], alice, "Mia", "employer", "Acme")
    page = ask(pages(alice), "answer", household["family"], subject="Miaa", label="employer").content.decode()
    assert "No entity here is called" in page


def test_an_unknown_label_is_refused_next_to_the_field(household, pages, alice):
    answer = ask(pages(alice), "answer", household["family"], subject="me", label="addres")
    assert answer.status_code == 400 and 'id="answer_label_error"' in answer.content.decode()
    answer = ask(pages(alice), "count", household["family"], label="wedding", when="the day after never")
    assert answer.status_code == 400 and 'id="count_when_error"' in answer.content.decode()


def test_a_count_with_an_undated_event_is_at_least_and_lists_it(household, pages, alice):
    family = household["family"]
    dated = CardDraft(kind="event", label="wedding", subject="me", value="Ana's wedding",
                      reference_time=timezone.now())
    day = timezone.now().replace(hour=0, minute=0, second=0, microsecond=0) - dt.timedelta(days=3)
    dated.occurred_at, dated.occurred_end, dated.precision, dated.time_source = (
        day, day + dt.timedelta(days=1), "day", "stated")
    card_remember(scope=family, actor=alice, draft=dated)
    card_remember(scope=family, actor=alice, draft=CardDraft(kind="event", label="wedding", subject="me",
                                                           value="Ed's wedding", reference_time=timezone.now()))
    start = (day - dt.timedelta(days=1)).date().isoformat()
    page = ask(pages(alice), "count", family, label="wedding", start=start,
               end=timezone.now().date().isoformat()).content.decode()
    assert "At least 1" in page and "Undated" in page and "Ed&#x27;s wedding" in page


def test_a_recall_shows_similarity_decay_and_score_and_marks_a_guess(household, pages, alice):
    family = household["family"]
    state(family, alice, "me", "likes", "hiking", tag="hypothesis", confidence=0.6)
    cards_embed_now(card_ids=list(Card.objects.values_list("pk", flat=True)))
    page = ask(pages(alice), "recall", family, query="where do I live", k=5).content.decode()
    assert "Similarity" in page and "Decay" in page and "Score" in page and "× " in page and "= " in page
    assert "Kyoto" in page and "hypothesis — unconfirmed" in page


def test_a_scope_one_may_not_view_is_404(household, pages):
    assert ask(pages(household["mallory"]), "answer", household["family"], subject="me",
               label="address").status_code == 404


def test_a_planned_value_is_shown_beside_the_current_one_with_its_day(alice, pages):
    scope = alice.personal_scope
    state(scope, alice, "me", "city", "Kyoto")
    state(scope, alice, "me", "city", "Osaka", effective_at=dt.datetime(2027, 1, 1, 0, 30, tzinfo=dt.UTC))
    page = ask(pages(alice), "answer", scope, subject="me", label="city").content.decode()
    # Alice lives in Taipei: half past midnight UTC on 1 January is 1 January there too; no ISO instant shown.
    assert "<strong>Kyoto</strong> now; <strong>Osaka</strong> from Jan 1, 2027" in page and "planned" in page
    assert "2027-01-01T" not in page


def test_a_dispute_of_a_members_own_word_says_whose_word_stands(household, pages, alice):
    family = household["family"]
    state(family, alice, "me", "employer", "Acme")
    state(family, household["bob"], alice.entity, "employer", "Globex")
    page = ask(pages(alice), "answer", family, subject="me", label="employer").content.decode()
    assert "<strong>Acme</strong>" in page and "bob says <strong>Globex</strong>" in page and "own word stands" in page


def _day(d: dt.date) -> str:
    return f"{d.strftime('%b')} {d.day}, {d.year}"  # as every page writes a day (core/dates.py)


def test_a_count_reaching_into_the_future_says_how_many_are_planned_in_the_persons_days(alice, pages):
    """The count says what happened and, apart, "and 1 planned"; days are the
    reader's (Taipei), never an ISO instant or a UTC day."""
    import zoneinfo

    scope, taipei = alice.personal_scope, zoneinfo.ZoneInfo("Asia/Taipei")
    today = timezone.now().astimezone(taipei).date()
    happened = CardDraft(kind="event", label="wedding", subject="me", value="Ana's wedding",
                         reference_time=timezone.now())
    day = dt.datetime.combine(today - dt.timedelta(days=3), dt.time(), tzinfo=taipei)
    happened.occurred_at, happened.occurred_end, happened.precision, happened.time_source = (
        day, day + dt.timedelta(days=1), "day", "stated")
    card_remember(scope=scope, actor=alice, draft=happened)
    # 20:00 UTC is 04:00 the next day in Taipei: the day shown is Taipei's.
    coming_at = dt.datetime.combine(today + dt.timedelta(days=10), dt.time(20), tzinfo=dt.UTC)
    coming = CardDraft(kind="event", label="wedding", subject="me", value="Bo's wedding",
                       reference_time=timezone.now())
    coming.occurred_at, coming.occurred_end, coming.precision, coming.time_source = (
        coming_at, coming_at + dt.timedelta(hours=3), "datetime", "stated")
    card_remember(scope=scope, actor=alice, draft=coming)
    start, end = today - dt.timedelta(days=5), today + dt.timedelta(days=20)
    page = ask(pages(alice), "count", scope, label="wedding", start=start.isoformat(),
               end=end.isoformat()).content.decode()
    assert f"event of wedding from {_day(start)} to {_day(end)}, and 1 planned." in page
    assert "<strong>1</strong>" in page and "Bo&#x27;s wedding" in page
    assert _day(today + dt.timedelta(days=11)) in page and _day(today + dt.timedelta(days=10)) not in page
    assert "T20:00" not in page and "+00:00" not in page


def test_a_planned_values_day_is_the_readers_not_utcs(alice, pages):
    """20:00 UTC on 1 January is 04:00 on 2 January in Taipei: the template's date
    filter once turned the reader's day back into the site's UTC one."""
    scope = alice.personal_scope
    state(scope, alice, "me", "city", "Kyoto")
    state(scope, alice, "me", "city", "Osaka", effective_at=dt.datetime(2027, 1, 1, 20, 0, tzinfo=dt.UTC))
    page = ask(pages(alice), "answer", scope, subject="me", label="city").content.decode()
    assert "<strong>Osaka</strong> from Jan 2, 2027" in page


def test_the_first_question_in_a_fresh_demo_is_asked_in_all_the_persons_memory_and_answered(pages):
    # The household `make run` seeds: each person's facts sit in their own personal scope.
    call_command("seed_demo", stdout=io.StringIO())
    dana = User.objects.get(username="dana")
    page = pages(dana).get("/ask/").content.decode()
    picker = page[page.index('id="question_scope"'):]
    picker = picker[:picker.index("</select>")]
    # "All my memory" first and chosen: the question box never starts in an empty scope.
    assert re.search(r'<option value="" selected>All my memory</option>', picker)
    assert picker.index("All my memory") < picker.index("Common sense") and picker.count("selected") == 1
    # What the page's form sends as it stands: the empty scope, the question.
    page = pages(dana).get("/ask/", {"form": "question", "scope": "", "question": "Where do I work?"})
    assert page.status_code == 200
    assert "Your employer is Harbor Logistics." in page.content.decode()
    # The expert forms read the same way.
    page = pages(dana).get("/ask/", {"form": "answer", "scope": "", "subject": "me", "label": "employer"})
    assert "<strong>Harbor Logistics</strong>" in page.content.decode()


def test_a_scope_named_on_the_page_still_reads_only_what_a_read_there_sees(household, pages, alice):
    state(alice.personal_scope, alice, "me", "employer", "Acme")
    page = ask(pages(household["bob"]), "answer", household["family"], subject="alice", label="employer")
    assert "Acme" not in page.content.decode()
    page = pages(alice).get("/ask/", {"form": "answer", "scope": "", "subject": "me", "label": "employer"})
    assert "<strong>Acme</strong>" in page.content.decode()
