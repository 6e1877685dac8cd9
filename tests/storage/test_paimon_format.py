"""The Paimon format layer: what ``PaimonTable`` writes, pypaimon 2.1.0 reads identically.

Tables here are built directly from Parquet files and ``PaimonTable.commit`` (no engine), and
the expected rows of every snapshot follow from the rows of its live files.
"""

import datetime
import decimal
import json
import math
import os
import threading
import uuid
from dataclasses import replace

import fastavro
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from tests.paimon_env import read_with_pypaimon
from txlake.storage.format.paimon import (
    MERGE_THRESHOLD, PaimonField, PaimonTable, PublishedFile, arrow_type, parquet_schema)
from txlake.storage.fs import LocalFileSystem

D = decimal.Decimal
SCHEMA_0 = [
    PaimonField(0, "id", "INT NOT NULL"), PaimonField(1, "b", "BOOLEAN"), PaimonField(2, "big", "BIGINT"),
    PaimonField(3, "f", "DOUBLE"), PaimonField(4, "d", "DECIMAL(10, 2)"), PaimonField(5, "s", "STRING"),
    PaimonField(6, "v", "VARCHAR(20)"), PaimonField(7, "dt", "DATE"), PaimonField(8, "ts", "TIMESTAMP(6)"),
]
SCHEMA_1 = SCHEMA_0 + [PaimonField(9, "extra", "BIGINT")]                   # a column added
SCHEMA_2 = [PaimonField(5, "label", "STRING") if f.id == 5 else f for f in SCHEMA_1]  # s renamed


def row(id, b=None, big=None, f=None, d=None, s=None, v=None, dt=None, ts=None, extra=None) -> dict:
    """A row keyed by field id, so it can be projected onto any of the schemas."""
    return dict(enumerate([id, b, big, f, d, s, v, dt, ts, extra]))


ROWS_A = [
    row(1, True, 2**63 - 1, 1.5, D("-12.34"), "héllo", "日本語", datetime.date(2024, 2, 29),
        datetime.datetime(2024, 1, 2, 3, 4, 5, 123456)),
    row(2),  # every nullable column NULL
    row(3, False, -2**63, -0.25, D("-0.01"), "", "🙂 emoji", datetime.date(1969, 12, 31),
        datetime.datetime(1969, 12, 31, 23, 59, 59, 999999)),
]
ROWS_A2 = [ROWS_A[0], row(3, False, 7, float("nan"), D("99999999.99"), "rewritten", None,
                          datetime.date(1, 1, 1), datetime.datetime(9999, 12, 31, 23, 59, 59))]
ROWS_B = [row(4, True, 40, 1 / 3, D("0.00"), "b", "b"), row(5, None, None, float("-inf"), D("-99999999.99"))]
ROWS_C = [row(6, s="c — reversed columns", dt=datetime.date(2000, 1, 1)), row(7, big=-1)]
ROWS_D = [row(8, s="new schema", extra=-5), row(9, extra=None)]


def encode(value):
    """As tests/paimon_read.py encodes what pypaimon returns."""
    if isinstance(value, decimal.Decimal):
        return str(value)
    if isinstance(value, (datetime.datetime, datetime.date)):
        return value.isoformat()
    if isinstance(value, float) and not math.isfinite(value):
        return "NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")
    return value


def expected_rows(fields: list[PaimonField], rows: list[dict]) -> list[list]:
    return sorted(([encode(r.get(f.id)) for f in fields] for r in rows), key=json.dumps)


def write_file(table_dir: str, fields: list[PaimonField], schema_id: int, rows: list[dict],
               reverse_columns: bool = False) -> PublishedFile:
    """A Parquet data file as txlake writes one: plain pyarrow, columns named as in ``fields``."""
    schema = parquet_schema(fields)
    table = pa.table({f.name: pa.array([r.get(f.id) for r in rows], type=schema.field(f.name).type)
                      for f in fields}, schema=schema)
    if reverse_columns:  # pypaimon must match columns by name, not position
        table = table.select(list(reversed(table.column_names)))
    name = f"bucket-0/data-{uuid.uuid4()}-0.parquet"
    path = os.path.join(table_dir, name)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    pq.write_table(table, path)
    return PublishedFile(name, os.path.getsize(path), len(rows), schema_id)


