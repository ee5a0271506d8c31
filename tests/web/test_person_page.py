"""The person page ("About Dana", issue 20): everything the viewer may see about
one person across the scopes they are a member of, grouped by kind, with one
life timeline and what waits to be re-checked; and the home page's health
numbers, each linking to exactly the items it counts."""

import collections
import datetime as dt
import re
import zoneinfo

import pytest
from django.utils import timezone

from cards.drafts import CardDraft
from cards.models import Card, Entity
from cards.recall.aging import aging_card_ids
from cards.services import card_remember
from cards.services.entities import entity_merge
from review.models import Candidate
from tests.factories import UserFactory, family_scope

pytestmark = pytest.mark.django_db

ISO_INSTANT = re.compile(r"\d{4}-\d{2}-\d{2}T\d{2}:\d{2}")
ISO_DAY = re.compile(r"\d{4}-\d{2}-\d{2}")


def _remember(scope, actor, **draft):
    return card_remember(scope=scope, actor=actor, draft=CardDraft(**draft)).card


def _section(html: str, heading_id: str) -> str:
    """The part of the page under one section heading (empty when the section is absent)."""
    start = html.find(f'aria-labelledby="{heading_id}"')
    return "" if start < 0 else html[start:html.index("</section>", start)]


def _card_links(html: str) -> set[int]:
    return {int(pk) for pk in re.findall(r'href="/cards/(\d+)/"', html)}


def test_the_page_groups_what_holds_what_happened_what_is_known_and_the_guesses(pages, household, alice, t0):
    family = household["family"]
    trip = _remember(family, alice, kind="event", label="trip", subject="me", text="Trip to Hualien",
                     occurred_at=t0 - dt.timedelta(days=30), precision="day", reference_time=t0)
    note = _remember(family, alice, kind="knowledge", label="note", subject="me", text="Keeps the spare key")
    guess = _remember(family, alice, kind="state", label="likes", subject="me", value="hiking", tag="hypothesis",
                      confidence=0.6)
    page = pages(alice).get(f"/people/{alice.entity.pk}/")
    assert page.status_code == 200
    html = page.content.decode()
    assert "About Alice" in html
    now, happened = _section(html, "now-heading"), _section(html, "happened-heading")
    known, guesses = _section(html, "known-heading"), _section(html, "guesses-heading")
    # The address that holds now, not the one it superseded; each card with its scope.
    assert _card_links(now) == {household["card"].pk} and "Kyoto" in now and "The Lins" in now
    assert _card_links(happened) == {trip.pk} and "Happened" in happened
    assert _card_links(known) == {note.pk}
    # A guess is labelled as one, and never stands among the facts.
    assert _card_links(guesses) == {guess.pk} and "guess" in guesses and "Guesses, not facts" in guesses
    assert guess.pk not in _card_links(now + happened + known)
    # The provenance line, as the card page words it.
    assert "Learned" in now and "from alice" in now


def test_the_life_timeline_draws_moves_and_events_across_scopes(pages, household, alice, t0):
    family = household["family"]
    job = _remember(alice.personal_scope, alice, kind="state", label="employer", subject="me", value="Harbor",
                    reference_time=t0)
    trip = _remember(family, alice, kind="event", label="trip", subject="me", text="Trip to Hualien",
                     occurred_at=t0 + dt.timedelta(days=10), precision="day", reference_time=t0)
    skill = _remember(family, alice, kind="state", label="skill", subject="me", value="Rust")
    html = pages(alice).get(f"/people/{alice.entity.pk}/").content.decode()
    life = _section(html, "life-heading")
    svg = life[life.index("<svg"):life.index("</svg>")]
    drawn = {int(pk) for pk in re.findall(r'data-card="(\d+)"', svg)}
    # Both addresses (the superseded one too), the job from her own scope, the trip; not her skills.
    assert drawn == {household["old"].pk, household["card"].pk, job.pk, trip.pk}
    assert skill.pk not in drawn
    assert svg.count("tl-current") == 2  # Kyoto and Harbor hold now; Taipei ended, the trip is a day
    assert not ISO_DAY.search(svg)
    # The table beside the picture holds the same rows, oldest first: Taipei and the job
    # from the same day in May, the trip ten days later, Kyoto from July.
    table = life[life.index("<table"):]
    assert [int(pk) for pk in re.findall(r'href="/cards/(\d+)/"', table)] == [
        household["old"].pk, job.pk, trip.pk, household["card"].pk]


def test_a_family_member_sees_her_family_cards_never_her_personal_ones(pages, household, alice):
    secret = _remember(alice.personal_scope, alice, kind="state", label="employer", subject="me",
                       value="Quiet Harbor Ltd")
    for viewer in (household["bob"], household["victor"]):
        html = pages(viewer).get(f"/people/{alice.entity.pk}/").content.decode()
        assert "About Alice" in html and "Kyoto" in html
        assert "Quiet Harbor Ltd" not in html and secret.pk not in _card_links(html)
        assert alice.personal_scope.name not in html
    own = pages(alice).get(f"/people/{alice.entity.pk}/").content.decode()
    assert "Quiet Harbor Ltd" in own and alice.personal_scope.name in own


