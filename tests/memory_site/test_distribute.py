"""`manage.py distribute`: on one PostgreSQL it has nothing to do; what it would do on a coordinator is
worked out from what the cluster already holds, so a second run does nothing; and the catalogue check
names what Citus would refuse, in the words Citus uses. No Citus runs here: every table's place and every
key are held by reading one PostgreSQL's catalogue (docs/distributed.md)."""

from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from django.db import connection

from cards.recall.snapshots import LOG_TRIGGERS
from memory_site.distribution import (DISTRIBUTED, LOCAL, ForeignKey, KeysNotPutBack, blockers, citus_coordinator,
                                      keys_put_back, parents_first, plan, reference_tables, scope_log_dropped)


@pytest.mark.django_db
def test_plain_postgresql_has_nothing_to_do():
    with connection.cursor() as cursor:
        assert not citus_coordinator(cursor)
    out = StringIO()
    call_command("distribute", stdout=out)
    assert out.getvalue().startswith("not a Citus coordinator: nothing to do")


@pytest.mark.django_db
def test_nothing_blocks_the_schema():
    """Every key of the distributed tables holds the scope, or points at a reference table: nothing for
    Citus to refuse (tests/memory_site/test_catalogue_distributable.py holds each kind of key apart)."""
    with connection.cursor() as cursor:
        assert blockers(cursor) == []


@pytest.mark.django_db
def test_entities_are_replicated_because_their_keys_cross_scopes():
    """Why entities are reference tables (docs/distributed.md, "The person entity"): distributed by scope,
    a member's own entity (in their personal scope) could not be the subject of their family cards, nor
    the one-per-user key hold. The check names exactly those keys."""
    assert "cards_entity" not in DISTRIBUTED and "cards_entity" in reference_tables()
    with connection.cursor() as cursor:
        found = blockers(cursor, [*DISTRIBUTED, "cards_entity", "cards_alias"])
    assert "cards_entity: unique constraint cards_entity_user_id_key (user_id) lacks scope_id" in found
    assert [line for line in found if line.startswith("cards_card: foreign key") and "subject_id" in line]
    assert all(line.startswith(("cards_entity", "cards_alias", "cards_card", "cards_possibleduplicate"))
               and "entity" in line for line in found), found


@pytest.mark.django_db
def test_a_coordinator_refuses_while_a_key_blocks_and_changes_nothing(monkeypatch):
    """A key that would block makes the command refuse before it changes anything: here the entity's, were
    it distributed. One PostgreSQL is taken for a coordinator that has distributed nothing yet."""
    from memory_site import distribution

    monkeypatch.setattr(distribution, "citus_coordinator", lambda cursor: True)
    monkeypatch.setattr(distribution, "table_kinds", lambda cursor: {})
    monkeypatch.setattr(distribution, "DISTRIBUTED", (*DISTRIBUTED, "cards_entity"))
    with connection.cursor() as cursor:
        keys_before = distribution.foreign_keys(cursor, list(DISTRIBUTED))
        kinds_before = distribution.table_kinds(cursor)
    with pytest.raises(CommandError) as refused:
        call_command("distribute")
    assert "nothing changed" in str(refused.value) and "cards_entity" in str(refused.value)
    with connection.cursor() as cursor:
        assert distribution.foreign_keys(cursor, list(DISTRIBUTED)) == keys_before
        assert distribution.table_kinds(cursor) == kinds_before


def test_first_run_plans_everything_and_second_nothing():
    reference, distributed = ["scopes_scope", "scopes_user"], ["cards_entity", "cards_card"]
    first = plan({}, reference, distributed)
    assert (first.reference, first.distributed, first.already, first.wrong) == (reference, distributed, [], [])

    done = {"scopes_scope": "reference", "scopes_user": "reference",
            "cards_entity": "distributed", "cards_card": "distributed"}
    second = plan(done, reference, distributed)
    assert (second.reference, second.distributed, second.wrong) == ([], [], [])
    assert second.already == ["scopes_scope: reference", "scopes_user: reference",
                              "cards_entity: distributed", "cards_card: distributed"]


def test_a_run_cut_short_resumes_and_citus_local_tables_are_taken_over():
    # Replicating a table makes the local tables tied to it Citus-local: they are still to do.
    kinds = {"scopes_scope": "reference", "scopes_user": "citus-local", "cards_entity": "distributed"}
    resumed = plan(kinds, ["scopes_scope", "scopes_user"], ["cards_entity", "cards_card"])
    assert resumed.reference == ["scopes_user"]
    assert resumed.distributed == ["cards_card"]
    assert resumed.wrong == []


