"""Materialized views: CREATE / REFRESH / DROP MATERIALIZED VIEW, ALTER MATERIALIZED VIEW ...
RENAME, their indexes, comments and catalogs, as PostgreSQL 16 has them - the cases of its
regression test (src/test/regress/expected/matview.out) that apply, and txlake's own: a
materialized view is a table whose rows REFRESH replaces, transactionally."""

import pytest

import txlake
from txlake.storage.warehouse import Warehouse
from tests.conftest import commit_each, fails
from tests.conftest import rows as q


@pytest.fixture
def c(connect):
    conn = connect(autocommit=True)
    conn.execute("CREATE TABLE mvtest_t (id int NOT NULL PRIMARY KEY, type text NOT NULL, amt int NOT NULL)")
    conn.execute("INSERT INTO mvtest_t VALUES (1, 'x', 2), (2, 'x', 3), (3, 'y', 5), (4, 'y', 7), (5, 'z', 11)")
    conn.execute("CREATE VIEW mvtest_tv AS SELECT type, sum(amt) AS totamt FROM mvtest_t GROUP BY type")
    return conn


def test_with_no_data_is_unpopulated_until_refreshed(c):
    c.execute("CREATE MATERIALIZED VIEW mvtest_tm AS SELECT type, sum(amt) AS totamt FROM mvtest_t GROUP BY type "
              "WITH NO DATA")
    assert q(c, "SELECT relispopulated FROM pg_class WHERE oid = 'mvtest_tm'::regclass") == [(False,)]
    assert fails(c, "SELECT * FROM mvtest_tm ORDER BY type", "55000") == (
        'materialized view "mvtest_tm" has not been populated\nHINT:  Use the REFRESH MATERIALIZED VIEW command.')
    fails(c, "SELECT count(*) FROM mvtest_t WHERE id IN (SELECT totamt FROM mvtest_tm)", "55000")
    fails(c, "REFRESH MATERIALIZED VIEW CONCURRENTLY mvtest_tm", "0A000")
    assert c.execute("REFRESH MATERIALIZED VIEW mvtest_tm").statusmessage == "REFRESH MATERIALIZED VIEW"
    assert q(c, "SELECT relispopulated FROM pg_class WHERE oid = 'mvtest_tm'::regclass") == [(True,)]
    c.execute("CREATE UNIQUE INDEX mvtest_tm_type ON mvtest_tm (type)")
    assert q(c, "SELECT * FROM mvtest_tm ORDER BY type") == [("x", 5), ("y", 12), ("z", 11)]
    c.execute("REFRESH MATERIALIZED VIEW mvtest_tm WITH NO DATA")  # (emptied, unpopulated again)
    fails(c, "SELECT * FROM mvtest_tm", "55000")


def test_rows_are_stored_and_refreshed(c):
    done = c.execute("CREATE MATERIALIZED VIEW mvtest_tvm AS SELECT * FROM mvtest_tv ORDER BY type")
    assert (done.statusmessage, done.rowcount) == ("SELECT 3", 3)
    c.execute("CREATE MATERIALIZED VIEW mvtest_tmm AS SELECT sum(totamt) AS grandtot FROM mvtest_tvm")
    c.execute("CREATE VIEW mvtest_tvv AS SELECT sum(totamt) AS grandtot FROM mvtest_tv")
    c.execute("CREATE MATERIALIZED VIEW mvtest_tvvm AS SELECT * FROM mvtest_tvv")
    c.execute("CREATE VIEW mvtest_tvvmv AS SELECT * FROM mvtest_tvvm")  # (a view of one, and one of that)
    c.execute("CREATE MATERIALIZED VIEW mvtest_bb AS SELECT * FROM mvtest_tvvmv")
    c.execute("INSERT INTO mvtest_t VALUES (6, 'z', 13)")
    assert q(c, "SELECT * FROM mvtest_tvm") == [("x", 5), ("y", 12), ("z", 11)]  # (a copy: as it was)
    assert q(c, "SELECT * FROM mvtest_tv ORDER BY type") == [("x", 5), ("y", 12), ("z", 24)]
    c.execute("REFRESH MATERIALIZED VIEW mvtest_tvm")
    assert q(c, "SELECT * FROM mvtest_tvm ORDER BY type") == [("x", 5), ("y", 12), ("z", 24)]
    assert q(c, "SELECT * FROM mvtest_tmm") == [(28,)]
    for name in ("mvtest_tmm", "mvtest_tvvm", "mvtest_bb"):
        c.execute(f"REFRESH MATERIALIZED VIEW {name}")
    assert q(c, "SELECT * FROM mvtest_tmm") == q(c, "SELECT * FROM mvtest_tvvm") == [(41,)]
    assert q(c, "SELECT * FROM mvtest_bb") == [(41,)]  # (refreshed after mvtest_tvvm, which it reads)
    assert q(c, "SELECT type, m.totamt AS mtot, v.totamt AS vtot FROM mvtest_tvm m LEFT JOIN mvtest_tv v "
                "USING (type) ORDER BY type") == [("x", 5, 5), ("y", 12, 12), ("z", 24, 24)]
    # its rows may be read where a table's are (bug #9398's case)
    c.execute("DELETE FROM mvtest_t WHERE EXISTS (SELECT * FROM mvtest_tvm WHERE mvtest_tvm.totamt = mvtest_t.amt)")
    assert q(c, "SELECT amt FROM mvtest_t ORDER BY 1") == [(2,), (3,), (7,), (11,), (13,)]