def test_someone_the_viewer_may_not_see_is_the_same_404_as_no_one(pages, household, alice):
    # Known only in alice's personal scope: bob may not see the name at all.
    grandpa = _remember(alice.personal_scope, alice, kind="state", label="city", subject="Grandpa Joe",
                        value="Tainan").subject
    bob = pages(household["bob"])
    assert bob.get(f"/people/{grandpa.pk}/").status_code == 404
    assert bob.get("/people/999999999/").status_code == 404
    assert bob.get("/people/0/").status_code == 404  # not an id: no route
    stranger = pages(household["mallory"]).get(f"/people/{alice.entity.pk}/")
    assert stranger.status_code == 404 and b"not yours to see" in stranger.content
    assert pages(alice).get(f"/people/{grandpa.pk}/").status_code == 200


def test_the_cards_of_a_name_merged_into_a_person_are_on_their_page(pages, household, alice):
    family = household["family"]
    nickname = _remember(family, household["bob"], kind="state", label="school", subject="Ally",
                         value="Night school")
    ally = Entity.objects.get(pk=nickname.subject_id)
    entity_merge(duplicate=ally, into=alice.entity)
    client = pages(household["bob"])
    html = client.get(f"/people/{alice.entity.pk}/").content.decode()
    assert nickname.pk in _card_links(_section(html, "now-heading")) and "Night school" in html
    # The second name's own page is the person's.
    answer = client.get(f"/people/{ally.pk}/")
    assert answer.status_code == 302 and answer.url == f"/people/{alice.entity.pk}/"


def test_to_re_check_lists_the_persons_facts_due_as_the_home_counts_them(pages, household, alice, t0):
    family = household["family"]
    old = t0 - dt.timedelta(days=400)
    stale = _remember(family, alice, kind="state", label="employer", subject="me", value="Harbor",
                      reference_time=old)
    fresh = _remember(family, alice, kind="state", label="job_title", subject="me", value="Engineer")
    others = _remember(family, household["bob"], kind="state", label="employer", subject="me", value="Dock",
                       reference_time=old)
    html = pages(household["bob"]).get(f"/people/{alice.entity.pk}/").content.decode()
    recheck = _card_links(_section(html, "recheck-heading"))
    due = set(aging_card_ids([family.pk]))
    assert {stale.pk, others.pk} <= due and fresh.pk not in due
    # The same rule as the home page's count, kept to her cards.
    hers = set(Card.objects.filter(subject=alice.entity).values_list("pk", flat=True))
    assert recheck == due & hers and stale.pk in recheck


@pytest.mark.parametrize(("zone", "username", "moved_day"), [("Europe/Lisbon", "dana", "Sep 15, 2026"),
                                                              ("Asia/Taipei", "mei", "Sep 15, 2026")])
def test_a_household_sees_each_cards_dates_as_its_own_local_days(pages, zone, username, moved_day):
    person = UserFactory(username=username, time_zone=zone)
    partner = UserFactory(username=f"{username}-partner", time_zone=zone)
    family = family_scope(owner=person, name="Home")
    from scopes.services import membership_set

    membership_set(scope=family, user=partner, role="member")
    local = zoneinfo.ZoneInfo(zone)
    # Local midnight: in Lisbon still the 14th in UTC in summer, in Taipei the 14th at 16:00 UTC.
    moved = dt.datetime(2026, 9, 15, tzinfo=local)
    card_remember(scope=family, actor=person, draft=CardDraft(
        kind="state", label="address", subject="me", value="Rua das Amoreiras 14", effective_at=moved,
        reference_time=moved + dt.timedelta(hours=9)))
    card_remember(scope=family, actor=person, draft=CardDraft(
        kind="event", label="trip", subject="me", text="Trip to the coast",
        occurred_at=dt.datetime(2026, 2, 1, tzinfo=local), precision="day", reference_time=moved))
    for viewer in (person, partner):
        html = pages(viewer).get(f"/people/{person.entity.pk}/").content.decode()
        now = _section(html, "now-heading")
        assert f"Since {moved_day}" in now and "Sep 14" not in now
        assert "Feb 1, 2026" in _section(html, "happened-heading")
        assert not ISO_INSTANT.search(html), ISO_INSTANT.search(html)
        svg = html[html.index("<svg"):html.index("</svg>")]
        assert not ISO_DAY.search(svg)


