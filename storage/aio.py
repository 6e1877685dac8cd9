"""Flushing a file while the calling thread goes on working: Linux kernel AIO's
``IOCB_CMD_FDSYNC`` (Linux 4.18 and later).

A commit's ``fdatasync`` of the log is its longest wait (about 0.1 ms here), and the thread that
waits has work it could do meanwhile that does not depend on the flush: building the catalog
version the entry makes, which it may only show once the entry is durable. A Python thread
cannot flush on its behalf - it would need the interpreter lock to start, which the working
thread holds. ``io_submit`` hands the flush to the kernel instead (a kernel worker runs
``vfs_fsync``, as ``fdatasync`` does) and returns at once; ``io_getevents`` later waits for its
outcome, the interpreter lock released.

Where kernel AIO is missing (another OS or machine, an older kernel, a sandbox that refuses
the system calls, a file whose filesystem cannot flush through it) ``Flusher`` calls
``os.fdatasync`` after the work instead: the same outcome, without the overlap.
"""

from __future__ import annotations

import ctypes
import errno
import os
import platform
import sys
import threading
from typing import Callable, NamedTuple

# io_setup, io_destroy, io_getevents, io_submit: their numbers by machine (others: no kernel AIO here)
_SYSCALLS = {"x86_64": (206, 207, 208, 209), "aarch64": (0, 1, 4, 2)}
_IOCB_CMD_FDSYNC = 3
# errors of io_setup / io_submit that mean "not available here", not "the flush failed"
_UNAVAILABLE = {errno.ENOSYS, errno.EINVAL, errno.EOPNOTSUPP, errno.EPERM, errno.EAGAIN, errno.ENOMEM}


class _Iocb(ctypes.Structure):  # struct iocb (linux/aio_abi.h), little-endian layout
    _fields_ = [("aio_data", ctypes.c_uint64), ("aio_key", ctypes.c_uint32), ("aio_rw_flags", ctypes.c_int32),
                ("aio_lio_opcode", ctypes.c_uint16), ("aio_reqprio", ctypes.c_int16),
                ("aio_fildes", ctypes.c_uint32), ("aio_buf", ctypes.c_uint64), ("aio_nbytes", ctypes.c_uint64),
                ("aio_offset", ctypes.c_int64), ("aio_reserved2", ctypes.c_uint64), ("aio_flags", ctypes.c_uint32),
                ("aio_resfd", ctypes.c_uint32)]


class _IoEvent(ctypes.Structure):  # struct io_event
    _fields_ = [("data", ctypes.c_uint64), ("obj", ctypes.c_uint64), ("res", ctypes.c_int64),
                ("res2", ctypes.c_int64)]


class _Calls(NamedTuple):
    setup: Callable
    destroy: Callable
    getevents: Callable
    submit: Callable


def _syscalls() -> _Calls | None:
    """The four system calls, through ``syscall(2)`` (integer arguments passed as longs, which a
    bare Python int is not); None where kernel AIO is not used."""
    if sys.platform != "linux" or sys.byteorder != "little" or platform.machine() not in _SYSCALLS:
        return None
    try:
        syscall = ctypes.CDLL(None, use_errno=True).syscall  # (a CDLL call releases the interpreter lock)
    except (OSError, AttributeError):  # pragma: no cover - a Linux without a dynamic libc
        return None
    syscall.restype = ctypes.c_long
    numbers = [ctypes.c_long(n) for n in _SYSCALLS[platform.machine()]]
    return _Calls(*(lambda *args, nr=nr: syscall(nr, *args) for nr in numbers))


_AIO = _syscalls()
_ONE = ctypes.c_long(1)


class Flusher:
    """``fdatasync`` of one file at a time, overlapped with the caller's work where the kernel can.

    ``fdatasync(fd, meanwhile)`` starts the flush, runs ``meanwhile()`` and returns its result
    once the flush has finished; a failed flush raises ``OSError`` as ``os.fdatasync`` does
    (``meanwhile``'s result is then lost). Calls are serialized: one flush in flight per flusher.
    """

    def __init__(self):
        self._lock = threading.Lock()
        self._ctx: ctypes.c_ulong | None = None
        self._pid = 0  # the process that set the context up (a forked child has none)
        self._available = _AIO is not None
        self._iocb = _Iocb()
        self._iocbs = (ctypes.POINTER(_Iocb) * 1)(ctypes.pointer(self._iocb))
        self._event = _IoEvent()

    @property
    def overlapping(self) -> bool:
        """Are flushes handed to the kernel (so far), rather than made by ``os.fdatasync``?"""
        return self._available

    def fdatasync(self, fd: int, meanwhile=None):
        with self._lock:
            if not self._available or not self._submit(fd):
                result = meanwhile() if meanwhile is not None else None
                os.fdatasync(fd)
                return result
            try:
                return meanwhile() if meanwhile is not None else None
            finally:
                self._reap(fd)

    def close(self) -> None:
        with self._lock:
            if self._ctx is not None and self._pid == os.getpid():
                _AIO.destroy(self._ctx)
            self._ctx = None

    def _submit(self, fd: int) -> bool:
        """Hand the flush of ``fd`` to the kernel; False (and no AIO from now on) if it cannot take it."""
        if self._ctx is None or self._pid != os.getpid():
            ctx = ctypes.c_ulong(0)
            if _AIO.setup(_ONE, ctypes.byref(ctx)) != 0:
                self._available = False
                return False
            self._ctx, self._pid = ctx, os.getpid()
        self._iocb.aio_lio_opcode = _IOCB_CMD_FDSYNC
        self._iocb.aio_fildes = fd
        while True:
            if _AIO.submit(self._ctx, _ONE, self._iocbs) == 1:
                return True
            err = ctypes.get_errno()
            if err == errno.EINTR:
                continue
            if err in _UNAVAILABLE:  # (an old kernel refuses FDSYNC with EINVAL)
                self._available = False
                return False
            raise OSError(err, os.strerror(err))

    def _reap(self, fd: int) -> None:
        """Wait for the flush of ``fd`` submitted; raise its failure. If the wait itself fails,
        its outcome is unknown: ``os.fdatasync`` then gives one (and AIO is not used again)."""
        while _AIO.getevents(self._ctx, _ONE, _ONE, ctypes.byref(self._event), None) != 1:
            if ctypes.get_errno() != errno.EINTR:  # pragma: no cover - a context broken under us
                self._available, self._ctx = False, None
                os.fdatasync(fd)
                return
        if self._event.res < 0:
            raise OSError(-self._event.res, os.strerror(-self._event.res))

    def __del__(self):
        try:
            self.close()
        except Exception:  # pragma: no cover - interpreter shutdown
            pass
