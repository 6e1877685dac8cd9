"""``nextval()``, ``currval()`` and ``setval()`` as functions DuckDB calls while it runs a
statement: a SERIAL column's default, or a query's own call.

``nextval`` is vectorized: DuckDB hands it a batch of rows (a multi-row INSERT), and it takes
the numbers for the whole batch at once (storage/sequences.py ``reserve``), in row order. A
sequence named without a database is the statement's database's (its first on the search
path). ``currval`` is the number ``nextval`` last gave in this session, as PostgreSQL's.

An error raised inside a DuckDB function reaches Python as DuckDB's text of it; the executor
asks ``failure()`` for the txlake error itself (its SQLSTATE).
"""

from __future__ import annotations

import functools
import re

import numpy as np
import pyarrow as pa

from txlake import errors
from txlake.storage.sequences import Sequences

NEXTVAL, CURRVAL, SETVAL = "txl_nextval", "txl_currval", "txl_setval"
# a part of a sequence's name (the dot before the next part included): "quoted" or plain
_NAME_PART = re.compile(r'(?:"((?:[^"]|"")*)"|([^".]+))\.?')


def qualified_name(db: str, name: str) -> str:
    """``db.name`` as nextval() takes it: each part quoted where it is not a plain lower-case name."""
    return ".".join(part if re.fullmatch(r"[a-z_][a-z0-9_]*", part) else '"' + part.replace('"', '""') + '"'
                    for part in (db, name))


class SequenceCalls:
    def __init__(self, duck, sequences: Sequences):
        """``duck``: the session's DuckDB connection (engine/duck.py), which gets the functions."""
        self.sequences = sequences
        self.db = "default"  # the statement's database (the session sets it)
        self._last: dict[tuple[str, str], int] = {}  # (db, name) -> currval
        self._failure: errors.Error | None = None
        duck.create_function(NEXTVAL, self._guarded(self._nextval), ["VARCHAR"], "BIGINT", vectorized=True,
                             side_effects=True, null_handling="special")
        duck.create_function(CURRVAL, self._guarded(self._currval), ["VARCHAR"], "BIGINT", side_effects=True)
        duck.create_function(SETVAL, self._guarded(self._setval), ["VARCHAR", "BIGINT"], "BIGINT", side_effects=True)

    def failure(self) -> errors.Error | None:
        """The error a function raised during the statement DuckDB just failed, once."""
        failure, self._failure = self._failure, None
        return failure

    def _guarded(self, function):
        @functools.wraps(function)  # (DuckDB counts the function's parameters)
        def call(*args):
            try:
                return function(*args)
            except errors.Error as e:
                self._failure = e
                raise
        return call

    def _nextval(self, names: pa.Array) -> pa.Array:
        names = names.to_pylist()
        out = np.zeros(len(names), dtype=np.int64)
        rows: dict[tuple[str, str], list[int]] = {}
        for i, name in enumerate(names):
            if name is not None:
                rows.setdefault(self._qualified(name), []).append(i)
        for key, at in rows.items():
            first = self._take(key, len(at))
            out[at] = np.arange(first, first + len(at), dtype=np.int64)
        return pa.array(out, mask=np.array([n is None for n in names]) if None in names else None)

    def reserve(self, name: str, count: int) -> int:
        """``count`` numbers of sequence ``name`` (a multi-row INSERT's, built in Python): the
        first of them."""
        return self._take(self._qualified(name), count)

    def _take(self, key: tuple[str, str], count: int) -> int:
        first = self.sequences.reserve(*key, count=count)
        self._last[key] = first + count - 1
        return first

    def _currval(self, name: str) -> int:
        key = self._qualified(name)
        if key not in self._last:
            raise errors.OperationalError(
                f'currval of sequence "{key[1]}" is not yet defined in this session', sqlstate="55000")
        return self._last[key]

    def _setval(self, name: str, value: int) -> int:
        key = self._qualified(name)
        self.sequences.set_next(*key, value)
        self._last[key] = value
        return value

    def _qualified(self, text: str) -> tuple[str, str]:
        return sequence_key(text, self.db)


def sequence_key(text: str, db: str) -> tuple[str, str]:
    """(database, name) of a sequence named as PostgreSQL takes it: ``name`` (in database
    ``db``) or ``schema.name``, each folded to lower case unless double-quoted."""
    parts = [m[1].replace('""', '"') if m[1] is not None else m[2].strip().lower()
             for m in _NAME_PART.finditer(text)]
    if not 1 <= len(parts) <= 2 or not all(parts) or "".join(m[0] for m in _NAME_PART.finditer(text)) != text:
        raise errors.InvalidName(f'invalid sequence name: "{text}"')
    db = parts[0] if len(parts) == 2 else db
    if db == "public":  # (PostgreSQL's schema is the database default)
        db = "default"
    if any(c in db + parts[-1] for c in "/\\") or parts[-1] in (".", ".."):
        raise errors.InvalidName(f'invalid sequence name: "{text}"')
    return db, parts[-1]
