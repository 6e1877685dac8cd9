"""Paimon manifests and manifest lists: Avro records and their (de)serialisers.

A *manifest* is an Avro file of ``ManifestEntry`` records, each ADDing or DELETEing one data
file; a *manifest list* is an Avro file of ``ManifestFileMeta`` records naming manifests. These
functions turn records into file bytes and back; where the files live is ``paimon.py``'s
business.

Guaranteed (checked against pypaimon 2.1.0's manifest readers):

- The writer schemas carry every field pypaimon 2.1.0 itself writes, in its order. Its reader
  indexes ``_FILE`` fields up to ``_VALUE_STATS_COLS`` directly (the rest via ``.get``) and the
  first seven manifest-list fields directly, so none of those may be left out.
- txlake publishes unpartitioned, bucket-unaware append tables without column statistics: the
  partition, the min/max keys and all min/max stats are the empty ``BinaryRow`` (12 zero bytes,
  see ``EMPTY_ROW``) and ``_VALUE_STATS_COLS`` is the empty list, which tells readers "no column
  has stats" - pypaimon then never prunes a file by stats, whatever the predicate.
- Readers match a DELETE to its ADD on (partition, bucket, level, file name, extra files,
  embedded index, external path); all but bucket and name are constant here, so a DELETE entry
  built from the same ``ManifestEntry`` fields always cancels its ADD.
- The Avro codec is deflate: fastavro has it built in (its zstd needs an extra package, and
  fastavro readers - pypaimon's included - accept any standard codec, named in the file header).
- ``decode_*`` read what ``encode_*`` wrote, and any other writer's files with the same fields.
"""

from __future__ import annotations

import io
from dataclasses import dataclass

import fastavro

ADD, DELETE = 0, 1
CODEC = "deflate"
ENTRY_VERSION = 2  # the _VERSION pypaimon 2.1.0 writes in both record kinds
UNAWARE_BUCKETS = -1  # _TOTAL_BUCKETS of a bucket-unaware (bucket = -1) append table

# A serialised BinaryRow with no fields: a 4-byte big-endian arity (0), then the fixed part,
# which for arity 0 is just the 8-byte header/null-bit word. Partition, keys and stats are all
# empty rows for an unpartitioned append table without stats.
EMPTY_ROW = bytes(12)


@dataclass(frozen=True)
class ManifestEntry:
    """One ADD or DELETE of a data file at ``bucket-<bucket>/<file_name>``."""
    kind: int                # ADD or DELETE
    bucket: int
    file_name: str           # the bare file name; the reader prefixes the bucket directory
    file_size: int
    row_count: int
    schema_id: int           # the schema whose field names the file's columns carry
    creation_time_ms: int | None = None


@dataclass(frozen=True)
class ManifestFileMeta:
    """A manifest as a manifest list describes it."""
    file_name: str
    file_size: int
    num_added_files: int
    num_deleted_files: int
    schema_id: int           # the newest schema id among the manifest's entries
    min_bucket: int | None = 0
    max_bucket: int | None = 0


# --- Avro schemas ---------------------------------------------------------------------------

def _optional(avro_type) -> list:
    return ["null", avro_type]


def _stats_record(name: str) -> dict:
    return {"type": "record", "name": name, "fields": [
        {"name": "_MIN_VALUES", "type": "bytes"},
        {"name": "_MAX_VALUES", "type": "bytes"},
        {"name": "_NULL_COUNTS", "type": _optional({"type": "array", "items": _optional("long")}),
         "default": None},
    ]}


def _strings() -> dict:
    return {"type": "array", "items": "string"}


