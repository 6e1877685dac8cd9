"""Backslash meta-commands: ``\\?``, ``\\q``, ``\\dt``, ``\\dv``, ``\\dm``, ``\\di``, ``\\dn``, ``\\l``, ``\\d``,
``\\df``, ``\\du`` / ``\\dg``, ``\\dx``, ``\\errverbose``, ``\\snapshots``, ``\\sv``, ``\\i``, ``\\ir``,
``\\cd``, ``\\setenv``, ``\\getenv``, ``\\copy``, ``\\timing``,
``\\x``, ``\\isolation``, ``\\rows``, ``\\echo``,
``\\qecho``, ``\\set`` / ``\\unset`` (psql's variables), ``\\pset``, ``\\a``, ``\\t``, ``\\f``, ``\\o``,
``\\conninfo``, ``\\!``. Their arguments have the variables put in (``:name``), as psql's.

Each command is a function ``(runner, argument) -> Outcome`` registered in ``COMMANDS``. They
read the catalog through the Session's describe calls and everything else through SQL, so a
meta-command follows the same transaction rules as the statement it stands for.
"""

from __future__ import annotations

import os
import re
import subprocess
import tempfile

import pyarrow as pa

import txlake
from txlake.engine.catalog_views import pg_type_name, schema_name
from txlake.engine.pg_fixed import EXTENSIONS
from txlake.parser.dialect import BUILT_IN_EXTENSIONS
from txlake.parser.parse import parse_table_name
from txlake.repl.runner import Outcome, Runner
from txlake.repl.scanner import interpolate

HELP = """\
General
  \\?                  show this help
  \\q                  quit (also Ctrl-D; an open transaction is rolled back)
  \\i FILE             run the SQL and meta-commands in FILE
  \\ir FILE            as \\i, FILE read from the running script's folder
  \\cd [DIR]           change the shell's current folder
  \\setenv NAME [VALUE] set or unset an environment variable
  \\getenv VAR NAME    set the variable VAR from the environment variable NAME
  \\c[onnect] [DBNAME] stay in this warehouse, txlake's one database (pg_dump -C writes
                      \\connect after CREATE DATABASE, which changes nothing either)
  \\echo [-n] TEXT     write TEXT ('quoted' parts as psql reads them)
  \\qecho [-n] TEXT    write TEXT to where \\o sends results
  \\set [NAME [VALUE]] set a variable (its values run together), or list them all; SQL
                      and meta-commands read it as :NAME, :'NAME' (a string), :"NAME" (a name)
  \\unset NAME         unset a variable
  \\set ON_ERROR_STOP on|off
                      on: a script (\\i, -f) stops at its first error; off (default): it goes on
  \\gset [PREFIX]      run the statement and set a variable from each column of its one row
  \\gexec              run the statement, then each value of its result as a statement
  \\if EXPR, \\elif EXPR, \\else, \\endif
                      run only the first branch whose EXPR is true (\\if :ERROR)
  \\watch [[i=]SEC] [c=N]
                      run the statement (alone: the last one) every SEC seconds (2) until Ctrl-C
                      or N times; after each statement :ERROR, :SQLSTATE, :ROW_COUNT are set
  \\conninfo           say which warehouse and user the shell is connected with
  \\errverbose         show the last error again with all its fields (SQLSTATE, position,
                      DETAIL, HINT, CONTEXT, LOCATION: where txlake raised it)
  \\! COMMAND          run COMMAND in the system's shell
  \\restrict KEY, \\unrestrict KEY
                      no meta-command but \\unrestrict KEY runs in between (pg_dump's dumps)
  \\copy ...           COPY with a file of this shell's, or stdin / stdout:
                      \\copy t [(cols)] from FILE|stdin [with (format csv, header, ...)]
                      \\copy t [(cols)] | (query) to FILE|stdout [with (...)]
Catalog
  \\d                  list tables, views, materialized views and sequences
  \\dt[+] [PATTERN]    list tables (PATTERN: names as psql's, * and ? wildcards;
                      +: with their comments, COMMENT ON's)
  \\dv[+] [PATTERN]    list views
  \\dm[+] [PATTERN]    list materialized views
  \\ds[+] [PATTERN]    list sequences
  \\dT [PATTERN]      list data types: enums (with their labels) and domains
  \\dD [PATTERN]      list domains: base type, NOT NULL, default, CHECKs
  \\di [PATTERN]      list indexes: primary keys', UNIQUE constraints', CREATE INDEX's
  \\dn [PATTERN]      list schemas (the warehouse's databases; public is default)
  \\l                 list databases: the warehouse is one, named as current_database()
  \\df [PATTERN]      list functions and procedures (CREATE FUNCTION's, PROCEDURE's); with PATTERN, engine's too
                      (DuckDB's catalog, in PostgreSQL's type names)
  \\du, \\dg [PATTERN] list roles: the warehouse's owner, the user the shell runs as
  \\dx [PATTERN]      list extensions: uuid-ossp's and pgcrypto's functions txlake has built in
  \\d[+] NAME          describe table NAME (or a [materialized] view: its columns and
                      definition; a sequence: its bounds): columns, types, nullability, defaults,
                      keys, triggers (a PATTERN: each match; +: the columns' comments)
  \\sv VIEW            show a view's definition
  \\sf FUNCTION        show a function's definition (CREATE OR REPLACE FUNCTION)
  \\snapshots TABLE    the commits that changed TABLE (its snapshot history)
Transactions
  \\isolation [LEVEL]  show the isolation level, or set it for new transactions:
                      read committed | repeatable read | serializable (rc, rr, s)
Display
  \\pset [OPTION [VALUE]]
                      set a display option, or list them: format (aligned, unaligned, csv),
                      null (how NULL shows), fieldsep, tuples_only, footer, expanded
  \\a                  switch between the aligned and the unaligned format
  \\t [on|off]         show the rows only (no header, no row count)
  \\f [SEP]            the field separator of the unaligned format (default |)
  \\o [FILE]           send results to FILE (no FILE: back to the output)
  \\x [on|off|auto]    expanded display, one "column | value" line per column
  \\timing [on|off]    show how long each statement takes
  \\rows [N|all]       how many result rows to show before cutting (shell default 1000)

A statement runs when it ends with ';' or \\g (\\gx: shown expanded), as in psql; it may span
lines, and several may share a line.
Ctrl-C cancels the current input or the running statement. Tab completes keywords, tables
and columns. NULL is shown as NULL (the unaligned format, for scripts, shows nothing, as psql;
\\pset null sets what it shows)."""

