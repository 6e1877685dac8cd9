"""Maintenance procedures reachable from SQL: ``CALL txlake.<name>(...)``.

Each runs as its own commit(s), outside any transaction block (like PostgreSQL's VACUUM), and
is safe while other sessions and processes read and write.
"""

from __future__ import annotations

import pyarrow as pa
from sqlglot import exp

from txlake import errors
from txlake.engine.executor import Result
from txlake.parser.parse import parse_one, table_name
from txlake.storage import maintenance


def _table_arg(session, value: exp.Expression):
    if not isinstance(value, exp.Literal) or not value.is_string:
        raise errors.ProgrammingError("expected a table name as a string literal", sqlstate="42804")
    ref = table_name(parse_one(f"SELECT * FROM {value.this}").expression.find(exp.Table))
    catalog = session.db.warehouse.refresh()
    version = catalog.table(*ref.qualified(session.settings["search_path"]))
    if version is None:
        raise errors.UndefinedTable(f'relation "{ref}" does not exist')
    return version


def compact(session, args, kwargs) -> Result:
    """``CALL txlake.compact('table')``: merge small files; one row per table compacted."""
    if len(args) > 1 or kwargs:
        raise errors.ProgrammingError("txlake.compact takes one optional table name", sqlstate="42883")
    warehouse = session.db.warehouse
    tables = [_table_arg(session, args[0])] if args else list(warehouse.refresh().tables.values())
    rows = []
    for version in tables:
        progress = (lambda done, total, name=version.name: session.progress(done, total, f"compacting {name}")) \
            if session.progress else None
        r = maintenance.compact(warehouse, version.table_id, progress=progress)
        rows.append((f"{version.db}.{version.name}", r.files_before, r.files_after, r.rows, r.csn))
    cols = list(zip(*rows)) or [[]] * 5
    table = pa.table({"table": pa.array(cols[0], pa.string()), "files_before": pa.array(cols[1], pa.int64()),
                      "files_after": pa.array(cols[2], pa.int64()), "rows": pa.array(cols[3], pa.int64()),
                      "snapshot_id": pa.array(cols[4], pa.int64())})
    return Result(table=table, rowcount=len(rows), status="CALL")


PROCEDURES = {
    "txlake.compact": compact,
}


def call(session, stmt) -> Result:
    procedure = PROCEDURES.get(stmt.procedure.lower())
    if procedure is None:
        raise errors.ProgrammingError(f"procedure {stmt.procedure} does not exist; known: "
                                      f"{', '.join(sorted(PROCEDURES))}", sqlstate="42883")
    return procedure(session, stmt.args, dict(stmt.kwargs))
