"""PL/pgSQL's simple expressions, evaluated without a query: ``i + 1``, ``s := s || x``,
``n > 10 AND NOT done``, ``x IS NULL`` - integers, text and booleans, their variables,
literals, arithmetic, comparison, ``||``, AND / OR / NOT, as PostgreSQL computes them
(integer overflow 22003, division by zero 22012, a truncating division, NULL's three-valued
logic). PostgreSQL has the same shortcut (its "simple expression" path); a loop of assignments
runs at Python's speed instead of a query's.

``compile_simple`` parses an expression's pieces (text and variable references) once; it gives
None for anything else (a function call, a column, a cast, a decimal...), which runs as a query.
At run time a value of another type than the expression was parsed for raises ``NotSimple``:
the caller then runs the query, which gives PostgreSQL's answer whatever the types.
"""

from __future__ import annotations

from txlake import errors

_INT_RANGES = {"integer": (-2**31, 2**31 - 1), "bigint": (-2**63, 2**63 - 1)}
_INTEGERS = {"integer": "integer", "int": "integer", "int4": "integer", "bigint": "bigint", "int8": "bigint"}
_TEXTS = ("text", "varchar", "character varying")
_BOOLEANS = ("boolean", "bool")


class NotSimple(Exception):
    """A value the simple path does not compute: run the expression as a query."""


def kind(sql_type: str | None) -> str | None:
    """integer, bigint, text or boolean: the kinds the simple path computes with."""
    if sql_type is None:
        return None
    lowered = sql_type.lower()
    if lowered in _INTEGERS:
        return _INTEGERS[lowered]
    if lowered in _TEXTS:
        return "text"
    if lowered in _BOOLEANS:
        return "boolean"
    return None


def compile_simple(pieces: tuple, tokenize, ref_type: type):
    """The expression of ``pieces`` as a tree of tuples, or None if it is not simple."""
    tokens = []
    for piece in pieces:
        if type(piece) is ref_type:
            tokens.append(("ref", piece))
        else:
            for t in tokenize(piece)[:-1]:
                tokens.append((t.kind, t.value))
    parser = _Reader(tokens)
    try:
        tree = parser.disjunction()
    except NotSimple:
        return None
    return tree if parser.i == len(tokens) else None


class _Reader:
    def __init__(self, tokens):
        self.tokens, self.i = tokens, 0

    def at(self, *values) -> bool:
        return self.i < len(self.tokens) and self.tokens[self.i][0] in ("word", "op") and \
            self.tokens[self.i][1] in values

    def take(self):
        token = self.tokens[self.i]
        self.i += 1
        return token

    def chain(self, operand, ops: tuple[str, ...], node):
        """``operand (op operand)*``, left-associative: ``node(op, left, right)`` for each op."""
        left = operand()
        while self.at(*ops):
            op = self.take()[1]
            left = node(op, left, operand())
        return left

    def disjunction(self):
        return self.chain(self.conjunction, ("or",), lambda op, a, b: ("or", a, b))

    def conjunction(self):
        return self.chain(self.negation, ("and",), lambda op, a, b: ("and", a, b))

    def negation(self):
        if self.at("not"):
            self.i += 1
            return ("not", self.negation())
        return self.comparison()

    def comparison(self):
        left = self.concatenation()
        if self.at("=", "<>", "!=", "<", "<=", ">", ">="):
            op = self.take()[1]
            return ("cmp", "<>" if op == "!=" else op, left, self.concatenation())
        if self.at("is"):
            self.i += 1
            negated = self.at("not")
            self.i += negated
            if not self.at("null"):
                raise NotSimple
            self.i += 1
            return ("isnull", negated, left)
        return left

    def concatenation(self):
        return self.chain(self.additive, ("||",), lambda op, a, b: ("concat", a, b))

    def additive(self):
        return self.chain(self.multiplicative, ("+", "-"), lambda op, a, b: ("arith", op, a, b))

    def multiplicative(self):
        return self.chain(self.unary, ("*", "/", "%"), lambda op, a, b: ("arith", op, a, b))

    def unary(self):
        if self.at("-"):
            self.i += 1
            return ("arith", "-", ("const", 0, "integer"), self.unary())
        return self.primary()

    def primary(self):
        if self.i >= len(self.tokens):
            raise NotSimple
        kind_, value = self.take()
        if kind_ == "ref":
            return ("ref", value)
        if kind_ == "number" and value.isdigit():
            number = int(value)
            return ("const", number, "integer" if number < 2**31 else "bigint")
        if kind_ == "string" and value.startswith("'"):
            return ("const", value[1:-1].replace("''", "'"), "unknown")
        if kind_ == "word" and value in ("true", "false"):
            return ("const", value == "true", "boolean")
        if kind_ == "word" and value == "null":
            return ("const", None, "unknown")
        if kind_ == "op" and value == "(":
            inner = self.disjunction()
            if not self.at(")"):
                raise NotSimple
            self.i += 1
            return inner
        raise NotSimple


