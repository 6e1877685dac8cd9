"""PL/pgSQL DO blocks (engine/plpgsql.py), as PostgreSQL 16 runs them: each statement kind, the
EXCEPTION handler's rollback to the savepoint its block began with, FOUND / ROW_COUNT, RAISE's
messages and errors (SQLSTATE, CONTEXT), and the DO's transaction."""

import time

import pytest

import txlake


@pytest.fixture
def db(connect):
    conn = connect(autocommit=True)
    conn.execute("CREATE TABLE t (id INT PRIMARY KEY, v TEXT)")
    return conn


def notices(conn) -> list[str]:
    found = list(conn.notices)
    conn.notices.clear()
    return found


def rows(conn, sql):
    return conn.execute(sql).fetchall()


def test_the_migration_idioms(db):
    """The brief's three: conditional DDL, a data fix in a FOR loop, ADD COLUMN guarded by a handler."""
    db.execute("INSERT INTO t VALUES (1, NULL), (2, 'b@x'), (3, NULL)")
    for _ in range(2):
        db.execute("""DO $$ BEGIN
          IF NOT EXISTS (SELECT 1 FROM pg_type WHERE typname = 'mood') THEN
            CREATE TYPE mood AS ENUM ('sad', 'ok');
          END IF;
        END $$;""")
    assert rows(db, "SELECT count(*) FROM pg_type WHERE typname = 'mood'") == [(1,)]
    db.execute("""DO $$ DECLARE r record; BEGIN
      FOR r IN SELECT id FROM t WHERE v IS NULL LOOP
        UPDATE t SET v = 'user' || r.id || '@example.com' WHERE id = r.id;
      END LOOP;
    END $$;""")
    assert rows(db, "SELECT v FROM t ORDER BY id") == [("user1@example.com",), ("b@x",), ("user3@example.com",)]
    for _ in range(2):
        db.execute("DO LANGUAGE plpgsql $$ BEGIN ALTER TABLE t ADD COLUMN c int; "
                   "EXCEPTION WHEN duplicate_column THEN RAISE NOTICE 'there'; END $$;")
    assert notices(db) == ["NOTICE:  there"]
    assert [d[0] for d in db.execute("SELECT * FROM t").description] == ["id", "v", "c"]


def test_declarations_scopes_and_labels(db):
    db.execute("""DO $$ <<outer>> DECLARE
        x int := 1; y CONSTANT text = 'c'; z numeric(5,2) DEFAULT 2.345; w x%TYPE; n int NOT NULL := 0;
      BEGIN
        DECLARE x int := 2; BEGIN RAISE NOTICE 'inner % outer % %', x, outer.x, y; END;
        w := x + 41;
        RAISE NOTICE 'z=% w=% n=%', z, w, n;
      END outer $$""")
    assert notices(db) == ["NOTICE:  inner 2 outer 1 c", "NOTICE:  z=2.35 w=42 n=0"]


@pytest.mark.parametrize("body, sqlstate, message", [
    ("DECLARE c CONSTANT int := 1; BEGIN c := 2; END", "42601", 'variable "c" is declared CONSTANT'),
    ("DECLARE n int NOT NULL; BEGIN END", "22004",
     'variable "n" must have a default value, since it\'s declared NOT NULL'),
    ("BEGIN\n  foo bar;\nEND", "42601", 'syntax error at or near "foo"'),
    ("BEGIN RAISE NOTICE '% %', 1; END", "42601", "too few parameters specified for RAISE"),
    ("BEGIN NULL; EXCEPTION WHEN no_such_thing THEN NULL; END", "42704",
     'unrecognized exception condition "no_such_thing"'),
    ("BEGIN EXIT; END", "42601", "EXIT cannot be used outside a loop, unless it has a label"),
    ("BEGIN RETURN 1; END", "42804", "RETURN cannot have a parameter in function returning void"),
])
def test_compilation_errors(db, body, sqlstate, message):
    with pytest.raises(txlake.Error) as info:
        db.execute(f"DO $$ {body} $$")
    assert info.value.sqlstate == sqlstate
    assert str(info.value).split("\n")[0] == message
    assert 'compilation of PL/pgSQL function "inline_code_block" near line' in str(info.value)


def test_a_syntax_error_names_its_line(db):
    with pytest.raises(txlake.ProgrammingError) as info:
        db.execute("DO $$\nBEGIN\n  PERFORM 1;\n  foo bar;\nEND $$")
    assert info.value.diag.context == 'compilation of PL/pgSQL function "inline_code_block" near line 4'


