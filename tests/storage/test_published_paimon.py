"""Published tables are real Paimon tables: pypaimon 2.1.0 reads every snapshot identically.

Each Paimon snapshot's commitIdentifier is the txlake commit (CSN) whose state it shows, so the
check is: pypaimon's rows at snapshot N == txlake's rows ``FOR SYSTEM_VERSION AS OF`` that CSN.
"""

import datetime
import decimal
import json
import os
import re
import shutil

import pytest

import txlake
from tests.paimon_env import read_with_pypaimon


def encode(value):
    if isinstance(value, decimal.Decimal):
        return str(value)
    if isinstance(value, (datetime.datetime, datetime.date)):
        return value.isoformat()
    return value


def txlake_rows(conn, table: str, csn: int) -> list:
    rows = conn.execute(f"SELECT * FROM {table} FOR SYSTEM_VERSION AS OF {csn}").fetchall()
    return sorted(([encode(v) for v in row] for row in rows), key=json.dumps)


def check_all_snapshots(path: str, table: str, db: str = "default") -> int:
    published = read_with_pypaimon(os.path.join(path, f"{db}.db", table))["snapshots"]
    assert published, "no Paimon snapshot was published"
    conn = txlake.connect(path, publish="off")
    try:
        for sid, snap in published.items():
            assert snap["rows"] == txlake_rows(conn, table, snap["commit_identifier"]), f"snapshot {sid}"
    finally:
        conn.close()
    return len(published)


@pytest.mark.parametrize("mode", ["sync", "async"])
def test_every_published_snapshot_reads_identically(tmp_path, mode):
    path = str(tmp_path / "wh")
    c = txlake.connect(path, autocommit=True, publish=mode)
    c.execute("CREATE TABLE t (id INT PRIMARY KEY, b BOOLEAN, big BIGINT, f DOUBLE, d DECIMAL(10,2), "
              "s VARCHAR(20), txt TEXT, dt DATE, ts TIMESTAMP)")
    c.execute("INSERT INTO t VALUES (1, true, 9000000000, 1.5, -12.34, 'héllo', '日本', DATE '2024-02-29', "
              "TIMESTAMP '2024-01-02 03:04:05.123456'), (2, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL)")
    c.execute("INSERT INTO t SELECT range + 10, range % 2 = 0, range * 1000, range / 7, range, "
              "'r' || range, NULL, DATE '2020-01-01' + range::INT, NULL FROM range(300)")
    c.execute("UPDATE t SET s = 'updated', d = d * 2 WHERE id % 3 = 0")
    c.execute("DELETE FROM t WHERE id BETWEEN 100 AND 150")
    c.execute("BEGIN")
    c.execute("INSERT INTO t (id, s) VALUES (5000, 'in txn')")
    c.execute("DELETE FROM t WHERE id = 1")
    c.execute("COMMIT")
    c.execute("ALTER TABLE t ADD COLUMN extra INT DEFAULT 7")
    c.execute("UPDATE t SET extra = id WHERE id < 20")
    c.execute("ALTER TABLE t RENAME COLUMN txt TO note")
    c.close()  # flushes background publishing
    assert check_all_snapshots(path, "t") >= (8 if mode == "sync" else 1)


@pytest.mark.slow
def test_a_rewrite_is_never_named_as_a_spark_task_file(tmp_path, spark):
    """A Spark task of more than 131,072 rows writes data-<job>-<task>-0.parquet, then -1. The
    rewrite of file -0 with one deleted row was named -1.parquet, found written, and published:
    other engines read file -1 twice and file -0 never."""
    path = str(tmp_path / "wh")
    spark.range(0, 140_000, numPartitions=1).selectExpr("CAST(id AS INT) AS id") \
        .write.format("txlake").mode("append").save(path + "/t")
    c = txlake.connect(path, autocommit=True, publish="sync")
    c.execute("DELETE FROM t WHERE id = 5")
    c.close()
    latest = read_with_pypaimon(os.path.join(path, "default.db", "t"))["snapshots"]
    rows = latest[max(latest)]["rows"]
    assert len(rows) == 139_999 and sum(r[0] for r in rows) == sum(range(140_000)) - 5


