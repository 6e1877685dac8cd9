"""Table-level locks, as PostgreSQL's (engine/table_locks.py, engine/mvcc/locks.py): DDL waits
for the open transactions that read or wrote its table, then runs on what they committed - no
40001 at COMMIT; a statement arriving after it waits for it; LOCK TABLE in its eight modes;
lock_timeout, NOWAIT, deadlocks through row and table locks together. Sessions are threads of
one process; every wait is observed in the lock table (no timing), and bounded."""

import threading
import time

import pytest

import txlake
from tests.conftest import fails

MODES = ("ACCESS SHARE", "ROW SHARE", "ROW EXCLUSIVE", "SHARE UPDATE EXCLUSIVE", "SHARE", "SHARE ROW EXCLUSIVE",
         "EXCLUSIVE", "ACCESS EXCLUSIVE")
# PostgreSQL 16's "Conflicting Lock Modes" table: the modes each one conflicts with
CONFLICTS = {
    "ACCESS SHARE": {"ACCESS EXCLUSIVE"},
    "ROW SHARE": {"EXCLUSIVE", "ACCESS EXCLUSIVE"},
    "ROW EXCLUSIVE": {"SHARE", "SHARE ROW EXCLUSIVE", "EXCLUSIVE", "ACCESS EXCLUSIVE"},
    "SHARE UPDATE EXCLUSIVE": {"SHARE UPDATE EXCLUSIVE", "SHARE", "SHARE ROW EXCLUSIVE", "EXCLUSIVE",
                               "ACCESS EXCLUSIVE"},
    "SHARE": {"ROW EXCLUSIVE", "SHARE UPDATE EXCLUSIVE", "SHARE ROW EXCLUSIVE", "EXCLUSIVE", "ACCESS EXCLUSIVE"},
    "SHARE ROW EXCLUSIVE": {"ROW EXCLUSIVE", "SHARE UPDATE EXCLUSIVE", "SHARE", "SHARE ROW EXCLUSIVE", "EXCLUSIVE",
                            "ACCESS EXCLUSIVE"},
    "EXCLUSIVE": set(MODES) - {"ACCESS SHARE"},
    "ACCESS EXCLUSIVE": set(MODES),
}


@pytest.fixture
def setup(connect):
    s = connect(autocommit=True)
    s.execute("CREATE TABLE t (id INT PRIMARY KEY, v INT)")
    s.execute("CREATE TABLE u (id INT PRIMARY KEY, v INT)")
    s.execute("INSERT INTO t VALUES (1, 10)")
    s.execute("INSERT INTO u VALUES (1, 10)")
    return s


class Background:
    """``sql`` run by ``conn`` in a thread (then COMMIT, if ``commit``): ``outcome`` is "ok" or
    the SQLSTATE it failed with (and the transaction rolled back)."""

    def __init__(self, conn, sql: str, commit: bool = True):
        self.conn, self.outcome, self.rows = conn, None, None
        self.thread = threading.Thread(target=self._run, args=(sql, commit), daemon=True)
        self.thread.start()

    def _run(self, sql, commit):
        try:
            cur = self.conn.execute(sql)
            self.rows = cur.fetchall() if cur.description else None
            if commit:
                self.conn.commit()
            self.outcome = "ok"
        except txlake.Error as e:
            self.outcome = e.sqlstate
            self.conn.rollback()

    def waits(self, seconds: float = 30.0) -> bool:
        """Does the statement wait for a lock? True once it does; False if it ended without."""
        locks = self.conn.session.db.locks
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            txn = self.conn.session.txn
            if txn is not None and locks.waiting_for(txn):
                return True
            if not self.thread.is_alive():
                return False
            time.sleep(0.002)
        raise AssertionError("neither waiting nor done")

    def result(self) -> str:
        self.thread.join(30)
        assert not self.thread.is_alive(), "still running"
        return self.outcome


