"""Bad input gets the right exception class and SQLSTATE - and loses nothing: the session's
committed work, its uncommitted work up to the last savepoint, other sessions' work, and the
files outside the warehouse are all as they were."""

import datetime
import decimal
import os
import re

import pytest

import txlake
from txlake import errors

SETUP = [
    "CREATE TABLE t (id INT PRIMARY KEY, name VARCHAR(5) NOT NULL, n INT, d DATE, amount DECIMAL(6,2))",
    "INSERT INTO t VALUES (1, 'a', 10, NULL, 1.50), (2, 'b', 20, NULL, 2.50)",
    "CREATE TABLE side (k TEXT)",
]
COMMITTED = [(1, "a", 10, None), (2, "b", 20, None)]

# (sql, params, exception class, sqlstate)
BAD = [
    # 42601 syntax error
    ("SELEC * FROM t", None, errors.SyntaxError, "42601"),
    ("SELECT * FROM (SELECT 1", None, errors.SyntaxError, "42601"),
    ("UPDATE t SET", None, errors.SyntaxError, "42601"),
    ("INSERT INTO t VALUES (3, 'x', 0, NULL, 0, 'extra')", None, errors.SyntaxError, "42601"),
    ("INSERT INTO t (id, name, n) VALUES (3, 'x')", None, errors.SyntaxError, "42601"),
    # 42P01 unknown table
    ("SELECT * FROM nope", None, errors.UndefinedTable, "42P01"),
    ("SELECT * FROM t JOIN nope USING (id)", None, errors.UndefinedTable, "42P01"),
    ("INSERT INTO nope VALUES (1)", None, errors.UndefinedTable, "42P01"),
    ("INSERT INTO t SELECT * FROM nope", None, errors.UndefinedTable, "42P01"),
    ("UPDATE nope SET a = 1", None, errors.UndefinedTable, "42P01"),
    ("UPDATE t SET n = 1 FROM nope WHERE true", None, errors.UndefinedTable, "42P01"),
    ("DELETE FROM nope", None, errors.UndefinedTable, "42P01"),
    ("DROP TABLE nope", None, errors.UndefinedTable, "42P01"),
    ("DROP TABLE side, nope", None, errors.UndefinedTable, "42P01"),   # drops neither
    ("ALTER TABLE nope ADD COLUMN x INT", None, errors.UndefinedTable, "42P01"),
    ("SELECT * FROM other_db.t", None, errors.UndefinedTable, "42P01"),
    ("SELECT x.id FROM t", None, errors.UndefinedTable, "42P01"),
    # 42703 unknown column
    ("SELECT nope FROM t", None, errors.UndefinedColumn, "42703"),
    ("SELECT * FROM t WHERE nope = 1", None, errors.UndefinedColumn, "42703"),
    ("SELECT t.nope FROM t", None, errors.UndefinedColumn, "42703"),
    # (an unknown column in a function txlake makes a macro of typed forms: DuckDB said 42000
    # "Macro txl_sum() has multiple overloads that match")
    ("SELECT sum(nope) FROM t", None, errors.UndefinedColumn, "42703"),
    # a function of a DuckDB extension not loaded: 42883 (DuckDB went to install it: XX000 offline)
    ("SELECT html_escape('a')", None, errors.ProgrammingError, "42883"),
    ("SELECT n, avg(nope) FROM t GROUP BY n", None, errors.UndefinedColumn, "42703"),
    ("SELECT length(nope), nope::text FROM t WHERE n = ?", (1,), errors.UndefinedColumn, "42703"),
    ("UPDATE t SET nope = 1", None, errors.UndefinedColumn, "42703"),
    ("UPDATE t SET n = nope", None, errors.UndefinedColumn, "42703"),
    ("UPDATE t SET n = 1 RETURNING nope", None, errors.UndefinedColumn, "42703"),
    ("DELETE FROM t WHERE nope = 1", None, errors.UndefinedColumn, "42703"),
    ("INSERT INTO t (id, nope) VALUES (3, 1)", None, errors.UndefinedColumn, "42703"),
    ("INSERT INTO t VALUES (1, 'z', 0, NULL, 0) ON CONFLICT (id) DO UPDATE SET nope = 1", None,
     errors.UndefinedColumn, "42703"),
    ("ALTER TABLE t DROP COLUMN nope", None, errors.UndefinedColumn, "42703"),
    ("ALTER TABLE t RENAME COLUMN nope TO x", None, errors.UndefinedColumn, "42703"),
    # 23505 unique violation: within the statement, against existing rows, through UPDATE
    ("INSERT INTO t VALUES (3, 'x', 0, NULL, 0), (3, 'y', 0, NULL, 0)", None, errors.UniqueViolation, "23505"),
    ("INSERT INTO t VALUES (1, 'dup', 0, NULL, 0)", None, errors.UniqueViolation, "23505"),
    ("INSERT INTO t VALUES (3, 'ok', 0, NULL, 0), (2, 'dup', 0, NULL, 0)", None, errors.UniqueViolation, "23505"),
    ("INSERT INTO t VALUES (?, 'dup', 0, NULL, 0)", (2,), errors.UniqueViolation, "23505"),
    ("INSERT INTO t SELECT * FROM t", None, errors.UniqueViolation, "23505"),
    ("UPDATE t SET id = 2 WHERE id = 1", None, errors.UniqueViolation, "23505"),
    ("UPDATE t SET id = 5", None, errors.UniqueViolation, "23505"),
    ("INSERT INTO t VALUES (1, 'z', 0, NULL, 0) ON CONFLICT (id) DO UPDATE SET id = 2", None,
     errors.UniqueViolation, "23505"),
    # 23502 not-null violation
    ("INSERT INTO t (id) VALUES (3)", None, errors.NotNullViolation, "23502"),
    ("INSERT INTO t VALUES (3, NULL, 0, NULL, 0)", None, errors.NotNullViolation, "23502"),
    ("INSERT INTO t VALUES (3, ?, 0, NULL, 0)", (None,), errors.NotNullViolation, "23502"),
    ("INSERT INTO t (name) VALUES ('x')", None, errors.NotNullViolation, "23502"),       # the key
    ("UPDATE t SET name = ? WHERE id = 1", (None,), errors.NotNullViolation, "23502"),
    ("UPDATE t SET name = NULL", None, errors.NotNullViolation, "23502"),
    ("UPDATE t SET name = NULL WHERE id = 2", None, errors.NotNullViolation, "23502"),
    # 22001 value too long
    ("INSERT INTO t VALUES (3, 'toolong', 0, NULL, 0)", None, errors.StringDataRightTruncation, "22001"),
    ("INSERT INTO t VALUES (3, ?, 0, NULL, 0)", ("x" * 6,), errors.StringDataRightTruncation, "22001"),
    ("UPDATE t SET name = name || 'xxxxx'", None, errors.StringDataRightTruncation, "22001"),
    ("UPDATE t SET name = ? WHERE id = 2", ("x" * 6,), errors.StringDataRightTruncation, "22001"),
    ("ALTER TABLE t ADD COLUMN c VARCHAR(3) DEFAULT 'abcdef'", None, errors.StringDataRightTruncation, "22001"),
    # 22003 out of range
    ("INSERT INTO t VALUES (3000000000, 'x', 0, NULL, 0)", None, errors.NumericValueOutOfRange, "22003"),
    ("INSERT INTO t VALUES (?, 'x', 0, NULL, 0)", (2**31,), errors.NumericValueOutOfRange, "22003"),
    ("INSERT INTO t VALUES (3, 'x', 0, NULL, 12345.0)", None, errors.NumericValueOutOfRange, "22003"),
    ("UPDATE t SET n = n + 2147483647", None, errors.NumericValueOutOfRange, "22003"),
    ("SELECT n * 2147483647 FROM t", None, errors.NumericValueOutOfRange, "22003"),
    ("INSERT INTO t VALUES (3, 'x', 0, NULL, 10000)", None, errors.NumericValueOutOfRange, "22003"),
    ("INSERT INTO t VALUES (3, 'x', 0, NULL, ?)", (10**9,), errors.NumericValueOutOfRange, "22003"),
    ("INSERT INTO t VALUES (3, 'x', 0, NULL, ?)", (1e16,), errors.NumericValueOutOfRange, "22003"),
    ("INSERT INTO t VALUES (3, 'x', '2147483648', NULL, 0)", None, errors.NumericValueOutOfRange, "22003"),
    ("INSERT INTO t VALUES (3, 'x', ?, NULL, 0)", (10**400,), errors.NumericValueOutOfRange, "22003"),
    ("SELECT 1e400", None, errors.NumericValueOutOfRange, "22003"),  # (a DOUBLE to DuckDB: it was inf)
    ("UPDATE t SET n = 1e-400 * n", None, errors.NumericValueOutOfRange, "22003"),  # (and 0)
    ("SELECT CAST(? AS DOUBLE PRECISION)", (decimal.Decimal("1E+400"),), errors.NumericValueOutOfRange, "22003"),
    ("UPDATE t SET n = ?", (decimal.Decimal("-1E+309"),), errors.NumericValueOutOfRange, "22003"),
    # 22021 a NUL in text, as PostgreSQL refuses it (it was kept)
    ("INSERT INTO t VALUES (3, ?, 0, NULL, 0)", ("a\x00b",), errors.DataError, "22021"),
    ("UPDATE t SET name = ? WHERE id = ?", ("\x00", 1), errors.DataError, "22021"),
    ("SELECT ?", (["ok", "a\x00b"],), errors.DataError, "22021"),  # (an array's elements too)
    # a parameter that cannot be sent: 0A000, not Python's TypeError (a dict is JSON text)
    ("SELECT ?", ({"a": decimal.Decimal("1.5")},), errors.NotSupportedError, "0A000"),
    ("SELECT ?", ([datetime.time(1, tzinfo=datetime.timezone.utc)],), errors.NotSupportedError, "0A000"),
    # 22P02 bad text
    ("INSERT INTO t VALUES ('abc', 'x', 0, NULL, 0)", None, errors.InvalidTextRepresentation, "22P02"),
    ("INSERT INTO t VALUES (3, 'x', ?, NULL, 0)", ("many",), errors.InvalidTextRepresentation, "22P02"),
    # (a date's bad text is 22007, invalid_datetime_format, as PostgreSQL's date_in says it)
    ("INSERT INTO t VALUES (3, 'x', 0, 'someday', 0)", None, errors.InvalidDatetimeFormat, "22007"),
    ("UPDATE t SET amount = 'lots'", None, errors.InvalidTextRepresentation, "22P02"),
    ("SELECT CAST('x' AS INT)", None, errors.InvalidTextRepresentation, "22P02"),
    # 42804 a value of the wrong type
    ("INSERT INTO t VALUES (3, 'x', ?, NULL, 0)", (datetime.date(2024, 1, 1),), errors.ProgrammingError, "42804"),
    # 22008 impossible dates
    ("INSERT INTO t VALUES (3, 'x', 0, '2023-02-29', 0)", None, errors.DatetimeFieldOverflow, "22008"),
    # 22012
    ("SELECT n // 0 FROM t", None, errors.DivisionByZero, "22012"),
    # 22025 (it was XX000)
    ("SELECT name LIKE 'a' ESCAPE 'xy' FROM t", None, errors.DataError, "22025"),
    # 08P01 wrong parameter count
    ("INSERT INTO t VALUES (?, ?, 0, NULL, 0)", (3,), errors.ProgrammingError, "08P01"),
    ("INSERT INTO t VALUES (?, ?, 0, NULL, 0)", (3, "x", 4), errors.ProgrammingError, "08P01"),
    ("SELECT * FROM t WHERE id = ?", (), errors.ProgrammingError, "08P01"),
    ("SELECT * FROM t", (1,), errors.ProgrammingError, "08P01"),
    # 42P07 duplicate table
    ("CREATE TABLE t (x INT)", None, errors.DuplicateTable, "42P07"),
    ("CREATE TABLE T (x INT)", None, errors.DuplicateTable, "42P07"),
    ("CREATE TABLE default.t (x INT)", None, errors.DuplicateTable, "42P07"),
    ("CREATE TABLE t AS SELECT 1 AS x", None, errors.DuplicateTable, "42P07"),
    # 42701 / 42P16 / 0A000: bad DDL
    ("CREATE TABLE z (a INT, a TEXT)", None, errors.DuplicateColumn, "42701"),
    ("ALTER TABLE t ADD COLUMN n INT", None, errors.DuplicateColumn, "42701"),
    ("CREATE TABLE z (a INT PRIMARY KEY, b INT PRIMARY KEY)", None, errors.ProgrammingError, "42P16"),
    ("CREATE TABLE z (a INT[] UNIQUE)", None, errors.NotSupportedError, "0A000"),
    ("ALTER TABLE t DROP CONSTRAINT nope", None, errors.UndefinedObject, "42704"),
    ("ALTER TABLE t DROP CONSTRAINT t_pkey", None, errors.NotSupportedError, "0A000"),
    # DDL PostgreSQL honours that txlake does not: refused, not ignored (they were accepted)
    ("CREATE TEMP TABLE z (a SERIAL)", None, errors.NotSupportedError, "0A000"),
    ("CREATE TABLE z (a INT PRIMARY KEY DEFERRABLE)", None, errors.NotSupportedError, "0A000"),
    ("CREATE TABLE z (a INT) PARTITION BY HASH (a)", None, errors.NotSupportedError, "0A000"),
    ('CREATE TABLE z (a TEXT COLLATE "C")', None, errors.NotSupportedError, "0A000"),
    ("CREATE TABLE z (a INT) INHERITS (t)", None, errors.NotSupportedError, "0A000"),
    ("CREATE TABLE z (a GEOMETRY)", None, errors.NotSupportedError, "0A000"),
    # an aware datetime.time: txlake has no time with time zone, and TIME would drop the zone
    ("INSERT INTO t VALUES (3, 'x', 0, NULL, ?)", (datetime.time(1, 2, tzinfo=datetime.timezone.utc),),
     errors.NotSupportedError, "0A000"),
    ("ALTER TABLE t DROP COLUMN id", None, errors.NotSupportedError, "0A000"),
    # 42602 names that would leave the warehouse
    ('CREATE TABLE "a/b" (x INT)', None, errors.InvalidName, "42602"),
    ('CREATE TABLE "..".x (x INT)', None, errors.InvalidName, "42602"),
    ('CREATE TABLE "../escape" (x INT)', None, errors.InvalidName, "42602"),
    ('CREATE TABLE "/tmp".x (x INT)', None, errors.InvalidName, "42602"),
    ('CREATE TABLE "x\\y" (x INT)', None, errors.InvalidName, "42602"),
    ('CREATE TABLE ok AS SELECT * FROM "../../etc"', None, errors.InvalidName, "42602"),
    ('SELECT * FROM "../../etc"', None, errors.InvalidName, "42602"),
    ('INSERT INTO "a/b" VALUES (1)', None, errors.InvalidName, "42602"),
    ('DROP TABLE "../t"', None, errors.InvalidName, "42602"),
    ('ALTER TABLE t RENAME TO "../u"', None, errors.InvalidName, "42602"),
    # an aggregate (42803) or a window function (42P20) where rows are taken one at a time: they
    # were run (RETURNING sum(n) summed the rows written) or refused in DuckDB's words (42000)
    ("UPDATE t SET n = sum(n)", None, errors.ProgrammingError, "42803"),
    ("UPDATE t SET n = 1 WHERE count(*) > 0", None, errors.ProgrammingError, "42803"),
    ("DELETE FROM t WHERE max(n) > 0", None, errors.ProgrammingError, "42803"),
    ("INSERT INTO t VALUES (sum(1), 'x', 0, NULL, 0)", None, errors.ProgrammingError, "42803"),
    ("INSERT INTO t VALUES (9, 'x', 0, NULL, 0) RETURNING sum(n)", None, errors.ProgrammingError, "42803"),
    ("UPDATE t SET n = n + 1 RETURNING avg(n)", None, errors.ProgrammingError, "42803"),
    ("UPDATE t SET n = n + 1 RETURNING jsonb_agg(n)", None, errors.ProgrammingError, "42803"),
    ("INSERT INTO t VALUES (1, 'x', 0, NULL, 0) ON CONFLICT (id) DO UPDATE SET n = max(excluded.n)", None,
     errors.ProgrammingError, "42803"),
    ("SELECT id FROM t WHERE sum(n) > 1", None, errors.ProgrammingError, "42803"),
    ("SELECT sum(sum(n)) FROM t", None, errors.ProgrammingError, "42803"),
    ("UPDATE t SET n = row_number() OVER ()", None, errors.ProgrammingError, "42P20"),
    ("DELETE FROM t RETURNING rank() OVER (ORDER BY id)", None, errors.ProgrammingError, "42P20"),
    ("SELECT id FROM t WHERE row_number() OVER () > 1", None, errors.ProgrammingError, "42P20"),
    ("UPDATE t SET n = n + 1 RETURNING (SELECT count(*) FROM side)", None, errors.NotSupportedError, "0A000"),
    # DuckDB's binder, in PostgreSQL's words and codes (they were 42000)
    ("SELECT *", None, errors.SyntaxError, "42601"),
    ("SELECT id FROM t ORDER BY 'x'", None, errors.SyntaxError, "42601"),
    ("SELECT CAST(n AS TEXT)", None, errors.UndefinedColumn, "42703"),
]

