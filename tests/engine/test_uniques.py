"""UNIQUE constraints: made, validated and enforced on every write path, as PostgreSQL 16
does (23505 and its messages), with the primary key's guarantees between transactions -
real threads here (engine/uniques.py)."""

import threading
import time

import pytest

import txlake
from tests.conftest import error_of, run_python

LEVELS = ["READ COMMITTED", "REPEATABLE READ", "SERIALIZABLE"]


@pytest.fixture
def c(connect):
    return connect(autocommit=True).cursor()


def test_column_and_table_constraints_refuse_a_second_row_with_a_key(c):
    c.execute("CREATE TABLE t (id INT PRIMARY KEY, a INT UNIQUE, b TEXT, n INT, UNIQUE (b, n))")
    c.execute("INSERT INTO t VALUES (1, 1, 'x', 1)")
    assert error_of(c, "INSERT INTO t VALUES (2, 1, 'y', 1)") == (
        "23505", 'duplicate key value violates unique constraint "t_a_key"\nDETAIL:  Key (a)=(1) already exists.')
    assert error_of(c, "INSERT INTO t VALUES (2, 2, 'x', 1)") == (
        "23505", 'duplicate key value violates unique constraint "t_b_n_key"\n'
                 "DETAIL:  Key (b, n)=(x, 1) already exists.")
    # (rows with a NULL in a key never clash)
    c.execute("INSERT INTO t VALUES (2, NULL, 'x', NULL), (3, NULL, 'x', NULL)")
    # within one statement, and by INSERT ... SELECT
    assert error_of(c, "INSERT INTO t VALUES (4, 4, 'a', 1), (5, 4, 'b', 1)")[0] == "23505"
    assert error_of(c, "INSERT INTO t SELECT id + 10, a, 'z', id FROM t")[0] == "23505"
    assert c.execute("SELECT count(*) FROM t").fetchone() == (3,)
    # a boolean key as PostgreSQL's output shows it (it was Python's True)
    c.execute("CREATE TABLE flags (k BOOLEAN PRIMARY KEY, id INT, n INT, UNIQUE (n, k))")
    c.execute("INSERT INTO flags VALUES (true, 1, 1)")
    assert error_of(c, "INSERT INTO flags VALUES (true, 2, 2)")[1].endswith("Key (k)=(t) already exists.")
    assert error_of(c, "INSERT INTO flags VALUES (false, 3, 1), (NULL, 4, 1)")[0] == "23502"
    c.execute("CREATE TABLE flags2 (id INT PRIMARY KEY, n INT, k BOOLEAN, UNIQUE (n, k))")
    assert error_of(c, "INSERT INTO flags2 VALUES (1, 1, false), (2, 1, false)")[1].endswith(
        "Key (n, k)=(1, f) already exists.")


def test_updates_are_checked_on_the_point_path_and_statement_wide(c):
    c.execute("CREATE TABLE t (id INT PRIMARY KEY, a INT UNIQUE)")
    c.execute("INSERT INTO t VALUES (1, 1), (2, 2), (3, 3)")
    assert error_of(c, "UPDATE t SET a = 1 WHERE id = 2")[0] == "23505"         # point UPDATE by key
    assert error_of(c, "UPDATE t SET a = 1 WHERE a = 2")[0] == "23505"          # general path
    # checked row by row, as PostgreSQL checks a non-deferrable key: a row's new key against the
    # old key of a row updated after it (in physical order) - a shift up fails, a shift down passes
    assert error_of(c, "UPDATE t SET a = a + 1") == (
        "23505", 'duplicate key value violates unique constraint "t_a_key"\nDETAIL:  Key (a)=(2) already exists.')
    assert error_of(c, "UPDATE t SET id = id + 1") == (
        "23505", 'duplicate key value violates unique constraint "t_pkey"\nDETAIL:  Key (id)=(2) already exists.')
    assert error_of(c, "UPDATE t SET a = 4 - a WHERE id <> 2")[0] == "23505"  # (a swap)
    c.execute("UPDATE t SET a = a - 1, id = id - 1")
    assert c.execute("SELECT id, a FROM t ORDER BY id").fetchall() == [(0, 0), (1, 1), (2, 2)]
    c.execute("UPDATE t SET a = a + 10")  # (no row's new key another's)
    assert error_of(c, "UPDATE t SET a = 7")[0] == "23505"
    # MERGE deleting some rows and updating others: each new key against the rows after it. The
    # rows are written anew first, by one INSERT, in key order: the UPDATE above wrote them in the
    # order DuckDB returned them, which is no order (its scan is parallel)
    c.execute("DELETE FROM t")
    c.execute("INSERT INTO t VALUES (0, 10), (1, 11), (2, 12)")
    c.execute("MERGE INTO t USING (VALUES (0), (1), (2)) s(id) ON t.id = s.id "
              "WHEN MATCHED AND s.id = 0 THEN DELETE WHEN MATCHED THEN UPDATE SET a = a - 1")
    assert c.execute("SELECT id, a FROM t ORDER BY id").fetchall() == [(1, 10), (2, 11)]
    c.execute("DELETE FROM t")
    c.execute("INSERT INTO t VALUES (1, 10), (2, 11)")
    assert error_of(c, "MERGE INTO t USING (VALUES (1), (2)) s(id) ON t.id = s.id "
                       "WHEN MATCHED AND s.id = 2 THEN DELETE WHEN MATCHED THEN UPDATE SET a = 11")[0] == "23505"


