"""Forget a label's whole timeline for a subject, or everything about a subject, in a scope.

    python manage.py forget --user USER --scope SCOPE_ID --subject NAME [--label LABEL]

Acts as USER (whose "me" the subject may be), with the same rule as the API: only
the cards USER may forget (those of scopes they may write in). Prints the receipt:
counts per kind, never content."""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import transaction
from django.http import Http404

from cards.selectors.cards import FORGET_ACTION
from cards.services import subject_forget
from core.errors import DomainError, NotAllowed
from scopes.models import User
from scopes.principals import Principal
from scopes.selectors import scope_get


class Command(BaseCommand):
    help = ("Forget a label's whole timeline for a subject (--label), or everything about the subject, in a "
            "scope, as --user; prints the receipt (counts, never content).")

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--user", required=True, help="Who forgets (their 'me', their right to forget).")
        parser.add_argument("--scope", required=True, type=int, help="The scope id.")
        parser.add_argument("--subject", required=True, help='"me", a name, an alias or a relation word.')
        parser.add_argument("--label", help="Only this label's timeline.")

    def handle(self, *args, user: str, scope: int, subject: str, label: str | None, **options) -> None:
        person = User.objects.filter(username=user).first()
        if person is None:
            raise CommandError(f"No user named {user!r}.")
        principal = Principal(person)
        try:
            with transaction.atomic():
                where = scope_get(principal=principal, scope_id=scope, action=FORGET_ACTION)
                receipt = subject_forget(principal=principal, scope=where, subject=subject, label=label)
        except Http404:
            raise CommandError(f"No scope {scope} that {user} can see.") from None
        except NotAllowed:
            raise CommandError(f"{user} may not forget in scope {scope} (they may only read it).") from None
        except DomainError as refused:
            raise CommandError(refused.detail) from None
        self.stdout.write(f"Forgotten: {receipt.words()}.")
