"""CHECK constraints: a row is written only if every CHECK expression of its table is true or
NULL; else 23514, as PostgreSQL's ``new row for relation "t" violates check constraint``.

- **Defined** (CREATE TABLE, ALTER TABLE ADD [COLUMN], ``define``): the expression as written
  (parser/parse.py keeps it beside the rewritten one, and refuses a parameter: 42P02) is refused
  with an aggregate (42803), a window function (42P20) or a set-returning function (0A000), then bound
  by DuckDB over the table's columns as a SELECT's would be - an unknown column 42703, another
  table 42P01, a value that is no boolean 42804. It is stored as normalised SQL text without
  the table's name on its columns (``CheckConstraint.expression``), so a renamed table keeps it
  and a renamed column is renamed in it.
- **Evaluated** through txlake's SQL path: the stored text is parsed and rewritten as a
  SELECT's expression is (parser/semantics.py: PostgreSQL's integer division, text
  comparisons, errors), so a CHECK gives the answer the same expression gives in a SELECT.
  One DuckDB query over the whole batch of new rows (``first_failure``), never a row at a
  time in Python - but for a few rows already in Python (a point INSERT or UPDATE), which a
  simple CHECK judges in Python (``_python_plan``) and any other by one parameterised query.
- **Enforced** (``enforce``, from ``Executor._check_rows``, after NOT NULL as in PostgreSQL)
  on every row a statement writes: INSERT (VALUES, ON CONFLICT DO UPDATE; INSERT ... SELECT's
  stream gives the verdicts itself, ``with_verdicts``, as it holds the connection), UPDATE
  (point and general), MERGE, COPY FROM; a Spark task judges its batches on a DuckDB of its own
  (``check_rows``). An UPDATE's new row is checked whole, against every CHECK, as PostgreSQL
  checks it. Tables without CHECKs pay one attribute test.
- **Existing rows**: ADD CONSTRAINT checks them (23514 ``check constraint "c" of relation "t"
  is violated by some row``) unless NOT VALID; VALIDATE CONSTRAINT checks them later; ALTER
  COLUMN TYPE checks them again against the CHECKs using the column; DROP COLUMN drops the
  CHECKs using it.
- The failing row of an error is the first in the batch's order; of several CHECKs it breaks,
  the first by name (PostgreSQL evaluates them in name order).
"""

from __future__ import annotations

import decimal
import functools
from dataclasses import replace

import duckdb
import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import sqlglot
from sqlglot import exp

from txlake import errors
from txlake.engine import jsonb_order, sources
from txlake.engine.errors_map import translate
from txlake.engine.pg_text import format_value
from txlake.parser.dialect import Txlake
from txlake.parser.semantics import boolean_condition, postgres_semantics, returns_set
from txlake.storage.schema import CheckConstraint, TableSchema
from txlake.storage.version import PythonRows

_POSITION, _VERDICT, _CHECKED = "__txl_pos", "__txl_check", "__txl_checked_rows"
_SOURCE = "__txl_check_source"  # (in a query: the name of the rows it judges)


# --- definition ------------------------------------------------------------------------------

def define(ex, table: str, schema: TableSchema, name: str, expression: exp.Expression, data: pa.Table | None,
           not_valid: bool) -> TableSchema:
    """``schema`` with the CHECK ``name`` of ``expression`` (as written) added; ``data``: the
    table's rows, each of which must pass it unless ``not_valid`` (None: a new table)."""
    _refuse(expression)
    check = CheckConstraint(name, stored(unqualified(expression, table)), validated=not not_valid)
    rows = data if data is not None and not not_valid else schema.arrow_schema().empty_table()
    _check_existing(ex, table, (check,), rows, schema)  # (an empty table: DuckDB's binder checks it all the same)
    return replace(schema, checks=schema.checks + (check,))


def _refuse(expression: exp.Expression) -> None:
    """What PostgreSQL refuses in a CHECK's expression before it looks at types."""
    for node in expression.walk():
        refuse_row_set(node, "check constraints")


