"""The interactive session loop, driven through prompt_toolkit's pipe input.

Keystrokes go in through a pipe (``\\r`` is Enter, ``\\x03`` Ctrl-C, ``\\x04`` Ctrl-D, a number
is a pause in seconds); results are read from the runner's streams and, for the prompts, from
what the real VT100 renderer writes to the screen.
"""

import io
import os
import re
import threading
import time
from dataclasses import dataclass

import pytest
from prompt_toolkit.data_structures import Size
from prompt_toolkit.document import Document
from prompt_toolkit.history import FileHistory, InMemoryHistory
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput
from prompt_toolkit.output.vt100 import Vt100_Output

from txlake.repl.runner import Runner
from txlake.repl.shell import Shell, banner, history_path, open_history

ENTER, CTRL_C, CTRL_D = "\r", "\x03", "\x04"


@dataclass
class Ran:
    code: int
    out: str
    err: str
    screen: str
    shell: Shell

    @property
    def prompts(self) -> list[str]:
        """The prompts drawn, in order, repeats (redraws) collapsed."""
        found = re.findall(r"txlake[-=('\"*$][*!]?>", self.screen)
        return [p for i, p in enumerate(found) if i == 0 or found[i - 1] != p]


def in_order(seen: list[str], expected: list[str]) -> bool:
    """``expected`` occurs in ``seen`` in this order (the renderer redraws prompts in between)."""
    remaining = iter(seen)
    return all(any(p == e for p in remaining) for e in expected)


@pytest.fixture
def shell_run(connect):
    conn = connect(autocommit=True)

    def run(*keys: str, history=None, screen: bool = True) -> Ran:
        out, err, drawn = io.StringIO(), io.StringIO(), io.StringIO()
        output = Vt100_Output(drawn, lambda: Size(rows=40, columns=100)) if screen else DummyOutput()
        with create_pipe_input() as pipe:
            def feed():
                for key in keys:
                    if isinstance(key, (int, float)):  # a pause: let the shell catch up
                        time.sleep(key)
                    else:
                        pipe.send_text(key)

            feeder = threading.Thread(target=feed, daemon=True)
            feeder.start()
            shell = Shell(Runner(conn, out, err), "wh", input=pipe, output=output,
                          history=history or InMemoryHistory())
            code = shell.run()
            feeder.join()
        return Ran(code, out.getvalue(), err.getvalue(), drawn.getvalue(), shell)

    run.conn = conn
    return run


def test_banner_names_version_warehouse_and_help(shell_run):
    ran = shell_run(CTRL_D, screen=False)
    assert ran.code == 0
    first = ran.out.splitlines()[0]
    assert first == banner("wh")
    assert "txlake 0.1.0" in first and "\\?" in first and "/wh" in first


def test_statements_span_lines_and_share_lines(shell_run):
    ran = shell_run("create table t (id int primary key,", ENTER, "v text);", ENTER,
                    "insert into t values (1, 'a'); insert into t values (2, NULL);", ENTER,
                    "select * from t", ENTER, "order by id;", ENTER, CTRL_D, screen=False)
    assert ran.err == ""
    assert ran.out.splitlines()[1:] == [
        "CREATE TABLE", "INSERT 0 1", "INSERT 0 1",
        " id |  v", "----+------", "  1 | a", "  2 | NULL", "(2 rows)", "\\q"]


def test_prompt_shows_idle_in_transaction_failed_and_continuation(shell_run):
    ran = shell_run("create table t (id int primary key);", ENTER,
                    "begin;", ENTER,
                    "insert into t values (1);", ENTER,
                    "insert into t", ENTER, "values (1);", ENTER,  # duplicate key: the block fails
                    "select 1;", ENTER,  # 25P02 until the end of the block
                    "rollback;", ENTER,
                    "select 'open", ENTER, "string';", ENTER,
                    CTRL_D)
    assert in_order(ran.prompts, ["txlake=>",             # create table
                           "txlake=*>",            # after begin
                           "txlake-*>",            # continuation inside the block
                           "txlake=!>",            # after the duplicate key
                           "txlake=>",             # after rollback
                           "txlake'>",             # continuation inside a string
                           "txlake=>"])
    assert "txlake=!>" not in ran.prompts[:ran.prompts.index("txlake-*>")]
    assert "txlake=!>" not in ran.prompts[ran.prompts.index("txlake'>"):]
    assert "23505" in ran.err and "25P02" in ran.err


def test_prompt_states_directly(shell_run):
    shell = shell_run(CTRL_D, screen=False).shell
    conn = shell_run.conn
    assert shell.prompt() == "txlake=> "
    conn.execute("begin")
    assert shell.prompt() == "txlake=*> "
    with pytest.raises(Exception):
        conn.execute("select * from missing_table")
    assert shell.prompt() == "txlake=!> "
    conn.execute("rollback")
    assert shell.prompt() == "txlake=> "