IDS = [f"{i:02d}-{sqlstate}" for i, (_, _, _, sqlstate) in enumerate(BAD)]
# one case per SQLSTATE (the first) for the slower checks inside a transaction block
ONE_PER_STATE = [(b, i) for b, i in zip(BAD, IDS) if b[3] not in {x[3] for x in BAD[:BAD.index(b)]}]


def state(conn, table="t"):
    return conn.execute(f"SELECT id, name, n, d FROM {table} ORDER BY id").fetchall()


def outside(tmp_path, warehouse) -> tuple:
    """Everything a statement could have created outside the warehouse: the test's directory
    (recursively, without the warehouse) and its parent."""
    mine = []
    for root, dirs, files in os.walk(tmp_path):
        if os.path.abspath(root) == os.path.abspath(warehouse):
            dirs[:] = []
            continue
        mine.extend(os.path.join(root, n) for n in dirs + files)
    return sorted(mine), sorted(os.listdir(tmp_path.parent))


def tree(path) -> list:
    return sorted(os.path.join(root, n) for root, dirs, files in os.walk(path) for n in dirs + files)


@pytest.fixture
def setup(connect):
    c = connect(autocommit=True)
    for s in SETUP:
        c.execute(s)
    return c


@pytest.mark.parametrize("sql,params,cls,sqlstate", BAD, ids=IDS)
def test_bad_statement_in_autocommit(connect, setup, warehouse, tmp_path, sql, params, cls, sqlstate):
    c = setup
    # another session with its own uncommitted work and an open snapshot - in a table of its own:
    # holding t or side, it would make a DDL statement among these wait for it (PostgreSQL's
    # table locks), before the error
    c.execute("CREATE TABLE theirs (k TEXT)")
    other = connect()
    other.execute("INSERT INTO theirs VALUES ('theirs')")
    before_outside = outside(tmp_path, warehouse)
    before_warehouse = tree(warehouse)

    with pytest.raises(cls) as info:
        c.execute(sql, params)
    error = info.value
    assert error.sqlstate == sqlstate
    assert isinstance(error, txlake.DatabaseError)
    assert str(error)

    # nothing happened: no transaction left open, committed state intact, nothing on disk
    assert not c.session.in_transaction
    assert state(c) == COMMITTED
    assert c.execute("SELECT k FROM side").fetchall() == []
    assert outside(tmp_path, warehouse) == before_outside
    assert tree(warehouse) == before_warehouse
    # the session goes on; so does the other one, and its work was never touched
    c.execute("INSERT INTO t VALUES (7, 'g', 70, NULL, 7)")
    assert other.execute("SELECT k FROM theirs").fetchall() == [("theirs",)]
    assert state(other) == COMMITTED
    other.commit()
    assert state(c) == COMMITTED + [(7, "g", 70, None)]
    assert c.execute("SELECT k FROM theirs").fetchall() == [("theirs",)]


