"""Sequences as catalog entries: CREATE / ALTER / DROP SEQUENCE, and the sequences SERIAL and
identity columns own.

A sequence is a catalog entry beside the tables and views (``TableVersion.is_sequence``: no
files; its schema holds a ``SequenceDefinition``), so CREATE, ALTER and DROP SEQUENCE are
transactional as in PostgreSQL: the transaction alone sees its new sequence until COMMIT, a
ROLLBACK undoes them, other processes see them once committed, and sequences share the
relations' namespace (42P07). Its numbers are not transactional (storage/sequences.py): a
file of its own, named by the entry's id, made before the entry is written. So a sequence
dropped and made again under its name - a table with a SERIAL column dropped and created
again - starts afresh, as PostgreSQL's new sequence does, and ``RESTART`` (ALTER SEQUENCE,
TRUNCATE ... RESTART IDENTITY, ALTER TABLE ... ALTER COLUMN ... RESTART) replaces the entry by
one with a new file: a ROLLBACK finds the old numbers where they were.

A SERIAL or identity column owns its sequence (``SequenceDefinition.owner``), as does the
column ``OWNED BY`` names: dropping the table or the column drops it. DROP SEQUENCE of a
sequence a column's default takes numbers from is 2BP01 (CASCADE drops the default; an
identity column's sequence cannot be dropped).
"""

from __future__ import annotations

import dataclasses
import uuid

from txlake import errors
from txlake.engine import catalog_views, dialect
from txlake.engine.executor import Context, Executor, Result, sequence_of
from txlake.engine.sequence_calls import qualified_name, sequence_key
from txlake.engine.temp_tables import TEMP_DB
from txlake.parser import statements as st
from txlake.storage.schema import SEQUENCE_TYPES, SequenceDefinition, TableSchema
from txlake.storage.sequences import Counter
from txlake.storage.version import TableVersion


# --- definitions ---------------------------------------------------------------------------

def definition(options, base: SequenceDefinition | None = None, type_: str = "bigint",
               owner: tuple[str, int] | None = None) -> tuple[SequenceDefinition, int | None]:
    """The sequence that ``options`` (CREATE / ALTER SEQUENCE's, checked by the parser) make of
    ``base`` (None: a new one of type ``type_``, owned by ``owner``), and the number a RESTART
    asks for (or None); 22023 for bounds that do not fit, with PostgreSQL's messages."""
    given = dict(options)
    kind = given.get("type", base.type if base else type_)
    low, high = SEQUENCE_TYPES[kind]
    increment = given.get("increment", base.increment if base else 1)
    if increment == 0:
        raise errors.InvalidParameterValue("INCREMENT must not be zero")

    def bound(option: str, up: int, down: int, old: int | None, old_type_bound: int | None) -> int:
        if given.get(option) is not None:
            return given[option]
        if option in given or base is None:  # (NO MINVALUE / NO MAXVALUE, or a new sequence)
            return up if increment > 0 else down
        return (low if option == "minvalue" else high) if old == old_type_bound and "type" in given else old

    old_low, old_high = SEQUENCE_TYPES[base.type] if base else (None, None)
    minimum = bound("minvalue", 1, low, base and base.minimum, old_low)
    maximum = bound("maxvalue", high, -1, base and base.maximum, old_high)
    for what, value in (("MINVALUE", minimum), ("MAXVALUE", maximum)):
        if not low <= value <= high:
            raise errors.InvalidParameterValue(f"{what} ({value}) is out of range for sequence data type {kind}")
    if minimum >= maximum:
        raise errors.InvalidParameterValue(f"MINVALUE ({minimum}) must be less than MAXVALUE ({maximum})")
    start = given.get("start", base.start if base else minimum if increment > 0 else maximum)
    _check_bound("START", start, minimum, maximum)
    restart = given.get("restart")
    if restart is True:
        restart = start
    if restart is not None:
        _check_bound("RESTART", restart, minimum, maximum)
    cache = given.get("cache", base.cache if base else 1)
    if cache < 1:
        raise errors.InvalidParameterValue(f"CACHE ({cache}) must be greater than zero")
    cycle = given.get("cycle", base.cycle if base else False)
    owner = given["owned_by"] if "owned_by" in given else base.owner if base else owner
    return SequenceDefinition(kind, start, increment, minimum, maximum, cache, cycle, owner), restart


def _with_owner(ctx: Context, options, db: str, sequence: TableVersion | None = None) -> tuple:
    """``options`` with OWNED BY's ``table.column`` made the (table id, field id) that owns the
    sequence (of database ``db``; ``sequence`` the one altered), checked as PostgreSQL checks it."""
    given = dict(options)
    if given.get("owned_by") is None:
        if "owned_by" in given and sequence is not None:
            _not_identity(ctx, sequence)
        return options
    if sequence is not None:
        _not_identity(ctx, sequence)
    name, column = given["owned_by"]
    table = ctx.resolve(name)
    if table.is_sequence or table.is_view:
        raise errors.WrongObjectType(f'sequence cannot be owned by relation "{table.name}"')
    if table.db != db:
        raise errors.ObjectNotInPrerequisiteState("sequence must be in same schema as table it is linked to")
    col = table.schema.column(column)
    if col is None:
        raise errors.UndefinedColumn(f'column "{column}" of relation "{table.name}" does not exist')
    return tuple((option, (table.table_id, col.field_id) if option == "owned_by" else value)
                 for option, value in options)


