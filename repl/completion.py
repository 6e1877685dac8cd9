"""Tab completion: SQL keywords, table names and column names from the catalog, meta-commands.

The catalog is read through the Session's describe calls (what the session's transaction
sees) and cached until ``invalidate()``, which the shell calls after every statement, so a
key press never reads the warehouse. Which names fit where is a heuristic on the text before
the cursor and the rest of its statement (it is unfinished, so there is nothing to parse yet):
after FROM, JOIN, INTO, UPDATE and TABLE only tables; after ``name.`` the columns of that table
or alias; elsewhere the columns of the tables the statement names (before or after the cursor),
then tables and keywords.
"""

from __future__ import annotations

import re

from prompt_toolkit.completion import Completer, Completion, PathCompleter
from prompt_toolkit.document import Document

KEYWORDS = sorted(set("""
ABORT ALL ALTER AND AS ASC BEGIN BETWEEN BIGINT BOOLEAN BY CALL CASE CAST COLUMN COMMIT COMMITTED
CONFLICT COPY COUNT CREATE CROSS CSV DATE DECIMAL DEFAULT DELETE DELIMITER DESC DISTINCT DO DOUBLE DROP ELSE END
FORMAT HEADER STDIN STDOUT
EXCEPT EXISTS FALSE FOR FROM FULL GROUP HAVING IF ILIKE IN INNER INSERT INT INTEGER INTERSECT INTO
IS ISOLATION JOIN KEY LEFT LEVEL LIKE LIMIT NOT NOTHING NULL OFFSET ON ONLY OR ORDER OUTER
PRIMARY READ RELEASE RENAME REPEATABLE RETURNING RIGHT ROLLBACK SAVEPOINT SELECT SERIALIZABLE
SESSION SET SHOW START SYSTEM_VERSION TABLE TEXT THEN TIMESTAMP TO TRANSACTION TRUE UNCOMMITTED
UNION UPDATE USING VALUES VARCHAR WHEN WHERE WITH WORK WRITE MERGE MATCHED SOURCE TARGET
SMALLINT REAL BYTEA TIME TIMESTAMPTZ ZONE UUID JSON JSONB
""".split()))

# after these keywords only a table name fits
TABLE_CONTEXT = {"FROM", "JOIN", "INTO", "UPDATE", "TABLE", "EXISTS", "COPY"}

META_COMMANDS = ["\\?", "\\a", "\\conninfo", "\\connect", "\\copy", "\\d", "\\dD", "\\dT", "\\df", "\\dg",
                 "\\di", "\\dn", "\\du", "\\dx", "\\errverbose", "\\elif", "\\else", "\\endif", "\\if",
                 "\\dm", "\\ds", "\\dt", "\\dv", "\\echo", "\\f", "\\i", "\\isolation", "\\l", "\\o", "\\pset", "\\q",
                 "\\qecho", "\\rows", "\\set", "\\snapshots", "\\t", "\\timing", "\\unset", "\\watch", "\\x",
                 "\\cd", "\\gexec", "\\getenv", "\\ir", "\\setenv", "\\sv", "\\sf"]
META_ARGUMENTS = {
    "\\isolation": ["read committed", "repeatable read", "serializable"],
    "\\x": ["on", "off", "auto"],
    "\\t": ["on", "off"],
    "\\timing": ["on", "off"],
    "\\rows": ["all"],
    "\\pset": ["expanded", "fieldsep", "footer", "format", "null", "pager", "tuples_only"],
}

_WORD = re.compile(r"(?:[A-Za-z_][\w$]*\.)?[\w$]*$")
_TABLE_REF = re.compile(r"\b(?:FROM|JOIN|INTO|UPDATE|TABLE)\s+([A-Za-z_][\w$]*(?:\.[A-Za-z_][\w$]*)?)"
                        r"(?:\s+(?:AS\s+)?([A-Za-z_][\w$]*))?", re.IGNORECASE)


