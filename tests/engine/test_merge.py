"""MERGE (PostgreSQL 15-17): clauses, their order and conditions, 21000, constraints,
parameters, rollback, RETURNING - and concurrent MERGEs at each isolation level, in threads."""

import threading
import time

import pytest

import txlake
from txlake import errors
from tests.conftest import run_python

LEVELS = ["READ COMMITTED", "REPEATABLE READ", "SERIALIZABLE"]


@pytest.fixture
def c(connect):
    conn = connect(autocommit=True)
    conn.execute("CREATE TABLE t (k INT PRIMARY KEY, v INT NOT NULL, note VARCHAR(5) DEFAULT 'new')")
    conn.execute("INSERT INTO t VALUES (1, 10, 'a'), (2, 20, 'b'), (3, 30, 'c'), (4, 40, 'd')")
    conn.execute("CREATE TABLE s (k INT, v INT)")
    conn.execute("INSERT INTO s VALUES (1, 100), (2, 200), (5, 500), (6, 600)")
    return conn


def q(conn, sql, params=None):
    return conn.execute(sql, params).fetchall()


def rows(conn, table="t"):
    return q(conn, f"SELECT * FROM {table} ORDER BY 1")


# --- each clause kind --------------------------------------------------------------------

def test_matched_update_and_not_matched_insert(c):
    cur = c.execute("MERGE INTO t USING s ON t.k = s.k "
                    "WHEN MATCHED THEN UPDATE SET v = t.v + s.v "
                    "WHEN NOT MATCHED THEN INSERT (k, v) VALUES (s.k, s.v)")
    assert (cur.statusmessage, cur.rowcount) == ("MERGE 4", 4)
    assert rows(c) == [(1, 110, "a"), (2, 220, "b"), (3, 30, "c"), (4, 40, "d"), (5, 500, "new"), (6, 600, "new")]


def test_matched_delete_and_do_nothing(c):
    cur = c.execute("MERGE INTO t USING s ON t.k = s.k "
                    "WHEN MATCHED AND s.v = 100 THEN DO NOTHING WHEN MATCHED THEN DELETE "
                    "WHEN NOT MATCHED THEN DO NOTHING")
    assert cur.statusmessage == "MERGE 1"                          # DO NOTHING counts no row
    assert rows(c) == [(1, 10, "a"), (3, 30, "c"), (4, 40, "d")]


def test_not_matched_by_source(c):
    cur = c.execute("MERGE INTO t USING s ON t.k = s.k "
                    "WHEN NOT MATCHED BY SOURCE AND t.k = 3 THEN DELETE "
                    "WHEN NOT MATCHED BY SOURCE THEN UPDATE SET note = 'gone', v = t.v + 1 "
                    "WHEN NOT MATCHED BY TARGET THEN INSERT VALUES (s.k, s.v)")
    assert cur.statusmessage == "MERGE 4"
    assert rows(c) == [(1, 10, "a"), (2, 20, "b"), (4, 41, "gone"), (5, 500, "new"), (6, 600, "new")]


def test_insert_default_values_serial_and_defaults(connect):
    c = connect(autocommit=True)
    c.execute("CREATE TABLE ids (id SERIAL PRIMARY KEY, label TEXT DEFAULT 'x', n INT)")
    c.execute("INSERT INTO ids (n) VALUES (0)")
    c.execute("MERGE INTO ids USING (VALUES (1), (2), (3)) AS src(n) ON ids.n = src.n "
              "WHEN NOT MATCHED AND src.n = 1 THEN INSERT DEFAULT VALUES "
              "WHEN NOT MATCHED AND src.n = 2 THEN INSERT (n) VALUES (src.n) "
              "WHEN NOT MATCHED THEN INSERT (n, label, id) VALUES (src.n, DEFAULT, DEFAULT)")
    assert rows(c, "ids") == [(1, "x", 0), (2, "x", None), (3, "x", 2), (4, "x", 3)]
    c.execute("MERGE INTO ids USING (SELECT 3 AS n) AS src ON ids.n = src.n "
              "WHEN MATCHED THEN UPDATE SET label = DEFAULT, id = DEFAULT")  # (the sequence's next: 5)
    assert q(c, "SELECT id, label FROM ids WHERE n = 3") == [(5, "x")]


# --- clause order and conditions -----------------------------------------------------------

