"""The uuid column type, as PostgreSQL users write it and psycopg users fetch it: stored as its
canonical text, compared and ordered as a uuid, a primary key looked up through the key index."""

import uuid

import pytest

import txlake
from tests.engine.test_types import reopen

A = uuid.UUID("a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11")
B = uuid.UUID("b0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11")


@pytest.fixture
def db(connect):
    conn = connect(autocommit=True)
    conn.execute("CREATE TABLE t (id uuid PRIMARY KEY DEFAULT gen_random_uuid(), n INT)")
    return conn


def test_postgres_input_forms_are_one_uuid_fetched_as_uuid_UUID(db):
    """Upper case, braces, no hyphens, a hyphen after any group of four digits: PostgreSQL's
    input forms of one value. psycopg fetches a uuid as uuid.UUID; its type code is UUID."""
    db.execute("INSERT INTO t VALUES ('A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11', 1), "
               "('{b0eebc99-9c0b4ef8-bb6d6bb9-bd380a11}', 2)")
    for form in ("a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11", "{A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11}",
                 "a0eebc999c0b4ef8bb6d6bb9bd380a11", "a0ee-bc99-9c0b-4ef8-bb6d-6bb9-bd38-0a11"):
        assert db.execute(f"SELECT n FROM t WHERE id = '{form}'").fetchall() == [(1,)], form
        assert db.execute(f"SELECT '{form}'::uuid").fetchone() == (A,)
    cur = db.execute("SELECT id, n, id::text FROM t ORDER BY id DESC")
    assert cur.fetchall() == [(B, 2, str(B)), (A, 1, str(A))]
    assert [d[1] for d in cur.description] == ["UUID", "INTEGER", "VARCHAR"]
    assert cur.description[0][1] == txlake.UUID
    assert db.execute("SELECT data_type, udt_name FROM information_schema.columns WHERE table_name = 't' "
                      "AND column_name = 'id'").fetchone() == ("uuid", "uuid")


@pytest.mark.parametrize("bad", ["xyz", "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a1", "a0eebc999c0b4ef8bb6d6bb9bd380a11}",
                                 " a0eebc999c0b4ef8bb6d6bb9bd380a11"])
def test_bad_input_is_22P02_and_loses_nothing(db, bad):
    db.execute("INSERT INTO t VALUES (?, 1)", (A,))
    with pytest.raises(txlake.DataError) as e:
        db.execute("INSERT INTO t VALUES (?, 2)", (bad,))
    assert e.value.sqlstate == "22P02" and f'invalid input syntax for type uuid: "{bad}"' in str(e.value)
    with pytest.raises(txlake.DataError) as e:
        db.execute(f"SELECT '{bad}'::uuid")
    assert e.value.sqlstate == "22P02"
    assert db.execute("SELECT id, n FROM t").fetchall() == [(A, 1)]


def test_uuid_parameters_defaults_and_gen_random_uuid(db):
    """uuid.UUID parameters are taken (in point writes and lookups too); the DEFAULT
    gen_random_uuid() gives each row its own version-4 uuid."""
    db.execute("INSERT INTO t VALUES (?, ?)", (A, 1))
    db.execute("INSERT INTO t (n) SELECT i FROM range(2, 5) r(i)")
    db.execute("INSERT INTO t (n) VALUES (5)")
    ids = [r[0] for r in db.execute("SELECT id FROM t").fetchall()]
    assert len(set(ids)) == 5 and all(isinstance(i, uuid.UUID) for i in ids)
    assert all(i.version == 4 for i in ids if i != A)
    assert db.execute("SELECT n FROM t WHERE id = ?", (A,)).fetchall() == [(1,)]
    assert db.execute("SELECT n FROM t WHERE id = ?", (str(A).upper(),)).fetchall() == [(1,)]
    row = db.execute("SELECT gen_random_uuid(), gen_random_uuid()").fetchone()
    assert isinstance(row[0], uuid.UUID) and row[0] != row[1]
    with pytest.raises(txlake.IntegrityError) as e:
        db.execute("INSERT INTO t VALUES (?, 9)", ("{" + str(A).upper() + "}",))
    assert e.value.sqlstate == "23505" and str(A) in str(e.value)


def test_primary_key_lookup_uses_the_key_index(db):
    """A uuid key given in any input form, or as a uuid.UUID, is found through the key index
    (EXPLAIN says so), and so are point UPDATEs and DELETEs."""
    db.execute("INSERT INTO t VALUES (?, 1), (?, 2)", (A, B))
    for key in (A, str(A).upper(), "{" + str(A) + "}"):
        plan = [r[0] for r in db.execute("EXPLAIN SELECT n FROM t WHERE id = ?", (key,)).fetchall()]
        assert plan[0].startswith("Primary key lookup on t") and plan[1] == f"  Key: (id) = ({A})"
        assert db.execute("SELECT n FROM t WHERE id = ?", (key,)).fetchall() == [(1,)]
    db.execute("UPDATE t SET n = n + 10 WHERE id = 'A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11'")
    db.execute("DELETE FROM t WHERE id = ?", (B,))
    assert db.execute("SELECT id, n FROM t").fetchall() == [(A, 11)]


