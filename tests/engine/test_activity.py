"""pg_stat_activity, pg_locks, pg_blocking_pids, pg_settings, pg_cancel_backend and
pg_terminate_backend (engine/backends.py, engine/system_views.py): all were missing (42P01,
42883). Sessions and waits are real threads."""

import time

import pytest

import txlake
from tests.conftest import started, waiting

# the usual "who blocks whom" query (PostgreSQL's wiki, "Lock Monitoring")
BLOCKING = """
SELECT blocked_locks.pid AS blocked_pid, blocking_locks.pid AS blocking_pid,
       blocked_activity.query AS blocked_statement, blocking_activity.query AS blocking_statement
FROM pg_catalog.pg_locks blocked_locks
JOIN pg_catalog.pg_stat_activity blocked_activity ON blocked_activity.pid = blocked_locks.pid
JOIN pg_catalog.pg_locks blocking_locks ON blocking_locks.locktype = blocked_locks.locktype
    AND blocking_locks.database IS NOT DISTINCT FROM blocked_locks.database
    AND blocking_locks.relation IS NOT DISTINCT FROM blocked_locks.relation
    AND blocking_locks.page IS NOT DISTINCT FROM blocked_locks.page
    AND blocking_locks.tuple IS NOT DISTINCT FROM blocked_locks.tuple
    AND blocking_locks.virtualxid IS NOT DISTINCT FROM blocked_locks.virtualxid
    AND blocking_locks.transactionid IS NOT DISTINCT FROM blocked_locks.transactionid
    AND blocking_locks.classid IS NOT DISTINCT FROM blocked_locks.classid
    AND blocking_locks.objid IS NOT DISTINCT FROM blocked_locks.objid
    AND blocking_locks.objsubid IS NOT DISTINCT FROM blocked_locks.objsubid
    AND blocking_locks.pid != blocked_locks.pid
JOIN pg_catalog.pg_stat_activity blocking_activity ON blocking_activity.pid = blocking_locks.pid
WHERE NOT blocked_locks.granted AND blocking_locks.granted
"""


def one(conn, sql, params=None):
    return conn.execute(sql, params).fetchall()[0]


def pid(conn) -> int:
    return one(conn, "SELECT pg_backend_pid()")[0]


def activity(admin, of: int) -> dict:
    cur = admin.execute("SELECT * FROM pg_stat_activity WHERE pid = ?", [of])
    row = cur.fetchone()
    return dict(zip([d[0] for d in cur.description], row)) if row is not None else None


@pytest.fixture
def table(connect):
    admin = connect(autocommit=True)
    admin.execute("CREATE TABLE t (id int PRIMARY KEY, v int)")
    admin.execute("INSERT INTO t VALUES (1, 1), (2, 2)")
    return admin


def test_each_session_is_a_backend_with_its_own_pid_and_state(connect):
    admin, a, b = connect(autocommit=True), connect(), connect()
    pids = [pid(c) for c in (admin, a, b)]
    assert len(set(pids)) == 3 and one(admin, "SELECT pg_typeof(pg_backend_pid())") == ("integer",)
    a.execute("SET application_name = 'etl'")
    with pytest.raises(txlake.DataError):
        b.execute("SELECT 1/0")
    me = activity(admin, pids[0])
    assert (me["state"], me["query"], me["datname"], me["backend_type"]) == (
        "active", "SELECT * FROM pg_stat_activity WHERE pid = ?", "txlake", "client backend")
    assert me["query_start"] >= me["backend_start"] and me["wait_event_type"] is None
    seen_a = activity(admin, pids[1])
    assert (seen_a["state"], seen_a["query"], seen_a["application_name"]) == (
        "idle in transaction", "SET application_name = 'etl'", "etl")
    assert seen_a["xact_start"] is not None and seen_a["state_change"] >= seen_a["query_start"]
    assert activity(admin, pids[2])["state"] == "idle in transaction (aborted)"
    b.rollback()
    assert activity(admin, pids[2])["state"] == "idle"
    assert activity(admin, pids[2])["xact_start"] is None
    a.close()
    assert activity(admin, pids[1]) is None  # (a closed session is gone)
    assert sorted(r[0] for r in admin.execute("SELECT pid FROM pg_stat_activity").fetchall()) == [pids[0], pids[2]]


