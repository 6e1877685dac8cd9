"""Cutting typed or scripted text into statements and meta-commands, as psql's lexer does.

The shell has to know where a statement ends before anything parses it: a statement can span
lines, several can share a line, and a ``;`` inside a string, a quoted name, a comment, a
dollar-quoted body or parentheses ends nothing. ``scan(text)`` returns the complete pieces in
order - SQL statements (without their ``;``) and backslash meta-commands (to the end of their
line) - plus the unfinished rest and the lexical state that rest ends in, which the
continuation prompt shows (``-``, ``'``, ``"``, ``(``, ``*`` or ``$``).

This is deliberately only a lexer (quotes, comments, nesting); the grammar stays in parser/.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Mapping
from dataclasses import dataclass, field

SQL = "sql"
META = "meta"


@dataclass(frozen=True)
class Piece:
    kind: str  # SQL or META
    text: str
    line: int = field(default=1, compare=False)  # where it starts in the scanned text (1-based)
    # ``\copy ... from stdin`` or ``COPY ... FROM STDIN;``: the lines after it, up to a line ``\.``
    # or the end (None: the text ended with the command, as typed at the prompt - the data is
    # still to come)
    data: str | None = field(default=None, compare=False)
    expanded: bool = field(default=False, compare=False)  # ended by ``\\gx``: shown expanded
    gset: str | None = field(default=None, compare=False)  # ended by ``\\gset [PREFIX]``: the prefix ("" for none)
    gexec: bool = field(default=False, compare=False)  # ended by ``\\gexec``: its values run as statements
    watch: str | None = field(default=None, compare=False)  # ended by ``\\watch [ARGS]``: the arguments


# psql's \g, \gx, \gset [PREFIX] and \gexec: they end the statement before them as ';' does (\gx:
# shown expanded once; \gset: its one row's values stored in variables; \gexec: its values run)
_SEND = re.compile(r"\\g(x|exec|set(?:\s+(\S+))?)?$")
# psql's conditional meta-commands (repl/meta.py ``_if``): run even in a branch not taken
CONDITIONALS = frozenset({"\\if", "\\elif", "\\else", "\\endif"})
# psql's \watch [ARGS]: ends the statement before it too, which then runs again and again
_WATCH = re.compile(r"\\watch\b\s*(.*)$", re.DOTALL)

# a meta-command that reads its data from the script's next lines, as psql's \copy ... from stdin
_COPY_FROM_STDIN = re.compile(r"\\copy\b.*\bfrom\s+stdin\b", re.IGNORECASE | re.DOTALL)
# a statement that does so, as psql sends a script's lines after ``COPY ... FROM STDIN;`` (pg_dump's data)
# (after the comments before it: the statement is the group)
_SQL_COPY_FROM_STDIN = re.compile(r"(?:\s+|--[^\n]*(?:\n|$)|/\*.*?\*/)*(copy\b.*\bfrom\s+stdin\b.*)",
                                  re.IGNORECASE | re.DOTALL)
# the line that ends such data
_END_OF_DATA = re.compile(r"^\\\.\r?$", re.MULTILINE)


@dataclass(frozen=True)
class Scan:
    pieces: list[Piece] = field(default_factory=list)
    rest: str = ""  # text of a statement not ended yet (meta-commands removed; "" if only comments)
    state: str = "-"  # what the rest ends inside: - (nothing), ' " ( * (comment) $ (dollar quote)
    rest_line: int = 1  # where the rest starts
    # the text ends inside a -- comment: what is typed next starts a new line
    in_line_comment: bool = False

    @property
    def pending(self) -> bool:
        """True when the rest holds something besides blanks (a statement being typed)."""
        return bool(self.rest.strip())


def _dollar_tag(text: str, i: int) -> str | None:
    """The ``$tag$`` opening a dollar-quoted string at ``text[i]``, if one does."""
    if i > 0 and (text[i - 1].isalnum() or text[i - 1] == "_"):
        return None  # part of an identifier such as a$b
    j = i + 1
    while j < len(text) and (text[j].isalnum() or text[j] == "_"):
        j += 1
    if j < len(text) and text[j] == "$":
        tag = text[i:j + 1]
        if len(tag) > 2 and tag[1].isdigit():
            return None  # $1 is a parameter, not a quote
        return tag
    return None


def _closing_quote(text: str, i: int) -> int:
    """Where the string or quoted name opened at ``text[i]`` closes, or -1. A doubled quote is
    part of the text; in an escape string (E'...') a backslash escapes the next character."""
    quote = text[i]
    escapes = (quote == "'" and i > 0 and text[i - 1] in "eE"
               and (i == 1 or not (text[i - 2].isalnum() or text[i - 2] == "_")))
    j = i + 1
    while j < len(text):
        if escapes and text[j] == "\\":
            j += 2
        elif text[j] == quote:
            if text[j + 1:j + 2] != quote:
                return j
            j += 2
        else:
            j += 1
    return -1


def _comment_end(text: str, i: int) -> int:
    """Where the ``/* ... */`` comment opened at ``text[i]`` ends (comments nest), or -1."""
    nesting, j, n = 1, i + 2, len(text)
    while j < n and nesting:
        if text[j:j + 2] == "/*":
            nesting, j = nesting + 1, j + 2
        elif text[j:j + 2] == "*/":
            nesting, j = nesting - 1, j + 2
        else:
            j += 1
    return -1 if nesting else j


def _literal_end(text: str, i: int) -> int | None:
    """Where what opens at ``text[i]`` and ends no variable's name ends - a string, a quoted
    name, a comment, a dollar-quoted body (the text's end if it does not close) or ``::`` -
    or None."""
    ch, two = text[i], text[i:i + 2]
    if ch in "'\"":
        end = _closing_quote(text, i)
        return len(text) if end == -1 else end + 1
    if two == "--":
        end = text.find("\n", i)
        return len(text) if end == -1 else end
    if two == "/*":
        end = _comment_end(text, i)
        return len(text) if end == -1 else end
    if ch == "$" and (tag := _dollar_tag(text, i)):
        end = text.find(tag, i + len(tag))
        return len(text) if end == -1 else end + len(tag)
    return i + 2 if two == "::" else None


# psql's variable references: :name, :'name' (as a string literal), :"name" (as a quoted name)
_VARIABLE = re.compile(r":(?:'(\w+)'|\"(\w+)\"|(\w+))")


def interpolate(text: str, variables: Mapping[str, str]) -> str:
    """``text`` with psql's variables put in, as its lexer does: outside strings, quoted names,
    comments and dollar-quoted bodies, ``:name`` is the variable's value, ``:'name'`` that as a
    string literal, ``:"name"`` as a quoted name. ``::`` (a cast) and a variable not set are left
    as they are."""
    if ":" not in text or not variables:
        return text
    out, i, n = [], 0, len(text)
    while i < n:
        end = _literal_end(text, i)
        found = _VARIABLE.match(text, i) if end is None else None
        value = None if found is None else variables.get(found[1] or found[2] or found[3])
        if value is not None:
            out.append("'" + value.replace("'", "''") + "'" if found[1] else
                       '"' + value.replace('"', '""') + '"' if found[2] else value)
            i = found.end()
            continue
        end = end or i + 1
        out.append(text[i:end])
        i = end
    return "".join(out)


def _data_after(text: str, line_end: int) -> tuple[str, int]:
    """COPY's data that follows a command ending at ``line_end`` (a newline): the lines up to
    one holding ``\\.`` alone, or to the end; and where the text goes on after it."""
    stop = _END_OF_DATA.search(text, line_end + 1)
    return text[line_end + 1:stop.start() if stop else len(text)], stop.end() if stop else len(text)


_WORD = re.compile(r"[^\W\d][\w$]*")


def _defines_routine(words: list[str]) -> bool:
    """Do a statement's first ``words`` make a function or procedure (``CREATE [OR REPLACE]
    FUNCTION``), whose ``BEGIN ATOMIC ... END`` body holds ``;`` that end nothing (psql's rule)?"""
    return words[:1] == ["create"] and (words[1:2] in (["function"], ["procedure"])
                                        or words[1:3] == ["or", "replace"] and words[3:4] in (["function"],
                                                                                             ["procedure"]))


def scan(text: str) -> Scan:
    pieces: list[Piece] = []
    current: list[str] = []  # characters of the statement being collected
    i, n = 0, len(text)
    depth = 0  # parentheses
    words: list[str] = []  # the statement's first words (CREATE [OR REPLACE] FUNCTION ...)
    atomic = 0  # how deep in a function's BEGIN ATOMIC ... END (CASE ... END inside counted), as psql's
    start = None  # where the statement being collected starts
    code = False  # has it anything besides comments and blanks?
    open_comment = False  # the text ends inside a -- comment
    newlines = [k for k, c in enumerate(text) if c == "\n"]

    def line_at(position: int) -> int:
        return bisect.bisect_left(newlines, position) + 1

    while i < n:
        ch = text[i]
        if start is None and not ch.isspace() and ch not in ";\\":
            start = i
        two = text[i:i + 2]
        if not (ch.isspace() or two in ("--", "/*") or ch in ";\\"):
            code = True
        if ch == "'" or ch == '"':
            end = _closing_quote(text, i)
            if end == -1:
                current.append(text[i:])
                return Scan(pieces, "".join(current), ch, line_at(start or 0))
            current.append(text[i:end + 1])
            i = end + 1
        elif two == "--":
            end = text.find("\n", i)
            open_comment = end == -1
            end = n if end == -1 else end
            current.append(text[i:end])
            i = end
        elif two == "/*":
            j = _comment_end(text, i)
            current.append(text[i:j if j != -1 else n])
            if j == -1:
                return Scan(pieces, "".join(current), "*", line_at(start or 0))
            i = j
        elif ch == "$" and (tag := _dollar_tag(text, i)):
            end = text.find(tag, i + len(tag))
            if end == -1:
                current.append(text[i:])
                return Scan(pieces, "".join(current), "$", line_at(start or 0))
            current.append(text[i:end + len(tag)])
            i = end + len(tag)
        elif ch == "\\":
            end = text.find("\n", i)
            end = n if end == -1 else end
            command = text[i:end].strip()
            statement = "".join(current).strip()
            send, watch = _SEND.match(command), _WATCH.match(command)
            if (send or watch) and statement and code:  # (psql sends the buffer as it is)
                gset = (send[2] or "") if send and (send[1] or "").startswith("set") else None
                pieces.append(Piece(SQL, statement, line_at(start or 0), expanded=bool(send) and send[1] == "x",
                                    gset=gset, gexec=bool(send) and send[1] == "exec",
                                    watch=watch[1] if watch else None))
                current, start, code, depth, words, atomic = [], None, False, 0, [], 0
                i = end
                continue
            data = None
            if end < n and _COPY_FROM_STDIN.match(command):
                data, end = _data_after(text, end)
            pieces.append(Piece(META, command, line_at(i), data))
            i = end
        elif ch == "(":
            depth += 1
            current.append(ch)
            i += 1
        elif ch == ")":
            depth = max(depth - 1, 0)
            current.append(ch)
            i += 1
        elif ch.isalpha() or ch == "_":
            word = _WORD.match(text, i).group(0)
            current.append(word)
            i += len(word)
            lowered = word.lower()
            if len(words) < 4:
                words.append(lowered)
            if depth == 0 and _defines_routine(words):
                if lowered == "begin" or lowered == "case" and atomic:
                    atomic += 1
                elif lowered == "end" and atomic:
                    atomic -= 1
        elif ch == ";" and depth == 0 and atomic == 0:
            statement = "".join(current).strip()
            i += 1
            if statement and code:
                data = None
                line_end = text.find("\n", i)
                copy = _SQL_COPY_FROM_STDIN.match(statement) if line_end != -1 else None
                if copy is not None:
                    statement = copy.group(1)
                    data, i = _data_after(text, line_end)
                pieces.append(Piece(SQL, statement, line_at(start or 0), data))
            current, start, code, words = [], None, False, []
        else:
            current.append(ch)
            i += 1
    rest = "".join(current)
    return Scan(pieces, rest if code else "", "(" if depth else "-", line_at(start or 0),
                in_line_comment=code and open_comment)
