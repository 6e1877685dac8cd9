"""WITH RECURSIVE's SEARCH and CYCLE clauses, as PostgreSQL 16's (queries.sgml "Search Order"
and "Cycle Detection"; src/test/regress/expected/with.out's cases): rewritten as
rewriteSearchCycle.c does (parser/search_cycle.py), with its results and its errors."""

import pytest

from txlake import errors
from txlake.repl import cli

EDGES = "(1, 2, 'arc 1 -> 2'), (1, 3, 'arc 1 -> 3'), (2, 3, 'arc 2 -> 3'), (1, 4, 'arc 1 -> 4'), (4, 5, 'arc 4 -> 5')"
GRAPH = ("WITH RECURSIVE search_graph(f, t, label) AS (SELECT * FROM graph0 g UNION ALL "
         "SELECT g.* FROM graph0 g, search_graph sg WHERE g.f = sg.t) ")


@pytest.fixture
def c(connect):
    conn = connect(autocommit=True)
    conn.execute("CREATE TABLE graph0 (f INT, t INT, label TEXT)")
    conn.execute(f"INSERT INTO graph0 VALUES {EDGES}")
    conn.execute("CREATE TABLE graph (f INT, t INT, label TEXT)")
    conn.execute(f"INSERT INTO graph VALUES {EDGES}, (5, 1, 'arc 5 -> 1')")
    return conn


def q(conn, sql, params=None):
    return conn.execute(sql, params).fetchall()


def test_depth_first_orders_by_the_path(c):
    """with.out: ORDER BY seq is depth-first - each row after the row it was reached from."""
    assert q(c, GRAPH + "SEARCH DEPTH FIRST BY f, t SET seq SELECT f, t FROM search_graph ORDER BY seq") == [
        (1, 2), (2, 3), (1, 3), (1, 4), (4, 5), (2, 3), (4, 5)]
    cur = c.execute(GRAPH + "SEARCH DEPTH FIRST BY f, t SET seq SELECT * FROM search_graph")
    assert [d[0] for d in cur.description] == ["f", "t", "label", "seq"]


def test_breadth_first_orders_by_depth_then_the_columns(c):
    assert q(c, GRAPH + "SEARCH BREADTH FIRST BY f, t SET seq SELECT f, t FROM search_graph ORDER BY seq") == [
        (1, 2), (1, 3), (1, 4), (2, 3), (4, 5), (2, 3), (4, 5)]


def test_the_shell_shows_the_sequence_as_postgresql_does(c, warehouse, capsys):
    """A record[] as ``{"(1,2)","(2,3)"}``, a record as ``(0,1,2)``, a one-column one's ``{(1),(2)}``."""
    c.close()
    sql = GRAPH + "SEARCH DEPTH FIRST BY f, t SET seq SELECT * FROM search_graph " \
        "WHERE f = 4 ORDER BY seq"
    assert cli.main([warehouse, "-c", sql]) == 0
    assert capsys.readouterr().out.splitlines() == [
        " f | t |   label    |        seq",
        "---+---+------------+-------------------",
        ' 4 | 5 | arc 4 -> 5 | {"(1,4)","(4,5)"}',
        ' 4 | 5 | arc 4 -> 5 | {"(4,5)"}',
        "(2 rows)"]
    assert cli.main([warehouse, "-At", "-c", GRAPH + "SEARCH BREADTH FIRST BY f, t SET seq "
                     "SELECT seq FROM search_graph ORDER BY seq DESC LIMIT 1"]) == 0
    assert capsys.readouterr().out == "(1,4,5)\n"
    assert cli.main([warehouse, "-At", "-c", "WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r "
                     "WHERE n < 3) SEARCH DEPTH FIRST BY n SET o SELECT o FROM r ORDER BY n DESC LIMIT 1"]) == 0
    assert capsys.readouterr().out == "{(1),(2),(3)}\n"


