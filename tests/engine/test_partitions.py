"""Declarative partitioning (engine/partitions.py), against PostgreSQL 16's create_table.out,
insert.out, update.out and alter_table.out: a partitioned table holds its partitions' rows,
routes an INSERT's rows to them, moves a row whose key an UPDATE changes, and refuses bounds
that overlap."""

import pytest

import txlake
from tests.conftest import fails
from tests.conftest import rows as q


@pytest.fixture
def c(connect):
    conn = connect(autocommit=True)
    conn.execute("CREATE TABLE m (id INT, ts DATE, v TEXT) PARTITION BY RANGE (ts)")
    conn.execute("CREATE TABLE m1 PARTITION OF m FOR VALUES FROM ('2024-01-01') TO ('2024-02-01')")
    conn.execute("CREATE TABLE m2 PARTITION OF m FOR VALUES FROM ('2024-02-01') TO ('2024-03-01')")
    return conn


def test_rows_are_routed_to_their_partition_and_read_through_the_parent(c):
    c.execute("INSERT INTO m VALUES (1, '2024-01-05', 'a'), (2, '2024-02-05', 'b'), (3, '2024-01-31', 'c')")
    assert q(c, "SELECT id FROM m1 ORDER BY id") == [(1,), (3,)]
    assert q(c, "SELECT id FROM m2") == [(2,)]
    assert q(c, "SELECT * FROM m ORDER BY id")[1] == (2, __import__("datetime").date(2024, 2, 5), "b")
    assert q(c, "SELECT count(*) FROM ONLY m") == [(0,)]  # (the parent holds no rows)
    assert q(c, "SELECT v, x.n FROM m JOIN (VALUES (2, 'two')) AS x (k, n) ON x.k = m.id") == [("b", "two")]
    assert q(c, "SELECT max(id) FROM m WHERE ts < '2024-02-01'") == [(3,)]
    assert q(c, "SELECT id FROM m1 WHERE id IN (SELECT id FROM m WHERE v > 'a') ORDER BY 1") == [(3,)]
    assert q(c, "INSERT INTO m VALUES (4, '2024-02-09', 'd') RETURNING id, v") == [(4, "d")]


def test_a_row_no_partition_takes_is_refused_as_postgresql_refuses_it(c):
    message = fails(c, "INSERT INTO m VALUES (1, '2024-01-05', 'a'), (9, '2024-04-05', 'z')", "23514",
                    'no partition of relation "m" found for row')
    assert "DETAIL:  Partition key of the failing row contains (ts) = (2024-04-05)." in message
    fails(c, "INSERT INTO m VALUES (9, NULL, 'z')", "23514", "(ts) = (null)")
    assert q(c, "SELECT count(*) FROM m") == [(0,)]  # (the statement's other rows neither)
    message = fails(c, "INSERT INTO m1 VALUES (5, '2024-02-05', 'x')", "23514",
                    'new row for relation "m1" violates partition constraint')
    assert "Failing row contains (5, 2024-02-05, x)." in message


def test_overlapping_and_empty_bounds_are_refused(c):
    fails(c, "CREATE TABLE mx PARTITION OF m FOR VALUES FROM ('2024-01-15') TO ('2024-02-15')", "42P17",
          'partition "mx" would overlap partition "m1"')
    fails(c, "CREATE TABLE mx PARTITION OF m FOR VALUES FROM ('2024-05-01') TO ('2024-04-01')", "42P17",
          'empty range bound specified for partition "mx"', "Specified lower bound ('2024-05-01')")
    fails(c, "CREATE TABLE mx PARTITION OF m FOR VALUES IN ('2024-05-01')", "42P17", "invalid bound")
    fails(c, "CREATE TABLE mx PARTITION OF m1 FOR VALUES IN (1)", "42809", 'table "m1" is not partitioned')
    c.execute("CREATE TABLE m0 PARTITION OF m FOR VALUES FROM (MINVALUE) TO ('2024-01-01')")
    c.execute("INSERT INTO m VALUES (0, '1999-12-31', 'old')")
    assert q(c, "SELECT id FROM m0") == [(0,)]


