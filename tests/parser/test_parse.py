"""Text -> typed statements: transaction control, DDL, DML, placeholders, the parse cache and
syntax errors. Nothing here touches a warehouse."""

import dataclasses

import pytest
from sqlglot import exp

from txlake import errors
from txlake.parser import parse as parse_module
from txlake.parser import statements as st
from txlake.parser.parse import parse, parse_one

LEVELS = ["READ UNCOMMITTED", "READ COMMITTED", "REPEATABLE READ", "SERIALIZABLE"]


def check(sql, cls, **fields):
    stmt = parse_one(sql)
    assert type(stmt) is cls, sql
    for key, value in fields.items():
        assert getattr(stmt, key) == value, (sql, key, getattr(stmt, key))
    return stmt


# --- transaction control -----------------------------------------------------------------

@pytest.mark.parametrize("sql", ["BEGIN", "BEGIN TRANSACTION", "BEGIN WORK", "begin", "Begin Work;",
                                 "START TRANSACTION"])
def test_begin_plain(sql):
    check(sql, st.Begin, isolation=None, read_only=None, label=None)


@pytest.mark.parametrize("level", LEVELS)
@pytest.mark.parametrize("prefix", ["BEGIN", "BEGIN TRANSACTION", "BEGIN WORK", "START TRANSACTION"])
def test_begin_isolation_level(prefix, level):
    check(f"{prefix} ISOLATION LEVEL {level}", st.Begin, isolation=level, read_only=None)
    check(f"{prefix} isolation level {level.lower()}", st.Begin, isolation=level)


@pytest.mark.parametrize("sql,isolation,read_only", [
    ("BEGIN READ ONLY", None, True),
    ("BEGIN READ WRITE", None, False),
    ("BEGIN TRANSACTION READ ONLY", None, True),
    ("BEGIN WORK READ WRITE", None, False),
    ("START TRANSACTION READ ONLY", None, True),
    ("BEGIN ISOLATION LEVEL SERIALIZABLE READ ONLY", "SERIALIZABLE", True),
    ("BEGIN ISOLATION LEVEL READ COMMITTED, READ WRITE", "READ COMMITTED", False),
    ("BEGIN READ ONLY, ISOLATION LEVEL REPEATABLE READ", "REPEATABLE READ", True),
    ("START TRANSACTION ISOLATION LEVEL READ UNCOMMITTED READ ONLY", "READ UNCOMMITTED", True),
    ("BEGIN ISOLATION LEVEL SERIALIZABLE, READ ONLY, DEFERRABLE", "SERIALIZABLE", True),
])
def test_begin_modes(sql, isolation, read_only):
    check(sql, st.Begin, isolation=isolation, read_only=read_only)


@pytest.mark.parametrize("sql", ["COMMIT", "COMMIT WORK", "COMMIT TRANSACTION", "END", "END WORK",
                                 "END TRANSACTION", "commit;"])
def test_commit_forms(sql):
    check(sql, st.Commit)


@pytest.mark.parametrize("sql", ["ROLLBACK", "ROLLBACK WORK", "ROLLBACK TRANSACTION", "ABORT", "ABORT WORK",
                                 "ABORT TRANSACTION", "rollback;"])
def test_rollback_forms(sql):
    check(sql, st.Rollback)


@pytest.mark.parametrize("sql,cls,name", [
    ("SAVEPOINT sp1", st.Savepoint, "sp1"),
    ("SAVEPOINT SP1", st.Savepoint, "sp1"),                   # unquoted names fold to lower case
    ('SAVEPOINT "Mixed Case"', st.Savepoint, "Mixed Case"),   # quoted ones keep theirs
    ("ROLLBACK TO SAVEPOINT sp1", st.RollbackToSavepoint, "sp1"),
    ("ROLLBACK TO sp1", st.RollbackToSavepoint, "sp1"),
    ("ROLLBACK WORK TO SAVEPOINT sp1", st.RollbackToSavepoint, "sp1"),
    ("ROLLBACK TRANSACTION TO sp1", st.RollbackToSavepoint, "sp1"),
    ("RELEASE SAVEPOINT sp1", st.ReleaseSavepoint, "sp1"),
    ("RELEASE sp1", st.ReleaseSavepoint, "sp1"),
    ('RELEASE "Mixed Case"', st.ReleaseSavepoint, "Mixed Case"),
])
def test_savepoint_forms(sql, cls, name):
    check(sql, cls, name=name)


@pytest.mark.parametrize("level", LEVELS)
def test_set_transaction_isolation(level):
    check(f"SET TRANSACTION ISOLATION LEVEL {level}", st.SetTransaction, isolation=level, session=False)
    check(f"SET SESSION CHARACTERISTICS AS TRANSACTION ISOLATION LEVEL {level}", st.SetTransaction,
          isolation=level, session=True)


@pytest.mark.parametrize("sql,fields", [
    ("SET TRANSACTION READ ONLY", {"isolation": None, "read_only": True, "session": False}),
    ("SET TRANSACTION ISOLATION LEVEL READ COMMITTED, READ WRITE",
     {"isolation": "READ COMMITTED", "read_only": False}),
    ("SET SESSION CHARACTERISTICS AS TRANSACTION READ ONLY", {"read_only": True, "session": True}),
    ("SET SESSION CHARACTERISTICS AS TRANSACTION ISOLATION LEVEL SERIALIZABLE READ WRITE",
     {"isolation": "SERIALIZABLE", "read_only": False, "session": True}),
])
def test_set_transaction_modes(sql, fields):
    check(sql, st.SetTransaction, **fields)


