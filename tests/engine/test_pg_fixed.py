"""The system catalogs tools read whose rows txlake knows without keeping them (engine/pg_fixed.py):
pg_roles / pg_user / pg_authid, pg_am (and pg_class.relam), pg_language, pg_extension,
pg_tablespace, pg_inherits, pg_stat_user_tables; and the owners pg_tables / pg_views /
pg_sequences name. Each was 42P01 (the owners NULL); the queries are psql 16's (describe.c)
and the common monitoring ones."""

from tests.conftest import rows as q


def test_roles_are_the_one_superuser_owning_everything(connect):
    c = connect(autocommit=True)
    for sql in ("CREATE TABLE t (a INT)", "CREATE VIEW v AS SELECT a FROM t", "CREATE SEQUENCE s",
                "CREATE MATERIALIZED VIEW m AS SELECT a FROM t"):
        c.execute(sql)
    user = q(c, "SELECT current_user")[0][0]
    # psql 16's \du
    assert q(c, "SELECT r.rolname, r.rolsuper, r.rolinherit, r.rolcreaterole, r.rolcreatedb, r.rolcanlogin, "
                "r.rolconnlimit, r.rolvaliduntil, r.rolreplication, r.rolbypassrls FROM pg_catalog.pg_roles r "
                "WHERE r.rolname !~ '^pg_' ORDER BY 1") == [(user, True, True, True, True, True, -1, None, True, True)]
    # every relation's owner is that role, by OID and by name
    assert q(c, "SELECT DISTINCT r.rolname FROM pg_class c JOIN pg_roles r ON r.oid = c.relowner") == [(user,)]
    assert q(c, "SELECT usename, usesysid, usesuper FROM pg_user") == [(user, 10, True)]
    assert q(c, "SELECT rolname, rolpassword FROM pg_authid WHERE oid = 10") == [(user, None)]
    assert q(c, "SELECT count(*) FROM pg_auth_members") == [(0,)]
    assert q(c, "SELECT tableowner FROM pg_tables WHERE tablename = 't'") == [(user,)]
    assert q(c, "SELECT viewowner FROM pg_views") == [(user,)]
    assert q(c, "SELECT matviewowner FROM pg_matviews") == [(user,)]
    assert q(c, "SELECT sequenceowner FROM pg_sequences") == [(user,)]


def test_access_methods_and_relam(connect):
    c = connect(autocommit=True)
    for sql in ("CREATE TABLE t (a INT PRIMARY KEY, b INT, c TEXT UNIQUE)", "CREATE INDEX t_b ON t USING hash (b)",
                "CREATE INDEX t_c ON t (c)", "CREATE VIEW v AS SELECT a FROM t"):
        c.execute(sql)
    assert q(c, "SELECT c.relname, a.amname, a.amtype FROM pg_class c LEFT JOIN pg_am a ON a.oid = c.relam "
                "WHERE c.relnamespace = 2200 ORDER BY 1") == [
        ("t", "heap", "t"), ("t_b", "hash", "i"), ("t_c", "btree", "i"), ("t_c_key", "btree", "i"),
        ("t_pkey", "btree", "i"), ("v", None, None)]
    assert q(c, "SELECT amname, amhandler FROM pg_am WHERE oid IN (2, 403, 2742) ORDER BY oid") == [
        ("heap", "heap_tableam_handler"), ("btree", "bthandler"), ("gin", "ginhandler")]


