"""Primary-key indexes: compact sorted hashes, footer pruning, cache accounting, find()'s semantics."""

import pyarrow as pa
import pytest
from pyroaring import FrozenBitMap

from txlake.storage import keys as pk
from txlake.storage.datafiles import DataFileStore
from txlake.storage.fs import LocalFileSystem
from txlake.storage.schema import Column, TableSchema, make_type
from txlake.storage.version import DataFile, TableVersion


def table_of(store, schema, batches, deletes=None):
    """A committed version whose files hold ``batches`` (lists of row dicts)."""
    files = []
    for i, rows in enumerate(batches, start=1):
        data = pa.Table.from_pylist(rows, schema=schema.arrow_schema())
        path, size = store.write("default", "t", data, cache=False)
        files.append(DataFile(i, path, data.num_rows, schema.schema_id, size))
    return TableVersion("tid", "default", "t", schema, tuple(files), deletes or {}, len(files) + 1)


@pytest.fixture
def store(tmp_path):
    return DataFileStore(str(tmp_path), LocalFileSystem(durable=False), cache_bytes=64 << 20)


INT_KEY = TableSchema(0, (Column(0, "id", make_type("BIGINT")), Column(1, "v", make_type("VARCHAR"))), ("id",), 1)
TEXT_KEYS = TableSchema(0, (Column(0, "a", make_type("VARCHAR")), Column(1, "b", make_type("INT")),
                            Column(2, "v", make_type("VARCHAR"))), ("a", "b"), 2)


def test_integer_keys_found_in_any_order_and_deleted_rows_excluded(store):
    unsorted = [{"id": i, "v": str(i)} for i in (50, 10, 30, 20, 40)]
    in_order = [{"id": i, "v": str(i)} for i in range(100, 110)]
    version = table_of(store, INT_KEY, [unsorted, in_order], deletes={1: FrozenBitMap([2])})  # id 30
    found = pk.find(store, version, [10, 30, 50, 105, 999])
    assert found == {10: (1 << 32) | 1, 50: (1 << 32) | 0, 105: (2 << 32) | 5}
    assert pk.file_index(store, version, version.files[1]).positions is None, "a file in key order needs no positions"


def test_text_and_composite_keys_confirmed_against_the_file(store):
    rows = [{"a": f"k{i}", "b": i % 3, "v": "x"} for i in range(1000)]
    version = table_of(store, TEXT_KEYS, [rows[:500], rows[500:]])
    assert pk.find(store, version, [("k7", 1), ("k700", 1), ("k7", 2), ("nope", 0)]) == \
        {("k7", 1): (1 << 32) | 7, ("k700", 1): (2 << 32) | 200}


def test_a_point_lookup_builds_one_index_pruned_by_footer_statistics(store):
    batches = [[{"id": i, "v": "x"} for i in range(start, start + 1000)] for start in range(0, 10000, 1000)]
    version = table_of(store, INT_KEY, batches)
    assert pk.find(store, version, [4321]) == {4321: (5 << 32) | 321}
    assert store.index_builds == 1 and store.cached_files == 0, "one key column read, no file decoded"
    assert pk.find(store, version, list(range(0, 10000, 999))) and store.index_builds == 10


