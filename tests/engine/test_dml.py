"""DML, queries and the DB-API cursor surface."""

import datetime
import decimal
import os

import pyarrow as pa
import pytest

import txlake
from txlake import errors
from tests.conftest import run_python
from tests.conftest import rows as q


@pytest.fixture
def c(connect):
    conn = connect(autocommit=True)
    conn.execute("CREATE TABLE t (id INT PRIMARY KEY, name TEXT NOT NULL DEFAULT 'anon', score DOUBLE)")
    conn.execute("INSERT INTO t VALUES (1, 'a', 1.5), (2, 'b', 2.5), (3, 'c', NULL)")
    return conn


# --- INSERT ------------------------------------------------------------------------------

def test_insert_values_and_column_lists(c):
    assert c.execute("INSERT INTO t VALUES (4, 'd', 4.5), (5, 'e', 5.5)").rowcount == 2
    c.execute("INSERT INTO t (id) VALUES (6)")                         # defaults and NULLs fill in
    c.execute("INSERT INTO t (score, id) VALUES (9.5, 7)")             # any column order
    c.execute("INSERT INTO t VALUES (8)")                              # a short row: the rest default
    c.execute("INSERT INTO t (id, name, score) VALUES (?, ?, ?)", (9, "p", None))
    assert q(c, "SELECT * FROM t WHERE id >= 4 ORDER BY id") == [
        (4, "d", 4.5), (5, "e", 5.5), (6, "anon", None), (7, "anon", 9.5), (8, "anon", None), (9, "p", None)]


def test_insert_select(c):
    c.execute("CREATE TABLE u (id INT, name TEXT)")
    assert c.execute("INSERT INTO u SELECT id + 100, name FROM t WHERE id <= 2").rowcount == 2
    c.execute("INSERT INTO t (id, name) SELECT id, name FROM u")
    c.execute("INSERT INTO t (id) SELECT max(id) + 1 FROM t")           # reads its own table
    c.execute("INSERT INTO u (id) SELECT id FROM t WHERE score > ?", (2.0,))
    assert q(c, "SELECT id, name, score FROM t WHERE id > 3 ORDER BY id") == [
        (101, "a", None), (102, "b", None), (103, "anon", None)]
    assert q(c, "SELECT * FROM u ORDER BY id") == [(2, None), (101, "a"), (102, "b")]


def test_insert_defaults(connect):
    c = connect(autocommit=True)
    c.execute("CREATE TABLE d (i INT DEFAULT 7, s TEXT DEFAULT 'x', n DECIMAL(5,2) DEFAULT 1.25, "
              "day DATE DEFAULT DATE '2024-01-31', b BOOLEAN DEFAULT true, plain INT)")
    c.execute("INSERT INTO d DEFAULT VALUES")
    c.execute("INSERT INTO d (plain) VALUES (1)")
    c.execute("INSERT INTO d VALUES (DEFAULT, 'given', DEFAULT, NULL, DEFAULT, 2)")
    c.execute("INSERT INTO d (s, i) VALUES (DEFAULT, ?)", (5,))
    defaults = (7, "x", decimal.Decimal("1.25"), datetime.date(2024, 1, 31), True)
    assert q(c, "SELECT * FROM d ORDER BY plain NULLS FIRST, i") == [
        (5, "x", decimal.Decimal("1.25"), datetime.date(2024, 1, 31), True, None),
        defaults + (None,), defaults + (1,),
        (7, "given", decimal.Decimal("1.25"), None, True, 2)]


def test_repeated_statements_follow_a_recreated_table(connect):
    # the same statement texts (parsed once, their DuckDB SQL cached) against a table that is
    # dropped and re-created under the same name with other types and defaults
    c = connect(autocommit=True)
    shapes = [("a INT, b INT DEFAULT 7", (1, 7), (1, 8)),
              ("a DOUBLE, b INT DEFAULT 5", (1.0, 5), (1.0, 6)),
              ("a TEXT, b DATE DEFAULT DATE '2024-01-01'", ("1", datetime.date(2024, 1, 1)),
               ("1", datetime.date(2024, 1, 2)))]
    for columns, inserted, updated in shapes:
        c.execute("DROP TABLE IF EXISTS x")
        c.execute(f"CREATE TABLE x ({columns})")
        c.execute("INSERT INTO x (a) VALUES (1)")
        assert q(c, "SELECT * FROM x") == [inserted]
        c.execute("UPDATE x SET b = b + 1 WHERE a = 1")
        assert q(c, "SELECT * FROM x") == [updated]


def test_insert_into_a_table_without_key_allows_duplicates(connect):
    c = connect(autocommit=True)
    c.execute("CREATE TABLE log (i INT, s TEXT)")
    c.execute("INSERT INTO log VALUES (1, 'a'), (1, 'a')")
    c.execute("INSERT INTO log SELECT * FROM log")
    assert q(c, "SELECT count(*), count(DISTINCT i) FROM log") == [(4, 1)]


def test_insert_returning(c):
    cur = c.execute("INSERT INTO t (id, name) VALUES (10, 'x'), (11, 'y') RETURNING id, name, score")
    assert cur.rowcount == 2 and sorted(cur.fetchall()) == [(10, "x", None), (11, "y", None)]
    assert [d[0] for d in cur.description] == ["id", "name", "score"]
    assert q(c, "INSERT INTO t (id) VALUES (12) RETURNING *") == [(12, "anon", None)]
    assert q(c, "INSERT INTO t (id) VALUES (?) RETURNING id * 2 AS twice, upper(name), ?", (13, "p")) == [
        (26, "ANON", "p")]


# --- ON CONFLICT -------------------------------------------------------------------------

def test_on_conflict_do_nothing(c):
    cur = c.execute("INSERT INTO t VALUES (1, 'x', 0), (9, 'nine', 9) ON CONFLICT DO NOTHING RETURNING id")
    assert cur.fetchall() == [(9,)] and cur.rowcount == 1
    assert c.execute("INSERT INTO t (id) VALUES (20), (20) ON CONFLICT (id) DO NOTHING").rowcount == 1
    assert q(c, "SELECT name FROM t WHERE id IN (1, 20) ORDER BY id") == [("a",), ("anon",)]


def test_on_conflict_do_update(c):
    cur = c.execute("INSERT INTO t (id, name) VALUES (1, 'new'), (10, 'ten') "
                    "ON CONFLICT (id) DO UPDATE SET name = excluded.name || t.name RETURNING id, name")
    assert sorted(cur.fetchall()) == [(1, "newa"), (10, "ten")] and cur.rowcount == 2
    c.execute("INSERT INTO t VALUES (1, 'again', 0) ON CONFLICT ON CONSTRAINT t_pkey DO UPDATE SET score = t.score + 1")
    assert q(c, "SELECT * FROM t WHERE id = 1") == [(1, "newa", 2.5)]
    with pytest.raises(errors.ProgrammingError) as info:  # (no target: 42601, as PostgreSQL's parse analysis)
        c.execute("INSERT INTO t VALUES (1, 'again', 0) ON CONFLICT DO UPDATE SET score = t.score + 1")
    assert info.value.sqlstate == "42601"


def test_on_conflict_do_update_where(c):
    c.execute("INSERT INTO t (id, name, score) VALUES (1, 'x', 5), (2, 'y', 0) ON CONFLICT (id) "
              "DO UPDATE SET score = excluded.score, name = excluded.name WHERE excluded.score > t.score")
    assert q(c, "SELECT * FROM t WHERE id <= 2 ORDER BY id") == [(1, "x", 5.0), (2, "b", 2.5)]
    cur = c.execute("INSERT INTO t (id, name) VALUES (2, 'zz') ON CONFLICT (id) DO UPDATE "
                    "SET name = excluded.name WHERE t.score > 100 RETURNING id")
    assert cur.fetchall() == [] and cur.rowcount == 0


def test_on_conflict_through_an_alias_of_the_target(c):
    """INSERT INTO t AS x ... DO UPDATE SET name = x.name: 42P01 (x not found) before."""
    cur = c.execute("INSERT INTO t AS x (id, name) VALUES (1, 'z'), (8, 'h') ON CONFLICT (id) "
                    "DO UPDATE SET name = x.name || excluded.name WHERE x.score > 0 RETURNING x.id, x.name")
    assert sorted(cur.fetchall()) == [(1, "az"), (8, "h")]


def test_on_conflict_with_parameters(c):
    c.execute("INSERT INTO t (id, name, score) VALUES (?, ?, ?), (?, 'new', 0) ON CONFLICT (id) DO UPDATE "
              "SET score = ?, name = ? WHERE t.id < ? RETURNING id, ?",
              (1, "x", 0.0, 30, 7.5, "upd", 100, "tag"))
    assert q(c, "SELECT * FROM t WHERE id IN (1, 30) ORDER BY id") == [(1, "upd", 7.5), (30, "new", 0.0)]


def test_on_conflict_returns_rows_in_the_order_proposed(connect):
    """RETURNING gives inserted and updated rows in the order of the VALUES, as PostgreSQL
    does (clients match returned ids to their rows by position); it gave the inserted first."""
    c = connect(autocommit=True)
    c.execute("CREATE TABLE u (k INT PRIMARY KEY, v INT)")
    c.execute("INSERT INTO u VALUES (2, 1), (5, 1)")
    for sql, expected in [
            ("INSERT INTO u VALUES (9, 0), (5, 7), (1, 0), (2, 3) "  # (SET computed in Python)
             "ON CONFLICT (k) DO UPDATE SET v = u.v + excluded.v RETURNING k, v", [(9, 0), (5, 8), (1, 0), (2, 4)]),
            ("INSERT INTO u VALUES (8, 0), (2, 3), (0, 0), (5, 7) "  # (by DuckDB)
             "ON CONFLICT (k) DO UPDATE SET v = u.v * excluded.v RETURNING k, v", [(8, 0), (2, 12), (0, 0), (5, 56)]),
            ("INSERT INTO u VALUES (2, 3), (7, 0), (5, 2), (3, 0) "  # (DO UPDATE's WHERE leaves 2 out)
             "ON CONFLICT (k) DO UPDATE SET v = u.v * excluded.v WHERE u.v > 50 RETURNING k, v",
             [(7, 0), (5, 112), (3, 0)])]:
        assert q(c, sql) == expected, sql


