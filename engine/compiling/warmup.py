"""The fits that compile every kernel signature real fits use.

numba compiles one machine-code version per combination of argument types, and a
read-only array is another type than a writable one: a warm-up that grew its trees
on hand-made arrays left the first real fit (on ``encode``'s read-only matrix) to
compile again for most of a minute. So the warm-up takes its arrays from where real
fits get theirs, ``make_table -> encode`` (and ``subset``, whose writable copy pruning
and cross-validation train on), and hands them to the builder's own entry points
(:func:`engine.fast.builder.grow_tree` and :func:`~engine.fast.builder.grow_stepwise`,
in the mode :func:`~engine.fast.builder.plan` picks), for small tables of each kind
(numeric only, mixed, nominal only, missing values, a numeric target) in every mode
(exact and histogram search, depth- and best-first, with and without a leaf limit,
multiway and binary, CART's two-group splits, the window's step-by-step growth, a
subtree regrown below a hand edit with fractional weights). Whatever the
kernels' signatures become, fits like these compile them;
``tests/engine/compiling/test_compile_lifecycle.py`` checks that real fits then compile nothing new.

(It stops at the builder rather than going through ``DecisionTree.fit``: the growth
loop asks :mod:`engine.compiling.lifecycle` whether the kernels are ready, so going through
it from here would be an import cycle.)
"""

from __future__ import annotations

import numpy as np
import pandas as pd

#: (table, options) pairs; the tables are made by :func:`tables`.
FITS = (
    ("numeric", {"algorithm": "cart", "splitter": "exact", "max_depth": 5}),
    ("numeric", {"algorithm": "cart", "splitter": "histogram", "max_depth": 5}),
    ("numeric", {"algorithm": "cart", "splitter": "histogram", "max_leaves": 12}),
    ("numeric", {"algorithm": "cart", "growth": "best", "max_leaves": 8}),
    ("numeric", {"algorithm": "c45", "max_depth": 4}),
    ("mixed", {"algorithm": "c45", "max_depth": 4}),
    ("mixed", {"algorithm": "cart", "max_depth": 4}),
    ("nominal", {"algorithm": "id3", "max_depth": 3}),
    ("missing", {"algorithm": "c45", "max_depth": 4}),
    ("missing", {"algorithm": "cart", "max_depth": 4}),
    (
        "regression",
        {"algorithm": "cart", "task": "regression", "splitter": "exact", "max_depth": 5},
    ),
    (
        "regression",
        {
            "algorithm": "cart",
            "task": "regression",
            "splitter": "histogram",
            "growth": "best",
            "max_leaves": 12,
        },
    ),
)
#: Step-by-step growths (the window's Growth tab).
STEPWISE = (
    ("mixed", {"algorithm": "cart", "growth": "best"}),
    ("missing", {"algorithm": "c45"}),
    ("numeric", {"algorithm": "cart", "splitter": "histogram"}),
)
#: Rows of each warm-up table.
ROWS = 1_000


