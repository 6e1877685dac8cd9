"""PL/pgSQL: a body's text parsed once into a small tree (``compile_body``), then run against a
session (``run``) - ``DO`` is its first user; a function or trigger body is run the same way,
with its arguments (or NEW / OLD / TG_OP) as variables the caller declares.

As PostgreSQL's (doc/src/sgml/plpgsql.sgml):
- Every expression and SQL statement runs through the session as any statement does, in the
  caller's transaction, with the variables it names passed as parameters (``CAST(? AS type)``,
  the type each was declared with): variables are found when the body is parsed, by lexical
  scope, in SELECT / INSERT / UPDATE / DELETE / MERGE / VALUES (not in utility statements, where
  PostgreSQL substitutes none either). The statements' text is fixed, so each is parsed once.
- A block with an EXCEPTION clause runs inside a savepoint taken at its start; an error a
  handler catches rolls the block's changes back to it (the session's SAVEPOINT / ROLLBACK TO),
  one it does not catch goes on out, after the same rollback.
- An error leaving a statement carries PostgreSQL's CONTEXT lines (``SQL statement "..."``,
  ``PL/pgSQL function inline_code_block line N at SQL statement``); a compilation error is 42601
  (or the code PostgreSQL gives) with ``compilation of PL/pgSQL function ... near line N``.

A function's body (engine/plpgsql_calls.py) is compiled with what it returns (``Returns``):
``RETURN expr`` gives its value, ``RETURN NEXT`` / ``RETURN QUERY [EXECUTE]`` add to a set-returning
one's rows; its parameters are variables by name and by ``$n``.

Not here (0A000 when written): cursors (OPEN / FETCH / CLOSE / MOVE, ``CURSOR`` declarations),
``ALIAS FOR``, assignment to an array element.
"""

from __future__ import annotations

import datetime
import decimal
import functools
import re
from dataclasses import dataclass, field

import pyarrow as pa
import sqlglot
from sqlglot import exp

from txlake import errors
from txlake.engine import plpgsql_simple as simple
from txlake.engine.conditions import CODES, error_for, is_sqlstate, matches
from txlake.parser import statements as st

INLINE = "inline_code_block"  # the name PostgreSQL gives a DO block in its messages


# --- the lexer --------------------------------------------------------------------------

@dataclass(frozen=True, slots=True)
class Token:
    kind: str  # word (unquoted), ident (quoted), string, number, op, param ($1), eof
    value: str  # a word lower-cased, an identifier unquoted, an operator, a string's text as written
    start: int
    end: int  # exclusive


_OPERATORS = (":=", "..", "::", "<=", ">=", "<>", "!=", "||", "=>", "<<", ">>", "->>", "->", "#>>", "#>", "@>", "<@")
_WORD_START = frozenset("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_")


def tokenize(source: str) -> list[Token]:
    """The tokens of PL/pgSQL (and SQL) text: strings (``'...'``, ``E'...'``, dollar-quoted) and
    quoted names whole, comments skipped, ``1..10`` as a number, ``..``, a number."""
    tokens, i, n = [], 0, len(source)
    while i < n:
        c = source[i]
        if c.isspace():
            i += 1
        elif source.startswith("--", i):
            end = source.find("\n", i)
            i = n if end < 0 else end + 1
        elif source.startswith("/*", i):
            depth, j = 1, i + 2
            while depth and j < n:
                if source.startswith("/*", j):
                    depth, j = depth + 1, j + 2
                elif source.startswith("*/", j):
                    depth, j = depth - 1, j + 2
                else:
                    j += 1
            if depth:
                raise _syntax(source, i, "unterminated /* comment")
            i = j
        elif c == "'" or (c in "eE" and source.startswith("'", i + 1)):
            j = i + (2 if c != "'" else 1)
            while True:
                j = source.find("'", j)
                if j < 0:
                    raise _syntax(source, i, "unterminated quoted string")
                if c != "'" and source[j - 1] == "\\" and not source.endswith("\\\\", 0, j):
                    j += 1
                elif source.startswith("''", j):
                    j += 2
                else:
                    break
            tokens.append(Token("string", source[i:j + 1], i, j + 1))
            i = j + 1
        elif c == "$" and i + 1 < n and (source[i + 1] == "$" or source[i + 1] in _WORD_START):
            tag_end = source.find("$", i + 1)
            tag = source[i:tag_end + 1] if tag_end > 0 else ""
            if tag and all(ch in _WORD_START or ch.isdigit() for ch in tag[1:-1]):
                end = source.find(tag, tag_end + 1)
                if end < 0:
                    raise _syntax(source, i, "unterminated dollar-quoted string")
                tokens.append(Token("string", source[i:end + len(tag)], i, end + len(tag)))
                i = end + len(tag)
            else:
                tokens.append(Token("op", "$", i, i + 1))
                i += 1
        elif c == "$" and i + 1 < n and source[i + 1].isdigit():
            j = i + 1
            while j < n and source[j].isdigit():
                j += 1
            tokens.append(Token("param", source[i + 1:j], i, j))
            i = j
        elif c == '"':
            j = i + 1
            while True:
                j = source.find('"', j)
                if j < 0:
                    raise _syntax(source, i, "unterminated quoted identifier")
                if source.startswith('""', j):
                    j += 2
                else:
                    break
            tokens.append(Token("ident", source[i + 1:j].replace('""', '"'), i, j + 1))
            i = j + 1
        elif c.isdigit() or (c == "." and i + 1 < n and source[i + 1].isdigit()):
            j = i
            while j < n and source[j].isdigit():
                j += 1
            if j < n and source[j] == "." and not source.startswith("..", j):
                j += 1
                while j < n and source[j].isdigit():
                    j += 1
            if j < n and source[j] in "eE" and (source[j + 1:j + 2].isdigit() or
                                                 source[j + 1:j + 2] in "+-" and source[j + 2:j + 3].isdigit()):
                j += 2
                while j < n and source[j].isdigit():
                    j += 1
            tokens.append(Token("number", source[i:j], i, j))
            i = j
        elif c in _WORD_START or ord(c) > 127:
            j = i + 1
            while j < n and (source[j] in _WORD_START or source[j].isdigit() or source[j] == "$"
                             or ord(source[j]) > 127):
                j += 1
            tokens.append(Token("word", source[i:j].lower(), i, j))
            i = j
        else:
            op = next((o for o in _OPERATORS if source.startswith(o, i)), c)
            tokens.append(Token("op", op, i, i + len(op)))
            i += len(op)
    tokens.append(Token("eof", "", n, n))
    return tokens


def _syntax(source: str, at: int, message: str) -> errors.Error:
    return _compile_error(source, at, f'{message} at or near "{source[at:at + 20]}"' if at < len(source)
                          else f"{message} at end of input")


def _compile_error(source: str, at: int, message: str, sqlstate: str = "42601") -> errors.Error:
    """An error found parsing a body: ``compile_body`` adds its CONTEXT line (the body's name, the line)."""
    error = error_for(sqlstate, message)
    error.compile_line = _line(source, at)
    return error


def _line(source: str, at: int) -> int:
    return source.count("\n", 0, at) + 1


def _add_context(error: errors.Error, line: str) -> None:
    """A CONTEXT line added to ``error``'s message (after those it has), as PostgreSQL stacks them."""
    text = str(error)
    error.args = (text + ("\n" if "\nCONTEXT:  " in text else "\nCONTEXT:  ") + line,)


# --- the tree ---------------------------------------------------------------------------

@dataclass(slots=True)
class Variable:
    slot: int
    name: str
    type: str | None  # its SQL type as written; None: a record (or one %TYPE of a column finds at run time)
    record: bool = False
    constant: bool = False
    not_null: bool = False
    column_of: tuple[str, str] | None = None  # ``table.column%TYPE``: its type found when its block starts
    zero_based: bool = False  # an array subscripted from 0 (a trigger's TG_ARGV): ``x[i]`` read as ``x[1 + (i)]``


@dataclass(frozen=True, slots=True)
class Ref:
    """A variable (or a record's field) an expression reads; ``plain``: named by itself (not
    ``label.x``), so a column of the same name would make it ambiguous."""
    slot: int
    field: str | None = None
    name: str = ""
    plain: bool = False


_UNKNOWN = object()


@dataclass(eq=False)
class Sql:
    """An expression or SQL statement as written (``source``), as pieces of text and ``Ref``s;
    ``render`` makes it a statement's text with ``?`` for each Ref, cached by the types."""
    pieces: tuple
    source: str
    rendered: dict = field(default_factory=dict)
    checked: bool = False  # its names checked against its tables' columns (``_ambiguity``)
    simple: object = _UNKNOWN  # an expression's tree for engine/plpgsql_simple.py (None: it is not one)
    unknown_parameter: str | None = None  # a ``$n`` no argument is (a DO's, a trigger's): 42P02 when run

    @property
    def refs(self) -> tuple[Ref, ...]:
        return tuple(p for p in self.pieces if type(p) is Ref)


@dataclass(eq=False, slots=True)
class Node:
    line: int
    what: str  # its name in a CONTEXT line: "SQL statement", "assignment", "IF", ...


@dataclass(eq=False, slots=True)
class Declaration:
    variable: Variable
    default: Sql | None
    line: int


@dataclass(eq=False, slots=True)
class Handler:
    conditions: tuple[str, ...]  # SQLSTATEs, or "others"
    body: list
    sqlstate: int  # the slots of SQLSTATE and SQLERRM inside it
    sqlerrm: int


@dataclass(eq=False, slots=True)
class Block(Node):
    label: str | None = None
    declarations: list = field(default_factory=list)
    body: list = field(default_factory=list)
    handlers: list | None = None


@dataclass(eq=False, slots=True)
class Assign(Node):
    target: Ref
    value: Sql


@dataclass(eq=False, slots=True)
class If(Node):
    branches: list  # (condition, statements)
    otherwise: list


@dataclass(eq=False, slots=True)
class Case(Node):
    branches: list  # (condition, statements): a searched CASE's conditions, a simple one's ``x IN (...)``
    otherwise: list | None


@dataclass(eq=False, slots=True)
class Loop(Node):
    label: str | None
    body: list
    condition: Sql | None = None  # WHILE's


@dataclass(eq=False, slots=True)
class ForRange(Node):
    label: str | None
    variable: Variable
    low: Sql
    high: Sql
    step: Sql | None
    reverse: bool
    body: list


@dataclass(eq=False, slots=True)
class ForQuery(Node):
    label: str | None
    targets: tuple[Ref, ...]
    query: Sql  # a query; or for FOR ... IN EXECUTE, the expression giving its text
    dynamic: bool
    using: tuple[Sql, ...]
    body: list