LEVELS = {
    "read uncommitted": "READ UNCOMMITTED", "ru": "READ UNCOMMITTED",
    "read committed": "READ COMMITTED", "rc": "READ COMMITTED",
    "repeatable read": "REPEATABLE READ", "rr": "REPEATABLE READ",
    "serializable": "SERIALIZABLE", "s": "SERIALIZABLE",
}

MAX_INCLUDE_DEPTH = 16


def run_meta(runner: Runner, line: str) -> Outcome:
    command, _, argument = line.strip().partition(" ")
    if runner.restrict_key is not None and command != "\\unrestrict":
        runner.warn("backslash commands are restricted; only \\unrestrict is allowed")
        return Outcome.ERROR
    argument = interpolate(argument, runner.variables)
    handler = COMMANDS.get(command)
    if handler is None and command.endswith("+"):
        handler = _PLUS.get(command[:-1])  # (psql's "more detail": the comments too)
    if handler is None:
        runner.warn(f"invalid command {command}\nTry \\? for help.")
        return Outcome.ERROR
    try:
        return handler(runner, argument.strip())
    except txlake.Error as e:
        runner.show_error(e)
        return Outcome.ERROR


def _help(runner: Runner, argument: str) -> Outcome:
    runner.print(HELP)
    return Outcome.OK


def _quit(runner: Runner, argument: str) -> Outcome:
    return Outcome.QUIT


def _words(argument: str) -> list[str]:
    """A meta-command's arguments as psql reads them: words apart from blanks, a 'quoted' one
    as it reads ('' a quote, \\n a newline, \\t a tab)."""
    words = re.findall(r"'(?:[^'\\]|''|\\.)*'|\S+", argument)
    return [re.sub(r"''|\\(.)", lambda m: {"n": "\n", "t": "\t"}.get(m[1], m[1] or "'"), word[1:-1])
            if word.startswith("'") and word.endswith("'") and len(word) > 1 else word for word in words]


def _echo(runner: Runner, argument: str, write=None) -> Outcome:
    """psql's ``\\echo [-n] TEXT``: the words, one space apart (``write``: where to)."""
    words = _words(argument)
    newline = not (words and words[0] == "-n")
    (write or runner.write)(" ".join(words[0 if newline else 1:]) + ("\n" if newline else ""))
    return Outcome.OK


def _qecho(runner: Runner, argument: str) -> Outcome:
    """psql's ``\\qecho``: ``\\echo`` to where ``\\o`` sends results."""
    return _echo(runner, argument, write=lambda text: runner.print_result(text.removesuffix("\n")))


def _connect(runner: Runner, argument: str) -> Outcome:
    """psql's ``\\c[onnect] [-reuse-previous=on|off] [DBNAME | conninfo] ...``, which pg_dump -C
    writes after its CREATE DATABASE (``\\connect shop``, ``\\connect -reuse-previous=on
    "dbname='shop'"``): txlake has one database, the warehouse, so the shell stays connected to
    it - in the same session, its settings and transaction as they were - and a NOTICE says so."""
    words = [w[1:-1].replace(w[0] * 2, w[0]) if w[0] in "'\"" and len(w) > 1 and w[-1] == w[0] else w
             for w in re.findall(r"'(?:[^']|'')*'|\"(?:[^\"]|\"\")*\"|\S+", argument)]
    words = [w for w in words if not w.startswith("-reuse-previous")]
    name = words[0] if words and words[0] != "-" else None
    if name is not None and re.match(r"postgres(ql)?://", name):  # (a URI: postgresql://host/shop)
        name = name.split("?")[0].split("/")[3] if name.split("?")[0].count("/") >= 3 else None
    elif name is not None and "=" in name:  # (a conninfo: dbname='shop' host=...)
        found = re.search(r"(?:^|\s)dbname\s*=\s*(?:'((?:[^'\\]|\\.)*)'|(\S+))", name)
        name = (re.sub(r"\\(.)", r"\1", found[1]) if found[1] is not None else found[2]) if found else None
    target = f' to "{name}"' if name else ""
    runner.warn(f"NOTICE:  txlake has no databases: \\connect{target} stays in the warehouse "
                f"{runner.conn.path}, in the same session")
    return Outcome.OK


def _set(runner: Runner, argument: str) -> Outcome:
    """psql's ``\\set [NAME [VALUE ...]]``: the variable NAME set to the values run together
    (none: empty), or - without NAME - every variable listed. ON_ERROR_STOP is a boolean (on:
    a script stops at its first error; off, the default: it goes on)."""
    words = _words(argument)
    if not words:
        for name, value in sorted(runner.variables.items()):
            runner.print(f"{name} = '{value}'")
        return Outcome.OK
    return Outcome.OK if set_variable(runner, words[0], "".join(words[1:]), "\\set: ") else Outcome.ERROR


# psql's variables that change what psql does, which txlake's shell does not do: refused, so
# that a script setting one (AUTOCOMMIT off, say) is not run as if it had worked
PSQL_SETTINGS = frozenset({
    "AUTOCOMMIT", "COMP_KEYWORD_CASE", "ECHO", "ECHO_HIDDEN", "ENCODING", "FETCH_COUNT", "HIDE_TABLEAM",
    "HIDE_TOAST_COMPRESSION", "HISTCONTROL", "HISTFILE", "HISTSIZE", "IGNOREEOF", "ON_ERROR_ROLLBACK",
    "PROMPT1", "PROMPT2", "PROMPT3", "QUIET", "SHOW_ALL_RESULTS", "SHOW_CONTEXT", "SINGLELINE", "SINGLESTEP",
    "VERBOSITY", "WATCH_INTERVAL"})


def variable_refused(name: str, value: str) -> str | None:
    """Why psql's variable ``name`` cannot be set to ``value`` here (a bad name; one of psql's
    settings txlake's shell does not have; ON_ERROR_STOP not a boolean), or None."""
    if not re.fullmatch(r"\w+", name):
        return f'invalid variable name: "{name}"'
    if name in PSQL_SETTINGS:
        return f"{name} is a setting of psql's that txlake's shell does not have"
    if name.upper() == "ON_ERROR_STOP" and on_error_stop(value) is None:
        return f'unrecognized value "{value.strip()}" for "ON_ERROR_STOP": Boolean expected'
    return None


def set_variable(runner: Runner, name: str, value: str, where: str = "") -> bool:
    """Set psql's variable ``name`` (False, and a warning after ``where``, for one
    ``variable_refused`` refuses): ON_ERROR_STOP also sets ``runner.on_error_stop``."""
    refused = variable_refused(name, value)
    if refused is not None:
        runner.warn(where + refused)
        return False
    if name.upper() == "ON_ERROR_STOP":
        runner.on_error_stop = on_error_stop(value)
    runner.variables[name] = value
    return True


