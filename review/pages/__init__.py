"""The dashboard's pages of the review queue, one module per what they show —
queue: each scope's queue and the decisions on it, and every person's own part
(what others said about them, what their own agents proposed); rules: writing
a derivation rule as a form — with the forms they validate through (forms,
rule_forms). Thin: selectors restrict, the review services decide. Nothing
below the pages imports them but the template tags that render their forms;
the site's urls do (memory_site/web_urls.py)."""