@pytest.mark.parametrize("sql,params,cls,sqlstate", [b for b, _ in ONE_PER_STATE],
                         ids=[i for _, i in ONE_PER_STATE])
def test_bad_statement_in_a_block(connect, setup, warehouse, tmp_path, sql, params, cls, sqlstate):
    c = connect()
    c.execute("INSERT INTO t VALUES (8, 'pre', 80, NULL, 8)")     # uncommitted work...
    c.execute("SAVEPOINT s")
    c.execute("INSERT INTO side VALUES ('after')")                   # ...and some after a savepoint
    before_outside = outside(tmp_path, warehouse)

    with pytest.raises(cls) as info:
        c.execute(sql, params)
    assert info.value.sqlstate == sqlstate

    # the block is failed (PostgreSQL): everything is refused until ROLLBACK [TO SAVEPOINT]
    with pytest.raises(errors.InFailedTransaction) as info:
        c.execute("SELECT 1")
    assert info.value.sqlstate == "25P02"
    assert state(setup) == COMMITTED                                  # nothing leaked out
    c.execute("ROLLBACK TO SAVEPOINT s")
    assert state(c) == COMMITTED + [(8, "pre", 80, None)]          # work before the savepoint is kept
    assert c.execute("SELECT k FROM side").fetchall() == []
    c.commit()
    assert state(setup) == COMMITTED + [(8, "pre", 80, None)]
    assert outside(tmp_path, warehouse) == before_outside


