"""json and jsonb in SQL: casts, operators and functions rewritten to the functions that give
PostgreSQL's answers (engine/jsonb.py implements them; DuckDB's own json functions answer
otherwise: its ``->`` takes a JSON path, not a key, and it prints ``[1,2]``).

- ``x::jsonb`` normalises the text, ``x::json`` checks it (22P02 if it is no JSON);
- ``->`` / ``->>`` take a key (text) or an index (an integer; a negative one from the end), as
  written - ``j -> 'a.b'`` is the key ``a.b`` (sqlglot would read a JSON path: parser/dialect.py
  keeps the operand as written);
- ``#>`` / ``#>>`` a path as a text[] literal (``'{a,0}'``);
- ``@>`` / ``<@`` and ``||`` are jsonb's when an operand is evidently json: a cast to it, a json
  operator's or function's result, or (for ``@>`` / ``<@``) a literal that is JSON and not an
  array literal (``'{"a": 1}'``, ``'[1]'``, ``'1'``; ``'{1,2}'`` is an array's). Between two
  columns, cast one (``a @> b::jsonb``): the parser does not know column types;
- ``=``, ``<>``, ``IS [NOT] DISTINCT FROM`` are jsonb's equality (of values: numbers by value)
  when an operand is evidently jsonb, and ``<``, ``<=``, ``>``, ``>=`` its btree order;
- ``?`` (a key or array string exists), ``jsonb_typeof``, ``jsonb_array_length``,
  ``jsonb_build_object``, ``to_jsonb``, ``jsonb_agg``;
- the set-returning ``jsonb_array_elements[_text]`` (FROM or a select list) and
  ``jsonb_each[_text]`` (FROM), as ``unnest`` of a list the function makes (``set_returning``).
"""

from __future__ import annotations

import json

from sqlglot import exp

JSONB_IN, JSON_IN = "txl_jsonb_in", "txl_json_in"
JSONB_TRY_IN, JSON_TRY_IN = "txl_jsonb_try_in", "txl_json_try_in"  # (NULL for bad text: COPY's)
JSONB_VALUE, JSON_VALUE = "txl_jsonb", "txl_json"  # (macros: any value's text into a jsonb / json column)
GET, GET_TEXT = "txl_json_get", "txl_json_get_text"  # (macros: _key and _index functions)
GET_PATH, GET_PATH_TEXT = "txl_json_get_path", "txl_json_get_path_text"
CONTAINS, CONCAT, EXISTS = "txl_jsonb_contains", "txl_jsonb_concat", "txl_jsonb_exists"
TYPEOF, ARRAY_LENGTH = "txl_jsonb_typeof", "txl_jsonb_array_length"
ELEMENTS, EACH = "txl_jsonb_elements", "txl_jsonb_each"  # (lists, and their _text ones: set_returning)
JSONB_KEY = "txl_jsonb_key"  # (the text equal jsonb values share: equals)
JSONB_ORDER = "txl_jsonb_order"  # (bytes that sort as jsonb's btree order: ordering)
_SET_RETURNING = {"jsonb_array_elements": ELEMENTS, "jsonb_array_elements_text": ELEMENTS + "_text",
                  "jsonb_each": EACH, "jsonb_each_text": EACH + "_text"}

# calls whose value is json (after rewriting); _JSONB_CALLS: jsonb (the operators' results are)
_JSON_CALLS = {JSONB_IN, JSON_IN, JSONB_VALUE, JSON_VALUE, GET, GET + "_key", GET + "_index", GET_PATH, CONCAT}
_JSONB_CALLS = _JSON_CALLS - {JSON_IN, JSON_VALUE}


def _text(node: exp.Expression) -> exp.Expression:
    return exp.cast(node.copy(), exp.DataType.build("VARCHAR"))


def _call(name: str, *args: exp.Expression) -> exp.Anonymous:
    return exp.Anonymous(this=name, expressions=list(args))


def cast(node: exp.Cast) -> exp.Expression | None:
    """A cast to json or jsonb through their input functions; None for a cast to anything else."""
    if node.to.is_type(exp.DType.JSONB):
        return _call(JSONB_IN, _text(node.this))
    if node.to.is_type(exp.DType.JSON):
        return _call(JSON_IN, _text(node.this))
    return None


def extract(node: exp.JSONExtract | exp.JSONExtractScalar) -> exp.Expression:
    """``doc -> key`` / ``doc ->> key``: by a text key or an integer index, chosen here for a
    constant and by DuckDB (the macro's typed overloads) for anything else."""
    name = GET if isinstance(node, exp.JSONExtract) else GET_TEXT
    key = node.expression
    if isinstance(key, exp.Literal):
        return _call(name + ("_key" if key.is_string else "_index"), _text(node.this), key.copy())
    if isinstance(key, exp.Neg) and isinstance(key.this, exp.Literal) and key.this.is_int:
        return _call(name + "_index", _text(node.this), key.copy())
    return _call(name, node.this.copy(), key.copy())


def extract_path(node: exp.JSONBExtract | exp.JSONBExtractScalar) -> exp.Expression:
    name = GET_PATH if isinstance(node, exp.JSONBExtract) else GET_PATH_TEXT
    return _call(name, _text(node.this), _text(node.expression))


def is_json(node: exp.Expression, calls=_JSON_CALLS) -> bool:
    """Is ``node`` (rewritten) evidently a json value (of ``calls``: a jsonb one)?"""
    while isinstance(node, exp.Paren):
        node = node.this
    return isinstance(node, exp.Anonymous) and node.name in calls


