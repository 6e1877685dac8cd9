"""``LISTEN``, ``UNLISTEN``, ``NOTIFY`` and ``pg_notify()``: PostgreSQL's asynchronous
notifications (async.c), between the sessions of a warehouse in every process.

What a transaction does with them is queued in it (``Transaction.notify``: ``("listen", c)``,
``("unlisten", c | None)``, ``("notify", c, payload)``) and takes effect only when it commits: a
rollback - or a rollback to a savepoint before them - drops them, as in PostgreSQL. A NOTIFY
named twice in one transaction with the same channel and payload is sent once, the others in
the order they were named. A session begins to hear a channel when its LISTEN commits; what
was committed before is not heard.

The queue is a file in the log's directory (``NOTIFY``): each committing transaction appends
its notifications, a JSON line each - ``[pid, channel, payload]`` - in one ``write``, under an
exclusive ``flock`` of the file held across its commit (so notifications are queued in commit
order, as PostgreSQL's are), and a listening session reads on from where it last stopped. A process
with a listening session holds a shared ``flock`` on ``NOTIFY.listeners``; a sender that can
take that lock exclusively knows no process listens, so sends nothing, and empties the queue
file then if it has grown (PostgreSQL's queue, too, is kept only for listeners). Notifications
are delivered between transactions, as PostgreSQL delivers them: a listener reads the queue
when a statement of its own ends outside a transaction block (the DB-API ``Connection``
gathers them into ``notifies``, the shell prints them as psql does) and when asked
(``Connection.poll``). A notification's ``pid`` is the sending session's ``pg_backend_pid()``
(engine/backends.py: unique within its process only).
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import threading
import time
from typing import NamedTuple

from txlake import errors

QUEUE_FILE = "NOTIFY"
LISTENERS_FILE = "NOTIFY.listeners"
MAX_PAYLOAD = 8000  # bytes, as PostgreSQL's default block size allows (async.c)
MAX_CHANNEL = 63  # bytes: NAMEDATALEN - 1
QUEUE_SIZE = 8 << 30  # bytes: PostgreSQL's queue holds 8 GB (async.c), its usage measured against them
EMPTY_WHEN_PAST = 1 << 20  # a queue file larger than this is emptied when no process listens
_POLL_INTERVAL = 0.02  # seconds between reads of the queue while waiting for another process's


class Notification(NamedTuple):
    """A notification as psycopg gives it (``Notify``): the sending session's pid, the channel, the payload."""

    pid: int
    channel: str
    payload: str


def checked(channel: str | None, payload: str | None) -> tuple[str, str]:
    """The channel and payload of a NOTIFY / pg_notify(), or 22023 as PostgreSQL words it."""
    if not channel:
        raise errors.InvalidParameterValue("channel name cannot be empty")
    if len(channel.encode()) > MAX_CHANNEL:
        raise errors.InvalidParameterValue("channel name too long")
    payload = payload or ""
    if len(payload.encode()) >= MAX_PAYLOAD:
        raise errors.InvalidParameterValue("payload string too long")
    return channel, payload


