"""Point statements answered without DuckDB (primary-key SELECT, point UPDATE, INSERT VALUES,
ON CONFLICT DO UPDATE's SET) must behave exactly as the general path: same rows and types, same errors (SQLSTATE), same
locks and MVCC visibility. Each script runs twice, with the fast paths on and forced off."""

from __future__ import annotations

import datetime
import threading
from decimal import Decimal

import pytest

import txlake
from txlake.engine import points


def general_path(patch) -> None:
    """Every statement down the general path: no point plan (engine/points.py), through the
    MonkeyPatch ``patch``."""
    for plan in ("select_plan", "update_plan", "delete_plan", "values_plan", "conflict_plan", "join_plan"):
        patch.setattr(points, plan, lambda *parts: None)


@pytest.fixture(params=["fast", "general"])
def mode(request, monkeypatch):
    if request.param == "general":
        general_path(monkeypatch)
    return request.param


def run_script(path, script, autocommit=True):
    """Run (sql, params) pairs; each gives (column types, rows, status) or the SQLSTATE."""
    conn = txlake.connect(str(path), autocommit=autocommit, publish="off")
    cur = conn.cursor()
    out = []
    for sql, params in script:
        try:
            cur.execute(sql, params)
            if cur.description:
                table = cur.fetch_arrow_table()
                out.append((table.column_names, [str(t) for t in table.schema.types],
                            list(zip(*(column.to_pylist() for column in table.columns)))))
            else:
                out.append((cur.rowcount, cur.statusmessage))
        except txlake.Error as e:
            out.append(("error", e.sqlstate))
            if not autocommit:
                conn.rollback()
    conn.close()
    return out


SETUP = [
    ("CREATE TABLE t (id INT PRIMARY KEY, b BIGINT, v VARCHAR, d DOUBLE, f BOOLEAN, ts TIMESTAMP, "
     "n NUMERIC(10,2), dt DATE, s VARCHAR(3))", ()),
    ("INSERT INTO t VALUES (1, 10, 'one', 1.5, true, '2020-01-01 10:00:00', 1.25, '2020-01-02', 'a')", ()),
    ("INSERT INTO t VALUES (?, ?, ?, ?, ?, NULL, NULL, NULL, ?)", (2, 20, "two", 2.5, False, "bb")),
    ("INSERT INTO t (id, v) VALUES (3, NULL)", ()),
    ("CREATE TABLE k (a INT, b VARCHAR, x INT, PRIMARY KEY (a, b))", ()),
    ("INSERT INTO k VALUES (1, 'x', 100), (1, 'y', 200), (2, 'x', 2147483647)", ()),
]

QUERIES = [
    ("SELECT * FROM t WHERE id = ?", (1,)),
    ("SELECT * FROM t WHERE id = 2", ()),
    ("SELECT v, id, b FROM t WHERE id = ?", (3,)),
    ("SELECT v FROM t WHERE id = ?", (99,)),
    ("SELECT t.v FROM t WHERE t.id = ?", (1,)),
    ("SELECT x.v FROM t AS x WHERE x.id = ?", (2,)),
    ("SELECT v FROM t WHERE ? = id", (2,)),
    ("SELECT v FROM t WHERE id = ?", ("1",)),
    ("SELECT v FROM t WHERE id = 1.0", ()),
    ("SELECT nope FROM t WHERE id = 1", ()),
    ("SELECT V FROM t WHERE id = 1", ()),
    ("SELECT v FROM missing WHERE id = 1", ()),
    ("SELECT x FROM k WHERE a = ? AND b = ?", (1, "y")),
    ("SELECT x FROM k WHERE b = 'x' AND a = 2", ()),
    ("SELECT x FROM k WHERE a = 1", ()),
    ("SELECT v FROM t WHERE id = ? AND b = ?", (1, 10)),
    ("SELECT v, v FROM t WHERE id = 1", ()),
    ("SELECT v FROM t WHERE id = ? LIMIT 1", (1,)),  # an ORM's get()
    ("SELECT * FROM t WHERE t.id = ? LIMIT 21", (2,)),
    ("SELECT v FROM t WHERE id = ? LIMIT ?", (1, 0)),
    ("SELECT v FROM t WHERE id = ? LIMIT ?", (1, None)),
    ("SELECT v FROM t WHERE id = ? LIMIT ?", (1, -1)),  # 2201W
    ("SELECT v FROM t WHERE id = ? LIMIT ?", (1, "1")),
    ("SELECT x FROM k WHERE a = ? AND b = ? LIMIT 1", (1, "y")),
    ("SELECT v FROM t WHERE id = 1 LIMIT 1 OFFSET 1", ()),
]

UPDATES = [
    ("UPDATE t SET b = b + ? WHERE id = ?", (5, 1)),
    ("UPDATE t SET b = ? - b, v = ? WHERE id = ?", (1, "new", 2)),
    ("UPDATE t SET b = b + 1 WHERE id = 3", ()),  # NULL + 1
    ("UPDATE t SET b = b + ? WHERE id = ?", (1, 42)),  # no such row
    ("UPDATE t SET b = b + ? WHERE id = ?", (1.5, 1)),  # a real cast: DuckDB
    ("UPDATE t SET b = ? WHERE id = ?", (None, 1)),
    ("UPDATE t SET s = ? WHERE id = 1", ("toolong",)),  # 22001
    ("UPDATE t SET v = ? WHERE id = ?", ("longer", 1)),
    ("UPDATE t SET s = v WHERE id = ?", (1,)),  # 22001: a column's value, too long for another
    ("UPDATE t SET s = v WHERE id = ?", (2,)),
    ("UPDATE t SET id = ? WHERE id = ?", (2, 1)),  # 23505
    ("UPDATE t SET id = id + 10 WHERE id = ?", (1,)),
    ("UPDATE k SET x = x + ? WHERE a = ? AND b = ?", (1, 2, "x")),  # 22003 overflow
    ("UPDATE k SET x = x - 1 WHERE b = 'y' AND a = 1 RETURNING a, b, x", ()),
    ("UPDATE k SET x = (x + 1) WHERE a = 1 AND b = 'x'", ()),
    ("UPDATE k SET x = 5 WHERE a = 1", ()),  # not the whole key
    ("UPDATE t SET b = b + b WHERE id = ?", (2,)),  # two columns
    ("UPDATE k SET x = x + x WHERE a = 2 AND b = 'x'", ()),  # 22003 overflow
    ("SELECT * FROM t ORDER BY id", ()),
    ("SELECT * FROM k ORDER BY a, b", ()),
]

