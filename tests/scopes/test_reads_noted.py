"""Reads only read; the request notes them (scopes/idle.py). `read_scope_ids`
writes nothing, however old the stamp it reads; the API's base view, the pages'
decorator and the MCP tools (which run the API's views) note each scope their
reads named once, where the request is answered."""

from __future__ import annotations

import datetime as dt

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from memory_site.mcp_server.rest import Caller, call
from scopes.models import Scope
from scopes.principals import Principal
from scopes.selectors import read_scope_ids, read_scope_sets
from scopes.services import scope_create
from scopes.tokens import token_create
from tests.factories import family_scope

pytestmark = pytest.mark.django_db

LONG_AGO = dt.timedelta(days=120)


@pytest.fixture
def garden(alice):
    garden = scope_create(name="Garden", kind="project", creator=alice, parent=family_scope(owner=alice))
    Scope.objects.filter(pk=garden.pk).update(last_read_at=timezone.now() - LONG_AGO)
    return garden


def _stamp(scope) -> dt.datetime:
    return Scope.objects.get(pk=scope.pk).last_read_at


def _noted(scope) -> bool:
    return timezone.now() - _stamp(scope) < dt.timedelta(minutes=1)


def _stamps_written(queries) -> int:
    table = Scope._meta.db_table
    return sum(q["sql"].lstrip().upper().startswith("UPDATE") and table in q["sql"] for q in queries.captured_queries)


def test_read_scope_ids_only_reads_even_when_the_stamp_is_old(alice, garden):
    before = _stamp(garden)
    with CaptureQueriesContext(connection) as queries:
        ids = read_scope_ids(principal=Principal(user=alice), scope_id=garden.pk)
        read_scope_sets(principal=Principal(user=alice), scope_ids=[garden.pk])
    assert garden.pk in ids
    assert queries.captured_queries and all(q["sql"].lstrip().upper().startswith("SELECT")
                                            for q in queries.captured_queries)
    assert _stamp(garden) == before


def test_an_api_read_is_noted_once_when_it_is_answered(alice, garden, as_user):
    client = as_user(alice)
    with CaptureQueriesContext(connection) as queries:
        assert client.get(f"/api/v1/cards/?scope={garden.pk}").status_code == 200
    assert _noted(garden)
    assert _stamps_written(queries) == 1
    with CaptureQueriesContext(connection) as queries:  # the same day again: no write
        assert client.get(f"/api/v1/cards/?scope={garden.pk}").status_code == 200
    assert _stamps_written(queries) == 0


def test_a_page_read_is_noted(alice, garden):
    client = Client()
    client.force_login(alice)
    assert client.get(f"/scopes/{garden.pk}/").status_code == 200
    assert _noted(garden)


def test_an_mcp_read_is_noted(alice, garden):
    _, raw = token_create(user=alice, name="agent", can_write=False, scopes=None, all_scopes=True, days=90)
    assert call(Caller(token=raw), "GET", "cards/", query={"scope": garden.pk}).ok
    assert _noted(garden)


def test_a_refused_read_notes_nothing(alice, garden, as_user):
    from tests.factories import UserFactory

    assert as_user(UserFactory(username="mallory")).get(f"/api/v1/cards/?scope={garden.pk}").status_code == 404
    assert not _noted(garden)
