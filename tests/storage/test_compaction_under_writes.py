"""Compaction commits while writers keep changing the rows it is compacting: their deletions
are carried into the new files, nothing is lost, and the compaction does not starve."""

import threading

import txlake


def test_compaction_succeeds_under_continuous_updates(warehouse):
    conn = txlake.connect(warehouse, autocommit=True, publish="off", gc_interval=3600)  # no auto-compaction
    conn.execute("CREATE TABLE t (id INT PRIMARY KEY, v INT)")
    for start in range(0, 400, 10):        # 40 small files
        conn.execute(f"INSERT INTO t SELECT i, 0 FROM range({start}, {start + 10}) r(i)")
    stop = threading.Event()
    updates = []

    def writer():
        w = txlake.connect(warehouse, autocommit=True, publish="off")
        i = 0
        while not stop.is_set() or i < 50:
            w.execute("UPDATE t SET v = v + 1 WHERE id = ?", (i * 7 % 400,))
            updates.append(i * 7 % 400)
            i += 1
        w.close()

    thread = threading.Thread(target=writer)
    thread.start()
    try:
        results = [conn.execute("CALL txlake.compact('t')").fetchone() for _ in range(3)]
    finally:
        stop.set()
        thread.join()
    assert any(r[4] is not None for r in results), f"compaction never committed: {results}"
    rows = dict(conn.execute("SELECT id, v FROM t").fetchall())
    assert len(rows) == 400
    expected = {i: updates.count(i) for i in range(400)}
    assert rows == expected, "no update lost or doubled across the compaction"
    snapshot_kinds = {r[0] for r in conn.execute("SELECT commit_kind FROM txlake_snapshots('t')").fetchall()}
    assert "COMPACT" in snapshot_kinds
    conn.close()
    reopened = txlake.connect(warehouse, publish="off")
    assert dict(reopened.execute("SELECT id, v FROM t").fetchall()) == expected
    reopened.close()


def test_a_file_emptied_meanwhile_does_not_restart_compaction(warehouse):
    """A writer deletes every row of a file the compaction is rewriting - which drops the file
    from the version - after the compaction read it: the compaction still commits on its first
    try, with those rows deleted in its new file, and they stay deleted."""
    from txlake.storage import maintenance
    conn = txlake.connect(warehouse, autocommit=True, publish="off", gc_interval=3600)  # no auto-compaction
    conn.execute("CREATE TABLE t (id INT PRIMARY KEY, v INT)")
    for start in range(0, 50, 10):         # 5 small files
        conn.execute(f"INSERT INTO t SELECT i, i FROM range({start}, {start + 10}) r(i)")
    writer = txlake.connect(warehouse, autocommit=True, publish="off")
    passes = []

    def meanwhile(done, groups):
        passes.append(done)
        if len(passes) == 1:
            writer.execute("DELETE FROM t WHERE id BETWEEN 10 AND 19")   # all of the second file
            writer.execute("UPDATE t SET v = -1 WHERE id = 42")

    result = maintenance.compact(conn._session.db.warehouse, conn._session.db.warehouse.latest.table("default", "t").table_id,
                                 progress=meanwhile)
    assert result.csn is not None and passes == [1], f"compaction restarted: {passes}"
    expected = {i: (-1 if i == 42 else i) for i in range(50) if not 10 <= i <= 19}
    assert dict(conn.execute("SELECT id, v FROM t").fetchall()) == expected
    writer.close()
    conn.close()
    reopened = txlake.connect(warehouse, publish="off")
    assert dict(reopened.execute("SELECT id, v FROM t").fetchall()) == expected
    assert reopened.execute("SELECT count(*) FROM t WHERE id BETWEEN 10 AND 19").fetchone() == (0,)
    reopened.close()
