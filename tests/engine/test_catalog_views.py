"""information_schema.tables / .columns / .schemata and pg_catalog.pg_tables, as tools and
applications ported from PostgreSQL query them: they were 42P01 (relation does not exist)."""

import pytest

from txlake import errors
from tests.conftest import rows as q


@pytest.fixture
def c(connect):
    conn = connect(autocommit=True)
    conn.execute("CREATE TABLE t (id INT PRIMARY KEY, name VARCHAR(20) NOT NULL DEFAULT 'anon', "
                 "amount DECIMAL(12,2), at TIMESTAMP, n BIGINT, ok BOOLEAN, d DOUBLE, day DATE, note TEXT)")
    conn.execute('CREATE TABLE app."Items" (k INT)')
    return conn


def test_information_schema_tables(c):
    assert q(c, "SELECT table_catalog, table_schema, table_name, table_type FROM information_schema.tables "
                "ORDER BY table_name") == [("txlake", "app", "Items", "BASE TABLE"),
                                           ("txlake", "public", "t", "BASE TABLE")]
    assert q(c, "SELECT EXISTS (SELECT 1 FROM information_schema.tables WHERE table_schema = ? "
                "AND table_name = ?)", ("public", "t")) == [(True,)]
    assert q(c, "SELECT count(*) FROM information_schema.tables WHERE table_name = 'missing'") == [(0,)]


def test_information_schema_columns(c):
    rows = q(c, "SELECT column_name, ordinal_position, data_type, udt_name, is_nullable, column_default, "
                "character_maximum_length, numeric_precision, numeric_scale "
                "FROM information_schema.columns WHERE table_schema = 'public' AND table_name = 't' "
                "ORDER BY ordinal_position")
    assert rows == [
        ("id", 1, "integer", "int4", "NO", None, None, 32, 0),
        ("name", 2, "character varying", "varchar", "NO", "'anon'::character varying", 20, None, None),
        ("amount", 3, "numeric", "numeric", "YES", None, None, 12, 2),
        ("at", 4, "timestamp without time zone", "timestamp", "YES", None, None, None, None),
        ("n", 5, "bigint", "int8", "YES", None, None, 64, 0),
        ("ok", 6, "boolean", "bool", "YES", None, None, None, None),
        ("d", 7, "double precision", "float8", "YES", None, None, 53, None),
        ("day", 8, "date", "date", "YES", None, None, None, None),
        ("note", 9, "text", "text", "YES", None, None, None, None)]


def test_column_default_is_postgresql_s_text_of_it(c):
    """column_default was DuckDB's SQL of the default (NOW(), UUID(), 'anon', 7 / 2,
    nextval('default.t2_id_seq')); PostgreSQL's is pg_get_expr's: constants typed, operators in
    parentheses, a sequence as a regclass."""
    c.execute("CREATE TABLE t2 (id BIGSERIAL, at TIMESTAMP DEFAULT now(), u UUID DEFAULT gen_random_uuid(), "
              "n INT DEFAULT 7 / 2, neg BIGINT DEFAULT -1, big BIGINT DEFAULT 5000000000, f DOUBLE DEFAULT 1.5, "
              "j JSONB DEFAULT '{}', ok BOOLEAN DEFAULT 'yes', none INT DEFAULT NULL, "
              "s TEXT DEFAULT 'a' || 'b', c TEXT DEFAULT 'x'::text)")
    assert q(c, "SELECT column_name, column_default FROM information_schema.columns WHERE table_name = 't2' "
                "ORDER BY ordinal_position") == [
        ("id", "nextval('t2_id_seq'::regclass)"), ("at", "now()"), ("u", "gen_random_uuid()"), ("n", "(7 / 2)"),
        ("neg", "'-1'::integer"), ("big", "'5000000000'::bigint"), ("f", "1.5"), ("j", "'{}'::jsonb"),
        ("ok", "true"), ("none", None), ("s", "('a' || 'b')"), ("c", "'x'::text")]
    c.execute("CREATE TABLE app.q (id SERIAL)")
    assert q(c, "SELECT column_default FROM information_schema.columns WHERE table_name = 'q'") == [
        ("nextval('app.q_id_seq'::regclass)",)]


def test_views_follow_the_transaction(c, connect):
    conn = connect()
    conn.execute("CREATE TABLE fresh (x INT)")
    conn.execute("ALTER TABLE t ADD COLUMN extra INT")
    conn.execute("DROP TABLE app.\"Items\"")
    assert q(conn, "SELECT table_name FROM information_schema.tables ORDER BY 1") == [("fresh",), ("t",)]
    assert q(conn, "SELECT count(*) FROM information_schema.columns WHERE table_name = 't'") == [(10,)]
    assert q(c, "SELECT table_name FROM information_schema.tables ORDER BY 1") == [("Items",), ("t",)]
    conn.rollback()
    assert q(conn, "SELECT count(*) FROM information_schema.columns WHERE table_name = 't'") == [(9,)]