def is_jsonb(node: exp.Expression) -> bool:
    """Is ``node`` (rewritten) evidently a jsonb value: a cast to it, a jsonb operator's or function's result?"""
    return is_json(node, _JSONB_CALLS)


def equals(node: exp.EQ | exp.NEQ | exp.NullSafeEQ | exp.NullSafeNEQ) -> exp.Expression:
    """``a = b`` (``<>``, ``IS [NOT] DISTINCT FROM``) as jsonb's equality when an operand is
    evidently jsonb: of the values, not of their texts - a number by its value (``1.0`` equals
    ``1``, as numeric's = counts no trailing zeros). Between two columns, cast one."""
    assignment = node.arg_key == "expressions" and isinstance(node.parent, (exp.Update, exp.OnConflict))
    if assignment or not (is_json(node.this, _JSONB_CALLS) or is_json(node.expression, _JSONB_CALLS)):
        return node  # (UPDATE's SET doc = ... is no comparison)
    return type(node)(this=_call(JSONB_KEY, _text(node.this)), expression=_call(JSONB_KEY, _text(node.expression)))


def ordering(node: exp.LT | exp.LTE | exp.GT | exp.GTE) -> exp.Expression:
    """``a < b`` (``<=``, ``>``, ``>=``) in jsonb's btree order when an operand is evidently
    jsonb (engine/jsonb.py ``order_key``), not by the texts. Between two jsonb columns the
    engine does it (engine/jsonb_order.py): the parser does not know column types."""
    if not (is_json(node.this, _JSONB_CALLS) or is_json(node.expression, _JSONB_CALLS)):
        return node
    return type(node)(this=_call(JSONB_ORDER, _text(node.this)), expression=_call(JSONB_ORDER, _text(node.expression)))


def _json_literal(node: exp.Expression) -> bool:
    """A string constant that is JSON and not an array literal ('{1,2}' is no JSON; '{}' is
    taken as an array's)."""
    if not (isinstance(node, exp.Literal) and node.is_string) or node.this.strip() in ("{}", ""):
        return False
    try:
        json.loads(node.this)
    except ValueError:
        return False
    return True


def contains(node: exp.ArrayContainsAll | exp.ArrayContainedBy) -> exp.Expression:
    """``a @> b`` (``b <@ a``) as jsonb containment when an operand is evidently json."""
    a, b = node.this, node.expression
    if not any(is_json(x) or _json_literal(x) for x in (a, b)):
        return node
    outer, inner = (a, b) if isinstance(node, exp.ArrayContainsAll) else (b, a)
    return _call(CONTAINS, _text(outer), _text(inner))


def concat(node: exp.DPipe) -> exp.Expression:
    """``a || b`` as jsonb concatenation when an operand is evidently json."""
    if not (is_json(node.this) or is_json(node.expression)):
        return node
    return _call(CONCAT, _text(node.this), _text(node.expression))


def exists(node: exp.JSONBContainsTopKey) -> exp.Expression:
    """``doc ? key``: a top-level key of an object, a string of an array, or the string itself."""
    return _call(EXISTS, _text(node.this), _text(node.expression))


def _normalised(node: exp.Expression) -> exp.Expression:
    return _call(JSONB_IN, _text(node))


def function(node: exp.Anonymous) -> exp.Expression | None:
    """The jsonb functions, by name; None for another function."""
    name, args = node.name.lower(), [a.copy() for a in node.expressions]
    if name == "jsonb_typeof" and len(args) == 1:
        return _call(TYPEOF, _text(args[0]))
    if name == "jsonb_array_length" and len(args) == 1:
        return _call(ARRAY_LENGTH, _text(args[0]))
    if name == "jsonb_build_object":
        return _normalised(_call("json_object", *args))
    if name == "to_jsonb" and len(args) == 1:
        return _normalised(_call("to_json", *args))
    if name == "jsonb_agg" and len(args) == 1:  # (list(): NULL over no rows, as PostgreSQL's; NULLs kept)
        return _normalised(_call("to_json", _call("list", *args)))
    return None


def set_returning(node: exp.Expression) -> exp.Expression | None:
    """``jsonb_array_elements[_text](doc)`` / ``jsonb_each[_text](doc)`` (their rows: PostgreSQL's
    set-returning functions) as a FROM item - a subquery of ``value`` (or ``key``, ``value``)
    columns, which may read the FROM items before it - or, the elements ones, in a select list;
    None for anything else."""
    call = node.this if isinstance(node, exp.Table) else node
    if not isinstance(call, exp.Anonymous) or call.name.lower() not in _SET_RETURNING or len(call.expressions) != 1:
        return None
    name = call.name.lower()
    items = exp.Unnest(expressions=[_call(_SET_RETURNING[name], _text(call.expressions[0]))])
    as_json = not name.endswith("_text")
    if not isinstance(node, exp.Table):
        if name.startswith("jsonb_each"):
            return None
        return exp.cast(items, exp.DataType.build("JSON")) if as_json else items
    if name.startswith("jsonb_each"):
        value = exp.column("value", "__m")
        inner = exp.select(exp.alias_(items, "__m")).subquery("__members")
        select = exp.select(exp.alias_(exp.column("key", "__m"), "key"),
                            exp.alias_(exp.cast(value, exp.DataType.build("JSON")) if as_json else value, "value"))
        select = select.from_(inner)
    else:
        select = exp.select(exp.alias_(exp.cast(items, exp.DataType.build("JSON")) if as_json else items, "value"))
    alias = node.args.get("alias") or exp.TableAlias(this=exp.to_identifier(name))
    return exp.Subquery(this=select, alias=alias.copy())