def test_an_update_writes_its_rows_in_the_old_rows_order(c):
    # the new versions follow the old rows' physical order (PostgreSQL's heap order), not the
    # order the rows were found in - here by key, through the primary key's index - so the next
    # statement's row-by-row check sees the rows as they were: 11, 12, 13 shifts down
    c.execute("CREATE TABLE t (id INT PRIMARY KEY, a INT UNIQUE)")
    c.execute("INSERT INTO t VALUES (3, 1), (2, 2), (1, 3)")
    c.execute("UPDATE t SET a = a + 10 WHERE id IN (1, 2, 3)")
    c.execute("UPDATE t SET a = a - 1")
    c.execute("MERGE INTO t USING (VALUES (1), (2), (3)) s(id) ON t.id = s.id WHEN MATCHED THEN UPDATE SET a = a + 10")
    c.execute("UPDATE t SET a = a - 1")
    assert c.execute("SELECT id, a FROM t ORDER BY id").fetchall() == [(1, 21), (2, 20), (3, 19)]


@pytest.mark.parametrize("write", [
    "UPDATE t SET a = a + 1000000",
    "MERGE INTO t USING (SELECT i AS id FROM range(100000) r(i) ORDER BY i DESC) s ON t.id = s.id "
    "WHEN MATCHED THEN UPDATE SET a = a + 1000000"])
def test_a_streamed_update_writes_its_rows_in_row_order_every_run(connect, write):
    # a table DuckDB reads from Parquet (its files not cached: a fresh open; rows deleted from
    # them) comes back in no fixed order - its two threads read a file each and their results
    # are put together as they finish; the rows must still be written in the old rows' order,
    # or the next statement passes or fails by chance. File f holds the keys 8j + f: the
    # second statement moves each key onto the one below it, in the file before, which passes
    # only if that file's rows were written (so are updated) first
    for _ in range(3):
        c = connect(autocommit=True).cursor()
        c.execute("DROP TABLE IF EXISTS t")
        c.execute("CREATE TABLE t (id INT PRIMARY KEY, a INT UNIQUE)")
        for f in range(8):
            c.execute(f"INSERT INTO t SELECT {f * 12500} + j, 8 * j + {f} FROM range(12500) r(j)")
        c.execute("DELETE FROM t WHERE id % 1000 = 7")
        c.connection.close()
        c = connect(autocommit=True).cursor()
        c.execute(write)
        c.execute("UPDATE t SET a = CASE WHEN a % 8 = 0 THEN a + 1000000 ELSE a - 1 END")
        assert c.execute("SELECT count(*), min(a), max(a) FROM t").fetchone() == (99900, 1000000, 2099992)
        c.connection.close()


def test_merge_and_insert_select_write_their_new_rows_in_the_source_order(c):
    # a MERGE's inserted rows in its source's order, whichever clause made them; INSERT ...
    # SELECT ... ORDER BY's in the SELECT's: so the shift down below passes (1, 2, 3 -> 0, 1, 2)
    c.execute("CREATE TABLE t (a INT UNIQUE)")
    rows = c.execute("MERGE INTO t USING (VALUES (1), (2), (3)) s(k) ON t.a = s.k "
                     "WHEN NOT MATCHED AND s.k = 2 THEN INSERT VALUES (s.k) "
                     "WHEN NOT MATCHED THEN INSERT VALUES (s.k) RETURNING a").fetchall()
    assert rows == [(1,), (2,), (3,)]
    c.execute("UPDATE t SET a = a - 1")
    c.execute("CREATE TABLE u (a INT UNIQUE)")
    c.execute("INSERT INTO u SELECT a FROM t ORDER BY a")
    c.execute("UPDATE u SET a = a - 1")
    assert c.execute("SELECT a FROM u ORDER BY a").fetchall() == [(-1,), (0,), (1,)]


def test_a_deferrable_primary_key_is_refused_not_ignored(c):
    # PostgreSQL checks a DEFERRABLE key at the statement's end (or COMMIT), not row by row:
    # txlake's primary key is the rows' identity, so a deferrable one is refused (it was
    # dropped silently); a UNIQUE one can be (tests/engine/test_deferrable.py)
    for sql in ("CREATE TABLE z (a INT PRIMARY KEY DEFERRABLE)",
                "CREATE TABLE z (a INT, PRIMARY KEY (a) DEFERRABLE INITIALLY DEFERRED)"):
        state, message = error_of(c, sql)
        assert state == "0A000" and "DEFERRABLE" in message
    assert c.execute("SELECT count(*) FROM information_schema.tables WHERE table_name = 'z'").fetchone() == (0,)
    # (a word after a column's UNIQUE was taken for a name: the constraint had no columns, checked nothing)
    assert error_of(c, "CREATE TABLE z (a INT UNIQUE foo)") == ("42601", 'syntax error at or near "foo"')


