"""Review that flows (issue 20), page by page: one reason box per candidate,
shared by its two decisions and required to reject; a label picker over the
registry and its synonyms, whose refusal lists close labels once; an editable
`when` whose resolved date shows as it is typed (and is read again on approval);
several candidates decided at once; the agent and the person each came from."""

from __future__ import annotations

import datetime as dt
import re
import zoneinfo

import pytest

from cards.models import Card
from core.dates import date_shown
from review.models import Candidate, CandidateStatus, Decision
from scopes.tokens import token_create
from tests.factories import family_scope

pytestmark = pytest.mark.django_db

TAIPEI = zoneinfo.ZoneInfo("Asia/Taipei")
# Half past midnight in Taipei on 8 May: still 7 May in UTC, so "yesterday" is 7 May there, 6 May in UTC.
SAID_AT = dt.datetime(2026, 5, 8, 0, 30, tzinfo=TAIPEI)


def proposed(scope, author, **fields) -> Candidate:
    defaults = {"kind": "state", "label": "city", "subject": "me", "value": "Kyoto", "quote": "we moved to Kyoto",
                "message_at": SAID_AT, "anchor_zone": "Asia/Taipei", "extractor": "patterns", "rule": "moved_to",
                "session": "s1", "message": "m1"}
    return Candidate.objects.create(scope=scope, author=author, **{**defaults, **fields})


def article(page: str, candidate: Candidate) -> str:
    """The candidate's own part of the queue page."""
    return page.split(f'id="candidate-{candidate.pk}"', 1)[1].split("</article>", 1)[0]


def written() -> tuple:
    return (Card.objects.count(), Decision.objects.count(),
            list(Candidate.objects.order_by("pk").values_list("status", "reason")))


def queue(client, scope) -> str:
    return client.get(f"/scopes/{scope.pk}/review/").content.decode()


# --- one reason box per candidate ----------------------------------------------------------------

def test_each_candidate_has_one_reason_box_required_to_reject_and_two_buttons(household, pages, alice):
    item = proposed(household["family"], alice)
    part = article(queue(pages(alice), household["family"]), item)
    assert part.count('name="reason"') == 1
    assert part.count("<form") == 1  # one form: approve and reject are its two buttons
    box = re.search(r'<input[^>]*name="reason"[^>]*>', part).group(0)
    assert " required" in box and f'id="r{item.pk}_reason"' in box
    assert f'<label for="r{item.pk}_reason">Reason (needed to reject)</label>' in part
    approve = re.search(r'<button type="submit" formnovalidate[^>]*>Approve</button>', part)
    assert approve, "approving needs no reason: its button skips the browser's check of the reason box"
    assert f'formaction="/review/candidates/{item.pk}/reject/"' in part
    # Enter in a box decides nothing: the form's default button is a disabled one.
    assert re.search(r"<form[^>]*>\s*<input[^>]*csrf[^>]*>\s*(?:<p[^>]*>[^<]*</p>\s*)*"
                     r"<button type=\"submit\" disabled hidden", part)


def test_reject_without_a_reason_is_a_clear_400_at_the_box_and_keeps_the_edits(household, pages, alice):
    item = proposed(household["family"], alice)
    before = written()
    page = pages(alice).post(f"/review/candidates/{item.pk}/reject/",
                             {"subject": "me", "label": "city", "value": "Kyoto Prefecture", "reason": "  "})
    assert page.status_code == 400
    part = article(page.content.decode(), item)
    assert (f'<p class="error" id="r{item.pk}_reason_error" role="alert">Say why it should not be remembered: '
            "rejecting needs a reason.</p>") in part
    assert 'value="Kyoto Prefecture"' in part  # what the reviewer had typed is still there
    assert written() == before


def test_the_shared_reason_is_kept_with_an_approval(household, pages, alice):
    item = proposed(household["family"], alice)
    answer = pages(alice).post(f"/review/candidates/{item.pk}/approve/",
                               {"subject": "me", "label": "city", "value": "Kyoto", "reason": "she told me twice"})
    assert answer.status_code == 302
    assert Decision.objects.get(item_id=item.pk).reason == "she told me twice"