def after_waiting(conn, sql: str, holder) -> str:
    """``sql`` run by ``conn`` in a thread, which must wait; ``holder`` then commits: the
    statement's outcome once it is done."""
    run = Background(conn, sql)
    try:
        assert run.waits()
    finally:
        holder.commit()
    return run.result()


def test_the_conflict_table_of_the_eight_modes(setup, connect):
    """Each mode held against each asked for with NOWAIT: 55P03 exactly where PostgreSQL's
    table says the two conflict."""
    holder, asker = connect(), connect()
    found = {}
    for held in MODES:
        holder.execute(f"LOCK TABLE t IN {held} MODE")
        for asked in MODES:
            try:
                asker.execute(f"LOCK TABLE t IN {asked} MODE NOWAIT")
                found[held, asked] = False
            except txlake.LockNotAvailable as e:
                assert str(e).startswith('could not obtain lock on relation "t"') and e.sqlstate == "55P03"
                found[held, asked] = True
            asker.rollback()
        holder.rollback()
    assert found == {(h, a): a in CONFLICTS[h] for h in MODES for a in MODES}


@pytest.mark.parametrize("holder_sql", ["INSERT INTO t VALUES (2, 20)", "SELECT * FROM t"])
@pytest.mark.parametrize("ddl, check, expect", [
    ("ALTER TABLE t ADD COLUMN w INT DEFAULT 7", "SELECT id, w FROM t ORDER BY id", {1: 7, 2: 7}),
    ("CREATE INDEX t_v ON t (v)", "SELECT indexname FROM pg_indexes WHERE indexname = 't_v'", "t_v"),
    ("TRUNCATE t", "SELECT count(*) FROM t", 0),
    ("DROP TABLE t", "SELECT count(*) FROM pg_tables WHERE tablename = 't'", 0),
])
@pytest.mark.parametrize("read_first", [False, True], ids=["fresh", "after-own-read"])
def test_ddl_waits_for_an_open_reader_or_writer_then_runs_on_its_commit(setup, connect, holder_sql, ddl, check,
                                                                         expect, read_first):
    """Session A has read or written t and not committed; B's DDL waits for A (it was a 40001
    at one COMMIT or the other), then runs on what A committed - A's row is altered, indexed,
    truncated or dropped with the rest. (CREATE INDEX does not wait for a reader: its lock, as
    PostgreSQL's, lets reads in.) With ``read_first`` B read t before A wrote (its
    REPEATABLE READ snapshot predates A's row; the DDL still works on the newest rows, as
    PostgreSQL's does) and its lock goes from ACCESS SHARE up."""
    a, b = connect(), connect()
    if read_first:
        b.execute("SELECT count(*) FROM t").fetchall()
    a.execute(holder_sql)
    ddl_run = Background(b, ddl)
    try:
        assert ddl_run.waits() == (not (ddl.startswith("CREATE INDEX") and holder_sql.startswith("SELECT")))
    finally:
        a.commit()
    assert ddl_run.result() == "ok"
    rows = setup.execute(check).fetchall()
    if isinstance(expect, dict):
        wrote = "INSERT" in holder_sql
        assert dict(rows) == {k: v for k, v in expect.items() if wrote or k == 1}
    else:
        assert rows == [(expect,)]


@pytest.mark.parametrize("level", ["READ COMMITTED", "REPEATABLE READ"])
@pytest.mark.parametrize("snapshot_first", [False, True], ids=["fresh", "old-snapshot"])
def test_a_writer_waits_for_an_alter_then_writes_rows_of_the_new_schema(setup, connect, level, snapshot_first):
    """B's ALTER TABLE holds ACCESS EXCLUSIVE; A's INSERT waits for it, then writes under the new
    schema (its default filled in) and commits - at REPEATABLE READ too, with a snapshot taken
    before the ALTER (its COMMIT was a 40001: the table was re-shaped under it)."""
    a, b = connect(isolation_level=level), connect()
    if snapshot_first:
        a.execute("SELECT count(*) FROM u").fetchall()
    b.execute("ALTER TABLE t ADD COLUMN w INT DEFAULT 7")
    assert after_waiting(a, "INSERT INTO t (id, v) VALUES (2, 20)", b) == "ok"
    assert setup.execute("SELECT id, v, w FROM t ORDER BY id").fetchall() == [(1, 10, 7), (2, 20, 7)]


