"""The non-interactive modes of the command: -c, -f, piped stdin, --csv, exit codes.

``txlake`` runs the real program in a child process; ``main`` calls the same entry point in
this process (standard streams swapped for strings), which is faster for the many small cases.
"""

import io
import os
import re
import subprocess
import sys
from types import SimpleNamespace

import pytest

from txlake.repl import cli


@pytest.fixture
def txlake(program, tmp_path):
    argv, env = program

    def run(*args, stdin: str | None = None, cwd=None) -> subprocess.CompletedProcess:
        return subprocess.run([*argv, *args], input=stdin if stdin is not None else "",
                              capture_output=True, text=True, timeout=60, env=env, cwd=cwd or tmp_path)

    return run


@pytest.fixture
def main(monkeypatch, tmp_path, capsys):
    monkeypatch.setenv("TXLAKE_HISTFILE", str(tmp_path / "history"))

    def run(*args, stdin: str = "", cwd=None):
        if cwd is not None:
            monkeypatch.chdir(cwd)
        monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
        try:
            code = cli.main(list(args))
        except SystemExit as e:  # argparse
            code = e.code
        captured = capsys.readouterr()
        return SimpleNamespace(returncode=code, stdout=captured.out, stderr=captured.err)

    return run


SETUP = ("CREATE TABLE t (id INT PRIMARY KEY, v TEXT);"
         "INSERT INTO t VALUES (1, 'a'), (2, NULL), (3, 'x,y')")


def test_a_command_of_several_statements_is_one_transaction(main, tmp_path):
    """As psql -c: the statements of one -c string commit together or not at all (unless the
    string has transaction control of its own); -f runs each on its own."""
    wh = str(tmp_path / "wh")
    assert main(wh, "-c", SETUP).returncode == 0
    done = main(wh, "-c", "UPDATE t SET v = 'b' WHERE id = 3; INSERT INTO t VALUES (1, 'dup')")
    assert done.returncode == 1 and "23505" in done.stderr
    assert main(wh, "-c", "UPDATE t SET v = 'c' WHERE id = 1; BEGIN; INSERT INTO t VALUES (1, 'dup')").returncode == 1
    script = tmp_path / "s.sql"
    script.write_text("UPDATE t SET v = 'f' WHERE id = 2;\nINSERT INTO t VALUES (1, 'dup');\n")
    assert main(wh, "-f", str(script)).returncode == 0  # (an error in a file: psql goes on, exit 0)
    done = main(wh, "--csv", "-c", "SELECT id, v FROM t ORDER BY id")
    assert done.stdout.splitlines() == ["id,v", "1,c", "2,f", '3,"x,y"']


def test_command_runs_statements_and_meta_commands_in_order(txlake, tmp_path):
    wh = str(tmp_path / "wh")
    done = txlake(wh, "-c", SETUP, "-c", "SELECT * FROM t ORDER BY id", "-c", "\\dt")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[:2] == ["CREATE TABLE", "INSERT 0 3"]
    assert lines[2:8] == [" id |  v", "----+------", "  1 | a", "  2 | NULL", "  3 | x,y", "(3 rows)"]
    assert "default" in lines[10] and "| t " in lines[10]
    assert done.stderr == ""


def test_command_stops_at_the_first_error_with_exit_code_1(txlake, tmp_path):
    wh = str(tmp_path / "wh")
    done = txlake(wh, "-c", "CREATE TABLE t (id INT); SELEC 1; INSERT INTO t VALUES (1)",
                  "-c", "INSERT INTO t VALUES (2)")
    assert done.returncode == 1
    assert "ERROR:  42601" in done.stderr and "LINE 1: SELEC 1" in done.stderr and "^" in done.stderr
    assert "INSERT" not in done.stdout
    # (psql sends one -c string as one query: a statement that does not parse runs none of it)
    after = txlake(wh, "-c", "SELECT count(*) AS n FROM t", "--csv")
    assert after.returncode == 1 and 'relation "t" does not exist' in after.stderr


def test_csv_output(main, tmp_path):
    wh = str(tmp_path / "wh")
    main(wh, "-c", SETUP)
    done = main(wh, "--csv", "-c", "SELECT id, v, v = 'a' AS is_a FROM t ORDER BY id")
    assert done.returncode == 0
    assert done.stdout == 'id,v,is_a\n1,a,t\n2,,\n3,"x,y",f\n'


def test_the_new_types_print_as_psql_prints_them(main, tmp_path):
    """timestamptz in the session's zone with its offset, bytea in the hex format, time, smallint
    and real (as the float4's text)."""
    wh = str(tmp_path / "wh")
    main(wh, "-c", "CREATE TABLE e (at TIMESTAMPTZ, b BYTEA, t TIME, s SMALLINT, r REAL)",
         "-c", "INSERT INTO e VALUES ('2024-01-02 03:04:05.123456+00', '\\x00ff', '01:02:03.5', 7, 0.1)")
    done = main(wh, "--csv", "-c", "SET TIME ZONE 'Asia/Kolkata'; SELECT * FROM e")
    assert done.returncode == 0
    assert done.stdout.splitlines()[-2:] == ["at,b,t,s,r", "2024-01-02 08:34:05.123456+05:30,\\x00ff,01:02:03.5,7,0.1"]
    done = main(wh, "-c", "SET TIME ZONE 'UTC'; SELECT at, b FROM e")
    assert " 2024-01-02 03:04:05.123456+00 | \\x00ff" in done.stdout


def test_explain_prints_its_plan_without_a_tag(main, tmp_path):
    wh = str(tmp_path / "wh")
    main(wh, "-c", SETUP)
    done = main(wh, "-c", "EXPLAIN SELECT v FROM t WHERE id = 1")
    assert done.returncode == 0 and "Primary key lookup on t" in done.stdout
    assert done.stdout.rstrip().endswith("(2 rows)")  # (no EXPLAIN tag after the rows, as psql)


