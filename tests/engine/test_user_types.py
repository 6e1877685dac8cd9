"""CREATE TYPE ... AS ENUM and CREATE DOMAIN, as PostgreSQL 16 has them: columns of them on
every write path, casts, comparisons and order, ALTER TYPE / ALTER DOMAIN, DROP with and
without CASCADE, transactions and other sessions and processes, the catalog across a reopen."""

import pathlib
import threading

import pytest

import txlake
from tests.conftest import fails as shared_fails
from tests.conftest import rows, run_python


@pytest.fixture
def db(connect):
    conn = connect(autocommit=True)
    conn.execute("CREATE TYPE mood AS ENUM ('sad', 'ok', 'happy')")
    conn.execute("CREATE DOMAIN email AS text CONSTRAINT email_check CHECK (VALUE ~~ '%@%')")
    conn.execute("CREATE DOMAIN pos AS int NOT NULL DEFAULT 1 CHECK (VALUE > 0)")
    conn.execute("CREATE TABLE t (id int PRIMARY KEY, m mood, e email, p pos)")
    return conn


def fails(conn, sql, sqlstate, message=None, params=None) -> str:
    """conftest's ``fails``, whose message's first line, when given, must be ``message``."""
    text = shared_fails(conn, sql, sqlstate, params=params)
    assert message is None or text.splitlines()[0] == message, text
    return text


# --- enums -----------------------------------------------------------------------------------

def test_an_enum_column_takes_its_labels_and_refuses_others(db):
    db.execute("INSERT INTO t (id, m, e) VALUES (1, 'happy', 'a@b'), (2, 'sad', NULL), (3, NULL, NULL)")
    fails(db, "INSERT INTO t (id, m) VALUES (4, 'meh')", "22P02", 'invalid input value for enum mood: "meh"')
    fails(db, "INSERT INTO t (id, m) VALUES (?, ?)", "22P02", params=(4, "Happy"))  # (labels are case-sensitive)
    fails(db, "UPDATE t SET m = 'meh' WHERE id = 1", "22P02")
    fails(db, "UPDATE t SET m = 'meh' WHERE id > 0", "22P02")
    db.execute("CREATE TABLE src (id int, m text)")
    db.execute("INSERT INTO src VALUES (5, 'ok'), (6, 'nope')")
    fails(db, "INSERT INTO t (id, m) SELECT id, m FROM src", "22P02", 'invalid input value for enum mood: "nope"')
    fails(db, "INSERT INTO t (id, m) VALUES (1, 'ok') ON CONFLICT (id) DO UPDATE SET m = 'meh'", "22P02")
    fails(db, "MERGE INTO t USING src ON t.id = src.id WHEN NOT MATCHED THEN INSERT (id, m) VALUES (src.id, src.m)",
          "22P02")
    assert rows(db, "SELECT id, m FROM t ORDER BY id") == [(1, "happy"), (2, "sad"), (3, None)]


def test_a_type_name_folds_as_postgresql_folds_names(db):
    """Unquoted, a type's name is folded to lower case wherever it is written - CREATE TYPE,
    a column's type, a cast, a schema-qualified name - and quoted it keeps its case. Written
    ``Mood`` in a cast or a column it was looked up as ``Mood`` and not found (42704, 0A000)."""
    db.execute("CREATE SCHEMA s")
    db.execute("CREATE TYPE s.Feel AS ENUM ('meh', 'yay')")
    db.execute("CREATE TYPE Size AS ENUM ('S', 'M')")
    db.execute('CREATE TYPE "Quoted" AS ENUM (\'q\')')
    db.execute("CREATE DOMAIN Positive AS int CHECK (VALUE > 0)")
    db.execute("CREATE TABLE shirts (id int, sz SIZE, f S.Feel, n Positive, q \"Quoted\")")
    db.execute("INSERT INTO shirts VALUES (1, 'M'::Size, CAST('yay' AS s.FEEL), 3::POSITIVE, 'q'::\"Quoted\")")
    assert rows(db, "SELECT pg_typeof(sz), pg_typeof(f), sz, f, n, q FROM shirts") == [
        ("size", "s.feel", "M", "yay", 3, "q")]
    assert rows(db, "SELECT 'yay'::s.feel > 'meh'::S.Feel, 'S'::\"size\"") == [(True, "S")]
    fails(db, "SELECT 'M'::\"Size\"", "42704", 'type "Size" does not exist')
    fails(db, "SELECT 'q'::quoted", "42704", 'type "quoted" does not exist')
    fails(db, "SELECT 0::Positive", "23514")


