"""The Paimon table layout: file models and their (de)serialisers, nothing else.

What is written, and why it looks as it does (measured against pypaimon 2.1.0, the reader
txlake's published tables are checked with):

- ``schema/schema-N``: JSON, ``version`` 3 (without it readers assume one bucket and ORC),
  field ids/names/types, no partition or primary keys: txlake publishes *append tables*
  (its own primary key travels in ``options`` as ``txlake.primary-key``).
- ``snapshot/snapshot-N``: JSON with every mandatory key; ``commitIdentifier`` carries the
  txlake commit sequence number whose state the snapshot shows. Created put-if-absent, so two
  publishers cannot both write snapshot N; ``snapshot/LATEST`` is a hint only.
- ``manifest/manifest-list-*``: Avro ``ManifestFileMeta`` records; ``manifest/manifest-*``: Avro
  ``ManifestEntry`` records (ADD = 0, DELETE = 1) describing Parquet files under ``bucket-0/``
  with ``_TOTAL_BUCKETS`` -1 (bucket-unaware append table). Partitions, keys and stats are empty
  BinaryRows (12 zero bytes) and ``_VALUE_STATS_COLS`` is empty: no column stats are claimed.
  The Avro codec is deflate (built into fastavro; readers accept any standard codec).
- Manifest lists stay bounded: snapshot N's base list is snapshot N-1's base manifests plus its
  delta manifest, and once that passes ``MERGE_THRESHOLD`` manifests they are merged into one
  manifest of ADD entries for the live files. So a commit costs O(live files) at worst, never
  O(history) - pypaimon's own writer appends every manifest forever.
- Parquet data files need no Paimon-specific metadata (no field ids): columns are matched by
  name, with the Arrow types of ``ColumnType.arrow()``.
"""

from __future__ import annotations

import datetime
import io
import json
import os
import shutil
import time
import uuid
from dataclasses import dataclass, field

import fastavro

from txlake.storage.fs import LocalFileSystem

EMPTY_ROW = bytes(12)  # a BinaryRow with no fields
MERGE_THRESHOLD = 8
CODEC = "deflate"
ADD, DELETE = 0, 1

_STATS_FIELDS = [
    {"name": "_MIN_VALUES", "type": "bytes"},
    {"name": "_MAX_VALUES", "type": "bytes"},
    {"name": "_NULL_COUNTS", "type": ["null", {"type": "array", "items": ["null", "long"]}], "default": None},
]
_OPTIONAL_STRINGS = ["null", {"type": "array", "items": "string"}]

DATA_FILE_SCHEMA = {
    "type": "record", "name": "DataFileMeta", "fields": [
        {"name": "_FILE_NAME", "type": "string"},
        {"name": "_FILE_SIZE", "type": "long"},
        {"name": "_ROW_COUNT", "type": "long"},
        {"name": "_MIN_KEY", "type": "bytes"},
        {"name": "_MAX_KEY", "type": "bytes"},
        {"name": "_KEY_STATS", "type": {"type": "record", "name": "record_KEY_STATS", "fields": _STATS_FIELDS}},
        {"name": "_VALUE_STATS", "type": {"type": "record", "name": "record_VALUE_STATS", "fields": _STATS_FIELDS}},
        {"name": "_MIN_SEQUENCE_NUMBER", "type": "long"},
        {"name": "_MAX_SEQUENCE_NUMBER", "type": "long"},
        {"name": "_SCHEMA_ID", "type": "long"},
        {"name": "_LEVEL", "type": "int"},
        {"name": "_EXTRA_FILES", "type": {"type": "array", "items": "string"}},
        {"name": "_CREATION_TIME", "type": ["null", {"type": "long", "logicalType": "timestamp-millis"}],
         "default": None},
        {"name": "_DELETE_ROW_COUNT", "type": ["null", "long"], "default": None},
        {"name": "_EMBEDDED_FILE_INDEX", "type": ["null", "bytes"], "default": None},
        {"name": "_FILE_SOURCE", "type": ["null", "int"], "default": None},
        {"name": "_VALUE_STATS_COLS", "type": _OPTIONAL_STRINGS, "default": None},
        {"name": "_EXTERNAL_PATH", "type": ["null", "string"], "default": None},
        {"name": "_FIRST_ROW_ID", "type": ["null", "long"], "default": None},
        {"name": "_WRITE_COLS", "type": _OPTIONAL_STRINGS, "default": None},
    ]}