@dataclass(eq=False, slots=True)
class Foreach(Node):
    label: str | None
    target: Ref
    array: Sql
    body: list


@dataclass(eq=False, slots=True)
class Exit(Node):
    label: str | None
    condition: Sql | None
    again: bool  # CONTINUE


@dataclass(eq=False, slots=True)
class Return(Node):
    """RETURN [expr]; ``kind`` "next" (RETURN NEXT [expr]), "query" (RETURN QUERY's query),
    "execute" (RETURN QUERY EXECUTE's text, with ``using``); a trigger function's value is NEW,
    OLD or NULL."""
    kind: str = ""
    value: Sql | None = None
    using: tuple[Sql, ...] = ()


@dataclass(frozen=True)
class Returns:
    """What a function's body returns: ``type`` its result's SQL type (a set-returning one's
    rows', "void" for none); ``setof`` rows; ``columns`` RETURNS TABLE's column names (variables
    of the body, which a RETURN NEXT without a value returns) - or, ``row``, the columns of the
    table whose row type it returns (no variables); ``procedure`` a procedure's body."""
    type: str
    setof: bool = False
    columns: tuple[str, ...] = ()
    procedure: bool = False
    row: bool = False

    @property
    def outputs(self) -> bool:
        """Are its results the values of variables (OUT parameters', RETURNS TABLE's columns)?"""
        return bool(self.columns) and not self.row


@dataclass(eq=False, slots=True)
class Statement(Node):
    """A SQL statement; PERFORM's query (``perform``); ``into``: the targets of its INTO."""
    sql: Sql
    into: tuple[Ref, ...] = ()
    strict: bool = False
    perform: bool = False
    returns_rows: bool = False  # a query (or RETURNING): rows it must put somewhere


@dataclass(eq=False, slots=True)
class Execute(Node):
    text: Sql
    into: tuple[Ref, ...]
    strict: bool
    using: tuple[Sql, ...]


@dataclass(eq=False, slots=True)
class Diagnostics(Node):
    items: list  # (target, item name)
    stacked: bool


@dataclass(eq=False, slots=True)
class Raise(Node):
    level: str  # EXCEPTION, WARNING, NOTICE, INFO, LOG, DEBUG; "" for RAISE alone
    sqlstate: str | None
    condition: str | None  # as written (a name, or SQLSTATE's code): the message, if none is given
    message: str | None  # the format
    args: tuple[Sql, ...]
    options: tuple[tuple[str, Sql], ...]


@dataclass(eq=False, slots=True)
class Assert(Node):
    condition: Sql
    message: Sql | None


@dataclass(eq=False, slots=True)
class EndTransaction(Node):
    commit: bool
    chain: bool


@dataclass(eq=False, slots=True)
class Body:
    """A compiled body: its block and its variables, by slot (FOUND's is 0)."""
    block: Block
    variables: tuple[Variable, ...]
    source: str
    name: str = INLINE
    returns: Returns | None = None  # a function's (None: a DO block's)

    @property
    def slots(self) -> int:
        return len(self.variables)


# --- the parser -------------------------------------------------------------------------

# the first words of the SQL statements a body may hold (any other word there is an error)
_SQL_WORDS = frozenset(
    "select insert update delete merge with values table create alter drop truncate comment grant revoke set "
    "savepoint release start abort "
    "reset show lock analyze vacuum call copy refresh explain discard import reindex cluster security notify "
    "listen unlisten prepare deallocate checkpoint do".split())
# statements whose variables become parameters (PostgreSQL substitutes none in utility statements)
_SUBSTITUTED = frozenset("select insert update delete merge with values table explain".split())
_LEVELS = ("exception", "warning", "notice", "info", "log", "debug")
_UNSUPPORTED = {"open": "cursors", "fetch": "cursors", "close": "cursors", "move": "cursors",
                "return next": "RETURN NEXT", "return query": "RETURN QUERY"}