def test_on_conflict_errors(c):
    with pytest.raises(errors.CardinalityViolation) as info:
        c.execute("INSERT INTO t (id) VALUES (1), (1) ON CONFLICT (id) DO UPDATE SET name = 'q'")
    assert info.value.sqlstate == "21000"
    with pytest.raises(errors.ProgrammingError) as info:
        c.execute("INSERT INTO t (id) VALUES (1) ON CONFLICT (name) DO NOTHING")
    assert info.value.sqlstate == "42P10"
    assert q(c, "SELECT * FROM t ORDER BY id") == [(1, "a", 1.5), (2, "b", 2.5), (3, "c", None)]


def test_on_conflict_do_update_is_checked_without_a_conflict(c):
    """A mistake in DO UPDATE's SET or WHERE (an unknown column or table, a type that does not
    cast) failed only at the first conflict: an INSERT of new keys went through. It fails at
    once, as PostgreSQL's does, and inserts nothing."""
    for sql, state in [("INSERT INTO t VALUES (9, 'n', 0) ON CONFLICT (id) DO UPDATE SET score = nosuch.v", "42P01"),
                       ("INSERT INTO t VALUES (9, 'n', 0) ON CONFLICT (id) DO UPDATE SET score = excluded.nope",
                        "42703"),
                       ("INSERT INTO t VALUES (9, 'n', 0) ON CONFLICT (id) DO UPDATE SET score = 1 WHERE t.nope > 0",
                        "42703")]:
        with pytest.raises(errors.Error) as e:
            c.execute(sql)
        assert e.value.sqlstate == state, sql
    assert q(c, "SELECT count(*) FROM t") == [(3,)]
    cur = c.cursor()
    cur.executemany("INSERT INTO t VALUES (?, 'n', 0) ON CONFLICT (id) DO UPDATE SET score = excluded.score + ?",
                    [(9, 1.0), (9, 2.0), (10, 3.0)])
    assert q(c, "SELECT id, score FROM t WHERE id >= 9 ORDER BY id") == [(9, 2.0), (10, 0.0)]


def test_on_conflict_on_constraint_names_the_primary_key(c):
    """``ON CONFLICT ON CONSTRAINT t_pkey`` (ORMs write it) is the primary key, named as
    txlake names it in 23505's message: it was 0A000. Another name is 42704."""
    c.execute("INSERT INTO t VALUES (1, 'x', 0) ON CONFLICT ON CONSTRAINT t_pkey DO NOTHING")
    assert q(c, "INSERT INTO t VALUES (1, 'y', 0), (4, 'd', 4) ON CONFLICT ON CONSTRAINT t_pkey DO UPDATE "
                "SET name = excluded.name RETURNING id, name") in ([(4, "d"), (1, "y")], [(1, "y"), (4, "d")])
    with pytest.raises(errors.Error) as e:
        c.execute("INSERT INTO t VALUES (1) ON CONFLICT ON CONSTRAINT other_pkey DO NOTHING")
    assert e.value.sqlstate == "42704" and str(e.value) == 'constraint "other_pkey" for table "t" does not exist'
    c.execute("CREATE TABLE n (a INT)")
    with pytest.raises(errors.Error) as e:
        c.execute("INSERT INTO n VALUES (1) ON CONFLICT ON CONSTRAINT n_pkey DO NOTHING")
    assert e.value.sqlstate == "42704"
    assert q(c, "SELECT id, name FROM t ORDER BY id") == [(1, "y"), (2, "b"), (3, "c"), (4, "d")]


def test_on_conflict_names_a_quoted_key_column(c):
    """ON CONFLICT ("Id"): the quoted name kept its case nowhere - it was folded to id, and
    the upsert refused with 42P10 (no unique constraint matching)."""
    c.execute('CREATE TABLE "Order" ("Id" INT PRIMARY KEY, "Total" INT)')
    c.execute('INSERT INTO "Order" VALUES (1, 10)')
    assert sorted(q(c, 'INSERT INTO "Order" VALUES (1, 5), (2, 7) ON CONFLICT ("Id") DO UPDATE '
                       'SET "Total" = "Order"."Total" + excluded."Total" RETURNING *')) == [(1, 15), (2, 7)]
    assert c.execute('INSERT INTO "Order" VALUES (2, 0) ON CONFLICT ("Id") DO NOTHING').rowcount == 0
    with pytest.raises(errors.ProgrammingError) as info:
        c.execute('INSERT INTO "Order" VALUES (3, 0) ON CONFLICT (id) DO NOTHING')   # folds to id: no such key
    assert info.value.sqlstate == "42P10"


def test_on_conflict_do_nothing_without_a_target_on_a_table_without_key(c):
    """A table without a primary key has nothing to conflict on: ON CONFLICT DO NOTHING (no
    target) inserts every row, as in PostgreSQL - it was 42P10; naming columns still is."""
    c.execute("CREATE TABLE n (a INT, b TEXT)")
    assert c.execute("INSERT INTO n VALUES (1, 'x'), (1, 'x') ON CONFLICT DO NOTHING").rowcount == 2
    assert q(c, "INSERT INTO n SELECT a + 1, b FROM n ON CONFLICT DO NOTHING RETURNING a") == [(2,), (2,)]
    assert q(c, "SELECT count(*) FROM n") == [(4,)]
    for sql, sqlstate in [("INSERT INTO n VALUES (1, 'x') ON CONFLICT (a) DO NOTHING", "42P10"),
                          ("INSERT INTO n VALUES (1, 'x') ON CONFLICT DO UPDATE SET b = 'y'", "42601")]:
        with pytest.raises(errors.ProgrammingError) as info:
            c.execute(sql)
        assert info.value.sqlstate == sqlstate


# --- UPDATE ------------------------------------------------------------------------------

def test_update(c):
    assert c.execute("UPDATE t SET score = score * 2 WHERE score IS NOT NULL").rowcount == 2
    assert c.execute("UPDATE t SET name = upper(name), score = 0 WHERE id = 3").rowcount == 1
    assert c.execute("UPDATE t SET score = 1 WHERE id = 999").rowcount == 0
    assert q(c, "SELECT * FROM t ORDER BY id") == [(1, "a", 3.0), (2, "b", 5.0), (3, "C", 0.0)]
    assert c.execute("UPDATE t AS x SET score = x.score + 1 WHERE x.id = 1").rowcount == 1
    assert c.execute("UPDATE t SET score = -1").rowcount == 3
    assert q(c, "SELECT DISTINCT score FROM t") == [(-1.0,)]


def test_update_parameters_bind_in_text_order(c):
    # the SET list names columns in another order than the table's: each ? keeps its place
    c.execute("UPDATE t SET score = ?, name = ? WHERE id = ?", (9.0, "nine", 1))
    c.execute("UPDATE t SET name = ?, score = ? WHERE id > ?", ("many", 7.0, 1))
    assert q(c, "SELECT * FROM t ORDER BY id") == [(1, "nine", 9.0), (2, "many", 7.0), (3, "many", 7.0)]


def test_offset_before_limit_binds_its_parameters_in_text_order(c):
    """``OFFSET ? LIMIT ?``: the first parameter is the offset (sqlglot writes the two the
    other way round, and the parameters bound so: OFFSET 2 LIMIT 1 took LIMIT 2 OFFSET 1)."""
    assert q(c, "SELECT id FROM t ORDER BY id OFFSET ? LIMIT ?", (2, 1)) == [(3,)]
    assert q(c, "SELECT id FROM t WHERE id > ? ORDER BY id OFFSET ? ROWS FETCH FIRST ? ROWS ONLY", (0, 1, 1)) == [(2,)]
    c.execute("UPDATE t SET score = -5 WHERE id IN (SELECT id FROM t ORDER BY id OFFSET ? LIMIT ?)", (2, 1))
    assert q(c, "SELECT id FROM t WHERE score = -5") == [(3,)]


def test_update_set_of_a_column_list(c):
    """``SET (a, b) = (x, y)`` and ``= ROW(x, y)`` assign column by column, in UPDATE and in
    ON CONFLICT DO UPDATE (it was 42601 'expected column = expression, got (name = ... AND
    ...)'); a count that differs is 42601, a sub-SELECT 0A000, and a column given twice is
    42601, as PostgreSQL's 'multiple assignments to same column' (the last value was taken)."""
    assert c.execute("UPDATE t SET (name, score) = ('x', score + 1) WHERE id = ?", (1,)).rowcount == 1
    c.execute("UPDATE t SET (score, name) = ROW(?, ?) WHERE id = 2", (9.0, "y"))
    c.execute("UPDATE t SET (name) = ROW(DEFAULT), score = 0 WHERE id = 3")
    c.execute("INSERT INTO t VALUES (1, 'new', 7) ON CONFLICT (id) DO UPDATE SET (name, score) = (excluded.name, 8)")
    assert q(c, "SELECT * FROM t ORDER BY id") == [(1, "new", 8.0), (2, "y", 9.0), (3, "anon", 0.0)]
    for sql, state in [("UPDATE t SET (name, score) = ('z')", "42601"),
                       ("UPDATE t SET (name, score) = ('z', 1, 2)", "42601"),
                       ("UPDATE t SET (name, score) = (SELECT DISTINCT 'z', 1)", "0A000"),
                       ("UPDATE t SET (name, score) = (SELECT 'z')", "42601"),
                       ("UPDATE t SET score = 1, score = 2", "42601"),
                       ("UPDATE t SET (score, name) = (1, 'z'), score = 2", "42601"),
                       ("INSERT INTO t VALUES (1) ON CONFLICT (id) DO UPDATE SET score = 1, score = 2", "42601")]:
        with pytest.raises(errors.Error) as e:
            c.execute(sql)
        assert e.value.sqlstate == state, sql
    assert q(c, "SELECT * FROM t ORDER BY id") == [(1, "new", 8.0), (2, "y", 9.0), (3, "anon", 0.0)]


