"""Browser tests read the page through Playwright's auto-waiting `expect(...)`.

A bare `is_visible()`, `text_content()`, `count()` … reads the page as it is at
that instant: right after a click the old page may still be there, and on a
loaded machine such a test fails now and then
(`test_create_a_token_and_use_it_over_http` did). This walks every browser
test module and refuses those reads; `expect(locator).to_be_visible()`,
`to_contain_text`, `to_have_count`, `to_have_value` … wait for the page."""

from __future__ import annotations

import ast
from pathlib import Path

HERE = Path(__file__).resolve().parent
# Locator and page methods that answer at once, without waiting for the page to agree.
NOT_WAITING = {
    "is_visible", "is_hidden", "is_checked", "is_enabled", "is_disabled", "is_editable",
    "text_content", "inner_text", "inner_html", "all_text_contents", "all_inner_texts", "count", "content",
}


def _browser_modules() -> list[Path]:
    return sorted(path for path in HERE.rglob("test_*.py")
                  if "pytest.mark.browser" in path.read_text() and path.resolve() != Path(__file__).resolve())


def _reads_without_waiting(path: Path) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and node.func.attr in NOT_WAITING):
            found.append(f"{path.name}:{node.lineno}: {ast.unparse(node)}")
    return found


def test_there_are_browser_tests_to_look_at():
    names = {path.name for path in _browser_modules()}
    assert {"test_browser.py", "test_zone_browser.py"} <= names


def test_no_browser_test_reads_the_page_without_waiting():
    stray = [line for path in _browser_modules() for line in _reads_without_waiting(path)]
    assert not stray, "use expect(...) instead:\n" + "\n".join(stray)


def test_the_check_sees_a_bare_read(tmp_path):
    sample = tmp_path / "test_sample.py"
    bare_read = "is_" + "visible()"  # spelled apart, so this file holds no bare read of its own
    sample.write_text(f"assert page.get_by_role('row', name='x').{bare_read}\n"
                      "assert 'a' in page.locator('#l').text_content()\n"
                      "expect(page.get_by_role('row')).to_be_visible()\n")
    assert [line.split(": ", 1)[0] for line in _reads_without_waiting(sample)] == ["test_sample.py:1",
                                                                                  "test_sample.py:2"]
