"""SIGKILL in the middle of committing, many times: every acknowledged commit survives, no
partial commit is ever visible, nothing is applied twice, and the warehouse keeps opening and
accepting commits."""

import os
import random
import signal
import subprocess
import sys
import time

import pytest

import txlake
from tests.conftest import REPO, child_env

# The child commits in a loop and prints each id right after commit() returned: a printed id
# is an acknowledged commit. Ids divisible by 3 are multi-statement transactions over three
# tables (an insert into a and b, and a counter update in meta) that must be all or nothing;
# the others are autocommit inserts into solo, and those ending in 1 are then updated by a
# second autocommit statement (a deletion vector plus a new row).
CHILD = r"""
import sys, txlake
c = txlake.connect(sys.argv[1], publish="off")
auto = txlake.connect(sys.argv[1], publish="off", autocommit=True)
i = int(sys.argv[2])
# warm up (imports, first parse and DuckDB query) so the kills land among commits
c.execute("UPDATE meta SET n = n WHERE k = 1")
c.execute("INSERT INTO a VALUES (?, ?)", (-1, "warm-up"))
c.rollback()
auto.execute("SELECT count(*) FROM solo WHERE id = ?", (-1,))
print("ready", flush=True)
while True:
    if i % 3 == 0:
        c.execute("INSERT INTO a VALUES (?, ?)", (i, f"a{i}"))
        c.execute("UPDATE meta SET n = n + 1, last = ? WHERE k = 1", (i,))
        c.execute("INSERT INTO b VALUES (?, ?)", (i, f"b{i}"))
        c.commit()
    else:
        auto.execute("INSERT INTO solo VALUES (?, ?)", (i, 0))
        if i % 10 == 1:
            auto.execute("UPDATE solo SET touched = touched + 1 WHERE id = ?", (i,))
    print(i, flush=True)
    i += 1
"""

SETUP = [
    "CREATE TABLE a (id BIGINT PRIMARY KEY, note TEXT)",
    "CREATE TABLE b (id BIGINT, note TEXT)",          # no key: a commit applied twice would show
    "CREATE TABLE solo (id BIGINT, touched INT)",     # no key either
    "CREATE TABLE meta (k INT PRIMARY KEY, n BIGINT, last BIGINT)",
    "INSERT INTO meta VALUES (1, 0, NULL)",
    "CREATE TABLE parent (round INT)",
]


def read_state(warehouse):
    conn = txlake.connect(warehouse, publish="off")
    try:
        q = lambda sql: conn.execute(sql).fetchall()     # noqa: E731
        return {
            "a": [r[0] for r in q("SELECT id FROM a")],
            "a_notes": q("SELECT count(*) FROM a WHERE note <> 'a' || id"),
            "b": [r[0] for r in q("SELECT id FROM b")],
            "solo": [r[0] for r in q("SELECT id FROM solo")],
            "touched": q("SELECT id, touched FROM solo WHERE touched <> 0 ORDER BY id"),
            "meta": q("SELECT n, last FROM meta"),
            "parent": [r[0] for r in q("SELECT round FROM parent ORDER BY round")],
        }
    finally:
        conn.close()


def acknowledged_lines(text: str) -> list[int]:
    """Complete lines only: a line cut off by the kill was never fully acknowledged."""
    lines = text.split("\n")
    return [int(line) for line in lines[:-1] if line.strip().isdigit()]


