"""PostgreSQL 16's SQL/JSON path language: the ``jsonpath`` type's input and output, and the
functions DuckDB calls for ``jsonb_path_exists``, ``jsonb_path_match``, ``jsonb_path_query``
(its rows), ``jsonb_path_query_array``, ``jsonb_path_query_first`` and the operators ``@?`` and
``@@`` (parser/json_ops.py rewrites the SQL to call them).

A path is read as PostgreSQL's jsonpath_scan.l and jsonpath_gram.y read it - keywords in any
case but ``null``, ``true`` and ``false``; ``@`` only inside a filter, ``last`` only inside an
array subscript - once per distinct text (``parsed``), and printed as jsonpath_out prints it
(``$."a"[*]?(@ > 1)``). It is evaluated as jsonpath_exec.c evaluates it, over the document's
Python value (engine/jsonb.py ``parse``): lax mode unwraps arrays for accessors, filters and
comparisons, wraps a non-array for ``[...]`` and ignores structural errors; strict mode raises
them. A filter's predicate is true, false or unknown (an error in its operands, items that
cannot be compared); errors the functions' ``silent`` suppresses (and the operators always do)
are ``EvaluationError``s, each with PostgreSQL's SQLSTATE; the rest (a missing variable, a
``vars`` that is no object) are raised whatever ``silent`` says.

Not supported (0A000): ``.datetime()`` and the ``_tz`` functions (no time zone handling here);
``.keyvalue()`` of an object that is not the document's (a variable's, an earlier keyvalue()'s),
whose ``id`` PostgreSQL numbers by where it was made - a document's object's ``id`` is its byte
offset in jsonb's binary form, computed from the layout (``_laid_out``).
"""

from __future__ import annotations

import copy
import decimal
import functools
import math
import re
from decimal import Decimal

from txlake.engine import jsonb, regexp_functions
from txlake.parser import numeric
from txlake.parser.json_ops import PATH_EXISTS, PATH_IN, PATH_MATCH, PATH_QUERY, PATH_QUERY_ARRAY, PATH_QUERY_FIRST


class JsonPathError(ValueError):
    """A path or an evaluation PostgreSQL refuses; ``sqlstate`` its code (engine/errors_map.py
    finds the class by name: ``ERRORS``)."""
    sqlstate = "22000"


class PathSyntaxError(JsonPathError):
    sqlstate = "42601"


class PathInputError(JsonPathError):
    sqlstate = "22P02"


class PathNotSupported(JsonPathError):
    sqlstate = "0A000"


class PathRegexError(JsonPathError):
    sqlstate = "2201B"


class PathVariableMissing(JsonPathError):
    sqlstate = "42704"


class PathArgumentError(JsonPathError):
    sqlstate = "22023"


class EvaluationError(JsonPathError):
    """An error ``silent`` suppresses, and a filter's predicate takes for unknown."""


class MemberNotFound(EvaluationError):
    sqlstate = "2203A"


class ObjectNotFound(EvaluationError):
    sqlstate = "2203C"


class ArrayNotFound(EvaluationError):
    sqlstate = "22039"


class InvalidSubscript(EvaluationError):
    sqlstate = "22033"


class SingletonRequired(EvaluationError):
    sqlstate = "22038"


class NumberNotFound(EvaluationError):
    sqlstate = "2203B"


class NonNumericItem(EvaluationError):
    sqlstate = "22036"


class PathDivisionByZero(EvaluationError):
    sqlstate = "22012"


ERRORS = {cls.__name__: cls for cls in (
    JsonPathError, PathSyntaxError, PathInputError, PathNotSupported, PathRegexError, PathVariableMissing,
    PathArgumentError, EvaluationError, MemberNotFound, ObjectNotFound, ArrayNotFound, InvalidSubscript,
    SingletonRequired, NumberNotFound, NonNumericItem, PathDivisionByZero)}


# ---------------------------------------------------------------------------------------------
# Reading a path: tokens (jsonpath_scan.l), then a tree of tuples (jsonpath_gram.y)
#
#   ("lit", value)  ("root",)  ("current",)  ("last",)  ("var", name)
#   ("chain", primary, (accessor, ...))   accessors: ("key", name) ("anykey",) ("anyarray",)
#       ("index", ((from, to or None), ...)) ("any", first, last) ("method", name, argument)
#       ("filter", predicate)
#   ("bin", op, left, right)  ("unary", op, operand)
#   predicates: ("cmp", op, left, right) ("and", l, r) ("or", l, r) ("not", p) ("unknown", p)
#       ("exists", expression) ("starts", left, right) ("regex", left, pattern, flags, compiled)
# ---------------------------------------------------------------------------------------------

_PREDICATES = frozenset({"cmp", "and", "or", "not", "unknown", "exists", "starts", "regex"})
_METHODS = frozenset({"type", "size", "double", "ceiling", "floor", "abs", "keyvalue", "datetime"})
_LOWERCASE_ONLY = {"null": None, "true": True, "false": False}  # (other keywords are read in any case)
_SPECIAL = set("?%$.[]{}()|&!=<>@#,*:-+/\\\"'")
_TOKEN = re.compile(r"""
    (?P<space>[ \t\n\r\f]+)
  | (?P<radix>0[xX][0-9A-Fa-f](?:_?[0-9A-Fa-f])*|0[oO][0-7](?:_?[0-7])*|0[bB][01](?:_?[01])*)
  | (?P<number>(?:0|[1-9](?:_?[0-9])*)(?:\.[0-9](?:_?[0-9])*)?(?:[eE][-+]?[0-9](?:_?[0-9])*)?)(?P<junk>[eE][-+]?)?
  | (?P<op>==|!=|<>|<=|>=|&&|\|\||\*\*|[?%$.\[\]{}()!<>@,*:\-+/=|&])
""", re.X)
_ESCAPES = {"b": "\b", "f": "\f", "n": "\n", "r": "\r", "t": "\t", "v": "\v"}


