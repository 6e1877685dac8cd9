"""Two-phase commit and labels through SQL: PREPARE TRANSACTION in one process, COMMIT /
ROLLBACK PREPARED from another (after SIGKILL), the seed's state table, lost replies,
timeouts, and the transactions view."""

from __future__ import annotations

import glob
import os
import signal
import subprocess
import sys
import time

import pytest

import txlake
from tests.conftest import child_env, run_python

PREPARE_AND_HANG = r"""
import sys, time, txlake
c = txlake.connect(sys.argv[1], autocommit=True, publish="off")
c.execute("BEGIN")
c.execute("INSERT INTO t VALUES (10, 'prepared')")
c.execute("INSERT INTO t SELECT i, 'bulk' FROM range(100, 1100) r(i)")  # big enough for a Parquet file
c.execute("UPDATE t SET s = 'changed' WHERE id = 1")
c.execute("PREPARE TRANSACTION 'gid-1'")
print("prepared", flush=True)
time.sleep(600)
"""


def data_files(warehouse: str) -> set[str]:
    return set(glob.glob(os.path.join(warehouse, "default.db", "t", "bucket-0", "data-*")))


@pytest.fixture
def table(connect):
    conn = connect(autocommit=True)
    conn.execute("CREATE TABLE t (id INT PRIMARY KEY, s VARCHAR)")
    conn.execute("INSERT INTO t VALUES (1, 'one'), (2, 'two')")
    return conn


