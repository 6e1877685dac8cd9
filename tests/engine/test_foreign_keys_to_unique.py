"""FOREIGN KEYs referencing a UNIQUE constraint or a unique index instead of the primary key
(PostgreSQL 16: any non-partial unique key over exactly the referenced columns): the child-side
check, the parent-side actions, NULLs (MATCH SIMPLE; a parent row with a NULL key is referenced
by none), DROP of the referenced key, the catalogs. (Races: tests/scenarios/
test_foreign_key_races.py.)"""

import pytest

from tests.conftest import fails
from tests.conftest import rows as q

MISSING = 'insert or update on table "c" violates foreign key constraint "c_a_fkey"\n' \
          'DETAIL:  Key (a)=({}) is not present in table "p".'
REFERENCED = 'update or delete on table "p" violates foreign key constraint "c_a_fkey" on table "c"\n' \
             'DETAIL:  Key (code)=({}) is still referenced from table "c".'


@pytest.fixture(params=["constraint", "index"])
def kind(request):
    return request.param


@pytest.fixture
def c(connect, kind):
    conn = connect(autocommit=True)
    if kind == "constraint":
        conn.execute("CREATE TABLE p (id INT PRIMARY KEY, code INT CONSTRAINT p_code_key UNIQUE, v TEXT)")
    else:
        conn.execute("CREATE TABLE p (id INT PRIMARY KEY, code INT, v TEXT)")
        conn.execute("CREATE UNIQUE INDEX p_code_key ON p (code)")
    conn.execute("INSERT INTO p VALUES (1, 10, 'x'), (2, 20, 'y'), (3, NULL, 'z'), (4, 40, 'w')")
    return conn


def test_child_rows_checked_against_the_unique_column(c):
    c.execute("CREATE TABLE c (k INT PRIMARY KEY, a INT REFERENCES p (code))")
    c.execute("INSERT INTO c VALUES (1, 10), (2, NULL)")  # (a NULL key: not checked)
    assert fails(c, "INSERT INTO c VALUES (3, 1)", "23503") == MISSING.format(1)  # (a primary key value, no code)
    fails(c, "UPDATE c SET a = 30 WHERE k = 1", "23503")
    fails(c, "INSERT INTO c SELECT 5, 99", "23503")
    c.execute("UPDATE c SET a = 20 WHERE k = 1")
    c.execute("ALTER TABLE c ADD CONSTRAINT c2 FOREIGN KEY (k) REFERENCES p (code) NOT VALID")
    assert fails(c, "ALTER TABLE c VALIDATE CONSTRAINT c2", "23503").endswith(
        'DETAIL:  Key (k)=(1) is not present in table "p".')
    assert fails(c, "CREATE TABLE d (a TEXT REFERENCES p (v))", "42830") == \
        'there is no unique constraint matching given keys for referenced table "p"'


def test_no_action_and_the_parent_rows_with_a_null_key(c):
    c.execute("CREATE TABLE c (k INT PRIMARY KEY, a INT REFERENCES p (code))")
    c.execute("INSERT INTO c VALUES (1, 10), (2, NULL)")
    assert fails(c, "DELETE FROM p WHERE id = 1", "23503") == REFERENCED.format(10)
    assert fails(c, "UPDATE p SET code = 11 WHERE id = 1", "23503") == REFERENCED.format(10)
    assert fails(c, "UPDATE p SET code = NULL WHERE id = 1", "23503") == REFERENCED.format(10)
    c.execute("UPDATE p SET code = CASE id WHEN 1 THEN 12 ELSE 10 END WHERE id IN (1, 2)")  # (10 moves to row 2)
    c.execute("UPDATE p SET code = code, v = 'kept' WHERE id = 1")
    c.execute("DELETE FROM p WHERE id = 3")  # (code NULL: referenced by none - not by c's NULL either)
    c.execute("UPDATE p SET code = 41 WHERE id = 4")
    assert q(c, "SELECT id, code FROM p ORDER BY id") == [(1, 12), (2, 10), (4, 41)]


