"""The domain refuses in its own words (core.errors.NotAllowed), mapped once for the API
(core.api.errors: 403 {"code": "permission_denied", "detail": …}, the body DRF's refusal
gave) and once for the pages (core.pages.page: Django's 403 page, with the refusal's words)."""

from __future__ import annotations

import pytest
from django.core.exceptions import PermissionDenied
from django.test import RequestFactory
from rest_framework.exceptions import PermissionDenied as DrfPermissionDenied

from cards.drafts import CardDraft
from cards.services import card_remember
from core.api.errors import api_exception_handler
from core.errors import DomainError, NotAllowed
from core.pages import page
from scopes.services import membership_set
from tests.factories import UserFactory, family_scope

pytestmark = pytest.mark.django_db

WRITE_REFUSED = "You may not write in this scope."


def test_a_domain_refusal_answers_the_api_with_the_403_body(alice, bearer):
    reader = bearer(alice)  # a read-only token: scopes.visibility refuses its write
    answer = reader.post("/api/v1/cards/", {"scope": alice.personal_scope.pk, "kind": "state", "subject": "me",
                                            "label": "skill", "value": "Go"}, format="json")
    assert answer.status_code == 403
    assert answer.content == b'{"code":"permission_denied","detail":"You may not write in this scope."}'



def test_a_domain_refusal_inside_a_batch_names_its_card(alice, bearer):
    reader = bearer(alice)
    scope = alice.personal_scope.pk
    answer = reader.post("/api/v1/cards/bulk/", {"cards": [{"scope": scope, "kind": "state", "subject": "me",
                                                             "label": "skill", "value": "Go"}]}, format="json")
    assert answer.status_code == 403
    assert answer.json() == {"code": "permission_denied", "index": 0,
                             "detail": f"Card 0: you may not write in scope {scope}. Nothing was stored."}


def test_not_allowed_answers_the_api_as_drf_s_refusal_did():
    ours, drf = (api_exception_handler(refused, {}) for refused in (NotAllowed(WRITE_REFUSED),
                                                                    DrfPermissionDenied(WRITE_REFUSED)))
    assert (ours.status_code, ours.data, dict(ours.items())) == (drf.status_code, drf.data, dict(drf.items()))
    assert ours.data == {"code": "permission_denied", "detail": WRITE_REFUSED}


def test_a_domain_refusal_answers_a_page_with_the_403_page_in_its_words(client, alice):
    family = family_scope(owner=alice)
    viewer = UserFactory(username="vic")
    membership_set(scope=family, user=viewer, role="viewer")
    card = card_remember(scope=family, actor=alice, draft=CardDraft(
        kind="state", label="skill", subject="me", value="Rust")).card
    client.force_login(viewer)
    answer = client.post(f"/cards/{card.pk}/describe/", {"text": "Changed"})
    assert answer.status_code == 403 and WRITE_REFUSED in answer.content.decode()


def _signed_in():
    request = RequestFactory().get("/")
    request.user = UserFactory(username="pat")
    return request


def test_the_page_mapping_turns_not_allowed_into_django_s_403():
    @page
    def refusing(request):
        raise NotAllowed(WRITE_REFUSED)

    with pytest.raises(PermissionDenied, match=WRITE_REFUSED):
        refusing(_signed_in())


def test_the_page_mapping_leaves_a_domain_error_that_is_no_403_to_the_page():
    @page
    def refusing(request):
        raise DomainError("Send another value.")

    with pytest.raises(DomainError):
        refusing(_signed_in())


def test_a_page_that_shows_domain_errors_at_its_form_lets_a_refusal_through():
    # Nothing the person sends changes a refusal: it is its own kind, not a DomainError.
    assert not issubclass(NotAllowed, DomainError)