def _read_escaped(text: str, i: int, stop) -> tuple[str, int]:
    """The characters from ``text[i]`` until ``stop(c)`` is true, PostgreSQL's escapes read
    (``\\n``, ``\\xHH``, ``\\uHHHH``, ``\\u{H...}``; any other escaped character is itself)."""
    out = []
    while i < len(text) and not stop(text[i]):
        c = text[i]
        if c != "\\":
            out.append(c)
            i += 1
            continue
        e = text[i + 1:i + 2]
        if e == "":
            raise PathSyntaxError("unexpected end after backslash at end of jsonpath input")
        if e == "x" and re.match(r"[0-9A-Fa-f]{2}", text[i + 2:i + 4]):
            out.append(chr(int(text[i + 2:i + 4], 16)))
            i += 4
        elif e == "u":
            braced = re.match(r"\{([0-9A-Fa-f]{1,6})\}", text[i + 2:])
            plain = re.match(r"[0-9A-Fa-f]{4}", text[i + 2:])
            if braced is None and plain is None:
                raise PathSyntaxError(f'invalid Unicode escape sequence at or near "{text[i:i + 2]}" of jsonpath input')
            digits = braced.group(1) if braced else plain.group(0)
            code = int(digits, 16)
            if code == 0:
                raise PathInputError("unsupported Unicode escape sequence")
            i += 2 + (len(braced.group(0)) if braced else 4)
            if 0xD800 <= code <= 0xDBFF and text[i:i + 2] == "\\u" and re.match(r"[0-9A-Fa-f]{4}", text[i + 2:]):
                code = 0x10000 + ((code - 0xD800) << 10) + (int(text[i + 2:i + 6], 16) - 0xDC00)
                i += 6
            if 0xD800 <= code <= 0xDFFF:
                raise PathInputError("invalid input syntax for type jsonpath")
            out.append(chr(code))
        else:
            out.append(_ESCAPES.get(e, e))
            i += 2
    return "".join(out), i


def _quoted(text: str, i: int) -> tuple[str, int]:
    """The double-quoted string that opens at ``text[i]``, its escapes read, and the index after
    its closing quote."""
    value, j = _read_escaped(text, i + 1, lambda ch: ch == '"')
    if j >= len(text):
        raise PathSyntaxError("unterminated quoted string at end of jsonpath input")
    return value, j + 1


def _word_end(ch: str) -> bool:
    """Does ``ch`` end an unquoted word (a key, a $variable's name)?"""
    return ch in _SPECIAL and ch != "\\" or ch.isspace()


def _tokens(text: str) -> list[tuple[str, object, str]]:
    """(kind, value, text as written): kinds ``str``, ``num``, ``var``, ``ident`` and the
    operators as themselves; ``end`` last."""
    out, i = [], 0
    while i < len(text):
        c = text[i]
        if c == '"':
            value, j = _quoted(text, i)
            out.append(("str", value, text[i:j]))
            i = j
            continue
        if c == "$" and i + 1 < len(text) and (text[i + 1] == '"' or text[i + 1] not in _SPECIAL
                                                and not text[i + 1].isspace()):
            name, j = _quoted(text, i + 1) if text[i + 1] == '"' else _read_escaped(text, i + 1, _word_end)
            out.append(("var", name, text[i:j]))
            i = j
            continue
        m = _TOKEN.match(text, i)
        if m is not None:
            if m.group("junk") is not None:
                raise PathSyntaxError(f'invalid floating point number at or near "{m.group(0)}" of jsonpath input')
            if m.group("radix") is not None:  # (PostgreSQL 16: 0x10, 0o17, 0b101, with _ between digits)
                value = int(m.group("radix"), 0)
                out.append(("num", Decimal(value), str(value)))
            elif m.group("number") is not None:  # (1_000: PostgreSQL 16's separators)
                out.append(("num", Decimal(m.group("number").replace("_", "")), m.group("number").replace("_", "")))
            elif m.group("op") is not None:
                op = "!=" if m.group("op") == "<>" else m.group("op")
                out.append((op, None, m.group("op")))
            i = m.end()
            continue
        if c in _SPECIAL and c != "\\":
            raise PathSyntaxError(f'syntax error at or near "{c}" of jsonpath input')
        word, j = _read_escaped(text, i, _word_end)
        out.append(("ident", word, text[i:j]))
        i = j
    out.append(("end", None, ""))
    return out


def _is_predicate(node) -> bool:
    return node[0] in _PREDICATES


