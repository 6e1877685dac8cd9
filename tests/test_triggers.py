"""Triggers (engine/triggers.py) with PL/pgSQL trigger functions, as PostgreSQL 16 fires them
(trigger.sgml "Overview of Trigger Behavior", plpgsql.sgml "Triggers on Data Changes"): BEFORE
ROW changing or skipping rows, AFTER ROW audits, statement-level ones, WHEN, UPDATE OF, errors,
and the triggers' catalog life (transactional, other sessions, restart, DROP ... CASCADE)."""

import json

import pytest

import txlake

from .conftest import run_python


@pytest.fixture
def db(connect):
    conn = connect(autocommit=True)
    conn.execute("CREATE TABLE items (id INT PRIMARY KEY, name TEXT NOT NULL, price INT CHECK (price >= 0), "
                 "updated_at TIMESTAMP)")
    conn.execute("CREATE TABLE audit (op TEXT, id INT, old_name TEXT, new_name TEXT, info TEXT)")
    return conn


def rows(conn, sql, params=()):
    return conn.execute(sql, params).fetchall()


STAMP = """CREATE FUNCTION public.stamp() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  NEW.updated_at := '2024-01-02 03:04:05';
  RETURN NEW;
END $$;"""

AUDIT = """CREATE FUNCTION log_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'DELETE' THEN
    INSERT INTO audit VALUES (TG_OP, OLD.id, OLD.name, NULL, TG_WHEN || ' ' || TG_LEVEL);
    RETURN OLD;
  END IF;
  INSERT INTO audit VALUES (TG_OP, NEW.id, OLD.name, NEW.name,
                            TG_WHEN || ' ' || TG_LEVEL || ' ' || TG_TABLE_SCHEMA || '.' || TG_TABLE_NAME
                            || ' ' || TG_NAME);
  RETURN NEW;
END $$;"""


def test_updated_at_trigger(db):
    db.execute(STAMP)
    db.execute("CREATE TRIGGER items_stamp BEFORE INSERT OR UPDATE ON items FOR EACH ROW EXECUTE FUNCTION stamp()")
    db.execute("INSERT INTO items (id, name, price) VALUES (1, 'a', 1), (2, 'b', 2)")
    db.execute("UPDATE items SET updated_at = NULL WHERE id = 2")  # (the trigger sets it again)
    assert rows(db, "SELECT id, CAST(updated_at AS TEXT) FROM items ORDER BY id") == [
        (1, "2024-01-02 03:04:05"), (2, "2024-01-02 03:04:05")]
    # RETURNING gives the rows as the BEFORE trigger made them
    assert rows(db, "UPDATE items SET name = 'c' WHERE id = ? RETURNING CAST(updated_at AS TEXT)", (1,)) == [
        ("2024-01-02 03:04:05",)]


def test_audit_trigger_after_each_row(db):
    db.execute(AUDIT)
    db.execute("CREATE TRIGGER items_audit AFTER INSERT OR UPDATE OR DELETE ON items "
               "FOR EACH ROW EXECUTE PROCEDURE log_change()")
    db.execute("INSERT INTO items (id, name, price) VALUES (1, 'a', 1), (2, 'b', 2)")
    db.execute("UPDATE items SET name = name || '!' WHERE id = ?", (2,))
    db.execute("DELETE FROM items WHERE id = 1")
    assert rows(db, "SELECT * FROM audit") == [
        ("INSERT", 1, None, "a", "AFTER ROW public.items items_audit"),
        ("INSERT", 2, None, "b", "AFTER ROW public.items items_audit"),
        ("UPDATE", 2, "b", "b!", "AFTER ROW public.items items_audit"),
        ("DELETE", 1, "a", None, "AFTER ROW")]


def test_return_null_skips_the_row(db):
    db.execute("""CREATE FUNCTION no_free() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN IF NEW.price = 0 THEN RETURN NULL; END IF; RETURN NEW; END $$""")
    db.execute("""CREATE FUNCTION keep_b() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN IF OLD.name = 'b' THEN RETURN NULL; END IF; RETURN OLD; END $$""")
    db.execute("CREATE TRIGGER t1 BEFORE INSERT OR UPDATE ON items FOR EACH ROW EXECUTE FUNCTION no_free()")
    db.execute("CREATE TRIGGER t2 BEFORE DELETE ON items FOR EACH ROW EXECUTE FUNCTION keep_b()")
    cur = db.execute("INSERT INTO items (id, name, price) VALUES (1, 'a', 0), (2, 'b', 5), (3, 'c', 6)")
    assert cur.rowcount == 2 and cur.statusmessage == "INSERT 0 2"
    assert db.execute("UPDATE items SET price = price - 5").rowcount == 1  # (b's would be 0: skipped)
    assert rows(db, "SELECT id, price FROM items ORDER BY id") == [(2, 5), (3, 1)]
    assert db.execute("DELETE FROM items RETURNING id").fetchall() == [(3,)]
    assert rows(db, "SELECT id FROM items") == [(2,)]


def test_returned_row_is_checked(db):
    db.execute("""CREATE FUNCTION breaks() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN NEW.price := -1; IF NEW.id = 9 THEN NEW.name := NULL; END IF; RETURN NEW; END $$""")
    db.execute("CREATE TRIGGER t BEFORE INSERT ON items FOR EACH ROW EXECUTE FUNCTION breaks()")
    with pytest.raises(txlake.IntegrityError) as e:
        db.execute("INSERT INTO items (id, name, price) VALUES (1, 'a', 1)")
    assert e.value.sqlstate == "23514"
    with pytest.raises(txlake.IntegrityError) as e:
        db.execute("INSERT INTO items (id, name, price) VALUES (9, 'a', 1)")
    assert e.value.sqlstate == "23502"
    assert rows(db, "SELECT count(*) FROM items") == [(0,)]


def test_when_and_update_of(db):
    db.execute(AUDIT)
    db.execute("CREATE TRIGGER a_changed AFTER UPDATE ON items FOR EACH ROW "
               "WHEN (OLD.* IS DISTINCT FROM NEW.*) EXECUTE FUNCTION log_change()")
    db.execute("CREATE TRIGGER b_price AFTER UPDATE OF price ON items FOR EACH ROW EXECUTE FUNCTION log_change()")
    db.execute("CREATE TRIGGER c_big AFTER INSERT ON items FOR EACH ROW WHEN (NEW.price > 10) "
               "EXECUTE FUNCTION log_change()")
    db.execute("INSERT INTO items (id, name, price) VALUES (1, 'a', 1), (2, 'b', 20)")
    assert rows(db, "SELECT op, id FROM audit") == [("INSERT", 2)]
    db.execute("DELETE FROM audit")
    db.execute("UPDATE items SET name = name")  # nothing changed, price not in SET: neither fires
    assert rows(db, "SELECT count(*) FROM audit") == [(0,)]
    db.execute("UPDATE items SET price = price WHERE id = 1")  # price in SET: UPDATE OF fires, WHEN not
    assert rows(db, "SELECT info FROM audit") == [("AFTER ROW public.items b_price",)]
    db.execute("DELETE FROM audit")
    db.execute("UPDATE items SET name = 'z' WHERE id = 2")
    assert rows(db, "SELECT info FROM audit") == [("AFTER ROW public.items a_changed",)]


def test_statement_triggers_fire_once_even_for_no_rows(db):
    db.execute("CREATE TABLE counts (what TEXT)")
    db.execute("""CREATE FUNCTION count_it() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN INSERT INTO counts VALUES (TG_WHEN || ' ' || TG_OP || ' ' || TG_LEVEL || ' ' || TG_NARGS || ' '
                                         || coalesce(TG_ARGV[0], '-') || coalesce(TG_ARGV[1], '-'));
              RETURN NULL; END $$""")
    db.execute("CREATE TRIGGER s1 BEFORE INSERT OR UPDATE OR DELETE OR TRUNCATE ON items "
               "FOR EACH STATEMENT EXECUTE FUNCTION count_it('x', 7)")
    db.execute("CREATE TRIGGER s2 AFTER UPDATE ON items EXECUTE FUNCTION count_it()")
    db.execute("INSERT INTO items (id, name, price) VALUES (1, 'a', 1), (2, 'b', 2)")
    db.execute("UPDATE items SET price = 3 WHERE id > 100")
    db.execute("TRUNCATE items")
    assert rows(db, "SELECT what FROM counts") == [
        ("BEFORE INSERT STATEMENT 2 x7",), ("BEFORE UPDATE STATEMENT 2 x7",), ("AFTER UPDATE STATEMENT 0 --",),
        ("BEFORE TRUNCATE STATEMENT 2 x7",)]


