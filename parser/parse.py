"""Text -> typed statements, with a cache keyed by the statement text.

``parse(text)`` returns a tuple of statements (a script may hold several). Syntax errors raise
``SyntaxError`` (42601) carrying the 1-based character position, as PostgreSQL reports it.
Names with path separators or ``..`` are refused here (42602): a table name becomes a
directory name in the warehouse, and nothing may be written outside it.
"""

from __future__ import annotations

import functools
import logging
import re

from dataclasses import replace

import sqlglot
from sqlglot import exp
from sqlglot.errors import ParseError, TokenError
from sqlglot.tokens import TokenType

from txlake import errors
from txlake.parser import statements as st
from txlake.parser import system_columns
from txlake.parser.dialect import (SOURCE_SPAN, CommentOn, ConstraintTiming, Control, CursorCommand, FunctionCommand,
                                    LockCommand, PolicyCommand, RefreshMatview, RenameConstraint, SequenceCommand,
                                    TriggerCommand, Txlake, TypeCommand, ValidateConstraint, PartitionCommand)
from txlake.parser.semantics import (ARRAY_SET, AVG_MACRO, NAMED_SCHEMAS, SUM_MACRO, boolean_condition,
                                     postgres_semantics)
from txlake.storage.sequences import sequence_name

logging.getLogger("sqlglot").setLevel(logging.ERROR)

CACHE_SIZE = 2048


def parse(text: str) -> tuple[st.Statement, ...]:
    """Parse one or more ``;``-separated statements. Cached: the same text parses once."""
    return _parse_cached(text)


def parse_one(text: str) -> st.Statement:
    statements = parse(text)
    if len(statements) != 1:
        raise errors.ProgrammingError(
            f"expected one statement, got {len(statements)}", sqlstate="42601")
    return statements[0]


@functools.lru_cache(maxsize=CACHE_SIZE)
def _parse_cached(text: str) -> tuple[st.Statement, ...]:
    try:
        trees = sqlglot.parse(text, read=Txlake)
    except ParseError as e:
        first = e.errors[0] if e.errors else {}
        position = _offset(text, first.get("line"), first.get("col"), first.get("highlight"))
        word = _no_command(text, position)
        if word is not None:
            raise errors.SyntaxError(f'syntax error at or near "{word[0]}"', position=word[1]) from None
        raise errors.SyntaxError(_syntax_message(first.get("description") or str(e), first.get("highlight")),
                                 position=position) from None
    except TokenError as e:
        position = getattr(e, "position", None)
        rest = text[position - 1:] if position else ""
        what = ("unterminated quoted string" if rest[:1] in ("'", '"') else
                "unterminated /* comment" if rest.startswith("/*") else
                "unterminated dollar-quoted string" if rest.startswith("$") else "syntax error")
        raise errors.SyntaxError(f'{what} at or near "{rest[:20]}"' if rest else what, position=position) from None
    # empty statements between semicolons (sqlglot keeps one holding only comments as a Semicolon)
    trees = [t for t in trees if t is not None and not isinstance(t, exp.Semicolon)]
    result = []
    for tree in trees:
        span = tree.meta.get(SOURCE_SPAN)
        _check_table_names(tree)
        dml = isinstance(tree, (exp.Insert, exp.Update, exp.Delete, exp.Merge))
        merge = isinstance(tree, exp.Merge)
        # the SQL made of the tree need not hold the ? where the text does (OFFSET ? LIMIT ?
        # becomes LIMIT ? OFFSET ?), and rewrites move or copy them (a CTE put where it is
        # named, SET (a, b) = (SELECT ...) split by column): each is tagged with its place in
        # the text first, and the statement says the order the SQL binds them in
        # (Statement.param_order) - but a MERGE's keep their tags: its queries number their
        # parameters themselves
        moves = dml and bool(merge or tree.args.get("with_") or _column_list_assignments(tree))
        in_text = _placeholders_in_text_order(tree)
        for i, placeholder in enumerate(in_text):
            placeholder.meta[_PARAM_INDEX] = i  # (copies keep it)
        _expand_column_list_assignments(tree)  # (before the row comparisons are rewritten)
        if isinstance(tree, exp.Create) and _kind(tree) == "VIEW":
            if isinstance(tree.expression, exp.Values):  # (CREATE VIEW v AS VALUES ...: a query of them)
                tree.set("expression", exp.Select(expressions=[exp.Star()], from_=exp.From(this=tree.expression)))
            if isinstance(tree.expression, exp.Query):
                tree.meta[_WRITTEN] = tree.expression.copy()  # (a view stores its query as written)
        # (a CHECK, a generated column store their expression as written)
        if isinstance(tree, (exp.Create, exp.Alter, TypeCommand)):
            for check in tree.find_all(exp.CheckColumnConstraint, exp.ComputedColumnConstraint):
                check.meta[_WRITTEN] = check.this.copy()
        if isinstance(tree, PolicyCommand):  # (and a policy its USING and WITH CHECK)
            for key in ("using", "check"):
                if tree.args.get(key) is not None:
                    tree.args[key].meta[_WRITTEN] = tree.args[key].copy()
        # (an index's expressions and predicate - and ON CONFLICT's, to be matched with them - too)
        for written in tree.find_all(exp.IndexParameters, exp.OnConflict):
            written.meta[_WRITTEN] = written.copy()
        named = system_columns.named(tree)
        if named or system_columns.uses_tids(tree):
            tree = system_columns.with_tids(tree)
        tree = postgres_semantics(tree, text)
        # its own words, where the text has them (a ``;``-separated part of it), and where they begin
        source, offset = (text[span[0]:span[1] + 1], span[0]) if span else (_source_text(tree), 0)
        if _modifying_ctes(tree):  # (WITH d AS (DELETE ... RETURNING ...) INSERT ... SELECT ... FROM d)
            stmt = _with_writes(tree)
            result.append(_with(stmt, param_count=len(in_text), text=source, offset=offset,
                                reads_settings=any(part.reads_settings for part in stmt.parts), system_columns=named))
            continue
        if dml and tree.args.get("with_"):
            tree = _inline_ctes(tree)
        # (a rewrite may hand one ? to two places - ELEMENTS_AS its x, parser/semantics.py
        # _quantified: the order names its parameter twice)
        copied = sum(1 for p in tree.find_all(exp.Placeholder) if not p.this) > len(in_text)
        placeholders = len(in_text) if moves or copied else sum(1 for _ in tree.find_all(exp.Placeholder))
        order = tuple(p.meta[_PARAM_INDEX] for p in placeholders_in_sql_order(tree)) \
            if (len(in_text) > 1 or copied) and not merge else None
        if order == tuple(range(len(in_text))):
            order = None
        stmt = _to_statement(tree)
        if isinstance(stmt, (st.Explain, st.Execute, st.DeclareCursor)):  # (its query or values: text, their own count)
            placeholders = stmt.param_count
        reads_settings = (isinstance(stmt, _READS_SETTINGS) or isinstance(stmt, st.CreateTable) and
                          stmt.as_query is not None) and _calls_current_setting(tree)
        result.append(_with(stmt, param_count=placeholders, param_order=order, text=source, offset=offset,
                            reads_settings=reads_settings, system_columns=named or stmt.system_columns))
    return tuple(result)


# the statements whose current_setting() calls engine/executor.py ``with_settings`` reads (also
# CREATE TABLE AS's; a view's query when the view is created, to find its columns, and where
# a statement reads it; a DEFAULT's is refused)
_READS_SETTINGS = (st.Query, st.Insert, st.Update, st.Delete, st.Merge, st.Explain, st.CreateView, st.CreateMatview,
                   st.UpdateSettings)


# PostgreSQL's commands whose first word sqlglot reads as a name (the others are its keywords)
_COMMAND_NAMES = frozenset(
    "ABORT CALL CHECKPOINT CLOSE CLUSTER DEALLOCATE DECLARE DISCARD DO EXECUTE IMPORT LISTEN MOVE NOTIFY "
    "PREPARE REASSIGN REFRESH REINDEX RELEASE RESET SAVEPOINT SECURITY START UNLISTEN".split())


def _no_command(text: str, failed_at: int | None) -> tuple[str, int] | None:
    """The first word of a statement that begins with no command (``SELEC 2``) and its
    position, if one does before where sqlglot failed: PostgreSQL's grammar fails at that word
    (sqlglot read it as a column name and failed further on, at "2")."""
    try:
        tokens = Txlake().tokenize(text)
    except TokenError:
        return None
    starts = True
    for token in tokens:
        if failed_at is not None and token.start + 1 > failed_at:
            return None
        if starts and token.token_type == TokenType.VAR and token.text.upper() not in _COMMAND_NAMES:
            return token.text, token.start + 1
        starts = token.token_type == TokenType.SEMICOLON
    return None


def _syntax_message(description: str, highlight: str | None) -> str:
    """PostgreSQL's ``syntax error at or near "X"`` (or ``at end of input``), with sqlglot's
    description of what it expected when that reads as words (not its class or token reprs)."""
    if description.startswith("at "):  # (the txlake parser's own: it says where already)
        return f"syntax error {description}"
    where = "at end of input" if "SENTINEL" in description else \
        f'at or near "{highlight}"' if highlight else ""
    hint = description.split(" but got ")[0]
    if "<" in hint or hint.startswith("Invalid expression / Unexpected token"):
        hint = ""
    return " ".join(part for part in ("syntax error", where, f"({hint[:1].lower() + hint[1:]})" if hint else "")
                    if part)


def _with(stmt: st.Statement, **changes) -> st.Statement:
    for key, value in changes.items():
        object.__setattr__(stmt, key, value)
    return stmt


def _source_text(tree: exp.Expression) -> str:
    if isinstance(tree, Control):
        return tree.args["kind"].replace("_", " ")
    return tree.sql(dialect=Txlake)


def _syntax_error(message: str, node: exp.Expression, *, after: bool = False) -> errors.SyntaxError:
    """42601 for a tree sqlglot accepted but that is no valid statement, positioned (1-based)
    at ``node``'s first token - or just after its last one when something is missing there."""
    spans = [(n.meta["start"], n.meta["end"]) for n in node.walk() if "start" in n.meta]
    if not spans:
        return errors.SyntaxError(message)
    position = max(end for _, end in spans) + 2 if after else min(start for start, _ in spans) + 1
    return errors.SyntaxError(message, position=position)


def _offset(text: str, line: int | None, col: int | None, token: str | None) -> int | None:
    """The 1-based offset of the offending token's first character, as PostgreSQL reports it
    (sqlglot gives the line and the column of the token's last character)."""
    if not line or col is None:
        return None
    if token and "\n" not in token:
        col = max(col - len(token) + 1, 1)
    lines = text.split("\n")
    return sum(len(text_line) + 1 for text_line in lines[: line - 1]) + col


# what an unknown relation's or column's error names, as its qualified name's parts; the
# missing FROM-clause entry is the qualifier of a column (a dot follows it)
_NAMED = (re.compile(r'^relation "(?P<a>[^"]+)" does not exist'),
          re.compile(r'^column "(?P<a>[^"]+)"(?: of relation "[^"]+")? does not exist'),
          re.compile(r'^column (?P<a>\S+) does not exist'),
          re.compile(r'^missing FROM-clause entry for table "(?P<a>[^"]+)"'))


def named_position(text: str, message: str) -> int | None:
    """Where ``text`` names the relation or column an error ``message`` says does not exist:
    the 1-based offset of its first reference, as PostgreSQL reports it (None if not found). A
    reference is not part of a longer dotted name; names match regardless of case."""
    found = next((m for m in (p.match(message) for p in _NAMED) if m is not None), None)
    if found is None:
        return None
    parts = found["a"].lower().split(".")
    try:
        tokens = Txlake().tokenize(text)
    except TokenError:
        return None
    words = (sqlglot.TokenType.VAR, sqlglot.TokenType.IDENTIFIER)
    span = 2 * len(parts) - 1
    for i in range(len(tokens) - span + 1):
        if i > 0 and tokens[i - 1].token_type == sqlglot.TokenType.DOT:
            continue
        dotted = i + span < len(tokens) and tokens[i + span].token_type == sqlglot.TokenType.DOT
        if dotted != (found.re is _NAMED[-1]):
            continue
        if all(t.token_type in words and t.text.lower() == part for t, part in zip(tokens[i:i + span:2], parts)) \
                and all(t.token_type == sqlglot.TokenType.DOT for t in tokens[i + 1:i + span:2]):
            return tokens[i].start + 1
    return None


# --- conversion from sqlglot trees -------------------------------------------------------

def _to_statement(tree: exp.Expression) -> st.Statement:
    locks = tree.args.get("locks") if isinstance(tree, exp.Select) else None
    if locks:  # SELECT ... FOR UPDATE: the statement says which rows to lock (DuckDB could not)
        tree.set("locks", None)
    nested = next(tree.find_all(exp.Lock), None)
    locking = nested is not None and _locks_only_row_sources(tree)
    if nested is not None and not locking:
        raise errors.NotSupportedError(f"{nested.sql(dialect='postgres').strip()} is supported only on a "
                                       "top-level SELECT, or in a subquery of UPDATE's WHERE or FROM or "
                                       "DELETE's WHERE or USING")
    for node_type, convert in _CONVERTERS.items():
        if isinstance(tree, node_type):
            return _with(convert(tree), locking=True) if locking else convert(tree)
    first = tree
    while isinstance(first, exp.SetOperation):  # (a UNION's INTO is its first SELECT's)
        first = first.this
    into = first.args.get("into") if isinstance(first, exp.Select) else None
    if into is not None:  # SELECT ... INTO t: PostgreSQL's other spelling of CREATE TABLE t AS SELECT
        if locks:
            raise errors.NotSupportedError("SELECT INTO with FOR UPDATE is not supported")
        first.set("into", None)
        return st.CreateTable(table=table_name(into.this), as_query=tree, temporary=bool(into.args.get("temporary")))
    if isinstance(tree, (exp.Query, exp.Values)):
        return _set_config(tree) or st.Query(expression=tree, locks=tuple(locks or ()))
    if isinstance(tree, (exp.Condition, exp.Alias, exp.Star)):  # a bare expression ("START", "SELEC 1")
        raise _syntax_error(f'syntax error at or near "{tree.sql()}"', tree)
    if isinstance(tree, exp.Command) and tree.name.upper() == "EXPLAIN":
        return _explain(tree.expression.name if tree.expression is not None else "")
    if isinstance(tree, exp.Command) and tree.name.upper() == "VACUUM":
        return _vacuum(tree.expression.name if tree.expression is not None else "")
    if isinstance(tree, exp.Analyze) and set(k for k, v in tree.args.items() if v) <= {"tables", "options", "this"}:
        if any(str(o).upper() not in ("VERBOSE", "SKIP_LOCKED") for o in tree.args.get("options") or ()):
            raise errors.SyntaxError(f"unrecognized ANALYZE option in: {tree.sql(dialect='postgres')}")
        tables = tree.args.get("tables") or ([tree.this] if isinstance(tree.this, exp.Table) else [])
        return st.Vacuum(tables=tuple(table_name(t) for t in tables), analyze=True)
    if isinstance(tree, exp.Command):
        rest = tree.expression if isinstance(tree.expression, str) else getattr(tree.expression, "name", "")
        raise errors.NotSupportedError(_unsupported(tree.name, rest))
    words = tree.sql(dialect="postgres").split()  # (as written: GRANT, ANALYZE)
    if not words:
        raise errors.NotSupportedError(f"statement not supported: {tree.key.upper()}")
    raise errors.NotSupportedError(_unsupported(words[0], " ".join(words[1:])))


# the words naming what a CREATE / ALTER / DROP that txlake does not know makes (CREATE [OR
# REPLACE] FUNCTION, CREATE EVENT TRIGGER, ...), and why there is none of it, by its last word
_OBJECT_WORDS = frozenset("OR REPLACE CONSTRAINT EVENT TRIGGER FUNCTION PROCEDURE AGGREGATE RULE EXTENSION POLICY "
                          "TYPE DOMAIN OPERATOR CAST COLLATION CONVERSION TRUSTED PROCEDURAL LANGUAGE PUBLICATION "
                          "SUBSCRIPTION ROLE USER GROUP SERVER FOREIGN DATA WRAPPER TEXT SEARCH CONFIGURATION "
                          "DICTIONARY PARSER TEMPLATE STATISTICS TRANSFORM ACCESS METHOD TABLESPACE DATABASE "
                          "MATERIALIZED".split())