class _Parser:
    """Recursive descent over ``_tokens``, in jsonpath_gram.y's precedence: ``||`` < ``&&`` <
    ``!`` < comparisons (non-associative), ``starts with``, ``like_regex`` < ``+ -`` < ``* / %``
    < unary ``+ -`` < accessors."""

    def __init__(self, text: str):
        self.tokens = _tokens(text)
        self.at = 0

    def peek(self, ahead: int = 0):
        return self.tokens[min(self.at + ahead, len(self.tokens) - 1)]

    def word(self, ahead: int = 0) -> str | None:
        """The keyword a token is (lower case), if it is an identifier."""
        kind, value, _ = self.peek(ahead)
        return value.lower() if kind == "ident" else None

    def take(self):
        token = self.tokens[self.at]
        self.at = min(self.at + 1, len(self.tokens) - 1)
        return token

    def error(self, token=None):
        kind, _, written = token or self.peek()
        if kind == "end":
            return PathSyntaxError("syntax error at end of jsonpath input")
        return PathSyntaxError(f'syntax error at or near "{written}" of jsonpath input')

    def expect(self, kind: str):
        if self.peek()[0] != kind:
            raise self.error()
        return self.take()

    def predicate(self, node, token=None):
        if not _is_predicate(node):
            raise self.error(token)
        return node

    def expression(self, node, token=None):
        if _is_predicate(node):
            raise self.error(token)
        return node

    def path(self):
        strict = False
        if self.word() in ("strict", "lax") and self.peek(1)[0] != "end":
            strict = self.take()[1].lower() == "strict"
        if self.peek()[0] == "end":
            raise self.error()
        node = self.disjunction()
        if self.peek()[0] != "end":
            raise self.error()
        return strict, node

    def left_associative(self, operators: tuple, operand, node):
        """``operand (op operand)*`` for the ``operators`` of one level, each step ``node(op,
        left, right, token)``."""
        left = operand()
        while self.peek()[0] in operators:
            token = self.take()
            left = node(token[0], left, operand(), token)
        return left

    def disjunction(self):
        return self.left_associative(("||",), self.conjunction, self.logical)

    def conjunction(self):
        return self.left_associative(("&&",), self.comparison, self.logical)

    def logical(self, op: str, left, right, token):
        return ("or" if op == "||" else "and", self.predicate(left, token), self.predicate(right))

    def arithmetic(self, op: str, left, right, token):
        return ("bin", op, self.expression(left, token), self.expression(right))

    def comparison(self):
        left = self.additive()
        token = self.peek()
        if token[0] in ("==", "!=", "<", "<=", ">", ">="):
            self.take()
            node = ("cmp", token[0], self.expression(left, token), self.expression(self.additive()))
        elif self.word() == "starts" and self.word(1) == "with":
            self.take(), self.take()
            initial = self.peek()
            if initial[0] not in ("str", "var"):
                raise self.error()
            self.take()
            node = ("starts", self.expression(left, token), ("lit", initial[1]) if initial[0] == "str"
                    else ("var", initial[1]))
        elif self.word() == "like_regex":
            self.take()
            pattern = self.expect("str")[1]
            flags = ""
            if self.word() == "flag":
                self.take()
                flags = self.expect("str")[1]
            node = ("regex", self.expression(left, token), pattern, *_like_regex(pattern, flags))
        else:
            return left
        if self.peek()[0] in ("==", "!=", "<", "<=", ">", ">="):
            raise self.error()
        return node

    def additive(self):
        return self.left_associative(("+", "-"), self.multiplicative, self.arithmetic)

    def multiplicative(self):
        return self.left_associative(("*", "/", "%"), self.unary, self.arithmetic)

    def unary(self):
        token = self.peek()
        if token[0] not in ("+", "-"):
            return self.accessed()
        self.take()
        operand = self.expression(self.unary())
        if operand[0] == "lit" and isinstance(operand[1], Decimal) and not isinstance(operand[1], bool):
            return ("lit", -operand[1] if token[0] == "-" else operand[1])  # (a number's sign is its own)
        return ("unary", token[0], operand)

    def accessed(self):
        node, parenthesized = self.primary()
        accessors = []
        while True:
            kind = self.peek()[0]
            if kind == ".":
                accessors.append(self.member())
            elif kind == "[":
                accessors.append(self.subscripts())
            elif kind == "?" and self.peek(1)[0] == "(":
                self.take(), self.take()
                accessors.append(("filter", self.predicate(self.disjunction())))
                self.expect(")")
            else:
                break
        if not accessors:
            return node
        if _is_predicate(node) and not parenthesized:
            raise self.error()
        if node[0] == "chain":  # (($.a).b is $.a.b)
            return ("chain", node[1], node[2] + tuple(accessors))
        return ("chain", node, tuple(accessors))

    def member(self):
        self.take()
        kind, value, _ = self.peek()
        if kind == "*":
            self.take()
            return ("anykey",)
        if kind == "**":
            self.take()
            first, last = 0, None
            if self.peek()[0] == "{":
                self.take()
                first = last = self.level()
                if self.word() == "to":
                    self.take()
                    last = self.level()
                self.expect("}")
            return ("any", first, last)
        if kind == "str":
            self.take()
            return ("key", value)
        if kind != "ident":
            raise self.error()
        self.take()
        name = value.lower()
        if name in _METHODS and self.peek()[0] == "(":
            self.take()
            argument = None
            if name == "datetime" and self.peek()[0] == "str":
                argument = self.take()[1]
            self.expect(")")
            return ("method", name, argument)
        return ("key", value)

    def level(self) -> int | None:
        kind, value, _ = self.peek()
        if self.word() == "last":
            self.take()
            return None
        if kind == "num" and value == value.to_integral_value() and "." not in self.peek()[2]:
            self.take()
            return int(value)
        raise self.error()

    def subscripts(self):
        self.take()
        if self.peek()[0] == "*" and self.peek(1)[0] == "]":
            self.take(), self.take()
            return ("anyarray",)
        ranges = []
        while True:
            first = self.expression(self.disjunction())
            last = None
            if self.word() == "to":
                self.take()
                last = self.expression(self.disjunction())
            ranges.append((first, last))
            if self.peek()[0] != ",":
                break
            self.take()
        self.expect("]")
        return ("index", tuple(ranges))

    def primary(self):
        kind, value, written = self.peek()
        word = self.word()
        if kind == "$":
            self.take()
            return ("root",), False
        if kind == "@":
            self.take()
            return ("current",), False
        if kind == "var":
            self.take()
            return ("var", value), False
        if kind in ("str", "num"):
            self.take()
            return ("lit", value), False
        if kind == "ident" and written in _LOWERCASE_ONLY:
            self.take()
            return ("lit", _LOWERCASE_ONLY[written]), False
        if word == "last":
            self.take()
            return ("last",), False
        if kind == "(":
            self.take()
            node = self.disjunction()
            self.expect(")")
            if _is_predicate(node) and self.word() == "is" and self.word(1) == "unknown":
                self.take(), self.take()
                return ("unknown", node), False
            return node, True
        if word == "exists" and self.peek(1)[0] == "(":
            self.take(), self.take()
            node = self.expression(self.disjunction())
            self.expect(")")
            return ("exists", node), False
        if kind == "!":
            self.take()
            token = self.peek()
            if token[0] != "(" and not (self.word() == "exists" and self.peek(1)[0] == "("):
                raise self.error()
            operand, _ = self.primary()
            return ("not", self.predicate(operand)), False
        raise self.error()