def warm_up(check=lambda: None) -> None:
    """Grow :data:`FITS` on the compiled builder, on ``encode``'s arrays and on a subset's
    (seconds once compiled); ``check`` is called between fits. The fits over partitions
    are :func:`engine.scale.warmup.warm_up_partitions` (the compilation runs both; a process
    loading the kernels need not, its fits over partitions run on workers)."""
    from engine.data.encoding import encode, subset
    from engine.fast.builder import grow_stepwise, grow_tree, plan
    from engine.learn.problem import Problem
    from engine.monitor import Monitor
    from engine.settings import resolve

    made = tables()
    half = np.arange(0, ROWS, 2)
    for name, options in FITS:
        settings = resolve(**options)
        whole = encode(made[name], settings.task)
        for data in (whole, subset(whole, half)):  # read-only, then a writable copy
            check()
            problem = Problem(data, settings)
            rows = np.arange(data.n_rows)
            grow_tree(
                problem,
                plan(settings, len(rows)),
                rows,
                data.weight[rows],
                0,
                frozenset(),
                Monitor(),
            )
    _split_by_threads(made, check)
    # The window's step-by-step growth (its own entry point, no private subtrees).
    for name, options in STEPWISE:
        check()
        settings = resolve(**options)
        data = encode(made[name], settings.task)
        problem = Problem(data, settings)
        for _ in zip(
            range(3), grow_stepwise(problem, plan(settings, data.n_rows), Monitor()), strict=False
        ):
            pass
    # A subtree regrown below a hand edit: some rows, fractional weights, an attribute used.
    check()
    data = encode(made["mixed"])
    settings = resolve(algorithm="c45", max_depth=3)
    problem = Problem(data, settings)
    rows = np.arange(16, data.n_rows)
    weights = np.full(len(rows), 0.75)
    used = frozenset({data.schema.attribute_index("colour")})
    grow_tree(problem, plan(settings, len(rows)), rows, weights, 1, used, Monitor())
    # The radix sort of big columns (the warm-up's tables are below its size).
    check()
    from engine.fast.radix import stable_order

    stable_order(np.array([2.0, np.nan, -0.0, 0.0, -1.5]))
    # The histogram mode's two coders: the grid's, and the blocks' for crowded edges (the
    # warm-up's columns all take the grid's).
    check()
    from engine.fast.histogram import code_column

    codes = np.zeros((4, 1), dtype=np.uint8)
    low, high = np.full((1, 256), np.inf), np.full((1, 256), -np.inf)
    for edges in (np.append(np.arange(10) * 1e-9, 1.0), np.array([0.5])):
        code_column(np.array([0.0, 2e-9, 3.0, np.nan]), edges, codes, 0, low[0], high[0])
    # Exact bins' recoding of a bin found to hold two values (the warm-up's samples miss none),
    # of a column of the table (read-only) and of gathered rows.
    from engine.fast.histogram import _recode, _values_in

    shared = np.ones(256, dtype=bool)
    for writable in (False, True):
        x = np.array([0.0, 1.0])
        x.setflags(write=writable)
        codes = np.zeros((2, 1), np.uint8)
        values = _values_in(codes, 0, x, shared, 0)
        _recode(codes, 0, x, shared, np.zeros(256, np.uint8), values, 0)
    # CART's weakest-link sequence (the cost-complexity path), on a root and two leaves.
    check()
    from engine.fast.weakest import alpha_ends, weakest_links

    weakest_links(
        np.array([-1, 0, 0], dtype=np.intp),
        np.array([3, 2, 3], dtype=np.intp),
        np.array([0.5, 0.1, 0.2]),
        np.array([0.3, 0.0, 0.1]),
        np.array([False, True, True]),
        np.inf,
    )
    alpha_ends(
        np.array([-1, 0, 0], dtype=np.intp),
        np.array([False, True, True]),
        np.array([0.2, np.inf, np.inf]),
    )
    # 1-R's buckets over an attribute of many distinct values (the baselines beside a fit).
    check()
    from engine.fast.buckets import bucket_bounds

    bucket_bounds(
        np.array([[0.0, 1.0, 1.0, 2.0], [0.0, 0.0, 1.0, 1.0]]),
        np.array([0, 1, 0], dtype=np.intp),
        np.array([False, True, False]),
        0.5,
    )
    # Rows routed down a tree's arrays (prediction, and the folds' held-out rows), and those
    # going down several branches walked.
    check()
    from engine.fast.descent import add_weighted, descend_levels, leaves_of_rows, walk_several

    rows = np.array([[0.5, 1.0], [np.nan, 0.0]])
    columns = np.asfortranarray(rows)
    frozen = columns.copy(order="F")
    frozen.flags.writeable = False  # an encoded table's columns
    routing = (  # a root splitting at 0.7 into two leaves
        np.array([[1, 2], [-1, -1], [-1, -1]], dtype=np.intp),
        np.array([0, -1, -1], dtype=np.intp),
        np.array([True, False, False]),
        np.array([0.7, np.nan, np.nan]),
        np.array([-1, -1, -1], dtype=np.intp),
        np.full((1, 1), -1, dtype=np.intp),
    )
    for X in (rows, columns, frozen):
        descend_levels(X, *routing, np.array([False, True, True]))
        leaves_of_rows(X, *routing, np.array([False, True, True]), np.array([1, -1, -1]))
        walk_several(
            X,
            *routing,
            np.array([1], dtype=np.intp),
            np.array([2, 0, 0], dtype=np.intp),
            np.array([[0.4, 0.6], [0.0, 0.0], [0.0, 0.0]]),
        )
    add_weighted(
        np.zeros((2, 1)),
        np.array([1, 1], dtype=np.intp),
        np.array([1, 2], dtype=np.intp),
        np.array([0.4, 0.6]),
        np.ones((3, 1)),
    )