def test_triggers_fire_in_name_order(db):
    db.execute("BEGIN")  # (in the transaction that creates them too)
    for name, suffix in (("b_second", "2"), ("a_first", "1")):
        db.execute(f"""CREATE FUNCTION add{suffix}() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN NEW.name := NEW.name || '{suffix}'; RETURN NEW; END $$""")
        db.execute(f"CREATE TRIGGER {name} BEFORE INSERT ON items FOR EACH ROW EXECUTE FUNCTION add{suffix}()")
    db.execute("INSERT INTO items (id, name) VALUES (1, 'x')")
    assert rows(db, "SELECT name FROM items") == [("x12",)]
    db.execute("COMMIT")
    db.execute("INSERT INTO items (id, name) VALUES (2, 'y')")
    assert rows(db, "SELECT name FROM items ORDER BY id") == [("x12",), ("y12",)]


def test_the_returned_row_is_written_not_new(db):
    """A BEFORE UPDATE trigger returning OLD keeps the row as it was, whatever it did to NEW."""
    db.execute("""CREATE FUNCTION veto() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN NEW.name := NEW.name || '?'; IF NEW.price < 0 THEN RETURN OLD; END IF; RETURN NEW; END $$""")
    db.execute("CREATE TRIGGER veto BEFORE UPDATE ON items FOR EACH ROW EXECUTE FUNCTION veto()")
    db.execute("INSERT INTO items (id, name, price) VALUES (1, 'a', 1), (2, 'b', 2)")
    assert db.execute("UPDATE items SET price = price - 2").rowcount == 2  # (both written: b's as it was)
    assert rows(db, "SELECT id, name, price FROM items ORDER BY id") == [(1, "a", 1), (2, "b?", 0)]


def test_error_aborts_the_statement(db):
    db.execute(AUDIT)
    db.execute("""CREATE FUNCTION guard() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN IF NEW.price > 100 THEN RAISE EXCEPTION 'too expensive: %', NEW.price USING ERRCODE = '23514';
              END IF; RETURN NEW; END $$""")
    db.execute("CREATE TRIGGER a_log AFTER INSERT ON items FOR EACH ROW EXECUTE FUNCTION log_change()")
    db.execute("CREATE TRIGGER b_guard BEFORE INSERT ON items FOR EACH ROW EXECUTE FUNCTION guard()")
    with pytest.raises(txlake.IntegrityError) as e:
        db.execute("INSERT INTO items (id, name, price) VALUES (1, 'a', 1), (2, 'b', 101)")
    assert e.value.sqlstate == "23514" and str(e.value).startswith("too expensive: 101")
    assert rows(db, "SELECT count(*) FROM items") == [(0,)]
    assert rows(db, "SELECT count(*) FROM audit") == [(0,)]
    # in a block, back to a savepoint: the statement's audit rows go with it
    db.execute("BEGIN")
    db.execute("INSERT INTO items (id, name, price) VALUES (3, 'c', 1)")
    db.execute("SAVEPOINT s")
    with pytest.raises(txlake.IntegrityError):
        db.execute("INSERT INTO items (id, name, price) VALUES (4, 'd', 1), (5, 'e', 500)")
    db.execute("ROLLBACK TO SAVEPOINT s")
    db.execute("COMMIT")
    assert rows(db, "SELECT id FROM items") == [(3,)]
    assert rows(db, "SELECT id FROM audit") == [(3,)]


def test_recursion_ends_with_stack_depth_error(db):
    db.execute("""CREATE FUNCTION again() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN INSERT INTO items (id, name) VALUES (NEW.id + 1, 'r'); RETURN NEW; END $$""")
    db.execute("CREATE TRIGGER again AFTER INSERT ON items FOR EACH ROW EXECUTE FUNCTION again()")
    with pytest.raises(txlake.OperationalError) as e:
        db.execute("INSERT INTO items (id, name) VALUES (1, 'a')")
    assert e.value.sqlstate == "54001"
    assert rows(db, "SELECT count(*) FROM items") == [(0,)]


def test_trigger_function_calls_and_definition_errors(db):
    db.execute(STAMP)
    for sql, state in (("SELECT stamp()", "0A000"),
                       ("CREATE FUNCTION bad() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RETURN NEW END $$",
                        "42601"),
                       ("CREATE FUNCTION args(a int) RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RETURN NEW; END $$",
                        "42P13"),
                       ("CREATE TRIGGER t BEFORE INSERT ON items FOR EACH ROW EXECUTE FUNCTION nothere()", "42883"),
                       ("CREATE TRIGGER t BEFORE INSERT ON items FOR EACH ROW WHEN (OLD.id > 1) "
                        "EXECUTE FUNCTION stamp()", "42P17"),
                       ("CREATE TRIGGER t BEFORE TRUNCATE ON items FOR EACH ROW EXECUTE FUNCTION stamp()", "0A000"),
                       ("CREATE TRIGGER t INSTEAD OF INSERT ON items FOR EACH ROW EXECUTE FUNCTION stamp()", "42809"),
                       ("DROP TRIGGER nothere ON items", "42704")):
        with pytest.raises(txlake.Error) as e:
            db.execute(sql)
        assert e.value.sqlstate == state, sql
    assert str(pytest.raises(txlake.Error, db.execute, "SELECT stamp()").value) == \
        "trigger functions can only be called as triggers"


def test_create_trigger_rolls_back_and_others_see_it_at_commit(connect):
    conn, other = connect(), connect(autocommit=True)
    other.execute("CREATE TABLE items (id INT PRIMARY KEY, name TEXT, price INT, updated_at TIMESTAMP)")
    other.execute(STAMP)
    conn.execute("CREATE TRIGGER s BEFORE INSERT ON items FOR EACH ROW EXECUTE FUNCTION stamp()")
    other.execute("INSERT INTO items (id) VALUES (1)")  # (not committed: no trigger for others yet)
    conn.rollback()
    conn.execute("INSERT INTO items (id) VALUES (2)")
    conn.commit()
    assert rows(other, "SELECT id FROM items WHERE updated_at IS NOT NULL") == []
    conn.execute("CREATE TRIGGER s BEFORE INSERT ON items FOR EACH ROW EXECUTE FUNCTION stamp()")
    conn.commit()
    other.execute("INSERT INTO items (id) VALUES (3)")
    assert rows(other, "SELECT id FROM items WHERE updated_at IS NOT NULL") == [(3,)]


def test_triggers_survive_a_restart(connect, warehouse):
    db = connect(autocommit=True)
    db.execute("CREATE TABLE items (id INT PRIMARY KEY, name TEXT, price INT, updated_at TIMESTAMP)")
    db.execute(STAMP)
    db.execute("CREATE TRIGGER s BEFORE INSERT ON items FOR EACH ROW WHEN (NEW.price IS NOT NULL) "
               "EXECUTE FUNCTION stamp()")
    db.execute("ALTER TABLE items DISABLE TRIGGER s")
    db.execute("ALTER TABLE items ENABLE TRIGGER ALL")
    db.execute("ALTER TRIGGER s ON items RENAME TO stamp_it")
    db.close()
    done = run_python(
        "import json, sys, txlake\n"
        "c = txlake.connect(sys.argv[1], autocommit=True, publish='off')\n"
        "c.execute('INSERT INTO items (id, price) VALUES (1, 5), (2, NULL)')\n"
        "print(json.dumps([list(r) for r in c.execute('SELECT id, updated_at IS NOT NULL FROM items ORDER BY id')"
        ".fetchall()] + [list(r) for r in c.execute('SELECT tgname, tgenabled FROM pg_trigger').fetchall()]))\n",
        warehouse)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == [[1, True], [2, False], ["stamp_it", "O"]]


def test_drop_function_cascade_and_drop_table(db):
    db.execute(STAMP)
    db.execute("CREATE TRIGGER s BEFORE INSERT ON items FOR EACH ROW EXECUTE FUNCTION stamp()")
    with pytest.raises(txlake.Error) as e:
        db.execute("DROP FUNCTION stamp()")
    assert e.value.sqlstate == "2BP01"
    assert "trigger s on table items depends on function stamp()" in str(e.value)
    db.execute("DROP FUNCTION stamp() CASCADE")
    db.execute("INSERT INTO items (id, name) VALUES (1, 'a')")
    assert rows(db, "SELECT updated_at FROM items") == [(None,)]
    assert rows(db, "SELECT count(*) FROM pg_trigger") == [(0,)]
    db.execute(STAMP)
    db.execute("CREATE TRIGGER s BEFORE INSERT ON items FOR EACH ROW EXECUTE FUNCTION stamp()")
    db.execute("DROP TRIGGER IF EXISTS s ON items")
    db.execute("DROP TRIGGER IF EXISTS s ON items")
    db.execute("CREATE TRIGGER s BEFORE INSERT ON items FOR EACH ROW EXECUTE FUNCTION stamp()")
    db.execute("DROP TABLE items")
    db.execute("DROP FUNCTION stamp()")  # (the table took its trigger along)


