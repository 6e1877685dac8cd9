"""PostgreSQL's regular expression functions that DuckDB lacks or answers otherwise: PostgreSQL
15's ``regexp_count``, ``regexp_instr``, ``regexp_like`` and ``regexp_substr`` (sqlglot wrote
regexp_count and regexp_instr as DuckDB expressions that took no flags' errors, no N, no
subexpression), ``regexp_matches``, ``regexp_split_to_array`` (DuckDB's kept the empty pieces
PostgreSQL drops: ``'a b'`` split by ``'\\s*'``), and ``regexp_replace`` / ``regexp_match`` /
``~`` where RE2 cannot run the pattern or the call (a start, an N; parser/semantics.py decides).
Python functions DuckDB calls, registered by engine/dialect.py with macros filling in the
arguments left off; the patterns are read as parser/pg_regex.py says.

Matches are found as regexp.c's ``setup_regexp_matches`` finds them: from the start position on,
each search beginning where the last match ended (a character further after an empty one).
"""

from __future__ import annotations

import re

import pyarrow as pa

from txlake.engine import arrow_functions
from txlake.parser import pg_regex
from txlake.parser.pg_regex import RegexpError, compiled, expand

__all__ = ["RegexpError", "compiled"]  # (engine/jsonpath.py's like_regex)


def _positive(name: str, value: int, least: int = 1) -> None:
    if value < least:
        raise RegexpError(f'invalid value for parameter "{name}": {value}')


def _matches(text: str, regex: re.Pattern, start: int) -> list[re.Match]:
    """Every match from character ``start`` (1 the first) on, as regexp.c's loop finds them."""
    _positive("start", start)
    found, at = [], start - 1
    while at <= len(text) and (match := regex.search(text, at)) is not None:
        found.append(match)
        at = match.end() + (match.start() == match.end())
    return found


def regexp_count(text: str, pattern: str, start: int, flags: str) -> int:
    return len(_matches(text, compiled(pattern, flags, "regexp_count"), start))


def _nth_group(text, pattern, start, n, flags, subexpr, function) -> tuple[re.Match, int] | None:
    """The match ``n`` (1 the first) and its group ``subexpr``, or None if there is no such
    match or group, or the group took no part in it."""
    regex = compiled(pattern, flags, function)
    _positive("n", n)
    _positive("subexpr", subexpr, 0)
    found = _matches(text, regex, start)
    if n > len(found) or subexpr > regex.groups or found[n - 1].start(subexpr) < 0:
        return None
    return found[n - 1], subexpr


def regexp_instr(text: str, pattern: str, start: int, n: int, endoption: int, flags: str, subexpr: int) -> int:
    """The position (from 1) of match n's group subexpr (0 the whole match) - after its end if
    ``endoption`` is 1 - or 0."""
    if endoption not in (0, 1):
        raise RegexpError(f'invalid value for parameter "endoption": {endoption}')
    nth = _nth_group(text, pattern, start, n, flags, subexpr, "regexp_instr")
    if nth is None:
        return 0
    match, group = nth
    return (match.end(group) if endoption else match.start(group)) + 1


def regexp_substr(text: str, pattern: str, start: int, n: int, flags: str, subexpr: int) -> str | None:
    nth = _nth_group(text, pattern, start, n, flags, subexpr, "regexp_substr")
    return None if nth is None else nth[0].group(nth[1])


def regexp_like(text: str, pattern: str, flags: str) -> bool:
    return compiled(pattern, flags, "regexp_like").search(text) is not None


def regexp_match_rows(text: str, pattern: str, flags: str) -> list[list[str | None]]:
    """``regexp_matches()``'s rows: the first match's captured groups (the whole match if the
    pattern has none; NULL for a group that took no part) - with the flag ``g``, every match's."""
    regex = compiled(pattern, flags, "regexp_matches")
    found = _matches(text, regex, 1)
    return [list(m.groups()) if regex.groups else [m.group(0)] for m in (found if "g" in flags else found[:1])]


def regexp_replace(text: str, pattern: str, replacement: str, start: int, n: int, flags: str) -> str:
    """``regexp_replace``: match ``n`` from character ``start`` on replaced (0: every one), as
    varlena.c's ``replace_text_regexp``; the text before ``start`` is kept."""
    _positive("start", start)
    _positive("n", n, 0)
    regex = compiled(pattern, flags, "regexp_replace")
    out, kept = [], 0
    for count, match in enumerate(_matches(text, regex, start), 1):
        if n and count != n:
            continue
        out += (text[kept:match.start()], expand(replacement, match))
        kept = match.end()
        if n:
            break
    out.append(text[kept:])
    return "".join(out)


