"""CHECK constraints as PostgreSQL 16's: defined in CREATE TABLE and ALTER TABLE, refused at
definition for what PostgreSQL refuses, enforced on every path that writes rows (23514 with the
failing row), validated against existing rows unless NOT VALID, following column renames and
drops, listed in information_schema, kept across a reopen and seen by other processes."""

import pytest

import txlake
from tests.conftest import fails, rows, run_python


@pytest.fixture
def conn(connect):
    return connect(autocommit=True)


def violates(conn, sql, name, row, params=(), table="t"):
    message = fails(conn, sql, "23514", params=params, error=txlake.IntegrityError)
    assert message.split("\n")[:2] == [f'new row for relation "{table}" violates check constraint "{name}"',
                                      f"DETAIL:  Failing row contains ({row})."]


@pytest.fixture
def t(conn):
    conn.execute("CREATE TABLE t (id INT PRIMARY KEY, a INT CHECK (a > 0), b TEXT)")
    conn.execute("INSERT INTO t VALUES (1, 5, 'x')")
    return conn


# --- what each write path checks ---------------------------------------------------------------

def test_insert_values_checks_each_row_and_null_passes(t):
    violates(t, "INSERT INTO t VALUES (2, -5, NULL)", "t_a_check", "2, -5, null")
    violates(t, "INSERT INTO t VALUES (?, ?, ?)", "t_a_check", "2, 0, y", params=(2, 0, "y"))
    violates(t, "INSERT INTO t VALUES (2, 1, 'a'), (3, 2, 'b'), (4, -1, 'c')", "t_a_check", "4, -1, c")
    t.execute("INSERT INTO t VALUES (2, NULL, NULL)")  # (NULL is not false)
    assert rows(t, "SELECT id, a FROM t ORDER BY id") == [(1, 5), (2, None)]


def test_insert_select_checks_the_streamed_rows(t):
    violates(t, "INSERT INTO t SELECT i, 10 - i, 'z' FROM generate_series(2, 20) AS g(i)", "t_a_check",
             "10, 0, z")
    t.execute("INSERT INTO t SELECT i, i, 'z' FROM generate_series(2, 5000) AS g(i)")
    assert rows(t, "SELECT count(*) FROM t") == [(5000,)]


def test_insert_select_checks_a_varchar_as_it_is_stored(conn):
    """A VARCHAR(n) value longer than n by spaces alone is cut to n (as PostgreSQL's cast cuts
    it), then checked."""
    conn.execute("CREATE TABLE v (s VARCHAR(3) CHECK (length(s) = 3))")
    conn.execute("INSERT INTO v SELECT 'ab    '")
    conn.execute("INSERT INTO v VALUES ('cd    ')")
    assert rows(conn, "SELECT s FROM v ORDER BY s") == [("ab ",), ("cd ",)]
    fails(conn, "INSERT INTO v SELECT 'abcd'", "22001")
    violates(conn, "INSERT INTO v SELECT 'a'", "v_s_check", "a", table="v")


def test_a_big_values_list_is_checked_at_once(t):
    values = ", ".join(f"({i}, {i if i != 4000 else -i}, 'v')" for i in range(2, 5000))
    violates(t, f"INSERT INTO t VALUES {values}", "t_a_check", "4000, -4000, v")
    assert rows(t, "SELECT count(*) FROM t") == [(1,)]


def test_point_and_general_updates_check_the_new_row(t):
    violates(t, "UPDATE t SET a = -1 WHERE id = 1", "t_a_check", "1, -1, x")
    violates(t, "UPDATE t SET a = a - ? WHERE id = ?", "t_a_check", "1, 0, x", params=(5, 1))
    violates(t, "UPDATE t SET a = a - 10 WHERE b = 'x'", "t_a_check", "1, -5, x")
    t.execute("UPDATE t SET a = a * 2 WHERE b = 'x'")
    assert rows(t, "SELECT a FROM t") == [(10,)]