INSERTS = [
    ("INSERT INTO t (id, b) VALUES (?, ?)", (10, 2**40)),
    ("INSERT INTO t (id, b) VALUES (?, ?)", (11, 2**70)),  # out of range: 22003
    ("INSERT INTO t (id, v) VALUES (?, ?)", (12, 5)),  # int into VARCHAR: DuckDB casts
    ("INSERT INTO t (id, b) VALUES (?, ?)", ("13", "7")),  # text into INT: DuckDB casts
    ("INSERT INTO t (id) VALUES (?)", (1,)),  # 23505
    ("INSERT INTO t (id, b) VALUES (?, ?), (?, ?)", (14, 1, 14, 2)),  # 23505 within the statement
    ("INSERT INTO t (b) VALUES (1)", ()),  # 23502
    ("INSERT INTO t VALUES (15)", ()),
    ("INSERT INTO t (id, b) VALUES (16)", ()),  # 42601
    ("INSERT INTO t (id, v) VALUES (17, 'x'), (18)", ()),
    ("INSERT INTO t (id, f, d) VALUES (?, ?, ?)", (19, True, float("inf"))),
    ("INSERT INTO t (id, s) VALUES (20, 'abcd')", ()),  # 22001
    ("INSERT INTO t (id) VALUES (21) RETURNING id, v", ()),
    ("INSERT INTO t (id) VALUES (1) ON CONFLICT DO NOTHING", ()),
    ("CREATE TABLE dflt (id INT PRIMARY KEY, v INT DEFAULT 7, at TIMESTAMP)", ()),
    ("INSERT INTO dflt (id, at) VALUES (1, CURRENT_TIMESTAMP)", ()),
    ("SELECT id, v, at IS NOT NULL AS stamped, typeof(at) AS tp FROM dflt", ()),
    ("SELECT * FROM t ORDER BY id", ()),
]

# constants and parameters of NUMERIC, DOUBLE, DATE, TIMESTAMP and BOOLEAN columns, which the
# fast path converts in Python (points._CONVERSIONS) - rounding, ranges, text forms - or leaves
# to DuckDB; either way the outcome must be the general path's
TYPED_INSERTS = [
    ("CREATE TABLE ty (id INT PRIMARY KEY, n NUMERIC(6,2), u NUMERIC, z NUMERIC(3,3), x DOUBLE, r REAL, "
     "d DATE, ts TIMESTAMP, tz TIMESTAMPTZ, f BOOLEAN, i INT, s TEXT)", ()),
    ("INSERT INTO ty (id, n, u, z, x) VALUES (1, 1.25, 1.25, 0.125, 1.5)", ()),
    ("INSERT INTO ty (id, n, u, z, x) VALUES (2, -1.255, -0.0000000005, -0.0005, -2.5e-3)", ()),  # half away from 0
    ("INSERT INTO ty (id, n, u, x) VALUES (3, 1e3, 12345678901234567890.123456789, 1e3)", ()),
    ("INSERT INTO ty (id, n) VALUES (4, 9999.995)", ()),  # rounds past 6 digits: 22003
    ("INSERT INTO ty (id, z) VALUES (5, 0.9995)", ()),  # 22003
    ("INSERT INTO ty (id, n, u, z) VALUES (?, ?, ?, ?)", (6, Decimal("-3.145"), Decimal("7"), Decimal("0.0015"))),
    ("INSERT INTO ty (id, n, u) VALUES (?, ?, ?)", (7, 12, -(10 ** 20))),
    ("INSERT INTO ty (id, n) VALUES (?, ?)", (8, Decimal("NaN"))),  # 22P02 or DuckDB's error
    ("INSERT INTO ty (id, n) VALUES (32, 1e100)", ()),  # 22003 (a Python InvalidOperation leaked)
    ("INSERT INTO ty (id, u) VALUES (?, ?)", (33, Decimal("1e100"))),
    ("INSERT INTO ty (id, n, u) VALUES (?, ?, ?)", (34, 10 ** 90, Decimal("-1e-100"))),
    ("INSERT INTO ty (id, n) VALUES (?, ?)", (9, 2.675)),  # a float: DuckDB's cast
    ("INSERT INTO ty (id, x, r) VALUES (?, ?, ?)", (10, 2 ** 53 + 1, 1.5)),  # past a double's integers: DuckDB
    ("INSERT INTO ty (id, x) VALUES (11, 1e-400)", ()),  # 22003
    ("INSERT INTO ty (id, x) VALUES (12, 0.1), (13, 123456789.123456789), (14, -0.0)", ()),
    ("INSERT INTO ty (id, x, i) VALUES (15, 7, 1.0)", ()),  # a NUMERIC into INT: DuckDB
    ("INSERT INTO ty (id, d, ts) VALUES (16, '2024-02-29', '2024-02-29 23:59:59.999999')", ()),
    ("INSERT INTO ty (id, d, ts) VALUES (17, '2024-02-30', '2024-01-01')", ()),  # 22008
    ("INSERT INTO ty (id, d, ts) VALUES (18, 'Jan 2 2024', '2024-01-02T03:04')", ()),
    ("INSERT INTO ty (id, ts) VALUES (19, '2024-01-02 03:04:05+02')", ()),  # the offset: DuckDB
    ("INSERT INTO ty (id, ts) VALUES (20, '2024-01-02 24:00:00')", ()),
    ("INSERT INTO ty (id, d, ts, tz) VALUES (?, ?, ?, ?)",
     (21, datetime.date(2024, 3, 1), datetime.datetime(2024, 3, 1, 12, 30, 0, 5), "2024-03-01 12:30:00+01")),
    ("INSERT INTO ty (id, d, ts) VALUES (?, ?, ?)", (22, datetime.datetime(2024, 3, 1, 12), datetime.date(2024, 3, 1))),
    ("INSERT INTO ty (id, ts) VALUES (?, ?)",
     (23, datetime.datetime(2024, 3, 1, 12, tzinfo=datetime.timezone.utc))),  # an instant: DuckDB
    ("INSERT INTO ty (id, d) VALUES (?, ?)", (24, "2024-13-01")),  # 22008
    ("INSERT INTO ty (id, f, s) VALUES (25, true, 'x'), (26, false, 'y'), (27, NULL, NULL)", ()),
    ("INSERT INTO ty (id, f) VALUES (28, 1)", ()),  # 42804 / DuckDB's
    ("INSERT INTO ty (id, i) VALUES (29, true)", ()),
    ("INSERT INTO ty (id, i, n) VALUES (30, -5, -5)", ()),
    ("INSERT INTO ty (id, s) VALUES (31, -5)", ()),
    ("SELECT * FROM ty ORDER BY id", ()),
    ("SELECT id, n::text, u::text, z::text, x::text FROM ty ORDER BY id", ()),
]

