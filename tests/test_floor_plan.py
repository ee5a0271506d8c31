"""The floor plan (DESIGN §2): a person who opens the tree finds each rule in the
place named for it. The card store keeps about a dozen modules at its top, the
rest in the packages DESIGN names (services, selectors, time, answers,
embeddings, api, pages); every app's dashboard pages live in its pages/
package; and every module and package of the card store has its place in the
store's layers contract (pyproject.toml), so a new one is placed as it is made.
That the layers hold is lint-imports' to say (`make test` runs it)."""

from __future__ import annotations

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
APPS = ("cards", "core", "memory_site", "review", "scopes")
MOST_TOP_LEVEL = 12  # the card store's own modules beside its packages
# Django's wiring of an app, named by convention and found by it: the app's config, its admin, its rows, its
# tasks, and the signals it sends with the receivers it connects (README, "How apps tell each other").
WIRING = {"__init__.py", "apps.py", "admin.py", "models.py", "tasks.py", "signals.py", "receivers.py"}
DESIGNED = ("services", "selectors", "time", "answers", "embeddings", "api", "pages")


def _children(app: str) -> set[str]:
    root = ROOT / app
    modules = {p.stem for p in root.glob("*.py") if p.name != "__init__.py"}
    return modules | {p.parent.name for p in root.glob("*/__init__.py")}


def _layers(container: str) -> list[str]:
    contracts = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]["contracts"]
    found = [c for c in contracts if c["type"] == "layers" and c.get("containers") == [container]]
    assert len(found) == 1, f"one layers contract for {container}"
    return found[0]["layers"]


def _placed(layers: list[str]) -> set[str]:
    return {name.strip() for layer in layers for name in layer.split("|")}


def test_the_card_store_keeps_about_a_dozen_modules_at_its_top():
    top = sorted(p.name for p in (ROOT / "cards").glob("*.py") if p.name not in WIRING)
    assert len(top) <= MOST_TOP_LEVEL, f"{len(top)} modules at the top of cards/: {top}"


def test_the_packages_design_names_exist():
    missing = [name for name in DESIGNED if not (ROOT / "cards" / name / "__init__.py").exists()]
    assert not missing


def test_pages_live_in_each_apps_pages_package():
    stray = sorted(str(p.relative_to(ROOT)) for app in APPS for pattern in ("views.py", "*_pages.py", "*_page.py")
                   for p in (ROOT / app).glob(pattern))
    assert not stray, f"pages outside a pages/ package: {stray}"


def test_every_module_of_the_card_store_has_its_layer():
    placed = _placed(_layers("cards"))
    assert not placed - _children("cards"), "a layer names a module that is gone"
    assert _children("cards") - placed == set(), "a module of the card store is in no layer"


def test_time_and_answers_are_layered_module_by_module():
    for package in ("time", "answers", "recall"):
        children = {p.stem for p in (ROOT / "cards" / package).glob("*.py") if p.name != "__init__.py"}
        assert _placed(_layers(f"cards.{package}")) == children, package
