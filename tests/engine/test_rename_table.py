"""ALTER TABLE t RENAME TO u: PostgreSQL's semantics - the table keeps its rows, constraints,
indexes, owned sequences and the views reading it; transactional; 42P01 / 42P07 / 42601 as
PostgreSQL says (src/backend/commands/tablecmds.c RenameRelationInternal, gram.y)."""

import pytest

import txlake
from tests.conftest import commit_each, fails, run_python, waiting
from tests.conftest import rows as q


@pytest.fixture
def c(connect):
    conn = connect(autocommit=True)
    conn.execute("CREATE TABLE t (id SERIAL PRIMARY KEY, a INT CHECK (a > 0), b TEXT UNIQUE)")
    conn.execute("INSERT INTO t (a, b) VALUES (1, 'x'), (2, 'y')")
    return conn


def in_another_process(warehouse: str, sql: str) -> None:
    """``sql`` committed by another process (no lock of this one's is shared with it)."""
    done = run_python("import sys, txlake\nc = txlake.connect(sys.argv[1], publish='off', autocommit=True)\n"
                      "c.execute(sys.argv[2])", warehouse, sql)
    assert done.returncode == 0, done.stderr


def test_the_table_keeps_its_rows_constraints_and_sequence_under_the_new_name(c):
    c.execute("CREATE INDEX t_a_idx ON t (a)")
    assert c.execute("ALTER TABLE t RENAME TO u").rowcount == -1
    assert q(c, "SELECT * FROM u ORDER BY id") == [(1, 1, "x"), (2, 2, "y")]
    assert fails(c, "SELECT * FROM t", "42P01") == 'relation "t" does not exist'
    assert q(c, "INSERT INTO u (a, b) VALUES (3, 'z') RETURNING id") == [(3,)]  # (its sequence numbers on)
    # constraints and indexes named after the table keep their names, as in PostgreSQL
    assert 't_a_check' in fails(c, "INSERT INTO u (a, b) VALUES (0, 'w')", "23514")
    assert 't_pkey' in fails(c, "INSERT INTO u (id, a, b) VALUES (1, 5, 'v')", "23505")
    assert 't_b_key' in fails(c, "INSERT INTO u (a, b) VALUES (5, 'x')", "23505")
    assert sorted(q(c, "SELECT indexname FROM pg_indexes WHERE tablename = 'u'")) == \
        [("t_a_idx",), ("t_b_key",), ("t_pkey",)]
    assert q(c, "SELECT relname FROM pg_class WHERE relname IN ('t', 'u')") == [("u",)]
    assert q(c, "SELECT table_name FROM information_schema.tables WHERE table_name IN ('t', 'u')") == [("u",)]
    assert q(c, "SELECT column_default FROM information_schema.columns WHERE table_name = 'u' AND column_name = 'id'") \
        == [("nextval('t_id_seq'::regclass)",)]


def test_its_views_and_foreign_keys_follow_it(c):
    c.execute("CREATE TABLE child (id INT PRIMARY KEY, t_id INT REFERENCES t (id))")
    c.execute("INSERT INTO child VALUES (10, 1)")
    c.execute("CREATE VIEW v AS SELECT t.a FROM t WHERE t.id > 1")
    c.execute("ALTER TABLE t RENAME TO u")
    assert q(c, "SELECT * FROM v") == [(2,)]
    definition = q(c, "SELECT view_definition FROM information_schema.views WHERE table_name = 'v'")[0][0]
    assert "public.u" in definition and "public.t " not in definition
    assert 'child_t_id_fkey' in fails(c, "INSERT INTO child VALUES (11, 99)", "23503")
    assert 'child_t_id_fkey' in fails(c, "DELETE FROM u WHERE id = 1", "23503")
    c.execute("INSERT INTO child VALUES (11, 2)")
    assert fails(c, "DROP TABLE u", "2BP01")


