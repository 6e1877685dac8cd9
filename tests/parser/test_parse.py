"""Text -> typed statements."""

import pytest

from txlake import errors
from txlake.parser import statements as st
from txlake.parser.parse import parse, parse_one


@pytest.mark.parametrize("sql,cls,fields", [
    ("BEGIN", st.Begin, {"isolation": None}),
    ("BEGIN TRANSACTION ISOLATION LEVEL READ COMMITTED READ ONLY", st.Begin,
     {"isolation": "READ COMMITTED", "read_only": True}),
    ("begin work isolation level serializable, read write", st.Begin, {"isolation": "SERIALIZABLE", "read_only": False}),
    ("START TRANSACTION ISOLATION LEVEL REPEATABLE READ", st.Begin, {"isolation": "REPEATABLE READ"}),
    ("START TRANSACTION ISOLATION LEVEL READ UNCOMMITTED", st.Begin, {"isolation": "READ UNCOMMITTED"}),
    ("BEGIN WITH LABEL 'load-1'", st.Begin, {"label": "load-1"}),
    ("COMMIT", st.Commit, {}), ("END", st.Commit, {}), ("COMMIT WORK", st.Commit, {}),
    ("ROLLBACK", st.Rollback, {}), ("ABORT", st.Rollback, {}),
    ("SAVEPOINT sp1", st.Savepoint, {"name": "sp1"}),
    ("ROLLBACK TO SAVEPOINT sp1", st.RollbackToSavepoint, {"name": "sp1"}),
    ("ROLLBACK TO sp1", st.RollbackToSavepoint, {"name": "sp1"}),
    ("RELEASE SAVEPOINT sp1", st.ReleaseSavepoint, {"name": "sp1"}),
    ("RELEASE sp1", st.ReleaseSavepoint, {"name": "sp1"}),
    ("SET TRANSACTION ISOLATION LEVEL SERIALIZABLE", st.SetTransaction, {"isolation": "SERIALIZABLE", "session": False}),
    ("SET SESSION CHARACTERISTICS AS TRANSACTION ISOLATION LEVEL READ COMMITTED", st.SetTransaction,
     {"isolation": "READ COMMITTED", "session": True}),
    ("SET default_transaction_isolation = 'serializable'", st.SetVariable,
     {"name": "default_transaction_isolation", "value": "serializable"}),
    ("SET default_transaction_isolation TO 'read committed'", st.SetVariable, {"value": "read committed"}),
    ("SET lock_timeout = '2s'", st.SetVariable, {"name": "lock_timeout", "value": "2s"}),
    ("SHOW transaction_isolation", st.Show, {"name": "transaction_isolation"}),
    ("PREPARE TRANSACTION 'g'", st.PrepareTransaction, {"gid": "g"}),
    ("COMMIT PREPARED 'g'", st.CommitPrepared, {"gid": "g"}),
    ("CALL txlake.compact('t')", st.Call, {"procedure": "txlake.compact"}),
])
def test_control_statements(sql, cls, fields):
    stmt = parse_one(sql)
    assert type(stmt) is cls
    for key, value in fields.items():
        assert getattr(stmt, key) == value


def test_create_table():
    stmt = parse_one("CREATE TABLE IF NOT EXISTS s.t (id INT PRIMARY KEY, v VARCHAR(10) NOT NULL DEFAULT 'x', "
                     "d DECIMAL(10,2), b BOOLEAN, l BIGINT, f DOUBLE, tx TEXT, dt DATE, ts TIMESTAMP)")
    assert isinstance(stmt, st.CreateTable) and stmt.if_not_exists
    assert stmt.table == st.TableName("s", "t") and stmt.primary_key == ("id",)
    v = stmt.columns[1]
    assert v.not_null and v.default.sql() == "'x'" and [p.this.this for p in v.type.expressions] == ["10"]
    assert parse_one("CREATE TABLE t (a INT, b INT, PRIMARY KEY (a, b))").primary_key == ("a", "b")
    assert parse_one("CREATE TABLE t AS SELECT 1 AS x").as_query is not None


def test_ddl_and_dml_forms():
    assert parse_one("DROP TABLE IF EXISTS a, b").tables == (st.TableName(None, "a"), st.TableName(None, "b"))
    actions = parse_one("ALTER TABLE t ADD COLUMN x INT DEFAULT 3").actions
    assert isinstance(actions[0], st.AddColumn)
    assert isinstance(parse_one("ALTER TABLE t DROP COLUMN x").actions[0], st.DropColumn)
    assert parse_one("ALTER TABLE t RENAME COLUMN x TO y").actions[0] == st.RenameColumn("x", "y")
    ins = parse_one("INSERT INTO t (a, b) VALUES (?, ?) ON CONFLICT (a) DO UPDATE SET b = excluded.b RETURNING *")
    assert ins.columns == ("a", "b") and ins.param_count == 2 and not ins.on_conflict.do_nothing
    assert parse_one("INSERT INTO t VALUES (1) ON CONFLICT DO NOTHING").on_conflict.do_nothing
    up = parse_one("UPDATE t SET v = v + ? WHERE id = ? RETURNING id")
    assert up.param_count == 2 and up.assignments[0][0] == "v" and up.returning
    assert parse_one("DELETE FROM t WHERE id IN (SELECT id FROM u)").where is not None
    q = parse_one("WITH x AS (SELECT 1 AS a) SELECT a, row_number() OVER () FROM x")
    assert isinstance(q, st.Query)


def test_identifiers_fold_to_lower_case_unless_quoted():
    assert parse_one("SELECT * FROM MyTable").expression is not None
    assert parse_one('CREATE TABLE "MyTable" (X INT)').table.name == "MyTable"
    assert parse_one("CREATE TABLE MyTable (X INT)").columns[0].name == "x"


def test_cache_returns_the_same_parse():
    text = "SELECT * FROM cache_probe WHERE id = ?"
    assert parse(text) is parse(text)


def test_scripts():
    assert [type(s) for s in parse("BEGIN; INSERT INTO t VALUES (1);; COMMIT;")] == [st.Begin, st.Insert, st.Commit]


@pytest.mark.parametrize("sql", ["SELEC 1", "SELECT * FROM", "BEGIN ISOLATION LEVEL FOO", "ROLLBACK TO", "SET x ="])
def test_syntax_errors(sql):
    with pytest.raises(errors.SyntaxError) as info:
        parse(sql)
    assert info.value.sqlstate == "42601"


@pytest.mark.parametrize("sql", ['SELECT * FROM "a/b"', 'SELECT * FROM x.".."', 'CREATE TABLE "../t" (a INT)'])
def test_path_like_names_are_refused(sql):
    with pytest.raises(errors.InvalidName) as info:
        parse(sql)
    assert info.value.sqlstate == "42602"
