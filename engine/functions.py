"""User-defined SQL functions: ``CREATE [OR REPLACE] FUNCTION ... LANGUAGE sql``, ``DROP
FUNCTION``, and their calls, as PostgreSQL 16 has them (doc/src/sgml/xfunc.sgml, "Query
Language (SQL) Functions").

- **Catalog.** A function is a catalog entry beside the tables, views, sequences and types
  (``TableVersion.is_function``: no files; its schema holds a ``FunctionDefinition`` - the body
  as written and its language, so a body of another language can be kept there later). Its
  entry's name is the function's with its argument types (``entry_name``: ``f(integer)``, led by
  a NUL, which no SQL name holds), so overloads are entries of their own, and CREATE, OR
  REPLACE and DROP are transactional as a table's creation is: gone with a ROLLBACK, seen by
  others at COMMIT, replayed and checkpointed; two creators of one signature are told 42723 (in
  one process at once, across processes at the second's COMMIT).
- **Calls.** A call of a scalar function in a statement is replaced by its body (``expand``),
  as PostgreSQL's planner inlines a SQL function: the body's one expression, or - where its
  SELECT has a FROM - the scalar subquery of its first row (NULL for none); each argument cast
  to its parameter's type, the result to the declared one; a STRICT function's NULL argument
  gives NULL. A set-returning one (``RETURNS SETOF t``, ``RETURNS TABLE``) is read in FROM as its
  query. The call is chosen among the overloads of its name as PostgreSQL chooses where the
  arguments' types are known (constants, casts), else 42725. A view stores its calls as written
  and they are inlined when it is read; a DEFAULT, CHECK, generated column or index expression
  holds the body as it was when the DDL ran (so DROP or OR REPLACE of the function leaves those
  as they are: README), the last two only of IMMUTABLE functions (42P17).
- **What it costs.** Nothing where the warehouse has no function: a statement is looked at only
  where the catalog counts some (``Context.may_hold("function")``); then only a statement that
  names one is rewritten, with its parameters bound as constants (it is planned afresh).
"""

from __future__ import annotations

import dataclasses
import datetime
import functools
import itertools
import re
import uuid
import weakref
from collections import OrderedDict

from sqlglot import exp

from txlake import errors
from txlake.engine import catalog_views, composite_types, plpgsql_calls
from txlake.engine.executor import Context, Executor, Result, _literal, column_type, relation_kind
from txlake.parser import statements as st
from txlake.parser.dialect import Txlake
from txlake.parser.parse import identifier, parse
from txlake.storage.schema import FunctionDefinition, TableSchema
from txlake.storage.version import CatalogVersion, TableVersion

_ENTRY = "\x00"  # (leads a function's entry name: no table, view, sequence or type has it)
_VOLATILITY = {"IMMUTABLE": "i", "STABLE": "s", "VOLATILE": "v"}
_OFF = ("off", "false", "no", "0")
_HINT = "HINT:  No function matches the given name and argument types. You might need to add explicit type casts."


def entry_name(name: str, arg_types) -> str:
    """The catalog entry name of the function ``name`` of ``arg_types`` (PostgreSQL's names)."""
    return f"{_ENTRY}{name}({', '.join(arg_types)})"


def signature(definition: FunctionDefinition) -> str:
    """``f(integer, text)``, as PostgreSQL's messages name a function."""
    return f"{definition.name}({', '.join(definition.arg_types)})"


def type_text(data_type: exp.DataType) -> str:
    """A parameter's or result's type as PostgreSQL's format_type names it, without a type
    modifier (a function's types have none in PostgreSQL: ``numeric(10,2)`` is ``numeric``)."""
    if data_type.this == exp.DataType.Type.USERDEFINED:  # (an enum or a domain: its name)
        return str(data_type.args.get("kind") or data_type.sql(dialect="postgres")).lower()
    return catalog_views.pg_type_name(column_type(_unmodified(data_type)).display())


def _unmodified(data_type: exp.DataType) -> exp.DataType:
    """``data_type`` without its type modifiers, an array's element's too: PostgreSQL discards
    them (sql-createfunction.sgml: ``foo(varchar(10))`` is ``foo(varchar)``); ``char`` is then
    bpchar, of any length, not char(1)."""
    return data_type.transform(
        lambda n: None if isinstance(n, exp.DataTypeParam) else
        exp.DataType.build("bpchar") if isinstance(n, exp.DataType) and n.this in _CHARACTER else n)


_CHARACTER = (exp.DataType.Type.CHAR, exp.DataType.Type.NCHAR)


def arguments_text(definition: FunctionDefinition, identity: bool = False) -> str:
    """The arguments as pg_get_function_arguments shows them: ``a integer, b integer DEFAULT 1``;
    ``identity``: as pg_get_function_identity_arguments, those that identify it (no DEFAULT, no
    function's OUT one)."""
    return ", ".join(" ".join(x for x in (mode if mode != "IN" else "", name, type_,
                                          f"DEFAULT {default}" if default is not None and not identity else "") if x)
                     for mode, name, type_, default in definition.parameters()
                     if not (identity and mode == "OUT" and not definition.procedure))


def result_text(definition: FunctionDefinition) -> str:
    """The result as pg_get_function_result shows it: ``integer``, ``SETOF integer``, ``TABLE(a integer)``;
    a procedure has none (psql's \\df shows an empty result type)."""
    if definition.procedure:
        return ""
    if definition.table and definition.returns == "record" and not definition.out_parameters:
        return f"TABLE({', '.join(f'{c} {t}' for c, t in definition.table)})"
    return f"SETOF {definition.returns}" if definition.setof else definition.returns


def definition_text(version: TableVersion) -> str:
    """The function's CREATE OR REPLACE FUNCTION, as pg_get_functiondef writes it (psql's \\sf)."""
    definition = version.schema.function
    kind = "PROCEDURE" if definition.procedure else "FUNCTION"
    lines = [f"CREATE OR REPLACE {kind} {catalog_views.schema_name(version.db)}.{definition.name}"
             f"({arguments_text(definition)})",
             *([] if definition.procedure else [f" RETURNS {result_text(definition)}"]),
             f" LANGUAGE {definition.language}"]
    lines += [f" {word}" for word in ({"i": "IMMUTABLE", "s": "STABLE"}.get(definition.volatility),
                                      "STRICT" if definition.strict else None) if word]
    lines += [f" {option}" for option in definition.options]
    body = definition.body if definition.standard else f"AS ${kind.lower()}${definition.body}${kind.lower()}$"
    return "\n".join(lines) + "\n" + body + "\n"


def listed(tables: list[TableVersion]) -> list[TableVersion]:
    """The functions among ``tables`` (catalog entries), by schema, name and arguments."""
    return sorted((t for t in tables if t.is_function), key=lambda t: (t.db, t.schema.function.name,
                                                                        t.schema.function.arg_types))


# --- looking functions up ------------------------------------------------------------------

_COMMITTED: "weakref.WeakKeyDictionary[CatalogVersion, dict]" = weakref.WeakKeyDictionary()


def _committed(catalog: CatalogVersion) -> dict:
    """(db, name) -> the function entries of ``catalog`` (built once per catalog version)."""
    found = _COMMITTED.get(catalog)
    if found is None:
        found = {}
        if catalog.functions:
            for version in catalog.tables.values():
                if version.is_function:
                    found.setdefault((version.db, version.schema.function.name), []).append(version)
        _COMMITTED[catalog] = found
    return found


