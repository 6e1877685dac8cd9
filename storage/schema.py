"""Column types and table schemas: immutable, with their Arrow, DuckDB and Paimon spellings.

A schema has an id that grows with every change (``schema/schema-N`` in the Paimon layout);
columns have stable field ids so that a rename keeps the column's identity.

A view is a catalog entry like a table, whose schema holds no columns of its own but a
``ViewDefinition``: it is created, replaced and dropped by the same log changes as a table
(CreateTable, ChangeData with a new schema, DropTable), so it is transactional, replayed,
checkpointed and seen by other processes exactly as a table's creation is. A sequence is one
too, its schema holding a ``SequenceDefinition`` (its numbers live in a file of their own:
storage/sequences.py), and so is a user-defined type (CREATE TYPE ... AS ENUM, CREATE DOMAIN),
its schema holding a ``TypeDefinition``. A column of such a type keeps its base type (an enum's
is text) for storage, so Parquet, Paimon and Spark read plain values; ``Column.user_type``
names the entry, and the table's schema carries the type's rules as ``domain_checks`` (derived
by engine/user_types.py, rewritten by every ALTER of the type), enforced with its CHECKs.

A materialized view is a table - its rows in Parquet files, published and read by other
engines as any table's - whose schema also holds a ``MatviewDefinition``: the query REFRESH
runs again, what it reads, and whether it holds rows.
"""

from __future__ import annotations

import functools
import re
import uuid
from dataclasses import dataclass, replace

import pyarrow as pa

from txlake import errors

KINDS = ("BOOLEAN", "SMALLINT", "INT", "BIGINT", "REAL", "DOUBLE", "DECIMAL", "VARCHAR", "BYTEA", "DATE", "TIME",
         "TIMESTAMP", "TIMESTAMPTZ", "UUID", "JSON", "JSONB", "INTERVAL", "INET", "CIDR")
DEFAULT_DECIMAL = (38, 9)  # a bare DECIMAL / NUMERIC (BigQuery's NUMERIC; DuckDB's is (18, 3))


@dataclass(frozen=True)
class ColumnType:
    kind: str
    precision: int | None = None
    scale: int | None = None
    length: int | None = None  # VARCHAR(n); None means unbounded (TEXT)
    #: CHAR(n) (PostgreSQL's bpchar): a VARCHAR(n) whose trailing spaces do not count. Stored
    #: without them (what a cast to text gives); a value comes out padded to n (engine/bpchar.py)
    blank_padded: bool = False
    #: ARRAY: the type of its elements, one of the scalar kinds (arrays are one-dimensional)
    element: "ColumnType | None" = None
    #: INTERVAL: the fields it holds (``DAY TO SECOND``, ``YEAR``; None: all), its seconds'
    #: digits in ``precision`` (None: 6) - a value is cut to them as it is stored
    fields: str | None = None

    def arrow(self) -> pa.DataType:
        return _ARROW[self.kind](self)

    def field(self, name: str) -> pa.Field:
        """The Arrow field of a column of this type: a UUID, JSON, JSONB or INTERVAL one is text whose
        field says which (``TEXT_TYPE_KEY``), so DuckDB gets it as that type (engine/sources.py)
        and a cursor fetches it as psycopg does (dbapi/)."""
        if self.kind in TEXT_TYPES:
            return pa.field(name, pa.string(), metadata={TEXT_TYPE_KEY: self.kind.encode()})
        return pa.field(name, self.arrow())

    def sql(self) -> str:
        """The DuckDB type name, as used in CAST."""
        if self.kind == "ARRAY":
            return self.element.sql() + "[]"
        if self.kind == "DECIMAL":
            return f"DECIMAL({self.precision},{self.scale})"
        if self.kind == "VARCHAR":
            return "VARCHAR"
        return _DUCKDB_NAMES.get(self.kind, self.kind)

    def display(self) -> str:
        """The PostgreSQL-style name shown to users."""
        if self.kind == "ARRAY":
            return self.element.display() + "[]"
        if self.kind == "DECIMAL":
            return f"DECIMAL({self.precision},{self.scale})"
        if self.kind == "VARCHAR" and self.blank_padded:
            return f"CHAR({self.length})"
        if self.kind == "VARCHAR":
            return f"VARCHAR({self.length})" if self.length else "TEXT"
        if self.kind == "INTERVAL":
            return "INTERVAL" + (f" {self.fields}" if self.fields else "") + \
                (f"({self.precision})" if self.precision is not None else "")
        return self.kind

    def paimon(self) -> str:
        if self.kind == "ARRAY":  # (storage/format/paimon.py writes it as Paimon's JSON object)
            return f"ARRAY<{self.element.paimon()}>"
        if self.kind == "DECIMAL":
            return f"DECIMAL({self.precision}, {self.scale})"
        if self.kind == "VARCHAR" and self.blank_padded:  # (Spark reads a CHAR(n) padded to n)
            return f"CHAR({self.length})"
        if self.kind == "VARCHAR":
            return f"VARCHAR({self.length})" if self.length else "STRING"
        return _PAIMON_NAMES.get(self.kind, self.kind)

    def to_json(self) -> str:
        return self.display()

    @staticmethod
    def from_json(text: str) -> "ColumnType":
        return parse_type_name(text)


_ARROW = {
    "BOOLEAN": lambda t: pa.bool_(),
    "SMALLINT": lambda t: pa.int16(),
    "INT": lambda t: pa.int32(),
    "BIGINT": lambda t: pa.int64(),
    "REAL": lambda t: pa.float32(),
    "DOUBLE": lambda t: pa.float64(),
    "DECIMAL": lambda t: pa.decimal128(t.precision, t.scale),
    "VARCHAR": lambda t: pa.string(),
    "BYTEA": lambda t: pa.binary(),
    "DATE": lambda t: pa.date32(),
    "TIME": lambda t: pa.time64("us"),  # (of day, without a zone)
    "TIMESTAMP": lambda t: pa.timestamp("us"),
    # an instant, kept in UTC; DuckDB shows and reads it in the session's TimeZone
    "TIMESTAMPTZ": lambda t: pa.timestamp("us", tz="UTC"),
    "ARRAY": lambda t: pa.list_(t.element.arrow()),
    # UUID: its canonical lower-case text; JSONB: its normalised text; JSON: its text as given.
    # Text in Parquet and Paimon (a STRING) is what other engines read sensibly; Paimon has no
    # UUID or JSON type. The txlake type is the table schema's (docs/storage.md)
    "UUID": lambda t: pa.string(),
    "JSON": lambda t: pa.string(),
    "JSONB": lambda t: pa.string(),
    # INTERVAL: PostgreSQL's text of it (IntervalStyle postgres: ``1 year 2 mons -3 days
    # +04:05:06``), which keeps its three parts apart (1 mon is not 30 days), reads back exactly
    # and is what PostgreSQL's input reads; Parquet has no interval of microseconds (Arrow's
    # month_day_nano_interval does not go into Parquet) and Paimon none at all
    "INTERVAL": lambda t: pa.string(),
    # INET, CIDR: PostgreSQL's text of the value (parser/inet_input.py), one text per value, so
    # keys and equality of the texts are the values'; Paimon and Parquet have no such type
    "INET": lambda t: pa.string(),
    "CIDR": lambda t: pa.string(),
}
# the kinds held as text, and the Arrow field metadata key that names them
TEXT_TYPES = ("UUID", "JSON", "JSONB", "INTERVAL", "INET", "CIDR")
TEXT_TYPE_KEY = b"txlake.type"
_DUCKDB_NAMES = {"INT": "INTEGER", "BYTEA": "BLOB", "JSONB": "JSON", "INET": "VARCHAR", "CIDR": "VARCHAR"}
# TIMESTAMP WITH LOCAL TIME ZONE is Paimon's instant (pypaimon reads it as timestamp[us, tz=UTC])
_PAIMON_NAMES = {"REAL": "FLOAT", "BYTEA": "BYTES", "TIME": "TIME(6)", "TIMESTAMP": "TIMESTAMP(6)",
                 "TIMESTAMPTZ": "TIMESTAMP(6) WITH LOCAL TIME ZONE", "UUID": "STRING", "JSON": "STRING",
                 "JSONB": "STRING", "INTERVAL": "STRING", "INET": "STRING", "CIDR": "STRING"}