class _Parser:
    def __init__(self, source: str, variables: tuple[tuple[str, str | None], ...] = (), trigger: bool = False,
                 returns: Returns | None = None):
        self.source = source
        self.trigger = trigger  # a trigger function's body: RETURN takes a row
        self.returns = returns
        self.tokens = tokenize(source)
        self.i = 0
        self.variables: list[Variable] = []
        self.scopes: list[tuple[str | None, dict[str, Variable]]] = []  # (label, variables), innermost last
        self.loops: list[tuple[str | None, bool]] = []  # enclosing labels: (label, is a loop)
        self.found = self._declare_into({}, "found", "boolean")
        self.outer = {"found": self.found}
        for name, type_ in variables:  # (a function's arguments, a trigger's NEW / OLD ...)
            self._declare_into(self.outer, name, type_, record=type_ is None, zero_based=trigger and name == "tg_argv")
        if returns is not None:  # (a function's arguments are $1, $2, ... too)
            arguments = [v for v in self.variables[1:] if v.name not in returns.columns]
            for i, variable in enumerate(arguments, 1):
                self.outer.setdefault(f"${i}", variable)
        self.scopes.append((None, self.outer))

    # tokens

    @property
    def tok(self) -> Token:
        return self.tokens[self.i]

    def peek(self, k: int = 1) -> Token:
        return self.tokens[min(self.i + k, len(self.tokens) - 1)]

    def is_word(self, *words: str, k: int = 0) -> bool:
        t = self.peek(k) if k else self.tok
        return t.kind == "word" and t.value in words

    def accept(self, *words: str) -> bool:
        if self.is_word(*words):
            self.i += 1
            return True
        return False

    def accept_op(self, op: str) -> bool:
        if self.tok.kind == "op" and self.tok.value == op:
            self.i += 1
            return True
        return False

    def expect(self, *words: str) -> None:
        if not self.accept(*words):
            self.error()

    def expect_op(self, op: str) -> None:
        if not self.accept_op(op):
            self.error()

    def error(self, at: Token | None = None, message: str | None = None, sqlstate: str = "42601"):
        t = at or self.tok
        if message is None:
            message = "syntax error at end of input" if t.kind == "eof" else \
                f'syntax error at or near "{self.source[t.start:t.end]}"'
        raise _compile_error(self.source, t.start, message, sqlstate)

    def line(self, t: Token | None = None) -> int:
        return _line(self.source, (t or self.tok).start)

    def name(self) -> str:
        t = self.tok
        if t.kind not in ("word", "ident"):
            self.error()
        self.i += 1
        return t.value

    # names

    def _declare_into(self, scope: dict, name: str, type_: str | None, record: bool = False, **kw) -> Variable:
        variable = Variable(len(self.variables), name, type_, record, **kw)
        self.variables.append(variable)
        scope[name] = variable
        return variable

    def lookup(self, name: str) -> Variable | None:
        for _, scope in reversed(self.scopes):
            if name in scope:
                return scope[name]
        return None

    def labelled(self, label: str, name: str) -> Variable | None:
        for scope_label, scope in reversed(self.scopes):
            if scope_label == label:
                return scope.get(name)
        return None

    # the body

    def body(self) -> Block:
        label = self.label()
        if not self.is_word("declare", "begin"):
            self.error()
        block = self.block(label)
        self.accept_op(";")
        if self.tok.kind != "eof":
            self.error()
        return block

    def label(self) -> str | None:
        if self.tok.kind == "op" and self.tok.value == "<<":
            self.i += 1
            label = self.name()
            self.expect_op(">>")
            return label
        return None

    def block(self, label: str | None) -> Block:
        block = Block(self.line(), "statement block", label)
        scope: dict[str, Variable] = {}
        self.scopes.append((label, scope))
        self.loops.append((label, False))
        while self.accept("declare"):
            while not self.is_word("begin", "declare") and self.tok.kind != "eof":
                block.declarations.append(self.declaration(scope))
        self.expect("begin")
        block.body = self.statements("end", "exception")
        if self.accept("exception"):
            block.handlers = []
            while self.accept("when"):
                conditions = self.conditions()
                self.expect("then")
                handler_scope: dict[str, Variable] = {}
                sqlstate = self._declare_into(handler_scope, "sqlstate", "text")
                sqlerrm = self._declare_into(handler_scope, "sqlerrm", "text")
                self.scopes.append((None, handler_scope))
                body = self.statements("end", "when")
                self.scopes.pop()
                block.handlers.append(Handler(conditions, body, sqlstate.slot, sqlerrm.slot))
            if not block.handlers:
                self.error()
        self.expect("end")
        self.end_label(label)
        self.scopes.pop()
        self.loops.pop()
        return block

    def end_label(self, label: str | None) -> None:
        if self.tok.kind in ("word", "ident") and not (self.tok.kind == "op"):
            at = self.tok
            if self.tok.kind == "word" and self.tok.value in ("loop", "if", "case"):
                return
            name = self.name()
            if label is None:
                self.error(at, f'end label "{name}" specified for unlabeled block')
            if name != label:
                self.error(at, f'end label "{name}" differs from block\'s label "{label}"')

    def declaration(self, scope: dict) -> Declaration:
        at = self.tok
        name = self.name()
        if name in scope:
            self.error(at, f'duplicate declaration at or near "{self.source[at.start:at.end]}"', "42712")
        constant = self.accept("constant")
        if self.is_word("alias", "cursor", "scroll") or self.is_word("no") and self.is_word("scroll", k=1):
            self.error(message=f"{self.tok.value.upper()} declarations are not supported in txlake's PL/pgSQL",
                       sqlstate="0A000")
        start = self.tok
        depth = 0
        while True:
            t = self.tok
            if t.kind == "eof":
                self.error()
            if depth == 0 and (t.kind == "op" and t.value in (";", ":=", "=") or
                               t.kind == "word" and t.value in ("default", "not", "collate")):
                break
            depth += t.value == "(" if t.kind == "op" else 0
            depth -= t.value == ")" if t.kind == "op" else 0
            self.i += 1
        if self.tok is start:
            self.error()
        written = self.source[start.start:self.tokens[self.i - 1].end]
        type_, record, column_of = self._type(written, start)
        if self.accept("collate"):
            self.name()
        not_null = False
        if self.accept("not"):
            self.expect("null")
            not_null = True
        default = None
        if self.accept("default") or self.accept_op(":=") or self.accept_op("="):
            default = self.sql((";",), "expression")
        if not_null and default is None:
            self.error(at, f'variable "{name}" must have a default value, since it\'s declared NOT NULL', "22004")
        self.expect_op(";")
        variable = self._declare_into(scope, name, type_, record, constant=constant, not_null=not_null,
                                      column_of=column_of)
        return Declaration(variable, default, _line(self.source, at.start))

    def _type(self, written: str, at: Token) -> tuple[str | None, bool, tuple[str, str] | None]:
        lowered = written.lower().replace(" ", "")
        if lowered == "record" or lowered.endswith("%rowtype"):
            return None, True, None
        if lowered.endswith("%type"):
            parts = written[:written.rfind("%")].strip().split(".")
            names = [p.strip().strip('"') if p.strip().startswith('"') else p.strip().lower() for p in parts]
            if len(names) == 1:
                other = self.lookup(names[0])
                if other is None:
                    self.error(at, f'type "{written}" does not exist', "42704")
                return other.type, other.record, other.column_of
            return None, False, (".".join(names[:-1]), names[-1])
        return written, False, None

    def conditions(self) -> tuple[str, ...]:
        found = []
        while True:
            at = self.tok
            if self.accept("sqlstate"):
                code = self.tok
                if code.kind != "string" or not is_sqlstate(_string(code.value)):
                    self.error(code, f'invalid SQLSTATE code at or near "{self.source[code.start:code.end]}"')
                self.i += 1
                found.append(_string(code.value))
            else:
                name = self.name()
                if name == "others":
                    found.append("others")
                elif name in CODES:
                    found.extend(CODES[name])
                else:
                    self.error(at, f'unrecognized exception condition "{name}"', "42704")
            if not self.accept("or"):
                return tuple(found)

    def statements(self, *ends: str) -> list:
        result = []
        while not self.is_word(*ends):
            if self.tok.kind == "eof":
                self.error()
            result.append(self.statement())
        return result

    def statement(self):
        label = self.label()
        t = self.tok
        line = self.line()
        if label is not None and not self.is_word("declare", "begin", "loop", "while", "for", "foreach"):
            self.error()
        if t.kind != "word":
            if t.kind == "ident" and self.peek().kind == "op" and self.peek().value in (":=", "=", ".", "["):
                return self.assignment(line)
            self.error()
        word = t.value
        if word in ("declare", "begin"):
            block = self.block(label)
            self.expect_op(";")
            return block
        if word == "if":
            return self.if_(line)
        if word == "case":
            return self.case(line)
        if word in ("loop", "while"):
            return self.loop(label, line)
        if word == "for":
            return self.for_(label, line)
        if word == "foreach":
            return self.foreach(label, line)
        if word in ("exit", "continue"):
            return self.exit(line)
        if word == "return":
            return self.return_(line)
        if word == "raise":
            return self.raise_(line)
        if word == "assert":
            self.i += 1
            condition = self.sql((";", ","), "expression")
            message = self.sql((";",), "expression") if self.accept_op(",") else None
            self.expect_op(";")
            return Assert(line, "ASSERT", condition, message)
        if word == "null" and self.peek().kind == "op" and self.peek().value == ";":
            self.i += 2
            return None
        if word == "perform":
            self.i += 1
            query = self.sql((";",), "statement", prefix="SELECT ")
            self.expect_op(";")
            return Statement(line, "PERFORM", query, perform=True)
        if word == "execute":
            return self.execute(line)
        if word == "get":
            return self.diagnostics(line)
        if word in ("commit", "rollback"):
            self.i += 1
            self.accept("work", "transaction")
            chain = False
            if self.accept("and"):
                chain = not self.accept("no")
                self.expect("chain")
            self.expect_op(";")
            return EndTransaction(line, word.upper(), word == "commit", chain)
        if word in ("open", "fetch", "close", "move"):
            self.error(message=f"{word.upper()} is not supported in txlake's PL/pgSQL: txlake has no cursors",
                       sqlstate="0A000")
        nxt = self.peek()
        assigns = self.peek(3).kind == "op" and self.peek(3).value in (":=", "=")
        if nxt.kind == "op" and (nxt.value in (":=", "=", "[") or nxt.value == "." and assigns):
            if self.lookup(word) is not None or (nxt.value == "." and self.labelled(word, self.peek(2).value)):
                return self.assignment(line)
        if word in _SQL_WORDS:
            return self.sql_statement(line)
        self.error()

    def assignment(self, line: int) -> Assign:
        at = self.tok
        target = self.target()
        if self.tok.kind == "op" and self.tok.value == "[":
            self.error(message="assignment to an array element is not supported in txlake's PL/pgSQL",
                       sqlstate="0A000")
        if not (self.accept_op(":=") or self.accept_op("=")):
            self.error()
        variable = self.variable_at(target)
        if variable.constant:
            self.error(at, f'variable "{variable.name}" is declared CONSTANT')
        value = self.sql((";",), "expression")
        self.expect_op(";")
        return Assign(line, "assignment", target, value)

    def variable_at(self, ref: Ref) -> Variable:
        return self.variables[ref.slot]

    def target(self) -> Ref:
        """A variable written to: ``x``, ``r.f``, ``label.x``."""
        at = self.tok
        name = self.name()
        if self.tok.kind == "op" and self.tok.value == "." and self.peek().kind in ("word", "ident"):
            qualified = self.labelled(name, self.peek().value)
            variable = self.lookup(name)
            if qualified is not None:
                self.i += 2
                return Ref(qualified.slot, None, qualified.name)
            if variable is not None and variable.record:
                self.i += 2
                return Ref(variable.slot, self.tokens[self.i - 1].value, name)
        variable = self.lookup(name)
        if variable is None:
            self.error(at, f'"{name}" is not a known variable')
        return Ref(variable.slot, None, name)

    def targets(self) -> tuple[Ref, ...]:
        found = [self.target()]
        while self.accept_op(","):
            found.append(self.target())
        records = [r for r in found if r.field is None and self.variable_at(r).record]
        if records and len(found) > 1:
            self.error(message="record variable cannot be part of multiple-item INTO list")
        return tuple(found)

    def if_(self, line: int) -> If:
        self.i += 1
        branches = []
        condition = self.sql(("then",), "expression")
        self.expect("then")
        branches.append((condition, self.statements("elsif", "elseif", "else", "end")))
        otherwise = []
        while True:
            if self.accept("elsif", "elseif"):
                condition = self.sql(("then",), "expression")
                self.expect("then")
                branches.append((condition, self.statements("elsif", "elseif", "else", "end")))
            elif self.accept("else"):
                otherwise = self.statements("end")
            else:
                break
        self.expect("end")
        self.expect("if")
        self.expect_op(";")
        return If(line, "IF", branches, otherwise)

    def case(self, line: int) -> Case:
        self.i += 1
        search = None if self.is_word("when") else self.sql(("when",), "expression")
        branches = []
        while self.accept("when"):
            values = self.sql(("then",), "expression")
            self.expect("then")
            condition = values if search is None else \
                Sql(("(", *search.pieces, ") IN (", *values.pieces, ")"), values.source)
            branches.append((condition, self.statements("when", "else", "end")))
        if not branches:
            self.error()
        otherwise = self.statements("end") if self.accept("else") else None
        self.expect("end")
        self.expect("case")
        self.expect_op(";")
        return Case(line, "CASE", branches, otherwise)

    def loop_body(self, label: str | None) -> list:
        self.expect("loop")
        self.loops.append((label, True))
        body = self.statements("end")
        self.loops.pop()
        self.expect("end")
        self.expect("loop")
        self.end_label(label)
        self.expect_op(";")
        return body

    def loop(self, label: str | None, line: int) -> Loop:
        condition = None
        if self.accept("while"):
            condition = self.sql(("loop",), "expression")
            return Loop(line, "WHILE", label, self.loop_body(label), condition)
        return Loop(line, "LOOP", label, self.loop_body(label))

    def for_(self, label: str | None, line: int):
        self.i += 1
        start = self.i
        # FOR i IN [REVERSE] a .. b: a new integer variable, whatever the name means outside
        depth, j = 0, self.i
        while self.tokens[j].kind != "eof" and not (depth == 0 and self.tokens[j].kind == "word"
                                                    and self.tokens[j].value == "loop"):
            t = self.tokens[j]
            depth += (t.value in "([") - (t.value in ")]") if t.kind == "op" else 0
            if depth == 0 and t.kind == "op" and t.value == "..":
                break
            j += 1
        if self.tokens[j].kind == "op" and self.tokens[j].value == "..":
            name = self.name()
            self.expect("in")
            reverse = self.accept("reverse")
            low = self.sql(("..",), "expression")
            self.expect_op("..")
            high = self.sql(("loop", "by"), "expression")
            step = self.sql(("loop",), "expression") if self.accept("by") else None
            scope: dict[str, Variable] = {}
            variable = self._declare_into(scope, name, "integer")
            self.scopes.append((label, scope))
            body = self.loop_body(label)
            self.scopes.pop()
            return ForRange(line, "FOR with integer loop variable", label, variable, low, high, step, reverse, body)
        self.i = start
        at = self.tok
        qualified = self.peek().kind == "op" and self.peek().value == "." and \
            self.labelled(at.value, self.peek(2).value) is not None
        if self.lookup(at.value) is None and not qualified:
            self.error(at, "loop variable of loop over rows must be a record variable or list of scalar variables")
        targets = self.targets()
        self.expect("in")
        if self.accept("execute"):
            text = self.sql(("loop", "using"), "expression")
            using = self.using(("loop",))
            return ForQuery(line, "FOR over EXECUTE statement", label, targets, text, True, using,
                            self.loop_body(label))
        query = self.sql(("loop",), "statement")
        return ForQuery(line, "FOR over SELECT rows", label, targets, query, False, (), self.loop_body(label))

    def foreach(self, label: str | None, line: int) -> Foreach:
        self.i += 1
        target = self.target()
        if self.accept("slice"):
            self.error(message="FOREACH ... SLICE is not supported in txlake's PL/pgSQL", sqlstate="0A000")
        self.expect("in")
        self.expect("array")
        array = self.sql(("loop",), "expression")
        return Foreach(line, "FOREACH over array", label, target, array, self.loop_body(label))

    def using(self, ends: tuple[str, ...]) -> tuple[Sql, ...]:
        found = []
        if self.accept("using"):
            found.append(self.sql((*ends, ","), "expression"))
            while self.accept_op(","):
                found.append(self.sql((*ends, ","), "expression"))
        return tuple(found)

    def exit(self, line: int) -> Exit:
        again = self.tok.value == "continue"
        at = self.tok
        self.i += 1
        label = None
        if self.tok.kind in ("word", "ident") and not self.is_word("when"):
            label = self.name()
            kind = next((loop for name, loop in reversed(self.loops) if name == label), None)
            if kind is None:
                self.error(at, f'there is no label "{label}" attached to any block or loop enclosing this statement')
            if again and not kind:
                self.error(at, f'block label "{label}" cannot be used in CONTINUE')
        elif not any(loop for _, loop in self.loops):
            self.error(at, "CONTINUE cannot be used outside a loop" if again else
                       "EXIT cannot be used outside a loop, unless it has a label")
        condition = self.sql((";",), "expression") if self.accept("when") else None
        self.expect_op(";")
        return Exit(line, "CONTINUE" if again else "EXIT", label, condition, again)

    def return_(self, line: int) -> Return:
        """RETURN, RETURN NEXT, RETURN QUERY [EXECUTE], checked against what the body returns as
        PostgreSQL's pl_gram.y checks them."""
        at = self.tok
        self.i += 1
        returns = self.returns
        if self.is_word("next", "query"):
            kind = self.tok.value
            if returns is None and not self.trigger:
                self.error(message=f"RETURN {kind.upper()} cannot be used in a DO block", sqlstate="42804")
            if returns is None or not returns.setof:
                self.error(message=f"cannot use RETURN {kind.upper()} in a non-SETOF function", sqlstate="42804")
            self.i += 1
            if kind == "query" and self.accept("execute"):
                text = self.sql((";", "using"), "expression")
                using = self.using((";",))
                self.expect_op(";")
                return Return(line, "RETURN QUERY", "execute", text, using)
            if kind == "query":
                query = self.sql((";",), "statement")
                self.expect_op(";")
                return Return(line, "RETURN QUERY", "query", query)
            if returns.outputs:
                if not self.accept_op(";"):
                    self.error(message="RETURN NEXT cannot have a parameter in function with OUT parameters",
                               sqlstate="42804")
                return Return(line, "RETURN NEXT", "next")
            if self.is_word_op(";"):
                self.error(message='missing expression at or near ";"')
            value = self.sql((";",), "expression")
            self.expect_op(";")
            return Return(line, "RETURN NEXT", "next", value)
        if self.trigger:  # (its RETURN gives NEW, OLD or NULL: a value is wanted)
            if self.is_word_op(";"):
                self.error(message='missing expression at or near ";"')
            value = self.sql((";",), "expression")
            self.expect_op(";")
            return Return(line, "RETURN", "", value)
        if self.accept_op(";"):
            if returns is not None and not returns.setof and returns.type != "void" and not returns.outputs:
                self.error(self.tokens[self.i - 1], 'missing expression at or near ";"')
            return Return(line, "RETURN")
        if returns is not None and returns.procedure:
            self.error(at, "RETURN cannot have a parameter in a procedure")  # (42601, as pl_gram.y's)
        if returns is None or returns.type == "void":
            self.error(at, "RETURN cannot have a parameter in function returning void", "42804")
        if returns.setof:
            self.error(at, "RETURN cannot have a parameter in function returning set\nHINT:  Use RETURN NEXT or "
                           "RETURN QUERY.", "42804")
        if returns.outputs:
            self.error(at, "RETURN cannot have a parameter in function with OUT parameters", "42804")
        value = self.sql((";",), "expression")
        self.expect_op(";")
        return Return(line, "RETURN", "", value)

    def is_word_op(self, op: str) -> bool:
        return self.tok.kind == "op" and self.tok.value == op

    def raise_(self, line: int) -> Raise:
        at = self.tok
        self.i += 1
        if self.accept_op(";"):
            return Raise(line, "RAISE", "", None, None, None, (), ())
        level = "exception"
        if self.is_word(*_LEVELS):
            level = self.tok.value
            self.i += 1
        sqlstate = message = condition = None
        args: list[Sql] = []
        if self.tok.kind == "string":
            message = _string(self.tok.value)
            self.i += 1
            while self.accept_op(","):
                args.append(self.sql((",", ";", "using"), "expression"))
            wanted = _placeholders(message)
            if wanted > len(args):
                self.error(at, "too few parameters specified for RAISE")
            if wanted < len(args):
                self.error(at, "too many parameters specified for RAISE")
        elif self.accept("sqlstate"):
            code = self.tok
            if code.kind != "string" or not is_sqlstate(_string(code.value)):
                self.error(code, f'invalid SQLSTATE code at or near "{self.source[code.start:code.end]}"')
            sqlstate = condition = _string(code.value)
            self.i += 1
        elif self.tok.kind == "word" and self.tok.value != "using":
            condition = self.name()
            if condition not in CODES:
                self.error(at, f'unrecognized exception condition "{condition}"', "42704")
            sqlstate = CODES[condition][0]
        options = []
        if self.accept("using"):
            while True:
                option = self.name().upper()
                if option not in ("MESSAGE", "DETAIL", "HINT", "ERRCODE", "COLUMN", "CONSTRAINT", "DATATYPE",
                                  "TABLE", "SCHEMA"):
                    self.error(message=f'unrecognized RAISE statement option "{option.lower()}"')
                if not (self.accept_op("=") or self.accept_op(":=")):
                    self.error()
                if any(o == option for o, _ in options):
                    self.error(message=f"RAISE option already specified: {option}")
                options.append((option, self.sql((",", ";"), "expression")))
                if not self.accept_op(","):
                    break
        self.expect_op(";")
        if message is None and sqlstate is None and not options:
            self.error()
        return Raise(line, "RAISE", level.upper(), sqlstate, condition, message, tuple(args), tuple(options))

    def execute(self, line: int) -> Execute:
        self.i += 1
        text = self.sql((";", "into", "using"), "expression")
        into, strict, using = (), False, ()
        for _ in range(2):
            if self.accept("into") and not into:
                strict = self.accept("strict")
                into = self.targets()
            elif self.is_word("using") and not using:
                using = self.using((";", "into"))
        self.expect_op(";")
        return Execute(line, "EXECUTE", text, into, strict, using)

    def diagnostics(self, line: int) -> Diagnostics:
        self.i += 1
        stacked = self.accept("stacked")
        if not stacked:
            self.accept("current")
        self.expect("diagnostics")
        items = []
        while True:
            target = self.target()
            if not (self.accept_op("=") or self.accept_op(":=")):
                self.error()
            at = self.tok
            item = self.name()
            allowed = _STACKED_ITEMS if stacked else ("row_count", "pg_context")
            if item not in allowed:
                self.error(at, f"diagnostics item {item.upper()} is not allowed in GET "
                               f"{'STACKED' if stacked else 'CURRENT'} DIAGNOSTICS")
            items.append((target, item))
            if not self.accept_op(","):
                break
        self.expect_op(";")
        return Diagnostics(line, "GET STACKED DIAGNOSTICS" if stacked else "GET DIAGNOSTICS", items, stacked)

    def sql_statement(self, line: int) -> Statement:
        first = self.tok.value
        sql, into, strict = self.sql((";",), "statement", into=True)
        self.expect_op(";")
        returns_rows = first in ("select", "values", "table") or (first == "with" and _selects(sql.source)) or \
            " returning " in f" {sql.source.lower()} "
        return Statement(line, "SQL statement", sql, into, strict, returns_rows=returns_rows or bool(into))

    def sql(self, ends: tuple[str, ...], kind: str, prefix: str = "", into: bool = False):
        """The text up to one of ``ends`` (words or operators, outside parentheses) as a ``Sql``,
        with the variables it names (in an expression; in a statement that takes parameters);
        ``into``: a statement's INTO clause taken out too (returned with it)."""
        first = self.tok
        if first.kind == "eof" or (first.kind == "op" and first.value in ends) or \
                (first.kind == "word" and first.value in ends and kind == "expression"):
            self.error()
        substitute = kind == "expression" or prefix != "" or first.value in _SUBSTITUTED
        pieces: list = [prefix] if prefix else []
        depth, last, targets, strict = 0, first.start, (), False
        start_index = self.i
        previous: Token | None = None
        in_insert_columns = False
        after_set = False
        unknown_parameter = None
        statement_word = first.value if first.kind == "word" else ""
        shifted: list[int] = []  # the depths of the open subscripts of a zero-based array (``Variable.zero_based``)
        while True:
            t = self.tok
            if t.kind == "eof":
                if ";" in ends:
                    self.error()
                break
            if depth == 0 and (t.kind == "op" and t.value in ends or t.kind == "word" and t.value in ends):
                break
            if t.kind == "op" and t.value in ("(", "["):
                depth += 1
                if previous is not None and previous.kind in ("word", "ident") and statement_word == "insert" \
                        and self._insert_target(start_index):
                    in_insert_columns = depth == 1
            elif t.kind == "op" and t.value in (")", "]"):
                if shifted and shifted[-1] == depth and t.value == "]":
                    shifted.pop()
                    pieces += [self.source[last:t.start], ")"]
                    last = t.start
                depth -= 1
                in_insert_columns = in_insert_columns and depth >= 1
            if into and depth == 0 and t.kind == "word" and t.value == "into" and not targets and \
                    not (previous is not None and previous.kind == "word" and previous.value in ("insert", "merge")):
                pieces.append(self.source[last:t.start])
                self.i += 1
                strict = self.accept("strict")
                targets = self.targets()
                last = self.tokens[self.i - 1].end
                previous = self.tokens[self.i - 1]
                continue
            if t.kind == "word" and t.value == "set" and depth == 0:
                after_set = True
            if substitute and t.kind in ("word", "ident", "param") and not in_insert_columns:
                ref, consumed = self._reference(previous, after_set and statement_word in ("update", "insert", "merge"))
                if ref is None and t.kind == "param":
                    unknown_parameter = unknown_parameter or t.value
                if ref is not None:
                    pieces.append(self.source[last:t.start])
                    pieces.append(ref)
                    self.i += consumed
                    last = self.tokens[self.i - 1].end
                    previous = self.tokens[self.i - 1]
                    if self.variables[ref.slot].zero_based and self.tok.kind == "op" and self.tok.value == "[":
                        depth += 1
                        shifted.append(depth)
                        pieces.append("[1 + (")
                        last = self.tok.end
                        previous = self.tok
                        self.i += 1
                    continue
            previous = t
            self.i += 1
        end = self.tokens[self.i - 1].end if self.i > start_index else first.start
        pieces.append(self.source[last:end])
        source = self.source[first.start:end]
        sql = Sql(tuple(p for p in pieces if p != ""), source, unknown_parameter=unknown_parameter)
        return (sql, targets, strict) if into else sql

    def _insert_target(self, start_index: int) -> bool:
        """Is the ``(`` at hand the column list of INSERT INTO name (...)?"""
        words = self.tokens[start_index:self.i]
        return len(words) >= 3 and words[1].value == "into" and words[-1].value not in ("values", "select") and \
            all(t.kind in ("word", "ident") or t.value == "." for t in words[2:])

    def _reference(self, previous: Token | None, in_set: bool) -> tuple[Ref | None, int]:
        """The variable the word at hand names in an expression (and how many tokens it takes), or
        None: a name after ``.`` or AS, a function's name, an UPDATE's SET target."""
        t, nxt = self.tok, self.peek()
        if t.kind == "param":  # ($n: a function's n-th argument)
            variable = self.lookup(f"${t.value}")
            return (Ref(variable.slot, None, f"${t.value}"), 1) if variable is not None else (None, 0)
        if previous is not None and (previous.kind == "op" and previous.value in (".", "::") or
                                     previous.kind == "word" and previous.value == "as"):
            return None, 0
        if nxt.kind == "op" and nxt.value == "(":
            return None, 0
        if in_set and nxt.kind == "op" and nxt.value == "=" and previous is not None and \
                (previous.kind, previous.value) in (("word", "set"), ("op", ",")):
            return None, 0
        if nxt.kind == "op" and nxt.value == "." and self.peek(2).kind in ("word", "ident"):
            qualified = self.labelled(t.value, self.peek(2).value)
            if qualified is not None and not (self.peek(3).kind == "op" and self.peek(3).value == "("):
                return Ref(qualified.slot, None, qualified.name), 3
            variable = self.lookup(t.value)
            if variable is not None and variable.record:
                return Ref(variable.slot, self.peek(2).value, t.value), 3
            return None, 0
        variable = self.lookup(t.value)
        if variable is None or (t.kind == "word" and t.value in _NOT_NAMES):
            return None, 0
        return Ref(variable.slot, None, t.value, plain=True), 1


