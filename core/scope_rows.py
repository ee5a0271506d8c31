"""The base of every model a Citus cluster distributes by scope_id (memory_site/distribution.py's
DISTRIBUTED; docs/distributed.md)."""

from __future__ import annotations

from django.db import models


class ScopeRow(models.Model):
    """A row that lives on its scope's shard. Saving one that exists writes every loaded field but its
    scope: a row never moves to another scope (trying raises), and Citus refuses an UPDATE that sets the
    distribution column, even to the value it already holds ("modifying the partition value of rows is
    not allowed"). The UPDATE names the scope beside the id, so a cluster sends it to the row's shard alone."""

    class Meta:
        abstract = True

    @classmethod
    def from_db(cls, db, field_names, values):
        row = super().from_db(db, field_names, values)
        row._scope_loaded = row.__dict__.get("scope_id")
        return row

    def _scope_known(self) -> int | None:
        """The scope the row lives in as far as this instance knows, never read from the database for it (a
        deferred scope would be fetched by id alone): the one it was loaded or first saved in, else its own."""
        loaded = getattr(self, "_scope_loaded", None)
        return loaded if loaded is not None else self.__dict__.get("scope_id")

    def save(self, *args, **kwargs):
        adding = self._state.adding
        # Django takes a field by its name or its column's ("scope" or "scope_id").
        if not adding and {"scope", "scope_id"} & set(kwargs.get("update_fields") or ()):
            raise ValueError(f"A {type(self).__name__} never moves to another scope.")
        if not adding and kwargs.get("update_fields") is None and not kwargs.get("force_insert"):
            current = self.__dict__.get("scope_id")
            if current is not None and current != self._scope_known():
                raise ValueError(f"A {type(self).__name__} never moves to another scope.")
            deferred = self.get_deferred_fields()
            kwargs["update_fields"] = [field.name for field in self._meta.concrete_fields
                                       if not field.primary_key and field.attname != "scope_id"
                                       and field.attname not in deferred]
        super().save(*args, **kwargs)
        if adding or getattr(self, "_scope_loaded", None) is None:
            self._scope_loaded = self.__dict__.get("scope_id")

    def _do_update(self, base_qs, using, pk_val, values, update_fields, forced_update):
        # Django's own UPDATE finds the row by id alone, which a cluster would send to every shard.
        scope_id = self._scope_known()
        if scope_id is not None:
            base_qs = base_qs.filter(scope_id=scope_id)
        return super()._do_update(base_qs, using, pk_val, values, update_fields, forced_update)
