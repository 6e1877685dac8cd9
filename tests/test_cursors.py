"""SQL cursors (engine/cursors.py): DECLARE / FETCH / MOVE / CLOSE, pg_cursors, and the DB-API's
named cursor, against PostgreSQL 16's behaviour (src/backend/tcop/pquery.c's DoPortalRunFetch,
src/test/regress/expected/portals.out)."""

import io

import pytest

import txlake


@pytest.fixture
def db(connect):
    """An autocommit connection (BEGIN where a test says) over t: id 1..10 and their names."""
    conn = connect(autocommit=True)
    conn.execute("CREATE TABLE t (id int PRIMARY KEY, name text)")
    conn.execute("INSERT INTO t SELECT i, 'n' || i FROM generate_series(1, 10) g(i)")
    return conn


def ids(conn, sql):
    return [row[0] for row in conn.execute(sql).fetchall()]


def fails(conn, sql, sqlstate, params=None):
    with pytest.raises(txlake.Error) as e:
        conn.execute(sql, params)
    assert e.value.sqlstate == sqlstate, str(e.value)
    return str(e.value)


# each step: a FETCH (its rows' ids) or a MOVE (its tag), in order on one cursor over ids 1..10;
# what PostgreSQL's DoPortalRunFetch gives
DIRECTIONS = [
    ("FETCH c", [1]), ("FETCH NEXT FROM c", [2]), ("FETCH PRIOR IN c", [1]), ("FETCH PRIOR c", []),
    ("FETCH PRIOR c", []), ("FETCH c", [1]), ("FETCH LAST c", [10]), ("FETCH c", []), ("FETCH PRIOR c", [10]),
    ("FETCH FIRST c", [1]), ("FETCH ABSOLUTE 4 c", [4]), ("FETCH ABSOLUTE -2 c", [9]), ("FETCH ABSOLUTE 2 c", [2]),
    ("FETCH ABSOLUTE 11 c", []), ("FETCH PRIOR c", [10]), ("FETCH ABSOLUTE -11 c", []), ("FETCH c", [1]),
    ("FETCH RELATIVE 3 c", [4]), ("FETCH RELATIVE -2 c", [2]), ("FETCH RELATIVE 0 c", [2]), ("FETCH 0 c", [2]),
    ("FETCH 3 c", [3, 4, 5]), ("FETCH -2 c", [4, 3]), ("FETCH FORWARD c", [4]), ("FETCH FORWARD 2 c", [5, 6]),
    ("FETCH BACKWARD c", [5]), ("FETCH BACKWARD 2 c", [4, 3]), ("FETCH FORWARD -1 c", [2]),
    ("FETCH BACKWARD -2 c", [3, 4]), ("FETCH FORWARD ALL c", [5, 6, 7, 8, 9, 10]), ("FETCH 0 c", []),
    ("FETCH BACKWARD ALL c", [10, 9, 8, 7, 6, 5, 4, 3, 2, 1]), ("FETCH ALL c", list(range(1, 11))),
    ("FETCH ABSOLUTE 0 c", []), ("FETCH c", [1]), ("FETCH RELATIVE 20 c", []), ("FETCH RELATIVE -1 c", [10]),
    ("MOVE ABSOLUTE 3 c", "MOVE 1"), ("MOVE 0 c", "MOVE 1"), ("FETCH c", [4]), ("MOVE 2 IN c", "MOVE 2"),
    ("MOVE BACKWARD ALL c", "MOVE 5"), ("MOVE 0 c", "MOVE 0"), ("MOVE ALL FROM c", "MOVE 10"),
    ("MOVE FORWARD ALL c", "MOVE 0"), ("MOVE PRIOR c", "MOVE 1"), ("FETCH c", []), ("MOVE BACKWARD ALL c", "MOVE 10"),
    ("MOVE LAST c", "MOVE 1"), ("MOVE RELATIVE 5 c", "MOVE 0"), ("MOVE ABSOLUTE 100 c", "MOVE 0"),
]


def test_every_direction_moves_as_postgresql(db):
    db.execute("BEGIN")
    db.execute("DECLARE c SCROLL CURSOR FOR SELECT id FROM t ORDER BY id")
    for i, (sql, expected) in enumerate(DIRECTIONS):
        cursor = db.execute(sql)
        if isinstance(expected, str):
            assert (cursor.statusmessage, cursor.description) == (expected, None), (i, sql)
            assert cursor.rowcount == int(expected.split()[1])
        else:
            assert [r[0] for r in cursor.fetchall()] == expected, (i, sql)
            assert (cursor.statusmessage, cursor.rowcount) == (f"FETCH {len(expected)}", len(expected)), (i, sql)


