"""psql's variables and output settings in the shell and on the command line: \\set / \\unset /
:name / \\gset / -v; \\pset, \\a, \\t, \\f, \\o and -A, -t, -F, -P, -x, -o (psql's documentation:
"Variables", "SQL Interpolation", \\pset's options)."""

import io
import sys
from types import SimpleNamespace

import pytest

from txlake.repl import cli
from txlake.repl.scanner import interpolate

SETUP = ("CREATE TABLE t (id INT PRIMARY KEY, v TEXT);"
         "INSERT INTO t VALUES (1, 'a'), (2, NULL), (3, 'x|y')")


@pytest.fixture
def run(monkeypatch, tmp_path, capsys):
    """``txlake WAREHOUSE ARGS`` in this process on a warehouse holding ``t``; its streams and exit status."""
    monkeypatch.setenv("TXLAKE_HISTFILE", str(tmp_path / "history"))
    monkeypatch.chdir(tmp_path)
    warehouse = str(tmp_path / "wh")
    assert cli.main([warehouse, "-q", "-c", SETUP]) == 0
    capsys.readouterr()

    def txlake(*args, stdin: str = ""):
        monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
        try:
            code = cli.main([warehouse, *args])
        except SystemExit as e:  # argparse
            code = e.code
        captured = capsys.readouterr()
        return SimpleNamespace(returncode=code, stdout=captured.out, stderr=captured.err)

    return txlake


def test_interpolation_outside_quotes_comments_and_casts():
    variables = {"a": "1", "s": "it's", "n": 'My "T'}
    assert interpolate("SELECT :a, :'s', :\"n\", x::text, a[1:2], :unset, :'unset'", variables) \
        == "SELECT 1, 'it''s', \"My \"\"T\", x::text, a[1:2], :unset, :'unset'"
    kept = "SELECT ':a', \":a\", E'\\':a', $$ :a $$, $q$:a$q$ /* :a /* :a */ */ -- :a\n"
    assert interpolate(kept, variables) == kept
    assert interpolate("SELECT ':a", variables) == "SELECT ':a"  # (an unterminated string)
    assert interpolate(":a:::a", variables) == "1::1"


def test_dash_a_t_for_shell_scripts(run):
    assert run("-At", "-c", "SELECT count(*) FROM t").stdout == "3\n"
    assert run("-A", "-c", "SELECT * FROM t ORDER BY id").stdout == "id|v\n1|a\n2|\n3|x|y\n(3 rows)\n"
    done = run("-A", "-F", ",", "-P", "null=(null)", "-P", "footer=off", "-c", "SELECT * FROM t ORDER BY id")
    assert done.stdout == "id,v\n1,a\n2,(null)\n3,x|y\n"
    assert run("-t", "-c", "SELECT * FROM t ORDER BY id").stdout == " 1 | a\n 2 | NULL\n 3 | x|y\n"
    assert run("-At", "-c", "SELECT * FROM t WHERE id > 5").stdout == ""  # (no rows: nothing at all)
    assert run("-x", "-t", "-c", "SELECT * FROM t WHERE id < 3 ORDER BY id").stdout \
        == "id | 1\nv  | a\n\nid | 2\nv  | NULL\n"
    assert run("-Ax", "-c", "SELECT * FROM t WHERE id = 1").stdout == "id|1\nv|a\n"
    assert run("--csv", "-t", "-c", "SELECT * FROM t WHERE id = 2").stdout == "2,\n"
    assert run("--csv", "-c", "SELECT v FROM t WHERE id = 2").stdout == "v\n\n"  # (the NULL row was lost)
    assert run("-At", "-c", "SELECT v FROM t WHERE id = 2").stdout == "\n"