def test_an_enum_orders_and_compares_by_its_labels_not_their_text(db):
    db.execute("INSERT INTO t (id, m) VALUES (1, 'happy'), (2, 'sad'), (3, 'ok'), (4, NULL)")
    assert rows(db, "SELECT id FROM t ORDER BY m, id") == [(2,), (3,), (1,), (4,)]
    assert rows(db, "SELECT min(m), max(m) FROM t") == [("sad", "happy")]
    # text order would put 'sad' after 'ok': the enum puts it first
    assert rows(db, "SELECT id FROM t WHERE m > 'sad' ORDER BY id") == [(1,), (3,)]
    assert rows(db, "SELECT id FROM t WHERE 'ok' < m") == [(1,)]
    assert rows(db, "SELECT id FROM t WHERE m <= ? ORDER BY id", ("ok",)) == [(2,), (3,)]
    assert rows(db, "SELECT id FROM t WHERE m BETWEEN 'sad' AND 'ok' ORDER BY id") == [(2,), (3,)]
    assert rows(db, "SELECT id FROM t WHERE m IN ('ok', 'happy') ORDER BY id") == [(1,), (3,)]
    assert rows(db, "SELECT id FROM t WHERE m::text > 'ok' ORDER BY id") == [(2,)]  # (as text: text order)
    db.execute("PREPARE later AS SELECT id FROM t WHERE m > $1 ORDER BY id")  # ($1 is read as a mood)
    assert rows(db, "EXECUTE later('sad')") == [(1,), (3,)]
    fails(db, "SELECT id FROM t WHERE m = 'meh'", "22P02", 'invalid input value for enum mood: "meh"')
    db.execute("CREATE VIEW v AS SELECT id, m FROM t")  # (through a view, and a schema-qualified name, alike)
    assert rows(db, "SELECT id FROM v WHERE m < 'happy' ORDER BY m") == [(2,), (3,)]
    assert rows(db, "SELECT id FROM public.t AS x WHERE x.m > 'sad' ORDER BY x.m") == [(3,), (1,)]


def test_writes_compare_an_enum_by_its_labels_too(db):
    """The WHERE of an UPDATE, DELETE, SELECT ... FOR UPDATE, MERGE's conditions and ON
    CONFLICT's WHERE (the target's rows and ``excluded``) compare enum columns by the labels'
    order, as a query does - and a value not of the labels is 22P02 there too."""
    def reset():
        db.execute("DELETE FROM t")
        db.execute("INSERT INTO t (id, m, p) VALUES (1, 'happy', 1), (2, 'sad', 1), (3, 'ok', 1)")

    reset()
    assert db.execute("UPDATE t SET p = 2 WHERE m > 'sad'").rowcount == 2  # (as text: none)
    assert db.execute("UPDATE t AS x SET p = 3 WHERE x.m BETWEEN ? AND 'happy'", ("ok",)).rowcount == 2
    assert rows(db, "SELECT id, p FROM t ORDER BY id") == [(1, 3), (2, 1), (3, 3)]
    db.autocommit = False
    assert rows(db, "SELECT id FROM t WHERE m >= 'ok' ORDER BY id FOR UPDATE") == [(1,), (3,)]
    db.rollback()
    db.autocommit = True
    db.execute("INSERT INTO t (id, m) VALUES (1, 'sad') ON CONFLICT (id) DO UPDATE SET p = 7 "
               "WHERE t.m > 'ok' AND excluded.m < 'ok'")
    db.execute("MERGE INTO t USING (SELECT 3 AS id) s ON t.id = s.id WHEN MATCHED AND t.m < 'happy' THEN "
               "UPDATE SET p = 5")
    assert rows(db, "SELECT id, p FROM t ORDER BY id") == [(1, 7), (2, 1), (3, 5)]
    assert db.execute("DELETE FROM t WHERE m < ?", ("happy",)).rowcount == 2
    assert rows(db, "SELECT id FROM t") == [(1,)]
    for sql in ["UPDATE t SET p = 1 WHERE m = 'zz'", "DELETE FROM t WHERE m > 'zz'"]:
        fails(db, sql, "22P02", 'invalid input value for enum mood: "zz"')
    # in a subquery, an unqualified name is its own FROM's column (a text here), not the target's
    db.execute("CREATE TABLE u (id int PRIMARY KEY, m text)")
    db.execute("INSERT INTO u VALUES (1, 'foo'), (2, 'bar')")
    assert db.execute("UPDATE t SET p = 4 WHERE id IN (SELECT id FROM u WHERE m = 'foo')").rowcount == 1
    assert db.execute("UPDATE t SET p = 5 WHERE EXISTS (SELECT 1 FROM u WHERE u.id = t.id AND m > 'c')").rowcount == 1
    assert rows(db, "SELECT id, p FROM t WHERE id IN (SELECT id FROM u WHERE m = 'foo')") == [(1, 5)]
    assert db.execute("DELETE FROM t WHERE id IN (SELECT id FROM u WHERE m = 'foo')").rowcount == 1


