"""The shell's \\copy: COPY with the shell's files, its standard input and output, and data
lines in a script or typed at the prompt."""

import io
import sys
from types import SimpleNamespace

import pytest

from tests.repl.test_shell import CTRL_D, ENTER, shell_run  # noqa: F401 - a fixture
from txlake.repl import cli
from txlake.repl.meta import HELP


@pytest.fixture
def main(monkeypatch, tmp_path, capsys):
    monkeypatch.setenv("TXLAKE_HISTFILE", str(tmp_path / "history"))
    monkeypatch.chdir(tmp_path)

    def run(*args, stdin: str = ""):
        monkeypatch.setattr(sys, "stdin", io.StringIO(stdin))
        code = cli.main(list(args))
        captured = capsys.readouterr()
        return SimpleNamespace(returncode=code, stdout=captured.out, stderr=captured.err)

    return run


SETUP = "CREATE TABLE t (id INT PRIMARY KEY, v TEXT)"


def test_copy_with_files_quoted_or_not(main, tmp_path):
    (tmp_path / "in.csv").write_text("id,v\n1,a\n2,\n")
    ran = main("wh", "-c", SETUP, "-c", "\\copy t from in.csv with (format csv, header)",
               "-c", "\\copy t (id, v) to 'o u t.tsv'", "-c", "\\copy (select v from t where id = 1) to out.csv csv")
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout.splitlines() == ["CREATE TABLE", "COPY 2", "COPY 2", "COPY 1"]
    assert (tmp_path / "o u t.tsv").read_text() == "1\ta\n2\t\\N\n"
    assert (tmp_path / "out.csv").read_text() == "a\n"


def test_copy_to_stdout_prints_rows_then_the_tag(main):
    ran = main("wh", "-c", SETUP, "-c", "INSERT INTO t VALUES (1, 'a b'), (2, NULL)",
               "-c", "\\copy t to stdout", "-c", "\\copy (SELECT * FROM t ORDER BY id) TO STDOUT WITH CSV HEADER;")
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout.splitlines()[2:] == ["1\ta b", "2\t\\N", "COPY 2", "id,v", "1,a b", "2,", "COPY 2"]


def test_copy_from_stdin_in_a_script_reads_the_next_lines(main, tmp_path):
    script = tmp_path / "load.sql"
    script.write_text(f"{SETUP};\n\\copy t from stdin\n1\tx\n2\t\\N\n\\.\n"
                      "\\copy t from stdin (format csv)\n3,\"y,z\"\n\\.\nSELECT count(*) FROM t;\n")
    ran = main("wh", "-f", str(script))
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout.splitlines()[:3] == ["CREATE TABLE", "COPY 2", "COPY 1"]
    assert "3" in ran.stdout.splitlines()[5]


def test_copy_from_stdin_with_a_command_reads_standard_input(main):
    ran = main("wh", "-c", SETUP, "-c", "\\copy t from stdin", "-c", "\\copy t to stdout", stdin="1\ta\n2\tb\n")
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout.splitlines() == ["CREATE TABLE", "COPY 2", "1\ta", "2\tb", "COPY 2"]


def test_copy_errors_are_copy_errors(main, tmp_path):
    (tmp_path / "bad.csv").write_text("1,a\nx,b\n")
    ran = main("wh", "-c", SETUP, "-c", "\\copy t from bad.csv (format csv)")
    assert ran.returncode == 1
    assert "22P02" in ran.stderr and 'COPY t, line 2, column id: "x"' in ran.stderr
    ran = main("wh", "-c", "\\copy t from")
    assert ran.returncode == 1 and "\\copy: parse error" in ran.stderr
    ran = main("wh", "-c", "\\copy t from missing.csv")
    assert ran.returncode == 1 and "58P01" in ran.stderr
    ran = main("wh", "-c", "\\copy t from program 'cat x'")
    assert ran.returncode == 1 and "PROGRAM are not supported" in ran.stderr


def test_help_lists_copy():
    assert "\\copy" in HELP


def test_copy_from_stdin_typed_at_the_prompt(shell_run):  # noqa: F811
    shell_run.conn.execute(SETUP)
    ran = shell_run("\\copy t from stdin", ENTER, 0.3, "1\tq", ENTER, "2\tr", ENTER, "\\.", ENTER, 0.3,
                    "select count(*) from t;", ENTER, CTRL_D, screen=False)
    assert ran.err == ""
    assert "Enter data to be copied" in ran.out and "COPY 2" in ran.out
    assert shell_run.conn.execute("SELECT v FROM t ORDER BY id").fetchall() == [("q",), ("r",)]


def test_copy_argument_split_skips_quotes_and_parentheses(main):
    ran = main("wh", "-c", "\\copy (SELECT 'from' AS \"to\", 'x to y' AS v) to stdout with (format csv, header)")
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout.splitlines() == ["to,v", "from,x to y", "COPY 1"]
