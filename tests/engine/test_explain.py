"""EXPLAIN [ANALYZE] of a query: how txlake runs it. It was refused (0A000: statement not
supported), where psql users reach for it first to see why a query is slow."""

import pytest

import txlake


@pytest.fixture
def conn(connect):
    conn = connect(autocommit=True)
    conn.execute("CREATE TABLE t (id INT PRIMARY KEY, v INT)")
    conn.execute("INSERT INTO t SELECT range, range % 7 FROM range(100)")
    return conn


def plan(cur) -> list[str]:
    assert [d[0] for d in cur.description] == ["QUERY PLAN"]
    return [row[0] for row in cur.fetchall()]


def test_a_primary_key_lookup_says_duckdb_is_not_used(conn):
    lines = plan(conn.execute("EXPLAIN SELECT v FROM t WHERE id = ?", (42,)))
    assert lines[0].startswith("Primary key lookup on t") and lines[1].strip() == "Key: (id) = (42)"
    lines = plan(conn.execute("EXPLAIN ANALYZE SELECT v FROM t WHERE id = 42"))
    assert "Rows: 1" in lines[2] and lines[-1].startswith("Execution Time:")


def test_other_queries_show_duckdb_s_plan_and_analyze_runs_them(conn):
    lines = plan(conn.execute("EXPLAIN SELECT v, count(*) FROM t WHERE id > ? GROUP BY v", (10,)))
    assert any("Group By" in line for line in lines) and not any("Execution Time" in line for line in lines)
    lines = plan(conn.execute("EXPLAIN (ANALYZE, COSTS OFF) SELECT v, count(*) FROM t GROUP BY v"))
    assert any("7 rows" in line for line in lines) and lines[-1].startswith("Execution Time:")
    assert plan(conn.execute("EXPLAIN VERBOSE SELECT count(*) FROM t"))[-1].endswith("╯")


def test_explain_sees_the_transaction_s_own_writes(conn):
    conn.execute("BEGIN")
    conn.execute("CREATE TABLE fresh AS SELECT * FROM t")
    lines = plan(conn.execute("EXPLAIN ANALYZE SELECT count(*) FROM fresh"))
    assert lines[-1].startswith("Execution Time:")
    conn.execute("ROLLBACK")


@pytest.mark.parametrize("sql, sqlstate", [
    ("EXPLAIN UPDATE t SET v = 0", "0A000"),            # (it would run the write, or plan it)
    ("EXPLAIN ANALYZE DELETE FROM t", "0A000"),
    ("EXPLAIN (FORMAT JSON) SELECT 1", "0A000"),
    ("EXPLAIN (NONSENSE) SELECT 1", "42601"),
    ("EXPLAIN", "42601"),
    ("EXPLAIN SELECT * FROM missing", "42P01"),
])
def test_what_explain_refuses_changes_nothing(conn, sql, sqlstate):
    with pytest.raises(txlake.Error) as e:
        conn.execute(sql)
    assert e.value.sqlstate == sqlstate
    assert conn.execute("SELECT count(*), sum(v) FROM t").fetchone() == (100, sum(i % 7 for i in range(100)))
