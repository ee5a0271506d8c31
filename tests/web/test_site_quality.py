"""Site-wide promises: the home page's queries do not grow with scopes, the
production settings pass `check --deploy`, pages link nothing outside the site,
and errors answer JSON under /api/ but HTML elsewhere."""

import datetime as dt
import os
import re
import secrets
import subprocess
import sys
from pathlib import Path

import pytest
from django.conf import settings

from cards.drafts import CardDraft
from cards.services import card_remember
from review.models import Candidate
from tests.factories import family_scope

pytestmark = pytest.mark.django_db
ROOT = Path(settings.BASE_DIR)


def _scopes_with_trouble(alice, count: int, t0) -> None:
    """Each scope with a card and a candidate waiting for review."""
    for n in range(count):
        family = family_scope(owner=alice, name=f"Family {n}")
        card_remember(scope=family, actor=alice, draft=CardDraft(kind="state", label="address", subject="me",
                                                                 value=f"Town {n}", reference_time=t0))
        Candidate.objects.create(scope=family, author=alice, kind="state", label="skill", subject="me",
                                 value="chess", quote="I play chess", message_at=t0, extractor="patterns")


def _home_queries(client) -> int:
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(connection) as queries:
        assert client.get("/").status_code == 200
    return len(queries)


def test_home_queries_do_not_grow_with_the_number_of_scopes(alice, pages, t0, django_assert_max_num_queries):
    client = pages(alice)
    _scopes_with_trouble(alice, 2, t0)  # two towns: a contradiction already, as there will be later
    few = _home_queries(client)
    _scopes_with_trouble(alice, 6, t0)
    with django_assert_max_num_queries(few):
        page = client.get("/")
    assert page.content.count(b"1 to review") == 8


def test_home_shows_contradictions_and_aging_per_scope(alice, pages, t0):
    family = family_scope(owner=alice, name="The Lins")
    card_remember(scope=family, actor=alice, draft=CardDraft(kind="state", label="address", subject="me",
                                                             value="Kyoto", reference_time=t0))
    old = t0 - dt.timedelta(days=400)
    card_remember(scope=alice.personal_scope, actor=alice, draft=CardDraft(
        kind="state", label="address", subject="me", value="Taipei", reference_time=old))
    text = pages(alice).get("/").content.decode()
    family_row = text.split('aria-label="Health of The Lins"')[1].split("</ul>")[0]
    assert "1 contradiction" in family_row
    personal_row = text.split(f'aria-label="Health of {alice.personal_scope.name}"')[1].split("</ul>")[0]
    assert "0 contradictions" in personal_row and "1 to re-check" in personal_row


def test_production_settings_pass_the_deploy_check():
    env = {**os.environ, "DJANGO_DEBUG": "false", "DJANGO_SECRET_KEY": secrets.token_urlsafe(50),
           "DJANGO_ALLOWED_HOSTS": "example.org"}
    env.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)  # a test-only switch, never in deployment
    result = subprocess.run([sys.executable, "manage.py", "check", "--deploy"], cwd=ROOT, env=env,
                            capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr
    # Every warning counts, the API schema's (drf_spectacular.W001) included.
    problems = [line for line in (result.stdout + result.stderr).splitlines()
                if re.match(r"\?: \(", line) or re.match(r"\w+\.\w+: \(", line)]
    assert problems == [], "\n".join(problems)


def test_pages_link_nothing_outside_the_site(household, pages, alice):
    client = pages(alice)
    urls = ["/", f"/scopes/{household['family'].pk}/", f"/cards/{household['card'].pk}/",
            f"/cards/{household['card'].pk}/forget/", "/accounts/password/"]
    for url in urls:
        html = client.get(url).content.decode()
        assert not re.search(r"(?i)(https?:)?//[a-z0-9]", html.replace("://testserver/", "")), url
    assert "http" not in client.get("/accounts/login/").content.decode()


def test_pages_carry_the_content_security_policy(pages, alice):
    policy = pages(alice).get("/").headers["Content-Security-Policy"]
    assert "default-src 'self'" in policy and "script-src 'self'" in policy and "unsafe-inline" not in policy


def test_templates_have_no_inline_script():
    for template in (ROOT / "templates").rglob("*.html"):
        for tag in re.findall(r"<script[^>]*>", template.read_text()):
            assert "src=" in tag, f"{template}: {tag}"


def test_errors_are_json_under_the_api_and_html_elsewhere(client, pages, alice):
    api = client.get("/api/v1/no-such-thing/")
    assert api.status_code == 404 and api.json()["code"] == "not_found"
    page = pages(alice).get("/no-such-page/")
    assert page.status_code == 404 and page["Content-Type"].startswith("text/html")
    assert b"<!doctype html>" in page.content


def test_admin_and_api_still_answer(client, alice):
    assert client.get("/admin/").status_code == 302
    assert client.get("/api/v1/scopes/").status_code == 401
    assert client.get("/static/vendor/htmx-2.0.11.min.js").status_code == 200