def test_a_default_partition_takes_the_rest_and_guards_its_rows(c):
    c.execute("CREATE TABLE md PARTITION OF m DEFAULT")
    c.execute("INSERT INTO m VALUES (1, '2024-04-05', 'a'), (2, NULL, 'n'), (3, '2024-01-02', 'c')")
    assert q(c, "SELECT id FROM md ORDER BY id") == [(1,), (2,)]
    fails(c, "INSERT INTO md VALUES (4, '2024-01-09', 'x')", "23514", 'relation "md" violates partition constraint')
    fails(c, "CREATE TABLE m4 PARTITION OF m FOR VALUES FROM ('2024-04-01') TO ('2024-05-01')", "23514",
          'updated partition constraint for default partition "md" would be violated by some row')
    fails(c, "CREATE TABLE md2 PARTITION OF m DEFAULT", "42P17", "conflicts with existing default partition")
    c.execute("DROP TABLE m1")  # (its range is the default's now)
    c.execute("INSERT INTO m VALUES (5, '2024-01-09', 'x')")
    assert q(c, "SELECT id FROM md ORDER BY id") == [(1,), (2,), (5,)]


def test_list_partitions_and_sub_partitions(connect):
    c = connect(autocommit=True)
    c.execute("CREATE TABLE l (a INT, b TEXT) PARTITION BY LIST (b)")
    c.execute("CREATE TABLE l_xy PARTITION OF l FOR VALUES IN ('x', 'y', NULL)")
    c.execute("CREATE TABLE l_z PARTITION OF l FOR VALUES IN ('z') PARTITION BY RANGE (a)")
    c.execute("CREATE TABLE l_z1 PARTITION OF l_z FOR VALUES FROM (1) TO (10)")
    fails(c, "CREATE TABLE l_y PARTITION OF l FOR VALUES IN ('q', 'y')", "42P17",
          'partition "l_y" would overlap partition "l_xy"')
    c.execute("INSERT INTO l VALUES (1, 'x'), (2, NULL), (3, 'z')")
    assert q(c, "SELECT a FROM l_xy ORDER BY a") == [(1,), (2,)]
    assert q(c, "SELECT a, b FROM l_z1") == [(3, "z")]
    fails(c, "INSERT INTO l VALUES (30, 'z')", "23514", 'no partition of relation "l_z" found for row', "(a) = (30)")
    fails(c, "INSERT INTO l_z1 VALUES (3, 'x')", "23514", 'relation "l_z1" violates partition constraint')
    fails(c, "CREATE TABLE l2 (a INT, b TEXT) PARTITION BY LIST (a, b)", "42P17", "more than one column")


def test_update_and_delete_act_on_every_partition_and_a_changed_key_moves_the_row(c):
    c.execute("INSERT INTO m VALUES (1, '2024-01-05', 'a'), (2, '2024-02-05', 'b')")
    assert q(c, "UPDATE m SET v = upper(v) RETURNING id, v") == [(1, "A"), (2, "B")]
    assert q(c, "UPDATE m SET ts = ts + 31 WHERE id = ? RETURNING id, ts", (1,)) == \
        [(1, __import__("datetime").date(2024, 2, 5))]
    assert q(c, "SELECT id, v FROM m2 ORDER BY id") == [(1, "A"), (2, "B")]
    assert q(c, "SELECT count(*) FROM m1") == [(0,)]
    fails(c, "UPDATE m SET ts = '2030-01-01' WHERE id = 2", "23514", 'no partition of relation "m" found for row')
    fails(c, "UPDATE m2 SET ts = '2024-01-01' WHERE id = 2", "23514", 'relation "m2" violates partition constraint')
    assert q(c, "DELETE FROM m WHERE id = 2 RETURNING id") == [(2,)]
    c.execute("TRUNCATE m")
    assert q(c, "SELECT count(*) FROM m") == [(0,)]


