"""The ``txlake`` PySpark data source: Spark jobs read and write txlake tables.

Reads resolve one committed snapshot (the newest, or ``snapshotId`` / ``asOfTimestamp``) when
Spark asks for the schema, and pin it: every task reads exactly that snapshot's data files with
its deletion vectors applied, so a job never sees a partial or uncommitted transaction. Spark
creates the reader and asks for its partitions once per DataFrame or temporary view (later
actions and queries reuse them), so a view reads the snapshot of its creation: no later hook
exists where a view could take a newer one.

Writes follow the commit protocol of ``storage/commit.py`` split across machines ("concurrent
write, serial commit"): each task writes Parquet files and returns their names; the driver's
``commit()`` makes one log entry with all of them, after the same data-conflict check an engine
session's commit gets (``FilesCommit``). ``abort()`` - and a failed ``commit()`` - removes the
job's files, unless its log entry landed (a failed ``commit()`` may have failed after it);
files of failed task attempts never reach a message, so they are found by the job's file-name
prefix. Publishing after the commit only logs its failures: the commit stands.

Options: ``path`` (``<warehouse>/<db>.<table>`` or ``<warehouse>/<table>``) or ``warehouse``
plus ``table``; reads: ``snapshotId``, ``asOfTimestamp``, ``rowsPerPartition``; writes:
``label`` (exactly-once), ``publish`` (``sync`` - default - or ``off``), ``commitTimeout``
(seconds). A bad value is refused with 22023 (InvalidParameterValue) naming the option.
"""

from __future__ import annotations

import datetime as dt
import math
import os
import uuid
from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.parquet as pq
from pyroaring import FrozenBitMap
from pyspark.sql.datasource import (DataSource, DataSourceArrowWriter, DataSourceReader, InputPartition,
                                    WriterCommitMessage)

from txlake import errors
from txlake.engine import checks
from txlake.engine.executor import evaluate_defaults, serial_sequences
from txlake.spark import pushdown
from txlake.spark.types import (arrow_schema, check_assignable, checks_duckdb, conform, missing_columns, schema_for,
                                spark_schema)
from txlake.storage.commit import ROWS_PER_FILE, FilesCommit, TableDelta
from txlake.storage.datafiles import BUCKET_DIR, table_dir, write_parquet_atomic
from txlake.storage.expiry import hold_snapshot
from txlake.storage.fs import LocalFileSystem
from txlake.storage.publish import Publisher
from txlake.storage.schema import TableSchema
from txlake.storage.sequences import Sequences
from txlake.storage.version import DataFile, TableVersion, decode_rows, encode_rows
from txlake.storage.warehouse import MARKER, Warehouse

DEFAULT_DB = "default"
DEFAULT_COMMIT_TIMEOUT = 60.0  # seconds a job's commit waits for the log
# A task costs ~0.1 s in Spark and its Python worker, so tasks should read millions of rows;
# but a table should still spread over a few tasks. Without ``rowsPerPartition``: a quarter of
# the table per task, at least 512k and at most 4M rows (measured: 10M rows read in 1.96 s with
# 2.5M-row tasks, 4.31 s with 512k-row ones, on local[2]).
MIN_ROWS_PER_PARTITION = 1 << 19
MAX_ROWS_PER_PARTITION = 1 << 22


