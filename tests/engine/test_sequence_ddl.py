"""CREATE / ALTER / DROP SEQUENCE, nextval / currval / setval / lastval, as PostgreSQL 16's:
they were refused (0A000). A sequence is a catalog entry (transactional DDL, seen by other
processes once committed); its numbers are not transactional."""

import os
import signal
import subprocess
import sys
import threading
import time

import pytest

from tests.conftest import child_env, fails, one, run_python


@pytest.fixture
def conn(connect):
    return connect(autocommit=True)


def test_nextval_currval_lastval_setval(conn):
    conn.execute("CREATE SEQUENCE s")
    fails(conn, "SELECT currval('s')", "55000", 'currval of sequence "s" is not yet defined in this session')
    fails(conn, "SELECT lastval()", "55000", "lastval is not yet defined in this session")
    assert one(conn, "SELECT nextval('s'), nextval('s')") == (1, 2)
    assert one(conn, "SELECT currval('s'), lastval()") == (2, 2)
    assert one(conn, "SELECT setval('s', 10), nextval('s')") == (10, 11)
    assert one(conn, "SELECT setval('s', 20, false)") == (20,)
    assert one(conn, "SELECT currval('s'), nextval('s'), nextval('s')") == (11, 20, 21)
    fails(conn, "SELECT nextval('nope')", "42P01", 'relation "nope" does not exist')
    fails(conn, "SELECT currval('nope')", "42P01")
    conn.execute("CREATE TABLE t (a INT)")
    fails(conn, "SELECT nextval('t')", "42809", '"t" is not a sequence')


def test_options_bounds_and_cycle(conn):
    conn.execute("CREATE SEQUENCE IF NOT EXISTS s AS integer INCREMENT BY 5 MINVALUE 10 MAXVALUE 22 START WITH 12")
    assert [r[0] for r in conn.execute("SELECT nextval('s') FROM range(3)").fetchall()] == [12, 17, 22]
    fails(conn, "SELECT nextval('s')", "2200H", 'nextval: reached maximum value of sequence "s" (22)')
    conn.execute("CREATE SEQUENCE down INCREMENT -1 MINVALUE -2 MAXVALUE -1")  # (starts at its maximum)
    assert one(conn, "SELECT nextval('down'), nextval('down')") == (-1, -2)
    fails(conn, "SELECT nextval('down')", "2200H", 'nextval: reached minimum value of sequence "down" (-2)')
    conn.execute("CREATE SEQUENCE c MAXVALUE 3 CYCLE")
    assert [r[0] for r in conn.execute("SELECT nextval('c') FROM range(7)").fetchall()] == [1, 2, 3, 1, 2, 3, 1]
    conn.execute("CREATE SEQUENCE small AS smallint")
    fails(conn, "SELECT setval('small', 40000)", "22003",
          'setval: value 40000 is out of bounds for sequence "small" (1..32767)')
    assert one(conn, "SELECT setval('small', 32767), nextval('c')") == (32767, 2)
    fails(conn, "SELECT nextval('small')", "2200H", "(32767)")


@pytest.mark.parametrize("sql, sqlstate, words", [
    ("CREATE SEQUENCE x INCREMENT 0", "22023", "INCREMENT must not be zero"),
    ("CREATE SEQUENCE x MINVALUE 5 MAXVALUE 5", "22023", "MINVALUE (5) must be less than MAXVALUE (5)"),
    ("CREATE SEQUENCE x START 0", "22023", "START value (0) cannot be less than MINVALUE (1)"),
    ("CREATE SEQUENCE x AS smallint MAXVALUE 100000", "22023",
     "MAXVALUE (100000) is out of range for sequence data type smallint"),
    ("CREATE SEQUENCE x AS text", "22023", "sequence type must be smallint, integer, or bigint"),
    ("CREATE SEQUENCE x START 1 START 2", "42601", "conflicting or redundant options"),
    ("CREATE SEQUENCE x CACHE 0", "22023", "CACHE (0) must be greater than zero"),
    ("CREATE SEQUENCE x BANANA", "42601", ""),
])
def test_bad_options(conn, sql, sqlstate, words):
    fails(conn, sql, sqlstate, words)
    fails(conn, "SELECT nextval('x')", "42P01")  # (nothing made)