def test_languages_extensions_tablespaces_inheritance(connect):
    c = connect(autocommit=True)
    assert q(c, "SELECT lanname, lanispl, lanpltrusted FROM pg_language ORDER BY oid") == [
        ("internal", False, False), ("c", False, False), ("sql", False, True), ("plpgsql", True, True)]
    # psql 16's \dx
    assert q(c, "SELECT e.extname, e.extversion, n.nspname FROM pg_catalog.pg_extension e "
                "LEFT JOIN pg_catalog.pg_namespace n ON n.oid = e.extnamespace ORDER BY 1") == [
        ("pgcrypto", "1.3", "pg_catalog"), ("plpgsql", "1.0", "pg_catalog"), ("uuid-ossp", "1.1", "pg_catalog")]
    assert q(c, "SELECT spcname, pg_tablespace_location(oid) FROM pg_tablespace ORDER BY 1") == [
        ("pg_default", ""), ("pg_global", "")]
    assert q(c, "SELECT count(*) FROM pg_inherits") == [(0,)]
    assert q(c, "SELECT pg_is_in_recovery(), pg_encoding_to_char(encoding), pg_encoding_to_char(99), "
                "pg_char_to_encoding('utf8'), pg_char_to_encoding('latin9') FROM pg_database") == [
        (False, "UTF8", "", 6, -1)]


def test_pg_stat_user_tables_counts_live_and_dead_rows(connect):
    c = connect(autocommit=True)
    c.execute("CREATE TABLE t (a INT PRIMARY KEY)")
    c.execute("CREATE TABLE u (a INT)")
    c.execute("INSERT INTO t SELECT * FROM generate_series(1, 10)")
    c.execute("DELETE FROM t WHERE a <= 3")
    c.execute("UPDATE t SET a = a + 100 WHERE a = 10")
    assert q(c, "SELECT relname, n_live_tup, n_dead_tup, seq_scan, n_tup_ins, last_vacuum, vacuum_count "
                "FROM pg_stat_user_tables ORDER BY n_live_tup DESC") == [
        ("t", 7, 4, 0, 0, None, 0), ("u", 0, 0, 0, 0, None, 0)]
    assert q(c, "SELECT s.relid = c.oid FROM pg_stat_all_tables s JOIN pg_class c ON c.relname = s.relname "
                "WHERE s.relname = 't'") == [(True,)]
    # as the transaction sees the table
    other = connect()
    other.execute("INSERT INTO u VALUES (1), (2)")
    assert q(c, "SELECT n_live_tup FROM pg_stat_user_tables WHERE relname = 'u'") == [(0,)]
    assert q(other, "SELECT n_live_tup FROM pg_stat_user_tables WHERE relname = 'u'") == [(2,)]


def test_pg_indexes_size(connect):
    c = connect(autocommit=True)
    c.execute("CREATE TABLE t (a INT PRIMARY KEY, b INT)")
    c.execute("INSERT INTO t VALUES (1, 2)")
    assert q(c, "SELECT pg_indexes_size('t'), pg_indexes_size('t'::regclass), pg_total_relation_size('t') > 0") == [
        (0, 0, True)]
    assert q(c, "SELECT pg_indexes_size(oid) FROM pg_class WHERE relname = 't'") == [(0,)]
    assert q(c, "SELECT pg_indexes_size(12345::oid)") == [(None,)]


def test_table_privileges_are_the_owners(connect):
    """information_schema.table_privileges and role_table_grants were 42P01: every privilege on
    each table and view is the one role's, granted by itself, as PostgreSQL lists an owner's."""
    c = connect(autocommit=True)
    c.execute("CREATE TABLE t (a INT)")
    c.execute("CREATE VIEW v AS SELECT a FROM t")
    user = q(c, "SELECT current_user")[0][0]
    found = q(c, "SELECT table_name, privilege_type, is_grantable, with_hierarchy, grantor, grantee "
                 "FROM information_schema.table_privileges WHERE table_name = 't' ORDER BY 2")
    assert found == [("t", p, "YES", "YES" if p == "SELECT" else "NO", user, user)
                     for p in sorted(("INSERT", "SELECT", "UPDATE", "DELETE", "TRUNCATE", "REFERENCES", "TRIGGER"))]
    assert q(c, "SELECT count(*), count(DISTINCT table_name) FROM information_schema.role_table_grants") == [(14, 2)]