def rows_per_partition(version: TableVersion) -> int:
    return max(MIN_ROWS_PER_PARTITION, min(MAX_ROWS_PER_PARTITION, version.row_count // 4))
_FS = LocalFileSystem(durable=True)
ABORTED_JOBS_DIR = os.path.join("_spark", "aborted")  # one empty file per aborted write job


@dataclass(frozen=True)
class Target:
    """Which table a read or write is about."""

    root: str
    db: str
    name: str

    @staticmethod
    def from_options(options) -> "Target":
        table = options.get("table")
        if table:
            root = options.get("warehouse")
            if not root:
                raise errors.ProgrammingError('the "table" option needs a "warehouse" option too')
        else:
            path = options.get("path")
            if not path:
                raise errors.ProgrammingError(
                    'give the table as load("<warehouse>/<db>.<table>") or with the "warehouse" and "table" options')
            root, _, table = path.rstrip("/").rpartition("/")
            root = root or "."
        db, _, name = table.rpartition(".")
        db = db or DEFAULT_DB
        for part in (db, name):
            if not part or "/" in part or part in (".", ".."):
                raise errors.InvalidName(f'invalid table name "{table}"')
        return Target(os.path.abspath(root), db, name)

    @property
    def qualified(self) -> str:
        return f"{self.db}.{self.name}"

    def open(self, *, create: bool = False, **kwargs) -> Warehouse:
        if not create and not os.path.exists(os.path.join(self.root, MARKER)):
            raise errors.UndefinedTable(f'{self.root} is not a txlake warehouse (no {MARKER})')
        return Warehouse(self.root, **kwargs)


def _as_of_ms(text: str) -> int:
    """``asOfTimestamp``: epoch milliseconds, or an ISO 8601 time (UTC unless it says)."""
    try:
        return int(text)
    except ValueError:
        pass
    try:
        when = dt.datetime.fromisoformat(text)
    except ValueError:
        raise errors.InvalidParameterValue(f'invalid asOfTimestamp "{text}"') from None
    if when.tzinfo is None:
        when = when.replace(tzinfo=dt.timezone.utc)
    return int(when.timestamp() * 1000)


def _positive(options, name: str, kind: type = int) -> int | float | None:
    """Option ``name`` as a positive (finite) ``kind``, int or float; None if not given."""
    text = options.get(name)
    if text is None:
        return None
    try:
        value = kind(text)
    except (TypeError, ValueError):
        value = None
    if value is None or not 0 < value < math.inf:
        what = "a positive integer" if kind is int else "a positive number"
        raise errors.InvalidParameterValue(f'option {name} must be {what}, not "{text}"')
    return value


class TxlakeDataSource(DataSource):
    """``spark.read.format("txlake")`` / ``df.write.format("txlake")``."""

    @classmethod
    def name(cls) -> str:
        return "txlake"

    def _snapshot(self) -> tuple[int, TableVersion]:
        """The snapshot this DataFrame reads, resolved once (schema() runs before pickling)."""
        if getattr(self, "_pinned", None) is None:
            target = Target.from_options(self.options)
            wh = target.open()
            snapshot_id, as_of = _positive(self.options, "snapshotId"), self.options.get("asOfTimestamp")
            if snapshot_id is not None and as_of is not None:
                raise errors.ProgrammingError("give snapshotId or asOfTimestamp, not both")
            if snapshot_id is not None:
                csn = snapshot_id
                if csn > wh.latest.csn:
                    raise errors.InvalidParameterValue(f"snapshot {csn} does not exist (newest is {wh.latest.csn})")
            elif as_of is not None:
                csn = wh.csn_at(_as_of_ms(as_of))
            else:
                csn = wh.latest.csn
            version = wh.catalog_at(csn).table(target.db, target.name)
            if version is None:
                raise errors.UndefinedTable(f'relation "{target.qualified}" does not exist'
                                            + (f" at snapshot {csn}" if csn != wh.latest.csn else ""))
            if version.is_sequence:
                raise errors.WrongObjectType(f'"{target.qualified}" is a sequence, not a table')
            if version.is_view:  # (its query runs in txlake's DuckDB, not in Spark)
                raise errors.NotSupportedError(f'"{target.qualified}" is a view: the Spark source reads tables; '
                                               "read the view through txlake.connect(), or its tables")
            if version.schema.partitioning is not None:  # (its rows are its partitions', each a table)
                raise errors.NotSupportedError(f'"{target.qualified}" is a partitioned table: the Spark source reads '
                                               "tables; read its partitions (and union them)")
            if version.is_matview and not version.schema.matview.populated:  # (a materialized view is a table)
                raise errors.ObjectNotInPrerequisiteState(
                    f'materialized view "{target.name}" has not been populated\n'
                    "HINT:  Use the REFRESH MATERIALIZED VIEW command.")
            self._pinned = (csn, version)
        return self._pinned

    def schema(self):
        return spark_schema(self._snapshot()[1].schema)

    def reader(self, schema) -> "TxlakeReader":
        csn, version = self._snapshot()
        target = Target.from_options(self.options)
        rows = _positive(self.options, "rowsPerPartition")
        return TxlakeReader(target.root, csn, version, rows or rows_per_partition(version))

    def writer(self, schema, overwrite: bool) -> "TxlakeWriter":
        target = Target.from_options(self.options)
        commit_timeout = _positive(self.options, "commitTimeout", float) or DEFAULT_COMMIT_TIMEOUT
        wh = target.open(create=True)
        latest = wh.refresh()
        version = latest.table(target.db, target.name)
        if version is not None and version.is_view:
            raise errors.ObjectNotInPrerequisiteState(f'cannot insert into view "{target.name}"')
        if version is not None and version.is_sequence:
            raise errors.WrongObjectType(f'cannot change sequence "{target.name}"')
        if version is not None and version.is_matview:  # (its rows are REFRESH's alone)
            raise errors.WrongObjectType(f'cannot change materialized view "{target.name}"')
        if version is not None and (version.schema.foreign_keys or overwrite and latest.referencing(version.table_id)):
            # (its keys are not checked: refused here, and by the commit's vote if one came since)
            raise errors.NotSupportedError(f'Spark writes to table "{target.name}", which has a foreign key or '
                                           "(overwritten) is referenced by one, are not supported")
        if version is not None and version.schema.partitioning is not None:  # (rows would not be routed)
            raise errors.NotSupportedError(f'Spark writes to the partitioned table "{target.name}" are not supported: '
                                           "write to its partitions")
        if version is not None and version.schema.triggers:  # (its rows would pass no trigger)
            raise errors.NotSupportedError(f'Spark writes to table "{target.name}", which has triggers, are not '
                                           "supported")
        defaults, serial = {}, {}
        if version is None:
            table_schema = schema_for(schema)
        else:
            table_schema = version.schema
            check_assignable(schema, table_schema, target.name)
            missing = [col for col in missing_columns(schema, table_schema) if col.default is not None]
            # SERIAL columns: each task numbers its rows from the sequence (``TxlakeWriter.write``)
            serial = serial_sequences(missing, target.db, latest)
            missing = [col for col in missing if col.name not in serial]
            # the job is one transaction, started now: its rows get the same defaults
            if missing:
                values = evaluate_defaults(missing, dt.datetime.now(dt.timezone.utc))
                defaults = {col.name: value for col, value in zip(missing, values)}
        return TxlakeWriter(target, table_schema, latest.csn, version.table_id if version else None,
                            overwrite, uuid.uuid4().hex, self.options.get("label"),
                            self.options.get("publish", "sync"), commit_timeout, defaults, serial)


class PushdownDataSource(TxlakeDataSource):
    """The source ``register(spark)`` installs: the same, with filter pushdown (file skipping by
    Parquet min/max statistics), which PySpark only allows with
    ``spark.sql.python.filterPushdown.enabled`` on."""

    def reader(self, schema) -> "TxlakeReader":
        plain = super().reader(schema)
        return PushdownReader(plain.root, plain.csn, plain.version, plain.rows_per_partition)


# --- reading ---------------------------------------------------------------------------------

@dataclass
class FileGroup(InputPartition):
    """One task's files: (path relative to the warehouse, rows, serialized deletion vector,
    the rows themselves for a small file that lives inline in the log)."""

    files: list[tuple[str, int, bytes | None, str | None]]


class TxlakeReader(DataSourceReader):
    """Reads one snapshot's files. A reader lease (storage/expiry.py) keeps snapshot expiry in
    other processes from deleting them while the job's tasks run."""

    def __init__(self, root: str, csn: int, version: TableVersion, rows_per_partition: int):
        self.root = root
        self.csn = csn
        self.version = version
        self.rows_per_partition = rows_per_partition
        self.filters: list = []
        self.lease = f"spark-{uuid.uuid4().hex}"

    def _files(self) -> list[DataFile]:
        return list(self.version.files)

    def partitions(self) -> list[FileGroup]:
        """Whole files grouped so that each task reads about ``rows_per_partition`` rows."""
        hold_snapshot(self.root, self.lease, self.csn)
        groups, current, rows = [], [], 0
        for f in self._files():
            deleted = self.version.deleted(f.file_id)
            inline = encode_rows(f.inline) if f.inline is not None else None
            current.append((f.path, f.row_count, deleted.serialize() if deleted else None, inline))
            rows += f.row_count - len(deleted)
            if rows >= self.rows_per_partition:
                groups.append(FileGroup(current))
                current, rows = [], 0
        if current or not groups:
            groups.append(FileGroup(current))
        return groups

    def read(self, partition: FileGroup):
        hold_snapshot(self.root, self.lease, self.csn)
        target = arrow_schema(self.version.schema)
        padded = [(target.get_field_index(name), n) for name, n in self.version.schema.blank_padded.items()]
        for path, row_count, dv, inline in partition.files:
            keep = None
            if dv is not None:
                keep = np.ones(row_count, dtype=bool)
                deleted = FrozenBitMap.deserialize(dv)
                keep[np.fromiter(deleted, dtype=np.int64, count=len(deleted))] = False
            offset = 0
            batches = decode_rows(inline).to_batches() if inline is not None else \
                pq.ParquetFile(os.path.join(self.root, path)).iter_batches(batch_size=65536)
            for batch in batches:
                n = batch.num_rows
                if keep is not None:
                    batch = batch.filter(pa.array(keep[offset:offset + n]))
                offset += n
                if batch.schema != target:
                    batch = batch.cast(target)
                for i, n in padded:  # (a CHAR(n) is read padded to n, as Spark reads its CHAR(n))
                    batch = batch.set_column(i, target.field(i), pc.utf8_rpad(batch.column(i), n, " "))
                if batch.num_rows:
                    yield batch


class PushdownReader(TxlakeReader):
    def pushFilters(self, filters):
        self.filters = [f for f in filters if pushdown.usable(f, self.version.schema)]
        # skipping files is not filtering rows: Spark still evaluates every filter
        return filters

    def _files(self) -> list[DataFile]:
        if not self.filters:
            return list(self.version.files)
        return [f for f in self.version.files
                if f.is_inline  # small, and without a footer: always read
                or pushdown.may_match(pq.ParquetFile(os.path.join(self.root, f.path)).metadata, self.filters)]


# --- writing ---------------------------------------------------------------------------------

@dataclass
class WrittenFiles(WriterCommitMessage):
    """One task's new data files: (path relative to the warehouse, rows, bytes)."""

    files: list[tuple[str, int, int]]


class TxlakeWriter(DataSourceArrowWriter):
    def __init__(self, target: Target, schema: TableSchema, base_csn: int, table_id: str | None,
                 overwrite: bool, job: str, label: str | None, publish: str, commit_timeout: float,
                 defaults: dict | None = None, serial: dict | None = None):
        if publish not in ("sync", "off"):
            raise errors.InvalidParameterValue(f'option publish must be "sync" or "off", not "{publish}"')
        self.target = target
        self.schema = schema
        self.base_csn = base_csn
        self.table_id = table_id          # None: the job creates the table
        self.overwrite = overwrite
        self.job = job
        self.label = label
        self.publish = publish
        self.commit_timeout = commit_timeout
        self.defaults = defaults or {}    # column the DataFrame lacks -> its default's value
        self.serial = serial or {}        # SERIAL column the DataFrame lacks -> its sequence's counter

    @property
    def _bucket(self) -> str:
        return os.path.join(table_dir(self.target.db, self.target.name), BUCKET_DIR)

    def write(self, iterator) -> WrittenFiles:
        from pyspark import TaskContext
        ctx = TaskContext.get()
        task = f"{ctx.partitionId()}-{ctx.attemptNumber()}" if ctx else uuid.uuid4().hex[:8]
        directory = os.path.join(self.target.root, self._bucket)
        os.makedirs(directory, exist_ok=True)
        files: list[tuple[str, int, int]] = []
        pending: list[pa.RecordBatch] = []
        rows = 0

        def flush():
            nonlocal pending, rows
            rel = os.path.join(self._bucket, f"data-{self.job}-{task}-{len(files)}.parquet")
            full = os.path.join(self.target.root, rel)
            write_parquet_atomic(_FS, full, pa.Table.from_batches(pending).combine_chunks())
            if os.path.exists(self._abort_marker):
                # the job was aborted while this task ran: abort() may have listed the
                # directory before this file existed, so the task removes it itself
                os.remove(full)
                raise errors.OperationalError(f"Spark job {self.job} was aborted")
            files.append((rel, rows, os.path.getsize(full)))
            pending, rows = [], 0

        sequences = Sequences(self.target.root) if self.serial else None
        for batch in iterator:
            numbers = {}
            for name, counter in self.serial.items():  # (a retried task takes new ones: a gap)
                numbers[name] = pa.array(sequences.reserve(counter, batch.num_rows))
            batch = conform(batch, self.schema, self.target.name, self.defaults, numbers)
            if self.schema.enforced_checks:  # (23514 for a row failing one, as an INSERT's; 22P02 of an enum)
                checks.check_rows(checks_duckdb(), self.target.name, self.schema,
                                  pa.Table.from_batches([batch]))
            while batch.num_rows:
                take = min(batch.num_rows, ROWS_PER_FILE - rows)
                pending.append(batch.slice(0, take))
                rows += take
                batch = batch.slice(take)
                if rows == ROWS_PER_FILE:
                    flush()
        if rows:
            flush()
        if files:
            _FS.fsync_dir(directory)
        return WrittenFiles(files)

    def commit(self, messages) -> None:
        written = [f for m in messages if m is not None for f in m.files]
        self._remove_strays({path for path, _, _ in written})
        if not written and not self.overwrite and self.table_id is not None:
            return  # nothing to add: no log entry
        wh = self.target.open(create=True, commit_timeout=self.commit_timeout)
        files = [DataFile(0, path, rows, self.schema.schema_id, size) for path, rows, size in written]
        if self.table_id is None:
            table_id = uuid.uuid4().hex
            delta = TableDelta(table_id, None, TableVersion(table_id, self.target.db, self.target.name, self.schema))
        else:
            table_id = self.table_id
            base = wh.catalog_at(self.base_csn).by_id(table_id)
            if base is None:
                raise errors.SerializationFailure(
                    f'could not serialize access: relation "{self.target.name}" was dropped by a concurrent transaction')
            # an overwrite deletes every row of the job's snapshot: a concurrent change to any
            # of them, or a concurrent insert, makes one of the two fail (40001)
            work = base.with_files(removed=frozenset(f.file_id for f in base.files)) if self.overwrite else base.with_files()
            delta = TableDelta(table_id, base, work)
        commit = FilesCommit(wh.store, [delta], {table_id: files}, wh.commit_user, self.job,
                             snapshot_csn=self.base_csn if self.overwrite else None,
                             read_tables=frozenset({table_id}) if self.overwrite and self.table_id else frozenset(),
                             label=self.label)
        commit.refuses_foreign_keys = True
        entry = wh.commit(commit)  # on failure it removes the files and raises
        if self.publish == "sync":
            # the commit is durable: a publishing failure is logged (and retried by the next
            # publisher), never reported as the job's - Spark would then abort() a committed job
            Publisher(wh, "sync").notify(entry)

    @property
    def _abort_marker(self) -> str:
        return os.path.join(self.target.root, ABORTED_JOBS_DIR, self.job)

    def abort(self, messages) -> None:
        # first the marker, then the listing: a task still writing either has its file listed
        # here or sees the marker after writing it (and removes the file itself)
        os.makedirs(os.path.dirname(self._abort_marker), exist_ok=True)
        with open(self._abort_marker, "w"):
            pass
        self._remove_strays(self._committed_files())

    def _committed_files(self) -> set[str]:
        """The files of this job's commit if it landed (``commit()`` failed after its log entry
        was durable): they are the table's, and stay."""
        if not os.path.exists(os.path.join(self.target.root, MARKER)):
            return set()
        entry = self.target.open().committed(self.job, self.base_csn)
        if entry is None:
            return set()
        return {f.path for change in entry.member(self.job).changes for f in getattr(change, "added", ())}

    def _remove_strays(self, keep: set[str]) -> None:
        """Remove this job's files that are not in ``keep`` (failed or duplicate attempts)."""
        directory = os.path.join(self.target.root, self._bucket)
        prefix = f"data-{self.job}-"  # also matches ".data-...tmp" after lstrip(".")
        try:
            names = os.listdir(directory)
        except FileNotFoundError:
            return
        for name in names:
            rel = os.path.join(self._bucket, name)
            if name.lstrip(".").startswith(prefix) and rel not in keep:
                try:
                    os.remove(os.path.join(self.target.root, rel))
                except FileNotFoundError:
                    pass