# like_regex's XQuery flags, in the order jsonpath_out prints them
_FLAG_ORDER = "ismxq"


def _like_regex(pattern: str, flags: str) -> tuple[str, re.Pattern]:
    """``flags`` checked (jspConvertRegexFlags) and in print order, and the pattern compiled with
    them (2201B) - once, kept in the parsed path."""
    for flag in flags:
        if flag not in _FLAG_ORDER:
            raise PathSyntaxError(f'invalid input syntax for type jsonpath\nDETAIL:  unrecognized flag character '
                                  f'"{flag}" in LIKE_REGEX predicate')
    if "x" in flags and "q" not in flags:
        raise PathNotSupported('XQuery "x" flag (expanded regular expressions) is not implemented')
    ordered = "".join(f for f in _FLAG_ORDER if f in flags)
    return ordered, _regex(pattern, ordered)


def _regex(pattern: str, flags: str) -> re.Pattern:
    """like_regex's pattern compiled as PostgreSQL's regex with the flags it maps the XQuery
    ones to: ``.`` does not match a newline but with ``s``, ``^`` / ``$`` match at lines with
    ``m``, ``q`` a literal, ``i`` case-insensitive."""
    if "q" in flags:
        postgres = "q"
    else:
        postgres = {(False, False): "p", (False, True): "n", (True, False): "s", (True, True): "w"}[
            ("s" in flags, "m" in flags)]
    try:
        return regexp_functions.compiled(pattern, postgres + ("i" if "i" in flags else ""), "like_regex")
    except regexp_functions.RegexpError as e:
        raise PathRegexError(str(e)) from None


def _check_placement(node, in_filter: bool = False, in_subscript: bool = False) -> None:
    """``@`` only inside a filter, ``last`` only inside an array subscript (42601)."""
    kind = node[0]
    if kind == "current" and not in_filter:
        raise PathSyntaxError("@ is not allowed in root expressions")
    if kind == "last" and not in_subscript:
        raise PathSyntaxError("LAST is allowed only in array subscripts")
    if kind == "chain":
        _check_placement(node[1], in_filter, in_subscript)
        for accessor in node[2]:
            if accessor[0] == "filter":
                _check_placement(accessor[1], True, in_subscript)
            elif accessor[0] == "index":
                for first, last in accessor[1]:
                    _check_placement(first, in_filter, True)
                    if last is not None:
                        _check_placement(last, in_filter, True)
        return
    for child in node[1:]:
        if isinstance(child, tuple) and child and isinstance(child[0], str):
            _check_placement(child, in_filter, in_subscript)


class JsonPath:
    """A parsed path: its mode and expression tree."""
    __slots__ = ("strict", "root")

    def __init__(self, strict: bool, root):
        self.strict, self.root = strict, root

    def __str__(self) -> str:
        return ("strict " if self.strict else "") + _printed(self.root, True)


@functools.lru_cache(maxsize=1024)
def parsed(text: str) -> JsonPath:
    """The path ``text`` reads as (once per distinct text); 42601 and its kin if it is none."""
    if not text.strip(" \t\n\r\f"):
        raise PathInputError(f'invalid input syntax for type jsonpath: "{text}"')
    strict, root = _Parser(text).path()
    _check_placement(root)
    return JsonPath(strict, root)


def jsonpath_in(text: str) -> str:
    """The jsonpath type's input, then output: the path as PostgreSQL prints it."""
    return str(parsed(text))


