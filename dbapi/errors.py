"""The PEP 249 exception tree, each class carrying a PostgreSQL SQLSTATE.

This module is a leaf: every layer (parser, engine, storage) raises these directly at the
place that knows what went wrong, with the specific SQLSTATE, so nothing upstream has to
re-label a generic error.
"""

from __future__ import annotations

import errno
import os


class Warning(Exception):  # noqa: A001 - the name is fixed by PEP 249
    """Important warnings (PEP 249)."""


class Error(Exception):
    """Base of every txlake error. ``sqlstate`` is the PostgreSQL five-character code."""

    sqlstate = "XX000"

    def __init__(self, message: str, *, sqlstate: str | None = None, position: int | None = None):
        super().__init__(message)
        if sqlstate is not None:
            self.sqlstate = sqlstate
        self.position = position  # 1-based character offset into the statement, when known

    @property
    def pgcode(self) -> str:  # psycopg2 spelling
        return self.sqlstate

    @property
    def diag(self) -> "Diagnostic":
        """The error's fields as psycopg's ``e.diag`` gives them."""
        return Diagnostic(self)


class Diagnostic:
    """psycopg's ``Diagnostic``: an error's message split into PostgreSQL's fields (the message
    holds them as lines ``DETAIL:  ...``, ``HINT:  ...``, ``CONTEXT:  ...`` after the first)."""

    severity = "ERROR"

    def __init__(self, error: Error):
        self.sqlstate = error.sqlstate
        self.statement_position = str(error.position) if error.position is not None else None
        primary, *rest = str(error).split("\n")
        self.message_primary = primary
        fields: dict[str, list[str]] = {}
        current = None
        for line in rest:
            label, sep, text = line.partition(":  ")
            if sep and label in ("DETAIL", "HINT", "CONTEXT"):
                current = fields.setdefault(label, [])
                current.append(text)
            elif current is not None:  # (a field of several lines)
                current.append(line)
        self.message_detail, self.message_hint, self.context = (
            "\n".join(fields[k]) if k in fields else None for k in ("DETAIL", "HINT", "CONTEXT"))


class InterfaceError(Error):
    sqlstate = "08000"


class DatabaseError(Error):
    sqlstate = "XX000"


class DataError(DatabaseError):
    sqlstate = "22000"


class OperationalError(DatabaseError):
    sqlstate = "58000"


class IntegrityError(DatabaseError):
    sqlstate = "23000"


class InternalError(DatabaseError):
    sqlstate = "XX000"


class ProgrammingError(DatabaseError):
    sqlstate = "42000"


class NotSupportedError(DatabaseError):
    sqlstate = "0A000"


# --- specific conditions, named after PostgreSQL's condition names -----------------------

class SerializationFailure(OperationalError):
    sqlstate = "40001"


class DeadlockDetected(OperationalError):
    sqlstate = "40P01"


class LockNotAvailable(OperationalError):
    sqlstate = "55P03"


class QueryCanceled(OperationalError):
    sqlstate = "57014"


class AdminShutdown(OperationalError):
    """57P01: the session was ended by ``pg_terminate_backend`` (its next call is told so)."""

    sqlstate = "57P01"


class InFailedTransaction(InternalError):
    """25P02: a statement other than ROLLBACK inside a failed transaction block."""

    sqlstate = "25P02"


class InvalidTransactionState(InternalError):
    sqlstate = "25000"


class ActiveSqlTransaction(InternalError):
    """25001: e.g. SET TRANSACTION ISOLATION LEVEL after a query, CALL inside a block."""

    sqlstate = "25001"


class NoActiveSqlTransaction(InternalError):
    """25P01: e.g. SAVEPOINT outside a transaction block."""

    sqlstate = "25P01"


class ReadOnlyTransaction(InternalError):
    sqlstate = "25006"


class TooManyConnections(OperationalError):
    sqlstate = "53300"


class UniqueViolation(IntegrityError):
    sqlstate = "23505"


class NotNullViolation(IntegrityError):
    sqlstate = "23502"


class CheckViolation(IntegrityError):
    sqlstate = "23514"


class ForeignKeyViolation(IntegrityError):
    sqlstate = "23503"


class InvalidForeignKey(ProgrammingError):
    """42830: a foreign key whose referenced columns are no primary key (or unique constraint)."""

    sqlstate = "42830"


class SyntaxError(ProgrammingError):  # noqa: A001 - PostgreSQL's condition name
    sqlstate = "42601"


class UndefinedTable(ProgrammingError):
    sqlstate = "42P01"


class UndefinedColumn(ProgrammingError):
    sqlstate = "42703"


class DuplicateTable(ProgrammingError):
    sqlstate = "42P07"


class DuplicateColumn(ProgrammingError):
    sqlstate = "42701"


class DuplicateObject(ProgrammingError):
    """A label (or prepared-transaction identifier) that is already in use."""
    sqlstate = "42710"


class InvalidName(ProgrammingError):
    sqlstate = "42602"


class UndefinedObject(ProgrammingError):
    """42704, e.g. an unknown savepoint name is 3B001 but an unknown setting is 42704."""

    sqlstate = "42704"


class WrongObjectType(ProgrammingError):
    """42809: DROP TABLE of a view, DROP VIEW of a table, ALTER TABLE of a view, COPY of a view or
    from a directory."""

    sqlstate = "42809"


class DependentObjectsStillExist(InternalError):  # (class 2B is psycopg's InternalError)
    """2BP01: a table or view that views read, dropped without CASCADE."""

    sqlstate = "2BP01"

    @classmethod
    def column(cls, table: str, column: str, dependent: str) -> "DependentObjectsStillExist":
        """PostgreSQL's error for DROP COLUMN (without CASCADE) of a column ``dependent`` (``trigger
        t on table x``, ``view v``) uses."""
        return cls(f"cannot drop column {column} of table {table} because other objects depend on it\n"
                   f"DETAIL:  {dependent} depends on column {column} of table {table}\n"
                   "HINT:  Use DROP ... CASCADE to drop the dependent objects too.")