UPSERTS = [
    ("INSERT INTO t (id, b, v) VALUES (?, ?, ?) ON CONFLICT (id) DO UPDATE SET b = excluded.b, v = excluded.v",
     (1, 99, "up")),
    ("INSERT INTO t (id, b) VALUES (?, ?) ON CONFLICT (id) DO UPDATE SET b = t.b + excluded.b RETURNING *", (1, 1)),
    ("INSERT INTO t (id, b) VALUES (?, ?) ON CONFLICT (id) DO UPDATE SET b = t.b + ?", (3, 5, 1)),  # NULL + 1
    ("INSERT INTO t AS x (id, b) VALUES (2, 7), (40, 8) ON CONFLICT (id) DO UPDATE SET b = x.b - excluded.b "
     "RETURNING id, b", ()),
    ("INSERT INTO t (id, s) VALUES (?, ?) ON CONFLICT (id) DO UPDATE SET s = t.v", (1, "z")),  # 22001
    ("INSERT INTO t (id, d) VALUES (?, ?) ON CONFLICT (id) DO UPDATE SET b = excluded.d", (2, 1.5)),  # a cast
    ("INSERT INTO t (id, b) VALUES (?, ?) ON CONFLICT (id) DO UPDATE SET b = b + 1", (2, 1)),  # 42702
    ("INSERT INTO t (id, b) VALUES (?, ?) ON CONFLICT (id) DO UPDATE SET b = excluded.nope", (2, 1)),  # 42703
    ("INSERT INTO t (id) VALUES (?) ON CONFLICT (id) DO UPDATE SET id = excluded.id + 1", (1,)),  # 23505
    ("INSERT INTO t (id) VALUES (?) ON CONFLICT (id) DO UPDATE SET id = excluded.id + 100", (1,)),
    ("INSERT INTO k VALUES (2, 'x', 1) ON CONFLICT (a, b) DO UPDATE SET x = k.x + excluded.x", ()),  # 22003
    ("INSERT INTO k VALUES (1, 'x', 5) ON CONFLICT (a, b) DO UPDATE SET x = k.x + excluded.x", ()),
    ("INSERT INTO k VALUES (1, 'y', 5) ON CONFLICT (a, b) DO UPDATE SET x = 1 WHERE k.x > 100", ()),
    ("SELECT * FROM t ORDER BY id", ()),
    ("SELECT * FROM k ORDER BY a, b", ()),
]


# a table in a Parquet file (too big to travel inline): a point UPDATE reads its old row from
# the file's cached columns (DataFileStore.row) - NumPy views for numbers, Arrow for the rest
PARQUET_UPDATES = [
    ("CREATE TABLE p (id INT PRIMARY KEY, b BIGINT, v VARCHAR, d DOUBLE, f BOOLEAN, ts TIMESTAMP, "
     "n NUMERIC(10,2), dt DATE, r REAL, sm SMALLINT)", ()),
    ("INSERT INTO p SELECT i, CASE WHEN i % 3 = 0 THEN NULL ELSE i * 10 END, 'v' || i, i / 4, i % 2 = 0, "
     "TIMESTAMP '2020-01-01' + INTERVAL (i) HOUR, i / 8, DATE '2020-01-01' + CAST(i AS INT), i / 2, i % 300 "
     "FROM range(2000) r(i)", ()),
    ("UPDATE p SET b = b + ? WHERE id = ?", (1, 7)),
    ("UPDATE p SET d = d + 1 WHERE id = 1999 RETURNING *", ()),
    ("UPDATE p SET b = b + 1 WHERE id = 3 RETURNING *", ()),  # NULL stays NULL
    ("UPDATE p SET sm = sm + 1, v = ? WHERE id = 42 RETURNING *", ("x",)),
    ("UPDATE p SET b = b + 1 WHERE id = 7 RETURNING *", ()),  # now from the row it wrote
    ("SELECT * FROM p WHERE id IN (3, 7, 42, 1000, 1999) ORDER BY id", ()),
]


# point statements through a UNIQUE constraint's, a unique index's or an index's columns
INDEXED = [
    ("CREATE TABLE u (id INT PRIMARY KEY, email VARCHAR UNIQUE, c INT, d INT, x DOUBLE, tag VARCHAR)", ()),
    ("CREATE UNIQUE INDEX u_cd ON u (c, d)", ()),
    ("CREATE INDEX u_tag ON u (tag)", ()),
    ("INSERT INTO u SELECT i, 'e' || i, i % 10, i / 10, i / 4, 't' || (i % 3) FROM range(300) r(i)", ()),
    ("INSERT INTO u VALUES (1000, NULL, NULL, NULL, NULL, NULL)", ()),
    ("SELECT * FROM u WHERE email = ?", ("e7",)),
    ("SELECT id, x FROM u WHERE email = 'e8'", ()),
    ("SELECT id FROM u WHERE email = ?", ("none",)),
    ("SELECT id FROM u WHERE email = ?", (None,)),
    ("SELECT id FROM u WHERE email = ?", (5,)),  # another type: DuckDB casts
    ("SELECT d, id FROM u WHERE d = ? AND c = ?", (3, 4)),
    ("SELECT id FROM u WHERE tag = 't1' AND id = 4", ()),  # not an index's columns
    ("SELECT id, tag FROM u WHERE tag = ?", ("t2",)),  # many rows
    ("UPDATE u SET x = x + ? WHERE email = ?", (1, "e9")),
    ("UPDATE u SET tag = ? WHERE email = ? RETURNING id, tag", ("moved", "e10")),
    ("UPDATE u SET email = ? WHERE email = ?", ("e12", "e11")),  # 23505
    ("UPDATE u SET email = ? WHERE email = ? RETURNING *", ("new", "e11")),
    ("UPDATE u SET d = d + 1 WHERE c = ? AND d = ?", (5, 2)),  # 23505: (5, 3) is taken
    ("UPDATE u SET d = d + 100 WHERE c = ? AND d = ?", (5, 2)),
    ("UPDATE u SET c = 0 WHERE email = ?", ("nope",)),
    ("UPDATE u SET id = id + 5000 WHERE email = ?", ("e13",)),
    ("UPDATE u SET x = 0 WHERE tag = ?", ("t0",)),  # many rows: the general path
    ("UPDATE u SET x = -1 WHERE tag = ?", ("moved",)),  # one row, through a plain index
    ("SELECT * FROM u WHERE email IN ('e9', 'e10', 'new', 'e13') OR id > 999 OR c = 5 ORDER BY id", ()),
    ("SELECT * FROM u WHERE tag = 'moved'", ()),
]


