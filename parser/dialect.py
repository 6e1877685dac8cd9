"""The txlake SQL dialect: DuckDB's (queries run in DuckDB) plus PostgreSQL session syntax.

sqlglot parses queries and DML well but not PostgreSQL's transaction-control and session
statements (``START TRANSACTION ISOLATION LEVEL ...``, ``RELEASE SAVEPOINT``, ``SET SESSION
CHARACTERISTICS ...``, ``COMMIT PREPARED``...). The parser below recognises them on the token
stream and returns a ``Control`` node; everything else is left to the DuckDB parser.
"""

from __future__ import annotations

import re

from sqlglot import exp
from sqlglot.dialects.dialect import build_default_decimal_type
from sqlglot.dialects.duckdb import DuckDB
from sqlglot.errors import ParseError, TokenError
from sqlglot.tokens import Token, TokenType

from txlake import errors
from txlake.parser import search_cycle
from txlake.parser.json_ops import JSONBPathMatch
from txlake.parser.statements import search_path_text
from txlake.storage.schema import DEFAULT_DECIMAL


#: the meta key of a statement's place in its text (TxlakeParser._parse_statement)
SOURCE_SPAN = "txlake_source_span"
#: the meta key of a sqrt or cbrt written as PostgreSQL's prefix operator |/ or ||/
PREFIX_OPERATOR = "txlake_prefix_operator"


class Control(exp.Expression):
    """A session or transaction-control statement.

    ``kind`` names the statement (BEGIN, COMMIT, ROLLBACK, SAVEPOINT, ROLLBACK_TO, RELEASE,
    SET_TRANSACTION, SET_SESSION_CHARACTERISTICS, SET_CONSTRAINTS, SET, RESET, SHOW, PREPARE_TRANSACTION,
    COMMIT_PREPARED, ROLLBACK_PREPARED, PREPARE, EXECUTE, DEALLOCATE, DISCARD, DO, LISTEN, UNLISTEN, NOTIFY,
    NO_EFFECT); the other args
    depend on it.
    """

    arg_types = {
        "kind": True,
        "isolation": False,   # "READ COMMITTED", "REPEATABLE READ", ...
        "read_only": False,   # True / False / None (unspecified)
        "name": False,        # savepoint name, setting name
        "value": False,       # setting value (str), None for DEFAULT
        "label": False,       # BEGIN ... WITH LABEL 'x', prepared transaction gid
        "local": False,       # SET LOCAL
        "types": False,       # PREPARE name (types): their DataTypes
    }


class ConstraintTiming(exp.Expression):
    """A constraint's ``DEFERRABLE``, ``NOT DEFERRABLE``, ``INITIALLY DEFERRED`` or ``INITIALLY
    IMMEDIATE`` (``this``, those words) where it stands apart from the constraint it is about:
    after a column's constraint, as PostgreSQL's grammar reads it (a clause of its own, which
    parser/parse.py applies to the constraint before it - or refuses, "misplaced ..."), and after
    a table's CHECK (meta ``timing`` of the constraint: a list of them)."""

    arg_types = {"this": True}


class SequenceCommand(exp.Expression):
    """``CREATE SEQUENCE``, ``ALTER SEQUENCE`` or ``DROP SEQUENCE`` (sqlglot's parser reads
    neither DROP of several nor ALTER): ``kind`` CREATE / ALTER / DROP, ``names`` the
    sequences (exp.Table), ``options`` a list of (option, value) pairs as written - value an
    int, a type name, True (CYCLE, RESTART without a number), False (NO CYCLE) or None (NO
    MINVALUE / NO MAXVALUE)."""

    arg_types = {"kind": True, "names": True, "options": False, "exists": False, "cascade": False}


# the objects COMMENT ON keeps comments on (on others it changes nothing)
_COMMENTED = ("TABLE", "VIEW", "MATERIALIZED VIEW", "SEQUENCE", "INDEX", "COLUMN", "CONSTRAINT")


class CommentOn(exp.Expression):
    """``COMMENT ON kind ... IS text``: ``kind`` TABLE, VIEW, MATERIALIZED VIEW, SEQUENCE or INDEX (``this`` the
    object), COLUMN (``name`` of the relation ``this``) or CONSTRAINT (``name`` on the table
    ``this``); ``text`` the comment, None for IS NULL."""

    arg_types = {"kind": True, "this": True, "name": False, "text": False}


class TypeCommand(exp.Expression):
    """``CREATE TYPE name AS ENUM (...)``, ``CREATE DOMAIN``, ``ALTER TYPE`` / ``ALTER DOMAIN``
    and ``DROP TYPE`` / ``DROP DOMAIN`` (sqlglot reads only the first): ``kind`` CREATE /
    ALTER / DROP, ``domain`` whether the statement said DOMAIN, ``names`` the types
    (exp.Table). CREATE: ``labels`` (an enum's, exp.Literal strings) or ``base`` (a domain's
    exp.DataType) with ``default`` and ``constraints`` (exp.Constraint of a name or None and
    a CheckColumnConstraint or NotNullColumnConstraint), or ``attributes`` (a composite type's
    exp.ColumnDefs). ALTER: ``action`` (a word: ADD VALUE, RENAME VALUE, RENAME, SET DEFAULT,
    DROP DEFAULT, SET NOT NULL, DROP NOT NULL, ADD, DROP CONSTRAINT, ADD ATTRIBUTE) and its
    ``labels`` / ``default`` / ``constraints`` / ``target`` / ``attributes``."""

    arg_types = {"kind": True, "domain": False, "names": True, "labels": False, "base": False, "default": False,
                 "constraints": False, "action": False, "target": False, "after": False, "exists": False,
                 "cascade": False, "attributes": False}


class FunctionCommand(exp.Expression):
    """``CREATE [OR REPLACE] FUNCTION`` and ``DROP FUNCTION`` (sqlglot reads neither whole):
    ``kind`` CREATE / DROP. CREATE: ``this`` the name (exp.Table), ``replace``, ``params`` its
    arguments (exp.Tuple of mode word, exp.Identifier or None, exp.DataType, default or None),
    ``returns`` an exp.DataType (``setof``; ``table`` RETURNS TABLE's exp.ColumnDefs),
    ``language``, ``volatility`` (IMMUTABLE / STABLE / VOLATILE), ``strict``, ``options`` the
    other attributes as written, ``body`` the body's text and ``standard`` whether it is
    SQL-standard (``RETURN e``, ``BEGIN ATOMIC ... END``). DROP: ``functions`` (exp.Tuple of
    the name and, when written, an exp.Tuple of argument types), ``exists``, ``cascade``.
    ``procedure``: CREATE / DROP PROCEDURE's (a procedure's signature has its OUT arguments too)."""

    arg_types = {"kind": True, "this": False, "replace": False, "params": False, "returns": False, "setof": False,
                 "table": False, "language": False, "volatility": False, "strict": False, "options": False,
                 "body": False, "standard": False, "functions": False, "exists": False, "cascade": False,
                 "procedure": False}


class TriggerCommand(exp.Expression):
    """``CREATE [OR REPLACE] TRIGGER``, ``DROP TRIGGER``, ``ALTER TRIGGER ... RENAME TO`` and
    ALTER TABLE's ``ENABLE | DISABLE TRIGGER`` action (sqlglot reads none of them): ``kind``
    CREATE / DROP / RENAME / ENABLE / DISABLE, ``this`` the trigger's name (an identifier; for
    ENABLE / DISABLE ALL or USER as written), ``table`` its table (exp.Table). CREATE:
    ``replace``, ``timing`` BEFORE / AFTER / INSTEAD OF, ``events`` (exp.Tuple of the event's
    word and, for UPDATE OF, its columns), ``row`` FOR EACH ROW, ``when`` its condition,
    ``function`` the function (exp.Table), ``args`` its arguments' texts, ``referencing``
    its transition tables (exp.Tuple of OLD / NEW, TABLE / ROW and the name), ``constraint``
    (refused). DROP: ``exists``, ``cascade``. RENAME: ``to``."""

    arg_types = {"kind": True, "this": False, "table": False, "replace": False, "timing": False, "events": False,
                 "row": False, "when": False, "function": False, "args": False, "exists": False, "cascade": False,
                 "to": False, "referencing": False, "constraint": False}


class PolicyCommand(exp.Expression):
    """``CREATE POLICY``, ``ALTER POLICY``, ``DROP POLICY`` and ALTER TABLE's ``{ENABLE | DISABLE
    | FORCE | NO FORCE} ROW LEVEL SECURITY`` action (sqlglot reads none of them): ``kind`` CREATE
    / ALTER / DROP / ENABLE / DISABLE / FORCE / NO FORCE, ``this`` the policy's name (an
    identifier), ``table`` its table (exp.Table). CREATE: ``permissive`` (False: AS
    RESTRICTIVE), ``command`` ALL / SELECT / INSERT / UPDATE / DELETE; CREATE and ALTER:
    ``roles`` TO's role names as written (PUBLIC, CURRENT_USER ...), ``using`` / ``check`` the
    USING and WITH CHECK expressions; ALTER: ``to`` RENAME TO's name. DROP: ``exists``,
    ``cascade``."""

    arg_types = {"kind": True, "this": False, "table": False, "permissive": False, "command": False, "roles": False,
                 "using": False, "check": False, "to": False, "exists": False, "cascade": False}


class RefreshMatview(exp.Expression):
    """``REFRESH MATERIALIZED VIEW [CONCURRENTLY] name [WITH [NO] DATA]``: ``this`` the
    materialized view (exp.Table)."""

    arg_types = {"this": True, "concurrently": False, "no_data": False}


class LockCommand(exp.Expression):
    """``LOCK TABLE``: ``names`` the tables (exp.Table), ``mode`` the lock mode's words
    ("ACCESS EXCLUSIVE" ...), ``nowait`` NOWAIT."""

    arg_types = {"names": True, "mode": True, "nowait": False}


class CursorCommand(exp.Expression):
    """``DECLARE name [options] CURSOR [{WITH | WITHOUT} HOLD] FOR query``, ``FETCH`` / ``MOVE
    [direction] [FROM | IN] name`` and ``CLOSE {name | ALL}`` (sqlglot reads none): ``kind``
    DECLARE, FETCH, MOVE or CLOSE, ``this`` the cursor's name (None: CLOSE ALL). DECLARE:
    ``options`` its words as written (BINARY, ASENSITIVE, INSENSITIVE, SCROLL, NO SCROLL),
    ``hold``, ``query`` the query's text and ``start`` where it begins in the text parsed.
    FETCH / MOVE: ``direction`` FORWARD, BACKWARD, ABSOLUTE or RELATIVE and ``count`` (an int,
    None for ALL), as PostgreSQL's grammar makes them."""

    arg_types = {"kind": True, "this": False, "options": False, "hold": False, "query": False, "start": False,
                 "direction": False, "count": False}


class ValidateConstraint(exp.Expression):
    """ALTER TABLE's ``VALIDATE CONSTRAINT name`` (sqlglot reads none): ``this`` the name."""

    arg_types = {"this": True}


class RenameConstraint(exp.Expression):
    """ALTER TABLE's ``RENAME CONSTRAINT a TO b`` (sqlglot reads none): ``this`` a, ``to`` b."""

    arg_types = {"this": True, "to": True}


class PartitionCommand(exp.Expression):
    """ALTER TABLE's ``ATTACH PARTITION name {FOR VALUES ... | DEFAULT}`` and ``DETACH PARTITION
    name [CONCURRENTLY | FINALIZE]`` (sqlglot reads neither): ``kind`` ATTACH or DETACH, ``this``
    the partition (exp.Table), ``bound`` (ATTACH) sqlglot's PartitionBoundSpec or the Var DEFAULT."""

    arg_types = {"kind": True, "this": True, "bound": False}


# LOCK TABLE's modes, longest first where one begins another (SHARE ROW EXCLUSIVE, SHARE)
_LOCK_MODES = (("ACCESS", "SHARE"), ("ROW", "SHARE"), ("ROW", "EXCLUSIVE"), ("SHARE", "UPDATE", "EXCLUSIVE"),
               ("SHARE", "ROW", "EXCLUSIVE"), ("SHARE",), ("EXCLUSIVE",), ("ACCESS", "EXCLUSIVE"))

_ISOLATION_LEVELS = (
    ("READ", "UNCOMMITTED"),
    ("READ", "COMMITTED"),
    ("REPEATABLE", "READ"),
    ("SERIALIZABLE",),
)


def _float_precision(dtype: exp.DataType) -> exp.DataType:
    """FLOAT(p), as PostgreSQL reads it: REAL for 1 to 24 bits of precision, DOUBLE PRECISION
    for 25 to 53 (DuckDB has no precision for either; FLOAT alone is DOUBLE, tokenized so)."""
    if not dtype.expressions:
        return dtype
    bits = dtype.expressions[0]
    bits = int(bits.name) if isinstance(bits, exp.DataTypeParam) and bits.name.isdigit() else None
    if bits is None or bits < 1:
        raise errors.InvalidParameterValue("precision for type float must be at least 1 bit")
    if bits > 53:
        raise errors.InvalidParameterValue("precision for type float must be less than 54 bits")
    return exp.DataType.build("FLOAT" if bits <= 24 else "DOUBLE")


# PostgreSQL 15's regular expression functions (engine/regexp_functions.py)
_REGEXP_FUNCTIONS = ("REGEXP_COUNT", "REGEXP_INSTR", "REGEXP_LIKE", "REGEXP_SUBSTR")
# and regexp_replace, whose PostgreSQL 16 forms take a start, an N and flags (parser/semantics.py;
# sqlglot's DuckDB parser kept a fourth argument, as DuckDB's options, and dropped the rest)


# substring(s SIMILAR pattern ESCAPE escape): TxlakeParser reads it as a call of this name
SIMILAR_SUBSTRING = "txl_similar_substring"


