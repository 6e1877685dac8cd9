"""PostgreSQL's text of a stored expression, as its ``pg_get_expr`` deparses one: what psql's
``\\d`` and ``information_schema.columns.column_default`` show of a column's DEFAULT.

txlake stores a default as DuckDB's SQL of it (``NOW()``, ``UUID()``, ``nextval('default.t_id_seq')``,
``CAST('x' AS TEXT)``); PostgreSQL shows the expression it stored, its constants typed:
``now()``, ``gen_random_uuid()``, ``nextval('t_id_seq'::regclass)``, ``'x'::text``. The
rules for constants are ruleutils.c's ``get_const_expr``: a non-negative integer and a
non-negative numeric with a point are bare (``0``, ``1.5``), a negative one quoted and
labelled (``'-1'::integer``, ``'-1.25'::numeric``), a bigint always labelled, a boolean
``true`` / ``false``, anything else its text quoted and labelled with its type. A string
constant standing alone is of the column's type (``'x'::text``); elsewhere (a function's
argument) it is left as written, its type not known here.
"""

from __future__ import annotations

import decimal

from sqlglot import exp
from sqlglot.dialects.postgres import Postgres

from txlake.storage.schema import ColumnType, parse_type_name

_INT4 = (-(1 << 31), (1 << 31) - 1)
_INT8 = (-(1 << 63), (1 << 63) - 1)

# txlake's type kinds by PostgreSQL's names (format_type's, without a typmod where PostgreSQL's
# constants carry none)
_TYPE_NAMES = {
    "BOOLEAN": "boolean", "SMALLINT": "smallint", "INT": "integer", "BIGINT": "bigint", "REAL": "real",
    "DOUBLE": "double precision", "DECIMAL": "numeric", "BYTEA": "bytea", "DATE": "date",
    "TIME": "time without time zone", "TIMESTAMP": "timestamp without time zone",
    "TIMESTAMPTZ": "timestamp with time zone", "UUID": "uuid", "JSON": "json", "JSONB": "jsonb",
    "INTERVAL": "interval", "INET": "inet", "CIDR": "cidr",
}


def column_default(default: str | None, column_type: ColumnType, *, pretty: bool = False) -> str | None:
    """The DEFAULT ``default`` (as stored) of a column of ``column_type``, as PostgreSQL shows
    it: ``pretty``, as psql's ``\\d`` (pg_get_expr's pretty form: no parentheses around an
    operator's expression), else as information_schema's ``column_default`` (``(1 + 2)``).
    None for none, and for a NULL: PostgreSQL keeps no default of one."""
    if default is None:
        return None
    tree = exp.maybe_parse(default, dialect="duckdb")
    if isinstance(tree, exp.Null):
        return None
    if isinstance(tree, exp.Literal) and tree.is_string:
        return _typed_string(tree.this, column_type)
    tree = tree.transform(_postgres_node)
    if not pretty:
        tree = tree.transform(lambda n: exp.Paren(this=n) if isinstance(n, exp.Binary)
                              and not isinstance(n.parent, exp.Paren) else n)
    return _Deparse().generate(tree)


def _type_name(column_type: ColumnType) -> str:
    if column_type.kind == "ARRAY":
        return _type_name(column_type.element) + "[]"
    if column_type.kind == "VARCHAR":
        return "character" if column_type.blank_padded else "character varying" if column_type.length else "text"
    return _TYPE_NAMES.get(column_type.kind, column_type.display().lower())


def _typed_string(text: str, column_type: ColumnType) -> str:
    """A string constant as a constant of ``column_type``: as PostgreSQL reads it into one."""
    if column_type.kind == "BOOLEAN" and text.strip().lower() in ("t", "true", "y", "yes", "on", "1",
                                                                   "f", "false", "n", "no", "off", "0"):
        return "true" if text.strip().lower() in ("t", "true", "y", "yes", "on", "1") else "false"
    if column_type.kind in ("SMALLINT", "INT", "BIGINT", "DECIMAL"):
        try:
            return _number(text.strip())
        except (ValueError, decimal.InvalidOperation):
            pass
    return f"{_quoted(text)}::{_type_name(column_type)}"


def _number(text: str) -> str:
    """A numeric constant (``-1``, ``1.5``) as get_const_expr writes it."""
    if "." not in text and "e" not in text.lower():
        value = int(text)
        if _INT4[0] <= value <= _INT4[1]:
            return str(value) if value >= 0 else f"'{value}'::integer"
        if _INT8[0] <= value <= _INT8[1]:
            return f"'{value}'::bigint"
    digits = format(decimal.Decimal(text), "f")
    return digits if digits[0].isdigit() and "." in digits else f"'{digits}'::numeric"


def _quoted(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def _postgres_node(node: exp.Expression) -> exp.Expression:
    """A node of DuckDB's SQL of a default as PostgreSQL writes it."""
    if isinstance(node, exp.Literal) and not node.is_string or (
            isinstance(node, exp.Neg) and isinstance(node.this, exp.Literal) and not node.this.is_string):
        return exp.Var(this=_number(node.sql(dialect="duckdb").replace(" ", "")))
    if isinstance(node, exp.Boolean):
        return exp.Var(this="true" if node.this else "false")
    if isinstance(node, exp.Uuid):
        return exp.Anonymous(this="gen_random_uuid")
    if isinstance(node, exp.Anonymous) and node.name.lower() == "nextval" and len(node.expressions) == 1 \
            and isinstance(node.expressions[0], exp.Literal) and node.expressions[0].is_string:
        # (the sequence as regclass prints it: without the schema the search path finds it in -
        # public here, txlake's database default)
        db, _, name = node.expressions[0].this.rpartition(".")
        name = name if db in ("", "default", "public") else f"{db}.{name}"
        return exp.Anonymous(this="nextval", expressions=[exp.Var(this=f"{_quoted(name)}::regclass")])
    return node


class _Deparse(Postgres.Generator):
    """sqlglot's PostgreSQL SQL, with casts as PostgreSQL deparses them (``'x'::text``) and
    functions in lower case."""

    def __init__(self):
        super().__init__(normalize_functions="lower")

    def cast_sql(self, expression: exp.Cast, safe_prefix: str | None = None) -> str:
        operand = expression.this
        text = self.sql(operand)
        if not isinstance(operand, (exp.Literal, exp.Column, exp.Func, exp.Paren, exp.Var)):
            text = f"({text})"
        try:
            name = _type_name(parse_type_name(expression.to.sql(dialect="duckdb")))
        except Exception:  # (a type txlake has no kind for: regclass, interval)
            name = expression.to.sql(dialect="postgres").lower()
        return f"{text}::{name}"