def test_errors_as_postgresql_gives_them(c):
    c.execute("CREATE TABLE other (x INT)")
    c.execute("CREATE SEQUENCE s")
    c.execute("CREATE VIEW w AS SELECT 1 AS one")
    c.execute("CREATE TYPE mood AS ENUM ('ok')")
    assert fails(c, "ALTER TABLE missing RENAME TO z", "42P01") == 'relation "missing" does not exist'
    for taken in ("other", "s", "w", "t_pkey", "t_id_seq", "t"):
        assert fails(c, f"ALTER TABLE t RENAME TO {taken}", "42P07") == f'relation "{taken}" already exists'
    assert fails(c, "ALTER TABLE t RENAME TO mood", "42710") == 'type "mood" already exists'
    assert fails(c, "ALTER TABLE t RENAME TO public.z", "42601") == 'syntax error at or near "."'
    assert q(c, "SELECT count(*) FROM t") == [(2,)]  # (nothing lost)
    c.execute("ALTER TABLE IF EXISTS missing RENAME TO z")
    assert c.notices[-1] == 'NOTICE:  relation "missing" does not exist, skipping'
    assert fails(c, "ALTER TABLE t RENAME TO z, ADD COLUMN q INT", "42601")
    c.execute("ALTER TABLE ONLY t RENAME TO z")
    assert q(c, "SELECT count(*) FROM z") == [(2,)]


def test_a_rename_rolls_back_with_its_transaction_and_savepoint(c, connect):
    c.execute("BEGIN")
    c.execute("ALTER TABLE t RENAME TO u")
    c.execute("INSERT INTO u (a, b) VALUES (3, 'z')")
    c.execute("ROLLBACK")
    assert q(c, "SELECT count(*) FROM t") == [(2,)]
    assert fails(c, "SELECT * FROM u", "42P01")
    c.execute("BEGIN")
    c.execute("SAVEPOINT sp")
    c.execute("ALTER TABLE t RENAME TO u")
    c.execute("CREATE TABLE t (fresh INT)")  # (its old name is free in the transaction)
    c.execute("ROLLBACK TO SAVEPOINT sp")
    assert q(c, "SELECT count(*) FROM t") == [(2,)]
    c.execute("ALTER TABLE t RENAME TO v")
    c.execute("COMMIT")
    assert q(c, "SELECT count(*) FROM v") == [(2,)]
    assert fails(c, "SELECT * FROM t", "42P01") and fails(c, "SELECT * FROM u", "42P01")


def test_two_tables_swap_names_in_one_transaction(c, connect):
    c.execute("CREATE TABLE t_new (id INT, a INT, b TEXT)")
    c.execute("INSERT INTO t_new VALUES (7, 7, 'new')")
    c.execute("BEGIN")  # (the log's entry renames t to t_new and t_new to t)
    c.execute("ALTER TABLE t RENAME TO swapping")
    c.execute("ALTER TABLE t_new RENAME TO t")
    c.execute("ALTER TABLE swapping RENAME TO t_new")
    c.execute("COMMIT")
    assert q(c, "SELECT b FROM t") == [("new",)]
    assert q(c, "SELECT count(*) FROM t_new") == [(2,)]
    other = connect(autocommit=True)  # (a new catalog version, replayed from the log)
    assert q(other, "SELECT b FROM t") == [("new",)]
    reopened = run_python("import sys, txlake\nc = txlake.connect(sys.argv[1], publish='off')\n"
                          "print(c.execute('SELECT b FROM t').fetchall(), c.execute('SELECT count(*) FROM t_new')"
                          ".fetchall())", other.session.db.warehouse.root)
    assert reopened.stdout.strip() == "[('new',)] [(2,)]", reopened.stderr


def test_a_temporary_table_renames_too(c):
    c.execute("CREATE TEMP TABLE tmp (x INT)")
    c.execute("INSERT INTO tmp VALUES (1)")
    c.execute("ALTER TABLE tmp RENAME TO tmp2")
    assert q(c, "SELECT x FROM tmp2") == [(1,)]
    assert fails(c, "SELECT * FROM tmp", "42P01")


