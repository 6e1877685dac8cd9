"""End to end: the real ``txlake`` program in a pseudo-terminal, typed at as a person would."""

import time

import pytest

pexpect = pytest.importorskip("pexpect")

# prompts are matched without their trailing blank: the renderer draws it as a cursor move
IDLE, IN_TXN, FAILED = r"txlake=>", r"txlake=\*>", r"txlake=!>"


@pytest.fixture
def terminal(program, tmp_path):
    argv, env = program
    env = dict(env, TERM="xterm", PROMPT_TOOLKIT_NO_CPR="1")
    child = pexpect.spawn(argv[0], [*argv[1:], str(tmp_path / "wh"), "--publish", "off"], env=env,
                          cwd=str(tmp_path), encoding="utf-8", timeout=30, dimensions=(40, 120))
    yield child
    if child.isalive():
        child.terminate(force=True)


def test_transaction_states_errors_tables_and_ctrl_d(terminal, program):
    child = terminal
    child.expect(r"txlake \S+ on warehouse \S+wh - type \\\? for help")
    child.expect(IDLE)
    child.sendline("CREATE TABLE t (id INT PRIMARY KEY, v TEXT);")
    child.expect("CREATE TABLE")
    child.expect(IDLE)

    child.sendline("BEGIN;")
    child.expect("BEGIN")
    child.expect(IN_TXN)
    child.sendline("INSERT INTO t VALUES (1, 'a');")
    child.expect("INSERT 0 1")
    child.expect(IN_TXN)
    child.sendline("INSERT INTO t VALUES (1, 'again');")
    child.expect("ERROR:  23505")
    child.expect(FAILED)
    child.sendline("ROLLBACK;")
    child.expect("ROLLBACK")
    child.expect(IDLE)

    child.sendline("SELECT * FORM t;")  # a syntax error: SQLSTATE, the line and a caret
    child.expect("ERROR:  42601")
    child.expect(r"LINE 1: SELECT \* FORM t")
    child.expect(r"\^")
    child.expect(IDLE)

    child.sendline("\\dt")
    child.expect(r"default\s+\|\s+t\s+\|\s+2\s+\|\s+0")
    child.expect(IDLE)

    child.sendline("BEGIN;")
    child.expect(IN_TXN)
    child.sendline("INSERT INTO t VALUES (2, 'b');")
    child.expect("INSERT 0 1")
    child.expect(IN_TXN)
    child.sendcontrol("d")
    child.expect("WARNING:  exiting: the open transaction was rolled back")
    child.expect(pexpect.EOF)
    child.close()
    assert child.exitstatus == 0

    history = (program[1]["TXLAKE_HISTFILE"])
    assert "INSERT INTO t VALUES (2, 'b');" in open(history, encoding="utf-8").read()


def test_ctrl_c_cancels_typing_and_a_running_statement(terminal):
    child = terminal
    child.expect(IDLE)
    child.send("SELECT 'never run'")
    child.sendcontrol("c")
    child.expect(IDLE)
    # a statement that would run for hours
    child.sendline("SELECT count(*) FROM range(1000000000000) r;")
    child.expect(r"\) r;")
    child.expect(r"\x1b\[\?2004l")  # the line editor let go of the terminal: the statement runs
    time.sleep(0.5)
    child.sendcontrol("c")
    canceled = "ERROR:  57014: canceling statement due to user request"
    if child.expect([canceled, pexpect.TIMEOUT], timeout=5) == 1:
        child.sendcontrol("c")  # a busy machine may have been slow to start the statement
        child.expect(canceled)
    child.expect(IDLE)
    child.sendline("SELECT 6 * 7 AS answer;")
    child.expect(r"answer\s+-+\s+42\s+\(1 row\)")
    assert "never run" not in child.before
    child.sendline("\\q")
    child.expect(pexpect.EOF)
