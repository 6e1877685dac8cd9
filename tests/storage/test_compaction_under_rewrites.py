"""A statement that rewrites a whole table (ALTER TABLE, CREATE INDEX, ADD CONSTRAINT) and a
compaction of that table - ``CALL txlake.compact``, VACUUM, background auto-compaction, in this
process or another - committing while it runs, in either order: both succeed, since a
compaction changes no row, and the table holds exactly its rows, in txlake and in every Paimon
snapshot published. A writer of rows committing meanwhile is a real conflict: the rewrite,
computed from the rows before it, gets 40001 and nothing is lost."""

import os
import subprocess
import sys

import pytest

import txlake
from tests.conftest import child_env, run_python
from tests.storage.test_published_paimon import check_all_snapshots
from txlake.storage import maintenance

# statement -> (its table's rows, as (id, v, email) rows become; a check that it took effect)
REWRITES = {
    "ALTER TABLE t ADD COLUMN w INT DEFAULT 7": (
        lambda rows: {(*r, 7) for r in rows},
        lambda c: c.execute("SELECT count(*) FROM t WHERE w = 7").fetchone()[0] > 0),
    "ALTER TABLE t ALTER COLUMN v TYPE BIGINT": (
        lambda rows: rows,
        lambda c: c.execute("SELECT data_type FROM information_schema.columns "
                            "WHERE table_name = 't' AND column_name = 'v'").fetchone() == ("bigint",)),
    "CREATE INDEX t_v ON t (v)": (
        lambda rows: rows,
        lambda c: ("t_v",) in c.execute("SELECT indexname FROM pg_indexes WHERE tablename = 't'").fetchall()),
    "ALTER TABLE t ADD UNIQUE (email)": (
        lambda rows: rows,
        lambda c: refused(c, "INSERT INTO t VALUES (100000, 0, 'e1')") == "23505"),
    "ALTER TABLE t ADD CHECK (v >= 0)": (
        lambda rows: rows,
        lambda c: refused(c, "INSERT INTO t VALUES (100000, -1, 'x')") == "23514"),
    "TRUNCATE t": (  # (not a rewrite: it deletes every row, followed through the compaction)
        lambda rows: set(),
        lambda c: c.execute("SELECT count(*) FROM t").fetchone() == (0,)),
}


def refused(c, sql: str) -> str | None:
    try:
        c.execute(sql)
    except txlake.Error as e:
        return e.sqlstate
    return None


def filled(c) -> set:
    """t(id PRIMARY KEY, v, email) in files a compaction merges - three of 300 rows (Parquet),
    six of one row (inline in the log), rows deleted and updated in both - and its rows."""
    c.execute("CREATE TABLE t (id INT PRIMARY KEY, v INT, email TEXT)")
    for first in (0, 300, 600):
        c.execute("INSERT INTO t SELECT g, g % 50, 'e' || g FROM generate_series(?, ?) g", (first, first + 299))
    for i in range(900, 906):
        c.execute("INSERT INTO t VALUES (?, ?, ?)", (i, i % 50, f"e{i}"))
    c.execute("DELETE FROM t WHERE id % 100 = 3")
    c.execute("UPDATE t SET v = 49 WHERE id IN (5, 901)")
    return {(i, 49 if i in (5, 901) else i % 50, f"e{i}") for i in range(906) if i % 100 != 3}


def contents(c) -> set:
    return set(c.execute("SELECT * FROM t").fetchall())


def assert_keys_hold(c) -> None:
    """Each id once, each email once (the UNIQUE constraint's invariant, whether it has one)."""
    assert c.execute("SELECT count(*) = count(DISTINCT id) AND count(*) = count(DISTINCT email) FROM t"
                     ).fetchone() == (True,)


def files(c) -> int:
    """How many files the newest committed version of t has."""
    return len(c._session.db.warehouse.refresh().table("default", "t").files)


def compacted(c, sql: str = "CALL txlake.compact('t')") -> None:
    """``sql`` compacts t and commits (a compaction that found nothing to do tests nothing)."""
    before = files(c)
    c.execute(sql)
    assert files(c) < before, f"{sql} did not commit a compaction"


