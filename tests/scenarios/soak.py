"""Soak run: one warehouse under threads, processes, SIGKILL and maintenance at once, its
invariants checked throughout and at the end. Not collected by pytest (it runs for minutes and
is random by design); run it by hand after a change to the concurrency or storage code:

    python tests/scenarios/soak.py [--seconds 90] [--seed 1] [--threads 3] [--no-processes]
                                   [--no-kill] [--maintenance compact,publish,expire,orphans,alter]
                                   [--ops transfer,nokey,merge,bulk,rekey,move,savepoint] [WAREHOUSE]

A bank: ``acct`` (primary key) and ``nokey`` (none) hold 40 accounts of 1,000 each. Every
transaction keeps each table's total - transfers by point UPDATEs, a two-row MERGE, a
whole-table UPDATE, savepoints, key changes (UPDATE of the key, DELETE + INSERT) - at a random
level, retried on 40001/40P01. Meanwhile a thread compacts, publishes, expires snapshots,
removes orphan files and alters another table; a process runs the same workload to the end, and
others are started and killed with SIGKILL every few seconds.

Checked: every reader (REPEATABLE READ) sees both totals and the view over ``acct`` agrees; no
statement fails but with an error its transaction may expect; the totals hold at the end, after
a reopen (log replay) and in every published Paimon snapshot (read by pypaimon, when a python
with it is at hand: ``TXLAKE_PAIMON_PYTHON`` or the repository's ``.venv-paimon``). Exit
status 1 if anything was wrong; the problems are printed as they happen.

Key changes make READ COMMITTED's re-evaluation matter: a transfer whose row changed its key
meanwhile does not match (as in PostgreSQL, where the re-checked row no longer satisfies the
statement) and is rolled back rather than counted.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import threading
import time
import traceback

import txlake

ACCOUNTS, START = 40, 1000
TOTAL = ACCOUNTS * START
LEVELS = ("READ COMMITTED", "REPEATABLE READ", "SERIALIZABLE")
RETRY = (txlake.SerializationFailure, txlake.DeadlockDetected)
MAINTENANCE = ("compact", "publish", "expire", "orphans", "alter")
REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
problems: list[str] = []


def problem(message: str) -> None:
    problems.append(message)
    print("PROBLEM:", message, flush=True)


def setup(path: str) -> None:
    c = txlake.connect(path, autocommit=True)
    c.execute("CREATE TABLE acct (id INT PRIMARY KEY, bal INT NOT NULL, note VARCHAR)")
    c.execute("CREATE TABLE ledger (src INT, dst INT, amt INT, who VARCHAR)")
    c.execute("CREATE TABLE nokey (id INT, bal INT)")
    c.execute(f"INSERT INTO acct SELECT i, {START}, 'n' FROM range({ACCOUNTS}) t(i)")
    c.execute(f"INSERT INTO nokey SELECT i, {START} FROM range({ACCOUNTS}) t(i)")
    c.execute("CREATE VIEW total AS SELECT sum(bal) AS s, count(*) AS n FROM acct")
    c.close()


# --- the workload: each operation runs inside BEGIN ... COMMIT; "gone" when it rolled back --

def _ids(cur) -> list[int]:
    return [r[0] for r in cur.execute("SELECT id FROM acct").fetchall()]


def op_transfer(cur, rng, who):
    a, b = rng.sample(_ids(cur), 2)
    amt = rng.randint(1, 50)
    for key, delta in ((a, -amt), (b, amt)):
        if cur.execute("UPDATE acct SET bal = bal + ? WHERE id = ?", (delta, key)).rowcount != 1:
            cur.execute("ROLLBACK")  # (its key changed meanwhile)
            return "gone"
    cur.execute("INSERT INTO ledger VALUES (?, ?, ?, ?)", (a, b, amt, who))
    return "ok"


def op_nokey(cur, rng, who):
    a, b = rng.sample(range(ACCOUNTS), 2)
    amt = rng.randint(1, 50)
    cur.execute("UPDATE nokey SET bal = bal - ? WHERE id = ?", (amt, a))
    cur.execute("UPDATE nokey SET bal = bal + ? WHERE id = ?", (amt, b))
    return "ok"


def op_merge(cur, rng, who):
    a, b = rng.sample(_ids(cur), 2)
    amt = rng.randint(1, 50)
    cur.execute("MERGE INTO acct USING (VALUES (?, ?), (?, ?)) v(id, d) ON acct.id = v.id "
                "WHEN MATCHED THEN UPDATE SET bal = bal + v.d", (a, -amt, b, amt))
    if cur.rowcount != 2:
        cur.execute("ROLLBACK")
        return "gone"
    return "ok"


def op_bulk(cur, rng, who):
    a, b = rng.sample(_ids(cur), 2)
    amt = rng.randint(1, 50)
    got = cur.execute("UPDATE acct SET bal = bal + CASE WHEN id = ? THEN ? WHEN id = ? THEN ? ELSE 0 END, "
                      "note = ? RETURNING id", (a, -amt, b, amt, who)).fetchall()
    if not {a, b} <= {r[0] for r in got}:  # (READ COMMITTED re-evaluated a row whose key changed)
        cur.execute("ROLLBACK")
        return "gone"
    return "ok"


def op_rekey(cur, rng, who):
    try:
        cur.execute("UPDATE acct SET id = ?, note = 'rk' WHERE id = ?",
                    (rng.randint(0, 10 * ACCOUNTS), rng.choice(_ids(cur))))
    except txlake.UniqueViolation:
        cur.execute("ROLLBACK")
        return "dup"
    return "ok"


def op_move(cur, rng, who):
    """A row deleted and inserted again under another key, in one transaction."""
    row = cur.execute("DELETE FROM acct WHERE id = ? RETURNING bal", (rng.choice(_ids(cur)),)).fetchall()
    if len(row) != 1:
        cur.execute("ROLLBACK")
        return "gone"
    try:
        cur.execute("INSERT INTO acct VALUES (?, ?, 'mv')", (rng.randint(0, 10 * ACCOUNTS), row[0][0]))
    except txlake.UniqueViolation:
        cur.execute("ROLLBACK")
        return "dup"
    return "ok"


def op_savepoint(cur, rng, who):
    cur.execute("SAVEPOINT s1")
    if op_transfer(cur, rng, who + "-undone") != "ok":
        return "gone"
    cur.execute("ROLLBACK TO SAVEPOINT s1")
    return op_transfer(cur, rng, who)


def op_check(cur, rng, who):
    s, n = cur.execute("SELECT sum(bal), count(*) FROM acct").fetchone()
    view = tuple(cur.execute("SELECT s, n FROM total").fetchone())
    if view != (s, n):
        problem(f"{who}: the view says {view}, the table {(s, n)}")
    if (s, n) != (TOTAL, ACCOUNTS):
        problem(f"{who}: acct holds {s} in {n} rows")
    k = tuple(cur.execute("SELECT sum(bal), count(*) FROM nokey").fetchone())
    if k != (TOTAL, ACCOUNTS):
        problem(f"{who}: nokey holds {k[0]} in {k[1]} rows")
    return "ok"


OPS = {op.__name__[3:]: (op, weight) for op, weight in (
    (op_transfer, 30), (op_nokey, 10), (op_merge, 8), (op_bulk, 4), (op_rekey, 5), (op_move, 5),
    (op_savepoint, 5))}


def worker(path, seconds, seed, who, ops, counts):
    rng = random.Random(seed)
    deadline = time.time() + seconds
    conn = txlake.connect(path, autocommit=True)
    cur = conn.cursor()
    chosen = [OPS[name] for name in ops] + [(op_check, 10)]
    functions, weights = zip(*chosen)
    while time.time() < deadline:
        op = rng.choices(functions, weights)[0]
        # (a checking reader needs one snapshot for its three queries)
        level = "REPEATABLE READ" if op is op_check else rng.choice(LEVELS)
        for _ in range(100):
            try:
                cur.execute(f"BEGIN ISOLATION LEVEL {level}")
                outcome = op(cur, rng, who)
                cur.execute("COMMIT")
                name = f"{op.__name__[3:]}:{outcome}"
                counts[name] = counts.get(name, 0) + 1
                break
            except RETRY:
                cur.execute("ROLLBACK")
                counts["retries"] = counts.get("retries", 0) + 1
            except Exception as e:
                problem(f"{who} {op.__name__} at {level}: {type(e).__name__} {getattr(e, 'sqlstate', '')} {e}\n"
                        + traceback.format_exc())
                try:
                    cur.execute("ROLLBACK")
                except Exception:
                    pass
                break
    conn.close()


def maintenance(path, seconds, seed, kinds):
    rng = random.Random(seed)
    conn = txlake.connect(path, autocommit=True)
    deadline = time.time() + seconds
    while kinds and time.time() < deadline:
        time.sleep(rng.uniform(0.2, 1.0))
        kind = rng.choice(kinds)
        sql = {"compact": f"CALL txlake.compact('{rng.choice(['acct', 'ledger', 'nokey'])}')",
               "publish": "CALL txlake.publish()",
               "expire": "CALL txlake.expire_snapshots(retain_last => 5)",
               "orphans": "CALL txlake.remove_orphan_files(older_than_seconds => 1)",
               "alter": "ALTER TABLE ledger ADD COLUMN IF NOT EXISTS extra INT"}[kind]
        try:
            conn.execute(sql)
        except RETRY:
            pass
        except Exception as e:
            problem(f"maintenance {kind}: {type(e).__name__} {getattr(e, 'sqlstate', '')} {e}\n"
                    + traceback.format_exc())
    conn.close()


def run_threads(args, seed, prefix, counts, with_maintenance):
    threads = [threading.Thread(target=worker, args=(args.warehouse, args.seconds, seed * 100 + i,
                                                     f"{prefix}t{i}", args.ops, counts))
               for i in range(args.threads)]
    if with_maintenance:
        threads.append(threading.Thread(target=maintenance,
                                        args=(args.warehouse, args.seconds, seed, args.maintenance)))
    for t in threads:
        t.start()
    return threads


def child(args) -> None:
    threads = run_threads(args, args.seed, f"p{args.seed}", {}, False)
    for t in threads:
        t.join()
    sys.exit(1 if problems else 0)


def spawn(args, seed):
    command = [sys.executable, os.path.abspath(__file__), args.warehouse, "--child", "--seed", str(seed),
               "--seconds", str(args.seconds), "--threads", "2", "--ops", ",".join(args.ops)]
    return subprocess.Popen(command)


def final_checks(args) -> None:
    c = txlake.connect(args.warehouse, autocommit=True)
    for table in ("acct", "nokey"):
        got = tuple(c.execute(f"SELECT sum(bal), count(*) FROM {table}").fetchone())
        if got != (TOTAL, ACCOUNTS):
            problem(f"at the end, {table} holds {got[0]} in {got[1]} rows")
    c.execute("CALL txlake.publish()")
    c.close()
    reopened = subprocess.run([sys.executable, "-c", (
        "import sys, txlake\n"
        "c = txlake.connect(sys.argv[1], autocommit=True)\n"
        "print([tuple(c.execute(f'SELECT sum(bal), count(*) FROM {t}').fetchone()) for t in ('acct', 'nokey')])"),
        args.warehouse], capture_output=True, text=True)
    if reopened.stdout.strip() != str([(TOTAL, ACCOUNTS)] * 2):
        problem(f"reopened: {reopened.stdout.strip()} {reopened.stderr[-2000:]}")
    python = os.environ.get("TXLAKE_PAIMON_PYTHON") or os.path.join(REPO, ".venv-paimon", "bin", "python")
    if not os.path.exists(python):
        print("(no pypaimon at hand: published snapshots not checked)")
        return
    for table in ("acct", "nokey"):
        read = subprocess.run([python, os.path.join(REPO, "tests", "paimon_read.py"),
                               os.path.join(args.warehouse, "default.db", table)], capture_output=True, text=True)
        if read.returncode != 0:
            problem(f"pypaimon could not read {table}: {read.stderr[-3000:]}")
            continue
        snapshots = json.loads(read.stdout)["snapshots"]
        for sid, snap in snapshots.items():
            bal = snap["columns"].index("bal")
            total = sum(row[bal] for row in snap["rows"])
            if (total, len(snap["rows"])) != (TOTAL, ACCOUNTS):
                problem(f"Paimon snapshot {sid} of {table} holds {total} in {len(snap['rows'])} rows")
        print(f"pypaimon: {len(snapshots)} snapshots of {table} checked")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("warehouse", nargs="?", help="a new directory (default: a temporary one)")
    parser.add_argument("--seconds", type=float, default=90)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--threads", type=int, default=3)
    parser.add_argument("--no-processes", dest="processes", action="store_false")
    parser.add_argument("--no-kill", dest="kill", action="store_false")
    parser.add_argument("--maintenance", default=",".join(MAINTENANCE),
                        type=lambda s: [k for k in s.split(",") if k])
    parser.add_argument("--ops", default=",".join(OPS), type=lambda s: [k for k in s.split(",") if k])
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args)
        return
    args.warehouse = args.warehouse or os.path.join(tempfile.mkdtemp(prefix="txlake-soak-"), "wh")
    print(f"soak: {args.warehouse}, {args.seconds:.0f} s, seed {args.seed}", flush=True)
    setup(args.warehouse)
    counts: dict = {}
    threads = run_threads(args, args.seed, "", counts, True)
    steady = spawn(args, args.seed + 1000) if args.processes else None
    rng, kills = random.Random(args.seed), 0
    deadline = time.time() + args.seconds
    while args.processes and args.kill and time.time() < deadline - 2:
        victim = spawn(args, args.seed + 2000 + kills)
        time.sleep(rng.uniform(1.5, 5))
        victim.send_signal(signal.SIGKILL)
        victim.wait()
        kills += 1
    for t in threads:
        t.join(args.seconds + 120)
        if t.is_alive():
            problem(f"{t.name} still runs (hung?)")
    if steady is not None and steady.wait(timeout=300) != 0:
        problem(f"the steady process exited with {steady.returncode}")
    final_checks(args)
    print("done:", json.dumps(counts, sort_keys=True), f"processes killed: {kills}; problems: {len(problems)}")
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