@pytest.mark.parametrize("schema", [INT_KEY, TEXT_KEYS], ids=["integer key", "composite text key"])
def test_a_point_lookup_finds_the_files_that_may_hold_a_key_by_bisection(store, schema):
    """A table of many Parquet files (loaded in key order, plus a compaction's file whose keys
    span the others'): a point lookup looks only at the files whose bounds hold the key -
    found by bisection over the sorted lower bounds - and finds each key, wherever it is,
    as a walk over every file does; a deleted row is not found, nor a key between files."""
    def key(i):
        return i if schema is INT_KEY else (f"k{i:06d}", i % 3)

    def row(i):
        return {"id": i, "v": "x"} if schema is INT_KEY else {"a": f"k{i:06d}", "b": i % 3, "v": "x"}

    batches = [[row(i) for i in range(start, start + 100, 2)] for start in range(0, 3000, 100)]
    batches.append([row(i) for i in range(1, 3000, 60)])                 # odd keys across all
    version = table_of(store, schema, batches, deletes={3: FrozenBitMap([5])})  # key 210
    walk = pk._Walk(store, version, version.one_row_files()[1], pk._integer_key(schema))
    assert not walk.steps and len(walk._ranged) == 31
    assert sorted(f.file_id for f in walk.candidates(key(1234))) == [13, 31]  # its own file, the wide one
    for i in [0, 2, 98, 100, 1234, 2998, 1, 61, 2941, 210, 3, 5000]:
        expected = pk.find(store, version, [key(i)], files=version.files)
        assert pk.find(store, version, [key(i)]) == expected
        assert bool(expected) == (i % 2 == 0 and i < 3000 and i != 210 or i % 60 == 1 and i < 3000)
    assert pk.find(store, version, [key(61)]) == {key(61): (31 << 32) | 1}


def test_a_point_lookup_looks_first_in_the_file_of_most_rows(store):
    """A loaded file and a compaction's few updated rows spread over its whole key range (as
    pgbench's accounts): both may hold a key, and the loaded one, where a key not updated
    since is live, is looked at first - its index is the only one built - whatever the order
    of their bounds; a key deleted there and live in the small file is still found."""
    loaded = [{"id": i, "v": "x"} for i in range(1, 1001)]
    updated = [{"id": i, "v": "y"} for i in (2, 500, 1000)]   # lower bound 2 > the loaded one's 1
    for batches, big in (([loaded, updated], 1), ([updated, loaded], 2)):
        version = table_of(store, INT_KEY, batches, deletes={big: FrozenBitMap([499])})  # id 500 there
        walk = pk._Walk(store, version, version.one_row_files()[1], True)
        assert [f.row_count for f in walk.candidates(300)] == [1000, 3]
        builds = store.index_builds
        assert pk.find(store, version, [300]) == {300: (big << 32) | 299}
        assert store.index_builds - builds <= 1, "only the loaded file's index was needed"
        small = 3 - big
        assert pk.find(store, version, [500]) == {500: (small << 32) | 1}


def test_the_bisection_falls_back_to_every_file_for_keys_or_bounds_that_do_not_compare():
    files = tuple(DataFile(i, f"p{i}", 10, 0, 10, key_bounds=((i * 10, i * 10 + 9),)) for i in range(1, 5))
    version = TableVersion("tid", "default", "t", INT_KEY, files, {}, 5)
    walk = pk._Walk(None, version, files, True)
    assert [f.file_id for f in walk.candidates(25)] == [2]
    assert walk.candidates(5) == [] and walk.candidates(99) == []
    assert sorted(f.file_id for f in walk.candidates("25")) == [1, 2, 3, 4]
    mixed = files + (DataFile(5, "p5", 10, 0, 10, key_bounds=(("a", "z"),)),)
    walk = pk._Walk(None, TableVersion("tid", "default", "t", INT_KEY, mixed, {}, 6), mixed, True)
    assert walk.candidates(25) == [] and [step[0].file_id for step in walk.steps] == [5, 4, 3, 2, 1]


def test_indexes_count_against_the_cache_and_are_rebuilt_after_eviction(store):
    batches = [[{"id": i, "v": "x"} for i in range(start, start + 10000)] for start in range(0, 50000, 10000)]
    version = table_of(store, INT_KEY, batches)
    pk.find(store, version, [1, 12345, 23456, 34567, 45678])
    assert store.index_bytes == 5 * 10000 * 8
    store.set_budget(10000 * 8)   # room for one index
    assert store.index_bytes <= 10000 * 8 and store.evictions >= 4
    assert pk.find(store, version, [1, 45678]) == {1: (1 << 32) | 1, 45678: (5 << 32) | 5678}


def test_uncommitted_rows_keep_their_index_with_them(store):
    data = pa.Table.from_pylist([{"id": 7, "v": "new"}], schema=INT_KEY.arrow_schema())
    version = TableVersion("tid", "default", "t", INT_KEY, (DataFile(-1, None, 1, 0, data=data),))
    assert pk.find(store, version, [7]) == {7: (-1 << 32) | 0}
    assert store.index_bytes == 0 and (pk.INDEX, ("id",)) in version.files[0].caches