_NO_STORED_CODE = "txlake runs functions and procedures of LANGUAGE sql and plpgsql, triggers and DO blocks only"
_WHY_NONE = {"FUNCTION": "CREATE OR REPLACE FUNCTION changes a function's body and attributes",
             "PROCEDURE": _NO_STORED_CODE, "TRIGGER": _NO_STORED_CODE, "AGGREGATE": _NO_STORED_CODE,
             "RULE": _NO_STORED_CODE, "LANGUAGE": _NO_STORED_CODE,
             "EXTENSION": "txlake has no extensions (uuid-ossp's uuid_generate_v4() and pgcrypto's "
                          "gen_random_uuid() are built in)",
             "ROLE": "txlake has no roles", "USER": "txlake has no roles", "GROUP": "txlake has no roles",
             "DATABASE": "a warehouse is txlake's database", "TABLESPACE": "txlake has no tablespaces",
             "TYPE": "txlake's user-defined types are enums (CREATE TYPE ... AS ENUM), composite types (CREATE TYPE "
                     "... AS (...)) and domains"}


def _unsupported(first: str, rest: str) -> str:
    """0A000's message for a statement txlake does not take, whose first word is ``first``: what
    it would make, as written (``CREATE AGGREGATE is not supported: txlake runs functions and procedures ...``),
    else that word."""
    first, words = first.upper(), rest.upper().split()
    if first not in ("CREATE", "ALTER", "DROP") or not words or words[0] not in _OBJECT_WORDS:
        return f"statement not supported: {first}"
    kind = [first]
    for word in words:
        if word not in _OBJECT_WORDS:
            break
        kind.append(word)
    why = _WHY_NONE.get(kind[-1])
    return f"{' '.join(kind)} is not supported" + (f": {why}" if why else "")


def _set_config(tree: exp.Expression) -> st.SetVariable | None:
    """``SELECT [pg_catalog.]set_config('name', 'value', is_local)`` alone, with constants, as
    pg_dump's scripts open (``set_config('search_path', '', false)``): the SET it means. Other
    uses of set_config are left to the query (DuckDB has none: 42883)."""
    if not isinstance(tree, exp.Select) or len(tree.expressions) != 1 or \
            any(tree.args.get(k) for k in tree.args if k != "expressions"):
        return None
    call = tree.expressions[0].unalias()
    if isinstance(call, exp.Dot) and call.this.name.lower() == "pg_catalog":
        call = call.expression
    if not (isinstance(call, exp.Anonymous) and call.name.lower() == "set_config" and len(call.expressions) == 3):
        return None
    name, value, local = call.expressions
    if not (isinstance(name, exp.Literal) and name.is_string and isinstance(value, exp.Literal) and value.is_string
            and isinstance(local, exp.Boolean)):
        return None
    return st.SetVariable(name=name.name, value=value.name, local=local.this, function=True)


# EXPLAIN's options: ANALYZE and VERBOSE as words, or a parenthesized list (name [value], ...)
_EXPLAIN_WORDS = re.compile(r"\s*(ANALYZE|ANALYSE|VERBOSE)\b", re.IGNORECASE)
_EXPLAIN_OPTIONS = ("analyze", "analyse", "verbose", "costs", "settings", "buffers", "wal", "timing", "summary",
                    "format", "generic_plan", "memory", "serialize")


def _locks_only_row_sources(tree: exp.Expression) -> bool:
    """Is every locking clause of ``tree`` on a SELECT in an UPDATE's WHERE or FROM, or a
    DELETE's WHERE or USING (a job queue's ``WHERE id IN (SELECT ... FOR UPDATE SKIP LOCKED)``,
    a CTE named in FROM) - where the executor runs it first, locking its rows?"""
    if not isinstance(tree, (exp.Update, exp.Delete)):
        return False
    parts = [tree.args.get(k) for k in ("where", "from_", "from", "joins", "using")]
    inside = {id(n) for part in parts for item in (part if isinstance(part, list) else [part])
              if isinstance(item, exp.Expression) for n in item.walk()}
    return all(id(lock) in inside for lock in tree.find_all(exp.Lock))


def _explain(rest: str) -> st.Explain:
    """EXPLAIN [ANALYZE] [VERBOSE] query, or EXPLAIN (option [value], ...) query, as PostgreSQL
    takes them; only queries (EXPLAIN of INSERT, UPDATE or DELETE would run or plan the write:
    refused). Options other than ANALYZE change nothing but a FORMAT other than TEXT, refused."""
    analyze = False
    if rest.lstrip().startswith("("):
        inside, _, rest = rest.lstrip()[1:].partition(")")
        for option in filter(None, (o.strip() for o in inside.split(","))):
            name, _, value = option.partition(" ")
            name, value = name.lower(), value.strip().strip("'").lower()
            if name not in _EXPLAIN_OPTIONS:
                raise errors.SyntaxError(f'unrecognized EXPLAIN option "{name}"')
            if name == "format" and value != "text":
                raise errors.NotSupportedError(f"EXPLAIN (FORMAT {value.upper()}) is not supported: FORMAT TEXT is")
            if name in ("analyze", "analyse"):
                analyze = value not in ("false", "off", "0")
    else:
        while (word := _EXPLAIN_WORDS.match(rest)) is not None:
            analyze = analyze or word.group(1).upper() != "VERBOSE"
            rest = rest[word.end():]
    statements = parse(rest)
    if len(statements) != 1:
        raise errors.SyntaxError("EXPLAIN takes one statement")
    query = statements[0]
    if isinstance(query, st.WithWrites):
        raise errors.NotSupportedError("EXPLAIN of a statement with a data-modifying WITH is not supported: "
                                       "of queries only")
    if not isinstance(query, st.Query):
        raise errors.NotSupportedError(f"EXPLAIN of {type(query).__name__.upper()} is not supported: of queries only")
    return st.Explain(query=query, analyze=analyze, param_count=query.param_count,
                      system_columns=query.system_columns)


_CONTROL_TYPES = {
    "COMMIT": st.Commit, "ROLLBACK": st.Rollback,
}


def _control(node: Control) -> st.Statement:
    kind = node.args["kind"]
    a = node.args
    if kind == "BEGIN":
        return st.Begin(isolation=a.get("isolation"), read_only=a.get("read_only"), label=a.get("label"))
    if kind in _CONTROL_TYPES:
        return _CONTROL_TYPES[kind]()
    if kind == "SAVEPOINT":
        return st.Savepoint(name=a["name"])
    if kind == "ROLLBACK_TO":
        return st.RollbackToSavepoint(name=a["name"])
    if kind == "RELEASE":
        return st.ReleaseSavepoint(name=a["name"])
    if kind in ("SET_TRANSACTION", "SET_SESSION_CHARACTERISTICS"):
        return st.SetTransaction(isolation=a.get("isolation"), read_only=a.get("read_only"),
                                 session=kind == "SET_SESSION_CHARACTERISTICS")
    if kind == "SET_CONSTRAINTS":
        names = a.get("name")
        return st.SetConstraints(names=None if names is None else tuple(table_name(n) for n in names),
                                 deferred=a["value"] == "DEFERRED")
    if kind == "SET":
        return st.SetVariable(name=a["name"], value=a.get("value"), local=bool(a.get("local")))
    if kind == "SHOW":
        return st.Show(name=a["name"])
    if kind == "CALL":
        values = a.get("value") or []
        args = tuple(v for v in values if not isinstance(v, exp.Kwarg))
        kwargs = tuple((v.this.name.lower(), v.expression) for v in values if isinstance(v, exp.Kwarg))
        names = [name for name, _ in kwargs]
        if len(set(names)) != len(names):
            raise errors.SyntaxError(f"argument name used more than once in CALL {a['name']}")
        return st.Call(procedure=a["name"], args=args, kwargs=kwargs)
    if kind == "PREPARE":
        return _prepare(a["name"], a["value"], a.get("types") or ())
    if kind == "EXECUTE":
        args = tuple(v.this for v in a.get("value") or ())
        counts = tuple(_placeholder_count(arg) for arg in args)
        return st.Execute(name=a["name"], args=args, arg_params=counts, param_count=sum(counts))
    if kind == "DEALLOCATE":
        return st.Deallocate(name=a.get("name"))
    if kind == "DISCARD":
        return st.Discard(what=a["name"])
    if kind == "DO":
        return st.Do(code=a["value"], language=a["name"])
    if kind == "LISTEN":
        return st.Listen(channel=a["name"])
    if kind == "UNLISTEN":
        return st.Unlisten(channel=a.get("name"))
    if kind == "NOTIFY":
        return st.Notify(channel=a["name"], payload=a.get("value") or "")
    if kind == "PREPARE_TRANSACTION":
        return st.PrepareTransaction(gid=a["label"])
    if kind == "COMMIT_PREPARED":
        return st.CommitPrepared(gid=a["label"])
    if kind == "ROLLBACK_PREPARED":
        return st.RollbackPrepared(gid=a["label"])
    if kind == "NO_EFFECT":
        return st.NoEffect(tag=a["name"], notice=a.get("value"))
    raise errors.NotSupportedError(f"statement not supported: {kind}")


def _cursor_command(tree: CursorCommand) -> st.Statement:
    a = tree.args
    if a["kind"] == "CLOSE":
        return st.CloseCursor(name=a.get("this"))
    if a["kind"] in ("FETCH", "MOVE"):
        return st.FetchCursor(name=a["this"], direction=a["direction"], count=a["count"], move=a["kind"] == "MOVE")
    return _declare(a["this"], a.get("options") or (), bool(a.get("hold")), a["query"], a["start"])


def _declare(name: str, options, hold: bool, text: str, start: int) -> st.DeclareCursor:
    """DECLARE's query, checked as PostgreSQL's transformDeclareCursorStmt checks it: a query
    (SELECT, VALUES, WITH, TABLE: 42601 for anything else, as its grammar), no data-modifying
    WITH (0A000). BINARY is refused (0A000: txlake sends no binary format), and FOR UPDATE /
    FOR SHARE (0A000: PostgreSQL locks each row as FETCH first reaches it, txlake's cursor
    reads all its rows at DECLARE - locking them all then would block others that PostgreSQL
    lets through)."""
    for one, other in (("SCROLL", "NO SCROLL"), ("ASENSITIVE", "INSENSITIVE")):
        if one in options and other in options:
            raise errors.ProgrammingError(f"cannot specify both {one} and {other}", sqlstate="42P11")
    try:
        statements = parse(text)
    except errors.SyntaxError as e:
        raise errors.SyntaxError(str(e), position=e.position + start if e.position is not None else None) from None
    query = statements[0] if len(statements) == 1 else None
    if isinstance(query, st.WithWrites):
        raise errors.NotSupportedError("DECLARE CURSOR must not contain data-modifying statements in WITH")
    if not isinstance(query, st.Query):
        word = text.split(None, 1)[0] if text.strip() else ""
        raise errors.SyntaxError(f'syntax error at or near "{word}"', position=start + 1)
    if "BINARY" in options:
        raise errors.NotSupportedError("DECLARE BINARY CURSOR is not supported: txlake has no binary format "
                                       "(fetch_arrow_table() gives a result as Arrow)")
    if query.locks:
        raise errors.NotSupportedError(f"DECLARE CURSOR ... {query.locks[0].sql(dialect='postgres').strip()} is not "
                                       "supported: txlake's cursor reads its rows at DECLARE, where PostgreSQL locks "
                                       "each as FETCH reaches it")
    return st.DeclareCursor(name=name, query=replace(query, offset=query.offset + start),
                            scroll="NO SCROLL" not in options, hold=hold, param_count=query.param_count,
                            system_columns=query.system_columns)


def _comment(tree: CommentOn) -> st.Comment:
    name = tree.args.get("name")
    return st.Comment(kind=tree.args["kind"], target=table_name(tree.this), comment=tree.args.get("text"),
                      name=_check_name(identifier(name), tree.args["kind"].lower()) if name is not None else None)


def _prepare(name: str, text: str, types) -> st.Prepare:
    """PREPARE's statement as text, with the spans of its parameters ``$1``, ``$2``, ... (a
    ``$`` token and a number just after it); ``?`` is refused there, as PostgreSQL has none."""
    tokens = Txlake().tokenize(text)
    params = []
    for dollar, number in zip(tokens, tokens[1:]):
        if dollar.token_type == TokenType.PARAMETER and number.token_type == TokenType.NUMBER \
                and number.start == dollar.end + 1 and number.text.isdigit():
            params.append((dollar.start, number.end, int(number.text)))
        elif dollar.token_type == TokenType.PLACEHOLDER:
            raise errors.SyntaxError('syntax error at or near "?": PREPARE takes parameters $1, $2, ...')
    if any(n < 1 for _, _, n in params):
        raise errors.ProgrammingError(f'there is no parameter ${min(n for _, _, n in params)}', sqlstate="42P02")
    return st.Prepare(name=name, statement=text, params=tuple(params),
                      types=tuple(t.sql(dialect=Txlake) for t in types))


def _placeholder_count(text: str) -> int:
    return sum(1 for token in Txlake().tokenize(text) if token.token_type == TokenType.PLACEHOLDER)


def identifier(node: exp.Expression | str) -> str:
    """An identifier's name, lower-cased unless it was quoted."""
    if isinstance(node, str):
        return node.lower()
    if isinstance(node, exp.Identifier):
        return node.this if node.quoted else node.this.lower()
    if isinstance(node, exp.Column):
        return identifier(node.this)
    return node.name.lower()


def cte_names(node: exp.Expression) -> set[str]:
    """The names of the WITH items in ``node``, as a table reference names them (a quoted one
    keeps its case: ``identifier`` of the alias's text lower-cased ``"R"``, which then named no
    WITH item but a table - 42P01)."""
    return {identifier(c.args["alias"].this) for c in node.find_all(exp.CTE) if c.args.get("alias")}


_DATA_MODIFYING_WITH = "a data-modifying statement in WITH is not supported"
_WRITES = (exp.Insert, exp.Update, exp.Delete, exp.Merge)


def _modifying_ctes(tree: exp.Expression) -> bool:
    """Does the statement have data-modifying CTEs - in the WITH of a SELECT, INSERT, UPDATE or
    DELETE (PostgreSQL's places for them)? One anywhere else is 0A000, as PostgreSQL refuses it."""
    if not isinstance(tree, (exp.Query, *_WRITES, exp.Create)):
        return False
    found = [cte for cte in tree.find_all(exp.CTE) if isinstance(cte.this, _WRITES)]
    if not found:
        return False
    top = tree.args.get("with_") if isinstance(tree, (exp.Query, *_WRITES)) else None
    if top is None or any(cte.parent is not top for cte in found):
        raise errors.NotSupportedError("WITH clause containing a data-modifying statement must be at the top level")
    return True


def _with_writes(tree: exp.Expression) -> st.WithWrites:
    """``WITH ... AS (INSERT / UPDATE / DELETE ...) main`` as its parts: each data-modifying
    CTE's statement, the plain CTEs before it put where it names them (_inline_ctes), and the
    main statement, holding the plain CTEs (a query keeps them in its WITH). A data-modifying
    CTE's name stays a table reference in the later parts: the engine reads its RETURNING rows
    there. Each part takes the statement's parameters of its ``?`` (tagged in text order)."""
    with_ = tree.args["with_"]
    if with_.args.get("recursive"):
        raise errors.NotSupportedError("WITH RECURSIVE with a data-modifying statement is not supported")
    if isinstance(tree, exp.Select) and tree.args.get("into") is not None:
        raise errors.NotSupportedError("SELECT INTO with a data-modifying statement in WITH is not supported")
    ctes = list(with_.expressions)
    plain, writes = [], []
    for i, cte in enumerate(ctes):
        alias = cte.args["alias"]
        if isinstance(cte.this, exp.Query):
            plain.append(cte)
            continue
        name = identifier(alias.this)
        if isinstance(cte.this, exp.Merge):  # (PostgreSQL 16: MERGE has no RETURNING)
            raise errors.NotSupportedError("MERGE not supported in WITH query")
        returning = bool(cte.this.args.get("returning"))
        if not returning and any(_names(later, name) for later in [*(c.this for c in ctes[i + 1:]), tree]
                                 if later is not with_):
            raise errors.NotSupportedError(f'WITH query "{name}" does not have a RETURNING clause')
        writes.append(st.CteWrite(name=name, statement=_part(cte.this.copy(), plain), returning=returning,
                                  columns=tuple(identifier(c) for c in alias.args.get("columns") or ())))
    main = tree.copy()
    main.set("with_", None)
    if isinstance(main, exp.Query):
        if plain:
            main.set("with_", exp.With(expressions=[c.copy() for c in plain]))
        plain = []
    return st.WithWrites(writes=tuple(writes), main=_part(main, plain))