@pytest.mark.parametrize("sql,name,value", [
    ("SET default_transaction_isolation = 'serializable'", "default_transaction_isolation", "serializable"),
    ("SET default_transaction_isolation TO 'read committed'", "default_transaction_isolation", "read committed"),
    ("SET default_transaction_isolation = 'REPEATABLE READ'", "default_transaction_isolation", "REPEATABLE READ"),
    ("SET default_transaction_isolation = serializable", "default_transaction_isolation", "serializable"),
    ("SET default_transaction_isolation TO DEFAULT", "default_transaction_isolation", None),
    ("SET SESSION default_transaction_isolation = 'read uncommitted'", "default_transaction_isolation",
     "read uncommitted"),
    ("SET transaction_isolation = 'read committed'", "transaction_isolation", "read committed"),
    ("SET lock_timeout = '2s'", "lock_timeout", "2s"),
    ("SET lock_timeout TO 100", "lock_timeout", "100"),
    ("SET lock_timeout = 0", "lock_timeout", "0"),
    ("SET LOCK_TIMEOUT = '1min'", "lock_timeout", "1min"),
    ("SET lock_timeout TO DEFAULT", "lock_timeout", None),
])
def test_set_variable(sql, name, value):
    check(sql, st.SetVariable, name=name, value=value, local=False)


@pytest.mark.parametrize("sql,name", [("RESET lock_timeout", "lock_timeout"),
                                      ("RESET default_transaction_isolation", "default_transaction_isolation")])
def test_reset(sql, name):
    check(sql, st.SetVariable, name=name, value=None)


def test_and_chain():
    check("COMMIT AND NO CHAIN", st.Commit)
    check("ROLLBACK AND NO CHAIN", st.Rollback)
    for sql in ("COMMIT AND CHAIN", "ROLLBACK AND CHAIN", "END AND CHAIN"):
        with pytest.raises(errors.NotSupportedError):   # refused, not silently ignored
            parse(sql)


def test_set_local():
    check("SET LOCAL lock_timeout = '1s'", st.SetVariable, name="lock_timeout", value="1s", local=True)


@pytest.mark.parametrize("sql,name", [
    ("SHOW transaction_isolation", "transaction_isolation"),
    ("SHOW TRANSACTION ISOLATION LEVEL", "transaction_isolation"),
    ("show Transaction_Isolation", "transaction_isolation"),
    ("SHOW default_transaction_isolation", "default_transaction_isolation"),
    ("SHOW lock_timeout", "lock_timeout"),
])
def test_show(sql, name):
    check(sql, st.Show, name=name)


@pytest.mark.parametrize("sql", ["BEGIN", "COMMIT", "ROLLBACK", "SAVEPOINT a", "RELEASE a", "ROLLBACK TO a",
                                 "SET TRANSACTION READ ONLY", "SET lock_timeout = 1", "SHOW lock_timeout"])
def test_control_statements_do_not_touch_data(sql):
    stmt = parse_one(sql)
    assert stmt.touches_data is False and stmt.param_count == 0


def test_statements_that_need_a_transaction_block():
    assert parse_one("SAVEPOINT a").needs_block and parse_one("RELEASE a").needs_block
    assert parse_one("ROLLBACK TO a").needs_block and parse_one("SET TRANSACTION READ ONLY").needs_block
    for sql in ("BEGIN", "COMMIT", "ROLLBACK", "SHOW lock_timeout", "SET lock_timeout = 1",
                "SET SESSION CHARACTERISTICS AS TRANSACTION READ ONLY", "SELECT 1"):
        assert not parse_one(sql).needs_block, sql


@pytest.mark.parametrize("sql", [
    "BEGIN ISOLATION LEVEL", "BEGIN ISOLATION LEVEL READ", "BEGIN ISOLATION LEVEL FOO",
    "BEGIN ISOLATION LEVEL REPEATABLE", "BEGIN READ", "BEGIN FOO", "START TRANSACTION ISOLATION LEVEL",
    "START TRANSACTION NOW", "SAVEPOINT", "SAVEPOINT 'quoted'", "ROLLBACK TO", "ROLLBACK TO SAVEPOINT",
    "RELEASE", "RELEASE SAVEPOINT", "SET TRANSACTION ISOLATION LEVEL", "SET TRANSACTION BOGUS",
    "SET SESSION CHARACTERISTICS AS TRANSACTION ISOLATION LEVEL SOMETIMES", "SET x =", "SET lock_timeout",
    "SET", "SHOW", "START",
])
def test_malformed_control_statements(sql):
    with pytest.raises(errors.SyntaxError) as info:
        parse(sql)
    assert info.value.sqlstate == "42601"


# --- DDL ---------------------------------------------------------------------------------

def test_create_table_all_types_and_constraints():
    stmt = check(
        "CREATE TABLE IF NOT EXISTS s.t (id INT PRIMARY KEY, flag BOOLEAN NOT NULL DEFAULT true, "
        "big BIGINT NULL, f DOUBLE DEFAULT -1.5, amount DECIMAL(10,2), name VARCHAR(20) NOT NULL DEFAULT 'x', "
        "body TEXT, day DATE DEFAULT DATE '2024-01-01', at TIMESTAMP, n INTEGER)",
        st.CreateTable, table=st.TableName("s", "t"), primary_key=("id",), if_not_exists=True, as_query=None)
    cols = {c.name: c for c in stmt.columns}
    assert list(cols) == ["id", "flag", "big", "f", "amount", "name", "body", "day", "at", "n"]
    types = {name: (c.type.this, [p.sql() for p in c.type.expressions]) for name, c in cols.items()}
    assert types == {
        "id": (exp.DataType.Type.INT, []), "flag": (exp.DataType.Type.BOOLEAN, []),
        "big": (exp.DataType.Type.BIGINT, []), "f": (exp.DataType.Type.DOUBLE, []),
        "amount": (exp.DataType.Type.DECIMAL, ["10", "2"]), "name": (exp.DataType.Type.VARCHAR, ["20"]),
        "body": (exp.DataType.Type.TEXT, []), "day": (exp.DataType.Type.DATE, []),
        "at": (exp.DataType.Type.TIMESTAMPNTZ, []), "n": (exp.DataType.Type.INT, []),
    }
    assert cols["id"].primary_key and cols["id"].not_null
    assert cols["flag"].not_null and cols["flag"].default.sql() == "TRUE"
    assert not cols["big"].not_null and cols["big"].default is None
    assert cols["f"].default.sql() == "-1.5"
    assert cols["name"].not_null and cols["name"].default.sql() == "'x'"
    assert cols["day"].default is not None
    assert not any(c.primary_key for c in stmt.columns[1:])


