"""Every read for people goes through the one visibility primitive.

Which rows a caller may see is decided once per kind of row: `visible_to(principal,
action)` / `in_scopes(read_scope_ids)` on the querysets of the models that live in
a scope (scopes.restriction). This file walks the source of every module that reads
for people and fails on a query of such a model that goes around it:

- a manager chain, `<ScopedModel>.objects…` (or `_default_manager`, `_base_manager`,
  `.raw(…)`), that calls neither `visible_to(` nor `in_scopes(` (nor `none()`),
  unless the chain is handed to `row_get`, which restricts it;
- a related-manager read, `<row>.<accessor>.<queryset method>(…)`, where the accessor
  leads to a scoped model (`scope.cards.count()`), without the primitive;
- raw SQL naming a scoped model's table without a scope filter (`scope_id = ANY(`,
  `scope_id IN (`, `scope_id = %`).

The scoped models, their tables and their reverse accessors come from the app
registry (every model whose default manager builds a ScopedQuerySet leading to a
scope: not the Scope itself, restricted by its own id), so a new scoped model is
covered without touching this file. A second test holds every admin of a scoped
model (and every inline) to the admin mixin that reads through `visible_to`. A
third holds the primitive to its one home: no other queryset defines `visible_to`
(or `allowed_in`), and no code builds a "may act" annotation by hand (`allowed`, or
any annotation made of the principal's scopes) where `allowed_in` answers it.

Exempt, because they act on rows a selector has already checked or on no
person's behalf: services (writes take the object a selector returned, and check
inside the transaction), migrations, management commands and Celery tasks (they
take ids and call a service), the extractors (text in, drafts out), and the
models themselves (they define the primitive).
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from pathlib import Path

import pytest
from django.apps import apps
from django.contrib import admin
from django.db import models

from scopes.restriction import RESTRICTING_METHODS, ScopedQuerySet
from scopes.visibility import ScopedAdmin

ROOT = Path(__file__).resolve().parent.parent

# Modules that read for people: pages, API views, selectors, admins, template tags,
# the pages' helpers, and the modules behind the home page's health, the export,
# the ask page, recall, answers and counts.
READ_MODULES = (
    "*/pages/*.py",
    "*/api/*.py",
    "*/selectors.py",
    "*/selectors/**/*.py",
    "*/admin.py",
    "*/admin_*.py",
    "memory_site/admin_site.py",
    "*/templatetags/**/*.py",
    "core/pages*.py",
    "*/home.py",
    "*/health*.py",
    "*/export*.py",
    "cards/transfer/export*.py",
    "*/ask*.py",
    "*/answer*.py",
    "cards/answers/*.py",
    "cards/context.py",
    "cards/recall/*.py",
    "*/rule_*.py",  # the rule form's pages and its preview (issue 20)
)
# Every top-level package of the project but the tests and the benchmarks, so a new
# app (or a shared package) is walked as soon as it exists.
APPS = {path.parent.name for path in ROOT.glob("*/__init__.py")} - {"tests", "bench"}

MANAGERS = {"objects", "_default_manager", "_base_manager"}
SAFE_IN_CHAIN = {*RESTRICTING_METHODS, "none"}
RESTRICTING_CALLS = {"row_get"}  # takes a scoped queryset and restricts it (scopes.visibility)
QUERYSET_METHODS = {
    "all", "filter", "exclude", "get", "first", "last", "exists", "count", "values", "values_list", "order_by",
    "select_related", "prefetch_related", "annotate", "alias", "aggregate", "iterator", "in_bulk", "latest",
    "earliest", "distinct", "only", "defer", "update", "delete", "raw", "get_or_create", "update_or_create",
}
SCOPE_FILTER = re.compile(r"scope_id\s*(=\s*ANY\s*\(|IN\s*\(|=\s*%)", re.IGNORECASE)

READ = "in_read_sql (cards/reads.py), which starts with c.scope_id = ANY(%(scopes)s)"
# Reads that knowingly stand outside the primitive: (module, function, what) → why.
ALLOWED = {
    ("scopes/selectors.py", "invitations_waiting", "Invitation"):
        "an invitation is its invitee's own, read by invitee = the caller: until they accept they may not view "
        "the scope (that is the point of asking), so no scope filter could admit the row",
    ("cards/selectors/shape.py", "_cards_by_id_query", "Card"):
        "shapes cards whose ids a restricted read (a selector, recall, the review queue, a write's own result) "
        "has just returned; compiled once as a prepared statement on the recall path",
    ("cards/selectors/entities.py", "_bound_query", "Entity"):
        "follows merges from the entities the binder found through in_scopes (the `direct` union): a root may "
        "sit above a write's scope, and what was merged into it only matches cards, which are read through "
        "in_scopes; entities of scopes the caller cannot see are never shown",
    ("cards/selectors/entities.py", "skeleton_look_alikes_query", "Entity"):
        "follows merges from the look-alikes found through in_scopes (the `direct` union), as _bound_query does; "
        "a read offers only roots in its scopes or members' own (entity_look_alikes), a write only refuses",
    ("cards/answers/answer_read.py", "Shaper.__init__", "Entity"):
        "names the entities of the derivation chains, built from cards of the read's scope ids",
    ("cards/api/serializers.py", "EntityOut.get_aliases", "Alias"):
        "the aliases prefetched with an entity a selector returned; which of a visible entity's names to show "
        "is the entity binder's rule",
    ("cards/answers/derive.py", "approved_rules", "Rule"):
        "rules hold for everyone (they live in the global scope, which every principal may view); the answer "
        "engine reads them once per question",
    ("cards/selectors/entities.py", "look_alikes_sql", "SQL"):
        "the look-alike search runs over `eligible`, the SQL of a compiled in_scopes (or scope_condition) query "
        "composed in as `e.id IN (…)`; the alias join only reads names of those entities",
    ("cards/selectors/read_scopes.py", "", "SQL"):
        "_SHARES_SQL: the shares made with the scopes a read sees, `s.scope_id {among}` filled with = ANY of "
        "read_scope_ids' list or IN the default read's ids (scopes_read_by_default); the sharers' entities it "
        "joins are named, never shown: they pick which of the sharers' cards the read covers",
    ("cards/answers/derive.py", "FactBase._read", "SQL"):
        "a subject fragment joined into _FACTS, whose WHERE starts with {covered}: " + READ,
    ("cards/answers/derive.py", "", "SQL"):
        "_FACTS, a template whose WHERE starts with {covered}, which FactBase._rows fills with " + READ,
    ("cards/answers/answer.py", "_beside", "SQL"):
        "its WHERE starts with " + READ,
    ("cards/answers/answer.py", "_hypotheses", "SQL"):
        "its WHERE starts with " + READ,
    ("cards/answers/answer.py", "_guesses", "SQL"):
        "each WHERE of its statement (the subject's profile, the neighbours', their cards) starts with " + READ,
    ("cards/recall/aging.py", "aging_card_ids", "SQL"):
        "its WHERE starts with " + READ,
    ("cards/answers/count.py", "_count_events", "SQL"):
        "templates around `where`, which count_cards starts with " + READ,
    ("cards/answers/count.py", "_count_values", "SQL"):
        "templates around `where`, which count_cards starts with " + READ,
    ("cards/recall/exact.py", "", "SQL"):
        "EXACT_SQL, a template around `valid`, which candidates_sql() starts with c.scope_id = ANY(%(scopes)s)",
    ("cards/recall/index.py", "index", "SQL"):
        "templates around `valid`, which candidates_sql() starts with c.scope_id = ANY(%(scopes)s)",
    ("cards/recall/aging.py", "aged", "SQL"):
        "a template around `valid`, which candidates_sql() starts with c.scope_id = ANY(%(scopes)s)",
    ("cards/recall/contradictions.py", "contradictions_found", "SQL"):
        "a template around `valid`, which candidates_sql() starts with c.scope_id = ANY(%(scopes)s)",
    ("cards/recall/query.py", "", "SQL"):
        "UNANSWERED_SQL, a template around `held`, which candidates_sql() starts with c.scope_id = ANY(%(scopes)s); "
        "its people are the entities NAMED_SQL found in the read's scopes, or the asker",
    ("cards/recall/snapshots.py", "", "SQL"):
        "_TRIGGERS_HERE reads the catalog (pg_trigger: whether the log's triggers are there), not cards",
    ("cards/recall/unembedded.py", "unembedded_sql", "SQL"):
        "a template around recall's `valid`, which candidates.candidates_sql() starts with "
        "c.scope_id = ANY(%(scopes)s)",
    ("review/selectors.py", "said_about_you_found", "Card"):
        "an EXISTS on the disputed card of each card the outer visible_to query found, in that card's own scope "
        "(scope_id = OuterRef): no row of another scope can match",
}


@dataclass(frozen=True)
class Finding:
    path: str
    line: int
    function: str
    what: str
    source: str

    def key(self) -> tuple[str, str, str]:
        return (self.path, self.function, self.what)

    def __str__(self) -> str:
        return f"{self.path}:{self.line} in {self.function or '<module>'}: {self.what}: {self.source}"


def scoped_models() -> list[type[models.Model]]:
    """Models stored in a scope: their queryset is the primitive's, with a path to a scope (the Scope's own
    queryset is the primitive's too, its path empty: a scope is restricted by its id, it lives in none)."""
    return [model for model in apps.get_models()
            if issubclass(queryset := model._default_manager._queryset_class, ScopedQuerySet) and queryset.scope_path]


