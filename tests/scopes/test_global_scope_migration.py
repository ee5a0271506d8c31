"""Point 8: a fresh install has the `global` scope, made by a migration (not by
whichever code first asks for it), so its common-sense rules can be reviewed
from the dashboard from day one."""

import importlib

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.test import Client
from django.urls import reverse

from cards.models import Rule, RuleStatus
from scopes.models import Scope, ScopeKind
from scopes.services import membership_set
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db

MIGRATION = ("scopes", "0007_global_scope")


def test_a_migrated_database_has_the_global_scope():
    # Nothing in this test asks for it: only the migrations can have made it.
    assert list(Scope.objects.filter(kind=ScopeKind.GLOBAL).values_list("name", flat=True)) == ["Common sense"]


def test_the_migration_makes_it_once_on_the_models_of_its_time():
    Scope.objects.filter(kind=ScopeKind.GLOBAL).delete()  # as on an install from before the migration
    historical = MigrationExecutor(connection).loader.project_state(MIGRATION).apps
    migration = importlib.import_module(".".join((MIGRATION[0], "migrations", MIGRATION[1])))
    migration.global_scope_create(historical, None)
    migration.global_scope_create(historical, None)  # run again (a re-applied migration): still one
    assert Scope.objects.filter(kind=ScopeKind.GLOBAL).count() == 1


def test_a_reviewer_of_common_sense_reviews_its_rules_from_the_dashboard():
    common = Scope.objects.get(kind=ScopeKind.GLOBAL)
    author, curator = UserFactory(username="author"), UserFactory(username="curator")
    membership_set(scope=common, user=curator, role="reviewer")  # what an admin grants on the scope's page
    rule = Rule.objects.create(name="club diet", premises=[["?x", "member_of", "?g"], ["?g", "diet", "?d"]],
                               conclusion=["?x", "diet", "?d"], author=author)
    client = Client()
    client.force_login(curator)
    queue_url = reverse("review-scope", args=[common.pk])
    index = client.get(reverse("review"))
    assert index.status_code == 200 and f'href="{queue_url}"' in index.content.decode()
    queue = client.get(queue_url)
    assert queue.status_code == 200
    assert "Rules awaiting approval" in queue.content.decode() and "club diet" in queue.content.decode()
    decided = client.post(reverse("rule-decide", args=[rule.pk, "approve"]), {"reason": "sound"})
    assert decided.status_code == 302 and decided["Location"] == queue_url
    rule.refresh_from_db()
    assert (rule.status, rule.reviewer) == (RuleStatus.APPROVED, curator)
