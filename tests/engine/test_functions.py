"""CREATE [OR REPLACE] FUNCTION ... LANGUAGE sql and DROP FUNCTION, as PostgreSQL 16 has them
(doc/src/sgml/xfunc.sgml, regress create_function_sql.out): calls inlined in queries and DML,
overloads, defaults and named arguments, STRICT, set-returning functions in FROM, the body
checked at CREATE, and the function as a transactional catalog entry - rolled back, seen by
other sessions and processes at commit, kept across a reopen."""

import pytest

import txlake
from tests.conftest import fails, rows, run_python, value


@pytest.fixture
def db(connect):
    conn = connect(autocommit=True)
    conn.execute("CREATE TABLE t (id int PRIMARY KEY, x int, s text)")
    conn.execute("INSERT INTO t VALUES (1, 10, 'Hello World'), (2, NULL, 'a  B')")
    return conn


PG_DUMP_FORM = """CREATE FUNCTION public.f(a integer) RETURNS integer
    LANGUAGE sql IMMUTABLE
    AS $$ SELECT a + 1 $$;
ALTER FUNCTION public.f(integer) OWNER TO someone;"""


def test_pg_dumps_form_loads_and_is_called_in_queries(db):
    db._session.execute(PG_DUMP_FORM)
    assert rows(db, "SELECT f(1), public.f(41), f(x) FROM t ORDER BY id") == [(2, 42, 11), (2, 42, None)]
    assert db.execute("SELECT f(1)").description[0][0] == "f"  # (the column is named after the function)


def test_the_body_forms_and_parameter_references(db):
    db.execute("CREATE FUNCTION add(a integer, b integer) RETURNS integer LANGUAGE sql IMMUTABLE RETURN a + b")
    db.execute("CREATE FUNCTION slugify(t text) RETURNS text LANGUAGE sql IMMUTABLE "
               "AS $$ SELECT lower(regexp_replace(t, '[^a-z0-9]+', '-', 'gi')) $$")
    db.execute("CREATE FUNCTION twice(int) RETURNS int LANGUAGE sql AS 'SELECT $1 * 2'")
    db.execute("CREATE FUNCTION thrice(x int) RETURNS int LANGUAGE sql BEGIN ATOMIC SELECT thrice.x * 3; END")
    assert rows(db, "SELECT add(1, 2), twice(4), thrice(2), slugify('Hello World!')") == [(3, 8, 6, "hello-world-")]
    assert rows(db, "SELECT slugify(s) FROM t ORDER BY id") == [("hello-world",), ("a-b",)]
    assert rows(db, "SELECT add(?, ?) + twice(?)", (1, 2, 3)) == [(9,)]  # (parameters bound in the bodies)


def test_the_result_is_cast_to_the_declared_type(db):
    db.execute("CREATE FUNCTION half(a int) RETURNS numeric LANGUAGE sql AS 'SELECT a / 2'")
    db.execute("CREATE FUNCTION label(a int) RETURNS text LANGUAGE sql AS 'SELECT a'")
    assert rows(db, "SELECT half(5), label(7)") == [(2, "7")]  # (integer division, then numeric)


def test_a_body_of_an_unknown_constant_is_coerced_to_the_declared_type(db):
    """PostgreSQL's check_sql_fn_retval coerces an unknown (NULL, a string constant): no 42P13."""
    db.execute("CREATE FUNCTION nul() RETURNS int AS 'SELECT NULL' LANGUAGE sql")
    db.execute("CREATE FUNCTION five() RETURNS int LANGUAGE sql AS $$ SELECT '5' $$")
    assert rows(db, "SELECT nul(), five() + 1") == [(None, 6)]
    fails(db, "CREATE FUNCTION typed() RETURNS int LANGUAGE sql AS $$ SELECT 'a'::text $$", "42P13")


def test_a_body_with_from_gives_its_first_row_or_null(db):
    db.execute("CREATE FUNCTION s_of(k int) RETURNS text LANGUAGE sql STABLE AS 'SELECT s FROM t WHERE id = k'")
    db.execute("CREATE FUNCTION n() RETURNS bigint LANGUAGE sql AS 'SELECT count(*) FROM t'")
    assert rows(db, "SELECT s_of(1), s_of(9), n()") == [("Hello World", None, 2)]
    # (the caller's id is its own, not the id of the table the body reads)
    assert rows(db, "SELECT id, s_of(id) FROM t ORDER BY id") == [(1, "Hello World"), (2, "a  B")]


def test_calls_in_dml(db):
    db.execute("CREATE FUNCTION bump(a int) RETURNS int LANGUAGE sql RETURN coalesce(a, 0) + 1")
    db.execute("UPDATE t SET x = bump(x) WHERE id = ?", (2,))
    db.execute("INSERT INTO t VALUES (bump(2), bump(?), 'c')", (7,))
    db.execute("DELETE FROM t WHERE bump(id) = 2")
    assert rows(db, "SELECT id, x FROM t ORDER BY id") == [(2, 1), (3, 8)]