def related_accessors(scoped: list[type[models.Model]]) -> dict[str, str]:
    """Reverse accessor name → scoped model, for the relations whose far side is a
    manager of scoped rows (`scope.cards`, `entity.aliases`, `card.revisions`)."""
    accessors = {}
    for model in scoped:
        for field in model._meta.get_fields():
            if isinstance(field, models.ForeignKey) and not isinstance(field, models.OneToOneField):
                name = field.remote_field.get_accessor_name()
                if name and not field.remote_field.hidden:
                    accessors[name] = model.__name__
    return accessors


class Checker(ast.NodeVisitor):
    """Finds the stray reads of one module's source."""

    def __init__(self, path: str, source: str, *, model_names: set[str], accessors: dict[str, str],
                 tables: set[str]) -> None:
        self.path, self.source = path, source
        self.model_names, self.accessors = set(model_names), accessors
        self.tables = re.compile(r"\b(" + "|".join(sorted(map(re.escape, tables))) + r")\b")
        self.tree = ast.parse(source)
        self.parents: dict[ast.AST, ast.AST] = {}
        for node in ast.walk(self.tree):
            for child in ast.iter_child_nodes(node):
                self.parents[child] = node
        self.aliases: dict[str, str] = {}
        self.stack: list[str] = []
        self.findings: list[Finding] = []

    def run(self) -> list[Finding]:
        for node in ast.walk(self.tree):
            if isinstance(node, ast.ImportFrom):
                for name in node.names:
                    if name.name in self.model_names:
                        self.aliases[name.asname or name.name] = name.name
        self.visit(self.tree)
        return self.findings

    # --- where we are ---
    def _scoped(self, node) -> None:
        self.stack.append(node.name)
        self.generic_visit(node)
        self.stack.pop()

    visit_FunctionDef = visit_AsyncFunctionDef = visit_ClassDef = _scoped

    def _report(self, node: ast.AST, what: str) -> None:
        self.findings.append(Finding(self.path, node.lineno, ".".join(self.stack), what,
                                     ast.get_source_segment(self.source, node) or ""))

    def _chain(self, node: ast.AST) -> tuple[ast.AST, list[str]]:
        """The whole call chain `node` starts (`Card.objects.filter(…).first()`) and its attribute names."""
        attrs: list[str] = []
        while True:
            parent = self.parents.get(node)
            if isinstance(parent, ast.Attribute) and parent.value is node:
                attrs.append(parent.attr)
            elif not ((isinstance(parent, ast.Call) and parent.func is node)
                      or (isinstance(parent, ast.Subscript) and parent.value is node)):
                return node, attrs
            node = parent

    def _handed_to_restricting_call(self, chain: ast.AST) -> bool:
        parent = self.parents.get(chain)
        if isinstance(parent, ast.Call) and chain in parent.args:
            func = parent.func
            name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", None)
            return name in RESTRICTING_CALLS
        return False

    # --- what we look for ---
    def visit_Name(self, node: ast.Name) -> None:
        model = self.aliases.get(node.id) or (node.id if node.id in self.model_names else None)
        if model is not None:
            chain, attrs = self._chain(node)
            if attrs and attrs[0] in MANAGERS and not SAFE_IN_CHAIN.intersection(attrs) \
                    and not self._handed_to_restricting_call(chain):
                self._report(chain, model)

    def visit_Attribute(self, node: ast.Attribute) -> None:
        model = self.accessors.get(node.attr)
        parent = self.parents.get(node)
        if (model is not None and isinstance(parent, ast.Attribute) and parent.value is node
                and parent.attr in QUERYSET_METHODS):
            chain, attrs = self._chain(node)
            if not SAFE_IN_CHAIN.intersection(attrs) and not self._handed_to_restricting_call(chain):
                self._report(chain, model)
        self.generic_visit(node)

    def visit_Constant(self, node: ast.Constant) -> None:
        if isinstance(node.value, str) and not isinstance(self.parents.get(node), ast.JoinedStr):
            self._sql(node, node.value)

    def visit_JoinedStr(self, node: ast.JoinedStr) -> None:
        text = "".join(part.value if isinstance(part, ast.Constant) else "{}" for part in node.values)
        self._sql(node, text)
        self.generic_visit(node)

    def _sql(self, node: ast.AST, text: str) -> None:
        if re.search(r"\b(SELECT|FROM|JOIN)\b", text, re.IGNORECASE) and self.tables.search(text) \
                and not SCOPE_FILTER.search(text):
            self._report(node, "SQL")


