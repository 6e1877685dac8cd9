"""The ``txlake`` command: an interactive SQL shell, or ``-c`` / ``-f`` for scripts."""

from __future__ import annotations

import argparse
import os
import sys

import txlake
from txlake.repl.render import render_error, render_table

DEFAULT_WAREHOUSE = "./txlake-warehouse"

DESCRIPTION = """\
txlake: transactional SQL (PostgreSQL-style transactions, DuckDB queries) over Paimon-layout
lakehouse tables. Starts an interactive shell on WAREHOUSE (created if missing), or runs SQL
non-interactively with -c / -f. Statements run in autocommit mode unless you say BEGIN.
"""

EPILOG = """\
examples:
  txlake                                   shell on ./txlake-warehouse
  txlake wh -c "CREATE TABLE t (id INT PRIMARY KEY, v TEXT)"
  txlake wh -c "INSERT INTO t VALUES (1, 'a')" -c "SELECT * FROM t"
  txlake wh -f setup.sql

shell meta-commands: \\dt (tables), \\d NAME (columns), \\timing, \\q (quit), \\? (help)
exit status: 0 ok, 1 an SQL error (the script stops at the first one), 2 bad usage.
"""


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="txlake", description=DESCRIPTION, epilog=EPILOG,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("warehouse", nargs="?", default=DEFAULT_WAREHOUSE,
                   help=f"warehouse directory (default: {DEFAULT_WAREHOUSE})")
    p.add_argument("-c", "--command", action="append", default=[], metavar="SQL",
                   help="run SQL (may be given several times) and exit")
    p.add_argument("-f", "--file", action="append", default=[], metavar="FILE",
                   help="run the SQL in FILE ('-' for standard input) and exit")
    p.add_argument("--isolation", metavar="LEVEL", default=None,
                   help="default isolation level: 'read committed', 'repeatable read' (default), 'serializable'")
    p.add_argument("--publish", choices=("async", "sync", "off"), default="async",
                   help="when committed data becomes Paimon snapshots: in the background (default), "
                        "before each commit returns, or never")
    p.add_argument("--version", action="version", version=f"txlake {txlake.__version__}")
    return p


def show_progress(done: int, total: int, what: str) -> None:
    """Progress of long maintenance runs (CALL txlake.compact ...) on standard error."""
    end = "\n" if done >= total else ""
    print(f"\r{what}: {done}/{total}", end=end, file=sys.stderr, flush=True)


def run_sql(conn, sql: str, out=sys.stdout) -> None:
    """Run every statement in ``sql``, printing each result as psql does."""
    conn.session.progress = show_progress
    cursor = conn.cursor()
    from txlake.parser.parse import parse
    for statement in parse(sql):
        result = conn._run(statement, ())
        for notice in conn.notices:
            print(f"NOTICE:  {notice}", file=sys.stderr)
        conn.notices.clear()
        if result.table is not None:
            print(render_table(result.table), file=out)
        elif result.status:
            print(result.status, file=out)
    cursor.close()


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        conn = txlake.connect(args.warehouse, autocommit=True, isolation_level=args.isolation,
                              publish=args.publish)
    except txlake.Error as e:
        print(render_error(e), file=sys.stderr)
        return 2
    try:
        if args.command or args.file:
            for sql in args.command:
                run_sql(conn, sql)
            for path in args.file:
                text = sys.stdin.read() if path == "-" else open(path, encoding="utf-8").read()
                run_sql(conn, text)
            return 0
        from txlake.repl.shell import Shell
        return Shell(conn, args.warehouse).run()
    except txlake.Error as e:
        print(render_error(e), file=sys.stderr)
        return 1
    except OSError as e:
        print(f"txlake: {e}", file=sys.stderr)
        return 2
    finally:
        conn.close()


if __name__ == "__main__":
    sys.exit(main())