def _names(tree: exp.Expression, name: str) -> bool:
    return any(not t.args.get("db") and isinstance(t.this, exp.Identifier) and identifier(t.this) == name
               for t in tree.find_all(exp.Table))


def _part(tree: exp.Expression, plain: list[exp.CTE]) -> st.Statement:
    """One statement of a WITH holding data-modifying CTEs, with the ``plain`` CTEs before it
    inlined (and its own WITH's); ``param_order``: the statement's parameters it takes."""
    if isinstance(tree, _WRITES):
        own = tree.args.get("with_")
        ctes = [c.copy() for c in plain] + (list(own.expressions) if own is not None else [])
        if ctes:
            tree.set("with_", exp.With(expressions=ctes))
            tree = _inline_ctes(tree)
    order = tuple(p.meta[_PARAM_INDEX] for p in placeholders_in_sql_order(tree))
    stmt = _to_statement(tree)
    if not isinstance(stmt, (st.Query, st.Insert, st.Update, st.Delete)):
        raise errors.NotSupportedError(f"{type(stmt).__name__.upper()} with a data-modifying statement in WITH "
                                       "is not supported")
    return _with(stmt, param_count=len(order), param_order=order, text=tree.sql(dialect=Txlake),
                 reads_settings=_calls_current_setting(tree))


def _inline_ctes(tree: exp.Expression) -> exp.Expression:
    """``WITH src AS (...) INSERT / UPDATE / DELETE ...``: each CTE becomes a subquery where the
    statement (or a later CTE) names it - the statement then reads as its FROM, USING, WHERE
    or INSERT's query already do. Recursive and data-modifying CTEs are refused (0A000). (A
    CTE's ``?`` move where it is named - once per naming, or nowhere: see _parse_cached.)"""
    with_ = tree.args["with_"]
    if with_.args.get("recursive"):
        raise errors.NotSupportedError("WITH RECURSIVE before INSERT, UPDATE or DELETE is not supported")
    target = tree.this.this if isinstance(tree.this, exp.Schema) else tree.this
    bodies: dict[str, tuple[exp.Expression, exp.TableAlias]] = {}
    for cte in with_.expressions:
        if not isinstance(cte.this, exp.Query):
            raise errors.NotSupportedError(_DATA_MODIFYING_WITH)
        body = ctes_inlined(cte.this.copy(), bodies, None)
        bodies[identifier(cte.args["alias"].this)] = (body, cte.args["alias"])
    tree.set("with_", None)
    return ctes_inlined(tree, bodies, target)


# VACUUM's options (PostgreSQL 16): each compacts the tables as plain VACUUM does
_VACUUM_OPTIONS = frozenset("FULL FREEZE VERBOSE ANALYZE DISABLE_PAGE_SKIPPING SKIP_LOCKED INDEX_CLEANUP PROCESS_MAIN "
                            "PROCESS_TOAST TRUNCATE PARALLEL SKIP_DATABASE_STATS ONLY_DATABASE_STATS "
                            "BUFFER_USAGE_LIMIT".split())


def _vacuum(text: str) -> st.Vacuum:
    """``VACUUM [(option [value], ...)] [FULL] [FREEZE] [VERBOSE] [ANALYZE] [table [(columns)], ...]``."""
    rest = text.strip()
    if rest.startswith("("):
        options, _, rest = rest[1:].partition(")")
        words = [o.split()[0].upper() for o in options.split(",") if o.strip()]
    else:
        words = []
        while rest.split() and rest.split()[0].upper() in ("FULL", "FREEZE", "VERBOSE", "ANALYZE", "ANALYSE"):
            words.append(rest.split()[0].upper())
            rest = rest.strip()[len(rest.split()[0]):]
    unknown = [w for w in words if w not in _VACUUM_OPTIONS | {"ANALYSE"}]
    if unknown:
        raise errors.SyntaxError(f'unrecognized VACUUM option "{unknown[0].lower()}"')
    names = re.sub(r"\([^)]*\)", "", rest)  # (ANALYZE's column lists: every column is analyzed)
    return st.Vacuum(tables=tuple(parse_table_name(n.strip()) for n in names.split(",") if n.strip()))


_PARAM_INDEX = st.PARAM_INDEX
_MARK = "txlake_param_7f3a_"


def _placeholders_in_text_order(tree: exp.Expression) -> list[exp.Placeholder]:
    """The ``?`` of ``tree`` in the order the statement's text holds them, where the parser
    saw each (parser/dialect.py): the order the caller's parameters are in."""
    found = [p for p in tree.find_all(exp.Placeholder) if not p.this]
    return sorted(found, key=lambda p: p.meta.get("start", -1)) if len(found) > 1 else found


def placeholders_in_sql_order(tree: exp.Expression) -> list[exp.Placeholder]:
    """The ``?`` of ``tree`` in the order its SQL holds them - the order they bind in (the
    tree's own order is not always the SQL's: a SELECT's WITH comes first in the text)."""
    found = list(tree.find_all(exp.Placeholder))
    if len(found) < 2:
        return found
    marked = tree.copy()
    for i, placeholder in enumerate(list(marked.find_all(exp.Placeholder))):
        placeholder.replace(exp.Placeholder(this=f"{_MARK}{i}"))
    order = [int(i) for i in re.findall(_MARK + r"(\d+)", marked.sql(dialect=Txlake))]
    return [found[i] for i in order]


def ctes_inlined(node: exp.Expression, bodies: dict, target: exp.Expression | None) -> exp.Expression:
    """``node`` (changed in place) with each table reference (but ``target``) naming one of
    ``bodies`` - name: (query or table function, the CTE's alias) - as that query (a subquery)
    or function, aliased as the reference is, its columns named as the reference names them,
    else as the CTE does."""
    for table in list(node.find_all(exp.Table)):
        if table is target or table.args.get("db") or not isinstance(table.this, exp.Identifier):
            continue
        name = identifier(table.this)
        if name in bodies:
            body, alias = bodies[name]
            own = table.args.get("alias")
            columns = [c.copy() for c in (own is not None and own.args.get("columns") or alias.args.get("columns")
                                          or ())]
            named = exp.TableAlias(this=exp.to_identifier(table.alias or name), columns=columns)
            replacement = body.copy()
            if isinstance(replacement, exp.Table):
                replacement.set("alias", named)
            else:
                replacement = exp.Subquery(this=replacement, alias=named)
            if table is node:
                return replacement
            table.replace(replacement)
    return node


def _check_table_names(tree: exp.Expression) -> None:
    """Refuse path-like names (42602) in every table reference of a statement - targets,
    sources, subqueries, CTAS queries, UPDATE ... FROM, DELETE ... USING - before it runs."""
    for table in tree.find_all(exp.Table):
        if table.name:
            table_name(table)


def _check_name(name: str, what: str) -> str:
    if not name or "/" in name or "\\" in name or "\x00" in name or name.startswith(".") or ".." in name:
        raise errors.InvalidName(f'invalid {what} name "{name}"')
    return name


def table_name(node: exp.Table) -> st.TableName:
    if node.catalog:
        raise errors.NotSupportedError(f"three-part table names are not supported: {node.sql()}")
    db = identifier(node.args["db"]) if node.args.get("db") else None
    name = _check_name(identifier(node.this), "table")
    if db is not None:
        _check_name(db, "database")
        db = st.schema_database(db)
    return st.TableName(db, name)


def parse_table_name(text: str) -> st.TableName:
    """A table name given as text (``\\d t``, ``txlake_snapshots('db.t')``, a CALL's argument):
    the name and nothing else, or 42602."""
    try:
        node = sqlglot.parse_one(text, into=exp.Table, read=Txlake)
    except (ParseError, TokenError):
        node = None
    if node is None or set(node.args) - {"this", "db", "catalog"} or not isinstance(node.this, exp.Identifier):
        raise errors.InvalidName(f'invalid table name: "{text}"')
    return table_name(node)


# SERIAL types: the integer type each is, with a sequence's numbers as its default
_SERIAL_TYPES = {"SERIAL": "INT", "SERIAL4": "INT", "BIGSERIAL": "BIGINT", "SERIAL8": "BIGINT",
                 "SMALLSERIAL": "SMALLINT", "SERIAL2": "SMALLINT"}


def _column_spec(col: exp.ColumnDef, table: str) -> st.ColumnSpec:
    not_null = primary_key = always = by_default = False
    options, constraints = (), []
    default = sequence = generated = None
    name = _check_name(identifier(col.this), "column")
    col_type = col.args.get("kind")
    if col_type is None:
        raise _syntax_error(f'column "{col.name}" needs a type', col)
    serial = _SERIAL_TYPES.get(str(col_type.args.get("kind") or "").upper()) \
        if col_type.this == exp.DType.USERDEFINED else None
    for constraint in col.args.get("constraints") or ():
        kind = constraint.args.get("kind")
        if isinstance(kind, exp.NotNullColumnConstraint):
            not_null = not kind.args.get("allow_null")
        elif isinstance(kind, exp.PrimaryKeyColumnConstraint):
            _refuse_key_options(kind)
            primary_key = not_null = True
            if constraint.this is not None:  # (CONSTRAINT name PRIMARY KEY: CREATE TABLE takes the name)
                col.meta["primary_key_name"] = _check_name(identifier(constraint.this), "constraint")
        elif isinstance(kind, exp.DefaultColumnConstraint) and serial is None:
            default = _default(kind.this)
        elif isinstance(kind, exp.GeneratedAsIdentityColumnConstraint) and kind.this in (False, True) \
                and not any(v for k, v in kind.args.items() if k != "this") and serial is None and default is None:
            # GENERATED BY DEFAULT AS IDENTITY: as SERIAL; ALWAYS: and values given are refused
            sequence, always, by_default, options = _identity(kind, table, name)
        elif isinstance(kind, exp.ComputedColumnConstraint):
            if kind.meta.get("by_default"):
                raise errors.SyntaxError("for a generated column, GENERATED ALWAYS must be specified")
            if generated is not None:
                raise errors.SyntaxError(f'multiple generation clauses specified for column "{name}" of table '
                                         f'"{table}"')
            generated = kind.meta.get(_WRITTEN, kind.this)
            _refuse_parameter(generated)
        elif isinstance(kind, ConstraintTiming):  # (one after a REFERENCES / UNIQUE is among its options)
            raise errors.SyntaxError(f"misplaced {kind.this} clause")
        elif isinstance(kind, (exp.CheckColumnConstraint, exp.UniqueColumnConstraint, exp.Reference)):
            constraints.append(_constraint_spec(kind, constraint.this, name))
        elif kind is not None and not isinstance(kind, exp.NotNullColumnConstraint):
            # identity options (START WITH ...), COLLATE, ...: refused, never ignored
            raise errors.NotSupportedError(f"column constraint not supported: {constraint.sql()}")
    if generated is not None and (default is not None or serial is not None or sequence is not None):
        what = "identity" if sequence is not None and serial is None else "default"
        raise errors.SyntaxError(f'both {what} and generation expression specified for column "{name}" of table '
                                 f'"{table}"')
    if serial is not None:
        col_type, sequence = exp.DataType.build(serial), sequence_name(table, name)
    if sequence is not None:  # (numbered by nextval: the executor qualifies the name with the database)
        not_null, default = True, exp.Anonymous(this="nextval", expressions=[exp.Literal.string(sequence)])
    return st.ColumnSpec(name=name, type=col_type, not_null=not_null, default=default, primary_key=primary_key,
                         sequence=sequence, always=always, by_default=by_default, sequence_options=options,
                         constraints=tuple(constraints), generated=generated)


def _identity(node: exp.GeneratedAsIdentityColumnConstraint, table: str, column: str):
    """An identity column's (sequence name, always, by default, sequence options): the sequence
    is named by its ``SEQUENCE NAME`` option (in the table's schema), else ``t_c_seq``."""
    options = sequence_options(node.meta.get("sequence_options") or ())
    if any(option in ("type", "restart") for option, _ in options):
        raise errors.SyntaxError("an identity column's sequence takes the column's type and no RESTART")
    named = dict(options).get("sequence_name")
    options = tuple((option, value) for option, value in options if option != "sequence_name")
    return named.name if named is not None else sequence_name(table, column), node.this, not node.this, options


def _refuse_parameter(node: exp.Expression) -> None:
    """42P02 for a ``?`` in an expression a table keeps (a CHECK's, a generated column's): no
    value binds it."""
    if (placeholder := node.find(exp.Placeholder)) is not None:
        number = placeholder.name if placeholder.name.isdigit() else 1
        raise errors.ProgrammingError(f"there is no parameter ${number}", sqlstate="42P02")


_ACTIONS = ("NO ACTION", "RESTRICT", "CASCADE", "SET NULL", "SET DEFAULT")


def _constraint_spec(node: exp.Expression, name: exp.Identifier | None, column: str | None = None,
                     timing=()) -> st.ConstraintSpec:
    """The CHECK, UNIQUE or FOREIGN KEY constraint ``node`` (of the column ``column``, else of
    the table), named ``name`` or unnamed; ``timing``: a table constraint's attributes written
    apart from it (``_table_constraint``). Anything else (NO INHERIT, ...) is refused (0A000),
    never ignored."""
    name = _check_name(identifier(name), "constraint") if name is not None else None
    if isinstance(node, exp.CheckColumnConstraint):
        if _timing(timing, column is not None)[0]:  # (NOT DEFERRABLE / INITIALLY IMMEDIATE: what it is)
            raise errors.NotSupportedError("CHECK constraints cannot be marked DEFERRABLE")
        if node.find(exp.Select, exp.Subquery) is not None:
            raise errors.NotSupportedError("cannot use subquery in check constraint")
        _refuse_parameter(node)
        return st.CheckSpec(name=name, expression=node.meta.get(_WRITTEN, node.this), column=column)
    if isinstance(node, exp.UniqueColumnConstraint):
        options = node.args.get("options") or []
        if set(k for k, v in node.args.items() if v) - {"this", "nulls", "options"} \
                or not all(o in _TIMING_WORDS for o in options):
            raise errors.NotSupportedError(f"constraint not supported: {node.sql(dialect='postgres')}")
        if isinstance(node.this, exp.Identifier):
            raise _syntax_error(f'syntax error at or near "{node.this.name}"', node.this)
        columns = tuple(identifier(c) for c in node.this.expressions) if node.this is not None else (column,)
        deferrable, deferred = _timing([*options, *timing], column is not None)
        return st.UniqueSpec(name=name, columns=columns, nulls_not_distinct=bool(node.args.get("nulls")),
                             deferrable=deferrable, initially_deferred=deferred)
    if isinstance(node, exp.PrimaryKey) and column is None:  # (ALTER TABLE ... ADD PRIMARY KEY (...))
        _refuse_key_options(node, timing)
        return st.PrimaryKeySpec(name=name, columns=tuple(identifier(c) for c in node.expressions))
    if isinstance(node, exp.ForeignKey):
        if set(k for k, v in node.args.items() if v) - {"expressions", "reference"}:
            raise errors.NotSupportedError(f"constraint not supported: {node.sql(dialect='postgres')}")
        spec = _constraint_spec(node.args["reference"], name, timing=timing)
        return replace(spec, columns=tuple(identifier(c) for c in node.expressions))
    if isinstance(node, exp.Reference):
        target, ref_columns = node.this, ()
        if isinstance(target, exp.Schema):
            target, ref_columns = target.this, tuple(identifier(c) for c in target.expressions)
        actions, match_full, set_columns, event, timed = {}, False, (), None, []
        for option in node.args.get("options") or ():
            if option in _TIMING_WORDS:
                timed.append(option)
                continue
            if isinstance(option, exp.Tuple):  # (the columns of the SET NULL / SET DEFAULT before it)
                if event != "DELETE":
                    raise errors.NotSupportedError(
                        f"a column list with {actions[event]} is only supported for ON DELETE actions")
                set_columns = tuple(dict.fromkeys(identifier(c) for c in option.expressions))
                continue
            words = " ".join(str(option).upper().split())
            event = None
            if words in ("MATCH FULL", "MATCH SIMPLE"):
                match_full = words == "MATCH FULL"
            elif words.startswith(("ON DELETE ", "ON UPDATE ")) and words[10:] in _ACTIONS:
                event = words[3:9]
                actions[event] = words[10:]
            else:  # (MATCH PARTIAL, NOT ENFORCED)
                raise errors.NotSupportedError(f"foreign key option not supported: {option}")
        deferrable, deferred = _timing([*timed, *timing], column is not None)
        return st.ForeignKeySpec(name=name, columns=(column,) if column else (), table=table_name(target),
                                 ref_columns=ref_columns, on_delete=actions.get("DELETE", "NO ACTION"),
                                 on_update=actions.get("UPDATE", "NO ACTION"), match_full=match_full,
                                 delete_set_columns=set_columns, deferrable=deferrable, initially_deferred=deferred)
    raise errors.NotSupportedError(f"constraint not supported: {node.sql(dialect='postgres')}")