def check_source(path: str, source: str) -> list[Finding]:
    scoped = scoped_models()
    return Checker(path, source, model_names={m.__name__ for m in scoped}, accessors=related_accessors(scoped),
                   tables={m._meta.db_table for m in scoped}).run()


def read_modules() -> list[Path]:
    found = set()
    for pattern in READ_MODULES:
        for path in ROOT.glob(pattern):
            relative = path.relative_to(ROOT)
            if relative.parts[0] in APPS and "migrations" not in relative.parts:
                found.add(path)
    return sorted(found)


def test_the_walk_covers_every_kind_of_read_module():
    assert {"cards", "review", "scopes", "memory_site"} <= APPS
    names = {str(p.relative_to(ROOT)) for p in read_modules()}
    for expected in ("cards/pages/cards.py", "review/pages/queue.py", "scopes/pages/scopes.py", "cards/api/views.py",
                     "cards/api/entities.py", "cards/selectors/cards.py", "review/selectors.py",
                     "scopes/selectors.py", "cards/admin.py", "review/admin.py", "scopes/admin.py",
                     "core/pages.py", "memory_site/home.py", "cards/selectors/export.py", "cards/pages/ask.py",
                     "review/pages/rules.py", "cards/answers/rule_preview.py"):
        assert expected in names
    assert any(name.endswith("health.py") for name in names)