def test_a_table_without_primary_key_and_nulls_not_distinct(c):
    c.execute("CREATE TABLE w (a INT UNIQUE NULLS NOT DISTINCT, b INT)")
    c.execute("INSERT INTO w VALUES (NULL, 1)")
    assert error_of(c, "INSERT INTO w VALUES (NULL, 2)") == (
        "23505", 'duplicate key value violates unique constraint "w_a_key"\nDETAIL:  Key (a)=(null) already exists.')
    c.execute("DELETE FROM w")
    c.execute("INSERT INTO w VALUES (NULL, 3)")  # DELETE then INSERT of a key
    c.execute("UPDATE w SET b = 4")              # a row keeping its key
    assert c.execute("SELECT * FROM w").fetchall() == [(None, 4)]


def test_create_unique_index_nulls_not_distinct(c):
    c.execute("CREATE TABLE w (a INT, b INT)")
    c.execute("INSERT INTO w VALUES (NULL, NULL), (NULL, 1)")
    assert error_of(c, "CREATE UNIQUE INDEX w_a ON w (a) NULLS NOT DISTINCT") == (
        "23505", 'could not create unique index "w_a"\nDETAIL:  Key (a)=(null) is duplicated.')
    c.execute("DELETE FROM w WHERE b = 1")
    c.execute("CREATE UNIQUE INDEX w_a ON w (a) NULLS NOT DISTINCT")
    c.execute("CREATE UNIQUE INDEX w_b ON w (b) NULLS DISTINCT")  # (the default, written)
    c.execute("CREATE INDEX w_ab ON w (a, b) NULLS NOT DISTINCT")  # (a plain index: nothing to it, as in PostgreSQL)
    assert error_of(c, "INSERT INTO w VALUES (NULL, 2)") == (
        "23505", 'duplicate key value violates unique constraint "w_a"\nDETAIL:  Key (a)=(null) already exists.')
    c.execute("INSERT INTO w VALUES (3, NULL)")  # (b's NULLs are distinct)
    assert c.execute("SELECT indexname, indexdef FROM pg_indexes WHERE tablename = 'w' ORDER BY 1").fetchall() == [
        ("w_a", "CREATE UNIQUE INDEX w_a ON public.w USING btree (a) NULLS NOT DISTINCT"),
        ("w_ab", "CREATE INDEX w_ab ON public.w USING btree (a, b)"),
        ("w_b", "CREATE UNIQUE INDEX w_b ON public.w USING btree (b)")]


def test_alter_table_add_validates_the_rows_and_drop_constraint_drops(c):
    c.execute("CREATE TABLE u (a INT, b INT)")
    c.execute("INSERT INTO u VALUES (1, 1), (1, 2), (NULL, 3), (NULL, 4)")
    assert error_of(c, "ALTER TABLE u ADD UNIQUE (a)") == (
        "23505", 'could not create unique index "u_a_key"\nDETAIL:  Key (a)=(1) is duplicated.')
    assert error_of(c, "ALTER TABLE u ADD UNIQUE NULLS NOT DISTINCT (a)")[0] == "23505"
    c.execute("ALTER TABLE u ADD CONSTRAINT u_b UNIQUE (b)")
    assert error_of(c, "INSERT INTO u VALUES (9, 1)")[1].startswith(
        'duplicate key value violates unique constraint "u_b"')
    assert error_of(c, "ALTER TABLE u ADD UNIQUE (b) NOT VALID")[0] == "0A000"
    c.execute("ALTER TABLE u DROP CONSTRAINT u_b")
    c.execute("INSERT INTO u VALUES (9, 1)")
    assert error_of(c, "CREATE TABLE arr (a INT[] UNIQUE)")[0] == "0A000"
    assert error_of(c, "CREATE TABLE nope (a INT, UNIQUE (b))")[0] == "42703"


def test_columns_renamed_dropped_and_retyped_carry_to_the_constraint(c):
    c.execute("CREATE TABLE t (a INT UNIQUE, b INT, c TEXT, UNIQUE (b, c))")
    c.execute("INSERT INTO t VALUES (1, 1, 'x')")
    c.execute("ALTER TABLE t RENAME COLUMN a TO z")
    assert error_of(c, "INSERT INTO t VALUES (1, 2, 'y')")[1].endswith("Key (z)=(1) already exists.")
    c.execute("ALTER TABLE t DROP COLUMN c")  # (the constraint over it goes with it)
    c.execute("INSERT INTO t VALUES (2, 1)")
    c.execute("INSERT INTO t VALUES (3, 3), (4, 4)")
    c.execute("ALTER TABLE t ALTER COLUMN b TYPE TEXT")
    c.execute("CREATE TABLE f (a NUMERIC UNIQUE)")
    c.execute("INSERT INTO f VALUES (1.2), (1.4)")
    assert error_of(c, "ALTER TABLE f ALTER COLUMN a TYPE INT")[0] == "23505"