MANIFEST_ENTRY_SCHEMA = {
    "type": "record", "name": "ManifestEntry", "fields": [
        {"name": "_VERSION", "type": "int"},
        {"name": "_KIND", "type": "int"},
        {"name": "_PARTITION", "type": "bytes"},
        {"name": "_BUCKET", "type": "int"},
        {"name": "_TOTAL_BUCKETS", "type": "int"},
        {"name": "_FILE", "type": DATA_FILE_SCHEMA},
    ]}

MANIFEST_FILE_META_SCHEMA = {
    "type": "record", "name": "ManifestFileMeta", "fields": [
        {"name": "_VERSION", "type": "int"},
        {"name": "_FILE_NAME", "type": "string"},
        {"name": "_FILE_SIZE", "type": "long"},
        {"name": "_NUM_ADDED_FILES", "type": "long"},
        {"name": "_NUM_DELETED_FILES", "type": "long"},
        {"name": "_PARTITION_STATS", "type": {"type": "record", "name": "record_PARTITION_STATS",
                                              "fields": _STATS_FIELDS}},
        {"name": "_SCHEMA_ID", "type": "long"},
        {"name": "_MIN_BUCKET", "type": ["null", "int"], "default": None},
        {"name": "_MAX_BUCKET", "type": ["null", "int"], "default": None},
        {"name": "_MIN_LEVEL", "type": ["null", "int"], "default": None},
        {"name": "_MAX_LEVEL", "type": ["null", "int"], "default": None},
    ]}

_PARSED = {name: fastavro.parse_schema(s) for name, s in
           (("entry", MANIFEST_ENTRY_SCHEMA), ("list", MANIFEST_FILE_META_SCHEMA))}


@dataclass(frozen=True)
class PaimonField:
    id: int
    name: str
    type: str  # e.g. "INT", "DECIMAL(10, 2)", "VARCHAR(20) NOT NULL"


@dataclass(frozen=True)
class PublishedFile:
    file_name: str  # relative to the table directory, e.g. "bucket-0/data-<uuid>-0.parquet"
    file_size: int
    row_count: int
    schema_id: int
    creation_time_ms: int = 0


@dataclass(frozen=True)
class PublishedState:
    snapshot_id: int
    schema_id: int
    commit_identifier: int
    commit_user: str
    time_millis: int
    files: dict[str, PublishedFile] = field(default_factory=dict)
    base_manifests: tuple[str, ...] = ()   # manifests of this snapshot's base list
    delta_manifest: str | None = None      # the manifest of this snapshot's delta list

    @property
    def record_count(self) -> int:
        return sum(f.row_count for f in self.files.values())


@dataclass(frozen=True)
class _ManifestMeta:
    name: str
    size: int
    added: int
    deleted: int
    schema_id: int


