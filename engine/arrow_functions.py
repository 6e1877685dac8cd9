"""Python functions of one row's values as DuckDB functions of Arrow arrays: what
engine/dialect.py registers for PostgreSQL's functions DuckDB lacks."""

from __future__ import annotations

import pyarrow as pa


def of_rows(function, arity: int, result: pa.DataType, strict: bool = True):
    """``function`` of ``arity`` values as a DuckDB function of ``arity`` Arrow arrays giving
    ``result``; ``strict``: a row with a NULL gives NULL without a call, as PostgreSQL's strict
    functions (register it with ``null_handling="special"`` where ``function`` may give NULL)."""
    def run(*columns):
        rows = zip(*(c.to_pylist() for c in columns))
        return pa.array([None if strict and None in row else function(*row) for row in rows], result)
    # (DuckDB counts the parameters a function names)
    return {1: lambda a: run(a), 2: lambda a, b: run(a, b), 3: lambda a, b, c: run(a, b, c),
            4: lambda a, b, c, d: run(a, b, c, d), 6: lambda a, b, c, d, e, f: run(a, b, c, d, e, f),
            7: lambda a, b, c, d, e, f, g: run(a, b, c, d, e, f, g)}[arity]
