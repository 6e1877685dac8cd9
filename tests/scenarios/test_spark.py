"""Spark jobs and engine sessions on the same tables, through the public APIs only: a real
local SparkSession (shared by the test run), real Python workers, real files."""

from __future__ import annotations

import datetime
import decimal
import glob
import os
import re
import threading
import time

import pytest

import txlake
from txlake.storage.fs import LocalFileSystem
from txlake.storage.txlog import TxLog
from tests.storage.test_published_paimon import check_all_snapshots

pytestmark = pytest.mark.slow

TYPES = ("a INT PRIMARY KEY, b BIGINT, c DOUBLE, d DECIMAL(12,3), e VARCHAR, f BOOLEAN, g DATE, h TIMESTAMP")
ROWS = [
    (1, 10_000_000_000, 1.5, decimal.Decimal("12.345"), "x", True, datetime.date(2024, 1, 2),
     datetime.datetime(2024, 1, 2, 3, 4, 5, 123456)),
    (2, None, None, None, None, None, None, None),
    (3, -1, -0.0, decimal.Decimal("-999999999.999"), "üñí ✓", False, datetime.date(1969, 12, 31),
     datetime.datetime(1900, 1, 1, 0, 0, 0)),
]


def spark_rows(df) -> list[tuple]:
    return sorted((tuple(r) for r in df.collect()), key=lambda r: r[0])


def data_files(path: str, table: str, db: str = "default") -> set[str]:
    return {os.path.basename(p) for p in glob.glob(os.path.join(path, f"{db}.db", table, "bucket-0", "data-*"))}


def spark_job_files(path: str, table: str) -> set[str]:
    """Files a Spark job's tasks wrote: data-<job hex>-<task>-<attempt>-<n>.parquet."""
    return {f for f in data_files(path, table) if re.match(r"data-[0-9a-f]{32}-\d+-\d+-\d+\.parquet$", f)}


@pytest.fixture
def wh(tmp_path):
    return str(tmp_path / "wh")


@pytest.fixture
def engine(wh):
    conn = txlake.connect(wh, autocommit=True, publish="sync")
    yield conn
    conn.close()


def test_engine_writes_spark_reads_identical(spark, engine, wh):
    engine.execute(f"CREATE TABLE t ({TYPES})")
    engine.cursor().executemany("INSERT INTO t VALUES (?, ?, ?, ?, ?, ?, ?, ?)", ROWS)
    engine.execute("DELETE FROM t WHERE a = 3")  # a deletion vector the reader must apply
    df = spark.read.format("txlake").load(f"{wh}/default.t")
    assert [f.dataType.simpleString() for f in df.schema.fields] == [
        "int", "bigint", "double", "decimal(12,3)", "string", "boolean", "date", "timestamp_ntz"]
    assert spark_rows(df) == sorted(engine.execute("SELECT * FROM t").fetchall())
    assert spark_rows(df) == ROWS[:2]


def test_spark_writes_engine_and_pypaimon_read_identical(spark, engine, wh):
    engine.execute(f"CREATE TABLE t ({TYPES})")
    df = spark.createDataFrame(ROWS, "a int, b bigint, c double, d decimal(12,3), e string, f boolean, "
                                     "g date, h timestamp_ntz")
    df.write.format("txlake").mode("append").save(f"{wh}/t")
    assert sorted(engine.execute("SELECT * FROM t").fetchall()) == ROWS
    # a new table, created by the job from the DataFrame's schema
    df.write.format("txlake").mode("overwrite").option("warehouse", wh).option("table", "default.copy").save()
    assert sorted(engine.execute("SELECT * FROM copy").fetchall()) == ROWS
    assert check_all_snapshots(wh, "t") >= 1
    assert check_all_snapshots(wh, "copy") >= 1


def test_overwrite_replaces_rows_and_append_adds(spark, engine, wh):
    engine.execute("CREATE TABLE t (id BIGINT, s VARCHAR)")
    engine.execute("INSERT INTO t VALUES (100, 'old')")
    spark.range(5).selectExpr("id", "cast(id AS string) AS s").write.format("txlake").mode("overwrite").save(f"{wh}/t")
    assert sorted(engine.execute("SELECT * FROM t").fetchall()) == [(i, str(i)) for i in range(5)]
    spark.range(5, 7).selectExpr("id").write.format("txlake").mode("append").save(f"{wh}/t")
    assert sorted(engine.execute("SELECT * FROM t").fetchall()) == [(i, str(i)) for i in range(5)] + [(5, None), (6, None)]


