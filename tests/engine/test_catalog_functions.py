"""PostgreSQL's functions over catalog OIDs, row by row over pg_catalog's rows, as schema readers
call them: ``x::regclass``, format_type, pg_get_indexdef, pg_get_constraintdef, pg_get_expr
(over pg_attrdef), obj_description / col_description (pg_description), pg_table_is_visible,
pg_get_userbyid. Rails' PostgreSQL adapter's schema queries (activerecord/lib/active_record/
connection_adapters/postgresql/schema_statements.rb and postgresql_adapter.rb) and psql's ``\\d``
(src/bin/psql/describe.c) run unchanged, their table's name as a constant; the answers are
PostgreSQL 16's (format_type.c, ruleutils.c, regproc.c). Before, regclass of a column was 42704,
format_type and pg_get_constraintdef 0A000, pg_get_indexdef 42883, obj_description of a
constraint NULL."""

import pytest

from txlake import errors
from tests.conftest import rows as q

_SCHEMA = ("CREATE TABLE t (id int PRIMARY KEY, v varchar(20) NOT NULL, n numeric(10,2), "
           "CONSTRAINT v_chk CHECK (v <> ''))",
           "CREATE INDEX t_v_idx ON t (v)",
           "COMMENT ON CONSTRAINT v_chk ON t IS 'x'",
           "CREATE TABLE u (id serial PRIMARY KEY, t_id int REFERENCES t (id) ON DELETE CASCADE, "
           "note text DEFAULT 'none', made date DEFAULT current_date, CONSTRAINT u_one UNIQUE (t_id, note), "
           "CONSTRAINT u_t_pos CHECK (t_id > 0))",
           "COMMENT ON COLUMN u.note IS 'free text'",
           "COMMENT ON INDEX t_v_idx IS 'by v'",
           'CREATE TABLE app."Mixed" (k bigint)')


@pytest.fixture
def c(connect):
    conn = connect(autocommit=True)
    for sql in _SCHEMA:
        conn.execute(sql)
    return conn


def test_regclass_of_an_oid_column_is_the_relation_s_name(c):
    """regclassout: the name, qualified (and quoted) where the search path does not find it; an
    OID no relation has is its number, 0 is '-'."""
    assert q(c, "SELECT conrelid::regclass, conname FROM pg_constraint WHERE conrelid = 't'::regclass "
                "ORDER BY conname") == [("t", "t_pkey"), ("t", "v_chk")]
    assert q(c, "SELECT c.oid::regclass FROM pg_class c ORDER BY c.relname") == [
        ('app."Mixed"',), ("t",), ("t_pkey",), ("t_v_idx",), ("u",), ("u_id_seq",), ("u_one",), ("u_pkey",)]
    assert q(c, "SELECT DISTINCT attrelid::regclass::text FROM pg_attribute WHERE attrelid = 'u'::regclass") == [
        ("u",)]
    assert q(c, "SELECT 0::regclass, 12345::regclass, 't'::regclass, 'app.\"Mixed\"'::regclass") == [
        ("-", "12345", "t", 'app."Mixed"')]
    assert q(c, "SELECT relname FROM pg_class c WHERE c.oid::regclass = 't'::regclass") == [("t",)]


def test_regclass_of_a_parameter(c):
    """``?::regclass``: the parameter's value read as regclassin reads a name (or an OID)."""
    [(t_oid,)] = q(c, "SELECT 't'::regclass::oid")
    assert q(c, "SELECT relname FROM pg_class WHERE oid = ?::regclass", ("public.t",)) == [("t",)]
    assert q(c, "SELECT relname FROM pg_class WHERE oid = ?::regclass", (t_oid,)) == [("t",)]
    assert q(c, "SELECT ?::regclass", ('"t"',)) == [("t",)]
    assert q(c, "SELECT ?::regclass", (None,)) == [(None,)]
    with pytest.raises(errors.UndefinedTable, match='relation "nope" does not exist'):
        c.execute("SELECT attname FROM pg_attribute WHERE attrelid = ?::regclass", ("nope",))