def _unset(runner: Runner, argument: str) -> Outcome:
    words = _words(argument)
    if not words:
        runner.warn("\\unset: missing required argument")
        return Outcome.ERROR
    if words[0].upper() == "ON_ERROR_STOP":
        runner.on_error_stop = False
    runner.variables.pop(words[0], None)
    return Outcome.OK


def on_error_stop(value: str) -> bool | None:
    """ON_ERROR_STOP's value as psql reads a boolean variable (set without one: on), else None."""
    value = value.strip().strip("'").lower()
    if value in ("", "on", "true", "yes", "1", "t", "y"):
        return True
    if value in ("off", "false", "no", "0", "f", "n"):
        return False
    return None


def _list(runner: Runner, pattern: str, kinds: tuple[str, ...], what: str, plus: bool = False) -> Outcome:
    """psql's ``\\dt`` / ``\\dv`` / ``\\d``: the relations of ``kinds``, those PATTERN matches
    (``plus``: with their comments)."""
    tables = runner.conn.session.describe_tables(descriptions=plus)
    keep = [(kind if kind != "partitioned table" else "table") in kinds for kind in tables.column("type").to_pylist()]
    if pattern:
        matches = _pattern(pattern)
        keep = [k and (matches(schema_name(db), name) or matches(db, name)) for k, db, name in
                zip(keep, tables.column("database").to_pylist(), tables.column("table").to_pylist())]
    tables = tables.filter(pa.array(keep, pa.bool_()))  # (typed: an empty list would not be)
    return _show_found(runner, tables, pattern, what)


def _show_found(runner: Runner, found: pa.Table, pattern: str, what: str) -> Outcome:
    """A listing's rows, or psql's words for none (of ``what``, named as PATTERN says)."""
    if found.num_rows == 0:
        runner.print(f'Did not find any {what} named "{pattern}".' if pattern else f"Did not find any {what}.")
    else:
        runner.show_table(found)
    return Outcome.OK


def _pattern(pattern: str):
    """A psql name pattern as a test of (schema, name): ``*`` any text, ``?`` one character,
    letters outside double quotes lower-cased, ``schema.name``; the whole name must match."""
    parts, current, quoted, i = [], "", False, 0
    while i < len(pattern):
        ch = pattern[i]
        if ch == '"':
            if quoted and pattern[i + 1:i + 2] == '"':  # a doubled quote inside quotes
                current += re.escape('"')
                i += 1
            else:
                quoted = not quoted
        elif quoted:
            current += re.escape(ch)
        elif ch == ".":
            parts.append(current)
            current = ""
        else:
            current += ".*" if ch == "*" else "." if ch == "?" else re.escape(ch.lower())
        i += 1
    parts.append(current)
    schema, name = (parts[-2], parts[-1]) if len(parts) > 1 else (None, parts[0])
    name_re = re.compile(name or ".*", re.S)
    schema_re = re.compile(schema or ".*", re.S) if schema is not None else None
    return lambda db, table: (bool(name_re.fullmatch(table))
                              and (schema_re is None or bool(schema_re.fullmatch(db))))


def _list_tables(runner: Runner, argument: str, plus: bool = False) -> Outcome:
    return _list(runner, argument, ("table",), "tables", plus)


def _list_views(runner: Runner, argument: str, plus: bool = False) -> Outcome:
    return _list(runner, argument, ("view",), "views", plus)


def _list_matviews(runner: Runner, argument: str, plus: bool = False) -> Outcome:
    return _list(runner, argument, ("materialized view",), "materialized views", plus)


def _list_sequences(runner: Runner, argument: str, plus: bool = False) -> Outcome:
    return _list(runner, argument, ("sequence",), "sequences", plus)


def _list_types(runner: Runner, argument: str, domains: bool = False) -> Outcome:
    """psql's ``\\dT`` (enums and domains) and ``\\dD`` (domains), those PATTERN matches."""
    found = runner.conn.session.describe_types(domains)
    if argument:
        matches = _pattern(argument)
        found = found.filter(pa.array([matches(schema, name) for schema, name in
                                       zip(found.column("schema").to_pylist(), found.column("name").to_pylist())],
                                      pa.bool_()))
    return _show_found(runner, found, argument, "domains" if domains else "data types")


def _list_domains(runner: Runner, argument: str) -> Outcome:
    return _list_types(runner, argument, domains=True)


def _list_query(runner: Runner, argument: str, sql: str, what: str) -> Outcome:
    """A listing psql makes from its catalog, here of ``sql``'s rows (their first two columns a
    schema and a name - or one, a schema's name - which PATTERN ``argument`` matches), run in
    the session's transaction."""
    found = _query(runner, sql)
    if found is None:
        return Outcome.ERROR
    if argument:
        matches = _pattern(argument)
        schemas, names = (found.column(min(i, found.num_columns - 1)).to_pylist() for i in (0, 1))
        found = found.filter(pa.array([matches(schema, name) for schema, name in zip(schemas, names)], pa.bool_()))
    return _show_found(runner, found, argument, what)


def _query(runner: Runner, sql: str) -> pa.Table | None:
    """``sql``'s rows, run in the session's transaction; None (the error shown) if it failed."""
    cursor = runner.conn.cursor()
    try:
        return cursor.execute(sql).fetch_arrow_table()
    except txlake.Error as e:
        runner.show_error(e)
        return None
    finally:
        cursor.close()


# DuckDB's kinds of function as psql's \df names them; its pragmas are no functions of SQL's
_FUNCTION_TYPES = {"scalar": "func", "macro": "func", "table": "func", "table_macro": "func", "aggregate": "agg",
                   "window": "window"}


def _list_functions(runner: Runner, argument: str) -> Outcome:
    """psql's ``\\df [PATTERN]``: the functions PATTERN names, from the engine's catalog - DuckDB's
    (``duckdb_functions()``: SQL's functions not rewritten run as DuckDB's) without txlake's own
    helpers (``txl_...``), with their types as PostgreSQL names them, in pg_catalog. Without a
    PATTERN, as psql's, the user's functions only (CREATE FUNCTION's); with one, theirs first."""
    mine = runner.conn.session.describe_functions()
    if not argument:
        return _show_found(runner, mine, argument, "functions")
    found = _query(runner, "SELECT DISTINCT function_name, function_type, return_type, parameter_types, varargs "
                           "FROM duckdb_functions() WHERE function_name NOT LIKE 'txl%' "
                           "AND function_name NOT LIKE '\\_\\_%' ESCAPE '\\' ORDER BY 1, 2, 4")
    if found is None:
        return Outcome.ERROR
    matches = _pattern(argument)
    rows = [row for row in zip(*(c.to_pylist() for c in mine.columns)) if matches(row[0], row[1])]
    rows += [("pg_catalog", row["function_name"], _result_type(row["function_type"], row["return_type"]),
             _argument_types(row["parameter_types"], row["varargs"]), _FUNCTION_TYPES[row["function_type"]])
            for row in found.to_pylist()
            if row["function_type"] in _FUNCTION_TYPES and matches("pg_catalog", row["function_name"])]
    listed = pa.table({name: pa.array(values, pa.string()) for name, values in
                       zip(mine.column_names, zip(*dict.fromkeys(rows)) if rows else [[]] * 5)})
    return _show_found(runner, listed, argument, "functions")


