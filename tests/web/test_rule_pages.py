"""The rule form (issue 20: rules as a form, not JSON): labels picked from the
registry, rule_check's words on a refused form (400, nothing written), a
preview of what the rule would derive on what the writer sees of the scope, a
draft saved for its author — and, in the global scope's review queue, each
draft in words with its preview and the decision."""

from __future__ import annotations

import re

import pytest

from cards.drafts import CardDraft
from cards.models import Rule, RuleStatus
from cards.services import card_remember
from scopes.services import global_scope_get, membership_set
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db

CAR_RULE = {"name": "a car someone has is their car", "description": "What you have and is a car, you drive.",
            "rows": [("someone", "has", "?thing"), ("?thing", "is_a", "car")],
            "then": ("someone", "car", "?thing")}


def posted(rule: dict = CAR_RULE, action: str = "save", **extra) -> dict:
    """The form as a browser posts it."""
    data = {"name": rule["name"], "description": rule.get("description", ""), "action": action,
            "premise-TOTAL_FORMS": str(len(rule["rows"])), "premise-INITIAL_FORMS": "0",
            "premise-MIN_NUM_FORMS": "0", "premise-MAX_NUM_FORMS": "5"}
    for i, (subject, label, obj) in enumerate(rule["rows"]):
        data.update({f"premise-{i}-subject": subject, f"premise-{i}-label": label, f"premise-{i}-object": obj})
    subject, label, obj = rule["then"]
    data.update({"conclusion-subject": subject, "conclusion-label": label, "conclusion-object": obj})
    return {**data, **extra}


@pytest.fixture
def subaru(household, alice):
    """In the family: alice has a Subaru, and a Subaru is a car."""
    family = household["family"]
    for draft in (CardDraft(kind="state", subject="me", label="has", value="Subaru"),
                  CardDraft(kind="state", subject="Subaru", label="is_a", object="car")):
        card_remember(scope=family, actor=alice, draft=draft)
    return family


def url(scope) -> str:
    return f"/scopes/{scope.pk}/rules/new/"


def test_the_form_offers_the_registry_s_labels_grouped_by_kind_and_no_json(pages, household):
    page = pages(household["bob"]).get(url(household["family"]))
    assert page.status_code == 200
    html = page.content.decode()
    assert '<optgroup label="What holds now">' in html and '<optgroup label="What is known">' in html
    assert re.search(r'<option value="is_a">is a · A kind the subject belongs to', html)
    assert '<option value="wedding"' not in html  # events never derive
    # A conclusion never infers a sensitive attribute; a condition may read one.
    conclusion = html[html.index('name="conclusion-label"'):]
    conclusion = conclusion[:conclusion.index("</select>")]
    assert 'value="religion"' not in conclusion and 'value="religion"' in html
    assert "premise-0-subject" in html and "premise-1-label" in html and "premise-2-label" not in html
    assert "[[" not in html and "?x" not in html


def test_preview_shows_what_it_derives_with_the_chain_and_writes_nothing(pages, household, subaru):
    page = pages(household["bob"]).post(url(subaru), posted(action="preview"))
    assert page.status_code == 200
    html = page.content.decode()
    assert "What it would derive here" in html
    assert "Alice · car: Subaru" in html
    assert "because Alice has Subaru; Subaru is a car" in html
    # The rule in words, variables as words.
    assert "If <var>someone</var> has <var>thing</var>, and <var>thing</var> is a <q>car</q>, then " \
           "<var>someone</var>'s car is <var>thing</var>." in html
    assert 'name="premise-0-subject" value="someone"' in html  # the form as typed, for another go
    assert not Rule.objects.filter(name=CAR_RULE["name"]).exists()


def test_preview_through_htmx_is_the_fragment_alone(pages, household, subaru):
    page = pages(household["bob"]).post(url(subaru), posted(action="preview"), headers={"HX-Request": "true"})
    html = page.content.decode()
    assert page.status_code == 200 and "<html" not in html
    assert 'id="rule-preview"' in html and "Alice · car: Subaru" in html
    # A rule that cannot run: its problems fill the fragment (htmx swaps only a 2xx).
    bad = posted(dict(CAR_RULE, rows=[("?thing", "is_a", "car")]), action="preview")
    page = pages(household["bob"]).post(url(subaru), bad, headers={"HX-Request": "true"})
    assert page.status_code == 200 and "premise subject ?thing is not bound" in page.content.decode()
    assert not Rule.objects.filter(name=CAR_RULE["name"]).exists()


def test_a_rule_that_derives_nothing_here_says_so(pages, household):
    page = pages(household["bob"]).post(url(household["family"]), posted(action="preview"))
    assert page.status_code == 200 and "It would derive nothing here" in page.content.decode()


