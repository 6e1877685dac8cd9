"""Transaction control through the DB-API: PostgreSQL's semantics (psycopg's implicit BEGIN)."""

import pytest

import txlake
from tests.conftest import meanwhile, run_python
from txlake import errors


@pytest.fixture
def c(connect):
    """A connection (autocommit off) over a committed table t = {(1, 10), (2, 20)}."""
    conn = connect()
    conn.execute("CREATE TABLE t (id INT PRIMARY KEY, v INT)")
    conn.execute("INSERT INTO t VALUES (1, 10), (2, 20)")
    conn.commit()
    return conn


def rows(conn, table="t"):
    return conn.execute(f"SELECT * FROM {table} ORDER BY 1").fetchall()


def committed(connect, table="t"):
    """What a fresh connection sees (and it leaves no transaction open)."""
    other = connect(autocommit=True)
    try:
        return rows(other, table)
    finally:
        other.close()


INITIAL = [(1, 10), (2, 20)]


# --- implicit transactions, autocommit, commit and rollback -----------------------------

def test_first_statement_begins_a_transaction(c, connect):
    assert not c.session.in_transaction
    c.execute("INSERT INTO t VALUES (3, 30)")
    assert c.session.in_transaction
    assert rows(c) == INITIAL + [(3, 30)]            # own writes are visible
    assert committed(connect) == INITIAL            # ...and private until commit
    c.execute("UPDATE t SET v = 11 WHERE id = 1")
    c.execute("DELETE FROM t WHERE id = 2")
    assert committed(connect) == INITIAL
    c.commit()
    assert not c.session.in_transaction
    assert committed(connect) == [(1, 11), (3, 30)]


def test_a_query_also_begins_a_transaction(c):
    c.execute("SELECT 1")
    assert c.session.in_transaction
    c.rollback()
    assert not c.session.in_transaction


def test_rollback_discards_everything(c, connect):
    c.execute("INSERT INTO t VALUES (3, 30)")
    c.execute("UPDATE t SET v = 0")
    c.execute("DELETE FROM t WHERE id = 1")
    c.rollback()
    assert rows(c) == INITIAL
    assert committed(connect) == INITIAL


@pytest.mark.parametrize("commit_sql,rollback_sql", [("COMMIT", "ROLLBACK"), ("END", "ABORT"),
                                                     ("COMMIT WORK", "ROLLBACK TRANSACTION")])
def test_commit_and_rollback_as_sql(c, connect, commit_sql, rollback_sql):
    c.execute("INSERT INTO t VALUES (3, 30)")
    assert c.execute(commit_sql).statusmessage == "COMMIT"
    assert not c.session.in_transaction
    c.execute("INSERT INTO t VALUES (4, 40)")
    assert c.execute(rollback_sql).statusmessage == "ROLLBACK"
    assert committed(connect) == INITIAL + [(3, 30)]


def test_commit_and_rollback_without_a_transaction_are_harmless(c):
    c.commit()
    c.rollback()
    assert c.execute("COMMIT").statusmessage == "COMMIT"
    assert rows(c) == INITIAL


def test_autocommit_commits_each_statement(connect):
    a = connect(autocommit=True)
    a.execute("CREATE TABLE x (i INT)")
    a.execute("INSERT INTO x VALUES (1)")
    assert not a.session.in_transaction
    assert committed(connect, "x") == [(1,)]
    a.execute("UPDATE x SET i = 2")
    assert committed(connect, "x") == [(2,)]
    a.execute("DELETE FROM x")
    assert committed(connect, "x") == []


def test_autocommit_error_leaves_no_transaction(connect):
    a = connect(autocommit=True)
    a.execute("CREATE TABLE x (i INT PRIMARY KEY)")
    a.execute("INSERT INTO x VALUES (1)")
    with pytest.raises(errors.UniqueViolation):
        a.execute("INSERT INTO x VALUES (2), (1)")
    assert not a.session.in_transaction
    a.execute("INSERT INTO x VALUES (3)")          # no failed state outside a block
    assert committed(connect, "x") == [(1,), (3,)]


def test_begin_opens_a_block_in_autocommit_mode(connect):
    a = connect(autocommit=True)
    a.execute("CREATE TABLE x (i INT)")
    a.execute("BEGIN")
    a.execute("INSERT INTO x VALUES (1)")
    a.execute("INSERT INTO x VALUES (2)")
    assert committed(connect, "x") == []
    a.execute("COMMIT")
    assert committed(connect, "x") == [(1,), (2,)]
    a.execute("START TRANSACTION")
    a.execute("INSERT INTO x VALUES (3)")
    a.execute("ROLLBACK")
    a.execute("INSERT INTO x VALUES (4)")          # back to autocommit after the block
    assert committed(connect, "x") == [(1,), (2,), (4,)]


def test_begin_inside_a_transaction_is_a_notice(c):
    c.execute("BEGIN")
    c.execute("INSERT INTO t VALUES (3, 30)")
    c.execute("BEGIN")
    assert any("already a transaction in progress" in n for n in c.notices)
    c.rollback()
    assert rows(c) == INITIAL


def test_autocommit_switch(c, connect):
    c.execute("SELECT 1")
    with pytest.raises(errors.ProgrammingError):
        c.autocommit = True                        # not in the middle of a transaction
    c.rollback()
    c.autocommit = True
    assert c.autocommit is True
    c.execute("INSERT INTO t VALUES (3, 30)")
    assert committed(connect) == INITIAL + [(3, 30)]
    c.autocommit = False
    c.execute("INSERT INTO t VALUES (4, 40)")
    c.rollback()
    assert committed(connect) == INITIAL + [(3, 30)]


def test_close_rolls_back(connect):
    a = connect()
    a.execute("CREATE TABLE x (i INT)")
    a.commit()
    a.execute("INSERT INTO x VALUES (1)")
    a.close()
    assert a.closed
    assert committed(connect, "x") == []
    with pytest.raises(errors.InterfaceError):
        a.execute("SELECT 1")


# --- savepoints --------------------------------------------------------------------------

def test_savepoints_nested(c):
    c.execute("UPDATE t SET v = 11 WHERE id = 1")
    c.execute("SAVEPOINT a")
    c.execute("UPDATE t SET v = 12 WHERE id = 1")
    c.execute("SAVEPOINT b")
    c.execute("DELETE FROM t")
    c.execute("INSERT INTO t VALUES (9, 90)")
    assert rows(c) == [(9, 90)]
    c.execute("ROLLBACK TO SAVEPOINT b")
    assert rows(c) == [(1, 12), (2, 20)]
    c.execute("INSERT INTO t VALUES (3, 30)")
    c.execute("ROLLBACK TO b")                      # a savepoint survives being rolled back to
    assert rows(c) == [(1, 12), (2, 20)]
    c.execute("ROLLBACK TO a")                      # ...and rolling back to an outer one drops b
    assert rows(c) == [(1, 11), (2, 20)]
    with pytest.raises(errors.InvalidSavepoint):
        c.execute("ROLLBACK TO b")
    c.rollback()
    assert rows(c) == INITIAL


def test_release_keeps_the_work_and_forgets_the_savepoint(c, connect):
    c.execute("SAVEPOINT a")
    c.execute("INSERT INTO t VALUES (3, 30)")
    c.execute("SAVEPOINT b")
    c.execute("INSERT INTO t VALUES (4, 40)")
    c.execute("RELEASE SAVEPOINT a")                # releases b too
    assert rows(c) == INITIAL + [(3, 30), (4, 40)]
    for name in ("a", "b"):
        with pytest.raises(errors.InvalidSavepoint) as info:
            c.execute(f"ROLLBACK TO {name}")
        assert info.value.sqlstate == "3B001"
        c.rollback()
        c.execute("SAVEPOINT a")
        c.execute("INSERT INTO t VALUES (3, 30)")
        c.execute("SAVEPOINT b")
        c.execute("INSERT INTO t VALUES (4, 40)")
        c.execute("RELEASE a")
    c.commit()
    assert committed(connect) == INITIAL + [(3, 30), (4, 40)]


def test_savepoint_names_can_repeat(c):
    c.execute("SAVEPOINT s")
    c.execute("INSERT INTO t VALUES (3, 30)")
    c.execute("SAVEPOINT s")
    c.execute("INSERT INTO t VALUES (4, 40)")
    c.execute("ROLLBACK TO s")                      # the newest s
    assert rows(c) == INITIAL + [(3, 30)]
    c.execute("RELEASE s")                          # releases the newest, the older one remains
    c.execute("ROLLBACK TO s")
    assert rows(c) == INITIAL
    c.rollback()


@pytest.mark.parametrize("after", [
    "UPDATE t SET v = 0 WHERE id = 2", "DELETE FROM t WHERE id = 2", "SELECT * FROM t WHERE id = 2 FOR UPDATE",
    "INSERT INTO t VALUES (3, 30)", "INSERT INTO t SELECT i, i FROM range(100, 10200) r(i)",  # (a table lock)
])
def test_rollback_to_a_savepoint_releases_the_locks_taken_after_it(c, connect, after):
    """As in PostgreSQL, where the locks of a subtransaction go when it is rolled back: they
    were held to the end of the transaction, and a writer of those rows waited for it."""
    c.execute("UPDATE t SET v = 11 WHERE id = 1")        # taken before the savepoint: kept
    c.execute("SAVEPOINT s")
    c.execute(after)
    c.execute("SAVEPOINT inner")
    c.execute("ROLLBACK TO s")
    other = connect()
    other.execute("SET lock_timeout = '50ms'")
    other.execute("UPDATE t SET v = 22 WHERE id = 2")    # free at once
    other.execute("INSERT INTO t VALUES (3, 33)")
    with pytest.raises(errors.LockNotAvailable):
        other.execute("UPDATE t SET v = 12 WHERE id = 1")
    other.rollback()
    c.execute("UPDATE t SET v = 23 WHERE id = 2")        # takes it again (nothing else holds it now)
    c.commit()
    assert committed(connect) == [(1, 11), (2, 23)]


@pytest.mark.parametrize("end", ["PREPARE TRANSACTION 'g'", "COMMIT"])
def test_read_committed_rolls_back_to_a_savepoint_past_a_statement_that_left_a_table_behind(connect, end):
    """READ COMMITTED moves a table it wrote to each statement's snapshot when a statement
    uses it; a rollback to a savepoint taken before the write left the table on that list, and
    PREPARE TRANSACTION then failed with KeyError (XX000), the transaction lost."""
    c = connect(isolation_level="READ COMMITTED")
    c.execute("CREATE TABLE t (id INT PRIMARY KEY, v INT)")
    c.execute("CREATE TABLE u (id INT PRIMARY KEY, v INT)")
    c.commit()
    other = connect(autocommit=True)
    c.execute("INSERT INTO u VALUES (1, 1)")
    c.execute("SAVEPOINT s")
    c.execute("INSERT INTO t VALUES (3, 3)")
    other.execute("INSERT INTO t VALUES (4, 4)")
    c.execute("SELECT 1")                                # (a statement that does not use t)
    c.execute("ROLLBACK TO s")
    c.execute(end)
    if end.startswith("PREPARE"):
        other.execute("COMMIT PREPARED 'g'")
    assert committed(connect, "u") == [(1, 1)]
    assert committed(connect, "t") == [(4, 4)]


