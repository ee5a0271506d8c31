"""Run the weekly upkeep over one scope now.

    python manage.py upkeep --scope SCOPE_ID [--dry-run]

It proposes into the scope's review queue, never into the fact store; a dry run
prints what it would propose and writes nothing."""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError, CommandParser

from cards.models import Card
from review.models import UpkeepProposal
from review.services.upkeep import upkeep_run
from review.upkeep.why import upkeep_why
from scopes.models import Scope


class Command(BaseCommand):
    help = "Propose the week's tidying of one scope into its review queue (--dry-run: print it, write nothing)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--scope", required=True, type=int, help="The scope id.")
        parser.add_argument("--dry-run", action="store_true", help="Print what would be proposed; write nothing.")

    def handle(self, *args, scope: int, dry_run: bool, **options) -> None:
        found = Scope.objects.filter(pk=scope).first()
        if found is None:
            raise CommandError(f"No scope with id {scope}.")
        summary = upkeep_run(found, dry_run=dry_run)
        names = dict(Card.objects.filter(pk__in={pk for f in summary.proposed for pk in (f.card_id, f.other_id) if pk})
                     .values_list("id", "subject__name"))
        for f in summary.proposed:
            shown = UpkeepProposal(kind=f.kind, card_id=f.card_id, other_id=f.other_id, why=f.why,
                                   evidence_at=f.evidence_at)
            other = f" with card #{f.other_id}" if f.other_id and f.kind == "merge" else ""
            what = f"the project “{found.name}”" if f.card_id is None else f"card #{f.card_id}{other}"
            self.stdout.write(f"{'would propose' if dry_run else 'proposed'}: {f.kind} {what} — "
                              f"{upkeep_why(shown, viewer=None, names=names)}")
        self.stdout.write(f"{'Dry run, nothing written' if dry_run else 'Done'}: "
                          f"{summary.count('promote')} promotions, {summary.count('demote')} demotions, "
                          f"{summary.count('merge')} merges, {summary.count('archive')} archiving "
                          f"({summary.already_waiting} already waiting).")