def test_a_value_not_a_label_is_22p02_with_no_row_to_compare(db):
    """PostgreSQL reads a constant or parameter compared with an enum column (or cast to the
    enum) as the enum's value when it parses the statement: 22P02 on an empty table, and on a
    table whose key (the Python point paths') finds no row, whatever the plan."""
    db.execute("CREATE TABLE k (m mood PRIMARY KEY, n int)")
    db.execute("CREATE TABLE v (id int PRIMARY KEY, m mood UNIQUE)")
    message = 'invalid input value for enum mood: "zz"'
    for sql, params in [("SELECT * FROM t WHERE m = 'zz'", None), ("SELECT * FROM t WHERE m IN ('ok', 'zz')", None),
                        ("SELECT * FROM t WHERE m BETWEEN 'sad' AND 'zz'", None), ("SELECT 'zz' < m FROM t", None),
                        ("SELECT * FROM t WHERE id = 1 AND m = 'zz'", None), ("SELECT 'zz'::mood FROM t", None),
                        ("SELECT * FROM t WHERE m = ?", ("zz",)), ("SELECT * FROM t WHERE m = ANY(?)", (["ok", "zz"],)),
                        ("UPDATE t SET p = 2 WHERE m = 'zz'", None), ("UPDATE t SET p = ? WHERE m = ?", (2, "zz")),
                        ("DELETE FROM t WHERE id = 1 AND m = ?", ("zz",)), ("SELECT * FROM k WHERE m = 'zz'", None),
                        ("SELECT * FROM k WHERE m IN (?, ?)", ("ok", "zz")), ("DELETE FROM k WHERE m = ?", ("zz",)),
                        ("UPDATE k SET n = 1 WHERE m = 'zz' RETURNING *", None),
                        ("SELECT * FROM v WHERE m = ?", ("zz",)),
                        ("SELECT * FROM t a JOIN k b ON a.m = b.m WHERE b.m = 'zz'", None),
                        ("MERGE INTO t USING (SELECT 1 AS id) s ON t.id = s.id WHEN MATCHED AND t.m = 'zz' THEN DELETE",
                         None),
                        # (the ? are bound in another order than the text's: OFFSET's after the subquery's)
                        ("SELECT * FROM t OFFSET ? LIMIT (SELECT count(*) FROM t WHERE m = ?)", (0, "zz"))]:
        fails(db, sql, "22P02", message, params)
    db.execute("PREPARE p AS SELECT * FROM k WHERE m = $1")
    fails(db, "EXECUTE p('zz')", "22P02", message)
    # labels, NULL, a value cast to text, and the binding order are as before
    assert rows(db, "SELECT * FROM t OFFSET ? LIMIT (SELECT count(*) FROM t WHERE m = ?)", ("zz", "ok")) == []
    assert rows(db, "SELECT * FROM t WHERE m::text = 'zz' OR m = ? OR m = ANY(?)", (None, ["ok"])) == []
    db.execute("INSERT INTO k VALUES ('ok', 1), ('happy', 2)")
    assert rows(db, "SELECT n FROM k WHERE m > ANY(?) ORDER BY n", (["sad"],)) == [(1,), (2,)]  # (labels' order)
    assert rows(db, "SELECT n FROM k WHERE m = ANY(?)", (["happy"],)) == [(2,)]


def test_an_array_constant_or_parameter_under_any_compared_with_an_enum_holds_labels(db):
    """``m = ANY('{ok,happy}')``: the constant is an array of the enum, as PostgreSQL reads it -
    compared by the labels' order, each element checked when the statement starts (22P02, no
    row needed); a parameter's text of an array likewise."""
    db.execute("INSERT INTO t (id, m) VALUES (1, 'ok'), (2, 'happy'), (3, 'sad'), (4, NULL)")
    assert rows(db, "SELECT id FROM t WHERE m = ANY('{ok,happy}') ORDER BY id") == [(1,), (2,)]
    assert rows(db, "SELECT id FROM t WHERE m > ALL('{sad,ok}') ORDER BY id") == [(2,)]  # (not by text: 'ok' > 'happy')
    assert rows(db, "SELECT id FROM t WHERE m <> ALL('{sad,NULL}') ORDER BY id") == []
    assert rows(db, "SELECT id FROM t WHERE m = ANY(?) ORDER BY id", ("{ok,happy}",)) == [(1,), (2,)]
    message = 'invalid input value for enum mood: "zz"'
    for sql, params in [("SELECT id FROM t WHERE m = ANY('{ok,zz}')", None),
                        ("SELECT id FROM t WHERE id = 99 AND m <> ALL('{zz}')", None),
                        ("SELECT id FROM t WHERE m = ANY(?)", ("{ok,zz}",)),
                        ("DELETE FROM t WHERE id = 99 AND m = ANY(?)", ("{zz}",))]:
        fails(db, sql, "22P02", message, params)


def test_casts_to_an_array_of_an_enum_or_a_domain(db):
    """``'{ok,happy}'::mood[]`` and ``ARRAY[...]::mood[]`` are arrays of the enum: compared by
    its labels, each element checked (22P02) - a domain array's against its CHECKs (23514); a
    column of one is not supported (0A000)."""
    db.execute("INSERT INTO t (id, m) VALUES (1, 'ok'), (2, 'happy'), (3, 'sad')")
    assert rows(db, "SELECT '{ok,happy}'::mood[], ARRAY['sad', NULL]::mood[], ('{ok,happy}'::mood[])[2]") == [
        (["ok", "happy"], ["sad", None], "happy")]
    assert rows(db, "SELECT id FROM t WHERE m = ANY(ARRAY['ok', 'happy']::mood[]) ORDER BY id") == [(1,), (2,)]
    assert rows(db, "SELECT id FROM t WHERE m > ALL('{sad}'::mood[]) ORDER BY id") == [(1,), (2,)]
    assert rows(db, "SELECT x::mood[] FROM (VALUES ('{happy}')) v(x)") == [(["happy"],)]
    assert rows(db, "SELECT pg_typeof('{ok}'::mood[]), pg_typeof(ARRAY['ok']::public.mood[])") == [("mood[]", "mood[]")]
    message = 'invalid input value for enum mood: "zz"'
    for sql in ["SELECT '{ok,zz}'::mood[]", "SELECT ARRAY['ok', 'zz']::mood[] FROM t WHERE id = 99",
                "SELECT x::mood[] FROM (VALUES ('{zz}')) v(x)", "SELECT pg_typeof('{zz}'::mood[])"]:
        fails(db, sql, "22P02", message)
    assert rows(db, "SELECT '{a@b,c@d}'::email[]") == [(["a@b", "c@d"],)]
    fails(db, "SELECT '{a@b,x}'::email[]", "23514", 'value for domain email violates check constraint "email_check"')
    fails(db, "CREATE TABLE u (ms mood[])", "0A000")


