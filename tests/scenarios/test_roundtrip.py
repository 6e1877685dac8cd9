"""Committed state survives the process: DDL and DML over many transactions (commits,
rollbacks, savepoints, failed blocks), then the warehouse is reopened in a NEW process, which
must find exactly what was committed - no more, no less. Public API only."""

import base64
import datetime
import pickle
from decimal import Decimal

import pytest

from tests.conftest import run_python
from txlake import errors

# Runs in a fresh interpreter: dumps each named table (columns, type codes, rows in a stable
# order) or the SQLSTATE of the error reading it, pickled so values keep their Python types.
DUMP = r"""
import base64, pickle, sys, txlake
c = txlake.connect(sys.argv[1], publish="off")
out = {}
for t in sys.argv[2:]:
    try:
        cur = c.execute(f"SELECT * FROM {t} ORDER BY ALL")
        out[t] = ([(d[0], d[1]) for d in cur.description], cur.fetchall())
    except txlake.Error as e:
        out[t] = e.sqlstate
    c.rollback()
c.close()
sys.stdout.write(base64.b64encode(pickle.dumps(out)).decode())
"""


def dump_in_new_process(warehouse, *tables):
    proc = run_python(DUMP, warehouse, *tables)
    assert proc.returncode == 0, proc.stderr
    return pickle.loads(base64.b64decode(proc.stdout))


def dump_here(conn, *tables):
    out = {}
    for t in tables:
        try:
            cur = conn.execute(f"SELECT * FROM {t} ORDER BY ALL")
            out[t] = ([(d[0], d[1]) for d in cur.description], cur.fetchall())
        except errors.Error as e:
            out[t] = e.sqlstate
        conn.rollback()
    return out


TABLES = ("acct", "gone", "never", "kinds", "moved", "s2.audit", "renamed_away", "ctas", "emptied")


def build_history(c):
    """Many transactions against one connection (autocommit off); returns nothing - the
    expected outcome is spelled out in EXPECTED below."""
    # 1: schema
    c.execute("CREATE TABLE acct (id INT PRIMARY KEY, owner TEXT NOT NULL, bal DECIMAL(10,2) DEFAULT 0)")
    c.execute("CREATE TABLE gone (x INT)")
    c.execute("CREATE TABLE kinds (k INT PRIMARY KEY, b BOOLEAN, l BIGINT, d DOUBLE, v VARCHAR(8), "
              "dt DATE, ts TIMESTAMP)")
    c.execute("CREATE TABLE emptied (i INT)")
    c.commit()
    # 2: data
    c.execute("INSERT INTO acct (id, owner, bal) VALUES (1, 'ada', 100), (2, 'bob', 50)")
    c.execute("INSERT INTO acct (id, owner) VALUES (5, 'eve')")
    c.execute("INSERT INTO gone VALUES (1)")
    c.cursor().executemany("INSERT INTO kinds VALUES (?, ?, ?, ?, ?, ?, ?)", [
        (1, True, 2**40, 0.25, "héllo", datetime.date(2024, 2, 29), datetime.datetime(2024, 1, 2, 3, 4, 5, 6)),
        (2, False, -1, -1e300, "日本語", datetime.date(1999, 12, 31), datetime.datetime(2000, 1, 1)),
        (3, None, None, None, None, None, None),
    ])
    c.cursor().executemany("INSERT INTO emptied VALUES (?)", [(i,) for i in range(20)])
    c.commit()
    # 3: rolled back - none of this may survive
    c.execute("UPDATE acct SET bal = 0")
    c.execute("DELETE FROM kinds")
    c.execute("CREATE TABLE never (y INT)")
    c.execute("INSERT INTO never VALUES (1)")
    c.execute("DROP TABLE gone")
    c.execute("ALTER TABLE acct DROP COLUMN bal")
    c.rollback()
    # 4: savepoints - keep the first update, lose the second, keep the third
    c.execute("UPDATE acct SET bal = bal - 30 WHERE id = 1")
    c.execute("SAVEPOINT s")
    c.execute("UPDATE acct SET bal = 999 WHERE id = 2")
    c.execute("CREATE TABLE never (z INT)")
    c.execute("SAVEPOINT inner_sp")
    c.execute("DELETE FROM acct")
    c.execute("ROLLBACK TO SAVEPOINT s")
    c.execute("UPDATE acct SET bal = bal + 30 WHERE id = 2")
    c.execute("SAVEPOINT t")
    c.execute("INSERT INTO acct (id, owner) VALUES (3, 'cy')")
    c.execute("RELEASE SAVEPOINT t")
    c.commit()
    # 5: DDL that commits: drop and re-create, add/rename/drop columns, another schema, CTAS
    c.execute("DROP TABLE gone")
    c.execute("CREATE TABLE gone (z TEXT)")
    c.execute("INSERT INTO gone VALUES ('new')")
    c.execute("ALTER TABLE acct ADD COLUMN note TEXT DEFAULT 'n'")
    c.execute("ALTER TABLE acct RENAME COLUMN owner TO holder")
    c.execute("CREATE TABLE s2.audit (at INT, what TEXT)")
    c.execute("INSERT INTO s2.audit VALUES (5, 'ddl')")
    c.execute("CREATE TABLE ctas AS SELECT id, holder FROM acct WHERE id <= 2")
    c.execute("CREATE TABLE renamed_away (q INT)")
    c.commit()
    # 6: a failed transaction leaves nothing; COMMIT of it rolls back
    c.execute("INSERT INTO acct (id, holder) VALUES (4, 'dan')")
    c.execute("DROP TABLE renamed_away")
    with pytest.raises(errors.UniqueViolation):
        c.execute("INSERT INTO acct (id, holder) VALUES (1, 'dup')")
    c.commit()
    # 7: a failed block recovered with ROLLBACK TO SAVEPOINT keeps what came before it
    c.execute("ALTER TABLE kinds DROP COLUMN l")
    c.execute("UPDATE kinds SET v = upper(v) WHERE k = 1")
    c.execute("SAVEPOINT before_error")
    c.execute("DELETE FROM kinds WHERE k = 2")
    with pytest.raises(errors.StringDataRightTruncation):
        c.execute("UPDATE kinds SET v = 'far too long' WHERE k = 3")
    c.execute("ROLLBACK TO before_error")
    c.execute("CREATE TABLE moved (id INT PRIMARY KEY, tag TEXT)")
    c.execute("INSERT INTO moved VALUES (1, 'x'), (2, 'y'), (3, 'z')")
    c.commit()
    # 8: upserts, key changes, deletes (deletion vectors), emptying a table, dropping for good
    c.execute("INSERT INTO acct (id, holder, bal) VALUES (2, 'bob2', 1), (6, 'fay', 6) "
              "ON CONFLICT (id) DO UPDATE SET holder = excluded.holder")
    c.execute("UPDATE moved SET id = id + 10 WHERE id >= 2")
    c.execute("DELETE FROM moved WHERE id = 12")
    c.execute("DELETE FROM emptied")
    c.execute("DROP TABLE renamed_away")
    c.execute("INSERT INTO s2.audit VALUES (8, 'dml')")
    c.commit()
    # 9: autocommit statements, one of them failing
    c.autocommit = True
    c.execute("UPDATE acct SET note = 'vip' WHERE id = 1")
    with pytest.raises(errors.NotNullViolation):
        c.execute("UPDATE acct SET holder = NULL")
    c.execute("INSERT INTO emptied VALUES (42)")
    c.execute("DELETE FROM emptied")
    # 10: an explicit block left open when the connection closes: rolled back
    c.execute("BEGIN")
    c.execute("INSERT INTO s2.audit VALUES (10, 'lost')")
    c.execute("DROP TABLE moved")


