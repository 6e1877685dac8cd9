"""A Paimon table directory as txlake publishes it: schema and snapshot files, and the commit.

Layout (``<table_dir>/``), measured against pypaimon 2.1.0, the reader published tables are
checked with:

- ``schema/schema-N``: JSON, ``version`` 3 (older versions make readers assume one bucket and
  ORC), fields with ids, names and Paimon type strings. Tables are *append tables*: no
  partition keys, no Paimon primary keys (a Paimon primary-key table needs key/sequence/row-kind
  columns in every file); txlake's own key travels in ``options`` as ``txlake.primary-key``.
  ``bucket`` -1 (bucket-unaware), ``file.format`` parquet, and ``manifest.compression`` deflate
  so that a Paimon writer adding to the table keeps manifests txlake can read without zstd.
- ``snapshot/snapshot-N``: JSON with every key pypaimon requires; ``commitIdentifier`` is the
  txlake commit sequence number (CSN) whose state the snapshot shows. Created put-if-absent, so
  two writers can never both write snapshot N (pypaimon's own check-then-rename can).
  ``snapshot/LATEST`` is a hint only; readers probe past it.
- ``manifest/``: Avro manifests and manifest lists (see ``manifest.py``).
- Data files: Parquet at ``bucket-0/<name>.parquet`` (pypaimon picks the reader by extension).
  They need no Paimon-specific metadata - no field ids, no key-value metadata: pypaimon reads
  a file's columns *by name*, using the names of the schema the manifest entry gives as the
  file's ``_SCHEMA_ID``, and maps them to the snapshot's schema by field id. So a file must carry
  the column names of the schema id it is published with; renames and added columns then just
  work. ``parquet_schema`` gives the Arrow types pypaimon expects for each Paimon type.

Invariants of the snapshots ``commit`` writes:

- Snapshot N's base manifest list plus its delta manifest list describe exactly its live files,
  read in list order with ADD/DELETE applied in that order. The delta list holds N's own
  changes (ADD for new files, DELETE for removed ones), or nothing.
- Manifest lists stay bounded: N's base list is N-1's base list plus N-1's delta manifest, until
  that exceeds ``merge_threshold`` manifests; then one manifest of ADD entries for N-1's live
  files replaces them. A commit therefore writes O(its changes + merge_threshold) metadata, plus
  O(live files) once every ``merge_threshold`` commits - never anything that grows with history
  (pypaimon's writer appends every manifest to the base list forever).
- pypaimon applies DELETE entries regardless of order (a file deleted by any manifest of a
  snapshot is gone), so a file name deleted in the current chain and then added again would
  vanish for it. ``commit`` merges the base first in that case, so the chain never holds a
  DELETE for a live file.
- A file name identifies immutable content: a file kept from ``base`` keeps its recorded
  metadata whatever the caller passes.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import time
import uuid
from dataclasses import dataclass, field, replace

import pyarrow as pa

from txlake.storage.format.manifest import (
    ADD, DELETE, ManifestEntry, ManifestFileMeta, decode_manifest, decode_manifest_list,
    describe_manifest, encode_manifest, encode_manifest_list)
from txlake.storage.fs import LocalFileSystem

SNAPSHOT_VERSION = 3
SCHEMA_VERSION = 3
MERGE_THRESHOLD = 8
COMMIT_KINDS = ("APPEND", "COMPACT", "OVERWRITE", "ANALYZE")
PRIMARY_KEY_OPTION = "txlake.primary-key"
# Options every published schema carries (a caller's options may override them).
TABLE_OPTIONS = {"bucket": "-1", "file.format": "parquet", "manifest.compression": "deflate"}

DATA_FILE_PATTERN = re.compile(r"bucket-(\d+)/([^/]+\.parquet)")
_LATEST_RETRIES = 10


@dataclass(frozen=True)
class PaimonField:
    id: int
    name: str
    type: str  # Paimon type string, e.g. "INT", "DECIMAL(10, 2)", "VARCHAR(20) NOT NULL"


@dataclass(frozen=True)
class PaimonSchema:
    schema_id: int
    fields: tuple[PaimonField, ...]
    options: dict[str, str]


@dataclass(frozen=True)
class PublishedFile:
    file_name: str  # relative to the table directory: "bucket-0/data-<uuid>-0.parquet"
    file_size: int
    row_count: int
    schema_id: int  # the schema whose field names the file's columns carry
    creation_time_ms: int = 0  # 0: unknown, recorded as the commit's time


@dataclass(frozen=True)
class PublishedState:
    snapshot_id: int
    schema_id: int
    commit_identifier: int
    commit_user: str
    time_millis: int
    files: dict[str, PublishedFile]  # live data files by file_name
    commit_kind: str = "APPEND"
    base_manifest_list: str | None = None
    delta_manifest_list: str | None = None
    base_manifests: tuple[str, ...] = ()   # the manifests of the base list
    delta_manifest: str | None = None      # the manifest of the delta list, if any
    # What the next commit builds on without reading anything back: the base and delta
    # manifests in list order, and the file names they DELETE.
    chain: tuple[ManifestFileMeta, ...] = field(default=(), compare=False, repr=False)
    chain_deleted: frozenset[str] = field(default=frozenset(), compare=False, repr=False)

    @property
    def record_count(self) -> int:
        return sum(f.row_count for f in self.files.values())

    @property
    def metadata_files(self) -> frozenset[str]:
        """Names under ``manifest/`` this snapshot needs: its two lists and their manifests."""
        names = {self.base_manifest_list, self.delta_manifest_list, *(m.file_name for m in self.chain)}
        names.discard(None)
        return frozenset(names)


# --- types ----------------------------------------------------------------------------------

_ARROW_TYPES = {
    "BOOLEAN": pa.bool_(), "TINYINT": pa.int8(), "SMALLINT": pa.int16(), "INT": pa.int32(), "BIGINT": pa.int64(),
    "FLOAT": pa.float32(), "DOUBLE": pa.float64(),
    "STRING": pa.string(), "BYTES": pa.binary(), "DATE": pa.date32(),
}


def arrow_type(paimon_type: str) -> pa.DataType:
    """The Arrow type of a Paimon type string, as pypaimon reads it from Parquet."""
    t = paimon_type.upper().removesuffix(" NOT NULL").strip()
    if t in _ARROW_TYPES:
        return _ARROW_TYPES[t]
    if m := re.fullmatch(r"DECIMAL\((\d+),\s*(\d+)\)", t):
        return pa.decimal128(int(m[1]), int(m[2]))
    if re.fullmatch(r"VARCHAR\(\d+\)", t):
        return pa.string()  # not large_string: pypaimon reads character types as string
    if m := re.fullmatch(r"TIMESTAMP(_LTZ)?\((\d)\)( WITH LOCAL TIME ZONE)?", t):
        precision = int(m[2])  # (an instant, WITH LOCAL TIME ZONE: pypaimon reads it in UTC)
        return pa.timestamp("s" if precision == 0 else "ms" if precision <= 3 else "us" if precision <= 6 else "ns",
                            tz="UTC" if m[1] or m[3] else None)
    if m := re.fullmatch(r"TIME\((\d)\)", t):
        return pa.time32("ms") if int(m[1]) <= 3 else pa.time64("us" if int(m[1]) <= 6 else "ns")
    if m := re.fullmatch(r"ARRAY<(.+)>", t):
        return pa.list_(arrow_type(m[1]))
    raise ValueError(f"no Arrow type for Paimon type {paimon_type!r}")


def type_json(paimon_type: str) -> str | dict:
    """A type as a schema file holds it: a string, but an array as Paimon's JSON object
    (``{"type": "ARRAY NOT NULL", "element": "INT"}``; its element has no field id of its own)."""
    if m := re.fullmatch(r"ARRAY<(.+)>( NOT NULL)?", paimon_type):
        return {"type": "ARRAY" + (m[2] or ""), "element": type_json(m[1])}
    return paimon_type


def type_text(stored: str | dict) -> str:
    """The type string of a schema file's type (``type_json`` undone)."""
    if isinstance(stored, dict):
        kind = stored["type"]
        return f"ARRAY<{type_text(stored['element'])}>{kind.removeprefix('ARRAY')}"
    return stored