def test_a_row_lock_wait_is_seen_and_its_cancel_leaves_the_warehouse_intact(table, connect):
    admin, holder, waiter = table, connect(), connect()
    holder.execute("UPDATE t SET v = 10 WHERE id = 1")
    holder_pid, waiter_pid = pid(holder), pid(waiter)
    thread, outcome = waiting(waiter, "UPDATE t SET v = 20 WHERE id = 1")
    seen = activity(admin, waiter_pid)
    assert (seen["state"], seen["wait_event_type"], seen["wait_event"], seen["query"]) == (
        "active", "Lock", "transactionid", "UPDATE t SET v = 20 WHERE id = 1")
    holder_xid = activity(admin, holder_pid)["backend_xid"]
    assert admin.execute("SELECT locktype, transactionid, mode FROM pg_locks WHERE pid = ? AND NOT granted",
                         [waiter_pid]).fetchall() == [("transactionid", holder_xid, "ShareLock")]
    assert admin.execute(BLOCKING).fetchall() == [
        (waiter_pid, holder_pid, "UPDATE t SET v = 20 WHERE id = 1", "SELECT pg_backend_pid()")]
    assert one(admin, "SELECT pg_blocking_pids(?), pg_blocking_pids(?)", [waiter_pid, holder_pid]) == (
        [holder_pid], [])
    assert one(admin, "SELECT pg_cancel_backend(?)", [waiter_pid]) == (True,)
    thread.join(10)
    assert outcome == ["57014"]
    waiter.rollback()
    holder.commit()
    assert admin.execute("SELECT * FROM t ORDER BY id").fetchall() == [(1, 10), (2, 2)]
    waiter.execute("UPDATE t SET v = 20 WHERE id = 1")  # (the canceled session goes on)
    waiter.commit()
    assert one(admin, "SELECT v FROM t WHERE id = 1") == (20,)


def test_terminating_the_holder_of_a_table_lock_lets_the_waiter_go_on(table, connect):
    admin, holder, waiter = table, connect(), connect()
    holder.execute("INSERT INTO t VALUES (3, 3)")
    holder.execute("LOCK TABLE t IN ACCESS EXCLUSIVE MODE")
    holder_pid, waiter_pid = pid(holder), pid(waiter)
    thread, outcome = waiting(waiter, "SELECT count(*) FROM t")
    assert activity(admin, waiter_pid)["wait_event"] == "relation"
    assert admin.execute("SELECT pid, mode, granted FROM pg_locks WHERE relation = 't'::regclass "
                         "ORDER BY pid, mode").fetchall() == [(holder_pid, "AccessExclusiveLock", True),
                                          (holder_pid, "RowExclusiveLock", True),
                                          (waiter_pid, "AccessShareLock", False)]
    assert admin.execute(BLOCKING).fetchall()[0][:2] == (waiter_pid, holder_pid)
    assert one(admin, "SELECT pg_blocking_pids(?)", [waiter_pid]) == ([holder_pid],)
    assert one(admin, "SELECT pg_terminate_backend(?)", [holder_pid]) == (True,)
    thread.join(10)
    assert outcome == ["ok"] and one(waiter, "SELECT count(*) FROM t") == (2,)  # (its INSERT rolled back)
    assert activity(admin, holder_pid) is None
    with pytest.raises(txlake.OperationalError) as told:
        holder.execute("SELECT 1")
    assert told.value.sqlstate == "57P01" and str(told.value) == "terminating connection due to administrator command"
    with pytest.raises(txlake.InterfaceError):
        holder.execute("SELECT 1")
    with pytest.raises(txlake.InterfaceError):
        holder.commit()
    assert admin.execute("SELECT locktype FROM pg_locks WHERE pid = ?", [holder_pid]).fetchall() == []