# IN lists and = ANY(?) of a key, and ORDER BY over a key's rows, sorted in Python
ORDERED = [
    ("CREATE TABLE o (id INT PRIMARY KEY, g INT, s VARCHAR, n NUMERIC(6,2), b BOOLEAN, dt DATE, ts TIMESTAMP, "
     "x DOUBLE, u UUID UNIQUE, big BIGINT)", ()),
    ("CREATE INDEX o_g ON o (g)", ()),
    ("INSERT INTO o SELECT i, i % 4, CASE i % 5 WHEN 0 THEN 'Zed' WHEN 1 THEN 'apple' WHEN 2 THEN 'été' "
     "WHEN 3 THEN NULL ELSE 'Apple' END || i, CASE WHEN i % 7 = 0 THEN NULL ELSE i * 1.25 END, i % 3 = 0, "
     "DATE '2024-01-01' + CAST(i AS INT), TIMESTAMP '2024-01-01 00:00:00' + i * INTERVAL '1 hour', i / 3, "
     "CAST('00000000-0000-0000-0000-' || lpad(CAST(i AS VARCHAR), 12, '0') AS UUID), i * 1000000000000 "
     "FROM range(200) r(i)", ()),
    ("SELECT * FROM o WHERE id IN (5, 3, 150, 999)", ()),
    ("SELECT id, s FROM o WHERE id IN (?, ?, ?, NULL)", (7, 2, 7)),
    ("SELECT id FROM o WHERE id = ANY(?)", ([9, 1, None, 4],)),
    ("SELECT id FROM o WHERE id = ANY(?) ORDER BY id DESC", ([9, 1, 4],)),
    ("SELECT id FROM o WHERE id IN (?, ?)", ("1", 2)),  # text for an int: DuckDB casts
    ("SELECT id FROM o WHERE id IN (1, 2.5)", ()),
    ("SELECT id, u FROM o WHERE u IN (?, ?)", ("00000000-0000-0000-0000-000000000011",
                                           "00000000-0000-0000-0000-000000000012")),
    # (rows of one file until here: DuckDB reads several files' rows in no order)
    ("UPDATE o SET s = NULL WHERE id IN (4, 8)", ()),
    ("SELECT id FROM o WHERE id IN (7, 3) ORDER BY x", ()),  # DOUBLE: DuckDB sorts (x: 2 and 1, no tie)
    ("SELECT id FROM o WHERE big IN (1000000000000, 4000000000000) ORDER BY id", ()),  # not a key
    ("SELECT id, s FROM o WHERE g = ? ORDER BY s, id", (1,)),  # NULLs last, code point order
    ("SELECT id, s FROM o WHERE g = ? ORDER BY s DESC, id DESC", (1,)),
    ("SELECT id, n FROM o WHERE g = 2 ORDER BY n NULLS FIRST, id DESC", ()),
    ("SELECT id, n FROM o WHERE g = 2 ORDER BY n DESC NULLS LAST, id LIMIT 5", ()),
    ("SELECT id, b, dt FROM o WHERE g = ? ORDER BY b, dt DESC LIMIT ?", (3, 7)),
    ("SELECT o.id, o.ts FROM o WHERE o.g = 0 ORDER BY o.ts DESC", ()),
    ("SELECT id FROM o WHERE id IN (10, 20, 30) ORDER BY g, id", ()),
    ("SELECT id FROM o WHERE g = 1 ORDER BY missing", ()),  # 42703
    ("SELECT id FROM o WHERE g = 1 ORDER BY S, ID", ()),  # folded to s, id
    ("DELETE FROM o WHERE id > 100", ()),
    ("INSERT INTO o (id, g, s) VALUES (500, 1, 'new'), (501, 1, NULL)", ()),
    ("SELECT id, s FROM o WHERE g = 1 ORDER BY s NULLS FIRST, id", ()),  # 27 rows
    ("SELECT id FROM o WHERE g = 1 ORDER BY id", ()),
]


# UPDATE / DELETE of several rows an index gives: found (and SET computed) in Python
MANY = [
    ("CREATE TABLE m (id INT PRIMARY KEY, tag VARCHAR(6), c INT, x DOUBLE, email VARCHAR UNIQUE, sm SMALLINT)", ()),
    ("CREATE INDEX m_tag ON m (tag)", ()),
    ("INSERT INTO m SELECT i, 't' || (i % 5), i % 3, i / 2, 'e' || i, i FROM range(60) r(i)", ()),
    ("CREATE TABLE nk (a INT, b VARCHAR)", ()),
    ("CREATE INDEX nk_a ON nk (a)", ()),
    ("INSERT INTO nk SELECT i % 4, 'b' || i FROM range(20) r(i)", ()),
    ("UPDATE m SET c = c + 1 WHERE tag = ?", ("t1",)),
    ("UPDATE m SET c = ?, x = x WHERE tag = 't2' RETURNING id, c, x", (7,)),
    ("UPDATE m SET tag = ? WHERE tag = ? AND c = ? RETURNING *", ("moved", "t3", 0)),
    ("UPDATE m SET tag = ? WHERE tag = ?", ("toolong", "t4")),  # 22001
    ("UPDATE m SET sm = sm + 32760 WHERE tag = ?", ("t4",)),  # 22003 (from DuckDB)
    ("UPDATE m SET c = NULL WHERE tag = ? RETURNING id", ("t0",)),
    ("UPDATE m SET email = ? WHERE tag = ?", ("same", "t1")),  # 23505
    ("UPDATE m SET c = c + 1 WHERE tag = ? AND x = ?", ("t1", 3.0)),  # DOUBLE: DuckDB
    ("UPDATE m SET c = 5 WHERE tag = ? AND c = ?", ("t1", "2")),  # text for an int: DuckDB casts
    ("UPDATE m SET c = 9 WHERE tag = ? AND tag = ?", ("t1", "t2")),
    ("UPDATE nk SET b = b WHERE a = ? RETURNING *", (1,)),
    ("DELETE FROM m WHERE tag = ? RETURNING id, tag", ("moved",)),
    ("DELETE FROM m WHERE tag = ? AND c = ?", ("t2", 7)),
    ("DELETE FROM nk WHERE a = ?", (2,)),
    ("SELECT * FROM m ORDER BY id", ()),
    ("SELECT * FROM nk ORDER BY a, b", ()),
]


# two tables joined ON one equality, one pinned by a key: a nested loop over their indexes
JOINS = [
    ("CREATE TABLE p (id INT PRIMARY KEY, name VARCHAR UNIQUE, code BIGINT, n NUMERIC(6,2))", ()),
    ("CREATE TABLE c (id BIGINT PRIMARY KEY, p_id BIGINT, p_code BIGINT, p_name VARCHAR, v VARCHAR, x DOUBLE)", ()),
    ("CREATE INDEX c_p ON c (p_id)", ()),
    ("CREATE UNIQUE INDEX p_code ON p (code)", ()),
    ("INSERT INTO p SELECT i, 'p' || i, i * 10, i / 4 FROM range(20) r(i)", ()),
    ("INSERT INTO c SELECT i, CASE WHEN i % 9 = 0 THEN NULL ELSE i % 20 END, (i % 20) * 10, 'p' || (i % 20), "
     "'v' || i, i / 3 FROM range(100) r(i)", ()),
    ("INSERT INTO c VALUES (1000, 3000000000, NULL, NULL, 'far', 0)", ()),  # (a p_id no INT holds)
    ("SELECT c.v, p.name FROM c JOIN p ON p.id = c.p_id WHERE c.id = ?", (5,)),  # an ORM's select_related
    ("SELECT * FROM c JOIN p ON c.p_id = p.id WHERE c.id = 7", ()),
    ("SELECT c.v, p.name FROM c JOIN p ON p.id = c.p_id WHERE c.id = ?", (9,)),  # NULL p_id: no row
    ("SELECT c.v, p.name FROM c JOIN p ON p.id = c.p_id WHERE c.id = ?", (12345,)),
    ("SELECT c.v FROM c INNER JOIN p ON p.id = c.p_id WHERE c.id = ?", (1000,)),  # no parent, no error
    ("SELECT pp.name, cc.v, cc.id FROM p AS pp JOIN c cc ON cc.p_id = pp.id WHERE pp.id = ?", (3,)),  # children
    ("SELECT p.n, c.id FROM p JOIN c ON c.p_id = p.id WHERE p.name = ?", ("p4",)),  # by a UNIQUE column
    ("SELECT c.id, p.id FROM c JOIN p ON p.code = c.p_code WHERE c.id IN (?, ?, ?)", (1, 2, 60)),
    ("SELECT c.id, p.id FROM c JOIN p ON p.code = c.p_code WHERE c.id = ANY(?)", ([4, 44, None],)),
    ("SELECT c.id, p.id FROM c JOIN p ON p.name = c.p_name WHERE c.id = ?", (8,)),  # by a text key
    ("SELECT c.id, p.id FROM c JOIN p ON p.id = c.p_id WHERE c.id = ? AND c.v = ?", (8, "v8")),  # not a key alone
    ("SELECT c.id, p.id FROM c JOIN p ON p.id = c.p_id WHERE c.id = ? AND p.id = ?", (8, 8)),
    ("SELECT c.id, p.id FROM c LEFT JOIN p ON p.id = c.p_id WHERE c.id = ?", (9,)),  # an outer join: DuckDB
    ("SELECT c.id, p.id FROM c JOIN p ON p.id = c.x WHERE c.id = ?", (9,)),  # DOUBLE = INT: DuckDB
    ("SELECT c.id, p.id FROM c JOIN p ON p.id = c.p_id WHERE c.id = ?", ("8",)),  # text for bigint: DuckDB casts
    ("SELECT c.id, p.nope FROM c JOIN p ON p.id = c.p_id WHERE c.id = 8", ()),  # 42703
    ("SELECT c.id, p.id FROM c JOIN p ON p.id = c.p_id WHERE c.id = 8 AND c.id = 9", ()),
    ("UPDATE p SET name = 'moved' WHERE id = 3", ()),
    ("DELETE FROM c WHERE id = 23", ()),
    ("SELECT c.id, p.name FROM p JOIN c ON c.p_id = p.id WHERE p.id = 3", ()),  # the new version, one fewer
]