def test_create_table_keys():
    assert parse_one("CREATE TABLE t (a INT, b INT, PRIMARY KEY (a, b))").primary_key == ("a", "b")
    assert parse_one("CREATE TABLE t (a INT, b TEXT, PRIMARY KEY (b))").primary_key == ("b",)
    assert parse_one("CREATE TABLE t (a INT)").primary_key == ()
    for sql in ("CREATE TABLE t (a INT PRIMARY KEY, b INT, PRIMARY KEY (b))",
                "CREATE TABLE t (a INT PRIMARY KEY, b INT PRIMARY KEY)"):
        with pytest.raises(errors.ProgrammingError) as info:
            parse(sql)
        assert info.value.sqlstate == "42P16"


def test_constraints_parse_into_specs():
    stmt = parse_one("CREATE TABLE t (a INT CONSTRAINT pos CHECK (a > 0) UNIQUE REFERENCES p ON DELETE CASCADE, "
                     "b INT, CHECK (b > a), CONSTRAINT u UNIQUE NULLS NOT DISTINCT (a, b), "
                     "FOREIGN KEY (a, b) REFERENCES s.p (x, y) MATCH FULL ON UPDATE SET NULL)")
    check, unique, fkey = stmt.columns[0].constraints
    assert (check.name, check.expression.sql(), check.column) == ("pos", "a > 0", "a")
    assert (unique.name, unique.columns, unique.nulls_not_distinct) == (None, ("a",), False)
    assert (fkey.columns, fkey.table.name, fkey.ref_columns, fkey.on_delete, fkey.on_update) == \
        (("a",), "p", (), "CASCADE", "NO ACTION")
    check, unique, fkey = stmt.constraints
    assert (check.name, check.column) == (None, None)
    assert (unique.name, unique.columns, unique.nulls_not_distinct) == ("u", ("a", "b"), True)
    assert (fkey.columns, fkey.table.db, fkey.ref_columns, fkey.on_update, fkey.match_full) == \
        (("a", "b"), "s", ("x", "y"), "SET NULL", True)
    (add,) = parse_one("ALTER TABLE t ADD CONSTRAINT c UNIQUE (a) ").actions
    assert (add.constraint.name, add.constraint.columns, add.not_valid) == ("c", ("a",), False)
    (drop,) = parse_one("ALTER TABLE t DROP CONSTRAINT IF EXISTS c CASCADE").actions
    assert (drop.name, drop.if_exists, drop.cascade) == ("c", True, True)


def test_an_unnamed_check_added_by_alter_table_and_validate_constraint_parse():
    """ALTER TABLE t ADD CHECK (...) was an unparsed sqlglot Command (refused); so was VALIDATE
    CONSTRAINT."""
    (add,) = parse_one("ALTER TABLE t ADD CHECK (a > 0)").actions
    assert isinstance(add, st.AddConstraint) and add.constraint.name is None and not add.not_valid
    assert add.constraint.expression.sql() == "a > 0"
    column, add = parse_one("ALTER TABLE t ADD COLUMN b INT, ADD CHECK (a / 2 > 0) NOT VALID").actions
    assert add.not_valid and column.column.name == "b"
    assert add.constraint.expression.sql() == "a / 2 > 0"  # (as written: not parser/semantics.py's rewrite)
    (validate,) = parse_one("ALTER TABLE t VALIDATE CONSTRAINT c").actions
    assert validate == st.ValidateConstraint("c")


@pytest.mark.parametrize("sql", ["CREATE TABLE t (a INT PRIMARY KEY DEFERRABLE)",
                                 "CREATE TABLE t (a INT REFERENCES p MATCH PARTIAL)",
                                 "CREATE TABLE t (a INT CHECK (a IN (SELECT 1)))",
                                 "CREATE OR REPLACE TABLE t (a INT)",
                                 "CREATE MATERIALIZED VIEW v USING heap AS SELECT 1",
                                 "CREATE RECURSIVE VIEW v (a) AS SELECT 1",
                                 "CREATE VIEW v AS SELECT 1 WITH CHECK OPTION",
                                 "ALTER MATERIALIZED VIEW v SET SCHEMA s",
                                 "CREATE MATERIALIZED VIEW v AS WITH d AS (DELETE FROM t RETURNING *) SELECT * FROM d",
                                 "ALTER VIEW v ALTER COLUMN a SET DEFAULT 1",
                                 # (DuckDB's 42000 "Can only delete from base table" before; PostgreSQL's
                                 # data-modifying WITH is at the top level only)
                                 "SELECT * FROM (WITH d AS (UPDATE t SET a = 1 RETURNING a) SELECT a FROM d) x",
                                 "CREATE VIEW v AS WITH d AS (DELETE FROM t RETURNING *) SELECT * FROM d"])
def test_unsupported_ddl_is_refused_not_ignored(sql):
    with pytest.raises(errors.NotSupportedError) as info:
        parse(sql)
    assert info.value.sqlstate == "0A000"


def test_view_statements():
    stmt = parse_one("CREATE OR REPLACE VIEW s.V (a, B) AS SELECT x, count(*) FROM t GROUP BY x")
    assert isinstance(stmt, st.CreateView) and stmt.or_replace
    assert stmt.view == st.TableName("s", "v") and stmt.columns == ("a", "b")
    assert stmt.written.sql() == "SELECT x, COUNT(*) FROM t GROUP BY x"  # (as written: what the view stores)
    assert stmt.query.sql() != stmt.written.sql()  # (as run: PostgreSQL's column names given)
    assert parse_one("DROP VIEW IF EXISTS v, w CASCADE") == st.DropView(
        views=(st.TableName(None, "v"), st.TableName(None, "w")), if_exists=True, cascade=True)
    assert parse_one("DROP TABLE t CASCADE").cascade and not parse_one("DROP TABLE t").cascade
    assert parse_one("ALTER VIEW v RENAME TO w") == st.AlterView(view=st.TableName(None, "v"),
                                                                 new=st.TableName(None, "w"))
    assert parse_one("ALTER VIEW v RENAME COLUMN a TO B").column == ("a", "b")
    assert parse_one("ALTER TABLE t DROP COLUMN a CASCADE").actions == (st.DropColumn("a", cascade=True),)


