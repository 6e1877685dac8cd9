"""CREATE INDEX: secondary indexes as PostgreSQL 16 makes, lists and drops them, and lookups
through them that find exactly the rows a scan finds - the transaction's own writes, deleted
and updated rows, rows others committed after the snapshot (engine/indexes.py)."""

import pytest

from tests.conftest import error_of, run_python
from tests.engine.test_uniques import LEVELS


@pytest.fixture
def c(connect):
    return connect(autocommit=True).cursor()


def scans(cur) -> int:
    """How many lookups the cursor's session made through CREATE INDEX's indexes."""
    return cur.connection._session.executor.index_scans


def indexdefs(cur, table="t"):
    return cur.execute("SELECT indexname, indexdef FROM pg_indexes WHERE tablename = ? ORDER BY indexname",
                       (table,)).fetchall()


def filled(c, rows=200):
    c.execute("CREATE TABLE t (id INT PRIMARY KEY, email TEXT, customer_id INT, n INT)")
    c.executemany("INSERT INTO t VALUES (?, ?, ?, ?)", [(i, f"e{i % 20}", i % 7, i) for i in range(rows)])


# --- DDL, catalogs ------------------------------------------------------------------------------

def test_create_index_names_it_as_postgresql_and_lists_it(c):
    filled(c)
    c.execute("CREATE INDEX ON t (email)")
    c.execute("CREATE INDEX ON t (email)")                       # the default name, numbered
    c.execute("CREATE INDEX IF NOT EXISTS by_cust ON ONLY t USING hash (customer_id, n)")
    c.execute("CREATE INDEX IF NOT EXISTS by_cust ON t (n)")
    assert c.connection.notices[-1] == 'NOTICE:  relation "by_cust" already exists, skipping'
    assert indexdefs(c) == [
        ("by_cust", "CREATE INDEX by_cust ON public.t USING hash (customer_id, n)"),
        ("t_email_idx", "CREATE INDEX t_email_idx ON public.t USING btree (email)"),
        ("t_email_idx1", "CREATE INDEX t_email_idx1 ON public.t USING btree (email)"),
        ("t_pkey", "CREATE UNIQUE INDEX t_pkey ON public.t USING btree (id)")]
    assert c.execute("SELECT hasindexes FROM pg_tables WHERE tablename = 't'").fetchone() == (True,)


def test_index_names_share_the_namespace_of_relations(c):
    filled(c)
    c.execute("CREATE TABLE u (a INT)")
    c.execute("CREATE INDEX i ON t (email)")
    assert error_of(c, "CREATE INDEX i ON t (n)") == ("42P07", 'relation "i" already exists')
    assert error_of(c, "CREATE INDEX u ON t (n)") == ("42P07", 'relation "u" already exists')
    assert error_of(c, "CREATE INDEX t_pkey ON t (n)")[0] == "42P07"
    assert error_of(c, "CREATE INDEX j ON t (nope)") == ("42703", 'column "nope" does not exist')
    assert error_of(c, "CREATE INDEX j ON missing (a)")[0] == "42P01"
    # and the other way: a table, view or sequence of an index's name (it was made)
    for sql in ("CREATE TABLE i (a INT)", "CREATE VIEW i AS SELECT 1", "CREATE SEQUENCE i",
                "CREATE TABLE t_pkey (a INT)"):
        assert error_of(c, sql)[0] == "42P07"


@pytest.mark.parametrize("sql, state, message", [
    ("CREATE UNIQUE INDEX j ON t USING gin (email)", "0A000", 'access method "gin" does not support unique indexes'),
    ("CREATE UNIQUE INDEX j ON t USING hash (email)", "0A000", 'access method "hash" does not support unique'),
    ("CREATE INDEX j ON t USING bloom (email)", "42704", 'access method "bloom" does not exist'),
    ("CREATE INDEX j ON t USING hash (email) INCLUDE (n)", "0A000", 'access method "hash" does not support included'),
])
def test_what_txlake_indexes_cannot_be_is_refused(c, sql, state, message):
    filled(c, 3)
    assert error_of(c, sql)[0] == state and message in error_of(c, sql)[1]


