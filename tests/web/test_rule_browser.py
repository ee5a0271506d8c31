"""Rules as a form, in a real browser (issue 20): a household member writes a
rule from her family's review page by picking labels, previews what it would
derive there (htmx swaps the preview in), saves it as a draft; a reviewer of
common sense opens that queue, reads the rule in words with what it would
derive on what they see, and approves it. Screenshots: rule-form.png,
rule-preview.png, rule-in-queue.png."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from cards.drafts import CardDraft
from cards.models import Rule, RuleStatus
from cards.services import card_remember
from scopes.services import global_scope_get, membership_set
from tests.factories import UserFactory, family_scope
from tests.web.test_browser import PASSWORD, browser_type_launch_args, shot, sign_in  # noqa: F401  (a fixture)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True, serialized_rollback=True)]


def remember(scope, actor, subject: str, label: str, value: str = "", obj: str | None = None) -> None:
    card_remember(scope=scope, actor=actor, draft=CardDraft(kind="state", subject=subject, label=label, value=value,
                                                            object=obj))


@pytest.fixture
def people(db):
    """dana owns the family, where she has a Subaru (a car); rita reviews common sense and has a Corolla."""
    dana, rita = UserFactory(username="dana"), UserFactory(username="rita")
    for person in (dana, rita):
        person.set_password(PASSWORD)
        person.save()
    family = family_scope(owner=dana, name="The Lins")
    remember(family, dana, "me", "has", "Subaru")
    remember(family, dana, "Subaru", "is_a", obj="car")
    common = global_scope_get()
    membership_set(scope=common, user=rita, role="reviewer")
    remember(rita.personal_scope, rita, "me", "has", "Corolla")
    remember(rita.personal_scope, rita, "Corolla", "is_a", obj="car")
    return {"dana": dana, "rita": rita, "family": family, "common": common}


def fill_row(page, group: str, subject: str, label: str, obj: str) -> None:
    row = page.get_by_role("group", name=group)
    row.get_by_label("Who or what").fill(subject)
    row.get_by_label("Label").select_option(label)
    row.get_by_label("Value or what").fill(obj)


def test_write_a_rule_preview_it_save_it_and_another_reviewer_approves_it(live_server, page, people):
    base, family = live_server.url, people["family"]
    sign_in(page, base, "dana")
    page.goto(f"{base}/scopes/{family.pk}/review/")
    page.get_by_role("link", name="Write a rule").click()
    expect(page.get_by_role("heading", name="Write a rule")).to_be_visible()

    page.get_by_label("Name").fill("a car someone has is their car")
    page.get_by_label("Description").fill("What you have and is a car is the car you drive.")
    fill_row(page, "Condition 1", "someone", "has", "?thing")
    fill_row(page, "Condition 2", "?thing", "is_a", "car")
    fill_row(page, "Conclusion", "someone", "car", "?thing")
    shot(page, "rule-form")

    page.evaluate("window.stillThisPage = true")  # a full page load would drop it
    page.get_by_role("button", name="Preview", exact=True).click()
    preview = page.locator("#rule-preview")
    expect(preview).to_contain_text("What it would derive here")
    expect(preview).to_contain_text("Dana · car: Subaru")
    expect(preview).to_contain_text("because Dana has Subaru; Subaru is a car")
    expect(preview.locator(".rule-reading")).to_contain_text("If someone has thing, and thing is a car, then")
    assert page.evaluate("window.stillThisPage === true"), "the preview reloaded the page instead of htmx swapping"
    assert not Rule.objects.filter(name="a car someone has is their car").exists()
    shot(page, "rule-preview")

    page.get_by_role("button", name="Save as draft").click()
    expect(page.get_by_text("saved as a draft")).to_be_visible()
    rule = Rule.objects.get(name="a car someone has is their car")
    assert (rule.status, rule.author) == (RuleStatus.DRAFT, people["dana"])

    # Another person, a reviewer of common sense, decides it: from the review page to that queue.
    reviewer = page.context.browser.new_context().new_page()
    sign_in(reviewer, base, "rita")
    reviewer.get_by_role("navigation", name="Main").get_by_role("link", name="Review").click()
    reviewer.get_by_role("link", name=people["common"].name).click()
    item = reviewer.locator(f"#rule-{rule.pk}")
    expect(item.get_by_role("heading", name="a car someone has is their car")).to_be_visible()
    expect(item.locator(".rule-reading").first).to_contain_text("If someone has thing, and thing is a car")
    expect(item).to_contain_text("Proposed by Dana")
    expect(item).to_contain_text("Rita · car: Corolla")  # what rita sees; the family's Subaru is not hers to see
    expect(item).not_to_contain_text("Subaru")
    item.scroll_into_view_if_needed()
    shot(reviewer, "rule-in-queue")
    item.get_by_role("button", name="Approve rule").click()
    expect(reviewer.get_by_text("Rule a car someone has is their car: approved.")).to_be_visible()
    rule.refresh_from_db()
    assert (rule.status, rule.reviewer) == (RuleStatus.APPROVED, people["rita"])
    expect(reviewer.locator(f"#rule-{rule.pk}")).to_have_count(0)
