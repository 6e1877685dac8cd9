"""Data-modifying statements in WITH, as PostgreSQL 16's (queries.sgml "Data-Modifying
Statements in WITH", src/test/regress/expected/with.out): each runs once, in order; every part
sees the statement's snapshot, the changes reached only through RETURNING; one statement, undone
as one."""

import datetime
import decimal
import threading

import pytest

import txlake
from txlake import errors
from tests.conftest import rows as q


@pytest.fixture
def c(connect):
    conn = connect(autocommit=True)
    conn.execute("CREATE TABLE t (id INT PRIMARY KEY, name TEXT NOT NULL, amount NUMERIC(10, 2), at TIMESTAMP)")
    conn.execute("CREATE TABLE archive (id INT PRIMARY KEY, name TEXT NOT NULL, amount NUMERIC(10, 2), at TIMESTAMP)")
    conn.execute("INSERT INTO t VALUES (1, 'a', 1.50, '2024-01-02 03:04:05'), (2, 'b', 2.25, NULL), "
                 "(3, 'c', NULL, '2024-05-06 07:08:09.5')")
    return conn


def test_deleted_rows_move_to_another_table(c):
    """The DELETE's RETURNING rows are what the INSERT reads, with their types and NULLs; the
    row count and command tag are the INSERT's (it was 0A000)."""
    cur = c.execute("WITH moved AS (DELETE FROM t WHERE id >= ? RETURNING *) INSERT INTO archive SELECT * FROM moved",
                    (2,))
    assert (cur.rowcount, cur.statusmessage, cur.description) == (2, "INSERT 0 2", None)
    assert q(c, "SELECT * FROM t") == [(1, "a", decimal.Decimal("1.50"), datetime.datetime(2024, 1, 2, 3, 4, 5))]
    assert q(c, "SELECT * FROM archive ORDER BY id") == [
        (2, "b", decimal.Decimal("2.25"), None), (3, "c", None, datetime.datetime(2024, 5, 6, 7, 8, 9, 500000))]


def test_returning_rows_keep_their_types(c):
    c.execute("CREATE TYPE mood AS ENUM ('sad', 'happy')")
    columns = "(id INT PRIMARY KEY, m mood, u UUID, j JSONB, arr INT[], b BYTEA, ts TIMESTAMPTZ, r REAL)"
    c.execute(f"CREATE TABLE kinds {columns}")
    c.execute(f"CREATE TABLE kept {columns}")
    c.execute("INSERT INTO kinds VALUES (1, 'happy', 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11', '{\"k\": [1, 2.5]}', "
              "'{1,NULL}', '\\x00ff', '2024-01-01 12:00:00.123456+02', 0.1)")
    rows = q(c, "SELECT * FROM kinds")
    assert q(c, "WITH d AS (DELETE FROM kinds RETURNING *) INSERT INTO kept SELECT * FROM d RETURNING *") == rows
    assert q(c, "WITH d AS (DELETE FROM kept RETURNING *) SELECT * FROM d") == rows
    with pytest.raises(errors.ProgrammingError) as e:  # (what reads the rows is no function of the user's)
        c.execute("SELECT * FROM __txl_returned('d')")
    assert e.value.sqlstate == "42883"


def test_the_main_query_reads_the_returning_rows_and_the_snapshot_before(c):
    """The statement's parts all see one snapshot: the main query reads the tables as they were
    before the CTEs changed them (PostgreSQL's with.out: ``WITH t AS (UPDATE y SET a = a + 1
    RETURNING *) SELECT * FROM y`` shows the old values); the RETURNING rows are the new ones."""
    cur = c.execute("WITH u AS (UPDATE t SET amount = amount * 2 RETURNING id, amount) "
                    "SELECT u.id, u.amount, t.amount AS before FROM u JOIN t USING (id) ORDER BY id")
    assert (cur.rowcount, cur.statusmessage) == (3, "SELECT 3")
    assert [d[0] for d in cur.description] == ["id", "amount", "before"]
    assert cur.fetchall() == [(1, decimal.Decimal("3.00"), decimal.Decimal("1.50")),
                              (2, decimal.Decimal("4.50"), decimal.Decimal("2.25")), (3, None, None)]
    assert q(c, "WITH d AS (DELETE FROM t RETURNING *) SELECT count(*) FROM t") == [(3,)]
    assert q(c, "SELECT count(*) FROM t") == [(0,)]
    assert q(c, "WITH i AS (INSERT INTO t VALUES (7, 'g') RETURNING id) SELECT (SELECT count(*) FROM t), id FROM i") \
        == [(0, 7)]
    # an INSERT's query reads its own table as it was, too: the row a CTE added is not copied
    c.execute("WITH i AS (INSERT INTO t VALUES (8, 'h')) INSERT INTO t SELECT id + 100, name FROM t")
    assert q(c, "SELECT id FROM t ORDER BY id") == [(7,), (8,), (107,)]


