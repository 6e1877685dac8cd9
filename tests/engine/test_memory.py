"""The memory cap: SET/SHOW memory_limit, the MVCC-aware buffer cache, counters from SQL."""

import pyarrow as pa
import pytest

import txlake
from txlake.storage.datafiles import DataFileStore
from txlake.storage.fs import LocalFileSystem


def test_cache_evicts_old_versions_files_before_the_newest_versions(tmp_path):
    store = DataFileStore(str(tmp_path), LocalFileSystem(durable=False), cache_bytes=3 * 8000)
    store.hot_paths = lambda: frozenset({"hot-1", "hot-2"})

    def batch():
        return pa.table({"x": pa.array(range(1000), pa.int64())})  # 8000 bytes each

    for path in ("hot-1", "old-1", "hot-2", "old-2"):   # hot-1 is the least recently used
        store._put(path, batch())
    assert set(store._cache) == {"hot-1", "hot-2", "old-2"}
    store._put("old-3", batch())
    assert set(store._cache) == {"hot-1", "hot-2", "old-3"}, "old versions' files go first"
    store.set_budget(8000)
    assert list(store._cache) == ["hot-2"], "then the least recently used of the newest version's"
    assert store.cached_bytes <= 8000 and store.evictions == 4


def test_memory_limit_setting_and_counters(connect):
    conn = connect(autocommit=True, memory_limit="64MB")
    assert conn.execute("SHOW memory_limit").fetchone() == ("64MB",)
    conn.execute("SET memory_limit = '48MB'")
    assert conn.execute("SHOW memory_limit").fetchone() == ("48MB",)
    conn.execute("CREATE TABLE t (id BIGINT, s VARCHAR)")
    conn.execute("INSERT INTO t SELECT i, repeat('x', 200) FROM range(300000) r(i)")  # ~70 MB decoded
    assert conn.execute("SELECT count(*), sum(id) FROM t").fetchone() == (300000, sum(range(300000)))
    stats = dict(conn.execute("SELECT name, value FROM txlake_memory()").fetchall())
    assert stats["memory_limit"] == 48 << 20 and stats["cache_limit"] == 24 << 20
    assert stats["cache_bytes"] <= stats["cache_limit"]
    # rows past a quarter of the cache went to Parquet before commit; the table, larger than
    # the cache, was scanned from Parquet rather than through the cache
    assert stats["spilled_files"] > 0 and stats["streamed_scans"] > 0
    assert stats["versions_alive"] >= 1
    for bad in ("lots", "1KB"):
        with pytest.raises(txlake.Error) as e:
            conn.execute(f"SET memory_limit = '{bad}'")
        assert e.value.sqlstate == "22023"


def test_bad_connect_options_fail_cleanly(warehouse):
    import threading
    before = {t.name for t in threading.enumerate()}
    for options in ({"publish": "bogus"}, {"memory_limit": "a lot"}):
        with pytest.raises(txlake.Error) as e:
            txlake.connect(warehouse, **options)
        assert e.value.sqlstate == "22023"
    assert {t.name for t in threading.enumerate()} == before, "no background thread left running"
    conn = txlake.connect(warehouse, autocommit=True, publish="off")
    assert conn.execute("SELECT 1").fetchone() == (1,)
    conn.close()
