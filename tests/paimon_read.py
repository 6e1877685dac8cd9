"""Read every snapshot of a Paimon table with pypaimon and print them as one JSON document.

Runs under the python of a virtualenv with pypaimon==2.1.0 (``paimon_env.paimon_python()``),
never in txlake's own environment:

    paimon_read.py TABLE_DIR

prints

    {"fields": [{"id": 0, "name": "a", "type": "INT"}, ...],          # the latest schema
     "snapshots": {"<id>": {"commit_identifier": n, "schema_id": s,
                            "columns": ["a", ...], "rows": [[...], ...]}, ...}}

Rows are sorted by their JSON text; values are encoded deterministically: decimals as their
exact string, dates, times and timestamps in ISO form, bytes as \\x and hex, non-finite floats as "NaN" /
"Infinity", arrays as lists of their encoded elements.
"""

import datetime
import decimal
import json
import math
import sys

from pypaimon.table.file_store_table import FileStoreTable


def encode(value):
    if isinstance(value, list):  # (an array's elements, each encoded)
        return [encode(v) for v in value]
    if isinstance(value, decimal.Decimal):
        return str(value)
    if isinstance(value, (datetime.datetime, datetime.date, datetime.time)):
        return value.isoformat()
    if isinstance(value, bytes):
        return "\\x" + value.hex()
    if isinstance(value, float) and not math.isfinite(value):
        return "NaN" if math.isnan(value) else ("Infinity" if value > 0 else "-Infinity")
    return value


def read_snapshot(table, snapshot) -> dict:
    at = table.copy({"scan.snapshot-id": str(snapshot.id)})
    builder = at.new_read_builder()
    arrow = builder.new_read().to_arrow(builder.new_scan().plan().splits())
    columns = [f.name for f in at.fields]
    rows = [] if arrow is None else [[encode(v) for v in row.values()] for row in arrow.to_pylist()]
    return {"commit_identifier": snapshot.commit_identifier, "schema_id": snapshot.schema_id,
            "columns": columns, "rows": sorted(rows, key=json.dumps)}


def read_all(table_dir: str) -> dict:
    table = FileStoreTable.from_path(table_dir)
    manager = table.snapshot_manager()
    latest = manager.get_latest_snapshot()
    snapshots = {}
    for snapshot_id in range(1, (latest.id if latest else 0) + 1):
        snapshot = manager.get_snapshot_by_id(snapshot_id)
        if snapshot is not None:  # expired
            snapshots[str(snapshot_id)] = read_snapshot(table, snapshot)
    return {"fields": [{"id": f.id, "name": f.name, "type": str(f.type)} for f in table.fields],
            "snapshots": snapshots}


if __name__ == "__main__":
    print(json.dumps(read_all(sys.argv[1])))