def test_format_type_of_each_column(c):
    assert q(c, "SELECT attname, format_type(atttypid, atttypmod), atttypmod FROM pg_attribute "
                "WHERE attrelid = 't'::regclass AND attnum > 0 ORDER BY attnum") == [
        ("id", "integer", -1), ("v", "character varying(20)", 24), ("n", "numeric(10,2)", (10 << 16 | 2) + 4)]


@pytest.mark.parametrize("call, shown", [
    ("format_type(1043, NULL)", "character varying"), ("format_type(1042, -1)", "bpchar"),
    ("format_type(1042, NULL)", "character"), ("format_type(1042, 14)", "character(10)"),
    ("format_type(1114, 3)", "timestamp(3) without time zone"), ("format_type(1184, -1)", "timestamp with time zone"),
    ("format_type(1231, 655366)", "numeric(10,2)[]"), ("format_type(1007, -1)", "integer[]"),
    ("format_type(18, -1)", '"char"'), ("format_type(25, -1)", "text"), ("format_type(701, 5)", "double precision"),
    ("format_type(99999, -1)", "???"), ("format_type(NULL, -1)", None),
])
def test_format_type_as_format_type_c(c, call, shown):
    assert q(c, f"SELECT {call}") == [(shown,)]


def test_format_type_of_a_relation_s_row_type_outside_the_search_path(c):
    assert q(c, "SELECT format_type(reltype, -1) FROM pg_class WHERE relname IN ('t', 'Mixed') ORDER BY 1") == [
        ('app."Mixed"',), ("t",)]


def test_pg_get_indexdef(c):
    assert q(c, "SELECT pg_get_indexdef(indexrelid), pg_get_indexdef(indexrelid, 2, true), indisprimary, "
                "indisunique, indkey FROM pg_index WHERE indrelid IN ('t'::regclass, 'u'::regclass) "
                "ORDER BY indexrelid::regclass::text") == [
        ("CREATE UNIQUE INDEX t_pkey ON public.t USING btree (id)", None, True, True, [1]),
        ("CREATE INDEX t_v_idx ON public.t USING btree (v)", None, False, False, [2]),
        ("CREATE UNIQUE INDEX u_one ON public.u USING btree (t_id, note)", "note", False, True, [2, 3]),
        ("CREATE UNIQUE INDEX u_pkey ON public.u USING btree (id)", None, True, True, [1])]
    assert q(c, "SELECT pg_get_indexdef('t_pkey'::regclass, 0, true), pg_get_indexdef(0)") == [
        ("CREATE UNIQUE INDEX t_pkey ON public.t USING btree (id)", None)]


def test_pg_get_constraintdef(c):
    """ruleutils.c's text of each constraint; a CHECK's expression parenthesized, unless pretty.
    (v_chk is left out: PostgreSQL writes its varchar operand cast, ``(v)::text <> ''::text``,
    which txlake's text of a CHECK does not.)"""
    assert q(c, "SELECT conname, pg_get_constraintdef(oid), pg_get_constraintdef(oid, true) FROM pg_constraint "
                "WHERE conname <> 'v_chk' ORDER BY conrelid::regclass::text, conname") == [
        ("t_pkey", "PRIMARY KEY (id)", "PRIMARY KEY (id)"),
        ("u_one", "UNIQUE (t_id, note)", "UNIQUE (t_id, note)"),
        ("u_pkey", "PRIMARY KEY (id)", "PRIMARY KEY (id)"),
        ("u_t_id_fkey", "FOREIGN KEY (t_id) REFERENCES t(id) ON DELETE CASCADE",
         "FOREIGN KEY (t_id) REFERENCES t(id) ON DELETE CASCADE"),
        ("u_t_pos", "CHECK ((t_id > 0))", "CHECK (t_id > 0)")]
    assert q(c, "SELECT pg_get_constraintdef(0), pg_get_constraintdef(NULL, true)") == [(None, None)]