class TxlakeParser(DuckDB.Parser):
    # NUMERIC / DECIMAL without precision: DECIMAL(38, 9) (BigQuery's NUMERIC), not DuckDB's
    # (18, 3), which rounded 3.14159 to 3.142 and refused 1e20. PostgreSQL's is unbounded;
    # this keeps 29 digits before the point and 9 after. (storage/schema.py: DEFAULT_DECIMAL)
    TYPE_CONVERTERS = {**DuckDB.Parser.TYPE_CONVERTERS,
                       exp.DType.DECIMAL: build_default_decimal_type(*DEFAULT_DECIMAL),
                       exp.DType.DOUBLE: lambda dtype: _float_precision(dtype)}
    # time travel: FOR SYSTEM_VERSION AS OF <snapshot id> beside sqlglot's FOR SYSTEM_TIME / FOR VERSION
    VERSION_PHRASES = {("FOR", "SYSTEM_VERSION"): "VERSION", **DuckDB.Parser.VERSION_PHRASES}
    # PostgreSQL: ALTER TABLE t RENAME [COLUMN] a TO b (DuckDB's parser would read a table rename)
    ALTER_RENAME_REQUIRES_COLUMN = False
    # CREATE LOCAL TEMP[ORARY] TABLE / VIEW: the SQL standard's LOCAL, which PostgreSQL's TEMP is
    PROPERTY_PARSERS = {**DuckDB.Parser.PROPERTY_PARSERS, "LOCAL": lambda self: self._parse_local_temporary()}
    # PostgreSQL functions whose DuckDB namesakes mean something else, kept as written for
    # parser/semantics.py: decode / encode take a format (hex, base64), which sqlglot's
    # DuckDB parser dropped (decode('616263', 'hex') gave '616263'); regexp_matches returns
    # the matches, not DuckDB's boolean; regexp_count, regexp_instr, regexp_like and regexp_substr
    # are engine/regexp_functions.py's (sqlglot wrote DuckDB expressions of some, without their
    # flags' checks and some arguments); json_extract_path[_text] take the path's steps as
    # arguments, not a JSON path; json_strip_nulls is parser/json_ops.py's. And x op ALL (array) /
    # SOME (array) is a quantified comparison, as ANY (array) is (sqlglot read them as calls of
    # functions ALL and SOME)
    # convert(bytes, source, destination): PostgreSQL's function (FUNCTIONS), not SQL Server's CONVERT
    FUNCTION_PARSERS = {name: parse for name, parse in DuckDB.Parser.FUNCTION_PARSERS.items() if name != "CONVERT"}
    FUNCTIONS = {**DuckDB.Parser.FUNCTIONS,
                 **{name: (lambda name: lambda args: exp.Anonymous(this=name.lower(), expressions=args))(name)
                    for name in ("DECODE", "ENCODE", "CONVERT", "REGEXP_MATCHES", "JSON_EXTRACT_PATH",
                                 "JSON_EXTRACT_PATH_TEXT", "JSON_STRIP_NULLS", "REGEXP_REPLACE", *_REGEXP_FUNCTIONS)},
                 **{name: (lambda name, node: lambda args: node(this=exp.Paren(this=args[0])) if len(args) == 1
                           else exp.Anonymous(this=name, expressions=args))(name, node)
                    for name, node in (("ALL", exp.All), ("SOME", exp.Any))}}
    # PostgreSQL: ALTER TABLE t ALTER a SET DEFAULT 1, ALTER b DROP NOT NULL (several ALTER
    # COLUMN actions, also after others; without it the statement was an unparsed Command)
    ALTER_TABLE_MIXED_ACTIONS = True
    # PostgreSQL: ALTER TABLE t DROP [COLUMN] c (a bare DROP c was an unparsed Command)
    ALTER_DROP_REQUIRES_COLUMN = False
    # a ? knows where the text holds it (its meta's "start"): the order parameters bind in, which
    # the SQL made of the tree need not keep (sqlglot writes OFFSET ? LIMIT ? as LIMIT ? OFFSET ?)
    PLACEHOLDER_PARSERS = {**DuckDB.Parser.PLACEHOLDER_PARSERS,
                           TokenType.PLACEHOLDER: lambda self: self.expression(exp.Placeholder(), token=self._prev)}
    # PostgreSQL's constraint attributes: NOT DEFERRABLE beside sqlglot's DEFERRABLE and
    # INITIALLY ...; apart from a REFERENCES / UNIQUE / PRIMARY KEY (whose options take them), a
    # clause of their own (``ConstraintTiming``)
    KEY_CONSTRAINT_OPTIONS = {**DuckDB.Parser.KEY_CONSTRAINT_OPTIONS, "NOT": ("ENFORCED", "DEFERRABLE")}
    CONSTRAINT_PARSERS = {**DuckDB.Parser.CONSTRAINT_PARSERS,
                          "DEFERRABLE": lambda self: ConstraintTiming(this="DEFERRABLE"),
                          "INITIALLY": lambda self: self._parse_initially()}
    _ALTER_ACTIONS = ("ADD", "DROP", "ALTER", "RENAME", "VALIDATE")
    # PostgreSQL: ALTER TABLE t ADD CHECK (...) - an unnamed CHECK (sqlglot read only a named one)
    ADD_CONSTRAINT_KEYWORDS = {"CHECK"}
    # PostgreSQL: ALTER TABLE t VALIDATE CONSTRAINT name
    ALTER_PARSERS = {**DuckDB.Parser.ALTER_PARSERS,
                     "VALIDATE": lambda self: self._parse_validate_constraint(),
                     "ENABLE": lambda self: self._parse_trigger_switch("ENABLE"),
                     "DISABLE": lambda self: self._parse_trigger_switch("DISABLE"),
                     "ATTACH": lambda self: self._parse_partition_command("ATTACH"),
                     "DETACH": lambda self: self._parse_partition_command("DETACH"),
                     "FORCE": lambda self: self._parse_row_security("FORCE"),
                     "NO": lambda self: self._parse_row_security("NO FORCE")}
    # PostgreSQL's json -> and ->>: the key or index as written (sqlglot read 'a.b' as a JSON
    # path of two keys); parser/json_ops.py rewrites them. PostgreSQL has no lambdas: in a
    # function's arguments, doc -> 'a' is json too (DuckDB's parser read a lambda x -> body)
    LAMBDAS = {k: v for k, v in DuckDB.Parser.LAMBDAS.items() if k != TokenType.ARROW}
    # PostgreSQL's # is bitwise XOR (5 # 3 = 6): a syntax error before
    BITWISE = {**DuckDB.Parser.BITWISE, TokenType.HASH: exp.BitwiseXor}
    # PostgreSQL's prefix |/ and ||/: the square and cube root of a double precision (|/ 16 was a
    # syntax error). As any prefix operator of PostgreSQL's but - and +, they bind less tightly
    # than + and * (|/ 16 + 9 is 5) and more than ||, = and the rest
    UNARY_PARSERS = {**DuckDB.Parser.UNARY_PARSERS,
                     **{token: (lambda root: lambda self: self._parse_root(root))(root)
                        for token, root in ((TokenType.PIPE_SLASH, exp.Sqrt), (TokenType.DPIPE_SLASH, exp.Cbrt))}}
    # jsonb's doc @? path (sqlglot's JSONBPathExists) and doc @@ path (parser/json_ops.py)
    RANGE_PARSERS = {**DuckDB.Parser.RANGE_PARSERS,
                     TokenType.DAT: lambda self, this: self.expression(
                         JSONBPathMatch(this=this, expression=self._parse_bitwise()))}
    JSON_OPERATORS = {**DuckDB.Parser.JSON_OPERATORS,
                      TokenType.ARROW: lambda self, this, key: self.expression(
                          exp.JSONExtract(this=this, expression=key)),
                      TokenType.DARROW: lambda self, this, key: self.expression(
                          exp.JSONExtractScalar(this=this, expression=key))}

    def _parse_bitwise(self) -> exp.Expression | None:
        """sqlglot's, and inet's ``a <<= b`` / ``a >>= b`` (contained by or equals, contains or
        equals: engine/network.py), which it read as ``<`` and ``<=`` - a syntax error."""
        this = super()._parse_bitwise()
        while this is not None and (self._match_pair(TokenType.LT, TokenType.LTE)
                                    or self._match_pair(TokenType.GT, TokenType.GTE)):
            name = NETWORK_OPERATORS[self._prev.token_type]
            this = self.expression(exp.Anonymous(this=name, expressions=[this, super()._parse_bitwise()]))
        return this

    def _parse_root(self, root: type) -> exp.Expression:
        """``|/ x`` or ``||/ x`` (``UNARY_PARSERS``): sqrt or cbrt of x as a double precision, an
        operator's value, which PostgreSQL names ?column? (meta ``PREFIX_OPERATOR``)."""
        node = self.expression(root(this=exp.cast(self._parse_term(), exp.DataType.build("DOUBLE"))))
        node.meta[PREFIX_OPERATOR] = True
        return node

    # PostgreSQL's U&'d\0061t\+000061' [UESCAPE '!']: decoded here (``unicode_escapes``)
    STRING_PARSERS = {**DuckDB.Parser.STRING_PARSERS,
                      TokenType.UNICODE_STRING: lambda self, token: self._parse_unicode_string(token)}
    PRIMARY_PARSERS = {**DuckDB.Parser.PRIMARY_PARSERS, **STRING_PARSERS}

    def _parse_primary(self):
        """String constants are continued by one after whitespace with a newline only, as
        PostgreSQL's scanner joins them: ``'a' 'b'`` on one line is 42601 (sqlglot joined any two)."""
        index = self._index
        while index + 1 < len(self._tokens) and self._tokens[index].token_type == TokenType.STRING \
                and self._tokens[index + 1].token_type == TokenType.STRING:
            before, after = self._tokens[index:index + 2]
            if "\n" not in self.sql[before.end + 1:after.start]:
                self.raise_error(f"at or near \"'{after.text}'\"", after)
            index += 1
        return super()._parse_primary()

    def parse(self, raw_tokens, sql=None):
        """The tokens read again where sqlglot's tokenizer reads them otherwise than PostgreSQL's
        scanner - escape strings with Unicode escapes (``_unicode_in_escape_strings``), numbers
        (``_numbers_read``), ``?|`` / ``?&`` after no operand (``_placeholders_apart``) - then
        parsed. PostgreSQL's ``T ARRAY`` (without a size) is ``T[]``: sqlglot took what follows
        ARRAY for a size (``a int ARRAY, b int`` was a syntax error, ``int ARRAY NOT NULL`` an
        array of size NOT NULL), so ARRAY after a type, before anything but ``[``, is read as ``[]``."""
        tokens = _atomic_bodies(_unicode_in_escape_strings(list(raw_tokens), sql), sql)
        tokens = _numbers_read(tokens, sql)
        tokens = _placeholders_apart(tokens, _OPERAND_ENDS | self.TYPE_TOKENS)
        for i in range(len(tokens) - 1, 0, -1):
            token = tokens[i]
            if token.token_type == TokenType.ARRAY and \
                    (tokens[i - 1].token_type in self.TYPE_TOKENS or tokens[i - 1].token_type == TokenType.R_PAREN) \
                    and (i + 1 == len(tokens) or tokens[i + 1].token_type not in (TokenType.L_BRACKET,
                                                                                   TokenType.L_PAREN)):
                tokens[i:i + 1] = [Token(TokenType.L_BRACKET, "[", token.line, token.col, token.start, token.end),
                                   Token(TokenType.R_BRACKET, "]", token.line, token.col, token.start, token.end)]
        return super().parse(tokens, sql)

    def _parse_interval_span(self, this, parse_function_unit: bool = True):
        """``INTERVAL '-1 day 02:00'`` is the whole text, as PostgreSQL reads it: sqlglot took its
        one ``number unit`` pair and dropped the rest (-1 day, two hours lost); a text of just
        that pair (``'2 days'``) stays sqlglot's ``INTERVAL '2' DAYS``."""
        interval = super()._parse_interval_span(this, parse_function_unit)
        if this is not None and this.is_string and interval.this is not this and \
                isinstance(interval.unit, exp.Var) and not _ONE_INTERVAL_PART.fullmatch(this.name):
            interval.set("this", this)
            interval.set("unit", None)
        if this is not None and this.is_string and (interval.this is not this or interval.unit is None):
            fields = self._parse_interval_fields()
            if fields is not None:  # (INTERVAL '1 day 2 hours' HOUR TO MINUTE: sqlglot stopped at the fields)
                interval.set("this", this)
                interval.set("unit", fields)
                interval.meta[INTERVAL_FIELDS] = True
        elif isinstance(interval.unit, exp.Var) and interval.unit.name.upper() in _INTERVAL_FIELD_NAMES \
                and this is not None and this.is_string:
            interval.meta[INTERVAL_FIELDS] = True  # (INTERVAL '1' HOUR: fields written after the text)
        return interval

    def _parse_interval_fields(self) -> exp.Expression | None:
        """An interval literal's fields after its text - ``DAY``, ``HOUR TO MINUTE`` - or None."""
        if self._curr is None or self._curr.text.upper() not in _INTERVAL_FIELD_NAMES:
            return None
        first = exp.var(self._curr.text.upper())
        self._advance()
        if self._curr is None or self._curr.text.upper() != "TO" or self._next is None \
                or self._next.text.upper() not in _INTERVAL_FIELD_NAMES:
            return first
        last = exp.var(self._next.text.upper())
        self._advance(2)
        return exp.IntervalSpan(this=first, expression=last)

    def _parse_types(self, *args, **kwargs):
        """PostgreSQL's ``interval second(p)`` and ``interval day to second(p)``: the precision
        of an interval type whose last field is seconds (sqlglot stopped at the parenthesis, 42601)."""
        data_type = super()._parse_types(*args, **kwargs)
        if isinstance(data_type, exp.DataType) and isinstance(data_type.this, exp.Interval) \
                and not data_type.expressions and self._curr is not None and self._curr.token_type == TokenType.L_PAREN:
            unit = data_type.this.unit
            last = unit.expression if isinstance(unit, exp.IntervalSpan) else unit
            if last is not None and last.name.upper() == "SECOND":
                self._match(TokenType.L_PAREN)
                data_type.set("expressions", [exp.DataTypeParam(this=self._parse_number())])
                self._match_r_paren()
        return data_type

    def _parse_type(self, parse_interval: bool = True, fallback_to_identifier: bool = False):
        """A typed literal binds before a cast, as in PostgreSQL: ``DATE '2024-05-17'::timestamp``
        is a TIMESTAMP (sqlglot cast the string to TIMESTAMP, then to DATE)."""
        nxt = self._next
        if not fallback_to_identifier and self._curr is not None and self._curr.token_type == TokenType.VAR \
                and self._curr.text.lower() == "cidr" and nxt is not None and nxt.token_type == TokenType.STRING:
            self._advance()  # (cidr '10/8': a typed literal of the type sqlglot does not know, as inet '...' is)
            literal = self._parse_primary()
            to = exp.DataType(this=exp.DType.USERDEFINED, kind="cidr")
            return self._parse_column_ops(self.expression(exp.Cast(this=literal, to=to)))
        if fallback_to_identifier or self._curr is None or self._curr.token_type not in self.TYPE_TOKENS \
                or nxt is None or nxt.token_type != TokenType.STRING or self._curr.token_type == TokenType.INTERVAL:
            return super()._parse_type(parse_interval, fallback_to_identifier)
        index = self._index
        data_type = self._parse_types(check_func=True, allow_identifiers=False)
        if not isinstance(data_type, exp.DataType) or self._curr is None or self._curr.token_type != TokenType.STRING:
            self._retreat(index)
            return super()._parse_type(parse_interval, fallback_to_identifier)
        literal = self._parse_primary()
        parser = self.TYPE_LITERAL_PARSERS.get(data_type.this)
        typed = parser(self, literal, data_type) if parser else self.expression(exp.Cast(this=literal, to=data_type))
        return self._parse_column_ops(typed)

    def _parse_unicode_string(self, token: Token) -> exp.Literal:
        """``U&'...'`` and its ``UESCAPE 'c'``: a string constant of the characters its escapes
        name; an escape character that could be taken for part of an escape is 42601."""
        escape = "\\"
        if self._match_text_seq("UESCAPE"):
            escape = _escape_character(self._curr)
            self._advance()
        return self.expression(exp.Literal.string(unicode_escapes(token.text, escape)), token)

    def _parse_user_defined_type(self, identifier: exp.Identifier):
        """A type name sqlglot does not know (an enum, a domain, ``s.mood``), folded as PostgreSQL
        folds names: unquoted to lower case, quoted as written - ``CREATE TYPE Mood`` makes
        ``mood``, and ``'x'::Mood`` / ``m Mood`` name it (sqlglot kept the case as written)."""
        parts = [identifier.name if identifier.quoted else identifier.name.lower()]
        while self._match(TokenType.DOT):
            self._advance_any()
            token = self._prev
            parts.append(token.text if token.token_type == TokenType.IDENTIFIER else token.text.lower())
        return exp.DataType.from_str(".".join(parts), dialect=self.dialect, udt=True)

    def _parse_on_property(self):
        """PostgreSQL's ``ON COMMIT DROP`` of a temporary table (sqlglot reads PRESERVE ROWS and
        DELETE ROWS only): an OnCommitProperty with ``drop``."""
        if self._match_text_seq("COMMIT", "DROP"):
            return exp.OnCommitProperty(drop=True)
        return super()._parse_on_property()

    def _parse_index(self, index=None, anonymous: bool = False):
        """``CREATE INDEX ... ON ONLY t``: PostgreSQL's ONLY leaves a partitioned table's
        partitions unindexed; txlake has no partitions, so it is the table itself."""
        if (index or anonymous) and self._curr is not None and self._curr.token_type == TokenType.ON \
                and self._next is not None and self._next.token_type == TokenType.ONLY:
            self._advance(2)
        return super()._parse_index(index, anonymous)

    def _parse_local_temporary(self):
        """``LOCAL TEMP`` / ``LOCAL TEMPORARY``: a TemporaryProperty, as TEMP alone."""
        if self._match_texts(("TEMP", "TEMPORARY")):
            return self.expression(exp.TemporaryProperty())
        self._retreat(self._index - 1)
        return None

    def _parse_index_params(self):
        """PostgreSQL's ``NULLS [NOT] DISTINCT`` of a unique index, after its columns (and
        INCLUDE): sqlglot's index parameters lack it. Kept as the parameters' ``nulls`` arg:
        "NOT DISTINCT" or "DISTINCT"."""
        self._index_nulls = None
        params = super()._parse_index_params()
        if self._index_nulls is not None:
            params.set("nulls", self._index_nulls)
        return params

    def _parse_partition_by(self):
        """(Where an index's parameters look for PARTITION BY: its ``NULLS [NOT] DISTINCT``,
        read into ``_index_nulls`` for ``_parse_index_params``.)"""
        if getattr(self, "_index_nulls", None) is None and self._curr is not None \
                and self._curr.text.upper() == "NULLS" and self._next is not None \
                and self._next.text.upper() in ("NOT", "DISTINCT"):
            self._index_nulls = "NOT DISTINCT" if self._match_text_seq("NULLS", "NOT", "DISTINCT") else None
            if self._index_nulls is None and self._match_text_seq("NULLS", "DISTINCT"):
                self._index_nulls = "DISTINCT"
        return super()._parse_partition_by()

    def _parse_partitioned_by(self):
        """CREATE TABLE's ``PARTITION BY {RANGE | LIST | HASH} ( key [, ...] )``: ``this`` an
        Anonymous named by the strategy (as written) whose arguments are the key's items, each
        an expression - one with a COLLATE or an operator class after it a Collate or an Alias
        (parser/parse.py refuses both). sqlglot read RANGE (a) as a call of DuckDB's range."""
        if not self._curr or self._next is None or self._next.token_type != TokenType.L_PAREN:
            return super()._parse_partitioned_by()
        strategy = self._curr.text
        self._advance(2)
        items = self._parse_csv(lambda: self._parse_alias(self._parse_assignment()))
        self._match_r_paren()
        return self.expression(exp.PartitionedByProperty(this=exp.Anonymous(this=strategy, expressions=items)))

    def _parse_drop(self, exists: bool = False, kind: str | None = None):
        """``DROP INDEX a, b [CASCADE]``: sqlglot read one index name only."""
        drop = super()._parse_drop(exists, kind)
        if isinstance(drop, exp.Drop) and drop.args.get("kind") == "INDEX" and self._match(TokenType.COMMA):
            drop.set("tables", [*drop.args["tables"], *self._parse_csv(lambda: self._parse_table_parts(schema=True))])
            if self._match_texts(("CASCADE", "RESTRICT")):
                drop.set("cascade", self._prev.text.upper() == "CASCADE")
        return drop

    def _parse_merge(self):
        """PostgreSQL's MERGE INTO (sqlglot's parser took ``MERGE t USING ...`` too), whose data
        source may be a join (``USING a JOIN b ON ... ON ...``: the source Table gets the joins,
        as a FROM's does; sqlglot's parser read a table alone)."""
        if not self._match(TokenType.INTO, advance=False):
            self.raise_error(f'at or near "{self._curr.text}"' if self._curr else "at end of input",
                             self._curr or self._prev)
        self._match(TokenType.INTO)
        target = self._parse_table()
        if target and self._match(TokenType.ALIAS, advance=False):
            target.set("alias", self._parse_table_alias())
        self._match(TokenType.USING)
        using = self._parse_table()
        joins = []
        while using is not None and not self._match(TokenType.COMMA, advance=False):
            join = self._parse_join()
            if join is None:
                break
            joins.append(join)
        if joins:
            using.set("joins", joins)
        return self.expression(exp.Merge(
            this=target, using=using, on=self._match(TokenType.ON) and self._parse_disjunction(),
            using_cond=self._match(TokenType.USING) and self._parse_using_identifiers(),
            whens=self._parse_when_matched(), returning=self._parse_returning()))

    def _parse_generated_as_identity(self):
        """``GENERATED { ALWAYS | BY DEFAULT } AS IDENTITY [( sequence options )]``: the options
        as CREATE SEQUENCE's (sqlglot's took START WITH and INCREMENT BY only, in that order),
        kept in the node's meta (``sequence_options``). A generated column, ``GENERATED ALWAYS AS
        (expr) STORED``, is a ComputedColumnConstraint (engine/generated.py)."""
        index = self._index
        always = not self._match_text_seq("BY", "DEFAULT")
        if always:
            self._match_text_seq("ALWAYS")
        if not (self._match(TokenType.ALIAS) and self._match_text_seq("IDENTITY")):
            self._retreat(index)
            generated = super()._parse_generated_as_identity()
            if self._match_text_seq("STORED"):
                node = self.expression(exp.ComputedColumnConstraint(this=generated.expression, persisted=True))
                node.meta["by_default"] = not always  # (GENERATED BY DEFAULT AS (...): 42601, parser/parse.py)
                return node
            return generated
        node = self.expression(exp.GeneratedAsIdentityColumnConstraint(this=always))
        if self._match(TokenType.L_PAREN):
            node.meta["sequence_options"] = self.parse_sequence_options(until=TokenType.R_PAREN)
            self._match_r_paren()
        return node

    def _parse_insert_table(self):
        """The INSERT's table, then PostgreSQL's ``OVERRIDING { SYSTEM | USER } VALUE``, which the
        INSERT's node gets in its meta (``overriding``: ``_parse_insert``)."""
        table = super()._parse_insert_table()
        self._overriding = self._parse_overriding()
        return table

    def _parse_overriding(self) -> str | None:
        """``OVERRIDING { SYSTEM | USER } VALUE``: SYSTEM or USER, or None if it is not there."""
        if not self._match_text_seq("OVERRIDING"):
            return None
        kind = self._curr.text.upper() if self._curr else ""
        if kind not in ("SYSTEM", "USER") or not self._next or self._next.text.upper() != "VALUE":
            self.raise_error(f'at or near "{self._curr.text}"' if self._curr else "at end of input",
                             self._curr or self._prev)
        self._advance(2)
        return kind

    def _parse_when_matched(self):
        """A MERGE's WHEN clauses; an INSERT action's OVERRIDING clause (``_parse_value``) in its
        node's meta (``overriding``), as an INSERT statement's."""
        outer, self._merge_overriding = getattr(self, "_merge_overriding", None), []
        try:
            whens = super()._parse_when_matched()
            # (the INSERT actions that read a column list, or its absence, with _parse_value: in order)
            inserts = [w.args["then"] for w in whens.expressions if isinstance(w.args.get("then"), exp.Insert)
                       and not isinstance(w.args["then"].this, (exp.Star, exp.Var))]
            for then, kind in zip(inserts, self._merge_overriding):
                if kind is not None:
                    then.meta["overriding"] = kind
            return whens
        finally:
            self._merge_overriding = outer

    def _parse_value(self, values: bool = True):
        """sqlglot's; in a MERGE's INSERT action (``values`` False: its column list), PostgreSQL's
        OVERRIDING clause may follow the list or stand in its place: kept, in the order of the
        actions, for ``_parse_when_matched``."""
        merging = getattr(self, "_merge_overriding", None)
        if values or merging is None:
            return super()._parse_value(values)
        node = None if self._curr and self._curr.text.upper() == "OVERRIDING" else super()._parse_value(values)
        merging.append(self._parse_overriding())
        return node

    def _parse_insert(self):
        outer, self._overriding = getattr(self, "_overriding", None), None
        try:
            node = super()._parse_insert()
            if self._overriding is not None and node is not None:
                node.meta["overriding"] = self._overriding
            return node
        finally:
            self._overriding = outer

    def _parse_alter_table_alter(self):
        """PostgreSQL's ``ALTER [COLUMN] c RESTART [[WITH] n]`` of an identity column (the
        AlterColumn's meta ``restart``: n, or True) and ``ALTER [COLUMN] c ADD GENERATED ... AS
        IDENTITY [(...)]`` (meta ``add_identity``), ``ALTER [COLUMN] c DROP EXPRESSION [IF EXISTS]``
        of a generated column (meta ``drop_expression``: whether IF EXISTS), else sqlglot's actions."""
        index = self._index
        self._match(TokenType.COLUMN)
        column = self._parse_field(any_token=True)
        if column is not None and self._match_text_seq("ADD", "GENERATED"):
            # ADD GENERATED { ALWAYS | BY DEFAULT } AS IDENTITY [( options )] (pg_dump's identity
            # columns): meta ``add_identity``, the constraint node (_parse_generated_as_identity)
            identity = self._parse_generated_as_identity()
            if not isinstance(identity, exp.GeneratedAsIdentityColumnConstraint):
                self.raise_error(f'at or near "{self._curr.text}"' if self._curr else "at end of input",
                                 self._curr or self._prev)
            node = self.expression(exp.AlterColumn(this=column))
            node.meta["add_identity"] = identity
            return node
        if column is not None and self._match_text_seq("DROP", "EXPRESSION"):
            node = self.expression(exp.AlterColumn(this=column))
            node.meta["drop_expression"] = bool(self._match_text_seq("IF", "EXISTS"))
            return node
        if column is not None and self._match_text_seq("RESTART"):
            with_ = bool(self._match_text_seq("WITH"))
            number = with_ or (self._curr is not None and self._curr.token_type in (
                TokenType.NUMBER, TokenType.DASH, TokenType.PLUS))
            node = self.expression(exp.AlterColumn(this=column))
            node.meta["restart"] = self._sequence_number() if number else True
            return node
        self._retreat(index)
        return super()._parse_alter_table_alter()

    def _parse_alter_table_add(self):
        return self._in_alter_action_list(super()._parse_alter_table_add)

    def _parse_alter_table_rename(self):
        if not self._match(TokenType.CONSTRAINT):
            return super()._parse_alter_table_rename()
        old = self._parse_id_var(any_token=False)
        if old is None or not self._match_text_seq("TO"):
            self.raise_error(f'at or near "{self._curr.text}"' if self._curr else "at end of input", self._curr)
        return self.expression(RenameConstraint(this=old, to=self._parse_id_var(any_token=False)))

    def _parse_validate_constraint(self) -> ValidateConstraint | None:
        if not self._match(TokenType.CONSTRAINT):
            return None
        return self.expression(ValidateConstraint(this=self._parse_id_var(any_token=False)))

    def _parse_alter_table_drop(self):
        return self._in_alter_action_list(super()._parse_alter_table_drop)

    def _in_alter_action_list(self, parse):
        """An ALTER TABLE's ADD / DROP list ends at a comma before another action (``ADD a INT,
        DROP b``): sqlglot's lists went on, and the next action was a syntax error. The
        ALTER's own loop (ALTER_TABLE_MIXED_ACTIONS) reads it."""
        outer, self._alter_action_list = getattr(self, "_alter_action_list", False), True
        try:
            return parse()
        finally:
            self._alter_action_list = outer

    def _parse_cte(self):
        """A WITH item, and PostgreSQL's SEARCH / CYCLE clauses after it (parser/search_cycle.py;
        sqlglot read one clause of one column after the last item only)."""
        start = self._curr
        cte = super()._parse_cte()
        if isinstance(cte, exp.CTE):
            cte.meta[search_cycle.POSITION] = start.start + 1
            if self._match_text_seq("SEARCH"):
                cte.set("search", self._parse_cte_search())
            if self._match_text_seq("CYCLE"):
                cte.set("cycle", self._parse_cte_cycle())
        return cte

    def _parse_cte_search(self) -> search_cycle.CteSearch:
        position = self._prev.start + 1
        breadth = self._match_text_seq("BREADTH")
        if not breadth and not self._match_text_seq("DEPTH"):
            self._expected("BREADTH or DEPTH")
        if not self._match_text_seq("FIRST", "BY"):
            self._expected("FIRST BY")
        columns = self._parse_csv(self._parse_id_var)
        if not self._match_text_seq("SET"):
            self._expected("SET")
        node = search_cycle.CteSearch(this=self._expect_id(), expressions=columns, breadth=breadth)
        node.meta[search_cycle.POSITION] = position
        return node

    def _parse_cte_cycle(self) -> search_cycle.CteCycle:
        position = self._prev.start + 1
        columns = self._parse_csv(self._parse_id_var)
        if not self._match_text_seq("SET"):
            self._expected("SET")
        mark = self._expect_id()
        value = default = None
        if self._match_text_seq("TO"):  # (PostgreSQL's AexprConst: a constant, of a type or not)
            value = self._parse_cycle_mark()
            if not self._match(TokenType.DEFAULT):
                self._expected("DEFAULT")
            default = self._parse_cycle_mark()
        if not self._match_text_seq("USING"):
            self._expected("USING")
        node = search_cycle.CteCycle(this=mark, expressions=columns, value=value, default=default,
                                     path=self._expect_id())
        node.meta[search_cycle.POSITION] = position
        return node

    def _parse_cycle_mark(self) -> exp.Expression:
        token = self._curr
        mark = self._parse_bitwise()
        if not isinstance(mark, (exp.Literal, exp.Boolean, exp.Null)) and not (
                isinstance(mark, exp.Cast) and isinstance(mark.this, exp.Literal)):
            self.raise_error(f'at or near "{token.text}"' if token else "at end of input", token or self._prev)
        return mark

    def _expect_id(self) -> exp.Identifier:
        identifier = self._parse_id_var(any_token=False)
        if identifier is None:
            self._expected("a column name")
        return identifier

    def _expected(self, what: str) -> None:
        self.raise_error(f'at or near "{self._curr.text}"' if self._curr else "at end of input",
                         self._curr or self._prev)

    def _parse_with(self, skip_with_token: bool = False):
        with_ = super()._parse_with(skip_with_token)
        if with_ is not None and any(c.args.get("search") or c.args.get("cycle") for c in with_.expressions):
            search_cycle.rewrite(with_)
        return with_

    def _parse_csv(self, parse_method, sep=TokenType.COMMA):
        """A comma-separated list, as sqlglot's - except that an empty item is a syntax error,
        as in PostgreSQL (sqlglot skips it: ``SELECT 1,, 2`` and ``WHERE id IN (1,)`` ran)."""
        items = []
        item = parse_method()
        if item is not None:
            items.append(item)
        while self._match(sep):
            if sep == TokenType.COMMA and getattr(self, "_alter_action_list", False) and self._curr \
                    and self._curr.text.upper() in self._ALTER_ACTIONS:
                self._retreat(self._index - 1)  # (the comma, for the ALTER's loop)
                break
            if isinstance(item, exp.Expr):
                self._add_comments(item)
            item = parse_method()
            if item is None:
                if sep == TokenType.COMMA:
                    self.raise_error(f'at or near "{self._curr.text}"' if self._curr else "at end of input",
                                     self._curr or self._prev)
            else:
                items.append(item)
        return items

    def _parse_statement(self):
        """A statement; one that begins its chunk of the text (a ``;``-separated statement)
        keeps where it is in the text, as (first, last) character offsets, in its meta
        (``SOURCE_SPAN``): errors are positioned in the whole text, as PostgreSQL's are."""
        whole = self._index == 0 and bool(self._tokens)
        node = self._parse_one_statement()
        if whole and node is not None:
            node.meta[SOURCE_SPAN] = (self._tokens[0].start, self._tokens[-1].end)
        return node

    def _parse_one_statement(self):
        if self._curr is None:
            return None
        word = self._curr.text.upper()
        handler = self._CONTROL_STATEMENTS.get(word)
        if handler is not None and self._curr.token_type != TokenType.STRING:
            start = self._index
            node = handler(self)
            if node is not None:
                return node
            self._retreat(start)
        return super()._parse_statement()

    # --- transaction control -------------------------------------------------------------

    def _parse_begin_statement(self) -> Control:
        self._advance()  # BEGIN
        self._match_texts(("TRANSACTION", "WORK"))
        return self._parse_transaction_modes(Control(kind="BEGIN"), allow_label=True)

    def _parse_start_statement(self) -> Control | None:
        if not self._next or self._next.text.upper() != "TRANSACTION":
            return None
        self._advance(2)
        return self._parse_transaction_modes(Control(kind="BEGIN"), allow_label=True)

    def _parse_commit_statement(self) -> Control:
        self._advance()  # COMMIT / END
        if self._match_text_seq("PREPARED"):
            return Control(kind="COMMIT_PREPARED", label=self._expect_string("transaction identifier"))
        self._match_texts(("TRANSACTION", "WORK"))
        self._reject_and_chain()
        return Control(kind="COMMIT")

    def _parse_rollback_statement(self) -> Control:
        self._advance()  # ROLLBACK / ABORT
        if self._match_text_seq("PREPARED"):
            return Control(kind="ROLLBACK_PREPARED", label=self._expect_string("transaction identifier"))
        self._match_texts(("TRANSACTION", "WORK"))
        if self._match_text_seq("TO"):
            self._match_text_seq("SAVEPOINT")
            return Control(kind="ROLLBACK_TO", name=self._expect_name("savepoint name"))
        self._reject_and_chain()
        return Control(kind="ROLLBACK")

    def _parse_savepoint_statement(self) -> Control:
        self._advance()
        return Control(kind="SAVEPOINT", name=self._expect_name("savepoint name"))

    def _parse_release_statement(self) -> Control:
        self._advance()
        self._match_text_seq("SAVEPOINT")
        return Control(kind="RELEASE", name=self._expect_name("savepoint name"))

    def _parse_prepare_statement(self) -> Control | None:
        if self._next and self._next.text.upper() == "TRANSACTION":
            self._advance(2)
            return Control(kind="PREPARE_TRANSACTION", label=self._expect_string("transaction identifier"))
        # PREPARE name [(type, ...)] AS statement: the statement is kept as text, parsed when
        # PREPARE runs (engine/session.py) and again with its parameters' values at EXECUTE
        self._advance()  # PREPARE
        name = self._expect_name("prepared statement name")
        types = self._parse_wrapped_csv(self._parse_types) if self._curr and \
            self._curr.token_type == TokenType.L_PAREN else []
        if not self._match(TokenType.ALIAS):
            self.raise_error(f'at or near "{self._curr.text}"' if self._curr else "at end of input", self._curr)
        if self._curr is None:
            self.raise_error("at end of input")
        start, end = self._curr.start, self._tokens[-1].end
        self._index = len(self._tokens) - 1
        self._advance()  # (past the last token: the statement is whole)
        return Control(kind="PREPARE", name=name, value=self.sql[start:end + 1], types=types)

    def _parse_execute_statement(self) -> Control:
        """``EXECUTE name [(value, ...)]``: each value as written (substituted for its ``$n``)."""
        self._advance()  # EXECUTE
        name = self._expect_name("prepared statement name")
        args = []
        if self._match(TokenType.L_PAREN):
            while True:
                first = self._curr
                if first is None or self._parse_assignment() is None:
                    self.raise_error(f'at or near "{first.text}"' if first else "at end of input", first)
                args.append(exp.Literal.string(self.sql[first.start:self._prev.end + 1]))
                if not self._match(TokenType.COMMA):
                    break
            self._match_r_paren()
        return Control(kind="EXECUTE", name=name, value=args)

    def _parse_deallocate_statement(self) -> Control:
        self._advance()  # DEALLOCATE
        self._match_text_seq("PREPARE")
        if self._match_text_seq("ALL"):
            return Control(kind="DEALLOCATE")
        return Control(kind="DEALLOCATE", name=self._expect_name("prepared statement name"))

    # --- settings ------------------------------------------------------------------------

    def _parse_set_statement(self) -> Control:
        self._advance()  # SET
        if self._match_text_seq("TRANSACTION"):
            return self._parse_transaction_modes(Control(kind="SET_TRANSACTION"))
        if self._match_text_seq("SESSION", "CHARACTERISTICS", "AS", "TRANSACTION"):
            return self._parse_transaction_modes(Control(kind="SET_SESSION_CHARACTERISTICS"))
        if self._match_text_seq("CONSTRAINTS"):  # SET CONSTRAINTS { ALL | name [, ...] } { DEFERRED | IMMEDIATE }
            names = None if self._match(TokenType.ALL) else self._parse_csv(self._parse_table_parts)
            if not self._match_texts(("DEFERRED", "IMMEDIATE")):
                self.raise_error("Expected DEFERRED or IMMEDIATE")
            return Control(kind="SET_CONSTRAINTS", name=names, value=self._prev.text.upper())
        local = bool(self._match_text_seq("LOCAL"))
        if not local:
            self._match_text_seq("SESSION")
        if self._match_text_seq("TIME", "ZONE"):  # SET TIME ZONE 'UTC' | LOCAL | DEFAULT
            value = None if self._match_text_seq("LOCAL") else self._parse_setting_value()
            return Control(kind="SET", name="timezone", value=value, local=local)
        name = self._setting_name()
        if not (self._match(TokenType.EQ) or self._match_text_seq("TO")):
            self.raise_error("Expected = or TO")
        value = self._parse_search_path() if name.lower() == "search_path" else self._parse_setting_value()
        return Control(kind="SET", name=name, value=value, local=local)

    def _parse_search_path(self) -> str | None:
        """SET search_path's list of schemas, as PostgreSQL keeps it (statements.search_path_text):
        a name folded to lower case, a quoted name or a string as it is; None for DEFAULT."""
        if self._curr and self._curr.text.upper() == "DEFAULT" and self._curr.token_type != TokenType.STRING:
            self._advance()
            return None
        schemas = []
        while True:
            token = self._curr
            if not token or token.token_type in (TokenType.SEMICOLON, TokenType.COMMA):
                self.raise_error("Expected a schema name", token or self._prev)
                return None
            schemas.append(token.text if token.token_type in (TokenType.STRING, TokenType.IDENTIFIER)
                           else token.text.lower())
            self._advance()
            if not self._match(TokenType.COMMA):
                break
        if self._curr and self._curr.token_type != TokenType.SEMICOLON:
            self.raise_error("Expected , or the end of the statement")
        return search_path_text(schemas)

    def _setting_name(self) -> str:
        """A setting's name; a custom one has a prefix (``app.tenant``), as PostgreSQL's."""
        parts = [self._expect_name("setting name")]
        while self._match(TokenType.DOT):
            parts.append(self._expect_name("setting name"))
        return ".".join(parts)

    def _parse_reset_statement(self) -> Control:
        self._advance()
        if self._match_text_seq("TIME", "ZONE"):  # (RESET TIME ZONE: a syntax error at "zone" before)
            return Control(kind="SET", name="timezone", value=None)
        return Control(kind="SET", name=self._setting_name(), value=None)

    def _parse_show_statement(self) -> Control:
        self._advance()
        if self._match_text_seq("TRANSACTION", "ISOLATION", "LEVEL"):
            return Control(kind="SHOW", name="transaction_isolation")
        if self._match_text_seq("TIME", "ZONE"):
            return Control(kind="SHOW", name="timezone")
        if self._curr and self._curr.text.upper() == "ALL":
            self._advance()
            return Control(kind="SHOW", name="all")
        return Control(kind="SHOW", name=self._setting_name())

    def _parse_call_statement(self) -> Control:
        """``CALL txlake.compact('t')``, ``CALL txlake.expire_snapshots(older_than => '1 day')``."""
        self._advance()  # CALL
        parts = [self._expect_name("procedure name")]
        while self._match(TokenType.DOT):
            parts.append(self._expect_name("procedure name"))
        args = self._parse_wrapped_csv(self._parse_call_argument) if self._curr and \
            self._curr.token_type == TokenType.L_PAREN else []
        return Control(kind="CALL", name=".".join(parts), value=args)

    def _parse_call_argument(self):
        if self._curr and self._next and self._next.token_type == TokenType.FARROW:
            name = self._curr.text.lower()
            self._advance(2)
            return exp.Kwarg(this=exp.var(name), expression=self._parse_bitwise())
        return self._parse_bitwise()

    def _parse_setting_value(self) -> str | None:
        parts: list[str] = []
        while self._curr and self._curr.token_type != TokenType.SEMICOLON:
            token = self._curr
            if token.token_type == TokenType.DEFAULT or token.text.upper() == "DEFAULT" and not parts:
                self._advance()
                return None
            if token.token_type == TokenType.COMMA:
                parts.append(",")
            else:
                parts.append(token.text)
            self._advance()
        if not parts:
            self.raise_error("Expected a setting value")
        return " ".join(parts).replace(" , ", ", ")

    # --- COPY ----------------------------------------------------------------------------

    def _parse_copy(self) -> exp.Copy:
        """PostgreSQL's COPY: ``COPY table [(columns)] FROM 'file' | STDIN | PROGRAM 'cmd' [[WITH]
        (option [value], ...)] [WHERE condition]`` and ``COPY table [(columns)] | (query) TO 'file'
        | STDOUT [[WITH] (...)]``, also with the options of before PostgreSQL 9.0 (``WITH CSV
        HEADER DELIMITER ',' NULL AS '' FORCE NOT NULL a``). sqlglot's COPY (Snowflake's and
        DuckDB's) read the old options as an opaque command. The node's params are
        ``CopyParameter(this=Var(lower-case name), expression=value or None)``, the old spelling
        made the new one (CSV: format csv, FORCE NOT NULL: force_not_null, ...); the file is a
        string Literal, or Var STDIN, STDOUT or PROGRAM."""
        params = []
        if self._match_text_seq("BINARY"):  # (COPY BINARY t ..., the oldest spelling)
            params.append(self._copy_param("format", exp.var("binary")))
        if self._match(TokenType.L_PAREN, advance=False):
            this = self._parse_select(nested=True, parse_subquery_alias=False)
        else:
            this = self._parse_table(schema=True)
        if this is None:
            self.raise_error("Expected a table or (query) after COPY")
        if self._match(TokenType.FROM):
            kind = True
        elif self._match_text_seq("TO"):
            kind = False
        else:
            self.raise_error("Expected FROM or TO")
            kind = True
        files = [self._parse_copy_file()]
        self._match(TokenType.WITH)
        if self._match(TokenType.L_PAREN):
            params += self._parse_csv(self._parse_copy_option)
            self._match_r_paren()
        else:
            params += self._parse_old_copy_options()
        if self._match(TokenType.WHERE):
            params.append(self._copy_param("where", self._parse_disjunction()))
        if self._curr and self._curr.token_type != TokenType.SEMICOLON:
            self.raise_error(f'at or near "{self._curr.text}"')
        return self.expression(exp.Copy(this=this, kind=kind, files=files, params=params))

    def _parse_copy_file(self) -> exp.Expression:
        token = self._curr
        if token and token.token_type == TokenType.STRING:
            self._advance()
            return exp.Literal.string(token.text)
        word = token.text.upper() if token else ""
        if word in ("STDIN", "STDOUT"):
            self._advance()
            return exp.var(word)
        if word == "PROGRAM":  # (refused: parse.py)
            self._advance()
            self._expect_string("command")
            return exp.var("PROGRAM")
        self.raise_error("Expected a file name as a string literal, STDIN or STDOUT", token or self._prev)
        return exp.Literal.string("")

    @staticmethod
    def _copy_param(name: str, value: exp.Expression | None) -> exp.CopyParameter:
        return exp.CopyParameter(this=exp.var(name), expression=value)

    def _parse_copy_option(self) -> exp.CopyParameter:
        """One ``name [value]`` of the parenthesized list: a value is a string, a number, a word
        (true, off, csv, match), ``*`` or a parenthesized list of column names."""
        token = self._curr
        if not token or token.token_type in (TokenType.COMMA, TokenType.R_PAREN, TokenType.STRING):
            self.raise_error("Expected a COPY option", token or self._prev)
        self._advance()
        name = token.text.lower()
        value = self._parse_copy_option_value()
        return self._copy_param(name, value)

    def _parse_copy_option_value(self) -> exp.Expression | None:
        token = self._curr
        if not token or token.token_type in (TokenType.COMMA, TokenType.R_PAREN, TokenType.SEMICOLON):
            return None
        if token.token_type in (TokenType.STRING, TokenType.BYTE_STRING, TokenType.NATIONAL_STRING):
            self._advance()
            return exp.Literal.string(token.text)
        if token.token_type == TokenType.NUMBER or token.token_type == TokenType.DASH:
            sign = "-" if self._match(TokenType.DASH) else ""
            number = self._curr
            if not number or number.token_type != TokenType.NUMBER:
                self.raise_error("Expected a number", number or self._prev)
            self._advance()
            return exp.Literal.number(sign + number.text)
        if token.token_type == TokenType.STAR:
            self._advance()
            return exp.Star()
        if token.token_type == TokenType.L_PAREN:
            self._advance()
            names = self._parse_csv(self._parse_copy_column)
            self._match_r_paren()
            return exp.Tuple(expressions=names)
        self._advance()
        return exp.var(token.text.lower())

    def _parse_copy_column(self) -> exp.Identifier:
        token = self._curr
        if not token or token.token_type in (TokenType.COMMA, TokenType.R_PAREN, TokenType.STRING):
            self.raise_error("Expected a column name", token or self._prev)
        self._advance()
        return exp.to_identifier(token.text, quoted=token.token_type == TokenType.IDENTIFIER)

    def _parse_old_copy_options(self) -> list[exp.CopyParameter]:
        """COPY's options as PostgreSQL wrote them before 9.0 (and still reads): words, no list."""
        params = []
        while self._curr and self._curr.token_type not in (TokenType.SEMICOLON, TokenType.WHERE):
            word = self._curr.text.upper()
            if word in ("BINARY", "CSV"):
                self._advance()
                params.append(self._copy_param("format", exp.var(word.lower())))
            elif word == "HEADER":
                self._advance()
                params.append(self._copy_param("header", None))
            elif word in ("DELIMITER", "NULL", "QUOTE", "ESCAPE", "ENCODING"):
                self._advance()
                self._match(TokenType.ALIAS)
                value = self._parse_copy_option_value()
                if not isinstance(value, exp.Literal) or not value.is_string:
                    self.raise_error(f"Expected a string after {word}", self._prev)
                params.append(self._copy_param(word.lower(), value))
            elif word == "FORCE":
                self._advance()
                if self._match_text_seq("NOT", "NULL"):
                    name = "force_not_null"
                elif self._match(TokenType.NULL):
                    name = "force_null"
                elif self._match_text_seq("QUOTE"):
                    name = "force_quote"
                else:
                    self.raise_error("Expected NOT NULL, NULL or QUOTE after FORCE")
                    name = ""
                if self._match(TokenType.STAR):
                    value = exp.Star()
                else:
                    value = exp.Tuple(expressions=self._parse_csv(self._parse_copy_column))
                params.append(self._copy_param(name, value))
            else:
                break
        return params

    def _parse_initially(self) -> ConstraintTiming:
        if not self._match_texts(("DEFERRED", "IMMEDIATE")):
            self.raise_error("Expected DEFERRED or IMMEDIATE")
        return ConstraintTiming(this=f"INITIALLY {self._prev.text.upper()}")

    def _parse_not_constraint(self) -> exp.Expression | None:
        if self._match_text_seq("DEFERRABLE"):
            return ConstraintTiming(this="NOT DEFERRABLE")
        return super()._parse_not_constraint()

    def _parse_unique_key(self) -> exp.Expression | None:
        """UNIQUE's index name (MySQL's ``UNIQUE KEY name``), never a constraint attribute:
        ``a INT UNIQUE DEFERRABLE`` is deferrable, not an index named "deferrable"."""
        if self._curr and self._curr.token_type != TokenType.IDENTIFIER \
                and self._curr.text.upper() in ("DEFERRABLE", "INITIALLY"):
            return None
        return super()._parse_unique_key()

    def _parse_constraint(self) -> exp.Expression | None:
        """A table's constraint; an unnamed one's attributes (``CHECK (a > 0) DEFERRABLE``), which
        sqlglot reads only after a key's, kept in its meta ``timing`` (a named one has them among
        its expressions, as after a column's)."""
        named = self._curr is not None and self._curr.token_type == TokenType.CONSTRAINT
        node = super()._parse_constraint()
        while node is not None and not named and self._curr is not None:
            timing = self._parse_not_constraint() if self._match(TokenType.NOT) else \
                self.CONSTRAINT_PARSERS[self._prev.text.upper()](self) \
                if self._match_texts(("DEFERRABLE", "INITIALLY")) else None
            if not isinstance(timing, ConstraintTiming):
                break
            node.meta.setdefault("timing", []).append(timing)
        return node

    def _parse_key_constraint_options(self) -> list:
        """sqlglot's options of REFERENCES, and PostgreSQL 15's column list of a SET NULL / SET
        DEFAULT action (``ON DELETE SET NULL (b)``): a Tuple of the columns after the action."""
        options = super()._parse_key_constraint_options()
        while options and isinstance(options[-1], str) and options[-1].endswith(("SET NULL", "SET DEFAULT")) \
                and self._match(TokenType.L_PAREN):
            columns = self._parse_csv(self._parse_id_var)
            self._match_r_paren()
            options += [exp.Tuple(expressions=columns), *super()._parse_key_constraint_options()]
        return options

    # --- shared pieces -------------------------------------------------------------------

    def _parse_transaction_modes(self, node: Control, allow_label: bool = False) -> Control:
        while self._curr and self._curr.token_type != TokenType.SEMICOLON:
            if self._match_text_seq("ISOLATION", "LEVEL"):
                for words in _ISOLATION_LEVELS:
                    if self._match_text_seq(*words):
                        node.set("isolation", " ".join(words))
                        break
                else:
                    self.raise_error("Expected SERIALIZABLE, REPEATABLE READ, READ COMMITTED or READ UNCOMMITTED")
            elif self._match_text_seq("READ", "ONLY"):
                node.set("read_only", True)
            elif self._match_text_seq("READ", "WRITE"):
                node.set("read_only", False)
            elif self._match_text_seq("NOT", "DEFERRABLE") or self._match_text_seq("DEFERRABLE"):
                pass  # only meaningful for SERIALIZABLE READ ONLY; accepted as PostgreSQL does
            elif allow_label and self._match_text_seq("WITH", "LABEL"):
                node.set("label", self._expect_string("label"))
            elif not self._match(TokenType.COMMA):
                self.raise_error("Unexpected token in transaction modes")
        return node

    # --- CREATE / ALTER / DROP SEQUENCE --------------------------------------------------

    def _parse_sequence_statement(self) -> SequenceCommand | Control | None:
        no_effect = self._parse_no_effect_statement()
        if no_effect is not None:
            return no_effect
        if self._next and self._next.text.upper() in ("TYPE", "DOMAIN"):
            return self._parse_type_statement()
        words = [t.text.upper() for t in self._tokens[self._index:self._index + 4]]
        if words[:2] in (["CREATE", "FUNCTION"], ["DROP", "FUNCTION"], ["CREATE", "PROCEDURE"],
                         ["DROP", "PROCEDURE"]) or words in (["CREATE", "OR", "REPLACE", "FUNCTION"],
                                                             ["CREATE", "OR", "REPLACE", "PROCEDURE"]):
            return self._parse_function_statement()
        if words[1:2] == ["POLICY"]:
            return self._parse_policy_statement()
        if words[1:2] == ["TRIGGER"] or words[:4] == ["CREATE", "OR", "REPLACE", "TRIGGER"] or \
                words[:3] == ["CREATE", "CONSTRAINT", "TRIGGER"]:
            return self._parse_trigger_statement()
        if self._next and self._next.text.upper() == "MATERIALIZED" and self._curr.text.upper() != "DROP":
            return self._parse_matview_statement()
        if not self._next or self._next.text.upper() != "SEQUENCE":
            return None
        kind = self._curr.text.upper()
        self._advance(2)
        if kind == "DROP":
            exists, names, cascade = self._drop_names()
            return SequenceCommand(kind=kind, names=names, exists=exists, cascade=cascade)
        exists = bool(self._match_text_seq("IF", "NOT", "EXISTS") if kind == "CREATE" else
                      self._match_text_seq("IF", "EXISTS"))
        name = self._parse_table_parts()
        return SequenceCommand(kind=kind, names=[name], exists=exists,
                               options=self.parse_sequence_options(restart=kind == "ALTER"))

    def _drop_names(self) -> tuple[bool, list, bool]:
        """A DROP's ``[IF EXISTS] name [, ...] [CASCADE | RESTRICT]``: (if exists, names, cascade)."""
        exists = bool(self._match_text_seq("IF", "EXISTS"))
        names = self._parse_csv(self._parse_table_parts)
        cascade = bool(self._match_text_seq("CASCADE"))
        if not cascade:
            self._match_text_seq("RESTRICT")
        return exists, names, cascade

    # --- CREATE [OR REPLACE] FUNCTION, DROP FUNCTION ---------------------------------------

    def _parse_function_statement(self) -> FunctionCommand:
        procedure = "PROCEDURE" in (t.text.upper() for t in self._tokens[self._index:self._index + 4])
        if self._match_text_seq("DROP"):
            self._advance()  # FUNCTION / PROCEDURE
            exists = bool(self._match_text_seq("IF", "EXISTS"))
            functions = self._parse_csv(lambda: self._function_signature(procedure))
            cascade = bool(self._match_text_seq("CASCADE"))
            if not cascade:
                self._match_text_seq("RESTRICT")
            return FunctionCommand(kind="DROP", functions=functions, exists=exists, cascade=cascade,
                                   procedure=procedure)
        replace = bool(self._match_text_seq("CREATE", "OR", "REPLACE"))
        self._advance(1 if replace else 2)  # [CREATE] FUNCTION / PROCEDURE
        made = FunctionCommand(kind="CREATE", this=self._parse_table_parts(schema=True), replace=replace, options=[],
                               procedure=procedure)
        if not self._match(TokenType.L_PAREN):
            self.raise_error("Expected (")
        made.set("params", [] if self._match(TokenType.R_PAREN) else self._parse_csv(self._function_parameter))
        if made.args["params"] and not self._match(TokenType.R_PAREN):
            self.raise_error("Expected )")
        while self._curr and self._curr.token_type != TokenType.SEMICOLON:
            self._function_attribute(made)
        return made

    # --- CREATE TRIGGER, DROP TRIGGER, ALTER TRIGGER, ALTER TABLE ... ENABLE TRIGGER -----------

    def _parse_trigger_statement(self) -> TriggerCommand:
        kind = self._curr.text.upper()
        self._advance()
        if kind == "DROP":
            self._advance()  # TRIGGER
            exists = bool(self._match_text_seq("IF", "EXISTS"))
            name = self._parse_id_var(any_token=False)
            self._expect_word("ON")
            table = self._parse_table_parts()
            cascade = bool(self._match_text_seq("CASCADE"))
            if not cascade:
                self._match_text_seq("RESTRICT")
            return TriggerCommand(kind="DROP", this=name, table=table, exists=exists, cascade=cascade)
        if kind == "ALTER":
            self._advance()  # TRIGGER
            name = self._parse_id_var(any_token=False)
            self._expect_word("ON")
            table = self._parse_table_parts()
            self._expect_word("RENAME")
            self._expect_word("TO")
            return TriggerCommand(kind="RENAME", this=name, table=table, to=self._parse_id_var(any_token=False))
        replace = bool(self._match_text_seq("OR", "REPLACE"))
        constraint = bool(self._match_text_seq("CONSTRAINT"))
        self._expect_word("TRIGGER")
        made = TriggerCommand(kind="CREATE", this=self._parse_id_var(any_token=False), replace=replace,
                              constraint=constraint, events=[], args=[])
        timing = "INSTEAD OF" if self._match_text_seq("INSTEAD", "OF") else \
            self._prev.text.upper() if self._match_texts(("BEFORE", "AFTER")) else None
        if timing is None:
            self._syntax_error_here()
        made.set("timing", timing)
        while True:
            if not self._match_texts(("INSERT", "UPDATE", "DELETE", "TRUNCATE")):
                self._syntax_error_here()
            event = self._prev.text.upper()
            columns = self._parse_csv(self._parse_id_var) if event == "UPDATE" and self._match_text_seq("OF") else []
            made.args["events"].append(exp.Tuple(expressions=[exp.var(event), *columns]))
            if not self._match_text_seq("OR"):
                break
        self._expect_word("ON")
        made.set("table", self._parse_table_parts())
        while self._match_text_seq("FROM") or self._match_text_seq("NOT", "DEFERRABLE") or \
                self._match_text_seq("DEFERRABLE") or self._match_text_seq("INITIALLY"):
            made.set("constraint", True)  # (a constraint trigger's clauses)
            self._advance()
        if self._match_text_seq("REFERENCING"):  # ({OLD | NEW} {TABLE | ROW} [AS] name) ...
            made.set("referencing", [])
            while self._match_texts(("OLD", "NEW")):
                which = self._prev.text.upper()
                if not self._match_texts(("TABLE", "ROW")):
                    self._syntax_error_here()
                kind = self._prev.text.upper()
                self._match(TokenType.ALIAS)
                made.args["referencing"].append(exp.Tuple(expressions=[
                    exp.var(which), exp.var(kind), self._parse_id_var(any_token=False)]))
            if not made.args["referencing"]:
                self._syntax_error_here()
        if self._match_text_seq("FOR"):
            self._match_text_seq("EACH")
            if not self._match_texts(("ROW", "STATEMENT")):
                self._syntax_error_here()
            made.set("row", self._prev.text.upper() == "ROW")
        if self._match_text_seq("WHEN"):
            made.set("when", self._parse_wrapped(self._parse_assignment))
        self._expect_word("EXECUTE")
        if not self._match_texts(("FUNCTION", "PROCEDURE")):
            self._syntax_error_here()
        made.set("function", self._parse_table_parts(schema=True))
        if not self._match(TokenType.L_PAREN):
            self._syntax_error_here()
        while not self._match(TokenType.R_PAREN):
            if self._curr is None or self._curr.token_type not in (
                    TokenType.STRING, TokenType.NUMBER, TokenType.VAR, TokenType.IDENTIFIER) and not \
                    self._curr.text.isidentifier():
                self._syntax_error_here()
            made.args["args"].append(exp.Literal.string(self._curr.text))
            self._advance()
            if self._curr is not None and self._curr.token_type != TokenType.R_PAREN:
                self._match(TokenType.COMMA) or self._syntax_error_here()
        return made

    def _parse_trigger_switch(self, kind: str) -> TriggerCommand:
        """ALTER TABLE's ``ENABLE | DISABLE [REPLICA | ALWAYS] TRIGGER { name | ALL | USER }``; None
        (nothing read: the ALTER is then a command) for another ENABLE / DISABLE (ROW LEVEL SECURITY, RULE)."""
        start = self._index
        if self._match_text_seq("ROW", "LEVEL", "SECURITY"):
            return PolicyCommand(kind=kind)
        if self._match_texts(("REPLICA", "ALWAYS")):
            kind = f"{kind} {self._prev.text.upper()}"
        if not self._match_text_seq("TRIGGER"):
            self._retreat(start)
            return None
        return TriggerCommand(kind=kind, this=self._parse_id_var(any_token=True))

    def _parse_partition_command(self, kind: str) -> PartitionCommand:
        """ALTER TABLE's ``ATTACH PARTITION name {FOR VALUES spec | DEFAULT}`` / ``DETACH PARTITION
        name [CONCURRENTLY | FINALIZE]`` (a DETACH CONCURRENTLY is a plain one: txlake's DDL waits
        for no reader)."""
        self._expect_word("PARTITION")
        table = self._parse_table_parts(schema=True)
        if kind == "DETACH":
            self._match_texts(("CONCURRENTLY", "FINALIZE"))
            return PartitionCommand(kind=kind, this=table)
        if self._match(TokenType.DEFAULT):
            return PartitionCommand(kind=kind, this=table, bound=exp.var("DEFAULT"))
        if not self._match_text_seq("FOR", "VALUES"):  # (ALTER INDEX i ATTACH PARTITION j: no bound)
            return PartitionCommand(kind=kind, this=table)
        return PartitionCommand(kind=kind, this=table, bound=self._parse_partition_bound_spec())
    def _parse_row_security(self, kind: str) -> PolicyCommand | None:
        """ALTER TABLE's ``FORCE | NO FORCE ROW LEVEL SECURITY``; None (nothing read) else."""
        start = self._index
        if self._match_text_seq(*kind.split()[1:], "ROW", "LEVEL", "SECURITY"):
            return PolicyCommand(kind=kind)
        self._retreat(start)
        return None

    # --- CREATE / ALTER / DROP POLICY --------------------------------------------------------

    def _parse_policy_statement(self) -> PolicyCommand:
        kind = self._curr.text.upper()
        self._advance(2)  # CREATE / ALTER / DROP POLICY
        exists = kind == "DROP" and bool(self._match_text_seq("IF", "EXISTS"))
        made = PolicyCommand(kind=kind, this=self._parse_id_var(any_token=False), exists=exists)
        self._expect_word("ON")
        made.set("table", self._parse_table_parts())
        if kind == "DROP":
            made.set("cascade", bool(self._match_text_seq("CASCADE")))
            if not made.args["cascade"]:
                self._match_text_seq("RESTRICT")
            return made
        if kind == "ALTER" and self._match_text_seq("RENAME"):
            self._expect_word("TO")
            made.set("to", self._parse_id_var(any_token=False))
            return made
        if kind == "CREATE":
            made.set("permissive", True)
            if self._match_text_seq("AS"):
                if not self._match_texts(("PERMISSIVE", "RESTRICTIVE")):
                    self.raise_error(f'unrecognized row security option "{self._curr.text if self._curr else ""}"'
                                     "\nHINT:  Only PERMISSIVE or RESTRICTIVE policies are supported currently.")
                made.set("permissive", self._prev.text.upper() == "PERMISSIVE")
            made.set("command", "ALL")
            if self._match_text_seq("FOR"):
                if not self._match_texts(("ALL", "SELECT", "INSERT", "UPDATE", "DELETE")):
                    self._syntax_error_here()
                made.set("command", self._prev.text.upper())
        if self._match_text_seq("TO"):
            roles = []
            while True:
                if self._curr is None or self._curr.token_type == TokenType.SEMICOLON:
                    self._syntax_error_here()
                quoted = self._curr.token_type == TokenType.IDENTIFIER
                roles.append(self._curr.text if quoted else self._curr.text.lower())
                self._advance()
                if not self._match(TokenType.COMMA):
                    break
            made.set("roles", roles)
        if self._match_text_seq("USING"):
            made.set("using", self._parse_wrapped(self._parse_assignment))
        if self._match_text_seq("WITH", "CHECK"):
            made.set("check", self._parse_wrapped(self._parse_assignment))
        return made

    def _expect_word(self, word: str) -> None:
        if not self._match_text_seq(word):
            self._syntax_error_here()

    def _syntax_error_here(self) -> None:
        self.raise_error(f'syntax error at or near "{self._curr.text}"' if self._curr else
                         "syntax error at end of input", self._curr or self._prev)

    def _function_signature(self, procedure: bool = False) -> exp.Tuple:
        """DROP FUNCTION's ``name [( [[mode] [name] type [, ...]] )]`` (a function's OUT arguments
        are no part of its signature; a procedure's are)."""
        name = self._parse_table_parts(schema=True)
        if not self._match(TokenType.L_PAREN):
            return exp.Tuple(expressions=[name])
        params = [] if self._match(TokenType.R_PAREN) else self._parse_csv(self._function_parameter)
        if params and not self._match(TokenType.R_PAREN):
            self.raise_error("Expected )")
        return exp.Tuple(expressions=[name, exp.Tuple(expressions=[p.expressions[2] for p in params
                                                                   if procedure or p.expressions[0].name != "OUT"])])

    def _function_parameter(self) -> exp.Tuple:
        """``[IN | OUT | INOUT | VARIADIC] [name] type [{DEFAULT | =} expression]``: a name is
        there when what follows the first word is a type too (PostgreSQL's grammar)."""
        mode = "IN"
        if self._curr and self._curr.text.upper() in ("IN", "OUT", "INOUT", "VARIADIC") and \
                self._next and self._next.token_type not in (TokenType.COMMA, TokenType.R_PAREN):
            mode = self._curr.text.upper()
            self._advance()
        start = self._index
        name, data_type = None, self._parse_types()
        if data_type is None or self._curr is None or self._curr.token_type not in (
                TokenType.COMMA, TokenType.R_PAREN, TokenType.DEFAULT, TokenType.EQ):
            self._retreat(start)
            name = self._parse_id_var(any_token=False)
            data_type = self._parse_types()
        if data_type is None:
            self.raise_error(f'syntax error at or near "{self._curr.text if self._curr else ""}"')
        default = self._parse_bitwise() if self._match(TokenType.DEFAULT) or self._match(TokenType.EQ) else None
        return exp.Tuple(expressions=[exp.var(mode), name or exp.Null(), data_type, default or exp.Null()])

    def _function_attribute(self, made: FunctionCommand) -> None:
        """One of CREATE FUNCTION's clauses after its arguments, set on ``made``."""
        start = self._curr
        word = start.text.upper() if start.token_type not in (TokenType.STRING, TokenType.HEREDOC_STRING) else ""
        if start.token_type == TokenType.HEREDOC_STRING and start.text.upper().startswith("BEGIN"):
            self._advance()  # (BEGIN ATOMIC ... END, made one token by _atomic_bodies)
            made.set("body", start.text)
            made.set("standard", True)
        elif self._match_text_seq("RETURNS", "NULL", "ON", "NULL", "INPUT") or self._match_text_seq("STRICT"):
            made.set("strict", True)
        elif self._match_text_seq("CALLED", "ON", "NULL", "INPUT"):
            made.set("strict", False)
        elif self._match_text_seq("RETURNS"):
            if self._match(TokenType.TABLE):
                columns = self._parse_wrapped_csv(self._parse_column_def_of_function)
                made.set("table", columns)
                made.set("setof", True)
            else:
                made.set("setof", bool(self._match_text_seq("SETOF")))
                pseudo = self._curr.text.lower() if self._curr and self._curr.text.upper() in _PSEUDO_TYPES else None
                data_type = self._parse_types() if pseudo is None else exp.DataType.build(pseudo, udt=True)
                if pseudo is not None:
                    self._advance()
                if data_type is None:
                    self.raise_error("Expected a type")
                made.set("returns", data_type)
        elif self._match_text_seq("LANGUAGE"):
            made.set("language", self._curr.text.lower())
            self._advance()
        elif word in ("IMMUTABLE", "STABLE", "VOLATILE"):
            self._advance()
            made.set("volatility", word)
        elif self._match(TokenType.ALIAS):
            if self._curr is None or self._curr.token_type not in (TokenType.STRING, TokenType.HEREDOC_STRING):
                self.raise_error("Expected a string")
            made.set("body", self._curr.text)
            self._advance()
            if self._match(TokenType.COMMA):  # (AS 'obj_file', 'link_symbol': a C function's)
                self._advance()
        elif word == "RETURN":
            self._advance()
            first = self._curr
            self._parse_assignment()
            last = self._prev
            made.set("body", "RETURN " + self.sql[first.start:last.end + 1])
            made.set("standard", True)
        else:
            made.args["options"].append(self._function_option(word))

    def _parse_column_def_of_function(self) -> exp.ColumnDef:
        name = self._parse_id_var(any_token=False)
        return exp.ColumnDef(this=name, kind=self._parse_types())

    def _function_option(self, word: str) -> str:
        """An attribute txlake keeps as written only: its words, up to the next attribute."""
        first = self._curr
        if word == "SET":  # SET name {TO | =} value | FROM CURRENT
            self._advance(2)
            if self._match_text_seq("FROM", "CURRENT"):
                return self.sql[first.start:self._prev.end + 1]
            if not self._match_texts(("TO", "=")):
                self.raise_error("Expected TO or =")
            self._advance()
            while self._match(TokenType.COMMA):
                self._advance()
        elif word in ("PARALLEL", "COST", "ROWS", "SUPPORT"):
            self._advance(2)
        elif word == "EXTERNAL" or word == "SECURITY":
            self._match_text_seq("EXTERNAL")
            if not self._match_text_seq("SECURITY") or not self._match_texts(("DEFINER", "INVOKER")):
                self.raise_error("Expected SECURITY DEFINER or INVOKER")
        elif word == "NOT" and self._next and self._next.text.upper() == "LEAKPROOF" or word == "LEAKPROOF":
            self._match_text_seq("NOT")
            self._advance()
        elif word in ("WINDOW", "TRANSFORM"):
            raise errors.NotSupportedError(f"CREATE FUNCTION ... {word} is not supported")
        else:
            self.raise_error(f'syntax error at or near "{first.text}"', first)
        return self.sql[first.start:self._prev.end + 1]

    # --- CREATE / ALTER MATERIALIZED VIEW, REFRESH ----------------------------------------
    # (sqlglot reads CREATE MATERIALIZED VIEW name AS query alone: not IF NOT EXISTS, a column
    # list nor WITH [NO] DATA; DROP MATERIALIZED VIEW it reads)

    def _parse_matview_statement(self) -> exp.Create | exp.Alter | None:
        """``CREATE MATERIALIZED VIEW [IF NOT EXISTS] name [(columns)] AS query [WITH [NO]
        DATA]`` as sqlglot's CREATE VIEW with a MaterializedProperty (and a WithDataProperty);
        ``ALTER MATERIALIZED VIEW [IF EXISTS] name RENAME TO new | RENAME [COLUMN] a TO b`` as
        an ALTER of kind MATERIALIZED VIEW; any other ALTER of one is refused (0A000; OWNER TO
        is a no-effect statement: ``_parse_no_effect_statement``)."""
        kind = self._curr.text.upper()
        if not self._next or not self._match_text_seq(kind, "MATERIALIZED", "VIEW"):
            return None
        if kind == "ALTER":
            exists = bool(self._match_text_seq("IF", "EXISTS"))
            this = self._parse_table_parts()
            action = self._parse_alter_table_rename() if self._match_text_seq("RENAME") else None
            if not isinstance(action, (exp.AlterRename, exp.RenameColumn)) or \
                    (self._curr and self._curr.token_type != TokenType.SEMICOLON):
                raise errors.NotSupportedError("ALTER MATERIALIZED VIEW is supported for RENAME TO and RENAME "
                                               "COLUMN only")
            return exp.Alter(this=this, kind="MATERIALIZED VIEW", actions=[action], exists=exists)
        exists = bool(self._match_text_seq("IF", "NOT", "EXISTS"))
        this = self._parse_schema(this=self._parse_table_parts(schema=True))
        if self._curr and self._curr.text.upper() in ("USING", "WITH", "TABLESPACE"):
            raise errors.NotSupportedError(f"CREATE MATERIALIZED VIEW ... {self._curr.text.upper()} is not supported")
        if not self._match(TokenType.ALIAS):
            self.raise_error("Expected AS", self._curr or self._prev)
        query = self._parse_ddl_select()
        no_data = self._with_data_last()
        return exp.Create(this=this, kind="VIEW", expression=query, exists=exists, properties=exp.Properties(
            expressions=[exp.MaterializedProperty(), exp.WithDataProperty(no=no_data)]))

    def _parse_refresh_statement(self) -> RefreshMatview | None:
        if not self._match_text_seq("REFRESH", "MATERIALIZED", "VIEW"):
            return None
        concurrently = bool(self._match_text_seq("CONCURRENTLY"))
        this = self._parse_table_parts()
        no_data = self._with_data_last()
        return RefreshMatview(this=this, concurrently=concurrently, no_data=no_data)

    def _with_data_last(self) -> bool:
        """A statement's closing ``[WITH [NO] DATA]``: whether it said NO DATA."""
        no_data = bool(self._match_text_seq("WITH", "NO", "DATA"))
        if not no_data:
            self._match_text_seq("WITH", "DATA")
        if self._curr and self._curr.token_type != TokenType.SEMICOLON:
            self.raise_error(f'syntax error at or near "{self._curr.text}"', self._curr)
        return no_data

    # --- CREATE / ALTER / DROP TYPE and DOMAIN ----------------------------------------------

    def _parse_type_statement(self) -> TypeCommand | None:
        kind, domain = self._curr.text.upper(), self._next.text.upper() == "DOMAIN"
        start = self._index
        self._advance(2)
        if kind == "DROP":
            exists, names, cascade = self._drop_names()
            return TypeCommand(kind=kind, domain=domain, names=names, exists=exists, cascade=cascade)
        name = self._parse_table_parts()
        if kind == "CREATE" and not domain and self._match_text_seq("AS") and self._match(TokenType.L_PAREN):
            attributes = [] if self._match(TokenType.R_PAREN) else self._parse_csv(self._type_attribute)
            if attributes and not self._match(TokenType.R_PAREN):
                self.raise_error("Expected )")
            return TypeCommand(kind=kind, names=[name], attributes=attributes)  # (a composite type)
        if kind == "CREATE" and not domain:
            self._retreat(start + 2)
            self._parse_table_parts()
            if not self._match_text_seq("AS", "ENUM"):  # (range, base types: sqlglot's, refused)
                self._retreat(start)
                return None
            if not self._match(TokenType.L_PAREN):
                self.raise_error("Expected (")
            labels = [] if self._match(TokenType.R_PAREN) else self._parse_csv(self._expect_label)
            if labels and not self._match(TokenType.R_PAREN):
                self.raise_error("Expected )")
            return TypeCommand(kind=kind, names=[name], labels=labels)
        if kind == "CREATE":
            self._match(TokenType.ALIAS)
            base = self._parse_types()
            if base is None:
                self.raise_error("Expected a type")
            default, constraints = None, []
            while self._curr and self._curr.token_type != TokenType.SEMICOLON:
                if self._match(TokenType.DEFAULT):
                    default = self._parse_bitwise()
                elif self._match_text_seq("COLLATE"):
                    self._parse_id_var()  # (text compares as DuckDB's: the collation is not kept)
                else:
                    constraints.append(self._domain_constraint())
            return TypeCommand(kind=kind, domain=True, names=[name], base=base, default=default,
                               constraints=constraints)
        return self._alter_type(name, domain)

    def _type_attribute(self) -> exp.ColumnDef:
        """A composite type's ``name type [COLLATE collation]``."""
        name = self._parse_id_var()
        kind = self._parse_types()
        if name is None or kind is None:
            self.raise_error(f'syntax error at or near "{self._curr.text if self._curr else ""}"')
        if self._match_text_seq("COLLATE"):
            self._parse_id_var()
        return exp.ColumnDef(this=name, kind=kind)

    def _expect_label(self) -> exp.Literal:
        label = self._parse_string()
        if label is None:
            self.raise_error(f'at or near "{self._curr.text if self._curr else ""}"')
        return label

    def _domain_constraint(self) -> exp.Constraint:
        """``[CONSTRAINT name] { NOT NULL | NULL | CHECK (expression) [NOT VALID] }``."""
        named = self._parse_id_var() if self._match(TokenType.CONSTRAINT) else None
        if self._match_text_seq("NOT", "NULL"):
            made = exp.NotNullColumnConstraint()
        elif self._match(TokenType.NULL):
            made = exp.NotNullColumnConstraint(allow_null=True)
        elif self._match_text_seq("CHECK"):
            made = exp.CheckColumnConstraint(this=self._parse_wrapped(self._parse_assignment))
            if self._match_text_seq("NOT", "VALID"):
                made.set("enforced", False)
        else:
            self.raise_error(f'at or near "{self._curr.text if self._curr else ""}"')
        return exp.Constraint(this=named, expressions=[made])

    def _alter_type(self, name: exp.Table, domain: bool) -> TypeCommand:
        made = TypeCommand(kind="ALTER", domain=domain, names=[name])
        if not domain and self._match_text_seq("ADD", "VALUE"):
            made.set("exists", bool(self._match_text_seq("IF", "NOT", "EXISTS")))
            made.set("labels", [self._expect_label()])
            if self._curr and self._curr.text.upper() in ("BEFORE", "AFTER"):
                made.set("after", self._curr.text.upper() == "AFTER")
                self._advance()
                made.set("target", self._expect_label())
            made.set("action", "ADD VALUE")
        elif not domain and self._match_text_seq("RENAME", "VALUE"):
            old = self._expect_label()
            if not self._match_text_seq("TO"):
                self.raise_error("Expected TO")
            made.set("labels", [old, self._expect_label()])
            made.set("action", "RENAME VALUE")
        elif self._match_text_seq("RENAME", "TO"):
            made.set("target", self._parse_id_var())
            made.set("action", "RENAME")
        elif not domain and self._match_text_seq("ADD", "ATTRIBUTE"):
            made.set("attributes", [self._type_attribute()])
            made.set("action", "ADD ATTRIBUTE")
        elif domain and self._match_text_seq("SET", "DEFAULT"):
            made.set("default", self._parse_bitwise())
            made.set("action", "SET DEFAULT")
        elif domain and self._match_text_seq("DROP", "DEFAULT"):
            made.set("action", "DROP DEFAULT")
        elif domain and self._match_text_seq("SET", "NOT", "NULL"):
            made.set("action", "SET NOT NULL")
        elif domain and self._match_text_seq("DROP", "NOT", "NULL"):
            made.set("action", "DROP NOT NULL")
        elif domain and self._match_text_seq("ADD"):
            made.set("constraints", [self._domain_constraint()])
            made.set("action", "ADD")
        elif domain and self._match_text_seq("DROP", "CONSTRAINT"):
            made.set("exists", bool(self._match_text_seq("IF", "EXISTS")))
            made.set("target", self._parse_id_var())
            made.set("cascade", bool(self._match_text_seq("CASCADE")))
            self._match_text_seq("RESTRICT")
            made.set("action", "DROP CONSTRAINT")
        else:
            words = " ".join(t.text.upper() for t in self._tokens[self._index:self._index + 2])
            raise errors.NotSupportedError(f"ALTER {'DOMAIN' if domain else 'TYPE'} ... {words} is not supported")
        return made

    def _parse_substring(self) -> exp.Expression:
        """``substring(s SIMILAR pattern ESCAPE escape)`` (SQL's; sqlglot's parser stopped at
        SIMILAR: 42601) as a call of SIMILAR_SUBSTRING, which parser/semantics.py makes a regular
        expression's; the FROM / FOR forms as sqlglot reads them."""
        start = self._index
        text = self._parse_bitwise()
        if text is not None and self._match_text_seq("SIMILAR"):
            pattern = self._parse_bitwise()
            if not self._match_text_seq("ESCAPE"):
                self.raise_error(f'at or near "{self._curr.text if self._curr else ")"}"')
            return exp.Anonymous(this=SIMILAR_SUBSTRING, expressions=[text, pattern, self._parse_bitwise()])
        self._retreat(start)
        return super()._parse_substring()

    def _parse_discard_statement(self) -> Control:
        """``DISCARD {ALL | PLANS | SEQUENCES | TEMPORARY | TEMP}``."""
        self._advance()  # DISCARD
        what = self._curr.text.upper() if self._curr else ""
        if what not in ("ALL", "PLANS", "SEQUENCES", "TEMPORARY", "TEMP"):
            self.raise_error(f'at or near "{self._curr.text}"' if self._curr else "at end of input",
                             self._curr or self._prev)
        self._advance()
        return Control(kind="DISCARD", name="TEMP" if what == "TEMPORARY" else what)

    def _parse_do_statement(self) -> Control:
        """``DO [LANGUAGE name] 'code' [LANGUAGE name]``: a Control DO, ``value`` the code (any
        string: ``$$ ... $$`` as a rule), ``name`` its language (plpgsql unless said)."""
        self._advance()  # DO
        language = code = None
        while self._index < len(self._tokens):
            if language is None and self._match_text_seq("LANGUAGE") and self._index < len(self._tokens):
                language = self._curr.text
                self._advance()
            elif code is None and self._curr.token_type in (TokenType.STRING, TokenType.HEREDOC_STRING):
                code = self._curr.text
                self._advance()
            else:
                self.raise_error(f'at or near "{self._curr.text}"', self._curr)
        if code is None:
            self.raise_error("at end of input", self._prev)
        return Control(kind="DO", value=code, name=language or "plpgsql")

    def _parse_notification_statement(self) -> Control:
        """``LISTEN channel``, ``UNLISTEN { channel | * }``, ``NOTIFY channel [, 'payload']``: a
        Control of that kind, ``name`` the channel (None: UNLISTEN *), ``value`` the payload."""
        kind = self._curr.text.upper()
        self._advance()
        channel = payload = None
        if kind == "UNLISTEN" and self._match(TokenType.STAR):
            pass
        elif self._at_token() and self._curr.token_type is TokenType.IDENTIFIER:  # "Quoted"
            channel = self._curr.text
            self._advance()
        elif self._at_token() and self._curr.token_type not in (TokenType.STRING, TokenType.NUMBER) \
                and re.fullmatch(r"[^\W\d]\w*", self._curr.text):
            channel = self._curr.text.lower()
            self._advance()
        else:
            self._refuse_token()
        if kind == "NOTIFY" and self._match(TokenType.COMMA):
            if not self._at_token() or self._curr.token_type not in (TokenType.STRING, TokenType.HEREDOC_STRING):
                self._refuse_token()
            payload = self._curr.text
            self._advance()
        if self._at_token():
            self._refuse_token()
        return Control(kind=kind, name=channel, value=payload)

    def _at_token(self) -> bool:
        return self._index < len(self._tokens)

    def _refuse_token(self) -> None:
        """42601 at the current token, or at the end of the statement."""
        if self._at_token():
            self.raise_error(f'at or near "{self._curr.text}"', self._curr)
        self.raise_error("at end of input", self._prev)
    # --- cursors (engine/cursors.py) --------------------------------------------------------

    _CURSOR_OPTIONS = ("BINARY", "ASENSITIVE", "INSENSITIVE", "SCROLL", "NO")
    # FETCH's direction words without a count, as PostgreSQL's grammar turns them into one
    _FETCH_WORDS = {"NEXT": ("FORWARD", 1), "PRIOR": ("BACKWARD", 1), "FIRST": ("ABSOLUTE", 1),
                    "LAST": ("ABSOLUTE", -1)}

    def _parse_declare_statement(self) -> CursorCommand:
        """``DECLARE name [BINARY] [ASENSITIVE | INSENSITIVE] [[NO] SCROLL] CURSOR [{WITH |
        WITHOUT} HOLD] FOR query`` (the options in any order, as PostgreSQL takes them): the
        query is kept as text, parsed as a statement of its own (parse.py)."""
        self._advance()  # DECLARE
        name = self._expect_name("cursor name")
        options = []
        while self._curr and self._curr.token_type != TokenType.IDENTIFIER and \
                self._curr.text.upper() in self._CURSOR_OPTIONS:
            if self._match_text_seq("NO"):
                if not self._match_text_seq("SCROLL"):
                    self._expected("SCROLL")
                options.append("NO SCROLL")
            else:
                options.append(self._curr.text.upper())
                self._advance()
        if not self._match_text_seq("CURSOR"):
            self._expected("CURSOR")
        hold = self._match_text_seq("WITH", "HOLD")
        if not hold:
            self._match_text_seq("WITHOUT", "HOLD")
        if not self._match(TokenType.FOR):
            self._expected("FOR")
        if self._curr is None or self._curr.token_type == TokenType.SENTINEL:
            self.raise_error("at end of input", self._prev)
        start, end = self._curr.start, self._tokens[-1].end
        self._index = len(self._tokens) - 1
        self._advance()  # (past the last token: the statement is whole)
        return CursorCommand(kind="DECLARE", this=name, options=options, hold=hold, query=self.sql[start:end + 1],
                             start=start)

    def _parse_fetch_statement(self) -> CursorCommand:
        """``FETCH`` or ``MOVE`` ``[direction] [FROM | IN] name``; direction: NEXT, PRIOR, FIRST,
        LAST, ABSOLUTE n, RELATIVE n, n, ALL, FORWARD [n | ALL], BACKWARD [n | ALL]."""
        kind = self._curr.text.upper()
        self._advance()  # FETCH / MOVE
        direction, count = "FORWARD", 1
        word = self._curr.text.upper() if self._curr and self._curr.token_type != TokenType.IDENTIFIER else ""
        if word in self._FETCH_WORDS:
            self._advance()
            direction, count = self._FETCH_WORDS[word]
        elif word in ("ABSOLUTE", "RELATIVE"):
            self._advance()
            direction, count = word, self._signed_count(required=True)
        elif word in ("FORWARD", "BACKWARD"):
            self._advance()
            direction, count = word, (None if self._match(TokenType.ALL) else self._signed_count(required=False))
        elif word == "ALL":
            self._advance()
            count = None
        elif self._curr and self._curr.token_type in (TokenType.NUMBER, TokenType.DASH, TokenType.PLUS):
            count = self._signed_count(required=True)
        self._match_texts(("FROM", "IN"))
        return CursorCommand(kind=kind, this=self._expect_name("cursor name"), direction=direction, count=count)

    def _parse_where(self, skip_where_token: bool = False):
        """A WHERE clause - but ``WHERE CURRENT OF cursor`` (an UPDATE or DELETE of the row a
        cursor is on) is refused, 0A000: a txlake cursor is a result read at DECLARE, with no
        row of a table to point at."""
        if self._curr and self._curr.token_type == TokenType.WHERE and self._index + 2 < len(self._tokens) and \
                [t.text.upper() for t in self._tokens[self._index + 1:self._index + 3]] == ["CURRENT", "OF"]:
            raise errors.NotSupportedError("WHERE CURRENT OF is not supported: txlake's cursors hold their rows, not "
                                           "places in a table (UPDATE or DELETE by the row's key)")
        return super()._parse_where(skip_where_token)

    def _signed_count(self, required: bool) -> int:
        """FETCH's SignedIconst: an integer, ``+`` or ``-`` before it; 1 if not ``required`` and
        there is none."""
        sign = -1 if self._match(TokenType.DASH) else 1
        if sign == 1 and self._match(TokenType.PLUS):
            required = True
        if self._curr and self._curr.token_type == TokenType.NUMBER and self._curr.text.isdigit():
            self._advance()
            return sign * int(self._prev.text)
        if required or sign == -1:
            self._expected("an integer")
        return 1

    def _parse_close_statement(self) -> CursorCommand:
        """``CLOSE name | ALL``."""
        self._advance()  # CLOSE
        if self._match(TokenType.ALL):
            return CursorCommand(kind="CLOSE")
        return CursorCommand(kind="CLOSE", this=self._expect_name("cursor name"))

    def _parse_refused_statement(self) -> None:
        """``LISTEN``, ``NOTIFY``, ``UNLISTEN``: 0A000 saying why (they were 42601 at their
        second word)."""
        word = self._curr.text.upper()
        raise errors.NotSupportedError(f"{word} is not supported: txlake has no asynchronous notifications")

    def _parse_no_effect_statement(self) -> Control | None:
        """``ALTER kind name OWNER TO role``, ``COMMENT ON ... IS ...`` (of what txlake keeps no
        comment on), ``GRANT ...``, ``REVOKE ...``, ``ALTER DEFAULT PRIVILEGES ...``, ``CREATE
        DATABASE ...``, ``ALTER DATABASE ...``: a Control NO_EFFECT (``name`` its command tag,
        ``value`` what it tells; parse.py makes it a NoEffect), or None for any other statement.
        txlake has no roles or privileges (whoever may open the warehouse's files may do all),
        and no databases but the warehouse, so these change nothing; a GRANT, REVOKE, CREATE or
        ALTER DATABASE says so. The rest of the statement is skipped: the object it names is not
        looked up."""
        tokens = [t for t in self._tokens[self._index:] if t.token_type != TokenType.SEMICOLON]
        # (words as written: a string or a quoted name is no keyword)
        words = [t.text.upper() if t.token_type not in (TokenType.STRING, TokenType.IDENTIFIER) else "" for t in tokens]
        first = words[0] if words else ""
        if first == "ALTER" and words[1:3] == ["DEFAULT", "PRIVILEGES"]:
            tag = "ALTER DEFAULT PRIVILEGES"
            notice = f"txlake has no privileges: {tag} changes nothing"
        elif first == "ALTER" and len(words) >= 5 and words[-3:-1] == ["OWNER", "TO"] and \
                words[-4] not in ("RENAME", "COLUMN", "CONSTRAINT", "ATTRIBUTE"):  # (RENAME owner TO x: a rename)
            kind = words[1] if words[1] != "MATERIALIZED" else "MATERIALIZED VIEW"
            tag, notice = f"ALTER {kind}", None  # (no roles: every object is the warehouse's)
        elif first == "COMMENT" and words[1:2] == ["ON"]:
            comment = self._parse_comment()
            if comment is not None:
                return comment
            tag, notice = "COMMENT", None  # (on an object txlake has not: a schema, a function, ...)
        elif first in ("GRANT", "REVOKE"):
            tag, notice = first, f"txlake has no roles or privileges: {first} changes nothing"
        elif first == "CREATE" and words[1:2] == ["EXTENSION"] and (built := _built_in_extension(tokens)):
            tag, notice = "CREATE EXTENSION", built
        elif first in ("CREATE", "ALTER") and words[1:2] == ["DATABASE"] and len(words) > 2:  # (pg_dump -C's)
            tag = f"{first} DATABASE"
            notice = f"txlake has no databases: {tag} changes nothing (a warehouse is txlake's database)"
        elif first == "ALTER" and (kind := _physical_alter(tokens, words)) is not None:
            tag, notice = f"ALTER {kind}", None  # (as PostgreSQL's: no notice)
        elif first == "REINDEX":
            tag = "REINDEX"
            notice = "txlake builds its indexes from the rows when it reads them: REINDEX changes nothing"
        elif first == "CLUSTER":
            tag, notice = "CLUSTER", "txlake keeps no table in an index's order: CLUSTER changes nothing"
        elif first == "CHECKPOINT" and len(words) == 1:
            tag, notice = "CHECKPOINT", "txlake's commits are durable when they return: CHECKPOINT changes nothing"
        elif first == "SECURITY" and words[1:2] == ["LABEL"]:
            raise errors.InvalidParameterValue("no security label providers have been loaded")
        else:
            return None
        self._index = len(self._tokens) - 1
        self._advance()  # (past the last token: the statement is whole)
        return Control(kind="NO_EFFECT", name=tag, value=notice)

    def _parse_comment(self) -> CommentOn | None:
        """``COMMENT ON {TABLE | [MATERIALIZED] VIEW | SEQUENCE | INDEX} name | COLUMN relation.column |
        CONSTRAINT name ON table IS 'text' | NULL``; None (nothing read) for a comment on
        anything else (a schema, a function, a domain's constraint)."""
        start = self._index
        self._advance(2)  # COMMENT ON
        kind = self._curr.text.upper() if self._curr and self._curr.token_type not in (
            TokenType.STRING, TokenType.IDENTIFIER) else ""
        if kind == "MATERIALIZED" and self._next and self._next.text.upper() == "VIEW":
            kind = "MATERIALIZED VIEW"
            self._advance()
        if kind not in _COMMENTED:
            self._retreat(start)
            return None
        self._advance()
        this, name = self._parse_table_parts(), None
        if kind == "COLUMN":  # ([schema.]relation.column)
            if not this.args.get("db"):
                self.raise_error("column name must be qualified")
            if not isinstance(this.this, exp.Identifier):
                self.raise_error("improper qualified name (too many dotted names)")
            this, name = exp.Table(this=this.args["db"], db=this.args.get("catalog")), this.this
        if kind == "CONSTRAINT":
            if not self._match_text_seq("ON"):
                self.raise_error("Expected ON")
            if self._curr and self._curr.text.upper() == "DOMAIN":
                self._retreat(start)
                return None
            this, name = self._parse_table_parts(), this.this
        if not self._match_text_seq("IS"):
            self.raise_error("Expected IS")
        text = None
        if self._curr and self._curr.token_type in (TokenType.STRING, TokenType.HEREDOC_STRING):
            text = self._curr.text
            self._advance()
        elif not self._match(TokenType.NULL):
            self.raise_error("Expected a string or NULL")
        if self._curr and self._curr.token_type != TokenType.SEMICOLON:
            self.raise_error(f'at or near "{self._curr.text}"', self._curr)
        return CommentOn(kind=kind, this=this, name=name, text=text)

    def parse_sequence_options(self, restart: bool = False, until=None) -> list:
        """CREATE / ALTER SEQUENCE's options (and an identity column's, up to ``until``)."""
        options = []
        while self._curr and self._curr.token_type != TokenType.SEMICOLON and \
                (until is None or self._curr.token_type != until):
            word = self._curr.text.upper()
            self._advance()
            if word == "AS":
                options.append(("type", self._parse_types(allow_identifiers=False)))
            elif word == "INCREMENT":
                self._match_text_seq("BY")
                options.append(("increment", self._sequence_number()))
            elif word in ("MINVALUE", "MAXVALUE"):
                options.append((word.lower(), self._sequence_number()))
            elif word == "NO" and self._curr and self._curr.text.upper() in ("MINVALUE", "MAXVALUE", "CYCLE"):
                option = self._curr.text.lower()
                self._advance()
                options.append((option, False if option == "cycle" else None))
            elif word == "START":
                self._match_text_seq("WITH")
                options.append(("start", self._sequence_number()))
            elif word == "RESTART" and restart:
                with_ = bool(self._match_text_seq("WITH"))
                number = with_ or (self._curr and self._curr.token_type in (TokenType.NUMBER, TokenType.DASH,
                                                                          TokenType.PLUS))
                options.append(("restart", self._sequence_number() if number else True))
            elif word == "CACHE":
                options.append(("cache", self._sequence_number()))
            elif word == "CYCLE":
                options.append(("cycle", True))
            elif word == "SEQUENCE" and until is not None and self._match_text_seq("NAME"):
                options.append(("sequence_name", self._parse_table_parts()))  # (an identity column's)
            elif word == "OWNED" and until is None and self._match_text_seq("BY"):
                none = self._curr and self._curr.text.upper() == "NONE" and \
                    (self._next is None or self._next.token_type != TokenType.DOT)
                if none:
                    self._advance()
                options.append(("owned_by", None if none else self._parse_table_parts()))
            elif word == "RENAME" and restart and not options and self._match_text_seq("TO"):
                options.append(("rename", self._parse_table_parts()))  # (ALTER SEQUENCE s RENAME TO r)
                if self._curr and self._curr.token_type != TokenType.SEMICOLON:
                    self.raise_error(f'at or near "{self._curr.text}"', self._curr)
            elif word in ("RENAME", "SET", "OWNER") and restart and not options:
                raise errors.NotSupportedError(f"ALTER SEQUENCE ... {word} is not supported")
            else:
                self.raise_error(f'at or near "{self._prev.text}"', self._prev)
        return options

    def _sequence_number(self) -> int:
        sign = -1 if self._match(TokenType.DASH) else 1
        if sign == 1:
            self._match(TokenType.PLUS)
        token = self._curr
        if not token or token.token_type != TokenType.NUMBER or not token.text.isdigit():
            self.raise_error(f'at or near "{token.text}"' if token else "at end of input", token or self._prev)
        self._advance()
        return sign * int(token.text)

    def _reject_and_chain(self) -> None:
        if self._match_text_seq("AND", "CHAIN"):
            # not implemented: ignoring it would end the block and autocommit what follows
            raise errors.NotSupportedError("COMMIT / ROLLBACK AND CHAIN is not supported")
        self._match_text_seq("AND", "NO", "CHAIN")  # the default

    def _expect_name(self, what: str) -> str:
        token = self._curr
        if not token or token.token_type in (TokenType.SEMICOLON, TokenType.STRING, TokenType.NUMBER):
            self.raise_error(f"Expected {what}", token or self._prev)
            return ""
        self._advance()
        quoted = token.token_type == TokenType.IDENTIFIER
        return token.text if quoted else token.text.lower()

    def _expect_string(self, what: str) -> str:
        token = self._curr
        if not token or token.token_type != TokenType.STRING:
            self.raise_error(f"Expected {what} as a string literal", token or self._prev)
            return ""
        self._advance()
        return token.text

    def _parse_lock_statement(self) -> "LockCommand":
        """``LOCK [TABLE] [ONLY] name [*] [, ...] [IN mode MODE] [NOWAIT]`` (``ONLY`` and ``*``
        say whether inheriting tables are locked too: txlake has no inheritance)."""
        self._advance()  # LOCK
        self._match(TokenType.TABLE)
        names = []
        while True:
            self._match_text_seq("ONLY")
            names.append(self._parse_table_parts())
            self._match(TokenType.STAR)
            if not self._match(TokenType.COMMA):
                break
        mode = "ACCESS EXCLUSIVE"
        if self._match(TokenType.IN):
            for words in _LOCK_MODES:
                if self._match_text_seq(*words):
                    mode = " ".join(words)
                    break
            else:
                self.raise_error(f'at or near "{self._curr.text}"' if self._curr else "at end of input",
                                 self._curr or self._prev)
            if not self._match_text_seq("MODE"):
                self.raise_error(f'at or near "{self._curr.text}"' if self._curr else "at end of input",
                                 self._curr or self._prev)
        return LockCommand(names=names, mode=mode, nowait=bool(self._match_text_seq("NOWAIT")))

    _CONTROL_STATEMENTS = {
        "BEGIN": _parse_begin_statement,
        "START": _parse_start_statement,
        "COMMIT": _parse_commit_statement,
        "END": _parse_commit_statement,
        "ROLLBACK": _parse_rollback_statement,
        "ABORT": _parse_rollback_statement,
        "SAVEPOINT": _parse_savepoint_statement,
        "RELEASE": _parse_release_statement,
        "PREPARE": _parse_prepare_statement,
        "EXECUTE": _parse_execute_statement,
        "DEALLOCATE": _parse_deallocate_statement,
        "SET": _parse_set_statement,
        "RESET": _parse_reset_statement,
        "SHOW": _parse_show_statement,
        "CALL": None,  # set below (defined after the dict would be)
        "LOCK": _parse_lock_statement,
        "REFRESH": _parse_refresh_statement,
        "CREATE": _parse_sequence_statement,
        "ALTER": _parse_sequence_statement,
        "DROP": _parse_sequence_statement,
        "COMMENT": _parse_no_effect_statement,
        "REINDEX": _parse_no_effect_statement,
        "CLUSTER": _parse_no_effect_statement,
        "CHECKPOINT": _parse_no_effect_statement,
        "SECURITY": _parse_no_effect_statement,
        "GRANT": _parse_no_effect_statement,
        "REVOKE": _parse_no_effect_statement,
        "DISCARD": _parse_discard_statement,
        "DECLARE": _parse_declare_statement,
        "FETCH": _parse_fetch_statement,
        "MOVE": _parse_fetch_statement,
        "CLOSE": _parse_close_statement,
        "DO": _parse_do_statement,
        "LISTEN": _parse_notification_statement,
        "NOTIFY": _parse_notification_statement,
        "UNLISTEN": _parse_notification_statement,
    }


