"""SELECT ... FOR UPDATE / FOR SHARE: the rows it reads are locked, as an UPDATE's are, until
the transaction ends - the read-modify-write it is used for loses no update."""

import threading

import pytest

import txlake


@pytest.fixture
def acc(connect):
    conn = connect(isolation_level="READ COMMITTED")
    conn.execute("CREATE TABLE acc (id INT PRIMARY KEY, bal INT)")
    conn.execute("INSERT INTO acc VALUES (1, 100), (2, 5), (3, 7)")
    conn.commit()
    return conn


def test_a_locked_row_makes_a_writer_wait_until_the_locker_ends(acc, connect):
    other = connect(isolation_level="READ COMMITTED")
    other.execute("SET lock_timeout = '200ms'")
    assert acc.execute("SELECT bal FROM acc WHERE id = ? FOR UPDATE", (1,)).fetchall() == [(100,)]
    with pytest.raises(txlake.LockNotAvailable):
        other.execute("UPDATE acc SET bal = 0 WHERE id = 1")
    other.rollback()
    other.execute("UPDATE acc SET bal = 0 WHERE id = 2")  # a row the WHERE did not match is free
    other.commit()
    acc.commit()                                          # the lock goes with the transaction
    other.execute("UPDATE acc SET bal = 1 WHERE id = 1")
    other.commit()
    assert acc.execute("SELECT id, bal FROM acc ORDER BY id").fetchall() == [(1, 1), (2, 0), (3, 7)]


@pytest.mark.parametrize("clause", ["FOR UPDATE", "FOR NO KEY UPDATE", "FOR SHARE", "FOR KEY SHARE"])
def test_read_modify_write_loses_no_update(acc, connect, clause):
    """Three threads each add 1 fifteen times, reading the balance with SELECT ... FOR UPDATE
    and writing the value they computed: without the lock, two read the same balance and one
    increment is lost (PostgreSQL's lost update), at READ COMMITTED."""
    acc.execute("UPDATE acc SET bal = 0 WHERE id = 1")
    acc.commit()
    errors = []

    def worker():
        conn = connect(isolation_level="READ COMMITTED")
        try:
            for _ in range(15):
                (bal,) = conn.execute(f"SELECT bal FROM acc WHERE id = 1 {clause}").fetchone()
                conn.execute("UPDATE acc SET bal = ? WHERE id = 1", (bal + 1,))
                conn.commit()
        except Exception as e:  # pragma: no cover - reported below
            errors.append(e)

    threads = [threading.Thread(target=worker) for _ in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert acc.execute("SELECT bal FROM acc WHERE id = 1").fetchall() == [(45,)]


def test_read_committed_waits_then_reads_the_newest_version(acc, connect):
    writer = connect(isolation_level="READ COMMITTED")
    writer.execute("UPDATE acc SET bal = 150 WHERE id = 1")
    got = []
    locker = threading.Thread(target=lambda: got.append(
        acc.execute("SELECT id, bal FROM acc WHERE bal >= 100 FOR UPDATE").fetchall()))
    locker.start()
    locker.join(0.3)
    assert locker.is_alive(), "the locker waits for the running writer"
    writer.commit()
    locker.join(5)
    assert got == [[(1, 150)]]
    acc.commit()


def test_repeatable_read_fails_on_a_row_changed_since_its_snapshot(acc, connect):
    rr = connect(isolation_level="REPEATABLE READ")
    assert rr.execute("SELECT bal FROM acc WHERE id = 3").fetchall() == [(7,)]  # the snapshot
    acc.execute("UPDATE acc SET bal = 8 WHERE id = 3")
    acc.commit()
    with pytest.raises(txlake.SerializationFailure):
        rr.execute("SELECT bal FROM acc WHERE id = 3 FOR UPDATE")
    rr.rollback()
    assert rr.execute("SELECT bal FROM acc WHERE id = 3 FOR UPDATE").fetchall() == [(8,)]
    rr.commit()


def test_nowait_fails_at_once(acc, connect):
    other = connect(isolation_level="READ COMMITTED")
    acc.execute("SELECT * FROM acc WHERE id = 1 FOR UPDATE")
    other.execute("SET lock_timeout = '10s'")
    with pytest.raises(txlake.LockNotAvailable, match='could not obtain lock on row in relation "acc"') as e:
        other.execute("SELECT * FROM acc WHERE id = 1 FOR UPDATE NOWAIT")
    assert e.value.sqlstate == "55P03"
    other.rollback()
    assert other.execute("SELECT bal FROM acc a WHERE a.id = 2 FOR UPDATE OF a NOWAIT").fetchall() == [(5,)]
    other.commit()
    acc.commit()


@pytest.mark.parametrize("sql, error", [
    ("SELECT count(*) FROM acc FOR UPDATE", txlake.NotSupportedError),
    ("SELECT DISTINCT bal FROM acc FOR SHARE", txlake.NotSupportedError),
    ("SELECT id, sum(bal) FROM acc GROUP BY id FOR UPDATE", txlake.NotSupportedError),
    ("SELECT * FROM acc a JOIN acc b ON a.id = b.id FOR UPDATE", txlake.NotSupportedError),
    ("SELECT * FROM (SELECT * FROM acc FOR UPDATE) s", txlake.NotSupportedError),
    ("SELECT * FROM acc FOR UPDATE OF nope", txlake.UndefinedTable),
])
def test_what_it_cannot_lock_is_refused_not_ignored(acc, sql, error):
    with pytest.raises(error):
        acc.execute(sql)
    acc.rollback()


def test_a_read_only_transaction_cannot_lock(acc):
    acc.commit()
    acc.execute("BEGIN READ ONLY")
    with pytest.raises(txlake.ReadOnlyTransaction):
        acc.execute("SELECT * FROM acc FOR UPDATE")
    acc.rollback()