def test_each_part_runs_once_in_order_whether_read_or_not(c):
    c.execute("CREATE TABLE log (n SERIAL PRIMARY KEY, what TEXT)")
    c.execute("WITH a AS (INSERT INTO log (what) VALUES ('first')), b AS (INSERT INTO log (what) VALUES ('second') "
              "RETURNING n) SELECT 1")
    assert q(c, "SELECT n, what FROM log ORDER BY n") == [(1, "first"), (2, "second")]
    # named twice: its rows are read twice, the INSERT (and its nextval) ran once
    assert q(c, "WITH i AS (INSERT INTO log (what) VALUES ('third') RETURNING n) SELECT * FROM i, i AS j") == [(3, 3)]
    assert q(c, "SELECT count(*) FROM log") == [(3,)]
    # its columns named by the CTE, or by the reference (which the plain CTEs of a write forgot)
    cur = c.execute("WITH i(k) AS (INSERT INTO log (what) VALUES ('4th') RETURNING n, what) SELECT * FROM i")
    assert [d[0] for d in cur.description] == ["k", "what"] and cur.fetchall() == [(4, "4th")]
    cur = c.execute("WITH i(k) AS (INSERT INTO log (what) VALUES ('5th') RETURNING n, what) SELECT * FROM i AS x(z)")
    assert [d[0] for d in cur.description] == ["z", "what"]
    cur = c.execute("WITH s(k) AS (SELECT 6, '6th') INSERT INTO log SELECT x.z, x.what FROM s AS x(z, what) "
                    "RETURNING n")
    assert cur.fetchall() == [(6,)]
    # an empty RETURNING: no rows, its columns typed
    assert q(c, "WITH d AS (DELETE FROM log WHERE n > 10 RETURNING n, what) SELECT count(*), min(n) + 1 FROM d") \
        == [(0, None)]


def test_the_upsert_that_reports(c):
    """``WITH u AS (UPDATE ... RETURNING) INSERT ... WHERE NOT EXISTS (SELECT FROM u)``: one of
    the two writes, parameters taken in the text's order across the parts."""
    sql = ("WITH u AS (UPDATE t SET name = ? WHERE id = ? RETURNING id) "
           "INSERT INTO t (id, name) SELECT ?, ? WHERE NOT EXISTS (SELECT 1 FROM u) RETURNING id, name")
    assert q(c, sql, ("A", 1, 1, "A")) == []
    assert q(c, sql, ("N", 9, 9, "N")) == [(9, "N")]
    assert q(c, "SELECT id, name FROM t ORDER BY id") == [(1, "A"), (2, "b"), (3, "c"), (9, "N")]
    cur = c.execute("WITH x(k, label) AS (DELETE FROM t WHERE id = ? RETURNING id, name) "
                    "UPDATE archive SET name = label FROM x WHERE archive.id = x.k", (9,))
    assert (cur.rowcount, cur.statusmessage) == (0, "UPDATE 0")
    assert q(c, "SELECT count(*) FROM t WHERE id = 9") == [(0,)]