def test_refresh_is_transactional(connect, c):
    """Undone by a ROLLBACK; until COMMIT, other sessions read the old rows (CONCURRENTLY) or
    wait for it (without: ACCESS EXCLUSIVE, as PostgreSQL's)."""
    c.execute("CREATE MATERIALIZED VIEW mv AS SELECT type, sum(amt) AS totamt FROM mvtest_t GROUP BY type")
    c.execute("CREATE UNIQUE INDEX ON mv (type)")
    c.execute("INSERT INTO mvtest_t VALUES (6, 'z', 13)")
    s, other = connect(), connect(autocommit=True)
    s.execute("REFRESH MATERIALIZED VIEW mv")
    assert q(s, "SELECT totamt FROM mv WHERE type = 'z'") == [(24,)]
    other.execute("SET lock_timeout = '50ms'")
    fails(other, "SELECT totamt FROM mv WHERE type = 'z'", "55P03")
    s.rollback()
    assert q(c, "SELECT totamt FROM mv WHERE type = 'z'") == [(11,)]  # (undone)
    s.execute("REFRESH MATERIALIZED VIEW CONCURRENTLY mv")
    assert q(other, "SELECT totamt FROM mv WHERE type = 'z'") == [(11,)]  # (the old rows until COMMIT)
    assert commit_each(s) == ["ok"]
    assert q(other, "SELECT totamt FROM mv WHERE type = 'z'") == [(24,)]


def test_concurrently_needs_a_unique_index_and_distinct_rows(c):
    c.execute("CREATE MATERIALIZED VIEW mvtest_tvmm AS SELECT sum(totamt) AS grandtot FROM mvtest_tv")
    assert fails(c, "REFRESH MATERIALIZED VIEW CONCURRENTLY mvtest_tvmm", "55000") == (
        'cannot refresh materialized view "public.mvtest_tvmm" concurrently\n'
        "HINT:  Create a unique index with no WHERE clause on one or more columns of the materialized view.")
    assert fails(c, "REFRESH MATERIALIZED VIEW CONCURRENTLY mvtest_tvmm WITH NO DATA", "42601") == \
        "CONCURRENTLY and WITH NO DATA options cannot be used together"
    # (an index over an expression, or with WHERE, is no usable one: matview.c is_usable_unique_index)
    c.execute("CREATE UNIQUE INDEX ON mvtest_tvmm (abs(grandtot))")
    c.execute("CREATE UNIQUE INDEX ON mvtest_tvmm (grandtot) WHERE grandtot > 0")
    fails(c, "REFRESH MATERIALIZED VIEW CONCURRENTLY mvtest_tvmm", "55000")
    c.execute("CREATE TABLE mvtest_foo(a, b) AS VALUES(1, 10)")
    c.execute("CREATE MATERIALIZED VIEW mvtest_mv AS SELECT * FROM mvtest_foo")
    c.execute("CREATE UNIQUE INDEX ON mvtest_mv(a)")
    c.execute("INSERT INTO mvtest_foo SELECT * FROM mvtest_foo")
    assert fails(c, "REFRESH MATERIALIZED VIEW mvtest_mv", "23505") == (
        'could not create unique index "mvtest_mv_a_idx"\nDETAIL:  Key (a)=(1) is duplicated.')
    assert fails(c, "REFRESH MATERIALIZED VIEW CONCURRENTLY mvtest_mv", "23505") == (
        'new data for materialized view "mvtest_mv" contains duplicate rows without any null columns\n'
        "DETAIL:  Row: (1,10)")
    assert q(c, "SELECT * FROM mvtest_mv") == [(1, 10)]  # (nothing lost)
    c.execute("DELETE FROM mvtest_foo")
    c.execute("INSERT INTO mvtest_foo VALUES (1, 10), (2, 20)")
    c.execute("REFRESH MATERIALIZED VIEW CONCURRENTLY mvtest_mv")
    assert q(c, "SELECT * FROM mvtest_mv ORDER BY a") == [(1, 10), (2, 20)]