def test_release_keeps_the_locks_taken_after_the_savepoint(c, connect):
    c.execute("SAVEPOINT s")
    c.execute("UPDATE t SET v = 0 WHERE id = 2")
    c.execute("RELEASE s")
    c.execute("SAVEPOINT t")
    c.execute("ROLLBACK TO t")
    other = connect()
    other.execute("SET lock_timeout = '50ms'")
    with pytest.raises(errors.LockNotAvailable):
        other.execute("UPDATE t SET v = 22 WHERE id = 2")
    other.rollback()
    c.commit()


@pytest.mark.parametrize("sql", ["ROLLBACK TO nope", "ROLLBACK TO SAVEPOINT nope", "RELEASE nope",
                                 "RELEASE SAVEPOINT nope"])
def test_unknown_savepoint(c, sql):
    c.execute("INSERT INTO t VALUES (3, 30)")
    c.execute("SAVEPOINT real")
    with pytest.raises(errors.InvalidSavepoint) as info:
        c.execute(sql)
    assert info.value.sqlstate == "3B001"
    with pytest.raises(errors.InFailedTransaction):  # an error in a block fails it, as in PostgreSQL
        c.execute("SELECT 1")
    c.execute("ROLLBACK TO real")
    assert rows(c) == INITIAL + [(3, 30)]
    c.rollback()


def test_savepoint_as_the_first_statement_begins_the_transaction(c, connect):
    c.execute("SAVEPOINT s")                        # psycopg would have sent BEGIN first
    c.execute("INSERT INTO t VALUES (3, 30)")
    c.execute("ROLLBACK TO SAVEPOINT s")
    c.execute("INSERT INTO t VALUES (4, 40)")
    c.commit()
    assert committed(connect) == INITIAL + [(4, 40)]


@pytest.mark.parametrize("sql", ["SAVEPOINT s", "RELEASE s", "ROLLBACK TO s"])
def test_savepoints_need_a_block_in_autocommit_mode(connect, sql):
    a = connect(autocommit=True)
    with pytest.raises(errors.Error) as info:
        a.execute(sql)
    assert info.value.sqlstate == "25P01"


def test_savepoint_in_autocommit_block(connect):
    a = connect(autocommit=True)
    a.execute("CREATE TABLE x (i INT)")
    a.execute("BEGIN")
    a.execute("INSERT INTO x VALUES (1)")
    a.execute("SAVEPOINT s")
    a.execute("INSERT INTO x VALUES (2)")
    a.execute("ROLLBACK TO s")
    a.execute("COMMIT")
    assert committed(connect, "x") == [(1,)]


# --- the failed state --------------------------------------------------------------------

def fail(conn):
    with pytest.raises(errors.UniqueViolation):
        conn.execute("INSERT INTO t VALUES (1, 1)")


@pytest.mark.parametrize("sql", [
    "SELECT 1", "SELECT * FROM t", "INSERT INTO t VALUES (5, 5)", "UPDATE t SET v = 0", "DELETE FROM t",
    "CREATE TABLE n (i INT)", "DROP TABLE t", "ALTER TABLE t ADD COLUMN w INT", "SAVEPOINT z",
    "RELEASE SAVEPOINT s", "BEGIN", "SET TRANSACTION ISOLATION LEVEL SERIALIZABLE", "SET lock_timeout = '1s'",
    "SHOW transaction_isolation", "SET default_transaction_isolation = 'serializable'",
])
def test_failed_transaction_refuses_everything_but_rollback(c, sql):
    c.execute("UPDATE t SET v = 0 WHERE id = 1")
    c.execute("SAVEPOINT s")
    fail(c)
    for _ in range(2):                              # and keeps refusing
        with pytest.raises(errors.InFailedTransaction) as info:
            c.execute(sql)
        assert info.value.sqlstate == "25P02"
    c.rollback()
    assert rows(c) == INITIAL
    assert c.execute("SHOW lock_timeout").fetchone() == ("0",)   # the refused SET did nothing
    assert c.execute("SHOW default_transaction_isolation").fetchone() == ("repeatable read",)


def test_rollback_to_savepoint_recovers_a_failed_transaction(c, connect):
    c.execute("UPDATE t SET v = 0 WHERE id = 1")
    c.execute("SAVEPOINT s")
    c.execute("INSERT INTO t VALUES (3, 30)")
    fail(c)
    c.execute("ROLLBACK TO SAVEPOINT s")
    assert rows(c) == [(1, 0), (2, 20)]
    c.execute("INSERT INTO t VALUES (4, 40)")
    c.commit()
    assert committed(connect) == [(1, 0), (2, 20), (4, 40)]


def test_rollback_to_a_savepoint_taken_after_the_error_is_impossible(c):
    c.execute("SAVEPOINT before")
    fail(c)
    with pytest.raises(errors.InFailedTransaction):
        c.execute("SAVEPOINT after")
    with pytest.raises(errors.InvalidSavepoint):
        c.execute("ROLLBACK TO after")
    c.execute("ROLLBACK TO before")
    assert rows(c) == INITIAL
    c.rollback()


@pytest.mark.parametrize("how", ["method", "COMMIT", "END"])
def test_commit_of_a_failed_transaction_rolls_back(c, connect, how):
    c.execute("INSERT INTO t VALUES (3, 30)")
    fail(c)
    if how == "method":
        c.commit()
    else:
        assert c.execute(how).statusmessage == "ROLLBACK"
    assert not c.session.in_transaction
    assert committed(connect) == INITIAL
    c.execute("INSERT INTO t VALUES (4, 40)")       # the connection goes on normally
    c.commit()
    assert committed(connect) == INITIAL + [(4, 40)]


@pytest.mark.parametrize("bad", ["SELEC 1", "SELECT nope FROM t", "SELECT * FROM nope", "SELECT 1 // 0"])
def test_any_error_fails_the_block(c, bad):
    c.execute("INSERT INTO t VALUES (3, 30)")
    with pytest.raises(errors.Error):
        c.execute(bad)
    with pytest.raises(errors.InFailedTransaction):
        c.execute("SELECT 1")
    c.rollback()


@pytest.mark.parametrize("bad", [
    "SET no_such_setting = 1", "SHOW no_such_setting", "SET lock_timeout = 'soon'",
    "SET TRANSACTION ISOLATION LEVEL SERIALIZABLE", "SET default_transaction_isolation = 'sometimes'",
    "COMMIT PREPARED 'g'", "ROLLBACK PREPARED 'g'", "SET LOCAL TIME ZONE 'UTC'", "SET TIME ZONE 'Nowhere/Else'",
])
def test_an_error_of_a_setting_or_a_control_statement_fails_the_block(c, connect, bad):
    """As any other error does, in PostgreSQL: the block's work must not commit. Such errors
    left the block going, and the COMMIT after them committed the INSERT before."""
    c.execute("INSERT INTO t VALUES (3, 30)")              # (a query already ran: SET TRANSACTION is refused)
    with pytest.raises(errors.Error):
        c.execute(bad)
    with pytest.raises(errors.InFailedTransaction):
        c.execute("SELECT 1")
    assert c.execute("COMMIT").statusmessage == "ROLLBACK"
    assert committed(connect) == INITIAL


def test_wrong_parameter_count_fails_the_block(c):
    c.execute("INSERT INTO t VALUES (3, 30)")
    with pytest.raises(errors.ProgrammingError) as info:
        c.execute("INSERT INTO t VALUES (?, ?)", (4,))
    assert info.value.sqlstate == "08P01"
    with pytest.raises(errors.InFailedTransaction):
        c.execute("SELECT 1")
    c.rollback()


# --- READ ONLY ---------------------------------------------------------------------------

WRITES = ["INSERT INTO t VALUES (9, 9)", "UPDATE t SET v = 0", "DELETE FROM t", "CREATE TABLE z (a INT)",
          "CREATE TABLE z AS SELECT 1 AS a", "DROP TABLE t", "ALTER TABLE t ADD COLUMN q INT",
          "ALTER TABLE t RENAME COLUMN v TO w", "INSERT INTO t VALUES (1, 1) ON CONFLICT DO NOTHING"]


@pytest.mark.parametrize("sql", WRITES)
def test_read_only_transaction_refuses_writes(connect, c, sql):
    a = connect(autocommit=True)
    a.execute("BEGIN READ ONLY")
    assert rows(a) == INITIAL                       # reading is fine
    assert a.execute("SHOW transaction_read_only").fetchone() == ("on",)
    with pytest.raises(errors.ReadOnlyTransaction) as info:
        a.execute(sql)
    assert info.value.sqlstate == "25006"
    with pytest.raises(errors.InFailedTransaction):
        a.execute("SELECT 1")
    a.execute("ROLLBACK")
    assert committed(connect) == INITIAL


@pytest.mark.parametrize("how", ["begin", "start", "set_transaction", "characteristics", "default"])
def test_read_only_forms(c, connect, how):
    if how == "begin":
        c.execute("BEGIN READ ONLY")
    elif how == "start":
        c.execute("START TRANSACTION ISOLATION LEVEL SERIALIZABLE, READ ONLY")
    elif how == "set_transaction":
        c.execute("SET TRANSACTION READ ONLY")       # first statement: inside the implicit block
    elif how == "characteristics":
        c.execute("SET SESSION CHARACTERISTICS AS TRANSACTION READ ONLY")
    else:
        c.execute("SET default_transaction_read_only = on")
    with pytest.raises(errors.ReadOnlyTransaction):
        c.execute("INSERT INTO t VALUES (9, 9)")
    c.rollback()
    if how in ("characteristics", "default"):       # the session default stays until changed
        with pytest.raises(errors.ReadOnlyTransaction):
            c.execute("UPDATE t SET v = 1")
        c.rollback()
        c.execute("SET SESSION CHARACTERISTICS AS TRANSACTION READ WRITE")
    c.execute("INSERT INTO t VALUES (9, 9)")       # the next transaction is read-write
    c.commit()
    assert committed(connect) == INITIAL + [(9, 9)]


