"""Options of the txlake Spark source: a bad value is refused with 22023 naming the option."""

from __future__ import annotations

import pytest

import txlake

pytestmark = pytest.mark.slow


@pytest.fixture
def wh(tmp_path):
    path = str(tmp_path / "wh")
    conn = txlake.connect(path, autocommit=True, publish="off")
    conn.execute("CREATE TABLE t (id INT)")
    conn.execute("INSERT INTO t VALUES (1)")
    conn.close()
    return path


@pytest.mark.parametrize("option, value", [
    ("snapshotId", "latest"), ("snapshotId", "1.5"), ("snapshotId", "0"),
    ("rowsPerPartition", "1M"), ("rowsPerPartition", "0"),
])
def test_bad_read_options(spark, wh, option, value):
    with pytest.raises(Exception, match=rf"InvalidParameterValue: .*{option}"):
        spark.read.format("txlake").option(option, value).load(f"{wh}/t").collect()


@pytest.mark.parametrize("option, value", [("commitTimeout", "soon"), ("commitTimeout", "-1"),
                                           ("commitTimeout", "nan"), ("publish", "later")])
def test_bad_write_options(spark, wh, option, value):
    with pytest.raises(Exception, match=rf"InvalidParameterValue: .*{option}"):
        spark.range(1).selectExpr("CAST(id AS INT) AS id").write.format("txlake").mode("append") \
            .option(option, value).save(f"{wh}/t")


def test_good_options(spark, wh):
    df = spark.read.format("txlake").option("snapshotId", 2).option("rowsPerPartition", "10").load(f"{wh}/t")
    assert [tuple(r) for r in df.collect()] == [(1,)]
    spark.range(2, 3).selectExpr("CAST(id AS INT) AS id").write.format("txlake").mode("append") \
        .option("commitTimeout", "2.5").save(f"{wh}/t")
    assert spark.read.format("txlake").load(f"{wh}/t").count() == 2
