"""Every relation the memory knows has a page name, and rows with a relation name it in the page's language."""

from django.utils import translation

from scopes.models import RELATION_NAMES, Invite
from scopes.relations import RELATIONS


def test_every_relation_has_a_page_name():
    assert set(RELATION_NAMES) == set(RELATIONS)


def test_an_invite_names_its_relation_in_the_pages_language():
    invite = Invite(role="member", relation="mother")
    with translation.override("en"):
        assert (invite.relation_name, invite.role_name) == ("mother", "member")
    with translation.override("zh-hant"):
        assert (invite.relation_name, invite.role_name) == ("母親", "成員")
    assert Invite(role="member", relation="").relation_name == ""
