"""The fits over partitions that compile the kernels :mod:`engine.scale` runs.

The one-time compile (:mod:`engine.compile_child`) runs them after
:func:`engine.compiling.warmup.warm_up`, on the same small tables, so that a fit on a
Dask cluster sharing this machine's kernel folder compiles nothing in its workers.
"""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd

from engine.compiling import warmup
from engine.monitor import Monitor
from engine.scale.cluster import InProcess
from engine.scale.source import describe, scan
from engine.scale.training import fit_partitions
from engine.settings import resolve

#: Fits over partitions: every kernel the partition tasks run on a
#: worker (routing, histograms, gathered subtrees, held-out sums, bin ranges) and the driver
#: scores with, on three partitions of each table. With a leaf limit a node of 1,024 rows
#: is summed into histograms, so these small tables use both paths.
PARTITION_FITS = (
    ("missing", {"algorithm": "cart", "max_leaves": 16}),  # alpha on held-out rows
    ("missing", {"algorithm": "c45", "max_leaves": 12}),
    ("missing", {"algorithm": "cart", "prune": "none", "max_depth": 4}),  # gathered whole
    ("regression", {"algorithm": "cart", "task": "regression", "max_leaves": 12}),
    ("many", {"algorithm": "cart", "prune": "none", "max_leaves": 8}),  # two-byte codes,
    ("many", {"algorithm": "c45", "max_leaves": 8}),  # scored as a table, not in bins
)


def warm_up_partitions(check=lambda: None) -> None:
    """Run :data:`PARTITION_FITS` over partitions, their tasks in this process
    (:class:`engine.scale.cluster.InProcess`) on CSV files of the warm-up tables: the same
    functions make the same arrays as on a worker, so a fit on a Dask cluster sharing this
    machine's kernel folder compiles nothing in its workers (a minute in each, before)."""
    frames = {name: table.frame for name, table in warmup.tables().items()}
    frames["many"] = _many_categories()
    folder = Path(tempfile.mkdtemp(prefix="arbor-warm-up-"))
    try:
        for name in {name for name, _ in PARTITION_FITS}:
            for k in range(3):
                frames[name].to_csv(folder / f"{name}.{k}.csv", index=False)
        cluster = InProcess()
        for name, options in PARTITION_FITS:
            check()
            dataset = scan(describe(str(folder / f"{name}.*.csv")), cluster.map, "y")
            fit_partitions(dataset, resolve(**options), cluster, Monitor())
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _many_categories() -> pd.DataFrame:
    """A nominal attribute of 300 categories: histogram codes of two bytes."""
    rng = np.random.default_rng(1)
    key = rng.integers(0, 300, warmup.ROWS)
    x = rng.normal(size=warmup.ROWS).round(2)
    return pd.DataFrame(
        {
            "key": [f"k{v}" for v in key],
            "x": x,
            "y": np.where((key % 3 == 0) ^ (x > 0.5), "yes", "no"),
        }
    )
