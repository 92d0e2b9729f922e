"""How quickly Cancel stops a training, in every phase: the time from ``monitor.cancel()``
until the job raises ``Cancelled`` (when the window says so), cancelled a moment after the
phase begins; freeing the job's work (a big tree's nodes) follows, and is shown too.

    python benchmarks/bench_cancel.py                    # 1,000,000 rows (~15-30 min)
    python benchmarks/bench_cancel.py --rows 200000      # quicker
    python benchmarks/bench_cancel.py --phases pessimistic,reduced-error
    python benchmarks/bench_cancel.py --phases growth --splitter exact --repeat 5

Each phase runs the work the window's Train does (fit, then 0-R/1-R, cross-validation,
training accuracy and CART's pruning path) in a worker thread, with the job's monitor
watching as the window's jobs do (:func:`engine.monitor.watching`). The phase's entry
function is wrapped to note when it starts; Cancel comes ``--after`` seconds later (0.3 by
default). The promise is 0.2 s in every phase; a phase that ended before the cancel says so.
``--splitter`` picks the numeric search (auto by default: histogram for CART from 500,000
rows) and ``--repeat`` measures each phase several times. (The tests check that a cancel
stops every phase, tests/engine/evaluate/test_cancel_phases.py and test_builder.py, never how soon.)
Data: bench_cart's generator (10 numeric and 5 nominal attributes, 3 noisy classes).
"""

from __future__ import annotations

import argparse
import importlib
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.bench_cart import make_data  # noqa: E402
from engine.compiling.lifecycle import compile_kernels  # noqa: E402
from engine.data.encoding import encode  # noqa: E402
from engine.data.table import make_table  # noqa: E402
from engine.errors import Cancelled  # noqa: E402
from engine.estimator import DecisionTree  # noqa: E402
from engine.monitor import Monitor, watching  # noqa: E402

#: phase: (learner settings, folds of the cross-validation, where the phase's entry is looked up)
PHASES = {
    "growth": ({"algorithm": "cart"}, 0, "engine.fitting:grow_whole"),
    "building nodes": (
        {"algorithm": "cart", "prune": "none"},
        0,
        "engine.flat:FlatTree.node_objects",
    ),
    "collapse": ({"algorithm": "c45", "prune": "none"}, 0, "engine.fitting:collapse_tree"),
    "pessimistic": ({"algorithm": "c45"}, 0, "engine.fitting:prune_pessimistic"),
    "cost-complexity": (
        {"algorithm": "cart", "prune": "cost-complexity", "alpha": 1e-5},
        0,
        "engine.fitting:prune_cost_complexity",
    ),
    "cv-alpha": (
        {"algorithm": "cart", "prune": "cost-complexity", "cv_alpha": 5},
        0,
        "engine.fitting:choose_alpha",
    ),
    "reduced-error": (
        {"algorithm": "cart", "prune": "reduced-error"},
        0,
        "engine.fitting:prune_reduced_error",
    ),
    "baselines": ({"algorithm": "cart", "max_depth": 4}, 0, "engine.evaluate.baseline:baselines"),
    "cross-validation": (
        {"algorithm": "cart", "max_depth": 12},
        5,
        "engine.evaluate.evaluation:cross_validate",
    ),
    "training accuracy": ({"algorithm": "cart"}, 0, "engine.predict:predict_proba"),
    "pruning path": ({"algorithm": "cart"}, 0, "engine.prune.cost_complexity:cost_complexity_path"),
}


def train_job(table, params: dict, folds: int):
    """What the window's Train does, without the window (gui.session.jobs.train_call)."""
    from engine.evaluate.baseline import baselines
    from engine.evaluate.evaluation import cross_validate
    from engine.predict import predict_proba
    from engine.prune.cost_complexity import cost_complexity_path

    def job(monitor: Monitor):
        with watching(monitor):
            model = DecisionTree(**params)
            data = encode(table)
            model.fit(table, monitor=monitor)
            model.tree_.with_nodes_made()  # the tree on screen: the window's job makes them
            baselines(data)
            if folds:
                cross_validate(data, model.settings_, folds, 1, monitor)
            predict_proba(model.tree_, data.X)
            cost_complexity_path(model.tree_)

    return job


def measure(table, phase: str, after: float, splitter: str = "auto") -> str:
    params, folds, where = PHASES[phase]
    params = {**params, "splitter": splitter}
    module_name, attribute = where.split(":")
    module = importlib.import_module(module_name)
    *owners, attribute = attribute.split(".")  # a function, or a class's method
    for name in owners:
        module = getattr(module, name)
    original = getattr(module, attribute)
    started, ended = threading.Event(), threading.Event()
    took = []

    def hooked(*args, **kwargs):
        first = not started.is_set()
        started.set()
        begin = time.perf_counter()
        try:
            return original(*args, **kwargs)
        finally:
            if first:
                took.append(time.perf_counter() - begin)
                ended.set()

    setattr(module, attribute, hooked)
    monitor, outcome = Monitor(), []
    job = train_job(table, params, folds)

    def run():
        try:
            job(monitor)
            outcome.append(("finished", time.perf_counter()))
        except Cancelled:  # where the window's job says "cancelled" (freeing the work follows)
            outcome.append(("cancelled", time.perf_counter()))
        except Exception as error:  # a failure is what this benchmark is for finding
            outcome.append((f"FAILED ({error!r})", time.perf_counter()))

    thread = threading.Thread(target=run, daemon=True)
    begin = time.perf_counter()
    try:
        thread.start()
        while not started.wait(0.05):
            if not thread.is_alive():
                return "the phase never started"
        if ended.wait(after):
            return f"ended before the cancel (the phase took {took[0]:.2f} s)"
        cancelled_at = time.perf_counter()
        monitor.cancel()
        thread.join()
        freed = time.perf_counter() - cancelled_at
    finally:
        setattr(module, attribute, original)
    what, when = outcome[0]
    return (
        f"{when - cancelled_at:6.3f} s ({what} {cancelled_at - begin:.1f} s into the job; "
        f"its memory freed after {freed:.2f} s)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--after", type=float, default=0.3, help="seconds into the phase")
    parser.add_argument("--phases", default=",".join(PHASES))
    parser.add_argument("--splitter", default="auto", choices=("auto", "exact", "histogram"))
    parser.add_argument("--repeat", type=int, default=1, help="measurements per phase")
    args = parser.parse_args()
    compile_kernels()
    _, _, frame = make_data(args.rows)
    table = make_table(frame)
    print(
        f"cancel latency, {args.rows:,} rows, splitter {args.splitter}, "
        f"cancelled {args.after} s into each phase"
    )
    for phase in args.phases.split(","):
        for _ in range(args.repeat):
            print(f"  {phase:<20} {measure(table, phase, args.after, args.splitter)}", flush=True)


if __name__ == "__main__":
    main()