def test_on_conflict_do_update_checks_the_updated_row(t):
    violates(t, "INSERT INTO t VALUES (1, 7, 'y') ON CONFLICT (id) DO UPDATE SET a = -7", "t_a_check", "1, -7, x")
    violates(t, "INSERT INTO t VALUES (1, 7, 'y') ON CONFLICT (id) DO UPDATE SET a = excluded.a - t.a - 10",
             "t_a_check", "1, -8, x")
    t.execute("INSERT INTO t VALUES (1, 7, 'y') ON CONFLICT (id) DO UPDATE SET a = excluded.a + t.a")
    assert rows(t, "SELECT a FROM t") == [(12,)]


def test_merge_checks_updated_and_inserted_rows(t):
    merge = ("MERGE INTO t USING (SELECT ? AS id, ? AS a) s ON t.id = s.id "
             "WHEN MATCHED THEN UPDATE SET a = s.a WHEN NOT MATCHED THEN INSERT VALUES (s.id, s.a, 'm')")
    violates(t, merge, "t_a_check", "1, -1, x", params=(1, -1))
    violates(t, merge, "t_a_check", "9, -1, m", params=(9, -1))
    t.execute(merge, (9, 3))
    assert rows(t, "SELECT id, a FROM t ORDER BY id") == [(1, 5), (9, 3)]


def test_copy_from_names_the_failing_line(t, tmp_path):
    data = tmp_path / "rows.txt"
    data.write_text("2\t3\tp\n3\t-3\tq\n4\t4\tr\n")
    e = fails(t, f"COPY t FROM '{data}'", "23514")
    assert str(e) == ('new row for relation "t" violates check constraint "t_a_check"\n'
                      'DETAIL:  Failing row contains (3, -3, q).\nCONTEXT:  COPY t, line 2: "3\t-3\tq"')
    assert rows(t, "SELECT count(*) FROM t") == [(1,)]


def test_a_check_is_the_same_expression_a_select_evaluates(conn):
    """Integer division and text comparison as PostgreSQL's (txlake's SQL path), not DuckDB's."""
    conn.execute("CREATE TABLE d (a INT CHECK (a / 2 >= 1), s TEXT CHECK (s < 'b'))")
    violates(conn, "INSERT INTO d VALUES (1, 'a')", "d_a_check", "1, a", table="d")  # (1 / 2 is 0)
    conn.execute("INSERT INTO d VALUES (3, 'a')")
    violates(conn, "INSERT INTO d VALUES (3, 'ba')", "d_s_check", "3, ba", table="d")
    conn.execute("CREATE TABLE z (a INT, b INT CHECK (a / b > 0))")
    fails(conn, "INSERT INTO z VALUES (1, 0)", "22012", "division by zero")
    conn.execute("CREATE TABLE br (k INT, s TEXT CHECK (s <> '{}'))")  # (braces in the SQL it runs)
    conn.execute("INSERT INTO br SELECT i, 'x' FROM generate_series(1, 40) AS g(i)")
    violates(conn, "UPDATE br SET s = '{}' WHERE k > 20", "br_s_check", "21, {}", table="br")


def test_quoted_column_names_and_their_renames(conn):
    conn.execute('CREATE TABLE qn ("Amount" INT CHECK ("Amount" > 0), b INT CHECK (b < 0))')
    violates(conn, "INSERT INTO qn VALUES (0, -1)", "qn_Amount_check", "0, -1", table="qn")
    violates(conn, "INSERT INTO qn VALUES (1, 1)", "qn_b_check", "1, 1", table="qn")
    conn.execute('ALTER TABLE qn RENAME COLUMN "Amount" TO "Total Sum"')
    violates(conn, "INSERT INTO qn VALUES (0, -1)", "qn_Amount_check", "0, -1", table="qn")
    conn.execute("INSERT INTO qn VALUES (1, -1)")
    assert rows(conn, "SELECT check_clause FROM information_schema.check_constraints ORDER BY 1") == [
        ('(("Total Sum" > 0))',), ("((b < 0))",)]