def test_casts_to_an_enum_and_its_functions(db):
    assert rows(db, "SELECT 'ok'::mood, CAST('sad' AS public.mood), NULL::mood") == [("ok", "sad", None)]
    assert rows(db, "SELECT 'ok'::mood < 'happy'::mood, 'ok'::mood::text || '!'") == [(True, "ok!")]
    assert rows(db, "SELECT ?::mood", ("happy",)) == [("happy",)]
    fails(db, "SELECT 'meh'::mood", "22P02", 'invalid input value for enum mood: "meh"')
    assert rows(db, "SELECT enum_range(NULL::mood), enum_first(NULL::mood), enum_last(NULL::mood)") == [
        (["sad", "ok", "happy"], "sad", "happy")]


def test_pg_typeof_names_the_type_and_an_enum_fetches_as_text_on_every_path(db):
    """pg_typeof of an enum or domain column, or of a cast to one, is the type's name (PostgreSQL's
    regtype: schema-qualified off the search path), not DuckDB's ENUM of the labels or the base
    type; a cast names its column after the type. An enum column comes as plain text - the same
    Arrow type and cursor type code - from the point path, DuckDB's, RETURNING and FOR UPDATE."""
    db.execute("INSERT INTO t (id, m, e, p) VALUES (1, 'ok', 'a@b', 2), (2, 'sad', NULL, 3)")
    assert rows(db, "SELECT pg_typeof(m), pg_typeof(e), pg_typeof(p), pg_typeof(m::text), pg_typeof(p + 1) "
                    "FROM t WHERE id = 1") == [("mood", "email", "pos", "text", "integer")]
    db.execute("CREATE SCHEMA s")
    db.execute("CREATE TYPE s.feel AS ENUM ('a')")
    cur = db.execute("SELECT pg_typeof('ok'::mood), pg_typeof(NULL::public.mood), pg_typeof('a'::s.feel), "
                     "pg_typeof(CAST(1 AS pos)), 'ok'::mood, CAST('a' AS s.feel)")
    assert [d[0] for d in cur.description][4:] == ["mood", "feel"]
    assert cur.fetchall() == [("mood", "mood", "s.feel", "pos", "ok", "a")]
    fails(db, "SELECT pg_typeof('zz'::mood)", "22P02", 'invalid input value for enum mood: "zz"')
    for sql in ["SELECT m FROM t WHERE id = 1", "SELECT m FROM t WHERE id > 1", "SELECT m FROM t ORDER BY m LIMIT 1",
                "SELECT min(m) AS m FROM t", "SELECT m FROM t WHERE m = 'ok'", "SELECT 'ok'::mood AS m",
                "UPDATE t SET p = 5 WHERE id = 1 RETURNING m", "UPDATE t SET p = 5 WHERE id > 0 RETURNING m, id + 1",
                "INSERT INTO t (id, m) VALUES (3, 'happy') RETURNING m, id", "DELETE FROM t WHERE id = 3 RETURNING m"]:
        cur = db.cursor()
        cur.execute(sql)
        assert cur.description[0][:2] == ("m", "VARCHAR"), sql
        assert cur.fetch_arrow_table().schema.field("m").type == "string", sql
    db.autocommit = False
    try:
        assert db.execute("SELECT m FROM t WHERE id > 0 ORDER BY id FOR UPDATE").fetch_arrow_table().column(
            "m").type == "string"
        assert db.execute("SELECT enum_range(NULL::mood) AS r").fetch_arrow_table().column("r").type.value_type \
            == "string"
    finally:
        db.rollback()


def test_pg_typeof_quotes_a_name_as_regtype_does(db):
    """PostgreSQL's regtype output quotes a name that needs it (``"Quoted"``), each part of a
    schema-qualified one (a type off the search path) on its own."""
    db.execute('CREATE TYPE "Quoted" AS ENUM (\'a\')')
    db.execute('CREATE SCHEMA "S x"')
    db.execute('CREATE TYPE "S x"."Feel" AS ENUM (\'a\')')
    db.execute('CREATE TABLE q (id int, c "Quoted", f "S x"."Feel")')
    db.execute("INSERT INTO q VALUES (1, 'a', 'a')")
    assert rows(db, """SELECT pg_typeof(c), pg_typeof(f), pg_typeof('{a}'::"Quoted"[]), pg_typeof('a'::"S x"."Feel"),
                              pg_typeof(NULL::mood) FROM q""") == [
        ('"Quoted"', '"S x"."Feel"', '"Quoted"[]', '"S x"."Feel"', "mood")]
    db.execute('SET search_path = "S x", public')
    assert rows(db, "SELECT pg_typeof(f), pg_typeof(c) FROM q") == [('"Feel"', '"Quoted"')]


