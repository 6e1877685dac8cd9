"""COPY: a file's rows into a table, a query's rows into a file - PostgreSQL's COPY.

``COPY t FROM 'file'`` reads the file in batches of ``BATCH_ROWS`` rows - the text format
(tab-separated, ``\\N`` for NULL, backslash escapes) line by line, CSV through pyarrow's
streaming reader, Parquet by row groups - so a file of any size passes through memory one
batch at a time. Each batch's fields are converted to the table's types by PostgreSQL's
input rules (checked here where DuckDB's casts accept more: ``'2.5'`` is no integer, ``on``
is a boolean) and DuckDB's casts, the columns the file lacks get their defaults (SERIAL's
numbers too), and the rows go into the transaction as an INSERT's do (``Executor._insert_batch``:
NOT NULL, VARCHAR(n), primary keys - also between the file's own rows - and the spill to
Parquet past the transaction's memory share). COPY is one statement: a bad line fails it, and
nothing of the file stays (the transaction, or the block, fails as for any statement).

``COPY t | (query) TO 'file'`` streams the query's rows from DuckDB into a temporary file
beside the target, written as PostgreSQL's output functions write each value
(engine/pg_text.py), fsync'd and renamed over the target: a reader never sees half a file.

Paths are the process's own: relative ones are relative to its working directory. COPY reads
and writes any file the process may (PostgreSQL keeps that to superusers; txlake runs as the
user) - but never writes inside the warehouse, whose files only the commit protocol writes.
FROM STDIN / TO STDOUT belong to the shell's ``\\copy`` and the DB-API's ``copy_expert`` (both
pass the data through a temporary file); ``execute`` refuses them.
"""

from __future__ import annotations

import contextlib
import functools
import os
import re
import uuid
from dataclasses import dataclass
from typing import Iterator

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv

from txlake import errors
from txlake.engine import generated, pg_text, triggers
from txlake.engine.errors_map import by_sqlstate
from txlake.engine.executor import Context, Executor, Result, _cast_sql, _default_sql, python_rows
from txlake.parser import inet_input, interval_input
from txlake.parser import statements as st
from txlake.parser.json_ops import JSON_TRY_IN, JSONB_TRY_IN
from txlake.parser.semantics import BYTEA_MACRO, CLOCK_FUNCTION, SPECIAL_DAYS
from txlake.storage import keys as pk
from txlake.storage.commit import key_text
from txlake.storage.schema import INTEGER_INPUT, Column, integer_input

BATCH_ROWS = 65_536
CSV_BLOCK_BYTES = 4 << 20

# PostgreSQL's names of the types, in its input errors
_TYPE_NAMES = {"BOOLEAN": "boolean", "SMALLINT": "smallint", "INT": "integer", "BIGINT": "bigint",
               "REAL": "real", "DOUBLE": "double precision", "DECIMAL": "numeric", "VARCHAR": "character varying",
               "BYTEA": "bytea", "DATE": "date", "TIME": "time", "TIMESTAMP": "timestamp",
               "TIMESTAMPTZ": "timestamp with time zone", "UUID": "uuid", "JSON": "json", "JSONB": "json",
               "INTERVAL": "interval", "INET": "inet", "CIDR": "cidr"}
_DATETIMES = ("DATE", "TIME", "TIMESTAMP", "TIMESTAMPTZ")
_JSON_TRY_IN = {"JSONB": JSONB_TRY_IN, "JSON": JSON_TRY_IN}
# what PostgreSQL's input functions take where DuckDB's casts take more ('2.5' and '1e3' for an
# integer, '1_0' for a double); a value that fails is 22P02 here, before DuckDB rounds it
_SYNTAX = {
    "SMALLINT": INTEGER_INPUT,
    "INT": INTEGER_INPUT,
    "BIGINT": INTEGER_INPUT,
    "DOUBLE": r"(?i)^\s*([+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?|[+-]?inf(inity)?|nan)\s*$",
    "REAL": r"(?i)^\s*([+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?|[+-]?inf(inity)?|nan)\s*$",
    # byteain's two formats: hex (\x, pairs of hex digits, spaces between pairs) or escape (a
    # backslash only before another or three octal digits)
    "BYTEA": r"^(\\x(\s*[0-9a-fA-F]{2})*\s*|(?:[^\\]|\\\\|\\[0-3][0-7]{2})*)$",
    "DECIMAL": r"(?i)^\s*[+-]?(\d+(_\d+)*\.?\d*|\.\d+)(e[+-]?\d+)?\s*$",
}
_INFINITE = r"(?i)^\s*[+-]?inf(inity)?\s*$"
# boolean input as PostgreSQL's boolin reads it (any unique prefix of true/false/yes/no, on/off, 1/0)
_TRUE = ("t", "tr", "tru", "true", "y", "ye", "yes", "on", "1")
_FALSE = ("f", "fa", "fal", "fals", "false", "n", "no", "of", "off", "0")
# a text-format escape: \b \f \n \r \t \v, \digits (octal), \xhex, or \c for the character c
_ESCAPE = re.compile(r"\\(x[0-9a-fA-F]{1,2}|[0-7]{1,3}|.)", re.S)
_ESCAPED = {"b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\v"}
_KEEP = "__txl_keep"