_DATA_FILE = {"type": "record", "name": "DataFileMeta", "fields": [
    {"name": "_FILE_NAME", "type": "string"},
    {"name": "_FILE_SIZE", "type": "long"},
    {"name": "_ROW_COUNT", "type": "long"},
    {"name": "_MIN_KEY", "type": "bytes"},
    {"name": "_MAX_KEY", "type": "bytes"},
    {"name": "_KEY_STATS", "type": _stats_record("record_KEY_STATS")},
    {"name": "_VALUE_STATS", "type": _stats_record("record_VALUE_STATS")},
    {"name": "_MIN_SEQUENCE_NUMBER", "type": "long"},
    {"name": "_MAX_SEQUENCE_NUMBER", "type": "long"},
    {"name": "_SCHEMA_ID", "type": "long"},
    {"name": "_LEVEL", "type": "int"},
    {"name": "_EXTRA_FILES", "type": _strings()},
    {"name": "_CREATION_TIME", "type": _optional({"type": "long", "logicalType": "timestamp-millis"}),
     "default": None},
    {"name": "_DELETE_ROW_COUNT", "type": _optional("long"), "default": None},
    {"name": "_EMBEDDED_FILE_INDEX", "type": _optional("bytes"), "default": None},
    {"name": "_FILE_SOURCE", "type": _optional("int"), "default": None},
    {"name": "_VALUE_STATS_COLS", "type": _optional(_strings()), "default": None},
    {"name": "_EXTERNAL_PATH", "type": _optional("string"), "default": None},
    {"name": "_FIRST_ROW_ID", "type": _optional("long"), "default": None},
    {"name": "_WRITE_COLS", "type": _optional(_strings()), "default": None},
    {"name": "_WRITE_COLS_SEQUENCES", "type": _optional({"type": "array", "items": "long"}), "default": None},
]}

_MANIFEST_ENTRY = {"type": "record", "name": "ManifestEntry", "fields": [
    {"name": "_VERSION", "type": "int"},
    {"name": "_KIND", "type": "int"},
    {"name": "_PARTITION", "type": "bytes"},
    {"name": "_BUCKET", "type": "int"},
    {"name": "_TOTAL_BUCKETS", "type": "int"},
    {"name": "_FILE", "type": _DATA_FILE},
]}

_MANIFEST_FILE_META = {"type": "record", "name": "ManifestFileMeta", "fields": [
    {"name": "_VERSION", "type": "int"},
    {"name": "_FILE_NAME", "type": "string"},
    {"name": "_FILE_SIZE", "type": "long"},
    {"name": "_NUM_ADDED_FILES", "type": "long"},
    {"name": "_NUM_DELETED_FILES", "type": "long"},
    {"name": "_PARTITION_STATS", "type": _stats_record("record_PARTITION_STATS")},
    {"name": "_SCHEMA_ID", "type": "long"},
    {"name": "_MIN_BUCKET", "type": _optional("int"), "default": None},
    {"name": "_MAX_BUCKET", "type": _optional("int"), "default": None},
    {"name": "_MIN_LEVEL", "type": _optional("int"), "default": None},
    {"name": "_MAX_LEVEL", "type": _optional("int"), "default": None},
    {"name": "_MIN_ROW_ID", "type": _optional("long"), "default": None},
    {"name": "_MAX_ROW_ID", "type": _optional("long"), "default": None},
    {"name": "_TOTAL_BUCKETS", "type": _optional("int"), "default": None},
    {"name": "_EXTRA_FILES", "type": _optional(_strings()), "default": None},
]}

_ENTRY_SCHEMA = fastavro.parse_schema(_MANIFEST_ENTRY)
_LIST_SCHEMA = fastavro.parse_schema(_MANIFEST_FILE_META)


def _empty_stats() -> dict:
    return {"_MIN_VALUES": EMPTY_ROW, "_MAX_VALUES": EMPTY_ROW, "_NULL_COUNTS": []}


def _avro_bytes(schema, records: list[dict]) -> bytes:
    buf = io.BytesIO()
    fastavro.writer(buf, schema, records, codec=CODEC)
    return buf.getvalue()


# --- manifests ------------------------------------------------------------------------------

