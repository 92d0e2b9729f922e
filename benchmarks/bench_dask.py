"""Training over partitions on Dask against the in-memory histogram splitter, in one run.

    python benchmarks/bench_dask.py                    # 10,000,000 rows: memory vs dask (2 workers),
                                                       # and dask on 1 worker (scaling)
    python benchmarks/bench_dask.py --rows 1000000     # a quicker look
    python benchmarks/bench_dask.py big --folder /work/bigdata --rows 100000000
                                                       # 100M rows of 32 attributes written to
                                                       # Parquet (larger than memory as float64),
                                                       # trained at depth 10; peak memory of the
                                                       # driver and of every worker
    python benchmarks/bench_dask.py big --folder /tmp/b5m --rows 5000000 --memory 1.5GiB
                                                       # the same, smaller: workers limited
                                                       # so the values go to their disks;
                                                       # time before growth and per pass,
                                                       # CPU of the driver and each worker

Data: the CART benchmark's generator (10 numeric and 5 small-integer attributes, 3 noisy
classes; ``big`` adds 17 more numeric columns), written to Parquet in files of a million
rows (an eighth of a smaller table). In memory: the files read with pandas and
``make_table``, then a fit with ``--splitter histogram``; over partitions:
``fit_partitions`` on a LocalCluster of worker processes (started before the clock)
reading the same files. Both CART, Gini, unpruned, at depth ``--depth`` (default 12).
The ratio is dask / memory. Also printed: the largest histogram sum one pass sent to the
driver (open leaves x attributes x bins x classes x 8 bytes).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import resource
import shutil
import sys
import tempfile
import threading
import time
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

PART_ROWS = 1_000_000


def part_rows(rows: int) -> int:
    """Rows per file: a million, or an eighth of a smaller table (several partitions to sum)."""
    return max(min(PART_ROWS, rows // 8), 1)


def generate(folder: Path, rows: int, extra: int = 0, seed: int = 0) -> None:
    """Write ``rows`` rows to ``folder`` as Parquet files of ``part_rows(rows)`` rows each."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    folder.mkdir(parents=True, exist_ok=True)
    size = part_rows(rows)
    for k, start in enumerate(range(0, rows, size)):
        n = min(size, rows - start)
        rng = np.random.default_rng([seed, k])
        numeric = rng.normal(size=(n, 10))
        nominal = rng.integers(0, 5, size=(n, 5)).astype(np.float64)
        signal = (
            numeric[:, 0]
            + numeric[:, 1] * numeric[:, 2]
            + 0.4 * nominal[:, 0]
            - 0.3 * (nominal[:, 1] == 2)
        )
        y = np.digitize(signal + rng.normal(scale=0.8, size=n), [-0.6, 0.6])
        columns = {f"n{i}": numeric[:, i] for i in range(10)}
        columns.update({f"c{i}": nominal[:, i] for i in range(5)})
        for i in range(extra):
            columns[f"x{i}"] = rng.normal(size=n)
        columns["y"] = np.array(["a", "b", "c"])[y]
        pq.write_table(
            pa.table(columns), folder / f"part.{k:05d}.parquet", row_group_size=max(size // 4, 1)
        )


def in_memory(folder: Path, depth: int | None):
    """Read the files whole and fit with ``--splitter histogram``: (tree, read s, fit s)."""
    from engine.data.table import make_table
    from engine.estimator import DecisionTree

    started = time.perf_counter()
    table = make_table(pd.read_parquet(folder), "y")
    read = time.perf_counter() - started
    model = DecisionTree(algorithm="cart", splitter="histogram", prune="none", max_depth=depth)
    model.fit(table)
    return model.tree_, read, time.perf_counter() - started - read


def over_partitions(
    folder: Path,
    depth: int | None,
    workers: int,
    memory_limit=None,
    watch: bool = False,
    passes: list | None = None,
):
    """A fit over partitions; ``passes`` (a list) gets each growth pass's start time."""
    from engine.monitor import Monitor
    from engine.scale.cluster import Cluster
    from engine.scale.source import describe, scan
    from engine.scale.training import fit_partitions
    from engine.settings import resolve

    settings = resolve(algorithm="cart", splitter="histogram", prune="none", max_depth=depth)
    with Cluster(n_workers=workers, memory_limit=memory_limit) as cluster:
        _warm(cluster, settings)
        peaks = _watch_workers(cluster) if watch else None
        cpu = _cpu_seconds(cluster)
        started = time.perf_counter()
        dataset = scan(describe(str(folder)), cluster.map, "y")
        monitor = Monitor(
            lambda fraction, message: (
                passes.append(time.perf_counter() - started)
                if passes is not None and message.startswith("pass ")
                else None
            )
        )
        tree, facts = fit_partitions(dataset, settings, cluster, monitor)
        seconds = time.perf_counter() - started
        cpu = [after - before for before, after in zip(cpu, _cpu_seconds(cluster), strict=True)]
        worker_peaks = peaks() if peaks else None
    return tree, seconds, facts, worker_peaks, cpu


def _cpu_seconds(cluster) -> list[float]:
    """CPU seconds so far of this process (the driver, with the scheduler's thread), then of
    each worker process: on a shared machine the wall time says little, these say the work."""
    import psutil

    pids = sorted(cluster.client.run(os.getpid).values())
    times = [psutil.Process().cpu_times()] + [psutil.Process(pid).cpu_times() for pid in pids]
    return [t.user + t.system for t in times]


def _warm(cluster, settings) -> None:
    """A small fit on every worker first: imports, and the partition kernels compiled (once
    per machine, then loaded from the kernel folder), off the clock as the cluster's start."""
    from engine.scale.source import describe, scan
    from engine.scale.training import fit_partitions

    folder = Path(tempfile.mkdtemp(prefix="arbor-bench-warm-"))
    try:
        generate(folder, 40_000 * max(cluster.n_workers, 1))
        fit_partitions(scan(describe(str(folder)), cluster.map, "y"), settings, cluster)
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _watch_workers(cluster):
    """Sample the resident memory of this process (the driver) and of every worker process
    until asked for the peaks: the driver's first, then the workers' in order."""
    import psutil

    pids = [os.getpid()] + list(cluster.client.run(os.getpid).values())
    peak = dict.fromkeys(pids, 0)
    stop = threading.Event()

    def sample():
        while not stop.is_set():
            for pid in pids:
                with contextlib.suppress(psutil.Error):  # a worker restarting
                    peak[pid] = max(peak[pid], psutil.Process(pid).memory_info().rss)
            time.sleep(0.2)

    thread = threading.Thread(target=sample, daemon=True)
    thread.start()

    def peaks():
        stop.set()
        thread.join()
        return [peak[pids[0]]] + sorted(peak[pid] for pid in pids[1:])

    return peaks


def compare(args) -> None:
    from engine.compiling.lifecycle import compile_kernels

    compile_kernels()
    folder = Path(args.folder) if args.folder else Path(tempfile.mkdtemp(prefix="arbor-bench-"))
    try:
        if not any(folder.glob("*.parquet")):
            print(f"writing {args.rows:,} rows to {folder} ...", flush=True)
            generate(folder, args.rows)
        print(
            f"{args.rows:,} rows, depth {args.depth}, Gini, histogram (255 bins), "
            f"{len(list(folder.glob('*.parquet')))} partitions; {os.cpu_count()} cores"
        )
        for _ in range(args.repeat):
            print(f"load average {_load()}", flush=True)
            cpu = time.process_time()
            mem_tree, read, fit = in_memory(folder, args.depth)
            total = read + fit
            print(
                f"in memory: read {read:.1f} s + fit {fit:.1f} s = {total:.1f} s "
                f"(CPU {time.process_time() - cpu:.1f} s), {mem_tree.n_leaves} leaves",
                flush=True,
            )
            for workers in args.workers:
                print(f"load average {_load()}", flush=True)
                tree, seconds, facts, _, cpu = over_partitions(folder, args.depth, workers)
                same = _same(tree, mem_tree)
                print(
                    f"dask, {workers} worker(s): {seconds:.1f} s ({seconds / total:.2f}x "
                    f"memory's read+fit, {seconds / fit:.2f}x its fit), CPU driver "
                    f"{cpu[0]:.1f} s + workers "
                    + " + ".join(f"{c:.1f}" for c in cpu[1:])
                    + f" s, {facts.passes} passes, {tree.n_leaves} leaves, same tree as in "
                    f"memory: {same}; largest pass {facts.largest_pass_bytes / 2**20:.1f} MiB "
                    "of histograms",
                    flush=True,
                )
    finally:
        if not args.folder:
            shutil.rmtree(folder, ignore_errors=True)


def _load() -> str:
    """The 1, 5 and 15 minute load averages (a shared machine: figures under load say so)."""
    return ", ".join(f"{x:.2f}" for x in os.getloadavg())


def _same(a, b) -> bool:
    """Same splits, thresholds and class counts, node for node."""
    x, y = list(a.root.walk()), list(b.root.walk())
    return len(x) == len(y) and all(
        (p.split is None) == (q.split is None)
        and np.array_equal(p.distribution, q.distribution)
        and (
            p.split is None
            or (p.split.attribute == q.split.attribute and p.split.threshold == q.split.threshold)
        )
        for p, q in zip(x, y, strict=True)
    )


def big(args) -> None:
    from engine.compiling.lifecycle import compile_kernels

    compile_kernels()  # as 'python main.py compile' does, before the workers start
    folder = Path(args.folder)
    if not any(folder.glob("*.parquet")):
        free = shutil.disk_usage(folder.parent if folder.parent.exists() else "/").free
        need = args.rows * 33 * 8
        if need > 0.8 * free:
            sys.exit(f"{need / 2**30:.0f} GiB needed, {free / 2**30:.0f} GiB free")
        print(f"writing {args.rows:,} rows of 32 attributes to {folder} ...", flush=True)
        started = time.perf_counter()
        generate(folder, args.rows, extra=17)
        print(
            f"written in {time.perf_counter() - started:.0f} s "
            f"({sum(p.stat().st_size for p in folder.glob('*.parquet')) / 2**30:.1f} GiB on disk; "
            f"{args.rows * 33 * 8 / 2**30:.1f} GiB as float64)",
            flush=True,
        )
    # The process's lifetime peak includes writing the files; the fit's own is sampled.
    lifetime = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    starts: list = []
    tree, seconds, facts, peaks, cpu = over_partitions(
        folder, args.depth, args.workers[0], args.memory, watch=True, passes=starts
    )
    driver, peaks = peaks[0], peaks[1:]
    print(
        f"{facts.rows:,} rows in {facts.partitions} partitions, depth {args.depth}: "
        f"{seconds:.0f} s, {facts.passes} passes, {tree.n_leaves} leaves; rows "
        f"{'kept in memory' if facts.kept_in_memory else 'coded; values in the workers files'}"
        f" (load {_load()})"
    )
    print(  # on a shared machine the wall time says little, the CPU time says the work
        f"CPU: driver {cpu[0]:.1f} s, workers " + ", ".join(f"{c:.1f}" for c in cpu[1:]) + " s"
    )
    if starts:  # growth passes: from the first one's start to the tree grown
        grown = len(starts)
        print(
            f"before growth (scan, reading, binning, coding): {starts[0]:.1f} s; "
            f"{grown} growth passes and the rest: {seconds - starts[0]:.1f} s "
            f"({(seconds - starts[0]) / grown:.2f} s a pass)"
        )
    if args.save_tree:  # to compare the trees of two versions, node for node
        import json

        shape = [
            [n.split.attribute, n.split.threshold] if n.split else list(n.distribution)
            for n in tree.root.walk()
        ]
        Path(args.save_tree).write_text(json.dumps(shape))
    print(
        f"peak memory during the fit: driver {driver / 2**30:.2f} GiB (its peak before, "
        f"writing or reading the files: {lifetime / 2**30:.2f} GiB); workers "
        + ", ".join(f"{p / 2**30:.2f}" for p in peaks)
        + " GiB"
    )
    print(f"largest pass: {facts.largest_pass_bytes / 2**20:.1f} MiB of histograms")
    if args.delete:
        shutil.rmtree(folder, ignore_errors=True)
        print(f"deleted {folder}")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("mode", nargs="?", choices=("compare", "big"), default="compare")
    parser.add_argument("--rows", type=int, default=10_000_000)
    parser.add_argument("--depth", type=int, default=None)
    parser.add_argument("--workers", type=int, nargs="+", default=None)
    parser.add_argument("--folder", help="where the Parquet files are (or are written)")
    parser.add_argument("--delete", action="store_true", help="big: delete the files afterwards")
    parser.add_argument(
        "--memory",
        default="4GiB",
        help="big: each worker's memory limit (smaller than the table: values spilled to disk)",
    )
    parser.add_argument("--save-tree", help="big: write the tree's splits and counts as JSON")
    parser.add_argument(
        "--repeat",
        type=int,
        default=1,
        help="compare: run the comparison this many times (noisy machines)",
    )
    args = parser.parse_args()
    if args.mode == "big":
        args.depth = args.depth or 10
        args.workers = args.workers or [2]
        if not args.folder:
            sys.exit("big needs --folder (on a disk with room for the files)")
        big(args)
    else:
        args.depth = args.depth or 12
        args.workers = args.workers or [2, 1]
        compare(args)


if __name__ == "__main__":
    main()
