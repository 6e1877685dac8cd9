"""Catalog checkpoints: a warehouse opened from a checkpoint plus the log after it is the
warehouse a replay of the whole log gives - files, inline rows, deletion vectors, compaction
lineage, schemas, dropped tables, labels - and a checkpoint it cannot use is passed over."""

import os

import pytest

import txlake
from txlake.storage import checkpoint
from txlake.storage.warehouse import Warehouse


def dump(catalog) -> tuple:
    """Everything a catalog version holds, read through its objects (not through the JSON a
    checkpoint is written with)."""
    def rows(f):
        return f.inline.to_pylist() if f.is_inline and hasattr(f.inline, "to_pylist") else \
            f.python_rows().columns if f.python_rows() is not None else None

    tables = sorted((t.table_id, t.db, t.name, t.schema, t.next_file_id, t.forgotten,
                     [(f.file_id, f.path, f.row_count, f.schema_id, f.size, f.key_bounds, rows(f)) for f in t.files],
                     {fid: list(bm) for fid, bm in t.deletes.items()},
                     [(old, new, offset, list(dead), csn) for old, (new, offset, dead, csn) in t.moved.items()],
                     t.moved.recent)
                    for t in catalog.tables.values())
    return catalog.csn, catalog.time_ms, catalog.max_xid, tables


def state(path: str) -> tuple:
    return dump(Warehouse(path).latest)


def replayed(path: str) -> dict:
    """The state a replay of the whole log gives (the checkpoints moved aside meanwhile)."""
    names = checkpoint_names(path)
    log_dir = os.path.join(path, "_txlog")
    for name in names:
        os.rename(os.path.join(log_dir, name), os.path.join(log_dir, "." + name))
    try:
        return state(path)
    finally:
        for name in names:
            os.rename(os.path.join(log_dir, "." + name), os.path.join(log_dir, name))


def checkpoint_names(path: str) -> list[str]:
    return sorted(n for n in os.listdir(os.path.join(path, "_txlog")) if n.startswith(checkpoint.PREFIX))


def workload(conn, start: int) -> None:
    """Inline and Parquet inserts, point and bulk updates, deletes, a compaction, a schema
    change, a table dropped and one created."""
    conn.execute(f"INSERT INTO k VALUES ({start}, 'a'), ({start + 1}, 'b')")
    conn.execute(f"INSERT INTO k SELECT i, 'bulk' FROM range({start + 10}, {start + 2000}) r(i)")
    conn.execute(f"UPDATE k SET v = 'changed' WHERE id = {start}")
    conn.execute(f"UPDATE k SET v = 'even' WHERE id % 2 = 0 AND id > {start + 1000}")
    conn.execute(f"DELETE FROM k WHERE id BETWEEN {start + 10} AND {start + 20}")
    for i in range(12):
        conn.execute(f"INSERT INTO n VALUES ({start + i}, {i}.5)")
    conn.execute(f"DELETE FROM n WHERE x = {start + 3}")
    conn.execute("CALL txlake.compact('n')")
    conn.execute(f"UPDATE n SET y = -1 WHERE x = {start + 5}")   # a row the compaction moved


def test_open_from_a_checkpoint_equals_a_replay_of_the_whole_log(warehouse):
    conn = txlake.connect(warehouse, autocommit=True, publish="off")
    conn.execute("CREATE TABLE k (id BIGINT PRIMARY KEY, v VARCHAR)")
    conn.execute("CREATE TABLE n (x INT, y DOUBLE)")
    conn.execute("CREATE TABLE gone (a INT)")
    workload(conn, 0)
    conn.execute("BEGIN WITH LABEL 'before-the-checkpoint'")
    conn.execute("INSERT INTO k VALUES (-1, 'labelled')")
    conn.execute("COMMIT")
    db_warehouse = conn._session.db.warehouse
    first = db_warehouse.write_checkpoint(force=True)
    assert first == db_warehouse.latest.csn and checkpoint_names(warehouse)
    conn.execute("ALTER TABLE n ADD COLUMN z VARCHAR")
    conn.execute("DROP TABLE gone")
    conn.execute("CREATE TABLE later (a INT)")
    workload(conn, 100_000)
    expected = conn.execute("SELECT * FROM k ORDER BY id").fetchall(), \
        conn.execute("SELECT * FROM n ORDER BY x").fetchall()
    conn.close()

    assert state(warehouse) == replayed(warehouse)
    reopened = Warehouse(warehouse)
    assert reopened.latest.csn > first and reopened._checkpoint_csn == first
    again = txlake.connect(warehouse, autocommit=True, publish="off")
    assert (again.execute("SELECT * FROM k ORDER BY id").fetchall(),
            again.execute("SELECT * FROM n ORDER BY x").fetchall()) == expected
    with pytest.raises(txlake.DuplicateObject):   # a label only the checkpoint remembers
        again.execute("BEGIN WITH LABEL 'before-the-checkpoint'")
    again.close()


