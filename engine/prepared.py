"""SQL prepared statements - ``PREPARE name [(type, ...)] AS statement``, ``EXECUTE name
[(value, ...)]``, ``DEALLOCATE [PREPARE] name | ALL`` - as PostgreSQL's: a session's named
statements, kept until DEALLOCATE or the session's end (a rollback does not undo them).

A statement is parsed again at each EXECUTE with its values written in for ``$1``, ``$2``, ...
(a parse is cached by its text), so it is planned against the tables and views of the moment,
as PostgreSQL re-plans a statement whose objects changed. As in PostgreSQL, its result columns
stay those PREPARE found: a query whose columns changed since (a ``SELECT *`` of a view
replaced with more columns, a table dropped and made again with another type) is 0A000
``cached plan must not change result type``. (A statement with parameters has its columns compared
by name only: PREPARE learns them with NULL for each parameter, and a value's type is the one
written at each EXECUTE - PostgreSQL fixes it at PREPARE.)
"""

from __future__ import annotations

from dataclasses import dataclass

from txlake import errors
from txlake.parser import statements as st
from txlake.parser.parse import parse
from txlake.parser.semantics import PARAMETER_COMMENT

# what PostgreSQL's PREPARE takes (VALUES is a Query here)
_PREPARABLE = (st.Query, st.Insert, st.Update, st.Delete, st.Merge, st.WithWrites)


@dataclass
class Prepared:
    statement: st.Prepare
    count: int  # the parameters it takes: the highest $n, or the types declared if more
    columns: tuple | None = None  # its result's columns, once known: names, and types if it has no parameters


def prepare(stmt: st.Prepare) -> tuple[Prepared, st.Statement]:
    """The prepared statement, and its statement with NULL for each parameter - to be checked
    (and a query's columns learnt) as PostgreSQL analyzes it at PREPARE."""
    count = max([n for _, _, n in stmt.params] + [len(stmt.types)])
    prepared = Prepared(stmt, count)
    return prepared, _parsed(bound_text(prepared, ("NULL",) * count))


def execution(prepared: Prepared, stmt: st.Execute, params: tuple) -> tuple[st.Statement, tuple]:
    """The statement EXECUTE runs and its ``?`` parameters (those of the values, each with the
    value it is in, in the order the values land in the statement)."""
    if len(stmt.args) != prepared.count:
        raise errors.SyntaxError(f'wrong number of parameters for prepared statement "{prepared.statement.name}"\n'
                                 f"DETAIL:  Expected {prepared.count} parameters but got {len(stmt.args)}.")
    starts = [sum(stmt.arg_params[:i]) for i in range(len(stmt.args))]
    ordered = tuple(p for _, _, n in sorted(prepared.statement.params)
                    for p in params[starts[n - 1]:starts[n - 1] + stmt.arg_params[n - 1]])
    return _parsed(bound_text(prepared, stmt.args)), ordered


def check_columns(prepared: Prepared, schema) -> None:
    """0A000 if a query's result columns (``schema``, Arrow's; None: no result) are no longer
    those it was prepared with."""
    if schema is None:
        return
    columns = tuple(schema.names) if prepared.count else tuple(zip(schema.names, map(str, schema.types)))
    if prepared.columns is None:
        prepared.columns = columns
    elif columns != prepared.columns:
        raise errors.NotSupportedError("cached plan must not change result type")


def bound_text(prepared: Prepared, values) -> str:
    """The statement's text with each ``$n`` replaced by the n-th value (cast to the declared
    type, if there is one: a cast marked as a parameter's, for its column's name)."""
    text, types = prepared.statement.statement, prepared.statement.types
    for start, end, n in sorted(prepared.statement.params, reverse=True):
        value = f"({values[n - 1]})"
        typed = f"CAST({value} AS {types[n - 1]}) /*{PARAMETER_COMMENT}*/" if n <= len(types) else value
        text = text[:start] + typed + text[end + 1:]
    return text


def _parsed(text: str) -> st.Statement:
    statements = parse(text)
    if len(statements) != 1 or not isinstance(statements[0], _PREPARABLE):
        raise errors.SyntaxError("PREPARE takes one SELECT, VALUES, INSERT, UPDATE, DELETE or MERGE statement")
    return statements[0]
