"""Small deltas travel inline in the log entry: a one-row commit writes one file (the entry),
and the rows become a Parquet file only when published or compacted."""

import glob
import json
import os

import txlake
from txlake.storage.fs import LocalFileSystem
from txlake.storage.txlog import TxLog
from tests.storage.test_published_paimon import check_all_snapshots
from txlake.storage.commit import INLINE_ROWS


def parquet_files(warehouse: str) -> list[str]:
    return glob.glob(os.path.join(warehouse, "default.db", "t", "bucket-0", "*.parquet"))


def test_small_commit_is_inline_and_survives_reopen(warehouse):
    conn = txlake.connect(warehouse, autocommit=True, publish="off")
    conn.execute("CREATE TABLE t (id INT PRIMARY KEY, s VARCHAR, d DECIMAL(10,2), ts TIMESTAMP)")
    conn.execute("INSERT INTO t VALUES (1, 'a', 1.25, '2024-01-01 10:00:00'), (2, NULL, NULL, NULL)")
    conn.execute(f"INSERT INTO t SELECT i, 'bulk', i, NULL FROM range(10, {10 + INLINE_ROWS + 1}) r(i)")
    conn.close()
    files = parquet_files(warehouse)
    assert len(files) == 1, "only the commit above the inline limit wrote a Parquet file"
    entry = TxLog(warehouse, LocalFileSystem()).read(2).to_json()
    assert "inline" in entry["changes"][0]["added"][0]
    again = txlake.connect(warehouse, autocommit=True, publish="off")
    assert again.execute("SELECT * FROM t WHERE id < 10 ORDER BY id").fetchall()[0][:2] == (1, "a")
    again.execute("UPDATE t SET s = 'b' WHERE id = 1")           # a deletion in an inline file
    assert again.execute("SELECT s FROM t WHERE id = 1").fetchone() == ("b",)
    assert again.execute("SELECT count(*) FROM t").fetchone() == (INLINE_ROWS + 3,)
    again.close()


def test_published_inline_rows_read_identically_with_pypaimon(warehouse):
    conn = txlake.connect(warehouse, autocommit=True, publish="sync")
    conn.execute("CREATE TABLE t (id INT, s VARCHAR)")
    for i in range(3):
        conn.execute(f"INSERT INTO t VALUES ({i}, 'row {i}')")
    conn.execute("DELETE FROM t WHERE id = 1")
    conn.close()
    assert parquet_files(warehouse), "publishing materialises inline rows as Parquet files"
    assert check_all_snapshots(warehouse, "t") == 5


def test_inline_rows_are_decoded_only_when_read(warehouse):
    """Replaying the log leaves inline rows encoded; a point lookup passes over inline files
    whose key bounds (in the log entry) rule them out, finds a key in a one-row file from its
    bounds alone, and decodes only a larger file that may hold it."""
    conn = txlake.connect(warehouse, autocommit=True, publish="off")
    conn.execute("CREATE TABLE t (id INT PRIMARY KEY, s VARCHAR)")
    for i in range(4):
        conn.execute("INSERT INTO t VALUES (?, ?)", (i * 10, f"row {i}"))
    conn.execute("INSERT INTO t VALUES (40, 'row 4'), (45, 'row 4b')")
    conn.execute("DELETE FROM t WHERE id = 20")
    conn.close()
    from txlake.storage import keys
    from txlake.storage.warehouse import Warehouse
    replayed = Warehouse(warehouse, durable=False)      # as another process would
    version = replayed.latest.table("default", "t")
    # the file of row 20 is gone: all its rows are deleted
    assert [f.key_bounds for f in version.files] == [((0, 0),), ((10, 10),), ((30, 30),), ((40, 45),)]

    def encoded():
        return [isinstance(f.__dict__["_inline"], dict) for f in version.files]

    assert all(encoded()), "nothing decoded yet"
    assert keys.find(replayed.store, version, [30]) == {30: version.files[2].file_id << 32}
    assert keys.find(replayed.store, version, [20]) == {}
    assert keys.find(replayed.store, version, [35]) == {}
    assert all(encoded()), "one-row files are matched by their bounds"
    assert keys.find(replayed.store, version, [45]) == {45: version.files[3].file_id << 32 | 1}
    assert encoded() == [True, True, True, False]
    assert replayed.store.read(version.files[0], version.schema).to_pylist() == [{"id": 0, "s": "row 0"}]