def run(executor: Executor, ctx: Context, stmt: st.Copy, params) -> Result:
    if stmt.file is None:
        where = "TO STDOUT" if stmt.to else "FROM STDIN"
        raise errors.NotSupportedError(
            f"COPY {where} is not supported here: name a file (COPY ... {'TO' if stmt.to else 'FROM'} "
            f"'/path'), use \\copy in the txlake shell, or cursor.copy_expert(sql, file) in Python")
    if stmt.table is not None and (version := ctx.lookup(stmt.table)) is not None and version.schema.generated:
        stmt = generated.copied(version.schema, stmt)  # (without its generated columns, as PostgreSQL's)
    if stmt.to:
        return _copy_to(executor, ctx, stmt, params)
    return _copy_from(executor, ctx, stmt, params)


# --- COPY FROM -----------------------------------------------------------------------------

@dataclass
class _Batch:
    """Rows of the file: one column per target column (strings, or Parquet's own types), and
    the line (CSV, text: the record; Parquet: the row) of the first."""

    data: pa.Table
    first_line: int
    text: list[str] | None = None  # text format: each row's line as read, for error context


def _copy_from(executor: Executor, ctx: Context, stmt: st.Copy, params) -> Result:
    version = executor._writable(ctx, stmt.table)
    if version.is_sequence:
        raise errors.WrongObjectType(f'cannot copy to sequence "{version.name}"')
    schema = version.schema
    insert = st.Insert(table=stmt.table, columns=stmt.columns)
    names = executor._target_columns(schema, insert)
    targets = [schema.column(n) for n in names]
    for option, listed in (("FORCE_NOT_NULL", stmt.options.force_not_null), ("FORCE_NULL", stmt.options.force_null)):
        for name in listed if listed != "*" else ():
            schema.require(name, version.name)
            if name not in names:
                raise errors.ProgrammingError(f'{option} column "{name}" not referenced by COPY', sqlstate="42P10")
    _check_readable(stmt.file)
    relation = version.name
    count, batches = 0, 0
    copying = triggers.Copying(executor, ctx, version) if schema.triggers and triggers.fires(schema, "INSERT") \
        else None  # (a table without INSERT triggers: the batches go in as they are)
    for batch in _batches(stmt, targets, relation):
        ctx.check_interrupts()
        rows, batch, failure = _convert(executor, stmt, schema, targets, batch, relation, params)
        if copying is not None:
            rows = copying.before(rows)
        try:
            inserted = executor._insert_batch(ctx, insert, rows, (), check_ssi=False)
        except (errors.NotNullViolation, errors.StringDataRightTruncation, errors.UniqueViolation,
                errors.CheckViolation) as e:
            raise _with_line(e, rows, batch, relation, schema) from None
        count += inserted.num_rows
        if copying is not None:
            copying.inserted(inserted)
        if failure is not None:  # (after the rows before it: a constraint one of them breaks comes first)
            raise failure
        batches += 1
    if not batches:
        executor._insert_batch(ctx, insert, schema.arrow_schema().empty_table(), (), check_ssi=False)
    if copying is not None:
        copying.end()
    executor._check_ssi(ctx, ctx.resolve(stmt.table))
    return Result(rowcount=count, status=f"COPY {count}")


def _check_readable(path: str) -> None:
    if os.path.isdir(path):
        raise errors.WrongObjectType(f'"{path}" is a directory')


def _open_error(e: OSError, path: str, mode: str) -> errors.Error:
    return errors.file_error(e, f'could not open file "{path}" for {mode}')


def _batches(stmt: st.Copy, targets: list[Column], relation: str) -> Iterator[_Batch]:
    fmt = stmt.options.format
    if fmt == "text":
        return _text_batches(stmt, targets, relation)
    if fmt == "csv":
        return _csv_batches(stmt, targets, relation)
    return _parquet_batches(stmt, targets)


def _context(relation: str, line: int, column: str | None = None, value: str | None = None,
             text: str | None = None) -> str:
    """PostgreSQL's CONTEXT line of a COPY error."""
    where = f"COPY {relation}, line {line}"
    if column is not None:
        where += f", column {column}"
        return where + (f': "{value}"' if value is not None else ": null input")
    return where + (f': "{text}"' if text is not None else "")


def _count_error(relation: str, line: int, text: str, got: int, targets: list[Column]) -> errors.Error:
    if got > len(targets):
        message = "extra data after last expected column"
    else:
        message = f'missing data for column "{targets[got].name}"'
    return errors.BadCopyFileFormat(f"{message}\nCONTEXT:  {_context(relation, line, text=text)}")


def _check_header(fields: list, targets: list[Column], relation: str, line: int = 1) -> None:
    """HEADER MATCH: the header line names the columns, in order (PostgreSQL 15+)."""
    if len(fields) != len(targets):
        raise errors.BadCopyFileFormat(
            f"wrong number of fields in header line: got {len(fields)}, expected {len(targets)}\n"
            f"CONTEXT:  {_context(relation, line)}")
    for i, (got, col) in enumerate(zip(fields, targets), 1):
        if got is None:
            raise errors.BadCopyFileFormat(
                f'column name mismatch in header line field {i}: got null value, expected "{col.name}"\n'
                f"CONTEXT:  {_context(relation, line)}")
        if got != col.name:
            raise errors.BadCopyFileFormat(
                f'column name mismatch in header line field {i}: got "{got}", expected "{col.name}"\n'
                f"CONTEXT:  {_context(relation, line)}")


