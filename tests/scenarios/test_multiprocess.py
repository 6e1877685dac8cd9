"""Several processes commit to one warehouse: optimistic commits through put-if-absent log
entries, with the data-conflict check. Real processes, no shared locks."""

import subprocess
import sys

import pytest

import txlake
from tests.conftest import REPO

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
                              env={"PYTHONPATH": REPO, "PATH": "/usr/bin:/bin"})
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


def commit_elsewhere(path, sql):
    """``sql`` committed by another process (autocommit), start to end."""
    code = "import sys, txlake; txlake.connect(sys.argv[1], autocommit=True, publish='off').execute(sys.argv[2])"
    done = subprocess.run([sys.executable, "-c", code, path, sql], capture_output=True, text=True, timeout=120,
                          env={"PYTHONPATH": REPO, "PATH": "/usr/bin:/bin"})
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
    """No shared locks across processes: a write another process commits between this
    transaction's statement and its COMMIT is caught by the commit's data-conflict check,
    whatever the level (READ COMMITTED included: the statement already ran on the old row)."""
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