def fake_file(i: int, rows: int = 1) -> PublishedFile:
    """Metadata of a data file that is never read (format-only tests)."""
    return PublishedFile(f"bucket-0/data-{i:06d}-0.parquet", 100 + i, rows, 0)


def new_table(path, fs=None, **kwargs) -> PaimonTable:
    table = PaimonTable(str(path), fs, **kwargs)
    table.write_schema(0, SCHEMA_0)
    return table


def commit(table: PaimonTable, base, files, schema_id: int = 0, csn: int | None = None, **kwargs):
    csn = csn if csn is not None else (base.commit_identifier + 1 if base else 1)
    return table.commit(base=base, schema_id=schema_id, files=list(files), commit_user="test",
                        commit_identifier=csn, time_millis=1_700_000_000_000 + csn, **kwargs)


def read_avro(path: str) -> list[dict]:
    with open(path, "rb") as f:
        return list(fastavro.reader(f))


# --- pypaimon reads every snapshot ------------------------------------------------------------

@pytest.mark.parametrize("merge_threshold", [1, MERGE_THRESHOLD])
def test_pypaimon_reads_every_snapshot_identically(tmp_path, merge_threshold):
    table_dir = str(tmp_path / "db.db" / "t")
    table = PaimonTable(table_dir, merge_threshold=merge_threshold)
    schemas = {0: SCHEMA_0, 1: SCHEMA_1, 2: SCHEMA_2}
    for schema_id, fields in schemas.items():
        table.write_schema(schema_id, fields, options={"txlake.table-id": "t1"})

    a = write_file(table_dir, SCHEMA_0, 0, ROWS_A)
    b = write_file(table_dir, SCHEMA_0, 0, ROWS_B)
    c = write_file(table_dir, SCHEMA_0, 0, ROWS_C, reverse_columns=True)
    a2 = write_file(table_dir, SCHEMA_0, 0, ROWS_A2)
    d = write_file(table_dir, SCHEMA_1, 1, ROWS_D)
    compacted = write_file(table_dir, SCHEMA_2, 2, ROWS_A2 + ROWS_C)
    rows = {a: ROWS_A, b: ROWS_B, c: ROWS_C, a2: ROWS_A2, d: ROWS_D, compacted: ROWS_A2 + ROWS_C}

    steps = [  # (schema id, live files, commit kind) of snapshots 1, 2, ...
        (0, [a], "APPEND"),
        (0, [a, b, c], "APPEND"),
        (0, [a2, b, c], "OVERWRITE"),         # a rewritten: DELETE a + ADD a2
        (0, [a2, c], "OVERWRITE"),            # b deleted entirely
        (1, [a2, c, d], "APPEND"),            # column added; d written in the new schema
        (2, [a2, c, d], "APPEND"),            # column renamed: no file changes, empty delta
        (2, [a2, c, d, b], "APPEND"),         # b's name added again after its DELETE
        (2, [compacted, d, b], "COMPACT"),    # a2 + c rewritten as one file in schema 2
    ]
    states, state = [], None
    for schema_id, files, kind in steps:
        compact = {"commit_kind": "COMPACT"} if kind == "COMPACT" else {}
        state = commit(table, state, files, schema_id, **compact)
        assert state is not None and state.commit_kind == kind
        states.append(state)

    published = read_with_pypaimon(table_dir)
    assert published["fields"] == [{"id": f.id, "name": f.name, "type": f.type} for f in SCHEMA_2]
    assert sorted(published["snapshots"], key=int) == [str(i) for i in range(1, len(steps) + 1)]
    for (schema_id, files, _), state in zip(steps, states):
        snap = published["snapshots"][str(state.snapshot_id)]
        fields = schemas[schema_id]
        assert snap["commit_identifier"] == state.commit_identifier
        assert snap["columns"] == [f.name for f in fields]
        assert snap["rows"] == expected_rows(fields, [r for f in files for r in rows[f]]), \
            f"snapshot {state.snapshot_id}"

    # What txlake reads back from its own manifests is what it committed.
    assert [table.snapshot(s.snapshot_id) for s in states] == states
    assert table.latest() == states[-1]