def test_cycle_stops_at_a_row_seen_on_the_path(c):
    """with.out's graph with 5 -> 1: 25 rows, the three that close a cycle marked and not
    followed further; without CYCLE the query would never end."""
    rows = q(c, GRAPH.replace("graph0", "graph") + "CYCLE f, t SET is_cycle USING path "
             "SELECT f, t, is_cycle FROM search_graph")
    assert len(rows) == 25
    assert sorted(r for r in rows if r[2]) == [(1, 4, True), (4, 5, True), (5, 1, True)]
    assert q(c, GRAPH.replace("graph0", "graph") + "CYCLE f, t SET is_cycle TO 'Y' DEFAULT 'N' USING path "
             "SELECT is_cycle, count(*) FROM search_graph GROUP BY 1 ORDER BY 1") == [("N", 22), ("Y", 3)]
    assert q(c, "WITH RECURSIVE r(n) AS (VALUES (1) UNION ALL SELECT n % 3 + 1 FROM r) "
             "CYCLE n SET c TO 1 DEFAULT 0 USING p SELECT n, c FROM r") == [(1, 0), (2, 0), (3, 0), (1, 1)]


def test_search_and_cycle_together_in_postgresqls_column_order(c):
    cur = c.execute(GRAPH.replace("graph0", "graph") + "SEARCH BREADTH FIRST BY f, t SET seq "
                    "CYCLE f, t SET is_cycle USING path SELECT * FROM search_graph ORDER BY seq LIMIT 2")
    assert [d[0] for d in cur.description] == ["f", "t", "label", "seq", "is_cycle", "path"]
    assert [row[:3] + row[4:5] for row in cur.fetchall()] == [(1, 2, "arc 1 -> 2", False), (1, 3, "arc 1 -> 3", False)]


def test_a_clause_on_an_item_before_others_with_union_and_a_parameter(c):
    """The clause follows its own item (sqlglot read one after the last item only); UNION
    without ALL and a parameter in the recursive term keep working."""
    assert q(c, "WITH RECURSIVE r(n) AS (SELECT 1 UNION SELECT n + 1 FROM r WHERE n < ?) "
             "SEARCH DEPTH FIRST BY n SET o, s AS (SELECT count(*) AS k FROM r) "
             "SELECT n, k FROM r, s ORDER BY o DESC", (3,)) == [(3, 3), (2, 3), (1, 3)]
    assert q(c, "WITH RECURSIVE r AS (SELECT 1 AS n UNION ALL SELECT n + 1 FROM r WHERE n < 2) "
             "CYCLE n SET c USING p SELECT n, c FROM r") == [(1, False), (2, False)]


@pytest.mark.parametrize("clause, sqlstate, message", [
    ("SEARCH DEPTH FIRST BY foo, tar SET seq", "42601", 'search column "foo" not in WITH query column list'),
    ("SEARCH DEPTH FIRST BY f, t SET label", "42601",
     'search sequence column name "label" already used in WITH query column list'),
    ("SEARCH DEPTH FIRST BY f, t, f SET seq", "42701", 'search column "f" specified more than once'),
    ("CYCLE foo, tar SET is_cycle USING path", "42601", 'cycle column "foo" not in WITH query column list'),
    ("CYCLE f, t SET is_cycle TO true DEFAULT 55 USING path", "42804",
     "CYCLE types boolean and integer cannot be matched"),
    ("CYCLE f, t SET label TO true DEFAULT false USING path", "42601",
     'cycle mark column name "label" already used in WITH query column list'),
    ("CYCLE f, t SET is_cycle TO true DEFAULT false USING label", "42601",
     'cycle path column name "label" already used in WITH query column list'),
    ("CYCLE f, t SET foo TO true DEFAULT false USING foo", "42601",
     "cycle mark column name and cycle path column name are the same"),
    ("CYCLE f, t, f SET is_cycle TO true DEFAULT false USING path", "42701",
     'cycle column "f" specified more than once'),
    ("SEARCH DEPTH FIRST BY f, t SET foo CYCLE f, t SET foo TO true DEFAULT false USING path", "42601",
     "search sequence column name and cycle mark column name are the same"),
    ("SEARCH DEPTH FIRST BY f, t SET foo CYCLE f, t SET is_cycle TO true DEFAULT false USING foo", "42601",
     "search sequence column name and cycle path column name are the same"),
])
def test_postgresqls_errors(c, clause, sqlstate, message):
    with pytest.raises(errors.Error) as e:
        c.execute(GRAPH + clause + " SELECT * FROM search_graph")
    assert (e.value.sqlstate, str(e.value)) == (sqlstate, message)