def refuse_row_set(node: exp.Expression, where: str) -> None:
    """What PostgreSQL refuses in an expression of one row's value (a CHECK's, a generated
    column's: ``where`` names them as its messages do): a window function (42P20), an aggregate
    (42803), a set-returning function (0A000)."""
    if isinstance(node, exp.Window):
        raise errors.ProgrammingError(f"window functions are not allowed in {where}", sqlstate="42P20")
    if isinstance(node, exp.AggFunc) and not isinstance(node.parent, exp.Window):
        raise errors.ProgrammingError(f"aggregate functions are not allowed in {where}", sqlstate="42803")
    if returns_set(node):
        raise errors.NotSupportedError(f"set-returning functions are not allowed in {where}")


def unqualified(expression: exp.Expression, table: str) -> exp.Expression:
    """``expression`` with ``t.a`` written ``a`` (the table's own name; another table's stays,
    for the binder to refuse)."""
    def visit(node):
        if isinstance(node, exp.Column) and node.table == table and not node.args.get("db"):
            return exp.column(node.this.copy())
        return node
    return expression.copy().transform(visit)


def stored(expression: exp.Expression) -> str:
    """The text a CHECK keeps: PostgreSQL's spelling where txlake's parser reads it back as the
    same expression, else txlake's dialect's."""
    texts = (expression.sql(dialect="postgres"), expression.sql(dialect=Txlake))
    for text in texts:
        try:
            if sqlglot.parse_one(text, read=Txlake) == expression:
                return text
        except sqlglot.errors.SqlglotError:
            continue
    return texts[1]


@functools.lru_cache(maxsize=1024)
def parsed(text: str) -> exp.Expression:
    return sqlglot.parse_one(text, read=Txlake)


def columns_of(check: CheckConstraint) -> frozenset[str]:
    """The columns ``check``'s expression reads."""
    return frozenset(c.name for c in parsed(check.expression).find_all(exp.Column))


# --- evaluation ------------------------------------------------------------------------------

@functools.lru_cache(maxsize=1024)
def _duckdb_sql(text: str, jsonb: frozenset[str]) -> str:
    """The DuckDB SQL of a stored CHECK expression of a table whose jsonb columns are ``jsonb``."""
    return _duckdb_sql_of(parsed(text), jsonb)


def duckdb_text(text: str, schema: TableSchema) -> str:
    """The DuckDB SQL of a stored expression over the columns of ``schema`` (a partition's bound)."""
    return _duckdb_sql(text, schema.jsonb_columns)


def _duckdb_sql_of(expression: exp.Expression, jsonb: frozenset[str]) -> str:
    """The DuckDB SQL of a CHECK expression: as a SELECT's expression is rewritten
    (parser/semantics.py; its table's jsonb columns compared in jsonb's order, as a
    statement's are: engine/jsonb_order.py), through the check that it is a boolean (42804
    when bound)."""
    select = postgres_semantics(exp.Select(expressions=[expression.copy()]))
    value = select.expressions[0]
    value = value.this if isinstance(value, exp.Alias) else value
    value = jsonb_order.in_check(value, jsonb)
    return boolean_condition(value, "check").sql(dialect="duckdb")


@functools.lru_cache(maxsize=256)
def _query(table: str, texts: tuple[str, ...], jsonb: frozenset[str]) -> str:
    """The query (over ``_SOURCE``, to be replaced by the rows' name) giving the position and
    verdicts of the first row that any of the CHECKs ``texts`` (its table's jsonb columns:
    ``jsonb``) fails."""
    verdicts = ", ".join(f"{_duckdb_sql(text, jsonb)} AS {_VERDICT}{i}" for i, text in enumerate(texts))
    failed = " OR ".join(f"{_VERDICT}{i} IS FALSE" for i in range(len(texts)))
    return (f"SELECT * FROM (SELECT {_POSITION}, {verdicts} FROM {_SOURCE} AS {_quoted(table)}) "
            f"WHERE {failed} ORDER BY {_POSITION} LIMIT 1")


