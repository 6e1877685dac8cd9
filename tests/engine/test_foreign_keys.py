"""FOREIGN KEY constraints, as PostgreSQL 16 has them: the DDL, the child-side check of every
write path, the parent-side actions (NO ACTION, RESTRICT, CASCADE, SET NULL, SET DEFAULT), and
DROP / TRUNCATE / ALTER of referenced and referencing tables. (Races: tests/scenarios/
test_foreign_key_races.py.)"""

import pytest

import txlake
from txlake.engine import foreign_keys
from tests.conftest import fails
from tests.conftest import rows as q

MISSING = 'insert or update on table "c" violates foreign key constraint "c_a_fkey"\n' \
          'DETAIL:  Key (a)=({}) is not present in table "p".'
REFERENCED = 'update or delete on table "p" violates foreign key constraint "c_a_fkey" on table "c"\n' \
             'DETAIL:  Key (id)=({}) is still referenced from table "c".'


@pytest.fixture
def c(connect):
    conn = connect(autocommit=True)
    conn.execute("CREATE TABLE p (id INT PRIMARY KEY, v TEXT)")
    conn.execute("INSERT INTO p VALUES (1, 'x'), (2, 'y'), (3, 'z')")
    return conn


# --- DDL ---------------------------------------------------------------------------------

def test_references_the_primary_key_by_default_and_names_the_constraint(c):
    c.execute("CREATE TABLE c (a INT REFERENCES p, b TEXT)")
    c.execute("INSERT INTO c VALUES (1, 'ok'), (NULL, 'no key: no check')")
    assert fails(c, "INSERT INTO c VALUES (5, 'no')", "23503") == MISSING.format(5)
    assert q(c, "SELECT a FROM c ORDER BY a") == [(1,), (None,)]


def test_table_constraint_named_multi_column_and_column_order(c):
    c.execute("CREATE TABLE pp (x INT, y TEXT, PRIMARY KEY (x, y))")
    c.execute("INSERT INTO pp VALUES (1, 'a')")
    c.execute("CREATE TABLE cc (b TEXT, a INT, CONSTRAINT both_fk FOREIGN KEY (b, a) REFERENCES pp (y, x))")
    c.execute("INSERT INTO cc VALUES ('a', 1), (NULL, 7)")  # (MATCH SIMPLE: a NULL part, no check)
    msg = fails(c, "INSERT INTO cc VALUES ('b', 1)", "23503")
    assert msg == ('insert or update on table "cc" violates foreign key constraint "both_fk"\n'
                   'DETAIL:  Key (b, a)=(b, 1) is not present in table "pp".')


def test_match_full(c):
    c.execute("CREATE TABLE pp (x INT, y INT, PRIMARY KEY (x, y))")
    c.execute("INSERT INTO pp VALUES (1, 2)")
    c.execute("CREATE TABLE cc (a INT, b INT, FOREIGN KEY (a, b) REFERENCES pp MATCH FULL)")
    c.execute("INSERT INTO cc VALUES (1, 2), (NULL, NULL)")
    msg = fails(c, "INSERT INTO cc VALUES (1, NULL)", "23503")
    assert msg.endswith("DETAIL:  MATCH FULL does not allow mixing of null and nonnull key values.")


def test_ddl_errors(c):
    c.execute("CREATE TABLE nokey (x INT)")
    c.execute("CREATE VIEW pv AS SELECT * FROM p")
    assert fails(c, "CREATE TABLE c (a INT REFERENCES nokey)", "42830") == \
        'there is no primary key for referenced table "nokey"'
    assert fails(c, "CREATE TABLE c (a TEXT REFERENCES p (v))", "42830") == \
        'there is no unique constraint matching given keys for referenced table "p"'
    assert fails(c, "CREATE TABLE c (a TEXT REFERENCES p)", "42804") == (
        'foreign key constraint "c_a_fkey" cannot be implemented\n'
        'DETAIL:  Key columns "a" and "id" are of incompatible types: text and integer.')
    fails(c, "CREATE TABLE c (a INT REFERENCES pv)", "42809")
    fails(c, "CREATE TABLE c (a INT REFERENCES nowhere)", "42P01")
    fails(c, "CREATE TABLE c (a INT, FOREIGN KEY (zz) REFERENCES p)", "42703")
    fails(c, "CREATE TABLE c (a INT REFERENCES p (nope))", "42703")
    c.execute("CREATE TABLE c (a BIGINT REFERENCES p)")  # (integers of any width compare)
    assert q(c, "SELECT count(*) FROM information_schema.tables WHERE table_name = 'c'") == [(1,)]


