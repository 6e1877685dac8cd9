"""The column types beyond the first eight between txlake and Spark, both ways, with a real
SparkSession (its session time zone UTC) and real files."""

from __future__ import annotations

import datetime
import zoneinfo

import pytest

pytestmark = pytest.mark.slow

UTC = datetime.timezone.utc


def test_timestamptz_is_spark_s_timestamp_both_ways(spark, engine, wh):
    """A TIMESTAMPTZ column reads as Spark's TimestampType (the same instants); a DataFrame's
    TimestampType appends into it and makes a TIMESTAMPTZ column in a table the job creates."""
    engine.execute("CREATE TABLE ev (id INT, at TIMESTAMPTZ)")
    at = datetime.datetime(2024, 1, 2, 3, 4, 5, 123456, tzinfo=UTC)
    engine.execute("INSERT INTO ev VALUES (1, ?), (2, NULL)", (at.astimezone(zoneinfo.ZoneInfo("Asia/Tokyo")),))
    df = spark.read.format("txlake").load(f"{wh}/ev")
    assert [f.dataType.simpleString() for f in df.schema.fields] == ["int", "timestamp"]
    read = {r.id: r.at for r in df.collect()}  # (Spark gives naive datetimes in the driver's local zone)
    assert read[2] is None and read[1].astimezone(UTC) == at
    spark.createDataFrame([(3, at)], "id int, at timestamp").write.format("txlake").mode("append").save(f"{wh}/ev")
    assert engine.execute("SELECT at FROM ev WHERE id = 3").fetchone() == (at,)
    df.write.format("txlake").mode("overwrite").option("warehouse", wh).option("table", "default.copy").save()
    assert engine.execute("SELECT data_type FROM information_schema.columns WHERE table_name = 'copy' "
                          "AND column_name = 'at'").fetchone() == ("timestamp with time zone",)
    # (df reads the snapshot it was made at: without row 3)
    assert engine.execute("SELECT id, at FROM copy ORDER BY id").fetchall() == [(1, at), (2, None)]


def test_smallint_and_real_are_spark_s_short_and_float_both_ways(spark, engine, wh):
    engine.execute("CREATE TABLE n (s SMALLINT, r REAL)")
    engine.execute("INSERT INTO n VALUES (-32768, 0.1), (NULL, NULL)")
    df = spark.read.format("txlake").load(f"{wh}/n")
    assert [f.dataType.simpleString() for f in df.schema.fields] == ["smallint", "float"]
    assert sorted(df.collect(), key=lambda r: r.s is None) == [(-32768, pytest.approx(0.1)), (None, None)]
    spark.createDataFrame([(7, 2.5)], "s short, r float").write.format("txlake").mode("append").save(f"{wh}/n")
    with pytest.raises(Exception, match="smallint out of range"):  # (an int into a smallint: range-checked)
        spark.createDataFrame([(40000, 1.0)], "s int, r float").write.format("txlake").mode("append").save(f"{wh}/n")
    assert engine.execute("SELECT * FROM n ORDER BY s").fetchall() == [(-32768, 0.1), (7, 2.5), (None, None)]
    df.write.format("txlake").mode("overwrite").option("warehouse", wh).option("table", "default.copy").save()
    assert engine.execute("SELECT data_type FROM information_schema.columns WHERE table_name = 'copy' "
                          "ORDER BY ordinal_position").fetchall() == [("smallint",), ("real",)]


def test_bytea_is_spark_s_binary_both_ways(spark, engine, wh):
    engine.execute("CREATE TABLE b (id INT, v BYTEA)")
    engine.execute("INSERT INTO b VALUES (1, '\\x00ff'), (2, NULL)")
    df = spark.read.format("txlake").load(f"{wh}/b")
    assert [f.dataType.simpleString() for f in df.schema.fields] == ["int", "binary"]
    assert sorted((r.id, r.v if r.v is None else bytes(r.v)) for r in df.collect()) == [(1, b"\x00\xff"), (2, None)]
    spark.createDataFrame([(3, bytearray(b"ab"))], "id int, v binary").write.format("txlake").mode("append") \
        .save(f"{wh}/b")
    assert engine.execute("SELECT v FROM b WHERE id = 3").fetchone() == (b"ab",)
    df.write.format("txlake").mode("overwrite").option("warehouse", wh).option("table", "default.copy").save()
    assert engine.execute("SELECT data_type FROM information_schema.columns WHERE table_name = 'copy' "
                          "AND column_name = 'v'").fetchone() == ("bytea",)


def test_time_is_spark_s_time_both_ways(spark, engine, wh):
    engine.execute("CREATE TABLE tm (id INT, at TIME)")
    engine.execute("INSERT INTO tm VALUES (1, '01:02:03.456789'), (2, NULL)")
    df = spark.read.format("txlake").load(f"{wh}/tm")
    assert [f.dataType.simpleString() for f in df.schema.fields] == ["int", "time(6)"]
    assert sorted((r.id, r.at) for r in df.collect()) == [(1, datetime.time(1, 2, 3, 456789)), (2, None)]
    spark.createDataFrame([(3, datetime.time(4, 5))], "id int, at time(6)").write.format("txlake").mode("append") \
        .save(f"{wh}/tm")
    assert engine.execute("SELECT at FROM tm WHERE id = 3").fetchone() == (datetime.time(4, 5),)


