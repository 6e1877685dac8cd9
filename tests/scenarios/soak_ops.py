"""The soak's workload (see soak.py): the tables, the operations and the invariants they keep.

Each operation runs inside BEGIN ... COMMIT at some isolation level and returns its outcome
("ok", or "gone" / "dup" when it rolled itself back); `check` reads every invariant in the
caller's snapshot. The invariants:

- ``acct`` and ``nokey``: 40 accounts, 1,000 each in total (transfers of every kind; key
  changes in ``acct``); the view ``total`` over ``acct`` says the same, whichever of its
  equivalent definitions CREATE OR REPLACE VIEW last put in.
- ``wallet`` and ``entries``: each wallet holds 1,000 plus the sum of its entries, and the
  entries sum to 0 (transfers written by COPY FROM or by INSERTs numbered from the sequence
  ``entry_id``); entry ids are unique, the sequence is never behind them, and each session's
  numbers only grow (never reused, even after a SIGKILL).
- ``east`` and ``west``: parcels 0..29 (``v = id``), each in exactly one of them (DELETE ...
  RETURNING from one, INSERT into the other).
- ``churn_k`` (DDL churn: created, altered, dropped): while it exists it holds 0..k-1.
- ``kid_c`` and ``kid_n`` (children of ``parent``, ON DELETE CASCADE and NO ACTION): no child
  references a missing parent.
- ``tag``: no two rows share a non-null ``u`` (UNIQUE, values 0..9), nor an id.
- ``purse``: 10 purses, 100 each in total, none below 0 (``CHECK (bal >= 0)``).
- ``jobs`` and ``claims``: each job claimed (``FOR UPDATE SKIP LOCKED``) and done once - one
  ``claims`` row per done job, none for the others, none left running; and no job in two
  sessions' claim files (written after their COMMITs).
"""

from __future__ import annotations

import csv
import os
import tempfile

import txlake

ACCOUNTS, START = 40, 1000
TOTAL = ACCOUNTS * START
WALLETS, PARCELS, CHURN = 20, 30, 6
PARENTS, TAGS, TAG_VALUES, PURSES, PURSE_START, JOBS = 8, 30, 10, 10, 100, 100
TABLE_TOTALS = {"acct": (TOTAL, ACCOUNTS), "nokey": (TOTAL, ACCOUNTS), "wallet": (WALLETS * START, WALLETS),
                "purse": (PURSES * PURSE_START, PURSES)}

SETUP = (
    "CREATE TABLE acct (id INT PRIMARY KEY, bal INT NOT NULL, note VARCHAR)",
    "CREATE TABLE ledger (src INT, dst INT, amt INT, who VARCHAR)",
    "CREATE TABLE nokey (id INT, bal INT)",
    f"INSERT INTO acct SELECT i, {START}, 'n' FROM range({ACCOUNTS}) t(i)",
    f"INSERT INTO nokey SELECT i, {START} FROM range({ACCOUNTS}) t(i)",
    "CREATE VIEW total AS SELECT sum(bal) AS s, count(*) AS n FROM acct",
    "CREATE TABLE wallet (id INT PRIMARY KEY, bal INT NOT NULL)",
    f"INSERT INTO wallet SELECT i, {START} FROM range({WALLETS}) t(i)",
    "CREATE SEQUENCE entry_id",
    "CREATE TABLE entries (id BIGINT DEFAULT nextval('entry_id'), wallet INT NOT NULL, amt INT NOT NULL)",
    "CREATE TABLE east (id INT PRIMARY KEY, v INT NOT NULL)",
    "CREATE TABLE west (id INT PRIMARY KEY, v INT NOT NULL)",
    f"INSERT INTO east SELECT i, i FROM range({PARCELS}) t(i)",
    "CREATE TABLE parent (id INT PRIMARY KEY, name VARCHAR)",
    f"INSERT INTO parent SELECT i, 'p' FROM range({PARENTS}) t(i)",
    "CREATE SEQUENCE kid_id",
    "CREATE TABLE kid_c (id BIGINT PRIMARY KEY DEFAULT nextval('kid_id'), "
    "pid INT REFERENCES parent ON DELETE CASCADE)",
    "CREATE TABLE kid_n (id BIGINT PRIMARY KEY DEFAULT nextval('kid_id'), pid INT REFERENCES parent (id))",
    "CREATE TABLE tag (id INT PRIMARY KEY, u INT UNIQUE, n INT NOT NULL)",
    "CREATE TABLE purse (id INT PRIMARY KEY, bal INT NOT NULL CHECK (bal >= 0))",
    f"INSERT INTO purse SELECT i, {PURSE_START} FROM range({PURSES}) t(i)",
    f"CREATE SEQUENCE job_id START {JOBS}",
    "CREATE TABLE jobs (id BIGINT PRIMARY KEY, state VARCHAR NOT NULL, who VARCHAR)",
    f"INSERT INTO jobs SELECT i, 'queued', NULL FROM range({JOBS}) t(i)",
    "CREATE TABLE claims (job BIGINT NOT NULL, who VARCHAR NOT NULL)",
)
# Run by every session once: prepared statements are the session's, whatever rolls back.
SESSION_SETUP = (
    "PREPARE xfer (int, int) AS UPDATE acct SET bal = bal + $1 WHERE id = $2",
    "PREPARE note (int, int, int, text) AS INSERT INTO ledger VALUES ($1, $2, $3, $4)",
)
# CREATE OR REPLACE VIEW swaps these (same columns, same rows).
TOTAL_VIEWS = (
    "SELECT sum(bal) AS s, count(*) AS n FROM acct",
    "SELECT sum(b) AS s, count(*) AS n FROM (SELECT bal AS b FROM acct) x",
    "SELECT sum(bal) AS s, count(id) AS n FROM acct WHERE id IS NOT NULL",
)
COPY_DIR = tempfile.mkdtemp(prefix="txlake-soak-copy-")  # (COPY never writes inside the warehouse)
last_entry_id: dict[str, int] = {}  # who -> the newest number its session took
after_commit: dict[str, list] = {}  # who -> what to do once its transaction committed (soak.py calls them)
warehouse_path = ""  # the one this process works on (soak.py sets it)


