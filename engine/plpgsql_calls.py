"""Calls of PL/pgSQL functions and of procedures (``CALL``), as PostgreSQL 16 runs them
(doc/src/sgml/plpgsql.sgml "Returning from a Function", xfunc.sgml, sql-call.sgml).

- **A function's call is evaluated before its statement runs.** A PL/pgSQL body cannot be
  inlined as a SQL function's is (engine/functions.py), so a call whose arguments are known
  before the statement runs - constants, parameters, the session's settings, other such calls -
  is run once, through the session, in the statement's transaction (its statements see the
  transaction's writes and may write: VOLATILE), and replaced by its value (a typed constant),
  or in FROM by its rows. That covers ``SELECT f(1)``, ``SELECT * FROM f(2)``, ``WHERE id =
  f($1)``, PL/pgSQL's ``PERFORM f()`` and ``x := f(y)`` (whose variables are parameters), and
  CALL's arguments.
- **A call per row** - a column among its arguments, in the select list or WHERE of a query
  reading a table - is run once per distinct tuple of its arguments' values (read first by a
  query of the same FROM / JOINs / WHERE), then looked up per row. A DuckDB Python UDF cannot
  do it: the call needs the session, whose DuckDB connection is busy running the query (a UDF
  calling back into it fails with "connection has an unfinished result", measured with DuckDB
  2.0). Only for a function without effects: one run per tuple is then what one per row gives.
- **What is refused (0A000, naming the function).** A call per row elsewhere (UPDATE's SET, a
  subquery, an aggregate's argument, ...). A call of a VOLATILE function whose body writes or
  calls a volatile function where PostgreSQL calls it once per row (a query reading a table,
  UPDATE, DELETE, MERGE, INSERT of several rows): one call would do its work once. A call in a
  DEFAULT, CHECK, generated column or index (DDL: PostgreSQL calls it per row, later). Never a
  wrong answer. No call runs at CREATE VIEW, EXPLAIN (without ANALYZE) or a LIMIT 0 query
  (PREPARE's check): PostgreSQL evaluates none there.
- **Procedures** (``CREATE PROCEDURE``, prokind p) are catalog entries as functions are.
  ``CALL p(args)`` runs the body; outside a transaction block in a transaction of its own, which
  COMMIT / ROLLBACK in a PL/pgSQL body may end (as a DO's), inside one in it (COMMIT there is
  2D000). OUT / INOUT arguments come back as a one-row result.
- **Recursion** is taken up to ``MAX_DEPTH`` nested calls (54001 beyond, PostgreSQL's
  ``stack depth limit exceeded``).
"""

from __future__ import annotations

import dataclasses
import functools
import sys

import pyarrow as pa
from sqlglot import exp

from txlake import errors
from txlake.engine import plpgsql
from txlake.engine.conditions import error_for
from txlake.parser import statements as st
from txlake.storage.schema import FunctionDefinition

# nested calls of PL/pgSQL functions and procedures (each takes some 40 Python frames: sys.setrecursionlimit below)
MAX_DEPTH = 200


@dataclasses.dataclass
class Calls:
    """How a statement's calls of PL/pgSQL functions are run: by ``session``, their RAISE
    messages gathered in ``messages``; ``once``: the expression at hand is one PostgreSQL
    evaluates once per statement (a query's, an INSERT's one row of VALUES) - else per row;
    ``checking``: a CREATE FUNCTION's check of a SQL body (a call gives a typed NULL, not run)."""

    session: object
    messages: list = dataclasses.field(default_factory=list)
    once: bool = False
    checking: bool = False


# --- compiling ---------------------------------------------------------------------------

def names(definition: FunctionDefinition) -> tuple[str, ...]:
    """The arguments' names as the body's variables: an unnamed one's is ``$n``."""
    return tuple(name or f"${i}" for i, (name, _, _) in enumerate(definition.args, 1))


def returns(definition: FunctionDefinition) -> plpgsql.Returns:
    if definition.procedure:
        return plpgsql.Returns("void", procedure=True)
    return plpgsql.Returns(definition.returns, definition.setof, tuple(c for c, _ in definition.table),
                           row=definition.row_type)