def table_id(c) -> str:
    return c._session.db.warehouse.latest.table("default", "t").table_id


@pytest.mark.parametrize("rewrite", list(REWRITES))
@pytest.mark.parametrize("compactor", ["CALL txlake.compact('t')", "VACUUM t"])
def test_a_rewrite_commits_over_a_compaction_committed_while_it_ran(connect, warehouse, rewrite, compactor):
    c = connect(autocommit=True, publish="sync", gc_interval=3600)
    rows = filled(c)
    maintainer = connect(autocommit=True, publish="sync")
    c.execute("BEGIN")
    c.execute(rewrite)
    compacted(maintainer, compactor)
    merged = set(c._session.db.warehouse.latest.table("default", "t").file_ids())
    c.execute("COMMIT")
    expected, took_effect = REWRITES[rewrite]
    assert contents(c) == contents(maintainer) == expected(rows)
    assert took_effect(c)
    assert_keys_hold(c)
    assert not merged & set(c._session.db.warehouse.latest.table("default", "t").file_ids())
    c.close()
    maintainer.close()
    check_all_snapshots(warehouse, "t")
    reopened = txlake.connect(warehouse, publish="off")
    assert contents(reopened) == expected(rows)
    reopened.close()


def test_the_compaction_files_a_rewrite_replaced_go_with_expiry(connect, warehouse):
    """The compaction's file, which the rewrite's commit removed from the table, is garbage:
    expiry deletes it once no snapshot reads it, and the table reads whole."""
    c = connect(autocommit=True, publish="sync", gc_interval=3600)
    rows = filled(c)
    maintainer = connect(autocommit=True, publish="sync")
    c.execute("BEGIN")
    c.execute("CREATE INDEX t_v ON t (v)")
    compacted(maintainer)
    wh = c._session.db.warehouse
    merged = [os.path.join(warehouse, f.path) for f in wh.latest.table("default", "t").files if not f.is_inline]
    assert merged and all(map(os.path.exists, merged))
    c.execute("COMMIT")
    c.execute("CALL txlake.expire_snapshots(retain_last => 1)")
    assert not any(map(os.path.exists, merged)), "expiry left the replaced compaction's file"
    assert contents(c) == rows
    c.close()
    maintainer.close()
    check_all_snapshots(warehouse, "t")
    reopened = txlake.connect(warehouse, publish="off")
    assert contents(reopened) == rows
    reopened.close()


@pytest.mark.parametrize("level", ["READ COMMITTED", "REPEATABLE READ", "SERIALIZABLE"])
def test_a_transaction_goes_on_after_its_rewrite_over_a_compaction(connect, level):
    """The transaction writes rows before and after the rewrite, and rewrites again, with the
    compaction committed in between; at READ COMMITTED its next statements see the compacted
    version (the rewrite rebased on it)."""
    c = connect(autocommit=True, gc_interval=3600)
    rows = filled(c)
    maintainer = connect(autocommit=True)
    c.execute(f"BEGIN ISOLATION LEVEL {level}")
    c.execute("DELETE FROM t WHERE id = 7")
    c.execute("ALTER TABLE t ADD COLUMN w INT DEFAULT 7")
    compacted(maintainer)
    c.execute("INSERT INTO t VALUES (5000, 1, 'e5000', 1)")
    c.execute("UPDATE t SET w = 8 WHERE id = 11")
    c.execute("ALTER TABLE t ADD UNIQUE (email)")
    c.execute("COMMIT")
    expected = {(i, v, e, 8 if i == 11 else 7) for i, v, e in rows if i != 7} | {(5000, 1, "e5000", 1)}
    assert contents(c) == contents(maintainer) == expected
    assert_keys_hold(c)
    assert refused(c, "INSERT INTO t VALUES (5001, 0, 'e5000', 0)") == "23505"