def test_statements_planned_before_an_alter_see_the_new_columns_after_it(setup, connect):
    """The same text run before and after another session's ALTER TABLE - a cached statement,
    a PREPAREd one - is planned again against the new schema, as PostgreSQL re-plans."""
    a, b = connect(autocommit=True), connect(autocommit=True)
    a.execute("PREPARE ins (int, int) AS INSERT INTO t (id, v) VALUES ($1, $2)")
    assert a.execute("SELECT * FROM t WHERE id = ?", (1,)).fetchall() == [(1, 10)]
    a.execute("EXECUTE ins (2, 20)")
    b.execute("ALTER TABLE t ADD COLUMN w INT DEFAULT 7")
    assert a.execute("SELECT * FROM t WHERE id = ?", (1,)).fetchall() == [(1, 10, 7)]
    a.execute("EXECUTE ins (3, 30)")
    a.execute("INSERT INTO t (id, v) VALUES (?, ?)", (4, 40))
    assert a.execute("SELECT id, w FROM t ORDER BY id").fetchall() == [(1, 7), (2, 7), (3, 7), (4, 7)]


def test_a_reader_arriving_after_a_waiting_alter_queues_behind_it(setup, connect):
    """A reads t (open); B's ALTER waits for A; C's SELECT, which A's lock would let in,
    waits behind B's request (PostgreSQL's lock queue: the ALTER is not starved), then reads
    the altered table."""
    a, b, c = connect(), connect(), connect()
    a.execute("SELECT * FROM t").fetchall()
    alter = Background(b, "ALTER TABLE t ADD COLUMN w INT DEFAULT 7")
    try:
        assert alter.waits()
        read = Background(c, "SELECT * FROM t")
        assert read.waits()
    finally:
        a.commit()
    assert alter.result() == "ok" and read.result() == "ok"
    assert read.rows == [(1, 10, 7)]


def test_lock_timeout_ends_a_wait_for_a_table_lock(setup, connect):
    a, b = connect(), connect()
    a.execute("INSERT INTO t VALUES (2, 20)")
    b.execute("SET lock_timeout = '50ms'")
    with pytest.raises(txlake.LockNotAvailable) as info:
        b.execute("ALTER TABLE t ADD COLUMN w INT")
    assert info.value.sqlstate == "55P03" and str(info.value).startswith("canceling statement due to lock timeout")
    fails(b, "SELECT 1", "25P02")
    b.rollback()
    a.commit()
    assert setup.execute("SELECT * FROM t ORDER BY id").fetchall() == [(1, 10), (2, 20)]


def test_nowait_fails_at_once_where_a_writer_holds_the_table(setup, connect):
    a, b = connect(), connect()
    a.execute("UPDATE t SET v = 11 WHERE id = 1")
    with pytest.raises(txlake.LockNotAvailable, match='could not obtain lock on relation "t"'):
        b.execute("LOCK TABLE t IN SHARE MODE NOWAIT")
    b.rollback()
    b.execute("LOCK TABLE t IN ROW EXCLUSIVE MODE NOWAIT")  # (writers do not conflict)
    b.execute("LOCK TABLE u IN ACCESS EXCLUSIVE MODE NOWAIT")
    b.rollback()
    a.commit()


