"""The entities page: names, aliases, merges, open proposals and each label's decay picture."""

import pytest

from cards.models import Alias, Entity, PossibleDuplicate

pytestmark = pytest.mark.django_db


def test_entities_of_visible_scopes_with_aliases_proposals_and_decay(household, pages, alice):
    family = household["family"]
    mia = Entity.objects.create(scope=family, name="Mia")
    PossibleDuplicate.objects.create(entity=Entity.objects.create(scope=family, name="Mía"), similar_to=mia, score=.9)
    page = pages(alice).get("/entities/").content.decode()
    assert "Mia" in page and "may be" in page and "<polyline" in page and "address" in page
    assert "Mia" not in pages(household["mallory"]).get("/entities/").content.decode()


def test_add_an_alias_and_a_clash_is_refused(household, pages, alice):
    family = household["family"]
    mia = Entity.objects.create(scope=family, name="Mia")
    Entity.objects.create(scope=family, name="Leo")
    assert pages(household["bob"]).post(f"/entities/{mia.pk}/aliases/", {"name": "Mimi"}).status_code == 302
    assert Alias.objects.filter(entity=mia, name="Mimi").exists()
    refused = pages(alice).post(f"/entities/{mia.pk}/aliases/", {"name": "Leo"}, follow=True)
    assert b"already names another entity" in refused.content
    assert f"/entities/{mia.pk}/aliases/".encode() not in pages(household["victor"]).get("/entities/").content
