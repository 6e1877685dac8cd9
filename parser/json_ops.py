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
- ``?`` (a key or array string exists), ``?|`` / ``?&`` (any / all of a text[]), ``#-``
  (delete at a path), ``-`` of an evidently json value (a key, an index, a text[] of keys);
- ``json[b]_typeof``, ``json[b]_array_length``, ``json[b]_build_object``,
  ``json[b]_build_array``, ``to_jsonb``, ``json[b]_agg``, ``json[b]_object_agg``,
  ``json[b]_extract_path[_text]``, ``jsonb_set``, ``jsonb_insert``, ``json[b]_strip_nulls``,
  ``jsonb_pretty``; a text[] operand (a path, keys) goes to them as a list (``_steps``);
- the set-returning ``json[b]_array_elements[_text]`` and ``json[b]_object_keys`` (FROM or a
  select list) and ``json[b]_each[_text]`` (FROM), as ``unnest`` of a list the function makes
  (``set_returning``);
- the SQL/JSON path functions (``jsonb_path_exists``, ``_match``, ``_query`` - its rows as the
  set-returning ones above - ``_query_array``, ``_query_first``) with their ``vars`` and
  ``silent`` (``_path_arguments``), ``@?`` / ``@@`` (``path_operator``: the functions, silent)
  and casts to jsonpath, all engine/jsonpath.py's.