def test_pg_dump_style_script(db):
    db.execute("DROP TABLE items")
    db.execute("""
        CREATE TABLE public.x (id integer NOT NULL, v text, modified timestamp with time zone);
        CREATE FUNCTION public.touch() RETURNS trigger
            LANGUAGE plpgsql
            AS $$
        BEGIN
            NEW.modified := now();
            RETURN NEW;
        END;
        $$;
        """)
    db.execute("INSERT INTO public.x VALUES (1, 'a', NULL)")
    db.execute("ALTER TABLE ONLY public.x ADD CONSTRAINT x_pkey PRIMARY KEY (id);"
               "CREATE TRIGGER x_touch BEFORE UPDATE ON public.x FOR EACH ROW EXECUTE FUNCTION public.touch();")
    db.execute("UPDATE x SET v = 'b' WHERE id = 1")
    assert rows(db, "SELECT v, modified IS NOT NULL FROM x") == [("b", True)]


def test_merge_audit_trigger(db):
    db.execute(AUDIT)
    db.execute("CREATE TRIGGER a AFTER INSERT OR UPDATE OR DELETE ON items FOR EACH ROW EXECUTE FUNCTION log_change()")
    db.execute("INSERT INTO items (id, name) VALUES (2, 'b')")
    db.execute("MERGE INTO items USING (VALUES (1, 'm'), (2, 'n')) s (id, name) ON items.id = s.id "
               "WHEN MATCHED THEN UPDATE SET name = s.name "
               "WHEN NOT MATCHED THEN INSERT (id, name) VALUES (s.id, s.name)")
    assert rows(db, "SELECT op, id, old_name, new_name FROM audit") == [
        ("INSERT", 2, None, "b"), ("UPDATE", 2, "b", "n"), ("INSERT", 1, None, "m")]


def test_notices_executemany_and_cascaded_deletes(db):
    """RAISE NOTICE reaches the statement's notices; executemany's rows each pass the trigger; a
    foreign key's ON DELETE CASCADE fires the referencing table's DELETE triggers, as PostgreSQL's."""
    db.execute("CREATE TABLE parts (id INT PRIMARY KEY, item INT REFERENCES items ON DELETE CASCADE)")
    db.execute("""CREATE FUNCTION tell() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN RAISE NOTICE '% % of %', TG_OP, COALESCE(NEW.id, OLD.id), TG_TABLE_NAME;
              IF TG_OP = 'INSERT' THEN NEW.name := upper(NEW.name); RETURN NEW; END IF; RETURN OLD; END $$""")
    db.execute("CREATE TRIGGER t BEFORE INSERT ON items FOR EACH ROW EXECUTE FUNCTION tell()")
    db.execute("CREATE TRIGGER t BEFORE DELETE ON parts FOR EACH ROW EXECUTE FUNCTION tell()")
    db.notices.clear()
    db.cursor().executemany("INSERT INTO items (id, name) VALUES (?, ?)", [(1, "a"), (2, "b")])
    assert rows(db, "SELECT name FROM items ORDER BY id") == [("A",), ("B",)]
    db.execute("INSERT INTO parts VALUES (10, 1), (11, 1), (12, 2)")
    db.execute("DELETE FROM items WHERE id = 1")
    assert rows(db, "SELECT id FROM parts") == [(12,)]
    assert db.notices == ["NOTICE:  INSERT 1 of items", "NOTICE:  INSERT 2 of items", "NOTICE:  DELETE 10 of parts",
                          "NOTICE:  DELETE 11 of parts"]


def test_columns_a_trigger_names_follow_renames_and_block_drops(db):
    db.execute(AUDIT)
    db.execute("CREATE TRIGGER a AFTER UPDATE OF price ON items FOR EACH ROW WHEN (NEW.name <> 'skip') "
               "EXECUTE FUNCTION log_change()")
    db.execute("ALTER TABLE items RENAME COLUMN price TO cost")
    db.execute("ALTER TABLE items RENAME COLUMN name TO label")
    assert rows(db, "SELECT pg_get_triggerdef(oid) FROM pg_trigger") == [
        ("CREATE TRIGGER a AFTER UPDATE OF cost ON public.items FOR EACH ROW WHEN (NEW.label <> 'skip') "
         "EXECUTE FUNCTION log_change()",)]
    for column in ("cost", "label"):
        with pytest.raises(txlake.Error) as e:
            db.execute(f"ALTER TABLE items DROP COLUMN {column}")
        assert e.value.sqlstate == "2BP01"
    db.execute("ALTER TABLE items DROP COLUMN cost CASCADE")
    assert rows(db, "SELECT count(*) FROM pg_trigger") == [(0,)]


def test_columns_a_before_trigger_changes_are_checked_as_if_set(db):
    """A BEFORE UPDATE trigger may change a key or foreign key column the SET does not name: the
    row is checked as written (23505, 23503), as PostgreSQL checks the row its trigger returned."""
    db.execute("CREATE TABLE owners (id INT PRIMARY KEY)")
    db.execute("ALTER TABLE items ADD COLUMN owner INT REFERENCES owners")
    db.execute("""CREATE FUNCTION rekey() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN IF NEW.name = 'key' THEN NEW.id := 1; END IF; IF NEW.name = 'fk' THEN NEW.owner := 99; END IF;
              RETURN NEW; END $$""")
    db.execute("CREATE TRIGGER rekey BEFORE UPDATE ON items FOR EACH ROW EXECUTE FUNCTION rekey()")
    db.execute("INSERT INTO items (id, name) VALUES (1, 'a'), (2, 'b')")
    for name, state in (("key", "23505"), ("fk", "23503")):
        with pytest.raises(txlake.IntegrityError) as e:
            db.execute("UPDATE items SET name = ? WHERE id = 2", (name,))
        assert e.value.sqlstate == state
    assert rows(db, "SELECT id, name, owner FROM items ORDER BY id") == [(1, "a", None), (2, "b", None)]


def test_pg_class_and_pg_tables_say_a_table_has_triggers(connect):
    """relhastriggers and pg_tables.hastriggers were false for a table with triggers."""
    c = connect(autocommit=True)
    c.execute("CREATE TABLE t (id int)")
    c.execute("CREATE TABLE u (id int)")
    c.execute("CREATE FUNCTION f() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RETURN NEW; END $$")
    c.execute("CREATE TRIGGER tr BEFORE INSERT ON t FOR EACH ROW EXECUTE FUNCTION f()")
    assert c.execute("SELECT relname, relhastriggers FROM pg_class WHERE relname IN ('t', 'u') ORDER BY 1").fetchall() \
        == [("t", True), ("u", False)]
    assert c.execute("SELECT tablename, hastriggers FROM pg_tables ORDER BY 1").fetchall() == [
        ("t", True), ("u", False)]


def test_exception_blocks_in_autocommit_and_returns_checked_as_a_trigger_functions(connect):
    """Review mends of the merge with PL/pgSQL functions: a trigger function's EXCEPTION block
    was 25P01 (SAVEPOINT outside a transaction block) on an autocommit write; `RETURN;` was
    42804 (PostgreSQL's 42601 missing expression), RETURN NEXT named a DO block, and
    check_function_bodies = off (pg_dump's) did not defer a trigger function's compilation."""
    c = connect(autocommit=True)
    c.execute("CREATE TABLE t (id INT PRIMARY KEY, v INT)")
    c.execute("CREATE TABLE log (m TEXT)")
    c.execute("CREATE FUNCTION trg() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN "
              "BEGIN INSERT INTO log VALUES ('x' || NEW.v); PERFORM 1 / 0; "
              "EXCEPTION WHEN division_by_zero THEN INSERT INTO log VALUES ('caught'); END; RETURN NEW; END $$")
    c.execute("CREATE TRIGGER a BEFORE INSERT ON t FOR EACH ROW EXECUTE FUNCTION trg()")
    c.execute("INSERT INTO t VALUES (1, 10)")
    assert c.execute("SELECT * FROM t").fetchall() == [(1, 10)]
    assert c.execute("SELECT * FROM log").fetchall() == [("caught",)]
    for body, state, message in (("RETURN;", "42601", 'missing expression at or near ";"'),
                                 ("RETURN NEXT NEW;", "42804", "cannot use RETURN NEXT in a non-SETOF function")):
        with pytest.raises(txlake.Error) as e:
            c.execute(f"CREATE FUNCTION bad() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN {body} END $$")
        assert e.value.sqlstate == state and message in str(e.value)
    c.execute("SET check_function_bodies = off")
    c.execute("CREATE FUNCTION later() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN retur NEW; END $$")


