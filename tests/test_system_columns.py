"""PostgreSQL's system columns ctid, xmin, xmax and tableoid (PostgreSQL 16's ddl.sgml "System
Columns"), in the idioms applications use them for: the upsert's ``RETURNING (xmax = 0) AS
inserted``, removing duplicate rows by ctid, optimistic concurrency by xmin, tableoid::regclass."""

import pytest

from tests.conftest import fails, rows, value
from txlake.engine import system_columns


@pytest.fixture
def conn(connect):
    return connect(autocommit=True)


@pytest.fixture
def t(conn):
    conn.execute("CREATE TABLE t (id INT PRIMARY KEY, x INT)")
    conn.execute("INSERT INTO t VALUES (1, 10), (2, 10), (3, 20)")
    return conn


def test_upsert_says_which_rows_it_inserted(t):
    got = rows(t, "INSERT INTO t VALUES (3, 30), (4, 40), (1, 11), (5, 50) ON CONFLICT (id) DO UPDATE "
                  "SET x = excluded.x RETURNING id, (xmax = 0) AS inserted")
    assert got == [(3, False), (4, True), (1, False), (5, True)]
    assert rows(t, "SELECT * FROM t ORDER BY id") == [(1, 11), (2, 10), (3, 30), (4, 40), (5, 50)]


def test_upsert_of_rows_that_all_conflict(t):
    """The single-row upsert of a key there is: every row proposed updates one."""
    sql = ("INSERT INTO t VALUES (?, ?) ON CONFLICT (id) DO UPDATE SET x = excluded.x "
           "RETURNING id, (xmax = 0) AS inserted")
    assert rows(t, sql, (1, 5)) == [(1, False)]
    assert rows(t, sql.replace("?, ?", "2, 6")) == [(2, False)]
    assert rows(t, sql, (9, 9)) == [(9, True)]
    assert rows(t, "SELECT * FROM t ORDER BY id") == [(1, 5), (2, 6), (3, 20), (9, 9)]


def test_upsert_xmax_of_updated_rows_is_the_transaction_s(connect):
    conn = connect()
    conn.execute("CREATE TABLE t (id INT PRIMARY KEY, x INT)")
    conn.execute("INSERT INTO t VALUES (1, 10)")
    conn.commit()
    got = rows(conn, "INSERT INTO t VALUES (1, 11), (2, 20) ON CONFLICT (id) DO UPDATE SET x = excluded.x "
                     "RETURNING id, xmin, xmax")
    xid = value(conn, "SELECT txid_current()")
    assert got == [(1, xid, xid), (2, xid, 0)]


def test_dedup_by_ctid_with_using(t):
    t.execute("INSERT INTO t VALUES (4, 20), (5, 20), (6, 30)")
    assert t.execute("DELETE FROM t a USING t b WHERE a.ctid < b.ctid AND a.x = b.x").rowcount == 3
    assert rows(t, "SELECT x, count(*) FROM t GROUP BY x ORDER BY x") == [(10, 1), (20, 1), (30, 1)]
    # the row of the highest ctid of each value stays: the last inserted here
    assert rows(t, "SELECT id FROM t ORDER BY id") == [(2,), (5,), (6,)]


def test_dedup_by_min_ctid(t):
    t.execute("INSERT INTO t VALUES (4, 20), (5, 20), (6, 30)")
    t.execute("DELETE FROM t WHERE ctid NOT IN (SELECT min(ctid) FROM t GROUP BY x)")
    assert rows(t, "SELECT id, x FROM t ORDER BY id") == [(1, 10), (3, 20), (6, 30)]


def test_optimistic_concurrency_by_xmin(connect):
    a, b = connect(), connect()
    a.execute("CREATE TABLE doc (id INT PRIMARY KEY, body TEXT)")
    a.execute("INSERT INTO doc VALUES (1, 'draft')")
    a.commit()
    seen_a = rows(a, "SELECT xmin, * FROM doc WHERE id = 1")[0]
    a.commit()
    seen_b = rows(b, "SELECT xmin, * FROM doc WHERE id = 1")[0]
    b.commit()
    assert seen_a == seen_b and seen_a[1:] == (1, "draft")
    assert a.execute("UPDATE doc SET body = 'A' WHERE id = ? AND xmin = ?", (1, seen_a[0])).rowcount == 1
    a.commit()
    # (a parameter given as text, as drivers send it, compares as PostgreSQL's xid = text does)
    assert b.execute("UPDATE doc SET body = 'B' WHERE id = ? AND xmin = ?", (1, str(seen_b[0]))).rowcount == 0
    b.commit()
    assert rows(b, "SELECT body, xmin::text::bigint <> ? FROM doc", (seen_b[0],)) == [("A", True)]


