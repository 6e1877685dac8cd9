"""COMMENT ON tables, views, sequences, columns, indexes and constraints: kept in the
relation's schema, transactionally, and read back by obj_description / col_description, as
PostgreSQL does. Before, every COMMENT ON was accepted and kept nowhere."""

import pathlib
import subprocess
import sys

import pytest

import txlake
from tests.conftest import child_env, one, run_python
from txlake.storage.schema import TableSchema


@pytest.fixture
def c(connect):
    conn = connect(autocommit=True)
    conn.execute("CREATE TABLE t (id INT PRIMARY KEY, a TEXT, CONSTRAINT a_chk CHECK (a <> ''))")
    conn.execute("CREATE INDEX t_a_idx ON t (a)")
    conn.execute("INSERT INTO t VALUES (1, 'x'), (2, 'y')")
    conn.execute("CREATE VIEW v AS SELECT id, a FROM t")
    conn.execute("CREATE SEQUENCE s")
    return conn


DESCRIPTIONS = ("SELECT obj_description('t'::regclass, 'pg_class'), col_description('t'::regclass, 1), "
                "col_description('t'::regclass, 2), obj_description('v'::regclass, 'pg_class'), "
                "col_description('v'::regclass, 1), obj_description('public.s'::regclass, 'pg_class'), "
                "obj_description('t_a_idx'::regclass, 'pg_class'), obj_description('t_pkey'::regclass)")


def test_comments_are_kept_and_read_back(c, warehouse):
    assert one(c, DESCRIPTIONS) == (None,) * 8
    for sql in ("COMMENT ON TABLE t IS 'the table'", "COMMENT ON COLUMN public.t.a IS 'it''s a'",
                "COMMENT ON VIEW v IS 'a view'", "COMMENT ON COLUMN v.id IS 'the view''s id'",
                "COMMENT ON SEQUENCE s IS 'numbers'", "COMMENT ON INDEX t_a_idx IS 'by a'",
                "COMMENT ON INDEX t_pkey IS 'by id'", "COMMENT ON CONSTRAINT a_chk ON t IS 'no empty a'"):
        assert c.execute(sql).statusmessage == "COMMENT", sql
    expected = ("the table", None, "it's a", "a view", "the view's id", "numbers", "by a", "by id")
    assert one(c, DESCRIPTIONS) == expected
    assert c.execute("SELECT * FROM t ORDER BY id").fetchall() == [(1, "x"), (2, "y")]  # (rows kept)
    # they are in the catalog on disk: another process reads them
    done = run_python("import sys, txlake\n"
                      "c = txlake.connect(sys.argv[1], autocommit=True)\n"
                      f"print(repr(c.execute({DESCRIPTIONS!r}).fetchone()))", warehouse)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == repr(expected)
    # IS NULL removes one; a second COMMENT replaces it
    c.execute("COMMENT ON TABLE t IS NULL")
    c.execute("COMMENT ON COLUMN t.a IS 'a again'")
    assert one(c, "SELECT obj_description('t'::regclass, 'pg_class'), col_description('t'::regclass, 2)") == (
        None, "a again")


def test_a_comment_is_transactional(c, connect):
    c.execute("COMMENT ON TABLE t IS 'before'")
    c.execute("BEGIN")
    c.execute("COMMENT ON TABLE t IS 'inside'")
    assert one(c, "SELECT obj_description('t'::regclass)") == ("inside",)
    other = connect(autocommit=True)
    assert one(other, "SELECT obj_description('t'::regclass)") == ("before",)  # (not committed yet)
    c.execute("ROLLBACK")
    assert one(c, "SELECT obj_description('t'::regclass)") == ("before",)
    c.execute("BEGIN READ ONLY")
    with pytest.raises(txlake.Error) as e:
        c.execute("COMMENT ON TABLE t IS 'x'")
    assert e.value.sqlstate == "25006"
    c.execute("ROLLBACK")


