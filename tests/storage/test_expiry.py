"""Snapshot expiry and orphan files: safe while others read."""

import json
import os
import time

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


def test_a_file_named_like_a_database_folder_is_left_alone(warehouse):
    """A file of the user's named ``x.db`` in the warehouse's folder (benchmarks/startup.py kept
    SQLite's ``s.db`` there) was listed as a Paimon database folder: publishing failed at every
    commit (NotADirectoryError) and orphan removal failed. Both pass it by, and keep it."""
    os.makedirs(warehouse, exist_ok=True)
    mine = os.path.join(warehouse, "s.db")
    with open(mine, "wb") as f:
        f.write(b"SQLite format 3")
    c = txlake.connect(warehouse, autocommit=True, publish="sync")
    c.execute("CREATE TABLE t (id INT)")
    c.execute("DROP TABLE t")  # (a dropped table's published metadata goes: the pass lists the folders)
    c.execute("CREATE TABLE u (id INT)")
    c.execute("INSERT INTO u VALUES (1)")
    assert c.execute("CALL txlake.remove_orphan_files(older_than_seconds => 0)").fetchone() == (0,)
    c.close()
    assert read_with_pypaimon(os.path.join(warehouse, "default.db", "u"))["snapshots"]
    with open(mine, "rb") as f:
        assert f.read() == b"SQLite format 3"


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
    assert first[1] is not None and first[1] <= 1  # (covered since its first snapshot, CSN 0)
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


def test_expiry_keeps_an_unfinished_prepared_transactions_snapshot(warehouse):
    """COMMIT PREPARED reads the transaction's snapshot: expiry passed it, and the prepared
    transaction could not be committed (22023 snapshot has expired) - its rows were lost
    when prepared_timeout rolled it back."""
    c = txlake.connect(warehouse, autocommit=True, publish="off")
    c.execute("CREATE TABLE t (id INT PRIMARY KEY, v TEXT)")
    c.execute("INSERT INTO t VALUES (1, 'a')")
    s = txlake.connect(warehouse, publish="off")
    s.execute("INSERT INTO t VALUES (2, 'prepared')")
    s.execute("PREPARE TRANSACTION 'g1'")
    c.execute("INSERT INTO t VALUES (3, 'c')")
    c.execute("CALL txlake.expire_snapshots(retain_last => 1)")
    c.execute("COMMIT PREPARED 'g1'")
    assert c.execute("SELECT id FROM t ORDER BY id").fetchall() == [(1,), (2,), (3,)]
    s.close()
    c.close()


READER = """
import sys, txlake
c = txlake.connect(sys.argv[1], publish="off", gc_interval=3600)  # (no background pass to write its lease)
print(c.execute("SELECT count(*) FROM t").fetchone()[0], flush=True)  # its snapshot: REPEATABLE READ
sys.stdin.readline()
print(c.execute("SELECT count(*), min(v) FROM u").fetchone(), flush=True)
"""


def test_a_reader_in_another_process_keeps_its_snapshot_from_its_first_read(warehouse):
    """Its lease was written by its background pass only (every 2 s): an expiry right after
    it began reading passed its snapshot and deleted its files (FileNotFoundError)."""
    import subprocess
    import sys

    from tests.conftest import child_env
    c = txlake.connect(warehouse, autocommit=True, publish="off")
    for name in "tu":
        c.execute(f"CREATE TABLE {name} (id INT PRIMARY KEY, v TEXT)")
        c.execute(f"INSERT INTO {name} SELECT range, '{name}' FROM range(1000)")  # a Parquet file
    reader = subprocess.Popen([sys.executable, "-c", READER, warehouse], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=child_env())
    assert reader.stdout.readline().strip() == "1000"
    c.execute("DELETE FROM u")
    c.execute("INSERT INTO u VALUES (1, 'new')")
    c.execute("CALL txlake.expire_snapshots(retain_last => 1)")
    out, err = reader.communicate("\n", timeout=120)
    assert out.strip() == "(1000, 'u')", err
    c.close()


