"""Ctrl-C (SIGINT) while a statement runs cancels it with 57014 and the session goes on."""

import io
import os
import signal
import threading
import time

import pytest

from txlake.repl.runner import Outcome, Runner

LONG_QUERY = "SELECT count(*) FROM range(1000000000000) r"  # hours of work


@pytest.fixture
def runner(connect):
    """A Runner as the shell's, with Python's own SIGINT handling - as in the txlake program,
    whatever another test of this process installed (a SparkContext's handler cancels its jobs
    and calls into the JVM first)."""
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    out, err = io.StringIO(), io.StringIO()
    yield Runner(connect(autocommit=True), out, err)
    signal.signal(signal.SIGINT, previous)


def interrupt_after(seconds: float) -> threading.Timer:
    timer = threading.Timer(seconds, os.kill, (os.getpid(), signal.SIGINT))
    timer.start()
    return timer


def test_ctrl_c_cancels_a_running_query(runner):
    interrupt_after(0.5)
    start = time.monotonic()
    assert runner.run_statement(LONG_QUERY) is Outcome.ERROR
    assert time.monotonic() - start < 10
    assert "ERROR:  57014: canceling statement due to user request" in runner.err.getvalue()
    assert runner.transaction_marker == ""
    assert runner.run_statement("SELECT 1 AS still_here") is Outcome.OK
    assert "still_here" in runner.out.getvalue()


def test_a_canceled_statement_fails_the_transaction_block(runner):
    runner.run_statement("CREATE TABLE t (id INT)")
    runner.run_statement("BEGIN")
    runner.run_statement("INSERT INTO t VALUES (1)")
    interrupt_after(0.5)
    assert runner.run_statement(LONG_QUERY) is Outcome.ERROR
    assert "57014" in runner.err.getvalue()
    assert runner.transaction_marker == "!"  # as in PostgreSQL: ROLLBACK is needed
    assert runner.run_statement("SELECT 1") is Outcome.ERROR and "25P02" in runner.err.getvalue()
    runner.run_statement("ROLLBACK")
    assert runner.transaction_marker == ""
    runner.out.truncate(0)
    runner.run_statement("SELECT count(*) AS n FROM t")
    assert runner.out.getvalue().splitlines()[2].strip() == "0"


def test_a_quick_statement_is_not_held_up_by_the_cancel_poll(runner, monkeypatch):
    """The main thread polls the statement's worker with short sleeps that grow: a statement
    that is done at once is not held for the 20 ms a fixed poll slept (a script of 10,000
    statements spent minutes asleep). Every sleep the runner asks for is recorded."""
    import txlake.repl.runner as runner_module

    asked: list[float] = []
    real_sleep = time.sleep

    class Clock:  # the runner's ``time`` module, with its sleeps recorded
        def __getattr__(self, name):
            return getattr(time, name)

        @staticmethod
        def sleep(seconds):
            asked.append(seconds)
            real_sleep(seconds)

    monkeypatch.setattr(runner_module, "time", Clock())
    runner.run_statement("CREATE TABLE q (a INT)")
    for i in range(50):
        assert runner.run_statement(f"INSERT INTO q VALUES ({i})") is Outcome.OK
    assert runner.run_statement("SELECT count(*) AS n FROM q") is Outcome.OK
    assert runner.out.getvalue().splitlines()[-2].strip() == "50"
    assert asked and min(asked) < 0.001
    # each statement's sleeps start short and double up to the 20 ms poll (however long a
    # loaded machine makes the statement take): a fixed 20 ms poll starts at 20 ms
    first, longest = runner_module.FIRST_POLL, runner_module.POLL
    assert asked[0] == first and longest == 0.02
    assert all(now == first or now == min(before * 2, longest) for before, now in zip(asked, asked[1:]))
