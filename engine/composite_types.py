"""Composite types: ``CREATE TYPE name AS (attribute type, ...)``, ``ALTER TYPE name ADD
ATTRIBUTE``, as PostgreSQL 16 has them (doc/src/sgml/rowtypes.sgml).

- **Catalog.** A composite type is a user-defined type's catalog entry (engine/user_types.py:
  transactional, dropped by DROP TYPE) whose ``TypeDefinition`` holds its attributes, each a
  built-in type as a column's is stored (``ColumnType.display()``). pg_type lists it with typtype
  ``c``, pg_class a relkind ``c`` row of it, pg_attribute its attributes (engine/pg_catalog.py).
- **Values.** A value is DuckDB's STRUCT of the attributes, named and typed (``struct_type``), as
  a table's row (``SELECT t FROM t``) and a function's record are: the DB-API gives a dict, the
  shell PostgreSQL's text ``(1,x)``; ``(v).a`` reads an attribute. ``ROW(1, 'x')::name`` casts a
  row of as many columns (42846 else), ``'(1,x)'::name`` reads PostgreSQL's text input - a
  constant or a parameter's string, by record_in's rules (``record_fields``: 22P02 ``malformed
  record literal``) - and other values are cast by DuckDB.
- **Functions.** A function may take and return one: its result is a record of the attributes
  (engine/functions.py), as of a table's row type.
- **Not supported (0A000).** A table column of a composite type (its storage - a struct column in
  Parquet and Paimon, a Spark struct - is not built), an array of one, an attribute of a
  user-defined type.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from sqlglot import exp

from txlake import errors
from txlake.parser import statements as st
from txlake.storage.schema import TypeDefinition, parse_type_name

if TYPE_CHECKING:
    from txlake.engine.executor import Context
    from txlake.storage.version import TableVersion


def definition(ctx: Context, attributes: tuple[tuple[str, exp.DataType], ...],
               existing: tuple[tuple[str, str], ...] = ()) -> TypeDefinition:
    """The composite type of ``existing`` attributes and ``attributes`` (CREATE's, ADD
    ATTRIBUTE's): 42701 for a name twice, 0A000 for an attribute of a user-defined type."""
    from txlake.engine.executor import column_type
    from txlake.engine.user_types import type_name_of
    made = list(existing)
    for name, data_type in attributes:
        if any(name == n for n, _ in made):
            raise errors.DuplicateColumn(f'column "{name}" specified more than once')
        if type_name_of(ctx, data_type) is not None:
            raise errors.NotSupportedError(f'attribute "{name}": an attribute of a user-defined type (an enum, a '
                                           "domain, a composite or a table's row type) is not supported")
        made.append((name, column_type(data_type).display()))
    return TypeDefinition(attributes=tuple(made), composite=True)


def struct_type(definition: TypeDefinition) -> exp.DataType:
    """DuckDB's STRUCT of the type's attributes."""
    members = ", ".join(f'"{n.replace(chr(34), chr(34) * 2)}" {parse_type_name(t).sql()}' for n, t in
                        definition.attributes)
    return exp.DataType.build(f"STRUCT({members})", dialect="duckdb")


def cast(ctx: Context, value: exp.Expression, version: TableVersion) -> exp.Expression:
    """``value`` as a value of the composite type ``version``."""
    from txlake.engine.user_types import parameter_value
    definition = version.schema.user_type
    text = value.this if isinstance(value, exp.Literal) and value.is_string else parameter_value(ctx, value)
    if isinstance(text, str):  # (PostgreSQL's text input of a row)
        fields = record_fields(text, len(definition.attributes))
        row = exp.Cast(this=exp.Anonymous(this="row", expressions=[
            exp.Null() if f is None else exp.cast(exp.Literal.string(f), parse_type_name(t).sql(), dialect="duckdb")
            for f, (_, t) in zip(fields, definition.attributes)]), to=struct_type(definition))
        if isinstance(value, exp.Placeholder):  # (the parameter stays in the statement, bound by position)
            return exp.If(this=exp.Is(this=value.copy(), expression=exp.Null()), true=exp.Null(), false=row)
        return row
    elif isinstance(value, exp.Anonymous) and value.name.lower() == "row" or isinstance(value, exp.Tuple):
        given = len(value.expressions)
        if given != len(definition.attributes):
            raise errors.ProgrammingError(f"cannot cast type record to {version.name}\nDETAIL:  Input has too "
                                          f"{'many' if given > len(definition.attributes) else 'few'} columns.",
                                          sqlstate="42846")
    return exp.Cast(this=value, to=struct_type(definition))


def record_fields(text: str, count: int) -> list[str | None]:
    """The fields of PostgreSQL's text of a row (``(1,"a b",)``), as record_in reads them: in
    parentheses (blanks outside ignored), separated by commas; an empty one NULL; double quotes
    quote (``""`` a quote in them), a backslash takes the next character; 22P02 ``malformed
    record literal`` for anything else, or for other than ``count`` fields."""
    def malformed(detail: str) -> errors.Error:
        return errors.InvalidTextRepresentation(f'malformed record literal: "{text}"\nDETAIL:  {detail}')

    body = text.strip()
    if not body.startswith("("):
        raise malformed("Missing left parenthesis.")
    fields: list[str | None] = []
    i, n = 1, len(body)
    while True:
        if len(fields) == count and count:
            raise malformed("Too many columns.")
        chars, quoted_any = [], False
        in_quotes = False
        while i < n:
            c = body[i]
            if in_quotes:
                if c == "\\" and i + 1 < n:
                    chars.append(body[i + 1])
                    i += 2
                    continue
                if c == '"' and i + 1 < n and body[i + 1] == '"':
                    chars.append('"')
                    i += 2
                    continue
                if c == '"':
                    in_quotes = False
                else:
                    chars.append(c)
                i += 1
                continue
            if c in ",)":
                break
            if c == '"':
                in_quotes = quoted_any = True
            elif c == "\\" and i + 1 < n:
                chars.append(body[i + 1])
                i += 1
            else:
                chars.append(c)
            i += 1
        if i >= n:
            raise malformed("Unexpected end of input.")
        fields.append("".join(chars) if chars or quoted_any else None)
        if body[i] == ")":
            break
        i += 1
    if i + 1 != n:
        raise malformed("Junk after right parenthesis.")
    if count == 0 and fields == [None]:  # (a type of no attributes: "()")
        return []
    if len(fields) < count:
        raise malformed("Too few columns.")
    return fields


def refuse_column(name: str) -> None:
    raise errors.NotSupportedError(
        f"a column of composite type {name} is not supported: txlake stores no struct columns yet (use the "
        "attributes as columns of their own, or a json / jsonb column)")


def columns(definition: TypeDefinition) -> tuple[tuple[str, str], ...]:
    """(name, PostgreSQL's type name) of each attribute, as a function's result columns are."""
    from txlake.engine.catalog_views import pg_type_name
    return tuple((n, pg_type_name(t)) for n, t in definition.attributes)


def named(ctx: Context, data_type: exp.DataType | None) -> TableVersion | None:
    """The composite type ``data_type`` names (None: it names none)."""
    from txlake.engine.user_types import _named, type_name_of
    name = type_name_of(ctx, data_type) if data_type is not None else None
    version = _named(ctx, name) if isinstance(name, st.TableName) else None
    return version if version is not None and version.schema.user_type.composite else None