def _text_batches(stmt: st.Copy, targets: list[Column], relation: str) -> Iterator[_Batch]:
    """The text format: a line a row, fields split at the delimiter (not an escaped one), a
    field that reads as the NULL string (before unescaping) NULL, ``\\.`` alone ends the data."""
    opts = stmt.options
    delimiter, null, width = opts.delimiter, opts.null, len(targets)
    splitter = re.compile(r"\\.|" + re.escape(delimiter), re.S)
    try:
        f = open(stmt.file, encoding=opts.encoding, newline=None)
    except OSError as e:
        raise _open_error(e, stmt.file, "reading") from None
    with f:
        rows: list[list] = []
        lines: list[str] = []
        line_number = 0
        first = 1
        with _reading(stmt, relation):
            for raw in f:
                line_number += 1
                line = raw[:-1] if raw.endswith("\n") else raw
                if line_number == 1 and opts.header:
                    if opts.header == "match":
                        _check_header([_unescape(v) if v != null else None for v in _split(line, splitter, delimiter)],
                                      targets, relation)
                    first = 2
                    continue
                if line == "\\.":
                    break
                if "\\" not in line:
                    fields = line.split(delimiter)
                    if null in fields:
                        fields = [None if v == null else v for v in fields]
                else:
                    fields = [None if v == null else _unescape(v) for v in _split(line, splitter, delimiter)]
                if len(fields) != width:  # (the rows before it first: a bad value there is the error)
                    if rows:
                        yield _Batch(_string_table(rows, width), first, lines)
                    raise _count_error(relation, line_number, line, len(fields), targets)
                rows.append(fields)
                lines.append(line)
                if len(rows) == BATCH_ROWS:
                    yield _Batch(_string_table(rows, width), first, lines)
                    first, rows, lines = line_number + 1, [], []
        if rows:
            yield _Batch(_string_table(rows, width), first, lines)


def _split(line: str, splitter: re.Pattern, delimiter: str) -> list[str]:
    """The fields of a text-format line, as written (an escaped delimiter is no split)."""
    fields, start = [], 0
    for m in splitter.finditer(line):
        if m.group() == delimiter:
            fields.append(line[start:m.start()])
            start = m.end()
    fields.append(line[start:])
    return fields


def _unescape(field: str) -> str:
    if "\\" not in field:
        return field

    def one(m: re.Match) -> str:
        code = m.group(1)
        if code[0] == "x" and len(code) > 1:
            return chr(int(code[1:], 16))
        if code[0] in "01234567":
            return chr(int(code, 8) & 0xFF)
        return _ESCAPED.get(code, code)
    return _ESCAPE.sub(one, field)


def _string_table(rows: list[list], width: int) -> pa.Table:
    columns = list(zip(*rows)) if rows else [()] * width
    return pa.table({f"c{i}": pa.array(values, pa.string()) for i, values in enumerate(columns)})


def _csv_batches(stmt: st.Copy, targets: list[Column], relation: str) -> Iterator[_Batch]:
    """CSV: an unquoted field equal to the NULL string is NULL, a quoted one is a value
    (FORCE_NULL makes it NULL too, FORCE_NOT_NULL the first a value). Through pyarrow's
    streaming reader - but for an ESCAPE other than the QUOTE, which PostgreSQL applies inside
    quotes only (pyarrow's escape character works outside them too: ``a\\b`` lost its
    backslash), read by ``_csv_records``."""
    opts = stmt.options
    names = [f"c{i}" for i in range(len(targets))]
    tables = _csv_tables(stmt, targets, relation) if opts.escape != opts.quote else \
        _pyarrow_csv_tables(stmt, targets, relation)
    force_not_null = _indexes(opts.force_not_null, targets)
    force_null = _indexes(opts.force_null, targets)
    for data, first, bad in tables:
        for i in force_not_null:
            data = data.set_column(i, names[i], pc.fill_null(data.column(i), opts.null))
        for i in force_null:
            column = data.column(i)
            data = data.set_column(i, names[i], pc.if_else(pc.equal(column, opts.null),
                                                           pa.scalar(None, pa.string()), column))
        if data.num_rows:
            yield _Batch(data, first)
        if bad is not None:
            raise bad


def _pyarrow_csv_tables(stmt: st.Copy, targets: list[Column], relation: str):
    """The CSV file's rows through pyarrow's streaming reader: (string columns, the line of the
    first, the error of the line after the last or None) in turn."""
    opts = stmt.options
    width = len(targets)
    names = [f"c{i}" for i in range(width)]
    bad_rows = []

    def invalid(row) -> str:  # (skipped here: the rows before it are converted first, as PostgreSQL goes)
        bad_rows.append(row)
        return "skip" if row.number is not None else "error"
    read = pacsv.ReadOptions(column_names=names, skip_rows=1 if opts.header is True else 0, use_threads=False,
                             block_size=CSV_BLOCK_BYTES, encoding=opts.encoding)
    parse = pacsv.ParseOptions(delimiter=opts.delimiter, quote_char=opts.quote, double_quote=True,
                               escape_char=False, newlines_in_values=True, ignore_empty_lines=False,
                               invalid_row_handler=invalid)
    convert = pacsv.ConvertOptions(column_types={n: pa.string() for n in names}, strings_can_be_null=True,
                                   quoted_strings_can_be_null=False, null_values=[opts.null])
    first = 2 if opts.header else 1
    header = opts.header == "match"

    def failure(e: Exception | None) -> errors.Error:
        if bad_rows:
            row = bad_rows[0]
            return _count_error(relation, row.number or 0, row.text, row.actual_columns, targets)
        text = str(e)
        if "UTF8" in text or "utf8" in text.lower():
            line, byte = _undecodable(stmt.file, "utf-8") or (None, b"")
            return errors.DataError(f'invalid byte sequence for encoding "UTF8"{": 0x" + byte.hex() if byte else ""}'
                                    f"\nCONTEXT:  {_context(relation, line) if line else 'COPY ' + relation}",
                                    sqlstate="22021")
        return errors.BadCopyFileFormat(f"{text}\nCONTEXT:  COPY {relation}")
    try:
        reader = pacsv.open_csv(stmt.file, read, parse, convert)
    except OSError as e:
        raise _open_error(e, stmt.file, "reading") from None
    except pa.ArrowInvalid as e:
        if "Empty CSV file" in str(e):
            return
        raise failure(e) from None
    with reader:
        while True:
            try:
                batch = reader.read_next_batch()
            except StopIteration:
                if bad_rows:
                    raise failure(None) from None
                return
            except pa.ArrowInvalid as e:
                raise failure(e) from None
            except OSError as e:
                raise errors.file_error(e, f'could not read from COPY file "{stmt.file}"') from None
            data = pa.Table.from_batches([batch])
            if header:
                header = False
                names_given = list(data.slice(0, 1).to_pylist()[0].values()) if data.num_rows else []
                _check_header(names_given, targets, relation)
                data = data.slice(1)
            row = bad_rows[0] if bad_rows and bad_rows[0].number - first <= data.num_rows else None
            bad = None
            if row is not None:  # a line of the wrong width: the rows before it, then its error
                data = data.slice(0, row.number - first)
                bad = _count_error(relation, row.number, row.text, row.actual_columns, targets)
            yield data, first, bad
            if bad is not None:
                return
            first += data.num_rows