def test_names_are_shared_with_tables_and_views_and_kinds_are_checked(conn):
    conn.execute("CREATE TABLE t (a INT)")
    conn.execute("CREATE SEQUENCE s")
    fails(conn, "CREATE SEQUENCE t", "42P07", 'relation "t" already exists')
    fails(conn, "CREATE TABLE s (a INT)", "42P07")
    fails(conn, "CREATE SEQUENCE s", "42P07")
    assert conn.execute("CREATE SEQUENCE IF NOT EXISTS s").rowcount == -1
    fails(conn, "DROP TABLE s", "42809", "Use DROP SEQUENCE to remove a sequence")
    fails(conn, "DROP SEQUENCE t", "42809", '"t" is not a sequence')
    fails(conn, "ALTER SEQUENCE t RESTART", "42809")
    fails(conn, "ALTER TABLE s ADD COLUMN b INT", "42809")
    for sql in ("INSERT INTO s VALUES (1)", "UPDATE s SET last_value = 1", "DELETE FROM s", "TRUNCATE s"):
        fails(conn, sql, "42809")
    assert one(conn, "SELECT nextval('s')") == (1,)
    assert one(conn, "SELECT last_value, is_called FROM s") == (1, True)
    fails(conn, "DROP SEQUENCE nope", "42P01", 'sequence "nope" does not exist')
    conn.execute("DROP SEQUENCE IF EXISTS nope, s")
    fails(conn, "SELECT nextval('s')", "42P01")


def test_alter_sequence(conn):
    conn.execute("CREATE SEQUENCE s")
    assert one(conn, "SELECT nextval('s'), nextval('s')") == (1, 2)
    conn.execute("ALTER SEQUENCE s RESTART WITH 100")
    assert one(conn, "SELECT nextval('s')") == (100,)
    conn.execute("ALTER SEQUENCE s RESTART")
    assert one(conn, "SELECT nextval('s')") == (1,)
    conn.execute("ALTER SEQUENCE s MAXVALUE 2")
    assert one(conn, "SELECT nextval('s')") == (2,)
    fails(conn, "SELECT nextval('s')", "2200H")
    conn.execute("ALTER SEQUENCE s NO MAXVALUE CYCLE")
    assert one(conn, "SELECT nextval('s')") == (3,)
    fails(conn, "ALTER SEQUENCE s RESTART WITH 0", "22023", "RESTART value (0) cannot be less than MINVALUE (1)")
    fails(conn, "ALTER SEQUENCE nope RESTART", "42P01")
    conn.execute("ALTER SEQUENCE IF EXISTS nope RESTART")
    assert one(conn, "SELECT maximum_value, cycle_option FROM information_schema.sequences "
                     "WHERE sequence_name = 's'") == ("9223372036854775807", "YES")


def test_create_and_drop_are_transactional_and_numbers_are_not(connect):
    a, b = connect(), connect(autocommit=True)
    a.execute("CREATE SEQUENCE s")
    assert one(a, "SELECT nextval('s')") == (1,)
    fails(b, "SELECT nextval('s')", "42P01")  # (not committed yet)
    a.rollback()
    fails(a, "SELECT nextval('s')", "42P01")
    a.rollback()
    a.execute("CREATE SEQUENCE s")
    a.commit()
    assert one(b, "SELECT nextval('s')") == (1,)
    a.execute("SELECT nextval('s')")
    a.rollback()  # (the number stays taken)
    assert one(b, "SELECT nextval('s')") == (3,)
    a.execute("DROP SEQUENCE s")
    assert one(b, "SELECT nextval('s')") == (4,)  # (the DROP is not committed)
    a.rollback()
    assert one(a, "SELECT nextval('s')") == (5,)  # (the rollback brings it back where it was)
    a.execute("ALTER SEQUENCE s RESTART")
    assert one(a, "SELECT nextval('s')") == (1,)
    assert one(b, "SELECT nextval('s')") == (6,)
    a.rollback()  # (a RESTART is transactional too)
    assert one(a, "SELECT nextval('s')") == (7,)
    a.commit()
    a.execute("BEGIN READ ONLY")
    fails(a, "CREATE SEQUENCE r", "25006")
    a.rollback()