def test_control_structures(db):
    db.execute("""DO $$ DECLARE i int := 0; s text := ''; e int; BEGIN
      <<l>> LOOP
        i := i + 1;
        CONTINUE WHEN i % 2 = 0;
        EXIT l WHEN i > 7;
        s := s || i || ',';
      END LOOP;
      WHILE i > 0 LOOP i := i - 3; END LOOP;
      FOREACH e IN ARRAY ARRAY[1, 2, 3] LOOP s := s || '[' || e || ']'; END LOOP;
      FOR k IN REVERSE 10..1 BY 4 LOOP s := s || k || ' '; END LOOP;
      FOR k IN 1..0 LOOP s := s || 'never'; END LOOP;
      IF i < -5 THEN s := s || 'a'; ELSIF i < 0 THEN s := s || 'b'; ELSE s := s || 'c'; END IF;
      CASE i WHEN -1, -2 THEN s := s || ' m12'; ELSE s := s || ' other'; END CASE;
      CASE WHEN i = 0 THEN s := s || ' zero'; END CASE;
      RAISE NOTICE '% %', s, i;
      RETURN;
      RAISE NOTICE 'not reached';
    END $$""")
    assert notices(db) == ["NOTICE:  1,3,5,7,[1][2][3]10 6 2 c other zero 0"]
    with pytest.raises(txlake.Error) as info:
        db.execute("DO $$ BEGIN CASE 1 WHEN 2 THEN NULL; END CASE; END $$")
    assert info.value.sqlstate == "20000" and str(info.value).startswith("case not found")


def test_a_loop_of_ten_thousand(db):
    started = time.monotonic()
    db.execute("DO $$ DECLARE s bigint := 0; BEGIN FOR i IN 1..10000 LOOP s := s + i; "
               "IF i % 1000 = 0 THEN s := s + 0; END IF; END LOOP; RAISE NOTICE '%', s; END $$")
    assert notices(db) == ["NOTICE:  50005000"]
    assert time.monotonic() - started < 30  # (about 0.02 s: simple expressions run without a query)


def test_simple_expressions_keep_postgresql_arithmetic(db):
    with pytest.raises(txlake.Error) as info:
        db.execute("DO $$ DECLARE i int := 2147483647; BEGIN i := i + 1; END $$")
    assert info.value.sqlstate == "22003" and str(info.value).startswith("integer out of range")
    db.execute("DO $$ DECLARE a int := -7; b bigint := 2147483647; BEGIN "
               "RAISE NOTICE '% % % %', a / 2, a % 2, b + 1, NULL::int IS NULL; END $$")
    assert notices(db) == ["NOTICE:  -3 -1 2147483648 t"]
    with pytest.raises(txlake.Error) as info:
        db.execute("DO $$ DECLARE n int NOT NULL := 1; BEGIN n := NULL; END $$")
    assert str(info.value) == ('null value cannot be assigned to variable "n" declared NOT NULL\n'
                               "CONTEXT:  PL/pgSQL function inline_code_block line 1 at assignment")


def test_assignment_to_bounded_text_is_checked_not_cut(db):
    # x := 'abcdef' for a varchar(3) kept 'abc' (the assignment ran an explicit CAST, which cuts):
    # PostgreSQL's assignment cast is 22001, but for trailing spaces, as an INSERT's
    for body, words in (("x varchar(3); BEGIN x := 'abcdef';", "character varying(3)"),
                        ("x char(2); BEGIN x := 'abc';", "character(2)"),
                        ("x varchar(3) := 12345; BEGIN", "character varying(3)"),
                        ("x varchar(5); BEGIN SELECT 'abcdefg' INTO x;", "character varying(5)")):
        with pytest.raises(txlake.Error) as info:
            db.execute(f"DO $$ DECLARE {body} END $$")
        assert info.value.sqlstate == "22001" and f"value too long for type {words}" in str(info.value)
    db.execute("DO $$ DECLARE x varchar(3); BEGIN x := 'ab    '; RAISE NOTICE '[%]', x; "
               "x := upper('ab') || 'c'; RAISE NOTICE '[%]', x; END $$")
    assert notices(db) == ["NOTICE:  [ab ]", "NOTICE:  [ABc]"]


def test_found_and_row_count(db):
    db.execute("INSERT INTO t VALUES (1, 'a'), (2, 'b')")
    db.execute("""DO $$ DECLARE n int; x text; r record; BEGIN
      UPDATE t SET v = v || '!';
      GET DIAGNOSTICS n = ROW_COUNT;
      RAISE NOTICE 'updated % %', n, FOUND;
      DELETE FROM t WHERE id = 99;
      GET DIAGNOSTICS n = ROW_COUNT;
      RAISE NOTICE 'deleted % %', n, FOUND;
      SELECT v INTO x FROM t WHERE id = 2;
      RAISE NOTICE 'x=% %', x, FOUND;
      SELECT * INTO r FROM t WHERE id = 99;
      RAISE NOTICE 'none % %', r.v, FOUND;
      PERFORM * FROM t;
      RAISE NOTICE 'perform %', FOUND;
      FOR r IN SELECT * FROM t WHERE false LOOP END LOOP;
      RAISE NOTICE 'for %', FOUND;
    END $$""")
    assert notices(db) == ["NOTICE:  updated 2 t", "NOTICE:  deleted 0 f", "NOTICE:  x=b! t",
                           "NOTICE:  none <NULL> f", "NOTICE:  perform t", "NOTICE:  for f"]