def test_portals_out_hold_cursor_and_backward_steps(db):
    """portals.out's foo25 (FETCH, FETCH, COMMIT, FETCH, FETCH BACKWARD, FETCH ABSOLUTE -1) and
    foo1 (FETCH 1, then FETCH backward 23: none)."""
    db.execute("BEGIN")
    db.execute("DECLARE foo25 SCROLL CURSOR WITH HOLD FOR SELECT id FROM t ORDER BY id")
    assert ids(db, "FETCH FROM foo25") == [1]
    assert ids(db, "FETCH FROM foo25") == [2]
    db.execute("COMMIT")
    assert ids(db, "FETCH FROM foo25") == [3]
    assert ids(db, "FETCH BACKWARD FROM foo25") == [2]
    assert ids(db, "FETCH ABSOLUTE -1 FROM foo25") == [10]
    db.execute("CLOSE foo25")
    db.execute("BEGIN")
    db.execute("DECLARE foo1 SCROLL CURSOR FOR SELECT id FROM t ORDER BY id")
    assert ids(db, "FETCH 1 in foo1") == [1]
    assert ids(db, "FETCH backward 23 in foo1") == []


def test_fetch_gives_the_querys_columns_and_types(db):
    db.execute("BEGIN")
    db.execute("DECLARE c CURSOR FOR SELECT id, name, id * 1.5 AS x, gen_random_uuid() AS u FROM t ORDER BY id")
    cursor = db.execute("FETCH 2 FROM c")
    assert [d[0] for d in cursor.description] == ["id", "name", "x", "u"]
    rows = cursor.fetchall()
    assert [r[:3] for r in rows] == [(1, "n1", pytest.approx(1.5)), (2, "n2", pytest.approx(3.0))]
    assert type(rows[0][3]).__name__ == "UUID"
    assert db.execute("FETCH 0 FROM c").fetchall()[0][:2] == (2, "n2")
    assert db.execute("FETCH BACKWARD 5 FROM c").fetchall() == [(1, "n1", pytest.approx(1.5), rows[0][3])]
    empty = db.execute("FETCH BACKWARD 5 FROM c")  # (none left that way: the columns, no rows)
    assert (empty.fetchall(), [d[0] for d in empty.description]) == ([], ["id", "name", "x", "u"])


def test_no_scroll_refuses_backward_steps_with_55000_and_fails_the_block(db):
    db.execute("BEGIN")
    db.execute("DECLARE c NO SCROLL CURSOR FOR SELECT id FROM t ORDER BY id")
    assert ids(db, "FETCH ABSOLUTE 3 FROM c") == [3]  # (forward: allowed)
    assert ids(db, "FETCH ABSOLUTE 6 FROM c") == [6]  # (from here, not from a rewind: pquery.c)
    assert ids(db, "FETCH RELATIVE 2 FROM c") == [8]
    assert db.execute("MOVE 0 FROM c").statusmessage == "MOVE 1"
    message = fails(db, "FETCH BACKWARD 1 FROM c", "55000")
    assert message.splitlines() == ["cursor can only scan forward",
                                    "HINT:  Declare it with SCROLL option to enable backward scan."]
    fails(db, "FETCH c", "25P02")
    db.execute("ROLLBACK")
    for step in ("FETCH PRIOR FROM c", "FETCH 0 FROM c", "FETCH ABSOLUTE 1 FROM c", "FETCH FIRST FROM c",
                 "FETCH RELATIVE -1 FROM c", "MOVE BACKWARD ALL IN c", "FETCH LAST FROM c"):
        db.execute("BEGIN")
        db.execute("DECLARE c NO SCROLL CURSOR FOR SELECT id FROM t ORDER BY id")
        db.execute("FETCH 2 FROM c")
        fails(db, step, "55000")
        db.execute("ROLLBACK")
    db.execute("BEGIN")  # (before any move a rewind is no step back: PostgreSQL's DoPortalRewind)
    db.execute("DECLARE c NO SCROLL CURSOR FOR SELECT id FROM t ORDER BY id")
    assert ids(db, "FETCH FIRST FROM c") == [1]
    assert db.execute("SELECT is_scrollable FROM pg_cursors").fetchall() == [(False,)]