def test_compaction_keeps_each_row_s_xmin(connect):
    """VACUUM moves rows to new files but, as PostgreSQL's, changes no row's xmin: a check by
    xmin made before another session's update and compaction still fails (0 rows)."""
    a, b = connect(autocommit=True), connect(autocommit=True)
    a.execute("CREATE TABLE acc (id INT PRIMARY KEY, bal INT)")
    for i in range(5):
        a.execute("INSERT INTO acc VALUES (?, ?)", (i, i * 100))
    a.execute("DELETE FROM acc WHERE id = 0")  # (a row left out: the later rows move up)
    before = rows(a, "SELECT id, xmin FROM acc ORDER BY id")
    assert len({x for _, x in before}) == 4 and 2 not in {x for _, x in before}
    a.execute("VACUUM acc")
    assert rows(a, "SELECT id, xmin FROM acc ORDER BY id") == before
    assert rows(a, "DELETE FROM acc WHERE id = 4 RETURNING xmin") == [(before[-1][1],)]
    bal, seen = rows(a, "SELECT bal, xmin FROM acc WHERE id = 1")[0]
    b.execute("UPDATE acc SET bal = bal + 50 WHERE id = 1")
    b.execute("VACUUM acc")
    assert a.execute("UPDATE acc SET bal = ? WHERE id = 1 AND xmin = ?", (bal - 10, seen)).rowcount == 0
    assert rows(a, "SELECT id, bal FROM acc ORDER BY id") == [(1, 150), (2, 200), (3, 300)]
    assert value(a, "SELECT count(DISTINCT xmin) FROM acc") == 3


def test_no_transaction_s_xmin_is_the_frozen_xid(connect):
    """XIDs start at 3, PostgreSQL's first normal XID: 2 (frozen) is no transaction's."""
    conn = connect(autocommit=True)
    conn.execute("CREATE TABLE f (id INT)")
    conn.execute("INSERT INTO f VALUES (1)")
    assert value(conn, "SELECT xmin FROM f") > 2


def test_rows_of_the_current_transaction(connect):
    conn = connect()
    conn.execute("CREATE TABLE t (id INT PRIMARY KEY)")
    conn.commit()
    conn.execute("INSERT INTO t VALUES (-1)")
    conn.commit()
    conn.execute("INSERT INTO t VALUES (0)")
    committed = value(conn, "SELECT txid_current()")
    conn.commit()
    conn.execute("INSERT INTO t VALUES (1), (2)")
    xid = value(conn, "SELECT txid_current()")
    assert xid > committed > 2  # (2 is the frozen XID, which rows of no known commit show)
    assert value(conn, "SELECT pg_current_xact_id()::text::bigint") == xid
    assert rows(conn, "SELECT xmin, xmax FROM t WHERE id >= 0 ORDER BY id") == [(committed, 0), (xid, 0), (xid, 0)]
    assert rows(conn, "INSERT INTO t VALUES (3) RETURNING xmin, xmax") == [(xid, 0)]
    assert value(conn, "SELECT count(DISTINCT ctid) FROM t") == 5


def test_ctid_changes_with_an_update_and_finds_the_row(t):
    before = value(t, "SELECT ctid FROM t WHERE id = 2")
    assert before.startswith("(") and before.endswith(")")
    assert rows(t, "SELECT id FROM t WHERE ctid = ?", (before,)) == [(2,)]
    assert rows(t, f"SELECT id FROM t WHERE ctid = '{before}'::tid") == [(2,)]
    t.execute("UPDATE t SET x = 12 WHERE id = 2")
    after = value(t, "SELECT ctid FROM t WHERE id = 2")
    assert after != before
    assert rows(t, "SELECT id FROM t WHERE ctid = ?", (before,)) == []
    assert t.execute(f"UPDATE t SET x = 13 WHERE ctid = '{after}'").rowcount == 1
    assert t.execute("DELETE FROM t WHERE ctid = ? RETURNING id, x", (value(t, "SELECT ctid FROM t WHERE id = 2"),)
                     ).fetchall() == [(2, 13)]