def test_the_one_row_file_index_carried_from_version_to_version_matches_a_rebuild():
    """``one_row_files`` is built once and then carried by ``with_files`` through additions,
    removals and deletions (a one-row file whose row is deleted leaves the version): after
    every step it equals the index built from scratch, and a point lookup by it finds what
    a walk over every file finds; the lookup's memo of the other files is shared exactly
    while they stay the same. So does ``uncommitted`` (half the files are a transaction's,
    with negative ids)."""
    import random

    rng = random.Random(7)
    version = TableVersion("tid", "default", "t", INT_KEY, (), {}, 1)
    version.one_row_files()
    live: dict[int, int] = {}  # key -> file id of the one-row files
    multi: list[int] = []  # the committed multi-row files
    next_id = 1
    for step in range(300):
        added, deleted, removed = [], {}, frozenset()
        op = rng.random()
        if op < 0.5 or not live:  # a one-row file, maybe replacing the key's row (an UPDATE)
            key = rng.randrange(20)
            if key in live:
                deleted[live[key]] = FrozenBitMap([0])
            added.append(DataFile(next_id, f"p{next_id}", 1, 0, 10, key_bounds=((key, key),)))
            live[key] = next_id
        elif op < 0.6:  # a multi-row file (keys outside the one-row ones)
            added.append(DataFile(next_id, f"p{next_id}", 2, 0, 10, key_bounds=((100 + step, 200 + step),)))
            multi.append(next_id)
        elif op < 0.65:  # one whose every row is deleted at once: it never joins the version
            added.append(DataFile(next_id, f"p{next_id}", 2, 0, 10, key_bounds=((100 + step, 200 + step),)))
            deleted[next_id] = FrozenBitMap([0, 1])
        elif op < 0.7 and multi:  # a compaction removing a multi-row file
            removed = frozenset([multi.pop(rng.randrange(len(multi)))])
        elif op < 0.85:  # a DELETE of a one-row file's row
            key = rng.choice(sorted(live))
            deleted[live.pop(key)] = FrozenBitMap([0])
        else:  # a compaction removing some one-row files
            picked = rng.sample(sorted(live), min(3, len(live)))
            removed = frozenset(live.pop(k) for k in picked)
        next_id += 1
        if added and rng.random() < 0.5:  # a transaction's own file
            f = added[0]
            added = [f.numbered(-f.file_id)]
            live.update({k: -fid for k, fid in live.items() if fid == f.file_id})
        before = version.caches["one_row"]
        version = version.with_files(added=tuple(added), deleted=deleted, removed=removed)
        assert version.uncommitted() == tuple(f for f in version.files if f.file_id < 0)
        carried = version.caches["one_row"]
        rebuilt = TableVersion("tid", "default", "t", INT_KEY, version.files, version.deletes,
                               version.next_file_id).one_row_files()
        assert carried[0] == rebuilt[0] == live
        assert [f.file_id for f in carried[1]] == [f.file_id for f in rebuilt[1]]
        # the memo of the other files (a point lookup's walk of them) goes with them: kept
        # through a change of one-row files only, never kept past a change of the others
        assert carried[2] is not before[2] or carried[1] == before[1]
        if op < 0.5 and added[0].row_count == 1:
            assert carried[2] is before[2]
        for key in range(20):
            assert pk.find(None, version, [key]) == ({key: live[key] << 32} if key in live else {})