def test_update_returning(c):
    cur = c.execute("UPDATE t SET score = score * 2 WHERE score IS NOT NULL RETURNING id, score")
    assert sorted(cur.fetchall()) == [(1, 3.0), (2, 5.0)] and cur.rowcount == 2
    assert q(c, "UPDATE t SET name = ? WHERE id = ? RETURNING *, ?", ("z", 3, "x")) == [(3, "z", None, "x")]
    cur = c.execute("UPDATE t SET score = 0 WHERE id > 100 RETURNING id")
    assert cur.fetchall() == [] and cur.rowcount == 0


def test_update_from(c):
    c.execute("CREATE TABLE bonus (id INT, extra DOUBLE)")
    c.execute("INSERT INTO bonus VALUES (1, 10), (3, 30), (99, 1)")
    cur = c.execute("UPDATE t SET score = coalesce(t.score, 0) + b.extra FROM bonus b WHERE t.id = b.id")
    assert cur.rowcount == 2
    assert q(c, "SELECT id, score FROM t ORDER BY id") == [(1, 11.5), (2, 2.5), (3, 30.0)]
    c.execute("UPDATE t SET name = s.n FROM (SELECT ? AS k, ? AS n) s WHERE t.id = s.k", (2, "two"))
    assert q(c, "SELECT name FROM t WHERE id = 2") == [("two",)]


def test_update_set_of_a_column_list_from_a_sub_select(c):
    """``SET (a, b) = (SELECT x, y ...)``, correlated or not and with parameters (each takes
    its own value, though the sub-SELECT is run once per column): it was 0A000. No row gives
    NULLs, more than one is 21000, as in PostgreSQL."""
    c.execute("CREATE TABLE src (k INT, n TEXT, s DOUBLE)")
    c.execute("INSERT INTO src VALUES (1, 'one', 10), (2, 'two', 20), (2, 'deux', 21)")
    c.execute("UPDATE t SET (name, score) = (SELECT n, s + ? FROM src WHERE src.k = t.id AND s < ?) WHERE id <= ?",
              (0.5, 20.5, 2))
    assert q(c, "SELECT * FROM t ORDER BY id") == [(1, "one", 10.5), (2, "two", 20.5), (3, "c", None)]
    c.execute("UPDATE t SET (score) = (SELECT max(s) FROM src WHERE k = 99) WHERE id = 3")
    assert q(c, "SELECT score FROM t WHERE id = 3") == [(None,)]
    with pytest.raises(errors.CardinalityViolation):
        c.execute("UPDATE t SET (name, score) = (SELECT n, s FROM src WHERE k = 2) WHERE id = 1")
    with pytest.raises(errors.NotNullViolation):  # (name is NOT NULL: no row gives NULL)
        c.execute("UPDATE t SET (name, score) = (SELECT n, s FROM src WHERE k = 99)")


def test_returning_names_the_tables_of_from_and_using(c):
    """RETURNING of UPDATE ... FROM and DELETE ... USING may name the other tables' columns
    (s.note, s.*, a column only they hold), and RETURNING * lists theirs after the target's,
    as in PostgreSQL: it was 42P01 'Referenced table "s" not found!' (DuckDB's words)."""
    c.execute("CREATE TABLE s (k INT, extra DOUBLE, note TEXT)")
    c.execute("INSERT INTO s VALUES (1, 10, 'n1'), (3, 30, 'n3')")
    rows = q(c, "UPDATE t SET score = s.extra FROM s WHERE s.k = t.id RETURNING t.id, t.score, s.note, note, s.*")
    assert sorted(rows) == [(1, 10.0, "n1", "n1", 1, 10.0, "n1"), (3, 30.0, "n3", "n3", 3, 30.0, "n3")]
    assert q(c, "UPDATE t AS x SET name = v.n FROM (VALUES (1, 'one')) v(k, n) WHERE x.id = v.k "
                "RETURNING *") == [(1, "one", 10.0, 1, "one")]
    assert q(c, "UPDATE t SET name = 'z' FROM s WHERE s.k = t.id AND s.k = 99 RETURNING s.*") == []
    rows = q(c, "DELETE FROM t USING s JOIN (SELECT 3 AS k3) z ON z.k3 = s.k WHERE t.id = s.k "
                "RETURNING *, s.extra + ?", (1,))
    assert rows == [(3, "c", 30.0, 3, 30.0, "n3", 3, 31.0)]
    assert q(c, "SELECT * FROM t ORDER BY id") == [(1, "one", 10.0), (2, "b", 2.5)]


@pytest.mark.parametrize("source", ["(VALUES (1, 10.0), (1, 20.0), (3, 30.0)) s(k, v)",
                                    "(SELECT 1 AS k, 10.0 AS v UNION ALL SELECT 1, 20.0 UNION ALL SELECT 3, 30.0) s"],
                         ids=["values", "subquery"])
def test_update_from_a_source_of_no_table_changes_each_row_once(c, source):
    """A target row two source rows join is updated once (PostgreSQL takes one of them), also
    when the source is a VALUES list or a subquery over no table: the table must not get the
    row twice - a primary key held twice."""
    cur = c.execute(f"UPDATE t SET score = s.v FROM {source} WHERE t.id = s.k")
    assert cur.rowcount == 2
    rows = q(c, "SELECT id, score FROM t ORDER BY id")
    assert [r[0] for r in rows] == [1, 2, 3] and rows[0][1] in (10.0, 20.0) and rows[2][1] == 30.0
    c.execute("CREATE TABLE nokey (id INT, n INT)")
    c.execute("INSERT INTO nokey VALUES (1, 0), (2, 0)")
    assert c.execute("UPDATE nokey SET n = s.v FROM (VALUES (1, 5), (1, 6)) s(k, v) WHERE nokey.id = s.k"
                     ).rowcount == 1
    assert q(c, "SELECT count(*) FROM nokey") == [(2,)]


def test_a_join_in_update_from_and_delete_using_keeps_its_condition(c):
    """``UPDATE ... FROM a JOIN b ON ...`` / ``DELETE ... USING a JOIN b ON ...``: the JOIN was
    dropped (sqlglot hangs it on the first table, where the rewrite lost it), so DELETE
    removed every row a alone matched, and UPDATE read a column of b from nowhere."""
    c.execute("CREATE TABLE s (k INT)")
    c.execute("CREATE TABLE u (k INT, v DOUBLE)")
    c.execute("INSERT INTO s VALUES (1), (2), (3)")
    c.execute("INSERT INTO u VALUES (1, 10), (3, 30)")
    assert c.execute("UPDATE t SET score = u.v FROM s JOIN u ON u.k = s.k WHERE t.id = s.k").rowcount == 2
    assert c.execute("UPDATE t SET name = 'x' FROM s JOIN (SELECT 2 AS k2) z ON z.k2 = s.k, u "
                     "WHERE t.id = s.k AND u.k = 1").rowcount == 1
    assert q(c, "SELECT * FROM t ORDER BY id") == [(1, "a", 10.0), (2, "x", 2.5), (3, "c", 30.0)]
    assert sorted(q(c, "DELETE FROM t USING s JOIN (SELECT 3 AS k3) z ON z.k3 = s.k WHERE t.id = s.k "
                       "RETURNING t.id")) == [(3,)]
    assert c.execute("DELETE FROM t USING s LEFT JOIN u ON u.k = s.k WHERE t.id = s.k AND u.k IS NULL").rowcount == 1
    assert q(c, "SELECT id FROM t") == [(1,)]


def test_delete_using_a_values_list_deletes_each_row_once(c):
    cur = c.execute("DELETE FROM t USING (VALUES (1), (1), (3)) g(k) WHERE t.id = g.k RETURNING t.id")
    assert sorted(cur.fetchall()) == [(1,), (3,)] and cur.rowcount == 2
    assert q(c, "SELECT id FROM t") == [(2,)]


def test_update_set_default(c):
    """SET c = DEFAULT gives the column its default (NULL without one), point UPDATE or not:
    it was 42703, a column named DEFAULT not found."""
    c.execute("CREATE TABLE d (id INT PRIMARY KEY, n INT DEFAULT 42, s TEXT DEFAULT 'x', m INT)")
    c.execute("INSERT INTO d VALUES (1, 1, 'a', 5), (2, 2, 'b', 6)")
    assert c.execute("UPDATE d SET n = DEFAULT, m = DEFAULT WHERE id = ?", (1,)).rowcount == 1
    c.execute("UPDATE d SET s = DEFAULT, n = n + 1")
    assert q(c, "SELECT * FROM d ORDER BY id") == [(1, 43, "x", None), (2, 3, "x", 6)]
    c.execute("INSERT INTO d VALUES (2, 0, 'c', 0) ON CONFLICT (id) DO UPDATE SET n = DEFAULT, s = excluded.s")
    assert q(c, "SELECT * FROM d WHERE id = 2") == [(2, 42, "c", 6)]  # (was 42703 in ON CONFLICT)