def _list_roles(runner: Runner, argument: str) -> Outcome:
    """psql's ``\\du`` / ``\\dg [PATTERN]``: txlake's one role (pg_roles), the warehouse's owner -
    the user the shell runs as (``current_user``), who may do all there is to do: a superuser,
    its attributes as psql lists them."""
    found = _query(runner, "SELECT rolname AS role, concat_ws(', ', CASE WHEN rolsuper THEN 'Superuser' END, "
                   "CASE WHEN NOT rolinherit THEN 'No inheritance' END, "
                   "CASE WHEN rolcreaterole THEN 'Create role' END, CASE WHEN rolcreatedb THEN 'Create DB' END, "
                   "CASE WHEN NOT rolcanlogin THEN 'Cannot login' END, "
                   "CASE WHEN rolreplication THEN 'Replication' END, CASE WHEN rolbypassrls THEN 'Bypass RLS' END) "
                   "AS attributes FROM pg_catalog.pg_roles ORDER BY 1")
    if found is None:
        return Outcome.ERROR
    if argument:
        matches = _pattern(argument)
        found = found.filter(pa.array([matches("", name) for name in found.column("role").to_pylist()], pa.bool_()))
    return _show_found(runner, found, argument, "roles")


# the extensions txlake has built in (CREATE EXTENSION of one is taken and changes nothing): the
# version PostgreSQL 16 ships, and PostgreSQL's description with what of it there is
_EXTENSION_DESCRIPTIONS = {"uuid-ossp": "generate universally unique identifiers (UUIDs)",
                           "pgcrypto": "cryptographic functions", "plpgsql": "PL/pgSQL procedural language"}


def _list_extensions(runner: Runner, argument: str) -> Outcome:
    """psql's ``\\dx [PATTERN]``: the extensions txlake has built in (engine/pg_fixed.py), always
    there - their functions are in pg_catalog, callable from any schema - and plpgsql."""
    rows = [(name, version, schema, _EXTENSION_DESCRIPTIONS[name] + (
             f": {BUILT_IN_EXTENSIONS[name]} only" if name in BUILT_IN_EXTENSIONS else ""))
            for name, (_, version, schema) in sorted(EXTENSIONS.items())]
    if argument:
        matches = _pattern(argument)
        rows = [row for row in rows if matches("", row[0])]
    found = pa.table({name: pa.array(values, pa.string()) for name, values in
                      zip(("name", "version", "schema", "description"), zip(*rows) if rows else [[]] * 4)})
    return _show_found(runner, found, argument, "extensions")


def _error_verbose(runner: Runner, argument: str) -> Outcome:
    """psql's ``\\errverbose``: the last error again, with all its fields (render.render_error_verbose)."""
    runner.print(runner.last_error or "There is no previous error.")
    return Outcome.OK


def _result_type(kind: str, duckdb_type: str | None) -> str:
    """A function's result as psql shows it: a table function's rows are ``SETOF record``
    (DuckDB's catalog does not say their columns), a DuckDB macro's type is not known (``"any"``)."""
    if kind in ("table", "table_macro"):
        return "SETOF record"
    return pg_type_name(duckdb_type) if duckdb_type else '"any"'


def _argument_types(types: list[str], varargs: str | None) -> str:
    return ", ".join([pg_type_name(t) for t in types] + ([f"VARIADIC {pg_type_name(varargs)}"] if varargs else []))


def _list_indexes(runner: Runner, argument: str) -> Outcome:
    """psql's ``\\di``: the indexes - primary keys', UNIQUE constraints', CREATE INDEX's - and their tables."""
    return _list_query(runner, argument, "SELECT schemaname AS schema, indexname AS index, tablename AS table, "
                       "indexdef AS definition FROM pg_catalog.pg_indexes ORDER BY 1, 2", "indexes")


def _list_schemas(runner: Runner, argument: str) -> Outcome:
    """psql's ``\\dn``: the schemas (txlake's databases; ``public`` is ``default``), without the
    catalog's own unless a PATTERN names them."""
    hidden = "" if argument else " WHERE schema_name NOT IN ('information_schema', 'pg_catalog')"
    return _list_query(runner, argument, f"SELECT schema_name AS name FROM information_schema.schemata{hidden} "
                       "ORDER BY 1", "schemas")


def _list_databases(runner: Runner, argument: str) -> Outcome:
    """psql's ``\\l``: the one database a warehouse is, as current_database() names it."""
    return runner.run_statement("SELECT current_database() AS name, 'UTF8' AS encoding")


def _describe(runner: Runner, argument: str, plus: bool = False) -> Outcome:
    """psql's ``\\d``: the relations (``\\d`` alone, or each a pattern matches), or one; ``plus``
    (``\\d+``): with the comments on them, on a relation's columns."""
    if not argument:
        return _list(runner, argument, ("table", "view", "materialized view", "sequence"), "relations", plus)
    if re.search(r"[*?]", re.sub(r'"[^"]*"', "", argument)):  # a pattern: each relation it matches
        matches = _pattern(argument)
        tables = runner.conn.session.describe_tables()
        path = runner.conn.session.search_path
        found = [_quoted(name) if db in path else f"{_quoted(schema_name(db))}.{_quoted(name)}"
                 for db, name in zip(tables.column("database").to_pylist(), tables.column("table").to_pylist())
                 if matches(schema_name(db), name) or matches(db, name)]
        if not found:
            runner.warn(f'Did not find any relation named "{argument}".')
            return Outcome.ERROR
        for name in found:
            _describe(runner, name, plus)
        return Outcome.OK
    session = runner.conn.session
    columns = session.describe_table(argument, descriptions=plus)
    kind = session.relation_kind(argument)
    definition = session.view_definition(argument)
    first, last = session.partition_lines(argument, plus) if kind == "table" else ([], [])
    shown = "partitioned table" if any(line.startswith("Partition key:") for line in first) else kind
    runner.print(f'{shown.capitalize()} "{session.qualified_name(argument)}"')
    runner.show_table(columns)
    for line in first:
        runner.print(line)
    indexes = session.index_lines(argument) if kind in ("table", "materialized view") else []
    if indexes:
        runner.print("Indexes:\n" + "\n".join(f"    {line}" for line in indexes))
    if definition is not None:
        runner.print(f"View definition:\n {definition}")
    checks = session.check_constraints(argument) if kind == "table" else []
    if checks:
        runner.print("Check constraints:\n" + "\n".join(f"    {check}" for check in checks))
    if kind == "table":
        for title, lines in zip(("Foreign-key constraints:", "Referenced by:"), session.foreign_key_lines(argument)):
            if lines:
                runner.print("\n".join([title, *(f"    {line}" for line in lines)]))
    policies = session.policy_lines(argument) if kind == "table" else []
    if policies:
        runner.print("\n".join(policies))
    if kind == "table":
        for title, lines in zip(("Triggers:", "Disabled user triggers:"), session.trigger_lines(argument)):
            if lines:
                runner.print("\n".join([title, *(f"    {line}" for line in lines)]))
    for line in last:
        runner.print(line)
    owner = session.sequence_owner(argument) if kind == "sequence" else None
    if owner is not None:
        runner.print(f"Owned by: {owner}")
    return Outcome.OK