def _not_identity(ctx: Context, sequence: TableVersion) -> None:
    """0A000 for a sequence an identity column owns: OWNED BY may not move it."""
    owner = sequence.schema.sequence.owner
    for table in ctx.txn.tables(ctx.catalog) if owner is not None else ():
        col = next((c for c in table.schema.columns if c.field_id == owner[1]), None)
        if table.table_id == owner[0] and col is not None and col.identity is not None:
            raise errors.NotSupportedError(f"cannot change ownership of identity sequence\n"
                                           f'DETAIL:  Sequence "{sequence.name}" is linked to table "{table.name}".')


def _check_bound(what: str, value: int, minimum: int, maximum: int) -> None:
    if value < minimum:
        raise errors.InvalidParameterValue(f"{what} value ({value}) cannot be less than MINVALUE ({minimum})")
    if value > maximum:
        raise errors.InvalidParameterValue(f"{what} value ({value}) cannot be greater than MAXVALUE ({maximum})")


def make(ex: Executor, ctx: Context, db: str, name: str, made: SequenceDefinition,
         first: int | None = None) -> TableVersion:
    """Write a new sequence entry ``db.name`` in the transaction, its file made first (next
    number ``first``, else its start)."""
    version = TableVersion(uuid.uuid4().hex, db, name, TableSchema(0, (), sequence=made))
    ex.sequence_calls.sequences.create(Counter.of(version), made.start if first is None else first)
    ex._write(ctx, None, version, check_ssi=False)
    return version


def read_write(ctx: Context, what: str) -> None:
    if ctx.txn.read_only:
        raise errors.ReadOnlyTransaction(f"cannot execute {what} in a read-only transaction")


def new_entry_name(ctx: Context, name: st.TableName, temporary: str) -> tuple[str, str]:
    """(database, name) of the sequence or type ``name`` a CREATE makes: 42501 in a catalog
    schema, 0A000 (``temporary`` says what is not supported) in the temporary one."""
    db, name = name.qualified(ctx.db)
    if db in catalog_views.CATALOG_SCHEMAS:
        raise errors.ProgrammingError(f'permission denied to create "{db}.{name}"', sqlstate="42501")
    if db == TEMP_DB:
        raise errors.NotSupportedError(f"{temporary} are not supported")
    return db, name


# --- CREATE / ALTER / DROP SEQUENCE ---------------------------------------------------------

def create_sequence(ex: Executor, ctx: Context, stmt: st.CreateSequence, params) -> Result:
    read_write(ctx, "CREATE SEQUENCE")
    db, name = new_entry_name(ctx, stmt.sequence, "temporary sequences")
    if ex.name_taken(ctx, db, name):
        if stmt.if_not_exists:
            return Result(status="CREATE SEQUENCE", notice=f'relation "{name}" already exists, skipping')
        raise errors.DuplicateTable(f'relation "{name}" already exists')
    if any(option == "restart" for option, _ in stmt.options):
        raise errors.SyntaxError('syntax error at or near "RESTART"')
    made, _ = definition(_with_owner(ctx, stmt.options, db))
    make(ex, ctx, db, name, made)
    return Result(status="CREATE SEQUENCE")


def alter_sequence(ex: Executor, ctx: Context, stmt: st.AlterSequence, params) -> Result:
    version = ctx.altered(stmt.sequence, stmt.if_exists, "ALTER SEQUENCE")
    if isinstance(version, Result):
        return version
    if not version.is_sequence:
        raise errors.WrongObjectType(f'"{version.name}" is not a sequence')
    read_write(ctx, "ALTER SEQUENCE")
    if stmt.options and stmt.options[0][0] == "rename":
        from txlake.engine import renames  # (it builds on this module)
        return renames.rename_table(ex, ctx, version, stmt.options[0][1], "ALTER SEQUENCE")
    made, restart = definition(_with_owner(ctx, stmt.options, version.db, version), version.schema.sequence)
    if restart is not None:
        restarted(ex, ctx, version, made, restart)
    elif made != version.schema.sequence:
        schema = dataclasses.replace(version.schema, schema_id=version.schema.schema_id + 1, sequence=made)
        ex._write(ctx, version, dataclasses.replace(version, schema=schema, caches={}), check_ssi=False)
    return Result(status="ALTER SEQUENCE")


