"""Whether a statement names its scopes as Citus's router needs them (DESIGN §1, issue 43), read from the
statement's own tree (pglast: PostgreSQL's parser), so one plain PostgreSQL holds the rule without a cluster.

An approximation of what Citus prunes and pushes down by. At each query level — a SELECT, each arm of a
UNION, each CTE, each subquery in FROM or in an expression, the UPDATE or DELETE itself, the SELECT of an
INSERT … SELECT — every reference to a table distributed by scope_id must be

- restricted on its scope_id by constants in the WHERE or a JOIN's ON (`= 5`, `= ANY('{1,2}'::int[])`,
  `= ANY(ARRAY[1, 2])`, `IN (1, 2)`, casts of those), or equated on scope_id with a distributed reference so
  restricted, at its level or at the level a correlated subquery reads (a fixpoint): else Citus reads every
  shard. `scope_id IN (SELECT …)` is no constant: the shards are not known when the statement is planned;
- joined with every other distributed reference of its level, and with an outer one its level correlates
  with, by equal scope_ids: a join by id alone pairs rows of two shards, which Citus refuses or fans out.

A constant (or an equality) in an outer join's ON restricts only the side that join may leave out — the
other side's rows come whatever ON says — as PostgreSQL pushes it down. An INSERT … VALUES goes to its row's
shard. The statement must carry its values: a placeholder (`%s`, `$1`) is no constant here."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from functools import lru_cache

from django.apps import apps
from pglast import ast, parse_sql
from pglast.enums import A_Expr_Kind, BoolExprType, JoinType, SetOperation

from memory_site.distribution import DISTRIBUTED, DISTRIBUTION_COLUMN

SCOPE = DISTRIBUTION_COLUMN


@dataclass(eq=False)
class _Ref:
    """A FROM item under the name the statement reads it by: a table (`relation`), or a CTE, a subquery or
    a function (None). `table` is set for a distributed table only."""
    name: str
    relation: str | None
    table: str | None
    restricted: bool = False

    def __str__(self) -> str:
        return self.table if self.name == self.table else f"{self.table} AS {self.name}"


@dataclass
class _Level:
    refs: list[_Ref] = field(default_factory=list)
    outer: tuple[_Ref, ...] = ()          # the enclosing levels' references, innermost first
    # (conjunct, the references it may restrict: None for all of the level's, as the WHERE does)
    conditions: list[tuple[ast.Node, frozenset[_Ref] | None]] = field(default_factory=list)
    expressions: list = field(default_factory=list)  # where subqueries and correlations are looked for
    subqueries: list[tuple[ast.Node, bool]] = field(default_factory=list)  # (FROM subquery, lateral)


def unrouted(sql: str) -> list[str]:
    """Why each part of `sql` would not be routed by its scopes, one line each; empty when it would."""
    checker = _Checker()
    for raw in parse_sql(sql):
        checker.statement(raw.stmt, outer=(), ctes=frozenset())
    return checker.problems


def distributed_tables(sql: str) -> set[str]:
    """The distributed tables `sql` reads or writes."""
    return {node.relname for raw in parse_sql(sql) for node in _nodes(raw.stmt)
            if isinstance(node, ast.RangeVar) and node.relname in DISTRIBUTED}


class _Checker:
    def __init__(self) -> None:
        self.problems: list[str] = []

    def statement(self, node, *, outer: tuple[_Ref, ...], ctes: frozenset[str]) -> None:
        if isinstance(node, ast.SelectStmt):
            self.select(node, outer=outer, ctes=ctes)
        elif isinstance(node, (ast.UpdateStmt, ast.DeleteStmt)):
            ctes = self.with_clause(node.withClause, outer, ctes)
            level = _Level(outer=outer)
            self.from_item(node.relation, level, ctes)
            for item in (node.fromClause if isinstance(node, ast.UpdateStmt) else node.usingClause) or ():
                self.from_item(item, level, ctes)
            self.where(node.whereClause, level)
            level.expressions += [node.returningClause]
            if isinstance(node, ast.UpdateStmt):
                level.expressions.append(node.targetList)
            self.finish(level, ctes)
        elif isinstance(node, ast.InsertStmt):
            ctes = self.with_clause(node.withClause, outer, ctes)
            select = node.selectStmt
            if select is not None and select.valuesLists is None:
                self.select(select, outer=outer, ctes=ctes)
            # The row's own scope_id routes an INSERT … VALUES; ON CONFLICT acts on that same row.
            relation = node.relation
            target = _Ref(relation.alias.aliasname if relation.alias else relation.relname, relation.relname, None,
                          restricted=True)
            self.finish(_Level(refs=[target], outer=outer, expressions=[
                select.valuesLists if select is not None else None, node.onConflictClause, node.returningClause]),
                ctes)
        else:
            touched = {n.relname for n in _nodes(node) if isinstance(n, ast.RangeVar)} & set(DISTRIBUTED)
            if touched:
                self.problems.append(f"a {type(node).__name__} on {', '.join(sorted(touched))}: not a statement "
                                     "this checker reads")

    def select(self, node: ast.SelectStmt, *, outer: tuple[_Ref, ...], ctes: frozenset[str]) -> None:
        ctes = self.with_clause(node.withClause, outer, ctes)
        if node.op != SetOperation.SETOP_NONE:
            self.select(node.larg, outer=outer, ctes=ctes)
            self.select(node.rarg, outer=outer, ctes=ctes)
            return
        level = _Level(outer=outer)
        for item in node.fromClause or ():
            self.from_item(item, level, ctes)
        self.where(node.whereClause, level)
        level.expressions += [node.targetList, node.havingClause, node.groupClause, node.sortClause,
                              node.distinctClause, node.windowClause, node.limitCount, node.limitOffset,
                              node.valuesLists]
        self.finish(level, ctes)

    def with_clause(self, clause, outer: tuple[_Ref, ...], ctes: frozenset[str]) -> frozenset[str]:
        if clause is None:
            return ctes
        # Every name at once: a recursive CTE reads itself, and a name shadows a table of that name.
        ctes = ctes | {cte.ctename for cte in clause.ctes}
        for cte in clause.ctes:
            self.statement(cte.ctequery, outer=outer, ctes=ctes)
        return ctes

    def from_item(self, item, level: _Level, ctes: frozenset[str]) -> list[_Ref]:
        """The references `item` brings into `level`; a JOIN's ON conditions are kept with the references
        they may restrict (see the module's docstring)."""
        if isinstance(item, ast.RangeVar):
            relation = None if (item.schemaname is None and item.relname in ctes) else item.relname
            table = relation if relation in DISTRIBUTED else None
            ref = _Ref(item.alias.aliasname if item.alias else item.relname, relation, table)
            level.refs.append(ref)
            return [ref]
        if isinstance(item, ast.JoinExpr):
            left = self.from_item(item.larg, level, ctes)
            right = self.from_item(item.rarg, level, ctes)
            kind = item.jointype
            kept = frozenset(left + right if kind == JoinType.JOIN_INNER else right if kind == JoinType.JOIN_LEFT
                             else left if kind == JoinType.JOIN_RIGHT else ())
            level.conditions += [(conjunct, kept) for conjunct in _conjuncts(item.quals)]
            if any(column.sval == SCOPE for column in item.usingClause or ()):
                level.conditions += [(_scopes_equal(a, b), kept) for a in left for b in right if a.table and b.table]
            level.expressions.append(item.quals)
            return left + right
        if isinstance(item, ast.RangeSubselect):
            level.subqueries.append((item.subquery, bool(item.lateral)))
        elif isinstance(item, ast.RangeFunction):
            level.expressions.append(item.functions)
        ref = _Ref(item.alias.aliasname if getattr(item, "alias", None) else "", None, None)
        level.refs.append(ref)
        return [ref]

    def where(self, clause, level: _Level) -> None:
        level.conditions += [(conjunct, None) for conjunct in _conjuncts(clause)]
        level.expressions.append(clause)

    def finish(self, level: _Level, ctes: frozenset[str]) -> None:
        own = [ref for ref in level.refs if ref.table]
        equal = []
        for conjunct, kept in level.conditions:
            found = self.scope_condition(conjunct, level)
            if found is None:
                continue
            if found[0] == "constant":
                ref = found[1]
                if ref in level.refs and (kept is None or ref in kept):
                    ref.restricted = True
            else:
                equal.append((found[1], found[2], kept))
        changed = True
        while changed:  # a reference equated on scope_id with a restricted one is restricted too
            changed = False
            for a, b, kept in equal:
                for known, other in ((a, b), (b, a)):
                    if (known.restricted and not other.restricted and other in level.refs
                            and (kept is None or other in kept)):
                        other.restricted = changed = True
        self.problems += [f"{ref}: its {SCOPE} is not restricted by constants" for ref in own if not ref.restricted]
        if own:
            correlated = [ref for ref in self.column_refs(level) if ref.table and ref not in level.refs]
            self.joins_by_scope(own + correlated, equal)
        inner = (*level.refs, *level.outer)
        for subquery, lateral in level.subqueries:
            self.select(subquery, outer=inner if lateral else level.outer, ctes=ctes)
        for sublink in _sublinks(level.expressions):
            self.select(sublink.subselect, outer=inner, ctes=ctes)

    def joins_by_scope(self, refs: list[_Ref], equal) -> None:
        """Every distributed reference of a level joined with the others by equal scope_ids (transitively)."""
        group = {ref: {ref} for ref in dict.fromkeys(refs)}
        for a, b, _ in equal:
            if a in group and b in group and group[a] is not group[b]:
                merged = group[a] | group[b]
                for ref in merged:
                    group[ref] = merged
        apart = list({id(g): g for g in group.values()}.values())
        for first, second in zip(apart, apart[1:]):
            self.problems.append(f"{min(first, key=str)} is joined with {min(second, key=str)} "
                                 f"without equal {SCOPE}")

    def scope_condition(self, node, level: _Level):
        """("constant", ref) for a restriction of ref's scope_id by constants, ("equal", a, b) for
        a.scope_id = b.scope_id between distributed references; None for anything else."""
        if not isinstance(node, ast.A_Expr) or [n.sval for n in node.name or ()] != ["="]:
            return None
        left = self.scope_of(node.lexpr, level)
        if node.kind == A_Expr_Kind.AEXPR_OP:
            right = self.scope_of(node.rexpr, level)
            if left and right:
                return ("equal", left, right)
            if left and _constant(node.rexpr):
                return ("constant", left)
            if right and _constant(node.lexpr):
                return ("constant", right)
        elif node.kind == A_Expr_Kind.AEXPR_OP_ANY and left and _constant(node.rexpr):
            return ("constant", left)
        elif node.kind == A_Expr_Kind.AEXPR_IN and left and all(_constant(value) for value in node.rexpr):
            return ("constant", left)
        return None

    def scope_of(self, node, level: _Level) -> _Ref | None:
        """The distributed reference whose scope_id `node` is, if it is one."""
        if isinstance(node, ast.ColumnRef):
            ref, column = self.resolve(node, level)
            if ref is not None and ref.table and column == SCOPE:
                return ref
        return None

    def resolve(self, node: ast.ColumnRef, level: _Level) -> tuple[_Ref | None, str | None]:
        names = [part.sval for part in node.fields if isinstance(part, ast.String)]
        if len(names) != len(node.fields):
            return None, None  # x.*
        column = names[-1]
        # This level's references, then each outer one, innermost first: the nearest name wins, as in SQL.
        for refs in [level.refs, *([ref] for ref in level.outer)]:
            if len(names) >= 2:
                found = [ref for ref in refs if ref.name == names[-2]]
            else:
                # Unqualified: the one table of the level holding that column (PostgreSQL refuses it if two do).
                found = [ref for ref in refs if ref.relation and column in _columns(ref.relation)]
                if not found and any(ref.relation is None for ref in refs):
                    return None, column   # a CTE's or a subquery's column, as far as can be told
            if found:
                return found[0], column
        return None, column

    def column_refs(self, level: _Level) -> Iterator[_Ref]:
        for node in _at_level(level.expressions):
            if isinstance(node, ast.ColumnRef):
                ref, _ = self.resolve(node, level)
                if ref is not None:
                    yield ref


def _conjuncts(node) -> list:
    if node is None:
        return []
    if isinstance(node, ast.BoolExpr) and node.boolop == BoolExprType.AND_EXPR:
        return [part for arg in node.args for part in _conjuncts(arg)]
    return [node]


def _constant(node) -> bool:
    if isinstance(node, ast.A_Const):
        return True
    if isinstance(node, ast.TypeCast):
        return _constant(node.arg)
    if isinstance(node, ast.A_ArrayExpr):
        return all(_constant(element) for element in node.elements or ())
    return False


def _scopes_equal(a: _Ref, b: _Ref) -> ast.A_Expr:
    return ast.A_Expr(kind=A_Expr_Kind.AEXPR_OP, name=(ast.String(sval="="),),
                      lexpr=ast.ColumnRef(fields=(ast.String(sval=a.name), ast.String(sval=SCOPE))),
                      rexpr=ast.ColumnRef(fields=(ast.String(sval=b.name), ast.String(sval=SCOPE))))


def _children(node) -> Iterator[ast.Node]:
    """The nodes directly under `node`, a node or a list of them."""
    values = [getattr(node, name) for name in node] if isinstance(node, ast.Node) else [node]
    for value in values:
        yield from _flat(value)


def _flat(value) -> Iterator[ast.Node]:
    if isinstance(value, ast.Node):
        yield value
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from _flat(item)


def _nodes(node) -> Iterator[ast.Node]:
    yield node
    for child in _children(node):
        yield from _nodes(child)


def _at_level(expressions) -> Iterator[ast.Node]:
    """The nodes of these expressions that belong to their own level: a subquery's body is a level of its
    own (its test expression, `x IN (…)`'s x, is not)."""
    for node in _children(expressions):
        yield from _level_nodes(node)


def _level_nodes(node: ast.Node) -> Iterator[ast.Node]:
    yield node
    if isinstance(node, ast.SubLink):
        if node.testexpr is not None:
            yield from _level_nodes(node.testexpr)
        return
    for child in _children(node):
        yield from _level_nodes(child)


def _sublinks(expressions) -> Iterator[ast.SubLink]:
    return (node for node in _at_level(expressions) if isinstance(node, ast.SubLink))


@lru_cache(maxsize=None)
def _columns(table: str) -> frozenset[str]:
    """The columns of a table of the installed models; nothing for another (a catalogue view, a CTE)."""
    for model in apps.get_models(include_auto_created=True):
        if model._meta.db_table == table:
            return frozenset(f.column for f in model._meta.concrete_fields)
    return frozenset()