def test_drop_sequence_a_default_uses(conn):
    conn.execute("CREATE SEQUENCE s START 10")
    conn.execute("CREATE TABLE t (id BIGINT DEFAULT nextval('s'), v TEXT)")
    assert conn.execute("INSERT INTO t (v) VALUES ('a'), ('b') RETURNING id").fetchall() == [(10,), (11,)]
    conn.execute("INSERT INTO t (v) SELECT 'c'")
    assert one(conn, "SELECT max(id) FROM t") == (12,)
    fails(conn, "DROP SEQUENCE s", "2BP01", "default value for column id of table t depends on sequence s")
    conn.execute("DROP SEQUENCE s CASCADE")
    assert conn.execute("INSERT INTO t (v) VALUES ('d') RETURNING id").fetchall() == [(None,)]
    conn.execute("CREATE TABLE g (id INT GENERATED ALWAYS AS IDENTITY, v TEXT)")
    fails(conn, "DROP SEQUENCE g_id_seq CASCADE", "2BP01", "because column id of table g requires it")


def test_serial_sequences_are_catalog_entries_owned_by_their_column(conn):
    conn.execute("CREATE SEQUENCE t_id_seq")  # (the name a SERIAL would take: it takes the next)
    conn.execute("CREATE TABLE t (id SERIAL, big BIGSERIAL, v TEXT)")
    assert conn.execute("INSERT INTO t (v) VALUES ('a') RETURNING id, big").fetchall() == [(1, 1)]
    assert one(conn, "SELECT pg_get_serial_sequence('t', 'id'), pg_get_serial_sequence('public.t', 'big'), "
                     "pg_get_serial_sequence('t', 'v')") == ("public.t_id_seq1", "public.t_big_seq", None)
    fails(conn, "SELECT pg_get_serial_sequence('t', 'nope')", "42703")
    assert conn.execute("SELECT sequence_name, data_type, maximum_value FROM information_schema.sequences "
                        "ORDER BY 1").fetchall() == [("t_big_seq", "bigint", "9223372036854775807"),
                                                     ("t_id_seq", "bigint", "9223372036854775807"),
                                                     ("t_id_seq1", "integer", "2147483647")]
    assert one(conn, "SELECT count(*) FROM information_schema.tables WHERE table_name LIKE 't_%'") == (0,)
    conn.execute("ALTER TABLE t DROP COLUMN big")  # (its sequence goes with it)
    conn.execute("DROP TABLE t")
    assert [r[0] for r in conn.execute("SELECT sequence_name FROM information_schema.sequences").fetchall()] \
        == ["t_id_seq"]


def test_a_table_created_again_starts_its_sequence_afresh(conn):
    """As PostgreSQL's: the sequence is the column's and goes with its table. It went on
    counting where the dropped table's had stopped. A DROP rolled back keeps the numbers
    taken (never handed out twice)."""
    conn.execute("CREATE TABLE t (id SERIAL PRIMARY KEY, name TEXT)")
    conn.execute("INSERT INTO t (name) VALUES ('a'), ('b')")
    conn.execute("DROP TABLE t")
    fails(conn, "SELECT nextval('t_id_seq')", "42P01")
    conn.execute("CREATE TABLE t (id INT GENERATED ALWAYS AS IDENTITY, name TEXT)")
    assert conn.execute("INSERT INTO t (name) VALUES ('b') RETURNING id").fetchall() == [(1,)]
    conn.execute("BEGIN")
    conn.execute("DROP TABLE t")
    conn.execute("CREATE TABLE t (id SERIAL PRIMARY KEY, name TEXT)")
    assert conn.execute("INSERT INTO t (name) VALUES ('c') RETURNING id").fetchall() == [(1,)]
    conn.execute("ROLLBACK")
    assert conn.execute("INSERT INTO t (name) VALUES ('d') RETURNING id").fetchall() == [(2,)]