@pytest.mark.slow
def test_sigkill_during_commits_loses_nothing_acknowledged(warehouse):
    setup = txlake.connect(warehouse, autocommit=True, publish="off")
    for sql in SETUP:
        setup.execute(sql)
    setup.close()
    rng = random.Random(20240229)
    acknowledged: set[int] = set()
    unacknowledged: set[int] = set()   # committed, but killed before it could say so
    seen: set[int] = set()
    next_id = 1
    rounds = 20
    for round_ in range(rounds):
        child = subprocess.Popen([sys.executable, "-c", CHILD, warehouse, str(next_id)],
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=child_env())
        try:
            if round_ % 5 == 4:
                # now and then kill it while it opens the warehouse / starts its first commit
                time.sleep(rng.uniform(0.0, 0.6))
            else:
                ready = child.stdout.readline()
                assert ready == b"ready\n", child.stderr.read().decode()
                # commits take a few milliseconds each: a delay with sub-millisecond
                # resolution lands the kill at a different point of a commit every round
                time.sleep(rng.uniform(0.0, 0.4))
        finally:
            child.send_signal(signal.SIGKILL)
            # read through the file objects, not communicate(): readline() above may have
            # buffered the first ids printed after "ready", which communicate(), reading the
            # pipe itself, would miss (an acknowledged id taken for an unacknowledged one)
            out, err = child.stdout.read(), child.stderr.read()
            child.wait()
        assert child.returncode == -signal.SIGKILL, err.decode()
        acked_now = acknowledged_lines(out.decode())
        acknowledged.update(acked_now)

        state = read_state(warehouse)
        a, b, solo = state["a"], state["b"], state["solo"]
        present = set(a) | set(solo)
        where = f"round {round_}"
        # every acknowledged commit is there
        assert acknowledged <= present, f"{where}: lost {sorted(acknowledged - present)[:5]}"
        # multi-table transactions are all or nothing
        assert sorted(a) == sorted(b), f"{where}: split commit {sorted(set(a) ^ set(b))[:5]}"
        assert state["meta"] == [(len(a), max(a, default=None))], where
        assert state["a_notes"] == [(0,)], where
        # nothing twice, nothing in the wrong table
        assert len(a) == len(set(a)) and len(b) == len(set(b)) and len(solo) == len(set(solo)), where
        assert all(i % 3 == 0 for i in a) and all(i % 3 != 0 for i in solo), where
        assert not set(a) & set(solo), where
        # what was there stays there; at most the one commit in flight at the kill is present
        # without an acknowledgement
        assert seen <= present, f"{where}: vanished {sorted(seen - present)[:5]}"
        unacked = present - acknowledged - unacknowledged
        assert len(unacked) <= 1 and all(i > max(acked_now, default=next_id - 1) for i in unacked), (where, unacked)
        unacknowledged |= unacked
        seen = present
        # an acknowledged id of the second kind was updated exactly once (the in-flight one may
        # have been killed between its two autocommit statements)
        touched = dict(state["touched"])
        must = {i for i in solo if i % 10 == 1 and i in acknowledged}
        assert must <= set(touched) <= must | unacknowledged and set(touched.values()) <= {1}, where
        assert state["parent"] == list(range(round_)), where

        # the warehouse keeps accepting commits after every kill
        conn = txlake.connect(warehouse, publish="off")
        conn.execute("INSERT INTO parent VALUES (?)", (round_,))
        conn.commit()
        conn.close()
        next_id = max(present | acknowledged | {next_id - 1}) + 1

    assert len(acknowledged) > 2 * rounds                  # the child really was committing
    assert any(i % 3 == 0 for i in acknowledged)
    assert read_state(warehouse)["parent"] == list(range(rounds))


STEP_CHILD = r"""
import sys, txlake
c = txlake.connect(sys.argv[1], publish="sync")
c.execute("INSERT INTO a VALUES (100)")
c.execute("UPDATE b SET id = id + 1000 WHERE id = 0")
c.execute("INSERT INTO b VALUES (100)")
c.commit()
print("acknowledged", flush=True)
"""


@pytest.mark.parametrize("step,committed", [("after-prepare", False), ("before-log", False), ("torn-log", False),
                                            ("after-log", True), ("after-publish", True)])
def test_multi_table_commit_killed_at_each_step_is_all_or_nothing(warehouse, step, committed):
    setup = txlake.connect(warehouse, autocommit=True, publish="sync")
    setup.execute("CREATE TABLE a (id INT PRIMARY KEY)")
    setup.execute("CREATE TABLE b (id INT PRIMARY KEY)")
    setup.execute("INSERT INTO b VALUES (0)")
    setup.close()
    env = dict(os.environ, PYTHONPATH=REPO + os.pathsep + os.environ.get("PYTHONPATH", ""),
               TXLAKE_CRASH_AT=step)
    child = subprocess.run([sys.executable, "-c", STEP_CHILD, warehouse], env=env,
                           capture_output=True, text=True, timeout=120)
    assert child.returncode == 137 and "acknowledged" not in child.stdout, child.stderr
    after = txlake.connect(warehouse, publish="sync")  # reopening recovers and re-publishes
    a = after.execute("SELECT id FROM a").fetchall()
    b = sorted(after.execute("SELECT id FROM b").fetchall())
    assert (a, b) == (([(100,)], [(100,), (1000,)]) if committed else ([], [(0,)]))
    after.execute("INSERT INTO a VALUES (7)")            # and keeps working
    after.commit()
    after.close()
    from tests.paimon_env import read_with_pypaimon
    published = read_with_pypaimon(os.path.join(warehouse, "default.db", "b"))["snapshots"]
    assert sorted(list(published.values())[-1]["rows"]) == ([[100], [1000]] if committed else [[0]])
