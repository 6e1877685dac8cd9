"""What a Spark read of a txlake table returns, with a real SparkSession and real files."""

from __future__ import annotations

import pytest

pytestmark = pytest.mark.slow


@pytest.mark.parametrize("condition, expected", [
    ("d > 5000", [7]), ("d = double('NaN')", [7]), ("d >= double('NaN')", [7]),
    ("d <=> double('NaN')", [7]), ("d IN (double('NaN'), -1)", [7]), ("d > double('NaN')", []),
    ("d < double('NaN') AND id < 3", [0, 1, 2]),
])
def test_filters_on_nan_keep_its_rows(spark, engine, wh, condition, expected):
    """Spark orders NaN above every double (and NaN = NaN); Parquet min/max leave NaN out."""
    engine.execute("CREATE TABLE f (id INT, d DOUBLE)")
    # more rows than a commit keeps inline: a Parquet file, which pushdown may skip
    engine.execute("INSERT INTO f SELECT i, CASE WHEN i = 7 THEN 'NaN'::DOUBLE ELSE i END FROM range(1000) t(i)")
    df = spark.read.format("txlake").load(f"{wh}/f")
    assert sorted(r.id for r in df.filter(condition).collect()) == expected


def test_a_temporary_view_reads_the_snapshot_of_its_creation(spark, engine, wh):
    """Spark asks a Python source for the schema, the reader and the partitions once per view
    (as per DataFrame), so a view stays on the snapshot it was created at - even after its own
    INSERT or a REFRESH TABLE. Re-creating the view reads the newest."""
    engine.execute("CREATE TABLE acc (id INT)")
    engine.execute("INSERT INTO acc VALUES (1)")
    spark.sql(f"CREATE OR REPLACE TEMPORARY VIEW pinned USING txlake OPTIONS (path '{wh}/acc')")
    assert spark.sql("SELECT count(*) FROM pinned").first()[0] == 1
    spark.sql("INSERT INTO pinned VALUES (2)")
    engine.execute("INSERT INTO acc VALUES (3)")
    spark.sql("REFRESH TABLE pinned")
    assert spark.sql("SELECT count(*) FROM pinned").first()[0] == 1
    assert engine.execute("SELECT count(*) FROM acc").fetchone() == (3,)
    spark.sql(f"CREATE OR REPLACE TEMPORARY VIEW pinned USING txlake OPTIONS (path '{wh}/acc')")
    assert spark.sql("SELECT count(*) FROM pinned").first()[0] == 3


def test_filters_on_real_and_timestamptz_columns(spark, engine, wh):
    """Both may skip files by their statistics: a filter's answer is the same as without."""
    engine.execute("CREATE TABLE m (id INT, r REAL, at TIMESTAMPTZ)")
    for lo in (0, 1000):  # two Parquet files of disjoint ranges
        engine.execute(f"INSERT INTO m SELECT i, i / 10.0, TIMESTAMPTZ '2024-01-01 00:00:00+00' "
                       f"+ i * INTERVAL 1 MINUTE FROM range({lo}, {lo + 1000}) t(i)")
    df = spark.read.format("txlake").load(f"{wh}/m")
    zone = spark.conf.get("spark.sql.session.timeZone")
    spark.conf.set("spark.sql.session.timeZone", "Asia/Tokyo")
    try:
        assert sorted(r.id for r in df.filter("r > 199.85").collect()) == [1999]
        assert sorted(r.id for r in df.filter("r < 0.1").collect()) == [0]
        # 2024-01-01 09:00 in Tokyo is midnight UTC: minute 0 is id 0; minute 1999 is 09:19 UTC
        assert sorted(r.id for r in df.filter("at <= timestamp'2024-01-01 09:00:00'").collect()) == [0]
        assert sorted(r.id for r in df.filter("at >= timestamp'2024-01-02 18:19:00'").collect()) == [1999]
    finally:
        spark.conf.set("spark.sql.session.timeZone", zone)


def test_a_char_column_reads_padded_and_appends_are_stored_as_insert_stores_them(spark, engine, wh):
    """A CHAR(n) is stored without its trailing spaces (docs/storage.md); Spark reads it padded
    to n, as it reads its own CHAR(n), and its filters find the padded values (a file whose
    statistics are of the stored ones is not skipped by them). An append's values are fitted as
    INSERT fits them: 'b    ' into CHAR(3) is 'b', 'abcd' 22001."""
    engine.execute("CREATE TABLE c (id INT, k CHAR(3))")
    # more rows than a commit keeps inline: a Parquet file, which pushdown may skip
    engine.execute("INSERT INTO c SELECT i, CASE WHEN i % 2 = 0 THEN 'a' END FROM range(1000) t(i)")
    df = spark.read.format("txlake").load(f"{wh}/c")
    assert {r.k for r in df.filter("k = 'a  '").collect()} == {"a  "}
    assert df.filter("k = 'a  '").count() == 500 and df.filter("k = 'a'").count() == 0
    spark.sql("SELECT 1000 AS id, 'b    ' AS k").write.format("txlake").mode("append").save(f"{wh}/c")
    assert engine.execute("SELECT k, length(k), k = 'b' FROM c WHERE id = 1000").fetchall() == [("b  ", 1, True)]
    with pytest.raises(Exception, match="StringDataRightTruncation"):
        spark.sql("SELECT 1001 AS id, 'abcd' AS k").write.format("txlake").mode("append").save(f"{wh}/c")