def test_cascade_set_null_and_set_default(c):
    c.execute("CREATE TABLE c (k INT PRIMARY KEY, a INT REFERENCES p (code) ON DELETE CASCADE ON UPDATE CASCADE)")
    c.execute("CREATE TABLE n (a INT DEFAULT 40 REFERENCES p (code) ON DELETE SET DEFAULT ON UPDATE SET NULL)")
    c.execute("INSERT INTO c VALUES (1, 10), (2, 20)")
    c.execute("INSERT INTO n VALUES (10), (20)")
    c.execute("UPDATE p SET code = 21 WHERE id = 2")
    assert q(c, "SELECT k, a FROM c ORDER BY k") == [(1, 10), (2, 21)]
    assert q(c, "SELECT a FROM n ORDER BY a") == [(10,), (None,)]
    c.execute("DELETE FROM p WHERE code = 10")
    assert q(c, "SELECT k, a FROM c ORDER BY k") == [(2, 21)]
    assert q(c, "SELECT a FROM n ORDER BY a") == [(40,), (None,)]
    c.execute("UPDATE p SET code = NULL WHERE id = 2")  # (ON UPDATE CASCADE to a NULL key)
    assert q(c, "SELECT k, a FROM c ORDER BY k") == [(2, None)]


def test_multi_column_unique_key_nulls_not_distinct_and_self_reference(connect):
    c = connect(autocommit=True)
    c.execute("CREATE TABLE p (id INT PRIMARY KEY, x INT, y TEXT, UNIQUE NULLS NOT DISTINCT (x, y))")
    c.execute("INSERT INTO p VALUES (1, 1, 'a'), (2, 1, NULL)")
    c.execute("CREATE TABLE c (b TEXT, a INT, FOREIGN KEY (b, a) REFERENCES p (y, x))")
    c.execute("INSERT INTO c VALUES ('a', 1), (NULL, 1), (NULL, 7)")  # (a NULL part: MATCH SIMPLE, no check)
    assert fails(c, "INSERT INTO c VALUES ('b', 1)", "23503").endswith(
        'DETAIL:  Key (b, a)=(b, 1) is not present in table "p".')
    fails(c, "DELETE FROM p WHERE id = 1", "23503")
    c.execute("DELETE FROM p WHERE id = 2")  # (a key with a NULL: referenced by none)
    c.execute("CREATE TABLE t (id INT PRIMARY KEY, code TEXT UNIQUE, parent TEXT REFERENCES t (code))")
    c.execute("INSERT INTO t VALUES (1, 'root', NULL), (2, 'leaf', 'root')")
    fails(c, "INSERT INTO t VALUES (3, 'x', 'nowhere')", "23503")
    fails(c, "DELETE FROM t WHERE id = 1", "23503")
    c.execute("DELETE FROM t")


def test_dropping_the_referenced_key(c, kind):
    c.execute("CREATE TABLE c (k INT PRIMARY KEY, a INT REFERENCES p (code))")
    drop = "DROP INDEX p_code_key" if kind == "index" else "ALTER TABLE p DROP CONSTRAINT p_code_key"
    what = "index p_code_key" if kind == "index" else "constraint p_code_key on table p"
    assert fails(c, drop, "2BP01") == (
        f"cannot drop {what} because other objects depend on it\n"
        "DETAIL:  constraint c_a_fkey on table c depends on index p_code_key\n"
        "HINT:  Use DROP ... CASCADE to drop the dependent objects too.")
    fails(c, "INSERT INTO p VALUES (5, 10, 'dup')", "23505")  # (the key is still there)
    c.execute(drop + " CASCADE")
    assert c.notices[-1] == "NOTICE:  drop cascades to constraint c_a_fkey on table c"
    c.execute("INSERT INTO c VALUES (9, 999)")  # (the foreign key went with it)
    c.execute("INSERT INTO p VALUES (5, 10, 'dup')")


def test_catalogs_and_describe(c):
    c.execute("CREATE TABLE c (k INT PRIMARY KEY, a INT REFERENCES p (code), b INT REFERENCES p)")
    assert q(c, "SELECT constraint_name, unique_constraint_name FROM information_schema.referential_constraints "
                "ORDER BY 1") == [("c_a_fkey", "p_code_key"), ("c_b_fkey", "p_pkey")]
    own, _ = c.session.foreign_key_lines("c")
    assert own == ['"c_a_fkey" FOREIGN KEY (a) REFERENCES p(code)', '"c_b_fkey" FOREIGN KEY (b) REFERENCES p(id)']
    _, referenced = c.session.foreign_key_lines("p")
    assert referenced == ['TABLE "c" CONSTRAINT "c_a_fkey" FOREIGN KEY (a) REFERENCES p(code)',
                          'TABLE "c" CONSTRAINT "c_b_fkey" FOREIGN KEY (b) REFERENCES p(id)']
