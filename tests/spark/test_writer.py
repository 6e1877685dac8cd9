"""The Spark writer's commit protocol and what an append stores, with a real SparkSession (or,
where Spark's part is only to call them, the writer's own methods) and real files."""

from __future__ import annotations

import decimal
import glob
import os

import pyarrow as pa
import pytest
from pyspark.sql import types as T

import txlake
from txlake.spark import TxlakeDataSource

pytestmark = pytest.mark.slow


def data_files(wh: str, table: str) -> set[str]:
    return {os.path.basename(p) for p in glob.glob(os.path.join(wh, "default.db", table, "bucket-0", "data-*"))}


def block_publishing(wh: str, table: str) -> str:
    """A real fault for publishing ``table``: a file where its Paimon ``snapshot/`` directory
    goes (as a full disk or a permission would fail it). Returns the file, to remove."""
    blocker = os.path.join(wh, "default.db", table, "snapshot")
    os.makedirs(os.path.dirname(blocker), exist_ok=True)
    open(blocker, "w").close()
    return blocker


def test_a_publishing_failure_does_not_fail_a_committed_job(spark, engine, wh):
    engine.execute("CREATE TABLE y (id INT)")
    engine.execute("CREATE TABLE x (id INT)")
    engine.execute("INSERT INTO x VALUES (1)")
    blocker = block_publishing(wh, "x")  # another table's publishing fails after the job commits
    spark.range(1, 1001, numPartitions=2).selectExpr("CAST(id AS INT) AS id") \
        .write.format("txlake").mode("append").save(f"{wh}/y")
    assert engine.execute("SELECT count(*), sum(id) FROM y").fetchone() == (1000, 500500)
    os.remove(blocker)
    publishing = txlake.connect(wh, autocommit=True, publish="sync")  # publishes what is missing
    publishing.close()
    assert spark.read.format("txlake").load(f"{wh}/y").count() == 1000


def test_abort_after_the_commit_landed_keeps_its_files(engine, wh):
    """Spark calls abort() when commit() raises, even after the commit's log entry is durable:
    the files are then the table's, and must stay."""
    engine.execute("CREATE TABLE t (id BIGINT)")
    writer = TxlakeDataSource({"path": f"{wh}/t"}).writer(T.StructType([T.StructField("id", T.LongType())]), False)
    message = writer.write(iter([pa.record_batch([pa.array(range(1000), pa.int64())], names=["id"])]))
    writer.commit([message])
    files = data_files(wh, "t")
    writer.abort([message])
    assert data_files(wh, "t") == files
    assert engine.execute("SELECT count(*) FROM t").fetchone() == (1000,)


def test_numbers_are_rounded_into_their_columns_as_insert_rounds_them(spark, engine, wh):
    engine.execute("CREATE TABLE n (k INT, d DECIMAL(12,2), i INT)")
    decimals = ["1.2345", "-1.2350", "0.0050"]
    doubles = ["2.675", "1.125", "2.5", "3.5", "-2.5", "2.7"]
    for v in decimals:  # what SQL stores (PostgreSQL: numeric rounds half away from zero; a
        # double into INT rounds half to even)
        engine.execute(f"INSERT INTO n VALUES (0, CAST({v} AS DECIMAL(20,4)), CAST({v} AS DECIMAL(20,4)))")
    for v in doubles:
        engine.execute(f"INSERT INTO n VALUES (0, CAST({v} AS DOUBLE), CAST({v} AS DOUBLE))")
    for v in decimals:
        spark.sql(f"SELECT 1 AS k, CAST({v} AS DECIMAL(20,4)) AS d, CAST({v} AS DECIMAL(20,4)) AS i") \
            .write.format("txlake").mode("append").save(f"{wh}/n")
    spark.sql("SELECT 1 AS k, CAST(v AS DOUBLE) AS d, CAST(v AS DOUBLE) AS i FROM VALUES "
              + ", ".join(f"('{v}')" for v in doubles) + " AS t(v)").write.format("txlake").mode("append").save(f"{wh}/n")
    by_sql = sorted(engine.execute("SELECT d, i FROM n WHERE k = 0").fetchall())
    assert sorted(engine.execute("SELECT d, i FROM n WHERE k = 1").fetchall()) == by_sql
    D = decimal.Decimal
    assert by_sql == sorted([(D("1.23"), 1), (D("-1.24"), -1), (D("0.01"), 0), (D("2.68"), 3), (D("1.13"), 1),
                             (D("2.50"), 2), (D("3.50"), 4), (D("-2.50"), -2), (D("2.70"), 3)])
    for query in ["SELECT CAST(9999999999.995 AS DECIMAL(20,3)) AS d",   # rounds to 13 digits
                  "SELECT 3e9D AS i", "SELECT double('NaN') AS i", "SELECT CAST(1e10 AS DECIMAL(20,0)) AS d"]:
        with pytest.raises(Exception, match="NumericValueOutOfRange"):
            spark.sql(query).write.format("txlake").mode("append").save(f"{wh}/n")
    assert engine.execute("SELECT count(*) FROM n").fetchone() == (18,)