def test_a_comment_goes_with_its_object(c):
    """A comment is on the object, not on its name: one dropped and made again has none."""
    for sql in ("COMMENT ON TABLE t IS 'x'", "COMMENT ON COLUMN t.a IS 'x'", "COMMENT ON INDEX t_a_idx IS 'x'",
                "COMMENT ON CONSTRAINT a_chk ON t IS 'x'"):
        c.execute(sql)
    c.execute("DROP VIEW v")
    c.execute("ALTER TABLE t DROP COLUMN a")
    c.execute("ALTER TABLE t ADD COLUMN a TEXT")
    c.execute("CREATE INDEX t_a_idx ON t (a)")
    assert one(c, "SELECT col_description('t'::regclass, 2), obj_description('t_a_idx'::regclass)") == (None, None)
    c.execute("COMMENT ON COLUMN t.a IS 'kept by a rename'")
    c.execute("ALTER TABLE t RENAME COLUMN a TO b")
    assert one(c, "SELECT col_description('t'::regclass, 2)") == ("kept by a rename",)
    c.execute("DROP TABLE t")
    c.execute("CREATE TABLE t (id INT)")
    assert one(c, "SELECT obj_description('t'::regclass), col_description('t'::regclass, 1)") == (None, None)


@pytest.mark.parametrize("sql, sqlstate", [
    ("COMMENT ON TABLE v IS 'x'", "42809"), ("COMMENT ON VIEW t IS 'x'", "42809"),
    ("COMMENT ON SEQUENCE t IS 'x'", "42809"), ("COMMENT ON INDEX t IS 'x'", "42809"),
    ("COMMENT ON TABLE nope IS 'x'", "42P01"), ("COMMENT ON INDEX nope IS 'x'", "42P01"),
    ("COMMENT ON COLUMN t.nope IS 'x'", "42703"), ("COMMENT ON CONSTRAINT nope ON t IS 'x'", "42704"),
    ("COMMENT ON COLUMN t IS 'x'", "42601"), ("COMMENT ON TABLE t IS 42", "42601"),
    ("SELECT obj_description('nope'::regclass, 'pg_class')", "42P01"),
])
def test_a_comment_on_what_is_not_there_is_refused(c, sql, sqlstate):
    with pytest.raises(txlake.Error) as e:
        c.execute(sql)
    assert e.value.sqlstate == sqlstate
    assert c.execute("SELECT count(*) FROM t").fetchone() == (2,)


def test_a_comment_on_what_txlake_has_not_changes_nothing(c):
    """A schema, an extension, a function: accepted as before (pg_dump writes them), kept nowhere."""
    for sql in ("COMMENT ON SCHEMA public IS 'standard public schema'", "COMMENT ON EXTENSION plpgsql IS 'x'",
                "COMMENT ON FUNCTION f(integer) IS 'x'"):
        assert c.execute(sql).statusmessage == "COMMENT"


def test_a_schema_of_before_comments_reads_and_writes_none():
    """A warehouse made before txlake kept comments has schemas without them: read as none, and a
    schema without comments is written as before (older txlake reads it)."""
    old = {"id": 3, "columns": [{"id": 0, "name": "a", "type": "INT", "not_null": False, "default": None}],
           "primary_key": [], "highest_field_id": 0}
    schema = TableSchema.from_json(old)
    assert schema.comments == () and schema.to_json() == old
    commented = schema.with_comment("column", "0", "x")
    assert TableSchema.from_json(commented.to_json()) == commented


def _data_files(warehouse: str) -> set:
    return {str(p.relative_to(warehouse)) for p in pathlib.Path(warehouse).rglob("*.parquet")}