def test_defaults_named_notation_and_strict(db):
    db.execute("CREATE FUNCTION g(a int, b int DEFAULT 5) RETURNS int LANGUAGE sql AS 'SELECT a * b'")
    db.execute("CREATE FUNCTION st(a int, b int) RETURNS int LANGUAGE sql STRICT AS 'SELECT coalesce(b, 7)'")
    db.execute("CREATE FUNCTION ns(a int, b int) RETURNS int LANGUAGE sql AS 'SELECT coalesce(b, 7)'")
    assert rows(db, "SELECT g(2), g(2, 3), g(b => 10, a => 1), g(1, b => 4)") == [(10, 6, 10, 4)]
    assert rows(db, "SELECT st(1, NULL), ns(1, NULL), st(x, 2) FROM t ORDER BY id") == [(None, 7, 2), (None, 7, None)]
    fails(db, "SELECT g()", "42883", "function g() does not exist")
    fails(db, "SELECT g(1, c => 2)", "42883")


def test_overloads_are_chosen_by_argument_types(db):
    db.execute("CREATE FUNCTION h(a int) RETURNS text LANGUAGE sql AS 'SELECT ''int'''")
    db.execute("CREATE FUNCTION h(a text) RETURNS text LANGUAGE sql AS 'SELECT ''text'''")
    db.execute("CREATE FUNCTION h(a int, b int) RETURNS text LANGUAGE sql AS 'SELECT ''two'''")
    assert rows(db, "SELECT h(1), h('x'::text), h(1, 2)") == [("int", "text", "two")]
    # PostgreSQL's typeconv step 4.e: an unknown (a string constant, NULL) takes the string category
    assert rows(db, "SELECT h('x'), h(NULL)") == [("text", "text")]
    db.execute("CREATE FUNCTION k(a int) RETURNS text LANGUAGE sql AS 'SELECT 1'")
    db.execute("CREATE FUNCTION k(a date) RETURNS text LANGUAGE sql AS 'SELECT 2'")
    fails(db, "SELECT k('1')", "42725", "function k(unknown) is not unique")  # (no string candidate)
    fails(db, "SELECT h(s) FROM t", "42725")  # (a column's type is not looked up: README)
    db.execute("CREATE FUNCTION only_int(a int) RETURNS int LANGUAGE sql RETURN a")
    fails(db, "SELECT only_int('x'::text)", "42883", "function only_int(text) does not exist")
    fails(db, "SELECT only_int(1.5)", "42883", "function only_int(numeric) does not exist")  # (no implicit cast)
    assert value(db, "SELECT only_int('7')") == 7  # (an unknown-typed constant fits)
    fails(db, "DROP FUNCTION h", "42725", 'function name "h" is not unique')
    db.execute("DROP FUNCTION h(integer), h(int, int)")
    assert value(db, "SELECT h('x')") == "text"


def test_schemas_and_the_search_path(db):
    db.execute("CREATE SCHEMA other")
    db.execute("CREATE FUNCTION other.f() RETURNS int LANGUAGE sql RETURN 2")
    db.execute("CREATE FUNCTION f() RETURNS int LANGUAGE sql RETURN 1")
    assert rows(db, "SELECT f(), other.f(), public.f()") == [(1, 2, 1)]
    db.execute("SET search_path = other, public")
    assert value(db, "SELECT f()") == 2
    db.execute("DROP FUNCTION other.f")
    assert value(db, "SELECT f()") == 1


def test_set_returning_functions_in_from(db):
    db.execute("CREATE FUNCTION upto(n int) RETURNS SETOF int LANGUAGE sql AS 'SELECT * FROM generate_series(1, n)'")
    db.execute("CREATE FUNCTION rows_from(k int) RETURNS TABLE (id int, s text) LANGUAGE sql "
               "AS 'SELECT id, s FROM t WHERE id >= k'")
    assert rows(db, "SELECT * FROM upto(3)") == [(1,), (2,), (3,)]
    assert [d[0] for d in db.execute("SELECT * FROM upto(1)").description] == ["upto"]
    assert rows(db, "SELECT r.s FROM rows_from(2) AS r") == [("a  B",)]
    fails(db, "SELECT upto(3)", "0A000", "set-returning function upto is supported in FROM only")