def test_self_reference_in_its_own_create_table(c):
    c.execute("CREATE TABLE t (id INT PRIMARY KEY, parent INT REFERENCES t)")
    c.execute("INSERT INTO t VALUES (1, NULL), (2, 1), (3, 2)")  # (a row may reference one of its statement)
    fails(c, "INSERT INTO t VALUES (4, 9)", "23503")
    fails(c, "DELETE FROM t WHERE id = 2", "23503")
    c.execute("DELETE FROM t WHERE id >= 2")  # (the referencing row goes in the same statement)
    assert q(c, "SELECT id FROM t") == [(1,)]


def test_alter_table_add_validates_existing_rows_unless_not_valid(c):
    c.execute("CREATE TABLE c (a INT)")
    c.execute("INSERT INTO c VALUES (1), (5)")
    assert fails(c, "ALTER TABLE c ADD FOREIGN KEY (a) REFERENCES p", "23503") == MISSING.format(5)
    c.execute("ALTER TABLE c ADD CONSTRAINT c_a_fkey FOREIGN KEY (a) REFERENCES p NOT VALID")
    fails(c, "INSERT INTO c VALUES (6)", "23503")  # (new rows are checked)
    c.execute("UPDATE c SET a = 2 WHERE a = 1")
    c.execute("ALTER TABLE c DROP CONSTRAINT c_a_fkey")
    c.execute("INSERT INTO c VALUES (6)")


def test_validate_constraint_of_a_not_valid_foreign_key(c):
    c.execute("CREATE TABLE c (k INT PRIMARY KEY, a INT)")
    c.execute("INSERT INTO c VALUES (1, 1), (2, 5)")
    c.execute("ALTER TABLE c ADD CONSTRAINT c_a_fkey FOREIGN KEY (a) REFERENCES p NOT VALID")
    assert fails(c, "ALTER TABLE c VALIDATE CONSTRAINT c_a_fkey", "23503") == MISSING.format(5)
    c.execute("DELETE FROM c WHERE k = 2")
    assert c.session.foreign_key_lines("c")[0] == ['"c_a_fkey" FOREIGN KEY (a) REFERENCES p(id) NOT VALID']
    c.execute("ALTER TABLE c VALIDATE CONSTRAINT c_a_fkey")
    assert c.session.foreign_key_lines("c")[0] == ['"c_a_fkey" FOREIGN KEY (a) REFERENCES p(id)']
    c.execute("ALTER TABLE c VALIDATE CONSTRAINT c_a_fkey")  # (valid already: nothing to do)
    fails(c, "ALTER TABLE c VALIDATE CONSTRAINT c_pkey", "42809")
    fails(c, "ALTER TABLE c VALIDATE CONSTRAINT nope", "42704")
    c.execute("INSERT INTO c VALUES (4, 2)")
    c.execute("ALTER TABLE c ADD CONSTRAINT self FOREIGN KEY (a) REFERENCES c NOT VALID")  # (a self-reference)
    fails(c, "ALTER TABLE c VALIDATE CONSTRAINT self", "23503")
    c.execute("UPDATE c SET a = 1 WHERE k = 4")
    c.execute("ALTER TABLE c VALIDATE CONSTRAINT self")


def test_update_not_setting_the_key_does_not_check_it(connect, c):
    c.execute("CREATE TABLE c (k INT PRIMARY KEY, a INT, v INT)")
    c.execute("INSERT INTO c VALUES (1, 1, 0), (2, 5, 0)")
    c.execute("ALTER TABLE c ADD CONSTRAINT c_a_fkey FOREIGN KEY (a) REFERENCES p NOT VALID")
    c.execute("UPDATE c SET k = 20 WHERE k = 2")  # (a point update, keyed)
    c.execute("UPDATE c SET v = v + 1 WHERE a = 5")
    c.execute("MERGE INTO c USING (SELECT 20 AS k) s ON c.k = s.k WHEN MATCHED THEN UPDATE SET v = 7")
    conn = connect()  # (nor does the COMMIT re-check it)
    conn.execute("UPDATE c SET v = 8 WHERE k = 20")
    conn.commit()
    assert q(c, "SELECT k, a, v FROM c ORDER BY k") == [(1, 1, 0), (20, 5, 8)]
    assert fails(c, "UPDATE c SET a = a WHERE k = 20", "23503") == MISSING.format(5)
    assert fails(c, "UPDATE c SET a = 6, v = 0", "23503") == MISSING.format(6)
    conn.execute("INSERT INTO c VALUES (3, 3, 0)")  # (its own new row: re-checked at COMMIT still)
    conn.execute("UPDATE c SET v = 1 WHERE k = 3")
    other = connect(autocommit=True)
    other.execute("DELETE FROM p WHERE id = 3")
    with pytest.raises(txlake.Error) as info:
        conn.commit()
    assert info.value.sqlstate == "40001"
    conn.rollback()


