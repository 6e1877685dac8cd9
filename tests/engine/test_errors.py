"""Bad input gets the right exception and SQLSTATE, and loses nothing."""

import os

import pytest

import txlake
from txlake import errors

SETUP = [
    "CREATE TABLE t (id INT PRIMARY KEY, name VARCHAR(5) NOT NULL, n INT)",
    "INSERT INTO t VALUES (1, 'a', 10), (2, 'b', 20)",
]

BAD = [
    ("SELEC * FROM t", errors.SyntaxError, "42601"),
    ("SELECT * FROM (SELECT 1", errors.SyntaxError, "42601"),
    ("SELECT * FROM nope", errors.UndefinedTable, "42P01"),
    ("INSERT INTO nope VALUES (1)", errors.UndefinedTable, "42P01"),
    ("SELECT nope FROM t", errors.UndefinedColumn, "42703"),
    ("UPDATE t SET nope = 1", errors.UndefinedColumn, "42703"),
    ("INSERT INTO t (id, nope) VALUES (3, 1)", errors.UndefinedColumn, "42703"),
    ("INSERT INTO t VALUES (1, 'dup', 0)", errors.UniqueViolation, "23505"),
    ("INSERT INTO t VALUES (3, 'x', 0), (3, 'y', 0)", errors.UniqueViolation, "23505"),
    ("UPDATE t SET id = 2 WHERE id = 1", errors.UniqueViolation, "23505"),
    ("INSERT INTO t (id) VALUES (3)", errors.NotNullViolation, "23502"),
    ("UPDATE t SET name = NULL", errors.NotNullViolation, "23502"),
    ("INSERT INTO t VALUES (3, 'toolong', 0)", errors.StringDataRightTruncation, "22001"),
    ("INSERT INTO t VALUES (3000000000, 'x', 0)", errors.NumericValueOutOfRange, "22003"),
    ("INSERT INTO t VALUES ('abc', 'x', 0)", errors.InvalidTextRepresentation, "22P02"),
    ("CREATE TABLE t (x INT)", errors.DuplicateTable, "42P07"),
    ('CREATE TABLE "a/b" (x INT)', errors.InvalidName, "42602"),
    ('CREATE TABLE "..".x (x INT)', errors.InvalidName, "42602"),
    ('SELECT * FROM "../../etc"', errors.InvalidName, "42602"),
    ("INSERT INTO t VALUES (3, 'x', 0, 4)", errors.SyntaxError, "42601"),
]


def state(conn):
    return conn.execute("SELECT * FROM t ORDER BY id").fetchall()


@pytest.mark.parametrize("sql,cls,sqlstate", BAD)
def test_bad_statement_in_autocommit(connect, warehouse, tmp_path, sql, cls, sqlstate):
    c = connect(autocommit=True)
    for s in SETUP:
        c.execute(s)
    other = connect()
    before_files = sorted(os.listdir(tmp_path))
    with pytest.raises(cls) as info:
        c.execute(sql)
    assert info.value.sqlstate == sqlstate
    assert isinstance(info.value, txlake.DatabaseError)
    assert state(c) == [(1, "a", 10), (2, "b", 20)]
    assert state(other) == [(1, "a", 10), (2, "b", 20)]
    assert sorted(os.listdir(tmp_path)) == before_files  # nothing written outside the warehouse


@pytest.mark.parametrize("sql,cls,sqlstate", BAD[:12])
def test_bad_statement_in_transaction_fails_it_but_keeps_committed_work(connect, sql, cls, sqlstate):
    c = connect()
    for s in SETUP:
        c.execute(s)
    c.commit()
    c.execute("INSERT INTO t VALUES (9, 'z', 90)")
    with pytest.raises(cls):
        c.execute(sql)
    with pytest.raises(errors.InFailedTransaction) as info:
        c.execute("SELECT 1")
    assert info.value.sqlstate == "25P02"
    c.rollback()
    assert state(c) == [(1, "a", 10), (2, "b", 20)]


def test_wrong_parameter_counts(connect):
    c = connect(autocommit=True)
    c.execute("CREATE TABLE p (a INT, b INT)")
    for params in [(1,), (1, 2, 3), ()]:
        with pytest.raises(errors.ProgrammingError) as info:
            c.execute("INSERT INTO p VALUES (?, ?)", params)
        assert info.value.sqlstate == "08P01"
    with pytest.raises(errors.ProgrammingError):
        c.execute("INSERT INTO p VALUES (?, ?)", "ab")  # a string is not a parameter sequence
    assert c.execute("SELECT count(*) FROM p").fetchone() == (0,)


def test_syntax_error_has_position():
    from txlake.parser.parse import parse
    with pytest.raises(errors.SyntaxError) as info:
        parse("SELECT 1 FROM WHERE x")
    assert info.value.position is not None and 10 <= info.value.position <= 20


def test_queries_cannot_touch_files_outside(connect):
    c = connect()
    with pytest.raises(errors.Error):
        c.execute("SELECT * FROM read_csv('/etc/passwd')")
    c.rollback()
    with pytest.raises(errors.Error):
        c.execute("COPY (SELECT 1) TO '/tmp/txlake-escape.csv'")
    assert not os.path.exists("/tmp/txlake-escape.csv")


def test_exception_tree():
    assert issubclass(txlake.SerializationFailure, txlake.OperationalError)
    assert issubclass(txlake.DeadlockDetected, txlake.OperationalError)
    assert txlake.SerializationFailure("x").sqlstate == "40001"
    assert txlake.DeadlockDetected("x").sqlstate == "40P01"
    for name in ("Error", "DatabaseError", "OperationalError", "IntegrityError", "ProgrammingError",
                 "NotSupportedError", "InterfaceError", "DataError", "InternalError", "Warning"):
        assert hasattr(txlake, name)