def test_alter_type_add_value_before_and_after_changes_the_order(db):
    db.execute("INSERT INTO t (id, m) VALUES (1, 'happy'), (2, 'sad')")
    statements = ("SELECT ?::mood", "SELECT count(*) FROM t WHERE m >= ?", "INSERT INTO t (id, m) VALUES (?, ?)")
    fails(db, statements[0], "22P02", params=("meh",))  # (each run before the ALTER: none keeps the old labels)
    fails(db, statements[1], "22P02", params=("meh",))
    fails(db, statements[2], "22P02", params=(9, "meh"))
    assert rows(db, "SELECT id FROM t ORDER BY m") == [(2,), (1,)]  # (run again below: its plan is kept)
    db.execute("ALTER TYPE mood ADD VALUE 'meh' BEFORE 'ok'")
    db.execute("ALTER TYPE mood ADD VALUE 'ecstatic' AFTER 'happy'")
    db.execute("ALTER TYPE mood ADD VALUE 'awful'")  # (last)
    assert rows(db, statements[0], ("meh",)) == [("meh",)]
    assert rows(db, statements[1], ("meh",)) == [(1,)]
    db.execute(statements[2], (9, "meh"))
    db.execute("DELETE FROM t WHERE id = 9")
    assert rows(db, "SELECT enum_range(NULL::mood)") == [(["sad", "meh", "ok", "happy", "ecstatic", "awful"],)]
    db.execute("INSERT INTO t (id, m) VALUES (3, 'meh'), (4, 'awful')")
    assert rows(db, "SELECT id FROM t ORDER BY m") == [(2,), (3,), (1,), (4,)]
    fails(db, "ALTER TYPE mood ADD VALUE 'ok'", "42710", 'enum label "ok" already exists')
    db.execute("ALTER TYPE mood ADD VALUE IF NOT EXISTS 'ok'")
    fails(db, "ALTER TYPE mood ADD VALUE 'x' AFTER 'nope'", "22023", '"nope" is not an existing enum label')
    fails(db, "ALTER TYPE mood ADD VALUE '" + "x" * 64 + "'", "42602")
    fails(db, "ALTER TYPE email ADD VALUE 'x'", "42809", "email is not an enum")


def test_alter_type_add_value_locks_the_type_and_rewrites_no_table(db, connect, warehouse):
    """PostgreSQL's ADD VALUE and RENAME VALUE take an EXCLUSIVE lock on the type, not on its
    tables: a second one waits for the first's transaction, then applies to what it committed
    (before, both ran and the second to commit got 40001). ADD VALUE changes the using tables'
    catalog entries only (their rows are text, every one still a label): no file is written and
    a concurrent writer of a table stands (before, the tables were written anew: 40001)."""
    db.execute("INSERT INTO t (id, m) SELECT i, 'ok' FROM range(10, 3000) AS r(i)")  # (a Parquet file)
    files = {str(p) for p in pathlib.Path(warehouse).rglob("*.parquet")}
    first, second = connect(), connect(autocommit=True)
    try:
        first.execute("ALTER TYPE mood ADD VALUE 'meh' BEFORE 'ok'")
        second.execute("SET lock_timeout = '50ms'")  # (a bound: the test must not hang)
        for sql in ("ALTER TYPE mood ADD VALUE 'wow'", "ALTER TYPE mood RENAME VALUE 'sad' TO 'blue'"):
            fails(second, sql, "55P03")
        db.execute("INSERT INTO t (id, m) VALUES (1, 'happy')")  # (its tables are not locked)
        assert rows(first, "SELECT count(*) FROM t WHERE m > 'meh'") == [(2990,)]
        first.commit()
    finally:
        first.rollback()
    assert {str(p) for p in pathlib.Path(warehouse).rglob("*.parquet")} == files
    db.execute("INSERT INTO t (id, m) VALUES (2, 'meh')")
    assert rows(db, "SELECT id FROM t WHERE m < 'ok' ORDER BY m") == [(2,)]
    second.execute("ALTER TYPE mood ADD VALUE 'wow'")
    second.execute("ALTER TYPE mood RENAME VALUE 'sad' TO 'blue'")
    assert rows(db, "SELECT enum_range(NULL::mood), count(*) FROM t") == [(["blue", "meh", "ok", "happy", "wow"], 2992)]
    fails(db, "INSERT INTO t (id, m) VALUES (3, 'sad')", "22P02")


def test_alter_type_rename_value_and_rename_to(db):
    db.execute("INSERT INTO t (id, m) VALUES (1, 'happy'), (2, 'sad')")
    db.execute("ALTER TYPE mood RENAME VALUE 'sad' TO 'blue'")
    assert rows(db, "SELECT id, m FROM t ORDER BY m") == [(2, "blue"), (1, "happy")]
    fails(db, "INSERT INTO t (id, m) VALUES (3, 'sad')", "22P02")
    fails(db, "ALTER TYPE mood RENAME VALUE 'nope' TO 'x'", "22023")
    fails(db, "ALTER TYPE mood RENAME VALUE 'ok' TO 'happy'", "42710")
    db.execute("ALTER TYPE mood RENAME TO feeling")
    assert rows(db, "SELECT 'ok'::feeling") == [("ok",)]
    fails(db, "SELECT 'ok'::mood", "42704", 'type "mood" does not exist')
    fails(db, "INSERT INTO t (id, m) VALUES (3, 'meh')", "22P02", 'invalid input value for enum feeling: "meh"')
    fails(db, "ALTER TYPE feeling RENAME TO email", "42710", 'type "email" already exists')