def _quoted(name: str) -> str:
    """``name`` as SQL writes it: quoted unless a lower-case identifier."""
    return name if name.isidentifier() and name == name.lower() else '"' + name.replace('"', '""') + '"'


def _snapshots(runner: Runner, argument: str) -> Outcome:
    if not argument:
        runner.warn("\\snapshots: missing required argument: TABLE")
        return Outcome.ERROR
    name = argument.replace("'", "''")
    return runner.run_statement(f"SELECT * FROM txlake_snapshots('{name}') ORDER BY snapshot_id")


def _include(runner: Runner, argument: str, relative: bool = False) -> Outcome:
    """psql's ``\\i FILE``, and ``\\ir FILE`` (``relative``): a name not absolute is read from the
    folder of the script running it, as psql's (typed at the prompt: from the current folder)."""
    command = "\\ir" if relative else "\\i"
    if not argument:
        runner.warn(f"{command}: missing required argument: FILE")
        return Outcome.ERROR
    if runner.include_depth >= MAX_INCLUDE_DEPTH:
        runner.warn(f"{command}: {argument}: files included more than {MAX_INCLUDE_DEPTH} deep")
        return Outcome.ERROR
    path = os.path.expanduser(argument.strip("'\""))
    if relative and runner.source is not None and not os.path.isabs(path):
        path = os.path.join(os.path.dirname(runner.source), path)
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except OSError as e:
        runner.warn(f"{command}: {path}: {e.strerror or e}")
        return Outcome.ERROR
    except UnicodeDecodeError as e:
        runner.warn(f"{command}: {path}: not UTF-8 text ({e.reason} at byte {e.start})")
        return Outcome.ERROR
    runner.include_depth += 1
    try:
        return runner.run_script(text, source=path)  # (stopping at an error under ON_ERROR_STOP)
    finally:
        runner.include_depth -= 1


def _change_directory(runner: Runner, argument: str) -> Outcome:
    """psql's ``\\cd [DIR]``: the shell's current folder (no DIR: the home folder)."""
    words = _words(argument)
    path = os.path.expanduser(words[0] if words else "~")
    try:
        os.chdir(path)
    except OSError as e:
        runner.warn(f'\\cd: could not change directory to "{path}": {e.strerror or e}')
        return Outcome.ERROR
    return Outcome.OK


def _set_environment(runner: Runner, argument: str) -> Outcome:
    """psql's ``\\setenv NAME [VALUE]``: set the environment variable NAME (no VALUE: unset it)."""
    words = _words(argument)
    if not words:
        runner.warn("\\setenv: missing required argument")
        return Outcome.ERROR
    if "=" in words[0]:
        runner.warn('\\setenv: environment variable name must not contain "="')
        return Outcome.ERROR
    if len(words) > 1:
        os.environ[words[0]] = words[1]
    else:
        os.environ.pop(words[0], None)
    return Outcome.OK


def _get_environment(runner: Runner, argument: str) -> Outcome:
    """psql's ``\\getenv VARIABLE NAME``: the shell variable VARIABLE set to the environment
    variable NAME (left as it is if NAME is not set)."""
    words = _words(argument)
    if len(words) < 2:
        runner.warn("\\getenv: missing required argument")
        return Outcome.ERROR
    value = os.environ.get(words[1])
    if value is not None and not set_variable(runner, words[0], value, "\\getenv: "):
        return Outcome.ERROR
    return Outcome.OK


def _show_function(runner: Runner, argument: str) -> Outcome:
    """psql's ``\\sf NAME``: the function's definition, as pg_get_functiondef writes it (each
    overload's, where the name has several)."""
    words = _words(argument)
    if not words:
        runner.warn("\\sf: missing required argument: FUNCNAME")
        return Outcome.ERROR
    try:
        definitions = runner.conn.session.function_definitions(words[0].split("(")[0])
    except txlake.Error as e:
        runner.show_error(e)
        return Outcome.ERROR
    for text in definitions:
        runner.print(text.rstrip("\n"))
    return Outcome.OK


def _show_view(runner: Runner, argument: str) -> Outcome:
    """psql's ``\\sv VIEW``: the view's definition, as ``CREATE OR REPLACE VIEW schema.name AS``
    and its query (the first of the name on the search path)."""
    words = _words(argument)
    if not words:
        runner.warn("\\sv: missing required argument: VIEW")
        return Outcome.ERROR
    try:
        name = parse_table_name(words[0])
    except txlake.Error as e:
        runner.show_error(e)
        return Outcome.ERROR
    wanted = "schemaname = current_schema()" if name.db is None else f"schemaname = {_literal(name.db)}"
    found = _query(runner, "SELECT schemaname, definition FROM pg_catalog.pg_views "
                           f"WHERE viewname = {_literal(name.name)} AND {wanted}")
    if found is None:
        return Outcome.ERROR
    if not found.num_rows:
        wanted = wanted.replace("schemaname", "n.nspname")
        other = _query(runner, "SELECT 1 FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n "
                               f"ON n.oid = c.relnamespace WHERE c.relname = {_literal(name.name)} AND {wanted}")
        runner.warn(f'ERROR:  "{words[0]}" is not a view' if other is not None and other.num_rows else
                    f'ERROR:  relation "{words[0]}" does not exist')
        return Outcome.ERROR
    schema, definition = found.to_pylist()[0].values()
    runner.print(f"CREATE OR REPLACE VIEW {schema}.{name.name} AS\n {definition.rstrip().rstrip(';')}")
    return Outcome.OK