def test_on_conflict_takes_a_unique_constraint_as_arbiter(c):
    c.execute("CREATE TABLE t (id INT PRIMARY KEY, a INT UNIQUE, v TEXT)")
    c.execute("INSERT INTO t VALUES (1, 1, 'a')")
    c.execute("INSERT INTO t VALUES (2, 1, 'b') ON CONFLICT (a) DO NOTHING")
    c.execute("INSERT INTO t VALUES (2, 1, 'b') ON CONFLICT (a) DO UPDATE SET v = excluded.v")
    assert c.execute("SELECT * FROM t").fetchall() == [(1, 1, 'b')]
    c.execute("INSERT INTO t VALUES (3, 1, 'c') ON CONFLICT ON CONSTRAINT t_a_key DO UPDATE SET v = 'c'")
    c.execute("INSERT INTO t VALUES (1, 5, 'd'), (4, 1, 'e'), (5, 5, 'f'), (6, 6, 'g') ON CONFLICT DO NOTHING")
    assert c.execute("SELECT * FROM t ORDER BY id").fetchall() == [(1, 1, 'c'), (5, 5, 'f'), (6, 6, 'g')]
    # a violation of a constraint other than the arbiter is still 23505
    assert error_of(c, "INSERT INTO t VALUES (7, 6, 'h') ON CONFLICT (id) DO NOTHING")[0] == "23505"
    assert error_of(c, "INSERT INTO t VALUES (7, 7, 'h') ON CONFLICT (v) DO NOTHING") == (
        "42P10", "there is no unique or exclusion constraint matching the ON CONFLICT specification")
    assert error_of(c, "INSERT INTO t VALUES (7, 7, 'h') ON CONFLICT ON CONSTRAINT nope DO NOTHING")[0] == "42704"


def test_on_conflict_over_a_unique_constraint_still_checks_the_primary_key(c):
    """The arbiter a UNIQUE constraint, a new row whose primary key a row holds is 23505 as
    PostgreSQL's (found by the soak: such rows went in, two rows with one key)."""
    c.execute("CREATE TABLE t (id INT PRIMARY KEY, a INT UNIQUE, n INT)")
    c.execute("INSERT INTO t VALUES (1, 1, 0)")
    pkey = ('23505', 'duplicate key value violates unique constraint "t_pkey"\nDETAIL:  Key (id)=(1) already exists.')
    assert error_of(c, "INSERT INTO t VALUES (1, 2, 0) ON CONFLICT (a) DO NOTHING") == pkey
    assert error_of(c, "INSERT INTO t VALUES (1, 3, 0) ON CONFLICT (a) DO UPDATE SET n = t.n + 1") == pkey
    assert error_of(c, "INSERT INTO t VALUES (1, 4, 0) ON CONFLICT ON CONSTRAINT t_a_key DO NOTHING") == pkey
    assert error_of(c, "INSERT INTO t VALUES (2, 5, 0), (2, 6, 0) ON CONFLICT (a) DO NOTHING")[0] == "23505"
    c.execute("INSERT INTO t VALUES (9, 1, 0), (2, 2, 0) ON CONFLICT (a) DO UPDATE SET n = t.n + 1")
    assert c.execute("SELECT * FROM t ORDER BY id").fetchall() == [(1, 1, 1), (2, 2, 0)]


def test_merge_and_copy_are_checked(c, tmp_path):
    c.execute("CREATE TABLE t (id INT PRIMARY KEY, a INT UNIQUE)")
    c.execute("INSERT INTO t VALUES (1, 1), (2, 2)")
    assert error_of(c, "MERGE INTO t USING (VALUES (3, 1)) AS s(id, a) ON t.id = s.id "
                       "WHEN NOT MATCHED THEN INSERT VALUES (s.id, s.a)")[0] == "23505"
    assert error_of(c, "MERGE INTO t USING (VALUES (2, 1)) AS s(id, a) ON t.id = s.id "
                       "WHEN MATCHED THEN UPDATE SET a = s.a")[0] == "23505"
    path = tmp_path / "rows.csv"
    path.write_text("3,3\n4,2\n")
    state, message = error_of(c, f"COPY t FROM '{path}' (FORMAT csv)")
    assert state == "23505" and "t_a_key" in message and "line 2" in message
    assert c.execute("SELECT count(*) FROM t").fetchone() == (2,)


def test_the_constraint_survives_a_reopen(warehouse):
    con = txlake.connect(warehouse, autocommit=True)
    con.execute("CREATE TABLE t (a INT, CONSTRAINT only_one UNIQUE (a))")
    con.execute("INSERT INTO t VALUES (1)")
    con.close()
    con = txlake.connect(warehouse, autocommit=True)
    try:
        with pytest.raises(txlake.IntegrityError, match="only_one"):
            con.execute("INSERT INTO t VALUES (1)")
    finally:
        con.close()


