"""The dashboard's pages of the card store, one module per what they show —
cards: a scope's cards (the list, adding one); card: one card with its
timeline, and verify / correct / phrase / forget; entities: the entities, their
aliases and merges; account: erasing an account; ask: the ask page; person:
"About Dana" — with the forms they validate through (forms), what a person may
do in a scope (rights) and the pictures they draw server-side (timeline,
decay_picture). Thin: selectors restrict, services write. Nothing below the
pages imports them; the site's urls do (memory_site/web_urls.py)."""
