"""A log of which scopes' cards changed, written by the database itself (cards/recall/snapshots.py keeps a
scope's cards in a worker's memory for as long as its log says nothing changed).

Every statement that inserts, updates or deletes cards adds one row per scope it touched; a label's change
(its decay, whether it ages, whether it is sensitive) adds a row for scope 0, which every reader checks; a
statement that deletes cards (forgetting) or truncates them adds one for scope -1, on which every process
drops every snapshot it keeps, of any scope (DESIGN §4.9: a forgotten card's words and vector leave caches).
Rows are only ever added (no lock: writers never wait on each other here) and folded together by
cards.tasks.cards_scope_log_fold, which keeps each scope's sum.

The ids come from a sequence no column owns: a test flush (TRUNCATE … RESTART IDENTITY) never restarts it,
so an id is never seen twice, even across rolled-back transactions. The table is no model's: a flush leaves
it alone. Where Citus is installed the triggers are not made (Citus refuses them on its tables), and
`manage.py distribute` drops them where Citus came after this migration: recall reads SQL on Citus."""

from django.db import migrations

LOG = """
CREATE SEQUENCE cards_scopechange_ids;
CREATE TABLE cards_scopechange (
    id bigint PRIMARY KEY DEFAULT nextval('cards_scopechange_ids'),
    scope_id bigint NOT NULL,
    weight bigint NOT NULL DEFAULT 1
);
-- A read sums a scope's rows from the index alone.
CREATE INDEX cards_scopechange_scope ON cards_scopechange (scope_id, id) INCLUDE (weight);
"""

LOG_REVERSE = """
DROP TABLE IF EXISTS cards_scopechange;
DROP SEQUENCE IF EXISTS cards_scopechange_ids;
"""

TRIGGERS = """
CREATE FUNCTION cards_scope_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_TABLE_NAME <> 'cards_card' THEN
    INSERT INTO cards_scopechange (scope_id) VALUES (0);
  ELSIF TG_OP = 'TRUNCATE' THEN
    INSERT INTO cards_scopechange (scope_id) VALUES (-1);
  ELSIF TG_OP = 'INSERT' THEN
    INSERT INTO cards_scopechange (scope_id) SELECT DISTINCT scope_id FROM changed_new;
  ELSIF TG_OP = 'DELETE' THEN
    INSERT INTO cards_scopechange (scope_id) SELECT DISTINCT scope_id FROM changed_old UNION ALL SELECT -1;
  ELSE
    INSERT INTO cards_scopechange (scope_id)
      SELECT scope_id FROM changed_new UNION SELECT scope_id FROM changed_old;
  END IF;
  RETURN NULL;
END
$$;
CREATE TRIGGER cards_scope_changed_insert AFTER INSERT ON cards_card
  REFERENCING NEW TABLE AS changed_new FOR EACH STATEMENT EXECUTE FUNCTION cards_scope_changed();
CREATE TRIGGER cards_scope_changed_update AFTER UPDATE ON cards_card
  REFERENCING OLD TABLE AS changed_old NEW TABLE AS changed_new
  FOR EACH STATEMENT EXECUTE FUNCTION cards_scope_changed();
CREATE TRIGGER cards_scope_changed_delete AFTER DELETE ON cards_card
  REFERENCING OLD TABLE AS changed_old FOR EACH STATEMENT EXECUTE FUNCTION cards_scope_changed();
CREATE TRIGGER cards_scope_changed_truncate AFTER TRUNCATE ON cards_card
  FOR EACH STATEMENT EXECUTE FUNCTION cards_scope_changed();
CREATE TRIGGER cards_scope_changed_label AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON cards_label
  FOR EACH STATEMENT EXECUTE FUNCTION cards_scope_changed();
"""

TRIGGERS_REVERSE = """
DROP TRIGGER IF EXISTS cards_scope_changed_label ON cards_label;
DROP TRIGGER IF EXISTS cards_scope_changed_truncate ON cards_card;
DROP TRIGGER IF EXISTS cards_scope_changed_delete ON cards_card;
DROP TRIGGER IF EXISTS cards_scope_changed_update ON cards_card;
DROP TRIGGER IF EXISTS cards_scope_changed_insert ON cards_card;
DROP FUNCTION IF EXISTS cards_scope_changed();
"""


def _citus(schema_editor) -> bool:
    with schema_editor.connection.cursor() as cursor:
        cursor.execute("SELECT to_regclass('pg_dist_partition') IS NOT NULL")
        return cursor.fetchone()[0]


def triggers_made(apps, schema_editor):
    if not _citus(schema_editor):   # Citus refuses them on its tables, and recall reads SQL there anyway
        schema_editor.execute(TRIGGERS)


def triggers_dropped(apps, schema_editor):
    if not _citus(schema_editor):
        schema_editor.execute(TRIGGERS_REVERSE)


class Migration(migrations.Migration):
    dependencies = [("cards", "0028_leaf_keys_by_scope")]
    operations = [migrations.RunSQL(LOG, LOG_REVERSE), migrations.RunPython(triggers_made, triggers_dropped)]