TxlakeParser._CONTROL_STATEMENTS["CALL"] = TxlakeParser._parse_call_statement


_OPERAND_ENDS = {TokenType.VAR, TokenType.STRING, TokenType.NUMBER, TokenType.R_PAREN, TokenType.R_BRACKET,
                 TokenType.IDENTIFIER, TokenType.PLACEHOLDER, TokenType.NULL, TokenType.TRUE, TokenType.FALSE}


# the meta key of an INTERVAL literal whose unit is fields written after its text (INTERVAL '1'
# HOUR): its text is read with them, as a cast to the interval type of those fields reads it
INTERVAL_FIELDS = "interval_fields"
_INTERVAL_FIELD_NAMES = frozenset({"YEAR", "MONTH", "DAY", "HOUR", "MINUTE", "SECOND"})

# an interval's text of one number and its unit (sqlglot's INTERVAL_STRING_RE, whole)
_ONE_INTERVAL_PART = re.compile(r"\s*-?[0-9]+(?:\.[0-9]+)?\s*[a-zA-Z]+\s*")

# PostgreSQL 16's integer literals in other bases: 0x / 0o / 0b, then digits, _ between them
_RADIX_DIGITS = {"x": (16, "hexadecimal", re.compile(r"_?[0-9a-f]+(?:_[0-9a-f]+)*", re.I | re.A)),
                 "o": (8, "octal", re.compile(r"_?[0-7]+(?:_[0-7]+)*", re.A)),
                 "b": (2, "binary", re.compile(r"_?[01]+(?:_[01]+)*", re.A))}