def test_snapshot_json_has_every_key_readers_need(tmp_path):
    table = PaimonTable(str(tmp_path / "t"))
    table.write_schema(0, SCHEMA_0)
    state = commit(table, None, [fake_file(1, rows=5)])
    state = commit(table, state, [fake_file(2, rows=3)])
    with open(os.path.join(table.dir, "snapshot", "snapshot-2")) as f:
        doc = json.load(f)
    assert doc["version"] == 3 and doc["id"] == 2 and doc["schemaId"] == 0
    assert doc["commitIdentifier"] == 2 and doc["commitUser"] == "test" and doc["commitKind"] == "OVERWRITE"
    assert doc["timeMillis"] == state.time_millis
    assert (doc["totalRecordCount"], doc["deltaRecordCount"]) == (3, 3 - 5)
    for key in ("baseManifestList", "deltaManifestList"):
        path = os.path.join(table.dir, "manifest", doc[key])
        assert doc[key + "Size"] == os.path.getsize(path)
    delta = read_avro(os.path.join(table.dir, "manifest", doc["deltaManifestList"]))
    entries = read_avro(os.path.join(table.dir, "manifest", delta[0]["_FILE_NAME"]))
    assert sorted((e["_KIND"], e["_FILE"]["_FILE_NAME"]) for e in entries) == \
        [(0, "data-000002-0.parquet"), (1, "data-000001-0.parquet")]
    with open(os.path.join(table.dir, "schema", "schema-0")) as f:
        schema = json.load(f)
    assert schema["version"] == 3 and schema["highestFieldId"] == 8
    assert schema["partitionKeys"] == [] and schema["primaryKeys"] == []
    assert schema["options"]["bucket"] == "-1" and schema["options"]["file.format"] == "parquet"


# --- commits ----------------------------------------------------------------------------------

def test_commit_on_a_stale_base_returns_none_and_loses_nothing(tmp_path):
    table = new_table(tmp_path / "t")
    first = commit(table, None, [fake_file(1)])
    ours = commit(table, first, [fake_file(1), fake_file(2)])
    assert commit(table, first, [fake_file(1), fake_file(3)]) is None      # id 2 is taken
    assert commit(table, None, [fake_file(3)]) is None                     # so is id 1
    assert table.snapshot(2) == ours and table.latest() == ours
    theirs = commit(table, table.latest(), [*table.latest().files.values(), fake_file(3)])
    assert theirs.snapshot_id == 3
    assert set(table.latest().files) == {fake_file(i).file_name for i in (1, 2, 3)}
    assert table.snapshot(2) == ours and table.snapshot(1) == first


class LosingFileSystem(LocalFileSystem):
    """Another writer always creates the snapshot first, after our existence check."""

    def put_if_absent(self, path: str, data: bytes) -> bool:
        return False if "snapshot-" in os.path.basename(path) else super().put_if_absent(path, data)


def test_a_commit_that_loses_the_race_leaves_no_metadata_behind(tmp_path):
    table = new_table(tmp_path / "t", merge_threshold=1)
    state = None
    for i in range(1, 4):
        state = commit(table, state, [fake_file(j) for j in range(1, i + 1)])
    manifests = sorted(os.listdir(os.path.join(table.dir, "manifest")))
    loser = PaimonTable(table.dir, LosingFileSystem(), merge_threshold=1)
    assert commit(loser, state, [fake_file(9)]) is None     # would merge, ADD and DELETE
    assert sorted(os.listdir(os.path.join(table.dir, "manifest"))) == manifests
    assert table.latest() == state