def parquet_schema(fields: list[PaimonField]) -> pa.Schema:
    """The Arrow schema a data file published under these fields is written with. Names and
    types are all pypaimon needs; it ignores Parquet field ids, so none are set."""
    return pa.schema([pa.field(f.name, arrow_type(f.type), nullable=not f.type.upper().endswith(" NOT NULL"))
                      for f in fields])


# --- the table ------------------------------------------------------------------------------

class PaimonTable:
    """The Paimon metadata of one table directory. Holds no state of its own: any number of
    instances, threads and processes may read and commit concurrently."""

    def __init__(self, table_dir: str, fs: LocalFileSystem | None = None,
                 merge_threshold: int = MERGE_THRESHOLD):
        if merge_threshold < 1:
            raise ValueError("merge_threshold must be at least 1")
        self.dir = table_dir
        self.fs = fs or LocalFileSystem()
        self.merge_threshold = merge_threshold

    def _path(self, *parts: str) -> str:
        return os.path.join(self.dir, *parts)

    def _snapshot_path(self, snapshot_id: int) -> str:
        return self._path("snapshot", f"snapshot-{snapshot_id}")

    # --- schemas -----------------------------------------------------------------------------

    def write_schema(self, schema_id: int, fields: list[PaimonField], primary_keys: list[str] = (),
                     options: dict[str, str] | None = None) -> None:
        """Create ``schema/schema-<id>`` put-if-absent; a schema already there is kept."""
        path = self._path("schema", f"schema-{schema_id}")
        if self.fs.exists(path):
            return
        all_options = {**TABLE_OPTIONS, **(options or {})}
        if primary_keys:
            all_options[PRIMARY_KEY_OPTION] = ",".join(primary_keys)
        # Paimon writers give new columns ids above highestFieldId; it must not fall back when
        # the highest column is dropped, or a re-added column would read the dropped one's data.
        earlier = [i for i in self.schema_ids() if i < schema_id]
        highest = self._read_schema_doc(earlier[-1])["highestFieldId"] if earlier else -1
        doc = {"version": SCHEMA_VERSION, "id": schema_id,
               "fields": [{"id": f.id, "name": f.name, "type": type_json(f.type)} for f in fields],
               "highestFieldId": max([highest, *(f.id for f in fields)]),
               "partitionKeys": [], "primaryKeys": [], "options": all_options,
               "timeMillis": int(time.time() * 1000)}
        self.fs.makedirs(self._path("schema"))
        self.fs.put_if_absent(path, json.dumps(doc, indent=2).encode())

    def schema_ids(self) -> list[int]:
        names = self.fs.listdir(self._path("schema"))
        return sorted(int(n[7:]) for n in names if n.startswith("schema-") and n[7:].isdigit())

    def _read_schema_doc(self, schema_id: int) -> dict:
        return json.loads(self.fs.read_bytes(self._path("schema", f"schema-{schema_id}")))

    def read_schema(self, schema_id: int) -> PaimonSchema:
        doc = self._read_schema_doc(schema_id)
        fields = tuple(PaimonField(f["id"], f["name"], type_text(f["type"])) for f in doc["fields"])
        return PaimonSchema(doc["id"], fields, doc.get("options") or {})

    def schema_options(self, schema_id: int) -> dict[str, str]:
        """The options of a schema; empty if it does not exist (e.g. dropped meanwhile)."""
        try:
            return self.read_schema(schema_id).options
        except FileNotFoundError:
            return {}

    # --- reading snapshots ---------------------------------------------------------------------

    def snapshot_ids(self) -> list[int]:
        names = self.fs.listdir(self._path("snapshot"))
        return sorted(int(n[9:]) for n in names if n.startswith("snapshot-") and n[9:].isdigit())

    def latest(self) -> PublishedState | None:
        """The newest snapshot, or None if the table has none."""
        for _ in range(_LATEST_RETRIES):
            snapshot_id = self._latest_id()
            if snapshot_id is None:
                return None
            try:
                return self.snapshot(snapshot_id)
            except FileNotFoundError:
                if self.fs.exists(self._snapshot_path(snapshot_id)):
                    raise  # the snapshot is there but a file it needs is not
                # expired or dropped between finding and reading it: look again
        raise FileNotFoundError(f"no stable latest snapshot under {self.dir}")

    def _latest_id(self) -> int | None:
        # LATEST is written after the snapshot, best effort, and may lag, be missing or (after a
        # drop and re-create) point at nothing: trust it only as a starting point.
        try:
            hint = int(self.fs.read_bytes(self._path("snapshot", "LATEST")).decode().strip())
        except (FileNotFoundError, ValueError):
            hint = None
        if hint is None or not self.fs.exists(self._snapshot_path(hint)):
            ids = self.snapshot_ids()
            if not ids:
                return None
            hint = ids[-1]
        while self.fs.exists(self._snapshot_path(hint + 1)):
            hint += 1
        return hint

    def snapshot(self, snapshot_id: int) -> PublishedState:
        """Snapshot ``snapshot_id`` with its live files read back from its manifests."""
        doc = json.loads(self.fs.read_bytes(self._snapshot_path(snapshot_id)))
        base = self._read_list(doc["baseManifestList"])
        delta = self._read_list(doc["deltaManifestList"])
        files: dict[str, PublishedFile] = {}
        deleted: set[str] = set()
        for meta in base + delta:
            for entry in decode_manifest(self.fs.read_bytes(self._path("manifest", meta.file_name))):
                f = _published(entry)
                if entry.kind == ADD:
                    files[f.file_name] = f
                else:
                    files.pop(f.file_name, None)
                    deleted.add(f.file_name)
        return PublishedState(
            doc["id"], doc["schemaId"], doc["commitIdentifier"], doc["commitUser"], doc["timeMillis"],
            files, doc["commitKind"], doc["baseManifestList"], doc["deltaManifestList"],
            tuple(m.file_name for m in base), delta[0].file_name if delta else None,
            tuple(base + delta), frozenset(deleted))

    def _read_list(self, name: str) -> list[ManifestFileMeta]:
        return decode_manifest_list(self.fs.read_bytes(self._path("manifest", name)))

    # --- committing ----------------------------------------------------------------------------

    def commit(self, *, base: PublishedState | None, schema_id: int, files: list[PublishedFile],
               commit_user: str, commit_identifier: int, time_millis: int,
               commit_kind: str | None = None) -> PublishedState | None:
        """Write the snapshot after ``base`` (or snapshot 1) whose live files are exactly
        ``files``. None if ``base`` is no longer the newest snapshot - another writer took the
        id, or the table was dropped: re-read ``latest()`` and try again. Nothing a lost attempt
        wrote is left behind, except after a crash (orphan-file removal's business)."""
        old = base.files if base is not None else {}
        new: dict[str, PublishedFile] = {}
        for f in files:
            if not DATA_FILE_PATTERN.fullmatch(f.file_name):
                raise ValueError(f"data file {f.file_name!r} is not bucket-<n>/<name>.parquet")
            if f.file_name in old:
                f = old[f.file_name]  # the same immutable file: keep what was recorded
            elif not f.creation_time_ms:
                f = replace(f, creation_time_ms=time_millis)
            new[f.file_name] = f
        added = [f for name, f in new.items() if name not in old]
        deleted = [f for name, f in old.items() if name not in new]
        kind = commit_kind or ("OVERWRITE" if deleted else "APPEND")
        if kind not in COMMIT_KINDS:
            raise ValueError(f"commit kind must be one of {COMMIT_KINDS}, not {kind!r}")
        snapshot_id = base.snapshot_id + 1 if base is not None else 1
        if base is not None and not self.fs.exists(self._snapshot_path(base.snapshot_id)):
            return None  # dropped (or expired, so not the newest): never append to a gap
        if self.fs.exists(self._snapshot_path(snapshot_id)):
            return None  # taken already: spare the manifests (put_if_absent below decides)
        for needed in {schema_id, *(f.schema_id for f in added)}:
            if not self.fs.exists(self._path("schema", f"schema-{needed}")):
                raise ValueError(f"schema {needed} is not written (write_schema first): readers need it")

        self.fs.makedirs(self._path("manifest"))
        written: list[str] = []  # this attempt's files, removed again if it loses the race
        chain = list(base.chain) if base is not None else []
        chain_deleted = base.chain_deleted if base is not None else frozenset()
        if (len(chain) > self.merge_threshold or (old and not chain)
                or any(f.file_name in chain_deleted for f in added)):
            chain = [self._write_manifest([_entry(ADD, f) for f in old.values()], written)] if old else []
            chain_deleted = frozenset()
        changes = [_entry(ADD, f) for f in added] + [_entry(DELETE, f) for f in deleted]
        delta = [self._write_manifest(changes, written)] if changes else []
        list_id = uuid.uuid4()
        base_list, base_size = self._write_list(f"manifest-list-{list_id}-0", chain, written)
        delta_list, delta_size = self._write_list(f"manifest-list-{list_id}-1", delta, written)
        # The manifests' directory entries must be durable before a snapshot refers to them.
        self.fs.fsync_dir(self._path("manifest"))

        doc = {"version": SNAPSHOT_VERSION, "id": snapshot_id, "schemaId": schema_id,
               "baseManifestList": base_list, "baseManifestListSize": base_size,
               "deltaManifestList": delta_list, "deltaManifestListSize": delta_size,
               "commitUser": commit_user, "commitIdentifier": commit_identifier, "commitKind": kind,
               "timeMillis": time_millis,
               "totalRecordCount": sum(f.row_count for f in new.values()),
               "deltaRecordCount": sum(f.row_count for f in added) - sum(f.row_count for f in deleted)}
        self.fs.makedirs(self._path("snapshot"))
        if not self.fs.put_if_absent(self._snapshot_path(snapshot_id), json.dumps(doc, indent=2).encode()):
            for name in written:  # referenced by no snapshot
                self.fs.remove(self._path("manifest", name))
            return None
        try:
            self.fs.write_atomic(self._path("snapshot", "LATEST"), str(snapshot_id).encode())
        except OSError:
            pass  # a hint only: readers probe past a stale or missing one
        return PublishedState(
            snapshot_id, schema_id, commit_identifier, commit_user, time_millis, new, kind,
            base_list, delta_list, tuple(m.file_name for m in chain), delta[0].file_name if delta else None,
            tuple(chain + delta), chain_deleted | {f.file_name for f in deleted})

    def _write_manifest(self, entries: list[ManifestEntry], written: list[str]) -> ManifestFileMeta:
        name = f"manifest-{uuid.uuid4()}-0"
        data = encode_manifest(entries)
        written.append(name)
        self.fs.write_new(self._path("manifest", name), data)
        return describe_manifest(name, len(data), entries)

    def _write_list(self, name: str, manifests: list[ManifestFileMeta], written: list[str]) -> tuple[str, int]:
        data = encode_manifest_list(manifests)
        written.append(name)
        self.fs.write_new(self._path("manifest", name), data)
        return name, len(data)

    def drop_metadata(self) -> None:
        """The table was dropped: remove its Paimon metadata; data files stay (old readers)."""
        for sub in ("snapshot", "manifest", "schema"):  # snapshots first: they point at the rest
            shutil.rmtree(self._path(sub), ignore_errors=True)


def _entry(kind: int, f: PublishedFile) -> ManifestEntry:
    bucket, name = DATA_FILE_PATTERN.fullmatch(f.file_name).groups()
    return ManifestEntry(kind, int(bucket), name, f.file_size, f.row_count, f.schema_id, f.creation_time_ms)


def _published(entry: ManifestEntry) -> PublishedFile:
    return PublishedFile(f"bucket-{entry.bucket}/{entry.file_name}", entry.file_size, entry.row_count,
                         entry.schema_id, entry.creation_time_ms or 0)
