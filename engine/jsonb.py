"""PostgreSQL's json and jsonb, on their text: the functions DuckDB calls for them.

Both types are held as text (storage/schema.py). ``jsonb`` text is normalised as PostgreSQL's
jsonb output is: object keys once each (the last of duplicates wins), ordered shorter first,
then by their UTF-8 bytes; ``", "`` and ``": "`` between items; numbers as PostgreSQL's numeric
prints them (``1e2`` is ``100``, ``1.50`` stays ``1.50``). ``json`` text is kept as given, once
it is valid JSON. Either is refused (22P02 ``invalid input syntax for type json``) if it is not
strict JSON: no NaN or Infinity, nothing after the value.

The operators and functions (``->``, ``->>``, ``#>``, ``#>>``, ``@>``, ``||``, ``?``, ``?|``,
``?&``, ``-``, ``#-``, ``jsonb_typeof``, ``jsonb_array_length``, ``jsonb_array_elements``,
``jsonb_each``, ``jsonb_object_keys``, ``jsonb_set``, ``jsonb_insert``, ``jsonb_strip_nulls``,
``jsonb_pretty``, and json's builders' layout) follow PostgreSQL 16's jsonb semantics: a
missing key or index is NULL, an integer indexes arrays (a negative one from the end), ``->>``
of JSON null is NULL. Their jsonb results are normalised text, also when applied to a json
value (PostgreSQL would keep that value's own spacing). parser/json_ops.py rewrites the SQL to
call them.
"""

from __future__ import annotations

import decimal
import functools
import inspect
import json

import duckdb
import pyarrow as pa

from txlake.parser.json_ops import (AGGREGATED_OBJECT, ARRAY_LENGTH, BUILT_ARRAY, BUILT_OBJECT, CONCAT, CONTAINS,
                                    DELETE, DELETE_PATH, EACH, ELEMENTS, EXISTS, EXISTS_ALL, EXISTS_ANY,
                                    GET, GET_PATH, GET_PATH_TEXT, GET_TEXT, INSERT_PATH, JSON_IN, JSON_TRY_IN,
                                    JSON_VALUE, JSONB_IN, JSONB_KEY, JSONB_ORDER, JSONB_TRY_IN, JSONB_VALUE, KEYS,
                                    PRETTY, SET_PATH, STRIP_NULLS, TYPEOF)


class JsonInputError(ValueError):
    """Text that is no JSON, or no jsonb (engine/errors_map.py's json_input_error: 22P02, 22P05, 54001)."""


def _refuse_constant(name: str):
    raise JsonInputError("invalid input syntax for type json")  # (NaN, Infinity: no JSON)


def _object(pairs: list) -> dict:
    """An object's members, the last of duplicate keys winning (as jsonb keeps them)."""
    return dict(pairs)


def parse(text: str):
    """The value of JSON text, as PostgreSQL's json input reads it; numbers as ``int`` or
    ``decimal.Decimal`` (their digits kept)."""
    try:
        value = json.loads(text, parse_float=decimal.Decimal, parse_constant=_refuse_constant,
                           object_pairs_hook=_object)
    except JsonInputError:
        raise
    except ValueError:
        raise JsonInputError("invalid input syntax for type json") from None
    return value


def _check_strings(value, jsonb: bool) -> None:
    """A surrogate escape must be half of a pair (22P02), and jsonb cannot hold the character
    U+0000 (22P05)."""
    if isinstance(value, str):
        if any("\ud800" <= c <= "\udfff" for c in value):
            raise JsonInputError("invalid input syntax for type json")
        if jsonb and "\x00" in value:
            raise JsonInputError("unsupported Unicode escape sequence: \\u0000 cannot be converted to text.")
    elif isinstance(value, dict):
        for k, v in value.items():
            _check_strings(k, jsonb)
            _check_strings(v, jsonb)
    elif isinstance(value, list):
        for v in value:
            _check_strings(v, jsonb)


def key_order(value: dict) -> list[str]:
    """An object's keys in jsonb's order: shorter first, then by their UTF-8 bytes."""
    return sorted(value, key=lambda k: (len(k.encode()), k.encode()))