def _literal(text: str) -> str:
    return "'" + text.replace("'", "''") + "'"


def _restrict(runner: Runner, argument: str) -> Outcome:
    """psql's ``\\restrict KEY`` (pg_dump 16.10 and later open a dump with it): no meta-command
    but ``\\unrestrict KEY`` runs until then, so that data restored cannot run any."""
    if not argument:
        runner.warn("\\restrict: missing required argument")
        return Outcome.ERROR
    runner.restrict_key = argument.split()[0]
    return Outcome.OK


def _unrestrict(runner: Runner, argument: str) -> Outcome:
    if runner.restrict_key is None:
        runner.warn("\\unrestrict: not currently in restricted mode")
        return Outcome.ERROR
    if not argument or argument.split()[0] != runner.restrict_key:
        runner.warn("\\unrestrict: wrong key")
        return Outcome.ERROR
    runner.restrict_key = None
    return Outcome.OK


def copy_command(runner: Runner, argument: str) -> Outcome:
    """psql's ``\\copy``: COPY's syntax, a file name quoted or not (relative to the shell's
    directory), and ``stdin`` / ``stdout`` - the lines after the command in a script (up to
    ``\\.``), else the shell's input (``pstdin``: always it); the rows to the shell's output."""
    parts = _copy_parts(argument.strip().rstrip(";").strip())
    if parts is None:
        runner.warn("\\copy: parse error at end of line\nUsage: \\copy TABLE [(COLUMNS)] | (QUERY) "
                    "FROM | TO FILE | STDIN | STDOUT [[WITH] (OPTIONS)]")
        return Outcome.ERROR
    head, direction, target, rest = parts
    word = target.lower()
    if word in ("stdout", "pstdout") and direction == "to":
        return _copy_to_output(runner, head, rest)
    if word in ("stdin", "pstdin") and direction == "from":
        data = runner.copy_data if word == "stdin" else None
        return _copy_from_input(runner, head, rest, data)
    if word == "program":
        runner.warn("\\copy: FROM PROGRAM and TO PROGRAM are not supported")
        return Outcome.ERROR
    if not target.startswith("'"):
        target = "'" + os.path.expanduser(target).replace("'", "''") + "'"
    return runner.run_statement(f"COPY {head} {direction.upper()} {target} {rest}".strip())


def _copy_parts(argument: str) -> tuple[str, str, str, str] | None:
    """(what, "from" | "to", the file as written, the options) of a ``\\copy`` argument."""
    i, n, depth = 0, len(argument), 0
    while i < n:
        ch = argument[i]
        if ch in "'\"":
            end = argument.find(ch, i + 1)
            while end != -1 and argument[end + 1:end + 2] == ch:  # a doubled quote
                end = argument.find(ch, end + 2)
            if end == -1:
                return None
            i = end + 1
            continue
        depth += ch == "("
        depth -= ch == ")"
        if depth == 0 and i > 0 and (argument[i - 1].isspace() or argument[i - 1] == ")"):
            for word in ("from", "to"):
                after = argument[i + len(word):i + len(word) + 1]
                if argument[i:i + len(word)].lower() == word and (after.isspace() or after in ("'", "")):
                    head, rest = argument[:i].strip(), argument[i + len(word):].lstrip()
                    if not head or not rest:
                        return None
                    if rest.startswith("'"):
                        end = rest.find("'", 1)
                        while end != -1 and rest[end + 1:end + 2] == "'":
                            end = rest.find("'", end + 2)
                        if end == -1:
                            return None
                        return head, word, rest[:end + 1], rest[end + 1:].strip()
                    target, _, options = rest.partition(" ")
                    return head, word, target, options.strip()
        i += 1
    return None


def _copy_to_output(runner: Runner, head: str, rest: str) -> Outcome:
    with tempfile.TemporaryDirectory(prefix="txlake-copy-") as folder:
        path = os.path.join(folder, "out")

        def show(cursor) -> None:
            with open(path, encoding="utf-8", newline="") as f:
                while chunk := f.read(1 << 20):
                    runner.write(chunk)
        quoted = path.replace("'", "''")
        return runner.run_statement(f"COPY {head} TO '{quoted}' {rest}".strip(), before_tag=show)


def _copy_from_input(runner: Runner, head: str, rest: str, data: str | None) -> Outcome:
    with tempfile.TemporaryDirectory(prefix="txlake-copy-") as folder:
        path = os.path.join(folder, "in")
        with open(path, "w", encoding="utf-8", newline="") as f:
            if data is not None:
                f.write(data)
            else:
                if runner.interactive:
                    runner.print("Enter data to be copied followed by a newline.\n"
                                 "End with a backslash and a period on a line by itself, or an EOF signal.")
                for line in runner.read_data():
                    if line.rstrip("\r\n") == "\\.":
                        break
                    f.write(line if line.endswith("\n") else line + "\n")
        quoted = path.replace("'", "''")
        return runner.run_statement(f"COPY {head} FROM '{quoted}' {rest}".strip())


def _switch(runner: Runner, name: str, argument: str, current: bool, also: str = "") -> bool | None:
    value = argument.lower()
    if not value:
        return not current
    if value in ("on", "true", "1"):
        return True
    if value in ("off", "false", "0"):
        return False
    runner.warn(f"\\{name}: unrecognized value \"{argument}\": expected on or off{also}")
    return None


def _timing(runner: Runner, argument: str) -> Outcome:
    value = _switch(runner, "timing", argument, runner.timing)
    if value is None:
        return Outcome.ERROR
    runner.timing = value
    runner.inform(f"Timing is {'on' if value else 'off'}.")
    return Outcome.OK


def _expanded(runner: Runner, argument: str) -> Outcome:
    if argument.lower() == "auto":
        runner.expanded = "auto"
        runner.inform("Expanded display is used automatically.")
        return Outcome.OK
    value = _switch(runner, "x", argument, runner.expanded == "on", also=" or auto")
    if value is None:
        return Outcome.ERROR
    runner.expanded = "on" if value else "off"
    runner.inform(f"Expanded display is {runner.expanded}.")
    return Outcome.OK


def _rows(runner: Runner, argument: str) -> Outcome:
    value = argument.lower()
    if not value:
        shown = "all" if runner.max_rows is None else runner.max_rows
        runner.print(f"Rows shown: {shown}.")
        return Outcome.OK
    if value == "all":
        runner.max_rows = None
    elif value.isdigit() and int(value) > 0:
        runner.max_rows = int(value)
    else:
        runner.warn(f"\\rows: expected a positive number or all, not \"{argument}\"")
        return Outcome.ERROR
    runner.inform(f"Rows shown: {argument.lower()}.")
    return Outcome.OK