def test_begin_read_write_overrides_a_read_only_default(c):
    c.execute("SET SESSION CHARACTERISTICS AS TRANSACTION READ ONLY")
    c.commit()
    c.autocommit = True
    c.execute("BEGIN READ WRITE")
    c.execute("INSERT INTO t VALUES (9, 9)")
    c.execute("COMMIT")
    assert (9, 9) in rows(c)


# --- transactional DDL -------------------------------------------------------------------

def test_create_table_rolls_back(c, connect):
    c.execute("CREATE TABLE n (i INT)")
    c.execute("INSERT INTO n VALUES (1)")
    assert rows(c, "n") == [(1,)]
    other = connect()
    with pytest.raises(errors.UndefinedTable):       # invisible to others before commit
        other.execute("SELECT * FROM n")
    c.rollback()
    with pytest.raises(errors.UndefinedTable):
        c.execute("SELECT * FROM n")
    c.rollback()
    c.execute("CREATE TABLE n (j TEXT)")           # the name is free again
    c.commit()
    assert committed(connect, "n") == []


def test_create_table_as_rolls_back(c):
    c.execute("CREATE TABLE n AS SELECT * FROM t")
    assert rows(c, "n") == INITIAL
    c.rollback()
    with pytest.raises(errors.UndefinedTable):
        c.execute("SELECT * FROM n")
    c.rollback()


def test_drop_table_rolls_back(c, connect):
    c.execute("DROP TABLE t")
    with pytest.raises(errors.UndefinedTable):
        c.execute("SELECT * FROM t")
    c.rollback()
    assert committed(connect) == INITIAL          # other sessions never lost it
    assert rows(c) == INITIAL
    c.rollback()


def blocked(connect, sql: str) -> None:
    """Another session's ``sql`` waits for a table lock the open DDL holds (ACCESS EXCLUSIVE,
    as in PostgreSQL), until its lock_timeout: 55P03."""
    other = connect(autocommit=True)
    other.execute("SET lock_timeout = '50ms'")
    with pytest.raises(errors.LockNotAvailable):
        other.execute(sql)
    other.close()


def test_drop_and_recreate_in_one_transaction(c, connect):
    c.execute("DROP TABLE t")
    c.execute("CREATE TABLE t (x TEXT)")
    c.execute("INSERT INTO t VALUES ('new')")
    blocked(connect, "SELECT * FROM t")  # (the old t: its DROP holds it; it was read, INITIAL)
    c.commit()
    assert committed(connect) == [("new",)]


def columns(conn, table="t"):
    return [d[0] for d in conn.execute(f"SELECT * FROM {table}").description]


def test_alter_table_rolls_back(c, connect):
    c.execute("ALTER TABLE t ADD COLUMN w TEXT DEFAULT 'd'")
    c.execute("INSERT INTO t VALUES (3, 30, 'x')")
    assert rows(c) == [(1, 10, "d"), (2, 20, "d"), (3, 30, "x")]
    c.execute("ALTER TABLE t RENAME COLUMN v TO val")
    c.execute("ALTER TABLE t DROP COLUMN w")
    assert columns(c) == ["id", "val"]
    blocked(connect, "SELECT * FROM t")              # others wait for the ALTER (they read it before)
    c.rollback()
    assert columns(c) == ["id", "v"] and rows(c) == INITIAL
    c.rollback()


def test_ddl_and_savepoints(c):
    c.execute("SAVEPOINT s1")
    c.execute("CREATE TABLE y (a INT)")
    c.execute("ALTER TABLE t ADD COLUMN w INT")
    c.execute("SAVEPOINT s2")
    c.execute("DROP TABLE y")
    c.execute("DROP TABLE t")
    c.execute("ROLLBACK TO s2")
    assert rows(c, "y") == [] and columns(c) == ["id", "v", "w"]
    c.execute("ROLLBACK TO SAVEPOINT s1")
    assert columns(c) == ["id", "v"]
    with pytest.raises(errors.UndefinedTable):
        c.execute("SELECT * FROM y")
    c.rollback()


def test_committed_ddl_is_seen_by_others(c, connect):
    c.execute("ALTER TABLE t ADD COLUMN w INT DEFAULT 7")
    c.execute("CREATE TABLE n (i INT)")
    c.commit()
    other = connect()
    assert rows(other) == [(1, 10, 7), (2, 20, 7)] and rows(other, "n") == []


# --- isolation levels: how they are set and shown ----------------------------------------

def show(conn, name="transaction_isolation"):
    return conn.execute(f"SHOW {name}").fetchone()[0]


def test_default_isolation_is_repeatable_read(conn):
    assert conn.isolation_level == "REPEATABLE READ"
    assert show(conn) == "repeatable read"
    assert show(conn, "default_transaction_isolation") == "repeatable read"
    conn.execute("SELECT 1")
    assert conn.session.txn.isolation == "REPEATABLE READ"


@pytest.mark.parametrize("given,level", [
    ("serializable", "SERIALIZABLE"), ("READ COMMITTED", "READ COMMITTED"), ("read_committed", "READ COMMITTED"),
    ("Repeatable Read", "REPEATABLE READ"), ("read uncommitted", "READ UNCOMMITTED"),
])
def test_connect_isolation_level(connect, given, level):
    conn = connect(isolation_level=given)
    assert conn.isolation_level == level
    assert show(conn) == level.lower()
    conn.execute("SELECT 1")
    assert show(conn) == level.lower()              # inside the transaction too


def test_connect_with_an_unknown_level_fails(warehouse):
    with pytest.raises(errors.InvalidParameterValue) as info:
        txlake.connect(warehouse, publish="off", isolation_level="sometimes")
    assert info.value.sqlstate == "22023"


def test_isolation_level_property(c):
    c.isolation_level = "serializable"
    assert c.isolation_level == "SERIALIZABLE" and show(c) == "serializable"
    c.execute("SELECT * FROM t")
    assert c.session.txn.isolation == "SERIALIZABLE"
    with pytest.raises(errors.ProgrammingError):
        c.isolation_level = "READ COMMITTED"        # not inside a transaction
    c.rollback()
    c.isolation_level = None                        # back to the default
    assert c.isolation_level == "REPEATABLE READ"


@pytest.mark.parametrize("sql,level", [
    ("BEGIN ISOLATION LEVEL SERIALIZABLE", "serializable"),
    ("BEGIN TRANSACTION ISOLATION LEVEL READ COMMITTED READ WRITE", "read committed"),
    ("START TRANSACTION ISOLATION LEVEL READ UNCOMMITTED", "read uncommitted"),
    ("BEGIN", "repeatable read"),
])
def test_begin_isolation_level_lasts_one_transaction(connect, sql, level):
    a = connect(autocommit=True)
    a.execute(sql)
    assert show(a) == level
    a.execute("COMMIT")
    assert show(a) == "repeatable read"


def test_set_transaction(c):
    c.execute("SET TRANSACTION ISOLATION LEVEL SERIALIZABLE")   # first statement of the block
    assert show(c) == "serializable"
    c.execute("SELECT * FROM t")
    assert c.session.txn.isolation == "SERIALIZABLE"
    c.commit()
    assert show(c) == "repeatable read"             # one transaction only


def test_set_transaction_inside_begin(connect):
    a = connect(autocommit=True)
    a.execute("BEGIN")
    a.execute("SET TRANSACTION ISOLATION LEVEL READ COMMITTED")
    assert show(a) == "read committed"
    a.execute("ROLLBACK")


def test_show_all_lists_the_settings(connect):
    """As PostgreSQL's SHOW ALL: name, setting, description (it was 42704 'unrecognized
    configuration parameter "all"')."""
    a = connect(autocommit=True)
    a.execute("SET lock_timeout = '2s'")
    cur = a.execute("SHOW ALL")
    assert [d[0] for d in cur.description] == ["name", "setting", "description"]
    settings = {name: setting for name, setting, _ in cur.fetchall()}
    assert cur.rowcount == len(settings) and cur.statusmessage == "SHOW"
    assert settings["lock_timeout"] == "2s" and settings["transaction_isolation"] == "repeatable read"
    assert all(show(a, name) == setting for name, setting in settings.items())


def test_set_transaction_outside_a_block_changes_nothing(connect):
    """In autocommit mode PostgreSQL warns and ignores it: neither the next statement nor the
    next BEGIN runs at its level (it used to stay pending until one did)."""
    a = connect(autocommit=True)
    a.execute("SET TRANSACTION ISOLATION LEVEL SERIALIZABLE")
    assert a.notices[-1] == "WARNING:  SET TRANSACTION can only be used in transaction blocks"
    assert show(a) == "repeatable read"
    a.execute("BEGIN")
    assert show(a) == "repeatable read"
    a.execute("ROLLBACK")


def test_set_transaction_after_a_query_is_refused(c):
    c.execute("SELECT 1")
    with pytest.raises(errors.Error) as info:
        c.execute("SET TRANSACTION ISOLATION LEVEL SERIALIZABLE")
    assert info.value.sqlstate == "25001"
    c.rollback()


@pytest.mark.parametrize("sql,level", [
    ("SET SESSION CHARACTERISTICS AS TRANSACTION ISOLATION LEVEL READ COMMITTED", "READ COMMITTED"),
    ("SET default_transaction_isolation = 'serializable'", "SERIALIZABLE"),
    ("SET default_transaction_isolation TO 'read uncommitted'", "READ UNCOMMITTED"),
    ("SET default_transaction_isolation = serializable", "SERIALIZABLE"),
])
def test_session_default_isolation(connect, sql, level):
    a = connect(autocommit=True)
    a.execute(sql)
    assert a.isolation_level == level
    assert show(a) == level.lower() and show(a, "default_transaction_isolation") == level.lower()
    for _ in range(2):                              # it lasts: every new transaction uses it
        a.execute("BEGIN")
        assert show(a) == level.lower()
        a.execute("COMMIT")
    a.execute("SET default_transaction_isolation TO DEFAULT")
    assert a.isolation_level == "REPEATABLE READ"


def test_set_default_isolation_to_an_unknown_level(conn):
    with pytest.raises(errors.InvalidParameterValue) as info:
        conn.execute("SET default_transaction_isolation = 'sometimes'")
    assert info.value.sqlstate == "22023"
    conn.rollback()
    assert conn.isolation_level == "REPEATABLE READ"


def test_read_uncommitted_is_reported_as_asked_but_runs_as_read_committed(connect):
    a = connect(isolation_level="READ UNCOMMITTED")
    w = connect(autocommit=True)
    w.execute("CREATE TABLE x (i INT)")
    assert a.execute("SELECT count(*) FROM x").fetchone() == (0,)
    assert show(a) == "read uncommitted"
    assert a.session.txn.isolation == "READ COMMITTED"
    w.execute("BEGIN")
    w.execute("INSERT INTO x VALUES (1)")
    assert a.execute("SELECT count(*) FROM x").fetchone() == (0,)   # no dirty reads
    w.execute("COMMIT")
    assert a.execute("SELECT count(*) FROM x").fetchone() == (1,)   # a new snapshot per statement


