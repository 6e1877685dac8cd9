"""Foreign keys under concurrency: no committed child row ever references a parent row that is
gone, whatever the interleaving - a child inserted while another transaction deletes its
parent row (both commit orders, each isolation level, threads and processes) - and child
inserts of one parent row do not wait for one another (no lock on the parent row)."""

import threading

import pytest

import txlake
from tests.conftest import commit_each, run_python, waiting

LEVELS = ["READ COMMITTED", "REPEATABLE READ", "SERIALIZABLE"]
# a violation found only at COMMIT: a concurrent transaction won (at READ COMMITTED PostgreSQL
# would have waited for it and then found the key gone: 23503)
LOSER = {"READ COMMITTED": "23503", "REPEATABLE READ": "40001", "SERIALIZABLE": "40001"}


@pytest.fixture
def setup(connect):
    admin = connect(autocommit=True)
    admin.execute("CREATE TABLE p (id INT PRIMARY KEY)")
    admin.execute("CREATE TABLE c (k INT PRIMARY KEY, a INT REFERENCES p)")
    admin.execute("INSERT INTO p VALUES (1), (2)")
    return admin


def in_thread(work) -> str:
    """``work()`` run in a thread of its own: "ok" or the SQLSTATE it failed with."""
    outcome = []

    def run():
        try:
            work()
            outcome.append("ok")
        except txlake.Error as e:
            outcome.append(e.sqlstate)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(60)
    return outcome[0] if outcome else "still running"


def commit_in_turn(*conns) -> list[str]:
    """Commit each connection in turn, each in a thread: "ok" or the SQLSTATE; all rolled back
    after (whatever is still open)."""
    try:
        return [in_thread(conn.commit) for conn in conns]
    finally:
        for conn in conns:
            conn.rollback()


def orphans(conn) -> int:
    return conn.execute("SELECT count(*) FROM c WHERE a IS NOT NULL AND a NOT IN (SELECT id FROM p)").fetchone()[0]


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("first", ["child", "parent"])
def test_child_insert_races_parent_delete(setup, connect, level, first):
    child, parent = connect(isolation_level=level), connect(isolation_level=level)
    try:
        assert in_thread(lambda: child.execute("INSERT INTO c VALUES (10, 1)")) == "ok"
        assert in_thread(lambda: parent.execute("DELETE FROM p WHERE id = 1")) == "ok"  # (no wait: not seen)
        order = [child, parent] if first == "child" else [parent, child]
        assert in_thread(order[0].commit) == "ok"
        assert in_thread(order[1].commit) == LOSER[level]
    finally:
        child.rollback()
        parent.rollback()
    assert orphans(setup) == 0
    expected = [(1,), (2,)] if first == "child" else [(2,)]
    assert setup.execute("SELECT id FROM p ORDER BY id").fetchall() == expected


@pytest.mark.parametrize("level", LEVELS)
def test_parent_key_update_races_child_insert(setup, connect, level):
    child, parent = connect(isolation_level=level), connect(isolation_level=level)
    try:
        assert in_thread(lambda: parent.execute("UPDATE p SET id = 5 WHERE id = 2")) == "ok"
        assert in_thread(lambda: child.execute("INSERT INTO c VALUES (11, 2)")) == "ok"
        assert in_thread(parent.commit) == "ok"
        assert in_thread(child.commit) == LOSER[level]
    finally:
        child.rollback()
        parent.rollback()
    assert orphans(setup) == 0


def test_cascade_races_a_child_insert(setup, connect):
    setup.execute("CREATE TABLE d (a INT REFERENCES p ON DELETE CASCADE)")
    setup.execute("INSERT INTO d VALUES (1)")
    deleter, inserter = connect(), connect()
    try:
        deleter.execute("DELETE FROM p WHERE id = 1")
        assert deleter.execute("SELECT count(*) FROM d").fetchone()[0] == 0
        inserter.execute("INSERT INTO d VALUES (1)")
        assert in_thread(inserter.commit) == "ok"
        assert in_thread(deleter.commit) == "40001"  # (its cascade did not see the new row)
    finally:
        deleter.rollback()
        inserter.rollback()
    assert setup.execute("SELECT count(*) FROM d WHERE a NOT IN (SELECT id FROM p)").fetchone()[0] == 0


def test_child_inserts_of_one_parent_do_not_block_one_another(setup, connect):
    sessions = [connect() for _ in range(4)]
    try:
        for s in sessions:  # (a wait for another's lock would end in 55P03)
            s.execute("SET lock_timeout = '3s'")
        for i, s in enumerate(sessions):  # each holds its insert open while the next one runs
            assert in_thread(lambda s=s, i=i: s.execute("INSERT INTO c VALUES (?, 1)", [100 + i])) == "ok"
        for s in sessions:
            assert in_thread(s.commit) == "ok"
    finally:
        for s in sessions:
            s.rollback()
    assert setup.execute("SELECT count(*) FROM c WHERE a = 1").fetchone()[0] == 4


