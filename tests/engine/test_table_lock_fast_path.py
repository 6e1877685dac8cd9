"""The fast path of weak table locks (engine/mvcc/locks.py): ACCESS SHARE, ROW SHARE and ROW
EXCLUSIVE are held in the transaction's own bits while nobody asks for a strong mode, and a
strong request moves them into the shared table, where it waits for them."""

import sys
import threading
import time

import pytest

from txlake import errors
from txlake.engine.mvcc.locks import (ACCESS_EXCLUSIVE, ACCESS_SHARE, ROW_EXCLUSIVE, ROW_SHARE, SHARE,
                                      SHARE_UPDATE_EXCLUSIVE, LockTable)


class Txn:
    pass


def wait_until(predicate, seconds=10.0):
    deadline = time.monotonic() + seconds
    while not predicate():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.001)


def in_thread(target, *args):
    outcome = {}

    def run():
        try:
            outcome["value"] = target(*args)
        except Exception as e:  # (reported by the test)
            outcome["error"] = e
    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread, outcome


def test_weak_modes_take_no_entry_in_the_shared_table_until_a_strong_request():
    locks, reader, writer = LockTable(), Txn(), Txn()
    assert locks.lock_relation(reader, "t", ACCESS_SHARE) is False
    assert locks.lock_relation(writer, "t", ROW_EXCLUSIVE) is False
    assert locks.lock_relation(writer, "t", ACCESS_SHARE) is None  # (covered)
    assert not locks._relations
    with pytest.raises(errors.LockNotAvailable):
        locks.lock_relation(Txn(), "t", SHARE, nowait=True, name="t")
    assert {id(reader), id(writer)} <= set(locks._relations["t"].granted)
    locks.release_all(reader)
    locks.release_all(writer)
    assert not locks._relations and not locks._strong


def test_a_strong_request_waits_for_the_weak_modes_of_the_fast_path():
    locks, writer, ddl = LockTable(), Txn(), Txn()
    locks.lock_relation(writer, "t", ROW_EXCLUSIVE)
    thread, outcome = in_thread(locks.lock_relation, ddl, "t", ACCESS_EXCLUSIVE, 10)
    try:
        wait_until(lambda: locks.waiting_for(ddl))
        assert locks.waiting_for(ddl) == (writer,)
    finally:
        locks.release_all(writer)
    thread.join(10)
    assert outcome == {"value": True}  # (it waited)
    locks.release_all(ddl)


def test_weak_requests_queue_behind_a_waiting_strong_one_then_take_the_fast_path_again():
    """A reader coming after an ALTER TABLE that waits queues behind it (no starving the
    ALTER), and once the strong lock is gone the fast path is open again."""
    locks, writer, ddl, reader = LockTable(), Txn(), Txn(), Txn()
    locks.lock_relation(writer, "t", ROW_EXCLUSIVE)
    ddl_thread, ddl_outcome = in_thread(locks.lock_relation, ddl, "t", ACCESS_EXCLUSIVE, 10)
    reader_thread = None
    try:
        wait_until(lambda: locks.waiting_for(ddl))
        reader_thread, reader_outcome = in_thread(locks.lock_relation, reader, "t", ACCESS_SHARE, 10)
        wait_until(lambda: locks.waiting_for(reader))
        assert locks.waiting_for(reader) == (ddl,)
    finally:
        locks.release_all(writer)
    ddl_thread.join(10)
    assert ddl_outcome == {"value": True}
    time.sleep(0.05)
    assert reader_thread.is_alive()  # (still waiting, now for the ALTER's holder)
    locks.release_all(ddl)
    reader_thread.join(10)
    assert reader_outcome == {"value": True}
    locks.release_all(reader)
    assert not locks._strong and not locks._relations
    assert locks.lock_relation(Txn(), "t", ROW_SHARE) is False and not locks._relations