def handed_out(warehouse: str) -> str:
    """The directory beside ``warehouse`` where each session writes the entry ids it took (one
    file each, written before its COMMIT, so a SIGKILLed process's are there too)."""
    return warehouse.rstrip("/") + ".ids"


def note_numbers(folder: str, who: str, numbers: list[int]) -> None:
    """``numbers`` added to ``who``'s file in ``folder`` (``noted`` reads them back)."""
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, who), "a") as f:
        f.write("".join(f"{i}\n" for i in numbers))


def noted(folder: str):
    """(who, number) for each number ``note_numbers`` wrote to ``folder``."""
    for who in os.listdir(folder) if os.path.isdir(folder) else ():
        with open(os.path.join(folder, who)) as f:
            yield from ((who, int(line)) for line in f if line.strip())


def claims_file(warehouse: str) -> str:
    """The directory beside ``warehouse`` where each session writes the jobs it claimed (after
    its COMMIT: a claim rolled back may be taken again)."""
    return warehouse.rstrip("/") + ".claims"


def check_claim_files(warehouse: str) -> list[str]:
    """No job in two sessions' claim files, nor twice in one."""
    seen: dict[int, str] = {}
    found = []
    for who, job in noted(claims_file(warehouse)):
        if job in seen:
            found.append(f"job {job} claimed by {seen[job]} and by {who}")
        seen.setdefault(job, who)
    return found[:20]


def check_handed_out(cur, warehouse: str) -> list[str]:
    """No entry id handed out twice (rolled back or not, in a process killed or not), and the
    sequence past every one."""
    taken: dict[int, str] = {}
    found = []
    for who, number in noted(handed_out(warehouse)):
        if taken.setdefault(number, who) != who:
            found.append(f"entry id {number} went to {taken[number]} and to {who}")
    last = cur.execute("SELECT last_value FROM entry_id").fetchone()[0]
    if taken and last < max(taken):
        found.append(f"entry_id is at {last}, behind the {max(taken)} it handed out")
    return found[:20]


class Problems(list):
    """What went wrong, printed as it is found."""

    def add(self, message: str) -> None:
        self.append(message)
        print("PROBLEM:", message, flush=True)


problems = Problems()


def _tag_snapshot(columns, rows):
    us = [row[columns.index("u")] for row in rows if row[columns.index("u")] is not None]
    ids = [row[columns.index("id")] for row in rows]
    if len(set(us)) != len(us) or len(set(ids)) != len(ids):
        return f"u values {sorted(us)}, ids {sorted(ids)}"


def _purse_snapshot(columns, rows):
    bal = columns.index("bal")
    total = sum(row[bal] for row in rows)
    if (total, len(rows)) != TABLE_TOTALS["purse"] or any(row[bal] < 0 for row in rows):
        return f"balances {sorted(row[bal] for row in rows)}"