@pytest.mark.parametrize("sql,params,cls,sqlstate", [b for b, _ in ONE_PER_STATE],
                         ids=[i for _, i in ONE_PER_STATE])
def test_rollback_after_an_error_in_a_block_keeps_committed_work(connect, setup, sql, params, cls, sqlstate):
    c = connect()
    c.execute("INSERT INTO t VALUES (9, 'z', 90, NULL, 9)")
    with pytest.raises(cls):
        c.execute(sql, params)
    c.rollback()
    assert state(c) == COMMITTED


def test_error_as_the_first_statement_without_autocommit(connect, setup):
    c = connect()
    with pytest.raises(errors.SyntaxError):
        c.execute("SELEC 1")                 # refused before any transaction began
    assert not c.session.in_transaction
    c.execute("INSERT INTO t VALUES (3, 'c', 30, NULL, 3)")
    c.commit()
    with pytest.raises(errors.UniqueViolation):
        c.execute("INSERT INTO t VALUES (3, 'c', 30, NULL, 3)")
    with pytest.raises(errors.InFailedTransaction):
        c.execute("SELECT 1")                # psycopg semantics: the implicit block failed
    c.rollback()
    assert state(c) == COMMITTED + [(3, "c", 30, None)]


def test_parameters_must_be_a_sequence(setup):
    for params in ["ab", b"ab", 5, {"a": 1}]:
        with pytest.raises(errors.ProgrammingError) as info:
            setup.execute("SELECT ?, ?", params)
        assert info.value.sqlstate == "08P01"
    assert setup.execute("SELECT ?, ?", [1, 2]).fetchall() == [(1, 2)]     # lists are sequences


