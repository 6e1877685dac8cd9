"""PostgreSQL's functions over catalog OIDs, as schema readers call them on engine/pg_catalog.py's
rows: ``x::regclass``, ``format_type(atttypid, atttypmod)``, ``pg_get_indexdef(indexrelid)``,
``pg_get_constraintdef(oid)``, ``pg_get_expr(adbin, adrelid)``, ``obj_description(oid,
'pg_constraint')``, ``col_description(attrelid, attnum)``, ``pg_total_relation_size(c.oid)``,
``pg_table_is_visible(oid)``, ``pg_get_userbyid(relowner)`` - Rails' and Django's schema
readers, psql's ``\\d`` queries, DBeaver's and pgAdmin's.

Each call takes its argument row by row (an OID column), so it cannot be answered as a
constant: the executor rewrites it, at each execution, into a scalar subquery over a small
lookup relation of the catalog the statement's transaction sees - one per kind of call, built
and registered once for the statement (``Lookups``), its columns named so that no outer column
is hidden by them. An OID no object has gives what PostgreSQL gives for one: NULL (regclass:
the number, ``-`` for 0). A statement naming none of these functions builds nothing.

What is left out: ``regclass`` is shown as text (its name; PostgreSQL's type is regclass, so
``ORDER BY x::regclass`` sorts by name here, by OID there); ``pg_attrdef.adbin`` holds the
default's text where PostgreSQL has its node tree, which ``pg_get_expr`` gives back as is.
"""

from __future__ import annotations

from functools import cached_property

import pyarrow as pa
from sqlglot import exp

from txlake import errors
from txlake.engine import catalog_views, checks, comments, pg_catalog, user_types
from txlake.engine.catalog_views import schema_name
from txlake.engine.dialect import quote_ident, user_name
from txlake.parser.parse import parse_table_name
from txlake.parser.semantics import INDEXES_SIZE, RELATION_SIZES
from txlake.storage.schema import timing_sql
from txlake.storage.version import TableVersion

#: the calls answered here by name: engine/pg_catalog.py's functions of OIDs, and to_regclass
CALLS = pg_catalog.OID_TAKERS | {pg_catalog.TO_REGCLASS}
_ALIAS = "__txl_lookup"


def is_call(node: exp.Expression) -> bool:
    """Is ``node`` a call answered from the catalog at each execution (``answer``)?"""
    if isinstance(node, exp.Cast):
        return any(pg_catalog.type_is(node.to, kind) for kind in _REG_CASTS)
    if not isinstance(node, exp.Anonymous):
        return False
    return node.name.lower() in CALLS


