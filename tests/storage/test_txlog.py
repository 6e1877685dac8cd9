"""The commit log's segments: lines cut short by a crash, rolling over to new segments, and
appenders in several processes sharing the log through its file lock."""

import os

import pytest

import txlake
from tests.conftest import run_python
from txlake.engine.mvcc import gc
from txlake.storage import txlog
from txlake.storage.fs import LocalFileSystem
from txlake.storage.txlog import TxLog


def log_of(warehouse: str) -> TxLog:
    return TxLog(warehouse, LocalFileSystem())


def test_a_torn_last_line_is_not_an_entry_and_the_next_append_replaces_it(warehouse):
    conn = txlake.connect(warehouse, autocommit=True, publish="off")
    conn.execute("CREATE TABLE t (id INT PRIMARY KEY)")
    conn.execute("INSERT INTO t VALUES (1)")
    conn.close()
    log = log_of(warehouse)
    assert log.newest_csn() == 2
    segment = os.path.join(log.dir, "000000000001.log")
    data = open(segment, "rb").read()
    intact = data.index(b"\0")                   # the lines, then the preallocated zeros
    assert data[intact:] == bytes(len(data) - intact) and len(data) % 4096 == 0
    good = log.read(2).to_json()
    line = data[:intact].splitlines(keepends=True)[-1]
    with open(segment, "r+b") as f:               # a crashed appender's half line ...
        f.seek(intact)
        f.write(line.replace(b"2 ", b"3 ", 1)[: len(line) // 2])
    assert log_of(warehouse).newest_csn() == 2
    damaged = line.replace(b"2 ", b"3 ", 1).replace(b'"id"', b'"ix"') + b"x" * 200
    with open(segment, "r+b") as f:               # ... and a whole line whose bytes are damaged
        f.seek(intact)
        f.write(damaged)
    assert log_of(warehouse).newest_csn() == 2 and log_of(warehouse).read(3) is None
    conn = txlake.connect(warehouse, autocommit=True, publish="off")
    assert conn.execute("SELECT id FROM t").fetchall() == [(1,)]
    conn.execute("INSERT INTO t VALUES (2)")
    conn.close()
    reopened = log_of(warehouse)
    assert reopened.newest_csn() == 3 and reopened.read(2).to_json() == good
    data = open(segment, "rb").read()
    lines = data[:data.index(b"\0")]
    assert lines.count(b"\n") == 3 and lines.endswith(b"\n") and data[len(lines):].strip(b"\0") == b"", \
        "the damaged line was zeroed"


def test_the_log_rolls_over_to_new_segments_and_reads_across_them(warehouse, monkeypatch):
    monkeypatch.setattr(txlog, "SEGMENT_BYTES", 3000)
    conn = txlake.connect(warehouse, autocommit=True, publish="off")
    conn.execute("CREATE TABLE t (id INT PRIMARY KEY, s VARCHAR)")
    for i in range(40):
        conn.execute("INSERT INTO t VALUES (?, ?)", (i, "x" * 50))
    conn.close()
    segments = sorted(n for n in os.listdir(os.path.join(warehouse, "_txlog")) if n.endswith(".log"))
    assert len(segments) >= 5
    log = log_of(warehouse)
    newest = log.newest_csn()
    assert newest >= 41                            # 41 commits, and maybe a compaction
    assert [e.csn for e in log.entries_after(0)] == list(range(1, newest + 1))
    for name in segments:                          # the first entry of each segment, and the last before it
        first = int(name[:-4])
        assert log.read(first).csn == first and (first == 1 or log.read(first - 1).csn == first - 1)
    out = run_python("import sys, txlake; c = txlake.connect(sys.argv[1], publish='off');"
                     "print(c.execute('SELECT count(*), max(id) FROM t').fetchone())", warehouse)
    assert out.stdout.strip() == "(40, 39)", out.stderr


def test_lines_are_found_across_reads_and_preallocated_extents(warehouse, monkeypatch):
    """Reads past the known end shorter than a line (it doubles them) and than the lines
    written since (it reads on), and a segment extended many times: every entry is found, by
    the appending process and by a fresh reader; between the lines and the file's end only
    zeros."""
    monkeypatch.setattr(txlog, "SCAN_BYTES", 64)
    monkeypatch.setattr(txlog, "SCAN_MAX_BYTES", 256)
    monkeypatch.setattr(txlog, "PREALLOCATE_MIN_BYTES", 4096)
    monkeypatch.setattr(txlog, "PREALLOCATE_MAX_BYTES", 8192)
    monkeypatch.setattr(gc, "AUTO_COMPACT_FILES", 10**6)  # no compaction entries in between
    conn = txlake.connect(warehouse, autocommit=True, publish="off")
    conn.execute("CREATE TABLE t (id INT PRIMARY KEY, s VARCHAR)")
    reader = log_of(warehouse)
    for i in range(60):
        conn.execute("INSERT INTO t VALUES (?, ?)", (i, "x" * (i * 20)))
        if i % 7 == 0:                             # catches up over several new lines at once
            assert reader.newest_csn() == conn._session.db.warehouse.latest.csn
    newest = conn._session.db.warehouse.latest.csn
    assert newest == 61
    for log in (reader, log_of(warehouse)):
        assert [e.csn for e in log.entries_after(0)] == list(range(1, newest + 1))
    segment = os.path.join(warehouse, "_txlog", "000000000001.log")
    data = open(segment, "rb").read()
    end = data.index(b"\0")
    assert data.count(b"\n") == newest and data[end:] == bytes(len(data) - end) and len(data) > 8192
    assert conn.execute("SELECT count(*), sum(length(s)) FROM t").fetchone() == (60, sum(i * 20 for i in range(60)))
    conn.close()

APPENDER = r"""
import sys, txlake
c = txlake.connect(sys.argv[1], publish="off", autocommit=True)
for i in range(int(sys.argv[2]), int(sys.argv[2]) + 40):
    c.execute("INSERT INTO t VALUES (?)", (i,))
    while True:
        try:
            c.execute("UPDATE counter SET n = n + 1 WHERE k = 1")
            break
        except txlake.SerializationFailure:
            pass                               # another process updated it first: again
"""


def test_appenders_in_several_processes_share_the_log(warehouse):
    conn = txlake.connect(warehouse, autocommit=True, publish="off")
    conn.execute("CREATE TABLE t (id INT)")
    conn.execute("CREATE TABLE counter (k INT PRIMARY KEY, n INT)")
    conn.execute("INSERT INTO counter VALUES (1, 0)")
    import concurrent.futures
    with concurrent.futures.ThreadPoolExecutor(3) as pool:
        runs = list(pool.map(lambda start: run_python(APPENDER, warehouse, str(start)), (0, 1000, 2000)))
    assert all(r.returncode == 0 for r in runs), [r.stderr for r in runs]
    assert conn.execute("SELECT count(*), count(DISTINCT id) FROM t").fetchone() == (120, 120)
    assert conn.execute("SELECT n FROM counter").fetchone() == (120,), "no update was lost"
    log = log_of(warehouse)
    assert [e.csn for e in log.entries_after(0)] == list(range(1, log.newest_csn() + 1))
    conn.close()


def test_another_processs_entries_are_found_and_read_in_one_read_of_the_log(warehouse, monkeypatch):
    """A refresh finding entries another process appended reads the log once: the read past
    the known end finds their lines, which are kept for reading the entries (not read again
    one by one), and the refresh stops at HEAD rather than read past the last entry to find
    it was the last. (Before: five reads for three entries.)"""
    conn = txlake.connect(warehouse, autocommit=True, publish="off")
    conn.execute("CREATE TABLE t (id INT PRIMARY KEY)")
    here = conn.session.db.warehouse
    insert = ("import sys, txlake\nc = txlake.connect(sys.argv[1], autocommit=True, publish='off')\n"
              "for i in range(3): c.execute('INSERT INTO t VALUES (?)', (i,))\nc.close()")
    run = run_python(insert, warehouse)
    assert run.returncode == 0, run.stderr
    reads = []
    pread = os.pread
    monkeypatch.setattr(os, "pread", lambda *args: (reads.append(args[1:]), pread(*args))[1])
    newest = here.refresh()
    monkeypatch.undo()
    assert newest.csn == here.txlog.head() == 4 and len(reads) == 1, reads
    assert conn.execute("SELECT count(*) FROM t").fetchone() == (3,)
    conn.close()


def test_head_follows_every_append_from_any_process(warehouse):
    """``_txlog/HEAD`` names the newest entry written, whichever process wrote it: a process
    that knows that many entries looks no further (no lock, no system call), and sees another
    process's commit as soon as HEAD moves. A log whose HEAD is missing or behind gets it set
    when it is opened."""
    conn = txlake.connect(warehouse, autocommit=True, publish="off")
    conn.execute("CREATE TABLE t (id INT PRIMARY KEY, v INT)")
    conn.execute("INSERT INTO t VALUES (1, 0)")
    wh = conn._session.db.warehouse
    assert wh.txlog.head() == wh.latest.csn == log_of(warehouse).newest_csn() == 2
    assert wh.refresh() is wh.latest
    run = run_python("import sys, txlake; txlake.connect(sys.argv[1], publish='off', autocommit=True)"
                     ".execute('UPDATE t SET v = 7 WHERE id = 1')", warehouse)
    assert run.returncode == 0, run.stderr
    assert wh.txlog.head() == 3 and wh.latest.csn == 2
    assert conn.execute("SELECT v FROM t").fetchall() == [(7,)]
    assert wh.latest.csn == 3
    conn.close()
    head = os.path.join(warehouse, "_txlog", txlog.HEAD_FILE)
    os.remove(head)                   # as a log from before HEAD existed
    assert log_of(warehouse).head() == 3
    with open(head, "r+b") as f:      # as if the last appender died before setting it
        f.write((1).to_bytes(8, "little"))
    assert log_of(warehouse).head() == 3
    with open(head, "wb") as f:       # as the 8-byte HEAD of an older txlake: extended, kept
        f.write((3).to_bytes(8, "little"))
    log = log_of(warehouse)
    assert (log.head(), log.prepared_changes(), os.path.getsize(head)) == (3, 0, txlog.HEAD_BYTES)

def test_background_work_locks_are_taken_by_one_holder_at_a_time(tmp_path):
    fs = LocalFileSystem()
    path = str(tmp_path / "PUBLISH")
    with fs.try_lock(path) as first:
        with fs.try_lock(path) as second:    # another descriptor: as another process would
            assert (first, second) == (True, False)
    with fs.try_lock(path) as again:
        assert again, "released when its holder is done"


def test_a_contended_log_lock_is_waited_for_then_given_up_at_the_timeout(warehouse):
    """The log's file lock held through another open file (as another process holds it): an
    appender waits for it and has it as soon as the holder lets go; one that waits past its
    timeout gives up with LogLocked and is not left holding it later. Every wait goes through
    the log's one lock waiter."""
    import fcntl
    import threading
    import time

    def waiters() -> int:
        return [t.name for t in threading.enumerate()].count("txlake-log-lock")

    before = waiters()
    log = log_of(warehouse)
    other = os.open(os.path.join(log.dir, txlog.LOCK_FILE), os.O_RDWR | os.O_CREAT)
    try:
        fcntl.flock(other, fcntl.LOCK_EX)
        with pytest.raises(txlog.LogLocked):
            with log.locked(0.2):
                pass
        fcntl.flock(other, fcntl.LOCK_UN)
        time.sleep(0.1)  # (the waiter takes the lock it waited for, then drops it: given up)
        fcntl.flock(other, fcntl.LOCK_EX | fcntl.LOCK_NB)  # not left held by the waiter

        release = threading.Timer(0.2, fcntl.flock, (other, fcntl.LOCK_UN))
        release.start()
        start = time.monotonic()
        with log.locked(10.0):
            waited = time.monotonic() - start
            with pytest.raises(BlockingIOError):
                fcntl.flock(other, fcntl.LOCK_EX | fcntl.LOCK_NB)
        assert 0.15 < waited < 5, waited
        fcntl.flock(other, fcntl.LOCK_EX | fcntl.LOCK_NB)
        fcntl.flock(other, fcntl.LOCK_UN)
        assert waiters() == before + 1, "one waiter for both waits"
    finally:
        os.close(other)
        log.close()
    time.sleep(0.1)
    assert waiters() == before, "closing the log stops its waiter"