def test_select_into_strict(db):
    db.execute("INSERT INTO t VALUES (1, 'a'), (2, 'b')")
    with pytest.raises(txlake.Error) as info:
        db.execute("DO $$ DECLARE x text; BEGIN SELECT v INTO STRICT x FROM t WHERE id = 9; END $$")
    assert info.value.sqlstate == "P0002" and str(info.value).startswith("query returned no rows")
    with pytest.raises(txlake.Error) as info:
        db.execute("DO $$ DECLARE x text; BEGIN SELECT v INTO STRICT x FROM t; END $$")
    assert info.value.sqlstate == "P0003"
    with pytest.raises(txlake.Error) as info:  # (RETURNING ... INTO of two rows, even without STRICT)
        db.execute("DO $$ DECLARE x int; BEGIN UPDATE t SET v = v RETURNING id INTO x; END $$")
    assert info.value.sqlstate == "P0003"


def test_insert_returning_into_and_execute(db):
    db.execute("""DO $$ DECLARE n int; k int; BEGIN
      INSERT INTO t VALUES (10, 'ten') RETURNING id INTO k;
      EXECUTE format('CREATE TABLE %I (a int)', 'dyn t');
      EXECUTE 'INSERT INTO ' || quote_ident('dyn t') || ' VALUES ($1), ($2)' USING k, k + 1;
      EXECUTE 'SELECT count(*) FROM "dyn t" WHERE a > $1' INTO n USING 0;
      RAISE NOTICE '% %', k, n;
      FOR k IN EXECUTE 'SELECT a FROM "dyn t" ORDER BY a DESC' LOOP RAISE NOTICE 'a=%', k; END LOOP;
    END $$""")
    assert notices(db) == ["NOTICE:  10 2", "NOTICE:  a=11", "NOTICE:  a=10"]
    db.execute("DO $$ BEGIN EXECUTE 'DO $i$ BEGIN RAISE NOTICE ''inner''; END $i$'; RAISE NOTICE 'outer'; END $$")
    assert notices(db) == ["NOTICE:  inner", "NOTICE:  outer"]


def test_a_caught_error_rolls_back_its_block_only(db):
    db.execute("""DO $$ BEGIN
      INSERT INTO t VALUES (1, 'a');
      BEGIN
        INSERT INTO t VALUES (2, 'b');
        INSERT INTO t VALUES (1, 'dup');
      EXCEPTION WHEN unique_violation THEN
        RAISE NOTICE 'caught % %', SQLSTATE, SQLERRM;
      END;
      INSERT INTO t VALUES (3, 'c');
    END $$""")
    assert rows(db, "SELECT id FROM t ORDER BY id") == [(1,), (3,)]
    assert notices(db) == ['NOTICE:  caught 23505 duplicate key value violates unique constraint "t_pkey"']


def test_handlers_conditions_and_diagnostics(db):
    db.execute("""DO $$ DECLARE m text; s text; d text; BEGIN
      BEGIN PERFORM 1 / 0; EXCEPTION WHEN SQLSTATE '22012' THEN RAISE NOTICE 'by code'; END;
      BEGIN PERFORM 1 / 0; EXCEPTION WHEN data_exception THEN RAISE NOTICE 'by class'; END;
      BEGIN PERFORM 1 / 0; EXCEPTION WHEN unique_violation OR division_by_zero THEN RAISE NOTICE 'by or'; END;
      BEGIN RAISE EXCEPTION 'custom %', 7 USING DETAIL = 'dd', ERRCODE = 'P0099';
      EXCEPTION WHEN OTHERS THEN
        GET STACKED DIAGNOSTICS m = MESSAGE_TEXT, s = RETURNED_SQLSTATE, d = PG_EXCEPTION_DETAIL;
        RAISE NOTICE '% % %', m, s, d;
      END;
    END $$""")
    assert notices(db) == ["NOTICE:  by code", "NOTICE:  by class", "NOTICE:  by or", "NOTICE:  custom 7 P0099 dd"]


def test_an_uncaught_error_and_reraise(db):
    with pytest.raises(txlake.DivisionByZero) as info:
        db.execute("DO $$ BEGIN\n  BEGIN PERFORM 1 / 0;\n  EXCEPTION WHEN division_by_zero THEN "
                   "RAISE NOTICE 'seen'; RAISE; END;\nEND $$")
    assert info.value.diag.context == ('SQL statement "SELECT 1 / 0"\n'
                                       "PL/pgSQL function inline_code_block line 2 at PERFORM")
    assert notices(db) == ["NOTICE:  seen"]


