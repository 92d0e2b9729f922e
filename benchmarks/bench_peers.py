"""One tree against the fastest single-tree builders (issue 34): Arbor's exact and histogram
CART beside scikit-learn, YDF's CART, LightGBM and XGBoost grown as one tree.

    pip install -e '.[bench]'                      # scikit-learn, LightGBM, XGBoost, YDF
    python benchmarks/bench_peers.py               # 1,000,000 rows (~10 min)
    python benchmarks/bench_peers.py --quick       # 100,000 rows, one generator
    python benchmarks/bench_peers.py --rows 300000 --generators tied --threads 1 2
    python benchmarks/bench_peers.py --memory      # Arbor's peak RSS on 1 and 2 threads
    python benchmarks/bench_peers.py --rows 10000000 --runs 1 --peers sklearn "arbor exact" \
        "arbor majority" --cases missing       # some libraries, some tasks

Every library grows one unpruned tree to depth 12 with no leaf-size limit on the same rows,
then predicts 50,000 more; the time is the fit and the prediction (Arbor's includes typing
the table, the others' their own conversion). LightGBM and XGBoost grow one round with
learning rate 1, no regularisation and 255 bins (regression only: for classes they grow a
tree per class); YDF's CART without its validation hold-out. Every library, Arbor too, is
given ``--threads``. With missing values Arbor also runs its exact search with ``--missing
majority`` ("arbor majority"): such a row goes down one branch whole, as in scikit-learn
(the side its search picks) and YDF (imputed), where the default sends it down both at a
fraction of its weight (C4.5's rule, more rows deeper in the tree).
A library that is not installed is left out. Each run times each library's thread counts one
right after the other (which comes first alternates), taking turns again (up to four) until
they have taken ``--least`` seconds, the best of each kept; every other run the libraries in
reverse order. The best of ``--runs`` is shown, with its ratio to scikit-learn's, and the speed on
more threads against one as the best times' ratio and the range of the runs' own ratios.
Beside those, the machine's own (``benchmarks/ceiling.py``, probed before each run's fits
of each case): what arithmetic and random reads gained from more threads at the time (a
shared virtual machine's two cores gave 1.2-2.8x on arithmetic from run to run).

Generators: ``mixed`` (12 normal attributes and 4 small integers, a noisy signal) and
``tied`` (the same signal from attributes rounded to one decimal and integers 0-9: few
distinct values, many ties).
"""

from __future__ import annotations

import argparse
import itertools
import sys
import time
from pathlib import Path

import numpy as np
import pandas as pd

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from ceiling import probe  # noqa: E402

from engine.compiling.lifecycle import compile_kernels  # noqa: E402
from engine.data.table import make_table  # noqa: E402
from engine.estimator import DecisionTree  # noqa: E402

DEPTH = 12
TEST_ROWS = 50_000
#: Class boundaries on the signal (4 classes).
CUTS = [-0.9, 0.0, 0.9]
PEERS = (
    "sklearn",
    "arbor exact",
    "arbor hist",
    "arbor majority",
    "ydf cart",
    "lightgbm",
    "xgb hist",
    "xgb exact",
)
#: The most turns a library's thread counts take in one run (``--least``).
MOST_REPEATS = 4
#: The machine's own speed on more threads (benchmarks/ceiling.py), probed before each run's
#: fits of each case and shown beside the libraries' in the scaling lines.
MACHINE = ("machine arithmetic", "machine reads")


#: ``--cases``: the task and the share of missing cells.
CASES = {
    "regression": ("regression", 0.0),
    "classification": ("classification", 0.0),
    "missing": ("classification", 0.1),
}