DELETES = [
    ("DELETE FROM t WHERE id = ?", (1,)),
    ("DELETE FROM t WHERE id = ? RETURNING *", (2,)),
    ("DELETE FROM t WHERE id = ? RETURNING v, id * 2 AS twice", (2,)),  # gone already
    ("DELETE FROM t WHERE id = ?", ("3",)),  # text for an int: DuckDB casts
    ("DELETE FROM t WHERE id = 1.0", ()),
    ("DELETE FROM k WHERE a = ? AND b = ? RETURNING x", (1, "y")),
    ("DELETE FROM k WHERE b = 'x'", ()),  # not the whole key
    ("CREATE TABLE u (id INT PRIMARY KEY, email VARCHAR UNIQUE, tag VARCHAR)", ()),
    ("CREATE INDEX u_tag ON u (tag)", ()),
    ("INSERT INTO u SELECT i, 'e' || i, 't' || (i % 3) FROM range(30) r(i)", ()),
    ("INSERT INTO u VALUES (100, 'one', 'lonely')", ()),
    ("DELETE FROM u WHERE email = ? RETURNING id", ("e4",)),
    ("DELETE FROM u WHERE email = ?", ("nope",)),
    ("DELETE FROM u WHERE tag = ? RETURNING *", ("lonely",)),
    ("DELETE FROM u WHERE tag = ?", ("t1",)),  # many rows: the general path
    ("CREATE TABLE nokey (a INT, b INT)", ()),
    ("INSERT INTO nokey VALUES (1, 1), (1, 2)", ()),
    ("DELETE FROM nokey WHERE a = 1", ()),
    ("SELECT * FROM t ORDER BY id", ()),
    ("SELECT * FROM k ORDER BY a, b", ()),
    ("SELECT * FROM u ORDER BY id", ()),
    ("SELECT * FROM nokey", ()),
]


@pytest.mark.parametrize("script", [QUERIES, UPDATES, INSERTS, TYPED_INSERTS, UPSERTS, PARQUET_UPDATES, INDEXED,
                                    ORDERED, JOINS, MANY, DELETES],
                         ids=["select", "update", "insert", "typed-insert", "upsert", "update-parquet", "indexed",
                              "ordered", "joins", "many", "delete"])
def test_same_results_as_general_path(tmp_path, monkeypatch, script):
    fast = run_script(tmp_path / "fast", SETUP + script)
    with monkeypatch.context() as m:
        general_path(m)
        general = run_script(tmp_path / "general", SETUP + script)
    for (sql, params), a, b in zip(SETUP + script, fast, general):
        if (script is JOINS or script is MANY) and len(a) == 3:  # (a join's, RETURNING's rows come in no order)
            a, b = (x[:2] + (sorted(x[2], key=repr),) for x in (a, b))
        assert a == b, (sql, params)


def duckdb_calls(conn, monkeypatch) -> list:
    """The SQL the connection's session will send DuckDB from now on, as it is sent."""
    executor = conn.session.executor
    calls = []
    real = executor._sql
    monkeypatch.setattr(executor, "_sql", lambda *a, **k: calls.append(a) or real(*a, **k))
    executor._time_zone()  # (the session's first statement sets its time zone up)
    calls.clear()
    return calls


def test_fast_paths_are_taken(tmp_path, monkeypatch):
    """The benchmark statements do not reach DuckDB at all."""
    conn = txlake.connect(str(tmp_path / "w"), autocommit=True, publish="off")
    cur = conn.cursor()
    cur.execute("CREATE TABLE a (aid INT PRIMARY KEY, abalance INT)")
    cur.execute("CREATE TABLE h (aid INT, delta INT, mtime TIMESTAMP)")
    cur.execute("INSERT INTO a SELECT range, 0 FROM range(100)")
    calls = duckdb_calls(conn, monkeypatch)
    cur.execute("UPDATE a SET abalance = abalance + ? WHERE aid = ?", (5, 7))
    cur.execute("SELECT abalance FROM a WHERE aid = ?", (7,))
    assert cur.fetchall() == [(5,)]
    cur.execute("INSERT INTO h (aid, delta, mtime) VALUES (?, ?, CURRENT_TIMESTAMP)", (7, 5))
    cur.execute("INSERT INTO a VALUES (?, ?) ON CONFLICT (aid) DO UPDATE SET abalance = a.abalance + excluded.abalance",
                (7, 3))
    assert calls == []
    assert cur.execute("SELECT abalance FROM a WHERE aid = 7").fetchall() == [(8,)]
    cur.execute("SELECT typeof(mtime), abs(epoch(CAST(CURRENT_TIMESTAMP AS TIMESTAMP)) - epoch(mtime)) < 60 FROM h")
    assert cur.fetchall() == [("TIMESTAMP", True)]  # DuckDB's wall clock, in its time zone
    conn.close()


def test_inserts_of_numbers_dates_and_times_skip_duckdb(tmp_path, monkeypatch):
    """An INSERT of NUMERIC, DOUBLE, DATE, TIMESTAMP and BOOLEAN values - constants as a SQL
    dump writes them, or an application's Decimal / date / datetime parameters - builds its
    rows in Python, as one of integers and text does."""
    conn = txlake.connect(str(tmp_path / "w"), autocommit=True, publish="off")
    cur = conn.cursor()
    cur.execute("CREATE TABLE o (id INT PRIMARY KEY, price NUMERIC(10,2), qty DOUBLE, due DATE, at TIMESTAMP, "
                "paid BOOLEAN, total NUMERIC)")
    calls = duckdb_calls(conn, monkeypatch)
    cur.execute("INSERT INTO o VALUES (1, 19.995, 2.5, '2024-05-01', '2024-05-01 10:00:00', true, -1e3)")
    cur.execute("INSERT INTO o VALUES (?, ?, ?, ?, ?, ?, ?)",
                (2, Decimal("5.5"), 3, datetime.date(2024, 5, 2), datetime.datetime(2024, 5, 2, 9, 30), False, 7))
    assert calls == []
    assert cur.execute("SELECT * FROM o ORDER BY id").fetchall() == [
        (1, Decimal("20.00"), 2.5, datetime.date(2024, 5, 1), datetime.datetime(2024, 5, 1, 10), True,
         Decimal("-1000.000000000")),
        (2, Decimal("5.50"), 3.0, datetime.date(2024, 5, 2), datetime.datetime(2024, 5, 2, 9, 30), False,
         Decimal("7.000000000"))]
    conn.close()


