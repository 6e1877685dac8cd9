"""Transaction control through the DB-API: PostgreSQL's semantics."""

import pytest

import txlake
from txlake import errors


@pytest.fixture
def c(connect):
    conn = connect()
    conn.execute("CREATE TABLE t (id INT PRIMARY KEY, v INT)")
    conn.execute("INSERT INTO t VALUES (1, 10), (2, 20)")
    conn.commit()
    return conn


def rows(conn):
    return conn.execute("SELECT * FROM t ORDER BY id").fetchall()


def test_implicit_transaction_and_rollback(c, connect):
    c.execute("INSERT INTO t VALUES (3, 30)")
    other = connect()
    assert len(rows(other)) == 2          # private until commit
    c.rollback()
    assert len(rows(c)) == 2


def test_autocommit_commits_each_statement(connect):
    a = connect(autocommit=True)
    a.execute("CREATE TABLE x (i INT)")
    a.execute("INSERT INTO x VALUES (1)")
    b = connect()
    assert b.execute("SELECT count(*) FROM x").fetchone() == (1,)
    a.execute("BEGIN")
    a.execute("INSERT INTO x VALUES (2)")
    b.rollback()
    assert b.execute("SELECT count(*) FROM x").fetchone() == (1,)
    a.execute("ROLLBACK")
    assert a.execute("SELECT count(*) FROM x").fetchone() == (1,)


def test_savepoints(c):
    c.execute("UPDATE t SET v = 11 WHERE id = 1")
    c.execute("SAVEPOINT a")
    c.execute("UPDATE t SET v = 12 WHERE id = 1")
    c.execute("SAVEPOINT b")
    c.execute("DELETE FROM t")
    c.execute("ROLLBACK TO SAVEPOINT b")
    assert rows(c) == [(1, 12), (2, 20)]
    c.execute("ROLLBACK TO a")
    assert rows(c) == [(1, 11), (2, 20)]
    c.execute("RELEASE SAVEPOINT a")
    with pytest.raises(errors.InvalidSavepoint) as info:
        c.execute("ROLLBACK TO SAVEPOINT a")
    assert info.value.sqlstate == "3B001"
    c.rollback()
    assert rows(c) == [(1, 10), (2, 20)]


def test_failed_transaction_state(c):
    c.execute("UPDATE t SET v = 0 WHERE id = 1")
    c.execute("SAVEPOINT s")
    with pytest.raises(errors.UniqueViolation):
        c.execute("INSERT INTO t VALUES (1, 1)")
    for sql in ("SELECT 1", "INSERT INTO t VALUES (5, 5)", "SAVEPOINT z"):
        with pytest.raises(errors.InFailedTransaction):
            c.execute(sql)
    c.execute("ROLLBACK TO SAVEPOINT s")          # recovers
    assert rows(c) == [(1, 0), (2, 20)]
    with pytest.raises(errors.UndefinedTable):
        c.execute("SELECT * FROM nope")
    c.commit()                                    # COMMIT of a failed transaction rolls back
    assert rows(c) == [(1, 10), (2, 20)]


def test_read_only_transaction(c):
    c.execute("BEGIN READ ONLY") if False else None
    c.rollback()
    c.autocommit = True
    c.execute("BEGIN READ ONLY")
    assert rows(c)
    with pytest.raises(errors.ReadOnlyTransaction) as info:
        c.execute("INSERT INTO t VALUES (9, 9)")
    assert info.value.sqlstate == "25006"
    c.execute("ROLLBACK")


def test_transactional_ddl(c):
    c.execute("CREATE TABLE n (i INT)")
    c.execute("DROP TABLE t")
    c.rollback()
    assert rows(c) == [(1, 10), (2, 20)]
    with pytest.raises(errors.UndefinedTable):
        c.execute("SELECT * FROM n")
    c.rollback()
    c.execute("ALTER TABLE t ADD COLUMN w INT DEFAULT 1")
    c.rollback()
    assert [d[0] for d in c.execute("SELECT * FROM t").description] == ["id", "v"]


@pytest.mark.parametrize("how", ["connect", "property", "begin", "set_transaction", "characteristics", "default"])
def test_isolation_level_forms(connect, how):
    if how == "connect":
        c = connect(isolation_level="serializable")
    else:
        c = connect(autocommit=True)
    if how == "property":
        c.isolation_level = "READ COMMITTED"
        assert c.isolation_level == "READ COMMITTED"
    elif how == "begin":
        c.execute("BEGIN ISOLATION LEVEL READ UNCOMMITTED")
    elif how == "set_transaction":
        c.execute("START TRANSACTION")
        c.execute("SET TRANSACTION ISOLATION LEVEL SERIALIZABLE")
    elif how == "characteristics":
        c.execute("SET SESSION CHARACTERISTICS AS TRANSACTION ISOLATION LEVEL READ COMMITTED")
    elif how == "default":
        c.execute("SET default_transaction_isolation = 'serializable'")
    expected = {"connect": "serializable", "property": "read committed", "begin": "read uncommitted",
                "set_transaction": "serializable", "characteristics": "read committed",
                "default": "serializable"}[how]
    assert c.execute("SHOW transaction_isolation").fetchone() == (expected,)


def test_default_isolation_is_repeatable_read(connect):
    c = connect()
    assert c.isolation_level == "REPEATABLE READ"
    assert c.execute("SHOW transaction_isolation").fetchone() == ("repeatable read",)


def test_read_uncommitted_behaves_as_read_committed(connect):
    a = connect(isolation_level="READ UNCOMMITTED")
    w = connect(autocommit=True)
    w.execute("CREATE TABLE x (i INT)")
    a.execute("SELECT count(*) FROM x")
    w.execute("BEGIN")
    w.execute("INSERT INTO x VALUES (1)")
    assert a.execute("SELECT count(*) FROM x").fetchone() == (0,)   # no dirty reads
    w.execute("COMMIT")
    assert a.execute("SELECT count(*) FROM x").fetchone() == (1,)   # a new snapshot per statement


def test_repeatable_read_keeps_its_snapshot(c, connect):
    w = connect(autocommit=True)
    assert rows(c) == [(1, 10), (2, 20)]
    w.execute("UPDATE t SET v = 99 WHERE id = 1")
    w.execute("INSERT INTO t VALUES (3, 30)")
    assert rows(c) == [(1, 10), (2, 20)]
    c.commit()
    assert rows(c) == [(1, 99), (2, 20), (3, 30)]


def test_set_transaction_after_query_is_refused(c):
    c.execute("SELECT 1")
    with pytest.raises(errors.Error) as info:
        c.execute("SET TRANSACTION ISOLATION LEVEL SERIALIZABLE")
    assert info.value.sqlstate == "25001"


def test_context_manager_commits_or_rolls_back(warehouse):
    with txlake.connect(warehouse, publish="off") as c:
        c.execute("CREATE TABLE x (i INT)")
        c.execute("INSERT INTO x VALUES (1)")
    with pytest.raises(ZeroDivisionError):
        with txlake.connect(warehouse, publish="off") as c:
            c.execute("INSERT INTO x VALUES (2)")
            1 / 0
    with txlake.connect(warehouse, publish="off") as c:
        assert c.execute("SELECT * FROM x").fetchall() == [(1,)]
    assert c.closed