# --- settings ----------------------------------------------------------------------------

def test_lock_timeout_setting(connect, c):
    for value, shown in [("'2s'", "2s"), ("100", "100"), ("'1min'", "1min"), ("0", "0")]:
        c.execute(f"SET lock_timeout = {value}")
        assert show(c, "lock_timeout") == shown
    c.execute("SET lock_timeout TO DEFAULT")
    assert show(c, "lock_timeout") == "0"
    c.execute("SET lock_timeout = '5s'")
    c.execute("RESET lock_timeout")
    assert show(c, "lock_timeout") == "0"
    with pytest.raises(errors.InvalidParameterValue):
        c.execute("SET lock_timeout = 'soon'")
    c.rollback()
    # the setting is used: a writer waiting for a row lock gives up after it (55P03)
    holder = connect()
    holder.execute("UPDATE t SET v = 1 WHERE id = 1")
    c.execute("SET lock_timeout = '50ms'")
    with pytest.raises(errors.LockNotAvailable) as info:
        c.execute("UPDATE t SET v = 2 WHERE id = 1")
    assert info.value.sqlstate == "55P03"
    c.rollback()
    holder.commit()
    assert rows(c)[0] == (1, 1)


def test_statement_timeout_cancels_a_long_statement_and_a_long_lock_wait(connect, c):
    """As PostgreSQL's: 57014 once the statement has run that long, whether it computes or
    waits for a lock (where a shorter lock_timeout still gives 55P03). It was accepted and
    shown, and did nothing: a statement ran, and a lock wait lasted, for ever."""
    c.execute("SET statement_timeout = '200ms'")
    assert show(c, "statement_timeout") == "200ms"
    c.execute("INSERT INTO t VALUES (3, 30)")
    with pytest.raises(errors.QueryCanceled) as info:
        c.execute("SELECT sum(i % 7) FROM range(10000000000) r(i)")
    assert info.value.sqlstate == "57014" and "statement timeout" in str(info.value)
    with pytest.raises(errors.InFailedTransaction):                 # the block failed
        c.execute("SELECT 1")
    c.rollback()
    holder = connect()
    holder.execute("UPDATE t SET v = 1 WHERE id = 1")
    with pytest.raises(errors.QueryCanceled) as info:
        c.execute("UPDATE t SET v = 2 WHERE id = 1")
    assert info.value.sqlstate == "57014" and "statement timeout" in str(info.value)
    c.rollback()
    c.execute("SET lock_timeout = '20ms'")
    with pytest.raises(errors.LockNotAvailable):
        c.execute("UPDATE t SET v = 2 WHERE id = 1")
    c.rollback()
    holder.commit()
    a = connect(autocommit=True)
    a.execute("SET statement_timeout = '200ms'")
    with pytest.raises(errors.QueryCanceled):
        a.execute("INSERT INTO t SELECT 100, sum(i % 7)::INT FROM range(10000000000) r(i)")
    a.execute("SET statement_timeout = 0")
    assert committed(connect) == [(1, 1), (2, 20)]                  # nothing of it committed
    with pytest.raises(errors.InvalidParameterValue, match="statement_timeout"):
        a.execute("SET statement_timeout = 'soon'")


def test_set_local_lasts_to_the_end_of_the_transaction(connect):
    """As PostgreSQL's: SET LOCAL reverts at COMMIT and ROLLBACK alike, and outside a block it
    warns and does nothing. LOCAL was ignored: a SET LOCAL lock_timeout or statement_timeout
    stayed for the rest of the session."""
    a = connect(autocommit=True)
    for end in ("COMMIT", "ROLLBACK"):
        a.execute("BEGIN")
        a.execute("SET LOCAL lock_timeout = '4s'")
        a.execute("SET LOCAL statement_timeout = '9s'")
        assert (show(a, "lock_timeout"), show(a, "statement_timeout")) == ("4s", "9s")
        a.execute(end)
        assert (show(a, "lock_timeout"), show(a, "statement_timeout")) == ("0", "0")
    a.execute("SET LOCAL lock_timeout = '3s'")
    assert a.notices[-1] == "WARNING:  SET LOCAL can only be used in transaction blocks"
    assert show(a, "lock_timeout") == "0"
    a.execute("BEGIN")
    a.execute("SET lock_timeout = '1s'")
    a.execute("SET LOCAL lock_timeout = '2s'")           # seen to the end of the transaction ...
    assert show(a, "lock_timeout") == "2s"
    a.execute("COMMIT")
    assert show(a, "lock_timeout") == "1s"               # ... then the SET's value
    c = connect()                                        # (DB-API: it begins the transaction)
    c.execute("SET LOCAL search_path = other")
    assert c.session.in_transaction
    assert show(c, "search_path") == "other"
    c.commit()
    assert show(c, "search_path") == '"$user", public'
    c.rollback()


def test_a_set_is_undone_by_a_rollback_of_its_transaction_or_savepoint(connect):
    """PostgreSQL: "If SET is issued within a transaction that is later aborted, the effects of
    the SET command disappear"; a rollback to an earlier savepoint undoes it too. It stayed."""
    a = connect(autocommit=True)
    a.execute("BEGIN")
    a.execute("SET lock_timeout = '5s'")
    a.execute("SET search_path = other")
    a.execute("SET default_transaction_isolation = 'serializable'")
    a.execute("SET SESSION CHARACTERISTICS AS TRANSACTION READ ONLY")
    a.execute("SET TIME ZONE 'Asia/Tokyo'")
    a.execute("ROLLBACK")
    assert [show(a, n) for n in ("lock_timeout", "search_path", "default_transaction_isolation",
                                 "default_transaction_read_only")] == ["0", '"$user", public', "repeatable read", "off"]
    assert show(a, "timezone") != "Asia/Tokyo"
    a.execute("BEGIN")
    a.execute("SET lock_timeout = '5s'")
    a.execute("SAVEPOINT s")
    a.execute("SET lock_timeout = '6s'")
    a.execute("SET LOCAL statement_timeout = '7s'")
    a.execute("ROLLBACK TO s")
    assert (show(a, "lock_timeout"), show(a, "statement_timeout")) == ("5s", "0")
    a.execute("COMMIT")
    assert show(a, "lock_timeout") == "5s"               # a committed SET stays
    a.execute("BEGIN")
    a.execute("SET lock_timeout = '8s'")
    with pytest.raises(errors.DivisionByZero):
        a.execute("SELECT 1 / 0")
    a.execute("COMMIT")                                  # (a failed block: rolled back)
    assert show(a, "lock_timeout") == "5s"


def test_unknown_settings(conn):
    with pytest.raises(errors.UndefinedObject):
        conn.execute("SET no_such_setting = 1")
    conn.rollback()
    with pytest.raises(errors.UndefinedObject):
        conn.execute("SHOW no_such_setting")


def test_current_setting_reads_the_session_s_settings(connect):
    """current_setting(name [, missing_ok]) is SHOW's value, read at each execution - on every
    path, also a point UPDATE's and an INSERT's cached SQL. Before, DuckDB answered: its own
    search_path (''), 42704 for txlake's."""
    a = connect(autocommit=True)
    a.execute("CREATE TABLE s (id INT PRIMARY KEY, v TEXT)")
    a.execute("INSERT INTO s VALUES (1, 'a')")
    a.execute("SET search_path = public")
    assert a.execute("SELECT current_setting('search_path'), current_setting('TimeZone')").fetchone() == \
        ("public", show(a, "timezone"))
    for timeout in ("1s", "2s"):
        a.execute(f"SET statement_timeout = '{timeout}'")
        assert a.execute("SELECT current_setting('statement_timeout'), id FROM s WHERE id = ?", (1,)).fetchone() \
            == (timeout, 1)
        assert a.execute("UPDATE s SET v = current_setting('statement_timeout') WHERE id = 1 RETURNING v").fetchone() \
            == (timeout,)
        assert a.execute("INSERT INTO s VALUES (2, current_setting('statement_timeout')) ON CONFLICT (id) "
                         "DO UPDATE SET v = excluded.v RETURNING v").fetchone() == (timeout,)
    assert a.execute("SELECT current_setting('no_such', true)").fetchone() == (None,)
    with pytest.raises(errors.UndefinedObject):
        a.execute("SELECT current_setting('no_such')")
    # a view's, read where a statement reads the view; CREATE TABLE AS's; a DEFAULT's refused
    # (DuckDB's setting would answer where the row is made) - the first two were 42704
    a.execute("SET app.who = 'ann'")
    a.execute("CREATE VIEW whom AS SELECT current_setting('app.who') AS who")
    a.execute("CREATE TABLE made AS SELECT current_setting('app.who') AS who")
    a.execute("SET app.who = 'bob'")
    assert a.execute("SELECT who FROM whom").fetchone() == ("bob",)
    assert a.execute("SELECT who FROM made").fetchone() == ("ann",)
    with pytest.raises(errors.NotSupportedError):
        a.execute("CREATE TABLE d (id INT, who TEXT DEFAULT current_setting('app.who'))")


def test_custom_and_read_only_settings(connect):
    """An application's own settings (a prefix, a dot, a name: PostgreSQL's placeholders) take
    SET [LOCAL] / RESET / set_config / SHOW / current_setting, rolled back with their block;
    server_version and its kin are read only (55P02). Both were syntax errors or 42704."""
    a = connect(autocommit=True)
    with pytest.raises(errors.UndefinedObject):
        a.execute("SHOW app.tenant")
    a.execute("SET app.tenant = '7'")
    assert show(a, "app.tenant") == "7" and a.execute("SELECT current_setting('App.Tenant')").fetchone() == ("7",)
    a.execute("BEGIN")
    a.execute("SET LOCAL app.tenant = '8'")
    a.execute("SET app.other = 'x'")
    assert a.execute("SELECT current_setting('app.tenant'), current_setting('app.other')").fetchone() == ("8", "x")
    a.execute("ROLLBACK")
    assert (show(a, "app.tenant"), show(a, "app.other")) == ("7", "")
    assert a.execute("SELECT set_config('app.tenant', '9', false)").fetchone() == ("9",)
    a.execute("RESET app.tenant")
    assert show(a, "app.tenant") == ""
    assert (show(a, "server_version_num"), show(a, "server_encoding"), show(a, "DateStyle")) == \
        ("160000", "UTF8", "ISO, MDY")
    with pytest.raises(errors.OperationalError) as e:
        a.execute("SET server_version = '9.6'")
    assert e.value.sqlstate == "55P02"
    with pytest.raises(errors.NotSupportedError):
        a.execute("SET DateStyle = 'German'")


