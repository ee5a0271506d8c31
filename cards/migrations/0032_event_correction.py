"""A person may correct an event's date or place said wrongly (issue: corrections,
not duplicates): the same event, corrected, never a second one. The write-once
trigger still refuses every change to what happened — scope, kind, subject,
label, value — and lets the event's time (occurred_at, occurred_end, precision,
the zone it was anchored in) and its object (with value_norm, which holds the
object) change only for the one card the correction service names in its own
transaction: `SET LOCAL memory_site.correcting = '<card id>'`
(cards/services/event_correction.py). Any other UPDATE is refused as before."""

import importlib

from django.db import migrations

CORRECTING = """
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
    OR ((NEW.value_norm IS DISTINCT FROM OLD.value_norm
         OR NEW.object_id IS DISTINCT FROM OLD.object_id
         OR NEW.occurred_at IS DISTINCT FROM OLD.occurred_at
         OR NEW.occurred_end IS DISTINCT FROM OLD.occurred_end
         OR NEW.precision IS DISTINCT FROM OLD.precision
         OR NEW.anchor_zone IS DISTINCT FROM OLD.anchor_zone)
        -- A person's correction of this one card, in the transaction that makes it.
        AND coalesce(current_setting('memory_site.correcting', true), '') IS DISTINCT FROM OLD.id::text)) THEN
    RAISE EXCEPTION 'immutable_event: that event card % happened, when, to whom and what kind of event it was cannot change', OLD.id
      USING ERRCODE = '23M01';
  END IF;
  RETURN NEW;
END
$$;
"""

# Back to the trigger as 0015 wrote it (anchor_zone guarded, nothing corrected).
_ANCHOR_ZONE = importlib.import_module("cards.migrations.0015_card_anchor_zone")
WRITE_ONCE = _ANCHOR_ZONE.write_once("\n    OR NEW.anchor_zone IS DISTINCT FROM OLD.anchor_zone")


class Migration(migrations.Migration):
    dependencies = [("cards", "0031_card_embedding_space")]

    operations = [migrations.RunSQL(CORRECTING, WRITE_ONCE)]