def test_reads_are_pinned_to_one_snapshot_and_time_travel(spark, engine, wh):
    engine.execute("CREATE TABLE t (id INT)")
    engine.execute("INSERT INTO t VALUES (1)")
    first = engine.execute("SELECT max(snapshot_id) FROM txlake_snapshots('t')").fetchone()[0]
    time.sleep(0.005)  # commit times have millisecond resolution
    before_second = datetime.datetime.now(datetime.timezone.utc)
    time.sleep(0.005)
    engine.execute("INSERT INTO t VALUES (2)")
    uncommitted = txlake.connect(wh, publish="off")
    uncommitted.execute("INSERT INTO t VALUES (99)")          # open, not committed
    uncommitted.execute("DELETE FROM t WHERE id = 1")
    df = spark.read.format("txlake").load(f"{wh}/t")
    assert spark_rows(df) == [(1,), (2,)], "a Spark read sees committed data only"
    uncommitted.rollback()
    uncommitted.close()
    engine.execute("INSERT INTO t VALUES (3)")
    assert spark_rows(df) == [(1,), (2,)], "a DataFrame keeps reading the snapshot it resolved"
    assert spark_rows(spark.read.format("txlake").load(f"{wh}/t")) == [(1,), (2,), (3,)]
    assert spark_rows(spark.read.format("txlake").option("snapshotId", str(first)).load(f"{wh}/t")) == [(1,)]
    old = spark.read.format("txlake").option("asOfTimestamp", before_second.isoformat()).load(f"{wh}/t")
    assert spark_rows(old) == [(1,)]
    with pytest.raises(Exception, match="InvalidParameterValue"):
        spark.read.format("txlake").option("snapshotId", "999").load(f"{wh}/t").collect()


def test_filters_and_many_files(spark, engine, wh):
    engine.execute("CREATE TABLE t (id BIGINT, grp INT)")
    for start in range(0, 6000, 1000):  # six commits, six files with disjoint id ranges
        engine.execute(f"INSERT INTO t SELECT i, i % 7 FROM range({start}, {start + 1000}) r(i)")
    engine.execute("DELETE FROM t WHERE id % 10 = 0")
    df = spark.read.format("txlake").option("rowsPerPartition", "1500").load(f"{wh}/t")
    assert df.rdd.getNumPartitions() == 3  # 900 visible rows per file, two files per task
    assert df.count() == 5400
    assert df.filter("id >= 2500 AND id < 2600").count() == 90
    assert df.filter("id = 4321").collect()[0]["grp"] == 4321 % 7
    assert df.filter("grp IN (1, 2) AND id > 5990").count() == sum(
        1 for i in range(5991, 6000) if i % 10 and i % 7 in (1, 2))
    assert df.filter("id IS NULL").count() == 0


def test_spark_sql_views_select_and_insert(spark, engine, wh):
    engine.execute("CREATE TABLE t (id BIGINT, s VARCHAR)")
    engine.execute("INSERT INTO t VALUES (1, 'a')")
    spark.sql(f"CREATE OR REPLACE TEMPORARY VIEW tx USING txlake OPTIONS (path '{wh}/t')")
    assert [tuple(r) for r in spark.sql("SELECT id, s FROM tx").collect()] == [(1, "a")]
    spark.sql("INSERT INTO tx SELECT 2, 'b'")
    assert sorted(engine.execute("SELECT * FROM t").fetchall()) == [(1, "a"), (2, "b")]
    spark.sql("INSERT OVERWRITE tx SELECT 3, 'c'")
    assert engine.execute("SELECT * FROM t").fetchall() == [(3, "c")]