# words that are SQL's keywords, never a variable (PostgreSQL's reserved words)
_NOT_NAMES = frozenset("all and any array as asc case cast check collate column constraint create current_date "
                       "current_time current_timestamp current_user default desc distinct do else end except "
                       "false fetch for foreign from grant group having in initially intersect into leading "
                       "limit localtime localtimestamp not null offset on only or order placing primary "
                       "references returning select session_user some symmetric table then to trailing true "
                       "union unique user using variadic when where window with".split())

_STACKED_ITEMS = ("returned_sqlstate", "message_text", "pg_exception_detail", "pg_exception_hint",
                  "pg_exception_context", "column_name", "constraint_name", "pg_datatype_name", "table_name",
                  "schema_name")


def _selects(source: str) -> bool:
    lowered = f" {source.lower()} "
    return not any(f" {w} " in lowered for w in ("insert", "update", "delete", "merge")) or " returning " in lowered


def _string(written: str) -> str:
    """A string token's text."""
    if written.startswith("$"):
        tag_end = written.index("$", 1) + 1
        return written[tag_end:-tag_end]
    if written[0] in "eE":
        body = written[2:-1].replace("''", "'")
        return body.encode("latin-1", "backslashreplace").decode("unicode_escape")
    return written[1:-1].replace("''", "'")


