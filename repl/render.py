"""Rendering results and errors for people and for scripts.

The result formats psql has: ``aligned`` (a header, a rule, right-aligned numbers, a row
count), ``expanded`` (one ``name | value`` block per row, for wide rows), ``unaligned`` (the
values one field separator apart, for scripts: ``txlake -At``) and ``csv`` (RFC 4180, NULL as an
empty unquoted field, the empty string as ``""``). NULL is shown as the shell's null string
(``NULL`` unless ``\\pset null`` changes it), so it never looks like an empty string. A value
of several lines is shown on several in the aligned formats, a ``+`` after each one it goes on
from (psql's). "Tuples only" leaves out the header and the footer; ``footer`` off, the row count.
Aligned and expanded output may be cut to ``max_rows`` rows; the note that says so counts the
rest. Only the rows shown are converted to Python objects.
"""

from __future__ import annotations

import io
import os
import traceback

import pyarrow as pa
from wcwidth import wcwidth

import txlake
from txlake.engine.executor import python_rows
from txlake.engine.pg_text import NULL, format_value, pg_interval

def _cell(value, null: str) -> list[str]:
    """A value's display lines: a text of several lines (``jsonb_pretty``'s) is shown on
    several, as psql shows it; a carriage return or a tab, which would break the alignment, as
    ``\\r`` / ``\\t``."""
    return format_value(value, null).replace("\r", "\\r").replace("\t", "\\t").split("\n")


def _width(text: str | list[str]) -> int:
    return max(map(_cells, text)) if isinstance(text, list) else _cells(text)


def _cells(text: str) -> int:
    """The terminal cells ``text`` takes: two for a wide (East Asian) character, none for a
    combining mark or a control character (wcwidth's -1)."""
    if text.isascii():
        return len(text) if text.isprintable() else sum(c.isprintable() for c in text)
    return sum(max(wcwidth(c), 0) for c in text)


def _pad(text: str, width: int, right: bool = False) -> str:
    fill = " " * max(width - _width(text), 0)
    return fill + text if right else text + fill


def _rows(table: pa.Table, limit: int | None) -> list[tuple]:
    shown = table if limit is None or table.num_rows <= limit else table.slice(0, limit)
    return _shown_rows(shown)


def _shown_rows(table: pa.Table) -> list[tuple]:
    """``table``'s rows as Python values, an INTERVAL as PostgreSQL's text of it (the fetched
    timedelta has no months: '1 mon' would show as 30 days)."""
    intervals = [i for i, f in enumerate(table.schema) if f.type == _INTERVAL]
    if not intervals:
        return python_rows(table)
    for i in intervals:
        text = pa.array([None if v is None else pg_interval(*v) for v in table.column(i).to_pylist()], pa.string())
        table = table.set_column(i, table.field(i).name, text)
    return python_rows(table)


_INTERVAL = pa.month_day_nano_interval()


def _is_numeric(t: pa.DataType) -> bool:
    return pa.types.is_integer(t) or pa.types.is_floating(t) or pa.types.is_decimal(t)


def row_count(n: int) -> str:
    return f"({n} row{'' if n == 1 else 's'})"


def truncation_note(total: int, shown: int) -> str:
    return (f"... {total - shown} more row{'' if total - shown == 1 else 's'} not shown "
            f"(first {shown} of {total}; \\rows N or \\rows all to show more)")


def render_table(table: pa.Table, max_rows: int | None = None, null: str = NULL, tuples_only: bool = False,
                 footer: bool = True) -> str:
    """psql's aligned format, with the row count footer."""
    names = table.column_names
    rows = [[_cell(v, null) for v in row] for row in _rows(table, max_rows)]
    widths = [max([0 if tuples_only else _width(n), *(_width(r[i]) for r in rows)]) for i, n in enumerate(names)]
    numeric = [_is_numeric(f.type) for f in table.schema]
    lines = [] if tuples_only else [" " + " | ".join(_center(n, w) for n, w in zip(names, widths)).rstrip(),
                                    "-" + "-+-".join("-" * w for w in widths) + "-"]
    for r in rows:
        for k in range(max(map(len, r), default=1)):  # (psql's: a + after each line a cell goes on from)
            line = ""
            for i, (cell, w, num) in enumerate(zip(r, widths, numeric)):
                text = cell[k] if k < len(cell) else ""
                line += ("| " if i else " ") + _pad(text, w, right=num and cell != [null]) + \
                    ("+" if k + 1 < len(cell) else " ")
            lines.append(line.rstrip())
    if len(rows) < table.num_rows:
        lines.append(truncation_note(table.num_rows, len(rows)))
    if footer and not tuples_only:
        lines.append(row_count(table.num_rows))
    return "\n".join(lines)


