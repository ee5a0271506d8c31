"""Counts as a reader gets them (DESIGN §7 "Code does the counting"): the
subject bound, `when` or a from/to range resolved in the asker's zone, and
the range the count covered. The API's /count/ and the ask page both call `count_read`."""

from __future__ import annotations

import datetime as dt

from django.utils.translation import gettext

from core.errors import DomainError
from scopes.principals import Principal

from ..selectors.read_scopes import scope_ids_read
from .count import Count, count_cards
from ..labels import label_resolve
from ..models import Label
from ..time.when import speaker_zone, when_interval, zone_label
from ..selectors.entities import entity_bind, entity_brief


class AmbiguousSubject(DomainError):
    code = "ambiguous_subject"


def count_read(*, principal: Principal, scope_id: int | str | None, label: str, subject: str | None = None,
               start: dt.datetime | None = None, end: dt.datetime | None = None, when: str | None = None,
               tz: str | None = None) -> tuple[Count, Label, dt.datetime | None, dt.datetime | None]:
    """The count, the label counted, and the range it covered."""
    # Checked first: the zone reaches SQL (events are counted by local day) even without a `when`.
    zone = speaker_zone(principal.user, tz)
    scope_ids = scope_ids_read(principal=principal, scope_id=scope_id)
    found_label = label_resolve(label)
    subject_ids = None
    if subject:
        binding = entity_bind(name=subject, scope_ids=scope_ids, speaker=principal.user)
        if binding.status == "ambiguous":
            raise AmbiguousSubject(gettext("%(name)s names more than one entity here; ask about one.")
                                   % {"name": repr(subject)},
                                   entities=[entity_brief(e) for e in binding.entities])
        subject_ids = binding.entity_ids
    if when:
        interval = when_interval(when, tz_name=tz, user=principal.user)
        # A stated instant (end None) is a range of one microsecond, not "from then on".
        start, end = interval.start, interval.end or interval.start + dt.timedelta(microseconds=1)
    found = count_cards(scope_ids=scope_ids, label=found_label, subject_ids=subject_ids, start=start, end=end,
                        tz=zone_label(zone))
    return found, found_label, start, end