def test_a_check_of_any_keeps_its_parentheses_and_passes_a_null_array(conn):
    """check_clause writes ``x = ANY(a)`` (it dropped the parentheses: ``x = ANY a``, no SQL);
    a NULL array makes the comparison NULL, which a CHECK passes, as PostgreSQL's."""
    conn.execute("CREATE TABLE q (x INT, a INT[], CHECK (x = ANY (a)), CHECK (x <> ALL ('{0}')))")
    assert rows(conn, "SELECT check_clause FROM information_schema.check_constraints ORDER BY 1") == [
        ("((x <> ALL ('{0}')))",), ("((x = ANY(a)))",)]
    conn.execute("INSERT INTO q VALUES (1, NULL), (2, '{2}')")
    violates(conn, "INSERT INTO q VALUES (3, '{}')", "q_check", "3, {}", table="q")
    violates(conn, "INSERT INTO q VALUES (0, '{0}')", "q_check1", "0, {0}", table="q")


def test_a_multi_column_table_check_and_the_first_failing_check_by_name(conn):
    conn.execute("CREATE TABLE r (lo INT, hi INT, CONSTRAINT z_order CHECK (lo <= hi), CHECK (hi < 100), "
                  "CONSTRAINT a_lo CHECK (lo >= 0))")
    violates(conn, "INSERT INTO r VALUES (5, 1)", "z_order", "5, 1", table="r")
    violates(conn, "INSERT INTO r VALUES (-5, 200)", "a_lo", "-5, 200", table="r")  # (a_lo before r_check)
    violates(conn, "INSERT INTO r VALUES (5, 200)", "r_check", "5, 200", table="r")
    conn.execute("INSERT INTO r VALUES (1, 2), (NULL, 3)")


# --- definition --------------------------------------------------------------------------------

def test_default_names_and_duplicates(conn):
    conn.execute("CREATE TABLE n (a INT CHECK (a > 0) CHECK (a < 10), b INT, CHECK (a < b), CHECK (b > 0))")
    assert rows(conn, "SELECT constraint_name FROM information_schema.check_constraints ORDER BY 1") == [
        ("n_a_check",), ("n_a_check1",), ("n_check",), ("n_check1",)]
    fails(conn, "ALTER TABLE n ADD CONSTRAINT n_check CHECK (b < 5)", "42710",
          'constraint "n_check" for relation "n" already exists')
    conn.execute("ALTER TABLE n ADD CHECK (b < 50)")
    assert ("n_check2",) in rows(conn, "SELECT constraint_name FROM information_schema.check_constraints")


@pytest.mark.parametrize("check, sqlstate, words", [
    ("z > 0", "42703", 'column "z" does not exist'),
    ("other.a > 0", "42P01", 'missing FROM-clause entry for table "other"'),
    ("a", "42804", "argument of CHECK constraint must be type boolean, not type integer"),
    ("a + 1", "42804", "argument of CHECK constraint must be type boolean, not type integer"),
    ("sum(a) > 0", "42803", "aggregate functions are not allowed in check constraints"),
    ("row_number() OVER () > 0", "42P20", "window functions are not allowed in check constraints"),
    ("generate_series(1, a) > 0", "0A000", "set-returning functions are not allowed in check constraints"),
    ("a IN (SELECT 1)", "0A000", "cannot use subquery in check constraint"),
])
def test_what_a_check_may_not_be(conn, check, sqlstate, words):
    fails(conn, f"CREATE TABLE bad (a INT CHECK ({check}))", sqlstate, words)
    conn.execute("CREATE TABLE good (a INT)")
    fails(conn, f"ALTER TABLE good ADD CHECK ({check})", sqlstate, words)
    assert rows(conn, "SELECT count(*) FROM information_schema.check_constraints") == [(0,)]


def test_a_parameter_is_refused(conn):
    fails(conn, "CREATE TABLE bad (a INT CHECK (a > ?))", "42P02", "there is no parameter $1", params=(1,))
    fails(conn, "CREATE TABLE bad (a INT CHECK (a > $1))", "42P02", "there is no parameter $1")
    conn.execute("CREATE TABLE good (a INT)")
    fails(conn, "ALTER TABLE good ADD CONSTRAINT c CHECK (a > $2)", "42P02", "there is no parameter $2")


def test_the_table_may_qualify_its_columns_and_the_name_is_not_stored(conn):
    conn.execute("CREATE TABLE q (a INT CHECK (q.a > 0))")
    assert rows(conn, "SELECT check_clause FROM information_schema.check_constraints") == [("((a > 0))",)]
    violates(conn, "INSERT INTO q VALUES (0)", "q_a_check", "0", table="q")


