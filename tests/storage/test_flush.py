"""The log's flush (storage/aio.py): handed to the kernel where it can be, the committing thread
building the entry's catalog version meanwhile; shown to sessions only once it is durable."""

import errno
import os
import platform
import sys

import pytest

import txlake
from txlake import errors
from txlake.storage import aio
from txlake.storage.version import CatalogVersion

kernel_aio = pytest.mark.skipif(sys.platform != "linux" or platform.machine() not in ("x86_64", "aarch64"),
                                reason="kernel AIO is used on Linux x86-64 and AArch64 only")


@kernel_aio
def test_a_flush_is_handed_to_the_kernel_and_the_work_runs_meanwhile(tmp_path):
    fd = os.open(tmp_path / "f", os.O_RDWR | os.O_CREAT, 0o644)
    flusher = aio.Flusher()
    try:
        for k in range(3):  # (one context, one request in flight at a time, reused)
            os.pwrite(fd, b"line %d\n" % k, 7 * k)
            assert flusher.fdatasync(fd, lambda: k * 10) == k * 10
            assert flusher.overlapping, "io_submit took the flush (no fall back to os.fdatasync)"
        assert flusher.fdatasync(fd) is None
    finally:
        flusher.close()
        os.close(fd)
    assert (tmp_path / "f").read_bytes() == b"line 0\nline 1\nline 2\n"


def test_a_flush_that_fails_raises_once_the_work_is_done(tmp_path):
    r, w = os.pipe()  # (a pipe cannot be flushed: EINVAL, from the kernel or from os.fdatasync)
    flusher, ran = aio.Flusher(), []
    try:
        with pytest.raises(OSError) as failure:
            flusher.fdatasync(w, lambda: ran.append(True))
        assert failure.value.errno == errno.EINVAL and ran == [True]
        fd = os.open(tmp_path / "f", os.O_RDWR | os.O_CREAT, 0o644)
        assert flusher.fdatasync(fd, lambda: "still flushes") == "still flushes"
        os.close(fd)
    finally:
        flusher.close()
        os.close(r)
        os.close(w)


@pytest.mark.parametrize("fails", [False, True])
def test_the_version_a_commit_makes_is_built_during_its_flush(connect, monkeypatch, fails):
    """Built once, while the flush is in flight; if that fails, built again after the flush
    (where a failure would be the commit's to report)."""
    conn = connect(autocommit=True)
    conn.execute("CREATE TABLE t (id INT PRIMARY KEY, v INT)")
    wh = conn._session.db.warehouse
    applied, apply = [], CatalogVersion.apply

    def recorded(self, entry):
        flushing = wh.txlog._flusher._lock.locked()  # (held from the flush's start to its end)
        applied.append(flushing)
        if flushing and fails:
            raise MemoryError("no room while flushing")
        return apply(self, entry)

    monkeypatch.setattr(CatalogVersion, "apply", recorded)
    conn.execute("INSERT INTO t VALUES (1, 1)")
    assert applied == ([True, False] if fails else [True])
    assert wh.latest.csn == wh.txlog.newest_csn() and conn.execute("SELECT v FROM t").fetchall() == [(1,)]


def test_a_commit_whose_flush_fails_is_refused_and_the_warehouse_goes_on(connect, warehouse, monkeypatch):
    conn = connect(autocommit=True)
    conn.execute("CREATE TABLE t (id INT PRIMARY KEY, v INT)")
    conn.execute("INSERT INTO t VALUES (1, 1)")
    reap = aio.Flusher._reap

    def io_error(*args):
        raise OSError(errno.EIO, os.strerror(errno.EIO))

    # the device fails the flush (os.fdatasync is the fall-back where the kernel takes no AIO)
    monkeypatch.setattr(aio.Flusher, "_reap", lambda self, fd: (reap(self, fd), io_error()))
    monkeypatch.setattr(aio.os, "fdatasync", io_error)
    with pytest.raises(errors.CommitFailed) as failure:
        conn.execute("UPDATE t SET v = 2 WHERE id = 1")
    # written, not known durable: PostgreSQL's "transaction resolution unknown"
    assert failure.value.sqlstate == "08007" and "could not flush the commit log" in str(failure.value)
    with pytest.raises(errors.CommitFailed):  # a commit with a data file of its own
        conn.execute("INSERT INTO t SELECT range, 0 FROM range(10, 50010)")
    monkeypatch.undo()
    # nothing waits or stays locked: the same session and a new one go on committing; the
    # entries written are in the log, and their files are there (they were removed, and
    # every later read of the table failed: FileNotFoundError)
    conn.execute("INSERT INTO t VALUES (2, 2)")
    other = txlake.connect(warehouse, autocommit=True, publish="off")
    other.execute("INSERT INTO t VALUES (3, 3)")
    assert other.execute("SELECT count(*) FROM t WHERE id < 10").fetchall() == [(3,)]
    assert other.execute("SELECT count(*) FROM t").fetchone()[0] in (3, 50003)
    other.close()