def test_comments_by_oid(c):
    """obj_description(oid, catalog) and col_description(oid, attnum) of OID columns: pg_description's."""
    assert q(c, "SELECT conname, obj_description(oid, 'pg_constraint') FROM pg_constraint "
                "WHERE conrelid = 't'::regclass ORDER BY 1") == [("t_pkey", None), ("v_chk", "x")]
    assert q(c, "SELECT obj_description(c.oid, 'pg_class') FROM pg_class c WHERE relname = 't_v_idx'") == [("by v",)]
    assert q(c, "SELECT attname, col_description(attrelid, attnum) FROM pg_attribute WHERE attrelid = 'u'::regclass "
                "AND attnum > 0 ORDER BY attnum") == [("id", None), ("t_id", None), ("note", "free text"),
                                                      ("made", None)]
    assert q(c, "SELECT d.description, d.objsubid FROM pg_description d JOIN pg_class c ON c.oid = d.objoid "
                "WHERE c.relname = 'u'") == [("free text", 3)]
    with pytest.raises(errors.NotSupportedError):
        c.execute("SELECT obj_description(oid, relname) FROM pg_class")


def test_pg_attrdef_and_pg_get_expr(c):
    assert q(c, "SELECT a.attname, pg_get_expr(d.adbin, d.adrelid), pg_get_expr(d.adbin, d.adrelid, true), "
                "a.atthasdef FROM pg_attrdef d JOIN pg_attribute a ON a.attrelid = d.adrelid AND a.attnum = d.adnum "
                "WHERE d.adrelid = 'u'::regclass ORDER BY d.adnum") == [
        ("id", "nextval('u_id_seq'::regclass)", "nextval('u_id_seq'::regclass)", True),
        ("note", "'none'::text", "'none'::text", True),
        ("made", "CURRENT_DATE", "CURRENT_DATE", True)]
    c.execute("CREATE TABLE w (a int DEFAULT 1 + 2, b int DEFAULT 1 + 2, g int GENERATED ALWAYS AS (a * 2) STORED)")
    assert q(c, "SELECT d.adnum, pg_get_expr(d.adbin, d.adrelid), pg_get_expr(d.adbin, d.adrelid, true) "
                "FROM pg_attrdef d WHERE d.adrelid = 'w'::regclass ORDER BY 1") == [
        (1, "(1 + 2)", "1 + 2"), (2, "(1 + 2)", "1 + 2"), (3, "(a * 2)", "a * 2")]


def test_visibility_and_owner(c):
    assert q(c, "SELECT relname, pg_table_is_visible(oid), pg_get_userbyid(relowner) = current_user "
                "FROM pg_class WHERE relkind = 'r' ORDER BY 1") == [("Mixed", False, True), ("t", True, True),
                                                                    ("u", True, True)]
    c.execute("SET search_path = app, public")
    assert q(c, "SELECT pg_table_is_visible('app.\"Mixed\"'::regclass), 'app.\"Mixed\"'::regclass") == [
        (True, '"Mixed"')]
    assert q(c, "SELECT pg_get_userbyid(99), pg_get_userbyid(NULL), pg_table_is_visible(12345)") == [
        ("unknown (OID=99)", None, None)]


# --- Rails' schema statements, as its PostgreSQL adapter sends them --------------------------

def test_rails_column_definitions(c):
    assert q(c, """
        SELECT a.attname, format_type(a.atttypid, a.atttypmod),
               pg_get_expr(d.adbin, d.adrelid), a.attnotnull, a.atttypid, a.atttypmod,
               c.collname, col_description(a.attrelid, a.attnum) AS comment,
               attidentity AS identity,
               attgenerated as attgenerated
          FROM pg_attribute a
          LEFT JOIN pg_attrdef d ON a.attrelid = d.adrelid AND a.attnum = d.adnum
          LEFT JOIN pg_type t ON a.atttypid = t.oid
          LEFT JOIN pg_collation c ON a.attcollation = c.oid AND a.attcollation <> t.typcollation
         WHERE a.attrelid = '"u"'::regclass
           AND a.attnum > 0 AND NOT a.attisdropped
         ORDER BY a.attnum""") == [
        ("id", "integer", "nextval('u_id_seq'::regclass)", True, 23, -1, None, None, "", ""),
        ("t_id", "integer", None, False, 23, -1, None, None, "", ""),
        ("note", "text", "'none'::text", False, 25, -1, None, "free text", "", ""),
        ("made", "date", "CURRENT_DATE", False, 1082, -1, None, None, "", "")]