def compiled(definition: FunctionDefinition) -> plpgsql.Body:
    """The body compiled (once per definition: compile_body's cache): 42601 where it is wrong."""
    from txlake.engine.functions import signature
    arguments = tuple(zip(names(definition), definition.arg_types))
    named = {n for n, _ in arguments}  # (an INOUT parameter is an argument's variable and a result column)
    variables = arguments + tuple(c for c in definition.table if c[0] not in named and not definition.row_type)
    return plpgsql.compile_body(definition.body, variables, signature(definition), returns=returns(definition))


# --- evaluating a function's call --------------------------------------------------------

def scalar_call(ctx, version, args: list, call: exp.Expression) -> exp.Expression:
    """The value of the call ``call`` of the PL/pgSQL function ``version`` with ``args``, as a
    typed constant (0A000 where it cannot be evaluated before the statement runs)."""
    from txlake.engine.functions import _cast
    definition = version.schema.function
    if definition.setof:
        raise errors.NotSupportedError(f"set-returning function {definition.name} is supported in FROM only")
    calls = _calls_of(ctx, definition)
    if calls.checking:
        return _typed_null(definition.returns)
    if _per_row(args):
        return _mapped_call(ctx, calls, version, args, call)
    _check_once(ctx, calls, definition, args, call)
    value = run_function(calls, version, args)
    if definition.returns == "void":
        return _typed_null("void")
    if len(definition.table) > 1:  # (a record of its OUT parameters: a struct)
        return exp.Struct(expressions=[exp.PropertyEQ(this=exp.to_identifier(c), expression=_cast(
            _constant(definition, v), t)) for (c, t), v in zip(definition.table, value)])
    return _cast(_constant(definition, value), definition.returns)


def _per_row(args: list) -> bool:
    return any(isinstance(n, (exp.Column, exp.Query, exp.AggFunc, exp.Window, exp.Placeholder, exp.Star))
               for a in args for n in a.walk())


def _mapped_call(ctx, calls: Calls, version, args: list, call: exp.Expression) -> exp.Expression:
    """A call with columns among its arguments, in the select list or WHERE of a statement's
    query reading a table: the function run once per distinct tuple of its arguments' values
    (read first, by a query of the same FROM, JOINs and - for a call in the select list - WHERE),
    the call then a lookup of its tuple's value (a correlated subquery of those values). Done
    for a function without effects only (one run per tuple is then what one per row gives);
    0A000 elsewhere."""
    from txlake.engine.functions import _cast
    definition = version.schema.function
    select = _reading_select(call) if calls.once else None
    if select is None or any(isinstance(n, (exp.Query, exp.AggFunc, exp.Window, exp.Placeholder))
                             for a in args for n in a.walk()):
        raise errors.NotSupportedError(
            f"function {definition.name} is written in PL/pgSQL: a call with a column among its arguments is "
            "supported in the select list and WHERE of a query only, its arguments columns and expressions of them "
            "(no subquery, aggregate or window function)")
    if definition.volatility == "v" and _has_effects(ctx, definition, frozenset()):
        raise errors.NotSupportedError(
            f"function {definition.name} is written in PL/pgSQL and changes data (or calls a volatile function): a "
            "call per row (a column among its arguments) is not supported")
    typed = [_cast(a.copy(), t) for a, t in zip(args, definition.arg_types)]
    tuples = exp.select(*(exp.alias_(a, f"a{i}") for i, a in enumerate(typed))).distinct()
    tuples.set("from_", select.args["from_"].copy())
    if select.args.get("with_") is not None:  # (its CTEs, which the FROM may name)
        tuples.set("with_", select.args["with_"].copy())
    for join in select.args.get("joins") or ():
        tuples.append("joins", join.copy())
    where = select.args.get("where")
    if where is not None and not any(n is call for n in where.walk()):
        tuples.set("where", where.copy())
    found = calls.session.execute_statement(st.Query(expression=tuples, text=tuples.sql()))
    if found.table.num_rows > MAX_TUPLES:
        raise errors.NotSupportedError(
            f"function {definition.name} is written in PL/pgSQL: a call per row over more than {MAX_TUPLES} distinct "
            "argument values is not supported")
    rows = []
    for values in (list(row) for row in zip(*(c.to_pylist() for c in found.table.columns))):
        value = run_values(calls, version, values)
        rows.append(exp.Tuple(expressions=[*(_constant(definition, v) for v in values),
                                           _constant(definition, None if definition.returns == "void" else value)]))
    returned = "text" if definition.returns == "void" else definition.returns
    if not rows:
        return _typed_null(definition.returns)
    columns = [f"a{i}" for i in range(len(args))]
    table = exp.Values(expressions=rows, alias=exp.TableAlias(
        this=exp.to_identifier("__txl_calls"), columns=[exp.to_identifier(c) for c in (*columns, "r")]))
    match = exp.and_(*(exp.NullSafeEQ(this=_cast(exp.column(c, "__txl_calls"), t), expression=a)
                       for c, t, a in zip(columns, definition.arg_types, typed)))
    # (a row whose tuple the first query did not read - one a concurrent commit changed between the
    # two snapshots of READ COMMITTED - is an error, not a NULL)
    missing = exp.Anonymous(this="error", expressions=[exp.Literal.string(
        f"function {definition.name}: a row's arguments changed while the statement ran (a concurrent commit): "
        "run it again")])
    value = exp.Case(ifs=[exp.If(this=exp.EQ(this=exp.Count(this=exp.Star()), expression=exp.Literal.number(0)),
                                 true=missing)],
                     default=exp.AnyValue(this=_cast(exp.column("r", "__txl_calls"), returned)))
    return exp.Subquery(this=exp.select(value).from_(table).where(match))