def test_another_process_sees_the_rename_once_committed(c, warehouse):
    c.execute("BEGIN")
    c.execute("ALTER TABLE t RENAME TO u")
    code = ("import sys, txlake\nc = txlake.connect(sys.argv[1], publish='off', autocommit=True)\n"
            "for name in ('t', 'u'):\n"
            "    try: print(name, c.execute(f'SELECT count(*) FROM {name}').fetchall())\n"
            "    except txlake.Error as e: print(name, e.sqlstate)\n")
    assert run_python(code, warehouse).stdout.split("\n")[:2] == ["t [(2,)]", "u 42P01"]
    c.execute("COMMIT")
    assert run_python(code, warehouse).stdout.split("\n")[:2] == ["t 42P01", "u [(2,)]"]


@pytest.mark.parametrize("level", ["READ COMMITTED", "REPEATABLE READ"])
def test_a_writer_waiting_on_the_lock_finds_the_old_name_gone(c, connect, level):
    renamer, writer = connect(), connect(isolation_level=level)
    writer.execute("SELECT 1")  # (its snapshot, at REPEATABLE READ, has the old name)
    renamer.execute("ALTER TABLE t RENAME TO u")
    thread, outcome = waiting(writer, "INSERT INTO t (a, b) VALUES (5, 'w')")
    assert commit_each(renamer) == ["ok"]
    thread.join(30)
    assert outcome == ["42P01"]  # (as after a DROP TABLE: the name it resolved names nothing now)
    writer.rollback()
    assert q(c, "SELECT count(*) FROM u") == [(2,)]


def test_a_concurrent_rename_from_another_process_is_a_serialization_failure(c, warehouse):
    c.execute("BEGIN ISOLATION LEVEL REPEATABLE READ")
    c.execute("ALTER TABLE t RENAME TO u")
    in_another_process(warehouse, "ALTER TABLE t RENAME TO w")
    assert commit_each(c) == ["40001"]
    assert q(c, "SELECT count(*) FROM w") == [(2,)]


def test_rows_written_by_another_process_under_the_old_name_land_in_the_renamed_table(c, warehouse):
    c.execute("BEGIN")
    c.execute("INSERT INTO t (id, a, b) VALUES (50, 5, 'p')")
    in_another_process(warehouse, "ALTER TABLE t RENAME TO u")
    assert commit_each(c) == ["ok"]  # (it resolved the table before: it writes the table, by id)
    assert q(c, "SELECT count(*) FROM u") == [(3,)]


def test_read_committed_keeps_its_rename_over_rows_another_process_committed(c, connect, warehouse):
    renamer = connect(isolation_level="READ COMMITTED")
    renamer.execute("ALTER TABLE t RENAME TO u")
    in_another_process(warehouse, "INSERT INTO t (id, a, b) VALUES (60, 6, 'o')")
    assert q(renamer, "SELECT count(*) FROM u") == [(3,)]  # (its next statement sees their row, in u)
    assert commit_each(renamer) == ["ok"]
    assert q(c, "SELECT count(*) FROM u") == [(3,)]


def test_a_sequence_renamed_keeps_numbering_the_columns_that_use_it(c):
    c.execute("CREATE SEQUENCE s")
    c.execute("CREATE TABLE t2 (x BIGINT DEFAULT nextval('s'), y BIGINT DEFAULT nextval('public.s'))")
    assert q(c, "SELECT nextval('s')") == [(1,)]
    assert c.execute("ALTER SEQUENCE s RENAME TO r").rowcount == -1
    assert q(c, "SELECT nextval('r')") == [(2,)]
    assert q(c, "INSERT INTO t2 DEFAULT VALUES RETURNING x, y") == [(3, 4)]
    c.execute("ALTER TABLE t_id_seq RENAME TO ids")  # (ALTER TABLE renames a sequence too, as PostgreSQL's)
    assert q(c, "INSERT INTO t (a, b) VALUES (3, 'z') RETURNING id") == [(3,)]
    assert sorted(q(c, "SELECT table_name, column_default FROM information_schema.columns "
                       "WHERE column_default LIKE 'nextval%'")) == \
        [("t", "nextval('ids'::regclass)"), ("t2", "nextval('r'::regclass)"), ("t2", "nextval('r'::regclass)")]
    assert fails(c, "SELECT nextval('s')", "42P01")
    assert fails(c, "ALTER SEQUENCE t RENAME TO z", "42809") == '"t" is not a sequence'
    assert fails(c, "ALTER SEQUENCE r RENAME TO t", "42P07") == 'relation "t" already exists'
    assert fails(c, "ALTER SEQUENCE r RENAME TO public.z", "42601")
    c.execute("BEGIN")
    c.execute("ALTER SEQUENCE r RENAME TO gone")
    c.execute("ROLLBACK")
    assert q(c, "INSERT INTO t2 (y) VALUES (0) RETURNING x") == [(5,)]