def test_rails_indexes(c):
    [(t_oid,)] = q(c, "SELECT 't'::regclass::oid")
    assert q(c, """
        SELECT distinct i.relname, d.indisunique, d.indkey, pg_get_indexdef(d.indexrelid), t.oid,
                        pg_catalog.obj_description(i.oid, 'pg_class') AS comment
        FROM pg_class t
        INNER JOIN pg_index d ON t.oid = d.indrelid
        INNER JOIN pg_class i ON d.indexrelid = i.oid
        LEFT JOIN pg_namespace n ON n.oid = i.relnamespace
        WHERE i.relkind IN ('i', 'I')
          AND d.indisprimary = 'f'
          AND t.relname = 't'
          AND n.nspname = ANY (current_schemas(false))
        ORDER BY i.relname""") == [("t_v_idx", False, [2], "CREATE INDEX t_v_idx ON public.t USING btree (v)", t_oid,
                                    "by v")]


def test_rails_primary_keys_and_their_sequence(c):
    """primary_keys (which ran before: pg_index and '"k"'::regclass were there) and
    pk_and_sequence_for's query through pg_attrdef, which Rails sends for the key's sequence."""
    assert q(c, """
        SELECT attr.attname, nsp.nspname,
          CASE
            WHEN pg_get_expr(def.adbin, def.adrelid) !~* 'nextval' THEN NULL
            WHEN split_part(pg_get_expr(def.adbin, def.adrelid), '''', 2) ~ '.' THEN
              substr(split_part(pg_get_expr(def.adbin, def.adrelid), '''', 2),
                     strpos(split_part(pg_get_expr(def.adbin, def.adrelid), '''', 2), '.')+1)
            ELSE split_part(pg_get_expr(def.adbin, def.adrelid), '''', 2)
          END
        FROM pg_class       t
        JOIN pg_attribute   attr ON (t.oid = attrelid)
        JOIN pg_attrdef     def  ON (adrelid = attrelid AND adnum = attnum)
        JOIN pg_constraint  cons ON (conrelid = adrelid AND adnum = conkey[1])
        JOIN pg_namespace   nsp  ON (t.relnamespace = nsp.oid)
        WHERE t.oid = '"u"'::regclass
          AND cons.contype = 'p'
          AND pg_get_expr(def.adbin, def.adrelid) ~* 'nextval|uuid_generate'""") == [
        ("id", "public", "u_id_seq")]
    c.execute("CREATE TABLE k (a int, b int, c int, PRIMARY KEY (c, a))")
    assert q(c, """
        SELECT a.attname
          FROM (
                 SELECT indrelid, indkey, generate_subscripts(indkey, 1) idx
                   FROM pg_index
                  WHERE indrelid = '"k"'::regclass
                    AND indisprimary
               ) i
          JOIN pg_attribute a
            ON a.attrelid = i.indrelid
           AND a.attnum = i.indkey[i.idx]
         ORDER BY i.idx""") == [("c",), ("a",)]


def test_rails_foreign_keys(c):
    assert q(c, """
        SELECT t2.oid::regclass::text AS to_table, a1.attname AS column, a2.attname AS primary_key,
               c.conname AS name, c.confupdtype AS on_update, c.confdeltype AS on_delete, c.convalidated AS valid
        FROM pg_constraint c
        JOIN pg_class t1 ON c.conrelid = t1.oid
        JOIN pg_class t2 ON c.confrelid = t2.oid
        JOIN pg_attribute a1 ON a1.attnum = c.conkey[1] AND a1.attrelid = t1.oid
        JOIN pg_attribute a2 ON a2.attnum = c.confkey[1] AND a2.attrelid = t2.oid
        JOIN pg_namespace t3 ON c.connamespace = t3.oid
        WHERE c.contype = 'f'
          AND t1.relname = 'u'
          AND t3.nspname = ANY (current_schemas(false))
        ORDER BY c.conname""") == [("t", "t_id", "id", "u_t_id_fkey", "a", "c", True)]