def first_failure(ex, table: str, checks: tuple[CheckConstraint, ...], rows: pa.Table,
                  schema: TableSchema | None = None):
    """(position, the first by name of ``checks`` it fails) of the first of ``rows`` failing
    any, else None. ``ex``: the executor whose DuckDB connection runs the query - or a function
    ``(query, rows)`` giving the rows of ``query`` over ``rows`` (``check_rows``). ``schema``:
    the table's, if its column types matter (jsonb's order)."""
    numbered = rows.append_column(_POSITION, pa.array(np.arange(rows.num_rows, dtype=np.int64)))
    query = _query(table, tuple(c.expression for c in checks), schema.jsonb_columns if schema else frozenset())
    if callable(ex):
        found = ex(query, numbered)
    else:
        with ex._registered() as register:
            found = ex._sql(query.replace(_SOURCE, register(numbered)))
    if not found.num_rows:
        return None
    verdicts = found.to_pylist()[0]
    failed = [c for i, c in enumerate(checks) if verdicts[f"{_VERDICT}{i}"] is False]
    return verdicts[_POSITION], min(failed, key=lambda c: c.name)


def enforce(ex, version, rows) -> None:
    """23514 if a row of ``rows`` (about to be written to ``version``'s table: an Arrow table or
    PythonRows in its schema) fails one of its CHECKs. A few rows in Python (an INSERT of
    VALUES, a point UPDATE) are judged without Arrow: by ``_python_plan`` where every CHECK
    is a simple comparison of exact numbers, else by one DuckDB query taking the row's values
    as parameters (a registered Arrow table costs DuckDB three times as much)."""
    if not rows.num_rows:
        return
    checks = _by_name(version.schema.enforced_checks)
    if isinstance(rows, PythonRows) and rows.num_rows <= _FEW_ROWS:
        schema = version.schema
        plans = [_python_plan(c.expression, _kinds(schema)) for c in checks]
        for position in range(rows.num_rows):
            row = rows.row(position)
            if all(plans):
                verdicts = [plan(row) for plan in plans]
            elif rows.num_rows == 1 and _bindable(schema):
                verdicts = _row_verdicts(ex, _row_query(version.name, schema, tuple(c.expression for c in checks)),
                                         list(row.values()))
            else:
                break
            failed = next((c for c, verdict in zip(checks, verdicts) if verdict is False), None)
            if failed is not None:
                raise _violation(version.name, failed, rows.table(), position)
        else:
            return
    table = rows.table() if isinstance(rows, PythonRows) else rows
    failure = first_failure(ex, version.name, checks, table, version.schema)
    if failure is not None:
        raise _violation(version.name, failure[1], table, failure[0])


#: rows few enough to judge one at a time in Python (more: one query over them all)
_FEW_ROWS = 16
#: the column kinds whose Python values DuckDB takes as parameters of the column's type
_BINDABLE = frozenset(("BOOLEAN", "SMALLINT", "INT", "BIGINT", "REAL", "DOUBLE", "DECIMAL", "VARCHAR", "DATE",
                       "TIME", "TIMESTAMP", "TIMESTAMPTZ", "UUID", "BYTEA"))


def _kinds(schema: TableSchema) -> tuple[tuple[str, str], ...]:
    return tuple((c.name, c.type.kind) for c in schema.columns)


def _bindable(schema: TableSchema) -> bool:
    return all(c.type.kind in _BINDABLE for c in schema.columns)


def _row_verdicts(ex, sql: str, values: list) -> tuple:
    try:
        return ex.duck.shared.with_nested_arrays(lambda: ex.con.execute(sql, values)).fetchall()[0]
    except duckdb.Error as e:
        raise ex._error(e) from None


@functools.lru_cache(maxsize=256)
def _row_query(table: str, schema: TableSchema, texts: tuple[str, ...]) -> str:
    """The CHECKs ``texts``' verdicts on one row, its values the query's parameters."""
    row = ", ".join(f"CAST(? AS {c.type.sql()}) AS {_quoted(c.name)}" for c in schema.columns)
    verdicts = ", ".join(f"{_duckdb_sql(text, schema.jsonb_columns)} AS {_VERDICT}{i}" for i, text in enumerate(texts))
    return f"SELECT {verdicts} FROM (SELECT {row}) AS {_quoted(table)}"