def test_a_moved_row_takes_its_new_values_as_the_columns_take_them(connect):
    """The moved row's SET values were written as given: a text into a timestamptz key was a bare
    ArrowInvalid (no SQLSTATE), a numeric kept more decimals than its scale; they go through the
    UPDATE's cast to the column's type now (22007 for a text that is no time)."""
    c = connect(autocommit=True)
    c.execute("CREATE TABLE e (id INT, ts TIMESTAMPTZ, n NUMERIC(6,2)) PARTITION BY RANGE (ts)")
    c.execute("CREATE TABLE e1 PARTITION OF e FOR VALUES FROM ('2024-01-01') TO ('2024-02-01')")
    c.execute("CREATE TABLE e_rest PARTITION OF e DEFAULT")
    c.execute("INSERT INTO e VALUES (1, '2024-03-05', 1)")
    assert q(c, "UPDATE e SET ts = '2024-01-20 00:00+00', n = 3.456 WHERE id = 1 RETURNING id, ts::text, n::text") \
        == [(1, "2024-01-20 00:00:00+00", "3.46")]
    assert q(c, "SELECT id, n::text FROM e1") == [(1, "3.46")]
    fails(c, "UPDATE e SET ts = 'garbage' WHERE id = 1", "22007")


def test_keys_include_the_partition_columns_and_hold_per_partition(connect):
    c = connect(autocommit=True)
    fails(c, "CREATE TABLE k (id INT PRIMARY KEY, ts DATE) PARTITION BY RANGE (ts)", "0A000",
          "unique constraint on partitioned table must include all partitioning columns",
          'PRIMARY KEY constraint on table "k" lacks column "ts" which is part of the partition key.')
    c.execute("CREATE TABLE k (id INT, ts DATE, n INT, PRIMARY KEY (id, ts)) PARTITION BY RANGE (ts)")
    c.execute("CREATE TABLE k1 PARTITION OF k FOR VALUES FROM ('2024-01-01') TO ('2025-01-01')")
    c.execute("INSERT INTO k VALUES (1, '2024-03-01', 1)")
    fails(c, "INSERT INTO k VALUES (1, '2024-03-01', 2)", "23505", "k1_pkey")
    c.execute("INSERT INTO k VALUES (1, '2024-03-01', 5) ON CONFLICT (id, ts) DO UPDATE SET n = excluded.n")
    assert q(c, "SELECT n FROM k") == [(5,)]
    fails(c, "CREATE TABLE r (id INT REFERENCES k)", "0A000", "partitioned table")
    fails(c, "MERGE INTO k USING (VALUES (1)) AS s (x) ON k.id = s.x WHEN MATCHED THEN DELETE", "0A000")


def test_a_pg_dump_of_partitions_loads(connect):
    """pg_dump writes each partition as a plain table, then ATTACHes it, loads its rows, and adds
    the keys to the parent ONLY and to each partition, joining the indexes."""
    c = connect(autocommit=True)
    for sql in [
            "CREATE TABLE public.measurement (city_id integer NOT NULL, logdate date NOT NULL, peaktemp integer) "
            "PARTITION BY RANGE (logdate)",
            "CREATE TABLE public.measurement_y2006m02 (city_id integer NOT NULL, logdate date NOT NULL, "
            "peaktemp integer)",
            "CREATE TABLE public.measurement_y2006m03 (logdate date NOT NULL, city_id integer NOT NULL, "
            "peaktemp integer)",
            "ALTER TABLE ONLY public.measurement ATTACH PARTITION public.measurement_y2006m02 "
            "FOR VALUES FROM ('2006-02-01') TO ('2006-03-01')",
            "ALTER TABLE ONLY public.measurement ATTACH PARTITION public.measurement_y2006m03 "
            "FOR VALUES FROM ('2006-03-01') TO ('2006-04-01')",
            "INSERT INTO public.measurement_y2006m02 VALUES (1, '2006-02-03', 10)",
            "INSERT INTO public.measurement_y2006m03 VALUES ('2006-03-03', 2, 20)",
            "ALTER TABLE ONLY public.measurement ADD CONSTRAINT measurement_pkey PRIMARY KEY (city_id, logdate)",
            "ALTER TABLE ONLY public.measurement_y2006m02 ADD CONSTRAINT measurement_y2006m02_pkey "
            "PRIMARY KEY (city_id, logdate)",
            "ALTER INDEX public.measurement_pkey ATTACH PARTITION public.measurement_y2006m02_pkey"]:
        c.execute(sql)
    assert q(c, "SELECT city_id, peaktemp FROM measurement ORDER BY logdate") == [(1, 10), (2, 20)]
    c.execute("INSERT INTO measurement VALUES (3, '2006-03-09', 30)")
    assert q(c, "SELECT city_id FROM measurement_y2006m03 ORDER BY 1") == [(2,), (3,)]