def test_error_keeps_the_session_going_with_sqlstate_and_caret(shell_run):
    ran = shell_run("select * form t;", ENTER, "select 41 + 1 as answer;", ENTER, CTRL_D, screen=False)
    assert ran.code == 0
    lines = ran.err.splitlines()
    assert lines[0].startswith("ERROR:  42601: ")
    assert lines[1].startswith("LINE 1: select * form t")
    assert lines[2].strip() == "^"
    assert "42" in ran.out and "answer" in ran.out


def test_ctrl_c_discards_the_input_being_typed(shell_run):
    ran = shell_run("create table t (id int);", ENTER,
                    "insert into t", ENTER, "values (1)", CTRL_C,
                    "select count(*) as n from t;", ENTER, CTRL_D, screen=False)
    assert "INSERT" not in ran.out
    assert re.search(r"^\s+0$", ran.out, re.M)


def test_ctrl_d_with_an_open_transaction_warns_and_rolls_back(shell_run):
    ran = shell_run("create table t (id int);", ENTER, "begin;", ENTER,
                    "insert into t values (1);", ENTER, CTRL_D, screen=False)
    assert ran.code == 0
    assert "WARNING" in ran.err and "rolled back" in ran.err
    conn = shell_run.conn
    assert not conn.session.in_transaction
    assert conn.execute("select count(*) from t").fetchone() == (0,)


def test_quit_meta_command_rolls_back_too(shell_run):
    ran = shell_run("create table t (id int);", ENTER, "begin;", ENTER,
                    "insert into t values (1);", ENTER, "\\q", ENTER, "select 'not run';", ENTER, screen=False)
    assert ran.code == 0 and "not run" not in ran.out
    assert "rolled back" in ran.err
    assert shell_run.conn.execute("select count(*) from t").fetchone() == (0,)


def test_rest_after_semicolon_stays_in_the_buffer(shell_run):
    ran = shell_run("select 1 as a; select 2", ENTER, "as b;", ENTER, CTRL_D, screen=False)
    assert " a\n" in ran.out and " b\n" in ran.out and ran.err == ""


def test_a_comment_after_the_last_semicolon_swallows_nothing(shell_run):
    """It stayed in the buffer without a line break: the next line typed joined the comment,
    and that statement never ran (here the UPDATE, while the COMMIT after it did)."""
    shell_run.conn.execute("create table acct (id int primary key, bal int)")
    shell_run.conn.execute("insert into acct values (1, 100)")
    ran = shell_run("begin; -- move money", ENTER, "update acct set bal = bal - 30 where id = 1;", ENTER,
                    "select bal -- mid-statement", ENTER, "from acct;", ENTER, "commit;", ENTER, CTRL_D,
                    screen=False)
    assert ran.err == ""
    assert ran.out.splitlines()[1:] == ["BEGIN", "UPDATE 1", " bal", "-----", "  70", "(1 row)", "COMMIT", "\\q"]


def test_help_timing_expanded_and_rows(shell_run):
    ran = shell_run("\\?", ENTER, "\\timing", ENTER, "select 1 as x;", ENTER, "\\timing off", ENTER,
                    "\\x", ENTER, "select 1 as x, 'wide' as y;", ENTER, "\\x off", ENTER,
                    "\\rows 3", ENTER, "select * from range(10) r(n);", ENTER, CTRL_D, screen=False)
    assert ran.err == ""
    out = ran.out
    assert "\\snapshots TABLE" in out and "\\isolation" in out
    assert "Timing is on." in out and re.search(r"^Time: \d+\.\d{3} ms$", out, re.M)
    assert "Timing is off." in out
    assert "-[ RECORD 1 ]" in out and "y | wide" in out
    assert "7 more rows not shown" in out and "(10 rows)" in out


def test_shell_cuts_long_results_by_default(shell_run):
    ran = shell_run("select * from range(5000) r(n);", ENTER, CTRL_D, screen=False)
    assert "4000 more rows not shown" in ran.out and "(5000 rows)" in ran.out


def test_describe_list_and_snapshots(shell_run):
    ran = shell_run("create table acct (id int primary key, owner text not null);", ENTER,
                    "insert into acct values (1, 'ada');", ENTER,
                    "\\dt", ENTER, "\\d acct", ENTER, "\\snapshots acct", ENTER, "\\d nosuch", ENTER,
                    CTRL_D, screen=False)
    out = ran.out
    assert re.search(r"default\s+\|\s+acct\s+\|\s+2\s+\|\s+1", out)
    assert re.search(r"id\s+\|\s+integer\s+\|\s+no\s+\|\s+\|\s+PRIMARY KEY", out)
    assert re.search(r"owner\s+\|\s+text\s+\|\s+no", out)
    assert "snapshot_id" in out and "CREATE" in out and "APPEND" in out
    assert "42P01" in ran.err


