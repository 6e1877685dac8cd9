"""Compaction commits while writers keep changing the rows it is compacting: their deletions
are carried into the new files, nothing is lost, and the compaction does not starve."""

import threading

import pytest

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


def test_background_compaction_merges_by_size_tiers_and_small_results_travel_inline(warehouse, monkeypatch):
    """Under a stream of one-row commits, background compaction merges the smallest files - each
    at most as large as the ones smaller than it together - so a merged file is not rewritten
    for every few dozen new rows; a merged file of a few rows goes inline in the compaction's
    log entry (no Parquet file written); the rows survive a reopen."""
    import dataclasses
    import os

    from txlake.engine.mvcc import gc
    from txlake.storage import maintenance
    from txlake.storage.version import DataFile

    monkeypatch.setattr(gc, "AUTO_COMPACT_FILES", 10**6)  # compacted by hand, below
    conn = txlake.connect(warehouse, autocommit=True, publish="off", gc_interval=3600)
    conn.execute("CREATE TABLE t (id INT PRIMARY KEY, v INT)")
    wh = conn._session.db.warehouse
    version = wh.latest.table("default", "t")
    sizes = [1] * 5 + [5, 12, 40, 2000]                  # tiers: 1+1+1+1+1 >= 5, 10 < 12, 22 < 40
    files = tuple(DataFile(i + 1, f"f{i}", n, version.schema.schema_id) for i, n in enumerate(sizes))
    tiered = maintenance.needs_compaction(dataclasses.replace(version, files=files, caches={}), tiered=True)
    assert sorted(f.row_count for f in tiered) == [1, 1, 1, 1, 1, 5]
    assert len(maintenance.needs_compaction(dataclasses.replace(version, files=files, caches={}))) == len(sizes)

    def parquet_files():
        return sum(name.endswith(".parquet") for _, _, names in os.walk(warehouse) for name in names)

    rewritten = 0
    for i in range(400):
        conn.execute("INSERT INTO t VALUES (?, ?)", (i, i))
        if i % 40 == 39:
            before = wh.refresh().table("default", "t")
            picked = maintenance.needs_compaction(before, tiered=True)
            rewritten += sum(f.row_count for f in picked)
            parquet = parquet_files()
            maintenance.compact_in_background(wh, [before.table_id])  # (the one compacting)
            after = wh.latest.table("default", "t")
            assert len(after.files) < len(before.files)
            if sum(f.row_count for f in picked) <= 256:
                assert parquet_files() == parquet and any(f.is_inline and f.row_count > 1 for f in after.files)
    # merging every small file each time would rewrite 40 + 80 + ... + 400 = 2,200 rows; by
    # tiers it is a binary counter: 40 * (1 + 2 + 1 + 4 + 1 + 2 + 1 + 8 + 1 + 2) = 920
    assert rewritten == 920
    assert conn.execute("SELECT count(*), sum(v) FROM t").fetchone() == (400, sum(range(400)))
    conn.close()
    reopened = txlake.connect(warehouse, publish="off")
    assert reopened.execute("SELECT count(*), sum(v) FROM t").fetchone() == (400, sum(range(400)))
    reopened.close()


def test_a_few_rows_held_in_arrow_merge_with_point_writes_as_python_values(warehouse, monkeypatch):
    """A table's first rows loaded by INSERT ... SELECT are held in Arrow; the one-row files of
    point writes after them hold Python values. Compacted together, the Arrow rows join the
    Python values (no Arrow table is built for each one-row file) and the merged file holds
    Python values too - in order, without the rows deleted."""
    from txlake.engine.mvcc import gc
    from txlake.storage import maintenance

    monkeypatch.setattr(gc, "AUTO_COMPACT_FILES", 10**6)  # compacted by hand, below
    conn = txlake.connect(warehouse, autocommit=True, publish="off", gc_interval=3600)
    conn.execute("CREATE TABLE t (id INT PRIMARY KEY, v INT, note VARCHAR)")
    conn.execute("INSERT INTO t SELECT range, 0, 'loaded' FROM range(4)")
    for i in range(6):
        conn.execute("UPDATE t SET v = v + ? WHERE id = ?", (10 + i, i % 3))
    conn.execute("INSERT INTO t VALUES (?, ?, ?)", (9, 9, "point"))
    wh = conn._session.db.warehouse
    before = wh.refresh().table("default", "t")
    assert before.files[0].python_rows() is None, "the loaded rows are held in Arrow"
    one_row = [f.python_rows() for f in before.files[1:]]
    assert all(rows is not None for rows in one_row)

    maintenance.compact(wh, before.table_id)
    after = wh.latest.table("default", "t")
    assert len(after.files) == 1
    merged = after.files[0].python_rows()
    assert merged is not None and merged._table is None
    assert all(rows._table is None for rows in one_row)
    assert sorted(zip(*merged.columns)) == [(0, 23, "loaded"), (1, 25, "loaded"), (2, 27, "loaded"),
                                            (3, 0, "loaded"), (9, 9, "point")]
    assert conn.execute("SELECT * FROM t ORDER BY id").fetchall() == sorted(zip(*merged.columns))
    conn.close()


@pytest.mark.parametrize("key", [True, False], ids=["primary key", "no key"])
@pytest.mark.parametrize("statement, expected", [
    ("UPDATE acc SET bal = bal + 1 WHERE id > 3 AND id < 8", {i: 101 + (3 < i < 8) + (i == 5) for i in range(10)}),
    ("DELETE FROM acc WHERE id > 3 AND id < 8", {i: 101 for i in range(10) if not 3 < i < 8}),
], ids=["update", "delete"])
def test_read_committed_rows_a_compaction_moved_while_it_waited(warehouse, statement, expected, key):
    """A READ COMMITTED statement waits for a row lock; meanwhile a compaction moves the rows
    it found and the lock holder commits. The statement goes on in the newest version, where
    the rows it found unchanged are at the compaction's positions: it must change them there.
    (It changed them where they had been: the moved copies stayed live, beside the new
    versions - keys held twice - or in spite of the DELETE.)"""
    c = txlake.connect(warehouse, autocommit=True, publish="off", gc_interval=3600)
    c.execute(f"CREATE TABLE acc (id INT{' PRIMARY KEY' if key else ''}, bal INT)")
    c.execute("INSERT INTO acc SELECT range, 100 FROM range(10)")
    for i in range(10):  # one-row files for the compaction to merge
        c.execute("UPDATE acc SET bal = bal + 1 WHERE id = ?", (i,))
    holder = txlake.connect(warehouse, isolation_level="READ COMMITTED", publish="off")
    waiter = txlake.connect(warehouse, isolation_level="READ COMMITTED", publish="off")
    holder.execute("UPDATE acc SET bal = bal + 1 WHERE id = 5")
    failures = []

    def wait_then_run():
        try:
            waiter.execute(statement)  # waits for row 5
            waiter.commit()
        except Exception as e:  # pragma: no cover - reported below
            failures.append(e)

    thread = threading.Thread(target=wait_then_run)
    thread.start()
    thread.join(0.3)
    assert thread.is_alive(), "the statement waits for the row lock"
    assert c.execute("CALL txlake.compact('acc')").fetchone()[4] is not None, "the compaction committed"
    holder.commit()
    thread.join(10)
    assert not failures
    assert dict(c.execute("SELECT id, bal FROM acc").fetchall()) == expected
    assert c.execute("SELECT count(*) FROM acc").fetchone()[0] == len(expected), "no row held twice"
    for conn in (holder, waiter, c):
        conn.close()