def test_referenced_table_kept_by_id_and_renamed_columns_followed(c):
    c.execute("CREATE TABLE c (a INT REFERENCES p)")
    c.execute("INSERT INTO c VALUES (1)")
    c.execute("ALTER TABLE p RENAME COLUMN id TO pid")
    c.execute("ALTER TABLE c RENAME COLUMN a TO aa")
    fails(c, "INSERT INTO c VALUES (9)", "23503")
    assert "Key (pid)=(1)" in fails(c, "DELETE FROM p WHERE pid = 1", "23503")
    c.execute("INSERT INTO c VALUES (2)")


def test_drop_column_drops_the_constraint(c):
    c.execute("CREATE TABLE c (a INT REFERENCES p, b INT)")
    c.execute("ALTER TABLE c DROP COLUMN a")
    c.execute("DELETE FROM p")


# --- the child side: every write path ---------------------------------------------------------

def test_every_write_path_of_the_child_is_checked(c):
    c.execute("CREATE TABLE c (k INT PRIMARY KEY, a INT REFERENCES p)")
    c.execute("INSERT INTO c VALUES (1, 1)")
    assert fails(c, "INSERT INTO c VALUES (2, ?)", "23503", params=[7]) == MISSING.format(7)
    fails(c, "INSERT INTO c SELECT 2, 8", "23503")
    fails(c, "UPDATE c SET a = 9 WHERE k = 1", "23503")  # (the point update)
    fails(c, "UPDATE c SET a = a + 10", "23503")
    fails(c, "INSERT INTO c VALUES (1, 9) ON CONFLICT (k) DO UPDATE SET a = excluded.a", "23503")
    fails(c, "MERGE INTO c USING (SELECT 1 AS k) s ON c.k = s.k WHEN MATCHED THEN UPDATE SET a = 9", "23503")
    fails(c, "MERGE INTO c USING (SELECT 5 AS k) s ON c.k = s.k WHEN NOT MATCHED THEN INSERT VALUES (5, 9)",
          "23503")
    c.execute("INSERT INTO c VALUES (1, 2) ON CONFLICT (k) DO UPDATE SET a = excluded.a")
    assert q(c, "SELECT k, a FROM c") == [(1, 2)]


def test_copy_from_is_checked(c, tmp_path):
    c.execute("CREATE TABLE c (a INT REFERENCES p)")
    good, bad = tmp_path / "good.csv", tmp_path / "bad.csv"
    good.write_text("1\n2\n")
    bad.write_text("1\n42\n")
    c.execute(f"COPY c FROM '{good}' (FORMAT csv)")
    assert fails(c, f"COPY c FROM '{bad}' (FORMAT csv)", "23503") == MISSING.format(42)
    assert q(c, "SELECT count(*) FROM c") == [(2,)]


def test_own_uncommitted_parent_rows_count(connect, c):
    c.execute("CREATE TABLE c (a INT REFERENCES p)")
    t = connect()
    t.execute("INSERT INTO p VALUES (10, 'new')")
    t.execute("INSERT INTO c VALUES (10)")
    fails(c, "INSERT INTO c VALUES (10)", "23503")  # (not committed: not seen by another)
    t.execute("DELETE FROM c")
    t.execute("DELETE FROM p WHERE id = 10")
    t.execute("INSERT INTO p VALUES (10, 'again')")
    t.execute("INSERT INTO c VALUES (10)")
    fails(t, "DELETE FROM p WHERE id = 10", "23503")
    t.rollback()


