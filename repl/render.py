"""Rendering results and errors for people: psql-like aligned tables and command tags."""

from __future__ import annotations

import decimal

import pyarrow as pa


def format_value(value) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "t" if value else "f"
    if isinstance(value, decimal.Decimal):
        return str(value)
    return str(value)


def render_table(table: pa.Table, max_rows: int | None = None) -> str:
    names = table.column_names
    rows = [[format_value(v) for v in row] for row in zip(*(c.to_pylist() for c in table.columns))] \
        if names else []
    shown = rows if max_rows is None else rows[:max_rows]
    widths = [max([len(n), *(len(r[i]) for r in shown)]) for i, n in enumerate(names)]
    numeric = [pa.types.is_integer(f.type) or pa.types.is_floating(f.type) or pa.types.is_decimal(f.type)
               for f in table.schema]
    lines = [" " + " | ".join(n.center(w) for n, w in zip(names, widths)),
             "-" + "-+-".join("-" * w for w in widths) + "-"]
    for r in shown:
        cells = [v.rjust(w) if num else v.ljust(w) for v, w, num in zip(r, widths, numeric)]
        lines.append(" " + " | ".join(cells).rstrip())
    count = len(rows)
    if max_rows is not None and count > max_rows:
        lines.append(f"... ({count - max_rows} more rows)")
    lines.append(f"({count} row{'s' if count != 1 else ''})")
    return "\n".join(lines)


def render_error(error: Exception) -> str:
    sqlstate = getattr(error, "sqlstate", None)
    message = str(error)
    head, _, detail = message.partition("\n")
    text = f"ERROR:  {head}"
    if detail:
        text += "\n" + detail
    if sqlstate:
        text += f"\nSQLSTATE: {sqlstate}"
    return text
