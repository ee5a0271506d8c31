"""A person's own settings: their time zone and language. The API's /me/ and
the dashboard's settings page both write through `person_settings_set`."""

from __future__ import annotations

from django.db import transaction
from django.utils.translation import gettext as _

from core.errors import InvalidInput

from .models import Language, User
from .zones import zone_named


@transaction.atomic
def person_settings_set(*, user: User, time_zone: str | None = None, language: str | None = None) -> User:
    """Change what is given; None leaves a setting as it is. Naming a zone — even
    the one already set — counts as choosing it, so the dashboard stops proposing
    the browser's. Every value is checked before anything is saved."""
    changed = []
    if time_zone is not None:
        user.time_zone = zone_named(time_zone, field="time_zone").key  # an IANA name; an offset is refused
        user.time_zone_chosen = True
        changed += ["time_zone", "time_zone_chosen"]
    if language is not None:  # "" follows the browser's language again
        if language and language not in Language.values:
            raise InvalidInput(_("%(language)s is not a language of this site.") % {"language": repr(language)},
                               fields={"language": [_("must be one of %(languages)s")
                                                    % {"languages": ", ".join(Language.values)}]})
        user.language = language
        changed.append("language")
    if changed:
        user.save(update_fields=changed)
    return user