def _refuse_key_options(node: exp.PrimaryKey | exp.PrimaryKeyColumnConstraint, timing=()) -> None:
    """0A000 for a PRIMARY KEY with options - DEFERRABLE (txlake's primary key is the rows'
    identity, checked as each row is written), INCLUDE, ...: refused, never ignored. NOT
    DEFERRABLE and INITIALLY IMMEDIATE say what it is."""
    params = node.args.get("include")
    options = node.args.get("options") or []
    if set(k for k, v in node.args.items() if v) - {"expressions", "include", "options"} or (
            params is not None and any(v for k, v in params.args.items() if k != "with_storage")) \
            or not all(o in _TIMING_WORDS for o in options):
        raise errors.NotSupportedError(f"constraint not supported: {node.sql(dialect='postgres')}")
    if _timing([*options, *timing], isinstance(node, exp.PrimaryKeyColumnConstraint))[0]:
        raise errors.NotSupportedError(DEFERRABLE_PRIMARY_KEY)


# PostgreSQL 16 has them: checked at the statement's end (INITIALLY DEFERRED: at COMMIT), never a
# foreign key's referenced key nor an ON CONFLICT arbiter (55000) - what a DEFERRABLE UNIQUE
# constraint over NOT NULL columns is in txlake. Its primary key finds rows by their key and
# writes by key; a key held twice in a transaction is more than a check to move.
DEFERRABLE_PRIMARY_KEY = (
    "DEFERRABLE primary keys are not supported: txlake's primary key is the rows' identity, checked as each "
    "row is written\nHINT:  PostgreSQL checks a DEFERRABLE primary key at the statement's end (INITIALLY "
    "DEFERRED: at COMMIT); declare its columns NOT NULL UNIQUE DEFERRABLE [INITIALLY DEFERRED] instead - "
    "checked so, and as in PostgreSQL no foreign key may reference it nor ON CONFLICT use it as arbiter.")

_TIMING_WORDS = ("DEFERRABLE", "NOT DEFERRABLE", "INITIALLY DEFERRED", "INITIALLY IMMEDIATE")


def _timing(words, column: bool) -> tuple[bool, bool]:
    """(deferrable, initially deferred) of a constraint written with the attributes ``words``
    (``_TIMING_WORDS``), with PostgreSQL's errors (42601) for ones that contradict: a column
    constraint's as its transformConstraintAttrs words them, a table constraint's as its grammar.
    INITIALLY DEFERRED alone makes it DEFERRABLE."""
    deferrable = deferred = None
    for word in words:
        if word.endswith("DEFERRABLE"):
            if deferrable is not None and (column or deferrable != (word == "DEFERRABLE")):
                raise errors.SyntaxError("multiple DEFERRABLE/NOT DEFERRABLE clauses not allowed" if column
                                         else "conflicting constraint properties")
            deferrable = word == "DEFERRABLE"
        else:
            if deferred is not None and (column or deferred != (word == "INITIALLY DEFERRED")):
                raise errors.SyntaxError("multiple INITIALLY IMMEDIATE/DEFERRED clauses not allowed" if column
                                         else "conflicting constraint properties")
            deferred = word == "INITIALLY DEFERRED"
        if deferred and deferrable is False:
            raise errors.SyntaxError("constraint declared INITIALLY DEFERRED must be DEFERRABLE")
    return bool(deferrable or deferred), bool(deferred)


def _table_constraint(item: exp.Expression) -> tuple[exp.Identifier | None, exp.Expression, list[str]]:
    """(name, constraint, attributes written apart from it) of a table constraint of CREATE
    TABLE or ALTER TABLE ADD: ``CONSTRAINT name CHECK (...) DEFERRABLE`` has them among its
    expressions, an unnamed one in its meta (parser/dialect.py ``ConstraintTiming``)."""
    name, timing = None, [t.this for t in item.meta.get("timing", ())]
    if isinstance(item, exp.Constraint):
        made = [e for e in item.expressions if not isinstance(e, ConstraintTiming)]
        if len(made) == 1:
            timing = [e.this for e in item.expressions if isinstance(e, ConstraintTiming)]
            name, item = item.this, made[0]
    return name, item, timing


def _schema_name(node: exp.Expression) -> tuple[str, str]:
    """(the schema's name, the database it is) of CREATE / DROP SCHEMA's target."""
    ident = node.args.get("db") if isinstance(node, exp.Table) else None
    if ident is None or node.name:
        raise errors.NotSupportedError(f"schema name not supported: {node.sql(dialect='postgres')}")
    name = _check_name(identifier(ident), "schema")
    return name, st.schema_database(name)


_WRITTEN = "txlake_written_query"


def _kind(tree: exp.Expression) -> str:
    return (tree.args.get("kind") or "").upper()


def _create_view(tree: exp.Create) -> st.CreateView | st.CreateMatview:
    """``CREATE [OR REPLACE] [[LOCAL] TEMP | TEMPORARY] VIEW name [(columns)] AS query``, or
    ``CREATE MATERIALIZED VIEW [IF NOT EXISTS] name [(columns)] AS query [WITH [NO] DATA]``
    (parser/dialect.py reads it so); other options are refused (0A000), never ignored
    (RECURSIVE and WITH CHECK OPTION do not parse: sqlglot gives a command, refused likewise)."""
    temporary, warning, materialized, no_data = False, _global_temporary(tree), False, False
    for prop in (tree.args.get("properties") or exp.Properties()).expressions:
        if isinstance(prop, (exp.TemporaryProperty, exp.GlobalProperty)):
            temporary = True
        elif isinstance(prop, exp.MaterializedProperty):
            materialized = True
        elif isinstance(prop, exp.WithDataProperty):
            no_data = bool(prop.args.get("no"))
        else:
            raise errors.NotSupportedError(f"CREATE {prop.sql(dialect='postgres')} VIEW is not supported")
    if materialized and (temporary or tree.args.get("replace")):  # (not in PostgreSQL's grammar)
        raise _syntax_error('syntax error at or near "MATERIALIZED"', tree)
    if tree.args.get("exists") and not materialized:  # (PostgreSQL has no CREATE VIEW IF NOT EXISTS)
        raise _syntax_error('syntax error at or near "NOT"', tree)
    query = tree.expression
    if not isinstance(query, exp.Query) or _WRITTEN not in tree.meta:
        raise _syntax_error("syntax error: CREATE VIEW needs AS SELECT ...", tree, after=True)
    target, columns = tree.this, ()
    if isinstance(target, exp.Schema):
        if not all(isinstance(c, exp.Identifier) for c in target.expressions):
            raise _syntax_error("syntax error in the view's column list", target)
        columns = tuple(_check_name(identifier(c), "column") for c in target.expressions)
        target = target.this
    if materialized:
        return st.CreateMatview(view=table_name(target), query=query, written=tree.meta[_WRITTEN], columns=columns,
                                if_not_exists=bool(tree.args.get("exists")), with_no_data=no_data)
    return st.CreateView(view=table_name(target), query=query, written=tree.meta[_WRITTEN], columns=columns,
                         or_replace=bool(tree.args.get("replace")), temporary=temporary, warning=warning)


def _global_temporary(tree: exp.Create) -> str | None:
    """PostgreSQL's WARNING for ``CREATE GLOBAL TEMP[ORARY] TABLE | VIEW``, which it takes as
    LOCAL (None for no GLOBAL); ``GLOBAL`` without ``TEMP`` is a syntax error, as in its grammar."""
    kinds = {type(p) for p in (tree.args.get("properties") or exp.Properties()).expressions}
    if exp.GlobalProperty not in kinds:
        return None
    if exp.TemporaryProperty not in kinds:
        raise _syntax_error(f'syntax error at or near "{_kind(tree)}"', tree)
    return "GLOBAL is deprecated in temporary table creation"


def _create(tree: exp.Create) -> st.Statement:
    if _kind(tree) == "VIEW":
        return _create_view(tree)
    if (tree.args.get("kind") or "").upper() == "SCHEMA":
        return st.CreateSchema(*_schema_name(tree.this), if_not_exists=bool(tree.args.get("exists")))
    if _kind(tree) == "SEQUENCE":  # (CREATE SEQUENCE itself is parser/dialect.py's SequenceCommand)
        raise errors.NotSupportedError("CREATE TEMPORARY or UNLOGGED SEQUENCE is not supported")
    if _kind(tree) == "INDEX":
        return _create_index(tree)
    if (tree.args.get("kind") or "").upper() != "TABLE":
        raise errors.NotSupportedError(_unsupported("CREATE", str(tree.args.get('kind'))))
    if tree.args.get("replace"):
        raise errors.NotSupportedError("CREATE OR REPLACE TABLE is not supported")
    with_no_data, temporary, on_commit, warning = False, False, None, _global_temporary(tree)
    partitioning = {}
    for prop in (tree.args.get("properties") or exp.Properties()).expressions:
        if isinstance(prop, exp.PartitionedByProperty) and tree.expression is None:
            partitioning["partition_by"] = _partition_key(prop)
            continue
        if isinstance(prop, exp.PartitionedOfProperty):
            partitioning.update(_partition_of(prop))
            continue
        # INHERITS: refused, never ignored (UNLOGGED asks for less durability than
        # every table has: taken as it is; so are WITH (fillfactor = 70, ...), which tunes how
        # PostgreSQL stores rows, and USING heap, its one way)
        if type(prop) is exp.Property:
            _storage_parameter(prop, "table")
            continue
        if isinstance(prop, exp.FileFormatProperty):
            if prop.name.lower() != "heap":
                raise errors.UndefinedObject(f'access method "{prop.name}" does not exist')
            continue
        if isinstance(prop, exp.WithDataProperty) and tree.expression is not None:
            with_no_data = bool(prop.args.get("no"))
        elif isinstance(prop, exp.TemporaryProperty):
            temporary = True
        elif isinstance(prop, exp.OnCommitProperty):
            on_commit = "DROP" if prop.args.get("drop") else "DELETE ROWS" if prop.args.get("delete") \
                else "PRESERVE ROWS"
        elif not isinstance(prop, (exp.UnloggedProperty, exp.GlobalProperty)):
            what = _TABLE_PROPERTIES.get(type(prop)) or prop.sql(dialect="postgres")
            raise errors.NotSupportedError(f"CREATE TABLE with {what} is not supported")
    if on_commit is not None and not temporary:
        raise errors.ProgrammingError("ON COMMIT can only be used on temporary tables", sqlstate="42P16")
    temp = {"temporary": True, "on_commit": on_commit or "PRESERVE ROWS", "warning": warning} if temporary else {}
    if partitioning and temporary:  # (PostgreSQL has them; txlake's temporary tables are a session's own)
        raise errors.NotSupportedError("a temporary partitioned table or partition is not supported")
    parent_constraints = partitioning.pop("parent_constraints", None)
    temp.update(partitioning)
    if_not_exists = bool(tree.args.get("exists"))
    target = tree.this
    if parent_constraints is not None:  # (its columns are its parent's; the list holds constraints only)
        return _partition_table(target, parent_constraints, if_not_exists, temp)
    if isinstance(target, exp.Schema) and tree.expression is not None and target.expressions \
            and all(isinstance(item, exp.Identifier) for item in target.expressions):
        return st.CreateTable(table=table_name(target.this), if_not_exists=if_not_exists, as_query=tree.expression,
                              as_names=tuple(_check_name(identifier(i), "column") for i in target.expressions),
                              with_no_data=with_no_data, **temp)
    if isinstance(target, exp.Schema):
        table = table_name(target.this)
        columns, primary_key, constraints, key_name = [], [], [], None
        for item in target.expressions:
            name, item, timing = _table_constraint(item)  # (CONSTRAINT name ...)
            if isinstance(item, exp.ColumnDef):
                columns.append(_column_spec(item, table.name))
            elif isinstance(item, exp.PrimaryKey):
                _refuse_key_options(item, timing)
                primary_key = [identifier(e) for e in item.expressions]
                key_name = _check_name(identifier(name), "constraint") if name is not None else None
            elif isinstance(item, (exp.CheckColumnConstraint, exp.UniqueColumnConstraint, exp.ForeignKey)):
                constraints.append(_constraint_spec(item, name, timing=timing))
            elif isinstance(item, exp.LikeProperty) and name is None:
                columns.append(_like(item))
            elif isinstance(item, exp.Identifier):  # CREATE TABLE t (a)
                raise _syntax_error(f'column "{identifier(item)}" needs a type', item)
            else:
                raise errors.NotSupportedError(f"table constraint not supported: {item.sql()}")
        inline = [c.name for c in columns if isinstance(c, st.ColumnSpec) and c.primary_key]
        if (inline and primary_key) or len(inline) > 1:  # a composite key is PRIMARY KEY (a, b)
            raise errors.ProgrammingError(
                f'multiple primary keys for table "{table.name}" are not allowed', sqlstate="42P16")
        key_name = key_name or next((c.meta["primary_key_name"] for c in target.expressions
                                     if isinstance(c, exp.ColumnDef) and "primary_key_name" in c.meta), None)
        return st.CreateTable(table=table, columns=tuple(columns),
                              primary_key=tuple(primary_key or inline),
                              if_not_exists=if_not_exists, as_query=tree.expression,
                              constraints=tuple(constraints), primary_key_name=key_name, **temp)
    return st.CreateTable(table=table_name(target), if_not_exists=if_not_exists, as_query=tree.expression,
                          with_no_data=with_no_data, **temp)


_STRATEGIES = ("RANGE", "LIST", "HASH")


def _partition_key(prop: exp.PartitionedByProperty) -> st.PartitionKeySpec:
    """``PARTITION BY {RANGE | LIST | HASH} (column [, ...])``: a key of expressions, or with an
    operator class or a collation, is refused (0A000); an unknown strategy is PostgreSQL's 22023."""
    key = prop.this
    if not isinstance(key, exp.Anonymous):  # (PARTITION BY (a): no strategy)
        raise _syntax_error('syntax error at or near "("', prop)
    strategy = key.name.upper()
    if strategy not in _STRATEGIES:
        raise errors.InvalidParameterValue(f'unrecognized partitioning strategy "{strategy.lower()}"')
    columns = []
    for item in key.expressions:
        if not isinstance(item, exp.Column) or item.table:
            raise errors.NotSupportedError(f"a partition key of expressions is not supported: "
                                           f"{item.sql(dialect='postgres')} (partition by columns)")
        columns.append(identifier(item.this))
    if strategy == "LIST" and len(columns) > 1:
        raise errors.ProgrammingError('cannot use "list" partition strategy with more than one column',
                                      sqlstate="42P17")
    return st.PartitionKeySpec(strategy.lower(), tuple(columns))


def partition_bound(node: exp.Expression) -> st.PartitionBoundSpec:
    """``FOR VALUES ...`` (sqlglot's PartitionBoundSpec) or ``DEFAULT``, as written: MINVALUE and
    MAXVALUE as those strings, every bound after one of them one too (42P16, as PostgreSQL)."""
    if isinstance(node, exp.Var):
        return st.PartitionBoundSpec("default")
    if node.args.get("from_expressions") is not None:
        lower, upper = (tuple(_range_datum(v) for v in node.args[side])
                        for side in ("from_expressions", "to_expressions"))
        for values in (lower, upper):
            for first, then in zip(values, values[1:]):
                if first in ("MINVALUE", "MAXVALUE") and then != first:
                    raise errors.ProgrammingError(f"every bound following {first} must also be {first}",
                                                  sqlstate="42P16")
        return st.PartitionBoundSpec("range", lower=lower, upper=upper)
    if node.args.get("expression") is not None:
        modulus, remainder = (int(node.args[k].name) for k in ("this", "expression"))
        return st.PartitionBoundSpec("hash", modulus=modulus, remainder=remainder)
    return st.PartitionBoundSpec("list", values=tuple(node.this))


def _range_datum(value: exp.Expression):
    if isinstance(value, exp.Var) and value.name.upper() in ("MINVALUE", "MAXVALUE"):
        return value.name.upper()
    return value