class PaimonTable:
    def __init__(self, table_dir: str, fs: LocalFileSystem | None = None):
        self.dir = table_dir
        self.fs = fs or LocalFileSystem()

    def _path(self, *parts: str) -> str:
        return os.path.join(self.dir, *parts)

    # --- schemas -------------------------------------------------------------------------

    def write_schema(self, schema_id: int, fields: list[PaimonField], primary_keys=(),
                     options: dict[str, str] | None = None) -> None:
        path = self._path("schema", f"schema-{schema_id}")
        if self.fs.exists(path):
            return
        self.fs.makedirs(self._path("schema"))
        doc = {"version": 3, "id": schema_id,
               "fields": [{"id": f.id, "name": f.name, "type": f.type} for f in fields],
               "highestFieldId": max((f.id for f in fields), default=-1),
               "partitionKeys": [], "primaryKeys": list(primary_keys),
               "options": dict(options or {}), "comment": None, "timeMillis": int(time.time() * 1000)}
        self.fs.put_if_absent(path, json.dumps(doc, indent=2).encode())

    def schema_options(self, schema_id: int) -> dict[str, str]:
        try:
            return json.loads(self.fs.read_bytes(self._path("schema", f"schema-{schema_id}"))).get("options", {})
        except FileNotFoundError:
            return {}

    # --- snapshots -----------------------------------------------------------------------

    def snapshot_ids(self) -> list[int]:
        names = self.fs.listdir(self._path("snapshot"))
        return sorted(int(n[9:]) for n in names if n.startswith("snapshot-") and n[9:].isdigit())

    def latest(self) -> PublishedState | None:
        try:
            hint = int(self.fs.read_bytes(self._path("snapshot", "LATEST")).decode().strip())
        except (FileNotFoundError, ValueError):
            ids = self.snapshot_ids()
            hint = ids[-1] if ids else 0
        while self.fs.exists(self._path("snapshot", f"snapshot-{hint + 1}")):
            hint += 1  # the hint may lag behind
        return self.snapshot(hint) if hint > 0 else None

    def snapshot(self, snapshot_id: int) -> PublishedState:
        doc = json.loads(self.fs.read_bytes(self._path("snapshot", f"snapshot-{snapshot_id}")))
        base = [m.name for m in self._read_list(doc["baseManifestList"])]
        delta = [m.name for m in self._read_list(doc["deltaManifestList"])]
        files: dict[str, PublishedFile] = {}
        for manifest in base + delta:
            for kind, f in self._read_manifest(manifest):
                if kind == ADD:
                    files[f.file_name] = f
                else:
                    files.pop(f.file_name, None)
        return PublishedState(doc["id"], doc["schemaId"], doc["commitIdentifier"], doc["commitUser"],
                              doc["timeMillis"], files, tuple(base), delta[0] if delta else None)

    def commit(self, *, base: PublishedState | None, schema_id: int, files: list[PublishedFile],
               commit_user: str, commit_identifier: int, time_millis: int,
               commit_kind: str | None = None) -> PublishedState | None:
        """Write the snapshot after ``base`` whose live files are exactly ``files``; None if
        another writer created that snapshot first (re-read ``latest()`` and try again)."""
        old = base.files if base is not None else {}
        new = {f.file_name: f for f in files}
        added = [f for name, f in new.items() if name not in old]
        deleted = [f for name, f in old.items() if name not in new]
        base_manifests = (list(base.base_manifests) + ([base.delta_manifest] if base.delta_manifest else [])) \
            if base is not None else []
        if len(base_manifests) > MERGE_THRESHOLD:
            base_manifests = [self._write_manifest([(ADD, f) for f in old.values()])] if old else []
        delta = self._write_manifest([(ADD, f) for f in added] + [(DELETE, f) for f in deleted])
        base_list, base_size = self._write_list(base_manifests)
        delta_list, delta_size = self._write_list([delta])
        snapshot_id = (base.snapshot_id if base else 0) + 1
        kind = commit_kind or ("APPEND" if not deleted else "OVERWRITE")
        doc = {"version": 3, "id": snapshot_id, "schemaId": schema_id,
               "baseManifestList": base_list, "deltaManifestList": delta_list,
               "totalRecordCount": sum(f.row_count for f in files),
               "deltaRecordCount": sum(f.row_count for f in added) - sum(f.row_count for f in deleted),
               "commitUser": commit_user, "commitIdentifier": commit_identifier, "commitKind": kind,
               "timeMillis": time_millis, "baseManifestListSize": base_size,
               "deltaManifestListSize": delta_size, "uuid": str(uuid.uuid4()), "writerVersion": "txlake"}
        self.fs.makedirs(self._path("snapshot"))
        if not self.fs.put_if_absent(self._path("snapshot", f"snapshot-{snapshot_id}"),
                                     json.dumps(doc, indent=2).encode()):
            return None
        try:
            self.fs.write_atomic(self._path("snapshot", "LATEST"), str(snapshot_id).encode())
        except OSError:
            pass  # a hint only
        return PublishedState(snapshot_id, schema_id, commit_identifier, commit_user, time_millis,
                              new, tuple(base_manifests), delta)

    def drop_metadata(self) -> None:
        """The table was dropped: remove its Paimon metadata (data files stay for old readers)."""
        for sub in ("snapshot", "manifest", "schema"):
            shutil.rmtree(self._path(sub), ignore_errors=True)

    # --- manifests -----------------------------------------------------------------------

    def _write_avro(self, prefix: str, schema_key: str, records: list[dict]) -> tuple[str, int]:
        name = f"{prefix}-{uuid.uuid4()}-0"
        buf = io.BytesIO()
        fastavro.writer(buf, _PARSED[schema_key], records, codec=CODEC)
        self.fs.makedirs(self._path("manifest"))
        data = buf.getvalue()
        self.fs.write_new(self._path("manifest", name), data)
        return name, len(data)

    def _write_manifest(self, entries: list[tuple[int, PublishedFile]]) -> str:
        now = datetime.datetime.now(datetime.timezone.utc)
        records = [{
            "_VERSION": 2, "_KIND": kind, "_PARTITION": EMPTY_ROW, "_BUCKET": 0, "_TOTAL_BUCKETS": -1,
            "_FILE": {
                "_FILE_NAME": os.path.basename(f.file_name), "_FILE_SIZE": f.file_size,
                "_ROW_COUNT": f.row_count, "_MIN_KEY": EMPTY_ROW, "_MAX_KEY": EMPTY_ROW,
                "_KEY_STATS": {"_MIN_VALUES": EMPTY_ROW, "_MAX_VALUES": EMPTY_ROW, "_NULL_COUNTS": []},
                "_VALUE_STATS": {"_MIN_VALUES": EMPTY_ROW, "_MAX_VALUES": EMPTY_ROW, "_NULL_COUNTS": []},
                "_MIN_SEQUENCE_NUMBER": 0, "_MAX_SEQUENCE_NUMBER": 0, "_SCHEMA_ID": f.schema_id,
                "_LEVEL": 0, "_EXTRA_FILES": [],
                "_CREATION_TIME": (datetime.datetime.fromtimestamp(f.creation_time_ms / 1000, datetime.timezone.utc)
                                   if f.creation_time_ms else now),
                "_DELETE_ROW_COUNT": 0, "_EMBEDDED_FILE_INDEX": None, "_FILE_SOURCE": 0,
                "_VALUE_STATS_COLS": [], "_EXTERNAL_PATH": None, "_FIRST_ROW_ID": None, "_WRITE_COLS": None,
            }} for kind, f in entries]
        name, size = self._write_avro("manifest", "entry", records)
        self._manifest_meta_cache[name] = _ManifestMeta(
            name, size, sum(1 for k, _ in entries if k == ADD), sum(1 for k, _ in entries if k == DELETE),
            max((f.schema_id for _, f in entries), default=0))
        return name

    _manifest_meta_cache: dict[str, _ManifestMeta] = {}

    def _meta(self, name: str) -> _ManifestMeta:
        meta = self._manifest_meta_cache.get(name)
        if meta is None:
            entries = self._read_manifest(name)
            meta = _ManifestMeta(name, self.fs.size(self._path("manifest", name)),
                                 sum(1 for k, _ in entries if k == ADD), sum(1 for k, _ in entries if k == DELETE),
                                 max((f.schema_id for _, f in entries), default=0))
            self._manifest_meta_cache[name] = meta
        return meta

    def _write_list(self, manifests: list[str]) -> tuple[str, int]:
        records = []
        for name in manifests:
            m = self._meta(name)
            records.append({
                "_VERSION": 2, "_FILE_NAME": m.name, "_FILE_SIZE": m.size,
                "_NUM_ADDED_FILES": m.added, "_NUM_DELETED_FILES": m.deleted,
                "_PARTITION_STATS": {"_MIN_VALUES": EMPTY_ROW, "_MAX_VALUES": EMPTY_ROW, "_NULL_COUNTS": []},
                "_SCHEMA_ID": m.schema_id, "_MIN_BUCKET": 0, "_MAX_BUCKET": 0, "_MIN_LEVEL": 0, "_MAX_LEVEL": 0})
        return self._write_avro("manifest-list", "list", records)

    def _read_list(self, name: str) -> list[_ManifestMeta]:
        with open(self._path("manifest", name), "rb") as f:
            return [_ManifestMeta(r["_FILE_NAME"], r["_FILE_SIZE"], r["_NUM_ADDED_FILES"],
                                  r["_NUM_DELETED_FILES"], r["_SCHEMA_ID"]) for r in fastavro.reader(f)]

    def _read_manifest(self, name: str) -> list[tuple[int, PublishedFile]]:
        with open(self._path("manifest", name), "rb") as f:
            result = []
            for r in fastavro.reader(f):
                d = r["_FILE"]
                created = d.get("_CREATION_TIME")
                ms = int(created.timestamp() * 1000) if isinstance(created, datetime.datetime) else (created or 0)
                result.append((r["_KIND"], PublishedFile(os.path.join("bucket-0", d["_FILE_NAME"]), d["_FILE_SIZE"],
                                                         d["_ROW_COUNT"], d["_SCHEMA_ID"], ms)))
            return result