def test_a_with_clause_before_insert_update_and_delete(c):
    """``WITH ... INSERT / UPDATE / DELETE`` (it was 42P01: the CTE was not found); a CTE may
    name an earlier one and give its columns; recursive ones are 0A000 (data-modifying ones:
    test_with_writes.py)."""
    c.execute("WITH src AS (SELECT 10 AS k, 'ten' AS n) INSERT INTO t (id, name) SELECT k, n FROM src")
    c.execute("WITH s(k, x) AS (VALUES (1, 7.5), (2, 8.5)) UPDATE t SET score = s.x FROM s WHERE t.id = s.k")
    assert c.execute("WITH a AS (SELECT 3 AS k), b AS (SELECT k FROM a) DELETE FROM t WHERE id IN (SELECT k FROM b) "
                     "RETURNING id").fetchall() == [(3,)]
    assert q(c, "SELECT id, name, score FROM t ORDER BY id") == [(1, "a", 7.5), (2, "b", 8.5), (10, "ten", None)]
    with pytest.raises(errors.NotSupportedError):
        c.execute("WITH RECURSIVE r AS (SELECT 1 AS k) DELETE FROM t WHERE id IN (SELECT k FROM r)")
    assert q(c, "SELECT count(*) FROM t") == [(3,)]


def test_parameters_of_a_with_clause_before_insert_update_and_delete_keep_their_places(c):
    """Each ``?`` takes the parameter of its place in the text, also in a CTE (which txlake
    puts where it is named): they were bound in the order of the rewritten statement - a
    CTE's after the statement's own, silently swapping values of one type - and a CTE named
    twice, or not at all, asked for more or fewer parameters than the text holds."""
    c.execute("WITH x AS (SELECT ? AS k) INSERT INTO t (id, name) SELECT k, ? FROM x", (10, "ten"))
    c.execute("WITH x AS (SELECT ? AS k, ? AS n) INSERT INTO t (id, name) SELECT k, n FROM x "
              "UNION ALL SELECT k + 1, n FROM x", (20, "twenty"))
    c.execute("WITH x AS (SELECT ? AS v) UPDATE t SET score = ? WHERE id IN (SELECT v FROM x)", (1, 100.0))
    c.execute("WITH x AS (SELECT ? AS v), unused AS (SELECT ? AS w) UPDATE t SET score = ? FROM x WHERE id = x.v",
              (2, "nothing", 200.0))
    assert sorted(q(c, "WITH x AS (SELECT ? AS v) DELETE FROM t WHERE id = ? OR id IN (SELECT v FROM x) "
                      "RETURNING id, ?", (21, 3, "gone"))) == [(3, "gone"), (21, "gone")]
    assert q(c, "SELECT id, name, score FROM t ORDER BY id") == [
        (1, "a", 100.0), (2, "b", 200.0), (10, "ten", None), (20, "twenty", None)]
    with pytest.raises(errors.ProgrammingError) as e:
        c.execute("WITH x AS (SELECT ? AS v) DELETE FROM t WHERE id IN (SELECT v FROM x)", (1, 2))
    assert e.value.sqlstate == "08P01"


def test_update_primary_key(c):
    c.execute("UPDATE t SET id = id + 100")          # every key changes; uniqueness holds at the end
    assert q(c, "SELECT id FROM t ORDER BY id") == [(101,), (102,), (103,)]
    with pytest.raises(errors.IntegrityError) as info:  # a swap: PostgreSQL checks the key row by row
        c.execute("UPDATE t SET id = CASE id WHEN 101 THEN 102 WHEN 102 THEN 101 ELSE id END")
    assert info.value.sqlstate == "23505" and "Key (id)=(102) already exists." in str(info.value)
    c.execute("UPDATE t SET id = CASE id WHEN 101 THEN 100 WHEN 102 THEN 101 WHEN 103 THEN 102 END")  # a shift down
    assert q(c, "SELECT id, name FROM t ORDER BY id") == [(100, "a"), (101, "b"), (102, "c")]
    c.execute("UPDATE t SET id = 1 WHERE id = 102")
    c.execute("INSERT INTO t (id) VALUES (102)")     # the old key is free again
    assert q(c, "SELECT id FROM t ORDER BY id") == [(1,), (100,), (101,), (102,)]


def test_update_in_a_transaction_sees_its_own_writes(connect):
    c = connect()
    c.execute("CREATE TABLE k (id INT PRIMARY KEY, n INT)")
    c.execute("INSERT INTO k VALUES (1, 0)")
    for _ in range(5):
        c.execute("UPDATE k SET n = n + 1 WHERE id = 1")
    c.execute("INSERT INTO k VALUES (2, 0)")
    c.execute("UPDATE k SET n = n + 10")
    c.execute("DELETE FROM k WHERE id = 2")
    c.commit()
    assert q(c, "SELECT * FROM k") == [(1, 15)]


# --- DELETE ------------------------------------------------------------------------------

def test_delete(c):
    assert c.execute("DELETE FROM t WHERE id = ?", (1,)).rowcount == 1
    assert c.execute("DELETE FROM t WHERE id = 1").rowcount == 0
    assert c.execute("DELETE FROM t x WHERE x.score IS NULL").rowcount == 1
    assert q(c, "SELECT id FROM t") == [(2,)]
    assert c.execute("DELETE FROM t").rowcount == 1
    assert q(c, "SELECT count(*) FROM t") == [(0,)]
    c.execute("INSERT INTO t (id) VALUES (1)")       # keys of deleted rows can be reused
    assert q(c, "SELECT * FROM t") == [(1, "anon", None)]


def test_truncate(c, connect):
    """``TRUNCATE [TABLE] a, b``: every row of each goes, in the transaction (a ROLLBACK
    brings them back); it was 0A000. A missing table is 42P01 before any is emptied."""
    c.execute("CREATE TABLE other.u (x INT)")
    c.execute("INSERT INTO other.u VALUES (1), (2)")
    with pytest.raises(errors.UndefinedTable):
        c.execute("TRUNCATE t, missing")
    assert q(c, "SELECT count(*) FROM t") == [(3,)]
    conn = connect()
    assert conn.execute("TRUNCATE TABLE t, other.u RESTART IDENTITY CASCADE").rowcount == -1
    assert q(conn, "SELECT (SELECT count(*) FROM t), (SELECT count(*) FROM other.u)") == [(0, 0)]
    conn.rollback()
    assert q(c, "SELECT (SELECT count(*) FROM t), (SELECT count(*) FROM other.u)") == [(3, 2)]
    c.execute("TRUNCATE t")
    assert q(c, "SELECT count(*) FROM t") == [(0,)]
    c.execute("INSERT INTO t (id) VALUES (1)")  # (its keys are free again)
    assert q(c, "SELECT id, name FROM t") == [(1, "anon")]
    conn.execute("BEGIN READ ONLY")
    with pytest.raises(errors.Error) as e:
        conn.execute("TRUNCATE t")
    assert e.value.sqlstate == "25006"


def test_delete_using_and_returning(c):
    c.execute("CREATE TABLE gone (id INT)")
    c.execute("INSERT INTO gone VALUES (1), (3), (3)")
    cur = c.execute("DELETE FROM t USING gone WHERE t.id = gone.id RETURNING t.id, name")
    assert sorted(cur.fetchall()) == [(1, "a"), (3, "c")] and cur.rowcount == 2
    assert q(c, "DELETE FROM t WHERE id IN (SELECT 2) RETURNING *, ? || name", ("was ",)) == [
        (2, "b", 2.5, "was b")]
    assert q(c, "SELECT count(*) FROM t") == [(0,)]


# --- CREATE TABLE AS and queries ---------------------------------------------------------

def test_create_table_as(c):
    cur = c.execute("CREATE TABLE s AS SELECT id, name, score * 10 AS s10 FROM t WHERE id < ?", (3,))
    assert cur.rowcount == 2
    assert q(c, "SELECT * FROM s ORDER BY id") == [(1, "a", 15.0), (2, "b", 25.0)]
    assert [(d[0], d[1]) for d in c.execute("SELECT * FROM s").description] == [
        ("id", "INTEGER"), ("name", "VARCHAR"), ("s10", "DOUBLE")]
    c.execute("INSERT INTO s VALUES (5, 'e', 0)")    # an ordinary table afterwards
    c.execute("CREATE TABLE e AS SELECT id, name FROM t WHERE false")
    assert q(c, "SELECT * FROM e") == [] and [d[0] for d in c.execute("SELECT * FROM e").description] == [
        "id", "name"]
    c.execute("CREATE TABLE IF NOT EXISTS e AS SELECT 1 AS other")
    assert [d[0] for d in c.execute("SELECT * FROM e").description] == ["id", "name"]


def test_create_table_as_with_column_names_and_with_no_data(c):
    """``CREATE TABLE n (a, b) AS ...`` names the columns (fewer names: the rest keep theirs),
    ``... WITH NO DATA`` makes the table empty, ``WITH DATA`` is the default: they were 42601
    'column "a" needs a type' and 0A000. More names than columns is 42601."""
    assert c.execute("CREATE TABLE n (k, label) AS SELECT id, name, score FROM t WHERE id = 1").rowcount == 1
    cur = c.execute("SELECT * FROM n")
    assert cur.fetchall() == [(1, "a", 1.5)] and [d[0] for d in cur.description] == ["k", "label", "score"]
    c.execute("CREATE TABLE e AS SELECT id, name FROM t WITH NO DATA")
    cur = c.execute("SELECT * FROM e")
    assert cur.fetchall() == [] and [(d[0], d[1]) for d in cur.description] == [("id", "INTEGER"), ("name", "VARCHAR")]
    assert c.execute("CREATE TABLE w AS SELECT id FROM t WITH DATA").rowcount == 3
    with pytest.raises(errors.SyntaxError):
        c.execute("CREATE TABLE x (a, b, c, d) AS SELECT id, name, score FROM t")
    with pytest.raises(errors.DuplicateColumn):
        c.execute("CREATE TABLE x (a, a) AS SELECT id, name FROM t")