# --- INSERT ... ON CONFLICT, COPY FROM, MERGE into tables with triggers ------------------------

TELL = """CREATE FUNCTION tell() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_LEVEL = 'STATEMENT' THEN
    RAISE NOTICE '% % %', TG_WHEN, TG_OP, TG_LEVEL;
    RETURN NULL;
  END IF;
  RAISE NOTICE '% % % old=(%,%) new=(%,%)', TG_WHEN, TG_OP, TG_LEVEL, OLD.id, OLD.name, NEW.id, NEW.name;
  IF TG_OP = 'DELETE' THEN RETURN OLD; END IF;
  RETURN NEW;
END $$"""


def tell_all(conn, events="INSERT OR UPDATE OR DELETE"):
    conn.execute(TELL)
    for timing in ("BEFORE", "AFTER"):
        for level in ("ROW", "STATEMENT"):
            conn.execute(f"CREATE TRIGGER {timing[0].lower()}_{level[0].lower()} {timing} {events} ON items "
                         f"FOR EACH {level} EXECUTE FUNCTION tell()")
    conn.notices.clear()


def told(conn):
    said = [n.removeprefix("NOTICE:  ") for n in conn.notices]
    conn.notices.clear()
    return said


def test_upsert_fires_insert_and_update_triggers_as_postgresql(db):
    """triggers.out "Verify behavior of before and after triggers with INSERT...ON CONFLICT DO
    UPDATE": a BEFORE INSERT trigger's returned row is the one checked for a conflict; a row
    that conflicts fires BEFORE / AFTER UPDATE, not AFTER INSERT; the statement triggers are
    BEFORE INSERT, BEFORE UPDATE, AFTER UPDATE, AFTER INSERT."""
    db.execute("""CREATE FUNCTION odd_key() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN IF NEW.id % 2 = 0 THEN NEW.id := NEW.id + 1; NEW.name := NEW.name || ' trig modified'; END IF;
              RETURN NEW; END $$""")
    db.execute("CREATE TRIGGER a_odd BEFORE INSERT ON items FOR EACH ROW EXECUTE FUNCTION odd_key()")
    tell_all(db)
    upsert = "INSERT INTO items (id, name) VALUES {} ON CONFLICT (id) DO UPDATE SET name = 'updated ' || items.name"
    db.execute(upsert.format("(2, 'red')"))
    assert told(db) == ["BEFORE INSERT STATEMENT", "BEFORE UPDATE STATEMENT",
                        "BEFORE INSERT ROW old=(<NULL>,<NULL>) new=(3,red trig modified)",
                        "AFTER INSERT ROW old=(<NULL>,<NULL>) new=(3,red trig modified)",
                        "AFTER UPDATE STATEMENT", "AFTER INSERT STATEMENT"]
    db.execute(upsert.format("(3, 'orange')"))
    assert told(db) == ["BEFORE INSERT STATEMENT", "BEFORE UPDATE STATEMENT",
                        "BEFORE INSERT ROW old=(<NULL>,<NULL>) new=(3,orange)",
                        "BEFORE UPDATE ROW old=(3,red trig modified) new=(3,updated red trig modified)",
                        "AFTER UPDATE ROW old=(3,red trig modified) new=(3,updated red trig modified)",
                        "AFTER UPDATE STATEMENT", "AFTER INSERT STATEMENT"]
    # the key the BEFORE INSERT trigger gives is the one checked: 4 becomes 5, inserted by the
    # statement already - PostgreSQL's 21000 - and nothing of the statement stays
    with pytest.raises(txlake.Error) as e:
        db.execute(upsert.format("(5, 'new'), (4, 'x')"))
    assert e.value.sqlstate == "21000"
    assert rows(db, "SELECT id, name FROM items ORDER BY id") == [(3, "updated red trig modified")]


def test_upsert_triggers_rows_and_counts(db):
    tell_all(db)
    db.execute("INSERT INTO items (id, name) VALUES (1, 'a'), (2, 'b')")
    told(db)
    cur = db.execute("INSERT INTO items (id, name) VALUES (3, 'c'), (1, 'a2'), (4, 'd') "
                     "ON CONFLICT (id) DO UPDATE SET name = excluded.name RETURNING id, name")
    assert cur.fetchall() == [(3, "c"), (1, "a2"), (4, "d")]
    assert told(db) == [
        "BEFORE INSERT STATEMENT", "BEFORE UPDATE STATEMENT",
        "BEFORE INSERT ROW old=(<NULL>,<NULL>) new=(3,c)", "BEFORE INSERT ROW old=(<NULL>,<NULL>) new=(1,a2)",
        "BEFORE INSERT ROW old=(<NULL>,<NULL>) new=(4,d)", "BEFORE UPDATE ROW old=(1,a) new=(1,a2)",
        "AFTER INSERT ROW old=(<NULL>,<NULL>) new=(3,c)", "AFTER UPDATE ROW old=(1,a) new=(1,a2)",
        "AFTER INSERT ROW old=(<NULL>,<NULL>) new=(4,d)", "AFTER UPDATE STATEMENT", "AFTER INSERT STATEMENT"]
    # DO NOTHING: INSERT's triggers alone, for the rows it inserts; a conflicting row fires no AFTER
    assert db.execute("INSERT INTO items (id, name) VALUES (1, 'x'), (5, 'e') ON CONFLICT DO NOTHING").rowcount == 1
    assert told(db) == [
        "BEFORE INSERT STATEMENT", "BEFORE INSERT ROW old=(<NULL>,<NULL>) new=(1,x)",
        "BEFORE INSERT ROW old=(<NULL>,<NULL>) new=(5,e)", "AFTER INSERT ROW old=(<NULL>,<NULL>) new=(5,e)",
        "AFTER INSERT STATEMENT"]
    # DO UPDATE ... WHERE that leaves the row: no UPDATE row trigger, the statement ones still
    assert db.execute("INSERT INTO items (id, name) VALUES (1, 'y') ON CONFLICT (id) DO UPDATE SET name = 'z' "
                      "WHERE items.name = 'nope'").rowcount == 0
    assert told(db) == ["BEFORE INSERT STATEMENT", "BEFORE UPDATE STATEMENT",
                        "BEFORE INSERT ROW old=(<NULL>,<NULL>) new=(1,y)", "AFTER UPDATE STATEMENT",
                        "AFTER INSERT STATEMENT"]


def test_upsert_before_update_trigger_changes_skips_and_is_checked(db):
    db.execute("INSERT INTO items (id, name, price) VALUES (1, 'a', 1), (2, 'b', 2)")
    db.execute("""CREATE FUNCTION guard() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN IF OLD.name = 'frozen' THEN RETURN NULL; END IF;
              NEW.updated_at := '2024-01-02 03:04:05'; NEW.price := NEW.price - 10; RETURN NEW; END $$""")
    db.execute("CREATE TRIGGER guard BEFORE UPDATE ON items FOR EACH ROW EXECUTE FUNCTION guard()")
    db.execute("UPDATE items SET name = 'frozen', price = 50 WHERE id = 2")
    # the SET's rows go through the trigger; a row it skips is neither written nor counted
    cur = db.execute("INSERT INTO items (id, name, price) VALUES (1, 'a', 20), (2, 'b', 20) "
                     "ON CONFLICT (id) DO UPDATE SET price = excluded.price")
    assert cur.rowcount == 1
    assert rows(db, "SELECT id, name, price, CAST(updated_at AS TEXT) FROM items ORDER BY id") == [
        (1, "a", 10, "2024-01-02 03:04:05"), (2, "frozen", 40, "2024-01-02 03:04:05")]
    # the row the trigger leaves is checked (CHECK price >= 0: 5 - 10 breaks it), and nothing stays
    with pytest.raises(txlake.IntegrityError) as e:
        db.execute("INSERT INTO items (id, name, price) VALUES (1, 'a', 5) "
                   "ON CONFLICT (id) DO UPDATE SET price = excluded.price")
    assert e.value.sqlstate == "23514"
    assert rows(db, "SELECT price FROM items WHERE id = 1") == [(10,)]


