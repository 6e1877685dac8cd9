"""A transaction's cost does not grow with the number of tables in the warehouse: it finds its
tables by id through an index carried from catalog version to version, and background
publishing passes over the tables nothing changed."""

import os

import txlake
from tests.paimon_env import read_with_pypaimon
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
                        lambda self, catalog, version: (published.append(version.name),
                                                        publish_table(self, catalog, version))[1])
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