def test_queries(c):
    c.execute("CREATE TABLE s (id INT, tag TEXT)")
    c.execute("INSERT INTO s VALUES (1, 'x'), (1, 'y'), (2, 'x'), (4, 'z')")
    assert q(c, "SELECT t.id, s.tag FROM t JOIN s ON s.id = t.id ORDER BY 1, 2") == [
        (1, "x"), (1, "y"), (2, "x")]
    assert q(c, "SELECT t.id, s.tag FROM t LEFT JOIN s USING (id) WHERE s.tag IS NULL") == [(3, None)]
    assert q(c, "SELECT s.id FROM t RIGHT JOIN s ON s.id = t.id WHERE t.id IS NULL") == [(4,)]
    assert q(c, """WITH tags AS (SELECT id, count(*) AS n FROM s GROUP BY id)
                   SELECT t.name, coalesce(tags.n, 0) FROM t LEFT JOIN tags USING (id) ORDER BY t.name""") == [
        ("a", 2), ("b", 1), ("c", 0)]
    assert q(c, "SELECT tag, count(*), min(id), max(id), sum(id), avg(id) FROM s GROUP BY tag "
                "HAVING count(*) > 1") == [("x", 2, 1, 2, 3, 1.5)]
    assert q(c, "SELECT count(*), count(score), sum(score), max(name) FROM t") == [(3, 2, 4.0, "c")]
    assert q(c, "SELECT id, row_number() OVER (ORDER BY id DESC), sum(id) OVER (ORDER BY id), "
                "rank() OVER (ORDER BY score DESC NULLS LAST), lag(name) OVER (ORDER BY id) FROM t ORDER BY id") == [
        (1, 3, 1, 2, None), (2, 2, 3, 1, "a"), (3, 1, 6, 3, "b")]
    assert q(c, "SELECT id FROM t WHERE id IN (SELECT id FROM s) AND EXISTS (SELECT 1 FROM s WHERE s.id = t.id) "
                "ORDER BY id") == [(1,), (2,)]
    assert q(c, "SELECT id FROM t UNION SELECT id FROM s ORDER BY 1") == [(1,), (2,), (3,), (4,)]
    assert q(c, "SELECT id FROM s EXCEPT SELECT id FROM t") == [(4,)]
    assert q(c, "SELECT name FROM t ORDER BY id LIMIT 1 OFFSET 1") == [("b",)]
    assert q(c, "SELECT * FROM (VALUES (1, 'a'), (2, 'b')) v(i, s) ORDER BY i DESC") == [(2, "b"), (1, "a")]
    assert q(c, "SELECT CASE WHEN score > 2 THEN 'hi' ELSE 'lo' END FROM t ORDER BY id") == [
        ("lo",), ("hi",), ("lo",)]
    assert q(c, "SELECT count(*) FROM t a, t b") == [(9,)]        # the same table twice


def test_schema_qualified_names(c):
    c.execute("CREATE TABLE other.t (x TEXT)")
    c.execute("INSERT INTO other.t VALUES ('elsewhere')")
    assert q(c, "SELECT * FROM other.t") == [("elsewhere",)]
    assert q(c, 'SELECT count(*) FROM "default".t') == [(3,)]
    assert q(c, "SELECT a.id, b.x FROM t a, other.t b WHERE a.id = 1") == [(1, "elsewhere")]
    c.execute("DROP TABLE other.t")
    assert q(c, "SELECT count(*) FROM t") == [(3,)]


def test_quoted_identifiers(connect):
    c = connect(autocommit=True)
    c.execute('CREATE TABLE "Mixed" ("Col" INT, other TEXT)')
    c.execute('INSERT INTO "Mixed" VALUES (1, \'x\')')
    assert q(c, 'SELECT "Col", other FROM "Mixed"') == [(1, "x")]
    assert [d[0] for d in c.execute('SELECT * FROM "Mixed"').description] == ["Col", "other"]
    with pytest.raises(errors.UndefinedTable):
        c.execute("SELECT * FROM Mixed")             # folds to "mixed"
    c.execute("CREATE TABLE mixed (i INT)")          # a different table
    assert q(c, "SELECT * FROM Mixed") == []


@pytest.mark.parametrize("sql", ['CREATE TABLE cs ("Col" INT, col TEXT)', 'ALTER TABLE t ADD COLUMN "NAME" TEXT',
                                 'ALTER TABLE t RENAME COLUMN score TO "Name"'])
def test_column_names_differing_only_in_case_are_refused(c, sql):
    # queries run in DuckDB, which matches column names case-insensitively: "Col" and col
    # in one table could not be told apart
    with pytest.raises(errors.DuplicateColumn) as info:
        c.execute(sql)
    assert info.value.sqlstate == "42701"
    c.execute('ALTER TABLE t RENAME COLUMN name TO "Name"')   # a change of case alone is fine
    assert [d[0] for d in c.execute("SELECT * FROM t").description] == ["id", "Name", "score"]


def test_alter_column_default_and_not_null(c, connect, warehouse):
    """``ALTER TABLE t ALTER [COLUMN] c SET DEFAULT x | DROP DEFAULT | SET NOT NULL | DROP NOT
    NULL`` (they were 0A000): a default applies to rows inserted from then on; SET NOT NULL
    checks the rows there are (23502), DROP NOT NULL of a key column is 42P16; a rollback
    undoes them, and they last in a new process's view of the table."""
    c.execute("ALTER TABLE t ALTER COLUMN score SET DEFAULT 0.5, ALTER name DROP DEFAULT")
    c.execute("INSERT INTO t (id, name) VALUES (4, 'd')")
    with pytest.raises(errors.NotNullViolation):
        c.execute("INSERT INTO t (id) VALUES (5)")       # name is NOT NULL and has no default now
    assert q(c, "SELECT * FROM t WHERE id >= 3 ORDER BY id") == [(3, "c", None), (4, "d", 0.5)]
    with pytest.raises(errors.NotNullViolation) as e:
        c.execute("ALTER TABLE t ALTER COLUMN score SET NOT NULL")   # row 3 holds NULL
    assert e.value.sqlstate == "23502" and 'column "score" of relation "t" contains null values' in str(e.value)
    c.execute("UPDATE t SET score = 0 WHERE score IS NULL")
    c.execute("ALTER TABLE t ALTER COLUMN score SET NOT NULL, ALTER COLUMN name DROP NOT NULL")
    with pytest.raises(errors.NotNullViolation):
        c.execute("UPDATE t SET score = NULL WHERE id = 1")
    c.execute("INSERT INTO t (id) VALUES (5)")
    with pytest.raises(errors.Error) as e:
        c.execute("ALTER TABLE t ALTER COLUMN id DROP NOT NULL")
    assert e.value.sqlstate == "42P16"
    for sql, state in [("ALTER TABLE t ALTER COLUMN nope SET DEFAULT 1", "42703"),
                       ("ALTER TABLE t ALTER COLUMN score SET DEFAULT 'x'", "22P02")]:
        with pytest.raises(errors.Error) as e:
            c.execute(sql)
        assert e.value.sqlstate == state, sql
    conn = connect()
    conn.execute("ALTER TABLE t ALTER COLUMN score DROP NOT NULL, ALTER COLUMN score DROP DEFAULT")
    conn.rollback()
    c.execute("INSERT INTO t (id) VALUES (6)")
    assert q(c, "SELECT * FROM t WHERE id >= 5 ORDER BY id") == [(5, None, 0.5), (6, None, 0.5)]
    code = ("import txlake\n"
            "c = txlake.connect(__import__('sys').argv[1], publish='off', autocommit=True)\n"
            "c.execute('INSERT INTO t (id) VALUES (7)')\n"
            "try:\n"
            "    c.execute('UPDATE t SET score = NULL WHERE id = 7')\n"
            "except txlake.Error as e:\n"
            "    print(e.sqlstate)\n"
            "print(c.execute('SELECT name, score FROM t WHERE id = 7').fetchall())\n")
    done = run_python(code, warehouse)
    assert done.stdout.split("\n")[:2] == ["23502", "[(None, 0.5)]"], done.stderr


# --- column types ------------------------------------------------------------------------

TYPES = ("b BOOLEAN, i INT, l BIGINT, d DOUBLE, n DECIMAL(12,4), v VARCHAR(10), tx TEXT, dt DATE, ts TIMESTAMP")

EDGE_ROWS = [
    (True, -7, 2**40, 0.1, decimal.Decimal("-12345.6789"), "héllo", "日本語 🦆",
     datetime.date(2024, 2, 29), datetime.datetime(2024, 1, 2, 3, 4, 5, 123456)),
    (False, 2**31 - 1, -2**63, -1e308, decimal.Decimal("99999999.9999"), "", "",
     datetime.date(1, 1, 1), datetime.datetime(9999, 12, 31, 23, 59, 59, 999999)),
    (True, -2**31, 2**63 - 1, 5e-324, decimal.Decimal("0.0001"), "ten chars!", "x" * 10_000,
     datetime.date(1970, 1, 1), datetime.datetime(1970, 1, 1)),
    (None,) * 9,
]