def answer(ex, ctx, node: exp.Expression, lookups: "Lookups", visit) -> exp.Expression:
    """The call ``node`` as the expression that answers it in this execution (``visit``: the
    executor's rewrite, for its arguments)."""
    if isinstance(node, exp.Cast):
        kind = next(kind for kind in _REG_CASTS if pg_catalog.type_is(node.to, kind))
        return _REG_CASTS[kind](ex, ctx, node, lookups, visit)
    name, args = node.name.lower(), node.expressions
    if name == pg_catalog.TO_REGCLASS:
        return pg_catalog.regclass_oid(ex, ctx, node)
    if name in comments.DESCRIPTION_FUNCTIONS:
        if comments.constant_relation(args):
            return comments.description(ex, ctx, node)
        return _description(name, [a.transform(visit, copy=False) for a in args], lookups)
    if name in RELATION_SIZES:
        if args[0].is_string:  # (a name: parser/semantics.py made 't'::regclass its string)
            return pg_catalog.relation_size(ex, ctx, node)
        found = _looked_up(lookups.relations, "size", key=args[0].transform(visit, copy=False))
        # (pg_indexes_size: 0 of a relation the OID is one's, NULL of another, as the size is)
        return exp.Mul(this=found, expression=exp.Literal.number(0)) if name == INDEXES_SIZE else found
    args = [a.transform(visit, copy=False) for a in args]
    _arity(name, args)
    if name == "format_type":
        return _format_type(lookups, *args)
    if name == "pg_get_indexdef":
        return _looked_up(lookups.indexdefs, "definition", key=args[0],
                          column=args[1] if len(args) > 1 else exp.Literal.number(0))
    if name == "pg_get_constraintdef":
        return _pretty_or_not(args[1:], _looked_up(lookups.constraintdefs, "pretty", key=args[0]),
                              _looked_up(lookups.constraintdefs, "definition", key=args[0]))
    if name == "pg_get_triggerdef":
        return _pretty_or_not(args[1:], _looked_up(lookups.triggerdefs, "pretty", key=args[0]),
                              _looked_up(lookups.triggerdefs, "definition", key=args[0]))
    if name == "pg_get_expr":  # (pg_attrdef.adbin is the text already)
        return _pretty_or_not(args[2:], _looked_up(lookups.expressions, "pretty", key=args[0], relation=args[1]),
                              args[0])
    if name in _FUNCTION_TEXTS:  # (psql's \\sf, \\df: engine/functions.py definition_text, ...)
        return _looked_up(lookups.functiondefs, _FUNCTION_TEXTS[name], key=args[0])
    if name == "pg_table_is_visible":
        return _looked_up(lookups.relations, "visible", key=args[0])
    if name == "pg_type_is_visible":
        return _looked_up(lookups.types, "visible", key=args[0])
    if name == "pg_function_is_visible":
        return _looked_up(lookups.functions, "visible", key=args[0])
    if name == "pg_get_viewdef":  # (of a view's name, or its OID; a pretty flag or wrap column changes nothing)
        if args[0].is_string:
            args[0] = exp.Literal.number(pg_catalog.named_relation(ex, ctx, args[0].this)[0])
        return _looked_up(lookups.viewdefs, "definition", key=args[0])
    # pg_get_userbyid: txlake's one role is the bootstrap superuser (engine/pg_catalog.py OWNER)
    return exp.If(this=exp.EQ(this=args[0], expression=exp.Literal.number(pg_catalog.OWNER)),
                  true=exp.CurrentUser(),
                  false=exp.DPipe(this=exp.DPipe(this=exp.Literal.string("unknown (OID="),
                                                 expression=exp.cast(args[0].copy(), "VARCHAR")),
                                  expression=exp.Literal.string(")")))


def _pretty_or_not(pretty: list[exp.Expression], shown: exp.Expression, plain: exp.Expression) -> exp.Expression:
    """``shown`` if the optional ``pretty`` argument is true (a constant: chosen now), else ``plain``."""
    if not pretty or isinstance(pretty[0], exp.Boolean):
        return shown if pretty and pretty[0].this else plain
    return exp.If(this=pretty[0], true=shown, false=plain)


#: the texts of a function answered from ``Lookups.functiondefs``: its column
_FUNCTION_TEXTS = {"pg_get_functiondef": "definition", "pg_get_function_arguments": "arguments",
                   "pg_get_function_identity_arguments": "identity", "pg_get_function_result": "result"}
#: how many arguments each takes (PostgreSQL's 42883 for others)
_ARITIES = {"format_type": (2,), "pg_get_indexdef": (1, 3), "pg_get_constraintdef": (1, 2), "pg_get_triggerdef": (1, 2),
            "pg_get_functiondef": (1,), "pg_get_expr": (2, 3), "pg_table_is_visible": (1,), "pg_type_is_visible": (1,),
            "pg_function_is_visible": (1,), "pg_get_viewdef": (1, 2), "pg_get_userbyid": (1,), "col_description": (2,),
            "pg_get_function_arguments": (1,), "pg_get_function_identity_arguments": (1,),
            "pg_get_function_result": (1,)}


def _arity(name: str, args: list) -> None:
    if len(args) not in _ARITIES[name]:
        raise errors.ProgrammingError(f"function {name}({', '.join(['unknown'] * len(args))}) does not exist\n"
                                      "HINT:  No function matches the given name and argument types. "
                                      "You might need to add explicit type casts.", sqlstate="42883")