# --- the label picker -------------------------------------------------------------------------------

def test_the_label_box_offers_the_registrys_labels_of_its_kind_by_any_of_their_words(household, pages, alice):
    item = proposed(household["family"], alice)
    client = pages(alice)
    part = article(queue(client, household["family"]), item)
    box = re.search(r'<input[^>]*name="label"[^>]*>', part).group(0)
    assert f'hx-get="/review/labels/?kind=state&amp;for=c{item.pk}_label"' in box
    assert f'hx-target="#c{item.pk}_label_choices"' in box
    # A spoken synonym (migration 0021) finds its label, with what else names it.
    choices = client.get("/review/labels/", {"kind": "state", "for": f"c{item.pk}_label", "label": "lives"})
    text = choices.content.decode()
    assert choices.status_code == 200
    assert (f'<button type="button" class="link" data-label-pick="c{item.pk}_label" data-value="address" '
            'aria-label="Use the label address">address</button>') in text
    assert "住址" in text and "also:" in text
    assert 'data-value="trip"' not in text  # an event label: not for a state
    # In Chinese too; a misspelling finds the close ones; nothing typed shows every label of the kind.
    box_for = {"kind": "state", "for": f"c{item.pk}_label"}
    assert 'data-value="address"' in client.get("/review/labels/", {**box_for, "label": "住址"}).content.decode()
    assert 'data-value="address"' in client.get("/review/labels/", {**box_for, "label": "adress"}).content.decode()
    everything = client.get("/review/labels/", {"kind": "event", "label": ""}).content.decode()
    assert "Every label of this kind" in everything and 'data-value="trip"' not in everything  # no box named
    assert "<strong>trip</strong>" in everything and "<strong>wedding</strong>" in everything
    # Whatever is sent, nothing of it is put in an attribute unchecked.
    odd = client.get("/review/labels/", {"kind": "state", "for": '"><script>', "label": "lives"}).content.decode()
    assert "<script>" not in odd and "data-label-pick" not in odd


def test_an_unknown_label_is_refused_at_its_box_naming_close_labels_once(household, pages, alice):
    item = proposed(household["family"], alice)
    before = written()
    page = pages(alice).post(f"/review/candidates/{item.pk}/approve/",
                             {"subject": "me", "label": "adress", "value": "Kyoto"})
    assert page.status_code == 400
    error = re.search(rf'<p class="error" id="c{item.pk}_label_error" role="alert">([^<]*)</p>',
                      page.content.decode()).group(1)
    assert "Close registered labels: address" in error
    assert error.count("address") == 1 and "Did you mean" not in error
    assert written() == before


def test_a_synonym_typed_as_the_label_is_stored_as_its_label(household, pages, alice):
    item = proposed(household["family"], alice, label="city", value="Lisbon")
    answer = pages(alice).post(f"/review/candidates/{item.pk}/approve/",
                               {"subject": "me", "label": "lives", "value": "Rua Augusta 1, Lisbon"})
    assert answer.status_code == 302
    item.refresh_from_db()
    assert item.card.label.key == "address"


# --- `when`: editable, resolved live, read again on approval ----------------------------------------

def _resolved(client, item, when: str) -> str:
    answer = client.get(f"/review/candidates/{item.pk}/when/", {"when": when})
    assert answer.status_code == 200
    return answer.content.decode()