def test_first_clause_whose_condition_holds_acts(c):
    c.execute("MERGE INTO t USING s ON t.k = s.k "
              "WHEN MATCHED AND s.v > 1000 THEN DELETE "                 # holds for none
              "WHEN MATCHED AND t.v >= 10 THEN UPDATE SET note = 'one' "  # holds for 1 and 2: acts
              "WHEN MATCHED THEN DELETE "                                 # never reached
              "WHEN NOT MATCHED AND s.v > 550 THEN INSERT VALUES (s.k, s.v, 'big') "
              "WHEN NOT MATCHED THEN INSERT VALUES (s.k, s.v, 'small')")
    assert rows(c) == [(1, 10, "one"), (2, 20, "one"), (3, 30, "c"), (4, 40, "d"), (5, 500, "small"),
                       (6, 600, "big")]


def test_a_null_condition_does_not_hold_and_no_clause_is_no_change(c):
    cur = c.execute("MERGE INTO t USING (SELECT k, NULL::int AS v FROM s) AS s ON t.k = s.k "
                    "WHEN MATCHED AND s.v > 0 THEN DELETE WHEN NOT MATCHED AND s.v IS NOT NULL THEN "
                    "INSERT VALUES (s.k, 1)")
    assert cur.statusmessage == "MERGE 0"
    assert len(rows(c)) == 4


def test_source_subquery_and_cte_and_target_alias(c):
    c.execute("WITH src AS (SELECT k, v * 2 AS v FROM s WHERE k IN (1, 5)) "
              "MERGE INTO t AS dst USING src ON dst.k = src.k "
              "WHEN MATCHED THEN UPDATE SET v = src.v WHEN NOT MATCHED THEN INSERT VALUES (src.k, src.v)")
    assert rows(c) == [(1, 200, "a"), (2, 20, "b"), (3, 30, "c"), (4, 40, "d"), (5, 1000, "new")]


def test_a_volatile_source_is_computed_once(c):
    # each row of the source is one random number: the join, the clauses and the INSERT see
    # the same one (a source computed again per step would insert another)
    c.execute("CREATE TABLE r (k INT PRIMARY KEY, x DOUBLE)")
    c.execute("MERGE INTO r USING (SELECT g AS k, random() AS x FROM generate_series(1, 50) AS s(g)) AS src "
              "ON r.k = src.k WHEN NOT MATCHED AND src.x < 0.5 THEN INSERT VALUES (src.k, src.x) "
              "WHEN NOT MATCHED THEN INSERT VALUES (src.k, src.x + 10)")
    values = [x for _, x in rows(c, "r")]
    assert len(values) == 50 and all(x < 0.5 or 10.5 <= x < 11 for x in values)


@pytest.mark.parametrize("source", ["(VALUES (1), (7), (8), (NULL)) AS s(k)",   # looked up by key
                                    "(VALUES (1.0), (7.0), (8.0), (NULL)) AS s(k)"])  # (a scan: other type)
def test_merge_sees_the_transactions_own_rows(connect, source):
    c = connect()
    c.execute("CREATE TABLE t (k INT PRIMARY KEY, v INT)")
    c.execute("INSERT INTO t VALUES (1, 1), (2, 2)")
    c.commit()
    c.execute("DELETE FROM t WHERE k = 1")
    c.execute("INSERT INTO t VALUES (7, 7)")
    cur = c.execute(f"MERGE INTO t USING {source} ON t.k = s.k "
                    "WHEN MATCHED THEN UPDATE SET v = t.v * 10 WHEN NOT MATCHED AND s.k IS NOT NULL THEN "
                    "INSERT VALUES (s.k, 0) RETURNING merge_action(), t.k, t.v")
    assert sorted(cur.fetchall(), key=lambda r: r[1]) == [("INSERT", 1, 0), ("UPDATE", 7, 70), ("INSERT", 8, 0)]
    c.commit()
    assert rows(c) == [(1, 0), (2, 2), (7, 70), (8, 0)]


def test_insert_values_of_the_source_row_star(c):
    c.execute("MERGE INTO t USING (SELECT k + 10 AS k, v, 'z' AS note FROM s) AS src ON t.k = src.k "
              "WHEN NOT MATCHED AND src.k = 11 THEN INSERT VALUES (src.*) "
              "WHEN NOT MATCHED AND src.k = 12 THEN INSERT (note, k, v) VALUES ('y', src.k, src.v)")
    assert rows(c)[4:] == [(11, 100, "z"), (12, 200, "y")]