def test_drop_and_recreate_publishes_a_fresh_table(tmp_path):
    path = str(tmp_path / "wh")
    c = txlake.connect(path, autocommit=True, publish="sync")
    c.execute("CREATE TABLE t (a INT, b TEXT)")
    c.execute("INSERT INTO t VALUES (1, 'old')")
    c.execute("DROP TABLE t")
    c.execute("CREATE TABLE t (x BIGINT)")
    c.execute("INSERT INTO t VALUES (42)")
    c.close()
    published = read_with_pypaimon(os.path.join(path, "default.db", "t"))["snapshots"]
    assert [s["rows"] for s in published.values()][-1] == [[42]]
    assert all(s["columns"] in ([], ["x"]) for s in published.values())


def test_reopen_publishes_what_the_log_has(tmp_path):
    """Recovery: commits made with publishing off are published when the warehouse reopens."""
    path = str(tmp_path / "wh")
    c = txlake.connect(path, autocommit=True, publish="off")
    c.execute("CREATE TABLE t (id INT, v TEXT)")
    c.execute("INSERT INTO t VALUES (1, 'a'), (2, 'b')")
    c.execute("DELETE FROM t WHERE id = 1")
    c.close()
    assert not os.path.exists(os.path.join(path, "default.db", "t", "snapshot"))
    txlake.connect(path, publish="sync").close()
    published = read_with_pypaimon(os.path.join(path, "default.db", "t"))["snapshots"]
    assert list(published.values())[-1]["rows"] == [[2, "b"]]
    check_all_snapshots(path, "t")


def test_manifest_lists_stay_bounded(tmp_path):
    from txlake.storage.format.paimon import MERGE_THRESHOLD, PaimonTable
    path = str(tmp_path / "wh")
    c = txlake.connect(path, autocommit=True, publish="sync")
    c.execute("CREATE TABLE t (id INT)")
    for i in range(40):
        c.execute("INSERT INTO t VALUES (?)", (i,))
    c.close()
    table = PaimonTable(os.path.join(path, "default.db", "t"))
    latest = table.latest()
    assert len(latest.base_manifests) <= MERGE_THRESHOLD + 1
    assert latest.record_count == 40
    check_all_snapshots(path, "t")


def test_inline_files_are_published_together(tmp_path):
    """The rows of small commits, which travel inline in the log, are published as one Parquet
    file per table and schema rather than one per commit; the file follows deletions, a
    publication over the same inline files writes nothing new, and every snapshot still reads
    as the committed state."""
    from txlake.storage.format.paimon import PaimonTable
    path = str(tmp_path / "wh")
    bucket = os.path.join(path, "default.db", "t", "bucket-0")

    def parquet_files() -> set[str]:
        return {n for n in os.listdir(bucket) if n.endswith(".parquet")}

    c = txlake.connect(path, autocommit=True, publish="off")
    c.execute("CREATE TABLE t (id INT PRIMARY KEY, v INT)")
    for i in range(20):
        c.execute("INSERT INTO t VALUES (?, ?)", (i, i))
    c.execute("INSERT INTO t SELECT range + 100, 0 FROM range(50)")  # one inline file of 50 rows
    c.execute("UPDATE t SET v = -1 WHERE id = 3 OR id = 120")  # a one-row file goes, the other loses a row
    c.close()
    assert not os.path.exists(bucket)
    c = txlake.connect(path, autocommit=True, publish="sync")  # publishes what the log has
    first = parquet_files()
    assert len(first) == 1 and next(iter(first)).startswith("data-inline-"), first
    c.execute("DELETE FROM t WHERE id = 7")
    second = parquet_files() - first
    assert len(second) == 1, second
    c.execute("CREATE TABLE u (x INT)")
    c.execute("INSERT INTO u VALUES (1)")  # t's inline files are unchanged: nothing new for it
    assert parquet_files() == first | second
    c.execute("ALTER TABLE t ADD COLUMN w TEXT")  # (rewrites t's rows: one inline file of the new schema)
    c.execute("INSERT INTO t VALUES (500, 5, 'x')")
    latest = PaimonTable(os.path.join(path, "default.db", "t")).latest()
    assert len(latest.files) == 1 and all(n.startswith("bucket-0/data-inline-") for n in latest.files)
    assert [f.schema_id for f in latest.files.values()] == [1]
    assert latest.record_count == 20 + 50 - 1 + 1  # (the DELETE, the INSERT)
    c.close()
    check_all_snapshots(path, "t")


