"""A live site for connectors: dana owns the Silva family and has her
personal scope; mallory has a family of her own nobody else reaches."""

from __future__ import annotations

import pytest

from tests.builtin_rows import builtin_rows_restore
from tests.factories import UserFactory, family_scope
from tests.oauth.connector import PASSWORD


@pytest.fixture
def site(live_server, transactional_db):
    builtin_rows_restore()
    dana = UserFactory(username="dana", time_zone="Europe/Lisbon")
    mallory = UserFactory(username="mallory")
    for person in (dana, mallory):
        person.set_password(PASSWORD)
        person.save(update_fields=["password"])
    family = family_scope(owner=dana, name="Silva family")
    elsewhere = family_scope(owner=mallory, name="Mallory's")
    return {"base": live_server.url, "dana": dana, "mallory": mallory, "family": family, "elsewhere": elsewhere}