def test_multiple_column_set_and_no_primary_key(connect):
    c = connect(autocommit=True)
    c.execute("CREATE TABLE plain (a INT, b TEXT)")
    c.execute("INSERT INTO plain VALUES (1, 'x'), (2, 'y')")
    c.execute("MERGE INTO plain p USING (VALUES (2, 'z'), (3, 'w')) AS v(a, b) ON p.a = v.a "
              "WHEN MATCHED THEN UPDATE SET (a, b) = (v.a * 10, v.b) WHEN NOT MATCHED THEN INSERT VALUES (v.a, v.b)")
    assert rows(c, "plain") == [(1, "x"), (3, "w"), (20, "z")]


# --- 21000 and constraints -----------------------------------------------------------------

def test_a_target_row_changed_twice_is_21000(c):
    with pytest.raises(errors.CardinalityViolation, match="cannot affect row a second time") as e:
        c.execute("MERGE INTO t USING (VALUES (1, 1), (1, 2)) AS s(k, v) ON t.k = s.k "
                  "WHEN MATCHED THEN UPDATE SET v = s.v")
    assert e.value.sqlstate == "21000"
    assert rows(c)[0] == (1, 10, "a")
    # two source rows joining one target row are fine when at most one of them changes it
    c.execute("MERGE INTO t USING (VALUES (1, 1), (1, 2)) AS s(k, v) ON t.k = s.k "
              "WHEN MATCHED AND s.v = 2 THEN UPDATE SET v = s.v WHEN MATCHED THEN DO NOTHING")
    assert rows(c)[0] == (1, 2, "a")


@pytest.mark.parametrize("sql, sqlstate", [
    ("MERGE INTO t USING s ON t.k = s.k WHEN MATCHED THEN UPDATE SET v = NULL", "23502"),
    ("MERGE INTO t USING s ON t.k = s.k WHEN NOT MATCHED THEN INSERT (k) VALUES (s.k)", "23502"),
    ("MERGE INTO t USING s ON t.k = s.k WHEN MATCHED THEN UPDATE SET k = 3", "23505"),
    ("MERGE INTO t USING s ON t.k + 100 = s.k WHEN NOT MATCHED THEN INSERT VALUES (s.k, s.v)", "23505"),
    ("MERGE INTO t USING (VALUES (7), (7)) AS s(k) ON t.k = s.k WHEN NOT MATCHED THEN INSERT VALUES (s.k, 0)",
     "23505"),
    ("MERGE INTO t USING s ON t.k = s.k WHEN MATCHED THEN UPDATE SET note = 'toolong'", "22001"),
    ("MERGE INTO t USING s ON t.k = s.k WHEN NOT MATCHED THEN INSERT VALUES (s.k, 1, 'toolong')", "22001"),
    ("MERGE INTO t USING s ON t.k = s.k WHEN NOT MATCHED THEN INSERT VALUES (s.k, 'abc')", "22P02"),
    ("MERGE INTO t USING s ON t.k = s.k WHEN MATCHED THEN UPDATE SET v = 1 / (s.v - s.v)", "22012"),
    ("MERGE INTO t USING s ON t.k = s.k WHEN NOT MATCHED THEN INSERT VALUES (s.k, s.v, 'x', 4)", "42601"),
    ("MERGE INTO t USING s ON t.k = s.k WHEN NOT MATCHED THEN INSERT (k, nope) VALUES (s.k, 1)", "42703"),
    ("MERGE INTO t USING s ON t.k = s.k WHEN MATCHED THEN UPDATE SET nope = 1", "42703"),
    ("MERGE INTO t USING nowhere ON t.k = nowhere.k WHEN MATCHED THEN DELETE", "42P01"),
    ("MERGE INTO t USING s ON t.k = s.k WHEN NOT MATCHED AND t.v = 1 THEN DO NOTHING", "42P01"),
    ("MERGE INTO t USING s ON t.k = s.k WHEN NOT MATCHED BY SOURCE THEN UPDATE SET v = s.v", "42P01"),
    ("MERGE INTO t USING s ON t.k = s.k WHEN MATCHED THEN INSERT VALUES (1, 1)", "42601"),
    ("MERGE INTO t USING s ON t.k = s.k WHEN MATCHED THEN DELETE WHEN MATCHED AND s.v = 1 THEN DELETE", "42601"),
    ("MERGE INTO t USING t ON t.k = t.k WHEN MATCHED THEN DELETE", "42712"),
])
def test_errors_leave_the_table_unchanged(c, sql, sqlstate):
    before = rows(c)
    with pytest.raises(txlake.Error) as e:
        c.execute(sql)
    assert e.value.sqlstate == sqlstate, str(e.value)
    assert rows(c) == before


