"""Maintenance procedures reachable from SQL: ``CALL txlake.<name>(...)``.

Each runs as its own commit(s), outside any transaction block (like PostgreSQL's VACUUM), and
is safe while other sessions and processes read and write.
"""

from __future__ import annotations

import pyarrow as pa
from sqlglot import exp

from txlake import errors
from txlake.engine.executor import Result
from txlake.parser.parse import parse_table_name
from txlake.storage import maintenance


def table_arg(session, value: exp.Expression):
    if not isinstance(value, exp.Literal) or not value.is_string:
        raise errors.ProgrammingError("expected a table name as a string literal", sqlstate="42804")
    ref = parse_table_name(value.this)
    catalog = session.db.warehouse.refresh()
    version = next((v for v in (catalog.table(*ref.qualified(db)) for db in session.search_path) if v is not None),
                   None)
    if version is None:
        raise errors.UndefinedTable(f'relation "{ref}" does not exist')
    if not version.is_table:  # (a view or sequence has no files to compact)
        raise errors.WrongObjectType(f'"{version.name}" is not a table')
    return version


def compact(session, args, kwargs) -> Result:
    """``CALL txlake.compact('table')``: merge small files; one row per table compacted."""
    if len(args) > 1 or kwargs:
        raise errors.ProgrammingError("txlake.compact takes one optional table name", sqlstate="42883")
    warehouse = session.db.warehouse
    tables = [table_arg(session, args[0])] if args else \
        [t for t in warehouse.refresh().tables.values() if t.is_table]  # (a view or sequence has no files)
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


def _evaluate(session, value: exp.Expression, cast: str):
    return session.executor._sql(f"SELECT CAST({value.sql(dialect='duckdb')} AS {cast})").column(0)[0].as_py()


def expire_snapshots(session, args, kwargs) -> Result:
    """``CALL txlake.expire_snapshots(older_than => '2024-01-01 00:00:00', retain_last => 10)``:
    snapshots older than the retention become unreadable and their files are deleted; never
    one an open reader (in any process) still uses, never the newest."""
    from txlake.storage import expiry
    unknown = set(kwargs) - {"older_than", "retain_last"}
    if args or unknown:
        raise errors.ProgrammingError("txlake.expire_snapshots takes older_than => timestamp, "
                                      "retain_last => n", sqlstate="42883")
    older_ms = None
    if "older_than" in kwargs:
        older_ms = session.executor.instant_ms(kwargs["older_than"])
        if older_ms is None:
            raise errors.InvalidParameterValue("older_than must be a point in time, not NULL")
    retain = _evaluate(session, kwargs["retain_last"], "BIGINT") if "retain_last" in kwargs else 1
    if retain is None or retain < 1:
        raise errors.InvalidParameterValue(f"retain_last must be a positive number of snapshots, not {retain}")
    if older_ms is None and "retain_last" not in kwargs:
        raise errors.ProgrammingError("say older_than => ... and/or retain_last => ...", sqlstate="42883")
    _, oldest = session.db.horizons()
    r = expiry.expire_snapshots(session.db.warehouse, older_than_ms=older_ms, retain_last=retain,
                                in_use_csn=oldest)
    table = pa.table({"expired_before": [r.horizon], "data_files_deleted": [r.data_files_deleted],
                      "paimon_snapshots_deleted": [r.paimon_snapshots_deleted],
                      "metadata_files_deleted": [r.metadata_files_deleted]})
    return Result(table=table, rowcount=1, status="CALL")


def remove_orphan_files(session, args, kwargs) -> Result:
    """``CALL txlake.remove_orphan_files(older_than_seconds => 86400)``."""
    from txlake.storage import expiry
    if args or set(kwargs) - {"older_than_seconds"}:
        raise errors.ProgrammingError("txlake.remove_orphan_files takes older_than_seconds => n",
                                      sqlstate="42883")
    grace = _evaluate(session, kwargs["older_than_seconds"], "DOUBLE") if kwargs else 24 * 3600.0
    if grace is None or not grace >= 0:
        raise errors.InvalidParameterValue(f"older_than_seconds must be a number of seconds, not {grace}")
    removed = expiry.remove_orphan_files(session.db.warehouse, grace)
    return Result(table=pa.table({"files_deleted": [removed]}), rowcount=1, status="CALL")


def publish(session, args, kwargs) -> Result:
    """``CALL txlake.publish()``: publish every commit made so far as the Paimon snapshots other
    engines read, before returning - what a background pass would do within about a second
    (``publish="async"``), or a one-off publication where publishing is off. One row: the commit
    (CSN) every table is published as of."""
    if args or kwargs:
        raise errors.ProgrammingError("txlake.publish takes no arguments", sqlstate="42883")
    db = session.db
    publisher = db.publisher
    if publisher is None:  # publish="off": this call's alone
        from txlake.storage.publish import Publisher
        publisher = Publisher(db.warehouse, mode="sync")
    publisher.publish()
    return Result(table=pa.table({"published_csn": pa.array([publisher.published_csn], pa.int64())}),
                  rowcount=1, status="CALL")


PROCEDURES = {
    "txlake.compact": compact,
    "txlake.expire_snapshots": expire_snapshots,
    "txlake.remove_orphan_files": remove_orphan_files,
    "txlake.publish": publish,
}


def call(session, stmt) -> Result:
    procedure = PROCEDURES.get(stmt.procedure.lower())
    if procedure is None:
        raise errors.ProgrammingError(f"procedure {stmt.procedure} does not exist; known: "
                                      f"{', '.join(sorted(PROCEDURES))}", sqlstate="42883")
    return procedure(session, stmt.args, dict(stmt.kwargs))