@contextlib.contextmanager
def _reading(stmt: st.Copy, relation: str):
    """A COPY file's read errors as PostgreSQL gives them: bytes that are not UTF-8 (22021, at
    their line), or the file failing (``errors.file_error``)."""
    try:
        yield
    except UnicodeDecodeError as e:
        line, byte = _undecodable(stmt.file, e.encoding) or (None, e.object[e.start:e.start + 1])
        raise errors.DataError(f'invalid byte sequence for encoding "UTF8": 0x{byte.hex()}'
                               + (f"\nCONTEXT:  {_context(relation, line)}" if line else ""),
                               sqlstate="22021") from None
    except OSError as e:
        raise errors.file_error(e, f'could not read from COPY file "{stmt.file}"') from None


def _undecodable(path: str, encoding: str) -> tuple[int, bytes] | None:
    """(line number, first byte) of the first line of ``path`` that is not ``encoding``: a text
    file decodes a block at a time, so its error does not say which line (read again, the
    error's path only)."""
    with open(path, "rb") as f:
        for number, raw in enumerate(f, start=1):
            try:
                raw.decode(encoding)
            except UnicodeDecodeError as e:
                return number, raw[e.start:e.start + 1]
    return None


def _csv_tables(stmt: st.Copy, targets: list[Column], relation: str):
    """The CSV file's rows read by PostgreSQL's rules in Python (``_csv_records``), in batches
    of ``BATCH_ROWS``: as ``_pyarrow_csv_tables`` gives them."""
    opts = stmt.options
    width = len(targets)
    try:
        f = open(stmt.file, encoding=opts.encoding, newline="")
    except OSError as e:
        raise _open_error(e, stmt.file, "reading") from None
    with f:
        rows: list[list] = []
        first = line = 1
        with _reading(stmt, relation):
            for line, fields, text in _csv_records(f, opts, relation):
                if line == 1 and opts.header:
                    if opts.header == "match":
                        _check_header(fields, targets, relation)
                    first = 2
                    continue
                if len(fields) != width:  # (the rows before it first: a bad value there is the error)
                    bad = _count_error(relation, line, text, len(fields), targets)
                    yield _string_table(rows, width), first, bad
                    return
                rows.append(fields)
                if len(rows) == BATCH_ROWS:
                    yield _string_table(rows, width), first, None
                    first, rows = line + 1, []
    if rows:
        yield _string_table(rows, width), first, None


def _csv_records(f, opts: st.CopyOptions, relation: str):
    """(line, fields, text) of each CSV record of ``f`` (a text file read with ``newline=""``),
    as PostgreSQL's COPY reads them: fields split at the delimiter outside quotes; a quote
    anywhere in a field starts a quoted part, up to the next quote, where the ESCAPE character
    before a quote or itself makes that character literal (and is literal before any other);
    a record goes on over line ends inside quotes; an unquoted field that is the NULL string is
    None. ``line`` counts records, as PostgreSQL's COPY counts lines."""
    delimiter, quote, escape, null = opts.delimiter, opts.quote, opts.escape, opts.null
    outside = re.compile("[" + re.escape(delimiter + quote) + "]")
    inside = re.compile("[" + re.escape(quote + escape) + "]")
    line, pending = 0, ""
    for raw in f:
        text = pending + raw
        body = text[:-2] if text.endswith("\r\n") else text[:-1] if text.endswith(("\n", "\r")) else text
        fields: list = []
        part: list[str] = []
        saw_quote, i, n = False, 0, len(body)
        complete = True
        while True:
            m = outside.search(body, i)
            if m is None:
                part.append(body[i:])
                break
            part.append(body[i:m.start()])
            i = m.end()
            if m.group() == delimiter:
                value = "".join(part)
                fields.append(None if not saw_quote and value == null else value)
                part, saw_quote = [], False
                continue
            saw_quote = True
            while True:
                m = inside.search(body, i)
                if m is None:
                    complete = False
                    break
                part.append(body[i:m.start()])
                i = m.end()
                if m.group() == escape:
                    if i < n and body[i] in (escape, quote):
                        part.append(body[i])
                        i += 1
                    else:
                        part.append(escape)
                    continue
                break  # (the closing quote)
            if not complete:
                break
        if not complete:
            pending = text  # (a line end inside quotes is the value's: the record goes on)
            continue
        value = "".join(part)
        fields.append(None if not saw_quote and value == null else value)
        pending = ""
        line += 1
        yield line, fields, body
    if pending:
        line += 1
        raise errors.BadCopyFileFormat(f"unterminated CSV quoted field\nCONTEXT:  {_context(relation, line)}")


