"""Named crash points in the commit path, for crash tests.

``TXLAKE_CRASH_AT=<name>`` makes the process die (``os._exit``, no cleanup, like SIGKILL) when
it reaches that point. Points, in commit order: ``after-prepare`` (data files written and
fsync'd, nothing logged), ``before-log`` (entry built), ``torn-log`` (half the entry's
log line written), ``after-log`` (entry durable, the commit has happened but nobody was told),
``after-publish`` (Paimon snapshot written).
Unset - always, outside tests - it costs one dictionary look-up.
"""

from __future__ import annotations

import os

_CRASH_AT = os.environ.get("TXLAKE_CRASH_AT")


def armed(name: str) -> bool:
    """Is the process to die at ``name``? (For points that first leave something half done.)"""
    return _CRASH_AT == name


def reached(name: str) -> None:
    if _CRASH_AT == name:
        os._exit(137)
