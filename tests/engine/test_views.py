"""Views: CREATE [OR REPLACE] VIEW, DROP VIEW, ALTER VIEW ... RENAME TO, as transactional DDL
with PostgreSQL's semantics - a view is a catalog entry beside the tables (one namespace),
recorded in the commit log as a table's creation is, read at the reading transaction's snapshot."""

import threading

import pytest

import txlake
from txlake.storage.warehouse import Warehouse
from tests.conftest import commit_each, fails, meanwhile, run_python
from tests.conftest import rows as q


@pytest.fixture
def c(connect):
    conn = connect(autocommit=True)
    conn.execute("CREATE TABLE t (id INT PRIMARY KEY, name VARCHAR(20), n INT)")
    conn.execute("INSERT INTO t VALUES (1, 'a', 10), (2, 'b', 20), (3, 'c', 30)")
    return conn


# --- reading through views --------------------------------------------------------------

def test_a_view_is_read_wherever_a_table_is(c):
    c.execute("CREATE VIEW big AS SELECT id, name, n FROM t WHERE n >= 20")
    assert q(c, "SELECT * FROM big ORDER BY id") == [(2, "b", 20), (3, "c", 30)]
    assert q(c, "SELECT b.name, t.n FROM big AS b JOIN t ON t.id = b.id - 1 ORDER BY 1") == [("b", 10), ("c", 20)]
    assert q(c, "SELECT count(*) FROM t WHERE id IN (SELECT id FROM big)") == [(2,)]
    assert q(c, "WITH x AS (SELECT * FROM big) SELECT sum(n) FROM x") == [(50,)]
    assert q(c, "SELECT x.k FROM big AS x (k) ORDER BY 1") == [(2,), (3,)]  # (column aliases)
    c.execute("CREATE VIEW bigger (ident, doubled) AS SELECT id, n * 2 FROM big WHERE n > 20")  # over a view
    assert q(c, "SELECT * FROM bigger") == [(3, 60)]
    assert q(c, "SELECT * FROM big WHERE id = ?", (2,)) == [(2, "b", 20)]
    c.execute("CREATE TABLE copy AS SELECT * FROM bigger")
    assert q(c, "SELECT * FROM copy") == [(3, 60)]
    c.execute("INSERT INTO t SELECT id + 10, name, n FROM big")
    c.execute("UPDATE t SET n = n + 1 WHERE id IN (SELECT ident FROM bigger)")
    c.execute("DELETE FROM t USING big WHERE t.id = big.id + 10 AND big.id = 2")
    assert q(c, "SELECT id, n FROM t ORDER BY id") == [(1, 10), (2, 20), (3, 31), (13, 31)]
    plan = q(c, "EXPLAIN SELECT * FROM bigger")
    assert plan


def test_a_statement_run_again_reads_what_its_names_are_now(c):
    """The same statement text (parsed once, its names memoised) reads a table, then a view of
    the same name, then a table again; and a view's query, shared by every reference, is read
    afresh as the views under it change."""
    c.execute("CREATE VIEW elsewhere AS SELECT 1 AS one")  # (so that every statement is looked at)
    c.execute("CREATE TABLE r (id INT)")
    c.execute("INSERT INTO r VALUES (7)")
    read = "SELECT * FROM r WHERE id > ? ORDER BY 1"
    assert q(c, read, (0,)) == [(7,)]
    c.execute("DROP TABLE r")
    c.execute("CREATE VIEW r AS SELECT id FROM t WHERE n >= 20")
    assert q(c, read, (0,)) == [(2,), (3,)]
    c.execute("CREATE VIEW over_r AS SELECT id * 10 AS id FROM r")
    assert q(c, "SELECT * FROM over_r ORDER BY 1") == [(20,), (30,)]
    c.execute("CREATE OR REPLACE VIEW r AS SELECT id FROM t WHERE n = 10")
    assert q(c, "SELECT * FROM over_r ORDER BY 1") == [(10,)]
    assert q(c, read, (0,)) == [(1,)]
    assert q(c, "EXPLAIN " + read, (0,)) and q(c, read, (0,)) == [(1,)]
    c.execute("DROP VIEW over_r")
    c.execute("DROP VIEW r")
    c.execute("CREATE TABLE r (id INT)")
    c.execute("INSERT INTO r VALUES (8)")
    assert q(c, read, (0,)) == [(8,)]
    c.execute("UPDATE t SET n = n + 1 WHERE id IN (SELECT id FROM r) OR id = 1")
    c.execute("DROP TABLE r")
    c.execute("CREATE VIEW r AS SELECT 3 AS id")
    c.execute("UPDATE t SET n = n + 1 WHERE id IN (SELECT id FROM r) OR id = 1")
    assert q(c, "SELECT id, n FROM t ORDER BY id") == [(1, 12), (2, 20), (3, 31)]