def test_a_transaction_s_rows_are_checked_once_when_its_writes_are_merged(connect, c, monkeypatch):
    """A transaction's small writes to a table are merged every few statements (and spilled past
    a size): each key is checked when its row is written, not again by each merge - 20,000
    one-row INSERTs took 29 s (0.4 s for 2,000: every merge re-checked every row so far)."""
    from txlake.storage import foreign_keys as fks
    checked = []
    missing = fks.missing
    monkeypatch.setattr(fks, "missing", lambda store, parent, keys, names: (
        checked.extend(keys), missing(store, parent, keys, names))[1])
    c.execute("CREATE TABLE c (k INT PRIMARY KEY, a INT REFERENCES p)")
    w = connect()
    for i in range(60):  # (one-row statements, merged 3 times; executemany would add them as one batch)
        w.execute("INSERT INTO c VALUES (?, ?)", (i, 1 + i % 3))
    assert sorted(checked) == sorted((1 + i % 3,) for i in range(60))
    fails(w, "INSERT INTO c VALUES (99, 7)", "23503")  # (a new row's key still is)
    w.rollback()


# --- the parent side ---------------------------------------------------------------------------

def test_no_action_and_restrict(c):
    c.execute("CREATE TABLE c (a INT REFERENCES p ON DELETE RESTRICT ON UPDATE NO ACTION)")
    c.execute("INSERT INTO c VALUES (1), (1)")
    assert fails(c, "DELETE FROM p WHERE id = 1", "23503") == REFERENCED.format(1)
    assert fails(c, "UPDATE p SET id = 10 WHERE id = 1", "23503") == REFERENCED.format(1)
    fails(c, "DELETE FROM p", "23503")
    c.execute("UPDATE p SET v = 'kept key' WHERE id = 1")  # (the key is not changed: no check)
    c.execute("DELETE FROM p WHERE id = 2")
    assert q(c, "SELECT id FROM p ORDER BY id") == [(1,), (3,)]


def test_restrict_refuses_changing_a_referenced_rows_key_even_when_another_row_takes_it(c):
    """PostgreSQL's RESTRICT, unlike NO ACTION, does not excuse a referenced row's key change
    because another row holds the key at the statement's end (no ri_Check_Pk_Match); a row
    keeping its key is no change for either."""
    c.execute("CREATE TABLE r (a INT REFERENCES p ON UPDATE RESTRICT ON DELETE RESTRICT)")
    c.execute("CREATE TABLE n (a INT REFERENCES p)")
    c.execute("INSERT INTO r VALUES (2)")
    c.execute("INSERT INTO n VALUES (2)")
    msg = fails(c, "UPDATE p SET id = id - 1", "23503")  # (row 3 takes key 2: NO ACTION's n allows it)
    assert msg.startswith('update or delete on table "p" violates foreign key constraint "r_a_fkey" on table "r"')
    c.execute("DELETE FROM r")
    c.execute("UPDATE p SET id = id - 1")
    assert q(c, "SELECT id, v FROM p ORDER BY id") == [(0, "x"), (1, "y"), (2, "z")]
    assert q(c, "SELECT a FROM n") == [(2,)]
    c.execute("INSERT INTO r VALUES (2)")
    c.execute("UPDATE p SET id = id, v = v || '!'")  # (no key changed)
    c.execute("UPDATE p SET v = 'w' WHERE id = 2")
    fails(c, "MERGE INTO p USING (VALUES (2)) s(id) ON p.id = s.id WHEN MATCHED THEN DELETE", "23503")
    c.execute("DELETE FROM p WHERE id = 0")


def test_on_delete_cascade_recursively_and_on_update_cascade(c):
    c.execute("CREATE TABLE c (k INT PRIMARY KEY, a INT REFERENCES p ON DELETE CASCADE ON UPDATE CASCADE)")
    c.execute("CREATE TABLE g (x INT REFERENCES c ON DELETE CASCADE)")
    c.execute("INSERT INTO c VALUES (1, 1), (2, 1), (3, 2)")
    c.execute("INSERT INTO g VALUES (1), (2), (3)")
    assert c.execute("DELETE FROM p WHERE id = 1").rowcount == 1
    assert q(c, "SELECT k FROM c ORDER BY k") == [(3,)]
    assert q(c, "SELECT x FROM g") == [(3,)]
    c.execute("UPDATE p SET id = 20 WHERE id = 2")
    assert q(c, "SELECT k, a FROM c") == [(3, 20)]


