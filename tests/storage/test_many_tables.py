"""A transaction's cost does not grow with the size of the warehouse: it finds its tables by id
through an index carried from catalog version to version, background publishing passes over
the tables nothing changed, and auto-compaction's question after each commit - how many of the
table's files are worth rewriting - is answered from a count each version carries, not by
walking a big table's files."""

import os

import txlake
from tests.paimon_env import read_with_pypaimon
from txlake.storage import commit as storage_commit
from txlake.storage import maintenance
from txlake.storage import version as storage_version
from txlake.storage.publish import Publisher
from txlake.storage.version import CatalogVersion


def test_catalog_versions_find_tables_by_id_through_an_index_carried_by_each_commit(warehouse):
    conn = txlake.connect(warehouse, autocommit=True, publish="off")
    for i in range(30):
        conn.execute(f"CREATE TABLE t{i} (id INT PRIMARY KEY)")
    wh = conn._session.db.warehouse
    old_t3 = wh.latest.table("default", "t3").table_id
    conn.execute("INSERT INTO t29 VALUES (1)")
    assert wh.latest._ids is not None, "the index came with the commit (apply), not built by a walk"
    conn.execute("BEGIN")
    conn.execute("DROP TABLE t3")
    conn.execute("CREATE TABLE t3 (x TEXT)")
    conn.execute("INSERT INTO t3 VALUES ('new')")
    conn.execute("COMMIT")
    latest = wh.latest
    assert latest._ids is not None and latest.by_id(old_t3) is None
    assert all(latest.by_id(v.table_id) is v for v in latest.tables.values())
    assert latest.by_id(latest.table("default", "t3").table_id).schema.names == ["x"]
    replayed = CatalogVersion.from_json(latest.to_json())  # (a checkpoint's: built at the first ask)
    assert replayed._ids is None
    assert {v.table_id: k for k, v in replayed.tables.items()} == replayed._id_index() == latest._ids
    assert conn.execute("SELECT x FROM t3").fetchall() == [("new",)]
    conn.close()


def test_a_publishing_pass_passes_over_the_tables_nothing_changed(tmp_path, monkeypatch):
    path = str(tmp_path / "wh")
    conn = txlake.connect(path, autocommit=True, publish="off")
    for i in range(5):
        conn.execute(f"CREATE TABLE t{i} (id INT PRIMARY KEY, v INT)")
        conn.execute(f"INSERT INTO t{i} VALUES (1, {i})")
    publisher = Publisher(conn._session.db.warehouse, mode="sync")  # not started: passes when asked
    publisher.publish()
    published = []
    publish_table = Publisher._publish_table
    monkeypatch.setattr(Publisher, "_publish_table",
                        lambda self, catalog, version, *rest: (published.append(version.name),
                                                               publish_table(self, catalog, version, *rest))[1])
    conn.execute("UPDATE t2 SET v = 20 WHERE id = 1")
    conn.execute("INSERT INTO t2 VALUES (2, 22)")
    publisher.publish()
    assert published == ["t2"]
    conn.execute("DROP TABLE t4")
    conn.execute("CREATE TABLE t4 (x TEXT)")  # (same name, new table: published afresh)
    conn.execute("INSERT INTO t4 VALUES ('again')")
    publisher.publish()
    assert published == ["t2", "t4"]
    snapshots = read_with_pypaimon(os.path.join(path, "default.db", "t2"))["snapshots"]
    assert sorted(snapshots[max(snapshots)]["rows"]) == [[1, 20], [2, 22]]
    snapshots = read_with_pypaimon(os.path.join(path, "default.db", "t4"))["snapshots"]
    assert [s["rows"] for s in snapshots.values()] == [[["again"]]]
    conn.execute("DROP TABLE t1")
    publisher.publish()
    assert published == ["t2", "t4"] and not os.path.isdir(os.path.join(path, "default.db", "t1", "snapshot"))
    conn.close()