def test_truncate_restart_identity_is_transactional(conn):
    conn.execute("CREATE TABLE t (id SERIAL PRIMARY KEY, name TEXT)")
    conn.execute("INSERT INTO t (name) VALUES ('a'), ('b')")
    conn.execute("BEGIN")
    conn.execute("TRUNCATE t RESTART IDENTITY")
    assert conn.execute("INSERT INTO t (name) VALUES ('c') RETURNING id").fetchall() == [(1,)]
    conn.execute("ROLLBACK")
    assert conn.execute("INSERT INTO t (name) VALUES ('d') RETURNING id").fetchall() == [(3,)]
    conn.execute("TRUNCATE t RESTART IDENTITY")
    assert conn.execute("INSERT INTO t (name) VALUES ('e') RETURNING id").fetchall() == [(1,)]


def test_a_sequence_from_before_sequences_were_entries_still_counts(conn, warehouse):
    """A warehouse's older sequences are files _sequences/<db>/<name> with no catalog entry."""
    from txlake.storage.sequences import Counter, Sequences
    Sequences(warehouse).create(Counter.legacy("default", "old_seq"), 41)
    conn.execute("CREATE TABLE t (id BIGINT DEFAULT nextval('old_seq'), v TEXT)")
    assert conn.execute("INSERT INTO t (v) VALUES ('a'), ('b') RETURNING id").fetchall() == [(41,), (42,)]
    assert one(conn, "SELECT currval('old_seq')") == (42,)


USE = """
import sys, txlake
c = txlake.connect(sys.argv[1], autocommit=True, publish="off")
print(c.execute("SELECT nextval('s'), nextval('s')").fetchone())
c.execute("DROP SEQUENCE s")
"""


def test_other_processes_see_a_committed_sequence(conn, warehouse):
    conn.execute("CREATE SEQUENCE s INCREMENT 10")
    conn.execute("SELECT nextval('s')")
    done = run_python(USE, warehouse)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "(11, 21)"
    fails(conn, "SELECT nextval('s')", "42P01")  # (the other process dropped it)


TAKE = """
import sys, txlake
c = txlake.connect(sys.argv[1], autocommit=True, publish="off")
while True:
    print(c.execute("SELECT nextval('s')").fetchone()[0], flush=True)
"""


def test_a_number_handed_out_is_not_handed_out_again_after_a_kill(conn, warehouse):
    conn.execute("CREATE SEQUENCE s")
    child = subprocess.Popen([sys.executable, "-c", TAKE, warehouse], stdout=subprocess.PIPE, text=True,
                             env=child_env())
    try:
        seen = []
        deadline = time.monotonic() + 60
        while len(seen) < 50 and time.monotonic() < deadline:
            seen.append(int(child.stdout.readline()))
    finally:
        child.send_signal(signal.SIGKILL)
        child.wait(30)
    assert len(seen) >= 50
    assert one(conn, "SELECT nextval('s')")[0] > max(seen)