def text(value) -> str:
    """A value's jsonb text (PostgreSQL's jsonb output)."""
    if isinstance(value, dict):
        members = (f"{json.dumps(k, ensure_ascii=False)}: {text(value[k])}" for k in key_order(value))
        return "{" + ", ".join(members) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(text(v) for v in value) + "]"
    if isinstance(value, decimal.Decimal):
        out = format(value, "f")
        return out[1:] if value.is_zero() and out.startswith("-") else out  # (numeric has no -0)
    if value is True:
        return "true"
    if value is False:
        return "false"
    if value is None:
        return "null"
    if isinstance(value, int):
        return str(value)
    return json.dumps(value, ensure_ascii=False)


def _bounded(function):
    """``function`` of JSON text, nesting too deep for Python's recursion refused as PostgreSQL
    refuses what is too deep for its stack (54001: errors_map.json_input_error), not escaping."""
    @functools.wraps(function)
    def within(source: str) -> str:
        try:
            return function(source)
        except RecursionError:
            raise JsonInputError("stack depth limit exceeded") from None
    return within


@_bounded
def jsonb_in(source: str) -> str:
    """jsonb's input: the normalised text of JSON text."""
    value = parse(source)
    if "\\u" in source:  # (only an escape makes U+0000 or a lone surrogate)
        _check_strings(value, True)
    return text(value)


@_bounded
def json_in(source: str) -> str:
    """json's input: the text as given, once it is valid JSON."""
    if "\\u" in source:  # (escapes: a lone surrogate is no JSON text)
        _check_strings(parse(source), False)
    else:
        parse(source)
    return source


@_bounded
def jsonb_key(source: str) -> str:
    """The text a jsonb value shares with every value jsonb's = finds equal to it: its
    normalised text with each number as its value - ``1.0`` and ``1.00`` as ``1``, ``1.50`` as
    ``1.5`` (numeric's = counts no trailing zeros; the normalised text keeps them)."""
    return text(_by_value(parse(source)))


