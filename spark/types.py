"""Column types between txlake and Spark, and the Arrow batches each side expects.

txlake's TIMESTAMP is PostgreSQL's ``timestamp without time zone``; it maps to Spark's
``TimestampNTZType``. TIMESTAMPTZ (an instant) is Spark's ``TimestampType``, both ways; a
``TimestampType`` written into a TIMESTAMP column is stored as its UTC wall time. A value of
another type than its column's is cast as an INSERT casts it - by DuckDB's CAST - so a number
is rounded into its column as SQL rounds it (a decimal half away from zero, a double into an
integer half to even), and one that does not fit is 22003.
"""

from __future__ import annotations

import functools

import duckdb
import pyarrow as pa
from pyspark.sql import types as T

from txlake import errors
from txlake.engine import dialect, generated
from txlake.engine.errors_map import translate
from txlake.engine.executor import _cast_sql, fit_type
from txlake.storage.schema import KINDS, Column, ColumnType, TableSchema, array_of

_TO_SPARK = {
    "BOOLEAN": lambda t: T.BooleanType(),
    "SMALLINT": lambda t: T.ShortType(),
    "INT": lambda t: T.IntegerType(),
    "BIGINT": lambda t: T.LongType(),
    "REAL": lambda t: T.FloatType(),
    "DOUBLE": lambda t: T.DoubleType(),
    "DECIMAL": lambda t: T.DecimalType(t.precision, t.scale),
    "VARCHAR": lambda t: T.StringType(),
    "BYTEA": lambda t: T.BinaryType(),
    "DATE": lambda t: T.DateType(),
    "TIME": lambda t: T.TimeType(6),
    "TIMESTAMP": lambda t: T.TimestampNTZType(),
    "TIMESTAMPTZ": lambda t: T.TimestampType(),
    "ARRAY": lambda t: T.ArrayType(_TO_SPARK[t.element.kind](t.element), containsNull=True),
    "UUID": lambda t: T.StringType(),  # (its canonical text, as stored)
    "JSON": lambda t: T.StringType(),
    "JSONB": lambda t: T.StringType(),
    "INTERVAL": lambda t: T.StringType(),  # (PostgreSQL's text of it, as stored: 1 year 2 mons -3 days +04:05:06)
    "INET": lambda t: T.StringType(),  # (PostgreSQL's text of it, as stored: 10.1.2.3/8, 192.168.0.1)
    "CIDR": lambda t: T.StringType(),
}

# Spark type -> the txlake kinds it may be written into (store assignment, as Spark's ANSI
# policy allows: numbers widen or narrow with an overflow check, nothing parses strings - but
# an interval's text, as Spark reads one, is read by PostgreSQL's interval input)
_NUMERIC = {"SMALLINT", "INT", "BIGINT", "REAL", "DOUBLE", "DECIMAL"}
_ASSIGNABLE = {
    T.BooleanType: {"BOOLEAN"},
    T.ByteType: _NUMERIC, T.ShortType: _NUMERIC, T.IntegerType: _NUMERIC, T.LongType: _NUMERIC,
    T.FloatType: _NUMERIC, T.DoubleType: _NUMERIC, T.DecimalType: _NUMERIC,
    T.StringType: {"VARCHAR", "INTERVAL", "INET", "CIDR"}, T.VarcharType: {"VARCHAR"}, T.CharType: {"VARCHAR"},
    T.BinaryType: {"BYTEA"},
    T.DateType: {"DATE", "TIMESTAMP"}, T.TimeType: {"TIME"},
    T.TimestampType: {"TIMESTAMP", "TIMESTAMPTZ"}, T.TimestampNTZType: {"TIMESTAMP"},
    T.NullType: {*KINDS, "ARRAY"},
}


def spark_schema(schema: TableSchema) -> T.StructType:
    """The Spark schema of a table; every field nullable (NOT NULL is enforced on write)."""
    return T.StructType([T.StructField(c.name, _TO_SPARK[c.type.kind](c.type), True) for c in schema.columns])


