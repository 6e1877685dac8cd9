"""SERIALIZABLE: what a write statement reads from other tables - UPDATE ... FROM, DELETE ...
USING, a subquery, INSERT ... SELECT, MERGE's source and clauses - counts as read, as a SELECT
of it would: two such statements that each read what the other writes form write skew, and one
fails with 40001.
(At REPEATABLE READ both commit, as in PostgreSQL.)"""

import pytest

import txlake
from tests.conftest import commit_each

CASES = {
    "update subquery": "UPDATE {me} SET v = v + (SELECT count(*) FROM {other} WHERE v = 1) WHERE id = 1",
    "update from": "UPDATE {me} SET v = {me}.v + {other}.v FROM {other} WHERE {other}.id = 1 AND {me}.id = 1",
    "insert select": "INSERT INTO {me} SELECT 5, count(*) FROM {other} WHERE v = 1",
    "delete using": "DELETE FROM {me} USING {other} WHERE {other}.v = 1 AND {me}.id = 2",
    "delete subquery": "DELETE FROM {me} WHERE id = 2 AND EXISTS (SELECT 1 FROM {other} WHERE v = 1)",
    "merge source": "MERGE INTO {me} USING (SELECT count(*) AS n FROM {other} WHERE v = 1) AS c ON {me}.id = 2 "
                    "WHEN MATCHED THEN UPDATE SET v = {me}.v + c.n",
    "merge table source": "MERGE INTO {me} USING {other} ON {me}.id = {other}.id "
                          "WHEN MATCHED AND {other}.v = 5 THEN DELETE",
    "merge condition": "MERGE INTO {me} USING (VALUES (5)) AS c(id) ON {me}.id = c.id WHEN NOT MATCHED AND "
                       "EXISTS (SELECT 1 FROM {other} WHERE v = 1) THEN INSERT VALUES (c.id, 0)",
}


@pytest.mark.parametrize("level", ["SERIALIZABLE", "REPEATABLE READ"])
@pytest.mark.parametrize("case", list(CASES))
def test_reads_inside_a_write_statement_count(warehouse, case, level):
    setup = txlake.connect(warehouse, autocommit=True, publish="off")
    for t in "ab":
        setup.execute(f"CREATE TABLE {t} (id INT PRIMARY KEY, v INT)")
        setup.execute(f"INSERT INTO {t} VALUES (1, 1), (2, 2)")
    s1 = txlake.connect(warehouse, isolation_level=level, publish="off")
    s2 = txlake.connect(warehouse, isolation_level=level, publish="off")
    s1.execute("SELECT 1")
    s2.execute("SELECT 1")  # both snapshots taken
    s1.execute(CASES[case].format(me="a", other="b"))  # reads b, writes a
    s2.execute(CASES[case].format(me="b", other="a"))  # reads a, writes b
    s1.execute("UPDATE a SET v = 11 WHERE id = 1")  # each writes a row the other's read saw
    s2.execute("UPDATE b SET v = 11 WHERE id = 1")
    outcomes = commit_each(s1, s2)
    assert outcomes == (["ok", "40001"] if level == "SERIALIZABLE" else ["ok", "ok"])
    for conn in (s1, s2, setup):
        conn.close()


def test_a_query_without_from_reading_a_table_in_a_subquery(warehouse):
    """SELECT (SELECT ... FROM t) has one table and no FROM of its own: SERIALIZABLE's read
    planning took it for a single-table SELECT and failed with a KeyError. Its reads count."""
    setup = txlake.connect(warehouse, autocommit=True, publish="off")
    for t in "ab":
        setup.execute(f"CREATE TABLE {t} (id INT PRIMARY KEY, v INT)")
        setup.execute(f"INSERT INTO {t} VALUES (1, 1)")
    s1 = txlake.connect(warehouse, isolation_level="SERIALIZABLE", publish="off")
    s2 = txlake.connect(warehouse, isolation_level="SERIALIZABLE", publish="off")
    assert s1.execute("SELECT (SELECT v FROM b WHERE id = 1)").fetchall() == [(1,)]
    assert s2.execute("SELECT EXISTS (SELECT 1 FROM a WHERE v = 1)").fetchall() == [(True,)]
    s1.execute("UPDATE a SET v = 11 WHERE id = 1")
    s2.execute("UPDATE b SET v = 11 WHERE id = 1")
    assert commit_each(s1, s2) == ["ok", "40001"]
    for conn in (s1, s2, setup):
        conn.close()