def _indexes(columns, targets: list[Column]) -> list[int]:
    if columns == "*":
        return list(range(len(targets)))
    return [i for i, col in enumerate(targets) if col.name in columns]


def _parquet_batches(stmt: st.Copy, targets: list[Column]) -> Iterator[_Batch]:
    """A Parquet file's columns named as the target columns, or else as many as there are
    targets, in order; values cast to the columns' types as an INSERT ... SELECT casts them."""
    import pyarrow.parquet as pq
    try:
        file = pq.ParquetFile(stmt.file)
    except OSError as e:
        raise _open_error(e, stmt.file, "reading") from None
    except pa.ArrowInvalid as e:
        raise errors.BadCopyFileFormat(f'"{stmt.file}" is not a Parquet file: {e}') from None
    with file:
        have = file.schema_arrow.names
        if all(col.name in have for col in targets):
            picked = [col.name for col in targets]
        elif len(have) == len(targets):
            picked = have
        else:
            raise errors.BadCopyFileFormat(
                f"the Parquet file has {len(have)} columns ({', '.join(have)}), and not every column "
                f"COPY loads ({', '.join(col.name for col in targets)})")
        first = 1
        for batch in file.iter_batches(batch_size=BATCH_ROWS, columns=picked, use_threads=False):
            data = pa.Table.from_batches([batch]).rename_columns([f"c{i}" for i in range(len(picked))])
            yield _Batch(data, first)
            first += data.num_rows


def _convert(executor: Executor, stmt: st.Copy, schema, targets: list[Column], batch: _Batch,
             relation: str, params) -> tuple[pa.Table, _Batch, errors.Error | None]:
    """A batch's rows as the table's rows: each field by its column type's input rules, the
    other columns their defaults; the rows COPY ... WHERE keeps. A field that is no value of its
    type fails the statement, as PostgreSQL reports it: the first such row, its first such column
    (whether or not WHERE would keep the row: PostgreSQL converts first). Returns the rows (those
    before such a row), the batch they come from, and the error (or None)."""
    data = batch.data
    supplied = {col.name: i for i, col in enumerate(targets)}
    problems = []  # (row, column index, error class or None: a failed cast, to be told)
    for i, col in enumerate(targets):
        data = _check_syntax(data, i, col, problems)
    projections = []
    for col in schema.columns:
        i = supplied.get(col.name)
        if i is None and col.type.kind in _READ_FIRST:  # (its text, as stored)
            value = _cast_sql(_default_sql(col.default) if col.default else "NULL", col.type)
        elif i is None:
            value = f"CAST({_default_sql(col.default)} AS {col.type.sql()})" if col.default else \
                f"CAST(NULL AS {col.type.sql()})"
        elif col.type.kind == "VARCHAR" and pa.types.is_string(data.field(i).type):
            value = f'"c{i}"'
        elif col.type.kind in ("DATE", "TIMESTAMP", "TIMESTAMPTZ") and pa.types.is_string(data.field(i).type):
            value = _time_input(f'"c{i}"', col.type.sql())
        elif col.type.kind == "BYTEA" and pa.types.is_string(data.field(i).type):  # (its syntax checked)
            value = f'{BYTEA_MACRO}("c{i}")'
        elif col.type.kind in ("ARRAY", *_READ_FIRST):  # (an array's text: a malformed one or element fails the batch;
            value = _cast_sql(f'"c{i}"', col.type)  # an interval's, an inet's: read first, _check_syntax)
        elif col.type.kind in _JSON_TRY_IN and pa.types.is_string(data.field(i).type):  # (NULL if no JSON)
            value = f'{_JSON_TRY_IN[col.type.kind]}("c{i}")'
        else:
            value = f'TRY_CAST("c{i}" AS {col.type.sql()})'
        projections.append(f"{value} AS {_quoted(col.name)}")
    with executor._registered() as register:
        source = register(data)
        sql = f"SELECT {', '.join(projections)} FROM {source}"
        if stmt.where is not None:
            where = stmt.where.sql(dialect="duckdb")
            sql = f"SELECT *, ({where}) AS {_KEEP} FROM ({sql}) AS {_quoted(relation)}"
        result = executor._sql(sql, params if stmt.where is not None else ())
    _failed_casts(data, result, targets, problems)
    failure = None
    if problems:
        row, i, error = min(problems, key=lambda p: (p[0], p[1]))
        col, value = targets[i], batch.data.column(i)[row].as_py()
        failure = _value_error(error or _cast_error(executor, value, col), value, col, batch.first_line + row,
                               relation)
        result = result.slice(0, row)
        batch = _Batch(batch.data.slice(0, row), batch.first_line, batch.text[:row] if batch.text else None)
    if stmt.where is not None:
        result = result.filter(pc.fill_null(result.column(_KEEP), False)).drop_columns([_KEEP])
    return executor._conform(result, schema), batch, failure


