"""Expression and partial indexes, unique and plain, and CREATE / DROP INDEX CONCURRENTLY, as
PostgreSQL 16 has them (doc: sql-createindex.html, indexes-expressional.html,
indexes-partial.html, sql-insert.html's ON CONFLICT; regress: create_index.out,
insert_conflict.out) - engine/index_expressions.py."""

import pytest

from tests.conftest import error_of, run_python, waiting

USERS = "CREATE TABLE users (id INT PRIMARY KEY, email TEXT, deleted_at TIMESTAMPTZ, org INT)"


@pytest.fixture
def c(connect):
    cur = connect(autocommit=True).cursor()
    cur.execute(USERS)
    return cur


def rows(c, sql="SELECT id, email FROM users ORDER BY id"):
    return c.execute(sql).fetchall()


def taken(key: str, name: str = "users_email_lower") -> tuple[str, str]:
    return ("23505", f'duplicate key value violates unique constraint "{name}"\nDETAIL:  Key {key} already exists.')


def test_unique_expression_index_in_every_kind_of_write(c, tmp_path):
    c.execute("CREATE UNIQUE INDEX users_email_lower ON users (lower(email))")
    c.execute("INSERT INTO users VALUES (1, 'A@x.com', NULL, 1), (2, NULL, NULL, 1), (3, NULL, NULL, 1)")
    assert error_of(c, "INSERT INTO users VALUES (4, 'a@X.com', NULL, 1)") == taken("(lower(email))=(a@x.com)")
    assert error_of(c, "INSERT INTO users VALUES (4, 'b@y', NULL, 1), (5, 'B@Y', NULL, 1)") == \
        taken("(lower(email))=(b@y)")
    assert error_of(c, "UPDATE users SET email = 'A@X.COM' WHERE id = 2") == taken("(lower(email))=(a@x.com)")
    c.execute("UPDATE users SET email = 'a@x.com' WHERE id = 1")  # (its own key: no clash)
    c.execute("UPDATE users SET org = 2")  # (the key unchanged)
    path = tmp_path / "in.csv"
    path.write_text("6,c@z,,1\n7,C@Z,,1\n")
    assert error_of(c, f"COPY users FROM '{path}' WITH (FORMAT csv)") == taken("(lower(email))=(c@z)")
    merge = "MERGE INTO users u USING (VALUES (8, 'A@x.COM')) AS s(id, email) ON u.id = s.id " \
        "WHEN NOT MATCHED THEN INSERT VALUES (s.id, s.email, NULL, 1)"
    assert error_of(c, merge) == taken("(lower(email))=(a@x.com)")
    assert rows(c) == [(1, "a@x.com"), (2, None), (3, None)]
    # made over rows that already clash: 23505
    c.execute("DROP INDEX users_email_lower")
    c.execute("INSERT INTO users VALUES (9, 'Dup', NULL, 7), (10, 'dup', NULL, 8)")
    assert error_of(c, "CREATE UNIQUE INDEX u ON users (lower(email))") == (
        "23505", 'could not create unique index "u"\nDETAIL:  Key (lower(email))=(dup) is duplicated.')
    c.execute("CREATE UNIQUE INDEX ON users ((org * 10 + id))")  # (named users_expr_idx, as PostgreSQL)
    assert error_of(c, "INSERT INTO users VALUES (11, 'e', NULL, 1)")[1].startswith(
        'duplicate key value violates unique constraint "users_expr_idx"')


