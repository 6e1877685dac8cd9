"""Spark reads and writes through the ``txlake`` data source vs Spark's own Parquet, same run.

For each size: write the same DataFrame with ``df.write.parquet`` and with
``df.write.format("txlake")`` (a commit into a new table), then read every column back with
``spark.read.parquet`` and ``spark.read.format("txlake")`` (materialised with the ``noop`` sink,
so nothing is skipped). Prints medians and the ratio native time / txlake time (higher is
better; 1.0 = as fast as Spark's built-in Parquet, target >= 0.8).

    python benchmarks/spark_io.py [--sizes 1000000,10000000] [--repeat 3]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time


def session():
    os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
    from pyspark.sql import SparkSession

    import txlake.spark
    spark = (SparkSession.builder.master("local[2]").appName("txlake-bench")
             .config("spark.ui.enabled", "false").config("spark.ui.showConsoleProgress", "false")
             .config("spark.driver.bindAddress", "127.0.0.1").config("spark.driver.host", "127.0.0.1")
             .config("spark.driver.memory", "4g").getOrCreate())
    spark.sparkContext.setLogLevel("ERROR")
    txlake.spark.register(spark)
    return spark


def timed(fn) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="1000000,10000000")
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    spark = session()
    root = tempfile.mkdtemp(prefix="txlake-spark-bench-")
    wh = os.path.join(root, "wh")
    try:
        # the first use of a Python data source starts its daemons (seconds): not measured
        spark.range(10).write.format("txlake").mode("append").save(f"{wh}/warmup")
        spark.read.format("txlake").load(f"{wh}/warmup").collect()
        rows = []
        for n in (int(s) for s in args.sizes.split(",")):
            df = spark.range(n).selectExpr("id", "CAST(id % 1000 AS INT) AS k", "concat('name-', id) AS s",
                                           "rand(7) AS d")
            times = {"write parquet": [], "write txlake": [], "read parquet": [], "read txlake": []}
            for r in range(args.repeat):
                pq_dir = os.path.join(root, f"pq-{n}-{r}")
                table = f"{wh}/t{n}_{r}"
                times["write parquet"].append(timed(lambda: df.write.mode("overwrite").parquet(pq_dir)))
                times["write txlake"].append(timed(lambda: df.write.format("txlake").mode("append").save(table)))
                times["read parquet"].append(timed(
                    lambda: spark.read.parquet(pq_dir).write.format("noop").mode("overwrite").save()))
                times["read txlake"].append(timed(
                    lambda: spark.read.format("txlake").load(table).write.format("noop").mode("overwrite").save()))
                shutil.rmtree(pq_dir)
            med = {k: statistics.median(v) for k, v in times.items()}
            rows.append((n, med))
        print(f"\nSpark local[2], {args.repeat} runs each, medians in seconds; ratio = native / txlake\n")
        print(f"{'rows':>11} | {'op':<6} | {'Spark parquet':>13} | {'txlake':>8} | {'ratio':>6}")
        print("-" * 57)
        for n, med in rows:
            for op in ("write", "read"):
                native, ours = med[f"{op} parquet"], med[f"{op} txlake"]
                print(f"{n:>11,} | {op:<6} | {native:>13.2f} | {ours:>8.2f} | {native / ours:>5.2f}x")
    finally:
        spark.stop()
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