def test_column_names(c):
    c.execute("CREATE TABLE mvtest_v (i int, j int)")
    assert fails(c, "CREATE MATERIALIZED VIEW mvtest_mv_v (ii, jj, kk) AS SELECT i, j FROM mvtest_v", "42601") == \
        "too many column names were specified"
    fails(c, "CREATE MATERIALIZED VIEW mvtest_mv_v_3 (ii, jj, kk) AS SELECT i, j FROM mvtest_v WITH NO DATA",
          "42601")
    c.execute("CREATE MATERIALIZED VIEW mvtest_mv_v (ii, jj) AS SELECT i, j FROM mvtest_v")
    c.execute("CREATE MATERIALIZED VIEW mvtest_mv_v_2 (ii) AS SELECT i, j FROM mvtest_v")
    c.execute("CREATE MATERIALIZED VIEW mvtest_mv_v_4 (ii) AS SELECT i, j FROM mvtest_v WITH NO DATA")
    c.execute("ALTER TABLE mvtest_v RENAME COLUMN i TO x")  # (they follow it)
    c.execute("INSERT INTO mvtest_v VALUES (1, 2)")
    for name in ("mvtest_mv_v", "mvtest_mv_v_2", "mvtest_mv_v_4"):
        c.execute(f"REFRESH MATERIALIZED VIEW {name}")
    assert q(c, "SELECT * FROM mvtest_mv_v") == q(c, "SELECT * FROM mvtest_mv_v_4") == [(1, 2)]
    assert [d[0] for d in c.execute("SELECT * FROM mvtest_mv_v_2").description] == ["ii", "j"]
    assert [d[0] for d in c.execute("SELECT * FROM mvtest_mv_v_4").description] == ["ii", "j"]
    fails(c, "CREATE MATERIALIZED VIEW dup (a, a) AS SELECT 1, 2", "42701")


def test_with_no_data_does_not_run_the_query(c):
    fails(c, "CREATE MATERIALIZED VIEW mvtest_error AS SELECT 1/0 AS x", "22012")
    c.execute("CREATE MATERIALIZED VIEW mvtest_error AS SELECT 1/0 AS x WITH NO DATA")
    fails(c, "REFRESH MATERIALIZED VIEW mvtest_error", "22012")
    c.execute("DROP MATERIALIZED VIEW mvtest_error")
    # (a subquery may name an unpopulated one WITH NO DATA; populating it may not)
    c.execute("CREATE MATERIALIZED VIEW mvtest_mv1 AS SELECT 1 AS col1 WITH NO DATA")
    c.execute("CREATE MATERIALIZED VIEW mvtest_mv2 AS SELECT * FROM mvtest_mv1 "
              "WHERE col1 = (SELECT LEAST(col1) FROM mvtest_mv1) WITH NO DATA")
    fails(c, "REFRESH MATERIALIZED VIEW mvtest_mv2", "55000")
    fails(c, "CREATE MATERIALIZED VIEW mvtest_mv3 AS SELECT * FROM mvtest_mv1", "55000")
    assert c.execute("DROP MATERIALIZED VIEW mvtest_mv1 CASCADE").statusmessage == "DROP MATERIALIZED VIEW"
    assert c.notices[-1] == "NOTICE:  drop cascades to materialized view mvtest_mv2"


def test_refresh_reads_the_sessions_settings(c):
    c.execute("SET application_name = 'first'")
    c.execute("CREATE MATERIALIZED VIEW s AS SELECT current_setting('application_name') AS a")
    c.execute("SET application_name = 'second'")
    c.execute("REFRESH MATERIALIZED VIEW s")
    assert q(c, "SELECT * FROM s") == [("second",)]


