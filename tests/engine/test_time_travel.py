"""Time travel and history, across updates, deletes and compaction."""

import datetime
import time

import pytest

import txlake
from txlake import errors


def test_time_travel_through_history(connect):
    c = connect(autocommit=True)
    c.execute("CREATE TABLE t (id INT PRIMARY KEY, v TEXT)")                  # 1
    c.execute("INSERT INTO t VALUES (1, 'a'), (2, 'b'), (3, 'c')")            # 2
    time.sleep(0.02)
    moment = datetime.datetime.now(datetime.timezone.utc).replace(tzinfo=None)
    time.sleep(0.02)
    c.execute("UPDATE t SET v = 'B' WHERE id = 2")                            # 3
    c.execute("DELETE FROM t WHERE id = 1")                                   # 4
    for i in range(10, 50):
        c.execute("INSERT INTO t VALUES (?, 'x')", (i,))
    assert c.execute("CALL txlake.compact('t')").fetchone()[4] is not None   # a COMPACT commit
    c.execute("UPDATE t SET v = 'Z' WHERE id = 3")
    assert c.execute("SELECT * FROM t FOR SYSTEM_VERSION AS OF 2 ORDER BY id").fetchall() == [
        (1, "a"), (2, "b"), (3, "c")]
    assert c.execute("SELECT * FROM t AT (VERSION => 3) WHERE id < 10 ORDER BY id").fetchall() == [
        (1, "a"), (2, "B"), (3, "c")]
    assert c.execute(f"SELECT * FROM t FOR SYSTEM_TIME AS OF '{moment}' ORDER BY id").fetchall() == [
        (1, "a"), (2, "b"), (3, "c")]
    assert c.execute("SELECT * FROM t WHERE id < 10 ORDER BY id").fetchall() == [(2, "B"), (3, "Z")]
    history = c.execute("SELECT snapshot_id, commit_kind, rows_added, rows_deleted FROM txlake_snapshots('t')").fetchall()
    assert history[:4] == [(1, "CREATE", 0, 0), (2, "APPEND", 3, 0), (3, "UPDATE", 1, 1), (4, "DELETE", 0, 1)]
    # background auto-compaction may commit after the last UPDATE: skip COMPACT entries
    assert [kind for _, kind, _, _ in history if kind != "COMPACT"][-1] == "UPDATE"
    with pytest.raises(errors.InvalidParameterValue):
        c.execute("SELECT * FROM t FOR SYSTEM_VERSION AS OF 9999")


def test_compaction_does_not_fail_concurrent_writers(connect):
    c = connect(autocommit=True)
    c.execute("CREATE TABLE t (id INT PRIMARY KEY, v INT)")
    for i in range(30):
        c.execute("INSERT INTO t VALUES (?, 0)", (i,))
    w = connect()                      # REPEATABLE READ, base before the compaction
    w.execute("UPDATE t SET v = v + 1 WHERE id = 5")
    w.execute("DELETE FROM t WHERE id = 7")
    c.execute("CALL txlake.compact('t')")
    w.commit()
    assert c.execute("SELECT count(*), sum(v) FROM t").fetchone() == (29, 1)


def test_call_refuses_inside_a_transaction(connect):
    c = connect()
    c.execute("CREATE TABLE t (id INT)")
    with pytest.raises(errors.ActiveSqlTransaction) as info:
        c.execute("CALL txlake.compact('t')")
    assert info.value.sqlstate == "25001"
    with pytest.raises(errors.InFailedTransaction):  # the block fails, as PostgreSQL's at VACUUM
        c.execute("INSERT INTO t VALUES (1)")        # (it went on, and COMMIT committed it)
    c.rollback()