def test_share_update_exclusive_neither_waits_for_weak_modes_nor_closes_the_fast_path():
    locks, writer, vacuum = LockTable(), Txn(), Txn()
    locks.lock_relation(writer, "t", ROW_EXCLUSIVE)
    assert locks.lock_relation(vacuum, "t", SHARE_UPDATE_EXCLUSIVE, nowait=True) is False
    assert locks.lock_relation(Txn(), "t", ROW_EXCLUSIVE, nowait=True) is False
    with pytest.raises(errors.LockNotAvailable):
        locks.lock_relation(Txn(), "t", SHARE_UPDATE_EXCLUSIVE, nowait=True, name="t")


def test_a_weak_request_that_gave_up_waiting_holds_nothing():
    """A reader queued behind a strong holder times out (55P03): asked again, it is not taken
    for a holder of what it never got."""
    locks, ddl, reader = LockTable(), Txn(), Txn()
    locks.lock_relation(ddl, "t", ACCESS_EXCLUSIVE)
    with pytest.raises(errors.LockNotAvailable):
        locks.lock_relation(reader, "t", ACCESS_SHARE, 0.05)
    with pytest.raises(errors.LockNotAvailable):
        locks.lock_relation(reader, "t", ACCESS_SHARE, nowait=True, name="t")
    locks.release_all(ddl)
    assert locks.lock_relation(reader, "t", ACCESS_SHARE) is False
    locks.release_all(reader)
    assert not locks._strong and not locks._relations and not locks._modes


def test_a_rollback_to_a_savepoint_frees_a_weak_mode_of_the_fast_path():
    locks, txn = LockTable(), Txn()
    locks.lock_relation(txn, "a", ACCESS_SHARE)
    mark = locks.mark(txn)
    locks.lock_relation(txn, "t", ROW_EXCLUSIVE)
    with pytest.raises(errors.LockNotAvailable):
        locks.lock_relation(Txn(), "t", SHARE, nowait=True, name="t")
    locks.release_since(txn, mark)
    other = Txn()
    assert locks.lock_relation(other, "t", SHARE, nowait=True) is False
    with pytest.raises(errors.LockNotAvailable):  # (the mode taken before the savepoint stays)
        locks.lock_relation(Txn(), "a", ACCESS_EXCLUSIVE, nowait=True, name="a")
    locks.release_all(other)
    locks.release_all(txn)
    assert not locks._strong and not locks._relations


def test_weak_and_strong_requests_racing_never_hold_the_table_together():
    """Threads taking weak modes and threads taking SHARE, switching as often as the
    interpreter allows: inside a strong lock no weak one is ever held, and at the end no lock is
    left behind."""
    locks, stop = LockTable(), threading.Event()
    inside = {"weak": 0, "strong": 0}
    guard, broken = threading.Lock(), []

    def take(kind, mode, other, pause):
        """Take the table in ``mode`` again and again, ``pause`` seconds apart (the strong ones
        pause, so weak ones take the fast path meanwhile); inside, nobody of the ``other`` kind."""
        while not stop.is_set():
            time.sleep(pause)
            txn = Txn()
            try:
                locks.lock_relation(txn, "t", mode, 10)
                with guard:
                    if inside[other]:
                        broken.append(kind)
                    inside[kind] += 1
                time.sleep(0)  # (the interpreter lock let go: others run while it holds the table)
                with guard:
                    inside[kind] -= 1
            finally:
                locks.release_all(txn)

    interval = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    takers = [("weak", ROW_EXCLUSIVE, "strong", 0)] * 3 + [("strong", SHARE, "weak", 0.001)] * 2
    threads = [threading.Thread(target=take, args=args, daemon=True) for args in takers]
    try:
        for thread in threads:
            thread.start()
        time.sleep(1.5)
    finally:
        stop.set()
        for thread in threads:
            thread.join(10)
        sys.setswitchinterval(interval)
    assert not any(thread.is_alive() for thread in threads)
    assert broken == []
    assert not locks._strong and not locks._relations and not locks._modes
