"""LISTEN / UNLISTEN / NOTIFY / pg_notify() (engine/notify.py), as PostgreSQL's (sql-notify,
async.c): delivered at commit, between transactions, to every session listening - in this
process and in others. They were 0A000 (pg_notify 42883)."""

import os
import threading

import pytest

from txlake import errors
from tests.conftest import run_python


def heard(conn) -> list[tuple[str, str]]:
    conn.poll()
    found = [(n.channel, n.payload) for n in conn.notifies]
    conn.notifies.clear()
    return found


def test_delivered_at_commit_once_per_payload_and_never_after_a_rollback(connect):
    listener, sender = connect(autocommit=True), connect()
    listener.execute("LISTEN jobs")
    sender.execute("NOTIFY jobs, 'a'")
    sender.execute("NOTIFY jobs, 'a'")  # (the same twice in one transaction: once)
    sender.execute("NOTIFY other, 'not listened to'")
    sender.execute("SELECT pg_notify('jobs', 'b')")
    sender.execute("NOTIFY jobs")
    assert heard(listener) == []  # (not committed yet)
    sender.commit()
    assert heard(listener) == [("jobs", "a"), ("jobs", "b"), ("jobs", "")]
    sender.execute("NOTIFY jobs, 'gone'")
    sender.rollback()
    assert heard(listener) == []
    # a rollback to a savepoint drops what came after it
    sender.execute("NOTIFY jobs, 'kept'")
    sender.execute("SAVEPOINT s")
    sender.execute("NOTIFY jobs, 'dropped'")
    sender.execute("ROLLBACK TO SAVEPOINT s")
    sender.commit()
    assert heard(listener) == [("jobs", "kept")]
    # the pid is the sender's pg_backend_pid()
    pid = sender.execute("SELECT pg_backend_pid()").fetchone()[0]
    sender.execute("NOTIFY jobs, 'who'")
    sender.commit()
    listener.poll()
    assert listener.notifies[-1].pid == pid


def test_listen_takes_effect_at_commit_and_unlisten_stops(connect):
    listener, sender = connect(), connect(autocommit=True)
    listener.execute("LISTEN c")
    sender.execute("NOTIFY c, 'before the LISTEN committed'")
    listener.commit()
    assert heard(listener) == []
    sender.execute("NOTIFY c, '1'")
    assert heard(listener) == [("c", "1")]
    # inside a transaction nothing arrives; it does when the transaction ends
    listener.execute("SELECT 1")
    sender.execute("NOTIFY c, '2'")
    assert heard(listener) == []
    listener.commit()
    assert [(n.channel, n.payload) for n in listener.notifies] == [("c", "2")]
    listener.notifies.clear()
    # a rolled-back UNLISTEN changes nothing; a committed one stops it
    listener.execute("UNLISTEN *")
    listener.rollback()
    sender.execute("NOTIFY c, '3'")
    assert heard(listener) == [("c", "3")]
    listener.execute("UNLISTEN c")
    listener.commit()
    sender.execute("NOTIFY c, '4'")
    assert heard(listener) == []
    # a session hears itself too; DISCARD ALL is UNLISTEN *
    sender.execute('LISTEN "Mixed"')
    sender.execute("NOTIFY \"Mixed\", 'x'")
    assert heard(sender) == [("Mixed", "x")]
    sender.execute("DISCARD ALL")
    sender.execute("NOTIFY \"Mixed\", 'y'")
    assert heard(sender) == []


def test_queued_in_commit_order_and_kept_across_an_unlisten(connect):
    """Three sessions incrementing one row and notifying its value: the listener hears the
    values in the order the transactions committed (they were queued after the commit, so a
    later committer could queue first). What was sent before an UNLISTEN (or DISCARD ALL)
    committed is still the session's (it was dropped with the channel)."""
    c = connect(autocommit=True)
    c.execute("CREATE TABLE counter (id INT PRIMARY KEY, n INT)")
    c.execute("INSERT INTO counter VALUES (1, 0)")
    listener = connect(autocommit=True)
    listener.execute("LISTEN ch")
    senders = [connect(isolation_level="READ COMMITTED") for _ in range(3)]

    def bump(conn):
        for _ in range(150):
            n = conn.execute("UPDATE counter SET n = n + 1 WHERE id = 1 RETURNING n").fetchone()[0]
            conn.execute(f"NOTIFY ch, '{n}'")
            conn.commit()
    threads = [threading.Thread(target=bump, args=(s,)) for s in senders]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert [int(payload) for _, payload in heard(listener)] == list(range(1, 451))
    # a LISTEN and a NOTIFY in one transaction: it hears itself
    listener.execute("BEGIN")
    listener.execute("LISTEN other")
    listener.execute("NOTIFY other, 'mine'")
    listener.execute("COMMIT")
    assert heard(listener) == [("other", "mine")]
    for end in ("UNLISTEN ch", "UNLISTEN *", "DISCARD ALL"):
        listener.execute("LISTEN ch")
        c.execute("NOTIFY ch, 'before'")
        listener.execute(end)
        assert heard(listener) == [("ch", "before")], end