def test_parameter_values_postgresql_takes_still_go_in(setup):
    """Beside the refusals in BAD (22021, 22003, 0A000): a NUL in bytes, a large Decimal
    within a DOUBLE's range, a naive time and a str subclass are taken as before - and a str
    subclass holding a NUL is refused as a str is."""
    class Name(str):
        pass

    setup.execute("CREATE TABLE p (b BYTEA, x DOUBLE PRECISION, tm TIME, s TEXT)")
    setup.execute("INSERT INTO p VALUES (?, ?, ?, ?)",
                  (b"a\x00b", decimal.Decimal("1E+300"), datetime.time(1, 2, 3), Name("n")))
    assert setup.execute("SELECT * FROM p").fetchall() == [(b"a\x00b", 1e300, datetime.time(1, 2, 3), "n")]
    with pytest.raises(errors.DataError) as info:
        setup.cursor().executemany("INSERT INTO p (s) VALUES (?)", [("ok",), (Name("a\x00"),)])
    assert info.value.sqlstate == "22021" and str(info.value) == 'invalid byte sequence for encoding "UTF8": 0x00'
    assert setup.execute("SELECT s FROM p ORDER BY s").fetchall() == [("n",), ("ok",)]


def test_executemany_stops_at_the_first_error(connect, setup):
    cur = setup.cursor()
    with pytest.raises(errors.ProgrammingError):
        cur.executemany("INSERT INTO t VALUES (?, ?, 0, NULL, 0)", [(3, "c"), (4,), (5, "e")])
    assert state(setup) == COMMITTED + [(3, "c", 0, None)]               # autocommit: row 3 committed


