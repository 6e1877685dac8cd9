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
    with pytest.raises(errors.ProgrammingError) as info:
        c.execute("CALL txlake.compact('t')")
    assert info.value.sqlstate == "25001"