def test_repl_lists_and_describes_sequences(warehouse):
    done = subprocess.run([sys.executable, "-m", "txlake.repl.cli", warehouse, "-c",
                           "CREATE TABLE t (id SERIAL, v TEXT)", "-c", "CREATE SEQUENCE s START 5 CYCLE",
                           "-c", "\\ds", "-c", "\\dt", "-c", "\\d s", "-c", "\\d t_id_seq"],
                          capture_output=True, text=True, timeout=120, env=child_env())
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert 'Sequence "public.s"' in out and 'Sequence "public.t_id_seq"' in out and "Owned by: public.t.id" in out
    listed = out.split('Sequence "public.s"')[0]
    assert [line.split("|")[1].strip() for line in listed.splitlines() if "| sequence" in line] == ["s", "t_id_seq"]
    assert sum(1 for line in listed.splitlines() if line.rstrip().endswith("| table")) == 1


def test_sequences_are_not_published_as_paimon_tables(connect, warehouse):
    conn = connect(autocommit=True, publish="sync")
    conn.execute("CREATE TABLE t (id SERIAL, v TEXT)")
    conn.execute("CREATE SEQUENCE s")
    conn.execute("INSERT INTO t (v) VALUES ('a')")
    assert sorted(os.listdir(os.path.join(warehouse, "default.db"))) == ["t"]


# --- identity columns: options, OVERRIDING, RESTART ----------------------------------------

def test_identity_options(conn):
    """``GENERATED ... AS IDENTITY (START WITH 10 INCREMENT BY 5)`` was refused (0A000)."""
    conn.execute("CREATE TABLE g (id INT GENERATED ALWAYS AS IDENTITY (START WITH 10 INCREMENT BY 5), v TEXT)")
    assert conn.execute("INSERT INTO g (v) VALUES ('a'), ('b') RETURNING id").fetchall() == [(10,), (15,)]
    conn.execute("CREATE TABLE s (id SMALLINT GENERATED BY DEFAULT AS IDENTITY (MINVALUE 5 MAXVALUE 6 CYCLE), v INT)")
    conn.execute("INSERT INTO s (v) SELECT range FROM range(3)")
    assert [r[0] for r in conn.execute("SELECT id FROM s ORDER BY v").fetchall()] == [5, 6, 5]
    assert one(conn, "SELECT data_type, minimum_value, maximum_value, cycle_option FROM information_schema.sequences "
                     "WHERE sequence_name = 's_id_seq'") == ("smallint", "5", "6", "YES")
    fails(conn, "CREATE TABLE x (id TEXT GENERATED ALWAYS AS IDENTITY)", "22023",
          "identity column type must be smallint, integer, or bigint")
    fails(conn, "CREATE TABLE x (id INT GENERATED ALWAYS AS IDENTITY (INCREMENT 0))", "22023")
    fails(conn, "SELECT 1 FROM x", "42P01")


def test_by_default_identity_is_an_identity_column(conn):
    conn.execute("CREATE TABLE b (id BIGINT GENERATED BY DEFAULT AS IDENTITY, v TEXT)")
    assert conn.execute("INSERT INTO b VALUES (50, 'given') RETURNING id").fetchall() == [(50,)]
    assert conn.execute("INSERT INTO b (v) VALUES ('n') RETURNING id").fetchall() == [(1,)]
    assert one(conn, "SELECT is_identity, identity_generation, column_default FROM information_schema.columns "
                     "WHERE table_name = 'b' AND column_name = 'id'") == ("YES", "BY DEFAULT", None)
    assert conn.session.describe_table("b").to_pylist()[0]["default"] == "generated by default as identity"
    fails(conn, "ALTER TABLE b ALTER COLUMN id DROP DEFAULT", "55000", "is an identity column")


