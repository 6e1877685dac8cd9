"""The ``txlake`` command: an interactive SQL shell, or ``-c`` / ``-f`` / piped SQL for scripts."""

from __future__ import annotations

import argparse
import os
import sys

import txlake
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
  txlake wh -c "\\copy t from data.csv with (format csv, header)"
  txlake wh -c "\\copy t from stdin" < data.tsv

shell meta-commands: \\? (help), \\d (tables and views), \\dt, \\dv [PATTERN], \\d TABLE|VIEW, \\snapshots TABLE,
\\i FILE, \\copy ..., \\isolation [LEVEL], \\x, \\timing, \\rows, \\q
-c and -f run in the order given. Scripts stop at the first error. The statements of one -c
run as one transaction (as psql's), unless it holds BEGIN / COMMIT of its own.
exit status (psql's): 0 ok; 1 an error in a -c command, or a file that cannot be read; 2 bad
usage or a warehouse that cannot be opened; 3 an error in a script (-f or standard input).
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
    p.add_argument("-q", "--quiet", action="store_true",
                   help="do not print command tags such as INSERT 0 1")
    p.add_argument("--isolation", metavar="LEVEL", default=None,
                   help="default isolation level: 'read committed', 'repeatable read' (default), 'serializable'")
    p.add_argument("--publish", choices=("async", "sync", "off"), default="async",
                   help="when committed data becomes Paimon snapshots: in the background (default), "
                        "before each commit returns, or never")
    p.add_argument("--version", action="version", version=f"txlake {txlake.__version__}")
    p.set_defaults(scripts=[])
    return p


def show_progress(done: int, total: int, what: str) -> None:
    """Progress of long maintenance runs (CALL txlake.compact ...) on standard error."""
    end = "\n" if done >= total else ""
    print(f"\r{what}: {done}/{total}", end=end, file=sys.stderr, flush=True)


def run_scripts(runner: Runner, scripts: list[tuple[str, str]]) -> int:
    """Run -c / -f scripts (or piped stdin) in order; stop at the first error."""
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
        outcome = runner.run_script(text, stop_on_error=True, source=source, one_transaction=kind == "command")
        if outcome is Outcome.ERROR:  # (psql's exit status: 3 for a script's error under ON_ERROR_STOP)
            runner.rollback_open_transaction("stopping at the error")
            return 1 if kind == "command" else 3
        if outcome is Outcome.QUIT:
            break
    runner.rollback_open_transaction("end of input")
    return 0


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
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
    try:
        if args.scripts:
            return run_scripts(runner, args.scripts)
        if sys.stdin is None or not sys.stdin.isatty():  # (None: standard input closed)
            return run_scripts(runner, [("file", "-")])
        from txlake.repl.shell import Shell
        return Shell(runner, args.warehouse).run()
    except OutputError as e:  # what ran stays as it is (an open transaction is rolled back)
        if not isinstance(e.cause, BrokenPipeError):  # (a reader that stopped reading: quietly)
            print(f"txlake: could not write the output: {e.cause.strerror or e.cause}", file=sys.stderr)
        _quiet_stdout()
        return 1
    finally:
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