def test_syntax_error_has_position():
    from txlake.parser.parse import parse
    sql = "SELECT 1 FROM WHERE x"
    with pytest.raises(errors.SyntaxError) as info:
        parse(sql)
    assert info.value.position == sql.index("WHERE") + 1


@pytest.mark.parametrize("sql, word", [
    ("SELEC 2", "SELEC"), ("SELEC * FROM t", "SELEC"), ("SELECT 1; UPDAT t SET a = 1", "UPDAT"),
    ("/* c */ selec 1", "selec"), ("SAVEPOINT a; SELEC 1", "SELEC"),
])
def test_a_statement_that_begins_with_no_command_fails_at_its_first_word(sql, word):
    """As PostgreSQL's grammar fails there; sqlglot read the word as a column and failed
    further on (``SELEC 2``: 'at or near "2"')."""
    from txlake.parser.parse import parse
    with pytest.raises(errors.SyntaxError) as info:
        parse(sql)
    assert str(info.value) == f'syntax error at or near "{word}"'
    assert info.value.position == sql.index(word) + 1


def test_syntax_error_through_the_connection(setup):
    sql = "SELECT * FROM t WHERE id = = 1"
    with pytest.raises(errors.SyntaxError) as info:
        setup.execute(sql)
    assert sql[info.value.position - 1:].startswith("= 1")


def test_queries_cannot_touch_files_outside(connect, tmp_path, warehouse):
    c = connect()
    before = outside(tmp_path, warehouse)
    target = tmp_path / "escape.csv"
    # (COPY reads and writes files by design - tests/engine/test_copy.py - DuckDB's COPY does not run)
    for sql in ["SELECT * FROM read_csv('/etc/passwd')", "SELECT * FROM '/etc/passwd'",
                f"SELECT * FROM read_parquet('{warehouse}/*/*/*/*.parquet')",
                f"ATTACH '{tmp_path / 'other.duckdb'}'", "INSTALL httpfs"]:
        with pytest.raises(errors.Error):
            c.execute(sql)
        c.rollback()
    assert not target.exists()
    assert outside(tmp_path, warehouse) == before


def test_exception_tree():
    assert issubclass(txlake.SerializationFailure, txlake.OperationalError)
    assert issubclass(txlake.DeadlockDetected, txlake.OperationalError)
    assert txlake.SerializationFailure("x").sqlstate == "40001"
    assert txlake.DeadlockDetected("x").sqlstate == "40P01"
    for name in ("Error", "DatabaseError", "OperationalError", "IntegrityError", "ProgrammingError",
                 "NotSupportedError", "InterfaceError", "DataError", "InternalError", "Warning"):
        assert hasattr(txlake, name)
    assert issubclass(errors.UniqueViolation, txlake.IntegrityError)
    assert issubclass(errors.NotNullViolation, txlake.IntegrityError)
    assert issubclass(errors.SyntaxError, txlake.ProgrammingError)
    assert issubclass(errors.UndefinedTable, txlake.ProgrammingError)
    assert issubclass(errors.NumericValueOutOfRange, txlake.DataError)
    assert issubclass(errors.StringDataRightTruncation, txlake.DataError)
    assert issubclass(txlake.DatabaseError, txlake.Error) and not issubclass(txlake.Warning, txlake.Error)
    assert errors.UniqueViolation("x").pgcode == "23505"


