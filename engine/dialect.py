"""DuckDB, set up to compute as PostgreSQL does where their answers differ and a setting
says so. Every DuckDB connection that evaluates a statement's expressions gets it: the
executor's, and SSI's, which re-evaluates a read's WHERE over rows others wrote (the same
predicate must give the same answer there). The rest of the differences are rewritten in the
parsed statement (parser/semantics.py ``postgres_semantics``) or parsed as PostgreSQL means them
(parser/dialect.py: where NULLs sort)."""

from __future__ import annotations

from txlake.parser.semantics import DIVISOR_MACRO

SETUP = (
    # 7 / 2 is 3 and -7 / 2 is -3 (truncated, as PostgreSQL's integer division): DuckDB's /
    # is float division unless told; an operand of another type still divides as before
    "SET integer_division = true",
    # x / 0 and x % 0 raise 22012 (the parser routes divisors that are not literals through this)
    f"CREATE MACRO {DIVISOR_MACRO}(x) AS CASE WHEN x = 0 THEN error('division by zero') ELSE x END",
)


def postgres_semantics(con) -> None:
    """Apply ``SETUP`` to a new DuckDB connection."""
    for statement in SETUP:
        con.execute(statement)
