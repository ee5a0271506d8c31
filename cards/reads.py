"""What a read covers (DESIGN §3): whole scopes, and the cards other members chose to
share with a family or team the read sees ("Sharing by the person's choice").

A `Read` is the list of scope ids every read path has always taken, carrying the
shares beside it: (scope, subject, label) triples — a member's personal scope, their
own person entity, one label they share. Code that reads cards takes the list as it
is: the ORM through `Card.objects.in_scopes` (cards.models.CardQuerySet) and SQL
through `in_read_sql` with `read_params`. Anything that copies the ids into a plain
list reads the whole scopes only, never more: a share left out is a card not shown,
never one shown to the wrong person. Who may read what is decided once, by
cards/selectors/read_scopes.py; this module only carries it."""

from __future__ import annotations

from collections.abc import Iterable


class Read(list):
    """Scope ids (read whole) and `shared`: (scope id, subject entity id, label id) triples."""

    def __init__(self, scope_ids: Iterable[int] = (), shared: Iterable[tuple[int, int, int]] = ()) -> None:
        super().__init__(scope_ids)
        whole = set(self)
        # A share inside a scope read whole adds nothing.
        self.shared = tuple(sorted({triple for triple in shared if triple[0] not in whole}))


def reads_joined(reads) -> Read:
    """One Read covering every read of `reads` (an iterable of Reads or scope id lists)."""
    reads = list(reads)
    return Read(sorted(set().union(*reads)) if reads else [], {t for read in reads for t in shared_of(read)})


def shared_of(scope_ids) -> tuple[tuple[int, int, int], ...]:
    return getattr(scope_ids, "shared", ())


def read_params(scope_ids) -> dict:
    """The read's parameters for `in_read_sql`: the whole scopes, and the shares as three arrays."""
    shared = shared_of(scope_ids)
    shared_scopes = [s for s, _, _ in shared]
    # `read_scopes`: every scope a card of the read may be in, for statements that find a card already chosen
    # by `in_read_sql` again by its id and scope (on a cluster, a read by id alone asks every shard).
    return {"scopes": list(scope_ids), "shared_scopes": shared_scopes,
            "shared_subjects": [e for _, e, _ in shared], "shared_labels": [label for _, _, label in shared],
            "read_scopes": list(dict.fromkeys([*scope_ids, *shared_scopes]))}


def in_read_sql(alias: str, params: dict) -> str:
    """The condition keeping the cards (`alias`, a cards_card row) the read of `params` (`read_params`)
    covers. Without shares it is the scope filter every statement had, so those statements keep their plans."""
    whole = f"{alias}.scope_id = ANY(%(scopes)s)"
    if not params.get("shared_scopes"):
        return whole
    return (f"({whole} OR ({alias}.scope_id, {alias}.subject_id, {alias}.label_id) IN (SELECT * FROM"
            " unnest(%(shared_scopes)s::bigint[], %(shared_subjects)s::bigint[], %(shared_labels)s::bigint[])))")