def test_overriding_system_value_and_user_value(conn):
    """OVERRIDING SYSTEM VALUE lets values into a GENERATED ALWAYS column; USER VALUE ignores the
    values given to identity columns. Both were syntax errors."""
    conn.execute("CREATE TABLE g (id INT GENERATED ALWAYS AS IDENTITY PRIMARY KEY, v TEXT)")
    conn.execute("CREATE TABLE b (id INT GENERATED BY DEFAULT AS IDENTITY, s SERIAL, v TEXT)")
    fails(conn, "INSERT INTO g VALUES (7, 'x')", "428C9", "HINT:  Use OVERRIDING SYSTEM VALUE to override.")
    conn.execute("INSERT INTO g OVERRIDING SYSTEM VALUE VALUES (7, 'sys')")
    conn.execute("INSERT INTO g (id, v) OVERRIDING SYSTEM VALUE SELECT 8, 'sys-query'")
    conn.execute("INSERT INTO g OVERRIDING SYSTEM VALUE VALUES (?, ?)", (9, "sys-param"))
    assert conn.execute("INSERT INTO g OVERRIDING USER VALUE VALUES (70, 'user'), (DEFAULT, 'user2') "
                        "RETURNING id").fetchall() == [(1,), (2,)]
    conn.execute("INSERT INTO g (id, v) OVERRIDING USER VALUE SELECT 80, 'user-query'")
    conn.execute("INSERT INTO g OVERRIDING USER VALUE VALUES (?, ?)", (90, "user-param"))
    assert conn.execute("SELECT id, v FROM g ORDER BY id").fetchall() == [
        (1, "user"), (2, "user2"), (3, "user-query"), (4, "user-param"), (7, "sys"), (8, "sys-query"),
        (9, "sys-param")]
    # BY DEFAULT: USER VALUE ignores the identity column's value, not a SERIAL's
    assert conn.execute("INSERT INTO b OVERRIDING USER VALUE VALUES (50, 60, 'x') RETURNING id, s").fetchall() \
        == [(1, 60)]
    fails(conn, "INSERT INTO g OVERRIDING OTHER VALUE VALUES (1, 'x')", "42601")


def test_alter_column_restart(conn):
    conn.execute("CREATE TABLE g (id INT GENERATED ALWAYS AS IDENTITY (START WITH 10), v TEXT)")
    conn.execute("INSERT INTO g (v) VALUES ('a'), ('b')")
    conn.execute("ALTER TABLE g ALTER COLUMN id RESTART WITH 100")
    assert conn.execute("INSERT INTO g (v) VALUES ('c') RETURNING id").fetchall() == [(100,)]
    conn.execute("BEGIN")
    conn.execute("ALTER TABLE g ALTER id RESTART")
    assert conn.execute("INSERT INTO g (v) VALUES ('d') RETURNING id").fetchall() == [(10,)]
    conn.execute("ROLLBACK")  # (transactional: the sequence goes on where it was)
    assert conn.execute("INSERT INTO g (v) VALUES ('e') RETURNING id").fetchall() == [(101,)]
    fails(conn, "ALTER TABLE g ALTER COLUMN v RESTART", "55000", 'column "v" of relation "g" is not an identity column')
    fails(conn, "ALTER TABLE g ALTER COLUMN id RESTART WITH 0", "22023",
          "RESTART value (0) cannot be less than MINVALUE")


@pytest.mark.parametrize("sql", ["CREATE TEMP SEQUENCE x", "ALTER SEQUENCE s SET SCHEMA other"])
def test_what_is_not_done_is_refused(conn, sql):
    conn.execute("CREATE SEQUENCE s")
    fails(conn, sql, "0A000")


# --- CACHE n ---------------------------------------------------------------------------------