def test_about_you_is_ones_own_page_and_names_link_to_theirs(pages, household, alice):
    client = pages(household["bob"])
    home = client.get("/").content.decode()
    assert 'href="/people/me/">About you</a>' in home
    answer = client.get("/people/me/")
    assert answer.status_code == 302 and answer.url == f"/people/{household['bob'].entity.pk}/"
    own = client.get(answer.url).content.decode()
    assert "About Bob" in own and "Nothing about Bob is remembered" in own
    entities = client.get("/entities/").content.decode()
    assert f'href="/people/{alice.entity.pk}/">Alice</a>' in entities


def test_the_page_reads_in_a_fixed_number_of_queries(pages, household, alice, django_assert_max_num_queries):
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    family = household["family"]
    client = pages(household["bob"])
    url = f"/people/{alice.entity.pk}/"
    with CaptureQueriesContext(connection) as first:
        client.get(url)
    for n in range(6):
        _remember(family, alice, kind="event", label="trip", subject="me", text=f"Trip {n}",
                  occurred_at=timezone.now() - dt.timedelta(days=n + 1), precision="day")
        _remember(family, alice, kind="knowledge", label="note", subject="me", text=f"Note {n}")
    with django_assert_max_num_queries(len(first)):
        assert client.get(url).status_code == 200


# --- the home page's numbers and the facts behind them -------------------------------------------------------

def _row(home: str, scope_name: str) -> str:
    """One scope's health line on the home page."""
    return home.split(f'aria-label="Health of {scope_name}"')[1].split("</ul>")[0]


def _health_links(row: str) -> dict[str, tuple[int, str]]:
    """{what: (the number shown, where it links)} of one scope's health line."""
    return {what: (int(number), url.replace("&amp;", "&")) for what, url, number in
            re.findall(r'<a data-health="(\w+)" href="([^"]+)">(\d+) ', row)}


def _items_on(client, url: str) -> int:
    """How many items the linked page lists: the rows of a scope's card list, or the
    review items of the review page's section the link's fragment names."""
    path, _, fragment = url.partition("#")
    html = client.get(path).content.decode()
    if fragment:
        return len(re.findall(r'<article class="review-item\b', _section(html, fragment)))
    listing = html[html.index('id="card-list"'):]
    if "<tbody>" not in listing:
        return 0
    rows = re.findall(r"<tr[\s>].*?</tr>", listing[listing.index("<tbody>"):listing.index("</tbody>")], re.S)
    if "view=contradictions" in url:  # a contradiction is listed by its sides: one subject and label, two values
        sides = collections.Counter(re.findall(r'data-label="Subject">([^<]*)</td>\s*<td data-label="Label">([^<]*)<',
                                               row)[0] for row in rows)
        assert all(n > 1 for n in sides.values()), sides
        return len(sides)
    return len(rows)


@pytest.fixture
def troubled_family(household, alice, t0):
    """The Lins with something behind every number: cards, a fact gone stale, a contradiction
    (alice's own scope says another address), proposals waiting, guesses to confirm."""
    family, bob = household["family"], household["bob"]
    _remember(family, alice, kind="state", label="employer", subject="me", value="Harbor",
              reference_time=t0 - dt.timedelta(days=400))
    # Each side of a contradiction in someone's own scope: alice sees hers, bob his.
    _remember(alice.personal_scope, alice, kind="state", label="address", subject="me", value="Osaka")
    _remember(bob.personal_scope, bob, kind="state", label="address", subject=alice.entity, value="Nagoya")
    for value in ("hiking", "tea"):
        _remember(family, bob, kind="state", label="likes", subject="me", value=value, tag="hypothesis",
                  confidence=0.6)
    for value in ("chess", "go"):
        Candidate.objects.create(scope=family, author=alice, kind="state", label="skill", subject="me", value=value,
                                 quote=f"I play {value}", message_at=t0, extractor="patterns")
    return family


def test_each_home_number_equals_the_items_on_the_page_it_links_to(pages, household, alice, troubled_family):
    client = pages(alice)
    links = _health_links(_row(client.get("/").content.decode(), "The Lins"))
    assert set(links) == {"cards", "aging", "contradictions", "reviews", "hypotheses"}
    assert links["contradictions"][1].startswith(f"/scopes/{troubled_family.pk}/review/")
    for what, (number, url) in links.items():
        assert number > 0 and _items_on(client, url) == number, (what, url)


def test_for_a_member_who_does_not_review_the_numbers_link_to_what_they_may_see(pages, household,
                                                                                 troubled_family):
    client = pages(household["bob"])
    row = _row(client.get("/").content.decode(), "The Lins")
    links = _health_links(row)
    # Not the review queue, which only reviewers see: the scope's own views; no review count.
    assert set(links) == {"cards", "aging", "contradictions", "hypotheses"}
    assert "to review" not in row
    assert links["hypotheses"][1] == f"/scopes/{troubled_family.pk}/?view=current&tag=hypothesis"
    assert links["contradictions"][1] == f"/scopes/{troubled_family.pk}/?view=contradictions&ladder=on"
    for what, (number, url) in links.items():
        assert number > 0 and _items_on(client, url) == number, (what, url)