def _by_value(value):
    if isinstance(value, dict):
        return {k: _by_value(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_by_value(v) for v in value]
    if isinstance(value, decimal.Decimal):
        return value.normalize()
    return value


@_bounded
def order_key(source: str) -> bytes:
    """Bytes whose order (DuckDB compares BLOBs byte by byte) is PostgreSQL 16's btree order of
    jsonb values: Object > Array > Boolean > Number > String > Null; an object of more pairs
    above one of fewer, then pair by pair in jsonb's key order (shorter keys first) key, then
    value; an array of more elements above one of fewer, then element by element; numbers by
    value (``1.0`` = ``1``), strings by their bytes (txlake's text order, PostgreSQL's C
    collation), false < true - except that an empty array at the top sorts below everything,
    null too (jsonb's comparison counts a scalar as an array of one, for historical reasons).
    Each value's bytes end where its kind says, so an array's elements compare one by one."""
    value = parse(source)
    if isinstance(value, list) and not value:
        return b"\x00"
    out = bytearray()
    _order_bytes(value, out)
    return bytes(out)


def _order_bytes(value, out: bytearray) -> None:
    if value is None:
        out += b"\x01"
    elif isinstance(value, str):
        out += b"\x02" + value.encode() + b"\x00"  # (jsonb holds no U+0000: the end is plain)
    elif isinstance(value, bool):
        out += b"\x04\x01" if value else b"\x04\x00"
    elif isinstance(value, (int, decimal.Decimal)):
        out += b"\x03"
        _number_bytes(decimal.Decimal(value), out)
    elif isinstance(value, list):
        out += b"\x05" + len(value).to_bytes(4, "big")
        for item in value:
            _order_bytes(item, out)
    else:
        out += b"\x06" + len(value).to_bytes(4, "big")
        for key in key_order(value):
            out += key.encode() + b"\x00"
            _order_bytes(value[key], out)


def _number_bytes(number: decimal.Decimal, out: bytearray) -> None:
    """A number's order bytes: its sign, then (for a negative one, inverted: a larger magnitude
    sorts lower) its exponent and significant digits - ``1.50`` as ``1.5``."""
    if number.is_zero():
        out += b"\x02"
        return
    exponent = (number.adjusted() + (1 << 63)).to_bytes(8, "big")
    digits = "".join(map(str, number.normalize().as_tuple().digits)).encode()
    magnitude = exponent + digits + b"\x00"
    out += b"\x01" + bytes(255 - b for b in magnitude) if number < 0 else b"\x03" + magnitude


def _try(function):
    def attempt(source: str) -> str | None:
        try:
            return function(source)
        except JsonInputError:
            return None
    return attempt


def _index_valid(value: list, i: int) -> bool:
    return -len(value) <= i < len(value)


def _found(value, as_text: bool):
    """What ``->`` (``as_text``: ``->>``) gives for a value found: its jsonb text, or for ``->>``
    a string's own text, and SQL NULL for JSON null."""
    if not as_text:
        return text(value)
    if value is None:
        return None
    return value if isinstance(value, str) else text(value)


def get(doc: str, key, as_text: bool = False) -> str | None:
    """``doc -> key`` (``->>``): a key of an object (text), an element of an array (an integer,
    a negative one from the end); NULL for anything else."""
    value = parse(doc)
    if isinstance(key, str):
        if not isinstance(value, dict) or key not in value:
            return None
    elif not isinstance(value, list) or not _index_valid(value, key):
        return None
    return _found(value[key], as_text)


def get_path(doc: str, steps: list, as_text: bool = False) -> str | None:
    """``doc #> path`` (``#>>``), ``jsonb_extract_path[_text](doc, VARIADIC steps)``: the value
    at a path (a text[]) of keys and array indexes (an integer's text; a negative one from the
    end); NULL where the path leads nowhere, or has a NULL step."""
    if None in steps:
        return None
    value = parse(doc)
    for step in steps:
        if isinstance(value, dict):
            if step not in value:
                return None
            value = value[step]
        elif isinstance(value, list):
            try:
                i = int(step)
            except ValueError:
                return None
            if not _index_valid(value, i):
                return None
            value = value[i]
        else:
            return None
    return _found(value, as_text)


def contains(left: str, right: str) -> bool:
    """``left @> right``: jsonb containment, as PostgreSQL defines it."""
    return _contains(parse(left), parse(right), top=True)


def _contains(a, b, top: bool = False) -> bool:
    if isinstance(b, dict):
        return isinstance(a, dict) and all(k in a and _contains(a[k], v) for k, v in b.items())
    if isinstance(b, list):
        return isinstance(a, list) and all(any(_contains(x, y) for x in a) for y in b)
    if isinstance(a, list) and top:  # (an array contains a scalar it holds, at the top level only)
        return any(not isinstance(x, (dict, list)) and _same_scalar(x, b) for x in a)
    return not isinstance(a, (dict, list)) and _same_scalar(a, b)


def _same_scalar(a, b) -> bool:
    if isinstance(a, bool) or isinstance(b, bool) or a is None or b is None:
        return a is b
    if isinstance(a, str) or isinstance(b, str):
        return isinstance(a, str) and isinstance(b, str) and a == b
    return decimal.Decimal(a) == decimal.Decimal(b)


def concat(left: str, right: str) -> str:
    """``left || right``: two objects merged (the right's value for a key in both), else arrays
    concatenated - a value that is no array taken as an array of it."""
    a, b = parse(left), parse(right)
    if isinstance(a, dict) and isinstance(b, dict):
        return text({**a, **b})
    return text((a if isinstance(a, list) else [a]) + (b if isinstance(b, list) else [b]))


def exists(doc: str, key: str) -> bool:
    """``doc ? key``: a key of an object, a string element of an array, or the string itself."""
    value = parse(doc)
    if isinstance(value, dict):
        return key in value
    if isinstance(value, list):
        return any(isinstance(v, str) and v == key for v in value)
    return isinstance(value, str) and value == key


_TYPE_NAMES = ((dict, "object"), (list, "array"), (str, "string"), (bool, "boolean"),
               (int, "number"), (decimal.Decimal, "number"))


def typeof(doc: str) -> str:
    """``jsonb_typeof``: object, array, string, number, boolean or null."""
    return type_name(parse(doc))


def type_name(value) -> str:
    """A parsed json value's type, as jsonb_typeof and jsonpath's .type() name it."""
    return next((name for t, name in _TYPE_NAMES if isinstance(value, t)), "null")


class JsonValueError(ValueError):
    """A json value of the wrong kind for a function (engine/errors_map.py: 22023)."""


def array_length(doc: str) -> int:
    value = parse(doc)
    if isinstance(value, list):
        return len(value)
    what = "a scalar" if not isinstance(value, dict) else "a non-array"
    raise JsonValueError(f"cannot get array length of {what}")


def elements(doc: str, as_text: bool = False) -> list:
    """``jsonb_array_elements`` (``_text``): an array's elements, as jsonb (or as ``->>`` gives them)."""
    value = parse(doc)
    if not isinstance(value, list):
        raise JsonValueError(f"cannot extract elements from {'an object' if isinstance(value, dict) else 'a scalar'}")
    return [_found(v, as_text) for v in value]


def members(doc: str, as_text: bool = False) -> list:
    """``jsonb_each`` (``_text``): an object's keys and values, in jsonb's key order."""
    value = parse(doc)
    if not isinstance(value, dict):
        raise JsonValueError(f"cannot call jsonb_each{'_text' if as_text else ''} on a non-object")
    return [{"key": k, "value": _found(value[k], as_text)} for k in key_order(value)]


_SPAN = json.JSONDecoder(parse_float=decimal.Decimal, object_pairs_hook=_object)


def _skip(text: str, i: int) -> int:
    while i < len(text) and text[i] in " \t\n\r":
        i += 1
    return i


def _written(doc: str) -> tuple[str, list]:
    """json's top level as written (json keeps its text): ("array", [element text, ...]),
    ("object", [(key, value text), ...] in order, duplicates kept) or ("scalar", [])."""
    parse(doc)  # (22P02 for no JSON)
    i = _skip(doc, 0)
    kind = {"[": "array", "{": "object"}.get(doc[i], "scalar")
    items: list = []
    if kind == "scalar":
        return kind, items
    i = _skip(doc, i + 1)
    while doc[i] not in "]}":
        key = None
        if kind == "object":
            key, i = _SPAN.raw_decode(doc, i)
            i = _skip(doc, _skip(doc, i) + 1)  # (past the colon)
        _, end = _SPAN.raw_decode(doc, i)
        items.append(doc[i:end] if kind == "array" else (key, doc[i:end]))
        i = _skip(doc, end)
        if doc[i] == ",":
            i = _skip(doc, i + 1)
    return kind, items


def _as_found(item: str, as_text: bool) -> str | None:
    """A json member's text, or (``as_text``) ``->>``'s: a string's own text, NULL for null."""
    if not as_text:
        return item
    return _found(parse(item), True)


def json_elements(doc: str, as_text: bool = False) -> list:
    """``json_array_elements`` (``_text``): an array's elements as written."""
    kind, items = _written(doc)
    if kind != "array":
        raise JsonValueError(f"cannot extract elements from {'an object' if kind == 'object' else 'a scalar'}")
    return [_as_found(item, as_text) for item in items]


def json_members(doc: str, as_text: bool = False) -> list:
    """``json_each`` (``_text``): an object's keys and values as written, in order (duplicates too)."""
    kind, items = _written(doc)
    if kind != "object":
        raise JsonValueError(f"cannot call json_each{'_text' if as_text else ''} on a non-object")
    return [{"key": k, "value": _as_found(v, as_text)} for k, v in items]


def json_keys(doc: str) -> list:
    """``json_object_keys``: an object's keys in order, duplicates too."""
    kind, items = _written(doc)
    if kind != "object":
        raise JsonValueError(f"cannot call json_object_keys on {'an array' if kind == 'array' else 'a scalar'}")
    return [k for k, _ in items]


def object_keys(doc: str) -> list:
    """``jsonb_object_keys``: an object's keys, in jsonb's key order."""
    value = parse(doc)
    if not isinstance(value, dict):
        what = "an array" if isinstance(value, list) else "a scalar"
        raise JsonValueError(f"cannot call jsonb_object_keys on {what}")
    return key_order(value)


def exists_any(doc: str, keys: list) -> bool:
    """``doc ?| keys``: does any of the text[] ``keys`` exist (as ``?`` finds a key)?"""
    return any(exists(doc, k) for k in keys if k is not None)


def exists_all(doc: str, keys: list) -> bool:
    """``doc ?& keys``: do all of them (NULLs aside)?"""
    return all(exists(doc, k) for k in keys if k is not None)


def _index(step: str, depth: int) -> int:
    """A path step into an array: an integer's text (22P02 otherwise, as PostgreSQL)."""
    try:
        return int(step)
    except ValueError:
        raise JsonValueError(f'path element at position {depth} is not an integer: "{step}"') from None


def delete(doc: str, key: str) -> str:
    """``doc - key``: an object without the key, an array without its string elements equal to
    it."""
    return delete_keys(doc, [key])


def delete_index(doc: str, index: int) -> str:
    """``doc - index``: an array without its element at ``index`` (a negative one from the end)."""
    value = parse(doc)
    if isinstance(value, dict):
        raise JsonValueError("cannot delete from object using integer index")
    if not isinstance(value, list):
        raise JsonValueError("cannot delete from scalar")
    if _index_valid(value, index):
        del value[index]
    return text(value)


def delete_keys(doc: str, keys: list) -> str:
    """``doc - keys``: ``doc - key`` for each of the text[] ``keys``."""
    value = parse(doc)
    if not isinstance(value, (dict, list)):
        raise JsonValueError("cannot delete from scalar")
    gone = set(keys)
    if isinstance(value, dict):
        return text({k: v for k, v in value.items() if k not in gone})
    return text([v for v in value if not (isinstance(v, str) and v in gone)])


def delete_path(doc: str, steps: list) -> str:
    """``doc #- path``: the value without what is at the path (unchanged if nothing is)."""
    return _put(doc, steps, _remove, "delete")


def _no_null_step(steps: list) -> None:
    if None in steps:
        raise JsonValueError(f"path element at position {steps.index(None) + 1} is null")


def _child(container, step: str, depth: int):
    """The object member or array element ``step`` names (None if none)."""
    if isinstance(container, dict):
        return container.get(step) if isinstance(container.get(step), (dict, list)) else None
    if isinstance(container, list):
        i = _index(step, depth)
        return container[i] if _index_valid(container, i) and isinstance(container[i], (dict, list)) else None
    return None


def _remove(container, step: str, depth: int) -> None:
    if isinstance(container, dict):
        container.pop(step, None)
    else:
        i = _index(step, depth)
        if _index_valid(container, i):
            del container[i]


def set_path(doc: str, steps: list, new: str, create: bool = True) -> str:
    """``jsonb_set(doc, path, new, create_if_missing)``: the value with what is at the path
    replaced by ``new``; a missing last key added (a missing array position: appended, or put
    first if negative) when ``create``; nothing changes where the path leads nowhere."""
    return _put(doc, steps, lambda container, step, depth: _set(container, step, depth, parse(new), create),
                "set")


def insert_path(doc: str, steps: list, new: str, after: bool = False) -> str:
    """``jsonb_insert(doc, path, new, insert_after)``: ``new`` put into the array before (or
    after) the position the path names, or into the object under its last key - which must be
    new (22023 otherwise)."""
    return _put(doc, steps, lambda container, step, depth: _insert(container, step, depth, parse(new), after),
                "insert")


def _put(doc: str, steps: list, change, verb: str) -> str:
    value = parse(doc)
    if not isinstance(value, (dict, list)):
        raise JsonValueError(f"cannot {verb} path in scalar")
    _no_null_step(steps)
    if not steps:
        return text(value)
    container = value
    for depth, step in enumerate(steps[:-1], start=1):
        container = _child(container, step, depth)
        if container is None:
            return text(value)
    change(container, steps[-1], len(steps))
    return text(value)


def _set(container, step: str, depth: int, new, create: bool) -> None:
    if isinstance(container, dict):
        if step in container or create:
            container[step] = new
        return
    i = _index(step, depth)
    if _index_valid(container, i):
        container[i] = new
    elif create:
        container.insert(0 if i < 0 else len(container), new)


def _insert(container, step: str, depth: int, new, after: bool) -> None:
    if isinstance(container, dict):
        if step in container:
            raise JsonValueError("cannot replace existing key\nHINT:  Try using the function jsonb_set "
                                 "to replace key value.")
        container[step] = new
        return
    i = _index(step, depth)
    if i < 0:
        i = max(len(container) + i, -1) if i >= -len(container) else -1
        position = i + 1 if after else max(i, 0)
    else:
        position = min(i + 1 if after else i, len(container))
    container.insert(position, new)


def strip_nulls(doc: str, jsonb: bool = True) -> str:
    """``jsonb_strip_nulls`` (``json_strip_nulls``): every object member whose value is null
    removed, at any depth (array elements that are null stay)."""
    value = _stripped(parse(doc))
    return text(value) if jsonb else compact(value)


def _stripped(value):
    if isinstance(value, dict):
        return {k: _stripped(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [_stripped(v) for v in value]
    return value


class _Pairs(list):
    """An object's members as read for json's functions: in order, duplicates kept."""


def _members_read(doc: str):
    return json.loads(doc, parse_float=decimal.Decimal, object_pairs_hook=_Pairs)


def compact(value) -> str:
    """A value as json text without spaces (as json functions that rebuild a value write it)."""
    if isinstance(value, (dict, _Pairs)):
        members = value.items() if isinstance(value, dict) else value
        return "{" + ",".join(f"{json.dumps(k, ensure_ascii=False)}:{compact(v)}" for k, v in members) + "}"
    if isinstance(value, list):
        return "[" + ",".join(compact(v) for v in value) + "]"
    return text(value)


def pretty(doc: str) -> str:
    """``jsonb_pretty``: indented by four spaces, one member or element a line."""
    out: list[str] = []
    _pretty(parse(doc), 0, out)
    return "".join(out)


def _pretty(value, depth: int, out: list[str]) -> None:
    pad = "    " * (depth + 1)
    if isinstance(value, dict) and value:
        out.append("{\n")
        for n, k in enumerate(key_order(value)):
            out.append(f"{pad}{json.dumps(k, ensure_ascii=False)}: ")
            _pretty(value[k], depth + 1, out)
            out.append(",\n" if n + 1 < len(value) else "\n")
        out.append("    " * depth + "}")
    elif isinstance(value, list) and value:
        out.append("[\n")
        for n, v in enumerate(value):
            out.append(pad)
            _pretty(v, depth + 1, out)
            out.append(",\n" if n + 1 < len(value) else "\n")
        out.append("    " * depth + "]")
    elif isinstance(value, (dict, list)):  # (empty: its brackets a line apart, as PostgreSQL's)
        brackets = "{}" if isinstance(value, dict) else "[]"
        out.append(brackets[0] + "\n" + "    " * depth + brackets[1])
    else:
        out.append(text(value))


def _member(key: str, value) -> str:
    """An object member as json's builders write it: ``"a" : 1``."""
    return f"{json.dumps(key, ensure_ascii=False)} : {compact(value)}"


def built_object(doc: str) -> str:
    """``json_build_object``'s text: ``{"a" : 1, "b" : [1,2]}`` - PostgreSQL's json keeps the
    layout its function writes, members in the order given (duplicates too)."""
    return "{" + ", ".join(_member(k, v) for k, v in _members_read(doc)) + "}"


def built_array(doc: str) -> str:
    """``json_build_array``'s and ``json_agg``'s text: ``[1, "a", null]``."""
    return "[" + ", ".join(compact(v) for v in _members_read(doc)) + "]"


def aggregated_object(doc: str, jsonb: bool = False) -> str:
    """``json_object_agg``'s text, ``{ "a" : 1, "b" : 2 }`` (``jsonb``: ``jsonb_object_agg``'s),
    from the JSON list of each row's [key, value's json text]."""
    pairs = []
    for key, value in json.loads(doc):
        if key is None:
            raise JsonValueError("null value not allowed for object key")
        pairs.append((key, _members_read(value) if value is not None else None))
    if jsonb:
        return text({k: _plain(v) for k, v in pairs})
    return "{ " + ", ".join(_member(k, v) for k, v in pairs) + " }"


def _plain(value):
    """A value read with ``_members_read`` as jsonb holds it (an object's last duplicate wins)."""
    if isinstance(value, _Pairs):
        return {k: _plain(v) for k, v in value}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


def arrow_function(function, arity: int, returns: pa.DataType):
    """``function`` of ``arity`` values as a DuckDB function of Arrow arrays (NULL in, NULL out)."""
    def run(*columns):
        rows = zip(*(c.to_pylist() for c in columns))
        values = pa.array([None if None in row else function(*row) for row in rows], returns.storage_type
                          if isinstance(returns, pa.ExtensionType) else returns)
        return pa.ExtensionArray.from_storage(returns, values) if isinstance(returns, pa.ExtensionType) else values
    # (DuckDB counts the function's parameters)
    run.__signature__ = inspect.Signature(
        [inspect.Parameter(f"a{i}", inspect.Parameter.POSITIONAL_ONLY) for i in range(arity)])
    return run


_MEMBERS = "STRUCT(key VARCHAR, value VARCHAR)[]"
# (name, function, parameter types, return type)
_FUNCTIONS = (
    (JSONB_IN, jsonb_in, ["VARCHAR"], "JSON"),
    (JSONB_KEY, jsonb_key, ["VARCHAR"], "VARCHAR"),
    (JSONB_ORDER, order_key, ["VARCHAR"], "BLOB"),
    (JSON_IN, json_in, ["VARCHAR"], "JSON"),
    (JSONB_TRY_IN, _try(jsonb_in), ["VARCHAR"], "JSON"),
    (JSON_TRY_IN, _try(json_in), ["VARCHAR"], "JSON"),
    (GET + "_key", get, ["VARCHAR", "VARCHAR"], "JSON"),
    (GET + "_index", get, ["VARCHAR", "BIGINT"], "JSON"),
    (GET_TEXT + "_key", lambda d, k: get(d, k, True), ["VARCHAR", "VARCHAR"], "VARCHAR"),
    (GET_TEXT + "_index", lambda d, k: get(d, k, True), ["VARCHAR", "BIGINT"], "VARCHAR"),
    (GET_PATH, get_path, ["VARCHAR", "VARCHAR[]"], "JSON"),
    (GET_PATH_TEXT, lambda d, p: get_path(d, p, True), ["VARCHAR", "VARCHAR[]"], "VARCHAR"),
    (CONTAINS, contains, ["VARCHAR", "VARCHAR"], "BOOLEAN"),
    (CONCAT, concat, ["VARCHAR", "VARCHAR"], "JSON"),
    (EXISTS, exists, ["VARCHAR", "VARCHAR"], "BOOLEAN"),
    (TYPEOF, typeof, ["VARCHAR"], "VARCHAR"),
    (ELEMENTS, elements, ["VARCHAR"], "VARCHAR[]"),
    (ELEMENTS + "_text", lambda d: elements(d, True), ["VARCHAR"], "VARCHAR[]"),
    (EACH, members, ["VARCHAR"], _MEMBERS),
    (EACH + "_text", lambda d: members(d, True), ["VARCHAR"], _MEMBERS),
    (ARRAY_LENGTH, array_length, ["VARCHAR"], "INTEGER"),
    (KEYS, object_keys, ["VARCHAR"], "VARCHAR[]"),
    (KEYS + "_json", json_keys, ["VARCHAR"], "VARCHAR[]"),
    (ELEMENTS + "_json", json_elements, ["VARCHAR"], "VARCHAR[]"),
    (ELEMENTS + "_json_text", lambda d: json_elements(d, True), ["VARCHAR"], "VARCHAR[]"),
    (EACH + "_json", json_members, ["VARCHAR"], _MEMBERS),
    (EACH + "_json_text", lambda d: json_members(d, True), ["VARCHAR"], _MEMBERS),
    (EXISTS_ANY, exists_any, ["VARCHAR", "VARCHAR[]"], "BOOLEAN"),
    (EXISTS_ALL, exists_all, ["VARCHAR", "VARCHAR[]"], "BOOLEAN"),
    (DELETE + "_key", delete, ["VARCHAR", "VARCHAR"], "JSON"),
    (DELETE + "_index", delete_index, ["VARCHAR", "BIGINT"], "JSON"),
    (DELETE + "_keys", delete_keys, ["VARCHAR", "VARCHAR[]"], "JSON"),
    (DELETE_PATH, delete_path, ["VARCHAR", "VARCHAR[]"], "JSON"),
    (SET_PATH, set_path, ["VARCHAR", "VARCHAR[]", "VARCHAR", "BOOLEAN"], "JSON"),
    (INSERT_PATH, insert_path, ["VARCHAR", "VARCHAR[]", "VARCHAR", "BOOLEAN"], "JSON"),
    (STRIP_NULLS, strip_nulls, ["VARCHAR"], "JSON"),
    (STRIP_NULLS + "_json", lambda d: strip_nulls(d, False), ["VARCHAR"], "JSON"),
    (PRETTY, pretty, ["VARCHAR"], "VARCHAR"),
    (BUILT_OBJECT, built_object, ["VARCHAR"], "JSON"),
    (BUILT_ARRAY, built_array, ["VARCHAR"], "JSON"),
    (AGGREGATED_OBJECT, aggregated_object, ["VARCHAR"], "JSON"),
    (AGGREGATED_OBJECT + "_jsonb", lambda d: aggregated_object(d, True), ["VARCHAR"], "JSON"),
)
_ARROW_TYPES = {"JSON": pa.json_(),  # (DuckDB takes JSON as Arrow's canonical json extension)
                "VARCHAR": pa.string(), "BOOLEAN": pa.bool_(), "INTEGER": pa.int32(), "BLOB": pa.binary(),
               "VARCHAR[]": pa.list_(pa.string()),
               _MEMBERS: pa.list_(pa.struct([("key", pa.string()), ("value", pa.string())]))}


def create_functions(con, functions) -> None:
    """Each (name, function, parameter types, result type) of ``functions`` made a DuckDB
    function of Arrow arrays (``arrow_function``: NULL in, NULL out; "special" NULLs, so that
    its result may be NULL too: -> of a missing key)."""
    for name, function, params, returns in functions:
        con.create_function(name, arrow_function(function, len(params), _ARROW_TYPES[returns]),
                            [duckdb.sqltype(p) for p in params], duckdb.sqltype(returns), type="arrow",
                            side_effects=False, null_handling="special")


def register(con) -> None:
    """Give a new DuckDB database the functions (its catalog's: every connection's), the macros
    that take any value into a jsonb / json column (as its text), and those that pick ``->`` /
    ``->>``'s function by the key's type (text: a key; an integer: an index)."""
    create_functions(con, _FUNCTIONS)
    for name, function in ((JSONB_VALUE, JSONB_IN), (JSON_VALUE, JSON_IN)):
        con.execute(f"CREATE MACRO {name}(x) AS {function}(CAST(x AS VARCHAR))")
    for name in (GET, GET_TEXT):
        con.execute(f"CREATE MACRO {name}(d, k VARCHAR) AS {name}_key(CAST(d AS VARCHAR), k), "
                    f"(d, k BIGINT) AS {name}_index(CAST(d AS VARCHAR), k)")
    con.execute(f"CREATE MACRO {DELETE}(d, k VARCHAR) AS {DELETE}_key(d, k), (d, k BIGINT) AS {DELETE}_index(d, k), "
                f"(d, k VARCHAR[]) AS {DELETE}_keys(d, k)")