def _partition_of(prop: exp.PartitionedOfProperty) -> dict:
    """``PARTITION OF parent [( constraints )] {FOR VALUES ... | DEFAULT}``."""
    parent, constraints = prop.this, ()
    if isinstance(parent, exp.Schema):
        parent, constraints = parent.this, tuple(parent.expressions)
    return {"partition_of": table_name(parent), "bound": partition_bound(prop.expression),
            "parent_constraints": constraints}


def _partition_table(target: exp.Expression, items, if_not_exists: bool, options: dict) -> st.CreateTable:
    """``CREATE TABLE c PARTITION OF p [( constraint, ... )] ...``: the constraints its own, beside
    those it takes from the parent (engine/partitions.py gives it the parent's columns)."""
    if isinstance(target, exp.Schema):  # (CREATE TABLE c (a int) PARTITION OF p: not PostgreSQL's grammar)
        raise _syntax_error('syntax error at or near "PARTITION"', target)
    table = table_name(target)
    primary_key, constraints, key_name = (), [], None
    for item in items:
        name, item, timing = _table_constraint(item)
        if isinstance(item, exp.PrimaryKey):
            _refuse_key_options(item, timing)
            primary_key = tuple(identifier(e) for e in item.expressions)
            key_name = _check_name(identifier(name), "constraint") if name is not None else None
        elif isinstance(item, (exp.CheckColumnConstraint, exp.UniqueColumnConstraint)):
            constraints.append(_constraint_spec(item, name, timing=timing))
        else:
            raise errors.NotSupportedError(f"in CREATE TABLE ... PARTITION OF, only PRIMARY KEY, UNIQUE and CHECK "
                                           f"constraints are supported: {item.sql(dialect='postgres')}")
    return st.CreateTable(table=table, primary_key=primary_key, primary_key_name=key_name,
                          constraints=tuple(constraints), if_not_exists=if_not_exists, **options)


def _like(item: exp.LikeProperty) -> st.LikeSpec:
    """``LIKE source [{INCLUDING | EXCLUDING} option] ...``: the options in force after the last
    (ALL: every one); an unknown option is 42601, as PostgreSQL's grammar has it."""
    including = set()
    for prop in item.expressions:
        option = prop.args["value"].name.upper()
        if option not in st.LIKE_OPTIONS and option != "ALL":
            raise _syntax_error(f'syntax error at or near "{prop.args["value"].name.lower()}"', prop)
        chosen = set(st.LIKE_OPTIONS) if option == "ALL" else {option}
        including = including | chosen if str(prop.this).upper() == "INCLUDING" else including - chosen
    return st.LikeSpec(table_name(item.this), frozenset(including))


_SEQUENCE_TYPES = {"SMALLINT": "smallint", "INT": "integer", "BIGINT": "bigint"}


def sequence_options(options) -> tuple[tuple[str, object], ...]:
    """CREATE / ALTER SEQUENCE's options, checked: each once (42601), AS a type of a sequence."""
    seen, checked = set(), []
    for name, value in options:
        if name in seen:
            raise errors.SyntaxError("conflicting or redundant options")
        seen.add(name)
        if name == "type":
            kind = _SEQUENCE_TYPES.get(str(value.this.value) if isinstance(value, exp.DataType) else "")
            if kind is None:
                raise errors.InvalidParameterValue("sequence type must be smallint, integer, or bigint")
            value = kind
        if name == "owned_by" and value is not None:
            value = _owning_column(value)
        if name in ("sequence_name", "rename"):
            value = table_name(value)
        checked.append((name, value))
    return tuple(checked)


def _owning_column(node: exp.Table) -> tuple[st.TableName, str]:
    """OWNED BY's ``[schema.]table.column``: the table and the column's name."""
    if not node.args.get("db"):
        raise errors.InvalidParameterValue("invalid OWNED BY option\n"
                                           "HINT:  Specify OWNED BY table.column or OWNED BY NONE.")
    table = exp.Table(this=node.args["db"], db=node.args.get("catalog"))
    return table_name(table), identifier(node.this)


def _sequence_command(tree: SequenceCommand) -> st.Statement:
    names = [table_name(t) for t in tree.args["names"]]
    if tree.args["kind"] == "DROP":
        return st.DropSequence(sequences=tuple(names), if_exists=bool(tree.args.get("exists")),
                               cascade=bool(tree.args.get("cascade")))
    options = sequence_options(tree.args.get("options") or ())
    if tree.args["kind"] == "CREATE":
        return st.CreateSequence(sequence=names[0], options=options, if_not_exists=bool(tree.args.get("exists")))
    return st.AlterSequence(sequence=names[0], options=options, if_exists=bool(tree.args.get("exists")))


_TABLE_PROPERTIES = {exp.PartitionedByProperty: "PARTITION BY", exp.InheritsProperty: "INHERITS"}


# PostgreSQL 16's storage parameters (reloptions.c), of a table and of each index method, taken
# as written and changing nothing (README: "How PostgreSQL lays a relation out"); a table's may
# also be its TOAST table's (toast.autovacuum_enabled)
_AUTOVACUUM = ("autovacuum_enabled", "autovacuum_vacuum_threshold", "autovacuum_vacuum_insert_threshold",
               "autovacuum_analyze_threshold", "autovacuum_vacuum_cost_delay", "autovacuum_vacuum_cost_limit",
               "autovacuum_freeze_min_age", "autovacuum_freeze_max_age", "autovacuum_freeze_table_age",
               "autovacuum_multixact_freeze_min_age", "autovacuum_multixact_freeze_max_age",
               "autovacuum_multixact_freeze_table_age", "log_autovacuum_min_duration",
               "autovacuum_vacuum_scale_factor", "autovacuum_vacuum_insert_scale_factor",
               "autovacuum_analyze_scale_factor", "vacuum_index_cleanup", "vacuum_truncate")
_STORAGE_PARAMETERS = {
    "table": frozenset(("fillfactor", "toast_tuple_target", "parallel_workers", "user_catalog_table", "oids",
                        *_AUTOVACUUM)),
    "btree": frozenset(("fillfactor", "deduplicate_items")), "hash": frozenset(("fillfactor",)),
    "gist": frozenset(("fillfactor", "buffering")), "spgist": frozenset(("fillfactor",)),
    "gin": frozenset(("fastupdate", "gin_pending_list_limit")), "brin": frozenset(("pages_per_range", "autosummarize"))}
_FILLFACTOR_LEAST = {"table": 10, "btree": 10, "hash": 10, "gist": 10, "spgist": 10}


def _storage_parameter(prop: exp.Property, of: str) -> None:
    """A storage parameter of a table or an index method ``of``, checked as PostgreSQL checks it
    (22023 for one it has not or a fillfactor out of its bounds; WITH (oids = true) 0A000)."""
    name = prop.this.sql(dialect="postgres").lower() if prop.this is not None else ""
    toast = of == "table" and name.startswith("toast.")
    known = _STORAGE_PARAMETERS[of] if not toast else frozenset(_AUTOVACUUM)
    if (name[6:] if toast else name) not in known:
        raise errors.InvalidParameterValue(f'unrecognized parameter "{name}"')
    value = prop.args.get("value")
    written = value.sql(dialect="postgres").strip("'").lower() if value is not None else "true"
    if name == "oids" and written not in ("false", "off", "0"):
        raise errors.NotSupportedError("tables declared WITH OIDS are not supported")
    if name == "fillfactor":
        try:
            fill = int(written)
        except ValueError:
            raise errors.InvalidParameterValue(f'invalid value for integer option "fillfactor": {written}') from None
        if not _FILLFACTOR_LEAST[of] <= fill <= 100:
            least = _FILLFACTOR_LEAST[of]
            raise errors.InvalidParameterValue(f'value {fill} out of bounds for option "fillfactor"\n'
                                               f'DETAIL:  Valid values are between "{least}" and "100".')


def _create_index(tree: exp.Create) -> st.CreateIndex:
    """``CREATE [UNIQUE] INDEX [IF NOT EXISTS] [name] ON [ONLY] table [USING method] (column, ...)
    [NULLS [NOT] DISTINCT]`` (of a plain index, as in PostgreSQL, accepted and meaningless):
    a unique one is a unique constraint flagged as an index (engine/uniques.py), a plain one a
    secondary index (engine/indexes.py; btree or hash, and gin, gist, brin and spgist kept and
    shown, never looked up); one of expressions or with a WHERE
    keeps them (engine/index_expressions.py); CONCURRENTLY is kept for the engine's 25001.
    INCLUDE's columns are checked and are no part of the key, as in PostgreSQL; a sort order,
    an operator class, a collation, storage options and the tablespace pg_default are taken (they
    lay PostgreSQL's index out); a unique index of another method than btree is 0A000, an
    unknown method 42704, as PostgreSQL's."""
    unique = bool(tree.args.get("unique"))
    what = "CREATE UNIQUE INDEX" if unique else "CREATE INDEX"
    index = tree.this
    params = index.args.get("params") or exp.IndexParameters()
    params = params.meta.get(_WRITTEN, params)
    using = params.args.get("using")
    method = using.name.lower() if using is not None else "btree"
    if method not in ("btree", "hash", "gin", "gist", "brin", "spgist"):
        raise errors.UndefinedObject(f'access method "{method}" does not exist')
    if unique and method != "btree":
        raise errors.NotSupportedError(f'access method "{method}" does not support unique indexes')
    # (how PostgreSQL lays an index out - a sort order, an operator class, a collation, storage
    # options, a tablespace - changes nothing in txlake's, which is looked up by equality: taken)
    tablespace = params.args.get("tablespace")
    if tablespace is not None and tablespace.name.lower() != "pg_default":
        raise errors.UndefinedObject(f'tablespace "{tablespace.name}" does not exist')
    for prop in params.args.get("with_storage") or ():
        _storage_parameter(prop, method)
    include = tuple(identifier(i) for i in params.args.get("include") or ())
    if include and method == "hash":
        raise errors.NotSupportedError('access method "hash" does not support included columns')
    extra = {k for k, v in params.args.items() if v} - {"columns", "using", "nulls", "where", "include",
                                                        "with_storage", "tablespace"}
    if extra or tree.args.get("replace"):
        raise errors.NotSupportedError(f"{what} with index options is not supported")
    items = []
    for item in params.args.get("columns") or ():
        column = item.this if isinstance(item, exp.Ordered) else item
        while isinstance(column, (exp.Opclass, exp.Collate)):
            column = column.this
        items.append(column)
    where = params.args["where"].this if params.args.get("where") else None
    plain = where is None and all(isinstance(c, exp.Column) and not c.table for c in items)
    name = _check_name(identifier(index.this), "index") if index.this is not None else None
    return st.CreateIndex(table=table_name(index.args["table"]),
                          columns=tuple(identifier(c.this) for c in items) if plain else (), name=name,
                          if_not_exists=bool(tree.args.get("exists")), unique=unique, method=method,
                          nulls_not_distinct=params.args.get("nulls") == "NOT DISTINCT",
                          items=() if plain else tuple(items), where=where,
                          concurrently=bool(tree.args.get("concurrently")), include=include)


def _type_command(tree: TypeCommand) -> st.Statement:
    """CREATE / ALTER / DROP TYPE or DOMAIN."""
    names = [table_name(t) for t in tree.args["names"]]
    domain = bool(tree.args.get("domain"))
    if tree.args["kind"] == "DROP":
        return st.DropType(names=tuple(names), domain=domain, if_exists=bool(tree.args.get("exists")),
                           cascade=bool(tree.args.get("cascade")))
    labels = tuple(label.this for label in tree.args.get("labels") or ())
    checks, not_null = [], False
    for constraint in tree.args.get("constraints") or ():
        made = constraint.expressions[0]
        if isinstance(made, exp.NotNullColumnConstraint):
            not_null = not made.args.get("allow_null")
        else:
            checks.append(_constraint_spec(made, constraint.this))
    target = tree.args.get("target")
    attributes = tuple((identifier(a.this), a.args["kind"]) for a in tree.args.get("attributes") or ())
    if tree.args["kind"] == "CREATE":
        return st.CreateType(name=names[0], labels=labels, base=tree.args.get("base"),
                             default=tree.args.get("default"), not_null=not_null, checks=tuple(checks),
                             attributes=attributes, composite=tree.args.get("attributes") is not None)
    action = tree.args["action"]
    if action == "ADD" and not checks:
        action = "SET NOT NULL" if not_null else "DROP NOT NULL"
    validate = not any(c.expressions[0].args.get("enforced") is False for c in tree.args.get("constraints") or ())
    return st.AlterType(name=names[0], domain=domain, action=action, labels=labels, attributes=attributes,
                        target=(target.this if isinstance(target, exp.Literal) else identifier(target))
                        if target is not None else None,
                        after=bool(tree.args.get("after")), exists=bool(tree.args.get("exists")),
                        default=tree.args.get("default"), check=checks[0] if checks else None, validate=validate)


def _function_command(tree: FunctionCommand) -> st.Statement:
    """CREATE [OR REPLACE] FUNCTION, DROP FUNCTION: what PostgreSQL's parser and CreateFunction
    refuse, refused here (42P13 for a definition that is no function's, 0A000 for one txlake
    does not run)."""
    procedure = bool(tree.args.get("procedure"))
    if tree.args["kind"] == "DROP":
        return st.DropFunction(functions=tuple(
            (table_name(f.expressions[0]), tuple(f.expressions[1].expressions) if len(f.expressions) > 1 else None)
            for f in tree.args["functions"]), if_exists=bool(tree.args.get("exists")),
            cascade=bool(tree.args.get("cascade")), procedure=procedure)
    body, standard = tree.args.get("body"), bool(tree.args.get("standard"))
    language = tree.args.get("language") or ("sql" if standard else None)
    if body is None:
        raise errors.ProgrammingError("no function body specified", sqlstate="42P13")
    if language is None:
        raise errors.ProgrammingError("no language specified", sqlstate="42P13")
    if language not in ("sql", "plpgsql"):
        raise errors.NotSupportedError(f"CREATE {'PROCEDURE' if procedure else 'FUNCTION'} is not supported for "
                                       f"LANGUAGE {language}: txlake runs functions of LANGUAGE sql and plpgsql only")
    if language != "sql" and standard:
        raise errors.ProgrammingError("inline SQL function body only valid for language SQL", sqlstate="42P13")
    returns, table = tree.args.get("returns"), tree.args.get("table") or ()
    if procedure and (returns is not None or table):
        raise errors.SyntaxError('syntax error at or near "RETURNS"')  # (not in CREATE PROCEDURE's grammar)
    pseudo = str(returns.args.get("kind")).upper() if returns is not None and \
        returns.this == exp.DataType.Type.USERDEFINED else None
    if pseudo == "TRIGGER" and language == "plpgsql" and tree.args.get("params"):  # (plpgsql_validator's)
        raise errors.ProgrammingError("trigger functions cannot have declared arguments\nHINT:  The arguments of "
                                      "the trigger can be accessed through TG_NARGS and TG_ARGV instead.",
                                      sqlstate="42P13")
    if pseudo == "EVENT_TRIGGER" or pseudo == "TRIGGER" and language != "plpgsql":
        raise errors.NotSupportedError("CREATE FUNCTION is not supported for an event trigger function or a trigger "
                                       "function of LANGUAGE sql: txlake runs PL/pgSQL trigger functions only")
    declared = [p.expressions for p in tree.args.get("params") or ()]
    if returns is None and not table and not procedure and all(m.name in ("IN", "VARIADIC") for m, *_ in declared):
        raise errors.ProgrammingError("function result type must be specified", sqlstate="42P13")
    params, modes = [], []
    for mode, name, data_type, default in declared:
        if mode.name == "VARIADIC":
            raise errors.NotSupportedError(f"CREATE {'PROCEDURE' if procedure else 'FUNCTION'} with an {mode.name} "
                                           "argument is not supported")
        if mode.name != "IN" and language == "sql" and procedure:  # (its OUT values are its last SELECT's)
            raise errors.NotSupportedError(f"CREATE PROCEDURE with an {mode.name} argument is supported for LANGUAGE "
                                           "plpgsql only")
        if mode.name != "IN" and table:  # (functioncmds.c's)
            raise errors.ProgrammingError("OUT and INOUT arguments aren't allowed in TABLE functions",
                                          sqlstate="42P13")
        if mode.name == "OUT" and not isinstance(default, exp.Null) and not procedure:
            raise errors.ProgrammingError("only input parameters can have default values", sqlstate="42P13")
        modes.append(mode.name)
        inputs = [p for p, m in zip(params, modes) if m != "OUT" or procedure]
        if (mode.name != "OUT" or procedure) and inputs and inputs[-1].default is not None and \
                isinstance(default, exp.Null):
            raise errors.ProgrammingError("input parameters after one with a default value must also have defaults",
                                          sqlstate="42P13")
        params.append(st.FunctionParameter(identifier(name) if isinstance(name, exp.Identifier) else "", data_type,
                                           None if isinstance(default, exp.Null) else default))
    named = [p.name for p in params if p.name]
    if len(set(named)) != len(named):
        twice = next(n for n in named if named.count(n) > 1)
        raise errors.ProgrammingError(f'parameter name "{twice}" used more than once', sqlstate="42P13")
    volatility = tree.args.get("volatility") or "VOLATILE"
    return st.CreateFunction(name=table_name(tree.this), params=tuple(params), returns=returns,
                             setof=bool(tree.args.get("setof")),
                             table=tuple((identifier(c.this), c.args["kind"]) for c in table), language=language,
                             volatility=volatility, strict=bool(tree.args.get("strict")),
                             options=tuple(tree.args.get("options") or ()), body=body, standard=standard,
                             or_replace=bool(tree.args.get("replace")), procedure=procedure,
                             modes=tuple(modes) if any(m != "IN" for m in modes) else ())