def test_expiry_keeps_the_files_of_the_newest_published_snapshot(warehouse):
    """With publishing behind (publish="off", or async between passes), expiry deleted files
    the newest Paimon snapshot reads: other engines could not read the table at all."""
    c = txlake.connect(warehouse, autocommit=True, publish="off")
    c.execute("CREATE TABLE t (id INT PRIMARY KEY, v TEXT)")
    c.execute("INSERT INTO t SELECT range, 'x' FROM range(1000)")
    c.execute("CALL txlake.publish()")
    c.execute("DELETE FROM t WHERE id < 500")
    c.execute("CALL txlake.compact('t')")
    c.execute("CALL txlake.expire_snapshots(retain_last => 1)")
    published = read_with_pypaimon(os.path.join(warehouse, "default.db", "t"))["snapshots"]
    assert len(published[max(published)]["rows"]) == 1000  # (the state it published)
    c.close()


CRASHING_EXPIRY = """
import os, sys, txlake
from txlake.storage import fs
removed, remove = [0], fs.LocalFileSystem.remove
def crash_after_three(self, path):  # the process dies as kill -9 would, mid-expiry
    remove(self, path)
    removed[0] += 1
    if removed[0] == 3:
        os._exit(137)
fs.LocalFileSystem.remove = crash_after_three
c = txlake.connect(sys.argv[1], autocommit=True, publish="off", gc_interval=3600)
c.execute("CALL txlake.expire_snapshots(retain_last => 1)")
"""


def test_files_an_interrupted_expiry_left_are_orphans(warehouse):
    """The horizon is written before the files go: after a crash mid-expiry, another expiry
    found nothing to do, and remove_orphan_files kept the files (the log names them) - for
    good. Files only expired snapshots read are orphans now. (And a process that closed the
    warehouse no longer holds others' expiry back with its lease.)"""
    from tests.conftest import run_python
    c = txlake.connect(warehouse, autocommit=True, publish="off", gc_interval=3600)
    c.execute("CREATE TABLE t (id INT PRIMARY KEY, v INT)")
    c.execute("INSERT INTO t SELECT range, 0 FROM range(1000)")
    for k in range(1, 8):
        c.execute(f"UPDATE t SET v = {k}")  # a new Parquet file each
    c.close()
    bucket = os.path.join(warehouse, "default.db", "t", "bucket-0")
    assert len(os.listdir(bucket)) == 8
    assert run_python(CRASHING_EXPIRY, warehouse).returncode == 137
    assert len(os.listdir(bucket)) == 5
    c = txlake.connect(warehouse, autocommit=True, publish="off", gc_interval=3600)
    c.execute("CALL txlake.remove_orphan_files(older_than_seconds => 0)")
    assert len(os.listdir(bucket)) == 1
    assert c.execute("SELECT count(*), sum(v) FROM t").fetchone() == (1000, 7000)
    c.close()


def test_a_lease_written_while_the_horizon_moves_keeps_its_files(warehouse, monkeypatch):
    """A reader in another process writes its lease, then reads the horizon; the expiry writes
    the horizon, then reads the leases again. A lease that appears between the expiry's two
    reads - the reader took its snapshot before the new horizon - keeps that snapshot's files,
    for the expiry and for orphan removal after it. (The second read computed the catalog of
    an expired snapshot: 22023 from catalog_at before.)"""
    c = txlake.connect(warehouse, autocommit=True, publish="off")
    c.execute("CREATE TABLE t (id INT PRIMARY KEY, v INT)")
    c.execute("INSERT INTO t SELECT range, 0 FROM range(1000)")  # a Parquet file, CSN 2
    old = os.path.join(warehouse, "default.db", "t", "bucket-0")
    before = set(os.listdir(old))
    c.execute("UPDATE t SET v = 1")  # CSN 3: the file of CSN 2 only snapshot 2 reads
    wh = c._session.db.warehouse
    write_atomic = type(wh.fs).write_atomic

    def horizon_then_a_reader(fs, path, data):
        write_atomic(fs, path, data)
        if path.endswith("expired.json"):  # the reader leased snapshot 2 just before it read this
            expiry._write_lease(fs, warehouse, "reader-elsewhere", 2)

    monkeypatch.setattr(type(wh.fs), "write_atomic", horizon_then_a_reader)
    assert c.execute("CALL txlake.expire_snapshots(retain_last => 1)").fetchone()[0] == 3
    monkeypatch.undo()
    c.execute("CALL txlake.remove_orphan_files(older_than_seconds => 0)")
    assert before <= set(os.listdir(old))  # snapshot 2's file is still there for that reader
    os.remove(os.path.join(warehouse, expiry.READERS_DIR, "reader-elsewhere.json"))
    c.execute("CALL txlake.remove_orphan_files(older_than_seconds => 0)")
    assert not before & set(os.listdir(old))  # gone once no lease holds it
    c.close()