def _looked_up(view: str, value: str, **keys: exp.Expression) -> exp.Expression:
    """``(SELECT value FROM view WHERE key = ... AND ...)``: the value of the lookup row the
    keys pick (NULL for none; each lookup has one row per key)."""
    where = exp.and_(*(exp.EQ(this=exp.column(f"__{k}", _ALIAS), expression=v.copy()) for k, v in keys.items()))
    source = exp.Table(this=exp.to_identifier(view), alias=exp.TableAlias(this=exp.to_identifier(_ALIAS)))
    return exp.Subquery(this=exp.select(exp.column(f"__{value}", _ALIAS)).from_(source).where(where))


# --- regclass ------------------------------------------------------------------------------

def _regclass(ex, ctx, node: exp.Cast, lookups: "Lookups", visit) -> exp.Expression:
    """``x::regclass``: a relation's OID where one is meant - compared, or cast to ``oid``
    (``WHERE attrelid = 't'::regclass``) - else its name as PostgreSQL shows a regclass.
    ``x`` is a name (a string constant, a parameter's string: looked up by the search path,
    42P01 for none) or an OID (a column, a number, a parameter's integer)."""
    parameter, value = _given(ctx, node.this)
    if isinstance(value, exp.Literal) and value.is_string:
        if pg_catalog.as_oid(node):
            found = pg_catalog.regclass_oid(ex, ctx, exp.Cast(this=value, to=node.to.copy()))
        else:
            found = _shown(ex, ctx, value.this)
        return _kept(parameter, found)
    return _oid_or_shown(node, parameter, value.transform(visit, copy=False), lookups.relations, "shown")


def _regtype(ex, ctx, node: exp.Cast, lookups: "Lookups", visit) -> exp.Expression:
    """``x::regtype``, as ``_regclass`` of a type: its OID where one is meant, else its name as
    format_type writes it without a typmod (``'int'::regtype`` is ``integer``; ``atttypid::regtype``
    ``character varying``). ``x`` is a type's name (42704 for none) or an OID."""
    parameter, value = _given(ctx, node.this)
    if isinstance(value, exp.Literal) and value.is_string:
        found = exp.Literal.number(pg_catalog.named_type_oid(ctx, value.this))
        return _kept(parameter, found if pg_catalog.as_oid(node) else _looked_up(lookups.types, "plain", key=found))
    return _oid_or_shown(node, parameter, value.transform(visit, copy=False), lookups.types, "plain")


def _regnamespace(ex, ctx, node: exp.Cast, lookups: "Lookups", visit) -> exp.Expression:
    """``x::regnamespace``: a schema's OID where one is meant, else its name (``relnamespace::regnamespace``);
    ``x`` a schema's name (3F000 for none) or an OID."""
    parameter, value = _given(ctx, node.this)
    if isinstance(value, exp.Literal) and value.is_string:
        names = {name: schema_oid for schema_oid, name in lookups.namespace_rows}
        name = _identifier(value.this)
        if name not in names:
            raise errors.ProgrammingError(f'schema "{name}" does not exist', sqlstate="3F000")
        found = exp.Literal.number(names[name])
        return _kept(parameter, found if pg_catalog.as_oid(node) else exp.Literal.string(quote_ident(name)))
    return _oid_or_shown(node, parameter, value.transform(visit, copy=False), lookups.namespaces, "name")


def _regrole(ex, ctx, node: exp.Cast, lookups: "Lookups", visit) -> exp.Expression:
    """``x::regrole``: txlake's one role (engine/pg_fixed.py), OID 10, named as current_user -
    its OID where one is meant, else its name (``relowner::regrole``); another name is 42704."""
    parameter, value = _given(ctx, node.this)
    user = user_name()
    if isinstance(value, exp.Literal) and value.is_string:
        if _identifier(value.this) != user:
            raise errors.UndefinedObject(f'role "{_identifier(value.this)}" does not exist')
        return _kept(parameter, exp.Literal.number(pg_catalog.OWNER) if pg_catalog.as_oid(node)
                     else exp.Literal.string(quote_ident(user)))
    value = value.transform(visit, copy=False)
    if pg_catalog.as_oid(node):
        return _kept(parameter, exp.cast(value, "BIGINT"))
    return _kept(parameter, exp.If(this=exp.EQ(this=value.copy(), expression=exp.Literal.number(pg_catalog.OWNER)),
                                   true=exp.Literal.string(quote_ident(user)),
                                   false=exp.If(this=exp.EQ(this=value.copy(), expression=exp.Literal.number(0)),
                                                true=exp.Literal.string("-"), false=exp.cast(value.copy(), "VARCHAR"))))