def test_constraint_names_share_one_namespace_with_relations(c):
    """As PostgreSQL's: a unique constraint is an index, a relation of its schema."""
    c.execute("CREATE TABLE t_a_key (x INT)")
    c.execute("CREATE TABLE t (a INT UNIQUE, b INT CONSTRAINT k UNIQUE)")  # (t_a_key1: the name is taken)
    assert error_of(c, "CREATE TABLE u (a INT CONSTRAINT k UNIQUE)") == ("42P07", 'relation "k" already exists')
    assert c.execute("SELECT indexname FROM pg_indexes ORDER BY 1").fetchall() == [("k",), ("t_a_key1",)]
    assert error_of(c, "ALTER TABLE t ADD CONSTRAINT k UNIQUE (a)")[0] == "42P07"  # (its index's name first)


def test_named_primary_keys(c):
    c.execute("CREATE TABLE orders (id INT CONSTRAINT orders_pk PRIMARY KEY, v INT)")
    c.execute("CREATE TABLE lines (id INT, n INT, CONSTRAINT lines_pk PRIMARY KEY (id, n))")
    c.execute("INSERT INTO orders VALUES (1, 1)")
    assert error_of(c, "INSERT INTO orders VALUES (1, 2)")[1].startswith(
        'duplicate key value violates unique constraint "orders_pk"')
    c.execute("INSERT INTO orders VALUES (1, 3) ON CONFLICT ON CONSTRAINT orders_pk DO UPDATE SET v = 3")
    assert error_of(c, "INSERT INTO orders VALUES (1, 3) ON CONFLICT ON CONSTRAINT orders_pkey DO NOTHING")[0] \
        == "42704"
    assert error_of(c, "ALTER TABLE orders ADD CONSTRAINT orders_pk UNIQUE (v)")[0] == "42P07"  # (its index)
    assert c.execute("SELECT * FROM orders").fetchall() == [(1, 3)]


def test_alter_table_add_primary_key_as_pg_dump_writes_it(c):
    c.execute("CREATE TABLE t (id INT, v TEXT)")
    c.execute("INSERT INTO t VALUES (1, 'a'), (1, 'b'), (NULL, 'c')")
    assert error_of(c, "ALTER TABLE ONLY t ADD CONSTRAINT t_pkey PRIMARY KEY (id)") == (
        "23502", 'column "id" of relation "t" contains null values')
    c.execute("DELETE FROM t WHERE id IS NULL")
    assert error_of(c, "ALTER TABLE ONLY t ADD CONSTRAINT t_pkey PRIMARY KEY (id)") == (
        "23505", 'could not create unique index "t_pkey"\nDETAIL:  Key (id)=(1) is duplicated.')
    c.execute("DELETE FROM t WHERE v = 'b'")
    c.execute("ALTER TABLE ONLY t ADD CONSTRAINT t_pkey PRIMARY KEY (id)")
    assert error_of(c, "ALTER TABLE t ADD PRIMARY KEY (v)")[0] == "42P16"
    assert error_of(c, "INSERT INTO t VALUES (1, 'z')")[1].startswith(
        'duplicate key value violates unique constraint "t_pkey"')
    c.execute("UPDATE t SET v = 'q' WHERE id = 1")                      # (the point path, by the new key)
    c.execute("INSERT INTO t VALUES (1, 'z') ON CONFLICT (id) DO NOTHING")
    c.execute("CREATE TABLE s (id INT, v TEXT)")
    c.execute("ALTER TABLE s ADD CONSTRAINT s_pk PRIMARY KEY (id, v)")
    assert error_of(c, "INSERT INTO s VALUES (1, NULL)")[0] == "23502"
    assert error_of(c, "INSERT INTO s VALUES (1, 'x'), (1, 'x')")[1].startswith(
        'duplicate key value violates unique constraint "s_pk"')
    assert c.execute("SELECT * FROM t").fetchall() == [(1, "q")]



def test_a_primary_key_and_a_unique_constraint_are_named_alike(c):
    """One check names both (``uniques.name_for``), as PostgreSQL's index_create: a relation's
    or index's name - the table's own too - is 42P07, a CHECK's of the table 42710."""
    assert error_of(c, "CREATE TABLE t (id INT, a INT, CONSTRAINT k PRIMARY KEY (id), CONSTRAINT k UNIQUE (a))") == (
        "42P07", 'relation "k" already exists')
    c.execute("CREATE TABLE r (x INT)")
    c.execute("CREATE TABLE t (id INT, a INT CONSTRAINT c CHECK (a > 0))")
    assert error_of(c, "ALTER TABLE t ADD CONSTRAINT r PRIMARY KEY (id)") == ("42P07", 'relation "r" already exists')
    assert error_of(c, "ALTER TABLE t ADD CONSTRAINT c PRIMARY KEY (id)")[0] == "42710"
    assert error_of(c, "ALTER TABLE t ADD CONSTRAINT c UNIQUE (a)")[0] == "42710"
    c.execute("CREATE TABLE t_pkey (x INT)")
    c.execute("ALTER TABLE t ADD PRIMARY KEY (id)")  # (t_pkey is a table's name: t_pkey1)
    assert c.execute("SELECT constraint_name FROM information_schema.table_constraints "
                     "WHERE table_name = 't' AND constraint_type = 'PRIMARY KEY'").fetchall() == [("t_pkey1",)]
    assert error_of(c, "ALTER TABLE t ADD CONSTRAINT t_pkey1 UNIQUE (a)")[0] == "42P07"