def test_every_scoped_model_is_discovered_from_the_registry():
    names = {m.__name__ for m in scoped_models()}
    assert {"Card", "Entity", "Alias", "CardRevision", "CardPerspective", "CardAsked", "PossibleDuplicate", "Rule",
            "AuditEvent", "Candidate", "IngestJob", "Decision", "Probe", "Membership", "Invite"} <= names
    assert not names & {"Scope", "User", "Label", "AgentToken"}


def test_no_read_module_queries_a_scoped_model_around_visible_to():
    findings = [f for path in read_modules()
                for f in check_source(str(path.relative_to(ROOT)), path.read_text())]
    stray = [f for f in findings if f.key() not in ALLOWED]
    assert not stray, "Reads that go around visible_to / in_scopes:\n" + "\n".join(map(str, stray))
    unused = set(ALLOWED) - {f.key() for f in findings}
    assert not unused, f"Allowed reads that no longer exist (remove them from ALLOWED): {sorted(unused)}"


STRAY_SOURCE = '''
from cards.models import Card as Memory, Entity
from scopes.visibility import row_get

SQL = "SELECT id FROM cards_card WHERE id = %s"
SCOPED_SQL = "SELECT id FROM cards_card WHERE scope_id = ANY(%s)"


def page(request):
    return Memory.objects.filter(pk=1).first()


def restricted(principal, ids):
    a = Memory.objects.visible_to(principal, "view").filter(pk=1)
    b = Entity.objects.filter(name="x").in_scopes(ids)
    c = row_get(Entity.objects.all(), principal=principal, pk=1)
    return a, b, c, Memory.objects.none()


def related(scope):
    return scope.cards.count(), scope.cards.in_scopes([scope.pk]).exists()


def manager_passed_around():
    return Entity._default_manager.raw("SELECT 1")
'''