def test_an_error_in_any_part_undoes_the_whole_statement(c):
    c.execute("INSERT INTO archive VALUES (3, 'old', NULL, NULL)")
    with pytest.raises(errors.UniqueViolation):  # (the main INSERT fails after the DELETE ran)
        c.execute("WITH moved AS (DELETE FROM t RETURNING *) INSERT INTO archive SELECT * FROM moved")
    with pytest.raises(errors.NotNullViolation):  # (the CTE fails after an earlier one ran)
        c.execute("WITH d AS (DELETE FROM archive), u AS (UPDATE t SET name = NULL WHERE id = 2) SELECT 1")
    assert q(c, "SELECT count(*) FROM t") == [(3,)]
    assert q(c, "SELECT id, name FROM archive") == [(3, "old")]
    c.autocommit = False
    c.execute("DELETE FROM t WHERE id = 1")
    c.execute("SAVEPOINT s")
    with pytest.raises(errors.UniqueViolation):
        c.execute("WITH moved AS (DELETE FROM t RETURNING *) INSERT INTO archive SELECT * FROM moved")
    with pytest.raises(errors.InFailedTransaction):
        c.execute("SELECT 1")
    c.execute("ROLLBACK TO SAVEPOINT s")
    assert q(c, "SELECT id FROM t ORDER BY id") == [(2,), (3,)]
    assert q(c, "SELECT id FROM archive") == [(3,)]
    c.rollback()
    assert q(c, "SELECT count(*) FROM t") == [(3,)]


def test_foreign_keys_are_checked_when_every_part_has_run(c):
    """PostgreSQL fires its referential triggers at the statement's end: a referenced key
    deleted by a CTE and inserted again by the main statement passes NO ACTION."""
    c.execute("CREATE TABLE child (id INT PRIMARY KEY, t_id INT REFERENCES t (id))")
    c.execute("INSERT INTO child VALUES (10, 1)")
    c.execute("WITH d AS (DELETE FROM t WHERE id = 1 RETURNING *) INSERT INTO t SELECT id, 'again', amount, at FROM d")
    assert q(c, "SELECT name FROM t WHERE id = 1") == [("again",)]
    with pytest.raises(errors.ForeignKeyViolation):
        c.execute("WITH d AS (DELETE FROM t WHERE id = 1 RETURNING *) INSERT INTO archive SELECT * FROM d")
    assert q(c, "SELECT count(*) FROM t WHERE id = 1") == [(1,)]


def test_refused_as_postgresql_refuses_them(c):
    for sql, message in [
            ("SELECT * FROM (WITH d AS (DELETE FROM t RETURNING *) SELECT * FROM d) s",
             "WITH clause containing a data-modifying statement must be at the top level"),
            ("WITH d AS (DELETE FROM t) SELECT * FROM d", 'WITH query "d" does not have a RETURNING clause'),
            ("WITH m AS (MERGE INTO t USING archive a ON t.id = a.id WHEN MATCHED THEN DELETE) SELECT 1",
             "MERGE not supported in WITH query"),
            ("WITH RECURSIVE d AS (DELETE FROM t RETURNING *) SELECT * FROM d", "WITH RECURSIVE"),
            # a row changed twice: PostgreSQL applies one of the changes (which, it does not say)
            ("WITH u AS (UPDATE t SET name = 'x' WHERE id = 1) UPDATE t SET name = 'y' WHERE id = 1",
             'changing table "t" again'),
            ("WITH d AS (DELETE FROM t WHERE id = 1) SELECT * FROM t FOR UPDATE", 'locking rows of table "t"')]:
        with pytest.raises(errors.NotSupportedError, match=message) as e:
            c.execute(sql)
        assert e.value.sqlstate == "0A000"
    assert q(c, "SELECT id, name FROM t ORDER BY id") == [(1, "a"), (2, "b"), (3, "c")]


