"""``nextval()``, ``currval()`` and ``setval()`` as functions DuckDB calls while it runs a
statement: a SERIAL column's default, or a query's own call.

``nextval`` is vectorized: DuckDB hands it a batch of rows (a multi-row INSERT), and it takes
the numbers for the whole batch at once (storage/sequences.py ``reserve``), in row order. A
sequence named without a database is the statement's database's (its first on the search
path). ``currval`` is the number ``nextval`` last gave in this session, as PostgreSQL's, and
``lastval`` the last of any sequence. A sequence's catalog entry, as the statement's transaction
sees it, says where its numbers are and how they go (storage/sequences.py ``Counter``).

An error raised inside a DuckDB function reaches Python as DuckDB's text of it; the executor
asks ``failure()`` for the txlake error itself (its SQLSTATE).
"""

from __future__ import annotations

import functools
import re
import threading

import numpy as np
import pyarrow as pa

from txlake import errors
from txlake.storage.sequences import Counter, Sequences

NEXTVAL, CURRVAL, SETVAL, SETVAL3, LASTVAL = "txl_nextval", "txl_currval", "txl_setval", "txl_setval3", "txl_lastval"
SERIAL_SEQUENCE = "txl_serial_sequence"
_NONE = np.zeros(0, dtype=np.int64)
# a part of a sequence's name (the dot before the next part included): "quoted" or plain
_NAME_PART = re.compile(r'(?:"((?:[^"]|"")*)"|([^".]+))\.?')


def qualified_name(db: str, name: str) -> str:
    """``db.name`` as nextval() takes it: each part quoted where it is not a plain lower-case name."""
    return ".".join(part if re.fullmatch(r"[a-z_][a-z0-9_]*", part) else '"' + part.replace('"', '""') + '"'
                    for part in (db, name))


def counter_of(version, key: tuple[str, str]) -> Counter:
    """The counter of the sequence ``key`` names, whose catalog entry is ``version`` (None: a
    sequence from before sequences were entries, or none - 42P01 when it is used)."""
    if version is None:
        return Counter.legacy(*key)
    if not version.is_sequence:
        raise errors.WrongObjectType(f'"{version.name}" is not a sequence')
    return Counter.of(version)