# ---------------------------------------------------------------------------------------------
# Printing (jsonpath.c printJsonPathItem)
# ---------------------------------------------------------------------------------------------

_PRIORITY = {"or": 0, "and": 1, "cmp": 2, "starts": 2, "regex": 2, "+": 3, "-": 3, "*": 4, "/": 4, "%": 4}


def _priority(node) -> int:
    if node[0] == "bin":
        return _PRIORITY[node[1]]
    if node[0] == "unary":
        return 5
    return _PRIORITY.get(node[0], 6)


def _printed(node, brackets: bool) -> str:
    kind = node[0]
    if kind in ("bin", "cmp", "and", "or", "starts"):
        op = {"and": "&&", "or": "||", "starts": "starts with"}.get(kind, node[1] if kind in ("bin", "cmp") else "")
        left, right = node[-2], node[-1]
        mine = _priority(node)
        text = (f"{_printed(left, _priority(left) <= mine)} {op} "
                f"{_printed(right, _priority(right) <= mine)}")
        return f"({text})" if brackets else text
    if kind == "unary":
        text = node[1] + _printed(node[2], _priority(node[2]) <= 5)
        return f"({text})" if brackets else text
    if kind == "regex":
        flags = f' flag "{node[3]}"' if node[3] else ""
        text = f"{_printed(node[1], _priority(node[1]) <= 2)} like_regex {jsonb.text(node[2])}{flags}"
        return f"({text})" if brackets else text
    if kind == "not":
        return f"!({_printed(node[1], False)})"
    if kind == "unknown":
        return f"({_printed(node[1], False)}) is unknown"
    if kind == "exists":
        return f"exists ({_printed(node[1], False)})"
    if kind == "lit":
        return jsonb.text(node[1])
    if kind == "root":
        return "$"
    if kind == "current":
        return "@"
    if kind == "last":
        return "last"
    if kind == "var":
        return "$" + jsonb.text(node[1])
    # a chain: its primary, then each accessor
    return _printed(node[1], True) + "".join(_printed_accessor(a) for a in node[2])


def _printed_accessor(accessor) -> str:
    kind = accessor[0]
    if kind == "key":
        return "." + jsonb.text(accessor[1])
    if kind == "anykey":
        return ".*"
    if kind == "anyarray":
        return "[*]"
    if kind == "index":
        return "[" + ",".join(_printed(first, False) + ("" if last is None else " to " + _printed(last, False))
                              for first, last in accessor[1]) + "]"
    if kind == "any":
        first, last = accessor[1], accessor[2]
        word = lambda level: "last" if level is None else str(level)  # noqa: E731
        if first == 0 and last is None:
            return ".**"
        return ".**{" + (word(first) if first == last else f"{word(first)} to {word(last)}") + "}"
    if kind == "method":
        return f".{accessor[1]}(" + ("" if accessor[2] is None else jsonb.text(accessor[2])) + ")"
    return f"?({_printed(accessor[1], False)})"


# ---------------------------------------------------------------------------------------------
# Evaluation (jsonpath_exec.c)
# ---------------------------------------------------------------------------------------------

_CONTEXT = decimal.Context(prec=2000, Emax=decimal.MAX_EMAX, Emin=decimal.MIN_EMIN)


def _is_number(value) -> bool:
    return isinstance(value, (int, Decimal)) and not isinstance(value, bool)


def _type_name(value) -> str:
    return jsonb.type_name(value)


class _Context:
    """What an evaluation reads: the document, ``@``, ``last``, the variables, the mode, and
    whether structural errors are ignored (lax mode, and below ``.**``)."""
    __slots__ = ("root", "current", "last", "variables", "lax", "ignore")

    def __init__(self, root, current, last, variables, lax, ignore):
        self.root, self.current, self.last, self.variables = root, current, last, variables
        self.lax, self.ignore = lax, ignore

    def but(self, **changes) -> _Context:
        other = _Context(self.root, self.current, self.last, self.variables, self.lax, self.ignore)
        for name, value in changes.items():
            setattr(other, name, value)
        return other


def _items(node, cx: _Context):
    """The sequence of items ``node`` gives (a generator: lax ``exists`` stops at the first)."""
    kind = node[0]
    if kind == "lit":
        yield node[1]
    elif kind == "root":
        yield cx.root
    elif kind == "current":
        yield cx.current
    elif kind == "last":
        yield Decimal(cx.last)
    elif kind == "var":
        if node[1] not in cx.variables:
            raise PathVariableMissing(f'could not find jsonpath variable "{node[1]}"')
        yield cx.variables[node[1]]
    elif kind == "chain":
        yield from _accessed(node[2], 0, _items(node[1], cx), cx)
    elif kind == "bin":
        yield _arithmetic(node[1], _operand(node[2], cx, "left", node[1]), _operand(node[3], cx, "right", node[1]))
    elif kind == "unary":
        for value in _unwrapped(node[2], cx):
            if not _is_number(value):
                raise NumberNotFound(f"operand of unary jsonpath operator {node[1]} is not a numeric value")
            yield -Decimal(value) if node[1] == "-" else value
    else:  # (a predicate where an item is wanted: true, false or null for unknown)
        yield _truth(node, cx)


def _unwrapped(node, cx: _Context):
    """``node``'s items, an array's elements in its place in lax mode."""
    for value in _items(node, cx):
        if cx.lax and isinstance(value, list):
            yield from value
        else:
            yield value