def test_a_failed_merge_fails_the_block_and_rollback_undoes_it(connect):
    c = connect()
    c.execute("CREATE TABLE t (k INT PRIMARY KEY, v INT)")
    c.execute("INSERT INTO t VALUES (1, 1)")
    c.commit()
    c.execute("MERGE INTO t USING (VALUES (1), (2)) AS s(k) ON t.k = s.k "
              "WHEN MATCHED THEN UPDATE SET v = 100 WHEN NOT MATCHED THEN INSERT VALUES (s.k, 2)")
    assert rows(c) == [(1, 100), (2, 2)]
    c.execute("SAVEPOINT a")
    with pytest.raises(errors.UniqueViolation):      # (updates 1 first, then fails on key 2)
        c.execute("MERGE INTO t USING (VALUES (1), (2)) AS s(k) ON t.k = s.k AND s.k = 1 "
                  "WHEN MATCHED THEN UPDATE SET v = 7 WHEN NOT MATCHED THEN INSERT VALUES (s.k, 3)")
    with pytest.raises(errors.InFailedTransaction):
        c.execute("SELECT 1")
    c.execute("ROLLBACK TO SAVEPOINT a")
    assert rows(c) == [(1, 100), (2, 2)]
    c.rollback()
    assert rows(c) == [(1, 1)]


def test_read_only_transaction_refuses_merge(connect):
    c = connect(autocommit=True)
    c.execute("CREATE TABLE t (k INT PRIMARY KEY, v INT)")
    c.execute("BEGIN READ ONLY")
    with pytest.raises(txlake.Error) as e:
        c.execute("MERGE INTO t USING (SELECT 1 AS k) s ON t.k = s.k WHEN NOT MATCHED THEN INSERT VALUES (1, 1)")
    assert e.value.sqlstate == "25006"


# --- parameters ----------------------------------------------------------------------------

def test_parameters_everywhere_bind_in_text_order(c):
    sql = ("WITH src AS (SELECT ? AS k, ? AS v) "
           "MERGE INTO t USING (SELECT src.k, src.v + ? AS v FROM src) AS s ON t.k = s.k AND t.v > ? "
           "WHEN MATCHED AND s.v > ? THEN UPDATE SET v = s.v + ?, note = ? "
           "WHEN NOT MATCHED AND s.v > ? THEN INSERT VALUES (s.k, s.v * ?, ?) "
           "RETURNING merge_action(), t.k, t.v, ? AS extra")
    cur = c.execute(sql, (1, 5, 100, 0, 50, 1000, "upd", 0, 2, "ins", "x"))
    assert cur.fetchall() == [("UPDATE", 1, 1105, "x")]
    cur = c.execute(sql, (9, 5, 100, 0, 50, 1000, "upd", 0, 2, "ins", "y"))
    assert cur.fetchall() == [("INSERT", 9, 210, "y")]
    assert q(c, "SELECT * FROM t WHERE k IN (1, 9) ORDER BY k") == [(1, 1105, "upd"), (9, 210, "ins")]
    with pytest.raises(txlake.Error) as e:
        c.execute(sql, (1, 2))
    assert e.value.sqlstate == "08P01"


def test_a_cte_named_twice_takes_its_parameter_in_both_places(c):
    c.execute("WITH one AS (SELECT ? AS k) MERGE INTO t USING one ON t.k = one.k "
              "AND t.k IN (SELECT k FROM one) WHEN MATCHED THEN DELETE", (2,))
    assert [k for k, *_ in rows(c)] == [1, 3, 4]


# --- RETURNING -----------------------------------------------------------------------------

def test_returning_every_action_with_the_source_row(c):
    cur = c.execute("MERGE INTO t USING s ON t.k = s.k "
                    "WHEN MATCHED AND s.v > 150 THEN DELETE "
                    "WHEN MATCHED THEN UPDATE SET v = t.v + s.v "
                    "WHEN NOT MATCHED AND s.k = 6 THEN DO NOTHING "
                    "WHEN NOT MATCHED THEN INSERT (k, v) VALUES (s.k, s.v) "
                    "WHEN NOT MATCHED BY SOURCE AND t.k = 4 THEN UPDATE SET note = 'gone' "
                    "RETURNING merge_action(), t.*, s.v AS sv")
    assert [d[0] for d in cur.description] == ["merge_action", "k", "v", "note", "sv"]
    assert sorted(cur.fetchall(), key=lambda r: r[1]) == [
        ("UPDATE", 1, 110, "a", 100), ("DELETE", 2, 20, "b", 200), ("UPDATE", 4, 40, "gone", None),
        ("INSERT", 5, 500, "new", 500)]
    cur = c.execute("MERGE INTO t USING (SELECT 3 AS k) AS s ON t.k = s.k WHEN MATCHED THEN DELETE RETURNING *")
    assert [d[0] for d in cur.description] == ["k", "v", "note", "k"]
    assert cur.fetchall() == [(3, 30, "c", 3)]


