"""PL/pgSQL functions and procedures (engine/plpgsql_calls.py), as PostgreSQL 16 has them
(plpgsql.sgml "Returning from a Function", xfunc.sgml, sql-createprocedure.sgml, sql-call.sgml;
src/test/regress/expected/plpgsql.out, create_procedure.out): CREATE, the results (RETURN,
RETURN NEXT, RETURN QUERY), calls evaluated before their statement - or refused where PostgreSQL
would call per row - and CALL with its transaction control."""

import pytest

import txlake


@pytest.fixture
def db(connect):
    conn = connect(autocommit=True)
    conn.execute("CREATE TABLE t (id INT PRIMARY KEY, v TEXT)")
    return conn


def rows(conn, sql, params=()):
    return conn.execute(sql, params).fetchall()


def error(conn, sql) -> txlake.Error:
    with pytest.raises(txlake.Error) as e:
        conn.execute(sql)
    return e.value


ADD_ROW = """CREATE FUNCTION add_row(i int, s text DEFAULT 'dflt') RETURNS bigint LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO t VALUES (i, s);
  RAISE NOTICE 'added %', i;
  RETURN (SELECT count(*) FROM t);
END $$"""


def test_scalar_function_by_name_and_dollar_n_with_defaults_and_strict(db):
    db.execute("""CREATE FUNCTION addn(a int, b int DEFAULT 10) RETURNS int LANGUAGE plpgsql AS $$
      DECLARE s int;
      BEGIN s := a + $2; RETURN s; END $$""")
    db.execute("""CREATE FUNCTION half(numeric) RETURNS numeric STRICT LANGUAGE plpgsql AS $$
      BEGIN RAISE NOTICE 'called'; RETURN $1 / 2; END $$""")
    assert rows(db, "SELECT addn(1), addn(1, 2), addn(b => 5, a => 1)") == [(11, 3, 6)]
    assert rows(db, "SELECT addn(?) + 1", (4,)) == [(15,)]
    db.notices.clear()
    assert rows(db, "SELECT half(NULL)") == [(None,)]
    assert db.notices == []  # (STRICT: not run on a NULL)
    assert float(rows(db, "SELECT half(3)")[0][0]) == 1.5
    assert db.notices == ["NOTICE:  called"]
    db.notices.clear()
    db.execute("CREATE FUNCTION outer_half(n numeric) RETURNS numeric LANGUAGE plpgsql AS $$ BEGIN RETURN half(n); "
               "END $$")
    db.execute("DO $$ BEGIN PERFORM outer_half(4); END $$")  # (a nested call's NOTICE reaches the client too)
    assert db.notices == ["NOTICE:  called"]


def test_recursion_and_its_depth_limit(db):
    db.execute("""CREATE FUNCTION fact(n int) RETURNS bigint LANGUAGE plpgsql AS $$
      BEGIN IF n <= 1 THEN RETURN 1; END IF; RETURN n * fact(n - 1); END $$""")
    assert rows(db, "SELECT fact(20)") == [(2432902008176640000,)]
    db.execute("""CREATE FUNCTION forever(n int) RETURNS int LANGUAGE plpgsql AS $$
      BEGIN RETURN forever(n + 1); END $$""")
    assert error(db, "SELECT forever(0)").sqlstate == "54001"