def _visible(ctx: Context) -> dict:
    """(db, name) -> the function entries the transaction sees: the committed ones with its own
    creations, replacements and drops."""
    base = _committed(ctx.catalog)
    mine = [(tid, v) for tid, v in ctx.txn.changes.items() if v is None or v.is_function]
    if not mine:
        return base
    gone = {tid for tid, _ in mine}
    found = {}
    for key, versions in base.items():
        kept = [v for v in versions if v.table_id not in gone]
        if kept:
            found[key] = kept
    for _, version in mine:
        if version is not None:
            found.setdefault((version.db, version.schema.function.name), []).append(version)
    return found


def _named(ctx: Context, name: st.TableName, functions: dict | None = None) -> list[TableVersion]:
    """The functions ``name`` may name: of its schema, or - unqualified - of the search path's,
    an earlier schema's hiding a later one's of the same argument types."""
    functions = _visible(ctx) if functions is None else functions
    if name.db is not None:
        return list(functions.get((name.db, name.name), ()))
    found, signatures = [], set()
    for db in ctx.search_path or (ctx.db,):
        for version in functions.get((db, name.name), ()):
            if version.schema.function.arg_types not in signatures:
                signatures.add(version.schema.function.arg_types)
                found.append(version)
    return found


# --- CREATE [OR REPLACE] FUNCTION ----------------------------------------------------------

def create_function(ex: Executor, ctx: Context, stmt: st.CreateFunction, params) -> Result:
    from txlake.engine.sequence_ddl import new_entry_name, read_write
    tag = "CREATE PROCEDURE" if stmt.procedure else "CREATE FUNCTION"
    read_write(ctx, tag)
    db, name = new_entry_name(ctx, stmt.name, "functions in the temporary schema")
    args, returns, table = _shape(ctx, stmt, name)
    definition = FunctionDefinition(name, args, returns, stmt.language, stmt.body, stmt.standard,
                                    _VOLATILITY[stmt.volatility], stmt.strict, stmt.setof, table, stmt.options,
                                    stmt.procedure, stmt.modes)
    if not stmt.procedure:
        _check_called_by_name(definition)
    key = entry_name(name, definition.arg_types)
    old = ctx.txn.table(ctx.catalog, db, key)
    if old is None and ex.name_taken(ctx, db, key):
        if stmt.or_replace:  # (one this transaction cannot see to replace: a retry can)
            raise errors.SerializationFailure("could not serialize access due to concurrent update")
        raise errors.DuplicateFunction(f'function "{name}" already exists with same argument types')
    if old is not None:
        if not stmt.or_replace:
            raise errors.DuplicateFunction(f'function "{name}" already exists with same argument types')
        if old.schema.function.procedure != definition.procedure:
            raise errors.WrongObjectType(f'cannot change routine kind\nDETAIL:  "{name}" is a '
                                         f'{"procedure" if old.schema.function.procedure else "function"}.')
        _check_replacement(old.schema.function, definition)
    if ctx.setting is None or ctx.setting("check_function_bodies").lower() not in _OFF:
        if definition.returns == "trigger":  # (a PL/pgSQL trigger function's: 42601 now for its syntax)
            _compile_trigger_body(definition)
        elif definition.language == "plpgsql":
            plpgsql_calls.compiled(definition)  # (its syntax errors: 42601 now)
        elif not definition.procedure:
            _check_body(ex, ctx, db, definition, old)
    if old is None:
        version = TableVersion(uuid.uuid4().hex, db, key, TableSchema(0, (), function=definition))
        ex._write(ctx, None, version, check_ssi=False)
    else:
        schema = dataclasses.replace(old.schema, schema_id=old.schema.schema_id + 1, function=definition)
        ex._write(ctx, old, dataclasses.replace(old, schema=schema, caches={}), check_ssi=False)
    return Result(status=tag)


def _shape(ctx: Context, stmt: st.CreateFunction, name: str) -> tuple[tuple, str, tuple]:
    """(the arguments, the result type, the result's columns) of the function ``stmt`` creates:
    a function's OUT / INOUT parameters are its result's columns, the result a record of them -
    of the one's type, where there is one (PostgreSQL's build_function_result_tupdesc: an
    unnamed one's column is ``columnN``); a RETURNS clause must say so (42P13)."""
    params = [((p.name, _declared(ctx, p.type), _default_text(p)), stmt.modes[i] if stmt.modes else "IN")
              for i, p in enumerate(stmt.params)]
    args = tuple(param for param, mode in params if mode != "OUT" or stmt.procedure)
    if any(t in _PSEUDO for _, t, _ in args):
        raise errors.NotSupportedError(f"function {name}: an argument of a pseudo-type (record, void) is not supported")
    if stmt.language == "plpgsql" and any(composite_types.named(ctx, p.type) for p in stmt.params):
        raise errors.NotSupportedError(f"function {name}: a PL/pgSQL argument of a composite type is not supported "
                                       "(its variable would be a row): pass its attributes")
    if stmt.procedure:
        return args, "void", ()
    row = _row_type(ctx, stmt.returns)
    if row is not None and not stmt.modes:  # (RETURNS [SETOF] t: rows of the table's, the view's, the type's columns)
        if stmt.language == "plpgsql" and not stmt.setof:  # (RETURN r of a row variable: not taken)
            raise errors.NotSupportedError(f"function {name}: a PL/pgSQL function returning a row type is "
                                           "supported as RETURNS SETOF with RETURN QUERY only")
        return args, *row
    if not stmt.modes:
        returns = _returns(ctx, stmt.returns)
        if returns == "record" and not stmt.table:  # (its calls would need a column definition list)
            raise errors.NotSupportedError(f"function {name}: RETURNS [SETOF] record without OUT parameters is not "
                                           "supported: declare OUT parameters or RETURNS TABLE (...)")
        return args, returns, tuple((c, _declared(ctx, t)) for c, t in stmt.table)
    outputs = [(n, t) for (n, t, _), mode in params if mode != "IN"]
    if len(outputs) == 1:
        table, returns = ((outputs[0][0] or name, outputs[0][1]),), outputs[0][1]
    else:
        table, returns = tuple((n or f"column{i}", t) for i, (n, t) in enumerate(outputs, 1)), "record"
    if stmt.returns is not None and _returns(ctx, stmt.returns) != returns:
        raise errors.InvalidFunctionDefinition(f"function result type must be {returns} because of OUT parameters")
    return args, returns, table


def _row_type(ctx: Context, data_type: exp.DataType | None) -> tuple[str, tuple] | None:
    """(name, its (column, type)s) of the row type ``data_type`` names - a table's, a view's, a
    composite type's - or None (it names none)."""
    from txlake.engine.user_types import type_name_of
    named = type_name_of(ctx, data_type) if data_type is not None else None
    version = ctx.txn.table(ctx.catalog, *ctx.locate(named)) if named is not None else None
    if version is None:
        return None
    if version.is_type:
        definition = version.schema.user_type
        return (version.name, composite_types.columns(definition)) if definition.composite else None
    if version.is_table or version.is_view or version.is_matview:
        return version.name, tuple((c, catalog_views.pg_type_name(t)) for c, t in version.column_types())
    return None