def test_index_point_statements_skip_duckdb(tmp_path, monkeypatch):
    """A SELECT, UPDATE and DELETE whose WHERE pins the primary key, a UNIQUE column or an
    index's columns do not reach DuckDB either, nor does RETURNING of plain columns."""
    conn = txlake.connect(str(tmp_path / "w"), autocommit=True, publish="off")
    cur = conn.cursor()
    cur.execute("CREATE TABLE u (id INT PRIMARY KEY, email VARCHAR UNIQUE, n INT)")
    cur.execute("CREATE INDEX ON u (n)")
    cur.execute("INSERT INTO u SELECT range, 'e' || range, range FROM range(100)")
    calls = duckdb_calls(conn, monkeypatch)
    cur.execute("UPDATE u SET n = n + ? WHERE email = ?", (1000, "e7"))
    assert cur.execute("SELECT id, n FROM u WHERE email = ?", ("e7",)).fetchall() == [(7, 1007)]
    assert cur.execute("SELECT id, email FROM u WHERE n = ?", (1007,)).fetchall() == [(7, "e7")]
    assert cur.execute("SELECT * FROM u WHERE u.id = ? LIMIT 21", (7,)).fetchall() == [(7, "e7", 1007)]
    cur.execute("UPDATE u SET email = ? WHERE n = ?", ("x", 1007))
    cur.execute("DELETE FROM u WHERE id = ?", (8,))
    cur.execute("DELETE FROM u WHERE email = ? RETURNING id", ("e9",))
    assert cur.fetchall() == [(9,)]
    cur.execute("INSERT INTO u (id, email, n) VALUES (?, ?, ?) RETURNING id, n", (500, "new", 5))  # an ORM's
    assert cur.fetchall() == [(500, 5)]
    cur.execute("UPDATE u SET n = n + 1 WHERE id = ? RETURNING *", (500,))
    assert cur.fetchall() == [(500, "new", 6)]
    assert cur.execute("SELECT id FROM u WHERE id IN (?, ?, ?)", (3, 1, 2)).fetchall() == [(1,), (2,), (3,)]
    assert cur.execute("SELECT id FROM u WHERE email = ANY(?) ORDER BY id DESC", (["e1", "e2"],)).fetchall() \
        == [(2,), (1,)]
    assert cur.execute("SELECT id, email FROM u WHERE n = ? ORDER BY email LIMIT 1", (3,)).fetchall() == [(3, "e3")]
    cur.execute("UPDATE u SET n = 3 WHERE id IN (4, 5)")
    calls.clear()
    assert cur.execute("UPDATE u SET n = n + ? WHERE n = ?", (100, 3)).rowcount == 3  # (rows by an index)
    assert cur.execute("DELETE FROM u WHERE n = ? RETURNING id", (103,)).fetchall() == [(3,), (4,), (5,)]
    assert calls == []
    assert cur.execute("SELECT email FROM u WHERE id = 7").fetchall() == [("x",)]
    conn.close()


def test_a_join_by_keys_skips_duckdb_and_explain_says_so(tmp_path, monkeypatch):
    """An ORM's select_related (a child by its key, joined to its parent by the parent's key)
    and a parent's children through an index are nested loops over txlake's indexes."""
    conn = txlake.connect(str(tmp_path / "w"), autocommit=True, publish="off")
    cur = conn.cursor()
    cur.execute("CREATE TABLE p (id INT PRIMARY KEY, name VARCHAR)")
    cur.execute("CREATE TABLE c (id INT PRIMARY KEY, p_id INT, v VARCHAR)")
    cur.execute("CREATE INDEX c_p ON c (p_id)")
    cur.execute("INSERT INTO p SELECT range, 'p' || range FROM range(10)")
    cur.execute("INSERT INTO c SELECT range, range % 10, 'v' || range FROM range(100)")
    calls = duckdb_calls(conn, monkeypatch)
    assert cur.execute("SELECT c.v, p.name FROM c JOIN p ON p.id = c.p_id WHERE c.id = ?", (42,)).fetchall() == \
        [("v42", "p2")]
    assert sorted(cur.execute("SELECT c.id FROM p JOIN c ON c.p_id = p.id WHERE p.id = ?", (3,)).fetchall()) == \
        [(i,) for i in range(3, 100, 10)]
    plan = [line for (line,) in cur.execute(
        "EXPLAIN SELECT c.v, p.name FROM c JOIN p ON p.id = c.p_id WHERE c.id = ?", (42,)).fetchall()]
    assert plan == ["Nested Loop (txlake's indexes; DuckDB is not used)", "  -> Primary key lookup on c",
                    "       Key: (id) = (42)", "  -> Index lookup using p_pkey on p", "       Key: (id) = c.p_id"]
    assert calls == []
    # (EXPLAIN says what runs: a sort DuckDB must make, a join of more rows than a nested loop takes)
    cur.execute("ALTER TABLE c ADD COLUMN x DOUBLE")
    for sql in ["EXPLAIN SELECT id FROM c WHERE id IN (1, 2) ORDER BY x",
                "EXPLAIN SELECT p.id, c.id FROM p JOIN c ON c.p_id = p.id WHERE p.id IN (1, 2, 3, 4, 5, 6, 7)"]:
        assert "DuckDB is not used" not in cur.execute(sql).fetchall()[0][0], sql
    conn.close()


def after_waiting(first, second, sql: str) -> dict:
    """Run ``sql`` in ``second`` (and commit it) in a thread, which must wait for ``first``'s
    open transaction; commit that: {"status": its status} or {"error": its SQLSTATE}."""
    outcome = {}

    def run():
        cur = second.cursor()
        try:
            cur.execute(sql)
            outcome["status"] = cur.statusmessage
            second.commit()
        except txlake.Error as e:
            outcome["error"] = e.sqlstate
            second.rollback()

    t = threading.Thread(target=run)
    t.start()
    t.join(0.3)
    waited = t.is_alive()
    first.commit()
    t.join(10)
    assert waited and not t.is_alive()  # it waited for the first writer's row lock, then went on
    return outcome