def test_all_types_round_trip(connect):
    c = connect(autocommit=True)
    c.execute(f"CREATE TABLE ty ({TYPES})")
    c.cursor().executemany("INSERT INTO ty VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", EDGE_ROWS)
    assert q(c, "SELECT * FROM ty ORDER BY i NULLS LAST") == sorted(EDGE_ROWS[:3], key=lambda r: r[1]) + [EDGE_ROWS[3]]
    for row in EDGE_ROWS[:3]:                        # values compare exactly inside SQL, too
        assert q(c, "SELECT count(*) FROM ty WHERE b = ? AND i = ? AND l = ? AND d = ? AND n = ? AND v = ? "
                    "AND tx = ? AND dt = ? AND ts = ?", row) == [(1,)]
    assert [d[1] for d in c.execute("SELECT * FROM ty").description] == [
        "BOOLEAN", "INTEGER", "BIGINT", "DOUBLE", "DECIMAL", "VARCHAR", "VARCHAR", "DATE", "TIMESTAMP"]
    n = c.execute("SELECT n FROM ty").description[0]
    assert (n[4], n[5]) == (12, 4)


def test_types_round_trip_through_updates_and_a_new_connection(connect, warehouse):
    c = connect()
    c.execute(f"CREATE TABLE ty (id INT PRIMARY KEY, {TYPES})")
    for i, row in enumerate(EDGE_ROWS):
        c.execute("INSERT INTO ty VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", (i, *row))
    c.execute("UPDATE ty SET v = v || '' WHERE id = 0")   # rewrites a row through DuckDB
    c.commit()
    fresh = txlake.connect(warehouse, publish="off")
    try:
        assert q(fresh, "SELECT * FROM ty ORDER BY id") == [(i, *row) for i, row in enumerate(EDGE_ROWS)]
    finally:
        fresh.close()


def test_a_decimal_parameter_of_more_than_38_digits_keeps_its_digits(c):
    """DuckDB took such a Decimal as a DOUBLE: 12345678901234567890.1234567890123456789 was
    stored as 12345678901234568227.576610816. It is rounded to the column as in PostgreSQL."""
    c.execute("CREATE TABLE n (id INT, v NUMERIC, w DECIMAL(30,2))")
    v = decimal.Decimal("12345678901234567890.1234567890123456789")
    c.execute("INSERT INTO n VALUES (1, ?, ?)", (v, v))
    minus = v.copy_negate()  # (not -v: that rounds to the context's 28 digits)
    c.cursor().executemany("INSERT INTO n VALUES (?, ?, ?)", [(2, minus, minus)])
    assert q(c, "SELECT v, w FROM n ORDER BY id") == [
        (decimal.Decimal("12345678901234567890.123456789"), decimal.Decimal("12345678901234567890.12")),
        (decimal.Decimal("-12345678901234567890.123456789"), decimal.Decimal("-12345678901234567890.12"))]
    assert q(c, "SELECT id FROM n WHERE v = ?", (v,)) == []  # compared exactly (to 38 digits): no match
    with pytest.raises(txlake.NumericValueOutOfRange):  # too large for DECIMAL(38, 9): 22003, not a DOUBLE
        c.execute("INSERT INTO n (id, v) VALUES (3, ?)", (decimal.Decimal("1" * 40),))


def test_literals_are_cast_to_column_types(connect):
    c = connect(autocommit=True)
    c.execute(f"CREATE TABLE ty ({TYPES})")
    c.execute("INSERT INTO ty VALUES ('true', '42', '7', '1.5', '3.14159', 'abc', 'def', '2024-03-01', "
              "'2024-03-01 12:00:00')")
    assert q(c, "SELECT * FROM ty") == [(True, 42, 7, 1.5, decimal.Decimal("3.1416"), "abc", "def",
                                         datetime.date(2024, 3, 1), datetime.datetime(2024, 3, 1, 12))]


def test_values_rows_of_mixed_types_go_to_the_column_types(c):
    """As PostgreSQL's INSERT: each value goes to its column's type, so rows whose values do not
    share one type (a number for TEXT, a string for DOUBLE, parameters of several types) insert."""
    c.execute("INSERT INTO t VALUES (4, 'd', 1), (5, 5, '2.5'), (6, DEFAULT, -3), (7, 'g', NULL)")
    c.execute("INSERT INTO t (id, name) VALUES (?, ?), (?, ?)", (8, "x", 9, 10))
    assert q(c, "SELECT * FROM t WHERE id >= 4 ORDER BY id") == [
        (4, "d", 1.0), (5, "5", 2.5), (6, "anon", -3.0), (7, "g", None), (8, "x", None), (9, "10", None)]
    with pytest.raises(txlake.InvalidTextRepresentation):  # a value its column cannot take, still 22P02
        c.execute("INSERT INTO t (id, score) VALUES (10, 1), (11, 'abc')")


def test_char_keeps_its_length(c):
    """DuckDB reads CHAR(n) as TEXT: its length was dropped. It is a VARCHAR(n) (not padded);
    CHAR alone is CHAR(1), as in PostgreSQL."""
    c.execute("CREATE TABLE ch (code CHAR(3), flag CHAR, c2 CHARACTER(2))")
    c.execute("INSERT INTO ch VALUES ('abc', 'y', 'ab')")
    for row in ["('abcd', 'y', 'ab')", "('abc', 'yn', 'ab')", "('abc', 'y', 'abc')"]:
        with pytest.raises(errors.StringDataRightTruncation):
            c.execute(f"INSERT INTO ch VALUES {row}")
    assert q(c, "SELECT * FROM ch") == [("abc", "y", "ab")]


def test_varchar_length_counts_characters_not_bytes(connect):
    c = connect(autocommit=True)
    c.execute("CREATE TABLE v (s VARCHAR(3))")
    c.execute("INSERT INTO v VALUES ('日本語'), ('ab')")
    with pytest.raises(errors.StringDataRightTruncation):
        c.execute("INSERT INTO v VALUES ('日本語x')")
    assert q(c, "SELECT s FROM v ORDER BY s") == [("ab",), ("日本語",)]


def test_varchar_cuts_trailing_spaces_past_its_length(c):
    """A value longer than VARCHAR(n) (or CHAR(n)) whose characters past n are all spaces is
    cut to n, as PostgreSQL stores it - it was 22001 - on every path: INSERT VALUES (Python and
    DuckDB), INSERT SELECT, UPDATE (point and general), ON CONFLICT DO UPDATE, ADD COLUMN's
    default. Other characters past n are still 22001."""
    c.execute("CREATE TABLE v (id INT PRIMARY KEY, s VARCHAR(3), ch CHAR(2))")
    c.execute("INSERT INTO v VALUES (1, 'ab   ', 'x   '), (2, '日本語 ', NULL)")
    c.execute("INSERT INTO v VALUES (?, ?, ?)", (3, "abc  ", "yz "))
    c.execute("INSERT INTO v SELECT 4, 'q' || '    ', 'r  '")
    c.execute("UPDATE v SET s = 'uvw ' WHERE id = 3")
    c.execute("UPDATE v SET ch = ch || '  ' WHERE id <> 2")
    c.execute("INSERT INTO v VALUES (4, 'z', 'z') ON CONFLICT (id) DO UPDATE SET s = 'cat   '")
    c.execute("ALTER TABLE v ADD COLUMN d VARCHAR(2) DEFAULT 'ok  '")
    assert q(c, "SELECT id, s, ch, d FROM v ORDER BY id") == [
        (1, "ab ", "x ", "ok"), (2, "日本語", None, "ok"), (3, "uvw", "yz", "ok"), (4, "cat", "r ", "ok")]
    for sql in ["INSERT INTO v VALUES (5, 'abcd ', NULL)", "INSERT INTO v VALUES (5, 'ab  x', NULL)",
                "UPDATE v SET s = s || 'x'", "INSERT INTO v (id, s) SELECT 5, 'abc  .'"]:
        with pytest.raises(errors.StringDataRightTruncation):
            c.execute(sql)


# --- the cursor surface ------------------------------------------------------------------

def test_description_and_rowcount(c):
    cur = c.cursor()
    assert cur.description is None and cur.rowcount == -1
    cur.execute("SELECT id, name, score FROM t ORDER BY id")
    assert [d[0] for d in cur.description] == ["id", "name", "score"]
    assert all(len(d) == 7 for d in cur.description)
    assert cur.description[0][1] == txlake.NUMBER and cur.description[1][1] == txlake.STRING
    assert cur.rowcount == 3
    cur.execute("SELECT id FROM t WHERE false")
    assert cur.description[0][0] == "id" and cur.rowcount == 0 and cur.fetchall() == []
    cur.execute("INSERT INTO t (id) VALUES (7)")
    assert cur.description is None and cur.rowcount == 1 and cur.statusmessage == "INSERT 0 1"
    cur.execute("UPDATE t SET score = 0")
    assert cur.rowcount == 4 and cur.statusmessage == "UPDATE 4"
    cur.execute("CREATE TABLE z (i INT)")
    assert cur.description is None and cur.rowcount == -1
    with pytest.raises(txlake.ProgrammingError):
        cur.fetchall()


def test_fetch_methods(c):
    cur = c.cursor()
    assert cur.arraysize == 1
    cur.execute("SELECT id FROM t ORDER BY id")
    assert cur.fetchmany() == [(1,)]                  # arraysize rows
    cur.arraysize = 5
    assert cur.fetchmany() == [(2,), (3,)]
    assert cur.fetchmany() == [] and cur.fetchone() is None and cur.fetchall() == []
    cur.execute("SELECT id FROM t ORDER BY id")
    assert cur.fetchone() == (1,)
    assert cur.fetchmany(1) == [(2,)]
    assert cur.fetchall() == [(3,)]
    cur.execute("SELECT id FROM t ORDER BY id")
    assert list(cur) == [(1,), (2,), (3,)]
    assert [r for r in c.execute("SELECT name FROM t ORDER BY id")] == [("a",), ("b",), ("c",)]


