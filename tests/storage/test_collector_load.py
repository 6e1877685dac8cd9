"""What committed state costs Python's cyclic garbage collector. Every object it tracks that
lives long is traversed again by each full collection (tens of milliseconds in a process that
imported pyarrow, DuckDB and sqlglot), and each one promoted to the oldest generation brings the
next full collection nearer. Values made of ints and strings only are kept in tuples, which
the collector stops tracking; a process's own log entries share one record; an inline file's
rows encoded for the log are not kept once the log holds them."""

import gc

import txlake
from txlake.engine.mvcc import gc as mvcc_gc
from txlake.storage import version as v


def test_checkpointed_lineage_entries_are_not_left_to_the_collector():
    moved = {old: (1000 + old, 0, v.EMPTY_BITMAP, 5) for old in range(1, 200)}
    doc = v.Lineage({}, moved).to_json()
    gc.collect()
    assert len(doc["entries"]) == 199
    assert not any(gc.is_tracked(entry) for entry in doc["entries"])
    assert v.Lineage.from_json(doc)[7] == (1007, 0, v.EMPTY_BITMAP, 5)


def test_a_point_commit_keeps_few_objects_the_collector_tracks(tmp_path, monkeypatch):
    monkeypatch.setattr(mvcc_gc, "AUTO_COMPACT_FILES", 10**6)  # (every one-row file stays)
    conn = txlake.connect(str(tmp_path / "wh"), publish="off", durable=False)
    cur = conn.cursor()
    cur.execute("CREATE TABLE t (k INT PRIMARY KEY, a INT, b TEXT, c BIGINT)")
    cur.execute("INSERT INTO t SELECT i, i, 'x', i FROM range(0, 2000) r(i)")
    conn.commit()

    def commits(keys):
        for k in keys:
            cur.execute("UPDATE t SET a = a + ? WHERE k = ?", (1, k))
            conn.commit()
            cur.execute("INSERT INTO t VALUES (?, ?, ?, ?)", (10_000 + k, k, "y", k))
            conn.commit()

    commits(range(0, 100))  # (plans and caches made by the first statements)
    gc.collect()
    before = len(gc.get_objects())
    commits(range(100, 400))  # 600 commits, each leaving a one-row file in the table
    gc.collect()
    kept = (len(gc.get_objects()) - before) / 600
    cur.execute("SELECT count(*), sum(a) FROM t")
    assert cur.fetchall() == [(2400, sum(range(2000)) + 400 + sum(range(400)))]
    conn.close()
    # a one-row file (its attributes and caches) and its rows as Python values: 4 objects (17
    # with a list per column, copied for the log, the encoding for the log kept after it was
    # written, and a record of each own entry)
    assert kept < 6, kept
