"""Tables several times larger than ``memory_limit``: loads, queries, point lookups, UPDATE,
DELETE and time travel stream from Parquet and spill to it, and the process stays within the
cap plus a fixed margin; a long REPEATABLE READ reader keeps reading its snapshot, streamed,
while writers, compaction, GC and snapshot expiry run."""

import json
import os

import pytest

import txlake
from tests.conftest import run_python

ROWS = 4_000_000          # id BIGINT, k INT, v DOUBLE, 40-character s: ~270 MB decoded
CAP = 64 << 20
# what the process may use beyond the cap, over an idle connection that has run every code
# path once (its RSS is the baseline): DuckDB's buffers outside its own limit while streaming,
# transient statement data (a batch being converted, checked and written), allocator slack
MARGIN = 96 << 20

CHILD = r"""
import json, sys, txlake

def rss(field):
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1]) * 1024

root, rows = sys.argv[1], int(sys.argv[2])
# warm-up on a small warehouse of its own: every library and code path loaded once
w = txlake.connect(root + "/warmup", autocommit=True, publish="off", memory_limit="64MB")
w.execute("CREATE TABLE t (id BIGINT PRIMARY KEY, s VARCHAR)")
w.execute("INSERT INTO t SELECT range, 'x' || range FROM range(1000)")
w.close()
w = txlake.connect(root + "/warmup", autocommit=True, publish="off", memory_limit="64MB")
w.execute("UPDATE t SET s = 'y' WHERE id < 10")
w.execute("SELECT * FROM t WHERE id = 5").fetchall()
w.execute("SELECT count(*) FROM t").fetchall()
w.close()

conn = txlake.connect(root + "/wh", autocommit=True, publish="off", memory_limit="64MB")
conn.execute("SELECT 1").fetchall()
out = {"idle": rss("VmRSS")}
conn.execute("CREATE TABLE big (id BIGINT PRIMARY KEY, k INT, v DOUBLE, s VARCHAR)")
conn.execute(f"INSERT INTO big SELECT range, CAST(range % 1000 AS INT), range * 0.5, "
             f"'row-' || lpad(CAST(range AS VARCHAR), 36, '0') FROM range({rows})")
loaded = conn.execute("SELECT max(snapshot_id) FROM txlake_snapshots('big')").fetchone()[0]
out["agg"] = conn.execute("SELECT count(*), sum(id), sum(k), min(s), max(s), sum(v) FROM big").fetchone()
out["groups"] = conn.execute("SELECT k % 4, count(*) FROM big GROUP BY 1 ORDER BY 1").fetchall()
out["points"] = [conn.execute("SELECT id, k, v, s FROM big WHERE id = ?", [i * 99991 % rows]).fetchone()
                 for i in range(20)]
out["missing"] = conn.execute("SELECT * FROM big WHERE id = ?", [rows + 5]).fetchall()
out["updated"] = conn.execute("UPDATE big SET v = v + 1 WHERE id % 1000 = 7").rowcount
out["deleted"] = conn.execute("DELETE FROM big WHERE id % 1000 = 3").rowcount
out["point_updated"] = conn.execute("UPDATE big SET s = 'changed' WHERE id = 12345").rowcount
out["after"] = conn.execute("SELECT count(*), sum(v), count(*) FILTER (WHERE s = 'changed') FROM big").fetchone()
out["row"] = conn.execute("SELECT * FROM big WHERE id = 12345").fetchone()
out["gone"] = conn.execute("SELECT * FROM big WHERE id = 3003").fetchall()
out["travel"] = conn.execute(f"SELECT count(*), sum(v) FROM big FOR SYSTEM_VERSION AS OF {loaded}").fetchone()
out["memory"] = dict(conn.execute("SELECT name, value FROM txlake_memory()").fetchall())
out["peak"] = rss("VmHWM")
conn.close()
print(json.dumps(out, default=str))
"""