def _isolation(runner: Runner, argument: str) -> Outcome:
    cursor = runner.conn.cursor()
    if not argument:
        cursor.execute("SHOW transaction_isolation")
        current = cursor.fetchone()[0]
        cursor.execute("SHOW default_transaction_isolation")
        default = cursor.fetchone()[0]
        if runner.conn.session.in_transaction:
            runner.print(f"Isolation level: {current} (this transaction); {default} for new transactions.")
        else:
            runner.print(f"Isolation level: {current}.")
        return Outcome.OK
    level = LEVELS.get(" ".join(argument.lower().replace("_", " ").replace("-", " ").split()))
    if level is None:
        runner.warn(f"\\isolation: unknown level \"{argument}\"; expected read committed, "
                    "repeatable read or serializable")
        return Outcome.ERROR
    cursor.execute(f"SET SESSION CHARACTERISTICS AS TRANSACTION ISOLATION LEVEL {level}")
    note = " (the open transaction keeps its level)" if runner.conn.session.in_transaction else ""
    runner.print(f"Isolation level for new transactions: {level.lower()}{note}.")
    return Outcome.OK


# --- psql's output settings ------------------------------------------------------------

_FORMATS = ("aligned", "unaligned", "csv")
_PSQL_FORMATS = "aligned, asciidoc, csv, html, latex, latex-longtable, troff-ms, unaligned, wrapped"


def _pset(runner: Runner, argument: str) -> Outcome:
    """psql's ``\\pset [OPTION [VALUE]]``: format (aligned, unaligned, csv; an unambiguous
    prefix will do), null, fieldsep, tuples_only (t), footer, expanded (x), pager (txlake has
    none: taken, changing nothing); without OPTION, each one's value. psql's other options
    (border, linestyle, title ...) are refused, never ignored."""
    words = _words(argument)
    if not words:
        for option in ("expanded", "fieldsep", "footer", "format", "null", "pager", "tuples_only"):
            runner.print(_pset_line(runner, option, listing=True))
        return Outcome.OK
    option, value = words[0].lower(), words[1] if len(words) > 1 else None
    option = {"t": "tuples_only", "x": "expanded"}.get(option, option)
    if option == "format":
        if value is not None:
            chosen = [f for f in _FORMATS if f.startswith(value.lower())]
            if len(chosen) != 1:
                runner.warn(f"\\pset: allowed formats are {_PSQL_FORMATS}" if not chosen or value == "" else
                            f'\\pset: ambiguous abbreviation "{value}" matches both "{chosen[0]}" and "{chosen[1]}"')
                return Outcome.ERROR
            runner.format = chosen[0]
    elif option in ("null", "fieldsep"):
        if value is not None:
            setattr(runner, option, value)
    elif option in ("tuples_only", "footer", "pager"):
        chosen = _switch(runner, "pset", value or "", _switches(runner)[option])
        if chosen is None:
            return Outcome.ERROR
        if option != "pager":  # (txlake has no pager: taken, changing nothing)
            setattr(runner, option, chosen)
    elif option == "expanded":
        return _expanded(runner, value or "")
    else:
        runner.warn(f"\\pset: unknown option: {words[0]}" if option not in _PSQL_OPTIONS else
                    f"\\pset: option {option} is not supported (txlake's options: expanded, fieldsep, footer, "
                    "format, null, pager, tuples_only)")
        return Outcome.ERROR
    runner.inform(_pset_line(runner, option))
    return Outcome.OK


_PSQL_OPTIONS = {"border", "columns", "csv_fieldsep", "fieldsep_zero", "linestyle", "numericlocale", "pager_min_lines",
                 "recordsep", "recordsep_zero", "tableattr", "title", "unicode_border_linestyle",
                 "unicode_column_linestyle", "unicode_header_linestyle", "xheader_width"}


def set_pset(runner: Runner, name: str, value: str) -> bool:
    """A display option the command line sets (-A, -t, -F, -x, -P NAME=VALUE; -o FILE, as
    ``\\o FILE``), as ``\\pset NAME VALUE`` sets it but without its message; False after a
    warning for one it cannot."""
    quiet, runner.quiet = runner.quiet, True
    word = "'" + value.replace("\\", "\\\\").replace("'", "''") + "'"  # (as _words reads it back)
    try:
        outcome = _output(runner, word) if name == "output" else _pset(runner, f"{name} {word}")
    finally:
        runner.quiet = quiet
    return outcome is Outcome.OK


def _switches(runner: Runner) -> dict[str, bool]:
    """The on / off options' values (pager: off, txlake having none)."""
    return {"tuples_only": runner.tuples_only, "footer": runner.footer, "pager": False}


def _pset_line(runner: Runner, option: str, listing: bool = False) -> str:
    """psql's words for an option's value: as ``\\pset`` lists it, or as it says it was set."""
    on = _switches(runner)
    if listing:
        value = {"expanded": runner.expanded, "fieldsep": f"'{runner.fieldsep}'", "format": runner.format,
                 "null": f"'{runner.null_shown}'"}.get(option) or ("on" if on[option] else "off")
        return f"{option:<12} {value}"
    return {"format": f"Output format is {runner.format}.", "null": f'Null display is "{runner.null_shown}".',
            "fieldsep": f'Field separator is "{runner.fieldsep}".',
            "tuples_only": f"Tuples only is {'on' if runner.tuples_only else 'off'}.",
            "footer": f"Default footer is {'on' if runner.footer else 'off'}.",
            "pager": "Pager usage is off."}[option]


def _aligned(runner: Runner, argument: str) -> Outcome:
    """psql's ``\\a``: the aligned format if the unaligned one is in use, else the unaligned one."""
    runner.format = "aligned" if runner.format == "unaligned" else "unaligned"
    runner.inform(_pset_line(runner, "format"))
    return Outcome.OK


def _tuples_only(runner: Runner, argument: str) -> Outcome:
    return _pset(runner, f"tuples_only {argument}".strip())


def _fieldsep(runner: Runner, argument: str) -> Outcome:
    return _pset(runner, f"fieldsep {argument}".strip())


def _output(runner: Runner, argument: str) -> Outcome:
    """psql's ``\\o [FILE]``: results (rows, command tags, ``\\qecho``) go to FILE, written anew,
    until the next ``\\o``; without FILE, to the output again. A pipe (``|command``) is refused."""
    words = _words(argument)
    if words and words[0].startswith("|"):
        runner.warn("\\o: piping results to a command is not supported")
        return Outcome.ERROR
    if words:
        path = os.path.expanduser(words[0])
        try:
            target = open(path, "w", encoding="utf-8")
        except OSError as e:
            runner.warn(f"{path}: {e.strerror or e}")
            return Outcome.ERROR
    runner.close_output()
    runner.output = target if words else None
    return Outcome.OK