def test_setof_by_return_next_and_return_query(db):
    db.execute("INSERT INTO t VALUES (1, 'a'), (2, 'b'), (3, 'c')")
    db.execute("""CREATE FUNCTION tens(n int) RETURNS SETOF int LANGUAGE plpgsql AS $$
      BEGIN
        FOR i IN 1..n LOOP RETURN NEXT i * 10; END LOOP;
        RETURN QUERY SELECT id FROM t WHERE id > n;
        RETURN QUERY EXECUTE 'SELECT $1 + 1000' USING n;
      END $$""")
    assert rows(db, "SELECT * FROM tens(2)") == [(10,), (20,), (3,), (1002,)]
    assert rows(db, "SELECT x FROM tens(0) AS x ORDER BY x") == [(1,), (2,), (3,), (1000,)]
    db.execute("""CREATE FUNCTION pairs(lo int) RETURNS TABLE (k int, label text) LANGUAGE plpgsql AS $$
      BEGIN
        FOR k, label IN SELECT id, v FROM t WHERE id >= lo ORDER BY id LOOP RETURN NEXT; END LOOP;
      END $$""")
    assert rows(db, "SELECT label, k FROM pairs(2)") == [("b", 2), ("c", 3)]
    db.execute("""CREATE FUNCTION wide() RETURNS SETOF int LANGUAGE plpgsql AS $$
      BEGIN RETURN QUERY SELECT 1, 2; END $$""")
    assert error(db, "SELECT * FROM wide()").sqlstate == "42804"


def test_compile_errors_at_create_and_a_missing_return(db):
    cases = {"RETURNS int AS $$ BEGIN RETURN; END $$": "42601",
             "RETURNS void AS $$ BEGIN RETURN 1; END $$": "42804",
             "RETURNS SETOF int AS $$ BEGIN RETURN 1; END $$": "42804",
             "RETURNS int AS $$ BEGIN RETURN NEXT 1; END $$": "42804",
             "RETURNS int AS $$ BEGIN IF true THEN RETURN 1; END $$": "42601"}
    for i, (rest, sqlstate) in enumerate(cases.items()):
        assert error(db, f"CREATE FUNCTION bad{i}() {rest} LANGUAGE plpgsql").sqlstate == sqlstate, rest
    db.execute("SET check_function_bodies = off")
    db.execute("CREATE FUNCTION later() RETURNS int LANGUAGE plpgsql AS $$ BEGIN RETURN; END $$")
    db.execute("RESET check_function_bodies")
    assert error(db, "SELECT later()").sqlstate == "42601"
    db.execute("CREATE FUNCTION noret() RETURNS int LANGUAGE plpgsql AS $$ BEGIN NULL; END $$")
    e = error(db, "SELECT noret()")
    assert e.sqlstate == "2F005" and "control reached end of function without RETURN" in str(e)
    e = error(db, "CREATE PROCEDURE p() LANGUAGE plpgsql AS $$ BEGIN RETURN 1; END $$")
    assert e.sqlstate == "42601" and "RETURN cannot have a parameter in a procedure" in str(e)


def test_a_function_writes_in_the_calling_transaction(db):
    db.execute(ADD_ROW)
    assert rows(db, "SELECT add_row(1)") == [(1,)]
    assert db.notices[-1] == "NOTICE:  added 1"
    db.execute("BEGIN")
    assert rows(db, "SELECT add_row(2, 'x')") == [(2,)]
    assert rows(db, "SELECT count(*) FROM t") == [(2,)]
    db.execute("ROLLBACK")
    assert rows(db, "SELECT * FROM t") == [(1, "dflt")]
    db.execute("INSERT INTO t VALUES (add_row(5) + 100, 'outer')")
    assert rows(db, "SELECT id FROM t ORDER BY id") == [(1,), (5,), (102,)]