# the most distinct argument tuples a call per row is run for (each is a run of the body)
MAX_TUPLES = 10000


def _reading_select(call: exp.Expression) -> exp.Select | None:
    """The query reading a table whose select list or WHERE holds ``call`` (not inside a
    subquery, a FROM item, GROUP BY, ...): the statement's own, outermost one."""
    child, node = call, call.parent
    while node is not None and not isinstance(node, exp.Select):
        if isinstance(node, (exp.Query, exp.Subquery, exp.Lateral)):
            return None
        child, node = node, node.parent
    if node is None or node.parent is not None or not node.args.get("from_"):
        return None
    if child is node.args.get("where") or any(child is e for e in node.expressions):
        return node
    return None


def rows_call(ctx, version, args: list) -> exp.Expression:
    """The rows of a set-returning PL/pgSQL function's call in FROM, as a query of constants
    (columns ``c0``, ``c1``, ...)."""
    definition = version.schema.function
    calls = _calls_of(ctx, definition)
    width = len(definition.table) or 1
    columns = [f"c{i}" for i in range(width)]
    if not calls.checking:
        _check_once(ctx, calls, definition, args, None)
        value = run_function(calls, version, args)
        rows = value if definition.setof else [value] if len(definition.table) > 1 else [(value,)]
    else:
        rows = []
    if not rows:
        return exp.select(*(exp.alias_(exp.null(), c) for c in columns)).where(exp.false())
    values = exp.Values(expressions=[exp.Tuple(expressions=[_constant(definition, v) for v in row]) for row in rows],
                        alias=exp.TableAlias(this=exp.to_identifier("__txl_rows"),
                                             columns=[exp.to_identifier(c) for c in columns]))
    return exp.select("*").from_(values)


def _typed_null(type_: str) -> exp.Expression:
    from txlake.engine.functions import _cast
    return exp.cast(exp.null(), "TEXT") if type_ == "void" else _cast(exp.null(), type_)


def _constant(definition: FunctionDefinition, value) -> exp.Expression:
    from txlake.engine.functions import _parameter_literal
    if value is None:
        return exp.null()
    made = _parameter_literal(value)
    if made is None:
        raise errors.NotSupportedError(f"function {definition.name}: a result of {type(value).__name__} values is "
                                       "not supported")
    return made


