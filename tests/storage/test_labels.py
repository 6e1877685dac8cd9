"""Labels make a commit exactly-once: at most one log entry carries a label, across
processes and reopens."""

import pytest

import txlake
from tests.conftest import run_python
from txlake.storage.warehouse import Warehouse


def test_a_committed_label_is_refused_again_and_names_its_commit(connect, warehouse):
    conn = connect(autocommit=True)
    conn.execute("CREATE TABLE t (id INT)")
    conn.execute("BEGIN WITH LABEL 'batch-1'")
    conn.execute("INSERT INTO t VALUES (1)")
    conn.execute("COMMIT")
    csn = Warehouse(warehouse).label_commit("batch-1").csn
    with pytest.raises(txlake.DuplicateObject, match=f'label "batch-1" is already used by commit {csn}') as e:
        conn.execute("BEGIN WITH LABEL 'batch-1'")   # refused before any work is done
    assert e.value.sqlstate == "42710"
    assert conn.execute("SELECT * FROM t").fetchall() == [(1,)]
    assert Warehouse(warehouse).label_commit("batch-2") is None


def test_two_open_transactions_with_one_label_commit_once(connect):
    setup = connect(autocommit=True)
    setup.execute("CREATE TABLE t (id INT)")
    first, second = connect(autocommit=True), connect(autocommit=True)
    for conn, value in ((first, 1), (second, 2)):
        conn.execute("BEGIN WITH LABEL 'same'")
        conn.execute(f"INSERT INTO t VALUES ({value})")
    first.execute("COMMIT")
    with pytest.raises(txlake.DuplicateObject, match='label "same" is already used by commit'):
        second.execute("COMMIT")
    assert setup.execute("SELECT * FROM t").fetchall() == [(1,)]


def test_a_rolled_back_label_may_be_used_again(connect):
    conn = connect(autocommit=True)
    conn.execute("CREATE TABLE t (id INT)")
    conn.execute("BEGIN WITH LABEL 'retry-me'")
    conn.execute("INSERT INTO t VALUES (1)")
    conn.execute("ROLLBACK")
    conn.execute("BEGIN WITH LABEL 'retry-me'")
    conn.execute("INSERT INTO t VALUES (2)")
    conn.execute("COMMIT")
    assert conn.execute("SELECT * FROM t").fetchall() == [(2,)]


def test_labels_hold_across_processes_and_reopen(warehouse):
    code = """
import sys, txlake
conn = txlake.connect(sys.argv[1], autocommit=True, publish="off")
conn.execute("CREATE TABLE IF NOT EXISTS t (id INT)")
try:
    conn.execute("BEGIN WITH LABEL 'nightly'")
    conn.execute("INSERT INTO t VALUES (1)")
    conn.execute("COMMIT")
    print("committed")
except txlake.DuplicateObject as e:
    print("refused", e.sqlstate)
"""
    outcomes = [run_python(code, warehouse).stdout.strip() for _ in range(3)]
    assert outcomes == ["committed", "refused 42710", "refused 42710"]
    conn = txlake.connect(warehouse, publish="off")
    assert conn.execute("SELECT count(*) FROM t").fetchone() == (1,)
    conn.close()


def test_dbapi_commit_label_and_asking_for_the_outcome(connect):
    conn = connect()
    conn.execute("CREATE TABLE t (id INT)")
    conn.commit()
    conn.execute("INSERT INTO t VALUES (1)")
    conn.commit(label="api-1")
    for i in range(5):  # later commits
        conn.execute(f"INSERT INTO t VALUES ({i + 10})")
        conn.commit()
    conn.execute("INSERT INTO t VALUES (2)")
    with pytest.raises(txlake.DuplicateObject):
        conn.commit(label="api-1")
    assert not conn.execute("SELECT count(*) FROM t WHERE id = 2").fetchone()[0]
    rows = conn.execute("SELECT state, label, snapshot_id FROM txlake_transactions('api-1')").fetchall()
    assert rows == [("COMMITTED", "api-1", 2)]
    assert conn.execute("SELECT * FROM txlake_transactions('never-used')").fetchall() == []
    conn.rollback()


def test_labels_expire_after_the_retention(warehouse):
    conn = txlake.connect(warehouse, autocommit=True, publish="off", label_retention=0.05)
    try:
        conn.execute("CREATE TABLE t (id INT)")
        conn.execute("BEGIN WITH LABEL 'daily'")
        conn.execute("INSERT INTO t VALUES (1)")
        conn.execute("COMMIT")
        import time
        time.sleep(0.1)
        conn.execute("BEGIN WITH LABEL 'daily'")   # the old use has expired
        conn.execute("INSERT INTO t VALUES (2)")
        conn.execute("COMMIT")
        assert conn.execute("SELECT count(*) FROM t").fetchone() == (2,)
    finally:
        conn.close()


def test_the_label_of_a_rolled_back_prepared_transaction_may_be_used_again(connect):
    """Its abort is logged under its label (so COMMIT PREPARED and the abort cannot both land),
    and that blocked a retry of the job: 42710 "already used by commit N" - the answer an
    exactly-once client takes for "done" - though nothing had committed."""
    c = connect(autocommit=True)
    c.execute("CREATE TABLE t (id INT PRIMARY KEY)")
    c.execute("BEGIN WITH LABEL 'job-7'; INSERT INTO t VALUES (1); PREPARE TRANSACTION 'g7'")
    c.execute("ROLLBACK PREPARED 'g7'")
    with pytest.raises(txlake.Error):  # the aborted one stays aborted
        c.execute("COMMIT PREPARED 'g7'")
    c.execute("BEGIN WITH LABEL 'job-7'; INSERT INTO t VALUES (1); COMMIT")
    assert c.execute("SELECT id FROM t").fetchall() == [(1,)]
    assert sorted(c.execute("SELECT state FROM txlake_transactions('job-7')").fetchall()) == [
        ("ABORTED",), ("COMMITTED",)]
    with pytest.raises(txlake.DuplicateObject):  # and now it is used
        c.execute("BEGIN WITH LABEL 'job-7'")


def test_a_label_given_at_begin_is_not_replaced_at_commit(connect):
    conn = connect()
    conn.execute("BEGIN WITH LABEL 'job-8'")
    conn.execute("CREATE TABLE t (id INT)")
    with pytest.raises(txlake.DataError):
        conn.commit(label="job-9")
    conn.commit(label="job-8")