def test_gin_gist_brin_and_spgist_indexes_are_kept_and_shown_never_looked_up(c):
    """``CREATE INDEX ... USING gin (tags)`` - the index of an array or jsonb column that Rails and
    Django migrations make - was 0A000. Such an index is kept and shown, as PostgreSQL shows it,
    and answers no lookup: a query finds what a scan finds."""
    c.execute("CREATE TABLE d (id INT PRIMARY KEY, tags TEXT[], doc JSONB, n INT, name TEXT)")
    for sql in ("CREATE INDEX d_tags ON d USING gin (tags)", "CREATE INDEX d_doc ON d USING gin (doc jsonb_path_ops)",
                "CREATE INDEX d_n ON d USING brin (n) WITH (pages_per_range = 32)",
                "CREATE INDEX d_n2 ON d USING spgist (name)"):
        c.execute(sql)
    # a type the method has no operator class for, as PostgreSQL without extensions (review)
    for sql in ("CREATE INDEX j ON d USING gin (name)", "CREATE INDEX j ON d USING gist (n)",
                "CREATE INDEX j ON d USING spgist (n)", "CREATE INDEX j ON d USING brin (tags)"):
        assert error_of(c, sql)[0] == "42704", sql
    c.execute("""INSERT INTO d VALUES (1, '{a,b}', '{"k": 1}', 5, 'x'), (2, '{c}', '{}', 5, 'y')""")
    before = scans(c)
    assert c.execute("SELECT id FROM d WHERE n = 5 ORDER BY id").fetchall() == [(1,), (2,)]
    assert c.execute("SELECT id FROM d WHERE tags @> '{a}' OR doc @> '{\"k\": 2}'").fetchall() == [(1,)]
    assert scans(c) == before
    assert indexdefs(c, "d") == [("d_doc", "CREATE INDEX d_doc ON public.d USING gin (doc)"),
                                 ("d_n", "CREATE INDEX d_n ON public.d USING brin (n)"),
                                 ("d_n2", "CREATE INDEX d_n2 ON public.d USING spgist (name)"),
                                 ("d_pkey", "CREATE UNIQUE INDEX d_pkey ON public.d USING btree (id)"),
                                 ("d_tags", "CREATE INDEX d_tags ON public.d USING gin (tags)")]


def test_how_postgresql_lays_a_relation_out_is_taken_and_changes_nothing(c):
    """A sort order, an operator class, a collation, INCLUDE, storage options and the default
    tablespace of an index; WITH (...) and USING heap of a table; ALTER TABLE / INDEX actions that
    tune storage; REINDEX, CLUSTER and CHECKPOINT: pg_dump and migration tools write them, and
    they were 0A000 or 42601 (the rest of a dump's table then failed). txlake's storage has
    nothing they change; a tablespace or access method other than the default is 42704."""
    c.execute("CREATE TABLE p (id INT PRIMARY KEY, email TEXT, n INT) "
              "WITH (fillfactor = '90', autovacuum_enabled = false, toast.autovacuum_enabled = off, oids = false)")
    c.execute("CREATE TABLE h (id INT) USING heap")
    for sql in ("CREATE INDEX p_desc ON p (email DESC NULLS LAST)", "CREATE INDEX p_ops ON p (email text_pattern_ops)",
                'CREATE INDEX p_coll ON p (email COLLATE "C")', "CREATE INDEX p_inc ON p (email) INCLUDE (n)",
                "CREATE INDEX p_ff ON p (n) WITH (fillfactor = 70) TABLESPACE pg_default",
                "CREATE UNIQUE INDEX p_u ON p (email DESC) INCLUDE (n)",
                "ALTER TABLE ONLY p CLUSTER ON p_pkey", "ALTER TABLE p SET (autovacuum_enabled = false)",
                "ALTER TABLE p RESET (fillfactor)", "ALTER TABLE public.p REPLICA IDENTITY FULL",
                "ALTER TABLE ONLY p ALTER COLUMN email SET STATISTICS 100, ALTER n SET STORAGE PLAIN",
                "ALTER TABLE IF EXISTS p SET LOGGED", "ALTER TABLE p SET TABLESPACE pg_default",
                "ALTER INDEX p_ff SET (fillfactor = 80)", "REINDEX TABLE CONCURRENTLY p", "REINDEX INDEX p_u",
                "CLUSTER p USING p_pkey", "CHECKPOINT"):
        c.execute(sql)
    assert c.connection.notices[-1] == \
        "NOTICE:  txlake's commits are durable when they return: CHECKPOINT changes nothing"
    c.execute("INSERT INTO p VALUES (1, 'a', 1)")
    assert error_of(c, "INSERT INTO p VALUES (2, 'a', 2)")[0] == "23505"  # (the unique index, DESC or not)
    assert [row[0] for row in indexdefs(c, "p")] == ["p_coll", "p_desc", "p_ff", "p_inc", "p_ops", "p_pkey", "p_u"]
    for sql, state in (("CREATE INDEX j ON p (email) INCLUDE (nope)", "42703"),
                       ("CREATE TABLE x (id INT) WITH (bogus = 1)", "22023"),  # (the parameters are PostgreSQL's
                       ("CREATE TABLE x (id INT) WITH (fillfactor = 5)", "22023"),  # and checked as its: review)
                       ("CREATE TABLE x (id INT) WITH (oids = true)", "0A000"),
                       ("CREATE INDEX j ON p (email) WITH (fastupdate = off)", "22023"),  # (gin's, not btree's)
                       ("CREATE INDEX j ON p (email) TABLESPACE fast", "42704"),
                       ("CREATE TABLE x (id INT) USING columnar", "42704"),
                       ("ALTER TABLE p SET TABLESPACE fast", "42704"),
                       ("ALTER TABLE p SET ACCESS METHOD columnar", "42704"),
                       ("SECURITY LABEL ON TABLE p IS 'secret'", "22023"),
                       ("ALTER TABLE p SET (fillfactor = 90), ADD COLUMN z INT", "0A000")):  # (not storage alone)
        assert error_of(c, sql)[0] == state, sql


