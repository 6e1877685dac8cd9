"""Compaction lineage is forgotten once no snapshot in use can need it: it stays bounded under a
stream of compactions, a transaction holding an older snapshot keeps what it needs, and a row
whose lineage was forgotten makes its transaction fail (40001) rather than look deleted."""

import itertools

import pytest

import txlake
from txlake.storage import version as v
from txlake.storage.schema import Column, TableSchema, make_type
from txlake.storage import warehouse as wh


def lineage(pairs: dict, csn: int) -> dict:
    """A compaction's ``moved`` (the CSN is the entry's, given to ``with_files`` apart)."""
    return {old: (new, 0, v.EMPTY_BITMAP) for old, new in pairs.items()}


def test_lineage_merges_its_recent_part_and_forgets_only_then(monkeypatch):
    monkeypatch.setattr(v, "RECENT_LINEAGE", 4)
    schema = TableSchema(0, (Column(0, "a", make_type("INT")),), (), 0)
    table = v.TableVersion("t", "default", "t", schema, (), {}, 100)
    for csn in range(1, 11):   # compaction ``csn`` moves file csn into file 100 + csn
        table = table.with_files(moved=lineage({csn: 100 + csn}, csn), csn=csn, forget_before=7 if csn == 10 else 0)
        assert table.moved.recent <= 4
        if csn == 5:
            assert table.moved.recent == 0 and len(table.moved) == 5, "merged, nothing forgotten (forget_before 0)"
    # the merge at compaction 10 forgot compactions 1..6
    assert sorted(table.moved) == [7, 8, 9, 10] and table.forgotten == 6
    assert table.moved[8] == (108, 0, v.EMPTY_BITMAP, 8)
    assert table.locate(3, 0) is None and table.lineage_lost(3)
    assert not table.lineage_lost(9) and not table.lineage_lost(50), "kept, or never compacted"
    table = table.with_files(moved=lineage({11: 111}, 11), csn=11)   # one in the recent part
    again = v.TableVersion.from_json(table.to_json())
    assert list(again.moved.items()) == list(table.moved.items()) and again.moved.recent == table.moved.recent == 1
    assert again.forgotten == 6


_new_ids = itertools.count(1000)


def updates_with_compactions(conn, rounds: int) -> None:
    for i in range(rounds):
        conn.execute("INSERT INTO t VALUES (?, 0)", (next(_new_ids),))
        conn.execute("UPDATE t SET v = v + 1 WHERE id = ?", (10 + i % 10,))  # (ids 10-19 only)
        conn.execute("CALL txlake.compact('t')")


@pytest.fixture
def forgetful(monkeypatch):
    """Lineage merged every 8 entries and kept no minimum time: only snapshots protect it."""
    monkeypatch.setattr(v, "RECENT_LINEAGE", 8)
    monkeypatch.setattr(wh, "LINEAGE_KEEP_SECONDS", 0.0)


def test_lineage_stays_bounded_under_a_stream_of_compactions(warehouse, forgetful):
    conn = txlake.connect(warehouse, autocommit=True, publish="off", gc_interval=3600)
    conn.execute("CREATE TABLE t (id INT PRIMARY KEY, v INT)")
    conn.execute("INSERT INTO t SELECT i, 0 FROM range(20) r(i)")
    sizes = []
    for _ in range(6):
        updates_with_compactions(conn, 10)
        sizes.append(len(conn._session.db.warehouse.latest.tables[("default", "t")].moved))
    assert max(sizes) < 40, f"lineage grew with the compactions: {sizes}"
    assert conn.execute("SELECT sum(v), count(*) FROM t").fetchone() == (60, 80)
    conn.close()


def test_an_older_snapshot_keeps_the_lineage_it_needs(warehouse, forgetful):
    conn = txlake.connect(warehouse, autocommit=True, publish="off", gc_interval=3600)
    conn.execute("CREATE TABLE t (id INT PRIMARY KEY, v INT)")
    for i in range(20):
        conn.execute("INSERT INTO t VALUES (?, 0)", (i,))   # one small file a row
    old = txlake.connect(warehouse, isolation_level="REPEATABLE READ", publish="off")
    old.execute("UPDATE t SET v = 100 WHERE id = 3")        # its row's file is compacted below
    updates_with_compactions(conn, 30)
    table = conn._session.db.warehouse.latest.tables[("default", "t")]
    assert 3 not in {f.file_id for f in table.files} and table.forgotten == 0, \
        "the file moved, and nothing was forgotten while a snapshot from before it is open"
    old.commit()                                             # rebased through the lineage
    old.close()
    assert conn.execute("SELECT v FROM t WHERE id = 3").fetchone() == (100,)
    updates_with_compactions(conn, 30)
    table = conn._session.db.warehouse.latest.tables[("default", "t")]
    assert table.forgotten > 0, "forgotten once no open snapshot needs it"
    assert conn.execute("SELECT sum(v), count(*) FROM t").fetchone() == (160, 80)
    conn.close()


def test_a_row_whose_lineage_was_forgotten_fails_its_transaction(warehouse, forgetful, monkeypatch):
    """Were a snapshot left out of the horizon (a process not advertising it), its transaction
    would meet a forgotten lineage: it fails with 40001, it does not take the row as deleted."""
    conn = txlake.connect(warehouse, autocommit=True, publish="off", gc_interval=3600)
    conn.execute("CREATE TABLE t (id INT PRIMARY KEY, v INT)")
    for i in range(20):
        conn.execute("INSERT INTO t VALUES (?, 0)", (i,))
    old = txlake.connect(warehouse, isolation_level="REPEATABLE READ", publish="off")
    old.execute("UPDATE t SET v = 100 WHERE id = 7")
    monkeypatch.setattr(conn._session.db.warehouse, "oldest_snapshot_in_use", lambda: None)
    monkeypatch.setattr(wh, "oldest_leased", lambda warehouse: None, raising=False)
    updates_with_compactions(conn, 40)   # (row 7 untouched: only its file moved)
    table = conn._session.db.warehouse.latest.tables[("default", "t")]
    assert table.forgotten > 0
    with pytest.raises(txlake.SerializationFailure):
        old.commit()
    assert conn.execute("SELECT v FROM t WHERE id = 7").fetchone() == (0,)
    old.close()
    conn.close()


def test_a_prepared_transaction_keeps_the_lineage_of_its_claims(warehouse, forgetful):
    """A prepared transaction's claimed rows are found through the lineage of the compactions
    since its snapshot, however long it waits: a later update of such a row is refused, and
    COMMIT PREPARED then lands."""
    conn = txlake.connect(warehouse, autocommit=True, publish="off", gc_interval=3600)
    conn.execute("CREATE TABLE t (id INT PRIMARY KEY, v INT)")
    for i in range(20):
        conn.execute("INSERT INTO t VALUES (?, 0)", (i,))
    conn.execute("BEGIN")
    conn.execute("UPDATE t SET v = 7 WHERE id = 4")
    conn.execute("PREPARE TRANSACTION 'p'")
    updates_with_compactions(conn, 40)       # (row 4's file compacted; nothing else running)
    table = conn._session.db.warehouse.latest.tables[("default", "t")]
    assert 4 not in {f.file_id for f in table.files}
    with pytest.raises(txlake.SerializationFailure, match="prepared transaction"):
        conn.execute("UPDATE t SET v = -1 WHERE id = 4")
    conn.execute("COMMIT PREPARED 'p'")
    assert conn.execute("SELECT v FROM t WHERE id = 4").fetchone() == (7,)
    conn.close()
