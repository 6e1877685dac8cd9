"""PostgreSQL's advisory locks (pg_advisory_lock and its kin), as migration tools take them:
session- and transaction-level, SHARE and EXCLUSIVE, waits that end with the lock, a timeout,
a cancel or a deadlock - between sessions of one process and between processes."""

import os
import subprocess
import sys
import time

import pytest

import txlake
from tests.conftest import child_env, one, started


def advisory_waiting(conn, sql):
    """``sql`` started in a thread, returned once it waits for an advisory lock (for 10 s at
    most: a test that fails does not hang)."""
    conn.execute("SET lock_timeout = '10s'")
    thread, outcome = started(conn, sql)
    session, deadline = conn.session, time.monotonic() + 30
    while session.db.advisory.waiting(session.executor.advisory.session) is None:
        assert thread.is_alive() and time.monotonic() < deadline, f"it did not wait: {outcome}"
        time.sleep(0.002)
    return thread, outcome


@pytest.fixture
def two(connect):
    return connect(autocommit=True), connect(autocommit=True)


def test_a_session_lock_excludes_others_counts_its_holds_and_outlives_transactions(two):
    a, b = two
    cursor = a.execute("SELECT pg_advisory_lock(1)")
    assert cursor.fetchall() == [(None,)] and cursor.description[0][0] == "pg_advisory_lock"
    assert one(b, "SELECT pg_try_advisory_lock(1)") == (False,)
    assert one(a, "SELECT pg_try_advisory_lock(1)") == (True,)  # (a session never waits for itself)
    a.execute("BEGIN")
    a.execute("SELECT pg_advisory_lock(1)")
    a.execute("ROLLBACK")  # (a session-level lock is not the transaction's: three holds now)
    assert one(a, "SELECT pg_advisory_unlock(1), pg_advisory_unlock(1)") == (True, True)
    assert one(b, "SELECT pg_try_advisory_lock(1)") == (False,)
    assert one(a, "SELECT pg_advisory_unlock(1)") == (True,)
    assert one(b, "SELECT pg_try_advisory_lock(1)") == (True,)


def test_unlocking_a_lock_not_held_is_false_with_postgresqls_warning(two):
    a, b = two
    b.execute("SELECT pg_advisory_lock(7)")
    assert one(a, "SELECT pg_advisory_unlock(7)") == (False,)
    assert a.notices[-1] == "WARNING:  you don't own a lock of type ExclusiveLock"
    assert one(a, "SELECT pg_advisory_unlock_shared(8)") == (False,)
    assert a.notices[-1] == "WARNING:  you don't own a lock of type ShareLock"
    assert one(b, "SELECT pg_advisory_unlock_shared(7)") == (False,)  # (held EXCLUSIVE, not SHARE)
    assert one(a, "SELECT pg_try_advisory_lock(7)") == (False,)


def test_share_and_exclusive_and_the_two_key_spaces(two):
    a, b = two
    assert one(a, "SELECT pg_try_advisory_lock_shared(5), pg_try_advisory_lock(0, 5)") == (True, True)
    assert one(b, "SELECT pg_try_advisory_lock_shared(5), pg_try_advisory_lock(5)") == (True, False)
    assert one(b, "SELECT pg_try_advisory_lock(0, 5), pg_try_advisory_lock(5, 0)") == (False, True)
    a.execute("SELECT pg_advisory_unlock_all()")
    assert one(b, "SELECT pg_try_advisory_lock(5)") == (True,)  # (its own share is no conflict)
    assert one(b, "SELECT pg_try_advisory_lock(0, 5)") == (True,)


def test_a_waiter_gets_the_lock_when_it_is_freed(two):
    a, b = two
    a.execute("SELECT pg_advisory_lock(?)", (42,))
    thread, outcome = advisory_waiting(b, "SELECT pg_advisory_lock(42)")
    time.sleep(0.05)
    assert outcome == []
    a.execute("SELECT pg_advisory_unlock(42)")
    thread.join(10)
    assert outcome == ["ok"]
    assert one(a, "SELECT pg_try_advisory_lock(42)") == (False,)