def test_if_not_exists_and_one_namespace(c):
    c.execute("CREATE MATERIALIZED VIEW mvtest_mv_foo AS SELECT * FROM mvtest_t")
    assert fails(c, "CREATE MATERIALIZED VIEW mvtest_mv_foo AS SELECT * FROM mvtest_t", "42P07") == \
        'relation "mvtest_mv_foo" already exists'
    c.execute("CREATE MATERIALIZED VIEW IF NOT EXISTS mvtest_mv_foo AS SELECT 1")
    assert c.notices[-1] == 'NOTICE:  relation "mvtest_mv_foo" already exists, skipping'
    fails(c, "CREATE MATERIALIZED VIEW mvtest_t AS SELECT 1", "42P07")
    fails(c, "CREATE TABLE mvtest_mv_foo (a int)", "42P07")
    fails(c, "CREATE MATERIALIZED VIEW m AS SELECT * FROM mvtest_t WHERE id = ?", "0A000", params=(1,))
    c.execute("CREATE TEMP TABLE tmp (a int)")
    assert fails(c, "CREATE MATERIALIZED VIEW m AS SELECT * FROM tmp", "0A000") == \
        "materialized views must not use temporary tables or views"


def test_it_cannot_be_written_nor_locked(c, tmp_path):
    c.execute("CREATE MATERIALIZED VIEW mv AS SELECT id, amt FROM mvtest_t")
    message = 'cannot change materialized view "mv"'
    assert fails(c, "INSERT INTO mv VALUES (9, 9)", "42809") == message
    assert fails(c, "UPDATE mv SET amt = 0", "42809") == message
    assert fails(c, "DELETE FROM mv", "42809") == message
    assert fails(c, "MERGE INTO mv USING mvtest_t s ON mv.id = s.id WHEN MATCHED THEN DELETE", "42809") == message
    assert fails(c, "INSERT INTO mv SELECT 7, 7 ON CONFLICT DO NOTHING", "42809") == message
    assert fails(c, f"COPY mv FROM '{tmp_path / 'x.csv'}'", "42809") == message
    fails(c, f"COPY mv TO '{tmp_path / 'x.csv'}'", "42809")
    fails(c, "TRUNCATE mv", "42809")
    assert fails(c, "SELECT * FROM mv FOR SHARE", "42809") == 'cannot lock rows in materialized view "mv"'
    assert fails(c, "ALTER TABLE mv ADD COLUMN x int", "42809") == (
        'ALTER action ADD COLUMN cannot be performed on relation "mv"\n'
        "DETAIL:  This operation is not supported for materialized views.")
    assert q(c, "SELECT count(*) FROM mv") == [(5,)]


def test_drop_and_dependencies(c):
    c.execute("CREATE MATERIALIZED VIEW mvtest_tm AS SELECT type, sum(amt) AS totamt FROM mvtest_t GROUP BY type")
    c.execute("CREATE MATERIALIZED VIEW mvtest_tvm AS SELECT * FROM mvtest_tv")
    c.execute("CREATE VIEW mvtest_over AS SELECT * FROM mvtest_tm")
    assert fails(c, "DROP TABLE mvtest_t", "2BP01").splitlines() == [
        "cannot drop table mvtest_t because other objects depend on it",
        "DETAIL:  view mvtest_tv depends on table mvtest_t",
        "materialized view mvtest_tm depends on table mvtest_t",
        "materialized view mvtest_tvm depends on view mvtest_tv",
        "view mvtest_over depends on materialized view mvtest_tm",
        "HINT:  Use DROP ... CASCADE to drop the dependent objects too."]
    fails(c, "ALTER TABLE mvtest_t DROP COLUMN amt", "2BP01")
    fails(c, "ALTER TABLE mvtest_t ALTER COLUMN amt TYPE bigint", "0A000")
    assert fails(c, "DROP TABLE mvtest_tm", "42809") == (
        '"mvtest_tm" is not a table\nHINT:  Use DROP MATERIALIZED VIEW to remove a materialized view.')
    assert fails(c, "DROP VIEW mvtest_tm", "42809") == (
        '"mvtest_tm" is not a view\nHINT:  Use DROP MATERIALIZED VIEW to remove a materialized view.')
    assert fails(c, "DROP MATERIALIZED VIEW mvtest_tv", "42809") == (
        '"mvtest_tv" is not a materialized view\nHINT:  Use DROP VIEW to remove a view.')
    assert fails(c, "REFRESH MATERIALIZED VIEW mvtest_t", "42809") == '"mvtest_t" is not a materialized view'
    fails(c, "DROP MATERIALIZED VIEW mvtest_tm", "2BP01")
    fails(c, "DROP MATERIALIZED VIEW nosuch", "42P01")
    c.execute("DROP MATERIALIZED VIEW IF EXISTS no_such_mv")
    assert c.notices[-1] == 'NOTICE:  materialized view "no_such_mv" does not exist, skipping'
    c.execute("BEGIN")
    c.execute("DROP TABLE mvtest_t CASCADE")
    assert c.notices[-5:] == [  # (the DETAIL's lines a notice each, as the connection keeps them)
        "NOTICE:  drop cascades to 4 other objects", "NOTICE:  DETAIL:  drop cascades to view mvtest_tv",
        "NOTICE:  drop cascades to materialized view mvtest_tm",
        "NOTICE:  drop cascades to materialized view mvtest_tvm", "NOTICE:  drop cascades to view mvtest_over"]
    fails(c, "SELECT * FROM mvtest_tm", "42P01")
    c.execute("ROLLBACK")
    assert q(c, "SELECT count(*) FROM mvtest_tm") == [(3,)]
    c.execute("DROP MATERIALIZED VIEW mvtest_tm CASCADE")
    assert c.notices[-1] == "NOTICE:  drop cascades to view mvtest_over"
    assert q(c, "SELECT count(*) FROM pg_class WHERE relname IN ('mvtest_tm', 'mvtest_over')") == [(0,)]