def test_drop_index(c):
    filled(c)
    c.execute("CREATE INDEX a ON t (email)")
    c.execute("CREATE INDEX b ON t (n)")
    c.execute("CREATE UNIQUE INDEX u ON t (n)")
    c.execute("DROP INDEX a, u CASCADE")
    assert [name for name, _ in indexdefs(c)] == ["b", "t_pkey"]
    assert error_of(c, "DROP INDEX a") == ("42704", 'index "a" does not exist')
    c.execute("DROP INDEX IF EXISTS a, b")
    assert [name for name, _ in indexdefs(c)] == ["t_pkey"]
    assert error_of(c, "DROP INDEX t")[0] == "42809"
    assert error_of(c, "DROP INDEX t_pkey")[0] == "2BP01"


def test_drop_index_is_transactional(connect):
    cur = connect().cursor()
    filled(cur)
    cur.execute("CREATE INDEX i ON t (email)")
    cur.connection.commit()
    cur.execute("DROP INDEX i")
    assert indexdefs(cur) == [("t_pkey", "CREATE UNIQUE INDEX t_pkey ON public.t USING btree (id)")]
    cur.connection.rollback()
    assert [name for name, _ in indexdefs(cur)] == ["i", "t_pkey"]


def test_column_rename_drop_and_type_change_carry_to_the_index(c):
    filled(c)
    c.execute("CREATE INDEX i ON t (email, n)")
    c.execute("CREATE INDEX j ON t (customer_id)")
    c.execute("ALTER TABLE t RENAME COLUMN email TO mail")
    c.execute("ALTER TABLE t ALTER COLUMN n TYPE BIGINT")
    assert indexdefs(c)[:2] == [("i", "CREATE INDEX i ON public.t USING btree (mail, n)"),
                                ("j", "CREATE INDEX j ON public.t USING btree (customer_id)")]
    assert c.execute("SELECT count(*) FROM t WHERE mail = 'e3' AND n = 23").fetchone() == (1,)
    c.execute("ALTER TABLE t DROP COLUMN n")                     # a dropped column drops its indexes
    assert [name for name, _ in indexdefs(c)] == ["j", "t_pkey"]


def test_the_index_survives_reopen_and_other_processes_see_it(connect, warehouse):
    c = connect(autocommit=True).cursor()
    filled(c)
    c.execute("CREATE INDEX i ON t USING hash (email)")
    done = run_python(f"""
import txlake
c = txlake.connect({warehouse!r}, autocommit=True, publish="off").cursor()
print(c.execute("SELECT indexdef FROM pg_indexes WHERE indexname = 'i'").fetchall())
print(c.execute("SELECT count(*) FROM t WHERE email = 'e4'").fetchall())
print(c.connection._session.executor.index_scans)
""")
    assert done.returncode == 0, done.stderr
    assert done.stdout.split("\n")[:3] == ["[('CREATE INDEX i ON public.t USING hash (email)',)]", "[(10,)]", "1"]


# --- lookups through the index: the rows a scan finds -----------------------------------------

def test_select_update_delete_use_the_index_and_explain_says_so(c):
    filled(c)
    c.execute("CREATE INDEX t_email_idx ON t (email)")
    before = scans(c)
    assert c.execute("SELECT id FROM t WHERE email = ? ORDER BY id", ("e3",)).fetchall() == \
        [(i,) for i in range(3, 200, 20)]
    assert scans(c) == before + 1
    plan = [line for (line,) in c.execute("EXPLAIN SELECT * FROM t WHERE email = 'e3' AND n > 100").fetchall()]
    assert plan[0] == "Index Scan using t_email_idx on t (txlake's index: 10 candidate rows, filtered by DuckDB)"
    plan = [line for (line,) in c.execute("EXPLAIN SELECT * FROM t WHERE n = 3").fetchall()]
    assert not any("Index Scan" in line for line in plan)
    plan = [line for (line,) in c.execute("EXPLAIN SELECT * FROM t WHERE email = 'e3' OR n = 3").fetchall()]
    assert not any("Index Scan" in line for line in plan)
    before = scans(c)
    c.execute("UPDATE t SET n = -n WHERE email = ?", ("e4",))
    assert c.rowcount == 10
    c.execute("DELETE FROM t WHERE email = ? AND n < -100", ("e4",))
    assert c.rowcount == 5
    assert scans(c) == before + 2
    assert c.execute("SELECT count(*), sum(n) FROM t WHERE email = 'e4'").fetchone() == (5, -(4 + 24 + 44 + 64 + 84))
    before = scans(c)
    c.execute("SELECT count(*) FROM t WHERE n = 3")
    c.execute("SELECT id FROM t WHERE email = ? AND id IN (SELECT id FROM t)", ("e3",))  # (two readers of t)
    assert scans(c) == before