def test_isolation_show_and_set(shell_run):
    ran = shell_run("\\isolation", ENTER, "\\isolation serializable", ENTER,
                    "show transaction_isolation;", ENTER, "\\isolation rc", ENTER, "\\isolation", ENTER,
                    "\\isolation sometimes", ENTER, CTRL_D, screen=False)
    assert "Isolation level: repeatable read." in ran.out
    assert "new transactions: serializable" in ran.out
    assert re.search(r"^ serializable$", ran.out, re.M)
    assert "Isolation level: read committed." in ran.out
    assert "unknown level" in ran.err
    assert shell_run.conn.isolation_level == "READ COMMITTED"


def test_include_runs_a_file(shell_run, tmp_path):
    script = tmp_path / "setup.sql"
    script.write_text("create table t (id int);\ninsert into t values (1), (2);\n"
                      "select nothing_here;\nselect count(*) as n from t\n")
    ran = shell_run(f"\\i {script}", ENTER, "\\i /no/such/file.sql", ENTER, CTRL_D, screen=False)
    assert "INSERT 0 2" in ran.out
    assert "42703" in ran.err  # interactively, an error in the file does not stop the rest
    assert re.search(r"^\s+2$", ran.out, re.M)  # the last statement ran without a ';'
    assert "/no/such/file.sql" in ran.err


def test_unknown_meta_command(shell_run):
    ran = shell_run("\\frobnicate", ENTER, CTRL_D, screen=False)
    assert "invalid command \\frobnicate" in ran.err


def test_history_is_persisted_to_the_history_file(shell_run, tmp_path):
    path = tmp_path / "history"
    shell_run("select 1 as a;", ENTER, "select", ENTER, "2;", ENTER, CTRL_D, history=FileHistory(str(path)),
              screen=False)
    entries = list(FileHistory(str(path)).load_history_strings())
    assert entries == ["select\n2;", "select 1 as a;"]  # newest first, multi-line kept whole


def test_history_file_location_follows_the_environment(monkeypatch, tmp_path):
    monkeypatch.setenv("TXLAKE_HISTFILE", str(tmp_path / "h"))
    assert history_path() == str(tmp_path / "h")
    monkeypatch.setenv("TXLAKE_HISTFILE", "")
    assert history_path() is None
    monkeypatch.delenv("TXLAKE_HISTFILE")
    monkeypatch.setenv("HOME", str(tmp_path))
    assert history_path() == str(tmp_path / ".txlake_history")


def test_a_new_history_file_is_readable_by_its_owner_alone(monkeypatch, tmp_path):
    """It was created 0644 (world-readable), while statements may hold secrets; psql's is 0600."""
    monkeypatch.setenv("TXLAKE_HISTFILE", str(tmp_path / "h"))
    old = os.umask(0o022)
    try:
        assert isinstance(open_history(), FileHistory)
    finally:
        os.umask(old)
    assert (tmp_path / "h").stat().st_mode & 0o777 == 0o600


def test_sql_is_highlighted(shell_run):
    shell = shell_run(CTRL_D, screen=False).shell
    line = shell.prompt_session.lexer.lex_document(Document("SELECT 'x' FROM t"))(0)
    styles = {text: style.lower() for style, text in line}
    assert "keyword" in styles["SELECT"] and "keyword" in styles["FROM"]
    assert any("string" in style for text, style in styles.items() if "x" in text)
    assert "keyword" not in styles["t"]


def test_tab_completes_a_table_name_in_the_loop(shell_run):
    ran = shell_run("create table accounts (id int);", ENTER, "insert into accounts values (7);", ENTER,
                    "select id from acc\t", 1.5, ENTER, ";", ENTER, CTRL_D, screen=False)
    assert ran.err == ""
    assert re.search(r"^\s+7$", ran.out, re.M)


def test_g_sends_the_typed_statement(shell_run):
    ran = shell_run("select 41 + 1 as answer", ENTER, "\\gx", ENTER, "create view v as select 1 as one;", ENTER,
                    "\\dv", ENTER, CTRL_D, screen=False)
    assert "answer | 42" in ran.out
    assert re.search(r"default\s+\|\s+v\s+\|\s+1\s+\|\s+NULL\s+\|\s+view", ran.out)
    assert "invalid command" not in ran.err