def _calls_of(ctx, definition: FunctionDefinition) -> Calls:
    calls = ctx.routines
    if calls is None:
        raise errors.NotSupportedError(
            f"function {definition.name} is written in PL/pgSQL: txlake evaluates its calls in queries and in "
            "INSERT / UPDATE / DELETE / MERGE only, not in a DEFAULT, CHECK, generated column, index or view "
            "definition")
    return calls


def _check_once(ctx, calls: Calls, definition: FunctionDefinition, args: list, call: exp.Expression | None) -> None:
    """0A000 where one call before the statement is not what PostgreSQL does: an argument
    read per row, or a function with effects (writes, volatile calls) where it is called per row."""
    if any(isinstance(n, (exp.Column, exp.Query, exp.AggFunc, exp.Window, exp.Placeholder)) or
           isinstance(n, exp.Star) for a in args for n in a.walk()):
        raise errors.NotSupportedError(
            f"function {definition.name} is written in PL/pgSQL: a call with a column (or a subquery) among its "
            "arguments, run per row, is not supported: pass it constants, parameters or variables")
    if call is None or calls.once and _evaluated_once(call):  # (a FROM item's rows are read once)
        return
    if definition.volatility == "v" and _has_effects(ctx, definition, frozenset()):
        raise errors.NotSupportedError(
            f"function {definition.name} is written in PL/pgSQL and changes data (or calls a volatile function): a "
            "call where PostgreSQL calls it once per row (a query reading a table, UPDATE, DELETE, MERGE) is not "
            "supported: call it on its own (SELECT f(...), PERFORM f(...))")


def _evaluated_once(call: exp.Expression) -> bool:
    """Is ``call`` where PostgreSQL evaluates it once per statement: in no query reading rows
    (a FROM) but in one of its FROM items (a derived table, not LATERAL: read once), no VALUES
    of several rows?"""
    child, node = call, call.parent
    while node is not None:
        if isinstance(node, exp.Select) and (node.args.get("from_") or node.args.get("joins")) and \
                not isinstance(child, (exp.From, exp.Join)):
            return False
        if isinstance(node, exp.Lateral) or isinstance(node, exp.Values) and len(node.expressions) > 1:
            return False
        child, node = node, node.parent
    return True


def _has_effects(ctx, definition: FunctionDefinition, seen: frozenset) -> bool:
    """Does the body write, or call a volatile function (random(), nextval(), a PL/pgSQL function
    that does)? Read from its words: a statement of another kind than a query, EXECUTE (any
    statement), a call."""
    from txlake.engine.functions import _visible, _volatile_names
    words = _words(definition.body)
    if words & _WRITING:
        return True
    if words & _volatile_names():
        return True
    visible = _visible(ctx)
    for (_, name), versions in visible.items():
        if name in words and name not in seen:
            for version in versions:
                called = version.schema.function
                if called.language == "plpgsql" and called.volatility == "v" and \
                        _has_effects(ctx, called, seen | {name}):
                    return True
    return False


_WRITING = frozenset("insert update delete merge execute call copy truncate create drop alter commit rollback "
                     "refresh lock".split())


@functools.lru_cache(maxsize=256)
def _words(body: str) -> frozenset[str]:
    return frozenset(t.value for t in plpgsql.tokenize(body) if t.kind == "word")


def run_function(calls: Calls, version, args: list):
    """Run the function ``version`` with the constant ``args``: its value (a set-returning
    one's: its rows)."""
    return run_values(calls, version, argument_values(calls.session, version.schema.function, args))


def run_values(calls: Calls, version, values: list):
    """``run_function`` with its arguments' values."""
    definition = version.schema.function
    if definition.strict and any(v is None for v in values):
        return [] if definition.setof else None
    running = _run(calls.session, definition, values, own_transaction=False)
    calls.messages.extend(running.messages)
    if definition.setof:
        return running.rows
    if definition.table:  # (its OUT parameters' values: the one's, or a record's)
        values = running.outputs()
        return values if len(values) > 1 else values[0]
    if not running.returned and definition.returns != "void":
        error = error_for("2F005", "control reached end of function without RETURN")
        plpgsql._add_context(error, f"PL/pgSQL function {running.body.name}")
        raise error
    return running.result