@pytest.fixture
def worked(warehouse):
    """A connection to a warehouse with two tables, after one ``workload``."""
    conn = txlake.connect(warehouse, autocommit=True, publish="off")
    conn.execute("CREATE TABLE k (id BIGINT PRIMARY KEY, v VARCHAR)")
    conn.execute("CREATE TABLE n (x INT, y DOUBLE)")
    workload(conn, 0)
    yield conn
    conn.close()


def test_time_travel_starts_from_a_checkpoint_and_sees_what_a_replay_sees(warehouse, worked, monkeypatch):
    conn, wh = worked, worked._session.db.warehouse
    wh.write_checkpoint(force=True)
    middle = wh.latest.csn + 3
    workload(conn, 100_000)
    wh.write_checkpoint(force=True)  # (one past ``middle`` too: not a start for it)
    conn.close()
    expected = dump(Warehouse(warehouse).catalog_at(middle))  # (from the log's start)
    monkeypatch.setattr(checkpoint, "CHECKPOINT_ENTRIES", 1)     # (so the checkpoint is used)
    assert dump(Warehouse(warehouse).catalog_at(middle)) == expected


def test_a_checkpoint_that_cannot_be_used_is_passed_over(warehouse, worked):
    conn, wh = worked, worked._session.db.warehouse
    older = wh.write_checkpoint(force=True)
    conn.execute("INSERT INTO k VALUES (-5, 'x')")
    newer = wh.write_checkpoint(force=True)
    conn.execute("INSERT INTO k VALUES (-6, 'y')")
    conn.close()
    expected = replayed(warehouse)
    log_dir = os.path.join(warehouse, "_txlog")
    with open(os.path.join(log_dir, checkpoint._name(newer)), "r+b") as f:
        f.truncate(100)                       # torn (it is written atomically; a disk may lie)
    future = os.path.join(log_dir, checkpoint._name(newer + 1000))
    os.link(os.path.join(log_dir, checkpoint._name(older)), future)  # past the log's end
    opened = Warehouse(warehouse)
    assert opened._checkpoint_csn == older and dump(opened.latest) == expected
    for name in checkpoint_names(warehouse):
        with open(os.path.join(log_dir, name), "wb") as f:
            f.write(b"{}")
    assert state(warehouse) == expected, "no usable checkpoint: the whole log is replayed"


def test_background_maintenance_writes_checkpoints_and_keeps_the_newest(warehouse, monkeypatch):
    monkeypatch.setattr(checkpoint, "CHECKPOINT_ENTRIES", 3)
    conn = txlake.connect(warehouse, autocommit=True, publish="off", gc_interval=3600)
    conn.execute("CREATE TABLE t (a INT)")
    wh, gc = conn._session.db.warehouse, conn._session.db.gc
    written = []
    for i in range(5):
        for j in range(3):
            conn.execute(f"INSERT INTO t VALUES ({i * 3 + j})")
        runs = gc.runs
        gc.wake()
        while gc.runs == runs:
            gc._stop.wait(0.01)
        written.append(wh._checkpoint_csn)
    assert written == sorted(set(written)) and len(written) == 5, "one checkpoint per pass that was due"
    assert [int(n[len(checkpoint.PREFIX):-len(checkpoint.SUFFIX)]) for n in checkpoint_names(warehouse)] \
        == written[-checkpoint.KEEP:]
    assert wh.write_checkpoint() is None, "nothing committed since the last one"
    conn.close()
    assert state(warehouse) == replayed(warehouse)


def test_a_checkpoint_of_an_entry_the_log_lost_is_passed_over(warehouse):
    """A process may read another's log line before that one's flush, and write a checkpoint of
    it. If the line is then lost - a power failure before the flush; here its bytes are zeroed,
    as a line never written back reads - the log's next entry of that number is another, and
    opening took the checkpoint for it: the lost (never acknowledged) commit came back and the
    acknowledged one was missing. A checkpoint names the entry it was written after."""
    conn = txlake.connect(warehouse, autocommit=True, publish="off")
    conn.execute("CREATE TABLE k (id BIGINT PRIMARY KEY, v VARCHAR)")
    conn.execute("INSERT INTO k VALUES (-5, 'lost')")
    lost = conn._session.db.warehouse.write_checkpoint(force=True)
    conn.close()
    segment = os.path.join(warehouse, "_txlog", f"{1:012d}.log")
    with open(segment, "r+b") as f:
        data = f.read()
        end = data.index(b"\0") if b"\0" in data else len(data)
        start = data.rindex(b"\n", 0, end - 1) + 1
        assert data[start:].startswith(b"%d " % lost)
        f.seek(start)
        f.write(bytes(end - start))
    conn = txlake.connect(warehouse, autocommit=True, publish="off")
    assert conn.execute("SELECT * FROM k").fetchall() == []
    conn.execute("INSERT INTO k VALUES (-6, 'acknowledged')")  # entry ``lost`` again, another one
    conn.close()
    conn = txlake.connect(warehouse, autocommit=True, publish="off")
    assert conn.execute("SELECT * FROM k").fetchall() == [(-6, "acknowledged")]
    conn.close()
