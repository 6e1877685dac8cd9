"""Soak run: one warehouse under threads, processes, SIGKILL and maintenance at once, its
invariants checked throughout and at the end. Not collected by pytest (it runs for minutes and
is random by design); run it by hand after a change to the concurrency or storage code:

    python tests/scenarios/soak.py [--seconds 90] [--seed 1] [--threads 3] [--no-processes]
                                   [--no-kill] [--maintenance compact,publish,expire,orphans,alter]
                                   [--ops transfer,nokey,merge,...] [WAREHOUSE]
    python tests/scenarios/soak.py --check WAREHOUSE

The workload and its invariants are soak_ops.py's: a bank (``acct`` with a primary key,
``nokey`` without) whose totals every transaction keeps - transfers by point UPDATEs
(``transfer``), prepared statements (``prepare``), a two-row MERGE (``merge``), a whole-table
UPDATE (``bulk``), savepoints rolled back to, also after an error (``savepoint``), key changes
(``rekey``, ``move``: DELETE + INSERT), and ``nokey``; the view over it replaced (``view``);
wallets whose entries are loaded by COPY FROM and their balances written by COPY TO (``copy``) or
numbered from a sequence (``sequence``); parcels moved between two tables by DELETE ... RETURNING
and INSERT (``shuttle``); CREATE / ALTER / DROP TABLE of tables nothing else reads (``ddl``);
and the constraints: children inserted, moved and deleted under parents deleted (ON DELETE
CASCADE, NO ACTION), inserted again and re-keyed (``fk``); writes of a UNIQUE column over ten
values - INSERT, ON CONFLICT DO NOTHING / DO UPDATE, UPDATE, DELETE (``unique``); purse
transfers under ``CHECK (bal >= 0)`` (``check``); and a job queue claimed by ``FOR UPDATE SKIP
LOCKED`` (``queue``). Their 23503 / 23505 / 23514 are counted, not problems (also at COMMIT,
where another process's commit won). ``--ops`` picks some (default: all). Each runs at a
random level, retried on 40001/40P01.
Meanwhile a thread compacts, publishes, expires snapshots, removes orphan files and alters
another table; a process runs the same workload to the end, and others are started and killed
with SIGKILL 0.5-4 s after they got to work (not while still importing txlake).

Checked: every reader (REPEATABLE READ) sees every invariant hold; no statement fails but with
an error its transaction may expect; the invariants hold at the end, after a reopen (log replay,
``--check`` in a new process) and the totals (no UNIQUE value twice, no purse below 0, no job
left running) in every published Paimon snapshot (read by pypaimon, when a python with it is at
hand: ``TXLAKE_PAIMON_PYTHON`` or the repository's ``.venv-paimon``); no job is in two
sessions' claim files. Exit status 1 if anything was wrong; the problems are printed as they happen.

Key changes make READ COMMITTED's re-evaluation matter: a transfer whose row changed its key
meanwhile does not match (as in PostgreSQL, where the re-checked row no longer satisfies the
statement) and is rolled back rather than counted.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import select
import signal
import subprocess
import sys
import tempfile
import threading
import time
import traceback

import soak_ops
import txlake
from soak_ops import (COMMIT_MAY_REFUSE, OPS, SESSION_SETUP, SETUP, SNAPSHOT_CHECKS, TABLE_TOTALS, check,
                      check_claim_files, check_handed_out, op_check, problems)

LEVELS = ("READ COMMITTED", "REPEATABLE READ", "SERIALIZABLE")
RETRY = (txlake.SerializationFailure, txlake.DeadlockDetected)
MAINTENANCE = ("compact", "publish", "expire", "orphans", "alter")
COMPACTED = ("acct", "ledger", "nokey", "wallet", "entries", "east", "west")
REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
problem = problems.add


def setup(path: str) -> None:
    c = txlake.connect(path, autocommit=True)
    for sql in SETUP:
        c.execute(sql)
    c.close()


def worker(path, seconds, seed, who, ops, counts):
    rng = random.Random(seed)
    deadline = time.time() + seconds
    soak_ops.warehouse_path = path
    conn = txlake.connect(path, autocommit=True)
    cur = conn.cursor()
    for sql in SESSION_SETUP:
        cur.execute(sql)
    chosen = [OPS[name] for name in ops] + [(op_check, 10)]
    functions, weights = zip(*chosen)
    while time.time() < deadline:
        op = rng.choices(functions, weights)[0]
        # (a checking reader needs one snapshot for its queries)
        level = "REPEATABLE READ" if op is op_check else rng.choice(LEVELS)
        for _ in range(100):
            try:
                cur.execute(f"BEGIN ISOLATION LEVEL {level}")
                outcome = op(cur, rng, who)
                try:
                    cur.execute("COMMIT")
                    for done in soak_ops.after_commit.pop(who, ()):
                        done()
                except COMMIT_MAY_REFUSE.get(op, ()) as e:
                    outcome = f"refused {e.sqlstate}"
                name = f"{op.__name__[3:]}:{outcome}"
                counts[name] = counts.get(name, 0) + 1
                break
            except RETRY:
                cur.execute("ROLLBACK")
                soak_ops.after_commit.pop(who, None)
                counts["retries"] = counts.get("retries", 0) + 1
            except Exception as e:
                problem(f"{who} {op.__name__} at {level}: {type(e).__name__} {getattr(e, 'sqlstate', '')} {e}\n"
                        + traceback.format_exc())
                try:
                    cur.execute("ROLLBACK")
                except Exception:
                    pass
                soak_ops.after_commit.pop(who, None)
                break
    conn.close()


def maintenance(path, seconds, seed, kinds):
    rng = random.Random(seed)
    conn = txlake.connect(path, autocommit=True)
    deadline = time.time() + seconds
    while kinds and time.time() < deadline:
        time.sleep(rng.uniform(0.2, 1.0))
        kind = rng.choice(kinds)
        sql = {"compact": f"CALL txlake.compact('{rng.choice(COMPACTED)}')",
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
    txlake.connect(args.warehouse).close()  # (txlake imported, the warehouse opened: at work now)
    if args.ready_fd is not None:
        os.write(args.ready_fd, b"ready")
        os.close(args.ready_fd)
    threads = run_threads(args, args.seed, f"p{args.seed}", {}, False)
    for t in threads:
        t.join()
    sys.exit(1 if problems else 0)


def spawn_command(args, seed) -> list[str]:
    return [sys.executable, os.path.abspath(__file__), args.warehouse, "--child", "--seed", str(seed),
            "--seconds", str(args.seconds), "--threads", "2", "--ops", ",".join(args.ops)]


def spawn(args, seed):
    return subprocess.Popen(spawn_command(args, seed))


def spawn_ready(args, seed):
    """A child process, once it is at work: importing txlake takes seconds on a loaded machine,
    and a process killed before it wrote anything tests nothing."""
    read, write = os.pipe()
    child = subprocess.Popen([*spawn_command(args, seed), "--ready-fd", str(write)], pass_fds=(write,))
    os.close(write)
    select.select([read], [], [], 120)
    os.close(read)
    return child


def check_alone(path) -> None:
    """The invariants in one REPEATABLE READ snapshot of a warehouse nothing else uses."""
    c = txlake.connect(path, isolation_level="REPEATABLE READ")
    for message in check(c.cursor()):
        problem(message)
    c.rollback()
    c.close()


def final_checks(args) -> None:
    check_alone(args.warehouse)
    c = txlake.connect(args.warehouse, autocommit=True)
    for message in check_handed_out(c.cursor(), args.warehouse) + check_claim_files(args.warehouse):
        problem(message)
    c.close()
    c = txlake.connect(args.warehouse, autocommit=True)
    c.execute("CALL txlake.publish()")
    c.close()
    reopened = subprocess.run([sys.executable, os.path.abspath(__file__), args.warehouse, "--check"],
                              capture_output=True, text=True)
    if reopened.returncode != 0:
        problem(f"reopened: {reopened.stdout[-2000:]} {reopened.stderr[-2000:]}")
    python = os.environ.get("TXLAKE_PAIMON_PYTHON") or os.path.join(REPO, ".venv-paimon", "bin", "python")
    if not os.path.exists(python):
        print("(no pypaimon at hand: published snapshots not checked)")
        return
    for table in {**TABLE_TOTALS, **SNAPSHOT_CHECKS}:
        read = subprocess.run([python, os.path.join(REPO, "tests", "paimon_read.py"),
                               os.path.join(args.warehouse, "default.db", table)], capture_output=True, text=True)
        if read.returncode != 0:
            problem(f"pypaimon could not read {table}: {read.stderr[-3000:]}")
            continue
        snapshots = json.loads(read.stdout)["snapshots"]
        for sid, snap in snapshots.items():
            if table in SNAPSHOT_CHECKS:
                wrong = SNAPSHOT_CHECKS[table](snap["columns"], snap["rows"])
                if wrong:
                    problem(f"Paimon snapshot {sid} of {table}: {wrong}")
                continue
            bal = snap["columns"].index("bal")
            total = sum(row[bal] for row in snap["rows"])
            if (total, len(snap["rows"])) != TABLE_TOTALS[table]:
                problem(f"Paimon snapshot {sid} of {table} holds {total} in {len(snap['rows'])} rows")
        print(f"pypaimon: {len(snapshots)} snapshots of {table} checked")


def _op_names(text: str) -> list[str]:
    names = [k for k in text.split(",") if k]
    unknown = [k for k in names if k not in OPS]
    if unknown:
        raise argparse.ArgumentTypeError(f"no such operation: {', '.join(unknown)}")
    return names


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
    parser.add_argument("--ops", default=",".join(OPS), type=_op_names, help=f"some of {','.join(OPS)}")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--ready-fd", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--check", action="store_true", help="only check WAREHOUSE's invariants (after a reopen)")
    args = parser.parse_args()
    if args.check:
        check_alone(args.warehouse)
        sys.exit(1 if problems else 0)
    if args.child:
        child(args)
        return
    args.warehouse = args.warehouse or os.path.join(tempfile.mkdtemp(prefix="txlake-soak-"), "wh")
    print(f"soak: {args.warehouse}, {args.seconds:.0f} s, seed {args.seed}, ops {','.join(args.ops)}", flush=True)
    setup(args.warehouse)
    counts: dict = {}
    threads = run_threads(args, args.seed, "", counts, True)
    steady = spawn(args, args.seed + 1000) if args.processes else None
    rng, kills = random.Random(args.seed), 0
    deadline = time.time() + args.seconds
    while args.processes and args.kill and time.time() < deadline - 2:
        victim = spawn_ready(args, args.seed + 2000 + kills)
        time.sleep(rng.uniform(0.5, 4))
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
