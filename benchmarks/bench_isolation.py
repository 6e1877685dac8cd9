"""pgbench-like (TPC-B) throughput and abort rate at each isolation level, 1/2/4 threads.

Each transaction: update an account by key, read its balance, update a teller and a branch,
insert a history row; retried on 40001/40P01. SQLite (file, WAL) runs the same workload in the
same run as the comparison (it serialises writers with a database lock, so it never aborts).

    python benchmarks/bench_isolation.py [--seconds 3] [--accounts 10000] [--threads 1,2,4]
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import sqlite3
import tempfile
import threading
import time

import txlake

BRANCHES, TELLERS = 4, 40
RETRYABLE = (txlake.SerializationFailure, txlake.DeadlockDetected)


def setup_txlake(path: str, accounts: int) -> None:
    c = txlake.connect(path, autocommit=True, publish="off")
    c.execute("CREATE TABLE accounts (aid INT PRIMARY KEY, bid INT, abalance INT)")
    c.execute("CREATE TABLE tellers (tid INT PRIMARY KEY, bid INT, tbalance INT)")
    c.execute("CREATE TABLE branches (bid INT PRIMARY KEY, bbalance INT)")
    c.execute("CREATE TABLE history (tid INT, bid INT, aid INT, delta INT, mtime TIMESTAMP)")
    c.execute(f"INSERT INTO accounts SELECT range, range % {BRANCHES}, 0 FROM range({accounts})")
    c.execute(f"INSERT INTO tellers SELECT range, range % {BRANCHES}, 0 FROM range({TELLERS})")
    c.execute(f"INSERT INTO branches SELECT range, 0 FROM range({BRANCHES})")
    c.close()


def tpcb(execute, rng: random.Random, accounts: int) -> None:
    aid, tid = rng.randrange(accounts), rng.randrange(TELLERS)
    bid, delta = tid % BRANCHES, rng.randint(-5000, 5000)
    execute("UPDATE accounts SET abalance = abalance + ? WHERE aid = ?", (delta, aid))
    execute("SELECT abalance FROM accounts WHERE aid = ?", (aid,))
    execute("UPDATE tellers SET tbalance = tbalance + ? WHERE tid = ?", (delta, tid))
    execute("UPDATE branches SET bbalance = bbalance + ? WHERE bid = ?", (delta, bid))
    execute("INSERT INTO history VALUES (?, ?, ?, ?, CURRENT_TIMESTAMP)", (tid, bid, aid, delta))


def run_txlake(path: str, level: str, threads: int, seconds: float, accounts: int) -> tuple[float, float]:
    commits, aborts = [0], [0]
    lock = threading.Lock()
    deadline = time.monotonic() + seconds

    def worker(seed: int) -> None:
        rng = random.Random(seed)
        conn = txlake.connect(path, isolation_level=level, publish="off")
        cur = conn.cursor()
        done = failed = 0
        while time.monotonic() < deadline:
            try:
                tpcb(cur.execute, rng, accounts)
                conn.commit()
                done += 1
            except RETRYABLE:
                conn.rollback()
                failed += 1
        conn.close()
        with lock:
            commits[0] += done
            aborts[0] += failed

    ts = [threading.Thread(target=worker, args=(i,)) for i in range(threads)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    total = commits[0] + aborts[0]
    return commits[0] / seconds, (100.0 * aborts[0] / total if total else 0.0)


def run_sqlite(path: str, threads: int, seconds: float, accounts: int) -> float:
    con = sqlite3.connect(path)
    con.executescript("""
        PRAGMA journal_mode=WAL;
        CREATE TABLE IF NOT EXISTS accounts (aid INT PRIMARY KEY, bid INT, abalance INT);
        CREATE TABLE IF NOT EXISTS tellers (tid INT PRIMARY KEY, bid INT, tbalance INT);
        CREATE TABLE IF NOT EXISTS branches (bid INT PRIMARY KEY, bbalance INT);
        CREATE TABLE IF NOT EXISTS history (tid INT, bid INT, aid INT, delta INT, mtime TIMESTAMP);
    """)
    if not con.execute("SELECT count(*) FROM accounts").fetchone()[0]:
        con.executemany("INSERT INTO accounts VALUES (?, ?, 0)", ((i, i % BRANCHES) for i in range(accounts)))
        con.executemany("INSERT INTO tellers VALUES (?, ?, 0)", ((i, i % BRANCHES) for i in range(TELLERS)))
        con.executemany("INSERT INTO branches VALUES (?, 0)", ((i,) for i in range(BRANCHES)))
        con.commit()
    con.close()
    commits = [0]
    lock = threading.Lock()
    deadline = time.monotonic() + seconds

    def worker(seed: int) -> None:
        rng = random.Random(seed)
        c = sqlite3.connect(path, timeout=30, isolation_level=None)
        c.execute("PRAGMA synchronous=FULL")
        done = 0
        while time.monotonic() < deadline:
            c.execute("BEGIN IMMEDIATE")
            tpcb(c.execute, rng, accounts)
            c.execute("COMMIT")
            done += 1
        c.close()
        with lock:
            commits[0] += done

    ts = [threading.Thread(target=worker, args=(i,)) for i in range(threads)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    return commits[0] / seconds


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seconds", type=float, default=3.0)
    ap.add_argument("--accounts", type=int, default=10000)
    ap.add_argument("--threads", default="1,2,4")
    args = ap.parse_args()
    threads = [int(t) for t in args.threads.split(",")]
    root = tempfile.mkdtemp(prefix="txlake-tpcb-")
    rows = []
    try:
        path = os.path.join(root, "tx")
        setup_txlake(path, args.accounts)
        sqlite_rates = {n: run_sqlite(os.path.join(root, "lite.db"), n, args.seconds, args.accounts) for n in threads}
        for level in ("READ COMMITTED", "REPEATABLE READ", "SERIALIZABLE"):
            for n in threads:
                tps, abort = run_txlake(path, level, n, args.seconds, args.accounts)
                rows.append((level, n, tps, abort, sqlite_rates[n]))
    finally:
        shutil.rmtree(root, ignore_errors=True)
    print(f"\nTPC-B-like transactions, {args.accounts} accounts, {args.seconds:g} s per cell, retry on 40001/40P01\n")
    header = f"{'level':16} {'threads':>7} {'txlake txn/s':>12} {'abort %':>8} {'SQLite txn/s':>12} {'ratio':>7}"
    print(header)
    print("-" * len(header))
    for level, n, tps, abort, lite in rows:
        print(f"{level:16} {n:7d} {tps:12.1f} {abort:8.2f} {lite:12.1f} {tps / lite:6.2f}x")


if __name__ == "__main__":
    main()