def test_raise_levels_and_errcode(db):
    with pytest.raises(txlake.IntegrityError) as info:
        db.execute("DO $$ BEGIN RAISE NOTICE 'n %', 1; RAISE WARNING 'w'; RAISE INFO 'i'; RAISE DEBUG 'd'; "
                   "RAISE EXCEPTION 'dup %', 42 USING ERRCODE = 'unique_violation', HINT = 'h'; END $$")
    assert info.value.sqlstate == "23505"
    assert str(info.value) == "dup 42\nHINT:  h\nCONTEXT:  PL/pgSQL function inline_code_block line 1 at RAISE"
    assert notices(db) == ["NOTICE:  n 1", "WARNING:  w", "INFO:  i"]
    db.execute("DO $$ BEGIN RAISE NOTICE 'n' USING DETAIL = 'd', HINT = 'h'; END $$")
    assert notices(db) == ["NOTICE:  n", "NOTICE:  DETAIL:  d", "NOTICE:  HINT:  h"]  # (as txlake tells any DETAIL)
    with pytest.raises(txlake.ProgrammingError) as info:  # (class P0, as psycopg's)
        db.execute("DO $$ BEGIN RAISE 'plain'; END $$")
    assert info.value.sqlstate == "P0001"
    with pytest.raises(txlake.DivisionByZero) as info:
        db.execute("DO $$ BEGIN RAISE division_by_zero; END $$")
    assert str(info.value).split("\n")[0] == "division_by_zero"
    with pytest.raises(txlake.IntegrityError) as info:  # (no message: the code, as PostgreSQL's)
        db.execute("DO $$ BEGIN RAISE USING ERRCODE = 'unique_violation'; END $$")
    assert str(info.value).split("\n")[0] == "23505"
    with pytest.raises(txlake.Error) as info:
        db.execute("DO $$ BEGIN ASSERT 1 = 2, 'nope'; END $$")
    assert info.value.sqlstate == "P0004" and str(info.value).startswith("nope")


def test_runtime_errors_carry_postgresql_context(db):
    with pytest.raises(txlake.DivisionByZero) as info:
        db.execute("DO $$\nBEGIN\n  RAISE NOTICE '%', 1 / 0;\nEND $$")
    assert info.value.diag.context == 'SQL expression "1 / 0"\nPL/pgSQL function inline_code_block line 3 at RAISE'
    with pytest.raises(txlake.Error) as info:
        db.execute("DO $$ BEGIN\n INSERT INTO t VALUES (1, 'a');\n INSERT INTO t VALUES (1, 'b');\nEND $$")
    assert info.value.sqlstate == "23505"
    assert info.value.diag.context == ('SQL statement "INSERT INTO t VALUES (1, \'b\')"\n'
                                       "PL/pgSQL function inline_code_block line 3 at SQL statement")
    assert rows(db, "SELECT count(*) FROM t") == [(0,)]  # (all or nothing)
    for statement in ("SELECT 1", "INSERT INTO t VALUES (7, 'x') RETURNING id"):
        with pytest.raises(txlake.ProgrammingError) as info:
            db.execute(f"DO $$ BEGIN {statement}; END $$")
        assert str(info.value).startswith("query has no destination for result data")


def test_the_dos_transaction(db, connect):
    other = connect(autocommit=True)
    db.execute("BEGIN")
    db.execute("DO $$ BEGIN INSERT INTO t VALUES (1, 'x'); END $$")
    assert rows(other, "SELECT count(*) FROM t") == [(0,)]
    db.execute("ROLLBACK")
    assert rows(db, "SELECT count(*) FROM t") == [(0,)]
    # outside a block: its own transaction, which COMMIT / ROLLBACK inside may end
    db.execute("DO $$ BEGIN INSERT INTO t VALUES (1, 'a'); COMMIT; INSERT INTO t VALUES (2, 'b'); ROLLBACK; "
               "INSERT INTO t VALUES (3, 'c'); END $$")
    assert rows(other, "SELECT id FROM t ORDER BY id") == [(1,), (3,)]
    db.execute("BEGIN")
    with pytest.raises(txlake.Error) as info:
        db.execute("DO $$ BEGIN COMMIT; END $$")
    assert info.value.sqlstate == "2D000"
    with pytest.raises(txlake.Error) as info:  # (the block failed, as PostgreSQL's)
        db.execute("SELECT 1")
    assert info.value.sqlstate == "25P02"
    db.execute("ROLLBACK")
    with pytest.raises(txlake.Error) as info:
        db.execute("DO $$ BEGIN BEGIN COMMIT; EXCEPTION WHEN others THEN RAISE; END; END $$")
    assert info.value.sqlstate == "2D000"
    assert rows(db, "SELECT count(*) FROM t") == [(2,)]


def test_without_autocommit_a_do_is_in_the_connections_transaction(connect):
    conn = connect()
    conn.execute("CREATE TABLE t (id INT)")
    conn.commit()
    conn.execute("DO $$ BEGIN INSERT INTO t VALUES (1); END $$")
    conn.rollback()
    assert conn.execute("SELECT count(*) FROM t").fetchone() == (0,)


def test_other_languages(db):
    with pytest.raises(txlake.NotSupportedError):
        db.execute("DO LANGUAGE sql $$ SELECT 1 $$")
    with pytest.raises(txlake.Error) as info:
        db.execute("DO $$ BEGIN END $$ LANGUAGE plperl")
    assert info.value.sqlstate == "42704"