def test_create_errors_as_postgresql_gives_them(db):
    db.execute("CREATE FUNCTION f(a int) RETURNS int LANGUAGE sql AS 'SELECT a'")
    fails(db, "CREATE FUNCTION f(b integer) RETURNS int LANGUAGE sql AS 'SELECT 1'", "42723",
          'function "f" already exists with same argument types')
    fails(db, "CREATE OR REPLACE FUNCTION f(a int) RETURNS text LANGUAGE sql AS 'SELECT 1'", "42P13",
          "cannot change return type of existing function")
    fails(db, "CREATE OR REPLACE FUNCTION f(b int) RETURNS int LANGUAGE sql AS 'SELECT 1'", "42P13",
          'cannot change name of input parameter "a"')
    fails(db, "CREATE FUNCTION e(a int) RETURNS int LANGUAGE sql AS 'SELECT nope FROM t'", "42703")
    fails(db, "CREATE FUNCTION e(a int) RETURNS int LANGUAGE sql AS 'SELECT 1 FROM nope'", "42P01")
    fails(db, "CREATE FUNCTION e(a int) RETURNS int LANGUAGE sql AS 'SELECT ''x''::text'", "42P13",
          "return type mismatch in function declared to return integer", "Actual return type is text.")
    fails(db, "CREATE FUNCTION e(a int) RETURNS int LANGUAGE sql AS 'SELECT 1, 2'", "42P13",
          "Final statement must return exactly one column.")
    fails(db, "CREATE FUNCTION e() RETURNS SETOF int LANGUAGE sql AS 'SELECT s FROM t'", "42P13",
          "return type mismatch in function declared to return integer", "Actual return type is text.")
    fails(db, "CREATE FUNCTION e() RETURNS TABLE (a int) LANGUAGE sql AS 'SELECT 1, 2'", "42P13",
          "return type mismatch in function declared to return record", "Final statement returns too many columns.")
    # PostgreSQL takes a recursive SQL function; txlake inlines calls, so it is refused, itself or through another
    fails(db, "CREATE FUNCTION e(a int) RETURNS int LANGUAGE sql AS 'SELECT CASE WHEN a <= 1 THEN 1 ELSE a * e(a - 1) "
              "END'", "0A000", "recursive SQL functions are not supported")
    db.execute("CREATE FUNCTION e(a int, b int) RETURNS int LANGUAGE sql AS 'SELECT a'")
    fails(db, "CREATE OR REPLACE FUNCTION e(a int, b int) RETURNS int LANGUAGE sql AS 'SELECT e(a, b)'", "0A000",
          "recursive")
    db.execute("CREATE FUNCTION e2(a int) RETURNS int LANGUAGE sql AS 'SELECT e(a, 1)'")
    fails(db, "CREATE OR REPLACE FUNCTION e(a int, b int) RETURNS int LANGUAGE sql AS 'SELECT e2(a)'", "0A000",
          "recursive")
    assert value(db, "SELECT e2(7)") == 7
    db.execute("DROP FUNCTION e2(int), e(int, int)")
    fails(db, "CREATE FUNCTION e(a int) RETURNS int LANGUAGE sql AS 'SELECT $2'", "42P02")
    fails(db, "CREATE FUNCTION e(a int) LANGUAGE sql AS 'SELECT 1'", "42P13", "function result type must be specified")
    fails(db, "CREATE FUNCTION e(a int, a int) RETURNS int LANGUAGE sql AS 'SELECT 1'", "42P13")
    fails(db, "CREATE FUNCTION e(a int) RETURNS int LANGUAGE plpython3u AS 'return 1'", "0A000")
    fails(db, "CREATE FUNCTION e(a int) RETURNS int LANGUAGE sql AS 'INSERT INTO t VALUES (a); SELECT 1'", "0A000")
    db.execute("SET check_function_bodies = off")  # (pg_dump's: a body may read what is made later)
    db.execute("CREATE FUNCTION later() RETURNS int LANGUAGE sql AS 'SELECT n FROM made_later'")
    db.execute("CREATE TABLE made_later (n int)")
    db.execute("INSERT INTO made_later VALUES (4)")
    assert value(db, "SELECT later()") == 4


def test_or_replace_changes_the_body_and_drop_removes_it(db):
    db.execute("CREATE FUNCTION f(a int) RETURNS int LANGUAGE sql AS 'SELECT a'")
    db.execute("CREATE OR REPLACE FUNCTION f(a int) RETURNS int LANGUAGE sql AS 'SELECT a * 10'")
    assert value(db, "SELECT f(2)") == 20
    db.execute("DROP FUNCTION f(int)")
    fails(db, "SELECT f(2)", "42883")
    fails(db, "DROP FUNCTION f(int)", "42883", "function f(integer) does not exist")
    fails(db, "DROP FUNCTION f", "42883", 'could not find a function named "f"')
    assert db.execute("DROP FUNCTION IF EXISTS f(int)").statusmessage == "DROP FUNCTION"


def test_a_function_is_transactional(connect):
    first, second = connect(), connect()
    first.execute("CREATE FUNCTION f() RETURNS int LANGUAGE sql RETURN 1")
    assert value(first, "SELECT f()") == 1
    fails(second, "SELECT f()", "42883")  # (not committed)
    second.rollback()
    first.rollback()
    fails(first, "SELECT f()", "42883")
    first.rollback()
    first.execute("CREATE FUNCTION f() RETURNS int LANGUAGE sql RETURN 1")
    first.commit()
    assert value(second, "SELECT f()") == 1
    second.commit()
    first.execute("DROP FUNCTION f()")
    assert value(second, "SELECT f()") == 1  # (the drop is not committed)
    second.commit()
    first.commit()
    fails(second, "SELECT f()", "42883")


def test_two_creators_of_one_signature(connect):
    first, second = connect(), connect()
    first.execute("CREATE FUNCTION f(a int) RETURNS int LANGUAGE sql RETURN 1")
    second.execute("CREATE FUNCTION f(a text) RETURNS int LANGUAGE sql RETURN 2")  # (another signature)
    first.commit()
    second.commit()
    fails(first, "CREATE FUNCTION f(b int) RETURNS int LANGUAGE sql RETURN 3", "42723")


SEE = """
import sys, txlake
c = txlake.connect(sys.argv[1], autocommit=True, publish="off")
print(c.execute("SELECT f(1)").fetchall())
c.execute("CREATE FUNCTION g(a int) RETURNS int LANGUAGE sql RETURN a * 100")
"""