@pytest.mark.parametrize("schema", [INT_KEY, TEXT_KEYS], ids=["integer key", "composite text key"])
def test_a_point_lookup_passes_over_inline_files_by_their_key_set(store, schema):
    """Inline files of several rows (a compaction's) are passed over by a set of their index's
    probes, kept with the file: a key is still found in them, in an older file behind them,
    and not at a deleted position - where the set has it, and the live row is elsewhere."""
    from txlake.storage.commit import inline_file
    from txlake.storage.version import PythonRows

    def key(i):
        return i if schema is INT_KEY else (f"k{i}", i % 3)

    def rows(ids):
        if schema is INT_KEY:
            return PythonRows(schema, [list(ids), ["x"] * len(ids)])
        return PythonRows(schema, [[f"k{i}" for i in ids], [i % 3 for i in ids], ["x"] * len(ids)])

    base = [({"id": i, "v": "x"} if schema is INT_KEY else {"a": f"k{i}", "b": i % 3, "v": "x"}) for i in range(100)]
    version = table_of(store, schema, [base])
    empty = TableVersion("tid", "default", "t", schema, (), {}, 1)
    first = inline_file(store, empty, rows([5, 150, 7]), 100, file_id=2)   # 5 and 7 replace base rows
    second = inline_file(store, empty, rows([160, 170]), 100, file_id=3)
    version = version.with_files(added=(first, second), deleted={1: FrozenBitMap([5, 7]), 2: FrozenBitMap([2])})
    # key 7: deleted in the base file and in the inline one - gone; key 5: in the inline file
    assert pk.find(store, version, [key(5)]) == {key(5): (2 << 32) | 0}
    assert pk.find(store, version, [key(7)]) == {}
    assert pk.find(store, version, [key(150)]) == {key(150): (2 << 32) | 1}
    assert pk.find(store, version, [key(170)]) == {key(170): (3 << 32) | 1}
    assert pk.find(store, version, [key(42)]) == {key(42): (1 << 32) | 42}, "found behind both inline files"
    assert pk.find(store, version, [key(999)]) == {}
    assert all(any(k[0] == pk.MEMBERS for k in f.caches if isinstance(k, tuple)) for f in (first, second))
    # the same answers as the lookup of many keys, which reads every index
    keys = [key(i) for i in (5, 7, 150, 170, 42, 999)]
    assert pk.find(store, version, keys) == {k: v for k in keys for v in pk.find(store, version, [k]).values()}


def test_the_sorted_parquet_files_are_carried_when_only_inline_files_change(store):
    """After a change to the other files that touched only inline ones (a compaction of one-row
    files), a point lookup's walk takes the version before's sorted Parquet files instead of
    sorting them again; a change that removes one of them makes it sort afresh. Every key is
    found as a walk over every file finds it."""
    from txlake.storage.version import PythonRows

    def inline(file_id, ids):
        rows = PythonRows(INT_KEY, [list(ids), ["i"] * len(ids)])
        return DataFile._built(file_id, f"inline-{file_id}", len(ids), 0, 0, None, rows, ((min(ids), max(ids)),))

    version = table_of(store, INT_KEY, [[{"id": i, "v": "p"} for i in range(s, s + 100)] for s in range(0, 2000, 100)])
    exact = pk._integer_key(INT_KEY)

    def walk_of(v):
        pk.find(store, v, [0])  # (a point lookup builds the walk)
        return v.one_row_files()[2][(pk.WALK, exact)]

    def check(v, keys):
        for k in keys:
            assert pk.find(store, v, [k]) == pk.find(store, v, [k], files=v.files), k

    first = walk_of(version)
    v2 = version.with_files(added=(inline(21, [5000, 5001, 5002]),), deleted={3: FrozenBitMap([7])})  # key 207
    second = walk_of(v2)
    assert second._ranged is first._ranged and [s[0].file_id for s in second.steps] == [21]
    check(v2, [0, 207, 208, 1999, 5001, 5003, 2500])
    v3 = v2.with_files(added=(inline(22, [6000, 6003]), inline(23, [6001, 6002])), removed=frozenset({21}))
    third = walk_of(v3)
    assert third._ranged is first._ranged and [s[0].file_id for s in third.steps] == [23, 22]
    check(v3, [5001, 6000, 6002, 150])
    v4 = v3.with_files(added=(inline(24, [7000, 7001]),), removed=frozenset({5}))  # a Parquet file goes
    fourth = walk_of(v4)
    assert fourth._ranged is not first._ranged and len(fourth._ranged) == 19
    check(v4, [450, 520, 7000, 6001, 1999])
    assert pk.find(store, v4, [450]) == {}