# --- concurrency: real threads --------------------------------------------------------------

COUNT = ("MERGE INTO counters c USING (VALUES (?), (?)) AS s(k) ON c.k = s.k "
         "WHEN MATCHED THEN UPDATE SET n = c.n + 1 WHEN NOT MATCHED THEN INSERT VALUES (s.k, 1)")


def _counters(connect, level):
    setup = connect(autocommit=True)
    setup.execute("CREATE TABLE counters (k INT PRIMARY KEY, n INT)")
    setup.execute("INSERT INTO counters VALUES (1, 0), (2, 0)")
    return setup, connect(isolation_level=level), connect(isolation_level=level)


def _in_thread(fn):
    """Run ``fn`` in a thread; returns (thread, outcome list: the result or the exception)."""
    outcome = []

    def run():
        try:
            outcome.append(fn())
        except BaseException as e:  # (reported to the test)
            outcome.append(e)
    thread = threading.Thread(target=run)
    thread.start()
    return thread, outcome


@pytest.mark.parametrize("level", LEVELS)
def test_concurrent_merges_of_overlapping_keys_lose_no_update(connect, level):
    """Two threads each run 12 MERGEs of two keys - one both threads update, one that one of
    them inserts first - each in a transaction held open across the other's, retried on a
    serialization failure (or 23505: the other inserted the key first). Every MERGE counts
    once in the end, as in a serial order: no update is lost, at any level."""
    setup, a, b = _counters(connect, level)
    plans = {a: [(1, 3 + i % 3) for i in range(12)], b: [(1, 3 + (i + 1) % 3) for i in range(12)]}
    refused = []

    def work(conn):
        for keys in plans[conn]:
            while True:
                try:
                    conn.execute("SELECT count(*) FROM counters")   # (the snapshot, before the other's commit)
                    time.sleep(0.002)
                    conn.execute(COUNT, keys)
                    time.sleep(0.002)
                    conn.commit()
                    break
                except (txlake.SerializationFailure, txlake.DeadlockDetected, errors.UniqueViolation) as e:
                    refused.append(e.sqlstate)
                    conn.rollback()
    threads = [_in_thread(lambda conn=conn: work(conn)) for conn in (a, b)]
    for thread, outcome in threads:
        thread.join(120)
        assert outcome == [None]
    expected = {1: 24, 2: 0, 3: 8, 4: 8, 5: 8}
    assert dict(q(setup, "SELECT k, n FROM counters")) == expected
    if level != "READ COMMITTED":
        assert "40001" in refused  # (the first updater wins: the test did make them collide)


def _waiting(conn):
    """Wait until ``conn``'s statement (in another thread) waits for a row or key lock."""
    locks = conn.session.db.locks
    deadline = time.monotonic() + 30
    while not (conn.session.txn is not None and id(conn.session.txn) in locks._waits_for):
        assert time.monotonic() < deadline, "the MERGE did not wait for the lock"
        time.sleep(0.001)


@pytest.mark.parametrize("level", LEVELS)
def test_a_matched_row_updated_meanwhile(connect, level):
    """The second MERGE waits for the first's row lock; once the first commits, READ COMMITTED
    re-evaluates the row's newest version (EvalPlanQual: both increments count), REPEATABLE
    READ and SERIALIZABLE fail with 40001."""
    setup, a, b = _counters(connect, level)
    b.execute("SELECT 1")                                       # b's snapshot: before a's commit
    a.execute(COUNT, (1, 2))
    thread, outcome = _in_thread(lambda: b.execute(COUNT, (1, 7)).rowcount)
    _waiting(b)
    assert thread.is_alive()                                    # waits for a's row lock
    a.commit()
    thread.join(30)
    if level == "READ COMMITTED":
        assert outcome == [2]
        b.commit()
        assert rows(setup, "counters") == [(1, 2), (2, 1), (7, 1)]
    else:
        assert isinstance(outcome[0], txlake.SerializationFailure) and outcome[0].sqlstate == "40001"
        b.rollback()
        assert rows(setup, "counters") == [(1, 1), (2, 1)]