def test_attach_checks_the_rows_and_detach_frees_the_table(c):
    c.execute("CREATE TABLE m3 (id INT, ts DATE, v TEXT)")
    c.execute("INSERT INTO m3 VALUES (7, '2024-03-07', 'g'), (8, '2024-05-01', 'h')")
    fails(c, "ALTER TABLE m ATTACH PARTITION m3 FOR VALUES FROM ('2024-03-01') TO ('2024-04-01')", "23514",
          'partition constraint of relation "m3" is violated by some row')
    c.execute("DELETE FROM m3 WHERE id = 8")
    c.execute("ALTER TABLE m ATTACH PARTITION m3 FOR VALUES FROM ('2024-03-01') TO ('2024-04-01')")
    assert q(c, "SELECT id FROM m") == [(7,)]
    fails(c, "ALTER TABLE m ATTACH PARTITION m3 FOR VALUES FROM ('2025-03-01') TO ('2025-04-01')", "42809",
          "already a partition")
    c.execute("CREATE TABLE w (id INT, ts DATE, extra INT)")
    fails(c, "ALTER TABLE m ATTACH PARTITION w FOR VALUES FROM ('2025-03-01') TO ('2025-04-01')", "42804",
          'table "w" contains column "extra" not found in parent "m"')
    c.execute("ALTER TABLE m DETACH PARTITION m3")
    assert q(c, "SELECT count(*) FROM m") == [(0,)]
    c.execute("INSERT INTO m3 VALUES (9, '2030-01-01', 'free')")
    fails(c, "ALTER TABLE m DETACH PARTITION m3", "42P01", 'relation "m3" is not a partition of relation "m"')


def test_partitioning_is_transactional_and_survives_a_restart(warehouse, connect):
    c = connect()
    c.execute("CREATE TABLE e (id INT, day DATE) PARTITION BY RANGE (day)")
    c.execute("CREATE TABLE e1 PARTITION OF e FOR VALUES FROM ('2024-01-01') TO ('2024-01-02')")
    c.rollback()
    fails(c, "SELECT * FROM e", "42P01")
    c.rollback()
    c.execute("CREATE TABLE e (id INT, day DATE) PARTITION BY RANGE (day)")
    c.execute("CREATE TABLE e1 PARTITION OF e FOR VALUES FROM ('2024-01-01') TO ('2024-01-02')")
    c.execute("INSERT INTO e VALUES (1, '2024-01-01')")
    c.commit()
    c.close()
    again = txlake.connect(warehouse, autocommit=True)
    try:
        assert q(again, "SELECT * FROM e1") == [(1, __import__("datetime").date(2024, 1, 1))]
        fails(again, "INSERT INTO e VALUES (2, '2024-01-02')", "23514", "no partition")
        again.execute("DROP TABLE e")
        fails(again, "SELECT * FROM e1", "42P01")
    finally:
        again.close()


def test_what_is_not_supported_is_refused(c):
    fails(c, "CREATE TABLE h (a INT) PARTITION BY HASH (a)", "0A000", "HASH")
    fails(c, "CREATE TABLE x (a INT) PARTITION BY RANGE ((a + 1))", "0A000", "expressions")
    c.execute("CREATE TABLE k (id INT, ts DATE, PRIMARY KEY (id, ts)) PARTITION BY RANGE (ts)")
    c.execute("CREATE TABLE k1 PARTITION OF k FOR VALUES FROM ('2024-01-01') TO ('2025-01-01')")
    c.execute("INSERT INTO k VALUES (1, '2024-03-01')")
    fails(c, "INSERT INTO k VALUES (1, '2024-03-01') ON CONFLICT (id, ts) DO UPDATE SET ts = '2030-01-01'", "0A000",
          "partition key")


