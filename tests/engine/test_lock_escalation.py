"""A statement writing very many rows locks its table instead of each row (bounded lock memory)."""

import pytest

import txlake
from txlake import errors
from txlake.engine.mvcc.locks import TABLE, LockTable


class Txn:
    pass


def test_table_lock_conflicts_with_row_locks_of_others_only():
    locks, a, b, c = LockTable(), Txn(), Txn(), Txn()
    locks.acquire(a, ("t", "key", 1))
    locks.acquire(a, ("t", TABLE))                      # its own row locks do not block it
    locks.acquire(a, ("t", "key", 2))                   # covered by the table lock: not stored
    assert len(locks) == 2
    with pytest.raises(errors.LockNotAvailable):
        locks.acquire(b, ("t", "key", 3), timeout=0.05)
    locks.acquire(b, ("u", "key", 3))                   # another table
    with pytest.raises(errors.LockNotAvailable):
        locks.acquire(c, ("u", TABLE), timeout=0.05)    # b holds a row of u
    locks.release_all(a)
    locks.acquire(b, ("t", "key", 3))
    assert len(locks) == 2


def test_bulk_insert_locks_the_table_until_it_ends(connect):
    bulk = connect()
    other = connect(autocommit=True)
    other.execute("CREATE TABLE t (id BIGINT PRIMARY KEY)")
    other.execute("CREATE TABLE u (id BIGINT PRIMARY KEY)")
    bulk.execute("INSERT INTO t SELECT range FROM range(50000)")
    assert len(bulk.session.db.locks) == 1, "one table lock, not 50,000 key locks"
    other.execute("SET lock_timeout = '50ms'")
    with pytest.raises(txlake.OperationalError) as e:
        other.execute("INSERT INTO t VALUES (-1)")
    assert e.value.sqlstate == "55P03"
    other.execute("INSERT INTO u VALUES (1)")
    bulk.commit()
    other.execute("INSERT INTO t VALUES (-1)")
    assert other.execute("SELECT count(*) FROM t").fetchone() == (50001,)
