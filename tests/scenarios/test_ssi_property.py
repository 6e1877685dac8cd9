"""Property: at SERIALIZABLE, whatever the interleaving, the committed transactions' reads and
the final state equal those of SOME serial order of the committed transactions."""

import concurrent.futures as cf
import itertools
import shutil
import tempfile

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import txlake

KEYS = (0, 1, 2)
op = st.one_of(
    st.tuples(st.just("read"), st.sampled_from(KEYS)),
    st.tuples(st.just("add"), st.sampled_from(KEYS), st.integers(1, 5)),
    st.tuples(st.just("sum")),
)
transactions = st.lists(st.lists(op, min_size=1, max_size=3), min_size=2, max_size=3)


@st.composite
def schedules(draw):
    txns = draw(transactions)
    steps = [i for i, ops in enumerate(txns) for _ in range(len(ops) + 1)]  # +1: the commit
    return txns, draw(st.permutations(steps))


def run_op(conn, o):
    if o[0] == "read":
        return conn.execute("SELECT v FROM kv WHERE k = ?", (o[1],)).fetchone()[0]
    if o[0] == "add":
        conn.execute("UPDATE kv SET v = v + ? WHERE k = ?", (o[2], o[1]))
        return None
    return conn.execute("SELECT sum(v) FROM kv").fetchone()[0]


def simulate(order, txns):
    state = {k: 0 for k in KEYS}
    reads = {}
    for i in order:
        seen = []
        for o in txns[i]:
            if o[0] == "read":
                seen.append(state[o[1]])
            elif o[0] == "add":
                state[o[1]] += o[2]
                seen.append(None)
            else:
                seen.append(sum(state.values()))
        reads[i] = seen
    return reads, state


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(schedules())
def test_serializable_outcomes_equal_a_serial_order(schedule):
    txns, steps = schedule
    path = tempfile.mkdtemp(prefix="txlake-ssi-")
    pools = [cf.ThreadPoolExecutor(max_workers=1) for _ in txns]
    try:
        setup = txlake.connect(path, autocommit=True, publish="off")
        setup.execute("CREATE TABLE kv (k INT PRIMARY KEY, v INT NOT NULL)")
        setup.execute("INSERT INTO kv VALUES (0, 0), (1, 0), (2, 0)")
        conns = [p.submit(txlake.connect, path, isolation_level="SERIALIZABLE", publish="off").result()
                 for p in pools]
        futures = {i: [] for i in range(len(txns))}
        position = {i: 0 for i in range(len(txns))}
        for i in steps:  # submit in schedule order; a blocked step holds up only its own thread
            if position[i] < len(txns[i]):
                futures[i].append(pools[i].submit(run_op, conns[i], txns[i][position[i]]))
            else:
                futures[i].append(pools[i].submit(conns[i].commit))
            position[i] += 1
        committed, observed = [], {}
        for i, fs in futures.items():
            values, failed = [], False
            for f in fs:
                try:
                    values.append(f.result(timeout=60))
                except (txlake.SerializationFailure, txlake.DeadlockDetected, txlake.InFailedTransaction):
                    failed = True
            if failed:
                pools[i].submit(conns[i].rollback).result(timeout=30)
            else:
                committed.append(i)
                observed[i] = values[:-1]
        final = dict(setup.execute("SELECT k, v FROM kv").fetchall())
        for p, c in zip(pools, conns):
            p.submit(c.close).result(timeout=30)
        setup.close()
        assert committed, "at least one transaction must commit"  # SSI never aborts everyone
        for order in itertools.permutations(committed):
            reads, state = simulate(order, txns)
            if state == final and all(reads[i] == observed[i] for i in committed):
                return
        raise AssertionError(f"not serializable: committed {committed}, observed {observed}, final {final}")
    finally:
        for p in pools:
            p.shutdown(wait=False)
        shutil.rmtree(path, ignore_errors=True)