def _numbers_read(tokens: list[Token], sql: str | None) -> list[Token]:
    """Numbers as PostgreSQL 16's lexer reads them. sqlglot's tokenizer stops a number at the
    first letter: ``0x1F`` was ``0 AS x1F`` (0, where PostgreSQL gives 31), ``12abc`` was
    ``12 AS abc`` and ``123e`` a Python ValueError. Now ``0x1F``, ``0o17``, ``0b101`` (and
    ``0x1F_FF``) are integers; a number run into a name - a letter or ``_`` right after it in
    ``sql``, not a quote - is PostgreSQL's 42601 "trailing junk after numeric literal"."""
    for i in range(len(tokens) - 1, -1, -1):
        token = tokens[i]
        if token.token_type != TokenType.NUMBER:
            continue
        text = token.text
        after = tokens[i + 1] if i + 1 < len(tokens) and tokens[i + 1].start == token.end + 1 else None
        if text[-1] in "eE":  # (an exponent without digits: 1e, 1e+)
            sign = after.text if after is not None and after.text in "+-" else ""
            raise errors.SyntaxError(f'trailing junk after numeric literal at or near "{text}{sign}"',
                                     position=token.start + 1)
        first = sql[after.start] if after is not None and sql is not None else after.text[:1] if after else ""
        if not (first.isalpha() or first == "_"):
            continue
        near = text + after.text[:1]  # (PostgreSQL quotes the number and the junk's first character)
        radix = _RADIX_DIGITS.get(after.text[0].lower()) if text == "0" else None
        if radix is not None:
            base, name, digits = radix
            found = digits.match(after.text, 1)
            if found is None:
                raise errors.SyntaxError(f'invalid {name} integer at or near "{near}"', position=token.start + 1)
            if found.end() == len(after.text):
                value = str(int(after.text[1:].replace("_", ""), base))
                tokens[i:i + 2] = [Token(TokenType.NUMBER, value, token.line, token.col, token.start, after.end)]
                continue
            near = text + after.text[:found.end() + 1]
        raise errors.SyntaxError(f'trailing junk after numeric literal at or near "{near}"', position=token.start + 1)
    return tokens


