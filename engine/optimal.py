"""Optimal trees: of all trees up to a depth (and a number of leaves), one that misclassifies
the least training weight, found exactly rather than greedily.

Seed 000 says that finding the best tree is NP-hard and that ID3's greedy search may miss
it; for small depths the best tree can still be found, by dynamic programming over sets
of rows (the idea behind DL8.5, MurTree and STreeD): the best tree of depth d on rows S is
a leaf, or a split f with the best tree of depth d - 1 on each side, each side solved on
its own. A side's rows depend on the path taken, not its order, so solved sets of rows
are remembered (keyed by a digest of the rows and the depth). At depth two a single pass
of the compiled kernel (:func:`engine.fast.optimal.depth_two`) scores every root split
with the best split below each of its branches, so a depth-3 search is one kernel call
per root split and branch.

Bounds prune the search: the best tree found so far is an upper bound, and no tree can
misclassify less than the rows that agree on every feature but not on the class (the
equivalent-rows bound), so a split whose first side already costs more than the best
tree, less the other side's bound, is dropped. Splits are tried in the order of their
best depth-2 trees, the first of which is also the first tree found.

A split is binary: a numeric attribute's value against one of its thresholds (every
midpoint between distinct values, or ``max_bins`` quantiles when an attribute has more
distinct values than that), a nominal one's value against the rest. A missing value goes
with the rest, during the search and in the tree (the split's branch shares are 0 and 1).

With a time limit, the search stops there and returns the best tree found, with the
lower bound it has proved (:class:`Solution`); ``cancel`` stops it outright.
"""

from __future__ import annotations

import contextlib
import hashlib
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from types import MappingProxyType

import numpy as np

from engine.data.encoding import Encoded
from engine.errors import ArborError
from engine.fast import NUMBA_INSTALLED
from engine.monitor import NULL_MONITOR, Monitor
from engine.settings import OPTIMAL_MAX_DEPTH, Settings
from engine.tree import SUBSET, THRESHOLD, Node, Split, renumber

MAX_DEPTH = OPTIMAL_MAX_DEPTH
#: Rows x binary features up to which the kernel runs uncompiled (a tiny table: interpreted
#: it takes well under a second at depth 3, less than loading, let alone first compiling,
#: the compiled kernel).
UNCOMPILED_MAX_CELLS = 3_000


@dataclass(frozen=True)
class Features:
    """The binary features the search splits on, and each row's bins (see the kernel)."""

    codes: np.ndarray  # rows x attributes, int64, each row's bin
    first: np.ndarray  # attribute a's features are first[a] .. first[a + 1] - 1
    numeric: np.ndarray  # bool per attribute
    n_bins: np.ndarray  # bins per attribute (the missing bin is the one after)
    thresholds: tuple[np.ndarray, ...]  # a numeric attribute's thresholds, by feature
    attribute: np.ndarray  # each feature's attribute

    @property
    def n_features(self) -> int:
        return int(self.first[-1])

    def inside(self, f: int, rows: np.ndarray) -> np.ndarray:
        """Whether each of ``rows`` is in feature ``f``."""
        a = int(self.attribute[f])
        i = f - int(self.first[a])
        bins = self.codes[rows, a]
        return bins <= i if self.numeric[a] else bins == i


@dataclass(frozen=True)
class Solution:
    """What the search found: the tree's root, its training error (misclassified weight),
    the lower bound proved, and whether the search finished (then error == bound)."""

    root: Node
    error: float
    bound: float
    finished: bool

    @property
    def gap(self) -> float:
        return max(self.error - self.bound, 0.0)


class _OutOfTime(Exception):
    """The time limit: the search returns the best tree it has."""


