"""Stored generated columns as PostgreSQL 16's (cases from its src/test/regress/expected/generated.out):
defined in CREATE TABLE and refused where PostgreSQL refuses them, computed on every path that
writes rows, values given them refused (428C9), NOT NULL / CHECK / keys judging the computed value."""

import pytest

import txlake


@pytest.fixture
def conn(connect):  # (conftest's, in autocommit)
    return connect(autocommit=True)


def rows(conn, sql, params=()):
    return conn.execute(sql, params).fetchall()


def fails(conn, sql, sqlstate, words="", params=()):
    with pytest.raises(txlake.Error) as e:
        conn.execute(sql, params)
    assert e.value.sqlstate == sqlstate, str(e.value)
    assert words in str(e.value)
    return e.value


@pytest.fixture
def g(conn):
    conn.execute("CREATE TABLE g (a INT PRIMARY KEY, b INT GENERATED ALWAYS AS (a * 2) STORED)")
    return conn


GENERATED = 'DETAIL:  Column "b" is a generated column.'


def test_insert_computes_the_value(g):
    g.execute("INSERT INTO g VALUES (1)")
    g.execute("INSERT INTO g VALUES (2, DEFAULT)")
    g.execute("INSERT INTO g VALUES (3, DEFAULT), (4, DEFAULT)")
    g.execute("INSERT INTO g (a) SELECT x FROM generate_series(5, 6) AS s(x)")
    g.execute("INSERT INTO g VALUES (?)", (7,))
    assert rows(g, "INSERT INTO g VALUES (8) RETURNING b, a") == [(16, 8)]
    assert rows(g, "SELECT * FROM g ORDER BY a") == [(i, 2 * i) for i in range(1, 9)]


@pytest.mark.parametrize("sql", [
    "INSERT INTO g VALUES (3, 33)", "INSERT INTO g VALUES (3, 33), (4, 44)",
    "INSERT INTO g VALUES (3, DEFAULT), (4, 44)", "INSERT INTO g VALUES (3, 33), (4, DEFAULT)",
    "INSERT INTO g (b, a) SELECT 1, 2", "INSERT INTO g OVERRIDING SYSTEM VALUE VALUES (3, 6)"])
def test_insert_of_a_value_is_refused(g, sql):
    e = fails(g, sql, "428C9", 'cannot insert a non-DEFAULT value into column "b"')
    assert GENERATED in str(e)
    assert rows(g, "SELECT count(*) FROM g") == [(0,)]


def test_update_recomputes_and_refuses_a_value(g):
    g.execute("INSERT INTO g VALUES (1), (2)")
    g.execute("UPDATE g SET b = DEFAULT WHERE a = 1")
    e = fails(g, "UPDATE g SET b = 11 WHERE a = 1", "428C9", 'column "b" can only be updated to DEFAULT')
    assert GENERATED in str(e)
    g.execute("UPDATE g SET a = 3 WHERE b = 4")
    assert rows(g, "UPDATE g SET a = ? WHERE a = ? RETURNING b", (10, 1)) == [(20,)]
    assert rows(g, "SELECT * FROM g ORDER BY a") == [(3, 6), (10, 20)]


def test_text_and_null_expressions(conn):
    conn.execute("CREATE TABLE t (a TEXT, b TEXT GENERATED ALWAYS AS (a || '+' || a) STORED)")
    conn.execute("INSERT INTO t (a) VALUES ('a'), ('b'), (NULL)")
    conn.execute("UPDATE t SET a = 'bb' WHERE a = 'b'")
    assert rows(conn, "SELECT * FROM t ORDER BY a") == [("a", "a+a"), ("bb", "bb+bb"), (None, None)]
    conn.execute("CREATE TABLE n (a INT PRIMARY KEY, b INT GENERATED ALWAYS AS (NULL) STORED)")
    conn.execute("INSERT INTO n VALUES (1)")
    assert rows(conn, "SELECT * FROM n") == [(1, None)]