def _trigger_command(tree: TriggerCommand) -> st.Statement:
    """CREATE / DROP / ALTER TRIGGER: what PostgreSQL's CreateTrigger refuses before it looks at
    the table, refused here; what txlake does not run (INSTEAD OF, constraint triggers,
    transition tables) 0A000."""
    kind, name, table = tree.args["kind"], identifier(tree.this), table_name(tree.args["table"])
    if kind == "DROP":
        return st.DropTrigger(name=name, table=table, if_exists=bool(tree.args.get("exists")),
                              cascade=bool(tree.args.get("cascade")))
    if kind == "RENAME":
        return st.AlterTrigger(table=table, name=name, new=_check_name(identifier(tree.args["to"]), "trigger"))
    if tree.args.get("constraint"):
        raise errors.NotSupportedError("CREATE CONSTRAINT TRIGGER is not supported: txlake's triggers are plain "
                                       "BEFORE and AFTER ones")
    timing, row = tree.args["timing"], bool(tree.args.get("row"))
    events, columns = [], ()
    for event in tree.args["events"]:
        word = event.expressions[0].name
        if word in events:  # (PostgreSQL's grammar: "duplicate trigger events specified")
            raise errors.SyntaxError(f'duplicate trigger events specified at or near "{word}"')
        events.append(word)
        columns += tuple(identifier(c) for c in event.expressions[1:])
    if "TRUNCATE" in events and row:
        raise errors.NotSupportedError("TRUNCATE FOR EACH ROW triggers are not supported")
    when = tree.args.get("when")
    if timing == "INSTEAD OF":  # (PostgreSQL's CreateTrigger)
        for wrong, what in ((not row, "must be FOR EACH ROW"), (when is not None, "cannot have WHEN conditions"),
                            (columns, "cannot have column lists")):
            if wrong:
                raise errors.NotSupportedError(f"INSTEAD OF triggers {what}")
    if when is not None and not row and when.find(exp.Column):
        raise errors.ProgrammingError("statement trigger's WHEN condition cannot reference column values",
                                      sqlstate="42P17")
    old_table, new_table = _transition_tables(tree.args.get("referencing") or (), timing, events, columns, row)
    return st.CreateTrigger(name=_check_name(name, "trigger"), table=table, timing=timing, events=tuple(events),
                            function=table_name(tree.args["function"]), columns=columns, row=row,
                            when=when.sql(dialect="postgres") if when is not None else None,
                            args=tuple(a.this for a in tree.args["args"]), or_replace=bool(tree.args.get("replace")),
                            old_table=old_table, new_table=new_table)


def _transition_tables(referencing, timing: str, events: list[str], columns,
                       row: bool) -> tuple[str | None, str | None]:
    """REFERENCING's OLD TABLE and NEW TABLE names, refused where PostgreSQL's CreateTrigger
    refuses them (commands/trigger.c); a FOR EACH ROW trigger's, 0A000 (txlake's are a
    statement trigger's)."""
    names = {"OLD": None, "NEW": None}
    if not referencing:
        return None, None
    if row and timing == "AFTER":
        raise errors.NotSupportedError("transition tables of FOR EACH ROW triggers are not supported: use a FOR EACH "
                                       "STATEMENT trigger")
    if timing != "AFTER":
        raise errors.InvalidObjectDefinition("transition table name can only be specified for an AFTER trigger")
    if "TRUNCATE" in events:
        raise errors.NotSupportedError("TRUNCATE triggers with transition tables are not supported")
    if len(events) != 1:
        raise errors.NotSupportedError("transition tables cannot be specified for triggers with more than one event")
    if columns:
        raise errors.NotSupportedError("transition tables cannot be specified for triggers with column lists")
    for item in referencing:
        which, kind, name = item.expressions[0].name, item.expressions[1].name, identifier(item.expressions[2])
        if kind == "ROW":
            raise errors.NotSupportedError("ROW variable naming in the REFERENCING clause is not supported\n"
                                           "HINT:  Use OLD TABLE or NEW TABLE for naming transition tables.")
        if events[0] not in {"OLD": ("DELETE", "UPDATE"), "NEW": ("INSERT", "UPDATE")}[which]:
            raise errors.InvalidObjectDefinition(
                f"{which} TABLE can only be specified for {'a DELETE' if which == 'OLD' else 'an INSERT'} or UPDATE "
                "trigger")
        if names[which] is not None:
            raise errors.SyntaxError(f"{which} TABLE cannot be specified multiple times")
        names[which] = _check_name(name, "transition table")
    if names["OLD"] is not None and names["OLD"] == names["NEW"]:
        raise errors.InvalidObjectDefinition("OLD TABLE name and NEW TABLE name cannot be the same")
    return names["OLD"], names["NEW"]


def _trigger_switch(tree: exp.Alter, actions) -> st.AlterTrigger:
    """ALTER TABLE t {ENABLE | DISABLE} TRIGGER {name | ALL | USER}, alone."""
    action = actions[0]
    if len(actions) != 1:
        raise errors.NotSupportedError("ALTER TABLE ... ENABLE / DISABLE TRIGGER with other actions is not supported")
    if action.args["kind"] not in ("ENABLE", "DISABLE"):
        raise errors.NotSupportedError(f"ALTER TABLE ... {action.args['kind']} TRIGGER is not supported: txlake has "
                                       "no replication")
    name = identifier(action.this)
    return st.AlterTrigger(table=table_name(tree.this), name=None if name.upper() in ("ALL", "USER") and
                           not action.this.args.get("quoted") else name, enable=action.args["kind"] == "ENABLE")


def _policy_command(tree: PolicyCommand) -> st.Statement:
    """CREATE / ALTER / DROP POLICY: what PostgreSQL's grammar and CreatePolicy refuse before
    they look at the table, refused here (commands/policy.c's messages)."""
    kind, name, table = tree.args["kind"], identifier(tree.this), table_name(tree.args["table"])
    if kind == "DROP":
        return st.DropPolicy(name=name, table=table, if_exists=bool(tree.args.get("exists")),
                             cascade=bool(tree.args.get("cascade")))
    if tree.args.get("to") is not None:
        return st.AlterPolicy(name=name, table=table, new=identifier(tree.args["to"]))
    using, check = (tree.args[k].meta[_WRITTEN] if tree.args.get(k) is not None else None for k in ("using", "check"))
    for expression in (using, check):
        if expression is not None and expression.find(exp.Placeholder, exp.Parameter):
            raise errors.ProgrammingError("there is no parameter $1", sqlstate="42P02")
    roles = tree.args.get("roles")
    if roles is not None and "public" in roles and len(roles) > 1:
        # (PostgreSQL: "ignoring specified roles other than PUBLIC", a WARNING; only PUBLIC kept)
        roles = ["public"]
    roles = None if roles is None else tuple(r for r in roles if r != "public")
    if kind == "ALTER":
        return st.AlterPolicy(name=name, table=table, roles=roles, using=using, check=check)
    command = tree.args["command"]
    if command in ("SELECT", "DELETE") and check is not None:
        raise errors.SyntaxError("WITH CHECK cannot be applied to SELECT or DELETE")
    if command == "INSERT" and using is not None:
        raise errors.SyntaxError("only WITH CHECK expression allowed for INSERT")
    return st.CreatePolicy(name=name, table=table, permissive=tree.args["permissive"],
                           command=command, roles=roles or (), using=using, check=check)


def _row_security(tree: exp.Alter, actions) -> st.AlterRowSecurity:
    """ALTER TABLE t {ENABLE | DISABLE | FORCE | NO FORCE} ROW LEVEL SECURITY [, ...]."""
    if not all(isinstance(a, PolicyCommand) for a in actions):
        raise errors.NotSupportedError("ALTER TABLE ... ROW LEVEL SECURITY with other actions is not supported")
    enable = force = None
    for action in actions:
        kind = action.args["kind"]
        if kind in ("ENABLE", "DISABLE"):
            enable = kind == "ENABLE"
        else:
            force = kind == "FORCE"
    return st.AlterRowSecurity(table=table_name(tree.this), enable=enable, force=force)


def _drop(tree: exp.Drop) -> st.Statement:
    if _kind(tree) == "INDEX":
        targets = tree.args.get("tables") or [tree.this]
        if tree.args.get("concurrently") and len(targets) > 1:  # (PostgreSQL's RemoveRelations)
            raise errors.NotSupportedError("DROP INDEX CONCURRENTLY does not support dropping multiple objects")
        if tree.args.get("concurrently") and tree.args.get("cascade"):
            raise errors.NotSupportedError("DROP INDEX CONCURRENTLY does not support CASCADE")
        return st.DropIndex(indexes=tuple(table_name(t) for t in targets), if_exists=bool(tree.args.get("exists")),
                            cascade=bool(tree.args.get("cascade")), concurrently=bool(tree.args.get("concurrently")))
    if (tree.args.get("kind") or "").upper() == "SCHEMA":
        targets = tree.args.get("tables") or [tree.this]
        if len(targets) != 1:
            raise errors.NotSupportedError("DROP SCHEMA of several schemas is not supported")
        return st.DropSchema(*_schema_name(targets[0]), if_exists=bool(tree.args.get("exists")),
                             cascade=bool(tree.args.get("cascade")))
    if _kind(tree) == "VIEW":
        views = tree.args.get("tables") or [tree.this]
        return st.DropView(views=tuple(table_name(t) for t in views), if_exists=bool(tree.args.get("exists")),
                           cascade=bool(tree.args.get("cascade")), materialized=bool(tree.args.get("materialized")))
    if (tree.args.get("kind") or "").upper() != "TABLE":
        what = tree.args.get("kind")
        raise errors.NotSupportedError(_unsupported("DROP", "DATABASE") if what == "DATABASE" else
                                       f"DROP {what} is not supported")
    tables = tree.args.get("tables") or [tree.this]
    return st.DropTable(tables=tuple(table_name(t) for t in tables), if_exists=bool(tree.args.get("exists")),
                        cascade=bool(tree.args.get("cascade")))


def _alter(tree: exp.Alter) -> st.Statement:
    actions = tree.args.get("actions") or ()
    if _kind(tree) == "VIEW":
        if len(actions) == 1 and isinstance(actions[0], exp.RenameColumn):
            column = (identifier(actions[0].this), _check_name(identifier(actions[0].args["to"]), "column"))
            return st.AlterView(view=table_name(tree.this), column=column, if_exists=bool(tree.args.get("exists")))
        if len(actions) != 1 or not isinstance(actions[0], exp.AlterRename):
            raise errors.NotSupportedError("ALTER VIEW is supported for RENAME TO and RENAME COLUMN only")
        return st.AlterView(view=table_name(tree.this), new=table_name(actions[0].this),
                            if_exists=bool(tree.args.get("exists")))
    if _kind(tree) == "MATERIALIZED VIEW":  # (parser/dialect.py reads its RENAME TO and RENAME COLUMN only)
        action = actions[0]
        return st.AlterTable(table=table_name(tree.this), if_exists=bool(tree.args.get("exists")), matview=True,
                             actions=(st.RenameTable(table_name(action.this)),) if isinstance(action, exp.AlterRename)
                             else (st.RenameColumn(identifier(action.this),
                                                   _check_name(identifier(action.args["to"]), "column")),))
    if _kind(tree) == "INDEX":
        if len(actions) == 1 and isinstance(actions[0], PartitionCommand) and actions[0].args["kind"] == "ATTACH" \
                and actions[0].args.get("bound") is None:
            return st.AlterIndex(index=table_name(tree.this), attach=table_name(actions[0].this))
        if len(actions) != 1 or not isinstance(actions[0], exp.AlterRename):
            raise errors.NotSupportedError("ALTER INDEX is supported for RENAME TO only")
        return st.AlterIndex(index=table_name(tree.this), new=table_name(actions[0].this),
                             if_exists=bool(tree.args.get("exists")))
    if (tree.args.get("kind") or "").upper() != "TABLE":
        raise errors.NotSupportedError(f"ALTER {tree.args.get('kind')} is not supported")
    if any(isinstance(a, TriggerCommand) for a in actions):
        return _trigger_switch(tree, actions)
    if any(isinstance(a, PolicyCommand) for a in actions):
        return _row_security(tree, actions)
    actions = []
    for action in tree.args.get("actions") or ():
        if isinstance(action, exp.ColumnDef):
            actions.append(st.AddColumn(_column_spec(action, table_name(tree.this).name),
                                        if_not_exists=bool(action.args.get("exists"))))
        elif isinstance(action, exp.Drop) and (action.args.get("kind") or "").upper() == "COLUMN":
            for column in action.args.get("tables") or [action.this]:
                actions.append(st.DropColumn(identifier(column), if_exists=bool(action.args.get("exists")),
                                             cascade=bool(action.args.get("cascade"))))
        elif isinstance(action, exp.RenameColumn):
            actions.append(st.RenameColumn(identifier(action.this), _check_name(identifier(action.args["to"]), "column")))
        elif isinstance(action, exp.AlterColumn):
            actions.append(_alter_column(action, table_name(tree.this).name))
        elif isinstance(action, exp.AlterRename):
            actions.append(st.RenameTable(table_name(action.this)))
        elif isinstance(action, exp.AddConstraint) and len(action.expressions) == 1:
            name, item, timing = _table_constraint(action.expressions[0])  # (CONSTRAINT name ...)
            actions.append(st.AddConstraint(_constraint_spec(item, name, timing=timing),
                                            not_valid=bool(tree.args.get("not_valid"))))
        elif isinstance(action, ValidateConstraint):
            actions.append(st.ValidateConstraint(identifier(action.this)))
        elif isinstance(action, RenameConstraint):
            actions.append(st.RenameConstraint(identifier(action.this), identifier(action.args["to"])))
        elif isinstance(action, PartitionCommand) and action.args["kind"] == "ATTACH":
            if action.args.get("bound") is None:
                raise _syntax_error("syntax error: ATTACH PARTITION needs FOR VALUES ... or DEFAULT", tree, after=True)
            actions.append(st.AttachPartition(table_name(action.this), partition_bound(action.args["bound"])))
        elif isinstance(action, PartitionCommand):
            actions.append(st.DetachPartition(table_name(action.this)))
        elif isinstance(action, exp.Drop) and _kind(action) == "CONSTRAINT":
            for target in action.args.get("tables") or [action.this]:
                actions.append(st.DropConstraint(identifier(target.this), if_exists=bool(action.args.get("exists")),
                                                 cascade=bool(action.args.get("cascade"))))
        else:
            raise errors.NotSupportedError(f"ALTER TABLE action not supported: {action.sql()}")
    return st.AlterTable(table=table_name(tree.this), actions=tuple(actions),
                         if_exists=bool(tree.args.get("exists")), only=bool(tree.args.get("only")))


def _default(value: exp.Expression) -> exp.Expression:
    if value.find(exp.Select, exp.Subquery) is not None:  # (as PostgreSQL: evaluated per row, alone)
        raise errors.NotSupportedError("cannot use subquery in DEFAULT expression")
    if _calls_current_setting(value):  # (it would be DuckDB's setting, read where the row is made)
        raise errors.NotSupportedError("current_setting() in a DEFAULT expression is not supported: "
                                       "give the value in the INSERT")
    return value


def _calls_current_setting(tree: exp.Expression) -> bool:
    return any(n.name.lower() == "current_setting" for n in tree.find_all(exp.Anonymous))