def test_the_when_box_asks_for_the_resolved_date_as_it_is_typed(household, pages, alice):
    item = proposed(household["family"], alice, kind="event", label="trip", value="Kyoto", when="yesterday",
                    occurred_at=dt.datetime(2026, 5, 7, tzinfo=TAIPEI), occurred_end=dt.datetime(2026, 5, 8, tzinfo=TAIPEI),
                    precision="day", time_source="resolved")
    part = article(queue(pages(alice), household["family"]), item)
    box = re.search(r'<input[^>]*name="when"[^>]*>', part).group(0)
    assert 'value="yesterday"' in box and f'hx-get="/review/candidates/{item.pk}/when/"' in box
    assert f'hx-target="#c{item.pk}_when_resolved"' in box and 'hx-trigger="input changed delay:300ms"' in box
    # As loaded: the date it holds now, as people read dates.
    output = part.split(f'id="c{item.pk}_when_resolved"', 1)[1].split("</output>", 1)[0]
    assert "→ <strong>May 7, 2026</strong>" in output and "read in Asia/Taipei" in output


def test_words_ingest_could_not_read_show_the_message_time_they_fell_back_to(household, pages, alice):
    item = proposed(household["family"], alice, kind="event", label="trip", value="Kyoto", when="soonish",
                    occurred_at=SAID_AT, precision="datetime", time_source="message")
    part = article(queue(pages(alice), household["family"]), item)
    output = part.split(f'id="c{item.pk}_when_resolved"', 1)[1].split("</output>", 1)[0]
    assert "→ <strong>May 8, 2026, 00:30</strong>" in output
    assert "“soonish” could not be read, so it is dated at the message, in Asia/Taipei" in output


def test_when_is_read_against_the_message_in_the_speakers_day_and_shown_as_people_read_dates(
        household, pages, alice):
    client = pages(alice)
    state = proposed(household["family"], alice)
    shown = _resolved(client, state, "yesterday")
    # The speaker's day: 7 May in Taipei, though the message was sent on 7 May UTC already.
    assert "→ <strong>May 7, 2026</strong>" in shown
    assert "read in Asia/Taipei, against the message of May 8, 2026, 00:30" in shown
    assert not re.search(r"\d{4}-\d{2}-\d{2}", shown)  # never ISO
    event = proposed(household["family"], alice, kind="event", label="trip", value="Kyoto")
    assert "→ <strong>May 2, 2026 – May 3, 2026</strong>" in _resolved(client, event, "last weekend")
    assert "→ <strong>Mar 2026</strong>" in _resolved(client, event, "last March")
    assert "No time given: the event is remembered undated." in _resolved(client, event, "")
    assert "No time given: true from the message&#x27;s time, May 8, 2026." in _resolved(client, state, "")


def test_a_candidate_without_an_anchor_is_read_in_its_persons_zone(household, pages, alice):
    item = proposed(household["family"], alice, anchor_zone="")
    assert "read in Asia/Taipei" in _resolved(pages(alice), item, "yesterday")  # alice's own zone


def test_words_that_cannot_be_read_say_so_and_write_nothing(household, pages, alice):
    item = proposed(household["family"], alice)
    before = written()
    shown = _resolved(pages(alice), item, "the day after never")
    assert '<span class="error">Cannot resolve' in shown and "Give an ISO date" in shown
    assert "Say it in at most 200 characters." in _resolved(pages(alice), item, "x" * 201)
    assert written() == before


def test_approving_with_a_fixed_when_writes_the_resolved_date(household, pages, alice):
    family, client = household["family"], pages(alice)
    event = proposed(family, alice, kind="event", label="trip", value="Kyoto", when="last weekend",
                     occurred_at=dt.datetime(2026, 5, 2, tzinfo=TAIPEI), occurred_end=dt.datetime(2026, 5, 4, tzinfo=TAIPEI),
                     precision="day", time_source="resolved")
    answer = client.post(f"/review/candidates/{event.pk}/approve/",
                         {"subject": "me", "label": "trip", "value": "Kyoto", "when": "last March"})
    assert answer.status_code == 302
    event.refresh_from_db()
    card = event.card
    assert (card.occurred_at, card.occurred_end, card.precision) == (
        dt.datetime(2026, 3, 1, tzinfo=TAIPEI), dt.datetime(2026, 4, 1, tzinfo=TAIPEI), "month")
    assert event.when == "last March"
    assert Decision.objects.get(item_id=event.pk).detail["edits"] == ["when"]
    state = proposed(family, alice, label="skill", value="Rust")
    assert client.post(f"/review/candidates/{state.pk}/approve/",
                       {"subject": "me", "label": "skill", "value": "Rust", "when": "yesterday"}).status_code == 302
    state.refresh_from_db()
    assert state.card.effective_at == dt.datetime(2026, 5, 7, tzinfo=TAIPEI)