def test_columns_are_fixed_when_the_view_is_made(c):
    """``*`` is expanded at CREATE VIEW, names follow PostgreSQL's rules, types come from the query."""
    c.execute("CREATE VIEW star AS SELECT * FROM t")
    c.execute("CREATE VIEW named AS SELECT count(*), sum(n), upper(name), n + 1, 1::bigint FROM t GROUP BY name, n")
    assert [d[0] for d in c.execute("SELECT * FROM named").description] == \
        ["count", "sum", "upper", "?column?", "int8"]
    c.execute("ALTER TABLE t ADD COLUMN extra INT DEFAULT 7")
    assert q(c, "SELECT * FROM star ORDER BY id") == [(1, "a", 10), (2, "b", 20), (3, "c", 30)]
    assert [d[0] for d in c.execute("SELECT * FROM star").description] == ["id", "name", "n"]
    rows = q(c, "SELECT column_name, data_type, ordinal_position FROM information_schema.columns "
                "WHERE table_name = 'named' ORDER BY ordinal_position")
    assert rows == [("count", "bigint", 1), ("sum", "bigint", 2), ("upper", "text", 3), ("?column?", "integer", 4),
                    ("int8", "bigint", 5)]
    fails(c, "CREATE VIEW two AS SELECT n, n FROM t", "42701")
    fails(c, "CREATE VIEW two (a, b, c) AS SELECT 1, 2", "42601")
    fails(c, "CREATE VIEW p AS SELECT * FROM t WHERE id = ?", "42P02", params=(1,))


def test_a_view_reads_the_tables_it_resolved_when_made(c):
    """Table names are bound at CREATE VIEW (the search path then), as in PostgreSQL."""
    c.execute("CREATE TABLE other.t (id INT, name TEXT, n INT)")
    c.execute("INSERT INTO other.t VALUES (100, 'o', 0)")
    c.execute("CREATE VIEW v AS SELECT id FROM t")
    c.execute("SET search_path = other, public")
    assert q(c, "SELECT * FROM v ORDER BY id") == [(1,), (2,), (3,)]
    definition = q(c, "SELECT definition FROM pg_views WHERE viewname = 'v'")[0][0]
    assert "public.t" in definition


def test_a_view_reads_at_the_transactions_snapshot(connect, c):
    c.execute("CREATE VIEW v AS SELECT sum(n) AS total FROM t")
    reader = connect(isolation_level="REPEATABLE READ")
    assert q(reader, "SELECT * FROM v") == [(60,)]
    c.execute("UPDATE t SET n = 0 WHERE id = 1")
    assert q(reader, "SELECT * FROM v") == [(60,)]  # (its snapshot)
    reader.execute("UPDATE t SET n = 100 WHERE id = 2")
    assert q(reader, "SELECT * FROM v") == [(140,)]  # (its own writes)
    reader.rollback()
    assert q(reader, "SELECT * FROM v") == [(50,)]
    rc = connect(isolation_level="READ COMMITTED")
    assert q(rc, "SELECT * FROM v") == [(50,)]
    c.execute("UPDATE t SET n = 1 WHERE id = 3")
    assert q(rc, "SELECT * FROM v") == [(21,)]  # (each statement's snapshot)


def test_serializable_reads_through_a_view_count_as_reads_of_its_table(connect, c):
    """Write skew through a view: each transaction reads, through a view, the table the other
    writes; one of them fails (40001) - the view's read is tracked as a read of its table."""
    c.execute("CREATE TABLE u (id INT PRIMARY KEY, n INT)")
    c.execute("INSERT INTO u VALUES (1, 1)")
    c.execute("CREATE VIEW tv AS SELECT sum(n) AS s FROM t")
    c.execute("CREATE VIEW uv AS SELECT sum(n) AS s FROM u")
    s1 = connect(isolation_level="SERIALIZABLE")
    s2 = connect(isolation_level="SERIALIZABLE")
    assert q(s1, "SELECT * FROM uv") == [(1,)]
    assert q(s2, "SELECT * FROM tv") == [(60,)]
    s1.execute("UPDATE t SET n = n + 1 WHERE id = 1")
    s2.execute("UPDATE u SET n = n + 1 WHERE id = 1")
    outcomes = commit_each(s1, s2)
    assert outcomes == ["ok", "40001"]


