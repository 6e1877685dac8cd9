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


@pytest.fixture
def wh(tmp_path):
    return str(tmp_path / "wh")


@pytest.fixture
def engine(wh):
    conn = txlake.connect(wh, autocommit=True, publish="off")
    yield conn
    conn.close()


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