def test_alter_index_renames_an_index_and_the_key_it_is(c, connect, warehouse):
    c.execute("CREATE INDEX t_a_idx ON t (a)")
    c.execute("CREATE UNIQUE INDEX t_a_key ON t (a)")
    c.execute("COMMENT ON INDEX t_a_idx IS 'by a'")
    assert c.execute("ALTER INDEX t_a_idx RENAME TO by_a").rowcount == -1
    c.execute("ALTER INDEX t_pkey RENAME TO t_pk")  # (the primary key constraint too, as PostgreSQL's)
    c.execute("ALTER INDEX t_b_key RENAME TO b_uniq")
    c.execute("ALTER INDEX t_a_key RENAME TO a_uniq")
    assert sorted(q(c, "SELECT indexname FROM pg_indexes WHERE tablename = 't'")) == \
        [("a_uniq",), ("b_uniq",), ("by_a",), ("t_pk",)]
    assert sorted(q(c, "SELECT conname FROM pg_constraint WHERE conrelid = 't'::regclass")) == \
        [("b_uniq",), ("t_a_check",), ("t_pk",)]
    assert q(c, "SELECT obj_description('by_a'::regclass)") == [("by a",)]
    assert 't_pk' in fails(c, "INSERT INTO t (id, a, b) VALUES (1, 5, 'v')", "23505")
    assert 'b_uniq' in fails(c, "INSERT INTO t (a, b) VALUES (5, 'x')", "23505")
    assert 'a_uniq' in fails(c, "INSERT INTO t (id, a, b) VALUES (9, 1, 'new')", "23505")
    assert fails(c, "ALTER INDEX missing RENAME TO x", "42P01") == 'relation "missing" does not exist'
    c.execute("ALTER INDEX IF EXISTS missing RENAME TO x")
    assert c.notices[-1] == 'NOTICE:  relation "missing" does not exist, skipping'
    assert fails(c, "ALTER INDEX by_a RENAME TO t", "42P07") == 'relation "t" already exists'
    assert fails(c, "ALTER INDEX by_a RENAME TO t_pk", "42P07")
    assert fails(c, "ALTER INDEX by_a RENAME TO public.x", "42601")
    c.execute("ALTER INDEX t RENAME TO u")  # (PostgreSQL's ALTER INDEX renames any relation)
    assert q(c, "SELECT count(*) FROM u") == [(2,)]
    reopened = connect(autocommit=True)  # (as the log has it)
    assert sorted(q(reopened, "SELECT indexname FROM pg_indexes WHERE tablename = 'u'")) == \
        [("a_uniq",), ("b_uniq",), ("by_a",), ("t_pk",)]