def regexp_match(text: str, pattern: str, flags: str) -> list[str | None] | None:
    """``regexp_match``: the first match's captured groups (the whole match if none), or NULL."""
    regex = compiled(pattern, flags, "regexp_match")
    match = regex.search(text)
    return None if match is None else list(match.groups()) if regex.groups else [match.group(0)]


def regexp_split(text: str, pattern: str, flags: str) -> list[str]:
    """``regexp_split_to_array``: the text between the matches, an empty match at the start, at
    the end or right after another match left out (regexp.c's ``ignore_degenerate``)."""
    regex = compiled(pattern, flags, "regexp_split_to_array")
    pieces, kept, ended = [], 0, 0
    for match in _matches(text, regex, 1):
        if match.start() < len(text) and match.end() > ended:
            pieces.append(text[kept:match.start()])
            kept = match.end()
        ended = match.end()
    pieces.append(text[kept:])
    return pieces


# DuckDB functions: txl_ and the function's name -> (function, parameter types, result type),
# and the macros of PostgreSQL's name taking each shorter form, its defaults filled in (of
# regexp_matches, parser/semantics.py's name: DuckDB has a regexp_matches of its own)
_PARAMETERS = {"text": "VARCHAR", "pattern": "VARCHAR", "start": "INTEGER", "n": "INTEGER", "endoption": "INTEGER",
               "flags": "VARCHAR", "subexpr": "INTEGER", "replacement": "VARCHAR"}
_DEFAULTS = {"start": "1", "n": "1", "endoption": "0", "flags": "''", "subexpr": "0"}
MATCH_ROWS = "txl_regexp_matches"
_SIGNATURES = {
    "regexp_count": (regexp_count, ("text", "pattern", "start", "flags"), "INTEGER", pa.int32()),
    "regexp_instr": (regexp_instr, ("text", "pattern", "start", "n", "endoption", "flags", "subexpr"), "INTEGER",
                     pa.int32()),
    "regexp_substr": (regexp_substr, ("text", "pattern", "start", "n", "flags", "subexpr"), "VARCHAR", pa.string()),
    "regexp_like": (regexp_like, ("text", "pattern", "flags"), "BOOLEAN", pa.bool_()),
    MATCH_ROWS: (regexp_match_rows, ("text", "pattern", "flags"), "VARCHAR[][]", pa.list_(pa.list_(pa.string())))}
_CALLED = (  # (pg_regex.REPLACE, MATCH and SPLIT: parser/semantics.py gives every argument)
    (regexp_replace, ("text", "pattern", "replacement", "start", "n", "flags"), "VARCHAR", pa.string()),
    (regexp_match, ("text", "pattern", "flags"), "VARCHAR[]", pa.list_(pa.string())),
    (regexp_split, ("text", "pattern", "flags"), "VARCHAR[]", pa.list_(pa.string())))
FUNCTIONS = {f"txl_{f.__name__}": (arrow_functions.of_rows(f, len(names), arrow), [_PARAMETERS[p] for p in names],
                                   result) for f, names, result, arrow in (*_SIGNATURES.values(), *_CALLED)}
# regexp_replace(s, p, r, x) with x no constant (parser/semantics.py): a start if x is an integer
# when the statement runs, else the flags, as PostgreSQL resolves the call by x's type
_EITHER = (f"CREATE MACRO {pg_regex.REPLACE_EITHER}(text, pattern, replacement, x) AS CASE "
           "WHEN typeof(x) IN ('TINYINT', 'SMALLINT', 'INTEGER', 'BIGINT', 'HUGEINT') "
           f"THEN {pg_regex.REPLACE}(text, pattern, replacement, TRY_CAST(x AS INTEGER), 1, '') "
           f"ELSE {pg_regex.REPLACE}(text, pattern, replacement, 1, "
           "CASE WHEN strpos(CAST(x AS VARCHAR), 'g') > 0 THEN 0 ELSE 1 END, CAST(x AS VARCHAR)) END")
MACROS = (_EITHER,) + tuple(
    f"CREATE MACRO {name}" + ", ".join(
        f"({', '.join(names[:given])}) AS txl_{f.__name__}("
        + ", ".join(names[:given] + tuple(_DEFAULTS[p] for p in names[given:])) + ")"
        for given in range(2, len(names) + 1))
    for name, (f, names, _, _) in _SIGNATURES.items())
