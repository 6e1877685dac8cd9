import os
import subprocess
import sys
import threading
import time

import pytest

import txlake

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


@pytest.fixture
def warehouse(tmp_path):
    """A fresh warehouse directory (not yet created)."""
    return str(tmp_path / "wh")


@pytest.fixture
def connect(warehouse):
    """Open connections to the test warehouse (publishing off unless asked); all closed at the end."""
    opened = []

    def _connect(**kwargs):
        kwargs.setdefault("publish", "off")
        conn = txlake.connect(warehouse, **kwargs)
        opened.append(conn)
        return conn

    yield _connect
    for conn in opened:
        conn.close()


@pytest.fixture
def conn(connect):
    """One connection to the test warehouse: autocommit off, default isolation, no publishing."""
    return connect()


def child_env() -> dict:
    """The environment for a child interpreter that must import this checkout's txlake."""
    return dict(os.environ, PYTHONPATH=REPO + os.pathsep + os.environ.get("PYTHONPATH", ""))


def run_python(code: str, *args: str, timeout: float = 120) -> subprocess.CompletedProcess:
    """Run ``code`` in a fresh interpreter (a new process: nothing shared but the disk)."""
    return subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True,
                          timeout=timeout, env=child_env())


def started(session, sql: str) -> tuple[threading.Thread, list]:
    """``sql`` run by ``session`` (a connection) in a thread, started: the thread, and a list
    that gets "ok" or the SQLSTATE it failed with."""
    outcome = []

    def run():
        try:
            session.execute(sql)
            outcome.append("ok")
        except txlake.Error as e:
            outcome.append(e.sqlstate)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread, outcome


def waiting(session, sql: str) -> tuple[threading.Thread, list]:
    """``started``, returning once the statement waits for a lock (AssertionError if it ended
    without waiting, or had not begun to after 30 s)."""
    thread, outcome = started(session, sql)
    locks, deadline = session.session.db.locks, time.monotonic() + 30
    while not (session.session.txn is not None and locks.waiting_for(session.session.txn)):
        assert thread.is_alive() and time.monotonic() < deadline, "it did not wait"
        time.sleep(0.002)
    return thread, outcome


def meanwhile(session, sql: str, then) -> str:
    """``sql`` run by ``session`` (a connection) in a thread while ``then()`` runs here: "ok" or
    the SQLSTATE it failed with ("still running" if it had not ended a minute after)."""
    thread, outcome = started(session, sql)
    then()
    thread.join(60)
    return outcome[0] if outcome else "still running"


@pytest.hookimpl(tryfirst=True)  # (before xdist's, which reads the groups)
def pytest_collection_modifyitems(items):
    """The suite runs in two processes (pytest-xdist, ``-n 2 --dist loadgroup``: README):
    every test that uses Spark goes to the same one, so the run starts one SparkSession, as
    it would without xdist (a test starting Spark in a child process is marked so itself)."""
    for item in items:
        if "spark" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.xdist_group("spark"))


@pytest.fixture(scope="session")
def spark():
    """One local SparkSession for the whole test run (starting one costs ~10 s), with the
    txlake data source registered."""
    os.environ["PYSPARK_PYTHON"] = sys.executable
    os.environ["PYSPARK_DRIVER_PYTHON"] = sys.executable
    from pyspark.sql import SparkSession

    import txlake.spark
    session = (SparkSession.builder.master("local[2]").appName("txlake-tests")
               .config("spark.ui.enabled", "false")
               .config("spark.ui.showConsoleProgress", "false")
               .config("spark.sql.shuffle.partitions", "2")
               .config("spark.driver.bindAddress", "127.0.0.1")
               .config("spark.driver.host", "127.0.0.1")
               .config("spark.sql.session.timeZone", "UTC")
               .getOrCreate())
    session.sparkContext.setLogLevel("OFF")
    txlake.spark.register(session)
    yield session
    session.stop()


def commit_each(*conns) -> list[str]:
    """Commit each connection in turn: "ok", or the SQLSTATE its commit failed with (then rolled back)."""
    outcomes = []
    for conn in conns:
        try:
            conn.commit()
            outcomes.append("ok")
        except txlake.Error as e:
            outcomes.append(e.sqlstate)
            conn.rollback()
    return outcomes


def write_skew_over(warehouse, column_type: str, existing: str, predicate: str, inserted: str) -> list[str]:
    """Two SERIALIZABLE transactions: s1 reads ``t WHERE predicate`` (a table of one ``v`` column
    of ``column_type`` holding ``existing``: nothing matches) and writes what s2 read; s2 inserts
    ``inserted``, which the predicate matches. ``commit_each``'s outcomes: ["ok", "40001"] if SSI
    saw the conflict (both committing is write skew)."""
    setup = txlake.connect(warehouse, autocommit=True, publish="off")
    setup.execute(f"CREATE TABLE t (id INT PRIMARY KEY, v {column_type})")
    setup.execute("INSERT INTO t VALUES (1, ?)", (existing,))
    setup.execute("CREATE TABLE u (id INT PRIMARY KEY, n INT)")
    setup.execute("INSERT INTO u VALUES (1, 0)")
    s1 = txlake.connect(warehouse, isolation_level="SERIALIZABLE", publish="off")
    s2 = txlake.connect(warehouse, isolation_level="SERIALIZABLE", publish="off")
    try:
        assert s1.execute(f"SELECT id FROM t WHERE {predicate}").fetchall() == []
        assert s2.execute("SELECT n FROM u WHERE id = 1").fetchall() == [(0,)]
        s1.execute("UPDATE u SET n = 1 WHERE id = 1")  # what s2 read
        s2.execute("INSERT INTO t VALUES (2, ?)", (inserted,))  # what s1 read
        return commit_each(s1, s2)
    finally:
        for conn in (s1, s2, setup):
            conn.close()


def rows(conn, sql, params=None) -> list[tuple]:
    """The rows ``sql`` gives."""
    return conn.execute(sql, params).fetchall()


def one(conn, sql, params=None) -> tuple | None:
    """The first row ``sql`` gives (None when it gives none)."""
    return conn.execute(sql, params).fetchone()


def value(conn, sql, params=None):
    """The first value of the first row ``sql`` gives."""
    return conn.execute(sql, params).fetchone()[0]


def fails(conn, sql, sqlstate, *words, params=None, error=txlake.Error) -> str:
    """The message of the error ``sql`` fails with (running it and fetching its rows), which must
    be an ``error`` with ``sqlstate`` and hold each of ``words``."""
    with pytest.raises(error) as info:
        cursor = conn.execute(sql, params)
        if cursor.description is not None:
            cursor.fetchall()
    message = str(info.value)
    assert info.value.sqlstate == sqlstate, (sql, info.value.sqlstate, message)
    for word in words:
        assert word in message, message
    return message


def error_of(conn, sql, params=None) -> tuple[str, str]:
    """The SQLSTATE and message of the error ``sql`` fails with."""
    with pytest.raises(txlake.Error) as info:
        conn.execute(sql, params)
    return info.value.sqlstate, str(info.value)
