"""Row locking for job queues: SELECT ... FOR UPDATE with LIMIT / OFFSET locks only the rows it
returns, SKIP LOCKED passes over rows others hold, and the queue's write - a locking subquery or
CTE in UPDATE / DELETE - claims each job once, workers never waiting for one another."""

import threading

import pytest

import txlake

@pytest.fixture
def jobs(connect):
    conn = connect(isolation_level="READ COMMITTED")
    conn.execute("CREATE TABLE jobs (id INT PRIMARY KEY, state TEXT)")
    conn.execute("INSERT INTO jobs SELECT i, 'queued' FROM range(1, 11) t(i)")
    conn.commit()
    return conn


def other(connect, isolation="READ COMMITTED"):
    conn = connect(isolation_level=isolation)
    conn.execute("SET lock_timeout = '200ms'")
    return conn


def test_limit_locks_only_the_rows_it_returns(jobs, connect):
    assert jobs.execute("SELECT id FROM jobs ORDER BY id LIMIT 2 FOR UPDATE").fetchall() == [(1,), (2,)]
    second = other(connect)
    second.execute("UPDATE jobs SET state = 'x' WHERE id = 3")  # not returned: not locked
    with pytest.raises(txlake.LockNotAvailable):
        second.execute("UPDATE jobs SET state = 'x' WHERE id = 2")
    second.rollback()
    jobs.rollback()


def test_order_by_limit_and_offset(jobs, connect):
    """OFFSET's rows are locked too (PostgreSQL locks below its Limit); the last LIMIT are returned."""
    assert jobs.execute("SELECT id, state FROM jobs ORDER BY id DESC OFFSET 1 LIMIT 2 FOR UPDATE").fetchall() \
        == [(9, "queued"), (8, "queued")]
    second = other(connect)
    for held in (10, 9, 8):
        with pytest.raises(txlake.LockNotAvailable):
            second.execute("SELECT id FROM jobs WHERE id = ? FOR UPDATE", (held,))
        second.rollback()
    assert second.execute("SELECT id FROM jobs WHERE id = 7 FOR UPDATE").fetchall() == [(7,)]
    assert second.execute("SELECT * FROM jobs ORDER BY 1 LIMIT ? FOR UPDATE", (1,)).fetchall() == [(1, "queued")]
    second.rollback()
    jobs.rollback()


def test_skip_locked_takes_the_next_unlocked_rows_without_waiting(jobs, connect):
    assert jobs.execute("SELECT id FROM jobs WHERE id IN (2, 4) FOR UPDATE").fetchall() == [(2,), (4,)]
    second = other(connect)
    assert second.execute("SELECT id FROM jobs ORDER BY id LIMIT 3 FOR UPDATE SKIP LOCKED").fetchall() \
        == [(1,), (3,), (5,)]
    # its own locks it does not skip; without LIMIT every row no other holds
    assert second.execute("SELECT id FROM jobs WHERE id < 7 ORDER BY id FOR SHARE SKIP LOCKED").fetchall() \
        == [(1,), (3,), (5,), (6,)]
    second.rollback()
    jobs.rollback()


def test_skip_locked_passes_over_a_row_an_update_holds(jobs, connect):
    jobs.execute("UPDATE jobs SET state = 'running' WHERE id = 1")
    second = other(connect)
    assert second.execute("SELECT id, state FROM jobs ORDER BY id LIMIT 1 FOR KEY SHARE SKIP LOCKED").fetchall() \
        == [(2, "queued")]
    second.rollback()
    jobs.rollback()


def test_skip_locked_with_nowait_is_a_syntax_error(jobs):
    with pytest.raises(txlake.ProgrammingError) as e:
        jobs.execute("SELECT id FROM jobs FOR UPDATE SKIP LOCKED NOWAIT")
    assert e.value.sqlstate == "42601"