@pytest.mark.parametrize("closer", ["table lock", "row lock"])
def test_a_deadlock_through_a_row_lock_and_a_table_lock_has_one_victim(setup, connect, closer):
    """A holds t's row 1 (UPDATE) and B holds u (LOCK TABLE ... ACCESS EXCLUSIVE). With
    ``closer`` "table lock", B waits for A's row first and A's read of u closes the cycle; with
    "row lock", A waits for u first and B's UPDATE of the row closes it. The one closing it
    gets 40P01 (its locks freed at the error), the other goes on."""
    a, b = connect(), connect()
    a.execute("UPDATE t SET v = 11 WHERE id = 1")
    b.execute("LOCK TABLE u IN ACCESS EXCLUSIVE MODE")
    first, (second, second_sql) = (b, "UPDATE t SET v = 12 WHERE id = 1"), (a, "SELECT * FROM u")
    if closer == "row lock":
        first, (second, second_sql) = (a, "SELECT * FROM u"), (b, "UPDATE t SET v = 12 WHERE id = 1")
    waiting = Background(first[0], first[1], commit=False)
    try:
        assert waiting.waits()
        with pytest.raises(txlake.DeadlockDetected) as info:
            second.execute(second_sql)
        assert info.value.sqlstate == "40P01"
    finally:
        second.rollback()
    assert waiting.result() == "ok"
    first[0].commit()


def test_a_rollback_to_a_savepoint_frees_the_table_locks_taken_after_it(setup, connect):
    """As PostgreSQL: a lock taken before the savepoint stays; one taken after it goes with
    ROLLBACK TO (and with an error rolled back to it)."""
    a, b = connect(), connect()
    a.execute("LOCK TABLE t IN SHARE MODE")
    a.execute("SAVEPOINT s")
    a.execute("LOCK TABLE u IN ACCESS EXCLUSIVE MODE")
    a.execute("ROLLBACK TO SAVEPOINT s")
    b.execute("LOCK TABLE u IN ACCESS EXCLUSIVE MODE NOWAIT")  # freed
    with pytest.raises(txlake.LockNotAvailable):
        b.execute("LOCK TABLE t IN ROW EXCLUSIVE MODE NOWAIT")  # kept
    b.rollback()
    a.execute("SAVEPOINT s2")
    with pytest.raises(txlake.Error):
        a.execute("INSERT INTO t VALUES (1, 1)")  # 23505, after its ROW EXCLUSIVE lock
    a.execute("ROLLBACK TO SAVEPOINT s2")
    with pytest.raises(txlake.LockNotAvailable):
        b.execute("LOCK TABLE t IN EXCLUSIVE MODE NOWAIT")  # SHARE still held
    b.rollback()
    a.commit()
    b.execute("LOCK TABLE t IN ACCESS EXCLUSIVE MODE NOWAIT")
    b.commit()


def test_lock_table_outside_a_block_and_on_what_is_not_a_table(setup, connect):
    auto = connect(autocommit=True)
    assert fails(auto, "LOCK TABLE t", "25P01") == "LOCK TABLE can only be used in transaction blocks"
    c = connect()
    assert 'relation "nope" does not exist' in fails(c, "LOCK TABLE nope IN SHARE MODE", "42P01")
    c.rollback()
    setup.execute("CREATE SEQUENCE s")
    fails(c, "LOCK TABLE s", "42809")
    c.rollback()
    ro = connect()
    ro.execute("SET TRANSACTION READ ONLY")
    ro.execute("LOCK TABLE t IN ACCESS SHARE MODE")
    fails(ro, "LOCK TABLE t IN SHARE MODE", "25006")
    ro.rollback()


def test_lock_table_of_a_view_locks_the_tables_it_reads(setup, connect):
    setup.execute("CREATE VIEW tv AS SELECT id FROM t")
    a, b = connect(), connect()
    a.execute("LOCK TABLE tv IN EXCLUSIVE MODE")
    with pytest.raises(txlake.LockNotAvailable):
        b.execute("LOCK TABLE t IN ROW SHARE MODE NOWAIT")
    b.rollback()
    a.commit()


def test_a_table_dropped_while_a_writer_waited_is_not_there(setup, connect):
    """An INSERT waiting for a DROP TABLE finds no table once the DROP commits (42P01), at
    REPEATABLE READ with an older snapshot too - not a COMMIT that fails."""
    a, b = connect(), connect()
    a.execute("SELECT count(*) FROM u").fetchall()
    b.execute("DROP TABLE t")
    assert after_waiting(a, "INSERT INTO t VALUES (2, 20)", b) == "42P01"