def make_data(n: int, generator: str, task: str, missing: float, seed: int = 0):
    """``(X, y, frame)``: 16 attributes, a regression target or 4 classes."""
    rng = np.random.default_rng(seed)
    numeric = rng.normal(size=(n, 12))
    small = rng.integers(0, 5 if generator == "mixed" else 10, size=(n, 4)).astype(float)
    if generator == "tied":
        numeric = np.round(numeric, 1)
    signal = (
        numeric[:, 0]
        + numeric[:, 1] * numeric[:, 2]
        + 0.4 * small[:, 0]
        - 0.3 * (small[:, 1] == 2)
        + rng.normal(scale=0.8, size=n)
    )
    y = signal if task == "regression" else np.digitize(signal - 0.4, CUTS)
    X = np.hstack([numeric, small])
    if missing:
        X[rng.random(X.shape) < missing] = np.nan
    frame = pd.DataFrame(X, columns=[f"x{i}" for i in range(X.shape[1])])
    frame["y"] = y if task == "regression" else np.array(list("abcd"))[y]
    return X, y, frame


def fits(task: str, threads: int, missing: float) -> dict:
    """Each installed library's fit-and-predict, as ``f(train, test) -> predictions``. With
    missing values, also Arbor's exact search with ``--missing majority`` (each such row down
    one branch whole, as scikit-learn and YDF send theirs, rather than C4.5's fractions)."""
    out = {}
    classes = task == "classification"
    try:
        from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor

        def sklearn(train, test):
            kind = DecisionTreeClassifier if classes else DecisionTreeRegressor
            predicted = (
                kind(max_depth=DEPTH, random_state=0).fit(train[0], train[1]).predict(test[0])
            )
            return np.array(list("abcd"))[predicted] if classes else predicted

        out["sklearn"] = sklearn
    except ImportError:
        pass

    def arbor(splitter, rule="fractional"):
        def fit(train, test):
            model = DecisionTree(
                algorithm="cart",
                task=task,
                prune="none",
                max_depth=DEPTH,
                min_samples_split=2,
                min_samples_leaf=1,
                splitter=splitter,
                threads=threads,
                missing=rule,
            ).fit(make_table(train[2]))
            return model.predict(test[2])

        return fit

    out["arbor exact"], out["arbor hist"] = arbor("exact"), arbor("histogram")
    if missing:
        out["arbor majority"] = arbor("exact", "majority")
    try:
        import ydf

        ydf.verbose(0)  # no line per training

        def ydf_cart(train, test):
            model = ydf.CartLearner(
                label="y",
                task=ydf.Task.CLASSIFICATION if classes else ydf.Task.REGRESSION,
                max_depth=DEPTH + 1,  # YDF counts the root as depth 1
                min_examples=1,
                validation_ratio=0.0,
                num_threads=threads,
            ).train(train[2])
            return model.predict(test[2].drop(columns="y"))

        out["ydf cart"] = ydf_cart
    except ImportError:
        pass
    if classes:
        return out
    try:
        import lightgbm

        def lgbm(train, test):
            params = {
                "objective": "regression",
                "learning_rate": 1.0,
                "num_leaves": 2**DEPTH,
                "max_depth": DEPTH,
                "min_data_in_leaf": 1,
                "min_sum_hessian_in_leaf": 0.0,
                "lambda_l2": 0.0,
                "max_bin": 255,
                "num_threads": threads,
                "verbose": -1,
            }
            booster = lightgbm.train(params, lightgbm.Dataset(train[0], train[1]), 1)
            return booster.predict(test[0])

        out["lightgbm"] = lgbm
    except ImportError:
        pass
    try:
        import xgboost

        def xgb(method):
            def fit(train, test):
                params = {
                    "tree_method": method,
                    "max_depth": DEPTH,
                    "eta": 1.0,
                    "lambda": 0.0,
                    "min_child_weight": 0.0,
                    "max_bin": 255,
                    "nthread": threads,
                }
                booster = xgboost.train(params, xgboost.DMatrix(train[0], train[1]), 1)
                return booster.predict(xgboost.DMatrix(test[0]))

            return fit

        out["xgb hist"], out["xgb exact"] = xgb("hist"), xgb("exact")
    except ImportError:
        pass
    return out


