"""Work a cached point statement does once, not at every run (issue 9): a point UPDATE's checks
of its SET list against the table's schema (engine/executor.py ``_point_update_prologue``),
and a writer's move to the newest committed version of the tables it locked, which has nothing
to do while its snapshot is the newest (engine/table_locks.py ``follow``). Each is asked again
where the answer may differ: another schema (DDL), another snapshot."""

import pytest

import txlake
from txlake.engine import executor, table_locks
from txlake.engine.mvcc.locks import ROW_EXCLUSIVE
from txlake.storage.version import CatalogVersion

UPDATE = "UPDATE t SET v = v + ? WHERE id = ?"


@pytest.fixture
def cur(conn):
    cur = conn.cursor()
    cur.execute("CREATE TABLE t (id INT PRIMARY KEY, v INT, w INT)")
    cur.execute("INSERT INTO t VALUES (1, 10, 0), (2, 20, 0)")
    conn.commit()
    return cur


def counting(monkeypatch, module, name):
    calls = []
    real = getattr(module, name)

    def counted(*args, **kwargs):
        calls.append(args)
        return real(*args, **kwargs)
    monkeypatch.setattr(module, name, counted)
    return calls


def test_a_point_update_checks_its_set_list_once_per_schema(conn, cur, monkeypatch):
    checked = counting(monkeypatch, executor, "assignable")
    for n in range(3):
        cur.execute(UPDATE, (1, 1))
        conn.commit()
    assert len(checked) == 1
    cur.execute("SELECT v FROM t WHERE id = 1")
    assert cur.fetchall() == [(13,)]
    cur.execute("ALTER TABLE t ADD COLUMN x INT")  # (a new schema: the statement is checked against it)
    conn.commit()
    cur.execute(UPDATE, (1, 2))
    conn.commit()
    assert len(checked) == 2
    cur.execute("SELECT id, v FROM t ORDER BY id")
    assert cur.fetchall() == [(1, 13), (2, 21)]


def test_the_checks_of_a_cached_update_follow_ddl(conn, cur):
    cur.execute(UPDATE, (1, 1))
    conn.commit()
    cur.execute("ALTER TABLE t DROP COLUMN v")
    conn.commit()
    with pytest.raises(txlake.ProgrammingError) as e:
        cur.execute(UPDATE, (1, 1))
    assert e.value.sqlstate == "42703"
    conn.rollback()
    cur.execute("ALTER TABLE t ADD COLUMN v INT GENERATED ALWAYS AS (w * 2) STORED")
    conn.commit()
    with pytest.raises(txlake.Error) as e:  # (a generated column: not the point path's to set)
        cur.execute(UPDATE, (1, 1))
    assert e.value.sqlstate == "428C9"
    conn.rollback()
    cur.execute("UPDATE t SET w = w + ? WHERE id = ?", (5, 2))
    conn.commit()
    cur.execute("SELECT id, w, v FROM t ORDER BY id")
    assert cur.fetchall() == [(1, 0, 0), (2, 5, 10)]


def test_a_writer_on_the_newest_snapshot_looks_no_version_up_to_move_to(conn, cur, monkeypatch):
    db = conn._session.db
    stmt = conn._session.parse(UPDATE)[0]
    table_id = db.warehouse.latest.table("default", "t").table_id
    txn = db.begin("READ COMMITTED")
    try:
        txn.snapshot = db.take_snapshot()
        assert txn.snapshot.catalog is db.warehouse.latest
        looked_up = counting(monkeypatch, CatalogVersion, "by_id")
        table_locks.follow(db, txn, stmt, [(table_id, ROW_EXCLUSIVE)])
        assert looked_up == [] and txn.changes == {}
    finally:
        db.abort(txn)


def test_a_writer_whose_table_changed_since_its_snapshot_moves_to_the_newest(connect, conn, cur):
    other = connect(autocommit=True)
    cur.execute("BEGIN ISOLATION LEVEL REPEATABLE READ")
    cur.execute("SELECT 1")  # (the snapshot: before the ALTER TABLE below)
    other.cursor().execute("ALTER TABLE t ADD COLUMN x INT DEFAULT 5")
    cur.execute("INSERT INTO t (id, v, w) VALUES (3, 30, 0)")  # (rows of the new schema)
    conn.commit()
    cur.execute("SELECT id, x FROM t ORDER BY id")
    assert cur.fetchall() == [(1, 5), (2, 5), (3, 5)]