def test_the_checker_reports_a_stray_query_a_related_read_and_unscoped_sql():
    findings = check_source("example.py", STRAY_SOURCE)
    assert sorted((f.function, f.what) for f in findings) == [
        ("", "SQL"), ("manager_passed_around", "Entity"), ("page", "Card"), ("related", "Card")]
    assert {f.line for f in findings if f.function == "page"} == {10}


@pytest.mark.parametrize("model", scoped_models(), ids=lambda m: m.__name__)
def test_every_admin_of_a_scoped_model_reads_through_visible_to(model):
    admins = [a for m, a in admin.site._registry.items() if m is model]
    inlines = [inline for a in admin.site._registry.values() for inline in a.inlines if inline.model is model]
    for model_admin in admins:
        assert isinstance(model_admin, ScopedAdmin), f"{type(model_admin).__name__} does not use ScopedAdmin"
    for inline in inlines:
        assert issubclass(inline, ScopedAdmin), f"{inline.__name__} does not use ScopedAdmin"


def test_the_sql_fragments_the_allowed_templates_rely_on_carry_the_scope_filter():
    import inspect

    from cards.answers import answer, count
    from cards.answers import derive
    from cards.reads import in_read_sql
    from cards.recall.aging import aging_card_ids
    from cards.recall.candidates import candidates_sql

    assert candidates_sql({}, as_of=None, when=None).startswith("c.scope_id = ANY(%(scopes)s)")
    shared = {"shared_scopes": [1], "shared_subjects": [2], "shared_labels": [3]}
    assert candidates_sql(dict(shared), as_of=None, when=None).startswith("(c.scope_id = ANY(%(scopes)s) OR (")
    assert in_read_sql("c", {}) == "c.scope_id = ANY(%(scopes)s)"
    assert in_read_sql("c", shared).startswith("(c.scope_id = ANY(%(scopes)s) OR (c.scope_id, c.subject_id")
    assert "where = f\"{in_read_sql('c', params)} AND" in inspect.getsource(count.count_cards)
    assert "WHERE {covered} AND" in derive._FACTS
    assert 'covered=in_read_sql("c", self.read)' in inspect.getsource(derive.FactBase._rows)
    for function in (answer._beside, answer._hypotheses, answer._guesses, aging_card_ids):
        assert 'WHERE {in_read_sql(' in inspect.getsource(function), function