def test_partial_unique_index_keeps_one_live_row_per_key(c):
    c.execute("CREATE UNIQUE INDEX users_email_live ON users (email) WHERE deleted_at IS NULL")
    c.execute("INSERT INTO users VALUES (1, 'a', NULL, 1), (2, 'a', now(), 1), (3, 'a', now(), 1)")
    assert error_of(c, "INSERT INTO users VALUES (4, 'a', NULL, 1)") == \
        taken("(email)=(a)", "users_email_live")
    assert error_of(c, "UPDATE users SET deleted_at = NULL WHERE id = 2") == taken("(email)=(a)", "users_email_live")
    c.execute("UPDATE users SET deleted_at = now() WHERE id = 1")
    c.execute("INSERT INTO users VALUES (4, 'a', NULL, 1)")  # (the live one was soft-deleted)
    # ON CONFLICT infers a partial index only from a WHERE that implies its predicate
    c.execute("INSERT INTO users VALUES (5, 'a', NULL, 9) ON CONFLICT (email) WHERE deleted_at IS NULL "
              "DO UPDATE SET org = excluded.org")
    c.execute("INSERT INTO users VALUES (5, 'a', NULL, 10) ON CONFLICT (email) WHERE deleted_at IS NULL AND org > 0 "
              "DO NOTHING")
    assert rows(c, "SELECT id, org FROM users WHERE deleted_at IS NULL") == [(4, 9)]
    for target in ("(email)", "(email) WHERE org > 0"):
        assert error_of(c, f"INSERT INTO users VALUES (5, 'a', NULL, 1) ON CONFLICT {target} DO NOTHING") == (
            "42P10", "there is no unique or exclusion constraint matching the ON CONFLICT specification")
    # a unique index is no constraint: ON CONFLICT ON CONSTRAINT does not name it
    assert error_of(c, "INSERT INTO users VALUES (5, 'a', NULL, 1) ON CONFLICT ON CONSTRAINT users_email_live "
                       "DO NOTHING") == ("42704", 'constraint "users_email_live" for table "users" does not exist')
    c.execute("INSERT INTO users VALUES (5, 'a', NULL, 1) ON CONFLICT DO NOTHING")  # (every unique index)
    assert rows(c, "SELECT count(*) FROM users") == [(4,)]


def test_a_unique_index_of_a_constant_keeps_one_row(c):
    # (the one-row table's index, ((true)) or ((1)): it reads no column - it was taken for an
    # index of plain columns, "=1" among them: UPDATE and DELETE raised KeyError)
    c.execute("CREATE UNIQUE INDEX users_one ON users ((1))")
    c.execute("INSERT INTO users VALUES (1, 'a', NULL, 1)")
    assert error_of(c, "INSERT INTO users VALUES (2, 'b', NULL, 1)") == taken("((1))=(1)", "users_one")
    c.execute("UPDATE users SET email = 'b' WHERE id = 1")
    c.execute("UPDATE users SET org = 2 WHERE org > 0")
    assert rows(c, "SELECT id, email, org FROM users") == [(1, "b", 2)]
    c.execute("DELETE FROM users WHERE id = 1")
    c.execute("INSERT INTO users VALUES (2, 'c', NULL, 1)")
    c.execute("DELETE FROM users")
    assert rows(c) == []


def test_on_conflict_infers_an_expression_index(c):
    c.execute("CREATE UNIQUE INDEX users_email_lower ON users (lower(email))")
    c.execute("INSERT INTO users VALUES (1, 'A@x', NULL, 1)")
    c.execute("INSERT INTO users VALUES (2, 'a@X', NULL, 5) ON CONFLICT (lower(email)) "
              "DO UPDATE SET org = users.org + excluded.org")
    c.execute("INSERT INTO users VALUES (3, 'b@X', NULL, 5) ON CONFLICT ((lower(email))) DO NOTHING")
    assert rows(c, "SELECT id, email, org FROM users ORDER BY id") == [(1, "A@x", 6), (3, "b@X", 5)]
    assert error_of(c, "INSERT INTO users VALUES (4, 'a', NULL, 1) ON CONFLICT (upper(email)) DO NOTHING")[0] == "42P10"
    assert error_of(c, "INSERT INTO users VALUES (4, 'a', NULL, 1) ON CONFLICT (email) DO NOTHING")[0] == "42P10"