def evaluate(tree, value_of) -> tuple[object, str]:
    """``tree``'s value and its kind; ``value_of(ref)``: a variable's (value, SQL type)."""
    op = tree[0]
    if op == "const":
        return tree[1], tree[2]
    if op == "ref":
        value, sql_type = value_of(tree[1])
        found = kind(sql_type)
        if found is None:
            raise NotSimple
        return value, found
    if op == "arith":
        return _arithmetic(tree[1], evaluate(tree[2], value_of), evaluate(tree[3], value_of))
    if op == "cmp":
        (a, ka), (b, kb) = evaluate(tree[2], value_of), evaluate(tree[3], value_of)
        number = {ka, kb} <= {"integer", "bigint", "unknown"} and "unknown" not in (ka, kb) or \
            (a is None and kb in _INT_RANGES) or (b is None and ka in _INT_RANGES)
        texts = {ka, kb} <= {"text", "unknown"} and tree[1] in ("=", "<>")
        booleans = {ka, kb} <= {"boolean"} and tree[1] in ("=", "<>")
        if not (number or texts or booleans):
            raise NotSimple
        if a is None or b is None:
            return None, "boolean"
        return {"=": a == b, "<>": a != b, "<": a < b, "<=": a <= b, ">": a > b, ">=": a >= b}[tree[1]], "boolean"
    if op == "concat":
        (a, ka), (b, kb) = evaluate(tree[1], value_of), evaluate(tree[2], value_of)
        if not {"text", "unknown"} & {ka, kb} or "boolean" in (ka, kb):
            raise NotSimple
        if a is None or b is None:
            return None, "text"
        return f"{a}{b}", "text"
    if op == "isnull":
        value, _ = evaluate(tree[2], value_of)
        return (value is not None) if tree[1] else (value is None), "boolean"
    if op == "not":
        value, k = evaluate(tree[1], value_of)
        if k not in ("boolean", "unknown") or (k == "unknown" and value is not None):
            raise NotSimple
        return (None if value is None else not value), "boolean"
    # and / or: three-valued
    (a, ka), (b, kb) = evaluate(tree[1], value_of), evaluate(tree[2], value_of)
    for value, k in ((a, ka), (b, kb)):
        if not (k == "boolean" or value is None):
            raise NotSimple
    if op == "and":
        return (False if a is False or b is False else None if a is None or b is None else True), "boolean"
    return (True if a is True or b is True else None if a is None or b is None else False), "boolean"


def _arithmetic(op: str, left, right) -> tuple[object, str]:
    (a, ka), (b, kb) = left, right
    if ka not in _INT_RANGES and not (ka == "unknown" and a is None) or \
            kb not in _INT_RANGES and not (kb == "unknown" and b is None):
        raise NotSimple
    result_kind = "bigint" if "bigint" in (ka, kb) else "integer"
    if a is None or b is None:
        return None, result_kind
    if op == "+":
        value = a + b
    elif op == "-":
        value = a - b
    elif op == "*":
        value = a * b
    else:
        if b == 0:
            raise errors.DivisionByZero("division by zero")
        quotient = abs(a) // abs(b) * (1 if (a < 0) == (b < 0) else -1)  # (toward zero, as C's)
        value = quotient if op == "/" else a - b * quotient
    return in_range(value, result_kind), result_kind


def in_range(value: int, sql_kind: str) -> int:
    low, high = _INT_RANGES[sql_kind]
    if not low <= value <= high:
        raise errors.NumericValueOutOfRange(f"{sql_kind} out of range")
    return value


def cast(value, value_kind: str, to_type: str | None):
    """``value`` as ``to_type`` (an assignment's, a condition's boolean), or NotSimple."""
    if to_type is None:
        return value
    target = kind(to_type)
    if target is None:
        raise NotSimple
    if value is None:
        return None
    if target in _INT_RANGES and value_kind in _INT_RANGES:
        return in_range(value, target)
    if target == value_kind or (target == "text" and value_kind == "unknown"):
        return value
    raise NotSimple
