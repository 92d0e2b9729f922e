"""CART fit time, tree quality and peak memory: Arbor (exact and histogram) against scikit-learn.

    python benchmarks/bench_cart.py             # 10,000 / 100,000 / 1,000,000 rows (~10 min)
    python benchmarks/bench_cart.py --quick     # 10,000 and 100,000 rows, one run, no memory
    python benchmarks/bench_cart.py --sizes 100000 --runs 5
    python benchmarks/bench_cart.py --sizes 300000 1000000 --depths 12 --classes 4 --missing 0.1

Data: 10 numeric and 5 ordinal-coded nominal attributes (integers 0-4), 3 classes (or
``--classes``) with noise; ``--missing`` blanks that share of the cells (each at random),
after the classes are drawn. The holdout set is 20,000 more rows from the same generator.
Both libraries fit the same rows in the same process, runs interleaved; the table shows
medians and the ratio ours / scikit-learn. scikit-learn fits the array with NaN in place of
missing values (its trees handle them natively); ours, the table with blank cells. Our
time includes encoding the table; scikit-learn's includes its conversion to float32. Peak
memory is the rise of the process's peak resident set during one fit, each fit in a fresh
subprocess (Linux).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import time
from functools import partial
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from engine.compiling.lifecycle import compile_kernels  # noqa: E402
from engine.data.table import make_table  # noqa: E402
from engine.estimator import DecisionTree  # noqa: E402

SPLITTERS = ("exact", "histogram")


#: Class boundaries on the noisy signal (3 classes: the figures in benchmarks/README.md).
CUTS = {2: [0.0], 3: [-0.6, 0.6], 4: [-0.9, 0.0, 0.9], 5: [-1.2, -0.4, 0.4, 1.2]}


def make_data(n: int, seed: int = 0, classes: int = 3, missing: float = 0.0):
    rng = np.random.default_rng(seed)
    numeric = rng.normal(size=(n, 10)).astype(np.float32).astype(np.float64)
    nominal = rng.integers(0, 5, size=(n, 5)).astype(np.float64)
    signal = (
        numeric[:, 0]
        + numeric[:, 1] * numeric[:, 2]
        + 0.4 * nominal[:, 0]
        - 0.3 * (nominal[:, 1] == 2)
    )
    y = np.digitize(signal + rng.normal(scale=0.8, size=n), CUTS[classes])
    X = np.hstack([numeric, nominal])
    if missing:
        X[rng.random(X.shape) < missing] = np.nan
    frame = pd.DataFrame(X, columns=[f"n{i}" for i in range(10)] + [f"c{i}" for i in range(5)])
    labels = [chr(ord("a") + k) for k in range(classes)]
    frame["y"] = pd.Categorical(np.array(labels)[y], categories=labels)
    return X, y, frame


def fitter(who: str, n: int, depth: int | None, classes: int = 3, missing: float = 0.0):
    """A zero-argument fit on freshly generated data (used by the memory subprocess)."""
    X, y, frame = make_data(n, classes=classes, missing=missing)
    if who == "sklearn":
        return partial(_fit_sklearn, X, y, depth)
    return partial(_fit_ours, make_table(frame), depth, who)


def _fit_sklearn(X, y, depth):
    from sklearn.tree import DecisionTreeClassifier

    return DecisionTreeClassifier(max_depth=depth, random_state=0).fit(X, y)


def _fit_ours(table, depth, splitter):
    # Unpruned, as scikit-learn's default (Arbor's CART default prunes, alpha chosen by CV).
    return DecisionTree(algorithm="cart", prune="none", max_depth=depth, splitter=splitter).fit(
        table
    )


def _resident() -> int:
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def _peak() -> int:
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmHWM"):
                return int(line.split()[1]) * 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def memory_child(who: str, n: int, depth: int | None, classes: int, missing: float) -> None:
    compile_kernels()
    warm = fitter(who, 3000, 2, classes, missing)
    warm()  # libraries and compiled kernels loaded before measuring
    fit = fitter(who, n, depth, classes, missing)
    del warm
    before = _resident()
    try:  # reset the peak to the current size (Linux >= 4.0)
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
    except OSError:
        pass
    fit()
    print(json.dumps({"peak_mb": (_peak() - before) / 2**20}))


def peak_memory(who: str, n: int, depth: int | None, classes: int, missing: float) -> float:
    # Big blocks straight from and back to the system, so the resident set follows what is
    # live (glibc otherwise keeps freed blocks up to 32 MB for reuse, hiding small fits).
    env = dict(os.environ, MALLOC_MMAP_THRESHOLD_="65536", MALLOC_TRIM_THRESHOLD_="65536")
    out = subprocess.run(
        [
            sys.executable,
            __file__,
            "--memory-child",
            who,
            str(n),
            str(depth or 0),
            str(classes),
            str(missing),
        ],
        capture_output=True,
        text=True,
        check=True,
        env=env,
    ).stdout
    return json.loads(out.strip().splitlines()[-1])["peak_mb"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--quick", action="store_true", help="10,000 and 100,000 rows, one run, no memory"
    )
    parser.add_argument("--sizes", type=int, nargs="*", help="row counts (default 10k 100k 1M)")
    parser.add_argument("--runs", type=int, help="timed runs per configuration (default 5/3/3)")
    parser.add_argument(
        "--depths",
        nargs="*",
        default=["12", "full"],
        help="max depths to fit (a number or 'full'; default 12 full)",
    )
    parser.add_argument("--classes", type=int, default=3, choices=sorted(CUTS))
    parser.add_argument("--missing", type=float, default=0.0, help="share of cells left blank")
    parser.add_argument("--no-memory", action="store_true")
    parser.add_argument("--memory-child", nargs=5, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.memory_child:
        who, n, depth, classes, missing = args.memory_child
        memory_child(who, int(n), int(depth) or None, int(classes), float(missing))
        return
    depths = [None if d == "full" else int(d) for d in args.depths]
    sizes = args.sizes or ([10_000, 100_000] if args.quick else [10_000, 100_000, 1_000_000])
    memory = not (args.quick or args.no_memory)
    start = time.perf_counter()
    compile_kernels()
    print(
        f"compiled kernels loaded (or, once per installation, compiled) in "
        f"{time.perf_counter() - start:.1f} s"
    )
    X, y, small = make_data(3000, classes=args.classes, missing=args.missing)
    for splitter in SPLITTERS:
        _fit_ours(make_table(small), 3, splitter)
    _fit_sklearn(X, y, 3)
    Xt, yt, test = make_data(20_000, seed=1, classes=args.classes, missing=args.missing)
    truth = test["y"].astype(str).to_numpy()
    head = (
        f"{'rows':>9} {'depth':>5} | {'sklearn':>8} {'exact':>8} {'ratio':>5} {'hist':>8} {'ratio':>5} | "
        f"{'acc sk':>6} {'exact':>6} {'hist':>6} | {'leaves sk / exact / hist':>24}"
    )
    if memory:
        head += f" | {'peak MB sk / exact / hist':>25} {'ratios':>9}"
    print(head)
    print(f"{args.classes} classes, {100 * args.missing:g}% of cells missing")
    for n in sizes:
        X, y, frame = make_data(n, classes=args.classes, missing=args.missing)
        table = make_table(frame)
        for depth in depths:
            runs = args.runs or (1 if args.quick else (5 if n <= 10_000 else 3))
            fits = {
                "sklearn": partial(_fit_sklearn, X, y, depth),
                **{sp: partial(_fit_ours, table, depth, sp) for sp in SPLITTERS},
            }
            times = {k: [] for k in fits}
            models = {}
            for _ in range(runs):
                for who, fit in fits.items():
                    t = time.perf_counter()
                    models[who] = fit()
                    times[who].append(time.perf_counter() - t)
            med = {k: statistics.median(v) for k, v in times.items()}
            acc = {"sklearn": float((models["sklearn"].predict(Xt) == yt).mean())}
            acc.update({sp: float((models[sp].predict(test) == truth).mean()) for sp in SPLITTERS})
            leaves = [int(models["sklearn"].get_n_leaves())] + [
                models[sp].tree_.n_leaves for sp in SPLITTERS
            ]
            line = (
                f"{n:>9} {str(depth or 'full'):>5} | {med['sklearn']:>7.2f}s {med['exact']:>7.2f}s "
                f"{med['exact'] / med['sklearn']:>5.2f} {med['histogram']:>7.2f}s "
                f"{med['histogram'] / med['sklearn']:>5.2f} | "
                + " ".join(f"{100 * acc[k]:>5.1f}%" for k in ("sklearn", *SPLITTERS))
                + f" | {' / '.join(map(str, leaves)):>24}"
            )
            if memory:
                mb = {
                    k: peak_memory(k, n, depth, args.classes, args.missing)
                    for k in ("sklearn", *SPLITTERS)
                }
                line += (
                    f" | {mb['sklearn']:>7.1f} / {mb['exact']:>5.1f} / {mb['histogram']:>5.1f} "
                    f"{mb['exact'] / mb['sklearn']:>4.1f} {mb['histogram'] / mb['sklearn']:>4.1f}"
                )
            print(line, flush=True)


if __name__ == "__main__":
    main()