# --- psql's \d t (describeOneTableDetails) -------------------------------------------------

def test_psql_describe_columns(c):
    assert q(c, """
        SELECT a.attname,
          pg_catalog.format_type(a.atttypid, a.atttypmod),
          (SELECT pg_catalog.pg_get_expr(d.adbin, d.adrelid, true)
           FROM pg_catalog.pg_attrdef d
           WHERE d.adrelid = a.attrelid AND d.adnum = a.attnum AND a.atthasdef),
          a.attnotnull,
          (SELECT c.collname FROM pg_catalog.pg_collation c, pg_catalog.pg_type t
           WHERE c.oid = a.attcollation AND t.oid = a.atttypid AND a.attcollation <> t.typcollation) AS attcollation,
          a.attidentity,
          a.attgenerated
        FROM pg_catalog.pg_attribute a
        WHERE a.attrelid = 'u'::regclass AND a.attnum > 0 AND NOT a.attisdropped
        ORDER BY a.attnum""") == [
        ("id", "integer", "nextval('u_id_seq'::regclass)", True, None, "", ""),
        ("t_id", "integer", None, False, None, "", ""),
        ("note", "text", "'none'::text", False, None, "", ""),
        ("made", "date", "CURRENT_DATE", False, None, "", "")]


def test_psql_describe_indexes_and_constraints(c):
    assert q(c, """
        SELECT c2.relname, i.indisprimary, i.indisunique, i.indisclustered, i.indisvalid,
          pg_catalog.pg_get_indexdef(i.indexrelid, 0, true),
          pg_catalog.pg_get_constraintdef(con.oid, true), contype, condeferrable, condeferred, i.indisreplident,
          c2.reltablespace
        FROM pg_catalog.pg_class c, pg_catalog.pg_class c2, pg_catalog.pg_index i
          LEFT JOIN pg_catalog.pg_constraint con
            ON (conrelid = i.indrelid AND conindid = i.indexrelid AND contype IN ('p','u','x'))
        WHERE c.oid = 't'::regclass AND c.oid = i.indrelid AND i.indexrelid = c2.oid
        ORDER BY i.indisprimary DESC, c2.relname""") == [
        ("t_pkey", True, True, False, True, "CREATE UNIQUE INDEX t_pkey ON public.t USING btree (id)",
         "PRIMARY KEY (id)", "p", False, False, False, 0),
        ("t_v_idx", False, False, False, True, "CREATE INDEX t_v_idx ON public.t USING btree (v)",
         None, None, None, None, False, 0)]
    assert q(c, """
        SELECT r.conname, pg_catalog.pg_get_constraintdef(r.oid, true)
        FROM pg_catalog.pg_constraint r
        WHERE r.conrelid = 't'::regclass AND r.contype = 'c'
        ORDER BY 1""") == [("v_chk", "CHECK (v <> '')")]
    assert q(c, """
        SELECT true as sametable, conname,
          pg_catalog.pg_get_constraintdef(r.oid, true) as condef,
          conrelid::pg_catalog.regclass AS ontable
        FROM pg_catalog.pg_constraint r
        WHERE r.conrelid = 'u'::regclass AND r.contype = 'f'
             AND conparentid = 0
        ORDER BY conname""") == [(True, "u_t_id_fkey", "FOREIGN KEY (t_id) REFERENCES t(id) ON DELETE CASCADE", "u")]


@pytest.mark.parametrize("sql", ["SELECT col_description(1)", "SELECT format_type(1)", "SELECT pg_get_indexdef(1, 2)"])
def test_a_wrong_number_of_arguments_is_42883(connect, sql):
    """It raised AttributeError (an error class txlake has not), col_description a KeyError."""
    with pytest.raises(errors.ProgrammingError) as e:
        connect(autocommit=True).execute(sql)
    assert e.value.sqlstate == "42883" and "does not exist" in str(e.value)