def test_waits_end_with_lock_timeout_statement_timeout_and_cancel(two):
    a, b = two
    a.execute("SELECT pg_advisory_lock(9)")
    b.execute("SET lock_timeout = '50ms'")
    with pytest.raises(txlake.LockNotAvailable, match="lock timeout"):
        b.execute("SELECT pg_advisory_lock(9)")
    b.execute("SET lock_timeout = 0")
    b.execute("SET statement_timeout = '50ms'")
    with pytest.raises(txlake.QueryCanceled, match="statement timeout"):
        b.execute("SELECT pg_advisory_lock_shared(9)")
    b.execute("SET statement_timeout = 0")
    thread, outcome = advisory_waiting(b, "SELECT pg_advisory_lock(9)")
    b.cancel()
    thread.join(10)
    assert outcome == ["57014"]
    assert one(a, "SELECT pg_advisory_unlock(9)") == (True,)
    assert one(b, "SELECT pg_try_advisory_lock(9)") == (True,)  # (nothing left queued)


def test_a_deadlock_between_advisory_locks_is_40P01_for_the_one_closing_it(two):
    a, b = two
    a.execute("SELECT pg_advisory_lock(10)")
    b.execute("SELECT pg_advisory_lock(11)")
    thread, outcome = advisory_waiting(a, "SELECT pg_advisory_lock(11)")
    b.execute("SET lock_timeout = '3s'")  # (not found, it would wait for ever)
    with pytest.raises(txlake.DeadlockDetected):
        b.execute("SELECT pg_advisory_lock(10)")
    assert outcome == []  # (b's session lock on 11 stays: a waits on, as in PostgreSQL)
    b.execute("SELECT pg_advisory_unlock(11)")
    thread.join(10)
    assert outcome == ["ok"]


def test_exclusive_waiters_are_not_starved_by_new_shared_requests(connect):
    a, b, c = (connect(autocommit=True) for _ in range(3))
    a.execute("SELECT pg_advisory_lock_shared(3)")
    thread, outcome = advisory_waiting(b, "SELECT pg_advisory_lock(3)")
    assert one(c, "SELECT pg_try_advisory_lock_shared(3)") == (False,)  # (queues behind b)
    a.execute("SELECT pg_advisory_unlock_shared(3)")
    thread.join(10)
    assert outcome == ["ok"]


def test_transaction_locks_end_with_the_transaction_savepoint_or_error(two):
    a, b = two
    a.execute("BEGIN")
    assert one(a, "SELECT pg_try_advisory_xact_lock(20)") == (True,)
    a.execute("SELECT pg_advisory_xact_lock_shared(21)")
    assert one(b, "SELECT pg_try_advisory_lock(20), pg_try_advisory_lock(21)") == (False, False)
    assert one(a, "SELECT pg_advisory_unlock(20)") == (False,)  # (a transaction's lock is no session's)
    a.execute("COMMIT")
    assert one(b, "SELECT pg_try_advisory_lock(20), pg_try_advisory_lock(21)") == (True, True)
    b.execute("SELECT pg_advisory_unlock_all()")

    a.execute("BEGIN")
    a.execute("SELECT pg_advisory_xact_lock(22)")
    a.execute("SAVEPOINT s")
    a.execute("SELECT pg_advisory_xact_lock(23)")
    a.execute("ROLLBACK TO SAVEPOINT s")
    assert one(b, "SELECT pg_try_advisory_xact_lock(22), pg_try_advisory_xact_lock(23)") == (False, True)
    with pytest.raises(txlake.DataError):
        a.execute("SELECT 1 / 0")
    assert one(b, "SELECT pg_try_advisory_xact_lock(22)") == (False,)  # (the savepoint's block failed)
    a.execute("ROLLBACK")
    assert one(b, "SELECT pg_try_advisory_xact_lock(22)") == (True,)

    # autocommit: the statement's transaction ends with it
    a.execute("SELECT pg_advisory_xact_lock(24)")
    assert one(b, "SELECT pg_try_advisory_lock(24)") == (True,)


def test_closing_a_session_frees_its_locks(two, connect):
    a, b = two
    a.execute("SELECT pg_advisory_lock(30), pg_advisory_lock_shared(31)")
    thread, outcome = advisory_waiting(b, "SELECT pg_advisory_lock(30)")
    a.close()
    thread.join(10)
    assert outcome == ["ok"] and one(b, "SELECT pg_try_advisory_lock(31)") == (True,)


def test_arguments_as_postgresql_takes_them(two):
    a, _ = two
    assert one(a, "SELECT pg_try_advisory_lock(NULL), pg_advisory_unlock(1, NULL)") == (None, None)
    with pytest.raises(txlake.NumericValueOutOfRange):
        a.execute("SELECT pg_try_advisory_lock(3000000000, 1)")
    with pytest.raises(txlake.ProgrammingError) as e:
        a.execute("SELECT pg_advisory_lock(1, 2, 3)")
    assert e.value.sqlstate == "42883"
    assert one(a, "SELECT pg_try_advisory_lock(9223372036854775807)") == (True,)
    # a call per row, as PostgreSQL makes it
    a.execute("CREATE TABLE jobs (id INT PRIMARY KEY)")
    a.execute("INSERT INTO jobs VALUES (1), (2), (3)")
    assert a.execute("SELECT id, pg_try_advisory_lock(id) FROM jobs ORDER BY id").fetchall() \
        == [(1, True), (2, True), (3, True)]