def test_failed_job_leaves_nothing_visible_and_no_files(spark, engine, wh):
    engine.execute("CREATE TABLE t (id BIGINT)")
    engine.execute("INSERT INTO t VALUES (-1)")
    before = data_files(wh, "t")
    csn = TxLog(wh, LocalFileSystem()).newest_csn()
    df = spark.range(0, 4000, numPartitions=4).selectExpr(
        "CASE WHEN id = 3999 THEN raise_error('boom in the last task') ELSE id END AS id")
    with pytest.raises(Exception, match="boom in the last task"):
        df.write.format("txlake").mode("append").save(f"{wh}/t")
    assert engine.execute("SELECT * FROM t").fetchall() == [(-1,)]
    assert TxLog(wh, LocalFileSystem()).newest_csn() == csn
    # abort() removes the files of finished tasks; a task still running when the job failed
    # removes its own file when it sees the job's abort marker
    deadline = time.monotonic() + 30
    while spark_job_files(wh, "t") and time.monotonic() < deadline:
        time.sleep(0.1)
    assert not spark_job_files(wh, "t")
    assert data_files(wh, "t") == before


def test_constraint_violations_fail_the_job_cleanly(spark, engine, wh):
    engine.execute("CREATE TABLE t (id INT PRIMARY KEY, s VARCHAR(3) NOT NULL)")
    engine.execute("INSERT INTO t VALUES (1, 'one')")
    before = data_files(wh, "t")
    cases = [
        ("SELECT 1 AS id, 'dup' AS s", "UniqueViolation"),                           # key in the table
        ("SELECT 7 AS id, 'x' AS s UNION ALL SELECT 7, 'y'", "UniqueViolation"),      # key twice in the job
        ("SELECT 2 AS id, CAST(NULL AS string) AS s", "NotNullViolation"),
        ("SELECT 2 AS id, 'four' AS s", "StringDataRightTruncation"),
        ("SELECT 3000000000 AS id, 'big' AS s", "NumericValueOutOfRange"),
        ("SELECT 2 AS id, 'ab' AS s, 1 AS extra", "UndefinedColumn"),
        ("SELECT 'two' AS id, 'ab' AS s", "DatatypeMismatch"),
    ]
    for query, error in cases:
        with pytest.raises(Exception, match=error):
            spark.sql(query).write.format("txlake").mode("append").save(f"{wh}/t")
    assert engine.execute("SELECT * FROM t").fetchall() == [(1, "one")]
    assert data_files(wh, "t") == before
    with pytest.raises(Exception, match="UndefinedTable"):
        spark.read.format("txlake").load(f"{wh}/missing").collect()
    with pytest.raises(Exception, match="UndefinedTable"):
        spark.read.format("txlake").load(f"{wh}-nowhere/t").collect()


def test_unique_constraints_hold_for_spark_appends_and_overwrites(spark, engine, wh):
    """Spark's rows are checked at the COMMIT (storage/commit.py): against the table's rows
    and each other; an overwrite replaces the rows it is checked against."""
    engine.execute("CREATE TABLE t (id INT, code TEXT UNIQUE)")
    engine.execute("INSERT INTO t VALUES (1, 'a'), (2, NULL)")
    for query in ("SELECT 3 AS id, 'a' AS code", "SELECT 3 AS id, 'b' AS code UNION ALL SELECT 4, 'b'"):
        with pytest.raises(Exception, match="UniqueViolation"):
            spark.sql(query).write.format("txlake").mode("append").save(f"{wh}/t")
    spark.sql("SELECT 3 AS id, CAST(NULL AS string) AS code UNION ALL SELECT 4, 'b'").write.format(
        "txlake").mode("append").save(f"{wh}/t")
    spark.sql("SELECT 5 AS id, 'a' AS code").write.format("txlake").mode("overwrite").save(f"{wh}/t")
    assert engine.execute("SELECT * FROM t").fetchall() == [(5, "a")]


def test_label_makes_a_job_exactly_once(spark, engine, wh):
    engine.execute("CREATE TABLE t (id BIGINT)")
    df = spark.range(10)
    df.write.format("txlake").mode("append").option("label", "load-2026-11-23").save(f"{wh}/t")
    files = data_files(wh, "t")
    with pytest.raises(Exception, match=r"DuplicateObject: label \"load-2026-11-23\" is already used by commit"):
        df.write.format("txlake").mode("append").option("label", "load-2026-11-23").save(f"{wh}/t")
    assert engine.execute("SELECT count(*) FROM t").fetchone() == (10,)
    assert data_files(wh, "t") == files
    df.write.format("txlake").mode("append").option("label", "load-2026-11-24").save(f"{wh}/t")
    assert engine.execute("SELECT count(*) FROM t").fetchone() == (20,)


