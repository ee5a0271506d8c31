"""Hard rule 3 in the database: an event's identity and time never change, and an
event row disappears only through the forget service (which sets
memory_site.forgetting for its own transaction)."""

from django.db import migrations

FUNCTION = """
CREATE FUNCTION cards_event_write_once() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN
    IF OLD.kind = 'event'
       AND coalesce(current_setting('memory_site.forgetting', true), '') <> 'on' THEN
      RAISE EXCEPTION 'immutable_event: event card % can only be removed by forgetting it', OLD.id
        USING ERRCODE = '23M01';
    END IF;
    RETURN OLD;
  END IF;
  IF (OLD.kind = 'event' OR NEW.kind = 'event') AND (
       NEW.scope_id IS DISTINCT FROM OLD.scope_id
    OR NEW.kind IS DISTINCT FROM OLD.kind
    OR NEW.subject_id IS DISTINCT FROM OLD.subject_id
    OR NEW.label_id IS DISTINCT FROM OLD.label_id
    OR NEW.value IS DISTINCT FROM OLD.value
    OR NEW.value_norm IS DISTINCT FROM OLD.value_norm
    OR NEW.object_id IS DISTINCT FROM OLD.object_id
    OR NEW.occurred_at IS DISTINCT FROM OLD.occurred_at
    OR NEW.occurred_end IS DISTINCT FROM OLD.occurred_end
    OR NEW.precision IS DISTINCT FROM OLD.precision) THEN
    RAISE EXCEPTION 'immutable_event: that event card % happened, when, to whom and what kind of event it was cannot change', OLD.id
      USING ERRCODE = '23M01';
  END IF;
  RETURN NEW;
END
$$;
CREATE TRIGGER cards_event_write_once
  BEFORE UPDATE OR DELETE ON cards_card
  FOR EACH ROW EXECUTE FUNCTION cards_event_write_once();
"""

REVERSE = """
DROP TRIGGER IF EXISTS cards_event_write_once ON cards_card;
DROP FUNCTION IF EXISTS cards_event_write_once();
"""


class Migration(migrations.Migration):
    dependencies = [("cards", "0003_initial")]
    operations = [migrations.RunSQL(FUNCTION, REVERSE)]