def test_a_varchar_too_long_only_by_trailing_spaces_is_cut_as_insert_cuts_it(spark, engine, wh):
    """Spark appends refused 'ab   ' into VARCHAR(3) (22001) where INSERT cuts it to 'ab '."""
    engine.execute("CREATE TABLE v (k INT, s VARCHAR(3))")
    engine.execute("INSERT INTO v VALUES (0, 'ab    ')")
    spark.sql("SELECT 1 AS k, 'ab    ' AS s").write.format("txlake").mode("append").save(f"{wh}/v")
    assert engine.execute("SELECT k, s FROM v ORDER BY k").fetchall() == [(0, "ab "), (1, "ab ")]
    with pytest.raises(Exception, match="StringDataRightTruncation"):
        spark.sql("SELECT 2 AS k, 'abcd' AS s").write.format("txlake").mode("append").save(f"{wh}/v")


def test_columns_missing_from_the_dataframe_get_their_defaults(spark, engine, wh):
    engine.execute("CREATE TABLE acc (id INT PRIMARY KEY, owner TEXT NOT NULL, balance DECIMAL(12,2) DEFAULT 0, "
                   "active BOOLEAN NOT NULL DEFAULT true, rate DECIMAL(5,2) DEFAULT 7 / 2 + 0.005, "
                   "opened TIMESTAMP DEFAULT now(), note VARCHAR)")
    engine.execute("INSERT INTO acc (id, owner) VALUES (1, 'sql')")
    spark.range(2, 1002, numPartitions=2).selectExpr("CAST(id AS INT) AS id", "'spark' AS owner") \
        .write.format("txlake").mode("append").save(f"{wh}/acc")
    spark.createDataFrame([(1002, "spark", False, None)], "id int, owner string, active boolean, balance decimal(12,2)") \
        .write.format("txlake").mode("append").save(f"{wh}/acc")
    by_sql = engine.execute("SELECT balance, active, rate, note FROM acc WHERE id = 1").fetchone()
    assert by_sql == (decimal.Decimal("0.00"), True, decimal.Decimal("3.01"), None)  # (7 / 2 is 3, as in PostgreSQL)
    assert engine.execute("SELECT DISTINCT balance, active, rate, note FROM acc WHERE id BETWEEN 2 AND 1001").fetchall() \
        == [by_sql]
    assert engine.execute("SELECT balance, active FROM acc WHERE id = 1002").fetchone() == (None, False)
    # now() is the start of the job's transaction: one time for all its rows, after the INSERT's
    opened = engine.execute("SELECT DISTINCT opened FROM acc WHERE id BETWEEN 2 AND 1001").fetchall()
    assert len(opened) == 1 and opened[0][0] > engine.execute("SELECT opened FROM acc WHERE id = 1").fetchone()[0]


def test_a_default_that_differs_row_to_row_is_refused(spark, engine, wh):
    engine.execute("CREATE TABLE t (id INT, tag VARCHAR DEFAULT CAST(gen_random_uuid() AS VARCHAR))")
    with pytest.raises(Exception, match=r"NotSupportedError: .*\"tag\""):
        spark.range(3).selectExpr("CAST(id AS INT) AS id").write.format("txlake").mode("append").save(f"{wh}/t")
    spark.range(3).selectExpr("CAST(id AS INT) AS id", "CAST(id AS STRING) AS tag") \
        .write.format("txlake").mode("append").save(f"{wh}/t")
    assert engine.execute("SELECT count(*) FROM t").fetchone() == (3,)