def test_a_big_tables_count_of_files_worth_rewriting_is_carried_not_walked(warehouse, monkeypatch):
    monkeypatch.setattr(storage_commit, "ROWS_PER_FILE", 100)  # (a big table: many files)
    monkeypatch.setattr(maintenance, "SMALL_FILE_ROWS", 25)
    conn = txlake.connect(warehouse, autocommit=True, publish="off", gc_interval=3600)
    conn.execute("CREATE TABLE t (id INT PRIMARY KEY, v INT)")
    conn.execute("INSERT INTO t SELECT range, 0 FROM range(30000)")  # 300 files
    wh = conn._session.db.warehouse

    def counts():
        """(the count the newest version carries, the count a walk of its files gives)"""
        t = wh.latest.table("default", "t")
        carried = t.caches.get(storage_version.REWRITABLE)
        walked = sum(storage_version.rewritable(f.row_count, len(t.deleted(f.file_id)), 25, 0.3) for f in t.files)
        return carried[2] if carried else None, walked

    assert not maintenance.worth_compacting(wh.latest.table("default", "t"), 64)  # (counts, once)
    asked = []
    monkeypatch.setattr(storage_version, "rewritable", lambda *a: (asked.append(a), maintenance.rewritable(*a))[1])
    conn.execute("UPDATE t SET v = 1 WHERE id = 4321")
    assert 0 < len(asked) < 20, "the files the commit touched are counted again, not all 300"
    monkeypatch.setattr(storage_version, "rewritable", maintenance.rewritable)
    assert counts() == (1, 1)  # the one-row file
    statements = [
        "UPDATE t SET v = 2 WHERE id < 80",              # a file mostly deleted (and rows elsewhere)
        "DELETE FROM t WHERE id BETWEEN 200 AND 299",    # a file wholly deleted: it leaves
        "INSERT INTO t SELECT range + 40000, 0 FROM range(30)",
        "DELETE FROM t WHERE id >= 40010",
        "CALL txlake.compact('t')",
        "ALTER TABLE t ADD COLUMN w INT DEFAULT 1",      # every file rewritten
        "UPDATE t SET w = 5 WHERE id % 1000 = 7",
    ]
    for sql in statements:
        conn.execute(sql)
        carried, walked = counts()
        assert carried in (walked, None) and (carried is not None or sql.startswith("ALTER")), sql
    conn.close()


def test_a_commit_to_a_table_of_more_files_than_auto_compaction_counts_walks_none_of_them(warehouse, monkeypatch):
    """After each commit the table is asked whether it has more files worth rewriting than
    auto-compaction's 64; a table of a few more files than that (about 8M rows) had them all
    walked at every commit - few are worth rewriting there, so the walk never stopped early."""
    monkeypatch.setattr(storage_commit, "ROWS_PER_FILE", 100)
    monkeypatch.setattr(maintenance, "SMALL_FILE_ROWS", 25)
    conn = txlake.connect(warehouse, autocommit=True, publish="off", gc_interval=3600)
    conn.execute("CREATE TABLE t (id INT PRIMARY KEY, v INT)")
    conn.execute("INSERT INTO t SELECT range, 0 FROM range(7000)")  # 70 files
    conn.execute("UPDATE t SET v = 1 WHERE id = 1")
    walked = []
    real = maintenance._worth_rewriting
    monkeypatch.setattr(maintenance, "_worth_rewriting", lambda *a: (walked.append(a), real(*a))[1])
    for i in range(5):
        conn.execute("UPDATE t SET v = v + 1 WHERE id = ?", (i * 1000 + 7,))
    assert walked == []
    t = conn._session.db.warehouse.latest.table("default", "t")
    assert len(t.files) > 64 and t.rewritable_files(25, maintenance.DELETED_FRACTION) == 6  # (the one-row files)
    assert conn.execute("SELECT sum(v) FROM t").fetchone() == (6,)
    conn.close()
