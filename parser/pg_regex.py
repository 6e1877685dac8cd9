"""PostgreSQL's advanced regular expressions (func.sgml, "POSIX Regular Expressions") in the two
engines that run them: Python's ``re`` (engine/regexp_functions.py's functions) and DuckDB's RE2
(``~``, ``regexp_replace``, ``regexp_match``, ``substring(s FROM p)``: parser/semantics.py).

``python_pattern`` spells a pattern for ``re``; ``re2_pattern`` spells it for RE2 where RE2 can
run it - it has no back references, lookaround, ``\\m`` / ``\\M`` or expanded syntax, and None
sends such a call to Python. Both follow PostgreSQL where the engines differ: POSIX classes in
brackets (``[[:digit:]]``, as the C locale has them), the escapes ``\\m \\M \\y \\Y`` (word
edges), ``\\Z`` (the end), ``\\b`` (a backspace) and ``\\B`` (a backslash); ``$`` as the string's
end only (Python's also matched before a last newline); ``.`` and a negated bracket matching a
newline unless the flags make newlines special (RE2's ``.`` did not: ``E'a\\nb' ~ 'a.b'`` was
false). The flags are PostgreSQL's (regexp.c ``parse_re_flags``, applied in order; also as the
embedded options ``(?flags)`` a pattern may begin with): ``i``/``c`` case, ``n``/``m``/``p``/``w``/``s``
newline sensitivity, ``x`` expanded, ``q`` a literal, ``t``; the basic and extended syntaxes
(``b``, ``e``) are refused (0A000), another letter is 22023; the directors ``***=`` / ``***:``
and the word-edge brackets ``[[:<:]]`` / ``[[:>:]]`` are read too. A pattern that is no regular
expression is 2201B with PostgreSQL's words where Python's error tells which (and where both
engines would take it: a count past 255, a quantifier after a quantifier).

Not PostgreSQL's: where alternatives both match at one place, both engines take the first (Perl's
rule) where PostgreSQL may take the longer (``regexp_match('abc', 'a|ab')`` is ``{a}``, not ``{ab}``).
"""

from __future__ import annotations

import functools
import re


class RegexpError(ValueError):
    """An argument these functions refuse, in PostgreSQL's words (engine/errors_map.py: 22023,
    2201B for a pattern that is no regular expression, 0A000 for words ending 'are not supported')."""


# POSIX bracket classes, as the C locale has them
_CLASSES = {"alpha": "a-zA-Z", "digit": "0-9", "alnum": "0-9a-zA-Z", "upper": "A-Z", "lower": "a-z",
            "space": " \\t\\n\\r\\f\\v", "blank": " \\t", "xdigit": "0-9A-Fa-f", "cntrl": "\\x00-\\x1f\\x7f",
            "print": "\\x20-\\x7e", "graph": "\\x21-\\x7e", "punct": re.escape("!\"#$%&'()*+,-./:;<=>?@[\\]^_`{|}~"),
            "word": "\\w"}
# PostgreSQL's escapes Python spells otherwise: the start and end of a word, a word boundary, not
# one, a backspace, a backslash (a pattern's end: Python's \Z, RE2's \z)
_ESCAPES = {"m": r"\b(?=\w)", "M": r"\b(?<=\w)", "y": r"\b", "Y": r"\B", "b": r"\x08", "B": r"\\"}
_RE2_ESCAPES = {"y": r"\b", "Y": r"\B", "b": r"\x08", "B": r"\\", "Z": r"\z"}
# escapes RE2 has not: back references, the start and end of a word, octal and control codes
# (Python reads them as PostgreSQL does, or refuses them)
_PYTHON_ONLY = frozenset("123456789mMce0")
# character codes: \x and any hex digits after it, \u and four, \U and eight (both engines read
# a fixed number of \x's digits: PostgreSQL's '\x41B' is one character)
_CODES = {"x": re.compile(r"[0-9A-Fa-f]+"), "u": re.compile(r"[0-9A-Fa-f]{4}"), "U": re.compile(r"[0-9A-Fa-f]{8}")}
# zero-width assertions: where a pattern holds one, it may match an empty string somewhere
_ASSERTIONS = frozenset("mMyYAZ")
# PostgreSQL's largest repetition count (regex's DUPMAX)
DUPMAX = 255
_BOUND = re.compile(r"\{(\d+)(?:,(\d*))?\}")
# the Python functions (engine/regexp_functions.py) parser/semantics.py calls with every argument;
# REPLACE_EITHER, a macro: regexp_replace whose fourth argument is a start if an integer, else flags
REPLACE, MATCH, SPLIT = "txl_regexp_replace", "txl_regexp_match", "txl_regexp_split"
REPLACE_EITHER = "txl_regexp_replace_either"
# the functions that take the flag g (every match): for the others it is 22023
GLOBAL_FUNCTIONS = frozenset({"regexp_replace", "regexp_matches"})
_EMBEDDED = re.compile(r"\(\?([a-z]+)\)")
# Python's complaints (the start of its message) -> PostgreSQL's (regc_locale.c / regerror.c)
_MESSAGES = (("missing ), unterminated subpattern", "parentheses () not balanced"),
             ("unbalanced parenthesis", "parentheses () not balanced"),
             ("unterminated character set", "brackets [] not balanced"),
             ("nothing to repeat", "quantifier operand invalid"),
             ("multiple repeat", "quantifier operand invalid"),
             ("min repeat greater than max repeat", "invalid repetition count(s)"),
             ("invalid group reference", "invalid backreference number"),
             ("bad escape", "invalid escape \\ sequence"),
             ("bad character range", "invalid character range"))


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
        if c == "\\" and (code := _code(pattern, i)) is not None:
            out.append(re.escape(code[0]))
            i = code[1]
        elif c == "\\":
            out.append(_ESCAPES.get(pattern[i + 1:i + 2], pattern[i:i + 2]))
            i += 2
        elif c == "[":
            bracket, i = _bracket(pattern, i, newline_stop)
            out.append(bracket)
        else:
            out.append("\\Z" if c == "$" and not newline_anchor else c)
            i += 1
    return "".join(out)