def test_a_script_runs_its_do_blocks_and_shows_their_notices(tmp_path, monkeypatch, capsys):
    """``txlake WAREHOUSE -f file`` (as ``\\i``): a DO block of several lines, a ``;`` inside its
    dollar quotes, its NOTICEs and its error shown as psql shows them; the load goes on."""
    from txlake.repl import cli
    monkeypatch.setenv("TXLAKE_HISTFILE", str(tmp_path / "history"))
    script = tmp_path / "load.sql"
    script.write_text("CREATE TABLE a (id int);\n"
                      "DO $$\nBEGIN\n  INSERT INTO a VALUES (1);\n  RAISE NOTICE 'rows: %', (SELECT count(*) FROM a);\n"
                      "END\n$$;\n"
                      "DO $body$ BEGIN RAISE NOTICE 'semi; colon'; END $body$ LANGUAGE plpgsql;\n"
                      "DO $$ BEGIN INSERT INTO a VALUES (2); RAISE EXCEPTION 'stop'; END $$;\n"
                      "SELECT count(*) FROM a;\n")
    assert cli.main([str(tmp_path / "wh"), "-f", str(script)]) == 0
    out, err = capsys.readouterr()
    assert "NOTICE:  rows: 1\nNOTICE:  semi; colon\n" in err
    assert "ERROR:  P0001: stop\nCONTEXT:  PL/pgSQL function inline_code_block line 1 at RAISE" in err
    assert out.count("DO\n") == 2 and "     1\n" in out


def test_a_body_runs_with_variables_its_caller_declares(db):
    """The entry points a function (or trigger) caller needs: a body parsed once with the
    variables declared around it, run with their values by name; its messages name it."""
    from txlake.engine import plpgsql
    body = plpgsql.compile_body("BEGIN RAISE NOTICE '% %', a + 1, b; END", (("a", "integer"), ("b", "text")),
                                name="f(integer,text)")
    assert plpgsql.compile_body("BEGIN RAISE NOTICE '% %', a + 1, b; END", (("a", "integer"), ("b", "text")),
                                name="f(integer,text)") is body
    assert plpgsql.run(db.session, body, {"a": 41, "b": "x"}) == [("NOTICE", "42 x")]
    with pytest.raises(txlake.Error) as info:
        plpgsql.run(db.session, body, {"a": 2147483647})
    assert str(info.value) == "integer out of range\nCONTEXT:  SQL expression \"a + 1\"\n" \
                              "PL/pgSQL function f(integer,text) line 1 at RAISE"
    with pytest.raises(txlake.Error) as info:
        plpgsql.compile_body("BEGIN x := 1; END", (("a", "integer"),), name="f(integer)")
    assert str(info.value).endswith('CONTEXT:  compilation of PL/pgSQL function "f(integer)" near line 1')