def test_per_row_calls_by_distinct_arguments_or_refused_never_wrong(db):
    db.execute(ADD_ROW)
    db.execute("INSERT INTO t VALUES (1, 'a'), (2, 'b'), (3, NULL), (4, 'b')")
    db.execute("""CREATE FUNCTION plus(n int) RETURNS int LANGUAGE plpgsql AS $$ BEGIN RETURN n + 1; END $$""")
    db.execute("""CREATE FUNCTION shout(s text) RETURNS text LANGUAGE plpgsql AS $$
      BEGIN RETURN upper(s) || (SELECT count(*) FROM t WHERE v = s); END $$""")
    assert rows(db, "SELECT id, plus(id), shout(v) FROM t ORDER BY id") == [
        (1, 2, "A1"), (2, 3, "B2"), (3, 4, None), (4, 5, "B2")]
    assert rows(db, "SELECT id FROM t WHERE shout(v) = 'B2' AND id > 2") == [(4,)]
    assert rows(db, "WITH w AS (SELECT * FROM t WHERE id < 3) SELECT plus(id * 10) FROM w ORDER BY 1") == [
        (11,), (21,)]
    assert rows(db, "SELECT id FROM t WHERE id = plus(?)", (0,)) == [(1,)]  # (reads only: once is the same)
    refused = {"SELECT add_row(10) FROM t": "add_row", "UPDATE t SET v = 'u' WHERE id = add_row(11)": "add_row",
               "SELECT add_row(id + 100) FROM t": "add_row", "UPDATE t SET v = shout(v)": "shout",
               "SELECT plus(max(id)) FROM t": "plus", "CREATE TABLE d (id int DEFAULT add_row(12))": "add_row"}
    for sql, name in refused.items():
        e = error(db, sql)
        assert e.sqlstate == "0A000" and f"function {name} " in str(e), sql
    assert rows(db, "SELECT count(*) FROM t") == [(4,)]


def test_procedures_with_commit_inout_and_call_errors(db):
    db.execute("""CREATE PROCEDURE ins(a int, INOUT total int) LANGUAGE plpgsql AS $$
      BEGIN
        INSERT INTO t VALUES (a, 'kept');
        COMMIT;
        INSERT INTO t VALUES (a + 100, 'gone');
        ROLLBACK;
        total := (SELECT count(*) FROM t);
      END $$""")
    cur = db.execute("CALL ins(7, NULL)")
    assert [d[0] for d in cur.description] == ["total"] and cur.fetchall() == [(1,)]
    assert rows(db, "SELECT * FROM t") == [(7, "kept")]
    db.execute("BEGIN")
    assert error(db, "CALL ins(8, 0)").sqlstate == "2D000"
    db.execute("ROLLBACK")
    assert error(db, "SELECT ins(1, 2)").sqlstate == "42809"
    assert error(db, "CALL nope(1)").sqlstate == "42883"
    db.execute("CREATE PROCEDURE sq(x int) LANGUAGE sql AS $$ INSERT INTO t VALUES (x, 'sql'); "
               "INSERT INTO t VALUES ($1 + 1, 'sql') $$")
    db.execute("CREATE PROCEDURE atomic(x int) LANGUAGE sql BEGIN ATOMIC INSERT INTO t VALUES (x, 'atomic'); END")
    assert error(db, "CREATE PROCEDURE sqo(INOUT x int) LANGUAGE sql AS $$ SELECT 1 $$").sqlstate == "0A000"
    db.execute("CALL sq(50)")
    db.execute("CALL atomic(60)")
    assert rows(db, "SELECT id, v FROM t WHERE id >= 50 ORDER BY id") == [(50, "sql"), (51, "sql"), (60, "atomic")]
    assert rows(db, "SELECT proname, prokind FROM pg_proc ORDER BY proname") == [
        ("atomic", "p"), ("ins", "p"), ("sq", "p")]
    assert rows(db, "SELECT pg_get_functiondef(oid) FROM pg_proc WHERE proname = 'sq'") == [
        ("CREATE OR REPLACE PROCEDURE public.sq(x integer)\n LANGUAGE sql\nAS $procedure$ INSERT INTO t VALUES (x, "
         "'sql'); INSERT INTO t VALUES ($1 + 1, 'sql') $procedure$\n",)]
    assert error(db, "DROP FUNCTION ins").sqlstate == "42809"
    db.execute("ALTER PROCEDURE ins(int, int) OWNER TO someone")
    db.execute("DROP PROCEDURE ins")
    db.execute("DROP PROCEDURE IF EXISTS ins")
    assert error(db, "CALL ins(1, 2)").sqlstate == "42883"


