"""The dashboard's pages of the ladder, one module per what they show —
scopes: members, agent tokens, invite links and signing up through one;
archive: archiving a project and restoring it — with the forms they validate
through (forms), and the one way into every app's pages (entry). Thin:
selectors restrict, services write. Nothing below the pages imports them; the
site does (memory_site/web_urls.py, its home page)."""