# --- transactional DDL -------------------------------------------------------------------

def test_create_view_is_transactional(connect, c):
    other = connect(autocommit=True)
    s = connect()
    s.execute("CREATE VIEW v AS SELECT id FROM t")
    assert q(s, "SELECT count(*) FROM v") == [(3,)]
    fails(other, "SELECT * FROM v", "42P01")  # (not committed)
    assert q(other, "SELECT count(*) FROM information_schema.views") == [(0,)]
    s.rollback()
    fails(s, "SELECT * FROM v", "42P01")
    s.rollback()
    s.execute("CREATE VIEW v AS SELECT id FROM t")
    s.execute("SAVEPOINT a")
    s.execute("DROP VIEW v")
    fails(s, "SELECT * FROM v", "42P01")
    s.execute("ROLLBACK TO a")
    s.commit()
    assert q(other, "SELECT count(*) FROM v") == [(3,)]
    assert q(other, "SELECT table_name, table_type, is_insertable_into FROM information_schema.tables "
                    "ORDER BY 1") == [("t", "BASE TABLE", "YES"), ("v", "VIEW", "NO")]
    s.execute("DROP VIEW v")
    other.execute("SET lock_timeout = '50ms'")
    fails(other, "SELECT count(*) FROM v", "55P03")  # (waits for the uncommitted drop, as in PostgreSQL)
    other.execute("RESET lock_timeout")
    s.commit()
    fails(other, "SELECT * FROM v", "42P01")


def test_a_failed_view_statement_fails_the_block_and_loses_nothing(connect, c):
    s = connect()
    s.execute("CREATE VIEW v AS SELECT id FROM t")
    fails(s, "CREATE VIEW w AS SELECT nope FROM t", "42703")
    fails(s, "SELECT 1", "25P02")
    s.rollback()
    fails(c, "CREATE VIEW w AS SELECT * FROM missing", "42P01")
    assert q(c, "SELECT count(*) FROM information_schema.views") == [(0,)]


def test_two_sessions_creating_one_name_one_wins(connect, c):
    """The first to create a name has it: another session's CREATE of it waits (as PostgreSQL's
    unique index on names makes it) and fails with 42P07 once the first commits."""
    s1, s2 = connect(), connect()
    s1.execute("CREATE VIEW v AS SELECT 1 AS one")
    assert meanwhile(s2, "CREATE VIEW v AS SELECT 2 AS two", s1.commit) == "42P07"
    s2.rollback()
    assert q(c, "SELECT * FROM v") == [(1,)]
    s3 = connect()
    s3.execute("CREATE TABLE w (a INT)")
    # (a table and a view share one namespace)
    assert meanwhile(c, "CREATE VIEW w AS SELECT 1 AS a", s3.commit) == "42P07"


def test_a_view_committed_since_a_repeatable_read_snapshot(connect, c):
    """A name committed since a REPEATABLE READ snapshot is taken: CREATE VIEW is 42P07 at once,
    CREATE OR REPLACE VIEW - which cannot replace a view its snapshot does not hold - 40001 (a
    retry sees it and replaces it), not a COMMIT that fails."""
    for create, sqlstate in (("CREATE VIEW v AS SELECT 2 AS one", "42P07"),
                             ("CREATE OR REPLACE VIEW v AS SELECT 2 AS one", "40001")):
        c.execute("DROP VIEW IF EXISTS v")
        s = connect(isolation_level="REPEATABLE READ")
        s.execute("SELECT 1").fetchall()
        c.execute("CREATE VIEW v AS SELECT 1 AS one")
        with pytest.raises(txlake.Error) as info:
            s.execute(create)
        assert info.value.sqlstate == sqlstate
        s.rollback()
        s.execute("CREATE OR REPLACE VIEW v AS SELECT 3 AS one")
        s.commit()
        assert q(c, "SELECT * FROM v") == [(3,)]


