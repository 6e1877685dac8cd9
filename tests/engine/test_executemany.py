"""``cursor.executemany`` of an INSERT in a transaction block runs as one statement: the rows
built together and added as one batch (``Executor.insert_many``), as a multi-row INSERT adds
them. In autocommit mode each parameter set stays a statement - and a transaction - of its own,
as psycopg runs it."""

import datetime
import decimal

import pytest

import txlake
from txlake.engine import session
from txlake.engine.executor import Executor
from txlake.parser import statements as st

TABLE = ("CREATE TABLE t (s SERIAL, id INT PRIMARY KEY, pid INT REFERENCES p (id), v TEXT NOT NULL DEFAULT 'd', "
         "n NUMERIC(6,2) CHECK (n >= 0), ts TIMESTAMP, u INT UNIQUE)")


@pytest.fixture
def c(connect):
    conn = connect()
    conn.execute("CREATE TABLE p (id INT PRIMARY KEY)")
    conn.execute("INSERT INTO p VALUES (1), (2)")
    conn.execute(TABLE)
    conn.commit()
    return conn


@pytest.fixture
def statements(monkeypatch):
    """How many times the executor ran an INSERT (``insert``) and a batch (``insert_many``)."""
    ran = {"insert": 0, "insert_many": 0}

    def counting(name, original):
        def counted(*args):
            ran[name] += 1
            return original(*args)
        return counted
    monkeypatch.setitem(session._DATA, st.Insert, counting("insert", session._DATA[st.Insert]))
    monkeypatch.setattr(Executor, "insert_many", counting("insert_many", Executor.insert_many))
    return ran


def test_a_block_s_rows_go_in_as_one_batch(c, statements):
    cur = c.cursor()
    cur.executemany("INSERT INTO t (id, pid, v, n, ts) VALUES (?, ?, ?, ?, ?)",
                    [(i, 1 + i % 2, f"v{i}", decimal.Decimal(i) / 4, datetime.datetime(2024, 1, i))
                     for i in range(1, 11)])
    assert (cur.rowcount, cur.statusmessage) == (10, "INSERT 0 10")
    assert statements == {"insert": 0, "insert_many": 1}
    c.commit()
    rows = c.execute("SELECT s, id, pid, v, n, ts FROM t ORDER BY id").fetchall()
    assert rows[0] == (1, 1, 2, "v1", decimal.Decimal("0.25"), datetime.datetime(2024, 1, 1))
    assert [r[0] for r in rows] == list(range(1, 11))  # (SERIAL numbered in the rows' order)
    assert rows[-1] == (10, 10, 1, "v10", decimal.Decimal("2.50"), datetime.datetime(2024, 1, 10))


def test_the_batch_gives_what_the_rows_one_at_a_time_give(c, connect):
    """The same rows through executemany and through execute one by one: the same table."""
    rows = [(i, None if i % 3 else 2, f"it's {i}", decimal.Decimal("1.005") * i, None, i * 7) for i in range(1, 30)]
    sql = "INSERT INTO t (id, pid, v, n, ts, u) VALUES (?, ?, ?, ?, ?, ?)"
    c.cursor().executemany(sql, rows)
    c.commit()
    one = connect()
    one.execute("CREATE TABLE t2 (LIKE t INCLUDING ALL EXCLUDING INDEXES)")
    for row in rows:
        one.execute(sql.replace("INTO t ", "INTO t2 "), row)
    one.commit()
    assert c.execute("SELECT id, pid, v, n, ts, u FROM t ORDER BY id").fetchall() == \
        one.execute("SELECT id, pid, v, n, ts, u FROM t2 ORDER BY id").fetchall()


@pytest.mark.parametrize("rows, sqlstate", [
    ([(1, 1, "a", 1), (1, 2, "b", 2)], "23505"),
    ([(1, 1, "a", 1), (2, 3, "b", 2)], "23503"),
    ([(1, 1, None, 1), (2, 1, "b", 2)], "23502"),
    ([(1, 1, "a", 1), (2, 1, "b", -2)], "23514"),
    ([(1, 1, "a", 1), (2, 1, "b", decimal.Decimal("12345.6"))], "22003"),
])
def test_a_failing_row_fails_the_block_and_nothing_commits(c, rows, sqlstate):
    c.execute("INSERT INTO t (id, v) VALUES (100, 'before')")
    with pytest.raises(txlake.Error) as info:
        c.cursor().executemany("INSERT INTO t (id, pid, v, n) VALUES (?, ?, ?, ?)", rows)
    assert info.value.sqlstate == sqlstate
    with pytest.raises(txlake.Error) as failed:
        c.execute("SELECT 1")
    assert failed.value.sqlstate == "25P02"
    c.rollback()
    assert c.execute("SELECT count(*) FROM t").fetchone() == (0,)


def test_autocommit_keeps_one_statement_per_set(connect, statements):
    """psycopg's executemany in autocommit mode: the sets before a failing one stay committed."""
    conn = connect(autocommit=True)
    conn.execute("CREATE TABLE k (id INT PRIMARY KEY)")
    with pytest.raises(txlake.Error) as info:
        conn.cursor().executemany("INSERT INTO k VALUES (?)", [(1,), (2,), (1,), (3,)])
    assert info.value.sqlstate == "23505"
    assert conn.execute("SELECT id FROM k ORDER BY id").fetchall() == [(1,), (2,)]
    assert statements["insert_many"] == 0