def another_process_wins(connect, warehouse, races) -> None:
    """For each (mine, theirs) of ``races``: ``mine`` run here, uncommitted; ``theirs`` run and
    committed by another process; then this COMMIT fails with 40001."""
    code = ("import sys, txlake\n"
            "c = txlake.connect(sys.argv[1], autocommit=True, publish='off')\n"
            "try:\n"
            "    c.execute(sys.argv[2])\n"
            "    print('ok')\n"
            "except txlake.Error as e:\n"
            "    print(e.sqlstate)\n")
    for mine, theirs in races:
        conn = connect()
        conn.execute(mine)
        assert run_python(code, warehouse, theirs).stdout.strip() == "ok"
        assert commit_each(conn) == ["40001"]


def test_another_process_deletes_the_parent(setup, connect, warehouse):
    # the parent row deleted by another process, then the child committed; and the other way round
    another_process_wins(connect, warehouse, (("INSERT INTO c VALUES (10, 1)", "DELETE FROM p WHERE id = 1"),
                                              ("DELETE FROM p WHERE id = 2", "INSERT INTO c VALUES (20, 2)")))
    assert orphans(setup) == 0
    assert setup.execute("SELECT k FROM c").fetchall() == [(20,)]


def test_adding_a_foreign_key_races_a_parent_delete(setup, connect):
    """ADD FOREIGN KEY holds the referenced table in SHARE ROW EXCLUSIVE mode: a DELETE there
    waits for it (it was a 40001 at the ALTER's COMMIT), then finds the key referenced: 23503."""
    setup.execute("CREATE TABLE d (a INT)")
    setup.execute("INSERT INTO d VALUES (1)")
    alter, deleter = connect(), connect()
    try:
        alter.execute("ALTER TABLE d ADD FOREIGN KEY (a) REFERENCES p")  # (its view has p's row 1)
        thread, outcome = waiting(deleter, "DELETE FROM p WHERE id = 1")
        assert in_thread(alter.commit) == "ok"
        thread.join(30)
        assert outcome == ["23503"]
    finally:
        alter.rollback()
        deleter.rollback()
    assert orphans(setup) == 0
    with pytest.raises(txlake.Error) as info:
        setup.execute("INSERT INTO d VALUES (42)")  # (the constraint was added)
    assert info.value.sqlstate == "23503"


# ALTER TABLE rewrites the table in the transaction (every file new): the key its DELETE
# removed, or its INSERT needs, is still re-checked at COMMIT
INSERT, DELETE = "INSERT INTO c VALUES (10, 1)", "DELETE FROM p WHERE id = 1"
ALTERED = {  # (the child's statements, the parent's)
    "parent ADD COLUMN": ([INSERT], [DELETE, "ALTER TABLE p ADD COLUMN z INT"]),
    "parent ADD CHECK": ([INSERT], [DELETE, "ALTER TABLE p ADD CHECK (id > 0)"]),
    "child ADD COLUMN": ([INSERT, "ALTER TABLE c ADD COLUMN z INT"], [DELETE]),
}


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("first", ["child", "parent"])
@pytest.mark.parametrize("case", list(ALTERED))
def test_a_table_altered_after_its_write_races_the_other_side(setup, connect, level, first, case):
    child, parent = connect(isolation_level=level), connect(isolation_level=level)
    child_sql, parent_sql = ALTERED[case]
    try:
        for conn, sql in [(child, s) for s in child_sql] + [(parent, s) for s in parent_sql]:
            assert in_thread(lambda: conn.execute(sql)) == "ok"
        order = [child, parent] if first == "child" else [parent, child]
        assert in_thread(order[0].commit) == "ok"
        assert in_thread(order[1].commit) == LOSER[level]
    finally:
        child.rollback()
        parent.rollback()
    assert orphans(setup) == 0


def test_altered_tables_do_not_fail_over_keys_they_did_not_touch(setup, connect):
    setup.execute("INSERT INTO c VALUES (1, 2)")
    child, parent = connect(), connect()
    try:  # (a committed child of 2 kept through c's rewrite; the row of p deleted is unreferenced)
        child.execute("INSERT INTO c VALUES (10, 2)")
        child.execute("ALTER TABLE c ADD COLUMN z INT")
        parent.execute("DELETE FROM p WHERE id = 1")
        parent.execute("ALTER TABLE p ADD COLUMN z INT")
        assert in_thread(parent.commit) == "ok"
        assert in_thread(child.commit) == "ok"
    finally:
        child.rollback()
        parent.rollback()
    assert orphans(setup) == 0


# --- a foreign key referencing a UNIQUE column, not the primary key: the same guarantees ---------