def test_nowait_with_limit_fails_on_a_held_row(jobs, connect):
    jobs.execute("SELECT id FROM jobs WHERE id = 1 FOR UPDATE")
    second = connect(isolation_level="READ COMMITTED")
    with pytest.raises(txlake.LockNotAvailable, match='could not obtain lock on row in relation "jobs"'):
        second.execute("SELECT id FROM jobs ORDER BY id LIMIT 1 FOR UPDATE NOWAIT")
    second.rollback()
    jobs.rollback()


def test_negative_limit_and_offset(jobs):
    with pytest.raises(txlake.DataError) as e:
        jobs.execute("SELECT id FROM jobs LIMIT -1 FOR UPDATE")
    assert e.value.sqlstate == "2201W"
    jobs.rollback()
    with pytest.raises(txlake.DataError) as e:
        jobs.execute("SELECT id FROM jobs OFFSET -1 FOR UPDATE SKIP LOCKED")
    assert e.value.sqlstate == "2201X"
    jobs.rollback()


def test_read_committed_drops_a_row_that_no_longer_matches_and_takes_the_next(jobs, connect):
    """PostgreSQL applies LIMIT after locking: row 1, claimed by a writer that commits while this
    waits, no longer matches its newest version, so row 2 is returned instead - still one row."""
    writer = connect(isolation_level="READ COMMITTED")
    writer.execute("UPDATE jobs SET state = 'done' WHERE id = 1")
    locker = connect(isolation_level="READ COMMITTED")
    locker.execute("SET lock_timeout = '10s'")
    commit = threading.Timer(0.3, writer.commit)
    commit.start()
    try:
        got = locker.execute("SELECT id, state FROM jobs WHERE state = 'queued' ORDER BY id LIMIT 1 FOR UPDATE"
                             ).fetchall()
    finally:
        commit.join()
    assert got == [(2, "queued")]
    locker.rollback()


@pytest.mark.parametrize("isolation", ["REPEATABLE READ", "SERIALIZABLE"])
def test_snapshot_levels_skip_held_rows_but_fail_on_changed_ones(jobs, connect, isolation):
    snap = other(connect, isolation)
    assert snap.execute("SELECT count(*) FROM jobs").fetchall() == [(10,)]  # the snapshot
    jobs.execute("SELECT id FROM jobs WHERE id = 1 FOR UPDATE")
    assert snap.execute("SELECT id FROM jobs ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED").fetchall() == [(2,)]
    jobs.execute("UPDATE jobs SET state = 'running' WHERE id = 3")
    jobs.commit()
    with pytest.raises(txlake.SerializationFailure):  # row 3 changed since the snapshot
        snap.execute("SELECT id FROM jobs WHERE id > 2 ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED")
    snap.rollback()


def test_the_queue_writes_claim_distinct_jobs(jobs, connect):
    second = other(connect)
    assert jobs.execute(
        "UPDATE jobs SET state = 'running' WHERE id IN (SELECT id FROM jobs WHERE state = 'queued' "
        "ORDER BY id LIMIT 2 FOR UPDATE SKIP LOCKED) RETURNING id").fetchall() == [(1,), (2,)]
    assert second.execute(
        "DELETE FROM jobs WHERE id = (SELECT id FROM jobs ORDER BY id FOR UPDATE SKIP LOCKED LIMIT 1) "
        "RETURNING *").fetchall() == [(3, "queued")]
    assert second.execute(
        "WITH next AS (SELECT id FROM jobs WHERE state = ? ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED) "
        "UPDATE jobs SET state = ? FROM next WHERE jobs.id = next.id RETURNING jobs.id, state",
        ("queued", "mine")).fetchall() == [(4, "mine")]
    # nothing left to skip to: no row, no wait
    assert second.execute("DELETE FROM jobs WHERE id IN (SELECT id FROM jobs WHERE id > 100 FOR UPDATE "
                          "SKIP LOCKED)").rowcount == 0
    jobs.commit()
    second.commit()
    assert jobs.execute("SELECT id, state FROM jobs WHERE id <= 5 ORDER BY id").fetchall() == \
        [(1, "running"), (2, "running"), (4, "mine"), (5, "queued")]


