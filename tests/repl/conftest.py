import os
import shutil
import sys

import pytest


@pytest.fixture
def program(tmp_path):
    """How to start the real ``txlake`` command (the installed script, else ``python -m``), and an
    environment whose home and history file are inside the test's directory."""
    script = shutil.which("txlake")
    argv = [script] if script else [sys.executable, "-m", "txlake.repl.cli"]
    home = tmp_path / "home"
    home.mkdir()
    env = dict(os.environ, HOME=str(home), TXLAKE_HISTFILE=str(home / "history"),
               COLUMNS="100", LINES="40")
    return argv, env