def test_engine_transaction_and_spark_overwrite_on_the_same_rows(spark, connect, wh):
    setup = connect(autocommit=True)
    setup.execute("CREATE TABLE t (id BIGINT, v INT)")
    setup.execute("INSERT INTO t SELECT i, 0 FROM range(100) r(i)")
    # 1. the engine transaction is open when Spark commits: the engine's COMMIT fails
    session = connect()
    session.execute("UPDATE t SET v = 1 WHERE id = 5")
    spark.range(100).selectExpr("id", "2 AS v").write.format("txlake").mode("overwrite").save(f"{wh}/t")
    with pytest.raises(txlake.SerializationFailure):
        session.commit()
    assert setup.execute("SELECT DISTINCT v FROM t").fetchall() == [(2,)]


def _commit_engine_update(wh: str):
    """A mapInArrow function: before its first batch, commit an engine UPDATE from the Spark
    task's process (after the writer took its snapshot, before the driver's commit)."""
    def run(batches):
        marker = os.path.join(wh, "updated-once")
        try:
            fd = os.open(marker, os.O_CREAT | os.O_EXCL)
            os.close(fd)
            conn = txlake.connect(wh, autocommit=True, publish="off")
            conn.execute("UPDATE t SET v = 9 WHERE id = 5")
            conn.close()
        except FileExistsError:
            pass
        yield from batches
    return run


def test_engine_commit_during_a_spark_overwrite_fails_the_job(spark, engine, wh):
    engine.execute("CREATE TABLE t (id BIGINT, v INT)")
    engine.execute("INSERT INTO t SELECT i, 0 FROM range(100) r(i)")
    df = spark.range(100).selectExpr("id", "CAST(3 AS INT) AS v").mapInArrow(
        _commit_engine_update(wh), "id bigint, v int")
    with pytest.raises(Exception, match="SerializationFailure"):
        df.write.format("txlake").mode("overwrite").save(f"{wh}/t")
    assert engine.execute("SELECT v, count(*) FROM t GROUP BY v ORDER BY v").fetchall() == [(0, 99), (9, 1)]
    assert not spark_job_files(wh, "t"), "the failed job's files are gone"


