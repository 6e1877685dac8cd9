import os
import subprocess
import sys

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