POINTS = """CREATE TABLE t (id INT PRIMARY KEY, email TEXT, n INT, price NUMERIC(8, 2), day DATE, at TIMESTAMP);
INSERT INTO t SELECT g, 'e' || (g % 20), {n}, g / 4.0, DATE '2026-01-01' + g::int,
    TIMESTAMP '2026-01-01 10:00' + g * INTERVAL '1 minute' FROM generate_series(0, 199) g"""


@pytest.mark.parametrize("declare", ["ALTER TABLE t ADD UNIQUE (email, n)", "CREATE UNIQUE INDEX u ON t (email, n)",
                                     "CREATE INDEX i ON t (email, n)"])
def test_a_point_select_by_an_index_skips_duckdb_and_finds_what_a_scan_finds(connect, declare):
    """``SELECT columns FROM t WHERE <an index's columns> = ...`` is answered from the index,
    as a primary-key lookup is: the rows, values and types a scan gives - the transaction's
    own inserts, deletions and updates included."""
    conn = connect()
    c = conn.cursor()
    for sql in POINTS.format(n="g % 3" if "UNIQUE" not in declare else "g / 20").split(";\n"):
        c.execute(sql)
    c.execute(declare)
    conn.commit()
    plan = [line for (line,) in c.execute("EXPLAIN SELECT * FROM t WHERE n = 1 AND email = 'e7'").fetchall()]
    name = "t_email_n_key" if "ADD UNIQUE" in declare else declare.split()[-5]
    assert plan == [f"Index lookup using {name} on t (txlake's index; DuckDB is not used)",
                    "  Key: (email, n) = (e7, 1)"]
    c.execute("INSERT INTO t VALUES (1000, 'e7', 99, 1.5, '2027-01-01', '2027-01-01 00:00')")  # own rows
    c.execute("DELETE FROM t WHERE id = 27")
    c.execute("UPDATE t SET price = price + 100 WHERE id = 47")
    c.execute("UPDATE t SET email = 'moved' WHERE id = 67")
    moved = c.execute("SELECT n FROM t WHERE id = 67").fetchone()[0]
    before = scans(c)
    found_ids = set()
    for email, n in [("e7", 0), ("e7", 1), ("e7", 2), ("e7", 3), ("moved", moved), ("nope", 1), ("e7", 99)]:
        for columns in ("*", "price, id, at", "id, email"):
            found = c.execute(f"SELECT {columns} FROM t WHERE email = ? AND n = ?", (email, n)).fetchall()
            scan = c.execute(f"SELECT {columns} FROM t WHERE email || '' = ? AND n + 0 = ?", (email, n)).fetchall()
            assert sorted(found) == sorted(scan)
            assert sorted(tuple(map(type, r)) for r in found) == sorted(tuple(map(type, r)) for r in scan)
        found_ids |= {r[0] for r in found}
    assert scans(c) == before + 21
    assert {1000, 47, 67} <= found_ids and 27 not in found_ids
    conn.rollback()


def test_a_point_select_of_many_rows_by_an_index(c):
    for sql in POINTS.format(n="g % 3").split(";\n"):
        c.execute(sql)
    c.execute("CREATE INDEX ON t (n)")
    c.execute("DELETE FROM t WHERE id = 3")
    before = scans(c)
    found = c.execute("SELECT id, price, day FROM t WHERE n = 0").fetchall()
    assert scans(c) == before + 1
    assert sorted(found) == sorted(c.execute("SELECT id, price, day FROM t WHERE n + 0 = 0").fetchall())
    assert len(found) == 66 and 3 not in {r[0] for r in found}


def test_a_composite_index_needs_every_column_pinned(c):
    filled(c)
    c.execute("CREATE INDEX i ON t (customer_id, email)")
    before = scans(c)
    assert c.execute("SELECT count(*) FROM t WHERE customer_id = 3").fetchone() == (29,)
    assert scans(c) == before
    assert c.execute("SELECT id FROM t WHERE email = ? AND customer_id = ? ORDER BY id", ("e3", 3)).fetchall() == \
        [(3,), (143,)]
    assert scans(c) == before + 1
    # a value of another type than the column's: the scan (DuckDB's casts decide)
    assert c.execute("SELECT count(*) FROM t WHERE email = 'e3' AND customer_id = '3'").fetchone() == (2,)