def test_read_committed_tries_the_clauses_again_on_the_newest_row(connect):
    """PostgreSQL: a concurrently updated row is re-checked from the first clause - here it
    now takes the DELETE clause; a concurrently deleted one is not matched any more, and its
    source row takes the NOT MATCHED clause."""
    setup, a, b = _counters(connect, "READ COMMITTED")
    a.execute("UPDATE counters SET n = 100 WHERE k = 1")
    a.execute("DELETE FROM counters WHERE k = 2")
    merge = ("MERGE INTO counters c USING (VALUES (1), (2)) AS s(k) ON c.k = s.k "
             "WHEN MATCHED AND c.n < 50 THEN UPDATE SET n = c.n + 1 WHEN MATCHED THEN DELETE "
             "WHEN NOT MATCHED THEN INSERT VALUES (s.k, -1) RETURNING merge_action(), s.k")
    thread, outcome = _in_thread(lambda: b.execute(merge).fetchall())
    _waiting(b)
    assert thread.is_alive()
    a.commit()
    thread.join(30)
    assert sorted(outcome[0], key=lambda r: r[1]) == [("DELETE", 1), ("INSERT", 2)]
    b.commit()
    assert rows(setup, "counters") == [(2, -1)]


def test_read_committed_a_row_that_no_longer_joins_is_not_matched_by_source(connect):
    """A concurrent update makes the row fail the ON condition: re-checked, it takes the NOT
    MATCHED BY SOURCE clause (and the other row, which never joined, too)."""
    setup, a, b = _counters(connect, "READ COMMITTED")
    a.execute("UPDATE counters SET n = 10 WHERE k = 1")
    merge = ("MERGE INTO counters c USING (VALUES (1)) AS s(k) ON c.k = s.k AND c.n < 5 "
             "WHEN MATCHED THEN UPDATE SET n = c.n + 1 WHEN NOT MATCHED BY SOURCE THEN UPDATE SET n = c.n - 100")
    thread, outcome = _in_thread(lambda: b.execute(merge).rowcount)
    _waiting(b)
    assert thread.is_alive()
    a.commit()
    thread.join(30)
    assert outcome == [2]
    b.commit()
    assert rows(setup, "counters") == [(1, -90), (2, -100)]


@pytest.mark.parametrize("level", LEVELS)
def test_a_key_inserted_meanwhile_is_23505(connect, level):
    """Both MERGEs find key 9 not matched; the second waits for the first's key lock, and once
    the first commits its INSERT is 23505 - what PostgreSQL's MERGE gives (it does not go back
    to the MATCHED clauses). Across processes the commit's key check gives the same 23505."""
    setup, a, b = _counters(connect, level)
    b.execute("SELECT 1")
    a.execute(COUNT, (9, 1))
    thread, outcome = _in_thread(lambda: b.execute(COUNT, (9, 2)))
    _waiting(b)
    a.commit()
    thread.join(30)
    assert isinstance(outcome[0], errors.UniqueViolation), outcome
    b.rollback()
    assert rows(setup, "counters") == [(1, 1), (2, 0), (9, 1)]


def test_a_key_another_process_inserted_is_23505_at_commit(connect, warehouse):
    """Across processes there is no key lock to wait for: another process's MERGE inserts and
    commits key 9 after this one's did, and this commit's key check refuses it with 23505."""
    setup, a, _ = _counters(connect, "READ COMMITTED")
    a.execute(COUNT, (9, 1))
    child = run_python(f"import txlake\nc = txlake.connect({warehouse!r}, autocommit=True, publish='off')\n"
                       f"c.execute({COUNT!r}, (9, 2))\nc.close()")
    assert child.returncode == 0, child.stderr
    with pytest.raises(errors.UniqueViolation):
        a.commit()
    assert rows(setup, "counters") == [(1, 0), (2, 1), (9, 1)]


@pytest.mark.parametrize("level", ["READ COMMITTED", "REPEATABLE READ"])
def test_a_row_another_process_updated_is_40001_at_commit(connect, warehouse, level):
    """No lost update across processes either: another process's MERGE updates key 1 and
    commits after this one's did (no row lock to wait for), and this commit's conflict check
    refuses it with 40001."""
    setup, a, _ = _counters(connect, level)
    a.execute(COUNT, (1, 2))
    child = run_python(f"import txlake\nc = txlake.connect({warehouse!r}, autocommit=True, publish='off')\n"
                       f"c.execute({COUNT!r}, (1, 7))\nc.close()")
    assert child.returncode == 0, child.stderr
    with pytest.raises(txlake.SerializationFailure):
        a.commit()
    assert rows(setup, "counters") == [(1, 1), (2, 0), (7, 1)]