# SQL spellings accepted in DDL -> kind
_ALIASES = {
    "BOOLEAN": "BOOLEAN", "BOOL": "BOOLEAN",
    # (a SMALLINT column of a warehouse older than the type was stored as INT: its schema says so)
    "SMALLINT": "SMALLINT", "INT2": "SMALLINT", "TINYINT": "SMALLINT",
    "INT": "INT", "INTEGER": "INT", "INT4": "INT",
    "BIGINT": "BIGINT", "INT8": "BIGINT", "LONG": "BIGINT",
    "DOUBLE": "DOUBLE", "DOUBLE PRECISION": "DOUBLE", "FLOAT": "DOUBLE", "FLOAT8": "DOUBLE",
    "REAL": "REAL", "FLOAT4": "REAL",
    "DECIMAL": "DECIMAL", "NUMERIC": "DECIMAL",
    "VARCHAR": "VARCHAR", "TEXT": "VARCHAR", "STRING": "VARCHAR", "CHAR VARYING": "VARCHAR",
    "CHARACTER VARYING": "VARCHAR",
    # CHAR(n) / CHARACTER(n) / BPCHAR(n): a blank-padded VARCHAR(n) (``ColumnType.blank_padded``);
    # CHAR alone is CHAR(1), as in PostgreSQL
    "CHAR": "VARCHAR", "CHARACTER": "VARCHAR", "BPCHAR": "VARCHAR", "NCHAR": "VARCHAR",
    "BYTEA": "BYTEA", "BLOB": "BYTEA", "VARBINARY": "BYTEA", "BINARY": "BYTEA",
    "DATE": "DATE",
    "TIME": "TIME", "TIME WITHOUT TIME ZONE": "TIME",
    "TIMESTAMP": "TIMESTAMP", "DATETIME": "TIMESTAMP", "TIMESTAMP WITHOUT TIME ZONE": "TIMESTAMP",
    "TIMESTAMPTZ": "TIMESTAMPTZ", "TIMESTAMP WITH TIME ZONE": "TIMESTAMPTZ",
    "UUID": "UUID", "JSON": "JSON", "JSONB": "JSONB", "INET": "INET", "CIDR": "CIDR",
}

_BLANK_PADDED = ("CHAR", "CHARACTER", "BPCHAR", "NCHAR")


def make_type(name: str, params: tuple[int, ...] = ()) -> ColumnType:
    if name.upper().startswith("INTERVAL ") or name.upper() == "INTERVAL":
        return _interval_type(" ".join(name.upper().split()[1:]) or None, params)
    kind = _ALIASES.get(name.upper())
    if kind is None:
        raise errors.NotSupportedError(f'type "{name.lower()}" is not supported')
    if kind == "DECIMAL":
        precision, scale = (params + DEFAULT_DECIMAL[len(params):]) if params else DEFAULT_DECIMAL
        if len(params) == 1:
            scale = 0
        if not 1 <= precision <= 38 or not 0 <= scale <= precision:
            raise errors.InvalidParameterValue(
                f"NUMERIC precision {precision} must be between 1 and 38, scale {scale} between 0 and precision")
        return ColumnType("DECIMAL", precision=precision, scale=scale)
    if kind == "VARCHAR":
        padded = name.upper() in _BLANK_PADDED
        if params and params[0] < 1:
            raise errors.InvalidParameterValue(f"length for type {'char' if padded else 'varchar'} must be at least 1")
        if padded:
            return ColumnType("VARCHAR", length=params[0] if params else 1, blank_padded=True)
        return ColumnType("VARCHAR", length=params[0] if params else None)
    return ColumnType(kind)


# PostgreSQL's interval types' fields (``interval day to second``)
INTERVAL_FIELDS = ("YEAR", "MONTH", "DAY", "HOUR", "MINUTE", "SECOND", "YEAR TO MONTH", "DAY TO HOUR",
                   "DAY TO MINUTE", "DAY TO SECOND", "HOUR TO MINUTE", "HOUR TO SECOND", "MINUTE TO SECOND")


def _interval_type(fields: str | None, params: tuple[int, ...]) -> ColumnType:
    """``interval``, ``interval(p)``, ``interval day to second``: PostgreSQL's (a precision above 6 is 6)."""
    if fields is not None and fields not in INTERVAL_FIELDS:
        raise errors.SyntaxError(f'syntax error at or near "{fields.split()[-1].lower()}"')
    if params and not 0 <= params[0]:
        raise errors.InvalidParameterValue(f"INTERVAL({params[0]}) precision must not be negative")
    if params and fields is not None and not fields.endswith("SECOND"):
        raise errors.SyntaxError('syntax error at or near "("')
    return ColumnType("INTERVAL", precision=min(params[0], 6) if params else None, fields=fields)


def array_of(element: ColumnType) -> ColumnType:
    """The type of one-dimensional arrays of ``element`` (``INT[]``, ``VARCHAR(10)[]``)."""
    if element.kind == "ARRAY":
        raise errors.NotSupportedError("multidimensional arrays are not supported")
    if element.kind in ("INTERVAL", "INET", "CIDR"):  # (held as their text: an array of them would need its own)
        raise errors.NotSupportedError(f"arrays of {element.kind.lower()} are not supported as column types")
    return ColumnType("ARRAY", element=element)


def parse_type_name(text: str) -> ColumnType:
    """Parse a stored type name such as ``DECIMAL(10,2)``, ``VARCHAR(20)`` or ``INT[]``."""
    if text.endswith("[]"):
        return array_of(parse_type_name(text[:-2]))
    name, _, rest = text.partition("(")
    params = tuple(int(p) for p in rest.rstrip(")").split(",")) if rest else ()
    return make_type(name.strip(), params)


def text_type(f: pa.Field) -> str | None:
    """The kind (UUID, JSON, JSONB) of a text field that holds one (``ColumnType.field``), else None."""
    kind = f.metadata.get(TEXT_TYPE_KEY) if f.metadata else None
    return kind.decode() if kind is not None else None


def type_from_field(f: pa.Field) -> ColumnType:
    """The column type for an Arrow field: its text type if it names one, else its Arrow type's."""
    kind = text_type(f)
    if kind == "ENUM":  # (an enum column as engine/sources.py hands it to DuckDB: text)
        return ColumnType("VARCHAR")
    return ColumnType(kind) if kind is not None else type_from_arrow(f.type)


def type_from_arrow(t: pa.DataType) -> ColumnType:
    """The column type for an Arrow type (CREATE TABLE AS, Spark writes)."""
    if pa.types.is_boolean(t):
        return ColumnType("BOOLEAN")
    if pa.types.is_integer(t):
        if t.bit_width <= 8 or pa.types.is_int16(t):
            return ColumnType("SMALLINT")
        return ColumnType("INT") if t.bit_width <= 32 and not (pa.types.is_uint32(t)) else ColumnType("BIGINT")
    if pa.types.is_floating(t):
        return ColumnType("DOUBLE" if pa.types.is_float64(t) else "REAL")
    if pa.types.is_decimal(t):
        return make_type("DECIMAL", (min(t.precision, 38), t.scale))
    if pa.types.is_string(t) or pa.types.is_large_string(t):
        return ColumnType("VARCHAR")
    if pa.types.is_binary(t) or pa.types.is_large_binary(t):
        return ColumnType("BYTEA")
    if pa.types.is_date(t):
        return ColumnType("DATE")
    if pa.types.is_time(t):
        return ColumnType("TIME")
    if pa.types.is_timestamp(t):
        return ColumnType("TIMESTAMPTZ" if t.tz is not None else "TIMESTAMP")
    if pa.types.is_null(t):
        return ColumnType("VARCHAR")
    if pa.types.is_list(t) or pa.types.is_large_list(t):
        return array_of(type_from_arrow(t.value_type))
    if pa.types.is_dictionary(t):  # (a DuckDB ENUM: its values' type)
        return type_from_arrow(t.value_type)
    raise errors.NotSupportedError(f"column type {t} is not supported")