def test_create_unique_index_and_drop_index(c):
    c.execute("CREATE TABLE t (id INT PRIMARY KEY, a INT, b INT)")
    c.execute("INSERT INTO t VALUES (1, 1, 1), (2, 1, 2)")
    assert error_of(c, "CREATE UNIQUE INDEX t_a ON t (a)") == (
        "23505", 'could not create unique index "t_a"\nDETAIL:  Key (a)=(1) is duplicated.')
    c.execute("CREATE UNIQUE INDEX t_ab ON t USING btree (a, b)")
    c.execute("CREATE UNIQUE INDEX ON t (b)")  # (named t_b_idx)
    assert error_of(c, "INSERT INTO t VALUES (3, 9, 2)")[1].startswith(
        'duplicate key value violates unique constraint "t_b_idx"')
    c.execute("INSERT INTO t VALUES (3, 1, 2) ON CONFLICT (b, a) DO UPDATE SET id = 20")  # (the index is an arbiter)
    assert error_of(c, "CREATE UNIQUE INDEX t_ab ON t (b)")[0] == "42P07"
    assert error_of(c, "CREATE UNIQUE INDEX t ON t (b)")[0] == "42P07"
    c.execute("CREATE UNIQUE INDEX IF NOT EXISTS t_ab ON t (b)")
    assert c.connection.notices[-1] == 'NOTICE:  relation "t_ab" already exists, skipping'
    assert error_of(c, "CREATE UNIQUE INDEX i ON t USING hash (a)")[0] == "0A000"
    assert c.execute("SELECT indexname, indexdef FROM pg_indexes WHERE tablename = 't' ORDER BY 1").fetchall() == [
        ("t_ab", "CREATE UNIQUE INDEX t_ab ON public.t USING btree (a, b)"),
        ("t_b_idx", "CREATE UNIQUE INDEX t_b_idx ON public.t USING btree (b)"),
        ("t_pkey", "CREATE UNIQUE INDEX t_pkey ON public.t USING btree (id)")]
    assert error_of(c, "ALTER TABLE t DROP CONSTRAINT t_ab")[0] == "42704"  # (an index, no constraint)
    assert error_of(c, "DROP INDEX t_pkey")[0] == "2BP01"
    assert error_of(c, "DROP INDEX t")[0] == "42809"
    c.execute("DROP INDEX t_b_idx")
    assert error_of(c, "DROP INDEX t_b_idx")[0] == "42704"
    c.execute("DROP INDEX IF EXISTS t_b_idx")
    c.execute("INSERT INTO t VALUES (4, 9, 2)")


def test_key_column_usage_lists_primary_key_and_unique_columns(c):
    c.execute("CREATE TABLE t (id INT, x INT, y INT, CONSTRAINT tk PRIMARY KEY (id), UNIQUE (y, x))")
    c.execute("CREATE UNIQUE INDEX t_x ON t (x)")  # (an index: no constraint, not listed)
    assert c.execute("SELECT constraint_name, table_schema, table_name, column_name, ordinal_position, "
                     "position_in_unique_constraint FROM information_schema.key_column_usage "
                     "ORDER BY constraint_name, ordinal_position").fetchall() == [
        ("t_y_x_key", "public", "t", "y", 1, None), ("t_y_x_key", "public", "t", "x", 2, None),
        ("tk", "public", "t", "id", 1, None)]