def _placeholders_apart(tokens: list[Token], operand_ends: set) -> list[Token]:
    """``?|`` / ``?&`` are jsonb's operators only after an operand (``doc ?| keys``, ``'{}'::jsonb
    ?| keys``); elsewhere - ``x = ?||'%'``, ``(?|1)`` - they are a parameter and the ``|``
    (``||``) or ``&`` after it."""
    for i in range(len(tokens) - 1, -1, -1):
        token = tokens[i]
        if token.token_type not in (TokenType.QMARK_PIPE, TokenType.QMARK_AMP):
            continue
        after = tokens[i + 1] if i + 1 < len(tokens) else None
        doubled = token.token_type == TokenType.QMARK_PIPE and after is not None and \
            after.token_type == TokenType.PIPE and after.start == token.end + 1
        if not doubled and i > 0 and tokens[i - 1].token_type in operand_ends:
            continue
        rest, start = token.text[1], token.start + 1
        if doubled:
            rest, tokens[i + 1:i + 2] = "||", []
        kind = {"|": TokenType.PIPE, "||": TokenType.DPIPE, "&": TokenType.AMP}[rest]
        tokens[i:i + 1] = [Token(TokenType.PLACEHOLDER, "?", token.line, token.col, token.start, token.start),
                           Token(kind, rest, token.line, token.col + 1, start, start + len(rest) - 1)]
    return tokens