def test_a_cursor_sees_the_snapshot_of_its_declare(db, connect):
    other = connect(autocommit=True)
    for level in ("READ COMMITTED", "REPEATABLE READ"):
        db.execute(f"BEGIN ISOLATION LEVEL {level}")
        db.execute("DECLARE c CURSOR FOR SELECT id, name FROM t WHERE id <= 3 ORDER BY id")
        db.execute("INSERT INTO t VALUES (0, 'mine')")  # its own transaction's, after DECLARE
        db.execute("UPDATE t SET name = 'changed' WHERE id = 2")
        other.execute("INSERT INTO t VALUES (-1, 'other')")  # another's, committed after DECLARE
        assert db.execute("FETCH ALL FROM c").fetchall() == [(1, "n1"), (2, "n2"), (3, "n3")]
        assert db.execute("SELECT count(*) FROM t WHERE id <= 0").fetchone()[0] == (2 if level == "READ COMMITTED"
                                                                                    else 1)
        db.execute("ROLLBACK")
        other.execute("DELETE FROM t WHERE id = -1")


def test_hold_cursor_outlives_its_commit_and_keeps_its_rows(db):
    db.execute("BEGIN")
    db.execute("DECLARE h CURSOR WITH HOLD FOR SELECT id FROM t ORDER BY id")
    db.execute("DECLARE plain CURSOR FOR SELECT id FROM t")
    assert ids(db, "FETCH 2 FROM h") == [1, 2]
    db.execute("COMMIT")
    db.execute("DELETE FROM t")  # (the held rows stay as they were)
    assert ids(db, "FETCH 3 FROM h") == [3, 4, 5]
    fails(db, "FETCH plain", "34000")
    db.execute("BEGIN")
    assert ids(db, "FETCH FROM h") == [6]
    db.execute("ROLLBACK")  # (a later transaction's rollback leaves it, and where it is)
    assert ids(db, "FETCH FROM h") == [7]
    assert db.execute("SELECT name, is_holdable FROM pg_cursors").fetchall() == [("h", True)]


def test_hold_cursor_declared_outside_a_block(db):
    db.execute("DECLARE h CURSOR WITH HOLD FOR SELECT id FROM t WHERE id > ? ORDER BY id", (8,))
    assert ids(db, "FETCH ALL FROM h") == [9, 10]
    assert db.execute("CLOSE h").statusmessage == "CLOSE CURSOR"
    fails(db, "CLOSE h", "34000")


def test_rollback_closes_the_cursors_the_transaction_declared(db):
    db.execute("BEGIN")
    db.execute("DECLARE foo26 CURSOR WITH HOLD FOR SELECT id FROM t ORDER BY id")
    db.execute("DECLARE plain CURSOR FOR SELECT id FROM t ORDER BY id")
    db.execute("ROLLBACK")
    assert fails(db, "FETCH FROM foo26", "34000") == 'cursor "foo26" does not exist'
    fails(db, "FETCH FROM plain", "34000")
    db.execute("BEGIN")  # a failed COMMIT is a rollback too
    db.execute("DECLARE h CURSOR WITH HOLD FOR SELECT id FROM t")
    fails(db, "SELECT 1 / 0", "22012")
    assert db.execute("COMMIT").statusmessage == "ROLLBACK"
    fails(db, "FETCH FROM h", "34000")


def test_rollback_to_savepoint_closes_the_cursors_declared_after_it(db):
    db.execute("BEGIN")
    db.execute("DECLARE before CURSOR FOR SELECT id FROM t ORDER BY id")
    db.execute("SAVEPOINT s")
    db.execute("DECLARE after CURSOR FOR SELECT id FROM t ORDER BY id")
    db.execute("SAVEPOINT inner_one")
    db.execute("DECLARE released CURSOR FOR SELECT id FROM t")
    db.execute("RELEASE inner_one")
    assert ids(db, "FETCH 2 FROM before") == [1, 2]
    fails(db, "FETCH FROM nosuch", "34000")  # (the block fails: ROLLBACK TO mends it)
    db.execute("ROLLBACK TO s")
    assert ids(db, "FETCH FROM before") == [3]  # (its position is no part of the transaction)
    assert ids(db, "SELECT name FROM pg_cursors ORDER BY 1") == ["before"]
    db.execute("SAVEPOINT t2")
    db.execute("DECLARE kept CURSOR FOR SELECT id FROM t")
    db.execute("RELEASE t2")
    db.execute("SAVEPOINT t3")
    db.execute("ROLLBACK TO t3")
    assert ids(db, "SELECT name FROM pg_cursors ORDER BY 1") == ["before", "kept"]
    db.execute("COMMIT")
    assert db.execute("SELECT name FROM pg_cursors").fetchall() == []