def test_on_conflict_checks_the_constraints_not_its_arbiter(c):
    """A clash on a constraint ON CONFLICT does not arbitrate - the primary key too - is 23505,
    against the rows there, among the rows inserted, and between those inserted and updated."""
    c.execute("CREATE TABLE u (id INT PRIMARY KEY, a INT UNIQUE, b INT UNIQUE)")
    c.execute("INSERT INTO u VALUES (1, 1, 1), (2, 2, 2)")
    pkey = ("23505", 'duplicate key value violates unique constraint "u_pkey"\nDETAIL:  Key (id)=(1) already exists.')
    assert error_of(c, "INSERT INTO u VALUES (1, 99, 99) ON CONFLICT (a) DO UPDATE SET b = 5") == pkey
    assert error_of(c, "INSERT INTO u VALUES (1, 99, 99) ON CONFLICT (a) DO NOTHING") == pkey
    assert error_of(c, "INSERT INTO u VALUES (5, 5, 5), (5, 6, 6) ON CONFLICT (a) DO NOTHING") == (
        "23505", 'duplicate key value violates unique constraint "u_pkey"\nDETAIL:  Key (id)=(5) already exists.')
    assert error_of(c, "INSERT INTO u VALUES (5, 5, 5), (5, 6, 6) ON CONFLICT (a) DO UPDATE SET b = 0")[0] == "23505"
    # the row updated takes the value the row inserted takes
    assert error_of(c, "INSERT INTO u VALUES (1, 1, 9), (3, 3, 8) ON CONFLICT (a) DO UPDATE SET b = 8")[1].startswith(
        'duplicate key value violates unique constraint "u_b_key"')
    assert error_of(c, "INSERT INTO u VALUES (3, 1, 9), (4, 4, 4) ON CONFLICT (a) DO UPDATE SET id = 4")[1].startswith(
        'duplicate key value violates unique constraint "u_pkey"')
    assert c.execute("SELECT * FROM u ORDER BY id").fetchall() == [(1, 1, 1), (2, 2, 2)]
    c.execute("INSERT INTO u VALUES (7, 1, 9), (3, 3, 3) ON CONFLICT (a) DO UPDATE SET b = 7")
    c.execute("INSERT INTO u VALUES (8, 8, 8), (9, 2, 9) ON CONFLICT (a) DO NOTHING")
    assert c.execute("SELECT * FROM u ORDER BY id").fetchall() == [(1, 1, 7), (2, 2, 2), (3, 3, 3), (8, 8, 8)]

def test_nan_and_negative_zero_are_one_key_each(c):
    """As PostgreSQL's btree compares floats: NaN = NaN and -0 = 0 - in the lookups, the
    validation of a new constraint and the rows of files a reopen reads from Parquet alike."""
    c.execute("CREATE TABLE f (id INT PRIMARY KEY, x FLOAT8 UNIQUE)")
    c.execute("INSERT INTO f VALUES (1, 'NaN'), (3, 0.0)")
    assert error_of(c, "INSERT INTO f VALUES (2, 'NaN')") == (
        "23505", 'duplicate key value violates unique constraint "f_x_key"\nDETAIL:  Key (x)=(NaN) already exists.')
    assert error_of(c, "INSERT INTO f VALUES (5, 'NaN'::float8 + 1)")[0] == "23505"
    assert error_of(c, "INSERT INTO f VALUES (4, -0.0::float8)")[0] == "23505"
    c.execute("DELETE FROM f")
    assert error_of(c, "INSERT INTO f VALUES (5, 'NaN'), (6, 'NaN')")[0] == "23505"
    c.execute("INSERT INTO f VALUES (5, 'NaN'), (6, -0.0::float8)")
    c.execute("ALTER TABLE f ALTER COLUMN x TYPE float8")  # (validated again: one NaN, one zero)
    c.execute("CREATE TABLE g (id INT PRIMARY KEY, x FLOAT8)")
    c.execute("INSERT INTO g VALUES (1, 0.0), (2, -0.0::float8)")
    assert error_of(c, "ALTER TABLE g ADD CONSTRAINT gx UNIQUE (x)")[0] == "23505"
    c.execute("CREATE TABLE h (x FLOAT8 PRIMARY KEY, n INT)")
    c.execute("INSERT INTO h VALUES ('NaN', 1), (1.5, 2)")
    assert error_of(c, "INSERT INTO h VALUES ('NaN', 3)") == (
        "23505", 'duplicate key value violates unique constraint "h_pkey"\nDETAIL:  Key (x)=(NaN) already exists.')
    c.execute("INSERT INTO h VALUES ('NaN', 4) ON CONFLICT (x) DO UPDATE SET n = excluded.n")
    assert c.execute("SELECT n FROM h WHERE x = 'NaN'").fetchall() == [(4,)]
    c.execute("CALL txlake.compact('h')")  # (rows in Parquet files: their footers' bounds leave NaN out)
    c.execute("CALL txlake.compact('f')")
    assert error_of(c, "INSERT INTO h VALUES ('NaN', 5)")[0] == "23505"
    assert error_of(c, "INSERT INTO f VALUES (7, 'NaN')")[0] == "23505"


def test_constraint_column_usage_lists_unique_and_check_columns(c):
    c.execute("CREATE TABLE t (id INT PRIMARY KEY, x INT, y INT, z INT CHECK (z > 0), UNIQUE (y, x), "
              "CONSTRAINT both_ok CHECK (x < y))")
    c.execute("CREATE UNIQUE INDEX t_z ON t (z)")  # (an index: no constraint, not listed)
    assert c.execute("SELECT table_schema, table_name, column_name, constraint_name "
                     "FROM information_schema.constraint_column_usage "
                     "ORDER BY constraint_name, column_name").fetchall() == [
        ("public", "t", "x", "both_ok"), ("public", "t", "y", "both_ok"), ("public", "t", "id", "t_pkey"),
        ("public", "t", "x", "t_y_x_key"), ("public", "t", "y", "t_y_x_key"), ("public", "t", "z", "t_z_check")]


# --- concurrency ---------------------------------------------------------------------------