def argument_values(session, definition: FunctionDefinition, args: list) -> list:
    """The arguments' values, each cast to its parameter's type (one query through the session)."""
    from txlake.engine.functions import _cast
    if not args:
        return []
    query = exp.select(*(exp.alias_(_cast(a, t), f"a{i}") for i, (a, t) in enumerate(zip(args, definition.arg_types))))
    result = session.execute_statement(st.Query(expression=query, text=query.sql()))
    return [column[0].as_py() for column in result.table.columns]


def _run(session, definition: FunctionDefinition, values: list, own_transaction: bool, caller=None) -> plpgsql.Run:
    """The body run with ``values`` for its arguments, nested in what runs now (54001 past MAX_DEPTH)."""
    body = compiled(definition)
    depth = session.routine_depth
    if depth >= MAX_DEPTH:
        raise errors.OperationalError(
            "stack depth limit exceeded\nHINT:  Increase the configuration parameter \"max_stack_depth\" (currently "
            "2048kB), after ensuring the platform's stack depth limit is adequate.", sqlstate="54001")
    session.routine_depth = depth + 1
    try:
        return plpgsql.call(session, body, dict(zip(names(definition), values)), own_transaction, caller)
    except RecursionError:
        raise errors.OperationalError("stack depth limit exceeded", sqlstate="54001") from None
    finally:
        session.routine_depth = depth


# --- CALL ----------------------------------------------------------------------------------

def call_procedure(session, version, values: list, own_transaction: bool, caller=None):
    """Run the procedure ``version`` with ``values``: the Result of CALL (its OUT / INOUT
    arguments' values as one row, or none); ``caller``: the non-atomic run whose CALL it is."""
    from txlake.engine.executor import Result
    definition = version.schema.function
    if definition.language == "plpgsql":
        running = _run(session, definition, values, own_transaction, caller)
        messages = running.messages
        outputs = [(name, running.values[i + 1]) for i, name in enumerate(names(definition))
                   if definition.mode(i) != "IN"]
    else:
        messages, outputs = [], [(name, v) for i, (name, v) in enumerate(zip(names(definition), values))
                                 if definition.mode(i) != "IN"]
        _run_sql_body(session, definition, values)
    if not outputs:
        return Result(status="CALL", messages=messages)
    table = pa.table({name: pa.array([value]) for name, value in outputs})
    return Result(table=table, rowcount=1, status="CALL", messages=messages)


def _run_sql_body(session, definition: FunctionDefinition, values: list) -> None:
    """A LANGUAGE sql procedure's statements, in order, each argument (by name or ``$n``) its value."""
    from txlake.engine.functions import _cast, _unparameterized, _walk
    text = definition.body
    if definition.standard:  # BEGIN ATOMIC ... END
        text = text[len("BEGIN ATOMIC"):-len("END")]
    constants = [_cast(_constant(definition, v), t) for v, t in zip(values, definition.arg_types)]
    by_name = {name.lower(): c for (name, _, _), c in zip(definition.args, constants) if name}

    def substituted(node, _):
        def visit(n):
            if isinstance(n, exp.Placeholder) and str(n.this or "").isdigit() and 0 < int(n.this) <= len(constants):
                return constants[int(n.this) - 1].copy()
            if isinstance(n, exp.Column) and not n.table and n.name.lower() in by_name:
                return by_name[n.name.lower()].copy()
            return n
        return node.transform(visit)

    for statement in session.parse(text):
        session.execute_statement(_unparameterized(_walk(statement, substituted)))


# --- sys -----------------------------------------------------------------------------------

if sys.getrecursionlimit() < 10000:  # (nested calls go deep in Python: MAX_DEPTH of them fit)
    sys.setrecursionlimit(10000)