class CatalogCache:
    """Table name -> column names, read from the session on first use after ``invalidate()``."""

    def __init__(self, session):
        self.session = session
        self._tables: dict[str, list[str]] | None = None

    def invalidate(self) -> None:
        self._tables = None

    def tables(self) -> dict[str, list[str]]:
        if self._tables is None:
            self._tables = self._read()
        return self._tables

    def _read(self) -> dict[str, list[str]]:
        try:
            listing = self.session.describe_tables().to_pydict()
        except Exception:  # a closed or broken session: complete keywords only
            return {}
        default = self.session.settings.get("search_path", "default")
        tables: dict[str, list[str]] = {}
        for db, name in zip(listing["database"], listing["table"]):
            qualified = name if db == default else f"{db}.{name}"
            try:
                columns = self.session.describe_table(qualified).column("column").to_pylist()
            except Exception:
                columns = []
            tables[qualified] = columns
        return tables


class SQLCompleter(Completer):
    def __init__(self, catalog: CatalogCache):
        self.catalog = catalog
        self.paths = PathCompleter(expanduser=True)

    def get_completions(self, document: Document, complete_event):
        before = document.text_before_cursor
        line = document.current_line_before_cursor.lstrip()
        if line.startswith("\\"):
            yield from self._meta(document, line)
            return
        word = _WORD.search(before).group(0)
        after = document.text_after_cursor
        # the whole statement around the cursor: FROM often comes after the column being typed
        statement = before[before.rfind(";") + 1:] + after[:after.find(";") if ";" in after else len(after)]
        typed = before[before.rfind(";") + 1:]
        if "." in word:
            qualifier, _, partial = word.rpartition(".")
            columns = self._columns_of(qualifier, statement)
            if columns is not None:
                yield from _matching(columns, partial, "column")
                return
            yield from _matching([t for t in self.catalog.tables() if t.lower().startswith(qualifier.lower() + ".")],
                                 word, "table")
            return
        previous = _previous_word(typed[:len(typed) - len(word)])
        tables = self.catalog.tables()
        if previous in TABLE_CONTEXT:
            yield from _matching(sorted(tables), word, "table")
            return
        mentioned = [t for t, _ in self._references(statement) if t in tables]
        columns = sorted({c for t in mentioned for c in tables[t]})
        yield from _matching(columns, word, "column")
        yield from _matching(sorted(tables), word, "table")
        yield from _matching(KEYWORDS, word, "keyword", keyword=True)

    def _meta(self, document: Document, line: str):
        command, space, argument = line.partition(" ")
        if not space:
            yield from _matching(META_COMMANDS, command, "meta-command")
            return
        argument = argument.lstrip()
        if command in ("\\d", "\\snapshots"):
            yield from _matching(sorted(self.catalog.tables()), argument, "table")
        elif command in ("\\i", "\\include"):
            yield from self.paths.get_completions(Document(argument), None)
        elif command in META_ARGUMENTS:
            yield from _matching(META_ARGUMENTS[command], argument, command)

    def _references(self, statement: str) -> list[tuple[str, str | None]]:
        """(table, alias) for each table the statement names after FROM / JOIN / INTO / UPDATE."""
        tables = {t.lower(): t for t in self.catalog.tables()}
        found = []
        for match in _TABLE_REF.finditer(statement):
            name = tables.get(match.group(1).lower())
            alias = match.group(2)
            if alias and alias.upper() in KEYWORDS:
                alias = None
            if name is not None:
                found.append((name, alias))
        return found

    def _columns_of(self, qualifier: str, statement: str) -> list[str] | None:
        tables = self.catalog.tables()
        lowered = qualifier.lower()
        for name, alias in self._references(statement):
            if alias is not None and alias.lower() == lowered:
                return tables[name]
        for name, columns in tables.items():
            if name.lower() == lowered or name.lower().rpartition(".")[2] == lowered:
                return columns
        return None


def _previous_word(text: str) -> str:
    words = re.findall(r"[A-Za-z_][\w$]*|[^\s\w]", text)
    return words[-1].upper() if words else ""


def _matching(candidates, partial: str, meta: str, keyword: bool = False):
    lowered = partial.lower()
    # keywords follow the case being typed (select -> select, SEL -> SELECT)
    lower_case = keyword and partial[:1].islower()
    for candidate in candidates:
        if candidate.lower().startswith(lowered) and candidate != partial:
            text = candidate.lower() if lower_case else candidate
            yield Completion(text, start_position=-len(partial), display_meta=meta)