def test_a_partitioned_tables_foreign_keys_are_each_partitions(connect):
    """They were 0A000: a partitioned events table referencing its customers could not be made,
    nor loaded from pg_dump's ALTER TABLE p ADD CONSTRAINT ... FOREIGN KEY."""
    c = connect(autocommit=True)
    c.execute("CREATE TABLE cust (id INT PRIMARY KEY)")
    c.execute("INSERT INTO cust VALUES (1), (2)")
    c.execute("CREATE TABLE o (id INT, cust INT REFERENCES cust ON DELETE CASCADE, ts DATE) PARTITION BY RANGE (ts)")
    c.execute("CREATE TABLE o1 PARTITION OF o FOR VALUES FROM (MINVALUE) TO ('2024-06-01')")
    c.execute("CREATE TABLE o2 PARTITION OF o FOR VALUES FROM ('2024-06-01') TO (MAXVALUE)")
    c.execute("INSERT INTO o VALUES (1, 1, '2024-01-01'), (2, 2, '2024-07-01'), (3, 1, '2024-08-01')")
    fails(c, "INSERT INTO o VALUES (4, 9, '2024-01-01')", "23503", 'insert or update on table "o1" violates foreign '
          'key constraint "o_cust_fkey"')
    c.execute("DELETE FROM cust WHERE id = 1")  # (CASCADE: in each partition)
    assert q(c, "SELECT id FROM o ORDER BY id") == [(2,)]
    # pg_dump's form, after the partitions and their data: each partition's rows checked
    c.execute("CREATE TABLE q (id INT, cust INT) PARTITION BY LIST (cust)")
    c.execute("CREATE TABLE q1 PARTITION OF q FOR VALUES IN (1, 2)")
    c.execute("CREATE TABLE q2 PARTITION OF q FOR VALUES IN (3)")
    c.execute("INSERT INTO q VALUES (1, 2), (2, 3)")
    fails(c, "ALTER TABLE q ADD CONSTRAINT q_cust_fk FOREIGN KEY (cust) REFERENCES cust", "23503",
          'insert or update on table "q2" violates foreign key constraint "q_cust_fk"')
    assert q(c, "SELECT count(*) FROM pg_constraint WHERE contype = 'f' AND conname = 'q_cust_fk'") == [(0,)]
    c.execute("DELETE FROM q WHERE cust = 3")
    c.execute("ALTER TABLE q ADD FOREIGN KEY (cust) REFERENCES cust")
    c.execute("ALTER TABLE q ADD CHECK (id > 0)")
    assert q(c, "SELECT conrelid::regclass::text, conname FROM pg_constraint WHERE conrelid IN "
                "('q'::regclass, 'q1'::regclass, 'q2'::regclass) AND contype IN ('f', 'c') ORDER BY 1, 2") == [
        ("q", "q_check"), ("q", "q_cust_fkey"), ("q1", "q_check"), ("q1", "q_cust_fkey"), ("q2", "q_check"),
        ("q2", "q_cust_fkey")]
    fails(c, "INSERT INTO q VALUES (-1, 2)", "23514", 'new row for relation "q1" violates check constraint "q_check"')
    c.execute("CREATE TABLE q3 (id INT, cust INT)")
    fails(c, "ALTER TABLE q ATTACH PARTITION q3 FOR VALUES IN (4)", "0A000", 'partition "q3" must have the foreign '
          'key "q_cust_fkey"')


