"""pgbench-like TPC-B: durable transactions per second and latency, txlake beside SQLite (WAL,
synchronous=FULL) and DuckDB (file-backed) in the same run.

Schema as pgbench's: accounts (100k rows by default), tellers (10 per branch), branches,
history. Each transaction is pgbench's "TPC-B (sort of)":

    UPDATE accounts SET abalance = abalance + ? WHERE aid = ?
    SELECT abalance FROM accounts WHERE aid = ?
    UPDATE tellers  SET tbalance = tbalance + ? WHERE tid = ?
    UPDATE branches SET bbalance = bbalance + ? WHERE bid = ?
    INSERT INTO history (tid, bid, aid, delta, mtime) VALUES (?, ?, ?, ?, CURRENT_TIMESTAMP)
    COMMIT

run by 1 and 4 sessions (threads, each with its own connection to the same database), at each
txlake isolation level. With ``--processes`` each txlake and SQLite session is a process of its
own instead, as pgbench's clients are: Python threads share one interpreter lock, processes
share only the files (txlake's commit log and SQLite's WAL). DuckDB cannot open one database
file from several processes, so its sessions stay threads. A transaction refused with
40001/40P01 (or DuckDB's write conflict, SQLite's busy error) is rolled back and retried, as
``pgbench --max-tries`` does; its latency counts from its first try, and the retries are
reported. txlake's processes share no row locks
unless ``--shared-row-locks`` (its ``shared_row_locks`` option): without, two processes updating
one branch row both go on and the later COMMIT fails with 40001, at every level; with it, the
later UPDATE waits for the earlier transaction, as in PostgreSQL.

pgbench's scale 1 has one branch, so every transaction updates the same branch row and
concurrent sessions can only queue behind each other's row lock. The default here is 4 branches
(40 tellers) so that 4 sessions can overlap; ``--branches 1`` is pgbench's scale 1.

Each engine's database stays open for the whole run, as a server's would: DuckDB's instance
and, through a connection the sessions do not use, txlake's (its caches, key indexes and
background threads). A round's sessions connect to it and close when the round ends. (Before,
txlake's warehouse was reopened at every round: its log replayed, its caches cold, its first
publishing pass inside the measured seconds.) Each txlake level has a warehouse of its own;
before every configuration's turn, each is published up to its newest commit (``CALL
txlake.publish()``), so the publishing still owed for one configuration's commits does not run
in the background of the next one's measured seconds - nor of SQLite's or DuckDB's.

This machine's speed drifts by tens of percent over minutes, so every configuration is
measured in ``--rounds`` rounds of ``--seconds`` each, the configurations taking turns within a
round; a row's tps is the median of its rounds.

    python benchmarks/pgbench.py [--seconds 3] [--rounds 3] [--sessions 1,4] [--accounts 100000]
                                 [--branches 4] [--levels rc,rr,ser] [--publish async]
                                 [--engines txlake,sqlite,duckdb] [--processes] [--shared-row-locks]
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import random
import shutil
import sqlite3
import statistics
import tempfile
import threading
import time
import traceback

import duckdb

import txlake

LEVELS = {"rc": "READ COMMITTED", "rr": "REPEATABLE READ", "ser": "SERIALIZABLE"}

UPDATE_ACCOUNT = "UPDATE accounts SET abalance = abalance + ? WHERE aid = ?"
SELECT_ACCOUNT = "SELECT abalance FROM accounts WHERE aid = ?"
UPDATE_TELLER = "UPDATE tellers SET tbalance = tbalance + ? WHERE tid = ?"
UPDATE_BRANCH = "UPDATE branches SET bbalance = bbalance + ? WHERE bid = ?"
INSERT_HISTORY = "INSERT INTO history (tid, bid, aid, delta, mtime) VALUES (?, ?, ?, ?, CURRENT_TIMESTAMP)"

SCHEMA = [
    "CREATE TABLE accounts (aid INT PRIMARY KEY, bid INT, abalance INT, filler VARCHAR)",
    "CREATE TABLE tellers (tid INT PRIMARY KEY, bid INT, tbalance INT, filler VARCHAR)",
    "CREATE TABLE branches (bid INT PRIMARY KEY, bbalance INT, filler VARCHAR)",
    "CREATE TABLE history (tid INT, bid INT, aid INT, delta INT, mtime TIMESTAMP, filler VARCHAR)",
]


class Workload:
    def __init__(self, accounts: int, branches: int):
        self.accounts, self.branches, self.tellers = accounts, branches, 10 * branches

    def draw(self, rng: random.Random) -> tuple[int, int, int, int]:
        aid, tid = rng.randrange(self.accounts), rng.randrange(self.tellers)
        return aid, tid, tid % self.branches, rng.randint(-5000, 5000)

    def transaction(self, execute, fetch, draw) -> None:
        aid, tid, bid, delta = draw
        execute(UPDATE_ACCOUNT, (delta, aid))
        fetch(SELECT_ACCOUNT, (aid,))
        execute(UPDATE_TELLER, (delta, tid))
        execute(UPDATE_BRANCH, (delta, bid))
        execute(INSERT_HISTORY, (tid, bid, aid, delta))


class Stats:
    def __init__(self):
        self.lock = threading.Lock()
        self.latencies: list[float] = []
        self.retries = 0
        self.errors: list[str] = []

    def add(self, latencies: list[float], retries: int) -> None:
        with self.lock:
            self.latencies.extend(latencies)
            self.retries += retries


def session_loop(run, retryable, workload: Workload, rng: random.Random, stop, latencies: list[float]) -> int:
    """Run transactions until ``stop`` is set, appending each committed one's latency (from
    its first try, retries included) to ``latencies``; returns the number of retries. One still
    being retried when the run stops is given up, and not counted."""
    retries = 0
    while not stop.is_set():
        draw = workload.draw(rng)
        t0 = time.perf_counter()
        while True:
            try:
                run(draw)
            except Exception as e:
                if not retryable(e):
                    raise
                retries += 1
                if stop.is_set():
                    break
                continue
            latencies.append(time.perf_counter() - t0)
            break
    return retries


def warm_up(run, retryable, workload: Workload, rng: random.Random) -> None:
    """One transaction before the clock starts (imports, parsing, a connection's first reads
    of files and key indexes), as a pgbench client has connected before its measured run."""
    try:
        run(workload.draw(rng))
    except Exception as e:
        if not retryable(e):
            raise


def drive(sessions: int, seconds: float, workload: Workload, make_client, stats: Stats) -> float:
    """Run ``sessions`` threads for ``seconds``; each ``make_client()`` returns
    (run_one_transaction(draw), is_retryable(exc), close()). Returns the elapsed time."""
    start_gate = threading.Barrier(sessions + 1)
    stop = threading.Event()

    def worker(seed: int) -> None:
        rng = random.Random(seed)
        try:
            run, retryable, close = make_client()
        except BaseException as e:
            stats.errors.append(repr(e))
            start_gate.abort()
            return
        latencies: list[float] = []
        retries = 0
        try:
            warm_up(run, retryable, workload, rng)
            start_gate.wait()
            retries = session_loop(run, retryable, workload, rng, stop, latencies)
        except BaseException as e:
            stats.errors.append(repr(e))
            stop.set()
        finally:
            stats.add(latencies, retries)
            close()

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(sessions)]
    for t in threads:
        t.start()
    start_gate.wait()
    t0 = time.perf_counter()
    time.sleep(seconds)
    stop.set()
    for t in threads:
        t.join()
    return time.perf_counter() - t0


def drive_processes(sessions: int, seconds: float, client_spec: tuple, stats: Stats) -> float:
    """``drive`` with each session in a process of its own; ``client_spec`` is
    (client factory name, its arguments), rebuilt in the child."""
    ctx = multiprocessing.get_context("spawn")
    start, stop, results = ctx.Event(), ctx.Event(), ctx.Queue()
    procs = [ctx.Process(target=_session_process, args=(client_spec, i, start, stop, results))
             for i in range(sessions)]
    for p in procs:
        p.start()
    running = sessions
    for _ in range(sessions):  # each child says it is connected and warmed up, or why not
        kind, detail = results.get(timeout=300)
        if kind != "ready":
            stats.errors.append(detail)
            running -= 1
    start.set()
    t0 = time.perf_counter()
    time.sleep(seconds)
    stop.set()
    elapsed = time.perf_counter() - t0
    for _ in range(running):
        latencies, retries, error = results.get(timeout=300)
        stats.add(latencies, retries)
        if error:
            stats.errors.append(error)
    for p in procs:
        p.join()
    return elapsed


def _session_process(client_spec: tuple, seed: int, start, stop, results) -> None:
    factory, args = client_spec
    latencies, retries, error = [], 0, None
    try:
        workload = Workload(*args[-1])
        run, retryable, close = globals()[factory](*args[:-1], workload)()
        rng = random.Random(1000 + seed)
        warm_up(run, retryable, workload, rng)
    except BaseException:
        results.put(("failed", traceback.format_exc()))
        return
    results.put(("ready", None))
    start.wait()
    try:
        retries = session_loop(run, retryable, workload, rng, stop, latencies)
    except BaseException:
        error = traceback.format_exc()
    finally:
        close()
        results.put((latencies, retries, error))


# --- engines -------------------------------------------------------------------------------

def load(execute, w: Workload) -> None:
    """The schema and its rows, through an ``execute`` that runs DuckDB-dialect SQL."""
    for ddl in SCHEMA:
        execute(ddl)
    execute(f"INSERT INTO accounts SELECT range, range % {w.branches}, 0, '' FROM range({w.accounts})")
    execute(f"INSERT INTO tellers SELECT range, range % {w.branches}, 0, '' FROM range({w.tellers})")
    execute(f"INSERT INTO branches SELECT range, 0, '' FROM range({w.branches})")


def setup_txlake(path: str, workload: Workload, publish: str) -> None:
    c = txlake.connect(path, autocommit=True, publish=publish)
    load(c.execute, workload)
    c.close()


def txlake_client(path: str, level: str, publish: str, shared_row_locks: bool, workload: Workload):
    def make():
        conn = txlake.connect(path, isolation_level=level, publish=publish, durable=True,
                              shared_row_locks=shared_row_locks)
        cur = conn.cursor()

        def fetch(sql, params):
            cur.execute(sql, params)
            cur.fetchall()

        def run(draw):
            try:
                workload.transaction(cur.execute, fetch, draw)
                conn.commit()
            except BaseException:
                conn.rollback()
                raise

        def retryable(e):
            return isinstance(e, (txlake.SerializationFailure, txlake.DeadlockDetected))
        return run, retryable, conn.close
    return make


def setup_sqlite(path: str, workload: Workload) -> None:
    con = sqlite3.connect(path, isolation_level=None)
    con.execute("PRAGMA journal_mode=WAL")
    for ddl in SCHEMA:
        con.execute(ddl)
    w = workload
    con.execute("BEGIN")
    con.executemany("INSERT INTO accounts VALUES (?, ?, 0, '')", ((i, i % w.branches) for i in range(w.accounts)))
    con.executemany("INSERT INTO tellers VALUES (?, ?, 0, '')", ((i, i % w.branches) for i in range(w.tellers)))
    con.executemany("INSERT INTO branches VALUES (?, 0, '')", ((i,) for i in range(w.branches)))
    con.execute("COMMIT")
    con.close()


def sqlite_client(path: str, workload: Workload):
    def make():
        con = sqlite3.connect(path, isolation_level=None, timeout=30, check_same_thread=False)
        con.execute("PRAGMA synchronous=FULL")

        def fetch(sql, params):
            con.execute(sql, params).fetchall()

        def run(draw):
            con.execute("BEGIN IMMEDIATE")  # writers queue on the database lock up front
            try:
                workload.transaction(con.execute, fetch, draw)
                con.execute("COMMIT")
            except BaseException:
                con.execute("ROLLBACK")
                raise

        def retryable(e):
            return isinstance(e, sqlite3.OperationalError) and "locked" in str(e)
        return run, retryable, con.close
    return make


def setup_duckdb(path: str, workload: Workload):
    con = duckdb.connect(path)
    load(con.execute, workload)
    con.execute("CHECKPOINT")
    return con  # kept open: connections in other threads share its database instance


def duckdb_client(root: duckdb.DuckDBPyConnection, workload: Workload):
    def make():
        con = root.cursor()  # a new connection to the same database instance

        def fetch(sql, params):
            con.execute(sql, params).fetchall()

        def run(draw):
            con.execute("BEGIN TRANSACTION")
            try:
                workload.transaction(con.execute, fetch, draw)
                con.execute("COMMIT")
            except BaseException:
                try:
                    con.execute("ROLLBACK")
                except duckdb.Error:
                    pass
                raise

        def retryable(e):
            return isinstance(e, duckdb.TransactionException) or "Conflict" in str(e)
        return run, retryable, con.close
    return make


# --- reporting -----------------------------------------------------------------------------

def summarise(stats: Stats, elapsed: float) -> dict:
    lat = sorted(stats.latencies)
    if not lat:
        return {"tps": 0.0, "p50": float("nan"), "p99": float("nan"), "retries": stats.retries, "n": 0}
    return {"tps": len(lat) / elapsed, "p50": statistics.median(lat) * 1000,
            "p99": lat[min(len(lat) - 1, int(len(lat) * 0.99))] * 1000, "retries": stats.retries, "n": len(lat)}


def measure_rounds(configs: list, args, workload: Workload, shape: tuple,
                   settle=lambda: None) -> list[tuple[str, int, dict]]:
    """Measure every configuration ``args.rounds`` times, the configurations taking turns
    within each round: this machine's speed drifts by tens of percent over minutes, and
    measuring one engine after another would put that drift into the ratios. A row's tps is
    the median of its rounds; its latencies are all its rounds' together. ``settle()`` runs
    before each turn: background work left by the turn before does not count in the next."""
    stats = {(name, n): Stats() for name, n, _, _ in configs}
    tps = {key: [] for key in stats}
    elapsed = {key: 0.0 for key in stats}
    for _ in range(args.rounds):
        for name, n, make, spec in configs:
            settle()
            round_stats = Stats()
            if args.processes and spec is not None:
                took = drive_processes(n, args.seconds, (spec[0], (*spec[1], shape)), round_stats)
            else:
                took = drive(n, args.seconds, workload, make, round_stats)
            total = stats[(name, n)]
            total.add(round_stats.latencies, round_stats.retries)
            total.errors.extend(round_stats.errors)
            tps[(name, n)].append(len(round_stats.latencies) / took)
            elapsed[(name, n)] += took
            print(f"  {name:34} sessions={n}: {tps[(name, n)][-1]:8.1f} tps" +
                  (f"  ERROR {round_stats.errors[0]}" if round_stats.errors else ""), flush=True)
    rows = []
    for name, n, _, _ in configs:
        result = summarise(stats[(name, n)], elapsed[(name, n)])
        result["tps"] = statistics.median(tps[(name, n)])
        if stats[(name, n)].errors:
            result["error"] = stats[(name, n)].errors[0]
        rows.append((name, n, result))
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seconds", type=float, default=3.0, help="measured time per configuration and round")
    ap.add_argument("--rounds", type=int, default=3,
                    help="rounds; the configurations take turns in each, and a row's tps is its median")
    ap.add_argument("--sessions", default="1,4")
    ap.add_argument("--accounts", type=int, default=100_000)
    ap.add_argument("--branches", type=int, default=4)
    ap.add_argument("--levels", default="rc,rr,ser", help="txlake levels: rc, rr, ser")
    ap.add_argument("--publish", default="async", help="txlake publish mode (async, sync, off)")
    ap.add_argument("--engines", default="txlake,sqlite,duckdb")
    ap.add_argument("--dir", default=None, help="where to put the databases (default: a temp dir)")
    ap.add_argument("--processes", action="store_true",
                    help="run txlake and SQLite sessions as processes, not threads")
    ap.add_argument("--shared-row-locks", action="store_true",
                    help="txlake's shared_row_locks: with --processes, a row update waits for another "
                         "process's open transaction that updated the row (instead of a 40001 at COMMIT)")
    args = ap.parse_args()
    sessions = [int(s) for s in args.sessions.split(",")]
    engines = args.engines.split(",")
    workload = Workload(args.accounts, args.branches)
    shape = (args.accounts, args.branches)
    root = tempfile.mkdtemp(prefix="txlake-pgbench-", dir=args.dir)
    # (name, sessions, make, process spec): every configuration, measured in rounds below
    configs: list[tuple[str, int, object, tuple | None]] = []
    duck_con = None
    # a connection to each txlake warehouse, open for the whole run as ``duck_con`` is: the
    # database instance, its caches and background threads outlive a round's sessions, as a
    # server's do (processes open their own)
    keepers = []
    try:
        if "txlake" in engines:
            for level in args.levels.split(","):
                path = os.path.join(root, f"txlake-{level}")
                setup_txlake(path, workload, args.publish)
                keepers.append(txlake.connect(path, publish=args.publish, durable=True,
                                              shared_row_locks=args.shared_row_locks))
                for n in sessions:
                    configs.append((f"txlake {LEVELS[level]}", n,
                                    txlake_client(path, LEVELS[level], args.publish, args.shared_row_locks, workload),
                                    ("txlake_client", (path, LEVELS[level], args.publish, args.shared_row_locks))))
        if "sqlite" in engines:
            path = os.path.join(root, "lite.db")
            setup_sqlite(path, workload)
            for n in sessions:
                configs.append(("SQLite (WAL, synchronous=FULL)", n, sqlite_client(path, workload),
                                ("sqlite_client", (path,))))
        if "duckdb" in engines:
            duck_con = setup_duckdb(os.path.join(root, "duck.db"), workload)
            for n in sessions:
                configs.append(("DuckDB (file)", n, duckdb_client(duck_con, workload), None))
        rows = measure_rounds(configs, args, workload, shape,
                              settle=lambda: [keeper.execute("CALL txlake.publish()") for keeper in keepers])
    finally:
        for keeper in keepers:
            keeper.close()
        if duck_con is not None:
            duck_con.close()
        shutil.rmtree(root, ignore_errors=True)

    ref = {(name, n): r for name, n, r in rows}
    duck = {n: ref.get(("DuckDB (file)", n)) for n in sessions}
    lite = {n: ref.get(("SQLite (WAL, synchronous=FULL)", n)) for n in sessions}
    one = {name: r for name, n, r in rows if n == sessions[0]}

    def ratio(a: dict, b: dict | None) -> str:
        return f"{a['tps'] / b['tps']:8.2f}x" if b and b["tps"] else f"{'-':>9}"

    print(f"\npgbench-like TPC-B, {args.accounts:,} accounts, {workload.branches} branches, "
          f"{workload.tellers} tellers, {args.rounds} rounds of {args.seconds:g} s per row (tps: their "
          f"median), durable commits "
          f"(txlake publish={args.publish}); sessions are "
          f"{'processes (DuckDB: threads)' if args.processes else 'threads'}\n")
    header = (f"{'engine':34} {'sess':>4} {'tps':>9} {'p50 ms':>8} {'p99 ms':>8} {'retries':>7} "
              f"{'vs DuckDB':>9} {'vs SQLite':>9} {'vs 1 sess':>9}")
    print(header)
    print("-" * len(header))
    for name, n, r in rows:
        base = one.get(name) if n != sessions[0] else None
        print(f"{name:34} {n:4d} {r['tps']:9.1f} {r['p50']:8.2f} {r['p99']:8.2f} {r['retries']:7d} "
              f"{ratio(r, duck[n])} {ratio(r, lite[n])} {ratio(r, base) if base else format('-', '>9')}")
    print("\nratios: tps / the other engine's tps with the same number of sessions (higher is better);"
          "\n'vs 1 sess': tps / the same engine's 1-session tps")


if __name__ == "__main__":
    main()
