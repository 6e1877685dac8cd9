"""Temporary tables (CREATE TEMP TABLE) and views: private to their session, transactional
within it, dropped at close, and never in the warehouse's log, checkpoints or Paimon snapshots."""

import os
import textwrap

import pytest

import txlake
from tests.conftest import fails, rows, run_python


def warehouse_files_naming(warehouse, word: str) -> list[str]:
    """The warehouse's files whose bytes hold ``word``, or whose path does."""
    found = []
    for root, _, files in os.walk(warehouse):
        for name in files:
            path = os.path.join(root, name)
            with open(path, "rb") as f:
                if word.encode() in f.read() or word in path:
                    found.append(os.path.relpath(path, warehouse))
    return found


def test_create_insert_select_with_key_default_and_check(connect):
    c = connect(autocommit=True)
    assert c.execute("CREATE TEMP TABLE t (id INT PRIMARY KEY, v TEXT DEFAULT 'd' CHECK (v <> 'bad'))").rowcount == -1
    c.execute("INSERT INTO t (id) VALUES (1), (2)")
    assert rows(c, "SELECT * FROM t ORDER BY id") == [(1, "d"), (2, "d")]
    fails(c, "INSERT INTO t VALUES (1, 'x')", "23505")
    fails(c, "INSERT INTO t VALUES (3, 'bad')", "23514")
    fails(c, "INSERT INTO t VALUES (NULL, 'x')", "23502")
    c.execute("UPDATE t SET v = 'u' WHERE id = 1")
    c.execute("DELETE FROM t WHERE id = 2")
    c.execute("INSERT INTO t VALUES (1, 'c'), (4, 'n') ON CONFLICT (id) DO UPDATE SET v = excluded.v")
    assert rows(c, "SELECT * FROM t ORDER BY id") == [(1, "c"), (4, "n")]
    c.execute("CREATE TEMPORARY TABLE IF NOT EXISTS t (a INT)")  # (a notice, not an error)
    fails(c, "CREATE TEMP TABLE t (a INT)", "42P07")
    c.execute("TRUNCATE t")
    assert rows(c, "SELECT count(*) FROM t") == [(0,)]
    c.execute("DROP TABLE t")
    fails(c, "SELECT * FROM t", "42P01")


def test_create_as_and_select_into_temp(connect):
    c = connect(autocommit=True)
    assert c.execute("CREATE TEMP TABLE a AS SELECT x AS n FROM range(5) r(x)").rowcount == 5
    c.execute("SELECT n * 10 AS m INTO TEMP b FROM a WHERE n > 2")
    c.execute("SELECT 1 AS one INTO TEMP TABLE e")
    assert rows(c, "SELECT m FROM b ORDER BY m") == [(30,), (40,)]
    assert rows(c, "SELECT * FROM e") == [(1,)]
    c.execute("CREATE TABLE pg_temp.f (a INT)")  # a schema-qualified temporary table
    assert rows(c, "SELECT table_name, table_type FROM information_schema.tables ORDER BY 1") == [
        ("a", "LOCAL TEMPORARY"), ("b", "LOCAL TEMPORARY"), ("e", "LOCAL TEMPORARY"), ("f", "LOCAL TEMPORARY")]


def test_visible_only_to_its_session(connect):
    a, b = connect(), connect()
    a.execute("CREATE TEMP TABLE t (id INT PRIMARY KEY)")
    a.execute("INSERT INTO t VALUES (1)")
    fails(b, "SELECT * FROM t", "42P01")
    b.rollback()
    # another session makes its own of the same name while a's transaction is open: no wait, no clash
    b.execute("CREATE TEMP TABLE t (id INT PRIMARY KEY, w TEXT)")
    b.execute("INSERT INTO t VALUES (1, 'b')")
    b.commit()
    a.commit()
    assert rows(a, "SELECT * FROM t") == [(1,)]
    assert rows(b, "SELECT * FROM t") == [(1, "b")]
    schema_a = rows(a, "SELECT table_schema FROM information_schema.tables WHERE table_name = 't'")
    schema_b = rows(b, "SELECT table_schema FROM information_schema.tables WHERE table_name = 't'")
    assert len(schema_a) == len(schema_b) == 1 and schema_a != schema_b
    assert schema_a[0][0].startswith("pg_temp_")
    listed = a.session.describe_tables().to_pydict()  # (what the REPL's \dt lists)
    assert (listed["database"], listed["table"]) == ([schema_a[0][0]], ["t"])
    fresh = connect()
    assert fresh.session.describe_tables().num_rows == 0
    fails(fresh, "SELECT * FROM pg_temp.t", "42P01")
    fresh.rollback()
    assert rows(fresh, "SELECT count(*) FROM information_schema.tables") == [(0,)]