_HEX_DIGITS = frozenset("0123456789abcdefABCDEF")
_SPACES = " \t\n\r\f\v"  # (PostgreSQL's scanner_isspace)


def unicode_escapes(text: str, escape: str = "\\") -> str:
    """The characters of a ``U&'...'`` string's text, as PostgreSQL's ``str_udeescape`` reads
    it: ``\\XXXX`` (4 hex digits) and ``\\+XXXXXX`` (6) a code point, a UTF-16 surrogate pair
    as two of them; the escape twice, itself. Anything else after an escape, a code point
    outside 1..10FFFF and a surrogate alone are 42601."""
    out, i, pending = [], 0, None  # (pending: a first surrogate, waiting for its second)

    def code_point(digits: str, count: int) -> int | None:
        return int(digits, 16) if len(digits) == count and all(c in _HEX_DIGITS for c in digits) else None

    while i < len(text):
        if text[i] != escape or text[i + 1:i + 2] == escape:  # (a character as it is; the escape doubled)
            if pending is not None:
                raise _bad_pair()
            out.append(text[i])
            i += 1 if text[i] != escape else 2
            continue
        plus = text[i + 1:i + 2] == "+"
        value = code_point(text[i + 2:i + 8], 6) if plus else code_point(text[i + 1:i + 5], 4)
        if value is None:
            raise errors.SyntaxError("invalid Unicode escape\nHINT:  Unicode escapes must be \\XXXX or \\+XXXXXX.")
        i += 8 if plus else 5
        pending, char = _unicode_char(pending, value)
        out.append(char)
    if pending is not None:
        raise _bad_pair()
    return "".join(out)