def test_concurrent_sessions_in_threads(connect, c):
    """Sessions in threads creating the same view name: exactly one commits."""
    results = []
    barrier = threading.Barrier(4)

    def worker(i):
        conn = txlake.connect(c._session.db.warehouse.root, publish="off")
        try:
            barrier.wait()
            conn.execute(f"CREATE VIEW race AS SELECT {i} AS i")  # (the others wait for the first)
            conn.commit()
            results.append("ok")
        except txlake.Error as e:
            results.append(e.sqlstate)
        finally:
            conn.close()

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(4)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert sorted(results) == ["42P07"] * 3 + ["ok"]
    assert len(q(c, "SELECT * FROM race")) == 1


# --- names and dependencies --------------------------------------------------------------

def test_one_namespace_and_wrong_object_types(c):
    c.execute("CREATE VIEW v AS SELECT id FROM t")
    assert "already exists" in fails(c, "CREATE VIEW v AS SELECT 1", "42P07")
    fails(c, "CREATE TABLE v (a INT)", "42P07")
    fails(c, "CREATE VIEW t AS SELECT 1", "42P07")
    assert '"v" is not a table' in fails(c, "DROP TABLE v", "42809")
    assert "DROP VIEW" in fails(c, "DROP TABLE v", "42809")
    assert '"t" is not a view' in fails(c, "DROP VIEW t", "42809")
    fails(c, "CREATE OR REPLACE VIEW t AS SELECT 1", "42809")
    fails(c, "ALTER TABLE v ADD COLUMN x INT", "42809")
    fails(c, "TRUNCATE v", "42809")
    fails(c, "DROP VIEW nope", "42P01")
    c.execute("DROP VIEW IF EXISTS nope, v")
    assert q(c, "SELECT count(*) FROM information_schema.views") == [(0,)]


def test_dropping_what_a_view_reads(c):
    c.execute("CREATE VIEW v AS SELECT id, n FROM t")
    c.execute("CREATE VIEW w AS SELECT id FROM v")
    message = fails(c, "DROP TABLE t", "2BP01")
    assert "cannot drop table t because other objects depend on it" in message
    assert "view v depends on table t" in message and "view w depends on view v" in message
    assert "view w depends on view v" in fails(c, "DROP VIEW v", "2BP01")
    fails(c, "DROP VIEW v RESTRICT", "2BP01")
    fails(c, "DROP SCHEMA public", "2BP01")
    c.execute("DROP VIEW v CASCADE")
    assert q(c, "SELECT count(*) FROM information_schema.views") == [(0,)]
    c.execute("CREATE VIEW v AS SELECT id, n FROM t")
    c.execute("CREATE VIEW w AS SELECT id FROM v")
    c.execute("DROP VIEW w, v")  # (both named: nothing left depends on them)
    c.execute("CREATE VIEW v AS SELECT id, n FROM t")
    c.execute("CREATE TABLE elsewhere.e (a INT)")
    c.execute("CREATE VIEW elsewhere.ev AS SELECT * FROM v")
    c.execute("DROP TABLE t CASCADE")
    assert q(c, "SELECT count(*) FROM information_schema.views") == [(0,)]
    fails(c, "SELECT * FROM v", "42P01")


def test_drop_schema_cascade_drops_views_reading_it(c):
    c.execute("CREATE TABLE s.x (a INT)")
    c.execute("CREATE VIEW s.xv AS SELECT a FROM s.x")
    c.execute("CREATE VIEW reads_s AS SELECT a FROM s.xv")
    assert "view s.xv depends on schema s" in fails(c, "DROP SCHEMA s", "2BP01")
    c.execute("DROP SCHEMA s CASCADE")
    assert q(c, "SELECT table_schema, table_name FROM information_schema.tables ORDER BY 2") == [("public", "t")]


