"""SQL prepared statements, PREPARE / EXECUTE / DEALLOCATE, as PostgreSQL's: before, PREPARE
name AS ... was a syntax error and EXECUTE 0A000. A statement is planned again at each EXECUTE
(against the tables and views of the moment); one whose result columns changed is 0A000."""

import pytest

import txlake
from tests.conftest import rows


@pytest.fixture
def conn(connect):
    conn = connect(autocommit=True)
    conn.execute("CREATE TABLE t (k INT PRIMARY KEY, v TEXT)")
    conn.execute("INSERT INTO t VALUES (1, 'a'), (2, 'b')")
    conn.execute("CREATE VIEW w AS SELECT k, v FROM t")
    return conn


def test_prepare_and_execute_with_parameters(conn):
    conn.execute("PREPARE q AS SELECT k, v FROM t WHERE k >= $1 AND v <> $2 ORDER BY k")
    assert rows(conn, "EXECUTE q(1, 'b')") == [(1, "a")]
    assert rows(conn, "EXECUTE q(?, ?)", (0, "a")) == [(2, "b")]  # (DB-API parameters in the values)
    conn.execute("PREPARE ins (int, text) AS INSERT INTO t VALUES ($1, $2) RETURNING k, v")
    cur = conn.execute("EXECUTE ins('3', 'c')")  # (cast to the declared types)
    assert cur.fetchall() == [(3, "c")] and cur.rowcount == 1
    conn.execute("PREPARE up AS UPDATE t SET v = $2 WHERE k = $1")
    assert conn.execute("EXECUTE up(3, 'z')").rowcount == 1
    assert rows(conn, "SELECT v FROM t WHERE k = 3") == [("z",)]
    conn.execute("PREPARE two AS SELECT $1 || 'x', $1::int + $2")
    assert conn.execute("EXECUTE two('4', 5)").fetchall() == [("4x", 9)]


def test_a_parameter_s_column_is_named_as_postgresql_names_it(conn):
    """A $n of a declared type was named after the type (int4): the cast its value is written in
    named it. PostgreSQL names a parameter ?column?; a cast of one after the cast's type."""
    conn.execute("PREPARE p (int, text) AS SELECT $1, $2::text, $1 + 1, CASE WHEN true THEN $1 END, k "
                 "FROM t WHERE k = $1")
    cur = conn.execute("EXECUTE p(1, 'x')")
    assert cur.fetchall() == [(1, "x", 2, 1, 1)]
    assert [d[0] for d in cur.description] == ["?column?", "text", "?column?", "case", "k"]
    assert cur.description[0][1] == "INTEGER"


def test_a_prepared_statement_follows_a_replaced_view_or_table(conn):
    """PostgreSQL plans a prepared statement again when what it reads changed: with the same
    result columns it runs (over the new definition)."""
    conn.execute("PREPARE q AS SELECT k FROM w WHERE k >= $1 ORDER BY k")
    assert rows(conn, "EXECUTE q(1)") == [(1,), (2,)]
    conn.execute("CREATE OR REPLACE VIEW w AS SELECT k + 10 AS k, v FROM t")
    assert rows(conn, "EXECUTE q(1)") == [(11,), (12,)]
    conn.execute("PREPARE r AS SELECT * FROM t ORDER BY k")
    conn.execute("DROP TABLE t CASCADE")
    conn.execute("CREATE TABLE t (k INT, v TEXT)")
    conn.execute("INSERT INTO t VALUES (7, 'x')")
    assert rows(conn, "EXECUTE r") == [(7, "x")]


def test_a_changed_result_is_refused(conn):
    conn.execute("PREPARE q AS SELECT * FROM w")
    conn.execute("CREATE OR REPLACE VIEW w AS SELECT k, v, 1 AS one FROM t")
    with pytest.raises(txlake.NotSupportedError) as e:  # (never executed before: PREPARE's columns count)
        conn.execute("EXECUTE q")
    assert (e.value.sqlstate, str(e.value)) == ("0A000", "cached plan must not change result type")


def test_a_changed_column_type_is_refused(conn):
    conn.execute("PREPARE r AS SELECT * FROM t ORDER BY k")
    conn.execute("DROP TABLE t CASCADE")
    conn.execute("CREATE TABLE t (k BIGINT, v TEXT)")
    with pytest.raises(txlake.NotSupportedError) as e:
        conn.execute("EXECUTE r")
    assert e.value.sqlstate == "0A000"


def test_prepare_is_the_session_s_not_the_transaction_s(conn):
    conn.execute("BEGIN")
    conn.execute("PREPARE q AS SELECT count(*) FROM t")
    conn.execute("ROLLBACK")
    assert rows(conn, "EXECUTE q") == [(2,)]
    conn.execute("DEALLOCATE PREPARE q")
    with pytest.raises(txlake.ProgrammingError) as e:
        conn.execute("EXECUTE q")
    assert (e.value.sqlstate, str(e.value)) == ("26000", 'prepared statement "q" does not exist')


@pytest.mark.parametrize("sql, sqlstate", [
    ("PREPARE q AS SELECT 2", "42P05"),            # the name is taken
    ("EXECUTE q(1)", "42601"),                     # wrong number of parameters
    ("EXECUTE nope", "26000"),
    ("DEALLOCATE nope", "26000"),
    ("PREPARE bad AS SELECT * FROM nosuch", "42P01"),  # checked at PREPARE, as PostgreSQL analyzes it
    ("PREPARE bad AS CREATE TABLE x (a INT)", "42601"),
])
def test_prepared_statement_errors(conn, sql, sqlstate):
    conn.execute("PREPARE q AS SELECT 1")
    with pytest.raises(txlake.Error) as e:
        conn.execute(sql)
    assert e.value.sqlstate == sqlstate
    conn.execute("DEALLOCATE ALL")
    with pytest.raises(txlake.ProgrammingError):
        conn.execute("EXECUTE q")