def test_what_python_cannot_build_runs_one_set_at_a_time(c, statements):
    """A float into a NUMERIC is DuckDB's to convert: the batch gives up before changing anything."""
    cur = c.cursor()
    cur.executemany("INSERT INTO t (id, ts, n) VALUES (?, ?, ?)", [(1, datetime.datetime(2024, 1, 1), 1),
                                                                   (2, datetime.datetime(2024, 1, 2), 2.5)])
    assert cur.rowcount == 2 and statements == {"insert": 2, "insert_many": 1}
    cur.executemany("INSERT INTO t (id, v) VALUES (?, ?) RETURNING id", [(3, "a"), (4, "b")])
    cur.executemany("INSERT INTO t (id, v) VALUES (?, ?) ON CONFLICT (id) DO UPDATE SET v = excluded.v",
                    [(3, "c"), (5, "d")])
    c.commit()
    assert c.execute("SELECT id, v, ts, n FROM t ORDER BY id").fetchall() == [
        (1, "d", datetime.datetime(2024, 1, 1), decimal.Decimal("1.00")),
        (2, "d", datetime.datetime(2024, 1, 2), decimal.Decimal("2.50")), (3, "c", None, None),
        (4, "b", None, None), (5, "d", None, None)]
    assert statements["insert"] == 6  # (RETURNING and ON CONFLICT: one statement per set, as before)


def test_numbered_parameters_and_identity_columns(connect):
    conn = connect()
    conn.execute("CREATE TABLE i (id INT GENERATED ALWAYS AS IDENTITY PRIMARY KEY, a TEXT, b INT)")
    cur = conn.cursor()
    cur.executemany("INSERT INTO i (b, a) VALUES ($2, $1)", [("x", 1), ("y", 2)])
    conn.commit()
    assert conn.execute("SELECT id, a, b FROM i ORDER BY id").fetchall() == [(1, "x", 1), (2, "y", 2)]
    with pytest.raises(txlake.Error) as info:
        cur.executemany("INSERT INTO i (id, a) VALUES (?, ?)", [(5, "x"), (6, "y")])
    assert info.value.sqlstate == "428C9"


def test_a_statement_without_parameters_runs_once_per_empty_set(c):
    c.execute("CREATE TABLE k (a INT)")
    c.cursor().executemany("INSERT INTO k VALUES (1)", [(), ()])
    c.commit()
    assert c.execute("SELECT a FROM k").fetchall() == [(1,), (1,)]


def test_generated_columns_computed_and_refused_in_a_batch(c, statements):
    c.execute("CREATE TABLE g (a INT PRIMARY KEY, b INT GENERATED ALWAYS AS (a * 10) STORED)")
    c.cursor().executemany("INSERT INTO g (a) VALUES (?)", [(1,), (2,)])
    assert statements["insert_many"] == 1
    assert c.execute("SELECT a, b FROM g ORDER BY a").fetchall() == [(1, 10), (2, 20)]
    with pytest.raises(txlake.Error) as info:
        c.cursor().executemany("INSERT INTO g (a, b) VALUES (?, ?)", [(3, 1), (4, 2)])
    assert info.value.sqlstate == "428C9"


def test_columns_left_to_their_defaults_in_a_batch(c, statements):
    """A default DuckDB evaluates - now(), a volatile one, a constant of each kind - is taken
    for each row of the batch as a statement per set takes it."""
    c.execute("CREATE TABLE d (id INT PRIMARY KEY, at TIMESTAMPTZ DEFAULT now(), r DOUBLE DEFAULT random(), "
              "u UUID DEFAULT gen_random_uuid(), n NUMERIC(5,1) DEFAULT 2.25, j JSONB DEFAULT '{\"a\": 1}', "
              "s TEXT DEFAULT 'x' || 'y', t TIME DEFAULT '10:00')")
    c.cursor().executemany("INSERT INTO d (id) VALUES (?)", [(i,) for i in range(5)])
    assert statements["insert_many"] == 1 and statements["insert"] == 0
    now = c.execute("SELECT now()").fetchone()[0]
    rows = c.execute("SELECT at, r, u, n, j, s, t FROM d ORDER BY id").fetchall()
    assert {r[0] for r in rows} == {now}  # (the transaction's start)
    assert len({r[1] for r in rows}) == 5 and len({r[2] for r in rows}) == 5  # (each row its own)
    assert all(r[3:] == (decimal.Decimal("2.3"), {"a": 1}, "xy", datetime.time(10, 0)) for r in rows)
    c.commit()
    c.execute("INSERT INTO d (id) VALUES (9)")
    assert c.execute("SELECT n, j, s, t FROM d WHERE id = 9").fetchone() == rows[0][3:]


def test_a_foreign_key_to_its_own_table_is_checked_set_by_set(connect):
    """A statement per set checks each row's reference when it ends: a row referencing one a
    later set adds is refused (23503), as psycopg's executemany gets it from PostgreSQL - where
    one batch, checked at its end, would take both."""
    conn = connect()
    conn.execute("CREATE TABLE tree (id INT PRIMARY KEY, parent INT REFERENCES tree (id))")
    conn.commit()
    with pytest.raises(txlake.Error) as info:
        conn.cursor().executemany("INSERT INTO tree VALUES (?, ?)", [(2, 1), (1, None)])
    assert info.value.sqlstate == "23503"
    conn.rollback()
    conn.cursor().executemany("INSERT INTO tree VALUES (?, ?)", [(1, None), (2, 1)])
    conn.commit()
    assert conn.execute("SELECT id, parent FROM tree ORDER BY id").fetchall() == [(1, None), (2, 1)]