def _operand(node, cx: _Context, side: str, op: str) -> Decimal:
    values = list(_unwrapped(node, cx))
    if len(values) != 1 or not _is_number(values[0]):
        raise SingletonRequired(f"{side} operand of jsonpath operator {op} is not a single numeric value")
    return Decimal(values[0])


def _arithmetic(op: str, a: Decimal, b: Decimal) -> Decimal:
    """numeric's + - * / % (exact; / at numeric's result scale)."""
    if op in "/%" and not b:
        raise PathDivisionByZero("division by zero")
    with decimal.localcontext(_CONTEXT):
        if op == "+":
            return a + b
        if op == "-":
            return a - b
        if op == "*":
            return a * b
        if op == "%":
            return a % b
    return numeric.divide(a, b)


def _accessed(accessors: tuple, i: int, values, cx: _Context):
    """The items the accessors from ``accessors[i]`` on give of each of ``values``."""
    if i == len(accessors):
        yield from values
        return
    accessor = accessors[i]
    for value in values:
        if accessor[0] == "any":  # (what follows .** ignores structural errors)
            below = cx.but(ignore=True)
            yield from _accessed(accessors, i + 1, _descendants(value, accessor[1], accessor[2]), below)
        else:
            yield from _accessed(accessors, i + 1, _access(accessor, value, cx, True), cx)


def _descendants(value, first: int | None, last: int | None, level: int = 0):
    """``.**{first to last}``: the item and what it holds, depth first, an object's members in
    jsonb's order (a level None is ``last``: no bound - ``{last}`` alone, the leaves; ``{last to
    n}``, nothing, as PostgreSQL's executeAnyItem has it)."""
    container = isinstance(value, (dict, list))
    if first is None and last is None:
        wanted = not container
    else:
        wanted = first is not None and level >= first and (last is None or level <= last)
    if wanted:
        yield value
    if container and (last is None or level < last):
        for child in ((v for _, v in _members(value)) if isinstance(value, dict) else value):
            yield from _descendants(child, first, last, level + 1)


def _members(value: dict):
    """An object's members in jsonb's order."""
    return ((k, value[k]) for k in jsonb.key_order(value))


def _access(accessor, value, cx: _Context, unwrap: bool):
    kind = accessor[0]
    if kind in ("key", "anykey", "filter") and unwrap and cx.lax and isinstance(value, list):
        for element in value:  # (lax: applied to each element, an element that is an array not unwrapped)
            yield from _access(accessor, element, cx, False)
    elif kind == "key":
        if isinstance(value, dict):
            if accessor[1] in value:
                yield value[accessor[1]]
            elif not cx.ignore:
                raise MemberNotFound(f'JSON object does not contain key {jsonb.text(accessor[1])}')
        elif not cx.ignore:
            raise MemberNotFound("jsonpath member accessor can only be applied to an object")
    elif kind == "anykey":
        if isinstance(value, dict):
            yield from (v for _, v in _members(value))
        elif not cx.ignore:
            raise ObjectNotFound("jsonpath wildcard member accessor can only be applied to an object")
    elif kind == "anyarray":
        if isinstance(value, list):
            yield from value
        elif cx.lax:
            yield value
        elif not cx.ignore:
            raise ArrayNotFound("jsonpath wildcard array accessor can only be applied to an array")
    elif kind == "index":
        yield from _subscripted(accessor[1], value, cx)
    elif kind == "filter":
        if _truth(accessor[1], cx.but(current=value)) is True:
            yield value
    else:
        yield from _method(accessor[1], value, cx, unwrap)


def _subscripted(ranges, value, cx: _Context):
    if not isinstance(value, list) and not cx.lax:
        if not cx.ignore:
            raise ArrayNotFound("jsonpath array accessor can only be applied to an array")
        return
    elements = value if isinstance(value, list) else [value]
    inner = cx.but(last=len(elements) - 1)
    for first, last in ranges:
        start = _index(first, inner)
        end = start if last is None else _index(last, inner)
        if not cx.ignore and (start < 0 or start > end or end >= len(elements)):
            raise InvalidSubscript("jsonpath array subscript is out of bounds")
        yield from elements[max(start, 0):min(end, len(elements) - 1) + 1]


def _index(node, cx: _Context) -> int:
    values = list(_items(node, cx))
    if len(values) != 1 or not _is_number(values[0]):
        raise InvalidSubscript("jsonpath array subscript is not a single numeric value")
    index = int(values[0])  # (truncated toward zero, as numeric_int4 of numeric_trunc)
    if not -(1 << 31) <= index < (1 << 31):
        raise InvalidSubscript("jsonpath array subscript is out of integer range")
    return index


def _method(name: str, value, cx: _Context, unwrap: bool):
    if name == "datetime":
        raise PathNotSupported("jsonpath item method .datetime() is not supported")
    if name == "type":
        yield _type_name(value)
        return
    if name == "size":
        if isinstance(value, list):
            yield Decimal(len(value))
        elif cx.lax:
            yield Decimal(1)
        elif not cx.ignore:
            raise ArrayNotFound("jsonpath item method .size() can only be applied to an array")
        return
    if unwrap and cx.lax and isinstance(value, list):
        for element in value:
            yield from _method(name, element, cx, False)
        return
    if name == "keyvalue":
        if not isinstance(value, dict):
            raise ObjectNotFound("jsonpath item method .keyvalue() can only be applied to an object")
        identity = _object_id(value, cx)
        for key, member in _members(value):  # (a copy: an object within is no longer the document's)
            yield {"key": key, "value": copy.deepcopy(member), "id": identity}
        return
    if name == "double":
        yield _double(value)
        return
    if not _is_number(value):
        raise NumberNotFound(f"jsonpath item method .{name}() can only be applied to a numeric value")
    number = Decimal(value)
    if name == "abs":
        yield abs(number)
    else:
        yield number.to_integral_value(decimal.ROUND_CEILING if name == "ceiling" else decimal.ROUND_FLOOR)