@pytest.mark.parametrize("sql, sqlstate, words", [
    ("INSERT INTO c VALUES (2000000000)", "22003", "integer out of range"),
    ("INSERT INTO c VALUES (0)", "22012", "division by zero"),
    ("INSERT INTO c VALUES (30)", "23514", 'violates check constraint "c_b_check"'),
    ("INSERT INTO c VALUES (-1)", "23502", 'null value in column "b"'),
    ("UPDATE c SET a = 0", "22012", "division by zero"),
    ("UPDATE c SET a = 30", "23514", 'violates check constraint "c_b_check"'),
])
def test_computation_errors_fail_the_statement(conn, sql, sqlstate, words):
    conn.execute("CREATE TABLE c (a INT PRIMARY KEY, b INT GENERATED ALWAYS AS "
                 "(nullif(a, -1) * 2 + 10 / a) STORED NOT NULL CHECK (b < 50))")
    conn.execute("INSERT INTO c VALUES (1)")
    fails(conn, sql, sqlstate, words)
    assert rows(conn, "SELECT * FROM c") == [(1, 12)]


def test_keys_over_a_generated_column(conn):
    conn.execute("CREATE TABLE k (a INT, b INT GENERATED ALWAYS AS (a / 2) STORED UNIQUE)")
    conn.execute("INSERT INTO k VALUES (2)")
    fails(conn, "INSERT INTO k VALUES (3)", "23505", "Key (b)=(1) already exists.")
    conn.execute("INSERT INTO k VALUES (4)")
    fails(conn, "UPDATE k SET a = 3 WHERE a = 4", "23505", "Key (b)=(1) already exists.")
    conn.execute("CREATE TABLE p (a INT, b INT GENERATED ALWAYS AS (a / 2) STORED, PRIMARY KEY (a, b))")
    conn.execute("INSERT INTO p VALUES (2)")
    fails(conn, "INSERT INTO p VALUES (2)", "23505", "Key (a, b)=(2, 1) already exists.")
    assert rows(conn, "SELECT * FROM p WHERE a = 2 AND b = 1") == [(2, 1)]


def test_foreign_key_on_a_generated_column(conn):
    conn.execute("CREATE TABLE r (x INT PRIMARY KEY)")
    conn.execute("INSERT INTO r VALUES (2), (4)")
    conn.execute("CREATE TABLE f (a INT PRIMARY KEY, b INT GENERATED ALWAYS AS (a * 2) STORED REFERENCES r (x))")
    conn.execute("INSERT INTO f VALUES (1)")
    fails(conn, "INSERT INTO f VALUES (5)", "23503", "Key (b)=(10) is not present")
    fails(conn, "UPDATE f SET a = 3", "23503", "Key (b)=(6) is not present")
    conn.execute("UPDATE f SET a = 2")
    assert rows(conn, "SELECT * FROM f") == [(2, 4)]


@pytest.mark.parametrize("column, sqlstate, words", [
    ("b INT GENERATED ALWAYS AS (a * 2) STORED GENERATED ALWAYS AS (a * 3) STORED", "42601",
     'multiple generation clauses specified for column "b" of table "e"'),
    ("b INT GENERATED ALWAYS AS (b * 2) STORED", "42P17", 'cannot use generated column "b" in column generation'),
    ("b INT GENERATED ALWAYS AS (a * 2) STORED, c INT GENERATED ALWAYS AS (b * 3) STORED", "42P17",
     'cannot use generated column "b" in column generation expression\n'
     "DETAIL:  A generated column cannot reference another generated column."),
    ("b INT GENERATED ALWAYS AS (c * 2) STORED", "42703", 'column "c" does not exist'),
    ("b DOUBLE PRECISION GENERATED ALWAYS AS (random()) STORED", "42P17", "generation expression is not immutable"),
    ("b TIMESTAMPTZ GENERATED ALWAYS AS (now()) STORED", "42P17", "generation expression is not immutable"),
    ("b BIGINT GENERATED ALWAYS AS (nextval('s')) STORED", "42P17", "generation expression is not immutable"),
    ("b INT DEFAULT 5 GENERATED ALWAYS AS (a * 2) STORED", "42601",
     'both default and generation expression specified for column "b" of table "e"'),
    ("b INT GENERATED ALWAYS AS IDENTITY GENERATED ALWAYS AS (a * 2) STORED", "42601",
     'both identity and generation expression specified for column "b" of table "e"'),
    ("b BOOL GENERATED ALWAYS AS (xmin <> 37) STORED", "42P10",
     'cannot use system column "xmin" in column generation expression'),
    ("b INT GENERATED ALWAYS AS (avg(a)) STORED", "42803",
     "aggregate functions are not allowed in column generation expressions"),
    ("b INT GENERATED ALWAYS AS (row_number() OVER (ORDER BY a)) STORED", "42P20",
     "window functions are not allowed in column generation expressions"),
    ("b INT GENERATED ALWAYS AS ((SELECT a)) STORED", "0A000", "cannot use subquery in column generation expression"),
    ("b INT GENERATED ALWAYS AS (generate_series(1, a)) STORED", "0A000",
     "set-returning functions are not allowed in column generation expressions"),
    ("b INT GENERATED BY DEFAULT AS (a * 2) STORED", "42601",
     "for a generated column, GENERATED ALWAYS must be specified"),
    ("b INT GENERATED ALWAYS AS (a + ?) STORED", "42P02", "there is no parameter $1"),
])
def test_definition_refused_as_postgresql_refuses_it(conn, column, sqlstate, words):
    fails(conn, f"CREATE TABLE e (a INT PRIMARY KEY, {column})", sqlstate, words)
    fails(conn, "SELECT * FROM e", "42P01")


