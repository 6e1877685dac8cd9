"""pg_catalog's system catalogs - pg_namespace, pg_class, pg_attribute, pg_type, pg_enum,
pg_constraint, pg_index, pg_database - as psql's \\d queries and SQLAlchemy's reflection read
them (src/bin/psql/describe.c; sqlalchemy/dialects/postgresql/base.py), simplified where they
call functions txlake lacks (format_type, pg_table_is_visible, pg_get_expr). They were 42P01."""

import pytest

from txlake import errors
from tests.conftest import rows as q


@pytest.fixture
def c(connect):
    conn = connect(autocommit=True)
    for sql in ("CREATE TYPE mood AS ENUM ('sad', 'ok', 'happy')",
                "CREATE DOMAIN code AS varchar(8) NOT NULL CHECK (VALUE <> '')",
                "CREATE TABLE p (id INT PRIMARY KEY, name VARCHAR(20) UNIQUE, price NUMERIC(10,2) NOT NULL DEFAULT 0, "
                "m mood, tags INT[], c code)",
                "CREATE TABLE ch (id SERIAL PRIMARY KEY, pid INT REFERENCES p ON DELETE CASCADE, qty INT, "
                "CONSTRAINT few CHECK (qty < 100), CONSTRAINT one UNIQUE (pid, qty) DEFERRABLE INITIALLY DEFERRED)",
                "CREATE INDEX ch_qty ON ch (qty)",
                "CREATE VIEW pv AS SELECT id, name FROM p",
                "CREATE SEQUENCE s",
                "CREATE TABLE app.other (k BIGINT)",
                "INSERT INTO p VALUES (1, 'a', 1.5, 'ok', ARRAY[1], 'x'), (2, 'b', 2, 'sad', NULL, 'y')"):
        conn.execute(sql)
    return conn


def test_psql_list_of_relations(c):
    """psql's \\d (listTables): pg_class joined with pg_namespace, relkind spelled out."""
    rows = q(c, """
        SELECT n.nspname as "Schema", c.relname as "Name",
          CASE c.relkind WHEN 'r' THEN 'table' WHEN 'v' THEN 'view' WHEN 'm' THEN 'materialized view'
            WHEN 'i' THEN 'index' WHEN 'S' THEN 'sequence' WHEN 't' THEN 'TOAST table'
            WHEN 'f' THEN 'foreign table' WHEN 'p' THEN 'partitioned table' WHEN 'I' THEN 'partitioned index'
          END as "Type"
        FROM pg_catalog.pg_class c LEFT JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
        WHERE c.relkind IN ('r','p','v','m','S','f','')
          AND n.nspname <> 'pg_catalog' AND n.nspname !~ '^pg_toast' AND n.nspname <> 'information_schema'
        ORDER BY 1,2""")
    assert rows == [("app", "other", "table"), ("public", "ch", "table"), ("public", "ch_id_seq", "sequence"),
                    ("public", "p", "table"), ("public", "pv", "view"), ("public", "s", "sequence")]
    assert q(c, "SELECT relname, relkind, relhasindex, relnatts, reltuples, relpersistence, relchecks FROM pg_class "
                "WHERE relnamespace = 2200 AND relname LIKE 'ch%' ORDER BY 1") == [
        ("ch", "r", True, 3, 0.0, "p", 1), ("ch_id_seq", "S", False, 3, -1.0, "p", 0),
        ("ch_pkey", "i", False, 1, -1.0, "p", 0), ("ch_qty", "i", False, 1, -1.0, "p", 0)]
    assert q(c, "SELECT reltuples, relowner FROM pg_class WHERE relname = 'p'") == [(2.0, 10)]


def test_pg_namespace(c, connect):
    assert q(c, "SELECT nspname, oid = 2200 OR nspname <> 'public' FROM pg_namespace ORDER BY 1") == [
        ("app", True), ("information_schema", True), ("pg_catalog", True), ("public", True)]
    assert q(c, "SELECT oid FROM pg_catalog.pg_namespace WHERE nspname = 'pg_catalog'") == [(11,)]
    # a session's temporary tables are in its pg_temp_N, listed while it has some
    conn = connect(autocommit=True)
    conn.execute("CREATE TEMP TABLE scratch (x INT)")
    temp = q(conn, "SELECT nspname FROM pg_namespace WHERE nspname LIKE 'pg_temp%'")
    assert len(temp) == 1 and temp[0][0].startswith("pg_temp_")
    assert q(conn, "SELECT n.nspname, c.relpersistence FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
                   "WHERE c.relname = 'scratch'") == [(temp[0][0], "t")]
    assert q(c, "SELECT count(*) FROM pg_namespace WHERE nspname LIKE 'pg_temp%'") == [(0,)]