def test_compare_order_cast_and_create_table_as(db):
    """uuids order as PostgreSQL's (by their bytes: as the canonical text does) and compare with
    text in any input form; CREATE TABLE AS keeps the type."""
    db.execute("INSERT INTO t VALUES (?, 2), (?, 1), ('00000000-0000-0000-0000-000000000000', 0)", (B, A))
    assert [r[0] for r in db.execute("SELECT n FROM t ORDER BY id").fetchall()] == [0, 1, 2]
    assert db.execute("SELECT count(*) FROM t WHERE id > '{A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11}'").fetchone() == (1,)
    assert db.execute("SELECT max(id), min(id::text) FROM t").fetchone() == (B, "00000000-0000-0000-0000-000000000000")
    db.execute("CREATE TABLE t2 AS SELECT id, n FROM t")
    assert db.execute("SELECT data_type FROM information_schema.columns WHERE table_name = 't2' "
                      "AND column_name = 'id'").fetchone() == ("uuid",)
    assert db.execute("SELECT n FROM t2 WHERE id = 'B0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11'").fetchall() == [(2,)]


@pytest.mark.parametrize("checkpoint", [False, True])
def test_uuid_survives_a_restart(connect, db, checkpoint):
    db.execute("INSERT INTO t VALUES (?, 1)", (A,))
    db.execute("INSERT INTO t (n) SELECT i FROM range(2, 300) r(i)")
    again = reopen(connect, db, checkpoint=checkpoint)
    assert again.execute("SELECT n FROM t WHERE id = 'A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11'").fetchall() == [(1,)]
    assert again.execute("SELECT count(DISTINCT id), count(*) FROM t").fetchone() == (299, 299)
    assert again.execute("SELECT data_type FROM information_schema.columns WHERE table_name = 't' "
                         "AND column_name = 'id'").fetchone() == ("uuid",)


def test_serializable_sees_a_uuid_predicate_read_in_another_input_form(connect):
    """Write skew through a predicate on a uuid column, read in another input form than the
    rows are written in: SSI evaluates the read's WHERE over the other's writes as a uuid
    comparison, so one of the two commits fails (40001)."""
    setup = connect(autocommit=True)
    setup.execute("CREATE TABLE shifts (id INT PRIMARY KEY, doctor uuid)")
    s1 = connect(isolation_level="SERIALIZABLE")
    s2 = connect(isolation_level="SERIALIZABLE")
    assert s1.execute("SELECT count(*) FROM shifts WHERE doctor = '{A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11}'"
                      ).fetchone() == (0,)
    assert s2.execute("SELECT count(*) FROM shifts WHERE doctor = 'B0EEBC999C0B4EF8BB6D6BB9BD380A11'"
                      ).fetchone() == (0,)
    s1.execute("INSERT INTO shifts VALUES (1, ?)", (B,))  # each writes what the other's read would have seen
    s2.execute("INSERT INTO shifts VALUES (2, ?)", (A,))
    s1.commit()
    with pytest.raises(txlake.SerializationFailure):
        s2.commit()


def test_returning_fetches_uuid_and_json_as_a_query_does(connect):
    """RETURNING gave a uuid and a jsonb column as text (type code VARCHAR), from every statement."""
    c = connect(autocommit=True)
    c.execute("CREATE TABLE r (k INT PRIMARY KEY, v INT, u UUID, j JSONB)")
    cur = c.cursor()
    for sql in ["INSERT INTO r VALUES (1, 1, 'A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11', '{\"a\": 1}') RETURNING u, j",
                "UPDATE r SET v = v + 1 RETURNING u, j", "UPDATE r SET v = 7 WHERE k = 1 RETURNING u, j",
                "INSERT INTO r VALUES (1, 5) ON CONFLICT (k) DO UPDATE SET v = excluded.v RETURNING u, j",
                "MERGE INTO r USING (SELECT 1 AS k) s ON r.k = s.k WHEN MATCHED THEN UPDATE SET v = 9 "
                "RETURNING r.u, r.j",
                "DELETE FROM r RETURNING u, j"]:
        cur.execute(sql)
        assert cur.fetchall() == [(A, {"a": 1})], sql
        assert [d[1] for d in cur.description] == ["UUID", "JSON"], sql
