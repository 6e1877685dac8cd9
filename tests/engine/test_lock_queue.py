"""Row lock waiters are served in the order they came (PostgreSQL's lock queue)."""

import threading
import time

import pytest

from txlake import errors
from txlake.engine.mvcc.locks import LockTable


class Txn:
    pass


KEY = ("t", "key", 1)


def queued(locks: LockTable, txn, key=KEY) -> bool:
    with locks._mutex:
        return any(w is txn for w in locks._queues.get(key, ()))


def wait_until(predicate, seconds=10.0):
    deadline = time.monotonic() + seconds
    while not predicate():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.001)


def test_a_freed_key_goes_to_its_waiter_not_to_a_newcomer():
    """The holder ends and, before the woken waiter runs, a new transaction asks for the key
    (a deadlock victim retrying at once does exactly that): it queues behind the waiter. Taking
    the key instead left the waiter - woken for nothing, again and again - to starve."""
    locks, first, waiter, newcomer = LockTable(), Txn(), Txn(), Txn()
    locks.acquire(first, KEY)
    thread = threading.Thread(target=locks.acquire, args=(waiter, KEY, 10))
    thread.start()
    wait_until(lambda: queued(locks, waiter))
    locks.release_all(first)
    with pytest.raises(errors.LockNotAvailable):
        locks.acquire(newcomer, KEY, timeout=0.3)
    thread.join(10)
    assert locks.holder(KEY) is waiter and not locks._queues


def test_a_holder_takes_its_own_key_again_past_the_queue_and_a_waiter_giving_up_leaves_it():
    locks, holder, patient, impatient = LockTable(), Txn(), Txn(), Txn()
    locks.acquire(holder, KEY)
    thread = threading.Thread(target=locks.acquire, args=(patient, KEY, 10))
    thread.start()
    wait_until(lambda: queued(locks, patient))
    assert locks.acquire(holder, KEY, timeout=0.3) is False   # held already: no wait, no deadlock
    with pytest.raises(errors.LockNotAvailable):
        locks.acquire(impatient, KEY, timeout=0.05)
    assert not queued(locks, impatient)
    locks.release_all(holder)
    thread.join(10)
    assert locks.holder(KEY) is patient and not locks._queues


def test_a_waiter_sleeps_through_other_transactions_ends(monkeypatch):
    """A waiter looks again only when the transaction it waits for ends (or leaves the queue
    ahead of it) - not at every other transaction's end: each commit used to wake every waiter,
    to re-check and sleep again. And it misses no wake-up: two waiters for a key take it in
    turn."""
    locks, holder, first, second = LockTable(), Txn(), Txn(), Txn()
    looks = {first: 0, second: 0}
    blocker = LockTable._blocker

    def counted(self, txn, key):
        if txn in looks:
            looks[txn] += 1
        return blocker(self, txn, key)

    def others_come_and_go():
        before = dict(looks)
        for i in range(20):
            other = Txn()
            locks.acquire(other, ("t", "key", 100 + i))
            locks.release_all(other)
        time.sleep(0.05)
        assert looks == before

    monkeypatch.setattr(LockTable, "_blocker", counted)
    locks.acquire(holder, KEY)
    threads = [threading.Thread(target=locks.acquire, args=(txn, KEY, 10)) for txn in (first, second)]
    for thread, txn in zip(threads, (first, second)):
        thread.start()
        wait_until(lambda txn=txn: queued(locks, txn))
    others_come_and_go()
    locks.release_all(holder)  # the first takes the key, the second waits for it
    threads[0].join(10)
    assert locks.holder(KEY) is first and queued(locks, second)
    time.sleep(0.05)
    others_come_and_go()
    locks.release_all(first)
    threads[1].join(10)
    assert locks.holder(KEY) is second and not locks._queues