def test_own_writes_deleted_and_updated_rows(connect):
    conn = connect()
    c = conn.cursor()
    filled(c)
    c.execute("CREATE INDEX ON t (email)")
    conn.commit()
    c.execute("INSERT INTO t VALUES (1000, 'e3', 0, 0)")              # own uncommitted row
    c.execute("DELETE FROM t WHERE id = 3")                            # own deletion
    c.execute("UPDATE t SET email = 'moved' WHERE id = 23")            # a row whose value moves away
    c.execute("UPDATE t SET email = 'e3' WHERE id = 24")               # ... and one moving in
    c.execute("UPDATE t SET n = 99 WHERE id = 43")                      # a row updated, its value kept
    expect = sorted([1000, 24, 43] + list(range(63, 200, 20)))
    assert sorted(r[0] for r in c.execute("SELECT id FROM t WHERE email = 'e3'").fetchall()) == expect
    assert c.execute("SELECT n FROM t WHERE email = 'e3' AND id = 43").fetchall() == [(99,)]
    assert c.execute("SELECT count(*) FROM t WHERE email = 'moved'").fetchone() == (1,)
    conn.commit()
    c.execute("VACUUM")                                                # compacted files: looked up again
    assert sorted(r[0] for r in c.execute("SELECT id FROM t WHERE email = 'e3'").fetchall()) == expect


@pytest.mark.parametrize("level", LEVELS)
def test_rows_others_commit_after_the_snapshot(connect, level):
    setup = connect(autocommit=True).cursor()
    filled(setup)
    setup.execute("CREATE INDEX ON t (email)")
    reader, writer = connect(), connect(autocommit=True).cursor()
    r = reader.cursor()
    r.execute(f"BEGIN ISOLATION LEVEL {level}")
    assert r.execute("SELECT count(*) FROM t WHERE email = 'e5'").fetchone() == (10,)
    writer.execute("INSERT INTO t VALUES (500, 'e5', 0, 0)")
    writer.execute("DELETE FROM t WHERE id = 5")
    writer.execute("UPDATE t SET email = 'e6' WHERE id = 25")
    seen = sorted(x for (x,) in r.execute("SELECT id FROM t WHERE email = 'e5'").fetchall())
    scan = sorted(x for (x,) in r.execute("SELECT id FROM t WHERE email || '' = 'e5'").fetchall())
    assert seen == scan
    if level == "READ COMMITTED":
        assert seen == sorted([500] + list(range(45, 200, 20)))
    else:
        assert seen == list(range(5, 200, 20))
    reader.rollback()


def test_read_committed_update_through_the_index_waits_and_rechecks(connect):
    import threading
    setup = connect(autocommit=True).cursor()
    filled(setup)
    setup.execute("CREATE INDEX ON t (email)")
    a, b = connect(isolation_level="READ COMMITTED"), connect(isolation_level="READ COMMITTED")
    a.cursor().execute("UPDATE t SET email = 'gone' WHERE id = 6")    # holds row 6
    done = []
    t = threading.Thread(target=lambda: done.append(b.cursor().execute(
        "UPDATE t SET n = -1 WHERE email = 'e6'").rowcount))
    t.start()
    t.join(0.5)
    a.commit()
    t.join(60)
    assert done == [9]                                                  # row 6 no longer matches
    b.commit()
    assert setup.execute("SELECT count(*) FROM t WHERE n = -1").fetchone() == (9,)


def test_foreign_key_checks_find_referencing_rows_through_the_index(c):
    c.execute("CREATE TABLE p (id INT PRIMARY KEY)")
    c.execute("CREATE TABLE ch (id INT PRIMARY KEY, p_id INT REFERENCES p ON DELETE CASCADE, q INT)")
    c.executemany("INSERT INTO p VALUES (?)", [(i,) for i in range(10)])
    c.executemany("INSERT INTO ch VALUES (?, ?, ?)", [(i, i % 10, i) for i in range(100)])
    c.execute("DELETE FROM p WHERE id = 2")
    before = scans(c)
    c.execute("CREATE INDEX ON ch (p_id)")
    c.execute("DELETE FROM p WHERE id = 3")
    assert scans(c) > before                                           # the search for ch's rows of p 3
    assert c.execute("SELECT count(*) FROM ch WHERE p_id = 3").fetchone() == (0,)
    assert c.execute("SELECT count(*) FROM ch").fetchone() == (80,)
    c.execute("CREATE TABLE r (id INT PRIMARY KEY, p_id INT REFERENCES p)")
    c.execute("INSERT INTO r VALUES (1, 4)")
    c.execute("CREATE INDEX ON r (p_id)")
    assert error_of(c, "DELETE FROM p WHERE id = 4")[0] == "23503"
    c.execute("DELETE FROM p WHERE id = 5")                            # referenced by ch only: cascaded
    assert c.execute("SELECT count(*) FROM ch").fetchone() == (70,)


# --- IN lists and the primary key: the general path's candidates --------------------------------

