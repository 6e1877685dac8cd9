"""PostgreSQL 15's ``regexp_count``, ``regexp_instr``, ``regexp_like`` and ``regexp_substr``,
which DuckDB lacks (sqlglot wrote regexp_count and regexp_instr as DuckDB expressions that
took no flags' errors, no N, no subexpression): Python functions DuckDB calls, registered by
engine/dialect.py with macros filling in the arguments left off.

A pattern is PostgreSQL's advanced regular expression, read by Python's ``re`` after
``python_pattern`` rewrites what the two spell apart: POSIX classes in brackets (``[[:digit:]]``,
as the C locale has them), the word-boundary escapes ``\\m \\M \\y \\Y``, ``$`` as the string's
end only (Python's also matched before a last newline), a negated bracket that does not match a
newline where the flags make ``.`` not match one. The flags are PostgreSQL's (regexp.c
``parse_re_flags``, applied in order): ``i``/``c`` case, ``n``/``m``/``p``/``w``/``s`` newline
sensitivity, ``x`` expanded, ``q`` a literal, ``t``; the basic and extended syntaxes (``b``,
``e``) are refused (0A000), another letter is 22023, and these functions refuse ``g``.

Matches are found as regexp.c's ``setup_regexp_matches`` finds them: from the start position on,
each search beginning where the last match ended (a character further after an empty one).
"""

from __future__ import annotations

import functools
import re

import pyarrow as pa

from txlake.engine import arrow_functions


class RegexpError(ValueError):
    """An argument these functions refuse, in PostgreSQL's words (engine/errors_map.py: 22023,
    2201B for a pattern that is no regular expression, 0A000 for words ending 'are not supported')."""


# POSIX bracket classes, as the C locale has them
_CLASSES = {"alpha": "a-zA-Z", "digit": "0-9", "alnum": "0-9a-zA-Z", "upper": "A-Z", "lower": "a-z",
            "space": " \\t\\n\\r\\f\\v", "blank": " \\t", "xdigit": "0-9A-Fa-f", "cntrl": "\\x00-\\x1f\\x7f",
            "print": "\\x20-\\x7e", "graph": "\\x21-\\x7e", "punct": re.escape("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~"),
            "word": "\\w"}
# PostgreSQL's escapes Python spells otherwise: the start and end of a word, a word boundary, not one
_ESCAPES = {"m": r"\b(?=\w)", "M": r"\b(?<=\w)", "y": r"\b", "Y": r"\B"}


def _bracket(pattern: str, i: int, newline_stop: bool) -> tuple[str, int]:
    """The bracket expression starting at ``pattern[i]`` ('[') in Python's spelling, and where it ends."""
    j, out = i + 1, ["["]
    if pattern[j:j + 1] == "^":
        out.append("^\\n" if newline_stop else "^")
        j += 1
    if pattern[j:j + 1] == "]":  # (first: a literal ])
        out.append("\\]")
        j += 1
    while j < len(pattern) and pattern[j] != "]":
        if pattern.startswith("[:", j) and (end := pattern.find(":]", j + 2)) != -1:
            name = pattern[j + 2:end]
            if name not in _CLASSES:
                raise RegexpError("invalid regular expression: invalid character class")
            out.append(_CLASSES[name])
            j = end + 2
        elif pattern.startswith(("[.", "[="), j):
            raise RegexpError("collating elements and equivalence classes in brackets ([.x.], [=x=]) are not supported")
        elif pattern[j] == "\\":
            out.append(pattern[j:j + 2])
            j += 2
        else:
            out.append("\\[" if pattern[j] == "[" else pattern[j])
            j += 1
    if j >= len(pattern):
        raise RegexpError("invalid regular expression: brackets [] not balanced")
    return "".join(out) + "]", j + 1