def _bad_pair() -> errors.SyntaxError:
    return errors.SyntaxError("invalid Unicode surrogate pair")


def _unicode_char(pending: int | None, value: int) -> tuple[int | None, str]:
    """One code point a Unicode escape names, after ``pending`` (a first surrogate waiting for
    its second, or None): (the surrogate now waiting, the text made - "" while one waits). A
    code point of 0 or past 10FFFF and a surrogate alone are 42601, as PostgreSQL's."""
    if not 0 < value <= 0x10FFFF:
        raise errors.SyntaxError("invalid Unicode escape value")
    second = 0xDC00 <= value <= 0xDFFF
    if (pending is not None) != second:
        raise _bad_pair()
    if second:
        return None, chr(0x10000 + ((pending - 0xD800) << 10) + (value - 0xDC00))
    return (value, "") if 0xD800 <= value <= 0xDBFF else (None, chr(value))


# an escape of an E'...' string, as PostgreSQL's scanner reads them (scan.l's xe rules): octal,
# hexadecimal, Unicode (4 or 8 hex digits), a \u / \U without them, any other character; '' is '
_E_ESCAPE = re.compile(r"\\(?:([0-7]{1,3})|x([0-9A-Fa-f]{1,2})|u([0-9A-Fa-f]{4})|U([0-9A-Fa-f]{8})|([uU])|(.))|''",
                       re.S)