def test_a_pg_dump_script_and_another_session_after_a_restart(connect, warehouse):
    conn = connect(autocommit=True)
    conn.execute("CREATE TABLE t (id INT PRIMARY KEY, v TEXT)")
    script = """
    SET check_function_bodies = false;
    CREATE FUNCTION public.next_id() RETURNS integer
        LANGUAGE plpgsql
        AS $$
    BEGIN
      RETURN (SELECT coalesce(max(id), 0) + 1 FROM public.t);
    END;
    $$;
    ALTER FUNCTION public.next_id() OWNER TO postgres;
    CREATE PROCEDURE public.add(IN v text)
        LANGUAGE plpgsql
        AS $$
    BEGIN
      INSERT INTO public.t VALUES (public.next_id(), v);
    END;
    $$;
    ALTER PROCEDURE public.add(IN v text) OWNER TO postgres;
    """
    conn.execute(script)  # (every statement of it, as psql -f runs them)
    conn.execute("CALL add('one')")
    conn.close()
    other = txlake.connect(warehouse, autocommit=True)
    other.execute("CALL add('two')")
    assert other.execute("SELECT * FROM t ORDER BY id").fetchall() == [(1, "one"), (2, "two")]
    assert other.execute("SELECT next_id()").fetchall() == [(3,)]
    other.close()


def test_no_call_runs_where_postgresql_runs_none(db):
    """CREATE VIEW, EXPLAIN and PREPARE (a LIMIT 0 check) do not run the function; the view's
    and the prepared statement's executions do, once each."""
    db.execute(ADD_ROW)
    db.execute("CREATE VIEW counted AS SELECT add_row(1) AS n")
    db.execute("EXPLAIN SELECT add_row(2)")
    db.execute("PREPARE q(int) AS SELECT add_row($1)")
    assert rows(db, "SELECT count(*) FROM t") == [(0,)]
    assert rows(db, "SELECT * FROM counted") == [(1,)]
    assert rows(db, "EXECUTE q(10)") == [(2,)]
    assert rows(db, "SELECT id FROM t ORDER BY id") == [(1,), (10,)]


def test_an_exception_block_in_a_function_called_outside_a_transaction_block(db):
    """The block's savepoint is taken in the statement's own transaction; an error it does not
    catch rolls back the function's writes with the statement."""
    db.execute("""CREATE FUNCTION safe_div(a int, b int) RETURNS int LANGUAGE plpgsql AS $$
      BEGIN
        INSERT INTO t VALUES (a, 'tried');
        BEGIN RETURN a / b; EXCEPTION WHEN division_by_zero THEN RETURN -1; END;
      END $$""")
    db.execute("""CREATE FUNCTION boom(a int) RETURNS int LANGUAGE plpgsql AS $$
      BEGIN INSERT INTO t VALUES (a, 'boom'); RAISE EXCEPTION 'nope %', a; END $$""")
    assert rows(db, "SELECT safe_div(6, 3), safe_div(7, 0)") == [(2, -1)]
    e = error(db, "SELECT boom(9)")
    assert e.sqlstate == "P0001" and "nope 9" in str(e)
    assert rows(db, "SELECT * FROM t ORDER BY id") == [(6, "tried"), (7, "tried")]