@dataclass(frozen=True)
class Column:
    field_id: int
    name: str
    type: ColumnType
    not_null: bool = False
    default: str | None = None  # SQL text of the DEFAULT expression
    #: GENERATED ALWAYS AS IDENTITY: numbered by its default's sequence, and INSERT and UPDATE
    #: may not give it a value (428C9; COPY and Spark appends may, as PostgreSQL's COPY does)
    always: bool = False
    #: GENERATED BY DEFAULT AS IDENTITY: numbered so unless given a value (as a SERIAL; but
    #: INSERT ... OVERRIDING USER VALUE ignores the values given it). Columns made so before
    #: txlake told the two apart are SERIAL ones
    by_default: bool = False
    #: a column of a user-defined type (an enum or a domain): the type's catalog entry id
    #: (``type`` is its base: text for an enum); ``enum`` its labels then, in order, and
    #: ``type_version`` the schema id of the type's entry they were taken from (a commit whose
    #: table took them from a type another changed meanwhile is refused: storage/commit.py)
    user_type: str | None = None
    enum: tuple[str, ...] | None = None
    type_version: int | None = None
    #: ``GENERATED ALWAYS AS (expression) STORED``: the expression's SQL text over the row's other
    #: (not generated) columns, as a CHECK's is kept (engine/generated.py computes it on every
    #: write). Stored values like any column's: the Paimon schema has it as a plain column
    generated: str | None = None

    @property
    def identity(self) -> str | None:
        """information_schema's identity_generation: ALWAYS, BY DEFAULT, or None (no identity column)."""
        return "ALWAYS" if self.always else "BY DEFAULT" if self.by_default else None

    def to_json(self) -> dict:
        d = {"id": self.field_id, "name": self.name, "type": self.type.to_json(),
             "not_null": self.not_null, "default": self.default}
        if self.always:
            d["always"] = True
        if self.by_default:
            d["by_default"] = True
        if self.user_type is not None:  # (a reader before user types reads the base type)
            d["user_type"] = self.user_type
        if self.enum is not None:
            d["enum"] = list(self.enum)
        if self.type_version is not None:
            d["type_version"] = self.type_version
        if self.generated is not None:
            d["generated"] = self.generated
        return d

    @staticmethod
    def from_json(d: dict) -> "Column":
        enum = d.get("enum")
        return Column(d["id"], d["name"], ColumnType.from_json(d["type"]), d["not_null"], d.get("default"),
                      d.get("always", False), d.get("by_default", False), d.get("user_type"),
                      tuple(enum) if enum is not None else None, d.get("type_version"), d.get("generated"))


@dataclass(frozen=True)
class ViewDependency:
    """A table or view a view reads: by id (a table dropped and created again under the same
    name is another), with the columns the view uses and their types when it was made."""

    table_id: str
    db: str
    name: str
    columns: tuple[tuple[str, str], ...] = ()  # (name, type as ColumnType.display() or the view's)

    def to_json(self) -> dict:
        return {"id": self.table_id, "db": self.db, "name": self.name, "columns": [list(c) for c in self.columns]}

    @staticmethod
    def from_json(d: dict) -> "ViewDependency":
        return ViewDependency(d["id"], d["db"], d["name"], tuple(tuple(c) for c in d["columns"]))


@dataclass(frozen=True)
class ViewDefinition:
    """What a view is: its query (a SELECT whose table names are qualified as they resolved
    when the view was made - the search path then, not the reader's), its columns (names and
    types fixed then: ``*`` is expanded once, as PostgreSQL does) and what it reads."""

    query: str
    columns: tuple[tuple[str, str], ...]  # (name, type)
    depends: tuple[ViewDependency, ...] = ()

    @property
    def names(self) -> list[str]:
        return [name for name, _ in self.columns]

    def to_json(self) -> dict:
        return {"query": self.query, "columns": [list(c) for c in self.columns],
                "depends": [d.to_json() for d in self.depends]}

    @staticmethod
    def from_json(d: dict) -> "ViewDefinition":
        return ViewDefinition(d["query"], tuple(tuple(c) for c in d["columns"]),
                              tuple(ViewDependency.from_json(x) for x in d["depends"]))


@dataclass(frozen=True)
class MatviewDefinition:
    """What makes a table a materialized view: its query (stored as a view's is: table names
    qualified as they resolved when it was made), what it reads (its dependencies, as a
    view's), and whether it holds the query's rows (False after ``WITH NO DATA``: reading it
    is 55000 until a REFRESH). Its columns are the table's; REFRESH fills them by position."""

    query: str
    depends: tuple[ViewDependency, ...] = ()
    populated: bool = True

    def to_json(self) -> dict:
        return {"query": self.query, "depends": [d.to_json() for d in self.depends], "populated": self.populated}

    @staticmethod
    def from_json(d: dict) -> "MatviewDefinition":
        return MatviewDefinition(d["query"], tuple(ViewDependency.from_json(x) for x in d["depends"]), d["populated"])


# PostgreSQL 16's integer input (int2in, int4in, int8in): decimal digits, or 0x / 0o / 0b and
# hexadecimal, octal or binary digits, with single underscores between digits (and after the
# prefix); a sign; spaces around
INTEGER_INPUT = r"^\s*[+-]?(0[xX](_?[0-9a-fA-F])+|0[oO](_?[0-7])+|0[bB](_?[01])+|\d+(_\d+)*)\s*$"


def integer_input(text: str) -> int | None:
    """The integer ``text`` is as PostgreSQL's integer input reads it, or None if it is none."""
    if re.fullmatch(INTEGER_INPUT, text) is None:
        return None
    digits = text.strip().replace("_", "")
    sign = -1 if digits.startswith("-") else 1
    digits = digits.lstrip("+-")
    base = {"x": 16, "o": 8, "b": 2}.get(digits[1:2].lower(), 10) if len(digits) > 1 and digits[0] == "0" else 10
    return sign * int(digits[2:] if base != 10 else digits, base)


def array_input(text: str) -> list[str | None]:
    """The elements of PostgreSQL's text of a one-dimensional array (array_in): ``{1,NULL,"a b"}``
    is ``['1', None, 'a b']``, each still text for its element type's input. 0A000 for nested
    braces where the array is read at run time (a column's text: txlake's values there are
    one-dimensional; a constant's are read by ``array_input_nested``)."""
    elements = array_input_nested(text)
    if any(isinstance(e, list) for e in elements):
        raise errors.NotSupportedError(f'multidimensional arrays are not supported here: "{text}"')
    return elements