def test_inline_rows_round_trip_through_the_log_encoding():
    """Plain columns travel as JSON values, exactly (NULLs, extremes, non-finite floats,
    timestamps before 1970, decimals); other types as an Arrow IPC stream."""
    import datetime
    import decimal
    import json

    import pyarrow as pa

    from txlake.storage.version import decode_rows, encode_rows
    rows = pa.table({
        "i": pa.array([1, None, -(2 ** 31)], pa.int32()),
        "b": pa.array([2 ** 63 - 1, 0, None], pa.int64()),
        "d": pa.array([1.5, float("-inf"), None]),
        "s": ["a", None, "é\n\"x\""],
        "ok": [True, None, False],
        "day": pa.array([datetime.date(2020, 1, 2), None, datetime.date(1, 1, 1)], pa.date32()),
        "ts": pa.array([datetime.datetime(2020, 1, 2, 3, 4, 5, 123456), None,
                        datetime.datetime(1800, 1, 1)], pa.timestamp("us")),
        "price": pa.array([decimal.Decimal("12.34"), None, decimal.Decimal("-0.01")], pa.decimal128(10, 2)),
    })
    encoded = encode_rows(rows)
    assert isinstance(encoded, dict)
    assert decode_rows(json.loads(json.dumps(encoded))).equals(rows)
    nested = pa.table({"l": pa.array([[1, 2], None], pa.list_(pa.int64()))})
    assert isinstance(encode_rows(nested), str)
    assert decode_rows(encode_rows(nested)).equals(nested)


def test_rows_held_as_python_values_encode_as_their_arrow_table_does():
    """A point write's row goes to the log from its Python values (no Arrow round trip): the
    encoding is the one its Arrow table gets."""
    import datetime
    import decimal
    import json

    import pyarrow as pa

    from txlake.storage.schema import Column, TableSchema, type_from_arrow
    from txlake.storage.version import decode_rows, decode_values, encode_rows, encode_values
    types = {"i": pa.int32(), "f": pa.float64(), "s": pa.string(), "ok": pa.bool_(), "day": pa.date32(),
             "ts": pa.timestamp("us"), "price": pa.decimal128(10, 2)}
    schema = TableSchema(0, tuple(Column(i, n, type_from_arrow(t)) for i, (n, t) in enumerate(types.items())))
    rows = pa.table({
        "i": pa.array([7, None], pa.int32()),
        "f": pa.array([0.1, float("-inf")]),
        "s": ["x", None],
        "ok": [None, True],
        "day": pa.array([datetime.date(1969, 12, 31), None], pa.date32()),
        "ts": pa.array([datetime.datetime(1969, 12, 31, 23, 59, 59, 999999), None], pa.timestamp("us")),
        "price": pa.array([decimal.Decimal("-1.50"), None], pa.decimal128(10, 2)),
    }, schema=schema.arrow_schema())
    columns = [rows.column(n).to_pylist() for n in types]
    encoded = encode_values(schema, columns)
    assert json.dumps(encoded) == json.dumps(encode_rows(rows))
    assert decode_rows(json.loads(json.dumps(encoded))).equals(rows)
    # and back to Python values without Arrow (another process's inline rows), as to_pylist gives
    decoded = decode_values(schema, json.loads(json.dumps(encoded)))
    assert decoded.columns == columns
    assert [type(v) for v in decoded.row(0).values()] == [type(v) for v in rows.to_pylist()[0].values()]
    assert decoded.table().equals(rows)
    other = TableSchema(1, schema.columns[:-1])  # rows encoded in other columns are not taken
    assert decode_values(other, encoded) is None


def test_point_writes_reach_the_log_exactly(warehouse):
    """A point UPDATE and an INSERT ... VALUES with CURRENT_TIMESTAMP go to the log from the
    Python values they were computed as; a reopened warehouse (the log replayed) reads them
    back as the session that wrote them did."""
    conn = txlake.connect(warehouse, autocommit=True, publish="off")
    conn.execute("CREATE TABLE t (id INT PRIMARY KEY, n BIGINT, s VARCHAR, ts TIMESTAMP, d DECIMAL(8,3))")
    conn.execute("INSERT INTO t VALUES (?, ?, ?, CURRENT_TIMESTAMP, NULL)", (1, 2 ** 40, "é"))
    conn.execute("INSERT INTO t VALUES (2, -5, NULL, '1901-02-03 04:05:06.000007', 1.5)")
    conn.execute("UPDATE t SET n = n + ? WHERE id = ?", (3, 1))
    conn.execute("UPDATE t SET n = n - 1 WHERE id = 2")
    seen = conn.execute("SELECT * FROM t ORDER BY id").fetchall()
    conn.close()
    assert [r[:3] for r in seen] == [(1, 2 ** 40 + 3, "é"), (2, -6, None)]
    again = txlake.connect(warehouse, autocommit=True, publish="off")
    assert again.execute("SELECT * FROM t ORDER BY id").fetchall() == seen
    # a point UPDATE of a replayed row copies its other values as the log carried them
    again.execute("UPDATE t SET n = n + 1 WHERE id = 2")
    again.execute("UPDATE t SET s = 'x' WHERE id = 1")
    assert again.execute("SELECT * FROM t ORDER BY id").fetchall() == \
        [(1, 2 ** 40 + 3, "x", *seen[0][3:]), (2, -5, None, *seen[1][3:])]
    again.close()
    assert not parquet_files(warehouse), "every row travelled inline"