def test_psql_describe_columns(c):
    """psql's \\d t: the table's oid by name, then its columns by ``a.attrelid = '<oid>'``."""
    [(oid,)] = q(c, "SELECT c.oid FROM pg_catalog.pg_class c LEFT JOIN pg_catalog.pg_namespace n "
                    "ON n.oid = c.relnamespace WHERE c.relname = 'p' AND n.nspname = 'public'")
    assert q(c, f"""SELECT a.attname, a.atttypid, a.atttypmod, a.attnotnull, a.atthasdef, a.attidentity, a.attnum
                   FROM pg_catalog.pg_attribute a
                   WHERE a.attrelid = '{oid}' AND a.attnum > 0 AND NOT a.attisdropped ORDER BY a.attnum""") == [
        ("id", 23, -1, True, False, "", 1),
        ("name", 1043, 24, False, False, "", 2),                        # varchar(20): 20 + 4
        ("price", 1700, (10 << 16 | 2) + 4, True, True, "", 3),          # numeric(10,2)
        ("m", q(c, "SELECT oid FROM pg_type WHERE typname = 'mood'")[0][0], -1, False, False, "", 4),
        ("tags", 1007, -1, False, False, "", 5),                         # int4[]: _int4
        ("c", q(c, "SELECT oid FROM pg_type WHERE typname = 'code'")[0][0], -1, False, False, "", 6)]


def test_columns_joined_with_their_types(c):
    """SQLAlchemy's get_columns, without format_type: each column's type by pg_type."""
    rows = q(c, """
        SELECT pg_catalog.pg_class.relname AS table_name, a.attname AS name, t.typname, t.typtype, a.attnotnull
        FROM pg_catalog.pg_class
          LEFT OUTER JOIN pg_catalog.pg_attribute AS a
            ON pg_catalog.pg_class.oid = a.attrelid AND a.attnum > 0 AND NOT a.attisdropped
          JOIN pg_catalog.pg_namespace ON pg_catalog.pg_namespace.oid = pg_catalog.pg_class.relnamespace
          JOIN pg_catalog.pg_type AS t ON t.oid = a.atttypid
        WHERE pg_catalog.pg_class.relkind = ANY (ARRAY['r', 'p', 'f', 'v', 'm'])
          AND pg_catalog.pg_namespace.nspname = 'public' AND pg_catalog.pg_class.relname IN ('ch', 'pv')
        ORDER BY pg_catalog.pg_class.relname, a.attnum""")
    assert rows == [("ch", "id", "int4", "b", True), ("ch", "pid", "int4", "b", False),
                    ("ch", "qty", "int4", "b", False), ("pv", "id", "int4", "b", False),
                    ("pv", "name", "varchar", "b", False)]
    # SQLAlchemy's get_table_names
    assert q(c, """
        SELECT pg_catalog.pg_class.relname FROM pg_catalog.pg_class
          JOIN pg_catalog.pg_namespace ON pg_catalog.pg_namespace.oid = pg_catalog.pg_class.relnamespace
        WHERE pg_catalog.pg_class.relkind = ANY (ARRAY['r', 'p']) AND pg_catalog.pg_class.relpersistence != 't'
          AND pg_catalog.pg_namespace.nspname = 'public' ORDER BY 1""") == [("ch",), ("p",)]