CHILD = """
import sys, txlake
conn = txlake.connect(sys.argv[1], autocommit=True, publish="off")
print(conn.execute("SELECT pg_try_advisory_lock(42), pg_try_advisory_lock_shared(43)").fetchall(), flush=True)
conn.execute("SET lock_timeout = '60s'")
conn.execute("SELECT pg_advisory_lock(42)")
print("got it", flush=True)
"""


def test_another_process_waits_for_the_lock_and_gets_it(warehouse, connect):
    a = connect(autocommit=True)
    a.execute("SELECT pg_advisory_lock(42), pg_advisory_lock_shared(43)")
    child = subprocess.Popen([sys.executable, "-c", CHILD, warehouse], stdout=subprocess.PIPE, text=True,
                             env=child_env())
    try:
        assert child.stdout.readline() == "[(False, True)]\n"
        time.sleep(0.5)
        assert child.poll() is None  # (waiting for 42)
        a.execute("SELECT pg_advisory_unlock(42)")
        assert child.stdout.readline() == "got it\n"
        assert child.wait(60) == 0
    finally:
        child.kill()
    assert one(a, "SELECT pg_try_advisory_lock(43)") == (True,)  # (the child's share went with it)


COLLIDING = (29685295, 32060020)  # (keys whose record locks share a byte of advisory.locks)

TRY_OTHER = """
import sys, txlake
conn = txlake.connect(sys.argv[1], autocommit=True, publish="off")
print(conn.execute(f"SELECT pg_try_advisory_lock({sys.argv[2]})").fetchall())
"""


def test_keys_sharing_a_record_lock_keep_it_while_either_is_held(warehouse, connect):
    """Unlocking one key sent LOCK_UN for the byte another held key also needed: another process
    then took that key too. The byte is held while any key hashed to it is."""
    a = connect(autocommit=True)
    first, second = COLLIDING
    a.execute(f"SELECT pg_advisory_lock({first}), pg_advisory_lock_shared({second})")
    a.execute(f"SELECT pg_advisory_unlock({first})")
    child = subprocess.run([sys.executable, "-c", TRY_OTHER, warehouse, str(second)], capture_output=True,
                           text=True, env=child_env(), timeout=120)
    assert child.stdout == "[(False,)]\n", child.stderr  # (the shared hold stays exclusive to this process's byte)
    a.execute(f"SELECT pg_advisory_unlock_shared({second})")
    child = subprocess.run([sys.executable, "-c", TRY_OTHER, warehouse, str(second)], capture_output=True,
                           text=True, env=child_env(), timeout=120)
    assert child.stdout == "[(True,)]\n", child.stderr


def test_the_lock_file_is_opened_once_per_process(warehouse, connect):
    """Each open of the warehouse opened advisory.locks again and never closed it."""
    for _ in range(5):
        conn = connect(autocommit=True)
        conn.execute("SELECT pg_advisory_lock(1)")
        conn.close()
    mine = os.path.realpath(os.path.join(warehouse, "_txlog", "advisory.locks"))
    opened = [fd for fd in os.listdir("/proc/self/fd") if os.path.realpath(f"/proc/self/fd/{fd}") == mine]
    assert len(opened) == 1


def test_prepare_transaction_with_a_transaction_lock_is_refused(two):
    """PostgreSQL hands such locks to the prepared transaction; here they would end with the
    session, so PREPARE is refused (0A000) and the transaction rolled back, its locks freed."""
    a, b = two
    a.execute("CREATE TABLE t (id INT PRIMARY KEY)")
    a.execute("BEGIN")
    a.execute("SELECT pg_advisory_xact_lock(40)")
    a.execute("INSERT INTO t VALUES (1)")
    with pytest.raises(txlake.NotSupportedError):
        a.execute("PREPARE TRANSACTION 'g1'")
    assert one(b, "SELECT pg_try_advisory_lock(40), (SELECT count(*) FROM t)") == (True, 0)


def test_every_function_the_parser_rewrites_is_answered():
    from txlake.engine import advisory
    from txlake.parser import semantics
    assert set(advisory.FUNCTIONS) == semantics.ADVISORY_CALLS
