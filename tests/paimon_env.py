"""A private virtualenv with pypaimon 2.1.0, the independent reader of published tables.

pypaimon pins pyarrow < 20, so it cannot live in txlake's environment: tests build
``<repo>/.venv-paimon`` on first use (a file lock keeps concurrent test processes from building
it twice) and drive it as a subprocess. ``TXLAKE_PAIMON_PYTHON`` points at an existing one.
"""

from __future__ import annotations

import fcntl
import json
import os
import subprocess
import sys

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
VENV = os.path.join(REPO, ".venv-paimon")
PYPAIMON = "pypaimon==2.1.0"


def paimon_python() -> str:
    configured = os.environ.get("TXLAKE_PAIMON_PYTHON")
    if configured:
        return configured
    python = os.path.join(VENV, "bin", "python")
    with open(os.path.join(REPO, ".venv-paimon.lock"), "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        marker = os.path.join(VENV, ".ready")
        if not os.path.exists(marker):
            subprocess.run([sys.executable, "-m", "venv", VENV], check=True)
            subprocess.run([python, "-m", "pip", "install", "-q", PYPAIMON], check=True)
            open(marker, "w").close()
    return python


def read_with_pypaimon(table_dir: str) -> dict:
    """Every snapshot of the Paimon table at ``table_dir`` as pypaimon reads it."""
    script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "paimon_read.py")
    out = subprocess.run([paimon_python(), script, table_dir], capture_output=True, text=True)
    if out.returncode != 0:
        raise AssertionError(f"pypaimon failed to read {table_dir}:\n{out.stderr[-3000:]}")
    return json.loads(out.stdout)
