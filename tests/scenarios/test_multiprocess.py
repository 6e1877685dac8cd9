"""Several processes commit to one warehouse: commits through put-if-absent log entries, with
the data-conflict check; row locks across processes (record locks) while others write. Real
processes."""

import select
import subprocess
import sys
import time

import pytest

import txlake
from tests.conftest import child_env, run_python

WORKER = r"""
import sys, txlake
path, mode, n, me = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
c = txlake.connect(path, isolation_level="REPEATABLE READ", publish="off")
done = retries = 0
while done < n:
    try:
        if mode == "counter":
            c.execute("UPDATE counter SET n = n + 1 WHERE id = 1")
        elif mode == "disjoint":
            c.execute("UPDATE counter SET n = n + 1 WHERE id = ?", (me,))
        else:
            c.execute("INSERT INTO log VALUES (?, ?)", (me, done))
        c.commit()
        done += 1
        print("ack", flush=True)
    except txlake.SerializationFailure:
        c.rollback()
        retries += 1
print("retries", retries, flush=True)
"""


def run_workers(path, mode, processes, n):
    procs = [subprocess.Popen([sys.executable, "-c", WORKER, path, mode, str(n), str(i + 1)],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                              env=child_env())
             for i in range(processes)]
    outs = [p.communicate(timeout=300) for p in procs]
    for p, (out, err) in zip(procs, outs):
        assert p.returncode == 0, err
    acks = sum(out.count("ack") for out, _ in outs)
    retries = sum(int(out.split("retries")[1]) for out, _ in outs)
    return acks, retries


@pytest.fixture
def wh(warehouse):
    c = txlake.connect(warehouse, autocommit=True, publish="off")
    c.execute("CREATE TABLE counter (id INT PRIMARY KEY, n INT)")
    c.execute("INSERT INTO counter VALUES (1, 0), (2, 0), (3, 0)")
    c.execute("CREATE TABLE log (who INT, seq INT)")
    c.close()
    return warehouse


def test_a_process_that_opened_an_empty_warehouse_sees_another_process_commit(warehouse):
    """Before, a process that had opened the warehouse before its first commit never looked for
    the log's first segment again: it did not see another process's tables (42P01), and each
    of its own commits failed with 58030 (the segment it tried to create existed)."""
    mine = txlake.connect(warehouse, autocommit=True, publish="off")
    done = run_python("import sys, txlake\n"
                      "c = txlake.connect(sys.argv[1], autocommit=True, publish='off')\n"
                      "c.execute('CREATE TABLE t (x INT)')\n"
                      "c.execute('INSERT INTO t VALUES (1)')\n", warehouse)
    assert done.returncode == 0, done.stderr
    assert mine.execute("SELECT x FROM t").fetchall() == [(1,)]
    mine.execute("INSERT INTO t VALUES (2)")
    mine.close()
    again = txlake.connect(warehouse, publish="off")
    assert again.execute("SELECT x FROM t ORDER BY x").fetchall() == [(1,), (2,)]
    again.close()


def test_no_increment_is_lost_across_processes(wh):
    acks, retries = run_workers(wh, "counter", 3, 25)
    c = txlake.connect(wh, publish="off")
    assert c.execute("SELECT n FROM counter WHERE id = 1").fetchone() == (acks,) == (75,)
    c.close()


def test_disjoint_rows_get_no_spurious_conflicts(wh):
    acks, retries = run_workers(wh, "disjoint", 3, 25)
    assert retries == 0
    c = txlake.connect(wh, publish="off")
    assert c.execute("SELECT n FROM counter ORDER BY id").fetchall() == [(25,), (25,), (25,)]
    c.close()


@pytest.mark.parametrize("attempt", range(3))
def test_racing_appends_every_acknowledged_commit_lands(wh, attempt):
    acks, _ = run_workers(wh, "append", 4, 30)
    c = txlake.connect(wh, publish="off")
    assert c.execute("SELECT count(*) FROM log").fetchone() == (acks,) == (120,)
    assert c.execute("SELECT count(DISTINCT (who, seq)) FROM log").fetchone() == (120,)
    c.close()


def commit_elsewhere(path, *statements):
    """``statements`` committed by another process, as one transaction, start to end."""
    code = ("import sys, txlake\n"
            "c = txlake.connect(sys.argv[1], publish='off')\n"
            "for sql in sys.argv[2:]:\n"
            "    c.execute(sql)\n"
            "c.commit()")
    done = run_python(code, path, *statements)
    assert done.returncode == 0, done.stderr


