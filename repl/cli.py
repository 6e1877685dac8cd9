"""The ``txlake`` command: an interactive SQL shell, or ``-c`` / ``-f`` / piped SQL for scripts."""

from __future__ import annotations

import argparse
import os
import sys

import txlake
from txlake.repl.meta import on_error_stop, set_pset, variable_refused
from txlake.repl.render import render_error
from txlake.repl.runner import Outcome, OutputError, Runner

DEFAULT_WAREHOUSE = "./txlake-warehouse"

DESCRIPTION = """\
txlake: transactional SQL (PostgreSQL-style transactions, DuckDB queries) over Paimon-layout
lakehouse tables. Starts an interactive shell on WAREHOUSE (created if missing), or runs SQL
non-interactively with -c / -f or from standard input when that is not a terminal.
Statements run in autocommit mode unless you say BEGIN.
"""

EPILOG = """\
examples:
  txlake                                   shell on ./txlake-warehouse
  txlake wh -c "CREATE TABLE t (id INT PRIMARY KEY, v TEXT)"
  txlake wh -c "INSERT INTO t VALUES (1, 'a')" -c "SELECT * FROM t"
  txlake wh -f setup.sql
  echo "SELECT * FROM t;" | txlake wh --csv
  n=$(txlake wh -At -c "SELECT count(*) FROM t")     one value, for a shell script
  txlake wh -v t=orders -c 'SELECT * FROM :"t"'     psql's variables
  txlake wh -c "\\copy t from data.csv with (format csv, header)"
  txlake wh -c "\\copy t from stdin" < data.tsv

shell meta-commands: \\? (help), \\d (tables and views), \\dt, \\dv, \\dm, \\ds, \\dT, \\dD [PATTERN], \\d TABLE|VIEW
(+: with comments), \\di, \\dn, \\df, \\du, \\dx [PATTERN], \\l, \\errverbose, \\snapshots TABLE, \\sv VIEW,
\\sf FUNCTION, \\i FILE, \\ir FILE, \\cd, \\setenv, \\getenv, \\copy ..., \\c (stays in the warehouse),
\\isolation [LEVEL], \\set / \\unset / \\gset (variables), \\gexec, \\if / \\elif / \\else / \\endif, \\watch,
\\pset, \\a, \\t, \\f, \\o FILE, \\x, \\timing, \\rows, \\conninfo, \\!, \\q
-c and -f run in the order given. As in psql, an error is shown and the script goes on with its
next statement, unless -v ON_ERROR_STOP=1 (or \\set ON_ERROR_STOP on in the script) makes it
stop there. The statements of one -c run as one transaction (as psql's), unless it holds BEGIN /
COMMIT of its own; an error ends that -c. With -1 all the -c and -f run as one transaction.
Loading a pg_dump file: txlake WAREHOUSE -f dump.sql (README: "Loading a pg_dump"); a dump made
with -C (--create) loads too: its CREATE DATABASE and \\connect are NOTICEs, the warehouse stays.
exit status (psql's): 0 ok (also after errors a script went on from); 1 an error in the last -c
command, or a file that cannot be read; 2 bad usage or a warehouse that cannot be opened; 3 an
error in a script (-f or standard input) under ON_ERROR_STOP.
"""


class _Script(argparse.Action):
    """-c and -f append to one list, so they run in the order given (as in psql)."""

    def __call__(self, parser, namespace, values, option_string=None):
        scripts = list(getattr(namespace, self.dest) or [])
        scripts.append((self.const, values))
        setattr(namespace, self.dest, scripts)


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="txlake", description=DESCRIPTION, epilog=EPILOG,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("warehouse", nargs="?", default=DEFAULT_WAREHOUSE,
                   help=f"warehouse directory (default: {DEFAULT_WAREHOUSE})")
    p.add_argument("-c", "--command", dest="scripts", action=_Script, const="command", metavar="SQL",
                   help="run SQL (statements and meta-commands; may be given several times) and exit")
    p.add_argument("-f", "--file", dest="scripts", action=_Script, const="file", metavar="FILE",
                   help="run the SQL in FILE ('-' for standard input) and exit")
    p.add_argument("--csv", action="store_true",
                   help="print results as CSV (header line; NULL is an empty field, '' is \"\")")
    p.add_argument("-A", "--no-align", action="store_true",
                   help="print results unaligned: the values one field separator (|) apart")
    p.add_argument("-t", "--tuples-only", action="store_true",
                   help="print the rows only: no column names, no row count")
    p.add_argument("-F", "--field-separator", metavar="SEP", help="the unaligned format's field separator")
    p.add_argument("-x", "--expanded", action="store_true", help="expanded display: a line per column")
    p.add_argument("-P", "--pset", dest="psets", action="append", default=[], metavar="NAME=VALUE",
                   help="a display option, as \\pset NAME VALUE (format, null, fieldsep, tuples_only, footer)")
    p.add_argument("-o", "--output", metavar="FILE", help="write results to FILE, as \\o FILE")
    p.add_argument("-q", "--quiet", action="store_true",
                   help="do not print command tags such as INSERT 0 1")
    p.add_argument("--isolation", metavar="LEVEL", default=None,
                   help="default isolation level: 'read committed', 'repeatable read' (default), 'serializable'")
    p.add_argument("--publish", choices=("async", "sync", "off"), default="async",
                   help="when committed data becomes Paimon snapshots: in the background (default), "
                        "before each commit returns, or never")
    p.add_argument("-1", "--single-transaction", action="store_true",
                   help="run the -c / -f scripts as one transaction (BEGIN before, COMMIT after), as psql's")
    p.add_argument("-v", "--set", "--variable", dest="variables", action="append", default=[],
                   metavar="NAME=VALUE", help="set psql's variable NAME (SQL reads it as :NAME, :'NAME', :\"NAME\"); "
                                              "ON_ERROR_STOP=1: a script stops at its first error")
    p.add_argument("-X", "--no-psqlrc", action="store_true",
                   help="accepted for psql's command lines (txlake reads no startup file)")
    p.add_argument("--version", action="version", version=f"txlake {txlake.__version__}")
    p.set_defaults(scripts=[])
    return p