def test_upsert_trigger_changing_the_key_is_checked(db):
    db.execute("INSERT INTO items (id, name) VALUES (1, 'a'), (2, 'b')")
    db.execute("""CREATE FUNCTION rekey() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN NEW.id := NEW.id + 1; RETURN NEW; END $$""")
    db.execute("CREATE TRIGGER rekey BEFORE UPDATE ON items FOR EACH ROW EXECUTE FUNCTION rekey()")
    with pytest.raises(txlake.IntegrityError) as e:
        db.execute("INSERT INTO items (id, name) VALUES (1, 'x') ON CONFLICT (id) DO UPDATE SET name = excluded.name")
    assert e.value.sqlstate == "23505"
    db.execute("INSERT INTO items (id, name) VALUES (2, 'y') ON CONFLICT (id) DO UPDATE SET name = excluded.name")
    assert rows(db, "SELECT id, name FROM items ORDER BY id") == [(1, "a"), (3, "y")]


def test_update_of_statement_triggers_fire_for_their_columns(db):
    """triggers.out: ``UPDATE main_table SET b = 10`` does not fire a BEFORE UPDATE OF a FOR EACH
    STATEMENT trigger; an upsert's SET counts as an UPDATE's."""
    db.execute(TELL)
    db.execute("CREATE TRIGGER of_price BEFORE UPDATE OF price ON items FOR EACH STATEMENT EXECUTE FUNCTION tell()")
    db.execute("INSERT INTO items (id, name) VALUES (1, 'a')")
    db.notices.clear()
    db.execute("UPDATE items SET name = 'b'")
    db.execute("INSERT INTO items (id, name) VALUES (1, 'c') ON CONFLICT (id) DO UPDATE SET name = excluded.name")
    assert told(db) == []
    db.execute("UPDATE items SET price = 1")
    db.execute("INSERT INTO items (id, name) VALUES (1, 'c') ON CONFLICT (id) DO UPDATE SET price = 2")
    assert told(db) == ["BEFORE UPDATE STATEMENT", "BEFORE UPDATE STATEMENT"]


def test_copy_from_fires_insert_triggers(db, tmp_path):
    """triggers.out: "COPY should fire per-row and per-statement INSERT triggers" - BEFORE
    STATEMENT, the BEFORE ROW triggers (their rows written, RETURN NULL skipping one, not
    counted), then the AFTER ROW ones for the rows written and AFTER STATEMENT."""
    db.execute(STAMP)
    tell_all(db, "INSERT")
    db.execute("""CREATE FUNCTION no_free() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN IF NEW.price = 0 THEN RETURN NULL; END IF; RETURN NEW; END $$""")
    db.execute("CREATE TRIGGER a_free BEFORE INSERT ON items FOR EACH ROW EXECUTE FUNCTION no_free()")
    db.execute("CREATE TRIGGER a_stamp BEFORE INSERT ON items FOR EACH ROW EXECUTE FUNCTION stamp()")
    path = tmp_path / "items.csv"
    path.write_text("1,a,5\n2,b,0\n3,c,7\n")
    db.notices.clear()
    cur = db.execute(f"COPY items (id, name, price) FROM '{path}' (FORMAT csv)")
    assert cur.rowcount == 2
    assert told(db) == ["BEFORE INSERT STATEMENT", "BEFORE INSERT ROW old=(<NULL>,<NULL>) new=(1,a)",
                        "BEFORE INSERT ROW old=(<NULL>,<NULL>) new=(3,c)",
                        "AFTER INSERT ROW old=(<NULL>,<NULL>) new=(1,a)",
                        "AFTER INSERT ROW old=(<NULL>,<NULL>) new=(3,c)", "AFTER INSERT STATEMENT"]
    assert rows(db, "SELECT id, CAST(updated_at AS TEXT) FROM items ORDER BY id") == [
        (1, "2024-01-02 03:04:05"), (3, "2024-01-02 03:04:05")]
    # a trigger's error fails the COPY: no row of it stays
    db.execute("""CREATE FUNCTION no_z() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN IF NEW.name = 'z' THEN RAISE EXCEPTION 'no z' USING ERRCODE = '22023'; END IF; RETURN NEW; END $$""")
    db.execute("CREATE TRIGGER z AFTER INSERT ON items FOR EACH ROW EXECUTE FUNCTION no_z()")
    path.write_text("4,d,1\n5,z,1\n")
    with pytest.raises(txlake.Error) as e:
        db.execute(f"COPY items (id, name, price) FROM '{path}' (FORMAT csv)")
    assert e.value.sqlstate == "22023"
    assert rows(db, "SELECT id FROM items ORDER BY id") == [(1,), (3,)]


MERGE_TELL = """CREATE FUNCTION merge_tell() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_LEVEL = 'STATEMENT' THEN
    RAISE NOTICE '% % STATEMENT trigger', TG_WHEN, TG_OP;
  ELSIF TG_OP = 'INSERT' THEN
    RAISE NOTICE '% INSERT ROW trigger row: (%,%)', TG_WHEN, NEW.tid, NEW.balance;
  ELSIF TG_OP = 'UPDATE' THEN
    RAISE NOTICE '% UPDATE ROW trigger row: (%,%) -> (%,%)', TG_WHEN, OLD.tid, OLD.balance, NEW.tid, NEW.balance;
  ELSE
    RAISE NOTICE '% DELETE ROW trigger row: (%,%)', TG_WHEN, OLD.tid, OLD.balance;
  END IF;
  IF TG_WHEN = 'BEFORE' AND TG_LEVEL = 'ROW' THEN
    IF TG_OP = 'DELETE' THEN RETURN OLD; END IF;
    RETURN NEW;
  END IF;
  RETURN NULL;
END $$"""


@pytest.fixture
def merging(connect):
    """merge.out's "test triggers": target and source, and a trigger of each kind on target."""
    conn = connect(autocommit=True)
    conn.execute("CREATE TABLE target (tid INT PRIMARY KEY, balance INT)")
    conn.execute("CREATE TABLE source (sid INT, delta INT)")
    conn.execute("INSERT INTO target VALUES (1, 10), (2, 20), (3, 30)")
    conn.execute("INSERT INTO source VALUES (2, 5), (3, 20), (4, 40)")
    conn.execute(MERGE_TELL)
    for timing in ("BEFORE", "AFTER"):
        for event in ("INSERT", "UPDATE", "DELETE"):
            for level in ("STATEMENT", "ROW"):
                conn.execute(f"CREATE TRIGGER merge_{timing[0]}{level[0]}{event[0]} {timing} {event} ON target "
                             f"FOR EACH {level} EXECUTE FUNCTION merge_tell()")
    return conn


def test_merge_fires_the_triggers_of_its_actions_as_postgresql(merging):
    """merge.out "now the classic UPSERT, with a DELETE": the statement triggers of each action
    named (BEFORE: INSERT, UPDATE, DELETE; AFTER: DELETE, UPDATE, INSERT), the row triggers of
    the action each row takes."""
    merging.execute("UPDATE target SET balance = 0 WHERE tid = 3")
    merging.notices.clear()
    cur = merging.execute("MERGE INTO target t USING source AS s ON t.tid = s.sid "
                          "WHEN MATCHED AND t.balance > s.delta THEN UPDATE SET balance = t.balance - s.delta "
                          "WHEN MATCHED THEN DELETE "
                          "WHEN NOT MATCHED THEN INSERT VALUES (s.sid, s.delta)")
    assert cur.rowcount == 3
    assert told(merging) == [
        "BEFORE INSERT STATEMENT trigger", "BEFORE UPDATE STATEMENT trigger", "BEFORE DELETE STATEMENT trigger",
        "BEFORE UPDATE ROW trigger row: (2,20) -> (2,15)", "BEFORE DELETE ROW trigger row: (3,0)",
        "BEFORE INSERT ROW trigger row: (4,40)",
        "AFTER UPDATE ROW trigger row: (2,20) -> (2,15)", "AFTER DELETE ROW trigger row: (3,0)",
        "AFTER INSERT ROW trigger row: (4,40)",
        "AFTER DELETE STATEMENT trigger", "AFTER UPDATE STATEMENT trigger", "AFTER INSERT STATEMENT trigger"]
    assert rows(merging, "SELECT * FROM target ORDER BY tid") == [(1, 10), (2, 15), (4, 40)]
    # an action named but taken by no row still fires its statement triggers
    merging.execute("MERGE INTO target t USING (SELECT 9 AS sid, 57 AS delta) AS s ON t.tid = s.sid "
                    "WHEN MATCHED THEN DELETE WHEN NOT MATCHED THEN INSERT (tid, balance) VALUES (s.sid, s.delta)")
    assert told(merging) == [
        "BEFORE INSERT STATEMENT trigger", "BEFORE DELETE STATEMENT trigger",
        "BEFORE INSERT ROW trigger row: (9,57)", "AFTER INSERT ROW trigger row: (9,57)",
        "AFTER DELETE STATEMENT trigger", "AFTER INSERT STATEMENT trigger"]


