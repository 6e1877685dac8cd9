"""txlake for PySpark: ``spark.read.format("txlake")`` and ``df.write.format("txlake")``.

Register the source once per SparkSession::

    import txlake.spark
    txlake.spark.register(spark)

``register`` also turns on ``spark.sql.python.filterPushdown.enabled`` so that reads skip data
files whose Parquet statistics rule out a query's filters. Where PySpark finds Python data
sources by itself (an installed top-level module ``pyspark_txlake``), ``format("txlake")``
works without the call, without file skipping.
"""

from txlake.spark.source import PushdownDataSource, TxlakeDataSource

__all__ = ["TxlakeDataSource", "register"]


def register(spark) -> None:
    """Make ``format("txlake")`` available in ``spark`` (a SparkSession), with filter pushdown."""
    spark.conf.set("spark.sql.python.filterPushdown.enabled", "true")
    spark.dataSource.register(PushdownDataSource)