# --- two connections in one process ------------------------------------------------------

def test_repeatable_read_keeps_its_snapshot(c, connect):
    w = connect(autocommit=True)
    assert rows(c) == INITIAL                       # the snapshot is taken here
    w.execute("UPDATE t SET v = 99 WHERE id = 1")
    w.execute("INSERT INTO t VALUES (3, 30)")
    w.execute("DELETE FROM t WHERE id = 2")
    assert rows(c) == INITIAL
    assert c.execute("SELECT sum(v) FROM t").fetchone() == (30,)
    c.commit()
    assert rows(c) == [(1, 99), (3, 30)]


def test_repeatable_read_snapshot_starts_at_the_first_statement(connect, c):
    a = connect(autocommit=True)
    w = connect(autocommit=True)
    a.execute("BEGIN ISOLATION LEVEL REPEATABLE READ")
    w.execute("INSERT INTO t VALUES (3, 30)")        # before a's first query: a sees it
    assert rows(a) == INITIAL + [(3, 30)]
    w.execute("INSERT INTO t VALUES (4, 40)")        # after: a does not
    assert rows(a) == INITIAL + [(3, 30)]
    a.execute("COMMIT")


def test_read_committed_sees_commits_at_the_next_statement(connect):
    rc = connect(isolation_level="READ COMMITTED")
    w = connect()
    w.execute("CREATE TABLE t (id INT PRIMARY KEY, v INT)")
    w.execute("INSERT INTO t VALUES (1, 10)")
    w.commit()
    rc.execute("INSERT INTO t VALUES (100, 0)")     # rc's own uncommitted write
    assert rows(rc) == [(1, 10), (100, 0)]
    w.execute("UPDATE t SET v = 11 WHERE id = 1")
    w.execute("INSERT INTO t VALUES (2, 20)")
    assert rows(rc) == [(1, 10), (100, 0)]          # not committed yet
    w.commit()
    assert rows(rc) == [(1, 11), (2, 20), (100, 0)]  # same transaction, next statement
    assert rows(w) == [(1, 11), (2, 20)]            # rc's write is still private
    rc.commit()
    assert rows(w) == [(1, 11), (2, 20)]            # w is REPEATABLE READ, its snapshot predates it
    w.rollback()
    assert rows(w) == [(1, 11), (2, 20), (100, 0)]


@pytest.mark.parametrize("end", ["commit", "prepare"])
def test_read_committed_moves_a_written_table_when_a_statement_uses_it(connect, end):
    """A READ COMMITTED statement moves only the tables it uses to its snapshot: one on table u
    leaves t, written before, where it was; t's next reader sees the newest commits under the
    transaction's own writes, after a ROLLBACK TO as well; COMMIT and PREPARE TRANSACTION carry
    every write."""
    rc = connect(isolation_level="READ COMMITTED")
    w = connect(autocommit=True)
    w.execute("CREATE TABLE t (id INT PRIMARY KEY, v INT)")
    w.execute("CREATE TABLE u (id INT PRIMARY KEY)")
    w.execute("INSERT INTO t VALUES (1, 10)")
    rc.execute("INSERT INTO t VALUES (100, 0)")
    w.execute("UPDATE t SET v = 11 WHERE id = 1")
    rc.execute("INSERT INTO u VALUES (1)")
    txn = rc.session.txn
    t_id = rc.session.db.warehouse.latest.table("default", "t").table_id
    assert txn.bases[t_id] is not rc.session.db.warehouse.latest.by_id(t_id), "t has not moved yet"
    rc.execute("SAVEPOINT s")
    assert rows(rc) == [(1, 11), (100, 0)]
    rc.execute("UPDATE t SET v = v + 1 WHERE id = 100")
    w.execute("INSERT INTO t VALUES (2, 20)")
    rc.execute("ROLLBACK TO SAVEPOINT s")
    w.execute("INSERT INTO t VALUES (3, 30)")
    assert rows(rc) == [(1, 11), (2, 20), (3, 30), (100, 0)]
    w.execute("DELETE FROM t WHERE id = 3")
    rc.execute("INSERT INTO u VALUES (2)")         # (t is left where the SELECT saw it)
    if end == "prepare":
        rc.execute("PREPARE TRANSACTION 'g'")
        w.execute("COMMIT PREPARED 'g'")
    else:
        rc.commit()
    assert rows(w) == [(1, 11), (2, 20), (100, 0)]
    assert rows(w, "u") == [(1,), (2,)]


def test_serializable_keeps_its_snapshot(connect, c):
    s = connect(isolation_level="SERIALIZABLE")
    w = connect(autocommit=True)
    assert rows(s) == INITIAL
    w.execute("INSERT INTO t VALUES (3, 30)")
    assert rows(s) == INITIAL
    s.commit()


def test_uncommitted_writes_of_two_sessions_stay_apart(c, connect):
    d = connect()
    c.execute("INSERT INTO t VALUES (3, 30)")
    d.execute("INSERT INTO t VALUES (4, 40)")
    assert rows(c) == INITIAL + [(3, 30)]
    assert rows(d) == INITIAL + [(4, 40)]
    d.rollback()
    c.commit()
    assert rows(d) == INITIAL + [(3, 30)]


def test_serializable_point_writes_are_imaged_as_python_values(tmp_path):
    """SSI records what a SERIALIZABLE transaction wrote (keys, and old and new rows for
    predicate reads). For point UPDATEs and INSERT ... VALUES both are read as Python values,
    the rows made a table only if a predicate read asks: the same keys and rows as the
    general Arrow path gives."""
    from txlake.storage.commit import TableDelta
    conn = txlake.connect(str(tmp_path / "w"), isolation_level="SERIALIZABLE", publish="off")
    cur = conn.cursor()
    cur.execute("CREATE TABLE t (id INT PRIMARY KEY, v INT, s VARCHAR)")
    cur.execute("INSERT INTO t SELECT range, range * 10, 'bulk' FROM range(100)")   # a Parquet file
    conn.commit()
    cur.execute("INSERT INTO t VALUES (?, ?, ?)", (200, 1, "one"))                  # an inline one
    conn.commit()
    cur.execute("UPDATE t SET v = v + 1 WHERE id = ?", (7,))
    cur.execute("UPDATE t SET v = v - 1 WHERE id = ?", (200,))
    cur.execute("INSERT INTO t VALUES (?, ?, ?)", (300, 3, None))
    txn = conn.session.txn
    ssi = conn.session.db.ssi
    (table_id, work), = txn.changes.items()
    delta = TableDelta(table_id, txn.bases[table_id], work)
    keys, rows = ssi._point_writes(delta)
    table, expected_keys = ssi._write_image_rows(delta)
    assert keys == expected_keys == {7, 200, 300}
    assert sorted(rows, key=repr) == sorted(table.to_pylist(), key=repr)
    written = ssi._write_image(delta)
    assert written.count == 0 and written._work is not None     # worked out when first asked
    assert written.worked_out().count == 5 and written.keys == keys and written._rows is None
    assert written.rows.sort_by("id").equals(table.sort_by("id"))
    conn.rollback()
    cur.execute("CREATE TABLE h (a INT, b VARCHAR)")                                 # no key
    conn.commit()
    cur.execute("INSERT INTO h VALUES (?, ?)", (1, "x"))
    (table_id, work), = conn.session.txn.changes.items()
    delta = TableDelta(table_id, conn.session.txn.bases[table_id], work)
    table, expected_keys = ssi._write_image_rows(delta)
    assert ssi._point_writes(delta) == (set(), table.to_pylist()) and expected_keys == set()
    conn.close()


def test_serializable_write_images_are_worked_out_only_for_a_transaction_beside_them(tmp_path):
    """A committed SERIALIZABLE transaction's write image is worked out when a transaction
    that ran beside it, and read the same table, is checked - not at its commit, nor for one
    that read other tables; one that can no longer be read counts as a conflict (a 40001 is
    safe, a miss is not)."""
    from txlake.engine.mvcc.ssi import SSI, TableReads, TableWrites
    path = str(tmp_path / "w")
    setup = txlake.connect(path, autocommit=True, publish="off")
    setup.execute("CREATE TABLE kv (k INT PRIMARY KEY, v INT)")
    setup.execute("CREATE TABLE other (k INT)")
    setup.execute("INSERT INTO kv VALUES (1, 0), (2, 0)")
    ssi = setup.session.db.ssi
    serializable = [txlake.connect(path, isolation_level="SERIALIZABLE", publish="off") for _ in range(4)]
    beside, alone, reader, writer = serializable

    def committed_writes():
        return [w for r in ssi._records.values() if r.commit_csn is not None for w in r.writes.values()]

    assert beside.execute("SELECT count(*) FROM other").fetchall() == [(0,)]   # keeps the records
    alone.execute("UPDATE kv SET v = 5 WHERE k = 2")
    alone.commit()
    (image,) = committed_writes()
    assert image._work is not None
    beside.commit()
    assert image._work is not None                                       # (it read another table)
    assert reader.execute("SELECT v FROM kv WHERE k = 1").fetchall() == [(0,)]
    assert writer.execute("SELECT v FROM kv WHERE k = 2").fetchall() == [(5,)]
    writer.execute("UPDATE kv SET v = 1 WHERE k = 1")
    writer.commit()
    (image,) = [w for w in committed_writes() if w is not image]
    with pytest.raises(errors.SerializationFailure):    # write skew: the reader's check needs it
        reader.execute("UPDATE kv SET v = 1 WHERE k = 2")
    assert image._work is None and image.count == 2 and image.keys == {1}

    def expired():
        raise FileNotFoundError("a file of the old rows was removed")

    def unreadable():
        raise ValueError("a corrupt file")
    for failing in (expired, unreadable):
        unknown = TableWrites(failing)
        assert SSI._conflict(ssi, {"t": TableReads(keys={1})}, {"t": unknown})
        assert SSI._conflict(ssi, {"t": TableReads(keys={2})}, {"t": unknown})      # (and again)
        assert not SSI._conflict(ssi, {"u": TableReads(keys={1})}, {"t": unknown})
    for conn in serializable + [setup]:
        conn.close()