def test_ctid_is_a_tid(t):
    got = rows(t, "SELECT ctid, ctid::text, ctid = '(0,1)' FROM t ORDER BY ctid")
    assert [r[0] for r in got] == [r[1] for r in got] and len({r[0] for r in got}) == 3
    first, last = value(t, "SELECT min(ctid) FROM t"), value(t, "SELECT max(ctid) FROM t")
    assert (first, last) == (got[0][0], got[-1][0])
    assert rows(t, "SELECT '(0,1)'::tid, '(5,3)'::tid > '(5,2)'::tid, '(2,1)'::tid < '(10,1)'::tid") == \
        [("(0,1)", True, True)]
    fails(t, "SELECT 'x'::tid", "22P02", 'invalid input syntax for type tid: "x"')


def test_not_in_star_and_with_aliases_joins_subqueries(t):
    assert rows(t, "SELECT * FROM t WHERE ctid IS NOT NULL ORDER BY id") == [(1, 10), (2, 10), (3, 20)]
    names = [d[0] for d in t.execute("SELECT xmin, * FROM t").description]
    assert names == ["xmin", "id", "x"]
    assert [d[0] for d in t.execute("SELECT a.ctid, a.* FROM t a").description] == ["ctid", "id", "x"]
    assert value(t, "SELECT count(*) FROM t a JOIN t b ON a.x = b.x WHERE a.ctid < b.ctid") == 1
    assert len(rows(t, "SELECT ctid FROM (SELECT ctid, id FROM t) s")) == 3
    fails(t, "SELECT ctid FROM (SELECT * FROM t) s", "42703", 'column "ctid" does not exist')
    fails(t, "SELECT ctid FROM t a, t b", "42702")


def test_whole_row_references_are_of_the_table_s_columns(t):
    """A whole-row reference is a row of the table's columns, with or without a system column
    named (PostgreSQL's row_to_json(t) / SELECT t), NULL for an outer join's missing row."""
    want = [({"id": 1, "x": 10},), ({"id": 2, "x": 10},), ({"id": 3, "x": 20},)]
    assert rows(t, "SELECT t FROM t WHERE xmin > 0 ORDER BY id") == want
    assert rows(t, "SELECT to_jsonb(t) FROM t WHERE ctid IS NOT NULL ORDER BY id") == \
        rows(t, "SELECT to_jsonb(t) FROM t ORDER BY id")
    assert rows(t, "SELECT row_to_json(t)::text FROM t WHERE ctid IS NOT NULL AND id = 1") == [('{"id":1,"x":10}',)]
    assert rows(t, "SELECT a.id, b FROM t a LEFT JOIN t b ON b.id = a.id + 2 WHERE a.xmin > 0 ORDER BY 1") == \
        [(1, {"id": 3, "x": 20}), (2, None), (3, None)]


def test_natural_join_and_parenthesized_joins(t):
    """NATURAL JOIN joins by the tables' common columns only (else no row matched: their hidden
    columns differ), and a parenthesized join keeps its joins (else 42601)."""
    t.execute("CREATE TABLE u (id INT PRIMARY KEY, w TEXT)")
    t.execute("INSERT INTO u VALUES (1, 'a'), (3, 'c')")
    assert rows(t, "SELECT * FROM t NATURAL JOIN u WHERE t.xmin > 0 ORDER BY id") == [(1, 10, "a"), (3, 20, "c")]
    assert rows(t, "SELECT id, w, u.ctid IS NULL FROM t NATURAL LEFT JOIN u ORDER BY id") == \
        [(1, "a", False), (2, None, True), (3, "c", False)]
    assert rows(t, "SELECT t.id, u.ctid FROM (t JOIN u ON t.id = u.id) ORDER BY 1") == [(1, "(1,1)"), (3, "(1,2)")]
    assert rows(t, "SELECT * FROM (t JOIN u ON t.id = u.id) WHERE u.xmin > 0 ORDER BY 1") == \
        [(1, 10, 1, "a"), (3, 20, 3, "c")]
    assert rows(t, "SELECT * FROM (SELECT * FROM t) s NATURAL JOIN u WHERE u.xmin > 0 ORDER BY id") == \
        [(1, 10, "a"), (3, 20, "c")]
    fails(t, "SELECT * FROM (t a JOIN t b USING (id, x)) NATURAL JOIN u WHERE u.xmin > 0", "0A000", "NATURAL JOIN")