def test_an_append_numbers_a_serial_column_it_lacks_from_its_sequence(spark, engine, wh):
    engine.execute("CREATE TABLE ev (id SERIAL PRIMARY KEY, name TEXT NOT NULL, n BIGSERIAL)")
    engine.execute("INSERT INTO ev (name) VALUES ('sql')")
    spark.range(1000, numPartitions=3).selectExpr("CAST(id AS STRING) AS name") \
        .write.format("txlake").mode("append").save(f"{wh}/ev")
    engine.execute("INSERT INTO ev (name) VALUES ('after')")
    ids = engine.execute("SELECT id, n FROM ev ORDER BY id").fetchall()
    assert len(ids) == 1002 and ids[0] == (1, 1)
    assert len({i for i, _ in ids}) == 1002 and len({n for _, n in ids}) == 1002  # each number once
    assert ids[-1] == engine.execute("SELECT id, n FROM ev WHERE name = 'after'").fetchone()  # the newest
    assert engine.execute("SELECT max(id), max(n) FROM ev").fetchone() == ids[-1]
    # a DataFrame that gives the column's values stores them, as an INSERT naming it does
    spark.createDataFrame([(5000, "given", 7000)], "id int, name string, n bigint") \
        .write.format("txlake").mode("append").save(f"{wh}/ev")
    assert engine.execute("SELECT id, n FROM ev WHERE name = 'given'").fetchone() == (5000, 7000)


def test_an_append_gives_or_lacks_a_generated_always_identity_column(spark, engine, wh):
    """As PostgreSQL's COPY: a value the DataFrame gives is stored; a column it lacks is numbered."""
    engine.execute("CREATE TABLE ga (id BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY, name TEXT)")
    spark.createDataFrame([("a",), ("b",)], "name string").write.format("txlake").mode("append").save(f"{wh}/ga")
    spark.createDataFrame([(100, "given")], "id bigint, name string").write.format("txlake").mode("append") \
        .save(f"{wh}/ga")
    rows = engine.execute("SELECT id, name FROM ga ORDER BY id").fetchall()
    # (the first job's two rows may go to two tasks: which takes number 1 is not fixed)
    assert {r[0] for r in rows[:2]} == {1, 2} and {r[1] for r in rows[:2]} == {"a", "b"}
    assert rows[2:] == [(100, "given")]


def test_an_append_checks_the_tables_check_constraints(spark, engine, wh):
    """Each task judges its rows by the table's CHECKs, as an INSERT does (23514: no row of the
    job is committed); NULL passes."""
    engine.execute("CREATE TABLE c (id INT, a INT CHECK (a > 0), CONSTRAINT halves CHECK (a / 2 < 5))")
    with pytest.raises(Exception, match=r'CheckViolation: new row for relation "c" violates check constraint "halves"'):
        spark.sql("SELECT CAST(id AS INT) AS id, CAST(id AS INT) AS a FROM range(1, 20)") \
            .write.format("txlake").mode("append").save(f"{wh}/c")
    spark.sql("SELECT CAST(id AS INT) AS id, CAST(IF(id = 1, NULL, id) AS INT) AS a FROM range(1, 10)") \
        .write.format("txlake").mode("append").save(f"{wh}/c")  # (9 / 2 is 4, as in PostgreSQL)
    assert engine.execute("SELECT count(*), count(a) FROM c").fetchone() == (9, 8)


def test_writes_leaving_foreign_keys_unchecked_are_refused(spark, engine, wh):
    """Spark's rows are not checked against foreign keys: writes to a referencing table, and an
    overwrite of a referenced one, are refused (0A000); an append to a referenced table is fine."""
    engine.execute("CREATE TABLE p (id INT PRIMARY KEY)")
    engine.execute("CREATE TABLE c (a INT REFERENCES p)")
    engine.execute("INSERT INTO p VALUES (1)")
    engine.execute("INSERT INTO c VALUES (1)")
    with pytest.raises(Exception, match=r"NotSupportedError: .*foreign key"):
        spark.sql("SELECT 5 AS a").write.format("txlake").mode("append").save(f"{wh}/c")
    with pytest.raises(Exception, match=r"NotSupportedError: .*foreign key"):
        spark.sql("SELECT 2 AS id").write.format("txlake").mode("overwrite").save(f"{wh}/p")
    spark.sql("SELECT 2 AS id").write.format("txlake").mode("append").save(f"{wh}/p")
    assert engine.execute("SELECT id FROM p ORDER BY id").fetchall() == [(1,), (2,)]
    assert engine.execute("SELECT a FROM c").fetchall() == [(1,)]
    # a foreign key made after the job began: its vote refuses it
    engine.execute("CREATE TABLE q (id INT PRIMARY KEY)")
    engine.execute("INSERT INTO q VALUES (1)")
    writer = TxlakeDataSource({"path": f"{wh}/q"}).writer(T.StructType([T.StructField("id", T.IntegerType())]), True)
    engine.execute("CREATE TABLE d (a INT REFERENCES q)")
    engine.execute("INSERT INTO d VALUES (1)")
    with pytest.raises(txlake.NotSupportedError):
        writer.commit([])
    assert engine.execute("SELECT id FROM q").fetchall() == [(1,)]


