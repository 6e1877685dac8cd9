"""CREATE TABLE's ``LIKE source [{INCLUDING | EXCLUDING} option] ...``, as PostgreSQL 16 makes it
(parse_utilcmd.c transformTableLikeClause; regress/expected/create_table_like.out)."""

import pytest

from tests.conftest import fails

SOURCE = """CREATE TABLE src (
    id INT GENERATED ALWAYS AS IDENTITY (START WITH 100 INCREMENT BY 5) PRIMARY KEY,
    name TEXT NOT NULL DEFAULT 'x' UNIQUE,
    c INT CONSTRAINT c_positive CHECK (c > 0),
    s SERIAL,
    k NUMERIC(8,2),
    fk INT REFERENCES parent (id))"""


@pytest.fixture
def c(connect):
    conn = connect(autocommit=True)
    conn.execute("CREATE TABLE parent (id INT PRIMARY KEY)")
    conn.execute("INSERT INTO parent VALUES (1)")
    conn.execute(SOURCE)
    conn.execute("CREATE INDEX ON src (c)")
    conn.execute("CREATE UNIQUE INDEX ON src (k)")
    conn.execute("COMMENT ON COLUMN src.name IS 'the name'")
    conn.execute("COMMENT ON CONSTRAINT c_positive ON src IS 'positive'")
    conn.execute("COMMENT ON INDEX src_c_idx IS 'by c'")
    conn.execute("COMMENT ON TABLE src IS 'the table'")
    return conn


def columns(conn, table):
    return conn.execute("SELECT column_name, data_type, is_nullable, column_default, is_identity "
                        "FROM information_schema.columns WHERE table_name = ? ORDER BY ordinal_position",
                        (table,)).fetchall()


def indexes(conn, table):
    return conn.execute("SELECT indexname, indexdef FROM pg_indexes WHERE tablename = ? ORDER BY indexname",
                        (table,)).fetchall()


def constraints(conn, table):
    return conn.execute("SELECT conname, contype FROM pg_constraint JOIN pg_class ON conrelid = pg_class.oid "
                        "WHERE relname = ? ORDER BY conname", (table,)).fetchall()


def test_plain_like_copies_names_types_and_not_null_only(c):
    c.execute("CREATE TABLE t (LIKE src)")
    assert columns(c, "t") == [("id", "integer", "NO", None, "NO"), ("name", "text", "NO", None, "NO"),
                               ("c", "integer", "YES", None, "NO"), ("s", "integer", "NO", None, "NO"),
                               ("k", "numeric", "YES", None, "NO"), ("fk", "integer", "YES", None, "NO")]
    assert indexes(c, "t") == [] and constraints(c, "t") == []
    c.execute("INSERT INTO t (id, name, s, c, fk) VALUES (1, 'a', 1, -1, 99)")  # no CHECK, no foreign key
    c.execute("INSERT INTO t (id, name, s) VALUES (1, 'a', 1)")  # no key
    assert c.execute("SELECT count(*) FROM t").fetchone() == (2,)
    fails(c, "INSERT INTO t (id, s) VALUES (2, 2)", "23502")  # name stays NOT NULL, without its default


def test_including_all_copies_defaults_identity_checks_indexes_and_comments(c):
    c.execute("CREATE TABLE t (LIKE src INCLUDING ALL, extra INT)")
    assert columns(c, "t") == [
        ("id", "integer", "NO", None, "YES"), ("name", "text", "NO", "'x'::text", "NO"),
        ("c", "integer", "YES", None, "NO"), ("s", "integer", "NO", "nextval('src_s_seq'::regclass)", "NO"),
        ("k", "numeric", "YES", None, "NO"), ("fk", "integer", "YES", None, "NO"),
        ("extra", "integer", "YES", None, "NO")]
    # indexes named anew, as PostgreSQL names them by default; the CHECK keeps its name
    assert indexes(c, "t") == [("t_c_idx", "CREATE INDEX t_c_idx ON public.t USING btree (c)"),
                               ("t_k_idx", "CREATE UNIQUE INDEX t_k_idx ON public.t USING btree (k)"),
                               ("t_name_key", "CREATE UNIQUE INDEX t_name_key ON public.t USING btree (name)"),
                               ("t_pkey", "CREATE UNIQUE INDEX t_pkey ON public.t USING btree (id)")]
    assert constraints(c, "t") == [("c_positive", "c"), ("t_name_key", "u"), ("t_pkey", "p")]  # no foreign key
    assert c.execute("SELECT col_description('t'::regclass, 2), obj_description('t'::regclass), "
                     "obj_description('t_c_idx'::regclass)").fetchone() == ("the name", None, "by c")
    # the identity has a sequence of its own, with the source's options, from its start
    assert c.execute("INSERT INTO t (name, c) VALUES ('a', 1), (DEFAULT, 2) RETURNING id, name, s").fetchall() \
        == [(100, "a", 1), (105, "x", 2)]
    assert c.execute("INSERT INTO src (name) VALUES ('a') RETURNING id, s").fetchone() == (100, 3)
    fails(c, "INSERT INTO t (id, name) VALUES (1, 'b')", "428C9")  # GENERATED ALWAYS, as in the source
    fails(c, "INSERT INTO t (name, c) VALUES ('a', 3)", "23505")
    fails(c, "INSERT INTO t (name, c) VALUES ('b', -3)", "23514")
    fails(c, "INSERT INTO t (name, k) VALUES ('b', 1), ('c', 1)", "23505")
    c.execute("INSERT INTO t (name, fk) VALUES ('d', 99)")  # foreign keys are never copied


