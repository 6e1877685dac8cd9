"""Garbage collection frees what no open snapshot can see; a long reader keeps what it needs."""

import txlake


def test_long_reader_keeps_its_versions_and_gc_frees_the_rest(connect):
    w = connect(autocommit=True)
    w.execute("CREATE TABLE t (id INT PRIMARY KEY, v INT)")
    w.execute("INSERT INTO t SELECT range, 0 FROM range(1000)")
    reader = connect()
    assert reader.execute("SELECT sum(v) FROM t").fetchone() == (0,)
    for _ in range(10):
        w.execute("UPDATE t SET v = v + 1")
    db = w.session.db
    stats = db.gc.collect()
    assert reader.execute("SELECT sum(v) FROM t").fetchone() == (0,)   # still its snapshot
    assert len(db.clog) >= 10                                           # its xmin pins the clog
    reader.rollback()                                                    # ends: freed at once
    assert len(db.clog) == 0
    after = db.gc.collect()
    assert after.clog_entries == 0
    assert after.cache_files <= stats.cache_files
    assert w.execute("SELECT sum(v) FROM t").fetchone() == (10000,)


def test_max_active_transactions(warehouse):
    a = txlake.connect(warehouse, publish="off", max_active_transactions=1)
    b = txlake.connect(warehouse, publish="off")
    a.execute("SELECT 1")
    try:
        b.execute("SELECT 1")
        raise AssertionError("expected 53300")
    except txlake.OperationalError as e:
        assert e.sqlstate == "53300"
    a.rollback()
    assert b.execute("SELECT 1").fetchone() == (1,)
    a.close()
    b.close()


def test_a_connection_collected_while_another_database_opens_does_not_deadlock(tmp_path, monkeypatch):
    """The cycle collector may finalise a forgotten connection at any allocation - also inside
    ``open_database``, whose registry lock the connection's ``close`` takes too."""
    import gc
    import threading

    from txlake.engine import database

    forgotten = txlake.connect(str(tmp_path / "a"), publish="off")
    forgotten.cycle = forgotten  # only the cycle collector frees it
    opening = database.Database.__init__

    def init(self, *args, **kwargs):
        gc.collect()  # the collection landing mid-open, under the registry lock
        opening(self, *args, **kwargs)

    gc.disable()
    try:
        del forgotten
        monkeypatch.setattr(database.Database, "__init__", init)
        opened = []
        thread = threading.Thread(target=lambda: opened.append(txlake.connect(str(tmp_path / "b"), publish="off")),
                                  daemon=True)
        thread.start()
        thread.join(60.0)
    finally:
        gc.enable()
    assert opened, "opening a warehouse deadlocked on a connection finalised meanwhile"
    assert opened[0].execute("SELECT 1").fetchone() == (1,)
    opened[0].close()


def test_a_commit_past_the_compaction_threshold_compacts_its_table_without_a_whole_pass(warehouse, monkeypatch):
    """A commit that leaves a table with too many small files wakes the background thread for
    that table alone: under a stream of small commits that is every few dozen commits, and such
    a pass must not walk every table of the warehouse (nor write checkpoints, nor sweep the
    cache). Other crowded tables wait for the periodic whole pass."""
    import time

    from txlake.engine.mvcc import gc as mvcc_gc
    conn = txlake.connect(warehouse, autocommit=True, publish="off", gc_interval=3600)
    conn.execute("CREATE TABLE a (id INT PRIMARY KEY)")
    conn.execute("CREATE TABLE b (id INT PRIMARY KEY)")
    db = conn.session.db
    monkeypatch.setattr(mvcc_gc, "AUTO_COMPACT_FILES", 10**6)
    for i in range(12):  # twelve one-row files each, nothing compacted
        conn.execute("INSERT INTO a VALUES (?)", (i,))
        conn.execute("INSERT INTO b VALUES (?)", (i,))
    whole_passes = []
    monkeypatch.setattr(db.gc, "collect", lambda: whole_passes.append(True))

    def files(table):
        return len(db.warehouse.latest.table("default", table).files)

    def settle(runs):
        deadline = time.monotonic() + 30
        while db.gc.runs == runs and time.monotonic() < deadline:
            time.sleep(0.01)

    monkeypatch.setattr(mvcc_gc, "AUTO_COMPACT_FILES", 8)
    runs = db.gc.runs
    conn.execute("INSERT INTO a VALUES (100)")  # a: 13 files > 8, and the commit says so
    settle(runs)
    assert files("a") < 8 and files("b") == 12 and not whole_passes
    runs = db.gc.runs
    db.gc.wake()  # a whole pass: every table
    settle(runs)
    assert files("b") < 8 and whole_passes == [True]
    conn.close()