def _regproc(ex, ctx, node: exp.Cast, lookups: "Lookups", visit) -> exp.Expression:
    """``x::regproc`` / ``x::regprocedure``: a function's OID where one is meant, else its name
    (regproc: ``f``; regprocedure: ``f(integer)``), qualified where the search path does not find
    it; ``x`` a name - regprocedure's with its argument types - (42883 for none, 42725 for
    regproc's name of several) or an OID."""
    parameter, value = _given(ctx, node.this)
    shown = "signature" if pg_catalog.type_is(node.to, "regprocedure") else "name"
    if isinstance(value, exp.Literal) and value.is_string:
        found = exp.Literal.number(_function_oid(ex, ctx, value.this, shown == "signature"))
        return _kept(parameter, found if pg_catalog.as_oid(node) else _looked_up(lookups.routines, shown, key=found))
    return _oid_or_shown(node, parameter, value.transform(visit, copy=False), lookups.routines, shown)


def _function_oid(ex, ctx, text: str, with_arguments: bool) -> int:
    """The OID of the user-defined function ``text`` names (regprocin's, regprocedurein's)."""
    from txlake.engine import functions
    from txlake.parser.parse import parse
    from txlake.parser import statements as st
    if with_arguments and "(" not in text:  # (regproc.c's parseNameAndArgTypes)
        raise errors.ProgrammingError("expected a left parenthesis", sqlstate="22P02")
    if with_arguments and not text.rstrip().endswith(")"):
        raise errors.ProgrammingError("expected a right parenthesis", sqlstate="22P02")
    try:
        if not with_arguments:
            name, types = parse_table_name(text.strip()), None
        else:  # (``f(int, text)``: read as DROP FUNCTION's)
            statements = parse(f"DROP FUNCTION {text}")
            if len(statements) != 1 or not isinstance(statements[0], st.DropFunction) or \
                    len(statements[0].functions) != 1:
                raise errors.SyntaxError(text)
            name, types = statements[0].functions[0]
    except errors.Error:
        raise errors.ProgrammingError("invalid name syntax", sqlstate="42602") from None
    name = st.TableName(name.db, name.name.lower() if name.name == name.name.strip() else name.name)
    found = functions._named(ctx, name)
    if types is not None:
        wanted = tuple(functions._declared(ctx, t) for t in types)
        found = [v for v in found if v.schema.function.arg_types == wanted]
        shown = f"{catalog_views.relation_name(name.db, name.name)}({', '.join(wanted)})"
    if not found:
        if ex._sql(exp.select("1").from_("duckdb_functions()").where(  # (a built-in: pg_proc does not list it)
                exp.column("function_name").eq(exp.Literal.string(name.name))).limit(1)).num_rows:
            raise errors.NotSupportedError(f'{"regprocedure" if with_arguments else "regproc"} of built-in function '
                                           f'"{name.name}" is not supported: pg_proc lists user-defined functions only')
        raise errors.UndefinedFunction(f"function {shown} does not exist" if types is not None
                                       else f'function "{text}" does not exist')
    if len(found) > 1:
        raise errors.AmbiguousFunction(f'more than one function named "{text}"')
    return pg_catalog.oid(found[0].table_id)


def _identifier(text: str) -> str:
    """A name as regnamespace / regrole input reads it: quoted as written, else lower-cased."""
    text = text.strip()
    if len(text) > 1 and text.startswith('"') and text.endswith('"'):
        return text[1:-1].replace('""', '"')
    return text.lower()


#: the reg* casts answered here, by the type cast to
_REG_CASTS = {"regclass": _regclass, "regtype": _regtype, "regnamespace": _regnamespace, "regrole": _regrole,
              "regproc": _regproc, "regprocedure": _regproc}