def array_input_nested(text: str) -> list:
    """PostgreSQL's text of an array of any dimensions (array_in): ``{{1,2},{3,NULL}}`` is
    ``[['1', '2'], ['3', None]]``, each element still text for its element type's input.
    Whitespace around elements is dropped; double quotes and backslashes quote; an unquoted NULL
    is NULL. 22P02 ``malformed array literal`` as PostgreSQL words it (sub-arrays of different
    dimensions too); 0A000 for dimension decorations (``[0:1]={1,2}``: txlake's start at 1)."""
    def malformed(detail: str):
        return errors.InvalidTextRepresentation(f'malformed array literal: "{text}"\nDETAIL:  {detail}')

    at, end = 0, len(text)

    def skip_space():
        nonlocal at
        while at < end and text[at].isspace():
            at += 1

    def element() -> str | None:
        nonlocal at
        if text[at] in ',}':
            raise malformed(f'Unexpected "{text[at]}" character.')
        chars, quoted, kept = [], text[at] == '"', 0  # kept: chars up to the last quoted or escaped one
        at += quoted
        while True:
            if at >= end:
                raise malformed("Unexpected end of input.")
            c = text[at]
            if c == "\\":
                if at + 1 >= end:
                    raise malformed("Unexpected end of input.")
                chars.append(text[at + 1])
                kept, at = len(chars), at + 2
            elif quoted and c == '"':
                at += 1
                break
            elif quoted:
                chars.append(c)
                at += 1
            elif c in ",}":
                break
            elif c in '"{':
                raise malformed(f'Unexpected "{c}" character.')
            else:
                chars.append(c)
                at += 1
        if quoted:
            skip_space()
            return "".join(chars)
        while len(chars) > kept and chars[-1].isspace():
            chars.pop()
        value = "".join(chars)
        return None if kept == 0 and value.upper() == "NULL" else value

    def braces() -> list:  # from after a "{" to after its "}"
        nonlocal at
        items: list = []
        skip_space()
        if text.startswith("}", at):
            at += 1
            return items
        while True:
            skip_space()
            if at >= end:
                raise malformed("Unexpected end of input.")
            if text[at] == "{":
                if items and not isinstance(items[-1], list):
                    raise malformed('Unexpected "{" character.')
                at += 1
                items.append(braces())
                skip_space()
            elif items and isinstance(items[-1], list):
                raise malformed("Unexpected array element.")
            else:
                items.append(element())
            if at >= end:
                raise malformed("Unexpected end of input.")
            if text[at] == "}":
                at += 1
                return items
            if text[at] != ",":
                raise malformed("Unexpected array element.")
            at += 1

    skip_space()
    if text.startswith("[", at):
        raise errors.NotSupportedError(f'array dimensions are not supported: "{text}"')
    if not text.startswith("{", at):
        raise malformed('Array value must start with "{" or dimension information.')
    at += 1
    elements = braces()
    skip_space()
    if at < end:
        raise malformed("Junk after closing right brace.")
    if array_shape(elements) is None:
        raise malformed("Multidimensional arrays must have sub-arrays with matching dimensions.")
    return elements


def array_shape(value: list) -> list[int] | None:
    """The lengths of a nested list's dimensions, PostgreSQL's dims (``[[1, 2], [3, 4]]``: [2, 2];
    an empty array has none), or None where it is not rectangular - sub-lists of different
    lengths, or a list beside an element."""
    if not value:
        return []
    nested = [isinstance(item, list) for item in value]
    if not any(nested):
        return [len(value)]
    shapes = [array_shape(item) if is_list else None for item, is_list in zip(value, nested)]
    if not all(nested) or any(shape != shapes[0] for shape in shapes) or shapes[0] in (None, []):
        return None
    return [len(value)] + shapes[0]


# PostgreSQL's uuid input (uuid_in): 32 hexadecimal digits, in either case, a hyphen allowed
# after any group of four, the whole in braces or not
_UUID_INPUT = re.compile(r"(\{)?[0-9a-fA-F]{4}(?:-?[0-9a-fA-F]{4}){7}(?(1)\})")


def uuid_text(value) -> str | None:
    """A uuid's canonical text (lower case, 8-4-4-4-12), from a ``uuid.UUID`` or a str in one of
    PostgreSQL's input forms; None for anything else."""
    if isinstance(value, uuid.UUID):
        return str(value)
    if type(value) is str and _UUID_INPUT.fullmatch(value):
        return str(uuid.UUID(value.strip("{}").replace("-", "")))
    return None


# a sequence's type -> the range of its values
SEQUENCE_TYPES = {"smallint": (-2 ** 15, 2 ** 15 - 1), "integer": (-2 ** 31, 2 ** 31 - 1),
                  "bigint": (-2 ** 63, 2 ** 63 - 1)}


@dataclass(frozen=True)
class SequenceDefinition:
    """What a sequence is (CREATE / ALTER SEQUENCE, or a SERIAL or identity column's): its
    type, bounds and step; ``owner`` is the (table id, field id) of the column that owns it
    (SERIAL, identity, ``OWNED BY``): the sequence goes when that column or table does."""

    type: str = "bigint"
    start: int = 1
    increment: int = 1
    minimum: int = 1
    maximum: int = 2 ** 63 - 1
    cache: int = 1
    cycle: bool = False
    owner: tuple[str, int] | None = None

    def to_json(self) -> dict:
        return {"type": self.type, "start": self.start, "increment": self.increment, "minimum": self.minimum,
                "maximum": self.maximum, "cache": self.cache, "cycle": self.cycle,
                "owner": list(self.owner) if self.owner is not None else None}

    @staticmethod
    def from_json(d: dict) -> "SequenceDefinition":
        owner = d.get("owner")
        return SequenceDefinition(d["type"], d["start"], d["increment"], d["minimum"], d["maximum"], d["cache"],
                                  d["cycle"], tuple(owner) if owner is not None else None)


#: a constraint's name is an identifier: PostgreSQL's NAMEDATALEN - 1 bytes
NAME_BYTES = 63


@dataclass(frozen=True)
class CheckConstraint:
    """``CHECK (expression)``: a row is written only if ``expression`` is not false (true or
    NULL). The expression's SQL text names the table's columns; a renamed column is renamed
    in it. Not ``validated`` (added NOT VALID): rows from before it may break it."""

    name: str
    expression: str
    validated: bool = True
    #: a rule of a column's user-defined type (``TableSchema.domain_checks``): (what it is -
    #: "enum", "check" or "not null" - and the type's name); None for the table's own CHECK
    domain: tuple[str, str] | None = None

    def to_json(self) -> dict:
        d = {"name": self.name, "expression": self.expression}
        if not self.validated:
            d["not_valid"] = True
        if self.domain is not None:
            d["domain"] = list(self.domain)
        return d

    @staticmethod
    def from_json(d: dict) -> "CheckConstraint":
        domain = d.get("domain")
        return CheckConstraint(d["name"], d["expression"], not d.get("not_valid", False),
                               tuple(domain) if domain is not None else None)


@dataclass(frozen=True)
class TypeDefinition:
    """A user-defined type: an enum (``labels``, in their order), a composite type (``composite``:
    its ``attributes``, (name, ColumnType as ``display()`` spells it)) or a domain (``base``, the
    ColumnType it constrains, as ``display()`` spells it, with its DEFAULT's SQL text, NOT NULL
    and CHECKs - their expressions read the value as the column ``VALUE``)."""

    labels: tuple[str, ...] = ()
    base: str | None = None
    default: str | None = None
    not_null: bool = False
    checks: tuple[CheckConstraint, ...] = ()
    attributes: tuple[tuple[str, str], ...] = ()
    composite: bool = False

    @property
    def is_domain(self) -> bool:
        return self.base is not None

    @property
    def is_enum(self) -> bool:
        return self.base is None and not self.composite

    def to_json(self) -> dict:
        if self.composite:
            return {"composite": [list(a) for a in self.attributes]}
        if self.base is None:
            return {"enum": list(self.labels)}
        return {"base": self.base, "default": self.default, "not_null": self.not_null,
                "checks": [c.to_json() for c in self.checks]}

    @staticmethod
    def from_json(d: dict) -> "TypeDefinition":
        if "enum" in d:
            return TypeDefinition(tuple(d["enum"]))
        if "composite" in d:
            return TypeDefinition(attributes=tuple(tuple(a) for a in d["composite"]), composite=True)
        return TypeDefinition((), d["base"], d["default"], d["not_null"],
                              tuple(CheckConstraint.from_json(c) for c in d["checks"]))