# PostgreSQL 16's src/pl/plpgsql/src/expected/plpgsql_control.out: its DO blocks, verbatim, and
# the NOTICEs (or the error) it gives for each (the function for_vect() as a DO)
_CONTROL_OUT = [
    ("do $$\n"
     "begin\n"
     "  -- basic case\n"
     "  for i in 1..3 loop\n"
     "    raise notice '1..3: i = %', i;\n"
     "  end loop;\n"
     "  -- with BY, end matches exactly\n"
     "  for i in 1..10 by 3 loop\n"
     "    raise notice '1..10 by 3: i = %', i;\n"
     "  end loop;\n"
     "  -- with BY, end does not match\n"
     "  for i in 1..11 by 3 loop\n"
     "    raise notice '1..11 by 3: i = %', i;\n"
     "  end loop;\n"
     "  -- zero iterations\n"
     "  for i in 1..0 by 3 loop\n"
     "    raise notice '1..0 by 3: i = %', i;\n"
     "  end loop;\n"
     "  -- REVERSE\n"
     "  for i in reverse 10..0 by 3 loop\n"
     "    raise notice 'reverse 10..0 by 3: i = %', i;\n"
     "  end loop;\n"
     "  -- potential overflow\n"
     "  for i in 2147483620..2147483647 by 10 loop\n"
     "    raise notice '2147483620..2147483647 by 10: i = %', i;\n"
     "  end loop;\n"
     "  -- potential overflow, reverse direction\n"
     "  for i in reverse -2147483620..-2147483647 by 10 loop\n"
     "    raise notice 'reverse -2147483620..-2147483647 by 10: i = %', i;\n"
     "  end loop;\n"
     "end$$;",
     ['NOTICE:  1..3: i = 1',
      'NOTICE:  1..3: i = 2',
      'NOTICE:  1..3: i = 3',
      'NOTICE:  1..10 by 3: i = 1',
      'NOTICE:  1..10 by 3: i = 4',
      'NOTICE:  1..10 by 3: i = 7',
      'NOTICE:  1..10 by 3: i = 10',
      'NOTICE:  1..11 by 3: i = 1',
      'NOTICE:  1..11 by 3: i = 4',
      'NOTICE:  1..11 by 3: i = 7',
      'NOTICE:  1..11 by 3: i = 10',
      'NOTICE:  reverse 10..0 by 3: i = 10',
      'NOTICE:  reverse 10..0 by 3: i = 7',
      'NOTICE:  reverse 10..0 by 3: i = 4',
      'NOTICE:  reverse 10..0 by 3: i = 1',
      'NOTICE:  2147483620..2147483647 by 10: i = 2147483620',
      'NOTICE:  2147483620..2147483647 by 10: i = 2147483630',
      'NOTICE:  2147483620..2147483647 by 10: i = 2147483640',
      'NOTICE:  reverse -2147483620..-2147483647 by 10: i = -2147483620',
      'NOTICE:  reverse -2147483620..-2147483647 by 10: i = -2147483630',
      'NOTICE:  reverse -2147483620..-2147483647 by 10: i = -2147483640']),
    ("do $$\n"
     "begin\n"
     "  for i in reverse 1..3 by -1 loop\n"
     "    raise notice 'reverse 1..3 by -1: i = %', i;\n"
     "  end loop;\n"
     "end$$;",
     ['ERROR:  BY value of FOR loop must be greater than zero',
      'CONTEXT:  PL/pgSQL function inline_code_block line 3 at FOR with integer loop variable']),
    ("do $$\n"
     "begin\n"
     "for i in 1..10 loop\n"
     "  <<innerblock>>\n"
     "  begin\n"
     "    begin  -- unlabeled block\n"
     "      exit;\n"
     "      raise notice 'should not get here';\n"
     "    end;\n"
     "    raise notice 'should not get here, either';\n"
     "  end;\n"
     "  raise notice 'nor here';\n"
     "end loop;\n"
     "raise notice 'should get here';\n"
     "end$$;",
     ['NOTICE:  should get here']),
    ("do $$\n"
     "<<outerblock>>\n"
     "begin\n"
     "  <<innerblock>>\n"
     "  begin\n"
     "    <<moreinnerblock>>\n"
     "    begin\n"
     "      begin  -- unlabeled block\n"
     "        exit innerblock;\n"
     "        raise notice 'should not get here';\n"
     "      end;\n"
     "      raise notice 'should not get here, either';\n"
     "    end;\n"
     "    raise notice 'nor here';\n"
     "  end;\n"
     "  raise notice 'should get here';\n"
     "end$$;",
     ['NOTICE:  should get here']),
    ("do $$\n"
     "begin\n"
     "  <<outermostwhile>>\n"
     "  while 1 > 0 loop\n"
     "    <<outerwhile>>\n"
     "    while 1 > 0 loop\n"
     "      <<innerwhile>>\n"
     "      while 1 > 0 loop\n"
     "        exit;\n"
     "        raise notice 'should not get here';\n"
     "      end loop;\n"
     "      raise notice 'should get here';\n"
     "      exit outermostwhile;\n"
     "      raise notice 'should not get here, either';\n"
     "    end loop;\n"
     "    raise notice 'nor here';\n"
     "  end loop;\n"
     "  raise notice 'should get here, too';\n"
     "end$$;",
     ['NOTICE:  should get here',
      'NOTICE:  should get here, too']),
    ("do $$\n"
     "declare i int := 0;\n"
     "begin\n"
     "  <<outermostwhile>>\n"
     "  while i < 2 loop\n"
     "    raise notice 'outermostwhile, i = %', i;\n"
     "    i := i + 1;\n"
     "    <<outerwhile>>\n"
     "    while 1 > 0 loop\n"
     "      <<innerwhile>>\n"
     "      while 1 > 0 loop\n"
     "        continue outermostwhile;\n"
     "        raise notice 'should not get here';\n"
     "      end loop;\n"
     "      raise notice 'should not get here, either';\n"
     "    end loop;\n"
     "    raise notice 'nor here';\n"
     "  end loop;\n"
     "  raise notice 'out of outermostwhile, i = %', i;\n"
     "end$$;",
     ['NOTICE:  outermostwhile, i = 0',
      'NOTICE:  outermostwhile, i = 1',
      'NOTICE:  out of outermostwhile, i = 2']),
    ("do $proc$\n"
     "<<lbl>>declare a integer; b varchar; c varchar; r record;\n"
     "begin\n"
     "  -- fori\n"
     "  for i in 1 .. 3 loop\n"
     "    raise notice '%', i;\n"
     "  end loop;\n"
     "  -- fore with record var\n"
     "  for r in select gs as aa, 'BB' as bb, 'CC' as cc from generate_series(1,4) gs loop\n"
     "    raise notice '% % %', r.aa, r.bb, r.cc;\n"
     "  end loop;\n"
     "  -- fore with single scalar\n"
     "  for a in select gs from generate_series(1,4) gs loop\n"
     "    raise notice '%', a;\n"
     "  end loop;\n"
     "  -- fore with multiple scalars\n"
     "  for a,b,c in select gs, 'BB','CC' from generate_series(1,4) gs loop\n"
     "    raise notice '% % %', a, b, c;\n"
     "  end loop;\n"
     "  -- using qualified names in fors, fore is enabled, disabled only for fori\n"
     "  for lbl.a, lbl.b, lbl.c in execute $$select gs, 'bb','cc' from generate_series(1,4) gs$$ loop\n"
     "    raise notice '% % %', a, b, c;\n"
     "  end loop;\n"
     "end;\n"
     "$proc$;",
     ['NOTICE:  1',
      'NOTICE:  2',
      'NOTICE:  3',
      'NOTICE:  1 BB CC',
      'NOTICE:  2 BB CC',
      'NOTICE:  3 BB CC',
      'NOTICE:  4 BB CC',
      'NOTICE:  1',
      'NOTICE:  2',
      'NOTICE:  3',
      'NOTICE:  4',
      'NOTICE:  1 BB CC',
      'NOTICE:  2 BB CC',
      'NOTICE:  3 BB CC',
      'NOTICE:  4 BB CC',
      'NOTICE:  1 bb cc',
      'NOTICE:  2 bb cc',
      'NOTICE:  3 bb cc',
      'NOTICE:  4 bb cc']),
]