@pytest.mark.parametrize("sql, message, at", [
    ("SELECT * FROM nope WHERE n = 1", 'relation "nope" does not exist', "nope WHERE"),
    ("SELECT n FROM t JOIN public.Nope USING (id)", 'relation "public.nope" does not exist', "public.Nope"),
    ("SELECT id,\n  nope FROM t", 'column "nope" does not exist', "nope FROM"),
    ("SELECT t.id FROM t WHERE t.nope = 1", "column t.nope does not exist", "t.nope ="),
    ("SELECT x.id FROM t", 'missing FROM-clause entry for table "x"', "x.id"),
    ("INSERT INTO t (id, zz) VALUES (1, 2)", 'column "zz" of relation "t" does not exist', "zz)"),
    ("UPDATE t SET n = 1 WHERE nope = 2", 'column "nope" does not exist', "nope ="),
    ("DELETE FROM nope", 'relation "nope" does not exist', "nope"),
    # counted from the start of the string, not the failing statement's (as PostgreSQL's)
    ("SELECT 1; SELECT * FROM nope", 'relation "nope" does not exist', "nope"),
    ("SELECT 1;\n\n  UPDATE t SET n = 1 WHERE nope = 2;", 'column "nope" does not exist', "nope ="),
    ("\n\n  SELECT * FROM nope", 'relation "nope" does not exist', "nope"),
])
def test_an_unknown_relation_or_column_has_its_position(setup, sql, message, at):
    """As PostgreSQL's: the error says where the statement names it (e.position, which the
    shell shows as LINE n: ... and a caret); there was none. A table qualified by public is
    named public.t (it was default.t), and t.x with no t in FROM is PostgreSQL's 'missing
    FROM-clause entry' (it was DuckDB's 'Referenced table "x" not found!')."""
    with pytest.raises((errors.UndefinedTable, errors.UndefinedColumn)) as info:
        setup.execute(sql)
    assert str(info.value).split("\n")[0] == message
    assert info.value.position == sql.index(at) + 1


def test_ddl_s_unknown_relation_has_no_position(setup):
    with pytest.raises(errors.UndefinedTable) as info:
        setup.execute("DROP TABLE nope")
    assert info.value.position is None  # (as PostgreSQL's)


def test_an_error_s_diag_has_postgresql_s_fields(setup):
    """As psycopg's e.diag (there was none: code written for psycopg failed on it)."""
    with pytest.raises(errors.UniqueViolation) as info:
        setup.execute("INSERT INTO t VALUES (1, 'a', 10, NULL, 1.50)")
    diag = info.value.diag
    assert (diag.sqlstate, diag.severity) == ("23505", "ERROR")
    assert diag.message_primary == 'duplicate key value violates unique constraint "t_pkey"'
    assert diag.message_detail == "Key (id)=(1) already exists." and diag.message_hint is None
    with pytest.raises(errors.SyntaxError) as info:
        setup.execute("SELECT 1 FROM t WHER id = 1")
    assert info.value.diag.statement_position == "22" and info.value.diag.message_detail is None
    with pytest.raises(errors.ProgrammingError) as info:
        setup.execute("SELECT lower(1)")
    assert info.value.diag.message_primary == "function lower(integer) does not exist"
    assert info.value.diag.message_hint.startswith("No function matches the given name")


# psycopg's exception class of each SQLSTATE class (its errors.py): what a program written
# against psycopg catches
PSYCOPG_CLASSES = errors.SQLSTATE_CLASSES


def test_each_condition_class_is_psycopg_s():
    for cls in vars(errors).values():
        if isinstance(cls, type) and issubclass(cls, errors.DatabaseError) and cls.sqlstate[:2] != "XX":
            assert issubclass(cls, PSYCOPG_CLASSES[cls.sqlstate[:2]]), cls