def test_the_preview_uses_only_what_the_writer_may_see(pages, household, alice):
    """The Subaru is a car in alice's own scope: her preview in the family sees it, bob's does not."""
    family = household["family"]
    card_remember(scope=family, actor=alice, draft=CardDraft(kind="state", subject="me", label="has", value="Subaru"))
    card_remember(scope=alice.personal_scope, actor=alice, draft=CardDraft(kind="state", subject="Subaru",
                                                                          label="is_a", object="car"))
    assert "Alice · car: Subaru" in pages(alice).post(url(family), posted(action="preview")).content.decode()
    bobs = pages(household["bob"]).post(url(family), posted(action="preview")).content.decode()
    assert "It would derive nothing here" in bobs and "Subaru" not in bobs.split('id="rule-preview"')[1]


def test_saving_writes_a_draft_authored_by_the_person(pages, household, subaru):
    bob = household["bob"]
    page = pages(bob).post(url(subaru), posted())
    assert page.status_code == 302 and page.url == f"/scopes/{subaru.pk}/"  # bob does not review the family
    rule = Rule.objects.get(name=CAR_RULE["name"])
    assert (rule.status, rule.author, rule.reviewer, rule.approved_at) == (RuleStatus.DRAFT, bob, None, None)
    assert rule.premises == [["?someone", "has", "?thing"], ["?thing", "is_a", "car"]]
    assert rule.conclusion == ["?someone", "car", "?thing"]
    assert rule.description == CAR_RULE["description"]


@pytest.mark.parametrize("rule, problem", [
    (dict(CAR_RULE, rows=[("someone", "colour_of_soul", "?thing")]),
     "&#x27;colour_of_soul&#x27; is not a registered label key"),
    (dict(CAR_RULE, rows=[("?thing", "is_a", "car")]), "premise subject ?thing is not bound"),
    (dict(CAR_RULE, rows=[("someone", "has", "?other")]),
     "the conclusion&#x27;s ?thing does not appear in any premise"),
    (dict(CAR_RULE, rows=[("someone", "has", "?thing")] * 5 + [("?thing", "is_a", "car")]),
     "premises must be a list of 1 to 5 patterns"),
    (dict(CAR_RULE, rows=[("", "", "")]), "premises must be a list of 1 to 5 patterns"),
    (dict(CAR_RULE, rows=[("someone", "has", "")]), "Fill in all three"),
    (dict(CAR_RULE, then=("someone", "", "?thing")), "This field is required."),
    (dict(CAR_RULE, name=""), "This field is required."),
], ids=["bad label", "unbound variable", "conclusion from nowhere", "too many premises", "no premise",
        "half a row", "conclusion without label", "no name"])
@pytest.mark.parametrize("action", ["save", "preview"])
def test_a_rule_that_cannot_run_is_a_400_with_the_problem_and_nothing_written(pages, household, rule, problem,
                                                                               action):
    page = pages(household["bob"]).post(url(household["family"]), posted(rule, action=action))
    assert page.status_code == 400
    assert problem in page.content.decode()
    assert not Rule.objects.filter(name=CAR_RULE["name"]).exists()


def test_a_name_taken_is_a_400_on_the_name(pages, household):
    Rule.objects.create(name=CAR_RULE["name"], premises=[["?x", "is_a", "?k"]], conclusion=["?x", "is_a", "?k"])
    page = pages(household["bob"]).post(url(household["family"]), posted())
    assert page.status_code == 400 and "A rule with this name exists already" in page.content.decode()
    assert Rule.objects.filter(name=CAR_RULE["name"]).count() == 1


def test_add_a_condition_keeps_what_was_typed_and_stops_at_five(pages, household):
    client = pages(household["bob"])
    page = client.post(url(household["family"]), posted(action="add"))
    html = page.content.decode()
    assert page.status_code == 200 and "premise-2-subject" in html and "premise-3-subject" not in html
    assert 'name="premise-1-object" value="car"' in html and 'value="a car someone has is their car"' in html
    assert not Rule.objects.filter(name=CAR_RULE["name"]).exists()
    five = posted(dict(CAR_RULE, rows=[("someone", "has", "?thing")] * 5), action="add")
    html = client.post(url(household["family"]), five).content.decode()
    assert "premise-4-subject" in html and "premise-5-subject" not in html and "Add a condition" not in html


def test_a_reviewer_of_the_scope_may_write_one_too(pages, household):
    rita = UserFactory(username="rita")
    membership_set(scope=household["family"], user=rita, role="reviewer")
    page = pages(rita).post(url(household["family"]), posted())
    assert page.status_code == 302 and page.url == f"/scopes/{household['family'].pk}/review/"
    assert Rule.objects.get(name=CAR_RULE["name"]).author == rita


def test_the_scope_s_review_page_links_to_the_form(pages, household, alice):
    page = pages(alice).get(f"/scopes/{household['family'].pk}/review/")
    assert f'href="{url(household["family"])}"' in page.content.decode()


# --- in the review queue -----------------------------------------------------------------------