DEC = Decimal
EXPECTED = {
    "acct": ([("id", "INTEGER"), ("holder", "VARCHAR"), ("bal", "DECIMAL"), ("note", "VARCHAR")],
             [(1, "ada", DEC("70.00"), "vip"), (2, "bob2", DEC("80.00"), "n"), (3, "cy", DEC("0.00"), "n"),
              (5, "eve", DEC("0.00"), "n"), (6, "fay", DEC("6.00"), "n")]),
    "gone": ([("z", "VARCHAR")], [("new",)]),
    "never": "42P01",
    "kinds": ([("k", "INTEGER"), ("b", "BOOLEAN"), ("d", "DOUBLE"), ("v", "VARCHAR"), ("dt", "DATE"),
               ("ts", "TIMESTAMP")],
              [(1, True, 0.25, "HÉLLO", datetime.date(2024, 2, 29), datetime.datetime(2024, 1, 2, 3, 4, 5, 6)),
               (2, False, -1e300, "日本語", datetime.date(1999, 12, 31), datetime.datetime(2000, 1, 1)),
               (3, None, None, None, None, None)]),
    "moved": ([("id", "INTEGER"), ("tag", "VARCHAR")], [(1, "x"), (13, "z")]),
    "s2.audit": ([("at", "INTEGER"), ("what", "VARCHAR")], [(5, "ddl"), (8, "dml")]),
    "renamed_away": "42P01",
    "ctas": ([("id", "INTEGER"), ("holder", "VARCHAR")], [(1, "ada"), (2, "bob")]),
    "emptied": ([("i", "INTEGER")], []),
}


def test_round_trip_in_new_process(connect, warehouse):
    c = connect()
    build_history(c)
    c.close()
    # the same process, freshly opened, and a new process see exactly the committed state
    here = connect()
    assert dump_here(here, *TABLES) == EXPECTED
    here.close()
    assert dump_in_new_process(warehouse, *TABLES) == EXPECTED