@pytest.mark.parametrize("level", ["READ COMMITTED", "REPEATABLE READ"])
@pytest.mark.parametrize("mine, theirs, error", [
    ("UPDATE counter SET n = n + 1 WHERE id = 1", "UPDATE counter SET n = n + 10 WHERE id = 1",
     txlake.SerializationFailure),                                             # a lost update
    ("DELETE FROM counter WHERE id = 1", "UPDATE counter SET n = n + 10 WHERE id = 1",
     txlake.SerializationFailure),
    ("INSERT INTO counter VALUES (9, 0)", "INSERT INTO counter VALUES (9, 1)",
     txlake.IntegrityError),                                                   # a duplicate key
])
def test_the_commit_refuses_what_another_process_changed_after_the_statement(wh, level, mine, theirs, error):
    """No shared row locks across processes (the default): a write another process commits
    between this transaction's statement and its COMMIT is caught by the commit's data-conflict
    check, whatever the level (READ COMMITTED included: the statement already ran on the old
    row)."""
    c = txlake.connect(wh, isolation_level=level, publish="off")
    c.execute(mine)
    commit_elsewhere(wh, theirs)
    with pytest.raises(error):
        c.commit()
    c.close()
    reader = txlake.connect(wh, autocommit=True, publish="off")
    inserting = mine.startswith("INSERT")  # (theirs landed, mine did not)
    assert reader.execute("SELECT n FROM counter WHERE id = 1").fetchall() == ([(0,)] if inserting else [(10,)])
    assert reader.execute("SELECT n FROM counter WHERE id = 9").fetchall() == ([(1,)] if inserting else [])
    reader.close()


@pytest.mark.parametrize("level", ["READ COMMITTED", "REPEATABLE READ", "SERIALIZABLE"])
@pytest.mark.parametrize("insert", ["INSERT INTO moved VALUES (1, 0)", "UPDATE moved SET id = 1 WHERE id = 2"])
def test_a_key_taken_by_a_commit_that_already_beat_this_transaction_is_40001_not_23505(wh, level, insert):
    """A row moved to another table (DELETE, then its key written there) by two transactions in
    two processes at once: the second's key meets the one the first committed. Its DELETE has
    already lost to the first's (its COMMIT could only fail with 40001), so the key is 40001 - a
    retry finds the row gone - not 23505, which PostgreSQL, whose DELETE would have waited for
    the first mover, never gives here."""
    c = txlake.connect(wh, autocommit=True, publish="off")
    c.execute("CREATE TABLE moved (id INT PRIMARY KEY, n INT)")
    c.execute("INSERT INTO moved VALUES (2, 0)")
    c.close()
    mine = txlake.connect(wh, isolation_level=level, publish="off")
    try:
        assert mine.execute("DELETE FROM counter WHERE id = 1 RETURNING n").fetchall() == [(0,)]
        commit_elsewhere(wh, "DELETE FROM counter WHERE id = 1", "INSERT INTO moved VALUES (1, 0)")
        with pytest.raises(txlake.SerializationFailure):
            mine.execute(insert)
    finally:
        mine.rollback()
        mine.close()


def test_a_key_another_process_committed_is_still_23505_for_a_transaction_it_did_not_beat(wh):
    """Without a lost write of its own, a key committed since the snapshot is 23505, as in
    PostgreSQL at REPEATABLE READ."""
    mine = txlake.connect(wh, isolation_level="REPEATABLE READ", publish="off")
    try:
        mine.execute("UPDATE counter SET n = 5 WHERE id = 2")
        commit_elsewhere(wh, "INSERT INTO counter VALUES (7, 0)")
        with pytest.raises(txlake.UniqueViolation):
            mine.execute("INSERT INTO counter VALUES (7, 1)")
    finally:
        mine.rollback()
        mine.close()


SESSION = r"""
import sys, txlake
c = txlake.connect(sys.argv[1], isolation_level=sys.argv[2], publish="off", shared_row_locks=True)
for line in sys.stdin:
    try:
        if line.strip() == "COMMIT":
            c.commit()
        else:
            c.execute(line)
        print("ok", flush=True)
    except txlake.Error as e:
        c.rollback()
        print(type(e).__name__, flush=True)
"""