def _returns(ctx: Context, returns: exp.DataType | None) -> str:
    if returns is None:
        return "record"
    if returns.this == exp.DataType.Type.USERDEFINED and str(returns.args.get("kind")).upper() == "TRIGGER":
        return "trigger"  # (a pseudo-type, no user-defined type: parser/parse.py took it for plpgsql alone)
    return _declared(ctx, returns)


def _compile_trigger_body(definition: FunctionDefinition) -> None:
    from txlake.engine import plpgsql, triggers
    plpgsql.compile_body(definition.body, triggers.VARIABLES, f"{definition.name}()", trigger=True)


def _check_called_by_name(definition: FunctionDefinition) -> None:
    """0A000 for a function whose calls the parser reads as a built-in's (``nvl(a, b)`` is its
    COALESCE, ``left(a, b)`` its LEFT, ``datediff(a, b)`` no call at all): they would never reach
    it. A call is found as a plain call of its name (exp.Anonymous), with each number of
    arguments the function takes."""
    name = definition.name
    if not _PLAIN_NAME.fullmatch(name):  # (a name written quoted: so are its calls)
        return
    required = sum(default is None for _, _, default in definition.args)
    for count in range(required, len(definition.args) + 1):
        try:
            call = parse(f"SELECT {name}({', '.join(f'__txl_a{i}' for i in range(count))})")[0] \
                .expression.selects[0].unalias()
        except errors.Error:
            call = None
        if not isinstance(call, exp.Anonymous) or call.name.lower() != name:
            raise errors.NotSupportedError(
                f"function {name}: txlake's parser reads {name}(...) as a built-in function, so calls would not reach "
                "this one: choose another name (PostgreSQL's own built-ins - lower(), length(), ... - are chosen over "
                "a function of their name in public there too: pg_catalog is searched first)")


_PLAIN_NAME = re.compile(r"[a-z_][a-z0-9_$]*")
_PSEUDO = ("void", "record")


def _declared(ctx: Context, data_type: exp.DataType) -> str:
    """A declared type's name; 42704 for an unknown one (a user-defined type must exist)."""
    from txlake.engine.user_types import type_name_of
    if data_type.this == exp.DataType.Type.USERDEFINED and str(data_type.args.get("kind")).lower() in _PSEUDO:
        return str(data_type.args.get("kind")).lower()  # (RETURNS void, RETURNS [SETOF] record: pseudo-types)
    named = type_name_of(ctx, data_type)
    if named is not None:
        version = ctx.txn.table(ctx.catalog, *ctx.locate(named))
        if version is None or not version.is_type:
            raise errors.UndefinedObject(f'type "{named.name}" does not exist')
        return version.name
    return type_text(data_type)


def _default_text(param: st.FunctionParameter) -> str | None:
    return param.default.sql(dialect=Txlake) if param.default is not None else None


def _check_replacement(old: FunctionDefinition, new: FunctionDefinition) -> None:
    """What CREATE OR REPLACE may not change (PostgreSQL's ProcedureCreate): 42P13."""
    drop = f"HINT:  Use DROP FUNCTION {signature(old)} first."
    if (old.returns, old.setof, old.table) != (new.returns, new.setof, new.table):
        raise errors.InvalidFunctionDefinition(f"cannot change return type of existing function\n{drop}")
    for (was, _, _), (now, _, _) in zip(old.args, new.args):
        if was and was != now:
            raise errors.InvalidFunctionDefinition(f'cannot change name of input parameter "{was}"\n{drop}')
    if sum(d is not None for _, _, d in new.args) < sum(d is not None for _, _, d in old.args):
        raise errors.InvalidFunctionDefinition(f"cannot remove parameter defaults from existing function\n{drop}")


def _check_body(ex: Executor, ctx: Context, db: str, definition: FunctionDefinition,
                old: TableVersion | None) -> None:
    """The body checked as PostgreSQL's check_function_bodies does: its query bound (unknown
    tables and columns, operators over the parameters' types: their errors), its result one
    column of a type that converts to the declared one (42P13). A body calling the function
    itself (or through others) is 0A000: PostgreSQL takes it, but a call is inlined here."""
    from txlake.engine.views import _result_columns
    body = _compiled(definition)
    version = TableVersion(old.table_id if old is not None else "new", db, "", TableSchema(0, (), function=definition))
    functions = dict(_visible(ctx))
    functions[db, definition.name] = [v for v in functions.get((db, definition.name), ())
                                      if v.schema.function.arg_types != definition.arg_types] + [version]
    nulls = [_cast(exp.null(), t) for t in definition.arg_types]
    ctx = dataclasses.replace(ctx, routines=plpgsql_calls.Calls(None, checking=True))  # (PL/pgSQL calls: not run)
    if not _rows_of(definition) and body.columns != 1:
        raise errors.InvalidFunctionDefinition(
            f"return type mismatch in function declared to return {definition.returns}\n"
            "DETAIL:  Final statement must return exactly one column.")
    made = _inlined(ctx, _substituted(ctx, version, body, nulls, frozenset()), functions, None,
                    frozenset({version.table_id}))
    _, types = _result_columns(ex, ctx, made if _rows_of(definition) else exp.select(made))
    if definition.returns == "void":  # (whatever its last query gives is discarded)
        return
    wanted = len(definition.table) or 1
    if len(types) != wanted:
        raise errors.InvalidFunctionDefinition(
            f"return type mismatch in function declared to return {definition.returns}\nDETAIL:  Final "
            f"statement returns {'too many' if len(types) > wanted else 'too few'} columns.")
    actual = catalog_views.pg_type_name(types[0].upper()) if types else "unknown"
    # (an unknown - NULL, 'text' - is coerced to the declared type: PostgreSQL's check_sql_fn_retval)
    if not definition.table and not _assignable(actual, definition.returns) and \
            not (body.value is not None and _unknown(body.value)):
        raise errors.InvalidFunctionDefinition(
            f"return type mismatch in function declared to return {definition.returns}\n"
            f"DETAIL:  Actual return type is {actual}.")


def _rows_of(definition: FunctionDefinition) -> bool:
    """Is the body's query (not its first row's value) what a call uses: a set-returning
    function's rows, or a void one's - run for its errors, its value discarded."""
    return definition.setof or definition.returns == "void" or _record(definition)


def _value_type(definition: FunctionDefinition) -> str:
    """The type a call's value is cast to: the declared result type, a record's "record" (its
    struct as made)."""
    return "record" if _record(definition) else definition.returns


def _record(definition: FunctionDefinition) -> bool:
    """Is a call's value a record - a row of the OUT parameters' or a table's columns (a struct
    here)? (One OUT parameter's is its value.)"""
    return not definition.setof and bool(definition.table) and (len(definition.table) > 1 or
                                                                not definition.out_parameters)


# --- DROP FUNCTION -------------------------------------------------------------------------