def test_a_snapshot_is_handed_out_again_only_while_nothing_it_holds_changed(c, connect):
    db = c._session.db
    first = db.take_snapshot()
    assert db.take_snapshot() is first                      # nothing happened: the same one
    writer = connect()
    writer.execute("INSERT INTO t VALUES (3, 30)")          # a running writer: it has an XID
    xid = writer._session.txn.xid
    running = db.take_snapshot()
    assert running is not first and xid in running.xip and running.xmax > xid
    assert db.take_snapshot() is running
    writer.rollback()                                       # it ended: no longer running
    after = db.take_snapshot()
    assert after is not running and xid not in after.xip and after.csn == first.csn
    other = connect(autocommit=True)
    other.execute("INSERT INTO t VALUES (4, 40)")           # a commit: a newer catalog version
    newest = db.take_snapshot()
    assert newest is not after and newest.csn > after.csn
    assert rows(c) == [*INITIAL, (4, 40)]


def test_the_vote_refuses_a_row_another_commit_deleted_since_the_snapshot(tmp_path):
    """The commit's data-conflict check on its own (another process's commit is not stopped
    by this process's row locks: the vote is what refuses it): a row this transaction
    deleted or updated that a commit since its snapshot deleted too fails it with 40001;
    rows nobody else touched pass, in the newest version's file ids."""
    conn = txlake.connect(str(tmp_path / "w"), publish="off")
    cur = conn.cursor()
    cur.execute("CREATE TABLE t (id INT PRIMARY KEY, v INT)")
    cur.execute("INSERT INTO t SELECT range, 0 FROM range(100)")       # one file: row id = position
    conn.commit()

    same = delta_of(conn, "UPDATE t SET v = 1 WHERE id = 7")
    other = delta_of(conn, "DELETE FROM t WHERE id IN (8, 9)")
    cur.execute("UPDATE t SET v = 2 WHERE id = 7")                      # committed since their snapshot
    conn.commit()
    current = conn.session.db.warehouse.refresh().by_id(same.table_id)
    with pytest.raises(errors.SerializationFailure):
        same.check_conflicts(current)
    (fid, rows), = other.check_conflicts(current).items()
    assert list(rows) == [8, 9] and current.file(fid) is not None
    conn.close()


def test_a_serializable_commit_is_checked_while_another_is_being_flushed(tmp_path, monkeypatch):
    """SERIALIZABLE commits do not hold the SSI lock across their log append and flush (so
    they can share group commits): a transaction past its check counts as committed, at a
    place not yet known, for the checks of others. Write skew with the first commit held
    just before its entry is durable: the second is refused with 40001 at once, not after
    waiting for the first's flush; the first then commits."""
    import threading
    from concurrent.futures import ThreadPoolExecutor
    from txlake.storage.warehouse import Warehouse
    path = str(tmp_path / "w")
    setup = txlake.connect(path, autocommit=True, publish="off")
    setup.execute("CREATE TABLE kv (k INT PRIMARY KEY, v INT)")
    setup.execute("INSERT INTO kv VALUES (1, 0), (2, 0)")
    t1 = txlake.connect(path, isolation_level="SERIALIZABLE", publish="off")
    t2 = txlake.connect(path, isolation_level="SERIALIZABLE", publish="off")
    assert t1.execute("SELECT v FROM kv WHERE k = 1").fetchall() == [(0,)]
    assert t2.execute("SELECT v FROM kv WHERE k = 2").fetchall() == [(0,)]
    t1.execute("UPDATE kv SET v = 1 WHERE k = 2")
    t2.execute("UPDATE kv SET v = 1 WHERE k = 1")
    flushing, release = threading.Event(), threading.Event()
    made_durable = Warehouse._made_durable

    def held(self, entries, built=None):
        if threading.current_thread().name.startswith("first"):
            flushing.set()
            assert release.wait(30)
        return made_durable(self, entries, built)

    monkeypatch.setattr(Warehouse, "_made_durable", held)
    with ThreadPoolExecutor(1, thread_name_prefix="first") as first, ThreadPoolExecutor(1) as second:
        committing = first.submit(t1.commit)
        assert flushing.wait(30)
        refused = second.submit(t2.commit)
        try:
            with pytest.raises(errors.SerializationFailure):
                refused.result(timeout=10)     # (it waited for the first's flush before)
        finally:
            release.set()
        committing.result(timeout=30)
    assert sorted(setup.execute("SELECT k, v FROM kv").fetchall()) == [(1, 0), (2, 1)]
    for conn in (t1, t2, setup):
        conn.close()


def test_the_vote_refuses_a_key_another_commit_inserted_since_the_snapshot(tmp_path):
    """The commit's key check on its own (another process's insert of the same key is not
    stopped by this process's key locks: the vote is what refuses it): a key this
    transaction inserted that a commit since its snapshot inserted too fails it with 23505;
    another key commits."""
    from txlake.storage.commit import Commit
    conn = txlake.connect(str(tmp_path / "w"), publish="off")
    cur = conn.cursor()
    cur.execute("CREATE TABLE t (id INT PRIMARY KEY, v INT)")
    cur.execute("INSERT INTO t VALUES (1, 1)")
    conn.commit()

    same, other = delta_of(conn, "INSERT INTO t VALUES (5, 0)"), delta_of(conn, "INSERT INTO t VALUES (6, 0)")
    cur.execute("INSERT INTO t VALUES (5, 1)")                          # committed since their snapshot
    conn.commit()
    warehouse = conn.session.db.warehouse
    with pytest.raises(errors.UniqueViolation):
        warehouse.commit(Commit(warehouse.store, [same], 1000, warehouse.commit_user, "late-5"))
    warehouse.commit(Commit(warehouse.store, [other], 1001, warehouse.commit_user, "late-6"))
    assert cur.execute("SELECT id, v FROM t ORDER BY id").fetchall() == [(1, 1), (5, 1), (6, 0)]
    conn.close()


@pytest.mark.parametrize("upsert", ["ON CONFLICT DO NOTHING", "ON CONFLICT (id) DO UPDATE SET v = t.v + excluded.v"])
def test_an_upsert_whose_key_another_process_committed_first_fails_with_40001(tmp_path, upsert):
    """INSERT ... ON CONFLICT inserted a key absent when it ran; another process (no row locks
    shared) commits the same key before this commit. The vote refuses it with 40001, which a
    client retries - and the retried statement sees the row and does nothing or updates it -
    not 23505, which PostgreSQL never gives on an upsert's conflict target. A plain INSERT's
    clash stays 23505."""
    path = str(tmp_path / "w")
    setup = txlake.connect(path, autocommit=True, publish="off")
    setup.execute("CREATE TABLE t (id INT PRIMARY KEY, v INT)")
    other_process = f"import txlake; txlake.connect({path!r}, autocommit=True, publish='off').execute(%r)"
    for statement, error in ((f"INSERT INTO t VALUES (7, 1) {upsert}", errors.SerializationFailure),
                             ("INSERT INTO t VALUES (8, 1)", errors.UniqueViolation)):
        conn = txlake.connect(path, isolation_level="READ COMMITTED", publish="off")
        conn.execute(statement)
        done = run_python(other_process % statement.replace("(7, 1)", "(7, 5)").replace("(8, 1)", "(8, 5)"))
        assert done.returncode == 0, done.stderr
        with pytest.raises(error):
            conn.commit()
        if error is errors.SerializationFailure:
            conn.execute(statement)  # retried: the statement sees the row, and does nothing or updates it
            conn.commit()
        else:
            with pytest.raises(errors.UniqueViolation):  # retried: at once
                conn.execute(statement)
        conn.close()
    expected = 5 if "NOTHING" in upsert else 6
    assert setup.execute("SELECT id, v FROM t ORDER BY id").fetchall() == [(7, expected), (8, 5)]
    setup.close()


def test_a_vote_taken_before_the_log_lock_is_taken_again_if_another_process_appended(tmp_path, monkeypatch):
    """A group is voted before the log's lock is taken (so the lock is held only to write);
    holding the lock, the vote stands only if nothing was appended meanwhile. Here another
    handle on the warehouse (as another process) commits an update of the same row just
    before the lock is taken: the vote taken again refuses the commit with 40001."""
    from txlake.storage.commit import Commit
    from txlake.storage.warehouse import Warehouse
    path = str(tmp_path / "w")
    conn = txlake.connect(path, publish="off")
    cur = conn.cursor()
    cur.execute("CREATE TABLE t (id INT PRIMARY KEY, v INT)")
    cur.execute("INSERT INTO t SELECT range, 0 FROM range(10)")
    conn.commit()

    mine = delta_of(conn, "UPDATE t SET v = 1 WHERE id = 3")
    theirs = delta_of(conn, "UPDATE t SET v = 2 WHERE id = 3")
    here, elsewhere = conn.session.db.warehouse, Warehouse(path)
    log_locked, appended = Warehouse._log_locked, []

    def racing(self):
        if self is here and not appended:
            appended.append(elsewhere.commit(Commit(elsewhere.store, [theirs], 2000, "elsewhere", "theirs")))
        return log_locked(self)

    monkeypatch.setattr(Warehouse, "_log_locked", racing)
    with pytest.raises(errors.SerializationFailure):
        here.commit(Commit(here.store, [mine], 2001, here.commit_user, "mine"))
    assert appended and cur.execute("SELECT v FROM t WHERE id = 3").fetchall() == [(2,)]
    elsewhere.txlog.close()
    conn.close()


@pytest.mark.parametrize("theirs, read, refused", [
    ("UPDATE t SET v = 9 WHERE id = 3", "SELECT v FROM t WHERE id = 1", False),   # other keys
    ("INSERT INTO t VALUES (2001, 0)", "SELECT v FROM t WHERE id = 1", False),
    ("UPDATE t SET v = 9 WHERE id = 1", "SELECT v FROM t WHERE id = 1", True),    # a key it read
    ("DELETE FROM t WHERE id = 1", "SELECT v FROM t WHERE id = 1", True),         # (a Parquet row)
    ("DELETE FROM t WHERE id = 1000", "SELECT v FROM t WHERE id = 1000", True),   # (an inline row)
    ("INSERT INTO t VALUES (2000, 0)", "SELECT v FROM t WHERE id = 2000", True),  # a phantom key
    ("UPDATE t SET v = 9 WHERE id = 3", "SELECT v FROM t WHERE v >= 0", True),    # a predicate read
])
def test_serializable_reads_by_key_are_checked_key_by_key_against_other_processes(tmp_path, theirs, read, refused):
    """Another process's commit since a SERIALIZABLE transaction's snapshot fails it (40001)
    if it changed what the transaction read: key by key where it read a table only by
    primary key (rows inserted, updated or deleted), the whole table otherwise."""
    from txlake.storage.commit import Commit
    from txlake.storage.warehouse import Warehouse
    path = str(tmp_path / "w")
    setup = txlake.connect(path, autocommit=True, publish="off")
    setup.execute("CREATE TABLE t (id INT PRIMARY KEY, v INT)")
    setup.execute("INSERT INTO t SELECT range, 0 FROM range(300)")      # a Parquet file
    setup.execute("INSERT INTO t VALUES (1000, 0)")                      # an inline row
    txn = txlake.connect(path, isolation_level="SERIALIZABLE", publish="off")
    txn.execute(read).fetchall()
    txn.execute("UPDATE t SET v = 1 WHERE id = 2")
    other = txlake.connect(path, publish="off")
    delta = delta_of(other, theirs)                                      # (its change, made here ...)
    elsewhere = Warehouse(path)                                          # (... committed as by another process)
    elsewhere.commit(Commit(elsewhere.store, [delta], 3000, elsewhere.commit_user, "theirs"))
    if refused:
        with pytest.raises(errors.SerializationFailure):
            txn.commit()
    else:
        txn.commit()
        assert setup.execute("SELECT v FROM t WHERE id = 2").fetchall() == [(1,)]
    elsewhere.txlog.close()
    for conn in (txn, other, setup):
        conn.close()


