"""Group commit: concurrent committers in one process share one log entry (one write, one
fsync), and every transaction in it is still all-or-nothing, deduplicated and conflict-checked."""

import threading
import time

import pytest

import txlake
from txlake.storage.fs import LocalFileSystem
from txlake.storage.txlog import TxLog


@pytest.fixture
def slow_log(monkeypatch):
    """Make each log append take a while, so that committers arriving meanwhile queue up."""
    append = TxLog.append

    def slow(self, entry, *args):
        time.sleep(0.03)
        return append(self, entry, *args)

    monkeypatch.setattr(TxLog, "append", slow)


def run_threads(target, n: int) -> None:
    threads = [threading.Thread(target=target, args=(k,)) for k in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()


def entries(warehouse: str) -> list[dict]:
    return [e.to_json() for e in TxLog(warehouse, LocalFileSystem()).entries_after(0)]


def test_concurrent_commits_share_entries_and_all_land(warehouse, slow_log):
    setup = txlake.connect(warehouse, autocommit=True, publish="off")
    setup.execute("CREATE TABLE t (id INT PRIMARY KEY, k INT)")
    setup.execute("CREATE TABLE u (k INT)")

    def writer(k):
        conn = txlake.connect(warehouse, publish="off")
        for i in range(10):
            conn.execute("INSERT INTO t VALUES (?, ?)", (k * 100 + i, k))
            conn.execute("INSERT INTO u VALUES (?)", (k,))    # two tables, one transaction
            conn.commit()
        conn.close()

    run_threads(writer, 6)
    groups = [e for e in entries(warehouse) if e.get("members")]
    assert groups, "some commits were grouped"
    for e in groups:
        covered = [c for _, _, start, end in e["members"] for c in e["changes"][start:end]]
        assert covered == e["changes"] and len(e["members"]) >= 2
    assert setup.execute("SELECT count(*), count(DISTINCT id) FROM t").fetchone() == (60, 60)
    assert setup.execute("SELECT k, count(*) FROM u GROUP BY k ORDER BY k").fetchall() == [(k, 10) for k in range(6)]
    setup.close()
    reopened = txlake.connect(warehouse, publish="off")
    assert reopened.execute("SELECT count(*) FROM t").fetchone() == (60,)
    reopened.close()


def test_a_failing_member_does_not_fail_the_group(warehouse, slow_log):
    setup = txlake.connect(warehouse, autocommit=True, publish="off")
    setup.execute("CREATE TABLE t (id INT PRIMARY KEY)")
    setup.execute("CREATE TABLE hot (id INT PRIMARY KEY, v INT)")
    setup.execute("BEGIN")
    setup.execute("INSERT INTO hot VALUES (1, -1)")
    setup.execute("PREPARE TRANSACTION 'holds-hot'")     # its key is claimed: inserts of it fail at commit
    results = {}

    def writer(k):
        conn = txlake.connect(warehouse, publish="off")
        conn.execute("INSERT INTO t VALUES (?)", (k,))
        if k == 0:
            conn.execute("INSERT INTO hot VALUES (1, 5)")
        try:
            conn.commit()
            results[k] = "ok"
        except txlake.Error as e:
            results[k] = e.sqlstate
            conn.rollback()
        conn.close()

    run_threads(writer, 6)
    assert results == {0: "40001", **{k: "ok" for k in range(1, 6)}}
    assert {r[0] for r in setup.execute("SELECT id FROM t").fetchall()} == {1, 2, 3, 4, 5}
    setup.execute("ROLLBACK PREPARED 'holds-hot'")
    assert setup.execute("SELECT v FROM hot").fetchall() == []
    setup.close()


def test_sessions_of_the_committing_process_see_a_commit_only_once_it_is_flushed(warehouse, monkeypatch):
    """The log line is written under the log lock and flushed after it: until the flush
    returns, the other sessions of the process go on seeing the state before it (and its
    committer has not been told), though the line is already in the file."""
    setup = txlake.connect(warehouse, autocommit=True, publish="off")
    setup.execute("CREATE TABLE t (id INT PRIMARY KEY, v INT)")
    setup.execute("INSERT INTO t VALUES (1, 0)")
    flushing, release = threading.Event(), threading.Event()
    sync = TxLog.sync

    def held_sync(self, csn, *meanwhile):
        flushing.set()
        assert release.wait(10)
        return sync(self, csn, *meanwhile)

    monkeypatch.setattr(TxLog, "sync", held_sync)
    writer = threading.Thread(target=lambda: setup.execute("UPDATE t SET v = 1 WHERE id = 1"))
    writer.start()
    try:
        assert flushing.wait(10)
        reader = txlake.connect(warehouse, autocommit=True, publish="off")
        assert reader.execute("SELECT v FROM t").fetchall() == [(0,)]
        assert TxLog(warehouse, LocalFileSystem()).newest_csn() == setup._session.db.warehouse.latest.csn + 1
    finally:
        release.set()
        writer.join()
    assert reader.execute("SELECT v FROM t").fetchall() == [(1,)]
    reader.close()
    setup.close()


def test_a_refresh_landing_right_after_the_line_is_written_does_not_show_it(warehouse, monkeypatch):
    """Another thread's refresh() may run the moment the line is in the file, before the
    committer returns from the append: it must stop before the line too (the entry is marked
    unflushed before it is written), not read it back from the log."""
    setup = txlake.connect(warehouse, autocommit=True, publish="off")
    setup.execute("CREATE TABLE t (id INT PRIMARY KEY, v INT)")
    setup.execute("INSERT INTO t VALUES (1, 0)")
    wh = setup._session.db.warehouse
    append, seen = TxLog.append, []

    def append_then_refresh(self, entry, *args):
        written = append(self, entry, *args)
        seen.append((entry.csn, wh.refresh().csn))
        return written

    monkeypatch.setattr(TxLog, "append", append_then_refresh)
    setup.execute("UPDATE t SET v = 1 WHERE id = 1")
    (csn, refreshed), = seen
    assert refreshed == csn - 1
    assert wh.latest.csn == csn and setup.execute("SELECT v FROM t").fetchall() == [(1,)]
    setup.close()


def _compaction_of(wh, table: str):
    """A maintenance entry that rewrites nothing: a compaction's shape, rebased on ``newest``."""
    from txlake.storage.commit import now_ms
    from txlake.storage.maintenance import COMPACT_USER
    from txlake.storage.version import ChangeData, LogEntry

    def build(newest):
        table_id = newest.table("default", table).table_id
        return LogEntry(newest.csn + 1, 0, COMPACT_USER, f"compact-{table_id}-{newest.csn}", now_ms(),
                        (ChangeData(table_id, moved={}),))
    return build


def test_a_waiting_maintenance_entry_shares_the_next_commits_flush(warehouse, monkeypatch):
    conn = txlake.connect(warehouse, autocommit=True, publish="off")
    conn.execute("CREATE TABLE t (id INT PRIMARY KEY)")
    wh = conn._session.db.warehouse
    flushed = []
    sync = TxLog.sync
    monkeypatch.setattr(TxLog, "sync",
                        lambda self, csn, *meanwhile: (flushed.append(csn), sync(self, csn, *meanwhile))[1])
    done = {}
    waiting = threading.Thread(target=lambda: done.update(entry=wh.append_rebased(_compaction_of(wh, "t"), 60.0)))
    waiting.start()
    while not wh._queue:  # it queues, waiting for a committer
        time.sleep(0.001)
    conn.execute("INSERT INTO t VALUES (1)")
    waiting.join(30.0)
    assert not waiting.is_alive(), "the commit took the maintenance entry along"
    maintenance, commit = TxLog(warehouse, LocalFileSystem()).entries_after(done["entry"].csn - 1)
    assert maintenance.commit_user == "txlake-compaction" and commit.commit_user == wh.commit_user
    assert flushed == [commit.csn], "one flush for both"
    assert wh.latest.csn == commit.csn and conn.execute("SELECT id FROM t").fetchall() == [(1,)]


def test_a_maintenance_entry_with_nobody_committing_appends_itself(warehouse):
    conn = txlake.connect(warehouse, autocommit=True, publish="off")
    conn.execute("CREATE TABLE t (id INT PRIMARY KEY)")
    wh = conn._session.db.warehouse
    entry = wh.append_rebased(_compaction_of(wh, "t"), 0.05)
    assert entry is not None and wh.latest.csn == entry.csn
    assert TxLog(warehouse, LocalFileSystem()).read(entry.csn).commit_user == "txlake-compaction"


def test_a_failing_maintenance_entry_does_not_fail_the_commit_it_waited_for(warehouse):
    conn = txlake.connect(warehouse, autocommit=True, publish="off")
    conn.execute("CREATE TABLE t (id INT PRIMARY KEY)")
    wh = conn._session.db.warehouse
    failed = {}

    def broken(newest):
        raise ValueError("maintenance bug")

    def maintain():
        try:
            wh.append_rebased(broken, 60.0)
        except ValueError as e:
            failed["error"] = e

    waiting = threading.Thread(target=maintain)
    waiting.start()
    while not wh._queue:
        time.sleep(0.001)
    conn.execute("INSERT INTO t VALUES (1)")
    waiting.join(30.0)
    assert "maintenance bug" in str(failed["error"])
    assert conn.execute("SELECT id FROM t").fetchall() == [(1,)]
