"""Property: at SERIALIZABLE, whatever the interleaving, the committed transactions' results
and the final state equal those of SOME serial order of just the committed transactions.

Each generated transaction runs on its own connection and thread; the test drives them step
by step in the generated order. A step that has not answered within ``WAITING`` seconds is
taken to be waiting for a lock: the driver goes on with the other transactions' steps (that
transaction's later steps queue behind the waiting one), so a schedule can never hang on a
blocked statement. The serial orders are replayed in a Python model of the table.
"""

import itertools
import queue
import shutil
import tempfile
import threading

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import txlake

INITIAL = {0: 0, 1: 10, 2: 20}
NEW_KEYS = (3, 4)  # keys an INSERT may add (two transactions may race for one)
WAITING = 0.5      # seconds without an answer after which a step counts as blocked
JOIN = 60

ABORTS = (txlake.SerializationFailure, txlake.DeadlockDetected, txlake.IntegrityError)

op = st.one_of(
    st.tuples(st.just("get"), st.sampled_from([*INITIAL, *NEW_KEYS])),        # SELECT by key
    st.tuples(st.just("scan"), st.sampled_from([5, 10, 15, 25])),             # SELECT by predicate
    st.tuples(st.just("sum")),                                                 # whole-table read
    st.tuples(st.just("add"), st.sampled_from([*INITIAL, *NEW_KEYS]), st.integers(-6, 6)),  # UPDATE
    st.tuples(st.just("insert"), st.sampled_from(NEW_KEYS), st.integers(0, 30)),             # INSERT
)


def _own_keys_once(ops) -> bool:
    """A transaction inserts a key at most once (a self-inflicted 23505 tells nothing)."""
    inserted = [o[1] for o in ops if o[0] == "insert"]
    return len(inserted) == len(set(inserted))


transactions = st.lists(st.lists(op, min_size=1, max_size=4).filter(_own_keys_once), min_size=2, max_size=3)


@st.composite
def schedules(draw):
    txns = draw(transactions)
    steps = [i for i, ops in enumerate(txns) for _ in range(len(ops) + 1)]  # +1: its COMMIT
    return txns, draw(st.permutations(steps))


# --- the real thing ------------------------------------------------------------------------

def execute(conn, o):
    if o[0] == "get":
        return conn.execute("SELECT v FROM kv WHERE k = ?", (o[1],)).fetchall()
    if o[0] == "scan":
        return sorted(conn.execute("SELECT k, v FROM kv WHERE v >= ?", (o[1],)).fetchall())
    if o[0] == "sum":
        return conn.execute("SELECT count(*), sum(v) FROM kv").fetchall()
    if o[0] == "add":
        return conn.execute("UPDATE kv SET v = v + ? WHERE k = ?", (o[2], o[1])).rowcount
    return conn.execute("INSERT INTO kv VALUES (?, ?)", (o[1], o[2])).rowcount


class Transaction:
    """One transaction's connection on its own thread; steps arrive through a queue."""

    def __init__(self, path, ops):
        self.ops = ops
        self.results: list = []
        self.outcome = None       # "committed", "aborted" or an unexpected exception's repr
        self.steps: "queue.Queue" = queue.Queue()
        self.conn = txlake.connect(path, isolation_level="SERIALIZABLE", publish="off")
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def step(self) -> threading.Event:
        done = threading.Event()
        self.steps.put(done)
        return done

    def _run(self):
        try:
            for o in self.ops:
                done = self.steps.get()
                if self.outcome is None:
                    try:
                        self.results.append(execute(self.conn, o))
                    except ABORTS:
                        self.outcome = "aborted"
                done.set()
            done = self.steps.get()  # COMMIT
            if self.outcome is None:
                try:
                    self.conn.commit()
                    self.outcome = "committed"
                except ABORTS:
                    self.outcome = "aborted"
            if self.outcome == "aborted":
                self.conn.rollback()
            done.set()
        except Exception as e:  # noqa: BLE001 - reported by the test
            self.outcome = repr(e)
        finally:
            self.conn.close()


def run_schedule(path, txns, steps):
    running = [Transaction(path, ops) for ops in txns]
    waiting: dict[int, threading.Event] = {}
    for i in steps:
        done = running[i].step()
        if i in waiting and not waiting[i].is_set():
            waiting[i] = done  # queued behind its own blocked step
            continue
        if not done.wait(WAITING):
            waiting[i] = done  # blocked: go on with the others
    for t in running:
        t.thread.join(JOIN)
    assert not any(t.thread.is_alive() for t in running), "a transaction never finished"
    return running


# --- the model -----------------------------------------------------------------------------

def replay(order, txns):
    """Results and final state of running ``txns`` one after another in ``order``; None if
    that order is impossible (an INSERT of a key that exists would have failed)."""
    state = dict(INITIAL)
    results = {}
    for i in order:
        seen = []
        for o in txns[i]:
            if o[0] == "get":
                seen.append([(state[o[1]],)] if o[1] in state else [])
            elif o[0] == "scan":
                seen.append(sorted((k, v) for k, v in state.items() if v >= o[1]))
            elif o[0] == "sum":
                seen.append([(len(state), sum(state.values()))])
            elif o[0] == "add":
                if o[1] in state:
                    state[o[1]] += o[2]
                seen.append(int(o[1] in state))
            else:
                if o[1] in state:
                    return None
                state[o[1]] = o[2]
                seen.append(1)
        results[i] = seen
    return results, state


@settings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(schedules())
def test_serializable_outcomes_equal_a_serial_order(schedule):
    txns, steps = schedule
    path = tempfile.mkdtemp(prefix="txlake-ssi-")
    try:
        setup = txlake.connect(path, autocommit=True, publish="off")
        setup.execute("CREATE TABLE kv (k INT PRIMARY KEY, v INT NOT NULL)")
        setup.execute("INSERT INTO kv VALUES " + ", ".join(f"({k}, {v})" for k, v in INITIAL.items()))
        ran = run_schedule(path, txns, steps)
        final = dict(setup.execute("SELECT k, v FROM kv").fetchall())
        setup.close()
        unexpected = [t.outcome for t in ran if t.outcome not in ("committed", "aborted")]
        assert not unexpected, unexpected
        committed = [i for i, t in enumerate(ran) if t.outcome == "committed"]
        # an abort always has a committed cause: a conflicting writer or inserter, a deadlock
        # partner, or the committed members of a dangerous structure
        assert committed, "every transaction aborted"
        observed = {i: ran[i].results for i in committed}
        for order in itertools.permutations(committed):
            serial = replay(order, txns)
            if serial is not None and serial[1] == final and all(serial[0][i] == observed[i] for i in committed):
                return
        raise AssertionError(f"not serializable: transactions {txns}, schedule {steps}, "
                             f"committed {committed}, observed {observed}, final {final}")
    finally:
        shutil.rmtree(path, ignore_errors=True)