@pytest.fixture(params=["UNIQUE", "unique index"])
def unique_setup(connect, request):
    admin = connect(autocommit=True)
    if request.param == "UNIQUE":
        admin.execute("CREATE TABLE p (id INT PRIMARY KEY, u INT UNIQUE)")
    else:
        admin.execute("CREATE TABLE p (id INT PRIMARY KEY, u INT)")
        admin.execute("CREATE UNIQUE INDEX p_u ON p (u)")
    admin.execute("CREATE TABLE c (k INT PRIMARY KEY, a INT REFERENCES p (u))")
    admin.execute("INSERT INTO p VALUES (1, 10), (2, 20), (3, NULL)")
    return admin


def unique_orphans(conn) -> int:
    return conn.execute("SELECT count(*) FROM c WHERE a IS NOT NULL AND a NOT IN "
                        "(SELECT u FROM p WHERE u IS NOT NULL)").fetchone()[0]


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("first", ["child", "parent"])
@pytest.mark.parametrize("removal", ["DELETE FROM p WHERE id = 1", "UPDATE p SET u = 11 WHERE id = 1",
                                     "UPDATE p SET u = NULL WHERE id = 1"])
def test_child_insert_races_removal_of_a_unique_key(unique_setup, connect, level, first, removal):
    child, parent = connect(isolation_level=level), connect(isolation_level=level)
    assert in_thread(lambda: child.execute("INSERT INTO c VALUES (10, 10)")) == "ok"
    assert in_thread(lambda: parent.execute(removal)) == "ok"  # (no wait: not seen)
    order = [child, parent] if first == "child" else [parent, child]
    assert commit_in_turn(*order) == ["ok", LOSER[level]]
    assert unique_orphans(unique_setup) == 0
    held = unique_setup.execute("SELECT count(*) FROM p WHERE u = 10").fetchone()[0]
    assert held == (1 if first == "child" else 0)


def test_a_unique_key_freed_and_taken_again_keeps_its_children(unique_setup, connect):
    unique_setup.execute("INSERT INTO c VALUES (1, 10)")
    mover, inserter = connect(), connect()
    # (the key moves to another row in one statement - NO ACTION: still there at its end)
    mover.execute("UPDATE p SET u = CASE id WHEN 1 THEN NULL ELSE 10 END WHERE id IN (1, 3)")
    inserter.execute("INSERT INTO c VALUES (2, 10)")
    assert commit_in_turn(mover, inserter) == ["ok", "ok"]
    assert unique_orphans(unique_setup) == 0


def test_another_process_removes_the_unique_key(unique_setup, connect, warehouse):
    another_process_wins(connect, warehouse, (("INSERT INTO c VALUES (10, 10)", "UPDATE p SET u = 12 WHERE id = 1"),
                                              ("DELETE FROM p WHERE id = 2", "INSERT INTO c VALUES (20, 20)")))
    assert unique_orphans(unique_setup) == 0
    assert unique_setup.execute("SELECT k FROM c").fetchall() == [(20,)]


@pytest.mark.parametrize("first", ["add", "drop"])
def test_adding_a_foreign_key_races_dropping_its_unique_key(connect, first):
    """The second waits for the first (ADD FOREIGN KEY holds the referenced table, DROP
    CONSTRAINT too), then sees its change: a foreign key then has its key (the drop is 2BP01),
    or none to reference (42830) - no longer a 40001 at the second COMMIT."""
    admin = connect(autocommit=True)
    admin.execute("CREATE TABLE p (id INT PRIMARY KEY, u INT CONSTRAINT p_u_key UNIQUE)")
    admin.execute("CREATE TABLE c (a INT)")
    admin.execute("INSERT INTO p VALUES (1, 10)")
    admin.execute("INSERT INTO c VALUES (10)")
    adder, dropper = connect(), connect()
    add, drop = "ALTER TABLE c ADD FOREIGN KEY (a) REFERENCES p (u)", "ALTER TABLE p DROP CONSTRAINT p_u_key"
    (one, one_sql), (two, two_sql) = ((adder, add), (dropper, drop)) if first == "add" else ((dropper, drop),
                                                                                         (adder, add))
    try:
        one.execute(one_sql)
        thread, outcome = waiting(two, two_sql)
        assert in_thread(one.commit) == "ok"
        thread.join(30)
        assert outcome == (["2BP01"] if first == "add" else ["42830"])
    finally:
        adder.rollback()
        dropper.rollback()
    fks = admin.execute("SELECT count(*) FROM information_schema.referential_constraints").fetchone()[0]
    keys = admin.execute("SELECT count(*) FROM information_schema.table_constraints "
                         "WHERE constraint_name = 'p_u_key'").fetchone()[0]
    assert (fks, keys) == ((1, 1) if first == "add" else (0, 0))