def test_a_point_in_time_with_an_offset_is_that_instant(connect):
    """'... 13:29+02:00' was read as 13:29 UTC (the offset dropped): the wrong snapshot, and
    expire_snapshots(older_than => ...) expired snapshots committed after that instant."""
    c = connect(autocommit=True)
    c.execute("CREATE TABLE t (id INT)")
    c.execute("INSERT INTO t VALUES (1)")
    at = datetime.datetime.now(datetime.timezone.utc)
    time.sleep(0.01)
    c.execute("INSERT INTO t VALUES (2)")
    plus2 = at.astimezone(datetime.timezone(datetime.timedelta(hours=2))).isoformat(sep=" ")
    naive_utc = at.replace(tzinfo=None).isoformat(sep=" ")
    for text in (plus2, naive_utc):  # (without an offset: UTC, as before)
        assert c.execute(f"SELECT count(*) FROM t FOR SYSTEM_TIME AS OF '{text}'").fetchone() == (1,)
    assert c.execute(f"SELECT count(*) FROM t FOR SYSTEM_TIME AS OF TIMESTAMPTZ '{plus2}'").fetchone() == (1,)
    horizon = c.execute(f"CALL txlake.expire_snapshots(older_than => '{plus2}')").fetchone()[0]
    assert horizon == 3  # snapshot 3 (the second INSERT) came after that instant: kept
    assert c.execute("SELECT count(*) FROM t FOR SYSTEM_VERSION AS OF 3").fetchone() == (2,)


def test_time_travel_sees_another_process_newest_commits(connect, warehouse):
    """AS OF n failed with 22023 'snapshot n does not exist' inside a transaction when another
    process had committed n and nothing in this one had looked since."""
    from tests.conftest import run_python
    c = connect(autocommit=True)
    c.execute("CREATE TABLE t (id INT)")
    reader = connect()
    reader.execute("SELECT count(*) FROM t")  # a transaction, its snapshot taken
    done = run_python("import sys, txlake\nc = txlake.connect(sys.argv[1], autocommit=True, publish='off')\n"
                      "c.execute('INSERT INTO t VALUES (7)')\n", warehouse)
    assert done.returncode == 0, done.stderr
    assert reader.execute("SELECT id FROM t FOR SYSTEM_VERSION AS OF 2").fetchall() == [(7,)]


@pytest.mark.parametrize("sql", ["UPDATE t FOR SYSTEM_VERSION AS OF 1 SET id = 5",
                                 "DELETE FROM t AT (VERSION => 1) WHERE id = 1"])
def test_time_travel_on_the_target_of_a_write_is_refused(connect, sql):
    """It was ignored: the newest rows changed."""
    c = connect(autocommit=True)
    c.execute("CREATE TABLE t (id INT)")
    c.execute("INSERT INTO t VALUES (1)")
    with pytest.raises(errors.NotSupportedError):
        c.execute(sql)
    assert c.execute("SELECT id FROM t").fetchall() == [(1,)]


@pytest.mark.parametrize("call", ["expire_snapshots(retain_last => NULL)", "expire_snapshots(retain_last => -5)",
                                  "expire_snapshots(older_than => NULL)",
                                  "remove_orphan_files(older_than_seconds => NULL)",
                                  "remove_orphan_files(older_than_seconds => -1)",
                                  "expire_snapshots(retain_last => 2, retain_last => 100)"])
def test_maintenance_arguments_are_checked(connect, call):
    """NULL was a bare TypeError (the shell said XX000); negative values and a name given
    twice were taken."""
    c = connect(autocommit=True)
    with pytest.raises(errors.Error) as e:
        c.execute(f"CALL txlake.{call}")
    assert e.value.sqlstate in ("22023", "42601")


def test_expiries_at_once_wait_for_each_other(connect, warehouse):
    """Two at once: the one with the lower horizon failed with 22023 (the other had removed
    what it went to read)."""
    import threading
    c = connect(autocommit=True)
    c.execute("CREATE TABLE t (id INT)")
    for i in range(20):
        c.execute(f"INSERT INTO t VALUES ({i})")
    failures = []

    def expire(keep):
        conn = txlake.connect(warehouse, autocommit=True, publish="off")
        try:
            conn.execute(f"CALL txlake.expire_snapshots(retain_last => {keep})")
        except txlake.Error as e:
            failures.append(e)
        finally:
            conn.close()

    threads = [threading.Thread(target=expire, args=(keep,)) for keep in (15, 10, 5, 2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert failures == []
    assert c.execute("SELECT count(*) FROM t").fetchone() == (20,)
