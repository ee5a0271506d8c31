"""The words a request may name a scope by instead of its id (API.md "Reads without a scope"): the
caller's one scope of that kind. What each means is the ladder's (scopes.selectors.scope_ref_id); the
API's field (core.api.common.ScopeRefField) and the MCP server take them as they are."""

SCOPE_WORDS = ("personal", "family", "team")