_SINGLE_ESCAPES = {"b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t"}


def escape_string(text: str) -> str:
    """The value of an ``E'...'`` string's text (between its quotes) as PostgreSQL reads it:
    ``\\n`` and its kin, ``\\101`` and ``\\x41`` bytes, ``\\u0061`` / ``\\U00000061`` code points
    (a UTF-16 surrogate pair as two), ``\\c`` the character c, ``''`` a quote. The bytes made
    must be UTF-8 (22021); a Unicode escape without its digits, a code point of 0 or past
    10FFFF, a surrogate alone are 42601."""
    out, at, pending = bytearray(), 0, None
    for m in _E_ESCAPE.finditer(text):
        if m.start() > at or (pending is not None and not (m.group(3) or m.group(4))):
            if pending is not None:
                raise _bad_pair()
            out += text[at:m.start()].encode()
        at = m.end()
        octal, hexa, short, long, bare, other = m.groups()
        if m.group(0) == "''":
            out += b"'"
        elif octal or hexa:
            out.append(int(octal, 8) & 0xFF if octal else int(hexa, 16))
        elif short or long:
            pending, char = _unicode_char(pending, int(short or long, 16))
            out += char.encode()
        elif bare:
            raise errors.SyntaxError("invalid Unicode escape\nHINT:  Unicode escapes must be \\uXXXX or \\UXXXXXXXX.")
        else:
            out += _SINGLE_ESCAPES.get(other, other).encode()
    if pending is not None:
        raise _bad_pair()
    out += text[at:].encode()
    try:
        return out.decode()
    except UnicodeDecodeError:
        raise errors.DataError("invalid byte sequence for encoding \"UTF8\"", sqlstate="22021") from None


def _unicode_in_escape_strings(tokens: list[Token], sql: str | None) -> list[Token]:
    """``E'\\u0061'`` is ``a``: sqlglot's tokenizer read ``\\u`` as ``u`` (``u0061``). An escape
    string holding a Unicode escape is read again from its text (``escape_string``); the others
    stay sqlglot's."""
    if sql is None or ("\\u" not in sql and "\\U" not in sql):
        return tokens
    for i, token in enumerate(tokens):
        if token.token_type != TokenType.BYTE_STRING:
            continue
        raw = sql[token.start:token.end + 1]
        if raw[:2] in ("E'", "e'") and raw.endswith("'") and ("\\u" in raw or "\\U" in raw):
            tokens[i] = Token(TokenType.BYTE_STRING, escape_string(raw[2:-1]), token.line, token.col, token.start,
                              token.end)
    return tokens


def _unicode_identifiers(tokens: list[Token]) -> list[Token]:
    """PostgreSQL's ``U&"d\\0061t"`` [``UESCAPE 'c'``] identifiers (sqlglot reads ``U``, ``&``
    and a quoted identifier, with nothing between them): one quoted identifier of the characters
    its escapes name (``unicode_escapes``)."""
    i = 0
    while i + 2 < len(tokens):
        u, amp, name = tokens[i:i + 3]
        if not (u.token_type == TokenType.VAR and u.text.lower() == "u" and amp.token_type == TokenType.AMP
                and name.token_type == TokenType.IDENTIFIER and u.end + 1 == amp.start and amp.end + 1 == name.start):
            i += 1
            continue
        escape, end = "\\", i + 3
        if end < len(tokens) and tokens[end].text.upper() == "UESCAPE" and tokens[end].token_type == TokenType.VAR:
            escape, end = _escape_character(tokens[end + 1] if end + 1 < len(tokens) else None), end + 2
        tokens[i:end] = [Token(TokenType.IDENTIFIER, unicode_escapes(name.text, escape), u.line, u.col, u.start,
                               tokens[end - 1].end)]
        i += 1
    return tokens


def _escape_character(token: Token | None) -> str:
    """The character of the string ``token`` after UESCAPE: one that cannot be taken for part of
    an escape (else 42601, as is no string)."""
    if token is None or token.token_type != TokenType.STRING:
        near = " at end of input" if token is None or token.token_type == TokenType.SENTINEL else \
            f' at or near "{token.text}"'
        raise errors.SyntaxError(f"UESCAPE must be followed by a simple string literal{near}")
    text = token.text
    if len(text) != 1 or text in _HEX_DIGITS or text in "+'\"" or text in _SPACES:
        raise errors.SyntaxError(f"invalid Unicode escape character at or near \"'{text}'\"")
    return text


# inet's <<= and >>= (``TxlakeParser._parse_bitwise``): calls engine/network.py reads as the operators
NETWORK_OPERATORS = {TokenType.LTE: "inet_contained_by_or_equals", TokenType.GTE: "inet_contains_or_equals"}


class TxlakeTokenizer(DuckDB.Tokenizer):
    # PREPARE, EXECUTE, CALL and RESET are opaque commands to DuckDB's tokenizer; txlake parses their
    # arguments. DuckDB ignores VARCHAR(n) and reads VARCHAR as TEXT; txlake enforces the length (22001).
    # ``?::int`` is a parameter cast to int, as in PostgreSQL clients, not sqlglot's ``?::``
    # operator (a TRY_CAST of some dialects): a syntax error before.
    # DIV is a function (div(7, 2)), as in PostgreSQL, not MySQL's integer division operator
    KEYWORDS = {**{k: v for k, v in DuckDB.Tokenizer.KEYWORDS.items() if k not in ("?::", "DIV")},
                "PREPARE": TokenType.VAR, "EXECUTE": TokenType.VAR, "CALL": TokenType.VAR, "RESET": TokenType.VAR,
                "VARCHAR": TokenType.VARCHAR,
                # CHAR(n) keeps its length too (DuckDB reads CHAR as TEXT), and so does BPCHAR(n)
                # (DuckDB's BPCHAR is TEXT, sqlglot dropped the n: bpchar(4) took any length)
                "CHAR": TokenType.CHAR, "BPCHAR": TokenType.BPCHAR,
                # FLOAT is DOUBLE PRECISION, as in PostgreSQL and the SQL standard (DuckDB's is
                # REAL: 0.1::float was 0.10000000149011612); FLOAT4 is REAL in both
                "FLOAT": TokenType.DOUBLE,
                # jsonb's ?| and ?& (any / all of a text[] exist) and #- (delete at a path); a
                # parameter before | or & is told apart in TxlakeParser.parse
                "?|": TokenType.QMARK_PIPE, "?&": TokenType.QMARK_AMP, "#-": TokenType.HASH_DASH,
                # jsonb's @? and @@ (a path exists / matches: TxlakeParser.RANGE_PARSERS); @ alone stays abs
                "@?": TokenType.AT_QMARK, "@@": TokenType.DAT,
                # the square and cube root prefix operators (TxlakeParser.UNARY_PARSERS)
                "|/": TokenType.PIPE_SLASH, "||/": TokenType.DPIPE_SLASH}
    COMMANDS = DuckDB.Tokenizer.COMMANDS - {TokenType.SHOW, TokenType.FETCH}  # (FETCH: TxlakeParser reads it)
    # PostgreSQL's Unicode escape strings, U&'d\0061t\+000061' (TxlakeParser decodes them)
    UNICODE_STRINGS = [("U&'", "'"), ("u&'", "'")]

    def tokenize(self, sql: str):
        try:
            tokens = super().tokenize(sql)
            return _unicode_identifiers(tokens) if '&"' in sql else tokens
        except TokenError as e:
            # sqlglot quotes context only; PostgreSQL reports where the unfinished token (an
            # unterminated string, identifier or comment) starts, 1-based
            start = getattr(getattr(self, "_core", None), "_start", None)
            e.position = start + 1 if isinstance(start, int) else None
            raise


class Txlake(DuckDB):
    Tokenizer = TxlakeTokenizer
    Parser = TxlakeParser
    # NULL sorts as larger than every value, as in PostgreSQL: ``ORDER BY x DESC`` puts NULLs
    # first. Parsed so, an ORDER BY says where its NULLs go, and the DuckDB SQL generated from
    # it spells out ``NULLS FIRST`` where DuckDB (NULLs last either way) would differ
    NULL_ORDERING = "nulls_are_large"

    class Generator(DuckDB.Generator):
        # to_char() / to_number() as written, so that a view's stored query reads back as them
        # (DuckDB's generator wrote CAST(x AS TEXT) / CAST(x AS DOUBLE), the pattern dropped: a
        # view's to_char(d, 'YYYY') gave the whole date); parser/semantics.py rewrites them
        # before DuckDB runs a statement
        TRANSFORMS = {**DuckDB.Generator.TRANSFORMS,
                      exp.ToChar: lambda self, e: self.func("TO_CHAR", e.this, e.args.get("format")),
                      exp.ToNumber: lambda self, e: self.func("TO_NUMBER", e.this, e.args.get("format")),
                      # (a view's stored query: written back as PostgreSQL's operators)
                      exp.JSONBPathExists: lambda self, e: self.binary(e, "@?"),
                      JSONBPathMatch: lambda self, e: self.binary(e, "@@"),
                      # (DuckDB's REGEXP_MATCHES(s, p) read back as PostgreSQL's regexp_matches:
                      # a view's s ~ 'o' gave the matches' arrays, of the matching rows only)
                      exp.RegexpLike: lambda self, e: self.binary(e, "~"),
                      exp.RegexpILike: lambda self, e: self.binary(e, "~*")}


# the pseudo-types a function may return that sqlglot reads as no type (a trigger's)
_PSEUDO_TYPES = ("TRIGGER", "EVENT_TRIGGER")


def _atomic_bodies(tokens: list[Token], sql: str | None) -> list[Token]:
    """A function's ``BEGIN ATOMIC ... END`` body made one token (a HEREDOC_STRING of its text,
    BEGIN to END) so that the ``;`` between its statements do not end the CREATE FUNCTION."""
    i = 0
    while sql and "ATOMIC" in sql.upper() and i < len(tokens) - 1:
        if tokens[i].text.upper() == "BEGIN" and tokens[i + 1].text.upper() == "ATOMIC" and i > 2 and \
                any(t.text.upper() in ("FUNCTION", "PROCEDURE") for t in tokens[max(0, i - 200):i]):
            depth, j = 0, i + 2
            while j < len(tokens):  # (CASE ... END inside: counted; the body's END closes it)
                word = tokens[j].text.upper() if tokens[j].token_type != TokenType.STRING else ""
                if word == "CASE":
                    depth += 1
                elif word == "END":
                    if depth == 0:
                        break
                    depth -= 1
                j += 1
            if j < len(tokens):
                first, last = tokens[i], tokens[j]
                tokens[i:j + 1] = [Token(TokenType.HEREDOC_STRING, sql[first.start:last.end + 1], first.line, first.col,
                                         first.start, last.end)]
        i += 1
    return tokens


__all__ = ["Control", "FunctionCommand", "LockCommand", "PolicyCommand", "SequenceCommand", "SOURCE_SPAN",
           "TriggerCommand", "Txlake", "TypeCommand", "ParseError"]


# extensions whose functions txlake has built in (parser/semantics.py EXTENSION_FUNCTIONS): CREATE
# EXTENSION of one - pg_dump writes it before the tables whose defaults call them - is taken, and
# says which of its functions there are; any other extension stays refused (0A000)
BUILT_IN_EXTENSIONS = {"uuid-ossp": "uuid_generate_v4() and uuid_nil()", "pgcrypto": "gen_random_uuid()"}


# ALTER TABLE / INDEX / MATERIALIZED VIEW actions that tune how PostgreSQL stores a relation
# (pg_dump and migration tools write them): txlake's storage has nothing they would change, so
# a statement of only these changes nothing, as OWNER TO does. Each is its first words; those of
# ``ALTER [COLUMN] name ...`` follow the column's name
_PHYSICAL_ACTIONS = (("CLUSTER", "ON"), ("SET", "WITHOUT", "CLUSTER"), ("SET", "WITHOUT", "OIDS"), ("SET", "("),
                     ("RESET", "("), ("REPLICA", "IDENTITY"), ("SET", "LOGGED"), ("SET", "UNLOGGED"),
                     ("SET", "TABLESPACE"), ("SET", "ACCESS", "METHOD"))
_PHYSICAL_COLUMN_ACTIONS = (("SET", "STATISTICS"), ("SET", "STORAGE"), ("SET", "COMPRESSION"), ("SET", "("),
                            ("RESET", "("))
# what a relation may be stored in or by: PostgreSQL's defaults, which are txlake's one way
_DEFAULT_PLACES = {"TABLESPACE": ("tablespace", ("pg_default",)), "METHOD": ("access method", ("heap",))}


def _physical_alter(tokens, words: list[str]) -> str | None:
    """The kind (TABLE, INDEX, MATERIALIZED VIEW) of an ALTER whose every action is one of
    ``_PHYSICAL_ACTIONS``, else None. A tablespace or access method other than PostgreSQL's
    default is 42704, as PostgreSQL's for one that does not exist."""
    at = 3 if words[1:3] == ["MATERIALIZED", "VIEW"] else 2
    kind = " ".join(words[1:at])
    if kind not in ("TABLE", "INDEX", "MATERIALIZED VIEW"):
        return None
    if words[at:at + 2] == ["IF", "EXISTS"]:
        at += 2
    if words[at:at + 1] == ["ONLY"]:
        at += 1
    at += 1  # (the name: a word, then .word pairs)
    while at + 1 < len(tokens) and tokens[at].token_type == TokenType.DOT:
        at += 2
    if words[at:at + 1] == ["*"]:
        at += 1
    actions, depth, start = [], 0, at
    for i in range(at, len(tokens) + 1):
        if i == len(tokens) or depth == 0 and tokens[i].token_type == TokenType.COMMA:
            actions.append((start, i))
            start = i + 1
        elif tokens[i].token_type == TokenType.L_PAREN:
            depth += 1
        elif tokens[i].token_type == TokenType.R_PAREN:
            depth -= 1
    for begin, end in actions:
        action = words[begin:end]
        forms = _PHYSICAL_ACTIONS
        if action[:1] == ["ALTER"]:
            action = action[3:] if action[1:2] == ["COLUMN"] else action[2:]
            forms = _PHYSICAL_COLUMN_ACTIONS
        if not action or not any(tuple(action[:len(form)]) == form for form in forms):
            return None
        if action[-2:-1] in (["TABLESPACE"], ["METHOD"]):
            what, defaults = _DEFAULT_PLACES[action[-2]]
            named = tokens[end - 1].text
            if named.lower() not in defaults:
                raise errors.UndefinedObject(f'{what} "{named}" does not exist')
    return kind if actions else None


def _built_in_extension(tokens) -> str | None:
    """The NOTICE of ``CREATE EXTENSION [IF NOT EXISTS] name ...`` (its tokens) where txlake has
    the extension built in, else None."""
    at = 2 + (3 if [t.text.upper() for t in tokens[2:5]] == ["IF", "NOT", "EXISTS"] else 0)
    if at >= len(tokens):
        return None
    token = tokens[at]
    name = token.text if token.token_type == TokenType.IDENTIFIER else token.text.lower()
    functions = BUILT_IN_EXTENSIONS.get(name)
    if functions is None:
        return None
    return (f'extension "{name}" is built into txlake: {functions} (not its other functions); '
            "CREATE EXTENSION changes nothing")