@pytest.mark.parametrize("sql, error", [
    ("CREATE INDEX i ON users (now())", ("42P17", "functions in index expression must be marked IMMUTABLE")),
    ("CREATE UNIQUE INDEX i ON users ((org + random()))",
     ("42P17", "functions in index expression must be marked IMMUTABLE")),
    ("CREATE INDEX i ON users (org) WHERE deleted_at < now()",
     ("42P17", "functions in index predicate must be marked IMMUTABLE")),
    ("CREATE INDEX i ON users ((org + (SELECT 1)))", ("0A000", "cannot use subquery in index expression")),
    ("CREATE INDEX i ON users (org) WHERE org IN (SELECT 1)", ("0A000", "cannot use subquery in index predicate")),
    ("CREATE INDEX i ON users (org) WHERE count(*) > 1",
     ("42803", "aggregate functions are not allowed in index predicates")),
    ("CREATE INDEX i ON users ((sum(org)))", ("42803", "aggregate functions are not allowed in index expressions")),
    ("CREATE INDEX i ON users ((nope + 1))", ("42703", 'column "nope" does not exist')),
])
def test_what_an_index_expression_may_not_be(c, sql, error):
    assert error_of(c, sql) == error


def test_plain_expression_and_partial_indexes_are_kept_and_change_no_result(c):
    c.execute("INSERT INTO users VALUES (1, 'A', NULL, 1), (2, 'b', now(), 1), (3, 'c', NULL, 2)")
    c.execute("CREATE INDEX users_org ON users (org) WHERE deleted_at IS NULL")
    c.execute("CREATE INDEX ON users (lower(email))")
    c.execute("CREATE UNIQUE INDEX users_email_live ON users (email) WHERE deleted_at IS NULL")
    assert rows(c, "SELECT indexname, indexdef FROM pg_indexes WHERE tablename = 'users' ORDER BY 1") == [
        ("users_email_live", "CREATE UNIQUE INDEX users_email_live ON public.users USING btree (email) "
                             "WHERE (deleted_at IS NULL)"),
        ("users_lower_idx", "CREATE INDEX users_lower_idx ON public.users USING btree (lower(email))"),
        ("users_org", "CREATE INDEX users_org ON public.users USING btree (org) WHERE (deleted_at IS NULL)"),
        ("users_pkey", "CREATE UNIQUE INDEX users_pkey ON public.users USING btree (id)")]
    assert c.connection._session.index_lines("users") == [
        '"users_pkey" PRIMARY KEY, btree (id)', '"users_email_live" UNIQUE, btree (email) WHERE deleted_at IS NULL',
        '"users_org" btree (org) WHERE deleted_at IS NULL', '"users_lower_idx" btree (lower(email))']
    # never a lookup: the rows outside the predicate are found too
    assert rows(c, "SELECT id FROM users WHERE org = 1 ORDER BY id") == [(1,), (2,)]
    assert rows(c, "SELECT id FROM users WHERE email = 'b'") == [(2,)]
    c.execute("UPDATE users SET org = 5 WHERE org = 1")
    assert rows(c, "SELECT id, org FROM users ORDER BY id") == [(1, 5), (2, 5), (3, 2)]


def test_renamed_and_dropped_columns(c):
    c.execute("CREATE UNIQUE INDEX users_email_lower ON users (lower(email))")
    c.execute("CREATE INDEX users_org ON users (org) WHERE deleted_at IS NULL")
    c.execute("INSERT INTO users VALUES (1, 'A', NULL, 1)")
    c.execute("ALTER TABLE users RENAME COLUMN email TO mail")
    assert error_of(c, "INSERT INTO users VALUES (2, 'a', NULL, 1)") == taken("(lower(mail))=(a)")
    c.execute("ALTER TABLE users DROP COLUMN deleted_at")  # (the partial index goes with it)
    assert rows(c, "SELECT indexname FROM pg_indexes WHERE tablename = 'users' ORDER BY 1") == [
        ("users_email_lower",), ("users_pkey",)]
    c.execute("ALTER TABLE users DROP COLUMN mail")
    c.execute("INSERT INTO users VALUES (2, 1)")
    assert rows(c, "SELECT indexname FROM pg_indexes WHERE tablename = 'users'") == [("users_pkey",)]


