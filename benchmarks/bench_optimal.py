"""Optimal trees: Arbor's search beside STreeD's (pystreed), on the same binary features.

    python benchmarks/bench_optimal.py                    # 10,000 rows x 20 attributes, depth 3
    python benchmarks/bench_optimal.py --rows 2000 --depth 4 --bins 8

Generates a numeric table whose class follows a depth-3 rule on three attributes plus 10%
noise, with the rest random. Arbor searches it with ``--max-bins`` quantile thresholds per
attribute; STreeD gets the very features Arbor's search splits on, as a 0/1 matrix, so the
two solve the same problem: their training errors must agree. The first run on a machine
also compiles the solver's kernel (seconds, once): it is loaded before timing.
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import pandas as pd

from engine.data.encoding import encode
from engine.data.table import make_table
from engine.optimal import binarise, load_kernel, solve_optimal
from engine.settings import resolve


def table(rows: int, attributes: int, seed: int) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(rows, attributes)).round(3)
    y = np.where(X[:, 0] > 0.3, X[:, 1] > -0.5, (X[:, 2] > 0.8) | (X[:, 1] < -1.2))
    y = np.where(rng.random(rows) < 0.1, ~y, y)
    frame = pd.DataFrame(X, columns=[f"a{i}" for i in range(attributes)])
    frame["class"] = np.where(y, "yes", "no")
    return frame


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=10_000)
    parser.add_argument("--attributes", type=int, default=20)
    parser.add_argument("--depth", type=int, default=3)
    parser.add_argument("--bins", type=int, default=16)
    parser.add_argument("--seed", type=int, default=35)
    args = parser.parse_args()
    data = encode(make_table(table(args.rows, args.attributes, args.seed)))
    settings = resolve(algorithm="optimal", max_depth=args.depth, max_bins=args.bins)
    load_kernel()
    started = time.perf_counter()
    solution = solve_optimal(data, settings)
    ours = time.perf_counter() - started
    features = binarise(data, np.arange(data.n_rows), settings.splitter, settings.max_bins)
    print(
        f"{args.rows} rows x {args.attributes} attributes, depth {args.depth}, "
        f"{features.n_features} binary features"
    )
    print(f"{'':10} {'errors':>8} {'seconds':>9}")
    print(f"{'Arbor':10} {solution.error:8g} {ours:9.2f}")
    try:
        from pystreed import STreeDClassifier
    except ImportError:
        print("STreeD: not installed (pip install pystreed)")
        return
    binary = np.column_stack(
        [features.inside(f, np.arange(data.n_rows)) for f in range(features.n_features)]
    ).astype(np.int64)
    model = STreeDClassifier(max_depth=args.depth, cost_complexity=0.0, time_limit=3600)
    started = time.perf_counter()
    model.fit(binary, data.y)
    theirs = time.perf_counter() - started
    errors = int((model.predict(binary) != data.y).sum())
    print(f"{'STreeD':10} {errors:8d} {theirs:9.2f}")
    print(f"Arbor / STreeD time: {ours / theirs:.2f}")


if __name__ == "__main__":
    main()