def test_enum_and_domain_columns_read_as_their_base_types_and_appends_keep_to_them(spark, engine, wh):
    """A column of an enum is text to Spark, of a domain its base type; an append is judged by
    the types' rules as an INSERT is (22P02 for a value not a label, 23514 for a domain's
    CHECK: nothing of the job committed), and a domain's DEFAULT fills a column it lacks."""
    engine.execute("CREATE TYPE mood AS ENUM ('sad', 'ok', 'happy')")
    engine.execute("CREATE DOMAIN score AS int DEFAULT 5 CHECK (VALUE BETWEEN 0 AND 10)")
    engine.execute("CREATE TABLE f (id INT, m mood, s score)")
    engine.execute("INSERT INTO f VALUES (1, 'happy', 7)")
    read = spark.read.format("txlake").load(f"{wh}/f")
    assert [(f.name, f.dataType) for f in read.schema.fields] == [
        ("id", T.IntegerType()), ("m", T.StringType()), ("s", T.IntegerType())]
    assert [tuple(r) for r in read.collect()] == [(1, "happy", 7)]
    with pytest.raises(Exception, match=r'InvalidTextRepresentation: invalid input value for enum mood: "meh"'):
        spark.createDataFrame([(2, "ok", 1), (3, "meh", 1)], "id int, m string, s int") \
            .write.format("txlake").mode("append").save(f"{wh}/f")
    with pytest.raises(Exception, match=r'CheckViolation: value for domain score violates check constraint'):
        spark.createDataFrame([(2, "ok", 11)], "id int, m string, s int") \
            .write.format("txlake").mode("append").save(f"{wh}/f")
    spark.createDataFrame([(2, "sad"), (3, "ok")], "id int, m string") \
        .write.format("txlake").mode("append").save(f"{wh}/f")
    assert engine.execute("SELECT id, m, s FROM f ORDER BY m").fetchall() == [
        (2, "sad", 5), (3, "ok", 5), (1, "happy", 7)]


def test_an_append_computes_generated_columns(engine, wh):
    """A Spark task computes a table's generated columns as an INSERT does, replacing values the
    DataFrame gives them; a computation error (22012) fails the job, NOT NULL (23502) too."""
    engine.execute("CREATE TABLE g (a INT, b INT GENERATED ALWAYS AS (a * 2) STORED, "
                   "c TEXT GENERATED ALWAYS AS (a || 'x') STORED NOT NULL, d INT GENERATED ALWAYS AS (10 / a) STORED)")
    only_a = T.StructType([T.StructField("a", T.IntegerType())])
    writer = TxlakeDataSource({"path": f"{wh}/g"}).writer(only_a, False)
    writer.commit([writer.write(iter([pa.record_batch([pa.array([1, 2], pa.int32())], names=["a"])]))])
    with_b = T.StructType([T.StructField("a", T.IntegerType()), T.StructField("b", T.IntegerType())])
    writer = TxlakeDataSource({"path": f"{wh}/g"}).writer(with_b, False)
    writer.commit([writer.write(iter([pa.record_batch([pa.array([5], pa.int32()), pa.array([99], pa.int32())],
                                                      names=["a", "b"])]))])
    assert engine.execute("SELECT * FROM g ORDER BY a").fetchall() == [(1, 2, "1x", 10), (2, 4, "2x", 5),
                                                                        (5, 10, "5x", 2)]
    writer = TxlakeDataSource({"path": f"{wh}/g"}).writer(only_a, False)
    with pytest.raises(txlake.DataError, match="division by zero"):
        writer.write(iter([pa.record_batch([pa.array([0], pa.int32())], names=["a"])]))
    with pytest.raises(txlake.IntegrityError, match='null value in column "c"'):
        writer.write(iter([pa.record_batch([pa.array([None], pa.int32())], names=["a"])]))


def test_a_renamed_table_is_read_and_written_by_its_new_name(spark, engine, wh):
    engine.execute("CREATE TABLE old_name (id SERIAL PRIMARY KEY, name TEXT)")
    engine.execute("INSERT INTO old_name (name) VALUES ('sql')")
    engine.execute("ALTER TABLE old_name RENAME TO new_name")
    spark.createDataFrame([("spark",)], "name string").write.format("txlake").mode("append").save(f"{wh}/new_name")
    assert sorted(r.name for r in spark.read.format("txlake").load(f"{wh}/new_name").collect()) == ["spark", "sql"]
    assert engine.execute("SELECT id, name FROM new_name ORDER BY id").fetchall() == [(1, "sql"), (2, "spark")]
    with pytest.raises(Exception, match='relation "default.old_name" does not exist'):
        spark.read.format("txlake").load(f"{wh}/old_name").collect()