def encode_manifest(entries: list[ManifestEntry]) -> bytes:
    return _avro_bytes(_ENTRY_SCHEMA, [{
        "_VERSION": ENTRY_VERSION,
        "_KIND": e.kind,
        "_PARTITION": EMPTY_ROW,
        "_BUCKET": e.bucket,
        "_TOTAL_BUCKETS": UNAWARE_BUCKETS,
        "_FILE": {
            "_FILE_NAME": e.file_name,
            "_FILE_SIZE": e.file_size,
            "_ROW_COUNT": e.row_count,
            "_MIN_KEY": EMPTY_ROW,
            "_MAX_KEY": EMPTY_ROW,
            "_KEY_STATS": _empty_stats(),
            "_VALUE_STATS": _empty_stats(),
            # Sequence numbers order the rows of primary-key tables; an append table has none.
            "_MIN_SEQUENCE_NUMBER": 0,
            "_MAX_SEQUENCE_NUMBER": 0,
            "_SCHEMA_ID": e.schema_id,
            "_LEVEL": 0,
            "_EXTRA_FILES": [],
            "_CREATION_TIME": e.creation_time_ms,  # fastavro writes an int as is
            "_DELETE_ROW_COUNT": 0,
            "_EMBEDDED_FILE_INDEX": None,
            "_FILE_SOURCE": 0,                      # APPEND (1 would be COMPACT)
            "_VALUE_STATS_COLS": [],
            "_EXTERNAL_PATH": None,
            "_FIRST_ROW_ID": None,
            "_WRITE_COLS": None,
            "_WRITE_COLS_SEQUENCES": None,
        }} for e in entries])


def decode_manifest(data: bytes) -> list[ManifestEntry]:
    entries = []
    for r in fastavro.reader(io.BytesIO(data)):
        f = r["_FILE"]
        created = f.get("_CREATION_TIME")
        if created is not None and not isinstance(created, int):
            # fastavro hands timestamp-millis back as an aware datetime; keep the raw millis.
            created = round(created.timestamp() * 1000)
        entries.append(ManifestEntry(r["_KIND"], r["_BUCKET"], f["_FILE_NAME"], f["_FILE_SIZE"],
                                     f["_ROW_COUNT"], f["_SCHEMA_ID"], created))
    return entries


def describe_manifest(file_name: str, file_size: int, entries: list[ManifestEntry]) -> ManifestFileMeta:
    """The manifest-list record of a manifest holding ``entries`` (non-empty)."""
    added = sum(1 for e in entries if e.kind == ADD)
    return ManifestFileMeta(file_name, file_size, added, len(entries) - added,
                            max(e.schema_id for e in entries),
                            min(e.bucket for e in entries), max(e.bucket for e in entries))


# --- manifest lists -------------------------------------------------------------------------

def encode_manifest_list(manifests: list[ManifestFileMeta]) -> bytes:
    return _avro_bytes(_LIST_SCHEMA, [{
        "_VERSION": ENTRY_VERSION,
        "_FILE_NAME": m.file_name,
        "_FILE_SIZE": m.file_size,
        "_NUM_ADDED_FILES": m.num_added_files,
        "_NUM_DELETED_FILES": m.num_deleted_files,
        "_PARTITION_STATS": _empty_stats(),
        "_SCHEMA_ID": m.schema_id,
        # Bucket and level ranges let readers skip manifests (every txlake file is level 0).
        # Total buckets stays null: it is only meaningful for fixed-bucket tables.
        "_MIN_BUCKET": m.min_bucket, "_MAX_BUCKET": m.max_bucket, "_MIN_LEVEL": 0, "_MAX_LEVEL": 0,
        "_MIN_ROW_ID": None, "_MAX_ROW_ID": None, "_TOTAL_BUCKETS": None, "_EXTRA_FILES": None,
    } for m in manifests])


def decode_manifest_list(data: bytes) -> list[ManifestFileMeta]:
    return [ManifestFileMeta(r["_FILE_NAME"], r["_FILE_SIZE"], r["_NUM_ADDED_FILES"],
                             r["_NUM_DELETED_FILES"], r["_SCHEMA_ID"],
                             r.get("_MIN_BUCKET"), r.get("_MAX_BUCKET"))
            for r in fastavro.reader(io.BytesIO(data))]