# --- simple CHECKs in Python -----------------------------------------------------------------

#: the column kinds whose Python values compare as PostgreSQL's: exact numbers (no NaN), booleans,
#: and text - equal or not only
_PYTHON_KINDS = {"SMALLINT": "num", "INT": "num", "BIGINT": "num", "DECIMAL": "num", "BOOLEAN": "bool",
                 "VARCHAR": "text"}
_COMPARISONS = {exp.EQ: lambda a, b: a == b, exp.NEQ: lambda a, b: a != b, exp.GT: lambda a, b: a > b,
                exp.GTE: lambda a, b: a >= b, exp.LT: lambda a, b: a < b, exp.LTE: lambda a, b: a <= b}


class _Unsupported(Exception):
    pass


@functools.lru_cache(maxsize=1024)
def _python_plan(text: str, kinds: tuple[tuple[str, str], ...]):
    """A function of a row (a dict) giving the CHECK ``text``'s verdict (True, False, None) as
    DuckDB would, for the simple ones: comparisons of exact numbers (integer and numeric
    columns, number constants, a text's length), text equal or not, IS [NOT] NULL, BETWEEN,
    IN, AND, OR, NOT - with SQL's three-valued logic. None for any other."""
    try:
        plan, kind = _compile(parsed(text), dict(kinds))
    except _Unsupported:
        return None
    return plan if kind == "bool" else None


def _compile(node: exp.Expression, kinds: dict):
    """(function of a row, "num" or "bool") for ``node``; _Unsupported if it is not simple."""
    if isinstance(node, exp.Paren):
        return _compile(node.this, kinds)
    if isinstance(node, exp.Column) and not node.table:
        kind = _PYTHON_KINDS.get(kinds.get(node.name))
        if kind is None:
            raise _Unsupported
        name = node.name
        return (lambda row: row[name]), kind
    if isinstance(node, exp.Literal) and node.is_string:
        text = node.this
        return (lambda row: text), "text"
    if isinstance(node, exp.Length):  # (a text's characters)
        operand, kind = _compile(node.this, kinds)
        if kind != "text":
            raise _Unsupported
        return (lambda row: None if (v := operand(row)) is None else len(v)), "num"
    if isinstance(node, (exp.Literal, exp.Neg)):
        literal = node.this if isinstance(node, exp.Neg) else node
        if not isinstance(literal, exp.Literal) or literal.is_string:
            raise _Unsupported
        value = int(literal.this) if literal.is_int else decimal.Decimal(literal.this)
        value = -value if isinstance(node, exp.Neg) else value
        return (lambda row: value), "num"
    if isinstance(node, exp.Boolean):
        value = node.this
        return (lambda row: value), "bool"
    if isinstance(node, exp.Null):
        return (lambda row: None), "null"
    if type(node) in _COMPARISONS:
        (left, lk), (right, rk) = _compile(node.this, kinds), _compile(node.expression, kinds)
        if lk != rk and "null" not in (lk, rk) or "text" in (lk, rk) and not isinstance(node, (exp.EQ, exp.NEQ)):
            raise _Unsupported  # (text is ordered by its collation: DuckDB's to say)
        compare = _COMPARISONS[type(node)]

        def comparison(row):
            a, b = left(row), right(row)
            return None if a is None or b is None else compare(a, b)
        return comparison, "bool"
    if isinstance(node, exp.Is) and isinstance(node.expression, exp.Null):
        operand = _compile(node.this, kinds)[0]
        return (lambda row: operand(row) is None), "bool"
    if isinstance(node, exp.Not):
        operand = _boolean(node.this, kinds)
        return (lambda row: None if (v := operand(row)) is None else not v), "bool"
    if isinstance(node, (exp.And, exp.Or)):
        left, right = _boolean(node.this, kinds), _boolean(node.expression, kinds)
        decisive = isinstance(node, exp.Or)  # (the value that decides: true for OR, false for AND)

        def connective(row):
            a, b = left(row), right(row)
            if a is decisive or b is decisive:
                return decisive
            return None if a is None or b is None else not decisive
        return connective, "bool"
    if isinstance(node, exp.Between):
        low = exp.GTE(this=node.this, expression=node.args["low"])
        high = exp.LTE(this=node.this, expression=node.args["high"])
        return _compile(exp.And(this=low, expression=high), kinds)
    if isinstance(node, exp.In) and node.expressions and not node.args.get("query"):
        operand, kind = _compile(node.this, kinds)
        values = [_compile(e, kinds) for e in node.expressions]
        if kind not in ("num", "text") or any(k not in (kind, "null") for _, k in values):
            raise _Unsupported
        values = [v for v, _ in values]

        def within(row):
            a = operand(row)
            if a is None:
                return None
            found = [v(row) for v in values]
            return True if a in found else None if None in found else False
        return within, "bool"
    raise _Unsupported