def test_rename_and_comment(c):
    c.execute("CREATE MATERIALIZED VIEW mv AS SELECT type, sum(amt) AS totamt FROM mvtest_t GROUP BY type")
    c.execute("CREATE VIEW over_mv AS SELECT totamt FROM mv WHERE type = 'x'")
    assert c.execute("ALTER MATERIALIZED VIEW mv RENAME TO mv2").statusmessage == "ALTER MATERIALIZED VIEW"
    assert q(c, "SELECT * FROM over_mv") == [(5,)]  # (the view reading it follows)
    c.execute("ALTER MATERIALIZED VIEW mv2 RENAME COLUMN totamt TO total")
    assert [d[0] for d in c.execute("SELECT * FROM mv2").description] == ["type", "total"]
    c.execute("ALTER TABLE mvtest_t RENAME TO base")  # (what it reads renamed: it follows)
    c.execute("INSERT INTO base VALUES (6, 'x', 1)")
    c.execute("REFRESH MATERIALIZED VIEW mv2")
    assert q(c, "SELECT total FROM mv2 WHERE type = 'x'") == [(6,)]
    assert fails(c, "ALTER MATERIALIZED VIEW base RENAME TO b", "42809") == '"base" is not a materialized view'
    c.execute("ALTER MATERIALIZED VIEW IF EXISTS nosuch RENAME TO b")
    c.execute("COMMENT ON MATERIALIZED VIEW mv2 IS 'totals by type'")
    assert q(c, "SELECT obj_description('mv2'::regclass, 'pg_class')") == [("totals by type",)]
    assert fails(c, "COMMENT ON TABLE mv2 IS 'x'", "42809") == '"mv2" is not a table'
    assert fails(c, "COMMENT ON MATERIALIZED VIEW base IS 'x'", "42809") == '"base" is not a materialized view'


def test_catalogs(c):
    c.execute("CREATE MATERIALIZED VIEW mv AS SELECT id, amt FROM mvtest_t")
    c.execute("CREATE MATERIALIZED VIEW empty AS SELECT 1 AS one WITH NO DATA")
    c.execute("CREATE INDEX mv_amt ON mv (amt)")
    assert q(c, "SELECT relname, relkind, relispopulated FROM pg_class WHERE relname IN ('mv', 'empty', 'mv_amt', "
                "'mvtest_t') ORDER BY 1") == [("empty", "m", False), ("mv", "m", True), ("mv_amt", "i", True),
                                              ("mvtest_t", "r", True)]
    assert q(c, "SELECT schemaname, matviewname, hasindexes, ispopulated, definition FROM pg_matviews "
                "ORDER BY 2") == [("public", "empty", False, False, "SELECT 1 AS one"),
                                  ("public", "mv", True, True, "SELECT id, amt FROM public.mvtest_t")]
    assert q(c, "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY 1") == \
        [("mvtest_t",), ("mvtest_tv",)]
    assert q(c, "SELECT DISTINCT table_name FROM information_schema.columns WHERE table_schema = 'public' "
                "ORDER BY 1") == [("mvtest_t",), ("mvtest_tv",)]
    assert q(c, "SELECT tablename FROM pg_tables WHERE schemaname = 'public'") == [("mvtest_t",)]
    assert q(c, "SELECT indexname FROM pg_indexes WHERE tablename = 'mv'") == [("mv_amt",)]