def test_a_time_travel_read_holds_its_snapshot_to_the_end_of_its_transaction(warehouse):
    """AS OF n read snapshot n without holding it: another session's or process's expiry could
    delete its files mid-read (FileNotFoundError). It is held like the transaction's own
    snapshot - in this process, and in its lease for other processes."""
    c = txlake.connect(warehouse, autocommit=True, publish="off")
    c.execute("CREATE TABLE t (id INT PRIMARY KEY, v INT)")
    c.execute("INSERT INTO t SELECT range, 0 FROM range(1000)")  # CSN 2: a Parquet file
    c.execute("UPDATE t SET v = 1")
    c.execute("UPDATE t SET v = 2")
    reader = txlake.connect(warehouse, publish="off")
    assert reader.execute("SELECT sum(v) FROM t FOR SYSTEM_VERSION AS OF 2").fetchone() == (0,)
    lease = json.load(open(os.path.join(warehouse, expiry.READERS_DIR, c._session.db.warehouse.commit_user + ".json")))
    assert lease["oldest_csn"] <= 2
    assert c.execute("CALL txlake.expire_snapshots(retain_last => 1)").fetchone()[0] <= 2
    assert reader.execute("SELECT sum(v) FROM t FOR SYSTEM_VERSION AS OF 2").fetchone() == (0,)
    reader.commit()
    assert c.execute("CALL txlake.expire_snapshots(retain_last => 1)").fetchone()[0] == 4
    reader.close()
    c.close()


ORPHANS = """
import sys, time, txlake
c = txlake.connect(sys.argv[1], autocommit=True, publish="off")
end = time.time() + float(sys.argv[2])
while time.time() < end:
    c.execute("CALL txlake.remove_orphan_files(older_than_seconds => 0)")
"""


def test_orphan_removal_with_no_grace_never_takes_a_committed_file(warehouse):
    """With a grace period shorter than commits take, a commit in flight may lose its files -
    it then fails (58030), cleanly - but an acknowledged one must not: the pass read the log
    before it listed the files, and a commit landing in between lost its file (the table then
    failed every read)."""
    import subprocess
    import sys
    import time

    from tests.conftest import child_env
    c = txlake.connect(warehouse, autocommit=True, publish="off")
    c.execute("CREATE TABLE bulk (k BIGINT, v VARCHAR)")
    orphans = subprocess.Popen([sys.executable, "-c", ORPHANS, warehouse, "4"], env=child_env())
    acked, failed, end = 0, 0, time.time() + 4
    while time.time() < end:
        try:
            c.execute("INSERT INTO bulk SELECT range, 'x' FROM range(1000)")  # a Parquet file each
            acked += 1
        except txlake.CommitFailed:
            failed += 1
    assert orphans.wait(60) == 0
    assert acked > 0
    assert c.execute("SELECT count(*) FROM bulk").fetchone() == (acked * 1000,)
    c.close()


def test_orphan_removal_with_no_grace_never_takes_a_published_file(warehouse):
    """The publisher writes a file's rewrite without its deleted rows (and a table's inline
    rows) before the Paimon snapshot that reads it: with a short grace period, orphan removal
    running in between took it, and the snapshot other engines read named a file that was not
    there (70 of 750 snapshots in a 20 s run). Such files are kept METADATA_GRACE_SECONDS, as
    manifests are, whatever the grace asked for."""
    import subprocess
    import sys
    import time

    from tests.conftest import child_env
    from txlake.storage.format.paimon import PaimonTable
    c = txlake.connect(warehouse, autocommit=True, publish="sync")
    c.execute("CREATE TABLE t (id INT PRIMARY KEY, v INT)")
    c.execute("INSERT INTO t SELECT range, 0 FROM range(5000)")  # a Parquet file: rewritten at each delete
    orphans = subprocess.Popen([sys.executable, "-c", ORPHANS, warehouse, "5"], env=child_env())
    i, end = 0, time.time() + 5
    while time.time() < end:
        i += 1
        c.execute("DELETE FROM t WHERE id = ?", (i,))
        c.execute("INSERT INTO t VALUES (?, 1)", (100_000 + i,))  # inline rows: one bundle
    assert orphans.wait(60) == 0
    c.close()
    paimon = PaimonTable(os.path.join(warehouse, "default.db", "t"))
    missing = {(sid, name) for sid in paimon.snapshot_ids() for name in paimon.snapshot(sid).files
               if not os.path.exists(os.path.join(paimon.dir, name))}
    assert i > 20 and not missing, sorted(missing)[:5]