def _boolean(node: exp.Expression, kinds: dict):
    plan, kind = _compile(node, kinds)
    if kind not in ("bool", "null"):
        raise _Unsupported
    return plan



def check_rows(con: duckdb.DuckDBPyConnection, table: str, schema: TableSchema, rows: pa.Table) -> None:
    """``enforce`` on a DuckDB connection of its own set up with txlake's SQL (a Spark task's:
    spark/types.py), ``rows`` in ``schema``'s Arrow schema."""
    def run(query: str, numbered: pa.Table) -> pa.Table:
        return rows_on(con, query.replace(_SOURCE, _CHECKED), _CHECKED, numbered)

    if rows.num_rows:
        failure = first_failure(run, table, _by_name(schema.enforced_checks), rows, schema)
        if failure is not None:
            raise _violation(table, failure[1], rows, failure[0])


def rows_on(con: duckdb.DuckDBPyConnection, query: str, name: str, rows: pa.Table) -> pa.Table:
    """The rows of ``query``, which reads ``rows`` as ``name``, on a DuckDB connection of its
    own (a Spark task's), its errors as txlake's."""
    detach = sources.attach(con, name, rows)
    try:
        return con.sql(query).to_arrow_table()
    except duckdb.Error as e:
        raise translate(e) from None
    finally:
        detach()


def with_verdicts(sql: str, table: str, schema: TableSchema) -> str:
    """The query ``sql`` (rows in ``schema``'s columns, as an INSERT ... SELECT streams them)
    with a column more per CHECK of ``schema`` (by name), its verdict on the row - of a
    VARCHAR(n) column's value as it is stored, cut to n (``fit_varchar``: only spaces past n), a
    CHAR(n)'s without its trailing spaces too (``fit_char``)."""
    lengths = {c.name: c.type.length for c in schema.columns if c.type.kind == "VARCHAR" and c.type.length}

    def as_stored(node):
        if isinstance(node, exp.Column) and node.name in lengths:
            cut = exp.Substring(this=node.copy(), start=exp.Literal.number(1),
                                length=exp.Literal.number(lengths[node.name]))
            return exp.Anonymous(this="rtrim", expressions=[cut, exp.Literal.string(" ")]) \
                if node.name in schema.blank_padded else cut
        return node
    jsonb = schema.jsonb_columns
    verdicts = ", ".join(f"{_duckdb_sql_of(parsed(c.expression).transform(as_stored), jsonb)} AS {_VERDICT}{i}"
                         for i, c in enumerate(_by_name(schema.enforced_checks)))
    return f"SELECT *, {verdicts} FROM ({sql}) AS {_quoted(table)}"