def restarted(ex: Executor, ctx: Context, version: TableVersion, made: SequenceDefinition | None = None,
              first: int | None = None) -> TableVersion:
    """The sequence ``version`` begun again at ``first`` (its start), transactionally: an entry
    of the same name with a file of its own replaces it."""
    made = made or version.schema.sequence
    ex._write(ctx, version, None, check_ssi=False)
    return make(ex, ctx, version.db, version.name, made, made.start if first is None else first)


def drop_sequence(ex: Executor, ctx: Context, stmt: st.DropSequence, params) -> Result:
    read_write(ctx, "DROP SEQUENCE")
    targets, notices = ex.dropped(ctx, stmt.sequences, stmt.if_exists, kind="sequence")
    users = {t.table_id: default_users(ctx, t) for t in targets}
    for sequence in targets:
        for table, col in users[sequence.table_id]:
            if col.always:
                raise errors.DependentObjectsStillExist(
                    f"cannot drop sequence {sequence.name} because column {col.name} of table {table.name} "
                    f"requires it\nHINT:  You can drop column {col.name} of table {table.name} instead.")
    found = [(s, t, c) for s in targets for t, c in users[s.table_id]]
    if found and not stmt.cascade:
        lines = "\n".join(f"default value for column {c.name} of table {t.name} depends on sequence {s.name}"
                          for s, t, c in found)
        raise errors.DependentObjectsStillExist(
            f"cannot drop sequence {found[0][0].name} because other objects depend on it\nDETAIL:  {lines}\n"
            "HINT:  Use DROP ... CASCADE to drop the dependent objects too.")
    for sequence, table, col in found:  # (CASCADE: the defaults go)
        ex.alter_table(ctx, st.AlterTable(table=st.TableName(table.db, table.name),
                                          actions=(st.AlterColumn(col.name, drop_default=True),)), ())
        notices.append(f"drop cascades to default value for column {col.name} of table {table.name}")
    for sequence in targets:
        ex._write(ctx, sequence, None, check_ssi=False)
    return Result(status="DROP SEQUENCE", notice="\n".join(notices) or None)


def default_users(ctx: Context, sequence: TableVersion) -> list:
    """(table, column) of each column whose default takes numbers from ``sequence``."""
    found = []
    for table in ctx.txn.tables(ctx.catalog):
        for col in table.schema.columns:
            named = sequence_of(col.default)
            if named is not None and sequence_key(named, table.db) == sequence.key:
                found.append((table, col))
    return found


# --- the sequences SERIAL and identity columns own ------------------------------------------

_COLUMN_SEQUENCE_TYPES = {"SMALLINT": "smallint", "INT": "integer", "BIGINT": "bigint"}


def make_owned(ex: Executor, ctx: Context, db: str, table_id: str, field_id: int, spec: st.ColumnSpec,
               kind: str, taken: set[str]) -> str:
    """Make the sequence a SERIAL or identity column (``spec``, of integer type ``kind``) owns,
    named as PostgreSQL names it (``t_c_seq``, or ``t_c_seq1``... when that is taken): the
    default that takes its numbers."""
    if kind not in _COLUMN_SEQUENCE_TYPES:
        raise errors.InvalidParameterValue("identity column type must be smallint, integer, or bigint")
    name, n = spec.sequence, 0
    while name in taken or ctx.txn.table(ctx.catalog, db, name) is not None:
        n += 1
        name = f"{spec.sequence}{n}"
    taken.add(name)
    made, _ = definition(spec.sequence_options, None, _COLUMN_SEQUENCE_TYPES[kind], (table_id, field_id))
    make(ex, ctx, db, name, made)
    return nextval_default(db, name)


def nextval_default(db: str, name: str) -> str:
    """The default of a column numbered by the sequence ``db.name``."""
    return f"nextval({dialect.sql_string(qualified_name(db, name))})"


def owned(ctx: Context, table_ids: set[str], field_id: int | None = None) -> list[TableVersion]:
    """The sequences owned by columns of ``table_ids`` (by column ``field_id`` only, if given)."""
    if not ctx.may_hold("sequence"):
        return []
    return [t for t in ctx.txn.tables(ctx.catalog) if t.is_sequence and t.schema.sequence.owner is not None
            and t.schema.sequence.owner[0] in table_ids
            and (field_id is None or t.schema.sequence.owner[1] == field_id)]


def drop_owned(ex: Executor, ctx: Context, table_ids: set[str], field_id: int | None = None) -> None:
    for sequence in owned(ctx, table_ids, field_id):
        ex._write(ctx, sequence, None, check_ssi=False)


def restart_owned(ex: Executor, ctx: Context, table: TableVersion, col, first: int | None = None) -> bool:
    """Begin the sequence column ``col`` of ``table`` owns again (at ``first``, else its start),
    transactionally; False if it owns none (a sequence from before sequences were entries)."""
    sequences = owned(ctx, {table.table_id}, col.field_id)
    for sequence in sequences:
        if first is not None:
            _check_bound("RESTART", first, sequence.schema.sequence.minimum, sequence.schema.sequence.maximum)
        restarted(ex, ctx, sequence, first=first)
    return bool(sequences)