def prepare_in_killed_process(warehouse: str) -> None:
    child = subprocess.Popen([sys.executable, "-c", PREPARE_AND_HANG, warehouse], env=child_env(),
                             stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout.readline().strip() == "prepared"
    finally:
        child.send_signal(signal.SIGKILL)
        child.wait()


@pytest.mark.parametrize("finish", ["COMMIT", "ROLLBACK"])
def test_prepare_kill_then_finish_from_another_process(table, warehouse, finish):
    before = data_files(warehouse)
    prepare_in_killed_process(warehouse)
    assert table.execute("SELECT * FROM t ORDER BY id").fetchall() == [(1, "one"), (2, "two")], \
        "a prepared transaction's writes are invisible"
    assert len(data_files(warehouse)) == len(before) + 1, "... but durable"
    code = f"""
import sys, txlake
c = txlake.connect(sys.argv[1], autocommit=True, publish="off")
c.execute("{finish} PREPARED 'gid-1'")
c.execute("{finish} PREPARED 'gid-1'")   # idempotent
print(c.execute("SELECT count(*) FROM t").fetchone()[0])
"""
    out = run_python(code, warehouse)
    assert out.returncode == 0, out.stderr
    if finish == "COMMIT":
        assert out.stdout.strip() == "1003"
        assert table.execute("SELECT * FROM t WHERE id < 100 ORDER BY id").fetchall() == [
            (1, "changed"), (2, "two"), (10, "prepared")]
    else:
        assert out.stdout.strip() == "2"
        assert table.execute("SELECT * FROM t ORDER BY id").fetchall() == [(1, "one"), (2, "two")]
        assert data_files(warehouse) == before, "a rolled-back prepared transaction's files are removed"


def test_state_table_double_and_opposite_outcomes(table):
    table.execute("BEGIN")
    table.execute("INSERT INTO t VALUES (3, 'three')")
    assert table.execute("PREPARE TRANSACTION 'a'").rowcount in (-1, 0)
    table.execute("COMMIT PREPARED 'a'")
    table.execute("COMMIT PREPARED 'a'")                      # double commit: fine
    with pytest.raises(txlake.Error) as e:
        table.execute("ROLLBACK PREPARED 'a'")                # abort after commit: refused
    assert e.value.sqlstate == "25000"
    table.execute("BEGIN")
    table.execute("DELETE FROM t WHERE id = 3")
    table.execute("PREPARE TRANSACTION 'b'")
    table.execute("ROLLBACK PREPARED 'b'")
    table.execute("ROLLBACK PREPARED 'b'")                    # double abort: fine
    with pytest.raises(txlake.Error) as e:
        table.execute("COMMIT PREPARED 'b'")                  # commit after abort: refused
    assert e.value.sqlstate == "25000"
    with pytest.raises(txlake.Error) as e:
        table.execute("COMMIT PREPARED 'never'")
    assert e.value.sqlstate == "42704"
    table.execute("BEGIN")
    table.execute("INSERT INTO t VALUES (4, 'four')")
    with pytest.raises(txlake.DuplicateObject):
        table.execute("PREPARE TRANSACTION 'a'")              # identifier in use
    assert table.execute("SELECT id FROM t ORDER BY id").fetchall() == [(1,), (2,), (3,)]
    table.execute("BEGIN")
    with pytest.raises(txlake.Error) as e:
        table.execute("COMMIT PREPARED 'a'")
    assert e.value.sqlstate == "25001"
    table.execute("ROLLBACK")


def test_prepared_rows_are_protected_until_finished(table, connect):
    table.execute("BEGIN")
    table.execute("UPDATE t SET s = 'mine' WHERE id = 1")
    table.execute("PREPARE TRANSACTION 'holder'")
    other = connect(autocommit=True)
    with pytest.raises(txlake.SerializationFailure, match="prepared transaction \"holder\""):
        other.execute("UPDATE t SET s = 'theirs' WHERE id = 1")
    with pytest.raises(txlake.SerializationFailure):
        other.execute("DROP TABLE t")
    other.execute("UPDATE t SET s = 'free' WHERE id = 2")    # other rows are not held
    other.execute("COMMIT PREPARED 'holder'")                # the prepared one can always commit
    assert table.execute("SELECT * FROM t ORDER BY id").fetchall() == [(1, "mine"), (2, "free")]
    other.execute("UPDATE t SET s = 'theirs' WHERE id = 1")  # released
    assert table.execute("SELECT s FROM t WHERE id = 1").fetchone() == ("theirs",)


@pytest.mark.parametrize("rows", ["one row (inline)", "a Parquet file"])
@pytest.mark.parametrize("theirs", [
    "INSERT INTO t VALUES ({key}, 'theirs')", "INSERT INTO t VALUES ({key}, 'theirs') ON CONFLICT DO NOTHING",
    "PREPARE"])
def test_keys_a_prepared_transaction_inserted_are_held(table, connect, rows, theirs):
    """PostgreSQL makes another inserter of the key wait for the prepared transaction. The key
    was not held at all: the other INSERT committed, and COMMIT PREPARED then failed with
    23505 and rolled the prepared transaction back - its promise broken."""
    key = 10 if rows == "one row (inline)" else 500
    table.execute("BEGIN")
    table.execute("INSERT INTO t VALUES (10, 'prepared')")
    if rows == "a Parquet file":
        table.execute("INSERT INTO t SELECT i, 'bulk' FROM range(100, 1100) r(i)")
    table.execute("PREPARE TRANSACTION 'inserter'")
    other = connect(autocommit=True)
    with pytest.raises(txlake.SerializationFailure, match='prepared transaction "inserter"'):
        if theirs == "PREPARE":
            other.execute("BEGIN")
            other.execute(f"INSERT INTO t VALUES ({key}, 'theirs')")
            other.execute("PREPARE TRANSACTION 'second'")
        else:
            other.execute(theirs.format(key=key))
    other.execute("INSERT INTO t VALUES (3, 'three')")      # other keys are free
    other.execute("COMMIT PREPARED 'inserter'")
    assert table.execute(f"SELECT s FROM t WHERE id = {key}").fetchone() == ("prepared" if key == 10 else "bulk",)
    assert table.execute("SELECT count(*) FROM t").fetchone() == (4 if key == 10 else 1004,)


def test_unique_values_a_prepared_transaction_inserted_are_held(connect):
    """As its primary keys: another transaction's row with one of them would have made COMMIT
    PREPARED fail with 23505."""
    conn = connect(autocommit=True)
    conn.execute("CREATE TABLE u (id INT, code TEXT UNIQUE)")
    conn.execute("BEGIN")
    conn.execute("INSERT INTO u VALUES (1, 'a'), (2, NULL)")
    conn.execute("PREPARE TRANSACTION 'coder'")
    other = connect(autocommit=True)
    with pytest.raises(txlake.SerializationFailure, match='prepared transaction "coder"'):
        other.execute("INSERT INTO u VALUES (3, 'a')")
    other.execute("INSERT INTO u VALUES (4, 'b'), (5, NULL)")  # other values (and NULLs) are free
    other.execute("COMMIT PREPARED 'coder'")
    assert conn.execute("SELECT id FROM u ORDER BY id").fetchall() == [(1,), (2,), (4,), (5,)]


def test_a_table_a_prepared_transaction_created_is_held(table, connect):
    """Another CREATE TABLE of the name committed, and COMMIT PREPARED failed with 42P07."""
    table.execute("BEGIN")
    table.execute("CREATE TABLE fresh (a INT)")
    table.execute("INSERT INTO fresh VALUES (1)")
    table.execute("PREPARE TRANSACTION 'creator'")
    other = connect(autocommit=True)
    with pytest.raises(txlake.SerializationFailure, match='prepared transaction "creator"'):
        other.execute("CREATE TABLE fresh (b TEXT)")
    other.execute("CREATE TABLE other.fresh (b TEXT)")      # the name in another database is free
    other.execute("COMMIT PREPARED 'creator'")
    assert table.execute("SELECT * FROM fresh").fetchall() == [(1,)]


@pytest.mark.parametrize("work", ["", "SELECT * FROM t", "UPDATE t SET s = 'none' WHERE id = 99"])
def test_a_prepared_transaction_that_wrote_nothing_commits(table, connect, work):
    """As a read-only branch of a distributed transaction does in PostgreSQL. COMMIT PREPARED
    failed with AttributeError (XX000), and the transaction stayed PRECOMMITTED until its
    timeout rolled it back."""
    table.execute("BEGIN")
    if work:
        table.execute(work)
    table.execute("PREPARE TRANSACTION 'reader'")
    other = connect(autocommit=True)
    assert other.execute("COMMIT PREPARED 'reader'").statusmessage == "COMMIT PREPARED"
    other.execute("COMMIT PREPARED 'reader'")                # finishing twice the same way succeeds
    with pytest.raises(txlake.Error) as e:
        other.execute("ROLLBACK PREPARED 'reader'")
    assert e.value.sqlstate == "25000"
    assert other.execute("SELECT state FROM txlake_transactions() WHERE gid = 'reader'").fetchall() == [
        ("COMMITTED",)]
    assert other.execute("SELECT * FROM t ORDER BY id").fetchall() == [(1, "one"), (2, "two")]


OTHER_PROCESS_UPDATES = r"""
import sys, txlake
c = txlake.connect(sys.argv[1], autocommit=True, publish="off")
c.execute(sys.argv[2])
print("done", flush=True)
"""


@pytest.mark.parametrize("sql", ["SELECT * FROM t WHERE id = 1 FOR UPDATE", "SELECT * FROM t WHERE s = 'one' FOR SHARE",
                                 "UPDATE t SET s = s || '+' WHERE id = 1", "UPDATE t SET s = 'theirs' WHERE id = 1",
                                 "DELETE FROM t WHERE s = 'one'"])
@pytest.mark.parametrize("level", ["READ COMMITTED", "REPEATABLE READ"])
def test_a_row_a_prepared_transaction_holds_cannot_be_locked(table, connect, sql, level):
    """Its writer gets 40001 at the statement, as its commit would (NOWAIT: 55P03) - where
    PostgreSQL makes it wait. SELECT ... FOR UPDATE took the row at once and returned its old
    version, and the UPDATE computed from it then failed at COMMIT."""
    table.execute("BEGIN")
    table.execute("UPDATE t SET s = 'mine' WHERE id = 1")
    table.execute("PREPARE TRANSACTION 'holder'")
    other = connect(isolation_level=level)
    with pytest.raises(txlake.SerializationFailure, match='prepared transaction "holder"'):
        other.execute(sql)
    other.rollback()
    with pytest.raises(txlake.LockNotAvailable, match='could not obtain lock on row in relation "t"'):
        other.execute("SELECT * FROM t WHERE id = 1 FOR UPDATE NOWAIT")
    other.rollback()
    assert other.execute("SELECT * FROM t WHERE id = 2 FOR UPDATE").fetchall() == [(2, "two")]  # not held
    other.rollback()
    table.execute("ROLLBACK PREPARED 'holder'")
    other.execute(sql)                                        # released with it
    other.commit()


def test_skip_locked_passes_over_a_row_a_prepared_transaction_holds(table, connect):
    """As over a row another transaction has locked: the prepared transaction keeps its rows."""
    table.execute("BEGIN")
    table.execute("UPDATE t SET s = 'mine' WHERE id = 1")
    table.execute("PREPARE TRANSACTION 'holder'")
    other = connect(isolation_level="READ COMMITTED")
    assert other.execute("SELECT * FROM t ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED").fetchall() == [(2, "two")]
    other.rollback()
    table.execute("ROLLBACK PREPARED 'holder'")
    assert other.execute("SELECT * FROM t ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED").fetchall() == [(1, "one")]
    other.rollback()


def test_prepare_is_refused_when_another_process_changed_its_rows_first(table, warehouse):
    # across processes there are no row locks: the other process's update commits first, and
    # PREPARE - which promises that COMMIT PREPARED will succeed - must see it
    table.execute("BEGIN")
    table.execute("UPDATE t SET s = 'mine' WHERE id = 1")
    other = run_python(OTHER_PROCESS_UPDATES, warehouse, "UPDATE t SET s = 'theirs' WHERE id = 1")
    assert other.stdout.strip() == "done", other.stderr
    with pytest.raises(txlake.SerializationFailure):
        table.execute("PREPARE TRANSACTION 'late'")
    assert table.execute("SELECT gid FROM txlake_transactions() WHERE gid = 'late'").fetchall() == []
    assert table.execute("SELECT s FROM t WHERE id = 1").fetchone() == ("theirs",)
    table.execute("UPDATE t SET s = 'after' WHERE id = 1")  # nothing is left holding the row


def test_a_claim_prepared_by_another_process_holds_at_once(table, warehouse):
    table.execute("UPDATE t SET s = 'seen' WHERE id = 2")  # this process has read the (empty) records
    prepared = run_python(PREPARE_AND_EXIT, warehouse)
    assert prepared.stdout.strip() == "prepared", prepared.stderr
    with pytest.raises(txlake.SerializationFailure, match='prepared transaction "elsewhere"'):
        table.execute("UPDATE t SET s = 'theirs' WHERE id = 1")
    table.execute("ROLLBACK PREPARED 'elsewhere'")
    table.execute("UPDATE t SET s = 'theirs' WHERE id = 1")  # the claim ended with it
    assert table.execute("SELECT s FROM t ORDER BY id").fetchall() == [("theirs",), ("seen",)]


PREPARE_AND_EXIT = r"""
import sys, txlake
c = txlake.connect(sys.argv[1], publish="off")
c.execute("UPDATE t SET s = 'held' WHERE id = 1")
c.execute("PREPARE TRANSACTION 'elsewhere'")
print("prepared", flush=True)
"""


def test_forgotten_prepared_transaction_times_out_and_its_files_go(warehouse):
    conn = txlake.connect(warehouse, autocommit=True, publish="off", prepared_timeout=0.2, gc_interval=0.05)
    try:
        conn.execute("CREATE TABLE t (id INT)")
        before = data_files(warehouse)
        conn.execute("BEGIN")
        conn.execute("INSERT INTO t SELECT i FROM range(1000) r(i)")
        conn.execute("PREPARE TRANSACTION 'forgotten'")
        assert len(data_files(warehouse)) == len(before) + 1
        deadline = time.monotonic() + 20
        state = None
        while time.monotonic() < deadline:
            state = conn.execute("SELECT state, abort_reason FROM txlake_transactions() WHERE gid = 'forgotten'").fetchone()
            if state[0] == "ABORTED":
                break
            time.sleep(0.05)
        assert state == ("ABORTED", "timeout")
        assert data_files(warehouse) == before
        with pytest.raises(txlake.Error):
            conn.execute("COMMIT PREPARED 'forgotten'")
        assert conn.execute("SELECT count(*) FROM t").fetchone() == (0,)
    finally:
        conn.close()


LABELLED_CHILD = r"""
import sys, txlake
c = txlake.connect(sys.argv[1], autocommit=True, publish="off")
c.execute("BEGIN WITH LABEL 'transfer-42'")
c.execute("INSERT INTO events VALUES (42)")
c.execute("COMMIT")
print("acknowledged", flush=True)
"""


def test_retrying_a_labelled_commit_after_a_lost_reply_never_duplicates(table, warehouse):
    table.execute("CREATE TABLE events (id INT)")  # no key: only the label prevents a duplicate
    crashed = subprocess.run([sys.executable, "-c", LABELLED_CHILD, warehouse], capture_output=True, text=True,
                             env=dict(child_env(), TXLAKE_CRASH_AT="after-log"), timeout=120)
    assert crashed.returncode == 137 and "acknowledged" not in crashed.stdout  # the reply was lost
    retry = subprocess.run([sys.executable, "-c", LABELLED_CHILD, warehouse], capture_output=True, text=True,
                           env=child_env(), timeout=120)
    assert retry.returncode != 0 and "acknowledged" not in retry.stdout
    assert 'DuplicateObject: label "transfer-42" is already used by commit' in retry.stderr
    assert table.execute("SELECT count(*) FROM events").fetchone() == (1,)
    # the client asks for the outcome of its label
    assert table.execute("SELECT state FROM txlake_transactions() WHERE label = 'transfer-42'").fetchone()[0] \
        in ("COMMITTED", "VISIBLE")


def test_transactions_view_lists_running_prepared_and_finished(table, connect):
    other = connect()
    other.execute("INSERT INTO t VALUES (5, 'open')")         # running, with an xid
    table.execute("BEGIN WITH LABEL 'p-label'")
    table.execute("INSERT INTO t VALUES (6, 'six')")
    table.execute("PREPARE TRANSACTION 'p'")
    rows = table.execute("SELECT state, gid, label, xid IS NOT NULL, prepared_at IS NOT NULL "
                         "FROM txlake_transactions()").fetchall()
    assert ("PRECOMMITTED", "p", "p-label", True, True) in rows
    assert sum(1 for r in rows if r[0] == "PREPARE" and r[3]) == 1       # `other`, which has written
    assert any(r[0] in ("COMMITTED", "VISIBLE") and r[1] is None for r in rows)
    table.execute("COMMIT PREPARED 'p'")
    state = table.execute("SELECT state, snapshot_id IS NOT NULL, finished_at IS NOT NULL "
                          "FROM txlake_transactions() WHERE gid = 'p'").fetchone()
    assert state == ("COMMITTED", True, True)  # publishing is off: committed, not yet visible
    other.rollback()


def test_a_label_a_prepared_transaction_carries_is_held_until_it_finishes(table, connect):
    """Another transaction cannot take the label of a prepared transaction not finished yet -
    at BEGIN, at COMMIT or at PREPARE (begun before that PREPARE): 42710. (A commit that took
    it made the COMMIT PREPARED report success and drop the prepared rows: a label in the log
    is how a prepared transaction is known to have committed.)"""
    early, second = connect(autocommit=True), connect(autocommit=True)
    for conn, key in ((early, 4), (second, 5)):
        conn.execute("BEGIN WITH LABEL 'job'")
        conn.execute("INSERT INTO t VALUES (?, 'early')", (key,))
    p = connect(autocommit=True)
    p.execute("BEGIN WITH LABEL 'job'")
    p.execute("INSERT INTO t VALUES (3, 'prepared')")
    p.execute("PREPARE TRANSACTION 'g-job'")
    with pytest.raises(txlake.DuplicateObject, match='held by prepared transaction "g-job"'):
        early.execute("COMMIT")
    with pytest.raises(txlake.DuplicateObject, match='held by prepared transaction "g-job"'):
        second.execute("PREPARE TRANSACTION 'g-second'")
    with pytest.raises(txlake.DuplicateObject):
        connect(autocommit=True).execute("BEGIN WITH LABEL 'job'")
    table.execute("COMMIT PREPARED 'g-job'")
    assert table.execute("SELECT id FROM t ORDER BY id").fetchall() == [(1,), (2,), (3,)]
    with pytest.raises(txlake.DuplicateObject, match="already used by commit"):  # and now the log has it
        connect(autocommit=True).execute("BEGIN WITH LABEL 'job'")



IMPATIENT_COMMIT_PREPARED = r"""
import sys, time, txlake
c = txlake.connect(sys.argv[1], autocommit=True, publish="off", commit_timeout=1)
print("ready", flush=True)
sys.stdin.readline()  # (the log's lock is taken now)
try:
    c.execute("COMMIT PREPARED 'slow'")
except txlake.Error as e:
    print(e.sqlstate, flush=True)
time.sleep(1)  # (past the lock's release: an abort entry written now would land)
"""


def test_a_commit_prepared_that_times_out_leaves_the_transaction_prepared(table, warehouse):
    """COMMIT PREPARED that could not append its entry in time (another process held the log's
    lock past commit_timeout: 58030) aborted the prepared transaction - whose rows were then
    lost for good, once the abort entry got the lock. A commit that failed without a conflict
    leaves it PRECOMMITTED, to be committed again."""
    import fcntl
    table.execute("BEGIN")
    table.execute("INSERT INTO t VALUES (10, 'prepared')")
    table.execute("PREPARE TRANSACTION 'slow'")
    impatient = subprocess.Popen([sys.executable, "-c", IMPATIENT_COMMIT_PREPARED, warehouse], env=child_env(),
                                 stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert impatient.stdout.readline() == "ready\n"
    lock = os.open(os.path.join(warehouse, "_txlog", "LOCK"), os.O_RDWR)
    try:
        fcntl.flock(lock, fcntl.LOCK_EX)  # (another open file: excludes this process's appender too)
        impatient.stdin.write("go\n")
        impatient.stdin.flush()
        time.sleep(1.5)
    finally:
        os.close(lock)
    out, _ = impatient.communicate(timeout=60)
    assert out.strip() == "58030"
    state = table.execute("SELECT state FROM txlake_transactions() WHERE gid = 'slow'").fetchone()
    assert state == ("PRECOMMITTED",)
    table.execute("COMMIT PREPARED 'slow'")
    assert table.execute("SELECT s FROM t WHERE id = 10").fetchall() == [("prepared",)]


PREPARE_AND_DIE_BEFORE_COUNTING = r"""
import os, sys, txlake
from txlake.storage import fs
put_if_absent = fs.LocalFileSystem.put_if_absent
def put_then_die(self, path, data):  # the process dies as kill -9 would, the record just linked
    put_if_absent(self, path, data)
    if "_prepared" in path:
        os._exit(137)
fs.LocalFileSystem.put_if_absent = put_then_die
c = txlake.connect(sys.argv[1], autocommit=True, publish="off")
c.execute("BEGIN")
c.execute("UPDATE t SET s = 'prepared' WHERE id = 1")
c.execute("PREPARE TRANSACTION 'g-died'")
"""


def test_a_prepare_killed_right_after_its_record_still_holds_its_rows(table, warehouse):
    """PREPARE linked its record and then counted the change to _prepared/ (which tells other
    processes to read the records again): killed in between, the record was durable - a
    prepared transaction - but processes already running never read it (txlake_transactions()
    did not list it), committed changes to its rows, and COMMIT PREPARED then failed (40001)
    and aborted it. The change is counted before the record is linked."""
    table.execute("UPDATE t SET s = 'first' WHERE id = 2")  # (this process has read the records)
    assert run_python(PREPARE_AND_DIE_BEFORE_COUNTING, warehouse).returncode == 137
    assert table.execute("SELECT state FROM txlake_transactions() WHERE gid = 'g-died'").fetchone() == \
        ("PRECOMMITTED",)
    with pytest.raises(txlake.SerializationFailure):
        table.execute("UPDATE t SET s = 'meanwhile' WHERE id = 1")
    table.execute("COMMIT PREPARED 'g-died'")
    assert table.execute("SELECT s FROM t WHERE id = 1").fetchone() == ("prepared",)
