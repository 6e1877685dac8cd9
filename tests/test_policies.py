"""Row level security's catalog (engine/policies.py): CREATE / ALTER / DROP POLICY and ALTER
TABLE ... ROW LEVEL SECURITY, checked and shown as PostgreSQL 16 does (commands/policy.c's
errors, pg_policy / pg_policies, psql's \\d "Policies:"), kept transactionally - and filtering
nothing for txlake's one role, a superuser, as PostgreSQL's superusers are never filtered."""

import json

import pytest

import txlake

from .conftest import run_python


@pytest.fixture
def db(connect):
    conn = connect(autocommit=True)
    conn.execute("CREATE TABLE docs (id INT PRIMARY KEY, owner TEXT, tenant INT, body TEXT)")
    conn.execute("INSERT INTO docs VALUES (1, 'ann', 1, 'a'), (2, 'bob', 2, 'b')")
    return conn


def rows(conn, sql, params=()):
    return conn.execute(sql, params).fetchall()


def fails(conn, sql, sqlstate, message=None):
    with pytest.raises(txlake.Error) as info:
        conn.execute(sql)
    assert info.value.sqlstate == sqlstate, (sql, str(info.value))
    if message is not None:
        assert str(info.value).startswith(message), str(info.value)


def test_policies_are_kept_and_shown_as_postgresql_shows_them(db):
    db.execute("ALTER TABLE docs ENABLE ROW LEVEL SECURITY")
    db.execute("CREATE POLICY own ON docs FOR SELECT TO authenticated USING (owner = current_user)")
    db.execute("CREATE POLICY \"tenant/write\" ON public.docs AS RESTRICTIVE "
               "WITH CHECK ((docs.tenant = current_setting('app.tenant', true)::int) AND body IS NOT NULL)")
    db.execute("CREATE POLICY ins ON docs FOR INSERT WITH CHECK (true)")
    assert rows(db, "SELECT policyname, permissive, roles, cmd, qual, with_check FROM pg_policies "
                    "WHERE tablename = 'docs' ORDER BY 1") == [
        ("ins", "PERMISSIVE", ["public"], "INSERT", None, "TRUE"),
        ("own", "PERMISSIVE", ["authenticated"], "SELECT", "(owner = CURRENT_USER)", None),
        ("tenant/write", "RESTRICTIVE", ["public"], "ALL", None,
         "((tenant = CAST(current_setting('app.tenant', TRUE) AS INT)) AND (body IS NOT NULL))")]
    assert rows(db, "SELECT polname, polcmd, polpermissive, polroles = '{0}'::oid[], pg_get_expr(polqual, polrelid) "
                    "FROM pg_policy WHERE polrelid = 'docs'::regclass ORDER BY 1") == [
        ("ins", "a", True, True, None), ("own", "r", True, False, "(owner = CURRENT_USER)"),
        ("tenant/write", "*", False, True, None)]
    assert rows(db, "SELECT relrowsecurity, relforcerowsecurity FROM pg_class WHERE relname = 'docs'") == [
        (True, False)]
    assert rows(db, "SELECT rowsecurity FROM pg_tables WHERE tablename = 'docs'") == [(True,)]
    db.execute("ALTER TABLE docs FORCE ROW LEVEL SECURITY")
    assert rows(db, "SELECT relforcerowsecurity FROM pg_class WHERE relname = 'docs'") == [(True,)]
    db.execute("ALTER TABLE docs NO FORCE ROW LEVEL SECURITY, DISABLE ROW LEVEL SECURITY")
    assert rows(db, "SELECT relrowsecurity, relforcerowsecurity FROM pg_class WHERE relname = 'docs'") == [
        (False, False)]


def test_the_one_role_is_a_superuser_whom_policies_do_not_filter(db):
    """PostgreSQL's superusers bypass row security, FORCE ROW LEVEL SECURITY too: every row is
    read and every write taken; ENABLE says so in a NOTICE."""
    cur = db.cursor()
    cur.execute("ALTER TABLE docs ENABLE ROW LEVEL SECURITY")
    assert "filter no row" in " ".join(map(str, db.notices))
    db.execute("ALTER TABLE docs FORCE ROW LEVEL SECURITY")
    db.execute("CREATE POLICY none_seen ON docs USING (false) WITH CHECK (false)")
    assert rows(db, "SELECT id FROM docs ORDER BY id") == [(1,), (2,)]
    db.execute("INSERT INTO docs VALUES (3, 'cy', 3, 'c')")
    assert db.execute("UPDATE docs SET body = 'x'").rowcount == 3
    assert rows(db, "SELECT rolsuper, rolbypassrls FROM pg_roles") == [(True, True)]


