"""SIGKILL in the middle of committing, many times: every acknowledged commit survives, no
partial commit is ever visible, and the warehouse keeps working."""

import os
import random
import signal
import subprocess
import sys
import time

import pytest

import txlake
from tests.conftest import REPO

CHILD = r"""
import sys, txlake
c = txlake.connect(sys.argv[1], publish=sys.argv[3])
start = int(sys.argv[2])
i = start
while True:
    if i % 3 == 0:   # a two-table transaction: both rows or neither
        c.execute("INSERT INTO a VALUES (?)", (i,))
        c.execute("INSERT INTO b VALUES (?)", (i,))
    else:
        c.execute("INSERT INTO a VALUES (?)", (i,))
    c.commit()
    print(i, flush=True)    # the acknowledgement: printed only after commit() returned
    i += 1
"""


@pytest.mark.slow
def test_sigkill_during_commits_loses_nothing_acknowledged(warehouse):
    setup = txlake.connect(warehouse, autocommit=True, publish="off")
    setup.execute("CREATE TABLE a (id INT PRIMARY KEY)")
    setup.execute("CREATE TABLE b (id INT PRIMARY KEY)")
    setup.close()
    env = dict(os.environ, PYTHONPATH=REPO)
    rng = random.Random(7)
    acknowledged: set[int] = set()
    next_id = 0
    for round_ in range(16):
        publish = "async" if round_ % 2 else "off"
        child = subprocess.Popen([sys.executable, "-c", CHILD, warehouse, str(next_id), publish],
                                 stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
        # wait until it is committing, then kill it at a random moment
        first = child.stdout.readline()
        assert first, child.stderr.read()
        acknowledged.add(int(first))
        time.sleep(rng.uniform(0.0, 0.4))
        child.send_signal(signal.SIGKILL)
        out, _ = child.communicate()
        acknowledged.update(int(line) for line in out.split())

        check = txlake.connect(warehouse, publish="off")
        a = {r[0] for r in check.execute("SELECT id FROM a").fetchall()}
        b = {r[0] for r in check.execute("SELECT id FROM b").fetchall()}
        check.close()
        assert acknowledged <= a, f"round {round_}: lost acknowledged commits {sorted(acknowledged - a)[:5]}"
        assert {i for i in a if i % 3 == 0} == b, f"round {round_}: a two-table commit was split"
        assert len(a) == len(set(a))
        next_id = max(a | {next_id}) + 1
    assert len(acknowledged) > 16


STEP_CHILD = r"""
import sys, txlake
c = txlake.connect(sys.argv[1], publish="sync")
c.execute("INSERT INTO a VALUES (100)")
c.execute("UPDATE b SET id = id + 1000 WHERE id = 0")
c.execute("INSERT INTO b VALUES (100)")
c.commit()
print("acknowledged", flush=True)
"""


@pytest.mark.parametrize("step,committed", [("after-prepare", False), ("before-log", False),
                                            ("after-log", True), ("after-publish", True)])
def test_multi_table_commit_killed_at_each_step_is_all_or_nothing(warehouse, step, committed):
    setup = txlake.connect(warehouse, autocommit=True, publish="sync")
    setup.execute("CREATE TABLE a (id INT PRIMARY KEY)")
    setup.execute("CREATE TABLE b (id INT PRIMARY KEY)")
    setup.execute("INSERT INTO b VALUES (0)")
    setup.close()
    env = dict(os.environ, PYTHONPATH=REPO, TXLAKE_CRASH_AT=step)
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