def test_viewdef_and_type_and_function_visibility(connect):
    """pg_get_viewdef, pg_type_is_visible and pg_function_is_visible were 0A000 (DBeaver's view
    DDL, psql's \\dT and \\df queries): the view's query as pg_views.definition shows it (NULL
    for a relation that is no view), and visibility as the search path finds the name."""
    c = connect(autocommit=True)
    for sql in ("CREATE TABLE p (id int, name text)", "CREATE VIEW pv AS SELECT id, name FROM p WHERE id > 1",
                "CREATE MATERIALIZED VIEW mv AS SELECT 1 AS x", "CREATE TYPE mood AS ENUM ('a')",
                "CREATE SCHEMA s2", "CREATE TYPE s2.hidden AS ENUM ('x')",
                "CREATE FUNCTION f(a int) RETURNS int LANGUAGE sql AS 'SELECT a'",
                "CREATE FUNCTION s2.f(a int) RETURNS int LANGUAGE sql AS 'SELECT a'",
                "CREATE FUNCTION s2.g() RETURNS int LANGUAGE sql AS 'SELECT 1'"):
        c.execute(sql)
    definition = q(c, "SELECT definition FROM pg_views WHERE viewname = 'pv'")[0][0]
    assert q(c, "SELECT pg_get_viewdef('pv'), pg_get_viewdef('pv'::regclass, true)") == [(definition,) * 2]
    assert q(c, "SELECT c.relname, pg_get_viewdef(c.oid) FROM pg_class c WHERE relnamespace = 2200 AND "
                "relkind IN ('r', 'v', 'm') ORDER BY 1") == [("mv", "SELECT 1 AS x"), ("p", None), ("pv", definition)]
    with pytest.raises(errors.UndefinedTable):
        c.execute("SELECT pg_get_viewdef('nope')")
    assert q(c, "SELECT t.typname, pg_type_is_visible(t.oid) FROM pg_type t WHERE t.typname IN ('mood', 'hidden', "
                "'int4', '_text') ORDER BY 1") == [("_text", True), ("hidden", False), ("int4", True), ("mood", True)]
    found = "SELECT n.nspname, p.proname, pg_function_is_visible(p.oid) FROM pg_proc p " \
            "JOIN pg_namespace n ON n.oid = p.pronamespace ORDER BY 1, 2"
    assert q(c, found) == [("public", "f", True), ("s2", "f", False), ("s2", "g", False)]
    c.execute("SET search_path = s2, public")
    assert q(c, found) == [("public", "f", False), ("s2", "f", True), ("s2", "g", True)]


def test_regtype_regnamespace_and_regrole(connect):
    """x::regtype, ::regnamespace and ::regrole were 42704 (type does not exist): tools write
    atttypid::regtype, relnamespace::regnamespace and relowner::regrole. As regclass: the OID
    where one is meant, else the name (regtype's as format_type writes it, without a typmod)."""
    c = connect(autocommit=True)
    for sql in ("CREATE TYPE mood AS ENUM ('a')", "CREATE SCHEMA app",
                "CREATE TABLE app.t (a int, b varchar(10), c text[], m mood, n numeric(5,2), d timestamptz)"):
        c.execute(sql)
    assert q(c, "SELECT 'integer'::regtype, 'int'::regtype, 'character varying(3)'::regtype, 'text[]'::regtype, "
                "'public.mood'::regtype, '\"char\"'::regtype, 'char'::regtype") == [
        ("integer", "integer", "character varying", "text[]", "mood", '"char"', "character")]
    assert q(c, "SELECT 'int4'::regtype::oid, 'mood'::regtype = (SELECT oid FROM pg_type WHERE typname = 'mood')") == [
        (23, True)]
    assert q(c, "SELECT attname, atttypid::regtype FROM pg_attribute WHERE attrelid = 'app.t'::regclass AND attnum > 0 "
                "ORDER BY attnum") == [("a", "integer"), ("b", "character varying"), ("c", "text[]"), ("m", "mood"),
                                       ("n", "numeric"), ("d", "timestamp with time zone")]
    assert q(c, "SELECT 0::regtype, 99999::regtype") == [("-", "99999")]
    user = q(c, "SELECT current_user")[0][0]
    assert q(c, "SELECT relnamespace::regnamespace, relowner::regrole FROM pg_class WHERE relname = 't'") == [
        ("app", user)]
    assert q(c, "SELECT count(*) FROM pg_class WHERE relnamespace = 'app'::regnamespace") == [(1,)]
    assert q(c, "SELECT 'pg_catalog'::regnamespace::oid, 10::regrole::oid") == [(11, 10)]
    # names read as identifiers: unquoted lower-cased, quoted as written; a type's pg_type names
    c.execute('CREATE TABLE "Mixed".x (a int)')
    assert q(c, "SELECT '\"Mixed\"'::regnamespace, 'APP'::regnamespace, '\"int4\"'::regtype, '_int4'::regtype, "
                f"'{user.upper()}'::regrole") == [('"Mixed"', "app", "integer", "integer[]", user)]
    for sql, state in (("SELECT 'nope'::regtype", "42704"), ("SELECT 'nope'::regnamespace", "3F000"),
                       ("SELECT 'mixed'::regnamespace", "3F000"), ("SELECT '\"integer\"'::regtype", "42704"),
                       ("SELECT 'nobody'::regrole", "42704")):
        with pytest.raises(errors.ProgrammingError) as e:
            c.execute(sql)
        assert e.value.sqlstate == state