def test_approving_with_when_that_cannot_be_read_is_a_clear_400_and_writes_nothing(household, pages, alice):
    item = proposed(household["family"], alice, kind="event", label="trip", value="Kyoto")
    before = written()
    page = pages(alice).post(f"/review/candidates/{item.pk}/approve/",
                             {"subject": "me", "label": "trip", "value": "Kyoto", "when": "the day after never"})
    assert page.status_code == 400
    part = article(page.content.decode(), item)
    error = re.search(rf'<p class="error" id="c{item.pk}_when_error" role="alert">([^<]*)</p>', part).group(1)
    assert error.startswith("Cannot resolve &#x27;the day after never&#x27; to a date")
    assert 'value="the day after never"' in part
    assert written() == before
    item.refresh_from_db()
    assert (item.status, item.when, item.occurred_at) == (CandidateStatus.PENDING, "", None)


# --- several at once -------------------------------------------------------------------------------

def _bulk(client, scope, ids, decision: str, reason: str = "", **extra):
    return client.post(f"/scopes/{scope.pk}/review/bulk/",
                       {"candidates": [str(i) for i in ids], "decision": decision, "reason": reason, **extra})


def test_bulk_approve_decides_each_and_names_those_it_could_not(household, pages, alice):
    from cards.models import Label

    family, client = household["family"], pages(alice)
    sensitive = Label.objects.filter(sensitive=True, kind="state").first()
    first = proposed(family, alice, label="skill", value="Rust")
    second = proposed(family, alice, label="skill", value="Go")
    held = proposed(family, alice, label=sensitive.key, value="x", status=CandidateStatus.NEEDS_CONSENT)
    broken = proposed(family, alice, label="no_such_label", value="y", problem="not a label")
    part = article(queue(client, family), first)
    assert (f'<input type="checkbox" form="bulk-form" name="candidates" value="{first.pk}" '
            f'id="tick-{first.pk}">') in part
    answer = _bulk(client, family, [first.pk, second.pk, held.pk, broken.pk], "approve")
    assert answer.status_code == 302 and answer.url == f"/scopes/{family.pk}/review/"
    shown = client.get(answer.url).content.decode()
    assert "Approved 2 proposals: they are remembered." in shown
    assert "Could not approve 2 proposals:" in shown
    # A candidate is named by its label's words, as its heading shows it ("no such label"), not by its key.
    assert (f"Alice · {sensitive.key.replace('_', ' ')}: x (it needs the person&#x27;s explicit consent: approve it on its own, "
            "with the consent box)") in shown
    assert "Alice · no such label: y (&#x27;no_such_label&#x27; is not a registered label." in shown
    statuses = dict(Candidate.objects.values_list("pk", "status"))
    assert (statuses[first.pk], statuses[second.pk]) == (CandidateStatus.APPROVED, CandidateStatus.APPROVED)
    assert (statuses[held.pk], statuses[broken.pk]) == (CandidateStatus.NEEDS_CONSENT, CandidateStatus.PENDING)
    assert not Decision.objects.filter(item_id__in=[held.pk, broken.pk]).exists()  # nothing half-written
    assert set(Card.objects.filter(scope=family, label__key="skill").values_list("value", flat=True)) == {"Rust", "Go"}


def test_bulk_reject_uses_one_reason_for_all(household, pages, alice):
    family, client = household["family"], pages(alice)
    items = [proposed(family, alice, label="skill", value=v) for v in ("Rust", "Go", "Zig")]
    answer = _bulk(client, family, [items[0].pk, items[2].pk], "reject", "a joke")
    assert answer.status_code == 302
    assert "Rejected 2 proposals: they will not be remembered." in client.get(answer.url).content.decode()
    assert list(Candidate.objects.order_by("pk").values_list("status", "reason")) == [
        ("rejected", "a joke"), ("pending", ""), ("rejected", "a joke")]
    assert Decision.objects.filter(action="reject", reason="a joke").count() == 2


