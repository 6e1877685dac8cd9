"""A full disk: every statement that needs space fails with 53100 (disk_full), as PostgreSQL's
do, loses nothing acknowledged, and the warehouse works again once there is space. The
warehouse lives on a small tmpfs of its own (mounting one needs root: skipped otherwise)."""

from __future__ import annotations

import os
import subprocess

import pytest

import txlake


@pytest.fixture
def small_disk(tmp_path):
    mount = tmp_path / "disk"
    mount.mkdir()
    if subprocess.run(["mount", "-t", "tmpfs", "-o", "size=16m", "tmpfs", str(mount)],
                      capture_output=True).returncode != 0:
        pytest.skip("cannot mount a tmpfs here (needs root)")
    try:
        yield str(mount)
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=True)


def fill(path: str) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT, 0o644)
    try:
        while True:
            os.write(fd, bytes(1 << 16))
    except OSError:
        pass
    try:
        while True:
            os.write(fd, bytes(512))
    except OSError:
        pass
    os.close(fd)


STATEMENTS = [
    "INSERT INTO t SELECT range + 100000, md5(range::text) FROM range(20000)",
    "UPDATE t SET s = 'changed' WHERE id < 5000",
    "ALTER TABLE t ADD COLUMN z INT DEFAULT 1",
    "CREATE TABLE t2 AS SELECT * FROM t",
    "CALL txlake.expire_snapshots(retain_last => 1)",
    "CALL txlake.publish()",
]


def test_a_full_disk_fails_statements_with_53100_and_loses_nothing(small_disk):
    """Statements writing Parquet files failed with a bare OSError (no SQLSTATE, not a
    txlake.Error): a commit's, PREPARE TRANSACTION's, a maintenance call's."""
    warehouse, filler = os.path.join(small_disk, "wh"), os.path.join(small_disk, "filler")
    c = txlake.connect(warehouse, autocommit=True, publish="off", gc_interval=3600)
    c.execute("CREATE TABLE t (id BIGINT PRIMARY KEY, s TEXT)")
    c.execute("INSERT INTO t SELECT range, md5(range::text) FROM range(20000)")
    c.execute("DELETE FROM t WHERE id = 7")  # (CALL txlake.publish() then writes a rewrite)
    acknowledged = c.execute("SELECT count(*), sum(id) FROM t").fetchall()
    fill(filler)
    for sql in STATEMENTS:
        with pytest.raises(txlake.OperationalError) as failure:
            c.execute(sql)
        assert failure.value.sqlstate == "53100", (sql, failure.value)
    prepared = txlake.connect(warehouse, publish="off")
    prepared.execute("INSERT INTO t SELECT range + 200000, 'p' FROM range(20000)")
    with pytest.raises(txlake.OperationalError) as failure:
        prepared.execute("PREPARE TRANSACTION 'g'")
    assert failure.value.sqlstate == "53100"
    prepared.rollback()
    assert c.execute("SELECT count(*), sum(id) FROM t").fetchall() == acknowledged
    os.remove(filler)
    for sql in STATEMENTS:  # all of it works again
        c.execute(sql)
    prepared.execute("INSERT INTO t VALUES (-1, 'p')")
    prepared.execute("PREPARE TRANSACTION 'g'")
    c.execute("COMMIT PREPARED 'g'")
    prepared.close()
    c.close()
    c = txlake.connect(warehouse, autocommit=True, publish="off")
    assert c.execute("SELECT count(*) FROM t").fetchall() == [(acknowledged[0][0] + 20001,)]
    c.close()