def test_a_table_distributed_the_other_way_is_reported_not_changed():
    wrong = plan({"cards_card": "reference"}, [], ["cards_card"])
    assert wrong.distributed == [] and wrong.wrong == ["cards_card: reference, wanted distributed"]


def test_referenced_tables_are_distributed_first():
    edges = [("cards_card", "cards_entity"), ("cards_entity", "cards_entity"), ("cards_alias", "cards_entity"),
             ("review_candidate", "cards_card"), ("review_candidate", "review_ingestjob")]
    order = parents_first(["review_candidate", "cards_card", "cards_alias", "review_ingestjob", "cards_entity"],
                          edges)
    assert order.index("cards_entity") < order.index("cards_card") < order.index("review_candidate")
    assert order.index("review_ingestjob") < order.index("review_candidate")
    assert sorted(order) == sorted(set(order))


def test_every_model_table_has_one_place():
    reference = reference_tables()
    assert {"scopes_user", "scopes_scope", "scopes_membership", "cards_label", "cards_rule", "scopes_agenttoken",
            "scopes_agenttoken_scopes", "django_content_type"} <= set(reference)
    assert not set(reference) & (set(DISTRIBUTED) | set(LOCAL))


@pytest.mark.django_db
def test_the_keyed_review_tables_no_longer_block():
    """review 0010 and 0011: ingest jobs, upkeep runs, signals and decisions are keyed by (id, scope_id), the
    keys into them go through scope_id, and every decision has a scope: nothing of theirs is left for Citus
    to refuse. The audit log stays on the coordinator and is not checked."""
    with connection.cursor() as cursor:
        found = blockers(cursor)
    for table in ("review_ingestjob", "review_upkeeprun", "review_signal", "review_decision"):
        assert not [line for line in found if line.startswith(f"{table}:")], table
    assert not [line for line in found if "job_id" in line or "run_id" in line]
    # What is left is named as Citus would name it (docs/distributed.md has the full list).
    # cards 0026/0027, review 0013/0014: the card is keyed by (id, scope_id), the keys into it go through it.
    assert not [line for line in found if line.startswith("cards_card: primary key") or "→ cards_card " in line]
    assert not [line for line in found if "superseded_by_id" in line or "disputes_id" in line]
    # cards 0028, review 0015: what no key points at is keyed by (id, scope_id); the entity is replicated.
    assert found == []
    # cards 0025, review 0012: what hangs off a card or an entity keeps its scope.
    assert not [line for line in found if line.endswith("no scope_id column")]
    assert not [line for line in found if line.startswith("cards_auditevent:")]


@pytest.mark.django_db
def test_a_rule_decision_is_in_the_global_scope(alice):
    from cards.models import Rule
    from review.models import Decision
    from review.services.queue import rule_decide
    from scopes.models import ScopeKind

    rule = Rule.objects.create(name="club diet", premises=[["?x", "member_of", "?g"], ["?g", "diet", "?d"]],
                               conclusion=["?x", "diet", "?d"])
    rule_decide(rule=rule, reviewer=alice, approve=True)
    assert Decision.objects.get(item="rule", item_id=rule.pk).scope.kind == ScopeKind.GLOBAL


@pytest.mark.django_db
def test_a_key_through_scope_refuses_a_row_of_another_scope(alice):
    """The composite key says more than the old one did: a job's candidates live in the job's scope. (On a
    cluster Citus checks it at commit only: SET CONSTRAINTS does not reach the workers.)"""
    from django.db import IntegrityError, transaction

    from review.models import Candidate, IngestJob
    from tests.factories import UserFactory

    bob = UserFactory(username="bob")
    job = IngestJob.objects.create(scope=alice.personal_scope, session="s", created_by=alice, extractor="x")
    with pytest.raises(IntegrityError), transaction.atomic():
        Candidate.objects.create(scope=bob.personal_scope, job=job, author=alice, kind="state", label="likes",
                                 subject="me", quote="q", message_at=job.created_at, extractor="x")
        connection.check_constraints()


@pytest.mark.django_db
def test_what_hangs_off_a_card_or_an_entity_keeps_its_scope(alice):
    from cards.models import CardRevision, Entity, PossibleDuplicate
    from tests.factories import UserFactory

    family = UserFactory(username="bob").personal_scope
    card = _a_card(family)
    revision = CardRevision.objects.create(card=card, at=card.recorded_at, field="text", before="a", after="b")
    assert revision.scope_id == family.pk
    duplicate = PossibleDuplicate.objects.create(entity=Entity.objects.create(scope=family, name="Mía"),
                                                 similar_to=Entity.objects.create(scope=family, name="Mia"), score=.9)
    assert duplicate.scope_id == family.pk