def test_nested_call_and_do_of_a_procedure_that_commits(db):
    """PostgreSQL's plpgsql_transaction.out (transaction_test6, 7, 8, 3): a CALL or DO statement
    of a procedure or DO called outside a transaction block may COMMIT / ROLLBACK; an EXECUTE'd
    CALL, a function's CALL, a CALL in a block with handlers may not (2D000)."""
    db.execute("""CREATE PROCEDURE tx1(x int) LANGUAGE plpgsql AS $$
      BEGIN
        FOR i IN 0..x LOOP
          INSERT INTO t VALUES (i, 'n');
          IF i % 2 = 0 THEN COMMIT; ELSE ROLLBACK; END IF;
        END LOOP;
      END $$""")
    db.execute("CREATE PROCEDURE tx6() LANGUAGE plpgsql AS $$ BEGIN CALL tx1(3); END $$")
    db.execute("CALL tx6()")
    assert rows(db, "SELECT id FROM t ORDER BY id") == [(0,), (2,)]
    db.execute("DELETE FROM t")
    db.execute("CREATE PROCEDURE tx7() LANGUAGE plpgsql AS $$ BEGIN DO 'BEGIN CALL tx1(3); END'; END $$")
    db.execute("CALL tx7()")
    assert rows(db, "SELECT id FROM t ORDER BY id") == [(0,), (2,)]
    db.execute("DELETE FROM t")
    db.execute("CREATE PROCEDURE tx8() LANGUAGE plpgsql AS $$ BEGIN EXECUTE 'CALL tx1(3)'; END $$")
    e = error(db, "CALL tx8()")
    assert (e.sqlstate, str(e).splitlines()[0]) == ("2D000", "invalid transaction termination")
    db.execute("CREATE FUNCTION tx3() RETURNS int LANGUAGE plpgsql AS $$ BEGIN CALL tx1(3); RETURN 1; END $$")
    assert error(db, "SELECT tx3()").sqlstate == "2D000"
    e = error(db, "DO $$ BEGIN BEGIN CALL tx1(3); EXCEPTION WHEN division_by_zero THEN NULL; END; END $$")
    assert (e.sqlstate, str(e).splitlines()[0]) == ("2D000", "cannot commit while a subtransaction is active")
    db.execute("BEGIN")
    assert error(db, "CALL tx6()").sqlstate == "2D000"
    db.execute("ROLLBACK")
    assert rows(db, "SELECT count(*) FROM t") == [(0,)]


def test_out_parameters_of_plpgsql_functions(db):
    """PostgreSQL's plpgsql.out f1 (OUT / INOUT parameters): the result is their values at the
    end (RETURN; or none), a record of several; RETURN with a value is 42804 there; RETURNS
    SETOF record returns a row per RETURN NEXT."""
    e = error(db, "CREATE FUNCTION f1(i int, OUT j int) RETURNS int AS $$ BEGIN RETURN i + 1; END $$ LANGUAGE plpgsql")
    assert (e.sqlstate, str(e).splitlines()[0]) == (
        "42804", "RETURN cannot have a parameter in function with OUT parameters")
    db.execute("CREATE FUNCTION f1(i int, OUT j int) AS $$ BEGIN j := i + 1; RETURN; END $$ LANGUAGE plpgsql")
    assert rows(db, "SELECT f1(42)") == [(43,)]
    cur = db.execute("SELECT * FROM f1(42)")
    assert [d[0] for d in cur.description] == ["j"] and cur.fetchall() == [(43,)]
    db.execute("CREATE FUNCTION f2(INOUT i int) AS $$ BEGIN i := i + 1; END $$ LANGUAGE plpgsql")
    assert rows(db, "SELECT f2(42), * FROM f2(1)") == [(43, 2)]
    db.execute("CREATE FUNCTION f3(i int, OUT j int, OUT k text) AS $$ BEGIN j := i; j := j + 1; k := 'foo'; END $$ "
               "LANGUAGE plpgsql")
    assert rows(db, "SELECT f3(42), (f3(1)).k") == [({"j": 43, "k": "foo"}, "foo")]
    assert rows(db, "SELECT * FROM f3(42)") == [(43, "foo")]
    db.execute("""CREATE FUNCTION f4(i int, OUT j int, OUT k text) RETURNS SETOF record AS $$
      BEGIN j := i + 1; k := 'foo'; RETURN NEXT; j := j + 1; k := 'foot'; RETURN NEXT; END $$ LANGUAGE plpgsql""")
    assert rows(db, "SELECT * FROM f4(42)") == [(43, "foo"), (44, "foot")]