def test_identifiers_fold_to_lower_case_unless_quoted():
    assert parse_one('CREATE TABLE "MyTable" ("X" INT)').table.name == "MyTable"
    stmt = parse_one("CREATE TABLE MyTable (X INT)")
    assert stmt.table.name == "mytable" and stmt.columns[0].name == "x"
    assert parse_one("DROP TABLE MyDb.MyTable").tables == (st.TableName("mydb", "mytable"),)


def test_create_table_as():
    stmt = check("CREATE TABLE t AS SELECT 1 AS x, 'a' AS y", st.CreateTable, columns=(), primary_key=())
    assert isinstance(stmt.as_query, exp.Query)
    stmt = check("CREATE TABLE IF NOT EXISTS s.t AS SELECT * FROM u WHERE v > ?", st.CreateTable,
                 table=st.TableName("s", "t"), if_not_exists=True, param_count=1)
    assert [t.name for t in stmt.as_query.find_all(exp.Table)] == ["u"]


def test_drop_table():
    check("DROP TABLE t", st.DropTable, tables=(st.TableName(None, "t"),), if_exists=False)
    check("DROP TABLE IF EXISTS a, s.b", st.DropTable,
          tables=(st.TableName(None, "a"), st.TableName("s", "b")), if_exists=True)


@pytest.mark.parametrize("sql,action", [
    ("ALTER TABLE t ADD COLUMN x INT", st.AddColumn),
    ("ALTER TABLE t ADD x INT", st.AddColumn),
    ("ALTER TABLE t ADD COLUMN IF NOT EXISTS x INT NOT NULL DEFAULT 3", st.AddColumn),
    ("ALTER TABLE t DROP COLUMN x", st.DropColumn),
    ("ALTER TABLE t DROP COLUMN IF EXISTS x", st.DropColumn),
    ("ALTER TABLE t RENAME COLUMN x TO y", st.RenameColumn),
    ("ALTER TABLE t RENAME x TO y", st.RenameColumn),     # COLUMN is optional, as in PostgreSQL
    ("ALTER TABLE t ALTER COLUMN x SET DEFAULT 1", st.AlterColumn),
    ("ALTER TABLE t ALTER x DROP DEFAULT", st.AlterColumn),
    ("ALTER TABLE t ALTER COLUMN x SET NOT NULL", st.AlterColumn),
    ("ALTER TABLE t ALTER COLUMN x DROP NOT NULL", st.AlterColumn),
])
def test_alter_table(sql, action):
    stmt = check(sql, st.AlterTable, table=st.TableName(None, "t"))
    assert len(stmt.actions) == 1 and type(stmt.actions[0]) is action


def test_alter_table_details():
    add = parse_one("ALTER TABLE t ADD COLUMN IF NOT EXISTS x VARCHAR(5) NOT NULL DEFAULT 'q'").actions[0]
    assert add.if_not_exists and add.column.name == "x" and add.column.not_null
    assert add.column.default.sql() == "'q'"
    assert parse_one("ALTER TABLE t DROP COLUMN IF EXISTS x").actions[0] == st.DropColumn("x", if_exists=True)
    assert parse_one("ALTER TABLE t RENAME COLUMN X TO \"Y\"").actions[0] == st.RenameColumn("x", "Y")
    assert parse_one("ALTER TABLE IF EXISTS t ADD COLUMN x INT").if_exists
    assert parse_one("ALTER TABLE t RENAME TO u").actions[0] == st.RenameTable(st.TableName(None, "u"))
    assert parse_one("ALTER TABLE t ALTER a SET NOT NULL, ALTER COLUMN b DROP DEFAULT").actions == (
        st.AlterColumn("a", not_null=True), st.AlterColumn("b", drop_default=True))
    typed = parse_one("ALTER TABLE t ALTER COLUMN a TYPE BIGINT, ALTER b SET DATA TYPE TEXT USING b || 'x'").actions
    assert typed[0].type.sql() == "BIGINT" and typed[0].using is None
    assert typed[1].using.sql() == "TXL_TEXT(b, b) || 'x'"  # (b joined as its PostgreSQL text)
    assert parse_one("ALTER TABLE t ALTER COLUMN a SET STATISTICS 10") == st.NoEffect(tag="ALTER TABLE")  # (a
    with pytest.raises(errors.NotSupportedError):                      # planner's hint; mixed with others: refused)
        parse_one("ALTER TABLE t ALTER COLUMN a SET STATISTICS 10, ADD COLUMN b INT")

    # actions of different kinds in one statement, DROP without COLUMN, as in PostgreSQL (they
    # were 42601 at the second action, or an unparsed Command: 0A000)
    assert parse_one("ALTER TABLE t ADD COLUMN x INT DEFAULT coalesce(1, 2), DROP COLUMN y, DROP IF EXISTS z, "
                     "ALTER a DROP DEFAULT, RENAME b TO c").actions == (
        parse_one("ALTER TABLE t ADD COLUMN x INT DEFAULT coalesce(1, 2)").actions[0],
        st.DropColumn("y"), st.DropColumn("z", if_exists=True), st.AlterColumn("a", drop_default=True),
        st.RenameColumn("b", "c"))
    assert parse_one("ALTER TABLE t DROP y, ADD z INT").actions[0] == st.DropColumn("y")
    with pytest.raises(errors.SyntaxError):
        parse_one("ALTER TABLE t ADD COLUMN x INT,")


# --- DML -----------------------------------------------------------------------------------

