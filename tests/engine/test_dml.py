"""DML, queries and the DB-API cursor surface."""

import datetime
import decimal

import pyarrow as pa
import pytest

import txlake


@pytest.fixture
def c(connect):
    conn = connect(autocommit=True)
    conn.execute("CREATE TABLE t (id INT PRIMARY KEY, name TEXT NOT NULL DEFAULT 'anon', score DOUBLE)")
    conn.execute("INSERT INTO t VALUES (1, 'a', 1.5), (2, 'b', 2.5), (3, 'c', NULL)")
    return conn


def q(conn, sql, params=None):
    return conn.execute(sql, params).fetchall()


def test_insert_forms(c):
    c.execute("INSERT INTO t (id) VALUES (4)")
    c.execute("INSERT INTO t (score, id) VALUES (9.5, 5)")
    c.execute("CREATE TABLE u (id INT, name TEXT)")
    c.execute("INSERT INTO u SELECT id + 100, name FROM t WHERE id <= 2")
    c.execute("INSERT INTO t (id, name) SELECT id, name FROM u")
    c.execute("CREATE TABLE d (i INT DEFAULT 7, s TEXT DEFAULT 'x')")
    c.execute("INSERT INTO d DEFAULT VALUES")
    assert q(c, "SELECT * FROM d") == [(7, "x")]
    assert q(c, "SELECT id, name, score FROM t WHERE id >= 4 ORDER BY id") == [
        (4, "anon", None), (5, "anon", 9.5), (101, "a", None), (102, "b", None)]


def test_on_conflict(c):
    cur = c.execute("INSERT INTO t VALUES (1, 'x', 0), (9, 'nine', 9) ON CONFLICT DO NOTHING RETURNING id")
    assert cur.fetchall() == [(9,)]
    cur = c.execute("INSERT INTO t (id, name) VALUES (1, 'new'), (10, 'ten') "
                    "ON CONFLICT (id) DO UPDATE SET name = excluded.name || t.name RETURNING id, name")
    assert sorted(cur.fetchall()) == [(1, "newa"), (10, "ten")]
    c.execute("INSERT INTO t (id, name) VALUES (2, 'zz') ON CONFLICT (id) DO UPDATE SET name = excluded.name "
              "WHERE t.score > 100")
    assert q(c, "SELECT name FROM t WHERE id = 2") == [("b",)]


def test_update_delete_returning(c):
    assert q(c, "UPDATE t SET score = score * 2 WHERE score IS NOT NULL RETURNING id, score") in (
        [(1, 3.0), (2, 5.0)], [(2, 5.0), (1, 3.0)])
    c.execute("CREATE TABLE bonus (id INT, extra DOUBLE)")
    c.execute("INSERT INTO bonus VALUES (1, 10), (3, 30)")
    c.execute("UPDATE t SET score = coalesce(t.score, 0) + b.extra FROM bonus b WHERE t.id = b.id")
    assert q(c, "SELECT id, score FROM t ORDER BY id") == [(1, 13.0), (2, 5.0), (3, 30.0)]
    assert q(c, "DELETE FROM t USING bonus WHERE t.id = bonus.id AND bonus.extra > 20 RETURNING *") == [(3, "c", 30.0)]
    cur = c.execute("DELETE FROM t WHERE id = ?", (1,))
    assert cur.rowcount == 1
    c.execute("UPDATE t SET id = id + 100")   # changes every key; checked at the end of the statement
    assert q(c, "SELECT id FROM t") == [(102,)]


def test_ctas_and_queries(c):
    c.execute("CREATE TABLE s AS SELECT id, name, score * 10 AS s10 FROM t WHERE id < 3")
    assert q(c, "SELECT * FROM s ORDER BY id") == [(1, "a", 15.0), (2, "b", 25.0)]
    rows = q(c, """WITH x AS (SELECT t.id, t.score, s.s10 FROM t JOIN s USING (id))
                   SELECT id, sum(s10) OVER (ORDER BY id), rank() OVER (ORDER BY score DESC)
                   FROM x ORDER BY id""")
    assert rows == [(1, 15.0, 2), (2, 40.0, 1)]
    assert q(c, "SELECT count(*), count(score), max(name) FROM t GROUP BY name IS NULL") == [(3, 2, "c")]


def test_all_types_round_trip(connect):
    c = connect(autocommit=True)
    c.execute("CREATE TABLE ty (b BOOLEAN, i INT, l BIGINT, d DOUBLE, n DECIMAL(12,4), v VARCHAR(10), "
              "tx TEXT, dt DATE, ts TIMESTAMP)")
    row = (True, -7, 2**40, 0.1, decimal.Decimal("-12345.6789"), "héllo", "日本語",
           datetime.date(2024, 2, 29), datetime.datetime(2024, 1, 2, 3, 4, 5, 123456))
    c.execute("INSERT INTO ty VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", row)
    c.execute("INSERT INTO ty VALUES (NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL)")
    assert q(c, "SELECT * FROM ty WHERE b") == [row]
    assert [d[1] for d in c.execute("SELECT * FROM ty").description] == [
        "BOOLEAN", "INTEGER", "BIGINT", "DOUBLE", "DECIMAL", "VARCHAR", "VARCHAR", "DATE", "TIMESTAMP"]
    assert txlake.NUMBER == "INTEGER" and txlake.STRING == "VARCHAR" and txlake.DATETIME == "DATE"


def test_cursor_surface(c):
    cur = c.cursor()
    cur.arraysize = 2
    cur.execute("SELECT id FROM t ORDER BY id")
    assert cur.rowcount == 3
    assert cur.description[0][0] == "id"
    assert cur.fetchone() == (1,)
    assert cur.fetchmany() == [(2,), (3,)]
    assert cur.fetchone() is None
    cur.execute("SELECT id FROM t ORDER BY id")
    assert list(cur) == [(1,), (2,), (3,)]
    table = cur.execute("SELECT * FROM t").fetch_arrow_table()
    assert isinstance(table, pa.Table) and table.num_rows == 3
    cur.execute("INSERT INTO t (id) VALUES (7)")
    assert cur.description is None and cur.rowcount == 1
    with pytest.raises(txlake.ProgrammingError):
        cur.fetchall()
    with c.cursor() as cur2:
        cur2.execute("SELECT 1")
    with pytest.raises(txlake.InterfaceError):
        cur2.execute("SELECT 1")
    assert txlake.apilevel == "2.0" and txlake.paramstyle == "qmark" and txlake.threadsafety in (1, 2)


def test_executemany_parses_once(c):
    from txlake.parser import parse as parse_module
    parse_module._parse_cached.cache_clear()
    cur = c.cursor()
    cur.executemany("INSERT INTO t (id, name) VALUES (?, ?)", [(i, f"n{i}") for i in range(10, 60)])
    assert cur.rowcount == 50
    info = parse_module._parse_cached.cache_info()
    assert info.misses == 1 and info.currsize == 1
    assert q(c, "SELECT count(*) FROM t") == [(53,)]


def test_one_row_update_on_big_table_does_not_rewrite_it(connect, warehouse):
    import os
    c = connect(autocommit=True)
    c.execute("CREATE TABLE big (id INT PRIMARY KEY, v INT)")
    c.execute("INSERT INTO big SELECT range, 0 FROM range(300000)")

    def size():
        return sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(warehouse) for f in fs)

    before = size()
    c.execute("UPDATE big SET v = 1 WHERE id = 123456")
    assert size() - before < 20_000
    assert q(c, "SELECT v FROM big WHERE id = 123456") == [(1,)]