def test_merge_rows_a_before_trigger_skips_are_left_and_not_counted(merging):
    """merge.out "Test behavior of triggers that turn UPDATE/DELETE into no-ops"."""
    merging.execute("CREATE FUNCTION skip_merge_op() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RETURN NULL; END $$")
    merging.execute("CREATE TRIGGER merge_skip BEFORE INSERT OR UPDATE OR DELETE ON target "
                    "FOR EACH ROW EXECUTE FUNCTION skip_merge_op()")
    merging.notices.clear()
    cur = merging.execute("MERGE INTO target t USING source AS s ON t.tid = s.sid "
                          "WHEN MATCHED AND s.sid = 3 THEN UPDATE SET balance = t.balance + s.delta "
                          "WHEN MATCHED THEN DELETE WHEN NOT MATCHED THEN INSERT VALUES (sid, delta) "
                          "RETURNING merge_action(), t.tid")
    assert cur.fetchall() == [] and cur.rowcount == 0
    assert told(merging) == [
        "BEFORE INSERT STATEMENT trigger", "BEFORE UPDATE STATEMENT trigger", "BEFORE DELETE STATEMENT trigger",
        "BEFORE DELETE ROW trigger row: (2,20)", "BEFORE UPDATE ROW trigger row: (3,30) -> (3,50)",
        "BEFORE INSERT ROW trigger row: (4,40)",
        "AFTER DELETE STATEMENT trigger", "AFTER UPDATE STATEMENT trigger", "AFTER INSERT STATEMENT trigger"]
    assert rows(merging, "SELECT * FROM target ORDER BY tid") == [(1, 10), (2, 20), (3, 30)]


def test_merge_before_update_trigger_rows_are_written_and_checked(merging):
    merging.execute("""CREATE FUNCTION double_it() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN NEW.balance := NEW.balance * 2; IF NEW.tid = 2 THEN NEW.tid := 1; END IF; RETURN NEW; END $$""")
    merging.execute("CREATE TRIGGER a_double BEFORE UPDATE ON target FOR EACH ROW EXECUTE FUNCTION double_it()")
    cur = merging.execute("MERGE INTO target t USING source AS s ON t.tid = s.sid AND s.sid = 3 "
                          "WHEN MATCHED THEN UPDATE SET balance = t.balance + s.delta RETURNING t.*")
    assert cur.fetchall() == [(3, 100)]
    # the key the trigger gives is checked as if SET: 23505, and nothing of the MERGE stays
    with pytest.raises(txlake.IntegrityError) as e:
        merging.execute("MERGE INTO target t USING source AS s ON t.tid = s.sid "
                        "WHEN MATCHED THEN UPDATE SET balance = 0")
    assert e.value.sqlstate == "23505"
    assert rows(merging, "SELECT * FROM target ORDER BY tid") == [(1, 10), (2, 20), (3, 100)]


# --- BEFORE ROW triggers writing to their own table -------------------------------------------

@pytest.fixture
def parent_child(connect):
    """triggers.out "Test updates to rows during firing of BEFORE ROW triggers" (bug #6123)."""
    conn = connect(autocommit=True)
    conn.execute("CREATE TABLE parent (aid INT PRIMARY KEY, val1 TEXT, val2 TEXT, bcnt INT NOT NULL DEFAULT 0)")
    conn.execute("CREATE TABLE child (bid INT PRIMARY KEY, aid INT NOT NULL, val1 TEXT)")
    conn.execute("""CREATE FUNCTION parent_upd_func() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN IF old.val1 <> new.val1 THEN
                new.val2 = new.val1;
                DELETE FROM child WHERE child.aid = new.aid AND child.val1 = new.val1;
              END IF;
              RETURN new; END $$""")
    conn.execute("CREATE TRIGGER parent_upd_trig BEFORE UPDATE ON parent FOR EACH ROW "
                 "EXECUTE FUNCTION parent_upd_func()")
    conn.execute("""CREATE FUNCTION parent_del_func() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN DELETE FROM child WHERE aid = old.aid; RETURN old; END $$""")
    conn.execute("CREATE TRIGGER parent_del_trig BEFORE DELETE ON parent FOR EACH ROW "
                 "EXECUTE FUNCTION parent_del_func()")
    conn.execute("""CREATE FUNCTION child_ins_func() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN UPDATE parent SET bcnt = bcnt + 1 WHERE aid = new.aid; RETURN new; END $$""")
    conn.execute("CREATE TRIGGER child_ins_trig AFTER INSERT ON child FOR EACH ROW EXECUTE FUNCTION child_ins_func()")
    conn.execute("""CREATE FUNCTION child_del_func() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN UPDATE parent SET bcnt = bcnt - 1 WHERE aid = old.aid; RETURN old; END $$""")
    conn.execute("CREATE TRIGGER child_del_trig AFTER DELETE ON child FOR EACH ROW EXECUTE FUNCTION child_del_func()")
    conn.execute("INSERT INTO parent VALUES (1, 'a', 'a', 0)")
    conn.execute("INSERT INTO child VALUES (10, 1, 'b')")
    return conn


def test_a_row_its_own_before_trigger_changed_is_27000(parent_child):
    conn = parent_child
    assert rows(conn, "SELECT * FROM parent") == [(1, "a", "a", 1)]
    for sql, what in (("UPDATE parent SET val1 = 'b' WHERE aid = 1", "updated"),
                      ("MERGE INTO parent p USING (VALUES (1)) AS v(id) ON p.aid = v.id "
                       "WHEN MATCHED THEN UPDATE SET val1 = 'b'", "updated or deleted"),
                      ("DELETE FROM parent WHERE aid = 1", "deleted"),
                      ("MERGE INTO parent p USING (VALUES (1)) AS v(id) ON p.aid = v.id "
                       "WHEN MATCHED THEN DELETE", "updated or deleted")):
        with pytest.raises(txlake.OperationalError) as e:
            conn.execute(sql)
        assert e.value.sqlstate == "27000"
        assert str(e.value) == (f"tuple to be {what} was already modified by an operation triggered by the current "
                                "command\nHINT:  Consider using an AFTER trigger instead of a BEFORE trigger to "
                                "propagate changes to other rows.")
        assert rows(conn, "SELECT * FROM parent") == [(1, "a", "a", 1)]
        assert rows(conn, "SELECT * FROM child") == [(10, 1, "b")]
    # a trigger that does the deletion itself and cancels the outer one: fine
    conn.execute("""CREATE OR REPLACE FUNCTION parent_del_func() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN DELETE FROM child WHERE aid = old.aid;
              IF FOUND THEN DELETE FROM parent WHERE aid = old.aid; RETURN NULL; END IF;
              RETURN old; END $$""")
    assert conn.execute("DELETE FROM parent WHERE aid = 1").rowcount == 0
    assert rows(conn, "SELECT * FROM parent") == [] and rows(conn, "SELECT * FROM child") == []


def test_a_row_a_trigger_changed_before_the_statement_came_to_it_is_27000(connect):
    """triggers.out's self_ref_trigger: deleting every row, a BEFORE DELETE trigger updates the
    parent row, which the DELETE then comes to."""
    conn = connect(autocommit=True)
    conn.execute("CREATE TABLE self_ref (id INT PRIMARY KEY, parent INT, data TEXT, nchildren INT NOT NULL DEFAULT 0)")
    conn.execute("""CREATE FUNCTION self_ref_ins_func() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN IF new.parent IS NOT NULL THEN
                UPDATE self_ref SET nchildren = nchildren + 1 WHERE id = new.parent;
              END IF; RETURN new; END $$""")
    conn.execute("CREATE TRIGGER ins BEFORE INSERT ON self_ref FOR EACH ROW EXECUTE FUNCTION self_ref_ins_func()")
    conn.execute("""CREATE FUNCTION self_ref_del_func() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN IF old.parent IS NOT NULL THEN
                UPDATE self_ref SET nchildren = nchildren - 1 WHERE id = old.parent;
              END IF; RETURN old; END $$""")
    conn.execute("CREATE TRIGGER del BEFORE DELETE ON self_ref FOR EACH ROW EXECUTE FUNCTION self_ref_del_func()")
    for values in ("(1, NULL, 'root')", "(2, 1, 'root child A')", "(3, 1, 'root child B')", "(4, 2, 'grandchild 1')",
                   "(5, 3, 'grandchild 2')"):
        conn.execute(f"INSERT INTO self_ref VALUES {values}")
    conn.execute("UPDATE self_ref SET data = 'root!' WHERE id = 1")  # (its new row comes last, as in PostgreSQL)
    before = rows(conn, "SELECT id, nchildren FROM self_ref ORDER BY id")
    assert before == [(1, 2), (2, 1), (3, 1), (4, 0), (5, 0)]
    with pytest.raises(txlake.OperationalError) as e:  # (row 2's trigger updates row 1, which comes later)
        conn.execute("DELETE FROM self_ref")
    assert e.value.sqlstate == "27000" and str(e.value).startswith("tuple to be updated was already modified")
    assert rows(conn, "SELECT id, nchildren FROM self_ref ORDER BY id") == before
    # rows the statement does not change are the trigger's to change: a leaf's delete updates its parent
    assert conn.execute("DELETE FROM self_ref WHERE id IN (4, 5)").rowcount == 2
    assert rows(conn, "SELECT id, nchildren FROM self_ref ORDER BY id") == [(1, 2), (2, 0), (3, 0)]