def _placeholders(message: str) -> int:
    count, i = 0, 0
    while i < len(message):
        if message[i] == "%":
            if message.startswith("%%", i):
                i += 2
                continue
            count += 1
        i += 1
    return count


@functools.lru_cache(maxsize=128)
def compile_body(source: str, variables: tuple[tuple[str, str | None], ...] = (), name: str = INLINE,
                 trigger: bool = False, returns: Returns | None = None) -> Body:
    """A PL/pgSQL body parsed (once per text): 42601 - or the SQLSTATE PostgreSQL gives - with
    ``compilation of PL/pgSQL function "name" near line N`` where it is wrong. ``variables``:
    names (and SQL types; None: a record) declared around its block - a function's arguments,
    a trigger's NEW / OLD / TG_OP; ``name``: how messages name it (``f(integer)``); ``trigger``:
    a trigger function's body (its RETURN gives a row, its TG_ARGV counts from 0); ``returns``:
    another function's result (None: a DO block, which returns nothing, or a trigger function)."""
    try:
        parser = _Parser(source, variables, trigger, returns)
        block = parser.body()
    except errors.Error as e:
        if getattr(e, "compile_line", None) is not None:
            _add_context(e, f'compilation of PL/pgSQL function "{name}" near line {e.compile_line}')
        raise
    return Body(block, tuple(parser.variables), source, name, returns)


# --- running it -------------------------------------------------------------------------

class _Leave:
    """EXIT / CONTINUE (``again``) of a loop or block, going out to the one labelled ``label``."""
    __slots__ = ("label", "again")

    def __init__(self, label: str | None, again: bool):
        self.label, self.again = label, again


_RETURN = object()


@dataclass(slots=True)
class Row:
    """A record's value: its fields' names, values and SQL types."""
    names: tuple[str, ...]
    values: list
    types: tuple[str | None, ...]
    null: bool = False  # a NULL of the row type (a trigger's OLD for an INSERT): its fields NULL, RETURNed NULL


# the control statements a body may not run (it runs in its caller's transaction)
_TRANSACTION_CONTROL = (st.Begin, st.Commit, st.Rollback, st.Savepoint, st.RollbackToSavepoint, st.ReleaseSavepoint,
                        st.PrepareTransaction, st.CommitPrepared, st.RollbackPrepared)