def python_pattern(pattern: str, newline_stop: bool, newline_anchor: bool) -> str:
    """``pattern`` (PostgreSQL's) in Python's ``re`` spelling."""
    out, i = [], 0
    while i < len(pattern):
        c = pattern[i]
        if c == "\\":
            out.append(_ESCAPES.get(pattern[i + 1:i + 2], pattern[i:i + 2]))
            i += 2
        elif c == "[":
            bracket, i = _bracket(pattern, i, newline_stop)
            out.append(bracket)
        else:
            out.append("\\Z" if c == "$" and not newline_anchor else c)
            i += 1
    return "".join(out)


@functools.lru_cache(maxsize=256)
def compiled(pattern: str, flags: str, function: str) -> re.Pattern:
    """``pattern`` compiled under PostgreSQL's ``flags`` for ``function`` (which names itself in
    the refusal of 'g')."""
    case, newline_stop, newline_anchor, expanded, literal = 0, False, False, False, False
    for flag in flags:
        if flag == "g":
            raise RegexpError(f'{function}() does not support the "global" option')
        if flag in "be":
            raise RegexpError(f'regular expression flags "b" and "e" (basic and extended syntax) are not supported '
                              f'("{flag}")')
        if flag not in "cimnpqstwx":
            raise RegexpError(f'invalid regular expression option: "{flag}"')
        case = re.IGNORECASE if flag == "i" else 0 if flag == "c" else case
        if flag in "mnpws":
            newline_stop, newline_anchor = flag in "mnp", flag in "mnw"
        expanded = flag == "x" or expanded and flag != "t"
        literal = literal or flag == "q"
    text = re.escape(pattern) if literal else python_pattern(pattern, newline_stop, newline_anchor)
    options = case | (0 if newline_stop else re.DOTALL) | (re.MULTILINE if newline_anchor else 0)
    try:
        return re.compile(text, options | (re.VERBOSE if expanded and not literal else 0))
    except re.error as e:
        raise RegexpError(f"invalid regular expression: {e}") from None


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
    regex = compiled(pattern, flags.replace("g", ""), "regexp_matches")
    found = _matches(text, regex, 1)
    return [list(m.groups()) if regex.groups else [m.group(0)] for m in (found if "g" in flags else found[:1])]


# DuckDB functions: txl_ and the function's name -> (function, parameter types, result type),
# and the macros of PostgreSQL's name taking each shorter form, its defaults filled in (of
# regexp_matches, parser/semantics.py's name: DuckDB has a regexp_matches of its own)
_PARAMETERS = {"text": "VARCHAR", "pattern": "VARCHAR", "start": "INTEGER", "n": "INTEGER", "endoption": "INTEGER",
               "flags": "VARCHAR", "subexpr": "INTEGER"}
_DEFAULTS = {"start": "1", "n": "1", "endoption": "0", "flags": "''", "subexpr": "0"}
MATCH_ROWS = "txl_regexp_matches"
_SIGNATURES = {
    "regexp_count": (regexp_count, ("text", "pattern", "start", "flags"), "INTEGER", pa.int32()),
    "regexp_instr": (regexp_instr, ("text", "pattern", "start", "n", "endoption", "flags", "subexpr"), "INTEGER",
                     pa.int32()),
    "regexp_substr": (regexp_substr, ("text", "pattern", "start", "n", "flags", "subexpr"), "VARCHAR", pa.string()),
    "regexp_like": (regexp_like, ("text", "pattern", "flags"), "BOOLEAN", pa.bool_()),
    MATCH_ROWS: (regexp_match_rows, ("text", "pattern", "flags"), "VARCHAR[][]", pa.list_(pa.list_(pa.string())))}
FUNCTIONS = {f"txl_{f.__name__}": (arrow_functions.of_rows(f, len(names), arrow), [_PARAMETERS[p] for p in names],
                                   result) for f, names, result, arrow in _SIGNATURES.values()}
MACROS = tuple(
    f"CREATE MACRO {name}" + ", ".join(
        f"({', '.join(names[:given])}) AS txl_{f.__name__}("
        + ", ".join(names[:given] + tuple(_DEFAULTS[p] for p in names[given:])) + ")"
        for given in range(2, len(names) + 1))
    for name, (f, names, _, _) in _SIGNATURES.items())