def test_intervals_and_times_fetch_as_python_values(c):
    """As psycopg: an INTERVAL is a timedelta (a month is 30 days), not pyarrow's MonthDayNano;
    both it and TIME compare equal to DATETIME."""
    cur = c.execute("SELECT interval '1 month 2 days 03:00:00.5' AS i, TIME '12:30:00' AS t, "
                    "DATE '2024-03-02' - DATE '2024-03-01' AS n, ?::INTERVAL AS p", (datetime.timedelta(hours=5),))
    assert cur.fetchall() == [(datetime.timedelta(days=32, hours=3, microseconds=500000),
                               datetime.time(12, 30), 1, datetime.timedelta(hours=5))]
    codes = [d[1] for d in cur.description]
    assert codes[0] == txlake.DATETIME and codes[1] == txlake.DATETIME and codes[3] == txlake.DATETIME


def test_select_into_creates_a_table_as_postgresql_s(c, connect):
    """SELECT ... INTO t is CREATE TABLE t AS SELECT ... (it was 42P01: relation "t" does not exist)."""
    cur = c.execute("SELECT id, name AS label INTO copied FROM t WHERE id < 3")
    assert (cur.statusmessage, cur.rowcount, cur.description) == ("SELECT 2", 2, None)
    c.execute("SELECT id INTO more FROM t WHERE id = 3 UNION ALL SELECT 7")
    c.commit()
    other = connect()
    assert other.execute("SELECT * FROM copied ORDER BY id").fetchall() == [(1, "a"), (2, "b")]
    assert other.execute("SELECT * FROM more ORDER BY id").fetchall() == [(3,), (7,)]
    c.execute("SELECT 1 AS x INTO TEMP scratch")  # a temporary table: its session's alone
    assert c.execute("SELECT x FROM scratch").fetchall() == [(1,)]
    with pytest.raises(errors.UndefinedTable):
        other.execute("SELECT * FROM scratch")


def test_an_array_column_s_type_code_is_its_postgresql_name(c):
    """It was pyarrow's spelling (LIST<L: INT32>)."""
    cur = c.execute("SELECT ? AS a, ? AS b, [[1.5]] AS c", ([1, 2], ["x"]))
    assert [d[1] for d in cur.description] == ["INTEGER[]", "VARCHAR[]", "DECIMAL[][]"]
    assert cur.fetchall() == [([1, 2], ["x"], [[decimal.Decimal("1.5")]])]


def test_fetch_arrow_table(c):
    table = c.execute("SELECT * FROM t ORDER BY id").fetch_arrow_table()
    assert isinstance(table, pa.Table) and table.num_rows == 3
    assert table.column_names == ["id", "name", "score"]
    assert table.column("name").to_pylist() == ["a", "b", "c"]
    assert table.schema.field("id").type == pa.int32()
    with pytest.raises(txlake.ProgrammingError):
        c.execute("INSERT INTO t (id) VALUES (9)").fetch_arrow_table()


def test_multiple_statements_in_one_execute(c):
    cur = c.execute("INSERT INTO t (id) VALUES (4); SELECT count(*) FROM t")
    assert cur.fetchall() == [(4,)]                   # the last statement's result
    with pytest.raises(txlake.ProgrammingError):
        c.execute("SELECT ?; SELECT 2", (1,))


def test_statements_of_one_execute_in_autocommit_are_one_transaction(c):
    """As PostgreSQL runs a query string of several statements: all or nothing, unless the
    string has transaction control of its own."""
    with pytest.raises(txlake.DivisionByZero):
        c.execute("INSERT INTO t (id) VALUES (4); UPDATE t SET score = 0 WHERE id = 1; SELECT 1 / 0")
    assert q(c, "SELECT count(*), max(score) FROM t") == [(3, 2.5)]
    with pytest.raises(txlake.UniqueViolation):
        c.execute("INSERT INTO t (id) VALUES (5); COMMIT; BEGIN; INSERT INTO t (id) VALUES (1)")
    c.execute("ROLLBACK")
    assert q(c, "SELECT id FROM t WHERE id > 3") == [(5,)]
    c.execute("INSERT INTO t (id) VALUES (6); SET lock_timeout = '1s'; INSERT INTO t (id) VALUES (7)")
    assert q(c, "SELECT count(*) FROM t") == [(6,)]


def test_a_failed_execute_leaves_no_result_of_an_earlier_one(c):
    cur = c.cursor()
    cur.execute("SELECT id FROM t")
    with pytest.raises(txlake.ProgrammingError):
        cur.execute("SELECT nosuch FROM t")
    assert cur.description is None and cur.rowcount == -1
    with pytest.raises(txlake.ProgrammingError):
        cur.fetchall()


def test_connect_refuses_what_is_no_warehouse_and_checks_options_every_time(tmp_path, connect):
    """Bare OSErrors were raised for a path that is a file, connect(None) made a directory named
    None, and a misspelt option was ignored once another connection had the warehouse open."""
    a_file = tmp_path / "file"
    a_file.write_text("x")
    for path in [a_file, a_file / "wh"]:
        with pytest.raises(txlake.OperationalError) as e:
            txlake.connect(path)
        assert e.value.sqlstate == "08001"
    for path in [None, "", 42]:
        with pytest.raises(txlake.InterfaceError):
            txlake.connect(path)
    connect()  # the warehouse is open in this process: options are still checked
    with pytest.raises(TypeError):
        connect(autocomit=True)
    for bad in [{"gc_interval": "x"}, {"durable": "no"}, {"max_active_transactions": 0},
                {"memory_limit": "lots"}, {"publish": "never"}, {"commit_timeout": float("nan")}]:
        with pytest.raises(txlake.DataError) as e:
            connect(**bad)
        assert e.value.sqlstate == "22023", bad


def test_cursor_is_an_iterator_and_says_what_it_does_not_do(c):
    cur = c.cursor()
    cur.execute("SELECT id FROM t ORDER BY id")
    assert iter(cur) is cur and next(cur) == (1,) and list(cur) == [(2,), (3,)]
    with pytest.raises(StopIteration):
        next(cur)
    for call in [lambda: cur.callproc("f"), cur.nextset]:
        with pytest.raises(txlake.NotSupportedError):
            call()
    with pytest.raises(txlake.ProgrammingError):
        cur.execute(None)


def test_text_that_is_not_utf8_is_22021(c):
    """A str with a lone surrogate (bytes decoded with surrogateescape) raised a bare
    UnicodeEncodeError from an INSERT."""
    for sql, params in [("INSERT INTO t (id, name) VALUES (9, ?)", ("a\udc80",)), ("SELECT ?", ("a\udc80",)),
                        ("INSERT INTO t (id, name) VALUES (9, 'a\udc80')", ())]:
        with pytest.raises(txlake.DataError) as e:
            c.execute(sql, params)
        assert e.value.sqlstate == "22021"
    assert q(c, "SELECT count(*) FROM t") == [(3,)]


def test_closed_cursor_and_connection(c, connect):
    with c.cursor() as cur:
        cur.execute("SELECT 1")
    with pytest.raises(txlake.InterfaceError):
        cur.execute("SELECT 1")
    with pytest.raises(txlake.InterfaceError):
        cur.fetchone()
    other = connect()
    other.close()
    other.close()                                     # closing twice is fine
    for action in (lambda: other.cursor(), lambda: other.execute("SELECT 1"), other.commit, other.rollback):
        with pytest.raises(txlake.InterfaceError):
            action()


def test_module_globals_and_exceptions():
    assert txlake.apilevel == "2.0" and txlake.paramstyle == "qmark" and txlake.threadsafety in (1, 2)
    assert txlake.NUMBER == "INTEGER" and txlake.NUMBER == "DECIMAL" and txlake.STRING == "VARCHAR"
    assert txlake.DATETIME == "DATE" and txlake.DATETIME == "TIMESTAMP" and txlake.NUMBER != "VARCHAR"
    assert txlake.Date(2024, 1, 2) == datetime.date(2024, 1, 2)
    assert txlake.Connection.Error is txlake.Error


# --- executemany -------------------------------------------------------------------------

def test_executemany_rowcount_is_the_total(c):
    cur = c.cursor()
    cur.executemany("INSERT INTO t (id, name) VALUES (?, ?)", [(i, f"n{i}") for i in range(10, 60)])
    assert cur.rowcount == 50
    cur.executemany("UPDATE t SET score = ? WHERE id >= ?", [(1.0, 10), (2.0, 50)])
    assert cur.rowcount == 60
    cur.executemany("DELETE FROM t WHERE id = ?", [(10,), (11,), (999,)])
    assert cur.rowcount == 2
    cur.executemany("INSERT INTO t (id) VALUES (?)", [])
    assert cur.rowcount == 0
    assert q(c, "SELECT count(*), sum(score) FROM t") == [(51, 38 * 1.0 + 10 * 2.0 + 1.5 + 2.5)]


def test_executemany_parses_once(c):
    sql = "INSERT INTO t (id, name) VALUES (?, ?) -- executemany probe"
    from txlake.parser import parse as parse_module
    before = parse_module._parse_cached.cache_info()
    c.cursor().executemany(sql, [(i, "x") for i in range(100, 140)])
    after = parse_module._parse_cached.cache_info()
    assert after.misses == before.misses + 1          # this text was parsed exactly once
    assert after.hits - before.hits <= 1
    assert q(c, "SELECT count(*) FROM t") == [(43,)]


def test_executemany_in_a_transaction_is_all_or_nothing(connect, c):
    t = connect()
    with pytest.raises(errors.UniqueViolation):
        t.cursor().executemany("INSERT INTO t (id) VALUES (?)", [(20,), (21,), (1,), (22,)])
    t.rollback()
    assert q(c, "SELECT count(*) FROM t") == [(3,)]
    t.cursor().executemany("INSERT INTO t (id) VALUES (?)", [(20,), (21,)])
    assert q(c, "SELECT count(*) FROM t") == [(3,)]    # not yet committed
    t.commit()
    assert q(c, "SELECT count(*) FROM t") == [(5,)]


