"""Typed statements: what the parser hands the engine.

Statements are immutable. Expressions inside them are sqlglot nodes that the engine must not
mutate (it copies before rewriting), because parsed statements are cached and shared.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from sqlglot import exp


@dataclass(frozen=True)
class TableName:
    """A table reference, normalised: unquoted identifiers are lower-cased (as PostgreSQL)."""

    db: str | None
    name: str

    def qualified(self, default_db: str) -> tuple[str, str]:
        return (self.db or default_db, self.name)

    def __str__(self) -> str:
        return f"{self.db}.{self.name}" if self.db else self.name


def schema_database(schema: str) -> str:
    """The database a PostgreSQL schema name means: ``public``, PostgreSQL's default schema,
    is txlake's default database; any other is the database of that name."""
    return "default" if schema == "public" else schema


def search_path_database(path: str) -> str:
    """The database unqualified names resolve in under ``SET search_path = path``: the first
    schema listed but ``"$user"`` (there are no per-user schemas), as ``schema_database``
    maps it - ``SET search_path = "$user", public`` (PostgreSQL's default) is the default
    database."""
    for part in path.split(","):
        name = part.strip().strip('"')
        if name and name != "$user":
            return schema_database(name)
    return "default"


@dataclass(frozen=True)
class Statement:
    #: number of ``?`` placeholders the statement needs
    param_count: int = field(default=0, kw_only=True)
    #: the statement's source text (for error messages and the REPL)
    text: str = field(default="", kw_only=True, compare=False)

    #: does the statement read or write table data? (transaction control does neither)
    touches_data = True
    #: does it act on the open transaction block (SAVEPOINT, SET TRANSACTION)? Without
    #: autocommit the DB-API begins one implicitly for it, as for a data statement (psycopg)
    needs_block = False


# --- transaction control and settings ---------------------------------------------------

@dataclass(frozen=True)
class Begin(Statement):
    isolation: str | None = None
    read_only: bool | None = None
    label: str | None = None
    touches_data = False


@dataclass(frozen=True)
class Commit(Statement):
    touches_data = False


@dataclass(frozen=True)
class Rollback(Statement):
    touches_data = False


@dataclass(frozen=True)
class Savepoint(Statement):
    name: str = ""
    touches_data = False
    needs_block = True


@dataclass(frozen=True)
class RollbackToSavepoint(Statement):
    name: str = ""
    touches_data = False
    needs_block = True


@dataclass(frozen=True)
class ReleaseSavepoint(Statement):
    name: str = ""
    touches_data = False
    needs_block = True


@dataclass(frozen=True)
class SetTransaction(Statement):
    """``SET TRANSACTION ...`` (session=False) or ``SET SESSION CHARACTERISTICS AS TRANSACTION``."""

    isolation: str | None = None
    read_only: bool | None = None
    session: bool = False
    touches_data = False

    @property
    def needs_block(self) -> bool:
        return not self.session


@dataclass(frozen=True)
class SetVariable(Statement):
    name: str = ""
    value: str | None = None  # None: DEFAULT / RESET
    local: bool = False

    @property
    def needs_block(self) -> bool:  # (SET LOCAL: psycopg would have sent BEGIN first)
        return self.local
    touches_data = False


@dataclass(frozen=True)
class Show(Statement):
    name: str = ""
    touches_data = False


@dataclass(frozen=True)
class PrepareTransaction(Statement):
    gid: str = ""
    touches_data = False


@dataclass(frozen=True)
class CommitPrepared(Statement):
    gid: str = ""
    touches_data = False


@dataclass(frozen=True)
class RollbackPrepared(Statement):
    gid: str = ""
    touches_data = False


@dataclass(frozen=True)
class Call(Statement):
    """``CALL txlake.procedure(args, name => value)``: maintenance procedures."""

    procedure: str = ""
    args: tuple[exp.Expression, ...] = ()
    kwargs: tuple[tuple[str, exp.Expression], ...] = ()
    touches_data = False


# --- DDL --------------------------------------------------------------------------------

@dataclass(frozen=True)
class ColumnSpec:
    name: str
    type: exp.DataType
    not_null: bool = False
    default: exp.Expression | None = None
    primary_key: bool = False


@dataclass(frozen=True)
class CreateTable(Statement):
    table: TableName
    columns: tuple[ColumnSpec, ...] = ()
    primary_key: tuple[str, ...] = ()
    if_not_exists: bool = False
    as_query: exp.Query | None = None


@dataclass(frozen=True)
class DropTable(Statement):
    tables: tuple[TableName, ...] = ()
    if_exists: bool = False


@dataclass(frozen=True)
class AddColumn:
    column: ColumnSpec
    if_not_exists: bool = False


@dataclass(frozen=True)
class DropColumn:
    name: str
    if_exists: bool = False


@dataclass(frozen=True)
class RenameColumn:
    old: str
    new: str


@dataclass(frozen=True)
class RenameTable:
    new: TableName


@dataclass(frozen=True)
class AlterTable(Statement):
    table: TableName
    actions: tuple[AddColumn | DropColumn | RenameColumn | RenameTable, ...] = ()
    if_exists: bool = False


# --- DML and queries --------------------------------------------------------------------

@dataclass(frozen=True)
class OnConflict:
    """``ON CONFLICT [(cols)] DO NOTHING | DO UPDATE SET ... [WHERE ...]``."""

    columns: tuple[str, ...] = ()
    do_nothing: bool = True
    assignments: tuple[tuple[str, exp.Expression], ...] = ()
    where: exp.Expression | None = None
    defaults: tuple[str, ...] = ()  # the columns SET to DEFAULT


@dataclass(frozen=True)
class Insert(Statement):
    table: TableName
    columns: tuple[str, ...] | None = None
    source: exp.Query | None = None        # VALUES or a query; None means DEFAULT VALUES
    on_conflict: OnConflict | None = None
    returning: tuple[exp.Expression, ...] = ()
    alias: str | None = None               # INSERT INTO t AS x: what ON CONFLICT DO UPDATE calls t


@dataclass(frozen=True)
class Update(Statement):
    table: TableName
    alias: str | None = None
    assignments: tuple[tuple[str, exp.Expression], ...] = ()
    from_: tuple[exp.Expression, ...] = ()
    where: exp.Expression | None = None
    returning: tuple[exp.Expression, ...] = ()
    #: the columns SET to DEFAULT (their value in ``assignments`` is the keyword, as parsed)
    defaults: tuple[str, ...] = ()


@dataclass(frozen=True)
class Delete(Statement):
    table: TableName
    alias: str | None = None
    using: tuple[exp.Expression, ...] = ()
    where: exp.Expression | None = None
    returning: tuple[exp.Expression, ...] = ()


@dataclass(frozen=True)
class Query(Statement):
    """Anything DuckDB can run that only reads: SELECT, WITH, VALUES, set operations."""

    expression: exp.Expression = None  # type: ignore[assignment]
    #: a SELECT's locking clauses (``FOR UPDATE`` ...: sqlglot ``Lock`` nodes), taken off ``expression``
    locks: tuple = ()