class Elsewhere:
    """A session in another process, fed one statement per line."""

    def __init__(self, path, level):
        self.proc = subprocess.Popen([sys.executable, "-c", SESSION, path, level], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, text=True, env=child_env())

    def send(self, sql):
        self.proc.stdin.write(sql + "\n")
        self.proc.stdin.flush()

    def reply(self):
        return self.proc.stdout.readline().strip()

    def run(self, sql):
        self.send(sql)
        return self.reply()

    def waiting(self, seconds=0.5):
        """Is the last statement sent still running after ``seconds``?"""
        time.sleep(seconds)
        return self.proc.poll() is None and not _readable(self.proc.stdout)

    def close(self):
        self.proc.stdin.close()
        self.proc.wait(timeout=60)


def _readable(stream):
    return bool(select.select([stream], [], [], 0)[0])


@pytest.mark.parametrize("level, outcome, n", [("READ COMMITTED", "ok", 11),
                                              ("REPEATABLE READ", "SerializationFailure", 1)])
def test_an_update_of_a_row_another_process_holds_waits_for_its_commit(wh, level, outcome, n):
    """With ``shared_row_locks``, while other processes write, a row lock is one across
    processes: an UPDATE of a row another process's open transaction updated waits for it, as
    in PostgreSQL. When that one commits, READ COMMITTED goes on from the new row (no 40001,
    no lost update) and REPEATABLE READ fails with 40001 (first updater wins) - both at the
    statement, not at COMMIT."""
    commit_elsewhere(wh, "INSERT INTO log VALUES (0, 0)")  # (another process has written lately)
    mine = txlake.connect(wh, isolation_level="READ COMMITTED", publish="off", shared_row_locks=True)
    theirs = Elsewhere(wh, level)
    try:
        assert theirs.run("SELECT 1") == "ok"
        mine.execute("UPDATE counter SET n = n + 1 WHERE id = 1")
        theirs.send("UPDATE counter SET n = n + 10 WHERE id = 1")
        assert theirs.waiting(), "the other process waits for this one's row lock"
        mine.commit()
        assert theirs.reply() == outcome
        assert theirs.run("COMMIT") == "ok"
    finally:
        theirs.close()
        mine.close()
    reader = txlake.connect(wh, autocommit=True, publish="off")
    assert reader.execute("SELECT n FROM counter WHERE id = 1").fetchall() == [(n,)]
    reader.close()


def test_read_committed_does_not_lose_an_update_another_process_made_to_a_table_without_key(wh):
    """READ COMMITTED follows a row of a table without a primary key to its new version by the
    update chains its own process's commits record; another process's update of the row left
    no chain here, and the row was taken for deleted: UPDATE 0, the increment lost (3
    processes adding 1 twenty times each ended near 40, with or without shared_row_locks).
    It is 40001 now, as README says for such tables; a row with a key is re-found by it."""
    commit_elsewhere(wh, "INSERT INTO log VALUES (1, 0)")
    mine = txlake.connect(wh, isolation_level="READ COMMITTED", publish="off", shared_row_locks=True)
    theirs = Elsewhere(wh, "READ COMMITTED")
    try:
        assert theirs.run("SELECT 1") == "ok"
        mine.execute("UPDATE log SET seq = seq + 1 WHERE who = 1")
        theirs.send("UPDATE log SET seq = seq + 10 WHERE who = 1")
        assert theirs.waiting(), "the other process waits for this one's row lock"
        mine.commit()
        assert theirs.reply() == "SerializationFailure"
        assert theirs.run("UPDATE log SET seq = seq + 10 WHERE who = 1") == "ok"   # (retried)
        assert theirs.run("COMMIT") == "ok"
    finally:
        theirs.close()
        mine.close()
    reader = txlake.connect(wh, autocommit=True, publish="off")
    assert reader.execute("SELECT who, seq FROM log").fetchall() == [(1, 11)]
    reader.close()