def race(session, sql, then, params=()):
    """``sql`` run by ``session`` in a thread; after a moment here, ``then()``. Returns (was it
    still waiting when ``then`` ran, "ok" or its SQLSTATE)."""
    outcome = []

    def run():
        try:
            session.execute(sql, params)
            outcome.append("ok")
        except txlake.Error as e:
            outcome.append(e.sqlstate)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    try:
        time.sleep(0.4)
        waiting = not outcome
    finally:
        then()
    thread.join(60)
    return waiting, outcome[0] if outcome else "still running"


@pytest.fixture
def table(connect):
    setup = connect(autocommit=True)
    setup.execute("CREATE TABLE t (id INT PRIMARY KEY, a INT UNIQUE)")
    setup.execute("INSERT INTO t VALUES (1, 1), (2, 2)")
    return setup


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("first_commits", [True, False])
def test_a_second_inserter_of_a_value_waits_for_the_first(connect, table, level, first_commits):
    first, second = connect(), connect(isolation_level=level)
    try:
        first.execute("INSERT INTO t VALUES (10, 5)")
        second.execute("SELECT 1")  # (its snapshot taken before the first commits)
        waited, outcome = race(second, "INSERT INTO t VALUES (11, 5)",
                               first.commit if first_commits else first.rollback)
        assert waited
        assert outcome == ("23505" if first_commits else "ok")
    finally:
        first.rollback()
        second.rollback()


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("first_commits", [True, False])
def test_an_update_onto_a_value_another_transaction_frees_waits_for_it(connect, table, level, first_commits):
    """The first moves row 1 off a = 1; the second's UPDATE of row 2 onto it waits: the value
    is free if the first commits (as PostgreSQL's index check sees it, at any level), taken
    if it rolls back."""
    first, second = connect(), connect(isolation_level=level)
    try:
        first.execute("UPDATE t SET a = 100 WHERE id = 1")
        second.execute("SELECT 1")
        waited, outcome = race(second, "UPDATE t SET a = 1 WHERE id = 2",
                               first.commit if first_commits else first.rollback)
        assert waited
        assert outcome == ("ok" if first_commits else "23505")
        if outcome == "ok":
            second.commit()
            assert table.execute("SELECT id, a FROM t ORDER BY id").fetchall() == [(1, 100), (2, 1)]
    finally:
        first.rollback()
        second.rollback()


@pytest.mark.parametrize("level", LEVELS)
def test_an_update_onto_a_value_another_transaction_takes_waits_and_fails(connect, table, level):
    first, second = connect(), connect(isolation_level=level)
    try:
        first.execute("UPDATE t SET a = 7 WHERE id = 1")
        second.execute("SELECT 1")
        waited, outcome = race(second, "UPDATE t SET a = 7 WHERE id = 2", first.commit)
        assert waited and outcome == "23505"
    finally:
        first.rollback()
        second.rollback()


@pytest.mark.parametrize("level", LEVELS)
def test_delete_then_insert_of_a_value_in_one_transaction(connect, table, level):
    """A transaction deleting a value and inserting it again commits; an inserter of the same
    value meanwhile waits for it and then finds it taken."""
    first, other = connect(isolation_level=level), connect()
    try:
        first.execute("DELETE FROM t WHERE a = 2")
        first.execute("INSERT INTO t VALUES (20, 2)")
        waited, outcome = race(other, "INSERT INTO t VALUES (21, 2)", first.commit)
        assert waited and outcome == "23505"
        assert table.execute("SELECT id, a FROM t ORDER BY id").fetchall() == [(1, 1), (20, 2)]
    finally:
        first.rollback()
        other.rollback()


def test_an_insert_on_conflict_waits_then_updates_the_row_the_first_committed(connect, table):
    first, second = connect(), connect(isolation_level="READ COMMITTED")
    try:
        first.execute("INSERT INTO t VALUES (30, 30)")
        waited, outcome = race(second, "INSERT INTO t VALUES (31, 30) ON CONFLICT (a) DO UPDATE SET id = 32",
                               first.commit)
        assert waited and outcome == "ok"
        second.commit()
        assert table.execute("SELECT id FROM t WHERE a = 30").fetchall() == [(32,)]
    finally:
        first.rollback()
        second.rollback()


def test_the_commit_refuses_a_value_another_process_committed(connect, warehouse, table):
    """No lock is shared with another process here: its commit of the same value lands first,
    and this transaction's COMMIT is what refuses the second row (23505)."""
    mine = connect()
    try:
        mine.execute("INSERT INTO t VALUES (40, 40)")
        done = run_python("import sys, txlake\n"
                          "c = txlake.connect(sys.argv[1], autocommit=True, publish='off')\n"
                          "c.execute('INSERT INTO t VALUES (41, 40)')\n", warehouse)
        assert done.returncode == 0, done.stderr
        with pytest.raises(txlake.IntegrityError) as info:
            mine.commit()
        assert info.value.sqlstate == "23505" and '"t_a_key"' in str(info.value)
    finally:
        mine.rollback()
    assert table.execute("SELECT id FROM t WHERE a = 40").fetchall() == [(41,)]