def test_command_line_variables_and_refused_settings(run):
    done = run("-v", "tbl=t", "-v", "val=it's", "-At", "-c", "SELECT :'val', count(*) FROM :\"tbl\"")
    assert (done.returncode, done.stdout) == (0, "it's|3\n")
    for refused in ("a-b=1", "AUTOCOMMIT=off", "ON_ERROR_STOP=perhaps"):  # (psql's AUTOCOMMIT is not had here)
        assert run("-v", refused, "-c", "SELECT 1").returncode == 2
    assert run("-P", "border=2", "-c", "SELECT 1").returncode == 2
    assert run("-P", "format=html", "-c", "SELECT 1").returncode == 2
    assert run("-v", "x=1", "-v", "x", "-At", "-c", "SELECT ':x', 2").stdout == ":x|2\n"  # (-v x: unset again)


def test_set_unset_and_gset_in_a_script(run):
    script = "\n".join([
        "\\set tbl t", "\\set greeting 'hello' ' world'", "\\set",
        "SELECT :'greeting' AS g, count(*) AS n FROM :tbl \\gset s_",
        "\\echo :s_g :s_n", "SELECT max(id) AS top, NULL AS gone FROM t \\gset",
        "\\echo top=:top gone=:gone", "SELECT v FROM t WHERE id = :top;",
        "SELECT id FROM t \\gset", "SELECT id FROM t WHERE false \\gset",
        "\\unset tbl", "\\echo :tbl", "\\set 'bad name' 1"])
    done = run("-At", "-f", "-", stdin=script + "\n")
    assert done.stdout == ("greeting = 'hello world'\ntbl = 't'\n"
                           "hello world 3\ntop=3 gone=:gone\nx|y\n:tbl\n")
    assert done.stderr.splitlines() == ["more than one row returned for \\gset", "no rows returned for \\gset",
                                        '\\set: invalid variable name: "bad name"']


def test_pset_a_t_f_settings_and_their_messages(run):
    script = "\n".join([
        "\\pset", "\\pset format u", "\\pset null '<n>'", "SELECT * FROM t ORDER BY id;", "\\a", "\\t",
        "SELECT * FROM t ORDER BY id;", "\\t off", "\\pset footer off", "SELECT 1 AS one;", "\\pset format csv",
        "SELECT v FROM t WHERE id = 2;", "\\pset format x", "\\pset bogus", "\\pset border 2", "\\f ;", "\\a",
        "SELECT 1 AS a, 2 AS b;"])
    done = run("-f", "-", stdin=script + "\n")
    assert done.stdout == (
        "expanded     off\nfieldsep     '|'\nfooter       on\nformat       aligned\nnull         'NULL'\n"
        "pager        off\ntuples_only  off\n"
        "Output format is unaligned.\nNull display is \"<n>\".\nid|v\n1|a\n2|<n>\n3|x|y\n(3 rows)\n"
        "Output format is aligned.\nTuples only is on.\n 1 | a\n 2 | <n>\n 3 | x|y\n"
        "Tuples only is off.\nDefault footer is off.\n one\n-----\n   1\n"
        "Output format is csv.\nv\n\n"
        "Field separator is \";\".\nOutput format is unaligned.\na;b\n1;2\n")
    assert done.stderr.splitlines() == [
        "\\pset: allowed formats are aligned, asciidoc, csv, html, latex, latex-longtable, troff-ms, unaligned, "
        "wrapped", "\\pset: unknown option: bogus",
        "\\pset: option border is not supported (txlake's options: expanded, fieldsep, footer, format, null, "
        "pager, tuples_only)"]


def test_o_sends_results_to_a_file(run, tmp_path):
    script = "\n".join(["\\o out.txt", "SELECT 42 AS answer;", "\\qecho into the file", "\\echo to the output",
                        "INSERT INTO t VALUES (10, 'z');", "\\o", "SELECT 1 AS back;"])
    done = run("-f", "-", stdin=script + "\n")
    assert (tmp_path / "out.txt").read_text() == " answer\n--------\n     42\n(1 row)\ninto the file\nINSERT 0 1\n"
    assert done.stdout == "to the output\n back\n------\n    1\n(1 row)\n"
    assert run("-o", "o2.txt", "-At", "-c", "SELECT 7").stdout == ""
    assert (tmp_path / "o2.txt").read_text() == "7\n"
    assert run("-c", "\\o /no/such/dir/f").returncode == 1