def _jobs_snapshot(columns, rows):
    stuck = [row for row in rows if row[columns.index("state")] not in ("queued", "done")]
    if stuck:
        return f"jobs neither queued nor done: {stuck[:10]}"


# What every published Paimon snapshot of a table must hold (columns, rows -> what is wrong);
# the tables in TABLE_TOTALS must hold their totals.
SNAPSHOT_CHECKS = {"tag": _tag_snapshot, "purse": _purse_snapshot, "jobs": _jobs_snapshot}


def _ids(cur) -> list[int]:
    return [r[0] for r in cur.execute("SELECT id FROM acct").fetchall()]


def _transfer(cur, rng, who, update: str, note: str):
    a, b = rng.sample(_ids(cur), 2)
    amt = rng.randint(1, 50)
    for key, delta in ((a, -amt), (b, amt)):
        if cur.execute(update, (delta, key)).rowcount != 1:
            cur.execute("ROLLBACK")  # (its key changed meanwhile)
            return "gone"
    cur.execute(note, (a, b, amt, who))
    return "ok"


def op_transfer(cur, rng, who):
    return _transfer(cur, rng, who, "UPDATE acct SET bal = bal + ? WHERE id = ?",
                     "INSERT INTO ledger VALUES (?, ?, ?, ?)")


def op_prepare(cur, rng, who):
    """op_transfer by the session's prepared statements (planned again at each EXECUTE)."""
    return _transfer(cur, rng, who, "EXECUTE xfer(?, ?)", "EXECUTE note(?, ?, ?, ?)")


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
    """A transfer undone by ROLLBACK TO - after it, or after an error it ran into - then another."""
    cur.execute("SAVEPOINT s1")
    if op_transfer(cur, rng, who + "-undone") != "ok":
        return "gone"
    if rng.random() < 0.5:
        try:
            cur.execute("UPDATE acct SET bal = bal / 0 WHERE id = ?", (rng.choice(_ids(cur)),))
            problems.add(f"{who}: a division by zero went through")
        except txlake.DataError:
            pass
    cur.execute("ROLLBACK TO SAVEPOINT s1")
    cur.execute("SAVEPOINT s2")
    outcome = op_transfer(cur, rng, who)
    if outcome == "ok":
        cur.execute("RELEASE SAVEPOINT s2")
    return outcome


def op_view(cur, rng, who):
    """CREATE OR REPLACE VIEW total with an equivalent definition; read through it at once."""
    cur.execute(f"CREATE OR REPLACE VIEW total AS {rng.choice(TOTAL_VIEWS)}")
    got = tuple(cur.execute("SELECT s, n FROM total").fetchone())
    if got != (TOTAL, ACCOUNTS):
        problems.add(f"{who}: the view replaced says {got}")
    return "ok"


def _wallet_transfer(cur, rng):
    a, b = rng.sample(range(WALLETS), 2)
    amt = rng.randint(1, 50)
    for key, delta in ((a, -amt), (b, amt)):
        cur.execute("UPDATE wallet SET bal = bal + ? WHERE id = ?", (delta, key))
    return ((a, -amt), (b, amt))


def op_copy(cur, rng, who):
    """A wallet transfer whose two entries are loaded by COPY FROM (maybe after a COPY of a bad
    line, rolled back to a savepoint); or the wallets written out by COPY TO."""
    path = os.path.join(COPY_DIR, f"{who}.csv")
    if rng.random() < 0.3:
        cur.execute(f"COPY wallet TO '{path}' (FORMAT csv)")
        with open(path, newline="") as f:
            rows = list(csv.reader(f))
        got = (sum(int(bal) for _, bal in rows), len(rows))
        if got != TABLE_TOTALS["wallet"]:
            problems.add(f"{who}: COPY wallet TO wrote {got[0]} in {got[1]} rows")
        return "out"
    if rng.random() < 0.3:  # (a bad line: the COPY loads nothing, the savepoint goes on)
        with open(path, "w", newline="") as f:
            csv.writer(f).writerows([(0, -1), (1, "one")])
        cur.execute("SAVEPOINT bad_copy")
        try:
            cur.execute(f"COPY entries (wallet, amt) FROM '{path}' (FORMAT csv)")
            problems.add(f"{who}: COPY loaded a line whose amount is 'one'")
        except txlake.DataError:
            pass
        cur.execute("ROLLBACK TO SAVEPOINT bad_copy")
    entries = _wallet_transfer(cur, rng)
    with open(path, "w", newline="") as f:
        csv.writer(f).writerows(entries)
    if cur.execute(f"COPY entries (wallet, amt) FROM '{path}' (FORMAT csv)").rowcount != 2:
        problems.add(f"{who}: COPY entries FROM loaded {cur.rowcount} rows, not 2")
    return "ok"