def test_a_partitioned_tables_columns_change_in_every_partition(connect):
    """ADD / DROP / RENAME / ALTER COLUMN of a partitioned table was 0A000 (a migration adding a
    column failed): each partition, sub-partitions too, changes with it now, as in PostgreSQL."""
    c = connect(autocommit=True)
    c.execute("CREATE TABLE ev (id INT, ts DATE, kind TEXT) PARTITION BY RANGE (ts)")
    c.execute("CREATE TABLE ev1 PARTITION OF ev FOR VALUES FROM ('2024-01-01') TO ('2024-02-01')")
    c.execute("CREATE TABLE ev2 PARTITION OF ev FOR VALUES FROM ('2024-02-01') TO ('2024-03-01') "
              "PARTITION BY LIST (kind)")
    c.execute("CREATE TABLE ev2a PARTITION OF ev2 FOR VALUES IN ('a')")
    c.execute("INSERT INTO ev VALUES (1, '2024-01-05', 'x'), (2, '2024-02-05', 'a')")
    c.execute("ALTER TABLE ev ADD COLUMN note TEXT DEFAULT 'n'")
    assert q(c, "SELECT id, note FROM ev ORDER BY id") == [(1, "n"), (2, "n")]
    assert q(c, "SELECT id, note FROM ev2a") == [(2, "n")]
    c.execute("ALTER TABLE ev ALTER COLUMN note SET NOT NULL")
    fails(c, "INSERT INTO ev VALUES (3, '2024-01-06', 'x', NULL)", "23502", 'relation "ev1"')
    c.execute("ALTER TABLE ev RENAME COLUMN note TO memo")
    c.execute("ALTER TABLE ev ALTER COLUMN memo TYPE VARCHAR(5)")
    fails(c, "INSERT INTO ev VALUES (4, '2024-02-07', 'a', 'toolong')", "22001")
    assert q(c, "SELECT column_name FROM information_schema.columns WHERE table_name = 'ev2a' ORDER BY 1") == [
        ("id",), ("kind",), ("memo",), ("ts",)]
    c.execute("ALTER TABLE ev DROP COLUMN memo")
    assert q(c, "SELECT * FROM ev2a") == [(2, __import__("datetime").date(2024, 2, 5), "a")]
    fails(c, "ALTER TABLE ev DROP COLUMN ts", "42P16", 'cannot drop column "ts" because it is part of the partition '
          'key of relation "ev"')
    fails(c, "ALTER TABLE ev RENAME COLUMN kind TO k", "0A000", "partition key")
    fails(c, "ALTER TABLE ev1 ADD COLUMN z INT", "42P16", 'partition "ev1"')
    fails(c, "ALTER TABLE ONLY ev ADD COLUMN z INT", "42P16")
    fails(c, "ALTER TABLE ev ADD COLUMN s SERIAL", "0A000", "serial")
    c.execute("ALTER TABLE ev1 ALTER COLUMN kind SET DEFAULT 'd'")  # (a partition's own default)


def test_a_partitions_row_triggers_fire_on_rows_routed_to_it(connect):
    """An INSERT into the partitioned table skipped its partitions' row triggers (an updated_at
    or audit trigger on a partition saw none of the rows routed to it): they fire now, as on rows
    inserted into the partition - a NULL from a BEFORE one skips the row."""
    c = connect(autocommit=True)
    c.execute("CREATE TABLE p (id INT, ts DATE, v TEXT, PRIMARY KEY (id, ts)) PARTITION BY RANGE (ts)")
    c.execute("CREATE TABLE p1 PARTITION OF p FOR VALUES FROM ('2024-01-01') TO ('2025-01-01')")
    c.execute("CREATE TABLE p2 PARTITION OF p FOR VALUES FROM ('2025-01-01') TO ('2026-01-01')")
    c.execute("CREATE TABLE audit (msg TEXT)")
    c.execute("CREATE FUNCTION stamp() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN IF NEW.v = 'skip' THEN "
              "RETURN NULL; END IF; NEW.v := upper(NEW.v); RETURN NEW; END $$")
    c.execute("CREATE FUNCTION aud() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN "
              "INSERT INTO audit VALUES (TG_TABLE_NAME || ':' || NEW.v); RETURN NULL; END $$")
    c.execute("CREATE TRIGGER s BEFORE INSERT ON p1 FOR EACH ROW EXECUTE FUNCTION stamp()")
    c.execute("CREATE TRIGGER a AFTER INSERT ON p1 FOR EACH ROW EXECUTE FUNCTION aud()")
    assert q(c, "INSERT INTO p VALUES (1, '2024-02-02', 'abc'), (2, '2025-02-02', 'def'), "
                "(3, '2024-03-03', 'skip'), (4, '2024-04-04', 'ghi') RETURNING id, v") == [
        (1, "ABC"), (2, "def"), (4, "GHI")]
    assert q(c, "SELECT msg FROM audit ORDER BY msg") == [("p1:ABC",), ("p1:GHI",)]
    fails(c, "INSERT INTO p VALUES (1, '2024-02-02', 'x') ON CONFLICT DO NOTHING", "0A000", 'partition "p1" has row '
          "triggers")