def test_excluding_after_including_all_and_options_in_order(c):
    c.execute("CREATE TABLE t (LIKE src INCLUDING ALL EXCLUDING INDEXES EXCLUDING IDENTITY)")
    assert indexes(c, "t") == [] and constraints(c, "t") == [("c_positive", "c")]
    # an identity column copied without IDENTITY is a plain NOT NULL column: no default either
    assert columns(c, "t")[0] == ("id", "integer", "NO", None, "NO")
    c.execute("CREATE TABLE u (LIKE src EXCLUDING ALL INCLUDING DEFAULTS)")
    assert [col[3] for col in columns(c, "u")][:2] == [None, "'x'::text"]
    assert constraints(c, "u") == []


def test_like_takes_its_place_among_written_columns_and_constraints(c):
    c.execute("CREATE TABLE t (before INT, LIKE src INCLUDING CONSTRAINTS, after TEXT CHECK (after <> ''))")
    assert [col[0] for col in columns(c, "t")] == ["before", "id", "name", "c", "s", "k", "fk", "after"]
    assert constraints(c, "t") == [("c_positive", "c"), ("t_after_check", "c")]
    fails(c, "INSERT INTO t (id, name, s, c) VALUES (1, 'a', 1, 0)", "23514")


def test_errors(c):
    fails(c, "CREATE TABLE t (LIKE nope)", "42P01")
    fails(c, "CREATE TABLE t (id INT, LIKE src)", "42701")
    fails(c, "CREATE TABLE t (id INT PRIMARY KEY, x INT, LIKE parent INCLUDING INDEXES)", "42P16")
    fails(c, "CREATE TABLE t (LIKE src INCLUDING BOGUS)", "42601")
    fails(c, "CREATE TABLE t (LIKE src INCLUDING CONSTRAINTS, CONSTRAINT c_positive CHECK (true))", "42710")
    c.execute("CREATE SEQUENCE sq")
    fails(c, "CREATE TABLE t (LIKE sq)", "42809")
    fails(c, "CREATE TEMP TABLE t (LIKE src INCLUDING IDENTITY)", "0A000")  # (as a written identity column)
    assert c.execute("CREATE TABLE IF NOT EXISTS src (LIKE nope)").rowcount == -1  # skipped before LIKE is read
    assert c.execute("SELECT count(*) FROM information_schema.tables WHERE table_name = 't'").fetchone() == (0,)


def test_like_of_a_view_user_types_and_a_temporary_table(c):
    c.execute("CREATE TYPE mood AS ENUM ('sad', 'ok')")
    c.execute("CREATE DOMAIN posint AS INT CHECK (VALUE > 0)")
    c.execute("CREATE TABLE typed (m mood, d posint NOT NULL)")
    c.execute("CREATE TABLE t (LIKE typed)")
    c.execute("INSERT INTO t VALUES ('ok', 1)")
    fails(c, "INSERT INTO t VALUES ('bad', 1)", "22P02")
    fails(c, "INSERT INTO t VALUES ('ok', -1)", "23514")
    c.execute("CREATE VIEW v AS SELECT id, name || '!' AS n, k FROM src")
    c.execute("CREATE TABLE fromview (LIKE v)")
    assert columns(c, "fromview") == [("id", "integer", "YES", None, "NO"), ("n", "text", "YES", None, "NO"),
                                      ("k", "numeric", "YES", None, "NO")]
    c.execute("CREATE TEMP TABLE tt (LIKE src INCLUDING ALL EXCLUDING IDENTITY)")
    fails(c, "INSERT INTO tt (id, name, c) VALUES (1, 'a', -1)", "23514")


def test_rolled_back_and_durable(connect, c):
    c.execute("BEGIN")
    c.execute("CREATE TABLE gone (LIKE src INCLUDING ALL)")
    c.execute("ROLLBACK")
    assert c.execute("SELECT count(*) FROM information_schema.tables WHERE table_name = 'gone'").fetchone() == (0,)
    c.execute("CREATE TABLE t (LIKE src INCLUDING ALL)")
    c.close()
    again = connect(autocommit=True)  # (replayed from the log)
    assert [name for name, _ in indexes(again, "t")] == ["t_c_idx", "t_k_idx", "t_name_key", "t_pkey"]
    assert again.execute("SELECT col_description('t'::regclass, 2)").fetchone() == ("the name",)
    assert again.execute("INSERT INTO t (name) VALUES ('a') RETURNING id").fetchone() == (100,)


def test_generated_columns_copied_with_including_generated(c):
    c.execute("CREATE TABLE g (a INT, b INT GENERATED ALWAYS AS (a * 2) STORED)")
    c.execute("CREATE TABLE with_expr (LIKE g INCLUDING GENERATED)")
    c.execute("INSERT INTO with_expr (a) VALUES (4)")
    assert c.execute("SELECT a, b FROM with_expr").fetchall() == [(4, 8)]
    fails(c, "INSERT INTO with_expr VALUES (1, 1)", "428C9")
    c.execute("CREATE TABLE plain (LIKE g)")  # (without it: a plain column, PostgreSQL's)
    c.execute("INSERT INTO plain VALUES (1, 5)")
    assert c.execute("SELECT a, b FROM plain").fetchall() == [(1, 5)]