def test_a_candidate_decided_meanwhile_is_named_and_the_others_decided(household, pages, alice):
    from review.services.candidates import candidate_reject

    family, client = household["family"], pages(alice)
    first, second = proposed(family, alice, label="skill", value="Rust"), proposed(family, alice, label="skill",
                                                                                  value="Go")
    candidate_reject(candidate=second, reviewer=household["bob"], reason="earlier")
    answer = _bulk(client, family, [first.pk, second.pk], "approve")
    shown = client.get(answer.url).content.decode()
    assert "Approved 1 proposal: it is remembered." in shown
    assert "Alice · skill: Go (already decided)" in shown
    second.refresh_from_db()
    assert (second.status, second.reason) == (CandidateStatus.REJECTED, "earlier")


@pytest.mark.parametrize("data, problem", [
    ({"decision": "reject", "reason": ""}, "Say why they should not be remembered: rejecting needs a reason."),
    ({"decision": "approve", "candidates": []}, "Tick at least one proposal first."),
    ({"decision": "approve", "candidates": ["1x"]}, "The ticked proposals could not be read; tick them again."),
    ({"decision": "maybe"}, "Choose to approve or to reject them."),
])
def test_a_bulk_request_that_cannot_be_read_is_a_400_and_decides_nothing(household, pages, alice, data, problem):
    family = household["family"]
    item = proposed(family, alice)
    before = written()
    page = pages(alice).post(f"/scopes/{family.pk}/review/bulk/", {"candidates": [str(item.pk)], **data})
    assert page.status_code == 400
    assert problem.replace("'", "&#x27;") in page.content.decode()
    assert written() == before


def test_ticked_ids_that_are_not_this_queues_refuse_the_whole_request(household, pages, alice):
    family, client = household["family"], pages(alice)
    mine = proposed(family, alice, label="skill", value="Rust")
    elsewhere = proposed(family_scope(owner=household["mallory"], name="Elsewhere"), household["mallory"])
    decided = proposed(family, alice, label="skill", value="Go", status=CandidateStatus.REJECTED)
    before = written()
    for ids in ([mine.pk, 987654321], [mine.pk, elsewhere.pk]):
        page = _bulk(client, family, ids, "reject", "no")
        assert page.status_code == 400
        text = page.content.decode()
        assert "1 of the 2 ticked proposals is not in this queue; nothing was decided. Tick them again." in text
        assert f'value="{mine.pk}" id="tick-{mine.pk}" checked' in text  # still ticked, to try again
    assert written() == before
    # One decided already is this queue's: it is named, not refused as a whole.
    answer = _bulk(client, family, [mine.pk, decided.pk], "reject", "no")
    assert answer.status_code == 302
    assert "Could not reject 1 proposal: Alice · skill: Go (already decided)." in \
        client.get(answer.url).content.decode()


def test_only_reviewers_of_the_scope_decide_in_bulk(household, pages, alice):
    family = household["family"]
    item = proposed(family, alice)
    before = written()
    assert _bulk(pages(household["mallory"]), family, [item.pk], "reject", "no").status_code == 404
    assert _bulk(pages(household["bob"]), family, [item.pk], "reject", "no").status_code == 403  # a member
    assert _bulk(pages(household["victor"]), family, [item.pk], "reject", "no").status_code == 403  # a viewer
    assert written() == before
    # Nor is the preview of a `when`, nor the label box's choices, anything of the scope's for a stranger.
    assert pages(household["mallory"]).get(f"/review/candidates/{item.pk}/when/?when=today").status_code == 404
    assert pages(household["bob"]).get(f"/review/candidates/{item.pk}/when/?when=today").status_code == 403