@pytest.mark.parametrize("action", ["RESTRICT", "NO ACTION"])
def test_a_check_runs_after_the_cascades_queued_before_it(c, action):
    """p's row cascades to c and to g, and g references c: PostgreSQL queues referential
    actions, so g's check of c's deleted row runs after the cascade that deletes g's row too
    (it was 23503, the check run inside c's cascade, before g's). Reached by one cascade only,
    the row is still there and the check refuses."""
    c.execute("CREATE TABLE c (id INT PRIMARY KEY, p INT REFERENCES p ON DELETE CASCADE)")
    c.execute(f"CREATE TABLE g (c INT REFERENCES c ON DELETE {action}, p INT REFERENCES p ON DELETE CASCADE)")
    c.execute("INSERT INTO c VALUES (10, 1), (20, 2)")
    c.execute("INSERT INTO g VALUES (10, 1), (20, 3)")
    c.execute("DELETE FROM p WHERE id = 1")
    assert q(c, "SELECT count(*) FROM c") == [(1,)] and q(c, "SELECT c FROM g") == [(20,)]
    msg = fails(c, "DELETE FROM p WHERE id = 2", "23503")
    assert msg.startswith('update or delete on table "c" violates foreign key constraint "g_c_fkey" on table "g"')


def test_cascade_is_transactional(connect, c):
    c.execute("CREATE TABLE c (a INT REFERENCES p ON DELETE CASCADE)")
    c.execute("INSERT INTO c VALUES (1), (2)")
    t = connect()
    t.execute("DELETE FROM p WHERE id = 1")
    assert q(t, "SELECT a FROM c") == [(2,)]
    assert q(c, "SELECT a FROM c ORDER BY a") == [(1,), (2,)]
    t.rollback()
    assert q(c, "SELECT a FROM c ORDER BY a") == [(1,), (2,)]


def test_cascade_is_subject_to_the_childs_constraints(c):
    c.execute("CREATE TABLE c (k INT PRIMARY KEY, a INT REFERENCES p ON DELETE CASCADE)")
    c.execute("CREATE TABLE g (x INT REFERENCES c)")  # (NO ACTION on c)
    c.execute("INSERT INTO c VALUES (1, 1)")
    c.execute("INSERT INTO g VALUES (1)")
    msg = fails(c, "DELETE FROM p WHERE id = 1", "23503")
    assert 'on table "g"' in msg
    assert q(c, "SELECT count(*) FROM p") == [(3,)]


def test_set_null_and_set_default(c):
    c.execute("CREATE TABLE c (a INT DEFAULT 3 REFERENCES p ON DELETE SET DEFAULT, "
              "b INT REFERENCES p ON DELETE SET NULL)")
    c.execute("INSERT INTO c VALUES (1, 2)")
    c.execute("DELETE FROM p WHERE id = 2")
    c.execute("DELETE FROM p WHERE id = 1")
    assert q(c, "SELECT a, b FROM c") == [(3, None)]
    msg = fails(c, "DELETE FROM p WHERE id = 3", "23503")  # (the default must reference a row too)
    assert msg.startswith('insert or update on table "c" violates foreign key constraint "c_a_fkey"')


def test_set_null_and_set_default_of_some_columns(c):
    """PostgreSQL 15's ``ON DELETE SET NULL (cols)`` / ``SET DEFAULT (cols)``: only those of the
    foreign key's columns are set (a tenant's id stays); the list must name the foreign key's
    columns (42703, 42P10) and is for ON DELETE only (0A000)."""
    c.execute("CREATE TABLE u (tenant INT, id INT, PRIMARY KEY (tenant, id))")
    c.execute("INSERT INTO u VALUES (1, 0), (1, 1), (2, 2)")
    c.execute("CREATE TABLE posts (k INT, tenant INT, author INT DEFAULT 0, "
              "FOREIGN KEY (tenant, author) REFERENCES u ON DELETE SET NULL (author))")
    c.execute("CREATE TABLE drafts (k INT, tenant INT, author INT DEFAULT 0, CONSTRAINT d_fk "
              "FOREIGN KEY (tenant, author) REFERENCES u ON UPDATE CASCADE ON DELETE SET DEFAULT (author))")
    for t in ("posts", "drafts"):
        c.execute(f"INSERT INTO {t} VALUES (1, 1, 1), (2, 2, 2)")
    c.execute("DELETE FROM u WHERE id = 1")
    assert q(c, "SELECT k, tenant, author FROM posts ORDER BY k") == [(1, 1, None), (2, 2, 2)]
    assert q(c, "SELECT k, tenant, author FROM drafts ORDER BY k") == [(1, 1, 0), (2, 2, 2)]
    msg = fails(c, "DELETE FROM u WHERE tenant = 2", "23503")  # (the default's key (2, 0) is no row)
    assert msg == 'insert or update on table "drafts" violates foreign key constraint "d_fk"\n' \
                  'DETAIL:  Key (tenant, author)=(2, 0) is not present in table "u".'
    c.execute("UPDATE u SET tenant = 3 WHERE tenant = 1")  # (ON UPDATE CASCADE: every column)
    assert q(c, "SELECT k, tenant, author FROM drafts ORDER BY k") == [(1, 3, 0), (2, 2, 2)]
    c.execute("ALTER TABLE drafts RENAME COLUMN author TO writer")
    fk = c.session.db.warehouse.latest.table("default", "drafts").schema.foreign_keys[0]
    assert foreign_keys.definition(fk, "u") == \
        "FOREIGN KEY (tenant, writer) REFERENCES u(tenant, id) ON UPDATE CASCADE ON DELETE SET DEFAULT (writer)"
    assert fails(c, "CREATE TABLE x (a INT, b INT, FOREIGN KEY (a, b) REFERENCES u ON DELETE SET NULL (z))",
                 "42703") == 'column "z" referenced in foreign key constraint does not exist'
    assert fails(c, "CREATE TABLE x (a INT, b INT, c INT, FOREIGN KEY (a, b) REFERENCES u ON DELETE SET NULL (c))",
                 "42P10") == 'column "c" referenced in ON DELETE SET action must be part of foreign key'
    assert fails(c, "CREATE TABLE x (a INT, b INT, FOREIGN KEY (a, b) REFERENCES u ON UPDATE SET DEFAULT (a))",
                 "0A000") == "a column list with SET DEFAULT is only supported for ON DELETE actions"