def _alter_column(action: exp.AlterColumn, table: str) -> st.AlterColumn:
    name = identifier(action.this)
    a = action.args
    known = {"this", "default", "drop", "allow_null", "dtype", "using"}
    if any(v not in (None, False) for k, v in a.items() if k not in known):  # COLLATE, COMMENT, ...
        raise errors.NotSupportedError(f"ALTER TABLE action not supported: {action.sql(dialect='postgres')}")
    if "restart" in action.meta:
        return st.AlterColumn(name, restart=action.meta["restart"])
    if "drop_expression" in action.meta:
        return st.AlterColumn(name, drop_expression=True, if_exists=action.meta["drop_expression"])
    if "add_identity" in action.meta:
        sequence, always, by_default, options = _identity(action.meta["add_identity"], table, name)
        spec = st.ColumnSpec(name=name, type=exp.DataType.build("INT"), sequence=sequence, always=always,
                             by_default=by_default, sequence_options=options)
        return st.AlterColumn(name, add_identity=spec)
    if a.get("dtype") is not None:
        return st.AlterColumn(name, type=a["dtype"], using=a.get("using") or None)  # (sqlglot: False for none)
    if a.get("default") is not None:
        return st.AlterColumn(name, default=_default(a["default"]))
    if a.get("allow_null") is not None:
        return st.AlterColumn(name, not_null=not a["allow_null"])
    if a.get("drop"):
        return st.AlterColumn(name, drop_default=True)
    raise errors.NotSupportedError(f"ALTER TABLE action not supported: {action.sql(dialect='postgres')}")


def _split_row_subquery(value: exp.Subquery, eq: exp.EQ) -> list[exp.Expression]:
    """``(SELECT x, y FROM ...)`` as ``(SELECT x FROM ...)``, ``(SELECT y FROM ...)``."""
    select = value.this
    if not isinstance(select, exp.Select) or select.args.get("distinct") or \
            any(isinstance(e, exp.Star) or (isinstance(e, exp.Column) and isinstance(e.this, exp.Star))
                for e in select.expressions):
        raise errors.NotSupportedError("SET (columns) = (SELECT ...) is supported for a SELECT of its columns "
                                       "without DISTINCT, * or set operations: assign each column")
    columns = []
    for expression in select.expressions:
        one = select.copy()
        one.set("expressions", [expression.copy()])
        columns.append(exp.Subquery(this=one))
    return columns


def _returning(tree: exp.Expression) -> tuple[exp.Expression, ...]:
    node = tree.args.get("returning")
    _refuse_aggregates(node, "RETURNING")
    if node is not None and any(isinstance(t.this, exp.Identifier) for t in node.find_all(exp.Table)):
        # (its rows are the statement's own; a table it reads would have to be seen as of the
        # statement's start, as PostgreSQL's subquery sees it - not done: it was a bare 42P01)
        raise errors.NotSupportedError("a subquery reading a table in RETURNING is not supported")
    return tuple(node.expressions) if node is not None else ()


# aggregates by the names the rewrites gave them (parser/semantics.py): sum() and avg(), and
# jsonb_agg() - DuckDB's aggregate list() (parser/json_ops.py)
_TYPED_AGGREGATES = {SUM_MACRO, AVG_MACRO, "list"}


def _refuse_aggregates(node: exp.Expression | None, clause: str) -> None:
    """PostgreSQL's 42803 for an aggregate, 42P20 for a window function, in a clause that
    takes one row at a time (not in a subquery of it): DuckDB ran ``RETURNING sum(v)`` over the
    rows written, or failed naming its own columns (``UPDATE t SET v = max(v)``)."""
    if node is None:
        return
    for n in node.walk(prune=lambda n: isinstance(n, exp.Query) and n is not node):
        aggregate = isinstance(n, exp.AggFunc) or (isinstance(n, exp.Anonymous) and n.name in _TYPED_AGGREGATES)
        if (aggregate or isinstance(n, exp.Window)) and not isinstance(n.parent, exp.Window):
            window = isinstance(n, exp.Window)
            error = _syntax_error(f"{'window' if window else 'aggregate'} functions are not allowed in {clause}", n)
            raise errors.ProgrammingError(str(error), sqlstate="42P20" if window else "42803",
                                          position=error.position)


def _assignments(eqs, row: str | None = None) -> tuple[tuple[str, exp.Expression], ...]:
    """``SET column = value, ...`` as (column, value) pairs; ``row``: the name (or alias) the
    row being changed goes by, which an element assignment's array is read from."""
    result = []
    elements = set()  # the columns assigned element by element (SET a[1] = x, a[3] = y)
    for eq in eqs:
        target = eq.this if isinstance(eq, exp.EQ) else None
        element = isinstance(target, exp.Bracket) and isinstance(target.this, exp.Column) and \
            len(target.expressions) == 1 and not isinstance(target.expressions[0], exp.Slice)
        if not element and not isinstance(target, exp.Column):
            raise _syntax_error(f"expected column = expression, got {eq.sql()}", eq)
        name = identifier(target.this.this if element else target.this)
        earlier = [i for i, (seen, _) in enumerate(result) if seen == name]
        if earlier and not (element and name in elements):
            raise _syntax_error(f'multiple assignments to same column "{name}"', eq)
        value = eq.expression
        if element:  # a[i] = v: the array with its element i set, as PostgreSQL's (ARRAY_SET)
            index = target.expressions[0]
            if isinstance(index, exp.Literal) and index.is_int:  # (stored 0-based: sqlglot's index offset)
                index = exp.Literal.number(int(index.this) + 1)
            if earlier:
                array = result.pop(earlier[0])[1]
            else:
                array = exp.column(exp.to_identifier(name, quoted=True),
                                   table=exp.to_identifier(row, quoted=True) if row is not None else None)
            value = exp.Anonymous(this=ARRAY_SET, expressions=[array, index.copy(), value])
            elements.add(name)
        result.append((name, value))
    return tuple(result)


def _assignment_owners(tree: exp.Expression) -> list[exp.Expression]:
    """The nodes holding the SET lists of an UPDATE, an ON CONFLICT DO UPDATE or a MERGE's
    UPDATE clauses (as "expressions")."""
    if isinstance(tree, exp.Update):
        return [tree]
    if isinstance(tree, exp.Insert) and tree.args.get("conflict") is not None:
        return [tree.args["conflict"]]
    if isinstance(tree, exp.Merge) and tree.args.get("whens") is not None:
        return [when.args["then"] for when in tree.args["whens"].expressions
                if isinstance(when.args.get("then"), exp.Update)]
    return []


def _column_list_assignments(tree: exp.Expression) -> bool:
    return any(isinstance(eq, exp.EQ) and isinstance(eq.this, (exp.Tuple, exp.Paren))
               for owner in _assignment_owners(tree) for eq in owner.args.get("expressions") or [])


def _expand_column_list_assignments(tree: exp.Expression) -> None:
    """``SET (a, b) = (x, y)`` (or ``= ROW(x, y)``) of an UPDATE, ON CONFLICT DO UPDATE or MERGE as
    ``SET a = x, b = y``; ``SET (a, b) = (SELECT x, y ...)`` as ``SET a = (SELECT x ...), b =
    (SELECT y ...)`` - the same row, as one query of several columns, with the same errors
    (21000 for more than one row; none: NULLs) - refused (0A000) for a sub-SELECT whose
    split would not be (DISTINCT, a set operation, ``*``)."""
    for owner in _assignment_owners(tree):
        _expand_in(owner)


def _expand_in(owner: exp.Expression) -> None:
    key = "expressions"
    eqs = owner.args.get(key) or []
    if not any(isinstance(eq, exp.EQ) and isinstance(eq.this, (exp.Tuple, exp.Paren)) for eq in eqs):
        return
    expanded = []
    for eq in eqs:
        if not isinstance(eq, exp.EQ) or not isinstance(eq.this, (exp.Tuple, exp.Paren)):
            expanded.append(eq)
            continue
        columns = eq.this.expressions if isinstance(eq.this, exp.Tuple) else [eq.this.this]
        value = eq.expression
        if isinstance(value, exp.Subquery):
            values = _split_row_subquery(value, eq)
        elif isinstance(value, exp.Tuple) or (isinstance(value, exp.Anonymous) and value.name.upper() == "ROW"):
            values = value.expressions
        elif isinstance(value, exp.Paren):
            values = [value.this]
        else:
            raise _syntax_error("source for a multiple-column UPDATE item must be a sub-SELECT or ROW() "
                                "expression", eq)
        if len(values) != len(columns):
            raise _syntax_error("number of columns does not match number of values", eq)
        expanded += [exp.EQ(this=column, expression=v) for column, v in zip(columns, values)]
    owner.set(key, expanded)


def _insert(tree: exp.Insert) -> st.Statement:
    target = tree.this
    columns = None
    if isinstance(target, exp.Schema):
        columns = tuple(identifier(c) for c in target.expressions)
        target = target.this
    if not isinstance(target, exp.Table):
        raise errors.NotSupportedError(f"INSERT target not supported: {target.sql()}")
    on_conflict = None
    conflict = tree.args.get("conflict")
    if conflict is not None:
        written = conflict.meta.get(_WRITTEN, conflict)
        targets = tuple(k.this if isinstance(k, exp.Ordered) else k  # (sqlglot: Ordered(Column))
                        for k in (written.args.get("conflict_keys") or ()))
        predicate = written.args["index_predicate"].this if written.args.get("index_predicate") else None
        if predicate is None and all(isinstance(k, (exp.Column, exp.Identifier)) for k in targets):
            keys, targets = tuple(identifier(k.this if isinstance(k, exp.Column) else k) for k in targets), ()
        else:  # (an expression or a WHERE: engine/index_expressions.py infers the index)
            keys = ()
            _refuse_aggregates(predicate, "WHERE")
        constraint = identifier(conflict.args["constraint"]) if conflict.args.get("constraint") else None
        if conflict.args.get("doupdate") or conflict.args.get("expressions"):
            if not keys and not targets and constraint is None:  # (which rows conflict would be every key's guess)
                raise errors.SyntaxError("ON CONFLICT DO UPDATE requires inference specification or constraint name\n"
                                         "HINT:  For example, ON CONFLICT (column_name).")
            assignments = _assignments(conflict.args.get("expressions") or (),
                                       identifier(target.args["alias"].this) if target.args.get("alias")
                                       else table_name(target).name)
            for _, value in assignments:
                _refuse_aggregates(value, "UPDATE")
            _refuse_aggregates(conflict.args.get("where"), "WHERE")
            on_conflict = st.OnConflict(columns=keys, do_nothing=False, assignments=assignments,
                                        defaults=tuple(name for name, value in assignments if _is_default(value)),
                                        where=(conflict.args.get("where").this if conflict.args.get("where") else None),
                                        constraint=constraint, targets=targets, predicate=predicate)
        else:
            on_conflict = st.OnConflict(columns=keys, do_nothing=True, constraint=constraint, targets=targets,
                                        predicate=predicate)
    source = tree.expression
    if source is not None and not isinstance(source, exp.Query):
        if isinstance(source, exp.Values):
            _refuse_aggregates(source, "VALUES")
        else:
            raise errors.NotSupportedError(f"INSERT source not supported: {source.sql()}")
    return st.Insert(table=table_name(target), columns=columns, source=source,
                     on_conflict=on_conflict, returning=_returning(tree),
                     alias=identifier(target.args["alias"].this) if target.args.get("alias") else None,
                     overriding=tree.meta.get("overriding"))


def _target_and_alias(node: exp.Expression) -> tuple[st.TableName, str | None]:
    if not isinstance(node, exp.Table):
        raise errors.NotSupportedError(f"target not supported: {node.sql()}")
    if node.args.get("version") or node.args.get("when"):  # (it was ignored: the newest rows changed)
        raise errors.NotSupportedError("an UPDATE or DELETE writes the newest version: time travel "
                                       "(FOR SYSTEM_VERSION, AT) is for reading")
    alias = node.alias or None
    return table_name(node), (identifier(alias) if alias else None)


def _update(tree: exp.Update) -> st.Statement:
    table, alias = _target_and_alias(tree.this)
    if not tree.expressions:  # UPDATE t SET
        raise _syntax_error("syntax error: UPDATE needs SET column = expression", tree, after=True)
    from_ = tree.args.get("from_") or tree.args.get("from")
    from_items = ()
    if from_ is not None:
        from_items = (*_joined_items(from_.this), *[j for j in (tree.args.get("joins") or ())])
    where = tree.args.get("where")
    assignments = _assignments(tree.expressions, alias or table.name)
    for _, value in assignments:
        _refuse_aggregates(value, "UPDATE")
    _refuse_aggregates(where, "WHERE")
    if table.name == "pg_settings" and table.db in (None, "pg_catalog"):
        return _update_settings(tree, assignments, where, alias, from_items)
    return st.Update(table=table, alias=alias, assignments=assignments,
                     from_=from_items, where=where.this if where is not None else None,
                     returning=_returning(tree),
                     defaults=tuple(name for name, value in assignments if _is_default(value)),
                     named_schemas=frozenset(tree.this.meta.get(NAMED_SCHEMAS, ())))


def _update_settings(tree: exp.Update, assignments, where, alias, from_items) -> st.UpdateSettings:
    """``UPDATE pg_settings SET setting = ... [WHERE ...]``: its other columns, FROM and
    RETURNING mean nothing to PostgreSQL's rule (0A000 here)."""
    if [name for name, _ in assignments] != ["setting"] or from_items or tree.args.get("returning"):
        raise errors.NotSupportedError("UPDATE pg_settings is supported as SET setting = value [WHERE ...] alone: "
                                       "it is a set_config of each setting it picks")
    return st.UpdateSettings(setting=assignments[0][1], where=where.this if where is not None else None, alias=alias)


def _is_default(value: exp.Expression) -> bool:
    """Is an UPDATE's SET value the keyword DEFAULT (sqlglot reads it as a column so named)?"""
    return isinstance(value, exp.Column) and not value.table and not value.this.quoted \
        and value.name.upper() == "DEFAULT"


def _delete(tree: exp.Delete) -> st.Statement:
    if not isinstance(tree.this, exp.Expression):  # DELETE t (without FROM)
        raise _syntax_error("syntax error: expected DELETE FROM table", tree)
    table, alias = _target_and_alias(tree.this)
    where = tree.args.get("where")
    _refuse_aggregates(where, "WHERE")
    using = tuple(item for table in tree.args.get("using") or () for item in _joined_items(table))
    return st.Delete(table=table, alias=alias, using=using,
                     where=where.this if where is not None else None, returning=_returning(tree),
                     named_schemas=frozenset(tree.this.meta.get(NAMED_SCHEMAS, ())))


_MERGE_KINDS = {"MATCHED": ("UPDATE", "DELETE", "NOTHING"), "NOT MATCHED": ("INSERT", "NOTHING"),
                "NOT MATCHED BY SOURCE": ("UPDATE", "DELETE", "NOTHING")}


def _merge(tree: exp.Merge) -> st.Statement:
    """``MERGE INTO target [[AS] alias] USING source [[AS] alias] ON condition WHEN ...
    [RETURNING ...]``, PostgreSQL 17's grammar: sqlglot also reads other dialects' forms
    (``INSERT *``, ``UPDATE ... WHERE``, ``USING (columns)``), refused here as PostgreSQL does."""
    table, alias = _target_and_alias(tree.this)
    source = tree.args.get("using")
    if tree.args.get("using_cond") or not tree.args.get("on"):
        raise _syntax_error("syntax error: MERGE needs ON condition", tree, after=True)
    joined = ()
    if isinstance(source, exp.Subquery) and isinstance(source.this, exp.Table) and source.this.args.get("joins") \
            and not source.args.get("alias"):  # USING (a JOIN b ON ...)
        source = source.this
    if isinstance(source, (exp.Table, exp.Subquery)) and source.args.get("joins"):
        source, joined = _merge_join_source(tree, source, alias or table.name)
    if not isinstance(source, (exp.Table, exp.Subquery, exp.Values)) or source.args.get("joins"):
        raise errors.NotSupportedError(f"MERGE source not supported: {source.sql() if source else ''}")
    if isinstance(source, exp.Table) and not isinstance(source.this, exp.Identifier):
        raise errors.NotSupportedError(f"MERGE source not supported: {source.sql()}")
    source_alias = source.args.get("alias")
    if source_alias is not None and source_alias.this is not None:
        source_name = identifier(source_alias.this)
    else:
        source_name = identifier(source.this) if isinstance(source, exp.Table) else "__txl_source"
    if source_name == (alias or table.name):
        raise errors.ProgrammingError(f'table name "{source_name}" specified more than once', sqlstate="42712")
    whens = tree.args.get("whens")
    if whens is None or not whens.expressions:
        raise _syntax_error("syntax error: MERGE needs a WHEN clause", tree, after=True)
    actions = []
    unconditional = set()
    for when in whens.expressions:
        match = ("MATCHED" if when.args.get("matched") else
                 "NOT MATCHED BY SOURCE" if when.args.get("source") else "NOT MATCHED")
        if match in unconditional:
            raise _syntax_error("unreachable WHEN clause specified after unconditional WHEN clause", when)
        condition = when.args.get("condition")
        if condition is None:
            unconditional.add(match)
        action = _merge_action(when, match, condition, alias or table.name)
        if action.kind not in _MERGE_KINDS[match]:
            raise _syntax_error(f"syntax error: {action.kind} is not allowed in a WHEN {match} clause", when)
        _check_merge_references(action, source_name if match == "NOT MATCHED BY SOURCE" else alias or table.name
                                if match == "NOT MATCHED" else None)
        actions.append(action)
    return st.Merge(table=table, alias=alias, source=source, source_name=source_name, on=tree.args["on"],
                    actions=tuple(actions), returning=_returning(tree), joined=joined)