def test_a_rewrite_commits_over_background_compaction(connect, monkeypatch):
    """Auto-compaction - this process's background thread, woken as a commit would wake it once
    a table passes AUTO_COMPACT_FILES small files - committing while a CREATE INDEX runs (CI
    saw it fail the CREATE INDEX with 40001)."""
    from txlake.engine.mvcc import gc
    threshold = gc.AUTO_COMPACT_FILES
    monkeypatch.setattr(gc, "AUTO_COMPACT_FILES", 10**6)  # (not while t is filled: below)
    c = connect(autocommit=True, gc_interval=3600)
    c.execute("CREATE TABLE t (id INT PRIMARY KEY, v INT, email TEXT)")
    for i in range(threshold + 10):
        c.execute("INSERT INTO t VALUES (?, ?, ?)", (i, i % 5, f"e{i}"))
    c.execute("BEGIN")
    c.execute("CREATE INDEX t_v ON t (v)")
    monkeypatch.setattr(gc, "AUTO_COMPACT_FILES", threshold)
    db = c._session.db
    before = files(c)
    runs = db.gc.runs
    db.gc.wake([table_id(c)])
    for _ in range(600):  # (the background pass, done or failed, counts a run: at most a minute)
        if db.gc.runs > runs:
            break
        db.gc._stop.wait(0.1)
    assert files(c) < before, "the background compaction did not commit"
    c.execute("COMMIT")
    assert contents(c) == {(i, i % 5, f"e{i}") for i in range(threshold + 10)}
    assert ("t_v",) in c.execute("SELECT indexname FROM pg_indexes WHERE tablename = 't'").fetchall()


def test_a_compaction_gives_way_to_a_rewrite_committed_while_it_ran(connect, warehouse):
    """The reverse order: the rewrite commits after the compaction read the files and before it
    commits. The compaction starts again on the rewritten table (whose file, with a row deleted
    since, it compacts), fails no one, and brings back none of the rows it read."""
    c = connect(autocommit=True, publish="sync", gc_interval=3600)
    rows = filled(c)
    writer = connect(autocommit=True, publish="sync")
    passes = []

    def meanwhile(done, groups):
        if not passes:
            writer.execute("ALTER TABLE t ADD COLUMN w INT DEFAULT 7")
            writer.execute("DELETE FROM t WHERE id = 11")
        passes.append(done)

    result = maintenance.compact(c._session.db.warehouse, table_id(c), progress=meanwhile)
    assert passes == [1, 1] and result.csn is not None, (passes, result)
    expected = {(*r, 7) for r in rows if r[0] != 11}
    assert contents(c) == contents(writer) == expected
    c.execute("CALL txlake.publish()")
    writer.close()
    c.close()
    check_all_snapshots(warehouse, "t")


@pytest.mark.parametrize("order", ["writer, compaction", "compaction, writer", "compaction raced by the writer"])
def test_a_writer_of_rows_racing_both_fails_the_rewrite_alone(connect, warehouse, order):
    """A row changed meanwhile is a real conflict for the rewrite, computed from the rows before
    (40001: run it again) - whether the compaction committed before or after the writer, or
    was itself rebased on the writer. The writer and the compaction commit; nothing is lost.
    (The writer is another process: in this one it would wait for the ALTER's table lock.)"""
    c = connect(autocommit=True, publish="sync", gc_interval=3600)
    rows = filled(c)
    writer = connect(autocommit=True, publish="sync")
    maintainer = connect(autocommit=True, publish="sync")

    def update(*_):
        done = run_python("import sys, txlake\n"
                          "c = txlake.connect(sys.argv[1], autocommit=True, publish='sync')\n"
                          "c.execute('UPDATE t SET v = -5 WHERE id = 1')\n"
                          "c.close()\n", warehouse)
        assert done.returncode == 0, done.stderr[-3000:]

    c.execute("BEGIN")
    c.execute("ALTER TABLE t ADD COLUMN w INT DEFAULT 7")
    try:
        if order == "writer, compaction":
            update()
            compacted(maintainer)
        elif order == "compaction, writer":
            compacted(maintainer)
            update()
        else:
            result = maintenance.compact(maintainer._session.db.warehouse, table_id(c), progress=update)
            assert result.csn is not None
        assert refused(c, "COMMIT") == "40001"
    finally:
        c.rollback()
    expected = {(i, -5 if i == 1 else v, e) for i, v, e in rows}
    assert contents(c) == contents(writer) == expected
    c.execute("ALTER TABLE t ADD COLUMN w INT DEFAULT 7")  # (run again, it commits)
    assert contents(c) == {(*r, 7) for r in expected}
    assert_keys_hold(c)
    for conn in (c, writer, maintainer):
        conn.close()
    check_all_snapshots(warehouse, "t")


