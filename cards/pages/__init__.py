"""The dashboard's pages of the card store, one module per what they show —
cards: a scope's cards, one card with its timeline, and verify / correct /
forget; ask: the ask page; person: "About Dana" — with the forms they validate
through (forms) and the pictures they draw server-side (timeline,
decay_picture). Thin: selectors restrict, services write. Nothing below the
pages imports them; the site's urls do (memory_site/web_urls.py)."""
