"""The nightly sweep of OAuth leftovers: expired tokens, and registrations
that never became a connection; a connection's client stays."""

from __future__ import annotations

import datetime as dt

import pytest
from django.utils import timezone
from oauth2_provider.models import AccessToken, Application

from scopes.connections import UNUSED_REGISTRATION_DAYS, connection_grant
from scopes.tasks import connections_tidy_nightly

pytestmark = pytest.mark.django_db


def _registered(name: str, days_ago: int, source: str = "dcr") -> Application:
    application = Application.objects.create(name=name, client_type="public", redirect_uris="https://a.example/cb",
                                             authorization_grant_type="authorization-code", registration_source=source)
    Application.objects.filter(pk=application.pk).update(
        created=timezone.now() - dt.timedelta(days=days_ago))
    return application


def test_unused_registrations_and_expired_tokens_go_connections_stay(alice):
    old_unused = _registered("abandoned", UNUSED_REGISTRATION_DAYS + 1)
    new_unused = _registered("just registered", 1)
    connected = _registered("in use", UNUSED_REGISTRATION_DAYS + 5)
    _registered("made by an admin", UNUSED_REGISTRATION_DAYS + 5, source="manual")
    connection_grant(user=alice, application=connected, scopes=[alice.personal_scope], access="read")
    expired = AccessToken.objects.create(user=alice, application=connected, token="gone", scope="read",
                                         expires=timezone.now() - dt.timedelta(days=1))
    live = AccessToken.objects.create(user=alice, application=connected, token="live", scope="read",
                                      expires=timezone.now() + dt.timedelta(hours=1))

    assert connections_tidy_nightly() == {"registrations_dropped": 1}
    assert set(Application.objects.values_list("name", flat=True)) == {"just registered", "in use",
                                                                      "made by an admin"}
    assert not Application.objects.filter(pk=old_unused.pk).exists() and new_unused.pk
    assert set(AccessToken.objects.values_list("pk", flat=True)) == {live.pk} and expired.pk