@pytest.mark.parametrize("mode", ["off", "async"])
def test_call_publish_publishes_every_commit_before_it_returns(tmp_path, mode):
    path = str(tmp_path / "wh")
    c = txlake.connect(path, autocommit=True, publish=mode)
    c.execute("CREATE TABLE t (id INT PRIMARY KEY, v TEXT)")
    c.execute("INSERT INTO t VALUES (1, 'a'), (2, 'b')")
    c.execute("UPDATE t SET v = 'c' WHERE id = 2")
    newest = c.execute("SELECT max(snapshot_id) FROM txlake_snapshots('t')").fetchone()[0]
    assert c.execute("CALL txlake.publish()").fetchall() == [(newest,)]
    published = read_with_pypaimon(os.path.join(path, "default.db", "t"))["snapshots"]
    last = published[max(published)]
    assert last["commit_identifier"] == newest and sorted(last["rows"]) == [[1, "a"], [2, "c"]]
    with pytest.raises(txlake.ProgrammingError) as bad:
        c.execute("CALL txlake.publish('t')")
    assert bad.value.sqlstate == "42883"
    assert c.execute("SELECT count(*) FROM t").fetchone() == (2,)
    c.close()


def test_commits_between_passes_leave_the_publishing_thread_asleep(tmp_path):
    """The background publisher is told once that there is something to publish and sleeps
    until its next pass: each commit woke it, only for it to go back to sleep (a tenth of a
    pgbench transaction's CPU went on that). What was committed meanwhile is published."""
    import time

    from txlake.storage.publish import Publisher
    path = str(tmp_path / "wh")
    c = txlake.connect(path, autocommit=True, publish="off")
    c.execute("CREATE TABLE t (id INT PRIMARY KEY)")
    warehouse = c._session.db.warehouse
    publisher = Publisher(warehouse, mode="async", interval=3600)
    waits = []
    wait = publisher._wake.wait
    publisher._wake.wait = lambda timeout=None: (waits.append(timeout), wait(timeout))[1]
    publisher.start()  # a first pass at once (recovery), the next in an hour
    deadline = time.monotonic() + 30
    while publisher.published_csn < warehouse.latest.csn and time.monotonic() < deadline:
        time.sleep(0.01)
    for i in range(50):
        c.execute("INSERT INTO t VALUES (?)", (i,))
    time.sleep(0.1)
    assert len(waits) <= 3, waits
    publisher.close()  # (publishes what is left)
    warehouse.listeners.remove(publisher.notify)
    assert publisher.published_csn == warehouse.latest.csn
    c.close()
    assert check_all_snapshots(path, "t") >= 2


def test_closing_while_another_process_publishes_does_not_spin(tmp_path):
    """A publisher closed while another process holds the publishing lock leaves its thread at
    once (close() publishes what is left). Before, its thread asked for the lock again and
    again, without a pause, until the other let go: tens of thousands of tries a second in
    every process of a pgbench run but the publishing one, at the end of each round."""
    import fcntl
    import threading
    import time

    from txlake.storage.publish import PUBLISH_LOCK, Publisher
    path = str(tmp_path / "wh")
    c = txlake.connect(path, autocommit=True, publish="off")
    c.execute("CREATE TABLE t (id INT PRIMARY KEY)")
    warehouse = c._session.db.warehouse
    other = os.open(os.path.join(warehouse.txlog.dir, PUBLISH_LOCK), os.O_RDWR | os.O_CREAT)
    fcntl.flock(other, fcntl.LOCK_EX)  # (another descriptor: as another process holds it)
    tries = []
    try_lock = warehouse.fs.try_lock
    warehouse.fs.try_lock = lambda *a, **k: (tries.append(1), try_lock(*a, **k))[1]
    try:
        publisher = Publisher(warehouse, mode="async", interval=3600)
        publisher.start()
        c.execute("INSERT INTO t VALUES (1)")
        time.sleep(0.2)
        release = threading.Timer(0.5, fcntl.flock, (other, fcntl.LOCK_UN))
        release.start()
        publisher.close()
        release.join()
        assert len(tries) <= 3, len(tries)
        warehouse.listeners.remove(publisher.notify)
        assert publisher.published_csn == warehouse.latest.csn
    finally:
        del warehouse.fs.try_lock
        os.close(other)
        c.close()