def drop_function(ex: Executor, ctx: Context, stmt: st.DropFunction, params) -> Result:
    from txlake.engine import triggers, views
    from txlake.engine.sequence_ddl import read_write
    kind = "procedure" if stmt.procedure else "function"
    read_write(ctx, f"DROP {kind.upper()}")
    targets, notices = [], []
    for name, types in stmt.functions:
        found = _named(ctx, name)
        written = catalog_views.relation_name(name.db, name.name)
        if types is not None:
            wanted = tuple(_declared(ctx, t) for t in types)
            found = [v for v in found if v.schema.function.arg_types == wanted]
        other = [v for v in found if v.schema.function.procedure != stmt.procedure]
        if other and len(other) == len(found):  # (PostgreSQL's LookupFuncWithArgs)
            raise errors.WrongObjectType(f"{signature(other[0].schema.function)} is not a {kind}")
        found = [v for v in found if v not in other]
        if types is None:
            if len(found) > 1:
                raise errors.AmbiguousFunction(f'{kind} name "{written}" is not unique\n'
                                               f"HINT:  Specify the argument list to select the {kind} "
                                               "unambiguously.")
            if not found:
                if not stmt.if_exists:
                    raise errors.UndefinedFunction(f'could not find a {kind} named "{written}"')
                notices.append(f"{kind} {written}() does not exist, skipping")
        elif not found:
            shown = f"{written}({', '.join(wanted)})"
            if not stmt.if_exists:
                raise errors.UndefinedFunction(f"{kind} {shown} does not exist")
            notices.append(f"{kind} {shown} does not exist, skipping")
        targets += [v for v in found if v not in targets]
    users = _views_calling(ctx, targets)
    fired = triggers.users(ctx, {v.table_id for v in targets}) if any(
        v.schema.function.returns == "trigger" for v in targets) else []
    if fired and not stmt.cascade:
        executed = {v.table_id: signature(v.schema.function) for v in targets}
        raise _still_used(executed[fired[0][1].function_id], [
            f"trigger {t.name} on table {v.name} depends on function {executed[t.function_id]}" for v, t in fired])
    notices += triggers.drop_users(ex, ctx, fired)
    if users and not stmt.cascade:
        raise _still_used(signature(users[0][1].schema.function), [
            f"{relation_kind(v)} {v.name} depends on function {signature(f.schema.function)}" for v, f in users])
    for version in targets:
        ex._write(ctx, version, None, check_ssi=False)
    dependents = list(dict.fromkeys(v for v, _ in users))
    if dependents:
        notices += views.drop_with_dependents(ex, ctx, dependents, True, targets_cascade=True)
    return Result(status=f"DROP {kind.upper()}", notice="\n".join(notices) or None)


def _still_used(function: str, dependents: list[str]) -> errors.Error:
    return errors.DependentObjectsStillExist(
        f"cannot drop function {function} because other objects depend on it\nDETAIL:  {chr(10).join(dependents)}\n"
        "HINT:  Use DROP ... CASCADE to drop the dependent objects too.")


def _views_calling(ctx: Context, functions: list[TableVersion]) -> list[tuple[TableVersion, TableVersion]]:
    """(view, function) for each view or materialized view whose query calls one of
    ``functions`` (by name and argument count: a view keeps its calls as written)."""
    from txlake.engine.views import definition_query
    if not functions or not ctx.may_hold("view", "materialized view"):
        return []
    found = []
    for version in ctx.txn.tables(ctx.catalog):
        query = version.schema.view.query if version.is_view else \
            version.schema.matview.query if version.is_matview else None
        if query is None:
            continue
        for call in _calls(definition_query(query)):
            name, args = _call_name(call), len(call.expressions)
            for f in functions:
                d = f.schema.function
                if name is not None and name.name == d.name and (name.db in (None, f.db)) and \
                        sum(x is None for _, _, x in d.args) <= args <= len(d.args):
                    found.append((version, f))
    return list(dict.fromkeys(found))


# --- calls ---------------------------------------------------------------------------------

def _calls(node: exp.Expression):
    """The calls in ``node`` that may be of a user-defined function: exp.Anonymous (sqlglot's
    node of a function it does not know), alone or schema-qualified."""
    return node.find_all(exp.Anonymous)


def _call_name(call: exp.Anonymous) -> st.TableName | None:
    """The name ``call`` calls by: (schema or None, name)."""
    parent = call.parent
    if isinstance(parent, exp.Dot) and parent.expression is call:
        if not isinstance(parent.this, exp.Identifier):
            return None
        return st.TableName(st.schema_database(identifier(parent.this)), call.name.lower())
    return st.TableName(None, call.name.lower())


# statement id -> (statement, the names it calls that may be functions'): a statement is looked
# at once (a cached statement object runs again and again)
_CALLED: OrderedDict = OrderedDict()
_CALLED_SIZE = 1024


def _called(stmt: st.Statement) -> frozenset:
    hit = _CALLED.get(id(stmt))
    if hit is not None and hit[0] is stmt:
        return hit[1]
    names = frozenset(call.name.lower() for node in _expressions(stmt) for call in _calls(node))
    _CALLED[id(stmt)] = (stmt, names)
    if len(_CALLED) > _CALLED_SIZE:
        _CALLED.popitem(last=False)
    return names


def _expressions(obj):
    """Every expression a statement holds (its dataclass fields, nested ones too)."""
    if isinstance(obj, exp.Expression):
        yield obj
    elif isinstance(obj, (tuple, list)):
        for item in obj:
            yield from _expressions(item)
    elif dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        for f in dataclasses.fields(obj):
            if f.name not in _KEPT_AS_WRITTEN:
                yield from _expressions(getattr(obj, f.name))


# the fields holding what is stored as written (a view's query: its calls are inlined when read)
_KEPT_AS_WRITTEN = frozenset({"written"})


def calls_any(ctx: Context, stmt: st.Statement) -> bool:
    """Does ``stmt`` call a user-defined function?"""
    names = _called(stmt)
    return bool(names) and any(name in names for _, name in _visible(ctx))


def expand(ctx: Context, stmt: st.Statement, params: tuple, session=None) -> tuple[st.Statement, Context, tuple]:
    """``stmt`` with each call of a user-defined function replaced by the function's body (a
    PL/pgSQL one's by its value: engine/plpgsql_calls.py, run by ``session``), and the context
    and parameters to run it with: where it calls one, its ``?`` are bound as constants (a body
    may use an argument twice, or in another order). ``stmt`` itself where it calls none."""
    if isinstance(stmt, (st.CreateFunction, st.DropFunction)) or not calls_any(ctx, stmt):
        return stmt, ctx, params
    functions = _visible(ctx)
    if stmt.param_count:
        stmt = dataclasses.replace(_unparameterized(_walk(stmt, lambda node, _: _bound(ctx, node))), param_order=None)
        ctx, params = dataclasses.replace(ctx, params=(), param_order=None), ()
    if session is None or not isinstance(stmt, (*_EVALUATING, *_CHECKING)) or \
            not any(v.schema.function.language == "plpgsql" for versions in functions.values() for v in versions):
        return _walk(stmt, lambda node, immutable: _inlined(ctx, node, functions, immutable)), ctx, params
    query = stmt.query if isinstance(stmt, st.Explain) else stmt
    # (a query of LIMIT 0 - PREPARE's check - evaluates no call, nor a view's definition, nor EXPLAIN)
    checking = isinstance(stmt, st.CreateView) or isinstance(stmt, st.Explain) and not stmt.analyze or \
        isinstance(query, st.Query) and _limit_zero(query.expression)
    calls = plpgsql_calls.Calls(session, checking=checking)
    once = query.expression if isinstance(query, st.Query) else stmt.source if isinstance(stmt, st.Insert) else None
    ctx = dataclasses.replace(ctx, routines=calls)
    each = dataclasses.replace(ctx, routines=dataclasses.replace(calls, once=False))
    first = dataclasses.replace(ctx, routines=dataclasses.replace(calls, once=True))
    return _walk(stmt, lambda node, immutable: _inlined(first if node is once else each, node, functions,
                                                        immutable)), ctx, params