@pytest.mark.parametrize("sql", [
    "UPDATE jobs SET state = 'x' WHERE EXISTS (SELECT 1 FROM jobs j WHERE j.id = jobs.id FOR UPDATE)",
    "UPDATE jobs SET state = (SELECT state FROM jobs LIMIT 1 FOR UPDATE)",
    "INSERT INTO jobs SELECT * FROM jobs FOR UPDATE",
    "UPDATE jobs SET state = 'x' WHERE id IN (SELECT a.id FROM jobs a JOIN jobs b ON a.id = b.id FOR UPDATE)",
])
def test_locking_subqueries_it_cannot_run_first_are_refused(jobs, sql):
    with pytest.raises(txlake.NotSupportedError):
        jobs.execute(sql)
    jobs.rollback()


def test_workers_claim_every_job_once_without_blocking(connect):
    """Four threads loop "claim one job, commit" over 200 jobs at READ COMMITTED: each job is
    claimed exactly once, no worker waits for another (lock_timeout: a wait fails the test, not
    hangs it), and no claim fails with 40001."""
    setup = connect(isolation_level="READ COMMITTED")
    setup.execute("CREATE TABLE jobs (id INT PRIMARY KEY, state TEXT, worker INT)")
    setup.execute("INSERT INTO jobs SELECT i, 'queued', NULL FROM range(1, 201) t(i)")
    setup.commit()
    claimed: dict[int, list[int]] = {}
    failures = []

    def worker(n: int):
        conn = connect(isolation_level="READ COMMITTED")
        try:
            conn.execute("SET lock_timeout = '2s'")
            mine = claimed.setdefault(n, [])
            while True:
                rows = conn.execute(
                    "UPDATE jobs SET state = 'running', worker = ? WHERE id = (SELECT id FROM jobs "
                    "WHERE state = 'queued' ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED) RETURNING id",
                    (n,)).fetchall()
                conn.commit()
                if not rows:
                    return
                mine.extend(r[0] for r in rows)
        except Exception as e:  # pragma: no cover - reported below
            failures.append(e)
        finally:
            conn.rollback()

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert not failures
    everything = sorted(i for ids in claimed.values() for i in ids)
    assert everything == list(range(1, 201))
    assert setup.execute("SELECT count(*) FROM jobs WHERE state = 'running'").fetchall() == [(200,)]
    by_worker = dict(setup.execute("SELECT worker, count(*) FROM jobs GROUP BY worker").fetchall())
    assert by_worker == {n: len(ids) for n, ids in claimed.items() if ids}


def test_a_table_without_a_primary_key_and_limit_zero(connect):
    first, second = connect(isolation_level="READ COMMITTED"), connect(isolation_level="READ COMMITTED")
    first.execute("CREATE TABLE nk (v INT, s TEXT)")
    first.execute("INSERT INTO nk VALUES (1, 'a'), (2, 'b'), (3, 'c')")
    first.commit()
    assert first.execute("SELECT v FROM nk ORDER BY v LIMIT 2 FOR UPDATE").fetchall() == [(1,), (2,)]
    second.execute("INSERT INTO nk VALUES (0, 'z')")  # (its own new row: locked by no one else)
    assert sorted(second.execute("DELETE FROM nk WHERE v IN (SELECT v FROM nk ORDER BY v LIMIT 2 FOR UPDATE "
                                 "SKIP LOCKED) RETURNING s").fetchall()) == [("c",), ("z",)]
    cur = second.execute("SELECT v AS w, s FROM nk LIMIT 0 FOR UPDATE")
    assert cur.fetchall() == [] and [d[0] for d in cur.description] == ["w", "s"]
    second.commit()
    first.commit()
    assert first.execute("SELECT v FROM nk ORDER BY v").fetchall() == [(1,), (2,)]
