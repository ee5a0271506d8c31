"""Cards keep the zone their write was anchored in (the speaker's day, DESIGN
§5): an IANA name or a fixed offset. Times stay instants; the zone says whose
midnights "yesterday" meant, so it is part of an event's "when" and the
write-once trigger guards it too. Cards written before stay blank."""

from django.db import migrations, models

GUARDED = """
    OR NEW.occurred_at IS DISTINCT FROM OLD.occurred_at
    OR NEW.occurred_end IS DISTINCT FROM OLD.occurred_end
    OR NEW.precision IS DISTINCT FROM OLD.precision{extra}) THEN"""


def write_once(extra: str) -> str:
    return """
CREATE OR REPLACE FUNCTION cards_event_write_once() RETURNS trigger LANGUAGE plpgsql AS $$
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
    OR NEW.object_id IS DISTINCT FROM OLD.object_id""" + GUARDED.format(extra=extra) + """
    RAISE EXCEPTION 'immutable_event: that event card % happened, when, to whom and what kind of event it was cannot change', OLD.id
      USING ERRCODE = '23M01';
  END IF;
  RETURN NEW;
END
$$;
"""


class Migration(migrations.Migration):
    dependencies = [("cards", "0014_label_ages_and_asked")]

    operations = [
        migrations.AddField(
            model_name="card",
            name="anchor_zone",
            field=models.CharField(blank=True, db_default="", default="", max_length=64),
        ),
        migrations.RunSQL(write_once("\n    OR NEW.anchor_zone IS DISTINCT FROM OLD.anchor_zone"), write_once("")),
    ]