"""

from __future__ import annotations

import json

from sqlglot import exp

from txlake import errors

JSONB_IN, JSON_IN = "txl_jsonb_in", "txl_json_in"
JSONB_TRY_IN, JSON_TRY_IN = "txl_jsonb_try_in", "txl_json_try_in"  # (NULL for bad text: COPY's)
JSONB_VALUE, JSON_VALUE = "txl_jsonb", "txl_json"  # (macros: any value's text into a jsonb / json column)
GET, GET_TEXT = "txl_json_get", "txl_json_get_text"  # (macros: _key and _index functions)
GET_PATH, GET_PATH_TEXT = "txl_json_get_path", "txl_json_get_path_text"
CONTAINS, CONCAT, EXISTS = "txl_jsonb_contains", "txl_jsonb_concat", "txl_jsonb_exists"
TYPEOF, ARRAY_LENGTH = "txl_jsonb_typeof", "txl_jsonb_array_length"
ELEMENTS, EACH = "txl_jsonb_elements", "txl_jsonb_each"  # (lists, and their _text ones: set_returning)
RECORD_FIELD = "txl_record_field"
# the meta key of a FROM item of a function whose rows are one value (json[b]_array_elements[_text]):
# its column's name. PostgreSQL reads the item's alias alone as that value (FROM
# jsonb_array_elements_text(doc) AS tag ... SELECT tag), DuckDB as a row (engine/column_scope.py)
SCALAR_ROWS = "scalar_rows"  # (macro: a field's text in a record's, as record_out quotes it)
# the meta key of a name alone given to to_json / row_to_json / to_jsonb (to_json(t)), and of the
# statement holding one: engine/column_scope.py writes the row's columns as PostgreSQL's to_json
WHOLE_ROW_JSON = "whole_row_json"
JSONB_KEY = "txl_jsonb_key"  # (the text equal jsonb values share: equals)
JSONB_ORDER = "txl_jsonb_order"  # (bytes that sort as jsonb's btree order: ordering)
KEYS = "txl_jsonb_keys"
EXISTS_ANY, EXISTS_ALL = "txl_jsonb_exists_any", "txl_jsonb_exists_all"
DELETE, DELETE_PATH = "txl_jsonb_delete", "txl_jsonb_delete_path"  # (DELETE's _key, _index and _keys ones)
SET_PATH, INSERT_PATH = "txl_jsonb_set", "txl_jsonb_insert"
STRIP_NULLS, PRETTY = "txl_jsonb_strip_nulls", "txl_jsonb_pretty"  # (and STRIP_NULLS's _json one)
# the SQL/JSON path functions (engine/jsonpath.py): the jsonpath type's input, and the
# functions of (doc, path, vars, silent) - PATH_QUERY's rows a list (set_returning)
PATH_IN, PATH_EXISTS, PATH_MATCH = "txl_jsonpath_in", "txl_jsonb_path_exists", "txl_jsonb_path_match"
PATH_QUERY, PATH_QUERY_ARRAY, PATH_QUERY_FIRST = ("txl_jsonb_path_query", "txl_jsonb_path_query_array",
                                                  "txl_jsonb_path_query_first")
_PATH_FUNCTIONS = {"jsonb_path_exists": PATH_EXISTS, "jsonb_path_match": PATH_MATCH,
                   "jsonb_path_query_array": PATH_QUERY_ARRAY, "jsonb_path_query_first": PATH_QUERY_FIRST}
_PATH_FUNCTION_NAMES = {function: name for name, function in _PATH_FUNCTIONS.items()}
# json's built values in the layout PostgreSQL's json functions write (DuckDB's json text in)
BUILT_OBJECT, BUILT_ARRAY, AGGREGATED_OBJECT = "txl_json_built_object", "txl_json_built_array", "txl_json_agg_object"
_SET_RETURNING = {"jsonb_array_elements": ELEMENTS, "jsonb_array_elements_text": ELEMENTS + "_text",
                  "jsonb_each": EACH, "jsonb_each_text": EACH + "_text", "jsonb_object_keys": KEYS,
                  # json's: as written, in order, duplicate keys too
                  "json_array_elements": ELEMENTS + "_json", "json_array_elements_text": ELEMENTS + "_json_text",
                  "json_each": EACH + "_json", "json_each_text": EACH + "_json_text",
                  "json_object_keys": KEYS + "_json", "jsonb_path_query": PATH_QUERY}
_TEXT_ROWS = {ELEMENTS + "_text", EACH + "_text", KEYS, ELEMENTS + "_json_text", EACH + "_json_text",
              KEYS + "_json"}  # (rows of text, not of json)
_NAMED_COLUMN = {KEYS, KEYS + "_json", PATH_QUERY}  # (rows in a column named after the function)
_EACH = {EACH, EACH + "_text", EACH + "_json", EACH + "_json_text"}  # (rows of key and value)

# calls whose value is json (after rewriting); _JSONB_CALLS: jsonb (the operators' results are)
_JSONB_CALLS = {JSONB_IN, JSONB_VALUE, GET, GET + "_key", GET + "_index", GET_PATH, CONCAT,
                DELETE, DELETE + "_key", DELETE + "_index", DELETE + "_keys", DELETE_PATH, SET_PATH, INSERT_PATH,
                STRIP_NULLS,
                AGGREGATED_OBJECT + "_jsonb", PATH_QUERY_ARRAY, PATH_QUERY_FIRST}
_JSON_CALLS = _JSONB_CALLS | {JSON_IN, JSON_VALUE, STRIP_NULLS + "_json", BUILT_OBJECT, BUILT_ARRAY, AGGREGATED_OBJECT}


class JSONBPathMatch(exp.Expression, exp.Binary, exp.Predicate):
    """``doc @@ path`` (sqlglot has ``@?``'s ``JSONBPathExists``, not this; parser/dialect.py reads it)."""


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
    if node.to.this == exp.DType.USERDEFINED and str(node.to.args.get("kind", "")).lower() == "jsonpath":
        return _call(PATH_IN, _text(node.this))
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
    return _call(name, _text(node.this), _steps(node.expression))


def _steps(node: exp.Expression) -> exp.Expression:
    """A text[] operand (``'{a,0}'``, ``ARRAY['a', '0']``, a parameter) as the list of its
    elements' text the functions take - a string read by PostgreSQL's array input."""
    from txlake.parser.semantics import ARRAY_MACRO  # (which imports this module)
    return exp.cast(_call(ARRAY_MACRO, node.copy()), exp.DataType.build("VARCHAR[]"))


def is_json(node: exp.Expression, calls=_JSON_CALLS) -> bool:
    """Is ``node`` (rewritten) evidently a json value (of ``calls``: a jsonb one)?"""
    while isinstance(node, exp.Paren):
        node = node.this
    if isinstance(node, exp.Cast) and node.to.is_type(exp.DType.JSON) and calls is _JSON_CALLS:
        return True  # (a set-returning function's rows: set_returning; a user's cast is JSON_IN's)
    return isinstance(node, exp.Anonymous) and node.name in calls


def returns_rows(node: exp.Expression) -> bool:
    """Is ``node`` a call of one of the set-returning json functions (``set_returning``)?"""
    return isinstance(node, exp.Anonymous) and node.name.lower() in _SET_RETURNING


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
    if not any(is_json(x) or _json_literal(x) for x in (node.this, node.expression)):
        return node
    return containment(node)


def containment(node: exp.ArrayContainsAll | exp.ArrayContainedBy) -> exp.Expression:
    """``a @> b`` (``b <@ a``) as jsonb containment (engine/jsonb_order.py: of a jsonb column)."""
    a, b = node.this, node.expression
    outer, inner = (a, b) if isinstance(node, exp.ArrayContainsAll) else (b, a)
    return _call(CONTAINS, _text(outer), _text(inner))


def concat(node: exp.DPipe) -> exp.Expression:
    """``a || b`` as jsonb concatenation when an operand is evidently json."""
    if not (is_json(node.this) or is_json(node.expression)):
        return node
    return concatenation(node.this, node.expression)


def concatenation(a: exp.Expression, b: exp.Expression) -> exp.Expression:
    """``a || b`` as jsonb concatenation (engine/jsonb_order.py: of a jsonb column)."""
    return _call(CONCAT, _text(a), _text(b))


def exists(node: exp.JSONBContainsTopKey) -> exp.Expression:
    """``doc ? key``: a top-level key of an object, a string of an array, or the string itself."""
    return _call(EXISTS, _text(node.this), _text(node.expression))


def exists_some(node: exp.JSONBContainsAnyTopKeys | exp.JSONBContainsAllTopKeys) -> exp.Expression:
    """``doc ?| keys`` / ``doc ?& keys``: ``?`` of any / all of a text[]."""
    name = EXISTS_ANY if isinstance(node, exp.JSONBContainsAnyTopKeys) else EXISTS_ALL
    return _call(name, _text(node.this), _steps(node.expression))


def delete_path(node: exp.JSONBDeleteAtPath) -> exp.Expression:
    """``doc #- path``: without what is at a path (a text[]). PostgreSQL has no other ``#-``:
    operands whose types are evident and are not jsonb (or untyped) and an untyped text[] -
    ``5 #- 3`` - are 42883 (DuckDB's cast of the path to a list was 42804)."""
    left, right = _evident_type(node.this), _evident_type(node.expression)
    if None not in (left, right) and (left not in ("jsonb", "unknown") or right != "unknown"):
        raise errors.ProgrammingError(f"operator does not exist: {left} #- {right}\nHINT:  No operator matches the "
                                      "given name and argument types. You might need to add explicit type casts.",
                                      sqlstate="42883")
    return _call(DELETE_PATH, _text(node.this), _steps(node.expression))


def _evident_type(node: exp.Expression) -> str | None:
    """PostgreSQL's name of the type of a constant, or of a json / jsonb value (rewritten);
    None where it is not evident."""
    while isinstance(node, (exp.Paren, exp.Neg)):
        node = node.this
    if isinstance(node, exp.Literal):
        if node.is_string:
            return "unknown"
        if not node.is_int:
            return "numeric"
        return "integer" if -(1 << 31) <= int(node.this) < (1 << 31) else "bigint" \
            if -(1 << 63) <= int(node.this) < (1 << 63) else "numeric"
    if isinstance(node, (exp.Boolean, exp.Null)):
        return "boolean" if isinstance(node, exp.Boolean) else "unknown"
    return "jsonb" if is_jsonb(node) else "json" if is_json(node) else None


def delete(node: exp.Sub) -> exp.Expression:
    """``doc - key`` when ``doc`` is evidently json; of a jsonb column the engine does it (it
    knows the column's type: engine/jsonb_order.py)."""
    if not is_json(node.this):
        return node
    return deletion(node.this, node.expression)


def deletion(doc: exp.Expression, key: exp.Expression) -> exp.Expression:
    """``doc - key`` (text), ``doc - index`` (an integer), ``doc - keys`` (a text[]); a
    parameter's or a column's by its type (the ``DELETE`` macro's overloads)."""
    if isinstance(key, exp.Array) or (isinstance(key, exp.Cast) and key.to.is_type(exp.DType.ARRAY)):
        return _call(DELETE + "_keys", _text(doc), _steps(key))
    if isinstance(key, exp.Literal) and not key.is_string or \
            isinstance(key, exp.Neg) and isinstance(key.this, exp.Literal) and key.this.is_int:
        return _call(DELETE + "_index", _text(doc), key.copy())
    if isinstance(key, exp.Literal):
        return _call(DELETE + "_key", _text(doc), _text(key))
    return _call(DELETE, _text(doc), key.copy())


def _normalised(node: exp.Expression) -> exp.Expression:
    return _call(JSONB_IN, _text(node))


def function(node: exp.Anonymous) -> exp.Expression | None:
    """The jsonb functions, by name; None for another function."""
    name, args = node.name.lower(), [a.copy() for a in node.expressions]
    if name in _RECORDS:  # (in FROM with a column definition list: records, before)
        raise errors.NotSupportedError(f"could not determine row type for result of {name}\nHINT:  Provide a non-null "
                                       "record argument, or call the function in the FROM clause using a column "
                                       "definition list.")
    if name in _POPULATE:
        raise errors.NotSupportedError(f"{name}() is not supported (json[b]_to_record[set] in FROM with a column "
                                       "definition list reads a document's members as typed columns)")
    if name == "jsonb_typeof" and len(args) == 1:
        return _call(TYPEOF, _text(args[0]))
    if name == "jsonb_array_length" and len(args) == 1:
        return _call(ARRAY_LENGTH, _text(args[0]))
    if name == "to_jsonb" and len(args) == 1:
        return _normalised(_call("to_json", *args))
    if name == "jsonb_agg" and len(args) == 1:  # (list(): NULL over no rows, as PostgreSQL's; NULLs kept)
        return _normalised(_call("to_json", _call("list", *args)))
    if name == "json_agg" and len(args) == 1:
        return _call(BUILT_ARRAY, _text(_call("to_json", _call("list", *args))))
    if name in ("json_object_agg", "jsonb_object_agg") and len(args) == 2:
        return _call(AGGREGATED_OBJECT if name == "json_object_agg" else AGGREGATED_OBJECT + "_jsonb",
                     _text(_call("to_json", _call("list", _pair(*args)))))
    if name in ("json_build_object", "jsonb_build_object", "json_build_array", "jsonb_build_array"):
        return _built(name, args)
    if name in ("json_typeof", "json_array_length"):
        return function(exp.Anonymous(this="jsonb" + name[4:], expressions=args))
    if name in ("jsonb_extract_path", "jsonb_extract_path_text", "json_extract_path", "json_extract_path_text") \
            and args:
        steps = exp.Array(expressions=[_text(a) for a in args[1:]])
        return _call(GET_PATH_TEXT if name.endswith("_text") else GET_PATH, _text(args[0]),
                     exp.cast(steps, exp.DataType.build("VARCHAR[]")))
    if name in ("jsonb_set", "jsonb_insert") and len(args) in (3, 4):
        flag = args[3] if len(args) == 4 else exp.Boolean(this=name == "jsonb_set")
        return _call(SET_PATH if name == "jsonb_set" else INSERT_PATH, _text(args[0]), _steps(args[1]),
                     _text(args[2]), flag)
    if name in ("jsonb_strip_nulls", "json_strip_nulls") and len(args) == 1:
        return _call(STRIP_NULLS + ("" if name.startswith("jsonb") else "_json"), _text(args[0]))
    if name == "jsonb_pretty" and len(args) == 1:
        return _call(PRETTY, _text(args[0]))
    if name in _PATH_FUNCTIONS:
        return _call(_PATH_FUNCTIONS[name], *_path_arguments(name, args))
    if name.startswith("jsonb_path_") and name.endswith("_tz") and name[:-3] in _SET_RETURNING | _PATH_FUNCTIONS:
        raise errors.NotSupportedError(f"{name}() is not supported: txlake's jsonpath has no .datetime() (use "
                                       f"{name[:-3]}())")
    return None


_PATH_PARAMETERS = ("target", "path", "vars", "silent")


def _path_arguments(name: str, args: list[exp.Expression]) -> list[exp.Expression]:
    """A path function's (target, path [, vars [, silent]]) - positional, or named (``silent =>
    true``) - as the four arguments its function takes: the texts of the jsonb and the path,
    vars ``'{}'`` and silent false where left off."""
    given: dict[str, exp.Expression] = {}
    named = False
    for i, arg in enumerate(args):
        if isinstance(arg, exp.Kwarg):
            named = True
            key = arg.this.name.lower()
            if key not in _PATH_PARAMETERS or key in given:
                raise errors.ProgrammingError(f"function {name} has no parameter \"{key}\"" if key not in
                                              _PATH_PARAMETERS else f'argument name "{key}" used more than once',
                                              sqlstate="42883" if key not in _PATH_PARAMETERS else "42601")
            given[key] = arg.expression
        elif named or i >= len(_PATH_PARAMETERS):
            raise errors.ProgrammingError(f"function {name} does not exist (positional argument {i + 1} after "
                                          "named ones, or too many arguments)", sqlstate="42883")
        else:
            given[_PATH_PARAMETERS[i]] = arg
    if "target" not in given or "path" not in given:
        raise errors.ProgrammingError(f"function {name} needs its target and path arguments", sqlstate="42883")
    return [_text(given["target"]), _text(given["path"]), _text(given.get("vars", exp.Literal.string("{}"))),
            exp.cast(given.get("silent", exp.Boolean(this=False)).copy(), exp.DataType.build("BOOLEAN"))]


def path_operator(node: exp.Expression) -> exp.Expression:
    """``doc @? path`` / ``doc @@ path``: jsonb_path_exists / jsonb_path_match with errors
    suppressed (silent), as PostgreSQL's operators are."""
    name = PATH_EXISTS if isinstance(node, exp.JSONBPathExists) else PATH_MATCH
    return _call(name, _text(node.this), _text(node.expression), exp.Literal.string("{}"), exp.Boolean(this=True))


def _pair(key: exp.Expression, value: exp.Expression) -> exp.Expression:
    """``json_object_agg(key, value [ORDER BY ...])``'s pair of each row, [key's text, value's
    json] (the ORDER BY kept around it, for ``list``)."""
    order = value if isinstance(value, exp.Order) else None
    value = order.this if order is not None else value
    pair = _call("list_value", exp.cast(key.copy(), exp.DataType.build("VARCHAR")),
                 _text(_call("to_json", value.copy())))
    if order is None:
        return pair
    order = order.copy()
    order.set("this", pair)
    return order


def _built(name: str, args: list[exp.Expression]) -> exp.Expression:
    """``json[b]_build_object(k, v, ...)`` / ``json[b]_build_array(v, ...)`` by DuckDB's
    ``json_object`` / ``json_array``: jsonb's normalised, json's in PostgreSQL's layout."""
    if name.endswith("object") and len(args) % 2:
        raise errors.DataError("argument list must have even number of elements\nHINT:  The arguments of "
                               f"{name}() must consist of alternating keys and values.", sqlstate="22023")
    if not args:
        return exp.cast(exp.Literal.string("{}" if name.endswith("object") else "[]"), exp.DataType.build("JSON"))
    if name.endswith("object"):  # (a key is its value's text: json_build_object(1, 2) is {"1" : 2})
        args = [_text(a) if i % 2 == 0 and not (isinstance(a, exp.Literal) and a.is_string) else a
                for i, a in enumerate(args)]
    built = _call("json_object" if name.endswith("object") else "json_array", *args)
    if name.startswith("jsonb"):
        return _normalised(built)
    return _call(BUILT_OBJECT if name.endswith("object") else BUILT_ARRAY, _text(built))


def set_returning(node: exp.Expression) -> exp.Expression | None:
    """``jsonb_array_elements[_text](doc)`` / ``jsonb_each[_text](doc)`` (their rows: PostgreSQL's
    set-returning functions) as a FROM item or a LATERAL join's - a subquery of ``value`` (or
    ``key``, ``value``) columns, and ``ordinality`` WITH ORDINALITY, which may read the FROM
    items before it - or, the elements ones, in a select list; None for anything else. A path
    function of one value (``jsonb_path_query_array``, ``_first``, ``_exists``, ``_match``) as
    a FROM item is a row of that value, named as PostgreSQL names a function's column."""
    in_from = isinstance(node, (exp.Table, exp.Lateral))
    call = node.this if in_from else node
    if in_from and isinstance(call, exp.Anonymous) and call.name in _PATH_FUNCTION_NAMES:
        return _one_row(node, call, _PATH_FUNCTION_NAMES[call.name])
    if not isinstance(call, exp.Anonymous) or call.name.lower() not in _SET_RETURNING:
        return None
    name = call.name.lower()
    if name == "jsonb_path_query":
        arguments = _path_arguments(name, [a.copy() for a in call.expressions])
    elif len(call.expressions) == 1:
        arguments = [_text(call.expressions[0])]
    else:
        return None
    rows = _call(_SET_RETURNING[name], *arguments)
    as_json = _SET_RETURNING[name] not in _TEXT_ROWS
    each = _SET_RETURNING[name] in _EACH
    if not in_from:
        if each:
            return _members_in_select_list(node, rows, as_json)
        items = exp.Unnest(expressions=[rows])
        return exp.cast(items, exp.DataType.build("JSON")) if as_json else items
    alias = node.args.get("alias")
    member, number = exp.column("__m", "__members"), exp.column("__n", "__members")
    if each:
        value = exp.Dot(this=member.copy(), expression=exp.to_identifier("value"))
        columns = [exp.alias_(exp.Dot(this=member, expression=exp.to_identifier("key")), "key"),
                   exp.alias_(exp.cast(value, exp.DataType.build("JSON")) if as_json else value, "value")]
    else:  # (a function of text rows names its column after itself, or the FROM item's alias)
        named = _SET_RETURNING[name] in _NAMED_COLUMN
        column = "value" if not named else alias.name if alias is not None and alias.name else name
        columns = [exp.alias_(exp.cast(member, exp.DataType.build("JSON")) if as_json else member, column)]
    numbered = bool(node.args.get("ordinality"))
    if numbered:
        columns.append(exp.alias_(number, "ordinality"))
    # (rows in the function's order, as a LATERAL join of DuckDB's FROM UNNEST(...) does not keep
    # them; numbered by their list's subscripts, the function called once)
    if numbered:
        listed = exp.column("__l")
        members = exp.select(exp.alias_(exp.Unnest(expressions=[listed]), "__m"),
                             exp.alias_(_call("generate_subscripts", listed.copy(), exp.Literal.number(1)), "__n"))
        members = members.from_(exp.select(exp.alias_(rows, "__l")).subquery("__list")).subquery("__members")
    else:
        members = exp.select(exp.alias_(exp.Unnest(expressions=[rows]), "__m")).subquery("__members")
    alias = alias or exp.TableAlias(this=exp.to_identifier(name))
    made = exp.Subquery(this=exp.select(*columns).from_(members), alias=alias.copy())
    if not each and not named and not numbered and not alias.columns:
        made.meta[SCALAR_ROWS] = "value"  # (its alias alone is its value: engine/column_scope.py)
    return made


def _members_in_select_list(call: exp.Anonymous, rows: exp.Expression, as_json: bool) -> exp.Expression | None:
    """``json[b]_each[_text](doc)`` in a select list: a row per member, each the record
    PostgreSQL's record_out writes (``(a,"[1, 2]")``); ``(jsonb_each(doc)).key`` / ``.value`` its
    field (``.*`` both), replaced here (None then). The calls of one select list run in lockstep."""
    member = exp.to_identifier("__m")

    def field(name: str) -> exp.Expression:
        value = exp.Dot(this=exp.column(member.copy()), expression=exp.to_identifier(name))
        return exp.cast(value, exp.DataType.build("JSON")) if as_json and name == "value" else value

    def unnested(body: exp.Expression) -> exp.Unnest:
        return exp.Unnest(expressions=[_call("list_transform", rows.copy(), exp.Lambda(
            this=body, expressions=[member.copy()]))])

    dot = call.parent.parent if isinstance(call.parent, exp.Paren) else None
    if not isinstance(dot, exp.Dot) or dot.this is not call.parent:
        texts = [_call(RECORD_FIELD, exp.cast(exp.Dot(this=exp.column(member.copy()), expression=exp.to_identifier(n)),
                                              exp.DataType.build("VARCHAR"))) for n in ("key", "value")]
        return unnested(exp.DPipe(this=exp.DPipe(this=exp.DPipe(this=exp.DPipe(
            this=exp.Literal.string("("), expression=texts[0]), expression=exp.Literal.string(",")),
            expression=texts[1]), expression=exp.Literal.string(")")))
    name = dot.expression.name.lower()
    if isinstance(dot.expression, exp.Star):  # (a select list's are expanded by record_fields)
        raise errors.NotSupportedError("a record's fields (.*) outside a select list are not supported")
    if name not in ("key", "value"):
        raise errors.ProgrammingError(f'column "{name}" not found in data type record', sqlstate="42703")
    dot.replace(exp.alias_(unnested(field(name)), name) if isinstance(dot.parent, exp.Select)
                else unnested(field(name)))
    return None


def record_fields(select: exp.Select | exp.Returning) -> list[exp.Expression]:
    """``select``'s output columns, ``(json[b]_each[_text](doc)).*`` among them expanded into
    its ``.key`` and ``.value`` (``_members_in_select_list``), as PostgreSQL expands a record's."""
    for projection in list(select.expressions):
        if isinstance(projection, exp.Dot) and isinstance(projection.expression, exp.Star) and \
                isinstance(projection.this, exp.Paren) and returns_rows(projection.this.this) and \
                _SET_RETURNING[projection.this.this.name.lower()] in _EACH:
            position = select.expressions.index(projection)
            fields = [exp.Dot(this=projection.this.copy(), expression=exp.to_identifier(n)) for n in ("key", "value")]
            select.set("expressions", select.expressions[:position] + fields + select.expressions[position + 1:])
    return select.expressions


_FIRST_ROW = exp.cast(exp.Literal.number(1), exp.DataType.build("BIGINT"))  # (WITH ORDINALITY's number of one row)


def _one_row(node: exp.Table | exp.Lateral, call: exp.Anonymous, name: str) -> exp.Subquery:
    """A function of one value as a FROM item: a row of it, its column named after the item's
    alias, else the function (as PostgreSQL names it), WITH ORDINALITY numbered 1."""
    alias = node.args.get("alias")
    columns = [exp.alias_(call.copy(), alias.name if alias is not None and alias.name else name)]
    if node.args.get("ordinality"):
        columns.append(exp.alias_(_FIRST_ROW.copy(), "ordinality"))
    return exp.Subquery(this=exp.select(*columns), alias=(alias or exp.TableAlias(this=exp.to_identifier(name))).copy())


# json[b]_to_record[set](doc) AS x(a int, ...): the kind of json read, and whether doc is an array of records
_RECORDS = {"json_to_record": ("json", False), "jsonb_to_record": ("jsonb", False),
            "json_to_recordset": ("json", True), "jsonb_to_recordset": ("jsonb", True)}

_POPULATE = {f"{kind}_populate_record{many}" for kind in ("json", "jsonb") for many in ("", "set")}


def records(node: exp.Expression) -> exp.Expression | None:
    """``json[b]_to_record(doc) AS x(a int, b text)`` / ``json[b]_to_recordset(doc) AS ...``
    in FROM (a LATERAL join's too: the subquery reads the FROM items before it), as PostgreSQL's
    populate_record reads them: a subquery of a column per definition, each the member of its
    name (case as written) read as the column's type - its text (``->>``) cast, a json / jsonb
    column the member itself; a JSON null or a missing member NULL. Of a record: one row (of NULLs
    for a NULL doc); of a recordset: a row per element of the array (none for a NULL doc). A doc
    or element of the wrong kind is 22023; no column definition list 42601; a column of an array
    or row type 0A000. Written here, before the rewrites, which then take its casts and
    operators as any others. None for anything else."""
    call = node.this if isinstance(node, (exp.Table, exp.Lateral)) else None
    if not isinstance(call, exp.Anonymous) or call.name.lower() not in _RECORDS or len(call.expressions) != 1:
        return None
    name = call.name.lower()
    kind, many = _RECORDS[name]
    alias = node.args.get("alias")
    columns = alias.columns if alias is not None else []
    if not columns or not all(isinstance(c, exp.ColumnDef) and c.args.get("kind") is not None for c in columns):
        raise errors.SyntaxError('a column definition list is required for functions returning "record"')
    doc, row = exp.cast(call.expressions[0].copy(), exp.DataType.build(kind.upper())), exp.column("__r")
    numbered = bool(node.args.get("ordinality"))  # (WITH ORDINALITY: the rows' numbers, "ordinality")
    if many:
        checked = _kind_checked(doc, "array", f"cannot call {name} on a non-array")
        source = exp.Table(this=_call(f"{kind}_array_elements", checked), ordinality=numbered or None,
                           alias=exp.TableAlias(this=exp.to_identifier("__e"), columns=[
                               exp.to_identifier("__r")] + ([exp.to_identifier("__n")] if numbered else [])))
    else:
        source = exp.select(exp.alias_(doc, "__r"), exp.alias_(_FIRST_ROW.copy(), "__n")).subquery("__e")
    each_object = _kind_checked(row, "object", f"argument of {name} must be an array of objects" if many
                                else f"cannot call {name} on a non-object")
    fields = [exp.alias_(_record_field(row, c, kind), c.this.copy()) for c in columns]
    names = [c.this.copy() for c in columns]
    if numbered:
        fields.append(exp.alias_(exp.column("__n"), "ordinality"))
        names.append(exp.to_identifier("ordinality"))
    kept = exp.Or(this=exp.Is(this=row.copy(), expression=exp.Null()),
                  expression=exp.Not(this=exp.Is(this=each_object, expression=exp.Null())))
    return exp.Subquery(this=exp.select(*fields).from_(source).where(kept),
                        alias=exp.TableAlias(this=(alias.this or exp.to_identifier(name)).copy(), columns=names))


def _kind_checked(value: exp.Expression, kind: str, refusal: str) -> exp.Expression:
    """``value`` (json), or NULL if it is; an error (22023, ``refusal``) if it is JSON of another kind."""
    typed = exp.EQ(this=_call("jsonb_typeof", exp.cast(value.copy(), exp.DataType.build("JSONB"))),
                   expression=exp.Literal.string(kind))
    return exp.Case(ifs=[exp.If(this=exp.Or(this=exp.Is(this=value.copy(), expression=exp.Null()), expression=typed),
                                true=value.copy())],
                    default=_call("error", exp.Literal.string(refusal)))


def _record_field(row: exp.Expression, column: exp.ColumnDef, kind: str) -> exp.Expression:
    to = column.args["kind"]
    key = exp.Literal.string(column.this.name if column.this.quoted else column.this.name.lower())
    if to.this in (exp.DType.JSON, exp.DType.JSONB):  # (a JSON null is NULL, as PostgreSQL's populate_record reads it)
        member = exp.JSONExtract(this=row.copy(), expression=key)
        is_null = exp.EQ(this=_call(f"{kind}_typeof", member.copy()), expression=exp.Literal.string("null"))
        return exp.Case(ifs=[exp.If(this=is_null, true=exp.Null())], default=exp.cast(member, to.copy()))
    if to.is_type(*exp.DataType.NESTED_TYPES) or to.this == exp.DType.USERDEFINED:
        raise errors.NotSupportedError(f"a column of type {to.sql(dialect='postgres')} in json[b]_to_record[set]'s "
                                       "column definition list is not supported")
    text = exp.JSONExtractScalar(this=row.copy(), expression=key)
    length = to.expressions[0].this if to.this in (exp.DType.VARCHAR, exp.DType.CHAR) and to.expressions else None
    if length is not None:  # (text input into varchar(n): only spaces past n are cut, else 22001 - no cast's cutting)
        kind = "character varying" if to.this == exp.DType.VARCHAR else "character"
        too_long = exp.GT(this=exp.Length(this=_call("rtrim", text.copy(), exp.Literal.string(" "))),
                          expression=exp.Literal.number(int(length.name)))
        refusal = _call("error", exp.Literal.string(f"value too long for type {kind}({length.name})"))
        return exp.Case(ifs=[exp.If(this=too_long, true=refusal)], default=exp.cast(text, to.copy()))
    return exp.Cast(this=text, to=to.copy())