def test_create_type_errors(db):
    fails(db, "CREATE TYPE mood AS ENUM ('x')", "42710", 'type "mood" already exists')
    fails(db, "CREATE TYPE t AS ENUM ('x')", "42710")  # (a table's name: its row type's in PostgreSQL)
    fails(db, "CREATE TYPE dup AS ENUM ('a', 'a')", "23505")
    fails(db, "CREATE TABLE mood (a int)", "42710", 'type "mood" already exists')
    for sql in ("SELECT * FROM mood", "INSERT INTO mood VALUES (1)", "ALTER TABLE mood ADD COLUMN x int"):
        fails(db, sql, "42P01", 'relation "mood" does not exist')  # (a type is no relation)
    fails(db, "DROP TABLE mood", "42P01")
    fails(db, "CREATE TYPE pair AS RANGE (subtype = int4)", "0A000")  # (range types: not supported)
    fails(db, "CREATE TABLE u (m nosuchtype)", "0A000")
    db.execute("CREATE TYPE empty AS ENUM ()")
    db.execute("CREATE TABLE u (x empty)")
    db.execute("INSERT INTO u VALUES (NULL)")
    fails(db, "INSERT INTO u VALUES ('a')", "22P02", 'invalid input value for enum empty: "a"')


# --- domains ---------------------------------------------------------------------------------

def test_a_domain_checks_every_write_path(db, tmp_path):
    db.execute("INSERT INTO t (id, e) VALUES (1, 'a@b')")
    message = 'value for domain email violates check constraint "email_check"'
    fails(db, "INSERT INTO t (id, e) VALUES (2, 'ab')", "23514", message)
    fails(db, "UPDATE t SET e = 'ab' WHERE id = 1", "23514", message)
    fails(db, "UPDATE t SET e = 'ab'", "23514", message)
    fails(db, "INSERT INTO t (id, e) VALUES (1, 'x@y') ON CONFLICT (id) DO UPDATE SET e = 'xy'", "23514", message)
    db.execute("CREATE TABLE src (id int, e text)")
    db.execute("INSERT INTO src VALUES (1, 'no'), (7, 'nope')")
    fails(db, "INSERT INTO t (id, e) SELECT id + 10, e FROM src", "23514", message)
    fails(db, "MERGE INTO t USING src ON t.id = src.id WHEN MATCHED THEN UPDATE SET e = src.e", "23514", message)
    data = tmp_path / "rows.csv"
    data.write_text("5,c@d\n6,cd\n")
    fails(db, f"COPY t (id, e) FROM '{data}' (FORMAT csv)", "23514", message)
    fails(db, "SELECT 'ab'::email", "23514", message)
    assert rows(db, "SELECT 'x@y'::email, NULL::email") == [("x@y", None)]
    assert rows(db, "SELECT id, e FROM t") == [(1, "a@b")]


def test_a_domain_not_null_default_and_base_type(db):
    db.execute("INSERT INTO t (id) VALUES (1)")
    assert rows(db, "SELECT p FROM t") == [(1,)]  # (the domain's DEFAULT)
    fails(db, "INSERT INTO t (id, p) VALUES (2, NULL)", "23502", "domain pos does not allow null values")
    fails(db, "INSERT INTO t (id, p) VALUES (2, 0)", "23514",
          'value for domain pos violates check constraint "pos_check"')
    fails(db, "INSERT INTO t (id, p) VALUES (2, 'x')", "22P02")  # (its base type's input)
    fails(db, "SELECT NULL::pos", "23502")
    assert rows(db, "SELECT 3::pos + 1") == [(4,)]
    db.execute("CREATE TABLE own (id int, p pos DEFAULT 7)")  # (the column's DEFAULT comes first)
    db.execute("INSERT INTO own (id) VALUES (1)")
    assert rows(db, "SELECT p FROM own") == [(7,)]