def test_terminating_a_waiting_session_ends_it_with_57P01(table, connect):
    admin, holder, waiter = table, connect(), connect()
    holder.execute("UPDATE t SET v = 10 WHERE id = 2")
    waiter_pid = pid(waiter)
    thread, outcome = waiting(waiter, "DELETE FROM t WHERE id = 2")
    assert one(admin, "SELECT pg_terminate_backend(?, 5000)", [waiter_pid]) == (True,)
    thread.join(10)
    assert outcome == ["57P01"] and waiter.closed
    holder.commit()
    assert admin.execute("SELECT * FROM t ORDER BY id").fetchall() == [(1, 1), (2, 10)]


def test_advisory_locks_and_their_waits(connect):
    admin, holder, waiter = connect(autocommit=True), connect(autocommit=True), connect(autocommit=True)
    holder.execute("SELECT pg_advisory_lock(5), pg_advisory_lock(-1), pg_advisory_lock_shared(1, 2)")
    holder_pid, waiter_pid = pid(holder), pid(waiter)
    waiter.execute("SET lock_timeout = '10s'")
    thread, outcome = started(waiter, "SELECT pg_advisory_lock(5)")
    deadline = time.monotonic() + 10
    while (activity(admin, waiter_pid) or {}).get("wait_event") != "advisory":
        assert time.monotonic() < deadline and thread.is_alive(), outcome
        time.sleep(0.005)
    assert admin.execute("SELECT classid, objid, objsubid, pid, mode, granted FROM pg_locks "
                         "WHERE locktype = 'advisory' ORDER BY granted, objsubid, classid").fetchall() == [
        (0, 5, 1, waiter_pid, "ExclusiveLock", False),
        (0, 5, 1, holder_pid, "ExclusiveLock", True),
        (4294967295, 4294967295, 1, holder_pid, "ExclusiveLock", True),  # (a bigint's halves, as OIDs)
        (1, 2, 2, holder_pid, "ShareLock", True)]
    assert admin.execute(BLOCKING).fetchall()[0][:2] == (waiter_pid, holder_pid)
    assert one(admin, "SELECT pg_blocking_pids(?)", [waiter_pid]) == ([holder_pid],)
    assert one(admin, "SELECT pg_terminate_backend(?)", [holder_pid]) == (True,)  # (session locks freed)
    thread.join(10)
    assert outcome == ["ok"]


def test_signals_to_no_session_and_to_itself(connect):
    admin = connect(autocommit=True)
    assert one(admin, "SELECT pg_cancel_backend(999999), pg_terminate_backend(999999, 10), "
                      "pg_cancel_backend(NULL)") == (False, False, None)
    assert admin.notices[-2:] == ["WARNING:  PID 999999 is not a PostgreSQL backend process"] * 2
    with pytest.raises(txlake.Error) as bad:
        admin.execute("SELECT pg_terminate_backend(pg_backend_pid(), -1)")
    assert bad.value.sqlstate == "22023" and str(bad.value) == '"timeout" must not be negative'
    with pytest.raises(txlake.OperationalError) as canceled:
        admin.execute("SELECT pg_cancel_backend(pg_backend_pid())")
    assert canceled.value.sqlstate == "57014"
    assert one(admin, "SELECT 1") == (1,)
    other = connect()
    other.execute("SELECT pg_advisory_lock(7)")
    other.execute("CREATE TABLE gone (a int)")
    with pytest.raises(txlake.OperationalError) as ended:
        other.execute("SELECT pg_terminate_backend(pg_backend_pid())")
    assert ended.value.sqlstate == "57P01" and other.closed
    assert one(admin, "SELECT pg_try_advisory_lock(7), to_regclass('gone')") == (True, None)


