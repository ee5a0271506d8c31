"""Move the database to the embedding model the settings name now (EMBEDDING_BACKEND): every card whose
vector is of another model, or has none, embedded again, in the background of a running site.

    manage.py reembed [--batch 64] [--limit N] [--every 10]

Run it in its own process after changing EMBEDDING_BACKEND (and restarting the web with it). Recall answers
throughout: cards not yet moved are scored by their words. Stopped at any point (Ctrl-C, a crash, a
deploy), it goes on where it stopped when started again: it looks for the cards not of the current model.
One at a time: a second run is refused while one holds the database's reembed lock."""

from __future__ import annotations

import time

from django.core.management.base import BaseCommand, CommandError

from cards.embeddings import current_space
from cards.services.reembed import REEMBED_BATCH, ReembedRunning, cards_reembed, cards_to_move


def duration(seconds: float) -> str:
    """"2 h 05 min", "3 min 20 s", "12 s"."""
    seconds = int(round(seconds))
    hours, rest = divmod(seconds, 3600)
    minutes, seconds = divmod(rest, 60)
    if hours:
        return f"{hours} h {minutes:02d} min"
    return f"{minutes} min {seconds:02d} s" if minutes else f"{seconds} s"


class Progress:
    """done/total, the rate since the run started and the time left at that rate, written at most every
    `every` seconds (and once at the end)."""

    def __init__(self, write, *, total: int, space: str, every: float) -> None:
        self.write, self.total, self.space, self.every = write, total, space, every
        self.done = 0
        self.started = self.shown = time.monotonic()

    def __call__(self, count: int) -> None:
        self.done += count
        if time.monotonic() - self.shown >= self.every:
            self.show()

    def line(self) -> str:
        elapsed = max(time.monotonic() - self.started, 1e-9)
        rate = self.done / elapsed
        share = 100 * self.done / self.total if self.total else 100.0
        left = (f"about {duration((self.total - self.done) / rate)} left" if rate > 0 and self.done < self.total
                else f"{duration(elapsed)} in all")
        return (f"reembed to {self.space}: {self.done:,} of {self.total:,} cards ({share:.1f} %),"
                f" {rate:.1f} cards/s, {left}")

    def show(self) -> None:
        self.shown = time.monotonic()
        self.write(self.line())


class Command(BaseCommand):
    help = "Embed again, in the current model, every card whose vector is of another model or missing."

    def add_arguments(self, parser) -> None:
        parser.add_argument("--batch", type=int, default=REEMBED_BATCH, help="cards per embedding call and UPDATE")
        parser.add_argument("--limit", type=int, default=None, help="stop after this many cards")
        parser.add_argument("--every", type=float, default=10.0, help="seconds between progress lines")

    def handle(self, *args, batch: int, limit: int | None, every: float, **options) -> None:
        if batch < 1 or (limit is not None and limit < 0) or every < 0:
            raise CommandError("--batch must be at least 1, and --limit and --every not negative.")
        space = current_space()
        waiting = cards_to_move(space).count()
        total = waiting if limit is None else min(limit, waiting)
        quiet = options["verbosity"] == 0
        progress = Progress(self.stdout.write if not quiet else (lambda line: None), total=total, space=space,
                            every=every)
        if not quiet:
            self.stdout.write(f"reembed to {space}: {waiting:,} cards not of it"
                              + (f", moving {total:,} of them." if total < waiting else "."))
        try:
            done = cards_reembed(batch_size=batch, limit=total, progress=progress)
        except ReembedRunning as refused:
            raise CommandError(str(refused)) from None
        except KeyboardInterrupt:
            progress.show()
            raise CommandError(f"Stopped after {progress.done:,} of {total:,} cards; run reembed again to go on."
                               ) from None
        progress.show()
        left = cards_to_move(space).count()
        self.stdout.write(f"Moved {done['moved']:,} of {done['looked_at']:,} cards to {space};"
                          f" {left:,} not of it remain.")