@pytest.mark.parametrize("sql, sqlstate, message", [
    ("WITH search_graph(f, t, label) AS (SELECT * FROM graph0 g) SEARCH DEPTH FIRST BY f, t SET seq "
     "SELECT * FROM search_graph", "42601", "WITH query is not recursive"),
    ("WITH RECURSIVE r(f) AS (SELECT f FROM graph0 UNION ALL SELECT f FROM graph0 UNION ALL SELECT r.f FROM r) "
     "SEARCH DEPTH FIRST BY f SET seq SELECT * FROM r", "0A000",
     "with a SEARCH or CYCLE clause, the left side of the UNION must be a SELECT"),
    ("WITH RECURSIVE r(f) AS (SELECT f FROM graph0 UNION ALL (SELECT f FROM graph0 UNION ALL SELECT r.f FROM r)) "
     "SEARCH DEPTH FIRST BY f SET seq SELECT * FROM r", "42601",
     "with a SEARCH or CYCLE clause, the right side of the UNION must be a SELECT"),
    ("WITH RECURSIVE r AS (SELECT * FROM graph0 UNION ALL SELECT g.* FROM graph0 g JOIN r ON g.f = r.t) "
     "CYCLE f SET c USING p SELECT * FROM r", "0A000", None),
    ("WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n FROM r) CYCLE n SET c TO now() DEFAULT 0 USING p "
     "SELECT * FROM r", "42601", 'syntax error at or near "now"'),  # (TO and DEFAULT take a constant)
])
def test_clauses_it_cannot_rewrite_are_refused(c, sql, sqlstate, message):
    with pytest.raises(errors.Error) as e:
        c.execute(sql)
    assert e.value.sqlstate == sqlstate
    assert message is None or str(e.value) == message


def test_a_with_item_of_a_quoted_name_is_named_as_written(c):
    """``WITH RECURSIVE "R"("N") AS (... FROM "R" ...)`` was 42P01 'relation "R" does not exist':
    the item's name was lower-cased where the statement's names were looked up. As in PostgreSQL,
    a quoted name keeps its case (``FROM r`` names no item ``"R"``)."""
    assert q(c, 'WITH RECURSIVE "R"("N") AS (SELECT 1 UNION ALL SELECT "N" + 1 FROM "R" WHERE "N" < 3) '
                'SELECT * FROM "R"') == [(1,), (2,), (3,)]
    assert q(c, 'WITH "Few" AS (SELECT 1 AS n) SELECT * FROM "Few"') == [(1,)]
    with pytest.raises(errors.UndefinedTable):
        q(c, 'WITH "R" AS (SELECT 1 AS n) SELECT * FROM r')


@pytest.mark.parametrize("body", ["SELECT 1 INTERSECT SELECT n + 1 FROM x", "SELECT n FROM x"])
def test_a_recursive_item_of_another_form_is_42p19(c, body):
    """A WITH RECURSIVE item reading itself that is no UNION [ALL] of a non-recursive and a
    recursive part was DuckDB's 42000 'Circular reference to CTE': PostgreSQL's 42P19."""
    with pytest.raises(errors.Error) as e:
        q(c, f"WITH RECURSIVE x(n) AS ({body}) SELECT * FROM x")
    assert e.value.sqlstate == "42P19" and 'recursive query "x" does not have the form' in str(e.value)