def test_file_mode_and_its_errors(txlake, main, tmp_path):
    wh = str(tmp_path / "wh")
    good = tmp_path / "good.sql"
    good.write_text("-- setup\nCREATE TABLE t (id INT PRIMARY KEY,\n  v TEXT);\n"
                    "BEGIN;\nINSERT INTO t VALUES (1, 'one;two');\nCOMMIT;\nSELECT v FROM t\n")
    done = txlake(wh, "-q", "-f", str(good))
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["    v", "---------", " one;two", "(1 row)"]

    bad = tmp_path / "bad.sql"
    bad.write_text("BEGIN;\nINSERT INTO t VALUES (2, 'b');\nINSERT INTO t VALUES (1, 'dup');\n"
                   "COMMIT;\n")
    done = main(wh, "-v", "ON_ERROR_STOP=1", "-f", str(bad))
    assert done.returncode == 3  # (psql's status for an error in a script with ON_ERROR_STOP)
    assert f"txlake:{bad}:3: ERROR:  23505" in done.stderr  # psql's FILE:LINE: prefix
    assert "rolled back" in done.stderr and "COMMIT" not in done.stdout
    assert main(wh, "--csv", "-c", "SELECT count(*) AS n FROM t").stdout == "n\n1\n"
    # without ON_ERROR_STOP the script goes on, as psql's: its COMMIT of the failed block rolls back
    done = main(wh, "-f", str(bad))
    assert done.returncode == 0 and f"txlake:{bad}:3: ERROR:  23505" in done.stderr
    assert done.stdout.splitlines()[-1] == "ROLLBACK"
    assert main(wh, "--csv", "-c", "SELECT count(*) AS n FROM t").stdout == "n\n1\n"

    missing = main(wh, "-f", str(tmp_path / "nope.sql"))
    assert missing.returncode == 1 and "nope.sql" in missing.stderr


def test_piped_stdin_runs_as_a_script(txlake, tmp_path):
    wh = str(tmp_path / "wh")
    done = txlake(wh, stdin=SETUP + ";\nSELECT count(*) AS n\nFROM t;\n")
    assert done.returncode == 0, done.stderr
    assert "INSERT 0 3" in done.stdout and "(1 row)" in done.stdout
    assert "txlake=>" not in done.stdout  # no prompts, no banner



def test_piped_stdin_goes_on_after_an_error_unless_on_error_stop(main, tmp_path):
    """As psql: an error is shown and the script goes on (exit status 0); with ON_ERROR_STOP it
    stops there (3). txlake stopped always, so a pg_dump file stopped at its first statement
    txlake does not support."""
    wh = str(tmp_path / "wh")
    script = "SELECT 1;\n\nSELECT *\n  FROM missing;\nSELECT 2;\n"
    failed = main(wh, "-v", "ON_ERROR_STOP=1", stdin=script)
    assert failed.returncode == 3 and "txlake:<stdin>:3: ERROR:  42P01" in failed.stderr
    assert "(1 row)" in failed.stdout and failed.stdout.count("(1 row)") == 1
    went_on = main(wh, stdin=script)
    assert went_on.returncode == 0 and "txlake:<stdin>:3: ERROR:  42P01" in went_on.stderr
    assert went_on.stdout.count("(1 row)") == 2
    dash = main(wh, "-f", "-", "--csv", stdin="SELECT 7 AS seven")
    assert dash.returncode == 0 and dash.stdout == "seven\n7\n"


def test_include_from_a_script(main, tmp_path):
    wh = str(tmp_path / "wh")
    (tmp_path / "inner.sql").write_text("CREATE TABLE t (id INT);\nINSERT INTO t VALUES (5);\n")
    done = main(wh, "--csv", "-c", f"\\i {tmp_path / 'inner.sql'}", "-c", "SELECT id FROM t")
    assert done.returncode == 0, done.stderr
    assert done.stdout == "CREATE TABLE\nINSERT 0 1\nid\n5\n"


def test_unknown_meta_command_fails_a_script(main, tmp_path):
    done = main(str(tmp_path / "wh"), "-c", "\\nope")
    assert done.returncode == 1 and "invalid command \\nope" in done.stderr


def test_default_warehouse_is_created_in_the_current_directory(main, tmp_path):
    done = main("-c", "CREATE TABLE t (id INT)", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "txlake-warehouse").is_dir()


def test_bad_usage_exits_2(main, tmp_path):
    assert main(str(tmp_path / "wh"), "--no-such-option").returncode == 2
    assert main(str(tmp_path / "wh"), "--isolation", "whenever", "-c", "SELECT 1").returncode == 2


def test_a_transaction_left_open_by_a_script_is_rolled_back_with_a_warning(main, tmp_path):
    wh = str(tmp_path / "wh")
    done = main(wh, stdin="CREATE TABLE t (id INT);\nBEGIN;\nINSERT INTO t VALUES (1);\n")
    assert done.returncode == 0
    assert "WARNING:  end of input: the open transaction was rolled back" in done.stderr
    assert main(wh, "--csv", "-c", "SELECT count(*) AS n FROM t").stdout == "n\n0\n"


@pytest.mark.parametrize("meta", ["\\d (select 1)", "\\d t, u", "\\snapshots k where 1=0 union all select 1",
                                  "\\snapshots (select 1)"])
def test_a_table_argument_that_is_no_table_name_is_42602(main, tmp_path, meta):
    """\\d (select 1) ended the shell with a StopIteration traceback; txlake_snapshots read its
    string as SELECT * FROM <string> (a query in it ran; \\snapshots (select 1) was XX000)."""
    wh = str(tmp_path / "wh")
    assert main(wh, "-c", "CREATE TABLE k (a INT)").returncode == 0
    done = main(wh, "-c", meta)
    assert done.returncode == 1 and "42602" in done.stderr and "Traceback" not in done.stderr
    assert "Table" not in done.stdout


def test_include_of_a_file_that_is_not_utf8_is_an_error_not_a_traceback(main, tmp_path):
    script = tmp_path / "latin1.sql"
    script.write_bytes("SELECT 'café';\n".encode("latin-1"))
    done = main(str(tmp_path / "wh"), "-c", "BEGIN", "-c", f"\\i {script}")
    assert done.returncode == 1 and "not UTF-8" in done.stderr