def test_before_triggers_writing_other_rows_of_their_table(db):
    """A BEFORE UPDATE trigger keeping history rows in its own table, and one moving a counter
    on another row: their writes and the statement's both stay."""
    db.execute("""CREATE FUNCTION keep_old() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN IF OLD.id < 100 THEN INSERT INTO items (id, name, price) VALUES (OLD.id + 100, OLD.name, OLD.price);
              END IF; RETURN NEW; END $$""")
    db.execute("CREATE TRIGGER keep_old BEFORE UPDATE ON items FOR EACH ROW EXECUTE FUNCTION keep_old()")
    db.execute("INSERT INTO items (id, name, price) VALUES (1, 'a', 1), (2, 'b', 2)")
    cur = db.execute("UPDATE items SET price = price * 10 WHERE id < 100 RETURNING id, price")
    assert cur.fetchall() == [(1, 10), (2, 20)]
    assert rows(db, "SELECT id, name, price FROM items ORDER BY id") == [
        (1, "a", 10), (2, "b", 20), (101, "a", 1), (102, "b", 2)]
    # a row the statement changed before a later row's trigger changes it: refused, nothing stays
    db.execute("""CREATE FUNCTION bump_first() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN IF OLD.id = 102 THEN UPDATE items SET price = price + 1 WHERE id = 101; END IF; RETURN OLD; END $$""")
    db.execute("CREATE TRIGGER bump BEFORE DELETE ON items FOR EACH ROW EXECUTE FUNCTION bump_first()")
    with pytest.raises(txlake.NotSupportedError):
        db.execute("DELETE FROM items WHERE id > 100")
    assert db.execute("DELETE FROM items WHERE id = 102").rowcount == 1
    assert rows(db, "SELECT id, price FROM items WHERE id > 100") == [(101, 2)]


# --- transition tables (REFERENCING) -----------------------------------------------------------

SUMMARY = """CREATE FUNCTION summary() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE c bigint;
BEGIN
  IF TG_OP = 'INSERT' THEN
    INSERT INTO audit (op, id, info) SELECT 'INSERT', count(*), string_agg(name, ',' ORDER BY id) FROM newtab;
  ELSIF TG_OP = 'UPDATE' THEN
    INSERT INTO audit (op, id, info)
      SELECT 'UPDATE', count(*), string_agg(o.name || '>' || n.name, ',' ORDER BY n.id)
      FROM newtab n JOIN oldtab o ON n.id = o.id;
  ELSE
    SELECT count(*) INTO c FROM oldtab;
    INSERT INTO audit (op, id) VALUES ('DELETE', c);
  END IF;
  RETURN NULL;
END $$"""


def test_transition_tables_of_statement_triggers(db, tmp_path):
    """REFERENCING OLD TABLE / NEW TABLE: an AFTER STATEMENT trigger reads the rows its statement
    changed - as they were and became - for INSERT, UPDATE, DELETE, upserts, MERGE and COPY."""
    db.execute(SUMMARY)
    db.execute("CREATE TRIGGER ti AFTER INSERT ON items REFERENCING NEW TABLE AS newtab "
               "FOR EACH STATEMENT EXECUTE FUNCTION summary()")
    db.execute("CREATE TRIGGER tu AFTER UPDATE ON items REFERENCING OLD TABLE AS oldtab NEW TABLE AS newtab "
               "FOR EACH STATEMENT EXECUTE FUNCTION summary()")
    db.execute("CREATE TRIGGER td AFTER DELETE ON items REFERENCING OLD TABLE oldtab "
               "FOR EACH STATEMENT EXECUTE FUNCTION summary()")
    db.execute("INSERT INTO items (id, name) VALUES (1, 'a'), (2, 'b'), (3, 'c')")
    db.execute("UPDATE items SET name = upper(name) WHERE id < 3")
    db.execute("DELETE FROM items WHERE id = 3")
    db.execute("UPDATE items SET name = 'x' WHERE id > 100")  # (no row: empty tables)
    db.execute("INSERT INTO items (id, name) VALUES (1, 'a1'), (4, 'd') ON CONFLICT (id) DO UPDATE "
               "SET name = excluded.name")
    db.execute("MERGE INTO items USING (VALUES (2, 'b2'), (5, 'e')) s (id, name) ON items.id = s.id "
               "WHEN MATCHED THEN UPDATE SET name = s.name "
               "WHEN NOT MATCHED THEN INSERT (id, name) VALUES (s.id, s.name)")
    path = tmp_path / "items.csv"
    path.write_text("6,f\n7,g\n")
    db.execute(f"COPY items (id, name) FROM '{path}' (FORMAT csv)")
    assert rows(db, "SELECT op, id, info FROM audit") == [
        ("INSERT", 3, "a,b,c"), ("UPDATE", 2, "a>A,b>B"), ("DELETE", 1, None), ("UPDATE", 0, None),
        ("UPDATE", 1, "A>a1"), ("INSERT", 1, "d"), ("UPDATE", 1, "B>b2"), ("INSERT", 1, "e"), ("INSERT", 2, "f,g")]
    # the names are the trigger's own: a statement of no trigger does not know them
    with pytest.raises(txlake.ProgrammingError) as e:
        db.execute("SELECT * FROM newtab")
    assert e.value.sqlstate == "42P01"
    assert rows(db, "SELECT trigger_name, action_reference_old_table, action_reference_new_table "
                    "FROM information_schema.triggers ORDER BY 1") == [
        ("td", "oldtab", None), ("ti", None, "newtab"), ("tu", "oldtab", "newtab")]
    assert rows(db, "SELECT pg_get_triggerdef(oid) FROM pg_trigger WHERE tgname = 'tu'") == [(
        "CREATE TRIGGER tu AFTER UPDATE ON public.items REFERENCING OLD TABLE AS oldtab NEW TABLE AS newtab "
        "FOR EACH STATEMENT EXECUTE FUNCTION summary()",)]


def test_transition_tables_postgresql_refuses(db):
    """commands/trigger.c's refusals of REFERENCING."""
    db.execute(SUMMARY)
    for clause, state in (("BEFORE INSERT ON items REFERENCING NEW TABLE AS n", "42P17"),
                          ("AFTER INSERT OR UPDATE ON items REFERENCING NEW TABLE AS n", "0A000"),
                          ("AFTER UPDATE OF name ON items REFERENCING NEW TABLE AS n", "0A000"),
                          ("AFTER INSERT ON items REFERENCING OLD TABLE AS o", "42P17"),
                          ("AFTER DELETE ON items REFERENCING NEW TABLE AS n", "42P17"),
                          ("AFTER UPDATE ON items REFERENCING OLD TABLE AS x NEW TABLE AS x", "42P17"),
                          ("AFTER UPDATE ON items REFERENCING NEW TABLE AS x NEW TABLE AS y", "42601"),
                          ("AFTER UPDATE ON items REFERENCING NEW ROW AS r", "0A000"),
                          ("AFTER TRUNCATE ON items REFERENCING OLD TABLE AS o", "0A000")):
        with pytest.raises(txlake.Error) as e:
            db.execute(f"CREATE TRIGGER t {clause} FOR EACH STATEMENT EXECUTE FUNCTION summary()")
        assert e.value.sqlstate == state, clause


def test_transition_tables_survive_a_restart(connect, warehouse):
    db = connect(autocommit=True)
    db.execute("CREATE TABLE items (id INT PRIMARY KEY, name TEXT, price INT, updated_at TIMESTAMP)")
    db.execute("CREATE TABLE audit (op TEXT, id INT, old_name TEXT, new_name TEXT, info TEXT)")
    db.execute(SUMMARY)
    db.execute("CREATE TRIGGER ti AFTER INSERT ON items REFERENCING NEW TABLE AS newtab "
               "FOR EACH STATEMENT EXECUTE FUNCTION summary()")
    db.close()
    done = run_python(
        "import json, sys, txlake\n"
        "c = txlake.connect(sys.argv[1], autocommit=True, publish='off')\n"
        "c.execute(\"INSERT INTO items (id, name) VALUES (1, 'a'), (2, 'b')\")\n"
        "print(json.dumps([list(r) for r in c.execute('SELECT op, id, info FROM audit').fetchall()]))\n",
        warehouse)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == [["INSERT", 2, "a,b"]]