# --- ALTER TABLE -------------------------------------------------------------------------------

def test_add_constraint_checks_the_rows_the_table_holds(t):
    t.execute("INSERT INTO t VALUES (2, 50, 'y')")
    fails(t, "ALTER TABLE t ADD CONSTRAINT small CHECK (a < 10)", "23514",
          'check constraint "small" of relation "t" is violated by some row')
    fails(t, "ALTER TABLE t ADD COLUMN c INT DEFAULT -1 CHECK (c >= 0)", "23514",
          'check constraint "t_c_check" of relation "t" is violated by some row')
    t.execute("ALTER TABLE t ADD COLUMN c INT DEFAULT 1 CHECK (c >= 0)")
    violates(t, "INSERT INTO t VALUES (3, 1, 'z', -1)", "t_c_check", "3, 1, z, -1")
    t.execute("ALTER TABLE t ADD CHECK (a < 100)")
    violates(t, "INSERT INTO t VALUES (3, 100, 'z', 0)", "t_check", "3, 100, z, 0")


def test_not_valid_skips_the_old_rows_and_validate_checks_them(t):
    t.execute("INSERT INTO t VALUES (2, 50, 'y')")
    t.execute("ALTER TABLE t ADD CONSTRAINT small CHECK (a < 10) NOT VALID")
    violates(t, "INSERT INTO t VALUES (3, 20, 'z')", "small", "3, 20, z")
    # an update of the old row is checked against it too (PostgreSQL checks every CHECK)
    violates(t, "UPDATE t SET b = 'w' WHERE id = 2", "small", "2, 50, w")
    fails(t, "ALTER TABLE t VALIDATE CONSTRAINT small", "23514",
          'check constraint "small" of relation "t" is violated by some row')
    assert rows(t, "SELECT constraint_name FROM information_schema.check_constraints ORDER BY 1") == [
        ("small",), ("t_a_check",)]
    t.execute("DELETE FROM t WHERE id = 2")
    t.execute("ALTER TABLE t VALIDATE CONSTRAINT small")
    fails(t, "ALTER TABLE t VALIDATE CONSTRAINT nothing", "42704")
    fails(t, "ALTER TABLE t VALIDATE CONSTRAINT t_pkey", "42809")


def test_not_valid_is_shown_and_lost_by_validate(t):
    t.execute("ALTER TABLE t ADD CONSTRAINT small CHECK (a < 10) NOT VALID")
    assert t.session.check_constraints("t") == ['"small" CHECK (a < 10) NOT VALID', '"t_a_check" CHECK (a > 0)']
    t.execute("ALTER TABLE t VALIDATE CONSTRAINT small")
    assert t.session.check_constraints("t") == ['"small" CHECK (a < 10)', '"t_a_check" CHECK (a > 0)']


def test_drop_constraint(t):
    t.execute("ALTER TABLE t DROP CONSTRAINT t_a_check")
    t.execute("INSERT INTO t VALUES (2, -5, NULL)")
    fails(t, "ALTER TABLE t DROP CONSTRAINT t_a_check", "42704",
          'constraint "t_a_check" of relation "t" does not exist')
    t.execute("ALTER TABLE t DROP CONSTRAINT IF EXISTS t_a_check")


def test_a_renamed_column_is_renamed_in_the_check(t):
    t.execute("ALTER TABLE t ADD CONSTRAINT ab CHECK (a < 100 OR b IS NOT NULL)")
    t.execute("ALTER TABLE t RENAME COLUMN a TO amount")
    violates(t, "INSERT INTO t VALUES (2, -1, 'x')", "t_a_check", "2, -1, x")
    violates(t, "INSERT INTO t VALUES (2, 100, NULL)", "ab", "2, 100, null")
    assert rows(t, "SELECT constraint_name, check_clause FROM information_schema.check_constraints ORDER BY 1") == [
        ("ab", "(((amount < 100) OR (b IS NOT NULL)))"), ("t_a_check", "((amount > 0))")]