def test_altering_columns_a_view_uses(c):
    c.execute("CREATE VIEW v AS SELECT id, n FROM t")
    message = fails(c, "ALTER TABLE t DROP COLUMN n", "2BP01")
    assert "cannot drop column n of table t because other objects depend on it" in message
    assert "cannot alter type of a column used by a view or rule" in \
        fails(c, "ALTER TABLE t ALTER COLUMN n TYPE BIGINT", "0A000")
    c.execute("CREATE VIEW joined AS SELECT t.n, u.id FROM t JOIN t AS u ON u.id = t.id")
    fails(c, "ALTER TABLE t RENAME COLUMN n TO m", "0A000")  # (joined reads t twice)
    c.execute("DROP VIEW joined")
    c.execute("ALTER TABLE t RENAME COLUMN n TO m")  # (v follows, keeping its column's name)
    assert q(c, "SELECT n FROM v ORDER BY id") == [(10,), (20,), (30,)]
    assert q(c, "SELECT definition FROM pg_views WHERE viewname = 'v'") == [("SELECT id, m FROM public.t",)]
    c.execute("ALTER TABLE t RENAME COLUMN m TO n")
    c.execute("ALTER TABLE t DROP COLUMN name")  # (not used)
    c.execute("ALTER TABLE t ADD COLUMN z INT")
    assert q(c, "SELECT * FROM v ORDER BY id") == [(1, 10), (2, 20), (3, 30)]
    c.execute("CREATE VIEW s AS SELECT * FROM t")  # (* uses every column)
    fails(c, "ALTER TABLE t DROP COLUMN z", "2BP01")
    c.execute("CREATE VIEW cnt AS SELECT count(*) AS c FROM t")  # (count(*) uses none)
    c.execute("DROP VIEW s")
    c.execute("ALTER TABLE t DROP COLUMN z")
    assert q(c, "SELECT * FROM cnt") == [(3,)]
    c.execute("CREATE VIEW over_v AS SELECT n FROM v")
    c.execute("ALTER TABLE t DROP COLUMN n CASCADE")  # (v uses it: v and what reads v go)
    assert q(c, "SELECT table_name FROM information_schema.views ORDER BY 1") == [("cnt",)]
    assert [d[0] for d in c.execute("SELECT * FROM t").description] == ["id"]


def test_create_or_replace_may_only_add_columns_at_the_end(c):
    c.execute("CREATE VIEW v AS SELECT id, n FROM t")
    assert "cannot drop columns from view" in fails(c, "CREATE OR REPLACE VIEW v AS SELECT id FROM t", "42P16")
    assert 'cannot change name of view column "n" to "name"' in \
        fails(c, "CREATE OR REPLACE VIEW v AS SELECT id, name FROM t", "42P16")
    assert "cannot change data type of view column" in \
        fails(c, "CREATE OR REPLACE VIEW v AS SELECT id, n::bigint AS n FROM t", "42P16")
    c.execute("CREATE OR REPLACE VIEW v AS SELECT id, n, name FROM t WHERE id < 3")
    assert q(c, "SELECT * FROM v ORDER BY id") == [(1, 10, "a"), (2, 20, "b")]
    fails(c, "CREATE OR REPLACE VIEW v AS SELECT id, n, name FROM v", "42P17")  # (itself)


def test_alter_view_rename_column(connect, c):
    c.execute("CREATE VIEW v AS SELECT id, n FROM t")
    s = connect()
    s.execute("ALTER VIEW v RENAME COLUMN n TO amount")
    assert [d[0] for d in s.execute("SELECT * FROM v").description] == ["id", "amount"]
    reader = connect()  # (it waits for the uncommitted ALTER VIEW, as in PostgreSQL)
    reader.execute("SET lock_timeout = '50ms'")
    fails(reader, "SELECT * FROM v", "55P03")
    reader.rollback()
    s.commit()
    assert q(c, "SELECT amount FROM v ORDER BY id") == [(10,), (20,), (30,)]
    c.execute("ALTER TABLE v RENAME COLUMN amount TO a")  # (as PostgreSQL allows)
    fails(c, "ALTER VIEW v RENAME COLUMN nope TO x", "42703")
    fails(c, "ALTER VIEW v RENAME COLUMN a TO id", "42701")
    c.execute("CREATE VIEW w AS SELECT a FROM v")
    c.execute("ALTER VIEW v RENAME COLUMN a TO b")  # (w follows)
    assert q(c, "SELECT * FROM w ORDER BY a") == [(10,), (20,), (30,)]
    c.execute("CREATE VIEW w2 AS SELECT v.b, t.id FROM v, t")
    fails(c, "ALTER VIEW v RENAME COLUMN b TO a", "0A000")  # (w2 reads two relations)
    c.execute("DROP VIEW w2")
    c.execute("ALTER VIEW v RENAME COLUMN id TO ident")  # (nobody uses it)
    assert q(c, "SELECT * FROM w ORDER BY a") == [(10,), (20,), (30,)]
    assert q(c, "SELECT column_name FROM information_schema.columns WHERE table_name = 'v' "
                "ORDER BY ordinal_position") == [("ident",), ("b",)]