def _given(ctx, value: exp.Expression) -> tuple[exp.Placeholder | None, exp.Expression]:
    """A reg* cast's operand: a ``?`` parameter's value, this execution's, as a constant (the
    parameter too, which stays in the SQL, bound as the others), else the operand."""
    if not isinstance(value, exp.Placeholder):
        return None, value
    given = user_types.parameter_value(ctx, value)
    return value, exp.Literal.string(given) if isinstance(given, str) else \
        exp.Literal.number(given) if isinstance(given, int) else exp.Null()


def _oid_or_shown(node: exp.Cast, parameter, value: exp.Expression, lookup: str, name: str) -> exp.Expression:
    """A reg* cast of an OID: the OID where one is meant, else the object's name from ``lookup``
    - the OID's number for one no object has, ``-`` for 0 (regclassout's, regtypeout's)."""
    if pg_catalog.as_oid(node):
        return _kept(parameter, exp.cast(value, "BIGINT"))
    shown = _looked_up(lookup, name, key=value)
    unknown = exp.If(this=exp.EQ(this=value.copy(), expression=exp.Literal.number(0)), true=exp.Literal.string("-"),
                     false=exp.cast(value.copy(), "VARCHAR"))
    return _kept(parameter, exp.Coalesce(this=shown, expressions=[unknown]))


def _kept(parameter: exp.Placeholder | None, value: exp.Expression) -> exp.Expression:
    """``value``, with the parameter it was made from still in the SQL (bound by position)."""
    if parameter is None:
        return value
    return exp.If(this=exp.Is(this=parameter.copy(), expression=exp.Null()), true=exp.Null(), false=value)


def _shown(ex, ctx, name: str) -> exp.Expression:
    """The relation ``name`` names as a regclass shows it (42P01 for none)."""
    found = pg_catalog.named_relation(ex, ctx, name)
    if found[1] is None:  # (an index: its name, as written)
        return exp.Literal.string(parse_table_name(name).name)
    return user_types.shown_name(ctx, found[1])


# --- format_type ---------------------------------------------------------------------------

#: format_type's names of the built-in types that have their own (format_type.c): (the name
#: without a typmod, with one: before and after it, how the typmod reads - "length" n - 4,
#: "numeric" (p,s), "precision" n, "" none: the type takes none)
_FORMATTED = {
    "bool": ("boolean", "", ""), "int2": ("smallint", "", ""), "int4": ("integer", "", ""),
    "int8": ("bigint", "", ""), "float4": ("real", "", ""), "float8": ("double precision", "", ""),
    "bpchar": ("character", "character", "length"), "varchar": ("character varying", "character varying", "length"),
    "numeric": ("numeric", "numeric", "numeric"),
    "time": ("time without time zone", "time", "precision"), "timetz": ("time with time zone", "time", "precision"),
    "timestamp": ("timestamp without time zone", "timestamp", "precision"),
    "timestamptz": ("timestamp with time zone", "timestamp", "precision"), "interval": ("interval", "", ""),
    "char": ('"char"', "", ""),
}


def _format_type(lookups: "Lookups", type_oid: exp.Expression, typmod: exp.Expression) -> exp.Expression:
    """``format_type(oid, typmod)``: the type's name as SQL writes it, with the typmod where the
    type takes one (``character varying(20)``, ``numeric(10,2)``, ``integer[]``); NULL typmod:
    none given (``character``, where a -1 is ``bpchar``); an OID no type has, ``???``."""
    def column(name: str) -> exp.Column:
        return exp.column(f"__{name}", _ALIAS)

    def styled(style: str) -> exp.Expression:
        return exp.EQ(this=column("style"), expression=exp.Literal.string(style))

    def number(value: exp.Expression) -> exp.Expression:
        return exp.cast(value, "VARCHAR")

    length = exp.Sub(this=typmod.copy(), expression=exp.Literal.number(4))  # (VARHDRSZ)
    modifier = exp.Case(ifs=[
        exp.If(this=styled("length"), true=number(length.copy())),
        exp.If(this=styled("numeric"), true=exp.DPipe(this=exp.DPipe(
            this=number(exp.BitwiseRightShift(this=length.copy(), expression=exp.Literal.number(16))),
            expression=exp.Literal.string(",")),
            expression=number(exp.BitwiseAnd(this=length.copy(), expression=exp.Literal.number(0xFFFF)))))],
        default=number(typmod.copy()))  # ("precision")
    name = exp.Case(ifs=[
        exp.If(this=exp.Is(this=typmod.copy(), expression=exp.Null()), true=column("plain")),
        exp.If(this=exp.or_(exp.LT(this=typmod.copy(), expression=exp.Literal.number(0)), styled("")),
               true=column("unmodified"))],
        default=exp.Concat(expressions=[column("prefix"), exp.Literal.string("("), modifier, exp.Literal.string(")"),
                                        column("suffix")]))
    found = _looked_up(lookups.types, "plain", key=type_oid)
    found.this.set("expressions", [name])
    return exp.If(this=exp.Is(this=type_oid.copy(), expression=exp.Null()), true=exp.Null(),
                  false=exp.Coalesce(this=found, expressions=[exp.Literal.string("???")]))