@pytest.mark.parametrize("level", ["READ COMMITTED", "REPEATABLE READ"])
def test_concurrent_updates_through_a_unique_column_recheck(tmp_path, mode, level):
    """An UPDATE that found its row by a UNIQUE column waits for the row's writer, then - at
    READ COMMITTED - goes on from the newest row if it still matches, and skips it if its
    value moved away; REPEATABLE READ fails (40001)."""
    path = str(tmp_path / "w")
    setup = txlake.connect(path, autocommit=True, publish="off")
    setup.execute("CREATE TABLE u (id INT PRIMARY KEY, email VARCHAR UNIQUE, n INT)")
    setup.execute("INSERT INTO u VALUES (1, 'a', 0), (2, 'b', 0)")
    for first_sql, second_sql, expect in [
            ("UPDATE u SET n = n + 1 WHERE id = 1", "UPDATE u SET n = n + 10 WHERE email = 'a'", (1, 11)),
            ("UPDATE u SET email = 'moved' WHERE id = 2", "UPDATE u SET n = n + 10 WHERE email = 'b'", (0, 0))]:
        first = txlake.connect(path, isolation_level=level, publish="off")
        second = txlake.connect(path, isolation_level=level, publish="off")
        s = second.cursor()
        s.execute("SELECT count(*) FROM u")  # takes the snapshot
        first.cursor().execute(first_sql)
        outcome = after_waiting(first, second, second_sql)
        key = "a" if "'a'" in second_sql else "moved"
        final = setup.execute("SELECT n FROM u WHERE email = ?", (key,)).fetchall()
        if level == "READ COMMITTED":
            assert outcome == {"status": f"UPDATE {1 if expect[1] else 0}"} and final == [(expect[1] or expect[0],)]
        else:
            assert outcome == {"error": "40001"}
        setup.execute("UPDATE u SET n = 0, email = CASE id WHEN 1 THEN 'a' ELSE 'b' END")
        first.close()
        second.close()
    setup.close()


@pytest.mark.parametrize("level", ["READ COMMITTED", "REPEATABLE READ"])
def test_an_update_of_rows_an_index_gives_waits_and_rechecks(tmp_path, mode, level):
    """An UPDATE of several rows an index gives waits for a writer of one, then - at READ
    COMMITTED - re-checks that row's newest version (found in Python on the fast path): one
    whose indexed value moved away is skipped, the others are updated; REPEATABLE READ fails."""
    path = str(tmp_path / "w")
    setup = txlake.connect(path, autocommit=True, publish="off")
    setup.execute("CREATE TABLE m (id INT PRIMARY KEY, tag VARCHAR, n INT)")
    setup.execute("CREATE INDEX ON m (tag)")
    setup.execute("INSERT INTO m SELECT i, 't' || (i % 3), 0 FROM range(12) r(i)")
    first = txlake.connect(path, isolation_level=level, publish="off")
    second = txlake.connect(path, isolation_level=level, publish="off")
    try:
        second.cursor().execute("SELECT count(*) FROM m")  # takes the snapshot
        first.cursor().execute("UPDATE m SET tag = 'away', n = 5 WHERE id = 4")
        first.cursor().execute("UPDATE m SET n = 1 WHERE id = 7")
        outcome = after_waiting(first, second, "UPDATE m SET n = n + 10 WHERE tag = 't1'")
        rows = setup.execute("SELECT id, tag, n FROM m WHERE id % 3 = 1 ORDER BY id").fetchall()
        if level == "READ COMMITTED":
            assert outcome == {"status": "UPDATE 3"}
            assert rows == [(1, "t1", 10), (4, "away", 5), (7, "t1", 11), (10, "t1", 10)]
        else:
            assert outcome == {"error": "40001"}
            assert rows == [(1, "t1", 0), (4, "away", 5), (7, "t1", 1), (10, "t1", 0)]
    finally:
        first.close()
        second.close()
        setup.close()


def test_point_writes_stay_python_values_until_read_as_a_table(tmp_path):
    """A point UPDATE's and an INSERT ... VALUES' rows are held as Python values through the
    transaction, its commit and the next point UPDATE of the same row: none of them builds an
    Arrow table (keys are checked and locked on the values too). Reading the table builds
    it, and reads what the statements wrote; a transaction's rows of one table become one
    file, still Python values."""
    conn = txlake.connect(str(tmp_path / "w"), autocommit=False, publish="off")
    cur = conn.cursor()
    cur.execute("CREATE TABLE b (bid INT PRIMARY KEY, bbalance INT, note VARCHAR(5) NOT NULL)")
    cur.execute("CREATE TABLE h (bid INT, delta INT, mtime TIMESTAMP)")
    cur.execute("INSERT INTO b VALUES (1, 0, 'a')")
    conn.commit()
    for delta in (5, 7):
        cur.execute("UPDATE b SET bbalance = bbalance + ? WHERE bid = ?", (delta, 1))
        cur.execute("INSERT INTO h VALUES (?, ?, CURRENT_TIMESTAMP)", (1, delta))
        conn.commit()
        cur.execute("INSERT INTO b VALUES (?, ?, ?)", (delta, delta, "new"))
        conn.commit()
    latest = conn.session.db.warehouse.latest
    held = [f.python_rows() for name in ("b", "h") for f in latest.table("default", name).files]
    assert len(held) == 5 and all(rows is not None and rows._table is None for rows in held)
    cur.execute("UPDATE b SET bbalance = bbalance + 1 WHERE bid = 1")
    cur.execute("INSERT INTO b VALUES (9, 9, 'x')")
    cur.execute("SELECT * FROM b ORDER BY bid")
    assert cur.fetchall() == [(1, 13, "a"), (5, 5, "new"), (7, 7, "new"), (9, 9, "x")]
    conn.commit()
    assert len(conn.session.db.warehouse.latest.table("default", "b").files) == 3
    with pytest.raises(txlake.errors.StringDataRightTruncation):  # checked on the Python values
        cur.execute("UPDATE b SET note = ? WHERE bid = ?", ("toolong", 1))
    conn.rollback()
    with pytest.raises(txlake.errors.UniqueViolation):
        cur.execute("INSERT INTO b VALUES (9, 0, 'dup')")
    conn.close()


def test_keys_are_checked_against_newer_commits_on_python_values(tmp_path):
    """Another session committed to the table since this transaction's snapshot, so the
    commit checks the keys it wrote against the rows committed meanwhile: from the Python
    values, building no Arrow table."""
    path = str(tmp_path / "w")
    first = txlake.connect(path, isolation_level="REPEATABLE READ", publish="off")
    second = txlake.connect(path, autocommit=True, publish="off")
    second.execute("CREATE TABLE t (id INT PRIMARY KEY, v INT)")
    second.execute("INSERT INTO t VALUES (1, 0)")
    cur = first.cursor()
    cur.execute("UPDATE t SET v = v + ? WHERE id = ?", (1, 1))
    cur.execute("INSERT INTO t VALUES (?, ?)", (2, 2))
    second.execute("INSERT INTO t VALUES (?, ?)", (3, 3))
    first.commit()
    files = first.session.db.warehouse.latest.table("default", "t").files
    mine = [f.python_rows() for f in files if f.python_rows() is not None and 2 in f.python_rows().columns[0]]
    assert len(mine) == 1 and mine[0]._table is None
    assert second.execute("SELECT * FROM t ORDER BY id").fetchall() == [(1, 1), (2, 2), (3, 3)]
    first.close()
    second.close()