def test_closed_stdin_and_a_reader_that_stops_reading(txlake, program, tmp_path):
    """Standard input closed: nothing to run (was an AttributeError traceback). Output into a
    pipe whose reader has gone: the command stops quietly (was XX000 for each statement, or a
    traceback from a meta-command)."""
    wh = str(tmp_path / "wh")
    argv, env = program
    closed = subprocess.run([*argv, wh], stdin=subprocess.DEVNULL, capture_output=True, text=True, env=env,
                            timeout=60, preexec_fn=lambda: os.close(0))
    assert closed.returncode == 0 and closed.stderr == ""
    metas = tmp_path / "metas.sql"
    metas.write_text("\\d k\n" * 5000)  # (more than a pipe holds)
    for command in [("-c", "SELECT * FROM range(300000)"), ("-f", str(metas))]:
        proc = subprocess.Popen([*argv, wh, "-c", "CREATE TABLE IF NOT EXISTS k (a INT)", *command],
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
        proc.stdout.readline()
        proc.stdout.close()
        err = proc.stderr.read().decode()
        assert proc.wait(timeout=60) == 1 and "XX000" not in err and "Traceback" not in err, err
    full = subprocess.run([*argv, wh, "-c", "SELECT 1"], stdout=open("/dev/full", "w"), stderr=subprocess.PIPE,
                          text=True, env=env, timeout=60)
    assert full.returncode == 1 and "could not write the output" in full.stderr


def test_returning_rows_are_followed_by_the_command_tag(main, tmp_path):
    wh = str(tmp_path / "wh")
    done = main(wh, "-c", "CREATE TABLE k (a INT)", "-c", "INSERT INTO k VALUES (1), (2) RETURNING a")
    assert done.stdout.splitlines()[-2:] == ["(2 rows)", "INSERT 0 2"]
    assert main(wh, "--csv", "-c", "DELETE FROM k RETURNING a").stdout.splitlines() == ["a", "1", "2"]


def test_notices_carry_postgresql_s_severity(main, tmp_path):
    """'relation ... already exists, skipping' is a NOTICE in PostgreSQL (the shell said
    WARNING for every notice); 'there is no transaction in progress' a WARNING."""
    wh = str(tmp_path / "wh")
    done = main(wh, "-c", "CREATE TABLE k (a INT)", "-c", "CREATE TABLE IF NOT EXISTS k (a INT)", "-c", "COMMIT")
    assert done.stderr.splitlines() == ['NOTICE:  relation "k" already exists, skipping',
                                        "WARNING:  there is no transaction in progress"]


def test_quiet_leaves_out_what_meta_commands_say(main, tmp_path):
    done = main(str(tmp_path / "wh"), "-q", "-c", "\\timing off", "-c", "\\x on", "-c", "SELECT 1 AS a")
    assert done.stdout.splitlines() == ["-[ RECORD 1 ]-", "a | 1"]
    done = main(str(tmp_path / "wh"), "-c", "\\x maybe")
    assert "expected on or off or auto" in done.stderr


def test_meta_commands_list_and_describe_views(main, tmp_path):
    wh = str(tmp_path / "wh")
    done = main(wh, "-c", "CREATE TABLE t (id INT PRIMARY KEY, v TEXT)", "-c",
                "CREATE VIEW tv (ident) AS SELECT id FROM t", "-c", "\\d", "-c", "\\d tv", "-c", "\\d t")
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert any("| tv " in line and "view" in line for line in out.splitlines())
    assert any("| t " in line and "table" in line for line in out.splitlines())
    assert 'View "public.tv"' in out and "ident" in out
    assert "View definition:" in out and "SELECT id FROM public.t" in out
    assert 'Table "public.t"' in out


def test_describe_a_renamed_table(main, tmp_path):
    wh = str(tmp_path / "wh")
    done = main(wh, "-c", "CREATE TABLE t (id SERIAL PRIMARY KEY, a INT CHECK (a > 0))", "-c",
                "ALTER TABLE t RENAME TO u", "-c", "\\d u", "-c", "\\dt")
    assert done.returncode == 0, done.stderr
    out = done.stdout.splitlines()
    assert 'Table "public.u"' in out and '    "t_pkey" PRIMARY KEY, btree (id)' in out
    assert '    "t_a_check" CHECK (a > 0)' in out
    assert any("| u " in line for line in out) and not any("| t " in line for line in out)


def test_describe_lists_check_constraints_as_psql(main, tmp_path):
    wh = str(tmp_path / "wh")
    done = main(wh, "-c", "CREATE TABLE t (id INT PRIMARY KEY, a INT CHECK (a > 0), b INT, "
                "CONSTRAINT ab CHECK (a < b OR b IS NULL))", "-c",
                "ALTER TABLE t ADD CONSTRAINT nv CHECK (b IS NOT NULL) NOT VALID", "-c", "\\d t")
    assert done.returncode == 0, done.stderr
    out = done.stdout.splitlines()
    at = out.index("Check constraints:")
    assert out[at + 1:at + 4] == ['    "ab" CHECK (a < b OR b IS NULL)', '    "nv" CHECK (b IS NOT NULL) NOT VALID',
                                  '    "t_a_check" CHECK (a > 0)']


def test_describe_shows_defaults_as_postgresql_deparses_them(main, tmp_path):
    """\\d showed a default in DuckDB's SQL: NOW(), UUID(), 'x', nextval('default.t_id_seq'),
    NEXTVAL('s'); psql shows pg_get_expr's text of it."""
    wh = str(tmp_path / "wh")
    done = main(wh, "-c", "CREATE SEQUENCE s", "-c",
                "CREATE TABLE t (id SERIAL, at TIMESTAMPTZ DEFAULT now(), s TEXT DEFAULT 'x', "
                "v VARCHAR(5) DEFAULT 'it''s', n INT DEFAULT 0, m NUMERIC(6,2) DEFAULT -1.25, b BOOLEAN DEFAULT true, "
                "u UUID DEFAULT gen_random_uuid(), k BIGINT DEFAULT nextval('s'), e INT DEFAULT (1 + 2) * 3, "
                "a INT[] DEFAULT '{1,2}', d DATE DEFAULT current_date)", "-c", "\\d t")
    assert done.returncode == 0, done.stderr
    defaults = {cells[0]: cells[3] for cells in ([c.strip() for c in line.split("|")]
                                                 for line in done.stdout.splitlines()) if len(cells) == 5}
    assert {k: v for k, v in defaults.items() if k != "column"} == {
        "id": "nextval('t_id_seq'::regclass)", "at": "now()", "s": "'x'::text", "v": "'it''s'::character varying",
        "n": "0", "m": "'-1.25'::numeric", "b": "true", "u": "gen_random_uuid()", "k": "nextval('s'::regclass)",
        "e": "(1 + 2) * 3", "a": "'{1,2}'::integer[]", "d": "CURRENT_DATE"}


def test_plus_shows_comments_as_psql(main, tmp_path):
    """\\dt+ and \\d+ were \\dt and \\d (COMMENT ON kept nothing); psql's show the comments in a
    Description column, empty where there is none. \\ds+ was an invalid command."""
    wh = str(tmp_path / "wh")
    done = main(wh, "-c", "CREATE TABLE t (id INT PRIMARY KEY, a TEXT)", "-c", "CREATE TABLE u (x INT)", "-c",
                "CREATE SEQUENCE s", "-c", "COMMENT ON TABLE t IS 'the table'", "-c",
                "COMMENT ON COLUMN t.a IS 'column a'", "-c", "COMMENT ON SEQUENCE s IS 'numbers'",
                "-c", "\\dt+", "-c", "\\d+ t", "-c", "\\ds+", "-c", "\\d t")
    assert done.returncode == 0, done.stderr
    rows = [[cell.strip() for cell in line.split("|")] for line in done.stdout.splitlines() if "|" in line]
    assert ["default", "t", "2", "0", "table", "the table"] in rows and ["default", "u", "1", "0", "table", ""] in rows
    assert ["id", "integer", "no", "", "PRIMARY KEY", ""] in rows and ["a", "text", "yes", "", "", "column a"] in rows
    assert ["default", "s", "0", "NULL", "sequence", "numbers"] in rows
    assert ["a", "text", "yes", "", ""] in rows  # (\\d: no comments)


def test_describe_lists_foreign_keys_both_ways(main, tmp_path):
    wh = str(tmp_path / "wh")
    done = main(wh, "-c", "CREATE TABLE p (id INT PRIMARY KEY)", "-c",
                "CREATE TABLE c (a INT REFERENCES p ON DELETE CASCADE)", "-c", "\\d c", "-c", "\\d p")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    at = lines.index("Foreign-key constraints:")
    assert lines[at + 1] == '    "c_a_fkey" FOREIGN KEY (a) REFERENCES p(id) ON DELETE CASCADE'
    at = lines.index("Referenced by:")
    assert lines[at + 1] == '    TABLE "c" CONSTRAINT "c_a_fkey" FOREIGN KEY (a) REFERENCES p(id) ON DELETE CASCADE'


def test_describe_shows_deferrable_constraints_as_psql(main, tmp_path):
    done = main(str(tmp_path / "wh"), "-c", "CREATE TABLE p (id INT PRIMARY KEY)", "-c",
                "CREATE TABLE c (a INT REFERENCES p DEFERRABLE INITIALLY DEFERRED, b INT UNIQUE DEFERRABLE, "
                "d INT, CONSTRAINT c_d_key UNIQUE (d) DEFERRABLE INITIALLY DEFERRED)", "-c", "\\d c", "-c", "\\d p")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert done.stdout.split("Indexes:\n")[1].splitlines()[:2] == [
        '    "c_b_key" UNIQUE CONSTRAINT, btree (b) DEFERRABLE',
        '    "c_d_key" UNIQUE CONSTRAINT, btree (d) DEFERRABLE INITIALLY DEFERRED']
    at = lines.index("Foreign-key constraints:")
    assert lines[at + 1] == '    "c_a_fkey" FOREIGN KEY (a) REFERENCES p(id) DEFERRABLE INITIALLY DEFERRED'
    at = lines.index("Referenced by:")
    assert lines[at + 1] == ('    TABLE "c" CONSTRAINT "c_a_fkey" FOREIGN KEY (a) REFERENCES p(id) '
                             'DEFERRABLE INITIALLY DEFERRED')


def test_list_commands_as_psql_s(main, tmp_path):
    """\\dt lists tables, \\dv views (it was an invalid command), \\d both; each takes psql's
    name pattern (it was ignored) and a + (it was an invalid command); \\d "Name" says the
    name without its quotes (it showed Table ""Name"")."""
    wh = str(tmp_path / "wh")
    done = main(wh, "-c", 'CREATE TABLE orders (id INT); CREATE TABLE "Order Lines" (id INT); '
                'CREATE TABLE items (id INT); CREATE VIEW big_orders AS SELECT * FROM orders',
                "-c", "\\dt", "-c", "\\dv", "-c", "\\dt+ ord*", "-c", '\\dt "Order"*', "-c", "\\dv public.b?g_*",
                "-c", "\\dv nothing*", "-c", '\\d+ "Order Lines"', "-c", '\\d "No Such"')
    assert done.returncode == 1 and 'relation "No Such" does not exist' in done.stderr
    listed = [[line.split("|")[1].strip() for line in part.splitlines() if line.startswith(" default ")]
              for part in done.stdout.split("(")]
    assert listed[:5] == [["Order Lines", "items", "orders"], ["big_orders"], ["orders"], ["Order Lines"],
                          ["big_orders"]]
    assert 'Did not find any views named "nothing*".' in done.stdout
    assert 'Table "public.Order Lines"\n' in done.stdout


def test_indexes_schemas_and_databases_are_listed(main, tmp_path):
    """\\di, \\dn and \\l were invalid commands; psql users reach for them first."""
    wh = str(tmp_path / "wh")
    done = main(wh, "-c", "CREATE TABLE a (id INT PRIMARY KEY, x INT UNIQUE); CREATE SCHEMA s2; "
                "CREATE TABLE s2.b (id INT); CREATE INDEX ON s2.b (id)",
                "-c", "\\di", "-c", "\\di a_*", "-c", "\\di nope", "-c", "\\dn", "-c", "\\dn pg*", "-c", "\\l")
    assert done.returncode == 0, done.stderr
    blocks = [block.strip("\n").splitlines() for block in re.split(r"\(\d+ rows?\)", done.stdout)]
    rows = [[[cell.strip() for cell in line.split("|")] for line in block if "|" in line] for block in blocks]
    assert rows[0] == [["schema", "index", "table", "definition"],
                       ["public", "a_pkey", "a", "CREATE UNIQUE INDEX a_pkey ON public.a USING btree (id)"],
                       ["public", "a_x_key", "a", "CREATE UNIQUE INDEX a_x_key ON public.a USING btree (x)"],
                       ["s2", "b_id_idx", "b", "CREATE INDEX b_id_idx ON s2.b USING btree (id)"]]
    assert [row[1] for row in rows[1][1:]] == ["a_pkey", "a_x_key"]  # (\\di a_*)
    assert blocks[2][0] == 'Did not find any indexes named "nope".'
    assert [line.strip() for line in blocks[2][1:]] == ["name", "--------", "public", "s2"]  # (\\dn)
    assert [line.strip() for line in blocks[3]] == ["name", "------------", "pg_catalog"]  # (\\dn pg*)
    assert rows[4] == [["name", "encoding"], ["txlake", "UTF8"]]


def test_listing_an_empty_warehouse_says_there_is_nothing(main, tmp_path):
    """\\d, \\dt and \\dT of a warehouse with no relations or types (or with a type only) said
    nothing: they failed in pyarrow (an untyped empty filter)."""
    wh = str(tmp_path / "wh")
    done = main(wh, "-c", "\\d", "-c", "\\dt", "-c", "\\dT x*")
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["Did not find any relations.", "Did not find any tables.",
                                        'Did not find any data types named "x*".']
    done = main(wh, "-c", "CREATE TYPE mood AS ENUM ('a')", "-c", "\\d")
    assert done.returncode == 0 and done.stdout.splitlines()[-1] == "Did not find any relations.", done.stderr


def test_enum_and_domain_types_are_listed_and_shown_as_columns_types(main, tmp_path):
    """\\dT lists the enums and domains (an enum with its labels), \\dD the domains; \\d t names
    a column's type as it was declared, not its base type."""
    done = main(str(tmp_path / "wh"), "-c", "CREATE TYPE mood AS ENUM ('sad', 'ok'); "
                "CREATE DOMAIN email AS text NOT NULL CHECK (VALUE ~~ '%@%'); CREATE TABLE f (m mood, e email)",
                "-c", "\\dT", "-c", "\\dD", "-c", "\\dT m*", "-c", "\\d f", "-c", "\\dD nothing")
    assert done.returncode == 0, done.stderr
    lines = [[cell.strip() for cell in line.split("|")] for line in done.stdout.splitlines() if "|" in line]
    assert ["public", "email", ""] in lines and ["public", "mood", "sad, ok"] in lines
    assert lines.count(["public", "mood", "sad, ok"]) == 2  # (\\dT and \\dT m*)
    assert any(row[:4] == ["public", "email", "text", "not null"] and "CHECK" in row[5] for row in lines)
    assert ["m", "mood", "yes", "", ""] in lines and ["e", "email", "yes", "", ""] in lines
    assert 'Did not find any domains named "nothing".' in done.stdout
    done = main(str(tmp_path / "wh"), "-c", "\\d mood")
    assert done.returncode == 1 and 'relation "mood" does not exist' in done.stderr


def test_g_and_gx_send_the_statement(main, tmp_path):
    done = main(str(tmp_path / "wh"), "-c", "SELECT 1 AS a \\g", "-f", "-", stdin="SELECT 2 AS b,\n 'x' AS c\n\\gx\n")
    assert done.returncode == 0, done.stderr
    assert done.stdout == " a\n---\n 1\n(1 row)\n-[ RECORD 1 ]-\nb | 2\nc | x\n"


def test_echo_and_set_on_error_stop_as_psql_scripts_use_them(main, tmp_path):
    """Both were invalid commands: a psql script opening with \\set ON_ERROR_STOP on failed at
    its first line."""
    script = tmp_path / "s.sql"
    script.write_text("\\set ON_ERROR_STOP on\n\\echo creating  'it''s\\there'\nSELECT 1 AS x;\n"
                      "\\echo -n no newline\n\\echo\n\\set ON_ERROR_STOP off\nSELEC 2;\nSELECT 3 AS y;\n"
                      "\\set ON_ERROR_STOP\nSELEC 4;\nSELECT 5;\n")
    done = main(str(tmp_path / "wh"), "-f", str(script))
    assert done.stdout == "creating it's\there\n x\n---\n 1\n(1 row)\nno newline\n y\n---\n 3\n(1 row)\n"
    assert done.returncode == 3 and done.stderr.count("42601") == 2  # (off: on past SELEC 2; on: SELEC 4 stops)
    assert main(str(tmp_path / "wh"), "-c", "\\set ON_ERROR_STOP maybe").returncode == 1


def test_a_command_that_does_not_parse_runs_nothing(main, tmp_path):
    """As psql -c: PostgreSQL parses the whole string first, so a syntax error in its last
    statement means none runs - the INSERT before it was committed (its parse error turned
    the one-transaction rule off)."""
    wh = str(tmp_path / "wh")
    assert main(wh, "-c", "CREATE TABLE t (id INT)").returncode == 0
    done = main(wh, "-c", "INSERT INTO t VALUES (1); SELEC 1")
    assert done.returncode == 1 and "42601" in done.stderr and "LINE 1: SELEC 1" in done.stderr
    assert "INSERT" not in done.stdout
    assert main(wh, "--csv", "-c", "SELECT count(*) AS n FROM t").stdout == "n\n0\n"


def test_describe_of_a_pattern_describes_each_match(main, tmp_path):
    """As psql's \\d PATTERN (it was 42602 'invalid table name')."""
    wh = str(tmp_path / "wh")
    done = main(wh, "-c", 'CREATE TABLE orders (id INT); CREATE TABLE "Order Lines" (n INT); CREATE TABLE i (i INT)',
                "-c", "CREATE SCHEMA s", "-c", "CREATE TABLE s.other_orders (o INT)",
                "-c", "\\d *orders", "-c", '\\d "Order"*', "-c", "\\d nothing*")
    assert done.returncode == 1 and 'Did not find any relation named "nothing*".' in done.stderr
    titles = [line for line in done.stdout.splitlines() if line.startswith("Table ")]
    assert titles == ['Table "public.orders"', 'Table "s.other_orders"', 'Table "public.Order Lines"']


def test_psql_s_single_transaction_and_on_error_stop_options(main, tmp_path):
    """psql -X -v ON_ERROR_STOP=1 -1 -f ...: the options psql scripts are run with (each was a
    usage error, exit 2). -1 runs every -c / -f in one transaction: all of it or nothing."""
    wh = str(tmp_path / "wh")
    assert main(wh, "-X", "-v", "ON_ERROR_STOP=1", "-c", "CREATE TABLE t (id INT PRIMARY KEY)").returncode == 0
    (tmp_path / "a.sql").write_text("INSERT INTO t VALUES (1);\nINSERT INTO t VALUES (2);\n")
    (tmp_path / "b.sql").write_text("INSERT INTO t VALUES (3);\nINSERT INTO t VALUES (1);\n")
    stopped = main(wh, "-v", "ON_ERROR_STOP=1", "-1", "-f", str(tmp_path / "a.sql"), "-f", str(tmp_path / "b.sql"))
    assert stopped.returncode == 3
    assert main(wh, "--csv", "-c", "SELECT count(*) AS n FROM t").stdout == "n\n0\n"  # a.sql's rows too
    # without ON_ERROR_STOP, as psql: on to the end, whose COMMIT of the failed block rolls it back
    went_on = main(wh, "-1", "-f", str(tmp_path / "a.sql"), "-f", str(tmp_path / "b.sql"))
    assert went_on.returncode == 0 and went_on.stderr.count("ERROR:") == 1
    assert main(wh, "--csv", "-c", "SELECT count(*) AS n FROM t").stdout == "n\n0\n"
    done = main(wh, "-1", "-f", str(tmp_path / "a.sql"), "-c", "INSERT INTO t VALUES (3); INSERT INTO t VALUES (4)")
    assert done.returncode == 0, done.stderr
    assert main(wh, "--csv", "-c", "SELECT count(*) AS n FROM t").stdout == "n\n4\n"
    assert main(wh, "-v", "ECHO=all", "-c", "SELECT 1").returncode == 2
    assert main(wh, "-v", "ON_ERROR_STOP=0", "-c", "SELECT 1").returncode == 0
    assert main(wh, "-v", "ON_ERROR_STOP=perhaps", "-c", "SELECT 1").returncode == 2


def test_an_unknown_column_is_shown_with_a_caret(main, tmp_path):
    wh = str(tmp_path / "wh")
    done = main(wh, "-c", "CREATE TABLE t (id INT)", "-c", "SELECT id,\n  nope FROM t")
    assert done.returncode == 1
    assert done.stderr.splitlines() == ['ERROR:  42703: column "nope" does not exist', "LINE 2:   nope FROM t",
                                        "          ^"]


def test_arrays_are_shown_in_postgresql_s_text(main, tmp_path):
    wh = str(tmp_path / "wh")
    done = main(wh, "-c", """CREATE TABLE t (a INT[], s TEXT[]); INSERT INTO t VALUES ('{1,NULL}', '{"a b",x,""}');
                            SELECT * FROM t""")
    assert done.returncode == 0, done.stderr
    assert '{1,NULL} | {"a b",x,""}' in done.stdout


def test_describe_lists_a_tables_unique_indexes_as_psql(main, tmp_path):
    done = main(str(tmp_path / "wh"), "-c", "CREATE TABLE t (id INT PRIMARY KEY, a INT UNIQUE, b INT)", "-c",
                "CREATE UNIQUE INDEX t_b ON t (b, a)", "-c", "\\d t")
    assert done.returncode == 0, done.stderr
    assert done.stdout.split("Indexes:\n")[1].splitlines()[:3] == [
        '    "t_pkey" PRIMARY KEY, btree (id)', '    "t_a_key" UNIQUE CONSTRAINT, btree (a)',
        '    "t_b" UNIQUE, btree (b, a)']


def test_describe_lists_a_tables_plain_indexes_as_psql(main, tmp_path):
    done = main(str(tmp_path / "wh"), "-c", "CREATE TABLE t (id INT PRIMARY KEY, a INT, b TEXT)", "-c",
                "CREATE INDEX ON t (a)", "-c", "CREATE INDEX t_h ON t USING hash (b, a)", "-c", "\\d t")
    assert done.returncode == 0, done.stderr
    assert done.stdout.split("Indexes:\n")[1].splitlines()[:3] == [
        '    "t_pkey" PRIMARY KEY, btree (id)', '    "t_a_idx" btree (a)', '    "t_h" hash (b, a)']


def test_copy_from_stdin_in_a_script_reads_the_lines_after_it(main, tmp_path):
    """As psql sends them (pg_dump's data): the lines after ``COPY ... FROM stdin;`` up to ``\\.``
    are its rows, never statements or meta-commands (``\\N`` was an invalid command, the rows
    syntax errors, and the COPY itself 0A000)."""
    wh = str(tmp_path / "wh")
    script = tmp_path / "load.sql"
    script.write_text("CREATE TABLE t (id INT PRIMARY KEY, v TEXT);\n"
                      "--\n-- Data for Name: t\n--\n\n"
                      "COPY public.t (id, v) FROM stdin;\n1\tone\n2\t\\N\n3\ta\\tb\\\\c\n\\.\n\n"
                      "SELECT count(*) AS n FROM t;\n"
                      "copy t from STDIN;\n4\tfour\n")  # (the data may run to the end)
    done = main(wh, "-f", str(script))
    assert done.returncode == 0 and done.stderr == "", done.stderr
    assert done.stdout.splitlines() == ["CREATE TABLE", "COPY 3", " n", "---", " 3", "(1 row)", "COPY 1"]
    rows = main(wh, "--csv", "-c", "SELECT id, v, v IS NULL AS missing FROM t ORDER BY id").stdout
    assert rows.splitlines() == ["id,v,missing", "1,one,f", "2,,t", '3,a\tb\\c,f', "4,four,f"]
    # a bad row fails that COPY (nothing of it loads, the line told), and the script goes on
    script.write_text("COPY t FROM stdin;\n5\tfive\nsix\t6\n\\.\nSELECT 1 AS after;\n")
    done = main(wh, "-f", str(script))
    assert "22P02" in done.stderr and 'line 2, column id: "six"' in done.stderr and "(1 row)" in done.stdout
    assert main(wh, "--csv", "-c", "SELECT count(*) AS n FROM t").stdout == "n\n4\n"


def test_restrict_allows_only_unrestrict_with_its_key(main, tmp_path):
    """pg_dump 16.10 and later put a dump between ``\\restrict KEY`` and ``\\unrestrict KEY``
    (an invalid command before): meta-commands in between are refused, SQL and COPY data run."""
    wh = str(tmp_path / "wh")
    script = tmp_path / "dump.sql"
    script.write_text("\\restrict Ab12Cd\n\nCREATE TABLE t (id INT);\nCOPY t (id) FROM stdin;\n7\n\\.\n"
                      "\\echo hidden\n\\unrestrict wrong\n\\unrestrict Ab12Cd\n\\echo shown\n")
    done = main(wh, "-q", "-f", str(script))
    assert done.returncode == 0
    assert done.stdout == "shown\n"
    assert "backslash commands are restricted; only \\unrestrict is allowed" in done.stderr
    assert "\\unrestrict: wrong key" in done.stderr
    assert main(wh, "--csv", "-c", "SELECT id FROM t").stdout == "id\n7\n"
    assert "not currently in restricted mode" in main(wh, "-c", "\\unrestrict Ab12Cd").stderr


def test_a_numeric_quotient_prints_as_psql_prints_it(main, tmp_path):
    """1::numeric / 3 printed a double's 0.3333333333333333; PostgreSQL's numeric quotient has 20
    decimals here, 16 for 10::numeric / 4."""
    done = main(str(tmp_path / "wh"), "-c", "SELECT 1::numeric / 3 AS third, 10::numeric / 4 AS q, sqrt(2.0) AS r")
    assert done.returncode == 0
    assert " 0.33333333333333333333 | 2.5000000000000000 | 1.414213562373095" in done.stdout.splitlines()


def test_describe_shows_generated_columns_as_psql(main, tmp_path):
    done = main(str(tmp_path / "wh"), "-c", "CREATE TABLE g (a INT PRIMARY KEY, "
                "b INT GENERATED ALWAYS AS (a * 2) STORED, c INT GENERATED ALWAYS AS ((a + 1) * 2) STORED)",
                "-c", "\\d g")
    assert done.returncode == 0, done.stderr
    lines = [re.sub(r"\s+", " ", line).strip() for line in done.stdout.splitlines()]
    assert "b | integer | yes | generated always as (a * 2) stored |" in lines
    assert "c | integer | yes | generated always as ((a + 1) * 2) stored |" in lines


def test_errverbose_repeats_the_last_error_with_all_its_fields(main, tmp_path):
    """psql's \\errverbose (an invalid command before): the last error with its SQLSTATE, the
    line and caret of its position, DETAIL / HINT, and LOCATION - where txlake raised it; before
    any error, psql's words. An error of a script keeps no FILE:LINE prefix."""
    wh = str(tmp_path / "wh")
    done = main(wh, "-c", "\\errverbose", "-c", "CREATE TABLE a (id INT PRIMARY KEY)",
                "-c", "INSERT INTO a VALUES (1)", "-c", "INSERT INTO a VALUES (1)", "-c", "\\errverbose",
                "-c", "SELECT * FROM nope", "-c", "\\errverbose")
    lines = done.stdout.splitlines()
    assert lines[0] == "There is no previous error."
    unique = lines.index("ERROR:  23505: duplicate key value violates unique constraint \"a_pkey\"")
    assert lines[unique + 1] == "DETAIL:  Key (id)=(1) already exists."
    assert re.fullmatch(r"LOCATION:  \w+, \w+\.py:\d+", lines[unique + 2])
    assert lines[unique + 3:unique + 6] == ['ERROR:  42P01: relation "nope" does not exist',
                                            "LINE 1: SELECT * FROM nope", " " * 22 + "^"]
    assert re.fullmatch(r"LOCATION:  \w+, \w+\.py:\d+", lines[unique + 6])
    script = tmp_path / "s.sql"
    script.write_text("SELECT 1 / 0;\n\\errverbose\n")
    done = main(wh, "-f", str(script))
    assert done.stderr == f"txlake:{script}:1: ERROR:  22012: division by zero\n"
    assert done.stdout.startswith("ERROR:  22012: division by zero\nLOCATION:  ")


def test_functions_roles_and_extensions_are_listed(main, tmp_path):
    """\\df, \\du / \\dg and \\dx were invalid commands: the functions a pattern names (DuckDB's
    catalog, in PostgreSQL's type names; none without one: txlake has no user functions), the one
    role - the owner, the user the shell runs as - and the extensions built in."""
    wh = str(tmp_path / "wh")
    done = main(wh, "-c", "\\df", "-c", "\\df lower", "-c", "\\df count", "-c", "\\df nope*", "-c", "\\du",
                "-c", "\\dg nobody", "-c", "\\dx", "-c", "\\dx uuid*")
    assert done.returncode == 0, done.stderr
    blocks = [block.strip("\n").splitlines() for block in re.split(r"\(\d+ rows?\)", done.stdout)]
    rows = [[[cell.strip() for cell in line.split("|")] for line in block if "|" in line] for block in blocks]
    assert blocks[0][0] == "Did not find any functions."
    assert rows[0] == [["schema", "name", "result type", "argument types", "type"],
                       ["pg_catalog", "lower", "text", "text", "func"]]
    assert rows[1][1:] == [["pg_catalog", "count", "bigint", "", "agg"],
                           ["pg_catalog", "count", "bigint", '"any"', "agg"]]
    assert blocks[2][0] == 'Did not find any functions named "nope*".'
    user = main(wh, "-At", "-c", "SELECT current_user").stdout.strip()
    assert rows[2] == [["role", "attributes"], [user, "Superuser, Create role, Create DB, Replication, Bypass RLS"]]
    assert blocks[3][0] == 'Did not find any roles named "nobody".'
    assert [row[:3] for row in rows[3]] == [["name", "version", "schema"], ["pgcrypto", "1.3", "pg_catalog"],
                                            ["plpgsql", "1.0", "pg_catalog"], ["uuid-ossp", "1.1", "pg_catalog"]]
    assert rows[3][2][3] == "PL/pgSQL procedural language"
    assert rows[3][3][3] == "generate universally unique identifiers (UUIDs): uuid_generate_v4() and uuid_nil() only"
    assert [row[0] for row in rows[4]] == ["name", "uuid-ossp"]
    assert "\\errverbose" in main(wh, "-c", "\\?").stdout


def test_gexec_ir_sv_cd_setenv_and_getenv_as_psql(main, tmp_path, monkeypatch):
    """psql's \\gexec (each value of the result run as a statement: the scripts that build their
    DDL with format()), \\ir (a file named from the running script's folder), \\sv, \\cd,
    \\setenv and \\getenv were invalid commands."""
    monkeypatch.chdir(tmp_path)
    wh = str(tmp_path / "wh")
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "child.sql").write_text("SELECT 'child' AS ran;\n")
    (tmp_path / "sub" / "main.sql").write_text(
        "CREATE TABLE a (id INT);\nCREATE TABLE b (id INT);\n\\ir child.sql\n"
        "SELECT format('INSERT INTO %I VALUES (%s)', t, n) FROM (VALUES ('a', 1), ('b', 2)) v(t, n) \\gexec\n"
        "SELECT 'SELECT count(*) AS a FROM a', NULL, 'SELECT count(*) AS b FROM b' \\gexec\n"
        "\\setenv TXL_TEST_X hello\n\\getenv from_env TXL_TEST_X\n\\echo :from_env\n"
        "CREATE VIEW v AS SELECT id FROM a WHERE id > 0;\n\\sv v\n\\sv a\n\\sv nope\n"
        "\\cd sub\n\\i child.sql\n")
    done = main(wh, "-f", str(tmp_path / "sub" / "main.sql"))
    lines = done.stdout.splitlines()
    assert lines[:8] == ["CREATE TABLE", "CREATE TABLE", "  ran", "-------", " child", "(1 row)",
                         "INSERT 0 1", "INSERT 0 1"]
    assert lines[8:16] == [" a", "---", " 1", "(1 row)", " b", "---", " 1", "(1 row)"]  # (NULL passed over)
    assert lines[16:20] == ["hello", "CREATE VIEW", "CREATE OR REPLACE VIEW public.v AS",
                            " SELECT id FROM public.a WHERE id > 0"]
    assert lines[20:] == ["  ran", "-------", " child", "(1 row)"]  # (\i after \cd sub)
    assert done.stderr.splitlines() == ['ERROR:  "a" is not a view', 'ERROR:  relation "nope" does not exist']