class Queue:
    """The warehouse's notification queue, as this process sees it (one per Database)."""

    def __init__(self, directory: str):
        self.path = os.path.join(directory, QUEUE_FILE)
        self._listeners_path = os.path.join(directory, LISTENERS_FILE)
        self._guard = threading.Lock()  # guards _listening and _held
        self._listening = 0  # this process's listening sessions
        self._held: int | None = None  # the fd holding the shared lock on the listeners file while some listen
        self.arrived = threading.Condition()  # notified when a session of this process sent some

    @contextlib.contextmanager
    def ordered(self):
        """Held across the commit of a transaction that LISTENs, UNLISTENs or NOTIFYs and the
        queueing of its notifications: the queue file's exclusive lock, so that notifications
        are queued in the order their transactions commit, in every process, and a LISTEN
        committing meanwhile either finds the transaction committed before it (its
        notifications not for it) or hears them. Gives the queue as the holder uses it."""
        fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            yield _Held(self, fd)
        finally:
            os.close(fd)  # (its lock goes with it)

    # --- who listens ---------------------------------------------------------------------

    def _listener_added(self) -> None:
        with self._guard:
            if self._listening == 0:
                held = os.open(self._listeners_path, os.O_RDWR | os.O_CREAT, 0o644)
                fcntl.flock(held, fcntl.LOCK_SH)
                self._held = held
            self._listening += 1

    def unlisten(self) -> None:
        """A session of this process has stopped listening to every channel."""
        with self._guard:
            self._listening -= 1
            if self._listening == 0 and self._held is not None:
                os.close(self._held)  # (its lock goes with it)
                self._held = None

    def _nobody_listens(self) -> int | None:
        """An fd holding the listeners file exclusively - no process listens - or None."""
        fd = os.open(self._listeners_path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            return None
        return fd

    # --- reading -------------------------------------------------------------------------

    def usage(self) -> float:
        """``pg_notification_queue_usage()``: the fraction of PostgreSQL's 8 GB queue the queue
        file fills - 0 when nothing was sent since nobody last listened (the file is emptied then,
        past a size)."""
        try:
            return os.path.getsize(self.path) / QUEUE_SIZE
        except FileNotFoundError:
            return 0.0

    def read(self, offset: int) -> tuple[list[Notification], int]:
        """The notifications appended after ``offset``, and the offset after them."""
        try:
            with open(self.path, "rb") as f:
                f.seek(offset)
                data = f.read()
        except FileNotFoundError:
            return [], 0
        end = data.rfind(b"\n") + 1  # (a line still being written is read next time)
        return [Notification(*json.loads(line)) for line in data[:end].splitlines()], offset + end


class _Held:
    """The queue while a committing transaction holds its lock (``Queue.ordered``)."""

    def __init__(self, queue: Queue, fd: int):
        self.queue, self._fd = queue, fd

    def listen(self) -> int:
        """A session of this process begins to listen: the queue's end, where it reads from."""
        self.queue._listener_added()
        return os.fstat(self._fd).st_size

    def append(self, notifications: list[Notification]) -> None:
        """Queue ``notifications`` - unless no process listens: then nothing is queued, and a
        queue file grown past EMPTY_WHEN_PAST is emptied."""
        nobody = self.queue._nobody_listens()
        if nobody is not None:
            try:
                if os.fstat(self._fd).st_size > EMPTY_WHEN_PAST:
                    os.ftruncate(self._fd, 0)
            finally:
                os.close(nobody)
            return
        os.write(self._fd, "".join(json.dumps(list(n), ensure_ascii=False) + "\n" for n in notifications).encode())
        with self.queue.arrived:
            self.queue.arrived.notify_all()


class Listener:
    """A session's channels and the notifications it has been sent (``pending``)."""

    def __init__(self, queue: Queue):
        self.queue = queue
        self.channels: dict[str, None] = {}  # (in the order first listened to: pg_listening_channels())
        self.offset = 0
        self.pending: list[Notification] = []

    def committed(self, actions: list[tuple], pid: int, held: _Held) -> None:
        """A transaction of the session committed with these LISTEN / UNLISTEN / NOTIFY actions
        (``held``: the queue, ``Queue.ordered`` held across its commit)."""
        was = bool(self.channels)
        if was:
            self.poll()  # (what was sent before an UNLISTEN committed is still the session's)
        sent: dict[tuple[str, str], None] = {}
        for action in actions:
            if action[0] == "listen":
                self.channels.setdefault(action[1])
            elif action[0] == "unlisten":
                self.channels = {} if action[1] is None else {c: None for c in self.channels if c != action[1]}
            else:
                sent[action[1:]] = None
        if self.channels and not was:
            self.offset = held.listen()
        if sent:
            held.append([Notification(pid, channel, payload) for channel, payload in sent])
        if was and not self.channels:
            self.queue.unlisten()

    def committed_alone(self, action: tuple, pid: int) -> None:
        """A LISTEN, UNLISTEN or NOTIFY outside a transaction block: a transaction of its own."""
        with self.queue.ordered() as held:
            self.committed([action], pid, held)

    def poll(self, timeout: float = 0.0) -> list[Notification]:
        """Read the queue on into ``pending`` (waiting up to ``timeout`` seconds for one); what arrived."""
        if not self.channels:
            return []
        queue = self.queue
        deadline = time.monotonic() + timeout
        while True:
            found, self.offset = queue.read(self.offset)
            mine = [n for n in found if n.channel in self.channels]
            left = deadline - time.monotonic()
            if mine or left <= 0:
                self.pending += mine
                return mine
            with queue.arrived:  # (a session of this process wakes it at once; another process's, a read later)
                queue.arrived.wait(min(left, _POLL_INTERVAL))

    def take(self) -> list[Notification]:
        """The notifications sent to the session, now handed over."""
        taken, self.pending = self.pending, []
        return taken

    def close(self) -> None:
        """The session ends: it listens no more."""
        if self.channels:
            self.channels.clear()
            self.queue.unlisten()
