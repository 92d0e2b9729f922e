"""What the workers run: one function per kind of task, each on one partition (or on the
rows gathered for a few small leaves). Module-level functions of picklable arguments, so
that any worker can run them again after another died (Dask retries a lost task)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from engine.scale.source import Dataset, Piece, encode_piece


@dataclass(frozen=True)
class Selection:
    """Which rows of a piece a pass reads: the training share (``evaluate --split``) and, of
    that, the rows grown on or held out for pruning. Each row draws its numbers from a
    generator seeded by (seed, piece, stream), so any worker draws the same."""

    seed: int = 1
    train_share: float = 1.0
    holdout_share: float = 0.0
    role: str = "grow"  # "grow", "prune" (the held-out training rows), "test", "all"

    def mask(self, piece_index: int, n: int) -> np.ndarray:
        if self.role == "all" or (self.train_share >= 1.0 and self.holdout_share <= 0.0):
            return np.ones(n, dtype=bool)
        split = np.random.default_rng([self.seed, piece_index, 0]).random(n) < self.train_share
        if self.role == "test":
            return ~split
        held = np.random.default_rng([self.seed, piece_index, 1]).random(n) < self.holdout_share
        return split & (held if self.role == "prune" else ~held)


@dataclass
class Part:
    """One partition's rows as arrays: attributes (float64, column-major), the target
    (class codes or numbers), and, once the bins are known, the histogram codes."""

    X: np.ndarray
    y: np.ndarray
    codes: np.ndarray | None = None

    @property
    def n(self) -> int:
        return len(self.y)

    @property
    def nbytes(self) -> int:
        return self.X.nbytes + self.y.nbytes + (0 if self.codes is None else self.codes.nbytes)


def load_part(
    piece: Piece, index: int, dataset: Dataset, task: str, selection: Selection, bins=None
) -> Part:
    """Read, encode and select one piece's rows (and code them, given the bins)."""
    X, y = encode_piece(piece, dataset, task)
    keep = selection.mask(index, len(y))
    if not keep.all():
        X, y = np.asfortranarray(X[keep]), y[keep]
    part = Part(X, y)
    return with_codes(part, bins) if bins is not None else part


def with_codes(part: Part, bins) -> Part:
    from engine.fast.partitions import bin_codes

    return Part(
        part.X, part.y, bin_codes(part.X, bins.edges, bins.n_bins, bins.nominal, bins.dtype)
    )


def source_part(source, dataset: Dataset, task: str, selection: Selection, bins=None) -> Part:
    """A pass's partition: persisted (a :class:`Part`, Dask hands over the value) or, when
    the table is larger than the workers' memory, read again from its file."""
    if isinstance(source, Part):
        return source if bins is None or source.codes is not None else with_codes(source, bins)
    piece, index = source
    return load_part(piece, index, dataset, task, selection, bins)


# ---------------------------------------------------------------------- binning passes


def count_known(source, dataset: Dataset, task: str, selection: Selection):
    """Rows, and per attribute the rows with a value (the sample's stride needs them)."""
    part = source_part(source, dataset, task, selection)
    known = (~np.isnan(part.X)).sum(axis=0).astype(np.int64)
    return part.n, known


def sample_values(
    source, dataset: Dataset, task: str, selection: Selection, offsets, steps, numeric
):
    """Each numeric attribute's known values whose index among the table's known values is a
    multiple of its step (``offsets``: this piece's first index), in row order."""
    part = source_part(source, dataset, task, selection)
    out = {}
    for j in np.flatnonzero(numeric):
        x = part.X[:, j]
        x = x[~np.isnan(x)]
        first = (-int(offsets[j])) % int(steps[j])
        out[int(j)] = x[first :: int(steps[j])].copy()
    return out


# ---------------------------------------------------------------------- growth rounds


@dataclass
class Partial:
    """A pass's sums over some partitions: per output slot statistics and entries, the
    requested histograms, and (the root pass) each bin's smallest and largest value."""

    stats: np.ndarray
    entries: np.ndarray
    H: np.ndarray
    low: np.ndarray | None = None
    high: np.ndarray | None = None


@dataclass(frozen=True)
class Request:
    """What a pass asks of every partition: per output slot, its histogram (-1: none) and
    the bundle its gathered rows go to (-1: not gathered)."""

    hist: np.ndarray
    bundle: np.ndarray
    n_hist: int
    n_bundles: int
    count_entries: bool
    bounds: bool = False


