"""Refusals of the scopes domain; mapped to 4xx codes in one place by the API."""

from __future__ import annotations

from core.errors import DomainError, InvalidInput, NotAllowed


class LastOwner(DomainError):
    code = "last_owner"
    status = 409


class NotAMember(DomainError):
    """Leaving a scope one does not belong to: as absent as a scope one cannot see."""

    code = "not_found"
    status = 404


class InvitationGone(DomainError):
    """The invitation was answered or withdrawn meanwhile (a race, or a second click)."""

    code = "invitation_gone"
    status = 409


class InvalidLadder(DomainError):
    code = "invalid_ladder"


class UnknownTimeZone(InvalidInput):
    """Not an IANA zone name (an offset such as +08:00 is refused too: it is
    wrong after the next summer-time change). Carries `fields`, so it answers
    like any other bad field: `validation_error`, the code the API has always
    given a bad `tz`."""


class MinorRefused(NotAllowed):
    """Minors make no agent tokens and no scopes, invite nobody, change no roles
    and do not leave their family (DESIGN §3): their guardians, the owners of
    their family, look after that. A NotAllowed: nothing the minor sends changes
    it, so a page lets it through to its 403 as the API answers 403."""

    code = "minor_not_allowed"
    status = 403


class ScopeArchived(DomainError):
    """A write (or proposal, or review) in an archived project: it is read-only
    until an owner restores it. Forgetting still works. A 403 as any other "seen
    but not allowed to change" (API.md "Auth"), with its own code; pages show its words."""

    code = "scope_archived"
    status = 403


class NotAProject(DomainError):
    """Only a project ends: a personal, family, team (or wider) scope is never archived."""

    code = "not_a_project"
    status = 400


class NoScopeOfKind(DomainError):
    """"family" (or "team", "personal") named where the caller reads no scope of that kind:
    as absent as a scope they cannot see."""

    code = "not_found"
    status = 404


class AmbiguousScope(DomainError):
    """"team" named where the caller reads several: which one is theirs to say, by id (`candidates`)."""

    code = "ambiguous_scope"



class NotFamilyOrTeam(DomainError):
    """Sharing is with a household or a team one belongs to (DESIGN §3 "Sharing by the
    person's choice"): a personal, project or wider scope is refused by name, not hidden."""

    code = "not_family_or_team"
    status = 400