# --- INSTEAD OF triggers: views written through their functions ---------------------------------

@pytest.fixture
def view_db(db):
    db.execute("CREATE VIEW shown AS SELECT id, upper(name) AS uname, price FROM items")
    db.execute("""CREATE FUNCTION shown_write() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
          RAISE NOTICE '% % % old=% new=%', TG_WHEN, TG_OP, TG_LEVEL, OLD.id, NEW.id;
          IF TG_OP = 'INSERT' THEN
            IF NEW.price < 0 THEN RETURN NULL; END IF;
            INSERT INTO items (id, name, price) VALUES (NEW.id, lower(NEW.uname), NEW.price);
            RETURN NEW;
          ELSIF TG_OP = 'UPDATE' THEN
            UPDATE items SET name = lower(NEW.uname), price = NEW.price WHERE id = OLD.id;
            RETURN NEW;
          END IF;
          DELETE FROM items WHERE id = OLD.id;
          RETURN OLD;
        END $$""")
    db.execute("CREATE TRIGGER shown_write INSTEAD OF INSERT OR UPDATE OR DELETE ON shown "
               "FOR EACH ROW EXECUTE FUNCTION shown_write()")
    db.notices.clear()
    return db


def test_instead_of_triggers_make_a_view_writable(view_db):
    """PostgreSQL's INSTEAD OF row triggers (trigger.sgml): the view's rows a write names go
    through them, which do the write; a NULL one is not counted; RETURNING gives their rows."""
    db = view_db
    cur = db.execute("INSERT INTO shown VALUES (1, 'A', 5), (2, 'B', 6), (3, 'C', -1) RETURNING uname, price")
    assert cur.fetchall() == [("A", 5), ("B", 6)] and cur.rowcount == 2
    assert told(db) == ["INSTEAD OF INSERT ROW old=<NULL> new=1", "INSTEAD OF INSERT ROW old=<NULL> new=2",
                        "INSTEAD OF INSERT ROW old=<NULL> new=3"]
    assert rows(db, "SELECT id, name, price FROM items ORDER BY id") == [(1, "a", 5), (2, "b", 6)]
    cur = db.execute("UPDATE shown SET price = price + ?, uname = ? WHERE id = ? RETURNING uname, price", (10, "Z", 2))
    assert cur.fetchall() == [("Z", 16)] and told(db) == ["INSTEAD OF UPDATE ROW old=2 new=2"]
    assert db.execute("DELETE FROM shown WHERE uname = 'A'").rowcount == 1
    assert rows(db, "SELECT id, name, price FROM items ORDER BY id") == [(2, "z", 16)]
    assert rows(db, "SELECT tgname, tgtype FROM pg_trigger") == [("shown_write", 93)]
    # in a block that fails, nothing of it stays
    db.execute("BEGIN")
    db.execute("INSERT INTO shown VALUES (7, 'Q', 1)")
    db.execute("ROLLBACK")
    assert rows(db, "SELECT id FROM items") == [(2,)]


def test_instead_of_trigger_refusals(view_db):
    db = view_db
    db.execute("CREATE VIEW plain AS SELECT id FROM items")
    for sql, state in (("CREATE TRIGGER x BEFORE INSERT ON shown FOR EACH ROW EXECUTE FUNCTION shown_write()",
                        "42809"),
                       ("CREATE TRIGGER x INSTEAD OF INSERT ON items FOR EACH ROW EXECUTE FUNCTION shown_write()",
                        "42809"),
                       ("CREATE TRIGGER x INSTEAD OF INSERT ON shown EXECUTE FUNCTION shown_write()", "0A000"),
                       ("CREATE TRIGGER x INSTEAD OF UPDATE OF price ON shown FOR EACH ROW "
                        "EXECUTE FUNCTION shown_write()", "0A000"),
                       ("CREATE TRIGGER x INSTEAD OF INSERT ON shown FOR EACH ROW WHEN (NEW.id > 1) "
                        "EXECUTE FUNCTION shown_write()", "0A000"),
                       ("INSERT INTO plain VALUES (1)", "55000"),
                       ("UPDATE shown SET price = 1 FROM items WHERE items.id = shown.id", "0A000")):
        with pytest.raises(txlake.Error) as e:
            db.execute(sql)
        assert e.value.sqlstate == state, sql
    db.execute("DROP TRIGGER shown_write ON shown")
    with pytest.raises(txlake.Error) as e:
        db.execute("INSERT INTO shown VALUES (1, 'A', 5)")
    assert e.value.sqlstate == "55000"


def test_before_statement_triggers_writing_their_own_table(db):
    """A BEFORE STATEMENT trigger's rows stay, unseen by its statement (whose snapshot was taken
    before, as PostgreSQL's); a row of the statement's it changed is 27000."""
    db.execute("INSERT INTO items (id, name, price) VALUES (1, 'a', 1)")
    db.execute("""CREATE FUNCTION add_row() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN INSERT INTO items (id, name, price) SELECT max(id) + 100, 'added', 0 FROM items; RETURN NULL; END $$""")
    db.execute("CREATE TRIGGER add_row BEFORE UPDATE OR DELETE ON items FOR EACH STATEMENT EXECUTE FUNCTION add_row()")
    assert db.execute("UPDATE items SET price = price + 1").rowcount == 1
    assert rows(db, "SELECT id, price FROM items ORDER BY id") == [(1, 2), (101, 0)]
    assert db.execute("DELETE FROM items WHERE id = 1").rowcount == 1
    assert rows(db, "SELECT id, price FROM items ORDER BY id") == [(101, 0), (201, 0)]
    assert db.execute("MERGE INTO items USING (VALUES (101)) s (id) ON items.id = s.id "
                      "WHEN MATCHED THEN UPDATE SET price = 7").rowcount == 1
    assert rows(db, "SELECT id, price FROM items ORDER BY id") == [(101, 7), (201, 0), (301, 0)]
    db.execute("DROP TRIGGER add_row ON items")
    db.execute("""CREATE FUNCTION touch() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN IF TG_OP = 'DELETE' THEN UPDATE items SET name = 'touched' WHERE id = 101;
              ELSE DELETE FROM items WHERE id = 201; END IF; RETURN NULL; END $$""")
    for event, sql, what in (("UPDATE", "UPDATE items SET price = 0 WHERE id = 201", "updated"),
                             ("DELETE", "DELETE FROM items WHERE id = 101", "deleted")):
        db.execute(f"CREATE TRIGGER touch BEFORE {event} ON items FOR EACH STATEMENT EXECUTE FUNCTION touch()")
        with pytest.raises(txlake.OperationalError) as e:
            db.execute(sql)
        db.execute("DROP TRIGGER touch ON items")
        assert e.value.sqlstate == "27000" and str(e.value).startswith(f"tuple to be {what} was already modified")
    assert rows(db, "SELECT id, name, price FROM items ORDER BY id") == [(101, "added", 7), (201, "added", 0),
                                                                          (301, "added", 0)]


def test_return_coalesce_of_new_and_old(db):
    """RETURN COALESCE(NEW, OLD) - one function for a BEFORE INSERT OR UPDATE OR DELETE trigger -
    was 0A000: it returns the first of them that is not NULL, as PostgreSQL's."""
    db.execute("CREATE FUNCTION either() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN "
               "INSERT INTO audit (op, id) VALUES (TG_OP, COALESCE(NEW.id, OLD.id)); RETURN COALESCE(NEW, OLD); END $$")
    db.execute("CREATE TRIGGER e BEFORE INSERT OR UPDATE OR DELETE ON items FOR EACH ROW EXECUTE FUNCTION either()")
    db.execute("INSERT INTO items (id, name, price) VALUES (1, 'a', 1), (2, 'b', 2)")
    assert db.execute("UPDATE items SET name = 'c' WHERE id = 1").rowcount == 1
    assert db.execute("DELETE FROM items WHERE id = 2").rowcount == 1
    assert rows(db, "SELECT id, name FROM items") == [(1, "c")]
    assert rows(db, "SELECT op, id FROM audit") == [("INSERT", 1), ("INSERT", 2), ("UPDATE", 1), ("DELETE", 2)]