def test_conninfo_and_shell_escape(run, tmp_path):
    done = run("-c", "\\conninfo", "-c", "\\! echo from the shell", "-c", "\\! exit 3")
    assert done.stdout.splitlines() == [
        f'You are connected to database "txlake" as user "{done.stdout.split(chr(34))[3]}" on warehouse '
        f'"{tmp_path / "wh"}".', "from the shell"]
    assert done.returncode == 1


def test_status_variables_after_each_statement(run):
    """psql's ERROR, SQLSTATE, ROW_COUNT, LAST_ERROR_MESSAGE and LAST_ERROR_SQLSTATE, which
    scripts test (``\\if :ERROR``): they were never set."""
    script = "\n".join([
        "SELECT * FROM t;", "\\echo :ROW_COUNT :ERROR :SQLSTATE :LAST_ERROR_SQLSTATE",
        "SELECT 1 / 0;", "\\echo :ERROR :SQLSTATE :LAST_ERROR_SQLSTATE :'LAST_ERROR_MESSAGE' :ROW_COUNT",
        "UPDATE t SET v = 'b' WHERE id < 3;", "\\echo :ROW_COUNT :ERROR :SQLSTATE :LAST_ERROR_SQLSTATE"])
    done = run("-At", "-f", "-", stdin=script + "\n")
    assert done.stdout.splitlines()[3:] == ["3 false 00000 :LAST_ERROR_SQLSTATE",
                                            "true 22012 22012 division by zero 0",
                                            "UPDATE 2", "2 false 00000 22012"]


def test_watch_runs_the_statement_again_and_again(run):
    script = "\n".join([
        "SELECT count(*) AS n FROM t \\watch 0.01 c=3", "\\watch i=0 count=2", "\\watch i=-1", "\\watch x=1",
        "SELECT 1 / 0 \\watch 0"])
    done = run("-A", "-f", "-", stdin=script + "\n")
    assert done.stdout.count("n\n3\n(1 row)\n") == 5 and done.stdout.count("(every 0.01s)") == 3 \
        and done.stdout.count("(every 0s)") == 3  # (the failing one ran once)
    assert done.stderr.count("division by zero") == 1
    assert '\\watch: incorrect interval value "-1"' in done.stderr
    assert '\\watch: unrecognized parameter "x"' in done.stderr


def test_if_elif_else_endif(run):
    """psql's conditional blocks (``\\if :ERROR``), nested, their expressions booleans as psql
    reads them; a branch not taken is skipped whole - SQL and meta-commands. They were invalid
    commands, so a script ran every branch."""
    script = "\n".join([
        "SELECT 1 / 0;", "\\if :ERROR", "\\echo failed :SQLSTATE", "\\else", "\\echo fine", "\\endif",
        "\\set go yes", "\\if :go", "\\if of", "\\echo no", "\\elif 1", "SELECT 42;", "\\else", "\\echo no", "\\endif",
        "\\elif true", "\\echo no", "\\else", "UPDATE t SET v = 'z';", "\\endif",
        "\\if maybe", "\\echo no", "\\endif", "\\else", "\\elif on", "\\if FALSE", "\\q", "\\endif",
        "\\if 1", "\\echo yes", "\\else", "\\echo no", "\\else", "\\endif",
        "SELECT count(*) FROM t WHERE v = 'z';",
        "\\if on"])
    done = run("-At", "-f", "-", stdin=script + "\n")
    assert done.stdout.splitlines() == ["failed 22012", "42", "yes", "0"]
    assert done.stderr.splitlines()[1:] == [
        'unrecognized value "maybe" for "\\if expression": Boolean expected', "\\else: no matching \\if",
        "\\elif: no matching \\if", "\\else: cannot occur after \\else",
        "reached EOF without finding closing \\endif(s)"]