def _type_rows(tables: list[TableVersion], visible: set[str]) -> pa.Table:
    rows = []  # (oid, plain, unmodified, prefix, suffix, style, visible: pg_catalog's always are)
    for name, (type_oid, _, _, array_oid) in pg_catalog.BUILTIN.items():
        plain, prefix, style = _FORMATTED.get(name, (name, name, ""))
        suffix = plain[len(prefix):] if style == "precision" else ""  # (timestamp(3) with time zone)
        unmodified = "bpchar" if name == "bpchar" else plain
        rows.append((type_oid, plain, unmodified, prefix, suffix, style, True))
        rows.append((array_oid, plain + "[]", unmodified + "[]", prefix, suffix + "[]", style, True))
    for t in tables:  # (user-defined types, and each table's and view's row type)
        if not t.is_sequence and not t.is_function:
            seen = t.table_id in visible
            shown = _qualified(t.db, t.name, seen)
            rows.append((pg_catalog.oid(t.table_id, "" if t.is_type else "type"), shown, shown, shown, "", "", seen))
    return _relation(rows, key=pa.int64(), plain=pa.string(), unmodified=pa.string(), prefix=pa.string(),
                     suffix=pa.string(), style=pa.string(), visible=pa.bool_())


def _relation(rows: list[tuple], **columns: pa.DataType) -> pa.Table:
    """A lookup relation of ``rows``, its columns named ``__name`` (no outer column's name)."""
    return pa.table({f"__{name}": pa.array([r[i] for r in rows], kind)
                     for i, (name, kind) in enumerate(columns.items())})


def _qualified(db: str, name: str, visible: bool) -> str:
    """A type's or relation's name as format_type and regclass write it: quoted where it must
    be, qualified by its schema unless the search path finds it."""
    return quote_ident(name) if visible else f"{quote_ident(schema_name(db))}.{quote_ident(name)}"


# --- obj_description / col_description -----------------------------------------------------

def _description(name: str, args: list[exp.Expression], lookups: "Lookups") -> exp.Expression:
    """``obj_description(oid, 'catalog')`` / ``col_description(oid, n)`` of an OID column, as
    PostgreSQL defines them: pg_description's row of the object (``obj_description(oid)``: of
    any catalog)."""
    if name == "col_description":
        if len(args) != 2:
            _arity("col_description", args)
        return _looked_up(lookups.descriptions, "description", key=args[0], subid=args[1],
                          catalog=exp.Literal.number(pg_catalog.CATALOG_OIDS["pg_class"]))
    if len(args) == 1:
        return _looked_up(lookups.descriptions, "description", key=args[0], subid=exp.Literal.number(0))
    catalog = args[1]
    if not (isinstance(catalog, exp.Literal) and catalog.is_string):
        raise errors.NotSupportedError("obj_description() takes its catalog as a string constant ('pg_class')")
    catalog_name = catalog.this.lower().removeprefix("pg_catalog.")
    if catalog_name not in pg_catalog.CATALOG_OIDS:
        raise errors.UndefinedTable(f'relation "{catalog.this}" does not exist')
    return _looked_up(lookups.descriptions, "description", key=args[0], subid=exp.Literal.number(0),
                      catalog=exp.Literal.number(pg_catalog.CATALOG_OIDS[catalog_name]))


# --- the lookups ---------------------------------------------------------------------------