class _Keyed:
    """What a unique constraint and an index say of their key (``columns``, ``key``, ``inputs``)."""

    @property
    def shown(self) -> tuple[str, ...]:
        """The key as messages and catalogs show it: ``lower(email)``, ``email``."""
        return self.key or self.columns

    @property
    def computed(self) -> bool:
        """Is the key computed (an index over expressions or with WHERE: engine/index_expressions.py)?"""
        return is_computed(self.columns[0])

    @property
    def reads(self) -> tuple[str, ...]:
        """The table's columns the key is made of (an UPDATE setting none of them keeps it)."""
        return self.inputs if self.computed else self.columns


@dataclass(frozen=True)
class UniqueConstraint(_Keyed):
    """``UNIQUE [NULLS NOT DISTINCT] (columns)``: no two rows with equal values in every one
    of ``columns`` - rows with a NULL in any of them never clash, unless NULLS NOT DISTINCT."""

    name: str
    columns: tuple[str, ...]
    nulls_not_distinct: bool = False
    #: made by CREATE UNIQUE INDEX: a unique index and no constraint (pg_indexes lists it,
    #: information_schema.table_constraints does not; DROP INDEX drops it, DROP CONSTRAINT not)
    index: bool = False
    #: DEFERRABLE [INITIALLY DEFERRED] (engine/deferred.py); absent from older warehouses: NOT DEFERRABLE
    deferrable: bool = False
    initially_deferred: bool = False
    #: a unique index over expressions or with a WHERE predicate (engine/index_expressions.py):
    #: then each of ``columns`` is a computed key (``COMPUTED_KEY``), ``key`` the index's key as
    #: pg_get_indexdef shows it, ``predicate`` its WHERE and ``inputs`` the columns they read
    key: tuple[str, ...] = ()
    predicate: str | None = None
    inputs: tuple[str, ...] = ()

    def to_json(self) -> dict:
        d = {"name": self.name, "columns": list(self.columns)}
        if self.nulls_not_distinct:
            d["nulls_not_distinct"] = True
        if self.index:
            d["index"] = True
        return _with_computed(_with_timing(d, self), self)

    @staticmethod
    def from_json(d: dict) -> "UniqueConstraint":
        return UniqueConstraint(d["name"], tuple(d["columns"]), d.get("nulls_not_distinct", False),
                                d.get("index", False), d.get("deferrable", False), d.get("initially_deferred", False),
                                tuple(d.get("key", ())), d.get("predicate"), tuple(d.get("inputs", ())))


#: a key "column" whose name starts so is computed - an expression or partial index's value, of
#: the SQL that follows (storage/keys.py computes it through ``keys.COMPUTE``); every key of such
#: an index is, and no plain key
COMPUTED_KEY = "="


def is_computed(name: str) -> bool:
    """Is the key column ``name`` computed (``COMPUTED_KEY``)? An index's keys, if one is, all are."""
    return name.startswith(COMPUTED_KEY)


def _with_computed(d: dict, index) -> dict:
    """``d`` (an index's JSON) with its expression key, predicate and input columns, if any."""
    if index.key:
        d["key"] = list(index.key)
    if index.predicate is not None:
        d["predicate"] = index.predicate
    if index.inputs:
        d["inputs"] = list(index.inputs)
    return d


def _with_timing(d: dict, constraint) -> dict:
    """``d`` (a constraint's JSON) with its DEFERRABLE / INITIALLY DEFERRED flags, written only
    when set: a NOT DEFERRABLE one reads the same in a txlake that predates them."""
    if constraint.deferrable:
        d["deferrable"] = True
    if constraint.initially_deferred:
        d["initially_deferred"] = True
    return d


def timing_sql(constraint) -> str:
    """`` DEFERRABLE [INITIALLY DEFERRED]`` as pg_get_constraintdef and psql's \\d write it ("" if NOT DEFERRABLE)."""
    if not constraint.deferrable:
        return ""
    return " DEFERRABLE INITIALLY DEFERRED" if constraint.initially_deferred else " DEFERRABLE"


# the index methods whose indexes txlake looks rows up through (the others are kept and shown)
LOOKUP_METHODS = ("btree", "hash")


@dataclass(frozen=True)
class Index(_Keyed):
    """``CREATE INDEX name ON t [USING method] (columns)``: a secondary index of plain columns,
    no constraint. Its data is built lazily, per data file, when a lookup needs it
    (storage/keys.py ``find_rows``); the schema records only that it exists."""

    name: str
    columns: tuple[str, ...]
    #: btree or hash: the same per-file index in txlake, shown as written; gin, gist, brin or
    #: spgist: kept and shown, never looked up (``looked_up``)
    method: str = "btree"
    #: an index over expressions or with a WHERE predicate, kept and shown, never looked up
    #: (engine/index_expressions.py): as UniqueConstraint's
    key: tuple[str, ...] = ()
    predicate: str | None = None
    inputs: tuple[str, ...] = ()

    @property
    def looked_up(self) -> bool:
        """Does a lookup of rows by the index's columns go through it (engine/indexes.py)?"""
        return not self.computed and self.method in LOOKUP_METHODS

    def to_json(self) -> dict:
        d = {"name": self.name, "columns": list(self.columns)}
        if self.method != "btree":
            d["method"] = self.method
        return _with_computed(d, self)

    @staticmethod
    def from_json(d: dict) -> "Index":
        return Index(d["name"], tuple(d["columns"]), d.get("method", "btree"), tuple(d.get("key", ())),
                     d.get("predicate"), tuple(d.get("inputs", ())))


@dataclass(frozen=True)
class ForeignKey:
    """``FOREIGN KEY (columns) REFERENCES table (ref_columns)``: the referenced table by id
    (dropped and created again under its name, it is another), its key columns by name.
    ``on_delete`` / ``on_update``: NO ACTION, RESTRICT, CASCADE, SET NULL or SET DEFAULT;
    ``delete_set_columns``: the columns ON DELETE SET NULL / SET DEFAULT sets (empty: all)."""

    name: str
    columns: tuple[str, ...]
    table_id: str
    db: str
    ref_columns: tuple[str, ...]
    on_delete: str = "NO ACTION"
    on_update: str = "NO ACTION"
    match_full: bool = False
    #: False: added NOT VALID - the rows there then were not checked (new rows are)
    validated: bool = True
    delete_set_columns: tuple[str, ...] = ()
    #: DEFERRABLE [INITIALLY DEFERRED] (engine/deferred.py); absent from older warehouses: NOT DEFERRABLE
    deferrable: bool = False
    initially_deferred: bool = False

    def to_json(self) -> dict:
        d = {"name": self.name, "columns": list(self.columns), "table_id": self.table_id, "db": self.db,
             "ref_columns": list(self.ref_columns), "on_delete": self.on_delete, "on_update": self.on_update}
        if self.match_full:
            d["match_full"] = True
        if not self.validated:
            d["validated"] = False
        if self.delete_set_columns:
            d["delete_set_columns"] = list(self.delete_set_columns)
        return _with_timing(d, self)

    @staticmethod
    def from_json(d: dict) -> "ForeignKey":
        return ForeignKey(d["name"], tuple(d["columns"]), d["table_id"], d["db"], tuple(d["ref_columns"]),
                          d["on_delete"], d["on_update"], d.get("match_full", False), d.get("validated", True),
                          tuple(d.get("delete_set_columns", ())), d.get("deferrable", False),
                          d.get("initially_deferred", False))