def test_new_file_names_are_unique_across_threads_and_forked_processes():
    """Data file names are a random per-process, per-thread prefix plus a counter (Paimon's
    shape): a forked child, which inherits the counter, draws a prefix of its own."""
    import threading

    from txlake.storage.datafiles import DataFileStore
    names = [DataFileStore.new_path("default", "t") for _ in range(3)]
    thread = threading.Thread(target=lambda: names.append(DataFileStore.new_path("default", "t")))
    thread.start()
    thread.join()
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.write(write, DataFileStore.new_path("default", "t").encode())
        os._exit(0)
    os.waitpid(pid, 0)
    names.append(os.read(read, 4096).decode())
    names.append(DataFileStore.new_path("default", "t"))
    assert len(set(names)) == len(names) == 6
    assert all(n.startswith("default.db/t/bucket-0/data-") and n.endswith("-0.parquet") for n in names)


def test_log_entries_are_strict_json_and_non_finite_floats_round_trip(warehouse):
    """NaN and the infinities travel as the strings "NaN", "Infinity", "-Infinity" (strict JSON
    has no literal for them: every log line parses with a strict parser), from Python values and
    from Arrow alike, and read back as the floats. An entry written before, with the literals
    ``json`` allows, still reads."""
    import math
    import zlib

    import orjson

    conn = txlake.connect(warehouse, autocommit=True, publish="off")
    conn.execute("CREATE TABLE t (id INT PRIMARY KEY, x DOUBLE, y REAL)")
    for i, x in enumerate([float("nan"), float("inf"), float("-inf"), 1.5, None]):
        conn.execute("INSERT INTO t VALUES (?, ?, ?)", (i, x, x))            # Python values
    conn.execute("INSERT INTO t SELECT 10 + i, x, x FROM (VALUES (0, 'NaN'::DOUBLE), (1, '-inf'::DOUBLE)) v(i, x)")
    conn.close()
    segment = os.path.join(warehouse, "_txlog", "000000000001.log")
    lines = open(segment, "rb").read().rstrip(b"\0").splitlines()
    bodies = [orjson.loads(line.split(b" ", 2)[2]) for line in lines]       # strict JSON
    assert any('"NaN"' in line.decode() and '"-Infinity"' in line.decode() for line in lines)

    def rows(c):
        return [(i, "nan" if x is not None and math.isnan(x) else x, "nan" if y is not None and math.isnan(y) else y)
                for i, x, y in c.execute("SELECT id, x, y FROM t ORDER BY id").fetchall()]

    expected = [(0, "nan", "nan"), (1, math.inf, math.inf), (2, -math.inf, -math.inf), (3, 1.5, 1.5),
                (4, None, None), (10, "nan", "nan"), (11, -math.inf, -math.inf)]
    reopened = txlake.connect(warehouse, publish="off")
    assert rows(reopened) == expected
    reopened.close()
    # the last entry as the json module wrote it before: bare NaN / -Infinity literals
    last = lines[-1]
    csn, _, body = last.split(b" ", 2)
    old = body.replace(b'"NaN"', b"NaN").replace(b'"-Infinity"', b"-Infinity")
    assert old != body and len(bodies) == len(lines)
    data = open(segment, "rb").read()
    end = data.index(last)
    with open(segment, "r+b") as f:
        f.seek(end)
        f.write(b"%s %08x %s\n" % (csn, zlib.crc32(old), old))
        f.write(bytes(len(last) + 1))  # (zeros over the longer old line's tail)
    reopened = txlake.connect(warehouse, publish="off")
    assert rows(reopened) == expected
    reopened.close()


def test_a_file_read_from_the_log_is_the_file_written():
    """``DataFile.from_json`` builds past the dataclass's ``__init__`` (every other process's
    commit is read so): what it builds is what the constructor builds, inline rows and key
    bounds included."""
    from txlake.storage.version import DataFile
    inline = {"names": ["id", "v"], "types": ["int32", "string"], "columns": [[1, 2], ["a", None]]}
    for f in (DataFile(7, "default.db/t/bucket-0/data-x-0.parquet", 2, 3, 40, inline=inline, key_bounds=((1, 2),)),
              DataFile(8, "default.db/t/bucket-0/data-y-0.parquet", 100, 0, 4096)):
        read = DataFile.from_json(json.loads(json.dumps(f.to_json())))
        assert read.__dict__ == f.__dict__
        assert read.is_inline == f.is_inline and not read.in_memory