def test_a_script_defines_functions_and_the_shell_lists_and_shows_them(main, tmp_path):
    """A BEGIN ATOMIC body's ``;`` end nothing (psql's rule: split there, its END was a COMMIT);
    \\df lists CREATE FUNCTION's functions and \\sf shows one as pg_get_functiondef writes it."""
    wh = str(tmp_path / "wh")
    script = tmp_path / "f.sql"
    script.write_text("CREATE FUNCTION public.f(a integer) RETURNS integer\n    LANGUAGE sql IMMUTABLE\n"
                      "    AS $$ SELECT a + 1 $$;\nALTER FUNCTION public.f(integer) OWNER TO someone;\n"
                      "CREATE FUNCTION g(x int) RETURNS int LANGUAGE sql\nBEGIN ATOMIC\n"
                      "  SELECT CASE WHEN x > 0 THEN f(x) ELSE 0 END;\nEND;\n"
                      "SELECT f(1) AS f, g(2) AS g, g(-1) AS h;\n\\df\n\\sf g\n")
    done = main(wh, "-f", str(script))
    assert done.returncode == 0 and done.stderr == "", done.stderr
    out = done.stdout
    assert " 2 | 3 | 0" in out
    assert " public | f    | integer     | a integer      | func" in out
    assert "CREATE OR REPLACE FUNCTION public.g(x integer)\n RETURNS integer\n LANGUAGE sql\nBEGIN ATOMIC\n" \
           "  SELECT CASE WHEN x > 0 THEN f(x) ELSE 0 END;\nEND" in out