def test_views_cannot_be_written_locked_or_read_as_of_the_past(c):
    c.execute("CREATE VIEW v AS SELECT * FROM t")
    assert 'cannot insert into view "v"' in fails(c, "INSERT INTO v VALUES (9, 'z', 0)", "55000")
    fails(c, "UPDATE v SET n = 0", "55000")
    fails(c, "DELETE FROM v", "55000")
    fails(c, "SELECT * FROM v FOR UPDATE", "0A000")
    csn = q(c, "SELECT max(snapshot_id) FROM txlake_snapshots('t')")[0][0]
    fails(c, f"SELECT * FROM v FOR SYSTEM_VERSION AS OF {csn}", "0A000")
    assert q(c, "SELECT count(*) FROM t") == [(3,)]


def test_alter_view_rename(c):
    c.execute("CREATE VIEW v AS SELECT id FROM t")
    c.execute("ALTER VIEW v RENAME TO w")
    fails(c, "SELECT * FROM v", "42P01")
    assert q(c, "SELECT count(*) FROM w") == [(3,)]
    c.execute("ALTER TABLE w RENAME TO x")  # (as PostgreSQL allows)
    assert q(c, "SELECT count(*) FROM x") == [(3,)]
    fails(c, "ALTER VIEW x RENAME TO t", "42P07")
    fails(c, "ALTER VIEW t RENAME TO y", "42809")
    c.execute("CREATE VIEW reads_x AS SELECT x.id, (SELECT count(*) FROM x) AS n FROM x")
    c.execute("CREATE VIEW reads_reads AS SELECT id FROM reads_x")
    c.execute("ALTER VIEW x RENAME TO \"Y y\"")  # (the views reading it follow, as in PostgreSQL)
    assert q(c, "SELECT * FROM reads_x ORDER BY id") == [(1, 3), (2, 3), (3, 3)]
    assert q(c, "SELECT count(*) FROM reads_reads") == [(3,)]
    assert q(c, "SELECT definition FROM pg_views WHERE viewname = 'reads_x'") == \
        [('SELECT x.id, (SELECT COUNT(*) FROM public."Y y" AS x) AS n FROM public."Y y" AS x',)]
    assert "view reads_x depends on view Y y" in fails(c, 'DROP VIEW "Y y"', "2BP01")


def test_catalog_views_list_views(c):
    c.execute("CREATE VIEW v (k, label) AS SELECT id, name FROM t")
    assert q(c, "SELECT schemaname, viewname, definition FROM pg_views") == \
        [("public", "v", "SELECT id, name FROM public.t")]
    assert q(c, "SELECT table_schema, table_name, view_definition, is_updatable FROM information_schema.views") == \
        [("public", "v", "SELECT id, name FROM public.t", "NO")]
    assert q(c, "SELECT tablename FROM pg_tables") == [("t",)]
    assert q(c, "SELECT column_name, data_type, character_maximum_length, is_updatable FROM "
                "information_schema.columns WHERE table_name = 'v' ORDER BY ordinal_position") == \
        [("k", "integer", None, "NO"), ("label", "character varying", 20, "NO")]  # (name is VARCHAR(20))
    c.execute("CREATE VIEW up AS SELECT upper(label) AS u, label FROM v")
    assert q(c, "SELECT data_type FROM information_schema.columns WHERE table_name = 'up' "
                "ORDER BY ordinal_position") == [("text",), ("character varying",)]
    listing = c._session.describe_tables().to_pylist()
    assert [(r["table"], r["type"]) for r in listing] == [("t", "table"), ("up", "view"), ("v", "view")]
    assert c._session.describe_table("v").to_pylist()[0]["column"] == "k"
    assert c._session.view_definition("v") == "SELECT id, name FROM public.t"
    assert c._session.view_definition("t") is None


# --- durability and other processes ------------------------------------------------------

