"""The Spark writer's commit protocol and what an append stores, with a real SparkSession (or,
where Spark's part is only to call them, the writer's own methods) and real files."""

from __future__ import annotations

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