def arrow_schema(schema: TableSchema) -> pa.Schema:
    """The Arrow schema of the batches a read gives Spark: the table's, but a TIME in
    nanoseconds (Spark's TimeType takes no other unit)."""
    target = schema.arrow_schema()
    for i, f in enumerate(target):
        if pa.types.is_time(f.type):
            target = target.set(i, f.with_type(pa.time64("ns")))
        elif pa.types.is_list(f.type):  # (Spark's arrays: their elements named "element", as Parquet's)
            element = pa.time64("ns") if pa.types.is_time(f.type.value_type) else f.type.value_type
            target = target.set(i, f.with_type(pa.list_(pa.field("element", element))))
        elif f.metadata:  # (a UUID's or JSON's text: plain text to Spark)
            target = target.set(i, f.remove_metadata())
    return target


def column_type(dt: T.DataType) -> ColumnType:
    """The txlake column type a Spark job's column gets when the job creates the table."""
    if isinstance(dt, T.BooleanType):
        return ColumnType("BOOLEAN")
    if isinstance(dt, (T.ByteType, T.ShortType)):
        return ColumnType("SMALLINT")
    if isinstance(dt, T.IntegerType):
        return ColumnType("INT")
    if isinstance(dt, T.LongType):
        return ColumnType("BIGINT")
    if isinstance(dt, T.FloatType):
        return ColumnType("REAL")
    if isinstance(dt, T.DoubleType):
        return ColumnType("DOUBLE")
    if isinstance(dt, T.DecimalType):
        return ColumnType("DECIMAL", precision=dt.precision, scale=dt.scale)
    if isinstance(dt, (T.StringType, T.VarcharType, T.CharType)):
        return ColumnType("VARCHAR")
    if isinstance(dt, T.BinaryType):
        return ColumnType("BYTEA")
    if isinstance(dt, T.DateType):
        return ColumnType("DATE")
    if isinstance(dt, T.TimeType):
        return ColumnType("TIME")
    if isinstance(dt, T.TimestampType):
        return ColumnType("TIMESTAMPTZ")
    if isinstance(dt, T.TimestampNTZType):
        return ColumnType("TIMESTAMP")
    if isinstance(dt, T.ArrayType):  # (an array of arrays: 0A000, txlake's are one-dimensional)
        return array_of(column_type(dt.elementType))
    raise errors.NotSupportedError(f"Spark type {dt.simpleString()} is not supported by txlake tables")


def schema_for(df_schema: T.StructType) -> TableSchema:
    """A new table's schema from a DataFrame's."""
    seen = set()
    columns = []
    for i, f in enumerate(df_schema.fields):
        if f.name.lower() in seen:
            raise errors.DuplicateColumn(f'column "{f.name}" specified more than once')
        seen.add(f.name.lower())
        columns.append(Column(i, f.name, column_type(f.dataType), not_null=False))
    return TableSchema(0, tuple(columns), (), len(columns) - 1)


def check_assignable(df_schema: T.StructType, schema: TableSchema, table: str) -> None:
    """Refuse, before any task runs, a DataFrame whose columns cannot go into ``table``."""
    by_name = {c.name.lower(): c for c in schema.columns}
    for f in df_schema.fields:
        col = by_name.get(f.name.lower())
        if col is None:
            raise errors.UndefinedColumn(f'column "{f.name}" of relation "{table}" does not exist')
        if not _assignable(f.dataType, col.type):
            raise errors.DatatypeMismatch(
                f'column "{col.name}" is of type {col.type.display()} but the DataFrame column is '
                f"{f.dataType.simpleString()}")
    for col in missing_columns(df_schema, schema):
        if col.not_null and col.default is None and col.generated is None:  # (a NULL default fails on the first row)
            raise errors.NotNullViolation(
                f'null value in column "{col.name}" of relation "{table}" violates not-null constraint')


def _assignable(dt: T.DataType, col_type: ColumnType) -> bool:
    """May a DataFrame column of Spark type ``dt`` go into a column of ``col_type``? An array
    into an array whose elements its elements may go into."""
    if isinstance(dt, T.ArrayType):
        return col_type.kind == "ARRAY" and _assignable(dt.elementType, col_type.element)
    return col_type.kind in _ASSIGNABLE.get(type(dt), set())


