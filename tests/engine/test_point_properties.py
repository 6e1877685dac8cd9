"""Point statements answered in Python (engine/points.py ``select``, ``join``)
give what DuckDB gives for the same statement: generated tables (NULLs, duplicates, text
that sorts differently by case and by accent, rows in several files, deleted and updated
rows) and generated statements - key lookups by ``=``, IN lists and ``= ANY(?)``, ORDER BY
of any direction and NULLS placement, LIMIT, and joins by keys - each run by a session
with the fast paths and by one forced down the general path."""

from __future__ import annotations

import contextlib

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as s

import txlake
from txlake.engine import points

TEXTS = s.one_of(s.none(), s.sampled_from(["a", "B", "b", "é", "e", "Z", "", "ab", "a b", "ß"]))
ROWS = s.lists(s.tuples(s.one_of(s.none(), s.integers(0, 4)), TEXTS,
                        s.one_of(s.none(), s.decimals(-50, 50, places=2, allow_nan=False)),
                        s.one_of(s.none(), s.booleans())), min_size=4, max_size=40)
COLUMNS = ["id", "g", "s", "n", "b"]


@contextlib.contextmanager
def general_path():
    """The fast paths off (for a session whose statements are planned only inside this)."""
    with pytest.MonkeyPatch.context() as m:
        m.setattr(points, "select_plan", lambda expression: None)
        m.setattr(points, "join_plan", lambda expression: None)
        yield


def outcome(cur, sql, params):
    try:
        table = cur.execute(sql, params).fetch_arrow_table()
    except txlake.Error as e:
        return "error", e.sqlstate
    return [str(t) for t in table.schema.types], list(zip(*(c.to_pylist() for c in table.columns)))


def unordered(result):
    return result if result[0] == "error" else (result[0], sorted(result[1], key=repr))


def filled(path, rows, changes):
    """Two tables: ``t`` (the rows, keyed 0..n-1, an index on g, text unique where it is) and
    ``p`` (parents of g), written in two files with ``changes`` (ids deleted or updated)."""
    conn = txlake.connect(str(path), autocommit=True, publish="off")
    cur = conn.cursor()
    cur.execute("CREATE TABLE p (id INT PRIMARY KEY, label TEXT UNIQUE)")
    cur.execute("CREATE TABLE t (id INT PRIMARY KEY, g INT, s TEXT, n NUMERIC(6,2), b BOOLEAN)")
    cur.execute("CREATE INDEX t_g ON t (g)")
    cur.execute("INSERT INTO p SELECT i, 'p' || i FROM generate_series(0, 3) i")
    numbered = [(i, *r) for i, r in enumerate(rows)]
    for part in (numbered[:len(rows) // 2], numbered[len(rows) // 2:]):
        if part:
            cur.executemany("INSERT INTO t VALUES (?, ?, ?, ?, ?)", part)
    for kind, i in changes:
        if kind == "delete":
            cur.execute("DELETE FROM t WHERE id = ?", (i,))
        else:
            cur.execute("UPDATE t SET g = 4 - coalesce(g, 0), s = upper(s) WHERE id = ?", (i,))
    return conn


def order_by(keys):
    """ORDER BY of ``keys`` ((column, direction, nulls)), ``id`` last: a total order."""
    return " ORDER BY " + ", ".join(f"{c}{d}{n}" for c, d, n in keys) + ", id"


ORDER_KEYS = s.lists(s.tuples(s.sampled_from(["s", "n", "b", "g", "id"]), s.sampled_from(["", " ASC", " DESC"]),
                              s.sampled_from(["", " NULLS FIRST", " NULLS LAST"])), min_size=1, max_size=3)


@s.composite
def statements(draw, n):
    """(SQL, parameters, whether its rows come in a defined order)."""
    ids = s.one_of(s.integers(0, n - 1), s.sampled_from([None, -1, n]))
    groups = s.sampled_from([0, 1, 2, 3, 4, None, -1])
    select = draw(s.sampled_from(["*", "id, s", "n, b, id", "s"]))
    kind = draw(s.sampled_from(["pk", "in", "any", "index", "index", "join", "children"]))
    keys = draw(s.one_of(s.none(), ORDER_KEYS, ORDER_KEYS))
    limit = draw(s.one_of(s.none(), s.integers(1, 8))) if keys is not None else None
    if kind == "pk":
        sql, params = f"SELECT {select} FROM t WHERE id = ?", [draw(ids)]
    elif kind == "in":
        values = draw(s.lists(ids, min_size=1, max_size=8))
        sql, params = f"SELECT {select} FROM t WHERE id IN ({', '.join('?' * len(values))})", values
    elif kind == "any":
        sql, params = f"SELECT {select} FROM t WHERE id = ANY(?)", [draw(s.lists(ids, max_size=8))]
    elif kind == "index":
        sql, params = f"SELECT {select} FROM t WHERE g = ?", [draw(groups)]
    elif kind == "join":
        sql, params = "SELECT t.id, t.s, p.label FROM t JOIN p ON p.id = t.g WHERE t.id = ?", [draw(ids)]
        keys = limit = None
    else:
        sql, params = "SELECT p.label, t.id, t.n FROM p JOIN t ON t.g = p.id WHERE p.label = ?", \
            [draw(s.sampled_from(["p0", "p1", "p3", "nope"]))]
        keys = limit = None
    if keys is not None:
        sql += order_by(keys) + (f" LIMIT {limit}" if limit is not None else "")
    return sql, params, keys is not None


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(rows=ROWS, data=s.data())
def test_point_paths_answer_as_duckdb_does(tmp_path_factory, rows, data):
    changes = data.draw(s.lists(s.tuples(s.sampled_from(["delete", "update"]), s.integers(0, len(rows) - 1)),
                                max_size=4))
    path = tmp_path_factory.mktemp("w")
    fast = filled(path, rows, changes)
    general = txlake.connect(str(path), autocommit=True, publish="off")
    try:
        for sql, params, ordered in data.draw(s.lists(statements(len(rows)), min_size=8, max_size=16)):
            a = outcome(fast.cursor(), sql, params)
            with general_path():
                b = outcome(general.cursor(), sql, params)
            if not ordered:
                a, b = unordered(a), unordered(b)
            assert a == b, (sql, params)
    finally:
        fast.close()
        general.close()