def test_immutable_expression_is_taken(conn):
    conn.execute("CREATE TABLE t (a INT, b TEXT GENERATED ALWAYS AS (a || ' sec') STORED, "
                 "c TEXT GENERATED ALWAYS AS (upper(t.d)) STORED, d TEXT)")
    conn.execute("INSERT INTO t (a, d) VALUES (3, 'x')")
    assert rows(conn, "SELECT * FROM t") == [(3, "3 sec", "X", "x")]


def test_generated_values_last_across_a_reopen(connect, warehouse):
    conn = connect(autocommit=True)
    conn.execute("CREATE TABLE g (a INT PRIMARY KEY, b INT GENERATED ALWAYS AS (a * 2) STORED)")
    conn.execute("INSERT INTO g VALUES (1)")
    conn.close()
    other = txlake.connect(warehouse, autocommit=True)
    other.execute("INSERT INTO g VALUES (2)")
    fails(other, "INSERT INTO g VALUES (3, 3)", "428C9")
    assert rows(other, "SELECT * FROM g ORDER BY a") == [(1, 2), (2, 4)]


# --- COPY, ON CONFLICT, MERGE ---------------------------------------------------------------

def test_copy_leaves_generated_columns_out_and_computes_them(g, tmp_path):
    g.execute("INSERT INTO g (a) VALUES (1), (2)")
    out, into = tmp_path / "out.txt", tmp_path / "in.txt"
    g.execute(f"COPY g TO '{out}'")
    assert out.read_text() == "1\n2\n"
    into.write_text("3\n4\n")
    g.execute(f"COPY g FROM '{into}'")
    into.write_text("5\n6\n")
    g.execute(f"COPY g (a) FROM '{into}' WHERE a > 5")
    assert rows(g, "SELECT * FROM g ORDER BY a") == [(1, 2), (2, 4), (3, 6), (4, 8), (6, 12)]
    for sql in (f"COPY g (a, b) TO '{out}'", f"COPY g (a, b) FROM '{into}'"):
        e = fails(g, sql, "42P10", 'column "b" is a generated column')
        assert "DETAIL:  Generated columns cannot be used in COPY." in str(e)
    fails(g, f"COPY g FROM '{into}' WHERE b > 3", "0A000",
          "generated columns are not supported in COPY FROM WHERE conditions")
    assert rows(g, "SELECT count(*) FROM g") == [(5,)]


def test_on_conflict_do_update_recomputes(conn):
    conn.execute("CREATE TABLE u (a INT PRIMARY KEY, b INT GENERATED ALWAYS AS (a * 2) STORED, c TEXT)")
    conn.execute("INSERT INTO u (a) VALUES (1), (2)")
    assert rows(conn, "INSERT INTO u VALUES (1) ON CONFLICT (a) DO UPDATE SET a = 10 RETURNING *") == [(10, 20, None)]
    assert rows(conn, "INSERT INTO u (a, c) VALUES (2, 'y') ON CONFLICT (a) DO UPDATE "
                      "SET c = excluded.c || excluded.b, b = DEFAULT RETURNING *") == [(2, 4, "y4")]
    assert rows(conn, "INSERT INTO u (a) VALUES (?) ON CONFLICT (a) DO UPDATE SET a = u.a + ? RETURNING b",
                (2, 1)) == [(6,)]
    e = fails(conn, "INSERT INTO u VALUES (3) ON CONFLICT (a) DO UPDATE SET b = 1", "428C9",
              'column "b" can only be updated to DEFAULT')
    assert GENERATED in str(e)
    assert rows(conn, "SELECT * FROM u ORDER BY a") == [(3, 6, "y4"), (10, 20, None)]