def test_a_comment_changes_the_catalog_only(c, connect, warehouse):
    """COMMENT ON a table or column writes no row: its files stay (it used to write the table
    anew), and a transaction commenting stands beside a concurrent writer of the table and a
    concurrent comment on another column (before: 40001, as a rewrite under an INSERT)."""
    c.execute("INSERT INTO t SELECT i, 'r' || i FROM range(3, 5000) AS r(i)")  # (a Parquet file)
    before = _data_files(warehouse)
    assert before
    c.execute("COMMENT ON TABLE t IS 'the table'")
    c.execute("COMMENT ON COLUMN t.a IS 'the a'")
    assert _data_files(warehouse) == before
    assert one(c, "SELECT count(*), obj_description('t'::regclass), col_description('t'::regclass, 2) FROM t") == (
        4999, "the table", "the a")
    mine, writer, other = connect(), connect(autocommit=True), connect(autocommit=True)
    try:
        assert one(mine, "SELECT count(*) FROM t") == (4999,)  # (the transaction's snapshot)
        writer.execute("INSERT INTO t VALUES (6000, 'new')")
        writer.execute("DELETE FROM t WHERE id = 3")
        other.execute("COMMENT ON COLUMN t.id IS 'the id'")
        mine.execute("COMMENT ON COLUMN t.a IS 'a, again'")
        mine.commit()
    finally:
        mine.rollback()
    assert _data_files(warehouse) == before
    assert one(c, "SELECT count(*), obj_description('t'::regclass), col_description('t'::regclass, 1), "
                  "col_description('t'::regclass, 2) FROM t") == (4999, "the table", "the id", "a, again")


def test_a_rewrite_in_another_process_does_not_undo_a_comment_committed_meanwhile(c, warehouse, tmp_path):
    """Another process's ALTER TABLE, open while a COMMENT ON commits here, is 40001 at its
    COMMIT: its schema, made from the one it read, would have put the old comments back (it
    committed, and the comments were lost; table locks do not reach across processes)."""
    c.execute("COMMENT ON TABLE t IS 'old'")
    go = tmp_path / "go"
    child = subprocess.Popen([sys.executable, "-c", (
        "import os, sys, time, txlake\n"
        "c = txlake.connect(sys.argv[1], publish='off')\n"
        "c.execute('ALTER TABLE t ADD COLUMN z INT')\n"
        "print('altered', flush=True)\n"
        "deadline = time.monotonic() + 60\n"
        "while not os.path.exists(sys.argv[2]) and time.monotonic() < deadline:\n"
        "    time.sleep(0.02)\n"
        "try:\n"
        "    c.commit(); print('ok')\n"
        "except txlake.Error as e:\n"
        "    print(e.sqlstate)\n"), warehouse, str(go)],
        stdout=subprocess.PIPE, text=True, env=child_env())
    try:
        assert child.stdout.readline().strip() == "altered"
        c.execute("COMMENT ON TABLE t IS 'new'")
        c.execute("COMMENT ON COLUMN t.a IS 'the a'")
    finally:
        go.touch()
        out, _ = child.communicate(timeout=60)
    assert out.strip() == "40001"
    assert one(c, "SELECT obj_description('t'::regclass), col_description('t'::regclass, 2)") == ("new", "the a")
    assert [d[0] for d in c.execute("SELECT * FROM t").description] == ["id", "a"]


def test_a_comment_takes_share_update_exclusive(c, connect):
    """PostgreSQL's COMMENT ON takes SHARE UPDATE EXCLUSIVE on the relation: a second COMMENT
    or an ALTER waits for it, a writer does not."""
    mine, other = connect(), connect()
    try:
        mine.execute("COMMENT ON COLUMN t.a IS 'held'")
        for mode in ("SHARE UPDATE EXCLUSIVE", "SHARE", "ACCESS EXCLUSIVE"):
            with pytest.raises(txlake.Error) as e:
                other.execute(f"LOCK TABLE t IN {mode} MODE NOWAIT")
            assert e.value.sqlstate == "55P03", mode
            other.rollback()
        other.execute("SET lock_timeout = '50ms'")  # (a bound: the test must not hang)
        with pytest.raises(txlake.Error) as e:
            other.execute("COMMENT ON INDEX t_a_idx IS 'waits'")  # (its table's lock)
        assert e.value.sqlstate == "55P03"
        other.rollback()
        other.execute("INSERT INTO t VALUES (7, 'w')")  # (ROW EXCLUSIVE: no conflict)
        other.execute("LOCK TABLE t IN ROW EXCLUSIVE MODE NOWAIT")
        other.commit()
    finally:
        mine.rollback()
        other.rollback()
    other.execute("COMMENT ON INDEX t_a_idx IS 'by a'")
    other.commit()
    assert one(c, "SELECT obj_description('t_a_idx'::regclass), col_description('t'::regclass, 2), count(*) "
                  "FROM t") == ("by a", None, 3)