def test_concurrent_spark_appends_both_land(spark, engine, wh):
    engine.execute("CREATE TABLE t (id BIGINT)")
    errors = []

    def job(start):
        # a registered Python source is found through the JVM's active session, per thread
        spark._jvm.SparkSession.setActiveSession(spark._jsparkSession)
        try:
            spark.range(start, start + 1000).write.format("txlake").mode("append").save(f"{wh}/t")
        except Exception as e:  # pragma: no cover - reported below
            errors.append(e)

    threads = [threading.Thread(target=job, args=(i * 1000,)) for i in range(3)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, [str(e)[:1500] for e in errors]
    assert engine.execute("SELECT count(*), count(DISTINCT id) FROM t").fetchone() == (3000, 3000)


AUTO_REGISTERED = r"""
import os, sys
os.environ["PYSPARK_PYTHON"] = sys.executable
from pyspark.sql import SparkSession
spark = (SparkSession.builder.master("local[1]").config("spark.ui.enabled", "false")
         .config("spark.driver.bindAddress", "127.0.0.1").config("spark.driver.host", "127.0.0.1")
         .getOrCreate())
spark.sparkContext.setLogLevel("OFF")
print(sorted(tuple(r) for r in spark.read.format("txlake").load(sys.argv[1] + "/t").collect()))
spark.stop()
"""


@pytest.mark.xdist_group("spark")  # (its own SparkSession, in a child: not beside the other worker's)
def test_pyspark_finds_the_source_without_register(engine, wh):
    """PySpark's lookup imports top-level ``pyspark_*`` modules on its path (an installed
    package puts ``pyspark_txlake`` there; here the checkout is on PYTHONPATH)."""
    from tests.conftest import run_python
    engine.execute("CREATE TABLE t (id INT)")
    engine.execute("INSERT INTO t VALUES (1), (2)")
    out = run_python(AUTO_REGISTERED, wh, timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    assert out.stdout.strip().splitlines()[-1] == "[(1,), (2,)]"


def test_a_running_job_keeps_its_snapshot_from_expiry(spark, engine, wh):
    engine.execute("CREATE TABLE t (id BIGINT)")
    engine.execute("INSERT INTO t SELECT i FROM range(1000) r(i)")   # a real Parquet file
    df = spark.read.format("txlake").load(f"{wh}/t")
    assert df.count() == 1000                                         # planned and read: leased
    engine.execute("DELETE FROM t")
    engine.execute("INSERT INTO t VALUES (1)")
    engine.execute("CALL txlake.expire_snapshots(retain_last => 1)")
    assert len(data_files(wh, "t")) >= 1
    assert df.count() == 1000, "the job's snapshot is still readable"
    leases = os.listdir(os.path.join(wh, "_readers"))
    assert any(name.startswith("spark-") for name in leases)


def test_interval_columns_read_and_written_as_postgresql_text(spark, engine, wh):
    """An interval column is PostgreSQL's text of the value to Spark (a string: Spark's own
    interval types hold either months or a duration, not both); a string written into one is
    read by PostgreSQL's interval input, and a read table written back holds the same values."""
    engine.execute("CREATE TABLE t (id INT, d INTERVAL)")
    engine.execute("INSERT INTO t VALUES (1, '1 year 2 mons -3 days +04:05:06.5'), (2, NULL), (3, '36:00:00')")
    df = spark.read.format("txlake").load(f"{wh}/t")
    assert [f.dataType.simpleString() for f in df.schema.fields] == ["int", "string"]
    assert spark_rows(df) == [(1, "1 year 2 mons -3 days +04:05:06.5"), (2, None), (3, "36:00:00")]
    engine.execute("CREATE TABLE t2 (id INT, d INTERVAL)")
    df.write.format("txlake").mode("append").save(f"{wh}/t2")
    spark.sql("SELECT 4 AS id, 'P1Y2M' AS d").write.format("txlake").mode("append").save(f"{wh}/t2")
    assert engine.execute("SELECT id, d, d::text FROM t2 WHERE id < 4 ORDER BY id").fetchall() == \
        engine.execute("SELECT id, d, d::text FROM t ORDER BY id").fetchall()
    assert engine.execute("SELECT d::text FROM t2 WHERE id = 4").fetchall() == [("1 year 2 mons",)]
    with pytest.raises(Exception, match="invalid input syntax for type interval"):
        spark.sql("SELECT 5 AS id, 'abc' AS d").write.format("txlake").mode("append").save(f"{wh}/t2")
    assert engine.execute("SELECT count(*) FROM t2").fetchone() == (4,)


def test_inet_columns_read_and_written_as_postgresql_text(spark, engine, wh):
    """An inet or cidr column is PostgreSQL's text of the value to Spark (a string); a string
    written into one is read by PostgreSQL's input (10.1.2.3/32 is 10.1.2.3; a cidr's bits right
    of its mask 22P02, nothing of the job committed)."""
    engine.execute("CREATE TABLE t (id INT, ip INET, net CIDR)")
    engine.execute("INSERT INTO t VALUES (1, '10.1.2.3/32', '10.1/16'), (2, NULL, NULL), "
                   "(3, '::ffff:1.2.3.4/64', '::/0')")
    df = spark.read.format("txlake").load(f"{wh}/t")
    assert [f.dataType.simpleString() for f in df.schema.fields] == ["int", "string", "string"]
    assert spark_rows(df) == [(1, "10.1.2.3", "10.1.0.0/16"), (2, None, None), (3, "::ffff:1.2.3.4/64", "::/0")]
    engine.execute("CREATE TABLE t2 (id INT, ip INET, net CIDR)")
    df.write.format("txlake").mode("append").save(f"{wh}/t2")
    spark.sql("SELECT 4 AS id, '192.168.0.1/32' AS ip, '192.168' AS net").write.format("txlake").mode("append") \
        .save(f"{wh}/t2")
    assert engine.execute("SELECT id, ip, net FROM t2 WHERE id < 4 ORDER BY id").fetchall() == \
        engine.execute("SELECT id, ip, net FROM t ORDER BY id").fetchall()
    assert engine.execute("SELECT ip::text, net::text FROM t2 WHERE id = 4").fetchall() == [
        ("192.168.0.1/32", "192.168.0.0/24")]
    with pytest.raises(Exception, match="invalid cidr value"):
        spark.sql("SELECT 5 AS id, '1.2.3.4' AS ip, '1.2.3.4/8' AS net").write.format("txlake").mode("append") \
            .save(f"{wh}/t2")
    assert engine.execute("SELECT count(*) FROM t2").fetchone() == (4,)