def test_a_rollback_to_a_savepoint_frees_the_row_locks_other_processes_wait_for(wh):
    """``shared_row_locks``: the record locks a transaction took after a savepoint go with a
    rollback to it, as its locks in the process do (PostgreSQL frees a rolled-back
    subtransaction's locks); those taken before it stay."""
    commit_elsewhere(wh, "INSERT INTO log VALUES (0, 0)")
    mine = txlake.connect(wh, isolation_level="READ COMMITTED", publish="off", shared_row_locks=True)
    theirs = Elsewhere(wh, "READ COMMITTED")
    try:
        assert theirs.run("SET lock_timeout = '3s'") == "ok"
        mine.execute("UPDATE counter SET n = n + 1 WHERE id = 2")
        mine.execute("SAVEPOINT s")
        mine.execute("UPDATE counter SET n = n + 1 WHERE id = 1")
        mine.execute("ROLLBACK TO s")
        assert theirs.run("UPDATE counter SET n = n + 10 WHERE id = 1") == "ok"
        assert theirs.run("SET lock_timeout = '50ms'") == "ok"
        assert theirs.run("UPDATE counter SET n = n + 10 WHERE id = 2") == "LockNotAvailable"
        assert theirs.run("UPDATE counter SET n = n + 10 WHERE id = 1") == "ok"
        assert theirs.run("COMMIT") == "ok"
        mine.commit()
    finally:
        theirs.close()
        mine.close()
    reader = txlake.connect(wh, autocommit=True, publish="off")
    assert reader.execute("SELECT id, n FROM counter WHERE id < 3 ORDER BY id").fetchall() == [(1, 10), (2, 1)]
    reader.close()


def test_a_deadlock_between_processes_is_found(wh):
    """``shared_row_locks``: two processes each holding a row the other wants - the kernel finds
    the cycle and the one closing it fails with 40P01; the other goes on once it has rolled
    back."""
    commit_elsewhere(wh, "INSERT INTO log VALUES (0, 0)")
    mine = txlake.connect(wh, isolation_level="READ COMMITTED", publish="off", shared_row_locks=True)
    theirs = Elsewhere(wh, "READ COMMITTED")
    try:
        assert theirs.run("UPDATE counter SET n = n + 10 WHERE id = 2") == "ok"
        mine.execute("UPDATE counter SET n = n + 1 WHERE id = 1")
        theirs.send("UPDATE counter SET n = n + 10 WHERE id = 1")
        assert theirs.waiting()
        with pytest.raises(txlake.DeadlockDetected) as e:
            mine.execute("UPDATE counter SET n = n + 1 WHERE id = 2")
        assert e.value.sqlstate == "40P01"
        mine.rollback()
        assert theirs.reply() == "ok"
        assert theirs.run("COMMIT") == "ok"
    finally:
        theirs.close()
        mine.close()
    reader = txlake.connect(wh, autocommit=True, publish="off")
    assert reader.execute("SELECT n FROM counter ORDER BY id").fetchall() == [(10,), (10,), (0,)]
    reader.close()


def test_shared_row_locks_takes_a_boolean(warehouse):
    with pytest.raises(txlake.DataError) as e:
        txlake.connect(warehouse, shared_row_locks="yes")
    assert e.value.sqlstate == "22023"


HOLDER = r"""
import sys
from txlake.engine.mvcc.locks import TABLE, ProcessLocks
locks = ProcessLocks.for_path(sys.argv[1])
print("held" if locks.take_now(locks.span(("t", TABLE) if sys.argv[2] == "table" else ("t", "key", 1))) else "busy",
      flush=True)
sys.stdin.read()
"""


def hold_elsewhere(path, what):
    """Another process trying for a record lock (``what``: "table" t's range, or "key" 1 of t)
    and keeping it, if it got it, until its stdin closes; and what it got."""
    proc = subprocess.Popen([sys.executable, "-c", HOLDER, path, what], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, text=True, env=child_env())
    return proc, proc.stdout.readline().strip()


def let_go(proc):
    proc.stdin.close()
    proc.wait(timeout=60)


def tried_elsewhere(path, what):
    """Whether another process gets that record lock now ("held" or "busy")."""
    proc, got = hold_elsewhere(path, what)
    let_go(proc)
    return got


def test_record_locks_time_out_cover_their_table_and_go_at_transaction_end(tmp_path):
    """The record locks themselves (engine/mvcc/locks.py), with lock_timeout: a key of a table
    another process holds whole waits that long and fails with 55P03, and is not held in this
    process either; another table's key does not wait; a lock a transaction took is the other
    process's once it ends."""
    from txlake import errors
    from txlake.engine.mvcc.locks import LockTable, ProcessLocks

    class Txn:
        pass

    path = str(tmp_path / "ROWLOCKS")
    locks = LockTable(ProcessLocks.for_path(path))
    holder, got = hold_elsewhere(path, "table")
    try:
        assert got == "held"
        mine = Txn()
        with pytest.raises(errors.LockNotAvailable):
            locks.acquire(mine, ("t", "key", 1), timeout=0.2)
        assert locks.holder(("t", "key", 1)) is None
        assert locks.acquire(mine, ("u", "key", 1), timeout=0.2) is False
    finally:
        let_go(holder)
    locks.release_all(mine)
    other = Txn()
    locks.acquire(other, ("t", "key", 1))
    assert tried_elsewhere(path, "key") == "busy"
    locks.release_all(other)
    assert tried_elsewhere(path, "key") == "held"