MAKE = """
import sys, txlake
c = txlake.connect(sys.argv[1], autocommit=True, publish="off")
c.execute("CREATE FUNCTION k() RETURNS int LANGUAGE sql RETURN 1")
"""


def test_other_processes_and_a_reopen_see_functions(connect, warehouse):
    conn = connect(autocommit=True)
    conn.execute("CREATE FUNCTION f(a int) RETURNS int LANGUAGE sql IMMUTABLE STRICT RETURN a + 1")
    done = run_python(SEE, warehouse)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["[(2,)]"]
    assert value(conn, "SELECT g(2)") == 200
    conn._session.db.warehouse.write_checkpoint(force=True)
    conn.close()
    reopened = connect(autocommit=True)
    assert rows(reopened, "SELECT f(1), f(NULL), g(1)") == [(2, None, 100)]


def test_a_function_another_process_made_meanwhile_fails_the_commit_with_42723(connect, warehouse):
    conn = connect(autocommit=False)
    conn.execute("SELECT 1")  # (a snapshot from before the other's commit)
    conn.execute("CREATE FUNCTION k() RETURNS int LANGUAGE sql RETURN 2")
    done = run_python(MAKE, warehouse)
    assert done.returncode == 0, done.stderr
    with pytest.raises(txlake.Error) as info:
        conn.commit()
    assert info.value.sqlstate == "42723"
    assert value(connect(autocommit=True), "SELECT k()") == 1


def test_functions_are_no_relations_in_the_catalog(db):
    db.execute("CREATE FUNCTION f() RETURNS int LANGUAGE sql RETURN 1")
    assert rows(db, "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public'") == [("t",)]
    assert rows(db, "SELECT relname FROM pg_class WHERE relnamespace = 2200 AND relkind = 'r'") == [("t",)]
    db.execute("CREATE SCHEMA s")
    db.execute("CREATE FUNCTION s.f() RETURNS int LANGUAGE sql RETURN 1")
    fails(db, "DROP SCHEMA s", "2BP01", "function s.f() depends on schema s")
    assert db.execute("DROP SCHEMA s CASCADE").statusmessage == "DROP SCHEMA"
    fails(db, "SELECT s.f()", "42883")


def test_parameters_bound_where_the_body_reorders_or_repeats_them(db):
    db.execute("CREATE FUNCTION sub(a int, b int) RETURNS int LANGUAGE sql STRICT RETURN b - a + b")
    assert rows(db, "SELECT sub(?, ?), ?", (1, 10, "x")) == [(19, "x")]
    assert rows(db, "SELECT id FROM t WHERE sub(?, x) = ?", (1, 19)) == [(1,)]
    assert rows(db, "WITH d AS (INSERT INTO t (id, x) VALUES (?, sub(?, ?)) RETURNING id, x) SELECT * FROM d "
                    "WHERE x > ?", (4, 1, 2, 0)) == [(4, 3)]  # (a data-modifying WITH's parts take parameters)
    db.execute("DELETE FROM t WHERE id = 4")
    cursor = db.cursor()
    db.autocommit = False
    cursor.executemany("INSERT INTO t (id, x) VALUES (?, sub(?, ?))", [(5, 1, 2), (6, 2, 4)])
    db.commit()
    assert rows(db, "SELECT id, x FROM t WHERE id > 4 ORDER BY id") == [(5, 3), (6, 6)]


def test_a_view_keeps_the_call_and_reads_the_body_when_it_is_read(db):
    db.execute("CREATE FUNCTION dbl(a int) RETURNS int LANGUAGE sql IMMUTABLE RETURN a * 2")
    db.execute("CREATE VIEW v AS SELECT id, dbl(id) AS d FROM t")
    assert rows(db, "SELECT * FROM v ORDER BY id") == [(1, 2), (2, 4)]
    assert "dbl(id)" in value(db, "SELECT definition FROM pg_views WHERE viewname = 'v'").lower()
    db.execute("CREATE OR REPLACE FUNCTION dbl(a int) RETURNS int LANGUAGE sql IMMUTABLE RETURN a * 20")
    assert rows(db, "SELECT * FROM v ORDER BY id") == [(1, 20), (2, 40)]
    db.execute("CREATE MATERIALIZED VIEW mv AS SELECT dbl(x) AS d FROM t WHERE x IS NOT NULL")
    db.execute("UPDATE t SET x = 11")
    db.execute("REFRESH MATERIALIZED VIEW mv")
    assert rows(db, "SELECT d FROM mv") == [(220,), (220,)]
    fails(db, "DROP FUNCTION dbl(int)", "2BP01", "cannot drop function dbl(integer) because other objects depend on it",
          "view v depends on function dbl(integer)")
    done = db.execute("DROP FUNCTION dbl(int) CASCADE")
    assert done.statusmessage == "DROP FUNCTION"
    fails(db, "SELECT * FROM v", "42P01")
    fails(db, "SELECT * FROM mv", "42P01")