def test_arrays_are_spark_s_array_type_both_ways(spark, engine, wh):
    """An ARRAY column reads as Spark's ArrayType of its element type (a file and inline rows);
    an ArrayType DataFrame column appends into it (element VARCHAR(n) enforced, an element type
    that does not go into the column's refused before any task) and makes an array column in a
    table the job creates."""
    engine.execute("CREATE TABLE arr (id INT, a INT[], s VARCHAR(3)[], n DECIMAL(5,2)[])")
    engine.execute("INSERT INTO arr SELECT i, ARRAY[i, NULL], ARRAY['x'], NULL FROM range(3, 1000) r(i)")
    engine.execute("""INSERT INTO arr VALUES (1, '{1,2}', '{"a b",NULL}', '{1.5}'), (2, NULL, '{}', NULL)""")
    df = spark.read.format("txlake").load(f"{wh}/arr")
    assert [f.dataType.simpleString() for f in df.schema.fields] == ["int", "array<int>", "array<string>",
                                                                     "array<decimal(5,2)>"]
    rows = {r.id: (r.a, r.s, r.n) for r in df.collect()}
    assert len(rows) == 999 and rows[3] == ([3, None], ["x"], None)
    assert rows[1][:2] == ([1, 2], ["a b", None]) and [float(v) for v in rows[1][2]] == [1.5]
    assert rows[2] == (None, [], None)
    assert df.filter("id = 1 AND a IS NOT NULL").count() == 1  # (no statistics of an array: never skipped by them)

    spark.createDataFrame([(5000, [7, None], ["q"])], "id int, a array<bigint>, s array<string>") \
        .write.format("txlake").mode("append").save(f"{wh}/arr")
    assert engine.execute("SELECT a, s FROM arr WHERE id = 5000").fetchone() == ([7, None], ["q"])
    with pytest.raises(Exception, match="character varying"):
        spark.createDataFrame([(5001, ["abcd"])], "id int, s array<string>").write.format("txlake") \
            .mode("append").save(f"{wh}/arr")
    with pytest.raises(Exception, match="42804|DatatypeMismatch|is of type INT"):
        spark.createDataFrame([(5002, ["x"])], "id int, a array<string>").write.format("txlake") \
            .mode("append").save(f"{wh}/arr")
    assert engine.execute("SELECT count(*) FROM arr WHERE id > 5000").fetchone() == (0,)

    df.write.format("txlake").mode("overwrite").option("warehouse", wh).option("table", "default.copy").save()
    assert engine.execute("SELECT column_name, udt_name FROM information_schema.columns WHERE table_name = 'copy' "
                          "ORDER BY ordinal_position").fetchall() == [("id", "int4"), ("a", "_int4"),
                                                                       ("s", "_text"), ("n", "_numeric")]
    assert engine.execute("SELECT a, s FROM copy WHERE id = 1").fetchone() == ([1, 2], ["a b", None])


def test_uuid_reads_as_spark_s_string(spark, engine, wh):
    """Spark has no uuid type: a uuid column reads as its canonical text."""
    engine.execute("CREATE TABLE u (id UUID PRIMARY KEY, n INT)")
    engine.execute("INSERT INTO u VALUES ('A0EEBC99-9C0B-4EF8-BB6D-6BB9BD380A11', 1)")
    engine.execute("INSERT INTO u (id, n) SELECT gen_random_uuid(), i FROM range(2, 5) r(i)")
    df = spark.read.format("txlake").load(f"{wh}/u")
    assert [f.dataType.simpleString() for f in df.schema.fields] == ["string", "int"]
    read = {r.n: r.id for r in df.collect()}
    assert read[1] == "a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11" and len(set(read.values())) == 4
    assert df.filter("id = 'a0eebc99-9c0b-4ef8-bb6d-6bb9bd380a11'").count() == 1


def test_json_and_jsonb_read_as_spark_s_string(spark, engine, wh):
    """Their text: jsonb's normalised, json's as given; Spark's own json functions read it."""
    engine.execute("CREATE TABLE j (id INT, doc JSONB, raw JSON)")
    engine.execute("""INSERT INTO j VALUES (1, '{"b":1,"a":[1, 2]}', '{"b":1,  "a":2}'), (2, NULL, NULL)""")
    df = spark.read.format("txlake").load(f"{wh}/j")
    assert [f.dataType.simpleString() for f in df.schema.fields] == ["int", "string", "string"]
    assert sorted(df.collect(), key=lambda r: r.id) == [(1, '{"a": [1, 2], "b": 1}', '{"b":1,  "a":2}'),
                                                        (2, None, None)]
    assert df.selectExpr("get_json_object(doc, '$.a[1]') AS v").where("v IS NOT NULL").collect()[0].v == "2"