def delta_of(conn, sql):
    """What ``sql`` does to its one table, as the commit sees it (base and working version),
    taken before the transaction is rolled back: to commit later, elsewhere or against a
    newer version."""
    from txlake.storage.commit import TableDelta
    conn.execute(sql)
    txn = conn.session.txn
    (table_id, work), = txn.changes.items()
    delta = TableDelta(table_id, txn.bases[table_id], work)
    conn.rollback()
    return delta


@pytest.mark.parametrize("mine, theirs, outcome", [
    # an UPDATE setting no key column: its row's key is not looked up among rows committed since
    ("UPDATE t SET v = 1 WHERE id = 3", "INSERT INTO t VALUES (77, 0)", None),
    ("UPDATE t SET v = v + 1 WHERE id IN (3, 4)", "INSERT INTO t VALUES (77, 0)", None),
    # ... and a row with its key committed since means its row was deleted since: 40001
    ("UPDATE t SET v = 1 WHERE id = 3", "UPDATE t SET v = 9 WHERE id = 3", errors.SerializationFailure),
    # the key of a row this transaction inserted is looked up, also when it then updates it
    ("INSERT INTO t VALUES (50, 0); UPDATE t SET v = 1 WHERE id = 50", "INSERT INTO t VALUES (50, 9)",
     errors.UniqueViolation),
    # and so is a key an UPDATE sets
    ("UPDATE t SET id = 60 WHERE id = 3", "INSERT INTO t VALUES (60, 9)", errors.UniqueViolation),
])
def test_a_commits_keys_are_checked_against_other_processes_unless_an_update_kept_them(tmp_path, monkeypatch,
                                                                                         mine, theirs, outcome):
    """At COMMIT, the keys of the rows a transaction wrote are checked against rows other
    processes committed since its snapshot (they share no key locks with it) - except the rows
    of an UPDATE that set no key column, which replace committed rows of the same keys: were
    such a key committed since, the row it replaces would have been deleted since, and the vote
    refuses that first (40001)."""
    from txlake.storage.commit import Commit
    from txlake.storage.warehouse import Warehouse
    path = str(tmp_path / "w")
    setup = txlake.connect(path, autocommit=True, publish="off")
    setup.execute("CREATE TABLE t (id INT PRIMARY KEY, v INT)")
    setup.execute("INSERT INTO t SELECT range, 0 FROM range(10)")
    other = txlake.connect(path, publish="off")
    delta = delta_of(other, theirs)  # (made first: this process's sessions share row locks)
    txn = txlake.connect(path, isolation_level="READ COMMITTED", publish="off")
    for sql in mine.split("; "):
        txn.execute(sql)
    elsewhere = Warehouse(path)
    elsewhere.commit(Commit(elsewhere.store, [delta], 3000, elsewhere.commit_user, "theirs"))
    checked = []
    check_keys = Commit._check_keys
    monkeypatch.setattr(Commit, "_check_keys", lambda self, *a: (checked.append(a[2]), check_keys(self, *a))[1])
    if outcome is None:
        txn.commit()
        assert checked == []  # (nothing to look up)
        assert setup.execute("SELECT count(*) FROM t").fetchone() == (11,)
    else:
        with pytest.raises(outcome):
            txn.commit()
        theirs_only = 1 if outcome is errors.UniqueViolation else 0  # (their row 50 or 60)
        assert setup.execute("SELECT count(*) FROM t").fetchone() == (10 + theirs_only,)
    elsewhere.txlog.close()
    for conn in (txn, other, setup):
        conn.close()


def test_cancel_from_another_thread_stops_a_statement_busy_outside_duckdb(connect):
    """Connection.cancel() (as psycopg's) - the shell's Ctrl-C too: a statement whose time goes
    to parsing 40,000 VALUES rows could not be stopped, and committed. It now fails with 57014
    and commits nothing; the connection goes on."""
    import threading
    import time
    conn = connect(autocommit=True)
    conn.execute("CREATE TABLE a (id INT PRIMARY KEY, v TEXT)")
    outcome = {}

    def insert():
        try:
            conn.execute("INSERT INTO a VALUES " + ",".join(f"({i}, 'v{i}')" for i in range(40000)))
            outcome["done"] = "committed"
        except txlake.Error as e:
            outcome["done"] = e.sqlstate

    worker = threading.Thread(target=insert)
    worker.start()
    time.sleep(0.3)
    conn.cancel()
    worker.join(60)
    assert outcome == {"done": "57014"}
    assert conn.execute("SELECT count(*) FROM a").fetchone() == (0,)
    conn.cancel()  # with nothing running: the next statement is not canceled
    assert conn.execute("SELECT 1").fetchone() == (1,)


def test_cancel_from_another_thread_stops_a_statement_waiting_for_a_row_lock(c, connect):
    """As PostgreSQL's cancel request does: the wait ends at once with 57014. The waiter went on
    waiting until the holder ended (the shell warned that Ctrl-C could not stop it), then ran."""
    import threading
    import time
    holder = connect()
    holder.execute("UPDATE t SET v = 1 WHERE id = 1")
    outcome = {}

    def update():
        try:
            c.execute("UPDATE t SET v = 2 WHERE id = 1")
            outcome["done"] = "updated"
        except txlake.Error as e:
            outcome["done"] = e.sqlstate

    worker = threading.Thread(target=update)
    worker.start()
    locks = c.session.db.locks
    deadline = time.monotonic() + 10
    while not (c.session.txn is not None and id(c.session.txn) in locks._waits_for):
        assert time.monotonic() < deadline, "the UPDATE did not wait"
        time.sleep(0.001)
    c.cancel()
    worker.join(10)
    canceled = dict(outcome)
    holder.commit()
    worker.join(10)
    assert canceled == {"done": "57014"}
    with pytest.raises(errors.InFailedTransaction):
        c.execute("SELECT 1")
    c.rollback()
    c.execute("SET lock_timeout = '5s'")
    c.execute("UPDATE t SET v = 3 WHERE id = 1")          # the next wait is not canceled
    c.commit()
    assert committed(connect) == [(1, 3), (2, 20)]


def test_txid_current_is_the_transactions_id(c, connect):
    """As PostgreSQL's: one value for the whole transaction (assigned at the first call or
    write), another for the next one and for other sessions. It was DuckDB's own counter, which
    moved at every statement - and another session got the same numbers."""
    assert c.execute("SELECT txid_current_if_assigned()").fetchone() == (None,)   # (read only so far)
    c.execute("INSERT INTO t VALUES (3, 30)")
    cur = c.execute("SELECT txid_current()")
    assert cur.description[0][0] == "txid_current"
    mine = cur.fetchone()[0]
    assert mine == c.session.txn.xid
    assert c.execute("SELECT txid_current(), pg_current_xact_id(), txid_current_if_assigned()").fetchone() == (
        mine, mine, mine)
    other = connect()
    theirs = other.execute("SELECT txid_current()").fetchone()[0]
    assert theirs != mine
    other.rollback()
    c.commit()
    following = c.execute("SELECT txid_current()").fetchone()[0]
    assert following not in (mine, theirs) and following > mine
    c.rollback()


def _in_thread(function):
    """Run ``function`` in a thread; the thread and a list that gets its result or error."""
    import threading
    outcome = []

    def run():
        try:
            outcome.append(function())
        except Exception as e:  # (the caller looks at it)
            outcome.append(e)

    thread = threading.Thread(target=run)
    thread.start()
    return thread, outcome


def _waiting(conn, seconds=10.0):
    """Wait until ``conn``'s transaction waits for a row lock."""
    import time
    locks, txn = conn._session.db.locks, conn._session.txn
    deadline = time.monotonic() + seconds
    while True:
        with locks._mutex:
            if any(w is txn for queue in locks._queues.values() for w in queue):
                return
        assert time.monotonic() < deadline, "the other transaction never waited"
        time.sleep(0.002)


def test_a_deadlock_victims_row_locks_go_at_its_error_not_at_its_rollback(c, connect):
    """As PostgreSQL aborts a transaction at its error: the survivor of a deadlock goes on at
    once, while the victim's block is still open (failed). Before, it waited for the victim's
    ROLLBACK - as long as a client took to send it."""
    a, b = c, connect()
    a.execute("UPDATE t SET v = v + 1 WHERE id = 1")
    b.execute("UPDATE t SET v = v + 1 WHERE id = 2")
    thread, outcome = _in_thread(lambda: a.execute("UPDATE t SET v = v + 1 WHERE id = 2").rowcount)
    try:
        _waiting(a)
        with pytest.raises(errors.DeadlockDetected):
            b.execute("UPDATE t SET v = v + 1 WHERE id = 1")
        thread.join(10)  # (b has not rolled back)
        assert outcome == [1]
        with pytest.raises(errors.InFailedTransaction):
            b.execute("SELECT 1")
    finally:
        b.rollback()  # (without the fix, what a waits for)
        thread.join(10)
    a.commit()
    assert committed(connect) == [(1, 11), (2, 21)]


def test_an_error_frees_the_row_locks_since_the_newest_savepoint_and_keeps_the_older(c, connect):
    a, b = c, connect()
    a.execute("UPDATE t SET v = 11 WHERE id = 1")
    a.execute("SAVEPOINT s")
    a.execute("UPDATE t SET v = 22 WHERE id = 2")
    with pytest.raises(errors.DivisionByZero):
        a.execute("SELECT 1 / 0")
    # id 2's lock (taken in the failed subtransaction) is free: b takes it at once
    b.execute("SET lock_timeout = '2s'")
    assert b.execute("UPDATE t SET v = 200 WHERE id = 2").rowcount == 1
    # id 1's (taken before the savepoint) is still a's: the block may yet commit it
    with pytest.raises(errors.LockNotAvailable):
        b.execute("UPDATE t SET v = 100 WHERE id = 1")
    b.rollback()
    a.execute("ROLLBACK TO SAVEPOINT s")
    a.commit()
    assert committed(connect) == [(1, 11), (2, 20)]