@pytest.fixture
def curator(db):
    """A reviewer of common sense: rules are decided in the global scope's queue."""
    person = UserFactory(username="curator")
    membership_set(scope=global_scope_get(), user=person, role="reviewer")
    return person


def test_a_draft_in_the_queue_reads_in_words_with_its_preview_then_is_approved_by_someone_else(
        pages, household, curator):
    bob = household["bob"]
    pages(bob).post(url(household["family"]), posted())
    rule = Rule.objects.get(name=CAR_RULE["name"])
    # The curator's own scope is what they see from the global queue (with common sense).
    for draft in (CardDraft(kind="state", subject="me", label="has", value="Corolla"),
                  CardDraft(kind="state", subject="Corolla", label="is_a", object="car")):
        card_remember(scope=curator.personal_scope, actor=curator, draft=draft)
    common = global_scope_get()
    queue = pages(curator).get(f"/scopes/{common.pk}/review/")
    html = queue.content.decode()
    assert queue.status_code == 200 and "Rules awaiting approval" in html
    item = html[html.index(f'id="rule-{rule.pk}"'):]
    item = item[:item.index("</article>")]
    assert "If <var>someone</var> has <var>thing</var>" in item and "[[" not in item
    assert "Proposed by Bob" in item
    assert "Curator · car: Corolla" in item and "because Curator has Corolla; Corolla is a car" in item
    assert "Subaru" not in item  # the family is not the curator's to see
    assert f'action="/review/rules/{rule.pk}/approve/"' in item
    # The author may not approve it, even as a reviewer of common sense.
    membership_set(scope=common, user=bob, role="reviewer")
    pages(bob).post(f"/review/rules/{rule.pk}/approve/")
    rule.refresh_from_db()
    assert rule.status == RuleStatus.DRAFT
    assert pages(curator).post(f"/review/rules/{rule.pk}/approve/").status_code == 302
    rule.refresh_from_db()
    assert (rule.status, rule.reviewer) == (RuleStatus.APPROVED, curator)


def test_a_draft_that_derives_nothing_for_the_reviewer_says_so(pages, household, curator):
    pages(household["bob"]).post(url(household["family"]), posted())
    html = pages(curator).get(f"/scopes/{global_scope_get().pk}/review/").content.decode()
    assert "It would derive nothing here" in html


def test_a_draft_broken_by_hand_shows_its_problem_not_a_500(pages, curator):
    Rule.objects.create(name="broken", premises=[["?g", "diet", "?d"]], conclusion=["?x", "diet", "?d"])
    page = pages(curator).get(f"/scopes/{global_scope_get().pk}/review/")
    assert page.status_code == 200 and "premise subject ?g is not bound" in page.content.decode()


def test_an_agent_token_never_approves_a_rule(bearer, curator, household):
    rule = Rule.objects.create(name="club diet", premises=[["?x", "member_of", "?g"], ["?g", "diet", "?d"]],
                               conclusion=["?x", "diet", "?d"], author=household["bob"])
    agent = bearer(curator, all_scopes=True, write=True)
    assert agent.post(f"/api/v1/review/rules/{rule.pk}/approve/", {}, format="json").status_code in (403, 404)
    rule.refresh_from_db()
    assert rule.status == RuleStatus.DRAFT


def test_the_preview_and_the_queue_read_scoped_rows_through_a_scope_filter(pages, household, subaru, curator):
    """As every page (tests/web/test_page_permissions.py): the form's preview, and a draft's in the queue."""
    from tests.sql_scope import recorded, unscoped_reads

    bob = household["bob"]
    with recorded() as statements:
        assert "Alice · car: Subaru" in pages(bob).post(url(subaru), posted(action="preview")).content.decode()
        pages(bob).post(url(subaru), posted())
        assert "It would derive nothing here" in pages(curator).get(
            f"/scopes/{global_scope_get().pk}/review/").content.decode()
    # The queue's own read of the drafts (review_queue) is restricted by InGlobalScope's EXISTS over the
    # global scope, a shape tests/sql_scope.py does not recognise: it is the queue's, not this page's.
    stray = [s for s in unscoped_reads(statements) if (s.origin or ())[:2] != ("review/selectors.py", "review_queue")]
    assert not stray, "\n".join(map(str, stray))


def test_the_admin_s_json_form_links_to_the_rule_form(client):
    staff = UserFactory(username="ada", is_staff=True, is_superuser=True)
    client.force_login(staff)
    page = client.get("/admin/cards/rule/add/")
    assert page.status_code == 200
    link = f'href="/scopes/{staff.personal_scope.pk}/rules/new/">Write a rule on the dashboard</a>'
    assert link in page.content.decode()


def test_the_form_is_for_a_signed_in_person_never_an_agent_token(bearer, household):
    agent = bearer(household["bob"], scopes=[household["family"]], write=True)
    answer = agent.post(url(household["family"]), posted())
    assert answer.status_code == 302 and answer.url.startswith("/accounts/login/")
    assert not Rule.objects.filter(name=CAR_RULE["name"]).exists()
