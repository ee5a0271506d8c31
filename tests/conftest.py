import datetime as dt

import pytest
from rest_framework.test import APIClient

from cards.labels import registry_clear
from scopes.tokens import token_create
from tests.factories import UserFactory


def _run_order(item) -> int:
    """Tests on committed data flush the database when they end, and Django's flush
    puts the content types back (post_migrate): a serialized rollback after that
    would insert them twice. So serialized-rollback tests run before the other
    transactional ones, and browser tests last: once Playwright's event loop runs,
    plain ORM tests would see an async context, and their flush would drop the
    migrated labels."""
    if item.get_closest_marker("browser") is not None:
        return 3
    marker = item.get_closest_marker("django_db")
    if marker is not None and marker.kwargs.get("serialized_rollback"):
        return 1
    committed = marker is not None and marker.kwargs.get("transaction")
    return 2 if committed or {"transactional_db", "live_server"} & set(getattr(item, "fixturenames", ())) else 0


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(items):
    items.sort(key=_run_order)


@pytest.fixture(scope="session")
def django_db_setup(request, django_db_setup, django_db_blocker):
    """The test database without autovacuum. Tests roll their rows back, so its tables fill
    with dead rows; autovacuum then measures them as holding nothing (`reltuples` 0 over many
    pages), and the planner believed every table empty however many rows a test's own
    transaction added — binding a name walked every entity for every candidate, and one test
    of 200 names ran past ten minutes late in a run. Never vacuumed, the planner reads a
    table's size from its pages, as it does early in a run."""
    from django.db import connection

    with django_db_blocker.unblock():
        with connection.cursor() as cursor:
            cursor.execute("SELECT format('%I.%I', schemaname, tablename) FROM pg_tables WHERE schemaname = 'public'")
            for (table,) in cursor.fetchall():
                cursor.execute(f"ALTER TABLE {table} SET (autovacuum_enabled = off, toast.autovacuum_enabled = off)")
    yield


@pytest.fixture(autouse=True)
def _fresh_label_registry():
    # Test transactions roll back labels a test registered; the per-process
    # cache must not outlive them.
    registry_clear()
    yield
    registry_clear()


@pytest.fixture
def alice(db):
    return UserFactory(username="alice", time_zone="Asia/Taipei")


@pytest.fixture
def scope(alice):
    return alice.personal_scope


@pytest.fixture
def t0():
    return dt.datetime(2026, 5, 8, 16, 44, 10, tzinfo=dt.timezone(dt.timedelta(hours=8)))


@pytest.fixture(autouse=True)
def _fast_password_hasher(settings):
    # PBKDF2 takes ~0.3 s per user on this machine; tests create many users.
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]


@pytest.fixture(autouse=True)
def _no_embedding_on_write(settings):
    # Most tests are about rules, not vectors; tests/cards/test_embeddings.py turns it on.
    settings.EMBED_ON_WRITE = False

@pytest.fixture
def api():
    return APIClient()


@pytest.fixture
def as_user(api):
    def sign_in(user):
        api.force_authenticate(user=None)
        api.force_login(user)
        return api
    return sign_in


@pytest.fixture
def bearer():
    """An APIClient speaking as an agent token: bearer(user, scopes=[...], write=True)."""
    def make(user, *, scopes=None, write=False, all_scopes=False, days=90):
        _, raw = token_create(user=user, name="agent", can_write=write, scopes=scopes,
                              all_scopes=all_scopes or not scopes, days=days)
        client = APIClient()
        client.credentials(HTTP_AUTHORIZATION=f"Bearer {raw}")
        client.raw_token = raw
        return client
    return make