def binarise(data: Encoded, rows: np.ndarray, splitter: str, max_bins: int) -> Features:
    """The features of ``data``'s attributes over ``rows``: every midpoint of a numeric
    attribute (``splitter`` "exact", or "auto" when it has at most ``max_bins`` distinct
    values), else thresholds at ``max_bins`` quantiles; one feature per nominal value."""
    n_attributes = data.X.shape[1]
    codes = np.zeros((data.n_rows, n_attributes), dtype=np.int64)
    first = np.zeros(n_attributes + 1, dtype=np.int64)
    numeric = np.zeros(n_attributes, dtype=np.bool_)
    n_bins = np.zeros(n_attributes, dtype=np.int64)
    thresholds, owner = [], []
    for a, attr in enumerate(data.schema.attributes):
        x = data.X[:, a]
        missing = np.isnan(x)
        if attr.is_nominal:
            n = max(len(attr.categories), 1)
            seen = np.isnan(x[rows]).any()
            # Two values and none missing: "= first" and "= second" are one split.
            count = 1 if n == 2 and not seen else n
            codes[:, a] = np.where(missing, n, np.nan_to_num(x, nan=0.0)).astype(np.int64)
            thresholds.extend([np.nan] * count)
        else:
            known = x[rows][~np.isnan(x[rows])]
            cuts = _thresholds(known, splitter, max_bins)
            n = len(cuts) + 1
            count = len(cuts)
            numeric[a] = True
            codes[:, a] = np.where(missing, n, np.searchsorted(cuts, np.nan_to_num(x), "left"))
            thresholds.extend(cuts)
        n_bins[a] = n
        first[a + 1] = first[a] + count
        owner.extend([a] * count)
    return Features(
        np.ascontiguousarray(codes),
        first,
        numeric,
        n_bins,
        tuple(np.asarray(thresholds, dtype=np.float64)),
        np.asarray(owner, dtype=np.int64),
    )


def _thresholds(known: np.ndarray, splitter: str, max_bins: int) -> np.ndarray:
    values = np.unique(known)
    mids = (values[:-1] + values[1:]) / 2
    if splitter == "exact" or (splitter == "auto" and len(values) <= max_bins):
        return mids
    # The midpoint just above each quantile of the known values (ties: one threshold).
    qs = np.quantile(known, np.arange(1, max_bins) / max_bins)
    at = np.clip(np.searchsorted(values, qs, "right") - 1, 0, len(mids) - 1)
    return np.unique(mids[at]) if len(mids) else mids


def misclassified(counts: np.ndarray) -> np.ndarray:
    """Weight minus the largest class weight, along the last axis."""
    return counts.sum(axis=-1) - counts.max(axis=-1, initial=0.0)