def _double(value) -> Decimal:
    """``.double()``: a number or a string's float8 value, as a numeric (float8_numeric: 15
    significant digits)."""
    if _is_number(value):
        number = float(value)
        if math.isinf(number):
            raise NonNumericItem("numeric argument of jsonpath item method .double() is an invalid representation of "
                                 "a double precision number")
    elif isinstance(value, str):
        try:
            number = float(value.strip())
        except ValueError:
            number = math.nan
        if math.isnan(number) or math.isinf(number) or "_" in value:
            raise NonNumericItem("string argument of jsonpath item method .double() is not a valid representation of "
                                 "a double precision number")
    else:
        raise NonNumericItem("jsonpath item method .double() can only be applied to a string or numeric value")
    return Decimal(format(number, ".15g"))


def _object_id(value: dict, cx: _Context) -> Decimal:
    """keyvalue()'s ``id``: the object's byte offset in the document's jsonb binary form (as
    PostgreSQL computes it from the container's address); an object of a variable or of an
    earlier keyvalue() is refused."""
    offset = _offset_in(cx.root, value)
    if offset is None:
        raise PathNotSupported("jsonpath item method .keyvalue() of an object not in the document is not supported")
    return Decimal(offset)


def _offset_in(container, target) -> int | None:
    """The offset of ``target`` (by identity) in ``container``'s binary form."""
    found = []
    _laid_out(container, 0, lambda value, at: found.append(at) if value is target else None)
    return found[0] if found else None


def _laid_out(value, start: int, visit) -> int:
    """The bytes ``value`` takes in jsonb's binary form written at ``start`` (aligned already),
    ``visit(v, offset)`` called for it and each value within: a container's header, a JEntry per
    key and value, the keys' bytes, then the values - a numeric or container 4-aligned (INTALIGN)."""
    visit(value, start)
    if isinstance(value, str):
        return len(value.encode())
    if value is None or isinstance(value, bool):
        return 0
    if _is_number(value):
        return _numeric_size(Decimal(value))
    keys = list(jsonb.key_order(value)) if isinstance(value, dict) else []
    children = [value[k] for k in keys] if isinstance(value, dict) else value
    at = start + 4 + 4 * (len(keys) + len(children)) + sum(len(k.encode()) for k in keys)
    for child in children:
        if isinstance(child, (dict, list)) or _is_number(child):
            at += -at % 4
        at += _laid_out(child, at, visit)
    return at - start


def _numeric_size(value: Decimal) -> int:
    """A numeric's varlena size: 4 bytes of header, a 2-byte short header (4 where its weight or
    scale is too large for one), 2 bytes per base-10000 digit from the first to the last that
    is not zero (digits grouped by four from the decimal point)."""
    integer_part, _, fraction = format(abs(value), "f").partition(".")
    integer_part = integer_part.lstrip("0")
    groups = [integer_part[max(0, i - 4):i] for i in range(len(integer_part), 0, -4)][::-1]
    weight = len(groups) - 1
    groups += [fraction[i:i + 4].ljust(4, "0") for i in range(0, len(fraction), 4)]
    while groups and int(groups[0]) == 0:
        groups.pop(0)
        weight -= 1
    while groups and int(groups[-1]) == 0:
        groups.pop()
    short = numeric.scale(value) <= 63 and -64 <= weight <= 63 or not groups
    return 4 + (2 if short else 4) + 2 * len(groups)


def _truth(node, cx: _Context) -> bool | None:
    """A predicate's value: True, False, or None (unknown)."""
    kind = node[0]
    if kind in ("and", "or"):  # (three-valued: the deciding value of either operand decides)
        deciding = kind == "or"
        left = _truth(node[1], cx)
        if left is deciding:
            return deciding
        right = _truth(node[2], cx)
        return right if left is (not deciding) else (deciding if right is deciding else None)
    if kind == "not":
        value = _truth(node[1], cx)
        return None if value is None else not value
    if kind == "unknown":
        return _truth(node[1], cx) is None
    if kind == "exists":
        try:
            return _exists(node[1], cx) if cx.lax else bool(list(_items(node[1], cx)))
        except EvaluationError:
            return None
    try:
        if kind == "cmp":
            left, right = list(_unwrapped(node[2], cx)), list(_unwrapped(node[3], cx))
            return _any_pair(left, right, lambda a, b: _compared(node[1], a, b), cx)
        left = list(_unwrapped(node[1], cx))
        if kind == "starts":
            return _any_pair(left, list(_items(node[2], cx)), _starts_with, cx)
        regex = node[4]
        return _any_pair(left, [None], lambda a, _: regex.search(a) is not None if isinstance(a, str) else None, cx)
    except EvaluationError:
        return None