def _time_input(field: str, type_sql: str) -> str:
    """A date or timestamp field as PostgreSQL reads it, with its special inputs: ``now`` (the
    transaction's start), ``today``, ``yesterday``, ``tomorrow`` (its day's midnight)."""
    day = f"CAST({CLOCK_FUNCTION}() AS DATE)"
    cases = {word: f"{CLOCK_FUNCTION}()" if days is None else f"{day} + {days}"
             for word, days in SPECIAL_DAYS.items()}
    whens = " ".join(f"WHEN '{word}' THEN CAST({sql} AS {type_sql})" for word, sql in cases.items())
    return f"CASE lower(trim({field})) {whens} ELSE TRY_CAST({field} AS {type_sql}) END"


def _quoted(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def _check_syntax(data: pa.Table, i: int, col: Column, problems: list) -> pa.Table:
    """PostgreSQL's input rules where DuckDB's casts are looser (the first row breaking them goes
    to ``problems``); booleans made DuckDB's words."""
    column = data.column(i)
    if not pa.types.is_string(column.type) or column.null_count == len(column):
        return data
    kind = col.type.kind
    if kind == "BOOLEAN":
        words = pc.utf8_lower(pc.utf8_trim_whitespace(column))
        true, false = pc.is_in(words, pa.array(_TRUE)), pc.is_in(words, pa.array(_FALSE))
        _first(pc.and_(pc.invert(pc.or_(true, false)), pc.is_valid(column)), i, errors.InvalidTextRepresentation,
               problems)
        return data.set_column(i, data.field(i), pc.if_else(true, "true", pc.if_else(false, "false", None)))
    pattern = _SYNTAX.get(kind)
    if pattern is not None:
        bad = pc.invert(pc.match_substring_regex(column, pattern))
        _first(bad, i, errors.InvalidTextRepresentation, problems)
        if pattern is INTEGER_INPUT:  # (0x1F, 0o17, 0b101: their decimal text, which DuckDB's cast takes)
            data = _decimal_integers(data, i, bad)
        if kind == "BYTEA":  # (its input function raises: the rows from the first bad one are not loaded)
            data = data.set_column(i, data.field(i), pc.if_else(pc.fill_null(bad, False), None, column))
    if kind in _READ_FIRST:  # (PostgreSQL's input: the first text it refuses is the error, none reaches the cast)
        bad = [_refused(kind, text) for text in column.to_pylist()]
        if any(bad):
            first = next(row for row, refused in enumerate(bad) if refused)
            problems.append((first, i, bad[first]))
            data = data.set_column(i, data.field(i), pc.if_else(pa.array([r is not None for r in bad]), None, column))
    if kind in ("DATE", "TIMESTAMP", "TIMESTAMPTZ"):  # (DuckDB reads 'infinity': PostgreSQL's types have it, txlake's not)
        _first(pc.match_substring_regex(column, _INFINITE), i, errors.DatetimeFieldOverflow, problems)
    return data


# the kinds whose text is read by PostgreSQL's input in Python before the batch is cast
_READ_FIRST = ("INTERVAL", "INET", "CIDR")


def _refused(kind: str, text: str | None):
    """The error class of a text of ``kind`` (``_READ_FIRST``) PostgreSQL's input refuses
    (``_value_error`` words it), or None."""
    error = _input_error(kind, text) if text is not None else None
    return functools.partial(by_sqlstate, error.sqlstate) if error is not None else None


def _input_error(kind: str, text: str) -> Exception | None:
    """PostgreSQL's input error for ``text`` of ``kind`` (``_READ_FIRST``), or None."""
    try:
        if kind == "INTERVAL":
            interval_input.interval_in(text)
        else:
            inet_input.inet_in(text, kind == "CIDR")
    except (interval_input.IntervalInputError, inet_input.InetInputError) as e:
        return e
    return None


def _decimal_integers(data: pa.Table, i: int, bad) -> pa.Table:
    """Column ``i``'s hexadecimal, octal and binary integers (PostgreSQL 16's input) as decimal
    text; a file without any is passed as it is."""
    column = data.column(i)
    radix = pc.and_(pc.match_substring_regex(column, r"^\s*[+-]?0[xXoObB]"), pc.invert(bad))
    if not pc.any(radix).as_py():
        return data
    values = [str(integer_input(v)) if r else v for v, r in zip(column.to_pylist(), radix.to_pylist())]
    return data.set_column(i, data.field(i), pa.array(values, pa.string()))


def _first(mask, i: int, error, problems: list) -> None:
    """The first row ``mask`` marks (nulls in it are not marked), if any, into ``problems``."""
    mask = pc.fill_null(mask, False)
    if pc.any(mask).as_py():
        problems.append((pc.index(mask, True).as_py(), i, error))


def _failed_casts(data: pa.Table, result: pa.Table, targets: list[Column], problems: list) -> None:
    """A field whose cast came out NULL was no value of its type (TRY_CAST): each column's first."""
    for i, col in enumerate(targets):
        source, cast = data.column(i), result.column(col.name)
        failed = pc.and_(pc.is_null(cast), pc.is_valid(source))
        if col.type.kind in ("DOUBLE", "REAL") and pa.types.is_string(source.type):  # 1e400: too large, not infinity
            failed = pc.or_(failed, pc.and_(pc.is_inf(cast), pc.invert(pc.match_substring_regex(source, _INFINITE))))
        if col.type.kind == "REAL" and pa.types.is_string(source.type):  # 1e-50: too small for a real, not 0
            nonzero = pc.invert(pc.match_substring_regex(source, r"(?i)^\s*[+-]?(0*\.?0*)(e[+-]?\d+)?\s*$"))
            failed = pc.or_(failed, pc.and_(pc.equal(cast, 0), nonzero))
        _first(failed, i, None, problems)


def _value_error(error, value, col: Column, line: int, relation: str) -> errors.Error:
    """``error`` (a class) for ``value`` of column ``col``, in PostgreSQL's words and CONTEXT."""
    type_name = _TYPE_NAMES[col.type.kind]
    context = _context(relation, line, col.name, str(value))
    if col.type.kind in _READ_FIRST and (refused := _input_error(col.type.kind, value)) is not None:
        detail = getattr(refused, "detail", None)  # (``_refused``'s, with PostgreSQL's words for the text)
        return error(f"{refused}" + (f"\nDETAIL:  {detail}" if detail else "") + f"\nCONTEXT:  {context}")
    if error is errors.DatetimeFieldOverflow:
        return errors.DatetimeFieldOverflow(f'date/time field value out of range: "{value}"\nCONTEXT:  {context}')
    if error is errors.NumericValueOutOfRange:
        if col.type.kind == "DECIMAL":
            return errors.NumericValueOutOfRange(
                f"numeric field overflow\nDETAIL:  A field with precision {col.type.precision}, scale "
                f"{col.type.scale} must round to an absolute value less than "
                f"10^{col.type.precision - col.type.scale}.\nCONTEXT:  {context}")
        if col.type.kind in ("DOUBLE", "REAL"):
            return errors.NumericValueOutOfRange(
                f'"{value}" is out of range for type {type_name}\nCONTEXT:  {context}')
        return errors.NumericValueOutOfRange(
            f'value "{value}" is out of range for type {type_name}\nCONTEXT:  {context}')
    if col.type.kind in _DATETIMES:
        error = errors.InvalidDatetimeFormat
    return error(f'invalid input syntax for type {type_name}: "{value}"\nCONTEXT:  {context}')


def _cast_error(executor: Executor, value, col: Column):
    """Which error the cast of ``value`` is: a value out of the type's range, or no value of it."""
    if col.type.kind in ("DOUBLE", "REAL"):
        return errors.NumericValueOutOfRange
    try:
        executor._sql(f"SELECT CAST(? AS {col.type.sql()})", [value])
    except errors.DatetimeFieldOverflow:
        return errors.DatetimeFieldOverflow
    except errors.NumericValueOutOfRange:
        return errors.NumericValueOutOfRange
    except errors.Error:
        pass
    if col.type.kind in ("SMALLINT", "INT", "BIGINT", "DECIMAL") and isinstance(value, str):
        return errors.NumericValueOutOfRange  # (its syntax passed _check_syntax)
    return errors.InvalidTextRepresentation


def _with_line(e: errors.Error, rows: pa.Table, batch: _Batch, relation: str, schema) -> errors.Error:
    """A NOT NULL, VARCHAR(n), CHECK or duplicate key error with the line (and column) of the
    row that fails it."""
    if rows.num_rows != batch.data.num_rows:  # (WHERE dropped rows: their lines are not known)
        return e
    row = column = value = None
    if isinstance(e, errors.UniqueViolation):
        found = re.search(r"Key \((.*?)\)=\((.*)\) already exists", str(e))
        names = tuple(found.group(1).split(", ")) if found is not None else ()  # (the primary key's or a UNIQUE's)
        at = [i for i, k in enumerate(pk.key_tuples(rows, names))
              if found is not None and key_text(k) == found.group(2)] if set(names) <= set(rows.column_names) else []
        # (the file's second row of a key clashes with its first; a single one with the table's)
        row = at[1] if len(at) > 1 else at[0] if at else None
    elif isinstance(e, errors.CheckViolation):
        row = getattr(e, "row", None)  # (engine/checks.py: its place in the batch)
    elif isinstance(e, errors.NotNullViolation):
        found = re.search(r'column "(.+?)"', str(e))
        if found is not None and found.group(1) in rows.column_names:
            nulls = pc.is_null(rows.column(found.group(1)))
            row = pc.index(nulls, True).as_py() if pc.any(nulls).as_py() else None
    else:
        for col in schema.columns:
            if col.type.kind != "VARCHAR" or not col.type.length:
                continue
            values = rows.column(col.name)
            beyond = pc.utf8_rtrim(pc.utf8_slice_codeunits(values, col.type.length), characters=" ")
            over = pc.fill_null(pc.not_equal(beyond, ""), False)
            if pc.any(over).as_py():
                at = pc.index(over, True).as_py()
                if row is None or at < row:
                    row, column, value = at, col.name, values[at].as_py()
    if row is None or row < 0:
        return e
    if column is not None:
        context = _context(relation, batch.first_line + row, column, value)
    else:
        context = _context(relation, batch.first_line + row, text=batch.text[row] if batch.text is not None else None)
    return type(e)(f"{e}\nCONTEXT:  {context}")


# --- COPY TO -------------------------------------------------------------------------------

def _copy_to(executor: Executor, ctx: Context, stmt: st.Copy, params) -> Result:
    query = stmt.query
    executor._read_query(ctx, query, params)
    if query.locks:
        executor.refuse_row_by_row_locking(query, "COPY")
        executor._lock_selected(ctx, query, params)
    target = stmt.file
    if not os.path.isabs(target):
        target = os.path.abspath(target)
    if os.path.isdir(target):
        raise errors.WrongObjectType(f'could not open file "{stmt.file}" for writing: Is a directory')
    root = os.path.realpath(executor.db.warehouse.root)
    if os.path.commonpath([root, os.path.realpath(target)]) == root:  # (a data file, the log: txlake's alone)
        raise errors.ProgrammingError(f'could not open file "{stmt.file}" for writing: the file is inside the '
                                      "warehouse, whose files only txlake writes", sqlstate="42501")
    folder = os.path.dirname(target)
    temporary = os.path.join(folder, f".{os.path.basename(target)}.{uuid.uuid4().hex[:12]}.tmp")
    try:
        out = open(temporary, "w", encoding=stmt.options.encoding, newline="") \
            if stmt.options.format != "parquet" else open(temporary, "wb")
    except OSError as e:
        raise _open_error(e, stmt.file, "writing") from None
    try:
        with out:
            count = executor._over_tables(
                ctx, query, lambda sql: _write(executor, sql, params, stmt.options, out, ctx.check_interrupts))
            out.flush()
            os.fsync(out.fileno())
        os.replace(temporary, target)
    except BaseException as e:
        try:
            os.unlink(temporary)
        except OSError:
            pass
        if isinstance(e, OSError):
            raise errors.file_error(e, f'could not write to COPY file "{stmt.file}"') from None
        raise
    return Result(rowcount=count, status=f"COPY {count}")


def _write(executor: Executor, sql: str, params, opts: st.CopyOptions, out, check_interrupts) -> int:
    """The rows of query ``sql`` into ``out``, batch by batch as DuckDB makes them; their count."""
    if opts.format == "parquet":
        return _write_parquet(executor, sql, params, out, check_interrupts)
    names = executor._columns_of(sql, params)
    missing = next((n for n in opts.force_quote if n not in names), None) if opts.force_quote != "*" else None
    if missing is not None:
        raise errors.ProgrammingError(f'FORCE_QUOTE column "{missing}" not referenced by COPY', sqlstate="42P10")
    render = _csv_line(opts, names) if opts.format == "csv" else _text_line(opts)
    if opts.header:
        out.write(render(names, header=True))
    count = 0
    for batch in executor._stream(sql, params):
        check_interrupts()
        columns = [_text_cells(c) for c in batch.columns]
        out.write("".join(render(row) for row in zip(*columns)))
        count += batch.num_rows
    return count


def _write_parquet(executor: Executor, sql: str, params, out, check_interrupts) -> int:
    import pyarrow.parquet as pq
    writer, count = None, 0
    try:
        for batch in executor._stream(sql, params):
            check_interrupts()
            if writer is None:
                writer = pq.ParquetWriter(out, batch.schema)
            writer.write_table(batch)
            count += batch.num_rows
        if writer is None:  # no rows: the columns alone (their types from DuckDB's binder)
            empty = executor._sql(f"SELECT * FROM ({sql}) AS q LIMIT 0", params)
            writer = pq.ParquetWriter(out, empty.schema)
            writer.write_table(empty)
    finally:
        if writer is not None:
            writer.close()
    return count


def _text_cells(column: pa.ChunkedArray) -> list:
    """A column's values as PostgreSQL's text output of them (None for NULL)."""
    t = column.type
    if pa.types.is_string(t) or pa.types.is_large_string(t):
        return column.to_pylist()
    if pa.types.is_integer(t):
        return column.cast(pa.string()).to_pylist()
    if pa.types.is_boolean(t):
        return pc.if_else(column, "t", "f").to_pylist()
    if t == pa.month_day_nano_interval():
        return [None if v is None else pg_text.pg_interval(*v) for v in column.to_pylist()]
    values = [row[0] for row in python_rows(pa.table({"v": column}))]
    return [None if v is None else pg_text.format_value(v) for v in values]


def _text_line(opts: st.CopyOptions):
    """The text format's line of a row: special characters backslash-escaped, NULL as its string."""
    delimiter, null = opts.delimiter, opts.null
    table = {"\\": "\\\\", "\n": "\\n", "\r": "\\r", "\t": "\\t", "\b": "\\b", "\f": "\\f", "\v": "\\v"}
    table.setdefault(delimiter, "\\" + delimiter)
    escapes = str.maketrans(table)
    special = re.compile("[" + re.escape("".join(table)) + "]")

    def line(row, header: bool = False) -> str:
        return delimiter.join(null if v is None else v.translate(escapes) if special.search(v) else v
                              for v in row) + "\n"
    return line


def _csv_line(opts: st.CopyOptions, names: list[str]):
    """The CSV line of a row: a value quoted where it must be (it holds the delimiter, the quote,
    a newline, or reads as the NULL string) or where FORCE_QUOTE says; NULL unquoted."""
    delimiter, quote, escape, null = opts.delimiter, opts.quote, opts.escape, opts.null
    forced = set(range(len(names))) if opts.force_quote == "*" else \
        {i for i, n in enumerate(names) if n in opts.force_quote}
    needs = re.compile("[" + re.escape(delimiter + quote + "\r\n") + "]")

    def quoted(v: str) -> str:
        body = v.replace(escape, escape + escape) if escape != quote else v
        return quote + body.replace(quote, escape + quote) + quote

    def line(row, header: bool = False) -> str:
        cells = []
        for i, v in enumerate(row):
            if v is None:
                cells.append(null)
            elif (i in forced and not header) or v == null or needs.search(v) or v == "\\.":
                cells.append(quoted(v))
            else:
                cells.append(v)
        return delimiter.join(cells) + "\n"
    return line