@pytest.mark.parametrize("sql, expected", _CONTROL_OUT)
def test_postgresql_s_control_structure_tests(db, sql, expected):
    try:
        db.execute(sql)
        shown = notices(db)
    except txlake.Error as e:
        shown = notices(db) + f"ERROR:  {e}".split("\n")
    assert shown == "\n".join(expected).split("\n")


def _shown(conn, sql) -> list[str]:
    try:
        conn.execute(sql)
        return notices(conn)
    except txlake.Error as e:
        return notices(conn) + f"ERROR:  {e}".split("\n")


def test_postgresql_s_transaction_tests(db):
    """DO blocks of PostgreSQL 16's plpgsql_transaction.out, verbatim, with its answers."""
    db.execute("CREATE TABLE test1 (a int, b text)")
    db.execute("CREATE TABLE test2 (x int)")
    db.execute("INSERT INTO test2 VALUES (0), (1), (2), (3), (4)")
    assert _shown(db, "DO LANGUAGE plpgsql\n$$\nBEGIN\n    FOR i IN 0..9 LOOP\n        INSERT INTO test1 (a) "
                      "VALUES (i);\n        IF i % 2 = 0 THEN\n            COMMIT;\n        ELSE\n            "
                      "ROLLBACK;\n        END IF;\n    END LOOP;\nEND\n$$;") == []
    assert rows(db, "SELECT a FROM test1 ORDER BY a") == [(0,), (2,), (4,), (6,), (8,)]
    db.execute("TRUNCATE test1")
    assert _shown(db, "DO LANGUAGE plpgsql $$\nDECLARE\n    r RECORD;\nBEGIN\n    FOR r IN SELECT * FROM test2 "
                      "ORDER BY x LOOP\n        INSERT INTO test1 (a) VALUES (12/(r.x-2));\n        COMMIT;\n"
                      "    END LOOP;\nEND;\n$$;") == [
        "ERROR:  division by zero", 'CONTEXT:  SQL statement "INSERT INTO test1 (a) VALUES (12/(r.x-2))"',
        "PL/pgSQL function inline_code_block line 6 at SQL statement"]
    assert rows(db, "SELECT a FROM test1 ORDER BY a") == [(-12,), (-6,)]
    db.execute("TRUNCATE test1")
    assert _shown(db, "DO LANGUAGE plpgsql $$\nDECLARE\n    r RECORD;\nBEGIN\n    FOR r IN UPDATE test2 SET x = "
                      "x * 2 RETURNING x LOOP\n        INSERT INTO test1 (a) VALUES (r.x);\n        ROLLBACK;\n"
                      "    END LOOP;\nEND;\n$$;") == [
        "ERROR:  cannot perform transaction commands inside a cursor loop that is not read-only",
        "CONTEXT:  PL/pgSQL function inline_code_block line 7 at ROLLBACK"]
    assert rows(db, "SELECT x FROM test2 ORDER BY x") == [(0,), (1,), (2,), (3,), (4,)]
    assert _shown(db, "DO LANGUAGE plpgsql $$\nBEGIN\n    BEGIN\n        INSERT INTO test1 (a) VALUES (1);\n"
                      "        COMMIT;\n        INSERT INTO test1 (a) VALUES (1/0);\n        COMMIT;\n    EXCEPTION\n"
                      "        WHEN division_by_zero THEN\n            RAISE NOTICE 'caught division_by_zero';\n"
                      "    END;\nEND;\n$$;") == [
        "ERROR:  cannot commit while a subtransaction is active",
        "CONTEXT:  PL/pgSQL function inline_code_block line 5 at COMMIT"]
    assert _shown(db, "DO LANGUAGE plpgsql $$\nBEGIN\n    FOR i IN 1..10 LOOP\n      BEGIN\n        INSERT INTO "
                      "test1 VALUES (i, 'good');\n        INSERT INTO test1 VALUES (i/0, 'bad');\n      EXCEPTION\n"
                      "        WHEN division_by_zero THEN\n            INSERT INTO test1 VALUES (i, 'exception');\n"
                      "            IF (i % 3) > 0 THEN COMMIT; ELSE ROLLBACK; END IF;\n      END;\n    END LOOP;\n"
                      "END;\n$$;") == []
    assert rows(db, "SELECT * FROM test1 ORDER BY a") == [(i, "exception") for i in (1, 2, 4, 5, 7, 8, 10)]
    assert _shown(db, "DO LANGUAGE plpgsql $$\nBEGIN\n    CREATE TABLE test3 (y int UNIQUE DEFERRABLE INITIALLY "
                      "DEFERRED);\n    COMMIT;\n    INSERT INTO test3 (y) VALUES (1);\n    COMMIT;\n    INSERT INTO "
                      "test3 (y) VALUES (1);\n    INSERT INTO test3 (y) VALUES (2);\n    COMMIT;\n    INSERT INTO "
                      "test3 (y) VALUES (3);  -- won't get here\nEND;\n$$;") == [
        'ERROR:  duplicate key value violates unique constraint "test3_y_key"',
        "DETAIL:  Key (y)=(1) already exists.", "CONTEXT:  PL/pgSQL function inline_code_block line 9 at COMMIT"]
    assert rows(db, "SELECT * FROM test3") == [(1,)]
    assert _shown(db, "DO LANGUAGE plpgsql $$\nBEGIN\n    SAVEPOINT foo;\nEND;\n$$;") == [
        "ERROR:  unsupported transaction command in PL/pgSQL",
        "CONTEXT:  PL/pgSQL function inline_code_block line 3 at SQL statement"]
    assert _shown(db, "DO LANGUAGE plpgsql $$\nBEGIN\n    EXECUTE 'COMMIT';\nEND;\n$$;") == [
        "ERROR:  EXECUTE of transaction commands is not implemented",
        "CONTEXT:  PL/pgSQL function inline_code_block line 3 at EXECUTE"]
    db.execute("START TRANSACTION")
    assert _shown(db, "DO LANGUAGE plpgsql $$ BEGIN COMMIT; END $$;") == [
        "ERROR:  invalid transaction termination", "CONTEXT:  PL/pgSQL function inline_code_block line 1 at COMMIT"]
    db.execute("COMMIT")