def test_concurrent_queue_pops_take_different_jobs_without_waiting(connect):
    """Two workers pop a job each - a locking CTE picks it (FOR UPDATE SKIP LOCKED), a
    data-modifying one claims it, the main statement logs it - while the other holds its own
    job uncommitted: neither waits, no job is taken twice."""
    setup = connect(autocommit=True)
    setup.execute("CREATE TABLE jobs (id INT PRIMARY KEY, state TEXT)")
    setup.execute("CREATE TABLE taken (job INT PRIMARY KEY, worker TEXT)")
    setup.execute("INSERT INTO jobs SELECT i, 'queued' FROM range(1, 6) t(i)")
    pop = ("WITH next AS (SELECT id FROM jobs WHERE state = 'queued' ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED), "
           "claimed AS (UPDATE jobs SET state = 'running' FROM next WHERE jobs.id = next.id RETURNING jobs.id) "
           "INSERT INTO taken SELECT id, ? FROM claimed RETURNING job")
    popped, both_hold, errors_seen = {}, threading.Barrier(2, timeout=30), []

    def worker(name):
        try:
            conn = connect(isolation_level="READ COMMITTED")
            conn.execute("SET lock_timeout = '200ms'")
            popped[name] = conn.execute(pop, (name,)).fetchall()
            both_hold.wait()  # (each holds its job while the other pops)
            conn.commit()
        except Exception as e:  # (reported below)
            errors_seen.append(e)
            both_hold.abort()

    threads = [threading.Thread(target=worker, args=(name,)) for name in ("w1", "w2")]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors_seen
    assert sorted(popped.values()) == [[(1,)], [(2,)]]
    assert setup.execute("SELECT job, worker FROM taken ORDER BY job").fetchall() == \
        sorted((ids[0][0], name) for name, ids in popped.items())
    assert setup.execute("SELECT id FROM jobs WHERE state = 'running' ORDER BY id").fetchall() == [(1,), (2,)]


def test_prepared_and_repeated(c):
    """A cached statement runs again on new rows; PREPARE / EXECUTE takes it too."""
    sql = "WITH d AS (DELETE FROM t WHERE id = ? RETURNING name) SELECT upper(name) FROM d"
    assert [q(c, sql, (i,)) for i in (1, 1, 2)] == [[("A",)], [], [("B",)]]
    c.execute("PREPARE p AS WITH d AS (DELETE FROM t WHERE id = $1 RETURNING id) INSERT INTO archive (id, name) "
              "SELECT id, 'moved' FROM d")
    assert c.execute("EXECUTE p(3)").rowcount == 1
    assert q(c, "SELECT id, name FROM archive") == [(3, "moved")]
    with pytest.raises(txlake.NotSupportedError):
        c.execute("EXPLAIN WITH d AS (DELETE FROM t RETURNING *) SELECT * FROM d")


def test_read_committed_reads_what_committed_before_the_statement(c, connect):
    """READ COMMITTED: the statement's snapshot is taken at its start - the main query sees a
    commit made since the transaction's previous statement (and the transaction's own earlier
    writes), not the rows its CTE changed."""
    a = connect(isolation_level="READ COMMITTED")
    a.execute("INSERT INTO t (id, name) VALUES (4, 'mine')")
    c.execute("UPDATE t SET name = 'theirs' WHERE id = 2")
    assert q(a, "WITH d AS (DELETE FROM t WHERE id IN (1, 4) RETURNING id) SELECT id, name FROM t ORDER BY id") == [
        (1, "a"), (2, "theirs"), (3, "c"), (4, "mine")]
    assert q(a, "SELECT id FROM t ORDER BY id") == [(2,), (3,)]
    a.commit()


def test_each_part_takes_its_table_locks(c, connect):
    """A CTE's write takes ROW EXCLUSIVE on its table before the statement runs, as the write
    alone does: a SHARE lock another transaction holds makes it wait (here: 55P03)."""
    holder = connect()
    holder.execute("LOCK TABLE archive IN SHARE MODE")
    c.execute("SET lock_timeout = '100ms'")
    with pytest.raises(txlake.LockNotAvailable):
        c.execute("WITH moved AS (INSERT INTO archive (id, name) VALUES (9, 'x') RETURNING id) SELECT * FROM moved")
    holder.rollback()
    assert q(c, "WITH moved AS (INSERT INTO archive (id, name) VALUES (9, 'x') RETURNING id) SELECT * FROM moved") \
        == [(9,)]