def op_sequence(cur, rng, who):
    """A wallet transfer whose entries take their ids from entry_id (the default, or nextval)."""
    ids = []
    for wallet, amt in _wallet_transfer(cur, rng):
        sql = rng.choice(("INSERT INTO entries (wallet, amt) VALUES (?, ?) RETURNING id",
                          "INSERT INTO entries VALUES (nextval('entry_id'), ?, ?) RETURNING id"))
        ids.append(cur.execute(sql, (wallet, amt)).fetchone()[0])
    note_numbers(handed_out(warehouse_path), who, ids)
    previous = last_entry_id.get(who, 0)
    if not previous < ids[0] < ids[1]:
        problems.add(f"{who}: entry_id handed out {ids} after {previous}")
    last_entry_id[who] = ids[-1]
    return "ok"


def op_shuttle(cur, rng, who):
    """Parcels moved between east and west: DELETE ... RETURNING from one, INSERT into the other."""
    source, target = rng.sample(("east", "west"), 2)
    if rng.random() < 0.7:
        rows = cur.execute(f"DELETE FROM {source} WHERE id = ? RETURNING id, v", (rng.randrange(PARCELS),))
    else:
        rows = cur.execute(f"DELETE FROM {source} WHERE v % 7 = ? RETURNING id, v", (rng.randrange(7),))
    rows = rows.fetchall()
    if not rows:
        cur.execute("ROLLBACK")
        return "gone"
    cur.execute(f"INSERT INTO {target} VALUES " + ", ".join(["(?, ?)"] * len(rows)),
                [x for row in rows for x in row])
    return "ok"


def op_ddl(cur, rng, who):
    """DDL churn on tables no other operation reads: CREATE (AS, or then INSERT), ALTER, DROP,
    or DROP and CREATE again."""
    k = rng.randint(1, CHURN)
    action = rng.choice(("create", "create", "fill", "alter", "drop", "replace"))
    try:
        if action == "create":
            cur.execute(f"CREATE TABLE churn_{k} AS SELECT i AS x FROM range({k}) t(i)")
        elif action == "fill":
            cur.execute(f"CREATE TABLE churn_{k} (x INT PRIMARY KEY)")
            cur.execute(f"INSERT INTO churn_{k} SELECT i FROM range({k}) t(i)")
        elif action == "alter":
            cur.execute(f"ALTER TABLE IF EXISTS churn_{k} ADD COLUMN IF NOT EXISTS y INT DEFAULT 7")
        elif action == "drop":
            cur.execute(f"DROP TABLE IF EXISTS churn_{k}")
        else:  # (dropped and made again in one transaction)
            cur.execute(f"DROP TABLE IF EXISTS churn_{k}")
            cur.execute(f"CREATE TABLE churn_{k} AS SELECT i AS x FROM range({k}) t(i)")
    except txlake.errors.DuplicateTable:
        cur.execute("ROLLBACK")
        return "dup"
    return action


def _fk_write(cur, rng, who):
    kid = rng.choice(("kid_c", "kid_n"))
    p = rng.randrange(PARENTS + 2)  # (some never exist)
    action = rng.choice(("child", "child", "delete", "parent", "move", "move", "drop", "rekey"))
    if action == "child":
        cur.execute(f"INSERT INTO {kid} (pid) VALUES (?)", (p,))
    elif action == "delete":
        cur.execute("DELETE FROM parent WHERE id = ?", (p,))
    elif action == "parent":
        cur.execute("INSERT INTO parent VALUES (?, ?) ON CONFLICT DO NOTHING", (p % PARENTS, who))
    elif action == "move":
        cur.execute(f"UPDATE {kid} SET pid = ? WHERE id = (SELECT min(id) FROM {kid} WHERE pid = ?)",
                    (p, rng.randrange(PARENTS)))
    elif action == "drop":
        cur.execute(f"DELETE FROM {kid} WHERE pid = ?", (p,))
    else:  # (a parent's key changed: NO ACTION for its children in either table)
        cur.execute("UPDATE parent SET id = ? WHERE id = ?", (p % PARENTS, rng.randrange(PARENTS)))
    return action