class Run:
    """One run of a compiled body in ``session``: its variables' values and types, FOUND, the
    row count of its last statement, the messages RAISE gave (severity, text)."""

    def __init__(self, session, body: Body, own_transaction: bool, arguments: dict[str, object] | None = None,
                 caller: "Run | None" = None):
        self.session = session
        self.body = body
        self.values: list = [None] * body.slots
        self.types: list = [v.type for v in body.variables]
        for variable in body.variables[:1 + len(arguments or ())]:  # (declared around its block: first)
            if arguments and variable.name in arguments:
                self.values[variable.slot] = arguments[variable.name]
        self.arguments = len(arguments or ())
        # the DO's own transaction, or its non-atomic caller's (``caller``): COMMIT / ROLLBACK may end it
        self.own_transaction = own_transaction or caller is not None
        self.caller = caller
        self.messages: list[tuple[str, str]] = []
        self.row_count = 0
        self.subtransactions = 0  # the blocks with handlers running (each in a savepoint)
        self.writing_loops = 0  # the FOR loops running over a statement that writes
        self.caught: list[errors.Error] = []  # the errors the handlers running now caught
        self.current: Node | None = None
        self.values[0] = False  # FOUND
        self.returned_row = _NOT_RETURNED  # what a trigger function's RETURN gave
        self.returned = False  # a RETURN with its value ran (``result``)
        self.result = None
        self.rows: list[tuple] = []  # a set-returning function's, RETURN NEXT's and RETURN QUERY's

    # entry

    def run(self) -> None:
        try:
            self.block(self.body.block)
        except errors.Error as e:
            self._context(e)
            raise

    def _context(self, e: errors.Error) -> None:
        """PostgreSQL's CONTEXT lines of an error leaving this run: the query it came from (where
        the session ran one: ``_ran``), then the statement running - once per run (a DO that
        EXECUTE ran adds its own first)."""
        if getattr(e, "plpgsql_run", None) is self or self.current is None:
            return
        e.plpgsql_run = self
        e.position = None  # (a place in the statement it ran, which is not the one the client sent)
        if getattr(e, "plpgsql_query", None):
            _add_context(e, e.plpgsql_query)
            e.plpgsql_query = None
        node = self.current
        what = node.what
        _add_context(e, f"PL/pgSQL function {self.body.name} line {node.line} "
                        + ("during statement block local variable initialization" if what == "declaration"
                           else f"at {what}"))

    # statements

    def statements(self, body: list):
        for node in body:
            if node is None:
                continue
            self.current = node
            signal = _RUNNERS[type(node)](self, node)
            if signal is not None:
                return signal
        return None

    def block(self, block: Block):
        if block.declarations:
            self.current = Node(block.line, "declaration")
            for declaration in block.declarations:
                self.declare(declaration)
        if block.handlers is None:
            signal = self.statements(block.body)
        else:
            signal = self.protected(block)
        if type(signal) is _Leave and not signal.again and signal.label is not None and signal.label == block.label:
            return None
        return signal

    def declare(self, declaration: Declaration) -> None:
        variable = declaration.variable
        if variable.column_of is not None:
            table, column = variable.column_of
            result = self._execute(f"SELECT {column} FROM {table} LIMIT 0", ())
            self.types[variable.slot] = _sql_type(result.schema.field(0).type)
        else:
            self.types[variable.slot] = variable.type
        value = None
        if declaration.default is not None:
            value = self.evaluate(declaration.default, self.types[variable.slot])
        if variable.not_null and value is None:
            raise error_for("22004", f'null value cannot be assigned to variable "{variable.name}" declared NOT NULL')
        self.values[variable.slot] = value

    def protected(self, block: Block):
        """A block with handlers: run in a savepoint; an error a handler catches rolls back to it."""
        session = self.session
        name = f"plpgsql block {id(self)} {self.subtransactions}"
        session.execute_statement(st.Savepoint(name=name))
        self.subtransactions += 1
        try:
            signal = self.statements(block.body)
        except errors.Error as e:
            self._context(e)
            self.subtransactions -= 1
            session.execute_statement(st.RollbackToSavepoint(name=name))
            session.execute_statement(st.ReleaseSavepoint(name=name))
            handler = next((h for h in block.handlers if any(matches(c, e.sqlstate) for c in h.conditions)), None)
            if handler is None:
                raise
            self.values[handler.sqlstate] = e.sqlstate
            self.values[handler.sqlerrm] = str(e).split("\n")[0]
            self.types[handler.sqlstate] = self.types[handler.sqlerrm] = "text"
            self.caught.append(e)
            try:
                return self.statements(handler.body)
            finally:
                self.caught.pop()
        except BaseException:
            self.subtransactions -= 1
            if session.txn is not None:
                session.execute_statement(st.RollbackToSavepoint(name=name))
            raise
        self.subtransactions -= 1
        session.execute_statement(st.ReleaseSavepoint(name=name))
        return signal

    def assign(self, node: Assign) -> None:
        ref = node.target
        if ref.field is None:
            value = self.evaluate(node.value, self.types[ref.slot])
            self.store(ref, value)
        else:
            row = self._row(ref)
            if ref.field not in row.names:
                raise errors.UndefinedColumn(f'record "{ref.name}" has no field "{ref.field}"')
            index = row.names.index(ref.field)
            row.values[index] = self.evaluate(node.value, row.types[index])

    def store(self, ref: Ref, value) -> None:
        variable_not_null = self._not_null(ref.slot)
        if value is None and variable_not_null:
            raise error_for("22004", f'null value cannot be assigned to variable "{ref.name}" declared NOT NULL')
        self.values[ref.slot] = value

    def _not_null(self, slot: int) -> bool:
        return self.body.variables[slot].not_null

    def if_(self, node: If):
        for condition, body in node.branches:
            if self.condition(condition):
                return self.statements(body)
        return self.statements(node.otherwise)

    def case(self, node: Case):
        for condition, body in node.branches:
            if self.condition(condition):
                return self.statements(body)
        if node.otherwise is None:
            raise error_for("20000", "case not found\nHINT:  CASE statement is missing ELSE part.")
        return self.statements(node.otherwise)

    def _loop_signal(self, signal, label: str | None):
        """What a loop does with its body's signal: "next" (go on), "stop", or the signal to pass on."""
        if signal is None:
            return "next"
        if type(signal) is _Leave and (signal.label is None or signal.label == label):
            return "next" if signal.again else "stop"
        return signal

    def loop(self, node: Loop):
        check = self.session._check_canceled
        while True:
            check()
            if node.condition is not None:
                self.current = node
                if not self.condition(node.condition):
                    return None
            outcome = self._loop_signal(self.statements(node.body), node.label)
            if outcome == "stop":
                return None
            if outcome != "next":
                return outcome

    def for_range(self, node: ForRange):
        low = self.evaluate(node.low, "integer")
        high = self.evaluate(node.high, "integer")
        step = self.evaluate(node.step, "integer") if node.step is not None else 1
        if low is None:
            raise error_for("22004", "lower bound of FOR loop cannot be null")
        if high is None:
            raise error_for("22004", "upper bound of FOR loop cannot be null")
        if step is None:
            raise error_for("22004", "BY value of FOR loop cannot be null")
        if step <= 0:
            raise error_for("22023", "BY value of FOR loop must be greater than zero")
        slot = node.variable.slot
        self.types[slot] = "integer"
        values = range(low, high + 1, step) if not node.reverse else range(low, high - 1, -step)
        return self._iterate(node, values, lambda i: self.values.__setitem__(slot, i))

    def for_query(self, node: ForQuery):
        result = self.dynamic(node.query, node.using) if node.dynamic else self.query(node.query)
        names, types, rows = _rows(result)
        writes = not result.status.startswith("SELECT")  # (FOR r IN UPDATE ... RETURNING: COMMIT inside is 2D000)
        self.writing_loops += writes
        try:
            return self._iterate(node, rows, lambda row: self.put_row(node.targets, names, types, row))
        finally:
            self.writing_loops -= writes

    def foreach(self, node: Foreach):
        array = self.evaluate(node.array)
        if array is None:
            raise error_for("22004", "FOREACH expression must not be null")
        if not isinstance(array, list):
            raise errors.DatatypeMismatch("FOREACH expression must yield an array, not type "
                                          f"{_sql_type_of(array) or 'unknown'}")
        to_type = self._type_of(node.target)
        return self._iterate(node, _flat(array),
                             lambda element: self.store(node.target, self.coerce(element, None, to_type)))

    def _iterate(self, node, items, put):
        """A FOR or FOREACH loop: each item ``put`` in its variables, then the body run; FOUND
        then says whether it ran at all, as PostgreSQL sets it."""
        found = False
        check = self.session._check_canceled
        for item in items:
            check()
            found = True
            put(item)
            outcome = self._loop_signal(self.statements(node.body), node.label)
            if outcome == "stop":
                break
            if outcome != "next":
                self.values[0] = True
                return outcome
        self.values[0] = found
        return None

    def outputs(self) -> tuple:
        """The values of the result's columns (RETURNS TABLE's, the OUT parameters'): variables
        declared around the body, after the arguments (an INOUT one's is its argument's)."""
        outer = self.body.variables[1:1 + len(self.body.returns.columns) + self.arguments]
        slots = {v.name: v.slot for v in reversed(outer)}
        return tuple(self.values[slots[c]] for c in self.body.returns.columns)

    def exit(self, node: Exit):
        if node.condition is not None and not self.condition(node.condition):
            return None
        return _Leave(node.label, node.again)

    def return_(self, node: Return):
        returns = self.body.returns
        if node.kind == "":
            if node.value is not None and returns is None:  # (a trigger function's: NEW, OLD or NULL)
                self.returned_row = self._returned_row(node.value)
            elif node.value is not None:
                self.result = self.evaluate(node.value, returns.type)
            self.returned = True
            return _RETURN
        if node.kind == "next":
            if node.value is None:
                self.rows.append(self.outputs())
            else:
                self.rows.append((self.evaluate(node.value, returns.type),))
            return None
        result = self.query(node.value) if node.kind == "query" else self.dynamic(node.value, node.using)
        _, _, rows = _rows(result)
        wanted = len(returns.columns) or 1
        if result.schema is None or len(result.schema) != wanted:
            raise errors.DatatypeMismatch(
                "structure of query does not match function result type\nDETAIL:  Number of returned columns "
                f"({0 if result.schema is None else len(result.schema)}) does not match expected column count "
                f"({wanted}).")
        self.rows.extend(tuple(row) for row in rows)
        self.row_count = len(rows)
        self.values[0] = bool(rows)
        return None

    def _returned_row(self, value: Sql):
        """A trigger function's RETURN: a copy of the record it names (NEW or OLD), or None for NULL."""
        pieces = [p for p in value.pieces if type(p) is Ref or p.strip()]
        if len(pieces) == 1 and type(pieces[0]) is Ref and pieces[0].field is None and \
                self.body.variables[pieces[0].slot].record:
            row = self._row(pieces[0])
            return None if row.null else Row(row.names, list(row.values), row.types)
        if len(pieces) == 1 and type(pieces[0]) is str and pieces[0].strip().lower() == "null":
            return None
        coalesced = self._coalesced_records(pieces)
        if coalesced is not None:  # (RETURN COALESCE(NEW, OLD): the first that is not NULL)
            for ref in coalesced:
                row = self._row(ref)
                if not row.null:
                    return Row(row.names, list(row.values), row.types)
            return None
        raise errors.NotSupportedError(f"RETURN {value.source} in a trigger function is not supported: return NEW, "
                                       "OLD, NULL, a record variable or COALESCE of them")

    def _coalesced_records(self, pieces: list) -> list | None:
        """The record variables of ``COALESCE(r1, r2, ...)`` (a trigger function's ``RETURN
        COALESCE(NEW, OLD)``, for a trigger of INSERT, UPDATE and DELETE), None for another form."""
        if len(pieces) < 3 or type(pieces[0]) is not str or type(pieces[-1]) is not str or \
                not re.fullmatch(r"\s*coalesce\s*\(\s*", pieces[0], re.I) or pieces[-1].strip() != ")":
            return None
        refs, commas = pieces[1:-1:2], pieces[2:-1:2]
        if not all(type(r) is Ref and r.field is None and self.body.variables[r.slot].record for r in refs) or \
                not all(type(c) is str and c.strip() == "," for c in commas) or len(refs) != len(commas) + 1:
            return None
        return refs

    def statement(self, node: Statement) -> None:
        result = self.query(node.sql, perform=True) if node.perform else self.sql_statement(node.sql)
        names, types, rows = _rows(result) if result.schema is not None else ((), (), [])
        count = result.rowcount if result.rowcount >= 0 else len(rows)
        if node.perform:
            self.row_count = count
            self.values[0] = count > 0
            return
        if node.into:
            self.into(node.into, node.strict or result.status.split(" ")[0] in ("INSERT", "UPDATE", "DELETE", "MERGE"),
                      names, types, rows, node.strict)
            return
        if node.returns_rows and result.schema is not None:  # (a query's rows, or RETURNING's)
            raise errors.SyntaxError("query has no destination for result data\nHINT:  If you want to discard the "
                                     "results of a SELECT, use PERFORM instead.")
        self.row_count = count if _counts(result.status) else 0
        if _counts(result.status):
            self.values[0] = count > 0

    def into(self, targets, check_many: bool, names, types, rows, strict: bool) -> None:
        if strict and not rows:
            raise error_for("P0002", "query returned no rows")
        if check_many and len(rows) > 1:
            raise error_for("P0003", "query returned more than one row\nHINT:  Make sure the query returns a "
                                     "single row, or use LIMIT 1.")
        self.put_row(targets, names, types, rows[0] if rows else None)
        self.row_count = min(len(rows), 1) if not check_many else len(rows)
        self.values[0] = bool(rows)

    def put_row(self, targets: tuple[Ref, ...], names, types, row) -> None:
        first = targets[0]
        if len(targets) == 1 and first.field is None and self.body.variables[first.slot].record:
            self.values[first.slot] = Row(tuple(names), list(row), tuple(types)) if row is not None else \
                Row(tuple(names), [None] * len(names), tuple(types))
            return
        for i, target in enumerate(targets):
            value = row[i] if row is not None and i < len(row) else None
            from_type = types[i] if i < len(types) else None
            if target.field is None:
                self.store(target, self.coerce(value, from_type, self.types[target.slot]))
            else:
                record = self._row(target)
                if target.field not in record.names:
                    raise errors.UndefinedColumn(f'record "{target.name}" has no field "{target.field}"')
                index = record.names.index(target.field)
                record.values[index] = self.coerce(value, from_type, record.types[index])

    def execute(self, node: Execute) -> None:
        result = self.dynamic(node.text, node.using)
        names, types, rows = _rows(result) if result.schema is not None else ((), (), [])
        count = result.rowcount if result.rowcount >= 0 else len(rows)
        if node.into:
            if result.schema is None:
                raise errors.SyntaxError("INTO used with a command that cannot return data")
            self.into(node.into, node.strict or not result.status.startswith("SELECT"), names, types, rows,
                      node.strict)
        self.row_count = count if _counts(result.status) else 0

    def dynamic(self, text: Sql, using: tuple[Sql, ...]):
        """EXECUTE's statement: its text (22004 if NULL), ``$n`` the n-th USING value."""
        sql = self.evaluate(text)
        if sql is None:
            raise error_for("22004", "query string argument of EXECUTE is null")
        values = [self.evaluate(u) for u in using]
        value_types = [self._type_of(u.pieces[0]) if len(u.pieces) == 1 and type(u.pieces[0]) is Ref else None
                       for u in using]
        pieces, params, last = [], [], 0
        for token in tokenize(sql):
            if token.kind == "param":
                n = int(token.value)
                if not 1 <= n <= len(values):
                    raise errors.ProgrammingError(f"there is no parameter ${n}", sqlstate="42P02")
                pieces.append(sql[last:token.start])
                pieces.append(_placeholder(value_types[n - 1]))
                params.append(values[n - 1])
                last = token.end
        pieces.append(sql[last:])
        try:
            statements = self.session.parse("".join(pieces))
            if len(statements) != 1 and params:
                raise errors.ProgrammingError("cannot insert multiple commands into a prepared statement",
                                              sqlstate="42601")
        except errors.Error as e:
            _ran(e, f'SQL statement "{sql}"')
            raise
        if any(isinstance(statement, _TRANSACTION_CONTROL) for statement in statements):
            raise errors.NotSupportedError("EXECUTE of transaction commands is not implemented")
        result = None
        try:
            for statement in statements:  # (an EXECUTE'd CALL is atomic: PostgreSQL's transaction_test8)
                result = self.session.execute_statement(statement, tuple(params))
                self.messages.extend(result.messages or ())  # (a DO it ran: its RAISEs)
        except errors.Error as e:
            _ran(e, f'SQL statement "{sql}"')
            self.messages.extend(getattr(e, "notices", ()))
            raise
        if result is None:
            raise errors.SyntaxError("cannot execute an empty query string")  # (PostgreSQL's own words differ)
        return result

    def diagnostics(self, node: Diagnostics) -> None:
        if node.stacked:
            if not self.caught:
                raise error_for("0Z002", "GET STACKED DIAGNOSTICS cannot be used outside an exception handler")
            error = self.caught[-1]
            diag = error.diag
            fields = {"returned_sqlstate": error.sqlstate, "message_text": diag.message_primary,
                      "pg_exception_detail": diag.message_detail or "", "pg_exception_hint": diag.message_hint or "",
                      "pg_exception_context": diag.context or ""}
        else:
            fields = {"row_count": self.row_count,
                      "pg_context": f"PL/pgSQL function {self.body.name} line {node.line} at {node.what}"}
        for target, item in node.items:
            value = fields.get(item, "")
            self.store(target, self.coerce(value, "bigint" if item == "row_count" else "text",
                                           self._type_of(target)))

    def raise_(self, node: Raise) -> None:
        if node.level == "":
            if not self.caught:
                raise error_for("0Z002", "RAISE without parameters cannot be used outside an exception handler")
            raise self.caught[-1]
        message = _format(node.message, [self.text_of(a) for a in node.args]) if node.message is not None else None
        sqlstate = node.sqlstate
        detail = hint = None
        for option, expression in node.options:
            text = self.text_of(expression)
            if text is None:
                raise error_for("22004", "RAISE statement option cannot be null")
            if option == "MESSAGE":
                if message is not None:
                    raise errors.SyntaxError("RAISE option already specified: MESSAGE")
                message = text
            elif option == "DETAIL":
                detail = text
            elif option == "HINT":
                hint = text
            elif option == "ERRCODE":
                if text in CODES:
                    sqlstate = CODES[text][0]
                elif is_sqlstate(text):
                    sqlstate = text
                else:
                    raise errors.UndefinedObject(f'unrecognized exception condition "{text}"')
        if message is None:  # (PostgreSQL's: the condition as written, else the SQLSTATE's code)
            message = node.condition or sqlstate or "P0001"
        lines = message + (f"\nDETAIL:  {detail}" if detail is not None else "") + \
            (f"\nHINT:  {hint}" if hint is not None else "")
        if node.level == "EXCEPTION":
            raise error_for(sqlstate or "P0001", lines)
        self.messages.append((node.level, lines))

    def assert_(self, node: Assert) -> None:
        if self.condition(node.condition):
            return
        message = "assertion failed"
        if node.message is not None:
            message = self.text_of(node.message) or message
        raise error_for("P0004", message)

    def end_transaction(self, node: EndTransaction) -> None:
        """COMMIT / ROLLBACK in a DO not inside a transaction block (nor a block with handlers):
        the DO's transaction ends and a new one begins, as PostgreSQL's."""
        session = self.session
        if not self.own_transaction:
            raise error_for("2D000", "invalid transaction termination")
        runs = [self]
        while runs[-1].caller is not None:  # (a nested CALL's: its callers' blocks and loops too)
            runs.append(runs[-1].caller)
        if any(r.subtransactions for r in runs):
            raise error_for("2D000", f"cannot {'commit' if node.commit else 'roll back'} while a subtransaction "
                                     "is active")
        if any(r.writing_loops for r in runs):
            raise error_for("2D000", "cannot perform transaction commands inside a cursor loop that is not read-only")
        level = session.txn.declared_isolation if node.chain else None
        read_only = session.txn.read_only if node.chain else None
        session.commit() if node.commit else session.rollback()
        session.begin(level, read_only)

    # expressions and queries

    def condition(self, sql: Sql) -> bool:
        return self.evaluate(sql, "boolean") is True

    def evaluate(self, sql: Sql, cast: str | None = None):
        """The value of an expression (cast to ``cast``, an SQL type, where one is given)."""
        return self._evaluated(sql, cast, as_text=False)

    def text_of(self, sql: Sql) -> str | None:
        """An expression's value as text, as PostgreSQL's output function writes it (RAISE's)."""
        return self._evaluated(sql, None, as_text=True)

    def _evaluated(self, sql: Sql, cast: str | None, as_text: bool):
        if cast is not None and (bounded := _BOUNDED_TEXT.match(cast.strip())) is not None:  # varchar(n) / char(n)
            value = self._evaluated(sql, "text", as_text)
            return None if value is None else _fitted(value, bounded)
        tree = sql.simple
        if tree is _UNKNOWN:
            tree = sql.simple = simple.compile_simple(sql.pieces, tokenize, Ref)
        try:
            if tree is not None:
                try:
                    value, kind = simple.evaluate(tree, self._value)
                    value = simple.cast(value, kind, cast)
                    return _text(value) if as_text and value is not None else value
                except simple.NotSimple:
                    pass
            wrap = "SELECT x, CAST(x AS text) FROM (SELECT ({}) AS x) AS plpgsql_value" if as_text else \
                "SELECT CAST(({}) AS " + cast + ")" if cast else "SELECT {}"
            result = self._run(sql, wrap, None)
        except errors.Error as e:
            _ran(e, f'SQL expression "{sql.source}"')
            raise
        names, _, rows = _rows(result)
        if len(names) != 1 + as_text:
            raise errors.SyntaxError(f"query \"SELECT {sql.source}\" returned {len(names) - as_text} columns")
        if len(rows) > 1:
            raise errors.CardinalityViolation(f'query "SELECT {sql.source}" returned more than one row')
        if not rows:
            return None
        if as_text:  # (a boolean as its output function writes it: t / f)
            return _text(rows[0][0]) if isinstance(rows[0][0], bool) else rows[0][1]
        return rows[0][0]

    def query(self, sql: Sql, perform: bool = False):
        """A query's result (PERFORM's: ``sql`` its text after SELECT)."""
        return self._run(sql, "{}", f'SQL statement "{"SELECT " if perform else ""}{sql.source}"')

    def sql_statement(self, sql: Sql):
        return self._run(sql, "{}", f'SQL statement "{sql.source}"')

    def _run(self, sql: Sql, wrap: str, context: str | None):
        """``sql`` (its text put in ``wrap``) run by the session, its variables as parameters;
        ``context``: the CONTEXT line of an error the session gives running it."""
        if sql.unknown_parameter is not None:  # (PostgreSQL's parse analysis of the statement: 42P02)
            error = errors.ProgrammingError(f"there is no parameter ${sql.unknown_parameter}", sqlstate="42P02")
            _ran(error, context or f'SQL expression "{sql.source}"')
            raise error
        refs = sql.refs
        values, types = [], []
        for ref in refs:
            value, type_ = self._value(ref)
            values.append(value)
            types.append(type_)
        key = (wrap, tuple(types))
        text = sql.rendered.get(key)
        if text is None:
            if not sql.checked:
                _ambiguity(self.session, sql, wrap)
                sql.checked = True
            parts, k = [], 0
            for piece in sql.pieces:
                if type(piece) is Ref:
                    parts.append(_placeholder(types[k]))
                    k += 1
                else:
                    parts.append(piece)
            text = sql.rendered[key] = wrap.replace("{}", "".join(parts))
        try:
            statements = self.session.parse(text)
            if len(statements) != 1:
                raise errors.SyntaxError('syntax error at or near ";"' if statements else
                                         "syntax error at end of input")
        except errors.Error as e:
            _ran(e, context)
            raise
        stmt = statements[0]
        if isinstance(stmt, _TRANSACTION_CONTROL):  # (PostgreSQL's own refusal: no query CONTEXT)
            raise errors.NotSupportedError("unsupported transaction command in PL/pgSQL")
        try:
            result = self._executed(stmt, tuple(values))
        except errors.Error as e:
            _ran(e, context)
            raise
        if result.messages:  # (the RAISEs of the functions it called: engine/plpgsql_calls.py)
            self.messages.extend(result.messages)
        return result

    def _executed(self, stmt: st.Statement, params: tuple):
        """``stmt`` run; a CALL or DO of a run that may COMMIT may COMMIT too (PostgreSQL's
        non-atomic nested CALL / DO: engine/session.py ``_in_own_block``)."""
        if not self.own_transaction or not isinstance(stmt, (st.Call, st.Do)):
            return self.session.execute_statement(stmt, params)
        self.session.nonatomic_caller = self
        try:
            return self.session.execute_statement(stmt, params)
        finally:
            self.session.nonatomic_caller = None

    def _execute(self, text: str, params: tuple):
        stmt = self.session.parse(text)[0]
        return self.session.execute_statement(stmt, params)

    def _value(self, ref: Ref):
        if ref.field is None:
            value = self.values[ref.slot]
            if type(value) is Row:
                raise errors.NotSupportedError(f'record "{ref.name}" cannot be used as a value in txlake\'s PL/pgSQL')
            return value, self.types[ref.slot]
        row = self._row(ref)
        try:
            index = row.names.index(ref.field)
        except ValueError:
            raise errors.UndefinedColumn(f'record "{ref.name}" has no field "{ref.field}"') from None
        return row.values[index], row.types[index]

    def _row(self, ref: Ref) -> Row:
        row = self.values[ref.slot]
        if row is None:
            raise errors.ObjectNotInPrerequisiteState(
                f'record "{ref.name}" is not assigned yet\nDETAIL:  The tuple structure of a not-yet-assigned '
                "record is indeterminate.")
        return row

    def _type_of(self, ref: Ref) -> str | None:
        return self._value(ref)[1] if ref.field is not None else self.types[ref.slot]

    def coerce(self, value, from_type: str | None, to_type: str | None):
        """``value`` (of ``from_type``) as a variable of ``to_type`` holds it: cast as PostgreSQL's
        assignment casts, where the types differ."""
        if value is None or to_type is None or _canonical(from_type) == _canonical(to_type):
            return value
        if from_type is None and _fits(value, to_type):
            return value
        if (bounded := _BOUNDED_TEXT.match(to_type.strip())) is not None:  # varchar(n) / char(n)
            return _fitted(value if isinstance(value, str) else self.coerce(value, from_type, "text"), bounded)
        result = self._execute(f"SELECT CAST({_placeholder(from_type)} AS {to_type})", (value,))
        return result.table.column(0)[0].as_py()


