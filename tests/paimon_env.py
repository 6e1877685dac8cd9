"""A private virtualenv with pypaimon 2.1.0, the independent reader of published tables.

pypaimon pins pyarrow < 20, so it cannot share txlake's environment: tests build
``<repo>/.venv-paimon`` on first use and drive it as a subprocess (``paimon_read.py``).
``TXLAKE_PAIMON_PYTHON`` names the python of an existing one instead. An exclusive ``fcntl``
lock on ``<repo>/.venv-paimon.lock`` makes concurrent test processes wait for one build, and a
marker file written last means a half-built venv (interrupted install) is finished next time.
"""

from __future__ import annotations

import fcntl
import json
import os
import subprocess
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
VENV = os.path.join(REPO, ".venv-paimon")
LOCK = os.path.join(REPO, ".venv-paimon.lock")
PYPAIMON = "pypaimon==2.1.0"
READ_SCRIPT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "paimon_read.py")


def paimon_python() -> str:
    """The python executable of a virtualenv with pypaimon 2.1.0, built if need be."""
    configured = os.environ.get("TXLAKE_PAIMON_PYTHON")
    if configured:
        if not os.path.exists(configured):
            raise FileNotFoundError(f"TXLAKE_PAIMON_PYTHON={configured} does not exist")
        return configured
    python = os.path.join(VENV, "bin", "python")
    ready = os.path.join(VENV, f".ready-{PYPAIMON}")
    with open(LOCK, "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
        if not os.path.exists(ready):
            if not os.path.exists(python):
                subprocess.run([sys.executable, "-m", "venv", VENV], check=True)
            subprocess.run([python, "-m", "pip", "install", "-q", PYPAIMON], check=True)
            open(ready, "w").close()
    return python


def read_with_pypaimon(table_dir: str) -> dict:
    """Every snapshot of the Paimon table at ``table_dir`` as pypaimon reads it (see
    ``paimon_read.py`` for the document's shape)."""
    out = subprocess.run([paimon_python(), READ_SCRIPT, table_dir], capture_output=True, text=True)
    if out.returncode != 0:
        raise AssertionError(f"pypaimon failed to read {table_dir}:\n{out.stderr[-4000:]}")
    return json.loads(out.stdout)