def constraint_name(table: str, columns: tuple[str, ...], label: str, taken) -> str:
    """The name PostgreSQL gives a constraint the statement does not name (ChooseConstraintName):
    ``<table>_<columns>_<label>`` (``t_a_b_key``, ``t_a_check``; a table CHECK: ``t_check``),
    the longer of table and columns cut until it fits in NAME_BYTES, then a number appended
    (``t_a_key1``) until it is none of ``taken``."""
    for n in range(0, 1 << 20):
        suffix = f"{label}{n or ''}"
        head = [table, "_".join(columns)] if columns else [table]
        while len("_".join([*head, suffix]).encode()) > NAME_BYTES:  # (cut the longer part by a character)
            longest = max(range(len(head)), key=lambda i: len(head[i].encode()))
            head[longest] = head[longest][:-1]
        name = "_".join([*head, suffix])
        if name not in taken:
            return name
    raise errors.ProgrammingError("could not choose a constraint name")


@dataclass(frozen=True)
class Comment:
    """``COMMENT ON ... IS 'text'``: the comment on an object of a relation. ``kind``:
    "relation" (the table, view or sequence itself; ``name`` ""), "column" (``name``: a table
    column's field id, a view column's name), "index" or "constraint" (``name``: its name, ""
    for the primary key's, whose name follows the table's)."""

    kind: str
    name: str
    text: str

    def to_json(self) -> list:
        return [self.kind, self.name, self.text]

    @staticmethod
    def from_json(d: list) -> "Comment":
        return Comment(*d)


@dataclass(frozen=True)
class FunctionDefinition:
    """A user-defined function (engine/functions.py): its name as written, its arguments
    ((name or "", type as ColumnType.display() or as written, DEFAULT's SQL or None), in order),
    what it returns (a type's display, ``setof`` for RETURNS SETOF, ``table`` its RETURNS TABLE
    columns), its language and body as written (a string body's text, or ``RETURN e`` /
    ``BEGIN ATOMIC ... END``: ``standard`` says which), and its attributes: ``volatility`` i / s
    / v (PostgreSQL's provolatile), ``strict``, and ``options`` the other ones as written
    (SECURITY DEFINER, PARALLEL SAFE, COST 10, SET ...), kept for pg_get_functiondef.
    ``procedure``: a procedure's (CREATE PROCEDURE: prokind p, called by CALL); ``modes`` each
    declared parameter's IN / OUT / INOUT where one is not IN (empty: all are). A procedure's
    ``args`` are all its parameters (a CALL passes each); a function's its IN and INOUT ones (a
    call's), its OUT and INOUT ones its result's columns, ``table`` (not ``setof``: one row)."""

    name: str
    args: tuple[tuple[str, str, str | None], ...]
    returns: str
    language: str
    body: str
    standard: bool = False
    volatility: str = "v"
    strict: bool = False
    setof: bool = False
    table: tuple[tuple[str, str], ...] = ()
    options: tuple[str, ...] = ()
    procedure: bool = False
    modes: tuple[str, ...] = ()

    @property
    def arg_types(self) -> tuple[str, ...]:
        return tuple(t for _, t, _ in self.args)

    def mode(self, i: int) -> str:
        """The mode of the ``i``-th declared parameter."""
        return self.modes[i] if self.modes else "IN"

    @property
    def out_parameters(self) -> bool:
        """Is this a function whose result is its OUT / INOUT parameters (not a procedure's)?"""
        return bool(self.modes) and not self.procedure and any(m != "IN" for m in self.modes)

    @property
    def row_type(self) -> bool:
        """Does it return a table's (a view's) row type - ``returns`` the table, ``table`` its columns?"""
        return bool(self.table) and self.returns != "record" and not self.out_parameters

    def parameters(self) -> tuple[tuple[str, str, str, str | None], ...]:
        """(mode, name, type, DEFAULT) of each parameter, as declared (a function's OUT ones too)."""
        if not self.out_parameters:
            return tuple((self.mode(i), name, type_, default) for i, (name, type_, default) in enumerate(self.args))
        inputs, outputs, found = iter(self.args), iter(self.table), []
        for mode in self.modes:
            if mode == "OUT":
                found.append((mode, *next(outputs), None))
                continue
            found.append((mode, *next(inputs)))
            if mode == "INOUT":
                next(outputs)
        return tuple(found)

    def to_json(self) -> dict:
        return {"name": self.name, "args": [list(a) for a in self.args], "returns": self.returns,
                "language": self.language, "body": self.body, "standard": self.standard,
                "volatility": self.volatility, "strict": self.strict, "setof": self.setof,
                "table": [list(c) for c in self.table], "options": list(self.options),
                **({"procedure": True} if self.procedure else {}),
                **({"modes": list(self.modes)} if self.modes else {})}

    @staticmethod
    def from_json(d: dict) -> "FunctionDefinition":
        return FunctionDefinition(d["name"], tuple(tuple(a) for a in d["args"]), d["returns"], d["language"],
                                  d["body"], d["standard"], d["volatility"], d["strict"], d["setof"],
                                  tuple(tuple(c) for c in d["table"]), tuple(d["options"]), d.get("procedure", False),
                                  tuple(d.get("modes", ())))


@dataclass(frozen=True)
class Trigger:
    """``CREATE TRIGGER`` (engine/triggers.py): its name, ``timing`` BEFORE / AFTER, ``events``
    (INSERT, UPDATE, DELETE, TRUNCATE; ``columns`` UPDATE OF's), ``row`` FOR EACH ROW (else
    STATEMENT), ``when`` its WHEN condition as written (SQL text), the function it executes
    (``function_id`` its catalog entry's table id, which OR REPLACE keeps; ``function`` its name
    as ``schema.name``) with ``args``, ``enabled`` PostgreSQL's tgenabled (O, or D
    disabled), and the names of its transition tables (REFERENCING OLD / NEW TABLE AS)."""

    name: str
    timing: str
    events: tuple[str, ...]
    row: bool
    function_id: str
    function: str
    columns: tuple[str, ...] = ()
    when: str | None = None
    args: tuple[str, ...] = ()
    enabled: str = "O"
    old_table: str | None = None  # REFERENCING OLD TABLE AS: the transition table's name
    new_table: str | None = None  # REFERENCING NEW TABLE AS

    def fires_on(self, event: str) -> bool:
        return event in self.events and self.enabled != "D"

    def to_json(self) -> dict:
        d = {"name": self.name, "timing": self.timing, "events": list(self.events), "row": self.row,
             "function_id": self.function_id, "function": self.function}
        for key in ("columns", "when", "args"):
            if getattr(self, key):
                d[key] = list(getattr(self, key)) if key != "when" else self.when
        if self.enabled != "O":
            d["enabled"] = self.enabled
        for key in ("old_table", "new_table"):
            if getattr(self, key) is not None:
                d[key] = getattr(self, key)
        return d

    @staticmethod
    def from_json(d: dict) -> "Trigger":
        return Trigger(d["name"], d["timing"], tuple(d["events"]), d["row"], d["function_id"], d["function"],
                       tuple(d.get("columns", ())), d.get("when"), tuple(d.get("args", ())), d.get("enabled", "O"),
                       d.get("old_table"), d.get("new_table"))


@dataclass(frozen=True)
class PartitionKey:
    """What makes a table partitioned (engine/partitions.py): its rows are its partitions' - it
    holds none itself - chosen by ``strategy`` (range, list or hash) over the key ``columns``."""

    strategy: str
    columns: tuple[str, ...]

    def to_json(self) -> dict:
        return {"strategy": self.strategy, "columns": list(self.columns)}

    @staticmethod
    def from_json(d: dict) -> "PartitionKey":
        return PartitionKey(d["strategy"], tuple(d["columns"]))