def test_transaction_sees_own_writes_and_its_snapshot(tmp_path, mode):
    path = str(tmp_path / "w")
    setup = txlake.connect(path, autocommit=True, publish="off")
    setup.execute("CREATE TABLE a (aid INT PRIMARY KEY, abalance INT)")
    setup.execute("INSERT INTO a VALUES (1, 0), (2, 0)")
    reader = txlake.connect(path, isolation_level="REPEATABLE READ", publish="off")
    writer = txlake.connect(path, isolation_level="REPEATABLE READ", publish="off")
    r, w = reader.cursor(), writer.cursor()
    r.execute("SELECT abalance FROM a WHERE aid = ?", (1,))
    assert r.fetchall() == [(0,)]
    w.execute("UPDATE a SET abalance = abalance + ? WHERE aid = ?", (10, 1))
    w.execute("SELECT abalance FROM a WHERE aid = ?", (1,))
    assert w.fetchall() == [(10,)]  # its own write
    w.execute("INSERT INTO a VALUES (?, ?)", (3, 3))
    w.execute("SELECT abalance FROM a WHERE aid = 3")
    assert w.fetchall() == [(3,)]
    r.execute("SELECT abalance FROM a WHERE aid = ?", (1,))
    assert r.fetchall() == [(0,)]  # uncommitted: invisible
    writer.commit()
    r.execute("SELECT abalance FROM a WHERE aid = ?", (1,))
    assert r.fetchall() == [(0,)]  # REPEATABLE READ keeps its snapshot
    r.execute("SELECT abalance FROM a WHERE aid = 3")
    assert r.fetchall() == []
    reader.commit()
    r.execute("SELECT abalance FROM a WHERE aid = ?", (1,))
    assert r.fetchall() == [(10,)]
    for c in (reader, writer, setup):
        c.close()


@pytest.mark.parametrize("level", ["READ COMMITTED", "REPEATABLE READ", "SERIALIZABLE"])
def test_concurrent_point_updates_lock_and_recheck(tmp_path, mode, level):
    path = str(tmp_path / "w")
    setup = txlake.connect(path, autocommit=True, publish="off")
    setup.execute("CREATE TABLE a (aid INT PRIMARY KEY, abalance INT)")
    setup.execute("INSERT INTO a VALUES (1, 0)")
    first = txlake.connect(path, isolation_level=level, publish="off")
    second = txlake.connect(path, isolation_level=level, publish="off")
    f, s = first.cursor(), second.cursor()
    s.execute("SELECT abalance FROM a WHERE aid = 1")  # takes the snapshot
    f.execute("UPDATE a SET abalance = abalance + ? WHERE aid = ?", (1, 1))
    outcome = {}

    def update_second():
        try:
            s.execute("UPDATE a SET abalance = abalance + ? WHERE aid = ?", (10, 1))
            second.commit()
            outcome["ok"] = True
        except txlake.Error as e:
            outcome["error"] = e.sqlstate
            second.rollback()

    t = threading.Thread(target=update_second)
    t.start()
    t.join(0.3)
    assert t.is_alive()  # waits for the first updater's row lock
    first.commit()
    t.join(10)
    assert not t.is_alive()
    final = setup.execute("SELECT abalance FROM a WHERE aid = 1").fetchall()
    if level == "READ COMMITTED":
        assert outcome == {"ok": True} and final == [(11,)]  # re-checked on the newest row
    else:
        assert outcome == {"error": "40001"} and final == [(1,)]
    for c in (first, second, setup):
        c.close()


def test_lock_timeout_applies(tmp_path, mode):
    path = str(tmp_path / "w")
    setup = txlake.connect(path, autocommit=True, publish="off")
    setup.execute("CREATE TABLE a (aid INT PRIMARY KEY, abalance INT)")
    setup.execute("INSERT INTO a VALUES (1, 0)")
    first = txlake.connect(path, publish="off")
    second = txlake.connect(path, publish="off")
    first.cursor().execute("UPDATE a SET abalance = 1 WHERE aid = 1")
    cur = second.cursor()
    cur.execute("SET lock_timeout = '100ms'")
    with pytest.raises(txlake.Error) as info:
        cur.execute("UPDATE a SET abalance = 2 WHERE aid = ?", (1,))
    assert info.value.sqlstate == "55P03"
    with pytest.raises(txlake.Error) as info:
        cur.execute("SELECT abalance FROM a WHERE aid = 1")
    assert info.value.sqlstate == "25P02"  # the failed block, as on the general path
    for c in (first, second, setup):
        c.rollback()
        c.close()


@pytest.mark.parametrize("second_sql, status, final", [
    ("UPDATE u SET n = n + 10 WHERE email = 'a' RETURNING id, n", "UPDATE 1", [(2, "b", 0), (100, "a", 10)]),
    ("DELETE FROM u WHERE email = 'a' RETURNING id", "DELETE 1", [(2, "b", 0)]),
    ("DELETE FROM u WHERE n = 0 AND email = 'a'", "DELETE 1", [(2, "b", 0)])])
def test_a_row_found_by_a_unique_column_is_followed_when_its_key_changed(tmp_path, mode, second_sql, status, final):
    """READ COMMITTED: an UPDATE / DELETE that found its row by a UNIQUE column, and waited for
    a writer that changed the row's primary key, goes on from the row's newest version (it
    still matches), as PostgreSQL's re-check follows the row - it was left alone as deleted."""
    path = str(tmp_path / "w")
    setup = txlake.connect(path, autocommit=True, publish="off")
    setup.execute("CREATE TABLE u (id INT PRIMARY KEY, email VARCHAR UNIQUE, n INT)")
    setup.execute("INSERT INTO u VALUES (1, 'a', 0), (2, 'b', 0)")
    first = txlake.connect(path, isolation_level="READ COMMITTED", publish="off")
    second = txlake.connect(path, isolation_level="READ COMMITTED", publish="off")
    first.cursor().execute("UPDATE u SET id = 100 WHERE id = 1")
    assert after_waiting(first, second, second_sql) == {"status": status}
    assert setup.execute("SELECT * FROM u ORDER BY id").fetchall() == final
    for c in (first, second, setup):
        c.close()


def test_enum_keys_and_sorts_are_duckdbs(tmp_path):
    """An enum column sorts by its labels' order and a value not of its labels is 22P02: the
    point paths leave both to DuckDB (a lookup by the text would find nothing, a sort by it
    would be alphabetical)."""
    conn = txlake.connect(str(tmp_path / "w"), autocommit=True, publish="off")
    cur = conn.cursor()
    cur.execute("CREATE TYPE mood AS ENUM ('sad', 'ok', 'happy')")
    cur.execute("CREATE TABLE e (m mood PRIMARY KEY, g INT, n INT)")
    cur.execute("CREATE INDEX ON e (g)")
    cur.execute("INSERT INTO e VALUES ('happy', 1, 1), ('sad', 1, 2), ('ok', 1, 3)")
    assert cur.execute("SELECT m FROM e WHERE g = ? ORDER BY m", (1,)).fetchall() == [("sad",), ("ok",), ("happy",)]
    assert cur.execute("SELECT n FROM e WHERE m IN ('ok', 'happy') ORDER BY n").fetchall() == [(1,), (3,)]
    for sql, params in [("SELECT n FROM e WHERE m = ?", ("zz",)), ("SELECT n FROM e WHERE m IN ('ok', 'zz')", ()),
                        ("UPDATE e SET n = 0 WHERE m = 'zz'", ()), ("DELETE FROM e WHERE m = ?", ("zz",))]:
        with pytest.raises(txlake.Error) as raised:
            cur.execute(sql, params)
        assert raised.value.sqlstate == "22P02", sql
    conn.close()
