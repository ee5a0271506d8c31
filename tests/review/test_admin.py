"""The admin for reviewers: signed in without being staff, they see the review
models only for the scopes they review (guardian), bulk approve and reject,
and correct event descriptions (kept as revisions) — never what happened."""

import pytest
from django.urls import reverse
from django.utils import timezone

from cards.drafts import CardDraft
from cards.models import Card, CardRevision
from cards.services import card_remember
from review.models import Candidate, CandidateStatus
from scopes.services import membership_set
from tests.factories import UserFactory, family_scope

pytestmark = pytest.mark.django_db


@pytest.fixture
def setup(alice, client):
    family = family_scope(owner=alice)
    rita = UserFactory(username="rita")  # not staff
    membership_set(scope=family, user=rita, role="reviewer")
    client.force_login(rita)
    return family, rita, client


def candidate(scope, author, value):
    return Candidate.objects.create(scope=scope, author=author, kind="state", label="skill", subject="me", value=value,
                                    quote=f"I can {value}", message_at=timezone.now(), extractor="patterns")


def test_a_reviewer_sees_only_the_queues_of_scopes_they_review_and_bulk_decides(alice, setup):
    family, rita, client = setup
    mine, elsewhere = candidate(family, alice, "knit"), candidate(alice.personal_scope, alice, "juggle")
    second = candidate(family, alice, "sew")
    assert client.get(reverse("admin:index")).status_code == 200
    listing = client.get(reverse("admin:review_candidate_changelist"))
    assert listing.status_code == 200 and b"I can knit" in listing.content and b"I can juggle" not in listing.content
    client.post(reverse("admin:review_candidate_changelist"), {"action": "approve", "_selected_action": [mine.pk]})
    client.post(reverse("admin:review_candidate_changelist"),
                {"action": "reject", "_selected_action": [second.pk, elsewhere.pk]})
    statuses = dict(Candidate.objects.values_list("pk", "status"))
    assert statuses == {mine.pk: CandidateStatus.APPROVED, second.pk: CandidateStatus.REJECTED,
                        elsewhere.pk: CandidateStatus.PENDING}  # another scope's candidate is out of reach
    assert Card.objects.filter(scope=family, value="knit").exists()
    assert client.get(reverse("admin:scopes_scope_changelist")).status_code == 403


def test_a_reviewer_corrects_an_event_description_but_never_when_it_happened(alice, setup):
    family, rita, client = setup
    start = timezone.now().replace(microsecond=0)
    event = card_remember(scope=family, actor=alice, draft=CardDraft(
        kind="event", label="wedding", subject="me", value="Ana's wedding", text="at the lake",
        occurred_at=start, precision="datetime", time_source="stated")).card
    url = reverse("admin:cards_card_change", args=[event.pk])
    page = client.get(url)
    assert page.status_code == 200
    assert b'name="text"' in page.content and b'name="occurred_at' not in page.content  # read-only
    response = client.post(url, {"tag": "fact", "text": "at the lake house", "confidence": "", "impact": "2",
                                 "perspectives-TOTAL_FORMS": "0", "perspectives-INITIAL_FORMS": "0"})
    assert response.status_code == 302, response.content[:3000]
    event.refresh_from_db()
    assert event.text == "at the lake house" and event.occurred_at == start
    revision = CardRevision.objects.get(card=event)
    assert (revision.before, revision.after, revision.actor) == ("at the lake", "at the lake house", rita)
    private = card_remember(scope=alice.personal_scope, actor=alice,
                            draft=CardDraft(kind="state", label="city", subject="me", value="Taipei")).card
    assert client.get(reverse("admin:cards_card_change", args=[private.pk])).status_code == 302  # not hers
    assert client.post(reverse("admin:cards_card_delete", args=[event.pk]), {"post": "yes"}).status_code == 403


def test_owning_only_a_personal_scope_opens_no_admin_people_review_theirs_in_the_dashboard(alice, setup, client):
    """Everyone reviews their own personal scope, so everyone counted as a reviewer
    and could open the admin; it is for staff and reviewers of shared scopes."""
    family, _, _ = setup
    candidate(family, alice, "knit")
    mo = UserFactory(username="mo")  # owns only his personal scope
    candidate(mo.personal_scope, mo, "whistle")
    client.force_login(mo)
    for url in (reverse("admin:index"), reverse("admin:review_candidate_changelist")):
        answer = client.get(url)
        assert answer.status_code == 302 and answer.url.startswith(reverse("admin:login"))
    queue = client.get(f"/scopes/{mo.personal_scope.pk}/review/")
    assert queue.status_code == 200 and b"I can whistle" in queue.content  # his queue is on the dashboard
    mo.is_staff = True
    mo.save()
    assert client.get(reverse("admin:index")).status_code == 200  # staff as usual


def test_a_shared_scope_reviewer_sees_only_shared_scopes_in_the_admin(alice, setup):
    family, rita, client = setup
    candidate(family, alice, "knit")
    candidate(rita.personal_scope, rita, "juggle")  # her own: reviewed in the dashboard
    listing = client.get(reverse("admin:review_candidate_changelist"))
    assert b"I can knit" in listing.content and b"I can juggle" not in listing.content
    rita.is_active = False
    rita.save()
    assert client.get(reverse("admin:index")).status_code == 302  # to the sign-in page