def passed(table: str, schema: TableSchema, batch: pa.Table) -> pa.Table:
    """``batch`` of ``with_verdicts``' rows without the verdicts - 23514 if a row failed one."""
    names = [f"{_VERDICT}{i}" for i in range(len(schema.enforced_checks))]
    failed = None
    for name in names:
        failing = pc.equal(batch.column(name), False)
        failed = failing if failed is None else pc.or_kleene(failed, failing)
    rows = batch.drop_columns(names)
    if pc.any(failed).as_py():
        position = pc.index(pc.fill_null(failed, False), True).as_py()
        verdicts = batch.select(names).slice(position, 1).to_pylist()[0]
        check = next(c for c, name in zip(_by_name(schema.enforced_checks), names) if verdicts[name] is False)
        raise _violation(table, check, rows, position)
    return rows


def _violation(table: str, check: CheckConstraint, rows: pa.Table, position: int) -> errors.Error:
    if check.domain is not None and check.domain[0] != "partition":
        error = _type_violation(check, rows, position)
        error.row = position
        return error
    values = ", ".join(format_value(v, "null") for v in rows.slice(position, 1).to_pylist()[0].values())
    broken = "partition constraint" if check.domain is not None else f'check constraint "{check.name}"'
    error = errors.CheckViolation(f'new row for relation "{table}" violates {broken}'
                                  f'\nDETAIL:  Failing row contains ({values}).')
    error.row = position  # (COPY names the line)
    return error


def _type_violation(check: CheckConstraint, rows: pa.Table, position: int) -> errors.Error:
    """The error of a value breaking a rule of its column's user-defined type (engine/user_types.py)."""
    kind, type_name = check.domain
    if kind == "not null":
        return errors.NotNullViolation(f"domain {type_name} does not allow null values")
    if kind == "check":
        return errors.CheckViolation(f'value for domain {type_name} violates check constraint "{check.name}"')
    value = rows.column(next(iter(columns_of(check)))).slice(position, 1)[0].as_py()
    return errors.InvalidTextRepresentation(f'invalid input value for enum {type_name}: "{value}"')


def _quoted(name: str) -> str:
    return exp.to_identifier(name, quoted=True).sql(dialect="duckdb")


def _by_name(checks: tuple[CheckConstraint, ...]) -> tuple[CheckConstraint, ...]:
    """In the order they are judged: the columns' types' rules first (PostgreSQL checks a value
    against its domain as it is made), then the table's CHECKs by name."""
    return tuple(sorted(checks, key=lambda c: (_ORDER.get(c.domain and c.domain[0], 0), c.name)))


#: what is judged after the table's CHECKs (``domain`` None): a partition's constraint, as PostgreSQL's
#: ExecInsert checks it last
_ORDER = {None: 1, "partition": 2}


def _check_existing(ex, table: str, checks, rows: pa.Table, schema: TableSchema) -> None:
    failure = first_failure(ex, table, tuple(checks), rows, schema)
    if failure is not None:
        raise errors.CheckViolation(f'check constraint "{failure[1].name}" of relation "{table}" '
                                    "is violated by some row")


# --- ALTER TABLE -----------------------------------------------------------------------------

def validate(ex, table: str, schema: TableSchema, data: pa.Table, name: str) -> TableSchema:
    """``VALIDATE CONSTRAINT name``: a NOT VALID CHECK checked against every row, then valid."""
    check = next((c for c in schema.checks if c.name == name), None)
    if check is None:
        if name in schema.constraint_names(table):
            raise errors.WrongObjectType(
                f'constraint "{name}" of relation "{table}" is not a foreign key or check constraint')
        raise errors.UndefinedObject(f'constraint "{name}" of relation "{table}" does not exist')
    if check.validated:
        return schema
    _check_existing(ex, table, (check,), data, schema)
    return replace(schema, checks=tuple(replace(c, validated=True) if c is check else c for c in schema.checks))


def renamed_column(schema: TableSchema, old: str, new: str) -> TableSchema:
    """``schema``'s CHECKs with the column ``old`` called ``new``."""
    def rename(check: CheckConstraint) -> CheckConstraint:
        if old not in columns_of(check):
            return check
        return replace(check, expression=renamed_in(check.expression, old, new))
    return replace(schema, checks=tuple(map(rename, schema.checks)),
                   domain_checks=tuple(map(rename, schema.domain_checks)))