def test_executemany_refuses_scripts(c):
    with pytest.raises(txlake.ProgrammingError):
        c.cursor().executemany("INSERT INTO t (id) VALUES (?); SELECT 1", [(1,)])


# --- context managers --------------------------------------------------------------------

def test_connection_context_manager_commits_on_success(warehouse):
    with txlake.connect(warehouse, publish="off") as c:
        c.execute("CREATE TABLE x (i INT)")
        c.execute("INSERT INTO x VALUES (1)")
    assert c.closed
    with txlake.connect(warehouse, publish="off") as c:
        assert q(c, "SELECT * FROM x") == [(1,)]


def test_connection_context_manager_rolls_back_on_exception(warehouse):
    with txlake.connect(warehouse, publish="off") as c:
        c.execute("CREATE TABLE x (i INT)")
    with pytest.raises(ZeroDivisionError):
        with txlake.connect(warehouse, publish="off") as c:
            c.execute("INSERT INTO x VALUES (2)")
            1 / 0
    assert c.closed
    with pytest.raises(errors.UniqueViolation):
        with txlake.connect(warehouse, publish="off") as c:
            c.execute("CREATE TABLE y (i INT PRIMARY KEY)")
            c.execute("INSERT INTO y VALUES (1), (1)")
    with txlake.connect(warehouse, publish="off") as c:
        assert q(c, "SELECT * FROM x") == []
        with pytest.raises(errors.UndefinedTable):
            c.execute("SELECT * FROM y")


def test_cursor_context_manager(c):
    with c.cursor() as cur:
        assert cur.execute("SELECT 1").fetchone() == (1,)
    with pytest.raises(txlake.InterfaceError):
        cur.fetchone()


# --- copy-on-write -----------------------------------------------------------------------

def test_one_row_update_on_a_big_table_does_not_rewrite_it(connect, warehouse):
    c = connect(autocommit=True)
    c.execute("CREATE TABLE big (id INT PRIMARY KEY, v INT)")
    c.execute("INSERT INTO big SELECT range, 0 FROM range(300000)")

    def size():
        return sum(os.path.getsize(os.path.join(d, f)) for d, _, fs in os.walk(warehouse) for f in fs)

    before = size()
    c.execute("UPDATE big SET v = 1 WHERE id = 123456")
    assert size() - before < 20_000
    assert q(c, "SELECT v FROM big WHERE id = 123456") == [(1,)]
    assert q(c, "SELECT count(*), sum(v) FROM big") == [(300000, 1)]


def test_a_date_python_cannot_hold_fails_the_fetch_with_22008(c):
    """'infinity'::date and dates before year 1 are DuckDB values but not Python ones: fetching
    one is a txlake error (22008, as psycopg refuses them), not a bare OverflowError; the
    Arrow result still holds it, and the session goes on."""
    for sql in ["SELECT 'infinity'::date", "SELECT DATE '0001-01-01' - 1", "SELECT '-infinity'::timestamp"]:
        cur = c.execute(sql)
        assert cur.fetch_arrow_table().num_rows == 1
        with pytest.raises(errors.DatetimeFieldOverflow) as e:
            cur.fetchall()
        assert e.value.sqlstate == "22008"
    assert q(c, "SELECT count(*) FROM t") == [(3,)]


@pytest.mark.parametrize("sql", [
    "INSERT INTO d VALUES (2, 'infinity', NULL)", "INSERT INTO d VALUES (2, NULL, '-infinity')",
    "INSERT INTO d VALUES (2, '10000-01-01', NULL)", "INSERT INTO d SELECT 2, 'infinity'::date, NULL",
    "UPDATE d SET day = 'infinity'", "UPDATE d SET day = day + 1", "UPDATE d SET at = at + interval '1 day'",
    "ALTER TABLE d ADD COLUMN e DATE DEFAULT 'infinity'", "CREATE TABLE e AS SELECT 'infinity'::date AS day"])
def test_a_date_python_cannot_hold_is_not_stored(c, sql):
    """txlake reads stored rows as Python values (a point write's rows, compaction of small
    files), so such a date was stored, and then its row could not be updated, nor its table
    compacted (a bare OverflowError, in the background too). It is refused with 22008, as
    PostgreSQL refuses a date out of its range; the years 1 to 9999 are stored."""
    c.execute("CREATE TABLE d (id INT PRIMARY KEY, day DATE, at TIMESTAMP)")
    c.execute("INSERT INTO d VALUES (1, '9999-12-31', '9999-12-31 23:59:59.999999'), (0, '0001-01-01', '0001-01-01')")
    with pytest.raises(errors.DatetimeFieldOverflow):
        c.execute(sql)
    c.execute("UPDATE d SET id = id + 10")
    c.execute("CALL txlake.compact('d')")
    assert q(c, "SELECT id, day FROM d ORDER BY id") == [
        (10, datetime.date(1, 1, 1)), (11, datetime.date(9999, 12, 31))]


def test_alter_table_of_several_actions_is_one_change(c):
    """ALTER TABLE with actions of several kinds applies them in order, all or none."""
    c.execute("ALTER TABLE t ADD COLUMN extra INT DEFAULT 1, DROP score, ALTER name DROP DEFAULT, "
              "RENAME COLUMN extra TO more")
    assert [d[0] for d in c.execute("SELECT * FROM t").description] == ["id", "name", "more"]
    with pytest.raises(errors.UndefinedColumn):
        c.execute("ALTER TABLE t ADD COLUMN x INT, DROP COLUMN nope")
    assert [d[0] for d in c.execute("SELECT * FROM t").description] == ["id", "name", "more"]


def test_a_default_set_by_alter_column_is_stored_as_written(c):
    """ALTER COLUMN ... SET DEFAULT now() stored txlake's macro (TXL_NOW()) in the schema, as
    \\d and information_schema showed it, where CREATE TABLE stores the default as written; a
    sub-SELECT in a DEFAULT is 0A000, as in PostgreSQL (CREATE TABLE took it)."""
    c.execute("CREATE TABLE d (id INT PRIMARY KEY, at TIMESTAMP, n INT)")
    c.execute("ALTER TABLE d ALTER COLUMN at SET DEFAULT now(), ALTER COLUMN n SET DEFAULT 7 / 2")
    assert q(c, "SELECT column_default FROM information_schema.columns WHERE table_name = 'd' "
                "ORDER BY ordinal_position") == [(None,), ("now()",), ("(7 / 2)",)]
    assert q(c, "INSERT INTO d (id) VALUES (1) RETURNING at = now(), n") == [(True, 3)]
    for sql in ["ALTER TABLE d ALTER COLUMN n SET DEFAULT (SELECT 1)", "CREATE TABLE e (x INT DEFAULT (SELECT 1))",
                "ALTER TABLE d ADD COLUMN m INT DEFAULT 1 + (SELECT 1)"]:
        with pytest.raises(errors.NotSupportedError):
            c.execute(sql)


def test_alter_column_type(c, connect):
    """``ALTER [COLUMN] c [SET DATA] TYPE t [USING expr]`` (it was 0A000): the rows are cast as
    an INSERT casts (22P02 / 22003 / 22001 for a value that does not fit, and nothing changes),
    NOT NULL and the default stay (a default that does not cast is 42804), a key column stays
    unique (23505 if the cast makes two keys one), all in the transaction."""
    c.execute("CREATE TABLE m (id INT PRIMARY KEY, n INT DEFAULT 7, s TEXT NOT NULL DEFAULT '12', d DOUBLE)")
    c.execute("INSERT INTO m VALUES (1, 1, '10', 1.4), (2, NULL, '20', 2.6)")
    c.execute("ALTER TABLE m ALTER COLUMN n TYPE BIGINT, ALTER s SET DATA TYPE INT USING s::int + 1")
    c.execute("ALTER TABLE m ALTER COLUMN d TYPE DECIMAL(6,1), ALTER COLUMN id TYPE BIGINT")
    c.execute("INSERT INTO m (id) VALUES (3000000000)")
    cur = c.execute("SELECT * FROM m ORDER BY id")
    assert cur.fetchall() == [(1, 1, 11, decimal.Decimal("1.4")), (2, None, 21, decimal.Decimal("2.6")),
                              (3000000000, 7, 12, None)]
    assert [d[1] for d in cur.description] == ["BIGINT", "BIGINT", "INTEGER", "DECIMAL"]
    for sql, state in [("ALTER TABLE m ALTER COLUMN s TYPE VARCHAR(1)", "22001"),
                       ("ALTER TABLE m ALTER COLUMN id TYPE INT", "22003"),
                       ("ALTER TABLE m ALTER COLUMN s TYPE DATE", "42804"),     # (INT to DATE: no cast)
                       ("ALTER TABLE m ALTER COLUMN d TYPE DATE USING d::text", "22007"),  # (as INSERT's)
                       ("ALTER TABLE m ALTER COLUMN n TYPE DATE USING NULL", "42804"),
                       ("ALTER TABLE m ALTER COLUMN id TYPE INT USING 1", "23505"),
                       ("ALTER TABLE m ALTER COLUMN s TYPE TEXT USING NULL", "23502"),
                       ("ALTER TABLE m ALTER COLUMN nope TYPE INT", "42703")]:
        with pytest.raises(errors.Error) as e:
            c.execute(sql)
        assert e.value.sqlstate == state, sql
    assert q(c, "SELECT count(*), sum(s) FROM m") == [(3, 44)]
    conn = connect()
    conn.execute("ALTER TABLE m ALTER COLUMN s TYPE TEXT")
    assert q(conn, "SELECT s FROM m WHERE id = 1") == [("11",)]
    conn.rollback()
    assert q(c, "SELECT s FROM m WHERE id = 1") == [(11,)]