def test_pg_type(c):
    assert q(c, "SELECT typname, oid, typlen, typcategory, typtype, typarray FROM pg_type WHERE typname IN "
                "('bool', 'int2', 'int4', 'int8', 'float4', 'float8', 'numeric', 'text', 'varchar', 'bytea', 'date', "
                "'time', 'timestamp', 'timestamptz', 'uuid', 'json', 'jsonb') ORDER BY oid") == [
        ("bool", 16, 1, "B", "b", 1000), ("bytea", 17, -1, "U", "b", 1001), ("int8", 20, 8, "N", "b", 1016),
        ("int2", 21, 2, "N", "b", 1005), ("int4", 23, 4, "N", "b", 1007), ("text", 25, -1, "S", "b", 1009),
        ("json", 114, -1, "U", "b", 199), ("float4", 700, 4, "N", "b", 1021), ("float8", 701, 8, "N", "b", 1022),
        ("varchar", 1043, -1, "S", "b", 1015), ("date", 1082, 4, "D", "b", 1182), ("time", 1083, 8, "D", "b", 1183),
        ("timestamp", 1114, 8, "D", "b", 1115), ("timestamptz", 1184, 8, "D", "b", 1185),
        ("numeric", 1700, -1, "N", "b", 1231), ("uuid", 2950, 16, "U", "b", 2951),
        ("jsonb", 3802, -1, "U", "b", 3807)]
    assert q(c, "SELECT e.typname, e.typelem, e.typcategory FROM pg_type e JOIN pg_type b ON b.typarray = e.oid "
                "WHERE b.typname = 'int4'") == [("_int4", 23, "A")]
    # the enum, its labels in order (SQLAlchemy's _load_enums); the domain over its base type; row types
    assert q(c, "SELECT t.typname, t.typtype, t.typcategory, e.enumlabel, n.nspname FROM pg_type t "
                "JOIN pg_enum e ON e.enumtypid = t.oid JOIN pg_namespace n ON n.oid = t.typnamespace "
                "ORDER BY e.enumsortorder") == [("mood", "e", "E", "sad", "public"), ("mood", "e", "E", "ok", "public"),
                                                ("mood", "e", "E", "happy", "public")]
    assert q(c, "SELECT t.typtype, b.typname, t.typtypmod, t.typnotnull FROM pg_type t JOIN pg_type b "
                "ON b.oid = t.typbasetype WHERE t.typname = 'code'") == [("d", "varchar", 12, True)]
    assert q(c, "SELECT t.typtype, c.relname FROM pg_type t JOIN pg_class c ON c.reltype = t.oid "
                "AND t.typrelid = c.oid WHERE t.typname IN ('p', 'pv') ORDER BY 2") == [("c", "p"), ("c", "pv")]


def test_psql_indexes_and_constraints(c):
    """psql's \\d t index query: pg_class twice, pg_index, the constraint that backs each index."""
    [(oid,)] = q(c, "SELECT oid FROM pg_class WHERE relname = 'ch'")
    assert q(c, f"""
        SELECT c2.relname, i.indisprimary, i.indisunique, i.indisvalid, i.indkey, contype, condeferrable, condeferred
        FROM pg_catalog.pg_class c, pg_catalog.pg_class c2, pg_catalog.pg_index i
          LEFT JOIN pg_catalog.pg_constraint con ON (conrelid = i.indrelid AND conindid = i.indexrelid
                                                     AND contype IN ('p','u','x'))
        WHERE c.oid = '{oid}' AND c.oid = i.indrelid AND i.indexrelid = c2.oid
        ORDER BY i.indisprimary DESC, c2.relname""") == [
        ("ch_pkey", True, True, True, [1], "p", False, False), ("ch_qty", False, False, True, [3], None, None, None),
        ("one", False, True, True, [2, 3], "u", True, True)]
    assert q(c, f"SELECT conname FROM pg_catalog.pg_constraint r WHERE r.conrelid = '{oid}' AND r.contype = 'c' "
                "ORDER BY 1") == [("few",)]
    # a foreign key: its columns and the referenced ones by attnum, its actions, the referenced key's index
    assert q(c, """
        SELECT con.conname, cl.relname, con.conkey, f.relname, con.confkey, con.confdeltype, con.confupdtype,
               ix.relname
        FROM pg_constraint con JOIN pg_class cl ON cl.oid = con.conrelid JOIN pg_class f ON f.oid = con.confrelid
          JOIN pg_class ix ON ix.oid = con.conindid
        WHERE con.contype = 'f'""") == [("ch_pid_fkey", "ch", [2], "p", [1], "c", "a", "p_pkey")]
    # a domain's CHECK is the domain's (contypid), of no relation
    assert q(c, "SELECT con.conname, con.conrelid, t.typname FROM pg_constraint con JOIN pg_type t "
                "ON t.oid = con.contypid") == [("code_check", 0, "code")]


