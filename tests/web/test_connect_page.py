"""Connect an agent: the base URL, the token's scopes with ids, snippets that
carry the token once, docs links."""

import json
import re

import pytest

from scopes.tokens import token_create

pytestmark = pytest.mark.django_db


def _textarea(content: bytes, key: str) -> str:
    import html
    found = re.search(rf'<textarea id="snippet-{key}"[^>]*>(.*?)</textarea>'.encode(), content, re.S)
    return html.unescape(found.group(1).decode())


def test_the_connect_page_gives_an_agent_everything_it_needs(household, pages, alice):
    family = household["family"]
    client = pages(alice)
    created = client.post("/tokens/new/", {"name": "kitchen", "scopes": [family.pk, alice.personal_scope.pk],
                                           "access": "read+write", "days": "30"})
    page = client.get(created["Location"])
    content = page.content
    secret = re.search(rb'id="token-secret" type="text" readonly value="([^"]+)"', content).group(1).decode()
    assert b"http://testserver/" in content and b"http://testserver/mcp/" in content
    assert b'href="http://testserver/api/v1/docs/"' in content
    for scope in (family, alice.personal_scope):
        assert f"<code>{scope.pk}</code>".encode() in content and scope.name.encode() in content
    assert secret in _textarea(content, "curl") and "http://testserver/api/v1/recall/" in _textarea(content, "curl")
    python = _textarea(content, "python")
    assert f"MemoryClient('http://testserver/', '{secret}')" in python
    compile(python, "snippet", "exec")
    http = json.loads(_textarea(content, "mcp_http"))["mcpServers"]["memory-site"]
    assert http == {"type": "http", "url": "http://testserver/mcp/", "headers": {"Authorization": f"Bearer {secret}"}}
    stdio = json.loads(_textarea(content, "mcp_stdio"))["mcpServers"]["memory-site"]
    assert stdio["args"][-1] == "mcp" and stdio["env"] == {"MEMORY_SITE_TOKEN": secret}
    assert b'id="token-test"' in content and b"js/token_test.js" in content


def test_a_read_only_tokens_python_snippet_only_reads(household, pages, alice):
    token, _ = token_create(user=alice, name="reader", scopes=[household["family"]])
    python = _textarea(pages(alice).get(f"/tokens/{token.pk}/connect/").content, "python")
    assert "remember" not in python and "recall" in python and "<your token>" in python


def test_another_persons_token_has_no_connect_page(household, pages, alice):
    token, _ = token_create(user=alice, name="mine", scopes=[household["family"]])
    assert pages(household["bob"]).get(f"/tokens/{token.pk}/connect/").status_code == 404