def test_a_set_default_row_is_checked_at_the_statements_end(c):
    """SET DEFAULT's new key is checked after the actions queued before the check: here the
    CASCADE of the other foreign key deletes the row first, and PostgreSQL skips the check of
    a row gone by then. Left standing, the row is 23503."""
    c.execute("CREATE TABLE c (a INT DEFAULT 9 REFERENCES p ON DELETE SET DEFAULT, "
              "b INT REFERENCES p ON DELETE CASCADE)")
    c.execute("INSERT INTO c VALUES (1, 1), (2, 3)")
    c.execute("DELETE FROM p WHERE id = 1")
    assert q(c, "SELECT a, b FROM c") == [(2, 3)]
    msg = fails(c, "DELETE FROM p WHERE id = 2", "23503")
    assert msg == 'insert or update on table "c" violates foreign key constraint "c_a_fkey"\n' \
                  'DETAIL:  Key (a)=(9) is not present in table "p".'
    assert q(c, "SELECT id FROM p ORDER BY id") == [(2,), (3,)]


# --- DROP, TRUNCATE ---------------------------------------------------------------------------

def test_drop_table_referenced(c):
    c.execute("CREATE TABLE c (a INT REFERENCES p)")
    c.execute("INSERT INTO c VALUES (1)")
    assert fails(c, "DROP TABLE p", "2BP01") == (
        "cannot drop table p because other objects depend on it\n"
        "DETAIL:  constraint c_a_fkey on table c depends on table p\n"
        "HINT:  Use DROP ... CASCADE to drop the dependent objects too.")
    c.execute("DROP TABLE p CASCADE")
    assert c.notices[-1] == "NOTICE:  drop cascades to constraint c_a_fkey on table c"
    c.execute("INSERT INTO c VALUES (99)")  # (the constraint went; the table stays)
    assert q(c, "SELECT a FROM c ORDER BY a") == [(1,), (99,)]


def test_drop_both_in_one_statement_and_drop_schema_cascade(c):
    c.execute("CREATE TABLE c (a INT REFERENCES p)")
    c.execute("DROP TABLE p, c")
    c.execute("CREATE SCHEMA s")
    c.execute("CREATE TABLE s.p (id INT PRIMARY KEY)")
    c.execute("CREATE TABLE c (a INT REFERENCES s.p)")
    c.execute("DROP SCHEMA s CASCADE")
    assert c.notices[-1] == "NOTICE:  drop cascades to 2 other objects"  # (s.p, and c's constraint)
    c.execute("INSERT INTO c VALUES (5)")


def test_truncate(c):
    c.execute("CREATE TABLE c (a INT REFERENCES p)")
    c.execute("INSERT INTO c VALUES (1)")
    assert fails(c, "TRUNCATE p", "0A000").startswith(
        "cannot truncate a table referenced in a foreign key constraint\n"
        'DETAIL:  Table "c" references "p".')
    c.execute("TRUNCATE p, c")
    c.execute("INSERT INTO p VALUES (1, 'x')")
    c.execute("INSERT INTO c VALUES (1)")
    c.execute("TRUNCATE p CASCADE")
    assert c.notices[-1] == 'NOTICE:  truncate cascades to table "c"'
    assert q(c, "SELECT count(*) FROM c") == [(0,)]