CLAIM_NEXT = ("UPDATE jobs SET state = '{who}' WHERE id = (SELECT id FROM jobs WHERE state = 'queued' "
              "ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED)")


@pytest.mark.parametrize("shared, their_job, my_commit", [(True, 2, "ok"), (False, 1, "SerializationFailure")])
def test_skip_locked_across_processes(wh, shared, their_job, my_commit):
    """A job queue's claim in two processes. With ``shared_row_locks`` (and another process
    writing lately) SKIP LOCKED passes over the job this process holds and the other takes the
    next; without it the other cannot see the lock, claims the same job and commits first - and
    this process's COMMIT fails with 40001: one job is never claimed twice."""
    setup = txlake.connect(wh, autocommit=True, publish="off")
    setup.execute("CREATE TABLE jobs (id INT PRIMARY KEY, state TEXT)")
    setup.execute("INSERT INTO jobs VALUES (1, 'queued'), (2, 'queued'), (3, 'queued')")
    setup.close()
    commit_elsewhere(wh, "INSERT INTO log VALUES (0, 0)")  # (another process has written lately)
    mine = txlake.connect(wh, isolation_level="READ COMMITTED", publish="off", shared_row_locks=shared)
    theirs = Elsewhere(wh, "READ COMMITTED")
    try:
        assert theirs.run("SET lock_timeout = '3s'") == "ok"
        mine.execute(CLAIM_NEXT.format(who="mine"))
        assert theirs.run(CLAIM_NEXT.format(who="theirs")) == "ok"
        assert theirs.run("COMMIT") == "ok"
        try:
            mine.commit()
            outcome = "ok"
        except txlake.Error as e:
            outcome = type(e).__name__
        assert outcome == my_commit
    finally:
        theirs.close()
        mine.close()
    reader = txlake.connect(wh, autocommit=True, publish="off")
    claimed = reader.execute("SELECT id, state FROM jobs WHERE state <> 'queued' ORDER BY id").fetchall()
    assert claimed == ([(1, "mine"), (2, "theirs")] if shared else [(1, "theirs")])
    assert (their_job, "theirs") in claimed
    reader.close()


def test_a_job_another_process_claims_between_the_lock_and_the_write_is_not_claimed_twice(wh, monkeypatch):
    """The claim's locking subquery locks job 1 (in this process only), then another process
    claims job 1 and commits before this statement's UPDATE writes it. PostgreSQL's row lock
    would have held that one back; here the write must not follow the row to its new version
    as READ COMMITTED's re-check does (its WHERE is ``id = 1``, still true: the job went to
    both, found by the soak): 40001, and the job stays the other's."""
    from txlake.engine.executor import Executor

    setup = txlake.connect(wh, autocommit=True, publish="off")
    setup.execute("CREATE TABLE jobs (id INT PRIMARY KEY, state TEXT)")
    setup.execute("INSERT INTO jobs VALUES (1, 'queued'), (2, 'queued')")
    setup.close()
    update, between = Executor.update, []

    def claimed_elsewhere_first(self, ctx, stmt, params):
        if not stmt.locking and not between:  # (the write, its locking subquery done)
            between.append(commit_elsewhere(wh, CLAIM_NEXT.format(who="theirs")))
        return update(self, ctx, stmt, params)

    monkeypatch.setattr(Executor, "update", claimed_elsewhere_first)
    mine = txlake.connect(wh, isolation_level="READ COMMITTED", publish="off")
    with pytest.raises(txlake.SerializationFailure):
        mine.execute(CLAIM_NEXT.format(who="mine"))
        mine.commit()
    mine.close()
    assert between
    reader = txlake.connect(wh, autocommit=True, publish="off")
    assert reader.execute("SELECT id, state FROM jobs WHERE state <> 'queued'").fetchall() == [(1, "theirs")]
    reader.close()
