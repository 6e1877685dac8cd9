"""Read every snapshot of a Paimon table with pypaimon and print them as one JSON document.

Run with the python of a virtualenv that has pypaimon==2.1.0 (see paimon_env.py):

    paimon_read.py TABLE_DIR  ->  {"snapshots": {"<id>": {"commit_identifier": n, "rows": [[...], ...]}},
                                   "fields": [...]}

Values are encoded deterministically (decimals, dates and timestamps as ISO strings), rows sorted.
"""

import datetime
import decimal
import json
import os
import sys

from pypaimon.table.file_store_table import FileStoreTable  # noqa: E402


def encode(value):
    if isinstance(value, decimal.Decimal):
        return str(value)
    if isinstance(value, (datetime.datetime, datetime.date)):
        return value.isoformat()
    if isinstance(value, float) and value != value:
        return "NaN"
    return value


def read_all(table_dir: str) -> dict:
    from pypaimon.catalog.catalog_factory import CatalogFactory  # noqa: F401 - registers file IO
    table = FileStoreTable.from_path(table_dir) if hasattr(FileStoreTable, "from_path") else None
    snapshots = sorted(int(n.split("-")[1]) for n in os.listdir(os.path.join(table_dir, "snapshot"))
                       if n.startswith("snapshot-"))
    result = {}
    for sid in snapshots:
        meta = json.load(open(os.path.join(table_dir, "snapshot", f"snapshot-{sid}")))
        t = table.copy({"scan.snapshot-id": str(sid)})
        rb = t.new_read_builder()
        splits = rb.new_scan().plan().splits()
        arrow = rb.new_read().to_arrow(splits)
        rows = [] if arrow is None else [[encode(v) for v in row.values()] for row in arrow.to_pylist()]
        result[str(sid)] = {"commit_identifier": meta["commitIdentifier"],
                            "columns": [] if arrow is None else arrow.column_names,
                            "rows": sorted(rows, key=json.dumps)}
    return {"snapshots": result}


if __name__ == "__main__":
    print(json.dumps(read_all(sys.argv[1])))