def test_a_new_parquet_file_has_the_files_sorted_afresh(store):
    """A Parquet file added (a load) belongs among the sorted files, found by bisection: the
    walk is built afresh rather than carried with the new file walked one by one."""
    version = table_of(store, INT_KEY, [[{"id": i, "v": "p"} for i in range(s, s + 100)] for s in range(0, 1000, 100)])
    pk.find(store, version, [0])
    first = version.one_row_files()[2][(pk.WALK, pk._integer_key(INT_KEY))]
    data = pa.Table.from_pylist([{"id": i, "v": "n"} for i in range(5000, 5100)], schema=INT_KEY.arrow_schema())
    path, size = store.write("default", "t", data, cache=False)
    loaded = version.with_files(added=(DataFile(11, path, 100, 0, size),))
    assert pk.find(store, loaded, [5050]) == {5050: (11 << 32) | 50}
    walk = loaded.one_row_files()[2][(pk.WALK, pk._integer_key(INT_KEY))]
    assert walk._ranged is not first._ranged and len(walk._ranged) == 11 and not walk.steps


def test_the_key_bounds_of_a_point_write_are_worked_out_once(tmp_path, monkeypatch):
    """A point UPDATE's and an INSERT's row: its statement's file and its commit's inline file
    hold the same rows, and take their key bounds from one working out; the committed file
    has them, as a lookup after the commit finds."""
    import txlake

    conn = txlake.connect(str(tmp_path / "wh"), publish="off")
    cur = conn.cursor()
    cur.execute("CREATE TABLE t (id BIGINT PRIMARY KEY, v VARCHAR)")
    cur.execute("INSERT INTO t VALUES (1, 'a'), (2, 'b')")
    conn.commit()
    worked = []
    real = pk._key_bounds
    monkeypatch.setattr(pk, "_key_bounds", lambda rows, schema: worked.append(1) or real(rows, schema))
    cur.execute("UPDATE t SET v = 'c' WHERE id = 2")
    conn.commit()
    assert len(worked) == 1, "once for the statement's row, not again at commit"
    cur.execute("INSERT INTO t VALUES (7, 'x')")
    conn.commit()
    assert len(worked) == 2
    committed = conn._session.db.warehouse.latest
    version = next(v for v in committed.tables.values() if v.name == "t")
    bounds = sorted(f.key_bounds for f in version.files if f.row_count == 1)
    assert bounds == [((2, 2),), ((7, 7),)]
    cur.execute("SELECT v FROM t WHERE id = 7")
    assert cur.fetchall() == [("x",)]
    conn.close()


def test_a_version_made_while_other_threads_look_keys_up_in_the_shared_memo():
    """The memo of the other files is shared by every version with the same ones, and point
    lookups in other threads add their walks to it: ``with_files`` copied it by iterating,
    and a lookup landing meanwhile failed the commit (RuntimeError: dictionary changed size
    during iteration - seen once in a soak run)."""
    import sys
    import threading

    f1 = DataFile(1, "p1", 2, 0, 10, key_bounds=((100, 200),))
    version = TableVersion("tid", "default", "t", INT_KEY, (f1,), {}, 2)
    shared = version.one_row_files()[2]
    for i in range(50):
        shared[("walk", i)] = i
    stop, failures = threading.Event(), []

    def lookups():
        i = 0
        while not stop.is_set():
            shared[("walk", 1000 + i % 50)] = i  # (as _find_one stores a walk it built)
            shared.pop(("walk", 1000 + (i + 25) % 50), None)
            i += 1

    before = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    thread = threading.Thread(target=lookups)
    thread.start()
    try:
        for n in range(3000):
            added = DataFile(2 + n, f"p{2 + n}", 2, 0, 10, key_bounds=((300 + n, 400 + n),))
            try:
                version.with_files(added=(added,))
            except RuntimeError as e:
                failures.append(e)
                break
    finally:
        stop.set()
        thread.join(10)
        sys.setswitchinterval(before)
    assert not failures