def test_views_survive_a_restart_and_a_checkpoint(warehouse):
    conn = txlake.connect(warehouse, autocommit=True, publish="off")
    conn.execute("CREATE TABLE t (id INT, n INT)")
    conn.execute("INSERT INTO t VALUES (1, 10), (2, 20)")
    conn.execute("CREATE VIEW before_cp AS SELECT sum(n) AS s FROM t")
    conn.execute("CREATE VIEW dropped AS SELECT 1 AS one")
    conn.execute("CREATE VIEW replaced AS SELECT id FROM t")
    written = conn._session.db.warehouse.write_checkpoint(force=True)
    assert written
    conn.execute("CREATE OR REPLACE VIEW replaced AS SELECT id, n FROM t")
    conn.execute("DROP VIEW dropped")
    conn.execute("CREATE VIEW after_cp AS SELECT count(*) AS c FROM before_cp")
    conn.close()
    reopened = Warehouse(warehouse)
    assert reopened._checkpoint_csn == written and reopened.latest.views == 3
    again = txlake.connect(warehouse, autocommit=True, publish="off")
    assert q(again, "SELECT * FROM before_cp") == [(30,)]
    assert q(again, "SELECT * FROM replaced ORDER BY id") == [(1, 10), (2, 20)]
    assert q(again, "SELECT * FROM after_cp") == [(1,)]
    fails(again, "SELECT * FROM dropped", "42P01")
    fails(again, "DROP TABLE t", "2BP01")  # (dependencies kept too)
    again.close()


def test_another_process_sees_a_committed_view(warehouse):
    conn = txlake.connect(warehouse, autocommit=True, publish="off")
    conn.execute("CREATE TABLE t (id INT, n INT)")
    conn.execute("INSERT INTO t VALUES (1, 10)")
    s = txlake.connect(warehouse, publish="off")
    s.execute("CREATE VIEW v AS SELECT n * 2 AS twice FROM t")
    code = ("import sys, txlake\nc = txlake.connect(sys.argv[1], autocommit=True, publish='off')\n"
            "try:\n    print(c.execute('SELECT * FROM v').fetchall())\n"
            "except txlake.Error as e:\n    print(e.sqlstate)\n")
    assert run_python(code, warehouse).stdout.strip() == "42P01"  # (not committed yet)
    s.commit()
    assert run_python(code, warehouse).stdout.strip() == "[(20,)]"
    conn.execute("DROP VIEW v")
    assert run_python(code, warehouse).stdout.strip() == "42P01"
    s.close()
    conn.close()


def test_compaction_is_of_tables_only(c):
    c.execute("CREATE VIEW v AS SELECT id FROM t")
    fails(c, "CALL txlake.compact('v')", "42809")
    assert [r[0] for r in q(c, "CALL txlake.compact()")] == ["default.t"]


def test_a_cte_of_a_views_name_is_the_cte(c):
    c.execute("CREATE VIEW v AS SELECT id FROM t")
    assert q(c, "WITH v AS (SELECT 42 AS id) SELECT * FROM v") == [(42,)]


def test_a_read_only_transaction_cannot_make_or_drop_views(connect, c):
    c.execute("CREATE VIEW v AS SELECT id FROM t")
    ro = connect()
    ro.execute("BEGIN READ ONLY")
    fails(ro, "CREATE VIEW w AS SELECT 1", "25006")
    ro.rollback()
    ro.execute("BEGIN READ ONLY")
    fails(ro, "DROP VIEW v", "25006")
    ro.rollback()
    ro.execute("BEGIN READ ONLY")
    assert q(ro, "SELECT count(*) FROM v") == [(3,)]
    ro.rollback()


def test_a_prepared_transaction_creates_a_view(connect, c):
    s = connect()
    s.execute("CREATE VIEW v AS SELECT id FROM t")
    s.execute("PREPARE TRANSACTION 'mkview'")
    fails(c, "SELECT * FROM v", "42P01")
    c.execute("COMMIT PREPARED 'mkview'")
    assert q(c, "SELECT count(*) FROM v") == [(3,)]


