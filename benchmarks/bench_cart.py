"""CART fit time, tree quality and peak memory: Arbor against scikit-learn on the same data.

    python benchmarks/bench_cart.py            # 10,000 and 100,000 rows
    python benchmarks/bench_cart.py --full     # also 1,000,000 rows (slow)

Data: 10 numeric and 5 ordinal-coded nominal attributes, 3 classes with noise.
Prints the median of the runs for each and the ratio ours / scikit-learn.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
import tracemalloc
from functools import partial
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engine.estimator import DecisionTree  # noqa: E402
from engine.table import make_table  # noqa: E402


def make_data(n: int, seed: int = 0):
    rng = np.random.default_rng(seed)
    numeric = rng.normal(size=(n, 10)).astype(np.float32).astype(np.float64)
    nominal = rng.integers(0, 5, size=(n, 5)).astype(np.float64)
    signal = numeric[:, 0] + numeric[:, 1] * numeric[:, 2] + 0.4 * nominal[:, 0] - 0.3 * (nominal[:, 1] == 2)
    y = np.digitize(signal + rng.normal(scale=0.8, size=n), [-0.6, 0.6])
    X = np.hstack([numeric, nominal])
    frame = pd.DataFrame(X, columns=[f"n{i}" for i in range(10)] + [f"c{i}" for i in range(5)])
    frame["y"] = pd.Categorical(np.array(["a", "b", "c"])[y], categories=["a", "b", "c"])
    return X, y, frame


def timed(fit, runs: int) -> tuple[float, object]:
    times, model = [], None
    for _ in range(runs):
        start = time.perf_counter()
        model = fit()
        times.append(time.perf_counter() - start)
    return statistics.median(times), model


def peak_memory(fit) -> float:
    tracemalloc.start()
    fit()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak / 2**20


def main() -> None:
    from sklearn.tree import DecisionTreeClassifier

    parser = argparse.ArgumentParser()
    parser.add_argument("--full", action="store_true", help="include 1,000,000 rows")
    parser.add_argument("--runs", type=int, default=3)
    args = parser.parse_args()
    sizes = [10_000, 100_000] + ([1_000_000] if args.full else [])
    print(f"{'rows':>9} {'depth':>6} {'sklearn s':>10} {'arbor s':>9} {'ratio':>6} {'acc sk':>7} "
          f"{'acc ours':>8} {'leaves sk/ours':>15} {'mem ratio':>9}")
    for n in sizes:
        X, y, frame = make_data(n)
        Xt, yt, test = make_data(20_000, seed=1)
        table = make_table(frame)
        for depth in (12, None):
            runs = args.runs if n <= 100_000 else 1
            fit_sk = partial(lambda X_, y_, d: DecisionTreeClassifier(max_depth=d, random_state=0).fit(X_, y_),
                             X, y, depth)
            fit_ours = partial(lambda t, d: DecisionTree(algorithm="cart", max_depth=d).fit(t), table, depth)
            t_sk, sk = timed(fit_sk, runs)
            t_ours, ours = timed(fit_ours, runs)
            acc_sk = (sk.predict(Xt) == yt).mean()
            acc_ours = (ours.predict(test) == test["y"].astype(str).to_numpy()).mean()
            mem = ""
            if n <= 100_000:
                m_sk, m_ours = peak_memory(fit_sk), peak_memory(fit_ours)
                mem = f"{m_ours / max(m_sk, 1e-9):.1f}"
            print(f"{n:>9} {str(depth or 'full'):>6} {t_sk:>10.2f} {t_ours:>9.2f} {t_ours / t_sk:>6.1f} "
                  f"{100 * acc_sk:>6.1f}% {100 * acc_ours:>7.1f}% {sk.get_n_leaves():>7}/{ours.tree_.n_leaves:<7} "
                  f"{mem:>9}", flush=True)


if __name__ == "__main__":
    main()
