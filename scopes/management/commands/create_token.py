"""Create an agent token from the command line and print it once.

    python manage.py create_token --user USER --scope SCOPE_ID [--scope …] [--write | --propose]
                                  [--days 90] [--name NAME]

`--scope` takes a scope id, `personal` (the user's own scope) or `all` (every
scope the user can see, now and later). `--propose` makes a propose-only token:
its writes wait in the user's review queue as candidates. Only a SHA-256 of the token is stored,
so the printed token cannot be shown again.
"""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError, CommandParser

from core.errors import InvalidInput
from scopes.errors import MinorRefused
from scopes.models import Scope, User
from scopes.principals import Principal
from scopes.tokens import DEFAULT_DAYS, MAX_DAYS, token_create

MAX_ID = 2**63 - 1
DEFAULT_NAME = "command-line token"


def scopes_of(user: User, names: list[str]) -> tuple[list[Scope], bool]:
    """The scopes `names` grant, and whether they mean `all`; CommandError on anything else."""
    wanted = list(dict.fromkeys(name.strip() for name in names))
    if "all" in wanted:
        if len(wanted) > 1:
            raise CommandError("--scope all already covers every scope of the user; give it alone.")
        return [], True
    scopes, problems = [], []
    visible = Scope.objects.visible_to(Principal(user), "view")
    for name in wanted:
        if name == "personal":
            scope = visible.filter(owner=user, kind="personal").first()
            scopes.append(scope) if scope else problems.append(f"{user.username} has no personal scope")
        elif name.isascii() and name.isdigit() and 0 < int(name) <= MAX_ID:
            scope = visible.filter(pk=int(name)).first()
            # The same words whether the scope is missing or not this user's.
            scopes.append(scope) if scope else problems.append(f"no scope {name} that {user.username} can see")
        else:
            problems.append(f"{name!r} is not a scope id, 'personal' or 'all'")
    if problems:
        raise CommandError("Cannot grant these scopes: " + "; ".join(problems) + ".")
    return scopes, False


class Command(BaseCommand):
    help = ("Create an agent token for a user and print it once. --scope takes a scope id, 'personal', "
            "or 'all' (every scope the user can see, now and later); repeat it for several scopes.")

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--user", required=True, help="Username the token acts for.")
        parser.add_argument("--scope", action="append", required=True, dest="scopes", metavar="SCOPE",
                            help="A scope id, 'personal' or 'all'; repeatable.")
        access = parser.add_mutually_exclusive_group()
        access.add_argument("--write", action="store_true", help="Allow writes (default: read only).")
        access.add_argument("--propose", action="store_true",
                            help="Propose only: its writes wait in the user's review queue as candidates (for an "
                                 "agent not yet trusted).")
        parser.add_argument("--days", type=int, default=DEFAULT_DAYS,
                            help=f"Days until the token expires, 1–{MAX_DAYS} (default {DEFAULT_DAYS}).")
        parser.add_argument("--name", default=DEFAULT_NAME, help=f"A label for the token (default {DEFAULT_NAME!r}).")

    def handle(self, *args, user: str, scopes: list[str], write: bool, days: int, name: str, propose: bool = False,
               **options) -> None:
        owner = User.objects.filter(username=user).first() if "\x00" not in user else None
        if owner is None:
            raise CommandError(f"No user named {user!r}.")
        if not owner.is_active:
            raise CommandError(f"User {user!r} is inactive; an inactive user's tokens are refused.")
        granted, all_scopes = scopes_of(owner, scopes)
        try:
            token, raw = token_create(user=owner, name=name, can_write=write, proposes=propose, scopes=granted,
                                      all_scopes=all_scopes, days=days)
        except MinorRefused as refused:
            raise CommandError(refused.detail) from None
        except InvalidInput as refused:
            problems = "; ".join(f"{field}: {', '.join(map(str, issues))}"
                                 for field, issues in refused.extra.get("fields", {}).items())
            raise CommandError(f"Cannot create the token: {problems or refused.detail}") from None
        where = "every scope the user can see" if all_scopes else ", ".join(str(s.pk) for s in granted)
        self.stdout.write(f"Created {token.access} token {token.prefix!r} ({token.name}) for {owner.username} "
                          f"on {where}; expires {token.expires_at:%Y-%m-%d %H:%M} UTC.")
        self.stdout.write(raw)
        self.stdout.write(self.style.WARNING("Copy it now: this token will not be shown again."))