def test_regproc_and_regprocedure(connect):
    """x::regproc / ::regprocedure were 42704 (type does not exist): a function's OID where one is
    meant, else its name - regprocedure's with its argument types, as format_procedure writes
    them - qualified where the search path does not find it; 42883 for no such function,
    42725 for regproc's name of overloads (regproc.c's regprocin / regprocedurein)."""
    c = connect(autocommit=True)
    for sql in ("CREATE FUNCTION f(a int) RETURNS int LANGUAGE sql AS 'SELECT a'",
                "CREATE FUNCTION f(a text) RETURNS int LANGUAGE sql AS 'SELECT 1'",
                "CREATE FUNCTION g() RETURNS int LANGUAGE sql AS 'SELECT 1'", "CREATE SCHEMA app",
                "CREATE FUNCTION app.h(x int, y numeric) RETURNS int LANGUAGE sql AS 'SELECT 1'"):
        c.execute(sql)
    assert q(c, "SELECT 'g'::regproc, 'g()'::regprocedure, 'f(int)'::regprocedure, 'public.f(text)'::regprocedure, "
                "'app.h'::regproc, 'app.h(integer, numeric)'::regprocedure") == [
        ("g", "g()", "f(integer)", "f(text)", "app.h", "app.h(integer,numeric)")]
    assert q(c, "SELECT oid::regproc, oid::regprocedure FROM pg_proc ORDER BY 2") == [
        ("app.h", "app.h(integer,numeric)"), ("f", "f(integer)"), ("f", "f(text)"), ("g", "g()")]
    assert q(c, "SELECT proname FROM pg_proc WHERE oid = 'g'::regproc") == [("g",)]
    assert q(c, "SELECT 'f(text)'::regprocedure::oid = (SELECT oid FROM pg_proc WHERE proargtypes = [25])") == [
        (True,)]
    assert q(c, "SELECT 0::regproc, 99999::regprocedure") == [("-", "99999")]
    for sql, state, message in (
            ("SELECT 'f'::regproc", "42725", 'more than one function named "f"'),
            ("SELECT 'nope'::regproc", "42883", 'function "nope" does not exist'),
            ("SELECT 'f(bigint)'::regprocedure", "42883", "function f(bigint) does not exist"),
            ("SELECT 'h'::regproc", "42883", 'function "h" does not exist'),
            ("SELECT 'f('::regprocedure", "22P02", "expected a right parenthesis"),
            ("SELECT 'f'::regprocedure", "22P02", "expected a left parenthesis"),
            ("SELECT 'lower'::regproc", "0A000", None)):
        with pytest.raises(errors.Error) as e:
            c.execute(sql)
        assert e.value.sqlstate == state and (message is None or str(e.value).splitlines()[0] == message)
