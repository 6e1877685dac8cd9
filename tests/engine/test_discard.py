"""RESET ALL and DISCARD, as a connection pool resets a session before lending it again
(pgbouncer's server_reset_query is DISCARD ALL): settings, prepared statements, sequence state,
temporary tables and advisory locks, each gone as PostgreSQL says."""

import pytest

import txlake
from tests.conftest import value


def test_reset_all_resets_every_setting_and_a_rollback_undoes_it(connect):
    conn = connect(autocommit=True)
    for sql in ("SET lock_timeout = '5s'", "SET statement_timeout = '1min'", "SET app.tenant = '7'",
                "SET search_path = other, public", "SET TIME ZONE 'Asia/Tokyo'",
                "SET default_transaction_isolation = 'serializable'", "SET application_name = 'pool'"):
        conn.execute(sql)
    conn.execute("BEGIN")
    conn.execute("RESET ALL")
    assert value(conn, "SHOW lock_timeout") == "0" and value(conn, "SHOW TIME ZONE") != "Asia/Tokyo"
    conn.execute("ROLLBACK")  # (RESET ALL is a SET: undone by a rollback)
    assert value(conn, "SHOW lock_timeout") == "5s" and value(conn, "SHOW TIME ZONE") == "Asia/Tokyo"
    conn.execute("RESET ALL")
    assert [value(conn, f"SHOW {name}") for name in ("lock_timeout", "statement_timeout", "search_path",
                                                     "application_name")] == ["0", "0", '"$user", public', ""]
    assert value(conn, "SELECT current_setting('app.tenant')") == ""
    assert value(conn, "SHOW default_transaction_isolation") == value(connect(), "SHOW default_transaction_isolation")
    assert value(conn, "SHOW TIME ZONE") == value(connect(), "SHOW TIME ZONE")


def test_discard_all_leaves_a_session_as_new(connect):
    conn, other = connect(autocommit=True), connect(autocommit=True)
    conn.execute("CREATE SEQUENCE s")
    conn.execute("CREATE TEMP TABLE scratch (a int)")
    conn.execute("CREATE TEMP VIEW scratch_view AS SELECT * FROM scratch")
    conn.execute("PREPARE q AS SELECT 1")
    conn.execute("SET lock_timeout = '5s'")
    assert value(conn, "SELECT nextval('s')") == 1
    conn.execute("SELECT pg_advisory_lock(5)")
    conn.execute("BEGIN")
    with pytest.raises(txlake.Error) as e:
        conn.execute("DISCARD ALL")
    assert e.value.sqlstate == "25001"
    conn.execute("ROLLBACK")
    conn.execute("DISCARD ALL")
    for sql, state in (("SELECT * FROM scratch", "42P01"), ("EXECUTE q", "26000"),
                       ("SELECT currval('s')", "55000"), ("SELECT lastval()", "55000")):
        with pytest.raises(txlake.Error) as e:
            conn.execute(sql)
        assert e.value.sqlstate == state, sql
    assert value(conn, "SHOW lock_timeout") == "0"
    assert value(other, "SELECT pg_try_advisory_lock(5)") is True
    assert value(conn, "SELECT nextval('s')") > 1  # (the session's numbers taken ahead are given up)


def test_discard_temp_is_transactional_and_sequences_forget_currval(connect):
    conn = connect()
    conn.execute("CREATE TEMP TABLE scratch (a int)")
    conn.execute("INSERT INTO scratch VALUES (1)")
    conn.commit()
    conn.execute("DISCARD TEMPORARY")
    with pytest.raises(txlake.ProgrammingError):
        conn.execute("SELECT * FROM scratch")
    conn.rollback()
    assert conn.execute("SELECT * FROM scratch").fetchall() == [(1,)]
    conn.execute("DISCARD TEMP")
    conn.commit()
    with pytest.raises(txlake.ProgrammingError):
        conn.execute("SELECT * FROM scratch")
    conn.rollback()
    conn.execute("CREATE SEQUENCE s")
    conn.execute("SELECT nextval('s')")
    conn.execute("DISCARD SEQUENCES")
    with pytest.raises(txlake.OperationalError):
        conn.execute("SELECT currval('s')")
    conn.rollback()
    conn.execute("DISCARD PLANS")
    with pytest.raises(txlake.ProgrammingError) as e:
        conn.execute("DISCARD everything")
    assert e.value.sqlstate == "42601"


def test_reset_goes_back_to_the_level_connect_gave(connect):
    """RESET (and DISCARD ALL, as a pool sends it) set REPEATABLE READ, whatever connect() asked
    for: a SERIALIZABLE connection came back from the pool weaker."""
    conn = connect(autocommit=True, isolation_level="SERIALIZABLE")
    conn.execute("SET default_transaction_isolation = 'read committed'")
    conn.execute("DISCARD ALL")
    assert value(conn, "SHOW default_transaction_isolation") == "serializable"
    conn.execute("SET default_transaction_isolation = 'read committed'")
    conn.execute("RESET default_transaction_isolation")
    assert value(conn, "SHOW default_transaction_isolation") == "serializable"