def _code(pattern: str, i: int) -> tuple[str, int] | None:
    """The character ``\\x41`` / ``\\u0041`` / ``\\U00000041`` at ``pattern[i]`` spells, and where
    it ends; None for any other escape (or a code too large: Python's error then)."""
    digits = _CODES.get(pattern[i + 1:i + 2])
    found = digits.match(pattern, i + 2) if digits is not None else None
    if found is None or int(found.group(), 16) > 0x10FFFF:
        return None
    return chr(int(found.group(), 16)), found.end()


def _check_quantifiers(pattern: str) -> None:
    """PostgreSQL's refusals Python (or RE2) would take: a repetition count past DUPMAX, and a
    quantifier after a quantifier (``a*+``: Python's possessive one)."""
    i, after_quantifier = 0, False
    while i < len(pattern):
        c = pattern[i]
        if c == "\\":
            i, after_quantifier = i + 2, False
            continue
        if c == "[":
            end = pattern.find("]", i + 2)
            i, after_quantifier = (len(pattern) if end == -1 else end + 1), False
            continue
        bound = _BOUND.match(pattern, i) if c == "{" else None
        if bound is not None and any(n and int(n) > DUPMAX for n in bound.groups()):
            raise RegexpError("invalid regular expression: invalid repetition count(s)")
        if c == "+" and after_quantifier:
            raise RegexpError("invalid regular expression: quantifier operand invalid")
        if bound is not None:
            i, after_quantifier = bound.end(), True
            continue
        after_quantifier = c in "*+?" and not (c == "?" and after_quantifier)
        i += 1


def may_match_empty(pattern: str, flags: str) -> bool:
    """Might ``pattern`` match an empty string somewhere in a text? (Without a zero-width
    assertion that is so iff it matches the empty text; with one, say so.)"""
    regex = compiled(pattern, flags, "regexp_split_to_array")
    body, _ = _embedded(pattern, flags)
    i = 0
    while i < len(body):
        c = body[i]
        if c == "\\" and body[i + 1:i + 2] in _ASSERTIONS or c in "^$" or body.startswith("(?", i) and \
                not body.startswith("(?:", i):
            return True
        i += 2 if c == "\\" else 1
    return regex.fullmatch("") is not None


class Options:
    """What a pattern's flags (and its embedded options) ask."""
    __slots__ = ("case", "newline_stop", "newline_anchor", "expanded", "literal")

    def __init__(self, flags: str, function: str):
        self.case = self.newline_stop = self.newline_anchor = self.expanded = self.literal = False
        for flag in flags:
            if flag == "g" and function in GLOBAL_FUNCTIONS:
                continue  # (which matches the call takes: its own business)
            if flag == "g":
                raise RegexpError(f'{function}() does not support the "global" option'
                                  + ("\nHINT:  Use the regexp_matches function instead." if function == "regexp_match"
                                     else ""))
            if flag in "be":
                raise RegexpError(f'regular expression flags "b" and "e" (basic and extended syntax) are not '
                                  f'supported ("{flag}")')
            if flag not in "cimnpqstwx":
                raise RegexpError(f'invalid regular expression option: "{flag}"')
            self.case = flag == "i" or self.case and flag != "c"
            if flag in "mnpws":
                self.newline_stop, self.newline_anchor = flag in "mnp", flag in "mnw"
            self.expanded = flag == "x" or self.expanded and flag != "t"
            self.literal = self.literal or flag == "q"