# the statements whose calls of PL/pgSQL functions are run (not DDL's: a DEFAULT, CHECK, ...), and
# those whose calls are only checked (typed NULLs in their place)
_EVALUATING = (st.Query, st.Insert, st.Update, st.Delete, st.Merge, st.Explain)
_CHECKING = (st.CreateView,)


def _limit_zero(query: exp.Expression) -> bool:
    limit = query.args.get("limit")
    return isinstance(limit, exp.Limit) and isinstance(limit.expression, exp.Literal) and limit.expression.name == "0"


def _unparameterized(obj):
    """``obj`` (a statement, a part of one) with each statement in it - its parts too (a
    data-modifying WITH's, whose ``param_order`` picks their parameters) - taking none."""
    if isinstance(obj, tuple):
        new = tuple(_unparameterized(item) for item in obj)
        return obj if all(a is b for a, b in zip(new, obj)) else new
    if not dataclasses.is_dataclass(obj) or isinstance(obj, type):
        return obj
    changes = {f.name: new for f in dataclasses.fields(obj) if f.name not in ("param_count", "param_order")
               and (new := _unparameterized(getattr(obj, f.name))) is not getattr(obj, f.name)}
    if isinstance(obj, st.Statement):
        changes.update(param_count=0, param_order=())
    return dataclasses.replace(obj, **changes) if changes else obj


def inlined(ctx: Context, node: exp.Expression) -> exp.Expression:
    """``node``, a query built outside a statement, with the user-defined functions it calls
    replaced by their bodies."""
    return _inlined(ctx, node, _visible(ctx)) if ctx.may_hold("function") else node


def _walk(obj, change, immutable: str | None = None):
    """``obj`` (a statement, a part of one) with ``change(expression, immutable)`` applied to
    each expression it holds; ``immutable`` the 42P17 message where only IMMUTABLE functions
    may be called (a generated column, an index's expressions). ``obj`` itself where nothing
    changed."""
    if isinstance(obj, exp.Expression):
        return change(obj, immutable)
    if isinstance(obj, tuple):
        new = tuple(_walk(item, change, immutable) for item in obj)
        return obj if all(a is b for a, b in zip(new, obj)) else new
    if not dataclasses.is_dataclass(obj) or isinstance(obj, type):
        return obj
    changes = {}
    for f in dataclasses.fields(obj):
        if f.name in _KEPT_AS_WRITTEN:
            continue
        value = getattr(obj, f.name)
        need = immutable or _IMMUTABLE_FIELDS.get((type(obj), f.name))
        new = _walk(value, change, need)
        if new is not value:
            changes[f.name] = new
    return dataclasses.replace(obj, **changes) if changes else obj


_IMMUTABLE_FIELDS = {(st.ColumnSpec, "generated"): "generation expression is not immutable",
                     (st.CreateIndex, "items"): "functions in index expression must be marked IMMUTABLE",
                     (st.CreateIndex, "where"): "functions in index predicate must be marked IMMUTABLE"}


def _bound(ctx: Context, node: exp.Expression) -> exp.Expression:
    """``node`` with each ``?`` replaced by the constant of its value in this execution."""
    from txlake.engine.user_types import parameter_value

    def visit(n):
        if not isinstance(n, exp.Placeholder) or st.PARAM_INDEX not in n.meta:
            return n
        made = _parameter_literal(parameter_value(ctx, n))
        if made is None:
            raise errors.NotSupportedError(f"a parameter of {type(parameter_value(ctx, n)).__name__} values in a "
                                           "statement calling a user-defined function is not supported")
        return made

    return node.transform(visit) if any(True for _ in node.find_all(exp.Placeholder)) else node


def _parameter_literal(value) -> exp.Expression | None:
    """A parameter's value as the constant of its type (the executor's literals, and a UUID,
    a time, an interval, a list as an ARRAY of its items'), or None for a value of another type."""
    made = _literal(value)
    if made is not None:
        return made
    if isinstance(value, uuid.UUID):
        return exp.cast(exp.Literal.string(str(value)), "UUID")
    if isinstance(value, datetime.time):
        return exp.cast(exp.Literal.string(value.isoformat()), "TIMETZ" if value.tzinfo else "TIME")
    if isinstance(value, datetime.timedelta):
        return exp.cast(exp.Literal.string(f"{value.days} days {value.seconds} seconds {value.microseconds} "
                                           "microseconds"), "INTERVAL")
    if isinstance(value, (list, tuple)):
        items = [_parameter_literal(item) for item in value]
        return exp.Array(expressions=items) if all(item is not None for item in items) else None
    return None


def _inlined(ctx: Context, node: exp.Expression, functions: dict, immutable: str | None = None,
             seen: frozenset = frozenset()) -> exp.Expression:
    """``node`` with the calls of user-defined functions in it replaced by their bodies."""
    names = {name for _, name in functions}
    if not any(call.name.lower() in names for call in _calls(node)):
        return node

    def visit(n):
        if isinstance(n, exp.Table) and isinstance(n.this, exp.Anonymous):
            return _from_item(ctx, n, functions, seen)
        if isinstance(n, exp.Lateral) and isinstance(n.this, exp.Anonymous) and not n.args.get("view"):
            # (FROM u, LATERAL f(u.x): the call as a FROM item; a derived table reads the caller's columns)
            item = exp.Table(this=n.this.copy(), alias=n.args["alias"].copy() if n.args.get("alias") else None)
            made = _from_item(ctx, item, functions, seen)
            return n if made is item else made
        call = n.expression if isinstance(n, exp.Dot) and isinstance(n.expression, exp.Anonymous) else n
        if not isinstance(call, exp.Anonymous) or call.name.lower() not in names:
            return n
        if call is not n and not isinstance(n.this, exp.Identifier):
            return n
        name = _call_name(call)
        version, args = _chosen(ctx, name, call, functions)
        if version is None:
            return n
        if immutable and version.schema.function.volatility != "i":
            raise errors.InvalidObjectDefinition(immutable)
        args = [_inlined(ctx, a, functions, immutable, seen) for a in args]
        if version.schema.function.language == "plpgsql":
            _refuse_trigger_call(version.schema.function)
            return plpgsql_calls.scalar_call(ctx, version, args, n)
        return _scalar_call(ctx, version, args, functions, seen)

    return node.transform(visit)