def test_a_table_four_times_the_cap_in_bounded_memory(tmp_path):
    done = run_python(CHILD, str(tmp_path), str(ROWS), timeout=300)
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout.strip().splitlines()[-1])
    n = ROWS
    assert out["agg"] == [n, str(n * (n - 1) // 2), sum(range(1000)) * (n // 1000),  # (sum(bigint): a numeric
                          "row-" + "0" * 36, "row-" + str(n - 1).rjust(36, "0"), n * (n - 1) / 4]
    assert out["groups"] == [[r, n // 4] for r in range(4)]
    for i, row in enumerate(out["points"]):
        key = i * 99991 % n
        assert row == [key, key % 1000, key * 0.5, "row-" + str(key).rjust(36, "0")]
    assert out["missing"] == []
    assert out["updated"] == n // 1000 and out["deleted"] == n // 1000 and out["point_updated"] == 1
    deleted_v = sum(i * 0.5 for i in range(3, n, 1000))
    assert out["after"][0] == n - n // 1000
    assert out["after"][1] == pytest.approx(n * (n - 1) / 4 + n // 1000 - deleted_v)
    assert out["after"][2] == 1
    assert out["row"] == [12345, 345, 12345 * 0.5, "changed"]
    assert out["gone"] == []
    assert out["travel"] == [n, n * (n - 1) / 4]

    memory = out["memory"]
    assert memory["streamed_scans"] > 0, "the table was read from Parquet, not through the cache"
    assert memory["spilled_files"] > 0, "the load spilled to Parquet before its commit"
    assert memory["cache_bytes"] <= memory["cache_limit"]
    assert memory["index_bytes"] <= memory["cache_limit"] // 4, "key indexes only of the files looked into"
    used = out["peak"] - out["idle"]
    assert used <= CAP + MARGIN, f"peak {used >> 20} MB over the idle connection's {out['idle'] >> 20} MB"


def test_repeatable_read_reader_keeps_its_streamed_snapshot_through_churn(warehouse):
    writer = txlake.connect(warehouse, autocommit=True, publish="off", memory_limit="16MB", gc_interval=3600)
    writer.execute("CREATE TABLE t (id BIGINT PRIMARY KEY, v BIGINT, pad VARCHAR)")
    writer.execute("INSERT INTO t SELECT range, 1, repeat('p', 100) FROM range(300000)")  # ~35 MB decoded
    reader = txlake.connect(warehouse, publish="off")
    reader.execute("BEGIN ISOLATION LEVEL REPEATABLE READ")
    before = reader.execute("SELECT count(*), sum(v), sum(id) FROM t").fetchone()
    assert before == (300000, 300000, sum(range(300000)))
    db = writer.session.db
    streamed = db.warehouse.store.streamed_scans
    assert streamed > 0

    for round_ in range(3):
        writer.execute("UPDATE t SET v = v + 1 WHERE id % 10 = ?", (round_,))
        writer.execute("DELETE FROM t WHERE id % 97 = ?", (round_,))
        writer.execute(f"INSERT INTO t SELECT range, 5, 'new' FROM range({300000 + round_ * 1000}, "
                       f"{300000 + (round_ + 1) * 1000})")
        writer.execute("CALL txlake.compact('t')")
        db.gc.collect()
        writer.execute("CALL txlake.expire_snapshots(retain_last => 1)")
        assert reader.execute("SELECT count(*), sum(v), sum(id) FROM t").fetchone() == before
        assert reader.execute("SELECT v FROM t WHERE id = 97").fetchone() == (1,)

    assert db.warehouse.store.streamed_scans > streamed
    reader.commit()
    after = reader.execute("SELECT count(*) FROM t").fetchone()[0]
    assert after == writer.execute("SELECT count(*) FROM t").fetchone()[0] != before[0]
    reader.close()
    writer.close()


def test_streamed_update_and_delete_see_the_transactions_own_rows(warehouse):
    conn = txlake.connect(warehouse, publish="off", memory_limit="16MB")
    conn.execute("CREATE TABLE t (id BIGINT, v BIGINT, pad VARCHAR)")
    conn.execute("INSERT INTO t SELECT range, 0, repeat('p', 100) FROM range(200000)")
    conn.commit()
    conn.execute("INSERT INTO t VALUES (-1, 0, 'mine'), (-2, 0, 'mine')")  # uncommitted, in memory
    conn.execute("DELETE FROM t WHERE id % 1000 = 1")                      # deletion vectors
    assert conn.execute("UPDATE t SET v = v + 1 WHERE id % 2 = 0 OR pad = 'mine'").rowcount == 100000 + 2
    assert conn.execute("DELETE FROM t WHERE id = -2 OR id = 4").rowcount == 2
    expected = (200000 - 200 + 2 - 2, 100000 + 2 - 2)
    assert conn.execute("SELECT count(*), sum(v) FROM t").fetchone() == expected
    conn.commit()
    assert conn.execute("SELECT count(*), sum(v) FROM t").fetchone() == expected
    assert conn.session.db.warehouse.store.streamed_scans > 0
    conn.close()


def test_columns_named_like_the_parquet_readers_virtual_columns(warehouse):
    conn = txlake.connect(warehouse, autocommit=True, publish="off", memory_limit="16MB")
    conn.execute("CREATE TABLE t (file_index BIGINT, file_row_number BIGINT, pad VARCHAR)")
    conn.execute("INSERT INTO t SELECT range, range * 2, repeat('p', 100) FROM range(200000)")
    conn.execute("DELETE FROM t WHERE file_index < 10")
    assert conn.execute("SELECT count(*), sum(file_row_number) FROM t").fetchone() == \
        (199990, 2 * (sum(range(200000)) - sum(range(10))))
    conn.close()


def test_a_spilled_insert_rolled_back_leaves_no_files(warehouse):
    conn = txlake.connect(warehouse, publish="off", memory_limit="16MB")
    conn.execute("CREATE TABLE t (id BIGINT, pad VARCHAR)")
    conn.commit()
    bucket = os.path.join(warehouse, "default.db", "t", "bucket-0")
    conn.execute("INSERT INTO t SELECT range, repeat('p', 100) FROM range(300000)")
    assert conn.session.db.warehouse.store.spills > 0 and os.listdir(bucket)
    conn.execute("SAVEPOINT s")
    conn.execute("INSERT INTO t SELECT range, repeat('q', 100) FROM range(300000)")
    conn.execute("ROLLBACK TO SAVEPOINT s")
    assert conn.execute("SELECT count(*) FROM t").fetchone() == (300000,)
    conn.rollback()
    assert os.listdir(bucket) == [], "rollback removed the spilled files"
    assert conn.execute("SELECT count(*) FROM t").fetchone() == (0,)
    conn.close()


def test_a_spilled_insert_commits_its_files_and_drops_the_rest(warehouse):
    conn = txlake.connect(warehouse, publish="off", memory_limit="16MB")
    conn.execute("CREATE TABLE t (id BIGINT PRIMARY KEY, pad VARCHAR)")
    conn.commit()
    conn.execute("INSERT INTO t SELECT range, repeat('p', 100) FROM range(300000)")
    conn.execute("DELETE FROM t WHERE id < 1000")  # rows of a spilled file: rewritten at commit
    with pytest.raises(txlake.IntegrityError):
        conn.execute("INSERT INTO t VALUES (5000, 'dup')")
    conn.rollback()
    conn.execute("INSERT INTO t SELECT range, repeat('p', 100) FROM range(300000)")
    conn.execute("DELETE FROM t WHERE id < 1000")
    conn.commit()
    assert conn.execute("SELECT count(*), min(id) FROM t").fetchone() == (299000, 1000)
    bucket = os.path.join(warehouse, "default.db", "t", "bucket-0")
    referenced = {os.path.basename(f.path) for f in conn.session.db.warehouse.latest.table("default", "t").files}
    assert set(os.listdir(bucket)) == referenced, "every file left is a committed one"
    conn.close()
    conn = txlake.connect(warehouse, autocommit=True, publish="off")  # reopened from the log
    assert conn.execute("SELECT count(*), sum(id) FROM t").fetchone() == (299000, sum(range(1000, 300000)))
    conn.close()


def test_a_prepared_transaction_keeps_its_spilled_files(warehouse):
    conn = txlake.connect(warehouse, autocommit=True, publish="off", memory_limit="16MB")
    conn.execute("CREATE TABLE t (id BIGINT, pad VARCHAR)")
    conn.execute("BEGIN")
    conn.execute("INSERT INTO t SELECT range, repeat('p', 100) FROM range(300000)")
    conn.execute("PREPARE TRANSACTION 'big'")
    conn.execute("COMMIT PREPARED 'big'")
    assert conn.execute("SELECT count(*) FROM t").fetchone() == (300000,)
    conn.close()