@pytest.mark.parametrize("statements, sqlstate", [
    (["SAVEPOINT s"], "25P01"),                                           # outside a block
    (["RELEASE SAVEPOINT s"], "25P01"),
    (["BEGIN", "SELECT 1", "SET TRANSACTION ISOLATION LEVEL SERIALIZABLE"], "25001"),
    (["BEGIN", "COMMIT PREPARED 'g'"], "25001"),
    (["BEGIN", "ROLLBACK TO SAVEPOINT nope"], "3B001"),
    (["CREATE VIEW v AS SELECT * FROM t", "DROP TABLE t"], "2BP01"),
    (["DROP SCHEMA public"], "2BP01"),
])
def test_an_error_s_class_is_psycopg_s_for_its_sqlstate(setup, statements, sqlstate):
    """25001 and 25P01 came as ProgrammingError, 2BP01 too, 3B001 as InternalError: psycopg
    raises InternalError for classes 25 and 2B, OperationalError for 3B."""
    with pytest.raises(errors.Error) as info:
        for sql in statements:
            setup.execute(sql)
    assert info.value.sqlstate == sqlstate
    assert isinstance(info.value, PSYCOPG_CLASSES[sqlstate[:2]])
    setup.rollback()


@pytest.mark.parametrize("sql, message", [
    ("SELECT nope FROM t", 'column "nope" does not exist'),
    ("SELECT a.id FROM t a JOIN t b ON a.id = b.nope", "column b.nope does not exist"),
    ("UPDATE t SET n = nope", 'column "nope" does not exist'),
    ("SELECT n", 'column "n" does not exist'),  # (no FROM)
    ("SELECT CAST(n AS TEXT)", 'column "n" does not exist'),
])
def test_an_unknown_column_is_named_as_postgresql_names_it(setup, sql, message):
    """DuckDB's words were "Referenced column ... not found in FROM clause!" and "Values list
    "b" does not have a column named ..." (txlake registers tables as Arrow data)."""
    with pytest.raises(errors.UndefinedColumn) as e:
        setup.execute(sql)
    assert str(e.value) == message


@pytest.mark.parametrize("sql, message, call", [
    ("UPDATE t SET n = n + 1 RETURNING count(*)", "aggregate functions are not allowed in RETURNING", "count(*)"),
    ("DELETE FROM t WHERE max(n) > 0", "aggregate functions are not allowed in WHERE", "max(n)"),
    ("UPDATE t SET n = lag(n) OVER (ORDER BY id)", "window functions are not allowed in UPDATE", "lag(n) OVER"),
    ("INSERT INTO t VALUES (count(*), 'x', 0, NULL, 0)", "aggregate functions are not allowed in VALUES", "count(*)"),
    ("SELECT id FROM t WHERE sum(n) > 1", "aggregate functions are not allowed in WHERE", None),
    ("SELECT *", "SELECT * with no tables specified is not valid", None),
    ("SELECT id FROM t ORDER BY 'x'", "non-integer constant in ORDER BY", None),
])
def test_misplaced_aggregates_and_binder_errors_in_postgresql_s_words(setup, sql, message, call):
    """Where txlake finds the call itself, the error points into it (PostgreSQL points at its
    name; txlake at the first token it has a place for, which may be the argument)."""
    with pytest.raises(errors.ProgrammingError) as e:
        setup.execute(sql)
    assert str(e.value) == message
    if call is not None:
        assert sql.index(call) < e.value.position <= sql.index(call) + len(call)


# (uuid, jsonb, int[] and inet are types now)
@pytest.mark.parametrize("written", ["macaddr", "int[][]", "timetz[]", "bit(3)", "timetz", "xml"])
def test_an_unsupported_type_is_named_as_written(connect, written):
    """BYTEA, before it was a type, was 'type "varbinary" is not supported' (sqlglot's name),
    and an array type a syntax error (42601, 'invalid type modifier in ARRAY<INT>'); arrays of
    scalar types are types now, but not of two dimensions nor of a type txlake has not."""
    conn = connect(autocommit=True)
    with pytest.raises(errors.NotSupportedError, match=f'type "{re.escape(written)}" is not supported'):
        conn.execute(f"CREATE TABLE z (a {written})")


@pytest.mark.parametrize("sql, message", [
    ("SELECT no_such_function(1)", "function no_such_function does not exist"),
    ("SELECT * FROM no_such_function(1)", "function no_such_function does not exist"),  # (was 42P01)
    ("SELECT encode(1)", "function encode(integer) does not exist"),
    # (a numeric's DECIMAL(2,1) was split at its comma: "repeat(numeric, 1), numeric)")
    ("SELECT repeat(1.5, 1.25)", "function repeat(numeric, numeric) does not exist"),
])
def test_an_unknown_function_is_42883_in_postgresql_s_words(connect, sql, message):
    """DuckDB's words were "Scalar Function with name ... does not exist!", and a table
    function's was 42P01, as if a table were missing."""
    conn = connect(autocommit=True)
    with pytest.raises(errors.ProgrammingError) as e:
        conn.execute(sql)
    assert e.value.sqlstate == "42883" and str(e.value).startswith(message) and "HINT:  No function" in str(e.value)