def _embedded(pattern: str, flags: str) -> tuple[str, str]:
    """``pattern`` without the director (``***=``: the rest a literal; ``***:``: the rest an ARE)
    and the embedded options it begins with, and ``flags`` with what they say after; PostgreSQL's
    word-edge brackets ``[[:<:]]`` / ``[[:>:]]`` as its ``\\m`` / ``\\M``."""
    if pattern.startswith("***="):
        return pattern[4:], flags + "q"
    if pattern.startswith("***:"):
        pattern = pattern[4:]
    pattern = pattern.replace("[[:<:]]", "\\m").replace("[[:>:]]", "\\M")
    match = _EMBEDDED.match(pattern)
    return (pattern[match.end():], flags + match.group(1)) if match else (pattern, flags)


@functools.lru_cache(maxsize=256)
def compiled(pattern: str, flags: str, function: str) -> re.Pattern:
    """``pattern`` compiled under PostgreSQL's ``flags`` for ``function`` (which names itself in
    the refusal of 'g')."""
    pattern, flags = _embedded(pattern, flags)
    options = Options(flags, function)
    if not options.literal:
        _check_quantifiers(pattern)
    text = re.escape(pattern) if options.literal else \
        python_pattern(pattern, options.newline_stop, options.newline_anchor)
    mode = (re.IGNORECASE if options.case else 0) | (0 if options.newline_stop else re.DOTALL) \
        | (re.MULTILINE if options.newline_anchor else 0) \
        | (re.VERBOSE if options.expanded and not options.literal else 0)
    try:
        return re.compile(text, mode)
    except re.error as e:
        said = str(e)
        words = next((ours for theirs, ours in _MESSAGES if said.startswith(theirs)), said)
        raise RegexpError(f"invalid regular expression: {words}") from None


def re2_pattern(pattern: str, flags: str, function: str) -> str | None:
    """``pattern`` under ``flags`` in RE2's spelling, its flags written into it; None if RE2
    cannot run it (Python can: ``compiled``). A pattern PostgreSQL refuses raises its error here,
    whichever engine would run it."""
    compiled(pattern, flags, function)
    pattern, flags = _embedded(pattern, flags)
    options = Options(flags, function)
    if options.literal:
        text = "".join("\\" + c if c in "\\.^$|?*+()[]{}" else c for c in pattern)
    elif options.expanded:
        return None
    else:
        out, i = [], 0
        while i < len(pattern):
            c = pattern[i]
            if c == "\\" and (code := _code(pattern, i)) is not None:
                out.append(code[0] if code[0].isalnum() and code[0].isascii() else f"\\x{{{ord(code[0]):x}}}")
                i = code[1]
                continue
            if c == "\\":
                escaped = pattern[i + 1:i + 2]
                if escaped in _PYTHON_ONLY:
                    return None
                out.append(_RE2_ESCAPES.get(escaped, pattern[i:i + 2]))
                i += 2
            elif c == "[":
                bracket, i = _bracket(pattern, i, options.newline_stop)
                out.append(bracket)
            elif pattern.startswith("(?", i) and not pattern.startswith("(?:", i):
                return None  # (lookaround)
            else:
                out.append(c)
                i += 1
        text = "".join(out)
    mode = ("i" if options.case else "") + ("" if options.newline_stop else "s") \
        + ("m" if options.newline_anchor else "")
    return f"(?{mode}){text}" if mode else text


def _replacement_parts(replacement: str):
    """``regexp_replace``'s ``replacement`` as PostgreSQL reads it (varlena.c
    ``appendStringInfoRegexpSubstr``): its text (str) and its references (int: ``\\1``-``\\9`` a
    group, ``\\&`` 0, the whole match); ``\\\\`` is a backslash, another backslash stays as written."""
    i, text = 0, []
    while i < len(replacement):
        c, escaped = replacement[i], replacement[i + 1:i + 2]
        if c == "\\" and escaped and escaped in "123456789&":
            if text:
                yield "".join(text)
                text = []
            yield 0 if escaped == "&" else int(escaped)
            i += 2
        else:
            text.append(c)
            i += 2 if c == "\\" and escaped == "\\" else 1
    if text:
        yield "".join(text)


def re2_replacement(replacement: str, groups: int) -> str | None:
    """``replacement`` in RE2's spelling (``_replacement_parts``); None if it names a group the
    pattern has not (PostgreSQL inserts nothing, RE2 refuses it)."""
    out = []
    for part in _replacement_parts(replacement):
        if isinstance(part, int) and part > groups:
            return None
        out.append(f"\\{part}" if isinstance(part, int) else part.replace("\\", "\\\\"))
    return "".join(out)


def expand(replacement: str, match: re.Match) -> str:
    """``replacement`` for ``match`` (``_replacement_parts``)."""
    return "".join(part if isinstance(part, str) else (match.group(part) or "") if part <= match.re.groups else ""
                   for part in _replacement_parts(replacement))