def _center(text: str, width: int) -> str:
    spare = max(width - _width(text), 0)
    return " " * (spare // 2) + text + " " * (spare - spare // 2)


def render_expanded(table: pa.Table, max_rows: int | None = None, null: str = NULL,
                    tuples_only: bool = False) -> str:
    """psql's expanded format (``\\x``): one block of ``column | value`` lines per row (tuples
    only: the blocks without their ``-[ RECORD n ]`` line, a blank line apart)."""
    names = table.column_names
    rows = _rows(table, max_rows)
    if not rows:
        return "" if tuples_only else "(0 rows)"
    name_width = max(_width(n) for n in names) if names else 0
    blocks = []
    for number, row in enumerate(rows, 1):
        values = [_cell(v, null) for v in row]
        width = max([name_width + 3 + _width(v) for v in values] or [0])
        header = f"-[ RECORD {number} ]"
        lines = [] if tuples_only else [header + "-" * max(width - len(header), 1)]
        for n, value in zip(names, values):
            for k, text in enumerate(value):
                more = k + 1 < len(value)
                lines.append((_pad(n if k == 0 else "", name_width) + " | " +
                              (_pad(text, _width(value)) + "+" if more else text)).rstrip())
        blocks.append("\n".join(lines))
    text = ("\n\n" if tuples_only else "\n").join(blocks)
    if len(rows) < table.num_rows:
        text += "\n" + truncation_note(table.num_rows, len(rows))
    return text


def table_width(table: pa.Table, sample: int = 100, null: str = NULL) -> int:
    """The width the aligned format would need (judged on the first ``sample`` rows)."""
    rows = [[_cell(v, null) for v in row] for row in _rows(table, sample)]
    widths = [max([_width(n), *(_width(r[i]) for r in rows)]) for i, n in enumerate(table.column_names)]
    return sum(widths) + 3 * max(len(widths) - 1, 0) + 2


def render_unaligned(table: pa.Table, null: str = "", fieldsep: str = "|", expanded: bool = False,
                     tuples_only: bool = False, footer: bool = True) -> str:
    """psql's unaligned format (``\\a``, ``-A``): a header line and a line per row, the values
    ``fieldsep`` apart as they are (not quoted); expanded, a ``name<fieldsep>value`` line per
    column, the rows a blank line apart. ``tuples_only``: without the header and the footer."""
    names = table.column_names
    lines = []
    for number, row in enumerate(_shown_rows(table)):
        values = [format_value(v, null) for v in row]
        if expanded:
            lines += ([""] if number else []) + [n + fieldsep + v for n, v in zip(names, values)]
        else:
            lines.append(fieldsep.join(values))
    if not tuples_only:
        if not expanded:
            lines.insert(0, fieldsep.join(names))
        if footer and not expanded:
            lines.append(row_count(table.num_rows))
    return "\n".join(lines)


def _csv_field(value) -> str:
    if value is None:
        return ""
    text = format_value(value)
    if text == "" or any(c in text for c in ',"\r\n') or text != text.strip():
        return '"' + text.replace('"', '""') + '"'
    return text


def render_csv(table: pa.Table, header: bool = True) -> str:
    """CSV with a header line (unless not ``header``). NULL is an empty field; the empty string
    is ``""``."""
    out = io.StringIO()
    if header:
        out.write(",".join(_csv_field(n) for n in table.column_names) + "\n")
    for batch in table.to_batches(max_chunksize=10_000):
        for row in _shown_rows(pa.Table.from_batches([batch])):
            out.write(",".join(_csv_field(v) for v in row) + "\n")
    return out.getvalue()[:-1]  # (the last line's newline: print adds it; a row of one NULL is a blank line)


def render_error(error: BaseException, statement: str | None = None) -> str:
    """``ERROR:  SQLSTATE: message``, then - for errors with a position in ``statement`` - the
    offending line with a caret under the position, as psql shows it."""
    sqlstate = getattr(error, "sqlstate", None)
    head, _, detail = str(error).partition("\n")
    lines = [f"ERROR:  {sqlstate}: {head}" if sqlstate else f"ERROR:  {head}"]
    if detail:
        lines.append(detail)
    position = getattr(error, "position", None)
    if statement and isinstance(position, int) and position >= 1:
        lines += caret_lines(statement, position)
    return "\n".join(lines)


def render_error_verbose(error: BaseException, statement: str | None = None) -> str:
    """psql's ``\\errverbose``: the error with every field it has, in libpq's verbose order -
    ``ERROR:  SQLSTATE: message``, the position (under the line, or as a number without the
    statement), DETAIL, HINT, CONTEXT - and LOCATION: where txlake raised it (function, file:line),
    as PostgreSQL names its C function and file."""
    sqlstate = getattr(error, "sqlstate", None) or "XX000"
    diag = error.diag if isinstance(error, txlake.Error) else None
    primary = diag.message_primary if diag else str(error).partition("\n")[0]
    lines = [f"ERROR:  {sqlstate}: {primary}"]
    position = getattr(error, "position", None)
    if isinstance(position, int) and position >= 1:
        lines += caret_lines(statement, position) if statement else [f"POSITION:  {position}"]
    if diag:
        lines += [f"{label}:  {text}" for label, text in (("DETAIL", diag.message_detail), ("HINT", diag.message_hint),
                                                          ("CONTEXT", diag.context)) if text]
    frames = traceback.extract_tb(error.__traceback__) if error.__traceback__ else []
    if frames:
        lines.append(f"LOCATION:  {frames[-1].name}, {os.path.basename(frames[-1].filename)}:{frames[-1].lineno}")
    return "\n".join(lines)


def caret_lines(statement: str, position: int, window: int = 60) -> list[str]:
    """``LINE n: <text>`` and a caret under the 1-based character ``position``."""
    offset = min(position - 1, len(statement))
    line_no = statement.count("\n", 0, offset) + 1
    start = statement.rfind("\n", 0, offset) + 1
    end = statement.find("\n", offset)
    line = statement[start:len(statement) if end == -1 else end].replace("\t", " ")
    column = offset - start
    prefix = ""
    if column > window:  # long line: show a window around the position
        cut = column - window // 2
        line, column, prefix = line[cut:], column - cut, "..."
    if len(line) > column + window:
        line = line[:column + window] + "..."
    label = f"LINE {line_no}: {prefix}"
    return [label + line, " " * (len(label) + _width(line[:column])) + "^"]