def test_an_error_without_a_savepoint_frees_every_row_lock_of_the_block(c, connect):
    a, b = c, connect(autocommit=True)
    a.execute("UPDATE t SET v = 11 WHERE id = 1")
    with pytest.raises(errors.Error):
        a.execute("SELEC 1")  # (a syntax error fails the block too)
    b.execute("SET lock_timeout = '2s'")
    assert b.execute("UPDATE t SET v = 100 WHERE id = 1").rowcount == 1
    a.commit()  # (a failed block's COMMIT rolls back)
    assert committed(connect) == [(1, 100), (2, 20)]


def test_read_committed_follows_a_row_whose_key_another_transaction_updated(c, connect):
    """PostgreSQL's READ COMMITTED re-checks the newest version of a row it waited for, however
    it changed: here its primary key. The row was found again by its old key only, and - gone
    under it - was skipped: the UPDATE changed 1 row of 2 and left (10, 0)."""
    setup = connect(autocommit=True)
    setup.execute("CREATE TABLE c (k INT PRIMARY KEY, n INT)")
    setup.execute("INSERT INTO c VALUES (1, 0), (2, 0)")
    a, b = c, connect(isolation_level="READ COMMITTED")
    a.execute("UPDATE c SET k = 10 WHERE k = 1")
    assert _after_waiting(a, b, "UPDATE c SET n = n + 1 WHERE n = 0") == [2]
    b.commit()
    assert rows(setup, "c") == [(2, 1), (10, 1)]


@pytest.mark.parametrize("table, change, expected", [
    ("c (k INT PRIMARY KEY, n INT)", "UPDATE c SET k = 30 WHERE k = 3", [(0, 6), (1, 1), (2, 1), (30, 1)]),
    ("c (k INT, n INT)", "UPDATE c SET n = n + 10 WHERE k = 3", [(0, 6), (1, 1), (2, 1), (3, 11)]),
], ids=["key changed", "no primary key"])
def test_read_committed_follows_a_row_changed_after_a_compaction_moved_it(c, connect, table, change, expected):
    """The updater recorded the row's update chain from where the compaction had moved it, not
    from where the waiting statement's snapshot saw it: the chain was not found there, the row
    was taken for deleted and skipped - a lost update of a whole-table UPDATE (found by a soak
    run: the total of a bank's balances drifted). With a primary key, a row whose key changed
    is followed by its chain; without one, every row is."""
    setup = connect(autocommit=True)
    setup.execute(f"CREATE TABLE {table}")
    for k in range(4):  # (a file each: the compaction moves every row)
        setup.execute("INSERT INTO c VALUES (?, 0)", (k,))
    a, b = c, connect(isolation_level="READ COMMITTED")
    a.execute("UPDATE c SET n = 5 WHERE k = 0")
    thread, outcome = _in_thread(lambda: b.execute("UPDATE c SET n = n + 1").rowcount)
    try:
        _waiting(b)  # (its snapshot is from before the compaction)
        assert setup.execute("CALL txlake.compact('c')").fetchone()[1] == 4
        setup.execute(change)
        a.commit()
        thread.join(10)
    finally:
        a.rollback()
        thread.join(10)
    assert outcome == [4]
    b.commit()
    assert rows(setup, "c") == expected


def _after_waiting(a, b, sql):
    """``b`` runs ``sql`` in a thread, which waits for a row lock ``a`` holds; ``a`` commits;
    what the statement came to (its rowcount, or its error)."""
    thread, outcome = _in_thread(lambda: b.execute(sql).rowcount)
    try:
        _waiting(b)
        a.commit()
        thread.join(10)
    finally:
        a.rollback()
        thread.join(10)
    return outcome


def test_read_committed_skips_a_row_deleted_meanwhile_and_rechecks_a_moved_one(c, connect):
    setup = connect(autocommit=True)
    setup.execute("CREATE TABLE c (k INT PRIMARY KEY, n INT)")
    setup.execute("INSERT INTO c VALUES (1, 0), (2, 0), (3, 0)")
    a, b = c, connect(isolation_level="READ COMMITTED")
    a.execute("DELETE FROM c WHERE k = 1")
    a.execute("UPDATE c SET k = 20, n = 5 WHERE k = 2")  # (no longer matches b's WHERE)
    assert _after_waiting(a, b, "UPDATE c SET n = n + 1 WHERE n = 0") == [1]
    b.commit()
    assert rows(setup, "c") == [(3, 1), (20, 5)]


@pytest.mark.parametrize("level", ["READ COMMITTED", "REPEATABLE READ", "SERIALIZABLE"])
def test_an_update_to_a_key_committed_since_the_snapshot_fails_at_the_statement(connect, level):
    """As an INSERT's keys are, an UPDATE's new keys are unique over the newest committed
    state: 23505 at the UPDATE, as PostgreSQL's unique index gives it. At REPEATABLE READ and
    SERIALIZABLE the clash was found only at COMMIT. A key the transaction itself freed is
    still its to take."""
    setup = connect(autocommit=True)
    setup.execute("CREATE TABLE c (k INT PRIMARY KEY, n INT)")
    setup.execute("INSERT INTO c VALUES (1, 0), (2, 0)")
    a = connect(isolation_level=level)
    a.execute("SELECT * FROM c").fetchall()
    a.execute("DELETE FROM c WHERE k = 2")
    setup.execute("INSERT INTO c VALUES (142, 0)")
    assert a.execute("UPDATE c SET k = 2 WHERE k = 1").rowcount == 1
    with pytest.raises(errors.UniqueViolation):
        a.execute("UPDATE c SET k = 142 WHERE k = 2")
    a.rollback()
    assert rows(setup, "c") == [(1, 0), (2, 0), (142, 0)]


@pytest.mark.parametrize("create", ["CREATE TABLE churn (x INT)", "CREATE VIEW churn AS SELECT 1 AS x",
                                    "CREATE SEQUENCE churn", "CREATE TABLE IF NOT EXISTS churn (x INT)"])
@pytest.mark.parametrize("first_commits", [True, False])
def test_a_create_waits_for_another_open_creator_of_the_name(warehouse, create, first_commits):
    """As PostgreSQL's unique index on relation names: a CREATE of a name another open
    transaction created waits for it, then fails with 42P07 at the statement if that one
    committed (IF NOT EXISTS: skips), or creates it if that one rolled back - not at COMMIT, where
    the transaction could no longer go on (and at REPEATABLE READ, whose snapshot is older)."""
    first = txlake.connect(warehouse, isolation_level="REPEATABLE READ")
    second = txlake.connect(warehouse, isolation_level="REPEATABLE READ")
    try:
        second.execute("SELECT 1").fetchall()  # (its snapshot: before the first commits)
        first.execute("CREATE TABLE churn (y INT)")
        outcome = meanwhile(second, create, first.commit if first_commits else first.rollback)
        expected = "ok" if not first_commits or "IF NOT EXISTS" in create else "42P07"
        assert outcome == expected
        if expected == "ok":
            second.commit()  # (no 42P07 here either)
    finally:
        first.rollback()
        second.rollback()


def test_vacuum_compacts_and_analyze_checks_names(connect):
    """``VACUUM [FULL] [(options)] [tables]`` compacts the tables, dropping deleted rows from
    their files, as ``CALL txlake.compact`` does (it was 0A000 statement not supported); it
    cannot run in a transaction block (25001), as PostgreSQL's. ``ANALYZE [tables]`` checks the
    names and may run in one."""
    conn = connect(autocommit=True)
    for name in ("a", "b"):
        conn.execute(f"CREATE TABLE {name} (k INT PRIMARY KEY, x INT)")
        for first in (1, 101, 201):
            conn.execute(f"INSERT INTO {name} SELECT g, g FROM generate_series({first}, {first + 99}) g")
        conn.execute(f"DELETE FROM {name} WHERE k % 2 = 0")
    assert conn.execute("VACUUM (VERBOSE, ANALYZE) a").rowcount == -1
    assert conn.execute("CALL txlake.compact('a')").fetchone()[4] is None  # (nothing left to compact)
    assert conn.execute("CALL txlake.compact('b')").fetchone()[4] is not None
    assert conn.execute("SELECT count(*), sum(x) FROM a").fetchone() == (150, 22500)
    conn.execute("VACUUM FULL")
    conn.execute("ANALYZE VERBOSE a (x), b")
    for sql, sqlstate in (("VACUUM nope", "42P01"), ("ANALYZE nope", "42P01"), ("VACUUM (bogus) a", "42601")):
        with pytest.raises(errors.Error) as info:
            conn.execute(sql)
        assert info.value.sqlstate == sqlstate
    conn.execute("BEGIN")
    conn.execute("ANALYZE a")
    with pytest.raises(errors.ActiveSqlTransaction) as info:
        conn.execute("VACUUM a")
    assert info.value.sqlstate == "25001"
    conn.execute("ROLLBACK")


PREPARE_IN_ANOTHER_PROCESS = """
import sys, txlake
conn = txlake.connect(sys.argv[1], autocommit=True, publish="off")
conn.execute("BEGIN")
conn.execute("INSERT INTO t VALUES (2)")
conn.execute("PREPARE TRANSACTION 'theirs'")
"""


def test_pg_prepared_xacts_lists_the_prepared_transactions_of_every_process(connect, warehouse):
    """pg_prepared_xacts was 42P01 (transaction managers and monitoring read it): the prepared
    transactions awaiting COMMIT / ROLLBACK PREPARED, a finished one gone."""
    c = connect(autocommit=True)
    c.execute("CREATE TABLE t (a INT)")
    c.execute("BEGIN")
    c.execute("INSERT INTO t VALUES (1)")
    c.execute("PREPARE TRANSACTION 'mine'")
    done = run_python(PREPARE_IN_ANOTHER_PROCESS, warehouse)
    assert done.returncode == 0, done.stderr
    user = c.execute("SELECT current_user").fetchone()[0]
    assert c.execute("SELECT gid, owner, database, transaction > 0, prepared <= now() FROM pg_prepared_xacts "
                     "ORDER BY gid").fetchall() == [("mine", user, "txlake", True, True),
                                                     ("theirs", user, "txlake", True, True)]
    c.execute("COMMIT PREPARED 'mine'")
    c.execute("ROLLBACK PREPARED 'theirs'")
    assert c.execute("SELECT count(*) FROM pg_prepared_xacts").fetchone() == (0,)