def test_a_key_setting_update_moves_only_the_rows_that_leave_their_partition(connect):
    """Every row a key-setting UPDATE matched was deleted and inserted again, so a row staying in
    its partition ran its foreign keys' delete actions (ON DELETE CASCADE deleted the rows
    referencing it; NO ACTION was 23503) and skipped its UPDATE triggers; and a partition's
    statement triggers fired for an UPDATE / DELETE naming the partitioned table. A row whose new
    values fit its partition is updated in place now, as in PostgreSQL (review of the merge)."""
    c = connect(autocommit=True)
    c.execute("CREATE TABLE ev (id INT, k TEXT, v INT) PARTITION BY LIST (k)")
    c.execute("CREATE TABLE eva PARTITION OF ev FOR VALUES IN ('a')")
    c.execute("CREATE TABLE evb PARTITION OF ev FOR VALUES IN ('b')")
    c.execute("ALTER TABLE eva ADD PRIMARY KEY (id)")
    c.execute("INSERT INTO ev VALUES (1, 'a', 1), (2, 'a', 2)")
    c.execute("CREATE TABLE cascaded (rid INT REFERENCES eva (id) ON DELETE CASCADE)")
    c.execute("CREATE TABLE held (rid INT REFERENCES eva (id))")
    c.execute("INSERT INTO cascaded VALUES (1)")
    c.execute("INSERT INTO held VALUES (2)")
    c.execute("CREATE TABLE log (m TEXT)")
    c.execute("CREATE FUNCTION logged() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN INSERT INTO log VALUES "
              "(TG_TABLE_NAME || ' ' || TG_OP || ' ' || TG_LEVEL); RETURN NEW; END $$")
    c.execute("CREATE TRIGGER r BEFORE UPDATE ON eva FOR EACH ROW EXECUTE FUNCTION logged()")
    c.execute("CREATE TRIGGER s AFTER UPDATE OR DELETE ON eva FOR EACH STATEMENT EXECUTE FUNCTION logged()")
    assert q(c, "UPDATE ev SET k = ?, v = 7 WHERE id = ? RETURNING id, k, v", ("a", 1)) == [(1, "a", 7)]
    assert c.execute("UPDATE ev SET k = k, v = 8 WHERE id = 2").rowcount == 1
    assert q(c, "SELECT * FROM cascaded") == [(1,)]
    assert q(c, "SELECT m FROM log") == [("eva UPDATE ROW",), ("eva UPDATE ROW",)]
    c.execute("DELETE FROM ev WHERE id = 99")
    assert q(c, "SELECT count(*) FROM log") == [(2,)]  # (no statement trigger of eva: ev was named)
    # a row that leaves: deleted from its partition (its keys' actions run) and inserted in the other
    assert q(c, "UPDATE ev SET k = 'b' WHERE id = 1 RETURNING id, k") == [(1, "b")]
    assert q(c, "SELECT * FROM cascaded") == []
    fails(c, "UPDATE ev SET k = 'b' WHERE id = 2", "23503", 'table "held"')
    assert q(c, "SELECT id, k, v FROM ev ORDER BY id") == [(1, "b", 7), (2, "a", 8)]


def test_a_partition_keeps_its_parents_enum_rules(connect):
    c = connect(autocommit=True)
    c.execute("CREATE TYPE mood AS ENUM ('sad', 'ok')")
    c.execute("CREATE TABLE f (id INT, m mood) PARTITION BY LIST (id)")
    c.execute("CREATE TABLE f1 PARTITION OF f FOR VALUES IN (1)")
    fails(c, "INSERT INTO f VALUES (1, 'happy')", "22P02", "invalid input value for enum mood")


def test_the_catalogs_show_partitioned_tables_and_partitions(c):
    c.execute("CREATE TABLE md PARTITION OF m DEFAULT")
    assert q(c, "SELECT relname, relkind, relispartition, pg_get_expr(relpartbound, oid) FROM pg_class "
                "WHERE relname LIKE 'm%' ORDER BY relname") == [
        ("m", "p", False, None),
        ("m1", "r", True, "FOR VALUES FROM ('2024-01-01') TO ('2024-02-01')"),
        ("m2", "r", True, "FOR VALUES FROM ('2024-02-01') TO ('2024-03-01')"),
        ("md", "r", True, "DEFAULT")]
    assert q(c, "SELECT inhrelid::regclass::text, inhparent::regclass::text FROM pg_inherits ORDER BY 1") == [
        ("m1", "m"), ("m2", "m"), ("md", "m")]
    assert q(c, "SELECT partrelid::regclass::text, partstrat, partnatts, partdefid::regclass::text "
                "FROM pg_partitioned_table") == [("m", "r", 1, "md")]
