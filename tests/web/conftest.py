import pytest
from django.test import Client

from cards.drafts import CardDraft
from cards.services import card_remember
from scopes.services import membership_set
from tests.builtin_rows import builtin_rows_restore
from tests.factories import UserFactory, family_scope


@pytest.fixture
def pages():
    """A browser-like client: signs a person in through the session (no token)."""
    def signed_in(user) -> Client:
        client = Client()
        client.force_login(user)
        return client
    return signed_in


@pytest.fixture
def household(alice, t0):
    """alice owns the family (a card, an address that moved); bob is a member,
    victor a viewer; mallory belongs nowhere."""
    family = family_scope(owner=alice, name="The Lins")
    bob, victor, mallory = (UserFactory(username=name) for name in ("bob", "victor", "mallory"))
    membership_set(scope=family, user=bob, role="member")
    membership_set(scope=family, user=victor, role="viewer")
    first = card_remember(scope=family, actor=alice, draft=CardDraft(
        kind="state", label="address", subject="me", value="Taipei", reference_time=t0)).card
    second = card_remember(scope=family, actor=alice, draft=CardDraft(
        kind="state", label="address", subject="me", value="Kyoto", reference_time=t0.replace(month=7))).card
    return {"family": family, "bob": bob, "victor": victor, "mallory": mallory, "old": first, "card": second}


@pytest.fixture(autouse=True)
def _builtin_rows(request):
    """Browser tests run on committed data (a live server): tests/builtin_rows.py."""
    if request.node.get_closest_marker("browser") is None:
        yield
        return
    request.getfixturevalue("transactional_db")
    builtin_rows_restore()
    yield
