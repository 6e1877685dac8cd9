"""The sessions of one open database share one DuckDB database (engine/duck.py), each with a
connection of its own: what is a session's own stays its own - its time zone, its
transaction's now() and XID, its sequences' currval - across sessions in threads too."""

import threading

import pytest
import txlake
from txlake.engine import sources


def _duck(conn):
    return conn._session.executor.duck


def test_sessions_share_one_duckdb_database(connect):
    a, b = connect(autocommit=True), connect(autocommit=True)
    assert _duck(a).shared is _duck(b).shared
    assert _duck(a).con is not _duck(b).con


def test_what_is_a_sessions_own_stays_its_own(connect):
    a, b = connect(autocommit=True), connect(autocommit=True)
    a.execute("CREATE TABLE t (id SERIAL PRIMARY KEY, at TIMESTAMP DEFAULT now())")
    a.execute("SET TIME ZONE 'Asia/Tokyo'")
    assert a.execute("SHOW TIME ZONE").fetchone() == ("Asia/Tokyo",)
    assert b.execute("SHOW TIME ZONE").fetchone() != ("Asia/Tokyo",)
    a.execute("INSERT INTO t DEFAULT VALUES")
    b.execute("INSERT INTO t DEFAULT VALUES")
    b.execute("INSERT INTO t DEFAULT VALUES")
    assert a.execute("SELECT currval('t_id_seq')").fetchone() == (1,)
    assert b.execute("SELECT currval('t_id_seq')").fetchone() == (3,)
    assert a.execute("SELECT 7 / 2").fetchone() == b.execute("SELECT 7 / 2").fetchone() == (3,)
    a.autocommit = b.autocommit = False
    first = a.execute("SELECT now(), txid_current()").fetchone()
    second = b.execute("SELECT now(), txid_current()").fetchone()
    assert first[0] != second[0] and first[1] != second[1]
    assert a.execute("SELECT now(), txid_current()").fetchone() == first  # (the transaction's)
    a.rollback()
    b.rollback()


def test_a_closed_sessions_functions_go_and_the_others_go_on(connect, warehouse):
    a = connect(autocommit=True)
    a.execute("CREATE TABLE t (id SERIAL PRIMARY KEY)")
    shared = _duck(a).shared
    b = txlake.connect(warehouse, autocommit=True, publish="off")
    b.execute("INSERT INTO t DEFAULT VALUES")
    number = _duck(b).number
    b.close()
    assert all(number not in table for table in shared._functions.values())
    a.execute("INSERT INTO t DEFAULT VALUES")
    assert a.execute("SELECT currval('t_id_seq'), count(*) FROM t").fetchone() == (2, 2)


def test_sessions_in_threads_each_get_their_own_clock_and_numbers(connect):
    setup = connect(autocommit=True)
    setup.execute("CREATE TABLE t (id SERIAL PRIMARY KEY, who INT, at TIMESTAMP DEFAULT now())")
    conns = [connect() for _ in range(4)]
    seen, errors = {}, []

    def work(i, conn):
        try:
            for _ in range(20):
                start = conn.execute("SELECT CAST(now() AS TIMESTAMP)").fetchone()[0]
                conn.execute("INSERT INTO t (who) VALUES (?)", (i,))
                mine = conn.execute("SELECT currval('t_id_seq')").fetchone()[0]
                row = conn.execute("SELECT who, at FROM t WHERE id = ?", (mine,)).fetchone()
                assert row == (i, start)  # (its default's now() is its own transaction's)
                seen.setdefault(i, []).append(mine)
                conn.commit()
        except Exception as e:  # (reported below)
            errors.append(e)

    threads = [threading.Thread(target=work, args=(i, c)) for i, c in enumerate(conns)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    numbers = [n for ns in seen.values() for n in ns]
    assert len(numbers) == len(set(numbers)) == 80
    assert setup.execute("SELECT count(*) FROM t").fetchone() == (80,)
    for i, ns in seen.items():  # each session's currval was the number its own insert took
        assert setup.execute(f"SELECT count(*) FROM t WHERE who = {i} AND id IN ({','.join(map(str, ns))})") \
            .fetchone() == (20,)


def test_statements_read_rows_through_names_registered_once(connect):
    """A session registers each name its statements read rows under once (engine/sources.py
    ``Registry``): later statements reuse it, and none keeps its rows once it ends - nor one
    that failed."""
    conn = connect(autocommit=True)
    conn.execute("CREATE TABLE t (id INT PRIMARY KEY, u UUID, v TEXT)")
    conn.execute("INSERT INTO t SELECT g, NULL, 'v' || g FROM generate_series(1, 50) g")
    registry = conn._session.executor.registry

    def statements():
        assert conn.execute("SELECT count(*) FROM t WHERE v LIKE 'v1%'").fetchone() == (11,)
        assert conn.execute("SELECT v FROM t WHERE id IN (3, 4) AND v <> 'x' ORDER BY 1").fetchall() == \
            [("v3",), ("v4",)]
        conn.execute("UPDATE t SET v = v || '' WHERE id < 5")
        with pytest.raises(txlake.Error):
            conn.execute("SELECT 1 / (id - id) FROM t")

    statements()
    names = dict(registry._names)
    statements()
    assert registry._names == names  # (the same names, their slots and views, again)
    slots = [held for held in names.values() if isinstance(held, sources.ArrowSlot)]
    assert slots and all(slot.table is None for slot in slots)