def test_background_passes_keep_one_pace_among_processes(tmp_path):
    """A background pass starts at most every ``interval`` seconds among all the processes
    writing a warehouse: the publishing lock file holds the time the last pass ended, and a
    publisher finding one less than an interval ago waits for the rest of it. (Each keeping its
    own pace, four processes published three or four times as often as one.)"""
    import time

    from txlake.storage.publish import PUBLISH_LOCK, Publisher
    c = txlake.connect(str(tmp_path / "wh"), autocommit=True, publish="off")
    c.execute("CREATE TABLE t (id INT PRIMARY KEY)")
    warehouse = c._session.db.warehouse
    lock = os.path.join(warehouse.txlog.dir, PUBLISH_LOCK)
    publisher = Publisher(warehouse, mode="async", interval=1.0)
    publisher.start()  # (its first pass publishes the table)
    try:
        deadline = time.monotonic() + 30
        while publisher.published_csn < warehouse.latest.csn and time.monotonic() < deadline:
            time.sleep(0.02)
        time.sleep(1.2)  # its own pace would let it publish at once now
        with open(lock, "wb") as f:  # but another process's pass just ended
            f.write(repr(time.time()).encode())
        c.execute("INSERT INTO t VALUES (1)")
        time.sleep(0.4)
        assert publisher.published_csn < warehouse.latest.csn  # not yet: the other's pace
        deadline = time.monotonic() + 30
        while publisher.published_csn < warehouse.latest.csn and time.monotonic() < deadline:
            time.sleep(0.02)
        assert publisher.published_csn == warehouse.latest.csn
        written = b""
        while not written and time.monotonic() < deadline:  # and it says when its own pass ended
            with open(lock, "rb") as f:  # (read without the lock: the pass may be rewriting it)
                written = f.read()
        assert time.time() - float(written) < 5
    finally:
        publisher.close()
        warehouse.listeners.remove(publisher.notify)
        c.close()


PUBLISH_REWRITES = r"""
import sys, txlake
c = txlake.connect(sys.argv[1], autocommit=True, publish="off")
c.execute("CREATE TABLE t (id INT PRIMARY KEY, v INT)")
c.execute("INSERT INTO t SELECT range, 0 FROM range(5000)")   # a Parquet file
c.execute("DELETE FROM t WHERE id = 3")                        # published as a rewrite
c.execute("INSERT INTO t VALUES (-1, 1)")                      # inline: published as a bundle
c.close()
txlake.connect(sys.argv[1], publish="sync").close()            # publishes it all
"""


@pytest.mark.skipif(not shutil.which("strace"), reason="needs strace")
def test_a_published_file_is_durable_before_the_snapshot_naming_it(tmp_path):
    """The publisher renamed a rewrite (or an inline bundle) into bucket-0/ and then created
    the Paimon snapshot naming it, without an fsync of bucket-0/ in between: after a power
    failure the snapshot could name a file whose directory entry was lost. Watched with strace:
    each file renamed into place is followed by an fsync of its directory before any snapshot
    is linked."""
    import subprocess
    import sys

    from tests.conftest import child_env
    path, trace = str(tmp_path / "wh"), str(tmp_path / "strace.out")
    subprocess.run(["strace", "-f", "-y", "-qq", "-e", "trace=rename,renameat,renameat2,link,linkat,fsync",
                    "-o", trace, sys.executable, "-c", PUBLISH_REWRITES, path],
                   env=child_env(), check=True, timeout=120)
    unsynced, checked = set(), 0  # directories of files renamed into place, not fsync'd since
    for line in open(trace):
        if m := re.search(r'rename(?:at2?)?\(.*"([^"]+/bucket-0)/[^"/]+", ', line):
            unsynced.add(m[1])
        elif m := re.search(r"fsync\(\d+<([^>]+)>\)", line):
            unsynced.discard(m[1])
        elif re.search(r'link(?:at)?\(.*"[^"]+/snapshot/snapshot-\d+"', line):
            assert not unsynced, f"snapshot linked before {unsynced} was fsync'd"
            checked += 1
    assert checked


