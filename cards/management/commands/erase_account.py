"""Erase an account and everything of its person's, as the API's DELETE /account/ does.

    python manage.py erase_account USERNAME --yes

For an operator acting on the person's request (no password asked). Without
--yes nothing happens. Prints the receipt: counts per kind, never content."""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError, CommandParser

from cards.services.account import account_erase
from core.errors import DomainError
from scopes.models import User


class Command(BaseCommand):
    help = "Erase USERNAME's account and everything of theirs (needs --yes); prints the receipt."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("username")
        parser.add_argument("--yes", action="store_true", help="Yes, erase it: this cannot be undone.")

    def handle(self, *args, username: str, yes: bool, **options) -> None:
        person = User.objects.filter(username=username).first()
        if person is None:
            raise CommandError(f"No user named {username!r}.")
        if not yes:
            raise CommandError(f"Nothing was erased: add --yes to erase {username} and everything of theirs.")
        try:
            receipt = account_erase(user=person)
        except DomainError as refused:
            raise CommandError(refused.detail) from None
        self.stdout.write(f"Erased {username}: {receipt.words()}.")