def test_concurrently_outside_a_transaction_block_only(connect):
    conn = connect()  # (autocommit off: a block, as psycopg's)
    conn.execute(USERS)
    conn.commit()
    assert error_of(conn.cursor(), "CREATE INDEX CONCURRENTLY i ON users (lower(email))") == (
        "25001", "CREATE INDEX CONCURRENTLY cannot run inside a transaction block")
    conn.rollback()
    conn.autocommit = True
    conn.execute("CREATE UNIQUE INDEX CONCURRENTLY IF NOT EXISTS i ON users (lower(email))")
    assert error_of(conn.cursor(), "INSERT INTO users VALUES (1, 'a', NULL, 1), (2, 'A', NULL, 1)")[0] == "23505"
    assert error_of(conn.cursor(), "DROP INDEX CONCURRENTLY i, users_pkey")[0] == "0A000"
    conn.autocommit = False
    assert error_of(conn.cursor(), "DROP INDEX CONCURRENTLY i") == (
        "25001", "DROP INDEX CONCURRENTLY cannot run inside a transaction block")
    conn.rollback()
    conn.autocommit = True
    conn.execute("DROP INDEX CONCURRENTLY IF EXISTS i")
    conn.execute("INSERT INTO users VALUES (1, 'a', NULL, 1), (2, 'A', NULL, 1)")


def test_concurrent_sessions_and_processes(connect, warehouse):
    c = connect(autocommit=True)
    c.execute(USERS)
    c.execute("CREATE UNIQUE INDEX users_email_lower ON users (lower(email))")
    a, b = connect(), connect()
    a.execute("INSERT INTO users VALUES (1, 'A@x', NULL, 1)")
    thread, outcome = waiting(b, "INSERT INTO users VALUES (2, 'a@X', NULL, 1)")  # (waits for a's key)
    a.commit()
    thread.join()
    assert outcome == ["23505"]
    b.rollback()
    # another process commits the key first: this one's COMMIT finds it
    a.execute("INSERT INTO users VALUES (3, 'B@x', NULL, 1)")
    done = run_python(f"""
import txlake
txlake.connect({warehouse!r}, autocommit=True, publish="off").execute("INSERT INTO users VALUES (4, 'b@X', NULL, 1)")
""")
    assert done.returncode == 0, done.stderr
    assert error_of(a.cursor(), "COMMIT") == taken("(lower(email))=(b@x)")
    assert rows(c.cursor()) == [(1, "A@x"), (4, "b@X")]


def test_a_prepared_transactions_keys_are_held(connect, warehouse):
    c = connect(autocommit=True)
    c.execute(USERS)
    c.execute("CREATE UNIQUE INDEX users_email_lower ON users (lower(email))")
    a = connect()
    a.execute("INSERT INTO users VALUES (1, 'A@x', NULL, 1)")
    a.execute("PREPARE TRANSACTION 'g1'")
    done = run_python(f"""
import txlake
try:
    c = txlake.connect({warehouse!r}, autocommit=True, publish="off")
    c.execute("INSERT INTO users VALUES (2, 'a@X', NULL, 1)")
except txlake.Error as e:
    print(e.sqlstate)
""")
    assert done.stdout.strip() == "40001", done.stderr
    c.execute("COMMIT PREPARED 'g1'")
    assert rows(c.cursor()) == [(1, "A@x")]


def test_a_column_type_change_revalidates_the_index(c):
    c.execute("CREATE TABLE t (id INT PRIMARY KEY, v NUMERIC)")
    c.execute("CREATE UNIQUE INDEX t_v ON t ((v + 1))")
    c.execute("INSERT INTO t VALUES (1, 1.2), (2, 1.4)")
    assert error_of(c, "ALTER TABLE t ALTER COLUMN v TYPE INT") == (
        "23505", 'could not create unique index "t_v"\nDETAIL:  Key ((v + 1))=(2) is duplicated.')
    assert error_of(c, "ALTER TABLE t ALTER COLUMN v TYPE TEXT")[0] == "42883"  # (no text + integer)
