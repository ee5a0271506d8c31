import pytest
from rest_framework.test import APIClient

from scopes.tokens import token_create


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