def _chosen(ctx: Context, name: st.TableName, call: exp.Anonymous, functions: dict, procedure: bool = False):
    """(the function ``call`` calls, its arguments in parameter order with the defaults
    filled in) - (None, None) where no user-defined function has its name (a built-in's
    then); 42883 / 42725 where none or several fit."""
    candidates = _named(ctx, name, functions)
    if not candidates:
        return None, None
    positional = [a for a in call.expressions if not isinstance(a, (exp.Kwarg, exp.PropertyEQ))]
    named = {identifier(a.this).lower() if isinstance(a.this, exp.Identifier) else a.this.name.lower(): a.expression
             for a in call.expressions if isinstance(a, (exp.Kwarg, exp.PropertyEQ))}
    fitting = []
    for version in candidates:
        args = _arranged(version.schema.function, positional, named)
        if args is None:
            continue
        score = 0
        for arg, (_, declared, _) in zip(args, version.schema.function.args):
            known = _known_type(arg)
            if known is None:
                continue
            if known != declared and not _implicit(known, declared):
                break
            score += known == declared
        else:
            fitting.append((score, version, args))
    shown = f"{catalog_views.relation_name(name.db, name.name)}(" + \
        ", ".join([_known_type(a) or "unknown" for a in positional] +
                  [f"{k} => {_known_type(v) or 'unknown'}" for k, v in named.items()]) + ")"
    if not fitting:
        kind = "procedure" if procedure else "function"
        raise errors.UndefinedFunction(f"{kind} {shown} does not exist\n{_HINT.replace('function', kind)}")
    best = max(score for score, _, _ in fitting)
    fitting = [f for f in fitting if f[0] == best]
    if len(fitting) > 1:  # (PostgreSQL's typeconv step 4.e: an unknown - 'x', NULL - takes the string category)
        fitting = [f for f in fitting if all(declared in _STRING for a, (_, declared, _) in zip(
            f[2], f[1].schema.function.args) if _unknown(a))] or fitting
    if len(fitting) > 1:
        raise errors.AmbiguousFunction(f"function {shown} is not unique\nHINT:  Could not choose a best candidate "
                                       "function. You might need to add explicit type casts.")
    _, version, args = fitting[0]
    if version.schema.function.procedure != procedure:
        kind = "procedure" if version.schema.function.procedure else "function"
        raise errors.WrongObjectType(
            f"{signature(version.schema.function)} is {'a' if kind == 'procedure' else 'not a'} procedure\n"
            f"HINT:  To call a {'procedure, use CALL' if kind == 'procedure' else 'function, use SELECT'}.")
    return version, args


def procedure_arguments(ex: Executor, ctx: Context, stmt: st.ProcedureArguments, params) -> Result:
    """The procedure ``CALL name(args)`` calls (as functions are chosen: 42883, 42725; 42809 for a
    function) as the Result's ``procedure``, and its arguments' values as its one row."""
    call = stmt.call
    *schema, name = call.procedure.split(".")
    ref = st.TableName(st.schema_database(schema[0]) if schema else None, name.lower())
    written = exp.Anonymous(this=name, expressions=[*call.args, *(exp.Kwarg(this=exp.var(k), expression=v)
                                                                  for k, v in call.kwargs)])
    version, args = _chosen(ctx, ref, written, _visible(ctx), procedure=True) if ctx.may_hold("function") else \
        (None, None)
    if version is None:
        shown = f"{call.procedure}({', '.join(_known_type(a) or 'unknown' for a in call.args)})"
        raise errors.UndefinedFunction(f"procedure {shown} does not exist\n{_HINT.replace('function', 'procedure')}")
    result = Result(status="CALL")
    result.procedure, result.arguments = version, args
    return result


def _arranged(definition: FunctionDefinition, positional: list, named: dict) -> list | None:
    """The call's arguments in ``definition``'s parameter order, defaults filled in; None if
    they do not fit its parameters."""
    if len(positional) > len(definition.args):
        return None
    args = list(positional)
    for i, (param, _, default) in enumerate(definition.args[len(positional):], len(positional)):
        if param and param.lower() in named:
            args.append(named[param.lower()])
        elif default is not None:
            args.append(_default(default))
        else:
            return None
    used = {p.lower() for p, _, _ in definition.args[len(positional):] if p}
    return args if set(named) <= used else None


@functools.lru_cache(maxsize=256)
def _default_tree(text: str) -> exp.Expression:
    return parse(f"SELECT {text}")[0].expression.expressions[0].unalias()


def _default(text: str) -> exp.Expression:
    return _default_tree(text).copy()


_NUMERIC = ("smallint", "integer", "bigint", "numeric", "real", "double precision")
_STRING = ("text", "character varying", "character")


def _known_type(node: exp.Expression) -> str | None:
    """An argument's type where the call shows it (a constant, a cast): None - unknown, as a
    string constant is in PostgreSQL - otherwise."""
    if isinstance(node, exp.Paren):
        return _known_type(node.this)
    if isinstance(node, exp.Boolean):
        return "boolean"
    if isinstance(node, exp.Literal) and not node.is_string:
        text = node.name
        if text.lstrip("-").isdigit():
            value = int(text)
            return "integer" if -2 ** 31 <= value < 2 ** 31 else "bigint" if -2 ** 63 <= value < 2 ** 63 else "numeric"
        return "numeric"
    if isinstance(node, exp.Neg):
        return _known_type(node.this)
    if isinstance(node, exp.Anonymous) and node.name.lower() == "txl_text":  # (x::text: parser/semantics.py)
        return "text"
    if isinstance(node, exp.Cast) and isinstance(node.to, exp.DataType):
        try:
            return type_text(node.to)
        except errors.Error:
            return None
    return None


def _unknown(node: exp.Expression) -> bool:
    """Is ``node`` of PostgreSQL's type unknown: a string constant, NULL?"""
    return isinstance(node, exp.Null) or isinstance(node, exp.Literal) and node.is_string


def _implicit(known: str, declared: str) -> bool:
    """Does a value of type ``known`` convert implicitly to ``declared`` (PostgreSQL's
    implicit casts among the numeric and the string types)?"""
    if known in _NUMERIC and declared in _NUMERIC:
        return _NUMERIC.index(known) <= _NUMERIC.index(declared)
    return known in _STRING and declared in _STRING


def _assignable(actual: str, declared: str) -> bool:
    """May a body's result of type ``actual`` be returned as ``declared``? (PostgreSQL's
    assignment casts: among the numeric types, to text from anything; a string is none of the
    numeric, boolean or date and time types.) Other types - json, an enum or a domain, whose
    values DuckDB types by their base - are left to the result's cast."""
    if actual in ("unknown", "null", '"null"', declared) or declared not in _CHECKED:
        return True
    if declared in _NUMERIC:
        return actual in _NUMERIC
    return declared != "boolean" and actual not in (*_NUMERIC, *_STRING, "boolean")


# the declared result types whose body's result type is checked at CREATE
_CHECKED = (*_NUMERIC, "boolean", "date", "time without time zone", "timestamp without time zone",
            "timestamp with time zone", "interval")


_OPERAND = "__txl_operand"


@functools.lru_cache(maxsize=128)
def _cast_tree(text: str) -> exp.Expression:
    return parse(f"SELECT CAST({_OPERAND} AS {text})")[0].expression.expressions[0].unalias()


def _cast(value: exp.Expression, text: str) -> exp.Expression:
    """``value`` cast to the declared type ``text``, as a statement's cast is read (a cast
    to text is PostgreSQL's output of the value, ...: parser/semantics.py); to void - no value,
    the result of a function returning nothing - a NULL (of text: DuckDB has no void)."""
    if text == "void":
        return exp.cast(exp.null(), "TEXT")
    if text == "record":  # (a row: a struct of its columns, as made)
        return value.copy()
    return _cast_tree(text).copy().transform(
        lambda n: value.copy() if isinstance(n, exp.Column) and n.name == _OPERAND else n)


@dataclasses.dataclass(frozen=True)
class _Body:
    """A function's body, parsed: ``query`` its one SELECT; ``value`` its one expression where
    the SELECT has nothing else (no FROM, WHERE, ...), else None; ``columns`` how many it gives."""

    query: exp.Query
    value: exp.Expression | None
    columns: int


