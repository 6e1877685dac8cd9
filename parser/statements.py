"""Typed statements: what the parser hands the engine.

Statements are immutable. Expressions inside them are sqlglot nodes that the engine must not
mutate (it copies before rewriting), because parsed statements are cached and shared.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, fields, is_dataclass, replace

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


#: PostgreSQL's search_path, as SHOW shows it before a SET
DEFAULT_SEARCH_PATH = '"$user", public'


def search_path_text(schemas: list[str]) -> str:
    """A search_path as PostgreSQL keeps the list a SET gives (and SHOW echoes it): the
    schemas joined by ", ", each quoted where it is no plain lower-case name (``"$user"``)."""
    return ", ".join(s if re.fullmatch(r"[a-z_][a-z0-9_$]*", s) else '"' + s.replace('"', '""') + '"'
                     for s in schemas)


def search_path_schemas(path: str) -> list[str]:
    """The schemas of a search_path's text, read as PostgreSQL reads it (SplitIdentifierString):
    names separated by commas, a quoted one as it is, another folded to lower case."""
    schemas = []
    for quoted, plain in re.findall(r'\s*(?:"((?:[^"]|"")*)"|([^,]*))\s*(?:,|$)', path):
        name = quoted.replace('""', '"') if quoted else plain.strip().lower()
        if name:
            schemas.append(name)
    return schemas


def search_path_databases(path: str) -> tuple[str, ...]:
    """The databases unqualified names resolve in under ``SET search_path = path``, in order:
    the schemas listed but ``"$user"`` (there are no per-user schemas) and PostgreSQL's own
    ``pg_catalog`` / ``information_schema``, as ``schema_database`` maps them - ``SET
    search_path = "$user", public`` (PostgreSQL's default) is the default database. A name
    is the table of the first that holds it; CREATE TABLE makes it in the first."""
    found = []
    for name in search_path_schemas(path):
        if name not in ("$user", "pg_catalog", "information_schema"):
            db = schema_database(name)
            if db not in found:
                found.append(db)
    return tuple(found) or ("default",)


@dataclass(frozen=True)
class Statement:
    #: number of ``?`` placeholders the statement needs
    param_count: int = field(default=0, kw_only=True)
    #: which parameter each ``?`` of the statement takes, in its order, where that is not the
    #: text's (a CTE put where it is named: parse._inline_ctes); None: the text's order
    param_order: tuple[int, ...] | None = field(default=None, kw_only=True, compare=False)
    #: the statement's source text (for error messages and the REPL)
    text: str = field(default="", kw_only=True, compare=False)
    #: where ``text`` begins in the string it was sent in (0-based): an error's position counts
    #: from that string's start, as PostgreSQL's does
    offset: int = field(default=0, kw_only=True, compare=False)
    #: a WARNING PostgreSQL's parser gives of the statement (``CREATE GLOBAL TEMP TABLE``), None: none
    warning: str | None = field(default=None, kw_only=True, compare=False)
    #: does it call current_setting() (engine/executor.py ``with_settings`` puts the session's
    #: values in, at each execution)?
    reads_settings: bool = field(default=False, kw_only=True, compare=False)
    #: the system columns (ctid, xmin, xmax, tableoid) it names (parser/system_columns.py): only a
    #: statement naming one reads its tables with them
    system_columns: frozenset[str] = field(default=frozenset(), kw_only=True, compare=False)

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
class SetConstraints(Statement):
    """``SET CONSTRAINTS { ALL | name [, ...] } { DEFERRED | IMMEDIATE }``; ``names`` None: ALL
    (each name a TableName: a constraint's name may be schema-qualified)."""

    names: tuple[TableName, ...] | None = None
    deferred: bool = False
    touches_data = False
    needs_block = True


@dataclass(frozen=True)
class SetVariable(Statement):
    name: str = ""
    value: str | None = None  # None: DEFAULT / RESET
    local: bool = False
    #: written as ``SELECT [pg_catalog.]set_config('name', 'value', is_local)`` (pg_dump's
    #: scripts do): its result is a row holding the new value
    function: bool = False

    @property
    def needs_block(self) -> bool:  # (SET LOCAL: psycopg would have sent BEGIN first)
        return self.local
    touches_data = False


@dataclass(frozen=True)
class NoEffect(Statement):
    """A statement pg_dump writes that means nothing where there are no roles, privileges or
    comments: ``ALTER ... OWNER TO``, ``COMMENT ON``, ``GRANT``, ``REVOKE``, ``ALTER DEFAULT
    PRIVILEGES``. It is accepted and changes nothing; ``tag`` is its command tag, ``notice``
    what it tells (None: nothing)."""
    tag: str = ""
    notice: str | None = None
    touches_data = False


@dataclass(frozen=True)
class Comment(Statement):
    """``COMMENT ON kind ... IS 'comment'``: ``kind`` TABLE, VIEW or SEQUENCE (``target`` the
    relation), INDEX (``target`` the index), COLUMN (``name`` of ``target``) or CONSTRAINT
    (``name`` on ``target``); ``comment`` None (IS NULL): the comment removed."""
    kind: str = ""
    target: TableName = TableName(None, "")
    name: str | None = None
    comment: str | None = None


@dataclass(frozen=True)
class Show(Statement):
    name: str = ""
    touches_data = False


@dataclass(frozen=True)
class PrepareTransaction(Statement):
    gid: str = ""
    touches_data = False


@dataclass(frozen=True)
class Prepare(Statement):
    """``PREPARE name [(type, ...)] AS statement``: ``text`` is the statement, its parameters
    ``$n`` at ``params`` - (start, end, n) spans of the text, n from 1 - and ``types`` the
    declared types' SQL (engine/session.py keeps it for the session, as PostgreSQL does)."""
    name: str = ""
    statement: str = ""
    params: tuple[tuple[int, int, int], ...] = ()
    types: tuple[str, ...] = ()
    touches_data = False


@dataclass(frozen=True)
class Execute(Statement):
    """``EXECUTE name [(value, ...)]``: each value as the text it was written in, and how many
    ``?`` each holds (the DB-API's parameters of EXECUTE go to the values holding them)."""
    name: str = ""
    args: tuple[str, ...] = ()
    arg_params: tuple[int, ...] = ()


@dataclass(frozen=True)
class Deallocate(Statement):
    """``DEALLOCATE [PREPARE] name | ALL`` (``name`` None: all)."""
    name: str | None = None
    touches_data = False


@dataclass(frozen=True)
class Discard(Statement):
    """``DISCARD ALL | PLANS | SEQUENCES | TEMP``: a session's state dropped (``what``). The
    DB-API opens a transaction block for it, as psycopg does - where DISCARD ALL is then 25001."""
    what: str = "ALL"


@dataclass(frozen=True)
class Listen(Statement):
    """``LISTEN channel`` (engine/notify.py): heard from when its transaction commits."""
    channel: str = ""


@dataclass(frozen=True)
class Unlisten(Statement):
    """``UNLISTEN channel | *`` (``channel`` None: every channel)."""
    channel: str | None = None


@dataclass(frozen=True)
class Notify(Statement):
    """``NOTIFY channel [, 'payload']``: sent to the channel's listeners when its transaction commits."""
    channel: str = ""
    payload: str = ""


@dataclass(frozen=True)
class CommitPrepared(Statement):
    gid: str = ""
    touches_data = False


@dataclass(frozen=True)
class RollbackPrepared(Statement):
    gid: str = ""
    touches_data = False


@dataclass(frozen=True)
class Do(Statement):
    """``DO [LANGUAGE plpgsql] $$ code $$``: an anonymous PL/pgSQL block (engine/plpgsql.py),
    run in the transaction open - or, with none, as one of its own."""

    code: str = ""
    language: str = "plpgsql"


@dataclass(frozen=True)
class Call(Statement):
    """``CALL txlake.procedure(args, name => value)``: maintenance procedures."""

    procedure: str = ""
    args: tuple[exp.Expression, ...] = ()
    kwargs: tuple[tuple[str, exp.Expression], ...] = ()
    touches_data = False


@dataclass(frozen=True)
class ProcedureArguments(Statement):
    """The procedure a user's ``CALL`` (``call``) calls and its arguments in its parameters'
    order (engine/functions.py ``procedure_arguments``): the first step of running it."""

    call: Call = None  # type: ignore[assignment]
    touches_data = False


@dataclass(frozen=True)
class Vacuum(Statement):
    """``VACUUM [FULL] [...] [tables]``: the tables' files compacted, their deleted rows dropped
    (``CALL txlake.compact``); ``ANALYZE [tables]`` (``analyze``): the tables named exist -
    DuckDB plans with the statistics each Parquet file holds from when it was written."""

    tables: tuple[TableName, ...] = ()
    analyze: bool = False
    touches_data = False


# --- DDL --------------------------------------------------------------------------------

@dataclass(frozen=True)
class ColumnSpec:
    name: str
    type: exp.DataType
    not_null: bool = False
    default: exp.Expression | None = None
    primary_key: bool = False
    #: SERIAL / GENERATED BY DEFAULT AS IDENTITY: the name of the sequence its default takes
    #: numbers from (storage/sequences.py), made with the table
    sequence: str | None = None
    always: bool = False  # GENERATED ALWAYS AS IDENTITY: values given are refused (storage/schema.py)
    by_default: bool = False  # GENERATED BY DEFAULT AS IDENTITY
    #: an identity column's sequence options, as CREATE SEQUENCE's (``START WITH 10``)
    sequence_options: tuple[tuple[str, object], ...] = ()
    #: the CHECK, UNIQUE and REFERENCES constraints written on the column
    constraints: tuple["ConstraintSpec", ...] = ()
    #: ``GENERATED ALWAYS AS (expression) STORED``: the expression as written (engine/generated.py)
    generated: exp.Expression | None = None


@dataclass(frozen=True)
class CheckSpec:
    """``[CONSTRAINT name] CHECK (expression) [NO INHERIT]``; ``column``: the column it was
    written on (a column constraint), which its default name takes."""

    name: str | None
    expression: exp.Expression
    column: str | None = None


@dataclass(frozen=True)
class UniqueSpec:
    """``[CONSTRAINT name] UNIQUE [NULLS [NOT] DISTINCT] (columns)`` (or on a column)."""

    name: str | None
    columns: tuple[str, ...]
    nulls_not_distinct: bool = False
    deferrable: bool = False  # DEFERRABLE (or INITIALLY DEFERRED)
    initially_deferred: bool = False


@dataclass(frozen=True)
class ForeignKeySpec:
    """``[CONSTRAINT name] FOREIGN KEY (columns) REFERENCES table [(ref_columns)] [MATCH FULL |
    SIMPLE] [ON DELETE action] [ON UPDATE action]`` (or ``REFERENCES`` on a column);
    ``ref_columns`` empty: the referenced table's primary key. Actions: NO ACTION, RESTRICT,
    CASCADE, SET NULL, SET DEFAULT; ``delete_set_columns``: ``ON DELETE SET NULL (b)``'s
    columns (empty: all of ``columns``)."""

    name: str | None
    columns: tuple[str, ...]
    table: TableName
    ref_columns: tuple[str, ...] = ()
    on_delete: str = "NO ACTION"
    on_update: str = "NO ACTION"
    match_full: bool = False
    delete_set_columns: tuple[str, ...] = ()
    deferrable: bool = False  # DEFERRABLE (or INITIALLY DEFERRED)
    initially_deferred: bool = False


ConstraintSpec = CheckSpec | UniqueSpec | ForeignKeySpec


#: what CREATE TABLE's ``LIKE`` may copy (PostgreSQL's ``INCLUDING`` options; ALL is every one)
LIKE_OPTIONS = ("COMMENTS", "COMPRESSION", "CONSTRAINTS", "DEFAULTS", "GENERATED", "IDENTITY", "INDEXES",
                "STATISTICS", "STORAGE")


@dataclass(frozen=True)
class LikeSpec:
    """CREATE TABLE's ``LIKE source [{INCLUDING | EXCLUDING} option] ...``, among its columns
    (engine/table_like.py): ``including``, the options in force after the clause's last word."""

    table: TableName
    including: frozenset[str] = frozenset()


@dataclass(frozen=True)
class PrimaryKeySpec:
    """``ALTER TABLE ... ADD [CONSTRAINT name] PRIMARY KEY (columns)`` (CREATE TABLE's primary
    key is ``CreateTable.primary_key``)."""

    name: str | None
    columns: tuple[str, ...]


@dataclass(frozen=True)
class CreateTable(Statement):
    table: TableName
    columns: tuple[ColumnSpec | LikeSpec, ...] = ()  # (LIKE's, expanded when the statement runs)
    primary_key: tuple[str, ...] = ()
    if_not_exists: bool = False
    as_query: exp.Query | None = None
    as_names: tuple[str, ...] = ()   # CREATE TABLE t (a, b) AS ...: the first columns' names
    with_no_data: bool = False       # CREATE TABLE t AS ... WITH NO DATA
    #: CHECK, UNIQUE and FOREIGN KEY constraints, of the columns and the table, in the order written
    constraints: tuple[ConstraintSpec, ...] = ()
    primary_key_name: str | None = None  # CONSTRAINT name PRIMARY KEY (None: <table>_pkey)
    #: CREATE TEMP TABLE: the session's own table (engine/temp_tables.py); ``on_commit`` what
    #: COMMIT does to it: PRESERVE ROWS, DELETE ROWS or DROP
    temporary: bool = False
    on_commit: str = "PRESERVE ROWS"
    #: ``PARTITION BY ...``: a partitioned table (engine/partitions.py), or a partition that is one
    partition_by: "PartitionKeySpec | None" = None
    #: ``PARTITION OF parent {FOR VALUES ... | DEFAULT}``: a partition of ``partition_of``,
    #: its columns the parent's
    partition_of: TableName | None = None
    bound: "PartitionBoundSpec | None" = None


@dataclass(frozen=True)
class PartitionKeySpec:
    """``PARTITION BY {RANGE | LIST | HASH} (column [, ...])``: ``strategy`` range, list or hash."""
    strategy: str
    columns: tuple[str, ...]


@dataclass(frozen=True)
class PartitionBoundSpec:
    """A partition's bound as written: ``kind`` range (``lower`` and ``upper``, each value an
    expression or the string MINVALUE / MAXVALUE), list (``values``), hash (``modulus``,
    ``remainder``) or default."""
    kind: str
    lower: tuple = ()
    upper: tuple = ()
    values: tuple = ()
    modulus: int = 0
    remainder: int = 0


@dataclass(frozen=True)
class CreateIndex(Statement):
    """``CREATE [UNIQUE] INDEX [CONCURRENTLY] [IF NOT EXISTS] [name] ON table [USING method]
    (columns) [NULLS [NOT] DISTINCT] [WHERE predicate]`` (engine/uniques.py, engine/indexes.py);
    an index of expressions or with a WHERE (engine/index_expressions.py) has its key elements
    in ``items`` and no ``columns``."""
    table: TableName
    columns: tuple[str, ...]
    name: str | None = None
    if_not_exists: bool = False
    unique: bool = True
    method: str = "btree"
    nulls_not_distinct: bool = False
    items: tuple[exp.Expression, ...] = ()
    where: exp.Expression | None = None
    concurrently: bool = False  # (25001 inside a transaction block; else as without it)
    include: tuple[str, ...] = ()  # INCLUDE (columns): checked, no part of the key


@dataclass(frozen=True)
class AlterIndex(Statement):
    """``ALTER INDEX [IF EXISTS] name RENAME TO new``, or ``ALTER INDEX name ATTACH PARTITION
    partition_index`` (``attach``: a partition's key made part of its parent's, as pg_dump writes)."""
    index: TableName
    new: TableName | None = None
    if_exists: bool = False
    attach: TableName | None = None


@dataclass(frozen=True)
class DropIndex(Statement):
    """``DROP INDEX [IF EXISTS] name [, ...] [CASCADE | RESTRICT]``."""
    indexes: tuple[TableName, ...]
    if_exists: bool = False
    cascade: bool = False  # (the foreign keys referencing a unique index go too)
    concurrently: bool = False  # (25001 inside a transaction block; else as without it)


@dataclass(frozen=True)
class DropTable(Statement):
    tables: tuple[TableName, ...] = ()
    if_exists: bool = False
    cascade: bool = False  # DROP TABLE ... CASCADE: the views reading them go too


@dataclass(frozen=True)
class CreateSequence(Statement):
    """``CREATE SEQUENCE [IF NOT EXISTS] name [options]``: ``options`` (name, value) pairs, as
    parser/dialect.py ``SequenceCommand`` reads them, each named once."""

    sequence: TableName
    options: tuple[tuple[str, object], ...] = ()
    if_not_exists: bool = False


@dataclass(frozen=True)
class AlterSequence(Statement):
    sequence: TableName
    options: tuple[tuple[str, object], ...] = ()
    if_exists: bool = False


@dataclass(frozen=True)
class DropSequence(Statement):
    sequences: tuple[TableName, ...] = ()
    if_exists: bool = False
    cascade: bool = False


@dataclass(frozen=True)
class FunctionParameter:
    """An argument of a function: ``name`` ("" for none), its type, its DEFAULT (or None)."""

    name: str
    type: exp.DataType
    default: exp.Expression | None = None


@dataclass(frozen=True)
class CreateFunction(Statement):
    """``CREATE [OR REPLACE] FUNCTION name (params) RETURNS type ... AS 'body' | RETURN e |
    BEGIN ATOMIC ... END``: ``body`` as written (a string body's text, or the standard
    body's words), ``standard`` whether it is a SQL-standard one; ``returns`` None with
    ``table`` (RETURNS TABLE's columns); ``volatility`` IMMUTABLE / STABLE / VOLATILE;
    ``options`` the attributes txlake keeps as written only."""

    name: TableName
    params: tuple[FunctionParameter, ...] = ()
    returns: exp.DataType | None = None
    setof: bool = False
    table: tuple[tuple[str, exp.DataType], ...] = ()
    language: str = "sql"
    volatility: str = "VOLATILE"
    strict: bool = False
    options: tuple[str, ...] = ()
    body: str = ""
    standard: bool = False
    or_replace: bool = False
    procedure: bool = False  # CREATE PROCEDURE's
    modes: tuple[str, ...] = ()  # each parameter's IN / OUT / INOUT, where one is not IN


@dataclass(frozen=True)
class DropFunction(Statement):
    """``DROP FUNCTION [IF EXISTS] name [(types)] [, ...] [CASCADE | RESTRICT]``: each
    function's name and argument types (None: not written - the name must be unique)."""

    functions: tuple[tuple[TableName, tuple[exp.DataType, ...] | None], ...] = ()
    if_exists: bool = False
    cascade: bool = False
    procedure: bool = False  # DROP PROCEDURE's


@dataclass(frozen=True)
class CreateTrigger(Statement):
    """``CREATE [OR REPLACE] TRIGGER name {BEFORE | AFTER} event [OR ...] ON table [FOR [EACH]
    {ROW | STATEMENT}] [REFERENCING {OLD | NEW} TABLE [AS] name ...] [WHEN (condition)] EXECUTE
    {FUNCTION | PROCEDURE} f(args)``: ``events``
    INSERT / UPDATE / DELETE / TRUNCATE, ``columns`` UPDATE OF's, ``when`` the condition as
    written (SQL text), ``args`` the arguments' texts."""

    name: str
    table: TableName
    timing: str
    events: tuple[str, ...]
    function: TableName
    columns: tuple[str, ...] = ()
    row: bool = False
    when: str | None = None
    args: tuple[str, ...] = ()
    or_replace: bool = False
    old_table: str | None = None  # REFERENCING OLD TABLE AS ...
    new_table: str | None = None  # REFERENCING NEW TABLE AS ...


@dataclass(frozen=True)
class InsteadOfWrite(Statement):
    """An INSERT, UPDATE or DELETE of a view that INSTEAD OF triggers do (engine/triggers.py
    ``instead_of``): made by engine/views.py's expansion, never parsed."""

    write: Statement = None  # type: ignore[assignment]
    batchable = False  # (executemany: a statement per parameter set)


@dataclass(frozen=True)
class DropTrigger(Statement):
    """``DROP TRIGGER [IF EXISTS] name ON table [CASCADE | RESTRICT]``."""

    name: str
    table: TableName
    if_exists: bool = False
    cascade: bool = False


@dataclass(frozen=True)
class AlterTrigger(Statement):
    """``ALTER TRIGGER name ON table RENAME TO new`` (``new``), or ALTER TABLE's ``{ENABLE |
    DISABLE} TRIGGER {name | ALL | USER}`` (``enable`` True / False; ``name`` None: ALL or USER)."""

    table: TableName
    name: str | None = None
    new: str | None = None
    enable: bool | None = None


@dataclass(frozen=True)
class CreatePolicy(Statement):
    """``CREATE POLICY name ON table [AS {PERMISSIVE | RESTRICTIVE}] [FOR command] [TO role [,
    ...]] [USING (e)] [WITH CHECK (e)]``: ``roles`` as written (empty: PUBLIC), ``using`` /
    ``check`` the expressions (None: not written)."""

    name: str
    table: TableName
    permissive: bool = True
    command: str = "ALL"
    roles: tuple[str, ...] = ()
    using: exp.Expression | None = None
    check: exp.Expression | None = None


@dataclass(frozen=True)
class AlterPolicy(Statement):
    """``ALTER POLICY name ON table RENAME TO new`` (``new``), or ``ALTER POLICY name ON table [TO
    role [, ...]] [USING (e)] [WITH CHECK (e)]`` (what is not written: None, kept)."""

    name: str
    table: TableName
    new: str | None = None
    roles: tuple[str, ...] | None = None
    using: exp.Expression | None = None
    check: exp.Expression | None = None


@dataclass(frozen=True)
class DropPolicy(Statement):
    """``DROP POLICY [IF EXISTS] name ON table [CASCADE | RESTRICT]``."""

    name: str
    table: TableName
    if_exists: bool = False
    cascade: bool = False


@dataclass(frozen=True)
class AlterRowSecurity(Statement):
    """ALTER TABLE's ``{ENABLE | DISABLE} ROW LEVEL SECURITY`` (``enable``) and ``[NO] FORCE ROW
    LEVEL SECURITY`` (``force``); None: not written."""

    table: TableName
    enable: bool | None = None
    force: bool | None = None


@dataclass(frozen=True)
class CreateType(Statement):
    """``CREATE TYPE name AS ENUM (labels)``, ``CREATE TYPE name AS (attributes)`` (a composite
    type: ``attributes`` its (name, type)s, ``composite``), or ``CREATE DOMAIN name [AS] base
    [DEFAULT e] [[CONSTRAINT c] NOT NULL | NULL | CHECK (e)]...`` (``base`` not None)."""

    name: TableName
    labels: tuple[str, ...] = ()
    attributes: tuple[tuple[str, exp.DataType], ...] = ()
    composite: bool = False
    base: exp.DataType | None = None
    default: exp.Expression | None = None
    not_null: bool = False
    checks: tuple["CheckSpec", ...] = ()


@dataclass(frozen=True)
class AlterType(Statement):
    """``ALTER TYPE`` / ``ALTER DOMAIN name action``: ``action`` as parser/dialect.py's
    TypeCommand names it; ``labels`` ADD VALUE's one or RENAME VALUE's (old, new); ``target``
    BEFORE / AFTER's label (``after``), RENAME TO's name or DROP CONSTRAINT's;
    ``exists`` IF [NOT] EXISTS."""

    name: TableName
    domain: bool
    action: str
    labels: tuple[str, ...] = ()
    attributes: tuple[tuple[str, exp.DataType], ...] = ()  # ADD ATTRIBUTE's one
    target: str | None = None
    after: bool = False
    exists: bool = False
    default: exp.Expression | None = None
    check: "CheckSpec | None" = None
    validate: bool = True


@dataclass(frozen=True)
class DropType(Statement):
    names: tuple[TableName, ...]
    domain: bool = False
    if_exists: bool = False
    cascade: bool = False


@dataclass(frozen=True)
class CreateView(Statement):
    """``CREATE [OR REPLACE] [[LOCAL] TEMP | TEMPORARY] VIEW name [(columns)] AS query``."""

    view: TableName
    query: exp.Query             # as the engine runs it (parser/semantics.py applied)
    written: exp.Query           # as written: what the view stores, its table names qualified
    columns: tuple[str, ...] = ()
    or_replace: bool = False
    temporary: bool = False      # the session's own (engine/temp_tables.py)


@dataclass(frozen=True)
class DropView(Statement):
    views: tuple[TableName, ...] = ()
    if_exists: bool = False
    cascade: bool = False
    materialized: bool = False  # DROP MATERIALIZED VIEW


@dataclass(frozen=True)
class CreateMatview(Statement):
    """``CREATE MATERIALIZED VIEW [IF NOT EXISTS] name [(columns)] AS query [WITH [NO] DATA]``
    (engine/matviews.py)."""

    view: TableName
    query: exp.Query             # as the engine runs it (parser/semantics.py applied)
    written: exp.Query           # as written: what the materialized view stores, its table names qualified
    columns: tuple[str, ...] = ()
    if_not_exists: bool = False
    with_no_data: bool = False


@dataclass(frozen=True)
class RefreshMatview(Statement):
    """``REFRESH MATERIALIZED VIEW [CONCURRENTLY] name [WITH [NO] DATA]`` (engine/matviews.py)."""

    view: TableName
    concurrently: bool = False
    with_no_data: bool = False


@dataclass(frozen=True)
class AlterView(Statement):
    """``ALTER VIEW [IF EXISTS] name RENAME TO new`` or ``RENAME [COLUMN] a TO b`` (also as
    ALTER TABLE of a view)."""

    view: TableName
    new: TableName | None = None
    column: tuple[str, str] | None = None  # RENAME COLUMN: (old, new)
    if_exists: bool = False


@dataclass(frozen=True)
class CreateSchema(Statement):
    name: str        # as written (for messages)
    db: str          # the database it is (schema_database)
    if_not_exists: bool = False


@dataclass(frozen=True)
class DropSchema(Statement):
    name: str
    db: str
    if_exists: bool = False
    cascade: bool = False


@dataclass(frozen=True)
class Truncate(Statement):
    tables: tuple[TableName, ...] = ()
    restart_identity: bool = False  # RESTART IDENTITY
    cascade: bool = False  # CASCADE: the tables referencing them by foreign keys too


@dataclass(frozen=True)
class AddColumn:
    column: ColumnSpec
    if_not_exists: bool = False


@dataclass(frozen=True)
class DropColumn:
    name: str
    if_exists: bool = False
    cascade: bool = False  # DROP COLUMN ... CASCADE: the views using it go too


@dataclass(frozen=True)
class RenameColumn:
    old: str
    new: str


@dataclass(frozen=True)
class AlterColumn:
    """``ALTER [COLUMN] name SET DEFAULT x | DROP DEFAULT | SET NOT NULL | DROP NOT NULL |
    [SET DATA] TYPE t [USING expr]``."""
    name: str
    default: exp.Expression | None = None  # SET DEFAULT x
    drop_default: bool = False
    not_null: bool | None = None           # SET NOT NULL: True, DROP NOT NULL: False
    type: exp.DataType | None = None       # TYPE t
    using: exp.Expression | None = None    # ... USING expr
    restart: int | bool | None = None      # an identity column's RESTART [WITH n] (True: its start)
    #: ADD GENERATED { ALWAYS | BY DEFAULT } AS IDENTITY [(options)]: the column as an identity
    #: column's ColumnSpec says it (its ``sequence``, ``always`` / ``by_default``, ``sequence_options``)
    add_identity: "ColumnSpec | None" = None
    #: DROP EXPRESSION [IF EXISTS] of a generated column: a plain one, keeping its values
    drop_expression: bool = False
    if_exists: bool = False


@dataclass(frozen=True)
class AddConstraint:
    """``ADD [CONSTRAINT name] CHECK (...) | UNIQUE (...) | FOREIGN KEY (...) ... [NOT VALID]``."""
    constraint: ConstraintSpec
    not_valid: bool = False


@dataclass(frozen=True)
class DropConstraint:
    """``DROP CONSTRAINT [IF EXISTS] name [CASCADE | RESTRICT]``."""
    name: str
    if_exists: bool = False
    cascade: bool = False


@dataclass(frozen=True)
class ValidateConstraint:
    """``VALIDATE CONSTRAINT name``: a NOT VALID constraint checked against every row."""
    name: str


@dataclass(frozen=True)
class RenameTable:
    new: TableName


@dataclass(frozen=True)
class AttachPartition:
    """``ATTACH PARTITION partition {FOR VALUES ... | DEFAULT}`` (engine/partitions.py)."""
    partition: TableName
    bound: PartitionBoundSpec


@dataclass(frozen=True)
class DetachPartition:
    """``DETACH PARTITION partition [CONCURRENTLY | FINALIZE]``."""
    partition: TableName


@dataclass(frozen=True)
class RenameConstraint:
    old: str
    new: str


@dataclass(frozen=True)
class AlterTable(Statement):
    table: TableName
    actions: tuple[AddColumn | DropColumn | RenameColumn | AlterColumn | AddConstraint | DropConstraint
                   | ValidateConstraint | RenameTable | RenameConstraint | AttachPartition | DetachPartition, ...] = ()
    only: bool = False  # ALTER TABLE ONLY
    if_exists: bool = False
    matview: bool = False  # ALTER MATERIALIZED VIEW (RENAME TO, RENAME COLUMN)
    #: a partitioned table's column change, as engine/partitions.py makes it of each partition
    inherited: bool = False


@dataclass(frozen=True)
class LockTable(Statement):
    """``LOCK [TABLE] [ONLY] name [, ...] [IN mode MODE] [NOWAIT]``: ``mode`` as PostgreSQL
    names it (ACCESS SHARE ... ACCESS EXCLUSIVE, the default)."""
    tables: tuple[TableName, ...] = ()
    mode: str = "ACCESS EXCLUSIVE"
    nowait: bool = False


# --- DML and queries --------------------------------------------------------------------

@dataclass(frozen=True)
class OnConflict:
    """``ON CONFLICT [(cols)] DO NOTHING | DO UPDATE SET ... [WHERE ...]``."""

    columns: tuple[str, ...] = ()
    do_nothing: bool = True
    assignments: tuple[tuple[str, exp.Expression], ...] = ()
    where: exp.Expression | None = None
    defaults: tuple[str, ...] = ()  # the columns SET to DEFAULT
    constraint: str | None = None   # ON CONFLICT ON CONSTRAINT name (the primary key's: <table>_pkey)
    # ON CONFLICT ((expression), ...) [WHERE predicate]: the target's elements, when one is an
    # expression or there is a predicate (engine/index_expressions.py ``inferred``; no ``columns``)
    targets: tuple[exp.Expression, ...] = ()
    predicate: exp.Expression | None = None


@dataclass(frozen=True)
class Insert(Statement):
    table: TableName
    columns: tuple[str, ...] | None = None
    source: exp.Query | None = None        # VALUES or a query; None means DEFAULT VALUES
    on_conflict: OnConflict | None = None
    returning: tuple[exp.Expression, ...] = ()
    alias: str | None = None               # INSERT INTO t AS x: what ON CONFLICT DO UPDATE calls t
    #: OVERRIDING SYSTEM VALUE (values given to GENERATED ALWAYS identity columns are taken) or
    #: USER VALUE (values given to identity columns are ignored: numbered as by DEFAULT)
    overriding: str | None = None

    @property
    def batchable(self) -> bool:
        """An INSERT of VALUES without ON CONFLICT or RETURNING: the kind executemany may run as
        one batch (engine/executor.py ``insert_many``)."""
        return isinstance(self.source, exp.Values) and self.on_conflict is None and not self.returning


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
    #: the schemas ``schema.table.column`` names an unqualified ``table`` with (parser/semantics.py
    #: NAMED_SCHEMAS): it must be found in them
    named_schemas: frozenset[str] = frozenset()
    #: a subquery in WHERE or FROM has a locking clause (``... FOR UPDATE SKIP LOCKED``): its
    #: SELECT still holds it, and is run first (engine/executor.py ``_locking_subqueries_run``)
    locking: bool = False


@dataclass(frozen=True)
class UpdateSettings(Statement):
    """``UPDATE pg_settings SET setting = value [WHERE ...]``, which PostgreSQL's rule makes a
    ``set_config(name, value, false)`` of each row the WHERE picks (engine/session.py)."""

    setting: exp.Expression = None  # type: ignore[assignment]
    where: exp.Expression | None = None
    alias: str | None = None


@dataclass(frozen=True)
class Delete(Statement):
    table: TableName
    alias: str | None = None
    using: tuple[exp.Expression, ...] = ()
    where: exp.Expression | None = None
    returning: tuple[exp.Expression, ...] = ()
    named_schemas: frozenset[str] = frozenset()  # (as Update's)
    locking: bool = False  # (as Update's, in WHERE or USING)


@dataclass(frozen=True)
class Query(Statement):
    """Anything DuckDB can run that only reads: SELECT, WITH, VALUES, set operations."""

    expression: exp.Expression = None  # type: ignore[assignment]
    #: a SELECT's locking clauses (``FOR UPDATE`` ...: sqlglot ``Lock`` nodes), taken off ``expression``
    locks: tuple = ()


@dataclass(frozen=True)
class DeclareCursor(Statement):
    """``DECLARE name [ASENSITIVE | INSENSITIVE] [[NO] SCROLL] CURSOR [{WITH | WITHOUT} HOLD] FOR
    query`` (engine/cursors.py): ``scroll`` False for NO SCROLL (else the cursor scrolls), its
    parameters the query's."""

    name: str = ""
    query: Query = None  # type: ignore[assignment]
    scroll: bool = True
    hold: bool = False


@dataclass(frozen=True)
class FetchCursor(Statement):
    """``FETCH`` (``move``: ``MOVE``) ``[direction] [FROM | IN] name``, its direction as
    PostgreSQL's grammar makes it: FORWARD, BACKWARD, ABSOLUTE or RELATIVE and a ``count``
    (None: ALL) - NEXT is FORWARD 1, PRIOR BACKWARD 1, FIRST ABSOLUTE 1, LAST ABSOLUTE -1."""

    name: str = ""
    direction: str = "FORWARD"
    count: int | None = 1
    move: bool = False
    touches_data = False
    needs_block = True  # (psycopg without autocommit sends BEGIN first)


@dataclass(frozen=True)
class CloseCursor(Statement):
    """``CLOSE name | ALL`` (``name`` None: all)."""

    name: str | None = None
    touches_data = False
    needs_block = True


@dataclass(frozen=True)
class Explain(Statement):
    """EXPLAIN [ANALYZE] of a query: how txlake runs it (a primary-key lookup, or DuckDB's plan)."""

    query: Query = None  # type: ignore[assignment]
    analyze: bool = False


@dataclass(frozen=True)
class CopyOptions:
    """COPY's options, checked as PostgreSQL checks them (parse.py ``_copy_options``), defaults filled in."""

    format: str = "text"           # text, csv or parquet
    delimiter: str = "\t"          # ',' for csv
    null: str = "\\N"              # '' for csv
    header: bool | str = False     # True, False or "match" (COPY FROM)
    quote: str = '"'               # csv
    escape: str = '"'              # csv: the quote unless given
    force_quote: tuple[str, ...] | str = ()     # COPY TO csv: these columns' values quoted ("*": all)
    force_not_null: tuple[str, ...] | str = ()  # COPY FROM csv: these columns' null string is a value
    force_null: tuple[str, ...] | str = ()      # COPY FROM csv: these columns' quoted null string is NULL
    encoding: str = "utf-8"


@dataclass(frozen=True)
class Copy(Statement):
    """``COPY table [(columns)] FROM 'file'`` or ``COPY table [(columns)] | (query) TO 'file'``."""

    table: TableName | None = None      # COPY FROM's target; COPY table TO's source
    columns: tuple[str, ...] | None = None
    query: Query | None = None          # COPY TO: what it writes (for a table, a SELECT of its columns)
    to: bool = False
    file: str | None = None             # None: STDIN / STDOUT
    options: CopyOptions = CopyOptions()
    where: exp.Expression | None = None  # COPY FROM ... WHERE: which of the file's rows are loaded


@dataclass(frozen=True)
class MergeAction:
    """One ``WHEN ... THEN`` clause of a MERGE. ``match``: ``MATCHED``, ``NOT MATCHED`` (by
    target: a source row no target row joins) or ``NOT MATCHED BY SOURCE`` (a target row no
    source row joins); ``kind``: ``UPDATE``, ``DELETE``, ``INSERT`` or ``NOTHING``."""

    match: str
    kind: str
    condition: exp.Expression | None = None
    assignments: tuple[tuple[str, exp.Expression], ...] = ()  # UPDATE SET
    defaults: tuple[str, ...] = ()                            # UPDATE SET c = DEFAULT
    columns: tuple[str, ...] | None = None                    # INSERT (cols)
    values: tuple[exp.Expression, ...] | None = None          # INSERT VALUES (...); None: DEFAULT VALUES
    overriding: str | None = None                              # INSERT OVERRIDING {SYSTEM | USER} VALUE


@dataclass(frozen=True)
class Merge(Statement):
    """``MERGE INTO table USING source ON condition WHEN ... [RETURNING ...]``. Every ``?`` in
    it carries the index of the parameter it takes (``PARAM_INDEX`` in its meta): a query the
    engine builds from several parts numbers them itself."""

    table: TableName
    alias: str | None = None
    source: exp.Expression = None  # type: ignore[assignment]  # a table or a subquery, aliased or not
    source_name: str = ""          # what the clauses call the source (its alias, or its table's name)
    on: exp.Expression = None  # type: ignore[assignment]
    actions: tuple[MergeAction, ...] = ()
    returning: tuple[exp.Expression, ...] = ()
    #: a join as the source (``USING a JOIN b ON ...``): the names of the relations joined. The
    #: source is then ``(SELECT * FROM a JOIN b ON ...) AS __txl_source``, and the clauses'
    #: ``a.x`` read its column "a.x" (engine/merge.py names the columns so)
    joined: tuple[str, ...] = ()


@dataclass(frozen=True)
class CteWrite:
    """A data-modifying CTE: ``name [(columns)] AS (INSERT / UPDATE / DELETE ... [RETURNING
    ...])``; what the statement's later parts read under ``name`` is its RETURNING rows
    (``returning`` False: it has none, and no later part names it)."""

    name: str
    statement: "Insert | Update | Delete"
    columns: tuple[str, ...] = ()
    returning: bool = False


@dataclass(frozen=True)
class WithWrites(Statement):
    """``WITH ... AS (INSERT / UPDATE / DELETE ...) [, ...] main``, ``main`` a SELECT, INSERT,
    UPDATE or DELETE (its plain CTEs kept: a query's in its WITH, a write's put where they are
    named): engine/with_writes.py runs each write once, in order, then ``main``, as one
    statement. Each part's ``param_order`` says which of the statement's parameters (in the
    text's order) it takes, in the order it binds them."""

    writes: tuple[CteWrite, ...] = ()
    main: "Query | Insert | Update | Delete" = None  # type: ignore[assignment]

    @property
    def parts(self) -> tuple[Statement, ...]:
        return (*(w.statement for w in self.writes), self.main)


def rewritten(value, change, skip: frozenset = frozenset({"written"})):
    """``value`` - an expression, a statement or a part of one (a dataclass), a tuple or list
    of them - with ``change`` applied to each expression in it; the object itself where
    nothing changed. A dataclass's fields named in ``skip`` are kept (a view's query as written
    is what it stores)."""
    if isinstance(value, exp.Expression):
        return change(value)
    if isinstance(value, (tuple, list)):
        parts = [rewritten(part, change, skip) for part in value]
        if all(new is old for new, old in zip(parts, value)):
            return value
        return type(value)(*parts) if hasattr(value, "_fields") else type(value)(parts)
    if is_dataclass(value) and not isinstance(value, type):
        changed = {f.name: new for f in fields(value) if f.init and f.name not in skip
                   and (new := rewritten(getattr(value, f.name), change, skip)) is not getattr(value, f.name)}
        return replace(value, **changed) if changed else value
    return value


#: the meta key of a MERGE's ``?``: which parameter it takes
PARAM_INDEX = "txlake_param_index"