# --- the compaction in another process ---------------------------------------------------------

def test_a_rewrite_commits_over_another_process_compaction(connect, warehouse):
    c = connect(autocommit=True, publish="sync", gc_interval=3600)
    rows = filled(c)
    c.execute("BEGIN")
    c.execute("ALTER TABLE t ADD UNIQUE (email)")
    c.execute("ALTER TABLE t ALTER COLUMN v TYPE BIGINT")
    done = run_python("import sys, txlake\n"
                      "c = txlake.connect(sys.argv[1], autocommit=True, publish='off', gc_interval=3600)\n"
                      "print(c.execute(\"CALL txlake.compact('t')\").fetchone()[4])\n"
                      "c.close()\n", warehouse)
    assert done.returncode == 0 and done.stdout.strip() not in ("", "None"), done.stderr[-3000:]
    c.execute("COMMIT")
    assert contents(c) == rows
    assert refused(c, "INSERT INTO t VALUES (100000, 0, 'e1')") == "23505"
    c.close()
    check_all_snapshots(warehouse, "t")
    reopened = run_python("import sys, txlake\n"
                          "c = txlake.connect(sys.argv[1], publish='off')\n"
                          "print(sorted(c.execute('SELECT * FROM t').fetchall()))\n", warehouse)
    assert reopened.stdout.strip() == str(sorted(rows)), reopened.stderr[-3000:]


COMPACT_AFTER_SIGNAL = r"""
import os, sys, time, txlake
from txlake.storage import maintenance
path, ready, go = sys.argv[1:4]
c = txlake.connect(path, autocommit=True, publish="off", gc_interval=3600)
wh = c._session.db.warehouse
first = []

def meanwhile(done, groups):  # the files read and merged: let the other process commit, then go on
    if not first:
        first.append(done)
        open(ready, "w").close()
        for _ in range(600):
            if os.path.exists(go):
                break
            time.sleep(0.1)

result = maintenance.compact(wh, wh.refresh().table("default", "t").table_id, progress=meanwhile)
print(result.csn, sorted(c.execute("SELECT * FROM t").fetchall()))
c.close()
"""


def test_another_process_compaction_gives_way_to_a_rewrite(connect, warehouse, tmp_path):
    c = connect(autocommit=True, publish="sync", gc_interval=3600)
    rows = filled(c)
    ready, go = str(tmp_path / "ready"), str(tmp_path / "go")
    child = subprocess.Popen([sys.executable, "-c", COMPACT_AFTER_SIGNAL, warehouse, ready, go],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=child_env())
    try:
        for _ in range(1200):
            if os.path.exists(ready) or child.poll() is not None:
                break
            c._session.db.gc._stop.wait(0.1)
        assert os.path.exists(ready), "the other process did not reach its compaction's commit"
        c.execute("CREATE INDEX t_v ON t (v)")
    finally:
        open(go, "w").close()
        out, err = child.communicate(timeout=120)
    assert child.returncode == 0, err[-3000:]
    csn, seen = out.strip().split(" ", 1)
    assert csn == "None" and seen == str(sorted(rows)), out
    assert contents(c) == rows
    assert ("t_v",) in c.execute("SELECT indexname FROM pg_indexes WHERE tablename = 't'").fetchall()
    c.close()
    check_all_snapshots(warehouse, "t")