class _Search:
    def __init__(self, data, features, y, w, budget, bounded, monitor, deadline, compiled):
        self.features, self.y, self.w = features, y, w
        self.n_classes = len(data.schema.classes)
        self.budget, self.monitor, self.deadline = budget, monitor, deadline
        self.bounded = bounded  # a leaf budget below what the depth allows
        self.kernel = _kernels().depth_two if compiled else _uncompiled()
        self.memo: dict[tuple[bytes, int], tuple[np.ndarray, list]] = {}
        self.eps = 1e-9 * max(float(w.sum()), 1.0)
        self.stopped = False  # the time limit came before the search finished
        # Rows alike in every attribute's bin share a group (the equivalent-rows bound).
        _, group = np.unique(features.codes, axis=0, return_inverse=True)
        self.group = group.ravel()
        self.n_groups = int(self.group.max()) + 1 if len(self.group) else 0

    def counts(self, rows):
        return np.bincount(self.y[rows], self.w[rows], minlength=self.n_classes)

    def leaves(self, depth: int) -> int:
        return min(self.budget, 2**depth)

    def bound(self, rows: np.ndarray) -> float:
        """No tree separates rows with the same bins of every attribute."""
        if len(rows) == 0:
            return 0.0
        cells = self.group[rows] * self.n_classes + self.y[rows]
        table = np.bincount(cells, self.w[rows], minlength=self.n_groups * self.n_classes)
        return float(misclassified(table.reshape(self.n_groups, self.n_classes)).sum())

    def solve(self, rows: np.ndarray, depth: int, top: bool = False):
        """(errors, plans): per leaf count k (index k, at most k leaves) the least error and
        how: None (a leaf) or (feature, k inside, k outside) below depth 2, or (feature,
        split inside, split outside) for depth <= 2 (-1: a leaf there)."""
        key = (hashlib.blake2b(rows.tobytes(), digest_size=16).digest(), depth)
        found = self.memo.get(key)
        if found is not None:
            return found
        k_max = self.leaves(depth)
        errors = np.full(k_max + 1, np.inf)
        errors[1] = float(misclassified(self.counts(rows)))
        plans: list = [None] * (k_max + 1)
        if depth == 0 or k_max < 2 or errors[1] <= self.eps:
            errors[2:] = errors[1]
            result = (errors, plans)
            self.memo[key] = result
            return result
        by_feature = self._depth_two(rows, depth, errors, plans)
        if depth > 2:
            self._deeper(rows, depth, errors, plans, by_feature, top)
        result = (errors, plans)
        self.memo[key] = result
        return result

    def _depth_two(self, rows, depth, errors, plans):
        """Fill in the best trees of depth <= 2 (a valid start at any depth); returns each
        root feature's best error at this node's leaf budget, to order a deeper search."""
        f = self.features
        inside, in_err, in_split, out_err, out_split = self.kernel(
            f.codes, self.y, self.w, rows, f.first, f.numeric, f.n_bins, self.n_classes
        )
        total = self.counts(rows)
        leaf_in, leaf_out = misclassified(inside), misclassified(total - inside)
        eps = self.eps
        use_in = in_err < leaf_in - eps
        use_out = out_err < leaf_out - eps
        best_in = np.where(use_in, in_err, leaf_in)
        best_out = np.where(use_out, out_err, leaf_out)
        options = [(2, leaf_in + leaf_out, -np.ones_like(in_split), -np.ones_like(out_split))]
        if depth >= 2:
            in_first = in_err + leaf_out <= leaf_in + out_err
            options.append(
                (
                    3,
                    np.where(in_first, in_err + leaf_out, leaf_in + out_err),
                    np.where(in_first, in_split, -1),
                    np.where(in_first, -1, out_split),
                )
            )
            options.append(
                (
                    4,
                    best_in + best_out,
                    np.where(use_in, in_split, -1),
                    np.where(use_out, out_split, -1),
                )
            )
        k_max = len(errors) - 1
        for k in range(2, k_max + 1):
            errors[k], plans[k] = errors[k - 1], plans[k - 1]
            for leaves, cost, inner, outer in options:
                if leaves > k or len(cost) == 0:
                    continue
                best = int(np.argmin(cost))
                if cost[best] < errors[k] - eps:
                    errors[k] = float(cost[best])
                    plans[k] = (best, int(inner[best]), int(outer[best]))
        usable = [cost for leaves, cost, _, _ in options if leaves <= k_max]
        return np.minimum.reduce(usable) if usable else np.zeros(0)

    def _deeper(self, rows, depth, errors, plans, by_feature, top):
        k_max = len(errors) - 1
        order = np.argsort(by_feature, kind="stable")
        try:
            self._splits(rows, depth, errors, plans, order, top)
        except _OutOfTime:
            if not top:
                raise
            self.stopped = True  # the best trees so far stand, their sides solved
        for k in range(3, k_max + 1):  # fewer leaves when as good
            if errors[k - 1] <= errors[k] + self.eps:
                errors[k], plans[k] = errors[k - 1], plans[k - 1]

    def _splits(self, rows, depth, errors, plans, order, top):
        k_max = len(errors) - 1
        k_child = self.leaves(depth - 1)
        # Without a leaf budget only the biggest trees matter: fewer leaves never do better.
        ks = range(2, k_max + 1) if self.bounded else (k_max,)
        floor_here = self.bound(rows)
        for done, f in enumerate(order):
            self.monitor.check()
            if time.monotonic() > self.deadline:
                raise _OutOfTime
            if all(errors[k] <= floor_here + self.eps for k in ks):
                break  # as good as any tree can be on these rows
            if top:
                self.monitor.report(
                    done / len(order), f"optimal depth {depth}: split {done + 1} of {len(order)}"
                )
            mask = self.features.inside(int(f), rows)
            inner, outer = rows[mask], rows[~mask]
            if len(inner) == 0 or len(outer) == 0:
                continue
            in_errors, _ = self.solve(inner, depth - 1)
            # Even a perfect side cannot beat the best trees so far: skip the other side.
            floor = self.bound(outer)
            if all(in_errors[min(k - 1, k_child)] + floor >= errors[k] - self.eps for k in ks):
                continue
            out_errors, _ = self.solve(outer, depth - 1)
            for k in ks:
                for k_in in range(1, min(k - 1, k_child) + 1):
                    k_out = min(k - k_in, k_child)
                    cost = in_errors[k_in] + out_errors[k_out]
                    if cost < errors[k] - self.eps:
                        errors[k], plans[k] = cost, (int(f), k_in, k_out, "deep")

    # ------------------------------------------------------------------ the tree

    def build(self, data: Encoded, rows: np.ndarray, depth: int, k: int, level: int) -> Node:
        errors, plans = self.solve(rows, depth)
        plan = plans[min(k, len(plans) - 1)]
        if plan is None:
            return self.leaf(rows, level)
        f = plan[0]
        mask = self.features.inside(f, rows)
        inner, outer = rows[mask], rows[~mask]
        if len(plan) == 4:  # a deeper plan: each side's own best tree
            children = (
                self.build(data, inner, depth - 1, plan[1], level + 1),
                self.build(data, outer, depth - 1, plan[2], level + 1),
            )
        else:
            children = tuple(
                self.leaf(side, level + 1)
                if g < 0
                else self.split_node(
                    data,
                    side,
                    g,
                    (
                        self.leaf(side[self.features.inside(g, side)], level + 2),
                        self.leaf(side[~self.features.inside(g, side)], level + 2),
                    ),
                    level + 1,
                )
                for side, g in ((inner, plan[1]), (outer, plan[2]))
            )
        return self.split_node(data, rows, f, children, level)

    def leaf(self, rows, level) -> Node:
        counts = self.counts(rows)
        weight = float(counts.sum())
        impurity = 1.0 - counts.max() / weight if weight > 0 else 0.0
        return Node(id=0, depth=level, weight=weight, distribution=counts, impurity=impurity)

    def split_node(self, data, rows, f, children, level) -> Node:
        f_ = self.features
        a = int(f_.attribute[f])
        x = data.X[rows, a]
        known = ~np.isnan(x)
        in_weight = float(self.w[rows][known & f_.inside(f, rows)].sum())
        known_weight = float(self.w[rows][known].sum())
        if not known.all() or known_weight <= 0:
            fractions = (0.0, 1.0)  # the search sent missing values with the rest
        else:
            fractions = (in_weight / known_weight, 1.0 - in_weight / known_weight)
        if f_.numeric[a]:
            split = Split(a, THRESHOLD, fractions, threshold=float(f_.thresholds[f]))
        else:
            value = f - int(f_.first[a])
            others = tuple(c for c in range(int(f_.n_bins[a])) if c != value)
            split = Split(a, SUBSET, fractions, groups=((value,), others))
        node = self.leaf(rows, level)
        return Node(
            id=0,
            depth=level,
            weight=node.weight,
            distribution=node.distribution,
            impurity=node.impurity,
            split=split,
            children=tuple(children),
        )