@dataclass(frozen=True)
class PartitionBound:
    """What makes a table a partition of the partitioned table ``parent`` (its id): its bound as
    PostgreSQL shows it (``FOR VALUES FROM ('2024-01-01') TO ('2024-02-01')``, ``DEFAULT``); its
    values, each PostgreSQL's text of it (None: NULL; MINVALUE / MAXVALUE as such) - ``lower``
    and ``upper`` of a range, ``values`` of a list, (modulus, remainder) of a hash; and
    ``constraint``, the partition constraint as SQL over the columns (a CHECK every row written
    to the partition must pass: a DEFAULT partition's names its siblings' bounds, and is
    rewritten as they come and go). None for a DEFAULT partition with no siblings."""

    parent: str
    kind: str
    shown: str
    constraint: str | None
    lower: tuple = ()
    upper: tuple = ()
    values: tuple = ()

    def to_json(self) -> dict:
        return {"parent": self.parent, "kind": self.kind, "shown": self.shown, "constraint": self.constraint,
                "lower": list(self.lower), "upper": list(self.upper), "values": list(self.values)}

    @staticmethod
    def from_json(d: dict) -> "PartitionBound":
        return PartitionBound(d["parent"], d["kind"], d["shown"], d["constraint"], tuple(d["lower"]),
                              tuple(d["upper"]), tuple(d["values"]))

    @property
    def check(self) -> "CheckConstraint | None":
        """The partition constraint as the CHECK ``TableSchema.enforced_checks`` holds."""
        return CheckConstraint("", self.constraint, domain=("partition", "")) if self.constraint else None


@dataclass(frozen=True)
class Policy:
    """``CREATE POLICY`` (engine/policies.py): its name, ``command`` ALL / SELECT / INSERT /
    UPDATE / DELETE, ``permissive`` (else AS RESTRICTIVE), ``roles`` the roles named in TO as
    written (empty: PUBLIC), ``using`` / ``check`` its USING and WITH CHECK expressions as stored
    CHECKs are (normalised SQL text, without the table's name on its columns; None: none)."""

    name: str
    command: str = "ALL"
    permissive: bool = True
    roles: tuple[str, ...] = ()
    using: str | None = None
    check: str | None = None

    def to_json(self) -> dict:
        d = {"name": self.name, "command": self.command, "permissive": self.permissive}
        for key in ("roles", "using", "check"):
            if getattr(self, key):
                d[key] = list(self.roles) if key == "roles" else getattr(self, key)
        return d

    @staticmethod
    def from_json(d: dict) -> "Policy":
        return Policy(d["name"], d["command"], d["permissive"], tuple(d.get("roles", ())), d.get("using"),
                      d.get("check"))