class InvalidTableDefinition(ProgrammingError):
    """42P16: e.g. CREATE OR REPLACE VIEW dropping or changing a column."""

    sqlstate = "42P16"


class ObjectNotInPrerequisiteState(OperationalError):
    """55000: e.g. INSERT, UPDATE or DELETE of a view."""

    sqlstate = "55000"


class InvalidSavepoint(OperationalError):  # (class 3B is psycopg's OperationalError)
    sqlstate = "3B001"


class NumericValueOutOfRange(DataError):
    sqlstate = "22003"


class InvalidTextRepresentation(DataError):
    sqlstate = "22P02"


class StringDataRightTruncation(DataError):
    sqlstate = "22001"


class DivisionByZero(DataError):
    sqlstate = "22012"


class DatetimeFieldOverflow(DataError):
    """22008, e.g. DATE '2024-02-30'."""

    sqlstate = "22008"


class InvalidParameterValue(DataError):
    sqlstate = "22023"


class BadCopyFileFormat(DataError):
    """22P04: a COPY file's line does not fit the table (extra or missing data, a bad header)."""

    sqlstate = "22P04"


class InvalidDatetimeFormat(DataError):
    sqlstate = "22007"


class DatatypeMismatch(ProgrammingError):
    sqlstate = "42804"


class DuplicatePreparedStatement(ProgrammingError):
    sqlstate = "42P05"


class InvalidSqlStatementName(ProgrammingError):
    """EXECUTE or DEALLOCATE of a prepared statement there is none of."""
    sqlstate = "26000"


class InvalidCursorName(ProgrammingError):
    """34000: FETCH, MOVE or CLOSE of a cursor there is none of."""

    sqlstate = "34000"


class DuplicateCursor(ProgrammingError):
    """42P03: DECLARE of a cursor name the session has open already."""

    sqlstate = "42P03"


class InvalidCursorDefinition(ProgrammingError):
    """42P11: DECLARE ... SCROLL ... NO SCROLL, ASENSITIVE ... INSENSITIVE."""

    sqlstate = "42P11"


class CommitFailed(OperationalError):
    """The commit could not be made durable (I/O error, commit timeout)."""

    sqlstate = "58030"


class CommitOutcomeUnknown(CommitFailed):
    """The commit's log entry was written but could not be flushed: it may be durable, and other
    processes may read it, or not (PostgreSQL's transaction_resolution_unknown). Its files stay."""

    sqlstate = "08007"


class CardinalityViolation(ProgrammingError):
    sqlstate = "21000"


class UndefinedFunction(ProgrammingError):
    sqlstate = "42883"


class AmbiguousFunction(ProgrammingError):
    sqlstate = "42725"


class DuplicateFunction(ProgrammingError):
    sqlstate = "42723"


class InvalidFunctionDefinition(ProgrammingError):
    sqlstate = "42P13"


class InvalidObjectDefinition(ProgrammingError):
    sqlstate = "42P17"


class DiskFull(OperationalError):
    sqlstate = "53100"


# the class psycopg raises for each SQLSTATE class (its errors.py): what a program written
# against psycopg catches - and the class of an error of a code no class here carries
SQLSTATE_CLASSES = {
    "08": OperationalError, "0A": NotSupportedError, "20": ProgrammingError, "21": ProgrammingError,
    "22": DataError, "23": IntegrityError, "24": InternalError, "25": InternalError, "26": ProgrammingError,
    "27": OperationalError, "28": OperationalError, "2B": InternalError, "2D": InternalError,
    "2F": OperationalError, "34": ProgrammingError, "38": OperationalError, "39": OperationalError,
    "3B": OperationalError, "3D": ProgrammingError, "3F": ProgrammingError, "40": OperationalError,
    "42": ProgrammingError, "44": ProgrammingError, "53": OperationalError, "54": OperationalError,
    "55": OperationalError, "57": OperationalError, "58": OperationalError, "F0": OperationalError,
    "HV": OperationalError, "P0": ProgrammingError, "XX": InternalError,
}


def file_error_sqlstate(e: OSError) -> str:
    """The SQLSTATE of a failed file operation, as PostgreSQL's ``errcode_for_file_access``
    gives it: 53100 for a full disk (or quota), 42501 for a permission refused, 58P01 for a
    file not found, 58030 for any other I/O error."""
    return {errno.ENOSPC: "53100", errno.EDQUOT: "53100", errno.EACCES: "42501", errno.EPERM: "42501",
            errno.EROFS: "42501", errno.ENOENT: "58P01"}.get(e.errno, "58030")


def file_error(e: OSError, what: str) -> OperationalError:
    """``e`` as the error a user gets: ``what`` failed, with the system's reason and the
    SQLSTATE ``file_error_sqlstate`` gives (a DiskFull for a full disk)."""
    # (the system's words for its errno: pyarrow's errors hold their own text there - "Failed
    # to open local file '...'. Detail: [errno 2] ..." - which repeats the path)
    reason = os.strerror(e.errno) if isinstance(e.errno, int) and e.errno > 0 else e.strerror or e
    message = f"{what}: {reason}"
    sqlstate = file_error_sqlstate(e)
    return DiskFull(message) if sqlstate == "53100" else OperationalError(message, sqlstate=sqlstate)


__all__ = [name for name, value in dict(globals()).items()
           if isinstance(value, type) and issubclass(value, Exception)]