def test_errors_carry_postgresqls_sqlstates_and_fail_the_block(db):
    assert fails(db, "DECLARE c CURSOR FOR SELECT 1", "25P01") == \
        "DECLARE CURSOR can only be used in transaction blocks"
    for sql, sqlstate in [("DECLARE c CURSOR FOR SELECT 2", "42P03"), ("FETCH nosuch", "34000"),
                          ("MOVE nosuch", "34000"), ("CLOSE nosuch", "34000"),
                          ("DECLARE d SCROLL NO SCROLL CURSOR FOR SELECT 1", "42P11"),
                          ("DECLARE d INSENSITIVE ASENSITIVE CURSOR FOR SELECT 1", "42P11"),
                          ("DECLARE d BINARY CURSOR FOR SELECT 1", "0A000"),
                          ("DECLARE d CURSOR FOR SELECT * FROM t FOR UPDATE", "0A000"),
                          ("DECLARE d CURSOR FOR INSERT INTO t VALUES (11, 'x')", "42601"),
                          ("DECLARE d CURSOR FOR WITH x AS (DELETE FROM t RETURNING id) SELECT * FROM x", "0A000"),
                          ("DECLARE d CURSOR FOR SELECT * FROM nosuch", "42P01"),
                          ("FETCH ABSOLUTE c", "42601"), ("DELETE FROM t WHERE CURRENT OF c", "0A000"),
                          ("UPDATE t SET name = 'x' WHERE CURRENT OF c", "0A000")]:
        db.execute("BEGIN")
        db.execute("DECLARE c CURSOR FOR SELECT 1")
        fails(db, sql, sqlstate)
        fails(db, "FETCH c", "25P02")
        db.execute("ROLLBACK")
    assert db.execute("SELECT count(*) FROM t").fetchone() == (10,)  # (nothing was deleted)


def test_an_unknown_relation_is_positioned_in_the_declare(db):
    db.execute("BEGIN")
    with pytest.raises(txlake.Error) as e:
        db.execute("DECLARE d CURSOR FOR SELECT * FROM nosuch")
    assert e.value.position == len("DECLARE d CURSOR FOR SELECT * FROM ") + 1


def test_prepare_transaction_refuses_a_hold_cursor_and_closes_the_others(db):
    db.execute("BEGIN")
    db.execute("DECLARE h CURSOR WITH HOLD FOR SELECT 1")
    assert fails(db, "PREPARE TRANSACTION 'g1'", "0A000") == \
        "cannot PREPARE a transaction that has created a cursor WITH HOLD"
    assert db.execute("SELECT name FROM pg_cursors").fetchall() == []
    db.execute("BEGIN")
    db.execute("DECLARE c CURSOR FOR SELECT 1")
    db.execute("PREPARE TRANSACTION 'g2'")
    db.execute("ROLLBACK PREPARED 'g2'")
    assert db.execute("SELECT name FROM pg_cursors").fetchall() == []


def test_close_all_and_discard_all_close_every_cursor(db):
    db.execute("BEGIN")
    db.execute("DECLARE foo1 CURSOR WITH HOLD FOR SELECT 1")
    db.execute("DECLARE foo2 CURSOR WITHOUT HOLD FOR SELECT 1")
    assert ids(db, "SELECT name FROM pg_cursors ORDER BY 1") == ["foo1", "foo2"]
    assert db.execute("CLOSE ALL").statusmessage == "CLOSE CURSOR ALL"
    assert ids(db, "SELECT name FROM pg_cursors ORDER BY 1") == []
    db.execute("DECLARE h CURSOR WITH HOLD FOR SELECT 1")
    db.execute("COMMIT")
    db.execute("DISCARD ALL")
    fails(db, "FETCH h", "34000")