def test_lock_timeout_and_deadlock(connect):
    """A MERGE waiting for a row lock gives up after lock_timeout (55P03); two MERGEs each
    waiting for the other's row are a deadlock, and one of them gets 40P01."""
    setup, a, b = _counters(connect, "READ COMMITTED")
    a.execute("UPDATE counters SET n = 1 WHERE k = 1")
    b.execute("SET lock_timeout = '100ms'")
    with pytest.raises(txlake.Error) as e:
        b.execute(COUNT, (1, 2))
    assert e.value.sqlstate == "55P03"
    b.rollback()
    b.execute("SET lock_timeout = 0")
    b.execute("UPDATE counters SET n = 1 WHERE k = 2")
    first, outcome_a = _in_thread(lambda: a.execute(COUNT, (2, 9)))      # waits for b's row 2
    _waiting(a)
    second, outcome_b = _in_thread(lambda: b.execute(COUNT, (1, 8)))     # waits for a's row 1: a cycle
    second.join(30)                                                     # (the one that closed it)
    assert isinstance(outcome_b[0], txlake.DeadlockDetected) and outcome_b[0].sqlstate == "40P01"
    b.rollback()                                    # (its locks go with the rollback: a goes on)
    first.join(30)
    assert outcome_a[0].rowcount == 2
    a.commit()
    assert rows(setup, "counters") == [(1, 1), (2, 1), (9, 1)]


@pytest.mark.parametrize("level", ["SERIALIZABLE", "REPEATABLE READ"])
def test_write_skew_through_merge(connect, level):
    """Two doctors on call; each transaction, in its own thread, takes itself off call by a
    MERGE whose source counts who is on call - each reads what the other writes. SERIALIZABLE
    refuses one (40001); REPEATABLE READ lets both commit (the write skew)."""
    setup = connect(autocommit=True)
    setup.execute("CREATE TABLE doctors (id INT PRIMARY KEY, on_call BOOLEAN)")
    setup.execute("INSERT INTO doctors VALUES (1, true), (2, true)")
    barrier = threading.Barrier(2, timeout=30)

    def off_call(me):
        conn = connect(isolation_level=level)
        conn.execute("SELECT 1")
        barrier.wait()                                          # both snapshots before either writes
        conn.execute("MERGE INTO doctors d USING (SELECT count(*) AS n FROM doctors WHERE on_call) AS c "
                     "ON d.id = ? AND c.n >= 2 WHEN MATCHED THEN UPDATE SET on_call = false", (me,))
        barrier.wait()                                          # both written before either commits
        try:
            conn.commit()
            return "ok"
        except txlake.SerializationFailure as e:
            conn.rollback()
            return e.sqlstate
    threads = [_in_thread(lambda me=me: off_call(me)) for me in (1, 2)]
    for thread, _ in threads:
        thread.join(60)
    outcomes = sorted(outcome[0] for _, outcome in threads)
    on_call = q(setup, "SELECT count(*) FROM doctors WHERE on_call")[0][0]
    if level == "SERIALIZABLE":
        assert outcomes == ["40001", "ok"] and on_call == 1
    else:
        assert outcomes == ["ok", "ok"] and on_call == 0


UPSERT = ("MERGE INTO counters c USING (SELECT ? AS k) AS s ON c.k = s.k "
          "WHEN MATCHED THEN UPDATE SET n = c.n + 1 WHEN NOT MATCHED THEN INSERT VALUES (s.k, 1)")


def test_serializable_merges_of_other_keys_both_commit(connect):
    """The ON condition looks the target up by key: each MERGE reads only the keys its source
    rows name (present or not), so two MERGEs of other keys - an update and an insert each -
    are no conflict; they were when a MERGE counted as a read of the whole table."""
    setup, a, b = _counters(connect, "SERIALIZABLE")
    for conn in (a, b):
        conn.execute("SELECT 1")
    a.execute(UPSERT, (1,))
    b.execute(UPSERT, (2,))
    a.execute(UPSERT, (5,))
    b.execute(UPSERT, (6,))
    a.commit()
    b.commit()
    assert rows(setup, "counters") == [(1, 1), (2, 1), (5, 1), (6, 1)]