def test_plpgsql_s_own_errors_name_no_query(db):
    """STRICT's P0002 is PL/pgSQL's, not the query's: PostgreSQL's CONTEXT names only the statement."""
    db.execute("INSERT INTO t VALUES (1, 'a')")
    assert _shown(db, "do $$\ndeclare\n    rec record;\nbegin\n    select id, v\n    into strict rec\n"
                      "    from t\n    where id = 2000;\nend;\n$$") == [
        "ERROR:  query returned no rows", "CONTEXT:  PL/pgSQL function inline_code_block line 5 at SQL statement"]


def test_a_name_both_variable_and_column_is_ambiguous(db):
    """As PostgreSQL's plpgsql.variable_conflict = error: DELETE ... WHERE id = id must not delete
    every row. In VALUES, or qualified (t.id, label.id), a name is not ambiguous."""
    db.execute("INSERT INTO t VALUES (1, 'a'), (2, 'b')")
    for statement in ("DELETE FROM t WHERE id = id", "UPDATE t SET v = 'x' WHERE t.id = id",
                      "PERFORM 1 FROM t WHERE v = 'a' AND id > 0"):
        with pytest.raises(txlake.ProgrammingError) as info:
            db.execute(f"DO $$ DECLARE id int := 1; BEGIN {statement}; END $$")
        assert info.value.sqlstate == "42702" and str(info.value).startswith('column reference "id" is ambiguous')
    db.execute("DO $$ <<b>> DECLARE id int := 3; v text := 'c'; BEGIN INSERT INTO t (id, v) VALUES (id, v); "
               "DELETE FROM t WHERE t.id = b.id - 2; END $$")
    assert rows(db, "SELECT * FROM t ORDER BY id") == [(2, "b"), (3, "c")]


def test_a_dollar_parameter_no_argument_is_gives_42p02(db):
    """``$n`` in a DO block, a trigger function or past a function's arguments: PostgreSQL's
    "there is no parameter $1" (42P02) when the statement runs, not a protocol error."""
    for code in ("RAISE NOTICE '%', $1", "PERFORM $1", "INSERT INTO t VALUES ($1, 'x')"):
        with pytest.raises(txlake.Error) as e:
            db.execute(f"DO $$ BEGIN {code}; END $$")
        assert (e.value.sqlstate, str(e.value).splitlines()[0]) == ("42P02", "there is no parameter $1")
    db.execute("CREATE FUNCTION two(a int) RETURNS int LANGUAGE plpgsql AS $$ BEGIN RETURN a + $2; END $$")
    db.execute("CREATE FUNCTION tg() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN NEW.v := $1; RETURN NEW; END $$")
    db.execute("CREATE TRIGGER tg BEFORE INSERT ON t FOR EACH ROW EXECUTE FUNCTION tg()")
    for sql, n in (("SELECT two(1)", 2), ("INSERT INTO t VALUES (1, 'x')", 1)):
        with pytest.raises(txlake.Error) as e:
            db.execute(sql)
        assert (e.value.sqlstate, str(e.value).splitlines()[0]) == ("42P02", f"there is no parameter ${n}")
    assert rows(db, "SELECT count(*) FROM t") == [(0,)]