def test_pg_cursors_lists_the_sessions_cursors(db, connect):
    db.execute("BEGIN")
    db.execute("DECLARE foo25 SCROLL CURSOR WITH HOLD FOR SELECT id FROM t")
    db.execute("DECLARE b NO SCROLL CURSOR FOR SELECT 1")
    cursor = db.execute("SELECT name, statement, is_holdable, is_binary, is_scrollable, creation_time >= now() "
                        "FROM pg_catalog.pg_cursors ORDER BY name")
    assert [d[0] for d in cursor.description][:5] == ["name", "statement", "is_holdable", "is_binary", "is_scrollable"]
    assert cursor.fetchall() == [("b", "DECLARE b NO SCROLL CURSOR FOR SELECT 1", False, False, False, True),
                                 ("foo25", "DECLARE foo25 SCROLL CURSOR WITH HOLD FOR SELECT id FROM t",
                                  True, False, True, True)]
    assert connect().execute("SELECT count(*) FROM pg_cursors").fetchone() == (0,)  # (another session's: none)


def test_two_sessions_cursors_of_one_name_do_not_clash(db, connect):
    other = connect(autocommit=True)
    db.execute("BEGIN")
    other.execute("BEGIN")
    db.execute("DECLARE c CURSOR FOR SELECT id FROM t WHERE id <= 2 ORDER BY id")
    other.execute("DECLARE c CURSOR FOR SELECT id FROM t WHERE id > 8 ORDER BY id DESC")
    assert ids(db, "FETCH c") == [1]
    assert ids(other, "FETCH c") == [10]
    other.execute("CLOSE c")
    assert ids(db, "FETCH c") == [2]


def test_declare_and_fetch_in_one_string_share_a_block(db):
    cursor = db.execute("DECLARE c CURSOR FOR SELECT id FROM t ORDER BY id; FETCH 2 FROM c")
    assert (cursor.fetchall(), cursor.statusmessage) == ([(1,), (2,)], "FETCH 2")
    fails(db, "FETCH c", "34000")  # (its block committed: the cursor closed)


def test_named_dbapi_cursor_declares_and_fetches_in_pieces(connect):
    conn = connect()  # (autocommit off: a block opens at the first statement, as psycopg's)
    conn.execute("CREATE TABLE t (id int PRIMARY KEY, u uuid)")
    conn.execute("INSERT INTO t SELECT i, gen_random_uuid() FROM generate_series(1, 250) g(i)")
    conn.commit()
    named = conn.cursor(name="Big")
    named.itersize = 100
    named.execute("SELECT id, u FROM t WHERE id > ? ORDER BY id", (5,))
    assert [d[:2] for d in named.description] == [("id", "INTEGER"), ("u", "UUID")]
    assert conn.execute("SELECT statement FROM pg_cursors").fetchall() == [
        ('DECLARE "Big" CURSOR WITHOUT HOLD FOR SELECT id, u FROM t WHERE id > ? ORDER BY id',)]
    first = named.fetchone()
    assert first[0] == 6 and type(first[1]).__name__ == "UUID"
    assert [r[0] for r in named.fetchmany(2)] == [7, 8]
    assert named.rowcount == 3
    assert [r[0] for r in named] == list(range(9, 251))
    named.scroll(0, mode="absolute")
    assert named.fetchone()[0] == 6
    named.scroll(2)
    assert named.fetchone()[0] == 9
    before = named.rowcount
    assert named.fetch_arrow_table().num_rows == 241
    assert named.rowcount == before + 241  # (fetch_arrow_table counted none)
    named.close()
    assert conn.execute("SELECT count(*) FROM pg_cursors").fetchone() == (0,)
    plain = conn.cursor()  # (the unnamed cursor as before)
    assert plain.execute("SELECT count(*) FROM t").fetchone() == (250,)
    conn.commit()
    conn.autocommit = True
    with pytest.raises(txlake.Error) as e:
        conn.cursor(name="c").execute("SELECT 1")
    assert e.value.sqlstate == "25P01"
    with conn.cursor(name="held", withhold=True) as held:
        held.execute("SELECT id FROM t ORDER BY id LIMIT 3")
        assert held.fetchall() == [(1,), (2,), (3,)]
    assert conn.execute("SELECT count(*) FROM pg_cursors").fetchone() == (0,)


def test_the_shell_shows_fetchs_rows_and_moves_tag(connect):
    from txlake.repl.runner import Runner
    out = io.StringIO()
    runner = Runner(connect(autocommit=True), out, io.StringIO())
    for sql in ("BEGIN", "DECLARE c CURSOR FOR SELECT * FROM generate_series(1, 3) g(x)", "FETCH 2 FROM c",
                "MOVE 1 IN c"):
        runner.run_statement(sql)
    shown = out.getvalue()
    assert "(2 rows)" in shown and "FETCH 2" not in shown and "MOVE 1" in shown
    assert runner.variables["ROW_COUNT"] == "1"