_NOTHING = object()


def _exists(node, cx: _Context) -> bool:
    """Does ``node`` give an item (lax mode: the first answers)? A unary + or - skips the items
    that are no numbers here, as executeUnaryArithmExpr does when only existence is asked."""
    if node[0] == "unary":
        return any(_is_number(value) for value in _unwrapped(node[2], cx))
    return next(iter(_items(node, cx)), _NOTHING) is not _NOTHING


def _any_pair(left: list, right: list, test, cx: _Context) -> bool | None:
    """executePredicate: true if a pair tests true (lax: the first such; strict: after checking
    every pair), unknown if one tests unknown (strict: the first such), else false."""
    found = unknown = False
    for a in left:
        for b in right:
            result = test(a, b)
            if result is None:
                if not cx.lax:
                    return None
                unknown = True
            elif result:
                if cx.lax:
                    return True
                found = True
    return True if found else None if unknown else False


def _starts_with(whole, initial) -> bool | None:
    if not isinstance(whole, str) or not isinstance(initial, str):
        return None
    return whole.startswith(initial)


def _compared(op: str, a, b) -> bool | None:
    """compareItems: items of different types are not comparable (unknown) - but null, which
    equals nothing else; arrays and objects never are."""
    kind_a, kind_b = _type_name(a), _type_name(b)
    if kind_a != kind_b:
        if "null" in (kind_a, kind_b):
            return op == "!="
        return None
    if kind_a in ("array", "object"):
        return None
    if kind_a == "null":
        order = 0
    elif kind_a == "number":
        order = (Decimal(a) > Decimal(b)) - (Decimal(a) < Decimal(b))
    else:
        order = (a > b) - (a < b)
    return {"==": order == 0, "!=": order != 0, "<": order < 0, "<=": order <= 0, ">": order > 0,
            ">=": order >= 0}[op]


# ---------------------------------------------------------------------------------------------
# The SQL functions
# ---------------------------------------------------------------------------------------------

def _started(doc: str, path: str, variables: str) -> tuple[JsonPath, _Context]:
    """``path`` parsed, and the context its evaluation over ``doc`` starts in (22023 if
    ``variables`` is no object)."""
    program = parsed(path)
    root = jsonb.parse(doc)
    bound = jsonb.parse(variables)
    if not isinstance(bound, dict):
        raise PathArgumentError('"vars" argument is not an object\nDETAIL:  Jsonpath parameters should be encoded as '
                                'key-value pairs of "vars" object.')
    return program, _Context(root, None, None, bound, not program.strict, not program.strict)


def _evaluation(doc: str, path: str, variables: str, silent: bool) -> tuple[list, bool]:
    """The items ``path`` gives of ``doc`` (a list, and whether it ended in an error ``silent``
    suppressed: the items found before it kept, as PostgreSQL keeps them)."""
    return _evaluated(*_started(doc, path, variables), silent)


def _evaluated(program: JsonPath, cx: _Context, silent: bool) -> tuple[list, bool]:
    found = []
    try:
        for item in _items(program.root, cx):
            found.append(item)
    except EvaluationError:
        if not silent:
            raise
        return found, True
    return found, False


def path_exists(doc: str, path: str, variables: str, silent: bool) -> bool | None:
    program, cx = _started(doc, path, variables)
    if not program.strict:  # (lax: the first item answers; an error after it does not count)
        try:
            return _exists(program.root, cx)
        except EvaluationError:
            if not silent:
                raise
            return None
    found, failed = _evaluated(program, cx, silent)
    return None if failed else bool(found)


def path_match(doc: str, path: str, variables: str, silent: bool) -> bool | None:
    found, failed = _evaluation(doc, path, variables, silent)
    if not failed and len(found) == 1 and (found[0] is None or isinstance(found[0], bool)):
        return found[0]
    if not silent:
        raise SingletonRequired("single boolean result is expected")
    return None


def path_query(doc: str, path: str, variables: str, silent: bool) -> list[str]:
    return [jsonb.text(item) for item in _evaluation(doc, path, variables, silent)[0]]


def path_query_array(doc: str, path: str, variables: str, silent: bool) -> str:
    return jsonb.text(_evaluation(doc, path, variables, silent)[0])


def path_query_first(doc: str, path: str, variables: str, silent: bool) -> str | None:
    found = _evaluation(doc, path, variables, silent)[0]
    return jsonb.text(found[0]) if found else None


_ARGUMENTS = ["VARCHAR", "VARCHAR", "VARCHAR", "BOOLEAN"]
# (name, function, parameter types, result type: engine/jsonb.py create_functions)
_FUNCTIONS = (
    (PATH_IN, jsonpath_in, ["VARCHAR"], "VARCHAR"),
    (PATH_EXISTS, path_exists, _ARGUMENTS, "BOOLEAN"),
    (PATH_MATCH, path_match, _ARGUMENTS, "BOOLEAN"),
    (PATH_QUERY, path_query, _ARGUMENTS, "VARCHAR[]"),
    (PATH_QUERY_ARRAY, path_query_array, _ARGUMENTS, "JSON"),
    (PATH_QUERY_FIRST, path_query_first, _ARGUMENTS, "JSON"),
)


def register(con) -> None:
    """Give a new DuckDB database the functions (NULL in, NULL out; a value may be NULL too)."""
    jsonb.create_functions(con, _FUNCTIONS)