def search_note(tree) -> tuple[str, ...]:
    """What an optimal tree's search proved, for a person (nothing for other trees)."""
    root = tree.root_made
    if root is None:  # growth's arrays: a greedy tree (its nodes are not made to be looked at)
        return ()
    stats = root.stats
    if "lower bound" not in stats or "training errors" not in stats:
        return ()
    error, bound = stats["training errors"], stats["lower bound"]
    if bound < error:
        return (
            f"the time limit stopped the search before it finished: this tree misclassifies "
            f"{error:g} (training weight) and no tree of its depth on these candidate splits "
            f"can misclassify fewer than {bound:g}, so it is at most {error - bound:g} from "
            "optimal",
        )
    return (
        f"optimal: no tree of this depth on these candidate splits misclassifies fewer than "
        f"{error:g} (training weight)",
    )


def load_kernel(monitor: Monitor = NULL_MONITOR) -> bool:
    """Load the compiled kernel from the kernel folder, compiling it there first (once per
    machine, some seconds) in a child process: numba holds the interpreter while it
    compiles, which would freeze the window. False if it cannot be compiled here."""
    kernel = _kernels().depth_two
    if not NUMBA_INSTALLED or getattr(kernel, "signatures", None) is None:
        return False
    if kernel.signatures:
        return True
    from engine.fast.compile.jit import NotCached, loading_only

    try:
        with loading_only():
            warm_kernel()
        return True
    except NotCached:
        pass
    monitor.report(0.0, "compiling the optimal solver (once per machine, about 10 s)")
    child = subprocess.Popen(
        [sys.executable, "-c", "from engine.optimal import warm_kernel; warm_kernel()"],
        cwd=Path(__file__).resolve().parents[1],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        while child.poll() is None:
            if monitor.cancelled:
                child.kill()
            with contextlib.suppress(subprocess.TimeoutExpired):
                child.wait(0.2)
    finally:
        if child.poll() is None:
            child.kill()
            child.wait()
    monitor.check()
    if child.returncode != 0:
        return False
    try:
        with loading_only():
            warm_kernel()
    except NotCached:
        return False
    return True


def warm_kernel() -> None:
    """Call the kernel once on a tiny problem with the argument types the search uses
    (compiling it, or loading it from the kernel folder)."""
    codes = np.zeros((2, 1), dtype=np.int64)
    index = np.arange(2, dtype=np.int64)
    _kernels().depth_two(
        codes,
        index,
        np.ones(2),
        index,
        np.array([0, 1], dtype=np.int64),
        np.ones(1, dtype=np.bool_),
        np.full(1, 2, dtype=np.int64),
        2,
    )


def _uncompiled():
    return getattr(_kernels().depth_two, "py_func", _kernels().depth_two)


def solve_optimal(
    data: Encoded,
    settings: Settings,
    monitor: Monitor = NULL_MONITOR,
    rows: np.ndarray | None = None,
    weights: np.ndarray | None = None,
    depth: int = 0,
    compiled: bool | None = None,
) -> Solution:
    """The tree of least weighted training error of depth ``settings.max_depth`` (less
    ``depth``, for a subtree below a node at that depth) with at most
    ``settings.max_leaves`` leaves, over ``rows`` weighted ``weights``.

    Examples
    --------
    >>> from engine.data.samples import load_sample
    >>> from engine.data.encoding import encode
    >>> from engine.settings import resolve
    >>> s = solve_optimal(encode(load_sample("weather")), resolve(algorithm="optimal", max_depth=2))
    >>> s.error, s.finished
    (2.0, True)
    """
    if data.schema.is_regression:
        raise ArborError("optimal trees are for classification: use CART for regression")
    limit = settings.max_depth
    if limit is None or limit > MAX_DEPTH:  # resolve() refuses these; Settings() does not
        raise ArborError(f"optimal trees need a max depth of {MAX_DEPTH} or less")
    rows = np.arange(data.n_rows) if rows is None else np.ascontiguousarray(rows, dtype=np.int64)
    w = np.zeros(data.n_rows)
    w[rows] = data.weight[rows] if weights is None else np.asarray(weights, dtype=np.float64)
    y = np.ascontiguousarray(data.y, dtype=np.int64)
    levels = max(limit - depth, 0)
    budget = settings.max_leaves or 2**levels
    features = binarise(data, rows, settings.splitter, settings.max_bins)
    if compiled is None:
        compiled = NUMBA_INSTALLED and len(rows) * features.n_features > UNCOMPILED_MAX_CELLS
    if compiled:
        compiled = load_kernel(monitor)
    deadline = time.monotonic() + (settings.time_limit or float("inf"))
    bounded = budget < 2**levels
    search = _Search(data, features, y, w, budget, bounded, monitor, deadline, compiled)
    monitor.report(0.0, f"optimal depth {levels}: {features.n_features} candidate splits")
    k = search.leaves(levels)
    errors, _ = search.solve(rows, levels, top=True)
    error = float(errors[k])
    finished = not search.stopped
    bound = error if finished else min(search.bound(rows), error)
    root = search.build(data, rows, levels, k, depth)
    stats = {"training errors": error, "lower bound": bound}
    root = Node(
        id=0,
        depth=depth,
        weight=root.weight,
        distribution=root.distribution,
        impurity=root.impurity,
        split=root.split,
        children=root.children,
        stats=MappingProxyType(stats),
    )
    monitor.report(1.0, "optimal" if finished else "time limit: best tree found")
    return Solution(renumber(root, depth), error, bound, finished)


def _kernels():
    """The solver's compiled module, imported when an optimal tree is searched: importing it
    loads numba, which the other algorithms' small fits never need (tests/cli/test_startup.py)."""
    from engine.fast import optimal

    return optimal