def test_defaults_checks_generated_columns_and_indexes(db):
    db.execute("CREATE FUNCTION dbl(a int) RETURNS int LANGUAGE sql IMMUTABLE RETURN a * 2")
    db.execute("CREATE FUNCTION vol(a int) RETURNS int LANGUAGE sql RETURN a * 3")
    db.execute("CREATE TABLE u (id int PRIMARY KEY, x int DEFAULT vol(7), y int GENERATED ALWAYS AS (dbl(id)) STORED, "
               "CHECK (vol(x) < 100))")
    db.execute("INSERT INTO u (id) VALUES (1)")
    fails(db, "INSERT INTO u (id, x) VALUES (2, 50)", "23514")
    fails(db, "CREATE TABLE w (id int, y int GENERATED ALWAYS AS (vol(id)) STORED)", "42P17",
          "generation expression is not immutable")
    fails(db, "CREATE INDEX ON u ((vol(x)))", "42P17", "functions in index expression must be marked IMMUTABLE")
    db.execute("CREATE INDEX ON u ((dbl(x)))")
    db.execute("ALTER TABLE u ADD COLUMN z int DEFAULT dbl(4)")
    db.execute("ALTER TABLE u ADD CONSTRAINT z_small CHECK (dbl(z) < 100)")
    db.execute("INSERT INTO u (id) VALUES (3)")
    fails(db, "INSERT INTO u (id, z) VALUES (4, 60)", "23514")
    assert rows(db, "SELECT id, x, y, z FROM u ORDER BY id") == [(1, 21, 2, 8), (3, 21, 6, 8)]


def test_the_shell_lists_and_shows_functions(db):
    db.execute("CREATE FUNCTION add(a integer, b integer DEFAULT 1) RETURNS integer LANGUAGE sql IMMUTABLE STRICT "
               "PARALLEL SAFE RETURN a + b")
    db.execute("CREATE FUNCTION many(n int) RETURNS SETOF int LANGUAGE sql AS $$ SELECT n $$")
    listed = db._session.describe_functions().to_pylist()
    assert [(r["schema"], r["name"], r["result type"], r["argument types"]) for r in listed] == [
        ("public", "add", "integer", "a integer, b integer DEFAULT 1"),
        ("public", "many", "SETOF integer", "n integer")]
    assert db._session.function_definitions("add") == [
        "CREATE OR REPLACE FUNCTION public.add(a integer, b integer DEFAULT 1)\n RETURNS integer\n LANGUAGE sql\n"
        " IMMUTABLE\n STRICT\n PARALLEL SAFE\nRETURN a + b\n"]
    assert db._session.function_definitions("public.many") == [
        "CREATE OR REPLACE FUNCTION public.many(n integer)\n RETURNS SETOF integer\n LANGUAGE sql\n"
        "AS $function$ SELECT n $function$\n"]
    with pytest.raises(txlake.Error) as info:
        db._session.function_definitions("nope")
    assert info.value.sqlstate == "42883"


def test_pg_proc_and_information_schema_routines_list_functions(db):
    db.execute("CREATE TYPE mood AS ENUM ('ok')")
    db.execute("CREATE FUNCTION add(a integer, b integer DEFAULT 1) RETURNS integer LANGUAGE sql IMMUTABLE STRICT "
               "PARALLEL SAFE AS 'SELECT a + b'")
    db.execute("CREATE FUNCTION m(mood, text[]) RETURNS SETOF mood LANGUAGE sql AS 'SELECT $1'")
    found = rows(db, "SELECT p.proname, n.nspname, p.prolang, p.proisstrict, p.proretset, p.provolatile, "
                     "p.proparallel, p.pronargs, p.pronargdefaults, p.prorettype, p.proargtypes, p.proargnames, "
                     "p.prosrc FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace ORDER BY 1")
    mood = value(db, "SELECT oid FROM pg_type WHERE typname = 'mood'")
    assert found == [("add", "public", 14, True, False, "i", "s", 2, 1, 23, [23, 23], ["a", "b"], "SELECT a + b"),
                     ("m", "public", 14, False, True, "v", "u", 2, 0, mood, [mood, 1009], None, "SELECT $1")]
    assert rows(db, "SELECT routine_schema, routine_name, routine_type, data_type, routine_body, external_language, "
                    "is_deterministic, is_null_call FROM information_schema.routines ORDER BY routine_name") == [
        ("public", "add", "FUNCTION", "integer", "SQL", "SQL", "YES", "YES"),
        ("public", "m", "FUNCTION", "USER-DEFINED", "SQL", "SQL", "NO", "NO")]
    fails(db, "ALTER FUNCTION add(int, int) RENAME TO plus", "0A000", "ALTER FUNCTION is not supported")