def test_a_dropped_column_drops_the_checks_using_it(t):
    t.execute("ALTER TABLE t ADD COLUMN c INT CHECK (c > 0)")
    t.execute("ALTER TABLE t ADD CONSTRAINT ab CHECK (a < 100 OR b IS NOT NULL)")
    t.execute("ALTER TABLE t DROP COLUMN a")
    assert rows(t, "SELECT constraint_name FROM information_schema.check_constraints") == [("t_c_check",)]
    t.execute("INSERT INTO t VALUES (2, NULL, 1)")
    violates(t, "INSERT INTO t VALUES (3, NULL, 0)", "t_c_check", "3, null, 0")


def test_a_column_type_change_checks_the_rows_again(conn):
    conn.execute("CREATE TABLE ty (a NUMERIC(5,2) CHECK (a <> 2))")
    conn.execute("INSERT INTO ty VALUES (1.6), (3.2)")
    fails(conn, "ALTER TABLE ty ALTER COLUMN a TYPE INT", "23514",  # (1.6 rounds to 2)
          'check constraint "ty_a_check" of relation "ty" is violated by some row')
    conn.execute("DELETE FROM ty WHERE a = 1.6")
    conn.execute("ALTER TABLE ty ALTER COLUMN a TYPE INT")
    assert rows(conn, "SELECT a FROM ty") == [(3,)]
    violates(conn, "INSERT INTO ty VALUES (2)", "ty_a_check", "2", table="ty")


# --- transactions, durability, other processes --------------------------------------------------

def test_a_failing_statement_loses_nothing_else(connect):
    conn = connect()
    conn.execute("CREATE TABLE t (id INT PRIMARY KEY, a INT CHECK (a > 0))")
    conn.commit()
    conn.execute("INSERT INTO t VALUES (1, 1)")
    conn.execute("SAVEPOINT s")
    fails(conn, "INSERT INTO t SELECT i, 3 - i FROM generate_series(2, 5) AS g(i)", "23514")
    fails(conn, "SELECT 1", "25P02")
    conn.execute("ROLLBACK TO SAVEPOINT s")
    conn.execute("INSERT INTO t VALUES (2, 2)")
    conn.commit()
    assert rows(conn, "SELECT id, a FROM t ORDER BY id") == [(1, 1), (2, 2)]


def test_a_check_survives_a_reopen_and_other_processes_enforce_it(connect, warehouse):
    conn = connect(autocommit=True)
    conn.execute("CREATE TABLE t (id INT PRIMARY KEY, a INT CONSTRAINT pos CHECK (a > 0))")
    conn.execute("ALTER TABLE t ADD CONSTRAINT nv CHECK (a < 100) NOT VALID")
    conn.close()
    done = run_python("""
import sys, txlake
c = txlake.connect(sys.argv[1], autocommit=True, publish="off")
try:
    c.execute("INSERT INTO t VALUES (1, -1)")
except txlake.Error as e:
    print(e.sqlstate, str(e).splitlines()[0])
print(c.session.check_constraints("t"))
""", warehouse)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ['23514 new row for relation "t" violates check constraint "pos"',
                                        "['\"nv\" CHECK (a < 100) NOT VALID', '\"pos\" CHECK (a > 0)']"]
    again = connect(autocommit=True)
    violates(again, "INSERT INTO t VALUES (1, 100)", "nv", "1, 100")
    again.execute("INSERT INTO t VALUES (1, 99)")


# --- information_schema ------------------------------------------------------------------------

def test_table_constraints_lists_every_kind(conn):
    conn.execute("CREATE TABLE k (id INT PRIMARY KEY, a INT CHECK (a > 0))")
    conn.execute("CREATE TABLE plain (x INT)")
    conn.execute("CREATE VIEW v AS SELECT * FROM k")
    assert rows(conn, "SELECT constraint_schema, constraint_name, table_schema, table_name, constraint_type, "
                      "is_deferrable, initially_deferred, enforced, nulls_distinct "
                      "FROM information_schema.table_constraints ORDER BY constraint_name") == [
        ("public", "k_a_check", "public", "k", "CHECK", "NO", "NO", "YES", None),
        ("public", "k_pkey", "public", "k", "PRIMARY KEY", "NO", "NO", "YES", None)]
    assert rows(conn, "SELECT * FROM information_schema.check_constraints") == [
        ("txlake", "public", "k_a_check", "((a > 0))")]
