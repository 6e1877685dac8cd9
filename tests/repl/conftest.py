import os
import shutil
import sys

import pytest


@pytest.fixture
def program(tmp_path):
    """How to start the real ``txlake`` command (the script installed beside the running Python -
    a virtual environment's, not another install's on PATH - else on PATH, else ``python -m``),
    and an environment whose home and history file are inside the test's directory."""
    beside = os.path.join(os.path.dirname(sys.executable), "txlake")
    script = beside if os.access(beside, os.X_OK) else shutil.which("txlake")
    argv = [script] if script else [sys.executable, "-m", "txlake.repl.cli"]
    home = tmp_path / "home"
    home.mkdir()
    env = dict(os.environ, HOME=str(home), TXLAKE_HISTFILE=str(home / "history"),
               COLUMNS="100", LINES="40")
    return argv, env