def op_fk(cur, rng, who):
    """Children inserted for random parents, moved between them, deleted; parents deleted (their
    kid_c children with them; kid_n's stop it: 23503), inserted again, re-keyed."""
    try:
        for _ in range(rng.randint(1, 3)):
            outcome = _fk_write(cur, rng, who)
    except txlake.errors.ForeignKeyViolation:
        cur.execute("ROLLBACK")
        return "23503"
    except txlake.UniqueViolation:  # (a re-key onto a parent there)
        cur.execute("ROLLBACK")
        return "23505"
    return outcome


def op_unique(cur, rng, who):
    """Writes of tag's UNIQUE u over 10 values: INSERT (23505), ON CONFLICT (u) DO NOTHING / DO
    UPDATE, UPDATE of u (to another value or NULL), DELETE."""
    i, u = rng.randrange(TAGS), rng.randrange(TAG_VALUES)
    action = rng.choice(("insert", "nothing", "upsert", "update", "null", "delete", "delete_u"))
    try:
        if action == "insert":
            cur.execute("INSERT INTO tag VALUES (?, ?, 0)", (i, u))
        elif action == "nothing":
            cur.execute("INSERT INTO tag VALUES (?, ?, 0) ON CONFLICT (u) DO NOTHING", (i, u))
        elif action == "upsert":
            cur.execute("INSERT INTO tag VALUES (?, ?, 0) ON CONFLICT (u) DO UPDATE SET n = tag.n + 1", (i, u))
        elif action == "update":
            cur.execute("UPDATE tag SET u = ? WHERE id = ?", (u, i))
        elif action == "null":
            cur.execute("UPDATE tag SET u = NULL WHERE id = ?", (i,))
        elif action == "delete":
            cur.execute("DELETE FROM tag WHERE id = ?", (i,))
        else:
            cur.execute("DELETE FROM tag WHERE u = ?", (u,))
    except txlake.UniqueViolation:
        cur.execute("ROLLBACK")
        return "23505"
    return action


def op_check_constraint(cur, rng, who):
    """A purse transfer: one that would overdraw fails with 23514 (CHECK (bal >= 0))."""
    a, b = rng.sample(range(PURSES), 2)
    amt = rng.randint(1, 80)
    try:
        if rng.random() < 0.3:
            cur.execute("UPDATE purse SET bal = bal + CASE id WHEN ? THEN ? WHEN ? THEN ? ELSE 0 END "
                        "WHERE id IN (?, ?)", (a, -amt, b, amt, a, b))
        else:
            cur.execute("UPDATE purse SET bal = bal + ? WHERE id = ?", (amt, b))
            cur.execute("UPDATE purse SET bal = bal - ? WHERE id = ?", (amt, a))
    except txlake.errors.CheckViolation:
        cur.execute("ROLLBACK")
        return "23514"
    return "ok"


def op_queue(cur, rng, who):
    """A job claimed by FOR UPDATE SKIP LOCKED, logged in claims and done (or given back by a
    rollback); or new jobs queued."""
    if rng.random() < 0.2:
        cur.execute("INSERT INTO jobs SELECT nextval('job_id'), 'queued', NULL FROM range(3)")
        return "queued"
    got = cur.execute("UPDATE jobs SET state = 'running', who = ? WHERE id = (SELECT id FROM jobs WHERE "
                      "state = 'queued' ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED) RETURNING id", (who,)).fetchall()
    if not got:
        return "empty"
    job = got[0][0]
    cur.execute("INSERT INTO claims VALUES (?, ?)", (job, who))
    if cur.execute("UPDATE jobs SET state = 'done' WHERE id = ? AND who = ?", (job, who)).rowcount != 1:
        problems.add(f"{who}: the job {job} it claimed is not its own")
    if rng.random() < 0.1:
        cur.execute("ROLLBACK")
        return "given back"
    after_commit.setdefault(who, []).append(lambda: note_numbers(claims_file(warehouse_path), who, [job]))
    return "done"


def op_check(cur, rng, who):
    for message in check(cur):
        problems.add(f"{who}: {message}")
    return "ok"