def test_errors(connect):
    c = connect(autocommit=True)
    with pytest.raises(errors.InvalidParameterValue, match="payload string too long"):
        c.execute("SELECT pg_notify('c', repeat('x', 8000))")
    with pytest.raises(errors.InvalidParameterValue, match="channel name cannot be empty"):
        c.execute("SELECT pg_notify(NULL, 'x')")
    with pytest.raises(errors.InvalidParameterValue, match="channel name too long"):
        c.execute("SELECT pg_notify(repeat('c', 64), 'x')")
    with pytest.raises(errors.SyntaxError):
        c.execute("NOTIFY c, 1")
    with pytest.raises(errors.InvalidParameterValue, match="channel name too long"):
        c.execute(f"LISTEN {'c' * 64}")
    c.execute("BEGIN")
    c.execute("NOTIFY c, 'x'")
    with pytest.raises(errors.NotSupportedError, match="cannot PREPARE a transaction that has executed LISTEN"):
        c.execute("PREPARE TRANSACTION 'p'")
    with pytest.raises(errors.UndefinedObject):  # (rolled back, not prepared)
        c.execute("COMMIT PREPARED 'p'")


def test_a_waiting_listener_wakes_when_another_thread_sends(connect):
    listener, sender = connect(autocommit=True), connect(autocommit=True)
    listener.execute("LISTEN wake")
    timer = threading.Timer(0.2, lambda: sender.execute("NOTIFY wake, 'now'"))
    timer.start()
    listener.poll(timeout=30)
    timer.join()
    assert [(n.channel, n.payload) for n in listener.notifies] == [("wake", "now")]


SEND = """
import sys, txlake
conn = txlake.connect(sys.argv[1], autocommit=True, publish="off")
conn.execute("NOTIFY jobs, 'from another process'")
conn.execute("BEGIN")
conn.execute("SELECT pg_notify('jobs', 'second')")
conn.execute("COMMIT")
"""


def test_delivered_across_processes(connect, warehouse):
    listener = connect(autocommit=True)
    listener.execute("LISTEN jobs")
    done = run_python(SEND, warehouse)
    assert done.returncode == 0, done.stderr
    assert heard(listener) == [("jobs", "from another process"), ("jobs", "second")]
    # nobody listening: nothing is queued (the queue file stays as it was)
    listener.execute("UNLISTEN *")
    queue = listener.session.db.notifications.path
    size = os.path.getsize(queue)
    done = run_python(SEND, warehouse)
    assert done.returncode == 0, done.stderr
    assert os.path.getsize(queue) == size


def test_pg_listening_channels_and_pg_notification_queue_usage(connect):
    """Both were 42883. pg_listening_channels() is the set of channels the session listens to,
    in the order first listened to, from when the LISTEN commits (PostgreSQL's listenChannels);
    pg_notification_queue_usage() a double precision, 0 while the queue is empty."""
    conn, sender = connect(), connect(autocommit=True)
    assert conn.execute("SELECT pg_listening_channels()").fetchall() == []
    assert conn.execute("SELECT pg_notification_queue_usage(), pg_typeof(pg_notification_queue_usage())"
                        ).fetchone() == (0.0, "double precision")
    conn.execute("LISTEN zed")
    conn.execute("LISTEN alpha")
    assert conn.execute("SELECT pg_listening_channels()").fetchall() == []  # (not committed yet)
    conn.commit()
    conn.execute("LISTEN zed")
    conn.commit()
    cur = conn.execute("SELECT * FROM pg_listening_channels()")
    assert (cur.fetchall(), cur.description[0][0]) == ([("zed",), ("alpha",)], "pg_listening_channels")
    assert sender.execute("SELECT pg_listening_channels()").fetchall() == []  # (the session's own)
    sender.execute("NOTIFY zed, 'x'")
    assert 0 < conn.execute("SELECT pg_notification_queue_usage()").fetchone()[0] < 1e-6
    conn.execute("UNLISTEN zed")
    conn.commit()
    assert conn.execute("SELECT c FROM pg_listening_channels() AS c").fetchall() == [("alpha",)]