DIES_BEFORE_THE_FIRST_SNAPSHOT = r"""
import os, sys, txlake
from txlake.storage.format import paimon
def die(*args, **kwargs):  # the process dies as kill -9 would: schema written, no snapshot yet
    os._exit(137)
paimon.PaimonTable.commit = die
c = txlake.connect(sys.argv[1], autocommit=True, publish="sync")
c.execute("CREATE TABLE t (a INT, b TEXT)")
"""


def test_a_schema_left_by_a_dropped_table_is_not_taken_for_a_new_ones(tmp_path):
    """A publisher killed between a table's first schema and its first snapshot left
    schema/schema-0 behind; dropping the table removed nothing (its metadata was found by its
    snapshot directory), and a new table of that name was published under the old schema-0
    (put-if-absent kept it): other engines read its rows as the old columns, all NULL."""
    from tests.conftest import run_python
    path = str(tmp_path / "wh")
    assert run_python(DIES_BEFORE_THE_FIRST_SNAPSHOT, path).returncode == 137
    assert os.path.exists(os.path.join(path, "default.db", "t", "schema", "schema-0"))
    c = txlake.connect(path, autocommit=True, publish="sync")
    c.execute("DROP TABLE t")
    c.execute("CREATE TABLE t (x BIGINT, y DOUBLE)")
    c.execute("INSERT INTO t VALUES (1, 2.5)")
    c.close()
    published = read_with_pypaimon(os.path.join(path, "default.db", "t"))
    assert [f["name"] for f in published["fields"]] == ["x", "y"]
    assert list(published["snapshots"].values())[-1]["rows"] == [[1, 2.5]]
    # and the same when the new table is published by a process that never saw the old one
    assert run_python(DIES_BEFORE_THE_FIRST_SNAPSHOT.replace("TABLE t", "TABLE u"), path).returncode == 137
    c = txlake.connect(path, autocommit=True, publish="off")
    c.execute("DROP TABLE u")
    c.execute("CREATE TABLE u (x BIGINT)")
    c.execute("INSERT INTO u VALUES (7)")
    c.close()
    txlake.connect(path, publish="sync").close()
    published = read_with_pypaimon(os.path.join(path, "default.db", "u"))
    assert list(published["snapshots"].values())[-1]["rows"] == [[7]]


CREATES_AND_DROPS = r"""
import sys, time, txlake
c = txlake.connect(sys.argv[1], autocommit=True, publish="sync")
end, i = time.time() + float(sys.argv[2]), 0
while time.time() < end:
    i += 1
    c.execute(f"CREATE TABLE a{i} (id INT)")
    c.execute(f"DROP TABLE a{i}")
"""


def test_a_drop_elsewhere_never_removes_a_table_another_process_just_published(tmp_path):
    """A publishing pass that saw the number of tables change removed the Paimon metadata of
    every table directory its catalog did not have - read at the pass's start, so a table
    another process created and published meanwhile lost its snapshots, manifests or schemas
    under that process's publisher (publishing failed; a snapshot could be left naming a
    deleted manifest list, and then every pass failed on it). Metadata is removed only when
    its schemas name a table the catalog, read again, does not have."""
    import subprocess
    import sys
    import time

    from tests.conftest import child_env
    from txlake.storage.format.paimon import PaimonTable
    path = str(tmp_path / "wh")
    txlake.connect(path, publish="off").close()
    dropper = subprocess.Popen([sys.executable, "-c", CREATES_AND_DROPS, path, "8"], env=child_env())
    c = txlake.connect(path, autocommit=True, publish="sync")
    n, end = 0, time.time() + 8
    while time.time() < end:
        n += 1
        c.execute(f"CREATE TABLE x{n} (id INT)")
        c.execute(f"INSERT INTO x{n} VALUES ({n})")
    assert dropper.wait(60) == 0
    errors = c._session.db.publisher.errors
    c.close()
    broken = []
    for i in range(1, n + 1):
        try:
            state = PaimonTable(os.path.join(path, "default.db", f"x{i}")).latest()
            assert state is not None and state.record_count == 1
        except (AssertionError, FileNotFoundError) as e:
            broken.append((i, repr(e)))
    assert n > 20 and errors == 0 and not broken, (errors, broken[:3])