CRASHING_EXPIRY_AT_FIRST = CRASHING_EXPIRY.replace("removed[0] == 3", "removed[0] == 1")


def test_an_interrupted_expiry_leaves_every_paimon_snapshot_readable(warehouse):
    """Expiry deleted the txlake data files first and the Paimon snapshots reading them after:
    killed in between, it left Paimon snapshots naming files that were gone (pypaimon failed to
    read them), and the next expiry, finding the horizon moved already, left them so. The
    Paimon snapshots go first now."""
    from tests.conftest import run_python
    c = txlake.connect(warehouse, autocommit=True, publish="sync", gc_interval=3600)
    c.execute("CREATE TABLE t (id INT PRIMARY KEY, v INT)")
    c.execute("INSERT INTO t SELECT range, 0 FROM range(1000)")
    for k in range(1, 5):
        c.execute(f"UPDATE t SET v = {k}")  # a new Parquet file each, and a Paimon snapshot
    c.close()
    assert run_python(CRASHING_EXPIRY_AT_FIRST, warehouse).returncode == 137
    published = read_with_pypaimon(os.path.join(warehouse, "default.db", "t"))["snapshots"]
    assert published and all(len(s["rows"]) in (0, 1000) for s in published.values())
    c = txlake.connect(warehouse, autocommit=True, publish="sync", gc_interval=3600)
    assert c.execute("SELECT count(*), sum(v) FROM t").fetchone() == (1000, 4000)
    c.close()


def test_orphan_removal_takes_temporary_files_a_crash_left(warehouse):
    """A process killed between writing a file under its temporary name and linking it into
    place (a log checkpoint, a prepared record, a Paimon snapshot or schema) left a hidden
    .tmp file no pass ever removed. Those older than the metadata grace period go; a young
    one may be in flight and stays."""
    c = txlake.connect(warehouse, autocommit=True, publish="sync")
    c.execute("CREATE TABLE t (id INT PRIMARY KEY)")
    c.execute("INSERT INTO t VALUES (1)")
    tdir = os.path.join(warehouse, "default.db", "t")
    places = [os.path.join(warehouse, "_txlog"), os.path.join(warehouse, "_prepared"),
              os.path.join(tdir, "snapshot"), os.path.join(tdir, "schema")]
    old = time.time() - expiry.METADATA_GRACE_SECONDS - 60
    stale, young = [], []
    for place in places:
        os.makedirs(place, exist_ok=True)
        for kept, names in ((False, stale), (True, young)):
            path = os.path.join(place, f".snapshot-9.{'young' if kept else 'old'}.tmp")
            with open(path, "wb") as f:
                f.write(b"{")
            if not kept:
                os.utime(path, (old, old))
            names.append(path)
    assert c.execute("CALL txlake.remove_orphan_files(older_than_seconds => 0)").fetchone()[0] >= len(stale)
    assert not any(os.path.exists(p) for p in stale) and all(os.path.exists(p) for p in young)
    assert c.execute("SELECT count(*) FROM t").fetchone() == (1,)
    c.close()


def test_expiry_waits_while_a_publisher_removes_a_dropped_tables_metadata(warehouse):
    """A publisher (of any process) removes a dropped table's Paimon metadata holding the
    Paimon lock exclusively; expiry reads and removes Paimon snapshots holding it shared, so it
    never finds a snapshot or manifest gone under it (it failed with 58P01)."""
    import fcntl
    import threading

    from txlake.storage.publish import PAIMON_LOCK

    c = txlake.connect(warehouse, autocommit=True, publish="sync")
    c.execute("CREATE TABLE t (id INT PRIMARY KEY, v INT)")
    for i in range(3):
        c.execute(f"INSERT INTO t VALUES ({i}, 0)")
    fd = os.open(os.path.join(warehouse, "_txlog", PAIMON_LOCK), os.O_RDWR | os.O_CREAT, 0o644)
    fcntl.flock(fd, fcntl.LOCK_EX)  # (as another process's publisher dropping metadata does)
    outcome = []
    expiring = threading.Thread(target=lambda: outcome.append(
        c.execute("CALL txlake.expire_snapshots(retain_last => 1)").fetchone()))
    try:
        expiring.start()
        expiring.join(0.5)
        assert expiring.is_alive() and not outcome  # waiting for the lock
    finally:
        os.close(fd)  # (releases it)
    expiring.join(30)
    assert outcome and outcome[0][2] > 0  # then it expired the Paimon snapshots before the newest
    assert c.execute("SELECT count(*) FROM t").fetchone() == (3,)
    c.close()