def test_cache_n_a_session_takes_n_numbers_at_a_time(connect):
    """CACHE was accepted and did nothing: each nextval took its number from the file. As in
    PostgreSQL, a session now takes n at a time and hands them out itself; another session
    goes on after them, a closed session's unused numbers are lost (a gap), its own setval and
    ALTER SEQUENCE ... RESTART take effect at once and other sessions use their numbers up."""
    a, b = connect(autocommit=True), connect(autocommit=True)
    a.execute("CREATE SEQUENCE s CACHE 10")
    assert [one(a, "SELECT nextval('s')")[0] for _ in range(3)] == [1, 2, 3]
    assert one(b, "SELECT nextval('s')") == (11,)
    assert one(a, "SELECT nextval('s')") == (4,)
    assert one(b, "SELECT currval('s')") == (11,)
    # a statement taking more than a session holds: what it holds, then the rest from the file
    assert a.execute("SELECT nextval('s') FROM range(9)").fetchall() == [(n,) for n in (5, 6, 7, 8, 9, 10,
                                                                                          21, 22, 23)]
    a.execute("SELECT setval('s', 100)")
    assert one(a, "SELECT nextval('s')") == (101,)
    assert one(b, "SELECT nextval('s')") == (12,)  # (b's own numbers first)
    b.close()
    c = connect(autocommit=True)
    assert one(c, "SELECT nextval('s')") == (111,)  # (b's 13..20 are lost, a holds 102..110)
    c.execute("ALTER SEQUENCE s RESTART WITH 500")
    assert one(c, "SELECT nextval('s')") == (500,)
    assert one(a, "SELECT nextval('s')") == (510,)  # (a's cache was of the sequence before the RESTART)


def test_cache_stops_at_the_last_number_as_postgresql_does(conn):
    """Taking n at a time does not fail or cycle early near the bound: the cache holds what is
    left, and only a nextval past the last number is 2200H (or cycles)."""
    conn.execute("CREATE SEQUENCE s MAXVALUE 5 CACHE 50")
    assert [one(conn, "SELECT nextval('s')")[0] for _ in range(5)] == [1, 2, 3, 4, 5]
    fails(conn, "SELECT nextval('s')", "2200H", 'reached maximum value of sequence "s" (5)')
    conn.execute("CREATE SEQUENCE c MINVALUE -3 MAXVALUE 3 START 2 INCREMENT -2 CACHE 20 CYCLE")
    assert [one(conn, "SELECT nextval('c')")[0] for _ in range(5)] == [2, 0, -2, 3, 1]


CACHED_TAKERS = """
import sys, txlake
c = txlake.connect(sys.argv[1], autocommit=True, publish="off")
print(" ".join(str(c.execute("SELECT nextval('s')").fetchone()[0]) for _ in range(int(sys.argv[2]))))
c.close()
"""


def test_cached_numbers_are_unique_across_processes_and_threads(conn, connect, warehouse):
    conn.execute("CREATE SEQUENCE s CACHE 7")
    procs = [subprocess.Popen([sys.executable, "-c", CACHED_TAKERS, warehouse, "40"], stdout=subprocess.PIPE,
                              text=True, env=child_env()) for _ in range(2)]
    taken, failures = [], []

    def take():
        try:
            c = connect(autocommit=True)
            taken.extend(one(c, "SELECT nextval('s')")[0] for _ in range(40))
        except Exception as e:  # (reported below: a thread's exception would be lost)
            failures.append(e)

    threads = [threading.Thread(target=take) for _ in range(2)]
    try:
        for t in threads:
            t.start()
        for t in threads:
            t.join(120)
        outs = [p.communicate(timeout=120)[0] for p in procs]
    finally:
        for p in procs:
            p.kill()
    assert not failures and [p.returncode for p in procs] == [0, 0]
    taken += [int(n) for out in outs for n in out.split()]
    assert len(taken) == 160 and len(set(taken)) == 160
    # each session took 7 at a time, 6 times for its 40 (2 lost when it closed): the file is past 4 * 42
    assert one(conn, "SELECT nextval('s')") == (4 * 42 + 1,)


# --- OWNED BY, pg_sequences ------------------------------------------------------------------

def sequence_names(conn):
    return [r[0] for r in conn.execute("SELECT sequence_name FROM information_schema.sequences ORDER BY 1")]