def test_a_volatile_argument_is_evaluated_once_per_call(db):
    # PostgreSQL does not inline a call whose volatile argument the body (or STRICT's NULL test)
    # would use twice: the function sees one value (optimizer/util/clauses.c, inline_function)
    db.execute("CREATE SEQUENCE s")
    db.execute("CREATE FUNCTION zero(x float8) RETURNS float8 LANGUAGE sql AS 'SELECT x - x'")
    db.execute("CREATE FUNCTION dbl(x int) RETURNS int LANGUAGE sql AS 'SELECT x + x'")
    db.execute("CREATE FUNCTION same(x int) RETURNS int LANGUAGE sql STRICT AS 'SELECT x'")
    assert rows(db, "SELECT zero(random()) FROM generate_series(1, 3)") == [(0.0,)] * 3
    assert rows(db, "SELECT dbl(nextval('s')::int) FROM generate_series(1, 3)") == [(2,), (4,), (6,)]
    assert value(db, "SELECT currval('s')") == 3
    assert rows(db, "SELECT same(nextval('s')::int), same(NULL::int) FROM generate_series(1, 2)") == [(4, None),
                                                                                                   (5, None)]
    assert value(db, "SELECT currval('s')") == 5
    db.execute("CREATE FUNCTION getx(k int) RETURNS int LANGUAGE sql AS 'SELECT x FROM t WHERE id = k'")
    fails(db, "SELECT getx(nextval('s')::int) FROM t", "0A000", "volatile argument")
    assert value(db, "SELECT currval('s')") == 5


def test_a_name_the_parser_reads_as_a_built_in_is_refused(db):
    # its calls would run the built-in (nvl is COALESCE, last_day DuckDB's) or not parse (datediff);
    # now() with its DEFAULT omitted is txlake's clock
    for create in ("CREATE FUNCTION nvl(a int, b int) RETURNS int LANGUAGE sql AS 'SELECT coalesce(a, b) + 100'",
                   "CREATE FUNCTION last_day(d date) RETURNS date LANGUAGE sql AS 'SELECT d'",
                   "CREATE FUNCTION datediff(a date, b date) RETURNS int LANGUAGE sql AS 'SELECT a - b'",
                   "CREATE FUNCTION lower(a int) RETURNS int LANGUAGE sql AS 'SELECT a'",
                   "CREATE FUNCTION now(a int DEFAULT 1) RETURNS int LANGUAGE sql AS 'SELECT a'"):
        fails(db, create, "0A000", "reads", "as a built-in function")
    assert value(db, "SELECT count(*) FROM pg_proc WHERE pronamespace = 2200") == 0
    db.execute("CREATE FUNCTION nvl_plus(a int, b int) RETURNS int LANGUAGE sql AS 'SELECT coalesce(a, b) + 100'")
    assert value(db, "SELECT nvl_plus(NULL, 1)") == 101


def test_type_modifiers_of_parameters_and_results_are_discarded(db):
    # sql-createfunction.sgml: "CREATE FUNCTION foo (varchar(10)) ... is exactly the same as
    # CREATE FUNCTION foo (varchar)"; txlake's varchar is text
    db.execute("CREATE FUNCTION vc(a varchar(2)) RETURNS varchar(2) LANGUAGE sql AS 'SELECT a'")
    assert value(db, "SELECT vc('abcdef')") == "abcdef"
    assert rows(db, "SELECT data_type FROM information_schema.routines WHERE routine_name = 'vc'") == [("text",)]
    fails(db, "CREATE FUNCTION vc(a varchar(3)) RETURNS text LANGUAGE sql AS 'SELECT a'", "42723")
    db.execute("CREATE FUNCTION chars(a char(3)[]) RETURNS int LANGUAGE sql AS 'SELECT cardinality(a)'")
    assert db.execute("DROP FUNCTION vc(character varying), chars(char[])").statusmessage == "DROP FUNCTION"


def test_arguments_are_the_callers_columns_in_a_set_returning_call(db):
    # the body reads t, which has an x too: the argument x is u's (the caller's), as PostgreSQL
    db.execute("CREATE TABLE u (id int, x int)")
    db.execute("INSERT INTO u VALUES (1, 5), (2, 9)")
    db.execute("CREATE FUNCTION above(k int) RETURNS SETOF int LANGUAGE sql AS "
               "'SELECT id FROM t WHERE x > k ORDER BY id'")
    assert rows(db, "SELECT u.id, a FROM u, above(x) AS a ORDER BY 1, 2") == [(1, 1), (2, 1)]
    assert rows(db, "SELECT * FROM above(0)") == [(1,)]
    db.execute("CREATE FUNCTION getx(k int) RETURNS int LANGUAGE sql AS 'SELECT x FROM t WHERE id = k'")
    # an aggregate's or window's argument would be computed in the body's query: refused, not misread
    fails(db, "SELECT getx(max(id)) FROM u", "0A000", "aggregate or window")
    fails(db, "SELECT getx((row_number() OVER ())::int) FROM u", "0A000", "aggregate or window")
    assert value(db, "SELECT getx((SELECT min(id) FROM u))") == 10


def test_a_set_returning_function_after_lateral(db):
    db.execute("CREATE TABLE u (id int, x int)")
    db.execute("INSERT INTO u VALUES (1, 5), (2, 9), (3, 10)")
    db.execute("CREATE FUNCTION above(k int) RETURNS SETOF int LANGUAGE sql AS 'SELECT id FROM t WHERE x > k'")
    db.execute("CREATE FUNCTION pairs(k int) RETURNS TABLE (i int, s text) LANGUAGE sql AS "
               "'SELECT id, s FROM t WHERE id >= k'")
    assert rows(db, "SELECT u.id, a FROM u CROSS JOIN LATERAL above(u.x) AS a ORDER BY 1, 2") == [(1, 1), (2, 1)]
    assert rows(db, "SELECT u.id, a FROM u LEFT JOIN LATERAL above(x) AS a ON true ORDER BY 1, 2") == \
        [(1, 1), (2, 1), (3, None)]
    assert rows(db, "SELECT u.id, p.i FROM u, LATERAL pairs(id) p ORDER BY 1, 2") == [(1, 1), (1, 2), (2, 2)]


