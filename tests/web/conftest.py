import pytest
from django.test import Client

from cards.drafts import CardDraft
from cards.services import card_remember
from scopes.services import membership_set
from tests.factories import UserFactory, family_scope


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(items):
    # Browser tests last: once Playwright's event loop runs, plain ORM tests would
    # see an async context, and their flush would drop the migrated labels.
    items.sort(key=lambda item: item.get_closest_marker("browser") is not None)


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
    """Browser tests run on committed data (a live server) and the database is
    flushed after each transactional test; after another transactional test the
    restore of the migrated rows (content types, permissions, labels, rules) was
    seen not to happen, so the built-in rows are put back here, from what
    creates them, whenever they are missing."""
    if request.node.get_closest_marker("browser") is None:
        yield
        return
    request.getfixturevalue("transactional_db")
    import importlib

    from django.apps import apps
    from django.contrib.auth.management import create_permissions
    from django.contrib.auth.models import Permission
    from django.contrib.contenttypes.management import create_contenttypes

    from cards.labels import registry_clear
    from cards.models import Label, Rule

    if not Permission.objects.filter(codename="view_scope").exists():  # guardian grants need them
        for app_config in apps.get_app_configs():
            create_contenttypes(app_config, verbosity=0)
            create_permissions(app_config, verbosity=0)
    if not Label.objects.exists():
        importlib.import_module("cards.migrations.0005_builtin_labels").load(apps, None)
        importlib.import_module("cards.migrations.0013_tag_rules").forward(apps, None)
        importlib.import_module("cards.migrations.0014_label_ages_and_asked").never_age(apps, None)
    if not Rule.objects.exists():
        importlib.import_module("cards.migrations.0009_builtin_rules").load(apps, None)
    registry_clear()
    yield