def test_owned_by_a_column_drops_the_sequence_with_it(connect):
    """OWNED BY was refused (0A000). As PostgreSQL's: the sequence goes when its column or
    table does, OWNED BY NONE frees it, and the change is transactional."""
    conn = connect(autocommit=True)
    conn.execute("CREATE TABLE o (a INT, b INT)")
    conn.execute("CREATE SEQUENCE sa OWNED BY o.a")
    conn.execute("CREATE SEQUENCE sb")
    conn.execute("ALTER SEQUENCE sb OWNED BY public.o.b")
    conn.execute("CREATE SEQUENCE free OWNED BY o.a")
    conn.execute("ALTER SEQUENCE free OWNED BY NONE")
    assert one(conn, "SELECT pg_get_serial_sequence('o', 'b')") == ("public.sb",)
    conn.execute("ALTER TABLE o DROP COLUMN b")
    assert sequence_names(conn) == ["free", "sa"]
    conn.execute("BEGIN")
    conn.execute("ALTER SEQUENCE free OWNED BY o.a")
    conn.execute("DROP TABLE o")
    assert sequence_names(conn) == []
    conn.execute("ROLLBACK")
    assert sequence_names(conn) == ["free", "sa"]
    conn.execute("DROP TABLE o")
    assert sequence_names(conn) == ["free"]


def test_owned_by_is_checked_as_postgresql_checks_it(conn):
    conn.execute("CREATE TABLE o (id INT GENERATED ALWAYS AS IDENTITY, a INT)")
    conn.execute("CREATE SCHEMA other")
    conn.execute("CREATE TABLE other.t (a INT)")
    conn.execute("CREATE VIEW v AS SELECT 1 AS a")
    conn.execute("CREATE SEQUENCE s")
    fails(conn, "ALTER SEQUENCE s OWNED BY a", "22023", "invalid OWNED BY option")
    fails(conn, "ALTER SEQUENCE s OWNED BY nope.a", "42P01", 'relation "nope" does not exist')
    fails(conn, "ALTER SEQUENCE s OWNED BY o.nope", "42703", 'column "nope" of relation "o" does not exist')
    fails(conn, "ALTER SEQUENCE s OWNED BY other.t.a", "55000", "sequence must be in same schema as table")
    fails(conn, "ALTER SEQUENCE s OWNED BY v.a", "42809", 'sequence cannot be owned by relation "v"')
    fails(conn, "ALTER SEQUENCE o_id_seq OWNED BY NONE", "0A000", "cannot change ownership of identity sequence")
    fails(conn, "CREATE SEQUENCE z OWNED BY o.a OWNED BY NONE", "42601", "conflicting or redundant options")
    conn.execute("DROP TABLE o")
    assert sequence_names(conn) == ["s"]


def test_pg_sequences(conn):
    """pg_catalog.pg_sequences did not exist (42P01): PostgreSQL's columns, last_value the last
    number the file gave out (NULL before the first; past the last used with a cache)."""
    conn.execute("CREATE TABLE t (id SERIAL)")
    conn.execute("CREATE SEQUENCE s AS integer INCREMENT 5 START 10 MAXVALUE 1000 CACHE 3 CYCLE")
    assert one(conn, "SELECT nextval('s')") == (10,)
    user = one(conn, "SELECT current_user")[0]  # (the one role, every object's owner)
    assert conn.execute("SELECT * FROM pg_sequences ORDER BY sequencename").fetchall() == [
        ("public", "s", user, "integer", 10, 1, 1000, 5, True, 3, 20),
        ("public", "t_id_seq", user, "integer", 1, 1, 2147483647, 1, False, 1, None)]
    assert [d[0] for d in conn.execute("SELECT * FROM pg_catalog.pg_sequences").description] == [
        "schemaname", "sequencename", "sequenceowner", "data_type", "start_value", "min_value", "max_value",
        "increment_by", "cycle", "cache_size", "last_value"]
    conn.execute("BEGIN")
    conn.execute("DROP SEQUENCE s")
    assert conn.execute("SELECT sequencename FROM pg_sequences").fetchall() == [("t_id_seq",)]
    conn.execute("ROLLBACK")