def test_a_column_merely_named_ctid_is_no_tid(t):
    """Only a table has a ctid (a tid): a subquery's, a CTE's or a view's column named so is
    whatever it selects, compared with text and cast to text as its type is."""
    assert rows(t, "SELECT * FROM (SELECT id AS ctid FROM t) s WHERE ctid = '2'") == [(2,)]
    assert rows(t, "SELECT ctid::text FROM (SELECT id AS ctid FROM t) s ORDER BY 1") == [("1",), ("2",), ("3",)]
    assert rows(t, "WITH c AS (SELECT id AS ctid FROM t) SELECT * FROM c WHERE ctid IN ('1', '3') ORDER BY 1") == \
        [(1,), (3,)]
    t.execute("CREATE VIEW v AS SELECT id AS ctid, x FROM t")
    assert rows(t, "SELECT v.ctid::text, x FROM v WHERE ctid = '2'") == [("2", 10)]
    assert rows(t, "SELECT * FROM (SELECT * FROM (SELECT id AS ctid FROM t) a) b WHERE ctid = '3'") == [(3,)]
    # (a table's, through a subquery, and beside a subquery's of that name, stays a tid)
    assert rows(t, "SELECT * FROM (SELECT ctid, id FROM t) s WHERE ctid = '(1,2)'") == [("(1,2)", 2)]
    assert rows(t, "SELECT id FROM t WHERE EXISTS (SELECT FROM (SELECT id AS ctid FROM t) s "
                   "WHERE s.ctid = '2' AND t.ctid = '(1,2)')") == [(2,)]


def test_a_user_column_named_ctid_of_an_older_table(t, monkeypatch):
    """A table made before system columns were refused as column names may have a user column
    ctid (or xmin): its own, not a tid, wherever it is named."""
    with monkeypatch.context() as patched:  # (as an older txlake made it)
        patched.setattr(system_columns, "refuse_column_names", lambda names: None)
        t.execute("CREATE TABLE old (id INT, ctid INT, xmin FLOAT)")
    t.execute("INSERT INTO old VALUES (1, 7, 0.5), (2, 8, 1.5)")
    assert rows(t, "SELECT id FROM old WHERE ctid = '7'") == [(1,)]
    assert rows(t, "SELECT id, ctid::text, xmin FROM old ORDER BY id") == [(1, "7", 0.5), (2, "8", 1.5)]
    assert t.execute("UPDATE old SET id = 3 WHERE ctid = '8' RETURNING id").fetchall() == [(3,)]
    assert rows(t, "SELECT o.id FROM old o JOIN t ON t.id = o.id WHERE o.ctid = '7' AND t.ctid = '(1,1)'") == [(1,)]


def test_tableoid(t):
    t.execute("CREATE TABLE u (id INT)")
    t.execute("INSERT INTO u VALUES (9)")
    oid = value(t, "SELECT oid FROM pg_class WHERE relname = 't'")
    assert rows(t, "SELECT DISTINCT tableoid FROM t") == [(oid,)]
    assert rows(t, "SELECT tableoid::regclass, id FROM t WHERE id = 1 UNION ALL SELECT tableoid::regclass, id FROM u") \
        == [("t", 1), ("u", 9)]


def test_views(t):
    t.execute("CREATE VIEW v AS SELECT ctid AS c, xmin, id FROM t")
    assert len({r[0] for r in rows(t, "SELECT c FROM v")}) == 3
    types = "SELECT data_type FROM information_schema.columns WHERE table_name = 'v' ORDER BY ordinal_position"
    assert rows(t, types) == [("tid",), ("bigint",), ("integer",)]
    t.execute("CREATE VIEW w AS SELECT * FROM t")
    fails(t, "SELECT ctid FROM w", "42703", 'column "ctid" does not exist')
    assert rows(t, "SELECT * FROM w ORDER BY id") == [(1, 10), (2, 10), (3, 20)]


def test_returning_star_leaves_them_out(t):
    cursor = t.execute("INSERT INTO t VALUES (4, 40) RETURNING *, xmin")
    assert [d[0] for d in cursor.description] == ["id", "x", "xmin"] and len(cursor.fetchall()[0]) == 3
    cursor = t.execute("UPDATE t SET x = 41 WHERE id = 4 RETURNING t.*, xmax")
    assert [d[0] for d in cursor.description] == ["id", "x", "xmax"] and cursor.fetchall() == [(4, 41, 0)]
    cursor = t.execute("DELETE FROM t WHERE id = 4 RETURNING *, tableoid::text::bigint > 0")
    assert len(cursor.description) == 3 and cursor.fetchall() == [(4, 41, True)]


