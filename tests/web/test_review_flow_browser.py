"""Review that flows, in a real browser, on the demo household's own queue (the
seed): Dana fixes when Sam went to Madrid and sees the date it resolves to appear
as she types, picks a better label from the picker, and approves; then rejects
two proposals at once with one reason. Screenshots: review-queue.png,
review-when-live.png, review-bulk-done.png (test-artifacts/screenshots/)."""

from __future__ import annotations

import io

import pytest
from django.core.management import call_command
from playwright.sync_api import expect

from tests.web.test_browser import browser_type_launch_args, shot  # noqa: F401  (a fixture)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True, serialized_rollback=True)]


@pytest.fixture
def seeded(db):
    """The demo household (`manage.py seed_demo`, as `make run` seeds it): its queue waits in the family."""
    from memory_site.management.commands.seed_demo import DEMO_PASSWORD, FAMILY_NAME
    from scopes.models import Scope

    call_command("seed_demo", stdout=io.StringIO())
    return {"password": DEMO_PASSWORD, "family": Scope.objects.get(name=FAMILY_NAME)}


def test_fix_when_pick_a_label_approve_then_reject_two_at_once(live_server, page, seeded):
    from cards.models import Card
    from core.dates import date_shown
    from review.models import Candidate, CandidateStatus, Decision
    from review.services.candidates import candidate_when_resolve, candidate_zone

    base, family = live_server.url, seeded["family"]
    errors: list[str] = []
    page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
    page.goto(f"{base}/")
    page.get_by_label("Username").fill("dana")
    page.get_by_label("Password").fill(seeded["password"])
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_url(f"{base}/")

    # The index says how much waits where; the family's queue opens with the seeded proposals.
    page.get_by_role("link", name="Review", exact=True).click()
    expect(page.get_by_role("link", name=family.name)).to_be_visible()
    page.get_by_role("link", name=family.name).click()
    expect(page.get_by_role("heading", name=f"Review {family.name}")).to_be_visible()
    madrid = page.locator("article.review-item", has=page.get_by_role("heading", name="Sam · visit: Madrid"))
    expect(madrid.get_by_text("Said by Sam")).to_be_visible()
    fado = page.locator("article.review-item", has=page.get_by_role("heading", name="Sam · likes: fado"))
    sourdough = page.locator("article.review-item",
                             has=page.get_by_role("heading", name="Sam · hobby: Sourdough baking"))
    expect(sourdough.get_by_text("proposed by the agent “Sam's phone”")).to_be_visible()
    # One reason box per candidate, required to reject (the page says so before anything is sent).
    expect(madrid.get_by_role("textbox", name="Reason (needed to reject)")).to_have_attribute("required", "")
    expect(page.get_by_role("heading", name="Guesses to confirm")).to_be_visible()
    shot(page, "review-queue")

    # Sam went two weeks ago, not last weekend: the date it resolves to appears as Dana types.
    candidate = Candidate.objects.get(scope=family, label="visit", value="Madrid")
    when = madrid.get_by_label("When")
    expect(when).to_have_value("last weekend")
    when.fill("2 weeks ago")
    interval = candidate_when_resolve(candidate, "2 weeks ago")
    expected = date_shown(interval.start, zone=candidate_zone(candidate), precision=interval.precision)
    resolved = madrid.locator("output")
    expect(resolved).to_contain_text(expected)
    expect(resolved).to_contain_text("read in Europe/Lisbon")
    page.evaluate("window.stillThisPage = true")  # the preview swapped a fragment, it did not reload the page
    # Words it cannot read say so at once, and the right ones again.
    when.fill("the weekend before last")
    expect(resolved).to_contain_text("Cannot resolve")
    when.fill("2 weeks ago")
    expect(resolved).to_contain_text(expected)
    assert page.evaluate("window.stillThisPage === true")

    # A better label, picked from the registry's choices by one of its other words ("trips" names `trip`).
    madrid.get_by_text("Edit the words before approving").click()
    label = madrid.get_by_label("Label", exact=True)
    label.fill("")
    expect(madrid.get_by_text("Every label of this kind")).to_be_visible()  # cleared: all of them, to browse
    label.press_sequentially("trips")
    choices = madrid.locator("[data-label-choices]")
    expect(choices).to_contain_text("Labels named by “trips”")
    expect(choices.get_by_role("button")).to_have_count(1)  # only the label that word names
    expect(choices).to_contain_text(", trips,")
    pick = choices.get_by_role("button", name="Use the label trip")
    shot(page, "review-when-live")  # the date the new `when` reads as, and the label's choices
    pick.click()
    expect(label).to_have_value("trip")
    expect(madrid.get_by_role("button", name="Use the label trip")).to_have_count(0)  # the choices closed
    madrid.get_by_role("button", name="Approve me visit").click()
    expect(page.get_by_text("Approved: trip of Sam is remembered.")).to_be_visible()
    candidate.refresh_from_db()
    assert candidate.status == CandidateStatus.APPROVED
    card = Card.objects.get(pk=candidate.card_id)
    assert (card.label.key, card.occurred_at, card.precision) == ("trip", interval.start, interval.precision)

    # Two at once, with one reason.
    fado.get_by_label("Tick").check()
    sourdough.get_by_label("Tick").check()
    bulk = page.locator("#bulk-form")
    bulk.get_by_label("Reason (needed to reject)").fill("Said in jest")
    bulk.get_by_role("button", name="Reject the ticked").click()
    expect(page.get_by_text("Rejected 2 proposals: they will not be remembered.")).to_be_visible()
    expect(page.get_by_role("heading", name="Sam · likes: fado")).to_have_count(0)
    expect(page.get_by_role("heading", name="Sam · hobby: Sourdough baking")).to_have_count(0)
    shot(page, "review-bulk-done")
    rejected = Candidate.objects.filter(scope=family, status=CandidateStatus.REJECTED, reason="Said in jest")
    assert sorted(rejected.values_list("value", flat=True)) == ["Sourdough baking", "fado"]
    assert len(Decision.objects.filter(item="candidate", action="reject", reason="Said in jest")) == 2
    assert errors == [], errors  # a Content Security Policy refusal would show here