def variables(parser: argparse.ArgumentParser, given: list[str]) -> dict[str, str]:
    """-v NAME=VALUE, in order (NAME alone unsets it, as psql's); one ``variable_refused``
    refuses is a usage error."""
    found = {}
    for variable in given:
        name, equals, value = variable.partition("=")
        refused = variable_refused(name, value if equals else "off")
        if refused is not None:
            parser.error(f"-v {variable}: {refused}")
        if equals:
            found[name] = value
        else:
            found.pop(name, None)
    return found


def display_options(parser: argparse.ArgumentParser, args) -> list[tuple[str, str]]:
    """The \\pset settings -A, -t, -F, -x and -P NAME=VALUE ask for, in psql's order of precedence."""
    psets = [("format", "unaligned")] if args.no_align else []
    psets += [("tuples_only", "on")] if args.tuples_only else []
    psets += [("fieldsep", args.field_separator)] if args.field_separator is not None else []
    psets += [("expanded", "on")] if args.expanded else []
    for item in args.psets:
        name, equals, value = item.partition("=")
        psets.append((name, value if equals else ""))
    return psets


def show_progress(done: int, total: int, what: str) -> None:
    """Progress of long maintenance runs (CALL txlake.compact ...) on standard error."""
    end = "\n" if done >= total else ""
    print(f"\r{what}: {done}/{total}", end=end, file=sys.stderr, flush=True)


def run_scripts(runner: Runner, scripts: list[tuple[str, str]], single: bool = False) -> int:
    """Run -c / -f scripts (or piped stdin) in order; after an error go on, unless
    ``runner.on_error_stop``. ``single`` (-1): all in one transaction, committed after the last
    (rolled back at an error: a failed transaction's COMMIT is a ROLLBACK). The exit status is
    psql's: the last script's (an error in a -c is 1, in a file only under ON_ERROR_STOP: 3)."""
    if single:
        runner.conn.execute("BEGIN")
    status = 0
    for kind, value in scripts:
        source = None
        if kind == "command":
            text = value
        else:
            source = "<stdin>" if value == "-" else value
            try:
                if value == "-":
                    text = sys.stdin.read() if sys.stdin is not None else ""
                else:
                    with open(value, encoding="utf-8") as f:
                        text = f.read()
            except (OSError, UnicodeDecodeError) as e:
                runner.warn(f"txlake: {value}: {getattr(e, 'strerror', None) or e}")
                return 1
        outcome = runner.run_script(text, source=source, one_transaction=kind == "command")
        failed = outcome is Outcome.ERROR
        status = (1 if kind == "command" else 3 if runner.on_error_stop else 0) if failed else 0
        if failed and runner.on_error_stop:
            runner.rollback_open_transaction("stopping at the error")
            return status
        if outcome is Outcome.QUIT:
            break
    if single and runner.conn.session.in_transaction:
        try:
            runner.conn.execute("COMMIT")
        except txlake.Error as e:  # (a serialization failure at the commit, say)
            runner.show_error(e)
            return 1
    runner.rollback_open_transaction("end of input")
    return status


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    given = variables(parser, args.variables)
    try:
        conn = txlake.connect(args.warehouse, autocommit=True, isolation_level=args.isolation,
                              publish=args.publish)
    except txlake.Error as e:
        print(render_error(e), file=sys.stderr)
        return 2
    except OSError as e:
        print(f"txlake: cannot open warehouse {args.warehouse}: {e}", file=sys.stderr)
        return 2
    conn.session.progress = show_progress
    runner = Runner(conn, csv=args.csv, quiet=args.quiet)
    runner.variables.update(given)
    runner.on_error_stop = any(name.upper() == "ON_ERROR_STOP" and on_error_stop(value)
                               for name, value in given.items())
    for name, value in display_options(parser, args):
        if not set_pset(runner, name, value):
            conn.close()
            return 2
    if args.output is not None and not set_pset(runner, "output", args.output):
        conn.close()
        return 2
    try:
        if args.scripts:
            return run_scripts(runner, args.scripts, args.single_transaction)
        if sys.stdin is None or not sys.stdin.isatty():  # (None: standard input closed)
            return run_scripts(runner, [("file", "-")], args.single_transaction)
        from txlake.repl.shell import Shell
        return Shell(runner, args.warehouse).run()
    except OutputError as e:  # what ran stays as it is (an open transaction is rolled back)
        if not isinstance(e.cause, BrokenPipeError):  # (a reader that stopped reading: quietly)
            print(f"txlake: could not write the output: {e.cause.strerror or e.cause}", file=sys.stderr)
        _quiet_stdout()
        return 1
    finally:
        runner.close_output()
        conn.close()


def _quiet_stdout() -> None:
    """Point standard output at /dev/null, so that Python's flush at exit does not fail again."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):
        pass


if __name__ == "__main__":
    sys.exit(main())