def round_pass(
    source, dataset: Dataset, task: str, selection: Selection, bins, route, request: Request
):
    """One partition's share of a round: ``(Partial, [rows gathered per bundle])``."""
    from engine.fast.partitions import Leaves, accumulate_leaves

    part = source_part(source, dataset, task, selection, bins)
    n_slots = len(request.hist)
    classes = 0 if task == "regression" else int(len(dataset.target.categories))
    S = 3 if classes == 0 else classes
    p = part.X.shape[1]
    H = np.zeros((request.n_hist, p, bins.width, S + int(request.count_entries)))
    cls = part.y.astype(np.int64) if classes else np.zeros(1, np.int64)
    target = part.y.astype(np.float64) if not classes else np.zeros(1)
    gathering = request.n_bundles > 0
    capacity = part.n if gathering else 0
    while True:
        leaves = Leaves(
            request.hist,
            request.bundle >= 0,
            np.zeros((n_slots, S)),
            np.zeros(n_slots, np.int64),
            H,
            np.zeros(capacity, np.int64),
            np.zeros(capacity),
            np.zeros(capacity, np.int64),
        )
        got = accumulate_leaves(
            route,
            leaves,
            part.codes,
            part.X,
            cls,
            target,
            np.ones(part.n),
            classes,
            bins.n_bins,
            bins.missing_code,
            request.count_entries,
        )
        if got <= capacity:
            break
        capacity = got  # nothing was written: run again with room for every gathered row
    partial = Partial(leaves.stats, leaves.entries, H)
    if request.bounds:
        partial.low, partial.high = _bounds(part, bins)
    gathered = []
    if gathering:
        rows, weights, slots = leaves.rows[:got], leaves.weights[:got], leaves.slots[:got]
        bundle = request.bundle[slots]
        for b in range(request.n_bundles):
            mine = bundle == b
            r = rows[mine]
            gathered.append((slots[mine], np.asfortranarray(part.X[r]), part.y[r], weights[mine]))
    return partial, gathered


def _bounds(part: Part, bins):
    """Each bin's smallest and largest value among the partition's rows."""
    from engine.fast.histogram import _bounds as bin_bounds

    p, width = part.X.shape[1], bins.width
    low, high = np.full((p, width), np.inf), np.full((p, width), -np.inf)
    for j in range(p):
        if bins.nominal[j]:
            continue
        x = part.X[:, j]
        known = ~np.isnan(x)
        codes = part.codes[known, j].astype(np.int64)
        nb = int(bins.n_bins[j])
        low[j, :nb], high[j, :nb] = bin_bounds(np.ascontiguousarray(x[known]), codes, nb)
    return low, high


def add_partials(*partials) -> Partial:
    """The sum of some partitions' partials (a node of the tree reduction)."""
    out = partials[0]
    out = Partial(
        out.stats.copy(),
        out.entries.copy(),
        out.H.copy(),
        None if out.low is None else out.low.copy(),
        None if out.high is None else out.high.copy(),
    )
    for q in partials[1:]:
        out.stats += q.stats
        out.entries += q.entries
        out.H += q.H
        if q.low is not None:
            np.minimum(out.low, q.low, out=out.low)
            np.maximum(out.high, q.high, out=out.high)
    return out


def first_of(pair):
    return pair[0]


def bundle_of(pair, b: int):
    return pair[1][b]


def grow_bundle(spec, *pieces):
    """Grow the subtree of every small leaf in a bundle from its rows gathered across the
    partitions (in partition order, so in the table's row order), exactly."""
    from engine.scale.subtrees import grow_subtree

    if not pieces:
        return {}
    slots = np.concatenate([q[0] for q in pieces])
    X = np.concatenate([q[1] for q in pieces])
    y = np.concatenate([q[2] for q in pieces])
    w = np.concatenate([q[3] for q in pieces])
    # Each leaf's rows together, still in partition and row order (a stable sort): one
    # mask per leaf went over all the bundle's rows once per leaf.
    order = np.argsort(slots, kind="stable")
    slots = slots[order]
    out = {}
    for slot, depth, used in spec.leaves:
        mine = order[np.searchsorted(slots, slot, "left") : np.searchsorted(slots, slot, "right")]
        out[slot] = grow_subtree(spec, np.asfortranarray(X[mine]), y[mine], w[mine], depth, used)
    return out


def values_below(source, dataset: Dataset, task: str, selection: Selection, thresholds: dict):
    """Per attribute and threshold ``t``, the largest training value ``v`` with
    ``v - t < 1e-6`` (-inf: none), the value :func:`engine.learn.thresholds.c45_threshold`
    moves ``t`` onto when it sees the whole column."""
    from engine.learn.tolerances import WEKA_EPS

    part = source_part(source, dataset, task, selection)
    out = {}
    for j, cuts in thresholds.items():
        x = part.X[:, j]
        x = x[~np.isnan(x)]
        best = np.full(len(cuts), -np.inf)
        if len(x):
            # The first cut each value is within the tolerance of: searchsorted's guess,
            # settled by Weka's own subtraction (rounding may put it one cut off).
            at = np.searchsorted(cuts, x - WEKA_EPS, side="right")
            lower = np.maximum(at - 1, 0)
            at = np.where((at > 0) & (x - cuts[lower] < WEKA_EPS), lower, at)
            upper = np.minimum(at, len(cuts) - 1)
            at = np.where((at < len(cuts)) & ~(x - cuts[upper] < WEKA_EPS), at + 1, at)
            inside = at < len(cuts)
            np.maximum.at(best, at[inside], x[inside])
            best = np.maximum.accumulate(best)
        out[j] = best
    return out


def node_sums(source, dataset: Dataset, task: str, selection: Selection, route, n_stats: int):
    """Each node's statistics of the rows that pass it (held-out rows for pruning)."""
    from engine.fast.partitions import node_statistics

    part = source_part(source, dataset, task, selection)
    classes = 0 if task == "regression" else int(len(dataset.target.categories))
    stats = np.zeros((len(route.attribute), n_stats))
    cls = part.y.astype(np.int64) if classes else np.zeros(1, np.int64)
    target = part.y.astype(np.float64) if not classes else np.zeros(1)
    node_statistics(route, part.X, cls, target, np.ones(part.n), classes, stats)
    return part.n, stats