def test_merge_computes_and_refuses_values(g):
    g.execute("INSERT INTO g (a) VALUES (1), (2)")
    assert rows(g, "MERGE INTO g USING (VALUES (1), (5)) AS s(x) ON g.a = s.x WHEN MATCHED THEN UPDATE SET a = 100 "
                   "WHEN NOT MATCHED THEN INSERT (a) VALUES (s.x) RETURNING g.*") == [(100, 200), (5, 10)]
    g.execute("MERGE INTO g USING (VALUES (6)) AS s(x) ON g.a = s.x WHEN NOT MATCHED THEN INSERT VALUES (s.x, DEFAULT)")
    fails(g, "MERGE INTO g USING (VALUES (2)) AS s(x) ON g.a = s.x WHEN MATCHED THEN UPDATE SET b = 1", "428C9",
          'column "b" can only be updated to DEFAULT')
    fails(g, "MERGE INTO g USING (VALUES (7)) AS s(x) ON g.a = s.x WHEN NOT MATCHED THEN INSERT VALUES (s.x, 3)",
          "428C9", 'cannot insert a non-DEFAULT value into column "b"')
    assert rows(g, "SELECT * FROM g ORDER BY a") == [(2, 4), (5, 10), (6, 12), (100, 200)]


# --- ALTER TABLE -----------------------------------------------------------------------------

def test_add_column_computes_existing_rows(conn):
    conn.execute("CREATE TABLE t (a INT PRIMARY KEY)")
    conn.execute("INSERT INTO t VALUES (3), (4)")
    conn.execute("ALTER TABLE t ADD COLUMN b INT GENERATED ALWAYS AS (a * 3) STORED")
    assert rows(conn, "SELECT * FROM t ORDER BY a") == [(3, 9), (4, 12)]
    fails(conn, "ALTER TABLE t ADD COLUMN x INT GENERATED ALWAYS AS (b * 4) STORED", "42P17",
          'cannot use generated column "b" in column generation expression')
    fails(conn, "ALTER TABLE t ADD COLUMN x INT GENERATED ALWAYS AS (z * 4) STORED", "42703",
          'column "z" does not exist')
    conn.execute("ALTER TABLE t ADD COLUMN c INT DEFAULT 42, ADD COLUMN x INT GENERATED ALWAYS AS (c * 4) STORED")
    conn.execute("ALTER TABLE t ADD COLUMN d INT DEFAULT 101")
    conn.execute("ALTER TABLE t ALTER COLUMN d SET DATA TYPE float8, "
                 "ADD COLUMN y float8 GENERATED ALWAYS AS (d * 4) STORED")
    assert rows(conn, "SELECT * FROM t ORDER BY a") == [(3, 9, 42, 168, 101.0, 404.0), (4, 12, 42, 168, 101.0, 404.0)]
    fails(conn, "ALTER TABLE t ADD COLUMN n INT GENERATED ALWAYS AS (nullif(a, 3)) STORED NOT NULL", "23502",
          'column "n" of relation "t" contains null values')
    fails(conn, "ALTER TABLE t ADD COLUMN k INT GENERATED ALWAYS AS (a) STORED CHECK (k > 3)", "23514",
          'check constraint "t_k_check" of relation "t" is violated by some row')
    fails(conn, "ALTER TABLE t ADD COLUMN k INT GENERATED ALWAYS AS (10 / (a - 3)) STORED", "22012")
    conn.execute("INSERT INTO t (a) VALUES (5)")
    assert rows(conn, "SELECT * FROM t WHERE a = 5") == [(5, 15, 42, 168, 101.0, 404.0)]


def test_alter_column_of_generated_columns(conn):
    conn.execute("CREATE TABLE t (a INT, b INT, x INT GENERATED ALWAYS AS ((a + b) * 2) STORED)")
    conn.execute("INSERT INTO t (a, b) VALUES (3, 7), (4, 11)")
    e = fails(conn, "ALTER TABLE t ALTER COLUMN a TYPE bigint", "0A000",
              "cannot alter type of a column used by a generated column")
    assert 'DETAIL:  Column "a" is used by generated column "x".' in str(e)
    conn.execute("ALTER TABLE t ALTER COLUMN x TYPE bigint")
    fails(conn, "ALTER TABLE t ALTER COLUMN x TYPE int USING x + 1", "42P16",
          "cannot specify USING when altering type of generated column")
    e = fails(conn, "ALTER TABLE t ALTER COLUMN x DROP DEFAULT", "42601",
              'column "x" of relation "t" is a generated column')
    assert "HINT:  Use ALTER TABLE ... ALTER COLUMN ... DROP EXPRESSION instead." in str(e)
    fails(conn, "ALTER TABLE t ALTER COLUMN x SET DEFAULT 1", "42601",
          'column "x" of relation "t" is a generated column')
    conn.execute("ALTER TABLE t RENAME COLUMN a TO aa")
    conn.execute("INSERT INTO t (aa, b) VALUES (1, 1)")
    assert rows(conn, "SELECT * FROM t ORDER BY aa") == [(1, 1, 4), (3, 7, 20), (4, 11, 30)]