def test_another_process_never_sees_it(connect, warehouse):
    c = connect(autocommit=True)
    c.execute("CREATE TABLE t (id INT)")
    c.execute("INSERT INTO t VALUES (100)")
    c.execute("CREATE TEMP TABLE t (id INT)")
    c.execute("INSERT INTO t VALUES (1)")
    code = textwrap.dedent("""
        import sys, txlake
        c = txlake.connect(sys.argv[1], autocommit=True, publish="off")
        print(c.execute("SELECT id FROM t").fetchall())
        try:
            c.execute("SELECT * FROM pg_temp.t")
        except txlake.Error as e:
            print(e.sqlstate)
        c.execute("CREATE TEMP TABLE t (id INT)")  # its own: no clash with ours
        c.execute("INSERT INTO t VALUES (2)")
        print(c.execute("SELECT id FROM t").fetchall())
        c.close()
    """)
    done = run_python(code, warehouse, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split("\n")[:3] == ["[(100,)]", "42P01", "[(2,)]"]
    assert rows(c, "SELECT id FROM t") == [(1,)]
    assert rows(c, "SELECT id FROM public.t") == [(100,)]


def test_shadows_a_permanent_table(connect):
    c = connect(autocommit=True)
    c.execute("CREATE TABLE t (id INT PRIMARY KEY, v TEXT)")
    c.execute("INSERT INTO t VALUES (1, 'permanent')")
    c.execute("CREATE TEMP TABLE t (id INT PRIMARY KEY, v TEXT)")
    c.execute("INSERT INTO t VALUES (2, 'temporary')")
    assert rows(c, "SELECT v FROM t") == [("temporary",)]
    assert rows(c, "SELECT v FROM pg_temp.t") == [("temporary",)]
    assert rows(c, "SELECT v FROM public.t") == [("permanent",)]
    assert rows(c, "SELECT p.v, q.v FROM public.t p CROSS JOIN t q") == [("permanent", "temporary")]
    c.execute("DROP TABLE t")  # the temporary one: the permanent one shows again
    assert rows(c, "SELECT v FROM t") == [("permanent",)]


def test_on_commit_actions(connect):
    c = connect()
    c.execute("CREATE TEMP TABLE keep (a INT) ON COMMIT PRESERVE ROWS")
    c.execute("CREATE TEMP TABLE empty (a INT) ON COMMIT DELETE ROWS")
    c.execute("CREATE TEMP TABLE gone (a INT) ON COMMIT DROP")
    for t in ("keep", "empty", "gone"):
        c.execute(f"INSERT INTO {t} VALUES (1)")
        assert rows(c, f"SELECT count(*) FROM {t}") == [(1,)]
    c.commit()
    assert rows(c, "SELECT count(*) FROM keep") == [(1,)]
    assert rows(c, "SELECT count(*) FROM empty") == [(0,)]
    fails(c, "SELECT * FROM gone", "42P01")
    c.rollback()
    c.execute("INSERT INTO empty VALUES (2), (3)")  # emptied at every commit, not just the first
    assert rows(c, "SELECT count(*) FROM empty") == [(2,)]
    c.commit()
    assert rows(c, "SELECT count(*) FROM empty") == [(0,)]


def test_rollback_and_savepoints(connect):
    c = connect()
    c.execute("CREATE TEMP TABLE t (a INT)")
    c.rollback()
    fails(c, "SELECT * FROM t", "42P01")  # its creation rolled back
    c.rollback()
    c.execute("CREATE TEMP TABLE t (a INT)")
    c.execute("INSERT INTO t VALUES (1)")
    c.commit()
    c.execute("INSERT INTO t VALUES (2)")
    c.execute("SAVEPOINT s")
    c.execute("INSERT INTO t VALUES (3)")
    c.execute("DELETE FROM t WHERE a = 1")
    c.execute("ROLLBACK TO SAVEPOINT s")
    assert rows(c, "SELECT a FROM t ORDER BY a") == [(1,), (2,)]
    c.rollback()
    assert rows(c, "SELECT a FROM t") == [(1,)]
    c.execute("DROP TABLE t")
    c.rollback()  # the DROP rolled back: it is there still
    assert rows(c, "SELECT a FROM t") == [(1,)]
    fails(c, "INSERT INTO t VALUES ('x')", "22P02")
    fails(c, "SELECT 1", "25P02")
    c.rollback()
    assert rows(c, "SELECT a FROM t") == [(1,)]


@pytest.mark.parametrize("level", ["READ COMMITTED", "REPEATABLE READ", "SERIALIZABLE"])
def test_every_isolation_level(connect, level):
    """Its rows need no conflict checks with other sessions: two SERIALIZABLE sessions that
    read and write their own tables of the same name both commit."""
    a, b = connect(isolation_level=level), connect(isolation_level=level)
    for c in (a, b):
        c.execute("CREATE TEMP TABLE t (id INT PRIMARY KEY, v INT)")
        c.execute("INSERT INTO t VALUES (1, 1), (2, 2)")
        c.commit()
    for c in (a, b):
        c.execute("SELECT * FROM t")
    a.execute("UPDATE t SET v = v + 1 WHERE id = 1")
    b.execute("UPDATE t SET v = v + 10")
    a.execute("ALTER TABLE t ADD COLUMN w TEXT DEFAULT 'z'")
    a.commit()
    b.commit()
    assert rows(a, "SELECT * FROM t ORDER BY id") == [(1, 2, "z"), (2, 2, "z")]
    assert rows(b, "SELECT * FROM t ORDER BY id") == [(1, 11), (2, 12)]


def test_close_drops_it(connect):
    c = connect(autocommit=True)
    c.execute("CREATE TEMP TABLE t (a INT)")
    c.execute("INSERT INTO t VALUES (1)")
    c.close()
    again = connect(autocommit=True)
    fails(again, "SELECT * FROM t", "42P01")
    again.execute("CREATE TEMP TABLE t (b TEXT)")  # the name is free
    assert rows(again, "SELECT count(*) FROM t") == [(0,)]


def test_nothing_of_it_reaches_the_warehouse_files(connect, warehouse):
    """In a transaction that also changes a permanent table: the log entry, a checkpoint and the
    published Paimon snapshots name the permanent table only."""
    c = connect(publish="sync")
    c.execute("CREATE TABLE perm (id INT PRIMARY KEY, v TEXT)")
    c.execute("CREATE TEMP TABLE stagingmarker (id INT PRIMARY KEY, v TEXT)")
    c.execute("INSERT INTO stagingmarker VALUES (1, 'rowmarker')")
    c.execute("INSERT INTO perm SELECT id, 'copied' FROM stagingmarker")
    c.commit()
    c.execute("UPDATE stagingmarker SET v = 'rowmarker2'")
    c.commit()
    c.session.db.warehouse.write_checkpoint(force=True)
    assert warehouse_files_naming(warehouse, "perm")  # (the search finds what is there)
    assert warehouse_files_naming(warehouse, "stagingmarker") == []
    assert warehouse_files_naming(warehouse, "rowmarker") == []
    assert warehouse_files_naming(warehouse, "pg_temp") == []
    assert rows(c, "SELECT v FROM perm") == [("copied",)]


def private_files(warehouse) -> list[str]:
    top = os.path.join(warehouse, "_private")
    return [os.path.join(d, f) for d, _, files in os.walk(top) for f in files] if os.path.isdir(top) else []


def test_a_large_insert_select_into_it_spills_to_private_files(warehouse):
    """More rows than the transaction's memory share spill to Parquet, as a permanent table's
    do - but to the session's private folder, not to the warehouse's tables; files no table
    holds any more go at the next commit, and the folder at close."""
    c = txlake.connect(warehouse, publish="off", memory_limit="16MB", autocommit=True)
    try:
        c.execute("CREATE TEMP TABLE big (id BIGINT PRIMARY KEY, pad TEXT)")
        c.execute("INSERT INTO big SELECT x, repeat('p', 100) FROM range(200000) r(x)")
        assert rows(c, "SELECT count(*), max(id) FROM big") == [(200000, 199999)]
        c.execute("UPDATE big SET pad = 'q' WHERE id < 10")
        assert rows(c, "SELECT count(*) FROM big WHERE pad = 'q'") == [(10,)]
        spilled = private_files(warehouse)
        assert spilled, "the rows spilled"
        assert [d for d in os.listdir(warehouse) if d.endswith(".db")] == []
        assert c.session.db.warehouse.store.spills == 0  # (no spill of the warehouse's kind)
        c.execute("TRUNCATE big")
        assert private_files(warehouse) == []
        c.execute("INSERT INTO big SELECT x, repeat('p', 100) FROM range(200000) r(x)")
        assert private_files(warehouse)
    finally:
        c.close()
    assert private_files(warehouse) == []


def test_a_crashed_sessions_private_files_go_at_the_next_open(warehouse):
    code = textwrap.dedent("""
        import os, signal, sys, txlake
        c = txlake.connect(sys.argv[1], publish="off", memory_limit="16MB", autocommit=True)
        c.execute("CREATE TEMP TABLE big (id BIGINT, pad TEXT)")
        c.execute("INSERT INTO big SELECT x, repeat('p', 100) FROM range(200000) r(x)")
        print(len([f for _, _, files in os.walk(os.path.join(sys.argv[1], "_private")) for f in files]), flush=True)
        os.kill(os.getpid(), signal.SIGKILL)
    """)
    done = run_python(code, warehouse, timeout=120)
    assert done.returncode != 0 and int(done.stdout.split()[0]) > 0, done.stderr
    assert private_files(warehouse), "the killed process left its files"
    c = txlake.connect(warehouse, publish="off")
    try:
        assert private_files(warehouse) == []
        assert rows(c, "SELECT count(*) FROM information_schema.tables") == [(0,)]
    finally:
        c.close()


def test_merge_from_a_temporary_staging_table(connect):
    """The classic ETL pattern: stage rows in a temporary table, MERGE them into a permanent one."""
    c = connect(autocommit=True)
    c.execute("CREATE TABLE customers (id INT PRIMARY KEY, name TEXT, visits INT)")
    c.execute("INSERT INTO customers VALUES (1, 'ann', 1), (2, 'bob', 5)")
    c.execute("CREATE TEMP TABLE staging (id INT PRIMARY KEY, name TEXT, visits INT)")
    c.execute("INSERT INTO staging VALUES (2, 'bob', 1), (3, 'cy', 1)")
    merged = c.execute("""MERGE INTO customers c USING staging s ON c.id = s.id
                          WHEN MATCHED THEN UPDATE SET visits = c.visits + s.visits
                          WHEN NOT MATCHED THEN INSERT VALUES (s.id, s.name, s.visits)""")
    assert merged.rowcount == 2
    assert rows(c, "SELECT * FROM customers ORDER BY id") == [(1, "ann", 1), (2, "bob", 6), (3, "cy", 1)]
    other = connect(autocommit=True)
    assert rows(other, "SELECT count(*) FROM customers") == [(3,)]
    # and the other way: MERGE into the temporary table from the permanent one
    c.execute("""MERGE INTO staging s USING customers c ON s.id = c.id
                 WHEN MATCHED THEN DELETE WHEN NOT MATCHED THEN INSERT VALUES (c.id, c.name, c.visits)""")
    assert rows(c, "SELECT id FROM staging") == [(1,)]


def test_copy_into_and_out_of_it(connect, tmp_path):
    c = connect(autocommit=True)
    source = tmp_path / "in.csv"
    source.write_text("1,a\n2,b\n")
    c.execute("CREATE TEMP TABLE t (id INT PRIMARY KEY, v TEXT)")
    assert c.execute(f"COPY t FROM '{source}' (FORMAT csv)").rowcount == 2
    target = tmp_path / "out.csv"
    c.execute(f"COPY t TO '{target}' (FORMAT csv)")
    assert target.read_text() == "1,a\n2,b\n"


def test_a_read_only_transaction_may_write_it(connect):
    c = connect()
    c.execute("CREATE TABLE p (a INT)")
    c.execute("CREATE TEMP TABLE t (a INT)")
    c.commit()
    c.execute("BEGIN READ ONLY")
    c.execute("INSERT INTO t VALUES (1)")
    assert rows(c, "SELECT a FROM t") == [(1,)]
    fails(c, "INSERT INTO p VALUES (1)", "25006")
    c.rollback()


REFUSED = [
    ("CREATE TEMP TABLE s (id SERIAL)", "0A000"),
    ("CREATE TEMP TABLE public.s (a INT)", "42P16"),
    ("CREATE TABLE s (a INT) ON COMMIT DELETE ROWS", "42P16"),
    ("CREATE VIEW public.v AS SELECT a FROM t", "42P16"),  # (a temporary view, named in another schema)
    ("CREATE TEMP VIEW public.v AS SELECT 1 AS a", "42P16"),
    ("CREATE SEQUENCE pg_temp.s", "0A000"),
]


def test_local_temp_is_temp(connect):
    c = connect(autocommit=True)
    c.execute("CREATE LOCAL TEMP TABLE a (x INT)")
    c.execute("CREATE LOCAL TEMPORARY TABLE b (x INT) ON COMMIT DELETE ROWS")
    assert rows(c, "SELECT table_name, table_type FROM information_schema.tables ORDER BY 1") == [
        ("a", "LOCAL TEMPORARY"), ("b", "LOCAL TEMPORARY")]
    other = connect(autocommit=True)
    fails(other, "SELECT * FROM a", "42P01")


def test_global_temp_is_a_deprecated_local_temp(connect):
    """CREATE GLOBAL TEMP TABLE was 0A000; PostgreSQL 16 takes GLOBAL as LOCAL with a WARNING
    (and GLOBAL without TEMP is its syntax error)."""
    c = connect(autocommit=True)
    for sql in ("CREATE GLOBAL TEMP TABLE g (x INT)", "CREATE GLOBAL TEMPORARY TABLE h (x INT) ON COMMIT DELETE ROWS",
                "CREATE GLOBAL TEMP TABLE i AS SELECT 1 AS x", "CREATE GLOBAL TEMP VIEW w AS SELECT x FROM g"):
        c.execute(sql)
        assert c.notices == ["WARNING:  GLOBAL is deprecated in temporary table creation"], sql
        c.notices.clear()
    c.execute("CREATE GLOBAL TEMP TABLE IF NOT EXISTS g (x INT)")  # (the parser's WARNING comes first)
    assert c.notices == ["WARNING:  GLOBAL is deprecated in temporary table creation",
                         'NOTICE:  relation "g" already exists, skipping']
    assert rows(c, "SELECT table_name, table_type FROM information_schema.tables ORDER BY 1") == [
        ("g", "LOCAL TEMPORARY"), ("h", "LOCAL TEMPORARY"), ("i", "LOCAL TEMPORARY"), ("w", "VIEW")]
    fails(connect(autocommit=True), "SELECT * FROM g", "42P01")
    fails(c, "CREATE GLOBAL TABLE j (x INT)", "42601")
    c.execute("SET client_min_messages = error")
    c.notices.clear()
    c.execute("CREATE GLOBAL TEMP TABLE k (x INT)")
    assert c.notices == []


def test_temporary_views(connect, warehouse):
    """CREATE [LOCAL] TEMP VIEW, and a view reading a temporary table (PostgreSQL makes it a
    temporary view, with a NOTICE): the session's own, as its temporary tables are."""
    c = connect(autocommit=True)
    c.execute("CREATE TABLE p (id INT PRIMARY KEY, v TEXT)")
    c.execute("INSERT INTO p VALUES (1, 'a')")
    c.execute("CREATE TEMP TABLE t (a INT)")
    c.execute("INSERT INTO t VALUES (7)")
    c.execute("CREATE VIEW v AS SELECT a FROM t")
    assert c.notices[-1] == 'NOTICE:  view "v" will be a temporary view'
    c.execute("CREATE TEMPORARY VIEW pv AS SELECT * FROM p")
    c.execute("CREATE OR REPLACE LOCAL TEMP VIEW pv AS SELECT id, v, 1 AS only_in_pv FROM p")
    c.execute("CREATE VIEW vv AS SELECT * FROM pv")  # (reads a temporary view: one too)
    assert c.notices[-1] == 'NOTICE:  view "vv" will be a temporary view'
    assert rows(c, "SELECT * FROM v") == [(7,)] and rows(c, "SELECT * FROM vv") == [(1, "a", 1)]
    assert rows(c, "SELECT table_name, table_type FROM information_schema.tables "
                   "WHERE table_schema LIKE 'pg_temp%' ORDER BY 1") == [
        ("pv", "VIEW"), ("t", "LOCAL TEMPORARY"), ("v", "VIEW"), ("vv", "VIEW")]
    other = connect(autocommit=True)
    for name in ("v", "pv", "vv"):
        fails(other, f"SELECT * FROM {name}", "42P01")
    other.execute("CREATE VIEW pv AS SELECT 2 AS two")  # (a permanent one of the name: the session's shadows it)
    assert rows(c, "SELECT * FROM pv") == [(1, "a", 1)] and rows(other, "SELECT * FROM pv") == [(2,)]
    fails(c, "DROP TABLE t", "2BP01")
    c.autocommit = False
    c.execute("CREATE TEMP VIEW gone AS SELECT 1 AS one")
    c.rollback()
    fails(c, "SELECT * FROM gone", "42P01")
    c.rollback()
    c.autocommit = True
    c.execute("DROP VIEW vv")
    c.execute("DROP TABLE t CASCADE")
    assert c.notices[-1] == "NOTICE:  drop cascades to view v"
    assert warehouse_files_naming(warehouse, "only_in_pv") == []  # (never in the log)
    c.close()
    fails(other, "SELECT * FROM v", "42P01")
    assert rows(other, "SELECT table_name FROM information_schema.views") == [("pv",)]


def test_refusals(connect):
    c = connect(autocommit=True)
    c.execute("CREATE TEMP TABLE t (a INT)")
    for sql, sqlstate in REFUSED:
        fails(c, sql, sqlstate)
    assert rows(c, "SELECT count(*) FROM information_schema.tables") == [(1,)]
    c.autocommit = False
    c.execute("INSERT INTO t VALUES (1)")
    fails(c, "PREPARE TRANSACTION 'g'", "0A000")
    assert rows(c, "SELECT count(*) FROM t") == [(0,)]  # refused: rolled back
    c.rollback()
    c.execute("CREATE TABLE perm (a INT)")  # a transaction that only read it prepares
    c.execute("SELECT * FROM t")
    c.execute("PREPARE TRANSACTION 'h'")
    c.execute("COMMIT PREPARED 'h'")
    assert rows(c, "SELECT count(*) FROM perm") == [(0,)]


def test_foreign_keys_do_not_cross_between_temporary_and_permanent_tables(connect):
    """As PostgreSQL: 42P16 either way; between two temporary tables txlake refuses (0A000)."""
    conn = connect(autocommit=True)
    conn.execute("CREATE TABLE p (id INT PRIMARY KEY)")
    conn.execute("CREATE TEMP TABLE tp (id INT PRIMARY KEY)")
    for sql, sqlstate in (("CREATE TEMP TABLE tc (a INT REFERENCES p)", "42P16"),
                          ("CREATE TABLE pc (a INT REFERENCES tp)", "42P16"),
                          ("CREATE TEMP TABLE tt (a INT REFERENCES tp)", "0A000")):
        with pytest.raises(txlake.Error) as info:
            conn.execute(sql)
        assert info.value.sqlstate == sqlstate