def test_insert_forms():
    ins = check("INSERT INTO t VALUES (1, 'a'), (2, 'b')", st.Insert, table=st.TableName(None, "t"),
                columns=None, on_conflict=None, returning=())
    assert isinstance(ins.source, exp.Values) and len(ins.source.expressions) == 2
    ins = check("INSERT INTO s.t (b, a) VALUES (?, ?)", st.Insert, table=st.TableName("s", "t"),
                columns=("b", "a"), param_count=2)
    ins = check("INSERT INTO t DEFAULT VALUES", st.Insert, source=None, columns=None)
    ins = check("INSERT INTO t (a) SELECT x FROM u WHERE y = ?", st.Insert, columns=("a",), param_count=1)
    assert isinstance(ins.source, exp.Select)
    ins = check("INSERT INTO t VALUES (1, DEFAULT)", st.Insert)
    assert ins.source.expressions[0].expressions[1].name.upper() == "DEFAULT"


def test_insert_on_conflict():
    oc = parse_one("INSERT INTO t VALUES (1) ON CONFLICT DO NOTHING").on_conflict
    assert oc == st.OnConflict(columns=(), do_nothing=True)
    oc = parse_one("INSERT INTO t VALUES (1) ON CONFLICT (id) DO NOTHING").on_conflict
    assert oc.columns == ("id",) and oc.do_nothing
    ins = parse_one("INSERT INTO t (id, v) VALUES (?, ?) ON CONFLICT (id) DO UPDATE "
                    "SET v = excluded.v + t.v, w = ? WHERE t.v < excluded.v RETURNING *")
    oc = ins.on_conflict
    assert oc.columns == ("id",) and not oc.do_nothing
    assert [name for name, _ in oc.assignments] == ["v", "w"]
    assert "excluded.v + t.v" in oc.assignments[0][1].sql()  # (checked for a float overflow: parser/semantics.py)
    assert oc.where.sql() == "t.v < excluded.v"
    assert ins.param_count == 3 and len(ins.returning) == 1 and isinstance(ins.returning[0], exp.Star)
    with pytest.raises(errors.SyntaxError) as info:  # (DO UPDATE must say which key conflicts)
        parse_one("INSERT INTO t VALUES (1) ON CONFLICT DO UPDATE SET v = 2")
    assert str(info.value) == ("ON CONFLICT DO UPDATE requires inference specification or constraint name\n"
                               "HINT:  For example, ON CONFLICT (column_name).")
    assert info.value.sqlstate == "42601"
    oc = parse_one("INSERT INTO t VALUES (1) ON CONFLICT ON CONSTRAINT t_pkey DO UPDATE SET v = 2").on_conflict
    assert oc.constraint == "t_pkey" and not oc.do_nothing


def test_update_and_delete():
    up = check("UPDATE t AS x SET v = v + ?, w = 'a' FROM u WHERE x.id = u.id AND u.k = ? RETURNING x.id, v",
               st.Update, table=st.TableName(None, "t"), alias="x", param_count=2)
    assert [name for name, _ in up.assignments] == ["v", "w"]
    assert [f.sql() for f in up.from_] == ["u"] and up.where is not None and len(up.returning) == 2
    up = check("UPDATE t SET v = 1", st.Update, alias=None, where=None, from_=(), returning=())
    de = check("DELETE FROM t USING u WHERE t.id = u.id RETURNING *", st.Delete, alias=None)
    assert [u.sql() for u in de.using] == ["u"] and len(de.returning) == 1
    check("DELETE FROM s.t", st.Delete, table=st.TableName("s", "t"), where=None, using=(), returning=())
    de = check("DELETE FROM t WHERE id IN (SELECT id FROM u WHERE k = ?)", st.Delete, param_count=1)
    assert de.where is not None


def test_queries():
    for sql in ("SELECT 1", "WITH x AS (SELECT 1 AS a) SELECT a, row_number() OVER () FROM x",
                "SELECT 1 UNION ALL SELECT 2", "VALUES (1), (2)", "(SELECT 1)",
                "SELECT a, count(*) FROM t JOIN u USING (id) GROUP BY a HAVING count(*) > 1 ORDER BY 2 LIMIT 3"):
        assert isinstance(parse_one(sql), st.Query), sql


@pytest.mark.parametrize("sql,count", [
    ("SELECT 1", 0),
    ("SELECT ?", 1),
    ("SELECT ?, ?, ? FROM t WHERE a = ? LIMIT ?", 5),
    ("SELECT '?', \"?\" FROM t WHERE a = ? -- ?", 1),   # not in strings, quoted names or comments
    ("SELECT ? /* ? */ + ?", 2),
    ("INSERT INTO t VALUES (?, ?), (?, ?)", 4),
    ("INSERT INTO t SELECT ?, x FROM u WHERE y IN (?, ?)", 3),
    ("INSERT INTO t VALUES (?) ON CONFLICT (id) DO UPDATE SET v = ? WHERE t.w = ? RETURNING ?", 4),
    ("UPDATE t SET a = ?, b = ? FROM u WHERE u.x = ? RETURNING ?", 4),
    ("DELETE FROM t WHERE id IN (SELECT id FROM u WHERE v = ?) RETURNING id", 1),
    ("CREATE TABLE t AS SELECT ? AS a", 1),
])
def test_placeholder_counting(sql, count):
    assert parse_one(sql).param_count == count


def test_scripts():
    stmts = parse("BEGIN; INSERT INTO t VALUES (1);; UPDATE t SET a = ?; COMMIT;")
    assert [type(s) for s in stmts] == [st.Begin, st.Insert, st.Update, st.Commit]
    assert [s.param_count for s in stmts] == [0, 0, 1, 0]
    assert parse("") == () and parse(" ; ;") == ()
    # a comment after the last statement, or between semicolons, is no statement (it was 0A000
    # "statement not supported: /*")
    assert [type(s) for s in parse("SELECT 1; /* done */")] == [st.Query]
    assert [type(s) for s in parse("BEGIN; -- open\n/* two */ ; COMMIT; -- closed")] == [st.Begin, st.Commit]
    assert parse("/* only a comment */") == ()
    with pytest.raises(errors.ProgrammingError):
        parse_one("SELECT 1; SELECT 2")


def test_statements_are_immutable():
    stmt = parse_one("SELECT * FROM t")
    with pytest.raises(dataclasses.FrozenInstanceError):
        stmt.param_count = 3