@dataclass(frozen=True)
class TableSchema:
    schema_id: int
    columns: tuple[Column, ...]
    primary_key: tuple[str, ...] = ()
    highest_field_id: int = -1
    #: a view's definition (None for a table): a view has no columns of its own
    view: ViewDefinition | None = None
    #: a sequence's definition (None for a table): no columns either
    sequence: SequenceDefinition | None = None
    checks: tuple[CheckConstraint, ...] = ()
    uniques: tuple[UniqueConstraint, ...] = ()
    foreign_keys: tuple[ForeignKey, ...] = ()
    #: the primary key's constraint name as written (CONSTRAINT n PRIMARY KEY); None: <table>_pkey
    primary_key_name: str | None = None
    #: CREATE INDEX's (not unique) indexes
    indexes: tuple[Index, ...] = ()
    #: COMMENT ON's comments, each on an object the schema has: one dropped takes its comment
    #: along (``__post_init__``)
    comments: tuple[Comment, ...] = ()
    #: a user-defined type's definition (None for a table): no columns either
    user_type: TypeDefinition | None = None
    #: the rules of the columns' user-defined types, as CHECKs over the columns
    domain_checks: tuple[CheckConstraint, ...] = ()
    #: a materialized view's definition (None for a plain table): its rows are the table's
    matview: MatviewDefinition | None = None
    #: a user-defined function's definition (None for a table): no columns either
    function: FunctionDefinition | None = None
    #: CREATE TRIGGER's triggers, by name (asked at every write: empty for most tables)
    triggers: tuple[Trigger, ...] = ()
    #: PARTITION BY's key: a partitioned table, holding no rows of its own (None: not one)
    partitioning: PartitionKey | None = None
    #: the bound of a partition (None: not one)
    partition_of: PartitionBound | None = None
    #: CREATE POLICY's policies, by name, and ALTER TABLE's {ENABLE | FORCE} ROW LEVEL SECURITY
    #: (PostgreSQL's relrowsecurity, relforcerowsecurity)
    policies: tuple[Policy, ...] = ()
    row_security: bool = False
    force_row_security: bool = False

    def __post_init__(self):
        if self.primary_key or self.uniques:
            self._refuse_interval_keys()
        if self.comments:
            objects = self._commentable()
            kept = tuple(c for c in self.comments if (c.kind, c.name) in objects)
            if kept != self.comments:
                object.__setattr__(self, "comments", kept)

    def _refuse_interval_keys(self) -> None:
        """An interval column in a primary key or a unique constraint or index is refused (0A000):
        PostgreSQL's keys compare intervals by their length (1 mon = 30 days, 1 day = 24 hours),
        txlake's compare stored values, which keep the parts apart (storage/keys.py)."""
        keyed = {*self.primary_key, *(c for u in self.uniques for c in u.columns)}
        for c in self.columns:
            if c.name in keyed and c.type.kind == "INTERVAL":
                raise errors.NotSupportedError(
                    f'column "{c.name}" is an interval: txlake\'s primary keys and unique constraints '
                    "and indexes are not of interval columns")

    def _commentable(self) -> set[tuple[str, str]]:
        """The (kind, name) of every object of the schema a comment may be on (``Comment``)."""
        objects = {("relation", "")}
        if self.view is not None:
            objects |= {("column", name) for name in self.view.names}
        objects |= {("column", str(c.field_id)) for c in self.columns}
        objects |= {("index", u.name) for u in self.uniques} | {("index", i.name) for i in self.indexes}
        objects |= {("constraint", c.name) for c in self.constraints if not getattr(c, "index", False)}
        if self.primary_key:
            objects |= {("index", ""), ("constraint", "")}
        return objects

    def comment(self, kind: str, name: str = "") -> str | None:
        """The comment on the object (``Comment``), or None."""
        return next((c.text for c in self.comments if (c.kind, c.name) == (kind, name)), None)

    def with_comment(self, kind: str, name: str, text: str | None) -> "TableSchema":
        """This schema with ``text`` the comment on the object (``Comment``); None: without one."""
        others = tuple(c for c in self.comments if (c.kind, c.name) != (kind, name))
        return replace(self, comments=others + ((Comment(kind, name, text),) if text is not None else ()))

    @property
    def enforced_checks(self) -> tuple[CheckConstraint, ...]:
        """Every CHECK a written row must pass: its columns' types' rules, then the table's, then
        a partition's constraint."""
        if self.partition_of is not None and self.partition_of.constraint:
            return self.domain_checks + self.checks + (self.partition_of.check,)
        return self.domain_checks + self.checks if self.domain_checks else self.checks

    def pkey_name(self, table: str) -> str:
        """The name of the primary key of the table ``table`` (which must have one)."""
        return self.primary_key_name or f"{table}_pkey"

    @property
    def names(self) -> list[str]:
        return [c.name for c in self.columns]

    @property
    def partitioned(self) -> bool:
        """Is this a partitioned table's or a partition's schema (``CatalogVersion.partitioned``)?"""
        return self.partitioning is not None or self.partition_of is not None

    @functools.cached_property
    def always(self) -> frozenset[str]:
        """The GENERATED ALWAYS AS IDENTITY columns (asked at every INSERT and UPDATE)."""
        return frozenset(c.name for c in self.columns if c.always)

    @functools.cached_property
    def identity(self) -> frozenset[str]:
        """The identity columns, GENERATED ALWAYS or BY DEFAULT (asked at every INSERT)."""
        return frozenset(c.name for c in self.columns if c.always or c.by_default)

    @functools.cached_property
    def generated(self) -> tuple[Column, ...]:
        """The stored generated columns (asked at every write: empty for most tables)."""
        return tuple(c for c in self.columns if c.generated is not None)

    @property
    def constraints(self) -> tuple:
        """The CHECK, UNIQUE and FOREIGN KEY constraints (the primary key is ``primary_key``)."""
        return self.checks + self.uniques + self.foreign_keys

    def constraint_names(self, table: str) -> set[str]:
        """The names constraints of the table ``table`` have: a new one takes none of them."""
        return {c.name for c in self.constraints} | ({self.pkey_name(table)} if self.primary_key else set())

    def key_over(self, table: str, columns) -> UniqueConstraint | None:
        """The key of the table ``table`` (of this schema) over exactly ``columns``, in any
        order: its primary key (as a UniqueConstraint named as the key), else its first UNIQUE
        constraint or unique index over them; None if none is."""
        wanted = set(columns)
        if len(wanted) != len(tuple(columns)):
            return None
        if self.primary_key and set(self.primary_key) == wanted:
            return UniqueConstraint(self.pkey_name(table), self.primary_key)
        return next((u for u in self.uniques if set(u.columns) == wanted), None)

    def key_inputs(self, names: tuple[str, ...]) -> tuple[str, ...]:
        """The columns to read to compute the key ``names`` (computed keys among them: those of
        the unique index they belong to; a key of constants, ``((1))``, reads none: the first
        column is read all the same, for the rows)."""
        found = [n for n in names if not is_computed(n)]
        for unique in self.uniques:
            if unique.computed and set(names) & set(unique.columns):
                found += unique.inputs
        return tuple(dict.fromkeys(found)) or (self.columns[0].name,)

    def column(self, name: str) -> Column | None:
        for c in self.columns:
            if c.name == name:
                return c
        return None

    def require(self, name: str, table: str) -> Column:
        col = self.column(name)
        if col is None:
            if self.sequence is not None:  # (UPDATE s SET ...)
                raise errors.WrongObjectType(f'cannot change sequence "{table}"')
            raise errors.UndefinedColumn(f'column "{name}" of relation "{table}" does not exist')
        return col

    @property
    def jsonb_columns(self) -> frozenset[str]:
        """The table's jsonb columns, which sort and compare in jsonb's order (engine/jsonb_order.py)."""
        return self.memo("_jsonb_columns", lambda s: frozenset(c.name for c in s.columns if c.type.kind == "JSONB"))

    @property
    def has_jsonb(self) -> bool:
        return bool(self.jsonb_columns)

    @property
    def blank_padded(self) -> dict[str, int]:
        """The table's CHAR(n) columns, by name: their n (engine/bpchar.py pads and compares them)."""
        return self.memo("_blank_padded", lambda s: {c.name: c.type.length for c in s.columns if c.type.blank_padded})

    @property
    def network_columns(self) -> dict[str, str]:
        """The table's inet and cidr columns, by name: their kind (engine/network.py orders and compares them)."""
        return self.memo("_network_columns", lambda s: {c.name: c.type.kind for c in s.columns
                                                        if c.type.kind in ("INET", "CIDR")})

    def arrow_schema(self) -> pa.Schema:
        """The in-memory Arrow schema. Every field is nullable: NOT NULL is enforced when rows
        are written (23502), and one uniform schema lets batches from files and from a
        transaction's own writes be concatenated."""
        return self.memo("_arrow_schema", lambda s: pa.schema([c.type.field(c.name) for c in s.columns]))

    def memo(self, name: str, build):
        """``build(self)``, computed once per schema object and kept on it: the schema is
        immutable, so whatever other modules derive from it (Arrow types, encoding layouts)
        can live with it. A frozen dataclass: stored past ``__setattr__``, as
        ``functools.cached_property`` does."""
        try:
            return self.__dict__[name]
        except KeyError:
            value = self.__dict__[name] = build(self)
            return value

    def evolve(self, columns: tuple[Column, ...], primary_key: tuple[str, ...] | None = None) -> "TableSchema":
        highest = max([self.highest_field_id, *(c.field_id for c in columns)])
        return replace(self, schema_id=self.schema_id + 1, columns=columns,
                       primary_key=self.primary_key if primary_key is None else primary_key,
                       highest_field_id=highest)

    def to_json(self) -> dict:
        d = {"id": self.schema_id, "columns": [c.to_json() for c in self.columns],
             "primary_key": list(self.primary_key), "highest_field_id": self.highest_field_id}
        if self.view is not None:
            d["view"] = self.view.to_json()
        if self.sequence is not None:
            d["sequence"] = self.sequence.to_json()
        for key in ("checks", "uniques", "foreign_keys"):  # (written only when there are any)
            if getattr(self, key):
                d[key] = [c.to_json() for c in getattr(self, key)]
        if self.primary_key_name is not None:
            d["primary_key_name"] = self.primary_key_name
        if self.indexes:  # (written only when there are any)
            d["indexes"] = [i.to_json() for i in self.indexes]
        if self.comments:  # (so too: a warehouse made before txlake kept comments has none)
            d["comments"] = [c.to_json() for c in self.comments]
        if self.user_type is not None:
            d["user_type"] = self.user_type.to_json()
        if self.domain_checks:
            d["domain_checks"] = [c.to_json() for c in self.domain_checks]
        if self.matview is not None:
            d["matview"] = self.matview.to_json()
        if self.function is not None:
            d["function"] = self.function.to_json()
        if self.triggers:
            d["triggers"] = [t.to_json() for t in self.triggers]
        if self.partitioning is not None:
            d["partitioning"] = self.partitioning.to_json()
        if self.partition_of is not None:
            d["partition_of"] = self.partition_of.to_json()
        if self.policies:
            d["policies"] = [p.to_json() for p in self.policies]
        if self.row_security:
            d["row_security"] = True
        if self.force_row_security:
            d["force_row_security"] = True
        return d

    @staticmethod
    def from_json(d: dict) -> "TableSchema":
        view, sequence = d.get("view"), d.get("sequence")
        return TableSchema(d["id"], tuple(Column.from_json(c) for c in d["columns"]),
                           tuple(d["primary_key"]), d["highest_field_id"],
                           ViewDefinition.from_json(view) if view is not None else None,
                           SequenceDefinition.from_json(sequence) if sequence is not None else None,
                           tuple(CheckConstraint.from_json(c) for c in d.get("checks", ())),
                           tuple(UniqueConstraint.from_json(c) for c in d.get("uniques", ())),
                           tuple(ForeignKey.from_json(c) for c in d.get("foreign_keys", ())),
                           d.get("primary_key_name"),
                           tuple(Index.from_json(i) for i in d.get("indexes", ())),
                           tuple(Comment.from_json(c) for c in d.get("comments", ())),
                           TypeDefinition.from_json(d["user_type"]) if "user_type" in d else None,
                           tuple(CheckConstraint.from_json(c) for c in d.get("domain_checks", ())),
                           MatviewDefinition.from_json(d["matview"]) if "matview" in d else None,
                           FunctionDefinition.from_json(d["function"]) if "function" in d else None,
                           tuple(Trigger.from_json(t) for t in d.get("triggers", ())),
                           PartitionKey.from_json(d["partitioning"]) if "partitioning" in d else None,
                           PartitionBound.from_json(d["partition_of"]) if "partition_of" in d else None,
                           tuple(Policy.from_json(p) for p in d.get("policies", ())),
                           d.get("row_security", False), d.get("force_row_security", False))