def test_returning_of_delete(t):
    ctid, xmin = rows(t, "SELECT ctid, xmin FROM t WHERE id = 3")[0]
    got = rows(t, "DELETE FROM t WHERE x = 20 RETURNING id, ctid, xmin, xmax <> 0")
    assert got == [(3, ctid, xmin, True)]


def test_returning_of_a_statement_naming_ctid_elsewhere(t):
    """Only RETURNING's own system columns are RETURNING's: a ctid in WHERE or in a new row's
    value is not refused as ``RETURNING ctid`` is."""
    assert rows(t, "UPDATE t SET x = 9 WHERE ctid = (SELECT min(ctid) FROM t) RETURNING id") == [(1,)]
    assert rows(t, "UPDATE t SET x = 8 WHERE ctid = (SELECT min(ctid) FROM t) RETURNING *, xmin > 0") == [(2, 8, True)]
    assert rows(t, "INSERT INTO t SELECT 7, count(DISTINCT ctid) FROM t RETURNING *") == [(7, 3)]


def test_returning_ctid_of_new_rows_is_refused(t):
    fails(t, "UPDATE t SET x = 1 WHERE id = 1 RETURNING ctid", "0A000")
    assert rows(t, "SELECT x FROM t WHERE id = 1") == [(10,)]


@pytest.mark.parametrize("sql, sqlstate, message", [
    ("CREATE TABLE bad (ctid INT)", "42701", 'column name "ctid" conflicts with a system column name'),
    ("CREATE TABLE bad (a INT, xmin INT)", "42701", 'column name "xmin" conflicts with a system column name'),
    ("ALTER TABLE t ADD COLUMN cmax INT", "42701", 'column name "cmax" conflicts with a system column name'),
    ("ALTER TABLE t RENAME COLUMN x TO tableoid", "42701",
     'column name "tableoid" conflicts with a system column name'),
    ("CREATE MATERIALIZED VIEW bad AS SELECT 1 AS tableoid", "42701",
     'column name "tableoid" conflicts with a system column name'),
    ("CREATE TABLE bad AS SELECT ctid, id FROM t", "42701", 'column name "ctid" conflicts with a system column name'),
    ("MERGE INTO t USING (SELECT 1 AS id) s ON t.id = s.id WHEN MATCHED AND t.xmin > 0 THEN UPDATE SET x = 0",
     "0A000", "MERGE"),
    ("UPDATE t SET xmin = 1", "428C9", 'cannot assign to system column "xmin"'),
    ("UPDATE t SET x = 1, ctid = '(0,1)' WHERE id = 1", "428C9", 'cannot assign to system column "ctid"'),
    ("INSERT INTO t (id, xmax) VALUES (9, 0)", "428C9", 'cannot assign to system column "xmax"'),
    ("INSERT INTO t VALUES (1, 1) ON CONFLICT (id) DO UPDATE SET tableoid = 1", "428C9",
     'cannot assign to system column "tableoid"'),
])
def test_refusals(t, sql, sqlstate, message):
    fails(t, sql, sqlstate, message)
    assert rows(t, "SELECT * FROM t ORDER BY id") == [(1, 10), (2, 10), (3, 20)]


def test_cmin_and_cmax_are_columns_and_returning_casts_tableoid_to_regclass(t):
    """cmin and cmax were 42703: they are 0 (txlake keeps no command ids - PostgreSQL's are 0 for
    a transaction's first statement); RETURNING tableoid::regclass was 42704 (a RETURNING list
    did not answer catalog casts): it is the table's name, as a query's."""
    assert rows(t, "SELECT cmin, cmax FROM t ORDER BY id LIMIT 1") == [(0, 0)]
    assert rows(t, "INSERT INTO t VALUES (9, 30) RETURNING tableoid::regclass, id, cmin, cmax") == [("t", 9, 0, 0)]
    assert rows(t, "UPDATE t SET x = 31 WHERE id = 9 RETURNING tableoid::regclass::text, "
                   "tableoid = 't'::regclass::oid") == [("t", True)]
    assert rows(t, "DELETE FROM t WHERE id = 9 RETURNING tableoid::regclass, cmin") == [("t", 0)]
    fails(t, "CREATE TABLE c (cmax int)", "42701", 'column name "cmax" conflicts with a system column name')