def test_parameters_of_array_uuid_time_and_interval_values(db):
    # a statement calling a function has its ? bound as constants: each of these has its typed one
    import datetime
    import uuid
    db.execute("CREATE FUNCTION alen(a int[]) RETURNS int LANGUAGE sql AS 'SELECT cardinality(a)'")
    db.execute("CREATE FUNCTION ident(a text) RETURNS text LANGUAGE sql AS 'SELECT a'")
    u = uuid.UUID("a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11")
    assert rows(db, "SELECT alen(?), alen(?), ident(?::text), ident(?::text), ident(?::text), ?::text[]",
                ([1, 2, 3], [], u, datetime.time(1, 2, 3), datetime.timedelta(days=1, seconds=5), ["a", None])) == \
        [(3, 0, str(u), "01:02:03", "1 day 00:00:05", ["a", None])]
    db.execute("CREATE FUNCTION tlen(a text[]) RETURNS int LANGUAGE sql AS 'SELECT cardinality(a)'")
    assert rows(db, "SELECT tlen(?), ?::uuid = ?", (["x", "y"], str(u), u)) == [(2, True)]


def test_a_void_function_runs_and_gives_no_value(db):
    """RETURNS void (create_function_sql.out's voidtest1..): its body's query runs, whatever it
    gives is discarded - the call's value is empty (NULL here, as a PL/pgSQL void function's)."""
    db.execute("CREATE FUNCTION v0() RETURNS void LANGUAGE sql AS $$ SELECT 1 $$")
    db.execute("CREATE FUNCTION v2(n int) RETURNS void LANGUAGE sql AS $$ SELECT id, n FROM t $$")
    assert rows(db, "SELECT v0(), v2(3)") == [(None, None)]
    assert rows(db, "SELECT v2(x) FROM t ORDER BY id") == [(None,), (None,)]
    assert rows(db, "SELECT * FROM v0()") == [(None,)]
    assert rows(db, "SELECT id FROM t WHERE v0() IS NULL ORDER BY id") == [(1,), (2,)]


def test_pseudo_types_in_pg_type_and_as_results(db):
    """pg_type holds PostgreSQL's pseudo-types (typtype p, its type.dat OIDs), which pg_proc's
    prorettype of a void, trigger or RETURNS TABLE function points at; a procedure has no result
    type in \\df (pg_get_function_result is NULL for one: psql shows nothing)."""
    assert rows(db, "SELECT typname, oid, typtype, typcategory, typlen FROM pg_type WHERE typtype = 'p' "
                    "AND typelem = 0 ORDER BY oid") == [
        ("record", 2249, "p", "P", -1), ("cstring", 2275, "p", "P", -2), ("any", 2276, "p", "P", 4),
        ("void", 2278, "p", "P", 4), ("trigger", 2279, "p", "P", 4), ("internal", 2281, "p", "P", 8),
        ("anyelement", 2283, "p", "P", 4)]
    db.execute("CREATE FUNCTION v() RETURNS void LANGUAGE sql AS 'SELECT 1'")
    db.execute("CREATE FUNCTION tg() RETURNS trigger LANGUAGE plpgsql AS 'BEGIN RETURN NEW; END'")
    db.execute("CREATE FUNCTION tb() RETURNS TABLE (a int) LANGUAGE sql AS 'SELECT 1'")
    db.execute("CREATE PROCEDURE p(a int) LANGUAGE sql AS 'SELECT 1'")
    assert rows(db, "SELECT p.proname, t.typname FROM pg_proc p JOIN pg_type t ON t.oid = p.prorettype "
                    "ORDER BY 1") == [("p", "void"), ("tb", "record"), ("tg", "trigger"), ("v", "void")]
    listed = db._session.describe_functions().to_pylist()
    assert [(r["name"], r["result type"], r["type"]) for r in listed] == [
        ("p", "", "proc"), ("tb", "TABLE(a integer)", "func"), ("tg", "trigger", "trigger"), ("v", "void", "func")]