def test_a_failing_background_pass_waits_for_the_next_interval(warehouse, monkeypatch):
    """A whole pass that fails (a checkpoint that cannot be written) is tried again an interval
    later, not at once and again and again."""
    import time
    conn = txlake.connect(warehouse, autocommit=True, publish="off", gc_interval=0.2)
    conn.execute("CREATE TABLE t (id INT)")
    db = conn.session.db
    tries = []

    def failing(*args, **kwargs):
        tries.append(time.monotonic())
        raise OSError("no space left on device")

    monkeypatch.setattr(db.warehouse, "write_checkpoint", failing)
    monkeypatch.setattr("logging.Logger.exception", lambda *a, **k: None)
    time.sleep(1.0)
    assert 2 <= len(tries) <= 8, len(tries)
    conn.close()


def test_a_table_another_process_is_compacting_is_not_counted_at_every_commit(warehouse, monkeypatch):
    """With several processes writing, the one holding the compaction lock compacts. The others
    do not count a crowded table's small files again at each of their commits, nor wake their
    background thread to find the lock taken again, for ``COMPACTING_ELSEWHERE``; after it,
    they compact the table themselves if it still needs it."""
    import fcntl
    import os
    import threading
    import time

    from txlake.engine.mvcc import gc as mvcc_gc
    from txlake.storage import maintenance
    conn = txlake.connect(warehouse, autocommit=True, publish="off", gc_interval=3600)
    conn.execute("CREATE TABLE t (id INT PRIMARY KEY)")
    db = conn.session.db
    monkeypatch.setattr(mvcc_gc, "AUTO_COMPACT_FILES", 8)
    monkeypatch.setattr(mvcc_gc, "COMPACTING_ELSEWHERE", 2.0)  # (twenty commits take far less)
    attempts, counted, refused = [], [], threading.Event()
    compacting, worth = maintenance.compact_in_background, maintenance.worth_compacting

    def attempt(*args, **kwargs):
        mine = compacting(*args, **kwargs)
        attempts.append(mine)
        if not mine:
            refused.set()
        return mine

    def counting(*args, **kwargs):
        counted.append(True)
        return worth(*args, **kwargs)

    monkeypatch.setattr(maintenance, "compact_in_background", attempt)
    monkeypatch.setattr(maintenance, "worth_compacting", counting)
    # the lock held as another process holds it (a lock of another open file description)
    held = os.open(os.path.join(warehouse, "_txlog", maintenance.COMPACT_LOCK), os.O_RDWR | os.O_CREAT)
    fcntl.flock(held, fcntl.LOCK_EX)
    for i in range(10):  # past the threshold: the background thread tries, and finds the lock taken
        conn.execute("INSERT INTO t VALUES (?)", (i,))
    assert refused.wait(30)
    counted.clear()
    for i in range(10, 30):
        conn.execute("INSERT INTO t VALUES (?)", (i,))
    assert counted == [] and attempts == [False]
    fcntl.flock(held, fcntl.LOCK_UN)
    os.close(held)
    time.sleep(2.0)
    conn.execute("INSERT INTO t VALUES (100)")  # counted again: compacted here now
    deadline = time.monotonic() + 30
    while len(db.warehouse.latest.table("default", "t").files) > 8 and time.monotonic() < deadline:
        time.sleep(0.01)
    assert len(db.warehouse.latest.table("default", "t").files) <= 8 and attempts[-1] is True
    assert conn.execute("SELECT count(*) FROM t").fetchone() == (31,)
    conn.close()