def test_an_agents_own_proposals_are_decided_by_its_person_not_in_bulk(pages, alice, household):
    """Bulk is for a scope's reviewers: a person deciding their own agent's proposals does it one by one."""
    from scopes.services import membership_set

    family, bob = household["family"], household["bob"]
    agent, _ = token_create(user=bob, name="bob's phone", proposes=True, scopes=[family])
    item = proposed(family, bob, proposed_by=agent, extractor="agent")
    own = pages(bob).get("/review/").content.decode()
    assert f'id="candidate-{item.pk}"' in own and 'name="candidates"' not in own
    assert _bulk(pages(bob), family, [item.pk], "approve").status_code == 403
    membership_set(scope=family, user=bob, role="reviewer")
    assert _bulk(pages(bob), family, [item.pk], "approve").status_code == 302


# --- whose it is ------------------------------------------------------------------------------------

def test_each_candidate_names_the_person_it_came_from_and_the_agent_that_proposed_it(household, pages, alice):
    family = household["family"]
    agent, secret = token_create(user=household["bob"], name="kitchen-bot", proposes=True, scopes=[family])
    by_agent = proposed(family, household["bob"], proposed_by=agent, extractor="agent", subject="me")
    extracted = proposed(family, alice, subject="Kai")
    page = queue(pages(alice), family)
    mine = article(page, by_agent)
    assert f"Said by <strong>Bob</strong>, proposed by the agent “kitchen-bot” <span class=\"kind\">{agent.prefix}…" \
           in mine
    assert "the agent itself: its own card, waiting for a person" in mine
    assert ">Bob · city: Kyoto</h3>" in mine  # "me" is the person who said it
    other = article(page, extracted)
    assert "Said by <strong>Alice</strong></p>" in other and "proposed by the agent" not in other
    assert ">Kai · city: Kyoto</h3>" in other and "patterns (rule moved_to), reading the conversation" in other
    assert secret not in page


def test_the_queue_reads_no_more_for_more_candidates(household, pages, alice, django_assert_max_num_queries):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    family, client = household["family"], pages(alice)
    for n in range(2):
        proposed(family, alice, label="skill", value=f"skill {n}")
    with CaptureQueriesContext(connection) as few:
        assert client.get(f"/scopes/{family.pk}/review/").status_code == 200
    for n in range(6):
        author = household["bob"] if n % 2 else alice
        proposed(family, author, label="skill", value=f"more {n}")
    with django_assert_max_num_queries(len(few)):
        assert client.get(f"/scopes/{family.pk}/review/").status_code == 200


def test_the_own_part_of_the_review_page_has_the_same_form(pages, alice, household):
    family = household["family"]
    agent, _ = token_create(user=alice, name="alice's tablet", proposes=True, scopes=[family])
    item = proposed(family, alice, proposed_by=agent, extractor="agent")
    page = pages(alice).get("/review/").content.decode()
    part = article(page, item)
    assert part.count('name="reason"') == 1 and 'name="when"' in part and 'name="candidates"' not in part
    assert "js/review.js" in page
    assert date_shown(SAID_AT, zone=TAIPEI, precision="datetime") in part  # the message's time, in her zone


# --- the sentence it came from ---------------------------------------------------------------------

def test_each_candidate_shows_its_whole_sentence_with_the_speaker_and_the_message_time(household, pages, alice):
    family = household["family"]
    item = proposed(family, household["bob"], quote="Long story, but we moved to Kyoto on Friday, finally.")
    alice.time_zone = "Asia/Taipei"
    alice.save()
    said = article(queue(pages(alice), family), item)
    figure = said.split('<figure class="said">', 1)[1].split("</figure>", 1)[0]
    assert "<blockquote>Long story, but we moved to Kyoto on Friday, finally.</blockquote>" in figure
    # Who said it and when, in the viewer's own zone and as people read a time: never an ISO instant.
    assert f"— {household['bob'].shown_name}, {date_shown(SAID_AT, zone=TAIPEI, precision='datetime')}" in figure
    assert "2026-05-0" not in figure