# --- the parse cache -----------------------------------------------------------------------

def test_cache_returns_the_same_parse_and_parses_once():
    text = "SELECT * FROM cache_probe_unique_1 WHERE id = ?"
    before = parse_module._parse_cached.cache_info()
    first = parse(text)
    middle = parse_module._parse_cached.cache_info()
    assert middle.misses == before.misses + 1
    for _ in range(5):
        assert parse(text) is first
        assert parse_one(text) is first[0]
    after = parse_module._parse_cached.cache_info()
    assert after.misses == middle.misses and after.hits == middle.hits + 10


def test_cache_is_keyed_by_exact_text():
    a = parse("SELECT 1 AS cache_probe_2")
    b = parse("SELECT 1 AS  cache_probe_2")
    assert a is not b and a == b


def test_errors_are_not_cached_as_results():
    for _ in range(2):
        with pytest.raises(errors.SyntaxError):
            parse("SELEC cache_probe_3")


# --- syntax errors -------------------------------------------------------------------------

@pytest.mark.parametrize("sql,at", [
    ("SELECT 1 FROM WHERE x", "WHERE"),
    ("SELECT * FROM t WHERE a = = 1", "="),
    ("BEGIN FOO", "FOO"),
    ("BEGIN ISOLATION LEVEL SOMETIMES", "SOMETIMES"),
    ("SELECT 1;\nSELECT * FROM t WHERE a = = 1", "= 1"),
    ("INSERT INTO t VALUES (1,", ","),
    ("SELECT 'unterminated", "'unterminated"),
    ('SELECT "unterminated', '"unterminated'),
    ("SELECT 1 /* open comment", "/* open"),
    ("FOO", "FOO"),
    ("SELECT 1; START", "START"),
    # an empty list item (sqlglot skipped it, and the statement ran)
    ("SELECT 1,, 2", ", 2"),
    ("DELETE FROM t WHERE id IN (1,)", ")"),
    ("SELECT a, FROM t", "FROM"),
    ("SELECT f(1, , 2)", ", 2"),
    ("INSERT INTO t VALUES (1, 2,)", ")"),
])
def test_syntax_error_position_points_at_the_token(sql, at):
    with pytest.raises(errors.SyntaxError) as info:
        parse(sql)
    error = info.value
    assert error.sqlstate == "42601"
    assert isinstance(error, errors.ProgrammingError)
    assert error.position is not None, sql
    assert sql[error.position - 1:].startswith(at), (sql, error.position)   # 1-based, like PostgreSQL


@pytest.mark.parametrize("sql, message", [
    ("UPDATE k SET = 3", 'syntax error at or near "3"'),
    ("SELECT 1 FROM k JOIN", "syntax error at end of input (expected table name)"),
    ("SELECT * FROM t WHERE a = = 1", 'syntax error at or near "="'),
    ("SELECT (1", 'syntax error at or near "1" (expecting ))'),
    ("SELECT 'abc", "unterminated quoted string at or near \"'abc\""),
    ("SELECT 1 /* open", 'unterminated /* comment at or near "/* open"'),
])
def test_syntax_errors_read_as_postgresql_words(sql, message):
    """They showed sqlglot's internals: <class 'sqlglot.expressions.core.EQ'>, token dumps."""
    with pytest.raises(errors.SyntaxError) as info:
        parse(sql)
    assert str(info.value) == message


@pytest.mark.parametrize("sql, message, at", [
    ("SELECT 12abc", 'trailing junk after numeric literal at or near "12a"', "12abc"),
    ("SET work_mem = 1GB", 'trailing junk after numeric literal at or near "1G"', "1GB"),
    ("SELECT 1.5x", 'trailing junk after numeric literal at or near "1.5x"', "1.5x"),
    ("SELECT 1 AS a, 2b FROM t", 'trailing junk after numeric literal at or near "2b"', "2b"),
    ("SELECT 123e", 'trailing junk after numeric literal at or near "123e"', "123e"),
    ("SELECT 1e+", 'trailing junk after numeric literal at or near "1e+"', "1e+"),
    ("SELECT 0x", 'invalid hexadecimal integer at or near "0x"', "0x"),
    ("SELECT 0xZZ", 'invalid hexadecimal integer at or near "0x"', "0xZZ"),
    ("SELECT 0o8", 'invalid octal integer at or near "0o"', "0o8"),
    ("SELECT 0b2", 'invalid binary integer at or near "0b"', "0b2"),
    ("SELECT 0x1FZ", 'trailing junk after numeric literal at or near "0x1FZ"', "0x1FZ"),
    ("SELECT 0x1F_", 'trailing junk after numeric literal at or near "0x1F_"', "0x1F_"),
])
def test_a_number_run_into_a_name_is_postgresqls_error(sql, message, at):
    """PostgreSQL 15+ refuses it; sqlglot read ``12abc`` as ``12 AS abc``, ``0x1F`` as ``0 AS
    x1F`` (a wrong answer: 0) and ``123e`` raised a Python ValueError."""
    with pytest.raises(errors.SyntaxError) as info:
        parse(sql)
    assert str(info.value) == message
    assert info.value.sqlstate == "42601"
    assert sql[info.value.position - 1:].startswith(at)


def test_an_unsupported_statement_is_named_as_written():
    with pytest.raises(errors.NotSupportedError, match="statement not supported: DROP$"):
        parse("DROP OWNED BY bob")