def _conninfo(runner: Runner, argument: str) -> Outcome:
    """psql's ``\\conninfo``: the database, the user and - for psql's server - the warehouse."""
    database, user = runner.conn.execute("SELECT current_database(), current_user").fetchone()
    runner.print(f'You are connected to database "{database}" as user "{user}" '
                 f'on warehouse "{os.path.abspath(runner.conn.path)}".')
    return Outcome.OK


# psql's \if stack (Runner.branches): each level's state, and whether its \else was seen
# (a branch running; none has yet; one has run; all skipped, the whole block being in one not taken)
ACTIVE, WAITING, DONE, IGNORED = "active", "waiting", "done", "ignored"


def psql_bool(value: str) -> bool | None:
    """A boolean as psql's ParseVariableBool reads it: any prefix of true / false / yes / no,
    of on / off from two letters, 1 / 0, in any case; else None."""
    value = value.strip().lower()
    if value and (value == "1" or "true".startswith(value) or "yes".startswith(value)
                  or (len(value) > 1 and "on".startswith(value))):
        return True
    if value and (value == "0" or "false".startswith(value) or "no".startswith(value)
                  or (len(value) > 1 and "off".startswith(value))):
        return False
    return None


def _condition(runner: Runner, command: str, argument: str) -> bool | None:
    words = _words(argument)
    value = psql_bool(words[0]) if words else None
    if value is None:
        runner.warn(f'unrecognized value "{" ".join(words)}" for "{command} expression": Boolean expected')
    return value


def _if(runner: Runner, argument: str) -> Outcome:
    """psql's ``\\if EXPR`` ... ``\\elif EXPR`` ... ``\\else`` ... ``\\endif``: only the first
    branch whose EXPR (a boolean, after variables are put in: ``\\if :ERROR``) is true runs; an
    EXPR that is no boolean is an error, and false."""
    if runner.branches and runner.branches[-1][0] != ACTIVE:
        runner.branches.append([IGNORED, False])
        return Outcome.OK
    value = _condition(runner, "\\if", argument)
    runner.branches.append([ACTIVE if value else WAITING, False])
    return Outcome.OK if value is not None else Outcome.ERROR


def _level(runner: Runner, command: str) -> list | None:
    if not runner.branches:
        runner.warn(f"{command}: no matching \\if")
        return None
    if command != "\\endif" and runner.branches[-1][1]:
        runner.warn(f"{command}: cannot occur after \\else")
        return None
    return runner.branches[-1]


def _elif(runner: Runner, argument: str) -> Outcome:
    level = _level(runner, "\\elif")
    if level is None:
        return Outcome.ERROR
    if level[0] == ACTIVE:
        level[0] = DONE
    elif level[0] == WAITING:
        value = _condition(runner, "\\elif", argument)
        level[0] = ACTIVE if value else WAITING
        return Outcome.OK if value is not None else Outcome.ERROR
    return Outcome.OK


def _else(runner: Runner, argument: str) -> Outcome:
    level = _level(runner, "\\else")
    if level is None:
        return Outcome.ERROR
    level[0], level[1] = {ACTIVE: DONE, WAITING: ACTIVE}.get(level[0], level[0]), True
    return Outcome.OK


def _endif(runner: Runner, argument: str) -> Outcome:
    if _level(runner, "\\endif") is None:
        return Outcome.ERROR
    runner.branches.pop()
    return Outcome.OK


def _watch(runner: Runner, argument: str) -> Outcome:
    """``\\watch`` after an empty buffer: the last statement again (``Runner.run_watch``)."""
    return runner.run_watch(runner.last_sql, argument)


def _shell(runner: Runner, argument: str) -> Outcome:
    """psql's ``\\! COMMAND``: COMMAND run by the system's shell, its output to the shell's."""
    if not argument:
        runner.warn("\\!: missing required argument: COMMAND (txlake starts no interactive shell)")
        return Outcome.ERROR
    ran = subprocess.run(argument, shell=True, capture_output=True, text=True)
    if ran.stdout:
        runner.write(ran.stdout)
    if ran.stderr:
        runner.warn(ran.stderr.rstrip("\n"))
    return Outcome.OK if ran.returncode == 0 else Outcome.ERROR


COMMANDS = {
    "\\?": _help, "\\h": _help, "\\help": _help,
    "\\q": _quit, "\\quit": _quit,
    "\\dt": _list_tables,
    "\\dv": _list_views,
    "\\dm": _list_matviews,
    "\\ds": _list_sequences,
    "\\dT": _list_types,
    "\\dD": _list_domains,
    "\\di": _list_indexes,
    "\\dn": _list_schemas,
    "\\df": _list_functions,
    "\\du": _list_roles, "\\dg": _list_roles,
    "\\dx": _list_extensions,
    "\\errverbose": _error_verbose,
    "\\l": _list_databases, "\\list": _list_databases,
    "\\d": _describe,
    "\\snapshots": _snapshots,
    "\\i": _include, "\\include": _include,
    "\\ir": lambda runner, argument: _include(runner, argument, relative=True),
    "\\include_relative": lambda runner, argument: _include(runner, argument, relative=True),
    "\\cd": _change_directory,
    "\\setenv": _set_environment,
    "\\getenv": _get_environment,
    "\\sv": _show_view,
    "\\sf": _show_function,
    "\\c": _connect, "\\connect": _connect,
    "\\copy": copy_command,
    "\\restrict": _restrict,
    "\\unrestrict": _unrestrict,
    "\\timing": _timing,
    "\\x": _expanded,
    "\\rows": _rows,
    "\\isolation": _isolation,
    "\\echo": _echo,
    "\\qecho": _qecho,
    "\\set": _set,
    "\\unset": _unset,
    "\\pset": _pset,
    "\\a": _aligned,
    "\\t": _tuples_only,
    "\\f": _fieldsep,
    "\\o": _output, "\\out": _output,
    "\\conninfo": _conninfo,
    "\\!": _shell,
    "\\watch": _watch,
    "\\if": _if, "\\elif": _elif, "\\else": _else, "\\endif": _endif,
}
_PLUS = {"\\d": lambda runner, argument: _describe(runner, argument, plus=True),
         "\\dt": lambda runner, argument: _list_tables(runner, argument, plus=True),
         "\\dv": lambda runner, argument: _list_views(runner, argument, plus=True),
         "\\dm": lambda runner, argument: _list_matviews(runner, argument, plus=True),
         "\\ds": lambda runner, argument: _list_sequences(runner, argument, plus=True)}