@functools.lru_cache(maxsize=256)
def _compiled(definition: FunctionDefinition) -> _Body:
    """The body of ``definition``, parsed once: 0A000 for one txlake cannot inline."""
    text = definition.body
    if definition.standard and text[:6].upper() == "RETURN":
        text = "SELECT " + text[6:]
    elif definition.standard:  # BEGIN ATOMIC ... END
        text = text[len("BEGIN ATOMIC"):-len("END")]
    statements = parse(text)
    if any(isinstance(s, (st.Insert, st.Update, st.Delete, st.Merge, st.WithWrites)) for s in statements):
        raise errors.NotSupportedError(f"function {definition.name}: a body that writes (INSERT, UPDATE, DELETE, "
                                       "MERGE) is not supported")
    if len(statements) > 1:
        raise errors.NotSupportedError(f"function {definition.name}: a body of several statements is not supported")
    if not statements or not isinstance(statements[0], st.Query):
        raise errors.InvalidFunctionDefinition(
            f"return type mismatch in function declared to return {definition.returns}\n"
            "DETAIL:  Function's final statement must be SELECT or INSERT/UPDATE/DELETE/MERGE RETURNING.")
    query = statements[0].expression
    columns = len(query.selects) if not any(isinstance(s, exp.Star) for s in query.selects) else 0
    plain = isinstance(query, exp.Select) and columns == 1 and not any(
        query.args.get(k) for k in query.args if k not in ("expressions",))
    return _Body(query, query.selects[0].unalias() if plain else None, columns)


def _scalar_call(ctx: Context, version: TableVersion, args: list, functions: dict,
                 seen: frozenset) -> exp.Expression:
    """The call of the scalar function ``version`` with ``args`` as an expression."""
    definition = version.schema.function
    _refuse_trigger_call(definition)
    if definition.setof:
        raise errors.NotSupportedError(f"set-returning function {definition.name} is supported in FROM only")
    body = _compiled(definition)
    typed = [_cast(a, t) for a, t in zip(args, definition.arg_types)]
    if any(_volatile(a) for a in args):
        return _evaluated_once(ctx, version, body, typed, functions, seen)
    value = _substituted(ctx, version, body, typed, seen)
    value = _inlined(ctx, value, functions, None, seen | {version.table_id})
    if _record(definition):  # (its query's first row, as a struct of its OUT parameters' names)
        value = exp.Subquery(this=_typed_rows(definition, value, [exp.to_identifier(c) for c, _ in definition.table],
                                              struct=True).limit(1))
    elif definition.returns == "void":  # (its query run, its value none: NULL, as a PL/pgSQL one's)
        nothing = exp.cast(exp.null(), "TEXT")
        return exp.Case(ifs=[exp.If(this=exp.Exists(this=value), true=nothing)], default=nothing)
    returned = _value_type(definition)
    result = _cast(value if body.value is None or _record(definition) else exp.Paren(this=value), returned)
    if not definition.strict or not args:
        return result
    if any(isinstance(a, exp.Null) for a in args):
        return _cast(exp.null(), returned)
    maybe_null = [a for a in args if not isinstance(a, exp.Literal)]
    if not maybe_null:
        return result
    return exp.Case(ifs=[exp.If(this=exp.or_(*(exp.Is(this=a.copy(), expression=exp.null()) for a in maybe_null)),
                                true=_cast(exp.null(), _value_type(definition)))], default=result)


def _refuse_trigger_call(definition: FunctionDefinition) -> None:
    if definition.returns == "trigger":  # (PostgreSQL's plpgsql compiler's refusal)
        raise errors.NotSupportedError("trigger functions can only be called as triggers")


def _volatile(node: exp.Expression) -> bool:
    """Does ``node`` call a function whose value differs from call to call (random(), nextval(),
    gen_random_uuid(), setval(), ...: DuckDB's volatile ones and txlake's sequence calls)?"""
    names = _volatile_names()
    return any(isinstance(n, exp.Func) and (n.name if isinstance(n, exp.Anonymous) else n.sql_name()).lower() in names
               for n in node.walk())


@functools.cache
def _volatile_names() -> frozenset[str]:
    from txlake.engine import sequence_calls
    from txlake.engine.executor import _volatile_functions
    return _volatile_functions() | {"rand", "random_normal", "timeofday", sequence_calls.NEXTVAL,
                                    sequence_calls.CURRVAL, sequence_calls.SETVAL, sequence_calls.SETVAL3,
                                    sequence_calls.LASTVAL}


_ONCE = "__txl_a"


def _volatile_refused(definition: FunctionDefinition) -> errors.Error:
    return errors.NotSupportedError(
        f"function {definition.name}: a volatile argument (random(), nextval(), ...) of a function whose body is a "
        "query is not supported: pass its value (compute it in a subquery or a CTE first)")


def _evaluated_once(ctx: Context, version: TableVersion, body: _Body, args: list, functions: dict,
                    seen: frozenset) -> exp.Expression:
    """The call of ``version`` where an argument is volatile: each argument evaluated once per
    call, however often the body (or STRICT's NULL test) uses it - as PostgreSQL, which then does
    not inline the call, runs it on one value. The arguments are a struct that a lambda over the
    body takes (``list_transform([{p0: ...}], lambda a: body)[1]``: per row, as a call is); a
    lambda holds no subquery, so a body that is a query is refused (0A000)."""
    definition = version.schema.function
    if body.value is None or any(isinstance(n, (exp.Query, exp.Table)) for n in body.value.walk()):
        raise _volatile_refused(definition)
    refs = [exp.column(f"p{i}", _ONCE) for i in range(len(args))]
    value = _inlined(ctx, _substituted(ctx, version, body, args, seen, refs), functions, None,
                     seen | {version.table_id})
    result = _cast(exp.Paren(this=value), _value_type(definition))
    if definition.strict:
        result = exp.Case(ifs=[exp.If(this=exp.or_(*(exp.Is(this=r.copy(), expression=exp.null()) for r in refs)),
                                      true=_cast(exp.null(), _value_type(definition)))], default=result)
    values = exp.Struct(expressions=[exp.PropertyEQ(this=exp.to_identifier(f"p{i}"), expression=a)
                                     for i, a in enumerate(args)])
    each = exp.Anonymous(this="list_transform", expressions=[
        exp.Array(expressions=[values]), exp.Lambda(this=result, expressions=[exp.to_identifier(_ONCE)])])
    return exp.Anonymous(this="list_extract", expressions=[each, exp.Literal.number(1)])