def test_reopened_warehouse_keeps_working(connect, warehouse):
    c = connect(autocommit=True)
    c.execute("CREATE TABLE t (id INT PRIMARY KEY, v TEXT)")
    c.execute("INSERT INTO t VALUES (1, 'a'), (2, 'b')")
    c.execute("UPDATE t SET v = 'B' WHERE id = 2")
    c.close()
    # a new process adds to it, with a key check against what the first process wrote
    writer = run_python(
        "import sys, txlake\n"
        "c = txlake.connect(sys.argv[1], autocommit=True, publish='off')\n"
        "c.execute(\"INSERT INTO t VALUES (3, 'c')\")\n"
        "try:\n"
        "    c.execute(\"INSERT INTO t VALUES (1, 'dup')\")\n"
        "except txlake.IntegrityError as e:\n"
        "    print(e.sqlstate)\n"
        "c.execute('ALTER TABLE t ADD COLUMN w INT DEFAULT 0')\n"
        "c.execute('DELETE FROM t WHERE id = 1')\n", warehouse)
    assert writer.returncode == 0, writer.stderr
    assert writer.stdout.split() == ["23505"]
    # and this process, reopening, sees it and goes on
    c = connect()
    assert c.execute("SELECT * FROM t ORDER BY id").fetchall() == [(2, "B", 0), (3, "c", 0)]
    c.execute("INSERT INTO t VALUES (4, 'd', 4)")
    c.commit()
    assert dump_in_new_process(warehouse, "t")["t"][1] == [(2, "B", 0), (3, "c", 0), (4, "d", 4)]


def test_other_process_commits_are_seen_by_an_open_connection(connect, warehouse):
    c = connect(autocommit=True)
    c.execute("CREATE TABLE t (id INT PRIMARY KEY)")
    rr = connect()
    assert rr.execute("SELECT count(*) FROM t").fetchone() == (0,)    # snapshot taken
    writer = run_python("import sys, txlake\n"
                        "c = txlake.connect(sys.argv[1], autocommit=True, publish='off')\n"
                        "c.execute('INSERT INTO t VALUES (1), (2)')\n", warehouse)
    assert writer.returncode == 0, writer.stderr
    assert c.execute("SELECT count(*) FROM t").fetchone() == (2,)      # autocommit: a new snapshot
    assert rr.execute("SELECT count(*) FROM t").fetchone() == (0,)     # REPEATABLE READ: still its own
    rr.commit()
    assert rr.execute("SELECT count(*) FROM t").fetchone() == (2,)


def test_the_newer_column_types_round_trip_in_a_new_process(connect, warehouse):
    """SMALLINT, REAL, BYTEA, TIME and TIMESTAMPTZ rows - one-row commits that travel inline in
    the log, and a file of many - read back identically by a new process, which then writes a
    row of each type that this process, reopened, reads too."""
    c = connect(autocommit=True)
    c.execute("CREATE TABLE nt (id SMALLINT PRIMARY KEY, r REAL, b BYTEA, t TIME, z TIMESTAMPTZ)")
    c.execute("INSERT INTO nt VALUES (-1, 0.1, '\\x00ff', '01:02:03.456789', '2024-01-02 03:04:05.678901+02')")
    c.execute("INSERT INTO nt VALUES (?, ?, ?, ?, ?)", (-2, None, b"\x01", datetime.time(23, 59),
                                                        datetime.datetime(1999, 12, 31, 23, 59, tzinfo=datetime.UTC)))
    c.execute("INSERT INTO nt SELECT i, i / 3, i::text::bytea, TIME '00:00:00' + i * interval '1 second', "
              "TIMESTAMPTZ '2024-01-01 00:00:00+00' + i * interval '1 day' FROM range(1, 1000) r(i)")
    c.execute("UPDATE nt SET r = r * 2, b = b || '\\x2a'::bytea WHERE id = 7")
    expected = dump_here(c, "nt")
    c.close()
    assert expected["nt"][0] == [("id", "SMALLINT"), ("r", "REAL"), ("b", "BLOB"), ("t", "TIME"), ("z", "TIMESTAMPTZ")]
    assert dump_in_new_process(warehouse, "nt") == expected
    writer = run_python(
        "import sys, txlake\n"
        "c = txlake.connect(sys.argv[1], autocommit=True, publish='off')\n"
        "c.execute(\"INSERT INTO nt VALUES (1000, 2.5, '\\\\x6162', '12:00', '2030-01-01 00:00:00+00')\")\n",
        warehouse)
    assert writer.returncode == 0, writer.stderr
    c = connect()
    assert c.execute("SELECT r, b, t, z FROM nt WHERE id = 1000").fetchone() == (
        2.5, b"ab", datetime.time(12), datetime.datetime(2030, 1, 1, tzinfo=datetime.UTC))