def quality(task: str, truth, predicted) -> float:
    """Holdout accuracy (%) or R² (%)."""
    predicted = np.asarray(predicted)
    if task == "classification":
        if predicted.ndim == 2:  # YDF: probabilities of its classes in sorted order
            predicted = np.array(list("abcd"))[predicted.argmax(axis=1)]
        return 100 * float(np.mean(predicted.astype(str) == truth.astype(str)))
    truth = np.asarray(truth, float)
    return 100 * (1 - float(np.mean((truth - predicted) ** 2)) / float(np.var(truth)))


def peak_memory(rows: int, generator: str, threads_list, missing: float) -> None:
    """Arbor's peak resident memory per splitter and thread count, each fit in a fresh
    process (the one-thread peak, and the ratio to it)."""
    import subprocess

    print(f"peak RSS, {rows:,} rows of {generator!r}, {100 * missing:.0f}% missing, classification")
    for splitter in ("exact", "histogram"):
        base = None
        for threads in threads_list:
            out = subprocess.run(
                [sys.executable, __file__, "--child", splitter, str(threads), str(rows)]
                + [generator, str(missing)],
                capture_output=True,
                text=True,
                check=True,
            ).stdout.split()
            before, peak = int(out[-2]), int(out[-1])
            base = base or peak
            print(
                f"  {splitter:<9} {threads} thread(s): {peak / 1024:7.0f} MiB peak "
                f"({before / 1024:.0f} MiB with the data made), {peak / base:.2f}x one thread"
            )


def child(splitter: str, threads: int, rows: int, generator: str, missing: float) -> None:
    import resource

    compile_kernels()
    _, _, frame = make_data(rows, generator, "classification", missing)
    table = make_table(frame)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    DecisionTree(
        algorithm="cart", prune="none", max_depth=DEPTH, splitter=splitter, threads=threads
    ).fit(table)
    print(before, resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)  # KiB on Linux