def _substituted(ctx: Context, version: TableVersion, body: _Body, args: list, seen: frozenset,
                 refs: list | None = None) -> exp.Expression:
    """The body with its parameters (by name, ``f.name``, or ``$n``) replaced by ``args``: its
    expression, or the scalar subquery of its first row (a set-returning function's: its
    query). A column of a table the body reads is that column, not a parameter of its name
    (PostgreSQL's rule). Where the body has queries of its own, the arguments are the columns
    of a one-row derived table around it, which the body's queries read by its name: a column
    an argument names is then the caller's, not one of a table the body reads. ``refs``: what
    stands for the parameters instead (``_evaluated_once``)."""
    definition = version.schema.function
    if version.table_id in seen:
        raise errors.NotSupportedError(f"function {definition.name} calls itself: recursive SQL functions are not "
                                       "supported")
    names = {p.lower(): i for i, (p, _, _) in enumerate(definition.args) if p}
    template = body.value if body.value is not None and not _rows_of(definition) else body.query
    scoped = refs is None and bool(args) and (
        any(a.find(exp.Column) for a in args) if _rows_of(definition) else  # (a caller's column to keep the caller's)
        body.value is None or any(isinstance(n, (exp.Query, exp.Table)) for n in body.value.walk()))
    if scoped and any(isinstance(n, (exp.AggFunc, exp.Window))  # (the caller's: its query would not compute them)
                      for a in args for n in a.walk(prune=lambda n: isinstance(n, exp.Query))):
        raise errors.NotSupportedError(
            f"function {definition.name}: an aggregate or window function's value as an argument of a function "
            "whose body is a query is not supported: compute it in a subquery first")
    alias = f"__txl_args{next(_SCOPES)}" if scoped else None
    if refs is None:
        refs = [exp.column(f"p{i}", alias) for i in range(len(args))] if scoped else args
    shadowed = _columns_read(ctx, template) if template is body.query else set()

    def visit(n):
        if isinstance(n, exp.Placeholder) and str(n.this or "").isdigit():
            i = int(n.this) - 1
            if not 0 <= i < len(args):
                raise errors.ProgrammingError(f"there is no parameter ${n.this}", sqlstate="42P02")
            return refs[i].copy()
        if isinstance(n, exp.Column) and not n.args.get("db"):
            name = identifier(n.this).lower() if isinstance(n.this, exp.Identifier) else None
            table = identifier(n.args["table"]).lower() if isinstance(n.args.get("table"), exp.Identifier) else None
            if name in names and (table == definition.name.lower() or table is None and name not in shadowed):
                return refs[names[name]].copy()
        return n

    value = template.copy().transform(visit)
    if body.value is None and not _rows_of(definition):
        if isinstance(value, exp.Select) and not value.args.get("limit"):
            value = exp.Subquery(this=value.limit(1, copy=False))
        else:
            value = exp.Subquery(this=exp.select("*").from_(exp.Subquery(this=value, alias=exp.TableAlias(
                this=exp.to_identifier("__txl_fn")))).limit(1))
    if not scoped:
        return value
    # (an aggregate argument there, of the caller's columns only, is the caller's: SQL's rule for
    # an outer reference, which DuckDB keeps)
    values = exp.Subquery(this=exp.select(*(exp.alias_(a, f"p{i}") for i, a in enumerate(args))),
                          alias=exp.TableAlias(this=exp.to_identifier(alias)))
    if _rows_of(definition):  # (the query's rows, beside the arguments' one row: its columns only)
        body_rows = exp.Lateral(this=exp.Subquery(this=value),
                                alias=exp.TableAlias(this=exp.to_identifier("__txl_body")))
        return exp.select(exp.column(exp.Star(), "__txl_body")).from_(values).join(body_rows, join_type="cross")
    return exp.Subquery(this=exp.select(value).from_(values))


_SCOPES = itertools.count()


def _columns_read(ctx: Context, query: exp.Expression) -> set[str]:
    """The column names of the tables and views ``query`` reads (they hide parameters)."""
    names = set()
    for table in query.find_all(exp.Table):
        if not isinstance(table.this, exp.Identifier):
            continue
        db = st.schema_database(identifier(table.args["db"])) if isinstance(table.args.get("db"), exp.Identifier) \
            else None
        version = ctx.lookup(st.TableName(db, identifier(table.this)))
        if version is not None:
            names |= {c.lower() for c, _ in version.column_types()}
    return names


def _from_item(ctx: Context, table: exp.Table, functions: dict, seen: frozenset) -> exp.Expression:
    """A function call in FROM (``FROM f(1) AS x``): a set-returning function's query, as a
    subquery named by its alias (or the function's name), its columns RETURNS TABLE's (or, for
    SETOF t, the one named as the alias); a scalar function's value as a one-row one."""
    call = table.this
    name = st.TableName(st.schema_database(identifier(table.args["db"])) if table.args.get("db") else None,
                        call.name.lower())
    if not any(n == name.name for _, n in functions):
        return table
    version, args = _chosen(ctx, name, call, functions)
    if version is None:
        return table
    definition = version.schema.function
    _refuse_trigger_call(definition)
    args = [_inlined(ctx, a, functions, None, seen) for a in args]
    alias = table.args.get("alias")
    alias_name = alias.this if alias is not None and alias.this is not None else exp.to_identifier(definition.name)
    given = list(alias.columns) if alias is not None else []
    plpgsql = definition.language == "plpgsql"
    if not definition.setof and not _record(definition) and not plpgsql:
        value = _scalar_call(ctx, version, args, functions, seen)
        # (named as the function is, or as its one OUT parameter: PostgreSQL's get_func_result_name)
        column = given[0] if given else exp.to_identifier(definition.table[0][0]) if definition.table else \
            alias_name.copy()
        return exp.Subquery(this=exp.select(exp.alias_(value, column)),
                            alias=exp.TableAlias(this=alias_name.copy()))
    if plpgsql:
        query = plpgsql_calls.rows_call(ctx, version, args)
    else:
        if any(_volatile(a) for a in args):  # (the body's query would evaluate it per row it reads)
            raise _volatile_refused(definition)
        body = _compiled(definition)
        typed = [_cast(a, t) for a, t in zip(args, definition.arg_types)]
        query = _substituted(ctx, version, body, typed, seen)
        query = _inlined(ctx, query, functions, None, seen | {version.table_id})
        if _record(definition):  # (one row: its query's first, or one of NULLs for none)
            query = exp.select(exp.column(exp.Star(), "__txl_row")).from_("(SELECT 1) AS __txl_one").join(
                exp.Subquery(this=exp.select("*").from_(exp.Subquery(this=query)).limit(1),
                             alias=exp.TableAlias(this=exp.to_identifier("__txl_row"))),
                on=exp.true(), join_type="left")
    declared = definition.table or ((definition.name, definition.returns),)
    names = [*given, *(exp.to_identifier(c) for c, _ in declared[len(given):])]
    if not definition.table and not given:
        names = [alias_name.copy()]
    return exp.Subquery(this=_typed_rows(definition, query, names), alias=exp.TableAlias(this=alias_name.copy()))


def _typed_rows(definition: FunctionDefinition, query: exp.Expression, names: list,
                struct: bool = False) -> exp.Select:
    """``query``'s rows as the function's result columns, each cast to its declared type and
    named by ``names`` (``struct``: the one column of a struct of them, a record's value)."""
    declared = definition.table or ((definition.name, definition.returns),)
    inner = exp.TableAlias(this=exp.to_identifier("__txl_fn"), columns=[exp.to_identifier(f"c{i}")
                                                                       for i in range(len(declared))])
    typed = [(_cast(exp.column(f"c{i}", "__txl_fn"), t), n) for i, ((_, t), n) in enumerate(zip(declared, names))]
    columns = [exp.Struct(expressions=[exp.PropertyEQ(this=n.copy(), expression=v) for v, n in typed])] if struct \
        else [exp.alias_(v, n) for v, n in typed]
    return exp.select(*columns).from_(exp.Subquery(this=query, alias=inner))