def test_rename_constraint_renames_checks_keys_and_foreign_keys(c):
    c.execute("CREATE TABLE child (id INT PRIMARY KEY, t_id INT REFERENCES t (id))")
    c.execute("COMMENT ON CONSTRAINT t_a_check ON t IS 'positive'")
    assert c.execute("ALTER TABLE t RENAME CONSTRAINT t_a_check TO a_positive").rowcount == -1
    c.execute("ALTER TABLE t RENAME CONSTRAINT t_b_key TO b_uniq")  # (its index too)
    c.execute("ALTER TABLE ONLY t RENAME CONSTRAINT t_pkey TO t_pk")
    c.execute("ALTER TABLE child RENAME CONSTRAINT child_t_id_fkey TO to_t")
    assert 'a_positive' in fails(c, "INSERT INTO t (a, b) VALUES (0, 'w')", "23514")
    assert 'b_uniq' in fails(c, "INSERT INTO t (a, b) VALUES (5, 'x')", "23505")
    assert 't_pk' in fails(c, "INSERT INTO t (id, a, b) VALUES (1, 5, 'v')", "23505")
    assert 'to_t' in fails(c, "INSERT INTO child VALUES (1, 99)", "23503")
    assert sorted(q(c, "SELECT indexname FROM pg_indexes WHERE tablename = 't'")) == [("b_uniq",), ("t_pk",)]
    comments = c.session.db.warehouse.latest.table("default", "t").schema.comments
    assert [(x.kind, x.name, x.text) for x in comments] == [("constraint", "a_positive", "positive")]
    assert fails(c, "ALTER TABLE t RENAME CONSTRAINT missing TO x", "42704") == \
        'constraint "missing" for table "t" does not exist'
    assert fails(c, "ALTER TABLE t RENAME CONSTRAINT to_t TO x", "42704")  # (child's, not t's)
    assert fails(c, "ALTER TABLE t RENAME CONSTRAINT a_positive TO b_uniq", "42710") == \
        'constraint "b_uniq" for relation "t" already exists'
    assert fails(c, "ALTER TABLE t RENAME CONSTRAINT b_uniq TO child", "42P07") == 'relation "child" already exists'
    assert fails(c, "ALTER TABLE t RENAME CONSTRAINT b_uniq TO x, ADD COLUMN q INT", "42601")
    c.execute("BEGIN")
    c.execute("ALTER TABLE t RENAME CONSTRAINT a_positive TO gone")
    c.execute("ROLLBACK")
    assert 'a_positive' in fails(c, "INSERT INTO t (a, b) VALUES (0, 'w')", "23514")


def test_a_renamed_constraint_commits_over_rows_another_process_wrote(c, warehouse):
    c.execute("BEGIN")
    c.execute("ALTER TABLE t RENAME CONSTRAINT t_a_check TO a_positive")
    in_another_process(warehouse, "INSERT INTO t (id, a, b) VALUES (70, 7, 'p')")
    assert commit_each(c) == ["ok"]  # (a catalog-only change: their rows stay, the name is new)
    assert q(c, "SELECT count(*) FROM t") == [(3,)]
    assert 'a_positive' in fails(c, "INSERT INTO t (a, b) VALUES (0, 'w')", "23514")


def test_deferred_checks_follow_a_renamed_constraint(connect):
    c = connect()
    c.execute("CREATE TABLE p (id INT PRIMARY KEY, b INT UNIQUE DEFERRABLE INITIALLY DEFERRED)")
    c.execute("CREATE TABLE ch (x INT REFERENCES p (id) DEFERRABLE INITIALLY DEFERRED)")
    c.commit()
    c.execute("INSERT INTO p VALUES (1, 1), (2, 1)")  # (checked at COMMIT)
    c.execute("ALTER TABLE p RENAME CONSTRAINT p_b_key TO b_once")
    with pytest.raises(txlake.IntegrityError) as info:  # (it was skipped: the duplicate committed)
        c.commit()
    assert info.value.sqlstate == "23505" and '"b_once"' in str(info.value)
    c.rollback()
    c.execute("INSERT INTO ch VALUES (9)")
    c.execute("ALTER INDEX p_b_key RENAME TO b_key")  # (nothing queued for it: nothing follows)
    c.execute("ALTER TABLE ch RENAME CONSTRAINT ch_x_fkey TO to_p")
    with pytest.raises(txlake.IntegrityError) as info:  # (it was 40001, found by the vote alone)
        c.commit()
    assert info.value.sqlstate == "23503" and '"to_p"' in str(info.value)
    c.rollback()
    assert q(c, "SELECT count(*) FROM p") == [(0,)]