class Lookups:
    """The lookup relations one execution of a statement reads its calls from, each built from
    the catalog the transaction sees and registered (``register``) where first needed."""

    def __init__(self, ex, ctx, register):
        self.ex, self.ctx, self.register = ex, ctx, register

    @cached_property
    def tables(self) -> list[TableVersion]:
        return catalog_views.listed(self.ctx.txn.tables(self.ctx.catalog), self.ex.temp_schema)

    @cached_property
    def visible(self) -> set[str]:
        """The ids of the relations and types an unqualified name finds (pg_table_is_visible):
        the first of the search path's schemas (the session's temporary one first) to hold the name."""
        ctx = self.ctx
        order = {db: i for i, db in enumerate((self.ex.temp_schema, *(ctx.search_path or (ctx.db,))))}
        first: dict[tuple[bool, str], TableVersion] = {}
        for t in self.tables:
            key = (t.is_type, t.name)
            if t.db in order and (key not in first or order[t.db] < order[first[key].db]):
                first[key] = t
        return {t.table_id for t in first.values()}

    @cached_property
    def relations(self) -> str:
        """Each relation's OID: its name as regclass shows it, its size in bytes, its visibility
        (an index's: its table's)."""
        rows = []  # (oid, shown, size, visible)
        for t in self.tables:
            if not t.is_type and not t.is_function:
                visible, size = t.table_id in self.visible, pg_catalog.size(t)
                rows.append((pg_catalog.oid(t.table_id), _qualified(t.db, t.name, visible), size, visible))
                rows += [(pg_catalog.oid(t.table_id, name), _qualified(t.db, name, visible), 0, visible)
                         for name, *_ in pg_catalog.indexes_of(t)]
        return self.register(_relation(rows, key=pa.int64(), shown=pa.string(), size=pa.int64(), visible=pa.bool_()))

    @cached_property
    def namespace_rows(self) -> list[tuple[int, str]]:
        """(oid, name) of each schema pg_namespace lists."""
        return [(pg_catalog.namespace_oid(n), n) for n in pg_catalog.namespace_names(self.tables)]

    @cached_property
    def namespaces(self) -> str:
        """Each schema's OID and its name as regnamespace shows it."""
        return self.register(_relation([(o, quote_ident(n)) for o, n in self.namespace_rows],
                                       key=pa.int64(), name=pa.string()))

    @cached_property
    def types(self) -> str:
        return self.register(_type_rows(self.tables, self.visible))

    @cached_property
    def function_visibility(self) -> list[tuple[TableVersion, bool]]:
        """Each function with its visibility (pg_function_is_visible): no schema before its own
        on the search path has a function of its name."""
        order = {db: i for i, db in enumerate(self.ctx.search_path or (self.ctx.db,))}
        found = [t for t in self.tables if t.is_function]
        first: dict[str, int] = {}
        for t in found:
            if t.db in order:
                first[t.name] = min(first.get(t.name, order[t.db]), order[t.db])
        return [(t, t.db in order and order[t.db] == first[t.name]) for t in found]

    @cached_property
    def functions(self) -> str:
        rows = [(pg_catalog.oid(t.table_id), visible) for t, visible in self.function_visibility]
        return self.register(_relation(rows, key=pa.int64(), visible=pa.bool_()))

    @cached_property
    def routines(self) -> str:
        """Each function's and procedure's name as regproc shows it, and with its argument types
        as regprocedure does: qualified where the search path does not find it."""
        rows = []
        for t, visible in self.function_visibility:
            name = _qualified(t.db, t.schema.function.name, visible)
            rows.append((pg_catalog.oid(t.table_id), name, f"{name}({','.join(t.schema.function.arg_types)})"))
        return self.register(_relation(rows, key=pa.int64(), name=pa.string(), signature=pa.string()))

    @cached_property
    def viewdefs(self) -> str:
        """Each view's and materialized view's query, as pg_views.definition shows it (pg_get_viewdef)."""
        rows = [(pg_catalog.oid(t.table_id), (t.schema.view or t.schema.matview).query)
                for t in self.tables if t.is_view or t.is_matview]
        return self.register(_relation(rows, key=pa.int64(), definition=pa.string()))

    @cached_property
    def indexdefs(self) -> str:
        """Each index's definition (column 0) and key columns (1, 2, ...), as pg_get_indexdef's."""
        rows = []
        for t in self.tables:
            definitions = dict(catalog_views.index_definitions(t))
            for name, columns, *_ in pg_catalog.indexes_of(t):
                index_oid = pg_catalog.oid(t.table_id, name)
                rows.append((index_oid, 0, definitions[name]))
                rows += [(index_oid, i, quote_ident(c)) for i, c in enumerate(columns, 1)]
        return self.register(_relation(rows, key=pa.int64(), column=pa.int32(), definition=pa.string()))

    @cached_property
    def triggerdefs(self) -> str:
        """Each trigger's CREATE TRIGGER as pg_get_triggerdef writes it, and its pretty form."""
        from txlake.engine import triggers
        rows = [(triggers.trigger_oid(t, g), triggers.definition(t, g), triggers.definition(t, g, qualified=False))
                for t, g in triggers.listed(self.tables)]
        return self.register(_relation(rows, key=pa.int64(), definition=pa.string(), pretty=pa.string()))

    @cached_property
    def functiondefs(self) -> str:
        """Each function's and procedure's CREATE OR REPLACE, its arguments (with defaults, and
        as they identify it) and result, as pg_get_functiondef, pg_get_function_arguments,
        pg_get_function_identity_arguments and pg_get_function_result write them (a
        procedure's result: NULL)."""
        from txlake.engine.functions import arguments_text, definition_text, result_text
        rows = [(pg_catalog.oid(t.table_id), definition_text(t), arguments_text(t.schema.function),
                 arguments_text(t.schema.function, identity=True),
                 None if t.schema.function.procedure else result_text(t.schema.function))
                for t in self.tables if t.is_function]
        return self.register(_relation(rows, key=pa.int64(), definition=pa.string(), arguments=pa.string(),
                                       identity=pa.string(), result=pa.string()))

    @cached_property
    def constraintdefs(self) -> str:
        """Each constraint's definition as pg_get_constraintdef writes it, and its pretty form."""
        by_id = {t.table_id: t for t in self.tables}
        rows = []
        for c in pg_catalog.constraints(self.tables):
            if c.contype == "c":
                plain = f"CHECK {checks.clause(c.spec)}" + ("" if c.spec.validated else " NOT VALID")
                rows.append((c.oid, plain, checks.definition(c.spec)))
            else:
                rows.append((c.oid, *[self._key_definition(c, by_id.get(c.spec.table_id) if c.contype == "f"
                                                           else None)] * 2))
        return self.register(_relation(rows, key=pa.int64(), definition=pa.string(), pretty=pa.string()))

    def _key_definition(self, c, target: TableVersion | None) -> str:
        """A key's or foreign key's definition as pg_get_constraintdef writes it (``target``: a
        foreign key's referenced table)."""
        if c.contype == "f":
            from txlake.engine import foreign_keys  # (a module of the executor's, which imports this one)
            if target is None:
                return foreign_keys.definition(c.spec, "???")
            return foreign_keys.definition(c.spec, _qualified(target.db, target.name, target.table_id in self.visible))
        if c.contype == "p":
            return f"PRIMARY KEY ({', '.join(quote_ident(n) for n in c.owner.schema.primary_key)})"
        distinct = " NULLS NOT DISTINCT" if c.spec.nulls_not_distinct else ""
        return f"UNIQUE{distinct} ({', '.join(quote_ident(n) for n in c.spec.columns)})" + timing_sql(c.spec)

    @cached_property
    def expressions(self) -> str:
        """Each column default's text (pg_attrdef.adbin) with its relation, and its pretty form
        (once: two columns of a table may have the same default)."""
        rows = list(dict.fromkeys((r.adbin, r.relid, r.pretty) for r in pg_catalog.defaults(self.tables)))
        return self.register(_relation(rows, key=pa.string(), relation=pa.int64(), pretty=pa.string()))

    @cached_property
    def descriptions(self) -> str:
        rows = pg_catalog.descriptions(self.tables)
        return self.register(_relation(rows, key=pa.int64(), catalog=pa.int64(), subid=pa.int32(),
                                       description=pa.string()))
