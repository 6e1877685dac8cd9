"""Snapshot expiry and orphan files: safe while others read."""

import json
import os

import pyarrow as pa
import pytest

import txlake
from tests.paimon_env import read_with_pypaimon
from txlake import errors
from txlake.storage import expiry


def parquet_files(path):
    return {os.path.join(d, f) for d, _, fs in os.walk(path) for f in fs if f.endswith(".parquet")}


def test_expiry_removes_old_files_and_keeps_what_readers_need(warehouse):
    c = txlake.connect(warehouse, autocommit=True, publish="sync")
    c.execute("CREATE TABLE t (id INT PRIMARY KEY, v INT)")
    c.execute("INSERT INTO t SELECT range, 0 FROM range(1000)")  # (more than travel inline: a Parquet file)
    reader = txlake.connect(warehouse, publish="off")
    assert reader.execute("SELECT sum(v) FROM t").fetchone() == (0,)   # snapshot at CSN 2
    for _ in range(5):
        c.execute("UPDATE t SET v = v + 1 WHERE id < 50")
    c.execute("CALL txlake.compact('t')")
    before = parquet_files(warehouse)
    row = c.execute("CALL txlake.expire_snapshots(retain_last => 1)").fetchone()
    assert row[0] == 2                                  # pinned by the open reader
    assert reader.execute("SELECT sum(v) FROM t").fetchone() == (0,)
    reader.rollback()
    row = c.execute("CALL txlake.expire_snapshots(retain_last => 1)").fetchone()
    latest = c.execute("SELECT max(snapshot_id) FROM txlake_snapshots('t')").fetchone()[0]
    assert row[0] == latest and row[1] > 0
    after = parquet_files(warehouse)
    assert after < before
    assert c.execute("SELECT count(*), sum(v) FROM t").fetchone() == (1000, 250)
    with pytest.raises(errors.InvalidParameterValue):
        c.execute("SELECT * FROM t FOR SYSTEM_VERSION AS OF 2")
    c.close()
    snaps = read_with_pypaimon(os.path.join(warehouse, "default.db", "t"))["snapshots"]
    assert len(snaps) >= 1
    assert sorted(r[1] for r in list(snaps.values())[-1]["rows"]).count(5) == 50
    reopened = txlake.connect(warehouse, publish="off")
    assert reopened.execute("SELECT sum(v) FROM t").fetchone() == (250,)
    reopened.close()


def test_orphan_files_are_removed_after_the_grace_period(warehouse):
    c = txlake.connect(warehouse, autocommit=True, publish="sync")
    c.execute("CREATE TABLE t (id INT)")
    c.execute("INSERT INTO t VALUES (1)")
    orphan = os.path.join(warehouse, "default.db", "t", "bucket-0", "data-orphan-0.parquet")
    with open(orphan, "wb") as f:
        f.write(b"left by a commit that never landed")
    assert c.execute("CALL txlake.remove_orphan_files()").fetchone() == (0,)     # too young
    os.utime(orphan, (1, 1))
    assert c.execute("CALL txlake.remove_orphan_files(older_than_seconds => 3600)").fetchone() == (1,)
    assert not os.path.exists(orphan)
    assert c.execute("SELECT * FROM t").fetchall() == [(1,)]
    c.close()
    assert read_with_pypaimon(os.path.join(warehouse, "default.db", "t"))["snapshots"]


def test_files_an_unfinished_transaction_will_commit_are_not_orphans(warehouse):
    """However short the grace period: a prepared transaction's Parquet file is kept until
    COMMIT PREPARED (which committed a reference to a deleted file before: the table was
    unreadable for good), and so are the rows an open transaction of this process spilled."""
    c = txlake.connect(warehouse, autocommit=True, publish="off")
    c.execute("CREATE TABLE t (id INT PRIMARY KEY, v INT)")
    p = txlake.connect(warehouse, publish="off")
    p.execute("INSERT INTO t SELECT range, 0 FROM range(5000)")  # (more than travels inline)
    p.execute("PREPARE TRANSACTION 'g'")
    prepared = parquet_files(warehouse)
    assert prepared
    spilled, _ = c._session.db.warehouse.store.spill("default", "t", pa.table({"id": [1], "v": [2]}))
    spill_path = os.path.join(warehouse, spilled)
    for path in prepared | {spill_path}:
        os.utime(path, (1, 1))
    assert c.execute("CALL txlake.remove_orphan_files(older_than_seconds => 0)").fetchone() == (0,)
    assert prepared <= parquet_files(warehouse) and os.path.exists(spill_path)
    c.execute("COMMIT PREPARED 'g'")
    c._session.db.warehouse.store.discard_spills([spilled])
    reopened = txlake.connect(warehouse, publish="off")
    assert reopened.execute("SELECT count(*) FROM t").fetchone() == (5000,)
    for conn in (reopened, p, c):
        conn.close()


def test_a_reader_lease_is_written_only_when_it_must_change(warehouse):
    """A process's lease advertises the oldest snapshot it reads. Maintenance passes that would
    advertise the same or a newer one leave the file alone (no write, no fsync); one reading an
    older snapshot than advertised, or one due to renew it, writes it."""
    c = txlake.connect(warehouse, autocommit=True, publish="off")
    c.execute("CREATE TABLE t (id INT)")
    gc = c._session.db.gc
    path = os.path.join(warehouse, expiry.READERS_DIR, c._session.db.warehouse.commit_user + ".json")

    def lease():
        return os.stat(path).st_ino, json.load(open(path))["oldest_csn"]

    reader = txlake.connect(warehouse, publish="off")
    assert reader.execute("SELECT count(*) FROM t").fetchone() == (0,)  # a snapshot at CSN 1
    gc.collect()
    first = lease()
    assert first[1] == 1
    c.execute("INSERT INTO t VALUES (1)")
    reader.rollback()
    gc.collect()                                   # nothing open: CSN 1 still covers it
    assert lease() == first
    gc.lease.written -= expiry.LEASE_RENEW_SECONDS  # as if its renewal were due
    gc.collect()
    renewed = lease()
    assert renewed[0] != first[0] and renewed[1] is None
    assert reader.execute("SELECT count(*) FROM t").fetchone() == (1,)  # a snapshot, not covered by None
    gc.collect()
    assert lease()[1] == 2
    reader.close()
    c.close()