RECREATES = r"""
import sys, time, txlake
c = txlake.connect(sys.argv[1], autocommit=True, publish="sync")
end, i = time.time() + float(sys.argv[2]), 0
while time.time() < end:
    i += 1
    c.execute("DROP TABLE t")
    c.execute("CREATE TABLE t (id INT, s TEXT)" if i % 2 else "CREATE TABLE t (x BIGINT)")
    c.execute(f"INSERT INTO t SELECT {i}" + (", 'v'" if i % 2 else "") + " FROM range(3)")
"""


def test_tables_dropped_and_created_again_while_another_process_publishes(tmp_path):
    """A table dropped and created again under the same name while another process published:
    one publisher removed the dropped table's metadata while the other was writing the new
    table's (or the old one's, not having seen the drop yet) into the same directory - a
    snapshot was left naming a manifest list that was gone, and then every publishing pass of
    every process failed on it, for good (close() too). Publishing passes hold _txlog/PAIMON
    shared, and metadata is removed holding it exclusively, decided again under it."""
    import subprocess
    import sys
    import time

    from tests.conftest import child_env
    path = str(tmp_path / "wh")
    c = txlake.connect(path, autocommit=True, publish="off")
    c.execute("CREATE TABLE t (id INT)")
    c.execute("CREATE TABLE other (id INT)")
    c.close()
    recreator = subprocess.Popen([sys.executable, "-c", RECREATES, path, "8"], env=child_env())
    c = txlake.connect(path, autocommit=True, publish="sync")
    end = time.time() + 8
    while time.time() < end:
        c.execute("INSERT INTO other VALUES (1)")  # (each publishes the newest state of t too)
    assert recreator.wait(60) == 0
    errors = c._session.db.publisher.errors
    c.close()
    assert errors == 0
    latest = read_with_pypaimon(os.path.join(path, "default.db", "t"))["snapshots"]
    snapshot = latest[max(latest, key=int)]
    reader = txlake.connect(path, publish="off")
    assert snapshot["rows"] == txlake_rows(reader, "t", snapshot["commit_identifier"])
    reader.close()
    assert len(snapshot["rows"]) == 3


def test_a_publishing_failure_at_close_does_not_fail_close(tmp_path):
    """close() publishes what is left; when that failed (here: the table's newest Paimon
    snapshot names a manifest list someone removed) close() raised a bare FileNotFoundError
    and left the warehouse half closed - its commit log still open. Publishing is retried at
    reopen, as after a failure at commit."""
    import glob
    path = str(tmp_path / "wh")
    c = txlake.connect(path, autocommit=True, publish="sync")
    c.execute("CREATE TABLE t (id INT)")
    c.close()
    for name in glob.glob(os.path.join(path, "default.db", "t", "manifest", "manifest-list-*")):
        os.remove(name)
    c = txlake.connect(path, autocommit=True, publish="async")
    c.execute("INSERT INTO t VALUES (1)")
    wh = c._session.db.warehouse
    c.close()  # (publishing fails)
    assert wh.txlog._fds == []  # closed all the same
    c = txlake.connect(path, autocommit=True, publish="off")
    assert c.execute("SELECT * FROM t").fetchall() == [(1,)]
    c.close()


def test_a_table_that_cannot_be_published_does_not_hold_up_the_others(tmp_path):
    """One table whose publication failed (its newest Paimon snapshot names a manifest list
    someone removed) ended the pass there: tables after it were never published again, in any
    process - and with publish="sync", connect() itself failed (08001), the recovery pass at
    open running in its thread. The pass publishes the others and reports the failure after
    them; a failure at open is logged, as one at a commit is."""
    import glob
    path = str(tmp_path / "wh")
    c = txlake.connect(path, autocommit=True, publish="sync")
    for name in ("a", "b", "c"):
        c.execute(f"CREATE TABLE {name} (id INT)")
    c.close()
    for name in glob.glob(os.path.join(path, "default.db", "b", "manifest", "manifest-list-*")):
        os.remove(name)
    c = txlake.connect(path, autocommit=True, publish="sync")
    for name in ("a", "b", "c"):
        c.execute(f"INSERT INTO {name} VALUES (7)")
    c.close()
    for name in ("a", "c"):
        published = read_with_pypaimon(os.path.join(path, "default.db", name))["snapshots"]
        assert published[max(published, key=int)]["rows"] == [[7]], name