def test_tables_without_foreign_keys_are_untouched(c):
    c.execute("CREATE TABLE other (id INT PRIMARY KEY)")
    c.execute("INSERT INTO other VALUES (1)")
    c.execute("DELETE FROM p")
    c.execute("TRUNCATE other")
    c.execute("DROP TABLE p")


def test_a_constraint_dropped_or_added_in_the_transaction_counts_at_once(connect, c):
    c.execute("CREATE TABLE c (a INT REFERENCES p)")
    c.execute("INSERT INTO c VALUES (1)")
    t = connect()
    t.execute("ALTER TABLE c DROP CONSTRAINT c_a_fkey")
    t.execute("DELETE FROM p WHERE id = 1")
    t.execute("INSERT INTO c VALUES (42)")
    t.rollback()
    fails(c, "DELETE FROM p WHERE id = 1", "23503")
    t.execute("CREATE TABLE d (a INT REFERENCES p)")
    t.execute("INSERT INTO d VALUES (2)")
    fails(t, "DELETE FROM p WHERE id = 2", "23503")
    t.rollback()
    c.execute("DELETE FROM p WHERE id = 2")


def test_information_schema(c):
    c.execute("CREATE TABLE c (a INT REFERENCES p ON DELETE CASCADE, b INT)")
    c.execute("ALTER TABLE c ADD CONSTRAINT full_fk FOREIGN KEY (b) REFERENCES p MATCH FULL ON UPDATE SET NULL")
    assert q(c, "SELECT constraint_schema, constraint_name, unique_constraint_schema, unique_constraint_name, "
                "match_option, update_rule, delete_rule FROM information_schema.referential_constraints "
                "ORDER BY constraint_name") == [
        ("public", "c_a_fkey", "public", "p_pkey", "NONE", "NO ACTION", "CASCADE"),
        ("public", "full_fk", "public", "p_pkey", "FULL", "SET NULL", "NO ACTION")]
    assert q(c, "SELECT table_name, column_name, constraint_name FROM information_schema.constraint_column_usage "
                "ORDER BY constraint_name") == [("p", "id", "c_a_fkey"), ("p", "id", "full_fk"), ("p", "id", "p_pkey")]


def test_prepare_transaction_of_a_foreign_key_write_is_refused(connect, c):
    """COMMIT PREPARED would not re-check the keys against what committed since: refused."""
    c.execute("CREATE TABLE c (a INT REFERENCES p)")
    t = connect()
    t.execute("INSERT INTO c VALUES (1)")
    fails(t, "PREPARE TRANSACTION 'g'", "0A000")
    t.rollback()
    t.execute("DELETE FROM p WHERE id = 3")  # (a referenced table)
    fails(t, "PREPARE TRANSACTION 'g'", "0A000")
    t.rollback()
    assert q(c, "SELECT count(*) FROM c") == [(0,)]
    assert q(c, "SELECT count(*) FROM p") == [(3,)]


def test_merge_deleting_or_rekeying_parent_rows(c):
    c.execute("CREATE TABLE c (a INT REFERENCES p ON UPDATE CASCADE)")
    c.execute("INSERT INTO c VALUES (1), (2)")
    fails(c, "MERGE INTO p USING (SELECT 1 AS id) s ON p.id = s.id WHEN MATCHED THEN DELETE", "23503")
    c.execute("MERGE INTO p USING (SELECT 2 AS id) s ON p.id = s.id WHEN MATCHED THEN UPDATE SET id = 20")
    assert q(c, "SELECT a FROM c ORDER BY a") == [(1,), (20,)]