class SequenceCalls:
    def __init__(self, duck, sequences: Sequences):
        """``duck``: the session's DuckDB connection (engine/duck.py), which gets the functions."""
        self.sequences = sequences
        #: the statement's Context (engine/executor.py; the session sets it): its database
        #: names unqualified sequences, and its transaction sees their catalog entries
        self.ctx = None
        self._last: dict[tuple[str, str], int] = {}  # (db, name) -> currval
        #: a sequence file's path -> (its counter as taken, the numbers taken but not yet handed out);
        #: guarded by _cache_lock (should DuckDB call nextval from several threads of one statement,
        #: two of them must not hand out the same numbers)
        self._cached: dict[str, tuple[Counter, np.ndarray]] = {}
        self._cache_lock = threading.Lock()
        self._lastval: int | None = None
        self._failure: errors.Error | None = None
        duck.create_function(NEXTVAL, self.guarded(self._nextval), ["VARCHAR"], "BIGINT", vectorized=True,
                             side_effects=True, null_handling="special")
        duck.create_function(CURRVAL, self.guarded(self._currval), ["VARCHAR"], "BIGINT", side_effects=True)
        duck.create_function(SETVAL, self.guarded(self._setval), ["VARCHAR", "BIGINT"], "BIGINT", side_effects=True)
        duck.create_function(SETVAL3, self.guarded(self._setval3), ["VARCHAR", "BIGINT", "BOOLEAN"], "BIGINT",
                             side_effects=True)
        duck.create_function(LASTVAL, self.guarded(self._lastval_call), [], "BIGINT", side_effects=True)
        duck.create_function(SERIAL_SEQUENCE, self.guarded(self._serial_sequence), ["VARCHAR", "VARCHAR"],
                             "VARCHAR", side_effects=True, null_handling="special")

    def forget(self) -> None:
        """DISCARD SEQUENCES: no currval or lastval until the next nextval, and the numbers
        taken ahead given up (a gap, as in PostgreSQL)."""
        with self._cache_lock:
            self._last.clear()
            self._cached.clear()
            self._lastval = None

    def failure(self) -> errors.Error | None:
        """The error a function raised during the statement DuckDB just failed, once."""
        failure, self._failure = self._failure, None
        return failure

    def guarded(self, function):
        """``function`` as DuckDB calls it: the txlake error it raises is kept for ``failure()``
        (engine/advisory.py's functions report theirs here too)."""
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
            out[at] = self._take(key, len(at))
        return pa.array(out, mask=np.array([n is None for n in names]) if None in names else None)

    def reserve(self, name: str, count: int) -> np.ndarray:
        """``count`` numbers of sequence ``name`` (a multi-row INSERT's, built in Python), in order."""
        return self._take(self._qualified(name), count)

    def counter(self, key: tuple[str, str]) -> Counter:
        ctx = self.ctx
        return counter_of(ctx.txn.table(ctx.catalog, *key) if ctx is not None else None, key)

    def _take(self, key: tuple[str, str], count: int) -> np.ndarray:
        counter = self.counter(key)
        numbers = self._from_cache(counter, count) if counter.cache > 1 else self.sequences.reserve(counter, count)
        if count:
            self._last[key] = self._lastval = int(numbers[-1])
        return numbers

    def _from_cache(self, counter: Counter, count: int) -> np.ndarray:
        """``count`` numbers of a sequence with ``CACHE n``, as PostgreSQL's session hands them
        out: from the numbers this session took before, the file visited only when they run out
        (for n at a time, or as many as the statement needs). Numbers a session took and did not
        hand out are lost when it ends; sessions' numbers interleave but are never the same. The
        cache holds for the counter as it was taken: a RESTART (a new file) or ALTER SEQUENCE
        (a new step or bounds) the session's transaction sees, or its own setval, empties it."""
        with self._cache_lock:
            kept = self._cached.get(counter.path)
            numbers = kept[1] if kept is not None and kept[0] == counter else _NONE
            if len(numbers) < count:
                need = count - len(numbers)
                numbers = np.concatenate([numbers, self.sequences.reserve(counter, need,
                                                                          max(counter.cache - need, 0))])
            self._cached[counter.path] = (counter, numbers[count:])
            return numbers[:count]

    def _currval(self, name: str) -> int:
        key = self._qualified(name)
        counter = self.counter(key)  # (42809 first, as PostgreSQL; and 42P01:)
        if key not in self._last and not self.sequences.exists(counter):
            raise errors.UndefinedTable(f'relation "{key[1]}" does not exist')
        if key not in self._last:
            raise errors.ObjectNotInPrerequisiteState(
                f'currval of sequence "{key[1]}" is not yet defined in this session')
        return self._last[key]

    def _lastval_call(self) -> int:
        if self._lastval is None:
            raise errors.ObjectNotInPrerequisiteState("lastval is not yet defined in this session")
        return self._lastval

    def _setval(self, name: str, value: int) -> int:
        return self._setval3(name, value, True)

    def _setval3(self, name: str, value: int, is_called: bool) -> int:
        """``setval(s, n [, is_called])``: the next number is ``n`` + the step (``n`` itself
        if not ``is_called``); ``n`` within the sequence's bounds (22003)."""
        key = self._qualified(name)
        counter = self.counter(key)
        if value is None or is_called is None:
            return None
        if not counter.minimum <= value <= counter.maximum:
            raise errors.NumericValueOutOfRange(
                f'setval: value {value} is out of bounds for sequence "{key[1]}" '
                f"({counter.minimum}..{counter.maximum})")
        self.sequences.set_next(counter, value + counter.increment if is_called else value)
        with self._cache_lock:
            self._cached.pop(counter.path, None)  # (as PostgreSQL's: other sessions use theirs up first)
        if is_called:
            self._last[key] = self._lastval = value
        return value

    def _serial_sequence(self, table: str, column: str) -> str | None:
        """``pg_get_serial_sequence('t', 'c')``: ``schema.name`` of the sequence column ``c``
        of ``t`` owns (its SERIAL or identity sequence), or NULL."""
        from txlake.parser.parse import parse_table_name  # (the parser is above this module)
        ctx = self.ctx
        if ctx is None or table is None or column is None:
            return None
        version = ctx.resolve(parse_table_name(table))
        col = version.schema.column(column)  # (as PostgreSQL: the column's name as it is, not folded)
        if col is None:
            raise errors.UndefinedColumn(f'column "{column}" of relation "{version.name}" does not exist')
        for entry in ctx.txn.tables(ctx.catalog) if ctx.may_hold("sequence") else ():
            owner = entry.schema.sequence.owner if entry.is_sequence else None
            if owner == (version.table_id, col.field_id):
                return qualified_name("public" if entry.db == "default" else entry.db, entry.name)
        return None

    def _qualified(self, text: str) -> tuple[str, str]:
        return sequence_key(text, self.ctx.db if self.ctx is not None else "default")


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