def sequence_files(warehouse):
    directory = os.path.join(warehouse, "_sequences")
    return {n for n in os.listdir(directory) if os.path.isfile(os.path.join(directory, n))}


def sequence_ids(conn):
    return {t.table_id for t in conn._session.db.warehouse.refresh().tables.values() if t.is_sequence}


SEQUENCE_TAKER = """
import sys, txlake
c = txlake.connect(sys.argv[1], publish="off", gc_interval=3600)
c.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
print(c.execute("SELECT nextval('gone')").fetchone()[0], flush=True)  # its snapshot sees the sequence
sys.stdin.readline()
print(c.execute("SELECT nextval('gone')").fetchone()[0], flush=True)
"""


def test_a_dropped_sequence_s_file_goes_once_no_snapshot_sees_it(warehouse):
    """The number files of dropped sequences stayed for ever. They go with remove_orphan_files
    once no snapshot still readable has the sequence: not while a transaction of this process
    or another that may call its nextval is open, and not a sequence alive (its file older than
    the grace period too)."""
    import subprocess
    import sys

    from tests.conftest import child_env
    c = txlake.connect(warehouse, autocommit=True, publish="off")
    c.execute("CREATE SEQUENCE kept")
    c.execute("CREATE SEQUENCE gone")
    c.execute("CREATE TABLE t (id SERIAL, v INT)")
    c.execute("SELECT nextval('gone'), nextval('kept')")
    live = sequence_ids(c)
    assert sequence_files(warehouse) == live
    old = c._session.db.warehouse.refresh()
    gone_file = next(t.table_id for t in old.tables.values() if t.name == "gone")
    t_seq_file = next(t.table_id for t in old.tables.values() if t.name == "t_id_seq")
    here = txlake.connect(warehouse, publish="off", isolation_level="REPEATABLE READ")
    assert here.execute("SELECT nextval('gone')").fetchone() == (2,)
    child = subprocess.Popen([sys.executable, "-c", SEQUENCE_TAKER, warehouse], stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=child_env())
    try:
        assert child.stdout.readline().strip() == "3"
        c.execute("DROP SEQUENCE gone")
        c.execute("DROP TABLE t")
        c.execute("ALTER SEQUENCE kept RESTART")  # (a new file; the old one is the old entry's)
        for path in os.scandir(os.path.join(warehouse, "_sequences")):
            os.utime(path.path, (1, 1))
        c.execute("CALL txlake.expire_snapshots(retain_last => 1)")
        assert c.execute("CALL txlake.remove_orphan_files(older_than_seconds => 0)").fetchone() == (0,)
        assert here.execute("SELECT nextval('gone')").fetchone() == (4,)  # (its snapshot has it)
        out, err = child.communicate("\n", timeout=120)
        assert out.split() == ["5"], err
    finally:
        child.kill()
        here.rollback()
    c.execute("CALL txlake.expire_snapshots(retain_last => 1)")
    assert c.execute("CALL txlake.remove_orphan_files(older_than_seconds => 0)").fetchone() == (3,)
    assert sequence_files(warehouse) == sequence_ids(c) and gone_file not in sequence_files(warehouse)
    assert t_seq_file not in sequence_files(warehouse)
    assert c.execute("SELECT nextval('kept')").fetchone() == (1,)
    for conn in (here, c):
        conn.close()


def test_a_sequence_whose_file_an_orphan_pass_took_does_not_commit(warehouse):
    """A CREATE SEQUENCE not yet committed has only the grace period; if its file goes, its
    commit fails (58030) rather than commit a sequence with no numbers (42P01 at each nextval)."""
    c = txlake.connect(warehouse, autocommit=True, publish="off")
    maker = txlake.connect(warehouse, publish="off")
    maker.execute("CREATE SEQUENCE s")
    assert c.execute("CALL txlake.remove_orphan_files(older_than_seconds => 0)").fetchone() == (1,)
    with pytest.raises(errors.CommitFailed):
        maker.commit()
    with pytest.raises(errors.UndefinedTable):
        c.execute("SELECT nextval('s')")
    maker.execute("CREATE SEQUENCE s")
    maker.commit()
    assert c.execute("SELECT nextval('s')").fetchone() == (1,)
    for conn in (maker, c):
        conn.close()
