"""Moving a memory in and out of the store as files: the export in the
remember-me layout (export_markdown: MEMORY.md, daily notes and export.json),
reading that layout back (import_markdown), and importing an export document
into one scope through the card services (importer), so every card rule
applies. The export's read itself is a selector (cards/selectors/export.py)."""