def test_publishing_passes_views_over(connect, warehouse):
    import os
    conn = connect(autocommit=True, publish="sync")
    conn.execute("CREATE TABLE t (id INT)")
    conn.execute("INSERT INTO t VALUES (1)")
    conn.execute("CREATE TABLE old (a INT)")
    conn.execute("INSERT INTO old VALUES (1)")
    conn.execute("DROP TABLE old")
    conn.execute("CREATE VIEW old AS SELECT id FROM t")  # (a view where a published table was)
    conn.execute("CREATE VIEW v AS SELECT id FROM t")
    conn.execute("INSERT INTO t VALUES (2)")
    assert sorted(os.listdir(os.path.join(warehouse, "default.db"))) in (["old", "t"], ["t"])
    assert not os.path.isdir(os.path.join(warehouse, "default.db", "v"))
    assert not os.path.isdir(os.path.join(warehouse, "default.db", "old", "schema"))
    assert q(conn, "SELECT * FROM old ORDER BY id") == [(1,), (2,)]


def test_the_spark_source_refuses_a_view(connect, warehouse):
    pytest.importorskip("pyspark")
    from txlake.spark.source import TxlakeDataSource
    conn = connect(autocommit=True)
    conn.execute("CREATE TABLE t (id INT)")
    conn.execute("CREATE VIEW v AS SELECT id FROM t")
    for options in ({"path": f"{warehouse}/v"}, {"warehouse": warehouse, "table": "v"}):
        with pytest.raises(txlake.NotSupportedError, match="is a view"):
            TxlakeDataSource(options).schema()
        with pytest.raises(txlake.Error) as info:
            TxlakeDataSource(options).writer(None, False)
        assert info.value.sqlstate == "55000"


def test_a_view_of_values_and_one_read_by_an_upsert(c):
    c.execute("CREATE VIEW vals AS VALUES (1, 'x'), (9, 'y')")
    assert [d[0] for d in c.execute("SELECT * FROM vals").description] == ["column1", "column2"]
    c.execute("INSERT INTO t VALUES (1, 'z', 0) ON CONFLICT (id) DO UPDATE SET name = "
              "(SELECT column2 FROM vals WHERE column1 = 9)")
    assert q(c, "SELECT name FROM t WHERE id = 1") == [("y",)]


def test_copy_reads_a_view_through_a_query_and_refuses_to_name_one(c, tmp_path):
    """As PostgreSQL: COPY (SELECT ... FROM v) TO writes what the view shows; COPY v TO and
    COPY v FROM are 42809 (a view is not a table COPY can name)."""
    c.execute("CREATE VIEW big AS SELECT id, upper(name) AS up FROM t WHERE n > 10")
    out = tmp_path / "big.csv"
    assert c.execute(f"COPY (SELECT * FROM big ORDER BY id) TO '{out}' (FORMAT csv)").rowcount == 2
    assert out.read_text() == "2,B\n3,C\n"
    with pytest.raises(txlake.errors.WrongObjectType, match='cannot copy from view "big"'):
        c.execute(f"COPY big TO '{tmp_path / 'x.csv'}'")
    with pytest.raises(txlake.errors.WrongObjectType, match='cannot copy to view "big"'):
        c.execute(f"COPY big FROM '{out}' (FORMAT csv)")
    assert c.execute("SELECT count(*) FROM t").fetchone() == (3,)


def test_merge_reads_views_and_refuses_to_write_one(c):
    c.execute("CREATE VIEW changes AS SELECT id, upper(name) AS name FROM t WHERE n >= 20 UNION ALL SELECT 9, 'new'")
    c.execute("CREATE TABLE dst (id INT PRIMARY KEY, name TEXT)")
    c.execute("INSERT INTO dst VALUES (2, 'old')")
    c.execute("CREATE VIEW dv AS SELECT * FROM dst")
    merged = c.execute("MERGE INTO dst USING changes s ON dst.id = s.id "
                       "WHEN MATCHED AND s.id IN (SELECT id FROM dv) THEN UPDATE SET name = s.name "
                       "WHEN NOT MATCHED THEN INSERT VALUES (s.id, s.name)")
    assert merged.rowcount == 3
    assert c.execute("SELECT * FROM dst ORDER BY id").fetchall() == [(2, "B"), (3, "C"), (9, "new")]
    with pytest.raises(txlake.errors.ObjectNotInPrerequisiteState, match='cannot merge into view "dv"'):
        c.execute("MERGE INTO dv USING changes s ON dv.id = s.id WHEN MATCHED THEN DELETE")
    assert c.execute("SELECT count(*) FROM dst").fetchone() == (3,)