def renamed_in(text: str, old: str, new: str) -> str:
    """The stored expression ``text`` with the column ``old`` called ``new``."""
    expression = parsed(text).transform(
        lambda n: exp.column(exp.to_identifier(new, quoted=not (new.isidentifier() and new == new.lower())))
        if isinstance(n, exp.Column) and n.name == old else n)
    return stored(expression)


def without_column(schema: TableSchema, column: str) -> TableSchema:
    """``schema`` without the CHECKs reading ``column`` (dropped with it, as PostgreSQL drops
    them, silently)."""
    return replace(schema, checks=tuple(c for c in schema.checks if column not in columns_of(c)),
                   domain_checks=tuple(c for c in schema.domain_checks if column not in columns_of(c)))


def retyped_column(ex, table: str, schema: TableSchema, data: pa.Table, column: str) -> None:
    """After ALTER COLUMN ``column`` TYPE: the CHECKs reading it bound again (42804 if one is no
    longer a boolean) and the rows checked against them (23514)."""
    using = tuple(c for c in schema.checks if column in columns_of(c))
    if using:
        _check_existing(ex, table, using, data, schema)


# --- display ---------------------------------------------------------------------------------

def definition(check: CheckConstraint) -> str:
    """``CHECK (a > 0)``, as psql's ``\\d`` shows it (``NOT VALID`` after one not validated)."""
    return f"CHECK ({display(check.expression)})" + ("" if check.validated else " NOT VALID")


def clause(check: CheckConstraint) -> str:
    """information_schema.check_constraints.check_clause: PostgreSQL's unpretty text of the
    expression in another pair of parentheses: ``((a > 0))``."""
    return f"({unpretty(check.expression)})"


def unpretty(text: str) -> str:
    """PostgreSQL's unpretty text (pg_get_expr's) of the stored expression ``text``, each
    operation in parentheses: ``(a > 0)``."""
    wrapped = _postgres_form(parsed(text)).transform(  # (but ANY (a)'s: sqlglot writes ANY a)
        lambda n: n.this if isinstance(n, exp.Paren) and not isinstance(n.parent, (exp.Any, exp.All)) else n)
    for node in reversed(list(wrapped.walk())):  # (the innermost first: each outer one copies them)
        if isinstance(node, _OPERATIONS) and node is not wrapped and not isinstance(node.this, exp.Null):
            node.replace(exp.Paren(this=node.copy()))
    wrapped = exp.Paren(this=wrapped) if isinstance(wrapped, _OPERATIONS) else wrapped
    if not _in_postgres_spelling(text):
        return wrapped.sql(dialect=Txlake)
    return wrapped.sql(dialect="postgres", normalize_functions="lower")


#: what PostgreSQL's unpretty text of an expression puts in parentheses
_OPERATIONS = (exp.Binary, exp.Not, exp.Between, exp.In)


def display(text: str) -> str:
    """The stored text in PostgreSQL's spelling, where that reads back the same."""
    if not _in_postgres_spelling(text):
        return text
    return _postgres_form(parsed(text)).sql(dialect="postgres", normalize_functions="lower")


def _postgres_form(expression: exp.Expression) -> exp.Expression:
    """A copy of ``expression`` with ``NOT x IS NULL`` as PostgreSQL writes it, ``x IS NOT NULL``."""
    def visit(node):
        if isinstance(node, exp.Not) and isinstance(node.this, exp.Is) and isinstance(node.this.expression, exp.Null):
            return exp.Is(this=node.this.this, expression=exp.Not(this=exp.Null()))
        return node
    return expression.copy().transform(visit)


@functools.lru_cache(maxsize=1024)
def _in_postgres_spelling(text: str) -> bool:
    """Does PostgreSQL's spelling of the stored CHECK ``text`` read back as the same expression
    (``a / 2`` does not: sqlglot writes DuckDB's division as a double's)?"""
    try:
        return sqlglot.parse_one(_postgres_form(parsed(text)).sql(dialect="postgres"), read=Txlake) == parsed(text)
    except sqlglot.errors.SqlglotError:
        return False