@pytest.mark.parametrize("sql, message", [
    ("CREATE OR REPLACE PROCEDURE p() LANGUAGE plpython3u AS $$ pass $$",
     "CREATE PROCEDURE is not supported for LANGUAGE plpython3u: txlake runs functions of LANGUAGE sql and "
     "plpgsql only"),
    ("CREATE FUNCTION public.touch() RETURNS trigger LANGUAGE sql AS $$ SELECT 1 $$",
     "CREATE FUNCTION is not supported for an event trigger function or a trigger function of LANGUAGE sql"),
    ("CREATE CONSTRAINT TRIGGER c AFTER INSERT ON t FOR EACH ROW EXECUTE FUNCTION f()",
     "CREATE CONSTRAINT TRIGGER is not supported"),
    ("CREATE EXTENSION IF NOT EXISTS postgis WITH SCHEMA public", "CREATE EXTENSION is not supported"),
    ("CREATE STATISTICS s ON a, b FROM t", "CREATE STATISTICS is not supported"),
    ("DROP DATABASE IF EXISTS shop", "DROP DATABASE is not supported: a warehouse is txlake's database"),
])
def test_what_pg_dump_writes_and_txlake_has_not_is_refused_by_name(sql, message):
    """These were all 0A000 'statement not supported: CREATE' (or ALTER): the message now says what."""
    with pytest.raises(errors.NotSupportedError) as info:
        parse(sql)
    assert str(info.value).startswith(message) and info.value.sqlstate == "0A000"


@pytest.mark.parametrize("sql, tables, mode, nowait", [
    ("LOCK TABLE t IN ACCESS EXCLUSIVE MODE", ("t",), "ACCESS EXCLUSIVE", False),
    ("LOCK t", ("t",), "ACCESS EXCLUSIVE", False),
    ("lock table only t, public.u * nowait", ("t", "default.u"), "ACCESS EXCLUSIVE", True),
    ("LOCK t IN SHARE MODE", ("t",), "SHARE", False),
    ("LOCK t IN SHARE ROW EXCLUSIVE MODE NOWAIT", ("t",), "SHARE ROW EXCLUSIVE", True),
    ("LOCK TABLE s.t IN share update exclusive MODE", ("s.t",), "SHARE UPDATE EXCLUSIVE", False),
    ("LOCK t IN ROW SHARE MODE", ("t",), "ROW SHARE", False),
    ("LOCK t IN ROW EXCLUSIVE MODE", ("t",), "ROW EXCLUSIVE", False),
    ("LOCK t IN EXCLUSIVE MODE", ("t",), "EXCLUSIVE", False),
    ("LOCK t IN ACCESS SHARE MODE", ("t",), "ACCESS SHARE", False),
])
def test_lock_table(sql, tables, mode, nowait):
    """PostgreSQL's LOCK statement (it was refused, 0A000): its tables, mode (ACCESS EXCLUSIVE
    if none is named) and NOWAIT."""
    (stmt,) = parse(sql)
    assert isinstance(stmt, st.LockTable)
    assert (tuple(map(str, stmt.tables)), stmt.mode, stmt.nowait) == (tables, mode, nowait)


@pytest.mark.parametrize("sql", ["LOCK t IN SHARE", "LOCK t IN SHARE EXCLUSIVE MODE", "LOCK t IN MODE", "LOCK"])
def test_lock_table_syntax_errors(sql):
    with pytest.raises(errors.SyntaxError) as info:
        parse(sql)
    assert info.value.sqlstate == "42601"


@pytest.mark.parametrize("sql", ["SELEC 1", "SELECT * FROM", "SELECT * FROM (SELECT 1", "INSERT INTO",
                                 "UPDATE t SET", "DELETE t", "CREATE TABLE t (a)", "SELECT 1 +"])
def test_syntax_errors(sql):
    with pytest.raises(errors.SyntaxError) as info:
        parse(sql)
    assert info.value.sqlstate == "42601" and info.value.position is not None


# --- names that would leave the warehouse --------------------------------------------------

@pytest.mark.parametrize("sql", [
    'SELECT * FROM "a/b"',
    'SELECT * FROM x.".."',
    'SELECT * FROM "../../etc"',
    'SELECT * FROM "..".t',
    'SELECT * FROM "a\\b"',
    'SELECT * FROM ".hidden"',
    'SELECT * FROM t WHERE id IN (SELECT id FROM "../u")',
    'WITH x AS (SELECT * FROM "a/b") SELECT * FROM x',
    'CREATE TABLE "../t" (a INT)',
    'CREATE TABLE "a/b" (a INT)',
    'CREATE TABLE "..".t (a INT)',
    'CREATE TABLE "/abs".t (a INT)',
    'CREATE TABLE t AS SELECT * FROM "a/b"',
    'CREATE TABLE t ("a/b" INT)',
    'DROP TABLE "../t"',
    'DROP TABLE IF EXISTS ok, "a/b"',
    'ALTER TABLE "a/b" ADD COLUMN x INT',
    'ALTER TABLE t RENAME TO "../u"',
    'INSERT INTO "a/b" VALUES (1)',
    'INSERT INTO t SELECT * FROM "../u"',
    'UPDATE "a/b" SET x = 1',
    'UPDATE t SET x = 1 FROM "../u" WHERE true',
    'DELETE FROM "../t"',
    'DELETE FROM t USING "a/b" WHERE true',
])
def test_path_like_names_are_refused(sql):
    with pytest.raises(errors.InvalidName) as info:
        parse(sql)
    assert info.value.sqlstate == "42602"


# --- COPY --------------------------------------------------------------------------------

@pytest.mark.parametrize("sql", [
    "COPY t FROM '/x.csv' WITH (FORMAT csv, HEADER true, DELIMITER ';', NULL 'NA')",
    "COPY t FROM '/x.csv' (FORMAT 'csv', HEADER, DELIMITER ';', NULL 'NA')",
    "COPY t FROM '/x.csv' WITH CSV HEADER DELIMITER AS ';' NULL AS 'NA'",
    "copy t from '/x.csv' delimiter ';' null 'NA' csv header",
])
def test_copy_new_and_old_option_spellings(sql):
    stmt = parse_one(sql)
    assert type(stmt) is st.Copy and not stmt.to and stmt.file == "/x.csv" and stmt.table == st.TableName(None, "t")
    assert stmt.options == st.CopyOptions(format="csv", header=True, delimiter=";", null="NA")