def test_concurrent_committers_each_get_every_commit_in(tmp_path):
    """Threads racing on one table with retry-on-None: every file lands exactly once, and each
    snapshot extends the one before it."""
    table = new_table(tmp_path / "t", LocalFileSystem(durable=False))
    threads, per_thread = 4, 15

    def committer(t: int) -> None:
        for i in range(per_thread):
            mine = fake_file(t * 1000 + i)
            while True:
                base = table.latest()
                files = list(base.files.values()) if base else []
                if commit(table, base, files + [mine]) is not None:
                    break

    workers = [threading.Thread(target=committer, args=(t,)) for t in range(threads)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    ids = table.snapshot_ids()
    assert ids == list(range(1, threads * per_thread + 1))
    previous: set[str] = set()
    referenced: set[str] = set()
    for i in ids:
        state = table.snapshot(i)
        assert previous < set(state.files) and len(state.files) == i
        previous = set(state.files)
        referenced |= state.metadata_files
    # Attempts that lost a race removed what they wrote.
    assert set(os.listdir(os.path.join(table.dir, "manifest"))) == referenced


def test_latest_round_trips_the_live_files(tmp_path):
    table = new_table(tmp_path / "t", merge_threshold=3)
    state, live = None, {}
    for i in range(1, 30):
        live[i] = fake_file(i, rows=i)
        if i % 4 == 0:
            del live[i - 3]                           # a delete now and then
        state = commit(table, state, live.values())
        latest = table.latest()
        assert latest == state
        assert set(latest.files) == {f.file_name for f in live.values()}
        assert latest.record_count == sum(f.row_count for f in live.values())
        assert latest.metadata_files == state.metadata_files


def test_latest_probes_past_a_stale_or_missing_hint(tmp_path):
    table = new_table(tmp_path / "t")
    state = None
    for i in range(1, 4):
        state = commit(table, state, [fake_file(i)])
    hint = os.path.join(table.dir, "snapshot", "LATEST")
    for content in ("1", "not a number", "99"):
        with open(hint, "w") as f:
            f.write(content)
        assert table.latest() == state
    os.remove(hint)
    assert table.latest() == state
    assert table.snapshot_ids() == [1, 2, 3]


def test_a_file_kept_from_the_base_keeps_its_recorded_metadata(tmp_path):
    table = new_table(tmp_path / "t")
    first = commit(table, None, [fake_file(1)])
    assert first.files[fake_file(1).file_name].creation_time_ms == first.time_millis  # 0: unknown
    second = commit(table, first, [fake_file(1), fake_file(2)])
    assert second.files[fake_file(1).file_name] == first.files[fake_file(1).file_name]


def test_commit_kinds_and_validation(tmp_path):
    table = new_table(tmp_path / "t")
    s1 = commit(table, None, [fake_file(1)])
    s2 = commit(table, s1, [fake_file(2)])
    s3 = commit(table, s2, [fake_file(3)], commit_kind="COMPACT")
    assert [s.commit_kind for s in (s1, s2, s3)] == ["APPEND", "OVERWRITE", "COMPACT"]
    with pytest.raises(ValueError):
        commit(table, s3, [fake_file(3)], commit_kind="MERGE")
    for bad in ("data-1-0.parquet", "bucket-0/sub/data-1-0.parquet", "bucket-0/data-1-0.orc"):
        with pytest.raises(ValueError):
            commit(table, s3, [PublishedFile(bad, 1, 1, 0)])
    with pytest.raises(ValueError):                    # its schema was never written
        commit(table, s3, [PublishedFile("bucket-0/data-9-0.parquet", 1, 1, schema_id=5)])
    assert table.latest() == s3


# --- bounded manifest lists -------------------------------------------------------------------

def test_manifest_lists_stay_bounded(tmp_path):
    table = new_table(tmp_path / "t", LocalFileSystem(durable=False))
    manifest_dir = os.path.join(table.dir, "manifest")
    state, live = None, {}
    for i in range(1, 201):
        live[i] = fake_file(i)
        if i % 10 == 0:
            del live[min(live)]
        before = len(os.listdir(manifest_dir)) if state else 0
        state = commit(table, state, live.values())
        # Per commit: two lists, one delta manifest, and now and then one merged manifest.
        assert len(os.listdir(manifest_dir)) - before <= 4
        base_list = read_avro(os.path.join(manifest_dir, state.base_manifest_list))
        delta_list = read_avro(os.path.join(manifest_dir, state.delta_manifest_list))
        assert len(base_list) <= MERGE_THRESHOLD and len(delta_list) <= 1
        assert len(state.chain) <= MERGE_THRESHOLD + 1
    latest = table.latest()
    assert latest == state and set(latest.files) == {f.file_name for f in live.values()}


# --- schemas, drop ----------------------------------------------------------------------------

def test_write_schema_is_put_if_absent(tmp_path):
    table = PaimonTable(str(tmp_path / "t"))
    table.write_schema(0, SCHEMA_0, primary_keys=["id"], options={"txlake.table-id": "x"})
    table.write_schema(0, SCHEMA_1, options={"txlake.table-id": "y"})     # already there: kept
    schema = table.read_schema(0)
    assert list(schema.fields) == SCHEMA_0
    assert schema.options["txlake.table-id"] == "x" and schema.options["txlake.primary-key"] == "id"
    assert table.schema_options(7) == {}
    table.write_schema(1, SCHEMA_0[:-1])               # the highest field id dropped ...
    with open(os.path.join(table.dir, "schema", "schema-1")) as f:
        assert json.load(f)["highestFieldId"] == 8     # ... is never handed out again
    assert table.schema_ids() == [0, 1]


def test_a_base_without_manifest_chain_is_described_in_full(tmp_path):
    """A state built by hand (not from commit/snapshot) still yields a complete snapshot."""
    table = new_table(tmp_path / "t")
    state = commit(table, None, [fake_file(1), fake_file(2)])
    state = commit(table, replace(state, chain=()), [fake_file(2), fake_file(3)])
    assert set(table.latest().files) == {fake_file(2).file_name, fake_file(3).file_name}


def test_drop_metadata_keeps_data_files_and_restarts_ids(tmp_path):
    table_dir = str(tmp_path / "t")
    table = PaimonTable(table_dir)
    table.write_schema(0, SCHEMA_0)
    data = write_file(table_dir, SCHEMA_0, 0, ROWS_A)
    old = commit(table, None, [data])
    table.drop_metadata()
    assert table.latest() is None and table.snapshot_ids() == []
    assert sorted(os.listdir(table_dir)) == ["bucket-0"]
    assert commit(table, old, [data]) is None          # a base from the dropped table
    table.write_schema(0, SCHEMA_0)
    fresh = commit(table, None, [data])
    assert fresh.snapshot_id == 1 and table.latest() == fresh


def test_arrow_types_are_the_ones_pypaimon_reads():
    assert [arrow_type(t) for t in ("BOOLEAN", "INT", "BIGINT", "DOUBLE", "STRING", "DATE")] == \
        [pa.bool_(), pa.int32(), pa.int64(), pa.float64(), pa.string(), pa.date32()]
    assert arrow_type("DECIMAL(10, 2) NOT NULL") == pa.decimal128(10, 2)
    assert arrow_type("VARCHAR(20)") == pa.string()
    assert arrow_type("TIMESTAMP(6)") == pa.timestamp("us")
    schema = parquet_schema(SCHEMA_0)
    assert not schema.field("id").nullable and schema.field("b").nullable
    assert schema.metadata is None and all(f.metadata is None for f in schema)
    with pytest.raises(ValueError):
        arrow_type("MAP<INT, INT>")