@pytest.mark.parametrize("action", ["NO ACTION", "RESTRICT"])
def test_merge_deleting_and_inserting_a_referenced_key_again(c, action):
    """PostgreSQL checks a NO ACTION foreign key at the statement's end, where a key the MERGE
    deleted (or moved) and inserted again is there (ri_Check_Pk_Match); RESTRICT's check is of
    the row deleted or changed, whichever row holds its key then: 23503."""
    c.execute(f"CREATE TABLE c (a INT REFERENCES p ON DELETE {action} ON UPDATE {action})")
    c.execute("INSERT INTO c VALUES (1), (2)")
    again = ("MERGE INTO p USING (VALUES (1, 'x', 1), (1, 'again', 2)) s(id, v, k) ON p.id = s.id AND s.k = 1 "
             "WHEN MATCHED THEN DELETE WHEN NOT MATCHED THEN INSERT VALUES (s.id, s.v)")
    moved = ("MERGE INTO p USING (VALUES (2, 1), (2, 2)) s(id, k) ON p.id = s.id AND s.k = 1 "
             "WHEN MATCHED THEN UPDATE SET id = 20 WHEN NOT MATCHED THEN INSERT VALUES (s.id, 'new')")
    if action == "RESTRICT":
        assert fails(c, again, "23503") == REFERENCED.format(1)
        assert fails(c, moved, "23503") == REFERENCED.format(2)
        assert q(c, "SELECT id, v FROM p ORDER BY id") == [(1, "x"), (2, "y"), (3, "z")]
    else:
        c.execute(again)
        c.execute(moved)
        assert q(c, "SELECT id, v FROM p ORDER BY id") == [(1, "again"), (2, "new"), (3, "z"), (20, "y")]
    # (a key gone for good is still refused)
    assert fails(c, "MERGE INTO p USING (VALUES (1)) s(id) ON p.id = s.id WHEN MATCHED THEN DELETE",
                 "23503") == REFERENCED.format(1)


def test_merge_checks_its_new_rows_once_it_has_inserted_too(c):
    """A MERGE's updated rows may reference a row the same MERGE inserts: the check runs at the
    statement's end, as PostgreSQL's."""
    c.execute("CREATE TABLE t (id INT PRIMARY KEY, parent INT REFERENCES t)")
    c.execute("INSERT INTO t VALUES (1, NULL)")
    c.execute("MERGE INTO t USING (VALUES (1, 5), (5, NULL)) s(id, parent) ON t.id = s.id "
              "WHEN MATCHED THEN UPDATE SET parent = s.parent WHEN NOT MATCHED THEN INSERT VALUES (s.id, s.parent)")
    assert q(c, "SELECT id, parent FROM t ORDER BY id") == [(1, 5), (5, None)]
    msg = fails(c, "MERGE INTO t USING (VALUES (1, 6), (7, NULL)) s(id, parent) ON t.id = s.id "
                   "WHEN MATCHED THEN UPDATE SET parent = s.parent "
                   "WHEN NOT MATCHED THEN INSERT VALUES (s.id, s.parent)", "23503")
    assert msg == ('insert or update on table "t" violates foreign key constraint "t_parent_fkey"\n'
                   'DETAIL:  Key (parent)=(6) is not present in table "t".')


def test_a_tree_deleted_by_cascade_and_key_type_changes_refused(c):
    c.execute("CREATE TABLE t (id INT PRIMARY KEY, parent INT REFERENCES t ON DELETE CASCADE)")
    c.execute("INSERT INTO t VALUES (1, NULL), (2, 1), (3, 2), (4, 3), (5, NULL)")
    c.execute("DELETE FROM t WHERE id = 2")  # (3 references 2, 4 references 3: each level in turn)
    assert q(c, "SELECT id FROM t ORDER BY id") == [(1,), (5,)]
    fails(c, "ALTER TABLE t ALTER COLUMN parent TYPE BIGINT", "0A000")
    c.execute("CREATE TABLE c (a INT REFERENCES p)")
    fails(c, "ALTER TABLE p ALTER COLUMN id TYPE BIGINT", "0A000")


def test_a_named_primary_key_is_what_the_catalogs_say_a_foreign_key_references(c):
    """(UNIQUE's named primary keys and foreign keys, merged: the catalogs said <table>_pkey,
    and listed a CREATE UNIQUE INDEX's index as a UNIQUE constraint.)"""
    c.execute("CREATE TABLE np (id INT CONSTRAINT np_key PRIMARY KEY, code TEXT)")
    c.execute("CREATE UNIQUE INDEX np_code ON np (code)")
    c.execute("CREATE TABLE nc (a INT REFERENCES np)")
    assert q(c, "SELECT unique_constraint_name FROM information_schema.referential_constraints "
                "WHERE constraint_name = 'nc_a_fkey'") == [("np_key",)]
    assert q(c, "SELECT constraint_name, constraint_type FROM information_schema.table_constraints "
                "WHERE table_name = 'np' ORDER BY 1") == [("np_key", "PRIMARY KEY")]
    assert q(c, "SELECT DISTINCT constraint_name FROM information_schema.constraint_column_usage "
                "WHERE table_name = 'np' ORDER BY 1") == [("nc_a_fkey",), ("np_key",)]