def test_schemata_and_pg_tables(c):
    assert q(c, "SELECT schema_name FROM information_schema.schemata ORDER BY 1") == [
        ("app",), ("information_schema",), ("pg_catalog",), ("public",)]
    assert q(c, "SELECT schemaname, tablename, hasindexes FROM pg_catalog.pg_tables ORDER BY 2") == [
        ("app", "Items", False), ("public", "t", True)]
    assert q(c, "SELECT tablename FROM pg_tables WHERE schemaname = 'public'") == [("t",)]
    # they join with tables and can feed an INSERT; they cannot be written
    c.execute("CREATE TABLE names (n TEXT)")
    c.execute("INSERT INTO names SELECT table_name FROM information_schema.tables WHERE table_schema = 'app'")
    assert q(c, "SELECT * FROM names") == [("Items",)]
    with pytest.raises(errors.UndefinedTable):
        c.execute("DELETE FROM information_schema.tables")
    with pytest.raises(errors.UndefinedTable):
        c.execute("SELECT * FROM information_schema.nothing")
    with pytest.raises(errors.ProgrammingError) as e:
        c.execute("CREATE TABLE information_schema.mine (x INT)")
    assert e.value.sqlstate == "42501"


def test_views_under_serializable(connect):
    conn = connect(isolation_level="SERIALIZABLE")
    conn.execute("CREATE TABLE s (x INT)")
    conn.commit()
    assert q(conn, "SELECT table_name FROM information_schema.tables") == [("s",)]
    assert q(conn, "SELECT column_name FROM information_schema.columns WHERE table_name = 's' AND "
                   "ordinal_position = 1") == [("x",)]
    conn.commit()


def test_create_and_drop_schema(c, connect):
    """CREATE SCHEMA [IF NOT EXISTS] and DROP SCHEMA [IF EXISTS] ... [CASCADE | RESTRICT] (they
    were 0A000). A schema is a database, which comes to be with its first table: CREATE SCHEMA
    of one that holds tables is 42P06; DROP SCHEMA of one that holds tables is 2BP01 unless
    CASCADE, which drops them in the transaction."""
    c.execute("CREATE SCHEMA fresh")
    c.execute("CREATE TABLE fresh.a (x INT)")
    with pytest.raises(errors.ProgrammingError) as e:
        c.execute("CREATE SCHEMA fresh")
    assert e.value.sqlstate == "42P06"
    assert c.execute("CREATE SCHEMA IF NOT EXISTS fresh").connection.notices[-1] == \
        'NOTICE:  schema "fresh" already exists, skipping'
    with pytest.raises(errors.DependentObjectsStillExist) as e:
        c.execute("DROP SCHEMA fresh")
    assert e.value.sqlstate == "2BP01"
    with pytest.raises(errors.DependentObjectsStillExist) as e:
        c.execute("DROP SCHEMA pg_catalog")
    assert e.value.sqlstate == "2BP01"
    conn = connect()
    conn.execute("DROP SCHEMA public CASCADE")      # the reset idiom: public is the default database
    conn.execute("CREATE SCHEMA public")
    assert q(conn, "SELECT table_schema, table_name FROM information_schema.tables ORDER BY 1, 2") == [
        ("app", "Items"), ("fresh", "a")]
    conn.rollback()
    assert q(c, "SELECT count(*) FROM t") == [(0,)]
    c.execute("DROP SCHEMA IF EXISTS fresh CASCADE")
    c.execute("DROP SCHEMA IF EXISTS nothing_here")
    with pytest.raises(errors.UndefinedTable):
        c.execute("SELECT * FROM fresh.a")


def test_current_schema_and_database_are_the_sessions(c):
    """current_schema() (also bare current_schema), current_schemas(bool), current_database()
    and current_catalog said DuckDB's main / memory, so the catalog queries tools send - WHERE
    table_schema = current_schema() - found nothing. They follow SET search_path."""
    assert q(c, "SELECT current_schema(), current_schema, current_schemas(false), current_schemas(true), "
                "current_database(), current_catalog") == [
        ("public", "public", ["public"], ["pg_catalog", "public"], "txlake", "txlake")]
    assert q(c, "SELECT table_name FROM information_schema.tables WHERE table_schema = current_schema()") == [("t",)]
    c.execute("SET search_path = app, public")
    assert q(c, "SELECT current_schema(), current_schemas(false)") == [("app", ["app", "public"])]
    assert q(c, "SELECT table_name FROM information_schema.tables WHERE table_schema = ANY(current_schemas(false)) "
                "ORDER BY 1") == [("Items",), ("t",)]
    c.execute("CREATE TABLE k (s TEXT)")
    c.execute("INSERT INTO k VALUES (current_schema)")
    c.execute("UPDATE k SET s = s || '/' || current_database() WHERE s = current_schema()")
    assert q(c, "SELECT * FROM app.k") == [("app/txlake",)]
