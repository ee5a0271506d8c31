"""Spread the database over a Citus cluster: `manage.py migrate` then `manage.py distribute` on the coordinator.

The reference tables (users, the scope ladder and its grants, labels, rules, tokens) are replicated to every
node; the rows that live in a scope are distributed by scope_id, colocated, so a read of some scopes runs on
the shards holding them. Idempotent: a second run reports what is already in place. On plain PostgreSQL it
says there is nothing to do. It refuses, changing nothing, while a key still stops Citus
(memory_site/distribution.py lists them; docs/distributed.md says how each is handled)."""

from __future__ import annotations

from django.core.management.base import BaseCommand, CommandError
from django.db import connection

from memory_site.distribution import DistributeRefused, KeysNotPutBack, distribute, sessions_renew


class Command(BaseCommand):
    help = "On a Citus coordinator: replicate the reference tables and distribute the scoped ones by scope_id."

    def handle(self, *args, **options):
        try:
            with connection.cursor() as cursor:
                lines = distribute(cursor)
        except DistributeRefused as refused:
            raise CommandError("Citus would refuse the schema; nothing changed:\n  "
                               + "\n  ".join(refused.lines)) from None
        except KeysNotPutBack as lost:
            raise CommandError(f"Some keys set aside could not be put back; run these by hand:\n{lost}") from lost
        # This process may go on (call_command): its next statement opens a session with the settings
        # distribute gave the database, not the one that ran it. Not inside a caller's transaction, which
        # closing would end (whose caller renews the session after committing: `distribution.sessions_renew`).
        if not connection.in_atomic_block:
            sessions_renew(connection)
        for line in lines:
            self.stdout.write(line)
