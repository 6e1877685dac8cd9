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