def test_pg_settings_agrees_with_show_and_an_update_is_a_set_config(connect):
    a = connect()
    a.execute("SET lock_timeout = '2s'")
    a.execute("SET application_name = 'etl'")
    shown = {name: value for name, value, _ in a.execute("SHOW ALL").fetchall()}
    rows = {r[0]: r[1:] for r in a.execute("SELECT name, setting, unit, vartype, source, boot_val, reset_val, "
                                           "context, category FROM pg_settings").fetchall()}
    assert set(rows) == set(shown) and {"TimeZone", "server_version", "search_path"} <= set(rows)
    for name, (setting, unit, *_) in rows.items():
        assert setting == (shown[name] if unit is None else "2000" if name == "lock_timeout" else "0"), name
        assert one(a, f"SELECT current_setting('{name}')") == (shown[name],)
    assert rows["lock_timeout"][:6] == ("2000", "ms", "integer", "session", "0", "0")
    assert rows["application_name"][3:5] == ("session", "")
    assert rows["server_version_num"][6:] == ("internal", "Preset Options")
    assert rows["statement_timeout"][3] == "default"
    cur = a.execute("UPDATE pg_settings SET setting = ? WHERE name = 'statement_timeout'", ["5min"])
    assert (cur.fetchall(), cur.statusmessage) == ([("5min",)], "UPDATE 0")
    assert one(a, "SELECT setting, current_setting('statement_timeout') FROM pg_settings "
                  "WHERE name = 'statement_timeout'") == ("300000", "5min")
    a.rollback()  # (an UPDATE of pg_settings is a SET: undone with its transaction)
    assert one(a, "SHOW statement_timeout") == ("0",)
    assert a.execute("UPDATE pg_settings SET setting = 'x, ' || setting WHERE name = 'search_path'").fetchall() == [
        ('x, "$user", public',)]
    a.commit()
    assert one(a, "SHOW search_path") == ('x, "$user", public',)
    with pytest.raises(txlake.NotSupportedError):
        a.execute("UPDATE pg_settings SET name = 'x'")
    a.rollback()
    with pytest.raises(txlake.OperationalError) as fixed:
        a.execute("UPDATE pg_settings SET setting = '1' WHERE name = 'server_version'")
    assert fixed.value.sqlstate == "55P02"


def test_a_commit_a_terminate_overtakes_fails_with_57P01(table, connect):
    """pg_terminate_backend landing between DB-API commit()'s own check and the session's commit
    rolled the transaction back, and commit() then returned as if it had committed (review): the
    session's commit runs under its lock and fails with 57P01, as a COMMIT sent to a terminated
    PostgreSQL backend does; nothing of the transaction is there."""
    victim = connect()
    victim.execute("INSERT INTO t VALUES (3, 3)")
    session, own = victim._session, victim._session.uncancel

    def overtaken():  # (the terminate, from another session, at the worst moment)
        assert one(table, "SELECT pg_terminate_backend(?)", [session.pid]) == (True,)
        own()

    session.uncancel = overtaken
    with pytest.raises(txlake.OperationalError) as e:
        victim.commit()
    assert e.value.sqlstate == "57P01"
    assert one(table, "SELECT count(*) FROM t") == (2,)


def test_a_db_api_commit_shows_the_session_active(table, connect):
    """DB-API commit() runs no statement of the session's: pg_stat_activity showed it idle while it
    committed (its deferred checks, its flush); PostgreSQL shows the backend active, running COMMIT."""
    victim = connect()
    victim.execute("INSERT INTO t VALUES (3, 3)")
    session, own, seen = victim._session, victim._session._commit, []

    def observed(txn, deadline=None):  # (looked at from another session while it commits)
        seen.append(activity(table, session.pid))
        own(txn, deadline)

    session._commit = observed
    victim.commit()
    assert (seen[0]["state"], seen[0]["query"]) == ("active", "COMMIT")
    assert activity(table, session.pid)["state"] == "idle"