def test_copy_forms():
    stmt = parse_one("COPY s.t (a, \"B\") FROM STDIN")
    assert stmt.table == st.TableName("s", "t") and stmt.columns == ("a", "B") and stmt.file is None
    assert stmt.options == st.CopyOptions()  # text: tab, \N
    stmt = parse_one("COPY (SELECT a FROM t WHERE a > ?) TO '/o' (FORMAT csv, FORCE_QUOTE *)")
    assert stmt.to and stmt.table is None and isinstance(stmt.query, st.Query) and stmt.param_count == 1
    assert stmt.options.force_quote == "*"
    stmt = parse_one("COPY t (a) TO '/o' WITH CSV FORCE QUOTE a")
    assert stmt.to and stmt.query.expression.sql() == 'SELECT "a" FROM t' and stmt.options.force_quote == ("a",)
    stmt = parse_one("COPY t FROM '/x' (FORMAT csv, FORCE_NOT_NULL (a, b), HEADER match) WHERE a > 1")
    assert stmt.options.force_not_null == ("a", "b") and stmt.options.header == "match"
    assert stmt.where.sql() == "a > 1"
    assert parse_one("COPY t FROM '/x' (DELIMITER E'\\t', ENCODING 'latin1')").options.encoding == "latin-1"


@pytest.mark.parametrize("sql, sqlstate", [
    ("COPY t FROM '/x' (FORMAT xml)", "22023"),
    ("COPY t FROM '/x' (NOPE)", "42601"),
    ("COPY t FROM '/x' (HEADER, HEADER false)", "42601"),
    ("COPY t FROM '/x' (DELIMITER ',,')", "0A000"),
    ("COPY t FROM '/x' (DELIMITER 'a')", "22023"),
    ("COPY t FROM '/x' (FORMAT csv, DELIMITER '\"')", "22023"),
    ("COPY t FROM '/x' (ESCAPE '\\')", "0A000"),
    ("COPY t TO '/x' (FORMAT csv, FORCE_NULL (a))", "0A000"),
    ("COPY t FROM '/x' (FORMAT csv, FORCE_QUOTE (a))", "0A000"),
    ("COPY t FROM '/x' (FORMAT binary)", "0A000"),
    ("COPY t FROM '/x' (FREEZE)", "0A000"),
    ("COPY t FROM '/x' (FORMAT parquet, HEADER)", "0A000"),
    ("COPY t FROM PROGRAM 'cat /x'", "0A000"),
    ("COPY (SELECT 1) FROM '/x'", "42601"),
    ("COPY t TO '/x' WHERE a > 1", "0A000"),
    ("COPY t FROM '/x' WHERE a IN (SELECT 1)", "0A000"),
    ("COPY t (a, a) FROM '/x'", "42701"),
    ("COPY t FROM", "42601"),
    ("COPY t FROM '/x' (FORMAT csv) extra", "42601"),
])
def test_copy_refusals(sql, sqlstate):
    with pytest.raises(errors.Error) as info:
        parse(sql)
    assert info.value.sqlstate == sqlstate, str(info.value)


# --- MERGE ---------------------------------------------------------------------------------

def test_merge_clauses():
    stmt = parse_one("MERGE INTO t AS x USING (SELECT 1 AS k) s ON x.k = s.k "
                     "WHEN MATCHED AND s.k > 1 THEN UPDATE SET (a, b) = (s.k, DEFAULT) "
                     "WHEN MATCHED THEN DELETE WHEN NOT MATCHED BY TARGET THEN INSERT DEFAULT VALUES "
                     "WHEN NOT MATCHED BY SOURCE THEN DO NOTHING")
    assert isinstance(stmt, st.Merge)
    assert (stmt.table, stmt.alias, stmt.source_name, stmt.on.sql()) == (st.TableName(None, "t"), "x", "s",
                                                                          "x.k = s.k")
    assert [(a.match, a.kind) for a in stmt.actions] == [
        ("MATCHED", "UPDATE"), ("MATCHED", "DELETE"), ("NOT MATCHED", "INSERT"), ("NOT MATCHED BY SOURCE", "NOTHING")]
    update, _, insert, _ = stmt.actions
    assert [name for name, _ in update.assignments] == ["a", "b"] and update.defaults == ("b",)
    assert update.condition.sql() == "s.k > 1"
    assert (insert.columns, insert.values) == (None, None)          # DEFAULT VALUES


def test_merge_parameters_carry_the_index_they_take():
    stmt = parse_one("WITH c AS (SELECT ? AS k) MERGE INTO t USING (SELECT c.k, ? AS v FROM c) AS s "
                     "ON t.k = s.k AND t.v > ? WHEN NOT MATCHED THEN INSERT VALUES (s.k, ?) RETURNING ?")
    assert (stmt.param_count, stmt.param_order) == (5, None)
    tagged = [p.meta[st.PARAM_INDEX] for p in stmt.source.find_all(exp.Placeholder)]
    assert sorted(tagged) == [0, 1]
    assert [p.meta[st.PARAM_INDEX] for p in stmt.on.find_all(exp.Placeholder)] == [2]
    assert [p.meta[st.PARAM_INDEX] for p in stmt.actions[0].values[1].find_all(exp.Placeholder)] == [3]
    assert [p.meta[st.PARAM_INDEX] for r in stmt.returning for p in r.find_all(exp.Placeholder)] == [4]


@pytest.mark.parametrize("sql", [
    "MERGE INTO t USING s ON t.k = s.k WHEN MATCHED THEN INSERT VALUES (1)",
    "MERGE INTO t USING s ON t.k = s.k WHEN NOT MATCHED THEN UPDATE SET v = 1",
    "MERGE INTO t USING s ON t.k = s.k WHEN NOT MATCHED THEN INSERT *",
    "MERGE INTO t USING s ON t.k = s.k WHEN MATCHED THEN UPDATE SET v = 1 WHERE v > 0",
    "MERGE INTO t USING s ON t.k = s.k WHEN NOT MATCHED THEN INSERT (k)",
    "MERGE INTO t USING s ON t.k = s.k WHEN MATCHED THEN DO NOTHING WHEN MATCHED THEN DELETE",
    "MERGE t USING s ON t.k = s.k WHEN MATCHED THEN DELETE",
])
def test_merge_forms_postgresql_refuses(sql):
    with pytest.raises(errors.SyntaxError):
        parse(sql)