@pytest.mark.parametrize("sql, sqlstate, message", [
    ("CREATE POLICY p ON docs FOR INSERT USING (true)", "42601", "only WITH CHECK expression allowed for INSERT"),
    ("CREATE POLICY p ON docs FOR SELECT WITH CHECK (true)", "42601",
     "WITH CHECK cannot be applied to SELECT or DELETE"),
    ("CREATE POLICY p ON docs FOR DELETE WITH CHECK (true)", "42601", None),
    ("CREATE POLICY p ON docs USING (tenant)", "42804", "argument of POLICY must be type boolean, not type integer"),
    ("CREATE POLICY p ON docs USING (nope = 1)", "42703", None),
    ("CREATE POLICY p ON docs USING (count(*) > 1)", "42803",
     "aggregate functions are not allowed in policy expressions"),
    ("CREATE POLICY p ON docs USING (id IN (SELECT id FROM nothere))", "42P01", None),
    ("CREATE POLICY p ON docs USING (auth.uid() = owner)", "42883", None),
    ("CREATE POLICY p ON docs USING (id = $1)", "42P02", None),
    ("CREATE POLICY p ON nothere USING (true)", "42P01", None),
    ("CREATE POLICY p ON docs AS SOMETIMES USING (true)", "42601", None),
    ("ALTER POLICY nothere ON docs USING (true)", "42704", 'policy "nothere" for table "docs" does not exist'),
    ("DROP POLICY nothere ON docs", "42704", 'policy "nothere" for table "docs" does not exist'),
])
def test_what_postgresql_refuses_is_refused(db, sql, sqlstate, message):
    fails(db, sql, sqlstate, message)
    assert rows(db, "SELECT count(*) FROM pg_policy") == [(0,)]


def test_alter_and_drop_policy(db):
    db.execute("CREATE POLICY own ON docs FOR SELECT USING (owner = 'ann')")
    fails(db, "CREATE POLICY own ON docs USING (true)", "42710", 'policy "own" for table "docs" already exists')
    fails(db, "ALTER POLICY own ON docs WITH CHECK (true)", "42601", "only USING expression allowed for SELECT, DELETE")
    db.execute("ALTER POLICY own ON docs TO reader, writer USING (tenant > 0)")
    assert rows(db, "SELECT policyname, roles, qual FROM pg_policies") == [
        ("own", ["reader", "writer"], "(tenant > 0)")]
    db.execute("ALTER POLICY own ON docs RENAME TO mine")
    db.execute("ALTER POLICY mine ON docs TO PUBLIC")
    assert rows(db, "SELECT policyname, roles, qual FROM pg_policies") == [("mine", ["public"], "(tenant > 0)")]
    db.execute("DROP POLICY IF EXISTS own ON docs")
    assert any("does not exist, skipping" in str(n) for n in db.notices)
    db.execute("DROP POLICY mine ON docs")
    assert rows(db, "SELECT count(*) FROM pg_policies") == [(0,)]


def test_columns_renamed_and_dropped_under_a_policy(db):
    db.execute("CREATE POLICY t ON docs USING (tenant > 0 AND EXISTS (SELECT 1 FROM docs d WHERE d.id = docs.id))")
    db.execute("ALTER TABLE docs RENAME COLUMN tenant TO org")
    db.execute("ALTER TABLE docs RENAME COLUMN id TO doc_id")
    assert rows(db, "SELECT qual FROM pg_policies") == [
        ("((org > 0) AND EXISTS(SELECT 1 FROM docs AS d WHERE (d.id = docs.doc_id)))",)]
    fails(db, "ALTER TABLE docs DROP COLUMN org", "2BP01",
          "cannot drop column org of table docs because other objects depend on it\n"
          "DETAIL:  policy t on table docs depends on column org of table docs")
    db.execute("ALTER TABLE docs DROP COLUMN body")  # (no policy uses it)
    db.execute("ALTER TABLE docs DROP COLUMN org CASCADE")
    assert rows(db, "SELECT count(*) FROM pg_policies") == [(0,)]


def test_policies_are_transactional_and_survive_a_restart(connect, warehouse):
    conn, other = connect(), connect(autocommit=True)
    other.execute("CREATE TABLE docs (id INT PRIMARY KEY, owner TEXT)")
    conn.execute("CREATE POLICY p ON docs USING (owner = 'x')")
    conn.execute("ALTER TABLE docs ENABLE ROW LEVEL SECURITY")
    assert rows(other, "SELECT count(*) FROM pg_policy") == [(0,)]  # (not committed)
    conn.rollback()
    assert rows(conn, "SELECT count(*) FROM pg_policy") == [(0,)]
    conn.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
    conn.execute("SELECT count(*) FROM docs")  # (its snapshot: before the row)
    other.execute("INSERT INTO docs VALUES (1, 'y')")  # (committed meanwhile: the policy merges over it)
    conn.execute("CREATE POLICY p ON docs USING (owner = 'x')")
    conn.execute("ALTER TABLE docs FORCE ROW LEVEL SECURITY")
    conn.commit()
    assert rows(other, "SELECT polname FROM pg_policy") == [("p",)]
    for c in (conn, other):
        c.close()
    done = run_python(
        "import json, sys, txlake\n"
        "c = txlake.connect(sys.argv[1], autocommit=True, publish='off')\n"
        "print(json.dumps([list(r) for r in c.execute('SELECT polname, pg_get_expr(polqual, polrelid), "
        "relrowsecurity, relforcerowsecurity FROM pg_policy JOIN pg_class ON pg_class.oid = polrelid').fetchall()]"
        " + [list(r) for r in c.execute('SELECT id FROM docs').fetchall()]))\n", warehouse)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == [["p", "(owner = 'x')", False, True], [1]]


def test_a_view_has_no_policies(db):
    db.execute("CREATE VIEW v AS SELECT * FROM docs")
    fails(db, "CREATE POLICY p ON v USING (true)", "42809", '"v" is not a table')
    fails(db, "ALTER TABLE v ENABLE ROW LEVEL SECURITY", "42809", '"v" is not a table')