def check(cur) -> list[str]:
    """Every invariant, read in the caller's snapshot (one statement each)."""
    found = []
    for table, expected in TABLE_TOTALS.items():
        got = tuple(cur.execute(f"SELECT sum(bal), count(*) FROM {table}").fetchone())
        if got != expected:
            found.append(f"{table} holds {got[0]} in {got[1]} rows")
    view = tuple(cur.execute("SELECT s, n FROM total").fetchone())
    if view != (TOTAL, ACCOUNTS):
        found.append(f"the view says {view}")
    off = cur.execute(f"SELECT w.id, w.bal, e.s FROM wallet w LEFT JOIN (SELECT wallet, sum(amt) AS s FROM entries "
                      f"GROUP BY wallet) e ON e.wallet = w.id WHERE w.bal <> {START} + coalesce(e.s, 0)").fetchall()
    if off:
        found.append(f"wallets (id, balance, entries' sum) disagree with their entries: {off}")
    n, distinct, top, unbalanced = cur.execute(
        "SELECT count(*), count(DISTINCT id), max(id), sum(amt) FROM entries").fetchone()
    if n != distinct:
        found.append(f"entries: {n} rows, {distinct} ids")
    if unbalanced:
        found.append(f"entries sum to {unbalanced}")
    last = cur.execute("SELECT last_value FROM entry_id").fetchone()[0]
    if top is not None and last < top:
        found.append(f"entry_id is at {last}, behind the entry {top}")
    parcels = sorted(cur.execute("SELECT id, v FROM east UNION ALL SELECT id, v FROM west").fetchall())
    if parcels != [(i, i) for i in range(PARCELS)]:
        found.append(f"east and west hold {parcels}")
    for (table,) in cur.execute("SELECT table_name FROM information_schema.tables "
                                "WHERE table_name LIKE 'churn%'").fetchall():
        k = int(table.split("_")[1])
        got = tuple(cur.execute(f"SELECT count(*), sum(x) FROM {table}").fetchone())
        if got != (k, k * (k - 1) // 2):
            found.append(f"{table} holds {got}")
    for kid in ("kid_c", "kid_n"):
        orphans = cur.execute(f"SELECT k.id, k.pid FROM {kid} k WHERE k.pid IS NOT NULL AND NOT EXISTS "
                              f"(SELECT 1 FROM parent p WHERE p.id = k.pid)").fetchall()
        if orphans:
            found.append(f"{kid} rows (id, pid) whose parent is gone: {orphans[:10]}")
    twice = cur.execute("SELECT u, count(*) FROM tag WHERE u IS NOT NULL GROUP BY u HAVING count(*) > 1").fetchall()
    n, ids = cur.execute("SELECT count(*), count(DISTINCT id) FROM tag").fetchone()
    if twice or n != ids:
        found.append(f"tag: values (u, rows) held twice {twice}; {n} rows, {ids} ids")
    low = cur.execute("SELECT id, bal FROM purse WHERE bal < 0").fetchall()
    if low:
        found.append(f"purses below 0: {low}")
    twice = cur.execute("SELECT job, count(*) FROM claims GROUP BY job HAVING count(*) > 1").fetchall()
    off = cur.execute("SELECT j.id, j.state, j.who, c.who FROM jobs j FULL JOIN claims c ON c.job = j.id "
                      "WHERE (j.state = 'done') <> (c.job IS NOT NULL) OR j.who <> c.who "
                      "OR j.state NOT IN ('queued', 'done')").fetchall()
    if twice or off:
        found.append(f"jobs claimed twice (job, claims): {twice[:10]}; jobs (id, state, who, claimed by) "
                     f"not done once: {off[:10]}")
    return found


# Errors a COMMIT may end an operation with (besides 40001 / 40P01, retried): a name another
# process's transaction, open when this one created it, committed first.
# Or a constraint a concurrent transaction's commit made fail (README: 23503 / 23505 at READ
# COMMITTED; 40001 at the others, retried).
COMMIT_MAY_REFUSE = {op_ddl: txlake.errors.DuplicateTable, op_fk: txlake.errors.ForeignKeyViolation,
                     op_unique: txlake.UniqueViolation}

OPS = {op.__name__[3:]: (op, weight) for op, weight in (
    (op_transfer, 30), (op_nokey, 10), (op_merge, 8), (op_bulk, 4), (op_rekey, 5), (op_move, 5),
    (op_savepoint, 5), (op_prepare, 8), (op_view, 3), (op_copy, 8), (op_sequence, 8), (op_shuttle, 8),
    (op_ddl, 4), (op_fk, 8), (op_unique, 8), (op_check_constraint, 8), (op_queue, 8))}
# op_check_constraint is --ops check (op_check, the invariants' reader, is no operation to pick)
OPS["check"] = OPS.pop("check_constraint")