_RUNNERS = {
    Block: Run.block, Assign: Run.assign, If: Run.if_, Case: Run.case, Loop: Run.loop, ForRange: Run.for_range,
    ForQuery: Run.for_query, Foreach: Run.foreach, Exit: Run.exit, Return: Run.return_, Statement: Run.statement,
    Execute: Run.execute, Diagnostics: Run.diagnostics, Raise: Run.raise_, Assert: Run.assert_,
    EndTransaction: Run.end_transaction,
}


def _ambiguity(session, sql: Sql, wrap: str) -> None:
    """42702 where a variable's name is also a column of a table the statement reads there, as
    PostgreSQL's ``plpgsql.variable_conflict = error`` (its default): ``DELETE FROM t WHERE id =
    id`` must not delete every row. A name in VALUES, or where no table of that column is in
    scope, is the variable's."""
    names = {ref.name for ref in sql.refs if ref.plain}
    if not names:
        return
    from txlake.parser.dialect import Txlake
    try:
        written = "".join(p if type(p) is str else p.name + (f".{p.field}" if p.field else "") for p in sql.pieces)
        tree = sqlglot.parse_one(wrap.replace("{}", written), read=Txlake)
    except Exception:  # (the statement's own parse, where it runs, says what is wrong)
        return
    for column in tree.find_all(exp.Column):
        if column.table or column.name not in names:
            continue
        scope = column.parent
        while scope is not None and not isinstance(scope, (exp.Values, exp.Select, exp.Update, exp.Delete,
                                                          exp.Insert)):
            scope = scope.parent
        if scope is None or isinstance(scope, exp.Values):
            continue
        while scope is not None:  # (this query's tables, and those of the queries around it)
            if isinstance(scope, (exp.Select, exp.Update, exp.Delete, exp.Insert)) and \
                    any(column.name in _columns(session, table) for table in _own_tables(scope)):
                raise errors.ProgrammingError(
                    f'column reference "{column.name}" is ambiguous\nDETAIL:  It could refer to either a '
                    "PL/pgSQL variable or a table column.", sqlstate="42702")
            scope = scope.parent