def missing_columns(df_schema: T.StructType, schema: TableSchema) -> list[Column]:
    """The table's columns a DataFrame does not have: an append stores their defaults."""
    names = {f.name.lower() for f in df_schema.fields}
    return [col for col in schema.columns if col.name.lower() not in names]


def conform(batch: pa.RecordBatch, schema: TableSchema, table: str, defaults: dict,
            numbers: dict | None = None) -> pa.RecordBatch:
    """``batch`` (a Spark task's Arrow batch) in the table's Arrow schema, a column it lacks
    holding its values in ``numbers`` (by name: a SERIAL column's, one per row) or its value in
    ``defaults`` (by name; NULL if none), with the checks an INSERT makes:
    numeric range (22003), NOT NULL (23502), VARCHAR(n) length (22001, or cut to n where only
    spaces pass it). Its generated columns computed from the others, as an INSERT computes them
    (values the DataFrame gives them are replaced: the table holds what the expression gives)."""
    target = schema.arrow_schema()
    index = {n.lower(): i for i, n in enumerate(batch.schema.names)}
    arrays = []
    for col, field in zip(schema.columns, target):
        i = index.get(col.name.lower())
        if i is None and numbers and col.name in numbers:
            arr = numbers[col.name]
        elif i is None:
            arr = pa.repeat(pa.scalar(defaults.get(col.name), field.type), batch.num_rows)
        else:
            arr = batch.column(i)
        if pa.types.is_timestamp(arr.type) and arr.type.tz is not None:  # (an instant: in UTC)
            arr = arr.cast(pa.timestamp("us", tz="UTC"))
            if field.type.tz is None:  # into a TIMESTAMP: its UTC wall time
                arr = arr.cast(pa.int64()).cast(pa.timestamp("us"))
        if arr.type != field.type or col.type.kind in _READ_BY_INPUT:
            arr = _cast_as_insert(arr, col, field.type)
        arrays.append(_checked(col, arr, table) if col.generated is None else arr)
    if schema.generated:
        computed = generated.computed(checks_duckdb(), table, schema, pa.Table.from_arrays(arrays, schema=target))
        arrays = [_checked(col, computed.column(i).combine_chunks(), table) if col.generated is not None else arr
                  for i, (col, arr) in enumerate(zip(schema.columns, arrays))]
    return pa.RecordBatch.from_arrays(arrays, schema=target)


def _checked(col: Column, arr: pa.Array, table: str) -> pa.Array:
    """``arr``, values of ``col`` about to be written, with the checks an INSERT makes: NOT NULL
    (23502), VARCHAR(n) length (22001; cut if only spaces pass n)."""
    if col.not_null and arr.null_count:
        raise errors.NotNullViolation(
            f'null value in column "{col.name}" of relation "{table}" violates not-null constraint')
    return fit_type(col.type, arr) or arr


@functools.cache
def _duckdb() -> duckdb.DuckDBPyConnection:
    return duckdb.connect()  # one per process (Spark's Python workers), a cursor per use


@functools.cache
def checks_duckdb() -> duckdb.DuckDBPyConnection:
    """A DuckDB database with txlake's SQL (engine/dialect.py), to judge CHECK constraints in: one
    per process (Spark's Python workers, which run one task at a time)."""
    con = duckdb.connect()
    dialect.postgres_semantics(con)
    return con


# the kinds whose text a string column is read into by PostgreSQL's input (their stored text)
_READ_BY_INPUT = ("INTERVAL", "INET", "CIDR")


def _cast_as_insert(arr: pa.Array, col: Column, to: pa.DataType) -> pa.Array:
    """``arr`` cast to ``col``'s type as an INSERT casts a value (DuckDB's CAST, errors as SQL
    reports them); text into an interval, an inet or a cidr by PostgreSQL's input, into its stored text."""
    try:
        con, value = (checks_duckdb(), _cast_sql("v", col.type)) if col.type.kind in _READ_BY_INPUT else \
            (_duckdb(), f"CAST(v AS {col.type.sql()})")
        cast = con.cursor().from_arrow(pa.table({"v": arr})).project(value)
        out = cast.to_arrow_table().column(0)
    except duckdb.Error as e:
        error = translate(e)
        raise type(error)(f'column "{col.name}": {error}', sqlstate=error.sqlstate) from None
    return out.combine_chunks().cast(to)
