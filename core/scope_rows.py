"""The base of every model a Citus cluster distributes by scope_id (memory_site/distribution.py's
DISTRIBUTED; docs/distributed.md)."""

from __future__ import annotations

from django.db import models


class ScopeRow(models.Model):
    """A row that lives on its scope's shard. Saving one that exists writes every field but its scope:
    a row never moves to another scope, and Citus refuses an UPDATE that sets the distribution column,
    even to the value it already holds ("modifying the partition value of rows is not allowed")."""

    class Meta:
        abstract = True

    def save(self, *args, **kwargs):
        if not self._state.adding and kwargs.get("update_fields") is None and not kwargs.get("force_insert"):
            kwargs["update_fields"] = [field.name for field in self._meta.concrete_fields
                                       if not field.primary_key and field.attname != "scope_id"]
        super().save(*args, **kwargs)