def _own_tables(scope: exp.Expression) -> list[exp.Table]:
    """The tables a query (or UPDATE, DELETE, INSERT) names itself, not its subqueries'."""
    found = [scope.this] if isinstance(scope, (exp.Update, exp.Insert, exp.Delete)) else []
    for table in scope.find_all(exp.Table):
        owner = table.parent
        while owner is not None and not isinstance(owner, (exp.Select, exp.Update, exp.Delete, exp.Insert)):
            owner = owner.parent
        if owner is scope:
            found.append(table)
    return [t for t in found if isinstance(t, exp.Table)] + \
        [t.this for t in found if isinstance(t, exp.Schema) and isinstance(t.this, exp.Table)]


def _columns(session, table: exp.Table) -> set[str]:
    name = ".".join('"' + part.replace('"', '""') + '"' for part in (table.db, table.name) if part)
    try:
        return {column for column, _ in session._visible(name).column_types()}
    except errors.Error:  # (a CTE's name, a catalog view's)
        return set()


def _ran(error: errors.Error, context: str | None) -> None:
    """Note the query an error came from (its CONTEXT line: ``Run._context``), unless noted."""
    if context is not None and getattr(error, "plpgsql_query", None) is None:
        error.plpgsql_query = context


def _counts(status: str) -> bool:
    """Does a statement of this command tag set FOUND and ROW_COUNT (PostgreSQL's: the
    data statements, not a utility one)?"""
    return status.split(" ")[0] in ("SELECT", "INSERT", "UPDATE", "DELETE", "MERGE")


def _rows(result) -> tuple[tuple[str, ...], tuple[str | None, ...], list[tuple]]:
    """A result's column names, their SQL types and its rows."""
    schema = result.schema
    if schema is None:
        return (), (), []
    types = tuple(_sql_type(f.type) for f in schema)
    if result.rows is not None:
        return tuple(schema.names), types, result.rows
    table = result.table
    columns = [c.to_pylist() for c in table.columns]
    return tuple(schema.names), types, list(zip(*columns)) if columns else [()] * table.num_rows


_ARROW_TYPES = {pa.int16(): "smallint", pa.int32(): "integer", pa.int64(): "bigint", pa.string(): "text",
                pa.large_string(): "text", pa.bool_(): "boolean", pa.float64(): "double precision",
                pa.float32(): "real", pa.date32(): "date", pa.binary(): "bytea", pa.large_binary(): "bytea"}


def _sql_type(arrow: pa.DataType) -> str | None:
    """The SQL type of an Arrow column's values, as a parameter's cast (None: passed as it is)."""
    known = _ARROW_TYPES.get(arrow)
    if known is not None:
        return known
    if pa.types.is_decimal(arrow):
        return f"numeric({arrow.precision},{arrow.scale})"
    if pa.types.is_timestamp(arrow):
        return "timestamptz" if arrow.tz is not None else "timestamp"
    return None


def _sql_type_of(value) -> str | None:
    return {bool: "boolean", int: "integer", str: "text", float: "double precision"}.get(type(value))


_ALIASES = {"int": "integer", "int4": "integer", "int8": "bigint", "int2": "smallint", "bool": "boolean",
            "float8": "double precision", "float4": "real", "float": "double precision", "varchar": "text",
            "character varying": "text", "decimal": "numeric", "timestamp without time zone": "timestamp",
            "timestamp with time zone": "timestamptz"}


# a type of bounded text: its kind and length (``Run._fitted``)
_BOUNDED_TEXT = re.compile(r"(?P<kind>varchar|character\s+varying|char|character|bpchar)\s*\(\s*(?P<length>\d+)\s*\)$",
                           re.I)


def _fitted(text: str, bounded: re.Match) -> str:
    """``text`` as an assignment to varchar(n) / char(n) (``_BOUNDED_TEXT``) keeps it, as
    PostgreSQL's assignment cast: 22001 if longer, unless only spaces pass n (then cut); a
    char(n)'s padded to n. (An explicit CAST would cut any text.)"""
    from txlake.engine.executor import fit_varchar
    length, varying = int(bounded["length"]), bounded["kind"].lower().startswith(("var", "character var"))
    fitted = fit_varchar(length, (text,), "character varying" if varying else "character")
    text = fitted[0] if fitted is not None else text
    return text if varying else text.ljust(length)


def _canonical(type_: str | None) -> str | None:
    if type_ is None:
        return None
    lowered = " ".join(type_.lower().split())
    return _ALIASES.get(lowered, lowered)


def _fits(value, type_: str) -> bool:
    """Is a Python ``value`` of unknown SQL type one a variable of ``type_`` holds as it is?"""
    canonical = _canonical(type_)
    kind = type(value)
    return (kind is int and canonical in ("integer", "bigint", "smallint") and -2**31 <= value < 2**31
            or kind is str and canonical == "text" or kind is bool and canonical == "boolean")


def _placeholder(type_: str | None) -> str:
    return f"CAST(? AS {type_})" if type_ else "?"


def _flat(array: list) -> list:
    return [v for item in array for v in (_flat(item) if isinstance(item, list) else [item])]


def _format(message: str, args: list[str | None]) -> str:
    """RAISE's message: each ``%`` the next argument's text (NULL: ``<NULL>``), ``%%`` a ``%``."""
    out, i, k = [], 0, 0
    while i < len(message):
        c = message[i]
        if c == "%":
            if message.startswith("%%", i):
                out.append("%")
                i += 2
                continue
            value = args[k]
            k += 1
            out.append("<NULL>" if value is None else value)
        else:
            out.append(c)
        i += 1
    return "".join(out)


def _text(value) -> str:
    """A value as PostgreSQL's output function writes it (booleans t / f, arrays {a,b})."""
    if value is True:
        return "t"
    if value is False:
        return "f"
    if isinstance(value, list):
        return "{" + ",".join("NULL" if v is None else _text(v) for v in value) + "}"
    if isinstance(value, datetime.datetime):
        return value.isoformat(sep=" ")
    if isinstance(value, decimal.Decimal):
        return format(value, "f")
    if isinstance(value, float):
        return repr(value) if value != int(value) or abs(value) >= 1e15 else str(int(value))
    if isinstance(value, Row):
        return "(" + ",".join("" if v is None else _text(v) for v in value.values) + ")"
    return str(value)


_NOT_RETURNED = object()


def run_trigger(session, body: Body, arguments: dict[str, object]) -> tuple[Row | None, list[tuple[str, str]]]:
    """Run a trigger function's compiled body (``compile_body(..., trigger=True)``) in
    ``session``'s transaction, NEW / OLD / TG_* given in ``arguments``: the row its RETURN gave
    (None for NULL) and the messages its RAISEs gave. 2F005 where it ends without RETURN."""
    running = Run(session, body, False, arguments)
    try:
        running.run()
        if running.returned_row is _NOT_RETURNED:
            raise error_for("2F005", "control reached end of trigger procedure without RETURN\n"
                                     f"CONTEXT:  PL/pgSQL function {body.name}")
    except errors.Error as e:
        e.notices = running.messages
        raise
    return running.returned_row, running.messages


# --- DO ---------------------------------------------------------------------------------

def run_do(session, stmt: st.Do, own_transaction: bool, caller: Run | None = None) -> list[tuple[str, str]]:
    """Run a DO block's code in ``session``'s transaction; the messages its RAISEs gave."""
    if stmt.language.lower() != "plpgsql":
        if stmt.language.lower() in ("sql", "c", "internal"):
            raise errors.NotSupportedError(f'language "{stmt.language}" does not support inline code execution')
        raise errors.UndefinedObject(f'language "{stmt.language}" does not exist')
    return call(session, compile_body(stmt.code), None, own_transaction, caller).messages


def run(session, body: Body, arguments: dict[str, object] | None = None,
        own_transaction: bool = False) -> list[tuple[str, str]]:
    """Run a compiled body in ``session``'s transaction, the variables declared around its block
    (``compile_body``'s) given ``arguments`` by name; the messages its RAISEs gave (on an error,
    its ``notices``). ``own_transaction``: the caller's DO began the transaction, which COMMIT /
    ROLLBACK in the body may end."""
    return call(session, body, arguments, own_transaction).messages


def call(session, body: Body, arguments: dict[str, object] | None = None, own_transaction: bool = False,
         caller: Run | None = None) -> Run:
    """``run``, giving the finished run: its messages, a function's ``result`` (``returned``) or
    ``rows``, its variables' last values (a procedure's OUT arguments); ``caller``: the
    non-atomic run whose CALL / DO this is."""
    running = Run(session, body, own_transaction, arguments, caller)
    try:
        running.run()
    except errors.Error as e:
        e.notices = running.messages  # (told before the error, as PostgreSQL sends them as they come)
        raise
    return running