def _a_card(scope):
    from cards.drafts import CardDraft
    from cards.services import card_remember

    return card_remember(scope=scope, actor=scope.owner,
                         draft=CardDraft(kind="state", subject="me", label="hobby", value="chess")).card


@pytest.mark.django_db
def test_keys_that_cannot_be_put_back_are_named_with_their_statements_and_the_others_are_restored():
    """Distributing sets keys aside and puts each back on its own: one that fails does not keep the rest
    away, and the run ends naming the statement to run by hand."""
    with connection.cursor() as cursor:
        cursor.execute("CREATE TABLE zz_parent (id int PRIMARY KEY)")
        cursor.execute("CREATE TABLE zz_child (id int, parent_id int, other_id int)")
        cursor.execute("INSERT INTO zz_child VALUES (1, 7, NULL)")   # no parent 7: its key cannot come back
        broken = ForeignKey("zz_child", "zz_child_parent", "zz_parent", "a", ("parent_id",), ("id",),
                            "FOREIGN KEY (parent_id) REFERENCES zz_parent(id)")
        fine = ForeignKey("zz_child", "zz_child_other", "zz_parent", "a", ("other_id",), ("id",),
                          "FOREIGN KEY (other_id) REFERENCES zz_parent(id)")
        with pytest.raises(KeysNotPutBack) as lost:
            keys_put_back(cursor, [broken, fine])
        cursor.execute("SELECT conname FROM pg_constraint WHERE conrelid = 'zz_child'::regclass")
        assert [row[0] for row in cursor.fetchall()] == ["zz_child_other"]
    assert 'ALTER TABLE zz_child ADD CONSTRAINT "zz_child_parent" FOREIGN KEY (parent_id)' in str(lost.value)


def test_every_distributed_model_is_a_scope_row():
    """Saving any of them never sets its scope (core/scope_rows.py): Citus refuses an UPDATE of the
    distribution column, even to the value it holds."""
    from django.apps import apps

    from core.scope_rows import ScopeRow

    models = {model._meta.db_table: model for model in apps.get_models()}
    assert not [table for table in DISTRIBUTED if not issubclass(models[table], ScopeRow)]


@pytest.mark.django_db
def test_saving_a_row_again_writes_everything_but_its_scope(alice):
    from django.test.utils import CaptureQueriesContext

    from tests.factories import UserFactory

    card = _a_card(alice.personal_scope)
    card.text = "plays chess on Sundays"
    with CaptureQueriesContext(connection) as queries:
        card.save()
    update = next(q["sql"] for q in queries if q["sql"].startswith('UPDATE "cards_card"'))
    set_part, where = update.split(" WHERE ")
    assert '"text" = ' in set_part and '"scope_id" = ' not in set_part
    assert f'"scope_id" = {alice.personal_scope.pk}' in where     # routed to the row's shard
    card.refresh_from_db()
    assert card.text == "plays chess on Sundays" and card.scope_id == alice.personal_scope.pk
    card.scope_id = UserFactory(username="bob").personal_scope.pk
    with pytest.raises(ValueError, match="never moves"):
        card.save()
    with pytest.raises(ValueError, match="never moves"):
        card.save(update_fields=["scope"])
    with pytest.raises(ValueError, match="never moves"):
        card.save(update_fields=["scope_id"])
    # Naming other fields, the row is updated where it was loaded, and stays there.
    card.text = "plays go on Sundays"
    card.save(update_fields=["text"])
    assert type(card).objects.filter(pk=card.pk, scope=alice.personal_scope, text="plays go on Sundays").exists()
    with pytest.raises(ValueError, match="never moves"):       # still: the other scope was never saved
        card.save()



@pytest.mark.django_db
def test_the_scope_change_log_goes_with_distribution_and_recall_reads_sql_there():
    """The log recall's snapshots are checked against (cards migration 0029) is one server's: distributing
    drops its triggers (a second run has nothing to drop), and without them recall never uses snapshots."""
    from cards.recall.snapshots import enabled

    def triggers() -> int:
        with connection.cursor() as cursor:
            cursor.execute("SELECT count(*) FROM pg_trigger WHERE tgname = ANY(%s)",
                           [[name for _, name in LOG_TRIGGERS]])
            return cursor.fetchone()[0]
    with connection.cursor() as cursor:
        assert triggers() == len(LOG_TRIGGERS) and enabled(cursor)
        assert scope_log_dropped(cursor) == ["dropped the scope-change log's triggers: recall reads SQL on Citus, "
                                             "not snapshots"]
        assert triggers() == 0 and scope_log_dropped(cursor) == []