def test_notifications_are_printed_after_the_command_as_psql_prints_them(main, tmp_path):
    """LISTEN / NOTIFY were 0A000; psql prints what a listening session was sent after each command."""
    wh = str(tmp_path / "wh")
    done = main(wh, "-c", "LISTEN c", "-c", "NOTIFY c, 'hi'", "-c", "BEGIN", "-c", "NOTIFY c", "-c", "SELECT 1 AS one",
                "-c", "COMMIT", "-c", "UNLISTEN *", "-c", "NOTIFY c, 'unheard'")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    pid = lines[2].rsplit(" ", 1)[1].rstrip(".")
    assert lines[:3] == ["LISTEN", "NOTIFY", f'Asynchronous notification "c" with payload "hi" received from server '
                                             f"process with PID {pid}."]
    assert lines[-5:] == ["(1 row)", "COMMIT", f'Asynchronous notification "c" received from server process with '
                                               f"PID {pid}.", "UNLISTEN", "NOTIFY"]


def test_describe_shows_partitioning_as_psql(main, tmp_path):
    wh = str(tmp_path / "wh")
    done = main(wh, "-c", "CREATE TABLE m (id INT, ts DATE) PARTITION BY RANGE (ts)", "-c",
                "CREATE TABLE m1 PARTITION OF m FOR VALUES FROM ('2024-01-01') TO ('2024-02-01')",
                "-c", "CREATE TABLE m2 PARTITION OF m DEFAULT",
                "-c", "\\d m", "-c", "\\d+ m", "-c", "\\d m1", "-c", "\\dt")
    assert done.returncode == 0, done.stderr
    out = done.stdout.splitlines()
    assert 'Partitioned table "public.m"' in out and "Partition key: RANGE (ts)" in out
    assert "Number of partitions: 2 (Use \\d+ to list them.)" in out
    at = next(i for i, line in enumerate(out) if line.startswith("Partitions: "))
    assert out[at:at + 2] == ["Partitions: m1 FOR VALUES FROM ('2024-01-01') TO ('2024-02-01'),",
                              "            m2 DEFAULT"]
    assert "Partition of: m FOR VALUES FROM ('2024-01-01') TO ('2024-02-01')" in out
    assert any("partitioned table" in line and " m " in line for line in out)
