"""A renamed table on disk: the log's rename replayed after a crash at each step of its commit
(the old name or the new, never both nor neither), and its Paimon table published under the
new name - other engines find ``<db>.db/<new>/`` and no live table at the old directory."""

import os
import subprocess
import sys

import pytest

import txlake
from tests.conftest import REPO
from tests.paimon_env import read_with_pypaimon
from txlake.storage.expiry import expire_snapshots, remove_orphan_files
from tests.storage.test_published_paimon import check_all_snapshots


def newest_rows(path: str, table: str) -> list:
    published = read_with_pypaimon(os.path.join(path, "default.db", table))["snapshots"]
    return sorted(list(published.values())[-1]["rows"]) if published else None


def test_a_renamed_table_is_published_under_its_new_name_only(tmp_path):
    path = str(tmp_path / "wh")
    c = txlake.connect(path, autocommit=True, publish="sync")
    c.execute("CREATE TABLE t (id INT PRIMARY KEY, v TEXT)")
    c.execute("INSERT INTO t SELECT range, 'r' || range FROM range(300)")  # (a Parquet file, not inline)
    c.execute("INSERT INTO t SELECT range, 'q' || range FROM range(300, 600)")
    c.execute("INSERT INTO t VALUES (1000, 'inline')")
    c.execute("DELETE FROM t WHERE id = 305")  # (one file with deleted rows, one without)
    c.execute("ALTER TABLE t RENAME TO u")
    c.execute("INSERT INTO u VALUES (2000, 'after')")
    c.close()
    rows = newest_rows(path, "u")
    assert len(rows) == 601 and [1000, "inline"] in rows and [2000, "after"] in rows and [305, "q305"] not in rows
    check_all_snapshots(path, "u")
    old = os.path.join(path, "default.db", "t")
    assert not os.path.exists(os.path.join(old, "snapshot")) and not os.path.exists(os.path.join(old, "schema"))
    # a table made again under the old name is its own there
    c = txlake.connect(path, autocommit=True, publish="sync")
    c.execute("CREATE TABLE t (x INT)")
    c.execute("INSERT INTO t VALUES (7)")
    c.close()
    assert newest_rows(path, "t") == [[7]] and len(newest_rows(path, "u")) == 601


def test_the_files_of_a_renamed_table_survive_orphan_removal_and_expiry(tmp_path):
    path = str(tmp_path / "wh")
    c = txlake.connect(path, autocommit=True, publish="sync")
    c.execute("CREATE TABLE t (id INT, v TEXT)")
    c.execute("INSERT INTO t SELECT range, 'r' || range FROM range(300)")
    c.execute("ALTER TABLE t RENAME TO u")
    wh = c.session.db.warehouse
    expire_snapshots(wh, older_than_ms=0)
    remove_orphan_files(wh, older_than_seconds=0)
    assert c.execute("SELECT count(*) FROM u").fetchall() == [(300,)]
    c.close()
    reopened = txlake.connect(path, publish="off")
    assert reopened.execute("SELECT count(*), sum(id) FROM u").fetchall() == [(300, sum(range(300)))]
    reopened.close()
    assert len(newest_rows(path, "u")) == 300


CHILD = r"""
import sys, txlake
c = txlake.connect(sys.argv[1], publish="sync")
c.execute("ALTER TABLE t RENAME TO u")
c.execute("INSERT INTO u VALUES (100)")
c.commit()
print("acknowledged", flush=True)
"""


@pytest.mark.parametrize("step,committed", [("after-prepare", False), ("before-log", False), ("torn-log", False),
                                            ("after-log", True), ("after-publish", True)])
def test_a_rename_killed_at_each_step_leaves_one_name(tmp_path, step, committed):
    path = str(tmp_path / "wh")
    setup = txlake.connect(path, autocommit=True, publish="sync")
    setup.execute("CREATE TABLE t (id INT PRIMARY KEY)")
    setup.execute("INSERT INTO t VALUES (1)")
    setup.close()
    env = dict(os.environ, PYTHONPATH=REPO + os.pathsep + os.environ.get("PYTHONPATH", ""), TXLAKE_CRASH_AT=step)
    child = subprocess.run([sys.executable, "-c", CHILD, path], env=env, capture_output=True, text=True, timeout=120)
    assert child.returncode == 137 and "acknowledged" not in child.stdout, child.stderr
    after = txlake.connect(path, autocommit=True, publish="sync")  # reopening replays and re-publishes
    names = after.execute("SELECT table_name FROM information_schema.tables WHERE table_schema = 'public'").fetchall()
    assert names == ([("u",)] if committed else [("t",)])
    live, gone = ("u", "t") if committed else ("t", "u")
    assert after.execute(f"SELECT id FROM {live} ORDER BY id").fetchall() == ([(1,), (100,)] if committed else [(1,)])
    after.execute(f"INSERT INTO {live} VALUES (7)")  # and keeps working
    after.close()
    assert newest_rows(path, live) == ([[1], [7], [100]] if committed else [[1], [7]])
    assert not os.path.exists(os.path.join(path, "default.db", gone, "snapshot"))


def test_a_publisher_that_knew_the_old_name_publishes_the_new_one_afresh(tmp_path):
    """Another process dropped u and renamed t to u: this process's publisher, which had
    published t, took its state of t's directory for u's, and left u showing the dropped u."""
    path = str(tmp_path / "wh")
    c = txlake.connect(path, autocommit=True, publish="sync")
    c.execute("CREATE TABLE u (a TEXT, b TEXT)")
    c.execute("INSERT INTO u VALUES ('dropped', 'u')")
    c.execute("CREATE TABLE t (id INT)")
    c.execute("INSERT INTO t VALUES (1), (2)")
    code = ("import sys, txlake\nc = txlake.connect(sys.argv[1], publish='off', autocommit=True)\n"
            "c.execute('DROP TABLE u')\nc.execute('ALTER TABLE t RENAME TO u')\n")
    other = subprocess.run([sys.executable, "-c", code, path], capture_output=True, text=True, timeout=120,
                           env=dict(os.environ, PYTHONPATH=REPO + os.pathsep + os.environ.get("PYTHONPATH", "")))
    assert other.returncode == 0, other.stderr
    c.execute("CALL txlake.publish()")
    c.close()
    assert newest_rows(path, "u") == [[1], [2]]
    assert read_with_pypaimon(os.path.join(path, "default.db", "u"))["fields"] == [{"id": 0, "name": "id",
                                                                                   "type": "INT"}]
    assert not os.path.exists(os.path.join(path, "default.db", "t", "snapshot"))