def test_in_lists_and_primary_keys_narrow_what_duckdb_reads(connect):
    """``WHERE key IN (...)`` / ``= ANY(?)`` over a one-column primary key, UNIQUE column or
    index, and ``=`` on the primary key in a query the point path does not take (ORDER BY, an
    aggregate, another condition), read only the rows the key gives - the rows a scan finds,
    the transaction's own writes included; values of another type, or too many, scan."""
    conn = connect()
    c = conn.cursor()
    for sql in POINTS.format(n="g % 3").split(";\n"):
        c.execute(sql)
    c.execute("ALTER TABLE t ADD UNIQUE (email, id)")  # (two columns: IN lists pass it by)
    c.execute("CREATE INDEX ON t (n)")
    conn.commit()
    c.execute("INSERT INTO t VALUES (1000, 'e7', 1, 1.5, '2027-01-01', '2027-01-01 00:00')")
    c.execute("DELETE FROM t WHERE id = 27")
    c.execute("UPDATE t SET n = 2 WHERE id = 47")
    cases = [
        ("SELECT id, upper(email) FROM t WHERE id IN (7, 27, 47, 1000, 5000, 7) ORDER BY id", (), "t_pkey"),
        ("SELECT id FROM t WHERE id IN (?, ?, NULL) AND price > 1 ORDER BY 1", (47, 1000), "t_pkey"),
        ("SELECT sum(price) FROM t WHERE id = ANY(?)", ([7, 27, 47, 1000],), "t_pkey"),
        ("SELECT count(*) FROM t WHERE id = ?", (47,), "t_pkey"),
        ("SELECT n, count(*) FROM t WHERE n IN (1, 2) GROUP BY n ORDER BY n", (), "t_n_idx"),
        ("SELECT id FROM t WHERE t.n = ANY(?) AND id < 20 ORDER BY id", ([2],), "t_n_idx"),
        # a LIMIT's or the select list's ? besides the WHERE clause's (a parsed SELECT holds its
        # LIMIT before its WHERE: the key's ? is found in the order they bind)
        ("SELECT id, ?::text FROM t WHERE id IN (?, ?) AND price > 0 ORDER BY id LIMIT ? OFFSET ?",
         ("x", 7, 47, 5, 0), "t_pkey"),
        ("SELECT count(*) FROM t WHERE n IN (?, ?) LIMIT ?", (1, 2, 5), "t_n_idx"),
        ("SELECT id + 0 FROM t WHERE id = ? LIMIT ?", (47, 3), "t_pkey"),
    ]
    before = scans(c)
    for sql, params, index in cases:
        plan = [line for (line,) in c.execute(f"EXPLAIN {sql}", params).fetchall()]
        assert plan[0].startswith(f"Index Scan using {index} on t ("), sql
        scan = sql.replace("WHERE id", "WHERE id + 0").replace("WHERE t.n", "WHERE t.n + 0").replace(
            "WHERE n", "WHERE n + 0")
        assert c.execute(sql, params).fetchall() == c.execute(scan, params).fetchall(), sql
    assert scans(c) == before + 2 * len(cases)  # (EXPLAIN's and the query's)
    assert c.execute("SELECT id FROM t WHERE id IN (7, 27, 47, 1000) ORDER BY id").fetchall() == \
        [(7,), (47,), (1000,)]
    before = scans(c)
    for sql, params in [("SELECT count(*) FROM t WHERE id IN ('7', '8')", ()),   # another type: DuckDB casts
                        ("SELECT count(*) FROM t WHERE id IN (7, 8.5)", ()),
                        ("SELECT count(*) FROM t WHERE id = ANY(?)", ([7, 8.5],)),
                        ("SELECT count(*) FROM t WHERE id NOT IN (7, 8)", ()),
                        ("SELECT count(*) FROM t WHERE id IN (SELECT 7)", ()),
                        ("SELECT count(*) FROM t WHERE id IN (7, 8) OR n = 1", ())]:
        c.execute(sql, params)
    assert scans(c) == before
    conn.rollback()


def test_update_and_delete_by_an_in_list(c):
    filled(c)
    c.execute("CREATE INDEX ON t (customer_id)")
    before = scans(c)
    assert c.execute("UPDATE t SET n = -n WHERE id IN (?, ?, ?)", (3, 4, 999)).rowcount == 2
    assert c.execute("DELETE FROM t WHERE customer_id IN (1, 2) AND n > 100").rowcount == 28
    assert c.execute("DELETE FROM t WHERE id = ANY(?) RETURNING id", ([5, 6, 7],)).fetchall() == [(5,), (6,), (7,)]
    assert scans(c) == before + 3
    assert c.execute("SELECT id, n FROM t WHERE id IN (3, 4)").fetchall() == [(3, -3), (4, -4)]
    assert c.execute("SELECT count(*) FROM t").fetchone() == (200 - 28 - 3,)