def test_serializable_a_key_merge_looked_up_and_did_not_find_is_a_read(connect):
    """a's MERGE looks up key 5 and finds none (it inserts nothing); b inserts key 5 and reads
    the row a then writes: a cycle of two rw-conflicts, which SERIALIZABLE refuses."""
    setup, a, b = _counters(connect, "SERIALIZABLE")
    for conn in (a, b):
        conn.execute("SELECT 1")
    a.execute("MERGE INTO counters c USING (SELECT 5 AS k) AS s ON c.k = s.k WHEN MATCHED THEN DELETE")
    assert q(b, "SELECT n FROM counters WHERE k = 1") == [(0,)]
    b.execute("INSERT INTO counters VALUES (5, 0)")
    a.execute("UPDATE counters SET n = 9 WHERE k = 1")
    a.commit()
    with pytest.raises(txlake.SerializationFailure):
        b.commit()


def test_a_floating_point_key_joins_as_duckdb_compares(connect):
    c = connect(autocommit=True)
    c.execute("CREATE TABLE f (k DOUBLE PRIMARY KEY, v INT)")
    c.execute("INSERT INTO f VALUES (0.0, 1), ('NaN', 2)")
    cur = c.execute("MERGE INTO f USING (VALUES (-0.0::double), ('NaN'::double)) AS s(k) ON f.k = s.k "
                    "WHEN MATCHED THEN UPDATE SET v = 10 WHEN NOT MATCHED THEN INSERT VALUES (s.k, 0)")
    assert cur.statusmessage == "MERGE 2"
    assert sorted(v for _, v in rows(c, "f")) == [10, 10]


# --- a join as the source ------------------------------------------------------------------

def test_a_join_as_the_source(c):
    """PostgreSQL's data source is a table reference, joins included: ``USING a JOIN b ON ...
    ON ...`` was a syntax error (the join had to go in a subquery)."""
    c.execute("CREATE TABLE names (k INT, label VARCHAR(5))")
    c.execute("INSERT INTO names VALUES (1, 'one'), (5, 'five'), (6, 'six'), (7, 'seven')")
    cur = c.execute("MERGE INTO t USING s JOIN names n ON s.k = n.k ON t.k = s.k "
                    "WHEN MATCHED AND n.label = 'one' THEN UPDATE SET v = s.v + 1, note = n.label "
                    "WHEN NOT MATCHED AND s.v > ? THEN INSERT (k, v, note) VALUES (s.k, s.v, label) "
                    "RETURNING merge_action(), s.k, n.label, t.v", (550,))
    assert sorted(cur.fetchall()) == [("INSERT", 6, "six", 600), ("UPDATE", 1, "one", 101)]
    assert [d[0] for d in cur.description] == ["merge_action", "k", "label", "v"]
    assert rows(c) == [(1, 101, "one"), (2, 20, "b"), (3, 30, "c"), (4, 40, "d"), (6, 600, "six")]
    # parenthesized, a LEFT JOIN, and NOT MATCHED BY SOURCE
    cur = c.execute("MERGE INTO t AS x USING (s LEFT JOIN names ON s.k = names.k) ON x.k = s.k "
                    "WHEN MATCHED AND names.label IS NULL THEN DELETE "
                    "WHEN NOT MATCHED BY SOURCE THEN UPDATE SET note = 'src'")
    assert cur.rowcount == 3
    assert rows(c) == [(1, 101, "one"), (3, 30, "src"), (4, 40, "src"), (6, 600, "six")]


def test_a_join_source_names_its_relations_once(c):
    for sql, sqlstate in (("MERGE INTO t USING t JOIN s ON true ON true WHEN MATCHED THEN DELETE", "42712"),
                          ("MERGE INTO t USING s JOIN s ON true ON true WHEN MATCHED THEN DELETE", "42712"),
                          ("MERGE INTO t USING s JOIN (SELECT 1) ON true ON true WHEN MATCHED THEN DELETE", "42601")):
        with pytest.raises(txlake.Error) as info:
            c.execute(sql)
        assert info.value.sqlstate == sqlstate
    assert rows(c) == [(1, 10, "a"), (2, 20, "b"), (3, 30, "c"), (4, 40, "d")]


def test_a_join_of_subqueries_with_aliases(c):
    c.execute("MERGE INTO t USING (SELECT k, v * 2 AS v FROM s WHERE k < 3) AS d "
              "JOIN (SELECT 1 AS k, 'x' AS tag UNION ALL SELECT 2, 'y') AS e ON d.k = e.k ON t.k = d.k "
              "WHEN MATCHED THEN UPDATE SET v = d.v, note = e.tag")
    assert rows(c)[:2] == [(1, 200, "x"), (2, 400, "y")]