def test_out_and_inout_parameters_make_the_result(db):
    """OUT / INOUT parameters (xfunc.sgml "SQL Functions with Output Parameters"): the result is
    a record of them - in FROM their columns, in a select list a row (a struct here: psql shows
    it as (2,x)); one's is its type; RETURNS SETOF record makes it a set; a call passes only the
    IN / INOUT ones, which are also its signature (DROP FUNCTION f(int))."""
    db.execute("CREATE FUNCTION sum_n_product(x int, y int, OUT sum int, OUT product int) LANGUAGE sql "
               "AS 'SELECT x + y, x * y'")
    assert rows(db, "SELECT * FROM sum_n_product(11, 42)") == [(53, 462)]
    cur = db.execute("SELECT sum_n_product(11, 42), (sum_n_product(2, 3)).product")
    assert cur.fetchall() == [({"sum": 53, "product": 462}, 6)]
    db.execute("CREATE FUNCTION twice(INOUT a int, OUT s text) LANGUAGE sql AS $$ SELECT a * 2, 'x' $$")
    db.execute("CREATE FUNCTION one_out(n int, OUT doubled int) LANGUAGE sql AS 'SELECT n * 2'")
    db.execute("CREATE FUNCTION none_found(n int, OUT a int, OUT b text) LANGUAGE sql AS 'SELECT id, s FROM t "
               "WHERE id = n'")
    db.execute("CREATE FUNCTION each_x(OUT id int, OUT x int) RETURNS SETOF record LANGUAGE sql "
               "AS 'SELECT id, x FROM t ORDER BY id'")
    assert rows(db, "SELECT * FROM twice(4)") == [(8, "x")]
    cur = db.execute("SELECT *, one_out(1) FROM one_out(5)")
    assert [d[0] for d in cur.description] == ["doubled", "one_out"] and cur.fetchall() == [(10, 2)]
    assert rows(db, "SELECT * FROM none_found(9)") == [(None, None)]  # (one row: a NULL record)
    assert rows(db, "SELECT * FROM each_x()") == [(1, 10), (2, None)]
    assert rows(db, "SELECT pg_get_function_arguments(oid), pg_get_function_result(oid) FROM pg_proc "
                    "WHERE proname = 'twice'") == [("INOUT a integer, OUT s text", "record")]
    assert rows(db, "SELECT proname, prorettype, proargtypes, proargmodes, proargnames FROM pg_proc "
                    "WHERE proname IN ('twice', 'one_out') ORDER BY 1") == [
        ("one_out", 23, [23], ["i", "o"], ["n", "doubled"]), ("twice", 2249, [23], ["b", "o"], ["a", "s"])]
    for sql, state, message in (
            ("CREATE FUNCTION bad(a int, OUT b int, OUT c text) RETURNS int LANGUAGE sql AS 'SELECT 1, ''x'''",
             "42P13", "function result type must be record because of OUT parameters"),
            ("CREATE FUNCTION bad(a int, OUT b int, OUT c text) LANGUAGE sql AS 'SELECT 1'", "42P13",
             "return type mismatch in function declared to return record"),
            ("CREATE FUNCTION bad(a int, OUT b int DEFAULT 1) LANGUAGE sql AS 'SELECT 1'", "42P13",
             "only input parameters can have default values"),
            ("SELECT * FROM twice(1, 2)", "42883", "function twice(integer, integer) does not exist")):
        fails(db, sql, state, message)
    db.execute("DROP FUNCTION sum_n_product(int, int)")
    fails(db, "SELECT * FROM sum_n_product(1, 2)", "42883")


def test_a_tables_row_type_as_the_result(db):
    """RETURNS SETOF t / RETURNS t (a table's or view's row type) were 42704 type "t" does not
    exist: rows of the table's columns - in FROM its columns, in a select list a record (a
    struct) whose fields are read; pg_proc.prorettype is the table's pg_type row; a body of
    another shape is 42P13 (create_function_sql.out's "declared to return" errors)."""
    db.execute("CREATE FUNCTION all_t() RETURNS SETOF t LANGUAGE sql AS 'SELECT * FROM t ORDER BY id'")
    db.execute("CREATE FUNCTION one_t(k int) RETURNS t LANGUAGE sql AS 'SELECT * FROM t WHERE id = k'")
    db.execute("CREATE VIEW names AS SELECT s FROM t")
    db.execute("CREATE FUNCTION all_names() RETURNS SETOF names LANGUAGE sql AS 'SELECT s FROM t'")
    db.execute("CREATE FUNCTION pl_t() RETURNS SETOF t LANGUAGE plpgsql AS $$ BEGIN RETURN QUERY SELECT * FROM t "
               "WHERE id = 2; END $$")
    cur = db.execute("SELECT * FROM all_t()")
    assert [d[0] for d in cur.description] == ["id", "x", "s"]
    assert cur.fetchall() == [(1, 10, "Hello World"), (2, None, "a  B")]
    assert rows(db, "SELECT s FROM one_t(2)") == [("a  B",)]
    assert rows(db, "SELECT one_t(1), (one_t(1)).x") == [({"id": 1, "x": 10, "s": "Hello World"}, 10)]
    assert rows(db, "SELECT * FROM one_t(9)") == [(None, None, None)]
    assert rows(db, "SELECT count(*) FROM all_names()") == [(2,)]
    assert rows(db, "SELECT id FROM pl_t()") == [(2,)]
    assert rows(db, "SELECT p.proname, p.proretset, pg_get_function_result(p.oid), t.typname, t.typrelid = "
                    "'t'::regclass FROM pg_proc p JOIN pg_type t ON t.oid = p.prorettype WHERE p.proname LIKE '%t'"
                    " ORDER BY 1") == [("all_t", True, "SETOF t", "t", True), ("one_t", False, "t", "t", True),
                                       ("pl_t", True, "SETOF t", "t", True)]
    fails(db, "CREATE FUNCTION bad() RETURNS SETOF t LANGUAGE sql AS 'SELECT 1'", "42P13",
          "return type mismatch in function declared to return t", "Final statement returns too few columns.")
    fails(db, "CREATE FUNCTION bad() RETURNS t LANGUAGE plpgsql AS $$ BEGIN RETURN NULL; END $$", "0A000")