JOINS = [  # (query with each pinned column in braces, the lines EXPLAIN begins with)
    ("SELECT a.name, upper(b.v) FROM b JOIN a ON a.id = b.a_id WHERE {b.id} = ?", ["b_pkey on b", "a_pkey on a"]),
    ("SELECT x.name, y.v FROM b AS y JOIN a AS x ON x.id = y.a_id WHERE {y.id} IN (5, 6, 999) ORDER BY 2",
     ["b_pkey on b y", "a_pkey on a x"]),
    ("SELECT a.name, b.v, c.w FROM c JOIN b ON b.id = c.b_id INNER JOIN a ON a.id = b.a_id WHERE {c.id} = 2",
     ["c_pkey on c", "b_pkey on b", "a_pkey on a"]),                         # a chain of key lookups
    ("SELECT b.id, c.id FROM b LEFT JOIN c ON c.b_id = b.id WHERE {b.id} IN (4, 5) ORDER BY 1, 2",
     ["b_pkey on b"]),                                                           # (ON of an outer join: no more)
    ("SELECT a.id, b.id FROM a LEFT JOIN b ON true WHERE b.a_id = a.id AND {b.id} = 9", ["b_pkey on b", "a_pkey on a"]),
    ("SELECT a.id, b.id FROM a LEFT JOIN b ON b.a_id = a.id WHERE {b.id} = ? ORDER BY 1", ["b_pkey on b"]),
    ("SELECT a.id, b.id FROM a LEFT JOIN b ON b.a_id = a.id WHERE {a.id} IN (3, 4, 100) ORDER BY 1, 2",
     ["a_pkey on a"]),
    ("SELECT a.id, b.id FROM a RIGHT JOIN b ON b.a_id = a.id AND b.v <> 'v1' WHERE {b.a_id} = 3 ORDER BY 2",
     ["b_a_id_idx on b"]),
    ("SELECT a.id, b.id FROM a FULL JOIN b ON b.a_id = a.id WHERE {a.id} = ANY(?) ORDER BY 1, 2", ["a_pkey on a"]),
    ("SELECT count(*) FROM a, b WHERE a.id = b.a_id AND {b.a_id} = 7 AND {a.id} = 7",
     ["a_pkey on a", "b_a_id_idx on b"]),
    ("SELECT a.id, b.v FROM a JOIN b ON b.a_id = a.id WHERE {a.id} IN (3, 4) ORDER BY 2",
     ["a_pkey on a", "b_a_id_idx on b"]),                                       # through an index: many rows
    ("SELECT a.name, count(b.id) FROM a LEFT JOIN b ON b.a_id = a.id WHERE {a.id} IN (3, 4) GROUP BY a.name "
     "HAVING count(*) > 0 ORDER BY 1", ["a_pkey on a"]),
    ("SELECT a.id, b.id FROM a CROSS JOIN b WHERE {b.id} = 5 AND a.name = 'n2'", ["b_pkey on b"]),
]


@pytest.mark.parametrize("level", ["READ COMMITTED", "REPEATABLE READ"])
def test_a_join_narrows_the_tables_its_where_pins_by_a_key(connect, level):
    """A join whose WHERE pins a table's key (``alias.column = value``, IN lists) has DuckDB
    join only that table's rows the key gives - outer joins too, where a null-extended row
    fails the condition anyway: the rows the join of whole tables gives, the transaction's
    own writes and (READ COMMITTED) others' commits included."""
    setup = connect(autocommit=True).cursor()
    setup.execute("CREATE TABLE a (id INT PRIMARY KEY, name TEXT)")
    setup.execute("CREATE TABLE b (id INT PRIMARY KEY, a_id INT, v TEXT)")
    setup.execute("CREATE INDEX ON b (a_id)")
    setup.execute("CREATE TABLE c (id INT PRIMARY KEY, b_id INT, w TEXT)")
    setup.execute("INSERT INTO c SELECT g, g * 3, 'w' || g FROM generate_series(1, 50) g")
    setup.execute("INSERT INTO a SELECT g, 'n' || g FROM generate_series(1, 100) g")
    setup.execute("INSERT INTO b SELECT g, g % 50 + 1, 'v' || g FROM generate_series(1, 300) g")
    conn = connect(isolation_level=level)
    c = conn.cursor()
    c.execute("SELECT count(*) FROM b")  # (the snapshot)
    c.execute("INSERT INTO b VALUES (1000, 3, 'mine'), (1001, NULL, 'orphan')")
    c.execute("DELETE FROM b WHERE id = 6")
    c.execute("UPDATE a SET name = 'renamed' WHERE id = 4")
    c.execute("UPDATE b SET a_id = 4 WHERE id = 9")                   # (a key the join follows, moved)
    setup.execute("INSERT INTO b VALUES (2000, 7, 'theirs')")
    setup.execute("DELETE FROM a WHERE id = 2")
    before = scans(c)
    for template, lines in JOINS:
        params = (5,) if "?" in template and "ANY" not in template else (([3, 51, 100],) if "ANY" in template else ())
        sql = template.replace("{", "").replace("}", "")
        whole = template.replace("{", "").replace("}", " + 0")
        plan = [line for (line,) in c.execute(f"EXPLAIN {sql}", params).fetchall()]
        assert [line.split("using ")[1].split(" (")[0] for line in plan[:len(lines)]] == lines, sql
        assert c.execute(sql, params).fetchall() == c.execute(whole, params).fetchall(), sql
    assert scans(c) == before + 2 * sum(len(lines) for _, lines in JOINS)
    before = scans(c)
    for sql in ["SELECT count(*) FROM a JOIN b ON a.id = b.a_id WHERE a_id = 5",        # a bare name: not narrowed
                "SELECT count(*) FROM a JOIN b USING (id) WHERE a.id = 5",              # USING
                "SELECT count(*) FROM b JOIN b AS c ON c.id = b.a_id WHERE b.id = 5",   # a table twice
                "SELECT count(*) FROM a JOIN b ON a.id = b.a_id WHERE b.id = 5 OR a.id = 1",
                "SELECT count(*) FROM a JOIN b ON a.id = b.a_id WHERE b.id IN (SELECT 5)"]:
        c.execute(sql)
    assert scans(c) == before
    conn.rollback()


