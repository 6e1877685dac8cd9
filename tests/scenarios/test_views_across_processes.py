"""Views across processes: there are no shared DDL locks, so the commit's vote settles what
PostgreSQL's locks would - one of two processes creating one name wins (the other: 42P07 or
40001), and a view never outlives, nor is committed without, the tables and columns it reads."""

import subprocess
import sys

import pytest

import txlake
from tests.conftest import child_env, run_python, waiting

RACER = r"""
import sys, txlake
c = txlake.connect(sys.argv[1], publish="off")
c.execute(sys.argv[2])
print("ready", flush=True)
sys.stdin.readline()
try:
    c.commit()
    print("ok", flush=True)
except txlake.Error as e:
    print(e.sqlstate, flush=True)
"""


@pytest.fixture
def wh(warehouse):
    c = txlake.connect(warehouse, autocommit=True, publish="off")
    c.execute("CREATE TABLE t (id INT PRIMARY KEY, n INT, note TEXT)")
    c.execute("INSERT INTO t VALUES (1, 10, 'a'), (2, 20, 'b')")
    c.close()
    return warehouse


def elsewhere(path, sql):
    done = run_python("import sys, txlake; txlake.connect(sys.argv[1], autocommit=True, publish='off')"
                      ".execute(sys.argv[2])", path, sql)
    assert done.returncode == 0, done.stderr


def test_two_processes_creating_one_view_one_wins(wh):
    racers = [subprocess.Popen([sys.executable, "-c", RACER, wh, f"CREATE VIEW v AS SELECT {i} AS i, n FROM t"],
                               stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, env=child_env())
              for i in range(2)]
    for p in racers:
        assert p.stdout.readline().strip() == "ready"  # both created it in their open transactions
    for p in racers:
        p.stdin.write("go\n")
        p.stdin.flush()
    outcomes = sorted(p.stdout.readline().strip() for p in racers)
    for p in racers:
        p.wait(timeout=60)
    assert outcomes[1] == "ok" and outcomes[0] in ("40001", "42P07"), outcomes
    c = txlake.connect(wh, autocommit=True, publish="off")
    assert len(c.execute("SELECT * FROM v").fetchall()) == 2
    assert c.execute("SELECT count(*) FROM information_schema.views").fetchall() == [(1,)]
    c.close()


@pytest.mark.parametrize("theirs", ["DROP TABLE t", "ALTER TABLE t DROP COLUMN n",
                                    "ALTER TABLE t ALTER COLUMN n TYPE BIGINT", "ALTER TABLE t RENAME COLUMN n TO m"])
def test_a_view_is_not_committed_over_what_another_process_dropped_meanwhile(wh, theirs):
    c = txlake.connect(wh, publish="off")
    c.execute("CREATE VIEW v AS SELECT id, n FROM t")
    elsewhere(wh, theirs)  # (no view committed yet: nothing stops it)
    with pytest.raises(txlake.SerializationFailure):
        c.commit()
    c.rollback()
    with pytest.raises(txlake.ProgrammingError):
        c.execute("SELECT * FROM v")
    c.close()


def test_a_view_reading_only_other_columns_is_committed(wh):
    c = txlake.connect(wh, publish="off")
    c.execute("CREATE VIEW v AS SELECT id, n FROM t")
    elsewhere(wh, "ALTER TABLE t DROP COLUMN note")
    c.commit()
    assert c.execute("SELECT * FROM v ORDER BY id").fetchall() == [(1, 10), (2, 20)]
    c.close()


@pytest.mark.parametrize("mine", ["DROP TABLE t", "ALTER TABLE t DROP COLUMN n", "ALTER TABLE t RENAME COLUMN n TO m"])
def test_a_table_is_not_dropped_under_a_view_another_process_committed_meanwhile(wh, mine):
    c = txlake.connect(wh, publish="off")
    c.execute(mine)
    elsewhere(wh, "CREATE VIEW v AS SELECT n FROM t")
    with pytest.raises(txlake.SerializationFailure):
        c.commit()
    c.rollback()
    assert c.execute("SELECT * FROM v ORDER BY n").fetchall() == [(10,), (20,)]
    c.close()


def test_sessions_of_one_process_settle_it_the_same_way(wh):
    """In one process the table locks order them first (PostgreSQL's answers, not a 40001 at
    COMMIT): CREATE VIEW over a table another session is dropping waits for the DROP, then finds
    no table (42P01)."""
    a = txlake.connect(wh, publish="off")
    b = txlake.connect(wh, publish="off")
    a.execute("DROP TABLE t")
    thread, outcome = waiting(b, "CREATE VIEW v AS SELECT n FROM t")
    a.commit()
    thread.join(30)
    assert outcome == ["42P01"]
    b.rollback()
    assert b.execute("SELECT count(*) FROM information_schema.tables").fetchall() == [(0,)]
    a.close()
    b.close()
