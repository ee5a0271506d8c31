"""What waits for a person (issue 20): pending reviews, invitations, what was
said about them against their word, and the questions their agents have not
put to them — listed on the home page, counted in the header, from the scopes
they belong to only, in a fixed number of queries, and never for an agent token."""

import datetime as dt
import re

import pytest
from django.db import connection
from django.test import RequestFactory
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from cards.drafts import CardDraft
from cards.models import CardAsked
from cards.services import card_remember
from core.errors import NotAllowed
from memory_site.waiting import waiting_context, waiting_for
from review.models import Candidate, Probe
from scopes.invites import invitation_create
from scopes.principals import Principal
from scopes.services import membership_remove, membership_set, scope_create
from scopes.tokens import token_create
from tests.factories import family_scope

pytestmark = pytest.mark.django_db


def _proposed(scope, author, value="chess"):
    return Candidate.objects.create(scope=scope, author=author, kind="state", label="skill", subject="me",
                                    value=value, quote=f"I play {value}", message_at=timezone.now(),
                                    extractor="patterns")


def _state(scope, actor, label, value, subject="me", **fields):
    return card_remember(scope=scope, actor=actor, draft=CardDraft(kind="state", subject=subject, label=label,
                                                                   value=value, **fields)).card


def _badge(page: str) -> str | None:
    found = re.search(r'<a class="waiting-count"[^>]*aria-label="([^"]+)"[^>]*>(\d+)</a>', page)
    return f"{found[2]}|{found[1]}" if found else None


@pytest.fixture
def waits(household, alice):
    """For alice: a candidate in the family she reviews, an invitation to bob's
    club, what bob said about her, a guess about her, and a fact about her gone
    unconfirmed — five things."""
    family, bob = household["family"], household["bob"]
    candidate = _proposed(family, bob)
    club = scope_create(name="Book club", kind="team", creator=bob)
    invitation = invitation_create(scope=club, username="alice", role="member", invited_by=bob)
    own = _state(family, alice, "employer", "Harbor")
    said = _state(family, bob, "employer", "Atlas", subject=alice.entity)
    guess = _state(alice.personal_scope, alice, "likes", "opera", tag="hypothesis", confidence=0.6)
    old = _state(alice.personal_scope, alice, "city", "Taipei",
                 reference_time=timezone.now() - dt.timedelta(days=400))
    assert said.disputes_id == own.pk
    return {**household, "candidate": candidate, "club": club, "invitation": invitation, "said": said,
            "guess": guess, "old": old}


def test_the_home_page_lists_what_waits_each_linking_to_where_it_is_decided(waits, pages, alice):
    family = waits["family"]
    page = pages(alice).get("/").content.decode()
    section = page.split('id="waiting-heading"', 1)[1].split("</section>", 1)[0]
    assert f'<a href="/scopes/{family.pk}/review/">1 proposal to review in The Lins</a>' in section
    assert f'<a href="#invitation-{waits["invitation"].pk}">Bob invites you to Book club</a>' in section
    assert f'id="invitation-{waits["invitation"].pk}"' in page  # the anchor it links to, with accept/decline
    assert '<a href="/review/#said-heading">Said about you in The Lins' in section
    assert f'<a href="/cards/{waits["guess"].pk}/">A guess about you: likes — opera</a>' in section
    assert f'<a href="/cards/{waits["old"].pk}/">Still true? Your city: Taipei</a>' in section
    assert _badge(page) == "5|5 things wait for you"


def test_the_header_counts_on_every_page_and_is_absent_when_nothing_waits(waits, pages, alice):
    client = pages(alice)
    assert _badge(client.get("/review/").content.decode()) == "5|5 things wait for you"
    assert _badge(client.get(f"/cards/{waits['card'].pk}/").content.decode()) == "5|5 things wait for you"
    mallory = pages(waits["mallory"]).get("/").content.decode()
    assert _badge(mallory) is None and "Nothing waits for you." in mallory


def test_what_is_decided_or_asked_stops_waiting(waits, pages, alice):
    client = pages(alice)
    assert client.post(f"/review/candidates/{waits['candidate'].pk}/reject/", {"reason": "no"}).status_code == 302
    assert client.post(f"/invitations/{waits['invitation'].pk}/decline/").status_code in (302, 303)
    # An agent said it put these questions to her: they wait no longer on the page.
    CardAsked.objects.create(card=waits["old"], user=alice, asked_at=timezone.now(),
                             card_verified_at=waits["old"].verified_at)
    Probe.objects.create(card=waits["guess"], user=alice)
    page = client.get("/").content.decode()
    assert _badge(page) == "1|1 thing waits for you"
    assert "Said about you in The Lins" in page and "Still true?" not in page and "A guess about you" not in page
    # Confirmed since: the re-check question is a new one, not yet asked.
    waits["old"].verified_at = timezone.now() - dt.timedelta(days=200)
    waits["old"].save(update_fields=["verified_at"])
    assert _badge(client.get("/").content.decode()) == "2|2 things wait for you"