def test_integers_no_key_column_can_hold_match_nothing(c):
    """A value past an integer key's range - in IN, = ANY(?), = ? - matches no row, as the
    scan says (it was an OverflowError); LIMIT past bigint is DuckDB's 22003, as before."""
    c.execute("CREATE TABLE t (id BIGINT PRIMARY KEY, g INT)")
    c.execute("CREATE INDEX ON t (g)")
    c.execute("INSERT INTO t VALUES (1, 10), (2, 20)")
    big = 2 ** 70
    assert c.execute("SELECT id FROM t WHERE id IN (?, 1)", (big,)).fetchall() == [(1,)]
    assert c.execute("SELECT id FROM t WHERE id = ANY(?)", ([big, 2],)).fetchall() == [(2,)]
    assert c.execute("SELECT id FROM t WHERE g IN (?, 10)", (2 ** 40,)).fetchall() == [(1,)]
    assert c.execute("SELECT id FROM t WHERE id = ?", (big,)).fetchall() == []
    assert c.execute("UPDATE t SET g = 11 WHERE id IN (?, 1)", (big,)).rowcount == 1
    assert c.execute("DELETE FROM t WHERE id = ANY(?)", ([big],)).rowcount == 0
    assert error_of(c, "SELECT id FROM t WHERE g = 11 LIMIT ?", (big,))[0] == "22003"


def test_a_join_of_a_text_key_and_a_uuid_column_is_not_narrowed_by_its_values(c):
    """Values of another kind compare as DuckDB's casts decide (text = uuid): the text key is
    not looked up by the uuid's canonical text - it would drop 'AAAA...' that the cast matches."""
    c.execute("CREATE TABLE a (k VARCHAR PRIMARY KEY, v INT)")
    c.execute("CREATE TABLE b (id INT PRIMARY KEY, u UUID)")
    u = "aaaaaaaa-0000-0000-0000-000000000001"
    c.execute("INSERT INTO a VALUES (?, 1), (?, 2)", (u.upper(), u))
    c.execute("INSERT INTO b VALUES (1, ?)", (u,))
    sql = "SELECT a.v FROM a JOIN b ON a.k = b.u WHERE b.id {} = ? ORDER BY 1"
    assert c.execute(sql.format(""), (1,)).fetchall() == c.execute(sql.format("+ 0"), (1,)).fetchall()


def test_indexdef_quotes_names_as_postgresql_does(c):
    """pg_indexes.indexdef wrote names bare: ``(user)`` for a column "user", ``ON public.U`` for a
    table "U" - text that does not run. Names are quoted as quote_ident quotes them, which now
    also quotes PostgreSQL's reserved SQL-value functions (quote_ident('user') was bare: review)."""
    c.execute('CREATE TABLE "U" ("user" TEXT PRIMARY KEY, "Email" TEXT UNIQUE, n INT)')
    c.execute('CREATE INDEX ON "U" ("user", n)')
    c.execute('CREATE UNIQUE INDEX "Low" ON "U" (lower("Email"))')
    assert indexdefs(c, "U") == [
        ("Low", 'CREATE UNIQUE INDEX "Low" ON public."U" USING btree (lower("Email"))'),
        ("U_Email_key", 'CREATE UNIQUE INDEX "U_Email_key" ON public."U" USING btree ("Email")'),
        ("U_pkey", 'CREATE UNIQUE INDEX "U_pkey" ON public."U" USING btree ("user")'),
        ("U_user_n_idx", 'CREATE INDEX "U_user_n_idx" ON public."U" USING btree ("user", n)')]
    assert c.execute("SELECT quote_ident('user'), quote_ident('current_user'), quote_ident('users')").fetchone() == (
        '"user"', '"current_user"', "users")