def main() -> None:
    if sys.argv[1:2] == ["--child"]:
        a = sys.argv[2:]
        return child(a[0], int(a[1]), int(a[2]), a[3], float(a[4]))
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="100,000 rows, mixed only, one run")
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--generators", nargs="*", default=["mixed", "tied"])
    parser.add_argument("--threads", type=int, nargs="*", default=[1, 2])
    parser.add_argument("--runs", type=int, default=2)
    parser.add_argument(
        "--least",
        type=float,
        default=4.0,
        help=f"seconds a library's fits take in a run at least (up to {MOST_REPEATS} turns), the best kept",
    )
    parser.add_argument("--memory", action="store_true", help="Arbor's peak RSS only")
    parser.add_argument(
        "--peers", nargs="*", choices=PEERS, default=list(PEERS), help="the libraries to run"
    )
    parser.add_argument(
        "--cases", nargs="*", choices=list(CASES), default=list(CASES), help="the tasks to run"
    )
    args = parser.parse_args()
    rows, generators, runs = args.rows, args.generators, args.runs
    if args.quick:
        rows, generators, runs = 100_000, ["mixed"], 1
    if args.memory:
        for missing in (0.0, 0.1):
            peak_memory(rows, generators[0], args.threads, missing)
        return
    compile_kernels()
    cases = [CASES[name] for name in args.cases]
    print(
        f"{rows:,} rows, depth {DEPTH}, fit + predict {TEST_ROWS:,}; seconds (best of {runs}), "
        "ratio to scikit-learn; holdout accuracy or R2 in %"
    )
    print(
        f"{'data':<8} {'task':<15} {'miss':>4} {'thr':>3} | "
        + " | ".join(f"{p:>16}" for p in PEERS)
    )
    # (generator, task, missing, peer): by thread count, every run's time in run order
    timed: dict[tuple, dict[int, list[float]]] = {}
    for generator in generators:
        for task, missing in cases:
            train = make_data(rows, generator, task, missing)
            test = make_data(TEST_ROWS, generator, task, missing, seed=1)
            small = make_data(2_000, generator, task, missing, seed=2)
            by_threads = {}
            for threads in args.threads:
                peers = {k: f for k, f in fits(task, threads, missing).items() if k in args.peers}
                for fit in peers.values():  # libraries loaded, kernels ready
                    fit(small, small)
                by_threads[threads] = peers
            each, scores = {}, {}  # each: every run's time, in run order
            for run in range(runs):
                # Every other run in reverse: the fit after scikit-learn's (which frees much
                # memory) ran 0.1-0.2 s slower than the same fit run later. A library's thread
                # counts run one right after the other (which first, in turn), so that its
                # ratio is taken within seconds on a machine whose speed drifts from minute to
                # minute (a shared virtual one, whose 10M-addition loop went from 0.8 to 1.5 s
                # in half an hour), not with other libraries' half-minute fits in between.
                names = list(by_threads[args.threads[0]])
                # (which thread count the probe times first, in turn, as for the libraries)
                ahead = args.threads if run % 2 == 0 else args.threads[::-1]
                for kind, times in probe(ahead, repeats=1).items():
                    for threads, took in times.items():
                        each.setdefault((threads, f"machine {kind}"), []).append(took)
                for i, who in enumerate(names[::-1] if run % 2 else names):
                    counts = args.threads if (i + run) % 2 == 0 else args.threads[::-1]
                    best: dict[int, float] = {}
                    spent = 0.0
                    # A short fit's thread counts take turns again until they have taken
                    # --least seconds: one fit of a third of a second is often caught by
                    # the other machines' work on a shared one, and more so on two threads.
                    for _ in range(MOST_REPEATS):
                        for threads in counts:
                            start = time.perf_counter()
                            predicted = by_threads[threads][who](train, test)
                            took = time.perf_counter() - start
                            spent += took
                            best[threads] = min(best.get(threads, took), took)
                            scores[threads, who] = quality(
                                task,
                                test[1] if task == "regression" else test[2]["y"].to_numpy(),
                                predicted,
                            )
                        if spent >= args.least:
                            break
                    for threads, took in best.items():
                        each.setdefault((threads, who), []).append(took)
            for threads in args.threads:
                for who in MACHINE:
                    timed.setdefault((generator, task, missing, who), {})[threads] = each[
                        threads, who
                    ]
                base = min(each.get((threads, "sklearn"), [0.0]))
                cells = []
                for who in PEERS:
                    if (threads, who) not in each:
                        cells.append(f"{'-':>16}")
                        continue
                    timed.setdefault((generator, task, missing, who), {})[threads] = each[
                        threads, who
                    ]
                    took = min(each[threads, who])
                    ratio = f" {took / base:.2f}x" if base else ""
                    cells.append(f"{took:6.2f}s{ratio} {scores[threads, who]:4.1f}".rjust(16))
                print(
                    f"{generator:<8} {task:<15} {100 * missing:>3.0f}% {threads:>3} | "
                    + " | ".join(cells),
                    flush=True,
                )
    scaling(timed, args.threads)


def scaling(timed: dict, threads: list[int]) -> None:
    """Each library's speed on more threads against one, from the unrounded best times, and
    (of two runs or more) the lowest and highest of the runs' own ratios: a run times a
    library's thread counts one right after the other, so its ratio is what a machine whose
    speed drifts from minute to minute (a shared virtual one) shows at one time."""
    more = [k for k in threads if k != 1]
    if 1 not in threads or not more:
        return
    print(f"\nspeed on {', '.join(map(str, more))} threads against one")

    def ratio(times, k) -> str:  # times: by thread count, every run's time
        best = f"{min(times[1]) / min(times[k]):.2f}x"
        pairs = [a / b for a, b in zip(times[1], times[k], strict=True)]
        return best if len(pairs) < 2 else f"{best} ({min(pairs):.2f}-{max(pairs):.2f})"

    for (generator, task, missing), row in itertools.groupby(timed.items(), lambda i: i[0][:3]):
        cells = dict((key[3], t) for key, t in row)
        shown = [
            f"{who} " + " ".join(ratio(cells[who], k) for k in more)
            for who in (*PEERS, *MACHINE)
            if who in cells and all(k in cells[who] for k in (1, *more))
        ]
        print(f"{generator:<8} {task:<15} {100 * missing:>3.0f}% | " + " | ".join(shown))


if __name__ == "__main__":
    main()
