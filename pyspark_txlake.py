"""Found by PySpark's automatic lookup of Python data sources (top-level ``pyspark_*`` modules
with a ``DefaultSource``): ``format("txlake")`` then works in any SparkSession."""

from txlake.spark.source import TxlakeDataSource as DefaultSource

__all__ = ["DefaultSource"]