def test_own_agents_proposals_count_once(household, pages, alice):
    bob, family = household["bob"], household["family"]
    agent, _ = token_create(user=bob, name="bob-bot", proposes=True, scopes=[family])
    Candidate.objects.create(scope=family, author=bob, proposed_by=agent, kind="state", label="skill", subject="me",
                             value="Go", quote="I play go", message_at=timezone.now(), extractor="agent")
    page = pages(bob).get("/").content.decode()
    assert '<a href="/review/#proposals-heading">1 proposal from your own agents to approve or reject</a>' in page
    assert _badge(page) == "1|1 thing waits for you"
    # alice reviews the family: the same candidate is one to review for her, not two.
    assert _badge(pages(alice).get("/").content.decode()) == "1|1 thing waits for you"


def test_nothing_of_a_scope_the_person_is_not_a_member_of_counts_or_shows(waits, pages, alice):
    mallory = waits["mallory"]
    hers = family_scope(owner=mallory, name="Mallory's")
    membership_set(scope=hers, user=alice, role="owner")
    _proposed(hers, mallory, value="lockpicking")
    guess = _state(hers, mallory, "likes", "jazz", subject=alice.entity, tag="hypothesis", confidence=0.6)
    assert _badge(pages(alice).get("/").content.decode()) == "7|7 things wait for you"
    membership_remove(scope=hers, user=alice)
    page = pages(alice).get("/").content.decode()
    assert _badge(page) == "5|5 things wait for you"
    assert "Mallory&#x27;s" not in page and "jazz" not in page and f"/cards/{guess.pk}/" not in page
    # victor views the family only: nothing there is his to decide, and nothing of alice's is listed.
    victor = pages(waits["victor"]).get("/").content.decode()
    assert _badge(victor) is None and "opera" not in victor and "The Lins</a>" not in victor.split("Scopes")[0]


def test_a_guess_in_a_scope_the_person_only_views_does_not_wait_for_them(household, pages):
    victor = household["victor"]
    _state(household["family"], household["bob"], "likes", "tea", subject=victor.entity, tag="hypothesis",
           confidence=0.6)
    assert _badge(pages(victor).get("/").content.decode()) is None
    membership_set(scope=household["family"], user=victor, role="member")
    assert _badge(pages(victor).get("/").content.decode()) == "1|1 thing waits for you"


def test_the_header_count_costs_a_fixed_few_queries(waits, pages, alice, django_assert_max_num_queries):
    client = pages(alice)
    with CaptureQueriesContext(connection) as plain:
        client.get("/accounts/password/")  # a page that reads nothing else of the memory
    with CaptureQueriesContext(connection) as counted:
        waiting_for(principal=Principal(user=alice))
    assert len(counted) <= 7, [q["sql"][:120] for q in counted.captured_queries]
    # More of everything, in more scopes: the same number of queries.
    for n in range(4):
        club = scope_create(name=f"Club {n}", kind="team", creator=alice)
        _proposed(club, alice, value=f"game {n}")
        _state(club, alice, "likes", f"tune {n}", tag="hypothesis", confidence=0.6)
    with django_assert_max_num_queries(len(counted)):
        found = waiting_for(principal=Principal(user=alice))
    assert found.total == 5 + 8
    # Read once per request, however often a template asks.
    with django_assert_max_num_queries(len(plain) + len(counted)):
        page = client.get("/accounts/password/").content.decode()
    assert _badge(page) == "13|13 things wait for you"


def test_an_agent_token_never_reads_what_waits(waits, alice):
    token, _ = token_create(user=alice, name="helper", can_write=True, all_scopes=True)
    with pytest.raises(NotAllowed):
        waiting_for(principal=Principal(user=alice, token=token))
    request = RequestFactory().get("/")
    request.user, request.auth = alice, token  # as DRF leaves them after a token's authentication
    assert waiting_context(request)["waiting"].total == 0
    request.auth = None
    assert waiting_context(request)["waiting"].total == 5