def test_drop_expression_keeps_the_values(conn):
    conn.execute("CREATE TABLE t (a INT, b INT GENERATED ALWAYS AS (a * 2) STORED)")
    conn.execute("INSERT INTO t (a) VALUES (3), (4)")
    fails(conn, "ALTER TABLE t ALTER COLUMN a DROP EXPRESSION", "55000",
          'column "a" of relation "t" is not a stored generated column')
    conn.execute("ALTER TABLE t ALTER COLUMN a DROP EXPRESSION IF EXISTS")
    conn.execute("ALTER TABLE t ALTER COLUMN b DROP EXPRESSION")
    conn.execute("INSERT INTO t (a) VALUES (5)")
    conn.execute("INSERT INTO t (a, b) VALUES (6, 66)")
    conn.execute("UPDATE t SET a = 30 WHERE a = 3")
    assert rows(conn, "SELECT * FROM t ORDER BY a") == [(4, 8), (5, None), (6, 66), (30, 6)]
    conn.execute("ALTER TABLE t DROP COLUMN a")  # (b no longer depends on it)
    assert rows(conn, "SELECT * FROM t ORDER BY b") == [(6,), (8,), (66,), (None,)]


def test_drop_column_drops_the_generated_columns_using_it(conn):
    conn.execute("CREATE TABLE t (a INT PRIMARY KEY, b INT, c INT GENERATED ALWAYS AS (b * 2) STORED, "
                 "d INT GENERATED ALWAYS AS (a + 1) STORED)")
    conn.execute("INSERT INTO t (a, b) VALUES (1, 10)")
    conn.execute("ALTER TABLE t DROP COLUMN b")
    assert [d[0] for d in conn.execute("SELECT * FROM t").description] == ["a", "d"]
    assert rows(conn, "SELECT * FROM t") == [(1, 2)]
    conn.execute("CREATE TABLE u (a INT, b INT GENERATED ALWAYS AS (a * 2) STORED, c INT)")
    conn.execute("CREATE VIEW v AS SELECT b FROM u")
    fails(conn, "ALTER TABLE u DROP COLUMN a", "2BP01")
    conn.execute("ALTER TABLE u DROP COLUMN a CASCADE")
    fails(conn, "SELECT * FROM v", "42P01")


# --- catalogs --------------------------------------------------------------------------------

def test_catalogs_show_generated_columns(conn):
    conn.execute("CREATE TABLE gtest0 (a INT PRIMARY KEY, b INT GENERATED ALWAYS AS (55) STORED)")
    conn.execute("CREATE TABLE gtest1 (a INT PRIMARY KEY, b INT GENERATED ALWAYS AS (a * 2) STORED)")
    assert rows(conn, "SELECT table_name, column_name, column_default, is_nullable, is_generated, "
                      "generation_expression FROM information_schema.columns WHERE table_name LIKE 'gtest_' "
                      "ORDER BY 1, 2") == [
        ("gtest0", "a", None, "NO", "NEVER", None), ("gtest0", "b", None, "YES", "ALWAYS", "55"),
        ("gtest1", "a", None, "NO", "NEVER", None), ("gtest1", "b", None, "YES", "ALWAYS", "(a * 2)")]
    assert rows(conn, "SELECT attname, attgenerated FROM pg_attribute WHERE attrelid = 'gtest1'::regclass "
                      "ORDER BY attnum") == [("a", ""), ("b", "s")]
    conn.execute("ALTER TABLE gtest1 ALTER COLUMN b DROP EXPRESSION")
    assert rows(conn, "SELECT is_generated, generation_expression FROM information_schema.columns "
                      "WHERE table_name = 'gtest1' AND column_name = 'b'") == [("NEVER", None)]