def test_a_read_only_transaction_cannot_make_or_refresh_one(connect, c):
    c.execute("CREATE MATERIALIZED VIEW mv AS SELECT id FROM mvtest_t")
    ro = connect()
    for sql in ("CREATE MATERIALIZED VIEW w AS SELECT 1", "REFRESH MATERIALIZED VIEW mv",
                "DROP MATERIALIZED VIEW mv"):
        ro.execute("BEGIN READ ONLY")
        fails(ro, sql, "25006")
        ro.rollback()


def test_it_survives_a_restart_and_a_checkpoint(warehouse):
    conn = txlake.connect(warehouse, autocommit=True, publish="off")
    conn.execute("CREATE TABLE t (id INT, n INT)")
    conn.execute("INSERT INTO t VALUES (1, 10), (2, 20)")
    conn.execute("CREATE MATERIALIZED VIEW before_cp AS SELECT sum(n) AS s FROM t")
    conn.execute("CREATE MATERIALIZED VIEW unpopulated AS SELECT id FROM t WITH NO DATA")
    written = conn._session.db.warehouse.write_checkpoint(force=True)
    assert written
    conn.execute("INSERT INTO t VALUES (3, 30)")
    conn.execute("REFRESH MATERIALIZED VIEW before_cp")
    conn.execute("CREATE MATERIALIZED VIEW after_cp AS SELECT count(*) AS c FROM before_cp")
    conn.close()
    reopened = Warehouse(warehouse)
    assert reopened._checkpoint_csn == written and reopened.latest.matviews == 3
    again = txlake.connect(warehouse, autocommit=True, publish="off")
    assert q(again, "SELECT * FROM before_cp") == [(60,)]
    assert q(again, "SELECT * FROM after_cp") == [(1,)]
    fails(again, "SELECT * FROM unpopulated", "55000")
    fails(again, "DROP TABLE t", "2BP01")  # (dependencies kept too)
    again.execute("REFRESH MATERIALIZED VIEW unpopulated")
    assert q(again, "SELECT * FROM unpopulated ORDER BY id") == [(1,), (2,), (3,)]
    again.close()


def test_published_as_a_table_for_other_readers(connect, warehouse):
    import os
    from tests.paimon_env import read_with_pypaimon
    conn = connect(autocommit=True, publish="sync")
    conn.execute("CREATE TABLE t (id INT)")
    conn.execute("INSERT INTO t VALUES (1), (2)")
    conn.execute("CREATE MATERIALIZED VIEW mv AS SELECT id * 10 AS tens FROM t")
    conn.execute("INSERT INTO t VALUES (3)")
    conn.execute("REFRESH MATERIALIZED VIEW mv")
    snapshots = read_with_pypaimon(os.path.join(warehouse, "default.db", "mv"))["snapshots"]
    assert sorted(r[0] for r in list(snapshots.values())[-1]["rows"]) == [10, 20, 30]


def test_the_spark_source_reads_one_and_refuses_to_write_it(connect, warehouse):
    pytest.importorskip("pyspark")
    from txlake.spark.source import TxlakeDataSource
    conn = connect(autocommit=True)
    conn.execute("CREATE TABLE t (id INT)")
    conn.execute("CREATE MATERIALIZED VIEW mv AS SELECT id FROM t")
    conn.execute("CREATE MATERIALIZED VIEW empty AS SELECT id FROM t WITH NO DATA")
    options = {"warehouse": warehouse, "table": "mv"}
    assert [f.name for f in TxlakeDataSource(options).schema().fields] == ["id"]
    with pytest.raises(txlake.Error) as info:
        TxlakeDataSource(options).writer(None, False)
    assert info.value.sqlstate == "42809"
    with pytest.raises(txlake.Error) as info:
        TxlakeDataSource({"warehouse": warehouse, "table": "empty"}).schema()
    assert info.value.sqlstate == "55000"