def test_regclass_is_the_relation_s_oid(c, connect):
    """``'t'::regclass`` where an OID is meant (compared, cast to oid) is pg_class.oid: it was
    42704 (type "regclass" does not exist)."""
    assert q(c, "SELECT attname FROM pg_attribute WHERE attrelid = 'p'::regclass AND attnum > 0 "
                "ORDER BY attnum") == [("id",), ("name",), ("price",), ("m",), ("tags",), ("c",)]
    assert q(c, "SELECT relname FROM pg_class WHERE oid IN ('public.pv'::regclass, 'ch_qty'::regclass, "
                "'app.other'::pg_catalog.regclass) ORDER BY 1") == [("ch_qty",), ("other",), ("pv",)]
    [(oid,)] = q(c, "SELECT 'p'::regclass::oid")
    assert q(c, "SELECT oid FROM pg_class WHERE relname = 'p'") == [(oid,)]
    assert q(c, "SELECT ('p'::regclass)::oid, (('p'::regclass)) = ?", (oid,)) == [(oid, True)]  # (42704 in parentheses)
    for missing, shown in (("nope", "nope"), ("public.nope", "public.nope"), ('"P"', "P"), ("mood", "mood")):
        with pytest.raises(errors.UndefinedTable) as e:
            c.execute(f"SELECT '{missing}'::regclass::oid")
        assert e.value.sqlstate == "42P01" and str(e.value) == f'relation "{shown}" does not exist'
    # looked up at each execution: a table dropped and made again is another relation
    c.execute("CREATE TABLE gone (x INT)")
    [(before,)] = q(c, "SELECT 'gone'::regclass::oid")
    c.execute("DROP TABLE gone")
    c.execute("CREATE TABLE gone (x INT)")
    [(after,)] = q(c, "SELECT 'gone'::regclass::oid")
    assert after != before and q(c, "SELECT oid FROM pg_class WHERE relname = 'gone'") == [(after,)]


def test_oids_are_stable(c, connect):
    """The same relation has the same OID in every session, and after an ALTER TABLE; another
    relation has another."""
    rows = q(c, "SELECT oid, relname FROM pg_class ORDER BY relname")
    assert len({oid for oid, _ in rows}) == len(rows) and all(16384 <= oid < 2 ** 31 for oid, _ in rows)
    other = connect(autocommit=True)
    assert q(other, "SELECT oid, relname FROM pg_class ORDER BY relname") == rows
    [(oid,)] = q(other, "SELECT oid FROM pg_class WHERE relname = 'p'")
    other.execute("ALTER TABLE p ADD COLUMN extra INT")
    assert q(c, "SELECT relname, relnatts FROM pg_class WHERE oid = ?", (oid,)) == [("p", 7)]


def test_catalogs_follow_the_transaction_and_are_read_only(c, connect):
    conn = connect()
    conn.execute("CREATE TABLE fresh (x INT, y TEXT)")
    assert q(conn, "SELECT count(*) FROM pg_attribute a JOIN pg_class c ON c.oid = a.attrelid "
                   "WHERE c.relname = 'fresh'") == [(2,)]
    assert q(c, "SELECT count(*) FROM pg_class WHERE relname = 'fresh'") == [(0,)]
    conn.rollback()
    with pytest.raises(errors.UndefinedTable):
        c.execute("DELETE FROM pg_class")
    with pytest.raises(errors.ProgrammingError) as e:
        c.execute("CREATE TABLE pg_catalog.pg_mine (x INT)")
    assert e.value.sqlstate == "42501"
    # a user's table of a catalog's name: pg_catalog's unqualified, the user's qualified
    c.execute("CREATE TABLE pg_class (mine INT)")
    assert q(c, "SELECT count(*) FROM pg_class WHERE relname = 'pg_class'") == [(1,)]
    assert q(c, "SELECT count(*) FROM public.pg_class") == [(0,)]
    assert q(c, "SELECT datname FROM pg_database") == [("txlake",)]


@pytest.mark.parametrize("sql", [
    "SELECT format_pg_type('INTEGER', 'int4')",
])
def test_duckdbs_catalog_functions_are_refused(c, sql):
    """DuckDB's stand-ins read its own catalog and answer wrongly for these rows (format_type
    gave varchar(0,24) for varchar(20), pg_table_is_visible true outside the search path, until
    engine/catalog_functions.py answered them): 0A000 for those txlake does not answer."""
    with pytest.raises(errors.NotSupportedError) as e:
        c.execute(sql)
    assert e.value.sqlstate == "0A000" and "is not supported" in str(e.value)