@pytest.mark.django_db
def test_the_runtime_check_reports_a_statement_that_reads_scoped_rows_without_a_scope_filter():
    from cards.models import Card, Entity
    from tests.sql_scope import recorded, unscoped_reads

    nobody = _nobody()
    with recorded() as statements:
        list(Card.objects.filter(pk=1))
        list(Entity.objects.in_scopes([1]).filter(pk=1))
        list(Card.objects.visible_to(nobody).filter(pk=1))
    stray = unscoped_reads(statements)
    assert len(statements) == 3 and len(stray) == 1 and 'FROM "cards_card" WHERE' in stray[0].sql


def _nobody():
    from scopes.principals import Principal
    from tests.factories import UserFactory

    return Principal(UserFactory())


# The restriction primitive's home, and what only it may define or build.
PRIMITIVE_HOME = "scopes/restriction.py"
PRIMITIVE_METHODS = ("visible_to", "allowed_in")
HAND_BUILT = ("annotate", "alias")


def _asks_for_scopes(node: ast.AST) -> bool:
    """Whether an expression reads the principal's scopes (`scope_ids_for(…)`, `principal.scope_ids(…)`)."""
    return any(isinstance(call, ast.Call) and (getattr(call.func, "id", None) == "scope_ids_for"
                                               or getattr(call.func, "attr", None) == "scope_ids")
               for call in ast.walk(node))


def primitive_copies(path: str, source: str) -> list[str]:
    """Second copies of the restriction primitive in one module's source: a class
    defining a method of the primitive (`visible_to`, `allowed_in`), and an
    annotation of what the principal may do built by hand instead of through
    `allowed_in`: one named `allowed`, or any built from the principal's scopes."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ClassDef):
            found += [f"{path}:{item.lineno}: {node.name}.{item.name} defined again" for item in node.body
                      if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)) and item.name in PRIMITIVE_METHODS]
        elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in HAND_BUILT
              and any(keyword.arg == "allowed" or _asks_for_scopes(keyword.value) for keyword in node.keywords)):
            found.append(f"{path}:{node.lineno}: a permission annotation built by hand (use allowed_in)")
    return found


def product_modules() -> list[Path]:
    return sorted(path for app in APPS for path in (ROOT / app).rglob("*.py")
                  if "migrations" not in path.relative_to(ROOT).parts)


def test_the_restriction_primitive_has_one_home_scope_included():
    from scopes.models import Scope

    assert issubclass(Scope._default_manager._queryset_class, ScopedQuerySet)
    copies = [copy for path in product_modules() if str(path.relative_to(ROOT)) != PRIMITIVE_HOME
              for copy in primitive_copies(str(path.relative_to(ROOT)), path.read_text())]
    assert not copies, "Second copies of the restriction primitive (scopes/restriction.py):\n" + "\n".join(copies)
    assert primitive_copies(PRIMITIVE_HOME, (ROOT / PRIMITIVE_HOME).read_text()), "the home itself is found"


COPY_SOURCE = '''
from django.db import models
from django.db.models import BooleanField, Exists, ExpressionWrapper, OuterRef, Q

from scopes.principals import scope_ids_for


class ScopeQuerySet(models.QuerySet):
    def visible_to(self, principal, action="view"):
        return self.filter(id__in=principal.scope_ids(action))


def scope_get(scopes, ids):
    return scopes.annotate(allowed=ExpressionWrapper(Q(id__in=ids), output_field=BooleanField()))


def writes(scopes, principal):
    return scopes.annotate(writes=Exists(scope_ids_for(principal, "write").filter(id=OuterRef("pk"))))


def through_the_primitive(scopes, principal, ids):
    return scopes.visible_to(principal).allowed_in(principal.scope_ids("write")).annotate(role=Q(id__in=ids))
'''


def test_the_copy_check_finds_a_second_visible_to_and_hand_built_permission_annotations():
    assert [copy.split(": ", 1)[1] for copy in primitive_copies("example.py", COPY_SOURCE)] == [
        "ScopeQuerySet.visible_to defined again", *["a permission annotation built by hand (use allowed_in)"] * 2]