def test_alter_domain(db):
    db.execute("INSERT INTO t (id, e) VALUES (1, 'a@b'), (2, NULL)")
    fails(db, "ALTER DOMAIN email ADD CONSTRAINT long CHECK (length(VALUE) > 3)", "23514",
          'column "e" of table "t" contains values that violate the new constraint')
    db.execute("ALTER DOMAIN email ADD CONSTRAINT long CHECK (length(VALUE) > 3) NOT VALID")  # (rows there: unchecked)
    fails(db, "INSERT INTO t (id, e) VALUES (3, 'c@d')", "23514",
          'value for domain email violates check constraint "long"')
    db.execute("ALTER DOMAIN email ADD CONSTRAINT dotless CHECK (VALUE !~~ '%.%')")  # (checks its own rule only)
    db.execute("ALTER DOMAIN email DROP CONSTRAINT long")
    db.execute("ALTER DOMAIN email DROP CONSTRAINT dotless")
    db.execute("ALTER DOMAIN email DROP CONSTRAINT email_check")
    db.execute("INSERT INTO t (id, e) VALUES (3, 'cd')")
    fails(db, "ALTER DOMAIN email DROP CONSTRAINT nope", "42704", 'constraint "nope" of domain "email" does not exist')
    db.execute("ALTER DOMAIN email DROP CONSTRAINT IF EXISTS nope")
    fails(db, "ALTER DOMAIN email SET NOT NULL", "23502", 'column "e" of table "t" contains null values')
    db.execute("UPDATE t SET e = 'z@z' WHERE e IS NULL")
    db.execute("ALTER DOMAIN email SET NOT NULL")
    fails(db, "INSERT INTO t (id) VALUES (4)", "23502", "domain email does not allow null values")
    db.execute("ALTER DOMAIN email SET DEFAULT 'd@d'")
    db.execute("INSERT INTO t (id) VALUES (4)")
    db.execute("ALTER DOMAIN email DROP DEFAULT")
    db.execute("ALTER DOMAIN email DROP NOT NULL")
    db.execute("INSERT INTO t (id) VALUES (5)")
    assert rows(db, "SELECT id, e FROM t WHERE id > 3 ORDER BY id") == [(4, "d@d"), (5, None)]
    fails(db, "ALTER DOMAIN mood SET NOT NULL", "42809", '"mood" is not a domain')
    fails(db, "ALTER DOMAIN nope SET NOT NULL", "42704", 'type "nope" does not exist')


def test_create_domain_errors(db):
    fails(db, "CREATE DOMAIN email AS text", "42710")
    fails(db, "CREATE DOMAIN d AS int CHECK (VALUE > other)", "42703")
    fails(db, "CREATE DOMAIN d AS int CHECK (VALUE + 1)", "42804")
    fails(db, "CREATE DOMAIN d AS int DEFAULT 'x'", "22P02")
    fails(db, "CREATE DOMAIN d AS mood", "0A000")


# --- columns, DROP ---------------------------------------------------------------------------

def test_add_rename_and_retype_columns_of_user_types(db):
    db.execute("INSERT INTO t (id) VALUES (1)")
    fails(db, "ALTER TABLE t ADD COLUMN m2 mood DEFAULT 'meh'", "22P02")
    db.execute("ALTER TABLE t ADD COLUMN m2 mood DEFAULT 'ok'")
    assert rows(db, "SELECT m2 FROM t") == [("ok",)]
    db.execute("ALTER TABLE t RENAME COLUMN m2 TO m3")
    fails(db, "INSERT INTO t (id, m3) VALUES (2, 'meh')", "22P02")
    db.execute("ALTER TABLE t ALTER COLUMN m3 TYPE text")  # (no longer of the enum)
    db.execute("INSERT INTO t (id, m3) VALUES (2, 'meh')")
    db.execute("ALTER TABLE t DROP COLUMN e")
    db.execute("DROP DOMAIN email")  # (no column uses it now)


def test_drop_type_refuses_while_a_column_uses_it_and_cascade_drops_the_columns(db):
    db.execute("INSERT INTO t (id, m, e) VALUES (1, 'ok', 'a@b')")
    error = fails(db, "DROP TYPE mood", "2BP01", "cannot drop type mood because other objects depend on it")
    assert "column m of table t depends on type mood" in str(error)
    fails(db, "DROP DOMAIN email", "2BP01")
    fails(db, "DROP DOMAIN mood", "42809", '"mood" is not a domain')
    fails(db, "DROP TYPE t", "2BP01", "cannot drop type t because table t requires it")
    fails(db, "DROP TYPE nope", "42704", 'type "nope" does not exist')
    db.execute("DROP TYPE IF EXISTS nope")
    db.execute("DROP TYPE mood, email CASCADE")
    assert [d[0] for d in db.execute("SELECT * FROM t").description] == ["id", "p"]
    fails(db, "SELECT 'ok'::mood", "42704")
    db.execute("CREATE TYPE mood AS ENUM ('x')")  # (the name is free again)


# --- transactions, sessions, processes --------------------------------------------------------

def test_types_are_transactional(connect):
    conn = connect(autocommit=False)
    other = connect(autocommit=True)
    conn.execute("CREATE TYPE mood AS ENUM ('a', 'b')")
    conn.execute("CREATE TABLE t (m mood)")
    conn.execute("INSERT INTO t VALUES ('b')")
    fails(other, "SELECT 'a'::mood", "42704")  # (not committed: the other session does not see it)
    conn.rollback()
    fails(conn, "SELECT 'a'::mood", "42704")
    conn.rollback()
    conn.execute("CREATE TYPE mood AS ENUM ('a', 'b')")
    conn.commit()
    assert rows(other, "SELECT enum_range(NULL::mood)") == [(["a", "b"],)]
    conn.execute("ALTER TYPE mood ADD VALUE 'c'")
    assert rows(other, "SELECT enum_range(NULL::mood)") == [(["a", "b"],)]
    conn.rollback()
    conn.execute("SAVEPOINT s")
    conn.execute("DROP TYPE mood")
    conn.execute("ROLLBACK TO SAVEPOINT s")
    assert rows(conn, "SELECT 'b'::mood") == [("b",)]
    conn.commit()