JOINED_SOURCE = "__txl_source"


def _merge_join_source(tree: exp.Merge, source: exp.Expression, target: str) -> tuple[exp.Subquery, tuple[str, ...]]:
    """A MERGE's join source (``USING a JOIN b ON ...``) as the query of its rows, and the
    names of the relations joined; the clauses' references to their columns (``a.x``) become
    references to the query's columns (``__txl_source."a.x"``: engine/merge.py names them)."""
    relations = [source, *(join.this for join in source.args["joins"])]
    names = []
    for relation in relations:
        alias = relation.args.get("alias")
        if alias is not None and alias.this is not None:
            names.append(identifier(alias.this))
        elif isinstance(relation, exp.Table) and isinstance(relation.this, exp.Identifier):
            names.append(identifier(relation.this))
        else:
            raise _syntax_error("subquery in FROM must have an alias", relation)
    for name in names:
        if name == target or names.count(name) > 1:
            raise errors.ProgrammingError(f'table name "{name}" specified more than once', sqlstate="42712")

    def visit(node):
        if isinstance(node, exp.Column) and node.args.get("table") is not None and not node.args.get("db") \
                and identifier(node.args["table"]) in names and isinstance(node.this, exp.Identifier):
            return exp.column(exp.to_identifier(f"{identifier(node.args['table'])}.{identifier(node.this)}",
                                                quoted=True), JOINED_SOURCE)
        return node

    returning = tree.args.get("returning")
    for item in returning.expressions if returning is not None else ():
        if isinstance(item, exp.Column) and visit(item) is not item:  # (RETURNING a.x: a column named x)
            item.replace(exp.alias_(item.copy(), exp.to_identifier(identifier(item.this), quoted=True)))
    for part in ("on", "whens", "returning"):
        if tree.args.get(part) is not None:
            tree.set(part, tree.args[part].transform(visit))
    base = source.copy()
    joins = base.args.pop("joins")
    query = exp.Select(expressions=[exp.Star()], from_=exp.From(this=base), joins=joins)
    return exp.Subquery(this=query, alias=exp.TableAlias(this=exp.to_identifier(JOINED_SOURCE))), tuple(names)


def _merge_action(when: exp.When, match: str, condition: exp.Expression | None, row: str) -> st.MergeAction:
    then = when.args.get("then")
    if isinstance(then, exp.Var) and then.name.upper() in ("DELETE", "DO NOTHING"):
        return st.MergeAction(match, "DELETE" if then.name.upper() == "DELETE" else "NOTHING", condition)
    if isinstance(then, exp.Update):
        eqs = then.expressions
        if then.args.get("where") is not None or not eqs or any(isinstance(e, exp.Star) for e in eqs):
            raise _syntax_error("syntax error: expected UPDATE SET column = expression, ...", when)
        assignments = _assignments(eqs, row)
        return st.MergeAction(match, "UPDATE", condition, assignments=assignments,
                              defaults=tuple(name for name, value in assignments if _is_default(value)))
    if isinstance(then, exp.Insert):
        columns, values = then.this, then.args.get("expression")
        if then.args.get("where") is not None or values is False or isinstance(columns, (exp.Star, exp.Var)):
            raise _syntax_error("syntax error: expected INSERT [(columns)] VALUES (...) or DEFAULT VALUES", when)
        if values is None:  # INSERT DEFAULT VALUES (sqlglot: a "column list" of DEFAULT, then VALUES)
            if not (isinstance(columns, exp.Tuple) and len(columns.expressions) == 1
                    and _is_default(columns.expressions[0])):
                raise _syntax_error("syntax error: expected INSERT [(columns)] VALUES (...) or DEFAULT VALUES", when)
            return st.MergeAction(match, "INSERT", condition)
        names = None
        if columns is not None:
            names = tuple(identifier(c) for c in columns.expressions)
        row = values.expressions if isinstance(values, exp.Tuple) else [values.this if isinstance(values, exp.Paren)
                                                                        else values]
        return st.MergeAction(match, "INSERT", condition, columns=names, values=tuple(row),
                              overriding=then.meta.get("overriding"))
    raise _syntax_error("syntax error: expected UPDATE, DELETE, INSERT or DO NOTHING", when)


def _check_merge_references(action: st.MergeAction, unseen: str | None) -> None:
    """A NOT MATCHED clause sees only the source's row, a NOT MATCHED BY SOURCE clause only the
    target's: naming the other is 42P01, as in PostgreSQL."""
    if unseen is None:
        return
    parts = [action.condition, *(v for _, v in action.assignments), *(action.values or ())]
    for part in parts:
        for column in (part.find_all(exp.Column) if part is not None else ()):
            if column.table and identifier(column.args["table"]) == unseen and column.find_ancestor(
                    exp.Select) is None:
                raise errors.UndefinedTable(f'invalid reference to FROM-clause entry for table "{unseen}"')


def _truncate(tree: exp.TruncateTable) -> st.Statement:
    """``TRUNCATE [TABLE] [ONLY] a, b [RESTART | CONTINUE IDENTITY] [CASCADE | RESTRICT]``: there
    is no inheritance, so ONLY changes nothing; CASCADE truncates the tables referencing them."""
    if tree.args.get("is_database") or tree.args.get("partition") or tree.args.get("cluster"):
        raise errors.NotSupportedError(f"{tree.sql(dialect='postgres')} is not supported")
    return st.Truncate(tables=tuple(table_name(t) for t in tree.expressions),
                       restart_identity=str(tree.args.get("identity") or "").upper() == "RESTART",
                       cascade=str(tree.args.get("option") or "").upper() == "CASCADE")


def _joined_items(node: exp.Expression) -> list[exp.Expression]:
    """An UPDATE's FROM / a DELETE's USING item as the items it joins: sqlglot hangs the JOINs
    (and the comma's) on the first table, where rewriting that table's name would drop them."""
    joins = node.args.get("joins") if isinstance(node, exp.Table) else None
    if not joins:
        return [node]
    node = node.copy()
    node.set("joins", None)
    return [node, *joins]


def _copy(tree: exp.Copy) -> st.Statement:
    """COPY, as PostgreSQL checks it before it runs (copy.c): the options, then where it reads
    or writes. FROM STDIN / TO STDOUT is the shell's (``\\copy``): the statement has no file.
    PROGRAM and the BINARY format are refused (0A000)."""
    to = not tree.args.get("kind")
    target, columns, query = tree.this, None, None
    if isinstance(target, exp.Schema):
        columns = tuple(identifier(c) for c in target.expressions)
        target = target.this
    table = None
    if isinstance(target, exp.Subquery):
        if not to:
            raise _syntax_error("syntax error at or near \"FROM\": COPY FROM needs a table, not a query", target)
        query = _to_statement(target.this)
        if not isinstance(query, st.Query):
            raise errors.NotSupportedError("COPY (query) TO takes a query; INSERT, UPDATE and DELETE are not supported")
    elif isinstance(target, exp.Table):
        if target.args.get("version") or target.args.get("when") or target.args.get("alias"):
            raise _syntax_error(f'syntax error at or near "{target.sql()}"', target)
        table = table_name(target)
        if to:
            select = exp.select(*(exp.column(exp.to_identifier(c, quoted=True)) for c in columns)
                                if columns else "*").from_(target.copy())
            query = st.Query(expression=select)
    else:
        raise _syntax_error(f'syntax error at or near "{target.sql()}"', target)
    if columns is not None and len(set(columns)) != len(columns):
        duplicate = next(c for c in columns if columns.count(c) > 1)
        raise errors.DuplicateColumn(f'column "{duplicate}" specified more than once')
    file = tree.args["files"][0]
    if isinstance(file, exp.Var) and file.name == "PROGRAM":
        raise errors.NotSupportedError("COPY FROM PROGRAM and TO PROGRAM are not supported")
    path = file.name if isinstance(file, exp.Literal) else None
    if isinstance(file, exp.Var) and file.name != ("STDOUT" if to else "STDIN"):
        raise _syntax_error(f'syntax error at or near "{file.name}"', file)
    params = tree.args.get("params") or []
    where = next((p.expression for p in params if p.name == "where"), None)
    if where is not None:
        if to:
            raise errors.NotSupportedError("WHERE clause not allowed with COPY TO")
        if next(where.find_all(exp.Query), None) is not None:
            raise errors.NotSupportedError("cannot use subquery in COPY FROM WHERE condition")
        where = boolean_condition(where, "where")
    options = _copy_options([p for p in params if p.name != "where"], to)
    return st.Copy(table=table, columns=columns, query=query, to=to, file=path, options=options, where=where)


_COPY_OPTIONS = ("format", "freeze", "delimiter", "null", "default", "header", "quote", "escape", "force_quote",
                 "force_not_null", "force_null", "encoding")
_ENCODINGS = {"utf8": "utf-8", "utf-8": "utf-8", "unicode": "utf-8", "sql_ascii": "utf-8", "latin1": "latin-1",
              "iso88591": "latin-1", "iso-8859-1": "latin-1"}
_TRUE_WORDS = ("true", "on", "1", "yes")
_FALSE_WORDS = ("false", "off", "0", "no")


def _copy_options(params: list[exp.CopyParameter], to: bool) -> st.CopyOptions:
    """COPY's options checked in PostgreSQL's order and words (ProcessCopyOptions)."""
    given: dict[str, exp.Expression | None] = {}
    for param in params:
        name = param.name
        if name not in _COPY_OPTIONS:
            raise errors.SyntaxError(f'option "{name}" not recognized')
        if name in given:
            raise errors.SyntaxError("conflicting or redundant options")
        given[name] = param.expression

    def text(name: str) -> str | None:
        if name not in given:
            return None
        value = given[name]
        if not isinstance(value, (exp.Literal, exp.Var)):
            raise errors.InvalidParameterValue(f"{name} requires a parameter" if value is None else
                                               f'argument to option "{name}" must be a string')
        return value.name

    def boolean(name: str, allow_match: bool = False):
        if name not in given or given[name] is None:
            return name in given
        word = text(name).lower()
        if word in _TRUE_WORDS:
            return True
        if word in _FALSE_WORDS:
            return False
        if allow_match and word == "match":
            return "match"
        also = ' or "match"' if allow_match else ""
        raise errors.InvalidParameterValue(f"{name} requires a Boolean value{also}")

    def column_list(name: str):
        if name not in given:
            return ()
        value = given[name]
        if isinstance(value, exp.Star):
            return "*"
        if not isinstance(value, exp.Tuple):
            raise errors.InvalidParameterValue(f'argument to option "{name}" must be a list of column names')
        return tuple(identifier(v) for v in value.expressions)

    fmt = (text("format") or "text").lower()
    if fmt not in ("text", "csv", "binary", "parquet"):
        raise errors.InvalidParameterValue(f'COPY format "{fmt}" not recognized')
    if fmt == "binary":
        raise errors.NotSupportedError("COPY BINARY is not supported: FORMAT text, csv and parquet are")
    if boolean("freeze"):
        raise errors.NotSupportedError("COPY FREEZE is not supported")
    if "default" in given:
        raise errors.NotSupportedError("COPY DEFAULT is not supported")
    encoding = text("encoding")
    if encoding is not None and encoding.lower().replace("_", "") not in {e.replace("_", "") for e in _ENCODINGS}:
        raise errors.InvalidParameterValue('argument to option "encoding" must be a valid encoding name')
    csv = fmt == "csv"
    if fmt == "parquet":
        other = next((name for name in given if name not in ("format", "freeze")), None)
        if other is not None:
            raise errors.NotSupportedError(f'COPY {other.upper()} is not available with FORMAT parquet')
        return st.CopyOptions(format="parquet")
    delimiter, null, quote, escape = text("delimiter"), text("null"), text("quote"), text("escape")
    delimiter = delimiter if delimiter is not None else "," if csv else "\t"
    null = null if null is not None else "" if csv else "\\N"
    header = boolean("header", allow_match=True)
    if len(delimiter.encode()) != 1:
        raise errors.NotSupportedError("COPY delimiter must be a single one-byte character")
    if delimiter in "\r\n":
        raise errors.InvalidParameterValue("COPY delimiter cannot be newline or carriage return")
    if "\r" in null or "\n" in null:
        raise errors.InvalidParameterValue("COPY null representation cannot use newline or carriage return")
    if not csv and delimiter in "\\.abcdefghijklmnopqrstuvwxyz0123456789":
        raise errors.InvalidParameterValue(f'COPY delimiter cannot be "{delimiter}"')
    if header == "match" and to:
        raise errors.NotSupportedError('cannot use "match" with HEADER in COPY TO')
    for name, value in (("quote", quote), ("escape", escape)):
        if value is not None and not csv:
            raise errors.NotSupportedError(f"COPY {name} available only in CSV mode")
        if value is not None and len(value.encode()) != 1:
            raise errors.NotSupportedError(f"COPY {name} must be a single one-byte character")
    quote = quote if quote is not None else '"'
    escape = escape if escape is not None else quote
    if csv and delimiter == quote:
        raise errors.InvalidParameterValue("COPY delimiter and quote must be different")
    force = {}
    for name, words, needs_to in (("force_quote", "force quote", True), ("force_not_null", "force not null", False),
                                  ("force_null", "force null", False)):
        force[name] = column_list(name)
        if name in given and not csv:
            raise errors.NotSupportedError(f"COPY {words} available only in CSV mode")
        if name in given and needs_to != to:
            raise errors.NotSupportedError(f"COPY {words} only available using COPY {'TO' if needs_to else 'FROM'}")
    if delimiter in null:
        raise errors.InvalidParameterValue("COPY delimiter character must not appear in the NULL specification")
    if csv and quote in null:
        raise errors.InvalidParameterValue("CSV quote character must not appear in the NULL specification")
    return st.CopyOptions(format=fmt, delimiter=delimiter, null=null, header=header, quote=quote, escape=escape,
                          encoding=_ENCODINGS.get((encoding or "utf8").lower(), "utf-8"), **force)


_CONVERTERS = {
    Control: lambda tree: _control(tree),
    CursorCommand: lambda tree: _cursor_command(tree),
    CommentOn: lambda tree: _comment(tree),
    RefreshMatview: lambda tree: st.RefreshMatview(view=table_name(tree.this),
                                                   concurrently=bool(tree.args.get("concurrently")),
                                                   with_no_data=bool(tree.args.get("no_data"))),
    SequenceCommand: lambda tree: _sequence_command(tree),
    TypeCommand: lambda tree: _type_command(tree),
    FunctionCommand: lambda tree: _function_command(tree),
    TriggerCommand: lambda tree: _trigger_command(tree),
    PolicyCommand: lambda tree: _policy_command(tree),
    LockCommand: lambda tree: st.LockTable(tables=tuple(table_name(t) for t in tree.args["names"]),
                                           mode=tree.args["mode"], nowait=bool(tree.args.get("nowait"))),
    exp.Transaction: lambda tree: st.Begin(),  # sqlglot's own BEGIN
    exp.Commit: lambda tree: st.Commit(),
    exp.Rollback: lambda tree: st.Rollback(),
    exp.Create: lambda tree: _create(tree),
    exp.Drop: lambda tree: _drop(tree),
    exp.Alter: lambda tree: _alter(tree),
    exp.Insert: lambda tree: _insert(tree),
    exp.Update: lambda tree: _update(tree),
    exp.Delete: lambda tree: _delete(tree),
    exp.Merge: lambda tree: _merge(tree),
    exp.TruncateTable: lambda tree: _truncate(tree),
    exp.Copy: lambda tree: _copy(tree),
}