def _split_by_threads(made: dict, check) -> None:
    """Exact fits on two threads, whose top nodes every thread splits at once
    (:class:`engine.fast.threads.Splitter`): only fits of 20,000 rows or more take that way,
    so the builder's thresholds are lowered meanwhile for tables the warm-up's size."""
    from engine.data.encoding import encode, subset
    from engine.fast import builder
    from engine.learn.problem import Problem
    from engine.monitor import Monitor
    from engine.settings import resolve

    lowered = {"THREADS_LEAST_ROWS": 0, "LOCAL_ROWS_LEAST": 64, "SPLIT_LEAST_ROWS": 256}
    saved = {name: getattr(builder, name) for name in lowered}
    try:
        for name, value in lowered.items():
            setattr(builder, name, value)
        for name, options in (
            ("numeric", {"algorithm": "cart", "splitter": "exact"}),
            ("regression", {"algorithm": "cart", "task": "regression", "splitter": "exact"}),
        ):
            settings = resolve(**options)
            whole = encode(made[name], settings.task)
            for data in (whole, subset(whole, np.arange(0, ROWS, 2))):
                check()
                rows = np.arange(data.n_rows)
                builder.grow_tree(
                    Problem(data, settings),
                    "exact",
                    rows,
                    data.weight[rows],
                    0,
                    frozenset(),
                    Monitor(),
                    threads=2,
                )
    finally:
        for name, value in saved.items():
            setattr(builder, name, value)


def tables() -> dict:
    """Small tables of every kind ``encode`` treats differently (fixed seed)."""
    from engine.data.table import make_table

    n = ROWS
    rng = np.random.default_rng(0)
    x = rng.normal(size=(n, 4)).round(2)
    colour = rng.choice(["red", "green", "blue"], n)
    size = rng.choice(["s", "m", "l", "xl"], n)
    score = x[:, 0] + (colour == "red") - 0.5 * x[:, 1] + rng.normal(0, 0.3, n)
    label = np.where(score > 0.8, "high", np.where(score > -0.4, "mid", "low"))
    numeric = pd.DataFrame({f"x{i}": x[:, i] for i in range(4)} | {"y": label})
    mixed = pd.DataFrame(
        {
            "x0": x[:, 0],
            "x1": x[:, 1],
            "colour": colour,
            "size": size,
            "y": np.where(score > 0.2, "yes", "no"),
        }
    )
    nominal = mixed.drop(columns=["x0", "x1"]).assign(band=np.where(x[:, 2] > 0, "up", "down"))
    missing = mixed.copy()
    missing.loc[rng.random(n) < 0.05, "x0"] = np.nan
    missing.loc[rng.random(n) < 0.05, "colour"] = None
    regression = pd.DataFrame({f"x{i}": x[:, i] for i in range(4)} | {"y": score.round(3)})
    return {
        "numeric": make_table(numeric),
        "mixed": make_table(mixed),
        "nominal": make_table(nominal),
        "missing": make_table(missing),
        "regression": make_table(regression, kinds={"y": "numeric"}),
    }