def test_two_sessions_creating_one_type_one_gets_42710(connect):
    first, second = connect(autocommit=False), connect(autocommit=False)
    second.execute("SET lock_timeout = '30s'")  # (bounded, should the first never commit)
    first.execute("CREATE TYPE mood AS ENUM ('a')")
    outcome = []

    def create():
        try:
            second.execute("CREATE TYPE mood AS ENUM ('b')")
            outcome.append("ok")
        except txlake.Error as e:
            outcome.append(e.sqlstate)
        finally:
            second.rollback()

    thread = threading.Thread(target=create, daemon=True)
    thread.start()
    try:
        first.commit()
    finally:
        thread.join(60)
    assert outcome == ["42710"]
    assert rows(first, "SELECT enum_range(NULL::mood)") == [(["a"],)]


def test_a_table_and_a_concurrent_alter_of_its_type_do_not_both_commit(connect):
    """A table made with the rules of a type that another transaction then alters (or the
    other way round) would hold stale rules: the second committer gets 40001."""
    setup = connect(autocommit=True)
    setup.execute("CREATE TYPE mood AS ENUM ('sad', 'ok')")
    first, second = connect(autocommit=False), connect(autocommit=True)
    try:
        first.execute("CREATE TABLE f (m mood)")
        second.execute("ALTER TYPE mood ADD VALUE 'happy'")
        fails(first, "COMMIT", "40001")
        first.execute("SELECT 1")  # (a snapshot before the other's CREATE TABLE)
        first.execute("ALTER TYPE mood ADD VALUE 'meh'")
        second.execute("CREATE TABLE g (m mood)")
        fails(first, "COMMIT", "40001")
    finally:
        first.rollback()
    second.execute("INSERT INTO g VALUES ('happy')")  # (g has the labels it was made with: happy's)
    fails(second, "INSERT INTO g VALUES ('meh')", "22P02")
    assert rows(second, "SELECT enum_range(NULL::mood)") == [(["sad", "ok", "happy"],)]


MAKE = """
import sys, txlake
c = txlake.connect(sys.argv[1], autocommit=True, publish="off")
c.execute("CREATE TYPE mood AS ENUM ('b')")
"""


def test_a_type_another_process_made_meanwhile_fails_the_commit_with_42710(connect, warehouse):
    conn = connect(autocommit=False)
    conn.execute("SELECT 1")  # (a snapshot from before the other's commit)
    conn.execute("CREATE TYPE mood AS ENUM ('a')")
    done = run_python(MAKE, warehouse)  # (no lock is shared across processes: it commits first)
    assert done.returncode == 0, done.stderr
    with pytest.raises(txlake.Error) as info:
        conn.commit()
    assert info.value.sqlstate == "42710" and 'type "mood" already exists' in str(info.value)
    assert rows(connect(autocommit=True), "SELECT enum_range(NULL::mood)") == [(["b"],)]


SEE = """
import sys, txlake
c = txlake.connect(sys.argv[1], autocommit=True, publish="off")
print(c.execute("SELECT m, enum_range(m) FROM t ORDER BY m").fetchall())
try:
    c.execute("INSERT INTO t VALUES ('zz', 'a@b')")
except txlake.Error as e:
    print(e.sqlstate)
c.execute("ALTER TYPE mood ADD VALUE 'first' BEFORE 'sad'")
"""


def test_other_processes_and_a_reopen_see_types(connect, warehouse):
    conn = connect(autocommit=True)
    conn.execute("CREATE TYPE mood AS ENUM ('sad', 'happy')")
    conn.execute("CREATE DOMAIN email AS text CHECK (VALUE ~~ '%@%')")
    conn.execute("CREATE TABLE t (m mood, e email)")
    conn.execute("INSERT INTO t VALUES ('happy', 'a@b'), ('sad', 'c@d')")
    done = run_python(SEE, warehouse)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["[('sad', ['sad', 'happy']), ('happy', ['sad', 'happy'])]", "22P02"]
    assert rows(conn, "SELECT enum_range(NULL::mood)") == [(["first", "sad", "happy"],)]
    conn._session.db.warehouse.write_checkpoint(force=True)
    conn.close()
    reopened = connect(autocommit=True)
    assert rows(reopened, "SELECT m FROM t ORDER BY m") == [("sad",), ("happy",)]
    fails(reopened, "INSERT INTO t VALUES ('sad', 'nope')", "23514")
    fails(reopened, "INSERT INTO t VALUES ('meh', 'x@y')", "22P02")


def test_the_catalog_lists_types_apart_from_tables(db):
    tables = rows(db, "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public'")
    assert tables == [("t",)]
    columns = rows(db, "SELECT column_name, data_type, udt_name, domain_name FROM information_schema.columns "
                       "WHERE table_name = 't' ORDER BY ordinal_position")
    assert columns == [("id", "integer", "int4", None), ("m", "USER-DEFINED", "mood", None),
                       ("e", "text", "text", "email"), ("p", "integer", "int4", "pos")]
    session = db._session
    assert session.describe_table("t").column("type").to_pylist() == ["integer", "mood", "email", "pos"]
    types = session.describe_types()
    assert types.column("name").to_pylist() == ["email", "mood", "pos"]
    assert types.column("elements").to_pylist() == ["", "sad, ok, happy", ""]
    domains = session.describe_types(domains=True)
    assert domains.column("name").to_pylist() == ["email", "pos"]
    assert domains.column("nullable").to_pylist() == ["", "not null"]
